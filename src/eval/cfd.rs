//! The CFD evaluator: design vector -> the cascade pipeline ([`crate::cascade`]: checked blade,
//! passage, O-C mesh, planes, start, solve with the recovery chain and the steady-figures stop,
//! post-processing) at every operating point -> objectives and constraints
//! ([`crate::eval::objectives`]). `turbopt solve` runs the same pipeline, so a blade gets the
//! same figures from both.
//!
//! Failures are statuses with their reason, never panics: a design the geometry rejects
//! (out of bounds, crossing sides, non-positive thickness, overlapping neighbours, a wall the
//! mesher cannot mesh) is `InvalidGeometry`, answered before any mesh is made; a mesher error
//! `MeshFailure`, a blow-up that the recovery chain could not cure `Diverged` (every attempt in
//! `diagnostics.attempts`), an exhausted iteration budget `NotConverged` (objectives still
//! reported), anything else `Failed`.
//!
//! Warm start: the baseline design is solved once (cold) and cached; a later design starts from
//! the baseline solution, resampled onto its blocks where their sizes differ, which saves most
//! of the start-up transient.
//!
//! Batches ([`Evaluator::evaluate_batch`]) fill the CPU: by default one design per core, each
//! with a single-threaded backend (see [`BatchMode`]). Why that default: the CPU backend cuts
//! each sweep into tasks of about 4096 cells, so a coarse LS89 mesh (~15k cells) offers only a
//! handful of tasks per operation and a barrier after each of the ~10 operations of an RK stage;
//! one solve cannot keep 16 cores busy, whereas independent designs need no synchronization at
//! all. On the 2-core development machine the two modes measured alike (CPU time per
//! design-iteration 48 vs 45 ms, tests/eval_cfd_long.rs), as expected with 2 threads.
//!
//! GPU (`backend: Gpu(device: N)`, a build with the `cuda` feature, explicit scheme only): the
//! evaluator opens the device once, on first use (opening compiles the CUDA kernels), and keeps
//! it; the designs of a batch take turns on it, one solve at a time (a rayon fan-out onto one
//! device would only interleave their kernels). The pipeline is the CPU's: only the solve runs
//! on the device (`cascade::SolvesCases`). A missing device, driver or `cuda` feature fails
//! every evaluation with a status naming the cause, and [`CfdEvaluator::check_backend`] reports
//! it once, before a campaign starts. A later step stacks a generation's meshes as blocks of
//! one device problem (the solver is block-structured already, and interfaces are lookup
//! tables, so designs never mix) to fill the GPU.

pub use super::cfd_config::{
    default_rans_config, BackendChoice, BatchMode, BatchSettings, EvaluatorConfig, MeshSettings, Scheme, SolverSettings,
};
use super::objectives::{constraint_value, Objective, PointFlow, ResolvedObjective};
use super::{DesignSpace, Diagnostics, Evaluation, Evaluator, Status};
use crate::backend::cpu::CpuBackend;
use crate::cascade::{
    solve_point, BladeChoice, CascadeError, CascadeSetup, CheckedBlade, PointFailure, PointFigures, PointRun, PointSolve, PreparedCascade, SolvesCases,
    Start,
};
use crate::error::{Error, Result};
use crate::flow::case::OperatingPoint;
use crate::flow::solution::Solution;
use crate::geometry::{load_blade_file, BladeFile, Outline};
use crate::mesh::Mesh;
use crate::post::{read_measured_mis, SurfacePoint};
use crate::perf::auto::AutoChoice;
use crate::solver::Silent;
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::OnceLock;
use std::time::Instant;
#[cfg(feature = "cuda")]
use {super::gpu_pool::GpuPool, crate::backend::gpu::GpuBackend};

