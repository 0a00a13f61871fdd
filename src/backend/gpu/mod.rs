//! The CUDA backend (cargo feature `cuda`): the whole explicit solver resident on the device.
//!
//! Every [`Backend`] operation is a CUDA kernel of `cuda/<family>.cu` behind a thin wrapper in
//! `src/backend/gpu/<family>.rs`, twin of `src/backend/cpu/<family>.rs` (docs/architecture.md, "GPU backend"):
//! boundary (interface exchange, characteristic inlet/outlet, walls, corners), convective,
//! viscous (with the SA diffusion and source), timestep (local time step, smoothing
//! coefficients, SA source factor), smoothing (implicit residual smoothing), transfer
//! (multigrid), reduce (norms, minimum) and update (Runge-Kutta stage and element-wise
//! operations). Fields are arenas over all blocks (`arena.rs`), so each operation is one launch
//! for the whole mesh. Nothing runs on the host: there is no fallback, and the only transfers
//! inside a solve are the residual norms, read back every [`Backend::norm_readback_interval`]
//! iterations ([`GpuBackend::counters`] counts them, and the field transfers).
//!
//! Driver errors cannot travel through the trait's `()`-returning operations: the first one is
//! kept, later operations are skipped, and [`Backend::check`] (or the next norm read-back)
//! returns it, so a GPU failure ends a solve with `Error::Gpu`, never a silent result.

mod arena;
mod boundary;
mod convective;
mod cusparse_ilu;
mod ilu;
mod implicit_ops;
mod jacobian;
mod reduce;
mod smoothing;
mod timestep;
mod transfer;
mod update;
mod viscous;
pub(crate) mod worker;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaGraph, CudaStream, LaunchConfig};

pub use arena::{GpuField, GpuGeometry, GpuNormLog, GpuScalars};
pub use implicit_ops::{GpuPreconditioner, GpuVector};
pub use jacobian::GpuJacobian;

use super::cpu::{CpuBackend, CpuField, CpuScalars};
use super::{Backend, BoundaryData, ConvectiveScheme, Physics, SaSourceOptions, NVAR};
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::gpu::GpuDevice;
use crate::mesh::Mesh;
use crate::{Error, Result};

/// Norm read-back interval of the GPU backend: one read-back (a wait for the queued work) per
/// 10 iterations keeps the launch queue full while divergence is still seen within 10.
pub const NORM_READBACK_INTERVAL: usize = 10;

/// What crossed PCIe and how many kernels ran, for tests and benchmarks.
#[derive(Debug, Default)]
pub struct GpuCounters {
    field_transfers: AtomicUsize,
    norm_readbacks: AtomicUsize,
    launches: AtomicUsize,
    graph_launches: AtomicUsize,
}

/// A snapshot of [`GpuCounters`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterSnapshot {
    /// Whole fields or scalar buffers copied between host and device (uploads, downloads).
    pub field_transfers: usize,
    /// Residual-norm read-backs (a few scalars each).
    pub norm_readbacks: usize,
    /// Kernels run (those replayed inside CUDA graphs included).
    pub launches: usize,
    /// CUDA graph launches (each replays many kernels).
    pub graph_launches: usize,
}

impl GpuCounters {
    fn field_transfer(&self) {
        self.field_transfers.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn launched(&self, n: usize) {
        self.launches.fetch_add(n, Ordering::Relaxed);
    }
    fn snapshot(&self) -> CounterSnapshot {
        CounterSnapshot {
            field_transfers: self.field_transfers.load(Ordering::Relaxed),
            norm_readbacks: self.norm_readbacks.load(Ordering::Relaxed),
            launches: self.launches.load(Ordering::Relaxed),
            graph_launches: self.graph_launches.load(Ordering::Relaxed),
        }
    }
}

/// The gas model as the kernels take it (`struct GasArgs` in common.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct GasArgs {
    gas_constant: f64,
    gamma: f64,
    prandtl: f64,
    turbulent_prandtl: f64,
    mu_ref: f64,
    t_ref: f64,
    sutherland_s: f64,
}
unsafe impl cudarc::driver::DeviceRepr for GasArgs {}

