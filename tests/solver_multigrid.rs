//! FAS multigrid must converge to the same fine-grid solution as the single-grid scheme, with
//! less work. The checks are written once over [`Backend`] and run on the CPU and (feature
//! `cuda`, ignored without a device) on the GPU with the same bounds. The work is counted in
//! fine-grid iterations ([`cycle_work`]), which no machine or load changes; the wall times are
//! printed for information only.

mod common;

use std::time::Instant;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::solution::Solution;
use turbopt::mesh::coarsen::coarsen;
use turbopt::mesh::Mesh;
use turbopt::solver::{Cycle, ExplicitSolver, Multigrid, ResidualSmoothing, Silent, SolveOutcome, SolverConfig};

/// Subsonic flow through the distorted periodic channel at 10 degrees incidence, started from
/// a uniform state at 3 % too high a back pressure, converged `orders` orders (density
/// residual). Returns the outcome and its wall time.
fn converge<B: Backend>(backend: &B, mesh: &Mesh, multigrid: Option<Multigrid>, orders: f64) -> (SolveOutcome, f64) {
    let (case, initial) = common::incidence_channel_case(mesh, channel_config(multigrid, orders));
    let mut solver = ExplicitSolver::new(backend, mesh, case).unwrap();
    let start = Instant::now();
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let wall = start.elapsed().as_secs_f64();
    assert!(out.converged, "{multigrid:?}: not converged after {} iterations ({:.2} orders)", out.iterations, out.history.orders_dropped());
    (out, wall)
}

fn channel_config(multigrid: Option<Multigrid>, orders: f64) -> SolverConfig {
    SolverConfig {
        cfl: 4.0,
        smoothing: Some(ResidualSmoothing::constant([0.8, 0.8])),
        multigrid,
        convergence_orders: orders,
        max_iterations: 50_000,
        ..SolverConfig::default()
    }
}

/// Largest density difference over all cells; NaN when either solution has a NaN density.
fn max_density_difference(a: &Solution, b: &Solution) -> f64 {
    assert_eq!(a.blocks.len(), b.blocks.len());
    common::largest(a.blocks.iter().zip(&b.blocks).map(|(x, y)| common::max_abs_difference(&x.rho, &y.rho)))
}

/// Upper bound of the work of one multigrid cycle in fine-grid Runge-Kutta iterations, counted
/// in residual evaluations per cell: grid l is smoothed visits^l times per cycle, and each
/// smoothing costs at most `stages + 2` residuals (the stages, the residual restricted from it,
/// the coarse residual of the restricted state), weighted by its share of the fine cells.
/// Coarse grids are first order (cheaper per cell than the fine grid's MUSCL): counted at the
/// fine grid's cost. Restriction, prolongation and residual smoothing are not counted.
fn cycle_work(mesh: &Mesh, multigrid: Multigrid, stages: usize) -> f64 {
    let fine_cells = mesh.n_cells() as f64;
    let mut level = mesh.clone();
    let mut work = 0.0;
    for l in 0..multigrid.levels {
        if l > 0 {
            level = coarsen(&level).unwrap();
        }
        let smoothings = multigrid.cycle.visits().pow(l as u32) as f64;
        work += smoothings * (stages + 2) as f64 / stages as f64 * level.n_cells() as f64 / fine_cells;
    }
    work
}

struct Comparison {
    /// Largest density difference between the single-grid and the multigrid solution.
    difference: f64,
    /// Single-grid iterations over the fine-grid iterations the multigrid cycles cost
    /// ([`cycle_work`]).
    work_gain: f64,
}

