//! Implicit solver on real cases: FGMRES with each preconditioner on the assembled CFD matrix,
//! convergence of a subsonic bump channel and of a periodic two-block cascade-like channel
//! against the explicit solver, and the on-demand ILU refresh against refactorizing every
//! iteration.

mod common;

use std::time::Instant;

use turbopt::backend::cpu::{CpuBackend, CpuField};
use turbopt::backend::{Backend, ConvectiveJacobian, ImplicitBackend, JacobianOptions, Physics, PreconditionerKind, NFLOW};
use turbopt::flow::case::OperatingPoint;
use turbopt::mesh::simple::gaussian_bump_channel;
use turbopt::mesh::Mesh;
use turbopt::solver::implicit::solve_stage;
use turbopt::solver::krylov::FgmresSettings;
use turbopt::solver::{uniform_state, Case, ExplicitSolver, IluRefresh, ImplicitConfig, ImplicitReport, ImplicitSolver, ResidualSmoothing, Scheme, Silent, SolverConfig};

const FREE_STREAM: [f64; 4] = [1.0, 0.5, 0.0, 1.0 / 1.4];

/// Subsonic bump channel (inlet Mach 0.5), started from the free stream.
fn bump_case(solver: SolverConfig) -> (Mesh, Case) {
    let gas = common::unit_gas();
    let mesh = gaussian_bump_channel(48, 16).unwrap();
    (mesh, Case { gas, operating_point: common::operating_point_of(&gas, FREE_STREAM), solver })
}

/// Periodic two-block channel at 10 degrees incidence and 3 % lower back pressure (the
/// multigrid test case): inlet, outlet, 1-to-1 interface, periodic j-faces.
fn cascade_case(ni: usize, nj: usize, solver: SolverConfig) -> (Mesh, Case) {
    let gas = common::unit_gas();
    let mesh = common::distorted_channel(2, ni, nj, 2.0, 0.03);
    let mut op: OperatingPoint = common::operating_point_of(&gas, FREE_STREAM);
    op.p2 *= 0.97;
    op.alpha1_deg = 10.0;
    (mesh, Case { gas, operating_point: op, solver })
}

fn implicit_config(implicit: ImplicitConfig) -> SolverConfig {
    SolverConfig { scheme: Scheme::Implicit(implicit), max_iterations: 2000, convergence_orders: 6.0, ..SolverConfig::default() }
}

fn explicit_config() -> SolverConfig {
    SolverConfig { cfl: 4.0, smoothing: Some(ResidualSmoothing::constant([0.8, 0.8])), max_iterations: 50_000, convergence_orders: 6.0, ..SolverConfig::default() }
}

struct Run {
    iterations: usize,
    wall: f64,
    orders: f64,
    density: Vec<f64>,
    report: Option<ImplicitReport>,
}

fn run_implicit(mesh: &Mesh, case: Case) -> Run {
    let backend = CpuBackend::new(Some(1)).unwrap();
    let initial = uniform_state(mesh, &case.gas, FREE_STREAM);
    let mut solver = ImplicitSolver::new(&backend, mesh, case).unwrap();
    let start = Instant::now();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let wall = start.elapsed().as_secs_f64();
    let r = &out.report;
    println!(
        "  implicit: {} iterations, {:.2} orders, converged {}, {:.2} s ({:.2} ms/iteration: residual {:.2} s, assembly {:.2} s, factorization {:.2} s, Krylov {:.2} s), {} factorizations, {:.2} linear iterations/stage, {} rejected",
        out.outcome.iterations,
        out.outcome.history.orders_dropped(),
        out.outcome.converged,
        wall,
        1e3 * r.time_per_iteration(),
        r.time.residual,
        r.time.assembly,
        r.time.factorization,
        r.time.krylov,
        r.factorizations,
        r.mean_linear_iterations(),
        r.rejected_steps
    );
    assert!(out.outcome.converged, "implicit run not converged: {:.2} orders in {} iterations", out.outcome.history.orders_dropped(), out.outcome.iterations);
    let density = out.outcome.solution.blocks.iter().flat_map(|b| b.rho.clone()).collect();
    Run { iterations: out.outcome.iterations, wall, orders: out.outcome.history.orders_dropped(), density, report: Some(out.report) }
}

