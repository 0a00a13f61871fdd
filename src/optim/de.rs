//! Differential evolution (Storn & Price 1997) as an argmin [`Solver`].
//!
//! Generation-synchronous ("deferred") updates: all trial vectors of a generation are built from
//! the current population and sent to the evaluator as ONE batch (`bulk_cost`, which
//! [`EvaluatorProblem`] maps onto [`Evaluator::evaluate_batch`]), so a CFD evaluator can run them
//! all at once. Selection follows Deb's feasibility rules ([`Scored::deb_cmp`]); failed
//! evaluations stay in the run as infeasible individuals with their reason.
//!
//! Mutation strategies: rand/1/bin, best/1/bin, current-to-best/1/bin. Control parameters:
//! fixed, dithered F (a new F per generation, as scipy does), or self-adaptive jDE (Brest et
//! al. 2006, "Self-adapting control parameters in differential evolution", IEEE TEC 10(6)):
//! every individual carries its own F and CR, regenerated with probability tau before it
//! breeds, and kept when its trial survives.

use argmin::core::{
    CostFunction, Error as ArgminError, Executor, PopulationState, Problem, Solver, State, TerminationReason,
    TerminationStatus, KV,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

use super::lhs::{latin_hypercube, scale_to_box};
use super::{Scored, Selection};
use crate::error::{Error, Result};
use crate::eval::Evaluator;

/// How the mutant vector is built from the population.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Strategy {
    /// v = x_r1 + F (x_r2 - x_r3): explorative, the classic DE.
    Rand1Bin,
    /// v = x_best + F (x_r1 - x_r2): greedy, fast on unimodal valleys.
    Best1Bin,
    /// v = x_i + F (x_best - x_i) + F (x_r1 - x_r2): between the two.
    CurrentToBest1Bin,
}

/// Mutation scale factor F and crossover rate CR.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Control {
    Fixed { f: f64, cr: f64 },
    /// A new F drawn uniformly in `[f_min, f_max)` every generation (scipy's `mutation=(a, b)`).
    Dither { f_min: f64, f_max: f64, cr: f64 },
    /// jDE self-adaptation: with probability `tau_f` an individual's F is redrawn in
    /// `[f_min, f_max)`, with probability `tau_cr` its CR is redrawn in `[0, 1)`.
    Jde { tau_f: f64, tau_cr: f64, f_min: f64, f_max: f64 },
}

impl Control {
    /// jDE with the constants of Brest et al. (tau = 0.1, F in [0.1, 1.0]).
    pub fn jde() -> Self {
        Control::Jde { tau_f: 0.1, tau_cr: 0.1, f_min: 0.1, f_max: 1.0 }
    }
}

/// What to do with a mutant component outside the box.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundHandling {
    /// Halfway between the parent's value and the violated bound (as in JADE/SHADE): keeps
    /// the search near a bound without piling individuals onto it.
    MidpointToBound,
    /// Mirror the excess back into the box (clamped if it overshoots the far side).
    Reflection,
}

/// Differential evolution settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeSettings {
    /// Population size (at least 4; 5-10 times the dimension is usual).
    pub population: usize,
    pub strategy: Strategy,
    pub control: Control,
    pub bounds: BoundHandling,
    /// Evaluation budget, counting the initial population.
    pub max_evaluations: usize,
    /// Stop once the best feasible objective is at or below this value.
    #[serde(default)]
    pub target: Option<f64>,
    pub seed: u64,
    /// Designs placed in the initial population (e.g. the baseline); the rest is a Latin hypercube.
    #[serde(default)]
    pub initial: Vec<Vec<f64>>,
}

impl DeSettings {
    /// Defaults that solve the analytic benchmarks: jDE on current-to-best/1/bin, a population of
    /// 4 per dimension (at least 20; 4 beat 5-7 per dimension on Rosenbrock-10D and Rastrigin-10D
    /// over 20 held-out seeds), midpoint-to-bound.
    pub fn for_dimension(dim: usize, max_evaluations: usize, seed: u64) -> Self {
        DeSettings {
            population: (4 * dim).max(20),
            strategy: Strategy::CurrentToBest1Bin,
            control: Control::jde(),
            bounds: BoundHandling::MidpointToBound,
            max_evaluations,
            target: None,
            seed,
            initial: Vec::new(),
        }
    }

