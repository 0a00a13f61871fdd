//! The one way in: a problem is an argmin cost function from a design (`Vec<f64>`) to a
//! [`Scored`] that also carries its [`Bounds`] ([`Bounded`]). The optimizers read the bounds
//! from the problem, so they are declared once and cannot disagree.
//!
//! - [`FnProblem`]: a plain closure `f(x) -> f64`, optionally with constraints `g(x) -> Vec<f64>`
//!   (feasible when every `g_i <= 0`).
//! - [`FnMultiProblem`]: a closure `f(x) -> Vec<f64>` of several objectives to minimize together
//!   (the multi-objective optimizers), optionally with constraints.
//! - [`EvaluatorProblem`]: an [`Evaluator`] (the CFD path) seen through a [`Selection`] (one
//!   objective) or a [`FrontSelection`] (several); a batch of designs is one `evaluate_batch`
//!   call.

use argmin::core::{CostFunction, Error as ArgminError};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::pareto::MultiScored;
use super::{FrontSelection, Scored, Selection};
use crate::eval::{Evaluation, Evaluator};

/// Why a pair of bound vectors is not a box.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BoundsError {
    #[error("no variables")]
    Empty,
    #[error("{lower} lower bounds for {upper} upper bounds")]
    LengthMismatch { lower: usize, upper: usize },
    #[error("variable {index}: [{lower}, {upper}] is not a finite interval with lower < upper")]
    NotAnInterval { index: usize, lower: f64, upper: f64 },
}

/// A box `lower <= x <= upper`, checked once when built.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawBounds", into = "RawBounds")]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

#[derive(Clone, Serialize, Deserialize)]
struct RawBounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl TryFrom<RawBounds> for Bounds {
    type Error = BoundsError;
    fn try_from(r: RawBounds) -> Result<Self, BoundsError> {
        Bounds::new(r.lower, r.upper)
    }
}

impl From<Bounds> for RawBounds {
    fn from(b: Bounds) -> Self {
        RawBounds { lower: b.lower, upper: b.upper }
    }
}

impl Bounds {
    /// The box `[lower_i, upper_i]`; every interval must be finite with `lower < upper`.
    pub fn new(lower: impl Into<Vec<f64>>, upper: impl Into<Vec<f64>>) -> Result<Self, BoundsError> {
        let (lower, upper) = (lower.into(), upper.into());
        if lower.len() != upper.len() {
            return Err(BoundsError::LengthMismatch { lower: lower.len(), upper: upper.len() });
        }
        if lower.is_empty() {
            return Err(BoundsError::Empty);
        }
        for (index, (&l, &u)) in lower.iter().zip(&upper).enumerate() {
            if !(l < u && l.is_finite() && u.is_finite()) {
                return Err(BoundsError::NotAnInterval { index, lower: l, upper: u });
            }
        }
        Ok(Bounds { lower, upper })
    }

    /// The cube `[lower, upper]^dim`.
    pub fn cube(lower: f64, upper: f64, dim: usize) -> Result<Self, BoundsError> {
        Bounds::new(vec![lower; dim], vec![upper; dim])
    }

    pub fn lower(&self) -> &[f64] {
        &self.lower
    }
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }
    pub fn dim(&self) -> usize {
        self.lower.len()
    }
    pub fn width(&self, k: usize) -> f64 {
        self.upper[k] - self.lower[k]
    }
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.dim() && x.iter().enumerate().all(|(k, v)| (self.lower[k]..=self.upper[k]).contains(v))
    }
    /// `x` moved into the box component by component.
    pub fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter().enumerate().map(|(k, v)| v.clamp(self.lower[k], self.upper[k])).collect()
    }
    /// A unit-cube point mapped onto the box.
    pub fn from_unit(&self, u: &[f64]) -> Vec<f64> {
        u.iter().enumerate().map(|(k, v)| self.lower[k] + v * self.width(k)).collect()
    }
    /// An initial sample: unit-cube points mapped onto the box, the first ones replaced by
    /// `given` designs (e.g. the baseline) moved into the box.
    pub fn initial_sample(&self, unit: &[Vec<f64>], given: &[Vec<f64>]) -> Vec<Vec<f64>> {
        let mut designs: Vec<Vec<f64>> = unit.iter().map(|u| self.from_unit(u)).collect();
        for (slot, g) in designs.iter_mut().zip(given) {
            *slot = self.clamp(g);
        }
        designs
    }
    /// Euclidean distance in the unit cube (every variable scaled by its range).
    pub fn unit_distance(&self, a: &[f64], b: &[f64]) -> f64 {
        (0..self.dim()).map(|k| ((a[k] - b[k]) / self.width(k)).powi(2)).sum::<f64>().sqrt()
    }
}

