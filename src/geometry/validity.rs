//! Validity checks on blade sections, each failing with a [`GeometryError`] that says what is
//! wrong and where (coordinates in mm in the messages: blade designers think in mm).

use super::{dist, Outline, Point2};
use thiserror::Error;

/// Why a blade section is not a valid blade.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum GeometryError {
    #[error("the {first} and the {second} cross near ({x_mm:.3}, {y_mm:.3}) mm")]
    SelfIntersection { first: &'static str, second: &'static str, x_mm: f64, y_mm: f64 },
    #[error("non-positive thickness {thickness_mm:.4} mm at {at_percent:.1} % of the camber line")]
    NonPositiveThickness { at_percent: f64, thickness_mm: f64 },
    #[error("leading edge not closed: the suction and pressure sides start {gap_mm:.4} mm apart (tolerance {tolerance_mm:.4} mm)")]
    LeadingEdgeNotClosed { gap_mm: f64, tolerance_mm: f64 },
    #[error("trailing edge not closed: {detail}")]
    TrailingEdgeNotClosed { detail: String },
    #[error("design variable `{name}` = {value} is outside its bounds [{lower}, {upper}]")]
    OutOfBounds { name: String, value: f64, lower: f64, upper: f64 },
    #[error("neighbouring blades overlap: pitch {pitch_mm:.3} mm is too small (the blade and its copy one pitch away cross near ({x_mm:.3}, {y_mm:.3}) mm)")]
    PitchOverlap { pitch_mm: f64, x_mm: f64, y_mm: f64 },
    #[error("invalid blade parameter `{name}`: {reason}")]
    InvalidParameter { name: String, reason: String },
}

impl From<GeometryError> for crate::Error {
    fn from(e: GeometryError) -> Self {
        crate::Error::Geometry(e.to_string())
    }
}

/// Which part of an outline segment k lies on (for error messages).
fn side_name(outline: &Outline, k: usize) -> &'static str {
    if k < outline.trailing_edge {
        "suction side"
    } else {
        "pressure side"
    }
}

/// A segment of a closed polyline with its axis-aligned box, for the sweep below.
struct Segment {
    index: usize,
    copy: usize,
    a: Point2,
    b: Point2,
    xmin: f64,
    xmax: f64,
}

/// Proper crossing point of segments [a, b] and [c, d], if any (touching end points count).
fn segment_crossing(a: Point2, b: Point2, c: Point2, d: Point2) -> Option<Point2> {
    let r = [b[0] - a[0], b[1] - a[1]];
    let s = [d[0] - c[0], d[1] - c[1]];
    let denom = r[0] * s[1] - r[1] * s[0];
    if denom == 0.0 {
        return None; // parallel: collinear overlaps cannot arise between distinct blade segments
    }
    let q = [c[0] - a[0], c[1] - a[1]];
    let t = (q[0] * s[1] - q[1] * s[0]) / denom;
    let u = (q[0] * r[1] - q[1] * r[0]) / denom;
    ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then(|| [a[0] + t * r[0], a[1] + t * r[1]])
}

/// All crossings between segments of the given closed polylines, by a sweep over x: segments
/// sorted by their left end, each tested against those whose x range overlaps. Calls `hit` with
/// (copy, index) of both segments and the crossing point; stops when `hit` returns true.
fn sweep_crossings(
    polylines: &[&[Point2]],
    skip: impl Fn(&Segment, &Segment) -> bool,
    mut hit: impl FnMut(&Segment, &Segment, Point2) -> bool,
) {
    let mut segs = Vec::new();
    for (copy, pts) in polylines.iter().enumerate() {
        let n = pts.len();
        for k in 0..n {
            let (a, b) = (pts[k], pts[(k + 1) % n]);
            segs.push(Segment { index: k, copy, a, b, xmin: a[0].min(b[0]), xmax: a[0].max(b[0]) });
        }
    }
    segs.sort_by(|p, q| p.xmin.total_cmp(&q.xmin));
    for i in 0..segs.len() {
        let si = &segs[i];
        let (ylo, yhi) = (si.a[1].min(si.b[1]), si.a[1].max(si.b[1]));
        for sj in segs[i + 1..].iter().take_while(|s| s.xmin <= si.xmax) {
            if sj.a[1].min(sj.b[1]) > yhi || sj.a[1].max(sj.b[1]) < ylo || skip(si, sj) {
                continue;
            }
            if let Some(p) = segment_crossing(si.a, si.b, sj.a, sj.b) {
                if hit(si, sj, p) {
                    return;
                }
            }
        }
    }
}

