//! The explicit solver, written once against [`Backend`]: low-storage m-stage Runge-Kutta
//! (thesis eq. 4.8) with local or global time stepping and optional implicit residual
//! smoothing.

use std::time::Instant;

use super::config::{Case, TimeStepping};
use super::monitor::{Control, ConvergenceHistory, IterationRecord, Monitor, Observer};
use crate::backend::{Backend, BoundaryData, ConvectiveScheme, NFLOW};
use crate::flow::muscl::limiter_epsilon;
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use crate::{Error, Result};

/// Result of a solve.
#[derive(Clone, Debug)]
pub struct SolveOutcome {
    pub solution: Solution,
    pub history: ConvergenceHistory,
    /// Steady runs: the density residual dropped the configured orders. Time-accurate runs:
    /// the final time was reached.
    pub converged: bool,
    pub iterations: usize,
    /// Physical time reached (time-accurate runs; 0 otherwise).
    pub time: f64,
}

/// An explicit flow solver on one mesh and one backend. Holds the three state-sized buffers of
/// the low-storage scheme (W0, W, R), the time steps and an optional source term.
pub struct ExplicitSolver<'b, B: Backend> {
    backend: &'b B,
    geometry: B::Geometry,
    case: Case,
    boundary: BoundaryData,
    scheme: ConvectiveScheme,
    w0: B::Field,
    w: B::Field,
    r: B::Field,
    dt: B::Scalars,
    source: Option<B::Field>,
}

impl<'b, B: Backend> ExplicitSolver<'b, B> {
    /// Validates the case and uploads the mesh geometry to the backend.
    pub fn new(backend: &'b B, mesh: &Mesh, case: Case) -> Result<Self> {
        case.validate()?;
        let geometry = backend.upload_geometry(mesh)?;
        let gas = &case.gas;
        let op = &case.operating_point;
        let alpha = op.alpha1_deg.to_radians();
        let boundary = BoundaryData {
            p01: op.p01,
            t01: op.t01,
            inlet_direction: [alpha.cos(), alpha.sin()],
            p2: op.p2,
            inlet_nu_tilde: 0.0,
        };
        // Limiter reference magnitudes: inlet total density, total speed of sound (for both
        // velocity components) and total pressure.
        let rho01 = op.p01 / (gas.gas_constant * op.t01);
        let c01 = (gas.gamma * gas.gas_constant * op.t01).sqrt();
        let k = case.solver.limiter_k;
        let scheme = ConvectiveScheme {
            reconstruction: case.solver.reconstruction,
            entropy_fix: case.solver.entropy_fix,
            limiter_epsilon: [limiter_epsilon(k, rho01), limiter_epsilon(k, c01), limiter_epsilon(k, c01), limiter_epsilon(k, op.p01)],
        };
        let (w0, w, r) = (backend.new_field(&geometry), backend.new_field(&geometry), backend.new_field(&geometry));
        let dt = backend.new_scalars(&geometry);
        Ok(ExplicitSolver { backend, geometry, case, boundary, scheme, w0, w, r, dt, source: None })
    }

    pub fn case(&self) -> &Case {
        &self.case
    }

    /// Adds a constant source: the residual becomes `R(W) - S`, with `S` given per cell as
    /// volume-integrated conservative quantities (manufactured solutions). Shapes must match.
    pub fn set_source(&mut self, source: &Solution) -> Result<()> {
        self.source = Some(self.backend.upload_state(&self.geometry, source)?);
        Ok(())
    }

    /// Marches `initial` until convergence, the final time, `max_iterations`, or an observer's
    /// stop. NaN/Inf or residual blow-up end in [`Error::Diverged`] naming the iteration.
    pub fn solve(&mut self, initial: &Solution, observer: &mut dyn Observer) -> Result<SolveOutcome> {
        let backend = self.backend;
        self.w = backend.upload_state(&self.geometry, initial)?;
        let config = self.case.solver.clone();
        let alphas = config.rk.coefficients();
        let mut monitor = Monitor::new(config.convergence_orders, config.divergence_factor);
        let mut history = ConvergenceHistory::default();
        let start = Instant::now();
        let mut time = 0.0;
        let mut converged = false;
        let mut iterations = 0;

        for iteration in 1..=config.max_iterations {
            iterations = iteration;
            backend.copy_field(&self.w, &mut self.w0);
            self.apply_boundary_conditions_to_w();
            backend.local_time_step(&self.geometry, &self.case.gas, config.cfl, &self.w, &mut self.dt);
            if let TimeStepping::Global { final_time } = config.time_stepping {
                let dt = backend.min_scalar(&self.dt).min(final_time - time);
                if !(dt.is_finite() && dt > 0.0) {
                    return Err(Error::Diverged { iteration, reason: format!("global time step is {dt}") });
                }
                backend.fill_scalars(&mut self.dt, dt);
                time += dt;
            }
            let mut residuals = [0.0; crate::backend::NVAR];
            for (stage, alpha) in alphas.iter().enumerate() {
                if stage > 0 {
                    self.apply_boundary_conditions_to_w();
                }
                self.residual();
                if stage == 0 {
                    residuals = backend.residual_norms(&self.geometry, &self.r);
                }
                if let Some(sm) = config.smoothing {
                    backend.smooth_residual(&self.geometry, NFLOW, sm.epsilon, &mut self.r);
                }
                backend.rk_stage_update(&self.geometry, NFLOW, *alpha, &self.w0, &self.r, &self.dt, &mut self.w);
            }
            let record = IterationRecord { iteration, residuals, wall_s: start.elapsed().as_secs_f64(), time };
            let steady_converged = monitor.check(iteration, &residuals)?;
            let control = observer.on_iteration(&record);
            history.records.push(record);
            converged = match config.time_stepping {
                TimeStepping::Local => steady_converged,
                TimeStepping::Global { final_time } => time >= final_time,
            };
            if converged || control == Control::Stop {
                break;
            }
        }

        let solution = backend.download_state(&self.geometry, &self.w);
        check_finite(&solution, iterations)?;
        Ok(SolveOutcome { solution, history, converged, iterations, time })
    }

    fn apply_boundary_conditions_to_w(&mut self) {
        self.backend.apply_boundary_conditions(&self.geometry, &self.case.gas, &self.boundary, &mut self.w);
    }

    /// R(W) - S.
    fn residual(&mut self) {
        self.backend.convective_residual(&self.geometry, &self.case.gas, &self.scheme, &self.w, &mut self.r);
        if let Some(source) = &self.source {
            self.backend.axpy_field(-1.0, source, &mut self.r);
        }
    }
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
