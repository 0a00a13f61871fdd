//! `turbopt bench`: throughput of the explicit RANS-SA solver per backend operation and per
//! iteration (`turbopt::perf::bench`), the CPU and the GPU backend side by side from the same run, with
//! the GPU/CPU speed-up of each row.

use std::time::Instant;

use super::args::{BenchArgs, BenchBackendArg, SchemeArg};
use turbopt::backend::{BackendTask, ImplicitBackend, OpenBackend};
use turbopt::perf::bench::implicit::ImplicitBench;
use turbopt::perf::bench::{self, BenchOptions, BenchReport, TestProblem, Throughput};
use turbopt::{Error, Result};

/// Untimed calls (iterations) before the timed ones.
const WARMUP: usize = 2;

/// The GPU column: measured, or the reason it is absent.
enum GpuColumn {
    Measured(Box<BenchReport>),
    Absent(Error),
}

pub fn run(args: &BenchArgs) -> Result<()> {
    let options = BenchOptions { warmup: WARMUP, repeats: args.iterations };
    if args.iterations == 0 {
        return Err(Error::Other("--iterations must be at least 1".into()));
    }
    let start = Instant::now();
    let problem = TestProblem::new(args.cells)?;
    eprintln!("bench: {} built in {:.1} s", problem.describe(), start.elapsed().as_secs_f64());
    if args.scheme == SchemeArg::Auto {
        return Err(Error::Other("bench times one scheme: --scheme explicit or implicit (perf-model compares them)".into()));
    }
    if args.scheme == SchemeArg::Implicit {
        return run_implicit(args, &problem, &options);
    }
    let cpu = match args.backend {
        BenchBackendArg::Cpu | BenchBackendArg::Both => Some(measure_cpu(&problem, args.threads, &options)?),
        BenchBackendArg::Gpu => None,
    };
    let gpu = match (args.backend, measure_gpu(&problem, &options, args.backend)?) {
        (BenchBackendArg::Gpu, GpuColumn::Absent(e)) => return Err(e),
        (_, column) => column,
    };
    print_report(&problem, &options, cpu.as_ref(), &gpu);
    if args.json {
        println!("{}", json_summary(&problem, cpu.as_ref(), &gpu));
    }
    Ok(())
}

fn measure_cpu(problem: &TestProblem, threads: Option<usize>, options: &BenchOptions) -> Result<BenchReport> {
    OpenBackend::cpu(threads)?.run(ExplicitBench { problem, options })
}

/// The GPU column when the GPU is asked for (`Absent` when this build or this machine has no
/// GPU); errors of a GPU that opened end the command.
fn measure_gpu(problem: &TestProblem, options: &BenchOptions, wanted: BenchBackendArg) -> Result<GpuColumn> {
    if wanted == BenchBackendArg::Cpu {
        return Ok(GpuColumn::Absent(Error::Other("not requested (--backend cpu)".into())));
    }
    match OpenBackend::gpu(0) {
        Ok(gpu) => Ok(GpuColumn::Measured(Box::new(gpu.run(ExplicitBench { problem, options })?))),
        Err(e) => Ok(GpuColumn::Absent(e)),
    }
}

/// The explicit operations and iteration on one backend, against its copy bandwidth.
struct ExplicitBench<'a> {
    problem: &'a TestProblem,
    options: &'a BenchOptions,
}

impl BackendTask for ExplicitBench<'_> {
    type Output = Result<BenchReport>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Result<BenchReport> {
        eprintln!("bench: {}: measuring the copy bandwidth, then timing", backend.name());
        let bandwidth = bench::copy_bandwidth(backend, bench::BANDWIDTH_CELLS, self.options)?;
        bench::run(backend, self.problem, self.options, &bandwidth)
    }
}

/// Implicit flow iterations on one backend.
struct ImplicitIterations<'a> {
    problem: &'a TestProblem,
    options: &'a BenchOptions,
}

impl BackendTask for ImplicitIterations<'_> {
    type Output = Result<ImplicitBench>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Result<ImplicitBench> {
        eprintln!("bench: {}: implicit iterations", backend.name());
        bench::implicit::run(backend, self.problem, &bench::implicit::bench_config(), self.options.warmup, self.options.repeats)
    }
}

