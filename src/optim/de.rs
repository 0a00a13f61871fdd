//! Differential evolution (Storn & Price 1997) as an argmin [`Solver`].
//!
//! Generation-synchronous ("deferred") updates: all trial vectors of a generation are built from
//! the current population and sent to the problem as ONE batch (`bulk_cost`, which
//! [`EvaluatorProblem`] maps onto `Evaluator::evaluate_batch`), so a CFD
//! evaluator can run them all at once. Selection follows Deb's feasibility rules
//! ([`Scored::deb_cmp`]); failed evaluations stay in the run as infeasible individuals.
//!
//! The default ([`DeSettings::for_dimension`], [`Variant::LShade`]) is L-SHADE (Tanabe &
//! Fukunaga 2014): current-to-pbest/1/bin with an external archive (JADE, Zhang & Sanderson
//! 2009), F and CR drawn around a success-history memory (SHADE, Tanabe & Fukunaga 2013), and a
//! population that shrinks linearly from 18 D to 4 over the budget. It keeps no strategy tuned
//! to one problem class, which is why it is the default. The earlier default, self-adaptive jDE
//! (Brest et al. 2006) on current-to-best/1/bin, stays available as [`Variant::Jde`]; the other
//! classic strategies (rand/1, best/1) and fixed or dithered F are there as building blocks.
//!
//! The bounds come from the problem ([`Bounded`]); a mutant component outside the box is put
//! halfway between its parent and the bound (JADE, SHADE) or reflected.

use argmin::core::{
    CostFunction, Error as ArgminError, Problem, Solver, TerminationReason, TerminationStatus, KV,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::lhs::latin_hypercube;
use super::problem::{bounds_of, Bounded};
use super::run::{Progress, Reports};
use super::shade::{Archive, SuccessMemory};
use super::{Bounds, Member, OptimError, OptimState, Scored};

pub use super::problem::EvaluatorProblem;

/// How the mutant vector is built from the population.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Strategy {
    /// v = x_r1 + F (x_r2 - x_r3): explorative, the classic DE.
    Rand1Bin,
    /// v = x_best + F (x_r1 - x_r2): greedy, fast on unimodal valleys.
    Best1Bin,
    /// v = x_i + F (x_best - x_i) + F (x_r1 - x_r2): between the two.
    CurrentToBest1Bin,
    /// v = x_i + F (x_pbest - x_i) + F (x_r1 - x_r2), x_pbest one of the best `p` fraction of
    /// the population (at least two), x_r2 from the population or the archive (JADE).
    CurrentToPBest1Bin { p: f64 },
}

/// Mutation scale factor F and crossover rate CR.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParameterControl {
    Fixed { f: f64, cr: f64 },
    /// A new F drawn uniformly in `[f_min, f_max)` every generation (scipy's `mutation=(a, b)`).
    Dither { f_min: f64, f_max: f64, cr: f64 },
    /// jDE self-adaptation: with probability `tau_f` an individual's F is redrawn in
    /// `[f_min, f_max)`, with probability `tau_cr` its CR is redrawn in `[0, 1)`.
    Jde { tau_f: f64, tau_cr: f64, f_min: f64, f_max: f64 },
    /// SHADE's success-history adaptation with `memory` slots (L-SHADE: 6).
    SuccessHistory { memory: usize },
}

impl ParameterControl {
    /// jDE with the constants of Brest et al. (tau = 0.1, F in [0.1, 1.0]).
    pub fn jde() -> Self {
        ParameterControl::Jde { tau_f: 0.1, tau_cr: 0.1, f_min: 0.1, f_max: 1.0 }
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
    /// Onto the violated bound: a design whose optimum lies on a bound reaches it exactly.
    Clamp,
}

impl BoundHandling {
    /// Component `v` of a mutant brought into `[lo, hi]`; `parent` is the parent's value.
    pub fn apply(self, v: f64, parent: f64, lo: f64, hi: f64) -> f64 {
        if (lo..=hi).contains(&v) {
            return v;
        }
        match self {
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
            BoundHandling::Clamp => v.clamp(lo, hi),
        }
    }
}

/// The named DE variants: complete settings for a dimension and a budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Variant {
    /// L-SHADE (Tanabe & Fukunaga 2014): the default.
    LShade,
    /// SHADE (Tanabe & Fukunaga 2013): L-SHADE's operators without the population reduction.
    Shade,
    /// jDE on current-to-best/1/bin with a population of 4 D: the default before L-SHADE.
    Jde,
}

