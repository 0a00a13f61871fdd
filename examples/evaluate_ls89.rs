//! Evaluates the LS89 baseline and a perturbed design (test case 1: entropy rise, |alpha2| >= 74
//! deg at MUR47) on the coarse mesh. Usage: `cargo run --release --example evaluate_ls89 [ITERATIONS]`.
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
use turbopt::eval::objectives::{Constraint, Objective};
use turbopt::eval::Evaluator;

fn main() -> Result<(), turbopt::Error> {
    let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
    config.operating_points = vec!["MUR47".into()];
    config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient];
    config.constraints = vec![Constraint::ExitAngleAtLeast(74.0)];
    config.solver.max_iterations = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3000);
    let evaluator = CfdEvaluator::new(config)?;

    let baseline = evaluator.space().baseline.clone();
    let mut perturbed = baseline.clone();
    if let Some(x) = perturbed.first_mut() {
        *x += 0.1 * (evaluator.space().upper[0] - *x); // 10 % of the way to the first upper bound
    }
    for (label, design) in [("baseline", baseline), ("perturbed", perturbed)] {
        let e = evaluator.evaluate(&design);
        println!("{label}: {:?}\n  {:?} = {:?}\n  {:?} = {:?}\n  {:?}", e.status, evaluator.objective_names(), e.objectives,
            evaluator.constraint_names(), e.constraints, e.diagnostics);
    }
    Ok(())
}