/// The outline must not cross itself (a side folding over, or the two sides crossing: negative
/// thickness on a blade given by its sides).
pub fn check_self_intersection(outline: &Outline) -> Result<(), GeometryError> {
    let n = outline.points.len();
    let adjacent = |a: &Segment, b: &Segment| {
        let d = a.index.abs_diff(b.index);
        d <= 1 || d == n - 1
    };
    let mut found = None;
    sweep_crossings(&[&outline.points], adjacent, |a, b, p| {
        let (ka, kb) = (a.index.min(b.index), a.index.max(b.index));
        found = Some(GeometryError::SelfIntersection {
            first: side_name(outline, ka),
            second: side_name(outline, kb),
            x_mm: p[0] * 1e3,
            y_mm: p[1] * 1e3,
        });
        true
    });
    found.map_or(Ok(()), Err)
}

/// Neighbouring blades (the outline translated by +pitch in y) must not overlap. A blade's
/// pitchwise extent may exceed the pitch (LS89: 68 mm vs 57.5 mm) without any overlap, so the
/// test is on the curves themselves, not on bounding boxes.
pub fn check_pitch_overlap(outline: &Outline, pitch: f64) -> Result<(), GeometryError> {
    if !(pitch > 0.0) {
        return Err(GeometryError::InvalidParameter { name: "pitch".into(), reason: format!("must be positive, got {pitch}") });
    }
    let shifted: Vec<Point2> = outline.points.iter().map(|p| [p[0], p[1] + pitch]).collect();
    let mut found = None;
    // Two congruent closed curves related by a translation cannot lie one inside the other, so
    // they overlap exactly when their boundaries cross.
    sweep_crossings(
        &[&outline.points, &shifted],
        |a, b| a.copy == b.copy,
        |_, _, p| {
            found = Some(GeometryError::PitchOverlap { pitch_mm: pitch * 1e3, x_mm: p[0] * 1e3, y_mm: p[1] * 1e3 });
            true
        },
    );
    found.map_or(Ok(()), Err)
}

/// A smooth outline must not turn back on itself between neighbouring points: a side whose
/// offset from a camber line folds forms a thin spike (a cusp pair) that may be too thin to
/// cross at the sampling, and turns by nearly 180 deg at its tip. Turns above `max_turn_deg`
/// between consecutive segments are reported as the side crossing itself.
pub fn check_no_cusps(outline: &Outline, max_turn_deg: f64) -> Result<(), GeometryError> {
    let p = &outline.points;
    let n = p.len();
    let limit = max_turn_deg.to_radians();
    for k in 0..n {
        let (a, b, c) = (p[(k + n - 1) % n], p[k], p[(k + 1) % n]);
        let (u, v) = ([b[0] - a[0], b[1] - a[1]], [c[0] - b[0], c[1] - b[1]]);
        let turn = (u[0] * v[1] - u[1] * v[0]).atan2(u[0] * v[0] + u[1] * v[1]).abs();
        if turn > limit {
            let side = side_name(outline, k);
            return Err(GeometryError::SelfIntersection { first: side, second: side, x_mm: b[0] * 1e3, y_mm: b[1] * 1e3 });
        }
    }
    Ok(())
}

/// Both sides must start at the same leading-edge point.
pub fn check_leading_edge_closed(suction_start: Point2, pressure_start: Point2, tolerance: f64) -> Result<(), GeometryError> {
    let gap = dist(suction_start, pressure_start);
    if gap > tolerance || !gap.is_finite() {
        return Err(GeometryError::LeadingEdgeNotClosed { gap_mm: gap * 1e3, tolerance_mm: tolerance * 1e3 });
    }
    Ok(())
}

/// Every coordinate finite (NaN or infinite points come from degenerate parameters).
pub fn check_finite(outline: &Outline) -> Result<(), GeometryError> {
    match outline.points.iter().position(|p| !(p[0].is_finite() && p[1].is_finite())) {
        Some(k) => Err(GeometryError::InvalidParameter {
            name: "outline".into(),
            reason: format!("point {k} is not finite (degenerate parameters)"),
        }),
        None => Ok(()),
    }
}

/// The checks every outline must pass: finite points and no self-intersection.
pub fn check_outline(outline: &Outline) -> Result<(), GeometryError> {
    check_finite(outline)?;
    check_self_intersection(outline)
}
