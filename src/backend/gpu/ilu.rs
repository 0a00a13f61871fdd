//! Launch wrappers of `cuda/ilu.cu`, twin of `crate::linalg::ilu` on the device: block-Jacobi
//! and block ILU(0) with level-scheduled factorization and triangular sweeps, for the 4x4
//! mean-flow blocks and the scalar SA system. The levels come from
//! [`crate::linalg::ilu::processing_levels`]: wavefronts of the natural ordering (the factors
//! of the sequential ILU(0), row for row) or colour classes (multicolour ILU(0)); each level is
//! one launch (the factorization's and the Jacobi sweeps' with a thread per row and block
//! component, the others with a thread per row).

use cudarc::driver::{CudaFunction, CudaSlice, LaunchConfig, PushKernelArg};

use super::{grid, gpu_err, Ctx};
use crate::backend::implicit::{FactorPrecision, PreconditionerKind};
use crate::gpu::GpuDevice;
use crate::linalg::ilu::processing_levels;
use crate::linalg::{BsrPattern, Ordering};
use crate::{Error, Result};

/// The kernels of one block size (`_b4` or `_b1` in ilu.cu).
struct BlockKernels {
    jacobi_invert: CudaFunction,
    jacobi_apply: CudaFunction,
    factor_level: CudaFunction,
    forward_level: CudaFunction,
    backward_level: CudaFunction,
    factor_syncfree: CudaFunction,
    forward_syncfree: CudaFunction,
    backward_syncfree: CudaFunction,
    forward_jacobi: CudaFunction,
    backward_jacobi: CudaFunction,
    forward_jacobi_f32: CudaFunction,
    backward_jacobi_f32: CudaFunction,
    jacobi_apply_f32: CudaFunction,
}

impl BlockKernels {
    fn load(m: &crate::gpu::GpuModule, suffix: &str) -> Result<Self> {
        Ok(BlockKernels {
            jacobi_invert: m.function(&format!("jacobi_invert_{suffix}"))?,
            jacobi_apply: m.function(&format!("jacobi_apply_{suffix}"))?,
            factor_level: m.function(&format!("ilu_factor_level_{suffix}"))?,
            forward_level: m.function(&format!("ilu_forward_level_{suffix}"))?,
            backward_level: m.function(&format!("ilu_backward_level_{suffix}"))?,
            factor_syncfree: m.function(&format!("ilu_factor_syncfree_{suffix}"))?,
            forward_syncfree: m.function(&format!("ilu_forward_syncfree_{suffix}"))?,
            backward_syncfree: m.function(&format!("ilu_backward_syncfree_{suffix}"))?,
            forward_jacobi: m.function(&format!("ilu_forward_jacobi_{suffix}"))?,
            backward_jacobi: m.function(&format!("ilu_backward_jacobi_{suffix}"))?,
            forward_jacobi_f32: m.function(&format!("ilu_forward_jacobi_f32_{suffix}"))?,
            backward_jacobi_f32: m.function(&format!("ilu_backward_jacobi_f32_{suffix}"))?,
            jacobi_apply_f32: m.function(&format!("jacobi_apply_f32_{suffix}"))?,
        })
    }
}

pub(super) struct Kernels {
    b4: BlockKernels,
    b1: BlockKernels,
    pack_factors_f32: CudaFunction,
    round_to_f32: CudaFunction,
    /// `TURBOPT_ILU_LEVEL_LAUNCHES=1`: always one launch per level; `=0`: always one sync-free
    /// launch per factorization and sweep; unset: [`Levels::sync_free`] decides per matrix.
    level_launches: Option<bool>,
}

/// Below this many rows per level on average, ILU runs sync-free; above, one launch per level.
/// Narrow levels leave the GPU idle between launches (LS89 medium, about 40 rows per level:
/// 948 kernels per implicit iteration sync-free against 41,011 level by level, BENCHMARKS.md);
/// wide ones fill it, and a sync-free launch then keeps thousands of warps spinning on their
/// flags (1M-cell bench, about 470 rows per level: 414 ms per implicit iteration sync-free
/// against 174 ms level by level).
const SYNC_FREE_BELOW_ROWS_PER_LEVEL: usize = 256;

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("ilu")?;
        let level_launches = std::env::var("TURBOPT_ILU_LEVEL_LAUNCHES").ok().and_then(|v| match v.as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        });
        Ok(Kernels {
            b4: BlockKernels::load(&m, "b4")?,
            b1: BlockKernels::load(&m, "b1")?,
            pack_factors_f32: m.function("ilu_pack_factors_f32")?,
            round_to_f32: m.function("round_to_f32")?,
            level_launches,
        })
    }

    fn of(&self, block: usize) -> &BlockKernels {
        if block == 4 {
            &self.b4
        } else {
            &self.b1
        }
    }
}