    fn validate(&self, dim: usize) -> Result<()> {
        let bad = |m: String| Err(Error::Other(format!("differential evolution: {m}")));
        if self.population < 4 {
            return bad(format!("population {} is below the minimum of 4", self.population));
        }
        if self.max_evaluations < self.population {
            return bad(format!("budget {} is smaller than the population {}", self.max_evaluations, self.population));
        }
        let unit = |v: f64| (0.0..=1.0).contains(&v);
        let ok = match self.control {
            Control::Fixed { f, cr } => f > 0.0 && f <= 2.0 && unit(cr),
            Control::Dither { f_min, f_max, cr } => 0.0 < f_min && f_min <= f_max && f_max <= 2.0 && unit(cr),
            Control::Jde { tau_f, tau_cr, f_min, f_max } => unit(tau_f) && unit(tau_cr) && 0.0 < f_min && f_min <= f_max,
        };
        if !ok {
            return bad(format!("control parameters out of range: {:?}", self.control));
        }
        if let Some(d) = self.initial.iter().find(|d| d.len() != dim) {
            return bad(format!("initial design has {} variables, the problem {dim}", d.len()));
        }
        Ok(())
    }
}

/// One individual: its design, its score, and (jDE) its own control parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Member {
    pub x: Vec<f64>,
    pub score: Scored,
    pub f: f64,
    pub cr: f64,
}

/// The argmin solver. Build with [`DifferentialEvolution::new`], run with argmin's `Executor`
/// (or [`minimize`], which does that and collects a [`DeOutcome`]).
pub struct DifferentialEvolution {
    lower: Vec<f64>,
    upper: Vec<f64>,
    settings: DeSettings,
    rng: ChaCha8Rng,
    evaluations: usize,
    best: Option<Member>,
    /// (evaluation number, best feasible objective) at every improvement.
    history: Vec<(usize, f64)>,
}

impl DifferentialEvolution {
    pub fn new(lower: Vec<f64>, upper: Vec<f64>, settings: DeSettings) -> Result<Self> {
        if lower.len() != upper.len() || lower.is_empty() {
            return Err(Error::Other(format!("bounds of lengths {} and {}", lower.len(), upper.len())));
        }
        if let Some(i) = (0..lower.len()).find(|&i| !(lower[i] < upper[i]) || !lower[i].is_finite() || !upper[i].is_finite()) {
            return Err(Error::Other(format!("variable {i}: bounds [{}, {}] are not a finite interval", lower[i], upper[i])));
        }
        settings.validate(lower.len())?;
        let rng = ChaCha8Rng::seed_from_u64(settings.seed);
        Ok(DifferentialEvolution { lower, upper, settings, rng, evaluations: 0, best: None, history: Vec::new() })
    }

    pub fn evaluations(&self) -> usize {
        self.evaluations
    }
    pub fn history(&self) -> &[(usize, f64)] {
        &self.history
    }
    pub fn best(&self) -> Option<&Member> {
        self.best.as_ref()
    }

    fn initial_control(&self) -> (f64, f64) {
        match self.settings.control {
            Control::Fixed { f, cr } => (f, cr),
            Control::Dither { f_min, f_max, cr } => (0.5 * (f_min + f_max), cr),
            // Brest et al. start every individual at F = 0.5, CR = 0.9.
            Control::Jde { .. } => (0.5, 0.9),
        }
    }

    fn initial_designs(&mut self) -> Vec<Vec<f64>> {
        let np = self.settings.population;
        let mut designs: Vec<Vec<f64>> = latin_hypercube(np, self.lower.len(), &mut self.rng)
            .iter()
            .map(|u| scale_to_box(u, &self.lower, &self.upper))
            .collect();
        for (slot, given) in designs.iter_mut().zip(&self.settings.initial) {
            *slot = given.iter().zip(self.lower.iter().zip(&self.upper)).map(|(v, (l, h))| v.clamp(*l, *h)).collect();
        }
        designs
    }

