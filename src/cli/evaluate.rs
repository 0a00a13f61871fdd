//! `turbopt evaluate`: one design through the CFD evaluator, on the CPU or (`--backend gpu`) on a
//! CUDA device.

use super::args::{EvaluateArgs, ModelArg, SchemeArg};
use crate::eval::cfd::Scheme;
use crate::eval::cfd_command::{evaluate_command, EvaluateOptions, COMMAND_OBJECTIVES};
use crate::solver::FlowModel;
use crate::{Error, Result};

pub fn run(args: &EvaluateArgs) -> Result<()> {
    let options = EvaluateOptions {
        density: args.density,
        max_iterations: args.max_iterations,
        accept_orders: None,
        backend: super::args::backend_choice(args.backend, args.threads, args.device)?,
        scheme: match args.scheme {
            SchemeArg::Explicit => Scheme::Explicit,
            SchemeArg::Implicit => Scheme::Implicit,
            SchemeArg::Auto => Scheme::Auto,
        },
        model: args.model.map(|m| match m {
            ModelArg::Euler => FlowModel::Euler,
            ModelArg::Laminar => FlowModel::Laminar,
            ModelArg::Sa => FlowModel::SpalartAllmaras,
        }),
    };
    let e = evaluate_command(&args.blade, args.case.as_deref(), args.design.as_deref(), &options)?;
    println!("status: {:?}", e.status);
    for (name, value) in COMMAND_OBJECTIVES.iter().zip(&e.objectives) {
        println!("  {name:<18} {value:.6e}");
    }
    let d = &e.diagnostics;
    println!("  {} iterations, {:.2} orders, {:.1} s, {} / {}", d.iterations, d.residual_drop_orders, d.wall_s, d.backend, d.scheme);
    if args.json {
        let v = serde_json::json!({
            "status": e.status,
            "objective_names": COMMAND_OBJECTIVES,
            "objectives": e.objectives,
            "constraints": e.constraints,
            "diagnostics": e.diagnostics,
        });
        println!("{v}");
    }
    match &e.status {
        crate::eval::Status::Ok => Ok(()),
        other => Err(Error::Other(format!("evaluation failed: {other:?}"))),
    }
}
