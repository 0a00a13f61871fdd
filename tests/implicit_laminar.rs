//! The implicit scheme on a viscous case: laminar plane Poiseuille flow (the explicit solver's
//! verification case, tests/verification_poiseuille.rs), where the Jacobian carries the viscous
//! terms only as spectral radii on the diagonal and the no-slip walls only through the pressure
//! flux (each face's viscous spectral radius as a scalar Laplacian). It must still converge to
//! the parabolic profile.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::solver::{uniform_state, Case, FlowModel, ImplicitConfig, ImplicitSolver, Scheme, Silent, SolverConfig};

#[test]
fn implicit_poiseuille_flow_matches_the_parabolic_profile() {
    let gas = Gas::default();
    let (ni, nj, h) = (8, 16, 1e-5);
    let lx = 0.5 * h;
    let (p, t) = (1e5, 300.0);
    let rho = p / (gas.gas_constant * t);
    let mu = gas.viscosity(t);
    let u_max = 10.0;
    let force = 8.0 * mu * u_max / (h * h);
    let mesh = common::periodic_wall_channel(ni, nj, lx, h);
    let mut op = common::operating_point_of(&gas, [rho, u_max, 0.0, p]);
    op.p2 = p;
    let config = SolverConfig {
        model: FlowModel::Laminar,
        // As in the explicit verification: Harten's fix would add viscosity comparable to the
        // physical one at this cell Reynolds number.
        entropy_fix: 0.0,
        convergence_orders: 8.0,
        max_iterations: 300,
        scheme: Scheme::Implicit(ImplicitConfig::default()),
        ..SolverConfig::default()
    };
    let case = Case { gas, operating_point: op, solver: config };
    let backend = CpuBackend::new(Some(1)).unwrap();
    let mut solver = ImplicitSolver::new(&backend, &mesh, case).unwrap();
    let n = ni * nj;
    let volume = lx * h / n as f64;
    let zeros = vec![0.0; n];
    let source = Solution {
        blocks: vec![BlockSolution { ni, nj, rho: zeros.clone(), rho_u: vec![force * volume; n], rho_v: zeros.clone(), rho_e: zeros.clone(), nu_tilde: zeros, intermittency: Vec::new() }],
    };
    solver.set_source(&source).unwrap();
    let out = solver.solve(&uniform_state(&mesh, &gas, [rho, 0.5 * u_max, 0.0, p]), &mut Silent).unwrap();
    let r = &out.report;
    println!(
        "implicit Poiseuille: converged {} after {} iterations, {} factorizations, {:.2} linear iterations/stage, {} rejected",
        out.outcome.converged,
        out.outcome.iterations,
        r.factorizations,
        r.mean_linear_iterations(),
        r.rejected_steps
    );
    let records = &out.outcome.history.records;
    for k in [0, 1, 10, 50, 100, 200, records.len() - 1] {
        if k < records.len() {
            println!("  iteration {}: residuals {:?}, CFL {:.1}", records[k].iteration, records[k].residuals, r.cfl[k]);
        }
    }
    // Known limitation: the energy residual stalls about 5 orders below its start (9.6e3 of
    // 1.6e9) and the density residual with it, so the 8-order criterion is not met; the momentum
    // residual, which drives the profile, drops more than 8 orders.
    let peak_momentum = records.iter().take(10).map(|r| r.residuals[1]).fold(0.0, f64::max);
    let momentum_orders = (peak_momentum / records.last().unwrap().residuals[1]).log10();
    println!("x-momentum residual dropped {momentum_orders:.2} orders");
    assert!(momentum_orders >= 8.0, "x-momentum residual dropped only {momentum_orders:.2} orders");
    let b = &out.outcome.solution.blocks[0];
    let mut worst: f64 = 0.0;
    let dy = h / nj as f64;
    for j in 0..nj {
        let y = dy * (j as f64 + 0.5);
        let exact = force * (y * (h - y) - dy * dy / 12.0) / (2.0 * mu);
        for i in 0..ni {
            let c = i + ni * j;
            worst = common::max_or_nan(worst, (b.rho_u[c] / b.rho[c] - exact).abs() / u_max);
        }
    }
    println!("implicit Poiseuille {ni} x {nj}: max |u - u_exact| / u_max = {worst:.3e}");
    // The explicit solver reaches 5.7e-3 on this mesh: same discretization, same bound.
    assert!(worst < 1e-2, "velocity error {worst:e}");
}
