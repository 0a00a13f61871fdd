//! The design parameterization an optimizer drives: a camber line and a thickness law, each
//! given by B-spline control points, with explicit stagger, chord, metal angles and edge radii.
//!
//! Camber line: a clamped cubic B-spline in the cascade frame with control points
//! - P0 = leading-edge point, Pm = P0 + chord (cos stagger, sin stagger) (the trailing-edge point);
//! - P1 = P0 + a1 chord (cos beta1, sin beta1): the tangent at the leading edge is the inlet metal
//!   angle beta1, a1 = `leading_edge_tangent`;
//! - P(m-1) = Pm - a2 chord (cos beta2, sin beta2): exit metal angle beta2, a2 = `trailing_edge_tangent`;
//! - interior points evenly spaced along the segment P1 -> P(m-1), each moved normal to it by
//!   `camber_k` x chord.
//!   Stagger, chord and both metal angles are thus independent variables with no redundancy.
//!
//! Thickness: the half-thickness at camber parameter t is
//!   h(t) = sqrt(t (1 - t)) g(t),
//! with g a clamped cubic B-spline whose end values are sqrt(2 r_le |c'(0)|) and
//! sqrt(2 r_te |c'(1)|). Near an end h^2 = 2 r (arc length) to leading order, which is the
//! equation of a circle of radius r at its apex: both edges are round with exactly the design
//! radii as their apex radius of curvature, whatever the camber. The interior control values are
//! `thickness_k` x chord / sqrt(s_k (1 - s_k)) at the Greville abscissae s_k, so `thickness_k`
//! is close to the half-thickness (fraction of chord) near s_k. The thickness knots cluster
//! towards both edges (cosine spacing), where the shape changes fastest.
//!
//! The thickness is laid off on both sides of the camber point along the normal of a direction
//! that turns uniformly in t from the inlet to the exit metal angle, theta(t) = beta1 +
//! (beta2 - beta1) t, rather than along the local camber normal. At both edges the two coincide
//! (the camber is tangent to the metal angles there), so the edges stay round with the design
//! radii; in between, the sides cannot fold where a thick section sits on a fast-turning camber
//! (with the local normal, a side folds where h exceeds the camber's radius of curvature, which
//! happens on LS89's leading-edge bulb and would make many optimizer candidates invalid).
//!
//! The outline runs over v in [-1, 1] with t = sin^2(pi v / 2) and the signed offset
//! sin(pi v) / 2 g(t): one smooth closed curve, suction side (offset along +normal) for v > 0,
//! apexes of the edges at v = 0 and v = +-1.

use super::curves::BSpline;
use super::sampling::{sample_closed, Piece, DEFAULT_OUTLINE_POINTS};
use super::validity::{check_no_cusps, check_outline, check_pitch_overlap, GeometryError};
use super::{Outline, Point2};
use crate::eval::DesignSpace;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// One named, bounded design variable. `lower == upper` freezes it: frozen variables are left
/// out of the optimizer's vector ([`DesignParameterization::to_vector`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignVariable {
    pub name: String,
    pub value: f64,
    pub lower: f64,
    pub upper: f64,
}

impl DesignVariable {
    pub fn new(name: impl Into<String>, value: f64, lower: f64, upper: f64) -> Self {
        DesignVariable { name: name.into(), value, lower, upper }
    }

    /// A frozen variable (lower = value = upper).
    pub fn fixed(name: impl Into<String>, value: f64) -> Self {
        DesignVariable::new(name, value, value, value)
    }

    pub fn is_free(&self) -> bool {
        self.lower < self.upper
    }

    /// The value must lie within [lower, upper] (and the bounds must be ordered and finite).
    pub fn check_bounds(&self) -> Result<(), GeometryError> {
        let ok = self.value.is_finite() && self.lower.is_finite() && self.upper.is_finite();
        if !ok || self.lower > self.upper || self.value < self.lower || self.value > self.upper {
            return Err(GeometryError::OutOfBounds { name: self.name.clone(), value: self.value, lower: self.lower, upper: self.upper });
        }
        Ok(())
    }
}

