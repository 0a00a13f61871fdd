//! The CFD evaluator: design vector -> the cascade pipeline ([`crate::cascade`]: checked blade,
//! passage, five-block mesh, planes, start, solve with the recovery chain and the steady-figures stop,
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
//! GPU (`backend: Gpu(device: N)`, `Gpu(devices: All)` or `Gpu(devices: [0, 1])`, a build
//! with the `cuda` feature): the evaluator opens one worker per listed device once, on first
//! use (opening compiles the CUDA kernels), and keeps them; the designs of a batch go to the
//! workers' streams as they free up (`backend::pool`, `eval::dispatch`), several at once per
//! device. The pipeline is the CPU's: only the solve runs on the device
//! (generic over the backend, `backend::select`). A missing device, driver or `cuda` feature fails every evaluation
//! with a status naming the cause, and [`CfdEvaluator::check_backend`] reports it once, before
//! a campaign starts. A device error during a design is its worker's fault, not the design's:
//! the design is queued once more (`eval::dispatch`).

pub use super::cfd_config::{
    BackendChoice, BatchMode, BatchSettings, Devices, EvaluatorConfig, FigureSettings, MeshSettings, SchemeChoice, SolverSettings, WarmStartFrom, FIGURES,
};
use super::archive::{RecentDesigns, Archived};
use super::dispatch::{panic_message, run_on_workers, WorkerOutcome};
use super::donors::{nearest, ARCHIVE_SIZE};
use super::objectives::{constraint_value, Objective, PointChoice, PointFlow, ResolvedObjective};
use super::{DesignSpace, Diagnostics, Evaluation, Evaluator, Status};
use crate::backend::pool::DevicePool;
use crate::backend::select::{unresolved_auto, BackendTask, OpenBackend};
use crate::backend::ImplicitBackend;
use crate::cascade::{
    coarser_meshes, solve_point, solve_sequenced, BladeChoice, CascadeError, CascadeSetup, CheckedBlade, CoarserSolve, PointFailure, PointFigures, PointRun,
    PointSolve, PreparedCascade, Start, Stop,
};
use crate::error::{Error, Result};
use crate::flow::case::OperatingPoint;
use crate::flow::solution::Solution;
use crate::geometry::{load_blade_file, BladeFile, Outline};
use crate::mesh::{Density, Mesh};
use crate::post::{read_measured_mis, SurfacePoint};
use crate::perf::auto::AutoChoice;
use crate::solver::{Silent, StopSignal, Stoppable};
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

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
    /// How each objective combines the operating points (aligned with `objectives`).
    point_choices: Vec<PointChoice>,
    baseline: OnceLock<std::result::Result<Baseline, String>>,
    /// Held while the baseline is solved, so that it is solved once.
    baseline_solve: Mutex<()>,
    /// What `baseline()` answers when its solve was stopped (not kept in `baseline`).
    interrupted_baseline: std::result::Result<Baseline, String>,
    /// Stops the evaluator's solves (`stop_signal`).
    stop: StopSignal,
    /// Converged designs of earlier batches, the starts of `warm_start_from: Nearest`.
    donors: RecentDesigns<SolvedFlows>,
    /// The outlines and blade-surface figures of the last [`SURFACES_KEPT`] designs solved, so
    /// that a campaign's pictures show the solutions its evaluations scored.
    surfaces: RecentDesigns<DesignSurfaces>,
    /// Designs solved at every operating point (or failed trying), pictures included.
    designs_solved: AtomicUsize,
    /// The GPU workers of `backend: Gpu` (one per listed device, each with a backend per
    /// design in flight), opened on first use, or why they could not be.
    gpu: OnceLock<std::result::Result<DevicePool, GpuUnavailable>>,
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

/// Why the GPU workers could not be opened (kept for every later evaluation).
enum GpuUnavailable {
    Devices(crate::error::DevicesError),
    Other(String),
}

/// Where one design is solved.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Placement {
    /// A CPU backend of this many threads (None: one per core).
    Cpu { threads: Option<usize> },
    /// A stream of GPU worker `worker` (`backend::pool`).
    Gpu { worker: usize },
    /// `backend: Auto` that the performance model did not resolve (a bug: `new` resolves it).
    UnresolvedAuto,
}

/// A design that got no solution: its failed evaluation, and the device fault behind it when
/// the worker, not the design, failed.
struct Unsolved {
    evaluation: Evaluation,
    device_fault: Option<String>,
}

impl Unsolved {
    fn design(evaluation: Evaluation) -> Self {
        Unsolved { evaluation, device_fault: None }
    }

