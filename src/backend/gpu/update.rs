//! Launch wrappers of `cuda/update.cu`: the Runge-Kutta stage update and the element-wise field
//! and scalar operations, twins of the `CpuBackend` methods of the same names.

use cudarc::driver::{CudaFunction, CudaSlice, CudaView, PushKernelArg};

use super::{grid, gpu_err, Ctx, GpuGeometry};
use crate::gpu::GpuDevice;
use crate::Result;

pub(super) struct Kernels {
    fill: CudaFunction,
    axpy: CudaFunction,
    limited_axpy: CudaFunction,
    rk_stage_update: CudaFunction,
    add_time_term: CudaFunction,
    scale_turbulence_residual: CudaFunction,
    bound_intermittency: CudaFunction,
    scale: CudaFunction,
    divide: CudaFunction,
    normalize_by: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("update")?;
        Ok(Kernels {
            fill: m.function("fill")?,
            axpy: m.function("axpy")?,
            limited_axpy: m.function("limited_axpy")?,
            rk_stage_update: m.function("rk_stage_update")?,
            add_time_term: m.function("add_time_term")?,
            scale_turbulence_residual: m.function("scale_turbulence_residual")?,
            bound_intermittency: m.function("bound_intermittency")?,
            scale: m.function("scale")?,
            divide: m.function("divide")?,
            normalize_by: m.function("normalize_by")?,
        })
    }
}

/// Every entry of `x` set to `value`.
pub(super) fn fill(k: &Kernels, cx: &Ctx, x: &mut CudaSlice<f64>, value: f64) -> Result<()> {
    let n = x.len() as i32;
    unsafe { cx.stream.launch_builder(&k.fill).arg(&n).arg(&value).arg(x).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `y += a x` on every entry.
pub(super) fn axpy(k: &Kernels, cx: &Ctx, a: f64, x: &CudaSlice<f64>, y: &mut CudaSlice<f64>) -> Result<()> {
    let n = y.len().min(x.len()) as i32;
    unsafe { cx.stream.launch_builder(&k.axpy).arg(&n).arg(&a).arg(x).arg(y).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `y += lambda x` with the factor of a limited stage update (`update_relaxation` of
/// src/backend/implicit.rs) computed on the device from `change`, a reduction's result there.
pub(super) fn limited_axpy(k: &Kernels, cx: &Ctx, limit: f64, change: &CudaSlice<f64>, x: &CudaSlice<f64>, y: &mut CudaSlice<f64>) -> Result<()> {
    let n = y.len().min(x.len()) as i32;
    unsafe { cx.stream.launch_builder(&k.limited_axpy).arg(&n).arg(&limit).arg(change).arg(x).arg(y).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `w = w0 - alpha dt / vol r` on interior cells, first `nvar` variables (thesis eq. 4.8).
#[allow(clippy::too_many_arguments)]
pub(super) fn rk_stage(k: &Kernels, cx: &Ctx, g: &GpuGeometry, nvar: usize, alpha: f64, w0: &CudaSlice<f64>, r: &CudaSlice<f64>, dt: &CudaSlice<f64>, w: &mut CudaSlice<f64>) -> Result<()> {
    let nvar = nvar as i32;
    unsafe {
        cx.stream
            .launch_builder(&k.rk_stage_update)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(&nvar)
            .arg(&alpha)
            .arg(w0)
            .arg(r)
            .arg(dt)
            .arg(&g.volume)
            .arg(w)
            .launch(grid(g.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `y += scale vol / dt x` on interior cells' mean-flow variables (`ImplicitBackend::add_time_term`).
#[allow(clippy::too_many_arguments)]
pub(super) fn time_term(k: &Kernels, cx: &Ctx, g: &GpuGeometry, scale: f64, dt: &CudaSlice<f64>, x: &CudaSlice<f64>, y: &mut CudaSlice<f64>) -> Result<()> {
    unsafe { cx.stream.launch_builder(&k.add_time_term).arg(&g.blocks).arg(&g.extent).arg(&scale).arg(dt).arg(&g.volume).arg(x).arg(y).launch(grid(g.n_interior())) }
        .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// rho gamma of every interior cell clamped to [0, rho] (`Backend::bound_intermittency`).
pub(super) fn bound_intermittency(k: &Kernels, cx: &Ctx, g: &GpuGeometry, w: &mut CudaSlice<f64>) -> Result<()> {
    unsafe { cx.stream.launch_builder(&k.bound_intermittency).arg(&g.blocks).arg(&g.extent).arg(w).launch(grid(g.n_interior())) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// The residual of variable `slot` (rho nu~ or rho gamma) of every interior cell times its
/// point-implicit factor.
pub(super) fn scale_turbulence_residual(k: &Kernels, cx: &Ctx, g: &GpuGeometry, slot: usize, factor: &CudaSlice<f64>, r: &mut CudaSlice<f64>) -> Result<()> {
    let slot = slot as i32;
    unsafe { cx.stream.launch_builder(&k.scale_turbulence_residual).arg(&g.blocks).arg(&g.extent).arg(&slot).arg(factor).arg(r).launch(grid(g.n_interior())) }
        .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `x *= a` on every entry.
pub(super) fn scale(k: &Kernels, cx: &Ctx, a: f64, x: &mut CudaSlice<f64>) -> Result<()> {
    let n = x.len() as i32;
    unsafe { cx.stream.launch_builder(&k.scale).arg(&n).arg(&a).arg(x).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `x /= d` on every entry (a true division).
pub(super) fn divide(k: &Kernels, cx: &Ctx, d: f64, x: &mut CudaSlice<f64>) -> Result<()> {
    let n = x.len() as i32;
    unsafe { cx.stream.launch_builder(&k.divide).arg(&n).arg(&d).arg(x).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `x *= 1/c` when `c > 0`, `c` (one value) on the device.
pub(super) fn normalize_by(k: &Kernels, cx: &Ctx, c: &CudaView<f64>, x: &mut CudaSlice<f64>) -> Result<()> {
    let n = x.len() as i32;
    unsafe { cx.stream.launch_builder(&k.normalize_by).arg(&n).arg(c).arg(x).launch(grid(n as usize)) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}
