//! Spalart-Allmaras one-equation turbulence model, point-wise terms.
//!
//! Model: "SA" of Allmaras, Johnson & Spalart (2012, ICCFD7-1902), the standard model, with the
//! 2012 limiting of the modified vorticity S_tilde (cv2 = 0.7, cv3 = 0.9), and the
//! negative-nu_tilde extension "SA-neg" of the same paper for nu_tilde < 0. The laminar
//! suppression term ft2 is optional ([`SaSourceOptions::with_ft2`]): `false` is "SA-noft2" (NASA
//! TMR naming), the usual choice for fully turbulent runs; `true` is the full standard model.
//! SA-BCM ([`SaSourceOptions::bcm_onset`]) multiplies SA-noft2's production by the algebraic
//! intermittency of Bas and Cakmakcioglu ([`bcm_intermittency`]): laminar-turbulent transition
//! without a second equation.
//!
//! Compressible conservative form solved for rho nu_tilde (NASA TMR "SA", compressible form):
//!
//! ```text
//! d(rho nu~)/dt + div(rho nu~ V) = div((mu + rho nu~ f_n)/sigma grad nu~)
//!                                  + rho [P - D + cb2/sigma |grad nu~|^2]
//! ```
//!
//! with f_n = 1 for nu~ >= 0 (SA-neg's f_n otherwise). The density-gradient term
//! -(nu + nu~ f_n)/sigma grad(rho) . grad(nu~), which appears when the diffusion of the
//! incompressible model is carried over exactly to the rho nu~ form, is not included (it vanishes
//! for constant density; a caller who needs it has the face gradients to add it).
//! Units: nu, nu~ in m^2/s, vorticity in 1/s, wall distance in m, source terms per unit volume in
//! kg/(m s^2).

/// cb1 = 0.1355.
pub const CB1: f64 = 0.1355;
/// sigma = 2/3.
pub const SIGMA: f64 = 2.0 / 3.0;
/// cb2 = 0.622.
pub const CB2: f64 = 0.622;
/// von Karman constant kappa = 0.41.
pub const KAPPA: f64 = 0.41;
/// cw1 = cb1/kappa^2 + (1 + cb2)/sigma.
pub const CW1: f64 = CB1 / (KAPPA * KAPPA) + (1.0 + CB2) / SIGMA;
/// cw2 = 0.3.
pub const CW2: f64 = 0.3;
/// cw3 = 2.
pub const CW3: f64 = 2.0;
/// cv1 = 7.1.
pub const CV1: f64 = 7.1;
/// cv2 = 0.7 (2012 S_tilde limiting).
pub const CV2: f64 = 0.7;
/// cv3 = 0.9 (2012 S_tilde limiting).
pub const CV3: f64 = 0.9;
/// ct3 = 1.2.
pub const CT3: f64 = 1.2;
/// ct4 = 0.5.
pub const CT4: f64 = 0.5;
/// cn1 = 16 (SA-neg diffusion coefficient f_n).
pub const CN1: f64 = 16.0;
/// Upper limit of r = nu~/(S~ kappa^2 d^2) (Allmaras et al. 2012: r <= 10).
pub const R_LIMIT: f64 = 10.0;

/// Options of the SA source term.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaSourceOptions {
    /// Include the laminar suppression term ft2 = ct3 exp(-ct4 chi^2) (standard SA) or not
    /// (SA-noft2).
    pub with_ft2: bool,
    /// SA-BCM transition ([`bcm_intermittency`]): the onset momentum-thickness Reynolds number
    /// Re_theta_c of the free-stream turbulence ([`bcm_onset_reynolds`]); `None`: fully
    /// turbulent. Derived by the solver from the operating point for `model: sa_bcm`
    /// (`Case::sa_options`), never read from a settings file.
    #[serde(skip)]
    pub bcm_onset: Option<f64>,
    /// SA-gamma ([`crate::flow::intermittency`]): the free-stream turbulence intensity (a
    /// fraction) of the intermittency equation's onset correlation; `None`: no transported
    /// intermittency. Set by the solver from the operating point for `model: sa_gamma`.
    #[serde(skip)]
    pub intermittency_tu: Option<f64>,
}