    fn fault(reason: String) -> Self {
        Unsolved { evaluation: Evaluation::failed(Status::Failed(reason.clone())), device_fault: Some(reason) }
    }
}

/// One run of the pipeline: the evaluation, the converged flows and the surface figures when
/// every point was solved (the baseline keeps them), and the device fault when the worker failed.
struct Run {
    evaluation: Evaluation,
    flows: Option<SolvedFlows>,
    surfaces: Option<DesignSurfaces>,
    device_fault: Option<String>,
}

impl Run {
    /// The outcome for the dispatcher, and the flows of a converged design.
    fn outcome(self) -> (WorkerOutcome, Option<SolvedFlows>) {
        match self.device_fault {
            Some(reason) => (WorkerOutcome::WorkerFault(reason), None),
            None => {
                let flows = self.flows.filter(|_| matches!(self.evaluation.status, Status::Ok));
                (WorkerOutcome::Evaluated(self.evaluation), flows)
            }
        }
    }
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

/// What the baseline design leaves for later designs (and for the pictures).
struct Baseline {
    flows: SolvedFlows,
    evaluation: Evaluation,
    surfaces: Option<Arc<DesignSurfaces>>,
}

/// How many designs' surface figures an evaluator keeps (about 25 kB each on a coarse mesh):
/// every design of the shipped campaigns; a longer campaign whose best design is older solves it
/// once more for its pictures.
pub const SURFACES_KEPT: usize = 256;

/// A solved design's outline and, per operating point, its blade-surface figures.
struct DesignSurfaces {
    outline: Outline,
    surfaces: Vec<Vec<SurfacePoint>>,
}

/// A design solved at every operating point.
struct SolvedDesign {
    outline: Outline,
    mesh_quality: crate::mesh::quality::QualitySummary,
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

/// The converged flows a design starts from, and the residual references its orders count from
/// (always the baseline's).
#[derive(Clone, Copy)]
struct WarmSource<'a> {
    flows: &'a SolvedFlows,
    references: &'a [f64],
    from_donor: bool,
}

/// Where a design's solves start from.
#[derive(Clone, Copy, PartialEq)]
enum FlowStart {
    /// The quasi-one-dimensional cascade start.
    Cold,
    /// A converged flow: the baseline's, or a nearer evaluated design's (`from_donor`,
    /// `warm_start_from: Nearest`), resampled onto the design's blocks where their sizes differ
    /// (`Solution::resampled`).
    Warm { from_donor: bool, resampled: bool },
    /// The cold start on the coarser meshes the settings sequence (`cascade::sequencing`), the
    /// design's mesh from the finest one's flow; their iterations are counted in.
    Sequenced { from: Density },
    /// The same, but the finest coarser solve passed no flow on (it did not converge, or its
    /// mesh could not be made), so the design's mesh started cold; the coarser iterations are
    /// counted in all the same.
    SequencingFellBack { from: Density },
}

impl FlowStart {
    /// What the diagnostics' scheme name gets appended.
    fn label(self) -> String {
        match self {
            FlowStart::Cold => String::new(),
            FlowStart::Sequenced { from } => format!(" (mesh sequencing from the {} mesh, its iterations included)", from.name()),
            FlowStart::SequencingFellBack { from } => format!(" (cold start: the {} mesh's solve passed no flow on; its iterations included)", from.name()),
            FlowStart::Warm { from_donor: false, resampled: false } => " (warm start)".into(),
            FlowStart::Warm { from_donor: false, resampled: true } => " (warm start, resampled onto the design's mesh)".into(),
            FlowStart::Warm { from_donor: true, resampled: false } => " (warm start from a nearer evaluated design)".into(),
            FlowStart::Warm { from_donor: true, resampled: true } => " (warm start from a nearer evaluated design, resampled onto the design's mesh)".into(),
        }
    }
}

/// The solves of one design at every operating point, on whichever backend runs it
/// ([`CfdEvaluator::solve_points`]).
struct SolvePoints<'e, 'w> {
    evaluator: &'e CfdEvaluator,
    blade: CheckedBlade,
    from: Option<WarmSource<'w>>,
    start: Instant,
}

impl BackendTask for SolvePoints<'_, '_> {
    type Output = std::result::Result<SolvedDesign, Unsolved>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output {
        self.evaluator.solve_points(backend, self.blade, self.from, self.start)
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
        let points = points
            .into_iter()
            .map(|mut op| {
                config.free_stream.apply_to(&mut op);
                op
            })
            .collect::<Vec<OperatingPoint>>();
        // A transition model without its onset would fail every design: refused here.
        for op in &points {
            crate::solver::config::check_transition_onset(config.solver.config.model, op).map_err(|e| Error::Input {
                path: "evaluator config".into(),
                reason: format!("{e}: set it in `free_stream: (turbulence_intensity: Some(...))` or on the point"),
            })?;
        }
        let setup = CascadeSetup {
            mesh: config.mesh.clone(),
            exit_plane_axial_chords: config.exit_plane_axial_chords,
            ..CascadeSetup::new(&blade, points, config.density).with_model(config.solver.config.model)
        };
        let objectives = config.objectives.iter().map(resolve_objective).collect::<Result<Vec<_>>>()?;
        let point_names: Vec<String> = setup.points.iter().map(|p| p.name.clone()).collect();
        let point_choices = config.objectives.iter().map(|o| o.points(&point_names)).collect::<Result<Vec<_>>>()?;
        Ok(CfdEvaluator {
            config,
            blade,
            space,
            setup,
            objectives,
            point_choices,
            baseline: OnceLock::new(),
            baseline_solve: Mutex::new(()),
            interrupted_baseline: Err("the baseline solve was stopped at the caller's request".into()),
            stop: StopSignal::new(),
            donors: RecentDesigns::with_capacity(ARCHIVE_SIZE),
            surfaces: RecentDesigns::with_capacity(SURFACES_KEPT),
            designs_solved: AtomicUsize::new(0),
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
            Ok(blade) => self.run(blade, None, None, self.whole_backend()).evaluation,
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

    /// Solves the baseline (cold) once; later calls return the kept result. A baseline solve
    /// cut short by the stop signal is not kept: the next call after the signal is cleared solves
    /// it again.
    fn baseline(&self) -> &std::result::Result<Baseline, String> {
        if let Some(kept) = self.baseline.get() {
            return kept;
        }
        let _one_at_a_time = self.baseline_solve.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(kept) = self.baseline.get() {
            return kept;
        }
        let solved = self.solve_baseline();
        if self.stop.requested() {
            return &self.interrupted_baseline;
        }
        self.baseline.get_or_init(|| solved)
    }

    fn solve_baseline(&self) -> std::result::Result<Baseline, String> {
        let checked = match self.check(BladeChoice::Design(&self.space.baseline)) {
            Ok(c) => c,
            Err(status) => return Err(format!("baseline design failed: {status}")),
        };
        let Run { evaluation: result, flows, surfaces, .. } = self.run(checked, None, None, self.whole_backend());
        match (result.status.is_ok() || matches!(result.status, Status::NotConverged(_)), flows) {
            (true, Some(flows)) => Ok(Baseline { flows, evaluation: result, surfaces: surfaces.map(Arc::new) }),
            _ => Err(format!("baseline design failed: {:?}", result.status)),
        }
    }

    /// The signal that stops this evaluator's work: once requested, every solve in progress
    /// stops after its current iteration and every design not finished is answered with
    /// [`Status::Interrupted`]; clear it to evaluate again.
    pub fn stop_signal(&self) -> StopSignal {
        self.stop.clone()
    }

    /// The status of a design stopped by the stop signal.
    fn interrupted(&self, when: &str) -> Evaluation {
        Evaluation::failed(Status::Interrupted(format!("stopped at the caller's request {when}")))
    }

    fn needs_baseline(&self) -> bool {
        self.config.warm_start || self.config.constraints.iter().any(|c| c.needs_baseline())
    }

    /// The configured backend as a whole: all its CPU threads, or the first GPU worker (single
    /// evaluations and the baseline).
    fn whole_backend(&self) -> Placement {
        match &self.config.solver.backend {
            BackendChoice::Cpu { threads } => Placement::Cpu { threads: *threads },
            BackendChoice::Gpu { .. } => Placement::Gpu { worker: 0 },
            BackendChoice::Auto { .. } => Placement::UnresolvedAuto,
        }
    }

    /// One design at `place`, warm-started from the baseline, or from the nearest of `donors`
    /// under `warm_start_from: Nearest`, when possible. Returns its flows too when it converged
    /// (a donor for later batches). Not guarded: a panic is its worker dying (`eval::dispatch`
    /// catches it; [`Evaluator::evaluate`] turns it into a failed status).
    fn evaluate_placed(&self, design: &[f64], place: Placement, donors: &[Archived<SolvedFlows>]) -> (WorkerOutcome, Option<SolvedFlows>) {
        let answered = |e: Evaluation| (WorkerOutcome::Evaluated(e), None);
        if self.stop.requested() {
            return answered(self.interrupted("before the design was evaluated"));
        }
        if let Err(status) = self.backend_ready() {
            return answered(Evaluation::failed(status));
        }
        // A bad blade is answered before the (expensive) baseline solve and any mesh.
        let checked = match self.check(BladeChoice::Design(design)) {
            Ok(c) => c,
            Err(status) => return answered(Evaluation::failed(status)),
        };
        if !self.needs_baseline() {
            return self.run_keeping_surfaces(design, checked, None, None, place);
        }
        match self.baseline() {
            Ok(b) if design == self.space.baseline.as_slice() => {
                let mut e = b.evaluation.clone();
                e.diagnostics.cached = true;
                answered(e)
            }
            Ok(b) => self.run_keeping_surfaces(design, checked, Some(b), self.nearest_donor(donors, design), place),
            Err(_) if self.stop.requested() => answered(self.interrupted("while the baseline was solved")),
            Err(reason) => answered(Evaluation::failed(Status::Failed(reason.clone()))),
        }
    }

    /// [`Self::run`], keeping `design`'s surface figures for the pictures.
    fn run_keeping_surfaces(&self, design: &[f64], blade: CheckedBlade, baseline: Option<&Baseline>, donor: Option<&SolvedFlows>, place: Placement) -> (WorkerOutcome, Option<SolvedFlows>) {
        let mut run = self.run(blade, baseline, donor, place);
        if let Some(surfaces) = run.surfaces.take() {
            self.surfaces.extend([Archived { design: design.to_vec(), data: Arc::new(surfaces) }]);
        }
        run.outcome()
    }

    /// The flows of the donor nearest to `design` in the design space scaled by its bounds, when
    /// one is nearer than the baseline.
    fn nearest_donor<'a>(&self, donors: &'a [Archived<SolvedFlows>], design: &[f64]) -> Option<&'a SolvedFlows> {
        nearest(donors, design, &self.space.baseline, &self.space.lower, &self.space.upper).map(|d| d.data.as_ref())
    }

    /// Whether converged designs are kept as donors (`warm_start_from: Nearest`).
    fn keeps_donors(&self) -> bool {
        self.config.warm_start && self.config.warm_start_from == WarmStartFrom::Nearest
    }

    /// The donors a batch starting now may use: none unless [`Self::keeps_donors`].
    fn donor_snapshot(&self) -> Vec<Archived<SolvedFlows>> {
        if self.keeps_donors() { self.donors.snapshot() } else { Vec::new() }
    }

    /// Keeps the converged designs of a finished batch as donors, in the batch's order.
    fn keep_donors(&self, finished: impl IntoIterator<Item = (Vec<f64>, SolvedFlows)>) {
        if self.keeps_donors() {
            self.donors.extend(finished.into_iter().map(|(design, flows)| Archived { design, data: Arc::new(flows) }));
        }
    }

    /// Runs `f`, turning a panic (a bug, never bad input) into a failed status so that one
    /// design cannot take an optimization campaign down.
    fn guarded(&self, f: impl FnOnce() -> Evaluation) -> Evaluation {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            Ok(e) => e,
            Err(payload) => Evaluation::failed(Status::Failed(format!("internal error (please report): {}", panic_message(payload.as_ref())))),
        }
    }