/// The matrix a preconditioner is built for: its pattern on the device and on the host.
pub(super) struct DeviceMatrix<'a> {
    pub block: usize,
    pub n_rows: usize,
    pub row_ptr: &'a CudaSlice<i32>,
    pub cols: &'a CudaSlice<i32>,
    pub diag: &'a CudaSlice<i32>,
    pub values: &'a CudaSlice<f64>,
}

/// Rows grouped into levels processed one after the other, and each row's processing position.
pub(super) struct Levels {
    /// Every row, sorted by level: the processing order of the sync-free kernels.
    rows: CudaSlice<i32>,
    /// Level k holds `rows[bounds[k]..bounds[k + 1]]`.
    bounds: Vec<usize>,
    position: CudaSlice<i32>,
    /// Per-row completion flags of the sync-free kernels, and the last epoch written to them.
    flags: CudaSlice<i32>,
    epoch: std::sync::atomic::AtomicI32,
}

impl Levels {
    /// Uploads the levels and positions of [`processing_levels`] for a matrix of `n_rows` rows.
    fn new(cx: &Ctx, n_rows: usize, levels: &[Vec<usize>], position: &[usize]) -> Result<Self> {
        let mut bounds = vec![0];
        let mut rows = Vec::with_capacity(n_rows);
        for level in levels {
            rows.extend(level.iter().map(|&r| r as i32));
            bounds.push(rows.len());
        }
        let position: Vec<i32> = position.iter().map(|&p| p as i32).collect();
        Ok(Levels {
            rows: cx.stream.clone_htod(&rows).map_err(gpu_err)?,
            bounds,
            position: cx.stream.clone_htod(&position).map_err(gpu_err)?,
            flags: cx.stream.alloc_zeros::<i32>(n_rows.max(1)).map_err(gpu_err)?,
            epoch: std::sync::atomic::AtomicI32::new(0),
        })
    }

    /// A new epoch for one sync-free launch (flags of earlier launches hold older ones).
    fn next_epoch(&self) -> i32 {
        self.epoch.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }

    pub(super) fn count(&self) -> usize {
        self.bounds.len() - 1
    }

    /// Whether this matrix's factorization and sweeps run sync-free (one launch each) rather than
    /// one launch per level (see [`SYNC_FREE_BELOW_ROWS_PER_LEVEL`]).
    fn sync_free(&self, k: &Kernels) -> bool {
        match k.level_launches {
            Some(levels) => !levels,
            None => self.bounds.last().copied().unwrap_or(0) < SYNC_FREE_BELOW_ROWS_PER_LEVEL * self.count(),
        }
    }
}

/// A factorized preconditioner of one system on the device.
pub(super) enum Factors {
    /// Inverse diagonal blocks.
    Jacobi { inv_diag: CudaSlice<f64> },
    /// L and U in the matrix's slots, and the inverse pivot blocks; `swept`: triangular solves
    /// by Jacobi sweeps instead of level by level.
    Ilu { lu: CudaSlice<f64>, inv_diag: CudaSlice<f64>, levels: Levels, swept: Option<Box<JacobiSweeps>> },
    /// cuSPARSE's ILU(0) (its own factors, levels and work buffer).
    Cusparse(super::cusparse_ilu::CusparseIlu),
}

/// The Jacobi-swept triangular solves of [`PreconditionerKind::SweptIlu`]: the sweep count, two
/// work vectors (the forward sweeps' iterates and the backward sweeps' other buffer), and the
/// strictly lower and upper entries of each row.
pub(super) struct JacobiSweeps {
    sweeps: usize,
    work: [CudaSlice<f64>; 2],
    lower: TriangleRows,
    upper: TriangleRows,
    /// The factors rounded to f32 ([`FactorPrecision::Single`]), repacked after each factorization.
    single: Option<SingleFactors>,
}

