//! Surrogate-assisted ("2-level") optimization, thesis section 7.2 (Jones, Schonlau & Welch
//! 1998, "Efficient global optimization of expensive black-box functions").
//!
//! 1. An initial database from a maximin Latin hypercube, evaluated as one batch.
//! 2. Every cycle: fit one Kriging model to the objective and one to each selected constraint
//!    (hyperparameters by maximum likelihood), then search the infill criterion with
//!    differential evolution on the models (the cheap level) and evaluate the chosen designs
//!    with the real evaluator (the expensive level) as one batch.
//! 3. Infill: expected improvement times the probability of feasibility of every constraint
//!    (Schonlau, Welch & Jones 1998); while no feasible design is known, the probability of
//!    feasibility alone (Sasena 2002). Lower confidence bound mu - kappa s as an option, with
//!    the constraints' means as constraints.
//! 4. Batches of k designs by the kriging believer (Ginsbourger, Le Riche & Carraro 2010): after
//!    picking a design, its predicted values are added to the models as if observed (same
//!    hyperparameters), which removes the variance there, and the search is repeated. A
//!    candidate closer than `min_distance` (unit cube) to a known or pending design is replaced
//!    by the most uncertain of a set of random points, so the k designs are distinct.
//!
//! Failed evaluations (status not `Ok`): they are left out of the objective and constraint
//! models (their values are meaningless) and fed to a failure model instead, a Kriging model of
//! an indicator (+1 failed, -1 ran) over all designs; its probability of being negative
//! multiplies the infill like a constraint, steering the search away from regions that fail.

use argmin::core::{CostFunction, Error as ArgminError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::de::{self, DeSettings};
use super::kriging::{Kriging, KrigingSettings};
use super::lhs::{maximin_latin_hypercube, scale_to_box};
use super::{Scored, Selection};
use crate::error::{Error, Result};
use crate::eval::{Evaluation, Evaluator};

/// The infill criterion searched on the surrogate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Infill {
    /// Expected improvement times probability of feasibility.
    ExpectedImprovement,
    /// Minimize mu - kappa s subject to the constraint models' means being <= 0.
    LowerConfidenceBound { kappa: f64 },
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
    pub kriging: KrigingSettings,
    /// DE population and generations for the infill search on the surrogate.
    pub search_population: usize,
    pub search_generations: usize,
    /// Minimum distance, in the unit cube, between a new design and the known ones.
    pub min_distance: f64,
    /// Stop once the best feasible objective is at or below this value.
    #[serde(default)]
    pub target: Option<f64>,
    pub seed: u64,
    /// Designs placed in the initial database (e.g. the baseline).
    #[serde(default)]
    pub initial: Vec<Vec<f64>>,
}

impl EgoSettings {
    /// Defaults: 2d initial samples (at least 4), one design per cycle, EI x PoF, Gaussian
    /// correlation (chosen on Branin and Hartmann-6, where it needed fewer evaluations than
    /// Matern 5/2).
    pub fn for_dimension(dim: usize, max_evaluations: usize, seed: u64) -> Self {
        EgoSettings {
            initial_samples: (2 * dim).max(4),
            batch_size: 1,
            max_evaluations,
            infill: Infill::ExpectedImprovement,
            kriging: KrigingSettings::default(),
            search_population: (10 * dim).clamp(20, 80),
            search_generations: 100,
            min_distance: 1e-5,
            target: None,
            seed,
            initial: Vec::new(),
        }
    }

    fn validate(&self, dim: usize) -> Result<()> {
        let bad = |m: String| Err(Error::Other(format!("2-level optimizer: {m}")));
        if self.initial_samples < 2 || self.initial_samples > self.max_evaluations {
            return bad(format!("{} initial samples for a budget of {}", self.initial_samples, self.max_evaluations));
        }
        if self.batch_size == 0 || self.search_population < 4 || self.search_generations == 0 {
            return bad("batch size, search population and generations must be positive (population >= 4)".into());
        }
        if let Infill::LowerConfidenceBound { kappa } = self.infill {
            if !(kappa >= 0.0) {
                return bad(format!("kappa {kappa} must be >= 0"));
            }
        }
        if let Some(d) = self.initial.iter().find(|d| d.len() != dim) {
            return bad(format!("initial design has {} variables, the problem {dim}", d.len()));
        }
        Ok(())
    }
}

