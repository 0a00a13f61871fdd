//! `turbopt solve`: one RANS solve of a cascade at one operating point, with its outputs:
//! solution (VTK), convergence history (CSV + PNG), blade Mis (CSV + PNG, optionally against
//! measured taps with their RMS difference) and the cascade's performance figures.
//!
//! `--backend gpu [--device N]` runs the explicit scheme on CUDA device N (default 0); the
//! implicit scheme, a build without the `cuda` feature or a machine without a GPU end the
//! command with one error naming the cause, before the mesh is generated.

use super::SolveArgs;
use crate::backend::cpu::CpuBackend;
use crate::cascade::{cascade_planes, quasi_1d_start, Planes, EXIT_PLANE_AXIAL_CHORDS};
use crate::backend::Backend;
use crate::eval::cfd::BackendChoice;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::geometry::blade_file::{load_blade_file, BladeFile};
use crate::geometry::Outline;
use crate::mesh::generate::generate_cascade_mesh;
use crate::mesh::passage::passage_spec;
use crate::mesh::vtk::write_vtk;
use crate::mesh::Mesh;
use crate::post::{blade_surface, cascade_performance, read_measured_mis, rms_against_measured, CascadePerformance, MeasuredMis, MisComparison, SurfacePoint};
use crate::report::plots::{plot_isentropic_mach, plot_semilog};
use crate::mesh::passage::trailing_edge_camber_angle_deg;
use crate::solver::{read_restart, solve_case, write_restart, Case, Control, ImplicitReport, IterationRecord, Observer, Restart, SolveOutcome, SolverConfig};
use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

pub fn run(args: &SolveArgs) -> Result<()> {
    super::interrupt::install();
    let blade = load_blade_file(&args.blade)?;
    let op = super::operating_point(&blade, &args.blade, args.case.as_deref())?;
    let mut config = match &args.config {
        Some(path) => read_solver_config(path)?,
        None => default_cascade_config(),
    };
    apply_overrides(args, &mut config)?;
    match super::backend_choice(args.backend, args.threads, args.device)? {
        BackendChoice::Cpu { threads } => {
            let backend = CpuBackend::new(threads)?;
            let name = backend.name();
            let (outline, mesh) = cascade_mesh(args, &blade, &op)?;
            let run = |case: Case, initial: &Solution, observer: &mut dyn Observer| solve_case(&backend, &mesh, case, initial, observer);
            solve_and_report(run, &name, args, &blade, &outline, &mesh, &op, config)
        }
        BackendChoice::Gpu { device } => solve_on_gpu(device, args, &blade, &op, config),
    }
}

/// The blade's passage mesh at `--density`, announced on stdout.
fn cascade_mesh(args: &SolveArgs, blade: &BladeFile, op: &OperatingPoint) -> Result<(Outline, Mesh)> {
    let outline = blade.outline().map_err(|e| Error::Geometry(e.to_string()))?;
    let spec = passage_spec(blade, &blade.cascade, &outline, op, args.density)?;
    let mesh = generate_cascade_mesh(&outline, &spec)?;
    println!("{}: {:?} mesh, {} cells in {} blocks; operating point {} (P01 {:.0} Pa, T01 {:.1} K, p2 {:.0} Pa)", blade.name, args.density, mesh.n_cells(), mesh.blocks.len(), op.name, op.p01, op.t01, op.p2);
    Ok((outline, mesh))
}

/// Command-line settings on top of the configuration (file or default).
fn apply_overrides(args: &SolveArgs, config: &mut SolverConfig) -> Result<()> {
    use super::{ModelArg, PrecondArg, SchemeArg};
    use crate::backend::implicit::PreconditionerKind;
    use crate::solver::{FlowModel, ImplicitConfig, Scheme};
    if let Some(m) = args.model {
        config.model = match m {
            ModelArg::Euler => FlowModel::Euler,
            ModelArg::Laminar => FlowModel::Laminar,
            ModelArg::Sa => FlowModel::SpalartAllmaras,
        };
    }
    if args.scheme == SchemeArg::Implicit && matches!(config.scheme, Scheme::Explicit) {
        config.scheme = Scheme::Implicit(ImplicitConfig::default());
    }
    match &mut config.scheme {
        Scheme::Implicit(imp) => {
            if let Some(cfl) = args.cfl {
                imp.cfl.target = cfl;
            }
            if let Some(n) = args.stages {
                imp.stages = n;
            }
            if let Some(p) = args.precond {
                imp.preconditioner = match p {
                    PrecondArg::Ilu => PreconditionerKind::Ilu,
                    PrecondArg::McIlu => PreconditionerKind::McIlu,
                    PrecondArg::Jacobi => PreconditionerKind::Jacobi,
                    PrecondArg::CusparseIlu => PreconditionerKind::CusparseIlu,
                };
            }
        }
        Scheme::Explicit => {
            if args.stages.is_some() || args.precond.is_some() {
                return Err(Error::Other("--stages and --precond belong to --scheme implicit".into()));
            }
            if let Some(cfl) = args.cfl {
                config.cfl = cfl;
            }
        }
    }
    if let Some(n) = args.max_iterations {
        config.max_iterations = n;
    }
    Ok(())
}

