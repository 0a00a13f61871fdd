//! Property-based tests of what users hand turbopt: blade files, campaign files and
//! design vectors, inside and outside the bounds. Every input must end in a result or a typed
//! error: never a panic, never a hang. The cases stop before any mesh or solve (milliseconds
//! each), with a bounded case count, so that they run in the default test command.
//!
//! Inputs: the shipped files with their text mutated (characters cut, junk inserted, numbers
//! replaced by extreme, negative, non-finite or malformed ones), blade files with their numbers
//! scaled or overwritten structurally, and LS89 design vectors drawn inside the bounds of all 41
//! variables, outside them, of the wrong length or with non-finite entries.

use proptest::prelude::*;
use proptest::test_runner::Config;
use turbopt::cascade::{BladeChoice, CascadeError, CascadeSetup, CheckedBlade, Section};
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
use turbopt::eval::{Evaluator, Status};
use turbopt::geometry::validity::GeometryError;
use turbopt::geometry::BladeFile;
use turbopt::mesh::Density;
use turbopt::optim::campaign::{build_evaluator, CampaignConfig, CampaignEvaluator};

fn ls89_text() -> String {
    std::fs::read_to_string("blades/ls89.ron").expect("blades/ls89.ron")
}

fn ls89() -> BladeFile {
    BladeFile::from_ron_str(&ls89_text()).expect("LS89 parses")
}

/// Numbers a careless or malicious edit puts into a file.
fn odd_number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0.0".to_string()),
        Just("-0.0".to_string()),
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("-inf".to_string()),
        Just("1e308".to_string()),
        Just("-1e308".to_string()),
        Just("1e-320".to_string()),
        Just("1.2.3".to_string()),
        Just("".to_string()),
        (-1e6f64..1e6).prop_map(|v| format!("{v}")),
        (-10.0f64..10.0).prop_map(|v| format!("{v:e}")),
    ]
}

/// One edit of a text: cut a span, insert junk, or replace the k-th number by an odd one.
#[derive(Clone, Debug)]
enum Edit {
    Cut { at: usize, len: usize },
    Insert { at: usize, junk: String },
    Number { k: usize, value: String },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..40).prop_map(|(at, len)| Edit::Cut { at, len }),
        (any::<usize>(), prop::sample::select(vec!["(", ")", "[", "]", ",", ":", "\"", "Some(", "None", "x", "\n", "//", "/*"]))
            .prop_map(|(at, j)| Edit::Insert { at, junk: j.to_string() }),
        (any::<usize>(), odd_number()).prop_map(|(k, value)| Edit::Number { k, value }),
    ]
}

/// Byte ranges of the numbers in `text`.
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        let starts = b[k].is_ascii_digit() || (b[k] == b'-' && k + 1 < b.len() && b[k + 1].is_ascii_digit());
        if starts && (k == 0 || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_')) {
            let s = k;
            k += 1;
            while k < b.len() && (b[k].is_ascii_digit() || b"._eE-+".contains(&b[k])) {
                k += 1;
            }
            out.push((s, k));
        } else {
            k += 1;
        }
    }
    out
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut t = text.to_string();
    for e in edits {
        let boundary = |t: &str, at: usize| {
            let mut at = at % (t.len() + 1);
            while !t.is_char_boundary(at) {
                at -= 1;
            }
            at
        };
        match e {
            Edit::Cut { at, len } => {
                let a = boundary(&t, *at);
                let b = boundary(&t, (a + len).min(t.len()));
                t.replace_range(a..b.max(a), "");
            }
            Edit::Insert { at, junk } => {
                let a = boundary(&t, *at);
                t.insert_str(a, junk);
            }
            Edit::Number { k, value } => {
                let spans = numbers(&t);
                if !spans.is_empty() {
                    let (a, b) = spans[k % spans.len()];
                    t.replace_range(a..b, value);
                }
            }
        }
    }
    t
}

/// A blade that parsed: its main section and, for a design vector, the checks before meshing;
/// every outcome is a value.
fn exercise_blade(file: &BladeFile) {
    let Some(op) = file.operating_points.first().cloned() else { return };
    let setup = CascadeSetup::new(file, vec![op], Density::Coarse);
    let _ = CheckedBlade::new(file, BladeChoice::Main, &setup);
    if let Some(space) = file.design_space() {
        let _ = CheckedBlade::new(file, BladeChoice::Design(&space.baseline), &setup);
    }
}

