//! Viscous residual of one block: central viscous fluxes with face gradients from Green-Gauss
//! on auxiliary face-centred control volumes (thesis 4.2.2, eq. 4.14; `flow::viscous`), and
//! with Spalart-Allmaras the diffusion and source terms of rho nu_tilde (`flow::sa`), and with
//! SA-gamma those of rho gamma (`flow::intermittency`).
//!
//! The auxiliary volume of a face joins the two cell centroids on either side and the two end
//! nodes of the face ("diamond" volume; its centres moved apart along the face normal where they
//! do not reach across the face, `flow::viscous::diamond_lift`); node values are the means of the
//! four cells around each node, ghosts included, so wall and interface ghosts shape the wall
//! gradients.

use rayon::prelude::*;

use super::geometry::BlockGeometry;
use super::rows_per_task;
use crate::backend::{Physics, SaSourceOptions, INTERMITTENCY, NFLOW, NGHOST, NVAR};
use crate::flow::gas::Gas;
use crate::flow::intermittency::{
    intermittency_source, sa_coupling, strain_rate_magnitude, wall_normal_velocity_derivative, IntermittencyCell, IntermittencySource, SIGMA_GAMMA,
};
use crate::flow::sa::{eddy_viscosity, sa_diffusion_flux, sa_source_coupled, SaSource};
use crate::flow::state::primitive_from_conservative;
use crate::flow::viscous::{green_gauss_gradient, lifted_diamond, quad_vertex_gradient, viscous_flux};

/// Cell quantities the viscous terms need.
#[derive(Clone, Copy, Default)]
struct CellState {
    /// Primitive [rho, u, v, p].
    q: [f64; 4],
    /// Gradient variables [u, v, T, nu_tilde, gamma].
    g: [f64; 5],
    /// Laminar and eddy viscosity.
    mu: f64,
    mu_t: f64,
}

/// Which terms a viscous residual has beyond the mean flow's.
#[derive(Clone, Copy)]
struct Terms {
    /// rho nu~ diffusion and source (SA models).
    turbulent: bool,
    /// rho gamma diffusion and source, and the intermittency on SA's source (SA-gamma): the
    /// free-stream turbulence intensity.
    transition: Option<f64>,
}

impl Terms {
    fn of(physics: Physics, sa: &SaSourceOptions) -> Self {
        Terms { turbulent: physics.is_turbulent(), transition: physics.intermittency_tu(sa) }
    }
}

fn cell_states(bg: &BlockGeometry, gas: &Gas, turbulent: bool, w: &[f64]) -> Vec<CellState> {
    let np = bg.layout.n_padded();
    (0..np)
        .into_par_iter()
        .with_min_len(super::CELLS_PER_TASK)
        .map(|p| {
            let q = primitive_from_conservative(gas.gamma, &[w[p], w[np + p], w[2 * np + p], w[3 * np + p]]);
            let t = q[3] / (q[0] * gas.gas_constant);
            let mu = gas.viscosity(t);
            let nu_tilde = if turbulent { w[NFLOW * np + p] / q[0] } else { 0.0 };
            let mu_t = if turbulent { eddy_viscosity(q[0], nu_tilde, mu / q[0]) } else { 0.0 };
            let gamma = if turbulent { w[INTERMITTENCY * np + p] / q[0] } else { 1.0 };
            CellState { q, g: [q[1], q[2], t, nu_tilde, gamma], mu, mu_t }
        })
        .collect()
}

