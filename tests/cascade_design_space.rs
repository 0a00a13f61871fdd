//! Every design inside a blade file's bounds gets an answer (docs/design-space-study.md): drawn
//! uniformly in the bounds of every variable, each design is refused by the checks with a
//! reason, or meshes; and solved as a campaign solves it, at least 99 % of those that pass the
//! checks converge or are answered as periodic flows.
//!
//! Default suite: the study of 20 designs of each shipped blade solved on the CPU (LS89 at
//! MUR47, T106C at Re 80k), LS89 designs that are hard to mesh, and LS89 design 129 (a mesh
//! with sliver cells once inverted its viscous diamonds).
//! Ignored (the study of docs/design-space-study.md, `turbopt study` does the same from the
//! command line): `STUDY_BLADE=blades/ls89.ron STUDY_CASE=MUR47 STUDY_DESIGNS=500 BACKEND=gpu
//! cargo test --release --features cuda --test cascade_design_space -- --ignored --nocapture`;
//! `MESH_ONLY=1` checks and meshes only (2,000 designs in minutes).

use turbopt::cascade::BackendChoice;
use turbopt::cascade::{CascadeSetup, PeriodicAverage};
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
use turbopt::eval::objectives::Objective;
use turbopt::eval::study::{draw_designs, mesh_designs, solve_designs, DesignRecord, Outcome, StudySummary};
use turbopt::geometry::load_blade_file;
use turbopt::mesh::Density;

const SEED: u64 = 17;

/// The study of `designs` designs of `blade` at `case`: meshed only, or solved on `backend`.
fn study(blade: &str, case: &str, designs: usize, mesh_only: bool, backend: BackendChoice) -> Vec<DesignRecord> {
    let file = load_blade_file(blade).unwrap();
    let drawn = draw_designs(&file.design_space().expect("a blade with a design parameterization"), designs, SEED);
    if mesh_only {
        let setup = CascadeSetup::new(&file, vec![file.operating_point(case).unwrap().clone()], Density::Coarse);
        return mesh_designs(&file, &setup, &drawn, &|_: &DesignRecord, _, _| {});
    }
    solve(blade, case, &drawn, backend, |_| {})
}

/// Solves `designs` of `blade` at `case` as a campaign does (budget 1000), with `adjust` applied
/// to the evaluator's settings.
fn solve(blade: &str, case: &str, designs: &[Vec<f64>], backend: BackendChoice, adjust: impl FnOnce(&mut EvaluatorConfig)) -> Vec<DesignRecord> {
    let mut config = EvaluatorConfig::for_blade(blade);
    config.operating_points = vec![case.to_string()];
    config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow];
    config.solver.max_iterations = 1000;
    config.solver.backend = backend;
    adjust(&mut config);
    solve_designs(&CfdEvaluator::new(config).unwrap(), designs, &|_: &DesignRecord, _, _| {})
}

/// Prints the records and the tally; checks no mesher failure and the answered share.
fn check_answers(what: &str, records: &[DesignRecord], wall_s: f64, min_answered: f64) {
    for r in records.iter().filter(|r| !matches!(r.outcome, Outcome::Converged | Outcome::Meshed)) {
        println!("{what} design {}: {:?} {} ({} iterations, {:.2} orders, amplitude {:?})", r.design, r.outcome, r.reason, r.iterations, r.residual_drop_orders, r.amplitude);
    }
    let summary = StudySummary::of(records, wall_s);
    println!("{what}: {} designs in {wall_s:.0} s\n{}", records.len(), summary.markdown());
    println!(
        "iterations median {:.0}, p95 {:.0}; wall per design median {:.1} s, p95 {:.1} s; study wall per checked design {:.1} s",
        summary.iterations_median, summary.iterations_p95, summary.wall_s_median, summary.wall_s_p95, summary.throughput_s_per_design
    );
    let failures: Vec<&DesignRecord> = records.iter().filter(|r| r.outcome == Outcome::MesherFailure).collect();
    assert!(failures.is_empty(), "{what}: {} designs passed the checks and failed in the mesher: {:?}", failures.len(), failures.iter().map(|r| (r.design, &r.reason)).collect::<Vec<_>>());
    assert!(summary.answered_fraction >= min_answered, "{what}: {:.1} % of the checked designs answered, fewer than {:.0} %", 100.0 * summary.answered_fraction, 100.0 * min_answered);
}

