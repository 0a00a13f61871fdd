//! One worker of a [`crate::backend::pool::DevicePool`]: a CUDA context of its own on one
//! device, with its compiled kernels, handing out backends on streams of that context.

use super::GpuBackend;
use crate::backend::{Backend, BackendTask};
use crate::Result;
use std::sync::Mutex;

/// GPU backends of one worker: a CUDA context of its own on one device, with its compiled
/// kernels, and streams opened on demand and reused by later designs.
pub(crate) struct GpuWorker {
    device: usize,
    /// Whether MPS runs this worker's device.
    mps: bool,
    /// The first backend: opens the context and loads the kernels.
    first: GpuBackend,
    idle: Mutex<Vec<GpuBackend>>,
}

impl GpuWorker {
    /// CUDA devices on this host.
    pub fn device_count() -> Result<usize> {
        crate::gpu::device_count()
    }

    pub fn open(device: usize) -> Result<Self> {
        let first = GpuBackend::with_own_context(device)?;
        // A driver that cannot tell (before CUDA 12.3) is taken as no MPS: one context.
        let mps = first.mps_enabled().unwrap_or(false);
        Ok(GpuWorker { device, mps, first, idle: Mutex::new(Vec::new()) })
    }

    /// Runs `task` on a backend of its own ([`GpuWorker::take`]), held for the whole task,
    /// and gives it back: with the output comes the worker's health after the task
    /// ([`GpuWorker::give_back`]). `Err`: no backend could be had.
    pub fn run<T: BackendTask>(&self, task: T) -> Result<(T::Output, Result<()>)> {
        let backend = self.take()?;
        let output = task.run(&backend);
        Ok((output, self.give_back(backend)))
    }

    /// A backend of its own for one design: an idle one, or a new stream in this context.
    fn take(&self) -> Result<GpuBackend> {
        if let Some(b) = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop() {
            return Ok(b);
        }
        self.first.sibling()
    }

    /// Returns a backend after its design; one with a pending device error is dropped, and
    /// the error returned (the design's worker failed, not the design).
    fn give_back(&self, backend: GpuBackend) -> Result<()> {
        backend.check()?;
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(backend);
        Ok(())
    }

    /// The device's multiprocessors and free memory \[bytes\].
    pub fn capacity(&self) -> Result<(usize, usize)> {
        Ok((self.first.multiprocessors()?, self.first.memory()?.0))
    }

    pub fn device(&self) -> usize {
        self.device
    }

    /// Whether MPS runs this worker's device.
    pub fn mps(&self) -> bool {
        self.mps
    }

    pub fn name(&self) -> String {
        self.first.name()
    }
}
