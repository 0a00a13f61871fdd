//! Parity of the ghost fill (cuda/boundary.cu): interface exchange (1-to-1 and periodic), no-slip
//! and slip walls, characteristic inlet and outlet (subsonic and supersonic branches), corners.
//! The whole field is compared, ghosts included, starting from NaN in every ghost.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use turbopt::backend::cpu::geometry::PhysicalBc;
use turbopt::flow::state::primitive_from_conservative;

/// `state` in the CPU layout with NaN in every ghost (corners included), so that a ghost the
/// fill leaves out stays NaN.
fn with_nan_ghosts(p: &Pair, state: &Solution) -> CpuField {
    let mut w = p.cpu.upload_state(&p.gc, state).unwrap();
    for (wb, bg) in w.blocks.iter_mut().zip(&p.gc.blocks) {
        let l = bg.layout;
        let (ni, nj, np) = (l.ni as isize, l.nj as isize, l.n_padded());
        for j in -2..nj + 2 {
            for i in -2..ni + 2 {
                if !((0..ni).contains(&i) && (0..nj).contains(&j)) {
                    for v in 0..5 {
                        wb[v * np + l.idx(i, j)] = f64::NAN;
                    }
                }
            }
        }
    }
    w
}

/// Uniform flow along +x at Mach 1.5 with velocity perturbations of up to 5 % of the speed of
/// sound: supersonic inflow and outflow along the normals of both meshes' inlet and outlet.
fn supersonic_state(mesh: &Mesh, gas: &Gas, seed: u64) -> Solution {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (rho, p) = (1.0, 1.0);
    let c = (gas.gamma * p / rho).sqrt();
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![rho; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
            for k in 0..n {
                let u = 1.5 * c + rng.random_range(-0.05..0.05) * c;
                let v = rng.random_range(-0.05..0.05) * c;
                s.rho_u[k] = rho * u;
                s.rho_v[k] = rho * v;
                s.rho_e[k] = p / (gas.gamma - 1.0) + 0.5 * rho * (u * u + v * v);
                s.nu_tilde[k] = rng.random_range(1e-4..1e-2);
            }
            s
        })
        .collect();
    Solution { blocks }
}

/// Inlet and outlet cells of `w` (interior state) whose normal Mach number is supersonic:
/// (supersonic inflow, supersonic outflow), as the CPU's `flow::boundary` branches decide.
fn supersonic_cells(p: &Pair, gas: &Gas, w: &CpuField) -> (usize, usize) {
    let (mut inflow, mut outflow) = (0, 0);
    for (bg, wb) in p.gc.blocks.iter().zip(&w.blocks) {
        let np = bg.layout.n_padded();
        for patch in &bg.boundaries {
            for cell in &patch.cells {
                let k = cell.interior[0];
                let q = primitive_from_conservative(gas.gamma, &[wb[k], wb[np + k], wb[2 * np + k], wb[3 * np + k]]);
                let (c, vn) = ((gas.gamma * q[3] / q[0]).sqrt(), q[1] * cell.normal[0] + q[2] * cell.normal[1]);
                match patch.kind {
                    PhysicalBc::Inlet if -vn > c => inflow += 1,
                    PhysicalBc::Outlet if vn >= c => outflow += 1,
                    _ => {}
                }
            }
        }
    }
    (inflow, outflow)
}

/// Fills the ghosts of `state` on both backends and returns the largest relative difference of
/// the whole fields.
fn compare(p: &Pair, gas: &Gas, data: &BoundaryData, state: &Solution) -> f64 {
    let mut wc = with_nan_ghosts(p, state);
    let mut wg = p.gpu.field_from_host(&p.gg, &wc).unwrap();
    p.cpu.apply_boundary_conditions(&p.gc, gas, data, &mut wc);
    p.gpu.apply_boundary_conditions(&p.gg, gas, data, &mut wg);
    assert!(wc.blocks.iter().flatten().all(|x| x.is_finite()), "the CPU fill left a ghost unfilled");
    relative_difference(&wc, &p.host(&wg))
}

#[test]
#[ignore = "needs a CUDA device"]
fn boundary_conditions_match_cpu_on_random_states() {
    let gas = common::unit_gas();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for (seed, no_slip_walls) in [(11, true), (12, false)] {
            let data = BoundaryData { no_slip_walls, ..boundary_data() };
            let diff = compare(&p, &gas, &data, &random_state(&mesh, &gas, seed));
            println!("{name}: random state, no-slip walls {no_slip_walls}: max relative difference {diff:.3e}");
            assert!(diff <= PARITY, "{name} (no-slip walls {no_slip_walls}): GPU ghost fill differs by {diff:e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn boundary_conditions_match_cpu_in_supersonic_flow() {
    let gas = common::unit_gas();
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let state = supersonic_state(&mesh, &gas, 21);
        let (inflow, outflow) = supersonic_cells(&p, &gas, &p.cpu.upload_state(&p.gc, &state).unwrap());
        assert!(inflow > 0 && outflow > 0, "{name}: the Mach 1.5 state must reach the supersonic branches ({inflow} inflow, {outflow} outflow cells)");
        for no_slip_walls in [true, false] {
            let data = BoundaryData { no_slip_walls, ..boundary_data() };
            let diff = compare(&p, &gas, &data, &state);
            println!("{name}: Mach 1.5, {inflow} supersonic inflow / {outflow} outflow cells, no-slip walls {no_slip_walls}: max relative difference {diff:.3e}");
            assert!(diff <= PARITY, "{name} (Mach 1.5, no-slip walls {no_slip_walls}): GPU ghost fill differs by {diff:e}");
        }
    }
}
