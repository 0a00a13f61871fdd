//! Throughput of the explicit CPU solver: cell-stage updates per second (cells x RK stages x
//! iterations / wall time), second-order Roe/MUSCL, on one thread and on all cores.

mod common;

use std::time::Instant;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::solution::Solution;
use turbopt::solver::{uniform_state, Case, ExplicitSolver, RkScheme, Silent, SolverConfig};

/// Cell-stage updates per second of `iterations` iterations on `n x n` cells, and the solution.
fn cell_stage_rate(threads: Option<usize>, n: usize, iterations: usize) -> (f64, Solution) {
    let gas = common::unit_gas();
    let q = [1.0, 0.5, 0.0, 1.0 / 1.4];
    let mesh = common::distorted_channel(1, n, n, 1.0, 0.03);
    let mut op = common::operating_point_of(&gas, q);
    op.p2 *= 0.95;
    let rk = RkScheme::Blazek5Upwind;
    let stages = rk.coefficients().len();
    let config = SolverConfig { rk, max_iterations: iterations, convergence_orders: 30.0, ..SolverConfig::default() };
    let case = Case { gas, operating_point: op, solver: config };
    let backend = CpuBackend::new(threads).unwrap();
    let mut solver = ExplicitSolver::new(&backend, &mesh, case).unwrap();
    let initial = uniform_state(&mesh, &gas, q);
    let start = Instant::now();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let wall = start.elapsed().as_secs_f64();
    let rate = (mesh.n_cells() * stages * out.iterations) as f64 / wall;
    println!("{} ({n} x {n} cells, {} iterations): {:.3e} cell-stage updates/s", backend.name(), out.iterations, rate);
    (rate, out.solution)
}

#[test]
#[ignore = "benchmark: throughput on 256 x 256 cells, 1 thread and all threads (about 30 s; depends on the machine and its load)"]
fn explicit_solver_throughput() {
    let (one, one_solution) = cell_stage_rate(Some(1), 256, 40);
    let (all, all_solution) = cell_stage_rate(None, 256, 40);
    println!("speed-up on all threads: {:.2}", all / one);
    // The rates are printed for BENCHMARKS.md; what can be asserted is that the work measured
    // is the same: every cell's update is independent of how the cells are shared out.
    assert!(one_solution == all_solution, "the thread count changed the solution");
}
