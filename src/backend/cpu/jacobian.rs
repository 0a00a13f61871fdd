//! Approximate Jacobian of the first-order residual on the CPU (thesis 5.2, Blazek ch. 6):
//! pattern built once per mesh, values written straight into their slots, rows in parallel.
//!
//! Every row (interior cell) sums its four faces with the outward face vector, so that
//! `R_c = sum_f F(W_c, W_o, n_out) |S_f|` and the face Jacobians (dF/dW_c, dF/dW_o) go to the
//! diagonal block and to the neighbour's block. Each face is thus linearized twice (once per
//! side), which keeps rows independent: no atomics, no sorting (the "direct assembly" of thesis
//! table 5.11).
//!
//! What is exact and what is deliberately approximate:
//! * interior and interface faces: Roe flux Jacobian per [`ConvectiveJacobian`] (exact only for
//!   `Exact`, and for `FrozenRoe` where the flow is locally uniform);
//! * wall and symmetry faces: the pressure-only flux with the adjacent cell's pressure, exact
//!   for the first-order residual (the second-order residual extrapolates p to the wall);
//! * inlet and outlet: the ghost state is g(W_c), a function of the adjacent cell alone; its
//!   4x4 derivative comes from central differences of the backend's own characteristic ghost
//!   fill, so dF/dW_c + dF/dW_g dg/dW_c is the chain rule of the residual the solver uses;
//! * 1-to-1 and periodic interfaces: the ghost is the donor cell, an off-diagonal block;
//! * viscous terms (Navier-Stokes): each face's viscous spectral radius as the coefficient of
//!   a scalar Laplacian (+ on the diagonal, - to the neighbour; walls and inlet/outlet faces on
//!   the diagonal only), Blazek sec. 6.2.3; the true viscous Jacobian is not formed;
//! * MUSCL reconstruction is not linearized (first-order Jacobian of a second-order residual).

use std::ops::Range;

use rayon::prelude::*;

use super::geometry::{BlockGeometry, CpuGeometry, PhysicalBc};
use super::{CpuBackend, CpuField, CpuScalars};
use crate::backend::implicit::{ConvectiveJacobian, JacobianOptions};
use crate::backend::{BoundaryData, NFLOW, NGHOST};
use crate::flow::boundary::{inlet_state, outlet_state};
use crate::flow::gas::Gas;
use crate::flow::jacobian::{roe_flux_jacobians, rusanov_flux_jacobians, Block4};
use crate::flow::roe::roe_flux;
use crate::flow::sa::eddy_viscosity;
use crate::flow::spectral::viscous_spectral_radius;
use crate::flow::state::{conservative_from_primitive, primitive_from_conservative, speed_of_sound, Primitive};
use crate::linalg::{BsrMatrix, BsrPattern};
use std::sync::Arc;
use crate::{Error, Result};

/// What lies across one face of a row's cell.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Neighbour {
    /// An interior cell (same block or, across an interface, the donor): its block, padded
    /// index and the block's slot in this row relative to the row start.
    Cell { block: usize, padded: usize, slot: usize },
    /// An inlet or outlet ghost, a function of this cell (outward unit normal of the face).
    Characteristic { kind: PhysicalBc, normal: [f64; 2], ghost: usize },
    /// Wall or symmetry face: pressure-only flux; `no_slip` for walls (Wall patches), false for
    /// slip walls and symmetry planes.
    Wall { no_slip: bool },
}

/// A face of a row's cell: outward face vector and what is across.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowFace {
    pub(crate) s_out: [f64; 2],
    pub(crate) neighbour: Neighbour,
}

/// One matrix row: its cell (block, padded index, interior index), diagonal slot relative to the
/// row start, and its four faces (west, east, south, north).
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) block: usize,
    pub(crate) padded: usize,
    pub(crate) cell: usize,
    pub(crate) diag_slot: usize,
    pub(crate) faces: [RowFace; 4],
}

