//! Launch wrapper of `cuda/smoothing.cu`. BEING WRITTEN.

use cudarc::driver::CudaSlice;

use super::{Ctx, GpuGeometry};
use crate::gpu::GpuDevice;
use crate::{Error, Result};

pub(super) struct Kernels {}

impl Kernels {
    pub fn load(_device: &GpuDevice) -> Result<Self> {
        Ok(Kernels {})
    }
}

pub(super) fn smooth_constant(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _nvar: usize, _epsilon: [f64; 2], _r: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("smooth_residual: kernel not written yet".into()))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn smooth_variable(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _nvar: usize, _eps_i: &CudaSlice<f64>, _eps_j: &CudaSlice<f64>, _r: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("smooth_residual_variable: kernel not written yet".into()))
}
