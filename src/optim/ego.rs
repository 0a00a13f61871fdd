//! Surrogate-assisted ("2-level") optimization, thesis section 7.2 (Jones, Schonlau & Welch
//! 1998, "Efficient global optimization of expensive black-box functions"), as an argmin solver.
//!
//! 1. An initial database from a maximin Latin hypercube, evaluated as one batch.
//! 2. Every cycle: fit one Kriging model to the objective (through an output transformation
//!    chosen by likelihood, [`transform`](super::transform)) and one to each constraint, then
//!    search the infill criterion ([`acquisition`](super::acquisition)) on the models (the
//!    cheap level) and evaluate the chosen designs with the real problem (the expensive level)
//!    as one batch. Each cycle's hyperparameter search starts from the last cycle's optimum.
//! 3. The search: L-SHADE on the criterion, started from the best known designs as well as a
//!    Latin hypercube, then a compass search from its result (multi-level: global, then local).
//! 4. Batches of k designs (Ginsbourger, Le Riche & Carraro 2010, "Kriging is well-suited to
//!    parallelize optimization"): after picking a design, the models take a value there as if
//!    observed (same hyperparameters) and the search is repeated. The kriging believer (the
//!    default) gives every model its own prediction there; the constant liar (CL-min) gives the
//!    objective model the best observed value instead. On Hartmann-6 in 5 batches of 16 after 12
//!    initial designs (tests/optim_ego.rs) the believer reached -3.25 on 5 of 10 seeds, the
//!    liar on 3, hence the default.
//! 5. Local refinement (the second, local level of thesis 7.2): the first design of a batch
//!    minimizes the predicted mean (subject to the constraint models) in a box of a tenth of
//!    each range around the best design (the plug-in step: the model's own optimum, trusted
//!    near the data) in every second cycle (`local_every`) and in the last `local_fraction` of
//!    the budget; the other cycles search expected improvement over the whole box. Alternating
//!    them, against expected improvement alone with the same length-scale prior, on seeds 0-9
//!    of problems that chose none of the defaults (tests/optim_ego.rs, BENCHMARKS.md): median
//!    evaluations to target six-hump camel back 33 -> 18, Goldstein-Price 65 -> 38, Hartmann-3
//!    17 -> 16, Rosenbrock-4D reached on 2 -> 6 of 10 seeds; Branin 26 -> 16 (seeds 0-19).
//!
//! 6. Restarts in other basins (`LocalRestart`): once the best design has not improved for `d`
//!    evaluations (at least 6) and the global cycle's expected improvement is negligible, a
//!    trust region opens at the best design that the hill-valley test places in another basin,
//!    with an objective model of its own fitted to the designs near it (TuRBO). It takes the
//!    global cycles, and the local cycles whose plug-in step promises nothing; it doubles on
//!    success, halves on failure and closes below a fortieth of the ranges. On Hartmann-6 at
//!    80 evaluations: 7/10 -> 10/10 seeds on seeds 0-9 and 10-19 (median 30 both), 9/10 on
//!    seeds 20-29; Branin, the constrained problems and the problems that chose no default
//!    unchanged or better (BENCHMARKS.md).
//!
//! Failed evaluations: they are left out of the objective and constraint models and fed to a
//! failure model, a Kriging model of an indicator (+1 failed, -1 ran) over all designs whose
//! probability of being negative multiplies the infill like a constraint.

use argmin::core::{CostFunction, Error as ArgminError, Executor, Problem, Solver, TerminationStatus, KV};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::acquisition::{Acquisition, Infill, Surrogates};
use super::de::{DeSettings, DifferentialEvolution};
use super::kriging::{Kriging, KrigingSettings, LengthScalePrior};
use super::lhs::maximin_latin_hypercube;
use super::problem::{bounds_of, Bounded};
use super::run::{Progress, Reports};
use super::transform::{Fitted, OutputTransform};
use super::{Bounds, Member, OptimError, OptimState, Scored};

/// How the designs after the first of a batch are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum BatchInfill {
    /// The objective model takes the best observed value at a picked design (CL-min).
    ConstantLiar,
    /// The objective model takes its own prediction at a picked design.
    #[default]
    KrigingBeliever,
}

