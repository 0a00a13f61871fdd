//! Ordinary Kriging (thesis section 7.2.1, eq. 7.1-7.5; Jones 2001, "A taxonomy of global
//! optimization methods based on response surfaces").
//!
//! Inputs are scaled to the unit cube and outputs standardized before fitting. The correlation
//! is Gaussian, R_ij = exp(-sum_l 10^psi_l (x_i^l - x_j^l)^2) (thesis eq. 7.1 with p = 2), or
//! a tensor product of 1-D Matern 5/2 kernels in h_l = sqrt(10^psi_l) |x_i^l - x_j^l|. The
//! hyperparameters psi = log10(theta), one per dimension, maximize the concentrated
//! log-likelihood (eq. 7.5) phi = -n/2 ln(sigma^2) - 1/2 ln|R|, where mu and sigma^2 are the
//! closed-form estimates of eq. 7.2-7.3, plus, if set, the log of a Gamma prior on the
//! correlation lengths ([`LengthScalePrior`]: maximum a posteriori, which keeps few-sample fits
//! from declaring coordinates irrelevant; the Kriging optimizer's default). The optimizer is argmin's L-BFGS with the analytic
//! gradient (below), multi-started, on a tanh map that keeps psi inside its range.
//!
//! Gradient of the concentrated likelihood: with alpha = R^-1 (y - 1 mu),
//! d phi / d psi_k = 1/2 sum_ij (alpha_i alpha_j / sigma^2 - (R^-1)_ij) dR_ij/d psi_k
//! (the mu-derivative drops out because mu minimizes the quadratic form). One Cholesky plus one
//! explicit inverse gives every component in O(n^2 d).
//!
//! A small nugget on the diagonal keeps the Cholesky factorization stable; it costs an
//! interpolation error of nugget * |alpha_i| at the samples.

use argmin::core::{CostFunction, Error as ArgminError, Executor, Gradient, State};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Mutex;

use super::lhs::latin_hypercube;
use crate::error::{Error, Result};

/// Correlation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Correlation {
    /// exp(-h^2): infinitely smooth (thesis eq. 7.1, p = 2).
    Gaussian,
    /// (1 + sqrt5 h + 5/3 h^2) exp(-sqrt5 h): twice differentiable, better conditioned.
    Matern52,
}

/// Fitting settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KrigingSettings {
    pub correlation: Correlation,
    /// Added to the diagonal of R (relative to the unit diagonal).
    pub nugget: f64,
    /// Number of likelihood-optimization starts (the first at psi = 0, the others from a LHS).
    pub starts: usize,
    /// Limit per start on L-BFGS iterations and, separately, on likelihood evaluations (line
    /// searches in ill-conditioned regions can otherwise take hundreds of evaluations).
    pub max_iterations: u64,
    /// Range of psi = log10(theta) for the unit-cube inputs.
    pub log10_theta_range: (f64, f64),
    /// Seeds the multi-start points (and the subsample).
    pub seed: u64,
    /// Above this many samples, the multi-start search runs on a random subsample of
    /// `subsample_size` samples, and only its optimum is refined on all of them
    /// (`refine_evaluations` likelihood evaluations). One factorization costs n^3 / 3, so
    /// multi-starting on 150 of 500 samples costs 1/37 of multi-starting on all.
    #[serde(default = "default_subsample_above")]
    pub subsample_above: usize,
    #[serde(default = "default_subsample_size")]
    pub subsample_size: usize,
    #[serde(default = "default_refine_evaluations")]
    pub refine_evaluations: u64,
    /// Prior on the correlation lengths: the hyperparameters maximize likelihood + ln prior
    /// (maximum a posteriori) instead of the likelihood alone. `None` (the default here):
    /// maximum likelihood. The Kriging optimizer sets [`LengthScalePrior::BOTORCH`]: a fit of
    /// hundreds of samples of a smooth function with long lengths is hurt by it (Rosenbrock-9D
    /// on [-2, 2]^9, 500 samples, Matern 5/2: test RMSE 54.2 against 8.43 without it).
    #[serde(default)]
    pub length_scale_prior: Option<LengthScalePrior>,
}

/// Gamma(shape, rate) prior on every correlation length l_k of the unit-cube inputs, where
/// R = exp(-d^2 / (2 l^2)) (Gaussian: l = (2 theta)^-1/2) or the Matern 5/2 factor in d / l
/// (l = theta^-1/2). With few samples the likelihood alone often puts whole coordinates at the
/// longest length allowed (psi = -3: l = 22 box widths), declaring them irrelevant on a handful
/// of points, which sends expected improvement along the box faces (Hartmann-6 with 12 samples:
/// three of six coordinates). The prior's mode l = (shape - 1) / rate lies inside the box and
/// its tail bars lengths of many box widths unless the data insist; with hundreds of samples
/// the likelihood dominates it. Gamma(3, 6) is the default length-scale prior of BoTorch's
/// single-task GP (Balandat et al. 2020, "BoTorch", NeurIPS), for inputs in the unit cube and
/// standardized outputs, as here.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LengthScalePrior {
    pub shape: f64,
    pub rate: f64,
}

impl LengthScalePrior {
    /// Gamma(3, 6): mode 1/3, mean 1/2 box width.
    pub const BOTORCH: LengthScalePrior = LengthScalePrior { shape: 3.0, rate: 6.0 };

