//! Ghost-cell fill: interface exchange through donor tables, then the physical boundaries with
//! characteristic treatment along the boundary-face normal (Blazek sec. 8.2-8.3), then corners.
//! The point physics (wall mirror, inlet and outlet states) is `flow::boundary`.

use rayon::prelude::*;

use super::geometry::{BoundaryCell, CpuGeometry, PhysicalBc};
use super::CpuField;
use crate::backend::{BlockLayout, BoundaryData, INTERMITTENCY, NFLOW, NGHOST, NVAR};
use crate::flow::boundary::{inlet_state, mirrored, outlet_state};
use crate::flow::gas::Gas;
use crate::flow::state::{conservative_from_primitive, primitive_from_conservative};

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
            let (nu_tilde_inner, gamma_inner) = (inner[NFLOW] / inner[0], inner[INTERMITTENCY] / inner[0]);
            // The free stream enters fully turbulent (gamma = 1); an outlet extrapolates both.
            let (qb, nu_tilde, gamma) = if kind == PhysicalBc::Inlet {
                (inlet_state(gas, data, &q, cell.normal), data.inlet_nu_tilde, 1.0)
            } else {
                (outlet_state(gas.gamma, data.p2, &q, cell.normal), nu_tilde_inner, gamma_inner)
            };
            let wb = conservative_from_primitive(gas.gamma, &qb);
            let ghost = [wb[0], wb[1], wb[2], wb[3], wb[0] * nu_tilde, wb[0] * gamma];
            for d in 0..NGHOST {
                write_state(w, np, cell.ghost[d], &ghost);
            }
        }
    }
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
