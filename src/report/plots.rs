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
    chart.configure_mesh().x_desc(x_label).label_style(("sans-serif", 18)).y_label_formatter(&|v| format!("{v:.0e}")).draw().map_err(|e| plot_err(path, e))?;
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

/// What [`plot_fit`] draws: points a curve was fitted to, the fitted outline, and the
/// deviation's scale.
pub struct FitPicture<'a> {
    pub title: String,
    /// The points fitted to (m).
    pub points: &'a [crate::geometry::Point2],
    /// The outline through the points and the fitted outline.
    pub through_points: &'a crate::geometry::Outline,
    pub fitted: &'a crate::geometry::Outline,
    /// The cascade pitch (the neighbouring blade is drawn one pitch up) and the chord the
    /// deviation is given in.
    pub pitch: f64,
    pub chord: f64,
    /// The largest deviation allowed, % of the chord (a line on the deviation chart).
    pub tolerance_percent: f64,
}

/// A fit over its points: the blade in its cascade, close-ups of both edges, and each point's
/// distance to the fitted outline (% of the chord) along the outline.
pub fn plot_fit(path: &Path, picture: &FitPicture) -> Result<()> {
    ensure_fonts();
    let root = BitMapBackend::new(path, (1800, 1050)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let root = root.titled(&picture.title, ("sans-serif", 28)).map_err(|e| plot_err(path, e))?;
    let (left, right) = root.split_horizontally(760);
    let edges = right.split_evenly((2, 1));
    let (top, bottom) = (&edges[0], &edges[1]);
    let (le, te) = top.split_horizontally(520);
    let fitted = &picture.fitted.points;
    let upstream = *fitted.iter().min_by(|a, b| a[0].total_cmp(&b[0])).expect("an outline has points");
    let downstream = *fitted.iter().max_by(|a, b| a[0].total_cmp(&b[0])).expect("an outline has points");
    let size = 0.06 * picture.chord;
    draw_fit_view(&left, path, picture, "cascade", None)?;
    draw_fit_view(&le, path, picture, "leading edge", Some((upstream, size)))?;
    draw_fit_view(&te, path, picture, "trailing edge", Some((downstream, size)))?;
    draw_fit_deviation(bottom, path, picture)?;
    root.present().map_err(|e| plot_err(path, e))
}

/// One view of the fit, equal axes: the whole cascade passage, or a square of half-width `size`
/// round a point.
fn draw_fit_view(
    area: &DrawingArea<BitMapBackend<'_>, Shift>,
    path: &Path,
    picture: &FitPicture,
    caption: &str,
    around: Option<(crate::geometry::Point2, f64)>,
) -> Result<()> {
    let ([x0, x1], [y0, y1]) = match around {
        Some((c, h)) => ([c[0] - h, c[0] + h], [c[1] - h, c[1] + h]),
        None => {
            let ([a, b], [c, d]) = picture.fitted.bounding_box();
            ([a, b], [c, d + picture.pitch])
        }
    };
    let (width, height) = area.dim_in_pixel();
    let (w, h) = (width.saturating_sub(90).max(1) as f64, height.saturating_sub(90).max(1) as f64);
    let span = ((x1 - x0) / w).max((y1 - y0) / h) * 1.08;
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    let (hx, hy) = (0.5 * span * w * 1e3, 0.5 * span * h * 1e3);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(55)
        .build_cartesian_2d(cx * 1e3 - hx..cx * 1e3 + hx, cy * 1e3 - hy..cy * 1e3 + hy)
        .map_err(|e| plot_err(path, e))?;
    chart.configure_mesh().x_desc("x [mm]").y_desc("y [mm]").label_style(("sans-serif", 14)).draw().map_err(|e| plot_err(path, e))?;
    let mm = |p: &crate::geometry::Point2, shift: f64| (p[0] * 1e3, (p[1] + shift) * 1e3);
    // The points under the lines, and only those in view (plotters would pin the others to the
    // frame).
    let (xs, ys) = (cx * 1e3 - hx..cx * 1e3 + hx, cy * 1e3 - hy..cy * 1e3 + hy);
    let radius = if around.is_some() { 4 } else { 2 };
    let in_view = picture.points.iter().map(|p| mm(p, 0.0)).filter(|(x, y)| xs.contains(x) && ys.contains(y));
    chart
        .draw_series(in_view.map(|p| Circle::new(p, radius, BLUE.filled())))
        .map_err(|e| plot_err(path, e))?
        .label("points")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, BLUE.filled()));
    let copies: &[f64] = if around.is_some() { &[0.0] } else { &[0.0, picture.pitch] };
    let grey = RGBColor(120, 120, 120);
    for (k, &shift) in copies.iter().enumerate() {
        for (outline, style, label) in
            [(picture.through_points, grey.stroke_width(1), "spline through the points"), (picture.fitted, RED.stroke_width(2), "fitted design")]
        {
            let closed: Vec<(f64, f64)> = outline.points.iter().chain(outline.points.first()).map(|p| mm(p, shift)).collect();
            // Runs of points in view, each drawn on its own (a line leaving the view would be
            // pinned to the frame).
            let runs = closed.split(|(x, y)| !(xs.contains(x) && ys.contains(y))).filter(|run| run.len() > 1);
            for (j, run) in runs.enumerate() {
                let series = chart.draw_series(LineSeries::new(run.iter().copied(), style)).map_err(|e| plot_err(path, e))?;
                if k == 0 && j == 0 {
                    series.label(label).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
                }
            }
        }
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::UpperRight, 14)
}

/// Each point's distance to the fitted outline (% of the chord) against its position round the
/// blade, with the tolerance.
fn draw_fit_deviation(area: &DrawingArea<BitMapBackend<'_>, Shift>, path: &Path, picture: &FitPicture) -> Result<()> {
    let fitted = &picture.fitted.points;
    let n = fitted.len();
    let distance = |q: crate::geometry::Point2| {
        (0..n).map(|k| crate::geometry::dist(q, crate::geometry::cascade::closest_on_segment(q, fitted[k], fitted[(k + 1) % n]))).fold(f64::INFINITY, f64::min)
    };
    let deviation: Vec<(f64, f64)> = picture.points.iter().enumerate().map(|(k, p)| (k as f64, 100.0 * distance(*p) / picture.chord)).collect();
    let top = deviation.iter().map(|d| d.1).fold(picture.tolerance_percent, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(area)
        .caption("distance of each point to the fitted design", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..deviation.len().max(2) as f64 - 1.0, 0.0..top)
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("point (in the file's order, the loop as read)")
        .y_desc("% of chord")
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    chart
        .draw_series(LineSeries::new(deviation, BLUE.stroke_width(2)))
        .map_err(|e| plot_err(path, e))?
        .label("deviation")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    let last = picture.points.len().max(2) as f64 - 1.0;
    chart
        .draw_series(LineSeries::new([(0.0, picture.tolerance_percent), (last, picture.tolerance_percent)], RED.stroke_width(1)))
        .map_err(|e| plot_err(path, e))?
        .label(format!("tolerance {} %", picture.tolerance_percent))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
    draw_legend(&mut chart, path, SeriesLabelPosition::UpperRight, 14)
}