/// The optimization parameterization of a blade section (see the module notes). Lengths in
/// metres, angles in degrees from axial, positive towards +y.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignParameterization {
    /// Angle of the chord line (leading-edge apex -> trailing-edge apex) [deg].
    pub stagger_deg: DesignVariable,
    /// Distance from the leading-edge apex to the trailing-edge apex [m].
    pub chord: DesignVariable,
    /// Camber-line direction at the leading edge [deg].
    pub inlet_metal_angle_deg: DesignVariable,
    /// Camber-line direction at the trailing edge [deg].
    pub exit_metal_angle_deg: DesignVariable,
    /// Length of the first camber control leg, fraction of chord.
    pub leading_edge_tangent: DesignVariable,
    /// Length of the last camber control leg, fraction of chord.
    pub trailing_edge_tangent: DesignVariable,
    /// Normal offsets of the interior camber control points, fraction of chord.
    pub camber: Vec<DesignVariable>,
    /// Interior thickness control values (about the half-thickness), fraction of chord.
    pub thickness: Vec<DesignVariable>,
    /// Leading-edge radius [m].
    pub leading_edge_radius: DesignVariable,
    /// Trailing-edge radius [m].
    pub trailing_edge_radius: DesignVariable,
    /// Blade pitch [m].
    pub pitch: DesignVariable,
    /// Position of the leading-edge apex [m] (not a design variable).
    #[serde(default)]
    pub leading_edge: Point2,
}

/// Largest turn between consecutive outline segments of a (smooth) design outline.
pub const MAX_TURN_DEG: f64 = 30.0;

/// Degree of the camber and thickness B-splines.
const DEGREE: usize = 3;

/// Thickness knot spacing: cosine clustering towards both edges.
fn edge_clustered(u: f64) -> f64 {
    0.5 - 0.5 * (PI * u).cos()
}

/// Camber line and thickness law of a design, ready to evaluate.
#[derive(Clone, Debug)]
pub struct DesignCurve {
    pub camber: BSpline<2>,
    /// Inlet and exit metal angles [rad]: the thickness direction turns from one to the other.
    beta1: f64,
    beta2: f64,
    camber_derivative: BSpline<2>,
    uniform_turning: bool,
    window: f64,
    /// g(t) of the module notes.
    pub thickness_factor: BSpline<1>,
}

impl DesignCurve {
    /// Unit direction along which the thickness is laid off at camber parameter t (towards the
    /// suction side): the normal of the angle beta1 + (beta2 - beta1) t.
    pub fn thickness_normal(&self, t: f64) -> Point2 {
        if self.uniform_turning {
            let theta = self.beta1 + (self.beta2 - self.beta1) * t;
            return [-theta.sin(), theta.cos()];
        }
        let delta = self.window * (PI * t).sin();
        let d = if delta > 1e-9 {
            let (a, b) = (self.camber.point(t - delta), self.camber.point(t + delta));
            [b[0] - a[0], b[1] - a[1]]
        } else {
            self.camber_derivative.point(t)
        };
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        [-d[1] / len, d[0] / len]
    }

    /// Half-thickness at camber parameter t in [0, 1].
    pub fn half_thickness(&self, t: f64) -> f64 {
        (t * (1.0 - t)).max(0.0).sqrt() * self.thickness_factor.point(t)[0]
    }

    /// Outline point at v in [-1, 1] (v > 0 suction side, v < 0 pressure side, v = 0 the
    /// leading-edge apex, v = +-1 the trailing-edge apex).
    pub fn point(&self, v: f64) -> Point2 {
        let s = (0.5 * PI * v).sin();
        let t = (s * s).min(1.0);
        let c = self.camber.point(t);
        let n = self.thickness_normal(t);
        let offset = 0.5 * (PI * v).sin() * self.thickness_factor.point(t)[0];
        [c[0] + offset * n[0], c[1] + offset * n[1]]
    }

    /// Closed outline with about `n_points` points (not validity checked).
    pub fn sample(&self, n_points: usize) -> Outline {
        let piece = Piece::new(|w: f64| if w <= 1.0 { self.point(w) } else { self.point(w - 2.0) }, 0.0, 2.0);
        sample_closed(&[piece], n_points)
    }
}

impl DesignParameterization {
    /// All variables in vector order: stagger, chord, metal angles, tangents, camber...,
    /// thickness..., edge radii, pitch.
    pub fn variables(&self) -> Vec<&DesignVariable> {
        let mut v = vec![
            &self.stagger_deg,
            &self.chord,
            &self.inlet_metal_angle_deg,
            &self.exit_metal_angle_deg,
            &self.leading_edge_tangent,
            &self.trailing_edge_tangent,
        ];
        v.extend(self.camber.iter());
        v.extend(self.thickness.iter());
        v.extend([&self.leading_edge_radius, &self.trailing_edge_radius, &self.pitch]);
        v
    }

