//! `turbopt perf-model`: the performance model of a case (`turbopt::perf`) at one or more mesh
//! densities: the per-operation table, iteration counts, R_C, predicted times to convergence of
//! every combination of method and hardware, the fastest, the Fig. 6.9 picture and, with
//! `--validate`, the full runs the predictions are checked against.

use std::collections::BTreeMap;

use super::args::PerfModelArgs;
use turbopt::perf::{self, BuildOptions, Cache, CaseSetup, IterationCount, Machines, MethodSettings, PerfModel};
use turbopt::{Error, Result};

pub fn run(args: &PerfModelArgs) -> Result<()> {
    let machines = Machines::open(args.device.unwrap_or(0), args.cpu_only)?;
    let cache = Cache::new(args.cache_dir.clone().unwrap_or_else(perf::cache::directory));
    let options = BuildOptions { refresh: args.refresh, refresh_counts: args.refresh_counts, cut_off_factor: args.cut_off, given_counts: given_counts(&args.history)?, ..BuildOptions::default() };
    let base = turbopt::cascade::SolverSettings::default();
    let methods = MethodSettings::from_base(&base);
    let mut models = Vec::new();
    for &density in &args.density {
        let case = CaseSetup::new(&args.blade, args.case.as_deref(), density)?;
        let mut model = PerfModel::build(&case, &methods, &machines, &cache, &options)?;
        if args.validate {
            model.validate(&case, &methods, &machines, args.validate_from_s..=args.validate_budget_s)?;
        }
        let dir = args.out.join(&model.case_key);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let table = perf::report::markdown(&model);
        println!("{table}");
        write(&dir.join("table.md"), &table)?;
        perf::plot::plot_time_against_ratio(&dir.join("time-to-convergence.png"), &model)?;
        write(&dir.join("model.json"), &serde_json::to_string_pretty(&model).map_err(|e| Error::Other(e.to_string()))?)?;
        println!("wrote {} (table.md, time-to-convergence.png, model.json)", dir.display());
        models.push(model);
    }
    if args.json {
        let v: Vec<serde_json::Value> = models.iter().map(summary).collect();
        println!("{}", serde_json::json!({ "command": "perf-model", "models": v }));
    }
    Ok(())
}

fn write(path: &std::path::Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path, e))
}

/// `KEY=PATH` pairs: the count of KEY ("explicit-multigrid", "implicit-ilu", ...) from a
/// stored `convergence.csv`.
fn given_counts(pairs: &[String]) -> Result<BTreeMap<String, IterationCount>> {
    pairs
        .iter()
        .map(|pair| {
            let (key, path) = pair.split_once('=').ok_or_else(|| Error::Other(format!("--history {pair}: expected KEY=PATH, e.g. explicit-multigrid=out/solve/convergence.csv")))?;
            let known = ["explicit-single-grid", "explicit-multigrid"].contains(&key) || key.starts_with("implicit-");
            if !known {
                return Err(Error::Other(format!("--history {pair}: unknown count key {key} (explicit-single-grid, explicit-multigrid, implicit-ilu, implicit-mc-ilu, ...)")));
            }
            Ok((key.to_string(), perf::runs::count_from_history(std::path::Path::new(path))?))
        })
        .collect()
}

/// One model in the `--json` line.
fn summary(model: &PerfModel) -> serde_json::Value {
    let predictions: Vec<serde_json::Value> = model
        .predictions()
        .iter()
        .map(|(c, p)| serde_json::json!({ "combination": c.label(), "method": c.method, "hardware": c.hardware, "seconds": p.seconds, "lower_bound": p.lower_bound }))
        .collect();
    let validation: Vec<serde_json::Value> = model
        .validation()
        .iter()
        .map(|(c, predicted, measured, error)| serde_json::json!({ "combination": c.label(), "predicted_s": predicted, "measured_s": measured, "relative_error": error }))
        .collect();
    serde_json::json!({
        "case": model.case,
        "cells": model.cells,
        "case_key": model.case_key,
        "machine": model.machine,
        "gpu_absent": model.gpu_absent,
        "counts": model.counts,
        "predictions": predictions,
        "fastest": model.fastest().map(|(c, p, undecided)| serde_json::json!({ "combination": c.label(), "seconds": p.seconds, "undecided": undecided })),
        "validation": validation,
    })
}
