//! CPU/GPU parity of every backend operation on random valid states (the kernels exist twice,
//! and these tests keep the two equal), and of whole explicit solves. One module per kernel
//! family, named as the family. These tests need a CUDA device: run them on a GPU machine with
//! `cargo test --release --features cuda --test gpu_parity -- --include-ignored`, or with every
//! other GPU test through `scripts/gpu-tests`.
#![cfg(feature = "cuda")]

#[path = "../common/mod.rs"]
mod common;

mod boundary;
mod convective;
mod implicit;
mod reduce;
mod smoothing;
mod solve;
mod timestep;
mod transfer;
mod update;
mod viscous;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use turbopt::backend::cpu::{CpuBackend, CpuField, CpuGeometry, CpuScalars};
use turbopt::backend::gpu::{GpuBackend, GpuGeometry};
use turbopt::backend::{Backend, BoundaryData, NVAR};
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::mesh::simple::{wavy_channel, Sides};
use turbopt::mesh::{BoundaryKind, Mesh};

/// The tolerance of every kernel comparison (f64, same operation order on both sides).
pub const PARITY: f64 = 1e-12;

/// Random but physical states: density, pressure and nu_tilde positive, Mach up to about 1.5.
pub fn random_state(mesh: &Mesh, gas: &Gas, seed: u64) -> Solution {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
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
            // Intermittency in (0, 1] from a stream of its own (the other draws as before it).
            let mut gamma_rng = ChaCha8Rng::seed_from_u64(seed + 1_000_000);
            s.intermittency = (0..n).map(|_| gamma_rng.random_range(0.01..1.0)).collect();
            s
        })
        .collect();
    Solution { blocks }
}

/// Random values in every entry of a field (interior and ghosts): residuals, forcing terms.
pub fn random_field(g: &CpuGeometry, seed: u64) -> CpuField {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    CpuField { blocks: g.blocks.iter().map(|b| (0..NVAR * b.layout.n_padded()).map(|_| rng.random_range(-1.0..1.0)).collect()).collect() }
}

/// Random positive values per interior cell in `[lo, hi)`.
pub fn random_scalars(g: &CpuGeometry, seed: u64, lo: f64, hi: f64) -> CpuScalars {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    CpuScalars { blocks: g.blocks.iter().map(|b| (0..b.layout.n_interior()).map(|_| rng.random_range(lo..hi)).collect()).collect() }
}

pub fn boundary_data() -> BoundaryData {
    BoundaryData { p01: 1.8, t01: 1.2, inlet_direction: [0.9f64.cos(), 0.9f64.sin()], p2: 1.0, inlet_nu_tilde: 1e-3, no_slip_walls: true }
}

/// Largest |a - b| over all entries of each variable, relative to that variable's largest |a|;
/// a variable that is zero on the CPU must be exactly zero on the GPU. NaN when an entry of
/// either side is NaN (`common::largest`), so that no NaN passes a `<= tolerance` check.
pub fn relative_difference(a: &CpuField, b: &CpuField) -> f64 {
    assert_eq!(a.blocks.len(), b.blocks.len(), "block counts differ");
    let mut worst: f64 = 0.0;
    for (ab, bb) in a.blocks.iter().zip(&b.blocks) {
        assert_eq!(ab.len(), bb.len(), "block sizes differ");
        let np = ab.len() / 5;
        for v in 0..5 {
            worst = common::max_or_nan(worst, relative(&ab[v * np..(v + 1) * np], &bb[v * np..(v + 1) * np], v));
        }
    }
    worst
}

/// As [`relative_difference`] for per-cell scalars.
pub fn relative_difference_scalars(a: &CpuScalars, b: &CpuScalars) -> f64 {
    assert_eq!(a.blocks.len(), b.blocks.len(), "block counts differ");
    common::largest(a.blocks.iter().zip(&b.blocks).map(|(x, y)| relative(x, y, 0)))
}

fn relative(x: &[f64], y: &[f64], v: usize) -> f64 {
    assert!(y.iter().all(|t| t.is_finite()) || x.iter().any(|t| !t.is_finite()), "variable {v}: GPU has non-finite entries, CPU not");
    let scale = common::largest(x.iter().map(|t| t.abs()));
    if scale == 0.0 {
        assert!(y.iter().all(|t| *t == 0.0), "variable {v}: CPU all zero, GPU not");
        return 0.0;
    }
    common::max_abs_difference(x, y) / scale
}

/// The parity meshes: several blocks with 1-to-1 and periodic interfaces on a distorted grid,
/// and a curved channel with a no-slip wall, a slip wall, an inlet and an outlet.
pub fn meshes() -> Vec<(&'static str, Mesh)> {
    let walls = Sides { jmin: BoundaryKind::Wall, jmax: BoundaryKind::InviscidWall, ..Sides::inviscid_channel() };
    vec![
        ("distorted periodic channel, 3 blocks (1-to-1 + periodic)", common::distorted_channel(3, 24, 16, 2.0, 0.04)),
        ("wavy channel with a no-slip and a slip wall", wavy_channel(40, 24, 3.0, 1.0, 0.05, walls).unwrap()),
    ]
}

/// Both backends with one mesh's geometry on each.
pub struct Pair {
    pub cpu: CpuBackend,
    pub gpu: GpuBackend,
    pub gc: CpuGeometry,
    pub gg: GpuGeometry,
}

impl Pair {
    pub fn new(mesh: &Mesh) -> Pair {
        let cpu = CpuBackend::new(None).unwrap();
        let gpu = GpuBackend::new(0).unwrap();
        let gc = cpu.upload_geometry(mesh).unwrap();
        let gg = gpu.upload_geometry(mesh).unwrap();
        Pair { cpu, gpu, gc, gg }
    }

    /// The same state on both sides, ghosts filled by the CPU boundary conditions (so that a
    /// kernel is compared on its own, whatever the GPU's boundary kernels do).
    pub fn state(&self, gas: &Gas, seed: u64, mesh: &Mesh) -> (CpuField, turbopt::backend::gpu::GpuField) {
        let state = random_state(mesh, gas, seed);
        let mut wc = self.cpu.upload_state(&self.gc, &state).unwrap();
        self.cpu.apply_boundary_conditions(&self.gc, gas, &boundary_data(), &mut wc);
        let wg = self.gpu.field_from_host(&self.gg, &wc).unwrap();
        (wc, wg)
    }

    /// The GPU field back in the CPU layout (after checking the device for errors).
    pub fn host(&self, f: &turbopt::backend::gpu::GpuField) -> CpuField {
        self.gpu.check().unwrap();
        self.gpu.field_to_host(&self.gg, f).unwrap()
    }
}
