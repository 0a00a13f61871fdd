//! The explicit solver, written once against [`Backend`]: low-storage m-stage Runge-Kutta
//! (thesis eq. 4.8) with local or global time stepping, optional implicit residual smoothing
//! (thesis eq. 4.15) and FAS multigrid (Blazek sec. 9.3) with the Runge-Kutta scheme as the
//! smoother on every level.

use std::time::Instant;

use super::config::{Case, TimeStepping};
use super::monitor::{show_state, Control, ConvergenceHistory, IterationRecord, Monitor, Observer, SolveOutcome};
use crate::backend::{Backend, BoundaryData, ConvectiveScheme, Reconstruction, NFLOW};
use crate::flow::solution::Solution;
use crate::mesh::coarsen::coarsen;
use crate::mesh::Mesh;
use crate::{Error, Result};

/// One grid of the multigrid hierarchy (the only one without multigrid) with its buffers:
/// W0, W and R of the low-storage scheme, the time steps, the forcing term (FAS forcing on
/// coarse grids, minus the source term on the fine grid), the restricted state W_c^0 that
/// the coarse-grid correction is measured from, and (grids with a coarser one) the prolonged
/// correction.
struct Level<B: Backend> {
    geometry: B::Geometry,
    scheme: ConvectiveScheme,
    w0: B::Field,
    w: B::Field,
    r: B::Field,
    dt: B::Scalars,
    /// Point-implicit factor of the SA residual (turbulent runs).
    sa_factor: B::Scalars,
    /// Point-implicit factor of the intermittency residual (SA-gamma, finest level).
    gamma_factor: Option<B::Scalars>,
    /// Per-cell residual-smoothing coefficients along i and j (variable smoothing only).
    smoothing_eps: Option<[B::Scalars; 2]>,
    forcing: Option<B::Field>,
    w_start: Option<B::Field>,
    correction: Option<B::Field>,
}

/// An explicit flow solver on one mesh and one backend.
pub struct ExplicitSolver<'b, B: Backend> {
    backend: &'b B,
    case: Case,
    boundary: BoundaryData,
    levels: Vec<Level<B>>,
}

impl<'b, B: Backend> ExplicitSolver<'b, B> {
    /// Validates the case, builds the coarse meshes (multigrid) and uploads every level's
    /// geometry to the backend.
    pub fn new(backend: &'b B, mesh: &Mesh, case: Case) -> Result<Self> {
        case.validate()?;
        let boundary = case.boundary_data();
        let fine_scheme = case.convective_scheme();
        let n_levels = case.solver.multigrid.map_or(1, |mg| mg.levels);
        let mut levels = Vec::with_capacity(n_levels);
        let mut level_mesh = mesh.clone();
        for l in 0..n_levels {
            if l > 0 {
                level_mesh = coarsen(&level_mesh)?;
            }
            // Coarse grids only carry corrections: first order is cheaper and more robust.
            let scheme = if l == 0 { fine_scheme } else { ConvectiveScheme { reconstruction: Reconstruction::FirstOrder, ..fine_scheme } };
            let geometry = backend.upload_geometry(&level_mesh)?;
            let (w0, w, r) = (backend.new_field(&geometry), backend.new_field(&geometry), backend.new_field(&geometry));
            let (dt, sa_factor) = (backend.new_scalars(&geometry), backend.new_scalars(&geometry));
            let (forcing, w_start) = if l > 0 { (Some(backend.new_field(&geometry)), Some(backend.new_field(&geometry))) } else { (None, None) };
            let correction = if l + 1 < n_levels { Some(backend.new_field(&geometry)) } else { None };
            let variable_smoothing = case.solver.smoothing.is_some_and(|sm| sm.variable.is_some());
            let smoothing_eps = variable_smoothing.then(|| [backend.new_scalars(&geometry), backend.new_scalars(&geometry)]);
            let gamma_factor = (l == 0 && case.solver.model.transports_intermittency()).then(|| backend.new_scalars(&geometry));
            levels.push(Level { geometry, scheme, w0, w, r, dt, sa_factor, gamma_factor, smoothing_eps, forcing, w_start, correction });
        }
        Ok(ExplicitSolver { backend, case, boundary, levels })
    }

    /// The validated case this solver runs.
    pub fn case(&self) -> &Case {
        &self.case
    }

