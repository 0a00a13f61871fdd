//! cuSPARSE's level-scheduled ILU(0), the baseline preconditioner of the GPU implicit solver.
//!
//! Why it is here: the thesis (section 5.4) found ILU latency-bound on GPUs: the factorization
//! and both triangular sweeps are chains of dependent rows, so the device idles between
//! wavefronts. cuSPARSE's `bsrilu02` / `bsrsv2` (analysis into levels once, then one pass per
//! level) are the standard implementation of that scheme, and the yardstick against which the
//! project's own level-scheduled and sync-free block ILU(0) in `ilu.rs` is measured: same
//! matrix, same ordering (natural), same factors up to round-off.
//!
//! What it does: the mean-flow system is BSR with 4x4 row-major blocks
//! (`CUSPARSE_DIRECTION_ROW`, block dimension 4); the scalar SA system is the same arrays with
//! block dimension 1, which is CSR. Both run through the BSR routines, which take any block
//! dimension: the CSR triangular solve `csrsv2` was removed in CUDA 12 (cudarc 0.19 binds it
//! for CUDA 11 only), and a second code path through the generic `SpSV` API for one scalar
//! system would buy nothing. `bsrilu02` and `bsrsv2` are marked deprecated since CUDA 12 but
//! are still exported by CUDA 13's libcusparse (cudarc 0.19.10 binds them for `cuda-13000` up to
//! `cuda-13040`); [`library`] checks every entry point before the first call, so a library
//! without them gives `Error::Gpu`, not cudarc's panic.
//!
//! The pattern never changes: [`CusparseIlu::new`] runs the analyses (levels of the
//! factorization and of both sweeps) once, then each [`CusparseIlu::refactorize`] copies the
//! new values and factorizes in place. cuSPARSE's factors are scalar ones on the block pattern:
//! L unit lower triangular (the strictly lower part of each diagonal block included), U upper
//! triangular, both in the one array. ILU(0) factors are the unique unit-lower/upper pair on the
//! pattern whose product matches the matrix there, so this is the same preconditioner as the
//! block ILU(0) of `linalg::ilu` (whose pivot blocks, LU-factorized, give the same pair).
//!
//! Round-off: cuSPARSE factorizes and inverts the diagonal blocks in its own operation order,
//! so its factors and sweeps differ from the CPU's `linalg::ilu::BlockIlu0` (and from `ilu.rs`,
//! which repeats the CPU's order) by round-off, not by algorithm: compare results with a
//! tolerance, never bit for bit.

use std::sync::{Arc, Mutex, OnceLock};

use cudarc::cusparse::sys;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use super::{gpu_err, Ctx};
use crate::{Error, Result};

use sys::cusparseStatus_t::{CUSPARSE_STATUS_SUCCESS, CUSPARSE_STATUS_ZERO_PIVOT};

/// Every cuSPARSE entry point this module calls: cudarc loads each lazily and panics on a
/// missing one, so [`library`] looks them all up first.
const SYMBOLS: &[&str] = &[
    "cusparseCreate",
    "cusparseDestroy",
    "cusparseSetStream",
    "cusparseSetPointerMode",
    "cusparseCreateMatDescr",
    "cusparseDestroyMatDescr",
    "cusparseSetMatType",
    "cusparseSetMatIndexBase",
    "cusparseSetMatFillMode",
    "cusparseSetMatDiagType",
    "cusparseCreateBsrilu02Info",
    "cusparseDestroyBsrilu02Info",
    "cusparseCreateBsrsv2Info",
    "cusparseDestroyBsrsv2Info",
    "cusparseDbsrilu02_bufferSize",
    "cusparseDbsrilu02_analysis",
    "cusparseDbsrilu02",
    "cusparseXbsrilu02_zeroPivot",
    "cusparseDbsrsv2_bufferSize",
    "cusparseDbsrsv2_analysis",
    "cusparseDbsrsv2_solve",
    "cusparseXbsrsv2_zeroPivot",
];

/// Alignment cuSPARSE requires of the work buffer (bytes).
const BUFFER_ALIGN: usize = 128;

