//! Lift and drag of a cascade blade from the change of momentum and total pressure between the
//! inlet and outlet planes: the compressor-cascade figures of NACA's low-speed cascade tests
//! (Emery et al., NACA Report 1368, 1958) and of the textbooks (Dixon and Hall, *Fluid Mechanics
//! and Thermodynamics of Turbomachinery*, 7th ed., eqs. 3.50-3.54).
//!
//! Per unit span and pitch s, with flow angles a1, a2 from axial and the vector-mean angle
//! tan am = (tan a1 + tan a2) / 2, the drag along the vector-mean velocity is D = s dP0 cos am and
//! the lift across it L = rho s cx^2 (tan a1 - tan a2) / cos am - s dP0 sin am. Referred to the
//! vector-mean dynamic pressure and the chord c:
//!   cd = (s / c) w cos^3 am / cos^2 a1,   cl = 2 (s / c) cos am (tan a1 - tan a2) - cd tan am,
//! with w = dP0 / q1 the total-pressure loss over the inlet dynamic pressure. Multiplying by
//! cos^2 a1 / cos^2 am refers them to the inlet dynamic pressure instead. The relations are the
//! incompressible ones: at the Mach numbers of low-speed cascade tests (0.1) density changes by
//! well under 1 % through the passage.

use super::planes::CascadePerformance;
use crate::flow::case::isentropic_mach;
use serde::Serialize;

#[derive(Clone, Copy, Debug, Serialize)]
pub struct CascadeCoefficients {
    /// Mass-averaged flow angles on the inlet and outlet planes, and the vector-mean angle \[deg\].
    pub inlet_angle_deg: f64,
    pub exit_angle_deg: f64,
    pub mean_angle_deg: f64,
    /// Inlet angle minus exit angle \[deg\].
    pub turning_deg: f64,
    /// Total-pressure loss between the planes over the inlet dynamic pressure (P01 - p1).
    pub loss_inlet_dynamic: f64,
    /// Lift and drag coefficients referred to the vector-mean velocity.
    pub lift: f64,
    pub drag: f64,
    /// The same referred to the inlet velocity.
    pub lift_inlet: f64,
    pub drag_inlet: f64,
    /// Isentropic Mach number of the inlet plane's averages.
    pub inlet_mach: f64,
}

/// The coefficients of `perf` for a blade of `chord` at `pitch` (m); `gamma` for the inlet Mach
/// number.
pub fn cascade_coefficients(perf: &CascadePerformance, pitch: f64, chord: f64, gamma: f64) -> CascadeCoefficients {
    let (a1, a2) = (perf.inlet.flow_angle_deg.to_radians(), perf.outlet.flow_angle_deg.to_radians());
    let am = (0.5 * (a1.tan() + a2.tan())).atan();
    let q1 = perf.inlet.total_pressure - perf.inlet.static_pressure;
    let loss = (perf.inlet.total_pressure - perf.outlet.total_pressure) / q1;
    let s_c = pitch / chord;
    let drag = s_c * loss * am.cos().powi(3) / a1.cos().powi(2);
    let lift = 2.0 * s_c * am.cos() * (a1.tan() - a2.tan()) - drag * am.tan();
    let to_inlet = (a1.cos() / am.cos()).powi(2);
    CascadeCoefficients {
        inlet_angle_deg: a1.to_degrees(),
        exit_angle_deg: a2.to_degrees(),
        mean_angle_deg: am.to_degrees(),
        turning_deg: (a1 - a2).to_degrees(),
        loss_inlet_dynamic: loss,
        lift,
        drag,
        lift_inlet: lift * to_inlet,
        drag_inlet: drag * to_inlet,
        inlet_mach: isentropic_mach(perf.inlet.total_pressure, perf.inlet.static_pressure, gamma),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::post::planes::PlaneAverages;

    fn plane(angle_deg: f64, total_pressure: f64, static_pressure: f64) -> PlaneAverages {
        PlaneAverages { mass_flow: 1.0, entropy: 0.0, total_pressure, flow_angle_deg: angle_deg, static_pressure, length: 0.1 }
    }

    fn performance(a1: f64, a2: f64, p01: f64, p02: f64) -> CascadePerformance {
        CascadePerformance {
            entropy_rise: 0.0,
            exit_angle_deg: a2,
            loss_coefficient: 0.0,
            mass_flow: 1.0,
            exit_isentropic_mach: 0.1,
            loss_coefficient_at_measurement_plane: 0.0,
            inlet: plane(a1, p01, p01 - 500.0),
            outlet: plane(a2, p02, p01 - 300.0),
        }
    }

    #[test]
    fn lossless_turning_gives_the_circulation_lift() {
        // 45 -> 20 deg at solidity 1 without loss: cl = 2 cos am (tan 45 - tan 20), cd = 0.
        let c = cascade_coefficients(&performance(45.0, 20.0, 1.0e5, 1.0e5), 0.1, 0.1, 1.4);
        let am = (0.5 * (1.0 + 20f64.to_radians().tan())).atan();
        assert!((c.lift - 2.0 * am.cos() * (1.0 - 20f64.to_radians().tan())).abs() < 1e-12);
        assert_eq!(c.drag, 0.0);
        assert!((c.turning_deg - 25.0).abs() < 1e-12);
        assert!((c.lift_inlet / c.lift - (45f64.to_radians().cos() / am.cos()).powi(2)).abs() < 1e-12);
    }

    #[test]
    fn loss_is_drag_along_the_mean_velocity() {
        // No turning: the vector-mean direction is the flow's, the lift is minus nothing but
        // cd tan am, and cd = (s/c) w cos am (Dixon and Hall eq. 3.51 with cm = c1).
        let c = cascade_coefficients(&performance(30.0, 30.0, 1.0e5, 1.0e5 - 25.0), 0.12, 0.1, 1.4);
        let w = 25.0 / 500.0;
        assert!((c.loss_inlet_dynamic - w).abs() < 1e-12);
        assert!((c.drag - 1.2 * w * 30f64.to_radians().cos()).abs() < 1e-12);
        assert!((c.lift + c.drag * 30f64.to_radians().tan()).abs() < 1e-12);
    }
}
