//! Parity of the viscous kernels (cuda/viscous.cu): the viscous residual (laminar, SA with and
//! without ft2, SA-BCM, SA-gamma with its intermittency terms) and the SA point-implicit source
//! factor, on states of air whose viscous
//! terms are not round-off (the unit gas of the other families has T ~ 1 K, where Sutherland's
//! viscosity is negligible).

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use turbopt::backend::gpu::GpuField;
use turbopt::backend::{Physics, SaSourceOptions, NVAR};

/// Random states of air around 1 bar, 300 K and 100 m/s: density and pressure each random in
/// [0.5, 2) times 1.16 kg/m^3 and 1e5 Pa per cell, a mean velocity of (100, 30) m/s plus random
/// components whose amplitude falls from 100 m/s to 1e-4 m/s along i in every block (so that
/// the SA source sees both large and nearly zero vorticity: limited S~ and the r cap), and
/// nu_tilde = chi nu with chi in [-5, 40) (about one cell in nine negative: SA-neg).
fn air_state(mesh: &Mesh, gas: &Gas, seed: u64) -> Solution {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
            for c in 0..n {
                let i = c % b.ni;
                let rho = 1.16 * rng.random_range(0.5..2.0);
                let p = 1e5 * rng.random_range(0.5..2.0);
                let amplitude = 100.0 * 10f64.powf(-6.0 * i as f64 / b.ni as f64);
                let u = 100.0 + amplitude * rng.random_range(-1.0..1.0);
                let v = 30.0 + amplitude * rng.random_range(-1.0..1.0);
                let nu = gas.viscosity(p / (rho * gas.gas_constant)) / rho;
                s.rho[c] = rho;
                s.rho_u[c] = rho * u;
                s.rho_v[c] = rho * v;
                s.rho_e[c] = p / (gas.gamma - 1.0) + 0.5 * rho * (u * u + v * v);
                s.nu_tilde[c] = nu * rng.random_range(-5.0..40.0);
            }
            // Intermittency in (0, 1] from a stream of its own (the other draws as before it).
            let mut gamma_rng = ChaCha8Rng::seed_from_u64(seed + 1_000_000);
            s.intermittency = (0..n).map(|_| gamma_rng.random_range(0.01..1.0)).collect();
            s
        })
        .collect();
    Solution { blocks }
}

/// Boundary data of the air states: inlet total conditions 1.8 bar, 360 K, outlet 1 bar.
fn air_boundary_data() -> BoundaryData {
    BoundaryData { p01: 1.8e5, t01: 360.0, inlet_direction: [0.9f64.cos(), 0.9f64.sin()], p2: 1e5, inlet_nu_tilde: 1e-4, no_slip_walls: true }
}

/// The same air state on both sides, ghosts filled by the CPU boundary conditions.
fn air_fields(p: &Pair, mesh: &Mesh, gas: &Gas, seed: u64) -> (CpuField, GpuField) {
    let mut wc = p.cpu.upload_state(&p.gc, &air_state(mesh, gas, seed)).unwrap();
    p.cpu.apply_boundary_conditions(&p.gc, gas, &air_boundary_data(), &mut wc);
    let wg = p.gpu.field_from_host(&p.gg, &wc).unwrap();
    (wc, wg)
}

/// A random starting residual for an operation that adds to `r`: each variable random in
/// (-s, s) with s the largest |entry| of that variable in `added` (what the operation adds), or
/// 1 where that is zero, so that the added terms are neither round-off next to the start nor
/// the start next to them.
fn random_start(g: &CpuGeometry, added: &CpuField, seed: u64) -> CpuField {
    let mut start = random_field(g, seed);
    for (sb, ab) in start.blocks.iter_mut().zip(&added.blocks) {
        let np = sb.len() / NVAR;
        for v in 0..NVAR {
            let scale = ab[v * np..(v + 1) * np].iter().fold(0.0f64, |m, x| m.max(x.abs()));
            let scale = if scale > 0.0 { scale } else { 1.0 };
            sb[v * np..(v + 1) * np].iter_mut().for_each(|x| *x *= scale);
        }
    }
    start
}

