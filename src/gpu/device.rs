//! Device and module handling on top of cudarc.

use crate::error::DevicesError;
use crate::error::{Error, Result};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileOptions, Ptx};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::ptx_cache;

/// One CUDA device with its default stream.
pub struct GpuDevice {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub name: String,
    pub compute_capability: (i32, i32),
}

impl GpuDevice {
    /// Open device `ordinal` in its primary context (shared with every other user of the
    /// device in this process). Errors name what is missing: the driver library, a device, or
    /// the device itself failing to initialize.
    pub fn open(ordinal: usize) -> Result<Self> {
        Self::open_in(ordinal, ContextKind::Primary)
    }

    /// Open device `ordinal` in a context of its own (`cuCtxCreate`): a worker of the
    /// multi-GPU pool, isolated from the other workers even on the same device (a sticky
    /// device error poisons one context, not the device's other workers).
    pub fn open_own_context(ordinal: usize) -> Result<Self> {
        Self::open_in(ordinal, ContextKind::Own)
    }

    fn open_in(ordinal: usize, kind: ContextKind) -> Result<Self> {
        let found = device_count()?;
        match found {
            0 => return Err(DevicesError::NoDevice.into()),
            n if ordinal >= n => return Err(DevicesError::NoSuchDevice { device: ordinal, found: n }.into()),
            _ => {}
        }
        let sched = host_sync_mode()?;
        let ctx = match kind {
            ContextKind::Primary => {
                set_primary_context_flags(ordinal, sched)?;
                CudaContext::new(ordinal)
            }
            ContextKind::Own => CudaContext::new_non_primary(ordinal, sched),
        }
        .map_err(|e| Error::Gpu(format!("cannot open CUDA device {ordinal}: {e}")))?;
        let name = ctx.name().unwrap_or_else(|_| "unknown CUDA device".into());
        let compute_capability = ctx.compute_capability().map_err(|e| Error::Gpu(e.to_string()))?;
        // One stream of our own, not the legacy default stream, which cannot be captured into
        // CUDA graphs. Everything runs on it in order, so cudarc's per-buffer event tracking
        // (for work spread over several streams) would only add driver calls to every launch.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(|e| Error::Gpu(format!("cannot create a CUDA stream on device {ordinal}: {e}")))?;
        Ok(GpuDevice { ctx, stream, name, compute_capability })
    }

    /// The same device and context with a new stream of its own.
    pub fn sibling(&self) -> Result<Self> {
        let stream = self.ctx.new_stream().map_err(|e| Error::Gpu(format!("cannot create another CUDA stream: {e}")))?;
        Ok(GpuDevice { ctx: self.ctx.clone(), stream, name: self.name.clone(), compute_capability: self.compute_capability })
    }

    /// Loads kernel family `name` (`crate::gpu::sources::FAMILIES`), compiled by NVRTC for this
    /// device's architecture once per process (see [`ptx_for`]).
    pub fn load_family(&self, name: &str) -> Result<GpuModule> {
        let (major, minor) = self.compute_capability;
        let ptx = ptx_for(name, &format!("sm_{major}{minor}"))?;
        let module = self.ctx.load_module(Ptx::from_src(ptx)).map_err(|e| Error::Gpu(format!("loading {name}: {e}")))?;
        Ok(GpuModule { name: name.to_string(), module })
    }
}

/// How a host thread waits for the GPU (the context's scheduling flag). The driver's default
/// (`auto`) spins while there are fewer active contexts than cores and yields otherwise;
/// `TURBOPT_CUDA_SCHED=spin|yield|blocking` overrides it so that batches of designs, whose host
/// threads wait once per Arnoldi step, can be measured under each mode.
fn host_sync_mode() -> Result<u32> {
    use cudarc::driver::sys::CUctx_flags_enum::*;
    match std::env::var("TURBOPT_CUDA_SCHED").as_deref() {
        Err(_) | Ok("") | Ok("auto") => Ok(CU_CTX_SCHED_AUTO as u32),
        Ok("spin") => Ok(CU_CTX_SCHED_SPIN as u32),
        Ok("yield") => Ok(CU_CTX_SCHED_YIELD as u32),
        Ok("blocking") => Ok(CU_CTX_SCHED_BLOCKING_SYNC as u32),
        Ok(other) => Err(Error::Gpu(format!("TURBOPT_CUDA_SCHED={other}: expected auto, spin, yield or blocking"))),
    }
}

/// Sets the primary context's scheduling flag before it is retained (it cannot change while
/// the context is active; the driver then reports the flags already in force, which we accept).
fn set_primary_context_flags(ordinal: usize, flags: u32) -> Result<()> {
    use cudarc::driver::sys;
    if flags == sys::CUctx_flags_enum::CU_CTX_SCHED_AUTO as u32 {
        return Ok(());
    }
    let mut dev: sys::CUdevice = 0;
    let got = unsafe { sys::cuDeviceGet(&mut dev, ordinal as i32) };
    if got != sys::CUresult::CUDA_SUCCESS {
        return Err(Error::Gpu(format!("cannot get CUDA device {ordinal}: {got:?}")));
    }
    match unsafe { sys::cuDevicePrimaryCtxSetFlags_v2(dev, flags) } {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE => Ok(()),
        other => Err(Error::Gpu(format!("cannot set the scheduling flag of CUDA device {ordinal}: {other:?}"))),
    }
}

/// Which context a [`GpuDevice`] opens.
#[derive(Clone, Copy)]
enum ContextKind {
    Primary,
    Own,
}

