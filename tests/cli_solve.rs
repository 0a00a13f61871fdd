//! The `turbopt solve` command as a user runs it: a signal stops the solve after its current
//! iteration and the state reached is still written; a bad `--compare` path fails before any
//! solving; `--restart` continues a solve with its history.

use std::process::{Command, Stdio};
use std::time::Duration;

fn turbopt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_turbopt"))
}

#[test]
fn sigterm_stops_the_solve_and_keeps_its_results() {
    let out = std::env::temp_dir().join(format!("turbopt-sigterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let child = turbopt()
        .args(["solve", "blades/ls89.ron", "--density", "coarse", "--threads", "1", "--max-iterations", "100000", "--json", "--out"])
        .arg(&out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("turbopt runs");
    // Let it start iterating, then ask it to stop as `timeout` or a batch system would.
    std::thread::sleep(Duration::from_secs(4));
    let pid = child.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
    assert!(status.success());
    // A solve that ignored the signal would run its 100,000 iterations: a watchdog kills it
    // after a minute (a coarse-mesh iteration takes milliseconds), so that the test fails
    // instead of hanging.
    let (exited, watch) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let timed_out = watch.recv_timeout(Duration::from_secs(60)).is_err();
        if timed_out {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
        }
        timed_out
    });
    let output = child.wait_with_output().expect("turbopt exits");
    let _ = exited.send(());
    assert!(!watchdog.join().unwrap(), "the solve did not stop within a minute of SIGTERM");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a stopped solve is not a success");
    assert!(stderr.contains("stopped by a signal"), "stderr: {stderr}");
    let json = stdout.lines().last().expect("a JSON line");
    assert!(json.contains("\"converged\":false") && json.contains("entropy_rise") && json.contains("boundary_layers"), "{json}");
    for file in ["convergence.csv", "mis.csv", "cf.png", "solution.vtm"] {
        assert!(out.join(file).exists(), "{file} not written");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_compare_path_fails_before_solving() {
    let out = std::env::temp_dir().join(format!("turbopt-bad-compare-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let output = turbopt()
        .args(["solve", "blades/ls89.ron", "--density", "coarse", "--compare", "no/such/taps.csv", "--out"])
        .arg(&out)
        .output()
        .expect("turbopt runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no/such/taps.csv"), "{stderr}");
    // A solve writes its restart file into --out as soon as it ends: nothing there, no solve.
    let solved = out.exists();
    let _ = std::fs::remove_dir_all(&out);
    assert!(!solved, "{} was written: it solved before reading the file", out.display());
}

fn solve_ls89(density: &str, out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    turbopt()
        .args(["solve", "blades/ls89.ron", "--density", density, "--threads", "1", "--json", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("turbopt runs")
}

#[test]
fn restart_continues_the_history_and_a_wrong_mesh_is_refused() {
    let out = std::env::temp_dir().join(format!("turbopt-restart-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let first = solve_ls89("coarse", &out, &["--max-iterations", "3"]);
    assert!(!first.status.success(), "3 iterations do not converge");
    let restart = out.join("restart.ron");
    assert!(restart.exists(), "restart.ron not written");

    let next = out.join("next");
    let second = solve_ls89("coarse", &next, &["--max-iterations", "2", "--restart", restart.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(stdout.contains("restarting from 3 iterations"), "{stdout}");
    let json = stdout.lines().last().expect("a JSON line");
    assert!(json.contains("\"iterations\":5"), "{json}");
    let history = std::fs::read_to_string(next.join("convergence.csv")).unwrap();
    let iterations: Vec<&str> = history.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(iterations, ["1", "2", "3", "4", "5"]);

    let wrong = solve_ls89("medium", &out.join("wrong"), &["--max-iterations", "1", "--restart", restart.to_str().unwrap()]);
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(stderr.contains("does not fit the mesh"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `turbopt evaluate --turbulence-intensity` takes a fraction: 3 (meant as 3 %) is refused
/// before any mesh is made, naming the flag's value.
#[test]
fn evaluate_refuses_a_turbulence_intensity_outside_zero_to_one() {
    let out = turbopt().args(["evaluate", "blades/ls89.ron", "--model", "sa-bcm", "--turbulence-intensity", "3"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("turbulence_intensity = 3 must lie in (0, 1)"), "{stderr}");
}

/// A design vector of the wrong length is refused in words (the status named as the evaluation
/// log spells it, with its reason), and no solver line is printed for a design never solved.
#[test]
fn evaluate_names_a_refused_design_in_words() {
    let out = turbopt().args(["evaluate", "blades/ls89.ron", "--design", "1,2"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success());
    assert!(stderr.contains("error: evaluation failed: invalid geometry: invalid blade parameter `design vector`: has 2 entries, the parameterization has 41 free variables"), "{stderr}");
    assert!(stdout.contains("status: invalid geometry: ") && !stdout.contains("0 iterations"), "{stdout}");
}

/// The stderr of `turbopt solve blades/ls89.ron` with `args`, which must fail (`name` keeps the
/// output folders of concurrent tests apart).
fn refused_solve(name: &str, args: &[&str]) -> String {
    let out = std::env::temp_dir().join(format!("turbopt-{name}-{}", std::process::id()));
    let run = turbopt().args(["solve", "blades/ls89.ron", "--out"]).arg(&out).args(args).output().unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(!run.status.success(), "turbopt solve {args:?} succeeded: {stderr}");
    stderr
}

/// A preconditioner's own flag is refused unless `--precond` names that preconditioner (it would
/// be ignored otherwise): `--sweeps` alone, and `--strips` with `--precond swept-ilu`.
#[test]
fn a_preconditioner_flag_needs_its_preconditioner() {
    let alone = refused_solve("precond-flags", &["--density", "coarse", "--sweeps", "6"]);
    assert!(alone.contains("--precond"), "{alone}");
    let other = refused_solve("precond-flags", &["--density", "coarse", "--precond", "swept-ilu", "--strips", "8"]);
    assert!(other.contains("--strips belongs to --precond strip-ilu, not to --precond swept-ilu"), "{other}");
}

/// `--operator` belongs to the implicit scheme: with `--scheme explicit` it is refused, by name.
#[test]
fn the_stage_operator_flag_belongs_to_the_implicit_scheme() {
    let explicit = refused_solve("operator-flag", &["--density", "coarse", "--scheme", "explicit", "--operator", "matrix-free"]);
    assert!(explicit.contains("--operator belong to --scheme implicit"), "{explicit}");
}

/// `--sequence` names a coarser mesh than the point's, or is refused (it would be ignored), and
/// does not go with `--restart` (a restart continues its own flow).
#[test]
fn a_sequenced_start_needs_a_coarser_mesh() {
    let same = refused_solve("sequence-flags", &["--density", "medium", "--sequence", "medium"]);
    assert!(same.contains("--sequence: sequencing from the medium mesh needs a finer point mesh than medium"), "{same}");
    let restart = refused_solve("sequence-flags", &["--density", "fine", "--sequence", "coarse", "--restart", "out/none/restart.ron"]);
    assert!(restart.contains("cannot be used with"), "{restart}");
}

/// SA-gamma is selectable in `turbopt solve`: it marches rho gamma on either scheme (a nonzero
/// rho gamma residual in convergence.csv; in the implicit scheme as a third segregated system,
/// reported), and needs the point's turbulence intensity, with an error that says so.
#[test]
fn sa_gamma_solves_with_either_scheme_and_needs_the_turbulence_intensity() {
    let out = std::env::temp_dir().join(format!("turbopt-sa-gamma-{}", std::process::id()));
    let common = ["solve", "blades/t106c.ron", "--case", "M065_RE200K", "--density", "coarse", "--model", "sa-gamma", "--threads", "2"];
    for (scheme, reported) in [("implicit", "segregated intermittency system"), ("explicit", "iterations")] {
        let solved = turbopt().args(common).args(["--scheme", scheme, "--turbulence-intensity", "0.009", "--max-iterations", "15", "--json", "--out"]).arg(&out).output().unwrap();
        let stdout = String::from_utf8_lossy(&solved.stdout);
        assert!(stdout.contains(reported), "{scheme}: {stdout}\n{}", String::from_utf8_lossy(&solved.stderr));
        let json: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
        assert_eq!(json["iterations"], 15, "{scheme}");
        let history = std::fs::read_to_string(out.join("convergence.csv")).unwrap();
        assert!(history.starts_with("iteration,wall_s,res_rho,res_rho_u,res_rho_v,res_rho_e,res_rho_nu_tilde,res_rho_gamma"), "{history}");
        let gamma_residual: f64 = history.lines().last().unwrap().split(',').nth(7).unwrap().parse().unwrap();
        assert!(gamma_residual > 0.0, "{scheme}: rho gamma not marched");
        let _ = std::fs::remove_dir_all(&out);
    }
    let without_tu = turbopt().args(common).args(["--max-iterations", "1", "--out"]).arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&without_tu.stderr);
    assert!(!without_tu.status.success() && stderr.contains("model sa_gamma needs the free-stream turbulence_intensity"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `turbopt study` solves with a transition model and a solver configuration: the table names
/// the model; without the turbulence intensity the evaluator is refused before any design is
/// solved, and a misspelt configuration field is refused naming it.
#[test]
fn study_runs_a_transition_model_and_refuses_its_missing_inputs() {
    let out = std::env::temp_dir().join(format!("turbopt-study-gamma-{}", std::process::id()));
    let config = out.join("last-stage.ron");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(&config, "(scheme: implicit((intermittency_every_stage: false)))").unwrap();
    let common = ["study", "blades/t106c.ron", "--case", "M065_RE80K", "--designs", "1", "--max-iterations", "5", "--model", "sa-gamma", "--threads", "2", "--out"];
    let run = turbopt().args(common).arg(&out).args(["--turbulence-intensity", "0.009", "--config"]).arg(&config).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let table = std::fs::read_to_string(out.join("study.md")).unwrap();
    assert!(table.contains("solved at M065_RE80K, Coarse mesh, model sa_gamma, budget 5 iterations"), "{table}");
    let without_tu = turbopt().args(common).arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&without_tu.stderr);
    assert!(!without_tu.status.success() && stderr.contains("model sa_gamma needs the free-stream turbulence_intensity of point `M065_RE80K`"), "{stderr}");
    std::fs::write(&config, "(scheme: implicit((intermittency_every_stages: false)))").unwrap();
    let misspelt = turbopt().args(common).arg(&out).args(["--turbulence-intensity", "0.009", "--config"]).arg(&config).output().unwrap();
    let stderr = String::from_utf8_lossy(&misspelt.stderr);
    assert!(!misspelt.status.success() && stderr.contains("intermittency_every_stages"), "{stderr}");
    let _ = std::fs::remove_dir_all(&out);
}

/// `--grid-convergence` solves on the three meshes as `--density` would (the coarse row is the
/// figures `--density coarse` gives), writes one row per mesh and the convergence table, and a
/// solve that stops short is an error that says so, with the table still written.
#[test]
fn grid_convergence_solves_three_meshes_and_keeps_them_when_short() {
    let out = std::env::temp_dir().join(format!("turbopt-grid-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let run = turbopt()
        .args(["solve", "blades/ls89.ron", "--grid-convergence", "--threads", "2", "--max-iterations", "2", "--json", "--out"])
        .arg(&out)
        .output()
        .expect("turbopt runs");
    assert!(!run.status.success(), "2 iterations do not converge");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("the fine solve stopped short of convergence"), "{stderr}");
    for density in ["coarse", "medium", "fine"] {
        assert!(out.join(density).join("convergence.csv").exists(), "{density} solve not written");
    }
    let table = std::fs::read_to_string(out.join("grid_convergence.csv")).expect("grid_convergence.csv");
    let rows: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.iter().map(|r| r[0]).collect::<Vec<_>>(), ["coarse", "medium", "fine"]);
    let md = std::fs::read_to_string(out.join("grid_convergence.md")).expect("grid_convergence.md");
    assert!(md.contains("| entropy rise |") && md.contains("observed order"), "{md}");

    let alone = turbopt()
        .args(["solve", "blades/ls89.ron", "--density", "coarse", "--threads", "2", "--max-iterations", "2", "--json", "--out"])
        .arg(out.join("alone"))
        .output()
        .expect("turbopt runs");
    let json = String::from_utf8_lossy(&alone.stdout).lines().last().expect("a JSON line").to_string();
    let v: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let entropy: f64 = rows[0][4].parse().expect("entropy rise");
    assert_eq!(entropy, v["entropy_rise"].as_f64().expect("entropy_rise"), "the coarse row is --density coarse's figure");
    let _ = std::fs::remove_dir_all(&out);
}