fn run_explicit(mesh: &Mesh, case: Case) -> Run {
    let backend = CpuBackend::new(Some(1)).unwrap();
    let initial = uniform_state(mesh, &case.gas, FREE_STREAM);
    let mut solver = ExplicitSolver::new(&backend, mesh, case).unwrap();
    let start = Instant::now();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let wall = start.elapsed().as_secs_f64();
    println!("  explicit: {} iterations, {:.2} orders, {:.2} s ({:.3} ms/iteration)", out.iterations, out.history.orders_dropped(), wall, 1e3 * wall / out.iterations as f64);
    assert!(out.converged);
    let density = out.solution.blocks.iter().flat_map(|b| b.rho.clone()).collect();
    Run { iterations: out.iterations, wall, orders: out.history.orders_dropped(), density, report: None }
}


/// Implicit vs explicit on one case: same converged solution, iteration ratio R_C.
fn compare(name: &str, mesh: &Mesh, implicit: Case, explicit: Case) -> (Run, Run) {
    println!("{name}:");
    let imp = run_implicit(mesh, implicit);
    let exp = run_explicit(mesh, explicit);
    let diff = common::max_abs_difference(&imp.density, &exp.density);
    println!(
        "  R_C = explicit / implicit iterations = {:.1}, wall-time gain {:.2}, max density difference {diff:.2e}",
        exp.iterations as f64 / imp.iterations as f64,
        exp.wall / imp.wall
    );
    // Both dropped 6 orders from the same start: they converge to the same discrete solution.
    assert!(diff < 1e-5, "{name}: implicit and explicit solutions differ by {diff:e}");
    assert!(imp.orders >= 6.0 && exp.orders >= 6.0);
    (imp, exp)
}

#[test]
fn fgmres_converges_with_every_preconditioner_on_the_cfd_matrix() {
    let (mesh, case) = bump_case(SolverConfig::default());
    let backend = CpuBackend::new(Some(1)).unwrap();
    let g = backend.upload_geometry(&mesh).unwrap();
    // A developing flow: 30 explicit iterations from the free stream.
    let mut explicit = ExplicitSolver::new(&backend, &mesh, Case { solver: SolverConfig { max_iterations: 30, ..SolverConfig::default() }, ..case.clone() }).unwrap();
    let state = explicit.solve(&uniform_state(&mesh, &case.gas, FREE_STREAM), &mut Silent).unwrap().solution;
    let mut w = backend.upload_state(&g, &state).unwrap();
    let op = &case.operating_point;
    let a = op.alpha1_deg.to_radians();
    let data = turbopt::backend::BoundaryData { p01: op.p01, t01: op.t01, inlet_direction: [a.cos(), a.sin()], p2: op.p2, inlet_nu_tilde: 0.0, no_slip_walls: false };
    backend.apply_boundary_conditions(&g, &case.gas, &data, &mut w);
    let mut r = backend.new_field(&g);
    let scheme = turbopt::backend::ConvectiveScheme {
        reconstruction: turbopt::backend::Reconstruction::FirstOrder,
        entropy_fix: 0.1,
        convect_nu_tilde: false,
        convect_intermittency: false,
        limiter_epsilon: [1e-12; 4],
    };
    backend.convective_residual(&g, &case.gas, &scheme, &w, &mut r);
    let options = JacobianOptions { convective: ConvectiveJacobian::FrozenRoe, entropy_fix: 0.1, physics: Physics::Euler, sa: Default::default() };
    let settings = FgmresSettings { restart: 30, rel_tol: 1e-8, abs_tol: 1e-300, max_iterations: 3000, ..Default::default() };
    let norm = |f: &CpuField| f.blocks.iter().flatten().map(|x| x * x).sum::<f64>().sqrt();
    for cfl in [50.0, 1000.0] {
        let mut dt = backend.new_scalars(&g);
        backend.local_time_step(&g, &case.gas, Physics::Euler, cfl, &w, &mut dt);
        let mut jac = backend.new_jacobian(&g).unwrap();
        backend.assemble_jacobian(&g, &case.gas, &data, &options, &w, Some(&dt), &mut jac);
        let mut its = Vec::new();
        for kind in [PreconditionerKind::Jacobi, PreconditionerKind::Ilu, PreconditionerKind::McIlu, PreconditionerKind::StripIlu { strips: 4, overlap: 2 }] {
            let pc = backend.factorize(&jac, kind).unwrap();
            let mut dw = backend.new_field(&g);
            let stats = solve_stage(&backend, &g, &jac, &pc, 1.0, &r, &mut dw, &settings).flow;
            // Independent check of the answer: || A dw + r || / || r ||.
            let mut check = backend.new_field(&g);
            backend.jacobian_product(&g, &jac, &dw, &mut check);
            backend.axpy_field(1.0, &r, &mut check);
            for (bg, cb) in g.blocks.iter().zip(&mut check.blocks) {
                cb[NFLOW * bg.layout.n_padded()..].iter_mut().for_each(|x| *x = 0.0);
            }
            let rel = norm(&check) / norm(&r);
            println!("CFL {cfl}: {kind:?}: {} FGMRES iterations, true relative residual {rel:.2e}", stats.iterations);
            assert!(stats.converged && rel < 1e-7, "{kind:?} at CFL {cfl}: {stats:?}, relative residual {rel:e}");
            its.push(stats.iterations);
        }
        assert!(its[1] < its[0], "ILU(0) ({}) should beat block-Jacobi ({}) at CFL {cfl}", its[1], its[0]);
        assert!(its[3] < its[0], "strip ILU(0) ({}) should beat block-Jacobi ({}) at CFL {cfl}", its[3], its[0]);
    }
}

