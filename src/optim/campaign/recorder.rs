//! The evaluator a campaign's optimizer sees: every design gets the next evaluation index; one
//! the log already holds (the same design, bit for bit) is answered from the log, any other is
//! evaluated and logged as it finishes. This is what makes a resume give the result of an
//! uninterrupted run without evaluating anything twice.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use super::log::{same_bits, Checkpoint, EvaluationRecord, LogWriter};
use super::progress::CampaignObserver;
use crate::error::{Error, Result};
use crate::eval::{DesignSpace, Evaluation, Evaluator, Status};
use crate::files::write_atomic;
use crate::optim::Selection;

/// The evaluator the optimizer sees: answers from the log first, then evaluates and logs.
pub(super) struct Recorder<'a, 'o> {
    pub(super) inner: &'a dyn Evaluator,
    pub(super) space: DesignSpace,
    pub(super) selection: Selection,
    pub(super) state: Mutex<RecorderState<'o>>,
    /// Apart from `state`: written from the workers' threads while a batch runs.
    pub(super) log: Mutex<LogWriter>,
}

pub(super) struct RecorderState<'o> {
    /// The log of an earlier run by evaluation index.
    pub(super) replay: BTreeMap<usize, EvaluationRecord>,
    pub(super) records: Vec<EvaluationRecord>,
    pub(super) mismatch: Option<String>,
    /// The evaluator answered a design with `Status::Interrupted` (its stop signal): nothing more
    /// is evaluated, and the interrupted designs are not logged, so that a resume evaluates them.
    pub(super) interrupted: bool,
    pub(super) checkpoint_path: PathBuf,
    pub(super) name: String,
    pub(super) best: Option<usize>,
    pub(super) started: Instant,
    pub(super) elapsed_before: f64,
    pub(super) observer: &'o mut dyn CampaignObserver,
}

impl RecorderState<'_> {
    pub(super) fn elapsed(&self) -> f64 {
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

    pub(super) fn checkpoint(&self, finished: bool) -> Result<()> {
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
        if st.interrupted {
            return vec![Evaluation::failed(Status::Interrupted("the campaign was stopped".into())); designs.len()];
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
                if e.status.is_interrupted() {
                    return;
                }
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
                    st.interrupted |= e.status.is_interrupted();
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
            match r {
                Some(r) => {
                    out.push(e.unwrap_or_else(|| r.evaluation()));
                    st.push(r);
                }
                None => out.push(Evaluation::failed(Status::Interrupted("the campaign was stopped".into()))),
            }
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
