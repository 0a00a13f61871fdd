//! First-cell height <-> y+ estimates from a flat-plate skin-friction correlation.
//!
//! Turbulent flat plate, local skin friction after F. M. White (Viscous Fluid Flow, 3rd ed.,
//! 2006, chapter 6, turbulent flat plate; from the White-Christoph analysis):
//! `cf = 0.455 / ln^2(0.06 Re_x)`. Then the friction velocity
//! `u_tau = U sqrt(cf / 2)` and `y+ = y u_tau / nu`.
//!
//! For a cascade the flow state is the exit isentropic state of the operating point (P01,
//! T01 expanded isentropically to p2) and the running length is the chord: this is the usual
//! a-priori estimate for the blade's first cell; the real y+ varies along the blade (higher
//! near the leading edge and where the flow accelerates).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;

/// Wall-unit scales of a flow state at one running length.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct WallUnits {
    /// Reynolds number at the running length, U x / nu.
    pub reynolds: f64,
    /// Local skin-friction coefficient from the correlation.
    pub skin_friction: f64,
    /// Friction velocity u_tau [m/s].
    pub friction_velocity: f64,
    /// Kinematic viscosity nu [m^2/s].
    pub kinematic_viscosity: f64,
}

impl WallUnits {
    /// Wall units for velocity `u` [m/s], kinematic viscosity `nu` [m^2/s], running length `x` \[m\].
    pub fn from_flow(u: f64, nu: f64, x: f64) -> Result<Self> {
        if !(u > 0.0 && nu > 0.0 && x > 0.0 && u.is_finite() && nu.is_finite() && x.is_finite()) {
            return Err(Error::Other(format!(
                "y+ estimate: velocity, viscosity and length must be positive and finite, got u = {u}, nu = {nu}, x = {x}"
            )));
        }
        let reynolds = u * x / nu;
        let skin_friction = flat_plate_skin_friction(reynolds)?;
        Ok(WallUnits {
            reynolds,
            skin_friction,
            friction_velocity: u * (0.5 * skin_friction).sqrt(),
            kinematic_viscosity: nu,
        })
    }

    /// Wall units at the exit isentropic state of an operating point, running length `chord`.
    pub fn exit_isentropic(op: &OperatingPoint, gas: &Gas, chord: f64) -> Result<Self> {
        let g = gas.gamma;
        if !(op.p01 > 0.0 && op.t01 > 0.0 && op.p2 > 0.0) {
            return Err(Error::Other(format!(
                "y+ estimate for {}: P01, T01 and p2 must be positive (got {}, {}, {})",
                op.name, op.p01, op.t01, op.p2
            )));
        }
        if op.p2 >= op.p01 {
            return Err(Error::Other(format!(
                "y+ estimate for {}: no flow, exit pressure {} >= inlet total pressure {}",
                op.name, op.p2, op.p01
            )));
        }
        let mach = op.exit_isentropic_mach(g);
        let t2 = op.t01 / (1.0 + 0.5 * (g - 1.0) * mach * mach);
        let rho2 = op.p2 / (gas.gas_constant * t2);
        let u2 = mach * (g * gas.gas_constant * t2).sqrt();
        Self::from_flow(u2, gas.viscosity(t2) / rho2, chord)
    }

    /// y+ of a wall distance `height` \[m\].
    pub fn yplus(&self, height: f64) -> f64 {
        height * self.friction_velocity / self.kinematic_viscosity
    }

    /// Wall distance \[m\] at which y+ equals `yplus`.
    pub fn height(&self, yplus: f64) -> f64 {
        yplus * self.kinematic_viscosity / self.friction_velocity
    }
}

/// White's turbulent flat-plate local skin friction `0.455 / ln^2(0.06 Re_x)`.
pub fn flat_plate_skin_friction(reynolds: f64) -> Result<f64> {
    // Below Re_x ~ 1e3 the log goes to zero/negative: the correlation is meaningless there.
    if !(reynolds >= 1.0e3) {
        return Err(Error::Other(format!("skin-friction correlation needs Re_x >= 1e3, got {reynolds:e}")));
    }
    Ok(0.455 / (0.06 * reynolds).ln().powi(2))
}

/// First-cell height \[m\] that gives `target_yplus` at the exit isentropic state of `op`
/// (running length = `chord`), less a relative 1e-9: the wall cells built on it carry
/// round-off of the mesh geometry (about 1e-12 relative), and their measured y+ must not
/// exceed the target.
pub fn first_cell_height(target_yplus: f64, op: &OperatingPoint, gas: &Gas, chord: f64) -> Result<f64> {
    if !(target_yplus > 0.0) {
        return Err(Error::Other(format!("target y+ must be positive, got {target_yplus}")));
    }
    Ok(WallUnits::exit_isentropic(op, gas, chord)?.height(target_yplus) * (1.0 - 1e-9))
}

/// y+ estimate of a first-cell height \[m\] at the exit isentropic state of `op`.
pub fn yplus_estimate(height: f64, op: &OperatingPoint, gas: &Gas, chord: f64) -> Result<f64> {
    Ok(WallUnits::exit_isentropic(op, gas, chord)?.yplus(height))
}