/// Settings of the 2-level optimizer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EgoSettings {
    /// Size of the initial Latin hypercube database.
    pub initial_samples: usize,
    /// Designs evaluated per cycle (one batch).
    pub batch_size: usize,
    /// Evaluation budget, counting the initial database.
    pub max_evaluations: usize,
    pub infill: Infill,
    #[serde(default)]
    pub batch: BatchInfill,
    #[serde(default)]
    pub transform: OutputTransform,
    pub kriging: KrigingSettings,
    /// Criterion evaluations of the DE search on the surrogate, per design.
    pub search_evaluations: usize,
    /// Fraction of the budget, at its end, in which the first design of a batch refines the
    /// best design locally (0: never).
    #[serde(default)]
    pub local_fraction: f64,
    /// Every `local_every`-th cycle (0: never) the first design of the batch is the plug-in
    /// step of the local phase (the predicted mean's minimum around the best design), between
    /// the global expected-improvement cycles.
    #[serde(default)]
    pub local_every: usize,
    /// Minimum distance, in the unit cube, between a new design and the known ones: a
    /// criterion optimum closer than this to a known design is searched again outside.
    pub min_distance: f64,
    /// Minimum distance, in the unit cube, between two designs of one batch.
    #[serde(default = "default_batch_spacing")]
    pub batch_spacing: f64,
    /// Once the search has stagnated in one basin, open trust regions with their own local
    /// models around the best designs of other regions (`LocalRestart`).
    #[serde(default = "default_local_restarts")]
    pub local_restarts: bool,
    /// Stop once the best feasible objective is at or below this value.
    #[serde(default)]
    pub target: Option<f64>,
    pub seed: u64,
    /// Designs placed in the initial database (e.g. the baseline).
    #[serde(default)]
    pub initial: Vec<Vec<f64>>,
}

impl EgoSettings {
    /// Defaults: 2d initial samples (at least 4), one design per cycle, EI x PoF on an
    /// automatically transformed objective, kriging believer for batches, Gaussian correlation
    /// with a Gamma prior on its lengths, 3000 + 500 d criterion evaluations per search, local
    /// refinement every second cycle and in the last 10 %, new
    /// designs at least 1e-5 (unit cube) from the known ones (1e-3 kept G06 from its optimum on
    /// the constraint boundary: -6888.8 against -6961.8).
    pub fn for_dimension(dim: usize, max_evaluations: usize, seed: u64) -> Self {
        EgoSettings {
            initial_samples: (2 * dim).max(4),
            batch_size: 1,
            max_evaluations,
            infill: Infill::ExpectedImprovement,
            batch: BatchInfill::KrigingBeliever,
            transform: OutputTransform::Auto,
            kriging: KrigingSettings { length_scale_prior: Some(LengthScalePrior::BOTORCH), ..KrigingSettings::default() },
            search_evaluations: 3000 + 500 * dim,
            local_fraction: 0.1,
            local_every: 2,
            min_distance: 1e-5,
            batch_spacing: default_batch_spacing(),
            local_restarts: default_local_restarts(),
            target: None,
            seed,
            initial: Vec::new(),
        }
    }

    pub(crate) fn validate(&self, dim: usize) -> Result<(), OptimError> {
        let bad = |reason: String| Err(OptimError::Settings { optimizer: "2-level optimizer", reason });
        if self.initial_samples < 2 || self.initial_samples > self.max_evaluations {
            return bad(format!("{} initial samples for a budget of {}", self.initial_samples, self.max_evaluations));
        }
        if self.batch_size == 0 || self.search_evaluations < 100 {
            return bad("the batch size must be positive and the search get at least 100 evaluations".into());
        }
        if let super::acquisition::Infill::LowerConfidenceBound { kappa } = self.infill {
            if !(kappa >= 0.0) {
                return bad(format!("kappa {kappa} must be >= 0"));
            }
        }
        if !(self.batch_spacing >= 0.0) {
            return bad(format!("batch spacing {} must be >= 0", self.batch_spacing));
        }
        if !(0.0..=1.0).contains(&self.local_fraction) {
            return bad(format!("local fraction {} must be in [0, 1]", self.local_fraction));
        }
        if let OutputTransform::Log { relative_shift } = self.transform {
            if !(relative_shift > 0.0) {
                return bad(format!("log transform shift {relative_shift} must be > 0"));
            }
        }
        if let Some(d) = self.initial.iter().find(|d| d.len() != dim) {
            return bad(format!("initial design has {} variables, the problem {dim}", d.len()));
        }
        Ok(())
    }
}

fn default_batch_spacing() -> f64 {
    0.01
}

fn default_local_restarts() -> bool {
    true
}

/// A trust region around the best design of a region away from the basin the search has
/// converged in, searched with expected improvement on a Kriging model fitted to the designs
/// near it only (TuRBO: Eriksson, Pearce, Gardner, Turner & Poloczek 2019, "Scalable global
/// optimization via local Bayesian optimization"). Why a model of its own: once the search has
/// converged in one basin, the global model's correlation lengths are those of that basin (on
/// Hartmann-6's failing seeds, a ridge two box widths long in x3 and x5) and its expected
/// improvement elsewhere is e^-24, so a narrow basin elsewhere is never followed up
/// (BENCHMARKS.md). The side doubles after `RESTART_SUCCESSES` improvements in a row
/// and halves after `RESTART_FAILURES` misses in a row; below `RESTART_MIN_SIDE` the region is
/// closed and the next one opens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct LocalRestart {
    /// The region's best design so far (design units).
    centre: Vec<f64>,
    /// Side of the box around `centre`, as a fraction of every range.
    side: f64,
    /// The region's best objective so far.
    best: f64,
    successes: usize,
    failures: usize,
}

const RESTART_SIDE: f64 = 0.4;
const RESTART_MAX_SIDE: f64 = 0.8;
const RESTART_MIN_SIDE: f64 = 0.4 / 16.0;
const RESTART_SUCCESSES: usize = 2;
const RESTART_FAILURES: usize = 3;

