//! Fitting the design parameterization to a given outline (e.g. LS89's published Bezier blade),
//! so that an optimization can start from an existing blade.
//!
//! 1. A first guess ([`initial_design_for_outline`]): apexes, edge radii and metal angles read off
//!    the outline, the mean line as the locus of inscribed-circle centres, a camber line fitted by
//!    linear least squares (its control points are linear in the legs and ordinates), side
//!    distances along the camber normals.
//! 2. Least squares on signed distances both ways (target points to the design curve, design-
//!    curve points to the target polyline) plus a light fairing term, by Levenberg-Marquardt with
//!    Marquardt's diagonal scaling (Nocedal & Wright, section 10.3) and a forward-difference
//!    Jacobian. Foot points on the design curve are re-projected (Newton on
//!    (P(v) - p) . P'(v) = 0) at every trial step; at fixed foot points the derivative of a normal
//!    distance is minus the normal component of the curve point's derivative (the tangential part
//!    only slides the foot point). Steps that fold the design outline are rejected.
//!
//! LS89 (blades/ls89.ron) needs a thickness law per side: with one symmetric law the bulbous
//! suction side forces a camber so curved that the pressure side folds, and the fit stalls near
//! 0.5-1 % of chord; with two laws it reaches 0.006 % RMS (tests/geometry_fit.rs).

use super::cascade::closest_on_segment;
use super::design::{DesignCurve, DesignParameterization, DesignVariable, MAX_TURN_DEG};
use super::validity::{check_no_cusps, check_self_intersection, GeometryError};
use super::{dist, Outline, Point2};
use nalgebra::{DMatrix, DVector};

/// Settings of [`fit_design_to_outline`].
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Number of target points, spread uniformly in arc length over the target outline.
    pub target_points: usize,
    /// Maximum number of Levenberg-Marquardt iterations.
    pub max_iterations: usize,
    /// Stop when a step reduces the RMS distance by less than this fraction.
    pub relative_tolerance: f64,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions { target_points: 1200, max_iterations: 300, relative_tolerance: 1e-7 }
    }
}

/// A fitted design with its deviation from the target.
#[derive(Clone, Debug)]
pub struct FitResult {
    pub design: DesignParameterization,
    /// RMS and largest distance between target and fitted outline (m) (see [`outline_deviation`]).
    pub rms: f64,
    pub max: f64,
    pub iterations: usize,
}

/// Resample a closed outline at `n` points evenly spaced in arc length (index 0 kept).
pub fn resample_by_arc_length(outline: &Outline, n: usize) -> Vec<Point2> {
    let pts = &outline.points;
    let m = pts.len();
    let mut cum = vec![0.0; m + 1];
    for k in 0..m {
        cum[k + 1] = cum[k] + dist(pts[k], pts[(k + 1) % m]);
    }
    let total = cum[m];
    (0..n)
        .map(|j| {
            let s = total * j as f64 / n as f64;
            let k = cum.partition_point(|&c| c <= s).clamp(1, m) - 1;
            let w = (s - cum[k]) / (cum[k + 1] - cum[k]);
            let (a, b) = (pts[k], pts[(k + 1) % m]);
            [a[0] + w * (b[0] - a[0]), a[1] + w * (b[1] - a[1])]
        })
        .collect()
}

/// Distance from q to a closed polyline.
fn distance_to_closed_polyline(q: Point2, line: &[Point2]) -> f64 {
    let n = line.len();
    (0..n).map(|k| dist(q, closest_on_segment(q, line[k], line[(k + 1) % n]))).fold(f64::INFINITY, f64::min)
}

/// Deviation between two outlines: RMS over `a`'s points (evenly spaced in arc length) of their
/// distance to `b`, and the largest distance either way (symmetric, so a bump on either curve
/// counts). Returns (rms, max) in the outlines' unit.
pub fn outline_deviation(a: &Outline, b: &Outline) -> (f64, f64) {
    let pa = resample_by_arc_length(a, 2000);
    let pb = resample_by_arc_length(b, 2000);
    let da: Vec<f64> = pa.iter().map(|q| distance_to_closed_polyline(*q, &b.points)).collect();
    let max_b = pb.iter().map(|q| distance_to_closed_polyline(*q, &a.points)).fold(0.0, f64::max);
    let rms = (da.iter().map(|d| d * d).sum::<f64>() / da.len() as f64).sqrt();
    (rms, da.iter().copied().fold(max_b, f64::max))
}

/// Tangent dP/dv of the design outline (central difference; the curve is smooth in v).
fn tangent(curve: &DesignCurve, v: f64) -> Point2 {
    const H: f64 = 1e-6;
    let (a, b) = (curve.point(v - H), curve.point(v + H));
    [(b[0] - a[0]) / (2.0 * H), (b[1] - a[1]) / (2.0 * H)]
}

/// Wrap v into [-1, 1) (the outline is periodic with period 2 in v).
fn wrap(v: f64) -> f64 {
    (v + 1.0).rem_euclid(2.0) - 1.0
}

