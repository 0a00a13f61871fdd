//! Short runs on the case's own mesh, one hardware at a time: the unit costs of the model and the
//! per-operation breakdown. The timing code is the benchmark's (`crate::perf::bench`): the operations
//! one by one in its [`Workspace`](crate::perf::bench::Workspace) (through [`bench::run`]), the copy
//! bandwidth probe, the implicit scheme's own split ([`bench::implicit::run`]); the explicit
//! iteration and cycle are timed through the cascade pipeline itself ([`solve_point`]), so that
//! the figure watch every 10 iterations (a state download and the figures) is in the cost as
//! it is in a real solve.

use serde::{Deserialize, Serialize};

use super::model::{ExplicitCosts, Hardware, ImplicitCosts};
use super::setup::{CaseSetup, MethodSettings};
use crate::backend::{FactorPrecision, ImplicitBackend, PreconditionerKind};
use crate::perf::bench::{self, BenchOptions, Operation, TestProblem, MIN_CELLS};
use crate::cascade::{solve_point, PointRun, Start};
use crate::solver::{Control, IterationRecord, Observer};
use crate::{Error, Result};

/// How long the short runs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortRuns {
    /// Untimed explicit iterations (and cycles) before the timed ones; a multiple of the
    /// figure-watch interval (10), so that each window holds whole watch periods.
    pub explicit_warmup: usize,
    pub explicit_timed: usize,
    /// Implicit: untimed flow iterations (the CFL ramp 5 -> 200 x1.25 takes 17) and timed ones.
    pub implicit_warmup: usize,
    pub implicit_timed: usize,
    /// Implicit short runs per hardware; each unit cost is the median over them. One 30-iteration
    /// run's Krylov cost per iteration varied by 25 % between two runs on the same 16-core host
    /// (BENCHMARKS.md), enough to move a prediction out of its 25 %.
    #[serde(default = "default_implicit_repeats")]
    pub implicit_repeats: usize,
    /// Timed calls of each operation of the breakdown.
    pub operation_repeats: usize,
}

impl Default for ShortRuns {
    fn default() -> Self {
        ShortRuns { explicit_warmup: 10, explicit_timed: 20, implicit_warmup: 20, implicit_timed: 10, implicit_repeats: default_implicit_repeats(), operation_repeats: 5 }
    }
}

fn default_implicit_repeats() -> usize {
    3
}

/// One row of the per-operation breakdown on one hardware.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OperationTime {
    /// residual, smoothing, multigrid transfer, Jacobian assembly, factorization, Krylov
    /// iteration, and the three whole iterations.
    pub operation: String,
    /// Time of one call (a residual evaluation of one stage, one factorization, one FGMRES
    /// iteration, one flow iteration) \[s\].
    pub seconds: f64,
    /// Least bytes moved per cell by one call (see [`implicit_bytes_per_cell`] and
    /// `bench::Operation::bytes_per_cell`); 0 for the whole iterations.
    pub bytes_per_cell: f64,
    /// Achieved bandwidth as a percentage of the measured copy bandwidth.
    pub percent_of_bandwidth: f64,
}

/// Everything one hardware measured on the case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HardwareMeasurement {
    pub hardware: Hardware,
    /// The backend's own name (threads, device).
    pub backend: String,
    pub explicit: ExplicitCosts,
    pub implicit: ImplicitCosts,
    /// The preconditioner the implicit scheme's `Auto` means on this backend.
    pub preconditioner: PreconditionerKind,
    /// Measured copy bandwidth [bytes/s] and the time of one call on the smallest mesh \[s\] (the
    /// latency floor of the classification).
    pub bandwidth_bytes_per_s: f64,
    pub call_floor_s: f64,
    pub operations: Vec<OperationTime>,
    /// Wall time of these measurements \[s\].
    pub measured_in_s: f64,
}

