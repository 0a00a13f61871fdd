//! First-order approximate Jacobians of the convective face flux for the implicit solver
//! (Blazek 2005, ch. 6, implicit schemes: the Roe matrix is frozen), and a Rusanov-type alternative.
//!
//! For the face flux F(W_L, W_R) = 1/2 [F_c(W_L) + F_c(W_R) - |A| (W_R - W_L)] * area, freezing
//! |A| gives dF/dW_L = 1/2 (A(W_L) + |A|) * area and dF/dW_R = 1/2 (A(W_R) - |A|) * area.
//! Matrices are row-major `[row][col]`, rows = flux components, columns = conservative variables
//! `[rho, rho u, rho v, rho E]`.

use super::roe::{roe_abs_eigenvalues, roe_average, roe_dissipation};
use super::state::{speed_of_sound, total_enthalpy, Primitive};

/// A dense 4x4 block, row-major.
pub type Block4 = [[f64; 4]; 4];

/// Exact convective flux Jacobian A = dF_c.n/dW of thesis eq. 4.2 at a state (per unit area;
/// Blazek 2005, App. A, in 2D).
#[inline]
pub fn convective_flux_jacobian(gamma: f64, q: &Primitive, unit_normal: [f64; 2]) -> Block4 {
    let [_, u, v, _] = *q;
    let [nx, ny] = unit_normal;
    let g1 = gamma - 1.0;
    let vn = u * nx + v * ny;
    let h = total_enthalpy(gamma, q);
    // phi^2 = (gamma - 1)|v|^2/2, so that p = (gamma - 1) rho E - phi^2 rho.
    let phi2 = 0.5 * g1 * (u * u + v * v);
    [
        [0.0, nx, ny, 0.0],
        [nx * phi2 - u * vn, vn - (gamma - 2.0) * u * nx, u * ny - g1 * v * nx, g1 * nx],
        [ny * phi2 - v * vn, v * nx - g1 * u * ny, vn - (gamma - 2.0) * v * ny, g1 * ny],
        [vn * (phi2 - h), nx * h - g1 * u * vn, ny * h - g1 * v * vn, gamma * vn],
    ]
}

/// The Roe matrix |A_Roe| at the Roe average of `left` and `right` with Harten's fix
/// (`entropy_fix` as in [`super::roe::roe_flux`]), per unit area: |A| dW equals the dissipation
/// term of the Roe flux for an infinitesimal conservative jump dW.
#[inline]
pub fn roe_abs_matrix(
    gamma: f64,
    left: &Primitive,
    right: &Primitive,
    unit_normal: [f64; 2],
    entropy_fix: f64,
) -> Block4 {
    let avg = roe_average(gamma, left, right);
    let abs_eigen = roe_abs_eigenvalues(&avg, unit_normal, entropy_fix);
    let q2_half = 0.5 * (avg.u * avg.u + avg.v * avg.v);
    let mut matrix = [[0.0; 4]; 4];
    for col in 0..4 {
        // Unit conservative jump e_col, expressed as primitive jumps at the Roe average
        // (dQ = dQ/dW dW), then pushed through the (linear) Roe dissipation operator.
        let mut dw = [0.0; 4];
        dw[col] = 1.0;
        let jump = [
            dw[0],
            (dw[1] - avg.u * dw[0]) / avg.rho,
            (dw[2] - avg.v * dw[0]) / avg.rho,
            (gamma - 1.0) * (dw[3] - avg.u * dw[1] - avg.v * dw[2] + q2_half * dw[0]),
        ];
        let column = roe_dissipation(&avg, &jump, unit_normal, abs_eigen);
        for row in 0..4 {
            matrix[row][col] = column[row];
        }
    }
    matrix
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
    let abs_a = roe_abs_matrix(gamma, left, right, unit_normal, entropy_fix);
    let a_left = convective_flux_jacobian(gamma, left, unit_normal);
    let a_right = convective_flux_jacobian(gamma, right, unit_normal);
    let d_left = std::array::from_fn(|r| std::array::from_fn(|c| 0.5 * (a_left[r][c] + abs_a[r][c]) * face_area));
    let d_right = std::array::from_fn(|r| std::array::from_fn(|c| 0.5 * (a_right[r][c] - abs_a[r][c]) * face_area));
    (d_left, d_right)
}

/// Rusanov-type Jacobians (dF/dW_L, dF/dW_R) = 1/2 (A(W_L) + lambda I, A(W_R) - lambda I) * area
/// with lambda = max(|V_L| + c_L, |V_R| + c_R): cheaper and more diagonally dominant than the
/// Roe version (the spectral-radius splitting of Blazek 2005, ch. 6).
#[inline]
pub fn rusanov_flux_jacobians(
    gamma: f64,
    left: &Primitive,
    right: &Primitive,
    unit_normal: [f64; 2],
    face_area: f64,
) -> (Block4, Block4) {
    let wave_speed = |q: &Primitive| (q[1] * unit_normal[0] + q[2] * unit_normal[1]).abs() + speed_of_sound(gamma, q);
    let lambda = wave_speed(left).max(wave_speed(right));
    let a_left = convective_flux_jacobian(gamma, left, unit_normal);
    let a_right = convective_flux_jacobian(gamma, right, unit_normal);
    let identity = |r: usize, c: usize| if r == c { 1.0 } else { 0.0 };
    let d_left =
        std::array::from_fn(|r| std::array::from_fn(|c| 0.5 * (a_left[r][c] + lambda * identity(r, c)) * face_area));
    let d_right =
        std::array::from_fn(|r| std::array::from_fn(|c| 0.5 * (a_right[r][c] - lambda * identity(r, c)) * face_area));
    (d_left, d_right)
}