    /// Mutable access in the order of [`Self::variables`].
    pub fn variables_mut(&mut self) -> Vec<&mut DesignVariable> {
        let mut v = vec![
            &mut self.stagger_deg,
            &mut self.chord,
            &mut self.inlet_metal_angle_deg,
            &mut self.exit_metal_angle_deg,
            &mut self.leading_edge_tangent,
            &mut self.trailing_edge_tangent,
        ];
        v.extend(self.camber.iter_mut());
        v.extend(self.thickness.iter_mut());
        v.extend([&mut self.leading_edge_radius, &mut self.trailing_edge_radius, &mut self.pitch]);
        v
    }

    /// Values of the free variables (lower < upper), in vector order.
    pub fn to_vector(&self) -> Vec<f64> {
        self.variables().into_iter().filter(|v| v.is_free()).map(|v| v.value).collect()
    }

    /// A copy with the free variables set from `x`, every variable checked against its bounds.
    pub fn from_vector(&self, x: &[f64]) -> Result<DesignParameterization, GeometryError> {
        let mut out = self.clone();
        let n_free = self.variables().iter().filter(|v| v.is_free()).count();
        if x.len() != n_free {
            return Err(GeometryError::InvalidParameter {
                name: "design vector".into(),
                reason: format!("has {} entries, the parameterization has {n_free} free variables", x.len()),
            });
        }
        let mut values = x.iter();
        for var in out.variables_mut().into_iter().filter(|v| v.is_free()) {
            var.value = *values.next().expect("length checked above");
        }
        out.check_bounds()?;
        Ok(out)
    }

    /// Every variable within its bounds.
    pub fn check_bounds(&self) -> Result<(), GeometryError> {
        self.variables().into_iter().try_for_each(|v| v.check_bounds())
    }

    /// The optimizer's view: names, bounds and baseline of the free variables.
    pub fn design_space(&self) -> DesignSpace {
        let free: Vec<&DesignVariable> = self.variables().into_iter().filter(|v| v.is_free()).collect();
        DesignSpace {
            names: free.iter().map(|v| v.name.clone()).collect(),
            lower: free.iter().map(|v| v.lower).collect(),
            upper: free.iter().map(|v| v.upper).collect(),
            baseline: free.iter().map(|v| v.value).collect(),
        }
    }

    /// Parameters that make no blade at all (as opposed to a bad blade): non-positive lengths,
    /// too few control points, non-finite values, duplicated names.
    fn check_parameters(&self) -> Result<(), GeometryError> {
        let vars = self.variables();
        for v in &vars {
            if !v.value.is_finite() {
                return Err(GeometryError::InvalidParameter { name: v.name.clone(), reason: "value not finite".into() });
            }
        }
        for (k, v) in vars.iter().enumerate() {
            if vars[..k].iter().any(|w| w.name == v.name) {
                return Err(GeometryError::InvalidParameter { name: v.name.clone(), reason: "name used twice".into() });
            }
        }
        for v in [&self.chord, &self.leading_edge_tangent, &self.trailing_edge_tangent, &self.leading_edge_radius, &self.trailing_edge_radius, &self.pitch] {
            if !(v.value > 0.0) {
                return Err(GeometryError::InvalidParameter { name: v.name.clone(), reason: format!("must be positive, got {}", v.value) });
            }
        }
        if self.thickness.is_empty() {
            return Err(GeometryError::InvalidParameter { name: "thickness".into(), reason: "needs at least one control value".into() });
        }
        Ok(())
    }

