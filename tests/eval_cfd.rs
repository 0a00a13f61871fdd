//! CFD evaluator: configuration, bad designs (each a failed status with its reason), status
//! mapping, multi-point bookkeeping and a short real solve on the coarse mesh.
//!
//! Bad designs use the T106C blade (blades/t106c.ron has a design parameterization) with
//! its bounds widened in a temporary copy, so that a design can reach negative thickness or
//! crossing sides while staying inside the bounds (the shipped bounds keep designs valid).

use std::path::{Path, PathBuf};
use turbopt::eval::cfd::{BackendChoice, CfdEvaluator, EvaluatorConfig, FigureSettings, SchemeChoice};
use turbopt::eval::objectives::{Constraint, Objective};
use turbopt::eval::{Evaluator, Status};
use turbopt::geometry::load_blade_file;

/// blades/t106c.ron with every design bound widened to `[-1, 1]` (angles `[-90, 90]`), written
/// to a temporary file named after the test and removed when the returned guard drops.
fn widened_t106c(tag: &str) -> TempBlade {
    let mut file = load_blade_file("blades/t106c.ron").expect("blades/t106c.ron");
    let design = file.design.as_mut().expect("t106c has a design");
    for v in design.variables_mut() {
        if v.is_free() {
            let wide = if v.name.ends_with("_deg") { 90.0 } else { 1.0 };
            v.lower = -wide;
            v.upper = wide;
        }
    }
    let path = std::env::temp_dir().join(format!("turbopt-eval-{tag}-{}.ron", std::process::id()));
    std::fs::write(&path, ron::ser::to_string_pretty(&file, Default::default()).unwrap()).unwrap();
    TempBlade(path)
}

/// A blade file in the temporary directory, deleted on drop so that test runs leave nothing behind.
struct TempBlade(PathBuf);

impl Drop for TempBlade {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn config(blade: &Path) -> EvaluatorConfig {
    let mut c = EvaluatorConfig::for_blade(blade);
    c.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient];
    c.constraints = vec![Constraint::ExitAngleAtLeast(60.0)];
    c
}

/// LS89 coarse, implicit Euler to 4 orders (at most 400 iterations): a real solve of a few
/// seconds for the tests that follow flows from design to design.
fn ls89_euler_to_4_orders() -> EvaluatorConfig {
    let mut c = EvaluatorConfig::for_blade("blades/ls89.ron");
    c.solver.scheme = SchemeChoice::Implicit;
    c.solver.config.model = turbopt::solver::FlowModel::Euler;
    c.solver.convergence_orders = 4.0;
    c.solver.figures = None;
    c.solver.max_iterations = 400;
    c
}

fn index_of(ev: &CfdEvaluator, name: &str) -> usize {
    ev.space().names.iter().position(|n| n == name).unwrap_or_else(|| panic!("no design variable {name}"))
}

fn expect_invalid(ev: &CfdEvaluator, design: &[f64], needle: &str) {
    let e = ev.evaluate(design);
    match &e.status {
        Status::InvalidGeometry(reason) => assert!(reason.contains(needle), "reason `{reason}` should mention `{needle}`"),
        other => panic!("expected InvalidGeometry mentioning `{needle}`, got {other:?}"),
    }
    assert!(e.objectives.is_empty() && e.violation().is_infinite() && !e.is_feasible());
}

#[test]
fn out_of_bounds_design_is_invalid_geometry() {
    let ev = CfdEvaluator::new(config(Path::new("blades/t106c.ron"))).unwrap();
    let mut x = ev.space().baseline.clone();
    x[0] = ev.space().upper[0] + 1.0;
    expect_invalid(&ev, &x, "outside its bounds");
}

#[test]
fn wrong_length_and_non_finite_designs_are_invalid_geometry() {
    let ev = CfdEvaluator::new(config(Path::new("blades/t106c.ron"))).unwrap();
    let x = ev.space().baseline.clone();
    expect_invalid(&ev, &x[1..], "free variables");
    let mut nan = x.clone();
    nan[2] = f64::NAN;
    expect_invalid(&ev, &nan, "NaN");
}

