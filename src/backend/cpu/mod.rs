//! The CPU backend: every [`Backend`] operation as rayon loops over blocks and grid lines,
//! calling the point-wise numerics of `crate::flow` (the CPU reference).

mod boundary;
mod convective;
pub mod geometry;
mod implicit_ops;
pub mod jacobian;
mod smoothing;
mod transfer;
mod turbulence_jacobian;
mod viscous;

use rayon::prelude::*;

use super::{Backend, BoundaryData, ConvectiveScheme, Physics, SaSourceOptions, INTERMITTENCY, NFLOW, NVAR};
use crate::flow::gas::Gas;
use crate::flow::solution::{BlockSolution, Solution};
use crate::flow::sa::eddy_viscosity;
use crate::flow::spectral::{
    convective_spectral_radius, local_time_step as spectral_time_step, mean_face_vector, smoothing_coefficients, viscous_spectral_radius,
    CELL_CENTRED_VISCOUS_FACTOR,
};
use crate::flow::state::primitive_from_conservative;
use crate::mesh::Mesh;
use crate::{Error, Result};

pub use geometry::{BlockGeometry, CpuGeometry};
pub use implicit_ops::CpuPreconditioner;
pub use jacobian::CpuJacobian;

/// Conservative variables (or residuals) of every block: block `b`, variable `v`, padded cell
/// `idx` at `blocks[b][v * n_padded + idx]`.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuField {
    pub blocks: Vec<Vec<f64>>,
}

/// One value per interior cell of every block (`i + ni*j`).
#[derive(Clone, Debug, PartialEq)]
pub struct CpuScalars {
    pub blocks: Vec<Vec<f64>>,
}

/// Rayon-parallel implementation of [`Backend`] with its own thread pool.
pub struct CpuBackend {
    pool: rayon::ThreadPool,
}