/// `score` of every design of a batch, on all cores (rayon) when `parallel`.
fn score_all<P: std::borrow::Borrow<Vec<f64>>, T: Send>(params: &[P], parallel: bool, score: impl Fn(&[f64]) -> T + Sync) -> Vec<T> {
    if parallel {
        let designs: Vec<&Vec<f64>> = params.iter().map(|p| p.borrow()).collect();
        designs.par_iter().map(|x| score(x)).collect()
    } else {
        params.iter().map(|p| score(p.borrow())).collect()
    }
}

/// A problem that knows its design box.
pub trait Bounded {
    fn bounds(&self) -> &Bounds;
}

type ObjectiveFn = Box<dyn Fn(&[f64]) -> f64 + Send + Sync>;
type ConstraintsFn = Box<dyn Fn(&[f64]) -> Vec<f64> + Send + Sync>;

/// A closure as a problem: `FnProblem::new(|x| x[0] * x[0], Bounds::cube(-1.0, 1.0, 1)?)`.
/// A non-finite objective or constraint counts as a failed evaluation.
pub struct FnProblem {
    objective: ObjectiveFn,
    constraints: Option<ConstraintsFn>,
    bounds: Bounds,
    parallel: bool,
}

impl FnProblem {
    pub fn new(objective: impl Fn(&[f64]) -> f64 + Send + Sync + 'static, bounds: Bounds) -> Self {
        FnProblem { objective: Box::new(objective), constraints: None, bounds, parallel: false }
    }
    /// Constraints `g(x) <= 0`, all returned by one closure.
    pub fn with_constraints(mut self, constraints: impl Fn(&[f64]) -> Vec<f64> + Send + Sync + 'static) -> Self {
        self.constraints = Some(Box::new(constraints));
        self
    }
    /// Evaluate the designs of one batch on all cores (rayon); off by default.
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }

    fn score(&self, x: &[f64]) -> Scored {
        let f = (self.objective)(x);
        let g = self.constraints.as_ref().map_or_else(Vec::new, |c| c(x));
        Scored::constrained(f, g)
    }
}