#[test]
fn negative_thickness_design_is_invalid_geometry() {
    let blade = widened_t106c("thickness");
    let ev = CfdEvaluator::new(config(&blade.0)).unwrap();
    let mut x = ev.space().baseline.clone();
    for k in ["thickness_3", "thickness_4", "thickness_5"] {
        x[index_of(&ev, k)] = -0.05;
    }
    expect_invalid(&ev, &x, "thickness");
}

#[test]
fn crossing_sides_design_is_invalid_geometry() {
    let blade = widened_t106c("crossing");
    let ev = CfdEvaluator::new(config(&blade.0)).unwrap();
    let mut x = ev.space().baseline.clone();
    // A thick section on a strongly bent camber line: a side folds over itself.
    x[index_of(&ev, "camber_1")] = 1.0;
    x[index_of(&ev, "thickness_3")] = 0.5;
    x[index_of(&ev, "thickness_4")] = 0.5;
    expect_invalid(&ev, &x, "cross");
}

/// `backend: Gpu` takes either scheme. A GPU that cannot be opened fails every evaluation with a
/// status naming the cause, and `check_backend` reports that cause once. Device 999 exists on no
/// machine, so this holds in every build: without the `cuda` feature (not compiled), without a
/// driver (no CUDA driver library) and on a GPU host (`Error::Devices`: device 999 requested
/// but N found).
#[test]
fn gpu_backend_takes_either_scheme_and_an_unavailable_device_fails_with_reason() {
    let mut c = config(Path::new("blades/t106c.ron"));
    c.solver.backend = BackendChoice::gpu(999);
    let implicit = CfdEvaluator::new(c.clone()).expect("the implicit scheme on the GPU is a valid configuration");
    assert!(matches!(implicit.check_backend(), Err(turbopt::Error::Gpu(_) | turbopt::Error::Devices(_))));
    let ron = r#"(blade: "blades/ls89.ron", solver: (scheme: Explicit, backend: Gpu(device: 0), config: (scheme: implicit(()))), objectives: [EntropyRise])"#;
    EvaluatorConfig::from_ron_str(ron, Path::new(".")).expect("an implicit solver section on the GPU is valid");

    c.solver.scheme = SchemeChoice::Explicit;
    let ev = CfdEvaluator::new(c).unwrap();
    let reason = match ev.check_backend() {
        Err(e @ (turbopt::Error::Gpu(_) | turbopt::Error::Devices(_))) => e.to_string(),
        other => panic!("expected a GPU error, got {other:?}"),
    };
    assert!(reason.contains("GPU error"), "{reason}");
    let baseline = ev.space().baseline.clone();
    let mut other = baseline.clone();
    other[0] = 0.5 * (ev.space().lower[0] + ev.space().upper[0]);
    for e in ev.evaluate_batch(&[baseline, other]) {
        assert_eq!(e.status, Status::Failed(reason.clone()));
    }
}

#[test]
fn config_from_ron_resolves_paths_and_rejects_bad_values() {
    let text = r#"(
        blade: "blades/ls89.ron",
        operating_points: ["MUR47", "TC2_OP1", "TC2_OP3"],
        density: medium,
        solver: (scheme: Explicit, backend: Cpu(threads: Some(2)), max_iterations: 500, accept_orders: Some(3.0)),
        objectives: [EntropyRise, MisRms(target: "data/ls89/mur47_isentropic_mach_experiment.csv")],
        constraints: [ExitAngleAtLeast(74.0), MassFlowWithin(0.02)],
        batch: (mode: SharedPool),
    )"#;
    let c = EvaluatorConfig::from_ron_str(text, Path::new("/base")).unwrap();
    assert_eq!(c.blade, Path::new("/base/blades/ls89.ron"));
    assert_eq!(c.objectives[1], Objective::MisRms { target: "/base/data/ls89/mur47_isentropic_mach_experiment.csv".into() });
    assert_eq!(c.solver.max_iterations, 500);
    assert!(c.warm_start);

    let bad = text.replace("ExitAngleAtLeast(74.0)", "ExitAngleAtLeast(-1.0)");
    let err = EvaluatorConfig::from_ron_str(&bad, Path::new(".")).unwrap_err();
    assert!(err.contains("ExitAngle") || err.contains("abs_exit_angle"), "{err}");
    let err = EvaluatorConfig::from_ron_str(&text.replace("[EntropyRise, MisRms", "[MisRms"), Path::new(".")).map(|_| ());
    assert!(err.is_ok());
    let err = EvaluatorConfig::from_ron_str(&text.replace("max_iterations: 500", "max_iterations: 0"), Path::new(".")).unwrap_err();
    assert!(err.contains("max_iterations"), "{err}");
    let err = EvaluatorConfig::from_ron_str("(blade: 3)", Path::new(".")).unwrap_err();
    assert!(err.contains("line 1"), "{err}");
}