/// Foot-point parameters of the targets on the curve: nearest of a dense sampling, then Newton.
fn project(curve: &DesignCurve, targets: &[Point2], guess: Option<&[f64]>) -> Vec<f64> {
    let start: Vec<f64> = match guess {
        Some(g) => g.to_vec(),
        None => {
            const N: usize = 8000;
            let grid: Vec<(f64, Point2)> = (0..N)
                .map(|k| {
                    let v = -1.0 + 2.0 * k as f64 / N as f64;
                    (v, curve.point(v))
                })
                .collect();
            targets.iter().map(|q| grid.iter().min_by(|a, b| dist(a.1, *q).total_cmp(&dist(b.1, *q))).unwrap().0).collect()
        }
    };
    targets
        .iter()
        .zip(start)
        .map(|(q, mut v)| {
            const H: f64 = 1e-5;
            for _ in 0..8 {
                let p = curve.point(v);
                let (pm, pp) = (curve.point(v - H), curve.point(v + H));
                let d1 = [(pp[0] - pm[0]) / (2.0 * H), (pp[1] - pm[1]) / (2.0 * H)];
                let d2 = [(pp[0] - 2.0 * p[0] + pm[0]) / (H * H), (pp[1] - 2.0 * p[1] + pm[1]) / (H * H)];
                let r = [p[0] - q[0], p[1] - q[1]];
                let f = r[0] * d1[0] + r[1] * d1[1];
                let df = d1[0] * d1[0] + d1[1] * d1[1] + r[0] * d2[0] + r[1] * d2[1];
                // Newton on the stationarity condition; a step is capped so a poor start cannot
                // jump to the other side of the blade.
                let step = if df > 0.0 { (f / df).clamp(-0.01, 0.01) } else { 0.0 };
                v = wrap(v - step);
                if step.abs() < 1e-13 {
                    break;
                }
            }
            v
        })
        .collect()
}

/// Signed normal distances of the targets from the curve at their foot points.
fn residuals(curve: &DesignCurve, targets: &[Point2], feet: &[f64]) -> (Vec<f64>, Vec<Point2>) {
    let mut r = Vec::with_capacity(targets.len());
    let mut normals = Vec::with_capacity(targets.len());
    for (q, &v) in targets.iter().zip(feet) {
        let p = curve.point(v);
        let t = tangent(curve, v);
        let len = (t[0] * t[0] + t[1] * t[1]).sqrt();
        let n = [t[1] / len, -t[0] / len];
        r.push((q[0] - p[0]) * n[0] + (q[1] - p[1]) * n[1]);
        normals.push(n);
    }
    (r, normals)
}

/// Indices of the shape variables (all but the pitch, which does not change the section).
fn shape_indices(design: &DesignParameterization) -> Vec<usize> {
    let vars = design.variables();
    let n = vars.len();
    (0..n).filter(|&k| !std::ptr::eq(vars[k], &design.pitch)).collect()
}

fn with_values(design: &DesignParameterization, idx: &[usize], q: &[f64]) -> DesignParameterization {
    let mut d = design.clone();
    let mut vars = d.variables_mut();
    for (k, &i) in idx.iter().enumerate() {
        vars[i].value = q[k];
    }
    drop(vars);
    d
}

/// The design outline neither crosses itself nor folds into a spike.
fn unfolded(curve: &DesignCurve) -> bool {
    let outline = curve.sample(super::sampling::DEFAULT_OUTLINE_POINTS);
    check_self_intersection(&outline).is_ok() && check_no_cusps(&outline, MAX_TURN_DEG).is_ok()
}

/// Signed distance from q to a closed polyline (positive outside a clockwise loop), searching
/// the segments within `window` of `hint` (all of them when `hint` is None); returns the
/// distance and the nearest segment.
fn signed_distance_to_loop(q: Point2, line: &[Point2], hint: Option<usize>, window: usize) -> (f64, usize) {
    let n = line.len();
    let range: Vec<usize> = match hint {
        Some(h) => (0..=2 * window).map(|k| (h + n + k - window) % n).collect(),
        None => (0..n).collect(),
    };
    let mut best = (f64::INFINITY, 0, [0.0; 2]);
    for k in range {
        let (a, b) = (line[k], line[(k + 1) % n]);
        let foot = closest_on_segment(q, a, b);
        let d = dist(q, foot);
        if d < best.0 {
            best = (d, k, foot);
        }
    }
    let (a, b) = (line[best.1], line[(best.1 + 1) % n]);
    let cross = (b[0] - a[0]) * (q[1] - best.2[1]) - (b[1] - a[1]) * (q[0] - best.2[0]);
    (if cross > 0.0 { best.0 } else { -best.0 }, best.1)
}

/// Weight of the fairing residuals (second differences of control values, times the chord)
/// against the distance residuals: a 1 % of chord kink of the control values costs as much as
/// a 0.0034 mm distance on a 67 mm chord, small against the 1800 distance residuals.
const FAIRING: f64 = 0.005;

