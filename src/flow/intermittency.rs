//! Menter's one-equation intermittency transport model ("gamma" model; Menter, Smirnov, Liu &
//! Avancha, Flow Turbulence Combust. 95:583-619, 2015; equations as on NASA's Turbulence Modeling
//! Resource, "Menter's SST-based gamma transition model") coupled to SA-noft2: point-wise terms.
//!
//! ```text
//! d(rho gamma)/dt + div(rho gamma V) = P_gamma - E_gamma + div((mu + mu_t/sigma_gamma) grad gamma)
//! P_gamma = F_length rho S gamma (1 - gamma) F_onset
//! E_gamma = c_a2 rho Omega gamma F_turb (c_e2 gamma - 1)
//! F_onset = max(min(Re_V / (2.2 Re_theta_c), 2) - max(1 - (R_T/3.5)^3, 0), 0),  F_turb = exp(-(R_T/2)^4)
//! Re_V = rho d^2 S / mu,  R_T = mu_t / mu
//! Re_theta_c = C_TU1 + C_TU2 exp(-C_TU3 Tu_L F_PG(lambda_theta_L))
//! lambda_theta_L = clip(-7.57e-3 (dV/dy) d^2 / nu + 0.0128, -1, 1),   dV/dy = grad(n . V) . n
//! ```
//!
//! S and Omega are the strain-rate and vorticity magnitudes, n the unit wall normal (the
//! gradient of the wall distance) and dV/dy the wall-normal derivative of the wall-normal
//! velocity. F_PG is as on the Resource's page with C_PG3 = 0 in its second branch. The source
//! is local: no momentum thickness, no distance along the wall, which is what lets it run cell
//! by cell on a GPU. Separation-induced transition comes from
//! F_onset: a separated shear layer lies far from the wall, so its Re_V grows far past 2.2
//! Re_theta_c and intermittency is produced there before any eddy viscosity exists (the model
//! paper calibrates this on separation-induced cases).
//!
//! Coupling to SA (the SST model's k equation has no counterpart): R_T is SA's eddy-viscosity
//! ratio (rho k / (mu omega) is the eddy-viscosity ratio of the k-omega models), Tu_L is the
//! free-stream turbulence intensity of the operating point (SA carries no k from which to decay
//! it), SA's production is multiplied by gamma and its destruction by min(max(gamma, 0.1), 1), as
//! in the SA couplings of the Langtry-Menter equations (Medida & Baeder, AIAA 2011-3979; the
//! "SA-noft2-Gamma-Re_theta" model on NASA's Turbulence Modeling Resource).
//! Units: source terms per unit volume in kg/(m^3 s).

/// F_length = 100.
pub const F_LENGTH: f64 = 100.0;
/// c_a2 = 0.06.
pub const CA2: f64 = 0.06;
/// c_e2 = 50: in a laminar layer before the onset the destruction holds gamma at 1/c_e2.
pub const CE2: f64 = 50.0;
/// sigma_gamma = 1.
pub const SIGMA_GAMMA: f64 = 1.0;
/// Re_V / Re_theta_c at the onset (2.2; 2.193 for a Blasius profile's maximum).
pub const ONSET_RATIO: f64 = 2.2;
/// C_TU1, C_TU2, C_TU3 of the onset correlation.
pub const CTU: [f64; 3] = [100.0, 1000.0, 1.0];
/// C_PG1, its limit, C_PG2, its limit, C_PG3 of the pressure-gradient function.
pub const CPG: [f64; 5] = [14.68, 1.5, -7.34, 3.0, 0.0];
/// Lower bound of the factor on SA's destruction.
pub const MIN_DESTRUCTION_FACTOR: f64 = 0.1;

/// Strain-rate magnitude sqrt(2 S_ij S_ij) [1/s] of a 2D velocity field from its gradients.
#[inline]
pub fn strain_rate_magnitude(grad_u: [f64; 2], grad_v: [f64; 2]) -> f64 {
    (2.0 * grad_u[0] * grad_u[0] + 2.0 * grad_v[1] * grad_v[1] + (grad_u[1] + grad_v[0]).powi(2)).sqrt()
}

/// dV/dy = grad(n . V) . n = n . (grad V) n [1/s]: the wall-normal derivative of the wall-normal
/// velocity, with `n` the unit wall normal (the gradient of the wall distance, whose change along
/// n vanishes for a distance function, so n can be held fixed).
#[inline]
pub fn wall_normal_velocity_derivative(n: [f64; 2], grad_u: [f64; 2], grad_v: [f64; 2]) -> f64 {
    n[0] * (grad_u[0] * n[0] + grad_u[1] * n[1]) + n[1] * (grad_v[0] * n[0] + grad_v[1] * n[1])
}