/// Whether libcusparse can be loaded and exports every routine used here; checked once per
/// process. cudarc panics on a missing library or symbol, so this runs before any call.
fn library() -> Result<()> {
    static CHECK: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    let check = CHECK.get_or_init(|| {
        if !unsafe { sys::is_culib_present() } {
            return Err("cuSPARSE library (libcusparse.so) not found: install the CUDA toolkit's cuSPARSE or put its directory on LD_LIBRARY_PATH".into());
        }
        let lib = unsafe { sys::culib() };
        let missing: Vec<&str> = SYMBOLS.iter().copied().filter(|name| unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err()).collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "the cuSPARSE library found lacks {} (the legacy bsrilu02/bsrsv2 API, deprecated since CUDA 12, removed from this version)",
                missing.join(", ")
            ))
        }
    });
    check.clone().map_err(Error::Gpu)
}

/// `status` as a result: `Error::Gpu("cuSPARSE <function>: <status>")` unless it is success.
fn check(function: &str, status: sys::cusparseStatus_t) -> Result<()> {
    if status == CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Gpu(format!("cuSPARSE {function}: {status:?}")))
    }
}

/// A cuSPARSE handle, destroyed on drop.
struct Handle(sys::cusparseHandle_t);

impl Handle {
    fn new() -> Result<Self> {
        let mut h = std::ptr::null_mut();
        check("cusparseCreate", unsafe { sys::cusparseCreate(&mut h) })?;
        Ok(Handle(h))
    }

    /// Binds the handle to `stream`: every later call is queued there, in order with the
    /// backend's kernels.
    fn bind(&self, stream: &CudaStream) -> Result<()> {
        check("cusparseSetStream", unsafe { sys::cusparseSetStream(self.0, stream.cu_stream() as sys::cudaStream_t) })
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { sys::cusparseDestroy(self.0) };
    }
}

/// A legacy matrix descriptor (general, zero-based), destroyed on drop.
struct MatDescr(sys::cusparseMatDescr_t);

impl MatDescr {
    /// A descriptor with `fill` and `diag` set (for the triangular factors), or a plain general
    /// one (for the matrix being factorized).
    fn new(triangle: Option<(sys::cusparseFillMode_t, sys::cusparseDiagType_t)>) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        check("cusparseCreateMatDescr", unsafe { sys::cusparseCreateMatDescr(&mut d) })?;
        let descr = MatDescr(d);
        check("cusparseSetMatType", unsafe { sys::cusparseSetMatType(d, sys::cusparseMatrixType_t::CUSPARSE_MATRIX_TYPE_GENERAL) })?;
        check("cusparseSetMatIndexBase", unsafe { sys::cusparseSetMatIndexBase(d, sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO) })?;
        if let Some((fill, diag)) = triangle {
            check("cusparseSetMatFillMode", unsafe { sys::cusparseSetMatFillMode(d, fill) })?;
            check("cusparseSetMatDiagType", unsafe { sys::cusparseSetMatDiagType(d, diag) })?;
        }
        Ok(descr)
    }
}

impl Drop for MatDescr {
    fn drop(&mut self) {
        unsafe { sys::cusparseDestroyMatDescr(self.0) };
    }
}

/// The factorization's analysis (levels) and pivot record, destroyed on drop.
struct IluInfo(sys::bsrilu02Info_t);

impl IluInfo {
    fn new() -> Result<Self> {
        let mut i = std::ptr::null_mut();
        check("cusparseCreateBsrilu02Info", unsafe { sys::cusparseCreateBsrilu02Info(&mut i) })?;
        Ok(IluInfo(i))
    }
}

impl Drop for IluInfo {
    fn drop(&mut self) {
        unsafe { sys::cusparseDestroyBsrilu02Info(self.0) };
    }
}

/// A triangular sweep's analysis (levels), destroyed on drop.
struct SvInfo(sys::bsrsv2Info_t);

impl SvInfo {
    fn new() -> Result<Self> {
        let mut i = std::ptr::null_mut();
        check("cusparseCreateBsrsv2Info", unsafe { sys::cusparseCreateBsrsv2Info(&mut i) })?;
        Ok(SvInfo(i))
    }
}

impl Drop for SvInfo {
    fn drop(&mut self) {
        unsafe { sys::cusparseDestroyBsrsv2Info(self.0) };
    }
}

