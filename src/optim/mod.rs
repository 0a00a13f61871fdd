//! Optimizers and the campaign runner.
//!
//! - [`de`]: differential evolution as an argmin [`Solver`](argmin::core::Solver), one batch
//!   evaluation per generation, Deb's feasibility rules for constraints.
//! - [`kriging`]: ordinary Kriging (thesis eq. 7.1-7.5) with maximum-likelihood hyperparameters.
//! - [`ego`]: the surrogate-assisted (2-level) optimizer of thesis 7.2.
//! - [`campaign`]: RON-configured campaigns with a JSON-lines log, checkpoints and resume.
//! - [`problem`]: the one way in: [`Bounds`] declared once, a closure or an [`Evaluator`] as
//!   an argmin cost function that carries its bounds.
//! - [`run`]: [`minimize`] for either optimizer, [`Outcome`], a JSON checkpoint for argmin.
//! - [`prelude`]: what a user needs for `use turbopt::optim::prelude::*`.
//!
//! All optimizers minimize one objective subject to constraints `c <= 0`; [`Selection`] picks
//! which objective and constraints of an [`Evaluation`] they see, and [`Scored`] is the result.
//! Both optimizers are argmin [`Solver`](argmin::core::Solver)s over the same state
//! ([`OptimState`]) and take their bounds from the problem, so they are called the same way.
//!
//! [`Evaluator`]: crate::eval::Evaluator

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

use crate::eval::Evaluation;

pub mod acquisition;
pub mod campaign;
pub mod de;
pub mod ego;
pub mod front;
pub mod gde3;
pub mod kriging;
pub mod kriging_front;
pub mod lhs;
pub mod pareto;
pub mod prelude;
pub mod problem;
pub mod run;
mod shade;
pub mod transform;

pub use problem::{Bounded, Bounds, BoundsError, EvaluatorProblem, FnMultiProblem, FnProblem, Scoring};
pub use run::{minimize, Outcome, Progress, Reports, RonCheckpoint};

/// Errors of the optimizers' public entry points.
#[derive(Debug, thiserror::Error)]
pub enum OptimError {
    #[error("bounds: {0}")]
    Bounds(#[from] BoundsError),
    #[error("{optimizer}: {reason}")]
    Settings { optimizer: &'static str, reason: String },
    #[error("Kriging: {0}")]
    Kriging(String),
    #[error("the optimizer stopped: {0}")]
    Run(String),
    #[error("checkpoint {path}: {reason}")]
    Checkpoint { path: String, reason: String },
}

impl From<OptimError> for crate::Error {
    fn from(e: OptimError) -> Self {
        crate::Error::Other(e.to_string())
    }
}

impl From<BoundsError> for crate::Error {
    fn from(e: BoundsError) -> Self {
        OptimError::from(e).into()
    }
}

/// One evaluated design: what both optimizers keep in their argmin state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    pub x: Vec<f64>,
    pub score: Scored,
}

/// The argmin state both optimizers run on: the best member as the individual (its cost is the
/// best feasible objective, `+inf` while none is feasible); DE keeps its population in it.
pub type OptimState = argmin::core::PopulationState<Member, f64>;

/// What an optimizer sees of one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scored {
    /// Objective to minimize (`+inf` for failed evaluations).
    pub objective: f64,
    /// The constraint values the optimizer sees (`c <= 0` is feasible); empty for failures.
    #[serde(default)]
    pub constraints: Vec<f64>,
    /// Sum of positive constraint values; 0 when feasible, `+inf` when the evaluation failed.
    pub violation: f64,
    /// Why the evaluation failed (status other than `Ok`, or a non-finite value).
    pub failure: Option<String>,
}

impl Scored {
    /// A design that ran and meets every constraint.
    pub fn feasible(objective: f64) -> Self {
        Scored { objective, constraints: Vec::new(), violation: 0.0, failure: None }
    }
    /// A design that ran, with its constraint values (`c <= 0` is feasible).
    pub fn constrained(objective: f64, constraints: Vec<f64>) -> Self {
        if !objective.is_finite() || constraints.iter().any(|c| !c.is_finite()) {
            return Scored::failed("non-finite objective or constraint");
        }
        let violation = constraints.iter().map(|c| c.max(0.0)).sum();
        Scored { objective, constraints, violation, failure: None }
    }
    /// A design whose evaluation failed (infinite objective and violation).
    pub fn failed(reason: impl Into<String>) -> Self {
        Scored { objective: f64::INFINITY, constraints: Vec::new(), violation: f64::INFINITY, failure: Some(reason.into()) }
    }
    /// Ran, and no constraint is violated.
    pub fn is_feasible(&self) -> bool {
        self.failure.is_none() && self.violation == 0.0
    }

