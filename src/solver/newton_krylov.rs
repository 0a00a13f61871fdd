//! The matrix-free mean-flow operator of a stage ([`super::implicit_config::StageOperator::MatrixFree`]):
//! `A v = (Omega/dt) v + J v` with `J` the Jacobian of the second-order residual itself, applied
//! as a finite difference of residuals, `J v ~ (R(W + eps v) - R(W)) / eps` (Knoll and Keyes
//! 2004, eq. 10), with the step of Pernice and Walker's NITSOL, `eps = sqrt(eps_mach) (1 +
//! ||W||) / ||v||` (eq. 11 there). The preconditioner stays the ILU of the assembled
//! first-order matrix, and the turbulence unknowns are frozen in the product, as in the
//! segregated assembled scheme.
//!
//! Measured (BENCHMARKS.md): about 40 % fewer flow iterations (LS89 MUR47 coarse 95-101 against
//! 162-168; test case 1 DE designs 72 on average against 130), but each stage's solve takes 2.6x
//! (CPU strip ILU) to 2.8x (GPU swept ILU) the FGMRES iterations, each with a residual
//! evaluation: the first-order ILU preconditions the second-order operator poorly. So the
//! assembled operator is the default.

use std::sync::Mutex;

use super::krylov::{GramSchmidt, KrylovSystem, StageSystem};
use crate::backend::{ImplicitBackend, System};
use crate::Error;

/// Ghost fill and residual of a state into a residual field (the solver's R(W)).
pub type ResidualFn<'a, F> = &'a dyn Fn(&mut F, &mut F);

/// What the matrix-free products of one solve keep: the direction as a field, the perturbed
/// state and its residual (the same buffers throughout, so the residual is recorded once where
/// the backend records), and the first error of a recording.
pub struct MatrixFreeWorkspace<B: ImplicitBackend> {
    scratch: Mutex<[B::Field; 3]>,
    recording: Mutex<Option<B::Recording>>,
    error: Mutex<Option<Error>>,
    w_vector: Mutex<B::KrylovVector>,
}

impl<B: ImplicitBackend> MatrixFreeWorkspace<B> {
    pub fn new(backend: &B, geometry: &B::Geometry, jacobian: &B::Jacobian) -> Self {
        MatrixFreeWorkspace {
            scratch: Mutex::new([backend.new_field(geometry), backend.new_field(geometry), backend.new_field(geometry)]),
            recording: Mutex::new(None),
            error: Mutex::new(None),
            w_vector: Mutex::new(backend.new_krylov_vector(jacobian, System::MeanFlow)),
        }
    }

    /// The mean-flow system of `assembled` (its matrix gives the preconditioner and the vector
    /// algebra) with the matrix-free operator at the state `w` (ghosts filled), whose residual is `r`.
    pub fn system<'a>(&'a self, assembled: StageSystem<'a, B>, geometry: &'a B::Geometry, w: &'a B::Field, r: &'a B::Field, dt: &'a B::Scalars, residual: ResidualFn<'a, B::Field>) -> MatrixFreeSystem<'a, B> {
        let mut wv = lock(&self.w_vector);
        assembled.backend.gather_rhs(geometry, assembled.jacobian, System::MeanFlow, w, 1.0, &mut wv);
        let w_norm = assembled.backend.norm2(&wv);
        MatrixFreeSystem { assembled: StageSystem { system: System::MeanFlow, ..assembled }, geometry, w, r, dt, residual, w_norm, workspace: self }
    }

    /// The first error a product's recorded residual met (a device error), taken.
    pub fn take_error(&self) -> Option<Error> {
        lock(&self.error).take()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The stage's mean-flow system with the matrix-free operator at the state `w`, whose residual
/// is `r`.
pub struct MatrixFreeSystem<'a, B: ImplicitBackend> {
    /// The assembled mean-flow system: its preconditioner and vector algebra are this one's.
    assembled: StageSystem<'a, B>,
    geometry: &'a B::Geometry,
    w: &'a B::Field,
    r: &'a B::Field,
    dt: &'a B::Scalars,
    residual: ResidualFn<'a, B::Field>,
    /// ||W|| over the mean-flow unknowns of the interior cells.
    w_norm: f64,
    workspace: &'a MatrixFreeWorkspace<B>,
}

impl<B: ImplicitBackend> KrylovSystem for MatrixFreeSystem<'_, B> {
    type Vector = B::KrylovVector;

    fn new_vector(&self) -> Self::Vector {
        self.assembled.new_vector()
    }
    fn apply_operator(&self, x: &Self::Vector, y: &mut Self::Vector) {
        let (backend, g, jacobian) = (self.assembled.backend, self.geometry, self.assembled.jacobian);
        let norm = backend.norm2(x);
        if !(norm > 0.0 && norm.is_finite()) {
            backend.copy(x, y);
            backend.scale(0.0, y);
            return;
        }
        let eps = f64::EPSILON.sqrt() * (1.0 + self.w_norm) / norm;
        let mut scratch = lock(&self.workspace.scratch);
        let [v, wp, rp] = &mut *scratch;
        backend.fill_field(v, 0.0);
        backend.scatter_solution(g, jacobian, System::MeanFlow, x, v);
        backend.copy_field(self.w, wp);
        backend.axpy_field(eps, v, wp);
        let recorded = backend.run_recorded(&mut lock(&self.workspace.recording), &mut || (self.residual)(wp, rp));
        if let Err(e) = recorded {
            lock(&self.workspace.error).get_or_insert(e);
        }
        backend.axpy_field(-1.0, self.r, rp);
        backend.add_time_term(g, self.dt, eps, v, rp);
        backend.gather_rhs(g, jacobian, System::MeanFlow, rp, 1.0 / eps, y);
    }
    fn apply_preconditioner(&self, r: &Self::Vector, z: &mut Self::Vector) {
        self.assembled.apply_preconditioner(r, z);
    }
    fn dot(&self, a: &Self::Vector, b: &Self::Vector) -> f64 {
        self.assembled.dot(a, b)
    }
    fn norm2(&self, a: &Self::Vector) -> f64 {
        self.assembled.norm2(a)
    }
    fn axpy(&self, alpha: f64, x: &Self::Vector, y: &mut Self::Vector) {
        self.assembled.axpy(alpha, x, y);
    }
    fn scale(&self, alpha: f64, x: &mut Self::Vector) {
        self.assembled.scale(alpha, x);
    }
    fn divide(&self, x: &mut Self::Vector, divisor: f64) {
        self.assembled.divide(x, divisor);
    }
    fn copy(&self, x: &Self::Vector, y: &mut Self::Vector) {
        self.assembled.copy(x, y);
    }
    fn orthogonalize(&self, basis: &[Self::Vector], w: &mut Self::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
        self.assembled.orthogonalize(basis, w, method)
    }
}