/// Scores designs of one blade file with the RANS solver (see the module notes).
///
/// # Example
///
/// The LS89 baseline and a perturbed design on the coarse mesh (a small iteration budget keeps
/// this doc-test fast; `examples/evaluate_ls89.rs` is the same program):
///
/// ```
/// use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
/// use turbopt::eval::objectives::{Constraint, Objective};
/// use turbopt::eval::{Evaluator, Status};
///
/// let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
/// config.operating_points = vec!["MUR47".into()];
/// config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient];
/// config.constraints = vec![Constraint::ExitAngleAtLeast(74.0)];
/// config.solver.max_iterations = 20;
/// let evaluator = CfdEvaluator::new(config)?;
///
/// let baseline = evaluator.space().baseline.clone();
/// let mut perturbed = baseline.clone();
/// if let Some(x) = perturbed.first_mut() {
///     *x += 0.1 * (evaluator.space().upper[0] - *x);
/// }
/// for design in [baseline, perturbed] {
///     let e = evaluator.evaluate(&design);
///     assert!(matches!(e.status, Status::Ok | Status::NotConverged(_)), "{:?}", e.status);
///     assert!(e.objectives.iter().all(|v| v.is_finite()));
///     println!("{:?}: objectives {:?}, constraints {:?}", e.status, e.objectives, e.constraints);
/// }
/// # Ok::<(), turbopt::Error>(())
/// ```
pub struct CfdEvaluator {
    config: EvaluatorConfig,
    blade: BladeFile,
    space: DesignSpace,
    /// Gas, operating points, density, mesh settings and exit plane of every run.
    setup: CascadeSetup,
    objectives: Vec<ResolvedObjective>,
    baseline: OnceLock<std::result::Result<Baseline, String>>,
    /// The GPU backends of `backend: Gpu` (one per design in flight), opened on first use, or
    /// why the device could not be (the message of the `Error::Gpu`).
    #[cfg(feature = "cuda")]
    gpu: OnceLock<std::result::Result<GpuPool, String>>,
    /// The model's choice when the config said `Auto`.
    auto_choice: Option<AutoChoice>,
}

/// Resolves `scheme: Auto` / `backend: Auto` of `config` with the performance model of its
/// blade at its first operating point and density (`crate::perf::auto`); None when neither is
/// `Auto`. A campaign resolves once, before its first evaluation: every design gets the choice
/// made for the blade file's own profile.
pub fn resolve_auto(config: &mut EvaluatorConfig) -> Result<Option<AutoChoice>> {
    let case = config.operating_points.first().cloned();
    crate::perf::auto::resolve(&mut config.solver, &config.blade, case.as_deref(), config.density)
}

/// The converged flows of one design, one entry per operating point.
struct SolvedFlows {
    block_sizes: Vec<(usize, usize)>,
    /// Solution, mass flow and the density residual its orders counted from. A warm start
    /// converges to the baseline's absolute residual level (its reference lowered by
    /// `convergence_orders`), not `convergence_orders` below its own, already small, first
    /// residual.
    solutions: Vec<Solution>,
    mass_flows: Vec<f64>,
    residual_references: Vec<f64>,
}

/// What the baseline design leaves for later designs.
struct Baseline {
    flows: SolvedFlows,
    evaluation: Evaluation,
}

/// A design solved at every operating point.
struct SolvedDesign {
    outline: Outline,
    block_sizes: Vec<(usize, usize)>,
    points: Vec<PointSolve>,
    start: FlowStart,
    /// `Backend::name` of the backend that solved it.
    backend: String,
}

/// The warm start of a design: per operating point the starting flow and the density
/// residual its orders count from (the baseline's).
struct WarmStart<'a> {
    solutions: Cow<'a, [Solution]>,
    references: &'a [f64],
}

/// Where a design's solves start from.
#[derive(Clone, Copy, PartialEq)]
enum FlowStart {
    /// The quasi-one-dimensional cascade start.
    Cold,
    /// The baseline's converged flow, on a mesh with the baseline's block sizes.
    Warm,
    /// The baseline's converged flow resampled onto the design's blocks, whose sizes differ
    /// (`Solution::resampled`).
    WarmResampled,
}

