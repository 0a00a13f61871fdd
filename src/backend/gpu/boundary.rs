//! Launch wrapper of `cuda/boundary.cu`, twin of `backend/cpu/boundary.rs`. BEING WRITTEN.

use cudarc::driver::{CudaSlice, CudaStream};

use super::arena::BlockEntry;
use super::{Ctx, GpuGeometry};
use crate::backend::cpu::CpuGeometry;
use crate::backend::BoundaryData;
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::{Error, Result};

pub(super) struct Kernels {}

impl Kernels {
    pub fn load(_device: &GpuDevice) -> Result<Self> {
        Ok(Kernels {})
    }
}

/// Device tables of the ghost fill: physical boundary cells, interface donors, corner ghosts.
pub struct BoundaryTables {}

impl BoundaryTables {
    pub fn upload(_stream: &std::sync::Arc<CudaStream>, _host: &CpuGeometry, _table: &[BlockEntry]) -> Result<Self> {
        Ok(BoundaryTables {})
    }
}

pub(super) fn apply(_k: &Kernels, _cx: &Ctx, _g: &GpuGeometry, _gas: &Gas, _data: &BoundaryData, _w: &mut CudaSlice<f64>) -> Result<()> {
    Err(Error::Gpu("apply_boundary_conditions: kernel not written yet".into()))
}