const DIRECTION: sys::cusparseDirection_t = sys::cusparseDirection_t::CUSPARSE_DIRECTION_ROW;
const POLICY: sys::cusparseSolvePolicy_t = sys::cusparseSolvePolicy_t::CUSPARSE_SOLVE_POLICY_USE_LEVEL;
const NON_TRANSPOSE: sys::cusparseOperation_t = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;

/// ILU(0) of one system (4x4 BSR or scalar CSR) factorized and applied by cuSPARSE on the
/// backend's stream.
pub(super) struct CusparseIlu {
    // Field order is drop order: the cuSPARSE objects go before the stream they were used on.
    handle: Handle,
    descr_m: MatDescr,
    descr_l: MatDescr,
    descr_u: MatDescr,
    info_m: IluInfo,
    info_l: SvInfo,
    info_u: SvInfo,
    /// Block dimension: 4 (mean flow, BSR) or 1 (SA, CSR).
    block: usize,
    /// Block rows.
    n_rows: usize,
    /// Stored blocks.
    nnzb: usize,
    /// The pattern (copied: the sweeps run without the matrix at hand).
    row_ptr: CudaSlice<i32>,
    cols: CudaSlice<i32>,
    /// The matrix values, factorized in place into L (unit lower, diagonal not stored) and U.
    lu: CudaSlice<f64>,
    /// Work buffer of the factorization and both sweeps (the largest of their sizes), with
    /// `buffer_offset` bytes skipped to reach cuSPARSE's alignment.
    buffer: CudaSlice<u8>,
    buffer_offset: usize,
    /// The zero pivot position cuSPARSE writes on the device (-1: none).
    pivot: CudaSlice<i32>,
    /// The intermediate vector `y` of `L y = r, U z = y` for [`CusparseIlu::apply_scratch`].
    /// Its lock also serializes every use of the handle through `&self`.
    scratch: Mutex<CudaSlice<f64>>,
    stream: Arc<CudaStream>,
}

// SAFETY: the raw cuSPARSE objects are owned by this value alone. Calls through `&mut self`
// are exclusive, and calls through `&self` (the sweeps) hold `scratch`'s lock, so no two host
// threads ever use the handle at once; all device work is queued on one stream.
unsafe impl Send for CusparseIlu {}
unsafe impl Sync for CusparseIlu {}

