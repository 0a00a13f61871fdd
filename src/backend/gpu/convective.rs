//! Launch wrapper of `cuda/convective.cu`, twin of `backend/cpu/convective.rs`: primitive
//! variables, face fluxes (i and j in one launch), gather; four launches for the whole mesh.

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PushKernelArg};

use super::{grid, gpu_err, Ctx, GpuGeometry};
use crate::backend::{ConvectiveScheme, Reconstruction};
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::Result;

/// Kernel parameters of the convective residual, laid out as `struct Scheme` in convective.cu.
#[repr(C)]
#[derive(Clone, Copy)]
struct SchemeArgs {
    second_order: i32,
    convect_nu_tilde: i32,
    convect_intermittency: i32,
    pad: i32,
    entropy_fix: f64,
    eps: [f64; 4],
}
unsafe impl DeviceRepr for SchemeArgs {}

pub(super) struct Kernels {
    primitives: CudaFunction,
    face_fluxes: CudaFunction,
    gather_residual: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("convective")?;
        Ok(Kernels { primitives: m.function("primitives")?, face_fluxes: m.function("face_fluxes")?, gather_residual: m.function("gather_residual")? })
    }
}

/// Fills the primitive-variable arena of `g` from `w` (every padded cell).
pub(super) fn primitives(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gamma: f64, w: &CudaSlice<f64>, q: &mut CudaSlice<f64>) -> Result<()> {
    let e = g.extent;
    unsafe { cx.stream.launch_builder(&k.primitives).arg(&e).arg(&gamma).arg(w).arg(q).launch(grid(g.n_padded())) }.map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `r` = convective residual of `w` (thesis eq. 4.2, 4.9-4.13), overwritten everywhere.
pub(super) fn residual(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gas: &Gas, scheme: &ConvectiveScheme, w: &CudaSlice<f64>, r: &mut CudaSlice<f64>) -> Result<()> {
    let args = SchemeArgs {
        second_order: (scheme.reconstruction == Reconstruction::SecondOrder) as i32,
        convect_nu_tilde: scheme.convect_nu_tilde as i32,
        convect_intermittency: scheme.convect_intermittency as i32,
        pad: 0,
        entropy_fix: scheme.entropy_fix,
        eps: scheme.limiter_epsilon,
    };
    let e = g.extent;
    let gamma = gas.gamma;
    let mut work = g.workspace();
    let ws = &mut *work;
    let (q, fi, fj) = (&mut ws.primitives, &mut ws.flux_i, &mut ws.flux_j);
    primitives(k, cx, g, gamma, w, q)?;
    let faces = (e.nfi + e.nfj) as usize;
    unsafe {
        cx.stream
            .launch_builder(&k.face_fluxes)
            .arg(&g.blocks)
            .arg(&e)
            .arg(&gamma)
            .arg(&args)
            .arg(w)
            .arg(&*q)
            .arg(&g.si)
            .arg(&g.sj)
            .arg(&g.wall_i)
            .arg(&g.wall_j)
            .arg(&mut *fi)
            .arg(&mut *fj)
            .launch(grid(faces))
            .map_err(gpu_err)?;
        cx.stream.launch_builder(&k.gather_residual).arg(&g.blocks).arg(&e).arg(&*fi).arg(&*fj).arg(r).launch(grid(g.n_padded())).map_err(gpu_err)?;
    }
    cx.counters.launched(2);
    Ok(())
}
