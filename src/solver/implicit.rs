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

use super::config::Case;
use super::explicit::SolveOutcome;
use super::monitor::{show_state, Control, ConvergenceHistory, IterationRecord, Monitor, Observer};
use super::krylov::{fgmres_in, FgmresSettings, GramSchmidt, FgmresStats, KrylovWorkspace, StageSystem};
use crate::backend::{BoundaryData, ConvectiveJacobian, ConvectiveScheme, ImplicitBackend, JacobianOptions, PreconditionerKind, System};
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use crate::{Error, Result};

/// Time integration scheme of a case.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// Explicit Runge-Kutta with the `SolverConfig` settings (`solver::explicit`).
    #[default]
    Explicit,
    /// The implicit scheme of this module.
    Implicit(ImplicitConfig),
}

/// When the preconditioner is refactorized (thesis 5.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IluRefresh {
    /// Every flow iteration (the standard ILU).
    EveryIteration,
    /// On demand: when the last linear solve needed more than MAX_ITR = a + b CFL iterations
    /// (thesis eq. 5.11), or `period` flow iterations after the last factorization (0: never
    /// periodically). The thesis used a = 0.5, b = 0.15 at CFL 50 (MAX_ITR = 8), period 20.
    /// The solver also refreshes after a rejected step and when the CFL moved by more than a
    /// factor 2 since the last factorization.
    OnDemand { a: f64, b: f64, period: usize },
}

impl IluRefresh {
    /// Whether to refactorize before this iteration's solves, given the iterations of the last
    /// linear solve, the current CFL and the flow iterations since the last factorization.
    pub fn needs_factorization(&self, last_linear_iterations: usize, cfl: f64, iterations_since: usize) -> bool {
        match *self {
            IluRefresh::EveryIteration => true,
            IluRefresh::OnDemand { a, b, period } => {
                last_linear_iterations as f64 > a + b * cfl || (period > 0 && iterations_since >= period)
            }
        }
    }
}

/// CFL ramp: start low, grow geometrically while the density residual falls, cut back when it
/// rises or a step gives a non-physical state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CflRamp {
    pub start: f64,
    /// Target CFL (50-1000 for the implicit scheme; default 200: LS89 MUR47 RANS on the medium
    /// mesh converges 6 orders in 435 iterations at 200 against 908 at 50, BENCHMARKS.md).
    pub target: f64,
    /// Factor per flow iteration while the residual does not rise.
    pub growth: f64,
    /// Factor applied on a rise or a rejected step (0 < backoff < 1).
    pub backoff: f64,
    /// A rise means: density residual above `rise_factor` times the previous one.
    pub rise_factor: f64,
    /// The back-off never goes below this CFL.
    pub min: f64,
}

impl CflRamp {
    /// CFL of the next flow iteration from the current one and the density residuals of the
    /// previous and current iterations: back off (not below `min`) when the residual rose by
    /// more than `rise_factor`, grow towards the target when it did not rise, hold otherwise.
    pub fn next(&self, cfl: f64, previous: Option<f64>, current: f64) -> f64 {
        match previous {
            None => cfl,
            Some(p) if current > self.rise_factor * p => (cfl * self.backoff).max(self.min),
            Some(p) if current <= p => (cfl * self.growth).min(self.target),
            Some(_) => cfl,
        }
    }
}

impl Default for CflRamp {
    fn default() -> Self {
        CflRamp { start: 5.0, target: 200.0, growth: 1.25, backoff: 0.5, rise_factor: 2.0, min: 0.5 }
    }
}

/// The `Implicit` scheme section of the solver configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ImplicitConfig {
    /// Runge-Kutta stages per flow iteration (1-6), each one FGMRES solve with the same matrix.
    pub stages: usize,
    /// Stage coefficients alpha_k of eq. 5.5 (length `stages`); `None`: 1 for every stage
    /// (each stage a full pseudo-time step with the frozen matrix).
    pub stage_coefficients: Option<Vec<f64>>,
    pub cfl: CflRamp,
    pub jacobian: ConvectiveJacobian,
    pub preconditioner: PreconditionerKind,
    /// FGMRES(m): restart m, relative tolerance (default 0.1), iteration cap per stage.
    pub gmres: FgmresSettings,
    pub refresh: IluRefresh,
    /// Consecutive rejected (non-physical) steps before the run is declared diverged.
    pub max_rejections: usize,
    /// Under-relaxation of each stage update: scaled so that density and pressure change by at
    /// most this fraction in any cell (a common safeguard of implicit schemes in the start-up
    /// transient); `None` takes the full update. An update that would be non-physical even
    /// scaled is applied in full and the step rejected.
    pub max_relative_change: Option<f64>,
}

