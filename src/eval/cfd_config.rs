//! The CFD evaluator's configuration (RON): blade file, operating points, mesh density, solver
//! scheme and backend, objectives, constraints, warm start and batch policy.
//!
//! ```ron
//! (
//!     blade: "../blades/ls89.ron",
//!     operating_points: ["MUR47"],
//!     density: coarse,
//!     solver: (scheme: Implicit, backend: Cpu(threads: None), max_iterations: 3000),
//!     objectives: [EntropyRise],
//!     constraints: [ExitAngleAtLeast(74.0)],
//! )
//! ```
//!
//! `backend: Gpu(device: 0)` runs the solves, with either scheme, on CUDA device 0 (a build
//! with the `cuda` feature); `Gpu(devices: All)` or `Gpu(devices: [0, 1])` spreads the designs
//! of a batch over several devices, one worker each (`backend::pool`).

pub use super::donors::WarmStartFrom;
use super::objectives::{Constraint, Objective};
use crate::error::{Error, Result};
use crate::flow::case::FreeStreamTurbulence;
use crate::mesh::Density;
pub use crate::cascade::settings::{BackendChoice, Devices, SchemeChoice, SolverSettings};
pub use crate::mesh::passage::MeshSettings;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How [`crate::eval::Evaluator::evaluate_batch`] spreads designs over the CPU cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum BatchMode {
    /// One design per worker, each solved with a single-threaded backend (no synchronization
    /// inside a solve; best when there are at least as many designs as cores).
    #[default]
    DesignPerCore,
    /// Designs one after the other, each solve using every core.
    SharedPool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct BatchSettings {
    pub mode: BatchMode,
    /// Worker threads (None: one per core). On the GPU: designs at once per device worker
    /// (None: one per host thread, the threads shared among the workers; a set count may exceed
    /// the host threads, `backend::pool::concurrency`).
    pub workers: Option<usize>,
}

fn default_true() -> bool {
    true
}

fn default_exit_plane() -> f64 {
    1.433
}

/// The objectives of [`EvaluatorConfig::for_figures`], in order.
pub const FIGURES: [&str; 4] = ["entropy_rise", "loss_coefficient", "exit_angle_deg", "mass_flow"];

/// How [`EvaluatorConfig::for_figures`] solves the blade.
#[derive(Clone, Debug, PartialEq)]
pub struct FigureSettings {
    pub density: Density,
    /// Iteration budget per operating point (None: the scheme's default,
    /// [`SchemeChoice::default_max_iterations`], as for `turbopt solve`).
    pub max_iterations: Option<usize>,
    /// Accept a run that dropped this many orders when the budget runs out.
    pub accept_orders: Option<f64>,
    /// Where the solver runs (default: the CPU, one thread per core).
    pub backend: BackendChoice,
    pub scheme: SchemeChoice,
    /// Flow model (None: the evaluator's default, RANS-SA).
    pub model: Option<crate::solver::FlowModel>,
    /// Free-stream turbulence over the blade file's point.
    pub free_stream: FreeStreamTurbulence,
}

impl Default for FigureSettings {
    fn default() -> Self {
        FigureSettings { density: Density::Coarse, max_iterations: None, accept_orders: None, backend: BackendChoice::default(), scheme: SchemeChoice::Implicit, model: None, free_stream: FreeStreamTurbulence::default() }
    }
}

/// Everything the CFD evaluator needs, as read from RON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluatorConfig {
    /// Blade file (blades/*.ron); relative paths are relative to the config file.
    pub blade: PathBuf,
    /// Operating points by name; empty: the blade file's first one.
    #[serde(default)]
    pub operating_points: Vec<String>,
    #[serde(default = "default_density")]
    pub density: Density,
    #[serde(default)]
    pub mesh: MeshSettings,
    #[serde(default)]
    pub solver: SolverSettings,
    /// Free-stream turbulence set over every operating point (for example the turbulence
    /// intensity `model: sa_bcm` and `sa_gamma` need where the blade file's points carry none).
    #[serde(default)]
    pub free_stream: FreeStreamTurbulence,
    pub objectives: Vec<Objective>,
    #[serde(default)]
    pub constraints: Vec<Constraint>,
    /// Start each design from a converged flow instead of the cold start (resampled onto the
    /// design's blocks where their sizes differ from the baseline's).
    #[serde(default = "default_true")]
    pub warm_start: bool,
    /// Which converged flow: the baseline's (default: every design the same start) or the
    /// nearest evaluated design's (`Nearest`: fewer iterations in later generations; see
    /// `eval::donors` for what it does to reproducibility).
    #[serde(default)]
    pub warm_start_from: WarmStartFrom,
    #[serde(default)]
    pub batch: BatchSettings,
    /// Exit measurement plane, in axial chords downstream of the leading edge (LS89: 1.433),
    /// where the exit isentropic Mach number is taken.
    #[serde(default = "default_exit_plane")]
    pub exit_plane_axial_chords: f64,
}

