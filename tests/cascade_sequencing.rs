//! Mesh sequencing (`cascade::Sequencing`): a point on a finer mesh starts from a coarser mesh's
//! converged flow, carried over by nearest-centre injection.
//!
//! Default suite: the injection between the LS89 coarse and medium meshes, on a field known
//! everywhere; an evaluation whose coarser solve passed no flow on says it started cold. Ignored (seconds on a GPU; `DENSITY=medium SEQUENCE=coarse` on a CPU): the
//! sequenced solve against the cold one, `BACKEND=gpu` in a `--features cuda` build;
//! the evaluator's sequenced baseline against `solve_blade`'s.

use turbopt::cascade::{
    inject, solve_blade, BackendChoice, BladeChoice, CascadeSetup, PreparedCascade, SchemeChoice, Sequencing, SolverSettings,
};
use turbopt::flow::solution::Solution;
use turbopt::geometry::load_blade_file;
use turbopt::mesh::{Density, Mesh};
use turbopt::solver::Silent;

fn prepared(density: Density) -> PreparedCascade {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    PreparedCascade::new(&blade, BladeChoice::Main, &CascadeSetup::new(&blade, vec![op], density)).unwrap()
}

/// Cell centres, block by block, in the solution's cell order.
fn centres(mesh: &Mesh) -> Vec<Vec<[f64; 2]>> {
    mesh.blocks
        .iter()
        .map(|b| {
            let mut c = vec![[0.0; 2]; b.n_cells()];
            for j in 0..b.nj {
                for i in 0..b.ni {
                    c[b.cell(i, j)] = b.vertex_centre(i, j);
                }
            }
            c
        })
        .collect()
}

/// A solution on `mesh` whose density is `f` at each cell centre (the other variables copy it).
fn field(mesh: &Mesh, template: &Solution, f: impl Fn([f64; 2]) -> f64) -> Solution {
    let mut s = template.clone();
    for (b, c) in s.blocks.iter_mut().zip(centres(mesh)) {
        b.rho = c.iter().map(|&p| f(p)).collect();
    }
    s
}

/// Injected from the coarse mesh, a field periodic across the pitch (as a flow is) with a
/// gradient of at most sqrt(13) is off on the medium mesh by at most that gradient times the
/// distance to the nearest coarse centre (of the mesh or its periodic images: the two meshes need
/// not share their periodic lines), and that distance is at most half the diagonal of the coarse
/// cells around; so with the largest coarse cell's diagonal as bound, every medium cell is within
/// |grad f| * diagonal.
#[test]
fn a_periodic_field_injected_onto_a_finer_mesh_is_off_by_at_most_a_coarse_cell() {
    let (coarse, medium) = (prepared(Density::Coarse), prepared(Density::Medium));
    let op = load_blade_file("blades/ls89.ron").unwrap().operating_point("MUR47").unwrap().clone();
    let pitch = coarse.mesh.pitch;
    let k = std::f64::consts::TAU / pitch;
    let f = |p: [f64; 2]| 1.0 + 3.0 * p[0] - 2.0 * (k * p[1]).sin() / k;
    let source = field(&coarse.mesh, &coarse.cold_start(&op), f);
    let injected = inject(&coarse.mesh, &source, &medium.mesh, medium.cold_start(&op));
    let largest_diagonal = coarse
        .mesh
        .blocks
        .iter()
        .flat_map(|b| (0..b.nj).flat_map(move |j| (0..b.ni).map(move |i| (b.x[b.node(i + 1, j + 1)] - b.x[b.node(i, j)]).hypot(b.y[b.node(i + 1, j + 1)] - b.y[b.node(i, j)]).max((b.x[b.node(i, j + 1)] - b.x[b.node(i + 1, j)]).hypot(b.y[b.node(i, j + 1)] - b.y[b.node(i + 1, j)])))))
        .fold(0.0, f64::max);
    let bound = 13f64.sqrt() * largest_diagonal;
    let mut worst = 0.0_f64;
    for (b, c) in injected.blocks.iter().zip(centres(&medium.mesh)) {
        assert_eq!(b.rho.len(), c.len());
        for (v, p) in b.rho.iter().zip(&c) {
            worst = worst.max((v - f(*p)).abs());
        }
    }
    assert!(worst > 0.0 && worst <= bound, "largest error {worst:e}, bound {bound:e}");
    // The other variables come from the source's cells as they are (here the cold start's).
    let values: std::collections::HashSet<u64> = source.blocks.iter().flat_map(|b| b.rho_e.iter().map(|v| v.to_bits())).collect();
    assert!(injected.blocks.iter().flat_map(|b| &b.rho_e).all(|v| values.contains(&v.to_bits())));
}

