//! The implicit solver, written once against [`ImplicitBackend`] (thesis chapter 5, docs/architecture.md
//! section 4): backward-Euler linearization with the approximate Jacobian of the first-order
//! residual, the multistage JT-KIRK scheme reusing one matrix and one preconditioner per flow
//! iteration (thesis eq. 5.5), CFL ramping with automatic back-off, FGMRES(m) per stage and the
//! on-demand ILU refresh of thesis 5.4.2.
//!
//! Per flow iteration n, with A = Omega/dt I + dR/dW assembled once at W^n (thesis eq. 5.4):
//! `A (W^(k) - W^(k-1)) = -alpha_k R(W^(k-1))`, k = 1..m, W^(0) = W^n, W^(n+1) = W^(m).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::{Case, Scheme};
use super::implicit_config::{ImplicitConfig, StageOperator};
use super::newton_krylov::{MatrixFreeSystem, MatrixFreeWorkspace};
use super::monitor::{show_state, Control, ConvergenceHistory, IterationRecord, Monitor, Observer, SolveOutcome};
use super::anderson::Anderson;
use super::krylov::{fgmres_from_zero_in, FgmresSettings, FgmresStats, KrylovWorkspace, StageSystem};
use crate::backend::{BoundaryData, ConvectiveScheme, ImplicitBackend, JacobianOptions, PreconditionerKind, System};
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use crate::{Error, Result};


/// Wall-clock time per part of the implicit iteration \[s\].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeBreakdown {
    /// Boundary conditions, residuals, norms and time steps.
    pub residual: f64,
    /// Jacobian assembly.
    pub assembly: f64,
    /// Preconditioner factorizations.
    pub factorization: f64,
    /// FGMRES solves (matrix products and preconditioner sweeps included) and updates.
    pub krylov: f64,
    /// The whole solve.
    pub total: f64,
}

/// What the implicit solve did, beyond the residual history.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImplicitReport {
    /// Flow iterations done.
    pub iterations: usize,
    /// FGMRES iterations of each stage, per flow iteration (mean flow).
    pub linear_iterations: Vec<Vec<usize>>,
    /// FGMRES iterations of the segregated SA solve of each stage, per flow iteration (empty
    /// without Spalart-Allmaras).
    #[serde(default)]
    pub turbulence_linear_iterations: Vec<Vec<usize>>,
    /// The same for the segregated intermittency solve (SA-gamma; empty otherwise).
    #[serde(default)]
    pub intermittency_linear_iterations: Vec<Vec<usize>>,
    /// CFL of each flow iteration.
    pub cfl: Vec<f64>,
    /// Preconditioner factorizations (first one included).
    pub factorizations: usize,
    /// Steps thrown away because they gave a non-physical state.
    pub rejected_steps: usize,
    pub time: TimeBreakdown,
}

impl ImplicitReport {
    pub fn total_linear_iterations(&self) -> usize {
        self.linear_iterations.iter().flatten().sum()
    }

    /// Mean FGMRES iterations per stage solve.
    pub fn mean_linear_iterations(&self) -> f64 {
        mean_per_solve(&self.linear_iterations)
    }

    /// Mean FGMRES iterations per segregated SA solve (0 without Spalart-Allmaras).
    pub fn mean_turbulence_linear_iterations(&self) -> f64 {
        mean_per_solve(&self.turbulence_linear_iterations)
    }

    /// Mean FGMRES iterations per segregated intermittency solve (0 without SA-gamma).
    pub fn mean_intermittency_linear_iterations(&self) -> f64 {
        mean_per_solve(&self.intermittency_linear_iterations)
    }

    /// Mean wall time per flow iteration \[s\].
    pub fn time_per_iteration(&self) -> f64 {
        self.time.total / self.iterations.max(1) as f64
    }
}

/// Mean FGMRES iterations per solve of per-iteration, per-stage counts (0 without solves).
fn mean_per_solve(iterations: &[Vec<usize>]) -> f64 {
    let solves: usize = iterations.iter().map(Vec::len).sum();
    let total: usize = iterations.iter().flatten().sum();
    total as f64 / solves.max(1) as f64
}