    /// Where the designs of a batch of `designs` run at once, one entry per host thread: CPU
    /// threads ([`BatchMode`]) or GPU streams, dealt round-robin over the GPU workers so that
    /// a small batch still reaches every device (`announce`: print the GPU plan).
    fn batch_places(&self, designs: usize, announce: bool) -> Vec<Placement> {
        if let BackendChoice::Gpu { .. } = self.config.solver.backend {
            let per_worker = self.gpu_plan(designs, announce);
            let rounds = per_worker.iter().copied().max().unwrap_or(1);
            return (0..rounds)
                .flat_map(|r| per_worker.iter().enumerate().filter(move |(_, &n)| r < n).map(|(worker, _)| Placement::Gpu { worker }))
                .collect();
        }
        let workers = self.config.batch.workers.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        match self.config.batch.mode {
            BatchMode::SharedPool => vec![Placement::Cpu { threads: Some(workers) }],
            BatchMode::DesignPerCore => vec![Placement::Cpu { threads: Some(1) }; workers],
        }
    }

    /// Opens the configured backend now: for `backend: Gpu` the device, once per evaluator
    /// (later calls and evaluations reuse it). An `Error::Gpu` names what is missing (the `cuda`
    /// feature, the driver, the device), so a command can stop with one error before a campaign
    /// instead of failing every design with the same status.
    pub fn check_backend(&self) -> Result<()> {
        match &self.config.solver.backend {
            BackendChoice::Cpu { .. } => Ok(()),
            BackendChoice::Gpu { .. } => self.open_gpu(),
            BackendChoice::Auto { .. } => Err(unresolved_auto()),
        }
    }

