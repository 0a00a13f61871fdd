//! Free-stream preservation: a uniform flow on a distorted two-block mesh with a 1-to-1
//! interface, periodic j-faces and characteristic inlet/outlet must stay uniform to round-off,
//! for the Euler equations and for RANS-SA (no walls: a uniform nu_tilde has no source).
//! Written once over [`Backend`], run on the CPU and (feature `cuda`, ignored without a device)
//! on the GPU with the same tolerance.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::{Backend, Reconstruction};
use turbopt::solver::{uniform_state, Case, ExplicitSolver, FlowModel, Silent, SolverConfig};

fn max_relative_deviation<B: Backend>(backend: &B, reconstruction: Reconstruction, model: FlowModel) -> (f64, usize) {
    let gas = common::unit_gas();
    let q = [1.0, 0.5 * 20f64.to_radians().cos(), 0.5 * 20f64.to_radians().sin(), 1.0 / 1.4];
    let mesh = common::distorted_channel(2, 12, 16, 2.0, 0.05);
    let config = SolverConfig { model, reconstruction, max_iterations: 100, convergence_orders: 100.0, ..SolverConfig::default() };
    let case = Case { gas, operating_point: common::operating_point_of(&gas, q), solver: config };
    let mut initial = uniform_state(&mesh, &gas, q);
    // The inlet imposes nu_tilde = ratio * nu at the inlet total conditions.
    let op = &case.operating_point;
    let inlet_nu_tilde = op.nu_tilde_ratio * gas.viscosity(op.t01) * gas.gas_constant * op.t01 / op.p01;
    for block in &mut initial.blocks {
        block.nu_tilde.iter_mut().for_each(|n| *n = inlet_nu_tilde);
    }
    let mut solver = ExplicitSolver::new(backend, &mesh, case).unwrap();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let momentum = (q[1] * q[1] + q[2] * q[2]).sqrt();
    let mut worst: f64 = 0.0;
    for (got, want) in out.solution.blocks.iter().zip(&initial.blocks) {
        for c in 0..got.n_cells() {
            worst = common::largest([
                worst,
                (got.rho[c] - want.rho[c]).abs() / want.rho[c],
                (got.rho_u[c] - want.rho_u[c]).abs() / momentum,
                (got.rho_v[c] - want.rho_v[c]).abs() / momentum,
                (got.rho_e[c] - want.rho_e[c]).abs() / want.rho_e[c],
                (got.nu_tilde[c] - want.nu_tilde[c]).abs() / want.nu_tilde[c],
            ]);
        }
    }
    (worst, out.iterations)
}

fn uniform_flow_stays_uniform_on_a_distorted_multiblock_mesh<B: Backend>(backend: &B) {
    for model in [FlowModel::Euler, FlowModel::SpalartAllmaras] {
        for reconstruction in [Reconstruction::FirstOrder, Reconstruction::SecondOrder] {
            let (worst, iterations) = max_relative_deviation(backend, reconstruction, model);
            println!("{}: {model:?}, {reconstruction:?}: max relative deviation {worst:e} after {iterations} iterations", backend.name());
            assert_eq!(iterations, 100);
            assert!(worst < 1e-12, "{model:?}, {reconstruction:?}: deviation {worst:e}");
        }
    }
}

#[test]
fn free_stream_preserved_cpu() {
    uniform_flow_stays_uniform_on_a_distorted_multiblock_mesh(&CpuBackend::new(Some(2)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn free_stream_preserved_gpu() {
    uniform_flow_stays_uniform_on_a_distorted_multiblock_mesh(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}