fn compare<B: Backend>(backend: &B, ni: usize, nj: usize, multigrid: Multigrid) -> Comparison {
    let orders = 6.0;
    let mesh = common::distorted_channel(1, ni, nj, 2.0, 0.03);
    let (single, wall_single) = converge(backend, &mesh, None, orders);
    let (multi, wall_multi) = converge(backend, &mesh, Some(multigrid), orders);
    let stages = channel_config(None, orders).rk.coefficients().len();
    let work = cycle_work(&mesh, multigrid, stages);
    let c = Comparison {
        difference: max_density_difference(&single.solution, &multi.solution),
        work_gain: single.iterations as f64 / (multi.iterations as f64 * work),
    };
    println!(
        "{}: {ni} x {nj}, {} levels {:?}: single grid {} iterations {wall_single:.2} s, multigrid {} cycles ({work:.2} iterations of work each) {wall_multi:.2} s, \
         work gain {:.2}, wall-time gain {:.2} (information only), max density difference {:.2e}",
        backend.name(),
        multigrid.levels,
        multigrid.cycle,
        single.iterations,
        multi.iterations,
        c.work_gain,
        wall_single / wall_multi,
        c.difference
    );
    // Both converged 6 orders from the same start: their fine-grid solutions agree to about
    // 1e-6 of the initial density correction.
    assert!(c.difference < 1e-5, "multigrid converged to a different solution (difference {:e})", c.difference);
    c
}

fn multigrid_v_cycle_converges_to_the_single_grid_solution_with_less_work<B: Backend>(backend: &B) {
    let c = compare(backend, 48, 24, Multigrid::new(3, Cycle::V));
    assert!(c.work_gain >= 2.0, "work gain {:.2} below 2", c.work_gain);
}

/// With `delay = N` the first N iterations are single-grid ones (the same states bit for bit),
/// and the cycles that follow still converge to the single-grid solution.
fn delayed_multigrid_starts_as_single_grid_and_converges<B: Backend>(backend: &B) {
    let mesh = common::distorted_channel(1, 48, 24, 2.0, 0.03);
    let run = |multigrid: Option<Multigrid>, max_iterations: usize| {
        let config = SolverConfig { max_iterations, ..channel_config(multigrid, 6.0) };
        let (case, initial) = common::incidence_channel_case(&mesh, config);
        ExplicitSolver::new(backend, &mesh, case).unwrap().solve(&initial, &mut Silent).unwrap()
    };
    let delayed = Multigrid { delay: 40, ..Multigrid::new(3, Cycle::V) };
    assert_eq!(run(Some(delayed), 40).solution, run(None, 40).solution);
    let converged = run(Some(delayed), 50_000);
    let single = run(None, 50_000);
    assert!(converged.converged && single.converged);
    let diff = max_density_difference(&converged.solution, &single.solution);
    println!("{}: delayed 3-level V-cycle: {} iterations (single grid {}), max density difference {diff:.2e}", backend.name(), converged.iterations, single.iterations);
    assert!(converged.iterations < single.iterations / 2);
    assert!(diff < 1e-5, "difference {diff:e}");
}

#[test]
fn multigrid_v_cycle_cpu() {
    multigrid_v_cycle_converges_to_the_single_grid_solution_with_less_work(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn multigrid_v_cycle_gpu() {
    multigrid_v_cycle_converges_to_the_single_grid_solution_with_less_work(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

#[test]
fn delayed_multigrid_cpu() {
    delayed_multigrid_starts_as_single_grid_and_converges(&CpuBackend::new(Some(1)).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn delayed_multigrid_gpu() {
    delayed_multigrid_starts_as_single_grid_and_converges(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

/// Two to four levels, V- and W-cycles, on a finer mesh: each converges to the single-grid
/// solution with at most half its work.
#[test]
#[ignore = "long: multigrid against single grid on 64 x 32 cells, 2-4 levels, V and W cycles, 1 thread (about 3 minutes)"]
fn multigrid_saves_work_on_a_finer_mesh() {
    let backend = CpuBackend::new(Some(1)).unwrap();
    for (levels, cycle) in [(2, Cycle::V), (3, Cycle::V), (4, Cycle::V), (3, Cycle::W)] {
        let c = compare(&backend, 64, 32, Multigrid::new(levels, cycle));
        assert!(c.work_gain >= 2.0, "{levels} levels {cycle:?}: work gain {:.2} below 2", c.work_gain);
    }
}
