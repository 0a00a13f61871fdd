//! [`ImplicitBackend`] for the GPU backend, twin of `backend/cpu/implicit_ops.rs`: the system
//! matrices assembled on the device (`jacobian.rs`), the preconditioners (`ilu.rs`), and the
//! Krylov vectors as device arrays whose algebra runs in kernels. Only inner products, norms,
//! the relative change of an update and the singular-pivot flag of a factorization come back
//! to the host.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use cudarc::driver::DevicePtr;

use cudarc::driver::CudaSlice;

use super::ilu::{DeviceMatrix, SystemPreconditioner};
use super::jacobian::{self, GpuJacobian};
use super::reduce::NewState;
use super::{gpu_err, reduce, update, viscous, GpuBackend, GpuField, GpuGeometry, GpuScalars};
use crate::backend::implicit::{FactorPrecision, ImplicitBackend, JacobianOptions, PreconditionerKind, System};
use crate::backend::{BoundaryData, INTERMITTENCY, NFLOW};
use crate::flow::gas::Gas;
use crate::backend::GramSchmidt;
use crate::{Error, Result};

/// A vector of one system's unknowns on the device (`nv` values per interior cell, in the row
/// order of the matrix).
pub struct GpuVector {
    pub data: CudaSlice<f64>,
}

/// A factorized preconditioner on the device: the mean flow's of the chosen kind and, with
/// turbulent physics, the SA system's (an ILU(0) in the same ordering as the mean flow's, or
/// block-Jacobi with block-Jacobi).
pub struct GpuPreconditioner {
    kind: PreconditionerKind,
    flow: SystemPreconditioner,
    turbulence: Option<SystemPreconditioner>,
    /// The intermittency system's (SA-gamma), made as the SA system's.
    intermittency: Option<SystemPreconditioner>,
    /// The Arnoldi steps recorded as CUDA graphs, by the device addresses they work on.
    steps: RecordedSteps,
}

/// CUDA graphs of whole Arnoldi steps ([`ImplicitBackend::arnoldi_step`]), keyed by the system
/// and every device address a step reads or writes (matrix, basis, direction, reduction
/// buffers): a step replays only on exactly the buffers it was recorded on. The preconditioner's
/// own buffers are fixed for its lifetime (refactorization writes them in place), so the graphs
/// live and die with it.
#[derive(Default)]
struct RecordedSteps(Mutex<HashMap<Vec<u64>, super::GpuRecording>>);

// SAFETY: a CUDA graph must not be used from two threads at once (CUDA driver API, "Graph
// object thread safety"); every access goes through the mutex, and each graph launches on the
// stream it was recorded on.
unsafe impl Send for RecordedSteps {}
unsafe impl Sync for RecordedSteps {}

/// Recorded steps kept per preconditioner before the cache starts over (a solver's workspaces
/// need 2 systems x m steps; other callers with fresh vectors would otherwise grow it).
const MAX_RECORDED_STEPS: usize = 256;

impl GpuPreconditioner {
    /// Parallel steps of the mean-flow factorization and of each triangular sweep (the levels
    /// of the level-scheduled ILU; 1 for block-Jacobi).
    pub fn flow_levels(&self) -> usize {
        self.flow.levels()
    }
}

/// The field variables of `system`'s unknowns.
fn variables(system: System) -> Range<usize> {
    match system {
        System::MeanFlow => 0..NFLOW,
        System::Turbulence => NFLOW..NFLOW + 1,
        System::Intermittency => INTERMITTENCY..INTERMITTENCY + 1,
    }
}

/// The matrix of `system`.
fn matrix(jac: &GpuJacobian, system: System) -> DeviceMatrix<'_> {
    let (block, values) = match system {
        System::MeanFlow => (4, &jac.values),
        System::Turbulence => (1, &jac.turbulence),
        System::Intermittency => (1, &jac.intermittency),
    };
    DeviceMatrix { block, n_rows: jac.n_rows(), row_ptr: &jac.row_ptr, cols: &jac.cols, diag: &jac.diag, values }
}

/// The SA system's preconditioner kind for a mean-flow kind: an ILU(0) of the same kind (the
/// scalar system is not worth a block-Jacobi of its own). Unlike the CPU backend, which gives the
/// SA system a natural-order ILU(0) with either ILU, the device keeps the multicolour ordering.
fn turbulence_kind(kind: PreconditionerKind) -> PreconditionerKind {
    match kind {
        PreconditionerKind::Jacobi => PreconditionerKind::Ilu,
        other => other,
    }
}

