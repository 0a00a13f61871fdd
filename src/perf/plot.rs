//! Time to convergence against the convergence ratio R_C (thesis Fig. 6.9), with the measured
//! R_C marked: each implicit combination is a horizontal line (its time does not depend on
//! R_C), each explicit one the line T(R_C) = T_exp(R_C N_imp) at the measured N_imp.

use std::path::Path;

use plotters::prelude::*;

use super::model::{self, Method};
use super::PerfModel;
use crate::report::ensure_fonts;
use crate::report::plots::{draw_legend, plot_err};
use crate::Result;

/// Points of each curve along R_C (log-spaced).
const SAMPLES: usize = 200;

/// One method on one machine: time to convergence at each R_C of the grid; GPU curves dashed.
struct Curve {
    label: String,
    points: Vec<(f64, f64)>,
    colour: RGBColor,
    gpu: bool,
}

/// Draws the model's Fig. 6.9 to `path` (PNG). Nothing is drawn without an implicit count (the
/// R_C axis needs N_imp).
pub fn plot_time_against_ratio(path: &Path, model: &PerfModel) -> Result<()> {
    let Some(reference) = model.hardware.first() else { return Ok(()) };
    let Some((implicit, _)) = model.implicit_count(reference.preconditioner) else { return Ok(()) };
    let n_imp = implicit.iterations as f64;
    let ratios: Vec<(Method, f64)> = [Method::ExplicitSingleGrid, Method::ExplicitMultigrid]
        .into_iter()
        .filter_map(|m| model.convergence_ratio(m, reference.preconditioner).map(|r| (m, r)))
        .collect();
    let r_max = ratios.iter().map(|(_, r)| 3.0 * r).fold(1000.0_f64, f64::max);
    let grid: Vec<f64> = (0..=SAMPLES).map(|k| (r_max.ln() * k as f64 / SAMPLES as f64).exp()).collect();
    let mut curves: Vec<Curve> = Vec::new();
    let colours = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK, RGBColor(255, 140, 0), RGBColor(128, 0, 128), RGBColor(0, 128, 128)];
    for (k, h) in model.hardware.iter().enumerate() {
        let colour = colours[k % colours.len()];
        if let Some(p) = model.predict(h, Method::Implicit) {
            curves.push(Curve { label: format!("implicit, {}", h.hardware.label()), points: grid.iter().map(|&r| (r, p.seconds)).collect(), colour, gpu: h.hardware.is_gpu() });
        }
        for (method, delay, shade) in [(Method::ExplicitMultigrid, Some(model.multigrid_delay), 0.75), (Method::ExplicitSingleGrid, None, 0.45)] {
            let c = RGBColor((colour.0 as f64 * shade) as u8, (colour.1 as f64 * shade) as u8, (colour.2 as f64 * shade) as u8);
            let points = grid.iter().map(|&r| (r, model::explicit_time(&h.explicit, r * n_imp, delay))).collect();
            curves.push(Curve { label: format!("{}, {}", method.label(), h.hardware.label()), points, colour: c, gpu: h.hardware.is_gpu() });
        }
    }
    let values = curves.iter().flat_map(|c| c.points.iter().map(|q| q.1)).filter(|v| *v > 0.0 && v.is_finite());
    let (lo, hi) = values.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !lo.is_finite() {
        return Ok(());
    }
    ensure_fonts();
    let root = BitMapBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let title = format!("{}: time to convergence against R_C (N_imp = {})", model.case, implicit.iterations);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((1.0..r_max).log_scale(), (lo * 0.5..hi * 2.0).log_scale())
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("convergence ratio R_C = N_explicit / N_implicit (eq. 6.3)")
        .y_desc("time to convergence [s]")
        .label_style(("sans-serif", 16))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    for Curve { label, points, colour, gpu } in &curves {
        chart
            .draw_series(dashed_or_full(points, *colour, *gpu))
            .map_err(|e| plot_err(path, e))?
            .label(label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    for (method, r) in &ratios {
        chart
            .draw_series(LineSeries::new(vec![(*r, lo * 0.5), (*r, hi * 2.0)], BLACK.stroke_width(1)))
            .map_err(|e| plot_err(path, e))?
            .label(format!("measured R_C, {}: {r:.1}", method.label()))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::UpperLeft, 14)?;
    root.present().map_err(|e| plot_err(path, e))?;
    Ok(())
}

/// A full line (GPU) or a line drawn in dashes (CPU), as in the thesis's figure.
fn dashed_or_full(points: &[(f64, f64)], colour: RGBColor, full: bool) -> Vec<PathElement<(f64, f64)>> {
    let style = colour.stroke_width(if full { 3 } else { 2 });
    if full {
        return vec![PathElement::new(points.to_vec(), style)];
    }
    points.chunks(4).map(|c| PathElement::new(c[..c.len().min(2)].to_vec(), style)).collect()
}