/// The pressure-gradient parameter lambda_theta_L from dV/dy [1/s] (the wall-normal derivative of
/// the wall-normal velocity), the wall distance [m] and the kinematic viscosity [m^2/s], clipped
/// to [-1, 1].
#[inline]
pub fn pressure_gradient_parameter(dv_dy: f64, wall_distance: f64, nu: f64) -> f64 {
    (-7.57e-3 * dv_dy * wall_distance * wall_distance / nu + 0.0128).clamp(-1.0, 1.0)
}

/// F_PG(lambda_theta_L): it multiplies the turbulence intensity in the onset correlation, so a
/// larger value means an earlier onset; up to 3 under an adverse pressure gradient, up to 1.5
/// under a favourable one, never negative.
#[inline]
pub fn pressure_gradient_function(lambda: f64) -> f64 {
    let [c1, c1_limit, c2, c2_limit, c3] = CPG;
    let f = if lambda >= 0.0 { (1.0 + c1 * lambda).min(c1_limit) } else { (1.0 + c2 * lambda + c3 * (lambda + 0.0681).min(0.0)).min(c2_limit) };
    f.max(0.0)
}

/// The onset momentum-thickness Reynolds number Re_theta_c for the turbulence intensity `tu` (a
/// fraction: 0.01 is 1 %) and the pressure-gradient parameter `lambda`.
#[inline]
pub fn onset_reynolds(tu: f64, lambda: f64) -> f64 {
    let tu_percent = (100.0 * tu).min(100.0);
    CTU[0] + CTU[1] * (-CTU[2] * tu_percent * pressure_gradient_function(lambda)).exp()
}

/// What the intermittency source needs at one cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntermittencyCell {
    pub rho: f64,
    /// Laminar and eddy viscosity [kg/(m s)].
    pub mu: f64,
    pub mu_t: f64,
    /// Strain-rate magnitude sqrt(2 S_ij S_ij) and vorticity magnitude [1/s].
    pub strain_rate: f64,
    pub vorticity: f64,
    pub wall_distance: f64,
    /// dV/dy = grad(n . V) . n [1/s], n the unit wall normal.
    pub dv_dy: f64,
    /// Free-stream turbulence intensity (a fraction).
    pub turbulence_intensity: f64,
}

/// The intermittency source of one cell: production, destruction, their difference and its
/// derivative with respect to gamma at fixed mean flow (for the point-implicit diagonal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntermittencySource {
    pub production: f64,
    pub destruction: f64,
    pub total: f64,
    pub d_total_d_gamma: f64,
}

/// F_onset and F_turb of a cell.
#[inline]
pub fn onset_and_turbulence_functions(c: &IntermittencyCell) -> (f64, f64) {
    let re_v = c.rho * c.wall_distance * c.wall_distance * c.strain_rate / c.mu;
    let lambda = pressure_gradient_parameter(c.dv_dy, c.wall_distance, c.mu / c.rho);
    let re_theta_c = onset_reynolds(c.turbulence_intensity, lambda);
    let r_t = c.mu_t / c.mu;
    let onset2 = (re_v / (ONSET_RATIO * re_theta_c)).min(2.0);
    let onset3 = (1.0 - (r_t / 3.5).powi(3)).max(0.0);
    ((onset2 - onset3).max(0.0), (-(r_t / 2.0).powi(4)).exp())
}

/// P_gamma - E_gamma per unit volume at intermittency `gamma`.
#[inline]
pub fn intermittency_source(gamma: f64, c: &IntermittencyCell) -> IntermittencySource {
    let (onset, turb) = onset_and_turbulence_functions(c);
    let p_rate = F_LENGTH * c.rho * c.strain_rate * onset;
    let e_rate = CA2 * c.rho * c.vorticity * turb;
    let production = p_rate * gamma * (1.0 - gamma);
    let destruction = e_rate * gamma * (CE2 * gamma - 1.0);
    IntermittencySource {
        production,
        destruction,
        total: production - destruction,
        d_total_d_gamma: p_rate * (1.0 - 2.0 * gamma) - e_rate * (2.0 * CE2 * gamma - 1.0),
    }
}

/// The factors on SA's production and destruction at intermittency `gamma`.
#[inline]
pub fn sa_coupling(gamma: f64) -> (f64, f64) {
    (gamma, gamma.clamp(MIN_DESTRUCTION_FACTOR, 1.0))
}
