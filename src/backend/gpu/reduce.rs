//! Launch wrappers of `cuda/reduce.cu`: deterministic two-pass reductions (fixed grid, fixed
//! summation order), twins of `CpuBackend::residual_norms` and `CpuBackend::min_scalar`.

use cudarc::driver::{CudaFunction, CudaSlice, CudaView, CudaViewMut, LaunchConfig, PushKernelArg};

use super::{gpu_err, Ctx, GpuGeometry, GpuNormLog};
use crate::backend::NVAR;
use crate::gpu::GpuDevice;
use crate::backend::GramSchmidt;
use crate::Result;

/// Blocks (and threads per block) of the first pass; `REDUCE_BLOCKS` in reduce.cu.
pub(super) const REDUCE_BLOCKS: usize = 256;

pub(super) struct Kernels {
    residual_square_partials: CudaFunction,
    residual_norms_finish: CudaFunction,
    min_partials: CudaFunction,
    min_finish: CudaFunction,
    relative_change_partials: CudaFunction,
    max_finish: CudaFunction,
    dot_fused: CudaFunction,
    subtract_projection_dot: CudaFunction,
    basis_dots: CudaFunction,
    subtract_combination: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("reduce")?;
        Ok(Kernels {
            residual_square_partials: m.function("residual_square_partials")?,
            residual_norms_finish: m.function("residual_norms_finish")?,
            min_partials: m.function("min_partials")?,
            min_finish: m.function("min_finish")?,
            relative_change_partials: m.function("relative_change_partials")?,
            max_finish: m.function("max_finish")?,
            dot_fused: m.function("dot_fused")?,
            subtract_projection_dot: m.function("subtract_projection_dot")?,
            basis_dots: m.function("basis_dots")?,
            subtract_combination: m.function("subtract_combination")?,
        })
    }
}

fn fixed(blocks: usize) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (REDUCE_BLOCKS as u32, 1, 1), shared_mem_bytes: 0 }
}

/// Elements each thread of an inner product adds before the block tree.
const ELEMENTS_PER_THREAD: usize = 8;

