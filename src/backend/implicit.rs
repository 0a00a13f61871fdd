//! The operations the implicit scheme needs on top of [`Backend`] (thesis chapter 5, docs/architecture.md
//! section 4): the approximate Jacobian of the first-order residual in a block-sparse matrix
//! whose pattern is built once per mesh, its preconditioner (block-Jacobi, block ILU(0),
//! multicolour block ILU(0)), and the operations one preconditioned FGMRES solve per
//! Runge-Kutta stage is made of.
//!
//! The Krylov algorithm itself is `crate::solver::krylov::fgmres`, written once (docs/architecture.md
//! section 6, "Krylov once"); a backend supplies vectors where it keeps its data, their algebra
//! (dot, norm, axpy, scale), the matrix-vector product and the preconditioner application.

use serde::{Deserialize, Serialize};

use super::{Backend, BoundaryData, Physics, SaSourceOptions};
use crate::flow::gas::Gas;
use crate::Result;

/// How the convective face-flux Jacobians dF/dW_L, dF/dW_R of the first-order residual are formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvectiveJacobian {
    /// Roe flux with the Roe matrix |A_Roe| frozen (Blazek ch. 6): 1/2 (A(W_L) + |A|) and
    /// 1/2 (A(W_R) - |A|). Exact where the flow is locally uniform; drops d|A|/dW (W_R - W_L)
    /// elsewhere. The default.
    FrozenRoe,
    /// Rusanov-type splitting 1/2 (A(W) +- lambda_max I): more diagonally dominant, cheaper, a
    /// further approximation of the Roe residual.
    Rusanov,
    /// The exact derivative of the first-order Roe face flux, by central differences of
    /// `flow::roe::roe_flux` per face (relative error ~1e-9). Eight flux evaluations per face
    /// and side: for verification and Newton-like runs.
    Exact,
}

/// Jacobi sweeps per triangular solve of [`PreconditionerKind::SweptIlu`] when none are given.
pub const DEFAULT_TRIANGULAR_SWEEPS: usize = 8;

/// Strips of [`PreconditionerKind::StripIlu`] when none are given.
pub const DEFAULT_STRIPS: usize = 16;

/// Overlap (cell layers) of [`PreconditionerKind::StripIlu`] when none is given.
pub const DEFAULT_STRIP_OVERLAP: usize = 2;

/// Below this exit isentropic Mach number the backend's preferred swept ILU sweeps twice as often
/// ([`PreconditionerKind::for_mach`]).
pub const LOW_MACH: f64 = 0.3;

/// Preconditioner of the per-stage FGMRES solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PreconditionerKind {
    /// Inverse of the 4x4 diagonal blocks.
    Jacobi,
    /// Block ILU(0) in the natural (cell) ordering.
    Ilu,
    /// Block ILU(0) in a multicolour ordering: rows of one colour factorized and swept in
    /// parallel (thesis 5.4).
    McIlu,
    /// Block ILU(0) in the natural ordering (the factors of `Ilu`) whose triangular solves are
    /// `sweeps` Jacobi sweeps each instead of exact wavefront sweeps (Anzt, Chow & Dongarra
    /// 2015): every sweep is one parallel step, so a preconditioner application is `2 sweeps + 1`
    /// data-parallel operations whatever the mesh, at the price of a weaker preconditioner
    /// than the exact solve. The SA system gets the same. `factors`: the precision the sweeps
    /// read the factors in (the arithmetic stays in f64).
    SweptIlu {
        sweeps: usize,
        #[serde(default)]
        factors: FactorPrecision,
    },
    /// Block ILU(0) over about `strips` strips of whole grid lines, each widened by `overlap`
    /// layers of neighbouring cells (`linalg::strip_ilu`: restricted additive Schwarz with the
    /// natural-order ILU(0) in each strip), so that the strips factorize and sweep in parallel.
    /// The strips follow the mesh, not the thread count (the same iterates on any number of
    /// cores). CPU only: on the GPU the swept ILU already runs every row at once.
    StripIlu {
        strips: usize,
        #[serde(default)]
        overlap: usize,
    },
    /// cuSPARSE's level-scheduled ILU(0) (bsrilu02/bsrsv2), natural ordering: the GPU baseline
    /// of thesis 5.4; GPU only (the CPU's `Ilu` is the same factorization).
    CusparseIlu,
    /// The backend's fastest at equal flow convergence ([`ImplicitBackend::preferred_preconditioner`],
    /// chosen by the implicit solver when it starts): on the CPU `StripIlu` from 4 threads on,
    /// whose strips use the cores the natural-order `Ilu` leaves idle, and `Ilu` below;
    /// `SweptIlu` on the GPU, where the natural ordering's ~1,000 wavefronts on LS89 medium make
    /// each exact triangular sweep a long chain of dependent steps and the multicolour ordering
    /// converges poorly (BENCHMARKS.md).
    Auto,
}

