//! Calorically perfect gas with Sutherland viscosity.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gas {
    /// Specific gas constant R [J/(kg K)].
    pub gas_constant: f64,
    pub gamma: f64,
    pub prandtl: f64,
    pub turbulent_prandtl: f64,
    /// Sutherland's law: mu = mu_ref (T/T_ref)^1.5 (T_ref + S)/(T + S).
    pub mu_ref: f64,
    pub t_ref: f64,
    pub sutherland_s: f64,
}

impl Default for Gas {
    /// Air as in the LS89 optimization test case (data/ls89/gas.csv), Pr = 0.7.
    fn default() -> Self {
        Gas {
            gas_constant: 287.0,
            gamma: 1.4,
            prandtl: 0.7,
            turbulent_prandtl: 0.9,
            mu_ref: 1.716e-5,
            t_ref: 273.15,
            sutherland_s: 110.4,
        }
    }
}

impl Gas {
    pub fn cp(&self) -> f64 {
        self.gamma * self.gas_constant / (self.gamma - 1.0)
    }

    /// Sutherland's law for the dynamic viscosity [kg/(m s)].
    pub fn viscosity(&self, t: f64) -> f64 {
        self.mu_ref * (t / self.t_ref).powf(1.5) * (self.t_ref + self.sutherland_s) / (t + self.sutherland_s)
    }
}