/// The structure of the implicit system on one mesh, built once on the host from its geometry
/// and shared by both backends: the block pattern (the diagonal plus one block per face
/// neighbour, interface donors included; the mean-flow and SA matrices use the same slots), the
/// first row of each block, and each row's faces with what lies across them.
#[derive(Debug)]
pub struct JacobianPattern {
    pub blocks: Arc<BsrPattern>,
    /// First row of each block.
    pub offsets: Vec<usize>,
    /// Interior cells (ni, nj) of each block.
    pub sizes: Vec<(usize, usize)>,
    pub(crate) rows: Vec<Row>,
}

impl JacobianPattern {
    /// The pattern and face descriptors of `g`.
    pub(crate) fn new(g: &CpuGeometry) -> Result<Self> {
        let mut offsets = Vec::with_capacity(g.blocks.len());
        let mut n = 0;
        for bg in &g.blocks {
            offsets.push(n);
            n += bg.layout.n_interior();
        }
        // Faces with columns as global cells; slots are filled in once the pattern exists.
        let mut rows = Vec::with_capacity(n);
        let mut columns: Vec<Vec<usize>> = Vec::with_capacity(n);
        for (b, bg) in g.blocks.iter().enumerate() {
            let ghosts = GhostMap::new(bg);
            let l = bg.layout;
            for j in 0..l.nj {
                for i in 0..l.ni {
                    let faces = cell_faces(g, b, &ghosts, &offsets, i, j)?;
                    columns.push(faces.iter().filter_map(|(_, col)| *col).collect());
                    rows.push(Row { block: b, padded: l.interior(i, j), cell: i + l.ni * j, diag_slot: 0, faces: faces.map(|(f, _)| f) });
                }
            }
        }
        let blocks = BsrPattern::from_adjacency(&columns);
        for (r, row) in rows.iter_mut().enumerate() {
            let start = blocks.row_ptr[r];
            row.diag_slot = blocks.diag[r] - start;
            let mut k = 0;
            for face in row.faces.iter_mut() {
                if let Neighbour::Cell { slot, .. } = &mut face.neighbour {
                    *slot = blocks.slot(r, columns[r][k]).expect("column inserted in the pattern") - start;
                    k += 1;
                }
            }
        }
        let sizes = g.blocks.iter().map(|bg| (bg.layout.ni, bg.layout.nj)).collect();
        Ok(JacobianPattern { blocks: Arc::new(blocks), offsets, sizes, rows })
    }

    /// Number of unknown cells (block rows).
    pub fn n_cells(&self) -> usize {
        self.blocks.n_rows
    }

    /// The rows of about `strips` strips of whole `j` lines ([`crate::linalg::column_strips`]).
    pub fn column_strips(&self, strips: usize) -> Vec<Vec<usize>> {
        crate::linalg::column_strips(&self.sizes, strips)
    }
}


/// The CPU system matrices `Omega/dt I + dR/dW`: the mean flow (4x4 blocks) and the segregated
/// Spalart-Allmaras system (scalars), both on the mesh's [`JacobianPattern`].
pub struct CpuJacobian {
    pub pattern: Arc<JacobianPattern>,
    /// Block-sparse matrix; row and column `offset[b] + i + ni*j` is cell (i, j) of block b.
    pub matrix: BsrMatrix<4>,
    /// The segregated SA matrix d R(rho nu~) / d(rho nu~) at frozen mean flow (same slots as
    /// `matrix`); assembled only for turbulent physics (`turbulent`).
    pub turbulence: BsrMatrix<1>,
    /// True once `turbulence` holds an assembled SA matrix.
    pub turbulent: bool,
    /// The segregated intermittency matrix d R(rho gamma) / d(rho gamma) at frozen mean flow and
    /// nu~ (SA-gamma), assembled when `transition`.
    pub intermittency: BsrMatrix<1>,
    pub transition: bool,
}

