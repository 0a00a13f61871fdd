//! The design-space study: does every design inside a blade file's bounds get an answer?
//! Designs are drawn uniformly in the bounds of every free variable (fixed seed, so that the
//! first n designs of a larger study are those of a smaller one); each is checked (geometry
//! and meshability, milliseconds), then meshed, or solved by the evaluator as a campaign
//! solves it (warm-started from the baseline, the campaign's stop rules, batched on the
//! hardware). Outcomes are tallied by reason, with iterations and time per design
//! (docs/design-space-study.md; `turbopt study`).

use super::cfd::CfdEvaluator;
use super::{Evaluation, Evaluator, Status};
use crate::cascade::{BladeChoice, CascadeError, CascadeSetup, CheckedBlade};
use crate::geometry::{BladeFile, DesignSpace, GeometryError};
use crate::mesh::generate::Unmeshable;
use crate::mesh::quality::{QualityBounds, QualitySummary};
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

/// `n` designs drawn uniformly inside the bounds of `space` (a fixed variable, lower = upper,
/// keeps its value).
pub fn draw_designs(space: &DesignSpace, n: usize, seed: u64) -> Vec<Vec<f64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| space.lower.iter().zip(&space.upper).map(|(l, u)| rng.random_range(*l..=*u)).collect()).collect()
}

/// What became of one design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Refused by the geometry or meshability checks, with a reason.
    Rejected,
    /// Passed the checks, then the mesher failed: a gap in the checks.
    MesherFailure,
    /// Meshed (a meshing-only study).
    Meshed,
    /// Converged (residual orders or steady figures).
    Converged,
    /// Answered as a periodic flow (figures averaged over whole periods).
    Periodic,
    /// Stopped at the iteration budget.
    NotConverged,
    /// Diverged after every attempt of the recovery chain.
    Diverged,
    /// Any other failure (figures, device...).
    Failed,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Rejected => "rejected by the checks",
            Outcome::MesherFailure => "mesher failure after the checks",
            Outcome::Meshed => "meshed",
            Outcome::Converged => "converged",
            Outcome::Periodic => "periodic (averaged)",
            Outcome::NotConverged => "not converged (budget)",
            Outcome::Diverged => "diverged",
            Outcome::Failed => "failed",
        }
    }

    /// Whether the design got a figure an optimizer can use.
    pub fn is_answer(self) -> bool {
        matches!(self, Outcome::Converged | Outcome::Periodic)
    }
}

/// One design's record.
#[derive(Clone, Debug, Serialize)]
pub struct DesignRecord {
    pub design: usize,
    pub outcome: Outcome,
    /// The kind of rejection ([`rejection_kind`]) or the failure's message; empty otherwise.
    pub reason: String,
    pub iterations: usize,
    pub residual_drop_orders: f64,
    /// Wall time of the design (check and mesh, or its whole evaluation).
    pub wall_s: f64,
    /// Period (iterations) of a periodic answer, when regular.
    pub period: Option<usize>,
    /// Largest relative amplitude of the headline figures of a periodic answer.
    pub amplitude: Option<f64>,
    pub objectives: Vec<f64>,
    /// The worst quality figures of the design's mesh, and the names of the quality bounds
    /// (`mesh::quality::QualityBounds`) it misses.
    pub mesh: Option<QualitySummary>,
    pub outside_bounds: Vec<&'static str>,
}

/// A short name for why the checks refused a design, for the tally.
pub fn rejection_kind(e: &CascadeError) -> &'static str {
    match e {
        CascadeError::Geometry(g) => match g {
            GeometryError::SelfIntersection { .. } => "sides cross",
            GeometryError::NonPositiveThickness { .. } => "non-positive thickness",
            GeometryError::LeadingEdgeNotClosed { .. } => "leading edge open",
            GeometryError::TrailingEdgeNotClosed { .. } => "trailing edge open",
            GeometryError::OutOfBounds { .. } => "variable out of bounds",
            GeometryError::PitchOverlap { .. } => "neighbouring blades overlap",
            GeometryError::InvalidParameter { .. } => "invalid parameter",
        },
        CascadeError::Unmeshable(u) => match u {
            Unmeshable::Spec(_) => "mesh settings",
            Unmeshable::Outline(_) => "outline or periodic line unusable",
        },
        CascadeError::Mesh(_) => "passage spec",
        CascadeError::Planes(_) => "measurement planes",
        CascadeError::NonFiniteFigures { .. } => "non-finite figures",
    }
}