/// CUDA devices on this host. Errors name what is missing (the driver library, a working
/// driver).
pub fn device_count() -> Result<usize> {
    // cudarc panics when it cannot load libcuda; ask first so the error is a value.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(Error::Gpu("no CUDA driver library (libcuda.so) on this machine: no NVIDIA GPU/driver installed".into()));
    }
    static DRIVER_ENVIRONMENT: std::sync::Once = std::sync::Once::new();
    DRIVER_ENVIRONMENT.call_once(|| {
        if let Some(value) = max_connections_default(std::env::var(MAX_CONNECTIONS).ok().as_deref()) {
            std::env::set_var(MAX_CONNECTIONS, value);
        }
    });
    let count = CudaContext::device_count().map_err(|e| Error::Gpu(format!("CUDA driver failed to initialize: {e}")))?;
    Ok(count.max(0) as usize)
}

/// The driver's hardware work queues a context spreads its streams over (1 to 32), an environment
/// variable the driver reads when it starts: [`device_count`], the first CUDA call of every path
/// to a device, sets it just before. It is process-wide; a driver another library started
/// earlier keeps its own.
const MAX_CONNECTIONS: &str = "CUDA_DEVICE_MAX_CONNECTIONS";

/// The value [`MAX_CONNECTIONS`] is given when the environment does not set it: 32, a queue for
/// each stream of a batch of designs. Streams that share a queue run in its order, so a kernel of
/// one design can wait behind another design's (false dependencies). On an H200, LS89 test case
/// 1's DE ran in 32.5-32.8 s with 16 or 32 queues, 34.2-36.3 s with 8 and 36.1-37.2 s with the
/// variable unset, the same designs (BENCHMARKS.md). A value the user set is kept.
fn max_connections_default(current: Option<&str>) -> Option<&'static str> {
    match current {
        None | Some("") => Some("32"),
        Some(_) => None,
    }
}

/// PTX of kernel family `name` for architecture `arch` (e.g. "sm_90"), compiled once per process
/// and shared by every backend instance and device (NVRTC takes seconds per family), and kept
/// on disk between processes (`gpu::ptx_cache`).
pub fn ptx_for(name: &str, arch: &str) -> Result<String> {
    static CACHE: OnceLock<Mutex<HashMap<(String, String), String>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (name.to_string(), arch.to_string());
    if let Some(ptx) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(ptx.clone());
    }
    let (src, options) = family_source(name, arch)?;
    let disk_key = ptx_cache::PtxKey::new(&src, arch, &format!("{options:?}"));
    let ptx = match ptx_cache::load(name, &disk_key) {
        Some(ptx) => ptx,
        None => {
            let ptx = compile(name, src, options)?;
            ptx_cache::store(name, &disk_key, &ptx);
            ptx
        }
    };
    cache.lock().unwrap_or_else(|p| p.into_inner()).insert(key, ptx.clone());
    Ok(ptx)
}

/// Every kernel family's PTX for `arch` ([`ptx_for`]), compiled side by side: a device opened
/// for the first time waits for the slowest family rather than for all of them in turn.
pub fn prepare_families(arch: &str) -> Result<()> {
    use rayon::prelude::*;
    super::sources::FAMILIES.par_iter().try_for_each(|(name, _)| ptx_for(name, arch).map(|_| ()))
}

/// Compiles kernel family `name` with NVRTC for `arch`; needs the NVRTC library but no device,
/// so kernels can be compile-checked on a machine without a GPU (the kernel tests).
#[cfg(test)]
pub fn compile_family(name: &str, arch: &str) -> Result<String> {
    let (src, options) = family_source(name, arch)?;
    compile(name, src, options)
}

/// The full source of family `name` (headers prepended) and its NVRTC options for `arch`.
fn family_source(name: &str, arch: &str) -> Result<(String, CompileOptions)> {
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Err(Error::Gpu("NVRTC library (libnvrtc.so) not found: install the CUDA toolkit's runtime compiler".into()));
    }
    let source = super::sources::family(name).ok_or_else(|| Error::Gpu(format!("no CUDA kernel family named {name}")))?;
    let src: String = super::sources::HEADERS.iter().copied().chain(std::iter::once(source)).collect::<Vec<_>>().join("\n");
    let opts = CompileOptions {
        options: vec![format!("--gpu-architecture={arch}")],
        // Keep IEEE division/sqrt and no fused multiply-add contraction: the kernels repeat
        // their CPU twins operation by operation, so results agree to round-off.
        fmad: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(true),
        ftz: Some(false),
        ..Default::default()
    };
    Ok((src, opts))
}

fn compile(name: &str, src: String, opts: CompileOptions) -> Result<String> {
    let ptx = compile_ptx_with_opts(src, opts).map_err(|e| Error::Gpu(format!("NVRTC failed on {name}.cu: {e}")))?;
    Ok(ptx.to_src())
}

/// A compiled module; functions are looked up by name.
pub struct GpuModule {
    pub name: String,
    module: Arc<CudaModule>,
}

impl GpuModule {
    pub fn function(&self, kernel: &str) -> Result<CudaFunction> {
        self.module.load_function(kernel).map_err(|e| Error::Gpu(format!("kernel {kernel} missing in {}: {e}", self.name)))
    }
}

#[cfg(test)]
mod tests {
    use super::max_connections_default;

    /// The driver gets a queue a stream unless the user chose otherwise.
    #[test]
    fn max_connections_default_fills_only_an_unset_value() {
        assert_eq!(max_connections_default(None), Some("32"));
        assert_eq!(max_connections_default(Some("")), Some("32"));
        assert_eq!(max_connections_default(Some("8")), None);
        assert_eq!(max_connections_default(Some("1")), None);
    }
}
