//! [`run_campaign`]: the baseline, then the optimizer over the campaign's recorder (the log first),
//! then the summary and the pictures; a resume replays the log first.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::path::Path;
use std::sync::Mutex;
use std::time::Instant;

use super::config::{configure_optimizer, effective_space, front_selection, selection, CampaignConfig, ConfiguredOptimizer};
use super::front::{front_of_log, plot_front, plot_hypervolume, write_front_csv, FrontSummary};
use super::log::{json_f64, read_log, Checkpoint, EvaluationRecord, LogWriter, CHECKPOINT_FILE, CONFIG_FILE, LOG_FILE, SUMMARY_FILE};
use super::progress::CampaignObserver;
use super::recorder::{Recorder, RecorderState};
use crate::error::{Error, Result};
use crate::eval::{DesignSpace, Evaluator};
use crate::files::write_atomic;
use crate::optim::de::DifferentialEvolution;
use crate::optim::ego::TwoLevel;
use crate::optim::front::minimize_front;
use crate::optim::gde3::Gde3;
use crate::optim::kriging_front::KrigingFront;
use crate::optim::problem::EvaluatorProblem;
use crate::optim::{FrontSelection, Selection};

/// What a campaign ends with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignSummary {
    pub name: String,
    pub variables: Vec<String>,
    /// Best design by Deb's rules (feasible whenever a feasible one was found).
    pub best_design: Vec<f64>,
    #[serde(with = "json_f64")]
    pub best_objective: f64,
    pub best_feasible: bool,
    #[serde(with = "json_f64")]
    pub baseline_objective: f64,
    pub baseline_feasible: bool,
    /// baseline - best (positive is better), when both are feasible.
    pub improvement: Option<f64>,
    /// improvement / |baseline|.
    pub relative_improvement: Option<f64>,
    /// Evaluations in the log (the baseline included).
    pub evaluations: usize,
    /// Of those, answered from the log of an earlier run.
    pub replayed: usize,
    pub failed: usize,
    /// Wall time over all runs.
    pub wall_s: f64,
    pub termination: String,
    /// A front campaign's front (the fields above then speak of its first objective).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front: Option<FrontSummary>,
}

/// Run (or resume) a campaign with `evaluator` (see [`build_evaluator`](super::build_evaluator) for the mapping from the
/// configuration), writing everything into `out_dir`.
pub fn run_campaign(
    config: &CampaignConfig,
    evaluator: &dyn Evaluator,
    out_dir: &Path,
    resume: bool,
    observer: &mut dyn CampaignObserver,
) -> Result<CampaignSummary> {
    match &config.variables {
        Some(names) => {
            let sub = crate::eval::subspace::SubspaceEvaluator::new(evaluator, names)?;
            run_campaign_on(config, &sub, out_dir, resume, observer)
        }
        None => run_campaign_on(config, evaluator, out_dir, resume, observer),
    }
}