/// Differential evolution settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeSettings {
    /// (Initial) population size, at least 4.
    pub population: usize,
    pub strategy: Strategy,
    pub control: ParameterControl,
    pub bounds: BoundHandling,
    /// Archive capacity as a multiple of the current population (0: no archive).
    #[serde(default)]
    pub archive: f64,
    /// Linear population size reduction (L-SHADE): the population shrinks after every
    /// generation, linearly in the evaluations spent, to this size at the end of the budget.
    #[serde(default)]
    pub final_population: Option<usize>,
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
    /// The default: L-SHADE ([`Variant::LShade`]).
    pub fn for_dimension(dim: usize, max_evaluations: usize, seed: u64) -> Self {
        Self::variant(Variant::LShade, dim, max_evaluations, seed)
    }

    /// Settings of a named variant. L-SHADE and SHADE use the constants of Tanabe & Fukunaga
    /// 2014 (initial population 18 D, archive 2.6 times the population, p = 0.11, 6 memory
    /// slots, final population 4), with the population capped at a twentieth of the budget so
    /// that small budgets still get generations to adapt. jDE: population 4 D (at least 20).
    pub fn variant(variant: Variant, dim: usize, max_evaluations: usize, seed: u64) -> Self {
        let base = DeSettings {
            population: (18 * dim).min(max_evaluations / 20).max(4),
            strategy: Strategy::CurrentToPBest1Bin { p: 0.11 },
            control: ParameterControl::SuccessHistory { memory: 6 },
            bounds: BoundHandling::MidpointToBound,
            archive: 2.6,
            final_population: Some(4),
            max_evaluations,
            target: None,
            seed,
            initial: Vec::new(),
        };
        match variant {
            Variant::LShade => base,
            Variant::Shade => DeSettings { final_population: None, archive: 1.0, ..base },
            Variant::Jde => DeSettings {
                population: (4 * dim).max(20),
                strategy: Strategy::CurrentToBest1Bin,
                control: ParameterControl::jde(),
                archive: 0.0,
                final_population: None,
                ..base
            },
        }
    }

    pub(crate) fn validate(&self, dim: usize) -> Result<(), OptimError> {
        let bad = |reason: String| Err(OptimError::Settings { optimizer: "differential evolution", reason });
        if self.population < 4 {
            return bad(format!("population {} is below the minimum of 4", self.population));
        }
        if self.max_evaluations < self.population {
            return bad(format!("budget {} is smaller than the population {}", self.max_evaluations, self.population));
        }
        let unit = |v: f64| (0.0..=1.0).contains(&v);
        let ok = match self.control {
            ParameterControl::Fixed { f, cr } => f > 0.0 && f <= 2.0 && unit(cr),
            ParameterControl::Dither { f_min, f_max, cr } => 0.0 < f_min && f_min <= f_max && f_max <= 2.0 && unit(cr),
            ParameterControl::Jde { tau_f, tau_cr, f_min, f_max } => unit(tau_f) && unit(tau_cr) && 0.0 < f_min && f_min <= f_max,
            ParameterControl::SuccessHistory { memory } => memory > 0,
        };
        if !ok {
            return bad(format!("control parameters out of range: {:?}", self.control));
        }
        if let Strategy::CurrentToPBest1Bin { p } = self.strategy {
            if !(p > 0.0 && p <= 1.0) {
                return bad(format!("p = {p} must be in (0, 1]"));
            }
        }
        if !(self.archive >= 0.0 && self.archive.is_finite()) {
            return bad(format!("archive factor {} must be >= 0", self.archive));
        }
        if let Some(n) = self.final_population {
            if n < 4 || n > self.population {
                return bad(format!("final population {n} must be between 4 and the population {}", self.population));
            }
        }
        if let Some(d) = self.initial.iter().find(|d| d.len() != dim) {
            return bad(format!("initial design has {} variables, the problem {dim}", d.len()));
        }
        Ok(())
    }
}

