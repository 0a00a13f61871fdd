//! Time per flow iteration of the implicit scheme (JT-KIRK, FGMRES, ILU refreshed on demand)
//! on the bench problem, with the split the implicit solver reports (residual, assembly,
//! factorization, Krylov): the implicit figures of `turbopt bench --scheme implicit`, written
//! once over [`ImplicitBackend`] so that one path times the CPU and the GPU.


use serde::Serialize;

use super::{median, IterationClock, TestProblem};
use crate::backend::{ImplicitBackend, PreconditionerKind};
use crate::solver::{ImplicitConfig, ImplicitSolver, Scheme, TimeBreakdown};
use crate::{Error, Result};

/// What one backend measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImplicitBench {
    pub backend: String,
    /// Median wall time of the timed flow iterations \[s\].
    pub seconds_per_iteration: f64,
    /// Timed iterations (after the untimed ones).
    pub samples: usize,
    /// The solver's own split, per flow iteration, over every iteration run (untimed ones
    /// included: the first factorization among them).
    pub breakdown_per_iteration: TimeBreakdown,
    /// Preconditioner factorizations and FGMRES iterations per flow iteration (mean flow).
    pub factorizations: usize,
    pub iterations: usize,
    pub mean_linear_iterations: f64,
    /// The solver's split summed over every iteration run (what per-operation unit costs are
    /// taken from: `crate::perf`).
    pub breakdown_total: TimeBreakdown,
    /// FGMRES iterations of the mean-flow and of the segregated SA solves, every iteration run.
    pub linear_iterations_total: usize,
    pub turbulence_linear_iterations_total: usize,
    /// Mean-flow FGMRES iterations per flow iteration over the timed iterations only.
    pub timed_linear_iterations_per_iteration: f64,
}

/// The implicit defaults with the natural-order ILU(0) on every backend, so that the rows of
/// `turbopt bench --scheme implicit` compare like with like.
pub fn bench_config() -> ImplicitConfig {
    ImplicitConfig { preconditioner: PreconditionerKind::Ilu, ..ImplicitConfig::default() }
}

/// Runs the implicit scheme configured by `config` on `problem` for `warmup + count` flow
/// iterations and times the last `count`.
pub fn run<B: ImplicitBackend>(backend: &B, problem: &TestProblem, config: &ImplicitConfig, warmup: usize, count: usize) -> Result<ImplicitBench> {
    let mut case = problem.case.clone();
    case.solver.scheme = Scheme::Implicit(config.clone());
    let mut solver = ImplicitSolver::new(backend, &problem.mesh, case)?;
    let mut clock = IterationClock { stop_after: warmup + count, wall_s: Vec::with_capacity(warmup + count) };
    let out = solver.solve(&problem.initial, &mut clock)?;
    backend.check()?;
    if clock.wall_s.len() < warmup + count {
        return Err(Error::Other(format!("bench: the implicit solver stopped after {} of {} iterations", clock.wall_s.len(), warmup + count)));
    }
    let starts = std::iter::once(0.0).chain(clock.wall_s.iter().copied());
    let samples: Vec<f64> = clock.wall_s.iter().zip(starts).skip(warmup).map(|(end, start)| end - start).collect();
    let r = &out.report;
    let n = r.iterations.max(1) as f64;
    let t = r.time;
    Ok(ImplicitBench {
        backend: backend.name(),
        seconds_per_iteration: median(&samples),
        samples: samples.len(),
        breakdown_per_iteration: TimeBreakdown { residual: t.residual / n, assembly: t.assembly / n, factorization: t.factorization / n, krylov: t.krylov / n, total: t.total / n },
        factorizations: r.factorizations,
        iterations: r.iterations,
        mean_linear_iterations: r.mean_linear_iterations(),
        breakdown_total: t,
        linear_iterations_total: r.total_linear_iterations(),
        turbulence_linear_iterations_total: r.turbulence_linear_iterations.iter().flatten().sum(),
        timed_linear_iterations_per_iteration: r.linear_iterations.iter().skip(warmup).flatten().sum::<usize>() as f64 / count.max(1) as f64,
    })
}

