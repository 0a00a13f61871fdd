//! Launch wrapper of `cuda/viscous.cu`, twin of `backend/cpu/viscous.rs`. BEING WRITTEN.

use cudarc::driver::CudaSlice;

use super::{Ctx, GpuGeometry};
use crate::backend::SaSourceOptions;
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
pub(super) fn residual(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _gas: &Gas, _turbulent: bool, _sa: &SaSourceOptions, _w: &CudaSlice<f64>, _r: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("viscous_residual: kernel not written yet".into()))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn turbulence_source_factor(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _gas: &Gas, _sa: &SaSourceOptions, _w: &CudaSlice<f64>, _dt: &CudaSlice<f64>, _factor: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("turbulence_source_factor: kernel not written yet".into()))
}