impl PreconditionerKind {
    /// The backend's preferred preconditioner adjusted to a case of exit isentropic Mach number
    /// `mach`: swept ILU doubles its sweeps below [`LOW_MACH`]. At low Mach numbers the acoustic
    /// terms dominate the Jacobian's off-diagonal blocks, its ILU factors are far from
    /// diagonally dominant and Jacobi sweeps of the triangular solves converge slowly: on the NACA
    /// 65 compressor cascade at M 0.085 (medium mesh, H100) 8 sweeps left FGMRES at 39 iterations a
    /// stage and the flow stalled at 4.7 orders, while 16 sweeps converged 7 orders in 581
    /// iterations (15.6 s) to the figures of the exact ILU (lift 0.8617 on both).
    pub fn for_mach(self, mach: f64) -> Self {
        match self {
            PreconditionerKind::SweptIlu { sweeps, factors } if mach < LOW_MACH => PreconditionerKind::SweptIlu { sweeps: 2 * sweeps, factors },
            other => other,
        }
    }
}

/// The precision a preconditioner's factors are stored and read in. The factorization and the
/// sweeps' arithmetic stay in f64; `Single` rounds the factors to f32 once per factorization,
/// which halves the bytes the sweeps read (most of a Krylov iteration's traffic on the GPU,
/// `perf::measure::implicit_bytes_per_cell`). FGMRES is flexible and the preconditioner is an
/// approximation of A^-1 in any case (ILU(0) truncated to a few sweeps), so a relative
/// perturbation of 6e-8 in it leaves the solution's accuracy to the operator, which stays f64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactorPrecision {
    Double,
    /// The default of `SweptIlu`: same FGMRES iterations, 7 % faster on LS89 medium and 10 % more
    /// designs a second in a batch on an H100 (BENCHMARKS.md).
    #[default]
    Single,
}

/// The orthogonalization of an Arnoldi step. Both keep the Krylov basis orthogonal to working
/// accuracy; they differ in how the work is cut up. Modified Gram-Schmidt (Saad alg. 9.6) takes
/// the basis vectors one after the other, each inner product waiting for the previous
/// subtraction: on a GPU, one launch per basis vector. Classical Gram-Schmidt takes all inner
/// products against the same vector at once, which loses orthogonality when the new vector is
/// nearly in the span of the basis; applied twice it is as orthogonal as the modified one
/// ("twice is enough": Giraud, Langou, Rozloznik 2005), in 5 launches whatever the basis size.
/// On the GPU both take the same time, single design and 16 at once (BENCHMARKS.md),
/// so the modified one is the default everywhere.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GramSchmidt {
    #[default]
    Modified,
    ClassicalTwice,
}

/// The error of a preconditioner a backend does not have (`backend`: its name).
pub fn missing_preconditioner(kind: PreconditionerKind, backend: &str) -> crate::Error {
    let why = match kind {
        PreconditionerKind::Auto => "`auto` is resolved by the implicit solver before it factorizes (a bug if it gets here)".to_string(),
        PreconditionerKind::CusparseIlu => "cuSPARSE runs on the GPU only; `ilu` is the same natural-order block ILU(0) on the CPU".to_string(),
        PreconditionerKind::StripIlu { .. } => "strips parallelize the CPU's exact triangular solves; on the GPU `swept-ilu` runs every row at once".to_string(),
        other => format!("{other:?} is not implemented on this backend"),
    };
    crate::Error::Other(format!("preconditioner {kind:?} is not available on {backend}: {why}"))
}

/// What the Jacobian linearizes and how.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JacobianOptions {
    pub convective: ConvectiveJacobian,
    /// Harten entropy fix width of the residual's Roe flux (the Jacobian uses the same).
    pub entropy_fix: f64,
    /// Viscous physics add the viscous spectral radii of the cell faces to the diagonal;
    /// turbulent physics also assemble the segregated SA system.
    pub physics: Physics,
    /// SA source options (turbulent physics): the source the SA system linearizes.
    pub sa: SaSourceOptions,
}

