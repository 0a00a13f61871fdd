//! Convergence monitoring: residual history, convergence and divergence tests, observer hook.

use serde::{Deserialize, Serialize};

use crate::backend::NVAR;
use crate::{Error, Result};

/// Figures of one iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// 1-based iteration number.
    pub iteration: usize,
    /// RMS of residual / volume per conservative variable, at the start of the iteration.
    pub residuals: [f64; NVAR],
    /// Wall-clock seconds since the solve started.
    pub wall_s: f64,
    /// Physical time reached after the iteration (time-accurate runs; 0 otherwise).
    pub time: f64,
}

/// Residual history of a solve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConvergenceHistory {
    pub records: Vec<IterationRecord>,
}

impl ConvergenceHistory {
    /// Orders of magnitude the density residual dropped from the first iteration to the last.
    pub fn orders_dropped(&self) -> f64 {
        match (self.records.first(), self.records.last()) {
            (Some(a), Some(b)) if a.residuals[0] > 0.0 && b.residuals[0] > 0.0 => (a.residuals[0] / b.residuals[0]).log10(),
            _ => 0.0,
        }
    }
}

/// What an observer wants after an iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// Stop now and return the current state as not converged.
    Stop,
}

/// Hook called after every iteration (progress bars, logging, early stopping).
pub trait Observer {
    fn on_iteration(&mut self, record: &IterationRecord) -> Control;
}

/// Observer that does nothing.
pub struct Silent;

impl Observer for Silent {
    fn on_iteration(&mut self, _: &IterationRecord) -> Control {
        Control::Continue
    }
}

impl<F: FnMut(&IterationRecord) -> Control> Observer for F {
    fn on_iteration(&mut self, record: &IterationRecord) -> Control {
        self(record)
    }
}

/// Convergence and divergence tests on the density residual.
#[derive(Clone, Debug)]
pub(crate) struct Monitor {
    reference: Option<f64>,
    convergence_orders: f64,
    divergence_factor: f64,
}

impl Monitor {
    pub fn new(convergence_orders: f64, divergence_factor: f64) -> Self {
        Monitor { reference: None, convergence_orders, divergence_factor }
    }

    /// Checks the residuals of `iteration`: `Err(Diverged)` on NaN/Inf or blow-up,
    /// `Ok(true)` when converged.
    pub fn check(&mut self, iteration: usize, residuals: &[f64; NVAR]) -> Result<bool> {
        if let Some(v) = residuals.iter().position(|r| !r.is_finite()) {
            return Err(Error::Diverged { iteration, reason: format!("residual of equation {v} is {}", residuals[v]) });
        }
        let rho = residuals[0];
        let reference = *self.reference.get_or_insert(rho);
        if reference == 0.0 {
            // An exactly steady initial state.
            return Ok(true);
        }
        if rho > self.divergence_factor * reference {
            return Err(Error::Diverged {
                iteration,
                reason: format!("density residual {rho:e} grew more than {:e} times its first value {reference:e}", self.divergence_factor),
            });
        }
        Ok(rho <= reference * 10f64.powf(-self.convergence_orders))
    }
}
