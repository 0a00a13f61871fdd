//! Free-stream preservation: a uniform flow on a distorted two-block mesh with a 1-to-1
//! interface, periodic j-faces and characteristic inlet/outlet must stay uniform to round-off.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Reconstruction;
use turbopt::solver::{uniform_state, Case, ExplicitSolver, Silent, SolverConfig};

fn max_relative_deviation(reconstruction: Reconstruction) -> (f64, usize) {
    let gas = common::unit_gas();
    let q = [1.0, 0.5 * 20f64.to_radians().cos(), 0.5 * 20f64.to_radians().sin(), 1.0 / 1.4];
    let mesh = common::distorted_channel(2, 12, 16, 2.0, 0.05);
    let config = SolverConfig { reconstruction, max_iterations: 100, convergence_orders: 100.0, ..SolverConfig::default() };
    let case = Case { gas, operating_point: common::operating_point_of(&gas, q), solver: config };
    let backend = CpuBackend::new(Some(2)).unwrap();
    let initial = uniform_state(&mesh, &gas, q);
    let mut solver = ExplicitSolver::new(&backend, &mesh, case).unwrap();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let momentum = (q[1] * q[1] + q[2] * q[2]).sqrt();
    let mut worst: f64 = 0.0;
    for (got, want) in out.solution.blocks.iter().zip(&initial.blocks) {
        for c in 0..got.n_cells() {
            worst = worst
                .max((got.rho[c] - want.rho[c]).abs() / want.rho[c])
                .max((got.rho_u[c] - want.rho_u[c]).abs() / momentum)
                .max((got.rho_v[c] - want.rho_v[c]).abs() / momentum)
                .max((got.rho_e[c] - want.rho_e[c]).abs() / want.rho_e[c]);
        }
    }
    (worst, out.iterations)
}

#[test]
fn uniform_flow_stays_uniform_on_a_distorted_multiblock_mesh() {
    for reconstruction in [Reconstruction::FirstOrder, Reconstruction::SecondOrder] {
        let (worst, iterations) = max_relative_deviation(reconstruction);
        println!("{reconstruction:?}: max relative deviation {worst:e} after {iterations} iterations");
        assert_eq!(iterations, 100);
        assert!(worst < 1e-12, "{reconstruction:?}: deviation {worst:e}");
    }
}
