//! The pictures of post-processed figures: blade-surface isentropic Mach number against the
//! measured taps.

use super::{BladeSide, MeasuredMis, SurfacePoint};
use crate::error::Result;
use crate::report::ensure_fonts;
use crate::report::plots::{draw_legend, plot_err};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Isentropic Mach number along the blade (x/c_ax), suction and pressure sides, optionally
/// with measured taps, and optionally a second (e.g. baseline) distribution drawn dashed-light.
pub fn plot_isentropic_mach(
    path: &Path,
    title: &str,
    axial_chord: f64,
    computed: &[(&str, &[SurfacePoint])],
    measured: Option<&[MeasuredMis]>,
) -> Result<()> {
    ensure_fonts();
    let root = BitMapBackend::new(path, (1000, 700)).into_drawing_area();
    draw_isentropic_mach(&root, path, title, axial_chord, computed, measured)?;
    root.present().map_err(|e| plot_err(path, e))
}

/// Skin friction along both sides of the blade against x / axial chord (suction side solid,
/// pressure side lighter), with the zero line: reversed wall shear shows below it.
pub fn plot_skin_friction(path: &Path, title: &str, axial_chord: f64, surface: &[SurfacePoint]) -> Result<()> {
    ensure_fonts();
    let root = BitMapBackend::new(path, (1000, 700)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let finite = || surface.iter().map(|p| p.cf).filter(|v| v.is_finite());
    let (lo, hi) = (finite().fold(0.0_f64, f64::min), finite().fold(0.0_f64, f64::max));
    let pad = 0.05 * (hi - lo).max(1e-6);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 26))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.02..1.05, (lo - pad)..(hi + pad))
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("x / axial chord")
        .y_desc("skin friction tau_w / (P01 - p2)")
        .y_label_formatter(&|v| format!("{v:.1e}"))
        .label_style(("sans-serif", 18))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    chart.draw_series(LineSeries::new(vec![(-0.02, 0.0), (1.05, 0.0)], BLACK.mix(0.5))).map_err(|e| plot_err(path, e))?;
    for (side, colour, label) in [(BladeSide::Suction, BLUE, "suction side"), (BladeSide::Pressure, RED, "pressure side")] {
        let line: Vec<(f64, f64)> = surface.iter().filter(|p| p.side == side).map(|p| (p.x_from_le / axial_chord, p.cf)).collect();
        chart
            .draw_series(LineSeries::new(line, colour.stroke_width(2)))
            .map_err(|e| plot_err(path, e))?
            .label(label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::UpperRight, 18)?;
    root.present().map_err(|e| plot_err(path, e))
}

/// [`plot_isentropic_mach`] into a part of a picture (`path`: the picture's file, for errors).
pub fn draw_isentropic_mach(
    root: &DrawingArea<BitMapBackend<'_>, Shift>,
    path: &Path,
    title: &str,
    axial_chord: f64,
    computed: &[(&str, &[SurfacePoint])],
    measured: Option<&[MeasuredMis]>,
) -> Result<()> {
    ensure_fonts();
    root.fill(&WHITE).map_err(|e| plot_err(path, e))?;
    let ymax = computed
        .iter()
        .flat_map(|(_, s)| s.iter().map(|p| p.mis))
        .chain(measured.into_iter().flatten().map(|m| m.mis))
        .filter(|v| v.is_finite())
        .fold(0.5_f64, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 26))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.02..1.05, 0.0..ymax)
        .map_err(|e| plot_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("x / axial chord")
        .y_desc("isentropic Mach number")
        .label_style(("sans-serif", 18))
        .draw()
        .map_err(|e| plot_err(path, e))?;
    let palette = [BLUE, RED, GREEN, MAGENTA];
    for (k, (label, surface)) in computed.iter().enumerate() {
        let colour = palette[k % palette.len()];
        for side in [BladeSide::Suction, BladeSide::Pressure] {
            let line: Vec<(f64, f64)> =
                surface.iter().filter(|p| p.side == side).map(|p| (p.x_from_le / axial_chord, p.mis)).collect();
            let style = if side == BladeSide::Suction { colour.stroke_width(2) } else { colour.mix(0.6).stroke_width(2) };
            let series = chart.draw_series(LineSeries::new(line, style)).map_err(|e| plot_err(path, e))?;
            if side == BladeSide::Suction {
                series.label(label.to_string()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour));
            }
        }
    }
    if let Some(taps) = measured {
        chart
            .draw_series(taps.iter().map(|m| Circle::new((m.x_from_le / axial_chord, m.mis), 5, BLACK.filled())))
            .map_err(|e| plot_err(path, e))?
            .label("experiment")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, BLACK.filled()));
    }
    draw_legend(&mut chart, path, SeriesLabelPosition::UpperLeft, 18)
}
