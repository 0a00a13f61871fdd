//! Restart files: the state of a solve (solution, residual history and the density reference
//! the orders count from) saved so that a later run continues it where it stopped, as if it
//! had never been interrupted: same convergence target, one history, one iteration count.
//!
//! The format is RON (`restart.ron`); floats are written in their shortest round-trip form, so
//! a restart continues from bit-identical data.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::monitor::{ConvergenceHistory, IterationRecord};
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use crate::{Error, Result};

/// What a solve leaves behind for the next run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Restart {
    /// Blade name and operating point of the run that wrote the file (informative: a restart
    /// at another operating point is a legitimate warm start).
    pub blade: String,
    pub case: String,
    /// Iterations and wall-clock seconds of all the runs so far.
    pub iterations: usize,
    pub wall_s: f64,
    /// Density residual the orders count from (the cold start's).
    pub residual_reference: f64,
    /// Residual history of all the runs so far, iterations numbered on.
    pub history: Vec<IterationRecord>,
    pub solution: Solution,
}

impl Restart {
    /// The restart state after `history` (one run, iterations numbered from 1), continuing
    /// `previous` when the run itself was restarted.
    pub fn after(blade: &str, case: &str, previous: Option<&Restart>, history: &ConvergenceHistory, solution: &Solution) -> Restart {
        let (mut records, iterations, wall_s) = match previous {
            Some(p) => (p.history.clone(), p.iterations, p.wall_s),
            None => (Vec::new(), 0, 0.0),
        };
        records.extend(history.records.iter().map(|r| IterationRecord { iteration: r.iteration + iterations, wall_s: r.wall_s + wall_s, ..r.clone() }));
        let last = history.records.last();
        Restart {
            blade: blade.to_string(),
            case: case.to_string(),
            iterations: iterations + last.map_or(0, |r| r.iteration),
            wall_s: wall_s + last.map_or(0.0, |r| r.wall_s),
            residual_reference: history.density_reference(),
            history: records,
            solution: solution.clone(),
        }
    }

    /// The whole history (all runs) with the reference its orders count from.
    pub fn convergence_history(&self) -> ConvergenceHistory {
        ConvergenceHistory { records: self.history.clone(), reference: Some(self.residual_reference) }
    }

    /// Checks that the solution fits `mesh` block by block.
    pub fn check_fits(&self, mesh: &Mesh) -> Result<()> {
        let theirs: Vec<(usize, usize)> = self.solution.blocks.iter().map(|b| (b.ni, b.nj)).collect();
        let ours: Vec<(usize, usize)> = mesh.blocks.iter().map(|b| (b.ni, b.nj)).collect();
        if theirs != ours {
            return Err(Error::Other(format!(
                "restart solution does not fit the mesh: its blocks are {theirs:?} (ni x nj), the mesh's are {ours:?} (another density or blade?)"
            )));
        }
        // Array lengths are checked where the state is uploaded (`Backend::upload_state`).
        let bad = self.solution.blocks.iter().any(|b| {
            [&b.rho, &b.rho_u, &b.rho_v, &b.rho_e, &b.nu_tilde].iter().any(|v| v.iter().any(|x| !x.is_finite())) || b.rho.iter().any(|&r| r <= 0.0)
        });
        if bad {
            return Err(Error::Other("restart solution has non-finite or non-positive-density fields".into()));
        }
        if !(self.residual_reference.is_finite() && self.residual_reference > 0.0) {
            return Err(Error::Other(format!("restart residual reference {} must be positive", self.residual_reference)));
        }
        Ok(())
    }
}

/// Writes `restart` to `path` (RON).
pub fn write_restart(path: &Path, restart: &Restart) -> Result<()> {
    let text = ron::to_string(restart).map_err(|e| Error::Other(format!("cannot serialize the restart state: {e}")))?;
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// Reads a restart file written by [`write_restart`].
pub fn read_restart(path: &Path) -> Result<Restart> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    ron::from_str(&text).map_err(|e| Error::Input { path: path.display().to_string(), reason: e.to_string() })
}