/// Result of a 2-level run.
#[derive(Clone, Debug)]
pub struct EgoOutcome {
    pub best_design: Vec<f64>,
    pub best: Scored,
    pub evaluations: usize,
    pub cycles: usize,
    /// (evaluation number, best feasible objective) at every improvement.
    pub history: Vec<(usize, f64)>,
    pub evaluations_to_target: Option<usize>,
    /// Every evaluated design and its score, in evaluation order.
    pub designs: Vec<Vec<f64>>,
    pub scores: Vec<Scored>,
}

/// Run the 2-level optimizer on `evaluator` within `[lower, upper]`.
pub fn minimize(evaluator: &dyn Evaluator, selection: &Selection, lower: &[f64], upper: &[f64], settings: &EgoSettings) -> Result<EgoOutcome> {
    let dim = lower.len();
    if dim == 0 || upper.len() != dim || (0..dim).any(|k| !(lower[k] < upper[k])) {
        return Err(Error::Other("2-level optimizer: bounds must be non-empty intervals of equal dimension".into()));
    }
    settings.validate(dim)?;
    let mut run = Run { evaluator, selection, lower, upper, settings, db: Database::default(), history: Vec::new() };
    let mut rng = ChaCha8Rng::seed_from_u64(settings.seed);

    let mut doe: Vec<Vec<f64>> = maximin_latin_hypercube(settings.initial_samples, dim, 20, &mut rng)
        .iter()
        .map(|u| scale_to_box(u, lower, upper))
        .collect();
    for (slot, given) in doe.iter_mut().zip(&settings.initial) {
        *slot = given.iter().zip(lower.iter().zip(upper)).map(|(v, (l, h))| v.clamp(*l, *h)).collect();
    }
    run.evaluate(doe);

    let mut cycles = 0;
    while run.db.len() < settings.max_evaluations && !run.target_reached() {
        let k = settings.batch_size.min(settings.max_evaluations - run.db.len());
        let candidates = run.propose(k, cycles as u64, &mut rng)?;
        run.evaluate(candidates);
        cycles += 1;
    }
    let best_index = (0..run.db.len())
        .min_by(|&a, &b| run.db.scores[a].deb_cmp(&run.db.scores[b]))
        .ok_or_else(|| Error::Other("2-level optimizer evaluated nothing".into()))?;
    let evaluations_to_target = settings.target.and_then(|t| run.history.iter().find(|&&(_, v)| v <= t).map(|&(n, _)| n));
    Ok(EgoOutcome {
        best_design: run.db.designs[best_index].clone(),
        best: run.db.scores[best_index].clone(),
        evaluations: run.db.len(),
        cycles,
        history: run.history,
        evaluations_to_target,
        designs: run.db.designs,
        scores: run.db.scores,
    })
}

/// Everything evaluated so far.
#[derive(Default)]
struct Database {
    designs: Vec<Vec<f64>>,
    scores: Vec<Scored>,
    /// Selected constraint values of the designs that ran (empty for failures).
    constraints: Vec<Vec<f64>>,
}

impl Database {
    fn len(&self) -> usize {
        self.designs.len()
    }
    fn best_feasible(&self) -> Option<f64> {
        self.scores.iter().filter(|s| s.is_feasible()).map(|s| s.objective).min_by(f64::total_cmp)
    }
}

struct Run<'a> {
    evaluator: &'a dyn Evaluator,
    selection: &'a Selection,
    lower: &'a [f64],
    upper: &'a [f64],
    settings: &'a EgoSettings,
    db: Database,
    history: Vec<(usize, f64)>,
}

/// The surrogate models of one cycle.
#[derive(Clone)]
struct Surrogates {
    objective: Kriging,
    constraints: Vec<Kriging>,
    /// Kriging of the failure indicator, present once some design failed.
    failure: Option<Kriging>,
}

