//! Mesh sequencing: a point on a finer mesh starts from the converged flow of a coarser mesh of
//! the same passage instead of the quasi-one-dimensional cold start, the start-up of full
//! multigrid applied to the whole nonlinear solve. Most of a cold solve's iterations carry the
//! start-up transient (the flow finding its turning, loading and wake) through the passage; the
//! coarser mesh does that at a fraction of the cost per iteration, and the finer mesh only
//! sharpens boundary layers, wake and shocks.
//!
//! The meshes of the densities are not nested (each is its own mesh of the passage, with its own
//! periodic lines), so the flow is transferred by injection: each cell of the finer mesh takes the
//! state of the coarser cell whose centre (or its periodic image's) is nearest to its own. A state taken whole from one cell is valid wherever
//! the source is (positive density and pressure), which an interpolation across a shock or a
//! wall layer need not be.
//!
//! The finer solve counts its residual orders from the density residual of its own cold start
//! (one residual evaluation on the finer mesh), so it stops at the same absolute level as a
//! cold solve of that mesh, not some orders below its already small first residual.

use super::prepare::{CascadeError, CascadeSetup, CheckedBlade, PreparedCascade};
use super::section::BladeChoice;
use super::settings::{Sequencing, SolverSettings};
use super::solve::{solve_point, PointFailure, PointRun, PointSolve, Start};
use crate::backend::ImplicitBackend;
use crate::flow::solution::Solution;
use crate::geometry::BladeFile;
use crate::mesh::{Density, Mesh};
use crate::solver::{Observer, Scheme};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// A coarser mesh of a sequenced solve, or why it could not be made.
pub struct CoarserMesh {
    pub density: Density,
    pub prepared: Result<PreparedCascade, CascadeError>,
}

/// The point's own mesh (`setup`'s) and the coarser meshes `sequencing` solves first, meshed at
/// the same time (the mesher is serial; each mesh takes a core).
pub fn prepare_sequence(blade: &BladeFile, which: BladeChoice, setup: &CascadeSetup, sequencing: Sequencing) -> (Result<PreparedCascade, CascadeError>, Vec<CoarserMesh>) {
    let checked = match CheckedBlade::new(blade, which, setup) {
        Ok(c) => c,
        Err(e) => return (Err(e), Vec::new()),
    };
    rayon::join(|| checked.clone().mesh(setup), || coarser_meshes(&checked, setup, sequencing))
}

/// The coarser meshes `sequencing` solves `blade` on before the mesh of `setup`, coarsest first.
pub fn coarser_meshes(blade: &CheckedBlade, setup: &CascadeSetup, sequencing: Sequencing) -> Vec<CoarserMesh> {
    let mesh = |density: Density| {
        let coarser = CascadeSetup { density, ..setup.clone() };
        CoarserMesh { density, prepared: blade.for_setup(&coarser).and_then(|b| b.mesh(&coarser)) }
    };
    sequencing.coarser_than(setup.density).into_par_iter().map(mesh).collect()
}

/// The coarser solve a point started from.
#[derive(Clone, Debug, Serialize)]
pub struct CoarserSolve {
    pub density: Density,
    pub cells: usize,
    pub iterations: usize,
    /// Its solve, from the start it was given to its figures (the mesh was made beforehand).
    pub wall_s: f64,
    /// What became of it: the next mesh started from its flow, or why not.
    pub outcome: String,
    /// Whether the next mesh started from its flow (otherwise that one started cold).
    pub started_next: bool,
}

/// Solves `run` after the `coarser` meshes (coarsest first, from [`prepare_sequence`]): each
/// starts from the previous one's converged flow, the first cold, and `run` from the last.
/// A coarser mesh that could not be made or whose solve does not converge passes no flow on
/// (the next starts cold). Returns the coarser solves with what became of each. `progress` sees
/// every iteration of every mesh.
pub fn solve_sequenced<B: ImplicitBackend>(
    backend: &B,
    run: &PointRun,
    coarser: &[CoarserMesh],
    progress: &mut dyn Observer,
) -> (Result<PointSolve, PointFailure>, Vec<CoarserSolve>) {
    let mut records: Vec<CoarserSolve> = Vec::new();
    let mut flow: Option<(&PreparedCascade, Solution)> = None;
    for level in coarser {
        let mut record = CoarserSolve { density: level.density, cells: 0, iterations: 0, wall_s: 0.0, outcome: String::new(), started_next: false };
        let prepared = match &level.prepared {
            Ok(p) => p,
            Err(e) => {
                record.outcome = format!("not meshed: {e}");
                records.push(record);
                flow = None;
                continue;
            }
        };
        record.cells = prepared.mesh.n_cells();
        let clock = Instant::now();
        let level_run = PointRun { prepared, ..*run };
        let solved = solve_from(backend, &level_run, flow.as_ref().map(|(p, s)| (&p.mesh, s)), progress);
        record.wall_s = clock.elapsed().as_secs_f64();
        (record.iterations, flow) = match solved {
            Ok(s) if s.stop.converged() => {
                record.outcome = "the next mesh started from its flow".into();
                record.started_next = true;
                (s.iterations, Some((prepared, s.outcome.solution)))
            }
            Ok(s) => {
                record.outcome = format!("{}: the next mesh started cold", s.stop.describe());
                (s.iterations, None)
            }
            Err(f) => {
                record.outcome = format!("failed ({}): the next mesh started cold", f.error);
                (f.iterations, None)
            }
        };
        records.push(record);
    }
    (solve_from(backend, run, flow.as_ref().map(|(p, s)| (&p.mesh, s)), progress), records)
}

