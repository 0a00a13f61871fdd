//! Parity of the time-step kernels (cuda/timestep.cu): the local time step and the per-cell
//! smoothing coefficients, for Euler, laminar and Spalart-Allmaras physics.

use super::*;
use turbopt::backend::gpu::{GpuField, GpuScalars};
use turbopt::backend::Physics;

const PHYSICS: [Physics; 3] = [Physics::Euler, Physics::Laminar, Physics::SpalartAllmaras];

/// A non-dimensional gas (R = 1) at a low Reynolds number: on the parity states (rho, p, |v| of
/// order 1) and meshes (cells about 1/16 wide) the viscous radii are a sizeable share of the
/// convective ones, and the eddy viscosity of nu~ in [1e-4, 1e-2] goes from negligible to several
/// laminar viscosities (chi = nu~/nu from about 0.05 to 10).
fn low_reynolds_gas() -> Gas {
    Gas { gas_constant: 1.0, mu_ref: 2e-3, t_ref: 1.0, sutherland_s: 0.4, ..Gas::default() }
}

/// The parity state rescaled to air at about 1 bar and 290 K (`Gas::default()`): density x 1.2,
/// pressure x 1e5, velocities x sqrt(1e5 / 1.2) (Mach numbers kept), nu~ x 1e-3.
fn air_like_state(mesh: &Mesh, seed: u64) -> Solution {
    let (rho_scale, p_scale) = (1.2, 1e5);
    let velocity_scale: f64 = (p_scale / rho_scale as f64).sqrt();
    let mut s = random_state(mesh, &Gas::default(), seed);
    for b in &mut s.blocks {
        b.rho.iter_mut().for_each(|x| *x *= rho_scale);
        b.rho_u.iter_mut().chain(b.rho_v.iter_mut()).for_each(|x| *x *= rho_scale * velocity_scale);
        b.rho_e.iter_mut().for_each(|x| *x *= p_scale);
        b.nu_tilde.iter_mut().for_each(|x| *x *= 1e-3);
    }
    s
}

/// The gases and states compared: (label, gas, state).
fn cases(mesh: &Mesh, seed: u64) -> Vec<(&'static str, Gas, Solution)> {
    let low_re = low_reynolds_gas();
    vec![("low-Reynolds unit gas", low_re, random_state(mesh, &low_re, seed)), ("air", Gas::default(), air_like_state(mesh, seed + 1000))]
}

fn scalars_host(p: &Pair, s: &GpuScalars) -> CpuScalars {
    p.gpu.check().unwrap();
    p.gpu.scalars_to_host(&p.gg, s).unwrap()
}

fn time_steps(p: &Pair, gas: &Gas, physics: Physics, cfl: f64, wc: &CpuField, wg: &GpuField) -> (CpuScalars, CpuScalars) {
    let (mut dc, mut dg) = (p.cpu.new_scalars(&p.gc), p.gpu.new_scalars(&p.gg));
    p.gpu.fill_scalars(&mut dg, f64::NAN); // every interior cell must be written
    p.cpu.local_time_step(&p.gc, gas, physics, cfl, wc, &mut dc);
    p.gpu.local_time_step(&p.gg, gas, physics, cfl, wg, &mut dg);
    (dc, scalars_host(p, &dg))
}

#[test]
#[ignore = "needs a CUDA device"]
fn local_time_step_matches_cpu_on_random_states() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for (label, gas, state) in cases(&mesh, 31) {
            // Interior cells are all the kernels read: no ghosts needed.
            let wc = p.cpu.upload_state(&p.gc, &state).unwrap();
            let wg = p.gpu.upload_state(&p.gg, &state).unwrap();
            for physics in PHYSICS {
                for cfl in [0.8, 3.5] {
                    let (dc, dg) = time_steps(&p, &gas, physics, cfl, &wc, &wg);
                    let diff = relative_difference_scalars(&dc, &dg);
                    println!("{name}, {label}: {physics:?}, CFL {cfl}: local time step differs by {diff:.3e}");
                    assert!(diff <= PARITY, "{name}, {label}: {physics:?} CFL {cfl}: GPU time step differs by {diff:e}");
                }
            }
        }
    }
}

/// The comparison above only covers the viscous radii and the eddy viscosity if they change the
/// time step: on the low-Reynolds gas by percents, so that a kernel that dropped or garbled them
/// would be far outside the parity tolerance. A property of the test data: CPU only, no device.
#[test]
fn viscous_and_eddy_viscosity_radii_shape_the_compared_time_steps() {
    let gas = low_reynolds_gas();
    let cpu = CpuBackend::new(Some(1)).unwrap();
    for (name, mesh) in meshes() {
        let g = cpu.upload_geometry(&mesh).unwrap();
        let w = cpu.upload_state(&g, &random_state(&mesh, &gas, 31)).unwrap();
        let [euler, laminar, sa] = PHYSICS.map(|physics| {
            let mut dt = cpu.new_scalars(&g);
            cpu.local_time_step(&g, &gas, physics, 1.0, &w, &mut dt);
            dt
        });
        let (viscous_share, eddy_share) = (relative_difference_scalars(&euler, &laminar), relative_difference_scalars(&laminar, &sa));
        println!("{name}: time step, Euler vs laminar {viscous_share:.3e}, laminar vs SA {eddy_share:.3e}");
        assert!(viscous_share > 1e-2, "{name}: viscous radii change the time step by only {viscous_share:e}");
        assert!(eddy_share > 1e-3, "{name}: the eddy viscosity changes the time step by only {eddy_share:e}");
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn smoothing_coefficients_match_cpu_on_random_states() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for (label, gas, state) in cases(&mesh, 41) {
            let wc = p.cpu.upload_state(&p.gc, &state).unwrap();
            let wg = p.gpu.upload_state(&p.gg, &state).unwrap();
            for physics in PHYSICS {
                // (cfl_ratio, C): the thesis' C = 5/4, another pair, and a negative C whose
                // coefficients are all clipped to zero.
                for (cfl_ratio, c) in [(2.0, 1.25), (3.7, 0.6), (2.0, -1.0)] {
                    let mut ec = [p.cpu.new_scalars(&p.gc), p.cpu.new_scalars(&p.gc)];
                    let mut eg = [p.gpu.new_scalars(&p.gg), p.gpu.new_scalars(&p.gg)];
                    eg.iter_mut().for_each(|e| p.gpu.fill_scalars(e, f64::NAN));
                    p.cpu.smoothing_coefficients(&p.gc, &gas, physics, cfl_ratio, c, &wc, &mut ec);
                    p.gpu.smoothing_coefficients(&p.gg, &gas, physics, cfl_ratio, c, &wg, &mut eg);
                    for (d, direction) in ["i", "j"].into_iter().enumerate() {
                        let diff = relative_difference_scalars(&ec[d], &scalars_host(&p, &eg[d]));
                        println!("{name}, {label}: {physics:?}, cfl_ratio {cfl_ratio}, C {c}: eps_{direction} differs by {diff:.3e}");
                        assert!(diff <= PARITY, "{name}, {label}: {physics:?} ({cfl_ratio}, {c}): GPU eps_{direction} differs by {diff:e}");
                    }
                }
            }
        }
    }
}
