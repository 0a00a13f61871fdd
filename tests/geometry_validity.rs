//! Each validity check gets a bad blade and must answer with its own clear error.

use turbopt::geometry::validity::{check_pitch_overlap, check_self_intersection};
use turbopt::geometry::{load_blade_file, BezierBlade, BladeDefinition, BladeFile, CoordinateBlade, DesignParameterization, GeometryError, Outline};

fn blade(name: &str) -> BladeFile {
    load_blade_file(format!("{}/blades/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn ls89_bezier() -> BezierBlade {
    match blade("ls89.ron").blade {
        BladeDefinition::Bezier(b) => b,
        _ => unreachable!("LS89 is published as Bezier curves"),
    }
}

fn t106c_design() -> DesignParameterization {
    blade("t106c.ron").design.unwrap()
}

fn max_gap(o: &Outline) -> f64 {
    let n = o.points.len();
    (0..n).map(|k| turbopt::geometry::dist(o.points[k], o.points[(k + 1) % n])).fold(0.0, f64::max)
}

#[test]
fn crossing_sides_are_reported() {
    let mut b = ls89_bezier();
    // Pull the middle pressure-side control points far above the suction side.
    for k in 3..=5 {
        b.pressure_side[k][1] = 0.04;
    }
    let err = b.outline().expect_err("crossing sides must be refused");
    assert!(matches!(err, GeometryError::SelfIntersection { first: "suction side", second: "pressure side", .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.contains("suction side") && msg.contains("pressure side") && msg.contains("cross"), "{msg}");
}

#[test]
fn a_side_crossing_itself_is_reported() {
    // A figure-of-eight loop: its two lobes cross at the origin.
    let loop_pts: Vec<[f64; 2]> = (0..200)
        .map(|k| {
            let t = 2.0 * std::f64::consts::PI * k as f64 / 200.0;
            [0.05 * t.sin(), 0.02 * (2.0 * t).sin()]
        })
        .collect();
    let o = Outline { points: loop_pts, trailing_edge: 50 };
    assert!(matches!(check_self_intersection(&o), Err(GeometryError::SelfIntersection { .. })));
}

#[test]
fn non_positive_thickness_is_reported() {
    // One side may cross the camber line; the blade needs a thickness: both sides cut through.
    let mut d = t106c_design();
    d.thickness[3].value = -0.05;
    d.pressure_thickness[3].value = -0.05;
    let err = d.outline().unwrap_err();
    assert!(matches!(err, GeometryError::NonPositiveThickness { .. }), "{err:?}");
    assert!(err.to_string().contains("non-positive thickness"), "{err}");
}

#[test]
fn open_leading_edge_is_reported() {
    let mut b = ls89_bezier();
    b.pressure_side[0] = [0.0, -0.0005];
    let err = b.outline().unwrap_err();
    assert!(matches!(err, GeometryError::LeadingEdgeNotClosed { .. }), "{err:?}");
    assert!(err.to_string().contains("0.5000 mm apart"), "{err}");
}

#[test]
fn open_trailing_edge_is_reported() {
    // Side ends off the trailing-edge circle.
    let mut b = ls89_bezier();
    b.trailing_edge_circle.as_mut().unwrap().radius = 0.0005;
    let err = b.outline().unwrap_err();
    assert!(matches!(err, GeometryError::TrailingEdgeNotClosed { .. }), "{err:?}");
    assert!(err.to_string().contains("trailing edge not closed"), "{err}");
    // No circle and sides that end apart.
    let mut b = ls89_bezier();
    b.trailing_edge_circle = None;
    let err = b.outline().unwrap_err();
    assert!(err.to_string().contains("no trailing-edge circle"), "{err}");
    // Coordinates whose sides end apart.
    let ss: Vec<[f64; 2]> = (0..=20).map(|k| { let x = k as f64 / 20.0; [x, 0.1 * (std::f64::consts::PI * x).sin()] }).collect();
    let ps: Vec<[f64; 2]> = (0..=20).map(|k| { let x = k as f64 / 20.0; [x, -0.05 * (std::f64::consts::PI * x).sin() - 0.01 * x] }).collect();
    let err = CoordinateBlade::Sides { suction_side: ss, pressure_side: ps, scale: 0.05 }.outline().unwrap_err();
    assert!(matches!(err, GeometryError::TrailingEdgeNotClosed { .. }), "{err:?}");
}

#[test]
fn out_of_bounds_design_variable_is_named() {
    let file = blade("t106c.ron");
    let space = file.design_space().unwrap();
    let mut x = space.baseline.clone();
    x[0] = space.upper[0] + 1.0;
    let err = file.design_outline(&x).unwrap_err();
    match &err {
        GeometryError::OutOfBounds { name, value, lower, upper } => {
            assert_eq!(name, &space.names[0]);
            assert_eq!((*value, *lower, *upper), (x[0], space.lower[0], space.upper[0]));
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&space.names[0]) && msg.contains("outside its bounds"), "{msg}");
    // A vector of the wrong length is refused too.
    assert!(matches!(file.design_outline(&x[1..]), Err(GeometryError::InvalidParameter { .. })));
}

#[test]
fn overlapping_neighbours_are_reported() {
    let ls89 = blade("ls89.ron");
    let outline = ls89.outline().unwrap();
    // LS89's pitchwise extent exceeds its 57.5 mm pitch without overlap...
    let (_, by) = outline.bounding_box();
    assert!(by[1] - by[0] > 0.0575);
    check_pitch_overlap(&outline, 0.0575).unwrap();
    // ...but at 20 mm the neighbours overlap.
    let err = check_pitch_overlap(&outline, 0.020).unwrap_err();
    assert!(matches!(err, GeometryError::PitchOverlap { .. }), "{err:?}");
    assert!(err.to_string().contains("pitch 20.000 mm is too small"), "{err}");
    // The design parameterization checks its own pitch.
    let mut d = t106c_design();
    d.pitch.value = 0.005;
    assert!(matches!(d.outline(), Err(GeometryError::PitchOverlap { .. })));
}

#[test]
fn blade_file_errors_name_the_file_and_position() {
    let dir = std::env::temp_dir().join(format!("turbopt_geometry_validity_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(format!("{}/blades/ls89.ron", env!("CARGO_MANIFEST_DIR"))).unwrap();
    // A syntax error: a missing comma after the name field.
    let bad = good.replacen("name: \"LS89\",", "name: \"LS89\"", 1);
    let path = dir.join("bad_syntax.ron");
    std::fs::write(&path, bad).unwrap();
    let msg = load_blade_file(&path).unwrap_err().to_string();
    assert!(msg.contains("bad_syntax.ron") && msg.contains("line 8"), "{msg}");
    // A valid file whose blade is not: a geometry error, with the file name.
    let bad = good.replacen("radius: 0.00071", "radius: 0.0005", 1);
    let path = dir.join("bad_blade.ron");
    std::fs::write(&path, bad).unwrap();
    let msg = load_blade_file(&path).unwrap_err().to_string();
    assert!(msg.contains("bad_blade.ron") && msg.contains("trailing edge not closed"), "{msg}");
    // A pitch too small for the blade.
    let bad = good.replacen("pitch: 0.0575", "pitch: 0.02", 1);
    let path = dir.join("bad_pitch.ron");
    std::fs::write(&path, bad).unwrap();
    let msg = load_blade_file(&path).unwrap_err().to_string();
    assert!(msg.contains("neighbouring blades overlap"), "{msg}");
    // A missing file.
    let msg = load_blade_file(dir.join("nope.ron")).unwrap_err().to_string();
    assert!(msg.contains("nope.ron"), "{msg}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn outlines_are_closed_without_gaps() {
    for (name, use_design) in [("ls89.ron", false), ("ls89.ron", true), ("t106c.ron", false)] {
        let file = blade(name);
        let o = if use_design { file.design.as_ref().unwrap().outline().unwrap() } else { file.outline().unwrap() };
        let gap = max_gap(&o);
        // No step larger than 0.3 % of the chord anywhere, the closing step included.
        assert!(gap < 3e-3 * file.cascade.chord, "{name}: largest step {:.4} mm", gap * 1e3);
        check_self_intersection(&o).unwrap();
    }
}