/// The 2-level optimizer as an argmin solver; run it with [`minimize`](super::minimize) or
/// argmin's `Executor`. Serializable (the models are refitted from the database every cycle),
/// so argmin can checkpoint it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TwoLevel {
    settings: EgoSettings,
    bounds: Option<Bounds>,
    rng: ChaCha8Rng,
    progress: Progress,
    designs: Vec<Vec<f64>>,
    scores: Vec<Scored>,
    cycles: u64,
    /// The objective model's last hyperparameters: the first start of the next fit.
    last_log10_theta: Option<Vec<f64>>,
    /// The open trust region, if any, and the centres of the closed ones.
    #[serde(default)]
    restart: Option<LocalRestart>,
    #[serde(default)]
    closed_regions: Vec<Vec<f64>>,
    /// Whether the last global cycle's expected improvement was negligible: below 1e-4 of the
    /// objective model's process deviation.
    #[serde(default)]
    global_ei_negligible: bool,
    /// Whether the open region made this cycle's first pick.
    #[serde(skip)]
    region_picked: bool,
}

impl Reports for TwoLevel {
    fn progress(&self) -> &Progress {
        &self.progress
    }
}

impl TwoLevel {
    pub fn new(settings: EgoSettings) -> Self {
        let rng = ChaCha8Rng::seed_from_u64(settings.seed);
        let progress = Progress::new(settings.max_evaluations, settings.target);
        TwoLevel {
            settings,
            bounds: None,
            rng,
            progress,
            designs: Vec::new(),
            scores: Vec::new(),
            cycles: 0,
            last_log10_theta: None,
            restart: None,
            closed_regions: Vec::new(),
            global_ei_negligible: false,
            region_picked: false,
        }
    }

    /// Every evaluated design and its score, in evaluation order.
    pub fn database(&self) -> (&[Vec<f64>], &[Scored]) {
        (&self.designs, &self.scores)
    }

    fn bounds(&self) -> &Bounds {
        self.bounds.as_ref().expect("bounds are set in init")
    }

    fn record(&mut self, designs: Vec<Vec<f64>>, scores: Vec<Scored>) -> Result<(), ArgminError> {
        if scores.len() != designs.len() {
            return Err(ArgminError::msg(format!("{} scores for {} designs", scores.len(), designs.len())));
        }
        let members: Vec<Member> = designs.iter().cloned().zip(scores.iter().cloned()).map(|(x, score)| Member { x, score }).collect();
        self.progress.account(&members);
        self.designs.extend(designs);
        self.scores.extend(scores);
        Ok(())
    }

    fn publish(&self, state: OptimState) -> OptimState {
        match self.progress.best() {
            Some(best) => {
                let cost = super::de::state_cost(best);
                state.individual(best.clone()).cost(cost)
            }
            None => state,
        }
    }

    fn kriging_settings(&self) -> KrigingSettings {
        let mut st = self.settings.kriging.clone();
        st.seed = st.seed.wrapping_add(self.cycles);
        st
    }

    /// The objective model through each candidate transformation; the one whose likelihood of
    /// the untransformed outputs is largest wins.
    fn fit_objective(&self, x: &[Vec<f64>], y: &[f64]) -> Result<(Kriging, Fitted), OptimError> {
        self.fit_objective_in(x, y, self.bounds(), self.last_log10_theta.as_deref())
    }

