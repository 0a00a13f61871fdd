//! The public profile library (`data/cascades/library/`, sources and licences in its README):
//! every profile imports with `turbopt import`, which meshes the blade file it writes and
//! reports the mesh's quality.
//!
//! Default suite: the twelve imports of the fitted design (under two minutes on 2 cores).
//! Ignored (long validation): the imports with `--solve-points` and the three densities of
//! every imported blade, and the coarse solves on the GPU
//! (`cargo test --release --features cuda --test library_profiles -- --ignored --nocapture`).

use std::process::{Command, Output};
use turbopt::geometry::load_blade_file;
use turbopt::mesh::Density;

/// File, then the import arguments of the library README.
const PROFILES: [(&str, &[&str]); 12] = [
    ("aachen_stator_parablade", &["--units", "m", "--pitch", "0.044637568", "--point", "AACHEN_SU2:p01=169623.33,t01=305.76,alpha1=0,p2=99741"]),
    ("std10_compressor_parablade", &["--units", "m", "--pitch", "0.1", "--point", "SC10_EILMER:p01=100000,t01=300,alpha1=55,p2=87027"]),
    ("dlr_lrn_compressor", &["--units", "m", "--pitch", "0.04039", "--chord", "0.07", "--point", "LRN_WOLF:p01=18416,t01=292.6,alpha1=43.0,p2=16258"]),
    (
        "schreiber84_transonic_compressor",
        &["--units", "chord", "--chord", "0.09", "--pitch", "0.621", "--rotate", "48.51", "--point", "SUBSONIC_ASSUMED:p01=100000,t01=300,alpha1=58.5,p2=86800"],
    ),
    ("tfd_hannover_lpt_seehausen", &["--units", "m", "--pitch", "0.0545", "--point", "ASSUMED:p01=100000,t01=300,alpha1=30,m2is=0.6"]),
    ("tfd_hannover_gwk_compressor", &["--units", "mm", "--pitch", "76.5", "--point", "GWK_MEASURED_INLET:p01=102148,t01=293,alpha1=46.5,p2=100450"]),
    ("kiock_transonic_turbine", &["--units", "chord", "--chord", "0.1", "--pitch", "0.71", "--rotate", "-33.3", "--point", "KIOCK_BS:p01=100000,t01=300,alpha1=30,m2is=0.78"]),
    ("orc_impulse_rotor_parablade", &["--units", "m", "--pitch", "0.0942", "--point", "ASSUMED:p01=100000,t01=300,alpha1=58,m2is=0.6"]),
    ("impulse_blade_parablade", &["--units", "m", "--pitch", "0.0843", "--point", "ASSUMED:p01=100000,t01=300,alpha1=40,m2is=0.6"]),
    ("nasa_rotor37_midspan", &["--units", "mm", "--pitch", "38.125", "--point", "SUBSONIC_ASSUMED:p01=100000,t01=300,alpha1=55.3,p2=87800"]),
    ("nasa_rotor67_midspan", &["--units", "mm", "--pitch", "49.607", "--point", "SUBSONIC_ASSUMED:p01=100000,t01=300,alpha1=50.6,p2=86500"]),
    ("nasa_rotor67_tip", &["--units", "mm", "--pitch", "68.697", "--point", "SUBSONIC_ASSUMED:p01=100000,t01=300,alpha1=64.4,p2=87900"]),
];

/// Profiles the mesher cannot mesh yet, with what the import says: the boundary-layer block
/// folds round a trailing edge of 0.06 % of the chord.
const NOT_MESHED: [(&str, &str); 1] = [("std10_compressor_parablade", "the imported blade does not mesh")];

fn turbopt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turbopt")).current_dir(env!("CARGO_MANIFEST_DIR")).args(args).output().expect("turbopt runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// Imports `name` into `dir` (with `extra` arguments); the report, or the command's output.
fn import(name: &str, args: &[&str], dir: &std::path::Path, extra: &[&str]) -> Result<serde_json::Value, String> {
    let file = format!("data/cascades/library/{name}.csv");
    let out = dir.join(format!("{name}.ron"));
    let mut all: Vec<&str> = vec!["import", &file];
    all.extend_from_slice(args);
    let out_s = out.to_str().unwrap().to_string();
    all.extend_from_slice(&["--out", &out_s, "--overwrite", "--json"]);
    all.extend_from_slice(extra);
    let o = turbopt(&all);
    let t = text(&o);
    if !o.status.success() {
        return Err(t);
    }
    let json = t.lines().rev().find(|l| l.starts_with('{')).ok_or_else(|| t.clone())?;
    serde_json::from_str(json).map_err(|e| format!("{e}: {json}"))
}

