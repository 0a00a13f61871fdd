//! Implicit residual smoothing (thesis eq. 4.15), with constant coefficients and with the
//! variable ones of eq. 4.16, must at least double the stable CFL number of the explicit scheme.
//! Written once over [`Backend`], run on the CPU and (feature `cuda`, ignored without a device)
//! on the GPU with the same bounds.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::solver::{ExplicitSolver, ResidualSmoothing, Silent, SolverConfig};

/// A run is stable at `cfl` when it neither diverges nor ends with a larger density residual
/// than it started with after 400 iterations.
fn stable<B: Backend>(backend: &B, cfl: f64, smoothing: Option<ResidualSmoothing>) -> bool {
    let mesh = common::distorted_channel(1, 24, 16, 1.5, 0.03);
    let config = SolverConfig { cfl, smoothing, max_iterations: 400, convergence_orders: 12.0, ..SolverConfig::default() };
    let (case, start) = common::incidence_channel_case(&mesh, config);
    let mut solver = ExplicitSolver::new(backend, &mesh, case).unwrap();
    match solver.solve(&start, &mut Silent) {
        Ok(out) => {
            let r = &out.history.records;
            r.last().unwrap().residuals[0] < r[0].residuals[0]
        }
        Err(_) => false,
    }
}

/// Largest CFL of the ladder 0.5, 1.0, 1.5, ... that is stable (and all below it), with the
/// smoothing `smoothing(cfl)` gives for that CFL.
fn max_stable_cfl<B: Backend>(backend: &B, smoothing: impl Fn(f64) -> Option<ResidualSmoothing>) -> f64 {
    let mut best = 0.0;
    for k in 1..=40 {
        let cfl = 0.5 * k as f64;
        if !stable(backend, cfl, smoothing(cfl)) {
            break;
        }
        best = cfl;
    }
    best
}

fn residual_smoothing_at_least_doubles_the_stable_cfl<B: Backend>(backend: &B) {
    let plain = max_stable_cfl(backend, |_| None);
    let smoothed = max_stable_cfl(backend, |_| Some(ResidualSmoothing::constant([1.0, 1.0])));
    println!("{}: max stable CFL: {plain} without smoothing, {smoothed} with eps = 1.0", backend.name());
    // Zero when already the lowest rung (0.5) is unstable: the ratio below would then hold
    // for any result.
    assert!(plain > 0.0, "unstable without smoothing at CFL 0.5");
    assert!(smoothed >= 2.0 * plain, "smoothing raised the stable CFL from {plain} to {smoothed} only");
}

fn variable_residual_smoothing_at_least_doubles_the_stable_cfl<B: Backend>(backend: &B) {
    let plain = max_stable_cfl(backend, |_| None);
    // As a user sets it: the coefficients for the CFL run over the unsmoothed limit.
    let smoothed = max_stable_cfl(backend, |cfl| Some(ResidualSmoothing::variable((cfl / plain).max(1.0))));
    println!("{}: max stable CFL: {plain} without smoothing, {smoothed} with the variable coefficients of eq. 4.16", backend.name());
    assert!(plain > 0.0, "unstable without smoothing at CFL 0.5");
    assert!(smoothed >= 2.0 * plain, "variable smoothing raised the stable CFL from {plain} to {smoothed} only");
}

#[test]
fn constant_smoothing_cpu() {
    residual_smoothing_at_least_doubles_the_stable_cfl(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn constant_smoothing_gpu() {
    residual_smoothing_at_least_doubles_the_stable_cfl(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

#[test]
fn variable_smoothing_cpu() {
    variable_residual_smoothing_at_least_doubles_the_stable_cfl(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn variable_smoothing_gpu() {
    variable_residual_smoothing_at_least_doubles_the_stable_cfl(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}
