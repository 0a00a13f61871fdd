//! The blade wall: its curve, curvature, the four corners where the passage blocks meet the
//! boundary-layer block, and the wall nodes.
//!
//! The wall is the closed outline, oriented clockwise (leading edge, upper = suction side,
//! trailing edge, lower = pressure side), parametrized by arc length `s` from the leading edge.
//! The corners split it into four arcs, each the inner face of one passage block:
//!
//! - the leading-edge arc `[le_dn, le_up]` (through s = 0) faces the inlet block;
//! - the covered suction side `[le_up, te_up]` faces the suction-side block;
//! - the rear arc `[te_up, te_dn]` (the uncovered suction side and the trailing edge) faces the
//!   outlet block;
//! - the covered pressure side `[te_dn, le_dn]` faces the pressure-side block.
//!
//! The suction-side and pressure-side blocks meet on the periodic line, so their two arcs carry
//! the same number of cells: a grid line from the suction side at `te_up` crosses the passage
//! to the neighbouring blade's `te_dn`. Where the exit flow turns far (a turbine), `te_dn` ends
//! the trailing-edge arc and `te_up` is the foot of the throat on the suction side, so that this
//! line is the throat and the lines of the covered passage cross it at right angles instead of
//! joining the two trailing edges one pitch straight up (`docs/mesh.md`).

use super::distribution::{cross, dist, dot, graded_distribution, left_normal, sub, unit, Polyline, SampledCaps, SpacingAt, P2};
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

    /// Unit tangent at arc length `s` (clockwise), from the chord over a ten-thousandth of the
    /// perimeter either side.
    pub fn tangent(&self, s: f64) -> P2 {
        let h = 1e-4 * self.perimeter();
        unit(sub(self.at(s + h), self.at(s - h)))
    }

    /// Outward unit normal of the chord from `s - window` to `s + window`: the normal the wall
    /// has when looked at from a distance of about `window`.
    pub fn normal_over(&self, s: f64, window: f64) -> P2 {
        left_normal(unit(sub(self.at(s + window), self.at(s - window))))
    }

    /// Smoothed radius of curvature at arc length `s` (piecewise constant between vertices).
    pub fn radius_at(&self, s: f64) -> f64 {
        let s = s.rem_euclid(self.perimeter());
        let k = self.radius.partition_point(|r| r.0 <= s).saturating_sub(1);
        self.radius[k].1
    }

    /// The radius of a concave stretch at `s` seen over `window` either side (infinite where
    /// the wall is straight or convex there): the distance from the wall at which the normals
    /// of that stretch meet.
    pub fn concave_radius_over(&self, s: f64, window: f64) -> f64 {
        let (a, b, c) = (self.at(s - window), self.at(s), self.at(s + window));
        let turn = cross(unit(sub(b, a)), unit(sub(c, b))).atan2(dot(unit(sub(b, a)), unit(sub(c, b))));
        // Clockwise walk: a left turn (positive) is concave.
        if turn > 1e-9 {
            window / turn
        } else {
            f64::INFINITY
        }
    }
}

/// The window of the curvature estimate, as a share of the perimeter: a fixed arc length, so
/// that unevenly spaced outline points do not fake sharp corners.
const WINDOW_OF_PERIMETER: f64 = 1e-3;

/// Radius of curvature at each vertex from the turning angle between the chords to the
/// points one window back and one window ahead along the wall; returned with the vertex arc
/// lengths.
fn curvature_radius(curve: &Polyline) -> Vec<(f64, f64)> {
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
            let (t1, t2) = (unit(sub(b, a)), unit(sub(c, b)));
            let turn = cross(t1, t2).atan2(dot(t1, t2));
            (s[k], if turn.abs() > 1e-12 { (w / turn.abs()).max(1e-9) } else { f64::INFINITY })
        })
        .collect()
}

