//! Launch wrappers of `cuda/smoothing.cu`, twin of `backend/cpu/smoothing.rs`: the implicit
//! residual smoothing (thesis eq. 4.15), one warp per (variable, grid line) solving it by the
//! partition method on the line's copy in shared memory, one launch for the i-lines of every
//! block, then one for the j-lines.

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{gpu_err, Ctx, GpuGeometry};
use crate::backend::NVAR;
use crate::gpu::GpuDevice;
use crate::Result;

/// Threads of a warp: the line kernels give each grid line one warp.
const WARP: usize = 32;

/// Threads per block of the line kernels: one warp (one line), so that the few hundred to few
/// thousand lines of a mesh spread over as many multiprocessors as possible, each block with
/// its own line's copy in shared memory.
const LINE_THREADS: u32 = WARP as u32;

/// Shared memory a block may take without opting in (CUDA's default limit).
const SHARED_BYTES_DEFAULT_LIMIT: usize = 48 * 1024;

/// Doubles a warp keeps per row of its chunks in shared memory: the right-hand side and the two
/// modified coefficients of 32 chunks.
const SHARED_DOUBLES_PER_ROW: usize = 3 * WARP;

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

/// The longest chunk of direction `dir`'s lines (a line of n cells splits into 32 chunks of at
/// most ceil(n / 32) cells): the rows each warp keeps in shared memory, or 0 where that copy would
/// not fit in a block's default shared memory (lines longer than 2,048 cells), and the kernels
/// solve in place in global memory.
fn staged_rows(g: &GpuGeometry, dir: i32) -> usize {
    let longest = g.table.iter().map(|e| (if dir == ALONG_I { e.ni } else { e.nj }) as usize).max().unwrap_or(0);
    let rows = longest.div_ceil(WARP).max(1);
    if rows * SHARED_DOUBLES_PER_ROW * std::mem::size_of::<f64>() <= SHARED_BYTES_DEFAULT_LIMIT {
        rows
    } else {
        0
    }
}

/// One warp per (variable, line) of the first `nvar` variables, with `staged` rows of shared
/// memory per warp.
fn line_grid(nvar: usize, nlines: usize, staged: usize) -> LaunchConfig {
    let n = (WARP * nvar * nlines).max(1) as u32;
    let shared = (staged * SHARED_DOUBLES_PER_ROW * std::mem::size_of::<f64>()) as u32;
    LaunchConfig { grid_dim: (n.div_ceil(LINE_THREADS), 1, 1), block_dim: (LINE_THREADS, 1, 1), shared_mem_bytes: shared }
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
        let (nlines, staged) = (lines(g, dir), staged_rows(g, dir));
        let (nlines_arg, staged_arg) = (nlines as i32, staged as i32);
        unsafe {
            cx.stream
                .launch_builder(&k.smooth_lines_constant)
                .arg(&g.blocks)
                .arg(&g.extent)
                .arg(&dir)
                .arg(&nlines_arg)
                .arg(&nvar_arg)
                .arg(&eps)
                .arg(&staged_arg)
                .arg(&mut *r)
                .arg(&mut *scratch)
                .launch(line_grid(nvar, nlines, staged))
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
        let (nlines, staged) = (lines(g, dir), staged_rows(g, dir));
        let (nlines_arg, staged_arg) = (nlines as i32, staged as i32);
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
                .arg(&staged_arg)
                .arg(&mut *r)
                .arg(&mut *scratch)
                .launch(line_grid(nvar, nlines, staged))
        }
        .map_err(gpu_err)?;
        cx.counters.launched(1);
    }
    Ok(())
}
