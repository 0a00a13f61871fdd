//! The passage layout: the mid-passage periodic line M (its copy M - pitch bounds the passage
//! below) and the rear point of the blade, where the wake cut leaves the O-grid.
//!
//! M runs from the inlet to the outlet half a pitch above the blade's mean line. The C block
//! reaches from the O-grid and the wake cut to M - pitch (below), the inlet and M (above); its
//! nodes on M and on M - pitch are periodic images, placed once.

use super::distribution::{sub, unit, Polyline, P2};
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
/// - downstream, HALF the outlet angle hint. The C block's lines through the wake region join
///   M - pitch to M, one pitch straight up; rows along the full exit angle (-74 deg for LS89)
///   would meet them at 16 degrees, rows along half of it at about 50 degrees.
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

/// Arc length of the wall point whose outward normal points most nearly along `dir` (the exit
/// direction), searched within a tenth of the perimeter of the trailing edge: the rear point
/// of a rounded trailing edge, where the wake cut starts.
pub fn rear_point(wall: &Wall, dir: P2) -> f64 {
    let p = wall.perimeter();
    let steps = 4000;
    let mut best = (f64::NEG_INFINITY, wall.s_te);
    for k in 0..=steps {
        let s = wall.s_te + 0.1 * p * (2.0 * k as f64 / steps as f64 - 1.0);
        let d = super::distribution::dot(wall.normal(s), dir);
        if d > best.0 {
            best = (d, s);
        }
    }
    best.1.rem_euclid(p)
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
