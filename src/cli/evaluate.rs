//! `turbopt evaluate`: one design (or the blade file's own profile) through the CFD evaluator,
//! scored on the four cascade figures (`EvaluatorConfig::for_figures`), on the CPU or
//! (`--backend gpu`) on a CUDA device.

use super::args::{EvaluateArgs, ModelArg, SchemeArg};
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig, FigureSettings, SchemeChoice, FIGURES};
use turbopt::eval::{Evaluator, Status};
use turbopt::{Error, Result};

pub fn run(args: &EvaluateArgs) -> Result<()> {
    let settings = FigureSettings {
        density: args.density,
        max_iterations: args.max_iterations,
        accept_orders: None,
        backend: args.run_on.choice()?,
        scheme: match args.scheme {
            SchemeArg::Explicit => SchemeChoice::Explicit,
            SchemeArg::Implicit => SchemeChoice::Implicit,
            SchemeArg::Auto => SchemeChoice::Auto,
        },
        model: args.model.map(ModelArg::model),
        free_stream: args.free_stream.free_stream()?,
    };
    let evaluator = CfdEvaluator::new(EvaluatorConfig::for_figures(&args.blade, args.case.as_deref(), &settings))?;
    if let Some(choice) = evaluator.auto_choice() {
        println!("auto: {}", choice.reason);
    }
    evaluator.check_backend()?;
    let e = match args.design.as_deref() {
        None => evaluator.evaluate_main_blade(),
        Some(x) => evaluator.evaluate(x),
    };
    println!("status: {}", e.status);
    for (name, value) in FIGURES.iter().zip(&e.objectives) {
        println!("  {name:<18} {value:.6e}");
    }
    let d = &e.diagnostics;
    // A design refused before its mesh was solved has no solver figures to show.
    if !d.backend.is_empty() {
        println!("  {} iterations, {:.2} orders, {:.1} s, {} / {}", d.iterations, d.residual_drop_orders, d.wall_s, d.backend, d.scheme);
    }
    if args.json {
        let v = serde_json::json!({
            "status": e.status,
            "objective_names": FIGURES,
            "objectives": e.objectives,
            "constraints": e.constraints,
            "diagnostics": e.diagnostics,
        });
        println!("{v}");
    }
    match &e.status {
        Status::Ok => Ok(()),
        other => Err(Error::Other(format!("evaluation failed: {other}"))),
    }
}
