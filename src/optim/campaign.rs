//! Optimization campaigns: a RON file names the evaluator, the design-space overrides, the
//! objective and constraints, the optimizer and its settings, the budget and the seed.
//!
//! [`run_campaign`] evaluates the baseline, runs the optimizer, and keeps in `out_dir`:
//! - `campaign.ron`: the configuration the results belong to;
//! - `evaluations.jsonl`: one JSON line per completed evaluation, appended and flushed as soon
//!   as it is known (append-only; the source of truth). The designs of a batch finish in any
//!   order (several workers, GPUs or MPI ranks), so their lines may too: each carries its index;
//! - `checkpoint.json`: progress (evaluations, best so far, elapsed time), rewritten atomically
//!   (temporary file + rename) after every batch;
//! - `summary.json`, `convergence.png`, `evaluations.png` at the end.
//!
//! Resume: the optimizers are deterministic for a given seed, so a resumed campaign simply
//! re-runs the optimizer and answers every design found in the log from the log (bit-exact,
//! checked design by design) instead of evaluating it again. Once the log is used up, new
//! evaluations are appended. The result is the one an uninterrupted run would have produced,
//! and no logged evaluation is repeated. A line cut short by a kill is dropped. A kill in the
//! middle of a batch leaves the batch's finished evaluations logged and its others missing:
//! a resume answers the first from the log and evaluates only the others.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use super::acquisition::Infill;
use super::de::{BoundHandling, Control, DeSettings, DifferentialEvolution, Strategy, Variant};
use super::ego::{EgoSettings, TwoLevel};
use super::kriging::Correlation;
use super::problem::EvaluatorProblem;
use super::{Scored, Selection};
use crate::error::{Error, Result};
use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem};
use crate::eval::{DesignSpace, Diagnostics, Evaluation, Evaluator, Status};

/// Which evaluator a campaign runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum EvaluatorConfig {
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
        control: Option<Control>,
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
}

/// A campaign as written in its RON file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CampaignConfig {
    pub name: String,
    pub evaluator: EvaluatorConfig,
    /// Optimize only these design variables (the others stay at their baseline values);
    /// all of the evaluator's when absent.
    #[serde(default)]
    pub variables: Option<Vec<String>>,
    #[serde(default)]
    pub bounds: Vec<BoundOverride>,
    /// Objective name; the evaluator's first objective when absent.
    #[serde(default)]
    pub objective: Option<String>,
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
pub fn build_evaluator(config: &EvaluatorConfig) -> Result<Box<dyn Evaluator>> {
    match config {
        EvaluatorConfig::Analytic(p) => Ok(Box::new(AnalyticEvaluator::new(p.clone())?)),
        EvaluatorConfig::Cfd(c) => {
            c.validate().map_err(|reason| Error::Input { path: c.blade.display().to_string(), reason })?;
            Ok(Box::new(crate::eval::cfd::CfdEvaluator::new(c.clone())?))
        }
    }
}

/// Progress callbacks; the CLI attaches [`ProgressBarObserver`].
pub trait CampaignObserver: Send {
    fn on_start(&mut self, _budget: usize, _logged: usize) {}
    fn on_evaluation(&mut self, _record: &EvaluationRecord, _best_feasible: Option<f64>) {}
    fn on_finish(&mut self, _summary: &CampaignSummary) {}
}

/// Observes nothing.
pub struct SilentObserver;
impl CampaignObserver for SilentObserver {}

/// An indicatif bar: evaluations done out of the budget, and the best feasible value.
pub struct ProgressBarObserver {
    bar: indicatif::ProgressBar,
}

impl ProgressBarObserver {
    pub fn new() -> Self {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} evaluations  best {msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        ProgressBarObserver { bar }
    }
}

impl Default for ProgressBarObserver {
    fn default() -> Self {
        Self::new()
    }
}

impl CampaignObserver for ProgressBarObserver {
    fn on_start(&mut self, budget: usize, _logged: usize) {
        self.bar.set_length(budget as u64);
        self.bar.set_message("none feasible yet");
    }
    fn on_evaluation(&mut self, _record: &EvaluationRecord, best: Option<f64>) {
        self.bar.inc(1);
        if let Some(b) = best {
            self.bar.set_message(format!("{b:.6e}"));
        }
    }
    fn on_finish(&mut self, summary: &CampaignSummary) {
        self.bar.finish_with_message(format!("{:.6e} ({})", summary.best_objective, summary.termination));
    }
}

