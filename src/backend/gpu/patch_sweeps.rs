//! The Jacobi-swept triangular solves of the swept ILU fused into one launch each: a thread block
//! takes a patch of rows (a compact group of cells of one mesh block, `CpuJacobian::patches`)
//! with its closure (`linalg::patches`: every row the patch reads within `sweeps` couplings) and
//! runs all the sweeps on them in shared memory, a block barrier between sweeps instead of a
//! kernel boundary. Each row keeps its entries in the row's order and the kernels do the per-row
//! arithmetic of the sweep-by-sweep kernels, so the result is theirs bit for bit.
//!
//! What it saves (issue 13): a preconditioner application was `2 sweeps + 1` launches over the
//! whole matrix (17 with 8 sweeps, about half the kernels of a Krylov step), each mostly fixed
//! latency on a coarse mesh, and the factors were read from L2 or memory on every sweep; now 2
//! launches, the closure's factors staying in L1 between sweeps. The price is the closure's
//! redundant rows (about 2x the rows of a 16 x 16 patch with 8 sweeps).

use cudarc::driver::{CudaSlice, LaunchConfig};

use super::{gpu_err, Ctx};
use crate::linalg::patches::{fitting_patches, PatchLists};
use crate::Result;

/// Threads of a patch's block: the closure of a 16 x 16 patch with 8 sweeps holds about 550 rows,
/// so 512 threads take its 4 x 550 (row, component) pairs in about 4 passes a sweep.
pub(super) const PATCH_THREADS: u32 = 512;

/// Shared memory a patch may use (two sweep vectors of its closure): beyond 48 KB a kernel must
/// opt in, and more per block leaves fewer blocks on a multiprocessor.
pub(super) const PATCH_SHARED_BYTES: usize = 96 * 1024;

/// Patch sides tried, largest first: larger patches have relatively smaller closures (less
/// redundant work) but need more shared memory.
pub(super) const PATCH_SIDES: [usize; 3] = [16, 12, 8];

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

/// Both sides' patches and the launch they share.
pub(super) struct PatchSweeps {
    pub forward: PatchSide,
    pub backward: PatchSide,
    pub launch: LaunchConfig,
}

impl PatchSweeps {
    /// The patches of the largest side in [`PATCH_SIDES`] whose closures fit `shared_bytes`
    /// (the device's allowance, at most [`PATCH_SHARED_BYTES`]), or `None` when none does (many
    /// sweeps: the sweeps are then launched one by one). `lower`/`upper`: each row's entries on
    /// that side, (column, factor index); `cut(side)` cuts the rows into patches.
    pub fn new(
        cx: &Ctx,
        block: usize,
        sweeps: usize,
        sides: [(&[usize], &[[usize; 2]]); 2],
        cut: &dyn Fn(usize) -> Vec<Vec<usize>>,
        shared_bytes: usize,
    ) -> Result<Option<Self>> {
        let row_bytes = 2 * block * std::mem::size_of::<f64>();
        let Some((_, forward, backward)) = fitting_patches(cut, &PATCH_SIDES, sides[0], sides[1], sweeps, shared_bytes / row_bytes) else {
            return Ok(None);
        };
        let patches = forward.owned.len().max(1) as u32;
        let bytes = (row_bytes * forward.widest().max(backward.widest())) as u32;
        let launch = LaunchConfig { grid_dim: (patches, 1, 1), block_dim: (PATCH_THREADS, 1, 1), shared_mem_bytes: bytes };
        Ok(Some(PatchSweeps { forward: PatchSide::upload(cx, &forward)?, backward: PatchSide::upload(cx, &backward)?, launch }))
    }
}

