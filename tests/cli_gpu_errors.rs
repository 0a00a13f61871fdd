//! `--backend gpu` as a user on a machine without a usable GPU meets it: `solve`, `evaluate`
//! and `optimize` end with exit status 1 and one `error:` line naming the cause, never a panic,
//! and before any work starts (no mesh announced, no campaign directory).
//!
//! The GPU is device 999, which exists on no machine, so every assertion holds in every build:
//! without the `cuda` feature ("built without the `cuda` feature"), with it on a machine
//! without a driver ("no CUDA driver library"), and on a GPU host ("device 999 requested").
//! All three are `Error::Gpu`, printed as "GPU error: ...".

use std::process::{Command, Output};

fn turbopt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turbopt")).args(args).output().expect("turbopt runs")
}

/// Exit status 1 (a panic exits with 101), nothing on stdout, and stderr one line: `error: `
/// followed by a message that contains every needle. Returns that line.
fn assert_one_error_line(output: &Output, needles: &[&str]) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stdout: {stdout}\nstderr: {stderr}");
    assert!(!stderr.contains("panicked at"), "{stderr}");
    assert!(stdout.trim().is_empty(), "work started before the error: {stdout}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one error line expected: {stderr}");
    assert!(lines[0].starts_with("error: "), "{}", lines[0]);
    for needle in needles {
        assert!(lines[0].contains(needle), "`{}` should mention `{needle}`", lines[0]);
    }
    lines[0].to_string()
}

const UNAVAILABLE: &str = "GPU error";

fn scratch(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("turbopt-cli-gpu-{tag}-{}", std::process::id()))
}

#[test]
fn solve_on_an_unavailable_gpu_is_one_error_line() {
    let out = scratch("solve");
    let o = turbopt(&["solve", "blades/ls89.ron", "--density", "coarse", "--scheme", "explicit", "--backend", "gpu", "--device", "999", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn solve_with_the_implicit_scheme_on_an_unavailable_gpu_is_one_error_line() {
    let out = scratch("solve-implicit");
    let o = turbopt(&["solve", "blades/ls89.ron", "--density", "coarse", "--backend", "gpu", "--device", "999", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn evaluate_on_an_unavailable_gpu_is_one_error_line() {
    let o = turbopt(&["evaluate", "blades/ls89.ron", "--scheme", "explicit", "--backend", "gpu", "--device", "999"]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    let o = turbopt(&["evaluate", "blades/ls89.ron", "--backend", "gpu", "--device", "999"]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
}

#[test]
fn optimize_on_an_unavailable_gpu_stops_before_the_campaign() {
    let out = scratch("optimize");
    let o = turbopt(&["optimize", "optimize/ls89_default_gpu.ron", "--device", "999", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    assert!(!out.exists(), "no campaign directory before the backend is known to work");
    // The default campaign is implicit, and runs on the GPU too.
    let o = turbopt(&["optimize", "--backend", "gpu", "--device", "999", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    assert!(!out.exists());
}

#[test]
fn flags_of_the_other_backend_are_errors() {
    let out = scratch("flags");
    let out = out.to_str().unwrap();
    let o = turbopt(&["solve", "blades/ls89.ron", "--device", "1", "--out", out]);
    assert_one_error_line(&o, &["--device", "--backend gpu"]);
    let o = turbopt(&["evaluate", "blades/ls89.ron", "--scheme", "explicit", "--backend", "gpu", "--threads", "2"]);
    assert_one_error_line(&o, &["--threads", "--backend gpu"]);
    let o = turbopt(&["optimize", "optimize/analytic_branin_ego.ron", "--backend", "cpu", "--out", out]);
    assert_one_error_line(&o, &["analytic", "--backend"]);
    // The default campaign runs on the CPU: a device alone does not move it.
    let o = turbopt(&["optimize", "--device", "0", "--out", out]);
    assert_one_error_line(&o, &["--device", "--backend gpu"]);
    assert!(!std::path::Path::new(out).exists(), "nothing is written");
}

/// `--devices` names the GPUs of a campaign, one worker each; a device that does not exist
/// stops the campaign before it starts, naming the device on a GPU host ("device 999
/// requested"); a malformed list is a usage error.
#[test]
fn optimize_with_a_device_list_that_cannot_be_opened_stops_before_the_campaign() {
    let out = scratch("devices");
    let o = turbopt(&["optimize", "optimize/ls89_default_gpu.ron", "--devices", "0,999", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &[UNAVAILABLE]);
    assert!(!out.exists());
    let o = turbopt(&["optimize", "--devices", "all", "--out", out.to_str().unwrap()]);
    assert_one_error_line(&o, &["--device(s)", "--backend gpu"]);
    let o = turbopt(&["optimize", "optimize/ls89_default_gpu.ron", "--devices", "0,x", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "clap's usage error");
    assert!(!out.exists());
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected `all` or comma-separated ordinals"));
}