impl CpuBackend {
    /// A backend running on `threads` worker threads (`None`: one per logical core).
    pub fn new(threads: Option<usize>) -> Result<Self> {
        let mut builder = rayon::ThreadPoolBuilder::new();
        if let Some(n) = threads {
            if n == 0 {
                return Err(Error::Other("CPU backend needs at least one thread".into()));
            }
            builder = builder.num_threads(n);
        }
        let pool = builder.build().map_err(|e| Error::Other(format!("cannot start CPU thread pool: {e}")))?;
        Ok(CpuBackend { pool })
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The metrics, boundary descriptors and donor tables of `mesh` (shared by the GPU
    /// backend, which uploads them).
    pub fn geometry(mesh: &Mesh) -> Result<CpuGeometry> {
        CpuGeometry::from_mesh(mesh)
    }

    /// The interior conservative variables of `state` in this backend's layout (ghosts zero);
    /// fails when the block shapes don't match. Shared by the GPU backend's upload.
    pub fn host_state(g: &CpuGeometry, state: &Solution) -> Result<CpuField> {
        if state.blocks.len() != g.blocks.len() {
            return Err(Error::Other(format!("state has {} blocks, mesh has {}", state.blocks.len(), g.blocks.len())));
        }
        let mut field = CpuField { blocks: g.blocks.iter().map(|b| vec![0.0; NVAR * b.layout.n_padded()]).collect() };
        for (b, (bg, sol)) in g.blocks.iter().zip(&state.blocks).enumerate() {
            let l = bg.layout;
            let n = l.n_interior();
            let arrays = [&sol.rho, &sol.rho_u, &sol.rho_v, &sol.rho_e, &sol.nu_tilde];
            if sol.ni != l.ni || sol.nj != l.nj || arrays.iter().any(|a| a.len() != n) {
                return Err(Error::Other(format!("state block {b} does not match the {} x {} mesh block", l.ni, l.nj)));
            }
            let np = l.n_padded();
            let dst = &mut field.blocks[b];
            for j in 0..l.nj {
                for i in 0..l.ni {
                    let (c, p) = (i + l.ni * j, l.interior(i, j));
                    for v in 0..NFLOW {
                        dst[v * np + p] = arrays[v][c];
                    }
                    // The SA slot holds rho * nu_tilde, the intermittency slot rho * gamma
                    // (conservative form).
                    dst[NFLOW * np + p] = sol.rho[c] * sol.nu_tilde[c];
                    dst[INTERMITTENCY * np + p] = sol.rho[c] * sol.intermittency_at(c);
                }
            }
        }
        Ok(field)
    }

    /// The interior conservative variables of a field in this backend's layout.
    pub fn solution_from_host(g: &CpuGeometry, field: &CpuField) -> Solution {
        let blocks = g
            .blocks
            .iter()
            .zip(&field.blocks)
            .map(|(bg, w)| {
                let l = bg.layout;
                let np = l.n_padded();
                let gather = |v: usize| -> Vec<f64> {
                    (0..l.nj).flat_map(|j| (0..l.ni).map(move |i| (i, j))).map(|(i, j)| w[v * np + l.interior(i, j)]).collect()
                };
                let rho = gather(0);
                let nu_tilde = gather(NFLOW).iter().zip(&rho).map(|(rn, r)| rn / r).collect();
                let intermittency = gather(INTERMITTENCY).iter().zip(&rho).map(|(rg, r)| rg / r).collect();
                BlockSolution { ni: l.ni, nj: l.nj, rho_u: gather(1), rho_v: gather(2), rho_e: gather(3), nu_tilde, intermittency, rho }
            })
            .collect();
        Solution { blocks }
    }
}

impl CpuBackend {
    /// `factor = 1 / (1 + dt max(0, -d))` per interior cell with `d` the source derivative that
    /// `pick` takes from `viscous::source_derivatives` (SA's, or SA-gamma's intermittency's).
    #[allow(clippy::too_many_arguments)]
    fn source_factor(&self, g: &CpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &CpuField, dt: &CpuScalars, factor: &mut CpuScalars, pick: impl Fn((Vec<f64>, Vec<f64>)) -> Vec<f64> + Sync) {
        self.pool.install(|| {
            factor.blocks.par_iter_mut().zip(&w.blocks).zip(&g.blocks).zip(&dt.blocks).for_each(|(((fb, wb), bg), dtb)| {
                // sa.intermittency_tu is set for SA-gamma only: SA's source is then the coupled one.
                let derivative = pick(viscous::source_derivatives(bg, gas, sa.intermittency_tu, sa, wb));
                fb.iter_mut().zip(&derivative).zip(dtb).for_each(|((f, d), dt)| *f = 1.0 / (1.0 + dt * (-d).max(0.0)));
            });
        });
    }
}

/// Multiplies variable `slot` of the residual of every interior cell by its `factor`.
fn scale_slot(pool: &rayon::ThreadPool, g: &CpuGeometry, factor: &CpuScalars, r: &mut CpuField, slot: usize) {
    pool.install(|| {
        r.blocks.par_iter_mut().zip(&g.blocks).zip(&factor.blocks).for_each(|((rb, bg), fb)| {
            let l = bg.layout;
            let np = l.n_padded();
            for j in 0..l.nj {
                for i in 0..l.ni {
                    rb[slot * np + l.interior(i, j)] *= fb[i + l.ni * j];
                }
            }
        });
    });
}

/// Volume and spectral radii per grid direction of interior cell (i, j) of one block, over the
/// mean face vectors (Blazek eq. 6.18-6.22): convective, and viscous ones (with the eddy viscosity
/// for SA) for viscous physics only.
fn cell_spectral_radii(gas: &Gas, physics: Physics, bg: &BlockGeometry, wb: &[f64], i: usize, j: usize) -> (f64, [f64; 2], [f64; 2]) {
    let l = bg.layout;
    let np = l.n_padded();
    let p = l.interior(i, j);
    let q = primitive_from_conservative(gas.gamma, &[wb[p], wb[np + p], wb[2 * np + p], wb[3 * np + p]]);
    let s_i = mean_face_vector(bg.si[l.i_face(i, j)], bg.si[l.i_face(i + 1, j)]);
    let s_j = mean_face_vector(bg.sj[l.j_face(i, j)], bg.sj[l.j_face(i, j + 1)]);
    let volume = bg.volume[i + l.ni * j];
    let convective = [convective_spectral_radius(gas.gamma, &q, s_i), convective_spectral_radius(gas.gamma, &q, s_j)];
    let viscous = if physics.is_viscous() {
        let mu = gas.viscosity(q[3] / (q[0] * gas.gas_constant));
        let mu_t = if physics.is_turbulent() { eddy_viscosity(q[0], wb[NFLOW * np + p] / q[0], mu / q[0]) } else { 0.0 };
        [viscous_spectral_radius(gas, q[0], mu, mu_t, s_i, volume), viscous_spectral_radius(gas, q[0], mu, mu_t, s_j, volume)]
    } else {
        [0.0, 0.0]
    };
    (volume, convective, viscous)
}

/// Grid lines per rayon task: enough cells (about [`CELLS_PER_TASK`]) per task that scheduling
/// costs stay small against the work on small meshes.
#[inline]
pub(crate) fn rows_per_task(row_len: usize) -> usize {
    (CELLS_PER_TASK / row_len.max(1)).max(1)
}

/// Cells per rayon task of the residual's loops: a few microseconds of scheduling against about
/// a hundred of flux work, and enough tasks for 16 cores on a 39k-cell mesh (4,096 left 8 tasks,
/// so the residual scaled only 2x from 2 to 16 threads). Tasks write disjoint rows: the result
/// does not depend on it.
pub(crate) const CELLS_PER_TASK: usize = 1024;

/// Mutable views of the variables of one block: `vars[v]` is variable `v`, padded.
pub(crate) fn split_vars(block: &mut [f64], n_padded: usize) -> Vec<&mut [f64]> {
    block.chunks_mut(n_padded).collect()
}

impl Backend for CpuBackend {
    type Field = CpuField;
    type Scalars = CpuScalars;
    type Geometry = CpuGeometry;
    type NormLog = Vec<[f64; NVAR]>;
    type Recording = ();

    fn name(&self) -> String {
        format!("cpu ({} threads)", self.threads())
    }

    fn upload_geometry(&self, mesh: &Mesh) -> Result<CpuGeometry> {
        CpuGeometry::from_mesh(mesh)
    }

    fn new_field(&self, g: &CpuGeometry) -> CpuField {
        CpuField { blocks: g.blocks.iter().map(|b| vec![0.0; NVAR * b.layout.n_padded()]).collect() }
    }

    fn new_scalars(&self, g: &CpuGeometry) -> CpuScalars {
        CpuScalars { blocks: g.blocks.iter().map(|b| vec![0.0; b.layout.n_interior()]).collect() }
    }

    fn upload_state(&self, g: &CpuGeometry, state: &Solution) -> Result<CpuField> {
        CpuBackend::host_state(g, state)
    }

    fn download_state(&self, g: &CpuGeometry, field: &CpuField) -> Solution {
        CpuBackend::solution_from_host(g, field)
    }

    fn copy_field(&self, src: &CpuField, dst: &mut CpuField) {
        // In chunks within each block too, so that a mesh of few blocks copies on every thread.
        const CHUNK: usize = 1 << 15;
        self.pool.install(|| {
            dst.blocks.par_iter_mut().zip(&src.blocks).for_each(|(d, s)| {
                d.par_chunks_mut(CHUNK).zip(s.par_chunks(CHUNK)).for_each(|(dc, sc)| dc.copy_from_slice(sc));
            });
        });
    }

    fn fill_field(&self, field: &mut CpuField, value: f64) {
        self.pool.install(|| field.blocks.par_iter_mut().for_each(|b| b.fill(value)));
    }

    fn axpy_field(&self, a: f64, x: &CpuField, y: &mut CpuField) {
        self.pool.install(|| {
            y.blocks.par_iter_mut().zip(&x.blocks).for_each(|(yb, xb)| {
                yb.par_iter_mut().zip(xb.par_iter()).with_min_len(4096).for_each(|(yv, xv)| *yv += a * xv);
            });
        });
    }

    fn apply_boundary_conditions(&self, g: &CpuGeometry, gas: &Gas, data: &BoundaryData, w: &mut CpuField) {
        self.pool.install(|| boundary::apply(g, gas, data, w));
    }

    fn convective_residual(&self, g: &CpuGeometry, gas: &Gas, scheme: &ConvectiveScheme, w: &CpuField, r: &mut CpuField) {
        self.pool.install(|| {
            r.blocks.par_iter_mut().zip(&w.blocks).zip(&g.blocks).for_each(|((rb, wb), bg)| {
                convective::block_residual(bg, gas.gamma, scheme, wb, rb);
            });
        });
    }

    fn viscous_residual(&self, g: &CpuGeometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &CpuField, r: &mut CpuField) {
        if !physics.is_viscous() {
            return;
        }
        self.pool.install(|| {
            r.blocks.par_iter_mut().zip(&w.blocks).zip(&g.blocks).for_each(|((rb, wb), bg)| {
                viscous::block_residual(bg, gas, physics, sa, wb, rb);
            });
        });
    }

    fn turbulence_source_factor(&self, g: &CpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &CpuField, dt: &CpuScalars, factor: &mut CpuScalars) {
        self.source_factor(g, gas, sa, w, dt, factor, |(sa, _)| sa);
    }

    fn scale_turbulence_residual(&self, g: &CpuGeometry, factor: &CpuScalars, r: &mut CpuField) {
        scale_slot(&self.pool, g, factor, r, NFLOW);
    }

    fn intermittency_source_factor(&self, g: &CpuGeometry, gas: &Gas, sa: &SaSourceOptions, w: &CpuField, dt: &CpuScalars, factor: &mut CpuScalars) {
        self.source_factor(g, gas, sa, w, dt, factor, |(_, gamma)| gamma);
    }

    fn scale_intermittency_residual(&self, g: &CpuGeometry, factor: &CpuScalars, r: &mut CpuField) {
        scale_slot(&self.pool, g, factor, r, INTERMITTENCY);
    }

    fn local_time_step(&self, g: &CpuGeometry, gas: &Gas, physics: Physics, cfl: f64, w: &CpuField, dt: &mut CpuScalars) {
        self.pool.install(|| {
            dt.blocks.par_iter_mut().zip(&w.blocks).zip(&g.blocks).for_each(|((dtb, wb), bg)| {
                let ni = bg.layout.ni;
                dtb.par_chunks_mut(ni).enumerate().with_min_len(rows_per_task(ni)).for_each(|(j, row)| {
                    for (i, dt_cell) in row.iter_mut().enumerate() {
                        let (volume, convective, viscous) = cell_spectral_radii(gas, physics, bg, wb, i, j);
                        *dt_cell = spectral_time_step(cfl, volume, convective, viscous, CELL_CENTRED_VISCOUS_FACTOR);
                    }
                });
            });
        });
    }

    fn smoothing_coefficients(&self, g: &CpuGeometry, gas: &Gas, physics: Physics, cfl_ratio: f64, c: f64, w: &CpuField, eps: &mut [CpuScalars; 2]) {
        let [eps_i, eps_j] = eps;
        self.pool.install(|| {
            eps_i.blocks.par_iter_mut().zip(&mut eps_j.blocks).zip(&w.blocks).zip(&g.blocks).for_each(|(((ei, ej), wb), bg)| {
                let ni = bg.layout.ni;
                ei.par_chunks_mut(ni).zip(ej.par_chunks_mut(ni)).enumerate().with_min_len(rows_per_task(ni)).for_each(|(j, (row_i, row_j))| {
                    for i in 0..ni {
                        let (_, convective, viscous) = cell_spectral_radii(gas, physics, bg, wb, i, j);
                        let radii = std::array::from_fn(|d| convective[d] + CELL_CENTRED_VISCOUS_FACTOR * viscous[d]);
                        [row_i[i], row_j[i]] = smoothing_coefficients(cfl_ratio, c, radii);
                    }
                });
            });
        });
    }

    fn min_scalar(&self, s: &CpuScalars) -> f64 {
        self.pool.install(|| {
            s.blocks.par_iter().map(|b| b.par_iter().copied().reduce(|| f64::INFINITY, f64::min)).reduce(|| f64::INFINITY, f64::min)
        })
    }

    fn fill_scalars(&self, s: &mut CpuScalars, value: f64) {
        s.blocks.iter_mut().for_each(|b| b.fill(value));
    }

    fn rk_stage_update(&self, g: &CpuGeometry, nvar: usize, alpha: f64, w0: &CpuField, r: &CpuField, dt: &CpuScalars, w: &mut CpuField) {
        self.pool.install(|| {
            w.blocks.par_iter_mut().enumerate().for_each(|(b, wb)| {
                let bg = &g.blocks[b];
                let l = bg.layout;
                let np = l.n_padded();
                let (w0b, rb, dtb) = (&w0.blocks[b], &r.blocks[b], &dt.blocks[b]);
                for (v, wv) in split_vars(wb, np).into_iter().enumerate().take(nvar) {
                    wv.par_chunks_mut(l.stride()).enumerate().with_min_len(rows_per_task(l.stride())).skip(super::NGHOST).take(l.nj).for_each(|(jp, row)| {
                        let j = jp - super::NGHOST;
                        for i in 0..l.ni {
                            let p = l.interior(i, j);
                            let c = i + l.ni * j;
                            row[i + super::NGHOST] = w0b[v * np + p] - alpha * dtb[c] / bg.volume[c] * rb[v * np + p];
                        }
                    });
                }
            });
        });
    }

    fn bound_intermittency(&self, g: &CpuGeometry, w: &mut CpuField) {
        self.pool.install(|| {
            w.blocks.par_iter_mut().zip(&g.blocks).for_each(|(wb, bg)| {
                let l = bg.layout;
                let np = l.n_padded();
                for j in 0..l.nj {
                    for i in 0..l.ni {
                        let p = l.interior(i, j);
                        // max then min, not clamp: a step about to be rejected may have rho <= 0.
                        wb[INTERMITTENCY * np + p] = wb[INTERMITTENCY * np + p].max(0.0).min(wb[p]);
                    }
                }
            });
        });
    }

    fn smooth_residual(&self, g: &CpuGeometry, nvar: usize, epsilon: [f64; 2], r: &mut CpuField) {
        self.pool.install(|| {
            r.blocks.par_iter_mut().zip(&g.blocks).for_each(|(rb, bg)| smoothing::smooth_block(bg.layout, nvar, smoothing::Coefficients::Constant(epsilon), rb));
        });
    }

    fn smooth_residual_variable(&self, g: &CpuGeometry, nvar: usize, eps: &[CpuScalars; 2], r: &mut CpuField) {
        self.pool.install(|| {
            r.blocks.par_iter_mut().zip(&g.blocks).enumerate().for_each(|(b, (rb, bg))| {
                let per_cell = smoothing::Coefficients::PerCell([&eps[0].blocks[b], &eps[1].blocks[b]]);
                smoothing::smooth_block(bg.layout, nvar, per_cell, rb)
            });
        });
    }

    fn restrict_state(&self, fine: &CpuGeometry, coarse: &CpuGeometry, w_fine: &CpuField, w_coarse: &mut CpuField) {
        self.pool.install(|| {
            w_coarse.blocks.par_iter_mut().enumerate().for_each(|(b, wc)| {
                transfer::restrict_state_block(&fine.blocks[b], &coarse.blocks[b], &w_fine.blocks[b], wc);
            });
        });
    }

    fn restrict_residual(&self, fine: &CpuGeometry, coarse: &CpuGeometry, r_fine: &CpuField, r_coarse: &mut CpuField) {
        self.pool.install(|| {
            r_coarse.blocks.par_iter_mut().enumerate().for_each(|(b, rc)| {
                transfer::restrict_residual_block(&fine.blocks[b], &coarse.blocks[b], &r_fine.blocks[b], rc);
            });
        });
    }

    fn prolong_correction(&self, coarse: &CpuGeometry, fine: &CpuGeometry, w_coarse: &CpuField, w_coarse_start: &CpuField, w_fine: &mut CpuField) {
        self.pool.install(|| {
            w_fine.blocks.par_iter_mut().enumerate().for_each(|(b, wf)| {
                transfer::prolong_block(&coarse.blocks[b], &fine.blocks[b], &w_coarse.blocks[b], &w_coarse_start.blocks[b], wf);
            });
        });
    }

    fn new_norm_log(&self, capacity: usize) -> Vec<[f64; NVAR]> {
        vec![[0.0; NVAR]; capacity]
    }

    fn log_residual_norms(&self, g: &CpuGeometry, r: &CpuField, log: &mut Vec<[f64; NVAR]>, slot: usize) {
        log[slot] = self.residual_norms(g, r);
    }

    fn read_norm_log(&self, log: &Vec<[f64; NVAR]>, n: usize) -> Result<Vec<[f64; NVAR]>> {
        Ok(log[..n].to_vec())
    }

    fn residual_norms(&self, g: &CpuGeometry, r: &CpuField) -> [f64; NVAR] {
        let (sums, count) = self.pool.install(|| {
            r.blocks
                .par_iter()
                .zip(&g.blocks)
                .map(|(rb, bg)| {
                    let l = bg.layout;
                    let np = l.n_padded();
                    let mut sums = [0.0; NVAR];
                    for j in 0..l.nj {
                        for i in 0..l.ni {
                            let p = l.interior(i, j);
                            let vol = bg.volume[i + l.ni * j];
                            for (v, s) in sums.iter_mut().enumerate() {
                                *s += (rb[v * np + p] / vol).powi(2);
                            }
                        }
                    }
                    (sums, l.n_interior())
                })
                .reduce(|| ([0.0; NVAR], 0), |(a, na), (b, nb)| (std::array::from_fn(|v| a[v] + b[v]), na + nb))
        });
        std::array::from_fn(|v| (sums[v] / count as f64).sqrt())
    }
}
