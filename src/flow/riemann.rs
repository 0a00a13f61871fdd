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
    #[error("the data generate vacuum (pressure positivity condition violated, Toro eq. 4.82)")]
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
    /// p* [Pa] (same on both sides of the contact).
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
    /// f(p) = f_L(p) + f_R(p) + u_R - u_L = 0 (Toro eq. 4.5-4.7), relative tolerance 1e-14.
    pub fn solve(gamma: f64, left: [f64; 3], right: [f64; 3]) -> Result<Self, RiemannError> {
        todo!()
    }

    /// Solution `[rho, u, p]` at the similarity coordinate xi = x/t (Toro sec. 4.5).
    pub fn sample(&self, xi: f64) -> [f64; 3] {
        todo!()
    }
}
