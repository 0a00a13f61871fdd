//! One cascade pipeline: `turbopt mesh`, `turbopt solve`, `turbopt evaluate` and the
//! evaluator build the same mesh for the same blade and report the same figures; the
//! steady-figures test and the recovery chain behave as documented.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Command;
use turbopt::cascade::recovery::Plan;
use turbopt::cascade::{BladeChoice, CascadeSetup, FigureConvergence, PreparedCascade, Remedy, SolverSettings};
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig, SchemeChoice};
use turbopt::eval::{Evaluator, Status};
use turbopt::geometry::load_blade_file;
use turbopt::mesh::{Density, Mesh};

fn turbopt() -> Command {
    Command::new(env!("CARGO_BIN_EXE_turbopt"))
}

/// The last stdout line of a `--json` run, parsed.
fn json_of(output: &std::process::Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_else(|| panic!("no output; stderr: {}", String::from_utf8_lossy(&output.stderr)));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

fn same_nodes(a: &Mesh, b: &Mesh) -> bool {
    a.blocks.len() == b.blocks.len() && a.blocks.iter().zip(&b.blocks).all(|(p, q)| p.ni == q.ni && p.nj == q.nj && p.x == q.x && p.y == q.y)
}

/// `turbopt solve` and `turbopt evaluate` on the LS89 profile, MUR47, coarse mesh, the same
/// budget: the same figures to 1e-10 (when each built its own mesh and planes, their entropy
/// rises differed by 1.1e-3 relative, 1.44590e-2 against 1.44755e-2).
#[test]
fn solve_and_evaluate_report_the_same_figures() {
    let out = std::env::temp_dir().join(format!("turbopt-same-figures-{}", std::process::id()));
    let common = ["blades/ls89.ron", "--case", "MUR47", "--density", "coarse", "--max-iterations", "25", "--threads", "1", "--json"];
    let solve = turbopt().arg("solve").args(common).arg("--out").arg(&out).output().expect("solve runs");
    let evaluate = turbopt().arg("evaluate").args(common).output().expect("evaluate runs");
    let _ = std::fs::remove_dir_all(&out);
    let (s, e) = (json_of(&solve), json_of(&evaluate));
    let names: Vec<&str> = e["objective_names"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let solve_names = ["entropy_rise", "loss_coefficient", "exit_angle_deg", "mass_flow"];
    assert_eq!(names, solve_names);
    for (k, name) in solve_names.iter().enumerate() {
        let (a, b) = (s[name].as_f64().unwrap(), e["objectives"][k].as_f64().unwrap());
        assert!((a - b).abs() <= 1e-10 * b.abs(), "{name}: solve {a:e}, evaluate {b:e}");
    }
    assert_eq!(s["iterations"], e["diagnostics"]["iterations"]);
    println!("solve {s}\nevaluate {e}");
}

/// The evaluator's mesh of the main blade and of a design is the pipeline's (what `turbopt
/// mesh` and `turbopt solve` write).
#[test]
fn the_evaluator_meshes_what_the_commands_mesh() {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    let setup = CascadeSetup::new(&blade, vec![op], Density::Coarse);
    let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
    config.operating_points = vec!["MUR47".into()];
    let ev = CfdEvaluator::new(config).unwrap();
    let main = PreparedCascade::new(&blade, BladeChoice::Main, &setup).unwrap();
    assert!(same_nodes(&ev.main_blade_mesh().unwrap(), &main.mesh));
    let mut x = ev.space().baseline.clone();
    x[3] += 0.3 * (ev.space().upper[3] - x[3]);
    let design = PreparedCascade::new(&blade, BladeChoice::Design(&x), &setup).unwrap();
    assert!(same_nodes(&ev.design_mesh(&x).unwrap(), &design.mesh));
}

/// A window of looks whose figures stay within the tolerance passes; one outside it, a window
/// shorter than asked, or a zero figure does not.
#[test]
fn steady_figures_need_the_whole_window_within_the_tolerance() {
    let test = FigureConvergence { tolerance: 1e-4, window: 50, interval: 10, min_orders: 3.0, periodic: None, budget_extension: 0 };
    let looks = |values: &[f64]| -> VecDeque<(usize, Vec<f64>)> { values.iter().enumerate().map(|(k, v)| (100 + 10 * k, vec![*v, 74.0])).collect() };
    assert!(test.is_steady(&looks(&[1.0, 1.00005, 0.99995, 1.0, 1.00001, 1.0])));
    assert!(!test.is_steady(&looks(&[1.0, 1.0, 1.0, 1.0, 1.0])), "40 iterations of a 50-iteration window");
    assert!(!test.is_steady(&looks(&[1.0003, 1.0, 1.0, 1.0, 1.0, 1.0])));
    assert!(!test.is_steady(&looks(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0])));
    assert!(FigureConvergence { window: 5, ..test }.validate().is_err());
    assert!(FigureConvergence { tolerance: f64::NAN, ..test }.validate().is_err());
}

/// The chain adds one remedy per attempt, skips a cold start for a solve that started cold and
/// an explicit prelude for an explicit solve, and ends.
#[test]
fn the_recovery_chain_adds_one_applicable_remedy_per_attempt() {
    let implicit = SolverSettings::default().solver_config();
    let mut plan = Plan::as_configured(implicit.clone(), true);
    let mut applied = vec![];
    for r in Remedy::default_chain() {
        if let Some(next) = plan.with(r) {
            plan = next;
            applied.push(r);
        }
    }
    assert_eq!(applied, [Remedy::ExtraStage, Remedy::GentleCfl, Remedy::FirstOrderStart, Remedy::ExplicitStart]);
    assert_eq!(plan.remedies, applied);
    let turbopt::solver::Scheme::Implicit(imp) = &plan.config.scheme else { panic!("implicit") };
    assert_eq!((imp.cfl.start, imp.cfl.target), (1.0, 50.0));
    assert_eq!(imp.stages, 3, "the extra stage stays in force");
    let prelude = plan.prelude.expect("an explicit prelude");
    assert!(matches!(prelude.config.scheme, turbopt::solver::Scheme::Explicit));
    assert_eq!(prelude.config.reconstruction, turbopt::backend::Reconstruction::FirstOrder, "after a first-order start");

    let explicit = SolverSettings { scheme: SchemeChoice::Explicit, ..SolverSettings::default() }.solver_config();
    let warm = Plan::as_configured(explicit, false);
    assert_eq!(Remedy::default_chain()[..3], [Remedy::ExtraStage, Remedy::LaterCoarseGrids, Remedy::GentleCfl], "cheapest first: no new start");
    assert!(warm.with(Remedy::ColdStart).is_some_and(|p| p.cold));
    assert!(warm.with(Remedy::ExplicitStart).is_none());
    assert!(warm.with(Remedy::ExtraStage).is_none(), "no stages to add to an explicit solve");
}

/// The later coarse grids start the explicit multigrid's corrections after four times the
/// configured single-grid iterations, at least 600, keep the CFL, and apply to nothing else.
#[test]
fn later_coarse_grids_delay_the_explicit_multigrid_only() {
    use turbopt::cascade::LATER_COARSE_GRIDS_MIN;
    let explicit = SolverSettings { scheme: SchemeChoice::Explicit, ..SolverSettings::default() }.solver_config();
    let delay = explicit.multigrid.expect("the explicit default has multigrid").delay;
    let later = Plan::as_configured(explicit.clone(), true).with(Remedy::LaterCoarseGrids).expect("applies");
    assert_eq!(later.config.multigrid.unwrap().delay, (4 * delay).max(LATER_COARSE_GRIDS_MIN));
    assert_eq!(later.config.cfl, explicit.cfl);
    let mut long = explicit.clone();
    long.multigrid.as_mut().unwrap().delay = 1000;
    assert_eq!(Plan::as_configured(long, true).with(Remedy::LaterCoarseGrids).unwrap().config.multigrid.unwrap().delay, 4000);
    let single_grid = turbopt::solver::SolverConfig { multigrid: None, ..explicit };
    assert!(Plan::as_configured(single_grid, true).with(Remedy::LaterCoarseGrids).is_none(), "no coarse grids");
    let implicit = SolverSettings::default().solver_config();
    assert!(Plan::as_configured(implicit, true).with(Remedy::LaterCoarseGrids).is_none(), "not the implicit scheme");
}

/// The last remedy of the chain, the configured settings from the cold start, drops every
/// earlier remedy and applies only to a solve that started warm, once.
#[test]
fn the_cold_start_as_configured_drops_the_other_remedies_and_applies_once_to_a_warm_start() {
    let implicit = SolverSettings::default().solver_config();
    assert_eq!(Remedy::default_chain().last(), Some(&Remedy::ColdStartAsConfigured));
    assert!(Plan::as_configured(implicit.clone(), true).with(Remedy::ColdStartAsConfigured).is_none(), "a cold solve has it already");
    let mut warm = Plan::as_configured(implicit.clone(), false);
    for r in [Remedy::ExtraStage, Remedy::GentleCfl, Remedy::FirstOrderStart] {
        warm = warm.with(r).unwrap();
    }
    let fresh = warm.with(Remedy::ColdStartAsConfigured).expect("applies to a warm start");
    assert_eq!(fresh.remedies, [Remedy::ColdStartAsConfigured]);
    assert!(fresh.cold && fresh.prelude.is_none());
    assert_eq!(fresh.config, implicit, "the configured settings, the other remedies dropped");
    assert!(fresh.with(Remedy::ColdStartAsConfigured).is_none(), "tried once");
    assert!(Plan::as_configured(implicit.clone(), false).restarting().with(Remedy::ColdStartAsConfigured).is_none(), "a restart keeps its own flow");
}

/// The operating point `case` of the blade file `blade` and its coarse mesh, prepared.
fn coarse_point(blade: &str, case: &str) -> (turbopt::flow::case::OperatingPoint, PreparedCascade) {
    let file = load_blade_file(blade).unwrap();
    let op = file.operating_point(case).unwrap().clone();
    let setup = CascadeSetup::new(&file, vec![op.clone()], Density::Coarse);
    let prepared = PreparedCascade::new(&file, BladeChoice::Main, &setup).unwrap();
    (op, prepared)
}

/// A warm-started solve that stops at its budget unanswered is tried once more from the cold
/// start as configured; where that does not answer either, the first solve is kept and both
/// attempts are listed (LS89 coarse, budget 20 iterations, warm-started from its cold-start
/// flow). Without the remedy in the chain there is no retry, nor for a restart.
#[test]
fn a_warm_start_stopping_at_its_budget_is_retried_from_the_cold_start() {
    use turbopt::backend::cpu::CpuBackend;
    use turbopt::cascade::{solve_point, PointRun, Start, Stop};
    let (op, prepared) = coarse_point("blades/ls89.ron", "MUR47");
    let flow = prepared.cold_start(&op);
    let backend = CpuBackend::new(None).unwrap();
    for (recovery, restart, attempts) in [(Remedy::default_chain(), false, 2), (vec![Remedy::ExtraStage], false, 1), (Remedy::default_chain(), true, 1)] {
        let settings = SolverSettings { max_iterations: 20, recovery, ..SolverSettings::default() };
        let run = PointRun { prepared: &prepared, op: &op, settings: &settings, extras: &|_| Vec::new() };
        // A reference a few orders below its residual: neither the divergence test (growth over
        // it) nor the residual-orders test ends the solve in 20 iterations.
        let start = Start::Given { solution: &flow, residual_reference: 1e3, restart };
        let solved = solve_point(&backend, &run, start, &mut turbopt::solver::Silent).expect("a budget stop is not a failure");
        assert_eq!(solved.stop, Stop::Budget);
        assert_eq!(solved.attempts.len(), attempts, "{:?}", solved.attempts);
        assert_eq!(solved.iterations, 20 * attempts);
        if attempts == 2 {
            assert_eq!(solved.attempts[1].remedies, [Remedy::ColdStartAsConfigured]);
            assert_eq!(solved.outcome.iterations, 20);
        }
    }
}

/// The cold start as configured begins a new chain: where it diverges, the chain's other
/// remedies are added to it in turn (a T106C design that diverged warm-started from the
/// baseline and from the cold start as configured on the GPU was answered by the cold start
/// with the extra stage: docs/design-space-study.md). Here every attempt blows up (T106C, the
/// explicit scheme at CFL 60, warm-started from another flow), and the failure lists the warm
/// chain, then the cold start as configured with the gentle CFL and then the first-order start.
#[test]
fn the_cold_start_as_configured_goes_on_with_the_other_remedies() {
    use turbopt::backend::cpu::CpuBackend;
    use turbopt::cascade::{solve_point, PointRun, Start};
    let (op, prepared) = coarse_point("blades/t106c.ron", "M065_RE200K");
    let flow = prepared.cold_start(&op);
    let mut settings = SolverSettings { scheme: SchemeChoice::Explicit, max_iterations: 300, ..SolverSettings::default() };
    settings.config.cfl = 60.0;
    settings.config.multigrid = None;
    let run = PointRun { prepared: &prepared, op: &op, settings: &settings, extras: &|_| Vec::new() };
    let start = Start::Given { solution: &flow, residual_reference: 1.0, restart: false };
    let failure = solve_point(&CpuBackend::new(None).unwrap(), &run, start, &mut turbopt::solver::Silent).expect_err("CFL 60 blows up every attempt");
    let remedies: Vec<Vec<Remedy>> = failure.attempts.iter().map(|a| a.remedies.clone()).collect();
    use Remedy::*;
    let expected = [
        vec![],
        vec![GentleCfl],
        vec![GentleCfl, ColdStart],
        vec![GentleCfl, ColdStart, FirstOrderStart],
        vec![ColdStartAsConfigured],
        vec![ColdStartAsConfigured, GentleCfl],
        vec![ColdStartAsConfigured, GentleCfl, FirstOrderStart],
    ];
    assert_eq!(remedies, expected, "{:#?}", failure.attempts);
    assert!(failure.attempts.iter().all(|a| a.result.contains("diverged")), "{:#?}", failure.attempts);
}

/// A solve that blows up goes through the chain, and the failure lists every attempt: the
/// T106C blade with the explicit scheme at CFL 60 (far beyond the Runge-Kutta scheme's
/// limit); halving the CFL and a first-order start do not save it.
#[test]
fn a_diverging_design_lists_every_attempt() {
    let mut c = EvaluatorConfig::for_blade("blades/t106c.ron");
    c.solver.scheme = SchemeChoice::Explicit;
    c.solver.config.cfl = 60.0;
    c.solver.config.multigrid = None;
    c.solver.max_iterations = 300;
    c.warm_start = false;
    let ev = CfdEvaluator::new(c).unwrap();
    let e = ev.evaluate(&ev.space().baseline.clone());
    assert!(matches!(e.status, Status::Diverged(_)), "{:?}", e.status);
    let remedies: Vec<Vec<Remedy>> = e.diagnostics.attempts.iter().map(|a| a.remedies.clone()).collect();
    assert_eq!(remedies, [vec![], vec![Remedy::GentleCfl], vec![Remedy::GentleCfl, Remedy::FirstOrderStart]]);
    assert!(e.diagnostics.attempts.iter().all(|a| a.result.contains("diverged")), "{:?}", e.diagnostics.attempts);
    println!("{:#?}", e.diagnostics.attempts);
}

/// At its budget a solve runs on for the extension only when it is near an answer, within an
/// order of the figures test's residual floor (here: a floor of 0 orders, reached at once; one
/// of 30 orders is not), and stops at the budget plus the extension.
#[test]
fn the_budget_extends_only_for_a_solve_near_an_answer() {
    let iterations = |min_orders: f64, budget_extension: usize| {
        let mut c = EvaluatorConfig::for_blade("blades/ls89.ron");
        c.warm_start = false;
        c.solver.max_iterations = 30;
        c.solver.figures = Some(FigureConvergence { tolerance: 1e-12, min_orders, periodic: None, budget_extension, ..FigureConvergence::default() });
        let ev = CfdEvaluator::new(c).unwrap();
        let e = ev.evaluate(&ev.space().baseline.clone());
        assert!(matches!(e.status, Status::NotConverged(_)), "{:?}", e.status);
        e.diagnostics.iterations
    };
    assert_eq!(iterations(0.0, 20), 50, "near an answer: budget plus extension");
    assert_eq!(iterations(30.0, 20), 30, "far from one: the budget");
    assert_eq!(iterations(0.0, 0), 30, "no extension");
}

/// Settings errors are caught before anything runs.
#[test]
fn bad_convergence_settings_are_refused() {
    let mut c = EvaluatorConfig::for_blade(Path::new("blades/ls89.ron"));
    c.solver.figures = Some(FigureConvergence { interval: 0, ..FigureConvergence::default() });
    assert!(CfdEvaluator::new(c).is_err());
}
