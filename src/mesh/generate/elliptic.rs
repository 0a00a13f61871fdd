//! Elliptic smoothing of a block's interior nodes (boundary nodes fixed).
//!
//! Winslow's equations with Thomas-Middlecoff control functions (Thompson, Warsi & Mastin,
//! *Numerical Grid Generation*, 1985, ch. 6; Blazek 2005, section 11.2.2):
//!
//! `alpha (r_xixi + phi r_xi) - 2 beta r_xieta + gamma (r_etaeta + psi r_eta) = 0`,
//! `alpha = |r_eta|^2, beta = r_xi . r_eta, gamma = |r_xi|^2`.
//!
//! `phi` and `psi` are first computed from the algebraic grid, where they reproduce it exactly
//! (the line-wise construction carries the wanted spacings: first cells matched to the O-grid,
//! graded growth). `phi` (the i-stretching) is then averaged across the rows and `psi` (the
//! j-stretching) across the columns, as Thomas and Middlecoff interpolate them between
//! boundaries: the spacing along each line is kept, while kinks between neighbouring lines
//! (at the valence-5 points where three blocks meet, and where Hermite lines of different
//! lengths sit side by side) are smoothed out by the Laplacian part.

use super::hblocks::Grid;
use super::distribution::P2;

/// Bound on the control functions: a spacing change of at most ~50 % per cell.
const MAX_CONTROL: f64 = 0.5;

/// Passes of the (1/4, 1/2, 1/4) filter applied to the control functions.
const CONTROL_PASSES: usize = 8;

/// Smooths `g` in place with `sweeps` Gauss-Seidel sweeps.
pub fn winslow_smooth(g: &mut Grid, sweeps: usize) {
    let (ni, nj) = (g.ni, g.nj);
    if ni < 2 || nj < 2 {
        return;
    }
    let (mut phi, mut psi) = control_functions(g);
    for _ in 0..CONTROL_PASSES {
        // phi across rows (along j), psi across columns (along i).
        let old = phi.clone();
        for j in 1..nj {
            for i in 1..ni {
                let k = i + (ni + 1) * j;
                let lo = if j > 1 { old[k - (ni + 1)] } else { old[k] };
                let hi = if j < nj - 1 { old[k + (ni + 1)] } else { old[k] };
                phi[k] = 0.25 * lo + 0.5 * old[k] + 0.25 * hi;
            }
        }
        let old = psi.clone();
        for j in 1..nj {
            for i in 1..ni {
                let k = i + (ni + 1) * j;
                let lo = if i > 1 { old[k - 1] } else { old[k] };
                let hi = if i < ni - 1 { old[k + 1] } else { old[k] };
                psi[k] = 0.25 * lo + 0.5 * old[k] + 0.25 * hi;
            }
        }
    }
    for _ in 0..sweeps {
        for j in 1..nj {
            for i in 1..ni {
                let k = i + (ni + 1) * j;
                let (e, w, n, s) = (g.p[k + 1], g.p[k - 1], g.p[k + ni + 1], g.p[k - ni - 1]);
                let (ne, nw, se, sw) = (g.p[k + ni + 2], g.p[k + ni], g.p[k - ni], g.p[k - ni - 2]);
                let r_xi = [0.5 * (e[0] - w[0]), 0.5 * (e[1] - w[1])];
                let r_eta = [0.5 * (n[0] - s[0]), 0.5 * (n[1] - s[1])];
                let alpha = r_eta[0] * r_eta[0] + r_eta[1] * r_eta[1];
                let beta = r_xi[0] * r_eta[0] + r_xi[1] * r_eta[1];
                let gamma = r_xi[0] * r_xi[0] + r_xi[1] * r_xi[1];
                let mut new = [0.0; 2];
                for c in 0..2 {
                    let r_xieta = 0.25 * (ne[c] - nw[c] - se[c] + sw[c]);
                    new[c] = (alpha * (e[c] + w[c] + phi[k] * r_xi[c]) + gamma * (n[c] + s[c] + psi[k] * r_eta[c])
                        - 2.0 * beta * r_xieta)
                        / (2.0 * (alpha + gamma));
                }
                g.p[k] = new;
            }
        }
    }
}

/// `phi`, `psi` at the interior nodes that make the current grid satisfy the equations.
fn control_functions(g: &Grid) -> (Vec<f64>, Vec<f64>) {
    let (ni, nj) = (g.ni, g.nj);
    let mut phi = vec![0.0; (ni + 1) * (nj + 1)];
    let mut psi = vec![0.0; (ni + 1) * (nj + 1)];
    for j in 1..nj {
        for i in 1..ni {
            let k = i + (ni + 1) * j;
            let p: &[P2] = &g.p;
            let (c, e, w, n, s) = (p[k], p[k + 1], p[k - 1], p[k + ni + 1], p[k - ni - 1]);
            let (ne, nw, se, sw) = (p[k + ni + 2], p[k + ni], p[k - ni], p[k - ni - 2]);
            let d = |a: P2, b: P2| [0.5 * (a[0] - b[0]), 0.5 * (a[1] - b[1])];
            let r_xi = d(e, w);
            let r_eta = d(n, s);
            let alpha = r_eta[0] * r_eta[0] + r_eta[1] * r_eta[1];
            let beta = r_xi[0] * r_eta[0] + r_xi[1] * r_eta[1];
            let gamma = r_xi[0] * r_xi[0] + r_xi[1] * r_xi[1];
            let mut rhs = [0.0; 2];
            for q in 0..2 {
                let r_xixi = e[q] - 2.0 * c[q] + w[q];
                let r_etaeta = n[q] - 2.0 * c[q] + s[q];
                let r_xieta = 0.25 * (ne[q] - nw[q] - se[q] + sw[q]);
                rhs[q] = -(alpha * r_xixi - 2.0 * beta * r_xieta + gamma * r_etaeta);
            }
            // [alpha r_xi, gamma r_eta] (phi, psi)^T = rhs, by Cramer's rule.
            let det = alpha * gamma * (r_xi[0] * r_eta[1] - r_xi[1] * r_eta[0]);
            // Only where the algebraic grid is valid; bounded, so that a kink or a fold in
            // it cannot drive the solution (|phi| ~ the relative change of spacing per cell).
            if det > 0.0 {
                phi[k] = (gamma * (rhs[0] * r_eta[1] - rhs[1] * r_eta[0]) / det).clamp(-MAX_CONTROL, MAX_CONTROL);
                psi[k] = (alpha * (r_xi[0] * rhs[1] - r_xi[1] * rhs[0]) / det).clamp(-MAX_CONTROL, MAX_CONTROL);
            }
        }
    }
    (phi, psi)
}
