//! One-dimensional node distributions and arc-length parametrized curves.
//!
//! Every grid line of the cascade mesh is built the same way: a curve (polyline or cubic
//! Hermite) and a cell-size function along it. The size function is
//! `h(s) = min(h_max, cap(s))`, where `cap` collects the spacing requirements (first cell at a
//! wall or at a block interface, curvature limits) graded so that neighbouring cells never grow
//! by more than a set ratio, and `h_max` is chosen so that exactly `n` cells fit. Placing node
//! `k` where `integral_0^s ds'/h(s') = k` gives cells of size ~h: for `h = h0 + g s` the cells
//! are exactly geometric with ratio `e^g`.

use crate::error::Error;

/// A 2-D point or vector \[m\].
pub type P2 = [f64; 2];

pub fn add(a: P2, b: P2) -> P2 {
    [a[0] + b[0], a[1] + b[1]]
}
pub fn sub(a: P2, b: P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}
pub fn scale(a: P2, c: f64) -> P2 {
    [a[0] * c, a[1] * c]
}
pub fn norm(a: P2) -> f64 {
    a[0].hypot(a[1])
}
pub fn dist(a: P2, b: P2) -> f64 {
    norm(sub(a, b))
}
pub fn unit(a: P2) -> P2 {
    let n = norm(a);
    if n > 0.0 {
        scale(a, 1.0 / n)
    } else {
        [0.0, 0.0]
    }
}
/// The vector turned +90 degrees (to the left of the direction of travel).
pub fn left_normal(t: P2) -> P2 {
    [-t[1], t[0]]
}
pub fn cross(a: P2, b: P2) -> f64 {
    a[0] * b[1] - a[1] * b[0]
}
pub fn dot(a: P2, b: P2) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

/// An open polyline parametrized by arc length.
#[derive(Clone, Debug)]
pub struct Polyline {
    pts: Vec<P2>,
    s: Vec<f64>,
}

impl Polyline {
    /// Consecutive duplicate points are dropped so that the arc length is strictly increasing.
    pub fn new(points: Vec<P2>) -> Self {
        let mut pts: Vec<P2> = Vec::with_capacity(points.len());
        for p in points {
            if pts.last().is_none_or(|q| dist(*q, p) > 0.0) {
                pts.push(p);
            }
        }
        let mut s = Vec::with_capacity(pts.len());
        let mut acc = 0.0;
        for k in 0..pts.len() {
            if k > 0 {
                acc += dist(pts[k - 1], pts[k]);
            }
            s.push(acc);
        }
        Polyline { pts, s }
    }

    pub fn length(&self) -> f64 {
        *self.s.last().unwrap_or(&0.0)
    }

    pub fn points(&self) -> &[P2] {
        &self.pts
    }

    /// Index of the segment holding arc length `s` (clamped to the curve).
    fn segment(&self, s: f64) -> usize {
        let k = self.s.partition_point(|&v| v <= s);
        k.clamp(1, self.pts.len() - 1) - 1
    }

    /// The point at arc length `s` (clamped to the ends).
    pub fn at(&self, s: f64) -> P2 {
        let s = s.clamp(0.0, self.length());
        let k = self.segment(s);
        let t = (s - self.s[k]) / (self.s[k + 1] - self.s[k]);
        add(self.pts[k], scale(sub(self.pts[k + 1], self.pts[k]), t))
    }

    /// Arc length of the point of the polyline closest to `p`.
    pub fn closest_param(&self, p: P2) -> f64 {
        let mut best = (f64::INFINITY, 0.0);
        for k in 0..self.pts.len() - 1 {
            let a = self.pts[k];
            let d = sub(self.pts[k + 1], a);
            let len2 = dot(d, d);
            let t = (dot(sub(p, a), d) / len2).clamp(0.0, 1.0);
            let q = add(a, scale(d, t));
            // Squared distances compare as the distances do, without a hypot per segment.
            let e = sub(p, q);
            let dd = dot(e, e);
            if dd < best.0 {
                best = (dd, self.s[k] + t * (self.s[k + 1] - self.s[k]));
            }
        }
        best.1
    }

