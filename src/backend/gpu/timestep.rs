//! Launch wrapper of `cuda/timestep.cu`. BEING WRITTEN.

use cudarc::driver::CudaSlice;

use super::{Ctx, GpuGeometry};
use crate::backend::Physics;
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::{Error, Result};

pub(super) struct Kernels {}

impl Kernels {
    pub fn load(_device: &GpuDevice) -> Result<Self> {
        Ok(Kernels {})
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn local_time_step(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _gas: &Gas, _physics: Physics, _cfl: f64, _w: &CudaSlice<f64>, _dt: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("local_time_step: kernel not written yet".into()))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn smoothing_coefficients(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _gas: &Gas, _physics: Physics, _cfl_ratio: f64, _c: f64, _w: &CudaSlice<f64>, _eps_i: &mut CudaSlice<f64>, _eps_j: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("smoothing_coefficients: kernel not written yet".into()))
}
