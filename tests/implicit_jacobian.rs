//! The assembled Jacobian against finite-difference directional derivatives of the first-order
//! residual it linearizes, on small curved meshes with walls, inlet/outlet, periodic and 1-to-1
//! interfaces.
//!
//! Exact parts (tested to 1e-6 relative): the `Exact` convective Jacobian everywhere; the
//! frozen-Roe Jacobian at a uniform state (where d|A_Roe|/dW (W_R - W_L) vanishes); wall
//! pressure flux; characteristic inlet/outlet chain rule; interface blocks; the time term.
//! Deliberate approximation (printed, not a target): the frozen-Roe and Rusanov Jacobians at a
//! non-uniform state.

mod common;

use rand::{Rng, SeedableRng};
use turbopt::backend::cpu::{CpuBackend, CpuField, CpuGeometry};
use turbopt::backend::{
    Backend, BoundaryData, ConvectiveJacobian, ConvectiveScheme, ImplicitBackend, JacobianOptions, Physics, Reconstruction, System, INTERMITTENCY, NFLOW,
};
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::flow::state::conservative_from_primitive;
use turbopt::mesh::simple::{wavy_channel, Sides};
use turbopt::mesh::{BoundaryKind, Mesh};

const FREE_STREAM: [f64; 4] = [1.0, 0.5, 0.1, 1.0 / 1.4];

fn boundary_data(gas: &Gas) -> BoundaryData {
    let op = common::operating_point_of(gas, FREE_STREAM);
    let a = op.alpha1_deg.to_radians();
    BoundaryData { p01: op.p01, t01: op.t01, inlet_direction: [a.cos(), a.sin()], p2: op.p2, inlet_nu_tilde: 0.0, no_slip_walls: false }
}

fn first_order() -> ConvectiveScheme {
    ConvectiveScheme { reconstruction: Reconstruction::FirstOrder, entropy_fix: 0.1, convect_nu_tilde: false, convect_intermittency: false, limiter_epsilon: [1e-12; 4] }
}

/// Free stream with a random relative perturbation of `amplitude` on every primitive variable.
fn state(mesh: &Mesh, gas: &Gas, amplitude: f64, rng: &mut rand::rngs::StdRng) -> Solution {
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![], rho_u: vec![], rho_v: vec![], rho_e: vec![], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
            for _ in 0..n {
                let mut q = FREE_STREAM;
                q[0] *= 1.0 + amplitude * rng.random_range(-1.0..1.0);
                q[1] += 0.5 * amplitude * rng.random_range(-1.0..1.0);
                q[2] += 0.5 * amplitude * rng.random_range(-1.0..1.0);
                q[3] *= 1.0 + amplitude * rng.random_range(-1.0..1.0);
                let w = conservative_from_primitive(gas.gamma, &q);
                s.rho.push(w[0]);
                s.rho_u.push(w[1]);
                s.rho_v.push(w[2]);
                s.rho_e.push(w[3]);
            }
            s
        })
        .collect();
    Solution { blocks }
}

/// A random direction in the mean-flow variables, scaled like the state (rho, rho c, rho E).
fn direction(backend: &CpuBackend, g: &CpuGeometry, rng: &mut rand::rngs::StdRng) -> CpuField {
    let mut v = backend.new_field(g);
    let scale = [1.0, 1.0, 1.0, 2.0];
    for (bg, vb) in g.blocks.iter().zip(&mut v.blocks) {
        let l = bg.layout;
        for j in 0..l.nj {
            for i in 0..l.ni {
                for var in 0..NFLOW {
                    vb[var * l.n_padded() + l.interior(i, j)] = scale[var] * rng.random_range(-1.0..1.0);
                }
            }
        }
    }
    v
}

/// First-order residual R(W) with filled ghosts.
fn residual(backend: &CpuBackend, g: &CpuGeometry, gas: &Gas, data: &BoundaryData, w: &CpuField) -> CpuField {
    let mut w = w.clone();
    backend.apply_boundary_conditions(g, gas, data, &mut w);
    let mut r = backend.new_field(g);
    backend.convective_residual(g, gas, &first_order(), &w, &mut r);
    r
}

/// The interior entries of the variables `vars` of a field, flattened (variable by variable).
fn interior(g: &CpuGeometry, f: &CpuField, vars: std::ops::Range<usize>) -> Vec<f64> {
    let mut out = Vec::new();
    for (bg, fb) in g.blocks.iter().zip(&f.blocks) {
        let l = bg.layout;
        for var in vars.clone() {
            for j in 0..l.nj {
                for i in 0..l.ni {
                    out.push(fb[var * l.n_padded() + l.interior(i, j)]);
                }
            }
        }
    }
    out
}