/// Fit the shape variables of `initial` (all but the pitch; bounds are ignored during the fit)
/// to the `target` outline. The residuals go both ways: target points to the design curve (at
/// their foot points) and design-curve points (fixed parameters v) to the target polyline, so
/// neither a missed stretch of the target nor a bump of the design goes unpenalized. Steps that
/// fold the design outline are rejected, and a light fairing term (weight `FAIRING` = 0.005) keeps the
/// control values smooth. Fails if no valid design is reached from `initial`.
pub fn fit_design_to_outline(target: &Outline, initial: &DesignParameterization, options: &FitOptions) -> Result<FitResult, GeometryError> {
    use std::cell::RefCell;
    let targets = resample_by_arc_length(target, options.target_points);
    let idx = shape_indices(initial);
    let vars = initial.variables();
    let q0: Vec<f64> = idx.iter().map(|&i| vars[i].value).collect();
    let curve0 = initial.curve()?;
    let feet = RefCell::new(project(&curve0, &targets, None));
    let n_back = options.target_points / 2;
    let v_back: Vec<f64> = (0..n_back).map(|k| -1.0 + 2.0 * (k as f64 + 0.5) / n_back as f64).collect();
    let hints = RefCell::new(v_back.iter().map(|&v| signed_distance_to_loop(curve0.point(v), &target.points, None, 0).1).collect::<Vec<_>>());
    let residual = |q: &[f64], trial: bool| -> Option<Vec<f64>> {
        let curve = with_values(initial, &idx, q).curve().ok()?;
        if trial && !unfolded(&curve) {
            return None;
        }
        let foot = project(&curve, &targets, Some(&feet.borrow()));
        let (mut r, _) = residuals(&curve, &targets, &foot);
        let mut hint = hints.borrow().clone();
        for (j, &v) in v_back.iter().enumerate() {
            let (d, k) = signed_distance_to_loop(curve.point(v), &target.points, Some(hint[j]), 60);
            r.push(d);
            hint[j] = k;
        }
        // Fairing: a light penalty on the second differences of the camber and thickness
        // control values keeps the fit from trading a smooth side for a local finger.
        let d = with_values(initial, &idx, q);
        let chord = d.chord.value;
        for list in [&d.camber, &d.thickness, &d.pressure_thickness] {
            for w in list.windows(3) {
                r.push(FAIRING * chord * (w[0].value - 2.0 * w[1].value + w[2].value));
            }
        }
        if trial {
            *feet.borrow_mut() = foot;
            *hints.borrow_mut() = hint;
        }
        Some(r)
    };
    let (q, iterations) = levenberg_marquardt(q0, residual, options.max_iterations, options.relative_tolerance);
    let design = with_values(initial, &idx, &q);
    let outline = design.outline()?;
    let (rms, max) = outline_deviation(target, &outline);
    Ok(FitResult { design, rms, max, iterations })
}

/// The design parameterization with a thickness law per side fitted to `target` from every
/// [`FirstGuess`] (in parallel), the closest fit kept. Least squares on a shape this flexible has
/// local minima, and no single guess suits a turbine vane with a bulbous suction side (LS89), a
/// highly cambered blade with a concave pressure side (a low-pressure turbine's) and a thin
/// compressor section alike. Fails only if no guess leads to a valid design.
pub fn fit_blade_to_outline(target: &Outline, pitch: f64, n_camber: usize, n_thickness: usize, options: &FitOptions) -> Result<FitResult, GeometryError> {
    use rayon::prelude::*;
    let fits: Vec<Result<FitResult, GeometryError>> = FirstGuess::ALL
        .par_iter()
        .map(|&guess| {
            initial_design_for_outline(target, pitch, n_camber, n_thickness, true, guess).and_then(|design| fit_design_to_outline(target, &design, options))
        })
        .collect();
    let mut best: Option<FitResult> = None;
    let mut error = None;
    for fit in fits {
        match fit {
            Ok(f) if best.as_ref().is_none_or(|b| f.rms < b.rms) => best = Some(f),
            Ok(_) => {}
            Err(e) => error = Some(e),
        }
    }
    best.ok_or_else(|| error.expect("four guesses, each a fit or an error"))
}

/// Length of the leading-edge leg in the separate-sides guess, as a fraction of the distance to
/// the intersection of the edge tangents.
const SHORT_LEADING_LEG: f64 = 0.25;

/// Where the first guess of a fit takes its camber line from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CamberGuess {
    /// The smooth curve of the edge tangent legs, with a short leading-edge leg: the choice for a
    /// blade with a bulbous side over a flat one (LS89), where the mean line turns so fast that
    /// an offset side folds.
    TangentLegs,
    /// The mean line (inscribed-circle centres), fitted by least squares: the choice for a highly
    /// cambered blade with a concave pressure side (a low-pressure turbine's), where the straight
    /// legs run outside the blade.
    MeanLine,
}

/// How a first guess is made: where the apexes are and where the camber comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FirstGuess {
    pub apexes: ApexGuess,
    pub camber: CamberGuess,
}

impl FirstGuess {
    /// Every combination, the vane's (LS89's) first.
    pub const ALL: [FirstGuess; 4] = [
        FirstGuess { apexes: ApexGuess::Extremes, camber: CamberGuess::TangentLegs },
        FirstGuess { apexes: ApexGuess::Extremes, camber: CamberGuess::MeanLine },
        FirstGuess { apexes: ApexGuess::MeanLine, camber: CamberGuess::TangentLegs },
        FirstGuess { apexes: ApexGuess::MeanLine, camber: CamberGuess::MeanLine },
    ];
}

