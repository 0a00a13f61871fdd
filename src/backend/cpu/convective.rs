//! Convective residual of one block: primitives, face fluxes along i and j, gather per cell.
//!
//! Face-based and gather-based like a GPU kernel pair (thesis 4.2.1): one pass computes every
//! face flux once, a second pass sums the fluxes of each cell, so no two threads write the same
//! residual entry.

use rayon::prelude::*;

use super::rows_per_task;

use super::geometry::BlockGeometry;
use crate::backend::{ConvectiveScheme, Reconstruction, INTERMITTENCY, NFLOW, NGHOST, NVAR};
use crate::flow::muscl::muscl_primitive_face_states;
use crate::flow::roe::{roe_flux, wall_flux};
use crate::flow::sa::sa_convective_flux;
use crate::flow::state::{primitive_from_conservative, Primitive};

/// `r = sum over the faces of each cell of F_c . S_out` for one block: mean-flow variables, and
/// the upwind convection of rho nu_tilde in the SA slot (zero unless `scheme.convect_nu_tilde`)
/// and of rho gamma in the intermittency slot (zero unless `scheme.convect_intermittency`).
/// `w` needs filled ghosts.
pub(super) fn block_residual(bg: &BlockGeometry, gamma_gas: f64, scheme: &ConvectiveScheme, w: &[f64], r: &mut [f64]) {
    let l = bg.layout;
    let (ni, nj, np, stride) = (l.ni, l.nj, l.n_padded(), l.stride());

    let mut q = vec![[0.0; 4]; np];
    q.par_chunks_mut(stride).enumerate().with_min_len(rows_per_task(stride)).for_each(|(jp, row)| {
        for (ip, qc) in row.iter_mut().enumerate() {
            let p = ip + stride * jp;
            *qc = primitive_from_conservative(gamma_gas, &[w[p], w[np + p], w[2 * np + p], w[3 * np + p]]);
        }
    });

    // nu_tilde and gamma for the first-order upwind convection of the scalars.
    let specific = |on: bool, slot: usize| -> Vec<f64> { if on { (0..np).map(|p| w[slot * np + p] / w[p]).collect() } else { Vec::new() } };
    let nu_tilde = specific(scheme.convect_nu_tilde, NFLOW);
    let gamma = specific(scheme.convect_intermittency, INTERMITTENCY);
    let pair = |v: &[f64], a: usize, b: usize| if v.is_empty() { [0.0, 0.0] } else { [v[a], v[b]] };
    let scalar_pairs = |a: usize, b: usize| [pair(&nu_tilde, a, b), pair(&gamma, a, b)];

    // i-faces: face i of row j separates cells (i-1, j) and (i, j).
    let mut fi = vec![[0.0; NVAR]; (ni + 1) * nj];
    fi.par_chunks_mut(ni + 1).enumerate().with_min_len(rows_per_task(ni + 1)).for_each(|(j, row)| {
        let j = j as isize;
        for (i, f) in row.iter_mut().enumerate() {
            let ii = i as isize;
            let stencil = [&q[l.idx(ii - 2, j)], &q[l.idx(ii - 1, j)], &q[l.idx(ii, j)], &q[l.idx(ii + 1, j)]];
            let face = l.i_face(i, j as usize);
            let scalars = scalar_pairs(l.idx(ii - 1, j), l.idx(ii, j));
            *f = face_flux(gamma_gas, scheme, stencil, scalars, bg.si[face], bg.wall_i[face], wall_side(i, ni));
        }
    });

    // j-faces: face j of column i separates cells (i, j-1) and (i, j).
    let mut fj = vec![[0.0; NVAR]; ni * (nj + 1)];
    fj.par_chunks_mut(ni).enumerate().with_min_len(rows_per_task(ni)).for_each(|(j, row)| {
        let jj = j as isize;
        for (i, f) in row.iter_mut().enumerate() {
            let ii = i as isize;
            let stencil = [&q[l.idx(ii, jj - 2)], &q[l.idx(ii, jj - 1)], &q[l.idx(ii, jj)], &q[l.idx(ii, jj + 1)]];
            let face = l.j_face(i, j);
            let scalars = scalar_pairs(l.idx(ii, jj - 1), l.idx(ii, jj));
            *f = face_flux(gamma_gas, scheme, stencil, scalars, bg.sj[face], bg.wall_j[face], wall_side(j, nj));
        }
    });

    let mut vars: Vec<&mut [f64]> = r.chunks_mut(np).collect();
    // Gather per cell, one variable at a time (rows in parallel).
    for (v, rv) in vars.iter_mut().enumerate() {
        rv.par_chunks_mut(stride).enumerate().with_min_len(rows_per_task(stride)).for_each(|(jp, row)| {
            if jp < NGHOST || jp >= nj + NGHOST {
                row.fill(0.0);
                return;
            }
            let j = jp - NGHOST;
            row.fill(0.0);
            for i in 0..ni {
                let east = fi[l.i_face(i + 1, j)][v] - fi[l.i_face(i, j)][v];
                let north = fj[l.j_face(i, j + 1)][v] - fj[l.j_face(i, j)][v];
                row[i + NGHOST] = east + north;
            }
        });
    }
}

