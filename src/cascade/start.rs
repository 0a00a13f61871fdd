//! Stage 5: the flow a cold solve starts from.

use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::{BlockSolution, Solution};
use crate::flow::state::conservative_from_primitive;
use super::planes::Planes;
use crate::mesh::Mesh;

/// The usual quasi-one-dimensional start of a cascade run: isentropic flow from the inlet total
/// conditions whose static pressure falls from an inlet value (Mach `inlet_mach`) upstream of
/// the leading edge to the outlet pressure downstream of the trailing edge, linearly in x across
/// the blade row, and whose direction turns from the inlet angle to `exit_angle_deg` alike;
/// nu_tilde is the operating point's free-stream ratio times the local nu.
/// Starting from the exit state everywhere instead throws a near-sonic axial stream at the blade.
pub fn quasi_1d_start(mesh: &Mesh, gas: &Gas, op: &OperatingPoint, planes: &Planes, exit_angle_deg: f64, inlet_mach: f64) -> Solution {
    let g = gas.gamma;
    let p_in = op.p01 * (1.0 + 0.5 * (g - 1.0) * inlet_mach * inlet_mach).powf(-g / (g - 1.0));
    let state_at = |x: f64| {
        let t = ((x - planes.x_le) / planes.axial_chord).clamp(0.0, 1.0);
        let p = p_in + t * (op.p2 - p_in);
        let angle = (op.alpha1_deg + t * (exit_angle_deg - op.alpha1_deg)).to_radians();
        let temp = op.t01 * (p / op.p01).powf((g - 1.0) / g);
        let speed = (2.0 * gas.cp() * (op.t01 - temp)).max(0.0).sqrt();
        conservative_from_primitive(g, &[p / (gas.gas_constant * temp), speed * angle.cos(), speed * angle.sin(), p])
    };
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
            for j in 0..b.nj {
                for i in 0..b.ni {
                    let [xc, _] = b.vertex_centre(i, j);
                    let w = state_at(xc);
                    let c = b.cell(i, j);
                    (s.rho[c], s.rho_u[c], s.rho_v[c], s.rho_e[c]) = (w[0], w[1], w[2], w[3]);
                    // Free-stream turbulence everywhere: nu_tilde = ratio * nu at the local state.
                    let p = (g - 1.0) * (w[3] - 0.5 * (w[1] * w[1] + w[2] * w[2]) / w[0]);
                    s.nu_tilde[c] = op.nu_tilde_ratio * gas.viscosity(p / (w[0] * gas.gas_constant)) / w[0];
                }
            }
            s
        })
        .collect();
    Solution { blocks }
}
