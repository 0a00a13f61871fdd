//! The operations the implicit scheme needs on top of [`Backend`] (thesis chapter 5, DESIGN.md
//! section 4): the approximate Jacobian of the first-order residual in a block-sparse matrix
//! whose pattern is built once per mesh, its preconditioner (block-Jacobi, block ILU(0),
//! multicolour block ILU(0)) and one preconditioned FGMRES solve per Runge-Kutta stage.
//!
//! The Krylov algorithm itself is `crate::linalg::fgmres`, written once; a backend supplies the
//! matrix-vector product and the preconditioner application it calls.

use serde::{Deserialize, Serialize};

use super::{Backend, BoundaryData, Physics, SaSourceOptions};
use crate::flow::gas::Gas;
use crate::linalg::{FgmresSettings, FgmresStats};
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

/// FGMRES statistics of one implicit stage: the mean-flow solve and, with Spalart-Allmaras, the
/// segregated SA solve that follows it.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageStats {
    pub flow: FgmresStats,
    pub turbulence: Option<FgmresStats>,
}

/// The implicit-scheme operations of a backend. The mean flow is one coupled system with a
/// dense 4x4 block per cell pair; unknowns are the interior cells' `[rho, rho u, rho v, rho E]`.
/// With Spalart-Allmaras the turbulence model is a second, segregated scalar system for
/// `rho nu~` at frozen mean flow (thesis 5.2), in the same pattern, factorized and solved
/// alongside the mean flow.
pub trait ImplicitBackend: Backend {
    /// System matrix `Omega/dt I + dR/dW` with its pattern (built once per mesh).
    type Jacobian: Send;
    /// A factorized preconditioner of a `Jacobian`.
    type Preconditioner: Send;

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

    /// `y = A x` on the mean-flow variables of the interior cells, and `y = A_sa x` on rho nu~
    /// when the SA system is assembled (other entries of `y` zero).
    fn jacobian_product(&self, geometry: &Self::Geometry, jacobian: &Self::Jacobian, x: &Self::Field, y: &mut Self::Field);

    /// Factorizes a new preconditioner of `jacobian` (pattern analysis, colouring included;
    /// the SA system, when assembled, always gets a scalar ILU(0)). Fails on a singular pivot.
    fn factorize(&self, jacobian: &Self::Jacobian, kind: PreconditionerKind) -> Result<Self::Preconditioner>;

    /// Refreshes `preconditioner` with the current values of `jacobian` on the same pattern
    /// (the on-demand refactorization of thesis 5.4.2).
    fn refactorize(&self, jacobian: &Self::Jacobian, preconditioner: &mut Self::Preconditioner) -> Result<()>;

    /// One stage of thesis eq. 5.5: solves `A dw = -alpha r` with right-preconditioned FGMRES
    /// from `dw = 0` for the mean flow and, when the SA system is assembled, `A_sa dw_sa =
    /// -alpha r_sa` after it. `dw` is overwritten (unsolved variables zero).
    #[allow(clippy::too_many_arguments)]
    fn solve_stage(
        &self,
        geometry: &Self::Geometry,
        jacobian: &Self::Jacobian,
        preconditioner: &Self::Preconditioner,
        alpha: f64,
        r: &Self::Field,
        dw: &mut Self::Field,
        settings: &FgmresSettings,
    ) -> StageStats;

    /// Largest relative change of density or pressure over the interior cells that the update
    /// `w + dw` would make: max(|d rho| / rho, |d p| / p). Infinite when `w + dw` is not
    /// physical (non-positive or non-finite density or pressure).
    fn max_relative_change(&self, geometry: &Self::Geometry, gas: &Gas, w: &Self::Field, dw: &Self::Field) -> f64;

    /// True when every interior cell has finite, positive density and pressure.
    fn is_physical(&self, geometry: &Self::Geometry, gas: &Gas, w: &Self::Field) -> bool;
}