/// chi_1 = 0.002 of SA-BCM (Term 1's scale).
pub const BCM_CHI1: f64 = 0.002;
/// chi_2 = 50 of SA-BCM (Term 2's scale, the 2020 revision that replaced SA-BC's).
pub const BCM_CHI2: f64 = 50.0;
/// Re_v / Re_theta = 2.193: the vorticity Reynolds number's largest value across a Blasius
/// layer against its momentum-thickness Reynolds number.
pub const BCM_RE_V_PER_RE_THETA: f64 = 2.193;

/// Onset momentum-thickness Reynolds number of SA-BCM, Menter's correlation
/// Re_theta_c = 803.73 (Tu + 0.6067)^-1.027, `turbulence_intensity` as a fraction (0.01 = 1 %).
pub fn bcm_onset_reynolds(turbulence_intensity: f64) -> f64 {
    803.73 * (100.0 * turbulence_intensity + 0.6067).powf(-1.027)
}

/// The intermittency gamma_BC of SA-BCM (Cakmakcioglu, Bas & Kaynak 2018, its 2020 revision, as
/// on NASA's Turbulence Modeling Resource) and its derivative with respect to nu~:
///
/// `gamma = 1 - exp(-sqrt(Term1) - sqrt(Term2))`,
/// `Term1 = max(Re_theta - Re_theta_c, 0) / (chi_1 Re_theta_c)`, `Re_theta = Re_v / 2.193`,
/// `Re_v = d^2 Omega / nu`, `Term2 = max(chi_2 nu_t / nu, 0)`, `nu_t = nu~ fv1`.
///
/// Inside a laminar layer nu~ stays near zero, so Term2 does too, and gamma is small until the
/// local Re_theta passes the onset value; in the free stream Term2 alone makes gamma ~ 1.
pub fn bcm_intermittency(nu: f64, nu_tilde: f64, vorticity: f64, wall_distance: f64, onset: f64) -> (f64, f64) {
    let re_theta = wall_distance * wall_distance * vorticity / nu / BCM_RE_V_PER_RE_THETA;
    let term1 = ((re_theta - onset).max(0.0) / (BCM_CHI1 * onset)).sqrt();
    let chi = nu_tilde / nu;
    let (term2, d_term2) = if chi > 0.0 {
        let (f, df) = fv1_and_derivative(chi);
        let t = (BCM_CHI2 * chi * f).sqrt();
        // d sqrt(chi_2 chi fv1)/d nu~; t ~ chi^2 as chi -> 0, so the quotient stays finite.
        let dt = if t > 0.0 { BCM_CHI2 * (f + chi * df) / (2.0 * t * nu) } else { 0.0 };
        (t, dt)
    } else {
        (0.0, 0.0)
    };
    let e = (-(term1 + term2)).exp();
    (1.0 - e, e * d_term2)
}

/// fv1 and d fv1/d chi.
#[inline]
fn fv1_and_derivative(chi: f64) -> (f64, f64) {
    let c3 = CV1 * CV1 * CV1;
    let chi3 = chi * chi * chi;
    (chi3 / (chi3 + c3), 3.0 * chi * chi * c3 / ((chi3 + c3) * (chi3 + c3)))
}

/// SA source per unit volume at one cell, and its derivative for point-implicit treatment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SaSource {
    /// rho * production: rho cb1 (1 - ft2) S~ nu~ (SA-neg: rho cb1 (1 - ct3) Omega nu~).
    pub production: f64,
    /// rho * destruction: rho (cw1 fw - cb1 ft2/kappa^2)(nu~/d)^2 (SA-neg: -rho cw1 (nu~/d)^2).
    pub destruction: f64,
    /// rho cb2/sigma |grad nu~|^2 (the non-conservative part of the diffusion).
    pub cb2_term: f64,
    /// production - destruction + cb2_term [kg/(m s^2)].
    pub total: f64,
    /// d(total)/d(nu~) at fixed rho, nu, vorticity, d and grad nu~ [kg/(m^3 s)]; divide by rho
    /// for the derivative with respect to the conservative variable rho nu~.
    pub d_total_d_nu_tilde: f64,
}