fn print_report(problem: &TestProblem, options: &BenchOptions, cpu: Option<&BenchReport>, gpu: &GpuColumn) {
    let gpu_report = match gpu {
        GpuColumn::Measured(r) => Some(r.as_ref()),
        GpuColumn::Absent(_) => None,
    };
    println!(
        "turbopt bench: explicit RANS-SA, second-order Roe/MUSCL, {}-stage Runge-Kutta, CFL {}, local time steps, single grid, f64",
        problem.stages(),
        bench::CFL
    );
    println!("mesh: {}; medians of {} timed calls / iterations after {} untimed", problem.describe(), options.repeats, options.warmup);
    for report in cpu.iter().chain(gpu_report.iter()) {
        let bw = &report.measured_bandwidth;
        println!(
            "{}: measured copy bandwidth {:.1} GB/s ({:.0} MB read + written), setup {:.1} s",
            report.backend,
            bw.bytes_per_s / 1e9,
            bw.bytes_per_copy / 1e6,
            report.setup_s
        );
    }
    if let (GpuColumn::Absent(reason), Some(_)) = (gpu, cpu) {
        println!("GPU column absent: {reason}");
    }
    println!();
    print_table(cpu, gpu_report);
    println!();
    println!("B/upd: least bytes moved per cell update (explicit_iteration: per cell-stage update; src/bench/operations.rs)");
    println!("Mupd/s: million cell updates per second (explicit_iteration: million cell-stage updates per second)");
    println!("GB/s: Mupd/s x B/upd; %bw: of the backend's measured copy bandwidth");
    let rows = |r: &&BenchReport| r.operations.iter().chain(std::iter::once(&r.iteration)).any(|t| t.percent_of_measured > 100.0);
    if cpu.iter().chain(gpu_report.iter()).any(rows) {
        println!("%bw above 100: the operation beat the copy probe: its data stay in cache (small meshes), or it reads more than it writes (a CPU copy also reads its destination before writing it)");
    }
    for report in cpu.iter().chain(gpu_report.iter()) {
        println!(
            "{}: one iteration {:.2} ms; its operations' medians add up to {:.2} ms",
            report.backend,
            report.iteration.seconds * 1e3,
            report.iteration_sum_of_operations_s * 1e3
        );
    }
}

fn print_table(cpu: Option<&BenchReport>, gpu: Option<&BenchReport>) {
    let columns: Vec<(&str, &BenchReport)> = cpu.map(|r| ("cpu", r)).into_iter().chain(gpu.map(|r| ("gpu", r))).collect();
    let Some((_, first)) = columns.first() else { return };
    let mut header = format!("{:<27} {:>7}", "operation", "B/upd");
    for (label, _) in &columns {
        header += &format!(" | {:>9} {:>9} {:>8} {:>5}", format!("{label} ms"), "Mupd/s", "GB/s", "%bw");
    }
    if columns.len() == 2 {
        header += " | gpu/cpu";
    }
    println!("{header}");
    println!("{}", "-".repeat(header.len()));
    let rows = first.operations.iter().chain(std::iter::once(&first.iteration));
    for (k, row) in rows.enumerate() {
        let cells: Vec<&Throughput> = columns.iter().map(|(_, r)| r.operations.get(k).unwrap_or(&r.iteration)).collect();
        let mut line = format!("{:<27} {:>7.1}", row.operation, row.bytes_per_update);
        for t in &cells {
            line += &format!(" | {:>9.3} {:>9.1} {:>8.1} {:>5.1}", t.seconds * 1e3, t.updates_per_s / 1e6, t.bandwidth_bytes_per_s / 1e9, t.percent_of_measured);
        }
        if let [c, g] = cells[..] {
            line += &format!(" | {:>7.1}", g.updates_per_s / c.updates_per_s);
        }
        println!("{line}");
    }
}

