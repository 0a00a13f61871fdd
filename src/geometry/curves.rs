//! Parametric curves used to define blade sections: Bezier curves (Bernstein form evaluated by
//! de Casteljau), clamped B-splines (Cox-de Boor), and interpolating cubic splines.
//!
//! All curves are generic over the dimension `D` of their control points: `D = 2` for plane
//! curves (blade sides, camber lines), `D = 1` for scalar laws (thickness along the camber).

/// A Bezier curve of degree `n = control.len() - 1` on t in [0, 1].
#[derive(Clone, Debug, PartialEq)]
pub struct Bezier<const D: usize> {
    pub control: Vec<[f64; D]>,
}

impl<const D: usize> Bezier<D> {
    /// A Bezier curve through its control polygon; needs at least one point.
    pub fn new(control: Vec<[f64; D]>) -> Self {
        assert!(!control.is_empty(), "a Bezier curve needs at least one control point");
        Bezier { control }
    }

    /// Polynomial degree (number of control points minus one).
    pub fn degree(&self) -> usize {
        self.control.len() - 1
    }

    /// Point at parameter t by de Casteljau's algorithm (numerically stable for any degree).
    pub fn point(&self, t: f64) -> [f64; D] {
        let mut work = self.control.clone();
        let n = work.len();
        for level in 1..n {
            for i in 0..n - level {
                for d in 0..D {
                    work[i][d] = (1.0 - t) * work[i][d] + t * work[i + 1][d];
                }
            }
        }
        work[0]
    }

    /// The hodograph: B'(t) is a Bezier of degree n-1 with control points n (P_{i+1} - P_i).
    pub fn derivative(&self) -> Bezier<D> {
        let n = self.degree();
        if n == 0 {
            return Bezier { control: vec![[0.0; D]] };
        }
        let control = self
            .control
            .windows(2)
            .map(|w| std::array::from_fn(|d| n as f64 * (w[1][d] - w[0][d])))
            .collect();
        Bezier { control }
    }
}

/// A clamped B-spline of degree `p`: knots repeated p+1 times at both ends, so the curve starts
/// at the first control point and ends at the last one, tangent to the control polygon there.
#[derive(Clone, Debug, PartialEq)]
pub struct BSpline<const D: usize> {
    pub degree: usize,
    /// Non-decreasing knot vector of length `control.len() + degree + 1`.
    pub knots: Vec<f64>,
    pub control: Vec<[f64; D]>,
}

impl<const D: usize> BSpline<D> {
    /// Clamped B-spline on [0, 1] with uniformly spaced interior knots.
    pub fn clamped_uniform(degree: usize, control: Vec<[f64; D]>) -> Self {
        let knots = clamped_knots(degree, control.len(), |u| u);
        BSpline { degree, knots, control }
    }

    /// Clamped B-spline on [0, 1] whose interior knots are `spacing(u)` of uniform u in (0, 1)
    /// (`spacing` must be increasing with spacing(0) = 0, spacing(1) = 1).
    pub fn clamped_with_spacing(degree: usize, control: Vec<[f64; D]>, spacing: impl Fn(f64) -> f64) -> Self {
        let knots = clamped_knots(degree, control.len(), spacing);
        BSpline { degree, knots, control }
    }

    /// Point at parameter t (clamped to the knot range).
    pub fn point(&self, t: f64) -> [f64; D] {
        let (span, basis) = basis_functions(self.degree, &self.knots, t);
        let mut out = [0.0; D];
        for (k, b) in basis.iter().enumerate() {
            let c = self.control[span - self.degree + k];
            for d in 0..D {
                out[d] += b * c[d];
            }
        }
        out
    }

    /// Derivative curve: degree p-1 with control points p (P_{i+1} - P_i) / (u_{i+p+1} - u_{i+1})
    /// on the knot vector without its first and last knot (Piegl & Tiller, eq. 3.8).
    pub fn derivative(&self) -> BSpline<D> {
        let p = self.degree;
        if p == 0 {
            return BSpline { degree: 0, knots: self.knots.clone(), control: vec![[0.0; D]; self.control.len()] };
        }
        let control = (0..self.control.len() - 1)
            .map(|i| {
                let du = self.knots[i + p + 1] - self.knots[i + 1];
                std::array::from_fn(|d| if du > 0.0 { p as f64 * (self.control[i + 1][d] - self.control[i][d]) / du } else { 0.0 })
            })
            .collect();
        BSpline { degree: p - 1, knots: self.knots[1..self.knots.len() - 1].to_vec(), control }
    }

    /// Greville abscissae: the parameter "where" each control point acts (mean of p knots).
    pub fn greville(&self) -> Vec<f64> {
        greville_abscissae(self.degree, &self.knots)
    }
}