/// fv1 = chi^3/(chi^3 + cv1^3), chi = nu~/nu.
#[inline]
pub fn fv1(chi: f64) -> f64 {
    let chi3 = chi * chi * chi;
    chi3 / (chi3 + CV1 * CV1 * CV1)
}

/// Eddy viscosity mu_t = rho nu~ fv1(nu~/nu) for nu~ >= 0, 0 for nu~ < 0 (SA-neg) [kg/(m s)].
/// `nu` is the laminar kinematic viscosity mu/rho.
#[inline]
pub fn eddy_viscosity(rho: f64, nu_tilde: f64, nu: f64) -> f64 {
    if nu_tilde > 0.0 {
        rho * nu_tilde * fv1(nu_tilde / nu)
    } else {
        0.0
    }
}

/// Modified vorticity S~ of Allmaras et al. (2012): S_bar = nu~ fv2/(kappa^2 d^2),
/// S~ = Omega + S_bar if S_bar >= -cv2 Omega, else
/// Omega + Omega (cv2^2 Omega + cv3 S_bar)/((cv3 - 2 cv2) Omega - S_bar), which stays positive for
/// Omega > 0 where fv2 < 0 would otherwise drive S~ through zero (0 when Omega = 0). Valid for
/// nu~ >= 0.
#[inline]
pub fn modified_vorticity(nu_tilde: f64, nu: f64, vorticity: f64, wall_distance: f64) -> f64 {
    modified_vorticity_and_derivative(nu_tilde, nu, vorticity, wall_distance).0
}

/// SA source terms per unit volume (see [`SaSource`]) for the state of one cell.
///
/// * `rho`: density; `nu`: laminar kinematic viscosity; `nu_tilde`: SA variable (any sign);
/// * `vorticity`: |dv/dx - du/dy| (1/s); `wall_distance`: d > 0 (m);
/// * `grad_nu_tilde`: cell gradient of nu~ for the cb2 term (its derivative wrt the cell's own
///   nu~ is not included in `d_total_d_nu_tilde`).
#[inline]
pub fn sa_source(
    rho: f64,
    nu: f64,
    nu_tilde: f64,
    vorticity: f64,
    wall_distance: f64,
    grad_nu_tilde: [f64; 2],
    options: SaSourceOptions,
) -> SaSource {
    sa_source_coupled(rho, nu, nu_tilde, vorticity, wall_distance, grad_nu_tilde, options, (1.0, 1.0))
}

/// [`sa_source`] with the production multiplied by `coupling.0` and the destruction by
/// `coupling.1` (SA-gamma: `flow::intermittency::sa_coupling` of the cell's intermittency).
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn sa_source_coupled(
    rho: f64,
    nu: f64,
    nu_tilde: f64,
    vorticity: f64,
    wall_distance: f64,
    grad_nu_tilde: [f64; 2],
    options: SaSourceOptions,
    coupling: (f64, f64),
) -> SaSource {
    let nu_tilde_gradient_sq = grad_nu_tilde[0] * grad_nu_tilde[0] + grad_nu_tilde[1] * grad_nu_tilde[1];
    let cb2_term = rho * CB2 / SIGMA * nu_tilde_gradient_sq;
    let d2 = wall_distance * wall_distance;
    let (p, dp, d, dd) = if nu_tilde >= 0.0 {
        positive_production_destruction(nu, nu_tilde, vorticity, wall_distance, options)
    } else {
        // SA-neg (Allmaras et al. 2012): production with ft2 frozen at its chi = 0
        // value ct3 and the vorticity itself, destruction of opposite sign so that negative
        // nu~ decays back towards zero.
        let p = CB1 * (1.0 - CT3) * vorticity * nu_tilde;
        let d = -CW1 * nu_tilde * nu_tilde / d2;
        (p, CB1 * (1.0 - CT3) * vorticity, d, -2.0 * CW1 * nu_tilde / d2)
    };
    let (pf, df) = coupling;
    let production = rho * p * pf;
    let destruction = rho * d * df;
    SaSource {
        production,
        destruction,
        cb2_term,
        total: production - destruction + cb2_term,
        d_total_d_nu_tilde: rho * (dp * pf - dd * df),
    }
}