    /// [`fit_objective`](Self::fit_objective) with inputs scaled to `b` and the hyperparameter
    /// search started from `start`.
    fn fit_objective_in(&self, x: &[Vec<f64>], y: &[f64], b: &Bounds, start: Option<&[f64]>) -> Result<(Kriging, Fitted), OptimError> {
        let st = self.kriging_settings();
        let mut best: Option<(f64, Kriging, Fitted)> = None;
        for t in Fitted::candidates(self.settings.transform, y) {
            let z: Vec<f64> = y.iter().map(|v| t.apply(*v)).collect();
            let model = Kriging::fit_from(x, &z, b.lower(), b.upper(), &st, start)
                .map_err(|e| OptimError::Kriging(e.to_string()))?;
            let score = model.log_likelihood_of_outputs() + t.log_jacobian(y);
            if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                best = Some((score, model, t));
            }
        }
        best.map(|(_, m, t)| (m, t)).ok_or_else(|| OptimError::Kriging("no output transformation to fit".into()))
    }

    fn fit_surrogates(&self) -> Result<Option<Surrogates>, OptimError> {
        let ran: Vec<usize> = (0..self.designs.len()).filter(|&i| self.scores[i].failure.is_none()).collect();
        if ran.len() < 2 {
            return Ok(None);
        }
        let st = self.kriging_settings();
        let b = self.bounds();
        let x: Vec<Vec<f64>> = ran.iter().map(|&i| self.designs[i].clone()).collect();
        let fit = |y: Vec<f64>| Kriging::fit(&x, &y, b.lower(), b.upper(), &st).map_err(|e| OptimError::Kriging(e.to_string()));
        let (objective, transform) = self.fit_objective(&x, &ran.iter().map(|&i| self.scores[i].objective).collect::<Vec<_>>())?;
        let n_constraints = self.scores[ran[0]].constraints.len();
        let constraints = (0..n_constraints)
            .map(|c| fit(ran.iter().map(|&i| self.scores[i].constraints.get(c).copied().unwrap_or(0.0)).collect()))
            .collect::<Result<Vec<_>, _>>()?;
        let failure = if ran.len() < self.designs.len() {
            let y: Vec<f64> = self.scores.iter().map(|s| if s.failure.is_some() { 1.0 } else { -1.0 }).collect();
            Some(Kriging::fit(&self.designs, &y, b.lower(), b.upper(), &st).map_err(|e| OptimError::Kriging(e.to_string()))?)
        } else {
            None
        };
        Ok(Some(Surrogates { objective, transform, constraints, failure }))
    }

    fn in_local_phase(&self) -> bool {
        let budget = self.settings.max_evaluations as f64;
        let interleaved = self.settings.local_every > 0 && (self.cycles + 1) % self.settings.local_every as u64 == 0;
        self.progress.best_feasible().is_some()
            && (interleaved || (self.progress.remaining() as f64) <= self.settings.local_fraction * budget)
    }

    /// Pick `k` distinct designs: the infill optimum, then one more per lie.
    fn propose(&mut self, k: usize) -> Result<Vec<Vec<f64>>, OptimError> {
        let Some(mut models) = self.fit_surrogates()? else {
            // Fewer than two designs ran: nothing to model yet, explore at random.
            return Ok((0..k).map(|_| self.random_design()).collect());
        };
        self.last_log10_theta = Some(models.objective.log10_theta().to_vec());
        let mut f_min = self.progress.best_feasible().map(|f| models.transform.apply(f));
        let lie = self.lie(&models);
        let local = self.in_local_phase();
        if self.settings.local_restarts && self.restart.is_none() && self.global_ei_negligible && self.stagnated() {
            self.restart = self.open_restart(&models);
        }
        let mut chosen: Vec<Vec<f64>> = Vec::with_capacity(k);
        for j in 0..k {
            let seed = self.settings.seed.wrapping_mul(1_000_003).wrapping_add(self.cycles * 1000 + j as u64);
            let mut x = match (local && j == 0, self.progress.best()) {
                _ if j == 0 && !local && self.restart.is_some() => {
                    self.region_picked = true;
                    self.restart_pick(&models, seed)?
                }
                (true, Some(best)) => {
                    let refine = self.search(&models, f_min, Infill::LowerConfidenceBound { kappa: 0.0 }, self.trust_region(&best.x), &[], 0.0, seed)?;
                    // The plug-in step keeps its cycle while it promises something; once the
                    // incumbent's basin is exhausted by the model's own account, an open region
                    // takes the evaluation.
                    if self.restart.is_some() && !plug_in_promises(&models, f_min, &refine) {
                        self.region_picked = true;
                        self.restart_pick(&models, seed)?
                    } else {
                        refine
                    }
                }
                _ => self.search(&models, f_min, self.settings.infill, self.bounds().clone(), &[], 0.0, seed)?,
            };
            let spacing = self.settings.batch_spacing;
            if chosen.iter().any(|c| self.bounds().unit_distance(&x, c) < spacing) {
                // A batch's designs are evaluated at once: one beside another of the same batch
                // adds little (the kriging believer's picks gather where the model's mean has
                // its valley), so the criterion is searched again outside the batch's
                // neighbourhoods.
                x = self.search(&models, f_min, self.settings.infill, self.bounds().clone(), &chosen, spacing, seed ^ 0xba7c)?;
            }
            if self.too_close(&x, &chosen) {
                // The criterion peaks on a known design (EI does once the model has converged
                // there): search again outside the known designs' neighbourhoods.
                let known: Vec<Vec<f64>> = self.designs.iter().chain(&chosen).cloned().collect();
                x = self.search(&models, f_min, self.settings.infill, self.bounds().clone(), &known, self.settings.min_distance, seed ^ 0x5eed)?;
            }
            if self.too_close(&x, &chosen) {
                x = self.most_uncertain(&models, &chosen);
            }
            if j == 0 && !local && self.restart.is_none() {
                self.global_ei_negligible = ei_negligible(&models, f_min, self.bounds(), &x);
            }
            if j + 1 < k {
                // The believed value joins the data, so it is a candidate for the incumbent
                // (Ginsbourger et al. 2010: the current minimum of the completed data); without
                // it, expected improvement stays max(f_min - mean, 0) > 0 at a picked design
                // whose predicted mean beats f_min, and the next pick lands beside it.
                if believed_feasible(&models, &x) {
                    let value = lie.unwrap_or_else(|| models.objective.predict(&x).mean);
                    f_min = Some(f_min.map_or(value, |f| f.min(value)));
                }
                models = pretend(&models, &x, lie).map_err(|e| OptimError::Kriging(e.to_string()))?;
            }
            chosen.push(x);
        }
        Ok(chosen)
    }

    /// Whether the last `d` (at least 6) evaluations improved the best feasible objective by
    /// less than 1e-3 of the observed spread.
    fn stagnated(&self) -> bool {
        let window = self.bounds().dim().max(6);
        let n = self.designs.len();
        if n < self.settings.initial_samples + window {
            return false;
        }
        let feasible = |range: std::ops::Range<usize>| self.scores[range].iter().filter(|s| s.is_feasible()).map(|s| s.objective);
        let (Some(before), Some(now)) = (feasible(0..n - window).reduce(f64::min), feasible(0..n).reduce(f64::min)) else { return false };
        let spread = now.max(feasible(0..n).fold(f64::NEG_INFINITY, f64::max)) - now;
        now > before - 1e-3 * spread
    }

    /// A trust region at the best feasible design that lies in another basin than the
    /// incumbent and every closed region's centre, if there is one.
    fn open_restart(&self, models: &Surrogates) -> Option<LocalRestart> {
        let incumbent = self.progress.best()?.x.clone();
        let taken: Vec<&Vec<f64>> = std::iter::once(&incumbent).chain(&self.closed_regions).collect();
        (0..self.designs.len())
            .filter(|&i| self.scores[i].is_feasible())
            .filter(|&i| taken.iter().all(|c| separated_by_a_hill(models, &self.designs[i], c)))
            .min_by(|&a, &c| self.scores[a].objective.total_cmp(&self.scores[c].objective))
            .map(|i| LocalRestart { centre: self.designs[i].clone(), side: RESTART_SIDE, best: self.scores[i].objective, successes: 0, failures: 0 })
    }

    /// The box of side `side` (fraction of every range) around `centre`, inside the design box.
    fn box_around(&self, centre: &[f64], side: f64) -> Bounds {
        let b = self.bounds();
        let lower: Vec<f64> = (0..b.dim()).map(|k| (centre[k] - 0.5 * side * b.width(k)).max(b.lower()[k])).collect();
        let upper: Vec<f64> = (0..b.dim()).map(|k| (centre[k] + 0.5 * side * b.width(k)).min(b.upper()[k])).collect();
        Bounds::new(lower, upper).unwrap_or_else(|_| b.clone())
    }

    /// Expected improvement over the region's best, in the open trust region, on an objective
    /// model fitted to the designs in the region (at least the `d + 2` nearest to its centre);
    /// the constraint and failure models stay the global ones.
    fn restart_pick(&self, global: &Surrogates, seed: u64) -> Result<Vec<f64>, OptimError> {
        let r = self.restart.as_ref().expect("called with an open region");
        let region = self.box_around(&r.centre, r.side);
        let b = self.bounds();
        let mut ran: Vec<usize> = (0..self.designs.len()).filter(|&i| self.scores[i].failure.is_none()).collect();
        ran.sort_by(|&a, &c| b.unit_distance(&self.designs[a], &r.centre).total_cmp(&b.unit_distance(&self.designs[c], &r.centre)));
        let inside = ran.iter().filter(|&&i| region.contains(&self.designs[i])).count();
        ran.truncate(inside.max(b.dim() + 2));
        let x: Vec<Vec<f64>> = ran.iter().map(|&i| self.designs[i].clone()).collect();
        let y: Vec<f64> = ran.iter().map(|&i| self.scores[i].objective).collect();
        let (objective, transform) = self.fit_objective_in(&x, &y, &region, None)?;
        let local = Surrogates { objective, transform, constraints: global.constraints.clone(), failure: global.failure.clone() };
        let f_min = Some(transform.apply(r.best));
        self.search(&local, f_min, Infill::ExpectedImprovement, region, &self.designs, self.settings.min_distance, seed)
    }

    /// The open region's bookkeeping after its pick `x` scored `score`.
    fn update_restart(&mut self, x: &[f64], score: &Scored) {
        let Some(r) = self.restart.as_mut() else { return };
        if score.is_feasible() && score.objective < r.best - 1e-3 * r.best.abs().max(1e-12) {
            (r.centre, r.best, r.successes, r.failures) = (x.to_vec(), score.objective, r.successes + 1, 0);
            if r.successes >= RESTART_SUCCESSES {
                (r.side, r.successes) = ((2.0 * r.side).min(RESTART_MAX_SIDE), 0);
            }
        } else {
            (r.successes, r.failures) = (0, r.failures + 1);
            if r.failures >= RESTART_FAILURES {
                (r.side, r.failures) = (0.5 * r.side, 0);
            }
        }
        if r.side < RESTART_MIN_SIDE {
            self.closed_regions.push(r.centre.clone());
            self.restart = None;
        }
    }

    /// The value the objective model takes at a picked design: `None` believes the model.
    fn lie(&self, models: &Surrogates) -> Option<f64> {
        match self.settings.batch {
            BatchInfill::KrigingBeliever => None,
            BatchInfill::ConstantLiar => models.objective.outputs().iter().copied().reduce(f64::min),
        }
    }

    /// A box reaching a tenth of every range either side of `centre`, inside the design box.
    fn trust_region(&self, centre: &[f64]) -> Bounds {
        self.box_around(centre, 0.2)
    }

    /// L-SHADE on the criterion from a Latin hypercube and the best known designs, then a
    /// compass search from its result; outside the balls of `radius` (unit cube) around
    /// `keep_away`.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        models: &Surrogates,
        f_min: Option<f64>,
        infill: Infill,
        region: Bounds,
        keep_away: &[Vec<f64>],
        radius: f64,
        seed: u64,
    ) -> Result<Vec<f64>, OptimError> {
        let mut st = DeSettings::for_dimension(region.dim(), self.settings.search_evaluations, seed);
        st.population = (10 * region.dim()).clamp(20, 80).min(st.max_evaluations / 10);
        let mut order: Vec<usize> = (0..self.designs.len()).filter(|&i| region.contains(&self.designs[i])).collect();
        order.sort_by(|&a, &b| self.scores[a].deb_cmp(&self.scores[b]));
        st.initial = order.iter().take(st.population / 4).map(|&i| self.designs[i].clone()).collect();
        let acquisition = |bounds| Acquisition { models, f_min, infill, bounds, keep_away, radius };
        let de = Executor::new(acquisition(region.clone()), DifferentialEvolution::new(st)).timer(false).run();
        let de = de.map_err(super::run::from_argmin)?;
        let start = de.solver().progress().best().map(|m| m.x.clone()).ok_or_else(|| OptimError::Run("empty search".into()))?;
        let acq = acquisition(region);
        Ok(compass_search(|x| acq.value(x), &acq.bounds, start))
    }

    fn too_close(&self, x: &[f64], pending: &[Vec<f64>]) -> bool {
        self.designs.iter().chain(pending).any(|d| self.bounds().unit_distance(x, d) < self.settings.min_distance)
    }

    fn random_design(&mut self) -> Vec<f64> {
        let u: Vec<f64> = (0..self.bounds().dim()).map(|_| self.rng.random::<f64>()).collect();
        self.bounds().from_unit(&u)
    }

    /// The random design (of 1000) with the largest objective-model variance.
    fn most_uncertain(&mut self, models: &Surrogates, pending: &[Vec<f64>]) -> Vec<f64> {
        let mut best = self.random_design();
        let mut best_var = f64::NEG_INFINITY;
        for _ in 0..1000 {
            let x = self.random_design();
            let v = models.objective.predict(&x).variance;
            if v > best_var && !self.too_close(&x, pending) {
                best = x;
                best_var = v;
            }
        }
        best
    }
}