impl CpuJacobian {
    /// Zero matrices on `pattern`.
    pub(crate) fn new(pattern: Arc<JacobianPattern>) -> Self {
        let (matrix, turbulence) = (BsrMatrix::zeros(Arc::clone(&pattern.blocks)), BsrMatrix::zeros(Arc::clone(&pattern.blocks)));
        let intermittency = BsrMatrix::zeros(Arc::clone(&pattern.blocks));
        CpuJacobian { pattern, matrix, turbulence, turbulent: false, intermittency, transition: false }
    }

    /// Number of unknown cells (block rows).
    pub fn n_cells(&self) -> usize {
        self.pattern.n_cells()
    }
}

/// Ghost-cell lookup of one block: donor of each interface ghost, characteristic boundary of
/// each inlet/outlet ghost (first layer).
struct GhostMap {
    donor: std::collections::HashMap<usize, (usize, usize)>,
    characteristic: std::collections::HashMap<usize, (PhysicalBc, [f64; 2])>,
    /// First-layer ghosts of no-slip Wall patches.
    no_slip: std::collections::HashSet<usize>,
}

impl GhostMap {
    fn new(bg: &BlockGeometry) -> Self {
        let donor = bg.donors.iter().map(|d| (d.ghost, (d.donor_block, d.donor))).collect();
        let characteristic = bg
            .boundaries
            .iter()
            .filter(|p| matches!(p.kind, PhysicalBc::Inlet | PhysicalBc::Outlet))
            .flat_map(|p| p.cells.iter().map(move |c| (c.ghost[0], (p.kind, c.normal))))
            .collect();
        let no_slip = bg.boundaries.iter().filter(|p| p.kind == PhysicalBc::Wall).flat_map(|p| p.cells.iter().map(|c| c.ghost[0])).collect();
        GhostMap { donor, characteristic, no_slip }
    }
}

/// The four faces of cell (i, j) with their outward face vectors, and the matrix column
/// (global cell) of each cell neighbour.
fn cell_faces(
    g: &CpuGeometry,
    b: usize,
    ghosts: &GhostMap,
    offsets: &[usize],
    i: usize,
    j: usize,
) -> Result<[(RowFace, Option<usize>); 4]> {
    let bg = &g.blocks[b];
    let l = bg.layout;
    let (ii, jj) = (i as isize, j as isize);
    let neg = |s: [f64; 2]| [-s[0], -s[1]];
    let sides = [
        (neg(bg.si[l.i_face(i, j)]), bg.wall_i[l.i_face(i, j)], (ii - 1, jj)),
        (bg.si[l.i_face(i + 1, j)], bg.wall_i[l.i_face(i + 1, j)], (ii + 1, jj)),
        (neg(bg.sj[l.j_face(i, j)]), bg.wall_j[l.j_face(i, j)], (ii, jj - 1)),
        (bg.sj[l.j_face(i, j + 1)], bg.wall_j[l.j_face(i, j + 1)], (ii, jj + 1)),
    ];
    let mut out = [(RowFace { s_out: [0.0; 2], neighbour: Neighbour::Wall { no_slip: false } }, None); 4];
    for (k, (s_out, is_wall, (oi, oj))) in sides.into_iter().enumerate() {
        let inside = oi >= 0 && oj >= 0 && (oi as usize) < l.ni && (oj as usize) < l.nj;
        let padded = l.idx(oi, oj);
        let (neighbour, column) = if is_wall {
            (Neighbour::Wall { no_slip: ghosts.no_slip.contains(&padded) }, None)
        } else if inside {
            (Neighbour::Cell { block: b, padded, slot: 0 }, Some(offsets[b] + global_of(bg, padded)))
        } else if let Some(&(db, dp)) = ghosts.donor.get(&padded) {
            let donor_layout = g.blocks[db].layout;
            let (di, dj) = ((dp % donor_layout.stride()) as isize - NGHOST as isize, (dp / donor_layout.stride()) as isize - NGHOST as isize);
            if di < 0 || dj < 0 || di as usize >= donor_layout.ni || dj as usize >= donor_layout.nj {
                return Err(Error::Mesh(format!("interface ghost of cell ({i}, {j}) has a donor outside the interior of block {db}")));
            }
            (Neighbour::Cell { block: db, padded: dp, slot: 0 }, Some(offsets[db] + di as usize + donor_layout.ni * dj as usize))
        } else if let Some(&(kind, normal)) = ghosts.characteristic.get(&padded) {
            (Neighbour::Characteristic { kind, normal, ghost: padded }, None)
        } else {
            return Err(Error::Mesh(format!("cell ({i}, {j}): face {k} has neither a neighbour, a donor nor a boundary condition")));
        };
        out[k] = (RowFace { s_out, neighbour }, column);
    }
    Ok(out)
}

