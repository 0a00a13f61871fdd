//! Running either optimizer the same way.
//!
//! Both [`DifferentialEvolution`](super::de::DifferentialEvolution) and
//! [`TwoLevel`](super::ego::TwoLevel) are argmin solvers over [`OptimState`] that keep a
//! [`Progress`] (evaluations, best member, improvement history). So a run is either
//!
//! - [`minimize`]`(problem, solver)`, which returns an [`Outcome`], or
//! - argmin's own `Executor::new(problem, solver)` with observers (`add_observer`) and
//!   checkpoints (`checkpointing(RonCheckpoint::new(path))`), then [`Outcome::from_result`].

use argmin::core::checkpointing::{Checkpoint, CheckpointingFrequency};
use argmin::core::{CostFunction, Error as ArgminError, Executor, OptimizationResult, Solver, State};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

use super::problem::Bounded;
use super::{Member, OptimError, OptimState, Scored};

/// Evaluations spent, the best member by Deb's rules, and the best feasible objective at every
/// improvement; the budget and the target that end a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    max_evaluations: usize,
    target: Option<f64>,
    evaluations: usize,
    best: Option<Member>,
    history: Vec<(usize, f64)>,
}

impl Progress {
    pub fn new(max_evaluations: usize, target: Option<f64>) -> Self {
        Progress { max_evaluations, target, evaluations: 0, best: None, history: Vec::new() }
    }

    /// Count evaluated members in evaluation order.
    pub fn account(&mut self, members: &[Member]) {
        for m in members {
            self.evaluations += 1;
            if m.score.is_feasible() && self.history.last().is_none_or(|&(_, b)| m.score.objective < b) {
                self.history.push((self.evaluations, m.score.objective));
            }
            if self.best.as_ref().is_none_or(|b| m.score.deb_cmp(&b.score).is_lt()) {
                self.best = Some(m.clone());
            }
        }
    }

    pub fn evaluations(&self) -> usize {
        self.evaluations
    }
    pub fn remaining(&self) -> usize {
        self.max_evaluations.saturating_sub(self.evaluations)
    }
    pub fn best(&self) -> Option<&Member> {
        self.best.as_ref()
    }
    /// (evaluation number, best feasible objective) at every improvement.
    pub fn history(&self) -> &[(usize, f64)] {
        &self.history
    }
    pub fn best_feasible(&self) -> Option<f64> {
        self.history.last().map(|h| h.1)
    }
    pub fn target_reached(&self) -> bool {
        matches!((self.target, self.best_feasible()), (Some(t), Some(b)) if b <= t)
    }
    /// Evaluation number at which the target was first reached.
    pub fn evaluations_to_target(&self) -> Option<usize> {
        let t = self.target?;
        self.history.iter().find(|&&(_, v)| v <= t).map(|&(n, _)| n)
    }
}

/// A solver that reports its [`Progress`].
pub trait Reports {
    fn progress(&self) -> &Progress;
}

/// What a run ends with.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// Best design by Deb's rules (feasible if any feasible design was found).
    pub best_design: Vec<f64>,
    pub best: Scored,
    pub evaluations: usize,
    /// Generations (DE) or cycles (Kriging) after the initial sample.
    pub iterations: u64,
    /// (evaluation number, best feasible objective) at every improvement.
    pub history: Vec<(usize, f64)>,
    /// Evaluation number at which the target was first reached, if it was set and reached.
    pub evaluations_to_target: Option<usize>,
    pub termination: String,
}

impl Outcome {
    /// The outcome of an argmin run of either optimizer.
    pub fn from_result<O, S: Reports>(result: &OptimizationResult<O, S, OptimState>) -> Result<Outcome, OptimError> {
        let progress = result.solver().progress();
        let best = progress.best().cloned().ok_or_else(|| OptimError::Run("nothing was evaluated".into()))?;
        let state = result.state();
        Ok(Outcome {
            best_design: best.x,
            best: best.score,
            evaluations: progress.evaluations(),
            iterations: state.get_iter(),
            history: progress.history().to_vec(),
            evaluations_to_target: progress.evaluations_to_target(),
            termination: state.get_termination_reason().map_or_else(|| "not terminated".into(), |r| r.text().to_string()),
        })
    }
}

/// Run `solver` on `problem` to the end of its budget or target.
pub fn minimize<O, S>(problem: O, solver: S) -> Result<Outcome, OptimError>
where
    O: CostFunction<Param = Vec<f64>, Output = Scored> + Bounded,
    S: Solver<O, OptimState> + Reports,
{
    let result = Executor::new(problem, solver).timer(false).run().map_err(from_argmin)?;
    Outcome::from_result(&result)
}

/// An argmin error back into the typed error it started as, where it was one.
pub fn from_argmin(e: ArgminError) -> OptimError {
    match e.downcast::<OptimError>() {
        Ok(typed) => typed,
        Err(other) => OptimError::Run(other.to_string()),
    }
}

/// argmin checkpoints as one RON file (RON keeps infinities, which the state's costs hold
/// before anything feasible is found, and round-trips every f64). Written atomically after
/// every iteration (or every `n`); an existing file is loaded when the run starts, so a killed
/// run continues where its last checkpoint left it, with the same random numbers.
pub struct RonCheckpoint {
    path: PathBuf,
    frequency: CheckpointingFrequency,
}

impl RonCheckpoint {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        RonCheckpoint { path: path.into(), frequency: CheckpointingFrequency::Always }
    }
    /// Save every `n` iterations instead of every one.
    pub fn every(mut self, n: u64) -> Self {
        self.frequency = CheckpointingFrequency::Every(n.max(1));
        self
    }
    fn error(&self, reason: impl std::fmt::Display) -> ArgminError {
        ArgminError::new(OptimError::Checkpoint { path: self.path.display().to_string(), reason: reason.to_string() })
    }
}

#[derive(Serialize)]
struct SavedRef<'a, S> {
    solver: &'a S,
    state: &'a OptimState,
}

#[derive(Deserialize)]
struct Saved<S> {
    solver: S,
    state: OptimState,
}

impl<S: Serialize + DeserializeOwned> Checkpoint<S, OptimState> for RonCheckpoint {
    fn save(&self, solver: &S, state: &OptimState) -> Result<(), ArgminError> {
        let text = ron::ser::to_string(&SavedRef { solver, state }).map_err(|e| self.error(e))?;
        crate::files::write_atomic(&self.path, text.as_bytes()).map_err(|e| self.error(e))
    }

    fn load(&self) -> Result<Option<(S, OptimState)>, ArgminError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(self.error(e)),
        };
        let saved: Saved<S> = ron::from_str(&text).map_err(|e| self.error(e))?;
        Ok(Some((saved.solver, saved.state)))
    }

    fn frequency(&self) -> CheckpointingFrequency {
        self.frequency
    }
}
