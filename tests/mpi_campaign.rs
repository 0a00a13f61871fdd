//! Campaigns across MPI ranks (cargo feature `mpi`, Open MPI installed: README "Across machines
//! with MPI"): `mpirun -np 3` on this machine (loopback; rank 0 runs the optimizer and the log,
//! ranks 1 and 2 evaluate) against the same campaign in one process.
//!
//! - An analytic DE campaign with constraints and a Kriging one end with the single-process
//!   results, evaluation for evaluation, bit for bit.
//! - A small CFD campaign (LS89 coarse, Euler, a few evaluations) as well; then the same run
//!   with worker rank 1 killed (SIGKILL) once evaluations are logged: Open MPI ends the job,
//!   every evaluation logged before the kill is one of the uninterrupted run's, and `--resume`
//!   under `mpirun` completes the campaign to the uninterrupted result without evaluating a
//!   logged design again.
//!
//! `cargo test --release --features mpi --test mpi_campaign` (5.6 minutes on the shared 2-core machine).
#![cfg(feature = "mpi")]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};
use turbopt::optim::campaign::{read_log, EvaluationRecord};

const TURBOPT: &str = env!("CARGO_BIN_EXE_turbopt");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("turbopt-mpi-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `mpirun -np 3 turbopt ARGS`, oversubscribing the cores (3 ranks on a 2-core machine) and
/// allowed as root (CI containers).
fn mpirun(args: &[&str]) -> Command {
    let mut c = Command::new("mpirun");
    c.args(["-np", "3", "--oversubscribe", TURBOPT]).args(args);
    c.env("OMPI_ALLOW_RUN_AS_ROOT", "1").env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    c
}

fn alone(args: &[&str]) -> Command {
    let mut c = Command::new(TURBOPT);
    c.args(args);
    c
}

fn succeeded(what: &str, o: Output) -> String {
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(o.status.success(), "{what}: {}\nstdout: {stdout}\nstderr: {}", o.status, String::from_utf8_lossy(&o.stderr));
    stdout
}

/// Writes `ron` as a campaign file in `dir` and returns its path.
fn campaign_file(dir: &Path, name: &str, ron: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(format!("{name}.ron"));
    std::fs::write(&path, ron).unwrap();
    path
}

/// The records that must agree between runs: design, objectives, constraints, status, the
/// optimizer's score (f64 compared by bits).
fn results(out: &Path) -> Vec<(usize, Vec<u64>, Vec<u64>, Vec<u64>, String, u64)> {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    read_log(&out.join("evaluations.jsonl"))
        .unwrap()
        .iter()
        .map(|r: &EvaluationRecord| (r.index, bits(&r.design), bits(&r.objectives), bits(&r.constraints), format!("{:?}", r.status), r.objective.to_bits()))
        .collect()
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap()
}

/// The campaign in one process and under `mpirun -np 3`: the same evaluations and summary.
fn same_in_one_process_and_on_three_ranks(name: &str, ron: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(name);
    let file = campaign_file(&dir, name, ron);
    let (one, three) = (dir.join("one-process"), dir.join("three-ranks"));
    let t = Instant::now();
    succeeded("one process", alone(&["optimize", file.to_str().unwrap(), "--out", one.to_str().unwrap(), "--json"]).output().unwrap());
    let t_one = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let stdout = succeeded("mpirun -np 3", mpirun(&["optimize", file.to_str().unwrap(), "--out", three.to_str().unwrap(), "--json"]).output().unwrap());
    println!("{name}: {t_one:.1} s in one process, {:.1} s on 3 ranks", t.elapsed().as_secs_f64());
    assert!(stdout.contains("MPI: 2 ranks evaluating"), "rank 0 announces the workers: {stdout}");
    assert_eq!(stdout.matches("\"campaign\":").count(), 1, "only rank 0 reports: {stdout}");
    let (a, b) = (results(&one), results(&three));
    assert!(a.len() > 10 || name.starts_with("cfd"), "{} evaluations", a.len());
    assert_eq!(a.len(), b.len(), "evaluations");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x, y, "evaluation {}", x.0);
    }
    let (sa, sb) = (summary(&one), summary(&three));
    for key in ["evaluations", "best_design", "best_objective", "best_feasible", "baseline_objective", "failed", "termination"] {
        assert_eq!(sa[key], sb[key], "summary.{key}");
    }
    (dir, three)
}

