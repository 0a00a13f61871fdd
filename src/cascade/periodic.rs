//! Periodic flows: a solve whose residual has stopped falling because the flow oscillates
//! (trailing-edge vortex shedding, a breathing separation) never passes the steady-figures
//! test, yet its figures have a well-defined mean. The rule here answers such a point with
//! its figures averaged over whole periods, once that average is steady, and records the
//! oscillation so that a user sees it (docs/periodic-flows.md).
//!
//! The rule, applied at a look at the figures when the steady test failed:
//! 1. the density residual has dropped at least `min_orders` (the start-up transient is over)
//!    and fell less than `plateau_orders` over the last `window` iterations (a residual still
//!    falling is left to converge);
//! 2. the period is the first peak of the autocorrelation of the detrended log residual
//!    (one value per iteration, so periods shorter than the look interval are found too)
//!    after its first zero crossing, if that peak reaches [`PERIODIC_CORRELATION`]; without
//!    one the oscillation is irregular and the whole window is averaged;
//! 3. the averaging span is the largest even number of whole periods inside the window, and
//!    the means of every watched figure over its two halves agree within `mean_tolerance` of
//!    the mean over the span. The answer is the mean of the figures over the span.

use super::prepare::PointFigures;
use serde::{Deserialize, Serialize};

/// The periodic-average rule (module notes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PeriodicAverage {
    /// Iterations the rule looks back over first; the averaging span is the whole periods
    /// inside it.
    pub window: usize,
    /// Where the means over `window` do not agree, the rule looks back over twice as many
    /// iterations, and so on up to this many: a slow or irregular oscillation needs more
    /// periods for a steady mean (the T106C blade at Re 200k on its fine mesh).
    pub longest_window: usize,
    /// Largest difference of a figure's means over the span's two halves, relative to its
    /// mean over the span.
    pub mean_tolerance: f64,
    /// Orders the density residual must have dropped before the rule applies.
    pub min_orders: f64,
    /// Largest drop of the density residual over the window (orders) for it to count as a
    /// plateau.
    pub plateau_orders: f64,
}

impl Default for PeriodicAverage {
    fn default() -> Self {
        PeriodicAverage { window: 400, longest_window: 1600, mean_tolerance: 1e-3, min_orders: 2.0, plateau_orders: 0.5 }
    }
}

/// Smallest autocorrelation of the residual at its period for the oscillation to count as
/// periodic rather than irregular.
pub const PERIODIC_CORRELATION: f64 = 0.5;

/// Smallest number of looks at the figures in each half of the averaging span.
const MIN_LOOKS_PER_HALF: usize = 4;

impl PeriodicAverage {
    pub fn validate(&self) -> Result<(), String> {
        if self.window < 40 {
            return Err(format!("periodic window = {} must be at least 40 iterations", self.window));
        }
        if self.longest_window < self.window {
            return Err(format!("periodic longest_window = {} must be at least the window ({})", self.longest_window, self.window));
        }
        if !(self.mean_tolerance.is_finite() && self.mean_tolerance > 0.0) {
            return Err(format!("periodic mean_tolerance = {} must be finite and positive", self.mean_tolerance));
        }
        if !(self.min_orders.is_finite() && self.min_orders >= 0.0 && self.plateau_orders.is_finite() && self.plateau_orders >= 0.0) {
            return Err(format!("periodic min_orders = {} and plateau_orders = {} must be finite and >= 0", self.min_orders, self.plateau_orders));
        }
        Ok(())
    }
}

/// How a point's flow oscillated, recorded with its averaged answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Oscillation {
    /// The operating point.
    pub point: String,
    /// Period in iterations (pseudo-time steps), when the residual had one; `None`: irregular.
    pub period: Option<usize>,
    /// Iterations the figures were averaged over (whole periods).
    pub averaged_iterations: usize,
    /// Half the peak-to-peak swing of each headline figure over the span (entropy rise, exit
    /// angle, loss coefficient, mass flow, exit isentropic Mach number), relative to its mean.
    pub amplitude: [f64; 5],
}

impl Oscillation {
    /// The largest relative amplitude of the headline figures.
    pub fn largest_amplitude(&self) -> f64 {
        self.amplitude.iter().copied().fold(0.0, f64::max)
    }

    pub fn describe(&self) -> String {
        let period = match self.period {
            Some(p) => format!("period {p} iterations"),
            None => "irregular".to_string(),
        };
        format!("{}: periodic flow ({period}), figures averaged over {} iterations, amplitude up to {:.2e} of the mean", self.point, self.averaged_iterations, self.largest_amplitude())
    }
}

