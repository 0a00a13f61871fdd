//! `turbopt optimize`: run (or resume) an optimization campaign from a RON file, or the
//! embedded default campaign, and print its summary.

use super::OptimizeArgs;
use crate::optim::campaign::{build_evaluator, run_campaign, CampaignConfig, CampaignObserver, CampaignSummary, ProgressBarObserver, SilentObserver};
use crate::Result;

/// optimize/default.ron, embedded so `turbopt optimize` runs from anywhere.
pub const DEFAULT_CAMPAIGN: &str = include_str!("../../optimize/default.ron");

pub fn run(args: &OptimizeArgs) -> Result<()> {
    let config = match &args.campaign {
        Some(path) => CampaignConfig::from_ron_file(path)?,
        None => CampaignConfig::from_ron_str(DEFAULT_CAMPAIGN, "optimize/default.ron (embedded)")?,
    };
    let out = args.out.clone().unwrap_or_else(|| std::path::Path::new("out").join(&config.name));
    println!("campaign {} -> {}{}", config.name, out.display(), if args.resume { " (resuming)" } else { "" });
    let evaluator = build_evaluator(&config.evaluator)?;
    let mut bar = ProgressBarObserver::new();
    let mut silent = SilentObserver;
    let observer: &mut dyn CampaignObserver = if args.json { &mut silent } else { &mut bar };
    let summary = run_campaign(&config, evaluator.as_ref(), &out, args.resume, observer)?;
    print_summary(&summary);
    println!("wrote {} (evaluations.jsonl, checkpoint.json, summary.json, convergence.png, evaluations.png)", out.display());
    if args.json {
        let improvement_percent = summary.relative_improvement.map(|r| 100.0 * r);
        let v = serde_json::json!({
            "campaign": summary.name,
            "evaluations": summary.evaluations,
            "replayed": summary.replayed,
            "failed": summary.failed,
            "baseline_objective": summary.baseline_objective,
            "best_objective": summary.best_objective,
            "improvement_percent": improvement_percent,
            "best_feasible": summary.best_feasible,
            "best_design": summary.best_design,
            "wall_s": summary.wall_s,
            "termination": summary.termination,
        });
        println!("{v}");
    }
    Ok(())
}

fn print_summary(s: &CampaignSummary) {
    println!("campaign {}: {} ({} evaluations, {} from an earlier session, {} failed, {:.1} s)", s.name, s.termination, s.evaluations, s.replayed, s.failed, s.wall_s);
    println!("  baseline objective {:.6e}{}", s.baseline_objective, if s.baseline_feasible { "" } else { " (infeasible)" });
    println!("  best objective     {:.6e}{}", s.best_objective, if s.best_feasible { "" } else { " (infeasible)" });
    if let Some(r) = s.relative_improvement {
        println!("  improvement        {:.2} % over the baseline", 100.0 * r);
    }
    for (name, value) in s.variables.iter().zip(&s.best_design) {
        println!("    {name:<24} {value:.6}");
    }
}