/// Checks `design`: its record if refused, else the checked blade.
fn check(blade: &BladeFile, setup: &CascadeSetup, k: usize, design: &[f64]) -> Result<CheckedBlade, DesignRecord> {
    let t = Instant::now();
    CheckedBlade::new(blade, BladeChoice::Design(design), setup).map_err(|e| DesignRecord {
        reason: rejection_kind(&e).to_string(),
        wall_s: t.elapsed().as_secs_f64(),
        ..DesignRecord::new(k, Outcome::Rejected)
    })
}

impl DesignRecord {
    fn new(design: usize, outcome: Outcome) -> Self {
        DesignRecord {
            design,
            outcome,
            reason: String::new(),
            iterations: 0,
            residual_drop_orders: 0.0,
            wall_s: 0.0,
            period: None,
            amplitude: None,
            objectives: vec![],
            mesh: None,
            outside_bounds: vec![],
        }
    }

    /// The record with its mesh's quality.
    fn with_mesh(self, mesh: Option<QualitySummary>) -> Self {
        let outside_bounds = mesh.map(|q| q.outside(&QualityBounds::default())).unwrap_or_default();
        DesignRecord { mesh, outside_bounds, ..self }
    }

    /// The record of an evaluation.
    fn of_evaluation(design: usize, e: &Evaluation) -> Self {
        let (outcome, reason) = match &e.status {
            Status::Ok if e.diagnostics.oscillations.is_empty() => (Outcome::Converged, String::new()),
            Status::Ok => (Outcome::Periodic, String::new()),
            Status::NotConverged(m) => (Outcome::NotConverged, m.clone()),
            Status::Diverged(m) => (Outcome::Diverged, m.clone()),
            Status::MeshFailure(m) => (Outcome::MesherFailure, m.clone()),
            Status::InvalidGeometry(m) => (Outcome::Rejected, m.clone()),
            Status::Failed(m) | Status::Interrupted(m) => (Outcome::Failed, m.clone()),
        };
        let d = &e.diagnostics;
        let widest = d.oscillations.iter().max_by(|a, b| a.largest_amplitude().total_cmp(&b.largest_amplitude()));
        DesignRecord {
            design,
            outcome,
            reason,
            iterations: d.iterations,
            residual_drop_orders: d.residual_drop_orders,
            wall_s: d.wall_s,
            period: widest.and_then(|o| o.period),
            amplitude: widest.map(|o| o.largest_amplitude()),
            objectives: e.objectives.clone(),
            mesh: None,
            outside_bounds: vec![],
        }
        .with_mesh(d.mesh)
    }
}

/// What a study reports as each design finishes: its record, then (designs done, designs
/// to do) of the current stage.
pub type OnRecord<'a> = &'a (dyn Fn(&DesignRecord, usize, usize) + Sync);

/// Checks and meshes every design (all cores); `on_record` sees each as it finishes.
pub fn mesh_designs(blade: &BladeFile, setup: &CascadeSetup, designs: &[Vec<f64>], on_record: OnRecord) -> Vec<DesignRecord> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    designs
        .par_iter()
        .enumerate()
        .map(|(k, x)| {
            let t = Instant::now();
            let record = match check(blade, setup, k, x) {
                Err(r) => r,
                Ok(checked) => match checked.mesh(setup) {
                    Ok(prepared) => DesignRecord { wall_s: t.elapsed().as_secs_f64(), ..DesignRecord::new(k, Outcome::Meshed) }.with_mesh(Some(prepared.quality)),
                    Err(e) => DesignRecord { reason: e.to_string(), wall_s: t.elapsed().as_secs_f64(), ..DesignRecord::new(k, Outcome::MesherFailure) },
                },
            };
            on_record(&record, done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, designs.len());
            record
        })
        .collect()
}