/// Which stencil cells are interior at a wall face: `Some(true)` for a face at the low end of
/// the line (interior cells at stencil positions 2, 3), `Some(false)` at the high end
/// (positions 1, 0), `None` for faces away from the block edge.
#[inline]
fn wall_side(face: usize, n_cells: usize) -> Option<bool> {
    if face == 0 {
        Some(true)
    } else if face == n_cells {
        Some(false)
    } else {
        None
    }
}

/// Flux through one face from its 4-cell stencil `[q_{i-1}, q_i, q_{i+1}, q_{i+2}]` (face
/// between q_i and q_{i+1}) and its face vector `s` (pointing from q_i to q_{i+1}); the fifth
/// and sixth components are the upwind fluxes of rho nu_tilde and rho gamma from the cell values
/// `scalars` = [nu~, gamma] of q_i and q_{i+1} (zero where the scheme does not convect them).
#[inline]
fn face_flux(
    gamma: f64,
    scheme: &ConvectiveScheme,
    stencil: [&Primitive; 4],
    scalars: [[f64; 2]; 2],
    s: [f64; 2],
    is_wall: bool,
    side: Option<bool>,
) -> [f64; NVAR] {
    let area = (s[0] * s[0] + s[1] * s[1]).sqrt();
    let n = [s[0] / area, s[1] / area];
    if is_wall {
        // Pressure-only flux (thesis eq. 4.2 with V.n = 0) with the pressure interpolated to the
        // wall from the two interior cells.
        let (near, far) = if side == Some(true) { (stencil[2][3], stencil[3][3]) } else { (stencil[1][3], stencil[0][3]) };
        let f = wall_flux(wall_pressure(scheme.reconstruction, near, far), n, area);
        return [f[0], f[1], f[2], f[3], 0.0, 0.0];
    }
    let (left, right) =
        muscl_primitive_face_states(stencil[0], stencil[1], stencil[2], stencil[3], &scheme.limiter_epsilon, scheme.reconstruction);
    let f = roe_flux(gamma, &left, &right, n, area, scheme.entropy_fix);
    let [nu_tilde, gamma] = scalars;
    [f[0], f[1], f[2], f[3], sa_convective_flux(f[0], nu_tilde[0], nu_tilde[1]), sa_convective_flux(f[0], gamma[0], gamma[1])]
}

/// Wall pressure: the adjacent cell value (first order) or the linear extrapolation
/// p_w = p_0 + (p_0 - p_1)/2 from the two nearest interior cells (second order), falling back to
/// p_0 when the extrapolation would not be positive.
#[inline]
fn wall_pressure(reconstruction: Reconstruction, near: f64, far: f64) -> f64 {
    match reconstruction {
        Reconstruction::FirstOrder => near,
        Reconstruction::SecondOrder => {
            let p = 1.5 * near - 0.5 * far;
            if p > 0.0 {
                p
            } else {
                near
            }
        }
    }
}
