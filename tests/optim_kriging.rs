//! Ordinary Kriging: interpolation of noise-free samples, prediction quality, fit time.

mod common;

use rand::SeedableRng;
use std::time::Instant;
use turbopt::eval::analytic::{branin, hartmann6, rosenbrock};
use turbopt::optim::kriging::{Correlation, Kriging, KrigingSettings};
use turbopt::optim::lhs::{latin_hypercube, scale_to_box};

fn samples(n: usize, lower: &[f64], upper: &[f64], seed: u64) -> Vec<Vec<f64>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    latin_hypercube(n, lower.len(), &mut rng).iter().map(|u| scale_to_box(u, lower, upper)).collect()
}

/// Largest |prediction - sample| over the samples, relative to the output range.
fn interpolation_error(model: &Kriging, x: &[Vec<f64>], y: &[f64]) -> f64 {
    let range = y.iter().cloned().fold(f64::MIN, f64::max) - y.iter().cloned().fold(f64::MAX, f64::min);
    common::largest(x.iter().zip(y).map(|(p, v)| (model.predict(p).mean - v).abs() / range))
}

#[test]
fn interpolates_noise_free_samples_to_1e_8() {
    let cases: [(&str, Vec<f64>, Vec<f64>, fn(&[f64]) -> f64, usize); 2] = [
        ("Branin", vec![-5.0, 0.0], vec![10.0, 15.0], |p| branin(p[0], p[1]), 20),
        ("Hartmann-6", vec![0.0; 6], vec![1.0; 6], hartmann6, 60),
    ];
    for (name, lower, upper, f, n) in cases {
        let x = samples(n, &lower, &upper, 5);
        let y: Vec<f64> = x.iter().map(|p| f(p)).collect();
        for correlation in [Correlation::Gaussian, Correlation::Matern52] {
            let st = KrigingSettings { correlation, ..Default::default() };
            let model = Kriging::fit(&x, &y, &lower, &upper, &st).unwrap();
            let err = interpolation_error(&model, &x, &y);
            println!("{name} {correlation:?}: max relative interpolation error {err:.2e}, psi {:?}", model.log10_theta());
            assert!(err < 1e-8, "{name} {correlation:?}: {err:e}");
            // The predicted variance vanishes at the samples (up to the nugget).
            let v = model.predict(&x[0]).variance / model.process_variance();
            assert!(v < 1e-6, "{name} {correlation:?}: variance {v:e} at a sample");
        }
    }
}

#[test]
fn predicts_branin_between_samples() {
    let (lower, upper) = (vec![-5.0, 0.0], vec![10.0, 15.0]);
    let x = samples(40, &lower, &upper, 9);
    let y: Vec<f64> = x.iter().map(|p| branin(p[0], p[1])).collect();
    let model = Kriging::fit(&x, &y, &lower, &upper, &KrigingSettings::default()).unwrap();
    let test = samples(200, &lower, &upper, 10);
    let rmse = (test.iter().map(|p| (model.predict(p).mean - branin(p[0], p[1])).powi(2)).sum::<f64>() / 200.0).sqrt();
    let spread = (y.iter().map(|v| v * v).sum::<f64>() / 40.0).sqrt();
    println!("Branin, 40 samples: test RMSE {rmse:.3}, LOO RMSE {:.3}, RMS of f {spread:.1}", model.leave_one_out_rmse());
    assert!(rmse < 0.02 * spread, "{rmse}");
}

/// Rows of `x1,..,xd,y` (header line skipped).
fn read_csv(path: &std::path::Path) -> (Vec<Vec<f64>>, Vec<f64>) {
    let text = std::fs::read_to_string(path).unwrap();
    let rows: Vec<Vec<f64>> = text.lines().skip(1).map(|l| l.split(',').map(|v| v.trim().parse().unwrap()).collect()).collect();
    (rows.iter().map(|r| r[..r.len() - 1].to_vec()).collect(), rows.iter().map(|r| r[r.len() - 1]).collect())
}

