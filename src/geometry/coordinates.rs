//! A blade imported as coordinates, made a smooth curve by a periodic interpolating cubic spline
//! through all the points (so the leading edge, where the sides meet, is smooth too).

use super::curves::CubicSpline;
use super::sampling::{sample_closed, Piece, DEFAULT_OUTLINE_POINTS};
use super::validity::{check_leading_edge_closed, check_outline, GeometryError};
use super::{dist, Outline, Point2};
use serde::{Deserialize, Serialize};

fn unit_scale() -> f64 {
    1.0
}

/// Imported blade coordinates. `scale` converts them to metres (0.001 for millimetres).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum CoordinateBlade {
    /// One point list per side, each from the leading edge to the trailing edge; both start at
    /// the same leading-edge point and end at the same trailing-edge point (lists that already
    /// run round a trailing-edge circle, as TN174's does, end where the other side ends).
    Sides {
        suction_side: Vec<Point2>,
        pressure_side: Vec<Point2>,
        #[serde(default = "unit_scale")]
        scale: f64,
    },
    /// A closed loop in either direction, first point not repeated. The leading edge is taken
    /// as the most upstream point, the suction side as the side that leaves it towards +y.
    Loop {
        points: Vec<Point2>,
        #[serde(default = "unit_scale")]
        scale: f64,
    },
}

/// Edge closure tolerance, relative to the blade size.
const EDGE_GAP_TOLERANCE: f64 = 1e-6;

impl CoordinateBlade {
    /// Dense outline with the default number of points, validity checked.
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        self.outline_with(DEFAULT_OUTLINE_POINTS)
    }

    /// Dense outline through the data, validity checked.
    pub fn outline_with(&self, n_points: usize) -> Result<Outline, GeometryError> {
        let (ring, te) = self.ordered_loop()?;
        if ring.iter().flatten().any(|v| !v.is_finite()) {
            return Err(GeometryError::InvalidParameter { name: "coordinates".into(), reason: "a coordinate is not finite".into() });
        }
        let spline = CubicSpline::closed(&ring).ok_or_else(|| GeometryError::InvalidParameter {
            name: "coordinates".into(),
            reason: "two consecutive points coincide (or fewer than 3 points)".into(),
        })?;
        let s_te = spline.knot(te);
        let pieces = [Piece::new(|s| spline.point(s), 0.0, s_te), Piece::new(|s| spline.point(s), s_te, spline.length())];
        let outline = sample_closed(&pieces, n_points);
        check_outline(&outline)?;
        Ok(outline)
    }

    /// The points as one loop in outline order (leading edge first, suction side, pressure side
    /// back), in metres, with the index of the trailing-edge point.
    fn ordered_loop(&self) -> Result<(Vec<Point2>, usize), GeometryError> {
        let scaled = |pts: &[Point2], s: f64| pts.iter().map(|p| [p[0] * s, p[1] * s]).collect::<Vec<_>>();
        match self {
            CoordinateBlade::Sides { suction_side, pressure_side, scale } => {
                let (ss, ps) = (scaled(suction_side, *scale), scaled(pressure_side, *scale));
                if ss.len() < 3 || ps.len() < 3 {
                    return Err(GeometryError::InvalidParameter { name: "coordinates".into(), reason: "each side needs at least 3 points".into() });
                }
                let size = extent(&ss).max(extent(&ps));
                check_leading_edge_closed(ss[0], ps[0], EDGE_GAP_TOLERANCE * size)?;
                let gap = dist(*ss.last().unwrap(), *ps.last().unwrap());
                if gap > EDGE_GAP_TOLERANCE * size {
                    return Err(GeometryError::TrailingEdgeNotClosed {
                        detail: format!("the suction and pressure sides end {:.4} mm apart", gap * 1e3),
                    });
                }
                let te = ss.len() - 1;
                let mut ring = ss;
                ring.extend(ps[1..ps.len() - 1].iter().rev());
                Ok((ring, te))
            }
            CoordinateBlade::Loop { points, scale } => {
                let mut ring = scaled(points, *scale);
                if ring.len() < 4 {
                    return Err(GeometryError::InvalidParameter { name: "coordinates".into(), reason: "a loop needs at least 4 points".into() });
                }
                // Outline order (leading edge, suction side on top, trailing edge, pressure side)
                // runs clockwise: negative signed area.
                let signed_area: f64 = (0..ring.len()).map(|k| {
                    let (p, q) = (ring[k], ring[(k + 1) % ring.len()]);
                    p[0] * q[1] - q[0] * p[1]
                }).sum();
                if signed_area > 0.0 {
                    ring.reverse();
                }
                let le = ring.iter().enumerate().min_by(|a, b| a.1[0].total_cmp(&b.1[0])).map(|(k, _)| k).unwrap();
                ring.rotate_left(le);
                let te = super::sampling::most_downstream(&ring);
                Ok((ring, te))
            }
        }
    }
}

fn extent(pts: &[Point2]) -> f64 {
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for p in pts {
        for d in 0..2 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    (hi[0] - lo[0]).max(hi[1] - lo[1])
}
