//! Analytic test problems behind the [`Evaluator`] trait, with known optima, so the optimizers
//! and the campaign runner can be verified without a flow solver.
//!
//! - Rosenbrock (n-D) and Rastrigin (n-D): the usual DE benchmarks.
//! - Branin and Hartmann-6: the usual Kriging/EGO benchmarks (Jones, Schonlau & Welch 1998).
//! - G06 (Floudas & Pardalos 1990; problem g06 of the CEC 2006 constrained suite, Liang et al.
//!   2006): a cubic objective with two circle constraints and a tiny feasible region, optimum
//!   f* = -6961.81387558015 at x* = (14.095, 0.84296075), where both constraints are active.
//! - Gomez #3 (Gomez & Levy 1982, used for constrained EGO by Sasena 2002): the six-hump camel
//!   back with a sinusoidal constraint and disconnected feasible islands, f* = -0.9711 at
//!   x* = (0.1093, -0.6234).
//!
//! Multi-objective (fronts, every objective minimized), with the reference points their
//! benchmarks use ([`AnalyticEvaluator::reference_point`]):
//! - ZDT1, ZDT2, ZDT3 (Zitzler, Deb & Thiele 2000) on `[0, 1]^n`: convex, concave and
//!   disconnected fronts at `g = 1`;
//! - DTLZ2 (Deb, Thiele, Laumanns & Zitzler 2002) with `M` objectives: the positive orthant of
//!   the unit sphere;
//! - Branin-Currin (the two-objective problem of BoTorch's benchmarks: Branin rescaled to the
//!   unit square against Currin's exponential function);
//! - C2-DTLZ2 (Deb & Jain 2014): DTLZ2 with a constraint that keeps only parts of the sphere
//!   (BoTorch's definition, r = 0.2).

use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

use super::{Diagnostics, DesignSpace, Evaluation, Evaluator, Status};
use crate::error::{Error, Result};

/// Which analytic problem; the serialized form is what a campaign RON names.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AnalyticProblem {
    Rosenbrock { dim: usize },
    Rastrigin { dim: usize },
    Branin,
    Hartmann6,
    G06,
    Gomez3,
    Zdt1 { dim: usize },
    Zdt2 { dim: usize },
    Zdt3 { dim: usize },
    Dtlz2 { dim: usize, objectives: usize },
    BraninCurrin,
    C2Dtlz2 { dim: usize, objectives: usize },
}

/// Known global optimum of an analytic problem.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownOptimum {
    pub value: f64,
    pub design: Vec<f64>,
}

/// An analytic problem with its design space, callable as an [`Evaluator`].
#[derive(Clone, Debug)]
pub struct AnalyticEvaluator {
    problem: AnalyticProblem,
    space: DesignSpace,
}

impl AnalyticEvaluator {
    /// Build the evaluator; rejects dimensions the problem is not defined for.
    pub fn new(problem: AnalyticProblem) -> Result<Self> {
        let (lower, upper, baseline) = match &problem {
            AnalyticProblem::Rosenbrock { dim } => {
                check_dim("Rosenbrock", *dim, 2)?;
                (vec![-5.0; *dim], vec![5.0; *dim], vec![0.0; *dim])
            }
            AnalyticProblem::Rastrigin { dim } => {
                check_dim("Rastrigin", *dim, 1)?;
                (vec![-5.12; *dim], vec![5.12; *dim], vec![2.5; *dim])
            }
            AnalyticProblem::Branin => (vec![-5.0, 0.0], vec![10.0, 15.0], vec![2.5, 7.5]),
            AnalyticProblem::Hartmann6 => (vec![0.0; 6], vec![1.0; 6], vec![0.5; 6]),
            // G06 baseline: a feasible point (inside circle 2, outside circle 1).
            AnalyticProblem::G06 => (vec![13.0, 0.0], vec![100.0, 100.0], vec![15.05, 5.0]),
            AnalyticProblem::Gomez3 => (vec![-1.0, -1.0], vec![1.0, 1.0], vec![0.0, 0.0]),
            AnalyticProblem::Zdt1 { dim } | AnalyticProblem::Zdt2 { dim } | AnalyticProblem::Zdt3 { dim } => {
                check_dim("ZDT", *dim, 2)?;
                unit_cube(*dim)
            }
            AnalyticProblem::Dtlz2 { dim, objectives } | AnalyticProblem::C2Dtlz2 { dim, objectives } => {
                if *objectives < 2 || dim <= objectives {
                    return Err(Error::Other(format!("DTLZ2 needs at least 2 objectives and more variables than objectives, got {dim} and {objectives}")));
                }
                unit_cube(*dim)
            }
            AnalyticProblem::BraninCurrin => unit_cube(2),
        };
        let names = (1..=lower.len()).map(|i| format!("x{i}")).collect();
        Ok(AnalyticEvaluator { problem, space: DesignSpace { names, lower, upper, baseline } })
    }

