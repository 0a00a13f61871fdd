//! The `Evaluator` seam: an optimizer (or any Rust tool) hands a design vector over and gets
//! objectives and constraints back. Failures are values ([`Status`]), never panics.

use serde::{Deserialize, Serialize};

pub mod analytic;
pub(crate) mod archive;
pub mod cache;
pub mod cfd;
mod cfd_config;
pub(crate) mod dispatch;
pub(crate) mod donors;
pub mod objectives;
pub mod study;
pub mod subspace;

pub use crate::geometry::DesignSpace;

/// Outcome of one evaluation. Everything but `Ok` carries its reason.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum Status {
    Ok,
    InvalidGeometry(String),
    MeshFailure(String),
    Diverged(String),
    NotConverged(String),
    Failed(String),
    /// Stopped at the caller's request before it finished (`CfdEvaluator::stop_signal`): no
    /// result, and a campaign does not log it.
    Interrupted(String),
}

impl Status {
    pub fn is_ok(&self) -> bool {
        matches!(self, Status::Ok)
    }

    pub fn is_interrupted(&self) -> bool {
        matches!(self, Status::Interrupted(_))
    }

    /// The status's name as its serialized `kind` spells it (`ok`, `invalid_geometry`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::InvalidGeometry(_) => "invalid_geometry",
            Status::MeshFailure(_) => "mesh_failure",
            Status::Diverged(_) => "diverged",
            Status::NotConverged(_) => "not_converged",
            Status::Failed(_) => "failed",
            Status::Interrupted(_) => "interrupted",
        }
    }

    /// Why the status is not `Ok` (None when it is).
    pub fn reason(&self) -> Option<&str> {
        match self {
            Status::Ok => None,
            Status::InvalidGeometry(r) | Status::MeshFailure(r) | Status::Diverged(r) | Status::NotConverged(r) | Status::Failed(r) | Status::Interrupted(r) => Some(r),
        }
    }
}

/// `ok`, or the status in words with its reason: `invalid geometry: ...`.
impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.reason() {
            None => f.write_str(self.name()),
            Some(reason) => write!(f, "{}: {reason}", self.name().replace('_', " ")),
        }
    }
}

/// Solver figures that come with an evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Diagnostics {
    pub iterations: usize,
    pub residual_drop_orders: f64,
    pub wall_s: f64,
    pub backend: String,
    pub scheme: String,
    /// True when the result came from the evaluation cache.
    pub cached: bool,
    /// Why each operating point's solve stopped (`point: converged (steady figures)`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<String>,
    /// Every attempt of the recovery chain at the points that needed more than one (all of them
    /// for a failed point), with its remedies, iterations and result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<crate::cascade::Attempt>,
    /// The points answered as periodic flows (`cascade::periodic`): their objectives are
    /// figures averaged over whole periods, with the oscillation's period and amplitude here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub oscillations: Vec<crate::cascade::Oscillation>,
    /// The worst quality figures of the design's mesh (`mesh::quality`); none where no mesh
    /// was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<crate::mesh::quality::QualitySummary>,
}

/// Objectives (minimized) and constraints (feasible when every `c <= 0`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    pub objectives: Vec<f64>,
    pub constraints: Vec<f64>,
    pub status: Status,
    pub diagnostics: Diagnostics,
}

impl Evaluation {
    pub fn failed(status: Status) -> Self {
        Evaluation { objectives: vec![], constraints: vec![], status, diagnostics: Diagnostics::default() }
    }
    /// Sum of positive constraint values (0 when feasible); infinite for failed evaluations.
    pub fn violation(&self) -> f64 {
        if !self.status.is_ok() {
            return f64::INFINITY;
        }
        self.constraints.iter().map(|c| c.max(0.0)).sum()
    }
    pub fn is_feasible(&self) -> bool {
        self.status.is_ok() && self.violation() == 0.0
    }
}

/// Scores designs. Implementations must be callable from several threads.
pub trait Evaluator: Send + Sync {
    fn space(&self) -> &DesignSpace;
    fn objective_names(&self) -> Vec<String>;
    fn constraint_names(&self) -> Vec<String>;
    fn evaluate(&self, design: &[f64]) -> Evaluation;
    /// Evaluate several designs; the default runs them one by one. CFD evaluators override it
    /// to fill the hardware (all CPU cores, or several designs at once on one GPU).
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        designs.iter().map(|d| self.evaluate(d)).collect()
    }
    /// How many designs this evaluator runs at once at most (CPU workers, GPU streams): how
    /// large a chunk of a batch an MPI worker rank is handed (`crate::optim::campaign::cluster`).
    fn batch_capacity(&self) -> usize {
        1
    }
    /// [`Evaluator::evaluate_batch`], calling `report(k, evaluation)` for each design `k` as soon
    /// as its evaluation is known, in any order (a campaign logs it then, so that a kill loses
    /// no finished evaluation); the default reports them all when the batch is done.
    fn evaluate_batch_reporting(&self, designs: &[Vec<f64>], report: &(dyn Fn(usize, &Evaluation) + Sync)) -> Vec<Evaluation> {
        let out = self.evaluate_batch(designs);
        out.iter().enumerate().for_each(|(k, e)| report(k, e));
        out
    }
}