fn run_campaign_on(
    config: &CampaignConfig,
    evaluator: &dyn Evaluator,
    out_dir: &Path,
    resume: bool,
    observer: &mut dyn CampaignObserver,
) -> Result<CampaignSummary> {
    let space = effective_space(config, evaluator.space())?;
    let selection = selection(config, evaluator)?;
    let front_view = front_selection(config, evaluator)?;
    if config.budget < 2 {
        return Err(Error::Other(format!("campaign {}: budget {} leaves nothing after the baseline", config.name, config.budget)));
    }
    let optimizer = configure_optimizer(config, space.dim()).map_err(|e| Error::Other(format!("campaign {}: {e}", config.name)))?;
    fs::create_dir_all(out_dir).map_err(|e| Error::io(out_dir, e))?;
    let config_path = out_dir.join(CONFIG_FILE);
    let log_path = out_dir.join(LOG_FILE);
    let checkpoint_path = out_dir.join(CHECKPOINT_FILE);

    let (replay, elapsed_before) = if resume {
        if config_path.exists() {
            let previous = CampaignConfig::from_ron_file(&config_path)?;
            if previous != *config {
                return Err(Error::Other(format!(
                    "{} holds a different campaign; resume needs the same configuration",
                    config_path.display()
                )));
            }
        }
        let elapsed = fs::read(&checkpoint_path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Checkpoint>(&b).ok())
            .map_or(0.0, |c| c.elapsed_s);
        (read_log(&log_path)?.into_iter().map(|r| (r.index, r)).collect(), elapsed)
    } else {
        if fs::metadata(&log_path).map(|m| m.len() > 0).unwrap_or(false) {
            return Err(Error::Other(format!("{} already holds results: resume, or choose another directory", out_dir.display())));
        }
        (BTreeMap::new(), 0.0)
    };
    write_atomic(&config_path, config.to_ron_string()?.as_bytes())?;
    let log = OpenOptions::new().create(true).append(true).open(&log_path).map_err(|e| Error::io(&log_path, e))?;

    observer.on_start(config.budget, replay.len());
    let replayed = replay.len().min(config.budget);
    let recorder = Recorder {
        inner: evaluator,
        space: space.clone(),
        selection: selection.clone(),
        log: Mutex::new(LogWriter { file: log, path: log_path.clone(), error: None }),
        state: Mutex::new(RecorderState {
            replay,
            records: Vec::new(),
            mismatch: None,
            interrupted: false,
            checkpoint_path,
            name: config.name.clone(),
            best: None,
            started: Instant::now(),
            elapsed_before,
            observer,
        }),
    };

    recorder.evaluate_batch(std::slice::from_ref(&space.baseline));
    let ran = run_optimizer(optimizer, &recorder, &selection, front_view.as_ref())?;

    let state = recorder.state.into_inner().unwrap_or_else(|p| p.into_inner());
    if state.interrupted {
        return Err(Error::Interrupted(format!(
            "campaign {} stopped after {} evaluations, all in {}; resume it to go on",
            config.name,
            state.records.len(),
            out_dir.join(LOG_FILE).display()
        )));
    }
    if let Some(m) = state.mismatch {
        return Err(Error::Other(format!("resume of {}: {m}", config.name)));
    }
    if let Some(e) = recorder.log.into_inner().unwrap_or_else(|p| p.into_inner()).error {
        return Err(e);
    }
    state.checkpoint(true)?;
    let mut summary = summarize(config, &space, &state.records, replayed, state.elapsed(), ran.termination)?;
    if let (Some(view), Some(reference)) = (&front_view, ran.reference) {
        let names = super::config::front_objective_names(config, evaluator);
        summary.front = Some(front_of_log(&state.records, view, names, reference));
    }
    let json = serde_json::to_vec_pretty(&summary).map_err(|e| Error::Other(format!("JSON: {e}")))?;
    write_atomic(&out_dir.join(SUMMARY_FILE), &json)?;
    // Independent pictures, drawn side by side.
    let (convergence, evaluations) = rayon::join(
        || super::plots::convergence(&out_dir.join("convergence.png"), &config.name, &state.records),
        || super::plots::evaluations(&out_dir.join("evaluations.png"), &config.name, &state.records),
    );
    convergence?;
    evaluations?;
    if let (Some(view), Some(front)) = (&front_view, &summary.front) {
        write_front_csv(&out_dir.join("front.csv"), front, &space.names)?;
        let (picture, history) = rayon::join(
            || plot_front(&out_dir.join("front.png"), &config.name, &state.records, view, front),
            || plot_hypervolume(&out_dir.join("hypervolume.png"), &config.name, state.records.len(), front),
        );
        picture?;
        history?;
    }
    state.observer.on_finish(&summary);
    Ok(summary)
}

/// Why the optimizer stopped, and a front optimizer's hypervolume reference point.
struct OptimizerRun {
    termination: String,
    reference: Option<Vec<f64>>,
}