/// Training and test data: our Latin hypercube of Rosenbrock-9D on [-2, 2]^9, or the files that
/// scripts/bench_kriging_egobox.py writes (so both libraries fit the same samples).
fn timing_data(n: usize) -> (Vec<Vec<f64>>, Vec<f64>, Vec<Vec<f64>>, Vec<f64>) {
    if let Ok(dir) = std::env::var("TURBOPT_KRIGING_BENCH_DIR") {
        let dir = std::path::Path::new(&dir);
        let (x, y) = read_csv(&dir.join(format!("train_{n}.csv")));
        let (xt, yt) = read_csv(&dir.join("test.csv"));
        return (x, y, xt, yt);
    }
    let (lower, upper) = (vec![-2.0; 9], vec![2.0; 9]);
    let x = samples(n, &lower, &upper, 1);
    let y = x.iter().map(|p| rosenbrock(p)).collect();
    let xt = samples(500, &lower, &upper, 2);
    let yt = xt.iter().map(|p| rosenbrock(p)).collect();
    (x, y, xt, yt)
}

/// Fit time and test RMSE of one fit.
fn timed_fit(x: &[Vec<f64>], y: &[f64], xt: &[Vec<f64>], yt: &[f64], lower: &[f64], upper: &[f64], st: &KrigingSettings) -> (f64, f64, Kriging) {
    let t = Instant::now();
    let model = Kriging::fit(x, y, lower, upper, st).unwrap();
    let secs = t.elapsed().as_secs_f64();
    let rmse = (xt.iter().zip(yt).map(|(p, v)| (model.predict(p).mean - v).powi(2)).sum::<f64>() / xt.len() as f64).sqrt();
    (secs, rmse, model)
}

#[test]
#[ignore = "benchmark: Kriging fit time on 200 and 500 samples in 9-D, with and without the subsample start, ~30 s on 2 cores"]
fn fit_time_9d() {
    let (lower, upper) = (vec![-2.0; 9], vec![2.0; 9]);
    for n in [200, 500] {
        let (x, y, xt, yt) = timing_data(n);
        for correlation in [Correlation::Gaussian, Correlation::Matern52] {
            // "full": the multi-start on all samples, as before the subsample start existed.
            let full = KrigingSettings { correlation, subsample_above: usize::MAX, ..Default::default() };
            let (full_s, full_rmse, _) = timed_fit(&x, &y, &xt, &yt, &lower, &upper, &full);
            let st = KrigingSettings { correlation, ..Default::default() };
            let (secs, rmse, model) = timed_fit(&x, &y, &xt, &yt, &lower, &upper, &st);
            println!(
                "KRIGING_FIT n={n} d=9 correlation={correlation:?} seconds={secs:.3} test_rmse={rmse:.4e} loglik={:.3} full_multistart_seconds={full_s:.3} full_multistart_test_rmse={full_rmse:.4e}",
                model.log_likelihood()
            );
            // A fit that predicts worse than the mean of the test values is broken.
            let mean = yt.iter().sum::<f64>() / yt.len() as f64;
            let spread = (yt.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / yt.len() as f64).sqrt();
            assert!(rmse < spread, "n = {n}, {correlation:?}: test RMSE {rmse:e} not below the spread {spread:e} of the test values");
            assert!(rmse <= 1.05 * full_rmse, "n = {n}, {correlation:?}: test RMSE {rmse:e} against {full_rmse:e} with the full multi-start");
        }
    }
}

#[test]
fn subsample_start_predicts_as_well_as_the_full_multistart() {
    // 300 samples of Hartmann-6: above the subsample threshold, small enough for a fast test.
    let (lower, upper) = (vec![0.0; 6], vec![1.0; 6]);
    let x = samples(300, &lower, &upper, 3);
    let y: Vec<f64> = x.iter().map(|p| hartmann6(p)).collect();
    let xt = samples(300, &lower, &upper, 4);
    let yt: Vec<f64> = xt.iter().map(|p| hartmann6(p)).collect();
    let full = KrigingSettings { subsample_above: usize::MAX, ..Default::default() };
    let (full_s, full_rmse, _) = timed_fit(&x, &y, &xt, &yt, &lower, &upper, &full);
    let (secs, rmse, _) = timed_fit(&x, &y, &xt, &yt, &lower, &upper, &KrigingSettings::default());
    println!("Hartmann-6, 300 samples: subsample start {secs:.3} s, RMSE {rmse:.4e}; full multi-start {full_s:.3} s, RMSE {full_rmse:.4e}");
    assert!(rmse <= 1.05 * full_rmse, "{rmse:e} against {full_rmse:e}");
}