/// The corners of the four wall arcs, as clockwise arc lengths: `le_up < te_up < te_dn <
/// le_dn` (all within one perimeter; the leading-edge arc runs from `le_dn` through the
/// perimeter's end and s = 0 to `le_up`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Corners {
    pub le_up: f64,
    pub te_up: f64,
    pub te_dn: f64,
    pub le_dn: f64,
}

/// Half-angle of the leading- and trailing-edge arcs: the wall whose normal lies within this
/// angle of the flow direction (against it at the leading edge, along it at the trailing
/// edge), round the point that faces it best.
const EDGE_ARC_HALF_ANGLE_DEG: f64 = 60.0;

/// Longest stretch of an edge arc either side of the point facing the flow best, as a share of
/// the perimeter.
const EDGE_ARC_SHARE: f64 = 0.03;

/// Largest share of a side that the corner searches may leave to the inlet or outlet block.
const CORNER_SEARCH_SHARE: f64 = 0.6;

/// Candidate positions of each corner of a crossing line in its search.
const CORNER_CANDIDATES: usize = 24;

/// The room across the passage that the grid lines leaving a stretch left to the inlet or
/// outlet block fit into, as a share of the crossing line's length ([`best_crossing`]).
const SQUEEZE_SHARE: f64 = 0.5;

/// Steps of the edge-arc searches along the wall.
const SEARCH_STEPS: usize = 600;

impl Corners {
    /// The corners of `wall` in a cascade of `pitch` with inflow and exit directions
    /// `inlet_deg` and `exit_deg` (from axial).
    pub fn find(wall: &Wall, pitch: f64, inlet_deg: f64, exit_deg: f64) -> Corners {
        let p = wall.perimeter();
        let facing = |deg: f64| [deg.to_radians().cos(), deg.to_radians().sin()];
        let (le_lo, le_hi) = edge_arc(wall, 0.0, [-facing(inlet_deg)[0], -facing(inlet_deg)[1]]);
        let (te_lo, te_hi) = edge_arc(wall, wall.s_te, facing(exit_deg));
        // le_lo lies before s = 0 (on the pressure side, as a negative arc length).
        let le_lo = le_lo + p;
        let ss = te_lo - le_hi;
        let ps = le_lo - te_hi;
        let share = CORNER_SEARCH_SHARE;
        // The trailing end first, against the leading-edge arc's ends; then the leading end
        // against it (scoring both ends again against each other's choice, or the leading end
        // without the lean, left fewer LS89 designs within every bound).
        let (te_up, te_dn) = best_crossing(wall, pitch, (te_lo, -share * ss), (te_hi, share * ps), Edge::Trailing, (le_hi, le_lo));
        let (le_up, le_dn) = best_crossing(wall, pitch, (le_hi, share * (te_up - le_hi).min(ss)), (le_lo, -share * (le_lo - te_dn).min(ps)), Edge::Leading, (te_up, te_dn));
        Corners { le_up, te_up, te_dn: te_dn.rem_euclid(p), le_dn: le_dn.rem_euclid(p) }
    }
}

/// Which end of the covered passage a crossing line closes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    Leading,
    Trailing,
}