impl CusparseIlu {
    /// Analyses the pattern of the `n_rows` x `n_rows` block matrix (`block` 4: BSR with
    /// row-major blocks; 1: CSR; zero-based, columns sorted in each row, every diagonal block
    /// stored) once, then factorizes `values`.
    pub fn new(cx: &Ctx, block: usize, n_rows: usize, row_ptr: &CudaSlice<i32>, cols: &CudaSlice<i32>, values: &CudaSlice<f64>) -> Result<Self> {
        library()?;
        let nnzb = cols.len();
        if block == 0 || n_rows == 0 || nnzb == 0 {
            return Err(Error::Gpu(format!("cuSPARSE ILU(0): empty matrix ({n_rows} block rows, {nnzb} blocks of dimension {block})")));
        }
        if row_ptr.len() != n_rows + 1 || values.len() != nnzb * block * block {
            return Err(Error::Gpu(format!(
                "cuSPARSE ILU(0): inconsistent matrix: {} row pointers for {n_rows} rows, {} values for {nnzb} blocks of {block}x{block}",
                row_ptr.len(),
                values.len()
            )));
        }
        let too_large = |n: usize| i32::try_from(n).is_err();
        if too_large(n_rows) || too_large(nnzb) || too_large(values.len()) {
            return Err(Error::Gpu(format!("cuSPARSE ILU(0): matrix of {nnzb} blocks exceeds its 32-bit indices")));
        }
        cx.stream.context().bind_to_thread().map_err(gpu_err)?;

        use sys::cusparseDiagType_t::{CUSPARSE_DIAG_TYPE_NON_UNIT, CUSPARSE_DIAG_TYPE_UNIT};
        use sys::cusparseFillMode_t::{CUSPARSE_FILL_MODE_LOWER, CUSPARSE_FILL_MODE_UPPER};
        let handle = Handle::new()?;
        handle.bind(cx.stream)?;
        let descr_m = MatDescr::new(None)?;
        let descr_l = MatDescr::new(Some((CUSPARSE_FILL_MODE_LOWER, CUSPARSE_DIAG_TYPE_UNIT)))?;
        let descr_u = MatDescr::new(Some((CUSPARSE_FILL_MODE_UPPER, CUSPARSE_DIAG_TYPE_NON_UNIT)))?;
        let (info_m, info_l, info_u) = (IluInfo::new()?, SvInfo::new()?, SvInfo::new()?);

        let row_ptr = cx.stream.clone_dtod(row_ptr).map_err(gpu_err)?;
        let cols = cx.stream.clone_dtod(cols).map_err(gpu_err)?;
        let mut lu = cx.stream.clone_dtod(values).map_err(gpu_err)?;
        let (mb, nb, bd) = (n_rows as i32, nnzb as i32, block as i32);

        // Work buffer sizes of the factorization and of both sweeps; one buffer serves all three.
        let mut sizes = [0i32; 3];
        {
            let (rp, _rp) = row_ptr.device_ptr(cx.stream);
            let (ci, _ci) = cols.device_ptr(cx.stream);
            let (v, _v) = lu.device_ptr_mut(cx.stream);
            let (rp, ci, v) = (rp as *const i32, ci as *const i32, v as *mut f64);
            check("cusparseDbsrilu02_bufferSize", unsafe {
                sys::cusparseDbsrilu02_bufferSize(handle.0, DIRECTION, mb, nb, descr_m.0, v, rp, ci, bd, info_m.0, &mut sizes[0])
            })?;
            check("cusparseDbsrsv2_bufferSize", unsafe {
                sys::cusparseDbsrsv2_bufferSize(handle.0, DIRECTION, NON_TRANSPOSE, mb, nb, descr_l.0, v, rp, ci, bd, info_l.0, &mut sizes[1])
            })?;
            check("cusparseDbsrsv2_bufferSize", unsafe {
                sys::cusparseDbsrsv2_bufferSize(handle.0, DIRECTION, NON_TRANSPOSE, mb, nb, descr_u.0, v, rp, ci, bd, info_u.0, &mut sizes[2])
            })?;
        }
        let size = sizes.iter().map(|&s| s.max(0) as usize).max().unwrap_or(0).max(1);
        let buffer = cx.stream.alloc_zeros::<u8>(size + BUFFER_ALIGN).map_err(gpu_err)?;
        let base = buffer.device_ptr(cx.stream).0 as usize;
        let buffer_offset = base.next_multiple_of(BUFFER_ALIGN) - base;

        let pivot = cx.stream.clone_htod(&[-1i32]).map_err(gpu_err)?;
        let scratch = Mutex::new(cx.stream.alloc_zeros::<f64>(block * n_rows).map_err(gpu_err)?);
        let mut ilu = CusparseIlu {
            handle,
            descr_m,
            descr_l,
            descr_u,
            info_m,
            info_l,
            info_u,
            block,
            n_rows,
            nnzb,
            row_ptr,
            cols,
            lu,
            buffer,
            buffer_offset,
            pivot,
            scratch,
            stream: cx.stream.clone(),
        };
        ilu.analyse(cx)?;
        ilu.factorize(cx)?;
        Ok(ilu)
    }