    /// Deb's feasibility rules (Deb 2000, "An efficient constraint handling method for genetic
    /// algorithms"): a feasible design beats an infeasible one, two feasible designs compare by
    /// objective, two infeasible ones by total violation. Failed evaluations have infinite
    /// violation, so they lose to everything that ran. `Less` means `self` is better.
    pub fn deb_cmp(&self, other: &Scored) -> Ordering {
        match (self.is_feasible(), other.is_feasible()) {
            (true, true) => self.objective.total_cmp(&other.objective),
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => self.violation.total_cmp(&other.violation),
        }
    }
}

/// Which objective and constraints of an [`Evaluation`] an optimizer works on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// Index into `Evaluation::objectives`.
    pub objective: usize,
    /// Indices into `Evaluation::constraints`; `None` takes them all.
    pub constraints: Option<Vec<usize>>,
}

impl Selection {
    /// The selected constraint values, or a failure reason when the evaluation lacks them.
    pub fn constraint_values(&self, e: &Evaluation) -> Result<Vec<f64>, String> {
        match &self.constraints {
            None => Ok(e.constraints.clone()),
            Some(idx) => idx
                .iter()
                .map(|&i| e.constraints.get(i).copied().ok_or_else(|| format!("constraint {i} missing from evaluation")))
                .collect(),
        }
    }

    /// Reduce an evaluation to the optimizer's view; non-finite values count as failures.
    pub fn score(&self, e: &Evaluation) -> Scored {
        if !e.status.is_ok() {
            return Scored::failed(e.status.to_string());
        }
        let Some(&objective) = e.objectives.get(self.objective) else {
            return Scored::failed(format!("objective {} missing from evaluation", self.objective));
        };
        let constraints = match self.constraint_values(e) {
            Ok(c) => c,
            Err(reason) => return Scored::failed(reason),
        };
        Scored::constrained(objective, constraints)
    }
}

/// Which objectives (at least two) and constraints of an [`Evaluation`] a multi-objective
/// optimizer works on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontSelection {
    /// Indices into `Evaluation::objectives`.
    pub objectives: Vec<usize>,
    /// Indices into `Evaluation::constraints`; `None` takes them all.
    pub constraints: Option<Vec<usize>>,
}

impl FrontSelection {
    /// Reduce an evaluation to the optimizer's view; non-finite values count as failures.
    pub fn score(&self, e: &Evaluation) -> pareto::MultiScored {
        let n = self.objectives.len();
        if !e.status.is_ok() {
            return pareto::MultiScored::failed(e.status.to_string(), n);
        }
        let objectives: Option<Vec<f64>> = self.objectives.iter().map(|&i| e.objectives.get(i).copied()).collect();
        let Some(objectives) = objectives else {
            return pareto::MultiScored::failed(format!("objectives {:?} missing from evaluation", self.objectives), n);
        };
        let constraint_view = Selection { objective: 0, constraints: self.constraints.clone() };
        match constraint_view.constraint_values(e) {
            Ok(c) => pareto::MultiScored::constrained(objectives, c),
            Err(reason) => pareto::MultiScored::failed(reason, n),
        }
    }
}

/// Best feasible objective after each evaluation (`None` until the first feasible one).
pub fn best_feasible_history(scores: &[Scored]) -> Vec<Option<f64>> {
    let mut best: Option<f64> = None;
    scores
        .iter()
        .map(|s| {
            if s.is_feasible() {
                best = Some(best.map_or(s.objective, |b: f64| b.min(s.objective)));
            }
            best
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Status;

    #[test]
    fn deb_rules_order() {
        let feas_good = Scored::feasible(1.0);
        let feas_bad = Scored::feasible(2.0);
        let infeas_small = Scored::constrained(-10.0, vec![0.1, -1.0]);
        let infeas_big = Scored::constrained(-20.0, vec![5.0]);
        let failed = Scored::failed("diverged");
        let order = [&feas_good, &feas_bad, &infeas_small, &infeas_big, &failed];
        for w in order.windows(2) {
            assert_eq!(w[0].deb_cmp(w[1]), Ordering::Less, "{:?} should beat {:?}", w[0], w[1]);
        }
    }

    #[test]
    fn selection_scores_failures_and_missing_values() {
        let ok = Evaluation {
            objectives: vec![3.0, 4.0],
            constraints: vec![-1.0, 0.5],
            status: Status::Ok,
            diagnostics: Default::default(),
        };
        let s = Selection { objective: 1, constraints: Some(vec![1]) }.score(&ok);
        assert_eq!((s.objective, s.violation), (4.0, 0.5));
        assert!(Selection { objective: 2, constraints: None }.score(&ok).failure.is_some());
        let failed = Evaluation::failed(Status::Diverged("NaN at iteration 12".into()));
        let f = Selection::default().score(&failed);
        assert!(f.failure.unwrap().contains("NaN at iteration 12"));
    }
}