    /// Which problem this evaluator computes.
    pub fn problem(&self) -> &AnalyticProblem {
        &self.problem
    }

    /// Replace the bounds (campaign overrides); the baseline is clamped into the new box.
    pub fn with_bounds(mut self, lower: Vec<f64>, upper: Vec<f64>) -> Result<Self> {
        let n = self.space.dim();
        if lower.len() != n || upper.len() != n {
            return Err(Error::Other(format!("bounds need {n} values, got {} and {}", lower.len(), upper.len())));
        }
        if let Some(i) = (0..n).find(|&i| !(lower[i] < upper[i])) {
            return Err(Error::Other(format!("bound {i}: lower {} is not below upper {}", lower[i], upper[i])));
        }
        for i in 0..n {
            self.space.baseline[i] = self.space.baseline[i].clamp(lower[i], upper[i]);
        }
        self.space.lower = lower;
        self.space.upper = upper;
        Ok(self)
    }

    /// Number of objectives: 1, or the front's dimension.
    pub fn n_objectives(&self) -> usize {
        match &self.problem {
            AnalyticProblem::Zdt1 { .. } | AnalyticProblem::Zdt2 { .. } | AnalyticProblem::Zdt3 { .. } | AnalyticProblem::BraninCurrin => 2,
            AnalyticProblem::Dtlz2 { objectives, .. } | AnalyticProblem::C2Dtlz2 { objectives, .. } => *objectives,
            _ => 1,
        }
    }

    /// The hypervolume reference point the literature uses for a multi-objective problem
    /// (ZDT: 1.1 each, as pymoo's examples; DTLZ2 and C2-DTLZ2: 1.1 each, Branin-Currin:
    /// (18, 6), as BoTorch's); `None` for one objective.
    pub fn reference_point(&self) -> Option<Vec<f64>> {
        match &self.problem {
            AnalyticProblem::BraninCurrin => Some(vec![18.0, 6.0]),
            _ if self.n_objectives() >= 2 => Some(vec![1.1; self.n_objectives()]),
            _ => None,
        }
    }

    /// The global optimum from the literature (one of them when there are several), with the
    /// digits as published (G06's carry more than an f64 holds); `None` for the multi-objective
    /// problems, whose answer is a front.
    #[allow(clippy::excessive_precision, clippy::inconsistent_digit_grouping)]
    pub fn known_optimum(&self) -> Option<KnownOptimum> {
        Some(match &self.problem {
            AnalyticProblem::Rosenbrock { dim } => KnownOptimum { value: 0.0, design: vec![1.0; *dim] },
            AnalyticProblem::Rastrigin { dim } => KnownOptimum { value: 0.0, design: vec![0.0; *dim] },
            AnalyticProblem::Branin => KnownOptimum { value: 0.397_887_357_729_739, design: vec![PI, 2.275] },
            AnalyticProblem::Hartmann6 => KnownOptimum {
                value: -3.322_368_011_415_515,
                design: vec![0.201_69, 0.150_011, 0.476_874, 0.275_332, 0.311_652, 0.657_3],
            },
            AnalyticProblem::G06 => KnownOptimum {
                value: -6961.813_875_580_15,
                design: vec![14.095_000_000_000_000_64, 0.842_960_789_215_479_566_8],
            },
            AnalyticProblem::Gomez3 => KnownOptimum { value: -0.971_1, design: vec![0.109_3, -0.623_4] },
            _ => return None,
        })
    }

    /// Objective values and constraint values (feasible when all `<= 0`) of one design.
    fn objectives_and_constraints(&self, x: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let one = |(f, c): (f64, Vec<f64>)| (vec![f], c);
        match &self.problem {
            AnalyticProblem::Rosenbrock { .. } => (vec![rosenbrock(x)], vec![]),
            AnalyticProblem::Rastrigin { .. } => (vec![rastrigin(x)], vec![]),
            AnalyticProblem::Branin => (vec![branin(x[0], x[1])], vec![]),
            AnalyticProblem::Hartmann6 => (vec![hartmann6(x)], vec![]),
            AnalyticProblem::G06 => one(g06(x[0], x[1])),
            AnalyticProblem::Gomez3 => one(gomez3(x[0], x[1])),
            AnalyticProblem::Zdt1 { .. } => (zdt(x, |h| 1.0 - h.sqrt()), vec![]),
            AnalyticProblem::Zdt2 { .. } => (zdt(x, |h| 1.0 - h * h), vec![]),
            AnalyticProblem::Zdt3 { .. } => (zdt(x, |h| 1.0 - h.sqrt() - h * (10.0 * PI * x[0]).sin()), vec![]),
            AnalyticProblem::Dtlz2 { objectives, .. } => (dtlz2(x, *objectives), vec![]),
            AnalyticProblem::BraninCurrin => (branin_currin(x[0], x[1]), vec![]),
            AnalyticProblem::C2Dtlz2 { objectives, .. } => {
                let f = dtlz2(x, *objectives);
                let c = c2_dtlz2_constraint(&f);
                (f, vec![c])
            }
        }
    }
}