impl FlowStart {
    /// What the diagnostics' scheme name gets appended.
    fn label(self) -> &'static str {
        match self {
            FlowStart::Cold => "",
            FlowStart::Warm => " (warm start)",
            FlowStart::WarmResampled => " (warm start, resampled onto the design's mesh)",
        }
    }
}

/// A failed stage of the pipeline.
type Stage<T> = std::result::Result<T, Status>;

/// The status of a blade that did not get as far as a solve.
fn cascade_status(e: CascadeError) -> Status {
    match e {
        CascadeError::Geometry(_) => Status::InvalidGeometry(e.to_string()),
        CascadeError::Unmeshable(ref u) if u.is_blade() => Status::InvalidGeometry(e.to_string()),
        CascadeError::Unmeshable(_) | CascadeError::Mesh(_) => Status::MeshFailure(e.to_string()),
        CascadeError::Planes(_) | CascadeError::NonFiniteFigures { .. } => Status::Failed(e.to_string()),
    }
}

/// The status of a point that could not be solved (`op`: its name).
fn point_status(op: &str, failure: &PointFailure) -> Status {
    let tried = match failure.attempts.len() {
        0 | 1 => String::new(),
        n => format!(" ({n} attempts, each in diagnostics.attempts)"),
    };
    let reason = format!("{op}: {}{tried}", failure.error);
    match failure.error.solver_error() {
        Some(Error::Diverged { .. }) => Status::Diverged(reason),
        Some(Error::Mesh(_)) => Status::MeshFailure(reason),
        _ => Status::Failed(reason),
    }
}

impl CfdEvaluator {
    /// Loads the blade file and the objective data, and checks the operating points.
    pub fn new(mut config: EvaluatorConfig) -> Result<Self> {
        let auto_choice = resolve_auto(&mut config)?;
        config.validate().map_err(|reason| Error::Input { path: "evaluator config".into(), reason })?;
        let blade = load_blade_file(&config.blade)?;
        let space = blade.design_space().unwrap_or(DesignSpace { names: vec![], lower: vec![], upper: vec![], baseline: vec![] });
        let points = if config.operating_points.is_empty() {
            vec![blade.operating_points[0].clone()]
        } else {
            config.operating_points.iter().map(|n| blade.operating_point(n).cloned()).collect::<Result<Vec<_>>>()?
        };
        let setup = CascadeSetup {
            mesh: config.mesh.clone(),
            exit_plane_axial_chords: config.exit_plane_axial_chords,
            ..CascadeSetup::new(&blade, points, config.density)
        };
        let objectives = config.objectives.iter().map(resolve_objective).collect::<Result<Vec<_>>>()?;
        Ok(CfdEvaluator {
            config,
            blade,
            space,
            setup,
            objectives,
            baseline: OnceLock::new(),
            #[cfg(feature = "cuda")]
            gpu: OnceLock::new(),
            auto_choice,
        })
    }

    /// What the performance model chose for `scheme: Auto` / `backend: Auto`, and why.
    pub fn auto_choice(&self) -> Option<&AutoChoice> {
        self.auto_choice.as_ref()
    }

    /// [`CfdEvaluator::new`] from a RON config file.
    pub fn from_ron_file(path: &std::path::Path) -> Result<Self> {
        Self::new(EvaluatorConfig::from_ron_file(path)?)
    }

    pub fn config(&self) -> &EvaluatorConfig {
        &self.config
    }

    pub fn blade_file(&self) -> &BladeFile {
        &self.blade
    }

    pub fn operating_points(&self) -> &[OperatingPoint] {
        &self.setup.points
    }

    /// Gas, operating points, density, mesh settings and exit plane of every run.
    pub fn setup(&self) -> &CascadeSetup {
        &self.setup
    }

    /// Evaluates the blade file's main definition (not the design parameterization): for LS89
    /// the published Bezier profile. Cold start, all cores of the configured backend.
    pub fn evaluate_main_blade(&self) -> Evaluation {
        self.guarded(|| match self.check(BladeChoice::Main) {
            Ok(blade) => self.run(blade, None, self.cpu_threads()),
            Err(status) => Evaluation::failed(status),
        })
    }