/// Least traffic per cell of the implicit operations \[bytes\], f64, 2D first-order Jacobian:
/// five 4x4 blocks per cell row (the cell and its four face neighbours) for the mean flow and
/// five scalars for the segregated SA system.
/// - assembly: the blocks and scalars written once, the state (5) and the cell's face vectors
///   (4), volume and wall distance read once: 8 x (5 x 16 + 5 + 5 + 4 + 2) = 768;
/// - factorization (ILU(0) on the same pattern): the blocks and scalars read and written once:
///   2 x 8 x (5 x 16 + 5) = 1,360;
/// - one FGMRES iteration: the matrix (product) read once, the factors read once per exact
///   triangular-solve pair (`Ilu`, `McIlu`, `CusparseIlu`) or once per Jacobi sweep pair
///   (`SweptIlu { sweeps }`: `sweeps` reads), only the diagonal block for `Jacobi`, plus the four
///   vectors the step reads or writes (Krylov vector, preconditioned vector, product, the new
///   basis vector) of 4 values: 8 x ((1 + 1) x 5 x 16 + 4 x 4) = 1,408 with one factor read,
///   8 x ((1 + 8) x 5 x 16 + 4 x 4) = 5,888 with 8 sweeps; with f32 factors
///   (`FactorPrecision::Single`) a factor read costs half: 8 x (5 x 16 + 4 x 4) + 8 x 4 x 5 x 16
///   = 3,328 with 8 sweeps (the factorization itself stays f64, plus its f32 copy: not counted).
pub fn implicit_bytes_per_cell(operation: &str, preconditioner: PreconditionerKind) -> f64 {
    let factor_reads = match preconditioner {
        PreconditionerKind::Jacobi => 0.2,
        PreconditionerKind::SweptIlu { sweeps, factors } => sweeps.max(1) as f64 * factor_bytes(factors) / 8.0,
        PreconditionerKind::Ilu | PreconditionerKind::McIlu | PreconditionerKind::StripIlu { .. } | PreconditionerKind::CusparseIlu | PreconditionerKind::Auto => 1.0,
    };
    match operation {
        "Jacobian assembly" => 768.0,
        "factorization" => 1360.0,
        "Krylov iteration" => 8.0 * ((1.0 + factor_reads) * 5.0 * 16.0 + 4.0 * 4.0),
        _ => 0.0,
    }
}

/// Bytes of one stored factor value.
fn factor_bytes(precision: FactorPrecision) -> f64 {
    match precision {
        FactorPrecision::Double => 8.0,
        FactorPrecision::Single => 4.0,
    }
}

/// Observer keeping the wall clock the solver reports after each iteration.
struct WallClock {
    wall_s: Vec<f64>,
}

impl Observer for WallClock {
    fn on_iteration(&mut self, record: &IterationRecord) -> Control {
        self.wall_s.push(record.wall_s);
        Control::Continue
    }
}

/// Mean time per iteration over iterations `from+1 ..= to` of `wall_s` (the solver's clock
/// after each iteration).
fn window_mean(wall_s: &[f64], from: usize, to: usize) -> Result<f64> {
    if to > wall_s.len() || from >= to {
        return Err(Error::Other(format!("perf: the short run stopped after {} iterations, {to} were needed", wall_s.len())));
    }
    let start = if from == 0 { 0.0 } else { wall_s[from - 1] };
    Ok((wall_s[to - 1] - start) / (to - from) as f64)
}

/// Wall clock after each iteration of a pipeline solve of `method` from the cold start, for
/// `iterations` iterations.
fn pipeline_clock<B: ImplicitBackend>(backend: &B, case: &CaseSetup, settings: &crate::cascade::SolverSettings, iterations: usize) -> Result<Vec<f64>> {
    let mut settings = settings.clone();
    settings.max_iterations = iterations;
    settings.recovery.clear();
    let run = PointRun { prepared: &case.prepared, op: &case.op, settings: &settings, extras: &|_| Vec::new() };
    let mut clock = WallClock { wall_s: Vec::with_capacity(iterations) };
    solve_point(backend, &run, Start::Cold, &mut clock).map_err(|f| Error::Other(format!("perf: short run failed: {}", f.error)))?;
    Ok(clock.wall_s)
}