    /// Levels of the factorization and of both sweeps (pattern only), and a check that every
    /// diagonal block is stored.
    fn analyse(&mut self, cx: &Ctx) -> Result<()> {
        let (mb, nb, bd) = (self.n_rows as i32, self.nnzb as i32, self.block as i32);
        let (rp, _rp) = self.row_ptr.device_ptr(cx.stream);
        let (ci, _ci) = self.cols.device_ptr(cx.stream);
        let (v, _v) = self.lu.device_ptr_mut(cx.stream);
        let (b, _b) = self.buffer.device_ptr_mut(cx.stream);
        let (rp, ci, v) = (rp as *const i32, ci as *const i32, v as *mut f64);
        let buf = (b as usize + self.buffer_offset) as *mut std::ffi::c_void;
        let h = self.handle.0;
        check("cusparseDbsrilu02_analysis", unsafe {
            sys::cusparseDbsrilu02_analysis(h, DIRECTION, mb, nb, self.descr_m.0, v, rp, ci, bd, self.info_m.0, POLICY, buf)
        })?;
        // A structural zero (a missing diagonal block) is known on the host after the analysis.
        let mut structural = -1i32;
        match unsafe { sys::cusparseXbsrilu02_zeroPivot(h, self.info_m.0, &mut structural) } {
            CUSPARSE_STATUS_ZERO_PIVOT => {
                return Err(Error::Gpu(format!("cuSPARSE ILU(0): no diagonal block stored in row {structural}")));
            }
            status => check("cusparseXbsrilu02_zeroPivot", status)?,
        }
        check("cusparseDbsrsv2_analysis", unsafe {
            sys::cusparseDbsrsv2_analysis(h, DIRECTION, NON_TRANSPOSE, mb, nb, self.descr_l.0, v, rp, ci, bd, self.info_l.0, POLICY, buf)
        })?;
        check("cusparseDbsrsv2_analysis", unsafe {
            sys::cusparseDbsrsv2_analysis(h, DIRECTION, NON_TRANSPOSE, mb, nb, self.descr_u.0, v, rp, ci, bd, self.info_u.0, POLICY, buf)
        })?;
        let mut structural = -1i32;
        match unsafe { sys::cusparseXbsrsv2_zeroPivot(h, self.info_u.0, &mut structural) } {
            CUSPARSE_STATUS_ZERO_PIVOT => Err(Error::Gpu(format!("cuSPARSE ILU(0): no diagonal block stored in row {structural}"))),
            status => check("cusparseXbsrsv2_zeroPivot", status),
        }
    }

    /// Recomputes the factors from `values` (same pattern as at [`CusparseIlu::new`]). One
    /// read-back (the zero-pivot position) per factorization.
    pub fn refactorize(&mut self, cx: &Ctx, values: &CudaSlice<f64>) -> Result<()> {
        if values.len() != self.lu.len() {
            return Err(Error::Gpu(format!("cuSPARSE ILU(0): {} values given for a pattern of {}", values.len(), self.lu.len())));
        }
        cx.stream.context().bind_to_thread().map_err(gpu_err)?;
        cx.stream.memcpy_dtod(values, &mut self.lu).map_err(gpu_err)?;
        self.factorize(cx)
    }

    /// Factorizes `lu` in place and checks the pivots.
    fn factorize(&mut self, cx: &Ctx) -> Result<()> {
        self.handle.bind(cx.stream)?;
        let (mb, nb, bd) = (self.n_rows as i32, self.nnzb as i32, self.block as i32);
        let h = self.handle.0;
        {
            let (rp, _rp) = self.row_ptr.device_ptr(cx.stream);
            let (ci, _ci) = self.cols.device_ptr(cx.stream);
            let (v, _v) = self.lu.device_ptr_mut(cx.stream);
            let (b, _b) = self.buffer.device_ptr_mut(cx.stream);
            let buf = (b as usize + self.buffer_offset) as *mut std::ffi::c_void;
            check("cusparseDbsrilu02", unsafe {
                sys::cusparseDbsrilu02(h, DIRECTION, mb, nb, self.descr_m.0, v as *mut f64, rp as *const i32, ci as *const i32, bd, self.info_m.0, POLICY, buf)
            })?;
        }
        cx.counters.launched(1);
        // The pivot position goes to device memory, in stream order, and comes back with one
        // read-back of our stream (host pointer mode would make cuSPARSE synchronize the whole
        // device, stalling the other designs of a batch).
        cx.stream.memcpy_htod(&[-1i32], &mut self.pivot).map_err(gpu_err)?;
        let pointer_mode = |mode| check("cusparseSetPointerMode", unsafe { sys::cusparseSetPointerMode(h, mode) });
        pointer_mode(sys::cusparsePointerMode_t::CUSPARSE_POINTER_MODE_DEVICE)?;
        let status = {
            let (p, _p) = self.pivot.device_ptr_mut(cx.stream);
            unsafe { sys::cusparseXbsrilu02_zeroPivot(h, self.info_m.0, p as *mut i32) }
        };
        pointer_mode(sys::cusparsePointerMode_t::CUSPARSE_POINTER_MODE_HOST)?;
        // With the position in device memory, a zero pivot may or may not also show in the status.
        if status != CUSPARSE_STATUS_ZERO_PIVOT {
            check("cusparseXbsrilu02_zeroPivot", status)?;
        }
        let row = cx.stream.clone_dtoh(&self.pivot).map_err(gpu_err)?[0];
        if row >= 0 {
            return Err(Error::Other(format!("preconditioner factorization failed: singular diagonal block in row {row}")));
        }
        Ok(())
    }

