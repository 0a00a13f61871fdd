//! The whole pipeline for one blade at one operating point in one call: what `turbopt solve`
//! computes, without its files. The evaluator and the commands use the same stages
//! ([`PreparedCascade`], [`solve_point`]), so the figures are the same from every entry.

use super::prepare::{CascadeSetup, PreparedCascade};
use super::section::BladeChoice;
use super::settings::{SchemeChoice, SolverSettings};
use super::solve::{solve_point, PointFailure, PointRun, PointSolve, Start};
use crate::backend::{BackendTask, ImplicitBackend, OpenBackend};
use crate::error::{Error, Result};
use crate::flow::case::OperatingPoint;
use crate::geometry::BladeFile;
use crate::mesh::Density;
use crate::solver::Observer;

/// A blade solved at one operating point: its mesh, planes and start (`prepared`) and the
/// solve with its figures, stop and attempts (`solve`).
pub struct BladeSolve {
    pub prepared: PreparedCascade,
    pub solve: PointSolve,
    /// The backend that solved it (`Backend::name`).
    pub backend: String,
}

/// Checks and meshes `which` blade of `blade` at `density`, then solves it at `op` from the cold
/// start with `settings`, on the backend they choose, through the recovery chain; `progress`
/// sees every iteration of every attempt and may stop the solve. `Auto` scheme or backend
/// choices are the performance model's to resolve first (`perf::auto::resolve`).
///
/// Errors name the cause: a blade the checks reject or the mesher cannot mesh, a backend that
/// cannot be opened, a solve that failed after every attempt of the recovery chain.
pub fn solve_blade(blade: &BladeFile, which: BladeChoice, op: &OperatingPoint, density: Density, settings: &SolverSettings, progress: &mut dyn Observer) -> Result<BladeSolve> {
    if settings.scheme == SchemeChoice::Auto {
        return Err(Error::Other("scheme Auto was not resolved by the performance model (`perf::auto::resolve` resolves it before a solve)".into()));
    }
    settings.validate().map_err(Error::Other)?;
    let backend = OpenBackend::open(&settings.backend)?;
    let setup = CascadeSetup::new(blade, vec![op.clone()], density).with_model(settings.config.model);
    let prepared = PreparedCascade::new(blade, which, &setup).map_err(|e| Error::Mesh(e.to_string()))?;
    let run = PointRun { prepared: &prepared, op, settings, extras: &|_| Vec::new() };
    let solve = backend.run(SolveOnePoint { run: &run, progress }).map_err(failure_error)?;
    Ok(BladeSolve { prepared, solve, backend: backend.name() })
}

/// [`solve_point`] from the cold start on whichever backend was opened.
struct SolveOnePoint<'a, 'r> {
    run: &'a PointRun<'r>,
    progress: &'a mut dyn Observer,
}

impl BackendTask for SolveOnePoint<'_, '_> {
    type Output = std::result::Result<PointSolve, PointFailure>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output {
        solve_point(backend, self.run, Start::Cold, self.progress)
    }
}

/// A point that failed after every attempt, as the error of a solve.
fn failure_error(failure: PointFailure) -> Error {
    let tried = match failure.attempts.len() {
        0 | 1 => String::new(),
        n => format!(" (after {n} attempts of the recovery chain)"),
    };
    match failure.error.diverged() {
        true => Error::Diverged { iteration: failure.iterations, reason: format!("{}{tried}", failure.error) },
        false => Error::Other(format!("{}{tried}", failure.error)),
    }
}