/// SA-neg diffusion coefficient f_n = (cn1 + chi^3)/(cn1 - chi^3) for nu~ < 0, 1 otherwise.
#[inline]
pub fn diffusion_fn(chi: f64) -> f64 {
    if chi >= 0.0 {
        1.0
    } else {
        let chi3 = chi * chi * chi;
        (CN1 + chi3) / (CN1 - chi3)
    }
}

/// Diffusion coefficient (mu + rho nu~ f_n)/sigma of the SA equation [kg/(m s)].
#[inline]
pub fn sa_diffusion_coefficient(rho: f64, nu: f64, nu_tilde: f64) -> f64 {
    (rho * nu + rho * nu_tilde * diffusion_fn(nu_tilde / nu)) / SIGMA
}

/// Diffusion flux of rho nu~ through a face, integrated over the face (conservative part):
/// (mu + rho nu~ f_n)/sigma grad nu~ . n * face_area, with face-averaged rho, nu, nu~ and the face
/// gradient of nu~. Enters the residual with the same sign as the viscous flux (R -= flux).
#[inline]
pub fn sa_diffusion_flux(
    rho: f64,
    nu: f64,
    nu_tilde: f64,
    grad_nu_tilde: [f64; 2],
    unit_normal: [f64; 2],
    face_area: f64,
) -> f64 {
    sa_diffusion_coefficient(rho, nu, nu_tilde) * (grad_nu_tilde[0] * unit_normal[0] + grad_nu_tilde[1] * unit_normal[1]) * face_area
}

/// First-order upwind convective flux of rho nu~ through a face: the face mass flux
/// (e.g. the density component of the Roe flux, integrated over the face, positive from left
/// to right) times nu~ of the upwind side. Using the mean-flow mass flux keeps a uniform nu~
/// exactly uniform.
#[inline]
pub fn sa_convective_flux(mass_flux: f64, nu_tilde_left: f64, nu_tilde_right: f64) -> f64 {
    if mass_flux >= 0.0 {
        mass_flux * nu_tilde_left
    } else {
        mass_flux * nu_tilde_right
    }
}

/// fv2 = 1 - chi/(1 + chi fv1) and its derivative d fv2/d chi.
#[inline]
fn fv2_and_derivative(chi: f64) -> (f64, f64) {
    let (fv1, dfv1) = fv1_and_derivative(chi);
    let denominator = 1.0 + chi * fv1;
    let fv2 = 1.0 - chi / denominator;
    let dfv2 = -(1.0 - chi * chi * dfv1) / (denominator * denominator);
    (fv2, dfv2)
}

/// S~ (Allmaras et al. 2012) and dS~/dnu~ for nu~ >= 0.
#[inline]
fn modified_vorticity_and_derivative(nu_tilde: f64, nu: f64, vorticity: f64, wall_distance: f64) -> (f64, f64) {
    let kd2 = KAPPA * KAPPA * wall_distance * wall_distance;
    let (fv2, dfv2) = fv2_and_derivative(nu_tilde / nu);
    let s_bar = nu_tilde * fv2 / kd2;
    let ds_bar = (fv2 + nu_tilde * dfv2 / nu) / kd2;
    if s_bar >= -CV2 * vorticity {
        (vorticity + s_bar, ds_bar)
    } else {
        // Limited branch: keeps S~ positive when fv2 < 0 would drive it through zero.
        let numerator = CV2 * CV2 * vorticity + CV3 * s_bar;
        let denominator = (CV3 - 2.0 * CV2) * vorticity - s_bar;
        let s_tilde = vorticity + vorticity * numerator / denominator;
        let ds_tilde = vorticity * (CV3 * denominator + numerator) / (denominator * denominator) * ds_bar;
        (s_tilde, ds_tilde)
    }
}