impl Run<'_> {
    fn evaluate(&mut self, designs: Vec<Vec<f64>>) {
        let evaluations: Vec<Evaluation> = self.evaluator.evaluate_batch(&designs);
        for (i, x) in designs.into_iter().enumerate() {
            let e = evaluations.get(i).cloned().unwrap_or_else(|| {
                Evaluation::failed(crate::eval::Status::Failed("evaluator returned too few results".into()))
            });
            let score = self.selection.score(&e);
            let constraints = if score.failure.is_none() { self.selection.constraint_values(&e).unwrap_or_default() } else { vec![] };
            let best_before = self.db.best_feasible();
            if score.is_feasible() && best_before.is_none_or(|b| score.objective < b) {
                self.history.push((self.db.len() + 1, score.objective));
            }
            self.db.designs.push(x);
            self.db.scores.push(score);
            self.db.constraints.push(constraints);
        }
    }

    fn target_reached(&self) -> bool {
        matches!((self.settings.target, self.db.best_feasible()), (Some(t), Some(b)) if b <= t)
    }

    fn fit_surrogates(&self, cycle: u64) -> Result<Option<Surrogates>> {
        let ran: Vec<usize> = (0..self.db.len()).filter(|&i| self.db.scores[i].failure.is_none()).collect();
        if ran.len() < 2 {
            return Ok(None);
        }
        let mut st = self.settings.kriging.clone();
        st.seed = st.seed.wrapping_add(cycle);
        let x: Vec<Vec<f64>> = ran.iter().map(|&i| self.db.designs[i].clone()).collect();
        let fit = |y: Vec<f64>| Kriging::fit(&x, &y, self.lower, self.upper, &st);
        let objective = fit(ran.iter().map(|&i| self.db.scores[i].objective).collect())?;
        let n_constraints = self.db.constraints[ran[0]].len();
        let constraints = (0..n_constraints)
            .map(|c| fit(ran.iter().map(|&i| self.db.constraints[i][c]).collect()))
            .collect::<Result<Vec<_>>>()?;
        let failure = if ran.len() < self.db.len() {
            let y: Vec<f64> = self.db.scores.iter().map(|s| if s.failure.is_some() { 1.0 } else { -1.0 }).collect();
            Some(Kriging::fit(&self.db.designs, &y, self.lower, self.upper, &st)?)
        } else {
            None
        };
        Ok(Some(Surrogates { objective, constraints, failure }))
    }

    /// Pick `k` distinct designs by the kriging believer.
    fn propose(&self, k: usize, cycle: u64, rng: &mut ChaCha8Rng) -> Result<Vec<Vec<f64>>> {
        let Some(mut models) = self.fit_surrogates(cycle)? else {
            // Fewer than two designs ran: nothing to model yet, explore at random.
            return Ok((0..k).map(|_| self.random_design(rng)).collect());
        };
        let f_min = self.db.best_feasible();
        let mut chosen: Vec<Vec<f64>> = Vec::with_capacity(k);
        for j in 0..k {
            let seed = self.settings.seed.wrapping_mul(1_000_003).wrapping_add(cycle * 1000 + j as u64);
            let mut x = self.search_infill(&models, f_min, seed)?;
            if self.too_close(&x, &chosen) {
                x = self.most_uncertain(&models, &chosen, rng);
            }
            if j + 1 < k {
                models = believe(&models, &x)?;
            }
            chosen.push(x);
        }
        Ok(chosen)
    }

    fn search_infill(&self, models: &Surrogates, f_min: Option<f64>, seed: u64) -> Result<Vec<f64>> {
        let dim = self.lower.len();
        let pop = self.settings.search_population;
        let mut st = DeSettings::for_dimension(dim, pop * (self.settings.search_generations + 1), seed);
        st.population = pop;
        // Start the search from the best known designs as well as from a Latin hypercube.
        let mut order: Vec<usize> = (0..self.db.len()).collect();
        order.sort_by(|&a, &b| self.db.scores[a].deb_cmp(&self.db.scores[b]));
        st.initial = order.iter().take(pop / 4).map(|&i| self.db.designs[i].clone()).collect();
        let acquisition = Acquisition { models, f_min, infill: self.settings.infill };
        Ok(de::minimize(acquisition, self.lower, self.upper, &st)?.best_design)
    }

    fn unit_distance(&self, a: &[f64], b: &[f64]) -> f64 {
        (0..a.len()).map(|k| ((a[k] - b[k]) / (self.upper[k] - self.lower[k])).powi(2)).sum::<f64>().sqrt()
    }

    fn too_close(&self, x: &[f64], pending: &[Vec<f64>]) -> bool {
        self.db.designs.iter().chain(pending).any(|d| self.unit_distance(x, d) < self.settings.min_distance)
    }

    fn random_design(&self, rng: &mut ChaCha8Rng) -> Vec<f64> {
        self.lower.iter().zip(self.upper).map(|(l, h)| l + rng.random::<f64>() * (h - l)).collect()
    }

    /// The random design (of 1000) with the largest objective-model variance.
    fn most_uncertain(&self, models: &Surrogates, pending: &[Vec<f64>], rng: &mut ChaCha8Rng) -> Vec<f64> {
        let mut best = self.random_design(rng);
        let mut best_var = f64::NEG_INFINITY;
        for _ in 0..1000 {
            let x = self.random_design(rng);
            let v = models.objective.predict(&x).variance;
            if v > best_var && !self.too_close(&x, pending) {
                best = x;
                best_var = v;
            }
        }
        best
    }
}