/// The argmin solver. Build with [`DifferentialEvolution::new`], run with argmin's `Executor`
/// or [`minimize`](super::minimize). Serializable, so argmin can checkpoint it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DifferentialEvolution {
    settings: DeSettings,
    /// Set in `init` from the problem.
    bounds: Option<Bounds>,
    rng: ChaCha8Rng,
    progress: Progress,
    /// Every individual's (F, CR), aligned with the population (jDE keeps them between
    /// generations; the other controls overwrite them).
    controls: Vec<(f64, f64)>,
    memory: SuccessMemory,
    archive: Archive,
}

impl DifferentialEvolution {
    pub fn new(settings: DeSettings) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let memory = SuccessMemory::new(match settings.control {
            ParameterControl::SuccessHistory { memory } => memory,
            _ => 1,
        });
        let progress = Progress::new(settings.max_evaluations, settings.target);
        DifferentialEvolution { settings, bounds: None, rng, progress, controls: Vec::new(), memory, archive: Archive::default() }
    }

    pub fn settings(&self) -> &DeSettings {
        &self.settings
    }
    pub fn progress(&self) -> &Progress {
        &self.progress
    }

    fn bounds(&self) -> &Bounds {
        self.bounds.as_ref().expect("bounds are set in init")
    }

    fn initial_control(&self) -> (f64, f64) {
        match self.settings.control {
            ParameterControl::Fixed { f, cr } => (f, cr),
            ParameterControl::Dither { f_min, f_max, cr } => (0.5 * (f_min + f_max), cr),
            // Brest et al. start every individual at F = 0.5, CR = 0.9.
            ParameterControl::Jde { .. } => (0.5, 0.9),
            ParameterControl::SuccessHistory { .. } => (0.5, 0.5),
        }
    }

    fn initial_designs(&mut self) -> Vec<Vec<f64>> {
        let np = self.settings.population;
        let bounds = self.bounds().clone();
        bounds.initial_sample(&latin_hypercube(np, bounds.dim(), &mut self.rng), &self.settings.initial)
    }

    /// A random population index not in `exclude`.
    fn pick(&mut self, np: usize, exclude: &[usize]) -> usize {
        loop {
            let c = self.rng.random_range(0..np);
            if !exclude.contains(&c) {
                return c;
            }
        }
    }

    /// Three distinct population indices, all different from `i` (drawn the same way for the
    /// three classic strategies, so that their runs repeat those of earlier versions).
    fn distinct_indices(&mut self, np: usize, i: usize) -> [usize; 3] {
        let r1 = self.pick(np, &[i]);
        let r2 = self.pick(np, &[i, r1]);
        let r3 = self.pick(np, &[i, r1, r2]);
        [r1, r2, r3]
    }

    /// F and CR for the trial of individual `i`.
    fn trial_control(&mut self, i: usize, generation_f: f64) -> (f64, f64) {
        match self.settings.control {
            ParameterControl::Fixed { f, cr } => (f, cr),
            ParameterControl::Dither { cr, .. } => (generation_f, cr),
            ParameterControl::Jde { tau_f, tau_cr, f_min, f_max } => {
                let (pf, pcr) = self.controls[i];
                let f = if self.rng.random::<f64>() < tau_f { f_min + self.rng.random::<f64>() * (f_max - f_min) } else { pf };
                let cr = if self.rng.random::<f64>() < tau_cr { self.rng.random::<f64>() } else { pcr };
                (f, cr)
            }
            ParameterControl::SuccessHistory { .. } => self.memory.draw(&mut self.rng),
        }
    }

    /// The mutant vector of individual `i`; `ranked` lists the population best first (Deb).
    fn mutant(&mut self, pop: &[Member], i: usize, ranked: &[usize], f: f64) -> Vec<f64> {
        let np = pop.len();
        let x = |k: usize| pop[k].x.as_slice();
        match self.settings.strategy {
            Strategy::Rand1Bin => {
                let [r1, r2, r3] = self.distinct_indices(np, i);
                combine(x(r1), f, x(r2), x(r3), None)
            }
            Strategy::Best1Bin => {
                let [r1, r2, _] = self.distinct_indices(np, i);
                combine(x(ranked[0]), f, x(r1), x(r2), None)
            }
            Strategy::CurrentToBest1Bin => {
                let [r1, r2, _] = self.distinct_indices(np, i);
                combine(x(i), f, x(r1), x(r2), Some(x(ranked[0])))
            }
            Strategy::CurrentToPBest1Bin { p } => {
                let top = ((p * np as f64).round() as usize).clamp(2, np);
                let pbest = ranked[self.rng.random_range(0..top)];
                let r1 = self.pick(np, &[i]);
                // x_r2 from the union of population and archive, distinct from i and r1.
                let r2 = loop {
                    let c = self.rng.random_range(0..np + self.archive.len());
                    if c != i && c != r1 {
                        break c;
                    }
                };
                let far = if r2 < np { x(r2).to_vec() } else { self.archive.get(r2 - np).to_vec() };
                combine(x(i), f, x(r1), &far, Some(x(pbest)))
            }
        }
    }

    /// Binomial crossover of the mutant with parent `i`, then the bound handling.
    fn trial(&mut self, pop: &[Member], i: usize, ranked: &[usize], f: f64, cr: f64) -> Vec<f64> {
        let mutant = self.mutant(pop, i, ranked, f);
        let dim = mutant.len();
        // j_rand guarantees the trial differs from its parent.
        let j_rand = self.rng.random_range(0..dim);
        (0..dim)
            .map(|j| {
                let v = if j == j_rand || self.rng.random::<f64>() < cr { mutant[j] } else { pop[i].x[j] };
                self.within_bounds(v, pop[i].x[j], j)
            })
            .collect()
    }

    fn within_bounds(&self, v: f64, parent: f64, j: usize) -> f64 {
        self.settings.bounds.apply(v, parent, self.bounds().lower()[j], self.bounds().upper()[j])
    }

    /// Population indices best first by Deb's rules.
    fn ranking(pop: &[Member]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..pop.len()).collect();
        order.sort_by(|&a, &b| pop[a].score.deb_cmp(&pop[b].score));
        order
    }

    /// Deferred selection: a trial replaces its parent when it is at least as good (Deb). A
    /// strictly better trial sends its parent to the archive and its (F, CR) to the memory.
    fn select(&mut self, pop: &mut [Member], offspring: Vec<Member>, controls: &[(f64, f64)]) {
        let mut successes = Vec::new();
        for (i, child) in offspring.into_iter().enumerate() {
            let order = child.score.deb_cmp(&pop[i].score);
            if order.is_lt() {
                successes.push((controls[i].0, controls[i].1, improvement(&pop[i].score, &child.score)));
                if self.settings.archive > 0.0 {
                    self.archive.push(pop[i].x.clone());
                }
            }
            if !order.is_gt() {
                pop[i] = child;
                self.controls[i] = controls[i];
            }
        }
        if matches!(self.settings.control, ParameterControl::SuccessHistory { .. }) {
            self.memory.update(&successes);
        }
    }

    /// L-SHADE's linear population size reduction: drop the worst individuals down to the
    /// size that the evaluations spent call for, then the archive down to its capacity.
    fn reduce(&mut self, pop: &mut Vec<Member>) {
        if let Some(n_min) = self.settings.final_population {
            let (n0, budget) = (self.settings.population as f64, self.settings.max_evaluations as f64);
            let spent = self.progress.evaluations() as f64;
            let target = ((n_min as f64 - n0) / budget * spent + n0).round().max(n_min as f64) as usize;
            if target < pop.len() {
                let keep: Vec<usize> = Self::ranking(pop).into_iter().take(target).collect();
                let mut keep_sorted = keep;
                keep_sorted.sort_unstable();
                *pop = keep_sorted.iter().map(|&k| pop[k].clone()).collect();
                self.controls = keep_sorted.iter().map(|&k| self.controls[k]).collect();
            }
        }
        let capacity = (self.settings.archive * pop.len() as f64).round() as usize;
        self.archive.shrink_to(capacity, &mut self.rng);
    }

    fn publish(&self, state: OptimState, pop: Vec<Member>) -> OptimState {
        let best = pop.iter().min_by(|a, b| a.score.deb_cmp(&b.score)).cloned().expect("population is not empty");
        let cost = state_cost(&best);
        state.individual(best).cost(cost).population(pop)
    }
}