#[test]
fn an_analytic_de_campaign_on_three_ranks_equals_the_single_process_run() {
    let ron = r#"(name: "mpi-g06-de", evaluator: Analytic(G06), optimizer: DifferentialEvolution(population: Some(20)), budget: 400, seed: 7)"#;
    let (dir, _) = same_in_one_process_and_on_three_ranks("g06-de", ron);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn an_analytic_kriging_campaign_on_three_ranks_equals_the_single_process_run() {
    let ron = r#"(name: "mpi-gomez3-ego", evaluator: Analytic(Gomez3), optimizer: TwoLevel(batch_size: Some(3)), budget: 24, seed: 3)"#;
    let (dir, _) = same_in_one_process_and_on_three_ranks("gomez3-ego", ron);
    let _ = std::fs::remove_dir_all(dir);
}

/// LS89 MUR47 on the coarse mesh, inviscid, two design variables; each solve stops after 30
/// implicit iterations and counts as converged past 1 order (not a converged optimization: the
/// test compares runs, whose arithmetic is the same however far the solves go).
fn small_cfd_campaign() -> String {
    let blade = Path::new(env!("CARGO_MANIFEST_DIR")).join("blades/ls89.ron");
    format!(
        r#"(
    name: "mpi-ls89-euler",
    evaluator: Cfd((
        blade: "{}",
        operating_points: ["MUR47"],
        density: coarse,
        solver: (scheme: Implicit, max_iterations: 30, accept_orders: Some(1.0), config: (model: euler)),
        objectives: [EntropyRise],
        constraints: [ExitAngleAtLeast(74.0)],
    )),
    variables: Some(["camber_4", "thickness_4"]),
    optimizer: DifferentialEvolution(population: Some(4)),
    budget: 7,
    seed: 11,
)"#,
        blade.display()
    )
}

/// The pid of the process of MPI rank `rank` among the descendants of `launcher`.
fn rank_pid(launcher: u32, rank: usize) -> Option<u32> {
    let parent_of = |pid: u32| -> Option<u32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse().ok()
    };
    std::fs::read_dir("/proc").ok()?.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()).find(|&pid| {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let is_rank = environ.split(|&b| b == 0).any(|v| v == format!("OMPI_COMM_WORLD_RANK={rank}").as_bytes());
        let mut p = pid;
        let mut descends = false;
        for _ in 0..8 {
            match parent_of(p) {
                Some(q) if q == launcher => descends = true,
                Some(q) if q > 1 => p = q,
                _ => break,
            }
            if descends {
                break;
            }
        }
        is_rank && descends
    })
}

fn complete_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.matches('\n').count()).unwrap_or(0)
}

fn kill_worker_rank_once_logged(file: &Path, out: &Path, lines: usize) -> Child {
    let mut run = mpirun(&["optimize", file.to_str().unwrap(), "--out", out.to_str().unwrap()]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let log = out.join("evaluations.jsonl");
    let start = Instant::now();
    while complete_lines(&log) < lines && start.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let worker = rank_pid(run.id(), 1).expect("rank 1 is running");
    let killed = Command::new("kill").args(["-9", &worker.to_string()]).status().unwrap();
    assert!(killed.success());
    let status = run.wait().unwrap();
    assert!(!status.success(), "Open MPI ends the job when a rank dies");
    run
}

#[test]
fn a_small_cfd_campaign_on_three_ranks_equals_the_single_process_run_and_survives_a_killed_rank() {
    let (dir, reference) = same_in_one_process_and_on_three_ranks("cfd", &small_cfd_campaign());
    let file = dir.join("cfd.ron");
    let expected = results(&reference);
    let killed = dir.join("killed");
    kill_worker_rank_once_logged(&file, &killed, 3);
    let survived = results(&killed);
    println!("{} of {} evaluations logged when rank 1 was killed", survived.len(), expected.len());
    assert!(!survived.is_empty() && survived.len() < expected.len(), "killed mid-campaign: {} logged", survived.len());
    for record in &survived {
        assert_eq!(Some(record), expected.iter().find(|e| e.0 == record.0), "logged evaluation {} is the uninterrupted run's", record.0);
    }
    let stdout = succeeded("resume", mpirun(&["optimize", file.to_str().unwrap(), "--out", killed.to_str().unwrap(), "--resume", "--json"]).output().unwrap());
    let last: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(last["replayed"].as_u64(), Some(survived.len() as u64), "every logged evaluation answered from the log");
    assert_eq!(results(&killed), expected, "the resumed campaign's evaluations are the uninterrupted run's");
    for key in ["evaluations", "best_design", "best_objective", "best_feasible", "termination"] {
        assert_eq!(summary(&killed)[key], summary(&reference)[key], "summary.{key}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_campaign_on_ranks_whose_evaluator_cannot_run_stops_with_the_reason() {
    let dir = scratch("no-gpu");
    let out = dir.join("out");
    let file = campaign_file(&dir, "gpu999", &small_cfd_campaign().replace("accept_orders: Some(1.0),", "accept_orders: Some(1.0), backend: Gpu(devices: [999]),"));
    let o = mpirun(&["optimize", file.to_str().unwrap(), "--out", out.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(stderr.contains("MPI workers cannot evaluate") && stderr.contains("rank 1") && stderr.contains("GPU error"), "{stderr}");
    assert!(!out.join("evaluations.jsonl").exists() || complete_lines(&out.join("evaluations.jsonl")) == 0);
    let _ = std::fs::remove_dir_all(dir);
}