/// The linear systems of one implicit stage (thesis 5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    /// The coupled mean-flow system: one dense 4x4 block per cell pair, unknowns
    /// `[rho, rho u, rho v, rho E]` of the interior cells.
    MeanFlow,
    /// The segregated Spalart-Allmaras system: scalar, unknown `rho nu~` of the interior cells,
    /// at frozen mean flow. Assembled with turbulent physics only.
    Turbulence,
    /// The segregated intermittency system of SA-gamma: scalar, unknown `rho gamma` of the
    /// interior cells, at frozen mean flow and nu~. Assembled with [`Physics::SaGamma`] only.
    Intermittency,
}

impl System {
    /// The systems an implicit stage solves, in order: the mean flow, then the segregated
    /// scalars (each at the others' latest values).
    pub const ALL: [System; 3] = [System::MeanFlow, System::Turbulence, System::Intermittency];
}

/// The implicit-scheme operations of a backend. The mean flow is one coupled system with a
/// dense 4x4 block per cell pair; unknowns are the interior cells' `[rho, rho u, rho v, rho E]`.
/// With Spalart-Allmaras the turbulence model is a second, segregated scalar system for
/// `rho nu~` at frozen mean flow (thesis 5.2), in the same pattern, factorized and solved
/// alongside the mean flow.
pub trait ImplicitBackend: Backend + Sync {
    /// System matrix `Omega/dt I + dR/dW` with its pattern (built once per mesh).
    type Jacobian: Send + Sync;
    /// A factorized preconditioner of a `Jacobian`.
    type Preconditioner: Send + Sync;
    /// A vector of one linear [`System`]'s unknowns, where the backend keeps its data (host
    /// memory on the CPU, device memory on a GPU): the Krylov vectors of FGMRES.
    type KrylovVector: Send + Sync;

    /// Builds the block pattern of `geometry`: the diagonal plus one block per face neighbour,
    /// interface (1-to-1, periodic) neighbours included as blocks to the donor cell. Fails when
    /// an interface ghost has no interior donor.
    fn new_jacobian(&self, geometry: &Self::Geometry) -> Result<Self::Jacobian>;

    /// Assembles the Jacobian of the FIRST-ORDER residual at `w` (ghosts filled by
    /// `apply_boundary_conditions`): convective face Jacobians per `options`, walls through
    /// the pressure flux, inlet/outlet through the chain rule ghost = f(interior), interfaces as
    /// off-diagonal blocks to the donor cell, viscous spectral radii on the diagonal (viscous
    /// physics, eddy viscosity included). With `dt` the diagonal also gets `Omega / dt` (Blazek
    /// eq. 6.52; thesis eq. 5.4). Turbulent physics also assemble the SA system: upwind
    /// convection, thin-layer diffusion and the diagonal-strengthening part of the source.
    fn assemble_jacobian(
        &self,
        geometry: &Self::Geometry,
        gas: &Gas,
        data: &BoundaryData,
        options: &JacobianOptions,
        w: &Self::Field,
        dt: Option<&Self::Scalars>,
        jacobian: &mut Self::Jacobian,
    );

    /// Whether `system` is assembled in `jacobian` (the mean flow always is once assembled; the
    /// SA system with turbulent physics).
    fn is_assembled(&self, jacobian: &Self::Jacobian, system: System) -> bool;

    /// `y = A x` on the mean-flow variables of the interior cells, and `y = A_sa x` on rho nu~
    /// when the SA system is assembled (other entries of `y` zero).
    fn jacobian_product(&self, geometry: &Self::Geometry, jacobian: &Self::Jacobian, x: &Self::Field, y: &mut Self::Field) {
        self.fill_field(y, 0.0);
        for system in System::ALL {
            if !self.is_assembled(jacobian, system) {
                continue;
            }
            let mut xv = self.new_krylov_vector(jacobian, system);
            let mut yv = self.new_krylov_vector(jacobian, system);
            self.gather_rhs(geometry, jacobian, system, x, 1.0, &mut xv);
            self.apply_operator(jacobian, system, &xv, &mut yv);
            self.scatter_solution(geometry, jacobian, system, &yv, y);
        }
    }

