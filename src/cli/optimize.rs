//! `turbopt optimize`: run (or resume) an optimization campaign from a RON file, or the
//! embedded default campaign, and print its summary.
//!
//! `--backend cpu|gpu`, `--device N` and `--devices all|0,1` override the campaign's
//! `solver.backend`, `--batch-workers N` its `batch.workers` (the campaign
//! saved in the output directory carries the overrides, so a resume needs the same flags). The
//! backend is opened before the campaign starts: a missing GPU, driver or `cuda` feature is one
//! error, not a failed status for every design.

use super::args::{BackendArg, OptimizeArgs};
use turbopt::eval::cfd::{BackendChoice, CfdEvaluator, Devices};
use turbopt::eval::Evaluator;
use turbopt::optim::campaign::{build_evaluator, run_campaign, CampaignConfig, CampaignEvaluator, CampaignObserver, CampaignSummary, ProgressBarObserver, SilentObserver};
use turbopt::{Error, Result};
use turbopt::optim::campaign::cluster::{self, Cluster};

/// optimize/default.ron, embedded so `turbopt optimize` runs from anywhere.
pub const DEFAULT_CAMPAIGN: &str = include_str!("../../optimize/default.ron");

pub fn run(args: &OptimizeArgs) -> Result<()> {
    let cluster = cluster::join()?;
    if let Some(c) = cluster.as_ref().filter(|c| c.rank() != 0) {
        return c.serve(worker_evaluator);
    }
    let mut config = match &args.campaign {
        Some(path) => CampaignConfig::from_ron_file(path)?,
        None => CampaignConfig::from_ron_str(DEFAULT_CAMPAIGN, "optimize/default.ron (embedded)")?,
    };
    apply_backend_flags(args, &mut config)?;
    let out = args.out.clone().unwrap_or_else(|| std::path::Path::new("out").join(&config.name));
    if let Some(variables) = &config.variables {
        // Fail on settings that cannot run before `auto` measures its performance model.
        turbopt::optim::campaign::check_optimizer(&config, variables.len())?;
    }
    if let CampaignEvaluator::Cfd(cfd) = &mut config.evaluator {
        if let Some(choice) = turbopt::eval::cfd::resolve_auto(cfd)? {
            log_auto_choice(&config.name, &out, &choice)?;
        }
    }
    let ranks = cluster.as_ref().map(|c| format!(" (MPI: {} ranks evaluating)", c.size() - 1)).unwrap_or_default();
    let announce = || println!("campaign {} -> {}{}{ranks}", config.name, out.display(), if args.resume { " (resuming)" } else { "" });
    let mut bar = ProgressBarObserver::new();
    let mut silent = SilentObserver;
    let observer: &mut dyn CampaignObserver = if args.json { &mut silent } else { &mut bar };
    let summary = match &config.evaluator {
        CampaignEvaluator::Cfd(cfd_config) => {
            // Keep the concrete CFD evaluator: the blade and Mis pictures need it afterwards.
            build_evaluator(&config.evaluator)?; // validates the configuration the same way
            let cfd = CfdEvaluator::new(cfd_config.clone())?;
            if cluster.is_none() {
                cfd.check_backend()?;
            }
            announce();
            let summary = run_here_or_on_cluster(cluster.as_ref(), &config, &cfd, &out, args.resume, observer)?;
            print_summary(&summary);
            if let Err(e) = turbopt::optim::campaign::blade_pictures(&config, &cfd, &summary, &out) {
                eprintln!("warning: the blade/Mis pictures could not be made: {e}");
            }
            if let Some(density) = args.recheck {
                drop(cfd);
                recheck(&config, &summary, density, args.recheck_members as usize, &out)?;
            }
            summary
        }
        _ => {
            if args.recheck.is_some() {
                return Err(Error::Other(format!("campaign {}: --recheck needs a CFD campaign (a mesh to refine)", config.name)));
            }
            let evaluator = build_evaluator(&config.evaluator)?;
            announce();
            let summary = run_here_or_on_cluster(cluster.as_ref(), &config, evaluator.as_ref(), &out, args.resume, observer)?;
            print_summary(&summary);
            summary
        }
    };
    let front_files = if summary.front.is_some() { "; front.csv, front.png, hypervolume.png" } else { "" };
    println!("wrote {} (evaluations.jsonl, checkpoint.json, summary.json, convergence.png, evaluations.png{front_files}; overview.png, blades.png and mis.png for CFD campaigns)", out.display());
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
            "front": summary.front,
        });
        println!("{v}");
    }
    Ok(())
}

