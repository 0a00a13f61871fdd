//! `turbopt study`: does every design inside a blade file's bounds get an answer
//! (`turbopt::eval::study`)? Progress goes to stderr as plain lines, so that it shows when the
//! output is piped too.

use super::args::StudyArgs;
use std::sync::Mutex;
use std::time::Instant;
use turbopt::cascade::CascadeSetup;
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig, FIGURES};
use std::io::Write;
use turbopt::eval::study::{draw_designs, mesh_designs, records_csv, solve_designs, DesignRecord, StudySummary, CSV_HEADER};
use turbopt::eval::objectives::Objective;
use turbopt::geometry::load_blade_file;
use turbopt::{Error, Result};

pub fn run(args: &StudyArgs) -> Result<()> {
    let blade = load_blade_file(&args.blade)?;
    let op = super::args::operating_point(&blade, &args.blade, args.case.as_deref())?;
    let space = blade.design_space().ok_or_else(|| Error::Input {
        path: args.blade.display().to_string(),
        reason: "the blade file has no design parameterization (`design`) to draw designs from".into(),
    })?;
    if args.designs == 0 {
        return Err(Error::Other("--designs must be at least 1".into()));
    }
    let drawn = draw_designs(&space, args.designs, args.seed);
    let picked: Vec<usize> = match &args.only {
        Some(only) => {
            if let Some(k) = only.iter().find(|&&k| k >= args.designs) {
                return Err(Error::Other(format!("--only {k}: the draw has designs 0 to {}", args.designs - 1)));
            }
            only.clone()
        }
        None => (0..args.designs).collect(),
    };
    let designs: Vec<Vec<f64>> = picked.iter().map(|&k| drawn[k].clone()).collect();
    if args.only.is_some() {
        // So that `turbopt mesh` and `turbopt evaluate` can open a design the study listed.
        for (k, x) in picked.iter().zip(&designs) {
            let v: Vec<String> = x.iter().map(|v| format!("{v:e}")).collect();
            println!("design {k}: --design {}", v.join(","));
        }
    }
    let what = if args.mesh_only { "checked and meshed" } else { "solved" };
    println!("{}: {} designs drawn in the bounds of {} variables (seed {}), {} {what} at {}, {:?} mesh", blade.name, args.designs, space.dim(), args.seed, designs.len(), op.name, args.density);
    let start = Instant::now();
    let progress = Progress::new(start);
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    // Each design's row as it finishes (in finishing order), so that a study cut short keeps
    // what it computed; study.csv is written in design order at the end.
    let partial_path = args.out.join("study.partial.csv");
    let partial = Mutex::new(std::fs::File::create(&partial_path).map_err(|e| Error::io(&partial_path, e))?);
    if let Ok(mut f) = partial.lock() {
        let _ = writeln!(f, "{CSV_HEADER}");
    }
    let on_record = |r: &DesignRecord, done: usize, total: usize| {
        if let Ok(mut f) = partial.lock() {
            let _ = writeln!(f, "{}", DesignRecord { design: picked[r.design], ..r.clone() }.csv_row());
        }
        progress.report(done, total, if args.mesh_only { "meshed" } else { "solved" });
    };
    let mut model = String::new();
    let records = if args.mesh_only {
        let setup = CascadeSetup::new(&blade, vec![op.clone()], args.density);
        mesh_designs(&blade, &setup, &designs, &on_record)
    } else {
        let mut config = EvaluatorConfig::for_blade(&args.blade);
        config.operating_points = vec![op.name.clone()];
        config.density = args.density;
        config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow];
        config.solver.max_iterations = args.max_iterations;
        config.solver.backend = args.run_on.choice()?;
        if let Some(path) = &args.flow.config {
            config.solver.config = super::solve::read_solver_config(path)?.0;
        }
        if let Some(m) = args.flow.model {
            config.solver.config.model = m.model();
        }
        config.free_stream = args.flow.free_stream.free_stream()?;
        model = ron::to_string(&config.solver.config.model).unwrap_or_default();
        let evaluator = CfdEvaluator::new(config)?;
        evaluator.check_backend()?;
        solve_designs(&evaluator, &designs, &on_record)
    };
    let records: Vec<_> = records.into_iter().zip(&picked).map(|(r, &k)| DesignRecord { design: k, ..r }).collect();
    let wall_s = start.elapsed().as_secs_f64();
    let summary = StudySummary::of(&records, wall_s);

    let _ = std::fs::remove_file(&partial_path);
    let write = |name: &str, text: &str| std::fs::write(args.out.join(name), text).map_err(|e| Error::io(args.out.join(name), e));
    write("study.csv", &records_csv(&records))?;
    let header = format!(
        "{} ({}), {} designs (seed {}), {what} at {}, {:?} mesh{}\n\n",
        blade.name,
        args.blade.display(),
        args.designs,
        args.seed,
        op.name,
        args.density,
        if args.mesh_only { String::new() } else { format!(", model {model}, budget {} iterations, objectives {}", args.max_iterations, FIGURES.join(", ")) }
    );
    write("study.md", &format!("{header}{}", summary.markdown()))?;
    let json = serde_json::to_string_pretty(&summary).map_err(|e| Error::Other(e.to_string()))?;
    write("study.json", &json)?;

    println!("\n{}", summary.markdown());
    let answered = if args.mesh_only { "meshed" } else { "answered (converged or periodic)" };
    println!("{:.2} % of the {} designs that passed the checks {answered}", 100.0 * summary.answered_fraction, summary.checked);
    if !args.mesh_only {
        println!(
            "iterations per solved design: median {:.0}, 95th percentile {:.0}; wall time per design: median {:.2} s, 95th percentile {:.2} s, {:.2} s of the study's wall time per checked design",
            summary.iterations_median, summary.iterations_p95, summary.wall_s_median, summary.wall_s_p95, summary.throughput_s_per_design
        );
    }
    for r in records.iter().filter(|r| r.outcome == turbopt::eval::study::Outcome::MesherFailure) {
        println!("mesher failure after the checks, design {}: {}", r.design, r.reason);
    }
    println!("wrote {} in {wall_s:.1} s", args.out.display());
    if args.json {
        println!("{}", serde_json::to_string(&summary).map_err(|e| Error::Other(e.to_string()))?);
    }
    Ok(())
}

/// Progress lines at every 5 % of the designs, or every 30 s.
struct Progress {
    start: Instant,
    last: Mutex<(usize, f64)>,
}

impl Progress {
    fn new(start: Instant) -> Self {
        Progress { start, last: Mutex::new((0, 0.0)) }
    }

    fn report(&self, done: usize, total: usize, verb: &str) {
        let t = self.start.elapsed().as_secs_f64();
        let Ok(mut last) = self.last.lock() else { return };
        let step = (total / 20).max(1);
        if done == total || done >= last.0 + step || t >= last.1 + 30.0 {
            *last = (done, t);
            eprintln!("  {done}/{total} designs {verb} ({:.0} %) after {t:.0} s", 100.0 * done as f64 / total.max(1) as f64);
        }
    }
}
