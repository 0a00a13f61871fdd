//! `turbopt solve`: one RANS solve of a cascade at one operating point, with its outputs:
//! solution (VTK), convergence history (CSV + PNG), blade Mis (CSV + PNG, optionally against
//! measured taps with their RMS difference) and the cascade's performance figures.
//!
//! The solve runs the cascade pipeline of the evaluator (`turbopt::cascade`: the same mesh,
//! start, stopping tests, recovery chain and post-processing), so `turbopt solve` and
//! `turbopt evaluate` give one blade the same figures.
//!
//! `--backend gpu [--device N]` runs either scheme on CUDA device N (default 0); a build without
//! the `cuda` feature or a machine without a GPU ends the command with one error naming the
//! cause, before the mesh is generated.

use super::args::SolveArgs;
use turbopt::backend::{BackendTask, ImplicitBackend, OpenBackend};
use turbopt::cascade::{
    prepare_sequence, solve_point, solve_sequenced, write_solve_files, BladeChoice, CascadeSetup, CoarserMesh, CoarserSolve, Planes,
    PointRun, PointSolve, PreparedCascade, Sequencing, SolverSettings, Start,
};
use turbopt::flow::case::OperatingPoint;
use turbopt::geometry::blade_file::{load_blade_file, BladeFile};
use turbopt::post::{cascade_coefficients, read_measured_mis, side_layers, BladeSide, CascadeCoefficients, CascadePerformance, MeasuredMis, SideLayer};
use turbopt::solver::{read_restart, write_restart, Control, ImplicitReport, IterationRecord, Observer, Restart, SolveOutcome, SolverConfig};
use turbopt::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::time::Instant;

pub fn run(args: &SolveArgs) -> Result<()> {
    super::interrupt::install();
    if args.grid_convergence {
        return super::grid::run(args);
    }
    solve(args)?.0.into_result()
}

/// One solve at `--density`, its results written and printed; how it ended and its figures.
pub(super) fn solve(args: &SolveArgs) -> Result<(Ending, SolvedFigures)> {
    let blade = load_blade_file(&args.blade)?;
    let mut op = super::args::operating_point(&blade, &args.blade, args.case.as_deref())?;
    args.flow.free_stream.free_stream()?.apply_to(&mut op);
    let mut settings = solver_settings(args)?;
    if let Some(choice) = turbopt::perf::auto::resolve(&mut settings, &args.blade, args.case.as_deref(), args.density)? {
        println!("auto: {}", choice.reason);
        if let Some(n) = args.max_iterations {
            settings.max_iterations = n;
        }
    }
    // The backend first: a GPU that cannot be opened ends the command before the mesh is made.
    let backend = OpenBackend::open(&settings.backend)?;
    let (prepared, coarser) = prepare(args, &blade, &op, &settings)?;
    backend.run(SolveAndReport { args, blade: &blade, prepared: &prepared, coarser: &coarser, op: &op, settings: &settings })
}

/// How a solve that wrote its results ended.
pub(super) enum Ending {
    Converged,
    NotConverged { iterations: usize, orders: f64 },
}

impl Ending {
    /// The command's result: an error for a solve that stopped short (its results written).
    pub(super) fn into_result(self) -> Result<()> {
        match self {
            Ending::Converged => Ok(()),
            Ending::NotConverged { iterations, orders } => {
                let why = if super::interrupt::requested() { "stopped by a signal after" } else { "not converged within" };
                Err(Error::Other(format!("{why} {iterations} iterations ({orders:.2} orders dropped); results written")))
            }
        }
    }
}

/// The figures of a finished solve, as its report prints them.
#[derive(Clone, Debug, serde::Serialize)]
pub(super) struct SolvedFigures {
    pub cells: usize,
    pub iterations: usize,
    pub wall_s: f64,
    pub entropy_rise: f64,
    pub loss_coefficient: f64,
    pub loss_coefficient_at_measurement_plane: f64,
    pub exit_angle_deg: f64,
    pub mass_flow: f64,
    pub exit_isentropic_mach: f64,
    /// RMS difference from the `--compare` taps.
    pub mis_rms: Option<f64>,
}

