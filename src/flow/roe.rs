//! Roe flux-difference splitting for the 2D Euler flux (thesis eq. 4.9; Roe 1981, written with
//! the primitive jumps as in Blazek 2005, ch. 4, Roe's scheme), Harten's entropy fix (Blazek p. 90),
//! the physical flux of thesis eq. 4.2 and the wall flux.
//!
//! All fluxes returned here are *integrated over the face*: flux density times face area, in the
//! conservative variable order `[mass, x-momentum, y-momentum, energy]`; the unit normal points
//! from the left state to the right state.

use super::state::{conservative_from_primitive, speed_of_sound, total_enthalpy, Primitive};

/// Harten entropy-fix width used unless a case says otherwise: delta = 0.1 (|V| + c) at the Roe
/// average (a tenth of the fastest local wave speed).
pub const DEFAULT_ENTROPY_FIX: f64 = 0.1;

/// Roe-averaged state at a face (Roe 1981).
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

/// Roe average of two primitive states (square-root-of-density weighting, Roe 1981).
#[inline]
pub fn roe_average(gamma: f64, left: &Primitive, right: &Primitive) -> RoeAverage {
    let sl = left[0].sqrt();
    let sr = right[0].sqrt();
    let wl = sl / (sl + sr);
    let wr = 1.0 - wl;
    let u = wl * left[1] + wr * right[1];
    let v = wl * left[2] + wr * right[2];
    let h = wl * total_enthalpy(gamma, left) + wr * total_enthalpy(gamma, right);
    // The Roe-averaged sound speed is positive for physical L and R (Roe 1981), but round-off
    // can push it through zero for near-vacuum data: clamp so the caller sees a finite flux.
    let c2 = ((gamma - 1.0) * (h - 0.5 * (u * u + v * v))).max(0.0);
    RoeAverage { rho: sl * sr, u, v, h, c: c2.sqrt() }
}

/// Harten's entropy fix (Harten & Hyman 1983; Blazek p. 90): |lambda| when |lambda| > delta,
/// (lambda^2 + delta^2)/(2 delta) otherwise. It keeps the Roe dissipation from vanishing at
/// sonic points (expansion shocks) and at stagnation (carbuncle-prone zero contact speed).
/// `delta <= 0` disables the fix.
#[inline]
pub fn harten_fixed_eigenvalue(lambda: f64, delta: f64) -> f64 {
    let a = lambda.abs();
    if a > delta || delta <= 0.0 {
        a
    } else {
        (lambda * lambda + delta * delta) / (2.0 * delta)
    }
}

/// Physical convective flux density F_c(Q).n of thesis eq. 4.2 (2D, per unit face area).
#[inline]
pub fn physical_flux(gamma: f64, q: &Primitive, unit_normal: [f64; 2]) -> [f64; 4] {
    let [rho, u, v, p] = *q;
    let vn = u * unit_normal[0] + v * unit_normal[1];
    let mass = rho * vn;
    [mass, mass * u + p * unit_normal[0], mass * v + p * unit_normal[1], mass * total_enthalpy(gamma, q)]
}

/// The Roe dissipation term |A_Roe| (W_R - W_L) per unit area, written with the primitive
/// jumps (Delta rho, Delta u, Delta v, Delta p) at the Roe average (Blazek 2005, Roe scheme), with the
/// three eigenvalue magnitudes |V - c|, |V|, |V + c| passed in (possibly entropy-fixed).
/// Linear in `jump`; the implicit Jacobian reuses it to build the matrix |A_Roe|.
#[inline]
pub fn roe_dissipation(avg: &RoeAverage, jump: &[f64; 4], unit_normal: [f64; 2], abs_eigen: [f64; 3]) -> [f64; 4] {
    let [nx, ny] = unit_normal;
    let [d_rho, d_u, d_v, d_p] = *jump;
    let RoeAverage { rho, u, v, h, c } = *avg;
    let vn = u * nx + v * ny;
    let d_vn = d_u * nx + d_v * ny;
    let c2 = c * c;
    // Acoustic waves V -/+ c (Blazek's Delta F_1 and Delta F_5).
    let a_minus = abs_eigen[0] * (d_p - rho * c * d_vn) / (2.0 * c2);
    let a_plus = abs_eigen[2] * (d_p + rho * c * d_vn) / (2.0 * c2);
    // Entropy and shear waves at V (Delta F_234).
    let entropy = abs_eigen[1] * (d_rho - d_p / c2);
    let shear = abs_eigen[1] * rho;
    let q2_half = 0.5 * (u * u + v * v);
    [
        a_minus + entropy + a_plus,
        a_minus * (u - c * nx) + entropy * u + shear * (d_u - d_vn * nx) + a_plus * (u + c * nx),
        a_minus * (v - c * ny) + entropy * v + shear * (d_v - d_vn * ny) + a_plus * (v + c * ny),
        a_minus * (h - c * vn) + entropy * q2_half + shear * (u * d_u + v * d_v - vn * d_vn) + a_plus * (h + c * vn),
    ]
}

