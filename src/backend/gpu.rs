//! The CUDA backend (cargo feature `cuda`), ported operation by operation as the thesis ported
//! its solver (thesis 4.2: "function by function guaranteeing the exact same output between
//! both versions after every porting step").
//!
//! Fields live on the device. Operations with a CUDA kernel in `cuda/` run there; the others
//! run through the CPU backend on a host copy (download, CPU kernel, upload) until their kernel
//! lands, so a whole solve already works and every ported kernel is checked against its CPU twin
//! inside a real solve. Ported so far: `convective_residual` (cuda/convective.cu) and the field
//! copies. [`GpuBackend::ported`] lists them; the fallbacks are slow by design and say so there.
//!
//! Driver errors cannot travel through the trait's `()`-returning operations: the first one is
//! kept, later operations are skipped, and [`Backend::check`] returns it (the solver checks at
//! every monitoring step), so a GPU failure ends a solve with `Error::Gpu`, never a silent result.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, LaunchConfig, PushKernelArg};

use super::cpu::{CpuBackend, CpuField, CpuGeometry, CpuScalars};
use super::{Backend, BoundaryData, ConvectiveScheme, Physics, Reconstruction, SaSourceOptions, NVAR};
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::gpu::{sources, GpuDevice};
use crate::mesh::Mesh;
use crate::{Error, Result};

/// Kernel parameters of the convective residual, laid out as `struct Scheme` in convective.cu.
#[repr(C)]
#[derive(Clone, Copy)]
struct SchemeArgs {
    second_order: i32,
    convect_nu_tilde: i32,
    entropy_fix: f64,
    eps: [f64; 4],
}
unsafe impl DeviceRepr for SchemeArgs {}

struct ConvectiveKernels {
    primitives: CudaFunction,
    i_face_fluxes: CudaFunction,
    j_face_fluxes: CudaFunction,
    gather_residual: CudaFunction,
}

/// Device copy of one block's metrics and the work arrays of its kernels.
struct GpuBlock {
    ni: usize,
    nj: usize,
    si: CudaSlice<f64>,
    sj: CudaSlice<f64>,
    wall_i: CudaSlice<u8>,
    wall_j: CudaSlice<u8>,
    /// Primitive variables (4 x padded cells) and face fluxes (5 x faces), reused every call.
    work: Mutex<(CudaSlice<f64>, CudaSlice<f64>, CudaSlice<f64>)>,
}

/// Geometry resident on the device, plus the host geometry the fallback operations use.
pub struct GpuGeometry {
    host: CpuGeometry,
    blocks: Vec<GpuBlock>,
}

/// Conservative variables of every block on the device (same padded layout as the CPU field).
pub struct GpuField {
    blocks: Vec<CudaSlice<f64>>,
}

pub struct GpuBackend {
    device: GpuDevice,
    convective: ConvectiveKernels,
    host: CpuBackend,
    first_error: Mutex<Option<Error>>,
}

impl GpuBackend {
    /// Opens CUDA device `ordinal` and compiles the kernels (NVRTC, once per backend).
    pub fn new(ordinal: usize) -> Result<Self> {
        let device = GpuDevice::open(ordinal)?;
        let module = device.compile("convective.cu", &[sources::COMMON], sources::CONVECTIVE)?;
        let convective = ConvectiveKernels {
            primitives: module.function("primitives")?,
            i_face_fluxes: module.function("i_face_fluxes")?,
            j_face_fluxes: module.function("j_face_fluxes")?,
            gather_residual: module.function("gather_residual")?,
        };
        Ok(GpuBackend { device, convective, host: CpuBackend::new(None)?, first_error: Mutex::new(None) })
    }

    /// Device name and compute capability, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
    pub fn device_description(&self) -> String {
        let (a, b) = self.device.compute_capability;
        format!("{} (sm_{a}{b})", self.device.name)
    }