    /// Record scores in evaluation order: counts, improvement history, best-so-far (Deb).
    fn account(&mut self, members: &[Member]) {
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

    /// Three distinct population indices, all different from `i`.
    fn distinct_indices(&mut self, np: usize, i: usize) -> [usize; 3] {
        let mut r = [usize::MAX; 3];
        for k in 0..3 {
            loop {
                let c = self.rng.random_range(0..np);
                if c != i && !r[..k].contains(&c) {
                    r[k] = c;
                    break;
                }
            }
        }
        r
    }

    /// F and CR for the trial of a parent (jDE: possibly redrawn).
    fn trial_control(&mut self, parent: &Member, generation_f: f64) -> (f64, f64) {
        match self.settings.control {
            Control::Fixed { f, cr } => (f, cr),
            Control::Dither { cr, .. } => (generation_f, cr),
            Control::Jde { tau_f, tau_cr, f_min, f_max } => {
                let f = if self.rng.random::<f64>() < tau_f { f_min + self.rng.random::<f64>() * (f_max - f_min) } else { parent.f };
                let cr = if self.rng.random::<f64>() < tau_cr { self.rng.random::<f64>() } else { parent.cr };
                (f, cr)
            }
        }
    }

    fn trial(&mut self, pop: &[Member], i: usize, best: usize, f: f64, cr: f64) -> Vec<f64> {
        let [r1, r2, r3] = self.distinct_indices(pop.len(), i);
        let x = |k: usize| &pop[k].x;
        let dim = self.lower.len();
        let mutant: Vec<f64> = (0..dim)
            .map(|j| match self.settings.strategy {
                Strategy::Rand1Bin => x(r1)[j] + f * (x(r2)[j] - x(r3)[j]),
                Strategy::Best1Bin => x(best)[j] + f * (x(r1)[j] - x(r2)[j]),
                Strategy::CurrentToBest1Bin => x(i)[j] + f * (x(best)[j] - x(i)[j]) + f * (x(r1)[j] - x(r2)[j]),
            })
            .collect();
        // Binomial crossover; j_rand guarantees the trial differs from its parent.
        let j_rand = self.rng.random_range(0..dim);
        (0..dim)
            .map(|j| {
                let v = if j == j_rand || self.rng.random::<f64>() < cr { mutant[j] } else { x(i)[j] };
                self.into_bounds(v, x(i)[j], j)
            })
            .collect()
    }

    fn into_bounds(&self, v: f64, parent: f64, j: usize) -> f64 {
        let (lo, hi) = (self.lower[j], self.upper[j]);
        if (lo..=hi).contains(&v) {
            return v;
        }
        match self.settings.bounds {
            BoundHandling::MidpointToBound => {
                if v < lo {
                    0.5 * (parent + lo)
                } else {
                    0.5 * (parent + hi)
                }
            }
            BoundHandling::Reflection => {
                let r = if v < lo { lo + (lo - v) } else { hi - (v - hi) };
                r.clamp(lo, hi)
            }
        }
    }

    fn best_index(pop: &[Member]) -> usize {
        (0..pop.len()).min_by(|&a, &b| pop[a].score.deb_cmp(&pop[b].score)).unwrap_or(0)
    }

    fn state_cost(m: &Member) -> f64 {
        if m.score.is_feasible() {
            m.score.objective
        } else {
            f64::INFINITY
        }
    }
}

type DeState = PopulationState<Member, f64>;

fn argmin_err(e: impl std::fmt::Display) -> ArgminError {
    ArgminError::msg(e.to_string())
}

impl<O> Solver<O, DeState> for DifferentialEvolution
where
    O: CostFunction<Param = Vec<f64>, Output = Scored>,
{
    fn name(&self) -> &str {
        "Differential evolution"
    }

    fn init(&mut self, problem: &mut Problem<O>, mut state: DeState) -> std::result::Result<(DeState, Option<KV>), ArgminError> {
        let np = self.settings.population;
        let pop = match state.take_population() {
            Some(p) if p.len() == np => p,
            Some(p) => return Err(argmin_err(format!("given population has {} members, expected {np}", p.len()))),
            None => {
                let designs = self.initial_designs();
                let scores = problem.bulk_cost(&designs)?;
                let (f, cr) = self.initial_control();
                let pop: Vec<Member> =
                    designs.into_iter().zip(scores).map(|(x, score)| Member { x, score, f, cr }).collect();
                self.account(&pop);
                pop
            }
        };
        let best = pop[Self::best_index(&pop)].clone();
        let cost = Self::state_cost(&best);
        Ok((state.individual(best).cost(cost).population(pop), None))
    }

    fn next_iter(&mut self, problem: &mut Problem<O>, mut state: DeState) -> std::result::Result<(DeState, Option<KV>), ArgminError> {
        let mut pop = state.take_population().ok_or_else(|| argmin_err("no population in state"))?;
        let best = Self::best_index(&pop);
        let generation_f = match self.settings.control {
            Control::Dither { f_min, f_max, .. } => f_min + self.rng.random::<f64>() * (f_max - f_min),
            _ => 0.0,
        };
        // The last generation may be cut short by the budget; parents without a trial survive.
        let n_trials = pop.len().min(self.settings.max_evaluations.saturating_sub(self.evaluations));
        let mut trials = Vec::with_capacity(n_trials);
        let mut controls = Vec::with_capacity(n_trials);
        for i in 0..n_trials {
            let (f, cr) = self.trial_control(&pop[i], generation_f);
            trials.push(self.trial(&pop, i, best, f, cr));
            controls.push((f, cr));
        }
        let scores = problem.bulk_cost(&trials)?;
        let offspring: Vec<Member> = trials
            .into_iter()
            .zip(scores)
            .zip(controls)
            .map(|((x, score), (f, cr))| Member { x, score, f, cr })
            .collect();
        self.account(&offspring);
        // Deferred selection: a trial replaces its parent when it is at least as good (Deb).
        for (i, child) in offspring.into_iter().enumerate() {
            if !child.score.deb_cmp(&pop[i].score).is_gt() {
                pop[i] = child;
            }
        }
        let best = pop[Self::best_index(&pop)].clone();
        let cost = Self::state_cost(&best);
        Ok((state.individual(best).cost(cost).population(pop), None))
    }

    fn terminate(&mut self, _state: &DeState) -> TerminationStatus {
        if self.evaluations >= self.settings.max_evaluations {
            return TerminationStatus::Terminated(TerminationReason::SolverExit("evaluation budget spent".into()));
        }
        if let (Some(target), Some(&(_, best))) = (self.settings.target, self.history.last()) {
            if best <= target {
                return TerminationStatus::Terminated(TerminationReason::TargetCostReached);
            }
        }
        TerminationStatus::NotTerminated
    }
}

/// An [`Evaluator`] seen through a [`Selection`] as an argmin cost function. `bulk_cost` is one
/// `evaluate_batch` call, so a DE generation is one batch.
pub struct EvaluatorProblem<'a> {
    evaluator: &'a dyn Evaluator,
    selection: Selection,
    batches: AtomicUsize,
}