/// The corners (suction-side arc length, pressure-side arc length) of the line that closes the
/// covered passage at one end: from the suction side to the neighbouring blade's pressure side,
/// one pitch up. Each end is searched from its edge arc's end (`a.0`, `b.0`) over a signed
/// stretch of the side (`a.1`, `b.1`). The line is scored by the worst of four angles, and the
/// best scored wins:
///
/// - the angle it makes with each side there (the corner cell of the covered passage's block,
///   and half its supplement, the two cells of the inlet or outlet block round the corner);
/// - for the stretches of the two sides it leaves to the inlet or outlet block, `atan(w / 2
///   l)` ([`SQUEEZE_SHARE`] = 1/2), with `w` the line's length and `l` the two stretches'
///   length together: that block's grid lines leave the stretches and must all fit, beside
///   the lines from the crossing line, into about half the passage's width before they turn
///   downstream (upstream), so they leave at about that angle. The two stretches share that
///   room (a line whose ends both sit far from the edge, e.g. one caught by a bump on the
///   pressure side, leaves a face wrapped round the whole rear of the blade);
/// - the lean of the lines across the covered passage that the line and the other end's line
///   (`other`: the edge arcs' ends while the trailing end is searched first) leave between
///   them, where it is below [`LEAN_LEAST_DEG`] ([`column_lean`]).
///
/// A trailing edge whose neighbour is straight across (a compressor, a wide pitch) keeps its
/// corners at the edge arc; one whose neighbour's trailing edge faces the suction side far
/// upstream (a turbine's uncovered turning) gets a line between the throat and the edge.
fn best_crossing(wall: &Wall, pitch: f64, a: (f64, f64), b: (f64, f64), edge: Edge, other: (f64, f64)) -> (f64, f64) {
    let angle = |u: P2, v: P2| dot(unit(u), unit(v)).clamp(-1.0, 1.0).acos().to_degrees();
    let score = |sa: f64, sb: f64| {
        let pa = wall.at(sa);
        let q = wall.at(sb);
        let d = sub([q[0], q[1] + pitch], pa);
        let w = d[0].hypot(d[1]);
        // Clockwise tangents: downstream on the suction side, upstream on the pressure side.
        let (ta, tb) = (wall.tangent(sa), wall.tangent(sb));
        let (theta_a, theta_b) = match edge {
            Edge::Trailing => (angle([-ta[0], -ta[1]], d), angle(tb, [-d[0], -d[1]])),
            Edge::Leading => (angle(ta, d), angle([-tb[0], -tb[1]], [-d[0], -d[1]])),
        };
        let corner = |t: f64| t.min(0.5 * (180.0 - t));
        let squeeze = |l: f64| (SQUEEZE_SHARE * w).atan2(l.abs()).to_degrees();
        let lean = match edge {
            Edge::Trailing => column_lean(wall, pitch, other, (sa, sb)),
            Edge::Leading => column_lean(wall, pitch, (sa, sb), other),
        };
        corner(theta_a).min(corner(theta_b)).min(squeeze((sa - a.0).abs() + (sb - b.0).abs())).min(leaning(lean))
    };
    let mut best = (f64::NEG_INFINITY, a.0, b.0);
    for ka in 0..=CORNER_CANDIDATES {
        let sa = a.0 + a.1 * ka as f64 / CORNER_CANDIDATES as f64;
        for kb in 0..=CORNER_CANDIDATES {
            let sb = b.0 + b.1 * kb as f64 / CORNER_CANDIDATES as f64;
            let v = score(sa, sb);
            if v > best.0 + 1e-9 {
                best = (v, sa, sb);
            }
        }
    }
    (best.1, best.2)
}

/// The score of a crossing line's [`column_lean`]: counted only below [`LEAN_LEAST_DEG`].
fn leaning(lean: f64) -> f64 {
    if lean < LEAN_LEAST_DEG {
        lean
    } else {
        f64::INFINITY
    }
}

/// The least angle the lines across the covered passage may make with the sides before the
/// crossing line is scored by it: the skewness bound 0.8 is a worst cell angle of 18 deg, and a
/// line leaving a side at about that angle leaves cells at the bound along it. Above it the
/// lean does not count: the elliptic smoothing straightens moderately leaning lines, while the
/// corner angles and the room of the inlet or outlet block are fixed by the wall (counted
/// always, a crossing that avoids a moderate lean moves its corners onto flat stretches of wall
/// where the boundary-layer block's outer row kinks; LS89 designs within every bound went from
/// 61.5 % to 15.4 % when the lean counted below 30 deg).
const LEAN_LEAST_DEG: f64 = 20.0;

/// Columns across the covered passage sampled by [`column_lean`].
const LEAN_SAMPLES: usize = 16;