/// One look at the flow: its iteration, the watched figures and the whole post-processing.
#[derive(Clone, Debug)]
pub struct Look {
    pub iteration: usize,
    pub watched: Vec<f64>,
    pub figures: PointFigures,
}

/// The rule's answer: the averaged figures and the oscillation.
#[derive(Clone, Debug)]
pub struct PeriodicAnswer {
    pub figures: PointFigures,
    pub oscillation: Oscillation,
}

impl PeriodicAverage {
    /// The rule at iteration `now`: `log_residual` holds log10 of the density residual of
    /// every iteration up to `now` (oldest first), `orders` the orders dropped so far, `looks`
    /// the looks of the last [`Self::history_needed`] iterations (oldest first). Each window
    /// of [`Self::windows`] is tried in turn. `None` while the rule does not hold.
    pub fn answer(&self, point: &str, now: usize, log_residual: &[f64], orders: f64, looks: &[Look]) -> Option<PeriodicAnswer> {
        if orders < self.min_orders {
            return None;
        }
        self.windows().find_map(|window| self.answer_over(window, point, now, log_residual, looks))
    }

    /// Iterations the rule looks back over, in turn: `window`, doubled up to `longest_window`.
    pub fn windows(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(Some(self.window), |w| Some(2 * w)).take_while(|&w| w <= self.longest_window.max(self.window))
    }

    /// Iterations of history the rule needs: the longest of its windows.
    pub fn history_needed(&self) -> usize {
        self.windows().last().unwrap_or(self.window)
    }

    /// Whether the residual has dropped `min_orders` and is on a plateau over the last
    /// `window` iterations of `log_residual` (oldest first): step 1 of the rule.
    pub fn on_plateau(&self, log_residual: &[f64], orders: f64) -> bool {
        orders >= self.min_orders && log_residual.len() >= self.window && is_plateau(&log_residual[log_residual.len() - self.window..], self.plateau_orders)
    }

    /// The rule over the last `window` iterations.
    fn answer_over(&self, window: usize, point: &str, now: usize, log_residual: &[f64], looks: &[Look]) -> Option<PeriodicAnswer> {
        if log_residual.len() < window {
            return None;
        }
        let recent = &log_residual[log_residual.len() - window..];
        if !is_plateau(recent, self.plateau_orders) {
            return None;
        }
        let period = residual_period(recent);
        let span = match period {
            Some(p) => 2 * p * (window / (2 * p)),
            None => window,
        };
        if span == 0 {
            return None;
        }
        let (first, second): (Vec<&Look>, Vec<&Look>) =
            looks.iter().filter(|l| l.iteration + span > now).partition(|l| l.iteration + span / 2 <= now);
        if first.len() < MIN_LOOKS_PER_HALF || second.len() < MIN_LOOKS_PER_HALF {
            return None;
        }
        let all: Vec<&Look> = first.iter().chain(&second).copied().collect();
        let (m1, m2, m) = (mean_watched(&first), mean_watched(&second), mean_watched(&all));
        let steady_mean = m.iter().zip(m1.iter().zip(&m2)).all(|(c, (a, b))| c.abs() > 0.0 && (a - b).abs() <= self.mean_tolerance * c.abs());
        if !steady_mean {
            return None;
        }
        let figures: Vec<&PointFigures> = all.iter().map(|l| &l.figures).collect();
        let mean = PointFigures::mean(&figures);
        let amplitude = relative_amplitude(&figures, &mean.headline());
        Some(PeriodicAnswer { figures: mean, oscillation: Oscillation { point: point.to_string(), period, averaged_iterations: span, amplitude } })
    }
}

/// Whether the log residual fell less than `orders` over the window: the mean of its last
/// quarter against the mean of its first.
fn is_plateau(log_residual: &[f64], orders: f64) -> bool {
    let q = (log_residual.len() / 4).max(1);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    mean(&log_residual[..q]) - mean(&log_residual[log_residual.len() - q..]) < orders
}

