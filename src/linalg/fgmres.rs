//! Restarted flexible GMRES (Saad 1993; Saad, Iterative Methods, alg. 9.6): right
//! preconditioning that may change from one iteration to the next, Arnoldi with modified
//! Gram-Schmidt, Givens rotations for the least-squares problem.

use super::{axpy, dot, norm2, Preconditioner};

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FgmresSettings {
    /// Krylov subspace size before a restart (m).
    pub restart: usize,
    /// Stop when ||b - A x|| <= rel_tol * ||b - A x0||.
    pub rel_tol: f64,
    /// Also stop below this absolute residual.
    pub abs_tol: f64,
    /// Total inner iterations allowed (over all restarts).
    pub max_iterations: usize,
}

impl Default for FgmresSettings {
    fn default() -> Self {
        FgmresSettings { restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 200 }
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct FgmresStats {
    pub iterations: usize,
    pub restarts: usize,
    pub initial_residual: f64,
    pub final_residual: f64,
    pub converged: bool,
}

/// Solve A x = b with x holding the initial guess on entry. `apply_a(v, out)` computes out = A v.
pub fn fgmres(
    apply_a: &dyn Fn(&[f64], &mut [f64]),
    precond: &dyn Preconditioner,
    b: &[f64],
    x: &mut [f64],
    settings: &FgmresSettings,
) -> FgmresStats {
    let n = b.len();
    let m = settings.restart.max(1);
    let mut r = vec![0.0; n];
    let residual = |x: &[f64], r: &mut [f64]| {
        apply_a(x, r);
        r.iter_mut().zip(b).for_each(|(r, b)| *r = b - *r);
    };
    residual(x, &mut r);
    let beta0 = norm2(&r);
    let mut stats = FgmresStats { initial_residual: beta0, final_residual: beta0, ..Default::default() };
    let target = (settings.rel_tol * beta0).max(settings.abs_tol);
    if beta0 <= target {
        stats.converged = true;
        return stats;
    }
    let mut v: Vec<Vec<f64>> = vec![vec![0.0; n]; m + 1];
    let mut zv: Vec<Vec<f64>> = vec![vec![0.0; n]; m];
    let mut h = vec![vec![0.0; m]; m + 1];
    let (mut cs, mut sn, mut g) = (vec![0.0; m], vec![0.0; m], vec![0.0; m + 1]);
    loop {
        let beta = norm2(&r);
        v[0].iter_mut().zip(&r).for_each(|(v, r)| *v = r / beta);
        g.iter_mut().for_each(|x| *x = 0.0);
        g[0] = beta;
        let mut k_used = 0;
        for k in 0..m {
            precond.apply(&v[k], &mut zv[k]);
            let (head, tail) = v.split_at_mut(k + 1);
            let w = &mut tail[0];
            apply_a(&zv[k], w);
            for (i, vi) in head.iter().enumerate() {
                h[i][k] = dot(w, vi);
                axpy(-h[i][k], vi, w);
            }
            h[k + 1][k] = norm2(w);
            if h[k + 1][k] > 0.0 {
                let s = 1.0 / h[k + 1][k];
                w.iter_mut().for_each(|x| *x *= s);
            }
            for i in 0..k {
                let t = cs[i] * h[i][k] + sn[i] * h[i + 1][k];
                h[i + 1][k] = -sn[i] * h[i][k] + cs[i] * h[i + 1][k];
                h[i][k] = t;
            }
            let d = h[k][k].hypot(h[k + 1][k]);
            (cs[k], sn[k]) = if d > 0.0 { (h[k][k] / d, h[k + 1][k] / d) } else { (1.0, 0.0) };
            h[k][k] = d;
            h[k + 1][k] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] *= cs[k];
            k_used = k + 1;
            stats.iterations += 1;
            stats.final_residual = g[k + 1].abs();
            if stats.final_residual <= target || stats.iterations >= settings.max_iterations || d == 0.0 {
                break;
            }
        }
        // x += Z y with H y = g (upper triangular back substitution).
        let mut y = vec![0.0; k_used];
        for i in (0..k_used).rev() {
            let s: f64 = (i + 1..k_used).map(|j| h[i][j] * y[j]).sum();
            y[i] = (g[i] - s) / h[i][i];
        }
        for (yi, zi) in y.iter().zip(&zv) {
            axpy(*yi, zi, x);
        }
        residual(x, &mut r);
        stats.final_residual = norm2(&r);
        if stats.final_residual <= target {
            stats.converged = true;
            return stats;
        }
        if stats.iterations >= settings.max_iterations {
            return stats;
        }
        stats.restarts += 1;
    }
}