impl Default for ImplicitConfig {
    fn default() -> Self {
        ImplicitConfig {
            stages: 2,
            stage_coefficients: None,
            cfl: CflRamp::default(),
            jacobian: ConvectiveJacobian::FrozenRoe,
            preconditioner: PreconditionerKind::Auto,
            gmres: FgmresSettings { restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 60, gram_schmidt: GramSchmidt::Modified },
            // The thesis tuned a = 0.5, b = 0.15 for a constant CFL of 50; with a CFL ramp from
            // 5 that gives MAX_ITR ~ 1 early on and a factorization every iteration of the ramp.
            // a = 5 keeps the threshold meaningful at low CFL (78 % vs 90 % fewer factorizations
            // on the periodic test channel, tests/implicit_convergence.rs).
            refresh: IluRefresh::OnDemand { a: 5.0, b: 0.1, period: 20 },
            max_rejections: 20,
            max_relative_change: Some(0.2),
        }
    }
}

impl ImplicitConfig {
    /// The most Runge-Kutta stages per flow iteration.
    pub const MAX_STAGES: usize = 6;

    /// The stage coefficients alpha_1..alpha_m.
    pub fn coefficients(&self) -> Vec<f64> {
        self.stage_coefficients.clone().unwrap_or_else(|| vec![1.0; self.stages])
    }

    /// Checks every knob; bad input gets a typed error naming it.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::Other(format!("invalid implicit scheme: {what}")));
        if !(1..=Self::MAX_STAGES).contains(&self.stages) {
            return bad(&format!("stages = {} must be 1 to {}", self.stages, Self::MAX_STAGES));
        }
        let alphas = self.coefficients();
        if alphas.len() != self.stages || alphas.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return bad(&format!("stage coefficients {alphas:?} must be {} positive numbers", self.stages));
        }
        let c = &self.cfl;
        let positive = [("cfl.start", c.start), ("cfl.target", c.target), ("cfl.min", c.min), ("cfl.growth", c.growth), ("cfl.rise_factor", c.rise_factor)];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
            return bad(&format!("{name} = {v} must be finite and positive"));
        }
        if !(c.backoff > 0.0 && c.backoff < 1.0) {
            return bad(&format!("cfl.backoff = {} must lie in (0, 1)", c.backoff));
        }
        if c.growth < 1.0 {
            return bad(&format!("cfl.growth = {} must be at least 1", c.growth));
        }
        let g = &self.gmres;
        if g.restart == 0 || g.max_iterations == 0 || !(g.rel_tol > 0.0 && g.rel_tol < 1.0) {
            return bad(&format!("gmres {g:?}: restart and max_iterations >= 1, rel_tol in (0, 1)"));
        }
        if let Some(limit) = self.max_relative_change {
            if !(limit.is_finite() && limit > 0.0) {
                return bad(&format!("max_relative_change = {limit} must be finite and positive"));
            }
        }
        if let IluRefresh::OnDemand { a, b, .. } = self.refresh {
            if !(a.is_finite() && b.is_finite() && a >= 0.0 && b >= 0.0) {
                return bad(&format!("refresh a = {a}, b = {b} must be finite and >= 0"));
            }
        }
        Ok(())
    }
}

