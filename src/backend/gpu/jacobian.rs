//! Launch wrappers of `cuda/jacobian.cu`, twin of `backend/cpu/jacobian.rs` and
//! `backend/cpu/turbulence_jacobian.rs`: the system matrices of the implicit scheme resident on
//! the device, assembled by rows without atomics straight into the pattern the CPU backend
//! builds once per mesh (the same slots, so that both backends' matrices compare entry by
//! entry), the gather/scatter of a system's unknowns and the block SpMV.

use cudarc::driver::{CudaFunction, CudaSlice, DeviceRepr, PushKernelArg, ValidAsZeroBits};

use super::boundary::BoundaryArgs;
use super::{grid, gpu_err, Ctx, GasArgs, GpuGeometry};
use crate::backend::cpu::geometry::PhysicalBc;
use crate::backend::cpu::jacobian::{global_of, JacobianPattern, Neighbour};
use std::sync::Arc;
use crate::backend::implicit::{ConvectiveJacobian, JacobianOptions, System};
use crate::backend::BoundaryData;
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::Result;

/// One face of a matrix row (`struct RowFaceEntry` in jacobian.cu).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RowFaceEntry {
    kind: i32,
    other: i32,
    slot: i32,
    other_interior: i32,
    bc: i32,
    pad: i32,
    s_out: [f64; 2],
    normal: [f64; 2],
}
unsafe impl DeviceRepr for RowFaceEntry {}
unsafe impl ValidAsZeroBits for RowFaceEntry {}

const FACE_CELL: i32 = 0;
const FACE_CHARACTERISTIC: i32 = 1;
const FACE_WALL: i32 = 2;

/// [`JacobianOptions`] as the kernels take them (`struct JacobianArgs`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct JacobianArgs {
    convective: i32,
    viscous: i32,
    turbulent: i32,
    has_dt: i32,
    entropy_fix: f64,
}
unsafe impl DeviceRepr for JacobianArgs {}

impl JacobianArgs {
    fn new(options: &JacobianOptions, has_dt: bool) -> Self {
        let convective = match options.convective {
            ConvectiveJacobian::FrozenRoe => 0,
            ConvectiveJacobian::Rusanov => 1,
            ConvectiveJacobian::Exact => 2,
        };
        JacobianArgs {
            convective,
            viscous: options.physics.is_viscous() as i32,
            turbulent: options.physics.is_turbulent() as i32,
            has_dt: has_dt as i32,
            entropy_fix: options.entropy_fix,
        }
    }
}

pub(super) struct Kernels {
    assemble_flow: CudaFunction,
    assemble_turbulence: CudaFunction,
    gather: CudaFunction,
    scatter: CudaFunction,
    bsr4_spmv: CudaFunction,
    csr_spmv: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("jacobian")?;
        Ok(Kernels {
            assemble_flow: m.function("assemble_flow_jacobian")?,
            assemble_turbulence: m.function("assemble_turbulence_jacobian")?,
            gather: m.function("gather_system")?,
            scatter: m.function("scatter_system")?,
            bsr4_spmv: m.function("bsr4_spmv")?,
            csr_spmv: m.function("csr_spmv")?,
        })
    }
}

/// The system matrices `Omega/dt I + dR/dW` on the device: the mean flow (4x4 blocks) and the
/// segregated Spalart-Allmaras system (scalars in the same slots), with the pattern and the
/// row descriptors. The host keeps the pattern (row pointers, columns, diagonal slots) that
/// the preconditioners analyse once.
pub struct GpuJacobian {
    /// The pattern and row descriptors, built on the host as for the CPU backend.
    pub pattern: Arc<JacobianPattern>,
    pub(super) row_ptr: CudaSlice<i32>,
    pub(super) cols: CudaSlice<i32>,
    pub(super) diag: CudaSlice<i32>,
    faces: CudaSlice<RowFaceEntry>,
    /// Mean-flow block values, 16 per slot, row-major blocks.
    pub(super) values: CudaSlice<f64>,
    /// SA values, one per slot.
    pub(super) turbulence: CudaSlice<f64>,
    /// dQ/d(rho nu~) per cell, the SA source part of the SA system.
    source_derivative: CudaSlice<f64>,
    /// True once `turbulence` holds an assembled SA matrix.
    pub turbulent: bool,
    /// The intermittency system's values (SA-gamma), one per slot, and its source part
    /// dQ_gamma/d(rho gamma) per cell.
    pub(super) intermittency: CudaSlice<f64>,
    gamma_source_derivative: CudaSlice<f64>,
    /// True once `intermittency` holds an assembled matrix.
    pub transition: bool,
}

