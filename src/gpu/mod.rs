//! CUDA device access for the GPU backend (cargo feature `cuda`): opening the device with a
//! clear error when there is none, and compiling the kernels of `cuda/*.cu` with NVRTC once per
//! process (DESIGN.md section 6). cudarc loads the CUDA libraries dynamically, so the crate
//! builds on machines without CUDA and fails here, at run time, with `Error::Gpu`.

#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
pub use device::{GpuDevice, GpuModule};

/// The CUDA sources, embedded at build time (candle-style real .cu files, compiled at run time).
pub mod sources {
    pub const COMMON: &str = include_str!("../../cuda/common.cuh");
    pub const CONVECTIVE: &str = include_str!("../../cuda/convective.cu");
}

/// Whether this build has the GPU backend at all.
pub const fn compiled_with_cuda() -> bool {
    cfg!(feature = "cuda")
}

/// Error for GPU requests in a build without the `cuda` feature.
pub fn not_compiled() -> crate::Error {
    crate::Error::Gpu("this turbopt was built without the `cuda` feature; rebuild with `cargo build --release --features cuda`".into())
}