    /// The mesh a design gets (for inspection and pictures); errors carry the failed status.
    pub fn design_mesh(&self, design: &[f64]) -> std::result::Result<Mesh, Status> {
        Ok(self.prepare(self.check(BladeChoice::Design(design))?)?.mesh)
    }

    /// The mesh of the blade file's main definition.
    pub fn main_blade_mesh(&self) -> std::result::Result<Mesh, Status> {
        Ok(self.prepare(self.check(BladeChoice::Main)?)?.mesh)
    }

    /// Stages 1-2 of the pipeline: the checked blade and its passage (no mesh yet).
    fn check(&self, choice: BladeChoice) -> Stage<CheckedBlade> {
        CheckedBlade::new(&self.blade, choice, &self.setup).map_err(cascade_status)
    }

    /// Stages 3-4: mesh and planes.
    fn prepare(&self, blade: CheckedBlade) -> Stage<PreparedCascade> {
        blade.mesh(&self.setup).map_err(cascade_status)
    }

    /// Solves the baseline (cold) once; later calls return the cached result.
    fn baseline(&self) -> &std::result::Result<Baseline, String> {
        self.baseline.get_or_init(|| {
            let checked = match self.check(BladeChoice::Design(&self.space.baseline)) {
                Ok(c) => c,
                Err(status) => return Err(format!("baseline design failed: {status:?}")),
            };
            let (result, flows) = self.run_with_flows(checked, None, self.cpu_threads());
            match (result.status.is_ok() || matches!(result.status, Status::NotConverged(_)), flows) {
                (true, Some(flows)) => Ok(Baseline { flows, evaluation: result }),
                _ => Err(format!("baseline design failed: {:?}", result.status)),
            }
        })
    }

    fn needs_baseline(&self) -> bool {
        self.config.warm_start || self.config.constraints.iter().any(|c| c.needs_baseline())
    }

    fn cpu_threads(&self) -> Option<usize> {
        match self.config.solver.backend {
            BackendChoice::Cpu { threads } => threads,
            BackendChoice::Gpu { .. } | BackendChoice::Auto { .. } => None,
        }
    }

    /// One design with `threads` solver threads, warm-started from the baseline when possible.
    fn evaluate_with_threads(&self, design: &[f64], threads: Option<usize>) -> Evaluation {
        self.guarded(|| {
            if let Err(status) = self.backend_ready() {
                return Evaluation::failed(status);
            }
            // A bad blade is answered before the (expensive) baseline solve and any mesh.
            let checked = match self.check(BladeChoice::Design(design)) {
                Ok(c) => c,
                Err(status) => return Evaluation::failed(status),
            };
            if !self.needs_baseline() {
                return self.run(checked, None, threads);
            }
            match self.baseline() {
                Ok(b) if design == self.space.baseline.as_slice() => {
                    let mut e = b.evaluation.clone();
                    e.diagnostics.cached = true;
                    e
                }
                Ok(b) => self.run(checked, Some(b), threads),
                Err(reason) => Evaluation::failed(Status::Failed(reason.clone())),
            }
        })
    }

