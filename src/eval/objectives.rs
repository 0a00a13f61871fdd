//! Objectives and constraints of the CFD evaluator, chosen in RON, and how they are computed
//! from the post-processed flow of each operating point.
//!
//! Conventions (the [`crate::eval::Evaluator`] seam): objectives are minimized; a constraint
//! value `c` is feasible when `c <= 0`. Multi-point evaluations (LS89 optimization test cases
//! 2 and 3) average each objective over the operating points, unless it names its points
//! ([`Objective::At`]: the figure at one point; [`Objective::WorstOf`]: the largest over some),
//! and give every constraint once per point, in the order point 1 constraint 1, point 1
//! constraint 2, ..., point 2 constraint 1...
//!
//! Constraint values keep the unit of the quantity they bound (degrees for angles, a fraction
//! for relative bands), so that `c` reads directly as "by how much the limit is missed".

use crate::error::{Error, Result};
use crate::post::{rms_against_measured, CascadePerformance, MeasuredMis, SurfacePoint};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A figure to minimize, averaged over the operating points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Objective {
    /// Mass-averaged entropy rise between inlet and outlet planes, normalized by
    /// P01/rho01^gamma (LS89 test case 1).
    EntropyRise,
    /// Total-pressure loss coefficient (P01 - P02) / (P01 - p2) at the outlet plane.
    LossCoefficient,
    /// Mass-averaged exit flow angle \[deg\], signed in the cascade frame (minimizing a negative
    /// angle means more turning towards -y).
    ExitAngle,
    /// Mass-averaged exit flow angle magnitude \[deg\], negated: minimizing it maximizes turning
    /// whichever way the blade turns.
    NegativeExitAngleMagnitude,
    /// Mass flow per unit span through the inlet plane [kg/(s m)].
    MassFlow,
    /// Mass flow, negated (to maximize it).
    NegativeMassFlow,
    /// Exit isentropic Mach number from the pitch-averaged static pressure at the exit
    /// measurement plane (a check figure: LS89 MUR47 is run at M2is = 1.02).
    ExitIsentropicMach,
    /// RMS difference between the blade-surface isentropic Mach number and a target
    /// distribution (a CSV in the format of `post::read_measured_mis`: side, x_mm or x, mis).
    /// A relative path is taken relative to the evaluator config file.
    MisRms { target: PathBuf },
    /// The figure at one named operating point instead of the mean over all of them
    /// (`At("MUR47", EntropyRise)`): a front between design and off-design figures.
    At(String, Box<Objective>),
    /// The largest value of the figure over the named operating points (all of them when the
    /// list is empty): the worst case (`WorstOf(["TC3_OP2_M30", "TC3_OP2_P30"], EntropyRise)`).
    WorstOf(Vec<String>, Box<Objective>),
}

/// A bound on a figure, checked at every operating point (`c <= 0` feasible).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Constraint {
    /// |alpha2| >= limit \[deg\]: c = limit - |alpha2| (LS89 test case 1: 74 deg; the vane turns
    /// the flow towards -y, so alpha2 is about -74 deg).
    ExitAngleAtLeast(f64),
    /// |alpha2| <= limit \[deg\]: c = |alpha2| - limit.
    ExitAngleAtMost(f64),
    /// Mass flow within a relative band of the baseline's at the same operating point:
    /// c = |m - m_baseline| / m_baseline - fraction.
    MassFlowWithin(f64),
    /// Loss coefficient at most `limit`: c = loss - limit.
    LossCoefficientAtMost(f64),
    /// Entropy rise at most `limit`: c = rise - limit.
    EntropyRiseAtMost(f64),
}

impl Objective {
    /// Short name for logs and the optimizer's result table.
    pub fn name(&self) -> String {
        match self {
            Objective::EntropyRise => "entropy_rise".into(),
            Objective::LossCoefficient => "loss_coefficient".into(),
            Objective::ExitAngle => "exit_angle_deg".into(),
            Objective::NegativeExitAngleMagnitude => "neg_abs_exit_angle_deg".into(),
            Objective::MassFlow => "mass_flow".into(),
            Objective::NegativeMassFlow => "neg_mass_flow".into(),
            Objective::ExitIsentropicMach => "exit_isentropic_mach".into(),
            Objective::MisRms { target } => format!("mis_rms({})", target.display()),
            Objective::At(point, figure) => format!("{}@{point}", figure.name()),
            Objective::WorstOf(points, figure) if points.is_empty() => format!("max({})", figure.name()),
            Objective::WorstOf(points, figure) => format!("max({}@{})", figure.name(), points.join(",")),
        }
    }

