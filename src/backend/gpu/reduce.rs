//! Launch wrappers of `cuda/reduce.cu`: deterministic two-pass reductions (fixed grid, fixed
//! summation order), twins of `CpuBackend::residual_norms` and `CpuBackend::min_scalar`.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{gpu_err, Ctx, GpuGeometry, GpuNormLog};
use crate::backend::NVAR;
use crate::gpu::GpuDevice;
use crate::Result;

/// Blocks (and threads per block) of the first pass; `REDUCE_BLOCKS` in reduce.cu.
pub(super) const REDUCE_BLOCKS: usize = 256;

pub(super) struct Kernels {
    residual_square_partials: CudaFunction,
    residual_norms_finish: CudaFunction,
    min_partials: CudaFunction,
    min_finish: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("reduce")?;
        Ok(Kernels {
            residual_square_partials: m.function("residual_square_partials")?,
            residual_norms_finish: m.function("residual_norms_finish")?,
            min_partials: m.function("min_partials")?,
            min_finish: m.function("min_finish")?,
        })
    }
}

fn fixed(blocks: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (REDUCE_BLOCKS as u32, 1, 1), shared_mem_bytes: 0 }
}

/// RMS of `r / vol` per variable into slot `slot` of `log`; nothing is read back.
pub(super) fn residual_norms(k: &Kernels, cx: &Ctx, g: &GpuGeometry, r: &CudaSlice<f64>, log: &mut GpuNormLog, slot: usize) -> Result<()> {
    if slot >= log.capacity {
        return Err(crate::Error::Gpu(format!("norm log slot {slot} beyond its capacity {}", log.capacity)));
    }
    let nint = g.extent.nint;
    let mut out = log.slots.slice_mut(NVAR * slot..NVAR * (slot + 1));
    unsafe {
        cx.stream
            .launch_builder(&k.residual_square_partials)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(r)
            .arg(&g.volume)
            .arg(&mut log.partials)
            .launch(fixed(REDUCE_BLOCKS))
            .map_err(gpu_err)?;
        cx.stream.launch_builder(&k.residual_norms_finish).arg(&nint).arg(&log.partials).arg(&mut out).launch(fixed(1)).map_err(gpu_err)?;
    }
    cx.counters.launched(2);
    Ok(())
}

/// Smallest entry of `x` (read back: the global time step of time-accurate runs).
pub(super) fn min(k: &Kernels, cx: &Ctx, x: &CudaSlice<f64>) -> Result<f64> {
    let n = x.len() as i32;
    let mut partials = cx.stream.alloc_zeros::<f64>(REDUCE_BLOCKS).map_err(gpu_err)?;
    let mut out = cx.stream.alloc_zeros::<f64>(1).map_err(gpu_err)?;
    unsafe {
        cx.stream.launch_builder(&k.min_partials).arg(&n).arg(x).arg(&mut partials).launch(fixed(REDUCE_BLOCKS)).map_err(gpu_err)?;
        cx.stream.launch_builder(&k.min_finish).arg(&partials).arg(&mut out).launch(fixed(1)).map_err(gpu_err)?;
    }
    cx.counters.launched(2);
    Ok(cx.stream.clone_dtoh(&out).map_err(gpu_err)?[0])
}