/// [`solve_point`] from `flow` (a coarser mesh's) injected onto the point's mesh, counting its
/// orders from the point's cold-start residual (module notes), or from the cold start when there
/// is no flow. A solve from `flow` that fails or stops unanswered goes on to the cold start
/// through the recovery chain (`Remedy::ColdStartAsConfigured`), as a warm start of a design does.
fn solve_from<B: ImplicitBackend>(backend: &B, run: &PointRun, flow: Option<(&Mesh, &Solution)>, progress: &mut dyn Observer) -> Result<PointSolve, PointFailure> {
    let Some((mesh, solution)) = flow else {
        return solve_point(backend, run, Start::Cold, progress);
    };
    let cold = run.prepared.cold_start(run.op);
    let Ok(reference) = crate::solver::density_residual(backend, &run.prepared.mesh, &super::solve::case(run, run.settings.solver_config()), &cold) else {
        return solve_point(backend, run, Start::Cold, progress);
    };
    let start = inject(mesh, solution, &run.prepared.mesh, cold);
    let settings = from_coarser_mesh(run.settings);
    let run = &PointRun { settings: &settings, ..*run };
    solve_point(backend, run, Start::Given { solution: &start, residual_reference: reference, restart: false }, progress)
}

/// `settings` for a solve from a coarser mesh's flow: the implicit scheme's own stages and
/// Anderson depth for such a start (`ImplicitConfig::from_coarser_mesh`).
fn from_coarser_mesh(settings: &SolverSettings) -> SolverSettings {
    let mut config = settings.solver_config();
    if let Scheme::Implicit(implicit) = &config.scheme {
        config.scheme = Scheme::Implicit(implicit.for_coarser_mesh_start());
    }
    SolverSettings { config, ..settings.clone() }
}

/// `source` (on `from`) carried onto `to` by injection (module notes): every cell of `to` takes
/// the state of the cell of `from` whose centre is nearest. `template` is a solution on `to`
/// (its sizes and its variables: the intermittency is carried where both have it).
pub fn inject(from: &Mesh, source: &Solution, to: &Mesh, template: Solution) -> Solution {
    let centres = CellCentres::of(from);
    let mut out = template;
    for (b, block) in to.blocks.iter().enumerate() {
        // The searches are independent (most of an injection's time on a fine mesh): in parallel.
        let nearest: Vec<(usize, usize)> = (0..block.nj * block.ni).into_par_iter().map(|k| centres.nearest(block.vertex_centre(k % block.ni, k / block.ni))).collect();
        for (k, &(sb, sc)) in nearest.iter().enumerate() {
            let (s, t, c) = (&source.blocks[sb], &mut out.blocks[b], block.cell(k % block.ni, k / block.ni));
            t.rho[c] = s.rho[sc];
            t.rho_u[c] = s.rho_u[sc];
            t.rho_v[c] = s.rho_v[sc];
            t.rho_e[c] = s.rho_e[sc];
            t.nu_tilde[c] = s.nu_tilde[sc];
            if !s.intermittency.is_empty() && !t.intermittency.is_empty() {
                t.intermittency[c] = s.intermittency[sc];
            }
        }
    }
    out
}

/// The cell centres of a mesh in a uniform grid of buckets, for nearest-centre queries.
struct CellCentres {
    /// (block, cell, centre) of every cell.
    cells: Vec<(usize, usize, [f64; 2])>,
    /// Cells of each bucket, row by row.
    buckets: Vec<Vec<u32>>,
    origin: [f64; 2],
    size: [f64; 2],
    n: [usize; 2],
}