/// Result of an implicit solve: the outcome shared with the explicit solver plus its report.
#[derive(Clone, Debug)]
pub struct ImplicitOutcome {
    pub outcome: SolveOutcome,
    pub report: ImplicitReport,
}

/// An implicit flow solver on one mesh and one backend.
pub struct ImplicitSolver<'b, B: ImplicitBackend> {
    backend: &'b B,
    case: Case,
    config: ImplicitConfig,
    boundary: BoundaryData,
    scheme: ConvectiveScheme,
    geometry: B::Geometry,
    jacobian: B::Jacobian,
    /// Minus a constant source (manufactured solutions, body forces), added to the residual.
    forcing: Option<B::Field>,
}

impl<'b, B: ImplicitBackend> ImplicitSolver<'b, B> {
    /// Validates the case (its `solver.scheme` must be `Implicit`), uploads the geometry and
    /// builds the matrix pattern. With Spalart-Allmaras the turbulence model is marched as a
    /// segregated scalar system after the mean flow in every stage (thesis 5.2).
    pub fn new(backend: &'b B, mesh: &Mesh, case: Case) -> Result<Self> {
        case.validate()?;
        let mut config = match &case.solver.scheme {
            Scheme::Implicit(c) => c.clone(),
            Scheme::Explicit => return Err(Error::Other("implicit solver needs solver.scheme = Implicit(...)".into())),
        };
        config.validate()?;
        if config.preconditioner == PreconditionerKind::Auto {
            let mach = case.operating_point.exit_isentropic_mach(case.gas.gamma);
            config.preconditioner = backend.preferred_preconditioner().for_mach(mach);
        }
        backend.check_preconditioner(config.preconditioner)?;
        // Same residual and boundary data as the explicit solver.
        let boundary = case.boundary_data();
        let scheme = case.convective_scheme();
        let geometry = backend.upload_geometry(mesh)?;
        let jacobian = backend.new_jacobian(&geometry)?;
        Ok(ImplicitSolver { backend, case, config, boundary, scheme, geometry, jacobian, forcing: None })
    }

    pub fn case(&self) -> &Case {
        &self.case
    }

    /// Adds a constant source as the explicit solver's `set_source` does: the residual becomes
    /// `R(W) - S`, with `S` per cell as volume-integrated conservative quantities. A constant
    /// source leaves the Jacobian unchanged. Shapes must match the mesh.
    pub fn set_source(&mut self, source: &Solution) -> Result<()> {
        let s = self.backend.upload_state(&self.geometry, source)?;
        let mut forcing = self.backend.new_field(&self.geometry);
        self.backend.axpy_field(-1.0, &s, &mut forcing);
        self.forcing = Some(forcing);
        Ok(())
    }