/// base + F (a - b), plus F (toward - base) when `toward` is given (current-to-best/pbest).
pub(super) fn combine(base: &[f64], f: f64, a: &[f64], b: &[f64], toward: Option<&[f64]>) -> Vec<f64> {
    (0..base.len())
        .map(|j| base[j] + f * (a[j] - b[j]) + toward.map_or(0.0, |t| f * (t[j] - base[j])))
        .collect()
}

/// How much a trial improved on its parent: the objective's drop between feasible designs,
/// otherwise the drop in total violation (infinite when the parent failed).
fn improvement(parent: &Scored, child: &Scored) -> f64 {
    if parent.is_feasible() && child.is_feasible() {
        parent.objective - child.objective
    } else {
        parent.violation - child.violation
    }
}

/// The state's cost: the objective of a feasible member, `+inf` otherwise.
pub(crate) fn state_cost(m: &Member) -> f64 {
    if m.score.is_feasible() {
        m.score.objective
    } else {
        f64::INFINITY
    }
}

fn argmin_err(e: impl std::fmt::Display) -> ArgminError {
    ArgminError::msg(e.to_string())
}

impl<O> Solver<O, OptimState> for DifferentialEvolution
where
    O: CostFunction<Param = Vec<f64>, Output = Scored> + Bounded,
{
    fn name(&self) -> &str {
        "Differential evolution"
    }

    fn init(&mut self, problem: &mut Problem<O>, mut state: OptimState) -> Result<(OptimState, Option<KV>), ArgminError> {
        let bounds = bounds_of(problem)?;
        self.settings.validate(bounds.dim()).map_err(ArgminError::new)?;
        self.bounds = Some(bounds);
        let np = self.settings.population;
        let pop = match state.take_population() {
            Some(p) if p.len() == np => p,
            Some(p) => return Err(argmin_err(format!("given population has {} members, expected {np}", p.len()))),
            None => {
                let designs = self.initial_designs();
                let scores = problem.bulk_cost(&designs)?;
                let pop: Vec<Member> = designs.into_iter().zip(scores).map(|(x, score)| Member { x, score }).collect();
                self.progress.account(&pop);
                pop
            }
        };
        self.controls = vec![self.initial_control(); np];
        Ok((self.publish(state, pop), None))
    }

    fn next_iter(&mut self, problem: &mut Problem<O>, mut state: OptimState) -> Result<(OptimState, Option<KV>), ArgminError> {
        let mut pop = state.take_population().ok_or_else(|| argmin_err("no population in state"))?;
        let ranked = Self::ranking(&pop);
        let generation_f = match self.settings.control {
            ParameterControl::Dither { f_min, f_max, .. } => f_min + self.rng.random::<f64>() * (f_max - f_min),
            _ => 0.0,
        };
        // The last generation may be cut short by the budget; parents without a trial survive.
        let n_trials = pop.len().min(self.progress.remaining());
        let mut trials = Vec::with_capacity(n_trials);
        let mut controls = Vec::with_capacity(n_trials);
        for i in 0..n_trials {
            let (f, cr) = self.trial_control(i, generation_f);
            trials.push(self.trial(&pop, i, &ranked, f, cr));
            controls.push((f, cr));
        }
        let scores = problem.bulk_cost(&trials)?;
        let offspring: Vec<Member> = trials.into_iter().zip(scores).map(|(x, score)| Member { x, score }).collect();
        self.progress.account(&offspring);
        self.select(&mut pop, offspring, &controls);
        self.reduce(&mut pop);
        Ok((self.publish(state, pop), None))
    }

    fn terminate(&mut self, _state: &OptimState) -> TerminationStatus {
        self.progress.termination()
    }
}