/// Either scheme on CUDA device `device`, opened (kernels compiled) before the mesh is made.
#[cfg(feature = "cuda")]
fn solve_on_gpu(device: usize, args: &SolveArgs, blade: &BladeFile, op: &OperatingPoint, config: SolverConfig) -> Result<()> {
    let backend = crate::backend::gpu::GpuBackend::new(device)?;
    let name = backend.name();
    let (outline, mesh) = cascade_mesh(args, blade, op)?;
    let iterations = std::cell::Cell::new(0);
    let run = |case: Case, initial: &Solution, observer: &mut dyn Observer| {
        let solved = solve_case(&backend, &mesh, case, initial, observer)?;
        iterations.set(solved.0.iterations);
        Ok(solved)
    };
    let result = solve_and_report(run, &name, args, blade, &outline, &mesh, op, config);
    // What crossed PCIe and how many kernels ran (stderr: the JSON stays the last stdout line).
    let c = backend.counters();
    eprintln!(
        "GPU: {} kernels ({:.0} per iteration), {} CUDA graph launches, {} residual-norm read-backs, {} field transfers",
        c.launches,
        c.launches as f64 / iterations.get().max(1) as f64,
        c.graph_launches,
        c.norm_readbacks,
        c.field_transfers
    );
    result
}

#[cfg(not(feature = "cuda"))]
fn solve_on_gpu(_device: usize, _: &SolveArgs, _: &BladeFile, _: &OperatingPoint, _: SolverConfig) -> Result<()> {
    Err(crate::gpu::not_compiled())
}

/// RANS-SA, second order; for the explicit scheme 5-stage Runge-Kutta at CFL 1 with a 3-level
/// W-cycle whose coarse-grid corrections start after 150 single-grid iterations (started at
/// once, the W-cycle is NaN at cycle 2 of the LS89 cascade start-up; the V-cycle stalls near
/// 2.8 orders on LS89 medium; residual smoothing at CFL 2 diverges: BENCHMARKS.md);
/// `--scheme implicit` (the default) replaces the time integration by the implicit defaults.
pub fn default_cascade_config() -> SolverConfig {
    use crate::solver::{Cycle, FlowModel, Multigrid};
    SolverConfig {
        model: FlowModel::SpalartAllmaras,
        cfl: 1.0,
        multigrid: Some(Multigrid { levels: 3, cycle: Cycle::W, correction_smoothing: 1.0, delay: 150 }),
        ..SolverConfig::default()
    }
}

fn read_solver_config(path: &Path) -> Result<SolverConfig> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    ron::from_str(&text).map_err(|e| Error::Input { path: path.display().to_string(), reason: e.to_string() })
}