/// The solver settings of the command line: `--config` (or the cascade default, RANS-SA) with
/// the flags on top, the budget of `--max-iterations` or the scheme's default.
pub fn solver_settings(args: &SolveArgs) -> Result<SolverSettings> {
    use super::args::SchemeArg;
    let scheme = match args.scheme {
        SchemeArg::Explicit => turbopt::cascade::SchemeChoice::Explicit,
        SchemeArg::Implicit => turbopt::cascade::SchemeChoice::Implicit,
        SchemeArg::Auto => turbopt::cascade::SchemeChoice::Auto,
    };
    let backend = args.run_on.choice()?;
    let mut settings = SolverSettings { scheme, backend, max_iterations: scheme.default_max_iterations(), ..SolverSettings::default() };
    settings.config = match &args.flow.config {
        Some(path) => {
            let (file, fields) = read_solver_config(path)?;
            if fields.iter().any(|f| f == "max_iterations") {
                settings.max_iterations = file.max_iterations;
            }
            if fields.iter().any(|f| f == "convergence_orders") {
                settings.convergence_orders = file.convergence_orders;
            }
            file
        }
        None => SolverConfig::rans_sa(),
    };
    apply_overrides(args, &mut settings.config)?;
    if let Some(n) = args.max_iterations {
        settings.max_iterations = n;
    }
    settings.sequencing = args.sequence.sequencing();
    settings.sequencing.check(args.density).map_err(|e| Error::Other(format!("--sequence: {e}")))?;
    settings.validate().map_err(Error::Other)?;
    Ok(settings)
}

/// The blade's passage mesh at `--density`, announced on stdout, and the coarser meshes a
/// sequenced solve starts from (made at the same time).
fn prepare(args: &SolveArgs, blade: &BladeFile, op: &OperatingPoint, settings: &SolverSettings) -> Result<(PreparedCascade, Vec<CoarserMesh>)> {
    let setup = CascadeSetup::new(blade, vec![op.clone()], args.density).with_model(settings.config.model);
    // A restarted solve continues its own flow: no coarser mesh.
    let sequencing = if args.restart.is_some() { Sequencing::Off } else { settings.sequencing };
    let (prepared, coarser) = prepare_sequence(blade, BladeChoice::Main, &setup, sequencing);
    let prepared = prepared.map_err(Error::from)?;
    let mesh = &prepared.mesh;
    println!("{}: {:?} mesh, {} cells in {} blocks; operating point {} (P01 {:.0} Pa, T01 {:.1} K, p2 {:.0} Pa)", blade.name, args.density, mesh.n_cells(), mesh.blocks.len(), op.name, op.p01, op.t01, op.p2);
    Ok((prepared, coarser))
}

/// The preconditioner's own flags belong to the preconditioner `--precond` names: a flag of
/// another one would be ignored, so it is an error.
fn check_preconditioner_flags(args: &SolveArgs, precond: super::args::PrecondArg) -> Result<()> {
    use super::args::PrecondArg;
    let name = |p: PrecondArg| clap::ValueEnum::to_possible_value(&p).map_or(String::new(), |v| v.get_name().to_string());
    let flags = [
        ("--sweeps", args.sweeps.is_some(), PrecondArg::SweptIlu),
        ("--factors", args.factors.is_some(), PrecondArg::SweptIlu),
        ("--strips", args.strips.is_some(), PrecondArg::StripIlu),
        ("--overlap", args.overlap.is_some(), PrecondArg::StripIlu),
    ];
    match flags.iter().find(|(_, given, owner)| *given && *owner != precond) {
        Some((flag, _, owner)) => Err(Error::Other(format!("{flag} belongs to --precond {}, not to --precond {}", name(*owner), name(precond)))),
        None => Ok(()),
    }
}

