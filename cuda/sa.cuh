// Spalart-Allmaras point functions on the device: line-by-line twins of src/flow/sa.rs (same
// operation order, parity to round-off). Shared by the viscous residual (viscous.cu) and the
// segregated SA Jacobian (jacobian.cu).
#pragma once

#define SA_CB1 0.1355
#define SA_SIGMA (2.0 / 3.0)
#define SA_CB2 0.622
#define SA_KAPPA 0.41
#define SA_CW1 (SA_CB1 / (SA_KAPPA * SA_KAPPA) + (1.0 + SA_CB2) / SA_SIGMA)
#define SA_CW2 0.3
#define SA_CW3 2.0
#define SA_CV2 0.7
#define SA_CV3 0.9
#define SA_CT3 1.2
#define SA_CT4 0.5
#define SA_CN1 16.0
#define SA_R_LIMIT 10.0
#define BCM_CHI1 0.002
#define BCM_CHI2 50.0
#define BCM_RE_V_PER_RE_THETA 2.193

struct SaSource { double production, destruction, cb2_term, total, d_total_d_nu_tilde; };

// x^6 and x^5 as Rust's powi evaluates them (binary powering: x^2 * x^4 and x * x^4).
__device__ __forceinline__ double powi6(double x) { double x2 = x * x; return x2 * (x2 * x2); }
__device__ __forceinline__ double powi5(double x) { double x2 = x * x; return x * (x2 * x2); }

// SA-neg diffusion coefficient f_n (diffusion_fn).
__device__ __forceinline__ double diffusion_fn(double chi) {
    if (chi >= 0.0) return 1.0;
    double chi3 = chi * chi * chi;
    return (SA_CN1 + chi3) / (SA_CN1 - chi3);
}

// (mu + rho nu~ f_n)/sigma grad nu~ . n * area (sa_diffusion_coefficient, sa_diffusion_flux).
__device__ __forceinline__ double sa_diffusion_flux(double rho, double nu, double nu_tilde, const double* grad_nu_tilde,
                                                    double nx, double ny, double area) {
    double coefficient = (rho * nu + rho * nu_tilde * diffusion_fn(nu_tilde / nu)) / SA_SIGMA;
    return coefficient * (grad_nu_tilde[0] * nx + grad_nu_tilde[1] * ny) * area;
}

// fv1 and d fv1/d chi (fv1_and_derivative).
__device__ __forceinline__ void fv1_and_derivative(double chi, double& fv1, double& dfv1) {
    double c3 = SA_CV1 * SA_CV1 * SA_CV1;
    double chi3 = chi * chi * chi;
    fv1 = chi3 / (chi3 + c3);
    dfv1 = 3.0 * chi * chi * c3 / ((chi3 + c3) * (chi3 + c3));
}

// SA-BCM intermittency gamma_BC and d gamma/d nu~ (bcm_intermittency); onset = Re_theta_c.
__device__ __forceinline__ void bcm_intermittency(double nu, double nu_tilde, double vorticity, double wall_distance, double onset,
                                                  double& gamma, double& d_gamma) {
    double re_theta = wall_distance * wall_distance * vorticity / nu / BCM_RE_V_PER_RE_THETA;
    double term1 = sqrt(fmax(re_theta - onset, 0.0) / (BCM_CHI1 * onset));
    double chi = nu_tilde / nu;
    double term2 = 0.0, d_term2 = 0.0;
    if (chi > 0.0) {
        double f, df;
        fv1_and_derivative(chi, f, df);
        term2 = sqrt(BCM_CHI2 * chi * f);
        d_term2 = term2 > 0.0 ? BCM_CHI2 * (f + chi * df) / (2.0 * term2 * nu) : 0.0;
    }
    double e = exp(-(term1 + term2));
    gamma = 1.0 - e;
    d_gamma = e * d_term2;
}

// fv2 = 1 - chi/(1 + chi fv1) and d fv2/d chi (fv2_and_derivative).
__device__ __forceinline__ void fv2_and_derivative(double chi, double& fv2, double& dfv2) {
    double fv1, dfv1;
    fv1_and_derivative(chi, fv1, dfv1);
    double denominator = 1.0 + chi * fv1;
    fv2 = 1.0 - chi / denominator;
    dfv2 = -(1.0 - chi * chi * dfv1) / (denominator * denominator);
}

// S~ of Allmaras et al. (2012) with its limited branch, and dS~/dnu~, for nu~ >= 0
// (modified_vorticity_and_derivative).
__device__ __forceinline__ void modified_vorticity_and_derivative(double nu_tilde, double nu, double vorticity, double wall_distance,
                                                                  double& s_tilde, double& ds_tilde) {
    double kd2 = SA_KAPPA * SA_KAPPA * wall_distance * wall_distance;
    double fv2, dfv2;
    fv2_and_derivative(nu_tilde / nu, fv2, dfv2);
    double s_bar = nu_tilde * fv2 / kd2;
    double ds_bar = (fv2 + nu_tilde * dfv2 / nu) / kd2;
    if (s_bar >= -SA_CV2 * vorticity) {
        s_tilde = vorticity + s_bar;
        ds_tilde = ds_bar;
    } else {
        double numerator = SA_CV2 * SA_CV2 * vorticity + SA_CV3 * s_bar;
        double denominator = (SA_CV3 - 2.0 * SA_CV2) * vorticity - s_bar;
        s_tilde = vorticity + vorticity * numerator / denominator;
        ds_tilde = vorticity * (SA_CV3 * denominator + numerator) / (denominator * denominator) * ds_bar;
    }
}