/// The period of `signal` (module notes, step 2): the first local maximum of its
/// autocorrelation after the first zero crossing that reaches [`PERIODIC_CORRELATION`],
/// searched up to a third of its length, after removing its straight-line trend.
pub fn residual_period(signal: &[f64]) -> Option<usize> {
    let n = signal.len();
    if n < 12 {
        return None;
    }
    let x = detrended(signal);
    let energy = x.iter().map(|v| v * v).sum::<f64>() / n as f64;
    if !(energy > 0.0) {
        return None;
    }
    // Unbiased estimate: each lag's sum over its own number of pairs.
    let r = |lag: usize| x.iter().zip(&x[lag..]).map(|(a, b)| a * b).sum::<f64>() / ((n - lag) as f64 * energy);
    let max_lag = n / 3;
    let corr: Vec<f64> = (0..=max_lag + 1).map(r).collect();
    let zero = (1..=max_lag).find(|&l| corr[l] <= 0.0)?;
    (zero + 1..=max_lag).find(|&l| corr[l] >= PERIODIC_CORRELATION && corr[l] >= corr[l - 1] && corr[l] >= corr[l + 1])
}

/// `signal` less its least-squares straight line.
fn detrended(signal: &[f64]) -> Vec<f64> {
    let n = signal.len() as f64;
    let t_mean = (n - 1.0) / 2.0;
    let y_mean = signal.iter().sum::<f64>() / n;
    let (mut sty, mut stt) = (0.0, 0.0);
    for (k, y) in signal.iter().enumerate() {
        let t = k as f64 - t_mean;
        sty += t * (y - y_mean);
        stt += t * t;
    }
    let slope = if stt > 0.0 { sty / stt } else { 0.0 };
    signal.iter().enumerate().map(|(k, y)| y - y_mean - slope * (k as f64 - t_mean)).collect()
}

fn mean_watched(looks: &[&Look]) -> Vec<f64> {
    let n = looks.len() as f64;
    let mut m = vec![0.0; looks[0].watched.len()];
    for l in looks {
        for (a, v) in m.iter_mut().zip(&l.watched) {
            *a += v / n;
        }
    }
    m
}