#[test]
fn multi_point_names_one_constraint_per_point_and_unknown_points_are_errors() {
    let mut c = config(Path::new("blades/ls89.ron"));
    c.operating_points = vec!["MUR47".into(), "TC2_OP1".into(), "TC2_OP3".into()];
    c.constraints = vec![Constraint::ExitAngleAtLeast(74.0), Constraint::MassFlowWithin(0.02)];
    let ev = CfdEvaluator::new(c.clone()).unwrap();
    let names = ev.constraint_names();
    assert_eq!(names.len(), 6);
    assert_eq!(names[0], "abs_exit_angle>=74@MUR47");
    assert!(names[5].ends_with("@TC2_OP3"));
    assert_eq!(ev.objective_names(), vec!["entropy_rise", "loss_coefficient"]);

    c.operating_points = vec!["MUR99".into()];
    let err = CfdEvaluator::new(c).err().expect("unknown operating point").to_string();
    assert!(err.contains("MUR99") && err.contains("MUR47"), "{err}");
}

/// The evaluator of `turbopt evaluate` (`EvaluatorConfig::for_figures`): a bad design is an
/// evaluation with its reason, an unknown case or blade file an error.
#[test]
fn figure_evaluator_returns_a_bad_design_with_its_reason() {
    let blade = Path::new("blades/t106c.ron");
    let n = load_blade_file(blade).unwrap().design_space().unwrap().dim();
    let figures = |blade: &Path, case: Option<&str>| CfdEvaluator::new(EvaluatorConfig::for_figures(blade, case, &FigureSettings::default()));
    let e = figures(blade, None).unwrap().evaluate(&vec![0.0; n]);
    assert!(matches!(e.status, Status::InvalidGeometry(_)), "{:?}", e.status);
    assert!(figures(blade, Some("NOPE")).is_err());
    assert!(figures(Path::new("blades/missing.ron"), None).is_err());
}

/// The design that makes the solver diverge: the T106C baseline driven with the explicit
/// scheme at a CFL far beyond the Runge-Kutta scheme's stability limit, without residual
/// smoothing or multigrid.
#[test]
fn solver_blow_up_is_diverged_with_reason() {
    let mut c = config(Path::new("blades/t106c.ron"));
    c.solver.scheme = SchemeChoice::Explicit;
    c.solver.config.cfl = 60.0;
    c.solver.config.smoothing = None;
    c.solver.config.multigrid = None;
    c.solver.max_iterations = 400;
    c.warm_start = false;
    let ev = CfdEvaluator::new(c).unwrap();
    let e = ev.evaluate(&ev.space().baseline.clone());
    match &e.status {
        Status::Diverged(reason) => assert!(reason.contains("diverged") && reason.contains("M065_RE200K"), "{reason}"),
        other => panic!("expected Diverged, got {other:?}"),
    }
    assert!(e.diagnostics.backend.starts_with("cpu"), "{:?}", e.diagnostics);
}

/// A short real solve of the LS89 profile on the coarse mesh: the iteration budget reported as
/// NotConverged with its reason (the evaluator reports non-finite figures as Failed, so the
/// status also says that the objectives are finite), a positive mass flow, diagnostics filled.
#[test]
fn ls89_coarse_short_solve_reports_not_converged_with_finite_objectives() {
    let settings = FigureSettings { max_iterations: Some(30), ..FigureSettings::default() };
    let e = CfdEvaluator::new(EvaluatorConfig::for_figures("blades/ls89.ron", Some("MUR47"), &settings)).unwrap().evaluate_main_blade();
    match &e.status {
        Status::NotConverged(reason) => assert!(reason.contains("MUR47") && reason.contains("30 iterations"), "{reason}"),
        other => panic!("expected NotConverged after 30 iterations, got {other:?}"),
    }
    assert_eq!(e.objectives.len(), 4);
    // Mass flow per unit span is positive: the flow goes through the passage.
    assert!(e.objectives[3] > 0.0, "{:?}", e.objectives);
    assert_eq!(e.diagnostics.iterations, 30);
    assert_eq!(e.diagnostics.scheme, "implicit");
    println!("{e:?}");
}