/// Single-grid iteration and multigrid cycle times through the pipeline. With a delay of at
/// least warmup + timed single-grid iterations, one run gives both (its delay is single grid);
/// otherwise two runs.
fn explicit_costs<B: ImplicitBackend>(backend: &B, case: &CaseSetup, methods: &MethodSettings, runs: &ShortRuns) -> Result<ExplicitCosts> {
    let (w, n) = (runs.explicit_warmup, runs.explicit_timed);
    let delay = methods.multigrid_delay();
    let (iteration_s, cycle_s);
    if delay >= w + n {
        let clock = pipeline_clock(backend, case, &methods.explicit_multigrid, delay + w + n)?;
        let last_single = w + (delay - w) / 10 * 10;
        iteration_s = window_mean(&clock, w, last_single)?;
        cycle_s = window_mean(&clock, delay + w, delay + w + n)?;
    } else {
        let single = pipeline_clock(backend, case, &methods.explicit_single_grid, w + n)?;
        iteration_s = window_mean(&single, w, w + n)?;
        let cycles = pipeline_clock(backend, case, &methods.explicit_multigrid, delay + w + n)?;
        cycle_s = window_mean(&cycles, delay + w, delay + w + n)?;
    }
    Ok(ExplicitCosts { iteration_s, cycle_s })
}

/// The implicit scheme's unit costs from its own split over a short run ([`bench::implicit::run`]).
fn implicit_costs<B: ImplicitBackend>(backend: &B, problem: &TestProblem, methods: &MethodSettings, runs: &ShortRuns) -> Result<(ImplicitCosts, PreconditionerKind)> {
    let mut config = methods.implicit_config();
    if config.preconditioner == PreconditionerKind::Auto {
        // As the implicit solver resolves it for the case (`ImplicitSolver::new`).
        let case = &problem.case;
        config.preconditioner = backend.preferred_preconditioner().for_mach(case.operating_point.exit_isentropic_mach(case.gas.gamma));
    }
    let samples = (0..runs.implicit_repeats.max(1))
        .map(|_| bench::implicit::run(backend, problem, &config, runs.implicit_warmup, runs.implicit_timed).map(|r| implicit_sample(&r)))
        .collect::<Result<Vec<_>>>()?;
    Ok((median_costs(&samples), config.preconditioner))
}

/// The unit costs of one implicit short run.
fn implicit_sample(r: &bench::implicit::ImplicitBench) -> ImplicitCosts {
    let t = &r.breakdown_total;
    let n = r.iterations.max(1) as f64;
    ImplicitCosts {
        residual_s: t.residual / n,
        assembly_s: t.assembly / n,
        factorization_s: t.factorization / r.factorizations.max(1) as f64,
        linear_iteration_s: t.krylov / r.linear_iterations_total.max(1) as f64,
        linear_iterations_per_iteration: r.timed_linear_iterations_per_iteration,
        factorizations_per_iteration: r.factorizations as f64 / n,
        measured_iteration_s: r.seconds_per_iteration,
    }
}

/// Each unit cost's median over the short runs (the runs are identical in their counts, so
/// only host noise separates them).
fn median_costs(samples: &[ImplicitCosts]) -> ImplicitCosts {
    let median = |field: fn(&ImplicitCosts) -> f64| crate::perf::bench::median(&samples.iter().map(field).collect::<Vec<_>>());
    ImplicitCosts {
        residual_s: median(|c| c.residual_s),
        assembly_s: median(|c| c.assembly_s),
        factorization_s: median(|c| c.factorization_s),
        linear_iteration_s: median(|c| c.linear_iteration_s),
        linear_iterations_per_iteration: median(|c| c.linear_iterations_per_iteration),
        factorizations_per_iteration: median(|c| c.factorizations_per_iteration),
        measured_iteration_s: median(|c| c.measured_iteration_s),
    }
}