impl GpuJacobian {
    /// Uploads the pattern and row descriptors the CPU backend builds for `g`'s mesh.
    pub(super) fn new(cx: &Ctx, g: &GpuGeometry) -> Result<Self> {
        let pattern = Arc::new(JacobianPattern::new(&g.host)?);
        let m = &*pattern.blocks;
        let to_i32 = |v: &[usize]| v.iter().map(|&x| x as i32).collect::<Vec<i32>>();
        let faces = face_table(g, &pattern);
        let up_i32 = |v: Vec<i32>| cx.stream.clone_htod(&v).map_err(gpu_err);
        let nnz = m.n_blocks();
        Ok(GpuJacobian {
            row_ptr: up_i32(to_i32(&m.row_ptr))?,
            cols: up_i32(to_i32(&m.cols))?,
            diag: up_i32(to_i32(&m.diag))?,
            faces: cx.stream.clone_htod(&faces).map_err(gpu_err)?,
            values: cx.stream.alloc_zeros::<f64>(16 * nnz).map_err(gpu_err)?,
            turbulence: cx.stream.alloc_zeros::<f64>(nnz).map_err(gpu_err)?,
            source_derivative: cx.stream.alloc_zeros::<f64>(g.n_interior().max(1)).map_err(gpu_err)?,
            turbulent: false,
            intermittency: cx.stream.alloc_zeros::<f64>(nnz).map_err(gpu_err)?,
            gamma_source_derivative: cx.stream.alloc_zeros::<f64>(g.n_interior().max(1)).map_err(gpu_err)?,
            transition: false,
            pattern,
        })
    }

    /// Unknown cells (block rows).
    pub fn n_rows(&self) -> usize {
        self.pattern.n_cells()
    }
}

/// The four faces of every row in global (arena) indices.
fn face_table(g: &GpuGeometry, pattern: &JacobianPattern) -> Vec<RowFaceEntry> {
    let mut out = Vec::with_capacity(4 * pattern.rows.len());
    for (r, row) in pattern.rows.iter().enumerate() {
        let start = pattern.blocks.row_ptr[r];
        let base = g.table[row.block].cell as usize;
        for face in &row.faces {
            let mut e = RowFaceEntry { s_out: face.s_out, ..Default::default() };
            match face.neighbour {
                Neighbour::Cell { block, padded, slot } => {
                    e.kind = FACE_CELL;
                    e.other = (g.table[block].cell as usize + padded) as i32;
                    e.slot = (start + slot) as i32;
                    e.other_interior = g.table[block].interior + global_of(&g.host.blocks[block], padded) as i32;
                }
                Neighbour::Characteristic { kind, normal, ghost } => {
                    e.kind = FACE_CHARACTERISTIC;
                    e.other = (base + ghost) as i32;
                    e.bc = (kind == PhysicalBc::Outlet) as i32;
                    e.normal = normal;
                }
                Neighbour::Wall { no_slip } => {
                    e.kind = FACE_WALL;
                    e.bc = no_slip as i32;
                }
            }
            out.push(e);
        }
    }
    out
}

