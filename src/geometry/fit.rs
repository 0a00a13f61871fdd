//! Fitting the design parameterization to a given outline (e.g. LS89's published Bezier blade),
//! so that an optimization can start from an existing blade.
//!
//! Least squares on the signed normal distances from target points to the design curve, by
//! Levenberg-Marquardt with Marquardt's diagonal scaling (Nocedal & Wright, section 10.3). The
//! foot points on the design curve are re-projected (Newton on (P(v) - p) . P'(v) = 0) after
//! every accepted step; at fixed foot points the derivative of a normal distance with respect to
//! a parameter is minus the normal component of the curve point's derivative (the tangential part
//! only slides the foot point), computed by forward differences.

use super::cascade::closest_on_segment;
use super::design::{DesignCurve, DesignParameterization, DesignVariable};
use super::validity::{check_no_cusps, check_self_intersection, GeometryError};
use super::design::MAX_TURN_DEG;
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
    /// RMS and largest distance between target and fitted outline [m] (see [`outline_deviation`]).
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
            let grid: Vec<(f64, Point2)> = (0..N).map(|k| {
                let v = -1.0 + 2.0 * k as f64 / N as f64;
                (v, curve.point(v))
            }).collect();
            targets
                .iter()
                .map(|q| grid.iter().min_by(|a, b| dist(a.1, *q).total_cmp(&dist(b.1, *q))).unwrap().0)
                .collect()
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

/// Fit the shape variables of `initial` (all but the pitch; bounds are ignored during the fit)
/// to the `target` outline. The residuals go both ways: target points to the design curve (at
/// their foot points) and design-curve points (fixed parameters v) to the target polyline, so
/// neither a missed stretch of the target nor a bump of the design goes unpenalized. Steps that
/// fold the design outline are rejected. Fails if no valid design is reached from `initial`.
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
    let fairing: f64 = std::env::var("FAIR").ok().and_then(|s| s.parse().ok()).unwrap_or(0.02);
    let residual = |q: &[f64], trial: bool| -> Option<Vec<f64>> {
        let curve = with_values(initial, &idx, q).curve().ok()?;
        if trial && std::env::var("NOFOLD").is_err() && !unfolded(&curve) {
            return None;
        }
        let foot = project(&curve, &targets, Some(&feet.borrow()));
        let (mut r, _) = residuals(&curve, &targets, &foot);
        let mut hint = hints.borrow().clone();
        for (j, &v) in v_back.iter().enumerate().filter(|_| std::env::var("ONEWAY").is_err()) {
            let (d, k) = signed_distance_to_loop(curve.point(v), &target.points, Some(hint[j]), 60);
            r.push(d);
            hint[j] = k;
        }
        // Fairing: a light penalty on the second differences of the thickness and camber
        // control values keeps the fit from trading a smooth side for a local finger.
        let d = with_values(initial, &idx, q);
        let chord = d.chord.value;
        for list in [&d.thickness, &d.camber] {
            let vals: Vec<f64> = list.iter().map(|v| v.value).collect();
            for k in 1..vals.len().saturating_sub(1) {
                r.push(fairing * chord * (vals[k - 1] - 2.0 * vals[k] + vals[k + 1]));
            }
        }
        if trial {
            *feet.borrow_mut() = foot;
            *hints.borrow_mut() = hint;
        }
        Some(r)
    };
    let (q, iterations) = levenberg_marquardt_with(q0, residual, options.max_iterations, options.relative_tolerance);
    let design = with_values(initial, &idx, &q);
    let outline = design.outline()?;
    let (rms, max) = outline_deviation(target, &outline);
    Ok(FitResult { design, rms, max, iterations })
}

