//! Convergence monitoring: residual history, convergence and divergence tests, observer hook.

use serde::{Deserialize, Serialize};

use crate::backend::NVAR;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use crate::flow::solution::Solution;
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
    /// The density reference the solve was given (`SolverConfig::residual_reference`).
    #[serde(default)]
    pub reference: Option<f64>,
}

impl ConvergenceHistory {
    /// A history whose orders count from `reference` when given (restarts, warm starts).
    pub fn with_reference(reference: Option<f64>) -> Self {
        ConvergenceHistory { records: Vec::new(), reference }
    }

    /// The density residual the orders count from: the given reference, else the largest
    /// value in the first iterations (the monitor's reference).
    pub fn density_reference(&self) -> f64 {
        self.reference.unwrap_or_else(|| self.records.iter().take(REFERENCE_WINDOW).map(|r| r.residuals[0]).fold(0.0, f64::max))
    }

    /// Orders of magnitude the density residual dropped from the reference
    /// ([`Self::density_reference`]) to the last iteration.
    pub fn orders_dropped(&self) -> f64 {
        let reference = self.density_reference();
        match self.records.last() {
            Some(b) if reference > 0.0 && b.residuals[0] > 0.0 => (reference / b.residuals[0]).log10(),
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

    /// Iterations between looks at the flow state through [`Observer::on_state`]; `None` (the
    /// default): never, and the solver hands no state over.
    fn state_interval(&self) -> Option<usize> {
        None
    }

    /// The flow state after `iteration`, at most every [`Observer::state_interval`] iterations:
    /// how an observer stops a solve on figures computed from the flow itself (a cascade's
    /// objectives, `cascade::FigureWatch`) rather than on residuals.
    fn on_state(&mut self, _iteration: usize, _state: &Solution) -> Control {
        Control::Continue
    }
}

/// Hands the observer the flow state (`download` makes it) when at least its
/// [`Observer::state_interval`] iterations have passed since `last_look`; the solver loops call
/// it after each batch of residual records.
pub(crate) fn show_state(observer: &mut dyn Observer, iteration: usize, last_look: &mut usize, download: impl FnOnce() -> Solution) -> Control {
    match observer.state_interval() {
        Some(n) if iteration >= *last_look + n.max(1) => {
            *last_look = iteration;
            observer.on_state(iteration, &download())
        }
        _ => Control::Continue,
    }
}

/// A request to stop, shared between whoever asks (a signal handler, a Python caller's
/// Ctrl-C) and the work that honours it: a solve watched by [`Stoppable`] stops after its current
/// iteration, the CFD evaluator answers the designs it has not finished with
/// `Status::Interrupted`, and a campaign stops without logging them (so that it resumes as if
/// never interrupted).
#[derive(Clone, Debug, Default)]
pub struct StopSignal(Arc<AtomicBool>);

impl StopSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the work watching this signal to stop.
    pub fn request(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was asked for.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Withdraws the request, so that later work runs again.
    pub fn clear(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}

/// An observer that stops its solve once `stop` is requested and otherwise hands every call to
/// `inner`.
pub struct Stoppable<'a> {
    pub inner: &'a mut dyn Observer,
    pub stop: &'a StopSignal,
}

impl Observer for Stoppable<'_> {
    fn on_iteration(&mut self, record: &IterationRecord) -> Control {
        match self.stop.requested() {
            true => Control::Stop,
            false => self.inner.on_iteration(record),
        }
    }

    fn state_interval(&self) -> Option<usize> {
        self.inner.state_interval()
    }

    fn on_state(&mut self, iteration: usize, state: &Solution) -> Control {
        match self.stop.requested() {
            true => Control::Stop,
            false => self.inner.on_state(iteration, state),
        }
    }
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

/// Iterations over which the reference residuals are taken (their maximum): an impulsive start
/// (uniform flow along a no-slip wall) has a round-off density residual at the first iteration.
pub(crate) const REFERENCE_WINDOW: usize = 10;

/// Convergence and divergence tests on the density residual (thesis: convergence = density
/// residual dropped N orders), relative to its largest value in the first [`REFERENCE_WINDOW`]
/// iterations; blow-up is tested after that window, NaN/Inf always. When the reference density
/// residual is exactly zero (a start whose mass balance is exact, e.g. a force-driven periodic
/// channel), the monitored figure is the largest mean-flow residual relative to its own
/// reference instead (over the equations whose reference is not round-off). A given density
/// reference (restarts, warm starts) replaces the first iterations' one.
#[derive(Clone, Debug)]
pub(crate) struct Monitor {
    reference: Option<[f64; NVAR]>,
    density_reference: Option<f64>,
    convergence_orders: f64,
    divergence_factor: f64,
}

impl Monitor {
    pub fn new(convergence_orders: f64, divergence_factor: f64, density_reference: Option<f64>) -> Self {
        Monitor { reference: None, density_reference, convergence_orders, divergence_factor }
    }

    /// Checks the residuals of `iteration`: `Err(Diverged)` on NaN/Inf or blow-up,
    /// `Ok(true)` when converged.
    pub fn check(&mut self, iteration: usize, residuals: &[f64; NVAR]) -> Result<bool> {
        if let Some(v) = residuals.iter().position(|r| !r.is_finite()) {
            return Err(Error::Diverged { iteration, reason: format!("residual of equation {v} is {}", residuals[v]) });
        }
        let reference = self.reference.get_or_insert(*residuals);
        if iteration <= REFERENCE_WINDOW {
            for (r, x) in reference.iter_mut().zip(residuals) {
                *r = r.max(*x);
            }
        }
        let mut reference = *reference;
        if let Some(r0) = self.density_reference {
            reference[0] = r0;
        }
        let ratio = if reference[0] > 0.0 {
            residuals[0] / reference[0]
        } else {
            // Equations whose first residual is round-off next to the largest are not monitored.
            let largest = reference[..crate::backend::NFLOW].iter().copied().fold(0.0, f64::max);
            let ratios = (0..crate::backend::NFLOW).filter(|&v| reference[v] > 1e-8 * largest).map(|v| residuals[v] / reference[v]);
            match ratios.reduce(f64::max) {
                Some(r) => r,
                // Every residual exactly zero from the start: an exactly steady state.
                None => return Ok(true),
            }
        };
        if iteration > REFERENCE_WINDOW && ratio > self.divergence_factor {
            return Err(Error::Diverged {
                iteration,
                reason: format!("residual grew {ratio:e} times its first value (limit {:e})", self.divergence_factor),
            });
        }
        Ok(ratio <= 10f64.powf(-self.convergence_orders))
    }
}

/// Result of a solve.
#[derive(Clone, Debug)]
pub struct SolveOutcome {
    pub solution: Solution,
    pub history: ConvergenceHistory,
    /// Steady runs: the density residual dropped the configured orders. Time-accurate runs:
    /// the final time was reached.
    pub converged: bool,
    /// Iterations (multigrid cycles) done.
    pub iterations: usize,
    /// Physical time reached (time-accurate runs; 0 otherwise).
    pub time: f64,
}
