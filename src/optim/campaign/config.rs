//! The campaign file: its RON schema, the evaluator and optimizer it configures, and the design
//! space and selection it gives the optimizer. A campaign whose settings cannot run fails here,
//! before anything is evaluated.

use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem};
use crate::eval::{DesignSpace, Evaluator};
use crate::optim::acquisition::Infill;
use crate::optim::de::{BoundHandling, DeSettings, ParameterControl, Strategy, Variant};
use crate::optim::ego::EgoSettings;
use crate::optim::gde3::Gde3Settings;
use crate::optim::kriging::Correlation;
use crate::optim::kriging_front::KrigingFrontSettings;
use crate::optim::{FrontSelection, Selection};

/// Which evaluator a campaign runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CampaignEvaluator {
    /// An analytic test problem.
    Analytic(AnalyticProblem),
    /// The CFD evaluator of a cascade blade (paths relative to the working directory).
    Cfd(crate::eval::cfd::EvaluatorConfig),
}

/// New bounds for one design variable.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundOverride {
    pub variable: String,
    pub lower: f64,
    pub upper: f64,
}

/// The optimizer and the settings that differ from its defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OptimizerConfig {
    DifferentialEvolution {
        /// The named variant whose settings the others override; L-SHADE when absent.
        #[serde(default)]
        variant: Option<Variant>,
        #[serde(default)]
        population: Option<usize>,
        #[serde(default)]
        strategy: Option<Strategy>,
        #[serde(default)]
        control: Option<ParameterControl>,
        #[serde(default)]
        bounds: Option<BoundHandling>,
    },
    /// Kriging-assisted optimization (thesis 7.2).
    TwoLevel {
        #[serde(default)]
        initial_samples: Option<usize>,
        #[serde(default)]
        batch_size: Option<usize>,
        #[serde(default)]
        infill: Option<Infill>,
        #[serde(default)]
        correlation: Option<Correlation>,
    },
    /// GDE3, multi-objective differential evolution (`optim::gde3`): a front over `objectives`.
    Gde3 {
        #[serde(default)]
        population: Option<usize>,
        #[serde(default)]
        control: Option<ParameterControl>,
        #[serde(default)]
        bounds: Option<BoundHandling>,
    },
    /// Kriging-assisted multi-objective optimization by expected hypervolume improvement
    /// (`optim::kriging_front`): a front over `objectives`.
    KrigingFront {
        #[serde(default)]
        initial_samples: Option<usize>,
        #[serde(default)]
        batch_size: Option<usize>,
        #[serde(default)]
        correlation: Option<Correlation>,
    },
}

impl OptimizerConfig {
    /// Whether the optimizer finds a front over several objectives.
    pub fn is_multi_objective(&self) -> bool {
        matches!(self, OptimizerConfig::Gde3 { .. } | OptimizerConfig::KrigingFront { .. })
    }
}

/// A campaign as written in its RON file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignConfig {
    pub name: String,
    pub evaluator: CampaignEvaluator,
    /// Optimize only these design variables (the others stay at their baseline values);
    /// all of the evaluator's when absent.
    #[serde(default)]
    pub variables: Option<Vec<String>>,
    #[serde(default)]
    pub bounds: Vec<BoundOverride>,
    /// Objective name; the evaluator's first objective when absent.
    #[serde(default)]
    pub objective: Option<String>,
    /// Objective names of a front (two or more), for the multi-objective optimizers (`Gde3`,
    /// `KrigingFront`), instead of `objective`; those take all of the evaluator's objectives
    /// when this is absent.
    #[serde(default)]
    pub objectives: Option<Vec<String>>,
    /// The front's hypervolume reference point, one value per objective of `objectives`; the
    /// optimizer's widened nadir of its first batch when absent. Either way the summary states it.
    #[serde(default)]
    pub reference_point: Option<Vec<f64>>,
    /// Constraint names; all of the evaluator's constraints when absent.
    #[serde(default)]
    pub constraints: Option<Vec<String>>,
    pub optimizer: OptimizerConfig,
    /// Evaluations in all, the baseline included.
    pub budget: usize,
    pub seed: u64,
    /// Stop early once the best feasible objective is at or below this value.
    #[serde(default)]
    pub target: Option<f64>,
}

impl CampaignConfig {
    pub fn from_ron_str(text: &str, origin: &str) -> Result<Self> {
        ron::from_str(text).map_err(|e| Error::Input { path: origin.to_string(), reason: e.to_string() })
    }
    pub fn from_ron_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Self::from_ron_str(&text, &path.display().to_string())
    }
    pub fn to_ron_string(&self) -> Result<String> {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).map_err(|e| Error::Other(format!("RON: {e}")))
    }
}