impl Bounded for FnProblem {
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl CostFunction for FnProblem {
    type Param = Vec<f64>;
    type Output = Scored;

    fn cost(&self, x: &Vec<f64>) -> Result<Scored, ArgminError> {
        Ok(self.score(x))
    }

    fn bulk_cost<P>(&self, params: &[P]) -> Result<Vec<Scored>, ArgminError>
    where
        P: std::borrow::Borrow<Vec<f64>> + argmin::core::SyncAlias,
        Scored: argmin::core::SendAlias,
        Self: argmin::core::SyncAlias,
    {
        Ok(score_all(params, self.parallel, |x| self.score(x)))
    }
}

type ObjectivesFn = Box<dyn Fn(&[f64]) -> Vec<f64> + Send + Sync>;

/// A closure of several objectives as a problem for the multi-objective optimizers:
/// `FnMultiProblem::new(|x| vec![x[0], 1.0 - x[0].sqrt()], 2, Bounds::cube(0.0, 1.0, 1)?)`.
/// A non-finite value or a vector of the wrong length counts as a failed evaluation.
pub struct FnMultiProblem {
    objectives: ObjectivesFn,
    n_objectives: usize,
    constraints: Option<ConstraintsFn>,
    bounds: Bounds,
    parallel: bool,
}

impl FnMultiProblem {
    /// `objectives` returns `n_objectives` values; at least two.
    pub fn new(objectives: impl Fn(&[f64]) -> Vec<f64> + Send + Sync + 'static, n_objectives: usize, bounds: Bounds) -> Self {
        FnMultiProblem { objectives: Box::new(objectives), n_objectives, constraints: None, bounds, parallel: false }
    }
    /// Constraints `g(x) <= 0`, all returned by one closure.
    pub fn with_constraints(mut self, constraints: impl Fn(&[f64]) -> Vec<f64> + Send + Sync + 'static) -> Self {
        self.constraints = Some(Box::new(constraints));
        self
    }
    /// Evaluate the designs of one batch on all cores (rayon); off by default.
    pub fn parallel(mut self, on: bool) -> Self {
        self.parallel = on;
        self
    }
    pub fn n_objectives(&self) -> usize {
        self.n_objectives
    }

    fn score(&self, x: &[f64]) -> MultiScored {
        let f = (self.objectives)(x);
        if f.len() != self.n_objectives {
            return MultiScored::failed(format!("{} objectives returned, {} declared", f.len(), self.n_objectives), self.n_objectives);
        }
        let g = self.constraints.as_ref().map_or_else(Vec::new, |c| c(x));
        MultiScored::constrained(f, g)
    }
}

impl Bounded for FnMultiProblem {
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl CostFunction for FnMultiProblem {
    type Param = Vec<f64>;
    type Output = MultiScored;

    fn cost(&self, x: &Vec<f64>) -> Result<MultiScored, ArgminError> {
        Ok(self.score(x))
    }

    fn bulk_cost<P>(&self, params: &[P]) -> Result<Vec<MultiScored>, ArgminError>
    where
        P: std::borrow::Borrow<Vec<f64>> + argmin::core::SyncAlias,
        MultiScored: argmin::core::SendAlias,
        Self: argmin::core::SyncAlias,
    {
        Ok(score_all(params, self.parallel, |x| self.score(x)))
    }
}

/// How an optimizer reads an [`Evaluation`]: [`Selection`] for one objective, [`FrontSelection`]
/// for several.
pub trait Scoring: Send + Sync {
    type Output: Send + Sync;
    fn score(&self, e: &Evaluation) -> Self::Output;
}

impl Scoring for Selection {
    type Output = Scored;
    fn score(&self, e: &Evaluation) -> Scored {
        Selection::score(self, e)
    }
}

impl Scoring for FrontSelection {
    type Output = MultiScored;
    fn score(&self, e: &Evaluation) -> MultiScored {
        FrontSelection::score(self, e)
    }
}

/// An [`Evaluator`] seen through a [`Selection`] (or a [`FrontSelection`]) as an argmin cost
/// function, with the evaluator's design space as its bounds. `bulk_cost` is one
/// `evaluate_batch` call, so a DE generation or a Kriging cycle is one batch.
pub struct EvaluatorProblem<'a, S: Scoring = Selection> {
    evaluator: &'a dyn Evaluator,
    selection: S,
    bounds: Bounds,
    batches: AtomicUsize,
}

impl<'a, S: Scoring> EvaluatorProblem<'a, S> {
    /// Fails when the evaluator's design space is not a box.
    pub fn new(evaluator: &'a dyn Evaluator, selection: S) -> Result<Self, BoundsError> {
        let space = evaluator.space();
        let bounds = Bounds::new(space.lower.clone(), space.upper.clone())?;
        Ok(EvaluatorProblem { evaluator, selection, bounds, batches: AtomicUsize::new(0) })
    }
    /// Number of `evaluate_batch` calls made so far.
    pub fn batches(&self) -> usize {
        self.batches.load(Ordering::Relaxed)
    }
}

impl<S: Scoring> Bounded for EvaluatorProblem<'_, S> {
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl<S: Scoring> CostFunction for EvaluatorProblem<'_, S> {
    type Param = Vec<f64>;
    type Output = S::Output;