    /// ln p(psi) summed over the coordinates, as a density in psi = log10(theta) (the Gamma
    /// density of l times |dl/dpsi| = l ln10 / 2), and its gradient in psi.
    fn log_density(&self, correlation: Correlation, psi: &[f64]) -> (f64, Vec<f64>) {
        let c = match correlation {
            Correlation::Gaussian => std::f64::consts::FRAC_1_SQRT_2,
            Correlation::Matern52 => 1.0,
        };
        let mut total = 0.0;
        let grad = psi
            .iter()
            .map(|p| {
                let l = c * 10f64.powf(-0.5 * p);
                total += self.shape * l.ln() - self.rate * l;
                // d/dpsi (shape ln l - rate l) with dl/dpsi = -l ln10 / 2.
                -(self.shape - self.rate * l) * 0.5 * LN_10
            })
            .collect();
        (total, grad)
    }
}

fn default_subsample_above() -> usize {
    250
}
fn default_subsample_size() -> usize {
    150
}
fn default_refine_evaluations() -> u64 {
    20
}

impl Default for KrigingSettings {
    fn default() -> Self {
        KrigingSettings {
            correlation: Correlation::Gaussian,
            nugget: 1e-12,
            starts: 4,
            max_iterations: 60,
            log10_theta_range: (-3.0, 2.5),
            seed: 0,
            subsample_above: default_subsample_above(),
            subsample_size: default_subsample_size(),
            refine_evaluations: default_refine_evaluations(),
            length_scale_prior: None,
        }
    }
}

/// Predicted mean and variance (the Kriging mean squared error) at one point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    pub mean: f64,
    pub variance: f64,
}

impl Prediction {
    pub fn std_dev(&self) -> f64 {
        self.variance.max(0.0).sqrt()
    }
}

/// A fitted ordinary Kriging model.
#[derive(Clone, Debug)]
pub struct Kriging {
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Samples scaled to the unit cube, row-major n x d.
    x: Vec<f64>,
    /// Raw outputs (kept for refits with added samples).
    y_raw: Vec<f64>,
    n: usize,
    d: usize,
    y_mean: f64,
    y_std: f64,
    settings: KrigingSettings,
    log10_theta: Vec<f64>,
    theta: Vec<f64>,
    fit: Factorization,
}

/// Everything the likelihood and the predictor need at one theta (standardized units).
#[derive(Clone, Debug)]
struct Factorization {
    /// Cholesky factor of R, lower triangle of a row-major n x n array.
    chol: Vec<f64>,
    /// L^-1 1.
    u: Vec<f64>,
    /// R^-1 (y - 1 mu).
    alpha: Vec<f64>,
    mu: f64,
    sigma2: f64,
    log_likelihood: f64,
}

impl Kriging {
    /// Fit a model to samples `x` (in the box `[lower, upper]`) and outputs `y`, with
    /// hyperparameters by maximum likelihood.
    pub fn fit(x: &[Vec<f64>], y: &[f64], lower: &[f64], upper: &[f64], settings: &KrigingSettings) -> Result<Kriging> {
        Kriging::fit_from(x, y, lower, upper, settings, None)
    }

    /// [`Kriging::fit`] with `start` (psi = log10(theta), e.g. the previous fit's) as an extra
    /// first start of the likelihood search: refits after a few added samples move little.
    pub fn fit_from(
        x: &[Vec<f64>],
        y: &[f64],
        lower: &[f64],
        upper: &[f64],
        settings: &KrigingSettings,
        start: Option<&[f64]>,
    ) -> Result<Kriging> {
        let data = Data::new(x, y, lower, upper, settings)?;
        let start = start.filter(|s| s.len() == data.d);
        let psi = data.maximize_likelihood(start)?;
        data.into_model(psi)
    }

    /// Fit with given hyperparameters psi = log10(theta) (no likelihood optimization).
    pub fn fit_with_hyperparameters(
        x: &[Vec<f64>],
        y: &[f64],
        lower: &[f64],
        upper: &[f64],
        log10_theta: &[f64],
        settings: &KrigingSettings,
    ) -> Result<Kriging> {
        let data = Data::new(x, y, lower, upper, settings)?;
        if log10_theta.len() != data.d {
            return Err(Error::Other(format!("{} hyperparameters for {} dimensions", log10_theta.len(), data.d)));
        }
        data.into_model(log10_theta.to_vec())
    }

    /// The same model (same hyperparameters) refitted with extra samples: the kriging-believer
    /// step of a batch infill, and cheap (one factorization).
    pub fn with_added_samples(&self, x_new: &[Vec<f64>], y_new: &[f64]) -> Result<Kriging> {
        let mut x = self.samples();
        x.extend_from_slice(x_new);
        let mut y = self.y_raw.clone();
        y.extend_from_slice(y_new);
        Kriging::fit_with_hyperparameters(&x, &y, &self.lower, &self.upper, &self.log10_theta, &self.settings)
    }

    /// The samples in the original units.
    pub fn samples(&self) -> Vec<Vec<f64>> {
        self.x
            .chunks(self.d)
            .map(|u| u.iter().zip(self.lower.iter().zip(&self.upper)).map(|(v, (l, h))| l + v * (h - l)).collect())
            .collect()
    }

