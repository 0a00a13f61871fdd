//! The T106C-class blade (blades/t106c.ron): built with the design parameterization from the
//! published T106C cascade figures.

use turbopt::geometry::{load_blade_file, throat, BladeDefinition, BladeFile};

fn t106c() -> BladeFile {
    load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/t106c.ron")).expect("blades/t106c.ron loads")
}

#[test]
fn t106c_says_it_is_a_class_blade_and_is_valid() {
    let file = t106c();
    assert!(file.name.contains("T106C-class"));
    assert!(file.description.contains("not the measured T106C profile"));
    assert!(matches!(file.blade, BladeDefinition::Design(_)));
    let outline = file.outline().expect("valid outline");
    assert!(outline.points.len() >= 2000);
    let design = file.design.as_ref().expect("design parameterization");
    design.check_bounds().unwrap();
    let space = file.design_space().unwrap();
    assert_eq!(space.dim(), design.to_vector().len());
    // The baseline vector reproduces the main definition.
    let again = file.design_outline(&space.baseline).unwrap();
    assert_eq!(again.points, outline.points);
}

#[test]
fn t106c_cascade_figures() {
    let file = t106c();
    let outline = file.outline().unwrap();
    let c = &file.cascade;
    let (bx, by) = outline.bounding_box();
    let (o, _, _) = throat(&outline, c.pitch);
    let exit_angle = (o / c.pitch).acos().to_degrees();
    let max_thickness = {
        let BladeDefinition::Design(d) = &file.blade else { unreachable!() };
        let curve = d.curve().unwrap();
        (0..=1000).map(|k| 2.0 * curve.half_thickness(k as f64 / 1000.0)).fold(0.0, f64::max)
    };
    println!(
        "T106C-class: pitch/chord {:.4}, axial chord {:.3} mm, pitchwise extent {:.3} mm, throat {:.3} mm, o/s {:.4} -> exit angle acos(o/s) {:.2} deg, max thickness {:.2} % chord",
        c.pitch / c.chord, (bx[1] - bx[0]) * 1e3, (by[1] - by[0]) * 1e3, o * 1e3, o / c.pitch, exit_angle, 100.0 * max_thickness / c.chord
    );
    assert!((c.pitch / c.chord - 0.95).abs() < 1e-3);
    assert!((bx[1] - bx[0] - c.axial_chord).abs() < 0.1e-3, "axial chord in the file matches the outline");
    assert!((exit_angle - 63.0).abs() < 2.0, "exit angle from the throat {exit_angle:.2} deg");
    assert!((c.stagger_deg + 30.7).abs() < 0.5);
}

#[test]
fn t106c_operating_point() {
    let file = t106c();
    let gas = file.gas;
    let op = &file.operating_points[0];
    let m2 = op.exit_isentropic_mach(gas.gamma);
    // Exit Reynolds number on the chord from the isentropic exit state.
    let t2 = op.t01 / (1.0 + 0.5 * (gas.gamma - 1.0) * m2 * m2);
    let rho2 = op.p2 / (gas.gas_constant * t2);
    let v2 = m2 * (gas.gamma * gas.gas_constant * t2).sqrt();
    let re2 = rho2 * v2 * file.cascade.chord / gas.viscosity(t2);
    println!("T106C-class {}: M2is {m2:.4}, Re2 {re2:.4e}, alpha1 {} deg", op.name, op.alpha1_deg);
    assert!((m2 - 0.65).abs() < 0.002);
    assert!((2e5..=5e5).contains(&re2));
    assert!((op.alpha1_deg - 32.7).abs() < 1e-9);
}