#[allow(clippy::too_many_arguments)]
fn solve_and_report(
    run: impl FnOnce(Case, &Solution, &mut dyn Observer) -> Result<(SolveOutcome, Option<ImplicitReport>)>,
    backend: &str,
    args: &SolveArgs,
    blade: &BladeFile,
    outline: &Outline,
    mesh: &Mesh,
    op: &OperatingPoint,
    config: SolverConfig,
) -> Result<()> {
    // Read the measured data before the solve: a bad --compare file must not cost a solution.
    let measured = args.compare.as_deref().map(read_measured_mis).transpose()?;
    let restart = args.restart.as_deref().map(read_restart).transpose()?;
    let mut config = config;
    let gas = blade.gas;
    let initial = match &restart {
        Some(r) => {
            r.check_fits(mesh)?;
            config.residual_reference = Some(r.residual_reference);
            println!("restarting from {} iterations of {} at {} (density residual {:.2e}, reference {:.2e})", r.iterations, r.blade, r.case, r.history.last().map_or(f64::NAN, |h| h.residuals[0]), r.residual_reference);
            r.solution.clone()
        }
        None => quasi_1d_start(mesh, &gas, op, &cascade_planes(mesh, outline), trailing_edge_camber_angle_deg(outline), 0.2),
    };
    let start = Instant::now();
    let max_iterations = config.max_iterations;
    let case = Case { gas, operating_point: op.clone(), solver: config };
    let bar = progress_bar(max_iterations, args.json);
    let mut first = restart.as_ref().map(|r| r.residual_reference);
    // Where the bar cannot draw (--json, output to a file or pipe), a plain line on stderr every
    // PLAIN_PROGRESS_PERIOD keeps long unattended runs observable.
    let plain_progress = bar.is_hidden();
    let mut last_line = Instant::now();
    let mut observer = |r: &IterationRecord| {
        let r0 = *first.get_or_insert(r.residuals[0]);
        let orders = (r0 / r.residuals[0]).log10();
        bar.set_position(r.iteration as u64);
        bar.set_message(format!("density residual {:.2e} ({orders:.2} orders)", r.residuals[0]));
        if plain_progress && last_line.elapsed() >= PLAIN_PROGRESS_PERIOD {
            last_line = Instant::now();
            eprintln!("[{:.0} s] iteration {}: density residual {:.3e} ({orders:.2} orders)", start.elapsed().as_secs_f64(), r.iteration, r.residuals[0]);
        }
        if super::interrupt::requested() {
            Control::Stop
        } else {
            Control::Continue
        }
    };
    let result = run(case, &initial, &mut observer);
    bar.finish_and_clear();
    let (outcome, implicit) = result?;
    let wall_s = restart.as_ref().map_or(0.0, |r| r.wall_s) + start.elapsed().as_secs_f64();
    if let Some(rep) = &implicit {
        print_implicit_report(rep);
    }
    // The restart state carries the history and iteration count of every run so far; the
    // report shows the whole solve.
    let state = Restart::after(&blade.name, &op.name, restart.as_ref(), &outcome.history, &outcome.solution);
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    write_restart(&args.out.join("restart.ron"), &state)?;
    let whole = SolveOutcome { history: state.convergence_history(), iterations: state.iterations, ..outcome };
    report(args, blade, outline, mesh, op, &gas, &whole, measured.as_deref(), wall_s, backend)
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

#[allow(clippy::too_many_arguments)]
fn report(
    args: &SolveArgs,
    blade: &BladeFile,
    outline: &Outline,
    mesh: &Mesh,
    op: &OperatingPoint,
    gas: &Gas,
    outcome: &SolveOutcome,
    measured: Option<&[MeasuredMis]>,
    wall_s: f64,
    backend: &str,
) -> Result<()> {
    let planes = cascade_planes(mesh, outline);
    let perf = cascade_performance(mesh, &outcome.solution, gas, op, planes.x_inlet, planes.x_outlet, planes.x_exit_measurement);
    let surface = blade_surface(mesh, &outcome.solution, gas.gamma, op.p01);
    let comparison = measured.map(|taps| rms_against_measured(&surface, taps));
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    write_solution_vtk(&args.out.join("solution.vtm"), mesh, &outcome.solution, gas)?;
    write_history(&args.out, outcome)?;
    write_mis(&args.out, blade, &planes, &surface, comparison.as_ref(), measured)?;

    let drop = outcome.history.orders_dropped();
    println!(
        "{} after {} iterations ({drop:.2} orders of density residual) in {wall_s:.1} s on {backend}",
        if outcome.converged { "converged" } else { "NOT converged" },
        outcome.iterations
    );
    print_performance(&perf, &planes);
    if let Some(c) = &comparison {
        println!("Mis vs measured: RMS {:.4} over {} taps (max |diff| {:.4})", c.rms, c.taps.len(), c.max_abs);
    }
    println!("wrote {}", args.out.display());
    if args.json {
        let mut v = serde_json::json!({
            "converged": outcome.converged,
            "iterations": outcome.iterations,
            "residual_drop_orders": drop,
            "wall_s": wall_s,
            "backend": backend,
            "cells": mesh.n_cells(),
            "entropy_rise": perf.entropy_rise,
            "exit_angle_deg": perf.exit_angle_deg,
            "loss_coefficient": perf.loss_coefficient,
            "mass_flow": perf.mass_flow,
            "exit_isentropic_mach": perf.exit_isentropic_mach,
        });
        if let Some(c) = &comparison {
            v["mis_rms"] = c.rms.into();
            v["mis_max_abs"] = c.max_abs.into();
        }
        println!("{v}");
    }
    if !outcome.converged {
        let why = if super::interrupt::requested() { "stopped by a signal after" } else { "not converged within" };
        return Err(Error::Other(format!("{why} {} iterations ({drop:.2} orders dropped); results written", outcome.iterations)));
    }
    Ok(())
}

fn print_performance(perf: &CascadePerformance, planes: &Planes) {
    println!("  entropy rise (s2 - s1)/s_ref   {:.6e}", perf.entropy_rise);
    println!("  exit flow angle                {:.3} deg", perf.exit_angle_deg);
    println!("  total-pressure loss coefficient {:.5}", perf.loss_coefficient);
    println!("  mass flow                      {:.4} kg/(s m)", perf.mass_flow);
    println!(
        "  exit isentropic Mach           {:.4} (pitch-averaged at {:.3} axial chords, x = {:.2} mm)",
        perf.exit_isentropic_mach,
        EXIT_PLANE_AXIAL_CHORDS,
        planes.x_exit_measurement * 1e3
    );
}

/// Primitive fields (rho, u, v, p, Mach, nu_tilde) per cell for ParaView.
fn write_solution_vtk(path: &Path, mesh: &Mesh, sol: &Solution, gas: &Gas) -> Result<()> {
    let per_block = |f: &dyn Fn(&crate::flow::solution::BlockSolution, usize) -> f64| -> Vec<Vec<f64>> {
        sol.blocks.iter().map(|b| (0..b.n_cells()).map(|c| f(b, c)).collect()).collect()
    };
    let g = gas.gamma;
    let rho = per_block(&|b, c| b.rho[c]);
    let u = per_block(&|b, c| b.rho_u[c] / b.rho[c]);
    let v = per_block(&|b, c| b.rho_v[c] / b.rho[c]);
    let p = per_block(&|b, c| b.pressure(c, g));
    let mach = per_block(&|b, c| {
        let speed2 = (b.rho_u[c].powi(2) + b.rho_v[c].powi(2)) / b.rho[c].powi(2);
        (speed2 / (g * b.pressure(c, g) / b.rho[c])).sqrt()
    });
    let nut = per_block(&|b, c| b.nu_tilde[c]);
    write_vtk(path, mesh, &[("density", &rho), ("u", &u), ("v", &v), ("pressure", &p), ("mach", &mach), ("nu_tilde", &nut)])?;
    Ok(())
}

fn write_history(dir: &Path, outcome: &SolveOutcome) -> Result<()> {
    let path = dir.join("convergence.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?);
    let io = |e| Error::io(&path, e);
    writeln!(f, "iteration,wall_s,res_rho,res_rho_u,res_rho_v,res_rho_e,res_rho_nu_tilde").map_err(io)?;
    for r in &outcome.history.records {
        let res: Vec<String> = r.residuals.iter().map(|x| format!("{x:.6e}")).collect();
        writeln!(f, "{},{:.4},{}", r.iteration, r.wall_s, res.join(",")).map_err(io)?;
    }
    f.flush().map_err(io)?;
    let names = ["rho", "rho u", "rho v", "rho E", "rho nu~"];
    let series: Vec<(&str, Vec<(f64, f64)>)> = names
        .iter()
        .enumerate()
        .map(|(k, n)| (*n, outcome.history.records.iter().map(|r| (r.iteration as f64, r.residuals[k])).collect()))
        .collect();
    plot_semilog(&dir.join("convergence.png"), "residual (RMS of R/V)", "iteration", &series)
}

fn write_mis(dir: &Path, blade: &BladeFile, planes: &Planes, surface: &[SurfacePoint], cmp: Option<&MisComparison>, taps: Option<&[MeasuredMis]>) -> Result<()> {
    let path = dir.join("mis.csv");
    let mut text = String::from("side,x_mm,x_over_axial_chord,y_mm,p_pa,mis\n");
    for p in surface {
        text += &format!("{},{:.5},{:.6},{:.5},{:.3},{:.6}\n", p.side.label(), p.x_from_le * 1e3, p.x_from_le / planes.axial_chord, p.y * 1e3, p.p, p.mis);
    }
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    let title = match cmp {
        Some(c) => format!("{}: isentropic Mach number (RMS vs experiment {:.4})", blade.name, c.rms),
        None => format!("{}: isentropic Mach number", blade.name),
    };
    plot_isentropic_mach(&dir.join("mis.png"), &title, planes.axial_chord, &[("computed", surface)], taps)
}