    pub fn log10_theta(&self) -> &[f64] {
        &self.log10_theta
    }
    /// Concentrated log-likelihood (eq. 7.5) at the fitted hyperparameters, standardized outputs.
    pub fn log_likelihood(&self) -> f64 {
        self.fit.log_likelihood
    }
    /// The concentrated log-likelihood of the outputs in their own units (not standardized):
    /// comparable between models of differently transformed outputs once the transformation's
    /// log-Jacobian is added (see [`transform`](super::transform)).
    pub fn log_likelihood_of_outputs(&self) -> f64 {
        self.fit.log_likelihood - self.n as f64 * self.y_std.ln()
    }
    /// The outputs the model was fitted to.
    pub fn outputs(&self) -> &[f64] {
        &self.y_raw
    }
    /// Process variance sigma^2 (eq. 7.3) in output units squared.
    pub fn process_variance(&self) -> f64 {
        self.fit.sigma2 * self.y_std * self.y_std
    }
    pub fn len(&self) -> usize {
        self.n
    }
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Predicted mean (eq. 7.4) and mean squared error (Jones 2001, eq. 12) at `x`.
    pub fn predict(&self, x: &[f64]) -> Prediction {
        let xs: Vec<f64> = x.iter().zip(self.lower.iter().zip(&self.upper)).map(|(v, (l, h))| (v - l) / (h - l)).collect();
        let mut d2 = vec![0.0; self.d];
        let r: Vec<f64> = (0..self.n)
            .map(|i| {
                for k in 0..self.d {
                    d2[k] = (xs[k] - self.x[i * self.d + k]).powi(2);
                }
                correlation(self.settings.correlation, &self.theta, &d2)
            })
            .collect();
        let f = &self.fit;
        let mean = f.mu + dot(&r, &f.alpha);
        let z = forward_substitution(&f.chol, self.n, &r);
        let uu = dot(&f.u, &f.u);
        let one_minus = 1.0 - dot(&f.u, &z);
        let mse = f.sigma2 * (1.0 - dot(&z, &z) + one_minus * one_minus / uu);
        Prediction { mean: self.y_mean + self.y_std * mean, variance: (mse * self.y_std * self.y_std).max(0.0) }
    }

    /// Leave-one-out residuals y_i - yhat_{-i}(x_i) in closed form (Dubrule 1983): with
    /// Q = R^-1 - R^-1 1 1^T R^-1 / (1^T R^-1 1), the residual is (Q y)_i / Q_ii = alpha_i / Q_ii,
    /// the same as refitting without sample i at fixed hyperparameters.
    pub fn leave_one_out_residuals(&self) -> Vec<f64> {
        let n = self.n;
        let t = inverse_factor_transposed(&self.fit.chol, n);
        let rinv_one = backward_substitution(&self.fit.chol, n, &self.fit.u);
        let uu = dot(&self.fit.u, &self.fit.u);
        (0..n)
            .map(|i| {
                let rinv_ii = dot(&t[i * n + i..(i + 1) * n], &t[i * n + i..(i + 1) * n]);
                let q_ii = rinv_ii - rinv_one[i] * rinv_one[i] / uu;
                self.y_std * self.fit.alpha[i] / q_ii
            })
            .collect()
    }

    /// Root mean square of the leave-one-out residuals.
    pub fn leave_one_out_rmse(&self) -> f64 {
        let r = self.leave_one_out_residuals();
        (r.iter().map(|e| e * e).sum::<f64>() / r.len() as f64).sqrt()
    }
}

/// Correlation of two points from their squared coordinate differences `d2`.
/// Gaussian: exp(-sum_k theta_k d_k^2) (eq. 7.1, p = 2). Matern 5/2 as a tensor product of 1-D
/// kernels (as in DiceKriging, SMT and egobox): prod_k (1 + sqrt5 h_k + 5/3 h_k^2) exp(-sqrt5 h_k)
/// with h_k = sqrt(theta_k d_k^2).
fn correlation(kind: Correlation, theta: &[f64], d2: &[f64]) -> f64 {
    match kind {
        Correlation::Gaussian => (-theta.iter().zip(d2).map(|(t, v)| t * v).sum::<f64>()).exp(),
        Correlation::Matern52 => {
            let (mut poly, mut s_sum) = (1.0, 0.0);
            for (t, v) in theta.iter().zip(d2) {
                let h2 = t * v;
                let s = (5.0 * h2).sqrt();
                poly *= 1.0 + s + 5.0 / 3.0 * h2;
                s_sum += s;
            }
            poly * (-s_sum).exp()
        }
    }
}

/// d R / d theta_k for every k, given R = `r` (the pair's correlation).
fn correlation_slopes(kind: Correlation, theta: &[f64], d2: &[f64], r: f64, out: &mut [f64]) {
    match kind {
        Correlation::Gaussian => {
            for (o, v) in out.iter_mut().zip(d2) {
                *o = -r * v;
            }
        }
        Correlation::Matern52 => {
            // d/dtheta of the 1-D factor m(h), h = sqrt(theta d^2), divided by m(h):
            // -5/6 d^2 (1 + sqrt5 h) / (1 + sqrt5 h + 5/3 h^2).
            for ((o, t), v) in out.iter_mut().zip(theta).zip(d2) {
                let h2 = t * v;
                let s = (5.0 * h2).sqrt();
                *o = -r * 5.0 / 6.0 * v * (1.0 + s) / (1.0 + s + 5.0 / 3.0 * h2);
            }
        }
    }
}