/// LS89 design space: the baseline is solved once and cached; a small perturbation keeps the
/// mesh's block sizes and starts from the baseline solution (warm start), a multi-point run
/// gives one constraint per point.
#[test]
fn ls89_baseline_cached_and_perturbed_design_warm_started() {
    let mut c = config(Path::new("blades/ls89.ron"));
    c.operating_points = vec!["MUR47".into(), "TC2_OP1".into()];
    c.constraints = vec![Constraint::ExitAngleAtLeast(74.0), Constraint::MassFlowWithin(0.02)];
    c.solver.max_iterations = 10;
    let ev = CfdEvaluator::new(c).unwrap();
    assert!(ev.space().dim() > 10, "LS89 design space has {} variables", ev.space().dim());
    let baseline = ev.space().baseline.clone();
    let mut perturbed = baseline.clone();
    let k = index_of(&ev, "stagger_deg");
    perturbed[k] += 0.05 * (ev.space().upper[k] - baseline[k]);

    let out = ev.evaluate_batch(&[baseline.clone(), perturbed.clone()]);
    let (b, p) = (&out[0], &out[1]);
    assert!(b.diagnostics.cached, "the baseline comes from the cache");
    assert!(matches!(b.status, Status::NotConverged(_)), "{:?}", b.status);
    assert_eq!(b.constraints.len(), 4);
    // The baseline's mass flow is its own reference: the band constraint is -0.02 exactly.
    assert!((b.constraints[1] + 0.02).abs() < 1e-12 && (b.constraints[3] + 0.02).abs() < 1e-12, "{:?}", b.constraints);
    assert!(matches!(p.status, Status::NotConverged(_)), "{:?}", p.status);
    // The perturbed design's mass flow is measured against the baseline's, not its own (which
    // would give -0.02 exactly, as for the baseline).
    assert!(p.constraints[1] > -0.02 && p.constraints[3] > -0.02, "{:?}", p.constraints);
    // 10 per operating point, and 10 more for each point's retry from the cold start as
    // configured (a warm-started budget stop gets one).
    assert_eq!(p.diagnostics.iterations, 40, "10 per operating point and attempt");
    let retried = p.diagnostics.attempts.iter().filter(|a| a.remedies == [turbopt::cascade::Remedy::ColdStartAsConfigured]).count();
    assert_eq!(retried, 2, "{:?}", p.diagnostics.attempts);
    assert_eq!(p.diagnostics.backend, "cpu (1 threads)", "batch default: one design per core");
    let same_blocks = ev.design_mesh(&baseline).unwrap().blocks.iter().map(|b| (b.ni, b.nj)).collect::<Vec<_>>()
        == ev.design_mesh(&perturbed).unwrap().blocks.iter().map(|b| (b.ni, b.nj)).collect::<Vec<_>>();
    assert_eq!(p.diagnostics.scheme.contains("warm start"), same_blocks, "{:?}", p.diagnostics);
    println!("baseline {b:?}\nperturbed {p:?}\nsame block sizes: {same_blocks}");
}

/// A mesh the mesher refuses (first cell far above 1 % of the chord) is a MeshFailure.
#[test]
fn mesher_refusal_is_mesh_failure_with_reason() {
    let mut c = config(Path::new("blades/t106c.ron"));
    c.mesh.target_yplus = 1e7;
    c.warm_start = false;
    let ev = CfdEvaluator::new(c).unwrap();
    let e = ev.evaluate(&ev.space().baseline.clone());
    match &e.status {
        Status::MeshFailure(reason) => assert!(reason.contains("first cell height"), "{reason}"),
        other => panic!("expected MeshFailure, got {other:?}"),
    }
}