    /// Camber control polygon (see the module notes).
    pub fn camber_control_points(&self) -> Vec<Point2> {
        let c = self.chord.value;
        let le = self.leading_edge;
        let dir = |deg: f64| [deg.to_radians().cos(), deg.to_radians().sin()];
        let e = dir(self.stagger_deg.value);
        let te = [le[0] + c * e[0], le[1] + c * e[1]];
        let b1 = dir(self.inlet_metal_angle_deg.value);
        let b2 = dir(self.exit_metal_angle_deg.value);
        let (a1, a2) = (self.leading_edge_tangent.value * c, self.trailing_edge_tangent.value * c);
        let p1 = [le[0] + a1 * b1[0], le[1] + a1 * b1[1]];
        let pm1 = [te[0] - a2 * b2[0], te[1] - a2 * b2[1]];
        let leg = [pm1[0] - p1[0], pm1[1] - p1[1]];
        let leg_len = (leg[0] * leg[0] + leg[1] * leg[1]).sqrt().max(f64::MIN_POSITIVE);
        // Offsets are measured along the normal to P1 -> P(m-1) pointing to the suction side
        // (left of the camber direction), so positive camber_k bends the line towards +normal.
        let normal = [-leg[1] / leg_len, leg[0] / leg_len];
        let n_in = self.camber.len();
        let mut pts = vec![le, p1];
        for (k, var) in self.camber.iter().enumerate() {
            let f = (k + 1) as f64 / (n_in + 1) as f64;
            let off = var.value * c;
            pts.push([p1[0] + f * leg[0] + off * normal[0], p1[1] + f * leg[1] + off * normal[1]]);
        }
        pts.push(pm1);
        pts.push(te);
        pts
    }

    /// Camber line and thickness law, after checking the parameters make a blade.
    pub fn curve(&self) -> Result<DesignCurve, GeometryError> {
        self.check_parameters()?;
        let camber = BSpline::clamped_uniform(DEGREE.min(self.camber.len() + 3), self.camber_control_points());
        let camber_derivative = camber.derivative();
        let speed = |t: f64| {
            let d = camber_derivative.point(t);
            (d[0] * d[0] + d[1] * d[1]).sqrt()
        };
        let n_g = self.thickness.len() + 2;
        let degree = DEGREE.min(n_g - 1);
        let knots = super::curves::clamped_knots(degree, n_g, edge_clustered);
        let greville = super::curves::greville_abscissae(degree, &knots);
        let c = self.chord.value;
        let mut g = Vec::with_capacity(n_g);
        g.push([(2.0 * self.leading_edge_radius.value * speed(0.0)).sqrt()]);
        for (k, var) in self.thickness.iter().enumerate() {
            let s = greville[k + 1];
            g.push([var.value * c / (s * (1.0 - s)).sqrt()]);
        }
        g.push([(2.0 * self.trailing_edge_radius.value * speed(1.0)).sqrt()]);
        let thickness_factor = BSpline { degree, knots, control: g };
        let curve = DesignCurve {
            camber,
            beta1: self.inlet_metal_angle_deg.value.to_radians(),
            beta2: self.exit_metal_angle_deg.value.to_radians(),
            camber_derivative,
            uniform_turning: std::env::var("UNIFORM").is_ok(),
            window: std::env::var("WINDOW").ok().and_then(|s| s.parse().ok()).unwrap_or(0.0),
            thickness_factor,
        };
        check_thickness(&curve)?;
        Ok(curve)
    }

    /// Dense outline, checked: positive thickness, no self-intersection, no overlap with the
    /// neighbouring blade at this pitch. Bounds are not checked here (see [`Self::from_vector`]).
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        self.outline_with(DEFAULT_OUTLINE_POINTS)
    }

    pub fn outline_with(&self, n_points: usize) -> Result<Outline, GeometryError> {
        let curve = self.curve()?;
        let outline = curve.sample(n_points);
        check_outline(&outline)?;
        // The design outline is smooth by construction: a sharp turn is a fold of a side.
        check_no_cusps(&outline, MAX_TURN_DEG)?;
        check_pitch_overlap(&outline, self.pitch.value)?;
        Ok(outline)
    }
}

/// The thickness factor g must stay positive along the whole camber line (h = 0 only at the
/// edge apexes). A B-spline lies in the convex hull of its control values, but a negative
/// control value does not always make g negative, so g itself is sampled.
fn check_thickness(curve: &DesignCurve) -> Result<(), GeometryError> {
    const SAMPLES: usize = 2000;
    for k in 0..=SAMPLES {
        let t = k as f64 / SAMPLES as f64;
        let g = curve.thickness_factor.point(t)[0];
        if !(g > 0.0) {
            return Err(GeometryError::NonPositiveThickness { at_percent: 100.0 * t, thickness_mm: 2e3 * curve.half_thickness(t) });
        }
    }
    Ok(())
}
