//! The campaign's files: `evaluations.jsonl` (one [`EvaluationRecord`] a line, appended and
//! flushed as each evaluation finishes: the source of truth a resume replays), `checkpoint.json`
//! ([`Checkpoint`], rewritten atomically after every batch), and the names of the others.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::eval::{Diagnostics, Evaluation, Status};
use crate::optim::Scored;

pub(super) const CONFIG_FILE: &str = "campaign.ron";
pub(super) const LOG_FILE: &str = "evaluations.jsonl";
pub(super) const CHECKPOINT_FILE: &str = "checkpoint.json";
pub(super) const SUMMARY_FILE: &str = "summary.json";

/// JSON has no NaN or infinity: such values are written as the strings "NaN", "inf", "-inf".
pub(super) mod json_f64 {
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
    /// The points answered as periodic flows, with period and amplitude (`cascade::periodic`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub oscillations: Vec<crate::cascade::Oscillation>,
    /// The worst quality figures of the design's mesh (`mesh::quality`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<crate::mesh::quality::QualitySummary>,
}

impl EvaluationRecord {
    pub(super) fn new(index: usize, design: &[f64], e: &Evaluation, s: &Scored, elapsed_s: f64) -> Self {
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
            oscillations: e.diagnostics.oscillations.clone(),
            mesh: e.diagnostics.mesh,
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
                oscillations: self.oscillations.clone(),
                mesh: self.mesh,
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

/// The append-only evaluation log.
pub(super) struct LogWriter {
    pub(super) file: File,
    pub(super) path: PathBuf,
    pub(super) error: Option<Error>,
}

impl LogWriter {
    /// Appends one line and flushes it; the first error is kept (and stops the campaign).
    pub(super) fn append(&mut self, record: &EvaluationRecord) {
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

/// Whether two designs are the same to the last bit (a replayed design must be).
pub(super) fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::Selection;

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
}
