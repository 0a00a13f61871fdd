//! Restarts: a solve stopped and continued from its restart file ends where the uninterrupted
//! solve ends (bit for bit), and the convergence target counts from the cold start's residual.
//! The solver checks are written once over [`Backend`] and run on the CPU and (feature `cuda`,
//! ignored without a device) on the GPU, which must be as deterministic as the CPU.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::solution::Solution;
use turbopt::solver::{read_restart, write_restart, Cycle, ExplicitSolver, Multigrid, Restart, Silent, SolveOutcome, SolverConfig};

/// The incidence channel case (tests/common) on a two-block channel.
fn solve<B: Backend>(backend: &B, config: SolverConfig, initial: Option<&Solution>) -> SolveOutcome {
    let mesh = common::distorted_channel(2, 32, 16, 2.0, 0.03);
    let (case, cold) = common::incidence_channel_case(&mesh, config);
    ExplicitSolver::new(backend, &mesh, case).unwrap().solve(initial.unwrap_or(&cold), &mut Silent).unwrap()
}

fn config(max_iterations: usize, convergence_orders: f64) -> SolverConfig {
    SolverConfig { cfl: 2.0, multigrid: Some(Multigrid::new(2, Cycle::V)), max_iterations, convergence_orders, ..SolverConfig::default() }
}

fn stopped_and_restarted_solve_ends_where_the_uninterrupted_one_ends<B: Backend>(backend: &B) {
    let whole = solve(backend, config(120, 12.0), None);
    let first = solve(backend, config(50, 12.0), None);
    let state = Restart::after("channel", "test", None, &first.history, &first.solution);

    // Through the file: the solution and history must come back bit for bit.
    let path = std::env::temp_dir().join(format!("turbopt-restart-{}-{}.ron", std::process::id(), backend.name().replace(|c: char| !c.is_ascii_alphanumeric(), "-")));
    write_restart(&path, &state).unwrap();
    let read = read_restart(&path);
    std::fs::remove_file(&path).ok();
    let read = read.unwrap();
    assert_eq!(read, state);

    let mut second_config = config(70, 12.0);
    second_config.residual_reference = Some(read.residual_reference);
    let second = solve(backend, second_config, Some(&read.solution));
    let end = Restart::after("channel", "test", Some(&read), &second.history, &second.solution);

    // Local time stepping and the V-cycle keep no state between cycles but W: the continued
    // solve is the uninterrupted one, bit for bit.
    assert_eq!(end.iterations, 120);
    assert_eq!(end.solution, whole.solution);
    let residuals = |h: &[turbopt::solver::IterationRecord]| h.iter().map(|r| (r.iteration, r.residuals)).collect::<Vec<_>>();
    assert_eq!(residuals(&end.history), residuals(&whole.history.records));
    assert_eq!(end.convergence_history().orders_dropped(), whole.history.orders_dropped());
}

fn restart_converges_to_the_cold_start_target<B: Backend>(backend: &B) {
    // Cold: 2 orders. Continued with a 4-order target: it must stop once the residual is 4
    // orders below the cold start's reference, not 4 orders below where it restarted.
    let first = solve(backend, config(20_000, 2.0), None);
    assert!(first.converged);
    let state = Restart::after("channel", "test", None, &first.history, &first.solution);
    let mut next = config(20_000, 4.0);
    next.residual_reference = Some(state.residual_reference);
    let second = solve(backend, next, Some(&state.solution));
    assert!(second.converged);
    let end = Restart::after("channel", "test", Some(&state), &second.history, &second.solution);
    let dropped = end.convergence_history().orders_dropped();
    let cold = solve(backend, config(20_000, 4.0), None);
    println!("{}: restart: {} + {} iterations, {dropped:.3} orders; cold 4-order solve: {} iterations", backend.name(), first.iterations, second.iterations, cold.iterations);
    assert!((4.0..4.2).contains(&dropped), "dropped {dropped} orders from the cold reference");
    // The continued solve retraces the cold one, so it stops at the same cycle.
    assert_eq!(end.iterations, cold.iterations);
}

#[test]
fn restart_is_bit_identical_cpu() {
    stopped_and_restarted_solve_ends_where_the_uninterrupted_one_ends(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn restart_is_bit_identical_gpu() {
    stopped_and_restarted_solve_ends_where_the_uninterrupted_one_ends(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

#[test]
fn restart_reaches_the_cold_start_target_cpu() {
    restart_converges_to_the_cold_start_target(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn restart_reaches_the_cold_start_target_gpu() {
    restart_converges_to_the_cold_start_target(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

/// A mesh question, answered before any backend is involved.
#[test]
fn restart_on_another_mesh_is_a_clear_error() {
    let first = solve(&CpuBackend::new(Some(1)).unwrap(), config(5, 6.0), None);
    let state = Restart::after("channel", "test", None, &first.history, &first.solution);
    let other = common::distorted_channel(1, 16, 8, 2.0, 0.03);
    let err = state.check_fits(&other).unwrap_err().to_string();
    assert!(err.contains("does not fit the mesh"), "{err}");
}
