//! Campaign plots (plotters, PNG): convergence history and all evaluations.

use plotters::prelude::*;
use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;

use super::config::CampaignConfig;
use super::log::EvaluationRecord;
use super::runner::CampaignSummary;
use crate::error::Error;
use crate::eval::cfd::CfdEvaluator;
use crate::eval::subspace::SubspaceEvaluator;
use crate::eval::Evaluator;
use crate::geometry::Outline;
use crate::post::{draw_isentropic_mach, plot_isentropic_mach, SurfacePoint};
use crate::report::plots::{draw_blades, plot_blades};
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
pub(super) fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
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

/// blades.png (best design over the baseline), mis.png (their blade Mis at the first operating
/// point) and overview.png (both): the two designs are solved once more, warm-started.
pub fn blade_pictures(config: &CampaignConfig, cfd: &CfdEvaluator, summary: &CampaignSummary, out: &std::path::Path) -> Result<()> {
    let full = |design: &[f64]| -> Result<Vec<f64>> {
        match &config.variables {
            Some(names) => Ok(SubspaceEvaluator::new(cfd, names)?.full_design(design)),
            None => Ok(design.to_vec()),
        }
    };
    let baseline = cfd.space().baseline.clone();
    let best = full(&summary.best_design)?;
    let failed = |what: &str, s: crate::eval::Status| Error::Other(format!("{what} design: {s:?}"));
    let (outline_base, mis_base) = cfd.design_surfaces(&baseline).map_err(|s| failed("baseline", s))?;
    let (outline_best, mis_best) = cfd.design_surfaces(&best).map_err(|s| failed("best", s))?;
    let name = &cfd.blade_file().name;
    let blades = || plot_blades(&out.join("blades.png"), &format!("{name}: best design over the baseline"), &[("baseline", &outline_base), ("best", &outline_best)]);
    let mis = || {
        let ([x0, x1], _) = outline_base.bounding_box();
        match (mis_base.first(), mis_best.first()) {
            (Some(b), Some(o)) => {
                let point = cfd.operating_points().first().map(|p| p.name.clone()).unwrap_or_default();
                plot_isentropic_mach(&out.join("mis.png"), &format!("{name} {point}: isentropic Mach, best vs baseline"), x1 - x0, &[("baseline", b), ("best", o)], None)
            }
            _ => Ok(()),
        }
    };
    // Independent files, drawn side by side.
    let ((blades, mis), overview) = rayon::join(|| rayon::join(blades, mis), || overview_picture(cfd, &out.join("overview.png"), (&outline_base, &outline_best), (mis_base.first(), mis_best.first())));
    blades.and(mis).and(overview)
}

/// overview.png: the best blade over the baseline beside their blade Mis at the first operating
/// point, one picture of what the campaign found.
fn overview_picture(cfd: &CfdEvaluator, path: &std::path::Path, (base, best): (&Outline, &Outline), mis: (Option<&Vec<SurfacePoint>>, Option<&Vec<SurfacePoint>>)) -> Result<()> {
    use plotters::prelude::*;
    let name = &cfd.blade_file().name;
    let root = BitMapBackend::new(path, (1900, 1000)).into_drawing_area();
    let (left, right) = root.split_horizontally(900);
    draw_blades(&left, path, &format!("{name}: best design over the baseline"), &[("baseline", base), ("best", best)])?;
    if let (Some(b), Some(o)) = mis {
        let ([x0, x1], _) = base.bounding_box();
        let point = cfd.operating_points().first().map(|p| p.name.clone()).unwrap_or_default();
        draw_isentropic_mach(&right, path, &format!("{point}: blade isentropic Mach number"), x1 - x0, &[("baseline", b), ("best", o)], None)?;
    }
    root.present().map_err(|e| Error::Other(format!("drawing {}: {e}", path.display())))
}