/// Run the configured optimizer on the remaining budget.
fn run_optimizer(optimizer: ConfiguredOptimizer, recorder: &Recorder, selection: &Selection, front: Option<&FrontSelection>) -> Result<OptimizerRun> {
    let single = |termination: String| Ok(OptimizerRun { termination, reference: None });
    let front_problem = || -> Result<EvaluatorProblem<'_, FrontSelection>> {
        let view = front.cloned().ok_or_else(|| Error::Other("a multi-objective optimizer without objectives".into()))?;
        Ok(EvaluatorProblem::new(recorder, view)?)
    };
    match optimizer {
        ConfiguredOptimizer::DifferentialEvolution(st) => {
            let out = crate::optim::minimize(EvaluatorProblem::new(recorder, selection.clone())?, DifferentialEvolution::new(st))?;
            single(out.termination)
        }
        ConfiguredOptimizer::TwoLevel(st) => {
            let out = crate::optim::minimize(EvaluatorProblem::new(recorder, selection.clone())?, TwoLevel::new(st))?;
            let reached = out.evaluations_to_target.is_some();
            single(if reached { "target reached".into() } else { "evaluation budget spent".into() })
        }
        ConfiguredOptimizer::Gde3(st) => {
            let out = minimize_front(front_problem()?, Gde3::new(st))?;
            Ok(OptimizerRun { termination: out.termination, reference: Some(out.reference) })
        }
        ConfiguredOptimizer::KrigingFront(st) => {
            let out = minimize_front(front_problem()?, KrigingFront::new(st))?;
            Ok(OptimizerRun { termination: out.termination, reference: Some(out.reference) })
        }
    }
}

fn summarize(
    config: &CampaignConfig,
    space: &DesignSpace,
    records: &[EvaluationRecord],
    replayed: usize,
    wall_s: f64,
    termination: String,
) -> Result<CampaignSummary> {
    let baseline = records.first().ok_or_else(|| Error::Other("campaign evaluated nothing".into()))?;
    let best = records.iter().min_by(|a, b| a.score().deb_cmp(&b.score())).unwrap_or(baseline);
    let improvement = (best.feasible && baseline.feasible).then_some(baseline.objective - best.objective);
    Ok(CampaignSummary {
        name: config.name.clone(),
        variables: space.names.clone(),
        best_design: best.design.clone(),
        best_objective: best.objective,
        best_feasible: best.feasible,
        baseline_objective: baseline.objective,
        baseline_feasible: baseline.feasible,
        improvement,
        relative_improvement: improvement.filter(|_| baseline.objective != 0.0).map(|d| d / baseline.objective.abs()),
        evaluations: records.len(),
        replayed,
        failed: records.iter().filter(|r| r.failure.is_some()).count(),
        wall_s,
        termination,
        front: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::campaign::{build_evaluator, SilentObserver};

    #[test]
    fn de_variant_is_chosen_by_name() {
        let mut summaries = Vec::new();
        for variant in ["Jde", "LShade"] {
            let text = format!(
                r#"(name: "branin-{variant}", evaluator: Analytic(Branin), optimizer: DifferentialEvolution(variant: Some({variant})), budget: 1000, seed: 2)"#
            );
            let c = CampaignConfig::from_ron_str(&text, "inline").unwrap();
            let dir = std::env::temp_dir().join(format!("turbopt-variant-{variant}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            let e = build_evaluator(&c.evaluator).unwrap();
            let summary = run_campaign(&c, e.as_ref(), &dir, false, &mut SilentObserver).unwrap();
            let _ = fs::remove_dir_all(&dir);
            assert_eq!(summary.evaluations, 1000);
            assert!(summary.best_objective < 0.3980, "{variant}: {}", summary.best_objective);
            summaries.push(summary);
        }
        // Different algorithms, different runs.
        assert_ne!(summaries[0].best_design, summaries[1].best_design);
    }
}
