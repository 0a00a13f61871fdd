//! Central implicit residual smoothing (thesis eq. 4.15): along every grid line solve
//! -eps_k R*_{k-1} + (1 + 2 eps_k) R*_k - eps_k R*_{k+1} = R_k with the Thomas algorithm, first
//! along i then along j, with constant coefficients or with per-cell ones (thesis eq. 4.16,
//! `flow::spectral::smoothing_coefficients`). The matrix is the one printed after eq. 4.15 (no
//! special end rows), so residuals outside the block count as zero.

use rayon::prelude::*;

use super::rows_per_task;

use crate::backend::BlockLayout;

/// Smoothing coefficients of one block.
#[derive(Clone, Copy)]
pub(super) enum Coefficients<'a> {
    /// The same `[eps_i, eps_j]` everywhere.
    Constant([f64; 2]),
    /// Per interior cell (index i + ni j), along i and along j.
    PerCell([&'a [f64]; 2]),
}

impl Coefficients<'_> {
    /// Whether direction `d` is smoothed at all.
    fn active(&self, d: usize) -> bool {
        match self {
            Coefficients::Constant(e) => e[d] > 0.0,
            Coefficients::PerCell(e) => e[d].iter().any(|&x| x > 0.0),
        }
    }

    /// Coefficient of direction `d` at interior cell `c`.
    #[inline]
    fn at(&self, d: usize, c: usize) -> f64 {
        match self {
            Coefficients::Constant(e) => e[d],
            Coefficients::PerCell(e) => e[d][c],
        }
    }
}

pub(super) fn smooth_block(l: BlockLayout, nvar: usize, eps: Coefficients, r: &mut [f64]) {
    let np = l.n_padded();
    let stride = l.stride();
    let (ni, nj) = (l.ni, l.nj);
    // Per-cell coefficients are scanned once per call, not once per variable.
    let active = [eps.active(0), eps.active(1)];
    for rv in r.chunks_mut(np).take(nvar) {
        if active[0] {
            // i-lines are contiguous rows.
            rv.par_chunks_mut(stride).enumerate().with_min_len(rows_per_task(stride)).skip(crate::backend::NGHOST).take(nj).for_each(|(row_index, row)| {
                let j = row_index - crate::backend::NGHOST;
                let line = &mut row[crate::backend::NGHOST..crate::backend::NGHOST + ni];
                let mut scratch = vec![0.0; ni];
                thomas(|i| eps.at(0, i + ni * j), line, &mut scratch);
            });
        }
        if active[1] {
            // j-lines are strided: copy each column out, solve, copy back.
            let columns: Vec<Vec<f64>> = (0..ni)
                .into_par_iter()
                .with_min_len(rows_per_task(nj))
                .map(|i| {
                    let mut line: Vec<f64> = (0..nj).map(|j| rv[l.interior(i, j)]).collect();
                    let mut scratch = vec![0.0; nj];
                    thomas(|j| eps.at(1, i + ni * j), &mut line, &mut scratch);
                    line
                })
                .collect();
            for (i, line) in columns.iter().enumerate() {
                for (j, x) in line.iter().enumerate() {
                    rv[l.interior(i, j)] = *x;
                }
            }
        }
    }
}

/// Solves the tridiagonal system whose row k is (-eps_k, 1 + 2 eps_k, -eps_k) in place (Thomas
/// algorithm; diagonally dominant for eps_k >= 0, so no pivoting). `scratch` holds the
/// modified super-diagonal and has the length of `rhs`.
fn thomas(eps: impl Fn(usize) -> f64, rhs: &mut [f64], scratch: &mut [f64]) {
    let n = rhs.len();
    if n == 0 {
        return;
    }
    let e0 = eps(0);
    scratch[0] = -e0 / (1.0 + 2.0 * e0);
    rhs[0] /= 1.0 + 2.0 * e0;
    for k in 1..n {
        let e = eps(k);
        let m = 1.0 + 2.0 * e + e * scratch[k - 1];
        scratch[k] = -e / m;
        rhs[k] = (rhs[k] + e * rhs[k - 1]) / m;
    }
    for k in (0..n - 1).rev() {
        rhs[k] -= scratch[k] * rhs[k + 1];
    }
}

#[cfg(test)]
mod tests {
    use super::thomas;

    /// rhs = A x for the smoothing matrix with per-row coefficients `eps`, then Thomas must
    /// give x back.
    fn check(eps: &[f64]) {
        let x: Vec<f64> = (0..eps.len()).map(|k| (k as f64 * 0.37).sin() + 0.1 * k as f64).collect();
        let mut rhs: Vec<f64> = (0..x.len())
            .map(|k| {
                let left = if k > 0 { x[k - 1] } else { 0.0 };
                let right = if k + 1 < x.len() { x[k + 1] } else { 0.0 };
                (1.0 + 2.0 * eps[k]) * x[k] - eps[k] * (left + right)
            })
            .collect();
        let mut scratch = vec![0.0; x.len()];
        thomas(|k| eps[k], &mut rhs, &mut scratch);
        for (got, want) in rhs.iter().zip(&x) {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
    }

    #[test]
    fn thomas_solves_the_constant_smoothing_system() {
        check(&[0.7; 9]);
    }

    #[test]
    fn thomas_solves_the_variable_smoothing_system() {
        check(&[0.0, 2.5, 0.1, 7.0, 0.0, 0.0, 1.3, 40.0, 0.6]);
    }
}
