// Menter's one-equation intermittency model coupled to SA-noft2: line-by-line twins of the
// point functions of src/flow/intermittency.rs (constants and equations there).
#pragma once

#define GAMMA_F_LENGTH 100.0
#define GAMMA_CA2 0.06
#define GAMMA_CE2 50.0
#define GAMMA_SIGMA 1.0
#define GAMMA_ONSET_RATIO 2.2
#define GAMMA_MIN_DESTRUCTION_FACTOR 0.1

struct IntermittencySource { double production, destruction, total, d_total_d_gamma; };

// pressure_gradient_parameter: lambda_theta_L, clipped to [-1, 1].
__device__ __forceinline__ double pressure_gradient_parameter(double dv_dy, double wall_distance, double nu) {
    return fmin(fmax(-7.57e-3 * dv_dy * wall_distance * wall_distance / nu + 0.0128, -1.0), 1.0);
}

// pressure_gradient_function: F_PG (C_PG1 14.68 up to 1.5, C_PG2 -7.34 up to 3, C_PG3 0).
__device__ __forceinline__ double pressure_gradient_function(double lambda) {
    double f = lambda >= 0.0 ? fmin(1.0 + 14.68 * lambda, 1.5) : fmin(1.0 + -7.34 * lambda + 0.0 * fmin(lambda + 0.0681, 0.0), 3.0);
    return fmax(f, 0.0);
}

// onset_reynolds: Re_theta_c = C_TU1 + C_TU2 exp(-C_TU3 Tu[%] F_PG).
__device__ __forceinline__ double onset_reynolds(double tu, double lambda) {
    double tu_percent = fmin(100.0 * tu, 100.0);
    return 100.0 + 1000.0 * exp(-1.0 * tu_percent * pressure_gradient_function(lambda));
}

// intermittency_source: P_gamma - E_gamma per unit volume and its gamma-derivative.
__device__ IntermittencySource intermittency_source(double gamma, double rho, double mu, double mu_t, double strain_rate, double vorticity,
                                                   double wall_distance, double dv_dy, double tu) {
    double re_v = rho * wall_distance * wall_distance * strain_rate / mu;
    double lambda = pressure_gradient_parameter(dv_dy, wall_distance, mu / rho);
    double re_theta_c = onset_reynolds(tu, lambda);
    double r_t = mu_t / mu;
    double onset2 = fmin(re_v / (GAMMA_ONSET_RATIO * re_theta_c), 2.0);
    double x = r_t / 3.5;
    double onset3 = fmax(1.0 - (x * x) * x, 0.0);
    double onset = fmax(onset2 - onset3, 0.0);
    double y = r_t / 2.0;
    double y2 = y * y;
    double turb = exp(-(y2 * y2));
    double p_rate = GAMMA_F_LENGTH * rho * strain_rate * onset;
    double e_rate = GAMMA_CA2 * rho * vorticity * turb;
    IntermittencySource s;
    s.production = p_rate * gamma * (1.0 - gamma);
    s.destruction = e_rate * gamma * (GAMMA_CE2 * gamma - 1.0);
    s.total = s.production - s.destruction;
    s.d_total_d_gamma = p_rate * (1.0 - 2.0 * gamma) - e_rate * (2.0 * GAMMA_CE2 * gamma - 1.0);
    return s;
}