/// Checks every design and solves those that pass with `evaluator` (one batch, placed as the
/// evaluator places a campaign's); `on_record` sees each solved design as it finishes (the
/// refused ones are known at once and not reported).
pub fn solve_designs(evaluator: &CfdEvaluator, designs: &[Vec<f64>], on_record: OnRecord) -> Vec<DesignRecord> {
    let blade = evaluator.blade_file();
    let setup = evaluator.setup();
    let mut records: Vec<Option<DesignRecord>> = designs.iter().enumerate().map(|(k, x)| check(blade, setup, k, x).err()).collect();
    let passed: Vec<usize> = (0..designs.len()).filter(|&k| records[k].is_none()).collect();
    let batch: Vec<Vec<f64>> = passed.iter().map(|&k| designs[k].clone()).collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    let total = batch.len();
    let report = |j: usize, e: &Evaluation| on_record(&DesignRecord::of_evaluation(passed[j], e), done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, total);
    let evaluations = evaluator.evaluate_batch_reporting(&batch, &report);
    for (&k, e) in passed.iter().zip(&evaluations) {
        records[k] = Some(DesignRecord::of_evaluation(k, e));
    }
    records.into_iter().map(|r| r.expect("every design is checked or solved")).collect()
}

/// The tally of a study.
#[derive(Clone, Debug, Serialize)]
pub struct StudySummary {
    pub designs: usize,
    /// Designs that passed the checks.
    pub checked: usize,
    pub outcomes: BTreeMap<&'static str, usize>,
    pub rejections: BTreeMap<String, usize>,
    /// Share of the checked designs that got an answer (converged or periodic); meshing only:
    /// the share that meshed.
    pub answered_fraction: f64,
    /// Iterations per solved design (every design that reached the solver): median and 95th
    /// percentile.
    pub iterations_median: f64,
    pub iterations_p95: f64,
    /// Wall time per checked design (its own evaluation or check and mesh): median and 95th
    /// percentile.
    pub wall_s_median: f64,
    pub wall_s_p95: f64,
    /// The study's wall time over the checked designs (what a batch delivers per design).
    pub throughput_s_per_design: f64,
    /// Meshed designs (every design that passed the checks and got a mesh), those within every
    /// quality bound, and how many miss each bound.
    pub meshes: usize,
    pub within_bounds: usize,
    pub outside_bounds: BTreeMap<&'static str, usize>,
}

impl StudySummary {
    pub fn of(records: &[DesignRecord], total_wall_s: f64) -> Self {
        let mut outcomes = BTreeMap::new();
        let mut rejections: BTreeMap<String, usize> = BTreeMap::new();
        for r in records {
            *outcomes.entry(r.outcome.label()).or_default() += 1;
            if r.outcome == Outcome::Rejected {
                *rejections.entry(r.reason.clone()).or_default() += 1;
            }
        }
        let checked: Vec<&DesignRecord> = records.iter().filter(|r| r.outcome != Outcome::Rejected).collect();
        let answered = checked.iter().filter(|r| r.outcome.is_answer() || r.outcome == Outcome::Meshed).count();
        let solved: Vec<f64> = checked.iter().filter(|r| r.iterations > 0).map(|r| r.iterations as f64).collect();
        let walls: Vec<f64> = checked.iter().map(|r| r.wall_s).collect();
        let meshed: Vec<&&DesignRecord> = checked.iter().filter(|r| r.mesh.is_some()).collect();
        let mut outside_bounds: BTreeMap<&'static str, usize> = BTreeMap::new();
        for r in &meshed {
            for b in &r.outside_bounds {
                *outside_bounds.entry(b).or_default() += 1;
            }
        }
        StudySummary {
            designs: records.len(),
            checked: checked.len(),
            outcomes,
            rejections,
            answered_fraction: answered as f64 / checked.len().max(1) as f64,
            iterations_median: percentile(&solved, 0.5),
            iterations_p95: percentile(&solved, 0.95),
            wall_s_median: percentile(&walls, 0.5),
            wall_s_p95: percentile(&walls, 0.95),
            throughput_s_per_design: total_wall_s / checked.len().max(1) as f64,
            meshes: meshed.len(),
            within_bounds: meshed.iter().filter(|r| r.outside_bounds.is_empty()).count(),
            outside_bounds,
        }
    }