    /// [`CfdEvaluator::check_backend`] as an evaluation status.
    fn backend_ready(&self) -> Stage<()> {
        self.check_backend().map_err(|e| Status::Failed(e.to_string()))
    }

    fn open_gpu(&self) -> Result<()> {
        self.gpu_pool().map(|_| ())
    }

    /// The evaluator's GPU workers, opened on the first call (one per listed device).
    fn gpu_pool(&self) -> Result<&DevicePool> {
        let opened = self.gpu.get_or_init(|| {
            let devices = match &self.config.solver.backend {
                BackendChoice::Gpu { devices } => devices.clone(),
                BackendChoice::Auto { device } => Devices::one(*device),
                BackendChoice::Cpu { .. } => Devices::one(0),
            };
            DevicePool::open(&devices).map_err(|e| match e {
                Error::Devices(d) => GpuUnavailable::Devices(d),
                Error::Gpu(reason) => GpuUnavailable::Other(reason),
                other => GpuUnavailable::Other(other.to_string()),
            })
        });
        opened.as_ref().map_err(|why| match why {
            GpuUnavailable::Devices(d) => Error::Devices(d.clone()),
            GpuUnavailable::Other(reason) => Error::Gpu(reason.clone()),
        })
    }

    /// The whole pipeline at `place`, warm-started from `donor`'s flows when given, else from the
    /// baseline's.
    fn run(&self, blade: CheckedBlade, baseline: Option<&Baseline>, donor: Option<&SolvedFlows>, place: Placement) -> Run {
        let start = Instant::now();
        let solved = match self.solve_design(blade, baseline, donor, place, start) {
            Ok(s) => s,
            Err(u) => return Run { evaluation: u.evaluation, flows: None, surfaces: None, device_fault: u.device_fault },
        };
        let reference_flows = baseline.map(|b| b.flows.mass_flows.as_slice());
        let evaluation = self.score(&solved, reference_flows, start);
        let mass_flows = solved.points.iter().map(|r| r.figures.performance.mass_flow).collect();
        let residual_references = solved.points.iter().map(|r| r.outcome.history.density_reference()).collect();
        let (solutions, surfaces) = solved.points.into_iter().map(|r| (r.outcome.solution, r.figures.surface)).unzip();
        let flows = SolvedFlows { mass_flows, residual_references, solutions, block_sizes: solved.block_sizes };
        Run { evaluation, flows: Some(flows), surfaces: Some(DesignSurfaces { outline: solved.outline, surfaces }), device_fault: None }
    }