fn relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let diff: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt();
    diff / b.iter().map(|y| y * y).sum::<f64>().sqrt()
}

/// ||J v - FD|| / ||FD|| for the Jacobian of kind `kind` at `w`, with FD the central difference
/// (R(W + eps v) - R(W - eps v)) / (2 eps).
fn jacobian_error(mesh: &Mesh, kind: ConvectiveJacobian, amplitude: f64, seed: u64) -> f64 {
    let gas = common::unit_gas();
    let data = boundary_data(&gas);
    let backend = CpuBackend::new(Some(1)).unwrap();
    let g = backend.upload_geometry(mesh).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut w = backend.upload_state(&g, &state(mesh, &gas, amplitude, &mut rng)).unwrap();
    let v = direction(&backend, &g, &mut rng);

    backend.apply_boundary_conditions(&g, &gas, &data, &mut w);
    let mut jac = backend.new_jacobian(&g).unwrap();
    let options = JacobianOptions { convective: kind, entropy_fix: 0.1, physics: Physics::Euler, sa: Default::default() };
    backend.assemble_jacobian(&g, &gas, &data, &options, &w, None, &mut jac);
    let mut jv = backend.new_field(&g);
    backend.jacobian_product(&g, &jac, &v, &mut jv);

    let eps = 1e-6;
    let (mut wp, mut wm) = (w.clone(), w.clone());
    backend.axpy_field(eps, &v, &mut wp);
    backend.axpy_field(-eps, &v, &mut wm);
    let (rp, rm) = (interior(&g, &residual(&backend, &g, &gas, &data, &wp), 0..NFLOW), interior(&g, &residual(&backend, &g, &gas, &data, &wm), 0..NFLOW));
    let fd: Vec<f64> = rp.iter().zip(&rm).map(|(p, m)| (p - m) / (2.0 * eps)).collect();
    relative_difference(&interior(&g, &jv, 0..NFLOW), &fd)
}

/// Curved channel: inlet, outlet, slip walls at j = 0 and j = nj.
fn walled_channel() -> Mesh {
    wavy_channel(12, 8, 2.0, 1.0, 0.05, Sides::inviscid_channel()).unwrap()
}

/// Curved box with slip walls at i = 0 and i = ni, periodic in j.
fn periodic_box_with_walls() -> Mesh {
    wavy_channel(10, 8, 1.0, 1.0, 0.05, Sides::periodic_in_j(BoundaryKind::InviscidWall, BoundaryKind::InviscidWall, 1.0)).unwrap()
}

/// Two blocks with a 1-to-1 interface, periodic j-faces, inlet and outlet.
fn two_block_cascade() -> Mesh {
    common::distorted_channel(2, 6, 8, 2.0, 0.05)
}

#[test]
fn exact_convective_jacobian_matches_finite_differences() {
    for (name, mesh) in [("walled channel", walled_channel()), ("periodic box with walls", periodic_box_with_walls()), ("two-block cascade", two_block_cascade())] {
        for seed in 0..3 {
            let err = jacobian_error(&mesh, ConvectiveJacobian::Exact, 0.05, seed);
            println!("{name}, seed {seed}: exact Jacobian vs FD, relative difference {err:.2e}");
            assert!(err < 1e-6, "{name}: exact Jacobian differs from FD by {err:e}");
        }
    }
}

#[test]
fn frozen_roe_jacobian_is_exact_at_a_uniform_state() {
    for (name, mesh) in [("walled channel", walled_channel()), ("periodic box with walls", periodic_box_with_walls()), ("two-block cascade", two_block_cascade())] {
        let err = jacobian_error(&mesh, ConvectiveJacobian::FrozenRoe, 0.0, 7);
        println!("{name}: frozen-Roe Jacobian at the free stream vs FD, relative difference {err:.2e}");
        assert!(err < 1e-6, "{name}: frozen-Roe Jacobian differs from FD by {err:e} at a uniform state");
    }
}