    /// Marches `initial` until the density residual dropped `convergence_orders`, for at most
    /// `max_iterations` flow iterations or until the observer stops. NaN/Inf, residual blow-up
    /// or `max_rejections` non-physical steps in a row, or one at the CFL floor, end in
    /// [`Error::Diverged`].
    pub fn solve(&mut self, initial: &Solution, observer: &mut dyn Observer) -> Result<ImplicitOutcome> {
        let backend = self.backend;
        let (gas, g) = (&self.case.gas, &self.geometry);
        let solver = &self.case.solver;
        let cfg = &self.config;
        let alphas = cfg.coefficients();
        let options = JacobianOptions { convective: cfg.jacobian, entropy_fix: solver.entropy_fix, physics: solver.model, sa: self.case.sa_options() };
        let transition = solver.model.transports_intermittency();

        let mut w = backend.upload_state(g, initial)?;
        let mut w0 = backend.new_field(g);
        let mut r = backend.new_field(g);
        let mut dw = backend.new_field(g);
        let mut krylov = StageWorkspace::default();
        let mut residual_recording = None;
        let mut dt = backend.new_scalars(g);
        let mut preconditioner: Option<B::Preconditioner> = None;

        let mut monitor = Monitor::new(solver.convergence_orders, solver.divergence_factor, solver.residual_reference);
        let mut history = ConvergenceHistory::with_reference(solver.residual_reference);
        let mut report = ImplicitReport::default();
        let start = Instant::now();
        let first_cfl = match (solver.residual_reference, cfg.cfl.warm_start) {
            (Some(_), Some(warm)) => warm,
            _ => cfg.cfl.start,
        };
        let mut cfl = first_cfl.min(cfg.cfl.target);
        let mut previous_rho: Option<f64> = None;
        let (mut last_linear, mut since_factorization, mut rejections_in_row) = (0usize, 0usize, 0usize);
        let (mut factorized_cfl, mut after_rejection) = (cfl, false);
        let mut converged = false;
        let mut last_look = 0;
        let mut anderson: Option<Anderson<B>> = cfg.anderson.clone().map(Anderson::new);
        let mut plain_update = backend.new_field(g);
        let matrix_free = (cfg.operator == StageOperator::MatrixFree).then(|| MatrixFreeWorkspace::new(backend, g, &self.jacobian));

        for iteration in 1..=solver.max_iterations {
            report.iterations = iteration;
            let t = Instant::now();
            self.recorded_residual(&mut residual_recording, &mut w, &mut r)?;
            let residuals = backend.residual_norms(g, &r);
            report.time.residual += t.elapsed().as_secs_f64();
            if !residuals.iter().all(|x| x.is_finite()) {
                // A device error reads as NaN norms: report it as what it is, not as divergence.
                backend.check()?;
            }
            let steady = monitor.check(iteration, &residuals)?;

            cfl = cfg.cfl.next(cfl, previous_rho, residuals[0]);
            previous_rho = Some(residuals[0]);
            report.cfl.push(cfl);

            let t = Instant::now();
            backend.local_time_step(g, gas, solver.model, cfl, &w, &mut dt);
            report.time.residual += t.elapsed().as_secs_f64();
            let t = Instant::now();
            backend.assemble_jacobian(g, gas, &self.boundary, &options, &w, Some(&dt), &mut self.jacobian);
            report.time.assembly += t.elapsed().as_secs_f64();

            let t = Instant::now();
            // Beyond the thesis rule (a constant CFL there): a factorization made at a CFL more than
            // twice or less than half the current one, or before a rejected step, is for another
            // matrix (Omega/dt dominates the diagonal), so it is refreshed too.
            let stale = preconditioner.is_none() || after_rejection || cfl > 2.0 * factorized_cfl || cfl < 0.5 * factorized_cfl;
            let refactor = stale || cfg.refresh.needs_factorization(last_linear, cfl, since_factorization);
            if refactor {
                match preconditioner.as_mut() {
                    None => preconditioner = Some(self.factorize_or_diverge(iteration)?),
                    Some(pc) => backend.refactorize(&self.jacobian, pc).map_err(|e| Error::Diverged { iteration, reason: e.to_string() })?,
                }
                report.factorizations += 1;
                since_factorization = 0;
                factorized_cfl = cfl;
            }
            after_rejection = false;
            since_factorization += 1;
            let pc = preconditioner.as_ref().expect("factorized above");
            report.time.factorization += t.elapsed().as_secs_f64();

            backend.copy_field(&w, &mut w0);
            let mut stage_iterations = Vec::with_capacity(alphas.len());
            let mut turbulence_iterations = Vec::new();
            let mut intermittency_iterations = Vec::new();
            let scalar = scalar_settings(cfg, &history);
            for (stage, alpha) in alphas.iter().enumerate() {
                if stage > 0 {
                    let t = Instant::now();
                    self.recorded_residual(&mut residual_recording, &mut w, &mut r)?;
                    report.time.residual += t.elapsed().as_secs_f64();
                }
                let t = Instant::now();
                let with_intermittency = cfg.intermittency_every_stage || stage + 1 == alphas.len();
                let residual_of = |wp: &mut B::Field, rp: &mut B::Field| self.ghost_filled_residual(wp, rp);
                let mean_flow = matrix_free.as_ref().map(|m| m.system(StageSystem { backend, jacobian: &self.jacobian, preconditioner: pc, system: System::MeanFlow }, g, &w, &r, &dt, &residual_of));
                let stats = solve_stage_in(backend, g, &self.jacobian, pc, *alpha, &r, &mut dw, &cfg.gmres, scalar, &mut krylov, with_intermittency, mean_flow.as_ref());
                if let Some(e) = matrix_free.as_ref().and_then(|m| m.take_error()) {
                    return Err(e);
                }
                match cfg.max_relative_change {
                    Some(limit) => backend.add_limited_update(g, gas, limit, &dw, &mut w),
                    None => backend.axpy_field(1.0, &dw, &mut w),
                }
                if transition {
                    backend.bound_intermittency(g, &mut w);
                }
                report.time.krylov += t.elapsed().as_secs_f64();
                stage_iterations.push(stats.flow.iterations);
                last_linear = stats.flow.iterations;
                if let Some(sa) = stats.turbulence {
                    turbulence_iterations.push(sa.iterations);
                }
                if let Some(gamma) = stats.intermittency {
                    intermittency_iterations.push(gamma.iterations);
                }
            }
            report.linear_iterations.push(stage_iterations);
            if !turbulence_iterations.is_empty() {
                report.turbulence_linear_iterations.push(std::mem::take(&mut turbulence_iterations));
            }
            if !intermittency_iterations.is_empty() {
                report.intermittency_linear_iterations.push(intermittency_iterations);
            }

            if !backend.is_physical(g, gas, &w) {
                // The last step a solve may throw away: where it went non-physical, for the
                // error (downloaded once, on the way out).
                // A step rejected at the CFL floor with a factorization made for it would be retried
                // from the same state at the same CFL with the same matrices, that is, the same step
                // again: the solve ends there. (A stale factorization gets its retry: a fresh one
                // makes a different step.)
                let at_floor = cfl <= cfg.cfl.min && refactor;
                let last_straw = rejections_in_row + 1 >= cfg.max_rejections || at_floor;
                let location = if last_straw { backend.download_state(g, &w).non_physical_cells(gas.gamma).map(|c| format!("; the last step left {c}")) } else { None };
                // Throw the step away and retry from W^n with a smaller CFL.
                backend.copy_field(&w0, &mut w);
                report.rejected_steps += 1;
                rejections_in_row += 1;
                after_rejection = true;
                cfl = (cfl * cfg.cfl.backoff).max(cfg.cfl.min);
                previous_rho = None;
                if let Some(a) = anderson.as_mut() {
                    a.reset();
                }
                if last_straw {
                    let location = location.unwrap_or_default();
                    let what = match at_floor {
                        true => format!("a non-physical implicit step at the CFL floor {} ({rejections_in_row} in a row)", cfg.cfl.min),
                        false => format!("{rejections_in_row} non-physical implicit steps in a row (CFL {cfl})"),
                    };
                    return Err(Error::Diverged { iteration, reason: format!("{what}{location}") });
                }
            } else {
                rejections_in_row = 0;
                if let Some(a) = anderson.as_mut() {
                    a.set_systems(marched_systems(backend, &self.jacobian, preconditioner.as_ref()));
                    self.accelerate(a, &history, cfl, residuals[0], &w0, &mut w, &mut plain_update);
                    if transition {
                        backend.bound_intermittency(g, &mut w);
                    }
                }
            }

            let record = IterationRecord { iteration, residuals, wall_s: start.elapsed().as_secs_f64(), time: 0.0 };
            let mut stop = observer.on_iteration(&record) == Control::Stop;
            history.records.push(record);
            stop |= show_state(observer, iteration, &mut last_look, || super::downloaded_state(backend, g, &w, solver.model)) == Control::Stop;
            converged = steady;
            if converged || stop {
                break;
            }
        }
        report.time.total = start.elapsed().as_secs_f64();
        backend.check()?;
        let solution = super::downloaded_state(backend, g, &w, solver.model);
        let iterations = report.iterations;
        Ok(ImplicitOutcome { outcome: SolveOutcome { solution, history, converged, iterations, time: 0.0 }, report })
    }