    /// [`CfdEvaluator::solve_points`] at `place`: a CPU backend of its threads, or a stream of
    /// a GPU worker (held for the whole design).
    fn solve_design(&self, blade: CheckedBlade, baseline: Option<&Baseline>, donor: Option<&SolvedFlows>, place: Placement, start: Instant) -> std::result::Result<SolvedDesign, Unsolved> {
        self.designs_solved.fetch_add(1, Ordering::Relaxed);
        let from = self.warm_source(baseline, donor);
        match place {
            Placement::Cpu { threads } => {
                let backend = OpenBackend::cpu(threads).map_err(|e| Unsolved::design(Evaluation::failed(Status::Failed(e.to_string()))))?;
                backend.run(SolvePoints { evaluator: self, blade, from, start })
            }
            Placement::Gpu { worker } => self.solve_design_on_gpu(worker, blade, from, start),
            Placement::UnresolvedAuto => Err(Unsolved::design(Evaluation::failed(Status::Failed(unresolved_auto().to_string())))),
        }
    }

    /// A design on a stream of GPU worker `worker`. A stream that cannot be had, a device error
    /// during the solves or one pending after them is the worker's fault.
    fn solve_design_on_gpu(&self, worker: usize, blade: CheckedBlade, from: Option<WarmSource<'_>>, start: Instant) -> std::result::Result<SolvedDesign, Unsolved> {
        let pool = self.gpu_pool().map_err(|e| Unsolved::design(Evaluation::failed(Status::Failed(e.to_string()))))?;
        if worker >= pool.workers() {
            return Err(Unsolved::design(Evaluation::failed(Status::Failed(format!("no GPU worker {worker}")))));
        }
        let on_worker = |e: &dyn std::fmt::Display| pool.on_worker(worker, e);
        let (solved, health) = pool.run(worker, SolvePoints { evaluator: self, blade, from, start }).map_err(|e| Unsolved::fault(on_worker(&e)))?;
        match (solved, health) {
            (Ok(s), Ok(())) => Ok(s),
            (Ok(_), Err(e)) => Err(Unsolved::fault(on_worker(&e))),
            (Err(mut u), health) => {
                if let Some(reason) = u.device_fault.take().or_else(|| health.err().map(|e| e.to_string())) {
                    u.device_fault = Some(on_worker(&reason));
                }
                Err(u)
            }
        }
    }