/// Command-line settings on top of the configuration (file or default).
fn apply_overrides(args: &SolveArgs, config: &mut SolverConfig) -> Result<()> {
    use super::args::{FactorsArg, GramSchmidtArg, OperatorArg, PrecondArg, SchemeArg};
    use turbopt::solver::krylov::GramSchmidt;
    use turbopt::backend::implicit::{FactorPrecision, PreconditionerKind, DEFAULT_STRIPS, DEFAULT_STRIP_OVERLAP, DEFAULT_TRIANGULAR_SWEEPS};
    use turbopt::solver::{ImplicitConfig, Scheme, StageOperator};
    if let Some(m) = args.flow.model {
        config.model = m.model();
    }
    if args.scheme == SchemeArg::Implicit && matches!(config.scheme, Scheme::Explicit) {
        config.scheme = Scheme::Implicit(ImplicitConfig::default());
    }
    match &mut config.scheme {
        Scheme::Implicit(imp) => {
            if let Some(cfl) = args.cfl {
                imp.cfl.target = cfl;
            }
            if args.stages.is_some() || args.anderson.is_some() {
                // A flag the user gave holds on the finer mesh of a sequence too.
                imp.from_coarser_mesh = None;
            }
            if let Some(n) = args.stages {
                imp.stages = n;
            }
            if let Some(depth) = args.anderson {
                imp.anderson = (depth > 0).then(|| turbopt::solver::anderson::AndersonSettings { depth, ..imp.anderson.clone().unwrap_or_default() });
            }
            if let Some(g) = args.gram_schmidt {
                imp.gmres.gram_schmidt = match g {
                    GramSchmidtArg::Modified => GramSchmidt::Modified,
                    GramSchmidtArg::ClassicalTwice => GramSchmidt::ClassicalTwice,
                };
            }
            if let Some(op) = args.operator {
                imp.operator = match op {
                    OperatorArg::Assembled => StageOperator::Assembled,
                    OperatorArg::MatrixFree => StageOperator::MatrixFree,
                };
            }
            if let Some(p) = args.precond {
                check_preconditioner_flags(args, p)?;
                imp.preconditioner = match p {
                    PrecondArg::Ilu => PreconditionerKind::Ilu,
                    PrecondArg::McIlu => PreconditionerKind::McIlu,
                    PrecondArg::StripIlu => PreconditionerKind::StripIlu { strips: args.strips.unwrap_or(DEFAULT_STRIPS), overlap: args.overlap.unwrap_or(DEFAULT_STRIP_OVERLAP) },
                    PrecondArg::Jacobi => PreconditionerKind::Jacobi,
                    PrecondArg::CusparseIlu => PreconditionerKind::CusparseIlu,
                    PrecondArg::SweptIlu => PreconditionerKind::SweptIlu {
                        sweeps: args.sweeps.unwrap_or(DEFAULT_TRIANGULAR_SWEEPS),
                        factors: match args.factors.unwrap_or(FactorsArg::Single) {
                            FactorsArg::Double => FactorPrecision::Double,
                            FactorsArg::Single => FactorPrecision::Single,
                        },
                    },
                };
            }
        }
        Scheme::Explicit => {
            if args.stages.is_some() || args.precond.is_some() || args.gram_schmidt.is_some() || args.anderson.is_some() || args.operator.is_some() {
                return Err(Error::Other("--stages, --precond, --gram-schmidt, --anderson and --operator belong to --scheme implicit".into()));
            }
            if let Some(cfl) = args.cfl {
                config.cfl = cfl;
            }
        }
    }
    Ok(())
}

/// [`solve_and_report`] on whichever backend the settings chose.
struct SolveAndReport<'a> {
    args: &'a SolveArgs,
    blade: &'a BladeFile,
    prepared: &'a PreparedCascade,
    coarser: &'a [CoarserMesh],
    op: &'a OperatingPoint,
    settings: &'a SolverSettings,
}

impl BackendTask for SolveAndReport<'_> {
    type Output = Result<(Ending, SolvedFigures)>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Result<(Ending, SolvedFigures)> {
        let result = solve_and_report(backend, self.args, self.blade, self.prepared, self.coarser, self.op, self.settings);
        // What crossed PCIe and how many kernels ran (stderr: the JSON stays the last stdout line).
        if let Some(traffic) = backend.traffic_report() {
            eprintln!("{traffic}");
        }
        result
    }
}

/// `--config`'s configuration over the cascade default, with the fields the file sets.
pub(super) fn read_solver_config(path: &Path) -> Result<(SolverConfig, Vec<String>)> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    SolverConfig::from_ron_with_fields(&text).map_err(|e| Error::Input { path: path.display().to_string(), reason: e.to_string() })
}

