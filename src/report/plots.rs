//! Chart helpers and the generic pictures (convergence histories, blade outlines); the
//! pictures of a layer's own results live with that layer (`post::pictures`, `mesh::picture`,
//! `perf::plot`, the campaign's plots).

use super::ensure_fonts;
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

pub(crate) fn plot_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Other(format!("drawing {}: {e}", path.display()))
}

/// The series labels of a chart in a framed box at `position`.
pub(crate) fn draw_legend<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, BitMapBackend<'b>, CT>,
    path: &Path,
    position: SeriesLabelPosition,
    font_size: u32,
) -> Result<()> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", font_size))
        .position(position)
        .draw()
        .map_err(|e| plot_err(path, e))
}

/// Semi-log plot of one or more series against iteration (e.g. residual norms per equation).
pub fn plot_semilog(path: &Path, title: &str, x_label: &str, series: &[(&str, Vec<(f64, f64)>)]) -> Result<()> {
    ensure_fonts();
    let root = BitMapBackend::new(path, (1000, 650)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let pts = series.iter().flat_map(|(_, s)| s.iter()).filter(|p| p.1 > 0.0 && p.1.is_finite());
    let (mut xmax, mut ymin, mut ymax) = (1.0_f64, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        xmax = xmax.max(x);
        ymin = ymin.min(y);
        ymax = ymax.max(y);
    }
    if !ymin.is_finite() {
        (ymin, ymax) = (1e-12, 1.0);
    }
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 26))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..xmax, (ymin * 0.5..ymax * 2.0).log_scale())
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .label_style(("sans-serif", 18))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    let palette = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (k, (label, s)) in series.iter().enumerate() {
        let colour = palette[k % palette.len()];
        let data = s.iter().copied().filter(|p| p.1 > 0.0 && p.1.is_finite());
        chart
            .draw_series(LineSeries::new(data, colour.stroke_width(2)))
            .map_err(|e| plot_err(path, e))?
            .label(label.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::MiddleRight, 18)?;
    root.present().map_err(|e| plot_err(path, e))?;
    Ok(())
}

/// Blade outlines overlaid (e.g. a campaign's best design over its baseline), equal axes.
pub fn plot_blades(path: &Path, title: &str, blades: &[(&str, &crate::geometry::Outline)]) -> Result<()> {
    let root = BitMapBackend::new(path, (1000, 1180)).into_drawing_area();
    draw_blades(&root, path, title, blades)?;
    root.present().map_err(|e| plot_err(path, e))
}

/// [`plot_blades`] into a part of a picture (`path`: the picture's file, for errors).
pub fn draw_blades(root: &DrawingArea<BitMapBackend<'_>, Shift>, path: &Path, title: &str, blades: &[(&str, &crate::geometry::Outline)]) -> Result<()> {
    ensure_fonts();
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for (_, o) in blades {
        let ([a, b], [c, d]) = o.bounding_box();
        (x0, x1, y0, y1) = (x0.min(a), x1.max(b), y0.min(c), y1.max(d));
    }
    // Equal scales on both axes: widen the narrower range about its centre.
    let (width, height) = root.dim_in_pixel();
    let (w, h) = (width.saturating_sub(100).max(1), height.saturating_sub(80).max(1));
    let span = ((x1 - x0) / w as f64).max((y1 - y0) / h as f64) * 1.1;
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    let (hx, hy) = (0.5 * span * w as f64, 0.5 * span * h as f64);
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((cx - hx) * 1e3..(cx + hx) * 1e3, (cy - hy) * 1e3..(cy + hy) * 1e3)
        .map_err(|e| plot_err(path, e))?;
    chart.configure_mesh().x_desc("x [mm]").y_desc("y [mm]").label_style(("sans-serif", 16)).draw().map_err(|e| plot_err(path, e))?;
    let palette = [BLACK, RED, BLUE, GREEN];
    for (k, (label, o)) in blades.iter().enumerate() {
        let colour = palette[k % palette.len()];
        let closed = o.points.iter().chain(o.points.first()).map(|p| (p[0] * 1e3, p[1] * 1e3));
        chart
            .draw_series(LineSeries::new(closed, colour.stroke_width(2)))
            .map_err(|e| plot_err(path, e))?
            .label(label.to_string())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::MiddleRight, 18)
}
