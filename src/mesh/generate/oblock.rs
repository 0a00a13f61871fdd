//! The blade wall and the O-grid around it.
//!
//! The wall is the closed outline, oriented clockwise (leading edge, upper = suction side,
//! trailing edge, lower = pressure side), so that with i running clockwise round the blade and
//! j running away from the wall the cells have positive area. The O-grid is marched away from
//! the wall along node normals, layer by layer, with geometric growth from the first-cell
//! height; the normals of the first layers are the exact wall bisectors (near-orthogonal wall
//! cells), the outer layers use increasingly smoothed normals so that the outer curve is fair
//! round the trailing edge and over concave parts of the pressure side.

use super::distribution::{add, dist, graded_distribution, left_normal, scale, sub, unit, Polyline, SpacingAt, P2};
use crate::error::Error;
use crate::geometry::Outline;

/// The blade wall as a closed curve parametrized by arc length from the leading edge.
#[derive(Clone, Debug)]
pub struct Wall {
    /// Closed polyline: the leading-edge point is first and repeated last.
    pub curve: Polyline,
    /// Arc length of the trailing-edge point.
    pub s_te: f64,
    /// Local radius of curvature at the polyline vertices (smoothed), for spacing caps.
    radius: Vec<(f64, f64)>,
}

impl Wall {
    /// Checks the outline and orients it clockwise.
    pub fn new(outline: &Outline) -> Result<Self, Error> {
        let n = outline.points.len();
        if n < 20 {
            return Err(Error::Mesh(format!("blade outline has {n} points; at least 20 are needed")));
        }
        if outline.trailing_edge == 0 || outline.trailing_edge >= n {
            return Err(Error::Mesh(format!("trailing-edge index {} outside 1..{n}", outline.trailing_edge)));
        }
        if outline.points.iter().any(|p| !p[0].is_finite() || !p[1].is_finite()) {
            return Err(Error::Mesh("blade outline has non-finite coordinates".into()));
        }
        let signed_area: f64 = (0..n)
            .map(|k| {
                let (p, q) = (outline.points[k], outline.points[(k + 1) % n]);
                0.5 * (p[0] * q[1] - q[0] * p[1])
            })
            .sum();
        if signed_area.abs() < 1e-12 {
            return Err(Error::Mesh("blade outline encloses no area".into()));
        }
        let (mut pts, te) = if signed_area < 0.0 {
            (outline.points.clone(), outline.trailing_edge)
        } else {
            // Counter-clockwise: walk it backwards, keeping the leading edge first.
            let mut p = vec![outline.points[0]];
            p.extend(outline.points[1..].iter().rev());
            (p, n - outline.trailing_edge)
        };
        pts.push(pts[0]);
        let mut s_te = 0.0;
        for k in 1..=te {
            s_te += dist(pts[k - 1], pts[k]);
        }
        let curve = Polyline::new(pts);
        let radius = curvature_radius(&curve);
        Ok(Wall { curve, s_te, radius })
    }

    pub fn perimeter(&self) -> f64 {
        self.curve.length()
    }

    /// Point at arc length `s`, taken modulo the perimeter.
    pub fn at(&self, s: f64) -> P2 {
        self.curve.at(s.rem_euclid(self.perimeter()))
    }

    /// Outward unit normal at arc length `s` (the wall runs clockwise, so outward is to the
    /// left of the direction of travel).
    pub fn normal(&self, s: f64) -> P2 {
        let h = 1e-4 * self.perimeter();
        left_normal(unit(sub(self.at(s + h), self.at(s - h))))
    }

    /// The smallest radius of curvature of the concave stretches of the wall (measured as
    /// [`Wall::radius_at`]) and where it is; infinite for a convex blade.
    pub fn tightest_concave_stretch(&self) -> (f64, P2) {
        let w = WINDOW_OF_PERIMETER * self.perimeter();
        // Clockwise walk: a left turn (positive) is a concave stretch.
        let tightest = windowed_turns(&self.curve).into_iter().filter(|&(_, turn)| turn > 1e-12).map(|(s, turn)| (w / turn, s));
        match tightest.min_by(|a, b| a.0.total_cmp(&b.0)) {
            Some((radius, s)) => (radius, self.at(s)),
            None => (f64::INFINITY, self.at(0.0)),
        }
    }

    /// Smoothed radius of curvature at arc length `s` (piecewise constant between vertices).
    pub fn radius_at(&self, s: f64) -> f64 {
        let s = s.rem_euclid(self.perimeter());
        let k = self.radius.partition_point(|r| r.0 <= s).saturating_sub(1);
        self.radius[k].1
    }
}

/// Arc lengths of the polyline vertices and the turning angle of the wall over a window of
/// 1/1000 of the perimeter either side of each vertex (signed: negative where a clockwise walk
/// turns right, round the convex parts of the blade; positive over concave stretches).
fn windowed_turns(curve: &Polyline) -> Vec<(f64, f64)> {
    let p = curve.points();
    let n = p.len() - 1; // closed: last = first
    let len = curve.length();
    let w = WINDOW_OF_PERIMETER * len;
    let mut s = vec![0.0; n];
    for k in 1..n {
        s[k] = s[k - 1] + dist(p[k - 1], p[k]);
    }
    let at = |v: f64| curve.at(v.rem_euclid(len));
    (0..n)
        .map(|k| {
            let (a, b, c) = (at(s[k] - w), p[k], at(s[k] + w));
            let t1 = unit(sub(b, a));
            let t2 = unit(sub(c, b));
            (s[k], super::distribution::cross(t1, t2).atan2(super::distribution::dot(t1, t2)))
        })
        .collect()
}

