//! Operating points: what the inlet and outlet boundaries impose.

use serde::{Deserialize, Serialize};

/// One operating point of a cascade (inlet total conditions, outlet static pressure).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperatingPoint {
    pub name: String,
    /// Inlet total pressure P01 \[Pa\].
    pub p01: f64,
    /// Inlet total temperature T01 \[K\].
    pub t01: f64,
    /// Inlet flow angle from axial \[deg\] (positive towards +y).
    pub alpha1_deg: f64,
    /// Outlet static pressure p2 \[Pa\].
    pub p2: f64,
    /// Inlet turbulence: nu_tilde / nu (Spalart-Allmaras), 3-5 for fully turbulent runs.
    #[serde(default = "default_nu_tilde_ratio")]
    pub nu_tilde_ratio: f64,
    /// Free-stream turbulence intensity u'/U as a fraction (0.01 = 1 %): the transition onset of
    /// `model: sa_bcm` (`flow::sa::bcm_onset_reynolds`) and `model: sa_gamma`
    /// (`flow::intermittency::onset_reynolds`); the fully turbulent models ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbulence_intensity: Option<f64>,
}

/// Inlet nu_tilde / nu when a point does not give it.
pub const DEFAULT_NU_TILDE_RATIO: f64 = 3.0;

fn default_nu_tilde_ratio() -> f64 {
    DEFAULT_NU_TILDE_RATIO
}

/// Free-stream turbulence set over a blade file's operating points (command line, evaluator
/// and campaign settings): the turbulence intensity `model: sa_bcm` and `sa_gamma` need and
/// the inflow nu~/nu. A field left out keeps the point's own value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FreeStreamTurbulence {
    /// Turbulence intensity u'/U as a fraction (0.01 = 1 %).
    pub turbulence_intensity: Option<f64>,
    /// Inflow nu~/nu.
    pub nu_tilde_ratio: Option<f64>,
}

impl FreeStreamTurbulence {
    /// The values, checked ([`FreeStreamTurbulence::validate`]).
    pub fn new(turbulence_intensity: Option<f64>, nu_tilde_ratio: Option<f64>) -> Result<Self, String> {
        let f = FreeStreamTurbulence { turbulence_intensity, nu_tilde_ratio };
        f.validate()?;
        Ok(f)
    }

    /// Whether the values can be a free stream: an intensity in (0, 1), a finite ratio >= 0.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(tu) = self.turbulence_intensity {
            if !(tu > 0.0 && tu < 1.0) {
                return Err(format!("turbulence_intensity = {tu} must lie in (0, 1) (a fraction: 0.01 is 1 %)"));
            }
        }
        if let Some(r) = self.nu_tilde_ratio {
            if !(r.is_finite() && r >= 0.0) {
                return Err(format!("nu_tilde_ratio = {r} must be finite and >= 0"));
            }
        }
        Ok(())
    }

    /// `op` with the values set here.
    pub fn apply_to(&self, op: &mut OperatingPoint) {
        if self.turbulence_intensity.is_some() {
            op.turbulence_intensity = self.turbulence_intensity;
        }
        if let Some(r) = self.nu_tilde_ratio {
            op.nu_tilde_ratio = r;
        }
    }
}

impl OperatingPoint {
    /// Exit isentropic Mach number from P01/p2 (thesis/DESIGN section 5 formula).
    pub fn exit_isentropic_mach(&self, gamma: f64) -> f64 {
        isentropic_mach(self.p01, self.p2, gamma)
    }
}

/// The static pressure at which an isentropic expansion from `p0` reaches Mach number `mach`:
/// p = P0 (1 + (gamma-1)/2 M^2)^(-gamma/(gamma-1)) (the inverse of [`isentropic_mach`]).
pub fn isentropic_pressure(p0: f64, mach: f64, gamma: f64) -> f64 {
    p0 * (1.0 + 0.5 * (gamma - 1.0) * mach * mach).powf(-gamma / (gamma - 1.0))
}

/// The exit static pressure of a point given either as such (`p2`) or as the exit isentropic
/// Mach number (`m2is`) from `p01`: exactly one of the two.
pub fn exit_pressure(p01: f64, p2: Option<f64>, m2is: Option<f64>, gamma: f64) -> Result<f64, String> {
    match (p2, m2is) {
        (Some(p2), None) => Ok(p2),
        (None, Some(m)) => Ok(isentropic_pressure(p01, m, gamma)),
        (Some(_), Some(_)) => Err("both p2 and m2is: give one".into()),
        (None, None) => Err("p2 (or m2is) is missing".into()),
    }
}

/// Mis = sqrt(2/(gamma-1) ((P0/p)^((gamma-1)/gamma) - 1)).
pub fn isentropic_mach(p0: f64, p: f64, gamma: f64) -> f64 {
    let r = (p0 / p).powf((gamma - 1.0) / gamma) - 1.0;
    (2.0 / (gamma - 1.0) * r.max(0.0)).sqrt()
}
