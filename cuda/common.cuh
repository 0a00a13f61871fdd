// Point-wise flow numerics on the device: line-by-line twins of src/flow/{state,roe,muscl}.rs.
// Keep the operation order identical to the Rust versions so CPU/GPU parity holds to round-off
// (the parity tests compare them on random valid states).
#pragma once

struct Prim { double rho, u, v, p; };
struct Flux { double f[4]; };

__device__ __forceinline__ Prim primitive_from_conservative(double gamma, double w0, double w1, double w2, double w3) {
    Prim q;
    q.rho = w0;
    q.u = w1 / w0;
    q.v = w2 / w0;
    q.p = (gamma - 1.0) * (w3 - 0.5 * w0 * (q.u * q.u + q.v * q.v));
    return q;
}

// H = gamma/(gamma-1) p/rho + |v|^2/2 (flow/state.rs total_enthalpy)
__device__ __forceinline__ double total_enthalpy(double gamma, const Prim& q) {
    return gamma / (gamma - 1.0) * q.p / q.rho + 0.5 * (q.u * q.u + q.v * q.v);
}

// Harten's entropy fix (Harten & Hyman 1983; Blazek p. 90).
__device__ __forceinline__ double harten_fixed_eigenvalue(double lambda, double delta) {
    double a = fabs(lambda);
    if (a > delta || delta <= 0.0) return a;
    return (lambda * lambda + delta * delta) / (2.0 * delta);
}

// Roe flux integrated over the face (thesis eq. 4.9; Blazek 2005 ch. 4, Roe scheme with primitive jumps).
__device__ Flux roe_flux(double gamma, const Prim& l, const Prim& r, double nx, double ny, double area, double entropy_fix) {
    // Roe average
    double sl = sqrt(l.rho), sr = sqrt(r.rho);
    double wl = sl / (sl + sr);
    double wr = 1.0 - wl;
    double u = wl * l.u + wr * r.u;
    double v = wl * l.v + wr * r.v;
    double h = wl * total_enthalpy(gamma, l) + wr * total_enthalpy(gamma, r);
    double c2a = (gamma - 1.0) * (h - 0.5 * (u * u + v * v));
    double c = sqrt(c2a > 0.0 ? c2a : 0.0);
    double rho = sl * sr;
    // eigenvalues with the entropy fix
    double vn = u * nx + v * ny;
    double delta = entropy_fix * (fabs(vn) + c);
    double e0 = harten_fixed_eigenvalue(vn - c, delta);
    double e1 = harten_fixed_eigenvalue(vn, delta);
    double e2 = harten_fixed_eigenvalue(vn + c, delta);
    // dissipation |A_Roe| (W_R - W_L) from the primitive jumps
    double d_rho = r.rho - l.rho, d_u = r.u - l.u, d_v = r.v - l.v, d_p = r.p - l.p;
    double d_vn = d_u * nx + d_v * ny;
    double c2 = c * c;
    double a_minus = e0 * (d_p - rho * c * d_vn) / (2.0 * c2);
    double a_plus = e2 * (d_p + rho * c * d_vn) / (2.0 * c2);
    double entropy = e1 * (d_rho - d_p / c2);
    double shear = e1 * rho;
    double q2_half = 0.5 * (u * u + v * v);
    double diss[4];
    diss[0] = a_minus + entropy + a_plus;
    diss[1] = a_minus * (u - c * nx) + entropy * u + shear * (d_u - d_vn * nx) + a_plus * (u + c * nx);
    diss[2] = a_minus * (v - c * ny) + entropy * v + shear * (d_v - d_vn * ny) + a_plus * (v + c * ny);
    diss[3] = a_minus * (h - c * vn) + entropy * q2_half + shear * (u * d_u + v * d_v - vn * d_vn) + a_plus * (h + c * vn);
    // physical fluxes (thesis eq. 4.2)
    double vnl = l.u * nx + l.v * ny, ml = l.rho * vnl;
    double vnr = r.u * nx + r.v * ny, mr = r.rho * vnr;
    double fl[4] = {ml, ml * l.u + l.p * nx, ml * l.v + l.p * ny, ml * total_enthalpy(gamma, l)};
    double fr[4] = {mr, mr * r.u + r.p * nx, mr * r.v + r.p * ny, mr * total_enthalpy(gamma, r)};
    Flux f;
    for (int k = 0; k < 4; ++k) f.f[k] = 0.5 * (fl[k] + fr[k] - diss[k]) * area;
    return f;
}