impl<'a> EvaluatorProblem<'a> {
    pub fn new(evaluator: &'a dyn Evaluator, selection: Selection) -> Self {
        EvaluatorProblem { evaluator, selection, batches: AtomicUsize::new(0) }
    }
    /// Number of `evaluate_batch` calls made so far.
    pub fn batches(&self) -> usize {
        self.batches.load(AtomicOrdering::Relaxed)
    }
}

impl CostFunction for EvaluatorProblem<'_> {
    type Param = Vec<f64>;
    type Output = Scored;

    fn cost(&self, param: &Vec<f64>) -> std::result::Result<Scored, ArgminError> {
        Ok(self.selection.score(&self.evaluator.evaluate(param)))
    }

    fn bulk_cost<P>(&self, params: &[P]) -> std::result::Result<Vec<Scored>, ArgminError>
    where
        P: std::borrow::Borrow<Vec<f64>> + argmin::core::SyncAlias,
        Scored: argmin::core::SendAlias,
        Self: argmin::core::SyncAlias,
    {
        let designs: Vec<Vec<f64>> = params.iter().map(|p| p.borrow().clone()).collect();
        self.batches.fetch_add(1, AtomicOrdering::Relaxed);
        let evaluations = self.evaluator.evaluate_batch(&designs);
        if evaluations.len() != designs.len() {
            return Err(argmin_err(format!("evaluator returned {} results for {} designs", evaluations.len(), designs.len())));
        }
        Ok(evaluations.iter().map(|e| self.selection.score(e)).collect())
    }
}

/// Result of a DE run.
#[derive(Clone, Debug, PartialEq)]
pub struct DeOutcome {
    /// Best design by Deb's rules (feasible if any feasible design was found).
    pub best_design: Vec<f64>,
    pub best: Scored,
    pub evaluations: usize,
    pub generations: u64,
    /// (evaluation number, best feasible objective) at every improvement.
    pub history: Vec<(usize, f64)>,
    /// Evaluation number at which `target` was first reached, if it was set and reached.
    pub evaluations_to_target: Option<usize>,
    pub termination: String,
}