/// Measures `hardware` (running as `backend`) on `case`.
pub fn measure<B: ImplicitBackend>(backend: &B, hardware: Hardware, case: &CaseSetup, methods: &MethodSettings, runs: &ShortRuns) -> Result<HardwareMeasurement> {
    let clock = std::time::Instant::now();
    let options = BenchOptions { warmup: 2, repeats: runs.operation_repeats.max(1) };
    let bandwidth = bench::copy_bandwidth(backend, bench::BANDWIDTH_CELLS, &options)?;
    let call_floor_s = bench::copy_bandwidth(backend, MIN_CELLS, &options)?.seconds;
    let problem = case.test_problem(methods)?;
    let report = bench::run(backend, &problem, &options, &bandwidth)?;
    let explicit = explicit_costs(backend, case, methods, runs)?;
    let (implicit, preconditioner) = implicit_costs(backend, &problem, methods, runs)?;
    let mut operations = explicit_rows(&report);
    operations.extend(implicit_rows(&implicit, preconditioner, bandwidth.bytes_per_s, problem.cells()));
    operations.push(whole("explicit iteration (single grid)", explicit.iteration_s));
    operations.push(whole("multigrid cycle", explicit.cycle_s));
    operations.push(whole("implicit iteration (short run)", implicit.measured_iteration_s));
    Ok(HardwareMeasurement {
        hardware,
        backend: backend.name(),
        explicit,
        implicit,
        preconditioner,
        bandwidth_bytes_per_s: bandwidth.bytes_per_s,
        call_floor_s,
        operations,
        measured_in_s: clock.elapsed().as_secs_f64(),
    })
}

/// The explicit rows: one stage's residual (boundary conditions, convective and viscous
/// residual), the residual smoothing, and the three multigrid transfers together.
fn explicit_rows(report: &bench::BenchReport) -> Vec<OperationTime> {
    let groups: [(&str, &[Operation]); 3] = [
        ("residual", &[Operation::ApplyBoundaryConditions, Operation::ConvectiveResidual, Operation::ViscousResidual]),
        ("smoothing", &[Operation::SmoothResidual]),
        ("multigrid transfer", &[Operation::RestrictState, Operation::RestrictResidual, Operation::ProlongCorrection]),
    ];
    groups
        .iter()
        .map(|(name, ops)| {
            let rows = report.operations.iter().filter(|t| ops.iter().any(|op| op.name() == t.operation));
            let (seconds, bytes) = rows.fold((0.0, 0.0), |(s, b), t| (s + t.seconds, b + t.bytes_per_update));
            let bandwidth = bytes * report.counts.cells as f64 / seconds;
            OperationTime { operation: name.to_string(), seconds, bytes_per_cell: bytes, percent_of_bandwidth: 100.0 * bandwidth / report.measured_bandwidth.bytes_per_s }
        })
        .collect()
}

fn implicit_rows(costs: &ImplicitCosts, preconditioner: PreconditionerKind, bandwidth: f64, cells: usize) -> Vec<OperationTime> {
    [("Jacobian assembly", costs.assembly_s), ("factorization", costs.factorization_s), ("Krylov iteration", costs.linear_iteration_s)]
        .into_iter()
        .map(|(name, seconds)| {
            let bytes = implicit_bytes_per_cell(name, preconditioner);
            OperationTime { operation: name.into(), seconds, bytes_per_cell: bytes, percent_of_bandwidth: 100.0 * bytes * cells as f64 / seconds / bandwidth }
        })
        .collect()
}

fn whole(name: &str, seconds: f64) -> OperationTime {
    OperationTime { operation: name.into(), seconds, bytes_per_cell: 0.0, percent_of_bandwidth: 0.0 }
}

