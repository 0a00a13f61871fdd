//! The T106C blade (blades/t106c.ron): the HiOCFD5 workshop coordinates
//! (data/cascades/t106c_how5.csv) imported with `turbopt import`, checked against the points and
//! the published cascade figures.

use turbopt::geometry::{load_blade_file, read_profile, throat, BladeDefinition, BladeFile, Outline};

const COORDINATES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/cascades/t106c_how5.csv");

fn t106c() -> BladeFile {
    load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/t106c.ron")).expect("blades/t106c.ron loads")
}

/// The workshop's points in the blade file's frame (its leading-edge point moved to the origin,
/// as the import does with the most upstream point).
fn workshop_points() -> Vec<[f64; 2]> {
    let profile = read_profile(&[std::path::Path::new(COORDINATES)]).expect("the T106C table reads");
    let points: Vec<[f64; 2]> = profile.sections.concat();
    let upstream = points.iter().copied().min_by(|a, b| a[0].total_cmp(&b[0])).unwrap();
    points.iter().map(|p| [p[0] - upstream[0], p[1] - upstream[1]]).collect()
}

/// Distance from `p` to the closed polyline `outline`.
fn distance_to(outline: &Outline, p: [f64; 2]) -> f64 {
    let pts = &outline.points;
    (0..pts.len())
        .map(|k| {
            let (a, b) = (pts[k], pts[(k + 1) % pts.len()]);
            let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
            let t = (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy).max(1e-300)).clamp(0.0, 1.0);
            ((p[0] - a[0] - t * dx).powi(2) + (p[1] - a[1] - t * dy).powi(2)).sqrt()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn t106c_is_the_workshop_profile() {
    let file = t106c();
    assert_eq!(file.name, "T106C");
    let BladeDefinition::Design(design) = &file.blade else { panic!("blades/t106c.ron solves its fitted design") };
    assert_eq!(Some(design), file.design.as_ref(), "the solved blade is the optimization baseline");
    design.check_bounds().unwrap();
    let outline = file.outline().expect("valid outline");
    let deviations: Vec<f64> = workshop_points().iter().map(|&p| distance_to(&outline, p) / file.cascade.chord * 100.0).collect();
    let rms = (deviations.iter().map(|d| d * d).sum::<f64>() / deviations.len() as f64).sqrt();
    let max = deviations.iter().copied().fold(0.0, f64::max);
    println!("T106C: the blade file against the {} workshop points: {rms:.4} % RMS, {max:.4} % max of the chord", deviations.len());
    // The import reported 0.0063 % RMS and 0.0317 % max (distance along the surface normal); the
    // distance to the polyline of the outline here is the same to the outline's resolution.
    assert!(rms < 0.01 && max < 0.05, "RMS {rms:.4} %, max {max:.4} % of the chord");
    let space = file.design_space().unwrap();
    assert_eq!(space.dim(), design.to_vector().len());
    let again = file.design_outline(&space.baseline).unwrap();
    assert_eq!(again.points, outline.points);
}

#[test]
fn t106c_cascade_figures() {
    let file = t106c();
    let outline = file.outline().unwrap();
    let c = &file.cascade;
    let (bx, _) = outline.bounding_box();
    let (o, _, _) = throat(&outline, c.pitch);
    let exit_angle = (o / c.pitch).acos().to_degrees();
    println!(
        "T106C: chord {:.3} mm, pitch/chord {:.4}, axial chord {:.3} mm, stagger {:.2} deg, throat {:.3} mm, acos(o/s) {:.2} deg",
        c.chord * 1e3,
        c.pitch / c.chord,
        (bx[1] - bx[0]) * 1e3,
        c.stagger_deg,
        o * 1e3,
        exit_angle
    );
    // Published: chord 93.01 mm, pitch 88.36 mm (0.95 chord), stagger 30.7 deg from axial.
    assert!((c.chord - 0.09301).abs() < 0.01e-3);
    assert!((c.pitch - 0.08836).abs() < 1e-9);
    assert!((c.pitch / c.chord - 0.95).abs() < 1e-3);
    assert!((bx[1] - bx[0] - c.axial_chord).abs() < 0.05e-3, "axial chord in the file matches the outline");
    assert!((c.stagger_deg + 30.7).abs() < 0.5, "stagger {:.2} deg", c.stagger_deg);
    assert!((o - c.throat.unwrap()).abs() < 0.05e-3, "throat in the file matches the outline");
    assert!((exit_angle - 60.6).abs() < 1.0, "exit angle from the throat {exit_angle:.2} deg");
}

#[test]
fn t106c_operating_points() {
    let file = t106c();
    let gas = file.gas;
    let mut reynolds = Vec::new();
    for op in &file.operating_points {
        let m2 = op.exit_isentropic_mach(gas.gamma);
        // Exit Reynolds number on the chord from the isentropic exit state.
        let t2 = op.t01 / (1.0 + 0.5 * (gas.gamma - 1.0) * m2 * m2);
        let rho2 = op.p2 / (gas.gas_constant * t2);
        let v2 = m2 * (gas.gamma * gas.gas_constant * t2).sqrt();
        let re2 = rho2 * v2 * file.cascade.chord / gas.viscosity(t2);
        println!("T106C {}: M2is {m2:.4}, Re2is {re2:.4e}, alpha1 {} deg", op.name, op.alpha1_deg);
        assert!((m2 - 0.65).abs() < 0.001, "{}: M2is {m2}", op.name);
        assert!((op.alpha1_deg - 32.7).abs() < 1e-9);
        reynolds.push(re2);
    }
    assert_eq!(file.operating_points.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(), ["M065_RE200K", "M065_RE80K"]);
    assert!((reynolds[0] / 2.0e5 - 1.0).abs() < 0.005, "Re2is {:.4e}", reynolds[0]);
    assert!((reynolds[1] / 0.8e5 - 1.0).abs() < 0.005, "Re2is {:.4e}", reynolds[1]);
}
