//! Exact Riemann solver for the 1D Euler equations of a perfect gas (Toro 2009, ch. 4), sampled
//! at x/t. It is the reference solution of the Sod shock-tube verification test.
//!
//! States are 1D primitive `[rho, u, p]`.

use thiserror::Error;

/// Why a Riemann problem has no (vacuum-free) exact solution.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum RiemannError {
    #[error("non-physical {side} state: rho = {rho}, p = {p} (both must be finite and positive)")]
    NonPhysical { side: &'static str, rho: f64, p: f64 },
    #[error("the data generate vacuum (pressure positivity condition violated, Toro sec. 4.6)")]
    Vacuum,
    #[error("Newton iteration for the star pressure did not converge")]
    NoConvergence,
}

/// The wave that separates a side state from the star region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wave {
    /// Shock moving at `speed` [m/s].
    Shock { speed: f64 },
    /// Rarefaction fan between the `head` and `tail` characteristic speeds [m/s].
    Rarefaction { head: f64, tail: f64 },
}

/// Star-region values between the left and right waves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StarState {
    /// p* in Pa (same on both sides of the contact).
    pub p: f64,
    /// u* [m/s], the contact speed.
    pub u: f64,
    /// Density left of the contact.
    pub rho_left: f64,
    /// Density right of the contact.
    pub rho_right: f64,
}

/// Solved Riemann problem: data, star state and waves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExactRiemann {
    pub gamma: f64,
    pub left: [f64; 3],
    pub right: [f64; 3],
    pub star: StarState,
    pub left_wave: Wave,
    pub right_wave: Wave,
}

impl ExactRiemann {
    /// Solves for the star state by Newton iteration on the pressure function
    /// f(p) = f_L(p) + f_R(p) + u_R - u_L = 0 (Toro sec. 4.2), relative tolerance 1e-14.
    pub fn solve(gamma: f64, left: [f64; 3], right: [f64; 3]) -> Result<Self, RiemannError> {
        for (side, state) in [("left", left), ("right", right)] {
            let [rho, u, p] = state;
            if !(rho.is_finite() && rho > 0.0 && p.is_finite() && p > 0.0 && u.is_finite()) {
                return Err(RiemannError::NonPhysical { side, rho, p });
            }
        }
        let c_left = (gamma * left[2] / left[0]).sqrt();
        let c_right = (gamma * right[2] / right[0]).sqrt();
        // Pressure positivity condition (Toro sec. 4.6): otherwise the two rarefactions open a vacuum.
        if 2.0 * (c_left + c_right) / (gamma - 1.0) <= right[1] - left[1] {
            return Err(RiemannError::Vacuum);
        }
        let p = star_pressure(gamma, &left, &right, c_left, c_right)?;
        let (f_left, _) = pressure_function(gamma, p, &left, c_left);
        let (f_right, _) = pressure_function(gamma, p, &right, c_right);
        // Toro sec. 4.2: u* from the two pressure functions.
        let u = 0.5 * (left[1] + right[1]) + 0.5 * (f_right - f_left);
        let (rho_left, left_wave) = star_side(gamma, p, u, &left, c_left, -1.0);
        let (rho_right, right_wave) = star_side(gamma, p, u, &right, c_right, 1.0);
        Ok(ExactRiemann { gamma, left, right, star: StarState { p, u, rho_left, rho_right }, left_wave, right_wave })
    }

    /// Solution `[rho, u, p]` at the similarity coordinate xi = x/t (Toro sec. 4.5).
    pub fn sample(&self, xi: f64) -> [f64; 3] {
        // Toro sec. 4.5, Fig. 4.14: left or right of the contact, then inside or outside the wave.
        let star = &self.star;
        let (side, wave, rho_star, sign) = if xi <= star.u {
            (&self.left, self.left_wave, star.rho_left, -1.0)
        } else {
            (&self.right, self.right_wave, star.rho_right, 1.0)
        };
        // Work in the frame mirrored for the right side so one set of formulas serves both:
        // the outer state lies at sign * xi -> infinity.
        let outer = match wave {
            Wave::Shock { speed } => sign * (xi - speed) >= 0.0,
            Wave::Rarefaction { head, .. } => sign * (xi - head) >= 0.0,
        };
        if outer {
            return *side;
        }
        match wave {
            Wave::Shock { .. } => [rho_star, star.u, star.p],
            Wave::Rarefaction { tail, .. } => {
                if sign * (xi - tail) <= 0.0 {
                    [rho_star, star.u, star.p]
                } else {
                    rarefaction_fan(self.gamma, side, sign, xi)
                }
            }
        }
    }
}

