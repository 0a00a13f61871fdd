//! Sod shock tube as a one-cell-wide channel, time-accurate (global time step, no smoothing):
//! density L1 error against the exact Riemann solution at t = 0.2. Written once over
//! [`Backend`], run on the CPU and (feature `cuda`, ignored without a device) on the GPU with the
//! same bounds.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::riemann::ExactRiemann;
use turbopt::flow::solution::Solution;
use turbopt::flow::state::conservative_from_primitive;
use turbopt::solver::{Case, ExplicitSolver, RkScheme, Silent, SolverConfig, TimeStepping};

const FINAL_TIME: f64 = 0.2;
const LEFT: [f64; 3] = [1.0, 0.0, 1.0];
const RIGHT: [f64; 3] = [0.125, 0.0, 0.1];

fn sod_initial(n: usize, gamma: f64) -> Solution {
    let mut state = turbopt::solver::uniform_state(&common::sod_tube(n), &common::unit_gas(), [1.0, 0.0, 0.0, 1.0]);
    let block = &mut state.blocks[0];
    for i in 0..n {
        let x = (i as f64 + 0.5) / n as f64;
        let s = if x < 0.5 { LEFT } else { RIGHT };
        let w = conservative_from_primitive(gamma, &[s[0], s[1], 0.0, s[2]]);
        block.rho[i] = w[0];
        block.rho_u[i] = w[1];
        block.rho_v[i] = w[2];
        block.rho_e[i] = w[3];
    }
    state
}

/// Density L1 error (integral of |rho - rho_exact| over the tube) with `n` cells.
fn sod_density_l1_error<B: Backend>(backend: &B, n: usize) -> f64 {
    let gas = common::unit_gas();
    let mesh = common::sod_tube(n);
    let config = SolverConfig {
        cfl: 1.0,
        rk: RkScheme::Jameson4,
        time_stepping: TimeStepping::Global { final_time: FINAL_TIME },
        max_iterations: 100_000,
        ..SolverConfig::default()
    };
    let op = common::operating_point_of(&gas, [1.0, 0.0, 0.0, 1.0]);
    let case = Case { gas, operating_point: op, solver: config };
    let mut solver = ExplicitSolver::new(backend, &mesh, case).unwrap();
    let out = solver.solve(&sod_initial(n, gas.gamma), &mut Silent).unwrap();
    assert!(out.converged, "final time not reached");
    assert!((out.time - FINAL_TIME).abs() < 1e-12);
    let exact = ExactRiemann::solve(gas.gamma, LEFT, RIGHT).unwrap();
    let rho = &out.solution.blocks[0].rho;
    let dx = 1.0 / n as f64;
    (0..n)
        .map(|i| {
            let x = (i as f64 + 0.5) * dx;
            // Cell average of the exact density (5-point midpoint sub-sampling resolves the
            // discontinuities inside a cell).
            let avg: f64 = (0..5).map(|k| exact.sample((x - 0.5 * dx + (k as f64 + 0.5) * dx / 5.0 - 0.5) / FINAL_TIME)[0]).sum::<f64>() / 5.0;
            (rho[i] - avg).abs() * dx
        })
        .sum()
}

fn sod_density_error_is_small_and_decreases_under_refinement<B: Backend>(backend: &B) {
    let sizes = [100, 200, 400, 800];
    let errors: Vec<f64> = sizes.iter().map(|&n| sod_density_l1_error(backend, n)).collect();
    for (n, e) in sizes.iter().zip(&errors) {
        println!("{}: Sod, {n} cells: density L1 error {e:.4e}", backend.name());
    }
    assert!(errors[2] <= 4e-3, "400 cells: L1 error {:.4e} above 4e-3", errors[2]);
    for k in 1..errors.len() {
        assert!(errors[k] < errors[k - 1], "error did not decrease from {} to {} cells", sizes[k - 1], sizes[k]);
    }
}

#[test]
fn sod_matches_exact_cpu() {
    sod_density_error_is_small_and_decreases_under_refinement(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn sod_matches_exact_gpu() {
    sod_density_error_is_small_and_decreases_under_refinement(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}
