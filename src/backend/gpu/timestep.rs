//! Launch wrappers of `cuda/timestep.cu`, twin of `CpuBackend::local_time_step` and
//! `CpuBackend::smoothing_coefficients`: the local time step and the implicit-residual-smoothing
//! coefficients from the spectral radii per grid direction (Blazek 2005, p. 188-189; thesis
//! eq. 4.16), one thread per interior cell, one launch for the whole mesh.

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::{grid, gpu_err, Ctx, GasArgs, GpuGeometry};
use crate::backend::Physics;
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::Result;

pub(super) struct Kernels {
    local_time_step: CudaFunction,
    smoothing_coefficients: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("timestep")?;
        Ok(Kernels { local_time_step: m.function("local_time_step")?, smoothing_coefficients: m.function("smoothing_coefficients")? })
    }
}

/// The physics as the kernels take it: (viscous radii, eddy viscosity in them), 0 or 1.
fn physics_flags(physics: Physics) -> (i32, i32) {
    (physics.is_viscous() as i32, physics.is_turbulent() as i32)
}

/// `dt` = local time step of every interior cell for the Courant number `cfl` (Blazek p. 188-189).
#[allow(clippy::too_many_arguments)]
pub(super) fn local_time_step(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gas: &Gas, physics: Physics, cfl: f64, w: &CudaSlice<f64>, dt: &mut CudaSlice<f64>) -> Result<()> {
    let gas_args = GasArgs::from(gas);
    let (viscous, turbulent) = physics_flags(physics);
    unsafe {
        cx.stream
            .launch_builder(&k.local_time_step)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(&gas_args)
            .arg(&viscous)
            .arg(&turbulent)
            .arg(&cfl)
            .arg(w)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.volume)
            .arg(dt)
            .launch(grid(g.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `eps_i`, `eps_j` = per-cell smoothing coefficients (thesis eq. 4.16) for the CFL ratio
/// `cfl_ratio` = sigma/sigma* and the constant `c`.
#[allow(clippy::too_many_arguments)]
pub(super) fn smoothing_coefficients(
    k: &Kernels,
    cx: &Ctx,
    g: &GpuGeometry,
    gas: &Gas,
    physics: Physics,
    cfl_ratio: f64,
    c: f64,
    w: &CudaSlice<f64>,
    eps_i: &mut CudaSlice<f64>,
    eps_j: &mut CudaSlice<f64>,
) -> Result<()> {
    let gas_args = GasArgs::from(gas);
    let (viscous, turbulent) = physics_flags(physics);
    unsafe {
        cx.stream
            .launch_builder(&k.smoothing_coefficients)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(&gas_args)
            .arg(&viscous)
            .arg(&turbulent)
            .arg(&cfl_ratio)
            .arg(&c)
            .arg(w)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.volume)
            .arg(eps_i)
            .arg(eps_j)
            .launch(grid(g.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}