/// A first guess of the design parameterization for an outline: both apexes from
/// [`edge_apexes`], chord and stagger between them, inlet metal angle from the outline's normal
/// at the leading-edge apex, exit metal angle from the last tenth of the mean line
/// (inscribed-circle centres), edge radii from three-point circles at the apexes. With
/// `separate_pressure_side` each side's thickness is its distance along the camber normals from
/// the camber of `guess`; otherwise the camber is fitted to the mean line with the inscribed
/// radii as half-thicknesses. A guess that folds is thinned until it does not. `n_camber` and
/// `n_thickness` interior control points; every variable frozen at its value (set bounds with
/// [`set_optimization_bounds`]).
pub fn initial_design_for_outline(
    target: &Outline,
    pitch: f64,
    n_camber: usize,
    n_thickness: usize,
    separate_pressure_side: bool,
    guess: FirstGuess,
) -> Result<DesignParameterization, GeometryError> {
    let (ordered, te_idx) = edge_apexes(target, guess.apexes);
    let pts = &ordered[..];
    let n = pts.len();
    let le = pts[0];
    let te = pts[te_idx];
    let chord = dist(le, te);
    let stagger = (te[1] - le[1]).atan2(te[0] - le[0]);
    let perimeter = target.perimeter();
    // Camber direction at an apex: the outward normal there (the outline runs clockwise, so
    // that is the tangent turned by +90 deg), pointing upstream at the leading edge.
    let outward = |k: usize| {
        let (a, b) = (pts[(k + n - 1) % n], pts[(k + 1) % n]);
        (b[0] - a[0]).atan2(-(b[1] - a[1]))
    };
    let wrap_angle = |a: f64| (a + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI) - std::f64::consts::PI;
    let inlet = wrap_angle(outward(0) + std::f64::consts::PI);
    // At a round trailing edge every direction of its arc is a normal; take the exit angle from
    // the mean line instead (its last tenth).
    let mean = mean_line(pts, te_idx, 150);
    let exit = {
        let (a, b) = (mean[mean.len() * 85 / 100].0, mean[mean.len() * 97 / 100].0);
        (b[1] - a[1]).atan2(b[0] - a[0])
    };
    let r_le = edge_radius(pts, 0, 0.005 * perimeter);
    let r_te = edge_radius(pts, te_idx, 0.002 * perimeter);
    // Tangent legs: a fraction of the distances to the intersection of the edge tangent lines.
    let (d1, d2) = ([inlet.cos(), inlet.sin()], [exit.cos(), exit.sin()]);
    // Solve le + l1 d1 = te - l2 d2 ... written as l1 d1 + l2 d2 = te - le (Cramer's rule).
    let det = d1[0] * d2[1] - d1[1] * d2[0];
    let rhs = [te[0] - le[0], te[1] - le[1]];
    let (mut a1, mut a2) = (0.3, 0.3);
    if det.abs() > 1e-6 {
        let l1 = (rhs[0] * d2[1] - rhs[1] * d2[0]) / det;
        let l2 = (d1[0] * rhs[1] - d1[1] * rhs[0]) / det;
        if l1 > 0.0 && l2 > 0.0 {
            a1 = 0.6 * l1 / chord;
            a2 = 0.6 * l2 / chord;
        }
    }
    let fixed = |name: String, v: f64| DesignVariable::fixed(name, v);
    let mut design = DesignParameterization {
        stagger_deg: fixed("stagger_deg".into(), stagger.to_degrees()),
        chord: fixed("chord".into(), chord),
        inlet_metal_angle_deg: fixed("inlet_metal_angle_deg".into(), inlet.to_degrees()),
        exit_metal_angle_deg: fixed("exit_metal_angle_deg".into(), exit.to_degrees()),
        leading_edge_tangent: fixed("leading_edge_tangent".into(), a1),
        trailing_edge_tangent: fixed("trailing_edge_tangent".into(), a2),
        camber: (1..=n_camber).map(|k| fixed(format!("camber_{k}"), 0.0)).collect(),
        thickness: (1..=n_thickness).map(|k| fixed(format!("thickness_{k}"), 0.05)).collect(),
        pressure_thickness: if separate_pressure_side { (1..=n_thickness).map(|k| fixed(format!("pressure_thickness_{k}"), 0.05)).collect() } else { vec![] },
        leading_edge_radius: fixed("leading_edge_radius".into(), r_le),
        trailing_edge_radius: fixed("trailing_edge_radius".into(), r_te),
        pitch: fixed("pitch".into(), pitch),
        leading_edge: le,
    };
    if separate_pressure_side {
        // Each side has its own thickness, measured along the camber normals.
        match guess.camber {
            // The smoothest camber is the one of the tangent legs alone (interior points on the
            // segment between them). A short leading-edge leg turns the camber close to the
            // leading edge, where the sides are still close to it, so the pressure side does not
            // fold behind a bulbous suction side.
            CamberGuess::TangentLegs => {
                design.leading_edge_tangent.value *= SHORT_LEADING_LEG;
                straight_interior_camber(&mut design);
            }
            CamberGuess::MeanLine => fit_camber_to_points(&mut design, &mean.iter().map(|m| m.0).collect::<Vec<_>>()),
        }
        side_distances_along_normals(&mut design, pts, te_idx)?;
    } else {
        // One thickness for both sides: the camber must be the mean line (inscribed-circle
        // centres), fitted by least squares, with the circle radii as half-thicknesses.
        fit_camber_to_points(&mut design, &mean.iter().map(|m| m.0).collect::<Vec<_>>());
        thickness_from_mean_line(&mut design, &mean)?;
    }
    // The mean-line thickness can exceed the camber's radius of curvature where the camber turns
    // fast (LS89's leading-edge bulb), folding the concave side; thin the guess until it does
    // not, and let the fit grow it back.
    for _ in 0..20 {
        if design.curve().is_ok_and(|c| unfolded(&c)) {
            break;
        }
        for v in design.thickness.iter_mut().chain(design.pressure_thickness.iter_mut()) {
            v.value *= 0.8;
        }
    }
    Ok(design)
}

/// Where a first guess puts the edge apexes, the points where the camber line leaves the edges
/// (the outline's normal there is the metal angle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApexGuess {
    /// The most upstream point and the point furthest from it: right where the inlet metal angle
    /// is close to axial (a turbine vane such as LS89).
    Extremes,
    /// The edge points facing along the mean line (inscribed-circle centres) near each edge,
    /// found from the extremes until they settle: right where the inlet metal angle is large (a
    /// low-pressure turbine's, a compressor's), where the most upstream point is off the camber
    /// line. Looked for on the edge itself (near the extreme and about as curved), so the flank
    /// of a bulbous side is never taken for an edge.
    MeanLine,
}

