//! The recovery chain: what a point's solve tries when it goes non-physical or diverges, so that
//! a campaign does not lose a design to the start-up transient of the implicit scheme (without it,
//! "20 non-physical implicit steps in a row at the CFL floor" ended 4-5 % of the LS89 test case 1
//! designs).
//!
//! Attempt 1 runs as configured. Each later attempt adds the next applicable remedy of the chain
//! to those already in force (a remedy that does not apply, such as a cold start for a solve
//! that started cold, is skipped), so the last attempt is the most cautious one. Every attempt,
//! with its remedies, iterations and result, is recorded in the evaluation's diagnostics.

use crate::backend::Reconstruction;
use crate::solver::{CflRamp, ImplicitConfig, Scheme, SolverConfig};
use serde::{Deserialize, Serialize};

/// One remedy of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Remedy {
    /// One more implicit Runge-Kutta stage per flow iteration (2 -> 3) at the configured CFL:
    /// each stage is a pseudo-time step with the same frozen matrix, so a flow iteration goes
    /// further for one Jacobian and one factorization. On a DE generation of 40 LS89 designs,
    /// three stages took the 6 designs that two stages lose to non-physical steps through at
    /// once, in 37 % fewer flow iterations overall (BENCHMARKS.md), where the
    /// gentle CFL needs 545-889 iterations for each. Not for the explicit scheme, a solve
    /// already at 6 stages, or given stage coefficients.
    ExtraStage,
    /// The explicit scheme's coarse-grid corrections from four times as many single-grid
    /// iterations as configured, at least [`LATER_COARSE_GRIDS_MIN`], at the configured CFL.
    /// From an impulsive start the FAS forcing of the first cycles is large (`Multigrid::delay`),
    /// and a finer mesh needs more single-grid iterations to pass the start-up transient: LS89
    /// MUR47 on the fine mesh from the cold start went NaN near iteration 165 with corrections
    /// from iteration 150 (the default) and near 370 from 300, in every attempt of the rest of
    /// the chain, and is answered from 600 (BENCHMARKS.md). Only for the explicit scheme with
    /// multigrid.
    LaterCoarseGrids,
    /// Start from the cold quasi-one-dimensional flow instead of the given flow (a warm start
    /// from another design or a restart).
    ColdStart,
    /// A gentler time step: the implicit CFL ramp from 1, x1.1 per iteration up to 50, updates
    /// that change density and pressure by at most 10 %, 40 rejected steps in a row allowed (one
    /// at the CFL floor still ends the attempt: its retry would be the same step),
    /// no Anderson acceleration (its extrapolation is what a solve near a blow-up least needs);
    /// the explicit scheme at half its CFL.
    GentleCfl,
    /// First-order convective fluxes until the density residual dropped 2 orders (at most 300
    /// iterations), then the configured second-order scheme from that flow: the first-order
    /// scheme is dissipative enough to pass the start-up transient that non-physical states
    /// (negative pressure behind a strong expansion) come from.
    FirstOrderStart,
    /// 500 explicit Runge-Kutta iterations (5 stages, CFL 1, single grid; first order, and
    /// stopping at 2 orders, after a first-order start) before the implicit scheme: the explicit
    /// scheme is robust through the start-up transient where the implicit one takes
    /// non-physical steps.
    ExplicitStart,
    /// The configured settings from the cold start, every earlier remedy dropped; only for a
    /// solve that started warm from another design's flow (a restart, `Start::Given` with
    /// `restart`, continues its own flow and skips it). The chain's remedies add
    /// up, so without it a warm-started solve never runs the configured scheme from the cold
    /// start, and the warm start can be what misleads it: a T106C design warm-started from the
    /// baseline can settle into a flow that stalls or later blows up, where its cold start
    /// converges (4 divergences and 5 budget stops of 500 random designs at Re 200k,
    /// docs/design-space-study.md). Last in the default chain; it is also tried, once, when a
    /// warm-started solve stops at its budget unanswered. It begins a new chain: where it
    /// diverges, the chain's other remedies are added to it in turn (`cascade::solve_point`).
    ColdStartAsConfigured,
}

/// First-order phase of [`Remedy::FirstOrderStart`]: its residual target and budget.
const FIRST_ORDER_ORDERS: f64 = 2.0;
const FIRST_ORDER_ITERATIONS: usize = 300;
/// Explicit phase of [`Remedy::ExplicitStart`].
const EXPLICIT_ITERATIONS: usize = 500;
/// Single-grid iterations before the first coarse-grid correction under
/// [`Remedy::LaterCoarseGrids`], at least.
pub const LATER_COARSE_GRIDS_MIN: usize = 600;

impl Remedy {
    /// The default chain, cheapest first. The extra stage (implicit) and the later coarse grids
    /// (explicit) keep the start and the CFL; the gentle CFL comes before a new start: the
    /// default campaign's lost design (tests/cascade_recovery_long.rs) went non-physical from its
    /// warm start and from the cold start alike, and converged with the gentle CFL.
    pub fn default_chain() -> Vec<Remedy> {
        vec![Remedy::ExtraStage, Remedy::LaterCoarseGrids, Remedy::GentleCfl, Remedy::ColdStart, Remedy::FirstOrderStart, Remedy::ExplicitStart, Remedy::ColdStartAsConfigured]
    }

    /// What the diagnostics call it.
    pub fn label(self) -> &'static str {
        match self {
            Remedy::ExtraStage => "extra stage",
            Remedy::LaterCoarseGrids => "later coarse grids",
            Remedy::ColdStart => "cold start",
            Remedy::GentleCfl => "gentle CFL",
            Remedy::FirstOrderStart => "first-order start",
            Remedy::ExplicitStart => "explicit start",
            Remedy::ColdStartAsConfigured => "cold start as configured",
        }
    }
}