/// Clamped knot vector on [0, 1] for `n_control` control points of degree `degree`.
pub fn clamped_knots(degree: usize, n_control: usize, spacing: impl Fn(f64) -> f64) -> Vec<f64> {
    assert!(n_control > degree, "a clamped B-spline of degree {degree} needs more than {degree} control points");
    let n_interior = n_control - degree - 1;
    let mut knots = vec![0.0; degree + 1];
    for k in 1..=n_interior {
        knots.push(spacing(k as f64 / (n_interior + 1) as f64));
    }
    knots.extend(std::iter::repeat_n(1.0, degree + 1));
    knots
}

/// Greville abscissae of a knot vector for degree p.
pub fn greville_abscissae(degree: usize, knots: &[f64]) -> Vec<f64> {
    let n_control = knots.len() - degree - 1;
    (0..n_control)
        .map(|i| if degree == 0 { knots[i] } else { knots[i + 1..=i + degree].iter().sum::<f64>() / degree as f64 })
        .collect()
}

/// One more than the highest B-spline degree `basis_functions` evaluates.
pub const MAX_BASIS: usize = 8;

/// The `degree + 1` non-zero basis functions at a parameter, on the stack (a slice through `Deref`).
#[derive(Clone, Copy, Debug)]
pub struct BasisValues {
    values: [f64; MAX_BASIS],
    len: usize,
}

impl std::ops::Deref for BasisValues {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.values[..self.len]
    }
}

/// Knot span index and the p+1 non-zero basis functions N_{span-p..=span, p}(t) by the
/// Cox-de Boor recursion in its triangular form (Piegl & Tiller, algorithms A2.1 and A2.2).
pub fn basis_functions(degree: usize, knots: &[f64], t: f64) -> (usize, BasisValues) {
    assert!(degree < MAX_BASIS, "B-spline degree {degree} above the supported {}", MAX_BASIS - 1);
    let n_control = knots.len() - degree - 1;
    let (lo, hi) = (knots[degree], knots[n_control]);
    let t = t.clamp(lo, hi);
    // Span: the last i with knots[i] <= t < knots[i+1]; the end t = hi belongs to the last span.
    let span = if t >= hi {
        (degree..n_control).rev().find(|&i| knots[i] < knots[i + 1]).unwrap_or(n_control - 1)
    } else {
        let mut i = degree;
        while i + 1 < n_control && knots[i + 1] <= t {
            i += 1;
        }
        i
    };
    // Fixed-size buffers: the shape fits evaluate millions of points, and three heap vectors a
    // point were most of an import's time.
    let mut basis = [0.0; MAX_BASIS];
    let mut left = [0.0; MAX_BASIS];
    let mut right = [0.0; MAX_BASIS];
    basis[0] = 1.0;
    for j in 1..=degree {
        left[j] = t - knots[span + 1 - j];
        right[j] = knots[span + j] - t;
        let mut saved = 0.0;
        for r in 0..j {
            let denom = right[r + 1] + left[j - r];
            let temp = if denom != 0.0 { basis[r] / denom } else { 0.0 };
            basis[r] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        basis[j] = saved;
    }
    (span, BasisValues { values: basis, len: degree + 1 })
}

/// Interpolating cubic spline through points, parameterized by cumulative chord length.
///
/// Open splines use not-a-knot-free "natural" ends (zero second derivative); closed splines are
/// periodic (C2 everywhere, including where the loop closes).
#[derive(Clone, Debug)]
pub struct CubicSpline {
    /// Parameter (cumulative chord length) at each knot; for a closed spline one more entry,
    /// the total loop length, closes the loop.
    params: Vec<f64>,
    points: Vec<[f64; 2]>,
    /// Second derivatives d2P/ds2 at each knot.
    second: Vec<[f64; 2]>,
    closed: bool,
}

impl CubicSpline {
    /// Natural cubic spline through `points` (at least 2, consecutive points distinct).
    pub fn open(points: &[[f64; 2]]) -> Option<Self> {
        let params = chord_params(points, false)?;
        let n = points.len();
        let mut second = vec![[0.0; 2]; n];
        if n > 2 {
            for d in 0..2 {
                let m = natural_second_derivatives(&params, &points.iter().map(|p| p[d]).collect::<Vec<_>>());
                for (s, v) in second.iter_mut().zip(m) {
                    s[d] = v;
                }
            }
        }
        Some(CubicSpline { params, points: points.to_vec(), second, closed: false })
    }

    /// Periodic cubic spline through a closed loop of points (at least 3; first not repeated).
    pub fn closed(points: &[[f64; 2]]) -> Option<Self> {
        if points.len() < 3 {
            return None;
        }
        let params = chord_params(points, true)?;
        let n = points.len();
        let mut second = vec![[0.0; 2]; n];
        for d in 0..2 {
            let m = periodic_second_derivatives(&params, &points.iter().map(|p| p[d]).collect::<Vec<_>>());
            for (s, v) in second.iter_mut().zip(m) {
                s[d] = v;
            }
        }
        Some(CubicSpline { params, points: points.to_vec(), second, closed: true })
    }

    /// Total parameter length (chord length of the data polygon, closed or open).
    pub fn length(&self) -> f64 {
        *self.params.last().unwrap()
    }

    /// Parameter of the k-th data point.
    pub fn knot(&self, k: usize) -> f64 {
        self.params[k]
    }

    /// Point at parameter s in [0, length()].
    pub fn point(&self, s: f64) -> [f64; 2] {
        let n = self.points.len();
        let s = s.clamp(0.0, self.length());
        let segs = if self.closed { n } else { n - 1 };
        let mut k = self.params.partition_point(|&p| p <= s).saturating_sub(1);
        k = k.min(segs - 1);
        let (s0, s1) = (self.params[k], self.params[k + 1]);
        let h = s1 - s0;
        let a = (s1 - s) / h;
        let b = (s - s0) / h;
        let (p0, p1) = (self.points[k], self.points[(k + 1) % n]);
        let (m0, m1) = (self.second[k], self.second[(k + 1) % n]);
        std::array::from_fn(|d| a * p0[d] + b * p1[d] + ((a * a * a - a) * m0[d] + (b * b * b - b) * m1[d]) * h * h / 6.0)
    }
}

fn chord_params(points: &[[f64; 2]], closed: bool) -> Option<Vec<f64>> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len();
    let segs = if closed { n } else { n - 1 };
    let mut params = vec![0.0];
    for k in 0..segs {
        let h = super::dist(points[k], points[(k + 1) % n]);
        if !(h > 0.0) {
            return None;
        }
        params.push(params[k] + h);
    }
    Some(params)
}

