//! Throughput of the explicit RANS-SA solver per backend operation and per whole iteration, on
//! a test problem of a chosen size: the figures of `turbopt bench` and of `cargo bench --bench
//! explicit`. docs/architecture.md, "GPU backend": count the bytes per cell of each kernel and compare with the
//! device's bandwidth.
//!
//! Written once over [`Backend`], so one code path times the CPU and the GPU backend:
//! - each operation of an explicit iteration (and the multigrid transfers) alone, on the inputs
//!   of a physical state ([`Workspace`]): `warmup` calls, then the median of `repeats` calls,
//!   each followed by [`Backend::check`] (which waits for a GPU) before the clock is read;
//! - the whole iteration as [`ExplicitSolver`] runs it (5-stage Runge-Kutta, second order,
//!   SA, local time steps, single grid): the median of the per-iteration wall times the solver
//!   reports to its observer, taken after its per-iteration `check`, so upload, download and
//!   setup are outside them;
//! - the memory bandwidth of the backend: a large `copy_field` (bytes read + written / time).
//!
//! Rates: cell updates per second = cells / time of one call; for the iteration, cell-stage
//! updates per second = cells x stages / time. Bytes per update are the least traffic each
//! operation must move ([`Operation::bytes_per_cell`]; the iteration's per cell and stage,
//! [`iteration_bytes_per_cell_stage`]); achieved bandwidth = updates per second x bytes per
//! update, also as a percentage of the measured bandwidth.

pub mod implicit;
mod operations;
mod problem;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::backend::{Backend, NVAR};
use crate::mesh::simple::{channel, Sides};
use crate::solver::{uniform_state, Control, ExplicitSolver, IterationRecord, Observer};
use crate::{Error, Result};

pub use operations::{iteration_bytes_per_cell_stage, iteration_operations, Operation, Workspace, SMOOTHING_EPSILON};
pub use problem::{thousands, MeshCounts, TestProblem, BLOCKS, CFL, MAX_CELLS, MIN_CELLS};

/// Cells of the mesh whose field the bandwidth probe copies: 5 x 8 bytes x 4.2M = 168 MB
/// each way, many times any cache.
pub const BANDWIDTH_CELLS: usize = 1 << 22;

/// How many untimed and timed calls (and iterations) each figure takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BenchOptions {
    /// Untimed calls (iterations) first: caches, lazy allocations, GPU clocks.
    pub warmup: usize,
    /// Timed calls per operation and timed iterations; the figure is their median.
    pub repeats: usize,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { warmup: 2, repeats: 10 }
    }
}

impl BenchOptions {
    fn validate(&self) -> Result<()> {
        if self.repeats == 0 {
            return Err(Error::Other("bench: need at least one timed repeat (iteration)".into()));
        }
        Ok(())
    }
}

/// A measured copy bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bandwidth {
    /// (bytes read + bytes written) / median copy time [bytes/s].
    pub bytes_per_s: f64,
    /// Bytes read + written by one copy.
    pub bytes_per_copy: f64,
    /// Median time of one copy \[s\].
    pub seconds: f64,
}

/// One row of the report: an operation or the whole iteration.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Throughput {
    /// The [`Backend`] method, or "explicit_iteration".
    pub operation: String,
    /// Median time of one call (one iteration) \[s\].
    pub seconds: f64,
    /// Timed samples the median is over.
    pub samples: usize,
    /// Updates per call: interior (fine) cells; for the iteration cells x stages.
    pub updates: usize,
    /// updates / seconds: cell updates per second (iteration: cell-stage updates per second).
    pub updates_per_s: f64,
    /// Least bytes moved per update (per cell; iteration: per cell and stage).
    pub bytes_per_update: f64,
    /// updates_per_s x bytes_per_update [bytes/s].
    pub bandwidth_bytes_per_s: f64,
    /// Achieved bandwidth as a percentage of the measured copy bandwidth.
    pub percent_of_measured: f64,
}

impl Throughput {
    fn new(operation: &str, samples: &[Duration], updates: usize, bytes_per_update: f64, measured: &Bandwidth) -> Self {
        let seconds = median(&seconds(samples));
        let updates_per_s = updates as f64 / seconds;
        let bandwidth_bytes_per_s = updates_per_s * bytes_per_update;
        Throughput {
            operation: operation.to_string(),
            seconds,
            samples: samples.len(),
            updates,
            updates_per_s,
            bytes_per_update,
            bandwidth_bytes_per_s,
            percent_of_measured: 100.0 * bandwidth_bytes_per_s / measured.bytes_per_s,
        }
    }
}

/// Everything one backend measured on one problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BenchReport {
    /// [`Backend::name`].
    pub backend: String,
    pub mesh: String,
    pub counts: MeshCounts,
    pub stages: usize,
    pub options: BenchOptions,
    pub measured_bandwidth: Bandwidth,
    /// Wall time of the workspace setup (geometry of both grids uploaded, inputs computed) \[s\].
    pub setup_s: f64,
    /// One row per [`Operation::ALL`], in that order.
    pub operations: Vec<Throughput>,
    /// The whole explicit iteration.
    pub iteration: Throughput,
    /// Sum of the median times of [`iteration_operations`], call counts included \[s\]: what
    /// the iteration would take with nothing between its operations.
    pub iteration_sum_of_operations_s: f64,
}

/// Median of `samples` (the mean of the middle two for an even count). Empty: zero.
pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

/// The seconds of each sample, for [`median`].
fn seconds(samples: &[Duration]) -> Vec<f64> {
    samples.iter().map(Duration::as_secs_f64).collect()
}

