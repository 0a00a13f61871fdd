//! Running a cascade: the planes its performance is measured on and the initial flow field a
//! solve starts from.

use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::{BlockSolution, Solution};
use crate::flow::state::conservative_from_primitive;
use crate::geometry::Outline;
use crate::mesh::Mesh;

/// Axial position of the exit measurement plane of the LS89 experiments, in axial chords
/// downstream of the leading edge (where the exit isentropic Mach number is reported).
pub const EXIT_PLANE_AXIAL_CHORDS: f64 = 1.433;

/// Where a cascade is cut for its performance figures.
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    pub x_inlet: f64,
    pub x_outlet: f64,
    pub x_exit_measurement: f64,
    pub x_le: f64,
    pub x_te: f64,
    pub axial_chord: f64,
}

/// Inlet/outlet planes just inside the domain (a cut on the boundary line would run along cell
/// edges) and the exit measurement plane.
pub fn cascade_planes(mesh: &Mesh, outline: &Outline) -> Planes {
    let ([x_le, x_te], _) = outline.bounding_box();
    let axial_chord = x_te - x_le;
    let (mut x0, mut x1) = (f64::INFINITY, f64::NEG_INFINITY);
    for &x in mesh.blocks.iter().flat_map(|b| b.x.iter()) {
        x0 = x0.min(x);
        x1 = x1.max(x);
    }
    let inset = 0.01 * axial_chord;
    Planes {
        x_inlet: x0 + inset,
        x_outlet: x1 - inset,
        x_exit_measurement: x_le + EXIT_PLANE_AXIAL_CHORDS * axial_chord,
        x_le,
        x_te,
        axial_chord,
    }
}

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
            let mut s = BlockSolution { ni: b.ni, nj: b.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n] };
            for j in 0..b.nj {
                for i in 0..b.ni {
                    let xc = 0.25 * (b.x[b.node(i, j)] + b.x[b.node(i + 1, j)] + b.x[b.node(i, j + 1)] + b.x[b.node(i + 1, j + 1)]);
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
