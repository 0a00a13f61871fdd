//! The infill criteria searched on the surrogates of the 2-level optimizer.
//!
//! - Expected improvement (Jones, Schonlau & Welch 1998, "Efficient global optimization of
//!   expensive black-box functions", eq. 15) times the probability of feasibility of every
//!   constraint model and of the failure model (Schonlau, Welch & Jones 1998); the probability
//!   of feasibility alone while no feasible design is known (Sasena 2002). Computed in logs,
//!   accurate far into the tail, so that the search sees a slope where EI underflows.
//! - Lower confidence bound mu - kappa s with the constraint models' means as constraints
//!   (kappa = 0: the predicted mean, which the local refinement at the end of a run minimizes).

use argmin::core::{CostFunction, Error as ArgminError, SendAlias, SyncAlias};
use rayon::prelude::*;

use super::kriging::Kriging;
use super::problem::Bounded;
use super::transform::Fitted;
use super::{Bounds, Scored};

/// The infill criterion searched on the surrogate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Infill {
    /// Expected improvement times probability of feasibility.
    ExpectedImprovement,
    /// Minimize mu - kappa s subject to the constraint models' means being <= 0.
    LowerConfidenceBound { kappa: f64 },
}

/// The surrogate models of one cycle. The objective model is fitted to the transformed
/// objective `transform.apply(y)`; the constraint and failure models to the raw values.
#[derive(Clone)]
pub struct Surrogates {
    pub objective: Kriging,
    pub transform: Fitted,
    pub constraints: Vec<Kriging>,
    /// Kriging of the failure indicator (+1 failed, -1 ran), present once some design failed.
    pub failure: Option<Kriging>,
}

/// An infill criterion over a search box, as a cost function for DE (minimized).
pub struct Acquisition<'a> {
    pub models: &'a Surrogates,
    /// Best feasible objective so far, transformed like the objective model.
    pub f_min: Option<f64>,
    pub infill: Infill,
    pub bounds: Bounds,
    /// Designs whose neighbourhood (unit-cube distance below `radius`) the search must leave:
    /// a point inside is infeasible by `radius - distance`, which points the search outwards.
    pub keep_away: &'a [Vec<f64>],
    pub radius: f64,
}

impl Bounded for Acquisition<'_> {
    fn bounds(&self) -> &Bounds {
        &self.bounds
    }
}

impl Acquisition<'_> {
    /// Sum of ln P(g(x) <= 0) over the constraint models and the failure model.
    pub fn log_probability_of_feasibility(&self, x: &[f64]) -> f64 {
        ln_probability_of_feasibility(self.models.constraints.iter().chain(self.models.failure.as_ref()), x)
    }

    /// The criterion at `x` (smaller is better).
    pub fn value(&self, x: &[f64]) -> Scored {
        let nearest = self.keep_away.iter().map(|d| self.bounds.unit_distance(x, d)).fold(f64::INFINITY, f64::min);
        if nearest < self.radius {
            return Scored::constrained(f64::MAX, vec![self.radius - nearest]);
        }
        let p = self.models.objective.predict(x);
        match self.infill {
            Infill::ExpectedImprovement => {
                let ln_pof = self.log_probability_of_feasibility(x);
                let ln_ei = self.f_min.map_or(0.0, |f_min| ln_expected_improvement(f_min, p.mean, p.std_dev()));
                Scored::feasible(-(ln_ei + ln_pof))
            }
            Infill::LowerConfidenceBound { kappa } => {
                let means: Vec<f64> =
                    self.models.constraints.iter().chain(self.models.failure.as_ref()).map(|m| m.predict(x).mean).collect();
                Scored::constrained(p.mean - kappa * p.std_dev(), means)
            }
        }
    }
}

impl CostFunction for Acquisition<'_> {
    type Param = Vec<f64>;
    type Output = Scored;

    fn cost(&self, x: &Vec<f64>) -> Result<Scored, ArgminError> {
        Ok(self.value(x))
    }

    fn bulk_cost<P>(&self, params: &[P]) -> Result<Vec<Scored>, ArgminError>
    where
        P: std::borrow::Borrow<Vec<f64>> + SyncAlias,
        Scored: SendAlias,
        Self: SyncAlias,
    {
        Ok(values_in_parallel(params, |x| self.value(x)))
    }
}

/// A search generation's criteria (`bulk_cost` of the infill criteria) in parallel: each a
/// prediction of every model over all the designs so far, so a cycle's search grows with the
/// campaign and ran on one core between the batches. The same values in the same order as one
/// after the other. (argmin's own `bulk_cost` is parallel only under its `rayon` feature, which
/// would make every cost function parallel, Python objectives included.)
pub(super) fn values_in_parallel<P: std::borrow::Borrow<Vec<f64>>>(params: &[P], value: impl Fn(&[f64]) -> Scored + Sync) -> Vec<Scored> {
    let designs: Vec<&Vec<f64>> = params.iter().map(|p| p.borrow()).collect();
    designs.par_iter().map(|x| value(x)).collect()
}