// Production and destruction per unit mass with their nu~-derivatives, nu~ >= 0
// (positive_production_destruction): ft2 optional, r capped at 10, SA-BCM's intermittency on
// the production when bcm_onset > 0.
__device__ void positive_production_destruction(double nu, double nu_tilde, double vorticity, double wall_distance, int with_ft2,
                                                double bcm_onset,
                                                double& production, double& d_production, double& destruction, double& d_destruction) {
    double chi = nu_tilde / nu;
    double ft2 = 0.0, dft2 = 0.0;
    if (with_ft2) {
        ft2 = SA_CT3 * exp(-SA_CT4 * chi * chi);
        dft2 = -2.0 * SA_CT4 * chi / nu * ft2;
    }
    double s_tilde, ds_tilde;
    modified_vorticity_and_derivative(nu_tilde, nu, vorticity, wall_distance, s_tilde, ds_tilde);
    production = SA_CB1 * (1.0 - ft2) * s_tilde * nu_tilde;
    d_production = SA_CB1 * (-dft2 * s_tilde * nu_tilde + (1.0 - ft2) * (ds_tilde * nu_tilde + s_tilde));
    if (bcm_onset > 0.0) {
        double gamma, d_gamma;
        bcm_intermittency(nu, nu_tilde, vorticity, wall_distance, bcm_onset, gamma, d_gamma);
        d_production = gamma * d_production + d_gamma * production;
        production *= gamma;
    }

    double kd2 = SA_KAPPA * SA_KAPPA * wall_distance * wall_distance;
    // r = nu~/(S~ kappa^2 d^2), capped; S~ = 0 means the cap (largest destruction).
    double r, dr;
    if (s_tilde > 0.0 && nu_tilde / (s_tilde * kd2) < SA_R_LIMIT) {
        r = nu_tilde / (s_tilde * kd2);
        dr = 1.0 / (s_tilde * kd2) - r * ds_tilde / s_tilde;
    } else {
        r = SA_R_LIMIT;
        dr = 0.0;
    }
    double g = r + SA_CW2 * (powi6(r) - r);
    double dg = (1.0 + SA_CW2 * (6.0 * powi5(r) - 1.0)) * dr;
    double cw3_6 = powi6(SA_CW3);
    double g6 = powi6(g);
    double ratio = pow((1.0 + cw3_6) / (g6 + cw3_6), 1.0 / 6.0);
    double fw = g * ratio;
    double dfw = ratio * cw3_6 / (g6 + cw3_6) * dg;

    double d2 = wall_distance * wall_distance;
    double coefficient = SA_CW1 * fw - SA_CB1 / (SA_KAPPA * SA_KAPPA) * ft2;
    double d_coefficient = SA_CW1 * dfw - SA_CB1 / (SA_KAPPA * SA_KAPPA) * dft2;
    destruction = coefficient * nu_tilde * nu_tilde / d2;
    d_destruction = d_coefficient * nu_tilde * nu_tilde / d2 + coefficient * 2.0 * nu_tilde / d2;
}

// SA source terms per unit volume of one cell (sa_source_coupled): the standard model for
// nu~ >= 0, SA-neg (Allmaras et al. 2012) for nu~ < 0, production and destruction times the
// SA-gamma coupling factors (1 and 1 for the other models).
__device__ SaSource sa_source(double rho, double nu, double nu_tilde, double vorticity, double wall_distance,
                              const double* grad_nu_tilde, int with_ft2, double bcm_onset, double production_factor,
                              double destruction_factor) {
    double nu_tilde_gradient_sq = grad_nu_tilde[0] * grad_nu_tilde[0] + grad_nu_tilde[1] * grad_nu_tilde[1];
    double cb2_term = rho * SA_CB2 / SA_SIGMA * nu_tilde_gradient_sq;
    double d2 = wall_distance * wall_distance;
    double p, dp, d, dd;
    if (nu_tilde >= 0.0) {
        positive_production_destruction(nu, nu_tilde, vorticity, wall_distance, with_ft2, bcm_onset, p, dp, d, dd);
    } else {
        p = SA_CB1 * (1.0 - SA_CT3) * vorticity * nu_tilde;
        d = -SA_CW1 * nu_tilde * nu_tilde / d2;
        dp = SA_CB1 * (1.0 - SA_CT3) * vorticity;
        dd = -2.0 * SA_CW1 * nu_tilde / d2;
    }
    SaSource s;
    s.production = rho * p * production_factor;
    s.destruction = rho * d * destruction_factor;
    s.cb2_term = cb2_term;
    s.total = s.production - s.destruction + cb2_term;
    s.d_total_d_nu_tilde = rho * (dp * production_factor - dd * destruction_factor);
    return s;
}


// (mu + rho nu~ f_n)/sigma (sa_diffusion_coefficient).
__device__ __forceinline__ double sa_diffusion_coefficient(double rho, double nu, double nu_tilde) {
    return (rho * nu + rho * nu_tilde * diffusion_fn(nu_tilde / nu)) / SA_SIGMA;
}
