//! State conversions for a calorically perfect gas, point by point.
//!
//! Conventions used by every point-wise function in `flow`:
//! - conservative variables `W = [rho, rho u, rho v, rho E]` (SI units: kg/m^3, kg/(m^2 s), J/m^3);
//! - primitive variables `Q = [rho, u, v, p]` (kg/m^3, m/s, m/s, Pa);
//! - the Spalart-Allmaras working variable is carried alongside as a 5th variable:
//!   conservative `rho nu_tilde`, primitive `nu_tilde` [m^2/s].
//!
//! Perfect gas relations (Blazek 2005, ch. 2): p = (gamma - 1) rho (E - |v|^2/2),
//! H = E + p/rho, c^2 = gamma p / rho, T = p / (rho R).

use thiserror::Error;

/// Number of mean-flow variables in 2D (rho, two momenta, energy).
pub const NVAR: usize = 4;

/// Conservative mean-flow state `[rho, rho u, rho v, rho E]`.
pub type Conservative = [f64; NVAR];
/// Primitive mean-flow state `[rho, u, v, p]`.
pub type Primitive = [f64; NVAR];

/// A state that no perfect gas can have (non-positive or non-finite density or pressure).
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum StateError {
    #[error("non-physical state: density {rho} kg/m^3 must be finite and positive")]
    Density { rho: f64 },
    #[error("non-physical state: pressure {p} Pa must be finite and positive")]
    Pressure { p: f64 },
    #[error("non-physical state: velocity ({u}, {v}) m/s must be finite")]
    Velocity { u: f64, v: f64 },
}

/// Primitive `[rho, u, v, p]` from conservative `[rho, rho u, rho v, rho E]`.
/// No check: a non-positive density gives inf/NaN, which the solver's divergence check reports.
#[inline]
pub fn primitive_from_conservative(gamma: f64, w: &Conservative) -> Primitive {
    let rho = w[0];
    let u = w[1] / rho;
    let v = w[2] / rho;
    let p = (gamma - 1.0) * (w[3] - 0.5 * rho * (u * u + v * v));
    [rho, u, v, p]
}

/// Conservative `[rho, rho u, rho v, rho E]` from primitive `[rho, u, v, p]`,
/// with rho E = p/(gamma - 1) + rho |v|^2 / 2.
#[inline]
pub fn conservative_from_primitive(gamma: f64, q: &Primitive) -> Conservative {
    let [rho, u, v, p] = *q;
    [rho, rho * u, rho * v, p / (gamma - 1.0) + 0.5 * rho * (u * u + v * v)]
}

/// Primitive state from conservative, rejecting non-physical results with a typed error.
pub fn checked_primitive_from_conservative(gamma: f64, w: &Conservative) -> Result<Primitive, StateError> {
    if !(w[0].is_finite() && w[0] > 0.0) {
        return Err(StateError::Density { rho: w[0] });
    }
    let q = primitive_from_conservative(gamma, w);
    validate_primitive(&q)?;
    Ok(q)
}

/// Checks that a primitive state is physical: rho > 0, p > 0, all finite.
pub fn validate_primitive(q: &Primitive) -> Result<(), StateError> {
    let [rho, u, v, p] = *q;
    if !(rho.is_finite() && rho > 0.0) {
        return Err(StateError::Density { rho });
    }
    if !(u.is_finite() && v.is_finite()) {
        return Err(StateError::Velocity { u, v });
    }
    if !(p.is_finite() && p > 0.0) {
        return Err(StateError::Pressure { p });
    }
    Ok(())
}

/// Speed of sound c = sqrt(gamma p / rho) [m/s].
#[inline]
pub fn speed_of_sound(gamma: f64, q: &Primitive) -> f64 {
    (gamma * q[3] / q[0]).sqrt()
}

/// Specific total energy E = p/((gamma - 1) rho) + |v|^2/2 [J/kg].
#[inline]
pub fn total_energy(gamma: f64, q: &Primitive) -> f64 {
    q[3] / ((gamma - 1.0) * q[0]) + 0.5 * (q[1] * q[1] + q[2] * q[2])
}

/// Specific total enthalpy H = gamma/(gamma - 1) p/rho + |v|^2/2 [J/kg].
#[inline]
pub fn total_enthalpy(gamma: f64, q: &Primitive) -> f64 {
    gamma / (gamma - 1.0) * q[3] / q[0] + 0.5 * (q[1] * q[1] + q[2] * q[2])
}

/// Static temperature T = p / (rho R) in K, R the specific gas constant in J/(kg K).
#[inline]
pub fn temperature(gas_constant: f64, q: &Primitive) -> f64 {
    q[3] / (q[0] * gas_constant)
}

/// Mach number |v| / c.
#[inline]
pub fn mach(gamma: f64, q: &Primitive) -> f64 {
    (q[1] * q[1] + q[2] * q[2]).sqrt() / speed_of_sound(gamma, q)
}

/// SA working variable nu_tilde [m^2/s] from its conservative form rho nu_tilde.
#[inline]
pub fn nu_tilde_from_conservative(rho: f64, rho_nu_tilde: f64) -> f64 {
    rho_nu_tilde / rho
}

/// Conservative SA variable rho nu_tilde from density and nu_tilde.
#[inline]
pub fn conservative_nu_tilde(rho: f64, nu_tilde: f64) -> f64 {
    rho * nu_tilde
}