fn unit_cube(dim: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    (vec![0.0; dim], vec![1.0; dim], vec![0.5; dim])
}

fn check_dim(name: &str, dim: usize, min: usize) -> Result<()> {
    if dim < min {
        return Err(Error::Other(format!("{name} needs at least {min} dimensions, got {dim}")));
    }
    Ok(())
}

impl Evaluator for AnalyticEvaluator {
    fn space(&self) -> &DesignSpace {
        &self.space
    }
    fn objective_names(&self) -> Vec<String> {
        match self.n_objectives() {
            1 => vec!["f".into()],
            m => (1..=m).map(|k| format!("f{k}")).collect(),
        }
    }
    fn constraint_names(&self) -> Vec<String> {
        match self.problem {
            AnalyticProblem::G06 => vec!["g1".into(), "g2".into()],
            AnalyticProblem::Gomez3 | AnalyticProblem::C2Dtlz2 { .. } => vec!["g1".into()],
            _ => vec![],
        }
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        let n = self.space.dim();
        if design.len() != n {
            return Evaluation::failed(Status::Failed(format!("expected {n} design variables, got {}", design.len())));
        }
        if let Some(i) = design.iter().position(|v| !v.is_finite()) {
            return Evaluation::failed(Status::Failed(format!("design variable {i} is not finite")));
        }
        let (objectives, constraints) = self.objectives_and_constraints(design);
        Evaluation { objectives, constraints, status: Status::Ok, diagnostics: Diagnostics::default() }
    }
}

/// Rosenbrock's valley, sum over i of 100 (x_{i+1} - x_i^2)^2 + (1 - x_i)^2.
pub fn rosenbrock(x: &[f64]) -> f64 {
    x.windows(2).map(|w| 100.0 * (w[1] - w[0] * w[0]).powi(2) + (1.0 - w[0]).powi(2)).sum()
}

/// Rastrigin: 10 n + sum of x_i^2 - 10 cos(2 pi x_i).
pub fn rastrigin(x: &[f64]) -> f64 {
    10.0 * x.len() as f64 + x.iter().map(|v| v * v - 10.0 * (2.0 * PI * v).cos()).sum::<f64>()
}

/// Branin-Hoo with the standard constants (three global minima of 0.397887).
pub fn branin(x1: f64, x2: f64) -> f64 {
    let b = 5.1 / (4.0 * PI * PI);
    let c = 5.0 / PI;
    let t = 1.0 / (8.0 * PI);
    (x2 - b * x1 * x1 + c * x1 - 6.0).powi(2) + 10.0 * (1.0 - t) * x1.cos() + 10.0
}