/// Half the peak-to-peak swing of each headline figure, relative to its mean.
fn relative_amplitude(figures: &[&PointFigures], mean: &[f64; 5]) -> [f64; 5] {
    let mut amplitude = [0.0; 5];
    for (k, a) in amplitude.iter_mut().enumerate() {
        let (lo, hi) = figures.iter().map(|f| f.headline()[k]).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
        *a = if mean[k] != 0.0 { 0.5 * (hi - lo) / mean[k].abs() } else { 0.0 };
    }
    amplitude
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(n: usize, period: f64, noise_seed: u64) -> Vec<f64> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(noise_seed);
        (0..n).map(|k| -5.0 + 0.3 * (2.0 * std::f64::consts::PI * k as f64 / period).sin() + 0.05 * rng.random_range(-1.0..1.0)).collect()
    }

    #[test]
    fn the_period_of_a_noisy_sine_on_a_drift_is_found() {
        for period in [7.0, 23.0, 61.0, 97.5] {
            let mut s = sine(400, period, 3);
            for (k, v) in s.iter_mut().enumerate() {
                *v -= 1e-3 * k as f64;
            }
            let p = residual_period(&s).unwrap_or_else(|| panic!("no period found for {period}"));
            assert!((p as f64 - period).abs() <= 1.0, "period {period}: found {p}");
        }
    }

    fn figures(entropy_rise: f64) -> PointFigures {
        use crate::post::{BladeSide, CascadePerformance, PlaneAverages, SurfacePoint};
        let plane = PlaneAverages { mass_flow: 2.0, entropy: 1.0, total_pressure: 1e5, flow_angle_deg: -70.0, static_pressure: 8e4, length: 0.05 };
        let performance = CascadePerformance { entropy_rise, exit_angle_deg: -73.0, loss_coefficient: 0.05, mass_flow: 2.0, exit_isentropic_mach: 0.9, loss_coefficient_at_measurement_plane: 0.05, inlet: plane, outlet: plane };
        let surface = vec![SurfacePoint { x: 0.0, y: 0.0, x_from_le: 0.0, side: BladeSide::Suction, p: 1e5 + entropy_rise, mis: 0.5, cf: 1e-3, eddy_viscosity_ratio: 0.0 }];
        PointFigures { performance, surface }
    }

    /// A limit cycle of `period` iterations: residual and entropy rise oscillate about their
    /// means (the entropy rise by `amplitude` of 0.014), looked at every 10 iterations.
    fn limit_cycle(period: f64, amplitude: f64, drift: f64, iterations: usize) -> (Vec<f64>, Vec<Look>) {
        let phase = |k: usize| (2.0 * std::f64::consts::PI * k as f64 / period).sin();
        let log_residual: Vec<f64> = (1..=iterations).map(|k| -6.0 + 0.4 * phase(k)).collect();
        let looks = (1..=iterations)
            .filter(|k| k % 10 == 0)
            .map(|k| {
                let f = figures(0.014 * (1.0 + amplitude * phase(k) + drift * k as f64));
                Look { iteration: k, watched: f.headline().to_vec(), figures: f }
            })
            .collect();
        (log_residual, looks)
    }

    #[test]
    fn a_limit_cycle_is_answered_with_its_mean_over_whole_periods() {
        let rule = PeriodicAverage::default();
        for period in [37.0, 90.0, 8.0] {
            let (log_residual, looks) = limit_cycle(period, 0.02, 0.0, 1000);
            let window: Vec<Look> = looks.into_iter().filter(|l| l.iteration + rule.window > 1000).collect();
            let answer = rule.answer("P", 1000, &log_residual[1000 - rule.window..], 4.0, &window).expect("a steady limit cycle is answered");
            assert!(answer.oscillation.period.is_some_and(|p| (p as f64 - period).abs() <= 1.0), "{period}: {:?}", answer.oscillation);
            let mean = answer.figures.performance.entropy_rise;
            assert!((mean / 0.014 - 1.0).abs() < 2e-3, "{period}: mean {mean}");
            assert!((answer.oscillation.amplitude[0] - 0.02).abs() < 2e-3, "{:?}", answer.oscillation.amplitude);
            assert!((answer.figures.surface[0].p - (1e5 + mean)).abs() < 1e-8, "surface pressure averaged with the figures");
        }
        // A mean still drifting, a residual still falling or too few orders: no answer yet.
        let (log_residual, looks) = limit_cycle(37.0, 0.02, 2e-5, 1000);
        let window: Vec<Look> = looks.into_iter().filter(|l| l.iteration + rule.window > 1000).collect();
        assert!(rule.answer("P", 1000, &log_residual[600..], 4.0, &window).is_none());
        let falling: Vec<f64> = (0..400).map(|k| -0.01 * k as f64).collect();
        assert!(rule.answer("P", 1000, &falling, 4.0, &window).is_none());
        let (log_residual, looks) = limit_cycle(37.0, 0.02, 0.0, 1000);
        let window: Vec<Look> = looks.into_iter().filter(|l| l.iteration + rule.window > 1000).collect();
        assert!(rule.answer("P", 1000, &log_residual[600..], 1.5, &window).is_none());
    }

    #[test]
    fn a_slow_oscillation_is_answered_over_a_longer_window() {
        let rule = PeriodicAverage::default();
        let (log_residual, looks) = limit_cycle(530.0, 0.02, 0.0, 2000);
        let kept: Vec<Look> = looks.into_iter().filter(|l| l.iteration + rule.history_needed() > 2000).collect();
        let recent = &log_residual[2000 - rule.history_needed()..];
        let answer = rule.answer("P", 2000, recent, 4.0, &kept).expect("answered over 1,600 iterations");
        assert!(answer.oscillation.averaged_iterations > rule.window, "{:?}", answer.oscillation);
        assert!((answer.figures.performance.entropy_rise / 0.014 - 1.0).abs() < 2e-3, "{}", answer.figures.performance.entropy_rise);
        let short = PeriodicAverage { longest_window: rule.window, ..rule };
        assert!(short.answer("P", 2000, recent, 4.0, &kept).is_none(), "the means over 400 iterations of a 530-iteration cycle differ");
        assert_eq!(rule.windows().collect::<Vec<_>>(), vec![400, 800, 1600]);
    }

    #[test]
    fn a_plateau_is_seen_over_the_window_past_the_orders_floor() {
        let rule = PeriodicAverage::default();
        let (log_residual, _) = limit_cycle(37.0, 0.02, 0.0, 1000);
        assert!(rule.on_plateau(&log_residual, 4.0));
        assert!(!rule.on_plateau(&log_residual, 1.5), "too few orders dropped");
        assert!(!rule.on_plateau(&log_residual[..300], 4.0), "less history than the window");
        let falling: Vec<f64> = (0..1000).map(|k| -0.01 * k as f64).collect();
        assert!(!rule.on_plateau(&falling, 4.0));
    }

    #[test]
    fn noise_and_a_falling_residual_have_no_period() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let noise: Vec<f64> = (0..400).map(|_| rng.random_range(-1.0..1.0)).collect();
        assert_eq!(residual_period(&noise), None);
        let falling: Vec<f64> = (0..400).map(|k| -0.01 * k as f64).collect();
        assert_eq!(residual_period(&falling), None);
        assert!(!is_plateau(&falling, 0.5));
        assert!(is_plateau(&sine(400, 30.0, 1), 0.5));
    }
}
