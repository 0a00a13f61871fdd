//! Batch throughput of the CFD evaluator on LS89 test case 1 (MUR47, the test case's figures and
//! exit-angle constraint) on the coarse mesh: `2 x cores` cold evaluations of the published
//! profile, each with the same fixed iteration budget, evaluated as one batch with one design per
//! core (`BatchMode::DesignPerCore`) and with all designs sharing one thread pool
//! (`BatchMode::SharedPool`). Prints, for each mode, the wall time, the CPU utilization (process
//! CPU time / wall time / cores), the CPU time per design-iteration and the evaluations an hour.
//!
//! `cargo run --release --example batch_throughput [ITERATIONS]` (iterations per design, default
//! 100; minutes on 2 cores).

use std::time::Instant;
use turbopt::eval::cfd::{BatchMode, CfdEvaluator, EvaluatorConfig};
use turbopt::eval::objectives::{Constraint, Objective};
use turbopt::eval::{Evaluator, Status};
use turbopt::mesh::Density;

/// LS89 test case 1 at MUR47 on the published profile (the blade file's main definition).
fn ls89_tc1(iterations: usize) -> EvaluatorConfig {
    let mut c = EvaluatorConfig::for_blade(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron"));
    c.operating_points = vec!["MUR47".into()];
    c.density = Density::Coarse;
    c.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow, Objective::ExitIsentropicMach];
    c.constraints = vec![Constraint::ExitAngleAtLeast(74.0)];
    c.solver.max_iterations = iterations;
    c
}

/// Process CPU time (user + system) in seconds, from /proc/self/stat (Linux).
fn process_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the ')' (state is 1st).
    let ticks: f64 = f.get(11..13).map_or(0.0, |v| v.iter().filter_map(|x| x.parse::<f64>().ok()).sum());
    ticks / 100.0
}

fn main() {
    let iterations = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n_designs = 2 * cores;
    for mode in [BatchMode::DesignPerCore, BatchMode::SharedPool] {
        let mut c = ls89_tc1(iterations);
        // Every design is the baseline of the LS89 design parameterization, solved cold (no
        // baseline cache, no warm start) so that each costs a full solve of the same size.
        c.warm_start = false;
        c.batch.mode = mode;
        let ev = CfdEvaluator::new(c).unwrap();
        let designs = vec![ev.space().baseline.clone(); n_designs];
        let (cpu0, t0) = (process_cpu_seconds(), Instant::now());
        let out = ev.evaluate_batch(&designs);
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), process_cpu_seconds() - cpu0);
        // Ok and NotConverged carry finite figures (non-finite ones are Failed).
        for e in out.iter().filter(|e| !matches!(e.status, Status::Ok | Status::NotConverged(_))) {
            println!("a design failed: {:?}", e.status);
        }
        let per_eval = wall / n_designs as f64;
        // Designs stop when converged: count the iterations they really ran.
        let design_iterations: usize = out.iter().map(|e| e.diagnostics.iterations).sum();
        println!(
            "{mode:?}: {n_designs} designs (budget {iterations} iterations, {design_iterations} run) on {cores} cores: wall {wall:.1} s, CPU {cpu:.1} s \
             (utilization {:.0} %), {:.1} s per design, {:.2} ms CPU per design-iteration, {:.0} evaluations/hour",
            100.0 * cpu / (wall * cores as f64),
            per_eval,
            1e3 * cpu / design_iterations.max(1) as f64,
            3600.0 / per_eval,
        );
    }
}