#[test]
fn approximate_jacobians_at_a_perturbed_state() {
    let mesh = two_block_cascade();
    let exact = jacobian_error(&mesh, ConvectiveJacobian::Exact, 0.05, 11);
    let frozen = jacobian_error(&mesh, ConvectiveJacobian::FrozenRoe, 0.05, 11);
    let rusanov = jacobian_error(&mesh, ConvectiveJacobian::Rusanov, 0.05, 11);
    println!("5 % perturbed state: relative difference to FD: exact {exact:.2e}, frozen Roe {frozen:.2e}, Rusanov {rusanov:.2e}");
    assert!(exact < 1e-6);
    // The dropped d|A|/dW (W_R - W_L) term is first order in the 5 % jumps: visible, not dominant.
    assert!(frozen > 1e-4 && frozen < 0.5, "frozen Roe relative difference {frozen:e}");
    // Rusanov replaces |A_Roe| by lambda_max I: a different dissipation, a coarser approximation.
    assert!(rusanov > frozen, "Rusanov ({rusanov:e}) should approximate the Roe residual worse than frozen Roe ({frozen:e})");
}

#[test]
fn time_term_adds_volume_over_dt_to_the_diagonal() {
    let mesh = walled_channel();
    let gas = common::unit_gas();
    let data = boundary_data(&gas);
    let backend = CpuBackend::new(Some(1)).unwrap();
    let g = backend.upload_geometry(&mesh).unwrap();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let mut w = backend.upload_state(&g, &state(&mesh, &gas, 0.05, &mut rng)).unwrap();
    backend.apply_boundary_conditions(&g, &gas, &data, &mut w);
    let v = direction(&backend, &g, &mut rng);
    let mut dt = backend.new_scalars(&g);
    backend.local_time_step(&g, &gas, Physics::Euler, 50.0, &w, &mut dt);
    let options = JacobianOptions { convective: ConvectiveJacobian::FrozenRoe, entropy_fix: 0.1, physics: Physics::Euler, sa: Default::default() };
    let mut jac = backend.new_jacobian(&g).unwrap();
    let (mut jv, mut av) = (backend.new_field(&g), backend.new_field(&g));
    backend.assemble_jacobian(&g, &gas, &data, &options, &w, None, &mut jac);
    backend.jacobian_product(&g, &jac, &v, &mut jv);
    backend.assemble_jacobian(&g, &gas, &data, &options, &w, Some(&dt), &mut jac);
    backend.jacobian_product(&g, &jac, &v, &mut av);
    let l = g.blocks[0].layout;
    let mut worst: f64 = 0.0;
    for j in 0..l.nj {
        for i in 0..l.ni {
            let c = i + l.ni * j;
            let factor = g.blocks[0].volume[c] / dt.blocks[0][c];
            for var in 0..NFLOW {
                let p = var * l.n_padded() + l.interior(i, j);
                let expected = jv.blocks[0][p] + factor * v.blocks[0][p];
                worst = common::max_or_nan(worst, (av.blocks[0][p] - expected).abs() / expected.abs().max(1e-12));
            }
        }
    }
    assert!(worst < 1e-12, "time term off by {worst:e}");
}

/// The segregated SA matrix against finite differences of the whole SA residual (first-order
/// upwind convection, diffusion, source) in a rho nu~ direction, at a uniform mean flow with a
/// nearly inviscid gas and nu~ ~ 1e-9: diffusion, source and the cb2 term are then negligible,
/// and the upwind convection at frozen mass flux, inlet (fixed nu~) and outlet (copied nu~)
/// included, must be exact.
#[test]
fn sa_convection_jacobian_is_exact_at_frozen_mean_flow() {
    let gas = Gas { mu_ref: 1e-14, ..common::unit_gas() };
    let data = BoundaryData { inlet_nu_tilde: 1e-9, ..boundary_data(&gas) };
    let scheme = ConvectiveScheme { convect_nu_tilde: true, ..first_order() };
    for (name, mesh) in [("walled channel", walled_channel()), ("two-block cascade", two_block_cascade())] {
        let backend = CpuBackend::new(Some(1)).unwrap();
        let g = backend.upload_geometry(&mesh).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let mut solution = state(&mesh, &gas, 0.0, &mut rng);
        for b in &mut solution.blocks {
            b.nu_tilde.iter_mut().for_each(|n| *n = 1e-9 * (1.0 + 0.5 * rng.random_range(-1.0..1.0)));
        }
        let mut w = backend.upload_state(&g, &solution).unwrap();
        backend.apply_boundary_conditions(&g, &gas, &data, &mut w);
        let options = JacobianOptions { convective: ConvectiveJacobian::FrozenRoe, entropy_fix: 0.1, physics: Physics::SpalartAllmaras, sa: Default::default() };
        let err = segregated_jacobian_error(&backend, &g, &gas, &data, &scheme, &options, &w, System::Turbulence, 1e-9, &mut rng);
        println!("{name}: SA convection Jacobian vs FD, relative difference {err:.2e}");
        assert!(err < 1e-6, "{name}: SA Jacobian differs from FD by {err:e}");
    }
}