/// JSON has no NaN or infinity: such values are written as the strings "NaN", "inf", "-inf".
mod json_f64 {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Number(f64),
        Text(String),
    }

    fn to_repr(v: f64) -> Repr {
        if v.is_finite() {
            Repr::Number(v)
        } else if v.is_nan() {
            Repr::Text("NaN".into())
        } else if v > 0.0 {
            Repr::Text("inf".into())
        } else {
            Repr::Text("-inf".into())
        }
    }

    fn from_repr<E: serde::de::Error>(r: Repr) -> Result<f64, E> {
        match r {
            Repr::Number(v) => Ok(v),
            Repr::Text(t) => match t.as_str() {
                "NaN" => Ok(f64::NAN),
                "inf" => Ok(f64::INFINITY),
                "-inf" => Ok(f64::NEG_INFINITY),
                other => Err(E::custom(format!("not a number: {other}"))),
            },
        }
    }

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        to_repr(*v).serialize(s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        from_repr(Repr::deserialize(d)?)
    }

    pub mod vec {
        use super::*;
        pub fn serialize<S: Serializer>(v: &[f64], s: S) -> Result<S::Ok, S::Error> {
            v.iter().map(|x| to_repr(*x)).collect::<Vec<_>>().serialize(s)
        }
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
            Vec::<Repr>::deserialize(d)?.into_iter().map(from_repr).collect()
        }
    }
}

/// One line of `evaluations.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluationRecord {
    /// 0 for the baseline, then in evaluation order.
    pub index: usize,
    #[serde(with = "json_f64::vec")]
    pub design: Vec<f64>,
    #[serde(with = "json_f64::vec")]
    pub objectives: Vec<f64>,
    #[serde(with = "json_f64::vec")]
    pub constraints: Vec<f64>,
    pub status: Status,
    pub iterations: usize,
    #[serde(with = "json_f64")]
    pub residual_drop_orders: f64,
    #[serde(with = "json_f64")]
    pub solver_wall_s: f64,
    pub backend: String,
    pub scheme: String,
    /// The selected objective and the total violation the optimizer saw.
    #[serde(with = "json_f64")]
    pub objective: f64,
    #[serde(with = "json_f64")]
    pub violation: f64,
    pub feasible: bool,
    pub failure: Option<String>,
    /// Seconds since the campaign started (all runs of it, a resumed campaign included).
    pub elapsed_s: f64,
    /// Why each operating point's solve stopped (CFD evaluations).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stops: Vec<String>,
    /// The recovery chain's attempts at points that needed more than one (`cascade::recovery`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<crate::cascade::Attempt>,
}

impl EvaluationRecord {
    fn new(index: usize, design: &[f64], e: &Evaluation, s: &Scored, elapsed_s: f64) -> Self {
        EvaluationRecord {
            index,
            design: design.to_vec(),
            objectives: e.objectives.clone(),
            constraints: e.constraints.clone(),
            status: e.status.clone(),
            iterations: e.diagnostics.iterations,
            residual_drop_orders: e.diagnostics.residual_drop_orders,
            solver_wall_s: e.diagnostics.wall_s,
            backend: e.diagnostics.backend.clone(),
            scheme: e.diagnostics.scheme.clone(),
            objective: s.objective,
            violation: s.violation,
            feasible: s.is_feasible(),
            failure: s.failure.clone(),
            elapsed_s,
            stops: e.diagnostics.stops.clone(),
            attempts: e.diagnostics.attempts.clone(),
        }
    }

    /// The evaluation as the evaluator returned it (`cached` marks that it came from the log).
    pub fn evaluation(&self) -> Evaluation {
        Evaluation {
            objectives: self.objectives.clone(),
            constraints: self.constraints.clone(),
            status: self.status.clone(),
            diagnostics: Diagnostics {
                iterations: self.iterations,
                residual_drop_orders: self.residual_drop_orders,
                wall_s: self.solver_wall_s,
                backend: self.backend.clone(),
                scheme: self.scheme.clone(),
                cached: true,
                stops: self.stops.clone(),
                attempts: self.attempts.clone(),
            },
        }
    }