fn config(cases: u32) -> Config {
    Config { cases, failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config(48))]

    /// Mutated blade files parse to a validated blade or to an error naming the file's problem.
    #[test]
    fn mutated_blade_files_end_in_a_blade_or_an_error(edits in prop::collection::vec(edit(), 1..4)) {
        let text = apply(&ls89_text(), &edits);
        match BladeFile::from_ron_str(&text) {
            Ok(file) => exercise_blade(&file),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }

    /// Blade files with a cascade, gas or operating-point number overwritten (structurally, so
    /// that the file still parses): validation or the pre-mesh checks say what is wrong.
    #[test]
    fn blade_numbers_out_of_range_are_typed_errors(which in 0usize..12, value in prop_oneof![
        Just(f64::NAN), Just(f64::INFINITY), Just(-1.0), Just(0.0), Just(1e-12), Just(1e12), -100.0f64..100.0
    ]) {
        let mut file = ls89();
        let op = &mut file.operating_points[0];
        match which {
            0 => file.cascade.pitch = value,
            1 => file.cascade.chord = value,
            2 => file.cascade.inlet_length = value,
            3 => file.cascade.outlet_length = value,
            4 => file.gas.gamma = value,
            5 => file.gas.gas_constant = value,
            6 => op.p01 = value,
            7 => op.p2 = value,
            8 => op.t01 = value,
            9 => op.alpha1_deg = value,
            10 => op.nu_tilde_ratio = value,
            _ => file.cascade.axial_chord = value,
        }
        if file.validate().is_ok() {
            exercise_blade(&file);
        }
    }

    /// Mutated campaign files: a campaign or an error; a campaign's evaluator builds or fails
    /// with its reason, and rejects an out-of-bounds design without solving.
    #[test]
    fn mutated_campaign_files_end_in_a_campaign_or_an_error(
        file in prop::sample::select(vec!["optimize/default.ron", "optimize/ls89_tc1_de.ron", "optimize/analytic_branin_ego.ron", "optimize/ls89_tc2_kriging.ron"]),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let text = apply(&std::fs::read_to_string(file).expect("campaign file"), &edits);
        let Ok(campaign) = CampaignConfig::from_ron_str(&text, file) else { return Ok(()) };
        let Ok(evaluator) = build_evaluator(&campaign.evaluator) else { return Ok(()) };
        if let CampaignEvaluator::Cfd(_) = campaign.evaluator {
            let mut x = evaluator.space().upper.clone();
            if let Some(v) = x.first_mut() {
                *v += 1.0;
                let e = evaluator.evaluate(&x);
                prop_assert!(matches!(e.status, Status::InvalidGeometry(_)), "{:?}", e.status);
            }
        }
    }

    /// LS89 design vectors inside the bounds of all 41 variables: a checked blade ready to mesh,
    /// or a geometry error with its reason (thickness, crossing sides, a concave wall the
    /// O-grid cannot follow...), never a panic.
    #[test]
    fn designs_inside_the_bounds_are_checked_blades_or_geometry_errors(u in prop::collection::vec(0.0f64..=1.0, 41)) {
        let file = ls89();
        let space = file.design_space().expect("LS89 has a design");
        prop_assert_eq!(space.dim(), 41);
        let x: Vec<f64> = u.iter().enumerate().map(|(k, t)| space.lower[k] + t * (space.upper[k] - space.lower[k])).collect();
        let setup = CascadeSetup::new(&file, vec![file.operating_points[0].clone()], Density::Coarse);
        match CheckedBlade::new(&file, BladeChoice::Design(&x), &setup) {
            Ok(b) => prop_assert!(b.spec().first_cell_height > 0.0),
            Err(CascadeError::Geometry(e)) => prop_assert!(!matches!(e, GeometryError::OutOfBounds { .. }), "{e}"),
            Err(CascadeError::Unmeshable(e)) => prop_assert!(!e.to_string().is_empty()),
            Err(other) => prop_assert!(false, "inside the bounds, yet {other}"),
        }
    }

    /// Outside the bounds, of the wrong length or not finite: a typed geometry error, at once.
    #[test]
    fn designs_outside_the_bounds_are_typed_rejections(
        k in 0usize..41,
        kind in 0usize..5,
        excess in 1e-9f64..10.0,
    ) {
        let file = ls89();
        let space = file.design_space().expect("LS89 has a design");
        let mut x = space.baseline.clone();
        match kind {
            0 => x[k] = space.upper[k] + excess * (space.upper[k] - space.lower[k]),
            1 => x[k] = space.lower[k] - excess * (space.upper[k] - space.lower[k]),
            2 => x[k] = f64::NAN,
            3 => x.truncate(k),
            _ => x.push(excess),
        }
        let e = Section::of(&file, BladeChoice::Design(&x)).expect_err("not a valid design");
        let typed = matches!(e, GeometryError::OutOfBounds { .. } | GeometryError::InvalidParameter { .. });
        prop_assert!(typed, "{e}");
    }
}

/// The evaluator answers designs outside the bounds without solving them (and without its
/// baseline solve): a status with the reason, and no design solved.
#[test]
fn the_evaluator_rejects_bad_designs_before_any_solve() {
    let ev = CfdEvaluator::new(EvaluatorConfig::for_blade("blades/ls89.ron")).unwrap();
    let space = ev.space().clone();
    let mut outside = space.upper.clone();
    outside[3] += 1.0;
    for x in [outside, vec![f64::NAN; space.dim()], vec![0.0; 3]] {
        let e = ev.evaluate(&x);
        assert!(matches!(e.status, Status::InvalidGeometry(_)), "{:?}", e.status);
    }
    assert_eq!(ev.designs_solved(), 0, "a design outside the bounds was solved, or the baseline was");
}