    /// The figure itself, without the choice of points.
    pub fn figure(&self) -> &Objective {
        match self {
            Objective::At(_, f) | Objective::WorstOf(_, f) => f.figure(),
            other => other,
        }
    }

    /// Which of `points` (the evaluator's operating points, by name) the objective reads, and
    /// how it combines them; an unknown point or a nested choice of points is an error.
    pub fn points(&self, points: &[String]) -> Result<PointChoice> {
        let index = |name: &String| {
            points.iter().position(|p| p == name).ok_or_else(|| Error::Other(format!("objective {}: no operating point {name} among {points:?}", self.name())))
        };
        let nested = |f: &Objective| matches!(f, Objective::At(..) | Objective::WorstOf(..));
        match self {
            Objective::At(_, f) | Objective::WorstOf(_, f) if nested(f) => Err(Error::Other(format!("objective {}: points chosen twice", self.name()))),
            Objective::At(name, _) => Ok(PointChoice::At(index(name)?)),
            Objective::WorstOf(names, _) if names.is_empty() => Ok(PointChoice::WorstOf((0..points.len()).collect())),
            Objective::WorstOf(names, _) => Ok(PointChoice::WorstOf(names.iter().map(index).collect::<Result<_>>()?)),
            _ => Ok(PointChoice::Mean),
        }
    }
}

/// How an objective combines the operating points' values.
#[derive(Clone, Debug, PartialEq)]
pub enum PointChoice {
    /// The mean over all points.
    Mean,
    /// The value at one point (an index into the evaluator's points).
    At(usize),
    /// The largest value over these points.
    WorstOf(Vec<usize>),
}

impl PointChoice {
    /// The objective from its value at every point.
    pub fn combine(&self, values: &[f64]) -> f64 {
        match self {
            PointChoice::Mean => values.iter().sum::<f64>() / values.len() as f64,
            PointChoice::At(k) => values[*k],
            // NaN propagates: a point without a figure gives no worst case.
            PointChoice::WorstOf(ks) => ks.iter().map(|&k| values[k]).fold(f64::NEG_INFINITY, |a, b| if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }),
        }
    }
}

impl Constraint {
    pub fn name(&self) -> String {
        match self {
            Constraint::ExitAngleAtLeast(l) => format!("abs_exit_angle>={l}"),
            Constraint::ExitAngleAtMost(l) => format!("abs_exit_angle<={l}"),
            Constraint::MassFlowWithin(f) => format!("mass_flow_within_{f}_of_baseline"),
            Constraint::LossCoefficientAtMost(l) => format!("loss_coefficient<={l}"),
            Constraint::EntropyRiseAtMost(l) => format!("entropy_rise<={l}"),
        }
    }

    /// Checks the limit itself (finite, and positive where it must be).
    pub fn validate(&self) -> Result<()> {
        let (value, positive) = match self {
            Constraint::ExitAngleAtLeast(l) | Constraint::ExitAngleAtMost(l) => (*l, true),
            Constraint::MassFlowWithin(f) => (*f, true),
            Constraint::LossCoefficientAtMost(l) | Constraint::EntropyRiseAtMost(l) => (*l, false),
        };
        if !value.is_finite() || (positive && value <= 0.0) {
            return Err(Error::Other(format!("constraint {}: limit {value} must be finite{}", self.name(), if positive { " and positive" } else { "" })));
        }
        Ok(())
    }

    /// Whether the constraint needs the baseline's figures.
    pub fn needs_baseline(&self) -> bool {
        matches!(self, Constraint::MassFlowWithin(_))
    }
}

