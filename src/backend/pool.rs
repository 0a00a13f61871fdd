//! Many designs resident on the GPUs of a host at once (thesis chapter 7 found the GPU poor for
//! populations evaluated one after the other; a 2D cascade mesh fills a fraction of a Hopper
//! GPU, so the designs of a batch share it): one worker per entry of the device list (several for
//! a device listed once that runs under MPS, [`worker_devices`]), each a CUDA context of its own
//! with its compiled kernels, and in each worker GPU backends sharing
//! that context, each with its own stream, error slot and buffers. A design takes a backend for
//! its whole evaluation, so designs run concurrently on separate streams and a device error in
//! one design never reaches another (its backend is dropped, not reused; `eval::dispatch`
//! queues the design once more, for another worker).
//!
//! [`DevicePool`] is the GPU side of `backend::select`: the one place a pool of devices is opened;
//! in a build without the `cuda` feature opening it is the error that says so.

use super::select::BackendTask;
use super::Devices;
use crate::Result;

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

#[cfg(feature = "cuda")]
use super::gpu::worker::GpuWorker as Worker;
#[cfg(not(feature = "cuda"))]
use without_gpu::Worker;

/// The workers of a GPU run: one per entry of the device list ([`Devices`]), each its own
/// context; designs go to whichever worker's stream frees up first (`eval::dispatch`).
pub(crate) struct DevicePool {
    workers: Vec<Worker>,
}

impl DevicePool {
    /// Opens a worker per device of `devices` on this host, [`MPS_CONTEXTS_PER_DEVICE`] for a
    /// device listed once that runs under MPS ([`worker_devices`]); a device that does not exist
    /// is `Error::Devices(NoSuchDevice)` naming it; a build without the `cuda` feature is the
    /// error that says so.
    pub fn open(devices: &Devices) -> Result<Self> {
        let ordinals = devices.resolve(Worker::device_count()?)?;
        let mut listed: Vec<Option<Worker>> = ordinals.iter().map(|&d| Worker::open(d).map(Some)).collect::<Result<_>>()?;
        let layout = worker_devices(&ordinals, |d| listed.iter().flatten().any(|w| w.device() == d && w.mps()));
        let mut workers = Vec::with_capacity(layout.len());
        for d in layout {
            let opened = listed.iter_mut().find(|w| w.as_ref().is_some_and(|w| w.device() == d)).and_then(Option::take);
            workers.push(match opened {
                Some(w) => w,
                None => Worker::open(d)?,
            });
        }
        Ok(DevicePool { workers })
    }

    /// How many workers the pool has.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// `what` happened on worker `worker`, for a status or a fault.
    pub fn on_worker(&self, worker: usize, what: &dyn std::fmt::Display) -> String {
        let device = self.workers.get(worker).map_or(usize::MAX, |w| w.device());
        format!("GPU worker {worker} (device {device}): {what}")
    }

    /// Runs `task` on a backend of its own from worker `worker` (a stream of the worker's
    /// context, held for the whole task). `Err`: the worker could not hand out a backend. With
    /// the task's output comes the worker's health after it: a device error still pending
    /// means the backend is dropped, not reused, and the worker, not the task, failed.
    pub fn run<T: BackendTask>(&self, worker: usize, task: T) -> Result<(T::Output, Result<()>)> {
        let w = self.workers.get(worker).ok_or_else(|| crate::Error::Gpu(format!("no GPU worker {worker}")))?;
        w.run(task)
    }

    /// How many designs each worker runs at once for a batch of `designs` designs of about
    /// `cells` cells ([`plan_batch`]), and the line that says so.
    pub fn plan(&self, designs: usize, configured: Option<usize>, cells: usize) -> (Vec<usize>, String) {
        let workers: Vec<WorkerCapacity> = self
            .workers
            .iter()
            .map(|w| WorkerCapacity { device: w.device(), name: w.name(), mps: w.mps(), capacity: w.capacity().map_err(|e| e.to_string()) })
            .collect();
        let host = std::thread::available_parallelism().map_or(1, |n| n.get());
        plan_batch(&workers, host, designs, configured, cells)
    }
}

/// A build without the GPU backend: a pool worker that no device can open.
#[cfg(not(feature = "cuda"))]
mod without_gpu {
    use crate::backend::BackendTask;
    use crate::Result;

    pub(crate) enum Worker {}

    impl Worker {
        pub fn device_count() -> Result<usize> {
            Err(crate::gpu::not_compiled())
        }
        pub fn open(_device: usize) -> Result<Self> {
            Err(crate::gpu::not_compiled())
        }
        pub fn run<T: BackendTask>(&self, _task: T) -> Result<(T::Output, Result<()>)> {
            match *self {}
        }
        pub fn capacity(&self) -> Result<(usize, usize)> {
            match *self {}
        }
        pub fn device(&self) -> usize {
            match *self {}
        }
        pub fn mps(&self) -> bool {
            match *self {}
        }
        pub fn name(&self) -> String {
            match *self {}
        }
    }
}

/// What a worker's device offers a batch.
pub(crate) struct WorkerCapacity {
    pub device: usize,
    pub name: String,
    /// Whether MPS runs the device.
    pub mps: bool,
    /// Multiprocessors and free memory \[bytes\], or why the device could not say.
    pub capacity: std::result::Result<(usize, usize), String>,
}

