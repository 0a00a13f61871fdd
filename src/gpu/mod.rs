//! CUDA device access for the GPU backend (cargo feature `cuda`): opening the device with a
//! clear error when there is none, and compiling the kernels of `cuda/*.cu` with NVRTC once per
//! process (docs/architecture.md, "GPU backend"). cudarc loads the CUDA libraries dynamically, so the crate
//! builds on machines without CUDA and fails here, at run time, with `Error::Gpu`.

#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
mod ptx_cache;
#[cfg(feature = "cuda")]
pub use device::{device_count, prepare_families, GpuDevice, GpuModule};
#[cfg(all(test, feature = "cuda"))]
use device::compile_family;

/// The CUDA sources, embedded at build time (candle-style real .cu files, compiled at run time):
/// one file per kernel family, each the twin of `src/backend/cpu/<family>.rs`.
#[cfg(feature = "cuda")]
pub mod sources {
    /// Headers prepended to every family (NVRTC has no include path for our files).
    pub const HEADERS: [&str; 5] = [
        include_str!("../../cuda/arena.cuh"),
        include_str!("../../cuda/common.cuh"),
        include_str!("../../cuda/boundary_state.cuh"),
        include_str!("../../cuda/sa.cuh"),
        include_str!("../../cuda/intermittency.cuh"),
    ];
    /// Every kernel family by name.
    pub const FAMILIES: [(&str, &str); 10] = [
        ("boundary", include_str!("../../cuda/boundary.cu")),
        ("convective", include_str!("../../cuda/convective.cu")),
        ("viscous", include_str!("../../cuda/viscous.cu")),
        ("timestep", include_str!("../../cuda/timestep.cu")),
        ("smoothing", include_str!("../../cuda/smoothing.cu")),
        ("transfer", include_str!("../../cuda/transfer.cu")),
        ("reduce", include_str!("../../cuda/reduce.cu")),
        ("update", include_str!("../../cuda/update.cu")),
        ("jacobian", include_str!("../../cuda/jacobian.cu")),
        ("ilu", include_str!("../../cuda/ilu.cu")),
    ];

    /// Source of family `name`.
    pub fn family(name: &str) -> Option<&'static str> {
        FAMILIES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }
}

/// Error for GPU requests in a build without the `cuda` feature.
#[cfg(not(feature = "cuda"))]
pub fn not_compiled() -> crate::Error {
    crate::Error::Gpu("this turbopt was built without the `cuda` feature; rebuild with `cargo build --release --features cuda`".into())
}

#[cfg(all(test, feature = "cuda"))]
mod kernel_tests;
