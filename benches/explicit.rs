//! Throughput of the explicit RANS-SA solver with criterion: every backend operation of an
//! iteration (and the multigrid transfers) and the whole 5-stage iteration, on the bench's
//! bumped RANS channel (`turbopt::perf::bench::TestProblem`) at 64k and 256k cells. Criterion's
//! "elements" are cells per call, and cell-stages for the whole iteration, so its throughput
//! reads as cell (cell-stage) updates per second. The CPU backend runs on all cores; with
//! `--features cuda` the GPU backend follows when a device opens.
//!
//! `cargo bench --bench explicit` (add `--features cuda` on a GPU machine); `turbopt bench`
//! prints the same figures with bytes per cell and the bandwidth share, up to 1M cells and more.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::perf::bench::{time_iterations, Operation, TestProblem, Workspace};
use turbopt::solver::ExplicitSolver;

/// Requested cell counts (rounded to the bench grid).
const SIZES: [usize; 2] = [65_536, 262_144];

/// Each operation and the whole iteration of `problem` on `backend`, in one group.
fn bench_backend<B: Backend>(c: &mut Criterion, label: &str, backend: &B, problem: &TestProblem) {
    let cells = problem.cells() as u64;
    let mut group = c.benchmark_group(format!("{label}/{cells}_cells"));
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let mut workspace = Workspace::new(backend, problem).expect("bench workspace");
    group.throughput(Throughput::Elements(cells));
    for op in Operation::ALL {
        group.bench_function(op.name(), |b| b.iter_custom(|n| (0..n).map(|_| workspace.time_call(op).expect("backend operation")).sum()));
    }
    drop(workspace);
    let mut solver = ExplicitSolver::new(backend, &problem.mesh, problem.case.clone()).expect("explicit solver");
    group.throughput(Throughput::Elements(cells * problem.stages() as u64));
    group.bench_function("explicit_iteration", |b| {
        b.iter_custom(|n| time_iterations(&mut solver, problem, 1, n as usize).expect("explicit iterations").iter().sum())
    });
    group.finish();
}

fn cpu(c: &mut Criterion) {
    let backend = CpuBackend::new(None).expect("CPU backend");
    for cells in SIZES {
        let problem = TestProblem::new(cells).expect("bench problem");
        bench_backend(c, "cpu", &backend, &problem);
    }
}

#[cfg(feature = "cuda")]
fn gpu(c: &mut Criterion) {
    let backend = match turbopt::backend::gpu::GpuBackend::new(0) {
        Ok(b) => b,
        Err(e) => {
            println!("GPU benches skipped: {e}");
            return;
        }
    };
    for cells in SIZES {
        let problem = TestProblem::new(cells).expect("bench problem");
        bench_backend(c, "gpu", &backend, &problem);
    }
}

#[cfg(feature = "cuda")]
criterion_group!(benches, cpu, gpu);
#[cfg(not(feature = "cuda"))]
criterion_group!(benches, cpu);
criterion_main!(benches);
