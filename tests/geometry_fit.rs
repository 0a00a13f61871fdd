//! The design parameterization fitted to LS89's published Bezier blade (blades/ls89.ron, field
//! `design`), and the fit itself (geometry::fit).

use turbopt::geometry::fit::{fit_blade_to_outline, initial_design_for_outline, outline_deviation, set_optimization_bounds, FirstGuess, FitOptions};
use turbopt::geometry::{load_blade_file, BladeFile, DesignParameterization};

/// Published LS89 chord, the reference for the fit tolerances.
const LS89_CHORD: f64 = 0.067647;
/// Interior control points of the stored fit: camber, thickness per side.
const N_CAMBER: usize = 6;
const N_THICKNESS: usize = 14;

fn ls89() -> BladeFile {
    load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap()
}

/// RMS and max deviation of a design from the LS89 Bezier blade, in % of the published chord.
fn deviation_percent(file: &BladeFile, design: &DesignParameterization) -> (f64, f64) {
    let target = file.outline().unwrap();
    let outline = design.outline().expect("the design is a valid blade");
    let (rms, max) = outline_deviation(&target, &outline);
    (100.0 * rms / LS89_CHORD, 100.0 * max / LS89_CHORD)
}

#[test]
fn stored_ls89_design_matches_the_bezier_blade() {
    let file = ls89();
    let design = file.design.as_ref().expect("blades/ls89.ron has the fitted design parameterization");
    design.check_bounds().unwrap();
    let (rms, max) = deviation_percent(&file, design);
    let r_le = design.leading_edge_radius.value * 1e3;
    println!("stored LS89 design vs Bezier blade: RMS {rms:.4} % of chord, max {max:.4} % of chord; LE radius {r_le:.3} mm (published 4.127)");
    assert!(rms <= 0.05, "RMS {rms:.4} % of chord");
    assert!(max <= 0.2, "max {max:.4} % of chord");
    // The optimizer's view: every free variable has room on both sides of the baseline.
    let space = file.design_space().unwrap();
    assert!(space.dim() > 20);
    for k in 0..space.dim() {
        assert!(space.lower[k] < space.baseline[k] && space.baseline[k] < space.upper[k], "{}", space.names[k]);
    }
    // The baseline vector gives back the stored design's outline.
    let from_vector = file.design_outline(&space.baseline).unwrap();
    assert_eq!(from_vector.points, design.outline().unwrap().points);
}

#[test]
#[ignore = "long validation: refits LS89's design parameterization from scratch (about 1 min at opt-level 3) and prints the RON stored in blades/ls89.ron"]
fn refit_ls89_design_from_scratch() {
    let file = ls89();
    let target = file.outline().unwrap();
    let initial = initial_design_for_outline(&target, file.cascade.pitch, N_CAMBER, N_THICKNESS, true, FirstGuess::ALL[0]).unwrap();
    let (r0, m0) = outline_deviation(&target, &initial.curve().unwrap().sample(3000));
    println!("vane's first guess: RMS {:.4} %, max {:.4} % of chord", 100.0 * r0 / LS89_CHORD, 100.0 * m0 / LS89_CHORD);
    let t = std::time::Instant::now();
    let fit = fit_blade_to_outline(&target, file.cascade.pitch, N_CAMBER, N_THICKNESS, &FitOptions::default()).unwrap();
    let (rms, max) = (100.0 * fit.rms / LS89_CHORD, 100.0 * fit.max / LS89_CHORD);
    println!(
        "fit (best of {} first guesses): {} iterations, {:.1} s, RMS {rms:.4} %, max {max:.4} % of chord",
        FirstGuess::ALL.len(),
        fit.iterations,
        t.elapsed().as_secs_f64()
    );
    let mut design = fit.design;
    set_optimization_bounds(&mut design);
    println!("{}", ron::ser::to_string_pretty(&design, ron::ser::PrettyConfig::default().compact_arrays(false)).unwrap());
    assert!(rms <= 0.05 && max <= 0.2);
}
