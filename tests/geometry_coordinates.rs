//! Imported coordinates through the interpolating spline: the TN174 table as two sides, and a
//! closed loop (either direction) taken from the LS89 Bezier outline.

use turbopt::geometry::fit::outline_deviation;
use turbopt::geometry::{dist, load_blade_file, CoordinateBlade};

fn tn174_sides() -> (Vec<[f64; 2]>, Vec<[f64; 2]>) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/ls89/tn174_profile_coordinates_mm.csv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (mut ss, mut ps) = (vec![], vec![]);
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let c: Vec<Option<f64>> = line.split(',').map(|v| v.trim().parse().ok()).collect();
        if let (Some(x), Some(y)) = (c[0], c[1]) {
            ss.push([x, y]);
        }
        if let (Some(Some(x)), Some(Some(y))) = (c.get(2), c.get(3)) {
            ps.push([*x, *y]);
        }
    }
    (ss, ps)
}

#[test]
fn tn174_table_makes_a_valid_outline_close_to_the_bezier_blade() {
    let (ss, ps) = tn174_sides();
    assert_eq!((ss.len(), ps.len()), (206, 199));
    let blade = CoordinateBlade::Sides { suction_side: ss, pressure_side: ps, scale: 1e-3 };
    let outline = blade.outline().expect("TN174 sides make a valid outline");
    assert!(dist(outline.points[0], [0.0, 0.0]) < 1e-12);
    let bezier = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap().outline().unwrap();
    let (rms, max) = outline_deviation(&outline, &bezier);
    println!("TN174 spline vs LS89 Bezier outline: RMS {:.4} mm, max {:.4} mm", rms * 1e3, max * 1e3);
    // The table is noisy (RMS about 0.05 mm per side against the Bezier curves).
    assert!(rms < 0.1e-3 && max < 0.5e-3);
}

#[test]
fn closed_loop_in_either_direction_reproduces_the_curve() {
    let bezier = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap().outline().unwrap();
    // Every 4th point of the dense outline, starting off the leading edge, as a loop.
    let mut pts: Vec<[f64; 2]> = bezier.points.iter().step_by(4).copied().collect();
    pts.rotate_left(100);
    for reverse in [false, true] {
        let mut loop_pts = pts.clone();
        if reverse {
            loop_pts.reverse();
        }
        let outline = CoordinateBlade::Loop { points: loop_pts, scale: 1.0 }.outline().unwrap();
        // Index 0 is the most upstream point, the suction side (upper) comes first.
        assert!(outline.points[0][0] <= outline.points.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min) + 1e-12);
        assert!(outline.points[10][1] > outline.points[0][1]);
        let (rms, max) = outline_deviation(&outline, &bezier);
        assert!(rms < 1e-6 && max < 5e-6, "reverse {reverse}: RMS {:.2e} m, max {:.2e} m", rms, max);
    }
}
