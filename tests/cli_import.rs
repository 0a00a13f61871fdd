//! `turbopt import`: the blade file, its picture and report from the LS89 TN174 table, and what
//! the command asks for by name when it is missing or wrong.

use std::process::{Command, Output};

fn turbopt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turbopt")).current_dir(env!("CARGO_MANIFEST_DIR")).args(args).output().expect("turbopt runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn import_writes_the_blade_file_the_picture_and_the_report() {
    let dir = std::env::temp_dir().join(format!("turbopt-cli-import-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("mine.ron");
    let o = turbopt(&[
        "import",
        "data/ls89/tn174_profile_coordinates_mm.csv",
        "--units",
        "mm",
        "--pitch",
        "57.5",
        "--chord",
        "67.647",
        "--name",
        "LS89-TN174",
        "--point",
        "MUR47:p01=159600,t01=420,alpha1=0,p2=82350",
        "--out",
        out.to_str().unwrap(),
        "--json",
    ]);
    let all = text(&o);
    assert!(o.status.success(), "{all}");
    for line in ["leading edge at", "stagger", "throat", "fit:", "% RMS", "next: turbopt solve"] {
        assert!(all.contains(line), "{line:?} missing from:\n{all}");
    }
    let blade = turbopt::geometry::load_blade_file(&out).expect("the written blade file loads");
    assert_eq!(blade.name, "LS89-TN174");
    assert_eq!(blade.operating_points[0].name, "MUR47");
    assert!(blade.design.is_some() && blade.cascade.throat.is_some());
    let picture = std::fs::metadata(out.with_extension("fit.png")).expect("the fit picture");
    assert!(picture.len() > 10_000);
    let report: serde_json::Value = serde_json::from_str(all.lines().rev().find(|l| l.starts_with('{')).unwrap()).unwrap();
    assert!(report["fit_rms_percent_chord"].as_f64().unwrap() < 0.03);
    // Not over an existing file without --overwrite.
    let again = turbopt(&["import", "data/ls89/tn174_profile_coordinates_mm.csv", "--units", "mm", "--pitch", "57.5", "--point", "P:p01=1e5,t01=300,alpha1=0,p2=8e4", "--out", out.to_str().unwrap()]);
    assert!(!again.status.success() && text(&again).contains("--overwrite"), "{}", text(&again));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn import_asks_for_what_is_missing_by_name() {
    let table = "data/ls89/tn174_profile_coordinates_mm.csv";
    let no_pitch = turbopt(&["import", table, "--units", "mm", "--point", "P:p01=1e5,t01=300,alpha1=0,p2=8e4"]);
    assert!(!no_pitch.status.success() && text(&no_pitch).contains("--pitch"), "{}", text(&no_pitch));
    let no_units = turbopt(&["import", table, "--pitch", "57.5", "--point", "P:p01=1e5,t01=300,alpha1=0,p2=8e4"]);
    assert!(!no_units.status.success() && text(&no_units).contains("--units"), "{}", text(&no_units));
    let no_point = turbopt(&["import", table, "--units", "mm", "--pitch", "57.5"]);
    assert!(!no_point.status.success() && text(&no_point).contains("--point"), "{}", text(&no_point));
    let bad_point = turbopt(&["import", table, "--units", "mm", "--pitch", "57.5", "--point", "P:p01=1e5,t01=300,p2=8e4"]);
    assert!(!bad_point.status.success() && text(&bad_point).contains("alpha1 is missing"), "{}", text(&bad_point));
    let wrong_units = turbopt(&["import", table, "--units", "m", "--pitch", "57.5", "--point", "P:p01=1e5,t01=300,alpha1=0,p2=8e4"]);
    assert!(!wrong_units.status.success() && text(&wrong_units).contains("check the units"), "{}", text(&wrong_units));
    let missing = turbopt(&["import", "no/such/file.csv", "--units", "mm", "--pitch", "57.5", "--point", "P:p01=1e5,t01=300,alpha1=0,p2=8e4"]);
    assert!(!missing.status.success() && text(&missing).contains("no/such/file.csv"), "{}", text(&missing));
}