    /// Runs `f`, turning a panic (a bug, never bad input) into a failed status so that one
    /// design cannot take an optimization campaign down.
    fn guarded(&self, f: impl FnOnce() -> Evaluation) -> Evaluation {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(e) => e,
            Err(payload) => {
                let what = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                Evaluation::failed(Status::Failed(format!("internal error (please report): {what}")))
            }
        }
    }

    /// Opens the configured backend now: for `backend: Gpu` the device, once per evaluator
    /// (later calls and evaluations reuse it). An `Error::Gpu` names what is missing (the `cuda`
    /// feature, the driver, the device), so a command can stop with one error before a campaign
    /// instead of failing every design with the same status.
    pub fn check_backend(&self) -> Result<()> {
        match self.config.solver.backend {
            BackendChoice::Cpu { .. } => Ok(()),
            BackendChoice::Gpu { device } => self.open_gpu(device),
            BackendChoice::Auto { .. } => Err(unresolved_auto()),
        }
    }

    /// [`CfdEvaluator::check_backend`] as an evaluation status.
    fn backend_ready(&self) -> Stage<()> {
        self.check_backend().map_err(|e| Status::Failed(e.to_string()))
    }

    #[cfg(feature = "cuda")]
    fn open_gpu(&self, device: usize) -> Result<()> {
        self.gpu_backend(device).map(|_| ())
    }

    #[cfg(not(feature = "cuda"))]
    fn open_gpu(&self, _device: usize) -> Result<()> {
        Err(crate::gpu::not_compiled())
    }

    /// The evaluator's GPU backends, the device opened on the first call.
    #[cfg(feature = "cuda")]
    fn gpu_backend(&self, device: usize) -> Result<&GpuPool> {
        let opened = self.gpu.get_or_init(|| {
            GpuPool::open(device).map_err(|e| match e {
                Error::Gpu(reason) => reason,
                other => other.to_string(),
            })
        });
        opened.as_ref().map_err(|reason| Error::Gpu(reason.clone()))
    }

    fn run(&self, blade: CheckedBlade, baseline: Option<&Baseline>, threads: Option<usize>) -> Evaluation {
        self.run_with_flows(blade, baseline, threads).0
    }

    /// The whole pipeline; also returns the converged flows when every point was solved (the
    /// baseline keeps them).
    fn run_with_flows(&self, blade: CheckedBlade, baseline: Option<&Baseline>, threads: Option<usize>) -> (Evaluation, Option<SolvedFlows>) {
        let start = Instant::now();
        let solved = match self.solve_design(blade, baseline, threads, start) {
            Ok(s) => s,
            Err(e) => return (e, None),
        };
        let reference_flows = baseline.map(|b| b.flows.mass_flows.as_slice());
        let evaluation = self.score(&solved, reference_flows, start);
        let flows = SolvedFlows {
            mass_flows: solved.points.iter().map(|r| r.figures.performance.mass_flow).collect(),
            residual_references: solved.points.iter().map(|r| r.outcome.history.density_reference()).collect(),
            solutions: solved.points.into_iter().map(|r| r.outcome.solution).collect(),
            block_sizes: solved.block_sizes,
        };
        (evaluation, Some(flows))
    }

    /// [`CfdEvaluator::solve_points`] on the configured backend: a CPU backend of `threads`
    /// threads, or the evaluator's GPU (held for the whole design).
    fn solve_design(&self, blade: CheckedBlade, baseline: Option<&Baseline>, threads: Option<usize>, start: Instant) -> std::result::Result<SolvedDesign, Evaluation> {
        match self.config.solver.backend {
            BackendChoice::Cpu { .. } => {
                let backend = CpuBackend::new(threads).map_err(|e| Evaluation::failed(Status::Failed(e.to_string())))?;
                self.solve_points(&backend, blade, baseline, start)
            }
            BackendChoice::Gpu { device } => self.solve_design_on_gpu(device, blade, baseline, start),
            BackendChoice::Auto { .. } => Err(Evaluation::failed(Status::Failed(unresolved_auto().to_string()))),
        }
    }

    #[cfg(feature = "cuda")]
    fn solve_design_on_gpu(&self, device: usize, blade: CheckedBlade, baseline: Option<&Baseline>, start: Instant) -> std::result::Result<SolvedDesign, Evaluation> {
        let failed = |e: Error| Evaluation::failed(Status::Failed(e.to_string()));
        let pool = self.gpu_backend(device).map_err(failed)?;
        let backend: GpuBackend = pool.take().map_err(failed)?;
        let solved = self.solve_points(&backend, blade, baseline, start);
        pool.give_back(backend);
        solved
    }

    /// How many designs of a batch of `designs` run on the GPU at once ([`super::gpu_pool::concurrency`]),
    /// sized from the baseline mesh; 1 when the device cannot be asked.
    #[cfg(feature = "cuda")]
    fn gpu_concurrency(&self, designs: usize) -> usize {
        let BackendChoice::Gpu { device } = self.config.solver.backend else { return 1 };
        let Ok(pool) = self.gpu_backend(device) else { return 1 };
        let Ok((multiprocessors, free)) = pool.capacity() else { return 1 };
        let cells = match self.baseline.get() {
            Some(Ok(b)) => b.flows.block_sizes.iter().map(|(ni, nj)| ni * nj).sum(),
            _ => 100_000,
        };
        let host = std::thread::available_parallelism().map_or(1, |n| n.get());
        let c = super::gpu_pool::concurrency(designs, self.config.batch.workers, host, multiprocessors, free, cells);
        if designs > 1 {
            eprintln!("GPU batch: {designs} designs, {} at once on {} (limited by {})", c.designs_at_once, pool.name(), c.limited_by);
        }
        c.designs_at_once
    }

    #[cfg(not(feature = "cuda"))]
    fn gpu_concurrency(&self, _designs: usize) -> usize {
        1
    }

    #[cfg(not(feature = "cuda"))]
    fn solve_design_on_gpu(&self, _device: usize, _: CheckedBlade, _: Option<&Baseline>, _: Instant) -> std::result::Result<SolvedDesign, Evaluation> {
        Err(Evaluation::failed(Status::Failed(crate::gpu::not_compiled().to_string())))
    }

    /// Mesh -> a solve on `backend` at every operating point, warm-started from `baseline`
    /// (resampled onto the design's blocks where their sizes differ). A failure comes back as
    /// the failed evaluation.
    fn solve_points<B: SolvesCases>(&self, backend: &B, blade: CheckedBlade, baseline: Option<&Baseline>, start: Instant) -> std::result::Result<SolvedDesign, Evaluation> {
        let prepared = self.prepare(blade).map_err(|status| with_wall_time(Evaluation::failed(status), start))?;
        let backend_name = backend.name();
        let block_sizes = prepared.block_sizes();
        let (flow_start, warm) = self.warm_starts(baseline, &block_sizes);
        let extras = |f: &PointFigures| self.objective_values(f);
        let mut points = Vec::with_capacity(self.setup.points.len());
        for (k, op) in self.setup.points.iter().enumerate() {
            let from = match &warm {
                Some(w) => Start::Given { solution: &w.solutions[k], residual_reference: w.references[k] },
                None => Start::Cold,
            };
            let run = PointRun { prepared: &prepared, op, settings: &self.config.solver, extras: &extras };
            match solve_point(backend, &run, from, &mut Silent) {
                Ok(p) => points.push(p),
                Err(failure) => {
                    let mut e = Evaluation::failed(point_status(&op.name, &failure));
                    e.diagnostics = self.diagnostics(&points, &backend_name, flow_start, start);
                    e.diagnostics.iterations += failure.iterations;
                    e.diagnostics.attempts.extend(failure.attempts);
                    return Err(e);
                }
            }
        }
        Ok(SolvedDesign { outline: prepared.section.outline, block_sizes, points, start: flow_start, backend: backend_name })
    }

    /// The start of a design whose mesh has `block_sizes`: the baseline's flows and residual
    /// references per operating point (resampled onto the design's blocks where their sizes
    /// differ), or a cold start without a baseline, with warm starts off, or for another block
    /// layout.
    fn warm_starts<'a>(&self, baseline: Option<&'a Baseline>, block_sizes: &[(usize, usize)]) -> (FlowStart, Option<WarmStart<'a>>) {
        let Some(b) = baseline.map(|b| &b.flows).filter(|_| self.config.warm_start) else {
            return (FlowStart::Cold, None);
        };
        if b.block_sizes == block_sizes {
            return (FlowStart::Warm, Some(WarmStart { solutions: Cow::Borrowed(&b.solutions), references: &b.residual_references }));
        }
        match b.solutions.iter().map(|s| s.resampled(block_sizes)).collect::<Option<Vec<_>>>() {
            Some(resampled) => (FlowStart::WarmResampled, Some(WarmStart { solutions: Cow::Owned(resampled), references: &b.residual_references })),
            None => (FlowStart::Cold, None),
        }
    }

    /// The outline of `design` and its blade-surface Mis at every operating point (for
    /// pictures: a campaign's best design against its baseline). Warm-started like evaluations.
    pub fn design_surfaces(&self, design: &[f64]) -> std::result::Result<(Outline, Vec<Vec<SurfacePoint>>), Status> {
        let baseline = if self.config.warm_start { self.baseline().as_ref().ok() } else { None };
        let checked = self.check(BladeChoice::Design(design))?;
        let solved = self.solve_design(checked, baseline, self.cpu_threads(), Instant::now()).map_err(|e| e.status)?;
        Ok((solved.outline, solved.points.into_iter().map(|r| r.figures.surface).collect()))
    }

    /// The configured objectives at one point.
    fn objective_values(&self, figures: &PointFigures) -> Vec<f64> {
        let flow = PointFlow { performance: &figures.performance, surface: &figures.surface };
        self.objectives.iter().map(|o| o.value(&flow)).collect()
    }

    /// Objectives (averaged over points), constraints (one per point) and the status.
    /// `reference_flows`: the baseline's mass flow per point (None while the baseline itself is
    /// solved: then its own mass flow is the reference).
    fn score(&self, solved: &SolvedDesign, reference_flows: Option<&[f64]>, start: Instant) -> Evaluation {
        let n = solved.points.len() as f64;
        let per_point: Vec<Vec<f64>> = solved.points.iter().map(|p| self.objective_values(&p.figures)).collect();
        let objectives = (0..self.objectives.len()).map(|k| per_point.iter().map(|v| v[k]).sum::<f64>() / n).collect();
        let mut constraints = Vec::new();
        for (k, p) in solved.points.iter().enumerate() {
            let flow = PointFlow { performance: &p.figures.performance, surface: &p.figures.surface };
            let m0 = reference_flows.map_or(p.figures.performance.mass_flow, |m| m[k]);
            constraints.extend(self.config.constraints.iter().map(|c| constraint_value(c, &flow, Some(m0))));
        }
        let diagnostics = self.diagnostics(&solved.points, &solved.backend, solved.start, start);
        let status = self.convergence_status(&solved.points);
        Evaluation { objectives, constraints, status, diagnostics }
    }

    fn convergence_status(&self, points: &[PointSolve]) -> Status {
        let s = &self.config.solver;
        let short: Vec<String> = points
            .iter()
            .zip(&self.setup.points)
            .filter(|(p, _)| !(p.stop.converged() || s.accept_orders.is_some_and(|a| p.outcome.history.orders_dropped() >= a)))
            .map(|(p, op)| {
                format!(
                    "{}: {} iterations, density residual dropped {:.2} of {} orders, figures not steady",
                    op.name,
                    p.iterations,
                    p.outcome.history.orders_dropped(),
                    s.convergence_orders
                )
            })
            .collect();
        if short.is_empty() {
            Status::Ok
        } else {
            Status::NotConverged(format!("iteration budget exhausted: {}", short.join("; ")))
        }
    }

    fn diagnostics(&self, points: &[PointSolve], backend: &str, flow_start: FlowStart, start: Instant) -> Diagnostics {
        Diagnostics {
            iterations: points.iter().map(|p| p.iterations).sum(),
            residual_drop_orders: points.iter().map(|p| p.outcome.history.orders_dropped()).fold(f64::INFINITY, f64::min),
            wall_s: start.elapsed().as_secs_f64(),
            backend: backend.to_string(),
            scheme: format!("{}{}", self.config.solver.scheme.name(), flow_start.label()),
            cached: false,
            stops: points.iter().zip(&self.setup.points).map(|(p, op)| format!("{}: {}", op.name, p.stop.describe())).collect(),
            attempts: points.iter().filter(|p| p.attempts.len() > 1).flat_map(|p| p.attempts.iter().cloned()).collect(),
        }
        .finite_drop()
    }
}