/// A progress bar (or, where it cannot draw, a plain line on stderr every
/// [`PLAIN_PROGRESS_PERIOD`]) that stops the solve on Ctrl-C or SIGTERM.
struct Progress {
    bar: ProgressBar,
    start: Instant,
    last_line: Instant,
    /// Density residual the orders shown count from.
    first: Option<f64>,
    /// A restarted solve counts from the restart's reference; any other counts from the first
    /// residual of each solve (a coarser mesh's, then the point's).
    restart: bool,
}

impl Observer for Progress {
    fn on_iteration(&mut self, r: &IterationRecord) -> Control {
        if r.iteration == 1 && !self.restart {
            self.first = None;
        }
        let r0 = *self.first.get_or_insert(r.residuals[0]);
        let orders = (r0 / r.residuals[0]).log10();
        self.bar.set_position(r.iteration as u64);
        self.bar.set_message(format!("density residual {:.2e} ({orders:.2} orders)", r.residuals[0]));
        if self.bar.is_hidden() && self.last_line.elapsed() >= PLAIN_PROGRESS_PERIOD {
            self.last_line = Instant::now();
            eprintln!("[{:.0} s] iteration {}: density residual {:.3e} ({orders:.2} orders)", self.start.elapsed().as_secs_f64(), r.iteration, r.residuals[0]);
        }
        if super::interrupt::requested() {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

/// Solves the prepared cascade (from `--restart`, a coarser mesh's flow or cold) and writes and
/// prints the results.
fn solve_and_report<B: ImplicitBackend>(backend: &B, args: &SolveArgs, blade: &BladeFile, prepared: &PreparedCascade, coarser: &[CoarserMesh], op: &OperatingPoint, settings: &SolverSettings) -> Result<(Ending, SolvedFigures)> {
    // Read the measured data before the solve: a bad --compare file must not cost a solution.
    let measured = args.compare.as_deref().map(read_measured_mis).transpose()?;
    let restart = args.restart.as_deref().map(read_restart).transpose()?;
    if let Some(r) = &restart {
        r.check_fits(&prepared.mesh)?;
        println!("restarting from {} iterations of {} at {} (density residual {:.2e}, reference {:.2e})", r.iterations, r.blade, r.case, r.history.last().map_or(f64::NAN, |h| h.residuals[0]), r.residual_reference);
    }
    let clock = Instant::now();
    let mut progress = Progress { bar: progress_bar(settings.max_iterations, args.json), start: clock, last_line: clock, first: restart.as_ref().map(|r| r.residual_reference), restart: restart.is_some() };
    let run = PointRun { prepared, op, settings, extras: &|_| Vec::new() };
    let (result, coarser) = match &restart {
        Some(r) => (solve_point(backend, &run, Start::Given { solution: &r.solution, residual_reference: r.residual_reference, restart: true }, &mut progress), Vec::new()),
        None => solve_sequenced(backend, &run, coarser, &mut progress),
    };
    for c in &coarser {
        println!("{}", describe_coarser(c));
    }
    progress.bar.finish_and_clear();
    let solved = result.map_err(|failure| {
        print_attempts(&failure.attempts);
        Error::Other(failure.error.to_string())
    })?;
    let wall_s = restart.as_ref().map_or(0.0, |r| r.wall_s) + clock.elapsed().as_secs_f64();
    if let Some(rep) = &solved.implicit {
        print_implicit_report(rep);
    }
    if solved.attempts.len() > 1 {
        print_attempts(&solved.attempts);
    }
    // The restart state carries the history and iteration count of every run so far; the
    // report shows the whole solve.
    let outcome = &solved.outcome;
    let state = Restart::after(&blade.name, &op.name, restart.as_ref(), &outcome.history, &outcome.solution);
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    write_restart(&args.out.join("restart.ron"), &state)?;
    let whole = SolveOutcome { history: state.convergence_history(), iterations: state.iterations, ..outcome.clone() };
    let figures = report(args, blade, prepared, &solved, &whole, &coarser, measured.as_deref(), wall_s, &backend.name())?;
    let ending = if solved.stop.converged() { Ending::Converged } else { Ending::NotConverged { iterations: whole.iterations, orders: whole.history.orders_dropped() } };
    Ok((ending, figures))
}

/// The coarser solve a point started from, in one line.
fn describe_coarser(c: &CoarserSolve) -> String {
    format!("{:?} mesh first ({} cells): {} iterations in {:.1} s; {}", c.density, c.cells, c.iterations, c.wall_s, c.outcome)
}

/// The recovery chain's attempts, one line each.
fn print_attempts(attempts: &[turbopt::cascade::Attempt]) {
    for (k, a) in attempts.iter().enumerate() {
        println!("attempt {} ({}): {} iterations, {}", k + 1, a.remedies_label(), a.iterations, a.result);
    }
}

#[allow(clippy::too_many_arguments)]
fn report(
    args: &SolveArgs,
    blade: &BladeFile,
    prepared: &PreparedCascade,
    solved: &PointSolve,
    whole: &SolveOutcome,
    coarser: &[CoarserSolve],
    measured: Option<&[MeasuredMis]>,
    wall_s: f64,
    backend: &str,
) -> Result<SolvedFigures> {
    let (mesh, planes) = (&prepared.mesh, &prepared.planes);
    let perf = &solved.figures.performance;
    let comparison = write_solve_files(&args.out, &blade.name, prepared, whole, &solved.figures.surface, measured)?;

    let drop = whole.history.orders_dropped();
    println!("{} after {} iterations ({drop:.2} orders of density residual) in {wall_s:.1} s on {backend}", solved.stop.describe(), whole.iterations);
    if let Some(o) = &solved.oscillation {
        println!("{}", o.describe());
    }
    print_performance(perf, planes);
    let coefficients = cascade_coefficients(perf, blade.cascade.pitch, blade.cascade.chord, blade.gas.gamma);
    print_coefficients(&coefficients);
    if let Some(c) = &comparison {
        println!("Mis vs measured: RMS {:.4} over {} taps (max |diff| {:.4})", c.rms, c.taps.len(), c.max_abs);
    }
    // An inviscid flow has no boundary layer to describe.
    let layers = prepared.viscous.then(|| side_layers(&solved.figures.surface));
    for layer in layers.iter().flatten() {
        println!("{}", describe_layer(layer, planes.axial_chord));
    }
    println!("wrote {}", args.out.display());
    if args.json {
        let mut v = serde_json::json!({
            "converged": solved.stop.converged(),
            "stop": solved.stop.describe(),
            "iterations": whole.iterations,
            "residual_drop_orders": drop,
            "wall_s": wall_s,
            "backend": backend,
            "cells": mesh.n_cells(),
            "entropy_rise": perf.entropy_rise,
            "exit_angle_deg": perf.exit_angle_deg,
            "loss_coefficient": perf.loss_coefficient,
            "mass_flow": perf.mass_flow,
            "exit_isentropic_mach": perf.exit_isentropic_mach,
            "loss_coefficient_at_measurement_plane": perf.loss_coefficient_at_measurement_plane,
            "coefficients": serde_json::to_value(coefficients).map_err(|e| Error::Other(e.to_string()))?,
        });
        if let Some(c) = &comparison {
            v["mis_rms"] = c.rms.into();
            v["mis_max_abs"] = c.max_abs.into();
        }
        if let Some(layers) = &layers {
            v["boundary_layers"] = serde_json::to_value(layers).map_err(|e| Error::Other(e.to_string()))?;
        }
        if !coarser.is_empty() {
            v["coarser"] = serde_json::to_value(coarser).map_err(|e| Error::Other(e.to_string()))?;
        }
        if let Some(o) = &solved.oscillation {
            v["oscillation"] = serde_json::to_value(o).map_err(|e| Error::Other(e.to_string()))?;
        }
        if solved.attempts.len() > 1 {
            v["attempts"] = serde_json::to_value(&solved.attempts).map_err(|e| Error::Other(e.to_string()))?;
        }
        println!("{v}");
    }
    Ok(SolvedFigures {
        cells: mesh.n_cells(),
        iterations: whole.iterations,
        wall_s,
        entropy_rise: perf.entropy_rise,
        loss_coefficient: perf.loss_coefficient,
        loss_coefficient_at_measurement_plane: perf.loss_coefficient_at_measurement_plane,
        exit_angle_deg: perf.exit_angle_deg,
        mass_flow: perf.mass_flow,
        exit_isentropic_mach: perf.exit_isentropic_mach,
        mis_rms: comparison.as_ref().map(|c| c.rms),
    })
}

/// One side's boundary layer in a line: where it turns turbulent and where it is separated, in
/// axial chords from the leading edge.
fn describe_layer(layer: &SideLayer, axial_chord: f64) -> String {
    let side = match layer.side {
        BladeSide::Suction => "suction side",
        BladeSide::Pressure => "pressure side",
    };
    let state = match layer.transition_x_from_le {
        Some(x) if layer.laminar_fraction > 0.0 => format!("laminar to x/c_ax {:.3} ({:.0} % of its length), turbulent after", x / axial_chord, 100.0 * layer.laminar_fraction),
        Some(_) => "turbulent from the leading edge".to_string(),
        None => "laminar to the trailing edge".to_string(),
    };
    let separated: Vec<String> = layer.separations.iter().map(|(a, b)| format!("{:.3}-{:.3}", a / axial_chord, b / axial_chord)).collect();
    match separated.is_empty() {
        true => format!("  {side}: {state}, attached"),
        false => format!("  {side}: {state}, reversed wall shear at x/c_ax {}", separated.join(", ")),
    }
}

fn print_performance(perf: &CascadePerformance, planes: &Planes) {
    println!("  entropy rise (s2 - s1)/s_ref   {:.6e}", perf.entropy_rise);
    println!("  exit flow angle                {:.3} deg", perf.exit_angle_deg);
    println!("  total-pressure loss coefficient {:.5}", perf.loss_coefficient);
    println!("  mass flow                      {:.4} kg/(s m)", perf.mass_flow);
    println!(
        "  exit isentropic Mach           {:.4} (pitch-averaged at {:.3} axial chords, x = {:.2} mm)",
        perf.exit_isentropic_mach,
        (planes.x_exit_measurement - planes.x_le) / planes.axial_chord,
        planes.x_exit_measurement * 1e3
    );
    println!("  loss coefficient there         {:.5}", perf.loss_coefficient_at_measurement_plane);
}

fn print_coefficients(c: &CascadeCoefficients) {
    println!(
        "  inlet flow angle {:.3} deg, turning {:.3} deg, inlet Mach {:.4}; lift / drag coefficients {:.4} / {:.5} on the vector-mean velocity, {:.4} / {:.5} on the inlet velocity",
        c.inlet_angle_deg, c.turning_deg, c.inlet_mach, c.lift, c.drag, c.lift_inlet, c.drag_inlet
    );
}

fn print_implicit_report(r: &ImplicitReport) {
    let t = &r.time;
    println!(
        "implicit: {} iterations, {} linear iterations ({:.1} per stage), {} ILU factorizations, {} rejected steps, final CFL {:.0}",
        r.iterations,
        r.total_linear_iterations(),
        r.mean_linear_iterations(),
        r.factorizations,
        r.rejected_steps,
        r.cfl.last().copied().unwrap_or(0.0)
    );
    if !r.turbulence_linear_iterations.is_empty() {
        println!("  segregated SA system: {:.1} FGMRES iterations per stage", r.mean_turbulence_linear_iterations());
    }
    if !r.intermittency_linear_iterations.is_empty() {
        println!("  segregated intermittency system: {:.1} FGMRES iterations per stage", r.mean_intermittency_linear_iterations());
    }
    println!(
        "  time: residual {:.2} s, Jacobian assembly {:.2} s, factorization {:.2} s, Krylov {:.2} s, total {:.2} s ({:.1} ms per iteration)",
        t.residual,
        t.assembly,
        t.factorization,
        t.krylov,
        t.total,
        1e3 * t.total / r.iterations.max(1) as f64
    );
}

/// How often a solve whose progress bar is hidden prints a progress line.
const PLAIN_PROGRESS_PERIOD: std::time::Duration = std::time::Duration::from_secs(30);

fn progress_bar(max: usize, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(max as u64);
    if let Ok(style) = ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