/// Compass search (Kolda, Lewis & Torczon 2003, "Optimization by direct search", SIAM Review):
/// polls +-step along every coordinate of the unit cube, moves on improvement, halves the step
/// otherwise; polishes the DE result to the criterion's local optimum.
pub(super) fn compass_search(value: impl Fn(&[f64]) -> Scored, b: &Bounds, start: Vec<f64>) -> Vec<f64> {
    let mut x = start;
    let mut fx = value(&x);
    let mut step = 0.05;
    let mut budget = 60 * b.dim();
    while step > 1e-6 && budget > 0 {
        let mut moved = false;
        for k in 0..b.dim() {
            for sign in [1.0, -1.0] {
                let mut y = x.clone();
                y[k] = (y[k] + sign * step * b.width(k)).clamp(b.lower()[k], b.upper()[k]);
                budget = budget.saturating_sub(1);
                let fy = value(&y);
                if fy.deb_cmp(&fx).is_lt() {
                    (x, fx, moved) = (y, fy, true);
                    break;
                }
            }
        }
        if !moved {
            step *= 0.5;
        }
    }
    x
}

/// The hill-valley test (Ursem 1999, "Multinational evolutionary algorithms"; Maree, Alderliesten,
/// Thierens & Bosman 2018, HillVallEA) on the objective model: `a` and `b` lie in different
/// basins when the predicted mean somewhere on the segment between them rises above both ends.
/// A distance rule cannot tell basins apart on Hartmann-6, whose -3.2032 basin is a ridge across
/// the box.
fn separated_by_a_hill(models: &Surrogates, a: &[f64], b: &[f64]) -> bool {
    let mean = |t: f64| {
        let x: Vec<f64> = a.iter().zip(b).map(|(p, q)| p + t * (q - p)).collect();
        models.objective.predict(&x).mean
    };
    let ends = mean(0.0).max(mean(1.0));
    (1..HILL_VALLEY_POINTS).any(|k| mean(k as f64 / HILL_VALLEY_POINTS as f64) > ends)
}

