//! Many designs resident on the GPUs of a host at once (thesis chapter 7 found the GPU poor for
//! populations evaluated one after the other; a 2D cascade mesh fills a fraction of a Hopper
//! GPU, so the designs of a batch share it): one worker per entry of the device list (several for
//! a device listed once that runs under MPS, [`worker_devices`]), each a CUDA context of its own
//! with its compiled kernels, and in each worker GPU backends sharing
//! that context, each with its own stream, error slot and buffers. A design takes a backend for
//! its whole evaluation, so designs run concurrently on separate streams and a device error in
//! one design never reaches another (its backend is dropped, not reused; `eval::dispatch`
//! queues the design once more, for another worker).

#[cfg(feature = "cuda")]
use {crate::backend::gpu::GpuBackend, crate::backend::Backend, crate::Result, std::sync::Mutex};

/// Device memory one design of `cells` cells needs with the implicit scheme, with a margin:
/// fields, residuals and metrics (~1 kB per cell), the mean-flow matrix and its ILU factors
/// (2 x 5 blocks x 128 B), and 2 x 21 FGMRES vectors of 4 values (~1.3 kB).
pub const BYTES_PER_CELL: usize = 4096;

/// CUDA contexts (pool workers) a device gets when MPS runs it and the device list names it once.
/// Under MPS the kernels of separate contexts run side by side, and four contexts of four designs
/// ran LS89 test case 1 DE 1.19x faster than one context of sixteen, with the same designs to the
/// last bit (BENCHMARKS.md: 11,369 against 9,578 an hour on an H100);
/// sixteen designs over 8 or 16 contexts gained no more than over 4. Without MPS,
/// contexts take turns on the GPU (two: 0.57x one), so a device gets one context unless listed
/// more often.
pub const MPS_CONTEXTS_PER_DEVICE: usize = 4;

/// The device of each pool worker: the resolved list, with every device that appears in it once
/// and runs under MPS (`mps(ordinal)`) given [`MPS_CONTEXTS_PER_DEVICE`] workers in a row. A
/// device listed more than once keeps the contexts it was given.
pub fn worker_devices(ordinals: &[usize], mps: impl Fn(usize) -> bool) -> Vec<usize> {
    ordinals
        .iter()
        .flat_map(|&d| {
            let once = ordinals.iter().filter(|&&e| e == d).count() == 1;
            let contexts = if once && mps(d) { MPS_CONTEXTS_PER_DEVICE } else { 1 };
            std::iter::repeat_n(d, contexts)
        })
        .collect()
}

/// How many designs of a batch run at once, and what limits it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concurrency {
    pub designs_at_once: usize,
    pub limited_by: BatchLimit,
}

/// What bounds the designs a GPU worker runs at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchLimit {
    BatchSize,
    /// `batch.workers` or `optimize --batch-workers`.
    ConfiguredWorkers,
    /// The host's threads, when no count is configured: the one limit a user may lift.
    HostThreads,
    Multiprocessors,
    DeviceMemory,
}

impl BatchLimit {
    /// What a user can do about it, for the plan line.
    pub fn hint(self) -> &'static str {
        match self {
            BatchLimit::HostThreads => "; batch.workers, `optimize --batch-workers`, raises it",
            _ => "",
        }
    }
}

impl std::fmt::Display for BatchLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BatchLimit::BatchSize => "the batch size",
            BatchLimit::ConfiguredWorkers => "batch.workers",
            BatchLimit::HostThreads => "host threads",
            BatchLimit::Multiprocessors => "multiprocessors",
            BatchLimit::DeviceMemory => "device memory",
        })
    }
}

/// Sizes a batch: at most one design per streaming multiprocessor and per share of the free
/// device memory, no more than the batch holds, and `batch.workers` when it is set, else one
/// design per host thread (each drives its solve from the host). A configured count may exceed
/// the host threads: a design's thread mostly waits on its stream (a DE generation of 40 on two
/// GPUs of a 32-core host runs 16 + 16 designs and then 4 + 4 late ones by default, all 40 at
/// once with 20; about as fast on the hosts measured, BENCHMARKS.md).
pub fn concurrency(designs: usize, configured: Option<usize>, host_threads: usize, multiprocessors: usize, free_bytes: usize, cells: usize) -> Concurrency {
    let per_design = cells.max(1) * BYTES_PER_CELL;
    let memory = (free_bytes / 10 * 9 / per_design).max(1);
    let threads = match configured {
        Some(n) => (n.max(1), BatchLimit::ConfiguredWorkers),
        None => (host_threads.max(1), BatchLimit::HostThreads),
    };
    let limits = [(designs.max(1), BatchLimit::BatchSize), threads, (multiprocessors.max(1), BatchLimit::Multiprocessors), (memory, BatchLimit::DeviceMemory)];
    let (designs_at_once, limited_by) = limits.into_iter().min_by_key(|(n, _)| *n).expect("limits listed");
    Concurrency { designs_at_once, limited_by }
}