/// The study's sample of the default suite: 20 designs of LS89 at MUR47, each refused by the
/// checks with a reason or solved and answered (about 6 minutes on 2 cores).
#[test]
fn twenty_ls89_designs_are_refused_with_a_reason_or_answered() {
    let t = std::time::Instant::now();
    let records = study("blades/ls89.ron", "MUR47", 20, false, BackendChoice::Cpu { threads: None });
    check_answers("LS89 at MUR47", &records, t.elapsed().as_secs_f64(), 0.99);
}

/// The same for 20 T106C designs at Re 80k, where a design that sheds vortices is answered with
/// its figures averaged over whole periods and the oscillation's amplitude recorded (about 4
/// minutes on 2 cores; on the five-block mesh all 20 converge to a steady flow).
#[test]
fn twenty_t106c_designs_at_low_reynolds_number_are_answered() {
    let t = std::time::Instant::now();
    let records = study("blades/t106c.ron", "M065_RE80K", 20, false, BackendChoice::Cpu { threads: None });
    check_answers("T106C at M065_RE80K", &records, t.elapsed().as_secs_f64(), 0.99);
    for r in records.iter().filter(|r| r.outcome == Outcome::Periodic) {
        let a = r.amplitude.expect("a periodic answer records its amplitude");
        assert!(a > 0.0 && a < 0.2, "design {}: amplitude {a}", r.design);
    }
}

/// Designs of LS89 (out of 2,000 drawn) that are hard to mesh: a steep rear suction side, a
/// periodic line ramping up towards the outlet (100, 139, 1782). Each meshes.
#[test]
fn ls89_designs_that_folded_a_cell_mesh() {
    let file = load_blade_file("blades/ls89.ron").unwrap();
    let drawn = draw_designs(&file.design_space().unwrap(), 2000, SEED);
    let folded = [100, 139, 284, 400, 741, 863, 950, 1684, 1782, 1928];
    let designs: Vec<Vec<f64>> = folded.iter().map(|&k| drawn[k].clone()).collect();
    let setup = CascadeSetup::new(&file, vec![file.operating_point("MUR47").unwrap().clone()], Density::Coarse);
    let t = std::time::Instant::now();
    let records = mesh_designs(&file, &setup, &designs, &|_: &DesignRecord, _, _| {});
    check_answers("LS89 designs that folded", &records, t.elapsed().as_secs_f64(), 1.0);
    assert!(records.iter().all(|r| r.outcome == Outcome::Meshed), "{records:?}");
}

/// LS89 design 26 (of 500 drawn) has a wavy wall whose curvature takes most of the cells round
/// the blade: its flat rear suction side would get wall cells of several mean cells, and the
/// passage cells there would be far smaller than the boundary-layer cells they meet (such a
/// mesh diverges at MUR47). The wall-cell cap keeps its largest wall cell within twice the mean
/// and the volume ratio below 45.
#[test]
fn a_wavy_wall_keeps_its_flat_stretch_finely_meshed() {
    use turbopt::cascade::{BladeChoice, PreparedCascade};
    use turbopt::mesh::metrics::MeshMetrics;
    use turbopt::mesh::quality::QualityReport;
    let file = load_blade_file("blades/ls89.ron").unwrap();
    let drawn = draw_designs(&file.design_space().unwrap(), 500, SEED);
    let setup = CascadeSetup::new(&file, vec![file.operating_point("MUR47").unwrap().clone()], Density::Coarse);
    let p = PreparedCascade::new(&file, BladeChoice::Design(&drawn[26]), &setup).unwrap();
    let o = &p.mesh.blocks[0];
    let wall: Vec<f64> = (0..o.ni).map(|i| (o.x[o.node(i + 1, 0)] - o.x[o.node(i, 0)]).hypot(o.y[o.node(i + 1, 0)] - o.y[o.node(i, 0)])).collect();
    // The mean cell of the coarse preset: the perimeter over its 192 cells round the blade.
    let mean = wall.iter().sum::<f64>() / 192.0;
    let largest = wall.iter().copied().fold(0.0, f64::max);
    assert!(largest < 2.0 * mean, "largest wall cell {largest:e} m, {:.2} mean cells", largest / mean);
    let quality = QualityReport::new(&p.mesh, &MeshMetrics::new(&p.mesh).unwrap()).unwrap();
    assert!(quality.max_volume_ratio < 45.0, "largest volume ratio {}", quality.max_volume_ratio);
}

