//! A picture of the T106C blade of `blades/t106c.ron` for inspection: the outline in three
//! neighbouring passages (blue), its camber line (red) and the camber line's control polygon
//! (green), in millimetres.
//!
//! `cargo run --release --example t106c_picture [OUT.png]` (default: t106c.png in the system's
//! temporary folder).

use plotters::prelude::*;
use turbopt::geometry::{load_blade_file, BladeDefinition};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).map_or_else(|| std::env::temp_dir().join("t106c.png"), std::path::PathBuf::from);
    let file = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/t106c.ron"))?;
    let outline = file.outline()?;
    turbopt::report::ensure_fonts();
    let root = BitMapBackend::new(&out, (900, 1000)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root).margin(20).x_label_area_size(30).y_label_area_size(40).build_cartesian_2d(-10.0..90.0, -100.0..100.0)?;
    chart.configure_mesh().draw()?;
    for shift in [-1.0, 0.0, 1.0] {
        let mut pts: Vec<(f64, f64)> = outline.points.iter().map(|p| (p[0] * 1e3, (p[1] + shift * file.cascade.pitch) * 1e3)).collect();
        pts.push(pts[0]);
        chart.draw_series(LineSeries::new(pts, &BLUE))?;
    }
    let BladeDefinition::Design(d) = &file.blade else { return Err("blades/t106c.ron is defined by its design parameters".into()) };
    let curve = d.curve()?;
    let camber: Vec<(f64, f64)> = (0..=400)
        .map(|k| {
            let p = curve.camber.point(k as f64 / 400.0);
            (p[0] * 1e3, p[1] * 1e3)
        })
        .collect();
    chart.draw_series(LineSeries::new(camber, &RED))?;
    let poly: Vec<(f64, f64)> = d.camber_control_points().iter().map(|p| (p[0] * 1e3, p[1] * 1e3)).collect();
    chart.draw_series(LineSeries::new(poly, &GREEN))?;
    root.present()?;
    println!("{}", out.display());
    Ok(())
}
