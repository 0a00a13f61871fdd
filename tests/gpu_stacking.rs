//! What designs stacked in one arena could gain over designs side by side on streams, measured
//! before building it: `k` copies of the LS89 MUR47 coarse RANS problem solved as ONE
//! mesh (the disjoint union of `k` copies of its blocks: one launch per operation for all `k`,
//! what a stacked batch would run) against the same `k` problems solved at once, each on its own
//! stream of one context on its own host thread (what a batch runs today, the evaluator's GPU pool).
//!
//! Identical copies make the stacked solve do the single solve's arithmetic: every inner product
//! is `k` times the single one's, so FGMRES takes the same iterations (up to the summation order)
//! and the flow iterations cost what `k` stacked designs would cost. The stacked solve is the
//! ceiling of stacking (per-design scalars and norms would add a little to it).
//!
//! `cargo test --release --features cuda --test gpu_stacking -- --ignored --nocapture`
#![cfg(feature = "cuda")]

use std::time::Instant;

use turbopt::backend::gpu::GpuBackend;
use turbopt::cascade::{BladeChoice, CascadeSetup, PreparedCascade, SolverSettings};
use turbopt::flow::solution::Solution;
use turbopt::geometry::load_blade_file;
use turbopt::mesh::{BoundaryKind, Density, Mesh};
use turbopt::solver::{Case, ImplicitReport, ImplicitSolver, Silent};

/// Flow iterations of every solve: past the CFL ramp, a few refactorizations.
const ITERATIONS: usize = 120;

/// `k` copies of `mesh` as one mesh; interfaces point into their own copy.
fn stacked_mesh(mesh: &Mesh, k: usize) -> Mesh {
    let n = mesh.blocks.len();
    let mut blocks = Vec::with_capacity(n * k);
    for copy in 0..k {
        for block in &mesh.blocks {
            let mut b = block.clone();
            b.name = format!("{}-{copy}", b.name);
            for patch in &mut b.patches {
                if let BoundaryKind::Interface(c) = &mut patch.kind {
                    c.donor_block += copy * n;
                }
            }
            blocks.push(b);
        }
    }
    Mesh { blocks, pitch: mesh.pitch }
}

fn stacked_solution(s: &Solution, k: usize) -> Solution {
    Solution { blocks: (0..k).flat_map(|_| s.blocks.iter().cloned()).collect() }
}

fn ls89_coarse() -> (Mesh, Case, Solution) {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    let setup = CascadeSetup::new(&blade, vec![op.clone()], Density::Coarse);
    let prepared = PreparedCascade::new(&blade, BladeChoice::Main, &setup).unwrap();
    let mut solver = SolverSettings::default().solver_config();
    solver.max_iterations = ITERATIONS;
    solver.convergence_orders = 20.0;
    let start = prepared.cold_start(&op);
    (prepared.mesh.clone(), Case { gas: prepared.gas.clone(), operating_point: op, solver }, start)
}

/// FGMRES iterations of the mean flow and the SA system.
fn linear_iterations(r: &ImplicitReport) -> usize {
    r.total_linear_iterations() + r.turbulence_linear_iterations.iter().flatten().sum::<usize>()
}

fn describe(r: &ImplicitReport) -> String {
    let t = &r.time;
    format!(
        "{} its, {} linear, {} factorizations; per iteration {:.2} ms (residual {:.2}, assembly {:.2}, factorization {:.2}, Krylov {:.2})",
        r.iterations,
        linear_iterations(r),
        r.factorizations,
        1e3 * t.total / r.iterations as f64,
        1e3 * t.residual / r.iterations as f64,
        1e3 * t.assembly / r.iterations as f64,
        1e3 * t.factorization / r.iterations as f64,
        1e3 * t.krylov / r.iterations as f64
    )
}

#[test]
#[ignore = "needs a CUDA device"]
fn stacked_designs_against_designs_on_streams() {
    let (mesh, case, start) = ls89_coarse();
    let first = GpuBackend::new(0).unwrap();
    println!("device: {}; LS89 MUR47 coarse RANS-SA, {} cells, {ITERATIONS} flow iterations from the cold start", first.device_description(), mesh.n_cells());
    // Warm-up: kernel loads, the driver's JIT, graph recordings.
    ImplicitSolver::new(&first, &mesh, case.clone()).unwrap().solve(&start, &mut Silent).unwrap();
    for k in [1usize, 4, 8, 16] {
        let streams: Vec<GpuBackend> = (0..k).map(|_| first.sibling().unwrap()).collect();
        let t = Instant::now();
        let reports: Vec<ImplicitReport> = std::thread::scope(|s| {
            let handles: Vec<_> = streams.iter().map(|b| s.spawn(|| ImplicitSolver::new(b, &mesh, case.clone()).unwrap().solve(&start, &mut Silent).unwrap().report)).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let side_by_side = t.elapsed().as_secs_f64();
        let design_iterations: usize = reports.iter().map(|r| r.iterations).sum();

        let union = stacked_mesh(&mesh, k);
        let union_start = stacked_solution(&start, k);
        let t = Instant::now();
        let stacked = ImplicitSolver::new(&first, &union, case.clone()).unwrap().solve(&union_start, &mut Silent).unwrap();
        let stacked_s = t.elapsed().as_secs_f64();
        let stacked_rate = (k * stacked.report.iterations) as f64 / stacked_s;
        let streams_rate = design_iterations as f64 / side_by_side;
        println!(
            "k = {k:2}: on streams {side_by_side:6.2} s, {streams_rate:6.0} design-iterations/s (first design: {}); stacked {stacked_s:6.2} s, {stacked_rate:6.0} design-iterations/s ({}): {:.2}x",
            describe(&reports[0]),
            describe(&stacked.report),
            stacked_rate / streams_rate
        );
        // The comparison is fair only if the stacked solve did the single solve's work: the same
        // flow iterations and, its inner products being k times the single ones, the same FGMRES
        // iterations up to the summation order of the longer reductions (5,810 on both sides on
        // an H100; 5,640 against 5,643 for k = 4 on an H200).
        assert!(stacked.report.iterations == ITERATIONS && reports.iter().all(|r| r.iterations == ITERATIONS));
        let stacked_linear = linear_iterations(&stacked.report) as f64;
        let off = reports.iter().map(|r| (linear_iterations(r) as f64 - stacked_linear).abs() / stacked_linear).fold(0.0, f64::max);
        assert!(off <= 5e-3, "k = {k}: the stacked solve took {:.2} % other FGMRES iterations than the single ones", 100.0 * off);
    }
}

/// Sixteen copies stacked, 30 flow iterations, for a profiler: every kernel then spans 258k
/// cells, the work of a batch of 16 in one launch, which Nsight Compute (which serializes
/// kernels) measures as the batch runs it.
/// `ncu --clock-control none --launch-skip N --launch-count M <this test> --ignored --exact stacked_sixteen_for_a_profiler`
#[test]
#[ignore = "needs a CUDA device"]
fn stacked_sixteen_for_a_profiler() {
    let (mesh, mut case, start) = ls89_coarse();
    case.solver.max_iterations = 30;
    let gpu = GpuBackend::new(0).unwrap();
    let out = ImplicitSolver::new(&gpu, &stacked_mesh(&mesh, 16), case).unwrap().solve(&stacked_solution(&start, 16), &mut Silent).unwrap();
    println!("16 stacked: {}", describe(&out.report));
    assert_eq!(out.report.iterations, 30);
}
