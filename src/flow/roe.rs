//! Roe flux-difference splitting for the 2D Euler flux (thesis eq. 4.9; Blazek 2005, sec. 4.3.3,
//! eq. 4.89-4.91), Harten's entropy fix, the physical flux of eq. 4.2 and the wall flux.
//!
//! All fluxes returned here are *integrated over the face*: flux density times face area, in the
//! conservative variable order `[mass, x-momentum, y-momentum, energy]`; the unit normal points
//! from the left state to the right state.

use super::state::Primitive;

/// Roe-averaged state at a face (Blazek eq. 4.89).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoeAverage {
    /// rho_bar = sqrt(rho_L rho_R).
    pub rho: f64,
    /// Roe-averaged velocity components.
    pub u: f64,
    pub v: f64,
    /// Roe-averaged total enthalpy H.
    pub h: f64,
    /// c_bar = sqrt((gamma - 1)(H - |v|^2/2)).
    pub c: f64,
}

/// Roe average of two primitive states (density-square-root weighting, Blazek eq. 4.89).
#[inline]
pub fn roe_average(gamma: f64, left: &Primitive, right: &Primitive) -> RoeAverage {
    todo!()
}

/// Harten's entropy fix (Blazek eq. 4.93): |lambda| when |lambda| > delta,
/// (lambda^2 + delta^2)/(2 delta) otherwise. It keeps the Roe dissipation from vanishing at
/// sonic points (expansion shocks) and at stagnation (carbuncle-prone zero contact speed).
/// `delta <= 0` disables the fix.
#[inline]
pub fn harten_fixed_eigenvalue(lambda: f64, delta: f64) -> f64 {
    todo!()
}

/// Physical convective flux density F_c(Q).n of thesis eq. 4.2 (2D, per unit face area).
#[inline]
pub fn physical_flux(gamma: f64, q: &Primitive, unit_normal: [f64; 2]) -> [f64; 4] {
    todo!()
}

/// The Roe dissipation term |A_Roe| (W_R - W_L) per unit area, written with the primitive
/// jumps (Delta rho, Delta u, Delta v, Delta p) at the Roe average (Blazek eq. 4.91), with the
/// three eigenvalue magnitudes |V - c|, |V|, |V + c| passed in (possibly entropy-fixed).
/// Linear in `jump`; the implicit Jacobian reuses it to build the matrix |A_Roe|.
#[inline]
pub fn roe_dissipation(avg: &RoeAverage, jump: &[f64; 4], unit_normal: [f64; 2], abs_eigen: [f64; 3]) -> [f64; 4] {
    todo!()
}

/// Eigenvalue magnitudes (|V - c|, |V|, |V + c|) at the Roe average with Harten's fix
/// of width delta = `entropy_fix` * (|V| + c) (Blazek p. 90 recommends a small fraction of the
/// local wave speed; 0.1 is a common choice, 0 turns the fix off).
#[inline]
pub fn roe_abs_eigenvalues(avg: &RoeAverage, unit_normal: [f64; 2], entropy_fix: f64) -> [f64; 3] {
    todo!()
}

/// Roe flux through one face, integrated over the face (thesis eq. 4.9):
/// F = 1/2 [F_c(W_L) + F_c(W_R) - |A_Roe| (W_R - W_L)] * face_area.
///
/// * `left`, `right`: primitive states `[rho, u, v, p]` on either side of the face
///   (MUSCL-reconstructed or cell values for first order);
/// * `unit_normal`: unit face normal pointing from left to right;
/// * `face_area`: face length in 2D [m] (times unit depth);
/// * `entropy_fix`: Harten fix width as a fraction of the Roe-averaged |V| + c applied to all
///   three eigenvalues (0 turns it off, 0.1 is a sensible default).
#[inline]
pub fn roe_flux(
    gamma: f64,
    left: &Primitive,
    right: &Primitive,
    unit_normal: [f64; 2],
    face_area: f64,
    entropy_fix: f64,
) -> [f64; 4] {
    todo!()
}

/// Flux through a solid wall or symmetry face: V.n = 0, so eq. 4.2 reduces to the pressure
/// term (thesis, text after eq. 4.13): `[0, p n_x, p n_y, 0] * face_area`, with `wall_pressure`
/// the pressure interpolated to the wall by the caller.
#[inline]
pub fn wall_flux(wall_pressure: f64, unit_normal: [f64; 2], face_area: f64) -> [f64; 4] {
    todo!()
}
