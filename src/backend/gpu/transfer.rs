//! Launch wrappers of `cuda/transfer.cu`, twins of `backend/cpu/transfer.rs`: multigrid
//! restriction (state, residual) and prolongation by injection, coarse meshes resident.

use cudarc::driver::{CudaFunction, CudaSlice, PushKernelArg};

use super::{grid, gpu_err, Ctx, GpuGeometry};
use crate::gpu::GpuDevice;
use crate::{Error, Result};

pub(super) struct Kernels {
    restrict_state: CudaFunction,
    restrict_residual: CudaFunction,
    prolong_correction: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("transfer")?;
        Ok(Kernels {
            restrict_state: m.function("restrict_state")?,
            restrict_residual: m.function("restrict_residual")?,
            prolong_correction: m.function("prolong_correction")?,
        })
    }
}

/// Block b of `coarse` must be block b of `fine` agglomerated 2 x 2.
fn check_pair(fine: &GpuGeometry, coarse: &GpuGeometry) -> Result<()> {
    let agglomerated = fine.table.len() == coarse.table.len()
        && fine.table.iter().zip(&coarse.table).all(|(f, c)| f.ni == 2 * c.ni && f.nj == 2 * c.nj);
    if agglomerated {
        Ok(())
    } else {
        Err(Error::Gpu("multigrid transfer between meshes that are not a 2 x 2 agglomeration of each other".into()))
    }
}

/// Coarse state = volume-weighted mean of its four fine cells.
pub(super) fn restrict_state(k: &Kernels, cx: &Ctx, fine: &GpuGeometry, coarse: &GpuGeometry, w_fine: &CudaSlice<f64>, w_coarse: &mut CudaSlice<f64>) -> Result<()> {
    check_pair(fine, coarse)?;
    unsafe {
        cx.stream
            .launch_builder(&k.restrict_state)
            .arg(&fine.blocks)
            .arg(&fine.extent)
            .arg(&coarse.blocks)
            .arg(&coarse.extent)
            .arg(&fine.volume)
            .arg(w_fine)
            .arg(w_coarse)
            .launch(grid(coarse.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// Coarse residual = sum of its four fine residuals.
pub(super) fn restrict_residual(k: &Kernels, cx: &Ctx, fine: &GpuGeometry, coarse: &GpuGeometry, r_fine: &CudaSlice<f64>, r_coarse: &mut CudaSlice<f64>) -> Result<()> {
    check_pair(fine, coarse)?;
    unsafe {
        cx.stream
            .launch_builder(&k.restrict_residual)
            .arg(&fine.blocks)
            .arg(&fine.extent)
            .arg(&coarse.blocks)
            .arg(&coarse.extent)
            .arg(r_fine)
            .arg(r_coarse)
            .launch(grid(coarse.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `w_fine += w_coarse - w_start` on the four fine cells of every coarse cell.
pub(super) fn prolong(k: &Kernels, cx: &Ctx, coarse: &GpuGeometry, fine: &GpuGeometry, w_coarse: &CudaSlice<f64>, w_start: &CudaSlice<f64>, w_fine: &mut CudaSlice<f64>) -> Result<()> {
    check_pair(fine, coarse)?;
    unsafe {
        cx.stream
            .launch_builder(&k.prolong_correction)
            .arg(&coarse.blocks)
            .arg(&coarse.extent)
            .arg(&fine.blocks)
            .arg(&fine.extent)
            .arg(w_coarse)
            .arg(w_start)
            .arg(w_fine)
            .launch(grid(fine.n_interior()))
    }
    .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}
