//! The 2-level (Kriging-assisted) optimizer on Branin, Hartmann-6, Goldstein-Price (steep and
//! badly scaled: the output transformation's case) and constrained problems; batches of 16;
//! and on problems that chose none of its defaults (six-hump camel back, Hartmann-3,
//! Rosenbrock-4D), the check that a change made for Branin and Hartmann-6 holds elsewhere.

use turbopt::eval::analytic::{AnalyticEvaluator, AnalyticProblem};
use turbopt::eval::Evaluator;
use turbopt::optim::ego::{BatchInfill, EgoSettings, TwoLevel};
use turbopt::optim::transform::OutputTransform;
use turbopt::optim::{minimize, Bounds, EvaluatorProblem, FnProblem, Selection};

/// Evaluations to reach `target` within `budget` for the given seeds.
fn runs(problem: AnalyticProblem, target: f64, budget: usize, seeds: std::ops::Range<u64>) -> Vec<Option<usize>> {
    let e = AnalyticEvaluator::new(problem).unwrap();
    let dim = e.space().dim();
    seeds
        .map(|seed| {
            let mut st = EgoSettings::for_dimension(dim, budget, seed);
            st.target = Some(target);
            let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), TwoLevel::new(st)).unwrap();
            println!("seed {seed}: best {:.5} after {} evaluations", out.best.objective, out.evaluations);
            out.evaluations_to_target
        })
        .collect()
}

/// Median evaluations to target over all runs, a miss counting as infinite.
fn median(runs: &[Option<usize>]) -> Option<usize> {
    let mut v: Vec<usize> = runs.iter().map(|r| r.unwrap_or(usize::MAX)).collect();
    v.sort_unstable();
    let m = v[(v.len() - 1) / 2];
    (m != usize::MAX).then_some(m)
}

fn report(name: &str, r: &[Option<usize>]) {
    println!("{name}: {}/{} seeds, evaluations {r:?}, median {:?}", r.iter().flatten().count(), r.len(), median(r));
}

#[test]
#[ignore = "long validation: 20 seeds of EGO on Branin (0-9 and held-out 10-19), ~10 s"]
fn branin_within_30_evaluations_median_of_10_seeds() {
    let r = runs(AnalyticProblem::Branin, 0.4018, 30, 0..10);
    report("Branin <= 0.4018, seeds 0-9", &r);
    let held_out = runs(AnalyticProblem::Branin, 0.4018, 30, 10..20);
    report("Branin <= 0.4018, held-out seeds 10-19", &held_out);
    // The target: a median of at most 22 evaluations, on the held-out seeds as well.
    assert!(median(&r).is_some_and(|m| m <= 22) && median(&held_out).is_some_and(|m| m <= 22));
}

#[test]
#[ignore = "long validation: 20 seeds of EGO on Hartmann-6 (0-9 and held-out 10-19), ~30 s"]
fn hartmann6_within_80_evaluations_median_of_10_seeds() {
    let r = runs(AnalyticProblem::Hartmann6, -3.25, 80, 0..10);
    report("Hartmann-6 <= -3.25, seeds 0-9", &r);
    let held_out = runs(AnalyticProblem::Hartmann6, -3.25, 80, 10..20);
    report("Hartmann-6 <= -3.25, held-out seeds 10-19", &held_out);
    // The target: 10 of 10 seeds with a median of at most 35, on the held-out seeds as well.
    // Without the restarts in other basins, 3 of 10 on both sets settled in the -3.2032 basin.
    for runs in [&r, &held_out] {
        assert!(runs.iter().all(Option::is_some) && median(runs).is_some_and(|m| m <= 35), "{runs:?}");
    }
}

/// Six-hump camel back on [-3, 3] x [-2, 2] (two global minima -1.0316).
fn camel(x: &[f64]) -> f64 {
    let (a, b) = (x[0], x[1]);
    (4.0 - 2.1 * a * a + a.powi(4) / 3.0) * a * a + a * b + (-4.0 + 4.0 * b * b) * b * b
}