impl GpuBackend {
    /// A host copy of the assembled values (mean flow, and SA when assembled), in the slots of
    /// the CPU backend's pattern (parity tests; counted as a transfer).
    pub fn jacobian_to_host(&self, jac: &GpuJacobian) -> Result<(Vec<f64>, Option<Vec<f64>>)> {
        self.counters.field_transfer();
        let flow = self.stream().clone_dtoh(&jac.values).map_err(gpu_err)?;
        let turbulence = if jac.turbulent { Some(self.stream().clone_dtoh(&jac.turbulence).map_err(gpu_err)?) } else { None };
        Ok((flow, turbulence))
    }

    /// Host copy of the intermittency matrix values (SA-gamma; `None` when not assembled; tests).
    pub fn intermittency_jacobian_to_host(&self, jac: &GpuJacobian) -> Result<Option<Vec<f64>>> {
        self.counters.field_transfer();
        jac.transition.then(|| self.stream().clone_dtoh(&jac.intermittency).map_err(gpu_err)).transpose()
    }

    /// A device Krylov vector from host values (tests; counted as a transfer).
    pub fn vector_from_host(&self, values: &[f64]) -> Result<GpuVector> {
        self.counters.field_transfer();
        Ok(GpuVector { data: self.stream().clone_htod(values).map_err(gpu_err)? })
    }

    /// Host copy of a device Krylov vector (tests; counted as a transfer).
    pub fn vector_to_host(&self, v: &GpuVector) -> Result<Vec<f64>> {
        self.counters.field_transfer();
        self.stream().clone_dtoh(&v.data).map_err(gpu_err)
    }

    /// A read-back scalar of a reduction, or NaN after a device error (kept for `check`).
    fn reduction(&self, op: impl FnOnce(&super::Ctx, &mut reduce::Scratch) -> Result<f64>) -> f64 {
        let mut out = f64::NAN;
        self.guarded(|cx| {
            let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            out = op(cx, &mut scratch)?;
            Ok(())
        });
        out
    }

    fn factorization(&self, jac: &GpuJacobian, kind: PreconditionerKind) -> Result<GpuPreconditioner> {
        self.take_error().map_or(Ok(()), Err)?;
        let cx = self.ctx();
        let k = &self.kernels.ilu;
        let flow = SystemPreconditioner::new(k, &cx, &matrix(jac, System::MeanFlow), &jac.pattern.blocks, kind, self.graphs)?;
        let scalar = |assembled: bool, system: System| -> Result<Option<SystemPreconditioner>> {
            match assembled {
                true => Ok(Some(SystemPreconditioner::new(k, &cx, &matrix(jac, system), &jac.pattern.blocks, turbulence_kind(kind), self.graphs)?)),
                false => Ok(None),
            }
        };
        let turbulence = scalar(jac.turbulent, System::Turbulence)?;
        let intermittency = scalar(jac.transition, System::Intermittency)?;
        Ok(GpuPreconditioner { kind, flow, turbulence, intermittency, steps: RecordedSteps::default() })
    }
}

impl GpuBackend {
    #[allow(clippy::too_many_arguments)]
    fn recorded_arnoldi_step(
        &self,
        cx: &super::Ctx,
        jac: &GpuJacobian,
        pc: &GpuPreconditioner,
        p: &SystemPreconditioner,
        system: System,
        basis: &[GpuVector],
        w: &mut GpuVector,
        z: &mut GpuVector,
        method: GramSchmidt,
    ) -> Result<(Vec<f64>, f64)> {
        let m = basis.len();
        let v_k = &basis.last().ok_or_else(|| Error::Gpu("an Arnoldi step needs v_k".into()))?.data;
        let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
        scratch.reserve(cx, m)?;
        let values = matrix(jac, system).values;
        let mut key = vec![system as u64, method as u64, values.device_ptr(cx.stream).0, jac.row_ptr.device_ptr(cx.stream).0, w.data.device_ptr(cx.stream).0, z.data.device_ptr(cx.stream).0];
        key.extend(basis.iter().map(|v| v.data.device_ptr(cx.stream).0));
        key.extend(scratch.addresses(cx));
        let mut steps = pc.steps.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(r) = steps.get(&key) {
            r.replay(cx)?;
            return scratch.hessenberg_column_to_host(cx, m, method);
        }
        if steps.len() >= MAX_RECORDED_STEPS {
            steps.clear();
        }
        let vectors: Vec<&CudaSlice<f64>> = basis.iter().map(|v| &v.data).collect();
        let recording = super::GpuRecording::record(cx, "an Arnoldi step", || {
            p.apply(&self.kernels.ilu, cx, v_k, &mut z.data)?;
            jacobian::spmv(&self.kernels.jacobian, cx, jac, system, &z.data, &mut w.data)?;
            queue_gram_schmidt(&self.kernels, cx, &mut scratch, &vectors, &mut w.data, method)
        })?;
        steps.insert(key, recording);
        scratch.hessenberg_column_to_host(cx, m, method)
    }
}