/// Second derivatives of the natural cubic spline (tridiagonal system, Thomas algorithm).
fn natural_second_derivatives(s: &[f64], y: &[f64]) -> Vec<f64> {
    let n = y.len();
    let m = n - 2; // unknowns at interior knots
    let (mut sub, mut diag, mut sup, mut rhs) = (vec![0.0; m], vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    for i in 0..m {
        let (h0, h1) = (s[i + 1] - s[i], s[i + 2] - s[i + 1]);
        sub[i] = h0 / 6.0;
        diag[i] = (h0 + h1) / 3.0;
        sup[i] = h1 / 6.0;
        rhs[i] = (y[i + 2] - y[i + 1]) / h1 - (y[i + 1] - y[i]) / h0;
    }
    let interior = thomas(&sub, &diag, &sup, &rhs);
    let mut out = vec![0.0; n];
    out[1..n - 1].copy_from_slice(&interior);
    out
}

/// Second derivatives of the periodic cubic spline: a cyclic tridiagonal system, solved by the
/// Sherman-Morrison correction of two Thomas solves.
fn periodic_second_derivatives(s: &[f64], y: &[f64]) -> Vec<f64> {
    let n = y.len();
    let h = |k: usize| s[k + 1] - s[k]; // segment k joins point k and point (k+1) % n
    let (mut sub, mut diag, mut sup, mut rhs) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for i in 0..n {
        let hp = h((i + n - 1) % n);
        let hn = h(i);
        sub[i] = hp / 6.0;
        diag[i] = (hp + hn) / 3.0;
        sup[i] = hn / 6.0;
        rhs[i] = (y[(i + 1) % n] - y[i]) / hn - (y[i] - y[(i + n - 1) % n]) / hp;
    }
    // A = T + u v^T with corner terms alpha = sup[n-1] (row n-1, col 0), beta = sub[0] (row 0, col n-1).
    let (alpha, beta) = (sup[n - 1], sub[0]);
    let gamma = -diag[0];
    let mut d2 = diag.clone();
    d2[0] -= gamma;
    d2[n - 1] -= alpha * beta / gamma;
    let x = thomas(&sub, &d2, &sup, &rhs);
    let mut u = vec![0.0; n];
    u[0] = gamma;
    u[n - 1] = alpha;
    let z = thomas(&sub, &d2, &sup, &u);
    let factor = (x[0] + beta * x[n - 1] / gamma) / (1.0 + z[0] + beta * z[n - 1] / gamma);
    x.iter().zip(&z).map(|(xi, zi)| xi - factor * zi).collect()
}

/// Tridiagonal solve (sub[0] and sup[n-1] unused). Written out because nalgebra has no banded
/// solver and a dense LU on thousands of spline knots would be needlessly cubic.
fn thomas(sub: &[f64], diag: &[f64], sup: &[f64], rhs: &[f64]) -> Vec<f64> {
    let n = diag.len();
    let mut c = vec![0.0; n];
    let mut d = vec![0.0; n];
    c[0] = sup[0] / diag[0];
    d[0] = rhs[0] / diag[0];
    for i in 1..n {
        let m = diag[i] - sub[i] * c[i - 1];
        c[i] = sup[i] / m;
        d[i] = (rhs[i] - sub[i] * d[i - 1]) / m;
    }
    let mut x = vec![0.0; n];
    x[n - 1] = d[n - 1];
    for i in (0..n - 1).rev() {
        x[i] = d[i] - c[i] * x[i + 1];
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bezier_matches_bernstein_form() {
        let b = Bezier::new(vec![[0.0, 0.0], [1.0, 2.0], [3.0, 3.0], [4.0, 0.0]]);
        let t: f64 = 0.3;
        let bern = [(1.0 - t).powi(3), 3.0 * t * (1.0 - t).powi(2), 3.0 * t * t * (1.0 - t), t.powi(3)];
        let p = b.point(t);
        for d in 0..2 {
            let expected: f64 = bern.iter().zip(&b.control).map(|(w, c)| w * c[d]).sum();
            assert!((p[d] - expected).abs() < 1e-14);
        }
        let dp = b.derivative().point(t);
        let h = 1e-6;
        for d in 0..2 {
            let fd = (b.point(t + h)[d] - b.point(t - h)[d]) / (2.0 * h);
            assert!((dp[d] - fd).abs() < 1e-8, "derivative {} vs {}", dp[d], fd);
        }
    }

    #[test]
    fn bspline_partition_of_unity_and_derivative() {
        let ctrl: Vec<[f64; 2]> = (0..7).map(|i| [i as f64, ((i * 7) % 5) as f64]).collect();
        let s = BSpline::clamped_with_spacing(3, ctrl.clone(), |u| 0.5 - 0.5 * (std::f64::consts::PI * u).cos());
        for k in 0..=20 {
            let t = k as f64 / 20.0;
            let (_, b) = basis_functions(3, &s.knots, t);
            assert!((b.iter().sum::<f64>() - 1.0).abs() < 1e-14);
        }
        assert_eq!(s.point(0.0), ctrl[0]);
        assert_eq!(s.point(1.0), ctrl[6]);
        let ds = s.derivative();
        for t in [0.0f64, 0.13, 0.5, 0.77, 1.0] {
            let h = 1e-6;
            let (a, b) = ((t - h).max(0.0), (t + h).min(1.0));
            for d in 0..2 {
                let fd = (s.point(b)[d] - s.point(a)[d]) / (b - a);
                // One-sided differences at the ends are only first-order accurate.
                let tol = if t == 0.0 || t == 1.0 { 1e-3 } else { 1e-6 };
                assert!((ds.point(t)[d] - fd).abs() < tol, "t {t}: {} vs {}", ds.point(t)[d], fd);
            }
        }
    }

    #[test]
    fn bspline_with_bezier_knots_is_the_bezier() {
        let ctrl = vec![[0.0, 0.0], [1.0, 2.0], [3.0, 3.0], [4.0, 0.0]];
        let s = BSpline::clamped_uniform(3, ctrl.clone());
        let b = Bezier::new(ctrl);
        for t in [0.0, 0.25, 0.6, 1.0] {
            let (p, q) = (s.point(t), b.point(t));
            assert!((p[0] - q[0]).abs() < 1e-14 && (p[1] - q[1]).abs() < 1e-14);
        }
    }

    #[test]
    fn splines_interpolate_and_reproduce_circle() {
        let n = 64;
        let r = 2.0;
        let pts: Vec<[f64; 2]> = (0..n)
            .map(|k| {
                let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                [r * a.cos(), r * a.sin()]
            })
            .collect();
        let c = CubicSpline::closed(&pts).unwrap();
        let mut worst: f64 = 0.0;
        for k in 0..1000 {
            let p = c.point(c.length() * k as f64 / 1000.0);
            worst = worst.max(((p[0] * p[0] + p[1] * p[1]).sqrt() - r).abs());
        }
        assert!(worst < 1e-5 * r, "periodic spline off the circle by {worst}");
        for k in 0..n {
            let p = c.point(c.knot(k));
            assert!(super::super::dist(p, pts[k]) < 1e-12);
        }
        let o = CubicSpline::open(&pts[..20]).unwrap();
        assert!(super::super::dist(o.point(o.knot(7)), pts[7]) < 1e-12);
    }
}