/// Eigenvalue magnitudes (|V - c|, |V|, |V + c|) at the Roe average with Harten's fix
/// of width delta = `entropy_fix` * (|V| + c) (Blazek p. 90 recommends a small fraction of the
/// local wave speed; 0.1 is a common choice, 0 turns the fix off).
#[inline]
pub fn roe_abs_eigenvalues(avg: &RoeAverage, unit_normal: [f64; 2], entropy_fix: f64) -> [f64; 3] {
    let vn = avg.u * unit_normal[0] + avg.v * unit_normal[1];
    let delta = entropy_fix * (vn.abs() + avg.c);
    [
        harten_fixed_eigenvalue(vn - avg.c, delta),
        harten_fixed_eigenvalue(vn, delta),
        harten_fixed_eigenvalue(vn + avg.c, delta),
    ]
}

/// Roe flux through one face, integrated over the face (thesis eq. 4.9):
/// F = 1/2 [F_c(W_L) + F_c(W_R) - |A_Roe| (W_R - W_L)] * face_area.
///
/// * `left`, `right`: primitive states `[rho, u, v, p]` on either side of the face
///   (MUSCL-reconstructed or cell values for first order);
/// * `unit_normal`: unit face normal pointing from left to right;
/// * `face_area`: face length in 2D, m (times unit depth);
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
    let avg = roe_average(gamma, left, right);
    let abs_eigen = roe_abs_eigenvalues(&avg, unit_normal, entropy_fix);
    let jump = [right[0] - left[0], right[1] - left[1], right[2] - left[2], right[3] - left[3]];
    let diss = roe_dissipation(&avg, &jump, unit_normal, abs_eigen);
    let fl = physical_flux(gamma, left, unit_normal);
    let fr = physical_flux(gamma, right, unit_normal);
    std::array::from_fn(|k| 0.5 * (fl[k] + fr[k] - diss[k]) * face_area)
}

/// Flux through a solid wall or symmetry face: V.n = 0, so thesis eq. 4.2 reduces to the pressure
/// term (thesis, text after eq. 4.13): `[0, p n_x, p n_y, 0] * face_area`, with `wall_pressure`
/// the pressure interpolated to the wall by the caller.
#[inline]
pub fn wall_flux(wall_pressure: f64, unit_normal: [f64; 2], face_area: f64) -> [f64; 4] {
    [0.0, wall_pressure * unit_normal[0] * face_area, wall_pressure * unit_normal[1] * face_area, 0.0]
}

/// Rusanov (local Lax-Friedrichs) flux, integrated over the face:
/// F = 1/2 [F_c(W_L) + F_c(W_R) - lambda (W_R - W_L)] * face_area with
/// lambda = max(|V_L| + c_L, |V_R| + c_R). More dissipative than Roe's flux; it is the flux that
/// [`super::jacobian::rusanov_flux_jacobians`] linearizes (lambda frozen), and a robust
/// first-order fallback.
#[inline]
pub fn rusanov_flux(
    gamma: f64,
    left: &Primitive,
    right: &Primitive,
    unit_normal: [f64; 2],
    face_area: f64,
) -> [f64; 4] {
    let wave_speed = |q: &Primitive| (q[1] * unit_normal[0] + q[2] * unit_normal[1]).abs() + speed_of_sound(gamma, q);
    let lambda = wave_speed(left).max(wave_speed(right));
    let wl = conservative_from_primitive(gamma, left);
    let wr = conservative_from_primitive(gamma, right);
    let fl = physical_flux(gamma, left, unit_normal);
    let fr = physical_flux(gamma, right, unit_normal);
    std::array::from_fn(|k| 0.5 * (fl[k] + fr[k] - lambda * (wr[k] - wl[k])) * face_area)
}