/// Blocks of the one-launch inner products of vectors of `n` entries: enough for about
/// [`ELEMENTS_PER_THREAD`] entries a thread, at most `REDUCE_BLOCKS`. The Krylov vectors of a 2D
/// cascade mesh have 15-250 thousand entries: a fixed 256-block grid gave each thread one entry
/// and spent the launch in 256 shared-memory trees, which, with the designs of a batch sharing
/// the GPU, held as many thread slots as the triangular sweeps (H100, BENCHMARKS.md).
/// The grid depends on `n` only, so a product's summation order is fixed for a system.
fn inner_product_blocks(n: usize) -> usize {
    n.div_ceil(REDUCE_BLOCKS * ELEMENTS_PER_THREAD).clamp(1, REDUCE_BLOCKS)
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

/// Device buffers of the reductions whose result is read back at once (inner products, the
/// relative change): kept by the backend so that no reduction allocates.
pub(super) struct Scratch {
    partials: CudaSlice<f64>,
    out: CudaSlice<f64>,
    /// The Gram-Schmidt coefficients of one Arnoldi step (grown on demand).
    coefficients: CudaSlice<f64>,
    /// The blocks of a `dot_fused` launch that have finished (reset by its last block).
    ticket: CudaSlice<u32>,
    /// The partial sums of `basis_dots`: one row of blocks per basis vector.
    basis_partials: CudaSlice<f64>,
    /// The results of [`dots`] (grown on demand).
    inner_products: CudaSlice<f64>,
    /// Where the read-backs land.
    host: PinnedReadBack,
}

impl Scratch {
    pub fn new(cx: &Ctx) -> Result<Self> {
        let zeros = |n: usize| cx.stream.alloc_zeros::<f64>(n).map_err(gpu_err);
        let ticket = cx.stream.alloc_zeros::<u32>(1).map_err(gpu_err)?;
        let host = PinnedReadBack::new(cx, 2 * MAX_BASIS + 1)?;
        Ok(Scratch { partials: zeros(REDUCE_BLOCKS)?, out: zeros(1)?, coefficients: zeros(64)?, ticket, basis_partials: zeros(MAX_BASIS * REDUCE_BLOCKS)?, inner_products: zeros(32)?, host })
    }

    /// The one-value result of the last queued reduction, on the device.
    pub(super) fn result(&self) -> &CudaSlice<f64> {
        &self.out
    }

    fn read(&mut self, cx: &Ctx) -> Result<f64> {
        Ok(self.host.read(cx, &self.out.as_view())?[0])
    }

    /// The values of `src` after the stream's queued work (one copy and one wait).
    pub(super) fn read_back(&mut self, cx: &Ctx, src: &CudaView<f64>) -> Result<Vec<f64>> {
        self.host.read(cx, src)
    }
}

/// `a . b` (`root`: its square root) into `out` on the device, one launch.
fn dot_into(k: &Kernels, cx: &Ctx, partials: &mut CudaSlice<f64>, ticket: &mut CudaSlice<u32>, a: &CudaSlice<f64>, b: &CudaSlice<f64>, out: &mut CudaViewMut<f64>, root: bool) -> Result<()> {
    let n = a.len().min(b.len()) as i32;
    let root = root as i32;
    let grid = fixed(inner_product_blocks(n as usize));
    unsafe { cx.stream.launch_builder(&k.dot_fused).arg(&n).arg(a).arg(b).arg(partials).arg(ticket).arg(out).arg(&root).launch(grid) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `a . b` (read back).
pub(super) fn dot(k: &Kernels, cx: &Ctx, scratch: &mut Scratch, a: &CudaSlice<f64>, b: &CudaSlice<f64>) -> Result<f64> {
    let mut out = scratch.out.slice_mut(0..1);
    dot_into(k, cx, &mut scratch.partials, &mut scratch.ticket, a, b, &mut out, false)?;
    scratch.read(cx)
}

/// `a . b` for every pair: one `dot_fused` launch each (the kernel of [`dot`], so the same
/// values), queued one after the other into a device array and read back once.
pub(super) fn dots(k: &Kernels, cx: &Ctx, scratch: &mut Scratch, pairs: &[(&CudaSlice<f64>, &CudaSlice<f64>)]) -> Result<Vec<f64>> {
    let m = pairs.len();
    if m == 0 {
        return Ok(Vec::new());
    }
    if scratch.inner_products.len() < m {
        scratch.inner_products = cx.stream.alloc_zeros::<f64>(2 * m).map_err(gpu_err)?;
    }
    for (i, (a, b)) in pairs.iter().enumerate() {
        let mut out = scratch.inner_products.slice_mut(i..i + 1);
        dot_into(k, cx, &mut scratch.partials, &mut scratch.ticket, a, b, &mut out, false)?;
    }
    scratch.host.read(cx, &scratch.inner_products.slice(0..m))
}

/// The new state whose relative change from `w` [`relative_change`] measures (`mode` of
/// `relative_change_partials`).
#[derive(Clone, Copy)]
pub(super) enum NewState<'a> {
    /// `w` itself: 0 when physical, infinite if not.
    Same,
    /// `w + dw`.
    Plus(&'a CudaSlice<f64>),
    /// Another state.
    Given(&'a CudaSlice<f64>),
}

/// Largest relative change of density or pressure from `w` to `new` over the interior cells,
/// infinite where `new` is not physical, into the scratch's result on the device (not read back;
/// [`Scratch::result`]).
pub(super) fn queue_relative_change(k: &Kernels, cx: &Ctx, scratch: &mut Scratch, g: &GpuGeometry, gamma: f64, w: &CudaSlice<f64>, new: NewState) -> Result<()> {
    let (mode, other): (i32, &CudaSlice<f64>) = match new {
        NewState::Same => (0, w),
        NewState::Plus(dw) => (1, dw),
        NewState::Given(to) => (2, to),
    };
    unsafe {
        cx.stream
            .launch_builder(&k.relative_change_partials)
            .arg(&g.blocks)
            .arg(&g.extent)
            .arg(&gamma)
            .arg(w)
            .arg(other)
            .arg(&mode)
            .arg(&mut scratch.partials)
            .launch(fixed(REDUCE_BLOCKS))
            .map_err(gpu_err)?;
        cx.stream.launch_builder(&k.max_finish).arg(&scratch.partials).arg(&mut scratch.out).launch(fixed(1)).map_err(gpu_err)?;
    }
    cx.counters.launched(2);
    Ok(())
}

/// [`queue_relative_change`], read back.
pub(super) fn relative_change(k: &Kernels, cx: &Ctx, scratch: &mut Scratch, g: &GpuGeometry, gamma: f64, w: &CudaSlice<f64>, new: NewState) -> Result<f64> {
    queue_relative_change(k, cx, scratch, g, gamma, w, new)?;
    scratch.read(cx)
}

impl Scratch {
    /// Room for the coefficients of a step with `m` basis vectors (allocated before a graph
    /// capture, which must not allocate).
    pub(super) fn reserve(&mut self, cx: &Ctx, m: usize) -> Result<()> {
        if self.coefficients.len() < 2 * m + 1 {
            self.coefficients = cx.stream.alloc_zeros::<f64>(2 * (m + 1)).map_err(gpu_err)?;
        }
        Ok(())
    }

    /// The device buffers a queued Gram-Schmidt step writes, as raw addresses (the key of a
    /// recorded step).
    pub(super) fn addresses(&self, cx: &Ctx) -> [u64; 4] {
        use cudarc::driver::DevicePtr;
        [self.partials.device_ptr(cx.stream).0, self.ticket.device_ptr(cx.stream).0, self.coefficients.device_ptr(cx.stream).0, self.basis_partials.device_ptr(cx.stream).0]
    }

    /// The Hessenberg column h_0..h_m-1 and ||w|| of the last step queued with `m` basis vectors
    /// (one read-back). Modified Gram-Schmidt leaves h and ||w|| in slots 0..m and m; classical
    /// Gram-Schmidt applied twice leaves c_1, c_2 and ||w|| in 0..m, m..2m and 2m, and h = c_1 + c_2.
    pub(super) fn hessenberg_column_to_host(&mut self, cx: &Ctx, m: usize, method: GramSchmidt) -> Result<(Vec<f64>, f64)> {
        match method {
            GramSchmidt::Modified => {
                let h = self.host.read(cx, &self.coefficients.slice(0..m + 1))?;
                Ok((h[..m].to_vec(), h[m]))
            }
            GramSchmidt::ClassicalTwice => {
                let c = self.host.read(cx, &self.coefficients.slice(0..2 * m + 1))?;
                Ok(((0..m).map(|i| 0.0 + c[i] + c[m + i]).collect(), c[2 * m]))
            }
        }
    }
}

/// Page-locked host memory for a stream's small read-backs (Krylov coefficients, inner products,
/// residual norms), written by an asynchronous copy the stream then waits for. A copy to
/// pageable memory (`clone_dtoh` into a `Vec`) goes through the driver's own staging buffer
/// instead, which the streams of one context share.
pub(super) struct PinnedReadBack {
    ptr: *mut f64,
    len: usize,
    ctx: std::sync::Arc<cudarc::driver::CudaContext>,
}

// SAFETY: the buffer is only touched through `&mut self`, after its stream's copy has completed.
unsafe impl Send for PinnedReadBack {}
unsafe impl Sync for PinnedReadBack {}

impl PinnedReadBack {
    fn new(cx: &Ctx, len: usize) -> Result<Self> {
        let ctx = cx.stream.context().clone();
        ctx.bind_to_thread().map_err(gpu_err)?;
        let ptr = unsafe { cudarc::driver::result::malloc_host(len * std::mem::size_of::<f64>(), 0) }.map_err(gpu_err)? as *mut f64;
        Ok(PinnedReadBack { ptr, len, ctx })
    }

    /// The values of `src`, once the work queued on `cx`'s stream before it has run.
    fn read(&mut self, cx: &Ctx, src: &CudaView<f64>) -> Result<Vec<f64>> {
        use cudarc::driver::DevicePtr;
        let n = src.len();
        if n > self.len {
            *self = PinnedReadBack::new(cx, n.max(2 * self.len))?;
        }
        let (address, _record) = src.device_ptr(cx.stream);
        // SAFETY: `ptr` holds `len >= n` values; nothing else reads or writes them until the
        // stream has finished the copy (the synchronize below).
        let host = unsafe { std::slice::from_raw_parts_mut(self.ptr, n) };
        unsafe { cudarc::driver::result::memcpy_dtoh_async(host, address, cx.stream.cu_stream()) }.map_err(gpu_err)?;
        cx.stream.synchronize().map_err(gpu_err)?;
        Ok(host.to_vec())
    }
}

impl Drop for PinnedReadBack {
    fn drop(&mut self) {
        // A failure leaves the page-locked memory to the context's teardown.
        if self.ctx.bind_to_thread().is_ok() {
            let _ = unsafe { cudarc::driver::result::free_host(self.ptr as *mut std::ffi::c_void) };
        }
    }
}

/// Most basis vectors a classical Gram-Schmidt launch takes (`MAX_BASIS` in reduce.cu): FGMRES
/// restarts beyond 63 take the modified one.
pub(super) const MAX_BASIS: usize = 64;

/// The addresses of a Krylov basis, passed by value as a kernel parameter (`Basis` in reduce.cu).
#[repr(C)]
#[derive(Clone, Copy)]
struct BasisPointers {
    v: [u64; MAX_BASIS],
}

// SAFETY: plain addresses, laid out as reduce.cu's `Basis`.
unsafe impl cudarc::driver::DeviceRepr for BasisPointers {}

/// One Arnoldi step's classical Gram-Schmidt applied twice with the coefficients on the device
/// (`crate::solver::krylov::classical_gram_schmidt_twice`): c = V^T w in one launch, w -= V c in
/// one more, again, then w *= 1/||w||: 5 launches whatever the basis size (modified Gram-Schmidt
/// takes m + 2). The coefficients stay in `scratch` (reserved for `basis.len()`): c_1, c_2 and
/// ||w|| in slots 0..m, m..2m and 2m. Fails beyond [`MAX_BASIS`] vectors.
pub(super) fn classical_gram_schmidt_twice_queued(
    k: &Kernels,
    u: &super::update::Kernels,
    cx: &Ctx,
    scratch: &mut Scratch,
    basis: &[&CudaSlice<f64>],
    w: &mut CudaSlice<f64>,
) -> Result<()> {
    use cudarc::driver::DevicePtr;
    let m = basis.len();
    if m == 0 || m > MAX_BASIS {
        return Err(crate::Error::Gpu(format!("classical Gram-Schmidt takes 1 to {MAX_BASIS} basis vectors, not {m}")));
    }
    let mut pointers = BasisPointers { v: [0; MAX_BASIS] };
    for (p, v) in pointers.v.iter_mut().zip(basis) {
        *p = v.device_ptr(cx.stream).0;
    }
    let (n, mi) = (w.len() as i32, m as i32);
    let blocks = inner_product_blocks(w.len());
    let dots_grid = LaunchConfig { grid_dim: (blocks as u32, m as u32, 1), block_dim: (REDUCE_BLOCKS as u32, 1, 1), shared_mem_bytes: 0 };
    let Scratch { partials, ticket, coefficients, basis_partials, .. } = scratch;
    let (mut c_1, mut rest) = coefficients.split_at_mut(m);
    let (mut c_2, mut rest) = rest.split_at_mut(m);
    let mut norm = rest.slice_mut(0..1);
    // The first pass's subtraction leaves the norm slot alone (with_norm 0); the second writes ||w||.
    for (c, with_norm) in [(&mut c_1, 0i32), (&mut c_2, 1)] {
        unsafe {
            cx.stream.launch_builder(&k.basis_dots).arg(&n).arg(&mi).arg(&pointers).arg(&*w).arg(&mut *basis_partials).arg(&mut *ticket).arg(&mut *c).launch(dots_grid).map_err(gpu_err)?;
            cx.stream
                .launch_builder(&k.subtract_combination)
                .arg(&n)
                .arg(&mi)
                .arg(&pointers)
                .arg(&c.as_view())
                .arg(&mut *w)
                .arg(&mut *partials)
                .arg(&mut *ticket)
                .arg(&mut norm)
                .arg(&with_norm)
                .launch(fixed(blocks))
                .map_err(gpu_err)?;
        }
        cx.counters.launched(2);
    }
    super::update::normalize_by(u, cx, &coefficients.slice(2 * m..2 * m + 1), w)
}

/// One Arnoldi step's modified Gram-Schmidt with the coefficients on the device
/// (`ImplicitBackend::orthogonalize`): h_i = w . v_i and w -= h_i v_i for each basis vector in
/// turn, then h = ||w|| and w *= 1/h, queued without a wait (the coefficients stay in `scratch`,
/// reserved for `basis.len()`, and come back in one read-back). Each subtraction shares its
/// launch with the next inner product (`subtract_projection_dot`), the same arithmetic as `dot`,
/// `axpy` and `scale` one by one: m + 2 launches for m basis vectors.
pub(super) fn gram_schmidt_queued(k: &Kernels, u: &super::update::Kernels, cx: &Ctx, scratch: &mut Scratch, basis: &[&CudaSlice<f64>], w: &mut CudaSlice<f64>) -> Result<()> {
    let m = basis.len();
    let n = w.len() as i32;
    let grid = fixed(inner_product_blocks(w.len()));
    let Scratch { partials, ticket, coefficients, .. } = scratch;
    let first = basis.first().copied().unwrap_or(&*w);
    dot_into(k, cx, partials, ticket, w, first, &mut coefficients.slice_mut(0..1), m == 0)?;
    for i in 1..=m {
        let last = (i == m) as i32;
        // With `last` the kernel forms w . w and does not read `next`.
        let next = if i < m { basis[i] } else { basis[i - 1] };
        let (done, mut rest) = coefficients.split_at_mut(i);
        let c = done.slice(i - 1..i);
        let mut slot = rest.slice_mut(0..1);
        unsafe {
            cx.stream
                .launch_builder(&k.subtract_projection_dot)
                .arg(&n)
                .arg(&c)
                .arg(basis[i - 1])
                .arg(&mut *w)
                .arg(next)
                .arg(&mut *partials)
                .arg(&mut *ticket)
                .arg(&mut slot)
                .arg(&last)
                .launch(grid)
        }
        .map_err(gpu_err)?;
        cx.counters.launched(1);
    }
    super::update::normalize_by(u, cx, &coefficients.slice(m..m + 1), w)
}
