//! What the multi-objective optimizers share: the evaluated member, the argmin state, the
//! [`FrontProgress`] each keeps (every non-dominated design found, the hypervolume after every
//! batch against a stated reference point), and running one to its [`FrontOutcome`].
//!
//! Both [`Gde3`](super::gde3::Gde3) and [`KrigingFront`](super::kriging_front::KrigingFront)
//! are argmin solvers over [`FrontState`], so a run is either [`minimize_front`]`(problem,
//! solver)` or argmin's `Executor` with observers and [`RonCheckpoint`](super::RonCheckpoint)
//! checkpoints, then [`FrontOutcome::from_result`].

use argmin::core::{CostFunction, Executor, OptimizationResult, Solver, State, TerminationReason, TerminationStatus};
use serde::{Deserialize, Serialize};

use super::pareto::{default_reference, dominates, hypervolume, MultiScored};
use super::problem::Bounded;
use super::run::from_argmin;
use super::OptimError;

/// One evaluated design of a multi-objective run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontMember {
    pub x: Vec<f64>,
    pub score: MultiScored,
}

/// The argmin state of the multi-objective optimizers: the population (GDE3) or the newest
/// batch (Kriging); the cost is minus the hypervolume of the front found so far.
pub type FrontState = argmin::core::PopulationState<FrontMember, f64>;

/// Evaluations spent, every feasible non-dominated design found (the front over all
/// evaluations), the reference point and the hypervolume after every batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontProgress {
    max_evaluations: usize,
    evaluations: usize,
    n_objectives: usize,
    reference: Option<Vec<f64>>,
    front: Vec<FrontMember>,
    /// The least violating design while none is feasible.
    least_violating: Option<FrontMember>,
    history: Vec<(usize, f64)>,
}

impl FrontProgress {
    /// `reference`: the hypervolume's reference point; `None` takes the widened nadir of the
    /// first batch ([`default_reference`]).
    pub fn new(max_evaluations: usize, n_objectives: usize, reference: Option<Vec<f64>>) -> Self {
        FrontProgress { max_evaluations, evaluations: 0, n_objectives, reference, front: Vec::new(), least_violating: None, history: Vec::new() }
    }

    /// Take one batch of evaluated members in evaluation order; records the hypervolume after it.
    pub fn account(&mut self, members: &[FrontMember]) {
        if self.reference.is_none() {
            self.reference = default_reference(&members.iter().map(|m| &m.score).collect::<Vec<_>>());
        }
        for m in members {
            self.evaluations += 1;
            if m.score.is_feasible() {
                self.least_violating = None;
                let (a, front) = (&m.score.objectives, &self.front);
                if front.iter().any(|f| dominates(&f.score.objectives, a) || f.score.objectives == *a) {
                    continue;
                }
                self.front.retain(|f| !dominates(a, &f.score.objectives));
                self.front.push(m.clone());
            } else if self.front.is_empty() && self.least_violating.as_ref().is_none_or(|b| m.score.violation < b.score.violation) {
                self.least_violating = Some(m.clone());
            }
        }
        let hv = self.hypervolume();
        self.history.push((self.evaluations, hv));
    }

    /// Hypervolume of the front against the reference point (0 before anything is feasible).
    pub fn hypervolume(&self) -> f64 {
        match &self.reference {
            Some(r) => hypervolume(&self.front.iter().map(|m| m.score.objectives.as_slice()).collect::<Vec<_>>(), r),
            None => 0.0,
        }
    }
    pub fn evaluations(&self) -> usize {
        self.evaluations
    }
    pub fn remaining(&self) -> usize {
        self.max_evaluations.saturating_sub(self.evaluations)
    }
    pub fn n_objectives(&self) -> usize {
        self.n_objectives
    }
    /// The feasible non-dominated designs found, in the order they were found.
    pub fn front(&self) -> &[FrontMember] {
        &self.front
    }
    pub fn least_violating(&self) -> Option<&FrontMember> {
        self.least_violating.as_ref()
    }
    pub fn reference(&self) -> Option<&[f64]> {
        self.reference.as_deref()
    }
    /// (evaluations, hypervolume) after every batch.
    pub fn history(&self) -> &[(usize, f64)] {
        &self.history
    }
    /// Budget spent, as argmin's termination status.
    pub fn termination(&self) -> TerminationStatus {
        if self.remaining() == 0 {
            TerminationStatus::Terminated(TerminationReason::SolverExit("evaluation budget spent".into()))
        } else {
            TerminationStatus::NotTerminated
        }
    }
    /// The state after a batch: `members` as its population, minus the hypervolume as its cost.
    pub(super) fn publish(&self, state: FrontState, members: Vec<FrontMember>) -> FrontState {
        let cost = -self.hypervolume();
        let lead = self.front.first().or(self.least_violating.as_ref()).or(members.first()).cloned();
        let state = state.cost(cost).population(members);
        match lead {
            Some(m) => state.individual(m),
            None => state,
        }
    }
}