/// The segregated intermittency system of SA-gamma at frozen mean flow and nu~ must be exact
/// where its parts are: the convection (first-order upwind with the face mass flux, the cells'
/// own rho gamma), with a viscosity so small that diffusion vanishes, and the source at
/// gamma = 1, where its derivative -F_length rho S F_onset is stabilizing and enters the
/// diagonal whole (slip walls shear the wall cells, so the source is not zero there).
#[test]
fn intermittency_convection_jacobian_is_exact_at_frozen_mean_flow() {
    let gas = Gas { mu_ref: 1e-14, ..common::unit_gas() };
    let data = BoundaryData { inlet_nu_tilde: 1e-9, ..boundary_data(&gas) };
    let scheme = ConvectiveScheme { convect_nu_tilde: true, convect_intermittency: true, ..first_order() };
    let sa = turbopt::backend::SaSourceOptions { intermittency_tu: Some(0.01), ..Default::default() };
    for (name, mesh) in [("walled channel", walled_channel()), ("two-block cascade", two_block_cascade())] {
        let backend = CpuBackend::new(Some(1)).unwrap();
        let g = backend.upload_geometry(&mesh).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut solution = state(&mesh, &gas, 0.0, &mut rng);
        for b in &mut solution.blocks {
            b.nu_tilde.iter_mut().for_each(|n| *n = 1e-9 * (1.0 + 0.5 * rng.random_range(-1.0..1.0)));
            b.intermittency = vec![1.0; b.n_cells()];
        }
        let mut w = backend.upload_state(&g, &solution).unwrap();
        backend.apply_boundary_conditions(&g, &gas, &data, &mut w);
        let options = JacobianOptions { convective: ConvectiveJacobian::FrozenRoe, entropy_fix: 0.1, physics: Physics::SaGamma, sa };
        let err = segregated_jacobian_error(&backend, &g, &gas, &data, &scheme, &options, &w, System::Intermittency, 1e-3, &mut rng);
        println!("{name}: intermittency convection Jacobian vs FD, relative difference {err:.2e}");
        assert!(err < 1e-6, "{name}: intermittency Jacobian differs from FD by {err:e}");
    }
}

/// The product of the segregated scalar `system` (rho nu~ or rho gamma), assembled by `options`
/// at `w` (ghosts filled), with a random direction of its variable only (entries up to
/// `amplitude`), against central differences of the residual's component of that variable: the
/// largest relative difference.
#[allow(clippy::too_many_arguments)]
fn segregated_jacobian_error(
    backend: &CpuBackend,
    g: &CpuGeometry,
    gas: &Gas,
    data: &BoundaryData,
    scheme: &ConvectiveScheme,
    options: &JacobianOptions,
    w: &CpuField,
    system: System,
    amplitude: f64,
    rng: &mut rand::rngs::StdRng,
) -> f64 {
    let slot = if system == System::Intermittency { INTERMITTENCY } else { NFLOW };
    let mut v = backend.new_field(g);
    for (bg, vb) in g.blocks.iter().zip(&mut v.blocks) {
        let l = bg.layout;
        for j in 0..l.nj {
            for i in 0..l.ni {
                vb[slot * l.n_padded() + l.interior(i, j)] = amplitude * rng.random_range(-1.0..1.0);
            }
        }
    }
    let mut jac = backend.new_jacobian(g).unwrap();
    backend.assemble_jacobian(g, gas, data, options, w, None, &mut jac);
    assert!(backend.is_assembled(&jac, system), "{system:?} not assembled");
    let mut jv = backend.new_field(g);
    backend.jacobian_product(g, &jac, &v, &mut jv);
    let residual = |w: &CpuField| {
        let mut w = w.clone();
        backend.apply_boundary_conditions(g, gas, data, &mut w);
        let mut r = backend.new_field(g);
        backend.convective_residual(g, gas, scheme, &w, &mut r);
        backend.viscous_residual(g, gas, options.physics, &options.sa, &w, &mut r);
        interior(g, &r, slot..slot + 1)
    };
    let eps = 1e-3;
    let (mut wp, mut wm) = (w.clone(), w.clone());
    backend.axpy_field(eps, &v, &mut wp);
    backend.axpy_field(-eps, &v, &mut wm);
    let fd: Vec<f64> = residual(&wp).iter().zip(residual(&wm)).map(|(p, m)| (p - m) / (2.0 * eps)).collect();
    relative_difference(&interior(g, &jv, slot..slot + 1), &fd)
}
