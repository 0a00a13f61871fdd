//! Time per flow iteration of the implicit scheme (JT-KIRK, FGMRES, ILU refreshed on demand)
//! on the bench problem, with the split the implicit solver reports (residual, assembly,
//! factorization, Krylov): the implicit figures of `turbopt bench --scheme implicit`, written
//! once over [`ImplicitBackend`] so that one path times the CPU and the GPU.

use std::time::Duration;

use serde::Serialize;

use super::{median, IterationClock, TestProblem};
use crate::backend::{ImplicitBackend, PreconditionerKind};
use crate::solver::{ImplicitConfig, ImplicitSolver, Scheme, TimeBreakdown};
use crate::{Error, Result};

/// What one backend measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImplicitBench {
    pub backend: String,
    /// Median wall time of the timed flow iterations [s].
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
}

/// Runs the implicit scheme with its defaults on `problem` for `warmup + count` flow
/// iterations and times the last `count`.
pub fn run<B: ImplicitBackend>(backend: &B, problem: &TestProblem, warmup: usize, count: usize) -> Result<ImplicitBench> {
    let mut case = problem.case.clone();
    // The same preconditioner on every backend, so that the rows compare like with like.
    case.solver.scheme = Scheme::Implicit(ImplicitConfig { preconditioner: PreconditionerKind::Ilu, ..ImplicitConfig::default() });
    let mut solver = ImplicitSolver::new(backend, &problem.mesh, case)?;
    let mut clock = IterationClock { stop_after: warmup + count, wall_s: Vec::with_capacity(warmup + count) };
    let out = solver.solve(&problem.initial, &mut clock)?;
    backend.check()?;
    if clock.wall_s.len() < warmup + count {
        return Err(Error::Other(format!("bench: the implicit solver stopped after {} of {} iterations", clock.wall_s.len(), warmup + count)));
    }
    let starts = std::iter::once(0.0).chain(clock.wall_s.iter().copied());
    let samples: Vec<Duration> = clock.wall_s.iter().zip(starts).skip(warmup).map(|(end, start)| Duration::from_secs_f64(end - start)).collect();
    let r = &out.report;
    let n = r.iterations.max(1) as f64;
    let t = r.time;
    Ok(ImplicitBench {
        backend: backend.name(),
        seconds_per_iteration: median(&samples).as_secs_f64(),
        samples: samples.len(),
        breakdown_per_iteration: TimeBreakdown { residual: t.residual / n, assembly: t.assembly / n, factorization: t.factorization / n, krylov: t.krylov / n, total: t.total / n },
        factorizations: r.factorizations,
        iterations: r.iterations,
        mean_linear_iterations: r.mean_linear_iterations(),
    })
}