/// f32 copies of the factors the sweeps read: each side's blocks in its [`TriangleRows`] entry
/// order (so a sweep reads them at the entry index, without the slot), and the inverse pivots.
struct SingleFactors {
    lower: CudaSlice<f32>,
    upper: CudaSlice<f32>,
    inv_diag: CudaSlice<f32>,
}

impl SingleFactors {
    fn new(cx: &Ctx, block: usize, n_rows: usize, lower: &TriangleRows, upper: &TriangleRows) -> Result<Self> {
        let bb = block * block;
        let alloc = |n: usize| cx.stream.alloc_zeros::<f32>(n.max(1)).map_err(gpu_err);
        Ok(SingleFactors { lower: alloc(bb * lower.count)?, upper: alloc(bb * upper.count)?, inv_diag: alloc(bb * n_rows)? })
    }

    /// Rounds the current factors into these copies: 3 launches.
    fn pack(&mut self, k: &Kernels, cx: &Ctx, block: usize, lu: &CudaSlice<f64>, inv_diag: &CudaSlice<f64>, rows: [&TriangleRows; 2]) -> Result<()> {
        let bb = (block * block) as i32;
        for (side, out) in rows.into_iter().zip([&mut self.lower, &mut self.upper]) {
            let count = side.count as i32;
            unsafe { cx.stream.launch_builder(&k.pack_factors_f32).arg(&count).arg(&bb).arg(&side.entries).arg(lu).arg(out).launch(grid(side.count * block * block)) }
                .map_err(gpu_err)?;
        }
        let len = self.inv_diag.len();
        let n = len as i32;
        unsafe { cx.stream.launch_builder(&k.round_to_f32).arg(&n).arg(inv_diag).arg(&mut self.inv_diag).launch(grid(len)) }.map_err(gpu_err)?;
        cx.counters.launched(3);
        Ok(())
    }
}