/// Queues one Arnoldi step's Gram-Schmidt by `method`.
fn queue_gram_schmidt(k: &super::Kernels, cx: &super::Ctx, scratch: &mut reduce::Scratch, basis: &[&CudaSlice<f64>], w: &mut CudaSlice<f64>, method: GramSchmidt) -> Result<()> {
    match method {
        GramSchmidt::ClassicalTwice => reduce::classical_gram_schmidt_twice_queued(&k.reduce, &k.update, cx, scratch, basis, w),
        GramSchmidt::Modified => reduce::gram_schmidt_queued(&k.reduce, &k.update, cx, scratch, basis, w),
    }
}

/// Whether the Gram-Schmidt step of `method` with `m` basis vectors runs with its coefficients
/// on the device: classical Gram-Schmidt takes at most [`reduce::MAX_BASIS`] vectors per launch.
fn runs_on_device(method: GramSchmidt, m: usize) -> bool {
    method == GramSchmidt::Modified || m <= reduce::MAX_BASIS
}

impl ImplicitBackend for GpuBackend {
    type Jacobian = GpuJacobian;
    type Preconditioner = GpuPreconditioner;
    type KrylovVector = GpuVector;

    fn new_jacobian(&self, g: &GpuGeometry) -> Result<GpuJacobian> {
        GpuJacobian::new(&self.ctx(), g)
    }

    fn assemble_jacobian(
        &self,
        g: &GpuGeometry,
        gas: &Gas,
        data: &BoundaryData,
        options: &JacobianOptions,
        w: &GpuField,
        dt: Option<&GpuScalars>,
        jac: &mut GpuJacobian,
    ) {
        self.guarded(|cx| {
            if options.physics.is_turbulent() {
                let (sa, gamma) = jacobian::source_derivatives(jac);
                viscous::source_derivative(&self.kernels.viscous, cx, g, gas, options.physics, &options.sa, &w.data, sa, gamma)?;
            }
            jacobian::assemble(&self.kernels.jacobian, cx, g, gas, data, options, &w.data, dt.map(|d| &d.data), jac)
        });
    }

    fn is_assembled(&self, jac: &GpuJacobian, system: System) -> bool {
        match system {
            System::MeanFlow => true,
            System::Turbulence => jac.turbulent,
            System::Intermittency => jac.transition,
        }
    }

    /// ILU(0) with Jacobi-swept triangular solves: on LS89 medium (H100, BENCHMARKS.md) 8.6 s to
    /// 6 orders with 8 sweeps against 15.9 s with the multicolour ILU, whose red-black ordering
    /// needs 55 FGMRES iterations per stage against 13.5, and 75 s with exact natural-order
    /// sweeps (a chain of ~1,000 wavefronts per sweep).
    fn preferred_preconditioner(&self) -> PreconditionerKind {
        PreconditionerKind::SweptIlu { sweeps: crate::backend::implicit::DEFAULT_TRIANGULAR_SWEEPS, factors: FactorPrecision::Single }
    }

    fn check_preconditioner(&self, kind: PreconditionerKind) -> Result<()> {
        match kind {
            PreconditionerKind::Auto | PreconditionerKind::StripIlu { .. } => Err(crate::backend::implicit::missing_preconditioner(kind, &crate::backend::Backend::name(self))),
            _ => Ok(()),
        }
    }

    fn factorize(&self, jac: &GpuJacobian, kind: PreconditionerKind) -> Result<GpuPreconditioner> {
        self.check_preconditioner(kind)?;
        self.factorization(jac, kind)
    }