    fn cost(&self, param: &Vec<f64>) -> Result<S::Output, ArgminError> {
        Ok(self.selection.score(&self.evaluator.evaluate(param)))
    }

    fn bulk_cost<P>(&self, params: &[P]) -> Result<Vec<S::Output>, ArgminError>
    where
        P: std::borrow::Borrow<Vec<f64>> + argmin::core::SyncAlias,
        S::Output: argmin::core::SendAlias,
        Self: argmin::core::SyncAlias,
    {
        let designs: Vec<Vec<f64>> = params.iter().map(|p| p.borrow().clone()).collect();
        self.batches.fetch_add(1, Ordering::Relaxed);
        let evaluations = self.evaluator.evaluate_batch(&designs);
        if evaluations.len() != designs.len() {
            let msg = format!("evaluator returned {} results for {} designs", evaluations.len(), designs.len());
            return Err(ArgminError::msg(msg));
        }
        Ok(evaluations.iter().map(|e| self.selection.score(e)).collect())
    }
}

/// Read a problem's bounds inside an argmin solver.
pub(crate) fn bounds_of<O: Bounded>(problem: &argmin::core::Problem<O>) -> Result<Bounds, ArgminError> {
    problem.problem.as_ref().map(|p| p.bounds().clone()).ok_or_else(|| ArgminError::msg("the problem was taken out of argmin's wrapper"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_checked_once() {
        assert_eq!(Bounds::new(vec![0.0], vec![1.0, 2.0]), Err(BoundsError::LengthMismatch { lower: 1, upper: 2 }));
        assert_eq!(Bounds::new(Vec::<f64>::new(), Vec::<f64>::new()), Err(BoundsError::Empty));
        assert!(matches!(Bounds::new(vec![0.0, 1.0], vec![1.0, 1.0]), Err(BoundsError::NotAnInterval { index: 1, .. })));
        assert!(matches!(Bounds::cube(0.0, f64::INFINITY, 2), Err(BoundsError::NotAnInterval { index: 0, .. })));
        let b = Bounds::new([-1.0, 0.0], [1.0, 4.0]).unwrap();
        assert_eq!(b.clamp(&[2.0, -1.0]), vec![1.0, 0.0]);
        assert_eq!(b.from_unit(&[0.5, 0.25]), vec![0.0, 1.0]);
        // Deserialization goes through the same check.
        assert!(serde_json::from_str::<Bounds>(r#"{"lower":[1.0],"upper":[0.0]}"#).is_err());
        assert_eq!(serde_json::from_str::<Bounds>(&serde_json::to_string(&b).unwrap()).unwrap(), b);
    }

    #[test]
    fn closures_score_objective_constraints_and_failures() {
        let p = FnProblem::new(|x| x[0] + x[1], Bounds::cube(0.0, 1.0, 2).unwrap()).with_constraints(|x| vec![x[0] - 0.5]);
        let s = p.cost(&vec![0.75, 0.25]).unwrap();
        assert_eq!((s.objective, s.violation, s.constraints.clone()), (1.0, 0.25, vec![0.25]));
        assert!(!s.is_feasible());
        let nan = FnProblem::new(|_| f64::NAN, Bounds::cube(0.0, 1.0, 1).unwrap());
        assert!(nan.cost(&vec![0.5]).unwrap().failure.is_some());
        let par = FnProblem::new(|x| x[0], Bounds::cube(0.0, 1.0, 1).unwrap()).parallel(true);
        let xs: Vec<Vec<f64>> = (0..10).map(|i| vec![i as f64 / 10.0]).collect();
        let out = par.bulk_cost(&xs).unwrap();
        assert!(out.iter().zip(&xs).all(|(s, x)| s.objective == x[0]));
    }
}
