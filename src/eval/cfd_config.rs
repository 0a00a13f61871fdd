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
//! with the `cuda` feature).

use super::objectives::{Constraint, Objective};
use crate::error::{Error, Result};
use crate::mesh::Density;
use crate::solver::{FlowModel, SolverConfig};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Time-integration scheme. `Implicit` (the default) uses the solver config's own implicit
/// settings when it has them (`config.scheme`), else the implicit defaults
/// (`solver::ImplicitConfig`), with Spalart-Allmaras as a segregated system.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Scheme {
    Explicit,
    #[default]
    Implicit,
}

/// Where the solver runs. `Gpu` runs the explicit scheme only (see [`EvaluatorConfig::validate`]);
/// without a device, a driver or the `cuda` feature every evaluation fails with a status naming
/// the cause (`CfdEvaluator::check_backend` reports it once, up front).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BackendChoice {
    /// Rayon backend; `threads: None` = one per core (single evaluations; batches decide their
    /// own split, see [`BatchMode`]).
    Cpu { threads: Option<usize> },
    /// CUDA device by ordinal. The evaluator opens it once (compiling the kernels) and runs the
    /// designs of a batch on it one after another.
    Gpu { device: usize },
}

impl Default for BackendChoice {
    fn default() -> Self {
        BackendChoice::Cpu { threads: None }
    }
}

impl Scheme {
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Explicit => "explicit",
            Scheme::Implicit => "implicit",
        }
    }
}

/// Solver settings of the evaluator: scheme and backend choice plus the solver's own config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SolverSettings {
    pub scheme: Scheme,
    pub backend: BackendChoice,
    /// Iteration budget per operating point (multigrid cycles with multigrid).
    pub max_iterations: usize,
    /// Converged when the density residual dropped this many orders (thesis: 6).
    pub convergence_orders: f64,
    /// When the budget runs out before `convergence_orders`, accept the result as converged if
    /// the density residual dropped at least this many orders (None: never; the evaluation is
    /// then `NotConverged`, with its objectives still reported for inspection).
    pub accept_orders: Option<f64>,
    /// Everything else of the explicit solver (model, CFL, smoothing, multigrid...);
    /// its `max_iterations` and `convergence_orders` are overridden by the two above.
    pub config: SolverConfig,
}

impl SolverSettings {
    /// Whether the solves run the implicit scheme: `scheme: Implicit`, or an implicit section
    /// in the solver's own `config` (which wins over `scheme: Explicit`).
    pub fn runs_implicit(&self) -> bool {
        self.scheme == Scheme::Implicit || matches!(self.config.scheme, crate::solver::Scheme::Implicit(_))
    }
}

impl Default for SolverSettings {
    fn default() -> Self {
        SolverSettings {
            scheme: Scheme::Implicit,
            backend: BackendChoice::default(),
            max_iterations: 3000,
            convergence_orders: 6.0,
            accept_orders: None,
            config: default_rans_config(),
        }
    }
}

/// RANS-SA, second order. With the (default) implicit scheme the time integration comes from
/// `solver::ImplicitConfig`; the explicit fields are for `scheme: Explicit`: 5-stage RK at CFL 1
/// on a single grid, no residual smoothing, the setting that ran stably on the LS89 cascade
/// start-up (it converges slowly; BENCHMARKS.md has the explicit figures).
pub fn default_rans_config() -> SolverConfig {
    SolverConfig { model: FlowModel::SpalartAllmaras, cfl: 1.0, smoothing: None, multigrid: None, ..SolverConfig::default() }
}

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
    /// Worker threads (None: one per core).
    pub workers: Option<usize>,
}

/// Mesh settings beyond the density preset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MeshSettings {
    /// First-cell height from this y+ (flat-plate estimate at the exit isentropic state; the
    /// smallest height over the operating points is used).
    pub target_yplus: f64,
    /// Direction hint of the inlet periodic lines [deg]; None: mean inlet angle of the points.
    pub inlet_angle_deg: Option<f64>,
    /// Direction hint of the outlet periodic lines [deg]; None: the design's exit metal angle,
    /// or for a blade without design the throat estimate -acos(throat / pitch).
    pub outlet_angle_deg: Option<f64>,
}

impl Default for MeshSettings {
    fn default() -> Self {
        MeshSettings { target_yplus: 1.0, inlet_angle_deg: None, outlet_angle_deg: None }
    }
}

fn default_true() -> bool {
    true
}

fn default_exit_plane() -> f64 {
    1.433
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
    pub objectives: Vec<Objective>,
    #[serde(default)]
    pub constraints: Vec<Constraint>,
    /// Start each design from the baseline solution when its mesh has the baseline's block sizes.
    #[serde(default = "default_true")]
    pub warm_start: bool,
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
            objectives: vec![Objective::EntropyRise],
            constraints: vec![],
            warm_start: true,
            batch: BatchSettings::default(),
            exit_plane_axial_chords: default_exit_plane(),
        }
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
            if let Objective::MisRms { target } = o {
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
        let s = &self.solver;
        if s.max_iterations == 0 {
            return Err("solver.max_iterations must be at least 1".into());
        }
        if !(s.convergence_orders.is_finite() && s.convergence_orders > 0.0) {
            return Err(format!("solver.convergence_orders = {} must be positive", s.convergence_orders));
        }
        if let Some(a) = s.accept_orders {
            if !(a.is_finite() && a > 0.0) {
                return Err(format!("solver.accept_orders = {a} must be positive"));
            }
        }
        if let BackendChoice::Cpu { threads: Some(0) } = s.backend {
            return Err("solver.backend: Cpu needs at least one thread".into());
        }
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