    /// How many designs of a batch of `designs` each GPU worker runs at once
    /// ([`DevicePool::plan`]), sized from the baseline mesh; one worker, one at a time, when the
    /// devices cannot be asked.
    fn gpu_plan(&self, designs: usize, announce: bool) -> Vec<usize> {
        let Ok(pool) = self.gpu_pool() else { return vec![1] };
        let cells = match self.baseline.get() {
            Some(Ok(b)) => b.flows.block_sizes.iter().map(|(ni, nj)| ni * nj).sum(),
            _ => 100_000,
        };
        let (plan, line) = pool.plan(designs, self.config.batch.workers, cells);
        if announce && designs > 1 {
            eprintln!("{line}");
        }
        plan
    }

    /// Mesh -> a solve on `backend` at every operating point, warm-started from `from` (resampled
    /// onto the design's blocks where their sizes differ), or cold through the coarser meshes
    /// the settings sequence. A failure comes back as the failed evaluation.
    fn solve_points<B: ImplicitBackend>(&self, backend: &B, blade: CheckedBlade, from: Option<WarmSource<'_>>, start: Instant) -> std::result::Result<SolvedDesign, Unsolved> {
        let checked = blade.clone();
        let prepared = self.prepare(blade).map_err(|status| Unsolved::design(with_wall_time(Evaluation::failed(status), start)))?;
        let backend_name = backend.name();
        let block_sizes = prepared.block_sizes();
        let (mut flow_start, warm) = warm_starts(from, &block_sizes);
        // A cold start begins on the coarser meshes the settings sequence, as `turbopt solve` does.
        let coarser = match warm {
            Some(_) => Vec::new(),
            None => coarser_meshes(&checked, &self.setup, self.config.solver.sequencing),
        };
        if let Some(finest) = coarser.last() {
            flow_start = FlowStart::Sequenced { from: finest.density };
        }
        let extras = |f: &PointFigures| self.objective_values(f);
        let mut points = Vec::with_capacity(self.setup.points.len());
        for (k, op) in self.setup.points.iter().enumerate() {
            let run = PointRun { prepared: &prepared, op, settings: &self.config.solver, extras: &extras };
            let stop = &mut Stoppable { inner: &mut Silent, stop: &self.stop };
            let solved = match &warm {
                Some(w) => solve_point(backend, &run, Start::Given { solution: &w.solutions[k], residual_reference: w.references[k], restart: false }, stop),
                None => {
                    let (solved, records) = solve_sequenced(backend, &run, &coarser, stop);
                    if let (Some(last), FlowStart::Sequenced { from }) = (records.last(), flow_start) {
                        if !last.started_next {
                            flow_start = FlowStart::SequencingFellBack { from };
                        }
                    }
                    with_coarser_iterations((solved, records))
                }
            };
            match solved {
                Ok(p) if p.stop == Stop::Interrupted => {
                    let mut e = self.interrupted(&format!("at {} after {} iterations", op.name, p.iterations));
                    e.diagnostics = self.diagnostics(&points, &backend_name, flow_start, start);
                    e.diagnostics.mesh = Some(prepared.quality);
                    return Err(Unsolved::design(e));
                }
                Ok(p) => points.push(p),
                Err(failure) => {
                    let mut e = Evaluation::failed(point_status(&op.name, &failure));
                    e.diagnostics = self.diagnostics(&points, &backend_name, flow_start, start);
                    e.diagnostics.mesh = Some(prepared.quality);
                    e.diagnostics.iterations += failure.iterations;
                    e.diagnostics.attempts.extend(failure.attempts);
                    let device_fault = match failure.error.solver_error() {
                        Some(gpu @ Error::Gpu(_)) => Some(gpu.to_string()),
                        _ => None,
                    };
                    return Err(Unsolved { evaluation: e, device_fault });
                }
            }
        }
        Ok(SolvedDesign { outline: prepared.section.outline, mesh_quality: prepared.quality, block_sizes, points, start: flow_start, backend: backend_name })
    }