/// The outline's points reordered from the leading-edge apex, with the index of the
/// trailing-edge apex (see [`ApexGuess`]).
pub fn edge_apexes(target: &Outline, guess: ApexGuess) -> (Vec<Point2>, usize) {
    let mut pts = target.points.clone();
    let n = pts.len();
    let first_le = (0..n).min_by(|&i, &j| pts[i][0].total_cmp(&pts[j][0])).unwrap_or(0);
    let first_te = (0..n).max_by(|&i, &j| dist(pts[i], pts[first_le]).total_cmp(&dist(pts[j], pts[first_le]))).unwrap_or(0);
    let (mut le, mut te) = (first_le, first_te);
    if guess == ApexGuess::MeanLine {
        let perimeter = target.perimeter();
        // The points of the edge round `k0`: within two of its radii, and as curved as the edge
        // (radius of curvature within 1.5 times the smallest there).
        let near = |k0: usize, arc: f64| -> Vec<usize> {
            let reach = (2.0 * edge_radius(&pts, k0, arc)).min(0.05 * perimeter);
            let region: Vec<(usize, f64)> = (0..n).filter(|&k| dist(pts[k], pts[k0]) <= reach).map(|k| (k, edge_radius(&pts, k, arc))).collect();
            let tightest = region.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
            region.into_iter().filter(|r| r.1 <= 1.5 * tightest).map(|r| r.0).collect()
        };
        let (le_region, te_region) = (near(first_le, 0.005 * perimeter), near(first_te, 0.002 * perimeter));
        for _ in 0..6 {
            let mut ordered = pts.clone();
            ordered.rotate_left(le);
            let mean: Vec<Point2> = mean_line(&ordered, (te + n - le) % n, 100).into_iter().map(|m| m.0).collect();
            if mean.len() < 20 {
                break;
            }
            let m = mean.len();
            let inlet = unit(mean[m * 4 / 100], mean[m * 12 / 100]);
            let exit = unit(mean[m * 85 / 100], mean[m * 97 / 100]);
            let furthest_along = |region: &[usize], d: Point2| {
                region.iter().copied().max_by(|&i, &j| (pts[i][0] * d[0] + pts[i][1] * d[1]).total_cmp(&(pts[j][0] * d[0] + pts[j][1] * d[1])))
            };
            let (Some(new_le), Some(new_te)) = (furthest_along(&le_region, [-inlet[0], -inlet[1]]), furthest_along(&te_region, exit)) else {
                break;
            };
            if (new_le, new_te) == (le, te) {
                break;
            }
            (le, te) = (new_le, new_te);
        }
    }
    pts.rotate_left(le);
    (pts, (te + n - le) % n)
}

/// Unit vector from a to b.
fn unit(a: Point2, b: Point2) -> Point2 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(f64::MIN_POSITIVE);
    [d[0] / len, d[1] / len]
}

/// Radius of the circle through an outline point and the points `arc` either side of it.
fn edge_radius(pts: &[Point2], k0: usize, arc: f64) -> f64 {
    let n = pts.len();
    let walk = |dir: isize| {
        let (mut k, mut s) = (k0, 0.0);
        while s < arc {
            let next = (k as isize + dir).rem_euclid(n as isize) as usize;
            s += dist(pts[k], pts[next]);
            k = next;
        }
        pts[k]
    };
    circumradius(walk(1), pts[k0], walk(-1))
}

/// Split a closed outline (leading edge at 0, trailing-edge apex at `te`) into its two sides,
/// each from the leading edge to the trailing edge.
fn sides(pts: &[Point2], te: usize) -> (Vec<Point2>, Vec<Point2>) {
    let upper = pts[..=te].to_vec();
    let mut lower = vec![pts[0]];
    lower.extend(pts[te..].iter().rev());
    (upper, lower)
}