/// What the objectives and constraints are computed from at one operating point.
pub struct PointFlow<'a> {
    pub performance: &'a CascadePerformance,
    pub surface: &'a [SurfacePoint],
}

/// An objective whose data (a target Mis distribution) has been read.
#[derive(Clone, Debug)]
pub enum ResolvedObjective {
    Plain(Objective),
    MisRms { name: String, target: Vec<MeasuredMis> },
}

impl ResolvedObjective {
    pub fn name(&self) -> String {
        match self {
            ResolvedObjective::Plain(o) => o.name(),
            ResolvedObjective::MisRms { name, .. } => name.clone(),
        }
    }

    /// The objective's value at one operating point.
    pub fn value(&self, flow: &PointFlow) -> f64 {
        let p = flow.performance;
        match self {
            ResolvedObjective::Plain(o) => match o.figure() {
                Objective::EntropyRise => p.entropy_rise,
                Objective::LossCoefficient => p.loss_coefficient,
                Objective::ExitAngle => p.exit_angle_deg,
                Objective::NegativeExitAngleMagnitude => -p.exit_angle_deg.abs(),
                Objective::MassFlow => p.mass_flow,
                Objective::NegativeMassFlow => -p.mass_flow,
                Objective::ExitIsentropicMach => p.exit_isentropic_mach,
                // Resolved into the variant below when the evaluator is built; the choice of
                // points is the caller's (`PointChoice`).
                Objective::MisRms { .. } | Objective::At(..) | Objective::WorstOf(..) => f64::NAN,
            },
            ResolvedObjective::MisRms { target, .. } => rms_against_measured(flow.surface, target).rms,
        }
    }
}

/// A constraint's value at one operating point; `baseline_mass_flow` is the baseline design's
/// mass flow at that point (needed by [`Constraint::MassFlowWithin`] only).
pub fn constraint_value(c: &Constraint, flow: &PointFlow, baseline_mass_flow: Option<f64>) -> f64 {
    let p = flow.performance;
    match c {
        Constraint::ExitAngleAtLeast(limit) => limit - p.exit_angle_deg.abs(),
        Constraint::ExitAngleAtMost(limit) => p.exit_angle_deg.abs() - limit,
        Constraint::MassFlowWithin(fraction) => match baseline_mass_flow {
            Some(m0) if m0 != 0.0 => ((p.mass_flow - m0) / m0).abs() - fraction,
            _ => f64::NAN,
        },
        Constraint::LossCoefficientAtMost(limit) => p.loss_coefficient - limit,
        Constraint::EntropyRiseAtMost(limit) => p.entropy_rise - limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objectives_at_named_points_and_the_worst_over_points() {
        let points: Vec<String> = ["M30", "MUR47", "P30"].iter().map(|s| s.to_string()).collect();
        let values = [3.0, 1.0, 2.0];
        let at = Objective::At("MUR47".into(), Box::new(Objective::EntropyRise));
        assert_eq!(at.name(), "entropy_rise@MUR47");
        assert_eq!(at.points(&points).unwrap().combine(&values), 1.0);
        let worst = Objective::WorstOf(vec!["MUR47".into(), "P30".into()], Box::new(Objective::EntropyRise));
        assert_eq!(worst.name(), "max(entropy_rise@MUR47,P30)");
        assert_eq!(worst.points(&points).unwrap().combine(&values), 2.0);
        assert_eq!(Objective::WorstOf(vec![], Box::new(Objective::EntropyRise)).points(&points).unwrap().combine(&values), 3.0);
        assert_eq!(Objective::EntropyRise.points(&points).unwrap().combine(&values), 2.0);
        assert!(PointChoice::WorstOf(vec![0, 1]).combine(&[f64::NAN, 1.0]).is_nan());
        let unknown = Objective::At("TC9".into(), Box::new(Objective::EntropyRise)).points(&points).unwrap_err().to_string();
        assert!(unknown.contains("no operating point TC9"), "{unknown}");
        let nested = Objective::At("MUR47".into(), Box::new(at.clone()));
        assert!(nested.points(&points).unwrap_err().to_string().contains("points chosen twice"));
        assert_eq!(nested.figure(), &Objective::EntropyRise);
    }
}
