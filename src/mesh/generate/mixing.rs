//! Anderson mixing of the smoother's sweeps (Anderson 1965; Walker & Ni, SIAM J. Numer. Anal.
//! 49, 2011, "type II").
//!
//! One red-black sweep of Winslow's equations is a fixed-point map `x -> G(x)` of the node
//! positions. Its slowest mode is a pitchwise drift of the outlet block's rear as a whole (the
//! nodes on the outlet plane slide along it): after 600 plain sweeps of the LS89 coarse passage
//! those nodes still moved 7 % of a cell per sweep. Mixing fits the last `depth` differences of
//! the updates `F = G(x) - x` and extrapolates along them, `x+ = G(x) - dG gamma` with
//! `gamma = argmin |F - dF gamma|`, which removes such modes as GMRES would on a linear map; the
//! same passage then settles to a thousandth of a cell per sweep in 464 sweeps.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use std::collections::VecDeque;

/// The mixing's memory: the last update and map value, the differences of the last `depth`
/// pairs, and the inner products of the update differences (each sweep adds one row).
pub struct Mixing {
    depth: usize,
    f: Vec<f64>,
    f_last: Vec<f64>,
    g_last: Vec<f64>,
    /// (dF, dG) pairs, oldest first.
    differences: VecDeque<(Vec<f64>, Vec<f64>)>,
    /// dF_i . dF_j of the kept differences.
    gram: VecDeque<VecDeque<f64>>,
}

/// Tikhonov term of the least-squares fit, relative to the largest diagonal entry.
const REGULARIZATION: f64 = 1e-10;
/// Entries a parallel task takes (a coarse passage has ~14,000 coordinates); the inner
/// products are summed chunk by chunk, so this, not the thread count, fixes their rounding.
const CHUNK: usize = 2048;

/// The inner products of `a` with each of `bs`, chunk by chunk (each chunk of `a` read once
/// from memory), the chunks' sums added in order: the same to the last bit on any number of
/// threads, so that a blade meshes alike everywhere.
fn dots(a: &[f64], bs: &[&[f64]]) -> Vec<f64> {
    let partial: Vec<Vec<f64>> = a
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(c, chunk)| {
            let start = c * CHUNK;
            bs.iter().map(|b| chunk.iter().zip(&b[start..start + chunk.len()]).map(|(x, y)| x * y).sum::<f64>()).collect()
        })
        .collect();
    (0..bs.len()).map(|i| partial.iter().map(|p| p[i]).sum()).collect()
}

impl Mixing {
    pub fn new(depth: usize) -> Self {
        Mixing { depth, f: Vec::new(), f_last: Vec::new(), g_last: Vec::new(), differences: VecDeque::with_capacity(depth), gram: VecDeque::with_capacity(depth) }
    }

    /// Mixes the map value `g = G(x)` of the state `x` in place.
    pub fn mix(&mut self, x: &[f64], g: &mut [f64]) {
        let had_last = self.f.len() == g.len();
        std::mem::swap(&mut self.f, &mut self.f_last);
        self.f.clear();
        self.f.par_extend(g.par_iter().with_min_len(CHUNK).zip(x).map(|(g, x)| g - x));
        if had_last {
            self.remember(g);
        }
        self.g_last.clear();
        self.g_last.extend_from_slice(g);
        let Some(gamma) = self.fit() else { return };
        for ((_, dg), &w) in self.differences.iter().zip(gamma.iter()) {
            g.par_chunks_mut(CHUNK).zip(dg.par_chunks(CHUNK)).for_each(|(g, dg)| {
                for (g, d) in g.iter_mut().zip(dg) {
                    *g -= w * d;
                }
            });
        }
    }

    /// Keeps the differences of this update and map value `g` from the last ones (the oldest
    /// pair dropped past `depth`), with their inner products.
    fn remember(&mut self, g: &[f64]) {
        let (mut df, mut dg) = if self.differences.len() == self.depth {
            self.gram.pop_front();
            for row in &mut self.gram {
                row.pop_front();
            }
            self.differences.pop_front().unwrap_or_default()
        } else {
            (Vec::new(), Vec::new())
        };
        df.clear();
        df.par_extend(self.f.par_iter().with_min_len(CHUNK).zip(&self.f_last).map(|(a, b)| a - b));
        dg.clear();
        dg.par_extend(g.par_iter().with_min_len(CHUNK).zip(&self.g_last).map(|(a, b)| a - b));
        let others: Vec<&[f64]> = self.differences.iter().map(|(d, _)| d.as_slice()).chain(std::iter::once(df.as_slice())).collect();
        let row: VecDeque<f64> = dots(&df, &others).into();
        for (old, &v) in self.gram.iter_mut().zip(&row) {
            old.push_back(v);
        }
        self.gram.push_back(row);
        self.differences.push_back((df, dg));
    }

    /// The least-squares coefficients gamma = argmin |F - dF gamma|, if the fit is usable.
    fn fit(&self) -> Option<DVector<f64>> {
        let m = self.differences.len();
        if m == 0 {
            return None;
        }
        let gram = DMatrix::from_fn(m, m, |i, j| self.gram[i][j]);
        let dfs: Vec<&[f64]> = self.differences.iter().map(|(d, _)| d.as_slice()).collect();
        let rhs = DVector::from_vec(dots(&self.f, &dfs));
        let largest = (0..m).map(|i| gram[(i, i)]).fold(0.0, f64::max);
        if !(largest > 0.0 && largest.is_finite()) {
            return None;
        }
        let gamma = (gram + DMatrix::identity(m, m) * (REGULARIZATION * largest)).lu().solve(&rhs)?;
        gamma.iter().all(|v| v.is_finite()).then_some(gamma)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a linear contraction with one slow mode (rate 0.999) mixing settles in a few dozen
    /// iterations what the plain iteration needs thousands for.
    #[test]
    fn mixing_removes_a_slow_mode_of_a_linear_map() {
        let rates = [0.999, 0.5, 0.3, 0.1];
        let target = [1.0, -2.0, 0.5, 3.0];
        let map = |x: &[f64]| -> Vec<f64> { x.iter().zip(rates.iter().zip(&target)).map(|(x, (r, t))| t + r * (x - t)).collect() };
        let error = |x: &[f64]| x.iter().zip(&target).map(|(x, t)| (x - t).abs()).fold(0.0, f64::max);
        let (mut plain, mut mixed) = (vec![0.0; 4], vec![0.0; 4]);
        let mut mixing = Mixing::new(5);
        for _ in 0..40 {
            plain = map(&plain);
            let mut g = map(&mixed);
            mixing.mix(&mixed, &mut g);
            mixed = g;
        }
        assert!(error(&mixed) < 1e-9, "mixed error {}", error(&mixed));
        assert!(error(&plain) > 0.9, "plain error {}", error(&plain));
    }
}