/// `warm_start_from: Nearest`: a design evaluated again in a later batch starts from its own
/// converged flow (the nearest donor, distance zero) and converges at once, where its first
/// evaluation started from the baseline's; the donors of a batch are those of earlier batches
/// only, so a design's twin in the same batch still starts from the baseline.
#[test]
fn nearest_warm_start_starts_a_design_from_the_nearest_converged_one_of_an_earlier_batch() {
    use turbopt::eval::cfd::WarmStartFrom;
    let mut c = ls89_euler_to_4_orders();
    // Five orders, not four: the Euler residual of this design plateaus near four orders (its
    // first solve ends at 4.03), so a restart's first step can land back above that line and
    // take 38 iterations to cross it again; from five orders (as from the RANS default's seven)
    // the design's own flow converges in one iteration.
    c.solver.convergence_orders = 5.0;
    c.warm_start_from = WarmStartFrom::Nearest;
    let ev = CfdEvaluator::new(c).unwrap();
    let mut design = ev.space().baseline.clone();
    let k = index_of(&ev, "camber_4");
    design[k] += 0.3 * (ev.space().upper[k] - design[k]);

    let first = ev.evaluate_batch(&[design.clone(), design.clone()]);
    for e in &first {
        assert!(matches!(e.status, Status::Ok), "{:?}", e.status);
        assert!(e.diagnostics.scheme.ends_with("(warm start)"), "no donors yet: {}", e.diagnostics.scheme);
    }
    assert_eq!(first[0].diagnostics.iterations, first[1].diagnostics.iterations, "the same start in one batch");
    let again = ev.evaluate(&design);
    assert!(matches!(again.status, Status::Ok), "{:?}", again.status);
    assert!(again.diagnostics.scheme.contains("from a nearer evaluated design"), "{}", again.diagnostics.scheme);
    println!("from the baseline: {} iterations; from its own flow: {}", first[0].diagnostics.iterations, again.diagnostics.iterations);
    assert!(again.diagnostics.iterations * 4 <= first[0].diagnostics.iterations, "{} against {}", again.diagnostics.iterations, first[0].diagnostics.iterations);
    let objective_change = (again.objectives[0] - first[0].objectives[0]).abs() / first[0].objectives[0].abs();
    assert!(objective_change < 1e-2, "the same design, converged to the same residual level: {objective_change:.2e}");
}

/// A campaign's pictures (`CfdEvaluator::design_surfaces`) show the solutions its evaluations
/// scored: the baseline's and an evaluated design's surface figures come from those solves, with
/// no solve more; a design never evaluated is solved for its picture, and once evaluated, its kept
/// figures are bit for bit those of that solve (the same warm start from the baseline).
#[test]
fn pictures_reuse_the_surface_figures_of_evaluated_designs() {
    let ev = CfdEvaluator::new(ls89_euler_to_4_orders()).unwrap();
    let baseline = ev.space().baseline.clone();
    let k = index_of(&ev, "camber_4");
    let (mut design, mut other) = (baseline.clone(), baseline.clone());
    design[k] += 0.3 * (ev.space().upper[k] - baseline[k]);
    other[k] -= 0.3 * (baseline[k] - ev.space().lower[k]);

    let e = ev.evaluate(&design);
    assert!(matches!(e.status, Status::Ok), "{:?}", e.status);
    assert_eq!(ev.designs_solved(), 2, "the baseline and the design");
    let (outline, surfaces) = ev.design_surfaces(&design).unwrap();
    let (baseline_outline, baseline_surfaces) = ev.design_surfaces(&baseline).unwrap();
    assert_eq!(ev.designs_solved(), 2, "the pictures solved nothing");
    assert_eq!((surfaces.len(), baseline_surfaces.len()), (1, 1), "one operating point");
    assert!(!surfaces[0].is_empty() && surfaces[0].iter().all(|p| p.mis.is_finite()));
    assert_ne!(outline.points, baseline_outline.points, "the design's own outline, not the baseline's");

    let (_, solved_for_picture) = ev.design_surfaces(&other).unwrap();
    assert_eq!(ev.designs_solved(), 3, "a design never evaluated is solved for its picture");
    assert!(matches!(ev.evaluate(&other).status, Status::Ok));
    let (_, kept) = ev.design_surfaces(&other).unwrap();
    assert_eq!(ev.designs_solved(), 4);
    let mis = |s: &[Vec<turbopt::post::SurfacePoint>]| s[0].iter().map(|p| p.mis.to_bits()).collect::<Vec<_>>();
    assert_eq!(mis(&kept), mis(&solved_for_picture));
}