    /// Adds a constant source: the residual becomes `R(W) - S`, with `S` given per cell as
    /// volume-integrated conservative quantities (manufactured solutions, body forces) in the
    /// `rho`, `rho_u`, `rho_v`, `rho_e` arrays; the SA slot gets `rho * nu_tilde` of `source` as
    /// any uploaded state does. Shapes must match.
    pub fn set_source(&mut self, source: &Solution) -> Result<()> {
        let fine = &mut self.levels[0];
        let s = self.backend.upload_state(&fine.geometry, source)?;
        let mut forcing = self.backend.new_field(&fine.geometry);
        self.backend.axpy_field(-1.0, &s, &mut forcing);
        fine.forcing = Some(forcing);
        Ok(())
    }

    /// Marches `initial` until convergence, the final time, `max_iterations`, or an observer's
    /// stop. NaN/Inf or residual blow-up end in [`Error::Diverged`] naming the iteration.
    pub fn solve(&mut self, initial: &Solution, observer: &mut dyn Observer) -> Result<SolveOutcome> {
        self.levels[0].w = self.backend.upload_state(&self.levels[0].geometry, initial)?;
        let config = self.case.solver.clone();
        let visits = config.multigrid.map_or(1, |mg| mg.cycle.visits());
        let delay = config.multigrid.map_or(0, |mg| mg.delay);
        let mut monitor = Monitor::new(config.convergence_orders, config.divergence_factor, config.residual_reference);
        let mut history = ConvergenceHistory::with_reference(config.residual_reference);
        // Norms stay in the backend for `interval` iterations and come back in one read-back;
        // convergence, divergence and the observer see them then (time-accurate runs read the
        // global step every iteration anyway).
        let interval = match config.time_stepping {
            TimeStepping::Local => config.monitor_interval.unwrap_or_else(|| self.backend.norm_readback_interval()).max(1),
            TimeStepping::Global { .. } => 1,
        };
        let mut log = self.backend.new_norm_log(interval);
        let mut pending: Vec<(usize, f64)> = Vec::with_capacity(interval);
        // With local time steps an iteration is the same sequence of operations every time
        // (the norm-log slot aside): the backend may record it once per slot and replay it.
        let mut fine_recordings: Vec<Option<B::Recording>> = (0..interval).map(|_| None).collect();
        let mut coarse_recording: Option<B::Recording> = None;
        let backend = self.backend;
        let start = Instant::now();
        let mut time = 0.0;
        let mut converged = false;
        let mut iterations = 0;
        let mut last_look = 0;

        for iteration in 1..=config.max_iterations {
            iterations = iteration;
            let global_step = match config.time_stepping {
                TimeStepping::Local => None,
                TimeStepping::Global { final_time } => Some(final_time - time),
            };
            let slot = pending.len();
            if global_step.is_some() {
                time += self.rk_iteration(0, global_step, iteration, Some((&mut log, slot)))?;
            } else {
                let mut result = Ok(0.0);
                backend.run_recorded(&mut fine_recordings[slot], &mut || result = self.rk_iteration(0, None, iteration, Some((&mut log, slot))))?;
                result?;
            }
            if self.levels.len() > 1 && iteration > delay {
                let mut result = Ok(());
                backend.run_recorded(&mut coarse_recording, &mut || result = self.coarse_grid_correction(0, visits, iteration))?;
                result?;
            }
            pending.push((iteration, time));
            if pending.len() < interval && iteration < config.max_iterations {
                continue;
            }
            let norms = self.backend.read_norm_log(&log, pending.len())?;
            let wall_s = start.elapsed().as_secs_f64();
            let mut stop = false;
            for ((iteration, time), residuals) in pending.drain(..).zip(norms) {
                let record = IterationRecord { iteration, residuals, wall_s, time };
                let steady_converged = monitor.check(iteration, &residuals)?;
                stop |= observer.on_iteration(&record) == Control::Stop;
                history.records.push(record);
                converged |= match config.time_stepping {
                    TimeStepping::Local => steady_converged,
                    TimeStepping::Global { final_time } => time >= final_time,
                };
            }
            let fine = &self.levels[0];
            stop |= show_state(observer, iterations, &mut last_look, || super::downloaded_state(backend, &fine.geometry, &fine.w, self.case.solver.model)) == Control::Stop;
            if converged || stop {
                break;
            }
        }

        let fine = &self.levels[0];
        let solution = super::downloaded_state(self.backend, &fine.geometry, &fine.w, self.case.solver.model);
        check_finite(&solution, iterations)?;
        Ok(SolveOutcome { solution, history, converged, iterations, time })
    }

