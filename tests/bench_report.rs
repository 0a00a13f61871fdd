//! `turbopt::perf::bench` on a small mesh on the CPU: the report covers every operation and the whole
//! iteration, its derived figures follow from its timings by their definitions, and its bytes
//! per cell are the documented least-traffic counts. No wall-clock thresholds.

use std::process::Command;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::NVAR;
use turbopt::perf::bench::{self, copy_bandwidth, iteration_bytes_per_cell_stage, BenchOptions, BenchReport, Operation, TestProblem, Throughput};

const CELLS: usize = 3000;

fn small_report() -> (TestProblem, BenchReport) {
    let problem = TestProblem::new(CELLS).unwrap();
    let cpu = CpuBackend::new(Some(2)).unwrap();
    let options = BenchOptions { warmup: 1, repeats: 2 };
    let bandwidth = copy_bandwidth(&cpu, 20_000, &options).unwrap();
    let report = bench::run(&cpu, &problem, &options, &bandwidth).unwrap();
    (problem, report)
}

/// The row's rate, bandwidth and percentage follow from its time, updates and bytes.
fn assert_consistent(t: &Throughput, measured_bytes_per_s: f64) {
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs();
    assert!(t.seconds > 0.0 && t.seconds.is_finite(), "{}: time {}", t.operation, t.seconds);
    assert!(close(t.updates_per_s, t.updates as f64 / t.seconds), "{}: updates/s", t.operation);
    assert!(close(t.bandwidth_bytes_per_s, t.updates_per_s * t.bytes_per_update), "{}: bandwidth", t.operation);
    assert!(close(t.percent_of_measured, 100.0 * t.bandwidth_bytes_per_s / measured_bytes_per_s), "{}: percent", t.operation);
}

#[test]
fn cpu_report_is_complete_and_consistent() {
    let (problem, report) = small_report();
    let counts = problem.counts();
    assert_eq!(counts.cells, problem.mesh.n_cells());
    assert_eq!(Some(counts.cells), problem.shape.map(|(ni, nj)| ni * nj));
    assert!(counts.cells.abs_diff(CELLS) * 10 < CELLS, "{} cells for {CELLS} requested", counts.cells);
    assert_eq!(problem.mesh.blocks.len(), bench::BLOCKS);
    assert_eq!(problem.coarse.n_cells() * 4, counts.cells);
    assert_eq!(report.counts, counts);
    assert_eq!(report.stages, 5);
    assert!(report.measured_bandwidth.bytes_per_s > 0.0 && report.measured_bandwidth.bytes_per_s.is_finite());

    let names: Vec<&str> = report.operations.iter().map(|t| t.operation.as_str()).collect();
    let expected: Vec<&str> = Operation::ALL.iter().map(|op| op.name()).collect();
    assert_eq!(names, expected);
    for (t, op) in report.operations.iter().zip(Operation::ALL) {
        assert_eq!(t.updates, counts.cells, "{}", t.operation);
        assert_eq!(t.samples, 2);
        assert_eq!(t.bytes_per_update, op.bytes_per_cell(&counts));
        assert_consistent(t, report.measured_bandwidth.bytes_per_s);
    }
    let it = &report.iteration;
    assert_eq!(it.operation, "explicit_iteration");
    assert_eq!(it.updates, counts.cells * 5);
    assert_eq!(it.samples, 2);
    assert_eq!(it.bytes_per_update, iteration_bytes_per_cell_stage(5, &counts));
    assert_consistent(it, report.measured_bandwidth.bytes_per_s);
    assert!(report.iteration_sum_of_operations_s > 0.0);
}

#[test]
fn bytes_per_cell_are_the_documented_counts() {
    let problem = TestProblem::new(CELLS).unwrap();
    let counts = problem.counts();
    let documented = [
        (Operation::ConvectiveResidual, 120.0),
        (Operation::ViscousResidual, 200.0),
        (Operation::LocalTimeStep, 88.0),
        (Operation::TurbulenceSourceFactor, 104.0),
        (Operation::ScaleTurbulenceResidual, 24.0),
        (Operation::SmoothResidual, 160.0),
        (Operation::RkStageUpdate, 136.0),
        (Operation::ResidualNorms, 56.0),
        (Operation::RestrictState, 68.0),
        (Operation::RestrictResidual, 60.0),
        (Operation::ProlongCorrection, 120.0),
    ];
    for (op, bytes) in documented {
        assert_eq!(op.bytes_per_cell(&counts), bytes, "{}", op.name());
    }
    // Both ghost layers of the padded layout: (ni+4)(nj+4) per block; the boundary update
    // fills both layers along the four sides and the 4 x 2 x 2 corner ghosts of every block.
    let blocks: Vec<(usize, usize)> = problem.mesh.blocks.iter().map(|b| (b.ni, b.nj)).collect();
    let padded: usize = blocks.iter().map(|(ni, nj)| (ni + 4) * (nj + 4)).sum();
    let ghosts: usize = blocks.iter().map(|(ni, nj)| 4 * (ni + nj) + 16).sum();
    let per_cell = |n: usize| (2 * NVAR * 8) as f64 * n as f64 / counts.cells as f64;
    // The same formulas evaluated in another order: equal to rounding.
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b;
    assert!(close(Operation::CopyField.bytes_per_cell(&counts), per_cell(padded)));
    assert!(close(Operation::ApplyBoundaryConditions.bytes_per_cell(&counts), per_cell(ghosts)));
    // One iteration: W0 = W, and per stage boundary conditions, convective and viscous
    // residual, SA scaling and update; once the time step, the SA factor and the norms.
    let per_stage = 120.0 + 200.0 + 24.0 + 136.0 + per_cell(ghosts);
    let once = per_cell(padded) + 88.0 + 104.0 + 56.0;
    let iteration = iteration_bytes_per_cell_stage(5, &counts);
    assert!(close(iteration, per_stage + once / 5.0), "{iteration}");
}

#[test]
fn bad_sizes_and_repeats_are_errors() {
    assert!(TestProblem::new(10).is_err());
    assert!(TestProblem::new(bench::MAX_CELLS + 1).is_err());
    let cpu = CpuBackend::new(Some(1)).unwrap();
    assert!(copy_bandwidth(&cpu, 1000, &BenchOptions { warmup: 0, repeats: 0 }).is_err());
}

#[test]
fn command_prints_the_cpu_column_and_why_the_gpu_one_is_absent() {
    let output = Command::new(env!("CARGO_BIN_EXE_turbopt"))
        .args(["bench", "--cells", "2000", "--iterations", "1", "--threads", "2", "--backend", "both", "--json"])
        .output()
        .expect("turbopt runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "stdout: {stdout}\nstderr: {}", String::from_utf8_lossy(&output.stderr));
    let json: serde_json::Value = serde_json::from_str(stdout.lines().last().expect("a JSON line")).unwrap();
    let cpu = &json["cpu"];
    assert_eq!(cpu["operations"].as_array().unwrap().len(), Operation::ALL.len());
    assert_eq!(cpu["iteration"]["updates"].as_u64().unwrap(), json["cells"].as_u64().unwrap() * 5);
    for op in Operation::ALL {
        assert!(stdout.lines().any(|l| l.starts_with(op.name())), "no row for {}", op.name());
    }
    if cfg!(feature = "cuda") && json["gpu"].is_object() {
        assert_eq!(json["gpu_over_cpu"].as_object().unwrap().len(), Operation::ALL.len() + 1);
    } else {
        assert!(json["gpu"].is_null());
        assert!(stdout.contains("GPU column absent: "), "{stdout}");
    }
}