/// One attempt at a point: the remedies in force, its iterations (all phases) and what came of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub point: String,
    pub remedies: Vec<Remedy>,
    pub iterations: usize,
    /// "converged ...", "not converged ..." or the reason it failed.
    pub result: String,
}

impl Attempt {
    /// The remedies in force as the logs show them: "as configured" for none, else their labels
    /// joined by " + ".
    pub fn remedies_label(&self) -> String {
        if self.remedies.is_empty() {
            return "as configured".into();
        }
        self.remedies.iter().map(|r| r.label()).collect::<Vec<_>>().join(" + ")
    }
}

/// A phase run before the main solve: its configuration (budget and residual target included).
#[derive(Clone, Debug, PartialEq)]
pub struct Prelude {
    pub config: SolverConfig,
}

/// How one attempt runs: from the cold start or the given flow, an optional prelude, then the
/// main solve with `config`.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub remedies: Vec<Remedy>,
    pub cold: bool,
    pub prelude: Option<Prelude>,
    pub config: SolverConfig,
    /// Attempt 1's configuration, and whether it started from another design's flow: what
    /// [`Remedy::ColdStartAsConfigured`] restarts from and whether it applies.
    configured: SolverConfig,
    from_other_flow: bool,
}

impl Plan {
    /// Attempt 1: as configured, from the cold start or from a given flow (another design's).
    pub fn as_configured(config: SolverConfig, cold: bool) -> Plan {
        Plan { remedies: vec![], cold, prelude: None, configured: config.clone(), config, from_other_flow: !cold }
    }

    /// This plan as the start of a restart: the given flow is the solve's own, continued, so
    /// the cold start as configured does not apply.
    pub fn restarting(self) -> Plan {
        Plan { from_other_flow: false, ..self }
    }

    /// This plan with `remedy` added, or `None` when it does not apply.
    pub fn with(&self, remedy: Remedy) -> Option<Plan> {
        let mut next = self.clone();
        next.remedies.push(remedy);
        match remedy {
            Remedy::ColdStartAsConfigured if !self.from_other_flow => return None,
            // A fresh plan, itself a cold start, so that the remedy is not tried twice.
            Remedy::ColdStartAsConfigured => next = Plan { remedies: vec![remedy], ..Plan::as_configured(self.configured.clone(), true) },
            Remedy::ColdStart if self.cold => return None,
            Remedy::ColdStart => next.cold = true,
            Remedy::ExtraStage => extra_stage(&mut next.config)?,
            Remedy::LaterCoarseGrids => later_coarse_grids(&mut next.config)?,
            Remedy::GentleCfl => gentle(&mut next.config),
            Remedy::FirstOrderStart => next.prelude = Some(Prelude { config: first_order(&next.config) }),
            // After a first-order start, the explicit phase is first order too (and stops at its
            // residual target).
            Remedy::ExplicitStart => {
                let base = next.prelude.as_ref().map_or(&next.config, |p| &p.config);
                next.prelude = Some(Prelude { config: explicit(base)? });
            }
        }
        Some(next)
    }
}

/// [`Remedy::ExtraStage`] applied to `config`; `None` where it does not apply.
fn extra_stage(config: &mut SolverConfig) -> Option<()> {
    match &mut config.scheme {
        Scheme::Implicit(imp) if imp.stages < ImplicitConfig::MAX_STAGES && imp.stage_coefficients.is_none() => {
            imp.stages += 1;
            Some(())
        }
        _ => None,
    }
}

/// [`Remedy::LaterCoarseGrids`] applied to `config`; `None` where it does not apply.
fn later_coarse_grids(config: &mut SolverConfig) -> Option<()> {
    match (&config.scheme, &mut config.multigrid) {
        (Scheme::Explicit, Some(mg)) => {
            mg.delay = (4 * mg.delay).max(LATER_COARSE_GRIDS_MIN);
            Some(())
        }
        _ => None,
    }
}

/// [`Remedy::GentleCfl`] applied to `config`.
fn gentle(config: &mut SolverConfig) {
    match &mut config.scheme {
        Scheme::Implicit(imp) => {
            imp.cfl = CflRamp { start: 1.0, warm_start: None, target: imp.cfl.target.min(50.0), growth: 1.1, ..imp.cfl };
            imp.max_relative_change = Some(imp.max_relative_change.map_or(0.1, |m| m.min(0.1)));
            imp.max_rejections = imp.max_rejections.max(40);
            imp.anderson = None;
        }
        Scheme::Explicit => config.cfl *= 0.5,
    }
}

/// The first-order phase of [`Remedy::FirstOrderStart`].
fn first_order(config: &SolverConfig) -> SolverConfig {
    SolverConfig {
        reconstruction: Reconstruction::FirstOrder,
        max_iterations: FIRST_ORDER_ITERATIONS.min(config.max_iterations),
        convergence_orders: FIRST_ORDER_ORDERS,
        ..config.clone()
    }
}

/// The explicit phase of [`Remedy::ExplicitStart`]; `None` for an explicit solve.
fn explicit(config: &SolverConfig) -> Option<SolverConfig> {
    let Scheme::Implicit(ImplicitConfig { .. }) = config.scheme else { return None };
    Some(SolverConfig {
        scheme: Scheme::Explicit,
        cfl: 1.0,
        rk: crate::solver::RkScheme::Blazek5Upwind,
        smoothing: None,
        multigrid: None,
        max_iterations: EXPLICIT_ITERATIONS.min(config.max_iterations),
        ..config.clone()
    })
}