/// Interior index `i + ni*j` of a padded interior index.
pub(crate) fn global_of(bg: &BlockGeometry, padded: usize) -> usize {
    let l = bg.layout;
    let (i, j) = (padded % l.stride() - NGHOST, padded / l.stride() - NGHOST);
    i + l.ni * j
}

pub(super) fn conservative_at(w: &[f64], np: usize, p: usize) -> [f64; 4] {
    [w[p], w[np + p], w[2 * np + p], w[3 * np + p]]
}

/// Relative finite-difference step of the exact Roe-flux Jacobian: the flux is the same
/// arithmetic on every backend, so round-off does not differ between them.
const FLUX_STEP: f64 = 1e-6;

/// Relative finite-difference step of the inlet/outlet ghost derivative dg/dW_c. The ghost fill
/// calls `pow`, whose last bit differs between glibc and CUDA; a difference quotient multiplies
/// that bit by 1/step, so a step of 1e-6 left backends 1e-10 apart. At 1e-3 the round-off
/// stays near 1e-13 and the truncation error (step^2 ~ 1e-6 relative) is far below what the
/// first-order Jacobian leaves out anyway.
const GHOST_STEP: f64 = 1e-3;

/// Finite-difference step per conservative variable: `relative` times the density, rho c for
/// the momenta (they may vanish) and rho E.
fn fd_steps(gamma: f64, w: &[f64; 4], relative: f64) -> [f64; 4] {
    let q = primitive_from_conservative(gamma, w);
    let rho_c = w[0] * speed_of_sound(gamma, &q);
    [relative * w[0], relative * rho_c, relative * rho_c, relative * w[3].abs()]
}

/// Central-difference Jacobian d f / d w (4x4, row-major [output][input]).
fn central_difference(gamma: f64, w: &[f64; 4], relative: f64, f: impl Fn(&[f64; 4]) -> [f64; 4]) -> Block4 {
    let h = fd_steps(gamma, w, relative);
    let mut jac = [[0.0; 4]; 4];
    for c in 0..4 {
        let (mut wp, mut wm) = (*w, *w);
        wp[c] += h[c];
        wm[c] -= h[c];
        let (fp, fm) = (f(&wp), f(&wm));
        for r in 0..4 {
            jac[r][c] = (fp[r] - fm[r]) / (2.0 * h[c]);
        }
    }
    jac
}

/// (dF/dW_c, dF/dW_o) of the outward first-order face flux F(W_c, W_o).
fn face_jacobians(kind: ConvectiveJacobian, gamma: f64, entropy_fix: f64, wc: &[f64; 4], wo: &[f64; 4], n: [f64; 2], area: f64) -> (Block4, Block4) {
    let (qc, qo) = (primitive_from_conservative(gamma, wc), primitive_from_conservative(gamma, wo));
    match kind {
        ConvectiveJacobian::FrozenRoe => roe_flux_jacobians(gamma, &qc, &qo, n, area, entropy_fix),
        ConvectiveJacobian::Rusanov => rusanov_flux_jacobians(gamma, &qc, &qo, n, area),
        ConvectiveJacobian::Exact => {
            let flux = |a: &[f64; 4], b: &[f64; 4]| {
                roe_flux(gamma, &primitive_from_conservative(gamma, a), &primitive_from_conservative(gamma, b), n, area, entropy_fix)
            };
            (central_difference(gamma, wc, FLUX_STEP, |x| flux(x, wo)), central_difference(gamma, wo, FLUX_STEP, |x| flux(wc, x)))
        }
    }
}