const SA_NOFT2: SaSourceOptions = SaSourceOptions { with_ft2: false, bcm_onset: None, intermittency_tu: None };
const SA_FT2: SaSourceOptions = SaSourceOptions { with_ft2: true, bcm_onset: None, intermittency_tu: None };
/// SA-BCM at the onset of Tu = 1 % (Re_theta_c 494).
const SA_BCM: SaSourceOptions = SaSourceOptions { with_ft2: false, bcm_onset: Some(494.0), intermittency_tu: None };
/// SA-gamma at Tu = 1 %.
const SA_GAMMA: SaSourceOptions = SaSourceOptions { with_ft2: false, bcm_onset: None, intermittency_tu: Some(0.01) };

#[test]
#[ignore = "needs a CUDA device"]
fn viscous_residual_matches_cpu_on_random_states() {
    let gas = Gas::default();
    // And a mesh whose diamonds the lift corrects (sliver cells of a C-grid at a steep wall).
    let lifted = ("LS89 design 129, coarse (lifted diamonds)", common::ls89_design_mesh(129));
    for (name, mesh) in meshes().into_iter().chain([lifted]) {
        let p = Pair::new(&mesh);
        let lifted_faces = p.gc.blocks.iter().flat_map(|b| b.diamond_lift_i.iter().chain(&b.diamond_lift_j)).filter(|l| **l > 0.0).count();
        println!("{name}: {lifted_faces} lifted diamonds");
        for (seed, physics, sa) in [(51, Physics::Laminar, SA_NOFT2), (52, Physics::SpalartAllmaras, SA_NOFT2), (53, Physics::SpalartAllmaras, SA_FT2), (54, Physics::SaBcm, SA_BCM), (55, Physics::SaGamma, SA_GAMMA)] {
            let (wc, wg) = air_fields(&p, &mesh, &gas, seed);
            let mut added = p.cpu.new_field(&p.gc);
            p.cpu.viscous_residual(&p.gc, &gas, physics, &sa, &wc, &mut added);
            let mut rc = random_start(&p.gc, &added, seed + 100);
            let mut rg = p.gpu.field_from_host(&p.gg, &rc).unwrap();
            p.cpu.viscous_residual(&p.gc, &gas, physics, &sa, &wc, &mut rc);
            p.gpu.viscous_residual(&p.gg, &gas, physics, &sa, &wg, &mut rg);
            let diff = relative_difference(&rc, &p.host(&rg));
            println!("{name}: {physics:?}, {sa:?}: max relative difference {diff:.3e}");
            assert!(diff <= PARITY, "{name} {physics:?} {sa:?}: GPU viscous residual differs by {diff:e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn source_factors_match_cpu_on_random_states() {
    let gas = Gas::default();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for (seed, sa, gamma_equation) in [(61, SA_NOFT2, false), (62, SA_FT2, false), (63, SA_BCM, false), (64, SA_GAMMA, false), (65, SA_GAMMA, true)] {
            let (wc, wg) = air_fields(&p, &mesh, &gas, seed);
            let dt = random_scalars(&p.gc, seed + 100, 1e-4, 1.0);
            let dtg = p.gpu.scalars_from_host(&dt).unwrap();
            let (mut fc, mut fg) = (p.cpu.new_scalars(&p.gc), p.gpu.new_scalars(&p.gg));
            p.gpu.fill_scalars(&mut fg, f64::NAN); // every entry must be written
            if gamma_equation {
                p.cpu.intermittency_source_factor(&p.gc, &gas, &sa, &wc, &dt, &mut fc);
                p.gpu.intermittency_source_factor(&p.gg, &gas, &sa, &wg, &dtg, &mut fg);
            } else {
                p.cpu.turbulence_source_factor(&p.gc, &gas, &sa, &wc, &dt, &mut fc);
                p.gpu.turbulence_source_factor(&p.gg, &gas, &sa, &wg, &dtg, &mut fg);
            }
            p.gpu.check().unwrap();
            let diff = relative_difference_scalars(&fc, &p.gpu.scalars_to_host(&p.gg, &fg).unwrap());
            let smallest = fc.blocks.iter().flatten().fold(1.0f64, |m, f| m.min(*f));
            let which = if gamma_equation { "intermittency" } else { "SA" };
            println!("{name}: {sa:?}, {which} factor: smallest {smallest:.3e}, max relative difference {diff:.3e}");
            assert!(diff <= PARITY, "{name} {sa:?}: GPU {which} source factor differs by {diff:e}");
        }
    }
}