/// A multi-objective solver that reports its [`FrontProgress`].
pub trait ReportsFront {
    fn front_progress(&self) -> &FrontProgress;
}

/// What a multi-objective run ends with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontOutcome {
    /// Every feasible design that no other evaluated feasible design dominates, sorted by the
    /// first objective.
    pub front: Vec<FrontMember>,
    /// The least violating design when none was feasible.
    pub least_violating: Option<FrontMember>,
    /// The hypervolume's reference point (given, or the widened nadir of the first batch).
    pub reference: Vec<f64>,
    pub hypervolume: f64,
    /// (evaluations, hypervolume) after every batch.
    pub history: Vec<(usize, f64)>,
    pub evaluations: usize,
    /// Generations (GDE3) or cycles (Kriging) after the initial sample.
    pub iterations: u64,
    pub termination: String,
}

impl FrontOutcome {
    /// The outcome of an argmin run of either multi-objective optimizer.
    pub fn from_result<O, S: ReportsFront>(result: &OptimizationResult<O, S, FrontState>) -> Result<FrontOutcome, OptimError> {
        let progress = result.solver().front_progress();
        let reference = progress.reference().ok_or_else(|| OptimError::Run("no design ran, so there is no reference point".into()))?.to_vec();
        let mut front = progress.front().to_vec();
        front.sort_by(|a, b| a.score.objectives[0].total_cmp(&b.score.objectives[0]));
        let state = result.state();
        Ok(FrontOutcome {
            front,
            least_violating: progress.least_violating().cloned(),
            reference,
            hypervolume: progress.hypervolume(),
            history: progress.history().to_vec(),
            evaluations: progress.evaluations(),
            iterations: state.get_iter(),
            termination: state.get_termination_reason().map_or_else(|| "not terminated".into(), |r| r.text().to_string()),
        })
    }
}

/// Run a multi-objective `solver` on `problem` to the end of its budget.
pub fn minimize_front<O, S>(problem: O, solver: S) -> Result<FrontOutcome, OptimError>
where
    O: CostFunction<Param = Vec<f64>, Output = MultiScored> + Bounded,
    S: Solver<O, FrontState> + ReportsFront,
{
    let result = Executor::new(problem, solver).timer(false).run().map_err(from_argmin)?;
    FrontOutcome::from_result(&result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(o: &[f64], c: &[f64]) -> FrontMember {
        FrontMember { x: o.to_vec(), score: MultiScored::constrained(o.to_vec(), c.to_vec()) }
    }

    #[test]
    fn progress_keeps_the_non_dominated_feasible_designs_and_their_hypervolume() {
        let mut p = FrontProgress::new(10, 2, Some(vec![4.0, 4.0]));
        p.account(&[member(&[0.0, 0.0], &[1.0]), member(&[3.0, 3.0], &[])]);
        assert_eq!((p.front().len(), p.hypervolume()), (1, 1.0));
        p.account(&[member(&[1.0, 3.0], &[]), member(&[2.0, 2.0], &[]), member(&[3.0, 1.0], &[]), member(&[2.0, 2.0], &[])]);
        let kept: Vec<&[f64]> = p.front().iter().map(|m| m.score.objectives.as_slice()).collect();
        assert_eq!(kept, vec![&[1.0, 3.0][..], &[2.0, 2.0], &[3.0, 1.0]]);
        assert_eq!(p.history(), &[(2, 1.0), (6, 6.0)]);
        assert_eq!(p.remaining(), 4);
    }

    #[test]
    fn without_a_reference_the_first_batch_states_one() {
        let mut p = FrontProgress::new(10, 2, None);
        p.account(&[member(&[0.0, 2.0], &[]), member(&[2.0, 0.0], &[]), member(&[9.0, 9.0], &[3.0])]);
        assert_eq!(p.reference(), Some(&[2.2, 2.2][..]));
        let none_feasible = {
            let mut q = FrontProgress::new(10, 2, None);
            q.account(&[member(&[0.0, 0.0], &[2.0]), member(&[1.0, 1.0], &[0.5])]);
            q
        };
        assert_eq!(none_feasible.least_violating().map(|m| m.score.violation), Some(0.5));
        assert_eq!(none_feasible.hypervolume(), 0.0);
    }
}
