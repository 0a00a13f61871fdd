//! A blade given by one Bezier curve per side and a trailing-edge circle: the form in which the
//! LS89 vane is published (Mueller & Verstraete, "The LS89 Optimization Test Case", VKI 2016).

use super::curves::Bezier;
use super::sampling::{sample_closed, Piece, DEFAULT_OUTLINE_POINTS};
use super::validity::{check_leading_edge_closed, check_outline, GeometryError};
use super::{dist, Outline, Point2};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Circular trailing edge joining the ends of the two sides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrailingEdgeCircle {
    /// Centre [m].
    pub centre: Point2,
    /// Radius [m].
    pub radius: f64,
}

/// Suction- and pressure-side Bezier curves, each from the leading edge to the trailing edge,
/// closed by an optional trailing-edge circle (without one, both sides must end at one point).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BezierBlade {
    /// Suction-side control points [m], leading edge first.
    pub suction_side: Vec<Point2>,
    /// Pressure-side control points [m], leading edge first.
    pub pressure_side: Vec<Point2>,
    #[serde(default)]
    pub trailing_edge_circle: Option<TrailingEdgeCircle>,
}

/// Relative tolerance on the side ends lying on the trailing-edge circle, and absolute
/// tolerance (as a fraction of the blade size) on the sides meeting at the edges. The published
/// LS89 end points lie within 1 micrometre of the 0.710 mm circle.
const EDGE_RADIUS_TOLERANCE: f64 = 0.01;
const EDGE_GAP_TOLERANCE: f64 = 1e-6;

impl BezierBlade {
    /// The suction side as one Bezier curve (t = 0 at the leading edge).
    pub fn suction_curve(&self) -> Bezier<2> {
        Bezier::new(self.suction_side.clone())
    }

    /// The pressure side as one Bezier curve (t = 0 at the leading edge).
    pub fn pressure_curve(&self) -> Bezier<2> {
        Bezier::new(self.pressure_side.clone())
    }

    /// Size of the blade (largest extent of the control polygons), for relative tolerances.
    fn size(&self) -> f64 {
        let all = self.suction_side.iter().chain(&self.pressure_side);
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in all {
            for d in 0..2 {
                lo[d] = lo[d].min(p[d]);
                hi[d] = hi[d].max(p[d]);
            }
        }
        (hi[0] - lo[0]).max(hi[1] - lo[1])
    }

    /// Dense outline with the default number of points, validity checked.
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        self.outline_with(DEFAULT_OUTLINE_POINTS)
    }

    /// Dense outline with about `n_points` points: suction side, trailing-edge arc, pressure side
    /// backwards. Fails if the edges are not closed or the outline crosses itself.
    pub fn outline_with(&self, n_points: usize) -> Result<Outline, GeometryError> {
        for (name, side) in [("suction_side", &self.suction_side), ("pressure_side", &self.pressure_side)] {
            if side.len() < 3 {
                return Err(GeometryError::InvalidParameter { name: name.into(), reason: format!("needs at least 3 control points, got {}", side.len()) });
            }
            if side.iter().flatten().any(|v| !v.is_finite()) {
                return Err(GeometryError::InvalidParameter { name: name.into(), reason: "control point not finite".into() });
            }
        }
        let size = self.size();
        let (ss, ps) = (self.suction_curve(), self.pressure_curve());
        check_leading_edge_closed(ss.point(0.0), ps.point(0.0), EDGE_GAP_TOLERANCE * size)?;
        let (ss_end, ps_end) = (ss.point(1.0), ps.point(1.0));
        let mut pieces = vec![Piece::new(|t| ss.point(t), 0.0, 1.0)];
        match &self.trailing_edge_circle {
            Some(circle) => {
                let arc = trailing_edge_arc(circle, ss_end, ps_end, ss.derivative().point(1.0), ps.derivative().point(1.0))?;
                pieces.push(Piece::new(move |phi| arc.point(phi), 0.0, 1.0));
            }
            None => {
                let gap = dist(ss_end, ps_end);
                if gap > EDGE_GAP_TOLERANCE * size {
                    return Err(GeometryError::TrailingEdgeNotClosed {
                        detail: format!("the sides end {:.4} mm apart and no trailing-edge circle is given", gap * 1e3),
                    });
                }
            }
        }
        pieces.push(Piece::new(|t| ps.point(t), 1.0, 0.0));
        let outline = sample_closed(&pieces, n_points);
        check_outline(&outline)?;
        Ok(outline)
    }
}

/// The trailing-edge arc from the suction-side end to the pressure-side end, round the
/// downstream side of the circle; the radius is blended linearly between the two end distances
/// so the outline is exactly continuous even where the published points are off by rounding.
pub(crate) struct Arc {
    centre: Point2,
    start_angle: f64,
    sweep: f64,
    r0: f64,
    r1: f64,
}

impl Arc {
    pub(crate) fn point(&self, w: f64) -> Point2 {
        let a = self.start_angle + w * self.sweep;
        let r = self.r0 + w * (self.r1 - self.r0);
        [self.centre[0] + r * a.cos(), self.centre[1] + r * a.sin()]
    }
}

pub(crate) fn trailing_edge_arc(
    circle: &TrailingEdgeCircle,
    suction_end: Point2,
    pressure_end: Point2,
    suction_tangent: Point2,
    pressure_tangent: Point2,
) -> Result<Arc, GeometryError> {
    let c = circle.centre;
    if !(circle.radius > 0.0) {
        return Err(GeometryError::InvalidParameter { name: "trailing_edge_circle.radius".into(), reason: format!("must be positive, got {}", circle.radius) });
    }
    let (r0, r1) = (dist(suction_end, c), dist(pressure_end, c));
    for (side, r) in [("suction", r0), ("pressure", r1)] {
        if (r - circle.radius).abs() > EDGE_RADIUS_TOLERANCE * circle.radius {
            return Err(GeometryError::TrailingEdgeNotClosed {
                detail: format!(
                    "the {side} side ends {:.4} mm from the trailing-edge circle centre, not on the circle of radius {:.4} mm",
                    r * 1e3,
                    circle.radius * 1e3
                ),
            });
        }
    }
    let a0 = (suction_end[1] - c[1]).atan2(suction_end[0] - c[0]);
    let a1 = (pressure_end[1] - c[1]).atan2(pressure_end[0] - c[0]);
    // Both sides run leading edge -> trailing edge, so their end tangents point downstream; the
    // arc is the one whose middle faces that way.
    let unit = |v: Point2| {
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        [v[0] / n, v[1] / n]
    };
    let (ts, tp) = (unit(suction_tangent), unit(pressure_tangent));
    let downstream = [ts[0] + tp[0], ts[1] + tp[1]];
    let clockwise = (a0 - a1).rem_euclid(2.0 * PI);
    let mid = a0 - 0.5 * clockwise;
    let sweep = if mid.cos() * downstream[0] + mid.sin() * downstream[1] > 0.0 { -clockwise } else { 2.0 * PI - clockwise };
    Ok(Arc { centre: c, start_angle: a0, sweep, r0, r1 })
}