/// Run DE on a cost function within `[lower, upper]` through argmin's `Executor`.
pub fn minimize<O>(problem: O, lower: &[f64], upper: &[f64], settings: &DeSettings) -> Result<DeOutcome>
where
    O: CostFunction<Param = Vec<f64>, Output = Scored>,
{
    let solver = DifferentialEvolution::new(lower.to_vec(), upper.to_vec(), settings.clone())?;
    let result = Executor::new(problem, solver)
        .timer(false)
        .run()
        .map_err(|e| Error::Other(format!("differential evolution: {e}")))?;
    let generations = result.state().get_iter();
    let termination = result
        .state()
        .get_termination_reason()
        .map(|r| r.text().to_string())
        .unwrap_or_else(|| "not terminated".into());
    let solver = result.solver();
    let best = solver.best().cloned().ok_or_else(|| Error::Other("differential evolution evaluated nothing".into()))?;
    let evaluations_to_target =
        settings.target.and_then(|t| solver.history().iter().find(|&&(_, v)| v <= t).map(|&(n, _)| n));
    Ok(DeOutcome {
        best_design: best.x,
        best: best.score,
        evaluations: solver.evaluations(),
        generations,
        history: solver.history().to_vec(),
        evaluations_to_target,
        termination,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem, BraninFailingRight};
    use crate::eval::Evaluation;

    /// Counts batch calls so the one-batch-per-generation contract is checked.
    struct Counting<E>(E, AtomicUsize);
    impl<E: Evaluator> Evaluator for Counting<E> {
        fn space(&self) -> &crate::eval::DesignSpace {
            self.0.space()
        }
        fn objective_names(&self) -> Vec<String> {
            self.0.objective_names()
        }
        fn constraint_names(&self) -> Vec<String> {
            self.0.constraint_names()
        }
        fn evaluate(&self, d: &[f64]) -> Evaluation {
            self.0.evaluate(d)
        }
        fn evaluate_batch(&self, d: &[Vec<f64>]) -> Vec<Evaluation> {
            self.1.fetch_add(1, AtomicOrdering::Relaxed);
            self.0.evaluate_batch(d)
        }
    }

    fn run(problem: AnalyticProblem, settings: &DeSettings) -> (DeOutcome, usize) {
        let e = Counting(AnalyticEvaluator::new(problem).unwrap(), AtomicUsize::new(0));
        let s = e.space().clone();
        let out = minimize(EvaluatorProblem::new(&e, Selection::default()), &s.lower, &s.upper, settings).unwrap();
        (out, e.1.load(AtomicOrdering::Relaxed))
    }

    #[test]
    fn one_batch_per_generation_and_exact_budget() {
        let mut st = DeSettings::for_dimension(2, 1000, 1);
        st.population = 30;
        let (out, batches) = run(AnalyticProblem::Branin, &st);
        assert_eq!(out.evaluations, 1000);
        // 30 initial + 32 full generations of 30 + one cut short to 10.
        assert_eq!(batches, 1 + 33);
        assert_eq!(out.generations, 33);
        assert!((out.best.objective - 0.397887).abs() < 1e-6, "{}", out.best.objective);
    }

    #[test]
    fn same_seed_same_run_and_every_strategy_works() {
        for strategy in [Strategy::Rand1Bin, Strategy::Best1Bin, Strategy::CurrentToBest1Bin] {
            for control in [Control::Fixed { f: 0.7, cr: 0.9 }, Control::Dither { f_min: 0.5, f_max: 1.0, cr: 0.7 }, Control::jde()] {
                for bounds in [BoundHandling::MidpointToBound, BoundHandling::Reflection] {
                    let st = DeSettings { strategy, control, bounds, ..DeSettings::for_dimension(2, 4000, 7) };
                    let (a, _) = run(AnalyticProblem::Branin, &st);
                    let (b, _) = run(AnalyticProblem::Branin, &st);
                    assert_eq!(a, b);
                    assert!(a.best.objective < 0.3979, "{strategy:?} {control:?} {bounds:?}: {}", a.best.objective);
                }
            }
        }
    }


    #[test]
    fn failed_evaluations_are_infeasible_not_fatal() {
        let e = BraninFailingRight::new();
        let s = e.space().clone();
        let st = DeSettings::for_dimension(2, 1500, 3);
        let out = minimize(EvaluatorProblem::new(&e, Selection::default()), &s.lower, &s.upper, &st).unwrap();
        // Best of the two minima left of x1 = 5.
        assert!(out.best.is_feasible() && out.best_design[0] <= 5.0);
        assert!((out.best.objective - 0.397887).abs() < 1e-5, "{}", out.best.objective);
    }

    #[test]
    fn bad_settings_are_errors() {
        let e = AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap();
        let mut st = DeSettings::for_dimension(2, 10, 0);
        assert!(minimize(EvaluatorProblem::new(&e, Selection::default()), &[0.0, 0.0], &[1.0, 1.0], &st).is_err());
        st.max_evaluations = 1000;
        assert!(minimize(EvaluatorProblem::new(&e, Selection::default()), &[0.0, 2.0], &[1.0, 1.0], &st).is_err());
        st.control = Control::Fixed { f: 0.5, cr: 1.5 };
        assert!(minimize(EvaluatorProblem::new(&e, Selection::default()), &[0.0, 0.0], &[1.0, 1.0], &st).is_err());
    }
}