    /// The score for Deb's comparison (objective, total violation, failure); the individual
    /// constraint values are in `constraints`, all of the evaluator's, not only the selected.
    pub fn score(&self) -> Scored {
        Scored { objective: self.objective, constraints: Vec::new(), violation: self.violation, failure: self.failure.clone() }
    }
}

/// Progress written after every batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub campaign: String,
    pub completed_evaluations: usize,
    pub best_feasible: Option<f64>,
    pub best_design: Option<Vec<f64>>,
    pub elapsed_s: f64,
    pub finished: bool,
}

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
}

const CONFIG_FILE: &str = "campaign.ron";
const LOG_FILE: &str = "evaluations.jsonl";
const CHECKPOINT_FILE: &str = "checkpoint.json";
const SUMMARY_FILE: &str = "summary.json";

/// Write `bytes` to `path` atomically: a temporary file in the same directory, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        f.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
        f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// Read the log, sorted by evaluation index (lines of one batch are written as its designs
/// finish, in any order); a last line without its newline (cut by a kill) is dropped and
/// truncated away. Indices are unique; the evaluations of a batch cut short by a kill leave
/// gaps, which a resume fills.
pub fn read_log(path: &Path) -> Result<Vec<EvaluationRecord>> {
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(path, e)),
    };
    let complete = text.rfind('\n').map_or(0, |i| i + 1);
    if complete < text.len() {
        let f = OpenOptions::new().write(true).open(path).map_err(|e| Error::io(path, e))?;
        f.set_len(complete as u64).map_err(|e| Error::io(path, e))?;
    }
    let mut records = BTreeMap::new();
    for (i, line) in text[..complete].lines().enumerate() {
        let r: EvaluationRecord =
            serde_json::from_str(line).map_err(|e| Error::Input { path: path.display().to_string(), reason: format!("line {}: {e}", i + 1) })?;
        if let Some(earlier) = records.insert(r.index, r) {
            return Err(Error::Input { path: path.display().to_string(), reason: format!("line {} repeats evaluation index {}", i + 1, earlier.index) });
        }
    }
    Ok(records.into_values().collect())
}

