//! The study behind the steady-figures stop (`cascade::FigureConvergence`): how far the figures
//! a campaign ranks designs on lie from their converged values, against the drop of the density
//! residual and against the change of the figures over a window of iterations.
//!
//! The LS89 baseline (cold start) and five designs of the default campaign (warm-started from
//! the baseline as a campaign starts them) are solved on the coarse mesh, RANS-SA implicit, until
//! every figure changed by less than 1e-6 (relative) over 100 iterations; every 10 iterations the
//! figures are recorded. For each run a CSV file lists, at each look, the residual drop, the
//! error of the figures against the final ones, and the largest relative change over the last 30,
//! 50 and 100 iterations; then the program prints, for candidate stop rules (residual drops,
//! tolerances on the change of the figures), the error a stop at that rule would leave. The
//! results and the choice they led to are in docs/convergence-study.md.
//!
//! `cargo run --release --example convergence_study [OUT_DIR]` (CSV files in OUT_DIR, default
//! target/convergence-study; tens of minutes on 2 cores).

use std::collections::VecDeque;
use std::io::Write;
use turbopt::backend::cpu::CpuBackend;
use turbopt::cascade::{BladeChoice, CascadeSetup, FigureConvergence, PreparedCascade, SolverSettings};
use turbopt::flow::case::OperatingPoint;
use turbopt::flow::solution::Solution;
use turbopt::geometry::load_blade_file;
use turbopt::mesh::Density;
use turbopt::solver::{solve_case, Case, Control, ConvergenceHistory, IterationRecord, Observer};

/// Designs of the default campaign (exit_metal_angle_deg, camber_4, camber_5, thickness_4),
/// from its evaluation log (`cargo run --release -- optimize`): evaluations 13 (the best), 3, 6,
/// 11 and 2, entropy rise 1.33e-2 to 2.58e-2 at 5 orders.
const CAMPAIGN_DESIGNS: [[f64; 4]; 5] = [
    [-77.36275884333196, 0.18329346891310327, 0.15632519733753472, 0.1946167595773724],
    [-74.89140070558942, 0.1864210225585063, 0.15504233257716551, 0.21521608560174726],
    [-73.72077895210089, 0.16882208901778945, 0.14527060635393282, 0.20940341220849684],
    [-74.19170063704195, 0.18090797053034627, 0.16663131544804763, 0.2246167589396152],
    [-76.57978652261485, 0.19823863029481154, 0.139959902263694, 0.19741074434971578],
];
const VARIABLES: [&str; 4] = ["exit_metal_angle_deg", "camber_4", "camber_5", "thickness_4"];

/// Iterations between looks, and the reference stop: every figure within 1e-6 over 100 iterations.
const LOOK: usize = 10;
const REFERENCE: FigureConvergence = FigureConvergence { tolerance: 1e-6, window: 100, interval: LOOK, min_orders: 3.0, periodic: None, budget_extension: 0 };

/// One look: iteration, orders dropped, headline figures.
struct Look {
    iteration: usize,
    orders: f64,
    figures: [f64; 5],
}

/// Records the figures every [`LOOK`] iterations; stops at the reference test.
struct Recorder<'a> {
    prepared: &'a PreparedCascade,
    op: &'a OperatingPoint,
    history: ConvergenceHistory,
    samples: VecDeque<(usize, Vec<f64>)>,
    looks: Vec<Look>,
}

impl Observer for Recorder<'_> {
    fn on_iteration(&mut self, r: &IterationRecord) -> Control {
        self.history.records.push(r.clone());
        Control::Continue
    }
    fn state_interval(&self) -> Option<usize> {
        Some(LOOK)
    }
    fn on_state(&mut self, iteration: usize, state: &Solution) -> Control {
        let Ok(f) = self.prepared.figures(self.op, state) else { return Control::Continue };
        let figures = f.headline();
        let orders = self.history.orders_dropped();
        self.looks.push(Look { iteration, orders, figures });
        self.samples.push_back((iteration, figures.to_vec()));
        while self.samples.front().is_some_and(|(i, _)| iteration - i > REFERENCE.window) {
            self.samples.pop_front();
        }
        if orders >= REFERENCE.min_orders && REFERENCE.is_steady(&self.samples) {
            Control::Stop
        } else {
            Control::Continue
        }
    }
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// Largest relative change of any figure over the looks within `window` iterations before look k.
fn change(looks: &[Look], k: usize, window: usize) -> f64 {
    let now = &looks[k];
    looks[..=k]
        .iter()
        .rev()
        .take_while(|l| now.iteration - l.iteration <= window)
        .flat_map(|l| l.figures.iter().zip(&now.figures).map(|(a, b)| relative(*a, *b)))
        .fold(0.0, f64::max)
}

