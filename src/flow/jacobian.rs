//! First-order approximate Jacobians of the convective face flux for the implicit solver
//! (Blazek 2005, sec. 6.2.4 and 10.3: "Roe matrix frozen"), and a Rusanov-type alternative.
//!
//! For the face flux F(W_L, W_R) = 1/2 [F_c(W_L) + F_c(W_R) - |A| (W_R - W_L)] * area, freezing
//! |A| gives dF/dW_L = 1/2 (A(W_L) + |A|) * area and dF/dW_R = 1/2 (A(W_R) - |A|) * area.
//! Matrices are row-major `[row][col]`, rows = flux components, columns = conservative variables
//! `[rho, rho u, rho v, rho E]`.

use super::state::Primitive;

/// A dense 4x4 block, row-major.
pub type Block4 = [[f64; 4]; 4];

/// Exact convective flux Jacobian A = dF_c.n/dW of thesis eq. 4.2 at a state (per unit area;
/// Blazek App. A.9 in 2D).
#[inline]
pub fn convective_flux_jacobian(gamma: f64, q: &Primitive, unit_normal: [f64; 2]) -> Block4 {
    todo!()
}

/// The Roe matrix |A_Roe| at the Roe average of `left` and `right` with Harten's fix
/// (`entropy_fix` as in [`super::roe::roe_flux`]), per unit area: |A| dW equals the dissipation
/// term of the Roe flux for an infinitesimal conservative jump dW.
#[inline]
pub fn roe_abs_matrix(gamma: f64, left: &Primitive, right: &Primitive, unit_normal: [f64; 2], entropy_fix: f64) -> Block4 {
    todo!()
}

/// Approximate Roe-flux Jacobians (dF/dW_L, dF/dW_R) with |A_Roe| frozen, integrated over the
/// face (times `face_area`).
#[inline]
pub fn roe_flux_jacobians(
    gamma: f64,
    left: &Primitive,
    right: &Primitive,
    unit_normal: [f64; 2],
    face_area: f64,
    entropy_fix: f64,
) -> (Block4, Block4) {
    todo!()
}

/// Rusanov-type Jacobians (dF/dW_L, dF/dW_R) = 1/2 (A(W_L) + lambda I, A(W_R) - lambda I) * area
/// with lambda = max(|V_L| + c_L, |V_R| + c_R): cheaper and more diagonally dominant than the
/// Roe version (Blazek sec. 6.2.4, "spectral radius" splitting).
#[inline]
pub fn rusanov_flux_jacobians(gamma: f64, left: &Primitive, right: &Primitive, unit_normal: [f64; 2], face_area: f64) -> (Block4, Block4) {
    todo!()
}