/// One factor argument of a Jacobi sweep kernel: f64 factors (read at their slots) or packed
/// f32 ones ([`SingleFactors`], read at the entry index).
enum FactorArg<'a> {
    Double(&'a CudaSlice<f64>),
    Single(&'a CudaSlice<f32>),
}

impl<'a> FactorArg<'a> {
    fn push(&self, launch: &mut cudarc::driver::LaunchArgs<'a>) {
        match *self {
            FactorArg::Double(s) => launch.arg(s),
            FactorArg::Single(s) => launch.arg(s),
        };
    }
}

/// The entries of each row on one side of the diagonal in the processing order, in the row's
/// order: row i's are `entries[ptr\[i\]..ptr[i + 1]]`, each (column, slot of its block). A sweep
/// then reads only the blocks it multiplies, two dependent loads deep, instead of testing every
/// entry of the row through the position array (three loads deep, and the row's other side
/// read for nothing): the sweeps are most of the preconditioner's time, and with the designs of
/// a batch sharing the GPU their threads' waiting is what fills it.
struct TriangleRows {
    ptr: CudaSlice<i32>,
    /// (column, slot) pairs, read as `int2`.
    entries: CudaSlice<i32>,
    /// Number of entries.
    count: usize,
}

impl TriangleRows {
    /// The entries k of each row i of `pattern` with `side(position[k], position\[i\])`.
    fn new(cx: &Ctx, pattern: &BsrPattern, position: &[usize], side: fn(usize, usize) -> bool) -> Result<Self> {
        let mut ptr = Vec::with_capacity(pattern.n_rows + 1);
        let mut entries = Vec::new();
        ptr.push(0i32);
        for i in 0..pattern.n_rows {
            for s in pattern.row_ptr[i]..pattern.row_ptr[i + 1] {
                let k = pattern.cols[s];
                if side(position[k], position[i]) {
                    entries.extend([k as i32, s as i32]);
                }
            }
            ptr.push((entries.len() / 2) as i32);
        }
        let count = entries.len() / 2;
        entries.resize(entries.len().max(2), 0);
        let upload = |v: &[i32]| cx.stream.clone_htod(v).map_err(gpu_err);
        Ok(TriangleRows { ptr: upload(&ptr)?, entries: upload(&entries)?, count })
    }
}

pub(super) struct SystemPreconditioner {
    block: usize,
    n_rows: usize,
    /// The matrix pattern (copied: the sweeps run without the matrix at hand).
    row_ptr: CudaSlice<i32>,
    cols: CudaSlice<i32>,
    pub(super) factors: Factors,
    /// Row + 1 of a singular pivot found by the last factorization (0: none).
    failed: CudaSlice<i32>,
    /// Record the level-by-level factorization as a CUDA graph (the backend's graph setting).
    record: bool,
    recorded_factorization: RecordedFactorization,
}

/// The factorization recorded as a CUDA graph, with the address of the matrix values it reads.
#[derive(Default)]
struct RecordedFactorization(Option<(u64, super::GpuRecording)>);

// SAFETY: a CUDA graph must not be used from two threads at once; this one is only touched
// through `&mut SystemPreconditioner` (refactorization), and launches on its own stream.
unsafe impl Send for RecordedFactorization {}
unsafe impl Sync for RecordedFactorization {}

impl SystemPreconditioner {
    /// Allocates the factors of `kind` for `a` (levels analysed once here) and factorizes.
    pub fn new(k: &Kernels, cx: &Ctx, a: &DeviceMatrix, pattern: &BsrPattern, kind: PreconditionerKind, record: bool) -> Result<Self> {
        let n_values = a.values.len();
        let inv_diag = cx.stream.alloc_zeros::<f64>(a.block * a.block * a.n_rows.max(1)).map_err(gpu_err)?;
        let factors = match kind {
            PreconditionerKind::Jacobi => Factors::Jacobi { inv_diag },
            PreconditionerKind::CusparseIlu => Factors::Cusparse(super::cusparse_ilu::CusparseIlu::new(cx, a.block, a.n_rows, a.row_ptr, a.cols, a.values)?),
            PreconditionerKind::Auto | PreconditionerKind::StripIlu { .. } => return Err(crate::backend::implicit::missing_preconditioner(kind, "the GPU backend")),
            PreconditionerKind::Ilu | PreconditionerKind::McIlu | PreconditionerKind::SweptIlu { .. } => {
                let ordering = if kind == PreconditionerKind::McIlu { Ordering::Multicolour } else { Ordering::Natural };
                let (levels, position) = processing_levels(pattern, ordering);
                let lu = cx.stream.alloc_zeros::<f64>(n_values.max(1)).map_err(gpu_err)?;
                let swept = match kind {
                    PreconditionerKind::SweptIlu { sweeps, factors } => {
                        let n = a.block * a.n_rows.max(1);
                        let work = [cx.stream.alloc_zeros::<f64>(n).map_err(gpu_err)?, cx.stream.alloc_zeros::<f64>(n).map_err(gpu_err)?];
                        let lower = TriangleRows::new(cx, pattern, &position, |k, i| k < i)?;
                        let upper = TriangleRows::new(cx, pattern, &position, |k, i| k > i)?;
                        let single = match factors {
                            FactorPrecision::Double => None,
                            FactorPrecision::Single => Some(SingleFactors::new(cx, a.block, a.n_rows, &lower, &upper)?),
                        };
                        Some(Box::new(JacobiSweeps { sweeps, work, lower, upper, single }))
                    }
                    _ => None,
                };
                Factors::Ilu { lu, inv_diag, levels: Levels::new(cx, a.n_rows, &levels, &position)?, swept }
            }
        };
        let failed = cx.stream.alloc_zeros::<i32>(1).map_err(gpu_err)?;
        let (row_ptr, cols) = (cx.stream.clone_dtod(a.row_ptr).map_err(gpu_err)?, cx.stream.clone_dtod(a.cols).map_err(gpu_err)?);
        let mut pc = SystemPreconditioner { block: a.block, n_rows: a.n_rows, row_ptr, cols, factors, failed, record, recorded_factorization: RecordedFactorization::default() };
        if !matches!(pc.factors, Factors::Cusparse(_)) {
            pc.refactorize(k, cx, a)?;
        }
        Ok(pc)
    }

    /// Recomputes the factors from the current values of `a` (same pattern). One read-back
    /// (the singular-pivot flag) per factorization. With `record` the level-by-level
    /// factorization of an ILU is recorded once as a CUDA graph and replayed: hundreds of
    /// wavefront launches for one driver call (LS89 medium: the sync-free launch took 28 ms per
    /// factorization on an H100, its flags spinning down a chain of ~1,000 wavefronts).
    pub fn refactorize(&mut self, k: &Kernels, cx: &Ctx, a: &DeviceMatrix) -> Result<()> {
        if let Factors::Cusparse(c) = &mut self.factors {
            return c.refactorize(cx, a.values);
        }
        let levelled = match (&self.factors, k.level_launches) {
            (Factors::Ilu { .. }, Some(levels)) => levels,
            (Factors::Ilu { levels, .. }, None) => self.record || !levels.sync_free(k),
            _ => false,
        };
        if self.record && levelled {
            use cudarc::driver::DevicePtr;
            let key = a.values.device_ptr(cx.stream).0;
            match &self.recorded_factorization.0 {
                Some((recorded_on, r)) if *recorded_on == key => r.replay(cx)?,
                _ => {
                    let recording = super::GpuRecording::record(cx, "a factorization", || self.queue_factorization(k, cx, a, true))?;
                    self.recorded_factorization.0 = Some((key, recording));
                }
            }
        } else {
            self.queue_factorization(k, cx, a, levelled)?;
        }
        if let Factors::Ilu { lu, inv_diag, swept: Some(js), .. } = &mut self.factors {
            if let JacobiSweeps { lower, upper, single: Some(single), .. } = &mut **js {
                single.pack(k, cx, self.block, lu, inv_diag, [lower, upper])?;
            }
        }
        let failed = cx.stream.clone_dtoh(&self.failed).map_err(gpu_err)?[0];
        if failed > 0 {
            return Err(Error::Other(format!("preconditioner factorization failed: singular diagonal block in row {}", failed - 1)));
        }
        Ok(())
    }

    /// Queues one factorization of `a`'s values: `levelled`, one launch per level; otherwise
    /// one sync-free launch (ILU) or one launch (block-Jacobi).
    fn queue_factorization(&mut self, k: &Kernels, cx: &Ctx, a: &DeviceMatrix, levelled: bool) -> Result<()> {
        let bk = k.of(self.block);
        let n = self.n_rows as i32;
        cx.stream.memset_zeros(&mut self.failed).map_err(gpu_err)?;
        let mut launches = 0;
        match &mut self.factors {
            Factors::Cusparse(_) => return Err(Error::Gpu("cuSPARSE factorizes through its own library calls".into())),
            Factors::Jacobi { inv_diag } => {
                unsafe { cx.stream.launch_builder(&bk.jacobi_invert).arg(&n).arg(a.diag).arg(a.values).arg(inv_diag).arg(&mut self.failed).launch(grid(self.n_rows)) }
                    .map_err(gpu_err)?;
                launches += 1;
            }
            Factors::Ilu { lu, inv_diag, levels, .. } if !levelled => {
                cx.stream.memcpy_dtod(a.values, lu).map_err(gpu_err)?;
                let epoch = levels.next_epoch();
                unsafe {
                    cx.stream
                        .launch_builder(&bk.factor_syncfree)
                        .arg(&levels.rows)
                        .arg(&n)
                        .arg(a.row_ptr)
                        .arg(a.cols)
                        .arg(a.diag)
                        .arg(&levels.position)
                        .arg(&mut *lu)
                        .arg(&mut *inv_diag)
                        .arg(&mut self.failed)
                        .arg(&mut levels.flags)
                        .arg(&epoch)
                        .launch(grid(self.n_rows))
                }
                .map_err(gpu_err)?;
                launches += 1;
            }
            Factors::Ilu { lu, inv_diag, levels, .. } => {
                cx.stream.memcpy_dtod(a.values, lu).map_err(gpu_err)?;
                for l in 0..levels.count() {
                    let (start, end) = (levels.bounds[l], levels.bounds[l + 1]);
                    let rows = levels.rows.slice(start..end);
                    let count = (end - start) as i32;
                    unsafe {
                        cx.stream
                            .launch_builder(&bk.factor_level)
                            .arg(&rows)
                            .arg(&count)
                            .arg(a.row_ptr)
                            .arg(a.cols)
                            .arg(a.diag)
                            .arg(&levels.position)
                            .arg(&mut *lu)
                            .arg(&mut *inv_diag)
                            .arg(&mut self.failed)
                            .launch(grid(self.block * (end - start)))
                    }
                    .map_err(gpu_err)?;
                }
                launches += levels.count();
            }
        }
        cx.counters.launched(launches);
        Ok(())
    }

    /// `z = M^-1 r`.
    pub fn apply(&self, k: &Kernels, cx: &Ctx, r: &CudaSlice<f64>, z: &mut CudaSlice<f64>) -> Result<()> {
        let bk = k.of(self.block);
        let n = self.n_rows as i32;
        match &self.factors {
            Factors::Cusparse(c) => c.apply_scratch(cx, r, z)?,
            Factors::Ilu { lu, inv_diag, swept: Some(js), .. } => self.apply_jacobi_sweeps(bk, cx, lu, inv_diag, js, r, z)?,
            Factors::Ilu { lu, inv_diag, levels, .. } if levels.sync_free(k) => {
                cx.stream.memcpy_dtod(r, z).map_err(gpu_err)?;
                // The flags are only read and written by these kernels, in stream order.
                let flags = &levels.flags;
                let forward = levels.next_epoch();
                unsafe {
                    cx.stream
                        .launch_builder(&bk.forward_syncfree)
                        .arg(&levels.rows)
                        .arg(&n)
                        .arg(&self.row_ptr)
                        .arg(&self.cols)
                        .arg(&levels.position)
                        .arg(lu)
                        .arg(&mut *z)
                        .arg(flags)
                        .arg(&forward)
                        .launch(grid(self.n_rows))
                }
                .map_err(gpu_err)?;
                let backward = levels.next_epoch();
                unsafe {
                    cx.stream
                        .launch_builder(&bk.backward_syncfree)
                        .arg(&levels.rows)
                        .arg(&n)
                        .arg(&self.row_ptr)
                        .arg(&self.cols)
                        .arg(&levels.position)
                        .arg(lu)
                        .arg(inv_diag)
                        .arg(&mut *z)
                        .arg(flags)
                        .arg(&backward)
                        .launch(grid(self.n_rows))
                }
                .map_err(gpu_err)?;
                cx.counters.launched(2);
            }
            Factors::Jacobi { inv_diag } => {
                unsafe { cx.stream.launch_builder(&bk.jacobi_apply).arg(&n).arg(inv_diag).arg(r).arg(z).launch(self.per_component_grid()) }.map_err(gpu_err)?;
                cx.counters.launched(1);
            }
            Factors::Ilu { lu, inv_diag, levels, .. } => {
                cx.stream.memcpy_dtod(r, z).map_err(gpu_err)?;
                for l in 0..levels.count() {
                    let (start, end) = (levels.bounds[l], levels.bounds[l + 1]);
                    let (rows, count) = (levels.rows.slice(start..end), (end - start) as i32);
                    unsafe {
                        cx.stream
                            .launch_builder(&bk.forward_level)
                            .arg(&rows)
                            .arg(&count)
                            .arg(&self.row_ptr)
                            .arg(&self.cols)
                            .arg(&levels.position)
                            .arg(lu)
                            .arg(&mut *z)
                            .launch(grid(end - start))
                    }
                    .map_err(gpu_err)?;
                }
                for l in (0..levels.count()).rev() {
                    let (start, end) = (levels.bounds[l], levels.bounds[l + 1]);
                    let (rows, count) = (levels.rows.slice(start..end), (end - start) as i32);
                    unsafe {
                        cx.stream
                            .launch_builder(&bk.backward_level)
                            .arg(&rows)
                            .arg(&count)
                            .arg(&self.row_ptr)
                            .arg(&self.cols)
                            .arg(&levels.position)
                            .arg(lu)
                            .arg(inv_diag)
                            .arg(&mut *z)
                            .launch(grid(end - start))
                    }
                    .map_err(gpu_err)?;
                }
                cx.counters.launched(2 * levels.count());
            }
        }
        Ok(())
    }

    /// `z = (LU)^-1 r` by Jacobi sweeps (`BlockIlu0::apply_jacobi_sweeps`): forward iterates
    /// y^s alternate between the two work vectors starting from y^0 = r, then x^0 = D^-1 y and
    /// the backward iterates alternate between `z` and the work vector y does not occupy, placed
    /// so that the last one lands in `z`. `2 sweeps + 1` launches.
    #[allow(clippy::too_many_arguments)]
    fn apply_jacobi_sweeps(
        &self,
        bk: &BlockKernels,
        cx: &Ctx,
        lu: &CudaSlice<f64>,
        inv_diag: &CudaSlice<f64>,
        js: &JacobiSweeps,
        r: &CudaSlice<f64>,
        z: &mut CudaSlice<f64>,
    ) -> Result<()> {
        let n = self.n_rows as i32;
        let cfg = self.per_component_grid();
        // The f64 factors at their slots, or the f32 ones packed at the entry index
        // (`SingleFactors`); both kernel families take the same arguments otherwise.
        let ((forward_kernel, backward_kernel, apply_kernel), (lower, upper, pivots)) = match &js.single {
            None => ((&bk.forward_jacobi, &bk.backward_jacobi, &bk.jacobi_apply), (FactorArg::Double(lu), FactorArg::Double(lu), FactorArg::Double(inv_diag))),
            Some(f) => (
                (&bk.forward_jacobi_f32, &bk.backward_jacobi_f32, &bk.jacobi_apply_f32),
                (FactorArg::Single(&f.lower), FactorArg::Single(&f.upper), FactorArg::Single(&f.inv_diag)),
            ),
        };
        // The work vectors are written through shared references: the kernels of one stream
        // own them for the duration of this call, as the sync-free kernels own their flags.
        let mut y = r;
        for s in 0..js.sweeps {
            let out = &js.work[s % 2];
            let mut launch = cx.stream.launch_builder(forward_kernel);
            launch.arg(&n).arg(&js.lower.ptr).arg(&js.lower.entries);
            lower.push(&mut launch);
            launch.arg(r).arg(y).arg(out);
            unsafe { launch.launch(cfg) }.map_err(gpu_err)?;
            y = out;
        }
        let other = &js.work[js.sweeps % 2];
        // x^s goes to z when sweeps - s is even, to `other` otherwise.
        let in_z = |s: usize| (js.sweeps - s) % 2 == 0;
        let mut launch = cx.stream.launch_builder(apply_kernel);
        launch.arg(&n);
        pivots.push(&mut launch);
        launch.arg(y);
        if in_z(0) {
            launch.arg(&mut *z);
        } else {
            launch.arg(other);
        }
        unsafe { launch.launch(cfg) }.map_err(gpu_err)?;
        for s in 1..=js.sweeps {
            let mut launch = cx.stream.launch_builder(backward_kernel);
            launch.arg(&n).arg(&js.upper.ptr).arg(&js.upper.entries);
            upper.push(&mut launch);
            pivots.push(&mut launch);
            launch.arg(y);
            if in_z(s) {
                launch.arg(other).arg(&mut *z);
            } else {
                launch.arg(&*z).arg(other);
            }
            unsafe { launch.launch(cfg) }.map_err(gpu_err)?;
        }
        cx.counters.launched(2 * js.sweeps + 1);
        Ok(())
    }

    /// The launch of the kernels that run a thread per row and component (the block-Jacobi
    /// apply and the Jacobi sweeps, cuda/ilu.cu): the factors' loads of a warp contiguous.
    fn per_component_grid(&self) -> LaunchConfig {
        grid(self.block * self.n_rows)
    }

    /// Whether `apply` launches only kernels whose arguments are the same at every call, so
    /// that it can be recorded once into a CUDA graph and replayed: not the sync-free sweeps
    /// (a new epoch per call) nor cuSPARSE.
    pub fn is_recordable(&self, k: &Kernels) -> bool {
        match &self.factors {
            Factors::Jacobi { .. } => true,
            Factors::Cusparse(_) => false,
            Factors::Ilu { swept: Some(_), .. } => true,
            Factors::Ilu { levels, .. } => !levels.sync_free(k),
        }
    }

    /// Parallel steps of one factorization or sweep (1 for block-Jacobi).
    pub fn levels(&self) -> usize {
        match &self.factors {
            Factors::Jacobi { .. } => 1,
            Factors::Cusparse(_) => 0,
            Factors::Ilu { levels, .. } => levels.count(),
        }
    }
}
