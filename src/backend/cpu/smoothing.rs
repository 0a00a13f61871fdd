//! Central implicit residual smoothing (thesis eq. 4.15): along every grid line solve
//! -eps R*_{i-1} + (1 + 2 eps) R*_i - eps R*_{i+1} = R_i with the Thomas algorithm, first along
//! i then along j. The matrix is the one printed after eq. 4.15 (no special end rows), so
//! residuals outside the block count as zero.

use rayon::prelude::*;

use super::rows_per_task;

use crate::backend::BlockLayout;

pub(super) fn smooth_block(l: BlockLayout, nvar: usize, epsilon: [f64; 2], r: &mut [f64]) {
    let np = l.n_padded();
    let stride = l.stride();
    for rv in r.chunks_mut(np).take(nvar) {
        if epsilon[0] > 0.0 {
            // i-lines are contiguous rows.
            rv.par_chunks_mut(stride).enumerate().with_min_len(rows_per_task(stride)).skip(crate::backend::NGHOST).take(l.nj).for_each(|(_, row)| {
                let line = &mut row[crate::backend::NGHOST..crate::backend::NGHOST + l.ni];
                let mut scratch = vec![0.0; l.ni];
                thomas_constant(epsilon[0], line, &mut scratch);
            });
        }
        if epsilon[1] > 0.0 {
            // j-lines are strided: copy each column out, solve, copy back.
            let columns: Vec<Vec<f64>> = (0..l.ni)
                .into_par_iter().with_min_len(rows_per_task(l.nj))
                .map(|i| {
                    let mut line: Vec<f64> = (0..l.nj).map(|j| rv[l.interior(i, j)]).collect();
                    let mut scratch = vec![0.0; l.nj];
                    thomas_constant(epsilon[1], &mut line, &mut scratch);
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

/// Solves the constant-coefficient tridiagonal system (-eps, 1 + 2 eps, -eps) x = rhs in place
/// (Thomas algorithm, diagonally dominant so no pivoting). `scratch` holds the modified
/// super-diagonal and has the length of `rhs`.
fn thomas_constant(eps: f64, rhs: &mut [f64], scratch: &mut [f64]) {
    let n = rhs.len();
    if n == 0 {
        return;
    }
    let (a, b) = (-eps, 1.0 + 2.0 * eps);
    scratch[0] = a / b;
    rhs[0] /= b;
    for k in 1..n {
        let m = b - a * scratch[k - 1];
        scratch[k] = a / m;
        rhs[k] = (rhs[k] - a * rhs[k - 1]) / m;
    }
    for k in (0..n - 1).rev() {
        rhs[k] -= scratch[k] * rhs[k + 1];
    }
}

#[cfg(test)]
mod tests {
    use super::thomas_constant;

    #[test]
    fn thomas_solves_the_smoothing_system() {
        let eps = 0.7;
        let x: Vec<f64> = (0..9).map(|k| (k as f64 * 0.37).sin() + 0.1 * k as f64).collect();
        // rhs = A x with A = tridiag(-eps, 1 + 2 eps, -eps).
        let mut rhs: Vec<f64> = (0..x.len())
            .map(|k| {
                let left = if k > 0 { x[k - 1] } else { 0.0 };
                let right = if k + 1 < x.len() { x[k + 1] } else { 0.0 };
                (1.0 + 2.0 * eps) * x[k] - eps * (left + right)
            })
            .collect();
        let mut scratch = vec![0.0; x.len()];
        thomas_constant(eps, &mut rhs, &mut scratch);
        for (got, want) in rhs.iter().zip(&x) {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
    }
}