/// LS89 design 129 (of 500 drawn): a mesh with sliver cells where grid lines meet its steep rear
/// suction side puts the two cell centres of some faces' viscous diamonds beside the face, and
/// the solve diverges unless the centres are lifted apart (`flow::viscous::diamond_lift`). It
/// converges at MUR47; the shipped blades' meshes need no lift at any density, so their figures
/// do not depend on it.
#[test]
fn an_ls89_design_with_a_steep_rear_suction_side_converges() {
    use turbopt::backend::cpu::CpuBackend;
    use turbopt::cascade::{BladeChoice, PreparedCascade};
    let lifted_faces = |p: &PreparedCascade| {
        let g = CpuBackend::geometry(&p.mesh).unwrap();
        g.blocks.iter().flat_map(|b| b.diamond_lift_i.iter().chain(&b.diamond_lift_j)).filter(|l| **l > 0.0).count()
    };
    for (blade, case) in [("blades/ls89.ron", "MUR47"), ("blades/t106c.ron", "M065_RE200K")] {
        let file = load_blade_file(blade).unwrap();
        for density in [Density::Coarse, Density::Medium, Density::Fine] {
            let setup = CascadeSetup::new(&file, vec![file.operating_point(case).unwrap().clone()], density);
            let p = PreparedCascade::new(&file, BladeChoice::Main, &setup).unwrap();
            assert_eq!(lifted_faces(&p), 0, "{blade} {density:?}: the shipped mesh has lifted diamonds");
        }
    }
    let file = load_blade_file("blades/ls89.ron").unwrap();
    let design = draw_designs(&file.design_space().unwrap(), 130, SEED).swap_remove(129);
    let setup = CascadeSetup::new(&file, vec![file.operating_point("MUR47").unwrap().clone()], Density::Coarse);
    let lifted = lifted_faces(&PreparedCascade::new(&file, BladeChoice::Design(&design), &setup).unwrap());
    let t = std::time::Instant::now();
    let records = solve("blades/ls89.ron", "MUR47", &[design], BackendChoice::Cpu { threads: None }, |_| {});
    check_answers(&format!("LS89 design 129 ({lifted} lifted diamonds)"), &records, t.elapsed().as_secs_f64(), 1.0);
}

/// What the ignored studies read from the environment: STUDY_BLADE, STUDY_CASE, STUDY_DESIGNS
/// and BACKEND (cpu or gpu), each with a default.
struct StudyEnv {
    blade: String,
    case: String,
    designs: usize,
    backend: BackendChoice,
}

impl StudyEnv {
    fn read(blade: &str, case: &str, designs: usize) -> StudyEnv {
        let var = |k: &str| std::env::var(k).ok();
        StudyEnv {
            blade: var("STUDY_BLADE").unwrap_or_else(|| blade.to_string()),
            case: var("STUDY_CASE").unwrap_or_else(|| case.to_string()),
            designs: var("STUDY_DESIGNS").map_or(designs, |n| n.parse().expect("STUDY_DESIGNS: a number of designs")),
            backend: if var("BACKEND").as_deref() == Some("gpu") { BackendChoice::gpu(0) } else { BackendChoice::Cpu { threads: None } },
        }
    }
}

#[test]
#[ignore = "long validation: the design-space study (STUDY_BLADE, STUDY_CASE, STUDY_DESIGNS, MESH_ONLY=1, BACKEND=gpu)"]
fn design_space_study() {
    let StudyEnv { blade, case, designs, backend } = StudyEnv::read("blades/ls89.ron", "MUR47", 500);
    let mesh_only = std::env::var("MESH_ONLY").is_ok_and(|v| v == "1");
    let t = std::time::Instant::now();
    let records = study(&blade, &case, designs, mesh_only, backend);
    check_answers(&format!("{blade} at {case}"), &records, t.elapsed().as_secs_f64(), 0.99);
}

