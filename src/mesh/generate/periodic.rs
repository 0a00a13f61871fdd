//! The periodic line M (its copy M - pitch bounds the passage below) and the two lines that
//! cross the passage from blade to blade: at the entrance from the suction side's `le_up` to
//! the neighbouring blade's `le_dn`, at the exit from `te_up` to the neighbour's `te_dn` (the
//! throat of a turbine). Where they cross M (points Y and X) the passage blocks meet.
//!
//! M is only a first guess: its nodes are interior nodes of the periodic passage for the
//! smoother (`smoothing.rs`), which moves them with the rest. Over the blade it runs half-way
//! between the blade and its neighbour one pitch up, measured pitchwise; upstream and downstream
//! its slope turns over one axial chord from the mean line's towards the inlet and exit flow
//! angles, each clamped to [`MAX_LINE_ANGLE_DEG`]: the grid lines across the passage join M -
//! pitch to M, one pitch straight up, so rows along M meet them at 90 degrees less M's angle,
//! and a row steeper than that would make cells too skewed for the solver.

use super::distribution::{sub, unit, Polyline, P2};
use super::wall::Wall;
use super::PassageSpec;
use crate::error::Error;

/// Steepest direction of M upstream and downstream of the blade \[deg from axial\].
pub const MAX_LINE_ANGLE_DEG: f64 = 55.0;

/// The periodic line M, from x = inlet_x to x = outlet_x, as a graph y(x).
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
    let (x0, y0) = (core[0][0], core[0][1]);
    let (x1, y1) = (core[m][0], core[m][1]);
    if spec.inlet_x >= x0 || spec.outlet_x <= x1 {
        return Err(Error::Mesh(format!(
            "inlet_x = {} and outlet_x = {} must lie outside the blade's axial extent [{x0}, {x1}]",
            spec.inlet_x, spec.outlet_x
        )));
    }
    let clamp = |deg: f64| deg.clamp(-MAX_LINE_ANGLE_DEG, MAX_LINE_ANGLE_DEG).to_radians().tan();
    let slope = |d: P2| clamp(d[1].atan2(d[0].max(1e-9)).to_degrees());
    let (k0, k_in) = (slope(d_start), clamp(spec.inlet_angle_deg));
    let (k1, k_out) = (slope(d_end), clamp(spec.outlet_angle_deg));

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

/// y of M (a graph y(x) from the inlet to the outlet) at `x`, clamped to its extent.
pub fn height(m: &Polyline, x: f64) -> f64 {
    let pts = m.points();
    let k = pts.partition_point(|p| p[0] < x).clamp(1, pts.len() - 1);
    let (a, b) = (pts[k - 1], pts[k]);
    a[1] + (b[1] - a[1]) * ((x - a[0]) / (b[0] - a[0])).clamp(0.0, 1.0)
}

/// Smallest pitchwise distance from the walls of a blade and its neighbour to M: the room the
/// passage blocks have.
pub fn clearance(wall: &Wall, m: &Polyline, pitch: f64) -> f64 {
    wall.curve
        .points()
        .iter()
        .map(|p| {
            let y = height(m, p[0]);
            (y - p[1]).min(p[1] + pitch - y)
        })
        .fold(f64::INFINITY, f64::min)
}

