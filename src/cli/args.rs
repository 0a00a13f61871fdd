//! The command line's arguments (clap) and the small conversions every subcommand shares.

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "turbopt", version, about = "CFD-driven turbomachinery cascade blade design")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Generate the multi-block mesh of a cascade passage, write it (Plot3D, VTK, SU2, PNG) and
    /// print its quality report.
    Mesh(MeshArgs),
    /// Solve the flow through a cascade at one operating point and write the solution,
    /// convergence history, blade Mis and performance figures.
    Solve(SolveArgs),
    /// Run an optimization campaign (RON), or the embedded default one, with a results log,
    /// checkpoints and plots; `--resume` continues an interrupted campaign.
    Optimize(OptimizeArgs),
    /// Score one design (or the blade file's own profile) with the CFD evaluator: objectives,
    /// constraints, status and diagnostics; a failed design exits non-zero with its reason.
    Evaluate(EvaluateArgs),
    /// Time the explicit RANS-SA solver per backend operation and per iteration on a test mesh
    /// of a chosen size: cell(-stage) updates per second, bytes moved per update, percent of the
    /// measured memory bandwidth, CPU and GPU side by side.
    Bench(BenchArgs),
    /// The performance model of a case: which of explicit (single grid, multigrid) or implicit,
    /// on one CPU core, all cores or the GPU, converges first (thesis chapter 6): per-operation
    /// times and classes, iteration counts, R_C, predicted times to convergence, the fastest,
    /// a Fig. 6.9-style picture; `--validate` checks the predictions with full runs.
    PerfModel(PerfModelArgs),
    /// Bring your own blade: read its coordinates (a closed loop, or two sides), report its
    /// edges, radii, angles, chord and throat, fit the design parameterization to it, and write a
    /// blade file that `solve`, `evaluate` and `optimize` take as it is, with a picture of the fit.
    Import(ImportArgs),
    /// The design-space study: designs drawn uniformly inside a blade file's bounds, each
    /// checked and meshed (`--mesh-only`) or solved as a campaign solves it; outcomes by
    /// reason, iterations and time per design, written as CSV and a Markdown table.
    Study(StudyArgs),
}

/// Units of the coordinates of `turbopt import`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq)]
pub enum UnitsArg {
    M,
    Mm,
    In,
    /// Fractions of the chord (x/c, y/c): --chord gives the chord in metres.
    Chord,
}