impl CellCentres {
    fn of(mesh: &Mesh) -> Self {
        let own: Vec<(usize, usize, [f64; 2])> =
            mesh.blocks.iter().enumerate().flat_map(|(b, block)| (0..block.nj).flat_map(move |j| (0..block.ni).map(move |i| (b, block.cell(i, j), block.vertex_centre(i, j))))).collect();
        // With the periodic images one pitch up and down: two meshes of one passage need not
        // share their periodic lines, so the nearest centre may be the image's.
        let pitch = mesh.pitch;
        let cells: Vec<(usize, usize, [f64; 2])> =
            [0.0, pitch, -pitch][..if pitch > 0.0 { 3 } else { 1 }].iter().flat_map(|&dy| own.iter().map(move |&(b, c, p)| (b, c, [p[0], p[1] + dy]))).collect();
        let lo = cells.iter().fold([f64::INFINITY; 2], |a, c| [a[0].min(c.2[0]), a[1].min(c.2[1])]);
        let hi = cells.iter().fold([f64::NEG_INFINITY; 2], |a, c| [a[0].max(c.2[0]), a[1].max(c.2[1])]);
        // About four cells a bucket on average.
        let side = ((hi[0] - lo[0]) * (hi[1] - lo[1]) / (cells.len() as f64 / 4.0)).sqrt().max(f64::MIN_POSITIVE);
        let n = [((hi[0] - lo[0]) / side).ceil().max(1.0) as usize, ((hi[1] - lo[1]) / side).ceil().max(1.0) as usize];
        let mut grid = CellCentres { cells, buckets: vec![Vec::new(); n[0] * n[1]], origin: lo, size: [side, side], n };
        for k in 0..grid.cells.len() {
            let (a, b) = grid.bucket(grid.cells[k].2);
            grid.buckets[b * grid.n[0] + a].push(k as u32);
        }
        grid
    }

    fn bucket(&self, p: [f64; 2]) -> (usize, usize) {
        let index = |d: usize| (((p[d] - self.origin[d]) / self.size[d]).floor().max(0.0) as usize).min(self.n[d] - 1);
        (index(0), index(1))
    }

    /// (block, cell) of the centre nearest to `p`: rings of buckets round p's until the nearest
    /// found is closer than any bucket of the next ring can be.
    fn nearest(&self, p: [f64; 2]) -> (usize, usize) {
        let (a, b) = self.bucket(p);
        let (mut best, mut best_d2) = (0usize, f64::INFINITY);
        for ring in 0.. {
            let (a0, a1, b0, b1) = (a.saturating_sub(ring), (a + ring).min(self.n[0] - 1), b.saturating_sub(ring), (b + ring).min(self.n[1] - 1));
            for bb in b0..=b1 {
                for aa in a0..=a1 {
                    if aa != a0 && aa != a1 && bb != b0 && bb != b1 {
                        continue;
                    }
                    for &k in &self.buckets[bb * self.n[0] + aa] {
                        let c = self.cells[k as usize].2;
                        let d2 = (c[0] - p[0]).powi(2) + (c[1] - p[1]).powi(2);
                        if d2 < best_d2 {
                            (best, best_d2) = (k as usize, d2);
                        }
                    }
                }
            }
            let covered = ring as f64 * self.size[0].min(self.size[1]);
            let whole_grid = a0 == 0 && b0 == 0 && a1 == self.n[0] - 1 && b1 == self.n[1] - 1;
            if best_d2 <= covered * covered || whole_grid {
                break;
            }
        }
        let (block, cell, _) = self.cells[best];
        (block, cell)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every query point's nearest centre by the buckets is the nearest by brute force.
    #[test]
    fn bucketed_nearest_centre_is_the_brute_force_one() {
        use rand::{Rng, SeedableRng};
        let mesh = crate::mesh::simple::wavy_channel(23, 11, 2.0, 1.0, 0.1, crate::mesh::simple::Sides::inviscid_channel()).unwrap();
        let grid = CellCentres::of(&mesh);
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for _ in 0..2000 {
            let p = [rng.random_range(-0.5..2.5), rng.random_range(-0.5..1.5)];
            let brute = grid.cells.iter().map(|c| (c.2[0] - p[0]).powi(2) + (c.2[1] - p[1]).powi(2)).fold(f64::INFINITY, f64::min);
            let (b, c) = grid.nearest(p);
            let found = grid.cells.iter().find(|k| k.0 == b && k.1 == c).unwrap().2;
            assert_eq!((found[0] - p[0]).powi(2) + (found[1] - p[1]).powi(2), brute, "at {p:?}");
        }
    }
}