    /// One Runge-Kutta iteration on level `l` (thesis eq. 4.8). With `global_step = Some(t_left)`
    /// every cell takes the smallest stable step, at most `t_left`. With `norms = Some((log,
    /// slot))` the residual norms of the first stage (the residual of the state the iteration
    /// started from) go to that slot of the log. Returns the global step taken (0 with local
    /// time stepping).
    fn rk_iteration(&mut self, l: usize, global_step: Option<f64>, iteration: usize, mut norms: Option<(&mut B::NormLog, usize)>) -> Result<f64> {
        let backend = self.backend;
        let config = &self.case.solver;
        let alphas = config.rk.coefficients();
        let level = &mut self.levels[l];
        backend.copy_field(&level.w, &mut level.w0);
        backend.apply_boundary_conditions(&level.geometry, &self.case.gas, &self.boundary, &mut level.w);
        backend.local_time_step(&level.geometry, &self.case.gas, config.model, config.cfl, &level.w, &mut level.dt);
        let mut step = 0.0;
        if let Some(time_left) = global_step {
            step = backend.min_scalar(&level.dt).min(time_left);
            if !(step.is_finite() && step > 0.0) {
                return Err(Error::Diverged { iteration, reason: format!("global time step is {step}") });
            }
            backend.fill_scalars(&mut level.dt, step);
        }
        // Coarse grids carry mean-flow corrections only: the SA (and intermittency) equations are
        // marched on the finest grid and the coarse grids see the restricted eddy viscosity,
        // frozen (as SU2 does: the model's stiff near-wall source does not survive 2 x 2
        // agglomeration).
        let nvar = if l == 0 { config.model.n_marched() } else { config.model.n_marched().min(NFLOW) };
        let turbulent = l == 0 && config.model.is_turbulent();
        let sa = self.case.sa_options();
        if turbulent {
            backend.turbulence_source_factor(&level.geometry, &self.case.gas, &sa, &level.w, &level.dt, &mut level.sa_factor);
        }
        if let Some(factor) = level.gamma_factor.as_mut() {
            backend.intermittency_source_factor(&level.geometry, &self.case.gas, &sa, &level.w, &level.dt, factor);
        }
        // Variable smoothing coefficients are frozen over the stages, like the time step.
        if let (Some(eps), Some(v)) = (level.smoothing_eps.as_mut(), config.smoothing.and_then(|sm| sm.variable)) {
            backend.smoothing_coefficients(&level.geometry, &self.case.gas, config.model, v.cfl_ratio, v.c, &level.w, eps);
        }
        for (stage, alpha) in alphas.iter().enumerate() {
            if stage > 0 {
                backend.apply_boundary_conditions(&level.geometry, &self.case.gas, &self.boundary, &mut level.w);
            }
            residual(backend, &self.case, level);
            if let (0, Some((log, slot))) = (stage, norms.as_mut()) {
                backend.log_residual_norms(&level.geometry, &level.r, log, *slot);
            }
            if turbulent {
                backend.scale_turbulence_residual(&level.geometry, &level.sa_factor, &mut level.r);
            }
            if let Some(factor) = &level.gamma_factor {
                backend.scale_intermittency_residual(&level.geometry, factor, &mut level.r);
            }
            match (&level.smoothing_eps, config.smoothing) {
                (Some(eps), _) => backend.smooth_residual_variable(&level.geometry, nvar, eps, &mut level.r),
                (None, Some(sm)) => backend.smooth_residual(&level.geometry, nvar, sm.epsilon, &mut level.r),
                (None, None) => {}
            }
            backend.rk_stage_update(&level.geometry, nvar, *alpha, &level.w0, &level.r, &level.dt, &mut level.w);
            if level.gamma_factor.is_some() {
                // gamma is a fraction; a stage can overshoot it where the production is large.
                backend.bound_intermittency(&level.geometry, &mut level.w);
            }
        }
        Ok(step)
    }

