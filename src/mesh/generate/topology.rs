//! The O-H block layout: the mid-passage periodic line and where the O-grid's outer curve is
//! split into leading-edge, upper, trailing-edge and lower arcs.
//!
//! The periodic line M runs from the inlet to the outlet half a pitch above the blade's mean
//! line; its copy M - pitch runs below. Between them lie the upstream block U, the upper
//! passage block A (O-grid upper arc to M), the lower block B (lower arc to M - pitch) and the
//! downstream block D. A's top and B's bottom are periodic images, so the connectors that close
//! A and B must meet M and M - pitch at the same arc length of M: the arc split points are
//! chosen so that both connectors leave the O-grid roughly along its normals (see
//! `splits`).

use super::distribution::{add, scale, sub, unit, Polyline, P2};
use super::oblock::Wall;
use super::PassageSpec;
use crate::error::Error;

/// The mid-passage line M, from x = inlet_x to x = outlet_x, as a graph y(x).
///
/// Over the blade: half-way between the blade and its neighbour one pitch up, measured
/// vertically (the mean of the highest and lowest wall points at each x, plus half a pitch),
/// lightly smoothed. Upstream and downstream: the slope varies linearly over one axial chord
/// from the mean line's end slope to
///
/// - upstream, the inlet angle hint (the flow arrives along M);
/// - downstream, HALF the outlet angle hint. Following the full exit angle (-74 deg for LS89)
///   over the 64 mm outlet region would give 16-degree cells in the downstream block, since the
///   outlet face is vertical; with half the angle the cells keep at least ~50 degrees while the
///   lines still follow the wake direction near the trailing edge, where it matters.
pub fn midline(wall: &Wall, spec: &PassageSpec, axial_chord: f64) -> Result<Polyline, Error> {
    let pts = wall.curve.points();
    let (x_le, x_te) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p[0]), b.max(p[0])));
    let m = 240;
    let mut core: Vec<P2> = Vec::with_capacity(m + 1);
    for k in 0..=m {
        // Cosine spacing resolves the rounded ends.
        let f = 0.5 - 0.5 * (std::f64::consts::PI * k as f64 / m as f64).cos();
        let x = x_le + (x_te - x_le) * (1e-4 + f * (1.0 - 2e-4));
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for w in pts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if (a[0] - x) * (b[0] - x) <= 0.0 && a[0] != b[0] {
                let y = a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]);
                lo = lo.min(y);
                hi = hi.max(y);
            }
        }
        if !lo.is_finite() {
            return Err(Error::Mesh(format!("blade outline has no wall point at x = {x:e} m")));
        }
        core.push([x, 0.5 * (lo + hi) + 0.5 * spec.pitch]);
    }
    // Light smoothing (three-point filter, end points kept) against polyline kinks.
    for _ in 0..20 {
        let old = core.clone();
        for k in 1..m {
            core[k][1] = 0.25 * old[k - 1][1] + 0.5 * old[k][1] + 0.25 * old[k + 1][1];
        }
    }
    let k5 = core.iter().position(|p| p[0] >= x_le + 0.05 * (x_te - x_le)).unwrap_or(m / 10).max(1);
    let d_start = unit(sub(core[k5], core[0]));
    let d_end = unit(sub(core[m], core[m - k5]));
    if d_start[0] < 0.1 || d_end[0] < 0.1 {
        return Err(Error::Mesh(
            "the blade mean line is steeper than 84 deg at an end; cannot extend the periodic line up- and downstream".into(),
        ));
    }
    let (x0, y0) = (core[0][0], core[0][1]);
    let (x1, y1) = (core[m][0], core[m][1]);
    if spec.inlet_x >= x0 || spec.outlet_x <= x1 {
        return Err(Error::Mesh(format!(
            "inlet_x = {} and outlet_x = {} must lie outside the blade's axial extent [{x0}, {x1}]",
            spec.inlet_x, spec.outlet_x
        )));
    }
    let k0 = d_start[1] / d_start[0];
    let k_in = spec.inlet_angle_deg.to_radians().tan();
    let k1 = d_end[1] / d_end[0];
    let k_out = (0.5 * spec.outlet_angle_deg).to_radians().tan();

    // y offset after walking a distance u from the junction, with the slope going linearly from
    // `a` to `b` over `lb` and constant after.
    let rise = |u: f64, a: f64, b: f64, lb: f64| {
        if u <= lb {
            a * u + (b - a) * u * u / (2.0 * lb)
        } else {
            a * lb + (b - a) * lb / 2.0 + b * (u - lb)
        }
    };
    let mut pts = Vec::new();
    let n_up = 120;
    let lb_up = (x0 - spec.inlet_x).min(axial_chord);
    for k in 0..n_up {
        let u = (x0 - spec.inlet_x) * (1.0 - k as f64 / n_up as f64);
        let x = if k == 0 { spec.inlet_x } else { x0 - u };
        pts.push([x, y0 - rise(u, k0, k_in, lb_up)]);
    }
    pts.extend_from_slice(&core);
    let n_dn = 160;
    let lb_dn = (spec.outlet_x - x1).min(axial_chord);
    for k in 1..=n_dn {
        let u = (spec.outlet_x - x1) * k as f64 / n_dn as f64;
        let x = if k == n_dn { spec.outlet_x } else { x1 + u };
        pts.push([x, y1 + rise(u, k1, k_out, lb_dn)]);
    }
    Ok(Polyline::new(pts))
}

