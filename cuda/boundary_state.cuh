// Characteristic inlet and outlet states on the device: line-by-line twins of
// src/flow/boundary.rs. Shared by the ghost fill (boundary.cu) and the chain rule of the
// implicit Jacobian at inlets and outlets (jacobian.cu).
#pragma once

// BoundaryData (flow/boundary.rs) as the kernels take it.
struct BoundaryArgs { double p01, t01, inlet_direction[2], p2, inlet_nu_tilde; int no_slip_walls, pad; };

// flow/state.rs conservative_from_primitive: rho E = p/(gamma - 1) + rho |v|^2 / 2.
__device__ __forceinline__ void conservative_from_primitive(double gamma, const Prim& q, double* w) {
    w[0] = q.rho;
    w[1] = q.rho * q.u;
    w[2] = q.rho * q.v;
    w[3] = q.p / (gamma - 1.0) + 0.5 * q.rho * (q.u * q.u + q.v * q.v);
}

// The state at static temperature t with the inlet's P0, T0 and direction (the closure
// total_temperature_state of flow/boundary.rs inlet_state).
__device__ Prim total_temperature_state(const GasArgs& gas, const BoundaryArgs& bc, double t) {
    double gamma = gas.gamma;
    double gm1 = gamma - 1.0;
    double p = bc.p01 * pow(t / bc.t01, gamma / gm1);
    double speed = sqrt(fmax(2.0 * gas_cp(gas) * (bc.t01 - t), 0.0));
    Prim s;
    s.rho = p / (gas.gas_constant * t);
    s.u = speed * bc.inlet_direction[0];
    s.v = speed * bc.inlet_direction[1];
    s.p = p;
    return s;
}

// flow/boundary.rs inlet_state: subsonic P0, T0, direction + R+ from the interior (quadratic in
// c, larger root); supersonic P0, T0, direction + interior static pressure (capped at P0).
__device__ Prim inlet_state(const GasArgs& gas, const BoundaryArgs& bc, const Prim& q, double nx, double ny) {
    double gamma = gas.gamma, r_gas = gas.gas_constant;
    double gm1 = gamma - 1.0;
    double dn = fmin(bc.inlet_direction[0] * nx + bc.inlet_direction[1] * ny, -1e-6);
    double c_inner = sqrt(gamma * q.p / q.rho);
    double vn_inner = q.u * nx + q.v * ny;
    if (-vn_inner > c_inner) {
        double p = fmin(q.p, bc.p01);
        return total_temperature_state(gas, bc, bc.t01 * pow(p / bc.p01, gm1 / gamma));
    }
    double r_plus = vn_inner + 2.0 * c_inner / gm1;
    double c0_sq = gamma * r_gas * bc.t01;
    double dn2 = dn * dn;
    double a = 1.0 + 2.0 / (gm1 * dn2);
    double b = -2.0 * r_plus / dn2;
    double c = gm1 * r_plus * r_plus / (2.0 * dn2) - c0_sq;
    double c_b = (-b + sqrt(fmax(b * b - 4.0 * a * c, 0.0))) / (2.0 * a);
    double t = fmin(c_b * c_b / (gamma * r_gas), bc.t01);
    return total_temperature_state(gas, bc, t);
}

// flow/boundary.rs outlet_state: subsonic normal Mach p2 imposed, entropy, tangential velocity
// and R+ extrapolated; supersonic (V.n >= c) the interior state.
__device__ Prim outlet_state(double gamma, double p2, const Prim& q, double nx, double ny) {
    double c_inner = sqrt(gamma * q.p / q.rho);
    double vn = q.u * nx + q.v * ny;
    if (vn >= c_inner) return q;
    double rho = q.rho * pow(p2 / q.p, 1.0 / gamma);
    double c_b = sqrt(gamma * p2 / rho);
    double vn_b = vn + 2.0 * (c_inner - c_b) / (gamma - 1.0);
    double dvn = vn_b - vn;
    Prim s;
    s.rho = rho;
    s.u = q.u + dvn * nx;
    s.v = q.v + dvn * ny;
    s.p = p2;
    return s;
}