    /// FAS coarse-grid correction of level `l` (Blazek sec. 9.3): restrict the state and the
    /// full residual, set the forcing P_c = I R_f - R_c(I W_f) so that the coarse problem
    /// starts from the fine residual, smooth there (recursively `visits` times: 1 = V-cycle,
    /// 2 = W-cycle), and add the prolonged correction W_c - I W_f to the fine state, smoothed
    /// first with `correction_smoothing`.
    fn coarse_grid_correction(&mut self, l: usize, visits: usize, iteration: usize) -> Result<()> {
        let backend = self.backend;
        let (fine_levels, coarse_levels) = self.levels.split_at_mut(l + 1);
        let (fine, coarse) = (&mut fine_levels[l], &mut coarse_levels[0]);

        backend.apply_boundary_conditions(&fine.geometry, &self.case.gas, &self.boundary, &mut fine.w);
        residual(backend, &self.case, fine);
        let forcing = coarse.forcing.as_mut().expect("coarse levels carry a forcing buffer");
        backend.restrict_residual(&fine.geometry, &coarse.geometry, &fine.r, forcing);
        backend.restrict_state(&fine.geometry, &coarse.geometry, &fine.w, &mut coarse.w);
        backend.apply_boundary_conditions(&coarse.geometry, &self.case.gas, &self.boundary, &mut coarse.w);
        // R_c(I W_f) without forcing, into the coarse residual buffer.
        physical_residual(backend, &self.case, &coarse.geometry, &coarse.scheme, &coarse.w, &mut coarse.r);
        backend.axpy_field(-1.0, &coarse.r, forcing);
        let w_start = coarse.w_start.as_mut().expect("coarse levels carry a start-state buffer");
        backend.copy_field(&coarse.w, w_start);

        for _ in 0..visits {
            self.rk_iteration(l + 1, None, iteration, None)?;
            if l + 2 < self.levels.len() {
                self.coarse_grid_correction(l + 1, visits, iteration)?;
            }
        }

        let (fine_levels, coarse_levels) = self.levels.split_at_mut(l + 1);
        let (fine, coarse) = (&mut fine_levels[l], &coarse_levels[0]);
        let w_start = coarse.w_start.as_ref().expect("coarse levels carry a start-state buffer");
        let smoothing = self.case.solver.multigrid.map_or(0.0, |mg| mg.correction_smoothing);
        if smoothing > 0.0 {
            let correction = fine.correction.as_mut().expect("levels with a coarser one carry a correction buffer");
            backend.fill_field(correction, 0.0);
            backend.prolong_correction(&coarse.geometry, &fine.geometry, &coarse.w, w_start, correction);
            backend.smooth_residual(&fine.geometry, self.case.solver.model.n_marched(), [smoothing, smoothing], correction);
            backend.axpy_field(1.0, correction, &mut fine.w);
        } else {
            backend.prolong_correction(&coarse.geometry, &fine.geometry, &coarse.w, w_start, &mut fine.w);
        }
        Ok(())
    }
}

/// R(W) + P on one level: the physical residual plus the level's forcing (FAS forcing on
/// coarse grids, minus the source on the fine grid). Ghosts of `w` must be filled.
fn residual<B: Backend>(backend: &B, case: &Case, level: &mut Level<B>) {
    physical_residual(backend, case, &level.geometry, &level.scheme, &level.w, &mut level.r);
    if let Some(forcing) = &level.forcing {
        backend.axpy_field(1.0, forcing, &mut level.r);
    }
}

/// R(W): convective plus viscous (and SA) residual (thesis eq. 4.1).
fn physical_residual<B: Backend>(backend: &B, case: &Case, geometry: &B::Geometry, scheme: &ConvectiveScheme, w: &B::Field, r: &mut B::Field) {
    backend.convective_residual(geometry, &case.gas, scheme, w, r);
    backend.viscous_residual(geometry, &case.gas, case.solver.model, &case.sa_options(), w, r);
}

/// The last update is not seen by a residual norm; a non-finite or non-physical state must
/// still not come back as a result.
fn check_finite(solution: &Solution, iteration: usize) -> Result<()> {
    for (b, block) in solution.blocks.iter().enumerate() {
        let bad = block
            .rho
            .iter()
            .zip(&block.rho_e)
            .position(|(rho, rho_e)| !(rho.is_finite() && rho_e.is_finite() && *rho > 0.0));
        if let Some(c) = bad {
            return Err(Error::Diverged { iteration, reason: format!("non-physical state in block {b}, cell {c}") });
        }
    }
    Ok(())
}