/// Where the O-grid's outer curve is split, as wall arc lengths, and where the four
/// connectors meet the periodic line (as arc lengths of M).
#[derive(Clone, Copy, Debug)]
pub struct Splits {
    /// Lower-side end of the leading-edge arc (walked back from the leading edge).
    pub le_lower: f64,
    /// Upper-side end of the leading-edge arc.
    pub le_upper: f64,
    /// Upper-side start of the trailing-edge arc.
    pub te_upper: f64,
    /// Lower-side end of the trailing-edge arc.
    pub te_lower: f64,
    /// Arc length of M where the leading-edge connectors end.
    pub m_le: f64,
    /// Arc length of M where the trailing-edge connectors end.
    pub m_te: f64,
}

/// Arc length on M of the point nearest to the estimated outer-curve point above wall arc
/// length `s` (`shift` = pitch for points on the lower side, which face M - pitch).
fn foot_on_m(wall: &Wall, m: &Polyline, s: f64, thickness: f64, shift: f64) -> f64 {
    let q = add(wall.at(s), scale(wall.normal(s), thickness));
    m.closest_param([q[0], q[1] + shift])
}

/// Finds, on the wall arcs `s(d) = origin + sign * d` for d in `[d_min, d_max]`, the point
/// whose foot on M is closest to `target`.
#[allow(clippy::too_many_arguments)]
fn match_split(
    wall: &Wall,
    m: &Polyline,
    thickness: f64,
    shift: f64,
    origin: f64,
    sign: f64,
    (d_min, d_max): (f64, f64),
    target: f64,
) -> f64 {
    let steps = 400;
    let mut best = (f64::INFINITY, d_min);
    for k in 0..=steps {
        let d = d_min + (d_max - d_min) * k as f64 / steps as f64;
        let err = (foot_on_m(wall, m, origin + sign * d, thickness, shift) - target).abs();
        if err < best.0 {
            best = (err, d);
        }
    }
    best.1
}

/// Share of each side's arc length that the leading-edge arc covers.
pub const LE_ARC_FRACTION: f64 = 0.06;

/// Share of the upper side over which the trailing-edge arc's upper end may be moved upstream.
pub const TE_UPPER_REACH: f64 = 0.1;

/// Chooses the arc split points.
///
/// Leading edge: the arc covers the first [`LE_ARC_FRACTION`] of each side; the connectors
/// meet M (and M - pitch) at the mean of the two end points' feet.
///
/// Trailing edge: the lower end is where the wall has turned 150 degrees from the
/// trailing-edge tangent (just past the trailing-edge circle). Because A's top and B's bottom
/// are periodic images, both connectors must meet M at the same place, while the points of M
/// nearest to the two arc ends lie far apart on a highly staggered blade (about 15 mm for
/// LS89). The upper end is therefore moved upstream, within [`TE_UPPER_REACH`] of the upper
/// side, towards the point whose foot matches the lower end's, and the connectors meet M at
/// the mean of the two feet: both connectors are sheared a little instead of one a lot. (A
/// reach of 35 % with the connectors at the lower foot gave unsheared B connectors but
/// near-degenerate cells, down to 0.02 deg, where the long trailing-edge arc folds D round the
/// rear of the suction side; 10 % and the mean keep every cell corner above 4 deg.)
pub fn splits(wall: &Wall, m: &Polyline, thickness: f64, pitch: f64) -> Splits {
    let p = wall.perimeter();
    let (up_len, lo_len) = (wall.s_te, p - wall.s_te);
    let turn = |s0: f64, sign: f64, deg: f64, lim: f64| wall.turning_distance(s0, sign, deg.to_radians(), lim);

    let le_upper = LE_ARC_FRACTION * up_len;
    let t_le = foot_on_m(wall, m, le_upper, thickness, 0.0);
    let le_lower = p - LE_ARC_FRACTION * lo_len;

    let d_te_lo = turn(wall.s_te, 1.0, 150.0, 0.3 * lo_len);
    let te_lower = wall.s_te + d_te_lo;
    let t_te = foot_on_m(wall, m, te_lower, thickness, pitch);
    let d_up_min = turn(wall.s_te, -1.0, 30.0, 0.3 * up_len);
    let d_up = match_split(wall, m, thickness, 0.0, wall.s_te, -1.0, (d_up_min, TE_UPPER_REACH * up_len), t_te);
    let te_upper = wall.s_te - d_up;

    let t_le_lo = foot_on_m(wall, m, le_lower, thickness, pitch);
    Splits { le_lower, le_upper, te_upper, te_lower, m_le: 0.5 * (t_le + t_le_lo), m_te: 0.5 * (t_te + foot_on_m(wall, m, te_upper, thickness, 0.0)) }
}

/// Smallest distance between the blade and its neighbour one pitch up (the throat, for a
/// turbine cascade).
pub fn throat(wall: &Wall, pitch: f64) -> f64 {
    let pts = wall.curve.points();
    let stride = (pts.len() / 1500).max(1);
    let shifted: Vec<P2> = pts.iter().step_by(stride).map(|p| [p[0], p[1] + pitch]).collect();
    let mut best = f64::INFINITY;
    for q in &shifted {
        for p in pts.iter().step_by(stride) {
            let d = (p[0] - q[0]).hypot(p[1] - q[1]);
            best = best.min(d);
        }
    }
    best
}

/// Smallest distance from the periodic line (and its copy one pitch down) to the blade.
pub fn midline_clearance(wall: &Wall, m: &Polyline, pitch: f64) -> f64 {
    let mut best = f64::INFINITY;
    for q in m.points() {
        best = best.min(wall.curve.distance_to(*q));
        best = best.min(wall.curve.distance_to([q[0], q[1] - pitch]));
    }
    best
}

/// Unit tangent of M at arc length `s`, averaged over a short stretch to avoid the kinks of
/// the polyline.
pub fn m_tangent(m: &Polyline, s: f64) -> P2 {
    let h = 2e-3 * m.length();
    unit(sub(m.at(s + h), m.at(s - h)))
}