/// dF/dW_c of the wall flux [0, p n_x, p n_y, 0] |S| with p from the cell:
/// dp/dW = (gamma - 1) [|v|^2/2, -u, -v, 1].
fn wall_jacobian(gamma: f64, q: &Primitive, n: [f64; 2], area: f64) -> Block4 {
    let g1 = gamma - 1.0;
    let dp = [0.5 * g1 * (q[1] * q[1] + q[2] * q[2]), -g1 * q[1], -g1 * q[2], g1];
    let mut jac = [[0.0; 4]; 4];
    for c in 0..4 {
        jac[1][c] = n[0] * area * dp[c];
        jac[2][c] = n[1] * area * dp[c];
    }
    jac
}

/// Characteristic ghost state g(W_c) of an inlet or outlet, as the ghost fill computes it.
fn characteristic_ghost(kind: PhysicalBc, gas: &Gas, data: &BoundaryData, normal: [f64; 2], wc: &[f64; 4]) -> [f64; 4] {
    let q = primitive_from_conservative(gas.gamma, wc);
    let qb = if kind == PhysicalBc::Inlet { inlet_state(gas, data, &q, normal) } else { outlet_state(gas.gamma, data.p2, &q, normal) };
    conservative_from_primitive(gas.gamma, &qb)
}

fn add(acc: &mut Block4, m: &Block4) {
    for r in 0..4 {
        for c in 0..4 {
            acc[r][c] += m[r][c];
        }
    }
}

fn product(a: &Block4, b: &Block4) -> Block4 {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..4).map(|k| a[r][k] * b[k][c]).sum()))
}

/// Adds a block into its slot: rows start from zero, and a slot shared by two faces (the same
/// neighbour across both faces of a narrow periodic block) must get both contributions.
fn add_block(dst: &mut [f64], m: &Block4) {
    for r in 0..4 {
        for c in 0..4 {
            dst[r * 4 + c] += m[r][c];
        }
    }
}