/// Point at a fraction of the arc length of an open polyline.
fn at_fraction(line: &[Point2], f: f64) -> Point2 {
    let cum: Vec<f64> = std::iter::once(0.0)
        .chain(line.windows(2).scan(0.0, |s, w| {
            *s += dist(w[0], w[1]);
            Some(*s)
        }))
        .collect();
    let target = f * cum.last().unwrap();
    let k = cum.partition_point(|&c| c <= target).clamp(1, line.len() - 1) - 1;
    let w = ((target - cum[k]) / (cum[k + 1] - cum[k]).max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
    [line[k][0] + w * (line[k + 1][0] - line[k][0]), line[k][1] + w * (line[k + 1][1] - line[k][1])]
}

/// Interior camber ordinates on the straight segment between the second and the second-last
/// control points.
fn straight_interior_camber(design: &mut DesignParameterization) {
    for v in design.camber.iter_mut() {
        v.value = 0.0;
    }
    let pts = design.camber_control_points();
    let (le, c) = (design.leading_edge, design.chord.value);
    let e = [design.stagger_deg.value.to_radians().cos(), design.stagger_deg.value.to_radians().sin()];
    let nu = [-e[1], e[0]];
    let frame = |p: Point2| {
        let d = [p[0] - le[0], p[1] - le[1]];
        ((d[0] * e[0] + d[1] * e[1]) / c, (d[0] * nu[0] + d[1] * nu[1]) / c)
    };
    let (p1, pm1) = (frame(pts[1]), frame(pts[pts.len() - 2]));
    let n_in = design.camber.len();
    for (k, v) in design.camber.iter_mut().enumerate() {
        let f = (k + 1) as f64 / (n_in + 1) as f64;
        v.value = p1.1 + f * (pm1.1 - p1.1);
    }
}

/// Nearest crossing of the ray from `o` along `n` with an open polyline, as a distance.
fn ray_hit(o: Point2, n: Point2, line: &[Point2]) -> Option<f64> {
    let mut best: Option<f64> = None;
    for w in line.windows(2) {
        let e = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
        let det = -n[0] * e[1] + n[1] * e[0];
        if det.abs() < 1e-300 {
            continue;
        }
        let r = [w[0][0] - o[0], w[0][1] - o[1]];
        let lambda = (-r[0] * e[1] + r[1] * e[0]) / det;
        let mu = (n[0] * r[1] - n[1] * r[0]) / det;
        if (0.0..=1.0).contains(&mu) && lambda >= 0.0 && best.is_none_or(|b| lambda < b) {
            best = Some(lambda);
        }
    }
    best
}

/// Both sides' thickness control values from the distances of the sides to the camber line
/// along its normals at the Greville abscissae.
fn side_distances_along_normals(design: &mut DesignParameterization, pts: &[Point2], te: usize) -> Result<(), GeometryError> {
    let (upper, lower) = sides(pts, te);
    let curve = design.curve()?;
    let d1 = curve.camber.derivative();
    let greville = curve.thickness_factor.greville();
    let chord = design.chord.value;
    for k in 0..design.thickness.len() {
        let s = greville[k + 1];
        let (c, d) = (curve.camber.point(s), d1.point(s));
        let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
        let n = [-d[1] / len, d[0] / len];
        // Along the normal; where the ray misses the side (a camber point outside the blade
        // near a thin edge), the nearest distance instead.
        let side_distance = |dir: Point2, side: &[Point2]| ray_hit(c, dir, side).unwrap_or_else(|| distance_to_polyline(c, side)).max(1e-3 * chord);
        let hs = side_distance(n, &upper);
        let hp = side_distance([-n[0], -n[1]], &lower);
        design.thickness[k].value = hs / chord;
        if let Some(v) = design.pressure_thickness.get_mut(k) {
            v.value = hp / chord;
        }
    }
    Ok(())
}

/// Distance from q to an open polyline.
fn distance_to_polyline(q: Point2, line: &[Point2]) -> f64 {
    line.windows(2).map(|w| dist(q, closest_on_segment(q, w[0], w[1]))).fold(f64::INFINITY, f64::min)
}

/// Mean line as the locus of the centres of inscribed circles (the usual turbomachinery
/// definition): for points along the suction side, the circle tangent there (centre on the
/// inward normal) that just touches the pressure side, found by bisection on its radius.
/// Returns the centres with the radii (half-thicknesses).
fn mean_line(pts: &[Point2], te: usize, m: usize) -> Vec<(Point2, f64)> {
    let (upper, lower) = sides(pts, te);
    let mut out = Vec::with_capacity(m);
    for j in 1..=m {
        let f = j as f64 / (m + 1) as f64;
        let (a, p, b) = (at_fraction(&upper, f - 1e-4), at_fraction(&upper, f), at_fraction(&upper, f + 1e-4));
        let t = [b[0] - a[0], b[1] - a[1]];
        let len = (t[0] * t[0] + t[1] * t[1]).sqrt();
        // The suction side runs from the leading edge towards the trailing edge on the upper
        // side: the blade interior is on its right.
        let inward = [t[1] / len, -t[0] / len];
        let gap = |r: f64| distance_to_polyline([p[0] + r * inward[0], p[1] + r * inward[1]], &lower) - r;
        let (mut lo, mut hi) = (0.0, distance_to_polyline(p, &lower));
        if !(hi > 0.0) {
            continue;
        }
        for _ in 0..50 {
            let mid = 0.5 * (lo + hi);
            if gap(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let r = 0.5 * (lo + hi);
        out.push(([p[0] + r * inward[0], p[1] + r * inward[1]], r));
    }
    out
}

/// Mean line of an outline (leading edge at index 0, trailing-edge apex the point farthest from
/// it): `m` points midway between the sides along the mean line's own normals, each with the
/// half-thickness there.
pub fn camber_mean_line(target: &Outline, m: usize) -> Vec<(Point2, f64)> {
    let pts = &target.points;
    let le = pts[0];
    let te = pts.iter().enumerate().map(|(k, p)| (k, dist(*p, le))).max_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
    mean_line(pts, te, m)
}

/// Levenberg-Marquardt with a forward-difference Jacobian on a residual function that may fail
/// (None) for parameters that make no valid curve.
/// `f(q, trial)` is called with `trial = true` for candidate steps (which it must validate
/// fully) and `false` for Jacobian columns. Returns the parameters and the iterations used.
fn levenberg_marquardt(mut q: Vec<f64>, f: impl Fn(&[f64], bool) -> Option<Vec<f64>>, max_iterations: usize, tolerance: f64) -> (Vec<f64>, usize) {
    let Some(mut r) = f(&q, true) else {
        return (q, 0);
    };
    let mut iterations = 0;
    let cost = |r: &[f64]| r.iter().map(|x| x * x).sum::<f64>();
    let mut c0 = cost(&r);
    let mut lambda = 1e-3;
    for _ in 0..max_iterations {
        let mut jac = DMatrix::<f64>::zeros(r.len(), q.len());
        for j in 0..q.len() {
            let h = 1e-7 * (q[j].abs() + 1e-2);
            let mut qh = q.clone();
            qh[j] += h;
            if let Some(rh) = f(&qh, false) {
                for i in 0..r.len() {
                    jac[(i, j)] = (rh[i] - r[i]) / h;
                }
            }
        }
        let jtj = jac.transpose() * &jac;
        let jtr = jac.transpose() * DVector::from_vec(r.clone());
        let mut improved = false;
        for _ in 0..12 {
            let mut a = jtj.clone();
            for k in 0..q.len() {
                a[(k, k)] += lambda * jtj[(k, k)].max(1e-30);
            }
            let Some(step) = a.cholesky().map(|ch| ch.solve(&(-&jtr))) else {
                lambda *= 10.0;
                continue;
            };
            let trial: Vec<f64> = q.iter().zip(step.iter()).map(|(a, b)| a + b).collect();
            match f(&trial, true) {
                Some(tr) if cost(&tr) < c0 => {
                    let c1 = cost(&tr);
                    improved = (c0 - c1) / c0 > tolerance;
                    q = trial;
                    r = tr;
                    c0 = c1;
                    lambda = (lambda * 0.3).max(1e-12);
                    break;
                }
                _ => lambda *= 10.0,
            }
        }
        iterations += 1;
        if !improved {
            break;
        }
    }
    (q, iterations)
}

/// Closest-point parameter on a plane B-spline curve: nearest of a sampling, then Newton.
fn camber_foot(curve: &super::curves::BSpline<2>, d1: &super::curves::BSpline<2>, d2: &super::curves::BSpline<2>, q: Point2) -> f64 {
    const N: usize = 400;
    let mut t = (0..=N).map(|k| k as f64 / N as f64).min_by(|a, b| dist(curve.point(*a), q).total_cmp(&dist(curve.point(*b), q))).unwrap();
    for _ in 0..10 {
        let (p, d, dd) = (curve.point(t), d1.point(t), d2.point(t));
        let r = [p[0] - q[0], p[1] - q[1]];
        let f = r[0] * d[0] + r[1] * d[1];
        let df = d[0] * d[0] + d[1] * d[1] + r[0] * dd[0] + r[1] * dd[1];
        if !(df > 0.0) {
            break;
        }
        t = (t - f / df).clamp(0.0, 1.0);
    }
    t
}

/// Fit the camber variables (tangent legs and interior ordinates; chord, stagger and metal
/// angles kept) to mean-line points. The camber control points are linear in these variables,
/// so with the points' curve parameters fixed this is a linear least-squares problem; the
/// parameters are corrected by projection in a few rounds.
fn fit_camber_to_points(design: &mut DesignParameterization, mean: &[Point2]) {
    let le = design.leading_edge;
    let c = design.chord.value;
    let e = [design.stagger_deg.value.to_radians().cos(), design.stagger_deg.value.to_radians().sin()];
    let te = [le[0] + c * e[0], le[1] + c * e[1]];
    // Keep the points in chordwise order (inscribed-circle centres bunch and can step back where
    // one circle touches a long stretch of a side), start from cumulative chord length and
    // correct by projection (Hoschek's parameter correction).
    let along = |p: &Point2| (p[0] - le[0]) * e[0] + (p[1] - le[1]) * e[1];
    let mut pts = vec![le];
    for p in mean {
        let last = *pts.last().unwrap();
        if along(p) > along(&last) + 2e-3 * c && along(p) < c * 0.999 && dist(*p, last) < 0.1 * c {
            pts.push(*p);
        }
    }
    pts.push(te);
    let mut cum = vec![0.0];
    for w in pts.windows(2) {
        cum.push(cum.last().unwrap() + dist(w[0], w[1]));
    }
    let total = *cum.last().unwrap();
    let mut t: Vec<f64> = cum.iter().map(|s| s / total).collect();
    let n_c = design.camber.len();
    let n_u = 2 + n_c;
    let set = |d: &mut DesignParameterization, u: &[f64]| {
        d.leading_edge_tangent.value = u[0];
        d.trailing_edge_tangent.value = u[1];
        for k in 0..n_c {
            d.camber[k].value = u[2 + k];
        }
    };
    // Control points as an affine function of u: columns by unit perturbation (exact, linear).
    let control = |u: &[f64]| {
        let mut d = design.clone();
        set(&mut d, u);
        d.camber_control_points()
    };
    let u0 = vec![0.0; n_u];
    let base = control(&u0);
    let columns: Vec<Vec<Point2>> = (0..n_u)
        .map(|j| {
            let mut u = u0.clone();
            u[j] = 1.0;
            control(&u).iter().zip(&base).map(|(p, q)| [p[0] - q[0], p[1] - q[1]]).collect()
        })
        .collect();
    let degree = 3.min(n_c + 3);
    let knots = super::curves::clamped_knots(degree, base.len(), |u| u);
    let mut u = vec![0.3, 0.3];
    u.extend(design.camber.iter().map(|v| v.value));
    for _round in 0..8 {
        let mut a = DMatrix::<f64>::zeros(2 * pts.len(), n_u);
        let mut b = DVector::<f64>::zeros(2 * pts.len());
        for (i, (&ti, p)) in t.iter().zip(&pts).enumerate() {
            let (span, basis) = super::curves::basis_functions(degree, &knots, ti);
            for d in 0..2 {
                let mut rhs = p[d];
                for (k, nk) in basis.iter().enumerate() {
                    let idx = span - degree + k;
                    rhs -= nk * base[idx][d];
                    for j in 0..n_u {
                        a[(2 * i + d, j)] += nk * columns[j][idx][d];
                    }
                }
                b[2 * i + d] = rhs;
            }
        }
        if let Ok(sol) = a.svd(true, true).solve(&b, 1e-12) {
            u = sol.iter().copied().collect();
        }
        u[0] = u[0].max(0.02);
        u[1] = u[1].max(0.02);
        let curve = super::curves::BSpline::clamped_uniform(degree, control(&u));
        let d1 = curve.derivative();
        let d2 = d1.derivative();
        for (ti, p) in t.iter_mut().zip(&pts) {
            *ti = camber_foot(&curve, &d1, &d2, *p);
        }
        let n = t.len();
        t[0] = 0.0;
        t[n - 1] = 1.0;
    }
    set(design, &u);
}

/// Thickness control values from the mean-line half-thicknesses: each mean-line point is placed
/// at its foot parameter t on the camber line, and `thickness_k` (about the half-thickness at the
/// Greville abscissa s_k) is read off there by linear interpolation. A guess for the fit.
fn thickness_from_mean_line(design: &mut DesignParameterization, mean: &[(Point2, f64)]) -> Result<(), GeometryError> {
    let curve = design.curve()?;
    let d1 = curve.camber.derivative();
    let d2 = d1.derivative();
    let mut at: Vec<(f64, f64)> = mean.iter().map(|(p, h)| (camber_foot(&curve.camber, &d1, &d2, *p), *h)).collect();
    at.push((0.0, 0.0));
    at.push((1.0, 0.0));
    at.sort_by(|a, b| a.0.total_cmp(&b.0));
    let greville = curve.thickness_factor.greville();
    let chord = design.chord.value;
    let n_p = design.pressure_thickness.len();
    for (k, var) in design.thickness.iter_mut().enumerate().chain(design.pressure_thickness.iter_mut().enumerate().take(n_p)) {
        let s = greville[k + 1];
        let j = at.partition_point(|x| x.0 <= s).clamp(1, at.len() - 1);
        let (a, b) = (at[j - 1], at[j]);
        let w = if b.0 > a.0 { ((s - a.0) / (b.0 - a.0)).clamp(0.0, 1.0) } else { 0.5 };
        var.value = ((1.0 - w) * a.1 + w * b.1).max(1e-3 * chord) / chord;
    }
    Ok(())
}

fn circumradius(a: Point2, b: Point2, c: Point2) -> f64 {
    let (ab, bc, ca) = (dist(a, b), dist(b, c), dist(c, a));
    let cross = ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])).abs();
    if cross > 0.0 {
        ab * bc * ca / (2.0 * cross)
    } else {
        f64::INFINITY
    }
}