fn main() {
    let out = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "target/convergence-study".into()));
    std::fs::create_dir_all(&out).unwrap();
    println!("CSV files in {}", out.display());
    let blade = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap();
    let design = blade.design.as_ref().unwrap();
    let space = design.design_space();
    let op = blade.operating_point("MUR47").unwrap().clone();
    let setup = CascadeSetup::new(&blade, vec![op.clone()], Density::Coarse);
    let settings = SolverSettings { max_iterations: 3000, convergence_orders: 14.0, ..SolverSettings::default() };
    let backend = CpuBackend::new(None).unwrap();

    let mut runs: Vec<(String, Vec<f64>)> = vec![("baseline".into(), space.baseline.clone())];
    for (k, d) in CAMPAIGN_DESIGNS.iter().enumerate() {
        let mut x = space.baseline.clone();
        for (name, v) in VARIABLES.iter().zip(d) {
            x[space.names.iter().position(|n| n == name).unwrap()] = *v;
        }
        runs.push((format!("design{}", k + 1), x));
    }

    let mut warm: Option<(Solution, f64)> = None;
    let mut summary = Vec::new();
    for (name, x) in &runs {
        let prepared = PreparedCascade::new(&blade, BladeChoice::Design(x), &setup).expect("meshes");
        let (initial, reference) = match &warm {
            Some((s, r)) => (s.resampled(&prepared.block_sizes()).unwrap(), Some(*r)),
            None => (prepared.cold_start(&op), None),
        };
        let mut config = settings.solver_config();
        config.residual_reference = reference;
        let case = Case { gas: prepared.gas, operating_point: op.clone(), solver: config };
        let mut rec = Recorder { prepared: &prepared, op: &op, history: ConvergenceHistory::with_reference(reference), samples: VecDeque::new(), looks: vec![] };
        let t = std::time::Instant::now();
        let (outcome, _) = solve_case(&backend, &prepared.mesh, case, &initial, &mut rec).expect("solves");
        println!("{name}: {} iterations, {:.2} orders, {:.0} s", outcome.iterations, outcome.history.orders_dropped(), t.elapsed().as_secs_f64());
        if warm.is_none() {
            warm = Some((outcome.solution.clone(), outcome.history.density_reference()));
        }
        let looks = rec.looks;
        let last = looks.last().expect("looks").figures;
        let mut csv = std::fs::File::create(out.join(format!("{name}.csv"))).unwrap();
        writeln!(csv, "iteration,orders,entropy_rise,exit_angle_deg,loss,mass_flow,exit_mis,error_max,error_entropy,change30,change50,change100").unwrap();
        for (k, l) in looks.iter().enumerate() {
            let errors: Vec<f64> = l.figures.iter().zip(&last).map(|(a, b)| relative(*a, *b)).collect();
            let f = l.figures;
            writeln!(
                csv,
                "{},{:.4},{:.9e},{:.9e},{:.9e},{:.9e},{:.9e},{:.3e},{:.3e},{:.3e},{:.3e},{:.3e}",
                l.iteration,
                l.orders,
                f[0],
                f[1],
                f[2],
                f[3],
                f[4],
                errors.iter().fold(0.0, |a: f64, b| a.max(*b)),
                errors[0],
                change(&looks, k, 30),
                change(&looks, k, 50),
                change(&looks, k, 100)
            )
            .unwrap();
        }
        summary.push((name.clone(), looks, last));
    }

    // What a stop would leave: the first look at which the test passes, its error.
    println!("\nstop rule -> (iteration, orders, max relative error of the 5 figures) per run");
    let first_error = |looks: &[Look], last: &[f64; 5], pass: &dyn Fn(usize) -> bool| {
        let k = (0..looks.len()).find(|&k| pass(k)).unwrap_or(looks.len() - 1);
        let l = &looks[k];
        (l.iteration, l.orders, l.figures.iter().zip(last).map(|(a, b)| relative(*a, *b)).fold(0.0, f64::max))
    };
    for orders in [4.0, 5.0, 6.0] {
        let row: Vec<String> = summary
            .iter()
            .map(|(_, looks, last)| {
                let (i, o, e) = first_error(looks, last, &|k| looks[k].orders >= orders);
                format!("{i} {o:.2} {e:.2e}")
            })
            .collect();
        println!("residual {orders} orders: {}", row.join(" | "));
    }
    for window in [30, 50, 100] {
        for tol in [1e-3, 3e-4, 1e-4, 3e-5, 1e-5] {
            let row: Vec<String> = summary
                .iter()
                .map(|(_, looks, last)| {
                    let (i, o, e) = first_error(looks, last, &|k| looks[k].orders >= 3.0 && looks[k].iteration >= window && change(looks, k, window) <= tol);
                    format!("{i} {o:.2} {e:.2e}")
                })
                .collect();
            println!("window {window}, tolerance {tol:.0e}: {}", row.join(" | "));
        }
    }
}