    /// Anderson step on the accepted update `w0 -> w` once the start-up is past (CFL at its
    /// target, residual dropped the settings' orders). An extrapolation that moves density or
    /// pressure anywhere by more than the scheme's own update limit (`max_relative_change`, else
    /// 20 %) away from the plain update, or leaves a non-physical state, is undone and the history
    /// forgotten: far from the fixed point the fit of the last updates says little. A solve
    /// whose residual keeps rising under the acceleration goes on without it
    /// ([`Anderson::keeps_going`]).
    #[allow(clippy::too_many_arguments)]
    fn accelerate(&self, anderson: &mut Anderson<B>, history: &ConvergenceHistory, cfl: f64, rho: f64, w0: &B::Field, w: &mut B::Field, plain: &mut B::Field) {
        let (backend, g, gas) = (self.backend, &self.geometry, &self.case.gas);
        if cfl < self.config.cfl.target || history.orders_dropped() < anderson.settings().after_orders {
            anderson.reset();
            return;
        }
        if !anderson.keeps_going(rho) {
            return;
        }
        backend.copy_field(w, plain);
        if anderson.accelerate(backend, g, &self.jacobian, w0, w) == 0 {
            return;
        }
        // Infinite where the extrapolated state is not physical or not finite (the SA unknowns
        // included): one check, one read-back.
        let change = backend.relative_change_between(g, gas, plain, w);
        if !(change <= self.config.max_relative_change.unwrap_or(0.2)) {
            backend.copy_field(plain, w);
            anderson.reset();
        }
    }