/// The evaluator's stop signal: requested before an evaluation, the design is answered
/// `Interrupted` without a solve; requested during the baseline's solve, the solve stops after
/// its current iteration and the design is `Interrupted`; cleared, the evaluator solves again (an
/// interrupted baseline is not kept).
#[test]
fn the_stop_signal_interrupts_evaluations_and_clears() {
    let ev = CfdEvaluator::new(ls89_euler_to_4_orders()).unwrap();
    let stop = ev.stop_signal();
    let baseline = ev.space().baseline.clone();
    stop.request();
    let e = ev.evaluate(&baseline);
    assert!(e.status.is_interrupted(), "{:?}", e.status);
    assert_eq!(ev.designs_solved(), 0, "nothing is solved once the stop is requested");

    stop.clear();
    let requester = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(500));
            stop.request();
        })
    };
    let e = ev.evaluate(&baseline);
    requester.join().unwrap();
    assert!(e.status.is_interrupted(), "stopped mid-solve: {:?}", e.status);

    stop.clear();
    let e = ev.evaluate(&baseline);
    assert!(e.status.is_ok(), "solved once the stop is cleared: {:?}", e.status);
    assert!(e.diagnostics.iterations > 0);
}

/// `free_stream` sets the turbulence intensity and inflow nu~/nu over every point the evaluator
/// solves (how a campaign runs `model: sa_bcm` on a blade file whose points carry no
/// intensity); an intensity outside (0, 1) is refused with the field's name.
#[test]
fn free_stream_turbulence_applies_to_every_point() {
    let text = r#"(
        blade: "blades/ls89.ron",
        operating_points: ["MUR47", "TC2_OP1"],
        solver: (config: (model: sa_bcm)),
        free_stream: (turbulence_intensity: Some(0.01), nu_tilde_ratio: Some(0.1)),
        objectives: [EntropyRise],
    )"#;
    let config = EvaluatorConfig::from_ron_str(text, Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let ev = CfdEvaluator::new(config).unwrap();
    for op in ev.operating_points() {
        assert_eq!((op.turbulence_intensity, op.nu_tilde_ratio), (Some(0.01), 0.1), "{}", op.name);
    }
    let bad = text.replace("Some(0.01)", "Some(3.0)");
    let err = EvaluatorConfig::from_ron_str(&bad, Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
    assert!(err.contains("free_stream") && err.contains("turbulence_intensity = 3"), "{err}");
}

/// A warm-started design (LS89 coarse, RANS-SA) drops more orders within a 40-iteration budget
/// than the budget extension asks of a solve near an answer (`near_answer_orders`), so without
/// `accept_orders` it would run on to its steady figures (about 150 iterations); with it, it is
/// accepted at its budget, as that setting promises, and not retried from the cold start.
#[test]
fn accept_orders_stops_a_solve_at_its_budget_without_the_extension() {
    let mut c = config(Path::new("blades/ls89.ron"));
    (c.solver.max_iterations, c.solver.accept_orders) = (40, Some(1.0));
    let near_an_answer = c.solver.figures.expect("the default figure test").near_answer_orders();
    let ev = CfdEvaluator::new(c).unwrap();
    let mut design = ev.space().baseline.clone();
    design[20] *= 1.01;
    let e = ev.evaluate(&design);
    println!("{:?}", e.diagnostics);
    assert_eq!(e.status, Status::Ok, "{:?}", e.diagnostics);
    assert_eq!(e.diagnostics.iterations, 40, "{:?}", e.diagnostics);
    assert!(e.diagnostics.attempts.is_empty(), "{:?}", e.diagnostics);
    assert!(e.diagnostics.residual_drop_orders >= near_an_answer, "{:?}", e.diagnostics);
}