/// Hartmann-3 on [0, 1]^3 (minimum -3.86278).
fn hartmann3(x: &[f64]) -> f64 {
    let a = [[3.0, 10.0, 30.0], [0.1, 10.0, 35.0], [3.0, 10.0, 30.0], [0.1, 10.0, 35.0]];
    let c = [1.0, 1.2, 3.0, 3.2];
    let p = [[0.3689, 0.1170, 0.2673], [0.4699, 0.4387, 0.7470], [0.1091, 0.8732, 0.5547], [0.0381, 0.5743, 0.8828]];
    -(0..4).map(|i| c[i] * (-(0..3).map(|j| a[i][j] * (x[j] - p[i][j]).powi(2)).sum::<f64>()).exp()).sum::<f64>()
}

/// Rosenbrock-4D on [-2, 2]^4 (minimum 0): a curved valley, values up to 1e4.
fn rosenbrock4(x: &[f64]) -> f64 {
    (0..3).map(|i| 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2)).sum()
}

fn closure_runs(f: fn(&[f64]) -> f64, bounds: &Bounds, target: f64, budget: usize) -> Vec<Option<usize>> {
    (0..10)
        .map(|seed| {
            let mut st = EgoSettings::for_dimension(bounds.dim(), budget, seed);
            st.target = Some(target);
            minimize(FnProblem::new(f, bounds.clone()), TwoLevel::new(st)).unwrap().evaluations_to_target
        })
        .collect()
}

#[test]
#[ignore = "long validation: six-hump camel, Hartmann-3 and Rosenbrock-4D, 10 seeds each, ~3 min"]
fn problems_that_chose_no_default() {
    let camel_runs = closure_runs(camel, &Bounds::new([-3.0, -2.0], [3.0, 2.0]).unwrap(), -1.02, 40);
    report("six-hump camel <= -1.02 (opt. -1.0316), budget 40", &camel_runs);
    let h3 = closure_runs(hartmann3, &Bounds::cube(0.0, 1.0, 3).unwrap(), -3.85, 50);
    report("Hartmann-3 <= -3.85 (opt. -3.8628), budget 50", &h3);
    let rosen = closure_runs(rosenbrock4, &Bounds::cube(-2.0, 2.0, 4).unwrap(), 0.1, 80);
    report("Rosenbrock-4D <= 0.1, budget 80", &rosen);
    // Measured with the defaults tuned on Branin and Hartmann-6: 10/10, 10/10, 6/10 (expected
    // improvement alone with the same Kriging: 10/10, 10/10, 2/10).
    let hits = |r: &[Option<usize>]| r.iter().flatten().count();
    assert!(hits(&camel_runs) == 10 && hits(&h3) == 10 && hits(&rosen) >= 5, "{camel_runs:?} {h3:?} {rosen:?}");
}

#[test]
fn branin_one_seed() {
    let r = runs(AnalyticProblem::Branin, 0.4018, 30, 0..1);
    assert!(r[0].is_some(), "{r:?}");
}

/// Goldstein-Price on [-2, 2]^2: values from 3 to 1e6, a narrow valley under a steep plateau.
fn goldstein_price(x: &[f64]) -> f64 {
    let (a, b) = (x[0], x[1]);
    (1.0 + (a + b + 1.0).powi(2) * (19.0 - 14.0 * a + 3.0 * a * a - 14.0 * b + 6.0 * a * b + 3.0 * b * b))
        * (30.0 + (2.0 * a - 3.0 * b).powi(2) * (18.0 - 32.0 * a + 12.0 * a * a + 48.0 * b - 36.0 * a * b + 27.0 * b * b))
}