/// Adds the viscous (and SA, SA-gamma diffusion + source) residual of one block to `r`.
pub(super) fn block_residual(bg: &BlockGeometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &[f64], r: &mut [f64]) {
    let l = bg.layout;
    let (ni, nj, np, stride) = (l.ni, l.nj, l.n_padded(), l.stride());
    let terms = Terms::of(physics, sa);
    let turbulent = terms.turbulent;
    let cells = cell_states(bg, gas, turbulent, w);
    // Gradient variables the faces need: u, v, T, nu~, and gamma with transition.
    let n_gradients = if terms.transition.is_some() { 5 } else { 4 };

    // Node values: mean of the four surrounding cells (ghosts included).
    let node_values: Vec<[f64; 5]> = (0..(ni + 1) * (nj + 1))
        .into_par_iter()
        .with_min_len(super::CELLS_PER_TASK)
        .map(|n| {
            let (i, j) = ((n % (ni + 1)) as isize, (n / (ni + 1)) as isize);
            let around = [l.idx(i - 1, j - 1), l.idx(i, j - 1), l.idx(i - 1, j), l.idx(i, j)];
            std::array::from_fn(|k| 0.25 * around.iter().map(|&p| cells[p].g[k]).sum::<f64>())
        })
        .collect();
    let node = |i: usize, j: usize| i + (ni + 1) * j;

    let face = |a: usize, b: usize, n0: usize, n1: usize, s: [f64; 2], lift: f64| -> [f64; NVAR] {
        let vertices = lifted_diamond([bg.centre_padded[a], bg.nodes[n0], bg.centre_padded[b], bg.nodes[n1]], s, lift);
        let grad = |k: usize| {
            if k < n_gradients {
                quad_vertex_gradient(&vertices, &[cells[a].g[k], node_values[n0][k], cells[b].g[k], node_values[n1][k]])
            } else {
                [0.0; 2]
            }
        };
        face_flux(gas, terms, &cells[a], &cells[b], [grad(0), grad(1), grad(2), grad(3), grad(4)], s)
    };

    // i-face (i, j) between cells (i-1, j) and (i, j); CCW auxiliary volume:
    // west centre, node (i, j), east centre, node (i, j+1).
    let mut fi = vec![[0.0; NVAR]; (ni + 1) * nj];
    fi.par_chunks_mut(ni + 1).enumerate().with_min_len(rows_per_task(ni + 1)).for_each(|(j, row)| {
        for (i, f) in row.iter_mut().enumerate() {
            let (ii, jj) = (i as isize, j as isize);
            let k = l.i_face(i, j);
            *f = face(l.idx(ii - 1, jj), l.idx(ii, jj), node(i, j), node(i, j + 1), bg.si[k], bg.diamond_lift_i[k]);
        }
    });
    // j-face (i, j) between cells (i, j-1) and (i, j); CCW auxiliary volume:
    // south centre, node (i+1, j), north centre, node (i, j).
    let mut fj = vec![[0.0; NVAR]; ni * (nj + 1)];
    fj.par_chunks_mut(ni).enumerate().with_min_len(rows_per_task(ni)).for_each(|(j, row)| {
        for (i, f) in row.iter_mut().enumerate() {
            let (ii, jj) = (i as isize, j as isize);
            let k = l.j_face(i, j);
            *f = face(l.idx(ii, jj - 1), l.idx(ii, jj), node(i + 1, j), node(i, j), bg.sj[k], bg.diamond_lift_j[k]);
        }
    });

    let n_vars = physics.n_marched();
    // The cell sources (SA, and SA-gamma's intermittency) once per cell.
    let sources: Vec<(SaSource, Option<IntermittencySource>)> = if turbulent {
        (0..l.n_interior()).into_par_iter().with_min_len(1024).map(|c| cell_sources(bg, &cells, sa, terms.transition, c % ni, c / ni)).collect()
    } else {
        Vec::new()
    };
    for (v, rv) in r.chunks_mut(np).enumerate().take(n_vars) {
        rv.par_chunks_mut(stride).enumerate().with_min_len(rows_per_task(stride)).for_each(|(jp, row)| {
            if jp < NGHOST || jp >= nj + NGHOST {
                return;
            }
            let j = jp - NGHOST;
            for i in 0..ni {
                let net = fi[l.i_face(i + 1, j)][v] - fi[l.i_face(i, j)][v] + fj[l.j_face(i, j + 1)][v] - fj[l.j_face(i, j)][v];
                let mut value = -net;
                let c = i + ni * j;
                if v == NFLOW {
                    value -= bg.volume[c] * sources[c].0.total;
                } else if v == INTERMITTENCY {
                    value -= bg.volume[c] * sources[c].1.map_or(0.0, |s| s.total);
                }
                row[i + NGHOST] += value;
            }
        });
    }
}