    fn factorize_or_diverge(&self, iteration: usize) -> Result<B::Preconditioner> {
        self.backend
            .factorize(&self.jacobian, self.config.preconditioner)
            .map_err(|e| Error::Diverged { iteration, reason: e.to_string() })
    }

    /// [`Self::ghost_filled_residual`] of `w` into `r`, the same buffers and parameters at every
    /// call of a solve: recorded once where the backend records (a CUDA graph on the GPU).
    fn recorded_residual(&self, recording: &mut Option<B::Recording>, w: &mut B::Field, r: &mut B::Field) -> Result<()> {
        self.backend.run_recorded(recording, &mut || self.ghost_filled_residual(w, r))
    }

    /// Ghost fill of `w`, then its residual into `r`.
    fn ghost_filled_residual(&self, w: &mut B::Field, r: &mut B::Field) {
        self.backend.apply_boundary_conditions(&self.geometry, &self.case.gas, &self.boundary, w);
        self.residual(w, r);
    }

    /// R(W): convective plus viscous residual of the case's (second-order) discretization, plus
    /// the forcing of a constant source. Ghosts of `w` must be filled.
    fn residual(&self, w: &B::Field, r: &mut B::Field) {
        let (gas, solver) = (&self.case.gas, &self.case.solver);
        self.backend.convective_residual(&self.geometry, gas, &self.scheme, w, r);
        self.backend.viscous_residual(&self.geometry, gas, solver.model, &self.case.sa_options(), w, r);
        if let Some(forcing) = &self.forcing {
            self.backend.axpy_field(1.0, forcing, r);
        }
    }
}

/// The linear systems the solver marches (the mean flow, and the scalar systems assembled).
fn marched_systems<B: ImplicitBackend>(backend: &B, jacobian: &B::Jacobian, pc: Option<&B::Preconditioner>) -> Vec<System> {
    System::ALL.into_iter().filter(|s| *s == System::MeanFlow || pc.is_some_and(|pc| backend.has_system(jacobian, pc, *s))).collect()
}

/// FGMRES statistics of one implicit stage: the mean-flow solve and, with Spalart-Allmaras, the
/// segregated SA solve that follows it, and with SA-gamma the intermittency solve after that.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageStats {
    pub flow: FgmresStats,
    pub turbulence: Option<FgmresStats>,
    pub intermittency: Option<FgmresStats>,
}

/// One stage of thesis eq. 5.5: solves `A dw = -alpha r` with right-preconditioned FGMRES from
/// `dw = 0` for the mean flow and then, when the SA system is assembled and factorized,
/// `A_sa dw_sa = -alpha r_sa` at frozen mean flow (thesis 5.2). `dw` is overwritten (unsolved
/// variables zero).
#[allow(clippy::too_many_arguments)]
pub fn solve_stage<B: ImplicitBackend>(
    backend: &B,
    geometry: &B::Geometry,
    jacobian: &B::Jacobian,
    preconditioner: &B::Preconditioner,
    alpha: f64,
    r: &B::Field,
    dw: &mut B::Field,
    settings: &FgmresSettings,
) -> StageStats {
    solve_stage_in(backend, geometry, jacobian, preconditioner, alpha, r, dw, settings, settings, &mut StageWorkspace::default(), true, None)
}

