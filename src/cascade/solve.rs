//! Stages 5-7 for one operating point: start, solve (through the recovery chain, stopping on
//! residual orders or steady figures) and post-processing.

use super::figures::{FigureWatch, WatchedExtras};
use super::periodic::Oscillation;
use super::prepare::{CascadeError, PointFigures, PreparedCascade};
use super::recovery::{Attempt, Plan, Remedy};
use super::settings::SolverSettings;
use crate::backend::ImplicitBackend;
use crate::error::Error;
use crate::flow::case::OperatingPoint;
use crate::flow::solution::Solution;
use crate::solver::{Case, ImplicitReport, Observer, SolveOutcome, SolverConfig};

/// Where a point's solve starts.
#[derive(Clone, Copy, Debug)]
pub enum Start<'a> {
    /// The quasi-one-dimensional cold start (`PreparedCascade::cold_start`).
    Cold,
    /// A given flow on this mesh (a warm start from another design, a restart) and the density
    /// residual its orders count from: it converges to that absolute level, not N orders below
    /// its own, already small, first residual. `restart`: the flow is this solve's own,
    /// continued (`turbopt solve --restart`), so it is never dropped for the cold start as
    /// configured (`Remedy::ColdStartAsConfigured`, which is for another design's flow).
    Given { solution: &'a Solution, residual_reference: f64, restart: bool },
}

/// Why a solve stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The density residual dropped the configured orders.
    ResidualOrders,
    /// The figures stopped changing (`FigureConvergence`).
    SteadyFigures,
    /// The flow oscillates and its figures, averaged over whole periods, stopped changing
    /// (`PeriodicAverage`): the point's figures are those averages.
    Periodic,
    /// The iteration budget ran out.
    Budget,
    /// The caller's observer stopped it (Ctrl-C).
    Interrupted,
}

impl Stop {
    pub fn converged(self) -> bool {
        matches!(self, Stop::ResidualOrders | Stop::SteadyFigures | Stop::Periodic)
    }

    pub fn describe(self) -> &'static str {
        match self {
            Stop::ResidualOrders => "converged (residual orders)",
            Stop::SteadyFigures => "converged (steady figures)",
            Stop::Periodic => "periodic (figures averaged over whole periods)",
            Stop::Budget => "not converged (iteration budget)",
            Stop::Interrupted => "stopped by the caller",
        }
    }
}

/// A solved and post-processed point.
#[derive(Clone, Debug)]
pub struct PointSolve {
    /// The last solve of the successful attempt (its history counts from its own start).
    pub outcome: SolveOutcome,
    pub implicit: Option<ImplicitReport>,
    /// The figures of the final flow, or their averages over whole periods (`Stop::Periodic`).
    pub figures: PointFigures,
    pub stop: Stop,
    /// How the flow oscillated, when the point was answered as periodic.
    pub oscillation: Option<Oscillation>,
    /// Iterations of every attempt and phase.
    pub iterations: usize,
    pub attempts: Vec<Attempt>,
}

impl PointSolve {
    /// Whether the point has an answer under `settings`: a converged stop, or a budget stop
    /// whose residual dropped the `accept_orders` the settings accept.
    pub fn answered(&self, settings: &SolverSettings) -> bool {
        self.stop.converged() || super::figures::accepted_at_budget(settings.accept_orders, self.outcome.history.orders_dropped())
    }
}

/// A point that could not be solved: the last error, the iterations spent, every attempt.
#[derive(Clone, Debug)]
pub struct PointFailure {
    pub error: PointError,
    pub iterations: usize,
    pub attempts: Vec<Attempt>,
}