/// The one place where a campaign's evaluator configuration becomes an evaluator.
pub fn build_evaluator(config: &CampaignEvaluator) -> Result<Box<dyn Evaluator>> {
    match config {
        CampaignEvaluator::Analytic(p) => Ok(Box::new(AnalyticEvaluator::new(p.clone())?)),
        CampaignEvaluator::Cfd(c) => {
            c.validate().map_err(|reason| Error::Input { path: c.blade.display().to_string(), reason })?;
            Ok(Box::new(crate::eval::cfd::CfdEvaluator::new(c.clone())?))
        }
    }
}

/// The design space after the campaign's bound overrides.
pub(super) fn effective_space(config: &CampaignConfig, space: &DesignSpace) -> Result<DesignSpace> {
    let mut s = space.clone();
    for o in &config.bounds {
        let i = s.names.iter().position(|n| *n == o.variable).ok_or_else(|| {
            Error::Other(format!("campaign {}: no design variable named {} (have {:?})", config.name, o.variable, s.names))
        })?;
        if !(o.lower < o.upper) || !o.lower.is_finite() || !o.upper.is_finite() {
            return Err(Error::Other(format!("campaign {}: bounds [{}, {}] of {} are not an interval", config.name, o.lower, o.upper, o.variable)));
        }
        s.lower[i] = o.lower;
        s.upper[i] = o.upper;
        s.baseline[i] = s.baseline[i].clamp(o.lower, o.upper);
    }
    Ok(s)
}

/// The objectives and constraints the optimizer sees. A front campaign's [`Selection`] names its
/// first objective: the log's `objective` column and the summary's best design by Deb's rules.
pub(super) fn selection(config: &CampaignConfig, evaluator: &dyn Evaluator) -> Result<Selection> {
    let objectives = evaluator.objective_names();
    let index = |name: &String| {
        objectives.iter().position(|n| n == name).ok_or_else(|| Error::Other(format!("campaign {}: no objective named {name} (have {objectives:?})", config.name)))
    };
    let objective = match (&config.objective, &config.objectives) {
        (Some(_), Some(_)) => return Err(Error::Other(format!("campaign {}: give objective or objectives, not both", config.name))),
        _ if objectives.is_empty() => return Err(Error::Other("the evaluator has no objective".into())),
        (Some(name), None) => index(name)?,
        (None, Some(front)) => index(front.first().ok_or_else(|| Error::Other(format!("campaign {}: objectives is empty", config.name)))?)?,
        (None, None) => 0,
    };
    let names = evaluator.constraint_names();
    let constraints = match &config.constraints {
        None => None,
        Some(wanted) => Some(
            wanted
                .iter()
                .map(|w| {
                    names.iter().position(|n| n == w).ok_or_else(|| {
                        Error::Other(format!("campaign {}: no constraint named {w} (have {names:?})", config.name))
                    })
                })
                .collect::<Result<Vec<_>>>()?,
        ),
    };
    Ok(Selection { objective, constraints })
}

/// A front campaign's objectives and constraints; `None` for a single-objective campaign. A
/// multi-objective optimizer works on the named `objectives` (two or more), or on all of the
/// evaluator's when none are named; a single-objective one takes no `objectives`.
pub(super) fn front_selection(config: &CampaignConfig, evaluator: &dyn Evaluator) -> Result<Option<FrontSelection>> {
    let single = selection(config, evaluator)?;
    let err = |reason: String| Err(Error::Other(format!("campaign {}: {reason}", config.name)));
    let names = evaluator.objective_names();
    let front: Vec<String> = match (&config.objectives, config.optimizer.is_multi_objective()) {
        (None, false) if config.reference_point.is_some() => return err("reference_point needs a front (Gde3 or KrigingFront)".into()),
        (None, false) => return Ok(None),
        (Some(_), false) => return err("objectives (a front) needs a multi-objective optimizer: Gde3 or KrigingFront".into()),
        (Some(front), true) => front.clone(),
        (None, true) => names.clone(),
    };
    if front.len() < 2 {
        return err(format!("a front needs at least two objectives, got {front:?}"));
    }
    let objectives = front
        .iter()
        .map(|n| names.iter().position(|m| m == n).ok_or_else(|| Error::Other(format!("campaign {}: no objective named {n} (have {names:?})", config.name))))
        .collect::<Result<Vec<_>>>()?;
    if let Some(r) = &config.reference_point {
        if r.len() != front.len() || r.iter().any(|v| !v.is_finite()) {
            return err(format!("reference_point {r:?} needs {} finite values, one per objective", front.len()));
        }
    }
    Ok(Some(FrontSelection { objectives, constraints: single.constraints }))
}

/// The names of a front campaign's objectives (all of the evaluator's when it names none).
pub fn front_objective_names(config: &CampaignConfig, evaluator: &dyn Evaluator) -> Vec<String> {
    config.objectives.clone().unwrap_or_else(|| evaluator.objective_names())
}