/// Times every operation and the whole iteration of `problem` on `backend`; the percentages are
/// of `bandwidth` (from [`copy_bandwidth`]).
pub fn run<B: Backend>(backend: &B, problem: &TestProblem, options: &BenchOptions, bandwidth: &Bandwidth) -> Result<BenchReport> {
    options.validate()?;
    let counts = problem.counts();
    let stages = problem.stages();
    let setup = Instant::now();
    let mut workspace = Workspace::new(backend, problem)?;
    let setup_s = setup.elapsed().as_secs_f64();
    let mut operations = Vec::with_capacity(Operation::ALL.len());
    for op in Operation::ALL {
        let samples = time_operation(&mut workspace, op, options)?;
        operations.push(Throughput::new(op.name(), &samples, counts.cells, op.bytes_per_cell(&counts), bandwidth));
    }
    // The solver uploads its own geometry and buffers: free these first.
    drop(workspace);
    // Norms read back after every iteration, so that the observer sees each iteration end (a
    // GPU solve otherwise reports ten iterations at once); this adds one small read-back per
    // iteration to the figure.
    let mut case = problem.case.clone();
    case.solver.monitor_interval = Some(1);
    let mut solver = ExplicitSolver::new(backend, &problem.mesh, case)?;
    let samples = time_iterations(&mut solver, problem, options.warmup, options.repeats)?;
    let iteration = Throughput::new("explicit_iteration", &samples, counts.cells * stages, iteration_bytes_per_cell_stage(stages, &counts), bandwidth);
    let seconds_of = |op: Operation| operations.iter().find(|t| t.operation == op.name()).map_or(0.0, |t| t.seconds);
    let iteration_sum_of_operations_s = iteration_operations(stages).iter().map(|(op, calls)| *calls as f64 * seconds_of(*op)).sum();
    Ok(BenchReport {
        backend: backend.name(),
        mesh: problem.describe(),
        counts,
        stages,
        options: *options,
        measured_bandwidth: *bandwidth,
        setup_s,
        operations,
        iteration,
        iteration_sum_of_operations_s,
    })
}

/// `options.warmup` untimed calls of `op`, then `options.repeats` timed ones.
pub fn time_operation<B: Backend>(workspace: &mut Workspace<'_, B>, op: Operation, options: &BenchOptions) -> Result<Vec<Duration>> {
    for _ in 0..options.warmup {
        workspace.time_call(op)?;
    }
    (0..options.repeats).map(|_| workspace.time_call(op)).collect()
}

/// Wall times of `count` explicit iterations of `solver` from the problem's initial state,
/// after `warmup` untimed ones: the differences of the wall clock the solver reports to its
/// observer after each iteration (after its `check`, so a GPU iteration has finished).
pub fn time_iterations<B: Backend>(solver: &mut ExplicitSolver<'_, B>, problem: &TestProblem, warmup: usize, count: usize) -> Result<Vec<Duration>> {
    let mut clock = IterationClock { stop_after: warmup + count, wall_s: Vec::with_capacity(warmup + count) };
    solver.solve(&problem.initial, &mut clock)?;
    if clock.wall_s.len() < warmup + count {
        return Err(Error::Other(format!("bench: the solver stopped after {} of {} iterations", clock.wall_s.len(), warmup + count)));
    }
    let ends = &clock.wall_s;
    let starts = std::iter::once(0.0).chain(ends.iter().copied());
    Ok(ends.iter().zip(starts).skip(warmup).map(|(end, start)| Duration::from_secs_f64(end - start)).collect())
}

/// Observer keeping each iteration's wall clock and stopping the solve after `stop_after`.
struct IterationClock {
    stop_after: usize,
    wall_s: Vec<f64>,
}

impl Observer for IterationClock {
    fn on_iteration(&mut self, record: &IterationRecord) -> Control {
        self.wall_s.push(record.wall_s);
        if self.wall_s.len() >= self.stop_after {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

/// Memory bandwidth as `backend` reaches it (the host's with all the CPU backend's threads, the
/// device's on a GPU): `copy_field` of the field of a Cartesian channel of about `cells` cells
/// (5 variables, ghosts included; [`BANDWIDTH_CELLS`] for a bandwidth), bytes read + written
/// over the median time.
pub fn copy_bandwidth<B: Backend>(backend: &B, cells: usize, options: &BenchOptions) -> Result<Bandwidth> {
    options.validate()?;
    let n = ((cells as f64).sqrt().round() as usize).max(1);
    let mesh = channel(n, n, 1.0, 1.0, Sides::inviscid_channel())?;
    let geometry = backend.upload_geometry(&mesh)?;
    let gas = crate::flow::gas::Gas::default();
    let src = backend.upload_state(&geometry, &uniform_state(&mesh, &gas, [1.0, 100.0, 0.0, 1.0e5]))?;
    let mut dst = backend.new_field(&geometry);
    let mut copy = || -> Result<Duration> {
        let start = Instant::now();
        backend.copy_field(&src, &mut dst);
        backend.check()?;
        Ok(start.elapsed())
    };
    for _ in 0..options.warmup {
        copy()?;
    }
    let samples = (0..options.repeats).map(|_| copy()).collect::<Result<Vec<_>>>()?;
    let seconds = median(&seconds(&samples));
    let bytes_per_copy = (2 * NVAR * 8 * MeshCounts::of(&mesh).padded_cells) as f64;
    Ok(Bandwidth { bytes_per_s: bytes_per_copy / seconds, bytes_per_copy, seconds })
}
