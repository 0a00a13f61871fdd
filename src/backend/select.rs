//! The one place a [`BackendChoice`] becomes a backend (docs/architecture.md, "layers").
//!
//! Everything above the backends (the cascade pipeline, the evaluator, the commands, the
//! performance model) is generic over [`ImplicitBackend`]: it states its work as a
//! [`BackendTask`] and hands it to a backend opened here, which runs it with its concrete type.
//! A build without the `cuda` feature answers a GPU request here with a clear error
//! (`gpu::not_compiled`); nothing above needs to know which backends a build has.
//!
//! Batches of designs on the GPUs of a host open a device pool instead (`backend::pool`): one
//! worker per listed device, each handing out backends on streams of its own context.

use super::cpu::CpuBackend;
use super::{Backend, BackendChoice, ImplicitBackend};
use crate::{Error, Result};

/// Work generic over the backend: what a closure would be if closures could be generic.
pub trait BackendTask {
    type Output;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output;
}

/// A backend opened for one or more solves: the CPU (rayon, `threads` or one per core) or one
/// CUDA device (its primary context, kernels compiled on opening).
pub enum OpenBackend {
    Cpu(CpuBackend),
    #[cfg(feature = "cuda")]
    Gpu(super::gpu::GpuBackend),
}

impl OpenBackend {
    /// The CPU backend with `threads` threads (None: one per core).
    pub fn cpu(threads: Option<usize>) -> Result<Self> {
        Ok(OpenBackend::Cpu(CpuBackend::new(threads)?))
    }

    /// CUDA device `device`; an error naming what is missing (the `cuda` feature, the driver, the
    /// device) when it cannot be opened.
    pub fn gpu(device: usize) -> Result<Self> {
        #[cfg(feature = "cuda")]
        {
            Ok(OpenBackend::Gpu(super::gpu::GpuBackend::new(device)?))
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = device;
            Err(crate::gpu::not_compiled())
        }
    }

    /// The backend of `choice` for a single solve: the CPU threads, or the first listed device.
    /// `Auto` is the performance model's to resolve first (`crate::perf::auto`).
    pub fn open(choice: &BackendChoice) -> Result<Self> {
        match choice {
            BackendChoice::Cpu { threads } => Self::cpu(*threads),
            BackendChoice::Gpu { devices } => Self::gpu(devices.first()),
            BackendChoice::Auto { .. } => Err(unresolved_auto()),
        }
    }

    /// Runs `task` on this backend.
    pub fn run<T: BackendTask>(&self, task: T) -> T::Output {
        match self {
            OpenBackend::Cpu(b) => task.run(b),
            #[cfg(feature = "cuda")]
            OpenBackend::Gpu(b) => task.run(b),
        }
    }

    /// [`Backend::name`] of the backend.
    pub fn name(&self) -> String {
        match self {
            OpenBackend::Cpu(b) => b.name(),
            #[cfg(feature = "cuda")]
            OpenBackend::Gpu(b) => b.name(),
        }
    }
}

/// Runs `task` on the backend of `choice` for a single solve ([`OpenBackend::open`]).
pub fn with_backend<T: BackendTask>(choice: &BackendChoice, task: T) -> Result<T::Output> {
    Ok(OpenBackend::open(choice)?.run(task))
}

/// `Auto` reaching a backend: the performance model resolves it before anything is solved.
pub fn unresolved_auto() -> Error {
    Error::Other("backend Auto was not resolved by the performance model (`perf::auto::resolve` resolves it before a solve)".into())
}