/// Scaled samples with their pairwise squared differences, ready for likelihood evaluations.
struct Data<'s> {
    x: Vec<f64>,
    y_raw: Vec<f64>,
    y: Vec<f64>,
    y_mean: f64,
    y_std: f64,
    n: usize,
    d: usize,
    lower: Vec<f64>,
    upper: Vec<f64>,
    settings: &'s KrigingSettings,
    /// Squared coordinate differences of pair (i, j), j < i, at index (i (i - 1) / 2 + j) d + k.
    pair_d2: Vec<f64>,
}

fn pair_index(i: usize, j: usize) -> usize {
    i * (i - 1) / 2 + j
}

impl<'s> Data<'s> {
    fn new(x: &[Vec<f64>], y: &[f64], lower: &[f64], upper: &[f64], settings: &'s KrigingSettings) -> Result<Self> {
        let bad = |m: String| Err(Error::Other(format!("Kriging: {m}")));
        let n = x.len();
        let d = lower.len();
        if n < 2 || y.len() != n {
            return bad(format!("need at least 2 samples with one output each, got {n} samples and {} outputs", y.len()));
        }
        if d == 0 || upper.len() != d || (0..d).any(|k| !(lower[k] < upper[k])) {
            return bad("bounds must be non-empty intervals of equal dimension".into());
        }
        if let Some(i) = x.iter().position(|p| p.len() != d || p.iter().any(|v| !v.is_finite())) {
            return bad(format!("sample {i} has the wrong dimension or a non-finite coordinate"));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return bad(format!("output {i} is not finite"));
        }
        if !(settings.nugget >= 0.0) || settings.log10_theta_range.0 >= settings.log10_theta_range.1 {
            return bad(format!("nugget {} or psi range {:?} invalid", settings.nugget, settings.log10_theta_range));
        }
        let xs: Vec<f64> = x.iter().flat_map(|p| (0..d).map(move |k| (p[k] - lower[k]) / (upper[k] - lower[k]))).collect();
        let y_mean = y.iter().sum::<f64>() / n as f64;
        let var = y.iter().map(|v| (v - y_mean).powi(2)).sum::<f64>() / n as f64;
        let y_std = if var > 0.0 { var.sqrt() } else { 1.0 };
        let ys = y.iter().map(|v| (v - y_mean) / y_std).collect();
        let mut pair_d2 = vec![0.0; n * (n - 1) / 2 * d];
        pair_d2.par_chunks_mut(d).enumerate().for_each(|(p, out)| {
            let (i, j) = pair_from_index(p);
            for k in 0..d {
                out[k] = (xs[i * d + k] - xs[j * d + k]).powi(2);
            }
        });
        Ok(Data {
            x: xs,
            y_raw: y.to_vec(),
            y: ys,
            y_mean,
            y_std,
            n,
            d,
            lower: lower.to_vec(),
            upper: upper.to_vec(),
            settings,
            pair_d2,
        })
    }

    /// Lower triangle (with diagonal 1 + nugget) of the correlation matrix, row-major n x n.
    fn correlation_matrix(&self, theta: &[f64]) -> Vec<f64> {
        let (n, d) = (self.n, self.d);
        let mut r = vec![0.0; n * n];
        let kind = self.settings.correlation;
        r.par_chunks_mut(n).enumerate().with_min_len(16).for_each(|(i, row)| {
            for j in 0..i {
                let p = pair_index(i, j) * d;
                row[j] = correlation(kind, theta, &self.pair_d2[p..p + d]);
            }
            row[i] = 1.0 + self.settings.nugget;
        });
        r
    }

    /// Factorize and evaluate the concentrated likelihood at psi; `None` if R is not positive
    /// definite in floating point.
    fn factorize(&self, theta: &[f64]) -> Option<Factorization> {
        self.factorize_matrix(self.correlation_matrix(theta))
    }

    /// [`Data::factorize`] of a correlation matrix already built (`correlation_matrix`).
    fn factorize_matrix(&self, mut chol: Vec<f64>) -> Option<Factorization> {
        let n = self.n;
        cholesky_in_place(&mut chol, n)?;
        let u = forward_substitution(&chol, n, &vec![1.0; n]);
        let v = forward_substitution(&chol, n, &self.y);
        let uu = dot(&u, &u);
        let mu = dot(&u, &v) / uu; // eq. 7.2
        let w: Vec<f64> = v.iter().zip(&u).map(|(vi, ui)| vi - mu * ui).collect();
        let sigma2 = (dot(&w, &w) / n as f64).max(1e-300); // eq. 7.3
        let log_det: f64 = 2.0 * (0..n).map(|i| chol[i * n + i].ln()).sum::<f64>();
        let log_likelihood = -0.5 * n as f64 * sigma2.ln() - 0.5 * log_det; // eq. 7.5
        let alpha = backward_substitution(&chol, n, &w);
        Some(Factorization { chol, u, alpha, mu, sigma2, log_likelihood })
    }