/// The Krylov vectors of the stage solves, one workspace per system, kept by the solver from
/// one stage to the next.
pub struct StageWorkspace<V> {
    flow: SystemWorkspace<V>,
    turbulence: SystemWorkspace<V>,
    intermittency: SystemWorkspace<V>,
}

impl<V> Default for StageWorkspace<V> {
    fn default() -> Self {
        StageWorkspace { flow: SystemWorkspace::default(), turbulence: SystemWorkspace::default(), intermittency: SystemWorkspace::default() }
    }
}

/// One system's right-hand side, solution and FGMRES vectors (made on first use: on a GPU each
/// new vector is an allocation and a memset).
struct SystemWorkspace<V> {
    rhs_and_solution: Option<(V, V)>,
    krylov: KrylovWorkspace<V>,
}

impl<V> Default for SystemWorkspace<V> {
    fn default() -> Self {
        SystemWorkspace { rhs_and_solution: None, krylov: KrylovWorkspace::default() }
    }
}

/// [`solve_stage`] with the Krylov vectors taken from `workspace`, the segregated scalar systems
/// solved with `scalar_settings` (`ImplicitConfig::scalar_gmres`), the intermittency system
/// (SA-gamma) only `with_intermittency` (`ImplicitConfig::intermittency_every_stage`), and the
/// mean flow with `matrix_free`'s operator where given (`StageOperator::MatrixFree`; its product
/// holds the solver's residual closure, which is not `Send`, so it runs on the calling thread).
#[allow(clippy::too_many_arguments)]
pub fn solve_stage_in<B: ImplicitBackend>(
    backend: &B,
    geometry: &B::Geometry,
    jacobian: &B::Jacobian,
    preconditioner: &B::Preconditioner,
    alpha: f64,
    r: &B::Field,
    dw: &mut B::Field,
    settings: &FgmresSettings,
    scalar_settings: &FgmresSettings,
    workspace: &mut StageWorkspace<B::KrylovVector>,
    with_intermittency: bool,
    matrix_free: Option<&MatrixFreeSystem<B>>,
) -> StageStats {
    backend.fill_field(dw, 0.0);
    let mut solve = |system: System, workspace: &mut SystemWorkspace<B::KrylovVector>| {
        let linear = StageSystem { backend, jacobian, preconditioner, system };
        let settings = if system == System::MeanFlow { settings } else { scalar_settings };
        let (b, x) = workspace.rhs_and_solution.get_or_insert_with(|| (backend.new_krylov_vector(jacobian, system), backend.new_krylov_vector(jacobian, system)));
        backend.gather_rhs(geometry, jacobian, system, r, -alpha, b);
        let stats = match (system, matrix_free) {
            (System::MeanFlow, Some(mf)) => fgmres_from_zero_in(mf, b, x, settings, &mut workspace.krylov),
            _ => backend.run_linear_solve(|| fgmres_from_zero_in(&linear, b, x, settings, &mut workspace.krylov)),
        };
        backend.scatter_solution(geometry, jacobian, system, x, dw);
        stats
    };
    let flow = solve(System::MeanFlow, &mut workspace.flow);
    let turbulence = backend.has_system(jacobian, preconditioner, System::Turbulence).then(|| solve(System::Turbulence, &mut workspace.turbulence));
    let intermittency = (with_intermittency && backend.has_system(jacobian, preconditioner, System::Intermittency)).then(|| solve(System::Intermittency, &mut workspace.intermittency));
    StageStats { flow, turbulence, intermittency }
}

/// The turbulence systems' FGMRES settings for the next iteration: `scalar_gmres` while the
/// density residual of the last recorded iteration is within `scalar_gmres_orders` of the
/// solve's first one (the whole solve when unset), the mean flow's `gmres` otherwise.
fn scalar_settings<'a>(cfg: &'a ImplicitConfig, history: &ConvergenceHistory) -> &'a FgmresSettings {
    let orders = match (history.records.first(), history.records.last()) {
        (Some(first), Some(last)) => (first.residuals[0] / last.residuals[0]).log10(),
        _ => 0.0,
    };
    match (&cfg.scalar_gmres, cfg.scalar_gmres_orders) {
        (Some(s), None) => s,
        (Some(s), Some(limit)) if orders < limit => s,
        _ => &cfg.gmres,
    }
}