    /// Shortest distance from `p` to the polyline.
    pub fn distance_to(&self, p: P2) -> f64 {
        dist(p, self.at(self.closest_param(p)))
    }

    /// The points at the given arc lengths.
    pub fn sample(&self, s: &[f64]) -> Vec<P2> {
        s.iter().map(|&v| self.at(v)).collect()
    }
}

/// A cubic Hermite curve from `p0` (leaving along `d0`) to `p1` (arriving along `d1`),
/// sampled densely into a polyline. The end tangents are scaled by `tension` = (at the start,
/// at the end) times the chord: 1/2 gives a fair curve that leaves and meets the end
/// directions without loops; a small start tension keeps fanning lines from crossing.
pub fn hermite(p0: P2, d0: P2, p1: P2, d1: P2, tension: (f64, f64), samples: usize) -> Polyline {
    let chord = dist(p0, p1);
    let m0 = scale(unit(d0), tension.0 * chord);
    let m1 = scale(unit(d1), tension.1 * chord);
    let pts = (0..=samples)
        .map(|k| {
            let t = k as f64 / samples as f64;
            let (t2, t3) = (t * t, t * t * t);
            let h00 = 2.0 * t3 - 3.0 * t2 + 1.0;
            let h10 = t3 - 2.0 * t2 + t;
            let h01 = -2.0 * t3 + 3.0 * t2;
            let h11 = t3 - t2;
            [
                h00 * p0[0] + h10 * m0[0] + h01 * p1[0] + h11 * m1[0],
                h00 * p0[1] + h10 * m0[1] + h01 * p1[1] + h11 * m1[1],
            ]
        })
        .collect();
    Polyline::new(pts)
}

/// A spacing requirement: the cell at arc length `s` should have size `h`.
#[derive(Clone, Copy, Debug)]
pub struct SpacingAt {
    pub s: f64,
    pub h: f64,
}

/// Arc lengths `0 = s_0 < ... < s_n = length` of `n` cells on a line of the given length.
///
/// `targets` fixes the cell size at a few places (first cells at walls and interfaces);
/// `cap(s)` is an optional upper bound on the cell size (e.g. from wall curvature). Both are
/// graded with `max_ratio` between neighbouring cells; the remaining freedom (the largest
/// cell, `h_max`) is found by bisection so that exactly `n` cells fit. When even without
/// `h_max` the requirements need more than `n` cells, they are all relaxed by one common
/// factor (the largest cells grow first, the spacings at the targets a little).
pub fn graded_distribution(
    length: f64,
    n: usize,
    targets: &[SpacingAt],
    cap: Option<&dyn Fn(f64) -> f64>,
    max_ratio: f64,
) -> Result<Vec<f64>, Error> {
    if !(length > 0.0 && length.is_finite()) || n == 0 {
        return Err(Error::Mesh(format!("cannot distribute {n} cells on a line of length {length:e} m")));
    }
    // Fine sampling of the size function: enough sub-intervals per cell for the integral.
    let k = (40 * n).max(4000);
    let ds = length / k as f64;
    let g = max_ratio.ln();
    let mut base = vec![f64::INFINITY; k];
    if let Some(cap) = cap {
        for (m, b) in base.iter_mut().enumerate() {
            *b = cap((m as f64 + 0.5) * ds).max(1e-300);
        }
    }
    let graded = |factor: f64| CellCount::new(graded_size(&base, ds, targets, g, factor), ds);
    let n_cells = n as f64;

    let mut factor = 1.0;
    let mut count = graded(factor);
    // Relax the requirements until n cells can hold them.
    for _ in 0..200 {
        if !count.exceeds(f64::INFINITY, n_cells) {
            break;
        }
        factor *= 1.05;
        count = graded(factor);
    }
    let (mut lo, mut hi) = (length / n as f64 * 1e-3, length);
    if count.exceeds(hi, n_cells) {
        hi = f64::INFINITY;
    }
    if hi.is_finite() {
        for _ in 0..100 {
            let mid = (lo * hi).sqrt();
            let (was_lo, was_hi) = (lo, hi);
            if count.exceeds(mid, n_cells) {
                lo = mid;
            } else {
                hi = mid;
            }
            // Once the mean is an end, the bracket no longer moves (sqrt(x x) = x in binary
            // floating point): the remaining iterations would change nothing.
            if mid == was_lo || mid == was_hi {
                break;
            }
        }
    }
    let h_max = hi;
    let (total, capped) = (count.ordered(h_max), ds / h_max);
    // Cumulative cell count and inversion at integer levels (scaled to end exactly at n).
    let mut s_nodes = Vec::with_capacity(n + 1);
    s_nodes.push(0.0);
    let mut acc = 0.0;
    let mut next = 1;
    for m in 0..k {
        let step = count.term(m, h_max, capped) * n as f64 / total;
        while next < n && acc + step >= next as f64 {
            let frac = (next as f64 - acc) / step;
            s_nodes.push((m as f64 + frac) * ds);
            next += 1;
        }
        acc += step;
    }
    while s_nodes.len() < n {
        s_nodes.push(length);
    }
    s_nodes.push(length);
    Ok(s_nodes)
}