/// A first guess of the design parameterization for an outline (leading edge at index 0):
/// chord and stagger from the leading edge to the farthest point, metal angles from the
/// bisectors of the edges, radii from three-point circles at the apexes, thickness from the
/// distance of the guessed camber line to the outline. `n_camber` and `n_thickness` interior
/// control points; every variable frozen at its value (set bounds with [`set_optimization_bounds`]).
pub fn initial_design_for_outline(target: &Outline, pitch: f64, n_camber: usize, n_thickness: usize) -> Result<DesignParameterization, GeometryError> {
    let pts = &target.points;
    let n = pts.len();
    let le = pts[0];
    let (te_idx, _) = pts.iter().enumerate().map(|(k, p)| (k, dist(*p, le))).max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let te = pts[te_idx];
    let chord = dist(le, te);
    let stagger = (te[1] - le[1]).atan2(te[0] - le[0]);
    // Points a small arc length either side of an apex: their midpoint lies on the camber line.
    let perimeter = target.perimeter();
    let around = |k0: usize, arc: f64| -> (Point2, Point2) {
        let walk = |dir: isize| {
            let (mut k, mut s) = (k0, 0.0);
            while s < arc {
                let next = (k as isize + dir).rem_euclid(n as isize) as usize;
                s += dist(pts[k], pts[next]);
                k = next;
            }
            pts[k]
        };
        (walk(1), walk(-1))
    };
    // Camber direction at an apex: the outward normal there (the outline runs clockwise, so
    // that is the tangent turned by +90 deg), pointing upstream at the leading edge.
    let outward = |k: usize| {
        let (a, b) = (pts[(k + n - 1) % n], pts[(k + 1) % n]);
        (b[0] - a[0]).atan2(-(b[1] - a[1]))
    };
    let inlet = outward(0) + std::f64::consts::PI;
    let exit = outward(te_idx);
    let apex_radius = |k0: usize, arc: f64| {
        let (a, b) = around(k0, arc);
        circumradius(a, pts[k0], b)
    };
    let r_le = apex_radius(0, 0.005 * perimeter);
    let r_te = apex_radius(te_idx, 0.002 * perimeter);
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
        leading_edge_radius: fixed("leading_edge_radius".into(), r_le),
        trailing_edge_radius: fixed("trailing_edge_radius".into(), r_te),
        pitch: fixed("pitch".into(), pitch),
        leading_edge: le,
    };
    // A smooth elliptic-like thickness to start from: g constant, h = 0.08 chord sqrt(t (1 - t)).
    let greville = design.curve()?.thickness_factor.greville();
    for (k, v) in design.thickness.iter_mut().enumerate() {
        let s = greville[k + 1];
        v.value = 0.08 * (s * (1.0 - s)).sqrt();
    }
    // Camber and thickness from the mean line of the outline (midpoints of the two sides along
    // the camber normals), each fitted by least squares.
    if std::env::var("FIT_MEAN").is_ok() {
    let mean = mean_line(pts, te_idx, 120, inlet, exit);
    fit_camber_to_points(&mut design, &mean.iter().map(|m| m.0).collect::<Vec<_>>());
    thickness_from_mean_line(&mut design, &mean)?;
    }
    // The mean-line thickness can exceed the camber's radius of curvature where the camber turns
    // fast (LS89's leading-edge bulb), folding the concave side; thin the guess until it does
    // not, and let the fit grow it back.
    for _ in 0..(if std::env::var("NOTHIN").is_ok() { 0 } else { 20 }) {
        if design.curve().is_ok_and(|c| unfolded(&c)) {
            break;
        }
        for v in design.thickness.iter_mut() {
            v.value *= 0.8;
        }
    }
    Ok(design)
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
    let cum: Vec<f64> = std::iter::once(0.0).chain(line.windows(2).scan(0.0, |s, w| { *s += dist(w[0], w[1]); Some(*s) })).collect();
    let target = f * cum.last().unwrap();
    let k = cum.partition_point(|&c| c <= target).clamp(1, line.len() - 1) - 1;
    let w = ((target - cum[k]) / (cum[k + 1] - cum[k]).max(f64::MIN_POSITIVE)).clamp(0.0, 1.0);
    [line[k][0] + w * (line[k + 1][0] - line[k][0]), line[k][1] + w * (line[k + 1][1] - line[k][1])]
}

/// Nearest crossing of the line through `o` along `n` with an open polyline, as the signed
/// distance along n.
fn ray_hit(o: Point2, n: Point2, line: &[Point2]) -> Option<f64> {
    let mut best: Option<f64> = None;
    for w in line.windows(2) {
        let e = [w[1][0] - w[0][0], w[1][1] - w[0][1]];
        let det = n[0] * (-e[1]) - n[1] * (-e[0]);
        if det.abs() < 1e-300 {
            continue;
        }
        let r = [w[0][0] - o[0], w[0][1] - o[1]];
        let lambda = (r[0] * (-e[1]) - r[1] * (-e[0])) / det;
        let mu = (n[0] * r[1] - n[1] * r[0]) / det;
        if (0.0..=1.0).contains(&mu) && best.is_none_or(|b| lambda.abs() < b.abs()) {
            best = Some(lambda);
        }
    }
    best
}