    /// `z = (LU)^-1 r`: `L tmp = r`, then `U z = tmp`, with the intermediate vector `tmp` kept
    /// here (for `&self` callers that have no spare vector at hand). Both hold `block * n_rows`
    /// values.
    pub fn apply_scratch(&self, cx: &Ctx, r: &CudaSlice<f64>, z: &mut CudaSlice<f64>) -> Result<()> {
        let mut tmp = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        self.sweeps(cx, r, z, &mut tmp)
    }

    /// The two triangular solves; the caller holds `scratch`'s lock.
    fn sweeps(&self, cx: &Ctx, r: &CudaSlice<f64>, z: &mut CudaSlice<f64>, tmp: &mut CudaSlice<f64>) -> Result<()> {
        let n = self.block * self.n_rows;
        if r.len() < n || z.len() < n || tmp.len() < n {
            return Err(Error::Gpu(format!("cuSPARSE ILU(0) apply: vectors of {}, {} and {} values for a system of {n}", r.len(), z.len(), tmp.len())));
        }
        cx.stream.context().bind_to_thread().map_err(gpu_err)?;
        self.handle.bind(cx.stream)?;
        let (mb, nb, bd) = (self.n_rows as i32, self.nnzb as i32, self.block as i32);
        let h = self.handle.0;
        let one = 1.0f64;
        let (rp, _rp) = self.row_ptr.device_ptr(cx.stream);
        let (ci, _ci) = self.cols.device_ptr(cx.stream);
        let (v, _v) = self.lu.device_ptr(cx.stream);
        // The sweeps use the buffer as cuSPARSE's workspace; device memory behind `&self` is
        // fine to write here because the lock serializes every user of this object.
        let (b, _b) = self.buffer.device_ptr(cx.stream);
        let (rp, ci, v) = (rp as *const i32, ci as *const i32, v as *const f64);
        let buf = (b as usize + self.buffer_offset) as *mut std::ffi::c_void;
        {
            let (x, _x) = r.device_ptr(cx.stream);
            let (y, _y) = tmp.device_ptr_mut(cx.stream);
            check("cusparseDbsrsv2_solve", unsafe {
                sys::cusparseDbsrsv2_solve(
                    h,
                    DIRECTION,
                    NON_TRANSPOSE,
                    mb,
                    nb,
                    &one,
                    self.descr_l.0,
                    v,
                    rp,
                    ci,
                    bd,
                    self.info_l.0,
                    x as *const f64,
                    y as *mut f64,
                    POLICY,
                    buf,
                )
            })?;
        }
        {
            let (x, _x) = tmp.device_ptr(cx.stream);
            let (y, _y) = z.device_ptr_mut(cx.stream);
            check("cusparseDbsrsv2_solve", unsafe {
                sys::cusparseDbsrsv2_solve(
                    h,
                    DIRECTION,
                    NON_TRANSPOSE,
                    mb,
                    nb,
                    &one,
                    self.descr_u.0,
                    v,
                    rp,
                    ci,
                    bd,
                    self.info_u.0,
                    x as *const f64,
                    y as *mut f64,
                    POLICY,
                    buf,
                )
            })?;
        }
        cx.counters.launched(2);
        Ok(())
    }
}

impl Drop for CusparseIlu {
    /// The handle, descriptors and infos are destroyed by their own drops, right after this;
    /// cuSPARSE needs the device's context current on the dropping thread for that.
    fn drop(&mut self) {
        let _ = self.stream.context().bind_to_thread();
    }
}

#[cfg(test)]
mod tests {
    /// Without libcusparse (or with one lacking the legacy routines) the check is an
    /// `Error::Gpu`, never cudarc's panic.
    #[test]
    fn library_check_never_panics() {
        match super::library() {
            Ok(()) => {}
            Err(crate::Error::Gpu(m)) => assert!(m.contains("cuSPARSE"), "{m}"),
            Err(e) => panic!("unexpected error kind: {e}"),
        }
    }
}
