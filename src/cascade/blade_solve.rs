//! The whole pipeline for one blade at one operating point in one call: what `turbopt solve`
//! computes, without its files. The evaluator and the commands use the same stages
//! ([`PreparedCascade`], [`solve_point`]), so the figures are the same from every entry.

use super::prepare::{CascadeSetup, PreparedCascade};
use super::section::BladeChoice;
use super::settings::{SchemeChoice, SolverSettings};
use super::sequencing::{prepare_sequence, solve_sequenced, CoarserMesh, CoarserSolve};
use super::solve::{PointFailure, PointRun, PointSolve};
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
    /// The coarser meshes' solves it started from, coarsest first (`SolverSettings::sequencing`).
    pub coarser: Vec<CoarserSolve>,
}

/// Checks and meshes `which` blade of `blade` at `density`, then solves it at `op` with `settings`
/// (from the cold start, or from a coarser mesh's flow: `SolverSettings::sequencing`), on the
/// backend they choose, through the recovery chain; `progress` sees every iteration of every
/// attempt and may stop the solve. `Auto` scheme or backend
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
    let (prepared, coarser_meshes) = prepare_sequence(blade, which, &setup, settings.sequencing);
    let prepared = prepared.map_err(Error::from)?;
    let run = PointRun { prepared: &prepared, op, settings, extras: &|_| Vec::new() };
    let (solve, coarser) = backend.run(SolveOnePoint { run: &run, coarser: &coarser_meshes, progress });
    Ok(BladeSolve { solve: solve.map_err(failure_error)?, prepared, backend: backend.name(), coarser })
}

/// [`solve_sequenced`] on whichever backend was opened.
struct SolveOnePoint<'a, 'r> {
    run: &'a PointRun<'r>,
    coarser: &'a [CoarserMesh],
    progress: &'a mut dyn Observer,
}

impl BackendTask for SolveOnePoint<'_, '_> {
    type Output = (std::result::Result<PointSolve, PointFailure>, Vec<CoarserSolve>);
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output {
        solve_sequenced(backend, self.run, self.coarser, self.progress)
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