/// The worst angle that the lines across the covered passage make with either side, for the
/// passage closed by the line `from` (suction-side and pressure-side arc lengths at the
/// leading end) and the line `to` (at the trailing end). The two sides carry the same number
/// of cells, so the k-th line joins points at about equal fractions of the two sides' arc
/// lengths; a crossing line that takes one side much further than the other (an exit line
/// reaching the suction side far downstream of the throat) makes every line between lean, and
/// the cells along the sides turn into diamonds. Estimated from the straight chords at equal
/// arc-length fractions.
fn column_lean(wall: &Wall, pitch: f64, from: (f64, f64), to: (f64, f64)) -> f64 {
    let worst = |t: P2, d: P2| {
        let theta = dot(t, unit(d)).clamp(-1.0, 1.0).acos().to_degrees();
        theta.min(180.0 - theta)
    };
    (1..LEAN_SAMPLES)
        .map(|k| {
            let f = k as f64 / LEAN_SAMPLES as f64;
            let (sa, sb) = (from.0 + f * (to.0 - from.0), from.1 + f * (to.1 - from.1));
            let (pa, pb) = (wall.at(sa), wall.at(sb));
            let d = sub([pb[0], pb[1] + pitch], pa);
            worst(wall.tangent(sa), d).min(worst(wall.tangent(sb), d))
        })
        .fold(f64::INFINITY, f64::min)
}

/// The arc round `s0` (within a tenth of the perimeter) whose outward normal lies within
/// [`EDGE_ARC_HALF_ANGLE_DEG`] of `dir`, grown both ways from the point that faces `dir` best;
/// returned as (start, end) arc lengths, start < s0 < end (not wrapped).
fn edge_arc(wall: &Wall, s0: f64, dir: P2) -> (f64, f64) {
    let p = wall.perimeter();
    let reach = 0.1 * p;
    let step = 2.0 * reach / SEARCH_STEPS as f64;
    let window = 2e-3 * p;
    let facing = |s: f64| dot(wall.normal_over(s, window), dir);
    let best = (0..=SEARCH_STEPS).map(|k| s0 - reach + k as f64 * step).max_by(|a, b| facing(*a).total_cmp(&facing(*b))).unwrap_or(s0);
    let threshold = EDGE_ARC_HALF_ANGLE_DEG.to_radians().cos();
    // A flat stretch facing the flow (a turbine's pressure side near its leading edge) is not
    // part of the edge: the arc ends where the wall stops turning like the edge's circle does.
    let half = EDGE_ARC_SHARE * p;
    let mut lo = best;
    while lo > best - half && facing(lo - step) >= threshold {
        lo -= step;
    }
    let mut hi = best;
    while hi < best + half && facing(hi + step) >= threshold {
        hi += step;
    }
    // At least a few steps either side: a pointed edge still gets an arc.
    let least = 4.0 * step;
    (lo.min(best - least), hi.max(best + least))
}

/// The wall's node distribution: four arcs walked clockwise from `te_up` (the boundary-layer
/// block's i = 0): the rear arc (`n_te` cells), the covered pressure side (`n_side`), the
/// leading-edge arc (`n_le`), the covered suction side (`n_side`); every count a multiple of 8.
#[derive(Clone, Debug)]
pub struct WallArcs {
    /// Arc lengths of the four arcs' starts and the end of the last, increasing from `te_up`
    /// (so some exceed the perimeter).
    pub bounds: [f64; 5],
    pub n_te: usize,
    pub n_side: usize,
    pub n_le: usize,
}

