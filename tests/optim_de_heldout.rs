//! Differential evolution on test functions that no DE default was chosen on (Rosenbrock and
//! Rastrigin were): Schwefel 2.26 (deceptive: the second-best basin lies far from the best, at
//! the opposite corner), Ackley, Griewank, Levy and Styblinski-Tang, all 10-D, budget 10^4 D.
//! The default (L-SHADE) against the earlier default (jDE, current-to-best/1/bin).

use std::f64::consts::PI;
use turbopt::optim::de::{DeSettings, DifferentialEvolution, Variant};
use turbopt::optim::{minimize, Bounds, FnProblem};

struct TestFunction {
    name: &'static str,
    f: fn(&[f64]) -> f64,
    /// Box [-a, a]^D.
    half_width: f64,
    /// Known minimum per dimension count (value at D).
    optimum: fn(usize) -> f64,
}

fn schwefel(x: &[f64]) -> f64 {
    418.982_887_272_433_9 * x.len() as f64 - x.iter().map(|v| v * v.abs().sqrt().sin()).sum::<f64>()
}
fn ackley(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let s1 = x.iter().map(|v| v * v).sum::<f64>() / n;
    let s2 = x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>() / n;
    -20.0 * (-0.2 * s1.sqrt()).exp() - s2.exp() + 20.0 + std::f64::consts::E
}
fn griewank(x: &[f64]) -> f64 {
    let s = x.iter().map(|v| v * v).sum::<f64>() / 4000.0;
    let p: f64 = x.iter().enumerate().map(|(i, v)| (v / ((i + 1) as f64).sqrt()).cos()).product();
    s - p + 1.0
}
fn levy(x: &[f64]) -> f64 {
    let w: Vec<f64> = x.iter().map(|v| 1.0 + (v - 1.0) / 4.0).collect();
    let d = w.len();
    let middle: f64 = w[..d - 1].iter().map(|wi| (wi - 1.0).powi(2) * (1.0 + 10.0 * (PI * wi + 1.0).sin().powi(2))).sum();
    (PI * w[0]).sin().powi(2) + middle + (w[d - 1] - 1.0).powi(2) * (1.0 + (2.0 * PI * w[d - 1]).sin().powi(2))
}
fn styblinski_tang(x: &[f64]) -> f64 {
    0.5 * x.iter().map(|v| v.powi(4) - 16.0 * v * v + 5.0 * v).sum::<f64>()
}

const FUNCTIONS: [TestFunction; 5] = [
    TestFunction { name: "Schwefel", f: schwefel, half_width: 500.0, optimum: |_| 0.0 },
    TestFunction { name: "Ackley", f: ackley, half_width: 32.768, optimum: |_| 0.0 },
    TestFunction { name: "Griewank", f: griewank, half_width: 600.0, optimum: |_| 0.0 },
    TestFunction { name: "Levy", f: levy, half_width: 10.0, optimum: |_| 0.0 },
    TestFunction { name: "Styblinski-Tang", f: styblinski_tang, half_width: 5.0, optimum: |d| -39.166_165_703_771_42 * d as f64 },
];

/// Evaluations to reach the optimum + 1e-3 (None: not within 10^4 D).
fn run(t: &TestFunction, variant: Variant, dim: usize, seed: u64) -> Option<usize> {
    let mut st = DeSettings::variant(variant, dim, 10_000 * dim, seed);
    st.target = Some((t.optimum)(dim) + 1e-3);
    let problem = FnProblem::new(t.f, Bounds::cube(-t.half_width, t.half_width, dim).unwrap());
    minimize(problem, DifferentialEvolution::new(st)).unwrap().evaluations_to_target
}

fn median(hits: &[usize]) -> String {
    let mut h = hits.to_vec();
    h.sort_unstable();
    h.get(h.len() / 2).map_or("-".into(), |m| format!("{:.1}k", *m as f64 / 1e3))
}

/// 5 functions x 2 variants x 10 seeds at 10-D and budget 100k: ~3 s in release on 2 cores.
#[test]
fn lshade_against_jde_on_held_out_functions() {
    println!("| function (10-D) | L-SHADE reached | median evals | jDE reached | median evals |");
    println!("|---|---|---|---|---|");
    let mut solved = [0, 0];
    for t in &FUNCTIONS {
        let mut row = format!("| {} ", t.name);
        let mut lshade_hits = 0;
        for (k, variant) in [Variant::LShade, Variant::Jde].into_iter().enumerate() {
            let hits: Vec<usize> = (0..10).filter_map(|seed| run(t, variant, 10, 100 + seed)).collect();
            solved[k] += hits.len();
            if k == 0 {
                lshade_hits = hits.len();
            }
            row += &format!("| {}/10 | {} ", hits.len(), median(&hits));
        }
        println!("{row}|");
        assert!(lshade_hits >= 9, "L-SHADE reached the target of {} on {lshade_hits}/10 seeds", t.name);
    }
    assert!(solved[0] >= solved[1], "L-SHADE solved {} runs, jDE {}", solved[0], solved[1]);
}