/// The campaign's optimizer with its settings for `dim` variables and the budget after the
/// baseline, checked: a campaign whose settings cannot run fails before anything is evaluated.
pub(super) enum ConfiguredOptimizer {
    DifferentialEvolution(DeSettings),
    TwoLevel(EgoSettings),
    Gde3(Gde3Settings),
    KrigingFront(KrigingFrontSettings),
}

pub(super) fn configure_optimizer(config: &CampaignConfig, dim: usize) -> Result<ConfiguredOptimizer> {
    let budget = config.budget.saturating_sub(1);
    let configured = match &config.optimizer {
        OptimizerConfig::DifferentialEvolution { variant, population, strategy, control, bounds } => {
            let mut st = DeSettings::variant(variant.unwrap_or(Variant::LShade), dim, budget, config.seed);
            st.population = population.unwrap_or(st.population).min(budget);
            st.final_population = st.final_population.map(|n| n.min(st.population));
            st.strategy = strategy.unwrap_or(st.strategy);
            st.control = control.unwrap_or(st.control);
            st.bounds = bounds.unwrap_or(st.bounds);
            st.target = config.target;
            st.validate(dim)?;
            ConfiguredOptimizer::DifferentialEvolution(st)
        }
        OptimizerConfig::TwoLevel { initial_samples, batch_size, infill, correlation } => {
            let mut st = EgoSettings::for_dimension(dim, budget, config.seed);
            st.initial_samples = initial_samples.unwrap_or(st.initial_samples).min(budget);
            st.batch_size = batch_size.unwrap_or(st.batch_size);
            st.infill = infill.unwrap_or(st.infill);
            st.kriging.correlation = correlation.unwrap_or(st.kriging.correlation);
            st.target = config.target;
            st.validate(dim)?;
            ConfiguredOptimizer::TwoLevel(st)
        }
        OptimizerConfig::Gde3 { population, control, bounds } => {
            let mut st = Gde3Settings::for_budget(budget, config.seed);
            st.population = population.unwrap_or(st.population).min(budget);
            st.control = control.unwrap_or(st.control);
            st.bounds = bounds.unwrap_or(st.bounds);
            st.reference = config.reference_point.clone();
            st.validate(dim)?;
            ConfiguredOptimizer::Gde3(st)
        }
        OptimizerConfig::KrigingFront { initial_samples, batch_size, correlation } => {
            let mut st = KrigingFrontSettings::for_dimension(dim, budget, config.seed);
            st.initial_samples = initial_samples.unwrap_or(st.initial_samples).min(budget);
            st.batch_size = batch_size.unwrap_or(st.batch_size);
            st.kriging.correlation = correlation.unwrap_or(st.kriging.correlation);
            st.reference = config.reference_point.clone();
            st.validate(dim)?;
            ConfiguredOptimizer::KrigingFront(st)
        }
    };
    if config.target.is_some() && config.optimizer.is_multi_objective() {
        return Err(crate::optim::OptimError::Settings { optimizer: "campaign", reason: "target is a single-objective stop rule; a front runs its budget".into() }.into());
    }
    Ok(configured)
}

/// Checks that the campaign's optimizer settings can run over `dim` design variables with its
/// budget (e.g. a DE population cut below 4 by a small budget), before anything costly (the
/// performance model of `auto`, the baseline) is done.
pub fn check_optimizer(config: &CampaignConfig, dim: usize) -> Result<()> {
    configure_optimizer(config, dim).map(|_| ()).map_err(|e| Error::Other(format!("campaign {}: {e}", config.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn campaign_ron_round_trips_and_cfd_is_left_to_wire() {
        let text = r#"(
            name: "g06",
            evaluator: Analytic(G06),
            bounds: [(variable: "x1", lower: 13.0, upper: 20.0)],
            constraints: Some(["g1", "g2"]),
            optimizer: DifferentialEvolution(population: Some(20)),
            budget: 400,
            seed: 3,
        )"#;
        let c = CampaignConfig::from_ron_str(text, "inline").unwrap();
        assert_eq!(CampaignConfig::from_ron_str(&c.to_ron_string().unwrap(), "again").unwrap(), c);
        assert!(build_evaluator(&c.evaluator).is_ok());
        let mut cfd_config = crate::eval::cfd::EvaluatorConfig::for_blade("no/such/blade.ron");
        cfd_config.objectives = vec![crate::eval::objectives::Objective::EntropyRise];
        assert!(build_evaluator(&CampaignEvaluator::Cfd(cfd_config)).is_err(), "missing blade file is an error");
        assert!(CampaignConfig::from_ron_str("(name: 1)", "bad").is_err());
    }
}
