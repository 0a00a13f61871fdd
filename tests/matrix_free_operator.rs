//! The matrix-free stage operator (`solver::newton_krylov`): on a first-order inviscid
//! residual its product equals the assembled exact Jacobian's, pseudo-time term included; on
//! the periodic cascade channel at a large CFL the implicit scheme with it converges to the assembled
//! operator's solution in fewer flow iterations.

mod common;

use turbopt::backend::cpu::{CpuBackend, CpuField};
use turbopt::backend::{Backend, BoundaryData, ConvectiveJacobian, ConvectiveScheme, ImplicitBackend, JacobianOptions, Physics, PreconditionerKind, Reconstruction, System};
use turbopt::mesh::simple::gaussian_bump_channel;
use turbopt::solver::krylov::{KrylovSystem, StageSystem};
use turbopt::solver::newton_krylov::MatrixFreeWorkspace;
use turbopt::solver::{uniform_state, Case, CflRamp, ExplicitSolver, ImplicitConfig, ImplicitSolver, Scheme, Silent, SolverConfig, StageOperator};

const FREE_STREAM: [f64; 4] = common::CHANNEL_FREE_STREAM;

#[test]
fn the_product_equals_the_exact_first_order_jacobian_on_a_first_order_residual() {
    let gas = common::unit_gas();
    let mesh = gaussian_bump_channel(24, 8).unwrap();
    let case = Case { gas, operating_point: common::operating_point_of(&gas, FREE_STREAM), solver: SolverConfig { model: turbopt::solver::FlowModel::Euler, ..SolverConfig::default() } };
    let backend = CpuBackend::new(Some(1)).unwrap();
    let g = backend.upload_geometry(&mesh).unwrap();
    // A developing, non-uniform flow: 30 explicit iterations from the free stream.
    let mut explicit = ExplicitSolver::new(&backend, &mesh, Case { solver: SolverConfig { max_iterations: 30, ..case.solver.clone() }, ..case.clone() }).unwrap();
    let state = explicit.solve(&uniform_state(&mesh, &gas, FREE_STREAM), &mut Silent).unwrap().solution;
    let op = &case.operating_point;
    let a = op.alpha1_deg.to_radians();
    let data = BoundaryData { p01: op.p01, t01: op.t01, inlet_direction: [a.cos(), a.sin()], p2: op.p2, inlet_nu_tilde: 0.0, no_slip_walls: false };
    let scheme = ConvectiveScheme { reconstruction: Reconstruction::FirstOrder, entropy_fix: 0.1, convect_nu_tilde: false, convect_intermittency: false, limiter_epsilon: [1e-12; 4] };
    let residual_of = |w: &mut CpuField, r: &mut CpuField| {
        backend.apply_boundary_conditions(&g, &gas, &data, w);
        backend.convective_residual(&g, &gas, &scheme, w, r);
    };
    let mut w = backend.upload_state(&g, &state).unwrap();
    let mut r = backend.new_field(&g);
    residual_of(&mut w, &mut r);
    let mut dt = backend.new_scalars(&g);
    backend.local_time_step(&g, &gas, Physics::Euler, 20.0, &w, &mut dt);
    let options = JacobianOptions { convective: ConvectiveJacobian::Exact, entropy_fix: 0.1, physics: Physics::Euler, sa: Default::default() };
    let mut jac = backend.new_jacobian(&g).unwrap();
    backend.assemble_jacobian(&g, &gas, &data, &options, &w, Some(&dt), &mut jac);
    let pc = backend.factorize(&jac, PreconditionerKind::Ilu).unwrap();

    let workspace = MatrixFreeWorkspace::new(&backend, &g, &jac);
    let system = workspace.system(StageSystem { backend: &backend, jacobian: &jac, preconditioner: &pc, system: System::MeanFlow }, &g, &w, &r, &dt, &residual_of);
    let n = backend.new_krylov_vector(&jac, System::MeanFlow).len();
    // A smooth direction with the variables' own scales (a density-like, two momentum-like and
    // an energy-like entry per cell), as a Krylov direction is.
    let v: Vec<f64> = (0..n).map(|k| [1.0, 0.5, 0.5, 2.5][k % 4] * (0.3 * (k / 4) as f64).sin()).collect();
    let (mut assembled, mut matrix_free) = (vec![0.0; n], vec![0.0; n]);
    backend.apply_operator(&jac, System::MeanFlow, &v, &mut assembled);
    system.apply_operator(&v, &mut matrix_free);
    let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
    let diff: Vec<f64> = assembled.iter().zip(&matrix_free).map(|(a, b)| a - b).collect();
    let relative = norm(&diff) / norm(&assembled);
    println!("matrix-free against assembled exact first-order operator: relative difference {relative:.2e}");
    assert!(workspace.take_error().is_none());
    // The exact face-flux Jacobian is itself a central difference (relative error ~1e-9); the
    // matrix-free product's forward difference adds O(eps) truncation and sqrt(eps_mach) noise.
    assert!(relative < 1e-5, "relative difference {relative:e}");
    // The direction zero gives zero, with no residual evaluated.
    let mut zero = vec![1.0; n];
    system.apply_operator(&vec![0.0; n], &mut zero);
    assert!(zero.iter().all(|x| *x == 0.0));
}

#[test]
fn the_cascade_channel_converges_to_the_assembled_solution_in_fewer_flow_iterations() {
    let mesh = common::distorted_channel(2, 24, 16, 2.0, 0.03);
    let solve = |operator: StageOperator| {
        // At a large CFL the pseudo-time term no longer hides the Jacobian: Newton's iteration
        // against the defect correction of the first-order one. No acceleration, to compare the
        // operators alone.
        let cfl = CflRamp { start: 1000.0, target: 1000.0, ..CflRamp::default() };
        let implicit = ImplicitConfig { operator, cfl, anderson: None, preconditioner: PreconditionerKind::Ilu, ..ImplicitConfig::default() };
        let solver = SolverConfig { scheme: Scheme::Implicit(implicit), max_iterations: 2000, convergence_orders: 6.0, ..SolverConfig::default() };
        let (case, initial) = common::incidence_channel_case(&mesh, solver);
        let backend = CpuBackend::new(Some(1)).unwrap();
        let out = ImplicitSolver::new(&backend, &mesh, case).unwrap().solve(&initial, &mut Silent).unwrap();
        let r = &out.report;
        println!("{operator:?}: {} flow iterations, {:.1} FGMRES iterations a stage, converged {}", r.iterations, r.mean_linear_iterations(), out.outcome.converged);
        assert!(out.outcome.converged, "{operator:?}: {:.2} orders in {} iterations", out.outcome.history.orders_dropped(), r.iterations);
        let density: Vec<f64> = out.outcome.solution.blocks.iter().flat_map(|b| b.rho.clone()).collect();
        (r.iterations, r.mean_linear_iterations(), density)
    };
    let (assembled_its, assembled_linear, assembled) = solve(StageOperator::Assembled);
    let (free_its, free_linear, free) = solve(StageOperator::MatrixFree);
    let diff = common::max_abs_difference(&assembled, &free);
    println!("largest density difference {diff:.2e}");
    assert!(diff < 1e-5, "the two operators' solutions differ by {diff:e}");
    assert!(free_its < assembled_its, "matrix-free {free_its} against assembled {assembled_its} flow iterations");
    assert!(free_linear > assembled_linear, "the first-order ILU preconditions the second-order operator less well: {free_linear} against {assembled_linear}");
}