/// Mean line: points midway between the sides along the thickness direction of the design
/// parameterization (turning uniformly from the inlet to the exit metal angle, here with the
/// arc-length fraction standing in for the camber parameter), with the half-thickness there.
/// Starts from the midpoints of points at equal arc-length fractions of the two sides.
fn mean_line(pts: &[Point2], te: usize, m: usize, beta1: f64, beta2: f64) -> Vec<(Point2, f64)> {
    let (upper, lower) = sides(pts, te);
    let fractions: Vec<f64> = (1..=m).map(|j| j as f64 / (m + 1) as f64).collect();
    let mut mean: Vec<(Point2, f64)> = fractions
        .iter()
        .map(|&f| {
            let (u, l) = (at_fraction(&upper, f), at_fraction(&lower, f));
            ([(u[0] + l[0]) / 2.0, (u[1] + l[1]) / 2.0], dist(u, l) / 2.0)
        })
        .collect();
    for _ in 0..20 {
        for (j, &f) in fractions.iter().enumerate() {
            let n = if std::env::var("UNIFORM").is_ok() {
                let theta = beta1 + (beta2 - beta1) * f;
                [-theta.sin(), theta.cos()]
            } else {
                let line: Vec<Point2> = std::iter::once(pts[0]).chain(mean.iter().map(|m| m.0)).chain(std::iter::once(pts[te])).collect();
                let (a, b) = (line[j], line[j + 2]);
                let t = [b[0] - a[0], b[1] - a[1]];
                let len = (t[0] * t[0] + t[1] * t[1]).sqrt();
                [-t[1] / len, t[0] / len]
            };
            let o = mean[j].0;
            if let (Some(lu), Some(ll)) = (ray_hit(o, n, &upper), ray_hit(o, n, &lower)) {
                let (u, l) = ([o[0] + lu * n[0], o[1] + lu * n[1]], [o[0] + ll * n[0], o[1] + ll * n[1]]);
                mean[j] = ([(u[0] + l[0]) / 2.0, (u[1] + l[1]) / 2.0], dist(u, l) / 2.0);
            }
        }
    }
    mean
}

/// Levenberg-Marquardt with a forward-difference Jacobian on a residual function that may fail
/// (None) for parameters that make no valid curve.
/// `f(q, trial)` is called with `trial = true` for candidate steps (which it must validate
/// fully) and `false` for Jacobian columns. Returns the parameters and the iterations used.
fn levenberg_marquardt_with(mut q: Vec<f64>, f: impl Fn(&[f64], bool) -> Option<Vec<f64>>, max_iterations: usize, tolerance: f64) -> (Vec<f64>, usize) {
    let Some(mut r) = f(&q, true) else { return (q, 0) };
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

fn levenberg_marquardt(q: Vec<f64>, f: impl Fn(&[f64]) -> Option<Vec<f64>>, max_iterations: usize) -> Vec<f64> {
    levenberg_marquardt_with(q, |q, _| f(q), max_iterations, 1e-10).0
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

/// Fit the camber variables (tangent legs, interior offsets; chord, stagger and metal angles
/// kept, they come from the apexes) to mean-line points.
fn fit_camber_to_points(design: &mut DesignParameterization, mean: &[Point2]) {
    let n_c = design.camber.len();
    let get = |d: &DesignParameterization| {
        let mut q = vec![d.leading_edge_tangent.value, d.trailing_edge_tangent.value];
        q.extend(d.camber.iter().map(|v| v.value));
        q
    };
    let set = |d: &mut DesignParameterization, q: &[f64]| {
        d.leading_edge_tangent.value = q[0];
        d.trailing_edge_tangent.value = q[1];
        for k in 0..n_c {
            d.camber[k].value = q[2 + k];
        }
    };
    let base = design.clone();
    let residual = |q: &[f64]| {
        let mut d = base.clone();
        set(&mut d, q);
        if !(q[0] > 0.0 && q[1] > 0.0) {
            return None;
        }
        let curve = super::curves::BSpline::clamped_uniform(3.min(n_c + 3), d.camber_control_points());
        let d1 = curve.derivative();
        let d2 = d1.derivative();
        Some(mean.iter().map(|&p| dist(p, curve.point(camber_foot(&curve, &d1, &d2, p)))).collect())
    };
    let q = levenberg_marquardt(get(design), residual, 200);
    set(design, &q);
}

/// Thickness control values from the mean-line half-thicknesses: `thickness_k` is about the
/// half-thickness at the Greville abscissa s_k, read off the mean line at that arc-length
/// fraction (a guess for the fit to refine; positive by construction).
fn thickness_from_mean_line(design: &mut DesignParameterization, mean: &[(Point2, f64)]) -> Result<(), GeometryError> {
    let curve = design.curve()?;
    let greville = curve.thickness_factor.greville();
    let m = mean.len();
    let chord = design.chord.value;
    for (k, var) in design.thickness.iter_mut().enumerate() {
        let f = greville[k + 1] * (m + 1) as f64 - 1.0;
        let j = (f.max(0.0) as usize).min(m - 2);
        let w = (f - j as f64).clamp(0.0, 1.0);
        var.value = ((1.0 - w) * mean[j].1 + w * mean[j + 1].1).max(1e-3 * chord) / chord;
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
    for v in design.thickness.iter_mut() {
        let half = 0.015_f64.min(0.9 * v.value.abs());
        around(v, half);
    }
    for v in [&mut design.chord, &mut design.pitch] {
        v.lower = v.value;
        v.upper = v.value;
    }
}