/// How many designs each of `workers` runs at once for a batch of `designs` designs of about
/// `cells` cells ([`concurrency`]; the batch and the `host_threads` are shared among the
/// workers, the free memory of a device among its workers), and the line that says so.
pub(crate) fn plan_batch(workers: &[WorkerCapacity], host_threads: usize, designs: usize, configured: Option<usize>, cells: usize) -> (Vec<usize>, String) {
    let n = workers.len().max(1);
    let mut lines = Vec::new();
    let plan = workers
        .iter()
        .enumerate()
        .map(|(w, worker)| {
            let share = designs / n + usize::from(w < designs % n);
            let threads = host_threads / n + usize::from(w < host_threads % n);
            let siblings = workers.iter().filter(|o| o.device == worker.device).count();
            let mps = if worker.mps { ", MPS" } else { "" };
            match &worker.capacity {
                Ok((multiprocessors, free)) => {
                    let c = concurrency(share, configured, threads, *multiprocessors, free / siblings, cells);
                    lines.push(format!("worker {w} on device {} ({}{mps}): {} at once (limited by {}{})", worker.device, worker.name, c.designs_at_once, c.limited_by, c.limited_by.hint()));
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

/// The batch sizing rules: the smallest of the batch, the configured workers (else the host
/// threads), the multiprocessors and the designs that fit in 90 % of the free memory, never
/// zero, and the limit is named.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smallest_limit_wins_and_is_named() {
        let gib = 1usize << 30;
        let c = concurrency(40, None, 16, 132, 80 * gib, 16_128);
        assert_eq!((c.designs_at_once, c.limited_by), (16, BatchLimit::HostThreads));
        let c = concurrency(8, None, 16, 132, 80 * gib, 16_128);
        assert_eq!((c.designs_at_once, c.limited_by), (8, BatchLimit::BatchSize));
        let c = concurrency(40, Some(4), 16, 132, 80 * gib, 16_128);
        assert_eq!((c.designs_at_once, c.limited_by), (4, BatchLimit::ConfiguredWorkers));
        // A configured count replaces the host threads' limit, not the device's.
        let c = concurrency(40, Some(20), 16, 132, 80 * gib, 16_128);
        assert_eq!((c.designs_at_once, c.limited_by), (20, BatchLimit::ConfiguredWorkers));
        let c = concurrency(400, Some(200), 16, 132, 80 * gib, 16_128);
        assert_eq!((c.designs_at_once, c.limited_by), (132, BatchLimit::Multiprocessors));
        // 1M-cell designs in 10 GiB free: 2 fit.
        let c = concurrency(40, None, 16, 132, 10 * gib, 1_000_000);
        assert_eq!(c.designs_at_once, 10 * gib / 10 * 9 / (1_000_000 * BYTES_PER_CELL));
        assert_eq!(c.limited_by, BatchLimit::DeviceMemory);
    }

    #[test]
    fn the_plan_line_names_the_limit_and_only_the_host_threads_get_a_hint() {
        assert_eq!(BatchLimit::HostThreads.to_string(), "host threads");
        assert_eq!(BatchLimit::ConfiguredWorkers.to_string(), "batch.workers");
        assert!(BatchLimit::HostThreads.hint().contains("--batch-workers"));
        for limit in [BatchLimit::BatchSize, BatchLimit::ConfiguredWorkers, BatchLimit::Multiprocessors, BatchLimit::DeviceMemory] {
            assert_eq!(limit.hint(), "");
        }
    }

    #[test]
    fn a_batch_too_large_for_the_memory_still_runs_one_design_at_a_time() {
        let c = concurrency(16, None, 16, 132, 1 << 20, 1_000_000);
        assert_eq!((c.designs_at_once, c.limited_by), (1, BatchLimit::DeviceMemory));
        let c = concurrency(0, None, 0, 0, 0, 0);
        assert!(c.designs_at_once >= 1);
    }

    /// Under MPS a device listed once gets `MPS_CONTEXTS_PER_DEVICE` workers in a row; without MPS,
    /// or when the list already repeats it (the user chose its contexts), it keeps what was listed.
    #[test]
    fn mps_devices_listed_once_get_several_contexts() {
        let four = MPS_CONTEXTS_PER_DEVICE;
        assert_eq!(worker_devices(&[0], |_| false), vec![0]);
        assert_eq!(worker_devices(&[0], |_| true), vec![0; four]);
        assert_eq!(worker_devices(&[0, 1], |d| d == 1), [vec![0], vec![1; four]].concat());
        assert_eq!(worker_devices(&[0, 0], |_| true), vec![0, 0]);
        assert_eq!(worker_devices(&[1, 0, 1], |_| true), [vec![1], vec![0; four], vec![1]].concat());
    }

    /// Two workers share the batch and the host threads; workers of one device share its free
    /// memory; a device that cannot say runs one design at a time.
    #[test]
    fn the_plan_shares_the_batch_threads_and_memory() {
        let gib = 1usize << 30;
        let worker = |device, capacity| WorkerCapacity { device, name: "H100".into(), mps: false, capacity };
        let (plan, line) = plan_batch(&[worker(0, Ok((132, 80 * gib))), worker(1, Ok((132, 80 * gib)))], 16, 40, None, 16_128);
        assert_eq!(plan, vec![8, 8]);
        assert!(line.starts_with("GPU batch: 40 designs; worker 0 on device 0 (H100): 8 at once (limited by host threads"), "{line}");
        let (plan, _) = plan_batch(&[worker(0, Ok((132, 10 * gib))), worker(0, Ok((132, 10 * gib)))], 16, 40, Some(20), 1_000_000);
        assert_eq!(plan, vec![1, 1], "5 GiB each: one 1M-cell design");
        let (plan, line) = plan_batch(&[worker(0, Err("no answer".into()))], 16, 40, None, 16_128);
        assert_eq!(plan, vec![1]);
        assert!(line.contains("1 at once (no answer)"), "{line}");
    }
}