fn default_density() -> Density {
    Density::Coarse
}

impl EvaluatorConfig {
    /// A config for `blade` with the defaults: first operating point, coarse mesh, explicit
    /// RANS-SA on the CPU, objective entropy rise, no constraints.
    pub fn for_blade(blade: impl Into<PathBuf>) -> Self {
        EvaluatorConfig {
            blade: blade.into(),
            operating_points: vec![],
            density: Density::Coarse,
            mesh: MeshSettings::default(),
            solver: SolverSettings::default(),
            free_stream: FreeStreamTurbulence::default(),
            objectives: vec![Objective::EntropyRise],
            constraints: vec![],
            warm_start: true,
            warm_start_from: WarmStartFrom::Baseline,
            batch: BatchSettings::default(),
            exit_plane_axial_chords: default_exit_plane(),
        }
    }

    /// One blade at one operating point (`case`; the file's first when None) scored on the four
    /// cascade figures of [`FIGURES`], in that order, as `turbopt evaluate` scores it: no warm
    /// start (a single evaluation), and the iteration budget `turbopt solve` gives the scheme,
    /// so that both commands solve a blade alike.
    pub fn for_figures(blade: impl Into<PathBuf>, case: Option<&str>, settings: &FigureSettings) -> Self {
        let mut config = EvaluatorConfig::for_blade(blade);
        config.operating_points = case.map(|c| vec![c.to_string()]).unwrap_or_default();
        config.density = settings.density;
        config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow];
        config.warm_start = false;
        config.solver.max_iterations = settings.max_iterations.unwrap_or(settings.scheme.default_max_iterations());
        config.solver.accept_orders = settings.accept_orders;
        config.solver.backend = settings.backend.clone();
        config.solver.scheme = settings.scheme;
        if let Some(m) = settings.model {
            config.solver.config.model = m;
        }
        config.free_stream = settings.free_stream;
        config
    }

    /// Parse RON text; relative paths in it are resolved against `base_dir`.
    pub fn from_ron_str(text: &str, base_dir: &Path) -> std::result::Result<Self, String> {
        let mut c: EvaluatorConfig = ron::from_str(text)
            .map_err(|e| format!("RON error at line {}, column {}: {}", e.position.line, e.position.col, e.code))?;
        c.resolve_paths(base_dir);
        c.validate()?;
        Ok(c)
    }

    /// Read a RON config file (paths in it relative to the file).
    pub fn from_ron_file(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_ron_str(&text, base).map_err(|reason| Error::Input { path: path.display().to_string(), reason })
    }

    fn resolve_paths(&mut self, base: &Path) {
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        resolve(&mut self.blade);
        for o in &mut self.objectives {
            let figure = match o {
                Objective::At(_, f) | Objective::WorstOf(_, f) => f.as_mut(),
                other => other,
            };
            if let Objective::MisRms { target } = figure {
                resolve(target);
            }
        }
    }

    /// Checks that do not need the blade file.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.objectives.is_empty() {
            return Err("objectives: at least one is needed".into());
        }
        for c in &self.constraints {
            c.validate().map_err(|e| e.to_string())?;
        }
        self.solver.validate()?;
        self.free_stream.validate().map_err(|e| format!("free_stream: {e}"))?;
        if self.batch.workers == Some(0) {
            return Err("batch.workers must be at least 1".into());
        }
        if !(self.mesh.target_yplus.is_finite() && self.mesh.target_yplus > 0.0) {
            return Err(format!("mesh.target_yplus = {} must be positive", self.mesh.target_yplus));
        }
        if !(self.exit_plane_axial_chords.is_finite() && self.exit_plane_axial_chords > 1.0) {
            return Err(format!(
                "exit_plane_axial_chords = {} must lie downstream of the trailing edge (> 1)",
                self.exit_plane_axial_chords
            ));
        }
        Ok(())
    }
}