/// Wall-clock time per part of the implicit iteration [s].
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
        let solves: usize = self.linear_iterations.iter().map(Vec::len).sum();
        self.total_linear_iterations() as f64 / solves.max(1) as f64
    }

    /// Mean FGMRES iterations per segregated SA solve (0 without Spalart-Allmaras).
    pub fn mean_turbulence_linear_iterations(&self) -> f64 {
        let solves: usize = self.turbulence_linear_iterations.iter().map(Vec::len).sum();
        let total: usize = self.turbulence_linear_iterations.iter().flatten().sum();
        total as f64 / solves.max(1) as f64
    }

    /// Mean wall time per flow iteration [s].
    pub fn time_per_iteration(&self) -> f64 {
        self.time.total / self.iterations.max(1) as f64
    }
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
        let config = match &case.solver.scheme {
            Scheme::Implicit(c) => c.clone(),
            Scheme::Explicit => return Err(Error::Other("implicit solver needs solver.scheme = Implicit(...)".into())),
        };
        config.validate()?;
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
    /// or `max_rejections` non-physical steps in a row end in [`Error::Diverged`].
    pub fn solve(&mut self, initial: &Solution, observer: &mut dyn Observer) -> Result<ImplicitOutcome> {
        let backend = self.backend;
        let (gas, g) = (&self.case.gas, &self.geometry);
        let solver = &self.case.solver;
        let cfg = &self.config;
        let alphas = cfg.coefficients();
        let options = JacobianOptions { convective: cfg.jacobian, entropy_fix: solver.entropy_fix, physics: solver.model, sa: solver.sa };

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
        let mut cfl = cfg.cfl.start.min(cfg.cfl.target);
        let mut previous_rho: Option<f64> = None;
        let (mut last_linear, mut since_factorization, mut rejections_in_row) = (0usize, 0usize, 0usize);
        let (mut factorized_cfl, mut after_rejection) = (cfl, false);
        let mut converged = false;
        let mut last_look = 0;

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
            for (stage, alpha) in alphas.iter().enumerate() {
                if stage > 0 {
                    let t = Instant::now();
                    self.recorded_residual(&mut residual_recording, &mut w, &mut r)?;
                    report.time.residual += t.elapsed().as_secs_f64();
                }
                let t = Instant::now();
                let stats = solve_stage_in(backend, g, &self.jacobian, pc, *alpha, &r, &mut dw, &cfg.gmres, &mut krylov);
                let relaxation = match cfg.max_relative_change {
                    Some(limit) => {
                        let change = backend.max_relative_change(g, gas, &w, &dw);
                        if change.is_finite() && change > limit {
                            limit / change
                        } else {
                            1.0
                        }
                    }
                    None => 1.0,
                };
                backend.axpy_field(relaxation, &dw, &mut w);
                report.time.krylov += t.elapsed().as_secs_f64();
                stage_iterations.push(stats.flow.iterations);
                last_linear = stats.flow.iterations;
                if let Some(sa) = stats.turbulence {
                    turbulence_iterations.push(sa.iterations);
                }
            }
            report.linear_iterations.push(stage_iterations);
            if !turbulence_iterations.is_empty() {
                report.turbulence_linear_iterations.push(std::mem::take(&mut turbulence_iterations));
            }

            if !backend.is_physical(g, gas, &w) {
                // Throw the step away and retry from W^n with a smaller CFL.
                backend.copy_field(&w0, &mut w);
                report.rejected_steps += 1;
                rejections_in_row += 1;
                after_rejection = true;
                cfl = (cfl * cfg.cfl.backoff).max(cfg.cfl.min);
                previous_rho = None;
                if rejections_in_row >= cfg.max_rejections {
                    return Err(Error::Diverged { iteration, reason: format!("{rejections_in_row} non-physical implicit steps in a row (CFL {cfl})") });
                }
            } else {
                rejections_in_row = 0;
            }

            let record = IterationRecord { iteration, residuals, wall_s: start.elapsed().as_secs_f64(), time: 0.0 };
            let mut stop = observer.on_iteration(&record) == Control::Stop;
            history.records.push(record);
            stop |= show_state(observer, iteration, &mut last_look, || backend.download_state(g, &w)) == Control::Stop;
            converged = steady;
            if converged || stop {
                break;
            }
        }
        report.time.total = start.elapsed().as_secs_f64();
        backend.check()?;
        let solution = backend.download_state(g, &w);
        let iterations = report.iterations;
        Ok(ImplicitOutcome { outcome: SolveOutcome { solution, history, converged, iterations, time: 0.0 }, report })
    }

    fn factorize_or_diverge(&self, iteration: usize) -> Result<B::Preconditioner> {
        self.backend
            .factorize(&self.jacobian, self.config.preconditioner)
            .map_err(|e| Error::Diverged { iteration, reason: e.to_string() })
    }

    /// R(W): convective plus viscous residual of the case's (second-order) discretization, plus
    /// the forcing of a constant source.
    /// Ghost fill and residual of `w` into `r`, the same buffers and parameters at every call of
    /// a solve: recorded once where the backend records (a CUDA graph on the GPU).
    fn recorded_residual(&self, recording: &mut Option<B::Recording>, w: &mut B::Field, r: &mut B::Field) -> Result<()> {
        let (backend, gas) = (self.backend, &self.case.gas);
        backend.run_recorded(recording, &mut || {
            backend.apply_boundary_conditions(&self.geometry, gas, &self.boundary, w);
            self.residual(w, r);
        })
    }

    fn residual(&self, w: &B::Field, r: &mut B::Field) {
        let (gas, solver) = (&self.case.gas, &self.case.solver);
        self.backend.convective_residual(&self.geometry, gas, &self.scheme, w, r);
        self.backend.viscous_residual(&self.geometry, gas, solver.model, &solver.sa, w, r);
        if let Some(forcing) = &self.forcing {
            self.backend.axpy_field(1.0, forcing, r);
        }
    }
}