#[test]
fn bump_channel_converges_in_far_fewer_iterations_than_explicit() {
    let (mesh, implicit) = bump_case(implicit_config(ImplicitConfig::default()));
    let (_, explicit) = bump_case(explicit_config());
    let (imp, exp) = compare("Gaussian bump channel 48 x 16, Mach 0.5", &mesh, implicit, explicit);
    assert!(exp.iterations >= 10 * imp.iterations, "R_C = {} / {}", exp.iterations, imp.iterations);
}

#[test]
fn every_preconditioner_converges_the_cascade_channel() {
    for kind in [PreconditionerKind::Jacobi, PreconditionerKind::Ilu, PreconditionerKind::McIlu, PreconditionerKind::StripIlu { strips: 4, overlap: 2 }] {
        let (mesh, case) = cascade_case(24, 16, implicit_config(ImplicitConfig { preconditioner: kind, ..ImplicitConfig::default() }));
        println!("cascade channel 2 x 24 x 16, {kind:?}:");
        run_implicit(&mesh, case);
    }
}

#[test]
#[ignore = "long validation: implicit vs explicit on the periodic two-block channel 2 x 48 x 32, and on-demand vs every-iteration ILU (about 3 minutes)"]
fn cascade_channel_implicit_vs_explicit_and_on_demand_ilu() {
    let (ni, nj) = (48, 32);
    let (mesh, implicit) = cascade_case(ni, nj, implicit_config(ImplicitConfig::default()));
    let (_, explicit) = cascade_case(ni, nj, explicit_config());
    let (on_demand, _) = compare("cascade channel 2 x 48 x 32, on-demand ILU", &mesh, implicit, explicit);
    let (_, every) = cascade_case(ni, nj, implicit_config(ImplicitConfig { refresh: IluRefresh::EveryIteration, ..ImplicitConfig::default() }));
    println!("same case, ILU refactorized every iteration:");
    let always = run_implicit(&mesh, every);
    let (_, thesis) = cascade_case(ni, nj, implicit_config(ImplicitConfig { refresh: IluRefresh::OnDemand { a: 0.5, b: 0.15, period: 20 }, ..ImplicitConfig::default() }));
    println!("same case, on-demand ILU with the thesis values a = 0.5, b = 0.15, period 20:");
    let thesis = run_implicit(&mesh, thesis);
    let al = always.report.as_ref().unwrap();
    let summary = |name: &str, run: &Run| {
        let r = run.report.as_ref().unwrap();
        let cut = 1.0 - r.factorizations as f64 / al.factorizations as f64;
        let extra = run.iterations as f64 / always.iterations as f64 - 1.0;
        println!(
            "{name}: {} vs {} factorizations ({:.0} % fewer), {} vs {} flow iterations ({:+.1} %), wall {:.2} s vs {:.2} s (gain {:.2})",
            r.factorizations,
            al.factorizations,
            100.0 * cut,
            run.iterations,
            always.iterations,
            100.0 * extra,
            run.wall,
            always.wall,
            always.wall / run.wall
        );
        (cut, extra)
    };
    summary("on-demand ILU, thesis a and b", &thesis);
    let (cut, extra) = summary("on-demand ILU, default a = 5, b = 0.1", &on_demand);
    assert!(cut >= 0.8, "on-demand ILU cut factorizations by only {:.0} %", 100.0 * cut);
    assert!(extra <= 0.1, "on-demand ILU needed {:.1} % more flow iterations", 100.0 * extra);
}