#[derive(Clone, Debug, thiserror::Error)]
pub enum PointError {
    /// The solver failed (diverged, non-physical, bad case...).
    #[error("{0}")]
    Solver(String, #[source] std::sync::Arc<Error>),
    /// The flow gave no figures.
    #[error("{0}")]
    Figures(#[from] CascadeError),
}

impl PointError {
    /// Whether the solver diverged (blow-up, NaN, non-physical steps).
    pub fn diverged(&self) -> bool {
        matches!(self, PointError::Solver(_, e) if matches!(**e, Error::Diverged { .. }))
    }

    /// The solver's error, when it was one.
    pub fn solver_error(&self) -> Option<&Error> {
        match self {
            PointError::Solver(_, e) => Some(e),
            PointError::Figures(_) => None,
        }
    }
}

impl From<Error> for PointError {
    fn from(e: Error) -> Self {
        PointError::Solver(e.to_string(), std::sync::Arc::new(e))
    }
}

/// What one point's solve is given.
pub struct PointRun<'a> {
    pub prepared: &'a PreparedCascade,
    pub op: &'a OperatingPoint,
    pub settings: &'a SolverSettings,
    /// Figures watched for convergence besides the headline ones (the evaluator's objectives).
    pub extras: WatchedExtras<'a>,
}

/// Solves one point from `start` on `backend`, through the recovery chain: attempt 1 as
/// configured; after a divergence the next applicable remedy is added and the point solved
/// again; a solve started from another design's flow that stops at its budget unanswered is
/// solved once more from the cold start as configured (when the chain has
/// `Remedy::ColdStartAsConfigured`; never for a restart), and keeps its own result unless that
/// one answers. The cold start as configured, reached either way, is a new chain: where it
/// diverges, the chain's other remedies are added to it in turn, as for a solve that started
/// cold. `progress` sees every iteration of every attempt (a stop from it ends the solve).
pub fn solve_point<B: ImplicitBackend>(backend: &B, run: &PointRun, start: Start, progress: &mut dyn Observer) -> std::result::Result<PointSolve, PointFailure> {
    let first = Plan::as_configured(run.settings.solver_config(), matches!(start, Start::Cold));
    let first = if matches!(start, Start::Given { restart: true, .. }) { first.restarting() } else { first };
    let mut plan = first.clone();
    let chain = &run.settings.recovery;
    // The chain's remedies still to try, the next one last.
    let mut remedies: Vec<Remedy> = chain.iter().rev().copied().collect();
    let (mut attempts, mut iterations) = (Vec::new(), 0);
    // A solve started from another design's flow that stops at its budget unanswered (nor
    // accepted by `accept_orders`) is tried once more from the cold start as configured, when
    // the chain has that remedy.
    let mut cold_retry = chain.contains(&Remedy::ColdStartAsConfigured).then(|| first.with(Remedy::ColdStartAsConfigured)).flatten();
    let mut unanswered: Option<PointSolve> = None;
    loop {
        let (result, spent) = attempt(backend, run, &plan, start, progress);
        iterations += spent;
        let outcome_text = match &result {
            Ok(p) => format!("{} after {spent} iterations", p.stop.describe()),
            Err(e) => e.to_string(),
        };
        attempts.push(super::recovery::Attempt { point: run.op.name.clone(), remedies: plan.remedies.clone(), iterations: spent, result: outcome_text });
        if plan.remedies == [Remedy::ColdStartAsConfigured] {
            // The cold start as configured begins a new chain of the other remedies (itself no
            // longer applies: the plan starts cold).
            cold_retry = None;
            remedies = chain.iter().rev().copied().collect();
        }
        match result {
            Ok(solved) if solved.stop == Stop::Budget && !solved.answered(run.settings) && unanswered.is_none() && cold_retry.is_some() => {
                unanswered = Some(solved);
                plan = cold_retry.take().unwrap_or(plan);
            }
            // The cold retry of a budget stop: its answer if it has one, else the first solve's.
            Ok(solved) if !solved.stop.converged() && solved.stop != Stop::Interrupted => {
                let kept = unanswered.take().unwrap_or(solved);
                return Ok(PointSolve { iterations, attempts, ..kept });
            }
            Ok(solved) => return Ok(PointSolve { iterations, attempts, ..solved }),
            Err(error) => {
                // After a divergence, the next remedy that applies; else the budget stop kept
                // for the cold retry, or the failure.
                let next = error.diverged().then(|| std::iter::from_fn(|| remedies.pop()).find_map(|r| plan.with(r))).flatten();
                match (next, unanswered.take()) {
                    (Some(next), kept) => (plan, unanswered) = (next, kept),
                    (None, Some(kept)) => return Ok(PointSolve { iterations, attempts, ..kept }),
                    (None, None) => return Err(PointFailure { error, iterations, attempts }),
                }
            }
        }
    }
}

/// One attempt of `plan`: its prelude, the main solve with the figure watch, post-processing.
/// Returns the result and the iterations it spent.
fn attempt<B: ImplicitBackend>(
    backend: &B,
    run: &PointRun,
    plan: &Plan,
    start: Start,
    progress: &mut dyn Observer,
) -> (std::result::Result<PointSolve, PointError>, usize) {
    let cold;
    let (mut initial, mut reference) = match start {
        Start::Given { solution, residual_reference, .. } if !plan.cold => (solution, Some(residual_reference)),
        _ => {
            cold = run.prepared.cold_start(run.op);
            (&cold, None)
        }
    };
    let mut spent = 0;
    let prelude_flow;
    if let Some(prelude) = &plan.prelude {
        let config = SolverConfig { residual_reference: reference, ..prelude.config.clone() };
        match crate::solver::solve_case(backend, &run.prepared.mesh, case(run, config), initial, progress) {
            Ok((outcome, _)) => {
                spent += outcome.iterations;
                // The main solve counts its orders from where the prelude started.
                reference = Some(outcome.history.density_reference());
                prelude_flow = outcome.solution;
                initial = &prelude_flow;
            }
            Err(e) => return failed(e, spent),
        }
    }
    // The solver gets the budget extension on top of the budget; the watch stops it at the
    // budget unless it is near an answer there.
    let budget = plan.config.max_iterations;
    let extension = run.settings.figures.map_or(0, |f| f.budget_extension);
    let config = SolverConfig { residual_reference: reference, max_iterations: budget + extension, ..plan.config.clone() };
    let max_iterations = config.max_iterations;
    let mut watch = FigureWatch::new(run.prepared, run.op, run.settings.figures, run.extras, reference, progress);
    if extension > 0 {
        watch = watch.with_budget(budget, run.settings.accept_orders);
    }
    let (outcome, implicit) = match crate::solver::solve_case(backend, &run.prepared.mesh, case(run, config), initial, &mut watch) {
        Ok(solved) => solved,
        Err(e) => return failed(e, spent),
    };
    spent += outcome.iterations;
    let (stop, periodic) = if outcome.converged {
        (Stop::ResidualOrders, None)
    } else if watch.steady_at.is_some() {
        (Stop::SteadyFigures, None)
    } else if let Some(answer) = watch.periodic.take() {
        (Stop::Periodic, Some(answer))
    } else if watch.budget_reached || outcome.iterations >= max_iterations {
        (Stop::Budget, None)
    } else {
        (Stop::Interrupted, None)
    };
    let (figures, oscillation) = match periodic {
        Some(answer) => (answer.figures, Some(answer.oscillation)),
        None => match run.prepared.figures(run.op, &outcome.solution) {
            Ok(f) => (f, None),
            Err(e) => return (Err(e.into()), spent),
        },
    };
    let solved = PointSolve { iterations: spent, outcome, implicit, figures, stop, oscillation, attempts: vec![] };
    (Ok(solved), spent)
}

/// The case of `run` with `config`.
pub(super) fn case(run: &PointRun, config: SolverConfig) -> Case {
    Case { gas: run.prepared.gas, operating_point: run.op.clone(), solver: config }
}

/// A failed attempt: the error and the iterations spent, those of the failed solve included.
fn failed(e: Error, spent: usize) -> (std::result::Result<PointSolve, PointError>, usize) {
    let n = spent + failed_at(&e);
    (Err(e.into()), n)
}

/// Iterations a failed solve spent (the iteration it diverged at).
fn failed_at(e: &Error) -> usize {
    match e {
        Error::Diverged { iteration, .. } => *iteration,
        _ => 0,
    }
}