    /// d phi / d psi_k for every k (formula in the module notes); `r`: the correlation matrix
    /// `f` factorizes, whose pair values the slopes reuse instead of evaluating them again.
    fn log_likelihood_gradient(&self, theta: &[f64], f: &Factorization, r: &[f64]) -> Vec<f64> {
        let (n, d) = (self.n, self.d);
        let t = inverse_factor_transposed(&f.chol, n);
        let kind = self.settings.correlation;
        let per_row: Vec<Vec<f64>> = (1..n)
            .into_par_iter()
            .with_min_len(8)
            .map(|i| {
                let mut g = vec![0.0; d];
                let mut slopes = vec![0.0; d];
                for j in 0..i {
                    // (R^-1)_ij = sum over m >= i of (L^-1)_mi (L^-1)_mj, rows of t = (L^-1)^T.
                    let rinv_ij = dot(&t[i * n + i..(i + 1) * n], &t[j * n + i..(j + 1) * n]);
                    let w_ij = f.alpha[i] * f.alpha[j] / f.sigma2 - rinv_ij;
                    let d2 = &self.pair_d2[pair_index(i, j) * d..(pair_index(i, j) + 1) * d];
                    correlation_slopes(kind, theta, d2, r[i * n + j], &mut slopes);
                    for k in 0..d {
                        g[k] += w_ij * slopes[k];
                    }
                }
                g
            })
            .collect();
        // Sum over i > j counts each symmetric pair once, which cancels the 1/2.
        (0..d).map(|k| LN_10 * theta[k] * per_row.iter().map(|g| g[k]).sum::<f64>()).collect()
    }

    fn maximize_likelihood(&self, first: Option<&[f64]>) -> Result<Vec<f64>> {
        if self.n > self.settings.subsample_above && self.settings.subsample_size >= 2 {
            return self.maximize_likelihood_by_subsample(first);
        }
        let (lo, hi) = self.settings.log10_theta_range;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.settings.seed);
        let mut starts = vec![vec![0.0f64.clamp(lo, hi); self.d]];
        starts.extend(first.map(|f| f.iter().map(|p| p.clamp(lo, hi)).collect()));
        for u in latin_hypercube(self.settings.starts.saturating_sub(1), self.d, &mut rng) {
            starts.push(u.iter().map(|v| lo + 0.25 * (hi - lo) + v * 0.6 * (hi - lo)).collect());
        }
        let results: Vec<Option<(f64, Vec<f64>)>> = starts.par_iter().map(|s| self.local_search(s)).collect();
        results
            .into_iter()
            .flatten()
            .fold(None, |best: Option<(f64, Vec<f64>)>, c| match best {
                Some(b) if b.0 >= c.0 => Some(b),
                _ => Some(c),
            })
            .map(|(_, psi)| psi)
            .ok_or_else(|| Error::Other("Kriging: correlation matrix not positive definite at any start".into()))
    }

    /// Multi-start on a random subsample, then L-BFGS on all samples from its optimum (and
    /// from `first`, when given).
    fn maximize_likelihood_by_subsample(&self, first: Option<&[f64]>) -> Result<Vec<f64>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.settings.seed ^ 0x5b5a_3b1e);
        let mut picked: Vec<usize> = (0..self.n).collect();
        picked.shuffle(&mut rng);
        picked.truncate(self.settings.subsample_size.min(self.n));
        let x: Vec<Vec<f64>> = picked.iter().map(|&i| self.x[i * self.d..(i + 1) * self.d].to_vec()).collect();
        let y: Vec<f64> = picked.iter().map(|&i| self.y_raw[i]).collect();
        // The samples are already in the unit cube, where psi is defined.
        let sub = Data::new(&x, &y, &vec![0.0; self.d], &vec![1.0; self.d], self.settings)?;
        let mut starts = vec![sub.maximize_likelihood(first)?];
        starts.extend(first.map(|f| f.to_vec()));
        let limit = self.settings.refine_evaluations;
        let refined: Vec<(f64, Vec<f64>)> = starts.iter().filter_map(|s| self.local_search_limited(s, limit)).collect();
        refined
            .into_iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, psi)| psi)
            .ok_or_else(|| Error::Other("Kriging: correlation matrix not positive definite at the subsample's optimum".into()))
    }

    /// One L-BFGS run from `psi0`; returns the best (log-likelihood + ln prior, psi) it evaluated.
    fn local_search(&self, psi0: &[f64]) -> Option<(f64, Vec<f64>)> {
        self.local_search_limited(psi0, self.settings.max_iterations)
    }

    /// [`Data::local_search`] with at most `max_evaluations` likelihood evaluations.
    fn local_search_limited(&self, psi0: &[f64], max_evaluations: u64) -> Option<(f64, Vec<f64>)> {
        let problem = LikelihoodProblem {
            data: self,
            memo: Mutex::new(None),
            best: Mutex::new(None),
            evaluations: AtomicU64::new(0),
            max_evaluations,
        };
        let z0 = problem.to_z(psi0);
        let solver = LBFGS::new(MoreThuenteLineSearch::new(), 7)
            .with_tolerance_grad(1e-6)
            .and_then(|s| s.with_tolerance_cost(1e-10));
        if let Ok(solver) = solver {
            // A failed line search ends this start; the best point seen so far is kept.
            let _ = Executor::new(&problem, solver)
                .configure(|s| s.param(z0.clone()).max_iters(max_evaluations))
                .timer(false)
                .run()
                .map(|r| r.state().get_iter());
        }
        let best = problem.best.lock().map(|b| b.clone()).unwrap_or(None);
        best.or_else(|| {
            let theta: Vec<f64> = psi0.iter().map(|p| 10f64.powf(*p)).collect();
            self.factorize(&theta).map(|f| (f.log_likelihood + self.log_prior(psi0).0, psi0.to_vec()))
        })
    }

    /// ln prior of psi and its gradient (zero without a prior).
    fn log_prior(&self, psi: &[f64]) -> (f64, Vec<f64>) {
        match self.settings.length_scale_prior {
            Some(prior) => prior.log_density(self.settings.correlation, psi),
            None => (0.0, vec![0.0; psi.len()]),
        }
    }

    fn into_model(self, psi: Vec<f64>) -> Result<Kriging> {
        let theta: Vec<f64> = psi.iter().map(|p| 10f64.powf(*p)).collect();
        let fit = self
            .factorize(&theta)
            .ok_or_else(|| Error::Other("Kriging: correlation matrix not positive definite; raise the nugget".into()))?;
        Ok(Kriging {
            lower: self.lower,
            upper: self.upper,
            x: self.x,
            y_raw: self.y_raw,
            n: self.n,
            d: self.d,
            y_mean: self.y_mean,
            y_std: self.y_std,
            settings: self.settings.clone(),
            log10_theta: psi,
            theta,
            fit,
        })
    }
}

