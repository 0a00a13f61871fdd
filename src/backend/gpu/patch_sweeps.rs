//! The Jacobi-swept triangular solves of the swept ILU fused into one launch each: a thread block
//! takes a patch of rows (a compact group of cells of one mesh block, `CpuJacobian::patches`)
//! with its closure (`linalg::patches`: every row the patch reads within `sweeps` couplings),
//! copies their right-hand side, factors and pivots into shared memory and runs all the sweeps
//! there, a block barrier between sweeps instead of a kernel boundary. Each row keeps its entries in the row's order and the kernels do the per-row
//! arithmetic of the sweep-by-sweep kernels, so the result is theirs bit for bit.
//!
//! What it saves (issue 13): a preconditioner application was `2 sweeps + 1` launches over the
//! whole matrix (17 with 8 sweeps, about half the kernels of a Krylov step), each mostly fixed
//! latency on a coarse mesh, and the factors were read from L2 or memory at every sweep; now 2
//! launches, each block copying its patch's factors into shared memory once. The price is the
//! closure's redundant rows (about 2.6x the rows of a 12 x 12 patch with 8 sweeps).

use cudarc::driver::{CudaSlice, LaunchConfig};

use super::{gpu_err, Ctx};
use crate::linalg::patches::{fitting_patches, PatchLists};
use crate::Result;

/// Threads of a patch's block: the closure of a 12 x 12 patch with 8 sweeps holds about 400 rows,
/// so 1,024 threads take its 4 x 400 (row, component) pairs in two passes a sweep.
pub(super) const PATCH_THREADS: u32 = 1024;

/// Patch sides tried, largest first: larger patches have relatively smaller closures (less
/// redundant work) but need more shared memory.
pub(super) const PATCH_SIDES: [usize; 4] = [16, 12, 8, 6];

/// One side's patches on the device.
pub(super) struct PatchSide {
    patch_ptr: CudaSlice<i32>,
    owned: CudaSlice<i32>,
    rows: CudaSlice<i32>,
    entry_ptr: CudaSlice<i32>,
    /// (local column, factor index) pairs, read as `int2`.
    entries: CudaSlice<i32>,
}

impl PatchSide {
    fn upload(cx: &Ctx, lists: &PatchLists) -> Result<Self> {
        let up = |v: &[i32]| cx.stream.clone_htod(if v.is_empty() { &[0i32][..] } else { v }).map_err(gpu_err);
        let flat: Vec<i32> = lists.entries.iter().flatten().copied().collect();
        Ok(PatchSide { patch_ptr: up(&lists.patch_ptr)?, owned: up(&lists.owned)?, rows: up(&lists.rows)?, entry_ptr: up(&lists.entry_ptr)?, entries: up(&flat)? })
    }

    /// Pushes the patch arguments of a fused sweep kernel (patch_ptr, owned, rows, entry_ptr,
    /// entries).
    pub fn push<'a>(&'a self, launch: &mut cudarc::driver::LaunchArgs<'a>) {
        use cudarc::driver::PushKernelArg;
        launch.arg(&self.patch_ptr).arg(&self.owned).arg(&self.rows).arg(&self.entry_ptr).arg(&self.entries);
    }
}

/// Both sides' patches and their launches.
pub(super) struct PatchSweeps {
    pub forward: PatchSide,
    pub backward: PatchSide,
    pub forward_launch: LaunchConfig,
    pub backward_launch: LaunchConfig,
}

impl PatchSweeps {
    /// The patches of the largest side in [`PATCH_SIDES`] whose every patch fits `shared_bytes`
    /// (the device's allowance for one block), or `None` when none does (many sweeps: the sweeps
    /// are then launched one by one). `sides`: each row's entries on the lower and the upper
    /// side, (column, factor index), with factors of `factor_bytes` a value; `cut(side)` cuts the
    /// rows into patches.
    pub fn new(
        cx: &Ctx,
        block: usize,
        factor_bytes: usize,
        sweeps: usize,
        sides: [(&[usize], &[[usize; 2]]); 2],
        cut: &dyn Fn(usize) -> Vec<Vec<usize>>,
        shared_bytes: usize,
    ) -> Result<Option<Self>> {
        let bytes = |f: &PatchLists, b: &PatchLists| (f.widest_shared_bytes(block, factor_bytes, false), b.widest_shared_bytes(block, factor_bytes, true));
        let fits = |f: &PatchLists, b: &PatchLists| {
            let (forward, backward) = bytes(f, b);
            forward.max(backward) <= shared_bytes
        };
        // TURBOPT_PATCH_SIDE=n: patches of side n only (measurements).
        let forced: Option<usize> = std::env::var("TURBOPT_PATCH_SIDE").ok().and_then(|v| v.parse().ok());
        let tried = forced.map_or(PATCH_SIDES.to_vec(), |n| vec![n]);
        let Some((_, forward, backward)) = fitting_patches(cut, &tried, sides[0], sides[1], sweeps, &fits) else {
            return Ok(None);
        };
        let (forward_bytes, backward_bytes) = bytes(&forward, &backward);
        let launch = |bytes: usize| LaunchConfig { grid_dim: (forward.owned.len().max(1) as u32, 1, 1), block_dim: (PATCH_THREADS, 1, 1), shared_mem_bytes: bytes as u32 };
        Ok(Some(PatchSweeps {
            forward_launch: launch(forward_bytes),
            backward_launch: launch(backward_bytes),
            forward: PatchSide::upload(cx, &forward)?,
            backward: PatchSide::upload(cx, &backward)?,
        }))
    }
}
