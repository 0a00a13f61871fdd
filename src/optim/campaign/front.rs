//! A front campaign's result, computed from its log (so a resumed campaign reports what an
//! uninterrupted one would): the non-dominated feasible designs over all evaluations, the
//! hypervolume against the stated reference point after every evaluation, `front.csv` and the
//! pictures `front.png` (two objectives: every evaluation with the front; three or more: the
//! pairwise projections) and `hypervolume.png`.

use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::Path;

use super::log::{json_f64, EvaluationRecord};
use super::plots::range;
use crate::error::{Error, Result};
use crate::files::write_atomic;
use crate::optim::pareto::{dominates, hypervolume};
use crate::optim::FrontSelection;
use crate::report::plots::{draw_legend, plot_err};

/// One design of the front.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontEntry {
    /// Its evaluation index in the log.
    pub index: usize,
    pub design: Vec<f64>,
    #[serde(with = "json_f64::vec")]
    pub objectives: Vec<f64>,
}

/// What a front campaign ends with (in `summary.json` and `--json`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FrontSummary {
    /// The front's objective names, in order.
    pub objectives: Vec<String>,
    /// The hypervolume's reference point: the campaign's `reference_point`, or the optimizer's
    /// widened nadir of its first batch.
    pub reference_point: Vec<f64>,
    #[serde(with = "json_f64")]
    pub hypervolume: f64,
    /// The baseline's own hypervolume (0 when it is infeasible or outside the reference box).
    #[serde(with = "json_f64")]
    pub baseline_hypervolume: f64,
    /// Every feasible evaluated design no other feasible one dominates, by the first objective.
    pub members: Vec<FrontEntry>,
    /// (evaluations, hypervolume) after every evaluation that changed the front.
    pub history: Vec<(usize, f64)>,
}

/// The front of the log's records under `selection`, and the hypervolume after every change.
pub fn front_of_log(records: &[EvaluationRecord], selection: &FrontSelection, names: Vec<String>, reference: Vec<f64>) -> FrontSummary {
    let pick = |r: &EvaluationRecord| -> Option<Vec<f64>> { selection.objectives.iter().map(|&k| r.objectives.get(k).copied()).collect() };
    let volume = |front: &[FrontEntry]| hypervolume(&front.iter().map(|m| m.objectives.as_slice()).collect::<Vec<_>>(), &reference);
    let mut front: Vec<FrontEntry> = Vec::new();
    let mut history = Vec::new();
    for (n, r) in records.iter().enumerate() {
        let Some(objectives) = pick(r).filter(|o| r.feasible && o.iter().all(|v| v.is_finite())) else { continue };
        if front.iter().any(|m| dominates(&m.objectives, &objectives) || m.objectives == objectives) {
            continue;
        }
        front.retain(|m| !dominates(&objectives, &m.objectives));
        front.push(FrontEntry { index: r.index, design: r.design.clone(), objectives });
        history.push((n + 1, volume(&front)));
    }
    front.sort_by(|a, b| a.objectives[0].total_cmp(&b.objectives[0]));
    let baseline_hypervolume = records
        .first()
        .and_then(|r| pick(r).filter(|_| r.feasible))
        .map_or(0.0, |o| hypervolume(&[o.as_slice()], &reference));
    FrontSummary { objectives: names, hypervolume: volume(&front), reference_point: reference, baseline_hypervolume, members: front, history }
}

/// `front.csv`: one line per front member, its evaluation index, objectives and design.
pub fn write_front_csv(path: &Path, front: &FrontSummary, variables: &[String]) -> Result<()> {
    let mut text = format!("index,{},{}\n", front.objectives.join(","), variables.join(","));
    for m in &front.members {
        let values: Vec<String> = m.objectives.iter().chain(&m.design).map(|v| format!("{v:e}")).collect();
        text.push_str(&format!("{},{}\n", m.index, values.join(",")));
    }
    write_atomic(path, text.as_bytes())
}