    /// The flows a design's solves start from: `donor`'s, else the baseline's; none without a
    /// baseline or with warm starts off.
    fn warm_source<'a>(&self, baseline: Option<&'a Baseline>, donor: Option<&'a SolvedFlows>) -> Option<WarmSource<'a>> {
        let b = baseline.filter(|_| self.config.warm_start)?;
        // The orders count from the baseline's reference whatever the start, so that every
        // design converges to the same absolute residual level.
        let references = &b.flows.residual_references;
        Some(match donor {
            Some(flows) => WarmSource { flows, references, from_donor: true },
            None => WarmSource { flows: &b.flows, references, from_donor: false },
        })
    }

    /// The outline of `design` and its blade-surface Mis at every operating point (for
    /// pictures: a campaign's best design against its baseline): those of its evaluation when
    /// this evaluator solved it among its last [`SURFACES_KEPT`] designs, otherwise from a solve
    /// now, warm-started like evaluations.
    pub fn design_surfaces(&self, design: &[f64]) -> std::result::Result<(Outline, Vec<Vec<SurfacePoint>>), Status> {
        if let Some(kept) = self.kept_surfaces(design) {
            return Ok((kept.outline.clone(), kept.surfaces.clone()));
        }
        let baseline = if self.config.warm_start { self.baseline().as_ref().ok() } else { None };
        let checked = self.check(BladeChoice::Design(design))?;
        let donors = self.donor_snapshot();
        let solved = self.solve_design(checked, baseline, self.nearest_donor(&donors, design), self.whole_backend(), Instant::now()).map_err(|u| u.evaluation.status)?;
        Ok((solved.outline, solved.points.into_iter().map(|r| r.figures.surface).collect()))
    }

    /// The surface figures kept from `design`'s evaluation, if any.
    fn kept_surfaces(&self, design: &[f64]) -> Option<Arc<DesignSurfaces>> {
        let baseline = match self.baseline.get() {
            Some(Ok(b)) if design == self.space.baseline.as_slice() => b.surfaces.clone(),
            _ => None,
        };
        baseline.or_else(|| self.surfaces.find(design))
    }

    /// How many designs this evaluator has solved (at every operating point, or failed trying),
    /// the baseline and any picture's solve included; cached answers do not count.
    pub fn designs_solved(&self) -> usize {
        self.designs_solved.load(Ordering::Relaxed)
    }

    /// The configured objectives at one point.
    fn objective_values(&self, figures: &PointFigures) -> Vec<f64> {
        let flow = PointFlow { performance: &figures.performance, surface: &figures.surface };
        self.objectives.iter().map(|o| o.value(&flow)).collect()
    }

    /// Objectives (averaged over points, or at the points they name), constraints (one per
    /// point) and the status.
    /// `reference_flows`: the baseline's mass flow per point (None while the baseline itself is
    /// solved: then its own mass flow is the reference).
    fn score(&self, solved: &SolvedDesign, reference_flows: Option<&[f64]>, start: Instant) -> Evaluation {
        let per_point: Vec<Vec<f64>> = solved.points.iter().map(|p| self.objective_values(&p.figures)).collect();
        let objectives = (0..self.objectives.len())
            .map(|k| self.point_choices[k].combine(&per_point.iter().map(|v| v[k]).collect::<Vec<_>>()))
            .collect();
        let mut constraints = Vec::new();
        for (k, p) in solved.points.iter().enumerate() {
            let flow = PointFlow { performance: &p.figures.performance, surface: &p.figures.surface };
            let m0 = reference_flows.map_or(p.figures.performance.mass_flow, |m| m[k]);
            constraints.extend(self.config.constraints.iter().map(|c| constraint_value(c, &flow, Some(m0))));
        }
        let mut diagnostics = self.diagnostics(&solved.points, &solved.backend, solved.start, start);
        diagnostics.mesh = Some(solved.mesh_quality);
        let status = self.convergence_status(&solved.points);
        Evaluation { objectives, constraints, status, diagnostics }
    }

