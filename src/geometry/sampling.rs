//! Turning exact parametric curves into the dense [`Outline`] polyline, with points clustered
//! where the curvature is high (leading and trailing edges).

use super::{dist, Outline, Point2};

/// One parametric piece of a closed outline, traversed from `t0` to `t1`; the end of a piece is
/// the start of the next one, and the end of the last piece is the start of the first.
pub struct Piece<'a> {
    pub curve: Box<dyn Fn(f64) -> Point2 + 'a>,
    pub t0: f64,
    pub t1: f64,
}

impl<'a> Piece<'a> {
    /// The curve traversed from parameter `t0` to `t1` (either direction).
    pub fn new(curve: impl Fn(f64) -> Point2 + 'a, t0: f64, t1: f64) -> Self {
        Piece { curve: Box::new(curve), t0, t1 }
    }
}

/// Default number of outline points: enough that the chordal error of the polyline stays below
/// a micrometre on a 50-100 mm blade even round a 0.7 mm trailing-edge circle.
pub const DEFAULT_OUTLINE_POINTS: usize = 3000;

/// Dense pre-sampling per piece, uniform in the parameter, used only to measure the curve.
const PRESAMPLES_PER_PIECE: usize = 4000;

/// Share of the points placed by turning angle rather than by arc length: half of them, so a
/// segment never turns the tangent by more than about 2 pi / (n/2) and never exceeds about
/// 2 perimeter / n in length.
const CURVATURE_SHARE: f64 = 0.5;

/// Sample a closed piecewise-parametric outline with about `n_points` points whose density is
/// uniform in the measure  ds / perimeter + (|d theta| / 2 pi)  (arc length plus turning angle).
pub fn sample_closed(pieces: &[Piece], n_points: usize) -> Outline {
    struct Dense {
        t: Vec<f64>,
        measure: Vec<f64>, // cumulative, unnormalized pieces of the two terms
    }
    let dense_points: Vec<(Vec<f64>, Vec<Point2>)> = pieces
        .iter()
        .map(|p| {
            let t: Vec<f64> = (0..=PRESAMPLES_PER_PIECE)
                .map(|k| p.t0 + (p.t1 - p.t0) * k as f64 / PRESAMPLES_PER_PIECE as f64)
                .collect();
            let x = t.iter().map(|&t| (p.curve)(t)).collect();
            (t, x)
        })
        .collect();
    let perimeter: f64 = dense_points.iter().map(|(_, x)| x.windows(2).map(|w| dist(w[0], w[1])).sum::<f64>()).sum();
    let turning = |a: Point2, b: Point2, c: Point2| {
        let (u, v) = ([b[0] - a[0], b[1] - a[1]], [c[0] - b[0], c[1] - b[1]]);
        (u[0] * v[1] - u[1] * v[0]).atan2(u[0] * v[0] + u[1] * v[1]).abs()
    };
    let dense: Vec<Dense> = dense_points
        .into_iter()
        .map(|(t, x)| {
            let n = x.len();
            let mut measure = vec![0.0; n];
            for k in 1..n {
                let len = dist(x[k - 1], x[k]) / perimeter;
                let th0 = if k >= 2 { turning(x[k - 2], x[k - 1], x[k]) } else { 0.0 };
                let th1 = if k + 1 < n { turning(x[k - 1], x[k], x[k + 1]) } else { 0.0 };
                let bend = 0.5 * (th0 + th1) / (2.0 * std::f64::consts::PI);
                measure[k] = measure[k - 1] + (1.0 - CURVATURE_SHARE) * len + CURVATURE_SHARE * bend;
            }
            Dense { t, measure }
        })
        .collect();
    let total: f64 = dense.iter().map(|d| *d.measure.last().unwrap()).sum();
    let mut points = Vec::with_capacity(n_points + pieces.len());
    for (piece, d) in pieces.iter().zip(&dense) {
        let m_end = *d.measure.last().unwrap();
        let n_seg = ((n_points as f64 * m_end / total).round() as usize).max(2);
        for j in 0..n_seg {
            let target = m_end * j as f64 / n_seg as f64;
            let k = d.measure.partition_point(|&m| m <= target).clamp(1, d.measure.len() - 1);
            let (m0, m1) = (d.measure[k - 1], d.measure[k]);
            let w = if m1 > m0 { (target - m0) / (m1 - m0) } else { 0.0 };
            let t = d.t[k - 1] + w * (d.t[k] - d.t[k - 1]);
            points.push((piece.curve)(t));
        }
    }
    let trailing_edge = most_downstream(&points);
    Outline { points, trailing_edge }
}

/// Index of the most downstream (largest x) point.
pub fn most_downstream(points: &[Point2]) -> usize {
    points
        .iter()
        .enumerate()
        .max_by(|a, b| a.1[0].total_cmp(&b.1[0]))
        .map(|(k, _)| k)
        .unwrap_or(0)
}