fn pair_from_index(p: usize) -> (usize, usize) {
    // Largest i with i (i - 1) / 2 <= p.
    let mut i = ((1.0 + (1.0 + 8.0 * p as f64).sqrt()) / 2.0) as usize;
    while i * (i - 1) / 2 > p {
        i -= 1;
    }
    while (i + 1) * i / 2 <= p {
        i += 1;
    }
    (i, p - i * (i - 1) / 2)
}

/// (z, -phi(z), its gradient in z).
type CostAndGradient = (Vec<f64>, f64, Vec<f64>);

/// -phi as an argmin problem in z, with psi = c + h tanh(z) inside the allowed range.
struct LikelihoodProblem<'a, 's> {
    data: &'a Data<'s>,
    /// Last (z, cost, gradient): cost and gradient are asked for at the same points.
    memo: Mutex<Option<CostAndGradient>>,
    best: Mutex<Option<(f64, Vec<f64>)>>,
    evaluations: AtomicU64,
    max_evaluations: u64,
}

impl LikelihoodProblem<'_, '_> {
    fn centre_half(&self) -> (f64, f64) {
        let (lo, hi) = self.data.settings.log10_theta_range;
        (0.5 * (lo + hi), 0.5 * (hi - lo))
    }
    fn to_z(&self, psi: &[f64]) -> Vec<f64> {
        let (c, h) = self.centre_half();
        psi.iter().map(|p| ((p - c) / h).clamp(-0.999, 0.999).atanh()).collect()
    }
    fn evaluate(&self, z: &[f64]) -> std::result::Result<(f64, Vec<f64>), ArgminError> {
        if let Ok(memo) = self.memo.lock() {
            if let Some((mz, c, g)) = memo.as_ref() {
                if mz.as_slice() == z {
                    return Ok((*c, g.clone()));
                }
            }
        }
        if self.evaluations.fetch_add(1, AtomicOrdering::Relaxed) >= self.max_evaluations {
            return Err(ArgminError::msg("likelihood evaluation budget of this start spent"));
        }
        let (c, h) = self.centre_half();
        let psi: Vec<f64> = z.iter().map(|v| c + h * v.tanh()).collect();
        let theta: Vec<f64> = psi.iter().map(|p| 10f64.powf(*p)).collect();
        let r = self.data.correlation_matrix(&theta);
        let f = self.data.factorize_matrix(r.clone()).ok_or_else(|| ArgminError::msg("correlation matrix not positive definite"))?;
        // Maximum a posteriori: the likelihood plus the length-scale prior.
        let (log_prior, prior_gradient) = self.data.log_prior(&psi);
        let g_psi: Vec<f64> =
            self.data.log_likelihood_gradient(&theta, &f, &r).iter().zip(&prior_gradient).map(|(g, p)| g + p).collect();
        let objective = f.log_likelihood + log_prior;
        let cost = -objective;
        let grad: Vec<f64> = z.iter().zip(&g_psi).map(|(v, g)| -g * h * (1.0 - v.tanh().powi(2))).collect();
        if let Ok(mut best) = self.best.lock() {
            if best.as_ref().is_none_or(|b| objective > b.0) {
                *best = Some((objective, psi));
            }
        }
        if let Ok(mut memo) = self.memo.lock() {
            *memo = Some((z.to_vec(), cost, grad.clone()));
        }
        Ok((cost, grad))
    }
}

impl CostFunction for &LikelihoodProblem<'_, '_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, z: &Vec<f64>) -> std::result::Result<f64, ArgminError> {
        self.evaluate(z).map(|(c, _)| c)
    }
}

impl Gradient for &LikelihoodProblem<'_, '_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, z: &Vec<f64>) -> std::result::Result<Vec<f64>, ArgminError> {
        self.evaluate(z).map(|(_, g)| g)
    }
}