/// The campaign with `evaluator` in this process, or, on rank 0 of a cluster, with the worker
/// ranks evaluating.
fn run_here_or_on_cluster(
    cluster: Option<&Cluster>,
    config: &CampaignConfig,
    evaluator: &dyn Evaluator,
    out: &std::path::Path,
    resume: bool,
    observer: &mut dyn CampaignObserver,
) -> Result<CampaignSummary> {
    match cluster {
        None => run_campaign(config, evaluator, out, resume, observer),
        Some(c) => c.run_campaign(config, evaluator, out, resume, observer),
    }
}

/// A worker rank's evaluator for `campaign` (the campaign as rank 0 sent it, overrides
/// applied), its backend opened: an error here is reported to rank 0, which stops the run.
fn worker_evaluator(campaign: &CampaignConfig) -> Result<Box<dyn Evaluator>> {
    let evaluator = build_evaluator(&campaign.evaluator)?;
    if let CampaignEvaluator::Cfd(cfd_config) = &campaign.evaluator {
        let cfd = CfdEvaluator::new(cfd_config.clone())?;
        cfd.check_backend()?;
        return Ok(Box::new(cfd));
    }
    Ok(evaluator)
}

/// `--backend`, `--device` and `--devices` on top of the campaign's `solver.backend`, and
/// `--batch-workers` on its `batch.workers`; a flag that cannot apply (GPU flags on an analytic
/// or CPU campaign) is refused here with the campaign's name, before the evaluator is built.
fn apply_backend_flags(args: &OptimizeArgs, config: &mut CampaignConfig) -> Result<()> {
    let name = config.name.clone();
    let flag_devices = args.devices.clone().or(args.device.map(Devices::one));
    let CampaignEvaluator::Cfd(cfd) = &mut config.evaluator else {
        if args.backend.is_some() || flag_devices.is_some() || args.batch_workers.is_some() {
            return Err(Error::Other(format!("campaign {name} has an analytic evaluator: --backend, --device(s) and --batch-workers apply to CFD campaigns")));
        }
        return Ok(());
    };
    if let Some(n) = args.batch_workers {
        cfd.batch.workers = Some(n as usize);
    }
    let solver = &mut cfd.solver;
    let campaign_devices = match &solver.backend {
        BackendChoice::Gpu { devices } => Some(devices.clone()),
        BackendChoice::Auto { device } => Some(Devices::one(*device)),
        BackendChoice::Cpu { .. } => None,
    };
    solver.backend = match (args.backend, &solver.backend) {
        (Some(BackendArg::Cpu), _) if flag_devices.is_some() => return Err(Error::Other("--device(s) select GPUs: use them with --backend gpu".into())),
        (Some(BackendArg::Cpu), BackendChoice::Cpu { threads }) => BackendChoice::Cpu { threads: *threads },
        (Some(BackendArg::Cpu), BackendChoice::Gpu { .. } | BackendChoice::Auto { .. }) => BackendChoice::Cpu { threads: None },
        (Some(BackendArg::Auto), _) => {
            let devices = flag_devices.or(campaign_devices).unwrap_or(Devices::one(0));
            BackendChoice::Auto { device: auto_device(&devices)? }
        }
        (None, BackendChoice::Auto { device }) => BackendChoice::Auto { device: flag_devices.as_ref().map_or(Ok(*device), auto_device)? },
        (Some(BackendArg::Gpu), _) => BackendChoice::Gpu { devices: flag_devices.or(campaign_devices).unwrap_or(Devices::one(0)) },
        (None, BackendChoice::Gpu { devices }) => BackendChoice::Gpu { devices: flag_devices.unwrap_or_else(|| devices.clone()) },
        (None, BackendChoice::Cpu { .. }) if flag_devices.is_some() => {
            return Err(Error::Other(format!("--device(s) select GPUs, but campaign {name} runs on the CPU: add --backend gpu")));
        }
        (None, cpu) => cpu.clone(),
    };
    Ok(())
}

/// The one device `--backend auto` measures and may choose (the model compares one GPU with
/// the CPU; a list of several is the multi-GPU pool's, chosen with `--backend gpu`).
fn auto_device(devices: &Devices) -> Result<usize> {
    match devices {
        Devices::List(list) if list.len() == 1 => Ok(list[0]),
        _ => Err(Error::Other("--backend auto compares one GPU with the CPU: give one --device, or use --backend gpu for several".into())),
    }
}

/// The performance model's choice for an `Auto` campaign: on stdout and in
/// `<out>/auto-choice.json`, beside the evaluation log.
fn log_auto_choice(name: &str, out: &std::path::Path, choice: &turbopt::perf::auto::AutoChoice) -> Result<()> {
    println!("campaign {name}: auto: {}", choice.reason);
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let path = out.join("auto-choice.json");
    let text = serde_json::to_string_pretty(choice).map_err(|e| Error::Other(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))
}