    /// The tally as a Markdown table, outcomes first, then the rejections by reason.
    pub fn markdown(&self) -> String {
        let mut s = String::from("| outcome | designs | share of checked |\n|---|---:|---:|\n");
        for (label, n) in &self.outcomes {
            let share = if *label == Outcome::Rejected.label() { "-".to_string() } else { format!("{:.1} %", 100.0 * *n as f64 / self.checked.max(1) as f64) };
            s += &format!("| {label} | {n} | {share} |\n");
        }
        s += &format!("| **all drawn** | {} | |\n", self.designs);
        if !self.rejections.is_empty() {
            s += "\n| rejected because | designs | share of drawn |\n|---|---:|---:|\n";
            for (reason, n) in &self.rejections {
                s += &format!("| {reason} | {n} | {:.1} % |\n", 100.0 * *n as f64 / self.designs.max(1) as f64);
            }
        }
        if self.meshes > 0 {
            let share = |n: usize| format!("{:.1} %", 100.0 * n as f64 / self.meshes as f64);
            s += "\n| mesh quality (bounds of `mesh::quality::QualityBounds`) | meshes | share of meshed |\n|---|---:|---:|\n";
            s += &format!("| within every bound | {} | {} |\n", self.within_bounds, share(self.within_bounds));
            for (bound, n) in &self.outside_bounds {
                s += &format!("| outside: {bound} | {n} | {} |\n", share(*n));
            }
        }
        s
    }
}

/// The `q` quantile (nearest rank) of `values`; NaN when empty.
fn percentile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// The CSV header of [`DesignRecord::csv_row`].
pub const CSV_HEADER: &str =
    "design,outcome,reason,iterations,residual_drop_orders,wall_s,period,amplitude,objectives,max_skewness,max_growth,max_growth_at_corners,min_wall_orthogonality_deg,max_area_ratio,outside_bounds";

impl DesignRecord {
    /// The record as one CSV row (objectives space-separated).
    pub fn csv_row(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let q = |f: fn(&QualitySummary) -> f64| opt(self.mesh.as_ref().map(|m| format!("{:.4}", f(m))));
        format!(
            "{},{:?},\"{}\",{},{:.3},{:.3},{},{},{},{},{},{},{},{},\"{}\"",
            self.design,
            self.outcome,
            self.reason.replace('"', "'"),
            self.iterations,
            self.residual_drop_orders,
            self.wall_s,
            opt(self.period.map(|p| p.to_string())),
            opt(self.amplitude.map(|a| format!("{a:.3e}"))),
            self.objectives.iter().map(|v| format!("{v:.9e}")).collect::<Vec<_>>().join(" "),
            q(|m| m.max_skewness),
            q(|m| m.max_growth_ratio),
            q(|m| m.max_growth_ratio_at_corners),
            q(|m| m.min_wall_orthogonality_deg),
            q(|m| m.max_volume_ratio),
            self.outside_bounds.join("; ")
        )
    }
}

/// The records as CSV, one row per design.
pub fn records_csv(records: &[DesignRecord]) -> String {
    let mut s = format!("{CSV_HEADER}\n");
    for r in records {
        s += &r.csv_row();
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_nearest_rank() {
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentile(&v, 0.5), 10.0);
        assert_eq!(percentile(&v, 0.95), 19.0);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn draws_stay_in_bounds_and_a_larger_study_extends_a_smaller_one() {
        let space = DesignSpace { names: vec!["a".into(), "b".into(), "fixed".into()], lower: vec![-1.0, 2.0, 5.0], upper: vec![1.0, 3.0, 5.0], baseline: vec![0.0, 2.5, 5.0] };
        let small = draw_designs(&space, 10, 4);
        let large = draw_designs(&space, 50, 4);
        assert_eq!(small[..], large[..10]);
        for x in &large {
            assert!((-1.0..=1.0).contains(&x[0]) && (2.0..=3.0).contains(&x[1]) && x[2] == 5.0, "{x:?}");
        }
    }
}