impl Progress {
    /// Budget spent or target reached, as argmin's termination status.
    pub fn termination(&self) -> TerminationStatus {
        if self.remaining() == 0 {
            return TerminationStatus::Terminated(TerminationReason::SolverExit("evaluation budget spent".into()));
        }
        if self.target_reached() {
            return TerminationStatus::Terminated(TerminationReason::TargetCostReached);
        }
        TerminationStatus::NotTerminated
    }
}

impl Reports for DifferentialEvolution {
    fn progress(&self) -> &Progress {
        DifferentialEvolution::progress(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem, BraninFailingRight};
    use crate::eval::{Evaluation, Evaluator};
    use crate::optim::{minimize, FnProblem, Outcome, Selection};
    use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};

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

    fn run(problem: AnalyticProblem, settings: &DeSettings) -> (Outcome, usize) {
        let e = Counting(AnalyticEvaluator::new(problem).unwrap(), AtomicUsize::new(0));
        let p = EvaluatorProblem::new(&e, Selection::default()).unwrap();
        let out = minimize(p, DifferentialEvolution::new(settings.clone())).unwrap();
        (out, e.1.load(AtomicOrdering::Relaxed))
    }

    #[test]
    fn one_batch_per_generation_and_exact_budget() {
        let mut st = DeSettings::variant(Variant::Jde, 2, 1000, 1);
        st.population = 30;
        let (out, batches) = run(AnalyticProblem::Branin, &st);
        assert_eq!(out.evaluations, 1000);
        // 30 initial + 32 full generations of 30 + one cut short to 10.
        assert_eq!(batches, 1 + 33);
        assert_eq!(out.iterations, 33);
        assert!((out.best.objective - 0.397887).abs() < 1e-6, "{}", out.best.objective);
    }

