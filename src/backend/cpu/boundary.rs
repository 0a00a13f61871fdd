//! Ghost-cell fill: interface exchange through donor tables, then the physical boundaries with
//! characteristic treatment along the boundary-face normal (Blazek sec. 8.2-8.3), then corners.

use rayon::prelude::*;

use super::geometry::{BoundaryCell, CpuGeometry, PhysicalBc};
use super::CpuField;
use crate::backend::{BlockLayout, BoundaryData, NFLOW, NGHOST, NVAR};
use crate::flow::gas::Gas;
use crate::flow::state::{conservative_from_primitive, primitive_from_conservative, Primitive};

pub(super) fn apply(g: &CpuGeometry, gas: &Gas, data: &BoundaryData, w: &mut CpuField) {
    exchange_interfaces(g, w);
    w.blocks.par_iter_mut().zip(&g.blocks).for_each(|(wb, bg)| {
        let np = bg.layout.n_padded();
        for patch in &bg.boundaries {
            for cell in &patch.cells {
                fill_boundary_cell(patch.kind, cell, gas, data, wb, np);
            }
        }
        fill_corners(bg.layout, wb);
    });
}

/// Lookup-table exchange (thesis 4.2.4): gather every donor value first (reads only), then
/// scatter into the ghosts, so blocks may donate to each other and to themselves.
fn exchange_interfaces(g: &CpuGeometry, w: &mut CpuField) {
    let gathered: Vec<Vec<[f64; NVAR]>> = g
        .blocks
        .par_iter()
        .map(|bg| {
            bg.donors
                .iter()
                .map(|d| {
                    let src = &w.blocks[d.donor_block];
                    let np = g.blocks[d.donor_block].layout.n_padded();
                    std::array::from_fn(|v| src[v * np + d.donor])
                })
                .collect()
        })
        .collect();
    w.blocks.par_iter_mut().zip(&g.blocks).zip(&gathered).for_each(|((wb, bg), values)| {
        let np = bg.layout.n_padded();
        for (d, value) in bg.donors.iter().zip(values) {
            for (v, x) in value.iter().enumerate() {
                wb[v * np + d.ghost] = *x;
            }
        }
    });
}

fn read_state(w: &[f64], np: usize, p: usize) -> [f64; NVAR] {
    std::array::from_fn(|v| w[v * np + p])
}

fn write_state(w: &mut [f64], np: usize, p: usize, state: &[f64; NVAR]) {
    for (v, x) in state.iter().enumerate() {
        w[v * np + p] = *x;
    }
}

fn fill_boundary_cell(kind: PhysicalBc, cell: &BoundaryCell, gas: &Gas, data: &BoundaryData, w: &mut [f64], np: usize) {
    match kind {
        PhysicalBc::Wall | PhysicalBc::SlipWall => {
            // Mirror images: ghost at depth d reflects interior cell at depth d.
            for d in 0..NGHOST {
                let inner = read_state(w, np, cell.interior[d]);
                let ghost = mirrored(&inner, cell.normal, kind == PhysicalBc::Wall && data.no_slip_walls);
                write_state(w, np, cell.ghost[d], &ghost);
            }
        }
        PhysicalBc::Inlet | PhysicalBc::Outlet => {
            let inner = read_state(w, np, cell.interior[0]);
            let q = primitive_from_conservative(gas.gamma, &[inner[0], inner[1], inner[2], inner[3]]);
            let nu_tilde_inner = inner[NFLOW] / inner[0];
            let (qb, nu_tilde) = if kind == PhysicalBc::Inlet {
                (inlet_state(gas, data, &q, cell.normal), data.inlet_nu_tilde)
            } else {
                (outlet_state(gas.gamma, data.p2, &q, cell.normal), nu_tilde_inner)
            };
            let wb = conservative_from_primitive(gas.gamma, &qb);
            let ghost = [wb[0], wb[1], wb[2], wb[3], wb[0] * nu_tilde];
            for d in 0..NGHOST {
                write_state(w, np, cell.ghost[d], &ghost);
            }
        }
    }
}

/// Mirror state: slip walls reflect the normal velocity (V - 2 (V.n) n), no-slip walls reverse
/// the whole velocity and nu_tilde so that both vanish on the wall face.
fn mirrored(w: &[f64; NVAR], n: [f64; 2], no_slip: bool) -> [f64; NVAR] {
    if no_slip {
        [w[0], -w[1], -w[2], w[3], -w[4]]
    } else {
        let mn = w[1] * n[0] + w[2] * n[1];
        [w[0], w[1] - 2.0 * mn * n[0], w[2] - 2.0 * mn * n[1], w[3], w[4]]
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
fn inlet_state(gas: &Gas, data: &BoundaryData, q: &Primitive, n: [f64; 2]) -> Primitive {
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
fn outlet_state(gamma: f64, p2: f64, q: &Primitive, n: [f64; 2]) -> Primitive {
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

/// Corner ghosts (outside in both i and j) are not read by the line stencils of the convective
/// flux; they get the value of the i-ghost of the nearest interior row so that every ghost holds
/// a physical state.
fn fill_corners(l: BlockLayout, w: &mut [f64]) {
    let np = l.n_padded();
    let (ni, nj, ng) = (l.ni as isize, l.nj as isize, NGHOST as isize);
    for j in (-ng..0).chain(nj..nj + ng) {
        let j_src = j.clamp(0, nj - 1);
        for i in (-ng..0).chain(ni..ni + ng) {
            let (dst, src) = (l.idx(i, j), l.idx(i, j_src));
            for v in 0..NVAR {
                w[v * np + dst] = w[v * np + src];
            }
        }
    }
}
