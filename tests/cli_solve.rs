//! The `turbopt solve` command as a user runs it: a signal stops the solve after its current
//! iteration and the state reached is still written; a bad `--compare` path fails before any
//! solving.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
    let start = Instant::now();
    let output = child.wait_with_output().expect("turbopt exits");
    assert!(start.elapsed() < Duration::from_secs(60), "the solve did not stop promptly");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a stopped solve is not a success");
    assert!(stderr.contains("stopped by a signal"), "stderr: {stderr}");
    let json = stdout.lines().last().expect("a JSON line");
    assert!(json.contains("\"converged\":false") && json.contains("entropy_rise"), "{json}");
    for file in ["convergence.csv", "mis.csv", "solution.vtm"] {
        assert!(out.join(file).exists(), "{file} not written");
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_compare_path_fails_before_solving() {
    let start = Instant::now();
    let output = turbopt()
        .args(["solve", "blades/ls89.ron", "--density", "coarse", "--compare", "no/such/taps.csv", "--out"])
        .arg(std::env::temp_dir().join("turbopt-bad-compare"))
        .output()
        .expect("turbopt runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no/such/taps.csv"), "{stderr}");
    assert!(start.elapsed() < Duration::from_secs(20), "it solved before reading the file");
}