    fn convergence_status(&self, points: &[PointSolve]) -> Status {
        let s = &self.config.solver;
        let short: Vec<String> = points
            .iter()
            .zip(&self.setup.points)
            .filter(|(p, _)| !p.answered(s))
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
            oscillations: points.iter().filter_map(|p| p.oscillation.clone()).collect(),
            mesh: None,
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

/// A sequenced point's result with the coarser meshes' iterations counted in (the evaluation's
/// iterations are its cost).
fn with_coarser_iterations((solved, coarser): (std::result::Result<PointSolve, PointFailure>, Vec<CoarserSolve>)) -> std::result::Result<PointSolve, PointFailure> {
    let extra: usize = coarser.iter().map(|c| c.iterations).sum();
    match solved {
        Ok(p) => Ok(PointSolve { iterations: p.iterations + extra, ..p }),
        Err(f) => Err(PointFailure { iterations: f.iterations + extra, ..f }),
    }
}

/// The start of a design whose mesh has `block_sizes` from `from`: its flows (resampled onto
/// the design's blocks where their sizes differ) with the baseline's residual references, or a
/// cold start without one or for another block layout.
fn warm_starts<'a>(from: Option<WarmSource<'a>>, block_sizes: &[(usize, usize)]) -> (FlowStart, Option<WarmStart<'a>>) {
    let Some(WarmSource { flows, references, from_donor }) = from else {
        return (FlowStart::Cold, None);
    };
    if flows.block_sizes == block_sizes {
        return (FlowStart::Warm { from_donor, resampled: false }, Some(WarmStart { solutions: Cow::Borrowed(&flows.solutions), references }));
    }
    match flows.solutions.iter().map(|s| s.resampled(block_sizes)).collect::<Option<Vec<_>>>() {
        Some(resampled) => (FlowStart::Warm { from_donor, resampled: true }, Some(WarmStart { solutions: Cow::Owned(resampled), references })),
        None => (FlowStart::Cold, None),
    }
}

fn with_wall_time(mut e: Evaluation, start: Instant) -> Evaluation {
    e.diagnostics.wall_s = start.elapsed().as_secs_f64();
    e
}

fn resolve_objective(o: &Objective) -> Result<ResolvedObjective> {
    match o.figure() {
        Objective::MisRms { target } => Ok(ResolvedObjective::MisRms { name: o.name(), target: read_measured_mis(target)? }),
        _ => Ok(ResolvedObjective::Plain(o.clone())),
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
        let donors = self.donor_snapshot();
        self.guarded(|| {
            let (outcome, flows) = self.evaluate_placed(design, self.whole_backend(), &donors);
            self.keep_donors(flows.map(|f| (design.to_vec(), f)));
            match outcome {
                WorkerOutcome::Evaluated(e) => e,
                WorkerOutcome::WorkerFault(reason) => Evaluation::failed(Status::Failed(reason)),
            }
        })
    }

    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        self.evaluate_batch_reporting(designs, &|_, _| {})
    }

    /// The places of a large batch (`CAPACITY_PROBE` designs): CPU worker threads, or the GPU
    /// workers' streams together.
    fn batch_capacity(&self) -> usize {
        const CAPACITY_PROBE: usize = 1024;
        if self.needs_baseline() && self.backend_ready().is_ok() {
            let _ = self.baseline();
        }
        self.batch_places(CAPACITY_PROBE, false).len()
    }

    /// Fills the hardware: the baseline is solved first (all cores, or the first GPU worker),
    /// then the designs go to the batch's places as they free up (`eval::dispatch`): one per
    /// CPU worker thread with single-threaded backends ([`BatchMode::DesignPerCore`]), one after
    /// the other on all cores ([`BatchMode::SharedPool`]), or several at once per GPU worker,
    /// each on its own stream (`backend::pool`). Results come back in input order.
    fn evaluate_batch_reporting(&self, designs: &[Vec<f64>], report: &(dyn Fn(usize, &Evaluation) + Sync)) -> Vec<Evaluation> {
        if self.needs_baseline() && self.backend_ready().is_ok() {
            let _ = self.baseline();
        }
        let places = self.batch_places(designs.len(), true);
        let donors = self.donor_snapshot();
        let converged: Vec<std::sync::Mutex<Option<SolvedFlows>>> = designs.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let results = run_on_workers(
            designs.len(),
            places.len(),
            |w, k| {
                let (outcome, flows) = self.evaluate_placed(&designs[k], places[w], &donors);
                if self.keeps_donors() {
                    *converged[k].lock().unwrap_or_else(|p| p.into_inner()) = flows;
                }
                outcome
            },
            report,
        );
        let finished = converged.into_iter().zip(designs).filter_map(|(f, d)| Some((d.clone(), f.into_inner().unwrap_or_else(|p| p.into_inner())?)));
        self.keep_donors(finished);
        results
    }
}