/// Kriging believer: add the models' own predictions at `x` as if they were observed.
fn believe(models: &Surrogates, x: &[f64]) -> Result<Surrogates> {
    let add = |m: &Kriging| m.with_added_samples(&[x.to_vec()], &[m.predict(x).mean]);
    Ok(Surrogates {
        objective: add(&models.objective)?,
        constraints: models.constraints.iter().map(add).collect::<Result<Vec<_>>>()?,
        failure: models.failure.as_ref().map(add).transpose()?,
    })
}

/// The infill criterion as a cost function for DE (minimized).
struct Acquisition<'a> {
    models: &'a Surrogates,
    f_min: Option<f64>,
    infill: Infill,
}

impl Acquisition<'_> {
    /// Sum of ln P(g(x) <= 0) over the constraint models and the failure model.
    fn log_probability_of_feasibility(&self, x: &[f64]) -> f64 {
        self.models
            .constraints
            .iter()
            .chain(self.models.failure.as_ref())
            .map(|m| {
                let p = m.predict(x);
                let s = p.std_dev();
                if s <= 1e-12 * p.mean.abs().max(1e-300) {
                    if p.mean <= 0.0 { 0.0 } else { -1e3 }
                } else {
                    ln_normal_cdf(-p.mean / s)
                }
            })
            .sum()
    }
}

impl CostFunction for Acquisition<'_> {
    type Param = Vec<f64>;
    type Output = Scored;

    fn cost(&self, x: &Vec<f64>) -> std::result::Result<Scored, ArgminError> {
        let p = self.models.objective.predict(x);
        Ok(match self.infill {
            Infill::ExpectedImprovement => {
                let ln_pof = self.log_probability_of_feasibility(x);
                let ln_ei = self.f_min.map_or(0.0, |f_min| ln_expected_improvement(f_min, p.mean, p.std_dev()));
                Scored::feasible(-(ln_ei + ln_pof))
            }
            Infill::LowerConfidenceBound { kappa } => {
                let violation: f64 = self
                    .models
                    .constraints
                    .iter()
                    .chain(self.models.failure.as_ref())
                    .map(|m| m.predict(x).mean.max(0.0))
                    .sum();
                Scored { objective: p.mean - kappa * p.std_dev(), violation, failure: None }
            }
        })
    }
}

