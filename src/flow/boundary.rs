//! Point physics of the physical boundary conditions: the ghost state of a wall (mirror image of
//! the interior cell) and the characteristic boundary states of an inlet and an outlet along the
//! boundary-face normal (Blazek 2005, sec. 8.2-8.3).
//!
//! Every backend fills its ghost cells with these functions: the CPU backend calls them, the
//! CUDA kernels of `cuda/boundary.cu` repeat them operation by operation, and the CPU/GPU parity
//! tests keep the two equal. `n` is always the outward unit normal of the boundary face.

use serde::{Deserialize, Serialize};

use super::gas::Gas;
use super::state::Primitive;

/// Conservative state with the transported turbulence variables: `[rho, rho u, rho v, rho E,
/// rho nu~, rho gamma]`.
pub type ConservativeSa = [f64; 6];

/// What the inlet and outlet boundaries impose, in the solver's terms.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundaryData {
    /// Inlet total pressure \[Pa\].
    pub p01: f64,
    /// Inlet total temperature \[K\].
    pub t01: f64,
    /// Inlet flow direction (unit vector in the x-y plane).
    pub inlet_direction: [f64; 2],
    /// Outlet static pressure \[Pa\].
    pub p2: f64,
    /// Inlet nu_tilde [m^2/s] (SA runs; zero otherwise).
    pub inlet_nu_tilde: f64,
    /// No-slip ghosts at `Wall` patches (viscous runs); `false` mirrors them as slip walls, so
    /// that an inviscid run sees no velocity jump across the wall in the MUSCL stencils.
    pub no_slip_walls: bool,
}

/// Mirror state of the conservative state `w` across a wall with unit normal `n`: slip walls
/// reflect the normal velocity (V - 2 (V.n) n), no-slip walls reverse the whole velocity and
/// nu_tilde so that both vanish on the wall face (the mean of `w` and its image). The
/// intermittency has a zero normal gradient at any wall (Menter et al. 2015): its image is a copy.
pub fn mirrored(w: &ConservativeSa, n: [f64; 2], no_slip: bool) -> ConservativeSa {
    if no_slip {
        [w[0], -w[1], -w[2], w[3], -w[4], w[5]]
    } else {
        let mn = w[1] * n[0] + w[2] * n[1];
        [w[0], w[1] - 2.0 * mn * n[0], w[2] - 2.0 * mn * n[1], w[3], w[4], w[5]]
    }
}

/// Boundary state at an inlet with outward unit normal `n`, from the interior state `q`.
///
/// Subsonic (normal Mach below one): total pressure, total temperature and flow direction are
/// imposed, and the outgoing Riemann invariant R+ = V.n + 2c/(gamma-1) is taken from the
/// interior. With V = |V| d and c^2 + (gamma-1)/2 |V|^2 = c0^2 this gives a quadratic in c
/// whose larger root is the boundary speed of sound (Blazek sec. 8.3.1).
///
/// Supersonic inflow (normal Mach above one): every characteristic enters; P0, T0 and the
/// direction are imposed and the static pressure is kept from the interior, so that the
/// boundary Mach number follows the flow (the operating point has no inlet Mach number).
pub fn inlet_state(gas: &Gas, data: &BoundaryData, q: &Primitive, n: [f64; 2]) -> Primitive {
    let (gamma, r_gas) = (gas.gamma, gas.gas_constant);
    let gm1 = gamma - 1.0;
    let d = data.inlet_direction;
    // The imposed direction must enter the domain; a direction tangent to the face has no
    // well-posed inflow, so keep a minimal inward component.
    let dn = (d[0] * n[0] + d[1] * n[1]).min(-1e-6);
    let c_inner = (gamma * q[3] / q[0]).sqrt();
    let vn_inner = q[1] * n[0] + q[2] * n[1];
    let total_temperature_state = |t: f64| -> Primitive {
        let p = data.p01 * (t / data.t01).powf(gamma / gm1);
        let speed = (2.0 * gas.cp() * (data.t01 - t)).max(0.0).sqrt();
        [p / (r_gas * t), speed * d[0], speed * d[1], p]
    };
    if -vn_inner > c_inner {
        let p = q[3].min(data.p01);
        return total_temperature_state(data.t01 * (p / data.p01).powf(gm1 / gamma));
    }
    let r_plus = vn_inner + 2.0 * c_inner / gm1;
    let c0_sq = gamma * r_gas * data.t01;
    let dn2 = dn * dn;
    let a = 1.0 + 2.0 / (gm1 * dn2);
    let b = -2.0 * r_plus / dn2;
    let c = gm1 * r_plus * r_plus / (2.0 * dn2) - c0_sq;
    let c_b = (-b + (b * b - 4.0 * a * c).max(0.0).sqrt()) / (2.0 * a);
    let t = (c_b * c_b / (gamma * r_gas)).min(data.t01);
    total_temperature_state(t)
}

/// Boundary state at an outlet with outward unit normal `n`. Subsonic normal Mach number: the
/// static pressure p2 is imposed on the incoming characteristic; entropy, tangential velocity
/// and the outgoing Riemann invariant R+ = V.n + 2c/(gamma-1) are extrapolated. Supersonic
/// normal Mach number (V.n >= c): every characteristic leaves, all variables are extrapolated.
/// The switch uses the normal Mach number, not the total one: turbine exits with high
/// tangential velocity stay subsonic along the normal.
pub fn outlet_state(gamma: f64, p2: f64, q: &Primitive, n: [f64; 2]) -> Primitive {
    let c_inner = (gamma * q[3] / q[0]).sqrt();
    let vn = q[1] * n[0] + q[2] * n[1];
    if vn >= c_inner {
        return *q;
    }
    let rho = q[0] * (p2 / q[3]).powf(1.0 / gamma);
    let c_b = (gamma * p2 / rho).sqrt();
    let vn_b = vn + 2.0 * (c_inner - c_b) / (gamma - 1.0);
    let dvn = vn_b - vn;
    [rho, q[1] + dvn * n[0], q[2] + dvn * n[1], p2]
}