    /// What [`PreconditionerKind::Auto`] means on this backend (the implicit solver resolves
    /// `Auto` with it before it factorizes anything).
    fn preferred_preconditioner(&self) -> PreconditionerKind {
        PreconditionerKind::Ilu
    }

    /// Whether this backend has the preconditioner `kind`: an error naming the kind and the
    /// backend when it has not (a backend never substitutes another preconditioner). `Auto` is
    /// not a preconditioner but a request the solver resolves first.
    fn check_preconditioner(&self, kind: PreconditionerKind) -> Result<()>;

    /// Factorizes a new preconditioner of `jacobian` (pattern analysis, colouring included;
    /// the SA system, when assembled, always gets a scalar ILU(0)). Fails on a singular pivot.
    fn factorize(&self, jacobian: &Self::Jacobian, kind: PreconditionerKind) -> Result<Self::Preconditioner>;

    /// Refreshes `preconditioner` with the current values of `jacobian` on the same pattern
    /// (the on-demand refactorization of thesis 5.4.2).
    fn refactorize(&self, jacobian: &Self::Jacobian, preconditioner: &mut Self::Preconditioner) -> Result<()>;

    /// Whether `system` is assembled in `jacobian` and factorized in `preconditioner` (the mean
    /// flow always is; the SA system with turbulent physics).
    fn has_system(&self, jacobian: &Self::Jacobian, preconditioner: &Self::Preconditioner, system: System) -> bool;

    /// A zero vector of `system`'s unknowns, kept where this backend keeps its data.
    fn new_krylov_vector(&self, jacobian: &Self::Jacobian, system: System) -> Self::KrylovVector;

    /// `b = scale * r` on `system`'s variables of the interior cells (the right-hand side
    /// `-alpha R` of thesis eq. 5.5).
    fn gather_rhs(
        &self,
        geometry: &Self::Geometry,
        jacobian: &Self::Jacobian,
        system: System,
        r: &Self::Field,
        scale: f64,
        b: &mut Self::KrylovVector,
    );

    /// Writes `x` into `system`'s variables of the interior cells of `dw`; other entries are
    /// left as they are.
    fn scatter_solution(
        &self,
        geometry: &Self::Geometry,
        jacobian: &Self::Jacobian,
        system: System,
        x: &Self::KrylovVector,
        dw: &mut Self::Field,
    );

    /// `y = A x` with `system`'s matrix.
    fn apply_operator(&self, jacobian: &Self::Jacobian, system: System, x: &Self::KrylovVector, y: &mut Self::KrylovVector);

    /// `z = M^-1 r` with `system`'s factorized preconditioner.
    fn apply_preconditioner(
        &self,
        preconditioner: &Self::Preconditioner,
        system: System,
        r: &Self::KrylovVector,
        z: &mut Self::KrylovVector,
    );

    /// Euclidean inner product `a . b` (read back to the host).
    fn dot(&self, a: &Self::KrylovVector, b: &Self::KrylovVector) -> f64;

    /// Euclidean norm `||a||` (read back to the host).
    fn norm2(&self, a: &Self::KrylovVector) -> f64;

    /// `a . b` for every pair `(a, b)`, each with the arithmetic of [`Self::dot`], read back
    /// together: on a GPU one synchronization instead of one an inner product (Anderson
    /// acceleration's new Gram row over every marched system, `solver::anderson`).
    fn dots(&self, pairs: &[(&Self::KrylovVector, &Self::KrylovVector)]) -> Vec<f64> {
        pairs.iter().map(|(a, b)| self.dot(a, b)).collect()
    }

    /// `y += alpha x`.
    fn axpy(&self, alpha: f64, x: &Self::KrylovVector, y: &mut Self::KrylovVector);

    /// `x *= alpha`.
    fn scale(&self, alpha: f64, x: &mut Self::KrylovVector);

    /// `x /= divisor`: a true division, not a product with `1 / divisor`, so that FGMRES
    /// normalizes its first Arnoldi vector as it always has and the iteration figures do not
    /// move by a rounding.
    fn divide(&self, x: &mut Self::KrylovVector, divisor: f64);

    /// `y = x`.
    fn copy(&self, x: &Self::KrylovVector, y: &mut Self::KrylovVector);