#[test]
#[ignore = "long validation: Goldstein-Price, 10 seeds with and without the output transformation, ~2 min"]
fn goldstein_price_with_and_without_the_log_transform() {
    let mut reached = Vec::new();
    for transform in [OutputTransform::Auto, OutputTransform::Identity] {
        let r: Vec<Option<usize>> = (0..10)
            .map(|seed| {
                let mut st = EgoSettings::for_dimension(2, 80, seed);
                st.transform = transform;
                st.target = Some(3.03);
                let problem = FnProblem::new(goldstein_price, Bounds::cube(-2.0, 2.0, 2).unwrap());
                minimize(problem, TwoLevel::new(st)).unwrap().evaluations_to_target
            })
            .collect();
        report(&format!("Goldstein-Price <= 3.03 (opt. 3), {transform:?}"), &r);
        reached.push(r.iter().flatten().count());
    }
    assert!(reached[0] >= reached[1], "the automatic transformation reached the target less often: {reached:?}");
}

/// Hartmann-6 with 12 initial designs and 5 cycles of 16 designs each (92 evaluations), with
/// either batch infill (constant liar, kriging believer): both reach the global basin (-3.25 or
/// below) on most of 10 seeds (measured: 7 and 8 of 10).
#[test]
#[ignore = "long validation: Hartmann-6 in 5 batches of 16 after 12 initial designs, constant liar and kriging believer, 10 seeds each, ~30 s"]
fn hartmann6_in_batches_of_16() {
    let e = AnalyticEvaluator::new(AnalyticProblem::Hartmann6).unwrap();
    for batch in [BatchInfill::ConstantLiar, BatchInfill::KrigingBeliever] {
        let best: Vec<f64> = (0..10)
            .map(|seed| {
                let mut st = EgoSettings::for_dimension(6, 12 + 5 * 16, seed);
                st.batch_size = 16;
                st.batch = batch;
                minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), TwoLevel::new(st)).unwrap().best.objective
            })
            .collect();
        let hits = best.iter().filter(|&&b| b <= -3.25).count();
        println!("Hartmann-6, 5 cycles of 16, {batch:?}: {hits}/10 seeds <= -3.25, best {best:.4?}");
        assert!(hits >= 6, "{batch:?}: {hits}/10 seeds reached -3.25: {best:?}");
    }
}

/// Both constrained problems: the best feasible value found within `budget` evaluations.
fn constrained(problem: AnalyticProblem, budget: usize, seed: u64) -> (f64, Vec<f64>, f64, Vec<f64>) {
    let e = AnalyticEvaluator::new(problem).unwrap();
    let st = EgoSettings::for_dimension(2, budget, seed);
    let out = minimize(EvaluatorProblem::new(&e, Selection::default()).unwrap(), TwoLevel::new(st)).unwrap();
    assert!(out.best.is_feasible(), "no feasible design: {:?}", out.best);
    let opt = e.known_optimum().expect("single-objective problem");
    println!("{:?}: {} at {:?} (optimum {} at {:?}), {} evaluations", e.problem(), out.best.objective, out.best_design, opt.value, opt.design, out.evaluations);
    (out.best.objective, out.best_design, opt.value, opt.design)
}

#[test]
fn g06_constrained_optimum() {
    let (f, x, f_opt, x_opt) = constrained(AnalyticProblem::G06, 60, 1);
    assert!((f - f_opt).abs() < 1e-3 * f_opt.abs(), "{f} vs {f_opt}");
    assert!(x.iter().zip(&x_opt).all(|(a, b)| (a - b).abs() < 0.05), "{x:?} vs {x_opt:?}");
}

#[test]
fn gomez3_constrained_optimum() {
    let (f, x, f_opt, x_opt) = constrained(AnalyticProblem::Gomez3, 60, 1);
    assert!((f - f_opt).abs() < 1e-3, "{f} vs {f_opt}");
    assert!(x.iter().zip(&x_opt).all(|(a, b)| (a - b).abs() < 0.01), "{x:?} vs {x_opt:?}");
}
