//! [`ImplicitBackend`] for the GPU backend, twin of `backend/cpu/implicit_ops.rs`: the system
//! matrices assembled on the device (`jacobian.rs`), the preconditioners (`ilu.rs`), and the
//! Krylov vectors as device arrays whose algebra runs in kernels. Only inner products, norms,
//! the relative change of an update and the singular-pivot flag of a factorization come back
//! to the host.

use std::ops::Range;

use cudarc::driver::CudaSlice;

use super::ilu::{DeviceMatrix, SystemPreconditioner};
use super::jacobian::{self, GpuJacobian};
use super::{gpu_err, reduce, update, viscous, GpuBackend, GpuField, GpuGeometry, GpuScalars};
use crate::backend::implicit::{ImplicitBackend, JacobianOptions, PreconditionerKind, System};
use crate::backend::{BoundaryData, NFLOW, NVAR};
use crate::flow::gas::Gas;
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
}

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
        System::Turbulence => NFLOW..NVAR,
    }
}

fn matrix(jac: &GpuJacobian, system: System) -> DeviceMatrix<'_> {
    let (block, values) = match system {
        System::MeanFlow => (4, &jac.values),
        System::Turbulence => (1, &jac.turbulence),
    };
    DeviceMatrix { block, n_rows: jac.n_rows(), row_ptr: &jac.row_ptr, cols: &jac.cols, diag: &jac.diag, values }
}

/// The SA system's preconditioner kind for a mean-flow kind: the CPU backend gives the SA system
/// a natural-order ILU(0) with either ILU; on the device the multicolour one keeps its colours.
fn turbulence_kind(kind: PreconditionerKind) -> PreconditionerKind {
    match kind {
        PreconditionerKind::Jacobi | PreconditionerKind::Ilu => PreconditionerKind::Ilu,
        PreconditionerKind::McIlu | PreconditionerKind::Auto => PreconditionerKind::McIlu,
        PreconditionerKind::CusparseIlu => PreconditionerKind::CusparseIlu,
        PreconditionerKind::SweptIlu { sweeps } => PreconditionerKind::SweptIlu { sweeps },
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
        let flow = SystemPreconditioner::new(k, &cx, &matrix(jac, System::MeanFlow), &jac.pattern.matrix, kind)?;
        let turbulence = if jac.turbulent {
            Some(SystemPreconditioner::new(k, &cx, &matrix(jac, System::Turbulence), &jac.pattern.turbulence, turbulence_kind(kind))?)
        } else {
            None
        };
        Ok(GpuPreconditioner { kind, flow, turbulence })
    }
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
                viscous::source_derivative(&self.kernels.viscous, cx, g, gas, &options.sa, &w.data, jacobian::source_derivative(jac))?;
            }
            jacobian::assemble(&self.kernels.jacobian, cx, g, gas, data, options, &w.data, dt.map(|d| &d.data), jac)
        });
    }

    fn is_assembled(&self, jac: &GpuJacobian, system: System) -> bool {
        system == System::MeanFlow || jac.turbulent
    }

    fn preferred_preconditioner(&self) -> PreconditionerKind {
        PreconditionerKind::McIlu
    }

    fn factorize(&self, jac: &GpuJacobian, kind: PreconditionerKind) -> Result<GpuPreconditioner> {
        let kind = if kind == PreconditionerKind::Auto { self.preferred_preconditioner() } else { kind };
        self.factorization(jac, kind)
    }

    fn refactorize(&self, jac: &GpuJacobian, pc: &mut GpuPreconditioner) -> Result<()> {
        self.take_error().map_or(Ok(()), Err)?;
        let cx = self.ctx();
        let k = &self.kernels.ilu;
        pc.flow.refactorize(k, &cx, &matrix(jac, System::MeanFlow))?;
        match (&mut pc.turbulence, jac.turbulent) {
            (Some(p), true) => p.refactorize(k, &cx, &matrix(jac, System::Turbulence)),
            (None, true) => {
                let kind = turbulence_kind(pc.kind);
                pc.turbulence = Some(SystemPreconditioner::new(k, &cx, &matrix(jac, System::Turbulence), &jac.pattern.turbulence, kind)?);
                Ok(())
            }
            (_, false) => {
                pc.turbulence = None;
                Ok(())
            }
        }
    }

    fn has_system(&self, jac: &GpuJacobian, pc: &GpuPreconditioner, system: System) -> bool {
        match system {
            System::MeanFlow => true,
            System::Turbulence => jac.turbulent && pc.turbulence.is_some(),
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
        self.guarded(|cx| jacobian::spmv(&self.kernels.jacobian, cx, jac, system == System::Turbulence, &x.data, &mut y.data));
    }

    fn apply_preconditioner(&self, pc: &GpuPreconditioner, system: System, r: &GpuVector, z: &mut GpuVector) {
        self.guarded(|cx| {
            let p = match system {
                System::MeanFlow => &pc.flow,
                System::Turbulence => pc.turbulence.as_ref().ok_or_else(|| Error::Gpu("the SA system was not factorized".into()))?,
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
    fn orthogonalize(&self, basis: &[GpuVector], w: &mut GpuVector) -> Option<(Vec<f64>, f64)> {
        let vectors: Vec<&CudaSlice<f64>> = basis.iter().map(|v| &v.data).collect();
        let mut out = (vec![f64::NAN; basis.len()], f64::NAN);
        self.guarded(|cx| {
            let mut scratch = self.scratch.lock().unwrap_or_else(|p| p.into_inner());
            out = reduce::gram_schmidt(&self.kernels.reduce, &self.kernels.update, cx, &mut scratch, &vectors, &mut w.data)?;
            Ok(())
        });
        Some(out)
    }

    fn max_relative_change(&self, g: &GpuGeometry, gas: &Gas, w: &GpuField, dw: &GpuField) -> f64 {
        self.reduction(|cx, s| reduce::relative_change(&self.kernels.reduce, cx, s, g, gas.gamma, &w.data, Some(&dw.data)))
    }

    fn is_physical(&self, g: &GpuGeometry, gas: &Gas, w: &GpuField) -> bool {
        // A device error reads as NaN: not physical, and the error surfaces at the next check.
        self.reduction(|cx, s| reduce::relative_change(&self.kernels.reduce, cx, s, g, gas.gamma, &w.data, None)) == 0.0
    }
}