/// Bounds for optimization around the current values: metal angles +-4 deg, stagger +-2 deg,
/// camber offsets +-2 % of chord, thickness control values +-1.5 % of chord (so the thickness
/// itself moves by up to about 3 % of chord), tangent legs +-20 %, edge radii +-20 %; chord
/// and pitch frozen (the cascade's solidity and the blade count stay those of the datum).
pub fn set_optimization_bounds(design: &mut DesignParameterization) {
    let around = |v: &mut DesignVariable, half: f64| {
        v.lower = v.value - half;
        v.upper = v.value + half;
    };
    around(&mut design.stagger_deg, 2.0);
    around(&mut design.inlet_metal_angle_deg, 4.0);
    around(&mut design.exit_metal_angle_deg, 4.0);
    for v in [&mut design.leading_edge_tangent, &mut design.trailing_edge_tangent, &mut design.leading_edge_radius, &mut design.trailing_edge_radius] {
        let half = 0.2 * v.value.abs();
        around(v, half);
    }
    for v in design.camber.iter_mut() {
        around(v, 0.02);
    }
    for v in design.thickness.iter_mut().chain(design.pressure_thickness.iter_mut()) {
        let half = 0.015_f64.min(0.9 * v.value.abs());
        around(v, half);
    }
    for v in [&mut design.chord, &mut design.pitch] {
        v.lower = v.value;
        v.upper = v.value;
    }
    keep_thinnest_blade_whole(design);
}