    /// One Arnoldi step's Gram-Schmidt by `method` with the arithmetic of
    /// `crate::solver::krylov::gram_schmidt` (h = ||w||, w *= 1/h at the end), run so that the
    /// coefficients stay where the vectors are and come back to the host once per step (at most
    /// one synchronization per Arnoldi step on a GPU). `None`: this backend has no such step,
    /// and the vector operations run one by one.
    fn orthogonalize(&self, basis: &[Self::KrylovVector], w: &mut Self::KrylovVector, method: GramSchmidt) -> Option<(Vec<f64>, f64)> {
        let _ = (basis, w, method);
        None
    }

    /// One whole Arnoldi step of FGMRES on `system` (`KrylovSystem::arnoldi_step`): z = M^-1 v_k
    /// (v_k the last of `basis`), w = A z, w orthogonalized against `basis` and normalized, with
    /// the arithmetic of the operations one by one. A backend may run the step as one recorded
    /// sequence (the GPU: a CUDA graph per step and set of vectors, one launch and one read-back).
    /// `None`: no such step here, and the operations run one by one.
    #[allow(clippy::too_many_arguments)]
    fn arnoldi_step(
        &self,
        jacobian: &Self::Jacobian,
        preconditioner: &Self::Preconditioner,
        system: System,
        basis: &[Self::KrylovVector],
        w: &mut Self::KrylovVector,
        z: &mut Self::KrylovVector,
        method: GramSchmidt,
    ) -> Option<(Vec<f64>, f64)> {
        let _ = (jacobian, preconditioner, system, basis, w, z, method);
        None
    }

    /// Runs `solve`, one Krylov solve made of many small operations of this backend, where
    /// they run cheapest. The CPU enters its thread pool once for the whole solve, so that each
    /// product and preconditioner sweep joins the pool directly instead of handing its work
    /// over to it (a cross-thread wake-up per call, more than the product of a small system
    /// costs). The default just calls `solve`.
    fn run_linear_solve<R: Send>(&self, solve: impl FnOnce() -> R + Send) -> R {
        solve()
    }

    /// Largest relative change of density or pressure over the interior cells that the update
    /// `w + dw` would make: max(|d rho| / rho, |d p| / p). Infinite when `w + dw` is not
    /// physical ([`Self::is_physical`]).
    fn max_relative_change(&self, geometry: &Self::Geometry, gas: &Gas, w: &Self::Field, dw: &Self::Field) -> f64;

    /// [`Self::max_relative_change`] from the state `from` to the state `to`: infinite when `to`
    /// is not physical.
    fn relative_change_between(&self, geometry: &Self::Geometry, gas: &Gas, from: &Self::Field, to: &Self::Field) -> f64;

    /// A stage update under the scheme's update limit: `w += lambda dw`, with `lambda = limit / c`
    /// where the update would change density or pressure by `c > limit`
    /// ([`Self::max_relative_change`]), else 1 (also where `c` is infinite: an update that is
    /// not physical even scaled is applied in full, and the step is rejected after it). A GPU
    /// computes `lambda` on the device, without reading `c` back.
    fn add_limited_update(&self, geometry: &Self::Geometry, gas: &Gas, limit: f64, dw: &Self::Field, w: &mut Self::Field) {
        self.axpy_field(update_relaxation(limit, self.max_relative_change(geometry, gas, w, dw)), dw, w);
    }

    /// `y += scale * (Omega / dt) x` on the mean-flow variables of the interior cells: the
    /// pseudo-time term of the implicit operator (thesis eq. 5.4), for operators that are not
    /// assembled (the matrix-free Newton-Krylov product).
    fn add_time_term(&self, geometry: &Self::Geometry, dt: &Self::Scalars, scale: f64, x: &Self::Field, y: &mut Self::Field);

    /// True when every interior cell has finite values of every variable (the turbulence and
    /// transition unknowns too) and positive density and pressure.
    fn is_physical(&self, geometry: &Self::Geometry, gas: &Gas, w: &Self::Field) -> bool;
}

/// The factor of a stage update whose largest relative change of density or pressure is
/// `change`: `limit / change` above the limit, else 1 (an infinite change, a non-physical
/// update, is left to the step's check). The GPU's `limited_axpy` (cuda/update.cu) computes the
/// same on the device.
fn update_relaxation(limit: f64, change: f64) -> f64 {
    if change.is_finite() && change > limit {
        limit / change
    } else {
        1.0
    }
}