impl Diagnostics {
    /// No point solved: no residual drop to report.
    fn finite_drop(mut self) -> Self {
        if !self.residual_drop_orders.is_finite() {
            self.residual_drop_orders = 0.0;
        }
        self
    }
}

fn with_wall_time(mut e: Evaluation, start: Instant) -> Evaluation {
    e.diagnostics.wall_s = start.elapsed().as_secs_f64();
    e
}

fn resolve_objective(o: &Objective) -> Result<ResolvedObjective> {
    match o {
        Objective::MisRms { target } => Ok(ResolvedObjective::MisRms { name: o.name(), target: read_measured_mis(target)? }),
        other => Ok(ResolvedObjective::Plain(other.clone())),
    }
}

impl Evaluator for CfdEvaluator {
    fn space(&self) -> &DesignSpace {
        &self.space
    }

    fn objective_names(&self) -> Vec<String> {
        self.objectives.iter().map(|o| o.name()).collect()
    }

    /// One name per constraint and operating point (`name@point`), point-major.
    fn constraint_names(&self) -> Vec<String> {
        self.setup
            .points
            .iter()
            .flat_map(|op| self.config.constraints.iter().map(move |c| format!("{}@{}", c.name(), op.name)))
            .collect()
    }

    fn evaluate(&self, design: &[f64]) -> Evaluation {
        self.evaluate_with_threads(design, self.cpu_threads())
    }

