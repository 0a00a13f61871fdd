//! The design parameterization fitted to LS89's Bezier blade.

use turbopt::geometry::fit::{fit_design_to_outline, initial_design_for_outline, outline_deviation, set_optimization_bounds, FitOptions};
use turbopt::geometry::load_blade_file;

const LS89_CHORD: f64 = 0.067647;

#[test]
#[ignore = "long: refits LS89 from scratch and prints the RON to store (about a minute)"]
fn refit_ls89_design_from_scratch() {
    let file = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap();
    let target = file.outline().unwrap();
    let nc: usize = std::env::var("FIT_NC").ok().and_then(|s| s.parse().ok()).unwrap_or(4);
    let nt: usize = std::env::var("FIT_NT").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let initial = initial_design_for_outline(&target, file.cascade.pitch, nc, nt).unwrap();
    let (r0, m0) = outline_deviation(&target, &initial.curve().unwrap().sample(3000));
    println!("initial: rms {:.4} % max {:.4} % of chord", 100.0 * r0 / LS89_CHORD, 100.0 * m0 / LS89_CHORD);
    let t = std::time::Instant::now();
    let init_outline = initial.curve().unwrap().sample(3000);
    use plotters::style::{BLUE, RED, GREEN};
    plot_outlines("/tmp/init_all.png", &[(&target, BLUE), (&init_outline, GREEN)], None);
    plot_outlines("/tmp/init_le.png", &[(&target, BLUE), (&init_outline, GREEN)], Some(((-3.0, 12.0), (-7.0, 8.0))));
    let fit = fit_design_to_outline(&target, &initial, &FitOptions::default()).unwrap();
    println!("fit ({nc} camber, {nt} thickness): {} iterations, {:.1} s, rms {:.4} % max {:.4} % of chord",
        fit.iterations, t.elapsed().as_secs_f64(), 100.0 * fit.rms / LS89_CHORD, 100.0 * fit.max / LS89_CHORD);
    let fitted = fit.design.outline().unwrap();
    plot_outlines("/tmp/fit_all.png", &[(&target, BLUE), (&fitted, RED), (&init_outline, GREEN)], None);
    plot_outlines("/tmp/fit_le.png", &[(&target, BLUE), (&fitted, RED), (&init_outline, GREEN)], Some(((-3.0, 12.0), (-7.0, 8.0))));
    plot_outlines("/tmp/fit_te.png", &[(&target, BLUE), (&fitted, RED), (&init_outline, GREEN)], Some(((33.0, 38.0), (-54.0, -49.0))));
    let mut design = fit.design.clone();
    set_optimization_bounds(&mut design);
    println!("{}", ron::ser::to_string_pretty(&design, ron::ser::PrettyConfig::default()).unwrap());
}

/// Draw outlines (mm) into a PNG for inspection.
#[allow(dead_code)]
pub fn plot_outlines(path: &str, outlines: &[(&turbopt::geometry::Outline, plotters::style::RGBColor)], window: Option<((f64, f64), (f64, f64))>) {
    use plotters::prelude::*;
    turbopt::report::ensure_fonts();
    let root = BitMapBackend::new(path, (1000, 1000)).into_drawing_area();
    root.fill(&WHITE).unwrap();
    let ((x0, x1), (y0, y1)) = window.unwrap_or(((-10.0, 60.0), (-60.0, 10.0)));
    let mut chart = ChartBuilder::on(&root).margin(20).x_label_area_size(30).y_label_area_size(40)
        .build_cartesian_2d(x0..x1, y0..y1).unwrap();
    chart.configure_mesh().draw().unwrap();
    for (o, c) in outlines {
        let mut pts: Vec<(f64, f64)> = o.points.iter().map(|p| (p[0] * 1e3, p[1] * 1e3)).collect();
        pts.push(pts[0]);
        chart.draw_series(LineSeries::new(pts, c)).unwrap();
    }
    root.present().unwrap();
}