/// The design space after the campaign's bound overrides.
fn effective_space(config: &CampaignConfig, space: &DesignSpace) -> Result<DesignSpace> {
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

fn selection(config: &CampaignConfig, evaluator: &dyn Evaluator) -> Result<Selection> {
    let objectives = evaluator.objective_names();
    let objective = match &config.objective {
        None if objectives.is_empty() => return Err(Error::Other("the evaluator has no objective".into())),
        None => 0,
        Some(name) => objectives
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| Error::Other(format!("campaign {}: no objective named {name} (have {objectives:?})", config.name)))?,
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

/// The evaluator the optimizer sees: answers from the log first, then evaluates and logs.
struct Recorder<'a, 'o> {
    inner: &'a dyn Evaluator,
    space: DesignSpace,
    selection: Selection,
    state: Mutex<RecorderState<'o>>,
    /// Apart from `state`: written from the workers' threads while a batch runs.
    log: Mutex<LogWriter>,
}

/// The append-only evaluation log.
struct LogWriter {
    file: File,
    path: PathBuf,
    error: Option<Error>,
}

impl LogWriter {
    /// Appends one line and flushes it; the first error is kept (and stops the campaign).
    fn append(&mut self, record: &EvaluationRecord) {
        if self.error.is_some() {
            return;
        }
        let line = serde_json::to_string(record).map_err(|e| Error::Other(format!("JSON: {e}")));
        let written = line.and_then(|l| self.file.write_all(format!("{l}\n").as_bytes()).and_then(|_| self.file.flush()).map_err(|e| Error::io(&self.path, e)));
        if let Err(e) = written {
            self.error = Some(e);
        }
    }
}

struct RecorderState<'o> {
    /// The log of an earlier run by evaluation index.
    replay: BTreeMap<usize, EvaluationRecord>,
    records: Vec<EvaluationRecord>,
    mismatch: Option<String>,
    checkpoint_path: PathBuf,
    name: String,
    best: Option<usize>,
    started: Instant,
    elapsed_before: f64,
    observer: &'o mut dyn CampaignObserver,
}

impl RecorderState<'_> {
    fn elapsed(&self) -> f64 {
        self.elapsed_before + self.started.elapsed().as_secs_f64()
    }

    fn best_feasible(&self) -> Option<f64> {
        self.best.map(|i| &self.records[i]).filter(|r| r.feasible).map(|r| r.objective)
    }

    /// Takes a record (already in the log) into the campaign's state, in index order.
    fn push(&mut self, record: EvaluationRecord) {
        let s = record.score();
        if self.best.is_none_or(|b| s.deb_cmp(&self.records[b].score()).is_lt()) {
            self.best = Some(self.records.len());
        }
        self.records.push(record);
        let best = self.best_feasible();
        let last = self.records.last().expect("just pushed");
        self.observer.on_evaluation(last, best);
    }

    fn checkpoint(&self, finished: bool) -> Result<()> {
        let best = self.best.map(|i| &self.records[i]).filter(|r| r.feasible);
        let c = Checkpoint {
            campaign: self.name.clone(),
            completed_evaluations: self.records.len(),
            best_feasible: best.map(|r| r.objective),
            best_design: best.map(|r| r.design.clone()),
            elapsed_s: self.elapsed(),
            finished,
        };
        let json = serde_json::to_vec_pretty(&c).map_err(|e| Error::Other(format!("JSON: {e}")))?;
        write_atomic(&self.checkpoint_path, &json)
    }
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl Evaluator for Recorder<'_, '_> {
    fn space(&self) -> &DesignSpace {
        &self.space
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        self.evaluate_batch(&[design.to_vec()]).pop().unwrap_or_else(|| Evaluation::failed(Status::Failed("no result".into())))
    }

    /// Designs get the next evaluation indices in order. Each is answered from the log when
    /// the log holds its index (and the same design, bit for bit), else evaluated; fresh
    /// evaluations are logged as they finish, in any order.
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let base = st.records.len();
        let mut logged: Vec<Option<EvaluationRecord>> = vec![None; designs.len()];
        for (j, d) in designs.iter().enumerate() {
            let Some(record) = st.replay.remove(&(base + j)) else { continue };
            if !same_bits(d, &record.design) {
                st.mismatch = Some(format!(
                    "evaluation {} proposes {:?} but the log holds {:?}: the campaign or the code changed since the log was written",
                    record.index, d, record.design
                ));
                break;
            }
            logged[j] = Some(record);
        }
        if st.mismatch.is_some() || self.log_error() {
            // Stop spending evaluations; run_campaign reports the error when the optimizer returns.
            return vec![Evaluation::failed(Status::Failed("campaign stopped: replay mismatch or log error".into())); designs.len()];
        }
        let fresh: Vec<usize> = (0..designs.len()).filter(|&j| logged[j].is_none()).collect();
        let mut evaluated: Vec<Option<Evaluation>> = vec![None; designs.len()];
        if !fresh.is_empty() {
            let (started, before) = (st.started, st.elapsed_before);
            let finished: Mutex<Vec<Option<(EvaluationRecord, Evaluation)>>> = Mutex::new(vec![None; designs.len()]);
            let record = |i: usize, e: &Evaluation| {
                let j = fresh[i];
                let r = EvaluationRecord::new(base + j, &designs[j], e, &self.selection.score(e), before + started.elapsed().as_secs_f64());
                self.log.lock().unwrap_or_else(|p| p.into_inner()).append(&r);
                finished.lock().unwrap_or_else(|p| p.into_inner())[j] = Some((r, e.clone()));
            };
            let fresh_designs: Vec<Vec<f64>> = fresh.iter().map(|&j| designs[j].clone()).collect();
            let evaluations = self.inner.evaluate_batch_reporting(&fresh_designs, &record);
            // A result the evaluator returned without reporting it is logged now.
            for (i, &j) in fresh.iter().enumerate() {
                if finished.lock().unwrap_or_else(|p| p.into_inner())[j].is_none() {
                    let e = evaluations.get(i).cloned().unwrap_or_else(|| Evaluation::failed(Status::Failed("evaluator returned too few results".into())));
                    record(i, &e);
                }
            }
            for (j, slot) in finished.into_inner().unwrap_or_else(|p| p.into_inner()).into_iter().enumerate() {
                if let Some((r, e)) = slot {
                    logged[j] = Some(r);
                    evaluated[j] = Some(e);
                }
            }
        }
        let mut out = Vec::with_capacity(designs.len());
        for (r, e) in logged.into_iter().zip(evaluated) {
            let Some(r) = r else { continue };
            out.push(e.unwrap_or_else(|| r.evaluation()));
            st.push(r);
        }
        if !fresh.is_empty() {
            if let Err(e) = st.checkpoint(false) {
                self.log.lock().unwrap_or_else(|p| p.into_inner()).error.get_or_insert(e);
            }
        }
        out
    }
}