/// Viscous flux of the mean flow, SA diffusion flux and (SA-gamma) intermittency diffusion flux
/// (mu + mu_t/sigma_gamma) grad gamma . n |S| through one face (`s` from a to b).
fn face_flux(gas: &Gas, terms: Terms, a: &CellState, b: &CellState, grad: [[f64; 2]; 5], s: [f64; 2]) -> [f64; NVAR] {
    let turbulent = terms.turbulent;
    let area = (s[0] * s[0] + s[1] * s[1]).sqrt();
    let n = [s[0] / area, s[1] / area];
    let face_state: [f64; 4] = std::array::from_fn(|k| 0.5 * (a.q[k] + b.q[k]));
    let mu_t = 0.5 * (a.mu_t + b.mu_t);
    let f = viscous_flux(gas, &face_state, grad[0], grad[1], grad[2], mu_t, n, area);
    let diffusion = if turbulent {
        let nu = 0.5 * (a.mu + b.mu) / face_state[0];
        sa_diffusion_flux(face_state[0], nu, 0.5 * (a.g[3] + b.g[3]), grad[3], n, area)
    } else {
        0.0
    };
    let intermittency_diffusion = if terms.transition.is_some() {
        let coefficient = 0.5 * (a.mu + b.mu) + mu_t / SIGMA_GAMMA;
        coefficient * (grad[4][0] * n[0] + grad[4][1] * n[1]) * area
    } else {
        0.0
    };
    [f[0], f[1], f[2], f[3], diffusion, intermittency_diffusion]
}

/// Derivatives of the cell sources per unit volume with respect to the cell's own conservative
/// variable, at fixed mean flow and gradients, per interior cell `i + ni*j`: d Q_sa / d(rho nu~) =
/// (d Q_sa / d nu~) / rho and, with `transition` (SA-gamma's turbulence intensity; zero
/// otherwise), d Q_gamma / d(rho gamma): the point-implicit parts of the segregated SA and
/// intermittency Jacobians and of the explicit scheme's source factors.
pub(super) fn source_derivatives(bg: &BlockGeometry, gas: &Gas, transition: Option<f64>, sa: &SaSourceOptions, w: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let l = bg.layout;
    let cells = cell_states(bg, gas, true, w);
    (0..l.n_interior())
        .into_par_iter()
        .with_min_len(1024)
        .map(|c| {
            let (i, j) = (c % l.ni, c / l.ni);
            let rho = cells[l.interior(i, j)].q[0];
            let (sa_source, gamma_source) = cell_sources(bg, &cells, sa, transition, i, j);
            (sa_source.d_total_d_nu_tilde / rho, gamma_source.map_or(0.0, |s| s.d_total_d_gamma / rho))
        })
        .unzip()
}

/// The SA source per unit volume of interior cell (i, j), and with `transition` (the free-stream
/// turbulence intensity of SA-gamma) the intermittency source, whose gamma then scales SA's
/// production and destruction (`flow::intermittency::sa_coupling`). Velocity gradient and
/// grad nu_tilde from Green-Gauss over the cell (face values: means of the two adjacent cells).
fn cell_sources(bg: &BlockGeometry, cells: &[CellState], sa: &SaSourceOptions, transition: Option<f64>, i: usize, j: usize) -> (SaSource, Option<IntermittencySource>) {
    let l = bg.layout;
    let (ii, jj) = (i as isize, j as isize);
    let here = &cells[l.idx(ii, jj)];
    let neighbours = [l.idx(ii - 1, jj), l.idx(ii + 1, jj), l.idx(ii, jj - 1), l.idx(ii, jj + 1)];
    let (w_, e_, s_, n_) = (bg.si[l.i_face(i, j)], bg.si[l.i_face(i + 1, j)], bg.sj[l.j_face(i, j)], bg.sj[l.j_face(i, j + 1)]);
    let outward = [[-w_[0], -w_[1]], e_, [-s_[0], -s_[1]], n_];
    let c = i + l.ni * j;
    let volume = bg.volume[c];
    let grad = |k: usize| {
        let values: [f64; 4] = std::array::from_fn(|m| 0.5 * (here.g[k] + cells[neighbours[m]].g[k]));
        green_gauss_gradient(&values, &outward, volume)
    };
    let (gu, gv, gn) = (grad(0), grad(1), grad(3));
    let vorticity = (gv[0] - gu[1]).abs();
    let rho = here.q[0];
    let wall_distance = bg.wall_distance[c];
    let gamma_source = transition.map(|tu| {
        let (strain_rate, dv_dy) = (strain_rate_magnitude(gu, gv), wall_normal_velocity_derivative(bg.wall_normal[c], gu, gv));
        let cell = IntermittencyCell { rho, mu: here.mu, mu_t: here.mu_t, strain_rate, vorticity, wall_distance, dv_dy, turbulence_intensity: tu };
        intermittency_source(here.g[4], &cell)
    });
    let coupling = if transition.is_some() { sa_coupling(here.g[4]) } else { (1.0, 1.0) };
    (sa_source_coupled(rho, here.mu / rho, here.g[3], vorticity, wall_distance, gn, *sa, coupling), gamma_source)
}