impl WallArcs {
    /// Cell counts from the wall's curvature (at most `turn_deg` of turning per cell), growth
    /// `ratio` along the wall, cells of at most `corner_cell` at the four corners (where the
    /// passage blocks' lines leave the boundary-layer block's outer curve with its
    /// continuation: the cells round a corner are then alike), and a common largest cell chosen
    /// so that the total is about `target_cells`.
    pub fn new(wall: &Wall, corners: &Corners, target_cells: usize, turn_deg: f64, ratio: f64, corner_cell: f64) -> Self {
        let p = wall.perimeter();
        let b = [corners.te_up, corners.te_dn, corners.le_dn, corners.le_up + p, corners.te_up + p];
        let turn = turn_deg.to_radians();
        let caps: Vec<SampledCaps> = (0..4)
            .map(|k| {
                let s0 = b[k];
                let cap = move |s: f64| wall.radius_at(s0 + s) * turn;
                SampledCaps::new(b[k + 1] - s0, Some(&cap))
            })
            .collect();
        let junction = |k: usize, h_max: f64| (wall.radius_at(b[k % 4]) * turn).min(corner_cell).min(h_max);
        let needs = |h_max: f64| -> [f64; 4] {
            let mut n = [0.0; 4];
            for k in 0..4 {
                let ends = [SpacingAt { s: 0.0, h: junction(k, h_max) }, SpacingAt { s: b[k + 1] - b[k], h: junction(k + 1, h_max) }];
                n[k] = caps[k].cells_needed(&ends, ratio, h_max);
            }
            n
        };
        let total = |n: [f64; 4]| n[0] + 2.0 * n[1].max(n[3]) + n[2];
        let (mut lo, mut hi) = (1e-6 * p, p);
        for _ in 0..60 {
            let mid = (lo * hi).sqrt();
            if total(needs(mid)) > target_cells as f64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let n = needs(hi);
        WallArcs { bounds: b, n_te: ceil8(n[0]), n_side: ceil8(n[1].max(n[3])), n_le: ceil8(n[2]) }
    }

    /// Cells of each arc, in wall order.
    pub fn counts(&self) -> [usize; 4] {
        [self.n_te, self.n_side, self.n_le, self.n_side]
    }

    /// Total cells round the wall.
    pub fn total(&self) -> usize {
        self.counts().iter().sum()
    }

    /// Wall-node arc lengths (the last not repeated), each arc with at most `turn_deg` of
    /// turning per cell and cells growing by at most `ratio`. The arcs meet with equal cells: a
    /// target size is only an upper bound (an arc with cells to spare is finer everywhere), so
    /// each junction's target is lowered to the smaller of the two cells that meet there until
    /// both arcs reach it.
    pub fn node_arc_lengths(&self, wall: &Wall, turn_deg: f64, ratio: f64, corner_cell: f64) -> Result<Vec<f64>, Error> {
        let turn = turn_deg.to_radians();
        let counts = self.counts();
        let b = self.bounds;
        let mut h: [f64; 4] = std::array::from_fn(|k| (wall.radius_at(b[k]) * turn).min(corner_cell));
        let mean = wall.perimeter() / self.total() as f64;
        for v in h.iter_mut() {
            *v = v.min(mean);
        }
        let mut arcs: Vec<Vec<f64>> = Vec::new();
        for _ in 0..6 {
            arcs.clear();
            for k in 0..4 {
                let (s0, s1) = (b[k], b[k + 1]);
                let cap = |s: f64| wall.radius_at(s0 + s) * turn;
                let ends = [SpacingAt { s: 0.0, h: h[k] }, SpacingAt { s: s1 - s0, h: h[(k + 1) % 4] }];
                let s = graded_distribution(s1 - s0, counts[k], &ends, Some(&cap), ratio)?;
                arcs.push(s.into_iter().map(|v| s0 + v).collect());
            }
            for k in 0..4 {
                let (before, after) = (&arcs[(k + 3) % 4], &arcs[k]);
                let n = before.len() - 1;
                h[k] = h[k].min(before[n] - before[n - 1]).min(after[1] - after[0]);
            }
        }
        let mut s = Vec::with_capacity(self.total());
        for (arc, &n) in arcs.iter().zip(&counts) {
            s.extend_from_slice(&arc[..n]);
        }
        Ok(s)
    }
}

/// `v` rounded up to a multiple of 8 (at least 8): three multigrid levels need it.
pub fn ceil8(v: f64) -> usize {
    ((v / 8.0).ceil().max(1.0) as usize) * 8
}
