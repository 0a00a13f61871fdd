//! Many designs resident on one GPU at once (thesis chapter 7 found the GPU poor for
//! populations evaluated one after the other; a 2D cascade mesh fills a fraction of a Hopper
//! GPU, so the designs of a batch share it): a pool of GPU backends on one device, sharing its
//! context and compiled kernels, each with its own stream, error slot and buffers. A design
//! takes a backend for its whole evaluation, so designs run concurrently on separate streams and
//! a device error in one design never reaches another (its backend is dropped, not reused).

#[cfg(feature = "cuda")]
use {crate::backend::gpu::GpuBackend, crate::backend::Backend, crate::Result, std::sync::Mutex};

/// Device memory one design of `cells` cells needs with the implicit scheme, with a margin:
/// fields, residuals and metrics (~1 kB per cell), the mean-flow matrix and its ILU factors
/// (2 x 5 blocks x 128 B), and 2 x 21 FGMRES vectors of 4 values (~1.3 kB).
pub const BYTES_PER_CELL: usize = 4096;

/// How many designs of a batch run at once, and what limits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concurrency {
    pub designs_at_once: usize,
    pub limited_by: &'static str,
}

/// Sizes a batch: at most one design per host thread (each waits on its stream from the host),
/// per streaming multiprocessor, and per share of the free device memory, and no more than the
/// batch holds or the configuration allows.
pub fn concurrency(designs: usize, configured: Option<usize>, host_threads: usize, multiprocessors: usize, free_bytes: usize, cells: usize) -> Concurrency {
    let per_design = cells.max(1) * BYTES_PER_CELL;
    let memory = (free_bytes / 10 * 9 / per_design).max(1);
    let limits = [
        (designs.max(1), "the batch size"),
        (configured.unwrap_or(usize::MAX), "batch.workers"),
        (host_threads.max(1), "host threads"),
        (multiprocessors.max(1), "multiprocessors"),
        (memory, "device memory"),
    ];
    let (designs_at_once, limited_by) = limits.into_iter().min_by_key(|(n, _)| *n).expect("limits listed");
    Concurrency { designs_at_once, limited_by }
}

/// GPU backends of one device, opened on demand and reused by later designs.
#[cfg(feature = "cuda")]
pub struct GpuPool {
    /// The first backend: opens the device and compiles the kernels.
    first: GpuBackend,
    idle: Mutex<Vec<GpuBackend>>,
}

#[cfg(feature = "cuda")]
impl GpuPool {
    pub fn open(device: usize) -> Result<Self> {
        Ok(GpuPool { first: GpuBackend::new(device)?, idle: Mutex::new(Vec::new()) })
    }

    /// A backend of its own for one design: an idle one, or a new stream on the device.
    pub fn take(&self) -> Result<GpuBackend> {
        if let Some(b) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(b);
        }
        self.first.sibling()
    }

    /// Returns a backend after its design; one with a pending device error is dropped.
    pub fn give_back(&self, backend: GpuBackend) {
        if backend.check().is_ok() {
            self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(backend);
        }
    }

    /// The device's multiprocessors and free memory [bytes].
    pub fn capacity(&self) -> Result<(usize, usize)> {
        Ok((self.first.multiprocessors()?, self.first.memory()?.0))
    }

    pub fn name(&self) -> String {
        self.first.name()
    }
}