    #[test]
    fn lshade_shrinks_its_population_linearly_to_the_end_of_the_budget() {
        let st = DeSettings::for_dimension(4, 4000, 3);
        assert_eq!((st.population, st.final_population), (72, Some(4)));
        let problem = FnProblem::new(|x| x.iter().map(|v| v * v).sum(), Bounds::cube(-5.0, 5.0, 4).unwrap());
        let result = argmin::core::Executor::new(problem, DifferentialEvolution::new(st)).timer(false).run().unwrap();
        let pop = result.state().get_population().unwrap().len();
        assert_eq!(result.solver().progress().evaluations(), 4000);
        assert!(pop <= 5, "population at the end of the budget: {pop}");
        assert!(result.state().get_best_cost() < 1e-12, "{}", result.state().get_best_cost());
    }

    #[test]
    fn same_seed_same_run_and_every_strategy_works() {
        let strategies = [Strategy::Rand1Bin, Strategy::Best1Bin, Strategy::CurrentToBest1Bin, Strategy::CurrentToPBest1Bin { p: 0.11 }];
        let controls =
            [ParameterControl::Fixed { f: 0.7, cr: 0.9 }, ParameterControl::Dither { f_min: 0.5, f_max: 1.0, cr: 0.7 }, ParameterControl::jde(), ParameterControl::SuccessHistory { memory: 6 }];
        for strategy in strategies {
            for control in controls {
                for bounds in [BoundHandling::MidpointToBound, BoundHandling::Reflection] {
                    let st = DeSettings { strategy, control, bounds, ..DeSettings::for_dimension(2, 4000, 7) };
                    let (a, _) = run(AnalyticProblem::Branin, &st);
                    let (b, _) = run(AnalyticProblem::Branin, &st);
                    assert_eq!(a.best_design, b.best_design);
                    assert_eq!(a.history, b.history);
                    assert!(a.best.objective < 0.3979, "{strategy:?} {control:?} {bounds:?}: {}", a.best.objective);
                }
            }
        }
    }

    #[test]
    fn failed_evaluations_are_infeasible_not_fatal() {
        let e = BraninFailingRight::new();
        for variant in [Variant::LShade, Variant::Jde] {
            let st = DeSettings::variant(variant, 2, 1500, 3);
            let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), DifferentialEvolution::new(st)).unwrap();
            // Best of the two minima left of x1 = 5.
            assert!(out.best.is_feasible() && out.best_design[0] <= 5.0, "{variant:?}");
            assert!((out.best.objective - 0.397887).abs() < 1e-5, "{variant:?}: {}", out.best.objective);
        }
    }

    #[test]
    fn bad_settings_are_errors() {
        let p = || FnProblem::new(|x| x[0], Bounds::cube(0.0, 1.0, 2).unwrap());
        let mut st = DeSettings::for_dimension(2, 10, 0);
        st.population = 20;
        assert!(minimize(p(), DifferentialEvolution::new(st.clone())).is_err());
        st.max_evaluations = 1000;
        st.control = ParameterControl::Fixed { f: 0.5, cr: 1.5 };
        assert!(minimize(p(), DifferentialEvolution::new(st.clone())).is_err());
        st.control = ParameterControl::jde();
        st.final_population = Some(40);
        let err = minimize(p(), DifferentialEvolution::new(st)).unwrap_err();
        assert!(err.to_string().contains("final population 40"), "{err}");
    }
}
