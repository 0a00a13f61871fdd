//! Output transformations for the objective's Kriging model, chosen automatically.
//!
//! A steep, badly scaled objective (values spanning orders of magnitude, a narrow valley under
//! a high plateau) is a poor fit for a stationary Gaussian process: the model spends its
//! length scales on the plateau and predicts the valley badly. Modelling z = ln(y - y_min + delta)
//! instead flattens the plateau and stretches the valley. Whether that helps is decided by the
//! data: every candidate is fitted by maximum likelihood and compared by its likelihood of the
//! *original* outputs, the Gaussian process likelihood of z plus the log-Jacobian
//! sum ln dz/dy (Box & Cox 1964, "An analysis of transformations", JRSS B 26; the same
//! criterion as Snelson, Rasmussen & Ghahramani 2004, "Warped Gaussian processes").
//! The transformations are increasing, so minimizing z minimizes y and expected improvement
//! can be computed on z.

use serde::{Deserialize, Serialize};

/// Which transformation the objective model uses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, Default)]
pub enum OutputTransform {
    /// Pick by likelihood among the identity and three logarithms (the default).
    #[default]
    Auto,
    Identity,
    /// z = ln(y - y_min + delta), delta = `relative_shift` times the range of y.
    Log { relative_shift: f64 },
}

/// The shifts of the automatic choice's logarithms, relative to the range of the outputs:
/// from nearly the plain logarithm of the gap to the best (1e-3) to a mild compression (1).
pub const AUTO_SHIFTS: [f64; 3] = [1e-3, 1e-1, 1.0];

/// A transformation fixed on one data set (its y_min and delta).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fitted {
    Identity,
    Log { y_min: f64, delta: f64 },
}

impl Fitted {
    /// The logarithm with its shift set from the data `y`.
    pub fn log(y: &[f64], relative_shift: f64) -> Fitted {
        let y_min = y.iter().copied().fold(f64::INFINITY, f64::min);
        let y_max = y.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = if y_max > y_min { y_max - y_min } else { 1.0 };
        Fitted::Log { y_min, delta: relative_shift * range }
    }

    /// z(y). Below the data's minimum (a prediction, a constant-liar value) the logarithm is
    /// continued linearly so that it stays increasing and finite.
    pub fn apply(&self, y: f64) -> f64 {
        match *self {
            Fitted::Identity => y,
            Fitted::Log { y_min, delta } => {
                let gap = y - y_min + delta;
                if gap >= delta {
                    gap.ln()
                } else {
                    delta.ln() + (gap - delta) / delta
                }
            }
        }
    }

    /// sum over the data of ln dz/dy: the Jacobian term of the likelihood of y.
    pub fn log_jacobian(&self, y: &[f64]) -> f64 {
        match *self {
            Fitted::Identity => 0.0,
            Fitted::Log { y_min, delta } => y.iter().map(|v| -(v - y_min + delta).max(delta).ln()).sum(),
        }
    }

    /// The candidates an [`OutputTransform`] stands for on data `y`.
    pub fn candidates(choice: OutputTransform, y: &[f64]) -> Vec<Fitted> {
        match choice {
            OutputTransform::Identity => vec![Fitted::Identity],
            OutputTransform::Log { relative_shift } => vec![Fitted::log(y, relative_shift)],
            OutputTransform::Auto => {
                std::iter::once(Fitted::Identity).chain(AUTO_SHIFTS.iter().map(|&s| Fitted::log(y, s))).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_is_increasing_through_the_continuation() {
        let t = Fitted::log(&[1.0, 3.0, 101.0], 1e-2);
        let ys = [-5.0, 0.0, 0.999, 1.0, 1.5, 3.0, 101.0];
        for w in ys.windows(2) {
            assert!(t.apply(w[0]) < t.apply(w[1]), "{w:?}");
        }
        // Continuous at the data's minimum.
        assert!((t.apply(1.0 - 1e-12) - t.apply(1.0)).abs() < 1e-9);
        // ln dz/dy at y = y_min is -ln(delta), delta = 1 here.
        assert!((t.log_jacobian(&[1.0]) - 0.0).abs() < 1e-12);
    }
}