impl From<&Gas> for GasArgs {
    fn from(g: &Gas) -> Self {
        GasArgs {
            gas_constant: g.gas_constant,
            gamma: g.gamma,
            prandtl: g.prandtl,
            turbulent_prandtl: g.turbulent_prandtl,
            mu_ref: g.mu_ref,
            t_ref: g.t_ref,
            sutherland_s: g.sutherland_s,
        }
    }
}

/// What a kernel wrapper needs besides its kernels: the stream and the counters.
pub(crate) struct Ctx<'a> {
    pub stream: &'a Arc<CudaStream>,
    pub counters: &'a GpuCounters,
}

/// The kernels of every family, loaded once per backend (compiled once per process).
struct Kernels {
    boundary: boundary::Kernels,
    convective: convective::Kernels,
    viscous: viscous::Kernels,
    timestep: timestep::Kernels,
    smoothing: smoothing::Kernels,
    transfer: transfer::Kernels,
    reduce: reduce::Kernels,
    update: update::Kernels,
    jacobian: jacobian::Kernels,
    ilu: ilu::Kernels,
}

pub struct GpuBackend {
    device: GpuDevice,
    /// Shared by the backends of one device ([`GpuBackend::sibling`]).
    kernels: Arc<Kernels>,
    counters: GpuCounters,
    first_error: Mutex<Option<Error>>,
    /// Record repeated operation sequences as CUDA graphs ([`Backend::run_recorded`]).
    graphs: bool,
    /// Device buffers of the reductions read back at once (inner products, relative change).
    scratch: Mutex<reduce::Scratch>,
}

/// A captured CUDA graph and the kernel launches it holds (counted at every replay).
pub struct GpuRecording {
    graph: CudaGraph,
    launches: usize,
}