/// f_K(p) and f_K'(p) (Toro sec. 4.2-4.3) for the side state `[rho, u, p]`.
fn pressure_function(gamma: f64, p: f64, side: &[f64; 3], c: f64) -> (f64, f64) {
    let [rho, _, p_side] = *side;
    if p > p_side {
        // Shock branch.
        let a = 2.0 / ((gamma + 1.0) * rho);
        let b = (gamma - 1.0) / (gamma + 1.0) * p_side;
        let root = (a / (p + b)).sqrt();
        ((p - p_side) * root, root * (1.0 - 0.5 * (p - p_side) / (b + p)))
    } else {
        // Rarefaction branch.
        let z = (gamma - 1.0) / (2.0 * gamma);
        let ratio = p / p_side;
        (2.0 * c / (gamma - 1.0) * (ratio.powf(z) - 1.0), ratio.powf(-(gamma + 1.0) / (2.0 * gamma)) / (rho * c))
    }
}

/// Newton iteration for p* (Toro sec. 4.3.1), started from the two-rarefaction guess
/// (Toro sec. 4.3.2), which is exact when both waves are rarefactions and never negative.
fn star_pressure(
    gamma: f64,
    left: &[f64; 3],
    right: &[f64; 3],
    c_left: f64,
    c_right: f64,
) -> Result<f64, RiemannError> {
    const TOLERANCE: f64 = 1e-14;
    const MAX_ITERATIONS: usize = 100;
    let z = (gamma - 1.0) / (2.0 * gamma);
    let du = right[1] - left[1];
    let mut p = ((c_left + c_right - 0.5 * (gamma - 1.0) * du)
        / (c_left / left[2].powf(z) + c_right / right[2].powf(z)))
    .powf(1.0 / z);
    for _ in 0..MAX_ITERATIONS {
        let (f_left, df_left) = pressure_function(gamma, p, left, c_left);
        let (f_right, df_right) = pressure_function(gamma, p, right, c_right);
        let mut p_new = p - (f_left + f_right + du) / (df_left + df_right);
        if p_new <= 0.0 {
            p_new = TOLERANCE * p;
        }
        let change = 2.0 * (p_new - p).abs() / (p_new + p);
        p = p_new;
        if change < TOLERANCE {
            return Ok(p);
        }
    }
    Err(RiemannError::NoConvergence)
}

/// Star density on one side and the wave there (Toro sec. 4.4). `sign` = -1 for the left wave,
/// +1 for the right wave.
fn star_side(gamma: f64, p_star: f64, u_star: f64, side: &[f64; 3], c: f64, sign: f64) -> (f64, Wave) {
    let [rho, u, p] = *side;
    let ratio = p_star / p;
    if ratio > 1.0 {
        // Shock: Rankine-Hugoniot density (Toro sec. 4.4.1) and shock speed.
        let g = (gamma - 1.0) / (gamma + 1.0);
        let rho_star = rho * (ratio + g) / (g * ratio + 1.0);
        let speed = u + sign * c * ((gamma + 1.0) / (2.0 * gamma) * ratio + (gamma - 1.0) / (2.0 * gamma)).sqrt();
        (rho_star, Wave::Shock { speed })
    } else {
        // Rarefaction: isentropic density (Toro sec. 4.4.1) and fan head/tail.
        let rho_star = rho * ratio.powf(1.0 / gamma);
        let c_star = c * ratio.powf((gamma - 1.0) / (2.0 * gamma));
        (rho_star, Wave::Rarefaction { head: u + sign * c, tail: u_star + sign * c_star })
    }
}

/// State inside a rarefaction fan at xi (Toro sec. 4.5;
/// `sign` = -1 left, +1 right).
fn rarefaction_fan(gamma: f64, side: &[f64; 3], sign: f64, xi: f64) -> [f64; 3] {
    let [rho, u, p] = *side;
    let c = (gamma * p / rho).sqrt();
    let gp1 = gamma + 1.0;
    let gm1 = gamma - 1.0;
    let base = 2.0 / gp1 - sign * gm1 / (gp1 * c) * (u - xi);
    [rho * base.powf(2.0 / gm1), 2.0 / gp1 * (-sign * c + 0.5 * gm1 * u + xi), p * base.powf(2.0 * gamma / gm1)]
}