/// Sum over `models` (constraints `g <= 0`, the failure indicator) of ln P(g(x) <= 0) under
/// each model's prediction at `x` (Schonlau, Welch & Jones 1998); a model certain of a
/// violation contributes -1000.
pub fn ln_probability_of_feasibility<'m>(models: impl Iterator<Item = &'m Kriging>, x: &[f64]) -> f64 {
    models
        .map(|m| {
            let p = m.predict(x);
            let s = p.std_dev();
            if s <= 1e-12 * p.mean.abs().max(1e-300) {
                if p.mean <= 0.0 { 0.0 } else { -1e3 }
            } else {
                ln_normal_cdf(-p.mean / s)
            }
        })
        .sum()
}

/// ln of the expected improvement below `f_min` of a normal prediction (mean `mu`, std `s`),
/// accurate far into the tail so that the search sees a slope where EI underflows.
pub fn ln_expected_improvement(f_min: f64, mu: f64, s: f64) -> f64 {
    if !(s > 1e-14 * mu.abs().max(f_min.abs()).max(1e-300)) {
        return (f_min - mu).max(1e-300).ln();
    }
    let z = (f_min - mu) / s;
    if z > -10.0 {
        // EI = s (z Phi(z) + phi(z)) (Jones et al. 1998, eq. 15).
        let v = z * ln_normal_cdf(z).exp() + normal_pdf(z);
        s.ln() + v.max(1e-300).ln()
    } else {
        // z Phi(z) + phi(z) = phi(z) / z^2 (1 - 3 / z^2 + 15 / z^4 - ...) for z -> -inf.
        s.ln() - 0.5 * z * z - 0.5 * (2.0 * std::f64::consts::PI).ln() - 2.0 * (-z).ln() + (1.0 - 3.0 / (z * z) + 15.0 / z.powi(4)).ln()
    }
}

fn normal_pdf(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// ln Phi(z) with relative accuracy ~1e-7 for all z (Phi(z) = erfc(-z / sqrt 2) / 2, erfc by the
/// Chebyshev fit of Numerical Recipes, 2nd ed., sec. 6.2, kept in log form so it never underflows).
pub fn ln_normal_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07 + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let ln_erfc_abs = t.ln() + poly; // ln erfc(|x|)
    if x >= 0.0 {
        ln_erfc_abs - std::f64::consts::LN_2
    } else {
        // erfc(x) = 2 - erfc(|x|)
        (1.0 - 0.5 * ln_erfc_abs.exp()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::optim::kriging::KrigingSettings;

    #[test]
    fn the_neighbourhood_of_kept_away_designs_is_infeasible_and_points_outwards() {
        let x: Vec<Vec<f64>> = (0..6).map(|i| vec![i as f64 / 5.0]).collect();
        let y: Vec<f64> = x.iter().map(|p| (p[0] - 0.4).powi(2)).collect();
        let objective = Kriging::fit(&x, &y, &[0.0], &[1.0], &KrigingSettings::default()).unwrap();
        let models = Surrogates { objective, transform: Fitted::Identity, constraints: vec![], failure: None };
        let keep_away = [vec![0.4]];
        let acq = Acquisition {
            models: &models,
            f_min: Some(0.0),
            infill: Infill::ExpectedImprovement,
            bounds: Bounds::cube(0.0, 1.0, 1).unwrap(),
            keep_away: &keep_away,
            radius: 0.01,
        };
        let (centre, edge, outside) = (acq.value(&[0.4]), acq.value(&[0.405]), acq.value(&[0.45]));
        assert!(!centre.is_feasible() && !edge.is_feasible() && outside.is_feasible());
        // Deb's rules prefer the point nearer the rim, so a search moves out of the ball.
        assert!(edge.deb_cmp(&centre).is_lt());
    }

    #[test]
    fn normal_cdf_values_and_tail() {
        assert!((ln_normal_cdf(0.0).exp() - 0.5).abs() < 1e-7);
        assert!((ln_normal_cdf(1.959_963_985).exp() - 0.975).abs() < 1e-7);
        assert!((ln_normal_cdf(-1.959_963_985).exp() - 0.025).abs() < 1e-8);
        // ln Phi(-30) = -454.3212439563 (Python: log(0.5 * erfc(30 / sqrt(2)))).
        assert!((ln_normal_cdf(-30.0) - (-454.321_243_956_3)).abs() < 1e-6, "{}", ln_normal_cdf(-30.0));
    }

    #[test]
    fn expected_improvement_is_continuous_across_the_tail_switch() {
        let a = ln_expected_improvement(0.0, 10.0 - 1e-9, 1.0);
        let b = ln_expected_improvement(0.0, 10.0 + 1e-9, 1.0);
        assert!((a - b).abs() < 1e-3, "{a} {b}");
        // At z = 0, EI = s phi(0).
        assert!((ln_expected_improvement(1.0, 1.0, 2.0) - (2.0 * normal_pdf(0.0)).ln()).abs() < 1e-7);
    }
}