impl Recorder<'_, '_> {
    fn log_error(&self) -> bool {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).error.is_some()
    }
}

/// Run (or resume) a campaign with `evaluator` (see [`build_evaluator`] for the mapping from the
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
            checkpoint_path,
            name: config.name.clone(),
            best: None,
            started: Instant::now(),
            elapsed_before,
            observer,
        }),
    };

    recorder.evaluate_batch(std::slice::from_ref(&space.baseline));
    let termination = run_optimizer(optimizer, &recorder, &selection)?;

    let state = recorder.state.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(m) = state.mismatch {
        return Err(Error::Other(format!("resume of {}: {m}", config.name)));
    }
    if let Some(e) = recorder.log.into_inner().unwrap_or_else(|p| p.into_inner()).error {
        return Err(e);
    }
    state.checkpoint(true)?;
    let summary = summarize(config, &space, &state.records, replayed, state.elapsed(), termination)?;
    let json = serde_json::to_vec_pretty(&summary).map_err(|e| Error::Other(format!("JSON: {e}")))?;
    write_atomic(&out_dir.join(SUMMARY_FILE), &json)?;
    // Two independent pictures, drawn side by side.
    let (convergence, evaluations) = rayon::join(
        || super::plots::convergence(&out_dir.join("convergence.png"), &config.name, &state.records),
        || super::plots::evaluations(&out_dir.join("evaluations.png"), &config.name, &state.records),
    );
    convergence?;
    evaluations?;
    state.observer.on_finish(&summary);
    Ok(summary)
}

/// The campaign's optimizer with its settings for `dim` variables and the budget after the
/// baseline, checked: a campaign whose settings cannot run fails before anything is evaluated.
enum ConfiguredOptimizer {
    DifferentialEvolution(DeSettings),
    TwoLevel(EgoSettings),
}

fn configure_optimizer(config: &CampaignConfig, dim: usize) -> Result<ConfiguredOptimizer> {
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
    };
    Ok(configured)
}

/// Checks that the campaign's optimizer settings can run over `dim` design variables with its
/// budget (e.g. a DE population cut below 4 by a small budget), before anything costly (the
/// performance model of `auto`, the baseline) is done.
pub fn check_optimizer(config: &CampaignConfig, dim: usize) -> Result<()> {
    configure_optimizer(config, dim).map(|_| ()).map_err(|e| Error::Other(format!("campaign {}: {e}", config.name)))
}

/// Run the configured optimizer on the remaining budget; returns why it stopped.
fn run_optimizer(optimizer: ConfiguredOptimizer, recorder: &Recorder, selection: &Selection) -> Result<String> {
    match optimizer {
        ConfiguredOptimizer::DifferentialEvolution(st) => {
            let out = super::minimize(EvaluatorProblem::new(recorder, selection.clone())?, DifferentialEvolution::new(st))?;
            Ok(out.termination)
        }
        ConfiguredOptimizer::TwoLevel(st) => {
            let out = super::minimize(EvaluatorProblem::new(recorder, selection.clone())?, TwoLevel::new(st))?;
            let reached = out.evaluations_to_target.is_some();
            Ok(if reached { "target reached".into() } else { "evaluation budget spent".into() })
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_survive_the_log() {
        let e = Evaluation { objectives: vec![f64::NAN, 1.5], constraints: vec![f64::INFINITY], status: Status::Ok, diagnostics: Default::default() };
        let s = Selection::default().score(&e);
        let r = EvaluationRecord::new(0, &[0.1, -0.0], &e, &s, 0.0);
        let line = serde_json::to_string(&r).unwrap();
        let back: EvaluationRecord = serde_json::from_str(&line).unwrap();
        assert!(back.objectives[0].is_nan() && back.objectives[1] == 1.5 && back.constraints[0] == f64::INFINITY);
        assert!(same_bits(&back.design, &[0.1, -0.0]));
    }

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
        assert!(build_evaluator(&EvaluatorConfig::Cfd(cfd_config)).is_err(), "missing blade file is an error");
        assert!(CampaignConfig::from_ron_str("(name: 1)", "bad").is_err());
    }

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
