//! Spectral radii of the convective and viscous flux Jacobians of one cell per grid direction
//! (Blazek 2005, sec. 6.1.4, p. 189) and the local time step (Blazek p. 188-189). The
//! thesis uses the same radii for the implicit residual smoothing coefficients (eq. 4.16).

use crate::flow::gas::Gas;
use crate::flow::state::speed_of_sound;

/// Constant C in front of the viscous radii in the time step for a cell-centred scheme
/// (Blazek p. 189: C = 4).
pub const CELL_CENTRED_VISCOUS_FACTOR: f64 = 4.0;

/// Face vector of a cell in one grid direction: the mean of the two opposite face vectors,
/// S_I = (S_{i-1/2} + S_{i+1/2})/2 (both oriented in the +i direction), as Blazek uses for
/// Lambda_c^I.
#[inline]
pub fn mean_face_vector(s_minus: [f64; 2], s_plus: [f64; 2]) -> [f64; 2] {
    [0.5 * (s_minus[0] + s_plus[0]), 0.5 * (s_minus[1] + s_plus[1])]
}

/// Convective spectral radius Lambda_c = (|v . n| + c) Delta S [m^3/s in 3D, m^2/s in 2D]
/// (Blazek p. 189), with `face_vector` = n Delta S from [`mean_face_vector`] and `q` the
/// primitive cell state `[rho, u, v, p]`.
#[inline]
pub fn convective_spectral_radius(gamma: f64, q: &[f64; 4], face_vector: [f64; 2]) -> f64 {
    let area = (face_vector[0] * face_vector[0] + face_vector[1] * face_vector[1]).sqrt();
    (q[1] * face_vector[0] + q[2] * face_vector[1]).abs() + speed_of_sound(gamma, q) * area
}

/// Viscous spectral radius Lambda_v = max(4/(3 rho), gamma/rho) (mu/Pr + mu_t/Pr_t)
/// (Delta S)^2 / Omega (Blazek p. 189), with Delta S = |face_vector| and `volume` the cell
/// area in 2D.
#[inline]
pub fn viscous_spectral_radius(
    gas: &Gas,
    rho: f64,
    mu_laminar: f64,
    mu_turbulent: f64,
    face_vector: [f64; 2],
    volume: f64,
) -> f64 {
    let area_sq = face_vector[0] * face_vector[0] + face_vector[1] * face_vector[1];
    let diffusivity =
        (4.0 / (3.0 * rho)).max(gas.gamma / rho) * (mu_laminar / gas.prandtl + mu_turbulent / gas.turbulent_prandtl);
    diffusivity * area_sq / volume
}

/// Local time step dt = CFL Omega / (Lc_I + Lc_J + C (Lv_I + Lv_J)) (Blazek p. 188-189),
/// `viscous_factor` = C ([`CELL_CENTRED_VISCOUS_FACTOR`]; inviscid runs pass zero radii).
#[inline]
pub fn local_time_step(cfl: f64, volume: f64, convective: [f64; 2], viscous: [f64; 2], viscous_factor: f64) -> f64 {
    let radii = convective[0] + convective[1] + viscous_factor * (viscous[0] + viscous[1]);
    cfl * volume / radii
}

/// Variable coefficients of the implicit residual smoothing (thesis eq. 4.16, after Liu and
/// Jameson 1993): `eps_I = max(0, C cfl_ratio Lambda^I / (Lambda^I + Lambda^J))` and the same
/// for J, where `Lambda^I, Lambda^J` are the cell's spectral radii per direction (convective
/// plus C_v times viscous, as in the time step), `cfl_ratio` = sigma/sigma* the CFL number run
/// over the one the unsmoothed scheme tolerates and `c` = C (thesis: about 5/4). Each direction
/// is smoothed in proportion to its share of the time-step limit: on a thin wall cell
/// (Lambda^J >> Lambda^I) across the layer only.
#[inline]
pub fn smoothing_coefficients(cfl_ratio: f64, c: f64, radii: [f64; 2]) -> [f64; 2] {
    let total = radii[0] + radii[1];
    [(c * cfl_ratio * radii[0] / total).max(0.0), (c * cfl_ratio * radii[1] / total).max(0.0)]
}