/// Dot product with independent partial sums so that the compiler vectorizes it.
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[4]) + (acc[1] + acc[5]) + (acc[2] + acc[6]) + (acc[3] + acc[7]) + tail
}

/// Diagonal-block size of the blocked Cholesky factorization.
const BLOCK: usize = 64;

/// In-place Cholesky factorization of the lower triangle of a row-major n x n matrix (the
/// strict upper triangle is scratch space). Right-looking and blocked (Golub & Van Loan,
/// "Matrix Computations", 4th ed., alg. 4.2.10): factor a diagonal block, solve the panel below
/// it, and update the trailing matrix with one matrix product, which nalgebra hands to
/// matrixmultiply's cache-blocked SIMD kernels; that update is where the O(n^3) work is.
fn cholesky_in_place(a: &mut [f64], n: usize) -> Option<()> {
    let mut k = 0;
    while k < n {
        let e = (k + BLOCK).min(n);
        cholesky_block(a, n, k, e)?;
        if e < n {
            solve_panel(a, n, k, e);
            update_trailing(a, n, k, e);
        }
        k = e;
    }
    Some(())
}

/// Cholesky-Crout by rows of the diagonal block k..e (earlier columns already eliminated):
/// every entry is one contiguous dot product of two row segments.
fn cholesky_block(a: &mut [f64], n: usize, k: usize, e: usize) -> Option<()> {
    for i in k..e {
        let (done, rest) = a.split_at_mut(i * n);
        let row_i = &mut rest[..n];
        for j in k..i {
            let row_j = &done[j * n..j * n + j + 1];
            let s = row_i[j] - dot(&row_i[k..j], &row_j[k..j]);
            row_i[j] = s / row_j[j];
        }
        let s = row_i[i] - dot(&row_i[k..i], &row_i[k..i]);
        if !(s > 0.0) {
            return None;
        }
        row_i[i] = s.sqrt();
    }
    Some(())
}

/// L21 = A21 L11^-T for the rows below the block, one independent forward solve per row.
fn solve_panel(a: &mut [f64], n: usize, k: usize, e: usize) {
    let (top, bottom) = a.split_at_mut(e * n);
    let top = &*top;
    bottom.par_chunks_mut(n).with_min_len(16).for_each(|row| {
        for j in k..e {
            let l_j = &top[j * n..j * n + j + 1];
            row[j] = (row[j] - dot(&row[k..j], &l_j[k..j])) / l_j[j];
        }
    });
}

/// A22 -= L21 L21^T. Read as column-major, the row-major buffer is its transpose, in which the
/// panel L21 (rows e.., columns k..e) is the block (k..e, e..) and A22 is (e.., e..).
fn update_trailing(a: &mut [f64], n: usize, k: usize, e: usize) {
    let m = n - e;
    let panel_t = nalgebra::DMatrixView::from_slice(a, n, n).view((k, e), (e - k, m)).into_owned();
    let panel = panel_t.transpose();
    let mut whole = nalgebra::DMatrixViewMut::from_slice(a, n, n);
    whole.view_mut((e, e), (m, m)).gemm(-1.0, &panel, &panel_t, 1.0);
}

/// Solve L z = b.
fn forward_substitution(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut z = vec![0.0; n];
    for i in 0..n {
        z[i] = (b[i] - dot(&l[i * n..i * n + i], &z[..i])) / l[i * n + i];
    }
    z
}

/// Solve L^T x = z.
fn backward_substitution(l: &[f64], n: usize, z: &[f64]) -> Vec<f64> {
    let mut x = z.to_vec();
    for i in (0..n).rev() {
        x[i] /= l[i * n + i];
        let xi = x[i];
        for (xk, lik) in x[..i].iter_mut().zip(&l[i * n..i * n + i]) {
            *xk -= lik * xi;
        }
    }
    x
}

