//! Launch wrapper of `cuda/viscous.cu`, twin of `backend/cpu/viscous.rs`: cell quantities,
//! node values, face fluxes (i and j in one launch) and a gather per interior cell, four
//! launches for the viscous residual of the whole mesh; cell quantities and a per-cell kernel
//! for the SA point-implicit factor.

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::{grid, gpu_err, Ctx, GasArgs, GpuGeometry};
use crate::backend::{Physics, SaSourceOptions};
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::Result;

pub(super) struct Kernels {
    cell_states: CudaFunction,
    node_values: CudaFunction,
    face_fluxes: CudaFunction,
    gather: CudaFunction,
    source_factor: CudaFunction,
    source_derivative: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("viscous")?;
        Ok(Kernels {
            cell_states: m.function("viscous_cell_states")?,
            node_values: m.function("viscous_node_values")?,
            face_fluxes: m.function("viscous_face_fluxes")?,
            gather: m.function("viscous_gather")?,
            source_factor: m.function("source_factor")?,
            source_derivative: m.function("sa_source_derivative")?,
        })
    }
}

/// Fills `cells` (9 x np) with rho, u, v, p, T, nu_tilde, mu, mu_t, gamma of every padded cell
/// (nu_tilde and mu_t zero, gamma 1 unless `turbulent`).
fn cell_states(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gas: &GasArgs, turbulent: bool, w: &CudaSlice<f64>, cells: &mut CudaSlice<f64>) -> Result<()> {
    let e = g.extent;
    let turbulent = turbulent as i32;
    unsafe { cx.stream.launch_builder(&k.cell_states).arg(&e).arg(gas).arg(&turbulent).arg(w).arg(cells).launch(grid(g.n_padded())) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// SA-BCM's onset Re_theta_c as the kernels take it: 0 for fully turbulent SA.
fn bcm_onset(sa: &SaSourceOptions) -> f64 {
    sa.bcm_onset.unwrap_or(0.0)
}

/// SA-gamma's free-stream turbulence intensity as the kernels take it: 0 without the
/// intermittency equation.
fn intermittency_tu(physics: Physics, sa: &SaSourceOptions) -> f64 {
    physics.intermittency_tu(sa).unwrap_or(0.0)
}

/// Adds the viscous residual of `w` to `r` (thesis 4.2.2, eq. 4.14; with SA the diffusion and
/// source of rho nu_tilde, with SA-gamma those of rho gamma): interior cells only, the variables
/// `physics` marches.
#[allow(clippy::too_many_arguments)]
pub(super) fn residual(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &CudaSlice<f64>, r: &mut CudaSlice<f64>) -> Result<()> {
    let gas = GasArgs::from(gas);
    let e = g.extent;
    let turbulent = physics.is_turbulent();
    let (on, with_ft2, bcm_onset, tu) = (turbulent as i32, sa.with_ft2 as i32, bcm_onset(sa), intermittency_tu(physics, sa));
    let mut work = g.workspace();
    let ws = &mut *work;
    let (cells, nodes, fi, fj) = (&mut ws.viscous_cells, &mut ws.node_values, &mut ws.flux_i, &mut ws.flux_j);
    cell_states(k, cx, g, &gas, turbulent, w, cells)?;
    let faces = (e.nfi + e.nfj) as usize;
    unsafe {
        cx.stream.launch_builder(&k.node_values).arg(&g.blocks).arg(&e).arg(&tu).arg(&*cells).arg(&mut *nodes).launch(grid(e.nnodes as usize)).map_err(gpu_err)?;
        cx.stream
            .launch_builder(&k.face_fluxes)
            .arg(&g.blocks)
            .arg(&e)
            .arg(&gas)
            .arg(&on)
            .arg(&tu)
            .arg(&*cells)
            .arg(&*nodes)
            .arg(&g.centre_padded)
            .arg(&g.nodes)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.diamond_lift_i)
            .arg(&g.diamond_lift_j)
            .arg(&mut *fi)
            .arg(&mut *fj)
            .launch(grid(faces))
            .map_err(gpu_err)?;
        cx.stream
            .launch_builder(&k.gather)
            .arg(&g.blocks)
            .arg(&e)
            .arg(&on)
            .arg(&with_ft2)
            .arg(&bcm_onset)
            .arg(&tu)
            .arg(&*cells)
            .arg(&*fi)
            .arg(&*fj)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.volume)
            .arg(&g.wall_distance)
            .arg(&g.wall_normal)
            .arg(r)
            .launch(grid(g.n_interior()))
            .map_err(gpu_err)?;
    }
    cx.counters.launched(3);
    Ok(())
}