const HARTMANN6_ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];
const HARTMANN6_A: [[f64; 6]; 4] = [
    [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
    [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
    [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
    [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
];
const HARTMANN6_P: [[f64; 6]; 4] = [
    [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
    [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
    [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
    [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
];

/// Hartmann-6 on the unit cube (global minimum -3.32237, a local one at -3.2032).
pub fn hartmann6(x: &[f64]) -> f64 {
    -(0..4)
        .map(|i| {
            let r: f64 = (0..6).map(|j| HARTMANN6_A[i][j] * (x[j] - HARTMANN6_P[i][j]).powi(2)).sum();
            HARTMANN6_ALPHA[i] * (-r).exp()
        })
        .sum::<f64>()
}

/// G06: (x1 - 10)^3 + (x2 - 20)^3 subject to lying outside circle 1 and inside circle 2.
pub fn g06(x1: f64, x2: f64) -> (f64, Vec<f64>) {
    let f = (x1 - 10.0).powi(3) + (x2 - 20.0).powi(3);
    let g1 = -(x1 - 5.0).powi(2) - (x2 - 5.0).powi(2) + 100.0;
    let g2 = (x1 - 6.0).powi(2) + (x2 - 5.0).powi(2) - 82.81;
    (f, vec![g1, g2])
}

/// Gomez #3: six-hump camel back subject to -sin(4 pi x1) + 2 sin^2(2 pi x2) <= 0.
pub fn gomez3(x1: f64, x2: f64) -> (f64, Vec<f64>) {
    let f = (4.0 - 2.1 * x1 * x1 + x1.powi(4) / 3.0) * x1 * x1 + x1 * x2 + (-4.0 + 4.0 * x2 * x2) * x2 * x2;
    let g = -(4.0 * PI * x1).sin() + 2.0 * (2.0 * PI * x2).sin().powi(2);
    (f, vec![g])
}

/// The ZDT family: f1 = x1, g = 1 + 9 mean(x2..xn), f2 = g h(f1/g) with `h` the family
/// member's shape (ZDT3's h carries its own sin(10 pi f1) term).
fn zdt(x: &[f64], h: impl Fn(f64) -> f64) -> Vec<f64> {
    let g = 1.0 + 9.0 * x[1..].iter().sum::<f64>() / (x.len() - 1) as f64;
    vec![x[0], g * h(x[0] / g)]
}

/// DTLZ2 with `m` objectives: f_i = (1 + g) prod_{j < m-1-i} cos(x_j pi/2) [sin(x_{m-1-i} pi/2)
/// for i > 0], g = sum over the last n - m + 1 variables of (x - 1/2)^2.
pub fn dtlz2(x: &[f64], m: usize) -> Vec<f64> {
    let g: f64 = x[m - 1..].iter().map(|v| (v - 0.5).powi(2)).sum();
    (0..m)
        .map(|i| {
            let last = m - 1 - i;
            let cosines: f64 = x[..last].iter().map(|v| (v * PI / 2.0).cos()).product();
            let sine = if i > 0 { (x[last] * PI / 2.0).sin() } else { 1.0 };
            (1.0 + g) * cosines * sine
        })
        .collect()
}

/// C2-DTLZ2's constraint on the objective vector `f` (feasible when <= 0), as BoTorch writes it
/// with r = 0.2: min( min_i [(f_i - 1)^2 + sum_{j != i} (f_j^2 - r^2)], sum_j [(f_j - 1/sqrt(M))^2
/// - r^2] ).
pub fn c2_dtlz2_constraint(f: &[f64]) -> f64 {
    const R: f64 = 0.2;
    let m = f.len();
    let caps = (0..m)
        .map(|i| (f[i] - 1.0).powi(2) + (0..m).filter(|&j| j != i).map(|j| f[j] * f[j] - R * R).sum::<f64>())
        .fold(f64::INFINITY, f64::min);
    let centre: f64 = f.iter().map(|v| (v - 1.0 / (m as f64).sqrt()).powi(2) - R * R).sum();
    caps.min(centre)
}

/// Branin-Currin on the unit square: Branin at (15 x1 - 5, 15 x2) and Currin's function.
pub fn branin_currin(x1: f64, x2: f64) -> Vec<f64> {
    let currin = (1.0 - (-1.0 / (2.0 * x2)).exp()) * (2300.0 * x1.powi(3) + 1900.0 * x1 * x1 + 2092.0 * x1 + 60.0)
        / (100.0 * x1.powi(3) + 500.0 * x1 * x1 + 4.0 * x1 + 20.0);
    vec![branin(15.0 * x1 - 5.0, 15.0 * x2), currin]
}

/// Branin whose "mesh generation" fails for x1 > 5: a test evaluator for optimizers, which must
/// keep failed designs as infeasible and still reach the minima at (-pi, 12.275) and (pi, 2.275).
#[cfg(test)]
pub(crate) struct BraninFailingRight(AnalyticEvaluator);

#[cfg(test)]
impl BraninFailingRight {
    pub(crate) fn new() -> Self {
        BraninFailingRight(AnalyticEvaluator::new(AnalyticProblem::Branin).expect("Branin is valid"))
    }
}

#[cfg(test)]
impl Evaluator for BraninFailingRight {
    fn space(&self) -> &DesignSpace {
        self.0.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.0.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        vec![]
    }
    fn evaluate(&self, d: &[f64]) -> Evaluation {
        if d[0] > 5.0 {
            Evaluation::failed(Status::MeshFailure("negative cell volume".into()))
        } else {
            self.0.evaluate(d)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimum_value(p: AnalyticProblem) -> (f64, Evaluation) {
        let e = AnalyticEvaluator::new(p).unwrap();
        let opt = e.known_optimum().expect("single-objective problem");
        (opt.value, e.evaluate(&opt.design))
    }

    #[test]
    fn known_optima_evaluate_to_their_values() {
        for (p, tol) in [
            (AnalyticProblem::Rosenbrock { dim: 10 }, 1e-15),
            (AnalyticProblem::Rastrigin { dim: 10 }, 1e-12),
            (AnalyticProblem::Branin, 1e-9),
            (AnalyticProblem::Hartmann6, 1e-5),
            (AnalyticProblem::G06, 1e-6),
            (AnalyticProblem::Gomez3, 1e-4),
        ] {
            let (value, ev) = optimum_value(p.clone());
            assert!((ev.objectives[0] - value).abs() <= tol * value.abs().max(1.0), "{p:?}: {} vs {value}", ev.objectives[0]);
            // The constrained optima sit on the constraint boundary: allow round-off violation.
            assert!(ev.constraints.iter().all(|&c| c <= 1e-6), "{p:?}: {:?}", ev.constraints);
        }
    }

    #[test]
    fn fronts_lie_where_the_literature_puts_them() {
        let zdt = |p: AnalyticProblem, x1: f64| {
            let e = AnalyticEvaluator::new(p).unwrap();
            let mut x = vec![0.0; 10];
            x[0] = x1;
            e.evaluate(&x).objectives
        };
        assert_eq!(zdt(AnalyticProblem::Zdt1 { dim: 10 }, 0.25), vec![0.25, 0.5]);
        assert_eq!(zdt(AnalyticProblem::Zdt2 { dim: 10 }, 0.5), vec![0.5, 0.75]);
        let z3 = zdt(AnalyticProblem::Zdt3 { dim: 10 }, 0.25);
        assert!((z3[1] - (0.5 - 0.25 * (2.5 * PI).sin())).abs() < 1e-15);
        // DTLZ2 at g = 0 lies on the unit sphere.
        let e = AnalyticEvaluator::new(AnalyticProblem::Dtlz2 { dim: 7, objectives: 3 }).unwrap();
        let f = e.evaluate(&[0.3, 0.8, 0.5, 0.5, 0.5, 0.5, 0.5]).objectives;
        assert!((f.iter().map(|v| v * v).sum::<f64>() - 1.0).abs() < 1e-14, "{f:?}");
        // C2-DTLZ2 keeps the caps near the axes and the centre of the sphere, not between them.
        let c2 = AnalyticEvaluator::new(AnalyticProblem::C2Dtlz2 { dim: 12, objectives: 2 }).unwrap();
        let on_sphere = |t: f64| {
            let mut x = vec![0.5; 12];
            x[0] = t;
            c2.evaluate(&x)
        };
        assert!(on_sphere(0.0).is_feasible() && on_sphere(0.5).is_feasible() && !on_sphere(0.25).is_feasible());
        // Branin-Currin: Branin's minimum at (pi, 2.275) maps to ((pi + 5)/15, 2.275/15).
        let bc = branin_currin((PI + 5.0) / 15.0, 2.275 / 15.0);
        assert!((bc[0] - 0.397_887_357_729_739).abs() < 1e-9, "{bc:?}");
        assert_eq!(AnalyticEvaluator::new(AnalyticProblem::BraninCurrin).unwrap().reference_point(), Some(vec![18.0, 6.0]));
        assert!(AnalyticEvaluator::new(AnalyticProblem::Dtlz2 { dim: 2, objectives: 3 }).is_err());
    }

    #[test]
    fn baselines_are_feasible() {
        for p in [AnalyticProblem::G06, AnalyticProblem::Gomez3] {
            let e = AnalyticEvaluator::new(p.clone()).unwrap();
            assert!(e.evaluate(&e.space().baseline).is_feasible(), "{p:?}");
        }
    }

    #[test]
    fn branin_has_three_equal_minima() {
        let a = branin(-PI, 12.275);
        let b = branin(PI, 2.275);
        let c = branin(9.424_78, 2.475);
        assert!((a - b).abs() < 1e-9 && (a - c).abs() < 1e-6, "{a} {b} {c}");
    }

    #[test]
    fn bad_input_is_a_failed_status_not_a_panic() {
        let e = AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap();
        assert!(matches!(e.evaluate(&[1.0]).status, Status::Failed(_)));
        assert!(matches!(e.evaluate(&[f64::NAN, 1.0]).status, Status::Failed(_)));
        assert!(AnalyticEvaluator::new(AnalyticProblem::Rosenbrock { dim: 1 }).is_err());
        assert!(e.clone().with_bounds(vec![1.0, 2.0], vec![0.0, 3.0]).is_err());
    }
}