/// Whether the expected improvement (times the probability of feasibility) at the global
/// cycle's pick `x` is below 1e-4 of the objective model's process deviation: the model sees
/// nothing left to gain anywhere (on Hartmann-6's failing seeds e^-16 to e^-24 against a
/// deviation of 0.45).
fn ei_negligible(models: &Surrogates, f_min: Option<f64>, bounds: &Bounds, x: &[f64]) -> bool {
    let acquisition = Acquisition { models, f_min, infill: Infill::ExpectedImprovement, bounds: bounds.clone(), keep_away: &[], radius: 0.0 };
    let ln_ei = -acquisition.value(x).objective;
    ln_ei < negligible_gain(models).ln()
}

/// Whether the plug-in step's design `x` is predicted to improve on `f_min` by at least 1e-4 of
/// the objective model's process deviation.
fn plug_in_promises(models: &Surrogates, f_min: Option<f64>, x: &[f64]) -> bool {
    f_min.is_none_or(|f| f - models.objective.predict(x).mean >= negligible_gain(models))
}

/// A gain below 1e-4 of the objective model's process deviation is no gain.
fn negligible_gain(models: &Surrogates) -> f64 {
    1e-4 * models.objective.process_variance().sqrt()
}

/// Segments of the hill-valley test (points tested: one fewer).
const HILL_VALLEY_POINTS: usize = 10;