/// The sequenced solve gives the cold solve's figures within the stop rule's tolerance; as the
/// default does it (`DENSITY=fine`, `SEQUENCE=medium`, the defaults here), in fewer iterations
/// on the fine mesh. Other pairs (`DENSITY=medium SEQUENCE=coarse`, what a CPU run can afford)
/// print their iterations: T106C's medium mesh takes as many from the coarse flow as cold.
#[test]
#[ignore = "long validation: sequenced against cold solve (SEQUENCE, DENSITY, BACKEND=gpu)"]
fn a_sequenced_solve_gives_the_cold_solves_figures() {
    let density = match std::env::var("DENSITY").as_deref() {
        Ok("medium") => Density::Medium,
        _ => Density::Fine,
    };
    let from = match std::env::var("SEQUENCE").as_deref() {
        Ok("coarse") => Density::Coarse,
        _ => Density::Medium,
    };
    let backend = if std::env::var("BACKEND").is_ok_and(|b| b == "gpu") { BackendChoice::gpu(0) } else { BackendChoice::Cpu { threads: None } };
    for (path, case) in [("blades/ls89.ron", "MUR47"), ("blades/t106c.ron", "M065_RE200K")] {
        let blade = load_blade_file(path).unwrap();
        let op = blade.operating_point(case).unwrap().clone();
        let scheme = SchemeChoice::Implicit;
        let settings = |sequencing| SolverSettings { scheme, backend: backend.clone(), max_iterations: scheme.default_max_iterations(), sequencing, ..SolverSettings::default() };
        let t = std::time::Instant::now();
        let cold = solve_blade(&blade, BladeChoice::Main, &op, density, &settings(Sequencing::Off), &mut Silent).unwrap();
        let cold_s = t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let seq = solve_blade(&blade, BladeChoice::Main, &op, density, &settings(Sequencing::From(from)), &mut Silent).unwrap();
        let seq_s = t.elapsed().as_secs_f64();
        let coarser = seq.coarser.last().expect("a coarser solve");
        let (a, b) = (&cold.solve.figures.performance, &seq.solve.figures.performance);
        println!(
            "{path} {case} {density:?}: cold {} iterations in {cold_s:.1} s; from {from:?} {} + {} iterations in {seq_s:.1} s ({}); loss {:.6} / {:.6}, exit angle {:.4} / {:.4} deg",
            cold.solve.iterations, coarser.iterations, seq.solve.iterations, coarser.outcome, a.loss_coefficient, b.loss_coefficient, a.exit_angle_deg, b.exit_angle_deg
        );
        assert_eq!(coarser.outcome, "the next mesh started from its flow");
        assert!(seq.solve.stop.converged(), "{}", seq.solve.stop.describe());
        // The stop rule's figure tolerance is 1e-4 relative over its window (FigureConvergence);
        // two converged solves may sit a few windows' drift apart.
        assert!((a.loss_coefficient - b.loss_coefficient).abs() < 1e-3 * a.loss_coefficient.abs(), "loss {} vs {}", a.loss_coefficient, b.loss_coefficient);
        assert!((a.exit_angle_deg - b.exit_angle_deg).abs() < 0.01, "exit angle {} vs {}", a.exit_angle_deg, b.exit_angle_deg);
        if (density, from) == (Density::Fine, Density::Medium) {
            assert!(seq.solve.iterations < cold.solve.iterations, "{} iterations from {from:?}, {} cold", seq.solve.iterations, cold.solve.iterations);
        }
    }
}

/// The evaluator starts its baseline as `solve_blade` does, so the two give the same figures:
/// LS89 MUR47 on the medium mesh from the coarse one, CPU.
#[test]
#[ignore = "long validation: the evaluator's sequenced baseline against solve_blade (minutes on 2 cores)"]
fn the_evaluator_sequences_its_baseline_as_solve_blade_does() {
    use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
    use turbopt::eval::objectives::Objective;
    let sequencing = Sequencing::From(Density::Coarse);
    let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
    config.operating_points = vec!["MUR47".to_string()];
    config.objectives = vec![Objective::EntropyRise, Objective::LossCoefficient, Objective::ExitAngle, Objective::MassFlow];
    config.density = Density::Medium;
    config.solver.sequencing = sequencing;
    let evaluated = CfdEvaluator::new(config.clone()).unwrap().evaluate_main_blade();
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    let solved = solve_blade(&blade, BladeChoice::Main, &op, Density::Medium, &config.solver, &mut Silent).unwrap();
    let p = &solved.solve.figures.performance;
    let coarser: usize = solved.coarser.iter().map(|c| c.iterations).sum();
    println!("evaluate {:?} ({} iterations); solve_blade {:e} {:e} {} {} ({} + {coarser} iterations)", evaluated.objectives, evaluated.diagnostics.iterations, p.entropy_rise, p.loss_coefficient, p.exit_angle_deg, p.mass_flow, solved.solve.iterations);
    for (a, b) in evaluated.objectives.iter().zip([p.entropy_rise, p.loss_coefficient, p.exit_angle_deg, p.mass_flow]) {
        assert!((a - b).abs() <= 1e-10 * b.abs(), "evaluate {a:e}, solve_blade {b:e}");
    }
    assert_eq!(evaluated.diagnostics.iterations, solved.solve.iterations + coarser, "the evaluation counts the coarse mesh's iterations too");
    assert_eq!(evaluated.diagnostics.scheme, "implicit (mesh sequencing from the coarse mesh, its iterations included)");
}

/// Where the coarser solve passes no flow on (here it stops at a budget of 3 iterations), the
/// design's mesh starts cold, and the evaluation says so while counting the coarser iterations.
#[test]
fn an_evaluation_whose_coarser_solve_passed_no_flow_on_says_it_started_cold() {
    use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
    let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
    config.operating_points = vec!["MUR47".to_string()];
    config.density = Density::Medium;
    config.solver.sequencing = Sequencing::From(Density::Coarse);
    config.solver.backend = BackendChoice::Cpu { threads: None };
    config.solver.max_iterations = 3;
    config.solver.recovery = Vec::new();
    let evaluated = CfdEvaluator::new(config).unwrap().evaluate_main_blade();
    assert_eq!(evaluated.diagnostics.scheme, "implicit (cold start: the coarse mesh's solve passed no flow on; its iterations included)");
    assert_eq!(evaluated.diagnostics.iterations, 6, "3 coarse and 3 medium iterations: {:?}", evaluated.diagnostics);
}