/// ln of the expected improvement below `f_min` of a normal prediction (mean `mu`, std `s`),
/// accurate far into the tail so that the search sees a slope where EI underflows.
pub fn ln_expected_improvement(f_min: f64, mu: f64, s: f64) -> f64 {
    if !(s > 1e-14 * mu.abs().max(f_min.abs()).max(1e-300)) {
        return (f_min - mu).max(1e-300).ln();
    }
    let z = (f_min - mu) / s;
    if z > -10.0 {
        // EI = s (z Phi(z) + phi(z)) (Jones et al. 1998, eq. 15).
        let v = z * ln_normal_cdf(z).exp() + normal_pdf(z);
        s.ln() + v.max(1e-300).ln()
    } else {
        // z Phi(z) + phi(z) = phi(z) / z^2 (1 - 3 / z^2 + 15 / z^4 - ...) for z -> -inf.
        s.ln() - 0.5 * z * z - 0.5 * (2.0 * std::f64::consts::PI).ln() - 2.0 * (-z).ln() + (1.0 - 3.0 / (z * z) + 15.0 / z.powi(4)).ln()
    }
}

fn normal_pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// ln Phi(z) with relative accuracy ~1e-7 for all z (Phi(z) = erfc(-z / sqrt 2) / 2, erfc by the
/// Chebyshev fit of Numerical Recipes, 2nd ed., sec. 6.2, kept in log form so it never underflows).
pub fn ln_normal_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ln_erfc_abs = t.ln() + poly; // ln erfc(|x|)
    if x >= 0.0 {
        ln_erfc_abs - std::f64::consts::LN_2
    } else {
        // erfc(x) = 2 - erfc(|x|)
        (1.0 - 0.5 * ln_erfc_abs.exp()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem, BraninFailingRight};

    #[test]
    fn failed_designs_feed_the_failure_model_and_the_run_goes_on() {
        let e = BraninFailingRight::new();
        let s = e.space().clone();
        let mut st = EgoSettings::for_dimension(2, 40, 4);
        st.batch_size = 2;
        let out = minimize(&e, &Selection::default(), &s.lower, &s.upper, &st).unwrap();
        let failures = out.scores.iter().filter(|s| s.failure.is_some()).count();
        assert!(failures > 0, "the initial design should hit the failing region");
        assert_eq!(out.evaluations, 40);
        assert!(out.best.is_feasible() && out.best_design[0] <= 5.0);
        assert!(out.best.objective < 0.41, "{}", out.best.objective);
        // Distinct designs: the batches never repeat a design.
        for i in 0..out.designs.len() {
            for j in 0..i {
                assert_ne!(out.designs[i], out.designs[j]);
            }
        }
    }

    #[test]
    fn lower_confidence_bound_option_finds_branin_minimum() {
        let e = AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap();
        let s = e.space().clone();
        let mut st = EgoSettings::for_dimension(2, 40, 2);
        st.infill = Infill::LowerConfidenceBound { kappa: 2.0 };
        let out = minimize(&e, &Selection::default(), &s.lower, &s.upper, &st).unwrap();
        assert!(out.best.objective < 0.41, "{}", out.best.objective);
    }

    #[test]
    fn normal_cdf_values_and_tail() {
        assert!((ln_normal_cdf(0.0).exp() - 0.5).abs() < 1e-7);
        assert!((ln_normal_cdf(1.959_963_985).exp() - 0.975).abs() < 1e-7);
        assert!((ln_normal_cdf(-1.959_963_985).exp() - 0.025).abs() < 1e-8);
        // ln Phi(-30) = -454.3212439563 (Python: log(0.5 * erfc(30 / sqrt(2)))).
        assert!((ln_normal_cdf(-30.0) - (-454.321_243_956_3)).abs() < 1e-6, "{}", ln_normal_cdf(-30.0));
    }

    #[test]
    fn expected_improvement_is_continuous_across_the_tail_switch() {
        let a = ln_expected_improvement(0.0, 10.0 - 1e-9, 1.0);
        let b = ln_expected_improvement(0.0, 10.0 + 1e-9, 1.0);
        assert!((a - b).abs() < 1e-3, "{a} {b}");
        // At z = 0, EI = s phi(0).
        assert!((ln_expected_improvement(1.0, 1.0, 2.0) - (2.0 * normal_pdf(0.0)).ln()).abs() < 1e-7);
    }
}
