//! The design parameterization an optimizer drives: a camber line and a thickness law, each
//! given by B-spline control points, with explicit stagger, chord, metal angles and edge radii.
//!
//! Camber line: a clamped cubic B-spline in the cascade frame with control points
//! - P0 = leading-edge point, Pm = P0 + chord (cos stagger, sin stagger) (the trailing-edge point);
//! - P1 = P0 + a1 chord (cos beta1, sin beta1): the tangent at the leading edge is the inlet metal
//!   angle beta1, a1 = `leading_edge_tangent`;
//! - P(m-1) = Pm - a2 chord (cos beta2, sin beta2): exit metal angle beta2, a2 = `trailing_edge_tangent`;
//! - interior points at chordwise positions evenly spaced between those of P1 and P(m-1), each
//!   at the ordinate `camber_k` x chord from the chord line (positive towards the suction side,
//!   i.e. to the left of the chord direction).
//!   All control points are linear in the tangent legs and the ordinates (useful for fitting).
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
//! The thickness is laid off along the camber normal. `thickness` gives it for both sides; a
//! non-empty `pressure_thickness` gives the pressure side its own law (same form, same edge
//! radii), which LS89 needs: its bulbous suction side over a nearly straight pressure side would
//! make a symmetric thickness fold the pressure side (a side offset from a camber line folds
//! where the offset exceeds the camber's radius of curvature). The apex curvature argument holds
//! for each side separately, so the edges stay round with the design radii.
//!
//! The outline runs over v in [-1, 1] with t = sin^2(pi v / 2) and the signed offset
//! sin(pi v) / 2 g(t) (g of the pressure side for v < 0): one closed curve, smooth except for a
//! jump of curvature at the apexes where two thickness laws meet, suction side (offset along
//! +normal) for v > 0,
//! apexes of the edges at v = 0 and v = +-1.

use super::curves::BSpline;
use super::sampling::{sample_closed, Piece, DEFAULT_OUTLINE_POINTS};
use super::validity::{check_no_cusps, check_outline, check_pitch_overlap, GeometryError};
use super::{Outline, Point2};
use super::DesignSpace;
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
    /// A variable with its value and bounds.
    pub fn new(name: impl Into<String>, value: f64, lower: f64, upper: f64) -> Self {
        DesignVariable { name: name.into(), value, lower, upper }
    }

    /// A frozen variable (lower = value = upper).
    pub fn fixed(name: impl Into<String>, value: f64) -> Self {
        DesignVariable::new(name, value, value, value)
    }

    /// Whether the optimizer may move it (lower < upper).
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
    /// Angle of the chord line (leading-edge apex -> trailing-edge apex) (deg).
    pub stagger_deg: DesignVariable,
    /// Distance from the leading-edge apex to the trailing-edge apex (m).
    pub chord: DesignVariable,
    /// Camber-line direction at the leading edge (deg).
    pub inlet_metal_angle_deg: DesignVariable,
    /// Camber-line direction at the trailing edge (deg).
    pub exit_metal_angle_deg: DesignVariable,
    /// Length of the first camber control leg, fraction of chord.
    pub leading_edge_tangent: DesignVariable,
    /// Length of the last camber control leg, fraction of chord.
    pub trailing_edge_tangent: DesignVariable,
    /// Ordinates of the interior camber control points from the chord line, fraction of chord.
    pub camber: Vec<DesignVariable>,
    /// Interior thickness control values (about the half-thickness), fraction of chord: on the
    /// suction side, and on both sides when `pressure_thickness` is empty.
    pub thickness: Vec<DesignVariable>,
    /// Interior thickness control values of the pressure side, when the two sides have their own
    /// thickness laws (LS89's bulbous suction side over a flat pressure side); empty for a
    /// thickness laid off symmetrically about the camber line.
    #[serde(default)]
    pub pressure_thickness: Vec<DesignVariable>,
    /// Leading-edge radius (m).
    pub leading_edge_radius: DesignVariable,
    /// Trailing-edge radius (m).
    pub trailing_edge_radius: DesignVariable,
    /// Blade pitch (m).
    pub pitch: DesignVariable,
    /// Position of the leading-edge apex (m) (not a design variable).
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
    camber_derivative: BSpline<2>,
    /// g(t) of the module notes (suction side, or both sides).
    pub thickness_factor: BSpline<1>,
    /// g(t) of the pressure side when it has its own thickness law.
    pub pressure_factor: Option<BSpline<1>>,
}