/// GPU backends of one worker: a CUDA context of its own on one device, with its compiled
/// kernels, and streams opened on demand and reused by later designs.
#[cfg(feature = "cuda")]
pub struct GpuWorker {
    device: usize,
    /// Whether MPS runs this worker's device.
    mps: bool,
    /// The first backend: opens the context and loads the kernels.
    first: GpuBackend,
    idle: Mutex<Vec<GpuBackend>>,
}

#[cfg(feature = "cuda")]
impl GpuWorker {
    pub fn open(device: usize) -> Result<Self> {
        let first = GpuBackend::with_own_context(device)?;
        // A driver that cannot tell (before CUDA 12.3) is taken as no MPS: one context.
        let mps = first.mps_enabled().unwrap_or(false);
        Ok(GpuWorker { device, mps, first, idle: Mutex::new(Vec::new()) })
    }

    /// A backend of its own for one design: an idle one, or a new stream in this context.
    pub fn take(&self) -> Result<GpuBackend> {
        if let Some(b) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(b);
        }
        self.first.sibling()
    }

    /// Returns a backend after its design; one with a pending device error is dropped, and
    /// the error returned (the design's worker failed, not the design).
    pub fn give_back(&self, backend: GpuBackend) -> Result<()> {
        backend.check()?;
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(backend);
        Ok(())
    }

    /// The device's multiprocessors and free memory [bytes].
    pub fn capacity(&self) -> Result<(usize, usize)> {
        Ok((self.first.multiprocessors()?, self.first.memory()?.0))
    }

    pub fn device(&self) -> usize {
        self.device
    }

    pub fn name(&self) -> String {
        self.first.name()
    }
}

/// The workers of a GPU run: one per entry of the device list (`Devices`), each its own
/// context; designs go to whichever worker's stream frees up first (`eval::dispatch`).
#[cfg(feature = "cuda")]
pub struct GpuPool {
    pub workers: Vec<GpuWorker>,
}

#[cfg(feature = "cuda")]
impl GpuPool {
    /// Opens a worker per device of `devices` on this host, [`MPS_CONTEXTS_PER_DEVICE`] for a
    /// device listed once that runs under MPS ([`worker_devices`]); a device that does not exist
    /// is `Error::Devices(NoSuchDevice)` naming it.
    pub fn open(devices: &crate::backend::Devices) -> Result<Self> {
        let ordinals = devices.resolve(crate::gpu::device_count()?)?;
        let mut listed: Vec<Option<GpuWorker>> = ordinals.iter().map(|&d| GpuWorker::open(d).map(Some)).collect::<Result<_>>()?;
        let layout = worker_devices(&ordinals, |d| listed.iter().flatten().any(|w| w.device == d && w.mps));
        let mut workers = Vec::with_capacity(layout.len());
        for d in layout {
            let opened = listed.iter_mut().find(|w| w.as_ref().is_some_and(|w| w.device == d)).and_then(Option::take);
            workers.push(match opened {
                Some(w) => w,
                None => GpuWorker::open(d)?,
            });
        }
        Ok(GpuPool { workers })
    }

    /// How many designs each worker runs at once for a batch of `designs` designs of about
    /// `cells` cells ([`concurrency`]; the host threads are shared among the workers), and the
    /// line that says so.
    pub fn plan(&self, designs: usize, configured: Option<usize>, cells: usize) -> (Vec<usize>, String) {
        let host = std::thread::available_parallelism().map_or(1, |n| n.get());
        let n = self.workers.len().max(1);
        let mut lines = Vec::new();
        let plan = self
            .workers
            .iter()
            .enumerate()
            .map(|(w, worker)| {
                let share = designs / n + usize::from(w < designs % n);
                let threads = host / n + usize::from(w < host % n);
                // Workers of one device share its free memory.
                let siblings = self.workers.iter().filter(|o| o.device == worker.device).count();
                let mps = if worker.mps { ", MPS" } else { "" };
                match worker.capacity() {
                    Ok((multiprocessors, free)) => {
                        let c = concurrency(share, configured, threads, multiprocessors, free / siblings, cells);
                        lines.push(format!("worker {w} on device {} ({}{mps}): {} at once (limited by {}{})", worker.device, worker.name(), c.designs_at_once, c.limited_by, c.limited_by.hint()));
                        c.designs_at_once
                    }
                    Err(e) => {
                        lines.push(format!("worker {w} on device {}: 1 at once ({e})", worker.device));
                        1
                    }
                }
            })
            .collect();
        (plan, format!("GPU batch: {designs} designs; {}", lines.join("; ")))
    }
}
