//! CPU/GPU parity of the ported backend operations on random valid states (DESIGN.md section
//! 2: kernels twice, kept equal by parity tests), and of a whole explicit solve. These tests need
//! a CUDA device: run them with `--include-ignored` on a GPU machine (../shared/tools/gpu-stage).
#![cfg(feature = "cuda")]

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Instant;
use turbopt::backend::cpu::{CpuBackend, CpuField};
use turbopt::backend::gpu::GpuBackend;
use turbopt::backend::{Backend, BoundaryData, ConvectiveScheme, Reconstruction};
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::mesh::simple::{wavy_channel, Sides};
use turbopt::mesh::{BoundaryKind, Mesh};
use turbopt::solver::{ExplicitSolver, Silent, SolverConfig};

/// Random but physical states: density, pressure and nu_tilde positive, Mach up to about 1.5.
fn random_state(mesh: &Mesh, gas: &Gas, seed: u64) -> Solution {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n] };
            for c in 0..n {
                let rho = rng.random_range(0.5..2.0);
                let p = rng.random_range(0.5..2.0);
                let (u, v) = (rng.random_range(-1.2..1.2), rng.random_range(-1.2..1.2));
                s.rho[c] = rho;
                s.rho_u[c] = rho * u;
                s.rho_v[c] = rho * v;
                s.rho_e[c] = p / (gas.gamma - 1.0) + 0.5 * rho * (u * u + v * v);
                s.nu_tilde[c] = rng.random_range(1e-4..1e-2);
            }
            s
        })
        .collect();
    Solution { blocks }
}

fn boundary_data() -> BoundaryData {
    BoundaryData { p01: 1.8, t01: 1.2, inlet_direction: [0.9f64.cos(), 0.9f64.sin()], p2: 1.0, inlet_nu_tilde: 1e-3, no_slip_walls: true }
}

/// Largest |a - b| over all entries of each variable, relative to that variable's largest |a|.
fn relative_difference(a: &CpuField, b: &CpuField, n_padded: &[usize]) -> f64 {
    let mut worst: f64 = 0.0;
    for ((ab, bb), &np) in a.blocks.iter().zip(&b.blocks).zip(n_padded) {
        for v in 0..5 {
            let (x, y) = (&ab[v * np..(v + 1) * np], &bb[v * np..(v + 1) * np]);
            let scale = x.iter().map(|t| t.abs()).fold(0.0, f64::max);
            if scale == 0.0 {
                assert!(y.iter().all(|t| *t == 0.0), "variable {v}: CPU all zero, GPU not");
                continue;
            }
            let diff = x.iter().zip(y).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            worst = worst.max(diff / scale);
        }
    }
    worst
}

fn meshes() -> Vec<(&'static str, Mesh)> {
    let walls = Sides { jmin: BoundaryKind::Wall, jmax: BoundaryKind::InviscidWall, ..Sides::inviscid_channel() };
    vec![
        ("distorted periodic channel, 3 blocks (1-to-1 + periodic)", common::distorted_channel(3, 24, 16, 2.0, 0.04)),
        ("wavy channel with a no-slip and a slip wall", wavy_channel(40, 24, 3.0, 1.0, 0.05, walls).unwrap()),
    ]
}