/// Node arc lengths of `n` cells on a line of `length`: cells growing geometrically by
/// `ratio` from `h0` at the start and from `h1` at the end, capped by a common largest cell
/// found by bisection so that the cells fill the line (an analytic [`graded_distribution`] for
/// two end targets, cheap enough for every line of a mesh). Where even uncapped cells fall
/// short, the growth rises above `ratio`; where the end cells alone overfill the line, they
/// shrink by a common factor.
pub fn two_sided(length: f64, n: usize, h0: f64, h1: f64, ratio: f64) -> Vec<f64> {
    let cells = |a: f64, b: f64, g: f64, cap: f64| -> Vec<f64> {
        (0..n).map(|k| (a * g.powi(k as i32)).min(b * g.powi((n - 1 - k) as i32)).min(cap)).collect()
    };
    let total = |c: &[f64]| c.iter().sum::<f64>();
    let (mut a, mut b, mut g) = (h0, h1, ratio);
    if total(&cells(a, b, g, f64::INFINITY)) < length {
        // Even uncapped the growth falls short: grow faster.
        let (mut lo, mut hi) = (ratio, ratio);
        while total(&cells(a, b, hi, f64::INFINITY)) < length {
            hi = 1.0 + 2.0 * (hi - 1.0).max(0.05);
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if total(&cells(a, b, mid, f64::INFINITY)) < length {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        g = hi;
    }
    let smallest = a.min(b);
    if total(&cells(a, b, g, smallest)) > length {
        // The end cells alone overfill the line: shrink them together.
        let f = length / total(&cells(a, b, g, smallest));
        a *= f;
        b *= f;
    }
    let (mut lo, mut hi) = (a.min(b), length);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if total(&cells(a, b, g, mid)) > length {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let c = cells(a, b, g, 0.5 * (lo + hi));
    let scale = length / total(&c);
    let mut s = Vec::with_capacity(n + 1);
    let mut acc = 0.0;
    s.push(0.0);
    for v in &c {
        acc += v * scale;
        s.push(acc);
    }
    s[n] = length;
    s
}

/// Node fractions (0 to 1) of `n` cells with first cell `d0` and last cell `d1` (as fractions
/// of the line), by Vinokur's two-sided stretching function (J. Comput. Phys. 50, 1983,
/// "On one-dimensional stretching functions for finite-difference calculations"): a tanh (or,
/// for cells larger than uniform at both ends, a tan) profile whose end slopes give the two
/// cells. It is smooth in its parameters, so lines with neighbouring end cells get
/// neighbouring distributions.
pub fn vinokur(n: usize, d0: f64, d1: f64) -> Vec<f64> {
    let s0 = 1.0 / (n as f64 * d0);
    let s1 = 1.0 / (n as f64 * d1);
    let a = (s0 / s1).sqrt();
    let b = (s0 * s1).sqrt();
    let u: Box<dyn Fn(f64) -> f64> = if b > 1.001 {
        // sinh(dy) / dy = b
        let dy = solve_increasing(|y| y.sinh() / y, b, 1e-6, 50.0);
        Box::new(move |xi: f64| 0.5 + (dy * (xi - 0.5)).tanh() / (2.0 * (0.5 * dy).tanh()))
    } else if b < 0.999 {
        // sin(dy) / dy = b (decreasing on (0, pi))
        let dy = solve_increasing(|y| -(y.sin() / y), -b, 1e-6, std::f64::consts::PI - 1e-9);
        Box::new(move |xi: f64| 0.5 + (dy * (xi - 0.5)).tan() / (2.0 * (0.5 * dy).tan()))
    } else {
        Box::new(|xi: f64| xi)
    };
    let mut f: Vec<f64> = (0..=n)
        .map(|k| {
            let uk = u(k as f64 / n as f64);
            uk / (a + (1.0 - a) * uk)
        })
        .collect();
    f[0] = 0.0;
    f[n] = 1.0;
    f
}

/// The root of an increasing function `g(y) = target` on [lo, hi] by bisection.
fn solve_increasing(g: impl Fn(f64) -> f64, target: f64, mut lo: f64, mut hi: f64) -> f64 {
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if g(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Partial sums of [`CellCount::exceeds`].
const LANES: usize = 8;

/// The fractional cell count of a sampled size function `h` (spacing `ds`) when no cell is larger
/// than `h_max`: the sum over the samples of ds / min(h, h_max), in sample order (the count the
/// nodes are scaled by). The bisection for `h_max` only asks whether it exceeds n, about 60 times
/// per line and for every line of a mesh (most of a mesh's generation time before): `exceeds`
/// answers from interleaved partial sums of the same terms (ds / h computed once), and falls
/// back to the ordered sum only when the two could disagree, so every answer is the ordered sum's.
struct CellCount {
    h: Vec<f64>,
    /// ds / h per sample.
    inverse: Vec<f64>,
    ds: f64,
}

impl CellCount {
    fn new(h: Vec<f64>, ds: f64) -> Self {
        let inverse = h.iter().map(|&v| ds / v).collect();
        CellCount { h, inverse, ds }
    }

    /// ds / min(h\[m\], h_max), with `capped` = ds / h_max.
    fn term(&self, m: usize, h_max: f64, capped: f64) -> f64 {
        capped_term(self.h[m], self.inverse[m], h_max, capped)
    }

    /// The count, summed in sample order.
    fn ordered(&self, h_max: f64) -> f64 {
        let capped = self.ds / h_max;
        (0..self.h.len()).map(|m| self.term(m, h_max, capped)).sum()
    }

    /// Whether the ordered count exceeds `n`. The interleaved sum (`LANES` partial sums) and the ordered one each lie
    /// within (k - 1) eps/2 of the exact sum of the k positive terms (Higham, Accuracy and
    /// Stability of Numerical Algorithms, 2nd ed., eq. 4.4), so an interleaved sum further than
    /// 2 (k + 4) eps times itself from n is on the same side as the ordered one.
    fn exceeds(&self, h_max: f64, n: f64) -> bool {
        let capped = self.ds / h_max;
        let mut partial = [0.0f64; LANES];
        let (h, inverse) = (self.h.chunks_exact(LANES), self.inverse.chunks_exact(LANES));
        let (h_rest, inverse_rest) = (h.remainder(), inverse.remainder());
        for (h_lanes, inverse_lanes) in h.zip(inverse) {
            for j in 0..LANES {
                partial[j] += capped_term(h_lanes[j], inverse_lanes[j], h_max, capped);
            }
        }
        for (j, (&v, &inv)) in h_rest.iter().zip(inverse_rest).enumerate() {
            partial[j] += capped_term(v, inv, h_max, capped);
        }
        let fast: f64 = partial.iter().sum();
        let margin = 2.0 * (self.h.len() as f64 + 4.0) * f64::EPSILON * fast;
        if fast > n + margin {
            true
        } else if fast < n - margin {
            false
        } else {
            self.ordered(h_max) > n
        }
    }
}

/// ds / min(h, h_max) from `inverse` = ds / h and `capped` = ds / h_max (the same value).
fn capped_term(h: f64, inverse: f64, h_max: f64, capped: f64) -> f64 {
    if h <= h_max { inverse } else { capped }
}

/// The size function at the `base.len()` sample mid-points (spacing `ds`): the caps `base`
/// and the `targets`, all times `factor`, graded with log-growth `g`.
fn graded_size(base: &[f64], ds: f64, targets: &[SpacingAt], g: f64, factor: f64) -> Vec<f64> {
    let k = base.len();
    let mut h: Vec<f64> = base.iter().map(|b| b * factor).collect();
    for t in targets {
        for (m, v) in h.iter_mut().enumerate() {
            let s = (m as f64 + 0.5) * ds;
            *v = v.min(t.h * factor + g * (s - t.s).abs());
        }
    }
    // Grade the caps: h(s) <= h(s') + g |s - s'| (two sweeps, a 1-D distance transform).
    for m in 1..k {
        h[m] = h[m].min(h[m - 1] + g * ds);
    }
    for m in (0..k - 1).rev() {
        h[m] = h[m].min(h[m + 1] + g * ds);
    }
    h
}

/// Number of cells (fractional) that the graded requirements need on a line when no cell is
/// larger than `h_max`.
pub fn cells_needed(length: f64, targets: &[SpacingAt], cap: Option<&dyn Fn(f64) -> f64>, max_ratio: f64, h_max: f64) -> f64 {
    SampledCaps::new(length, cap).cells_needed(targets, max_ratio, h_max)
}

/// Sample mid-points of [`cells_needed`]'s size function.
const CELLS_NEEDED_SAMPLES: usize = 4000;

/// A line's cell-size caps sampled once, for the many cell counts of a bisection over the
/// other requirements (the caps are the costly part: a curvature look-up per sample).
pub struct SampledCaps {
    length: f64,
    base: Vec<f64>,
    /// The graded size function of the last requirements asked for (their bits and the ratio's):
    /// a bisection over the largest cell asks the same ones again and again.
    last: std::cell::RefCell<Option<(Vec<u64>, CellCount)>>,
}

impl SampledCaps {
    pub fn new(length: f64, cap: Option<&dyn Fn(f64) -> f64>) -> Self {
        let ds = length / CELLS_NEEDED_SAMPLES as f64;
        let base = (0..CELLS_NEEDED_SAMPLES).map(|m| cap.map_or(f64::INFINITY, |c| c((m as f64 + 0.5) * ds).max(1e-300))).collect();
        SampledCaps { length, base, last: std::cell::RefCell::new(None) }
    }

    /// [`cells_needed`] with these caps.
    pub fn cells_needed(&self, targets: &[SpacingAt], max_ratio: f64, h_max: f64) -> f64 {
        let key: Vec<u64> = targets.iter().flat_map(|t| [t.s.to_bits(), t.h.to_bits()]).chain([max_ratio.to_bits()]).collect();
        let mut last = self.last.borrow_mut();
        match &*last {
            Some((k, count)) if *k == key => count.ordered(h_max),
            _ => {
                let ds = self.length / CELLS_NEEDED_SAMPLES as f64;
                let count = CellCount::new(graded_size(&self.base, ds, targets, max_ratio.ln(), 1.0), ds);
                let cells = count.ordered(h_max);
                *last = Some((key, count));
                cells
            }
        }
    }
}

/// Nodes either side of an offending pair that [`limit_spacing_ratio`] moves: two, so that a
/// jump next to a pinned end spreads into the cells beyond.
const MARK_REACH: usize = 2;

/// Smooths the node positions `s` (increasing) wherever two neighbouring cells differ in size
/// by more than `max_ratio`: each node of an offending pair, and its two neighbours, moves
/// half-way to where the two cells round it would continue the cells either side of them
/// geometrically (a Jacobi sweep of a smoother whose fixed points are geometric sequences),
/// until no pair offends or `max_sweeps` sweeps are done. Only the nodes round a size jump
/// move, so a graded distribution elsewhere is kept. The first `pinned.0` and the last
/// `pinned.1` nodes (at least the two ends) stay. Returns the largest ratio left.
pub fn limit_spacing_ratio(s: &mut [f64], max_ratio: f64, max_sweeps: usize, pinned: (usize, usize)) -> f64 {
    let n = s.len().saturating_sub(1);
    if n < 2 {
        return 1.0;
    }
    let ratio = |a: f64, b: f64| if a > 0.0 && b > 0.0 { a.max(b) / a.min(b) } else { f64::INFINITY };
    let mut moving = vec![false; n + 1];
    let mut worst = f64::INFINITY;
    for _ in 0..=max_sweeps {
        moving.fill(false);
        worst = 1.0_f64;
        for k in 1..n {
            let r = ratio(s[k] - s[k - 1], s[k + 1] - s[k]);
            worst = worst.max(r);
            if r > max_ratio {
                for m in k.saturating_sub(MARK_REACH)..=(k + MARK_REACH).min(n) {
                    moving[m] = true;
                }
            }
        }
        if worst <= max_ratio {
            break;
        }
        let old = s.to_vec();
        for k in pinned.0.max(1)..(n + 1).saturating_sub(pinned.1.max(1)) {
            if moving[k] {
                // Split the two cells round node k as a geometric sequence through the cells
                // either side of them would (d_{k-1} / d_k = (a / b)^(1/3)), half-way.
                let a = if k >= 2 { old[k - 1] - old[k - 2] } else { old[k] - old[k - 1] };
                let b = if k + 2 <= n { old[k + 2] - old[k + 1] } else { old[k + 1] - old[k] };
                // A cell of zero length has no geometric sequence through it: split evenly.
                let q = if a > 0.0 && b > 0.0 { (a / b).cbrt() } else { 1.0 };
                let split = old[k - 1] + (old[k + 1] - old[k - 1]) * q / (1.0 + q);
                s[k] = 0.5 * (old[k] + split);
            }
        }
    }
    worst
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vinokur_gives_the_end_cells_and_grows_smoothly() {
        for (d0, d1) in [(0.005, 0.05), (0.05, 0.005), (0.02, 0.02), (0.04, 0.03), (0.01, 0.08)] {
            let f = vinokur(40, d0, d1);
            let c: Vec<f64> = f.windows(2).map(|w| w[1] - w[0]).collect();
            assert!((c[0] / d0 - 1.0).abs() < 0.1, "first cell {} against {d0}", c[0]);
            assert!((c[39] / d1 - 1.0).abs() < 0.1, "last cell {} against {d1}", c[39]);
            assert!(c.iter().all(|&v| v > 0.0));
            for w in c.windows(2) {
                assert!(w[1] / w[0] < 1.25 && w[0] / w[1] < 1.25, "ratio {}", w[1] / w[0]);
            }
        }
    }

    #[test]
    fn geometric_growth_from_a_wall() {
        let s = graded_distribution(1.0, 48, &[SpacingAt { s: 0.0, h: 1e-3 }], None, 1.15).unwrap();
        assert_eq!(s.len(), 49);
        assert!((s[48] - 1.0).abs() < 1e-14);
        let d: Vec<f64> = s.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(d[0] > 0.9e-3 && d[0] < 1.2e-3, "first cell {}", d[0]);
        for w in d.windows(2) {
            assert!(w[1] / w[0] < 1.16 && w[0] / w[1] < 1.16, "ratio {}", w[1] / w[0]);
        }
    }

    #[test]
    fn too_few_cells_relax_the_first_cell_not_the_ratio() {
        // 32 cells growing by 1.15 from 1 mm cover only 0.58 m: the first cell grows instead.
        let s = graded_distribution(1.0, 32, &[SpacingAt { s: 0.0, h: 1e-3 }], None, 1.15).unwrap();
        let d: Vec<f64> = s.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(d[0] > 1.5e-3, "first cell {}", d[0]);
        for w in d.windows(2) {
            assert!(w[1] / w[0] < 1.16, "ratio {}", w[1] / w[0]);
        }
    }

    #[test]
    fn no_targets_gives_uniform_cells() {
        let s = graded_distribution(2.0, 8, &[], None, 1.2).unwrap();
        for (k, v) in s.iter().enumerate() {
            assert!((v - 0.25 * k as f64).abs() < 1e-3);
        }
    }

    #[test]
    fn a_size_jump_is_spread_and_the_grading_elsewhere_kept() {
        // 10 cells of 1, 10 of 3 (a jump of 3), then geometric growth by 1.1.
        let mut d = vec![1.0; 10];
        d.extend(vec![3.0; 10]);
        d.extend((0..10).map(|k| 3.0 * 1.1f64.powi(k)));
        let mut s = vec![0.0];
        for v in &d {
            s.push(s.last().unwrap() + v);
        }
        let (first, last) = (s[0], s[s.len() - 1]);
        let worst = limit_spacing_ratio(&mut s, 1.2, 5000, (1, 1));
        assert!(worst <= 1.2, "ratio left {worst}");
        assert_eq!((s[0], s[s.len() - 1]), (first, last));
        // The far end of the geometric part is untouched.
        assert!((s[s.len() - 2] - (last - 3.0 * 1.1f64.powi(9))).abs() < 1e-12);
    }

    #[test]
    fn polyline_closest_point() {
        let p = Polyline::new(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]);
        assert!((p.length() - 2.0).abs() < 1e-15);
        assert!((p.closest_param([0.5, -1.0]) - 0.5).abs() < 1e-15);
        assert!((p.closest_param([2.0, 0.5]) - 1.5).abs() < 1e-15);
        assert_eq!(p.at(1.5), [1.0, 0.5]);
    }

    /// `exceeds` answers as the ordered sum does, also for an n within the sums' rounding of it
    /// (there it must fall back to the ordered sum) and for n = the ordered sum itself.
    #[test]
    fn the_fast_count_decides_as_the_ordered_sum() {
        let ds = 1.0 / 4001.0;
        let h: Vec<f64> = (0..4001).map(|m| 1e-3 * (1.0 + (m as f64 * 0.37).sin().abs() * 50.0)).collect();
        let count = CellCount::new(h.clone(), ds);
        for h_max in [1e-4, 5e-3, 2e-2, 0.1, f64::INFINITY] {
            let ordered: f64 = h.iter().map(|&v| ds / v.min(h_max)).sum();
            assert_eq!(count.ordered(h_max).to_bits(), ordered.to_bits(), "the ordered sum is the one the nodes use");
            for n in [ordered * (1.0 - 1e-3), ordered * (1.0 - 1e-14), ordered, ordered * (1.0 + 1e-14), ordered * (1.0 + 1e-3)] {
                assert_eq!(count.exceeds(h_max, n), ordered > n, "h_max {h_max}, n {n} against {ordered}");
            }
        }
    }
}