impl GpuRecording {
    /// Records the launches `work` queues on `cx`'s stream as a CUDA graph and launches it once
    /// (capture only records: the work runs at this first launch). The capture ends whatever
    /// `work` returned, so the stream always leaves capture mode; its error comes first.
    pub(crate) fn record(cx: &Ctx, what: &str, work: impl FnOnce() -> Result<()>) -> Result<Self> {
        let before = cx.counters.snapshot().launches;
        cx.stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).map_err(gpu_err)?;
        let queued = work();
        let captured = cx.stream.end_capture(CUgraphInstantiate_flags(0));
        queued?;
        let graph = captured.map_err(gpu_err)?.ok_or_else(|| Error::Gpu(format!("CUDA graph capture of {what} recorded nothing")))?;
        graph.launch().map_err(gpu_err)?;
        cx.counters.graph_launches.fetch_add(1, Ordering::Relaxed);
        Ok(GpuRecording { graph, launches: cx.counters.snapshot().launches - before })
    }

    /// Launches the recorded work again, counting its kernels.
    pub(crate) fn replay(&self, cx: &Ctx) -> Result<()> {
        self.graph.launch().map_err(gpu_err)?;
        cx.counters.launched(self.launches);
        cx.counters.graph_launches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

impl GpuBackend {
    /// Opens CUDA device `ordinal` and loads every kernel family (compiled by NVRTC once per
    /// process for the device's architecture).
    pub fn new(ordinal: usize) -> Result<Self> {
        Self::on(GpuDevice::open(ordinal)?)
    }

    /// [`GpuBackend::new`] in a CUDA context of its own rather than the device's primary one:
    /// a worker of the multi-GPU pool (`backend::pool`), isolated from the device's others.
    pub fn with_own_context(ordinal: usize) -> Result<Self> {
        Self::on(GpuDevice::open_own_context(ordinal)?)
    }

    fn on(device: GpuDevice) -> Result<Self> {
        let (major, minor) = device.compute_capability;
        crate::gpu::prepare_families(&format!("sm_{major}{minor}"))?;
        let kernels = Arc::new(Kernels {
            boundary: boundary::Kernels::load(&device)?,
            convective: convective::Kernels::load(&device)?,
            viscous: viscous::Kernels::load(&device)?,
            timestep: timestep::Kernels::load(&device)?,
            smoothing: smoothing::Kernels::load(&device)?,
            transfer: transfer::Kernels::load(&device)?,
            reduce: reduce::Kernels::load(&device)?,
            update: update::Kernels::load(&device)?,
            jacobian: jacobian::Kernels::load(&device)?,
            ilu: ilu::Kernels::load(&device)?,
        });
        let graphs = std::env::var("TURBOPT_CUDA_GRAPHS").map_or(true, |v| v != "0");
        let counters = GpuCounters::default();
        let scratch = Mutex::new(reduce::Scratch::new(&Ctx { stream: &device.stream, counters: &counters })?);
        Ok(GpuBackend { device, kernels, counters, first_error: Mutex::new(None), graphs, scratch })
    }

    /// Another backend on the same device, sharing this one's context and kernels, with a stream,
    /// an error slot, counters and reduction buffers of its own: one design of a batch. Backends
    /// on separate streams run concurrently, and a device error of one never stops another.
    pub fn sibling(&self) -> Result<GpuBackend> {
        let device = self.device.sibling()?;
        let counters = GpuCounters::default();
        let scratch = Mutex::new(reduce::Scratch::new(&Ctx { stream: &device.stream, counters: &counters })?);
        Ok(GpuBackend { device, kernels: self.kernels.clone(), counters, first_error: Mutex::new(None), graphs: self.graphs, scratch })
    }

    /// Free and total device memory \[bytes\].
    pub fn memory(&self) -> Result<(usize, usize)> {
        self.device.ctx.mem_get_info().map_err(gpu_err)
    }

    /// Whether NVIDIA's MPS server runs this device's contexts (`nvidia-cuda-mps-control -d`):
    /// then kernels of separate contexts run side by side instead of taking turns.
    pub fn mps_enabled(&self) -> Result<bool> {
        let mps = cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MPS_ENABLED;
        self.device.ctx.attribute(mps).map(|v| v != 0).map_err(gpu_err)
    }

    /// Streaming multiprocessors of the device.
    pub fn multiprocessors(&self) -> Result<usize> {
        let sm = cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
        self.device.ctx.attribute(sm).map(|n| n.max(1) as usize).map_err(gpu_err)
    }

    /// Whether repeated operation sequences (a Runge-Kutta iteration, a multigrid cycle's
    /// coarse-grid correction) run as CUDA graphs: on by default, off with
    /// `TURBOPT_CUDA_GRAPHS=0` in the environment or through this setter (measurements).
    pub fn set_graphs(&mut self, on: bool) {
        self.graphs = on;
    }

    /// Device name and compute capability, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
    pub fn device_description(&self) -> String {
        let (a, b) = self.device.compute_capability;
        format!("{} (sm_{a}{b})", self.device.name)
    }

    /// Transfers and launches so far.
    pub fn counters(&self) -> CounterSnapshot {
        self.counters.snapshot()
    }

    /// Copy of a device field in the CPU layout (tests and diagnostics; counted as a transfer).
    pub fn field_to_host(&self, g: &GpuGeometry, f: &GpuField) -> Result<CpuField> {
        self.counters.field_transfer();
        let cx = self.ctx();
        let arena = self.scratch.lock().unwrap_or_else(|p| p.into_inner()).read_back(&cx, &f.data.as_view())?;
        Ok(CpuField { blocks: g.from_arena(&arena) })
    }

    /// A device field from a field in the CPU layout (tests; counted as a transfer). Ghosts are
    /// copied too, unlike [`Backend::upload_state`].
    pub fn field_from_host(&self, g: &GpuGeometry, f: &CpuField) -> Result<GpuField> {
        self.counters.field_transfer();
        Ok(GpuField { data: self.stream().clone_htod(&g.to_arena(&f.blocks)).map_err(gpu_err)? })
    }

    /// Copy of a device scalar buffer in the CPU layout (tests; counted as a transfer).
    pub fn scalars_to_host(&self, g: &GpuGeometry, s: &GpuScalars) -> Result<CpuScalars> {
        self.counters.field_transfer();
        let arena = self.stream().clone_dtoh(&s.data).map_err(gpu_err)?;
        Ok(CpuScalars { blocks: g.scalars_from_arena(&arena) })
    }

    /// A device scalar buffer from the CPU layout (tests; counted as a transfer).
    pub fn scalars_from_host(&self, s: &CpuScalars) -> Result<GpuScalars> {
        self.counters.field_transfer();
        let arena = arena::concat(s.blocks.iter());
        Ok(GpuScalars { data: self.stream().clone_htod(&arena).map_err(gpu_err)? })
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.device.stream
    }

    fn ctx(&self) -> Ctx<'_> {
        Ctx { stream: &self.device.stream, counters: &self.counters }
    }

    /// Runs `op` unless an earlier device error is pending; keeps the first error.
    fn guarded(&self, op: impl FnOnce(&Ctx) -> Result<()>) {
        let mut slot = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            if let Err(e) = op(&self.ctx()) {
                *slot = Some(e);
            }
        }
    }

    fn take_error(&self) -> Option<Error> {
        self.first_error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// One thread per item, 128 threads per block: the flux kernels use many registers (thesis
/// 4.2.1 on occupancy).
pub(crate) fn grid(n: usize) -> LaunchConfig {
    let n = n.max(1) as u32;
    LaunchConfig { grid_dim: (n.div_ceil(128), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 }
}

pub(crate) fn gpu_err(e: impl std::fmt::Display) -> Error {
    Error::Gpu(e.to_string())
}

impl Backend for GpuBackend {
    type Field = GpuField;
    type Scalars = GpuScalars;
    type Geometry = GpuGeometry;
    type NormLog = GpuNormLog;
    type Recording = GpuRecording;

    fn name(&self) -> String {
        format!("cuda ({})", self.device_description())
    }

    fn check(&self) -> Result<()> {
        match self.take_error() {
            Some(e) => Err(e),
            None => self.stream().synchronize().map_err(gpu_err),
        }
    }

    fn norm_readback_interval(&self) -> usize {
        NORM_READBACK_INTERVAL
    }

    fn traffic_report(&self) -> Option<String> {
        let c = self.counters();
        Some(format!(
            "GPU: {} kernels, {} CUDA graph launches, {} residual-norm read-backs, {} field transfers",
            c.launches, c.graph_launches, c.norm_readbacks, c.field_transfers
        ))
    }

    fn run_recorded(&self, recording: &mut Option<GpuRecording>, work: &mut dyn FnMut()) -> Result<()> {
        if !self.graphs {
            work();
            return Ok(());
        }
        if let Some(r) = recording {
            return r.replay(&self.ctx());
        }
        if let Some(e) = self.take_error() {
            return Err(e);
        }
        *recording = Some(GpuRecording::record(&self.ctx(), "a repeated sequence", || {
            work();
            self.take_error().map_or(Ok(()), Err)
        })?);
        Ok(())
    }

    fn upload_geometry(&self, mesh: &Mesh) -> Result<GpuGeometry> {
        let host = CpuBackend::geometry(mesh)?;
        GpuGeometry::upload(self.stream(), host)
    }

    fn new_field(&self, g: &GpuGeometry) -> GpuField {
        let n = NVAR * g.n_padded();
        match self.stream().alloc_zeros::<f64>(n) {
            Ok(data) => GpuField { data },
            Err(e) => {
                self.guarded(|_| Err(Error::Gpu(format!("cannot allocate a field of {n} values on the GPU: {e}"))));
                GpuField { data: self.stream().alloc_zeros::<f64>(1).expect("a one-value allocation after a failed one") }
            }
        }
    }

    fn new_scalars(&self, g: &GpuGeometry) -> GpuScalars {
        let n = g.n_interior();
        match self.stream().alloc_zeros::<f64>(n) {
            Ok(data) => GpuScalars { data },
            Err(e) => {
                self.guarded(|_| Err(Error::Gpu(format!("cannot allocate {n} cell values on the GPU: {e}"))));
                GpuScalars { data: self.stream().alloc_zeros::<f64>(1).expect("a one-value allocation after a failed one") }
            }
        }
    }

    fn upload_state(&self, g: &GpuGeometry, state: &Solution) -> Result<GpuField> {
        let host = CpuBackend::host_state(&g.host, state)?;
        self.field_from_host(g, &host)
    }

    fn download_state(&self, g: &GpuGeometry, field: &GpuField) -> Solution {
        let host = self.field_to_host(g, field).unwrap_or_else(|e| {
            self.guarded(|_| Err(e));
            // The pending error surfaces at the next `check`; the shape stays valid.
            CpuField { blocks: g.host.blocks.iter().map(|b| vec![0.0; NVAR * b.layout.n_padded()]).collect() }
        });
        CpuBackend::solution_from_host(&g.host, &host)
    }

    fn copy_field(&self, src: &GpuField, dst: &mut GpuField) {
        self.guarded(|cx| cx.stream.memcpy_dtod(&src.data, &mut dst.data).map_err(gpu_err));
    }

    fn fill_field(&self, field: &mut GpuField, value: f64) {
        self.guarded(|cx| update::fill(&self.kernels.update, cx, &mut field.data, value));
    }

    fn axpy_field(&self, a: f64, x: &GpuField, y: &mut GpuField) {
        self.guarded(|cx| update::axpy(&self.kernels.update, cx, a, &x.data, &mut y.data));
    }

    fn apply_boundary_conditions(&self, g: &GpuGeometry, gas: &Gas, data: &BoundaryData, w: &mut GpuField) {
        self.guarded(|cx| boundary::apply(&self.kernels.boundary, cx, g, gas, data, &mut w.data));
    }

    fn convective_residual(&self, g: &GpuGeometry, gas: &Gas, scheme: &ConvectiveScheme, w: &GpuField, r: &mut GpuField) {
        self.guarded(|cx| convective::residual(&self.kernels.convective, cx, g, gas, scheme, &w.data, &mut r.data));
    }

    fn viscous_residual(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &GpuField, r: &mut GpuField) {
        if !physics.is_viscous() {
            return;
        }
        self.guarded(|cx| viscous::residual(&self.kernels.viscous, cx, g, gas, physics, sa, &w.data, &mut r.data));
    }

    fn turbulence_source_factor(&self, g: &GpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &GpuField, dt: &GpuScalars, factor: &mut GpuScalars) {
        self.guarded(|cx| viscous::source_factor(&self.kernels.viscous, cx, g, gas, sa, false, &w.data, &dt.data, &mut factor.data));
    }

    fn scale_turbulence_residual(&self, g: &GpuGeometry, factor: &GpuScalars, r: &mut GpuField) {
        self.guarded(|cx| update::scale_turbulence_residual(&self.kernels.update, cx, g, super::NFLOW, &factor.data, &mut r.data));
    }

    fn intermittency_source_factor(&self, g: &GpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &GpuField, dt: &GpuScalars, factor: &mut GpuScalars) {
        self.guarded(|cx| viscous::source_factor(&self.kernels.viscous, cx, g, gas, sa, true, &w.data, &dt.data, &mut factor.data));
    }

    fn scale_intermittency_residual(&self, g: &GpuGeometry, factor: &GpuScalars, r: &mut GpuField) {
        self.guarded(|cx| update::scale_turbulence_residual(&self.kernels.update, cx, g, super::INTERMITTENCY, &factor.data, &mut r.data));
    }

    fn local_time_step(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, cfl: f64, w: &GpuField, dt: &mut GpuScalars) {
        self.guarded(|cx| timestep::local_time_step(&self.kernels.timestep, cx, g, gas, physics, cfl, &w.data, &mut dt.data));
    }

    fn min_scalar(&self, s: &GpuScalars) -> f64 {
        let mut out = f64::NAN;
        self.guarded(|cx| {
            out = reduce::min(&self.kernels.reduce, cx, &s.data)?;
            Ok(())
        });
        out
    }

    fn fill_scalars(&self, s: &mut GpuScalars, value: f64) {
        self.guarded(|cx| update::fill(&self.kernels.update, cx, &mut s.data, value));
    }

    fn rk_stage_update(&self, g: &GpuGeometry, nvar: usize, alpha: f64, w0: &GpuField, r: &GpuField, dt: &GpuScalars, w: &mut GpuField) {
        self.guarded(|cx| update::rk_stage(&self.kernels.update, cx, g, nvar, alpha, &w0.data, &r.data, &dt.data, &mut w.data));
    }

    fn bound_intermittency(&self, g: &GpuGeometry, w: &mut GpuField) {
        self.guarded(|cx| update::bound_intermittency(&self.kernels.update, cx, g, &mut w.data));
    }

    fn smooth_residual(&self, g: &GpuGeometry, nvar: usize, epsilon: [f64; 2], r: &mut GpuField) {
        self.guarded(|cx| smoothing::smooth_constant(&self.kernels.smoothing, cx, g, nvar, epsilon, &mut r.data));
    }

    fn smoothing_coefficients(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, cfl_ratio: f64, c: f64, w: &GpuField, eps: &mut [GpuScalars; 2]) {
        let [ei, ej] = eps;
        self.guarded(|cx| timestep::smoothing_coefficients(&self.kernels.timestep, cx, g, gas, physics, cfl_ratio, c, &w.data, &mut ei.data, &mut ej.data));
    }

    fn smooth_residual_variable(&self, g: &GpuGeometry, nvar: usize, eps: &[GpuScalars; 2], r: &mut GpuField) {
        self.guarded(|cx| smoothing::smooth_variable(&self.kernels.smoothing, cx, g, nvar, &eps[0].data, &eps[1].data, &mut r.data));
    }

    fn residual_norms(&self, g: &GpuGeometry, r: &GpuField) -> [f64; NVAR] {
        let mut log = self.new_norm_log(1);
        self.log_residual_norms(g, r, &mut log, 0);
        match self.read_norm_log(&log, 1) {
            Ok(v) => v[0],
            Err(e) => {
                self.guarded(|_| Err(e));
                [f64::NAN; NVAR]
            }
        }
    }

    fn new_norm_log(&self, capacity: usize) -> GpuNormLog {
        let alloc = |n: usize| self.stream().alloc_zeros::<f64>(n);
        match (alloc(NVAR * capacity.max(1)), alloc(NVAR * reduce::REDUCE_BLOCKS)) {
            (Ok(slots), Ok(partials)) => GpuNormLog { slots, partials, capacity },
            (Err(e), _) | (_, Err(e)) => {
                self.guarded(|_| Err(Error::Gpu(format!("cannot allocate the residual-norm log: {e}"))));
                GpuNormLog { slots: alloc(1).expect("a one-value allocation"), partials: alloc(1).expect("a one-value allocation"), capacity: 0 }
            }
        }
    }

    fn log_residual_norms(&self, g: &GpuGeometry, r: &GpuField, log: &mut GpuNormLog, slot: usize) {
        self.guarded(|cx| reduce::residual_norms(&self.kernels.reduce, cx, g, &r.data, log, slot));
    }

    fn read_norm_log(&self, log: &GpuNormLog, n: usize) -> Result<Vec<[f64; NVAR]>> {
        if let Some(e) = self.take_error() {
            return Err(e);
        }
        if n > log.capacity {
            return Err(Error::Gpu(format!("norm log read of {n} slots, capacity {}", log.capacity)));
        }
        self.counters.norm_readbacks.fetch_add(1, Ordering::Relaxed);
        let cx = self.ctx();
        let values = self.scratch.lock().unwrap_or_else(|p| p.into_inner()).read_back(&cx, &log.slots.slice(..NVAR * n))?;
        Ok(values.chunks_exact(NVAR).map(|c| std::array::from_fn(|v| c[v])).collect())
    }

    fn restrict_state(&self, fine: &GpuGeometry, coarse: &GpuGeometry, w_fine: &GpuField, w_coarse: &mut GpuField) {
        self.guarded(|cx| transfer::restrict_state(&self.kernels.transfer, cx, fine, coarse, &w_fine.data, &mut w_coarse.data));
    }

    fn restrict_residual(&self, fine: &GpuGeometry, coarse: &GpuGeometry, r_fine: &GpuField, r_coarse: &mut GpuField) {
        self.guarded(|cx| transfer::restrict_residual(&self.kernels.transfer, cx, fine, coarse, &r_fine.data, &mut r_coarse.data));
    }

    fn prolong_correction(&self, coarse: &GpuGeometry, fine: &GpuGeometry, w_coarse: &GpuField, w_coarse_start: &GpuField, w_fine: &mut GpuField) {
        self.guarded(|cx| transfer::prolong(&self.kernels.transfer, cx, coarse, fine, &w_coarse.data, &w_coarse_start.data, &mut w_fine.data));
    }
}
