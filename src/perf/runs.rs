//! Full runs: the iteration counts of each method (R_C, eq. 6.3) and the measured times to
//! convergence the predictions are validated against. A full run is an ordinary cascade solve
//! ([`solve_point`], cold start, the settings' stop tests and recovery chain), timed around the
//! solve as `turbopt solve` reports it.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::model::{Combination, IterationCount};
use super::setup::CaseSetup;
use crate::backend::ImplicitBackend;
use crate::cascade::{solve_point, PointRun, SolverSettings, Start};
use crate::solver::{Control, IterationRecord, Observer};
use crate::{Error, Result};

/// One measured full run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FullRun {
    pub combination: Combination,
    /// The preconditioner key of its count ("ilu", "mc-ilu"; "" for explicit).
    pub count_key: String,
    pub count: IterationCount,
    /// Wall time of the solve \[s\].
    pub wall_s: f64,
    /// How it stopped (`Stop::describe`).
    pub stop: String,
}

/// A line on stderr every 30 s, so that long runs show they are alive.
struct Heartbeat {
    label: String,
    last: Instant,
}

impl Observer for Heartbeat {
    fn on_iteration(&mut self, r: &IterationRecord) -> Control {
        if self.last.elapsed() >= Duration::from_secs(30) {
            self.last = Instant::now();
            eprintln!("perf: {}: iteration {}, density residual {:.3e}, {:.0} s", self.label, r.iteration, r.residuals[0], r.wall_s);
        }
        Control::Continue
    }
}

/// Solves `case` with `settings` (at most `budget` iterations) on `backend`.
pub fn full_run<B: ImplicitBackend>(backend: &B, case: &CaseSetup, combination: Combination, count_key: &str, settings: &SolverSettings, budget: usize) -> Result<FullRun> {
    let mut settings = settings.clone();
    settings.max_iterations = budget.max(1);
    let run = PointRun { prepared: &case.prepared, op: &case.op, settings: &settings, extras: &|_| Vec::new() };
    let mut heartbeat = Heartbeat { label: combination.label(), last: Instant::now() };
    let clock = Instant::now();
    let solved = solve_point(backend, &run, Start::Cold, &mut heartbeat).map_err(|f| Error::Other(format!("perf: full run of {} failed: {}", combination.label(), f.error)))?;
    let wall_s = clock.elapsed().as_secs_f64();
    let (linear_iterations, factorizations) = solved.implicit.as_ref().map_or((0, 0), |r| (r.total_linear_iterations(), r.factorizations));
    let count = IterationCount { iterations: solved.iterations, converged: solved.stop.converged(), linear_iterations, factorizations };
    Ok(FullRun { combination, count_key: count_key.into(), count, wall_s, stop: solved.stop.describe().into() })
}

/// The iteration count of a stored convergence history: the last iteration of a
/// `convergence.csv` written by `turbopt solve` (first column), taken as converged (the solve
/// that wrote it says whether it was; pass only converged ones).
pub fn count_from_history(path: &Path) -> Result<IterationCount> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |reason: String| Error::Input { path: path.display().to_string(), reason };
    let mut lines = text.lines();
    match lines.next() {
        Some(h) if h.starts_with("iteration,") => {}
        _ => return Err(bad("not a convergence history (expected the header of turbopt solve's convergence.csv)".into())),
    }
    let last = lines.rfind(|l| !l.trim().is_empty()).ok_or_else(|| bad("the history has no iteration".into()))?;
    let iterations = last.split(',').next().and_then(|v| v.trim().parse::<usize>().ok()).ok_or_else(|| bad(format!("bad iteration number in {last:?}")))?;
    Ok(IterationCount { iterations, converged: true, linear_iterations: 0, factorizations: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_gives_its_last_iteration_and_bad_ones_are_named() {
        let dir = std::env::temp_dir().join(format!("turbopt-perf-history-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("convergence.csv");
        std::fs::write(&good, "iteration,wall_s,res_rho,res_rho_u,res_rho_v,res_rho_e,res_rho_nu_tilde\n1,0.1,1,1,1,1,1\n414,30.0,1e-6,1,1,1,1\n").unwrap();
        assert_eq!(count_from_history(&good).unwrap().iterations, 414);
        let bad = dir.join("other.csv");
        std::fs::write(&bad, "x,y\n1,2\n").unwrap();
        assert!(matches!(count_from_history(&bad), Err(Error::Input { .. })));
        std::fs::remove_dir_all(&dir).ok();
    }
}