fn print_summary(s: &CampaignSummary) {
    println!("campaign {}: {} ({} evaluations, {} from an earlier run, {} failed, {:.1} s)", s.name, s.termination, s.evaluations, s.replayed, s.failed, s.wall_s);
    if let Some(front) = &s.front {
        print_front(front);
        return;
    }
    println!("  baseline objective {:.6e}{}", s.baseline_objective, if s.baseline_feasible { "" } else { " (infeasible)" });
    println!("  best objective     {:.6e}{}", s.best_objective, if s.best_feasible { "" } else { " (infeasible)" });
    if let Some(r) = s.relative_improvement {
        println!("  improvement        {:.2} % over the baseline", 100.0 * r);
    }
    for (name, value) in s.variables.iter().zip(&s.best_design) {
        println!("    {name:<24} {value:.6}");
    }
}

/// `--recheck`: some of the campaign's designs on another mesh, printed and kept in
/// `recheck-<density>.json`.
fn recheck(config: &CampaignConfig, summary: &CampaignSummary, density: turbopt::mesh::Density, members: usize, out: &std::path::Path) -> Result<()> {
    let name = density.name();
    println!("re-checking on the {name} mesh ...");
    let r = turbopt::optim::campaign::recheck(config, summary, density, members)?;
    println!("  {:<24} {}", "design", r.objectives.iter().map(|o| format!("{:>22}", format!("{o} campaign/{name}"))).collect::<Vec<_>>().join(" "));
    for d in &r.designs {
        let values: Vec<String> = d.campaign_mesh.iter().zip(&d.recheck_mesh).map(|(a, b)| format!("{a:>10.4e}/{b:<11.4e}")).collect();
        let flag = if d.status != "ok" { format!("  ({})", d.status) } else if !d.feasible { "  (infeasible)".into() } else { String::new() };
        println!("  {:<24} {}{flag}", d.label, values.join(" "));
    }
    for (o, kept) in r.objectives.iter().zip(&r.order_preserved) {
        println!("  order in {o}: {}", if *kept { "preserved" } else { "NOT preserved" });
    }
    let path = out.join(format!("recheck-{name}.json"));
    let text = serde_json::to_string_pretty(&r).map_err(|e| Error::Other(e.to_string()))?;
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    println!("wrote {}", path.display());
    Ok(())
}

/// A front campaign's result: the front's size, hypervolume and members.
fn print_front(front: &turbopt::optim::campaign::FrontSummary) {
    let reference: Vec<String> = front.reference_point.iter().map(|v| format!("{v:.6e}")).collect();
    println!("  front              {} designs over {}", front.members.len(), front.objectives.join(", "));
    println!("  hypervolume        {:.6e} against ({}); the baseline alone {:.6e}", front.hypervolume, reference.join(", "), front.baseline_hypervolume);
    println!("    {:>6}  {}", "index", front.objectives.iter().map(|n| format!("{n:>16}")).collect::<Vec<_>>().join(" "));
    for m in &front.members {
        println!("    {:>6}  {}", m.index, m.objectives.iter().map(|v| format!("{v:>16.6e}")).collect::<Vec<_>>().join(" "));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(line: &[&str]) -> OptimizeArgs {
        match crate::cli::Cli::try_parse_from(line).expect("the command line parses").command {
            crate::cli::Command::Optimize(a) => a,
            _ => unreachable!("an optimize command line"),
        }
    }

    #[test]
    fn batch_workers_override_the_campaign_and_need_a_cfd_evaluator() {
        let mut config = CampaignConfig::from_ron_file(std::path::Path::new("optimize/ls89_tc1_de.ron")).expect("the shipped campaign");
        apply_backend_flags(&args(&["turbopt", "optimize", "x.ron", "--batch-workers", "20"]), &mut config).expect("applies");
        let CampaignEvaluator::Cfd(cfd) = &config.evaluator else { unreachable!("a CFD campaign") };
        assert_eq!(cfd.batch.workers, Some(20));
        assert!(crate::cli::Cli::try_parse_from(["turbopt", "optimize", "--batch-workers", "0"]).is_err(), "0 designs at once is refused");
        let mut analytic = CampaignConfig::from_ron_file(std::path::Path::new("optimize/analytic_branin_ego.ron")).expect("the shipped campaign");
        let e = apply_backend_flags(&args(&["turbopt", "optimize", "--batch-workers", "2"]), &mut analytic).unwrap_err();
        assert!(e.to_string().contains("--batch-workers"), "{e}");
    }
}
