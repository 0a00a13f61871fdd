//! Campaign plots (plotters, PNG): convergence history and all evaluations.

use plotters::prelude::*;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;

use super::log::EvaluationRecord;
use crate::error::Result;
use crate::report::plots::{draw_legend, plot_err};

/// A chart of some quantity against the evaluation number.
type EvaluationChart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The frame both campaign plots share: evaluation number along x (0 to `n`, at least 2),
/// `y_desc` from `y0` to `y1`.
fn evaluation_chart<'a, 'b: 'a>(
    root: &'a DrawingArea<BitMapBackend<'b>, Shift>,
    path: &Path,
    caption: String,
    n: usize,
    (y0, y1): (f64, f64),
    y_desc: &str,
) -> Result<EvaluationChart<'a, 'b>> {
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..n.max(2) as f64, y0..y1)
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("evaluation")
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_desc(y_desc)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    Ok(chart)
}

/// Padded (min, max) of finite values; (0, 1) when there are none.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 * lo.abs().max(1.0) };
    (lo - pad, hi + pad)
}

/// Best feasible objective against the evaluation number.
pub(crate) fn convergence(path: &Path, name: &str, records: &[EvaluationRecord]) -> Result<()> {
    crate::report::ensure_fonts();
    let mut best: Option<f64> = None;
    let history: Vec<(f64, f64)> = records
        .iter()
        .filter_map(|r| {
            if r.feasible {
                best = Some(best.map_or(r.objective, |b: f64| b.min(r.objective)));
            }
            best.map(|b| (r.index as f64, b))
        })
        .collect();
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    let mut chart = evaluation_chart(&root, path, format!("{name}: convergence"), records.len(), range(history.iter().map(|p| p.1)), "best feasible objective")?;
    chart.draw_series(LineSeries::new(history.iter().copied(), BLUE.stroke_width(2))).map_err(|e| plot_err(path, e))?;
    root.present().map_err(|e| plot_err(path, e))
}

/// Every evaluation's objective: feasible (blue), infeasible (red), failed (grey, at the top).
pub(crate) fn evaluations(path: &Path, name: &str, records: &[EvaluationRecord]) -> Result<()> {
    crate::report::ensure_fonts();
    let (y0, y1) = range(records.iter().filter(|r| r.failure.is_none()).map(|r| r.objective));
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    let mut chart = evaluation_chart(&root, path, format!("{name}: all evaluations"), records.len(), (y0, y1), "objective")?;
    let pick = |keep: fn(&EvaluationRecord) -> bool| -> Vec<(f64, f64)> {
        records.iter().filter(|r| keep(r)).map(|r| (r.index as f64, if r.failure.is_some() { y1 } else { r.objective })).collect()
    };
    let feasible = pick(|r| r.feasible);
    let infeasible = pick(|r| !r.feasible && r.failure.is_none());
    let failed = pick(|r| r.failure.is_some());
    chart
        .draw_series(infeasible.iter().map(|&p| Cross::new(p, 4, RED.stroke_width(2))))
        .map_err(|e| plot_err(path, e))?
        .label("infeasible")
        .legend(|(x, y)| Cross::new((x, y), 4, RED.stroke_width(2)));
    chart
        .draw_series(failed.iter().map(|&p| TriangleMarker::new(p, 5, RGBColor(120, 120, 120).filled())))
        .map_err(|e| plot_err(path, e))?
        .label("failed (drawn at the top)")
        .legend(|(x, y)| TriangleMarker::new((x, y), 5, RGBColor(120, 120, 120).filled()));
    // Feasible designs last, on top of the others.
    chart
        .draw_series(feasible.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))
        .map_err(|e| plot_err(path, e))?
        .label("feasible")
        .legend(|(x, y)| Circle::new((x, y), 3, BLUE.filled()));
    draw_legend(&mut chart, path, SeriesLabelPosition::MiddleRight, 14)?;
    root.present().map_err(|e| plot_err(path, e))
}