/// Assembles `Omega/dt I + dR/dW` (first-order residual) into `jac.matrix`, rows in parallel.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    backend: &CpuBackend,
    g: &CpuGeometry,
    gas: &Gas,
    data: &BoundaryData,
    options: &JacobianOptions,
    w: &CpuField,
    dt: Option<&CpuScalars>,
    jac: &mut CpuJacobian,
) {
    let gamma = gas.gamma;
    let CpuJacobian { matrix, pattern, .. } = jac;
    let rows = &pattern.rows;
    let mut row_values = matrix.row_values_mut();
    backend.pool.install(|| {
        row_values.par_iter_mut().zip(rows.par_iter()).with_min_len(256).for_each(|(values, row)| {
            values.iter_mut().for_each(|v| *v = 0.0);
            let bg = &g.blocks[row.block];
            let np = bg.layout.n_padded();
            let wb = &w.blocks[row.block];
            let wc = conservative_at(wb, np, row.padded);
            let qc = primitive_from_conservative(gamma, &wc);
            let mut diag = [[0.0; 4]; 4];
            let volume = bg.volume[row.cell];
            // Viscous spectral radius of a face as the coefficient of a scalar Laplacian of the
            // conservative variables: +Lambda_v on the diagonal for every face, -Lambda_v to the
            // neighbour across interior and interface faces (Blazek sec. 6.2.3).
            let mu = gas.viscosity(qc[3] / (qc[0] * gas.gas_constant));
            let mu_t = if options.physics.is_turbulent() { eddy_viscosity(qc[0], wb[NFLOW * np + row.padded] / qc[0], mu / qc[0]) } else { 0.0 };
            let viscous_radius = |s_out: [f64; 2]| {
                if options.physics.is_viscous() {
                    viscous_spectral_radius(gas, qc[0], mu, mu_t, s_out, volume)
                } else {
                    0.0
                }
            };
            for face in &row.faces {
                let area = (face.s_out[0] * face.s_out[0] + face.s_out[1] * face.s_out[1]).sqrt();
                let n = [face.s_out[0] / area, face.s_out[1] / area];
                match face.neighbour {
                    Neighbour::Wall { .. } => add(&mut diag, &wall_jacobian(gamma, &qc, n, area)),
                    Neighbour::Cell { block, padded, slot } => {
                        let wo = conservative_at(&w.blocks[block], g.blocks[block].layout.n_padded(), padded);
                        let (d_c, mut d_o) = face_jacobians(options.convective, gamma, options.entropy_fix, &wc, &wo, n, area);
                        let lambda_v = viscous_radius(face.s_out);
                        for (k, d) in d_o.iter_mut().enumerate() {
                            d[k] -= lambda_v;
                        }
                        add(&mut diag, &d_c);
                        add_block(&mut values[slot * 16..slot * 16 + 16], &d_o);
                    }
                    Neighbour::Characteristic { kind, normal, ghost } => {
                        let wg = conservative_at(wb, np, ghost);
                        let (d_c, d_g) = face_jacobians(options.convective, gamma, options.entropy_fix, &wc, &wg, n, area);
                        let dg_dc = central_difference(gamma, &wc, GHOST_STEP, |x| characteristic_ghost(kind, gas, data, normal, x));
                        add(&mut diag, &d_c);
                        add(&mut diag, &product(&d_g, &dg_dc));
                    }
                }
            }
            let mut scalar: f64 = row.faces.iter().map(|f| viscous_radius(f.s_out)).sum();
            if let Some(dt) = dt {
                scalar += volume / dt.blocks[row.block][row.cell];
            }
            for (k, d) in diag.iter_mut().enumerate() {
                d[k] += scalar;
            }
            let s = row.diag_slot;
            add_block(&mut values[s * 16..s * 16 + 16], &diag);
        });
    });
    jac.turbulent = options.physics.is_turbulent();
    jac.transition = false;
    if jac.turbulent {
        super::turbulence_jacobian::assemble(backend, g, gas, options, w, dt, jac);
    }
}

/// Every interior cell in the row order of `jac`: (row, block, padded index, padded length).
fn interior_rows<'a>(g: &'a CpuGeometry, jac: &'a CpuJacobian) -> impl Iterator<Item = (usize, usize, usize, usize)> + 'a {
    g.blocks.iter().enumerate().flat_map(move |(b, bg)| {
        let l = bg.layout;
        (0..l.nj).flat_map(move |j| (0..l.ni).map(move |i| (jac.pattern.offsets[b] + i + l.ni * j, b, l.interior(i, j), l.n_padded())))
    })
}

/// Fills `out` with the variables `vars` (e.g. `0..NFLOW` for the mean flow, `NFLOW..NFLOW + 1`
/// for the SA system) of the interior of a field times `scale`, `vars.len()` per cell in the row
/// order of `jac`.
pub(super) fn gather(g: &CpuGeometry, jac: &CpuJacobian, f: &CpuField, scale: f64, vars: Range<usize>, out: &mut [f64]) {
    let nv = vars.len();
    for (row, b, p, np) in interior_rows(g, jac) {
        for (k, v) in vars.clone().enumerate() {
            out[nv * row + k] = scale * f.blocks[b][v * np + p];
        }
    }
}

/// Writes a flat vector of the variables `vars` (layout of [`gather`]) into the interior of a
/// field; other entries are left as they are.
pub(super) fn scatter(g: &CpuGeometry, jac: &CpuJacobian, x: &[f64], vars: Range<usize>, f: &mut CpuField) {
    let nv = vars.len();
    for (row, b, p, np) in interior_rows(g, jac) {
        for (k, v) in vars.clone().enumerate() {
            f.blocks[b][v * np + p] = x[nv * row + k];
        }
    }
}