/// Assembles the mean-flow matrix at `w` (ghosts filled), with `Omega/dt` on the diagonal when
/// `dt` is given, with turbulent physics the SA matrix and with SA-gamma the intermittency
/// matrix (`source_derivative` and `gamma_source_derivative` filled first by the viscous family).
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    k: &Kernels,
    cx: &Ctx,
    g: &GpuGeometry,
    gas: &Gas,
    data: &BoundaryData,
    options: &JacobianOptions,
    w: &CudaSlice<f64>,
    dt: Option<&CudaSlice<f64>>,
    jac: &mut GpuJacobian,
) -> Result<()> {
    let (gas, bc) = (GasArgs::from(gas), BoundaryArgs::from(data));
    let args = JacobianArgs::new(options, dt.is_some());
    // Without dt the kernels never read it: any device buffer stands in.
    let dt = dt.unwrap_or(&g.volume);
    let e = g.extent;
    unsafe {
        cx.stream
            .launch_builder(&k.assemble_flow)
            .arg(&g.blocks)
            .arg(&e)
            .arg(&gas)
            .arg(&bc)
            .arg(&args)
            .arg(&jac.row_ptr)
            .arg(&jac.diag)
            .arg(&jac.faces)
            .arg(w)
            .arg(&g.volume)
            .arg(dt)
            .arg(&mut jac.values)
            .launch(grid(g.n_interior()))
            .map_err(gpu_err)?;
    }
    cx.counters.launched(1);
    jac.turbulent = options.physics.is_turbulent();
    jac.transition = options.physics.transports_intermittency();
    let scalars = [(jac.turbulent, 0i32), (jac.transition, 1i32)];
    for (assembled, scalar) in scalars {
        if !assembled {
            continue;
        }
        let GpuJacobian { row_ptr, diag, faces, source_derivative, gamma_source_derivative, turbulence, intermittency, .. } = &mut *jac;
        let (derivative, values) = if scalar == 0 { (&*source_derivative, turbulence) } else { (&*gamma_source_derivative, intermittency) };
        unsafe {
            cx.stream
                .launch_builder(&k.assemble_turbulence)
                .arg(&g.blocks)
                .arg(&e)
                .arg(&gas)
                .arg(&args)
                .arg(&scalar)
                .arg(&*row_ptr)
                .arg(&*diag)
                .arg(&*faces)
                .arg(w)
                .arg(&g.volume)
                .arg(derivative)
                .arg(dt)
                .arg(values)
                .launch(grid(g.n_interior()))
                .map_err(gpu_err)?;
        }
        cx.counters.launched(1);
    }
    Ok(())
}

/// The source derivative buffers of `jac` (SA, intermittency), for the viscous family to fill
/// before assembly.
pub(super) fn source_derivatives(jac: &mut GpuJacobian) -> (&mut CudaSlice<f64>, &mut CudaSlice<f64>) {
    (&mut jac.source_derivative, &mut jac.gamma_source_derivative)
}

/// `b = scale * f[vars]` on the interior cells, `nv` values per row (`first` the first variable).
pub(super) fn gather(k: &Kernels, cx: &Ctx, g: &GpuGeometry, first: usize, nv: usize, scale: f64, f: &CudaSlice<f64>, b: &mut CudaSlice<f64>) -> Result<()> {
    let (first, nv) = (first as i32, nv as i32);
    unsafe { cx.stream.launch_builder(&k.gather).arg(&g.blocks).arg(&g.extent).arg(&first).arg(&nv).arg(&scale).arg(f).arg(b).launch(grid(g.n_interior())) }
        .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `f[vars] = x` on the interior cells.
pub(super) fn scatter(k: &Kernels, cx: &Ctx, g: &GpuGeometry, first: usize, nv: usize, x: &CudaSlice<f64>, f: &mut CudaSlice<f64>) -> Result<()> {
    let (first, nv) = (first as i32, nv as i32);
    unsafe { cx.stream.launch_builder(&k.scatter).arg(&g.blocks).arg(&g.extent).arg(&first).arg(&nv).arg(x).arg(f).launch(grid(g.n_interior())) }
        .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}

/// `y = A x` with the matrix of `system`.
pub(super) fn spmv(k: &Kernels, cx: &Ctx, jac: &GpuJacobian, system: System, x: &CudaSlice<f64>, y: &mut CudaSlice<f64>) -> Result<()> {
    let n = jac.n_rows() as i32;
    let (kernel, values, threads) = match system {
        System::MeanFlow => (&k.bsr4_spmv, &jac.values, 4 * n),
        System::Turbulence => (&k.csr_spmv, &jac.turbulence, n),
        System::Intermittency => (&k.csr_spmv, &jac.intermittency, n),
    };
    unsafe { cx.stream.launch_builder(kernel).arg(&n).arg(&jac.row_ptr).arg(&jac.cols).arg(values).arg(x).arg(y).launch(grid(threads as usize)) }
        .map_err(gpu_err)?;
    cx.counters.launched(1);
    Ok(())
}