/// The class of an operation in the thesis's terms (section 6.2, Fig. 6.5), by this rule on
/// what was measured on the hardware:
/// - memory-bound: it moves its least bytes at 40 % or more of the measured copy bandwidth;
/// - latency-bound: one call takes less than 10 calls of the smallest copy (the backend's
///   launch-and-wait floor), or it reaches less than 5 % of the bandwidth: neither the memory
///   nor the arithmetic explains its time, waiting does (launches, synchronization, the
///   dependent rows of a triangular sweep);
/// - compute-bound: the rest (below the memory roof, far above the latency floor: the
///   arithmetic per byte sets the time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BoundBy {
    Compute,
    Memory,
    Latency,
}

impl BoundBy {
    pub fn classify(row: &OperationTime, call_floor_s: f64) -> Option<BoundBy> {
        if row.bytes_per_cell == 0.0 {
            return None;
        }
        Some(if row.percent_of_bandwidth >= 40.0 {
            BoundBy::Memory
        } else if row.seconds < 10.0 * call_floor_s || row.percent_of_bandwidth < 5.0 {
            BoundBy::Latency
        } else {
            BoundBy::Compute
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            BoundBy::Compute => "compute",
            BoundBy::Memory => "memory",
            BoundBy::Latency => "latency",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_krylov_iteration_reads_the_factors_once_per_sweep() {
        assert_eq!(implicit_bytes_per_cell("Krylov iteration", PreconditionerKind::Ilu), 1408.0);
        assert_eq!(implicit_bytes_per_cell("Krylov iteration", PreconditionerKind::SweptIlu { sweeps: 8, factors: FactorPrecision::Double }), 5888.0);
        assert_eq!(implicit_bytes_per_cell("Krylov iteration", PreconditionerKind::SweptIlu { sweeps: 8, factors: FactorPrecision::Single }), 3328.0);
        assert!(implicit_bytes_per_cell("Krylov iteration", PreconditionerKind::Jacobi) < 1408.0);
        assert_eq!(implicit_bytes_per_cell("factorization", PreconditionerKind::SweptIlu { sweeps: 8, factors: FactorPrecision::Single }), 1360.0);
    }

    #[test]
    fn unit_costs_are_medians_over_the_short_runs() {
        let costs = |x: f64| ImplicitCosts {
            residual_s: x,
            assembly_s: 2.0 * x,
            factorization_s: 3.0 * x,
            linear_iteration_s: 4.0 * x,
            linear_iterations_per_iteration: 10.0,
            factorizations_per_iteration: 0.2,
            measured_iteration_s: 5.0 * x,
        };
        let m = median_costs(&[costs(1.0), costs(9.0), costs(2.0)]);
        assert_eq!(m, costs(2.0));
        assert_eq!(median_costs(&[costs(1.0), costs(3.0)]), costs(2.0));
    }

    #[test]
    fn windows_average_whole_iterations() {
        let wall = [1.0, 2.0, 3.5, 4.5, 6.0];
        assert!((window_mean(&wall, 0, 2).unwrap() - 1.0).abs() < 1e-12);
        assert!((window_mean(&wall, 2, 5).unwrap() - (6.0 - 2.0) / 3.0).abs() < 1e-12);
        assert!(window_mean(&wall, 2, 6).is_err());
    }

    #[test]
    fn classes_follow_the_stated_rule() {
        let row = |seconds, percent| OperationTime { operation: "x".into(), seconds, bytes_per_cell: 100.0, percent_of_bandwidth: percent };
        assert_eq!(BoundBy::classify(&row(1e-3, 60.0), 1e-5), Some(BoundBy::Memory));
        assert_eq!(BoundBy::classify(&row(1e-3, 20.0), 1e-5), Some(BoundBy::Compute));
        assert_eq!(BoundBy::classify(&row(5e-5, 20.0), 1e-5), Some(BoundBy::Latency));
        assert_eq!(BoundBy::classify(&row(1e-3, 2.0), 1e-5), Some(BoundBy::Latency));
        assert_eq!(BoundBy::classify(&OperationTime { bytes_per_cell: 0.0, ..row(1.0, 0.0) }, 1e-5), None);
    }
}
