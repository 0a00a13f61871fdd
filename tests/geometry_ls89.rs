//! LS89 from its published Bezier definition (blades/ls89.ron) against the published figures and
//! the tabulated TN174 profile (../shared/data/ls89).

use turbopt::geometry::cascade::closest_on_segment;
use turbopt::geometry::{dist, load_blade_file, throat, BladeDefinition, BladeFile, Outline, Point2};

fn ls89() -> BladeFile {
    load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).expect("blades/ls89.ron loads")
}

/// Rows of a CSV file under ../shared/data, comment lines and the header skipped; empty cells None.
fn read_csv(rel: &str) -> Vec<Vec<Option<f64>>> {
    let path = format!("{}/../shared/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| l.split(',').map(|c| c.trim().parse::<f64>().ok()).collect())
        .collect()
}

/// Distance from q to a polyline, and whether the foot lies at either end of it.
fn distance_to_polyline(q: Point2, line: &[Point2]) -> (f64, bool) {
    let mut best = (f64::INFINITY, false);
    for k in 0..line.len() - 1 {
        let foot = closest_on_segment(q, line[k], line[k + 1]);
        let d = dist(q, foot);
        if d < best.0 {
            let at_end = (k == 0 && dist(foot, line[0]) < 1e-12) || (k == line.len() - 2 && dist(foot, line[k + 1]) < 1e-12);
            best = (d, at_end);
        }
    }
    best
}

fn max_gap(outline: &Outline) -> f64 {
    let n = outline.points.len();
    (0..n).map(|k| dist(outline.points[k], outline.points[(k + 1) % n])).fold(0.0, f64::max)
}

#[test]
fn ls89_outline_is_closed_dense_and_ordered() {
    let file = ls89();
    let outline = file.outline().expect("valid outline");
    let n = outline.points.len();
    assert!((2000..=4000).contains(&n), "{n} points");
    assert!(dist(outline.points[0], [0.0, 0.0]) < 1e-12, "index 0 is the leading edge");
    // Suction side (upper near the leading edge) comes first.
    assert!(outline.points[5][1] > 0.0 && outline.points[n - 5][1] < 0.0);
    let gap = max_gap(&outline);
    assert!(gap < 0.2e-3, "largest step {:.4} mm", gap * 1e3);
    let (bx, by) = outline.bounding_box();
    let te = outline.points[outline.trailing_edge];
    // Most downstream point of the 0.710 mm circle centred at x = 36.245 mm.
    assert!((te[0] - 0.036955).abs() < 1e-6, "trailing edge x {:.4} mm", te[0] * 1e3);
    assert!((bx[1] - bx[0] - 0.036985).abs() < 0.05e-3, "axial extent {:.4} mm vs published axial chord 36.985", (bx[1] - bx[0]) * 1e3);
    // Pitchwise extent exceeds the pitch without overlap (validated on load).
    assert!(by[1] - by[0] > file.cascade.pitch);
    println!("LS89 outline: {n} points, largest step {:.4} mm, axial extent {:.4} mm, pitchwise extent {:.3} mm",
        gap * 1e3, (bx[1] - bx[0]) * 1e3, (by[1] - by[0]) * 1e3);
}

#[test]
fn ls89_throat_and_leading_edge_radius_match_published_figures() {
    let file = ls89();
    let outline = file.outline().unwrap();
    let (o, _, _) = throat(&outline, file.cascade.pitch);
    println!("LS89 throat {:.3} mm (published 14.930)", o * 1e3);
    assert!((o - 0.01493).abs() < 0.05e-3, "throat {:.4} mm", o * 1e3);
    // Apex curvature of the Bezier sides: (n-1)/n |P1P2 x P1P3| / |P1P2|^3.
    let BladeDefinition::Bezier(b) = &file.blade else { panic!("LS89 main definition is Bezier") };
    for side in [&b.suction_side, &b.pressure_side] {
        let n = (side.len() - 1) as f64;
        let (a, c) = ([side[1][0] - side[0][0], side[1][1] - side[0][1]], [side[2][0] - side[0][0], side[2][1] - side[0][1]]);
        let la = (a[0] * a[0] + a[1] * a[1]).sqrt();
        let radius = 1.0 / ((n - 1.0) / n * (a[0] * c[1] - a[1] * c[0]).abs() / la.powi(3));
        assert!((radius - 4.127e-3).abs() < 0.005e-3, "leading-edge radius {:.4} mm", radius * 1e3);
    }
}

#[test]
fn ls89_bezier_matches_tn174_profile() {
    let file = ls89();
    let BladeDefinition::Bezier(b) = &file.blade else { panic!("LS89 main definition is Bezier") };
    let sample = |curve: &turbopt::geometry::curves::Bezier<2>| (0..=20000).map(|k| curve.point(k as f64 / 20000.0)).collect::<Vec<_>>();
    let (ss, ps) = (sample(&b.suction_curve()), sample(&b.pressure_curve()));
    let rows = read_csv("ls89/tn174_profile_coordinates_mm.csv");
    let mut stats = [(0.0, 0usize, 0.0f64), (0.0, 0usize, 0.0f64)];
    for row in &rows {
        for (side, (cols, curve)) in [((0, 1), &ss), ((2, 3), &ps)].into_iter().enumerate() {
            if let (Some(x), Some(y)) = (row[cols.0], row.get(cols.1).copied().flatten()) {
                let (d, beyond_end) = distance_to_polyline([x * 1e-3, y * 1e-3], curve);
                // Points whose foot falls past the end of the side lie on the trailing-edge circle.
                if beyond_end && x > 30.0 {
                    continue;
                }
                stats[side].0 += d * d;
                stats[side].1 += 1;
                stats[side].2 = stats[side].2.max(d);
            }
        }
    }
    let rms = |s: (f64, usize, f64)| (s.0 / s.1 as f64).sqrt() * 1e3;
    let (ss_rms, ps_rms) = (rms(stats[0]), rms(stats[1]));
    println!(
        "TN174 vs Bezier: suction side RMS {ss_rms:.4} mm (max {:.4}, {} points), pressure side RMS {ps_rms:.4} mm (max {:.4}, {} points)",
        stats[0].2 * 1e3, stats[0].1, stats[1].2 * 1e3, stats[1].1
    );
    assert!(stats[0].1 > 190 && stats[1].1 > 190);
    assert!(ss_rms <= 0.06, "suction side RMS {ss_rms:.4} mm");
    assert!(ps_rms <= 0.12, "pressure side RMS {ps_rms:.4} mm");
}

#[test]
fn ls89_operating_points_and_gas() {
    let file = ls89();
    let mur47 = file.operating_point("MUR47").unwrap();
    let m = mur47.exit_isentropic_mach(file.gas.gamma);
    assert!((m - 1.02).abs() < 0.005, "MUR47 M2is {m:.4}");
    let m1 = file.operating_point("TC2_OP1").unwrap().exit_isentropic_mach(file.gas.gamma);
    let m3 = file.operating_point("TC2_OP3").unwrap().exit_isentropic_mach(file.gas.gamma);
    assert!((m1 - 0.9).abs() < 0.005 && (m3 - 1.1).abs() < 0.005, "TC2 M2is {m1:.4}, {m3:.4}");
    assert_eq!(file.gas.prandtl, 0.7);
    let err = file.operating_point("MUR99").unwrap_err().to_string();
    assert!(err.contains("MUR99") && err.contains("MUR47"), "{err}");
    assert!((file.cascade.inlet_length - 0.055).abs() < 1e-12 && (file.cascade.outlet_length - 0.064).abs() < 1e-12);
}