/// `factor` = 1/(1 + dt max(0, -dQ/d(rho s))) per interior cell, Q the SA source per unit
/// volume of `w` (coupled to the intermittency with SA-gamma) or, with `gamma_equation`, the
/// intermittency source (Blazek sec. 12.6.3).
#[allow(clippy::too_many_arguments)]
pub(super) fn source_factor(
    k: &Kernels,
    cx: &Ctx,
    g: &GpuGeometry,
    gas: &Gas,
    sa: &SaSourceOptions,
    gamma_equation: bool,
    w: &CudaSlice<f64>,
    dt: &CudaSlice<f64>,
    factor: &mut CudaSlice<f64>,
) -> Result<()> {
    let gas = GasArgs::from(gas);
    let e = g.extent;
    // sa.intermittency_tu is set for SA-gamma only.
    let (with_ft2, bcm_onset, tu, gamma_equation) = (sa.with_ft2 as i32, bcm_onset(sa), sa.intermittency_tu.unwrap_or(0.0), gamma_equation as i32);
    let mut work = g.workspace();
    let cells = &mut work.viscous_cells;
    cell_states(k, cx, g, &gas, true, w, cells)?;
    unsafe {
        cx.stream
            .launch_builder(&k.source_factor)
            .arg(&g.blocks)
            .arg(&e)
            .arg(&with_ft2)
            .arg(&bcm_onset)
            .arg(&tu)
            .arg(&gamma_equation)
            .arg(&*cells)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.volume)
            .arg(&g.wall_distance)
            .arg(&g.wall_normal)
            .arg(dt)
            .arg(factor)
            .launch(grid(g.n_interior()))
            .map_err(gpu_err)?;
    }
    cx.counters.launched(1);
    Ok(())
}

/// dQ/d(rho nu~) per interior cell, Q the SA source per unit volume of `w`, into `out`, and with
/// SA-gamma dQ_gamma/d(rho gamma) into `gamma_out` (`source_derivatives` of the CPU): the source
/// parts of the segregated SA and intermittency Jacobians.
#[allow(clippy::too_many_arguments)]
pub(super) fn source_derivative(
    k: &Kernels,
    cx: &Ctx,
    g: &GpuGeometry,
    gas: &Gas,
    physics: Physics,
    sa: &SaSourceOptions,
    w: &CudaSlice<f64>,
    out: &mut CudaSlice<f64>,
    gamma_out: &mut CudaSlice<f64>,
) -> Result<()> {
    let gas = GasArgs::from(gas);
    let (with_ft2, bcm_onset, tu) = (sa.with_ft2 as i32, bcm_onset(sa), intermittency_tu(physics, sa));
    let mut work = g.workspace();
    let cells = &mut work.viscous_cells;
    cell_states(k, cx, g, &gas, true, w, cells)?;
    unsafe {
        cx.stream
            .launch_builder(&k.source_derivative)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(&with_ft2)
            .arg(&bcm_onset)
            .arg(&tu)
            .arg(&*cells)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.volume)
            .arg(&g.wall_distance)
            .arg(&g.wall_normal)
            .arg(out)
            .arg(gamma_out)
            .launch(grid(g.n_interior()))
            .map_err(gpu_err)?;
    }
    cx.counters.launched(1);
    Ok(())
}