/// Window of the reference runs of the periodic rule's error study: ten times the default, so
/// that the reference mean spans ten times as many periods.
const LONG_WINDOW: usize = 4000;

/// The periodic rule's answers against long averages (docs/periodic-flows.md): the designs
/// answered as periodic are solved again with the rule's window at `LONG_WINDOW` iterations
/// (budget 10,000), and each figure of the default answer is compared with the long mean.
/// `STUDY_BLADE=blades/t106c.ron STUDY_CASE=M065_RE80K STUDY_DESIGNS=40 BACKEND=gpu cargo test
/// --release --features cuda --test cascade_design_space -- --ignored periodic_rule --nocapture`
#[test]
#[ignore = "long validation: the periodic rule against long averages (STUDY_BLADE, STUDY_CASE, STUDY_DESIGNS, BACKEND=gpu)"]
fn periodic_rule_error_against_long_averages() {
    let StudyEnv { blade, case, designs, backend } = StudyEnv::read("blades/t106c.ron", "M065_RE80K", 40);
    let file = load_blade_file(&blade).unwrap();
    let drawn = draw_designs(&file.design_space().unwrap(), designs, SEED);
    let records = solve(&blade, &case, &drawn, backend.clone(), |_| {});
    let periodic: Vec<&DesignRecord> = records.iter().filter(|r| r.outcome == Outcome::Periodic).collect();
    assert!(!periodic.is_empty(), "{blade} at {case}: no periodic answer among {designs} designs");
    let again: Vec<Vec<f64>> = periodic.iter().map(|r| drawn[r.design].clone()).collect();
    let long = solve(&blade, &case, &again, backend, |c| {
        c.solver.max_iterations = 10_000;
        let figures = c.solver.figures.as_mut().expect("the default figure test");
        figures.periodic = Some(PeriodicAverage { window: LONG_WINDOW, longest_window: LONG_WINDOW, ..PeriodicAverage::default() });
    });
    println!("| design | period | amplitude | entropy rise | loss coefficient | exit angle [deg] | mass flow | reference |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut worst = [0.0_f64; 4];
    for (short, reference) in periodic.iter().zip(&long) {
        let answered = matches!(reference.outcome, Outcome::Periodic | Outcome::Converged);
        if !answered {
            println!("| {} | {:?} | | | | | | {:?} {}, {} iterations |", short.design, short.period, reference.outcome, reference.reason, reference.iterations);
            continue;
        }
        let errors = figure_errors(&short.objectives, &reference.objectives);
        println!(
            "| {} | {:?} | {:.2e} | {:.2e} | {:.2e} | {:.3} | {:.2e} | {:?}, {} iterations |",
            short.design, short.period, short.amplitude.unwrap_or(0.0), errors[0], errors[1], errors[2], errors[3], reference.outcome, reference.iterations
        );
        for (w, e) in worst.iter_mut().zip(errors) {
            *w = w.max(e);
        }
    }
    println!("largest errors (relative; exit angle in degrees): {worst:?}");
    let references = long.iter().filter(|r| matches!(r.outcome, Outcome::Periodic | Outcome::Converged)).count();
    assert!(2 * references >= long.len(), "only {references} of {} reference runs answered", long.len());
    assert!(worst[0] < 1e-2 && worst[1] < 1e-2 && worst[2] < 0.1 && worst[3] < 1e-3, "periodic answers off their long means: {worst:?}");
}

/// Differences of the periodic answer's figures from the long mean's (objectives in the order of
/// `solve`): relative for entropy rise, loss coefficient and mass flow, in degrees for the exit
/// angle.
fn figure_errors(short: &[f64], long: &[f64]) -> [f64; 4] {
    let relative = |k: usize| ((short[k] - long[k]) / long[k]).abs();
    [relative(0), relative(1), (short[2] - long[2]).abs(), relative(3)]
}