impl DesignCurve {
    /// Unit normal of the camber line at camber parameter t, towards the suction side.
    pub fn thickness_normal(&self, t: f64) -> Point2 {
        let d = self.camber_derivative.point(t);
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        [-d[1] / len, d[0] / len]
    }

    /// Distances of the suction and pressure sides from the camber line at camber parameter t.
    pub fn side_thickness(&self, t: f64) -> (f64, f64) {
        let w = (t * (1.0 - t)).max(0.0).sqrt();
        let gs = self.thickness_factor.point(t)[0];
        let gp = self.pressure_factor.as_ref().map_or(gs, |g| g.point(t)[0]);
        (w * gs, w * gp)
    }

    /// Half the blade thickness at camber parameter t in [0, 1].
    /// The blade's thickness factor at t: the suction-side law's, or the mean of both sides'.
    pub fn thickness_factor_at(&self, t: f64) -> f64 {
        let g = self.thickness_factor.point(t)[0];
        match &self.pressure_factor {
            Some(p) => 0.5 * (g + p.point(t)[0]),
            None => g,
        }
    }

    pub fn half_thickness(&self, t: f64) -> f64 {
        let (hs, hp) = self.side_thickness(t);
        0.5 * (hs + hp)
    }

    /// Outline point at v in [-1, 1] (v > 0 suction side, v < 0 pressure side, v = 0 the
    /// leading-edge apex, v = +-1 the trailing-edge apex).
    pub fn point(&self, v: f64) -> Point2 {
        let s = (0.5 * PI * v).sin();
        let t = (s * s).min(1.0);
        let c = self.camber.point(t);
        let n = self.thickness_normal(t);
        let factor = match (&self.pressure_factor, v < 0.0) {
            (Some(g), true) => g.point(t)[0],
            _ => self.thickness_factor.point(t)[0],
        };
        let offset = 0.5 * (PI * v).sin() * factor;
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
        v.extend(self.pressure_thickness.iter());
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
        v.extend(self.pressure_thickness.iter_mut());
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
        // Chord frame: e along the chord, nu to its left (towards the suction side).
        let nu = [-e[1], e[0]];
        let along = |p: Point2| ((p[0] - le[0]) * e[0] + (p[1] - le[1]) * e[1]) / c;
        let (x1, xm1) = (along(p1), along(pm1));
        let n_in = self.camber.len();
        let mut pts = vec![le, p1];
        for (k, var) in self.camber.iter().enumerate() {
            let x = x1 + (k + 1) as f64 / (n_in + 1) as f64 * (xm1 - x1);
            let y = var.value;
            pts.push([le[0] + c * (x * e[0] + y * nu[0]), le[1] + c * (x * e[1] + y * nu[1])]);
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
        let c = self.chord.value;
        let (g_le, g_te) = ((2.0 * self.leading_edge_radius.value * speed(0.0)).sqrt(), (2.0 * self.trailing_edge_radius.value * speed(1.0)).sqrt());
        let factor = |vars: &[DesignVariable]| {
            let knots = super::curves::clamped_knots(degree, vars.len() + 2, edge_clustered);
            let greville = super::curves::greville_abscissae(degree, &knots);
            let mut g = vec![[g_le]];
            for (k, var) in vars.iter().enumerate() {
                let s = greville[k + 1];
                g.push([var.value * c / (s * (1.0 - s)).sqrt()]);
            }
            g.push([g_te]);
            BSpline { degree, knots, control: g }
        };
        let thickness_factor = factor(&self.thickness);
        let pressure_factor = if self.pressure_thickness.is_empty() {
            None
        } else {
            if self.pressure_thickness.len() + 2 <= degree {
                return Err(GeometryError::InvalidParameter { name: "pressure_thickness".into(), reason: "needs at least two control values".into() });
            }
            Some(factor(&self.pressure_thickness))
        };
        let curve = DesignCurve {
            camber,
            camber_derivative,
            thickness_factor,
            pressure_factor,
        };
        check_thickness(&curve)?;
        Ok(curve)
    }

    /// Dense outline, checked: positive thickness, no self-intersection, no overlap with the
    /// neighbouring blade at this pitch. Bounds are not checked here (see [`Self::from_vector`]).
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        self.outline_with(DEFAULT_OUTLINE_POINTS)
    }