    /// Fills the CPU: the baseline is solved first (all cores), then the designs run either one
    /// per worker with single-threaded backends ([`BatchMode::DesignPerCore`]) or one after the
    /// other on all cores ([`BatchMode::SharedPool`]). On the GPU, the baseline first, then
    /// several designs at once, each on its own stream ([`super::gpu_pool`]). Results come back
    /// in input order.
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        if self.needs_baseline() && self.backend_ready().is_ok() {
            let _ = self.baseline();
        }
        if let BackendChoice::Gpu { .. } = self.config.solver.backend {
            let at_once = self.gpu_concurrency(designs.len());
            return run_concurrently(designs, at_once, |d| self.evaluate(d));
        }
        let workers = self.config.batch.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        match self.config.batch.mode {
            BatchMode::SharedPool => designs.iter().map(|d| self.evaluate_with_threads(d, Some(workers))).collect(),
            BatchMode::DesignPerCore => {
                let pool = match rayon::ThreadPoolBuilder::new().num_threads(workers).build() {
                    Ok(p) => p,
                    Err(e) => {
                        let status = Status::Failed(format!("cannot start the batch thread pool: {e}"));
                        return designs.iter().map(|_| Evaluation::failed(status.clone())).collect();
                    }
                };
                pool.install(|| designs.par_iter().with_max_len(1).map(|d| self.evaluate_with_threads(d, Some(1))).collect())
            }
        }
    }
}

/// `evaluate` over `designs` with up to `at_once` in flight (host threads taking the next design
/// as they finish one); results in input order.
fn run_concurrently(designs: &[Vec<f64>], at_once: usize, evaluate: impl Fn(&[f64]) -> Evaluation + Sync) -> Vec<Evaluation> {
    if at_once <= 1 || designs.len() <= 1 {
        return designs.iter().map(|d| evaluate(d)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Evaluation>>> = designs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..at_once.min(designs.len()) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(design) = designs.get(k) else { break };
                let e = evaluate(design);
                *results[k].lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|p| p.into_inner()).unwrap_or_else(|| Evaluation::failed(Status::Failed("the batch worker stopped".into()))))
        .collect()
}

/// `Auto` reaching a solve: [`CfdEvaluator::new`] resolves it, so this is a settings value set
/// after construction.
fn unresolved_auto() -> Error {
    Error::Other("backend Auto was not resolved by the performance model (CfdEvaluator::new resolves it)".into())
}