    /// Operations that run as CUDA kernels; every other operation goes through the host.
    pub fn ported() -> &'static [&'static str] {
        &["convective_residual", "copy_field", "new_field", "upload_state", "download_state"]
    }

    /// Copy of a device field in the CPU layout (tests and diagnostics).
    pub fn field_to_host(&self, f: &GpuField) -> Result<CpuField> {
        self.to_host(f)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.device.stream
    }

    /// Runs `op` unless an earlier device error is pending; keeps the first error.
    fn guarded(&self, op: impl FnOnce() -> Result<()>) {
        let mut slot = self.first_error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            if let Err(e) = op() {
                *slot = Some(e);
            }
        }
    }

    fn to_host(&self, f: &GpuField) -> Result<CpuField> {
        let blocks = f.blocks.iter().map(|b| self.stream().clone_dtoh(b).map_err(gpu_err)).collect::<Result<_>>()?;
        Ok(CpuField { blocks })
    }

    fn to_device(&self, host: &CpuField, f: &mut GpuField) -> Result<()> {
        for (h, d) in host.blocks.iter().zip(f.blocks.iter_mut()) {
            self.stream().memcpy_htod(h, d).map_err(gpu_err)?;
        }
        Ok(())
    }

    /// Host fallback for an operation that writes one field: download, run on the CPU, upload.
    fn via_host(&self, inputs: &[&GpuField], out: &mut GpuField, op: impl FnOnce(&[CpuField], &mut CpuField)) {
        self.guarded(|| {
            let ins: Vec<CpuField> = inputs.iter().map(|f| self.to_host(f)).collect::<Result<_>>()?;
            let mut o = self.to_host(out)?;
            op(&ins, &mut o);
            self.to_device(&o, out)
        });
    }

    fn convective_block(&self, gb: &GpuBlock, gamma: f64, args: SchemeArgs, w: &CudaSlice<f64>, r: &mut CudaSlice<f64>) -> Result<()> {
        let (ni, nj) = (gb.ni as i32, gb.nj as i32);
        let np = ((gb.ni + 4) * (gb.nj + 4)) as u32;
        let k = &self.convective;
        let s = self.stream();
        let mut work = gb.work.lock().unwrap_or_else(|p| p.into_inner());
        let (q, fi, fj) = &mut *work;
        let npi = np as i32;
        unsafe {
            s.launch_builder(&k.primitives).arg(&npi).arg(&gamma).arg(w).arg(&mut *q).launch(LaunchConfig::for_num_elems(np)).map_err(gpu_err)?;
            let nfi = ((gb.ni + 1) * gb.nj) as u32;
            s.launch_builder(&k.i_face_fluxes)
                .arg(&ni).arg(&nj).arg(&gamma).arg(&args).arg(w).arg(&*q).arg(&gb.si).arg(&gb.wall_i).arg(&mut *fi)
                .launch(block_config(nfi)).map_err(gpu_err)?;
            let nfj = (gb.ni * (gb.nj + 1)) as u32;
            s.launch_builder(&k.j_face_fluxes)
                .arg(&ni).arg(&nj).arg(&gamma).arg(&args).arg(w).arg(&*q).arg(&gb.sj).arg(&gb.wall_j).arg(&mut *fj)
                .launch(block_config(nfj)).map_err(gpu_err)?;
            s.launch_builder(&k.gather_residual).arg(&ni).arg(&nj).arg(&*fi).arg(&*fj).arg(r).launch(block_config(np)).map_err(gpu_err)?;
        }
        Ok(())
    }
}

/// 128 threads per block: the flux kernels use many registers (thesis 4.2.1 on occupancy).
fn block_config(n: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (n.div_ceil(128), 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 }
}

fn gpu_err(e: impl std::fmt::Display) -> Error {
    Error::Gpu(e.to_string())
}

fn flatten(v: &[[f64; 2]]) -> Vec<f64> {
    v.iter().flat_map(|s| [s[0], s[1]]).collect()
}

fn flags(v: &[bool]) -> Vec<u8> {
    v.iter().map(|&b| b as u8).collect()
}

impl Backend for GpuBackend {
    type Field = GpuField;
    type Scalars = CpuScalars;
    type Geometry = GpuGeometry;

    fn name(&self) -> String {
        format!("cuda ({}; host fallback for unported operations)", self.device_description())
    }