fn scratch(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("turbopt-library-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_library_profile_imports_and_meshes() {
    let dir = scratch("import");
    for (name, args) in PROFILES {
        let refused = NOT_MESHED.iter().find(|(n, _)| *n == name);
        for extra in [&[][..]] {
            match (import(name, args, &dir, extra), refused) {
                (Ok(r), None) => {
                    assert!(r["within_tolerance"].as_bool().unwrap(), "{name}: fit outside the tolerance: {r}");
                    let cells = r["mesh"]["cells"].as_u64().unwrap();
                    assert!(cells > 8_000, "{name}: {cells} cells");
                    println!(
                        "{name} {extra:?}: fit {:.4} % max, reordered {}, mesh {cells} cells, skewness {:.3}, outside the bounds: {}",
                        r["fit_max_percent_chord"].as_f64().unwrap(),
                        r["reordered"],
                        r["mesh"]["max_skewness"].as_f64().unwrap(),
                        r["mesh_outside_bounds"]
                    );
                }
                (Err(out), Some((_, why))) => {
                    assert!(out.contains(why), "{name}: refused for another reason: {out}");
                    println!("{name} {extra:?}: refused: {}", out.lines().last().unwrap_or(""));
                }
                (Ok(_), Some(_)) => panic!("{name} meshes now: take it off NOT_MESHED"),
                (Err(out), None) => panic!("{name} {extra:?}: {out}"),
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// No blade is refused for its stagger or its pitch alone: Rotor 67's tip section turned to a
/// stagger of 65 deg, and the Kiock turbine at a pitch of 5 chords, import and mesh (the import
/// meshes the blade file it writes).
#[test]
fn high_stagger_and_large_pitch_mesh() {
    let dir = scratch("stagger-pitch");
    let steep = ["--units", "mm", "--pitch", "68.697", "--rotate", "4.4", "--point", "SUBSONIC_ASSUMED:p01=100000,t01=300,alpha1=64.4,p2=87900"];
    let wide = ["--units", "chord", "--chord", "0.1", "--pitch", "5", "--rotate", "-33.3", "--point", "KIOCK_BS:p01=100000,t01=300,alpha1=30,m2is=0.78"];
    for (name, args) in [("nasa_rotor67_tip", &steep[..]), ("kiock_transonic_turbine", &wide[..])] {
        let r = import(name, args, &dir, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cells = r["mesh"]["cells"].as_u64().unwrap();
        println!("{name} {args:?}: stagger {:.2} deg, mesh {cells} cells, outside the bounds: {}", r["stagger_deg"].as_f64().unwrap_or(f64::NAN), r["mesh_outside_bounds"]);
        assert!(cells > 8_000, "{name}: {cells} cells");
        if name == "nasa_rotor67_tip" {
            assert!(r["stagger_deg"].as_f64().unwrap().abs() >= 65.0, "{name}: {r}");
        } else {
            assert!((r["pitch"].as_f64().unwrap() / r["chord"].as_f64().unwrap() - 5.0).abs() < 0.05, "{name}: {r}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Profiles whose file lists the points out of contour order are put in order, and say so.
#[test]
fn out_of_order_profiles_are_put_in_contour_order() {
    let dir = scratch("order");
    for name in ["aachen_stator_parablade", "impulse_blade_parablade", "tfd_hannover_gwk_compressor"] {
        let args = PROFILES.iter().find(|(n, _)| *n == name).unwrap().1;
        let r = import(name, args, &dir, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r["reordered"], serde_json::Value::Bool(true), "{name}");
    }
    let (name, args) = PROFILES[2];
    let r = import(name, args, &dir, &[]).unwrap();
    assert_eq!(r["reordered"], serde_json::Value::Bool(false), "{name} is in contour order");
    std::fs::remove_dir_all(&dir).ok();
}

/// The three densities of every imported blade, with their quality against the bounds
/// (printed; each mesh has no folded cell); and the blade that solves the points themselves
/// (`--solve-points`) imports and meshes too.
#[test]
#[ignore = "long validation: every library blade at three densities (several minutes)"]
fn every_library_blade_meshes_at_three_densities() {
    let dir = scratch("densities");
    for (name, args) in PROFILES.iter().filter(|(n, _)| !NOT_MESHED.iter().any(|(m, _)| m == n)) {
        let points = import(name, args, &dir, &["--solve-points"]).unwrap_or_else(|e| panic!("{name} --solve-points: {e}"));
        println!("{name} --solve-points: outside the bounds: {}", points["mesh_outside_bounds"]);
        import(name, args, &dir, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let blade = load_blade_file(dir.join(format!("{name}.ron"))).unwrap();
        let outline = blade.outline().unwrap();
        for density in [Density::Coarse, Density::Medium, Density::Fine] {
            let spec = turbopt::mesh::passage::passage_spec(&blade, &blade.cascade, &outline, &blade.operating_points[0], density).unwrap();
            let mesh = turbopt::mesh::generate::generate_cascade_mesh(&outline, &spec).unwrap_or_else(|e| panic!("{name} {density:?}: {e}"));
            let q = turbopt::mesh::quality::QualityReport::of_mesh(&mesh).unwrap();
            assert_eq!(q.non_positive_volumes, 0, "{name} {density:?}");
            println!("{name} {density:?}: {} cells, {:?}", mesh.n_cells(), q.violations(&Default::default()));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every imported blade's coarse solve on the GPU converges at its operating point.
#[test]
#[ignore = "needs a CUDA device"]
fn every_library_blade_solves_on_the_gpu() {
    use turbopt::cascade::BackendChoice;
    use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
    let dir = scratch("solve");
    let mut failed = Vec::new();
    for (name, args) in PROFILES.iter().filter(|(n, _)| !NOT_MESHED.iter().any(|(m, _)| m == n)) {
        import(name, args, &dir, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        let path = dir.join(format!("{name}.ron"));
        let blade = load_blade_file(&path).unwrap();
        let mut config = EvaluatorConfig::for_blade(path.to_str().unwrap());
        config.operating_points = vec![blade.operating_points[0].name.clone()];
        config.solver.backend = BackendChoice::gpu(0);
        config.density = Density::Coarse;
        let t = std::time::Instant::now();
        let evaluation = CfdEvaluator::new(config).unwrap().evaluate_main_blade();
        let d = &evaluation.diagnostics;
        println!("{name}: {:?}, objectives {:?}, {:?}, in {:.1} s", evaluation.status, evaluation.objectives, d, t.elapsed().as_secs_f64());
        if !evaluation.status.is_ok() {
            failed.push(*name);
        }
    }
    assert!(failed.is_empty(), "did not converge: {failed:?}");
    std::fs::remove_dir_all(&dir).ok();
}
