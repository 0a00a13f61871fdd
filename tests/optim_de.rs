//! Differential evolution on the analytic benchmarks (10 seeds each) and on a constrained
//! problem with a known optimum.

use turbopt::eval::analytic::{AnalyticEvaluator, AnalyticProblem};
use turbopt::eval::Evaluator;
use turbopt::optim::de::{DeSettings, DifferentialEvolution};
use turbopt::optim::{minimize, EvaluatorProblem, Selection};

/// Evaluations needed to reach `target` for seeds 0..10 (None: not reached in the budget).
fn evaluations_to_target(problem: AnalyticProblem, target: f64, budget: usize) -> Vec<Option<usize>> {
    let e = AnalyticEvaluator::new(problem).unwrap();
    let dim = e.space().dim();
    (0..10)
        .map(|seed| {
            let mut st = DeSettings::for_dimension(dim, budget, seed);
            st.target = Some(target);
            let problem = EvaluatorProblem::new(&e, Selection::default()).unwrap();
            minimize(problem, DifferentialEvolution::new(st)).unwrap().evaluations_to_target
        })
        .collect()
}

fn report(name: &str, runs: &[Option<usize>]) -> (usize, usize) {
    let mut hits: Vec<usize> = runs.iter().flatten().copied().collect();
    hits.sort_unstable();
    let median = if hits.len() * 2 > runs.len() { hits[runs.len() / 2] } else { usize::MAX };
    println!("{name}: {}/{} seeds reached the target, evaluations {:?}, median {median}", hits.len(), runs.len(), runs);
    // Machine-readable lines for scripts/bench_de_scipy.py.
    for (seed, r) in runs.iter().enumerate() {
        println!("DE_RUN problem={name} seed={seed} evaluations={}", r.map_or("none".to_string(), |n| n.to_string()));
    }
    (hits.len(), median)
}

#[test]
fn rosenbrock_10d_to_1e_6_on_most_seeds() {
    let runs = evaluations_to_target(AnalyticProblem::Rosenbrock { dim: 10 }, 1e-6, 100_000);
    let (successes, _) = report("Rosenbrock-10D", &runs);
    assert!(successes >= 6, "{successes}/10");
}

#[test]
fn rastrigin_10d_to_1e_3_on_most_seeds() {
    let runs = evaluations_to_target(AnalyticProblem::Rastrigin { dim: 10 }, 1e-3, 100_000);
    let (successes, _) = report("Rastrigin-10D", &runs);
    assert!(successes >= 6, "{successes}/10");
}

#[test]
fn g06_constrained_optimum_by_feasibility_rules() {
    let e = AnalyticEvaluator::new(AnalyticProblem::G06).unwrap();
    let opt = e.known_optimum().expect("single-objective problem");
    let st = DeSettings::for_dimension(2, 20_000, 11);
    let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), DifferentialEvolution::new(st)).unwrap();
    println!("G06: f = {} at {:?} after {} evaluations", out.best.objective, out.best_design, out.evaluations);
    assert!(out.best.is_feasible());
    assert!((out.best.objective - opt.value).abs() < 1e-3 * opt.value.abs(), "{} vs {}", out.best.objective, opt.value);
    for (x, xs) in out.best_design.iter().zip(&opt.design) {
        assert!((x - xs).abs() < 1e-2, "{:?} vs {:?}", out.best_design, opt.design);
    }
}

#[test]
fn gomez3_constrained_optimum_by_feasibility_rules() {
    let e = AnalyticEvaluator::new(AnalyticProblem::Gomez3).unwrap();
    let opt = e.known_optimum().expect("single-objective problem");
    let st = DeSettings::for_dimension(2, 5_000, 2);
    let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), DifferentialEvolution::new(st)).unwrap();
    println!("Gomez#3: f = {} at {:?}", out.best.objective, out.best_design);
    assert!(out.best.is_feasible());
    assert!((out.best.objective - opt.value).abs() < 1e-3, "{} vs {}", out.best.objective, opt.value);
    assert!(out.best_design.iter().zip(&opt.design).all(|(a, b)| (a - b).abs() < 0.01), "{:?}", out.best_design);
}