    fn check(&self) -> Result<()> {
        match self.first_error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => self.stream().synchronize().map_err(gpu_err),
        }
    }

    fn upload_geometry(&self, mesh: &Mesh) -> Result<GpuGeometry> {
        let host = self.host.upload_geometry(mesh)?;
        let s = self.stream();
        let blocks = host
            .blocks
            .iter()
            .map(|bg| {
                let (ni, nj) = (bg.layout.ni, bg.layout.nj);
                let np = bg.layout.n_padded();
                let work = (
                    s.alloc_zeros::<f64>(4 * np).map_err(gpu_err)?,
                    s.alloc_zeros::<f64>(5 * (ni + 1) * nj).map_err(gpu_err)?,
                    s.alloc_zeros::<f64>(5 * ni * (nj + 1)).map_err(gpu_err)?,
                );
                Ok(GpuBlock {
                    ni,
                    nj,
                    si: s.clone_htod(&flatten(&bg.si)).map_err(gpu_err)?,
                    sj: s.clone_htod(&flatten(&bg.sj)).map_err(gpu_err)?,
                    wall_i: s.clone_htod(&flags(&bg.wall_i)).map_err(gpu_err)?,
                    wall_j: s.clone_htod(&flags(&bg.wall_j)).map_err(gpu_err)?,
                    work: Mutex::new(work),
                })
            })
            .collect::<Result<_>>()?;
        Ok(GpuGeometry { host, blocks })
    }

    fn new_field(&self, g: &GpuGeometry) -> GpuField {
        let mut blocks = Vec::with_capacity(g.blocks.len());
        self.guarded(|| {
            for bg in &g.host.blocks {
                blocks.push(self.stream().alloc_zeros::<f64>(NVAR * bg.layout.n_padded()).map_err(gpu_err)?);
            }
            Ok(())
        });
        GpuField { blocks }
    }

    fn new_scalars(&self, g: &GpuGeometry) -> CpuScalars {
        self.host.new_scalars(&g.host)
    }

    fn upload_state(&self, g: &GpuGeometry, state: &Solution) -> Result<GpuField> {
        let host = self.host.upload_state(&g.host, state)?;
        let blocks = host.blocks.iter().map(|b| self.stream().clone_htod(b).map_err(gpu_err)).collect::<Result<_>>()?;
        Ok(GpuField { blocks })
    }

    fn download_state(&self, g: &GpuGeometry, field: &GpuField) -> Solution {
        match self.to_host(field) {
            Ok(h) => self.host.download_state(&g.host, &h),
            Err(e) => {
                self.guarded(|| Err(e));
                // The pending error surfaces at the next `check`; the shape stays valid.
                self.host.download_state(&g.host, &self.host.new_field(&g.host))
            }
        }
    }

    fn copy_field(&self, src: &GpuField, dst: &mut GpuField) {
        self.guarded(|| {
            for (s, d) in src.blocks.iter().zip(dst.blocks.iter_mut()) {
                self.stream().memcpy_dtod(s, d).map_err(gpu_err)?;
            }
            Ok(())
        });
    }

    fn fill_field(&self, field: &mut GpuField, value: f64) {
        self.via_host(&[], field, |_, o| self.host.fill_field(o, value));
    }

    fn axpy_field(&self, a: f64, x: &GpuField, y: &mut GpuField) {
        self.via_host(&[x], y, |ins, o| self.host.axpy_field(a, &ins[0], o));
    }

    fn apply_boundary_conditions(&self, g: &GpuGeometry, gas: &Gas, data: &BoundaryData, w: &mut GpuField) {
        self.via_host(&[], w, |_, o| self.host.apply_boundary_conditions(&g.host, gas, data, o));
    }

    fn convective_residual(&self, g: &GpuGeometry, gas: &Gas, scheme: &ConvectiveScheme, w: &GpuField, r: &mut GpuField) {
        let args = SchemeArgs {
            second_order: (scheme.reconstruction == Reconstruction::SecondOrder) as i32,
            convect_nu_tilde: scheme.convect_nu_tilde as i32,
            entropy_fix: scheme.entropy_fix,
            eps: scheme.limiter_epsilon,
        };
        self.guarded(|| {
            for ((gb, wb), rb) in g.blocks.iter().zip(&w.blocks).zip(r.blocks.iter_mut()) {
                self.convective_block(gb, gas.gamma, args, wb, rb)?;
            }
            Ok(())
        });
    }

    fn viscous_residual(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &GpuField, r: &mut GpuField) {
        self.via_host(&[w], r, |ins, o| self.host.viscous_residual(&g.host, gas, physics, sa, &ins[0], o));
    }

    fn turbulence_source_factor(&self, g: &GpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &GpuField, dt: &CpuScalars, factor: &mut CpuScalars) {
        self.guarded(|| {
            let h = self.to_host(w)?;
            self.host.turbulence_source_factor(&g.host, gas, sa, &h, dt, factor);
            Ok(())
        });
    }

    fn scale_turbulence_residual(&self, g: &GpuGeometry, factor: &CpuScalars, r: &mut GpuField) {
        self.via_host(&[], r, |_, o| self.host.scale_turbulence_residual(&g.host, factor, o));
    }

    fn local_time_step(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, cfl: f64, w: &GpuField, dt: &mut CpuScalars) {
        self.guarded(|| {
            let h = self.to_host(w)?;
            self.host.local_time_step(&g.host, gas, physics, cfl, &h, dt);
            Ok(())
        });
    }

    fn min_scalar(&self, s: &CpuScalars) -> f64 {
        self.host.min_scalar(s)
    }

    fn fill_scalars(&self, s: &mut CpuScalars, value: f64) {
        self.host.fill_scalars(s, value)
    }

    fn rk_stage_update(&self, g: &GpuGeometry, nvar: usize, alpha: f64, w0: &GpuField, r: &GpuField, dt: &CpuScalars, w: &mut GpuField) {
        self.via_host(&[w0, r], w, |ins, o| self.host.rk_stage_update(&g.host, nvar, alpha, &ins[0], &ins[1], dt, o));
    }

    fn smooth_residual(&self, g: &GpuGeometry, nvar: usize, epsilon: [f64; 2], r: &mut GpuField) {
        self.via_host(&[], r, |_, o| self.host.smooth_residual(&g.host, nvar, epsilon, o));
    }

    fn smoothing_coefficients(&self, g: &GpuGeometry, gas: &Gas, physics: Physics, cfl_ratio: f64, c: f64, w: &GpuField, eps: &mut [CpuScalars; 2]) {
        self.guarded(|| {
            let h = self.to_host(w)?;
            self.host.smoothing_coefficients(&g.host, gas, physics, cfl_ratio, c, &h, eps);
            Ok(())
        });
    }

    fn smooth_residual_variable(&self, g: &GpuGeometry, nvar: usize, eps: &[CpuScalars; 2], r: &mut GpuField) {
        self.via_host(&[], r, |_, o| self.host.smooth_residual_variable(&g.host, nvar, eps, o));
    }

    fn residual_norms(&self, g: &GpuGeometry, r: &GpuField) -> [f64; NVAR] {
        match self.to_host(r) {
            Ok(h) => self.host.residual_norms(&g.host, &h),
            Err(e) => {
                self.guarded(|| Err(e));
                [f64::NAN; NVAR]
            }
        }
    }

    fn restrict_state(&self, fine: &GpuGeometry, coarse: &GpuGeometry, w_fine: &GpuField, w_coarse: &mut GpuField) {
        self.via_host(&[w_fine], w_coarse, |ins, o| self.host.restrict_state(&fine.host, &coarse.host, &ins[0], o));
    }

    fn restrict_residual(&self, fine: &GpuGeometry, coarse: &GpuGeometry, r_fine: &GpuField, r_coarse: &mut GpuField) {
        self.via_host(&[r_fine], r_coarse, |ins, o| self.host.restrict_residual(&fine.host, &coarse.host, &ins[0], o));
    }

    fn prolong_correction(&self, coarse: &GpuGeometry, fine: &GpuGeometry, w_coarse: &GpuField, w_coarse_start: &GpuField, w_fine: &mut GpuField) {
        self.via_host(&[w_coarse, w_coarse_start], w_fine, |ins, o| {
            self.host.prolong_correction(&coarse.host, &fine.host, &ins[0], &ins[1], o)
        });
    }
}