    fn refactorize(&self, jac: &GpuJacobian, pc: &mut GpuPreconditioner) -> Result<()> {
        self.take_error().map_or(Ok(()), Err)?;
        let cx = self.ctx();
        let k = &self.kernels.ilu;
        pc.flow.refactorize(k, &cx, &matrix(jac, System::MeanFlow))?;
        let kind = turbulence_kind(pc.kind);
        for (slot, assembled, system) in [(&mut pc.turbulence, jac.turbulent, System::Turbulence), (&mut pc.intermittency, jac.transition, System::Intermittency)] {
            match (slot.as_mut(), assembled) {
                (Some(p), true) => p.refactorize(k, &cx, &matrix(jac, system))?,
                (None, true) => *slot = Some(SystemPreconditioner::new(k, &cx, &matrix(jac, system), &jac.pattern.blocks, kind, self.graphs)?),
                (_, false) => *slot = None,
            }
        }
        Ok(())
    }

    fn has_system(&self, jac: &GpuJacobian, pc: &GpuPreconditioner, system: System) -> bool {
        match system {
            System::MeanFlow => true,
            System::Turbulence => jac.turbulent && pc.turbulence.is_some(),
            System::Intermittency => jac.transition && pc.intermittency.is_some(),
        }
    }

    fn new_krylov_vector(&self, jac: &GpuJacobian, system: System) -> GpuVector {
        let n = variables(system).len() * jac.n_rows();
        match self.stream().alloc_zeros::<f64>(n.max(1)) {
            Ok(data) => GpuVector { data },
            Err(e) => {
                self.guarded(|_| Err(Error::Gpu(format!("cannot allocate a Krylov vector of {n} values on the GPU: {e}"))));
                GpuVector { data: self.stream().alloc_zeros::<f64>(1).expect("a one-value allocation after a failed one") }
            }
        }
    }

    fn gather_rhs(&self, g: &GpuGeometry, _jac: &GpuJacobian, system: System, r: &GpuField, scale: f64, b: &mut GpuVector) {
        let vars = variables(system);
        self.guarded(|cx| jacobian::gather(&self.kernels.jacobian, cx, g, vars.start, vars.len(), scale, &r.data, &mut b.data));
    }

    fn scatter_solution(&self, g: &GpuGeometry, _jac: &GpuJacobian, system: System, x: &GpuVector, dw: &mut GpuField) {
        let vars = variables(system);
        self.guarded(|cx| jacobian::scatter(&self.kernels.jacobian, cx, g, vars.start, vars.len(), &x.data, &mut dw.data));
    }

    fn apply_operator(&self, jac: &GpuJacobian, system: System, x: &GpuVector, y: &mut GpuVector) {
        self.guarded(|cx| jacobian::spmv(&self.kernels.jacobian, cx, jac, system, &x.data, &mut y.data));
    }

    fn apply_preconditioner(&self, pc: &GpuPreconditioner, system: System, r: &GpuVector, z: &mut GpuVector) {
        self.guarded(|cx| {
            let p = match system {
                System::MeanFlow => &pc.flow,
                System::Turbulence => pc.turbulence.as_ref().ok_or_else(|| Error::Gpu("the SA system was not factorized".into()))?,
                System::Intermittency => pc.intermittency.as_ref().ok_or_else(|| Error::Gpu("the intermittency system was not factorized".into()))?,
            };
            p.apply(&self.kernels.ilu, cx, &r.data, &mut z.data)
        });
    }

    fn dot(&self, a: &GpuVector, b: &GpuVector) -> f64 {
        self.reduction(|cx, s| reduce::dot(&self.kernels.reduce, cx, s, &a.data, &b.data))
    }

    fn norm2(&self, a: &GpuVector) -> f64 {
        self.dot(a, a).sqrt()
    }

    fn dots(&self, pairs: &[(&GpuVector, &GpuVector)]) -> Vec<f64> {
        let slices: Vec<(&CudaSlice<f64>, &CudaSlice<f64>)> = pairs.iter().map(|(a, b)| (&a.data, &b.data)).collect();
        let mut out = vec![f64::NAN; pairs.len()];
        self.guarded(|cx| {
            let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            out = reduce::dots(&self.kernels.reduce, cx, &mut scratch, &slices)?;
            Ok(())
        });
        out
    }

    fn axpy(&self, alpha: f64, x: &GpuVector, y: &mut GpuVector) {
        self.guarded(|cx| update::axpy(&self.kernels.update, cx, alpha, &x.data, &mut y.data));
    }

    fn scale(&self, alpha: f64, x: &mut GpuVector) {
        self.guarded(|cx| update::scale(&self.kernels.update, cx, alpha, &mut x.data));
    }