/// front.png: every feasible evaluation (grey), infeasible ones (red crosses), the baseline and
/// the front (blue, joined by its staircase in two objectives); one panel per pair of objectives.
pub fn plot_front(path: &Path, name: &str, records: &[EvaluationRecord], selection: &FrontSelection, front: &FrontSummary) -> Result<()> {
    crate::report::ensure_fonts();
    let m = selection.objectives.len();
    let pairs: Vec<(usize, usize)> = (0..m).flat_map(|a| (a + 1..m).map(move |b| (a, b))).collect();
    let (w, h) = if pairs.len() == 1 { (900, 700) } else { (700 * pairs.len().min(3) as u32, 650 * pairs.len().div_ceil(3) as u32) };
    let root = BitMapBackend::new(path, (w, h)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let panels = root.split_evenly((pairs.len().div_ceil(3), pairs.len().min(3)));
    let value = |r: &EvaluationRecord, k: usize| r.objectives.get(selection.objectives[k]).copied().unwrap_or(f64::NAN);
    let ran: Vec<&EvaluationRecord> = records.iter().filter(|r| r.failure.is_none()).collect();
    for (panel, &(a, b)) in panels.iter().zip(&pairs) {
        let (x0, x1) = range(ran.iter().map(|r| value(r, a)));
        let (y0, y1) = range(ran.iter().map(|r| value(r, b)));
        let caption = if pairs.len() == 1 { format!("{name}: front over {} evaluations", records.len()) } else { format!("{} against {}", front.objectives[b], front.objectives[a]) };
        let mut chart = ChartBuilder::on(panel)
            .caption(caption, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(90)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| plot_err(path, e))?;
        chart.configure_mesh().x_desc(front.objectives[a].as_str()).y_desc(front.objectives[b].as_str()).label_style(("sans-serif", 14)).draw().map_err(|e| plot_err(path, e))?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(ran.iter().filter(|r| r.feasible).map(|r| Circle::new((value(r, a), value(r, b)), 3, grey.filled())))
            .map_err(|e| plot_err(path, e))?
            .label("feasible")
            .legend(move |(x, y)| Circle::new((x, y), 3, grey.filled()));
        chart
            .draw_series(ran.iter().filter(|r| !r.feasible).map(|r| Cross::new((value(r, a), value(r, b)), 4, RED.stroke_width(1))))
            .map_err(|e| plot_err(path, e))?
            .label("infeasible")
            .legend(|(x, y)| Cross::new((x, y), 4, RED.stroke_width(1)));
        if m == 2 {
            let mut stairs = Vec::new();
            for (i, p) in front.members.iter().enumerate() {
                if i > 0 {
                    stairs.push((p.objectives[0], front.members[i - 1].objectives[1]));
                }
                stairs.push((p.objectives[0], p.objectives[1]));
            }
            chart.draw_series(LineSeries::new(stairs, BLUE.stroke_width(1))).map_err(|e| plot_err(path, e))?;
        }
        chart
            .draw_series(front.members.iter().map(|p| Circle::new((p.objectives[a], p.objectives[b]), 5, BLUE.filled())))
            .map_err(|e| plot_err(path, e))?
            .label("front")
            .legend(|(x, y)| Circle::new((x, y), 5, BLUE.filled()));
        if let Some(base) = records.first().filter(|r| r.failure.is_none()) {
            chart
                .draw_series(std::iter::once(TriangleMarker::new((value(base, a), value(base, b)), 8, BLACK.filled())))
                .map_err(|e| plot_err(path, e))?
                .label("baseline")
                .legend(|(x, y)| TriangleMarker::new((x, y), 6, BLACK.filled()));
        }
        draw_legend(&mut chart, path, SeriesLabelPosition::UpperRight, 14)?;
    }
    root.present().map_err(|e| plot_err(path, e))
}

/// hypervolume.png: the front's hypervolume against the evaluation number.
pub fn plot_hypervolume(path: &Path, name: &str, evaluations: usize, front: &FrontSummary) -> Result<()> {
    crate::report::ensure_fonts();
    let mut steps = Vec::new();
    for (i, &(n, hv)) in front.history.iter().enumerate() {
        if i > 0 {
            steps.push((n as f64, front.history[i - 1].1));
        }
        steps.push((n as f64, hv));
    }
    if let Some(&(_, hv)) = front.history.last() {
        steps.push((evaluations as f64, hv));
    }
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let top = front.hypervolume.max(1e-300) * 1.05;
    let reference: Vec<String> = front.reference_point.iter().map(|v| format!("{v:.4}")).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{name}: hypervolume (reference {})", reference.join(", ")), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..evaluations.max(2) as f64, 0.0..top)
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("evaluation")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc("hypervolume")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    chart.draw_series(LineSeries::new(steps, BLUE.stroke_width(2))).map_err(|e| plot_err(path, e))?;
    root.present().map_err(|e| Error::Other(format!("drawing {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{Evaluation, Status};
    use crate::optim::Selection;

    fn record(index: usize, objectives: &[f64], constraint: f64) -> EvaluationRecord {
        let e = Evaluation { objectives: objectives.to_vec(), constraints: vec![constraint], status: Status::Ok, diagnostics: Default::default() };
        EvaluationRecord::new(index, &[index as f64], &e, &Selection::default().score(&e), 0.0)
    }

    #[test]
    fn the_front_of_a_log_skips_infeasible_and_dominated_designs() {
        let records = [record(0, &[2.0, 2.0, 9.0], -1.0), record(1, &[1.0, 3.0, 0.0], -1.0), record(2, &[0.0, 0.0, 0.0], 1.0), record(3, &[3.0, 1.0, 0.0], -1.0), record(4, &[1.5, 1.5, 0.0], -1.0)];
        let selection = FrontSelection { objectives: vec![0, 1], constraints: None };
        let f = front_of_log(&records, &selection, vec!["a".into(), "b".into()], vec![4.0, 4.0]);
        let kept: Vec<usize> = f.members.iter().map(|m| m.index).collect();
        assert_eq!(kept, vec![1, 4, 3]);
        assert_eq!(f.baseline_hypervolume, 4.0);
        // Staircase (1, 3), (1.5, 1.5), (3, 1) under (4, 4): 3x1 + 2.5x1.5 + 1x0.5.
        assert_eq!(f.hypervolume, 3.0 + 3.75 + 0.5);
        assert_eq!(f.history.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 2, 4, 5]);
    }
}