    /// As [`Self::outline`] with about `n_points` points.
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

/// The blade's thickness factor must stay positive along the whole camber line (h = 0 only at
/// the edge apexes): g, or with a pressure-side law the mean of the two sides' factors. One
/// side alone may cross the camber line (a highly cambered blade whose camber line runs near
/// its pressure side, such as the T106C fit, has a negative pressure-side control value) as
/// long as the blade keeps a thickness; the outline checks then see that the sides do not
/// cross. A B-spline lies in the convex hull of its control values, but a negative control
/// value does not always make g negative, so g itself is sampled.
fn check_thickness(curve: &DesignCurve) -> Result<(), GeometryError> {
    const SAMPLES: usize = 2000;
    for k in 0..=SAMPLES {
        let t = k as f64 / SAMPLES as f64;
        if !(curve.thickness_factor_at(t) > 0.0) {
            return Err(GeometryError::NonPositiveThickness { at_percent: 100.0 * t, thickness_mm: 2e3 * curve.half_thickness(t) });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(name: &str, value: f64) -> DesignVariable {
        DesignVariable::new(name, value, value - 1.0, value + 1.0)
    }

    /// A turbine-like section: 0.1 m chord, 30 deg inlet, -60 deg exit metal angle.
    fn section(separate: bool) -> DesignParameterization {
        let thickness = |prefix: &str, scale: f64| (1..=6).map(|k| var(&format!("{prefix}_{k}"), scale * [0.04, 0.07, 0.08, 0.07, 0.05, 0.02][k - 1])).collect();
        DesignParameterization {
            stagger_deg: var("stagger_deg", -35.0),
            chord: var("chord", 0.1),
            inlet_metal_angle_deg: var("inlet_metal_angle_deg", 30.0),
            exit_metal_angle_deg: var("exit_metal_angle_deg", -60.0),
            leading_edge_tangent: var("leading_edge_tangent", 0.3),
            trailing_edge_tangent: var("trailing_edge_tangent", 0.3),
            camber: vec![var("camber_1", 0.1), var("camber_2", 0.12), var("camber_3", 0.08)],
            thickness: thickness("thickness", 1.0),
            pressure_thickness: if separate { thickness("pressure_thickness", 0.6) } else { vec![] },
            leading_edge_radius: var("leading_edge_radius", 0.004),
            trailing_edge_radius: var("trailing_edge_radius", 0.0008),
            pitch: var("pitch", 0.09),
            leading_edge: [0.0, 0.0],
        }
    }

    /// Curvature of the outline at parameter v by central differences.
    fn curvature(curve: &DesignCurve, v: f64) -> f64 {
        let h = 1e-4;
        let (a, b, c) = (curve.point(v - h), curve.point(v), curve.point(v + h));
        let d1 = [(c[0] - a[0]) / (2.0 * h), (c[1] - a[1]) / (2.0 * h)];
        let d2 = [(c[0] - 2.0 * b[0] + a[0]) / (h * h), (c[1] - 2.0 * b[1] + a[1]) / (h * h)];
        (d1[0] * d2[1] - d1[1] * d2[0]).abs() / (d1[0] * d1[0] + d1[1] * d1[1]).powf(1.5)
    }

    #[test]
    fn edges_are_round_with_the_design_radii() {
        for separate in [false, true] {
            let d = section(separate);
            let curve = d.curve().unwrap();
            let r_le = 1.0 / curvature(&curve, 0.0);
            let r_te = 1.0 / curvature(&curve, 1.0);
            assert!((r_le / 0.004 - 1.0).abs() < 1e-3, "separate {separate}: LE apex radius {r_le}");
            assert!((r_te / 0.0008 - 1.0).abs() < 1e-3, "separate {separate}: TE apex radius {r_te}");
            // The leading-edge apex is the leading-edge point, the camber leaves it at beta1.
            assert!(crate::geometry::dist(curve.point(0.0), d.leading_edge) < 1e-15);
            let outline = d.outline().unwrap();
            assert!(outline.points.len() >= 2000);
        }
    }

    #[test]
    fn vector_round_trip_and_frozen_variables() {
        let mut d = section(true);
        d.pitch.lower = d.pitch.value;
        d.pitch.upper = d.pitch.value;
        let x = d.to_vector();
        assert_eq!(x.len(), d.variables().len() - 1, "the frozen pitch is not in the vector");
        let space = d.design_space();
        assert_eq!(space.names.len(), x.len());
        assert!(!space.names.contains(&"pitch".to_string()));
        let mut y = x.clone();
        y[0] += 0.5;
        let e = d.from_vector(&y).unwrap();
        assert_eq!(e.stagger_deg.value, d.stagger_deg.value + 0.5);
        assert_eq!(e.to_vector(), y);
    }
}