    fn divide(&self, x: &mut GpuVector, divisor: f64) {
        self.guarded(|cx| update::divide(&self.kernels.update, cx, divisor, &mut x.data));
    }

    fn copy(&self, x: &GpuVector, y: &mut GpuVector) {
        self.guarded(|cx| cx.stream.memcpy_dtod(&x.data, &mut y.data).map_err(gpu_err));
    }

    /// The Gram-Schmidt coefficients stay on the device until the step ends: one read-back per
    /// Arnoldi step instead of one per inner product.
    fn orthogonalize(&self, basis: &[GpuVector], w: &mut GpuVector, method: GramSchmidt) -> Option<(Vec<f64>, f64)> {
        if !runs_on_device(method, basis.len()) {
            return None;
        }
        let vectors: Vec<&CudaSlice<f64>> = basis.iter().map(|v| &v.data).collect();
        let mut out = (vec![f64::NAN; basis.len()], f64::NAN);
        self.guarded(|cx| {
            let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            scratch.reserve(cx, basis.len())?;
            queue_gram_schmidt(&self.kernels, cx, &mut scratch, &vectors, &mut w.data, method)?;
            out = scratch.hessenberg_column_to_host(cx, basis.len(), method)?;
            Ok(())
        });
        Some(out)
    }

    /// The whole step as one CUDA graph per set of buffers, recorded on first use: one launch
    /// and one read-back instead of some 30 launches (a preconditioner of 2 sweeps + 1
    /// kernels, the product, m + 2 Gram-Schmidt kernels), the same kernels in the same order.
    /// Preconditioners whose kernels carry per-call arguments (the sync-free ILU's epochs) or
    /// run library calls (cuSPARSE) take the operations one by one.
    fn arnoldi_step(&self, jac: &GpuJacobian, pc: &GpuPreconditioner, system: System, basis: &[GpuVector], w: &mut GpuVector, z: &mut GpuVector, method: GramSchmidt) -> Option<(Vec<f64>, f64)> {
        let p = match system {
            System::MeanFlow => &pc.flow,
            System::Turbulence => pc.turbulence.as_ref()?,
            System::Intermittency => pc.intermittency.as_ref()?,
        };
        if !self.graphs || !p.is_recordable(&self.kernels.ilu) || !runs_on_device(method, basis.len()) {
            return None;
        }
        let mut out = (vec![f64::NAN; basis.len()], f64::NAN);
        self.guarded(|cx| {
            out = self.recorded_arnoldi_step(cx, jac, pc, p, system, basis, w, z, method)?;
            Ok(())
        });
        Some(out)
    }

    fn max_relative_change(&self, g: &GpuGeometry, gas: &Gas, w: &GpuField, dw: &GpuField) -> f64 {
        self.reduction(|cx, s| reduce::relative_change(&self.kernels.reduce, cx, s, g, gas.gamma, &w.data, NewState::Plus(&dw.data)))
    }

    fn relative_change_between(&self, g: &GpuGeometry, gas: &Gas, from: &GpuField, to: &GpuField) -> f64 {
        self.reduction(|cx, s| reduce::relative_change(&self.kernels.reduce, cx, s, g, gas.gamma, &from.data, NewState::Given(&to.data)))
    }

    /// The change's reduction and the scaled update queued together: no read-back.
    fn add_limited_update(&self, g: &GpuGeometry, gas: &Gas, limit: f64, dw: &GpuField, w: &mut GpuField) {
        self.guarded(|cx| {
            let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            reduce::queue_relative_change(&self.kernels.reduce, cx, &mut scratch, g, gas.gamma, &w.data, NewState::Plus(&dw.data))?;
            update::limited_axpy(&self.kernels.update, cx, limit, scratch.result(), &dw.data, &mut w.data)
        });
    }

    fn add_time_term(&self, g: &GpuGeometry, dt: &GpuScalars, scale: f64, x: &GpuField, y: &mut GpuField) {
        self.guarded(|cx| update::time_term(&self.kernels.update, cx, g, scale, &dt.data, &x.data, &mut y.data));
    }

    fn is_physical(&self, g: &GpuGeometry, gas: &Gas, w: &GpuField) -> bool {
        // A device error reads as NaN: not physical, and the error surfaces at the next check.
        self.reduction(|cx, s| reduce::relative_change(&self.kernels.reduce, cx, s, g, gas.gamma, &w.data, NewState::Same)) == 0.0
    }
}