/// Whether the constraint and failure models predict `x` feasible (means <= 0).
fn believed_feasible(models: &Surrogates, x: &[f64]) -> bool {
    models.constraints.iter().chain(models.failure.as_ref()).all(|m| m.predict(x).mean <= 0.0)
}

/// The models with a picked design added as if observed: the objective at `lie` (or at its own
/// prediction when `None`), the constraint and failure models at their predictions.
fn pretend(models: &Surrogates, x: &[f64], lie: Option<f64>) -> crate::Result<Surrogates> {
    let believe = |m: &Kriging| m.with_added_samples(&[x.to_vec()], &[m.predict(x).mean]);
    let objective = match lie {
        Some(v) => models.objective.with_added_samples(&[x.to_vec()], &[v])?,
        None => believe(&models.objective)?,
    };
    Ok(Surrogates {
        objective,
        transform: models.transform,
        constraints: models.constraints.iter().map(believe).collect::<crate::Result<Vec<_>>>()?,
        failure: models.failure.as_ref().map(believe).transpose()?,
    })
}

impl<O> Solver<O, OptimState> for TwoLevel
where
    O: CostFunction<Param = Vec<f64>, Output = Scored> + Bounded,
{
    fn name(&self) -> &str {
        "2-level (Kriging-assisted)"
    }

    fn init(&mut self, problem: &mut Problem<O>, state: OptimState) -> Result<(OptimState, Option<KV>), ArgminError> {
        let bounds = bounds_of(problem)?;
        self.settings.validate(bounds.dim()).map_err(ArgminError::new)?;
        self.bounds = Some(bounds.clone());
        let doe = bounds.initial_sample(&maximin_latin_hypercube(self.settings.initial_samples, bounds.dim(), 20, &mut self.rng), &self.settings.initial);
        let scores = problem.bulk_cost(&doe)?;
        self.record(doe, scores)?;
        Ok((self.publish(state), None))
    }

    fn next_iter(&mut self, problem: &mut Problem<O>, state: OptimState) -> Result<(OptimState, Option<KV>), ArgminError> {
        let k = self.settings.batch_size.min(self.progress.remaining());
        self.region_picked = false;
        let candidates = self.propose(k).map_err(ArgminError::new)?;
        let scores = problem.bulk_cost(&candidates)?;
        if let (true, Some(x), Some(score)) = (self.region_picked, candidates.first(), scores.first()) {
            self.update_restart(x, score);
        }
        self.record(candidates, scores)?;
        self.cycles += 1;
        Ok((self.publish(state), None))
    }

    fn terminate(&mut self, _state: &OptimState) -> TerminationStatus {
        self.progress.termination()
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::analytic::{branin, AnalyticEvaluator, AnalyticProblem, BraninFailingRight};
    use crate::optim::{minimize, EvaluatorProblem, FnProblem, RonCheckpoint, Selection};

    fn branin_problem() -> FnProblem {
        FnProblem::new(|x| branin(x[0], x[1]), Bounds::new([-5.0, 0.0], [10.0, 15.0]).unwrap())
    }

    #[test]
    fn failed_designs_feed_the_failure_model_and_the_run_goes_on() {
        let e = BraninFailingRight::new();
        let mut st = EgoSettings::for_dimension(2, 40, 4);
        st.batch_size = 2;
        let problem = EvaluatorProblem::new(&e, Selection::default()).unwrap();
        let result = Executor::new(problem, TwoLevel::new(st)).timer(false).run().unwrap();
        let (designs, scores) = result.solver().database();
        let failures = scores.iter().filter(|s| s.failure.is_some()).count();
        assert!(failures > 0, "the initial design should hit the failing region");
        assert_eq!(designs.len(), 40);
        let best = result.solver().progress().best().unwrap();
        assert!(best.score.is_feasible() && best.x[0] <= 5.0);
        assert!(best.score.objective < 0.41, "{}", best.score.objective);
        // Distinct designs: the batches never repeat a design.
        for i in 0..designs.len() {
            for j in 0..i {
                assert_ne!(designs[i], designs[j]);
            }
        }
    }

    #[test]
    fn lower_confidence_bound_option_finds_branin_minimum() {
        let e = AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap();
        let mut st = EgoSettings::for_dimension(2, 40, 2);
        st.infill = Infill::LowerConfidenceBound { kappa: 2.0 };
        let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), TwoLevel::new(st)).unwrap();
        assert!(out.best.objective < 0.41, "{}", out.best.objective);
    }

    #[test]
    fn batches_of_16_spread_out() {
        // One cycle of 16 after 8 initial designs: the batch must not cluster on one point (on
        // this seed the kriging believer's criterion puts 4 of 16 picks within 0.007 of each
        // other on Branin's x1 = -5 face; batch_spacing sends them elsewhere).
        for batch in [BatchInfill::KrigingBeliever, BatchInfill::ConstantLiar] {
            let mut st = EgoSettings::for_dimension(2, 24, 3);
            st.initial_samples = 8;
            st.batch_size = 16;
            st.batch = batch;
            let result = Executor::new(branin_problem(), TwoLevel::new(st)).timer(false).run().unwrap();
            let (designs, _) = result.solver().database();
            let bounds = Bounds::new([-5.0, 0.0], [10.0, 15.0]).unwrap();
            let new = &designs[8..];
            let closest = (0..new.len())
                .flat_map(|i| (0..i).map(move |j| (i, j)))
                .map(|(i, j)| bounds.unit_distance(&new[i], &new[j]))
                .fold(f64::INFINITY, f64::min);
            assert_eq!(new.len(), 16);
            assert!(closest > 0.01, "{batch:?}: two designs of the batch are {closest} apart in the unit square");
        }
    }

    #[test]
    fn log_transform_is_chosen_for_a_steep_objective_and_not_for_a_quadratic() {
        let lower = [-2.0, -2.0];
        let upper = [2.0, 2.0];
        let x: Vec<Vec<f64>> = crate::optim::lhs::latin_hypercube(30, 2, &mut ChaCha8Rng::seed_from_u64(1))
            .iter()
            .map(|u| vec![-2.0 + 4.0 * u[0], -2.0 + 4.0 * u[1]])
            .collect();
        let mut solver = TwoLevel::new(EgoSettings::for_dimension(2, 50, 1));
        solver.bounds = Some(Bounds::new(lower, upper).unwrap());
        let steep: Vec<f64> = x.iter().map(|p| (10.0 * (p[0] * p[0] + p[1] * p[1])).exp()).collect();
        let smooth: Vec<f64> = x.iter().map(|p| p[0] * p[0] + 0.5 * p[1] * p[1] + 0.3 * p[0]).collect();
        assert!(matches!(solver.fit_objective(&x, &steep).unwrap().1, Fitted::Log { .. }));
        assert_eq!(solver.fit_objective(&x, &smooth).unwrap().1, Fitted::Identity);
    }

    /// Branin that fails (an error, as a crashed evaluation would) from evaluation `crash_at` on.
    struct Crashing {
        inner: FnProblem,
        evaluations: std::sync::atomic::AtomicUsize,
        crash_at: usize,
    }
    impl Bounded for Crashing {
        fn bounds(&self) -> &Bounds {
            self.inner.bounds()
        }
    }
    impl CostFunction for Crashing {
        type Param = Vec<f64>;
        type Output = Scored;
        fn cost(&self, x: &Vec<f64>) -> Result<Scored, ArgminError> {
            if self.evaluations.fetch_add(1, std::sync::atomic::Ordering::SeqCst) >= self.crash_at {
                return Err(ArgminError::msg("the machine went down"));
            }
            self.inner.cost(x)
        }
    }

    #[test]
    fn a_checkpointed_run_continues_where_it_stopped() {
        let path = std::env::temp_dir().join(format!("turbopt-ego-checkpoint-{}.ron", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let settings = EgoSettings::for_dimension(2, 16, 5);
        let whole = minimize(branin_problem(), TwoLevel::new(settings.clone())).unwrap();
        // 4 initial designs and 5 cycles of one, then the evaluations fail.
        let crashing = Crashing { inner: branin_problem(), evaluations: 0.into(), crash_at: 4 + 5 };
        let first = Executor::new(crashing, TwoLevel::new(settings.clone())).checkpointing(RonCheckpoint::new(&path)).timer(false).run();
        assert!(first.is_err());
        let second = Executor::new(branin_problem(), TwoLevel::new(settings)).checkpointing(RonCheckpoint::new(&path)).timer(false).run().unwrap();
        let resumed = crate::optim::Outcome::from_result(&second).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(resumed.evaluations, 16);
        assert_eq!(resumed.best_design, whole.best_design);
        assert_eq!(resumed.history, whole.history);
    }

    #[test]
    fn bad_settings_are_typed_errors() {
        let mut st = EgoSettings::for_dimension(2, 30, 1);
        st.local_fraction = 2.0;
        let err = minimize(branin_problem(), TwoLevel::new(st)).unwrap_err();
        assert!(matches!(err, OptimError::Settings { .. }), "{err}");
    }
}