/// Production P = cb1 (1 - ft2) S~ nu~ and destruction D = (cw1 fw - cb1 ft2/kappa^2)(nu~/d)^2
/// (kinematic, per unit mass) with their nu~-derivatives, for nu~ >= 0.
/// Returns (P, dP/dnu~, D, dD/dnu~).
#[inline]
fn positive_production_destruction(
    nu: f64,
    nu_tilde: f64,
    vorticity: f64,
    wall_distance: f64,
    options: SaSourceOptions,
) -> (f64, f64, f64, f64) {
    let chi = nu_tilde / nu;
    let (ft2, dft2) = if options.with_ft2 {
        let ft2 = CT3 * (-CT4 * chi * chi).exp();
        (ft2, -2.0 * CT4 * chi / nu * ft2)
    } else {
        (0.0, 0.0)
    };
    let (s_tilde, ds_tilde) = modified_vorticity_and_derivative(nu_tilde, nu, vorticity, wall_distance);
    let mut production = CB1 * (1.0 - ft2) * s_tilde * nu_tilde;
    let mut d_production = CB1 * (-dft2 * s_tilde * nu_tilde + (1.0 - ft2) * (ds_tilde * nu_tilde + s_tilde));
    if let Some(onset) = options.bcm_onset {
        // SA-BCM: the production of SA-noft2 times gamma_BC (destruction unchanged).
        let (gamma, d_gamma) = bcm_intermittency(nu, nu_tilde, vorticity, wall_distance, onset);
        d_production = gamma * d_production + d_gamma * production;
        production *= gamma;
    }

    let kd2 = KAPPA * KAPPA * wall_distance * wall_distance;
    // r = nu~/(S~ kappa^2 d^2), capped at 10; S~ = 0 (zero vorticity with fv2 < 0) means the
    // cap: the destruction is then at its largest, which is the safe side.
    let (r, dr) = if s_tilde > 0.0 && nu_tilde / (s_tilde * kd2) < R_LIMIT {
        let r = nu_tilde / (s_tilde * kd2);
        (r, 1.0 / (s_tilde * kd2) - r * ds_tilde / s_tilde)
    } else {
        (R_LIMIT, 0.0)
    };
    let g = r + CW2 * (r.powi(6) - r);
    let dg = (1.0 + CW2 * (6.0 * r.powi(5) - 1.0)) * dr;
    let cw3_6 = CW3.powi(6);
    let g6 = g.powi(6);
    let ratio = ((1.0 + cw3_6) / (g6 + cw3_6)).powf(1.0 / 6.0);
    let fw = g * ratio;
    let dfw = ratio * cw3_6 / (g6 + cw3_6) * dg;

    let d2 = wall_distance * wall_distance;
    let coefficient = CW1 * fw - CB1 / (KAPPA * KAPPA) * ft2;
    let d_coefficient = CW1 * dfw - CB1 / (KAPPA * KAPPA) * dft2;
    let destruction = coefficient * nu_tilde * nu_tilde / d2;
    let d_destruction = d_coefficient * nu_tilde * nu_tilde / d2 + coefficient * 2.0 * nu_tilde / d2;
    (production, d_production, destruction, d_destruction)
}

/// Vorticity magnitude Omega = |dv/dx - du/dy| (1/s) of a 2D velocity field from its gradients,
/// the S of the SA production term.
#[inline]
pub fn vorticity_magnitude(grad_u: [f64; 2], grad_v: [f64; 2]) -> f64 {
    (grad_v[0] - grad_u[1]).abs()
}

/// Derivatives of [`sa_convective_flux`] with respect to nu~ on the left and on the right of
/// the face, at fixed mass flux: `(max(mass_flux, 0), min(mass_flux, 0))`. Divide by the side's
/// density for derivatives with respect to rho nu~ (segregated implicit SA system).
#[inline]
pub fn sa_convective_flux_derivatives(mass_flux: f64) -> (f64, f64) {
    (mass_flux.max(0.0), mass_flux.min(0.0))
}