#[test]
#[ignore = "needs a CUDA device"]
fn convective_residual_matches_cpu_on_random_states() {
    let gas = common::unit_gas();
    let cpu = CpuBackend::new(None).unwrap();
    let gpu = GpuBackend::new(0).unwrap();
    println!("device: {}", gpu.device_description());
    for (name, mesh) in meshes() {
        let gc = cpu.upload_geometry(&mesh).unwrap();
        let gg = gpu.upload_geometry(&mesh).unwrap();
        let n_padded: Vec<usize> = mesh.blocks.iter().map(|b| (b.ni + 4) * (b.nj + 4)).collect();
        for (seed, reconstruction, convect_nu_tilde) in
            [(1, Reconstruction::FirstOrder, false), (2, Reconstruction::SecondOrder, false), (3, Reconstruction::SecondOrder, true)]
        {
            let state = random_state(&mesh, &gas, seed);
            let scheme = ConvectiveScheme { reconstruction, entropy_fix: 0.1, convect_nu_tilde, limiter_epsilon: [1e-4, 1e-4, 1e-4, 1e-4] };
            let mut wc = cpu.upload_state(&gc, &state).unwrap();
            cpu.apply_boundary_conditions(&gc, &gas, &boundary_data(), &mut wc);
            let mut rc = cpu.new_field(&gc);
            cpu.convective_residual(&gc, &gas, &scheme, &wc, &mut rc);

            let mut wg = gpu.upload_state(&gg, &state).unwrap();
            gpu.apply_boundary_conditions(&gg, &gas, &boundary_data(), &mut wg);
            let mut rg = gpu.new_field(&gg);
            gpu.convective_residual(&gg, &gas, &scheme, &wg, &mut rg);
            gpu.check().unwrap();
            let rg_host = gpu.field_to_host(&rg).unwrap();
            let diff = relative_difference(&rc, &rg_host, &n_padded);
            println!("{name}: {reconstruction:?}, convect nu_tilde {convect_nu_tilde}: max relative difference {diff:.3e}");
            assert!(diff <= 1e-12, "{name} {reconstruction:?}: GPU residual differs by {diff:e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn explicit_solve_matches_cpu() {
    let mesh = common::distorted_channel(2, 32, 16, 2.0, 0.03);
    let config = SolverConfig { cfl: 2.0, max_iterations: 200, ..SolverConfig::default() };
    let (case, start) = common::incidence_channel_case(&mesh, config);
    let cpu = CpuBackend::new(None).unwrap();
    let gpu = GpuBackend::new(0).unwrap();
    let a = ExplicitSolver::new(&cpu, &mesh, case.clone()).unwrap().solve(&start, &mut Silent).unwrap();
    let b = ExplicitSolver::new(&gpu, &mesh, case).unwrap().solve(&start, &mut Silent).unwrap();
    let mut worst: f64 = 0.0;
    for (x, y) in a.solution.blocks.iter().zip(&b.solution.blocks) {
        for (p, q) in [(&x.rho, &y.rho), (&x.rho_u, &y.rho_u), (&x.rho_v, &y.rho_v), (&x.rho_e, &y.rho_e)] {
            let scale = p.iter().map(|t| t.abs()).fold(0.0, f64::max);
            worst = worst.max(p.iter().zip(q).map(|(s, t)| (s - t).abs()).fold(0.0, f64::max) / scale);
        }
    }
    println!("200 explicit iterations, CPU vs GPU (convective residual on the GPU): max relative difference {worst:.3e}; residual drop CPU {:.3} GPU {:.3} orders", a.history.orders_dropped(), b.history.orders_dropped());
    assert!(worst <= 1e-10, "whole-solve difference {worst:e}");
}

#[test]
#[ignore = "needs a CUDA device"]
fn convective_residual_throughput() {
    // One large block (the face kernels' work per launch) and median timings after warm-up.
    let gas = common::unit_gas();
    let mesh = turbopt::mesh::simple::channel(1024, 512, 2.0, 1.0, Sides::inviscid_channel()).unwrap();
    let cells = mesh.n_cells() as f64;
    let state = random_state(&mesh, &gas, 9);
    let scheme = ConvectiveScheme { reconstruction: Reconstruction::SecondOrder, entropy_fix: 0.1, convect_nu_tilde: true, limiter_epsilon: [1e-4; 4] };
    let cpu = CpuBackend::new(None).unwrap();
    let gpu = GpuBackend::new(0).unwrap();
    let gc = cpu.upload_geometry(&mesh).unwrap();
    let gg = gpu.upload_geometry(&mesh).unwrap();
    let mut wc = cpu.upload_state(&gc, &state).unwrap();
    cpu.apply_boundary_conditions(&gc, &gas, &boundary_data(), &mut wc);
    let mut wg = gpu.upload_state(&gg, &state).unwrap();
    gpu.apply_boundary_conditions(&gg, &gas, &boundary_data(), &mut wg);
    let (mut rc, mut rg) = (cpu.new_field(&gc), gpu.new_field(&gg));
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let time_cpu: Vec<f64> = (0..7)
        .map(|_| {
            let t = Instant::now();
            cpu.convective_residual(&gc, &gas, &scheme, &wc, &mut rc);
            t.elapsed().as_secs_f64()
        })
        .collect();
    for _ in 0..5 {
        gpu.convective_residual(&gg, &gas, &scheme, &wg, &mut rg);
    }
    gpu.check().unwrap();
    let time_gpu: Vec<f64> = (0..51)
        .map(|_| {
            let t = Instant::now();
            gpu.convective_residual(&gg, &gas, &scheme, &wg, &mut rg);
            gpu.check().unwrap(); // synchronizes
            t.elapsed().as_secs_f64()
        })
        .collect();
    let (tc, tg) = (median(time_cpu), median(time_gpu));
    println!(
        "convective residual (2nd order + SA convection), {cells} cells: CPU {} threads {:.2} ms ({:.1} Mcell/s), GPU {:.3} ms ({:.1} Mcell/s), speed-up {:.1}",
        cpu.threads(),
        tc * 1e3,
        cells / tc / 1e6,
        tg * 1e3,
        cells / tg / 1e6,
        tc / tg
    );
}
