//! A structured block of nodes while it is being built, and transfinite interpolation.

use super::distribution::{cross, dot, sub, P2};

/// A measure of the quadrilateral `q`'s equiangle skewness s (corners in order) that needs no
/// angles: the largest squared cosine of its corners, sin^2(s 90 deg), or 4 where a corner is
/// folded. Cells are compared through it where many are (the grading's and the fill's checks).
pub fn skewness_measure(q: [P2; 4]) -> f64 {
    (0..4)
        .map(|k| {
            let (c, a, b) = (q[k], q[(k + 1) % 4], q[(k + 3) % 4]);
            let (u, v) = (sub(a, c), sub(b, c));
            let (sin, cos) = (cross(u, v), dot(u, v));
            if sin > 0.0 {
                cos * cos / (dot(u, u) * dot(v, v))
            } else {
                4.0
            }
        })
        .fold(0.0, f64::max)
}

/// The [`skewness_measure`] of a cell of equiangle skewness `s` (infinite from s = 1 on,
/// where no measure bounds it).
pub fn skewness_measure_of(s: f64) -> f64 {
    if s < 1.0 {
        (s * std::f64::consts::FRAC_PI_2).sin().powi(2)
    } else {
        f64::INFINITY
    }
}

/// `(ni+1) x (nj+1)` nodes, i fastest.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    pub ni: usize,
    pub nj: usize,
    pub p: Vec<P2>,
}

impl Grid {
    pub fn new(ni: usize, nj: usize) -> Self {
        Grid { ni, nj, p: vec![[0.0; 2]; (ni + 1) * (nj + 1)] }
    }
    pub fn index(&self, i: usize, j: usize) -> usize {
        i + (self.ni + 1) * j
    }
    pub fn at(&self, i: usize, j: usize) -> P2 {
        self.p[self.index(i, j)]
    }
    pub fn set(&mut self, i: usize, j: usize, v: P2) {
        let k = self.index(i, j);
        self.p[k] = v;
    }
    /// Signed area of cell (i, j) (positive when i, j are right-handed).
    pub fn cell_area(&self, i: usize, j: usize) -> f64 {
        let (a, b, c, d) = (self.at(i, j), self.at(i + 1, j), self.at(i + 1, j + 1), self.at(i, j + 1));
        0.5 * cross(sub(c, a), sub(d, b))
    }

    /// Transfinite interpolation (Gordon and Hall 1973; Thompson, Warsi & Mastin 1985, ch. 8)
    /// of the four boundaries: `bottom` (j = 0) and `top` (j = nj) from i = 0 to ni, `left`
    /// (i = 0) and `right` (i = ni) from j = 0 to nj; the corners must agree. The blending
    /// parameters are the boundaries' own arc-length fractions, interpolated linearly across
    /// the block, so that the interior nodes keep the boundaries' spacing.
    pub fn transfinite(bottom: &[P2], top: &[P2], left: &[P2], right: &[P2]) -> Grid {
        let (ni, nj) = (bottom.len() - 1, left.len() - 1);
        let fractions = |c: &[P2]| {
            let mut s = vec![0.0; c.len()];
            for k in 1..c.len() {
                s[k] = s[k - 1] + super::distribution::dist(c[k - 1], c[k]);
            }
            let total = s[c.len() - 1].max(f64::MIN_POSITIVE);
            s.iter().map(|v| v / total).collect::<Vec<f64>>()
        };
        let (fb, ft, fl, fr) = (fractions(bottom), fractions(top), fractions(left), fractions(right));
        let mut g = Grid::new(ni, nj);
        for j in 0..=nj {
            for i in 0..=ni {
                // (xi, eta) where the straight lines between the boundaries' nodes cross.
                let (xb, xt, el, er) = (fb[i], ft[i], fl[j], fr[j]);
                let xi = (xb + el * (xt - xb)) / (1.0 - (xt - xb) * (er - el));
                let eta = el + xi * (er - el);
                let mut p = [0.0; 2];
                for c in 0..2 {
                    p[c] = (1.0 - xi) * left[j][c] + xi * right[j][c] + (1.0 - eta) * bottom[i][c] + eta * top[i][c]
                        - (1.0 - xi) * (1.0 - eta) * bottom[0][c]
                        - xi * (1.0 - eta) * bottom[ni][c]
                        - (1.0 - xi) * eta * top[0][c]
                        - xi * eta * top[ni][c];
                }
                g.set(i, j, p);
            }
        }
        for i in 0..=ni {
            g.set(i, 0, bottom[i]);
            g.set(i, nj, top[i]);
        }
        for j in 0..=nj {
            g.set(0, j, left[j]);
            g.set(ni, j, right[j]);
        }
        g
    }
}
