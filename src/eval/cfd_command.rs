//! What `turbopt evaluate <blade.ron> [--case NAME] [--design v1,v2,...] [--backend cpu|gpu]
//! [--json]` runs.

use super::cfd::{BackendChoice, CfdEvaluator, EvaluatorConfig};
use super::objectives::Objective;
use super::{Evaluation, Evaluator};
use crate::error::Result;
use crate::mesh::Density;
use std::path::Path;

/// Options of `turbopt evaluate` besides the blade, case and design.
#[derive(Clone, Debug, PartialEq)]
pub struct EvaluateOptions {
    pub density: Density,
    /// Iteration budget per operating point (None: the scheme's default,
    /// `cascade::Scheme::default_max_iterations`, as for `turbopt solve`).
    pub max_iterations: Option<usize>,
    /// Accept a run that dropped this many orders when the budget runs out.
    pub accept_orders: Option<f64>,
    /// Where the solver runs (default: the CPU, one thread per core).
    pub backend: BackendChoice,
    pub scheme: super::cfd::Scheme,
    /// Flow model (None: the evaluator's default, RANS-SA).
    pub model: Option<crate::solver::FlowModel>,
}

impl Default for EvaluateOptions {
    fn default() -> Self {
        EvaluateOptions { density: Density::Coarse, max_iterations: None, accept_orders: None, backend: BackendChoice::default(), scheme: super::cfd::Scheme::Implicit, model: None }
    }
}

/// The objectives `turbopt evaluate` reports, in this order.
pub const COMMAND_OBJECTIVES: [&str; 4] = ["entropy_rise", "loss_coefficient", "exit_angle_deg", "mass_flow"];

/// Evaluates one blade at one operating point (`case`, default the file's first) with the
/// objectives entropy rise, loss coefficient, exit angle and mass flow (in that order).
///
/// `design: None` evaluates the blade file's main definition (for LS89 the published
/// profile); `Some(x)` a design vector of its design parameterization. A bad design is not an
/// error: it comes back as an [`Evaluation`] whose status names the reason. Errors are for a
/// bad blade file, an unknown case, a GPU backend with the implicit scheme, or a GPU backend
/// that cannot be opened (no `cuda` feature, driver or device).
pub fn evaluate_command(blade: &Path, case: Option<&str>, design: Option<&[f64]>, options: &EvaluateOptions) -> Result<Evaluation> {
    let mut config = EvaluatorConfig::for_blade(blade);
    config.operating_points = case.map(|c| vec![c.to_string()]).unwrap_or_default();
    config.density = options.density;
    config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow];
    // One evaluation: no baseline to warm-start from.
    config.warm_start = false;
    // The budget `turbopt solve` gives the scheme, so that both commands solve alike.
    config.solver.max_iterations = options.max_iterations.unwrap_or(options.scheme.default_max_iterations());
    config.solver.accept_orders = options.accept_orders;
    config.solver.backend = options.backend.clone();
    config.solver.scheme = options.scheme;
    if let Some(m) = options.model {
        config.solver.config.model = m;
    }
    let evaluator = CfdEvaluator::new(config)?;
    if let Some(choice) = evaluator.auto_choice() {
        println!("auto: {}", choice.reason);
    }
    evaluator.check_backend()?;
    Ok(match design {
        None => evaluator.evaluate_main_blade(),
        Some(x) => evaluator.evaluate(x),
    })
}