// Limited slope of thesis eq. 4.13 with a*b clipped at zero (flow/muscl.rs limited_slope).
__device__ __forceinline__ double limited_slope(double a, double b, double eps) {
    double den = a * a + b * b + 2.0 * eps;
    if (den > 0.0) {
        double ab = a * b;
        return (a + b) * ((ab > 0.0 ? ab : 0.0) + eps) / den;
    }
    return 0.0;
}

__device__ __forceinline__ double comp(const Prim& q, int k) {
    return k == 0 ? q.rho : (k == 1 ? q.u : (k == 2 ? q.v : q.p));
}
__device__ __forceinline__ void set_comp(Prim& q, int k, double x) {
    if (k == 0) q.rho = x; else if (k == 1) q.u = x; else if (k == 2) q.v = x; else q.p = x;
}

// MUSCL kappa = 0 face states with the positivity guard (flow/muscl.rs muscl_primitive_face_states).
__device__ void muscl_primitive_face_states(const Prim& qm1, const Prim& q0, const Prim& qp1, const Prim& qp2,
                                            const double* eps, int second_order, Prim& left, Prim& right) {
    left = q0;
    right = qp1;
    if (!second_order) return;
    for (int k = 0; k < 4; ++k) {
        double a = comp(q0, k) - comp(qm1, k);
        double b = comp(qp1, k) - comp(q0, k);
        double c = comp(qp2, k) - comp(qp1, k);
        set_comp(left, k, comp(q0, k) + 0.5 * limited_slope(a, b, eps[k]));
        set_comp(right, k, comp(qp1, k) - 0.5 * limited_slope(b, c, eps[k]));
    }
    if (!(left.rho > 0.0 && left.p > 0.0 && right.rho > 0.0 && right.p > 0.0)) {
        left = q0;
        right = qp1;
    }
}

// Gas model (flow/gas.rs), passed by value to the kernels that need viscosities (GasArgs in
// src/backend/gpu/mod.rs).
struct GasArgs { double gas_constant, gamma, prandtl, turbulent_prandtl, mu_ref, t_ref, sutherland_s; };

__device__ __forceinline__ double gas_cp(const GasArgs& g) { return g.gamma * g.gas_constant / (g.gamma - 1.0); }

// Sutherland's law (Gas::viscosity).
__device__ __forceinline__ double gas_viscosity(const GasArgs& g, double t) {
    return g.mu_ref * pow(t / g.t_ref, 1.5) * (g.t_ref + g.sutherland_s) / (t + g.sutherland_s);
}

// SA fv1 and eddy viscosity (flow/sa.rs fv1, eddy_viscosity): mu_t = rho nu~ fv1 for nu~ > 0, else 0.
#define SA_CV1 7.1
__device__ __forceinline__ double sa_fv1(double chi) {
    double chi3 = chi * chi * chi;
    return chi3 / (chi3 + SA_CV1 * SA_CV1 * SA_CV1);
}
__device__ __forceinline__ double eddy_viscosity(double rho, double nu_tilde, double nu) {
    return nu_tilde > 0.0 ? rho * nu_tilde * sa_fv1(nu_tilde / nu) : 0.0;
}

// c = sqrt(gamma p / rho) (flow/state.rs speed_of_sound).
__device__ __forceinline__ double speed_of_sound(double gamma, const Prim& q) { return sqrt(gamma * q.p / q.rho); }

// Lambda_v = max(4/(3 rho), gamma/rho) (mu/Pr + mu_t/Pr_t) |S|^2 / Omega
// (flow/spectral.rs viscous_spectral_radius; fmax returns the non-NaN argument as f64::max).
__device__ __forceinline__ double viscous_spectral_radius(const GasArgs& gas, double rho, double mu_laminar, double mu_turbulent,
                                                          double sx, double sy, double volume) {
    double area_sq = sx * sx + sy * sy;
    double diffusivity = fmax(4.0 / (3.0 * rho), gas.gamma / rho) * (mu_laminar / gas.prandtl + mu_turbulent / gas.turbulent_prandtl);
    return diffusivity * area_sq / volume;
}