/// The last stdout line with `--json`.
fn json_summary(problem: &TestProblem, cpu: Option<&BenchReport>, gpu: &GpuColumn) -> serde_json::Value {
    let (gpu_report, gpu_absent) = match gpu {
        GpuColumn::Measured(r) => (Some(r.as_ref()), None),
        GpuColumn::Absent(e) => (None, Some(e.to_string())),
    };
    let speedup = match (cpu, gpu_report) {
        (Some(c), Some(g)) => {
            let rows = |r: &BenchReport| r.operations.iter().chain(std::iter::once(&r.iteration)).cloned().collect::<Vec<_>>();
            let pairs = rows(c).into_iter().zip(rows(g)).map(|(c, g)| (c.operation, serde_json::json!(g.updates_per_s / c.updates_per_s)));
            Some(serde_json::Value::Object(pairs.collect()))
        }
        _ => None,
    };
    serde_json::json!({
        "command": "bench",
        "mesh": problem.describe(),
        "cells": problem.cells(),
        "stages": problem.stages(),
        "cpu": cpu,
        "gpu": gpu_report,
        "gpu_absent": gpu_absent,
        "gpu_over_cpu": speedup,
    })
}

/// `--scheme implicit`: time per flow iteration of each backend, with the solver's split.
fn run_implicit(args: &BenchArgs, problem: &TestProblem, options: &BenchOptions) -> Result<()> {
    let mut rows: Vec<ImplicitBench> = Vec::new();
    if args.backend != BenchBackendArg::Gpu {
        rows.push(OpenBackend::cpu(args.threads)?.run(ImplicitIterations { problem, options })?);
    }
    let gpu_absent = match implicit_gpu(problem, options, args.backend)? {
        Ok(row) => {
            rows.push(row);
            None
        }
        Err(e) if args.backend == BenchBackendArg::Gpu => return Err(e),
        Err(e) => Some(e.to_string()),
    };
    println!("turbopt bench --scheme implicit: RANS-SA, 2 stages, FGMRES(20) rel. tol 0.1, ILU(0) on demand, CFL ramp from 5");
    println!("mesh: {}; median of {} timed flow iterations after {} untimed", problem.describe(), options.repeats, options.warmup);
    println!("split: mean ms per flow iteration over all iterations run (untimed ones included); fact.: factorizations; lin/st: FGMRES iterations per stage");
    println!("{:<46} {:>9} | {:>9} {:>9} {:>9} {:>9} | {:>6} {:>6}", "backend", "ms/iter", "residual", "assembly", "factor.", "Krylov", "fact.", "lin/st");
    for r in &rows {
        let b = &r.breakdown_per_iteration;
        println!(
            "{:<46} {:>9.2} | {:>9.2} {:>9.2} {:>9.2} {:>9.2} | {:>6} {:>6.1}",
            r.backend,
            r.seconds_per_iteration * 1e3,
            b.residual * 1e3,
            b.assembly * 1e3,
            b.factorization * 1e3,
            b.krylov * 1e3,
            r.factorizations,
            r.mean_linear_iterations
        );
    }
    if let [c, g] = &rows[..] {
        println!("GPU/CPU speed-up per flow iteration: {:.1}x", c.seconds_per_iteration / g.seconds_per_iteration);
    }
    if let Some(reason) = &gpu_absent {
        println!("GPU column absent: {reason}");
    }
    if args.json {
        println!("{}", serde_json::json!({"command": "bench", "scheme": "implicit", "mesh": problem.describe(), "cells": problem.cells(), "rows": rows, "gpu_absent": gpu_absent}));
    }
    Ok(())
}

/// The GPU row when the GPU is asked for: `Err` inside when this build or this machine has no
/// GPU; errors of a GPU that opened end the command.
fn implicit_gpu(problem: &TestProblem, options: &BenchOptions, wanted: BenchBackendArg) -> Result<Result<ImplicitBench>> {
    if wanted == BenchBackendArg::Cpu {
        return Ok(Err(Error::Other("not requested (--backend cpu)".into())));
    }
    match OpenBackend::gpu(0) {
        Ok(gpu) => Ok(Ok(gpu.run(ImplicitIterations { problem, options })?)),
        Err(e) => Ok(Err(e)),
    }
}