/// (L^-1)^T as a row-major n x n array: row j holds column j of L^-1 (zero before j).
fn inverse_factor_transposed(l: &[f64], n: usize) -> Vec<f64> {
    let mut t = vec![0.0; n * n];
    t.par_chunks_mut(n).enumerate().with_min_len(8).for_each(|(j, m)| {
        m[j] = 1.0 / l[j * n + j];
        for k in j + 1..n {
            m[k] = -dot(&l[k * n + j..k * n + k], &m[j..k]) / l[k * n + k];
        }
    });
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branin_data(n: usize, seed: u64) -> (Vec<Vec<f64>>, Vec<f64>) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let x: Vec<Vec<f64>> =
            latin_hypercube(n, 2, &mut rng).iter().map(|u| vec![-5.0 + 15.0 * u[0], 15.0 * u[1]]).collect();
        let y = x.iter().map(|p| crate::eval::analytic::branin(p[0], p[1])).collect();
        (x, y)
    }

    #[test]
    fn pair_indexing_round_trips() {
        for i in 1..40 {
            for j in 0..i {
                assert_eq!(pair_from_index(pair_index(i, j)), (i, j));
            }
        }
    }

    #[test]
    fn cholesky_and_inverse_match_nalgebra() {
        let n = 150; // more than two blocks
        let m = nalgebra::DMatrix::<f64>::from_fn(n, n, |i, j| ((i * 7 + j * 3) % 11) as f64 / 11.0);
        let spd = &m * m.transpose() + nalgebra::DMatrix::<f64>::identity(n, n);
        let mut a: Vec<f64> = (0..n * n).map(|p| spd[(p / n, p % n)]).collect();
        cholesky_in_place(&mut a, n).unwrap();
        let reference = nalgebra::Cholesky::new(spd.clone()).unwrap();
        let inv = reference.inverse();
        let t = inverse_factor_transposed(&a, n);
        for i in 0..n {
            for j in 0..=i {
                assert!((a[i * n + j] - reference.l()[(i, j)]).abs() < 1e-12);
                let rinv = dot(&t[i * n + i..(i + 1) * n], &t[j * n + i..(j + 1) * n]);
                assert!((rinv - inv[(i, j)]).abs() < 1e-10, "{rinv} vs {}", inv[(i, j)]);
            }
        }
    }

    #[test]
    fn analytic_gradient_matches_finite_differences() {
        let (x, y) = branin_data(15, 1);
        for correlation in [Correlation::Gaussian, Correlation::Matern52] {
            let st = KrigingSettings { correlation, ..Default::default() };
            let data = Data::new(&x, &y, &[-5.0, 0.0], &[10.0, 15.0], &st).unwrap();
            let psi = [0.3, -0.4];
            let phi = |p: &[f64]| {
                let th: Vec<f64> = p.iter().map(|v| 10f64.powf(*v)).collect();
                data.factorize(&th).unwrap().log_likelihood
            };
            let th: Vec<f64> = psi.iter().map(|v| 10f64.powf(*v)).collect();
            let r = data.correlation_matrix(&th);
            let g = data.log_likelihood_gradient(&th, &data.factorize_matrix(r.clone()).unwrap(), &r);
            for k in 0..2 {
                // Central differences; below h ~ 1e-5 round-off in ln|R| dominates.
                let h = 1e-4;
                let mut p = psi;
                p[k] += h;
                let up = phi(&p);
                p[k] -= 2.0 * h;
                let fd = (up - phi(&p)) / (2.0 * h);
                assert!((g[k] - fd).abs() < 1e-5 * fd.abs().max(1.0), "{correlation:?} k={k}: {} vs {fd}", g[k]);
            }
        }
    }

    #[test]
    fn length_scale_prior_gradient_matches_finite_differences_and_peaks_at_its_mode() {
        let prior = LengthScalePrior { shape: 3.0, rate: 6.0 };
        for correlation in [Correlation::Gaussian, Correlation::Matern52] {
            let psi = [-2.0, 0.3, 1.5];
            let (_, g) = prior.log_density(correlation, &psi);
            for k in 0..3 {
                let h = 1e-6;
                let mut p = psi;
                p[k] += h;
                let up = prior.log_density(correlation, &p).0;
                p[k] -= 2.0 * h;
                let fd = (up - prior.log_density(correlation, &p).0) / (2.0 * h);
                assert!((g[k] - fd).abs() < 1e-6 * fd.abs().max(1.0), "{correlation:?} k={k}: {} vs {fd}", g[k]);
            }
        }
        // In psi the density peaks where l = shape / rate = 0.5 (Gaussian: theta = 2).
        let (_, g) = prior.log_density(Correlation::Gaussian, &[2f64.log10()]);
        assert!(g[0].abs() < 1e-12, "{}", g[0]);
        // A length of 22 box widths (psi = -3) is far less likely than one of half a width.
        let (long, _) = prior.log_density(Correlation::Gaussian, &[-3.0]);
        let (mode, _) = prior.log_density(Correlation::Gaussian, &[2f64.log10()]);
        assert!(mode - long > 100.0, "{mode} {long}");
    }

    #[test]
    fn leave_one_out_closed_form_equals_refits() {
        let (x, y) = branin_data(12, 2);
        let st = KrigingSettings::default();
        let model = Kriging::fit(&x, &y, &[-5.0, 0.0], &[10.0, 15.0], &st).unwrap();
        let loo = model.leave_one_out_residuals();
        for i in 0..x.len() {
            let xs: Vec<Vec<f64>> = x.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, p)| p.clone()).collect();
            let ys: Vec<f64> = y.iter().enumerate().filter(|(k, _)| *k != i).map(|(_, v)| *v).collect();
            // Same psi; the refit restandardizes y, which Kriging's predictions are invariant to.
            let refit = Kriging::fit_with_hyperparameters(&xs, &ys, &[-5.0, 0.0], &[10.0, 15.0], model.log10_theta(), &st).unwrap();
            let direct = y[i] - refit.predict(&x[i]).mean;
            assert!((loo[i] - direct).abs() < 1e-6 * (1.0 + direct.abs()), "sample {i}: {} vs {direct}", loo[i]);
        }
    }

    #[test]
    fn bad_data_is_an_error() {
        let st = KrigingSettings::default();
        assert!(Kriging::fit(&[vec![0.0]], &[1.0], &[0.0], &[1.0], &st).is_err());
        assert!(Kriging::fit(&[vec![0.0], vec![0.5]], &[1.0, f64::NAN], &[0.0], &[1.0], &st).is_err());
        assert!(Kriging::fit(&[vec![0.0], vec![0.5, 1.0]], &[1.0, 2.0], &[0.0], &[1.0], &st).is_err());
    }
}