/// A step rejected at the CFL floor ends the solve at once: its retry, from the same state at the
/// same CFL, would be the same step, so `max_rejections` is not waited for. The periodic channel
/// at half its back pressure, started at a thousandth of the free stream's pressure, with the
/// whole ramp at CFL 10^6 and no update limit: the first step leaves the physical states.
#[test]
fn a_step_rejected_at_the_cfl_floor_ends_the_solve() {
    use turbopt::solver::CflRamp;
    use turbopt::Error;
    let ramp = CflRamp { start: 1e6, target: 1e6, min: 1e6, ..CflRamp::default() };
    let (mesh, mut case) = cascade_case(24, 8, implicit_config(ImplicitConfig { cfl: ramp, max_relative_change: None, anderson: None, ..ImplicitConfig::default() }));
    case.operating_point.p2 *= 0.5;
    let backend = CpuBackend::new(Some(1)).unwrap();
    let initial = uniform_state(&mesh, &case.gas, [1.0, 0.5, 0.0, 1e-3 / 1.4]);
    let mut solver = ImplicitSolver::new(&backend, &mesh, case).unwrap();
    match solver.solve(&initial, &mut Silent) {
        Err(Error::Diverged { iteration, reason }) => {
            println!("iteration {iteration}: {reason}");
            assert_eq!(iteration, 1, "{reason}");
            assert!(reason.contains("at the CFL floor") && reason.contains("(1 in a row)"), "{reason}");
        }
        Err(e) => panic!("another error: {e}"),
        Ok(out) => panic!("the steps stayed physical ({} iterations): pick a harsher start", out.outcome.iterations),
    }
}

/// `cfl.warm_start` is the first CFL of a solve from a converged flow (`residual_reference`
/// given); a cold start, or a warm start without it, begins at `cfl.start`.
#[test]
fn a_warm_start_begins_its_cfl_ramp_at_warm_start() {
    use turbopt::solver::CflRamp;
    let first_cfl = |warm_start: Option<f64>, residual_reference: Option<f64>| {
        let ramp = CflRamp { warm_start, ..CflRamp::default() };
        let solver = SolverConfig { max_iterations: 2, residual_reference, ..implicit_config(ImplicitConfig { cfl: ramp, ..ImplicitConfig::default() }) };
        let (mesh, case) = cascade_case(16, 8, solver);
        let backend = CpuBackend::new(Some(1)).unwrap();
        let initial = uniform_state(&mesh, &case.gas, FREE_STREAM);
        let out = ImplicitSolver::new(&backend, &mesh, case).unwrap().solve(&initial, &mut Silent).unwrap();
        out.report.cfl[0]
    };
    let start = CflRamp::default().start;
    assert_eq!(first_cfl(Some(25.0), Some(1.0)), 25.0);
    assert_eq!(first_cfl(Some(25.0), None), start);
    assert_eq!(first_cfl(None, Some(1.0)), start);
}
