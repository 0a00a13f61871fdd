//! LS89 from its published Bezier definition (blades/ls89.ron) against the published figures and
//! the tabulated TN174 profile (data/ls89).

use turbopt::geometry::cascade::closest_on_segment;
use turbopt::geometry::{dist, load_blade_file, throat, BladeDefinition, BladeFile, Outline, Point2};

fn ls89() -> BladeFile {
    load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).expect("blades/ls89.ron loads")
}

/// Rows of a CSV file under data/ as text cells, comment lines and the header skipped.
fn read_rows(rel: &str) -> Vec<Vec<String>> {
    let path = format!("{}/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .map(|l| l.split(',').map(|c| c.trim().to_string()).collect())
        .collect()
}

/// Rows of a CSV file under data/ as numbers; empty or non-numeric cells None.
fn read_csv(rel: &str) -> Vec<Vec<Option<f64>>> {
    read_rows(rel).into_iter().map(|r| r.iter().map(|c| c.parse::<f64>().ok()).collect()).collect()
}

/// The value of `quantity` in a `quantity,value,unit` table under data/.
fn quantity(rows: &[Vec<String>], name: &str) -> f64 {
    let row = rows.iter().find(|r| r[0] == name).unwrap_or_else(|| panic!("no row {name}"));
    row[1].parse().unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
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

/// blades/ls89.ron carries the published tables of data/ls89 (converted to metres): the Bezier
/// control points, the trailing-edge circle (centre x with the sign the end points call for), the
/// cascade geometry, the operating points and the gas.
#[test]
fn ls89_blade_file_carries_the_published_tables() {
    let file = ls89();
    let BladeDefinition::Bezier(b) = &file.blade else { panic!("LS89 main definition is Bezier") };
    let points = read_rows("ls89/bezier_control_points_mm.csv");
    for (side, curve) in [("ss", &b.suction_side), ("ps", &b.pressure_side)] {
        let published: Vec<Point2> = points
            .iter()
            .filter(|r| r[0] == side)
            .map(|r| [r[2].parse::<f64>().unwrap() * 1e-3, r[3].parse::<f64>().unwrap() * 1e-3])
            .collect();
        assert_eq!(curve.len(), published.len(), "{side}: control points");
        for (k, (p, q)) in curve.iter().zip(&published).enumerate() {
            assert!(dist(*p, *q) < 1e-12, "{side} control point {}: {p:?} in the blade file, {q:?} published", k + 1);
        }
    }

    let geometry = read_rows("ls89/geometry.csv");
    let mm = |name: &str| quantity(&geometry, name) * 1e-3;
    let circle = b.trailing_edge_circle.as_ref().expect("LS89 has a trailing-edge circle");
    assert!(close(circle.radius, mm("trailing_edge_radius")), "trailing-edge radius {}", circle.radius);
    assert!(close(circle.centre[0], mm("trailing_edge_centre_x")) && close(circle.centre[1], mm("trailing_edge_centre_y")), "centre {:?}", circle.centre);
    let c = &file.cascade;
    for (what, value, published) in [
        ("pitch", c.pitch, mm("pitch")),
        ("chord", c.chord, mm("chord")),
        ("axial chord", c.axial_chord, mm("axial_chord")),
        ("throat", c.throat.expect("LS89 throat"), mm("throat")),
        ("inlet length", c.inlet_length, mm("inlet_length_upstream_of_leading_edge")),
        ("outlet length", c.outlet_length, mm("outlet_length_downstream_of_trailing_edge")),
        // The blade file counts the stagger towards +y: the vane turns the flow towards -y.
        ("stagger", -c.stagger_deg, quantity(&geometry, "stagger_angle_from_axial")),
    ] {
        assert!(close(value, published), "{what}: {value} in the blade file, {published} published");
    }

    let conditions = read_rows("ls89/conditions.csv");
    assert_eq!(conditions.len(), 3);
    for row in &conditions {
        let op = file.operating_point(&row[0]).unwrap_or_else(|e| panic!("{}: {e}", row[0]));
        let published: Vec<f64> = row[1..5].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(vec![op.p01, op.t01, op.alpha1_deg, op.p2], published, "{}: P01, T01, alpha1, p2", row[0]);
    }

    // The blade file's gas is the library's default gas, and both are the published one.
    let gas = read_rows("ls89/gas.csv");
    for g in [&file.gas, &turbopt::flow::gas::Gas::default()] {
        for (what, value) in [
            ("gas_constant", g.gas_constant),
            ("gamma", g.gamma),
            ("prandtl", g.prandtl),
            ("mu_ref", g.mu_ref),
            ("t_ref", g.t_ref),
            ("sutherland_s", g.sutherland_s),
            ("turbulent_prandtl", g.turbulent_prandtl),
        ] {
            assert!(close(value, quantity(&gas, what)), "{what}: {value}, published {}", quantity(&gas, what));
        }
    }
}

/// The measured blade-surface isentropic Mach number at MUR47 (the file `turbopt solve
/// --compare` takes) reads with the library's reader: 20 suction-side and 7 pressure-side taps
/// between the leading and the trailing edge, subsonic to slightly supersonic.
#[test]
fn ls89_measured_mis_taps_read_as_the_cli_reads_them() {
    use turbopt::post::read_measured_mis;
    use turbopt::post::BladeSide;
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/ls89/mur47_isentropic_mach_experiment.csv"));
    let taps = read_measured_mis(path).unwrap();
    let suction = taps.iter().filter(|t| matches!(t.side, BladeSide::Suction)).count();
    assert_eq!((suction, taps.len() - suction), (20, 7));
    let axial_chord = ls89().cascade.axial_chord;
    for t in &taps {
        assert!((0.0..=axial_chord).contains(&t.x_from_le), "tap at {} m", t.x_from_le);
        assert!((0.0..1.3).contains(&t.mis), "Mis {}", t.mis);
    }
}
