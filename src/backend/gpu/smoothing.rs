//! Launch wrappers of `cuda/smoothing.cu`, twin of `backend/cpu/smoothing.rs`: the implicit
//! residual smoothing (thesis eq. 4.15), one warp per (variable, grid line) solving it by the
//! partition method, one launch for the i-lines of every block, then one for the j-lines.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{gpu_err, Ctx, GpuGeometry};
use crate::backend::NVAR;
use crate::gpu::GpuDevice;
use crate::Result;

/// Threads of a warp: the line kernels give each grid line one warp.
const WARP: usize = 32;

/// Threads per block of the line kernels: 4 warps (4 lines), so that the few hundred to few
/// thousand lines of a mesh spread over as many multiprocessors as possible.
const LINE_THREADS: u32 = 128;

/// Threads per block of the scan for positive coefficients.
const SCAN_THREADS: u32 = 256;

/// Grid directions, as the kernels number them.
const ALONG_I: i32 = 0;
const ALONG_J: i32 = 1;

pub(super) struct Kernels {
    smooth_lines_constant: CudaFunction,
    smooth_lines_variable: CudaFunction,
    smoothing_active: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("smoothing")?;
        Ok(Kernels {
            smooth_lines_constant: m.function("smooth_lines_constant")?,
            smooth_lines_variable: m.function("smooth_lines_variable")?,
            smoothing_active: m.function("smoothing_active")?,
        })
    }
}

/// Grid lines of direction `dir` over every block: rows (one per j) along i, columns along j.
fn lines(g: &GpuGeometry, dir: i32) -> usize {
    g.table.iter().map(|e| (if dir == ALONG_I { e.nj } else { e.ni }) as usize).sum()
}

/// One warp per (variable, line) of the first `nvar` variables.
fn line_grid(nvar: usize, nlines: usize) -> LaunchConfig {
    let n = (WARP * nvar * nlines).max(1) as u32;
    LaunchConfig { grid_dim: (n.div_ceil(LINE_THREADS), 1, 1), block_dim: (LINE_THREADS, 1, 1), shared_mem_bytes: 0 }
}

/// Smooths the first `nvar` variables of `r` (at most [`NVAR`], as the CPU's `take(nvar)`) with
/// the constant coefficients `epsilon` = [eps_i, eps_j]; a direction whose coefficient is not
/// positive is skipped, as on the CPU.
pub(super) fn smooth_constant(k: &Kernels, cx: &Ctx, g: &GpuGeometry, nvar: usize, epsilon: [f64; 2], r: &mut CudaSlice<f64>) -> Result<()> {
    let nvar = nvar.min(NVAR);
    let mut work = g.workspace();
    let scratch = &mut work.smoothing_scratch;
    let nvar_arg = nvar as i32;
    for (dir, eps) in [(ALONG_I, epsilon[0]), (ALONG_J, epsilon[1])] {
        // Skipped unless positive (NaN included), as `Coefficients::active` on the CPU.
        let active = eps > 0.0;
        if !active {
            continue;
        }
        let nlines = lines(g, dir);
        let nlines_arg = nlines as i32;
        unsafe {
            cx.stream
                .launch_builder(&k.smooth_lines_constant)
                .arg(&g.blocks)
                .arg(&g.extent)
                .arg(&dir)
                .arg(&nlines_arg)
                .arg(&nvar_arg)
                .arg(&eps)
                .arg(&mut *r)
                .arg(&mut *scratch)
                .launch(line_grid(nvar, nlines))
        }
        .map_err(gpu_err)?;
        cx.counters.launched(1);
    }
    Ok(())
}

/// Smooths the first `nvar` variables of `r` (at most [`NVAR`]) with per-cell coefficients (`eps_i`, `eps_j`, per
/// interior cell); in each block a direction with no positive coefficient is skipped, as on the
/// CPU. Three launches: the scan for positive coefficients, the i-lines, the j-lines.
#[allow(clippy::too_many_arguments)]
pub(super) fn smooth_variable(k: &Kernels, cx: &Ctx, g: &GpuGeometry, nvar: usize, eps_i: &CudaSlice<f64>, eps_j: &CudaSlice<f64>, r: &mut CudaSlice<f64>) -> Result<()> {
    let nvar = nvar.min(NVAR);
    if g.table.is_empty() {
        return Ok(());
    }
    let mut work = g.workspace();
    let ws = &mut *work;
    let (scratch, active) = (&mut ws.smoothing_scratch, &mut ws.smoothing_active);
    let scan = LaunchConfig { grid_dim: (g.table.len() as u32, 2, 1), block_dim: (SCAN_THREADS, 1, 1), shared_mem_bytes: 0 };
    unsafe { cx.stream.launch_builder(&k.smoothing_active).arg(&g.blocks).arg(eps_i).arg(eps_j).arg(&mut *active).launch(scan) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    let nvar_arg = nvar as i32;
    for (dir, eps) in [(ALONG_I, eps_i), (ALONG_J, eps_j)] {
        let nlines = lines(g, dir);
        let nlines_arg = nlines as i32;
        unsafe {
            cx.stream
                .launch_builder(&k.smooth_lines_variable)
                .arg(&g.blocks)
                .arg(&g.extent)
                .arg(&dir)
                .arg(&nlines_arg)
                .arg(&nvar_arg)
                .arg(eps)
                .arg(&*active)
                .arg(&mut *r)
                .arg(&mut *scratch)
                .launch(line_grid(nvar, nlines))
        }
        .map_err(gpu_err)?;
        cx.counters.launched(1);
    }
    Ok(())
}