/// The window of [`windowed_turns`], as a share of the perimeter.
const WINDOW_OF_PERIMETER: f64 = 1e-3;

/// Radius of curvature at each vertex from the turning angle between the chords to the
/// points one window back and one window ahead along the wall (a fixed arc length, 1/1000 of
/// the perimeter, so that unevenly spaced outline points do not fake sharp corners); returned
/// with the vertex arc lengths.
fn curvature_radius(curve: &Polyline) -> Vec<(f64, f64)> {
    let w = WINDOW_OF_PERIMETER * curve.length();
    windowed_turns(curve)
        .into_iter()
        .map(|(s, turn)| (s, if turn.abs() > 1e-12 { (w / turn.abs()).max(1e-9) } else { f64::INFINITY }))
        .collect()
}

/// Wall-node arc lengths for one segment `[s0, s1]` of the wall (walked forwards) with `n`
/// cells: spacing (at most) `h_ends` at the two ends, at most `turn` radians of wall turning per
/// cell.
pub fn wall_segment(wall: &Wall, s0: f64, s1: f64, n: usize, h_ends: [f64; 2], turn: f64, ratio: f64) -> Result<Vec<f64>, Error> {
    let len = s1 - s0;
    let cap = |s: f64| wall.radius_at(s0 + s) * turn;
    let t = [SpacingAt { s: 0.0, h: h_ends[0] }, SpacingAt { s: len, h: h_ends[1] }];
    Ok(graded_distribution(len, n, &t, Some(&cap), ratio)?.into_iter().map(|v| s0 + v).collect())
}

/// The curvature caps of the wall segment `[s0, s1]` (at most `turn` radians per cell), sampled
/// once for the cells it needs ([`WallSegmentCaps::cells_needed`]) at many end spacings and
/// largest cells.
pub struct WallSegmentCaps {
    len: f64,
    caps: super::distribution::SampledCaps,
}

impl WallSegmentCaps {
    pub fn new(wall: &Wall, s0: f64, s1: f64, turn: f64) -> Self {
        let len = s1 - s0;
        let cap = |s: f64| wall.radius_at(s0 + s) * turn;
        WallSegmentCaps { len, caps: super::distribution::SampledCaps::new(len, Some(&cap)) }
    }

    /// Cells (fractional) with spacing `h_end` at both ends, cells growing by at most `ratio`,
    /// none larger than `h_max`.
    pub fn cells_needed(&self, h_end: f64, ratio: f64, h_max: f64) -> f64 {
        let t = [SpacingAt { s: 0.0, h: h_end }, SpacingAt { s: self.len, h: h_end }];
        self.caps.cells_needed(&t, ratio, h_max)
    }
}

/// The O-grid: `(ni+1) x (nj+1)` nodes, i fastest, the last i column repeating the first.
pub struct OGrid {
    pub ni: usize,
    pub nj: usize,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

impl OGrid {
    pub fn node(&self, i: usize, j: usize) -> P2 {
        let k = i + (self.ni + 1) * j;
        [self.x[k], self.y[k]]
    }
    /// Outer-layer node i.
    pub fn outer(&self, i: usize) -> P2 {
        self.node(i % self.ni, self.nj)
    }
    /// Unit direction of the grid line leaving the O-grid at outer node i.
    pub fn outer_direction(&self, i: usize) -> P2 {
        unit(sub(self.node(i % self.ni, self.nj), self.node(i % self.ni, self.nj - 1)))
    }
    /// Height of the outermost cell layer at outer node i.
    pub fn outer_spacing(&self, i: usize) -> f64 {
        dist(self.node(i % self.ni, self.nj), self.node(i % self.ni, self.nj - 1))
    }
}

/// Marches `layers.len()` layers of heights `layers[j]` from the wall nodes `wall_nodes`
/// (closed, clockwise, first not repeated).
pub fn march_ogrid(wall_nodes: &[P2], layers: &[f64]) -> Result<OGrid, Error> {
    let ni = wall_nodes.len();
    let nj = layers.len();
    let mut x = vec![0.0; (ni + 1) * (nj + 1)];
    let mut y = vec![0.0; (ni + 1) * (nj + 1)];
    let mut cur: Vec<P2> = wall_nodes.to_vec();
    let store = |x: &mut [f64], y: &mut [f64], j: usize, layer: &[P2]| {
        for i in 0..=ni {
            let p = layer[i % ni];
            x[i + (ni + 1) * j] = p[0];
            y[i + (ni + 1) * j] = p[1];
        }
    };
    store(&mut x, &mut y, 0, &cur);
    for (j, &h) in layers.iter().enumerate() {
        let mut n: Vec<P2> = (0..ni)
            .map(|i| {
                // Bisector of the two adjacent segment normals (outward = left, clockwise wall).
                let a = unit(sub(cur[i], cur[(i + ni - 1) % ni]));
                let b = unit(sub(cur[(i + 1) % ni], cur[i]));
                unit(left_normal(add(a, b)))
            })
            .collect();
        // Smoothing grows with the distance from the wall: none in the first layers (wall
        // orthogonality), then enough to spread the normals round convex corners.
        let passes = j.saturating_sub(3).min(40);
        for _ in 0..passes {
            n = (0..ni)
                .map(|i| unit(add(scale(n[i], 0.5), scale(add(n[(i + ni - 1) % ni], n[(i + 1) % ni]), 0.25))))
                .collect();
        }
        cur = (0..ni).map(|i| add(cur[i], scale(n[i], h))).collect();
        store(&mut x, &mut y, j + 1, &cur);
    }
    Ok(OGrid { ni, nj, x, y })
}