/// FGMRES statistics of one implicit stage: the mean-flow solve and, with Spalart-Allmaras, the
/// segregated SA solve that follows it.
#[derive(Clone, Copy, Debug, Default)]
pub struct StageStats {
    pub flow: FgmresStats,
    pub turbulence: Option<FgmresStats>,
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
    solve_stage_in(backend, geometry, jacobian, preconditioner, alpha, r, dw, settings, &mut StageWorkspace::default())
}

/// The Krylov vectors of the stage solves, one workspace per system, kept by the solver from
/// one stage to the next.
pub struct StageWorkspace<V> {
    flow: KrylovWorkspace<V>,
    turbulence: KrylovWorkspace<V>,
}

impl<V> Default for StageWorkspace<V> {
    fn default() -> Self {
        StageWorkspace { flow: KrylovWorkspace::default(), turbulence: KrylovWorkspace::default() }
    }
}

/// [`solve_stage`] with the Krylov vectors taken from `workspace`.
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
    workspace: &mut StageWorkspace<B::KrylovVector>,
) -> StageStats {
    backend.fill_field(dw, 0.0);
    let mut solve = |system: System, workspace: &mut KrylovWorkspace<B::KrylovVector>| {
        let linear = StageSystem { backend, jacobian, preconditioner, system };
        let mut b = backend.new_krylov_vector(jacobian, system);
        let mut x = backend.new_krylov_vector(jacobian, system);
        backend.gather_rhs(geometry, jacobian, system, r, -alpha, &mut b);
        let stats = backend.run_linear_solve(|| fgmres_in(&linear, &b, &mut x, settings, workspace));
        backend.scatter_solution(geometry, jacobian, system, &x, dw);
        stats
    };
    let flow = solve(System::MeanFlow, &mut workspace.flow);
    let turbulence = backend.has_system(jacobian, preconditioner, System::Turbulence).then(|| solve(System::Turbulence, &mut workspace.turbulence));
    StageStats { flow, turbulence }
}

/// Solves `case` with the scheme its configuration names: explicit Runge-Kutta or implicit.
/// The implicit report comes back with implicit runs.
pub fn solve_case<B: ImplicitBackend>(
    backend: &B,
    mesh: &Mesh,
    case: Case,
    initial: &Solution,
    observer: &mut dyn Observer,
) -> Result<(SolveOutcome, Option<ImplicitReport>)> {
    match case.solver.scheme {
        Scheme::Explicit => {
            let mut solver = super::explicit::ExplicitSolver::new(backend, mesh, case)?;
            Ok((solver.solve(initial, observer)?, None))
        }
        Scheme::Implicit(_) => {
            let mut solver = ImplicitSolver::new(backend, mesh, case)?;
            let out = solver.solve(initial, observer)?;
            Ok((out.outcome, Some(out.report)))
        }
    }
}