/// Share of the datum's smallest thickness factor that the thinnest blade inside the bounds
/// keeps ([`keep_thinnest_blade_whole`]).
const THINNEST_OF_DATUM: f64 = 0.5;

/// Raises the lower bounds of the thickness control values and edge radii towards the datum
/// until the thinnest blade inside the bounds keeps [`THINNEST_OF_DATUM`] of the datum's
/// smallest thickness factor (`DesignCurve::thickness_factor_at`). The factor is linear in
/// those values with non-negative weights (`DesignParameterization::curve`), so the blade with
/// all of them at their lower bounds is the thinnest everywhere along the camber line: when it
/// keeps a thickness, every design inside the bounds does (up to the small effect of the
/// camber on the edge factors), and a random design is never refused for want of one.
fn keep_thinnest_blade_whole(design: &mut DesignParameterization) {
    let Some(datum) = smallest_thickness_factor(design) else { return };
    let at_share = |s: f64| {
        let mut d = design.clone();
        for v in thickness_and_radii(&mut d) {
            v.value -= s * (v.value - v.lower);
        }
        d
    };
    let whole = |s: f64| smallest_thickness_factor(&at_share(s)).is_some_and(|g| g >= THINNEST_OF_DATUM * datum);
    if whole(1.0) {
        return;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..40 {
        let mid = 0.5 * (lo + hi);
        if whole(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    for v in thickness_and_radii(design) {
        v.lower = v.value - lo * (v.value - v.lower);
    }
}

fn thickness_and_radii(d: &mut DesignParameterization) -> impl Iterator<Item = &mut DesignVariable> {
    d.thickness.iter_mut().chain(d.pressure_thickness.iter_mut()).chain([&mut d.leading_edge_radius, &mut d.trailing_edge_radius])
}

/// The smallest thickness factor of the blade along the camber line, sampled; `None` when the
/// design has no curve.
fn smallest_thickness_factor(d: &DesignParameterization) -> Option<f64> {
    let curve = d.curve().ok()?;
    Some((0..=1000).map(|k| curve.thickness_factor_at(k as f64 / 1000.0)).fold(f64::INFINITY, f64::min))
}