#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// Coordinates: x, y rows (commas, semicolons or spaces, header and # comments allowed) as
    /// one closed loop in either direction, or two sides (two sections separated by a blank
    /// line, a side column `ss`/`ps`, or x_ss, y_ss, x_ps, y_ps columns).
    pub coordinates: std::path::PathBuf,
    /// The other side, when the sides come in two files.
    pub other_side: Option<std::path::PathBuf>,
    /// Units of the coordinates.
    #[arg(long, value_enum)]
    pub units: UnitsArg,
    /// Blade-to-blade spacing, in the coordinates' units (pitch/chord with --units chord).
    #[arg(long)]
    pub pitch: f64,
    /// The published chord, in the coordinates' units (in metres with --units chord, where it
    /// sets the scale); default the profile's largest extent.
    #[arg(long)]
    pub chord: Option<f64>,
    /// Operating point: NAME:p01=PA,t01=K,alpha1=DEG,p2=PA (or m2is=M instead of p2)
    /// [,nu_tilde_ratio=R][,turbulence_intensity=TU] (TU a fraction, for --model sa-bcm); at
    /// least one, repeatable.
    #[arg(long = "point", value_name = "NAME:p01=..,t01=..,alpha1=..,p2=..")]
    pub points: Vec<String>,
    /// Blade name (default: the file's stem).
    #[arg(long)]
    pub name: Option<String>,
    /// One-line description written into the blade file (default: where it was imported from and
    /// how well the design follows it).
    #[arg(long)]
    pub description: Option<String>,
    /// Mirror the coordinates (y -> -y) first: the project's blades turn the flow towards -y,
    /// suction side up.
    #[arg(long)]
    pub mirror: bool,
    /// Then turn them counter-clockwise by this angle in degrees (coordinates in a chord frame
    /// are turned by the stagger).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    pub rotate: f64,
    /// Largest deviation of the fitted design allowed, % of the chord.
    #[arg(long, default_value_t = turbopt::geometry::import::DEFAULT_FIT_TOLERANCE_PERCENT)]
    pub fit_tolerance: f64,
    /// Write the blade file even when the fit deviates more than --fit-tolerance.
    #[arg(long)]
    pub force: bool,
    /// The blade file solves a spline through the points as given instead of the fitted design
    /// (the optimizer still starts from the fitted design, so its baseline differs from `solve`'s).
    #[arg(long)]
    pub solve_points: bool,
    /// Interior camber control points of the fitted design.
    #[arg(long, default_value_t = 6)]
    pub camber_points: usize,
    /// Interior thickness control values per side of the fitted design.
    #[arg(long, default_value_t = 14)]
    pub thickness_points: usize,
    /// Domain inlet and outlet distances from the blade, in axial chords.
    #[arg(long, default_value_t = 1.0)]
    pub inlet_length: f64,
    #[arg(long, default_value_t = 1.5)]
    pub outlet_length: f64,
    /// The blade file to write (its fit picture and report go beside it); default NAME.ron.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Replace an existing blade file.
    #[arg(long)]
    pub overwrite: bool,
    /// Print one JSON object (the import report) as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct PerfModelArgs {
    /// Blade file (RON), e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    /// Operating point name (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    /// Mesh densities, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "coarse")]
    pub density: Vec<turbopt::mesh::Density>,
    /// Output directory: one folder per case key with table.md, time-to-convergence.png, model.json.
    #[arg(long, default_value = "out/perf")]
    pub out: std::path::PathBuf,
    /// CUDA device ordinal (default 0).
    #[arg(long)]
    pub device: Option<usize>,
    /// Leave the GPU out even when one is present.
    #[arg(long)]
    pub cpu_only: bool,
    /// Measure the unit costs again even when the cache has them for this machine.
    #[arg(long)]
    pub refresh: bool,
    /// Run the full runs for the iteration counts again.
    #[arg(long)]
    pub refresh_counts: bool,
    /// A full run for a count stops once it would take this many times the fastest prediction
    /// so far (it cannot be the fastest; its count becomes a lower bound).
    #[arg(long, default_value_t = 3.0)]
    pub cut_off: f64,
    /// A count from a stored convergence history: KEY=PATH (KEY explicit-single-grid,
    /// explicit-multigrid, implicit-ilu, implicit-mc-ilu; PATH a convergence.csv of turbopt solve
    /// on the same case, mesh and settings). Repeatable.
    #[arg(long)]
    pub history: Vec<String>,
    /// Full runs of every combination predicted to take at most --validate-budget-s (and at
    /// least --validate-from-s), compared with the predictions.
    #[arg(long)]
    pub validate: bool,
    #[arg(long, default_value_t = 600.0)]
    pub validate_budget_s: f64,
    /// Skip the validation runs predicted under this many seconds (to validate the long
    /// combinations in a separate process, e.g. where one command's time is limited).
    #[arg(long, default_value_t = 0.0)]
    pub validate_from_s: f64,
    /// Cache directory (default: TURBOPT_CACHE_DIR, else ~/.cache/turbopt/perf).
    #[arg(long)]
    pub cache_dir: Option<std::path::PathBuf>,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Cells of the test mesh: a bumped RANS channel in 4 blocks, ni about 2 nj (the count is
    /// rounded to that grid).
    #[arg(long, default_value_t = 1_000_000)]
    pub cells: usize,
    /// Backends to time; `both` prints the CPU column and, when this build and machine have a
    /// GPU, the GPU column beside it.
    #[arg(long, value_enum, default_value = "both")]
    pub backend: BenchBackendArg,
    /// CPU threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Timed iterations, and timed calls of each operation (their medians are reported).
    #[arg(long, default_value_t = 10)]
    pub iterations: usize,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
    /// `explicit`: every operation and the explicit iteration; `implicit`: the time per flow
    /// iteration of the implicit scheme (defaults) with its residual/assembly/factorization/Krylov split.
    #[arg(long, value_enum, default_value = "explicit")]
    pub scheme: SchemeArg,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BenchBackendArg {
    Cpu,
    /// CUDA (needs a build with `--features cuda` and an NVIDIA GPU).
    Gpu,
    Both,
}

#[derive(clap::Args, Debug)]
pub struct EvaluateArgs {
    /// Blade file (RON), e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    /// Operating point name (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    /// Design vector of the blade file's design parameterization, comma-separated (default: the
    /// blade file's main definition).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub design: Option<Vec<f64>>,
    #[arg(long, value_enum, default_value = "coarse")]
    pub density: turbopt::mesh::Density,
    #[arg(long, value_enum, default_value = "implicit")]
    pub scheme: SchemeArg,
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    #[command(flatten)]
    pub free_stream: FreeStreamFlags,
    #[arg(long)]
    pub max_iterations: Option<usize>,
    #[command(flatten)]
    pub run_on: BackendFlags,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

/// The solver configuration and flow model over the command's default (`solve`, `study`).
#[derive(clap::Args, Debug, Clone)]
pub struct FlowFlags {
    /// Solver settings (RON `SolverConfig`); default: RANS-SA, 2nd order; explicit: CFL 2, 3-level W-cycle after 150 single-grid iterations. Fields the file leaves out keep these defaults, and the command's budget and residual target.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Flow model (overrides --config's).
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    #[command(flatten)]
    pub free_stream: FreeStreamFlags,
}

/// Free-stream turbulence over the operating point's own (`solve`, `evaluate`, `study`).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FreeStreamFlags {
    /// Free-stream turbulence intensity u'/U as a fraction (0.01 = 1 %), the transition onset of
    /// `--model sa-bcm` and `--model sa-gamma` (overrides the operating point's
    /// `turbulence_intensity`).
    #[arg(long)]
    pub turbulence_intensity: Option<f64>,
    /// Inlet nu~/nu (overrides the operating point's `nu_tilde_ratio`, usually 3). SA-BCM keeps a
    /// boundary layer laminar only under a low free-stream nu~ (0.1; with 3 it is turbulent from
    /// the leading edge); SA-gamma runs with either, and turns separated shear layers turbulent
    /// at low Reynolds numbers only with 3 (docs/transition.md).
    #[arg(long)]
    pub nu_tilde_ratio: Option<f64>,
}

impl FreeStreamFlags {
    /// The flags as settings, checked.
    pub fn free_stream(&self) -> turbopt::Result<turbopt::flow::case::FreeStreamTurbulence> {
        turbopt::flow::case::FreeStreamTurbulence::new(self.turbulence_intensity, self.nu_tilde_ratio).map_err(turbopt::Error::Invalid)
    }
}

#[derive(clap::Args, Debug)]
pub struct OptimizeArgs {
    /// Campaign file (RON); default: the embedded optimize/default.ron.
    pub campaign: Option<std::path::PathBuf>,
    /// Output directory (default: out/<campaign name>).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Continue the campaign in --out without re-running its logged evaluations.
    #[arg(long)]
    pub resume: bool,
    /// Where the CFD solves run, overriding the campaign's `solver.backend` (either scheme runs
    /// on the GPU; the designs of a batch run there at once).
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// CUDA device ordinal for the GPU backend (default: the campaign's, else 0).
    #[arg(long, conflicts_with = "devices")]
    pub device: Option<usize>,
    /// CUDA devices for the GPU backend, one worker each: `all` or ordinals such as `0,1`
    /// (repeats allowed: `0,0` runs two workers on device 0); the designs of a batch go to the
    /// workers as they free up.
    #[arg(long)]
    pub devices: Option<turbopt::backend::Devices>,
    /// Designs of a batch at once, overriding the campaign's `batch.workers`: CPU worker
    /// threads, or designs per GPU worker (which may exceed the host's threads).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub batch_workers: Option<u64>,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
    /// After the campaign (or on a finished one with --resume), score some of its designs on
    /// this mesh density as well and report whether they keep their order in every objective:
    /// front members spread along the front, or the baseline and the best design.
    #[arg(long, value_enum)]
    pub recheck: Option<turbopt::mesh::Density>,
    /// How many front members --recheck scores.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(2..))]
    pub recheck_members: u64,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendArg {
    Cpu,
    /// CUDA, both schemes (needs a build with `--features cuda` and an NVIDIA GPU).
    Gpu,
    /// The fastest for the case by the performance model (`turbopt perf-model`), measured once
    /// per case, mesh and machine and cached.
    Auto,
}

/// Where a solve runs: `--backend`, `--threads` and `--device` of `solve`, `evaluate` and `study`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct BackendFlags {
    /// Where the solver runs (either scheme on either backend).
    #[arg(long, value_enum, default_value = "cpu")]
    pub backend: BackendArg,
    /// CPU threads for --backend cpu (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// CUDA device ordinal for --backend gpu (default 0).
    #[arg(long)]
    pub device: Option<usize>,
}

impl BackendFlags {
    /// The evaluator's backend choice; a flag of the other backend is an error rather than
    /// silently ignored.
    pub(super) fn choice(&self) -> turbopt::Result<turbopt::eval::cfd::BackendChoice> {
        use turbopt::eval::cfd::BackendChoice;
        let BackendFlags { backend, threads, device } = *self;
        match backend {
            BackendArg::Cpu if device.is_some() => Err(turbopt::Error::Other("--device selects a GPU: add --backend gpu".into())),
            BackendArg::Cpu => Ok(BackendChoice::Cpu { threads }),
            BackendArg::Gpu if threads.is_some() => Err(turbopt::Error::Other("--threads sets CPU threads: it does not apply to --backend gpu".into())),
            BackendArg::Gpu => Ok(BackendChoice::gpu(device.unwrap_or(0))),
            BackendArg::Auto if threads.is_some() => Err(turbopt::Error::Other("--threads sets CPU threads: --backend auto chooses them".into())),
            BackendArg::Auto => Ok(BackendChoice::Auto { device: device.unwrap_or(0) }),
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemeArg {
    /// Multistage Runge-Kutta with local time stepping, residual smoothing and multigrid.
    Explicit,
    /// Multistage implicit Runge-Kutta (JT-KIRK) with FGMRES and on-demand ILU, the turbulence
    /// model as a segregated system. The default: it converges the LS89 RANS cases.
    Implicit,
    /// The fastest for the case by the performance model (`turbopt perf-model`).
    Auto,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelArg {
    Euler,
    Laminar,
    /// Spalart-Allmaras RANS.
    Sa,
    /// SA-BCM: Spalart-Allmaras (noft2) with Bas-Cakmakcioglu transition, onset from the
    /// operating point's turbulence_intensity.
    SaBcm,
    /// SA-gamma: Spalart-Allmaras (noft2) with Menter's one-equation intermittency transport
    /// (separation-induced transition), onset from the operating point's turbulence_intensity.
    SaGamma,
}

impl ModelArg {
    pub(super) fn model(self) -> turbopt::solver::FlowModel {
        use turbopt::solver::FlowModel;
        match self {
            ModelArg::Euler => FlowModel::Euler,
            ModelArg::Laminar => FlowModel::Laminar,
            ModelArg::Sa => FlowModel::SpalartAllmaras,
            ModelArg::SaBcm => FlowModel::SaBcm,
            ModelArg::SaGamma => FlowModel::SaGamma,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrecondArg {
    Ilu,
    McIlu,
    Jacobi,
    CusparseIlu,
    /// ILU(0) with Jacobi-swept triangular solves (`--sweeps`).
    SweptIlu,
    /// ILU(0) over overlapping strips of grid lines (CPU; `--strips`, `--overlap`).
    StripIlu,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorsArg {
    Double,
    /// f32 factors: half the bytes per sweep.
    Single,
}

/// Where a solve starts (`cascade::Sequencing`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SequenceArg {
    /// The fine mesh from the medium mesh's converged flow, the others cold.
    Auto,
    /// The cold start on every mesh.
    Off,
    /// From the coarse mesh's converged flow.
    Coarse,
    /// From the medium mesh's converged flow.
    Medium,
}

impl SequenceArg {
    pub fn sequencing(self) -> turbopt::cascade::Sequencing {
        use turbopt::cascade::Sequencing;
        match self {
            SequenceArg::Auto => Sequencing::Auto,
            SequenceArg::Off => Sequencing::Off,
            SequenceArg::Coarse => Sequencing::From(turbopt::mesh::Density::Coarse),
            SequenceArg::Medium => Sequencing::From(turbopt::mesh::Density::Medium),
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperatorArg {
    /// The assembled matrix: Omega/dt plus the Jacobian of the first-order residual.
    Assembled,
    /// Omega/dt plus the Jacobian of the second-order residual, applied as a finite difference
    /// of residuals (Jacobian-free Newton-Krylov; fewer flow iterations, each dearer).
    MatrixFree,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GramSchmidtArg {
    Modified,
    /// Classical Gram-Schmidt applied twice (5 GPU launches per step whatever the basis size).
    ClassicalTwice,
}

#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Blade file (RON), e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    /// Operating point name (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    #[arg(long, value_enum, default_value = "medium")]
    pub density: turbopt::mesh::Density,
    #[arg(long, value_enum, default_value = "implicit")]
    pub scheme: SchemeArg,
    #[command(flatten)]
    pub run_on: BackendFlags,
    #[command(flatten)]
    pub flow: FlowFlags,
    /// CFL number (implicit: the target of the CFL ramp).
    #[arg(long)]
    pub cfl: Option<f64>,
    /// Implicit Runge-Kutta stages (1-6; default 2, and 3 on a mesh started from a coarser
    /// one's flow). Given, it holds on every mesh of a sequence, as `--anderson` does.
    #[arg(long)]
    pub stages: Option<usize>,
    /// Anderson acceleration of the implicit scheme's iterations: differences kept (default 20;
    /// 0 switches it off).
    #[arg(long, value_name = "DEPTH")]
    pub anderson: Option<usize>,
    /// Implicit scheme preconditioner.
    #[arg(long, value_enum)]
    pub precond: Option<PrecondArg>,
    /// Jacobi sweeps per triangular solve of `--precond swept-ilu` (default 8).
    #[arg(long, requires = "precond")]
    pub sweeps: Option<usize>,
    /// Precision of the factors the sweeps of `--precond swept-ilu` read (the arithmetic stays
    /// f64; default single).
    #[arg(long, value_enum, requires = "precond")]
    pub factors: Option<FactorsArg>,
    /// Strips of grid lines of `--precond strip-ilu` (about; at least one per block; default 16).
    #[arg(long, requires = "precond")]
    pub strips: Option<usize>,
    /// Cell layers each strip of `--precond strip-ilu` overlaps its neighbours by (default 2).
    #[arg(long, requires = "precond")]
    pub overlap: Option<usize>,
    /// How FGMRES orthogonalizes its Arnoldi steps (implicit scheme; default: modified).
    #[arg(long, value_enum)]
    pub gram_schmidt: Option<GramSchmidtArg>,
    /// The mean-flow operator FGMRES inverts in each implicit stage (default: assembled).
    #[arg(long, value_enum)]
    pub operator: Option<OperatorArg>,
    #[arg(long)]
    pub max_iterations: Option<usize>,
    /// Start from a coarser mesh's converged flow (mesh sequencing), solved first with the same
    /// settings; a coarser density than --density, else the cold start.
    #[arg(long, value_enum, default_value = "auto", conflicts_with = "restart")]
    pub sequence: SequenceArg,
    /// Measured Mis (CSV with side, x_mm or x, mis columns) to overlay and score.
    #[arg(long)]
    pub compare: Option<std::path::PathBuf>,
    /// Continue the solve saved in a restart file (`restart.ron`, written by every solve):
    /// same mesh, same convergence target, the history and iteration count carried on.
    #[arg(long)]
    pub restart: Option<std::path::PathBuf>,
    #[arg(long, default_value = "out/solve")]
    pub out: std::path::PathBuf,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
    /// Solve on the coarse, medium and fine meshes (each as `--density` would, in OUT/coarse,
    /// OUT/medium, OUT/fine) and report each figure's observed order of convergence,
    /// Richardson-extrapolated value and grid convergence index (Celik et al. 2008).
    #[arg(long, conflicts_with_all = ["density", "restart"])]
    pub grid_convergence: bool,
}

#[derive(clap::Args, Debug)]
pub struct MeshArgs {
    /// Blade file (RON), e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    #[arg(long, value_enum, default_value = "medium")]
    pub density: turbopt::mesh::Density,
    /// Operating point used for the y+ estimate (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    /// Design vector of the blade file's design parameterization, comma-separated (default: the
    /// blade file's main definition); `turbopt study --only` prints a design's.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub design: Option<Vec<f64>>,
    /// Output directory.
    #[arg(long, default_value = "out/mesh")]
    pub out: std::path::PathBuf,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct StudyArgs {
    /// Blade file (RON) with a design parameterization, e.g. blades/ls89.ron
    pub blade: std::path::PathBuf,
    /// Designs drawn inside the bounds (the first n of a larger study with the same seed are
    /// those of a smaller one).
    #[arg(long, default_value_t = 100)]
    pub designs: usize,
    #[arg(long, default_value_t = 17)]
    pub seed: u64,
    /// Check and mesh the designs only (a fraction of a second each); default: solve them too.
    #[arg(long)]
    pub mesh_only: bool,
    /// Only these designs of the draw (0-based, comma-separated): to re-check designs an
    /// earlier study listed.
    #[arg(long, value_delimiter = ',')]
    pub only: Option<Vec<usize>>,
    /// Operating point (default: the file's first).
    #[arg(long)]
    pub case: Option<String>,
    #[arg(long, value_enum, default_value = "coarse")]
    pub density: turbopt::mesh::Density,
    /// Iteration budget per design (the shipped campaigns' 1000 by default).
    #[arg(long, default_value_t = 1000)]
    pub max_iterations: usize,
    #[command(flatten)]
    pub flow: FlowFlags,
    #[command(flatten)]
    pub run_on: BackendFlags,
    /// Output directory (study.csv, study.md, study.json).
    #[arg(long, default_value = "out/study")]
    pub out: std::path::PathBuf,
    /// Print one JSON object as the last line of stdout.
    #[arg(long)]
    pub json: bool,
}

/// The named operating point of a blade file, or its first one.
pub(super) fn operating_point(
    blade: &turbopt::geometry::blade_file::BladeFile,
    path: &std::path::Path,
    name: Option<&str>,
) -> turbopt::Result<turbopt::flow::case::OperatingPoint> {
    match name {
        Some(n) => Ok(blade.operating_point(n)?.clone()),
        None => blade
            .operating_points
            .first()
            .cloned()
            .ok_or_else(|| turbopt::Error::Input { path: path.display().to_string(), reason: "the blade file has no operating point".into() }),
    }
}
