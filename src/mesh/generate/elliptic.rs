//! Elliptic smoothing of the C block.
//!
//! Winslow's equations with control functions (Thompson, Warsi & Mastin, *Numerical Grid
//! Generation*, 1985, ch. 6; Blazek 2005, section 11.2.2):
//!
//! `alpha (r_xixi + phi r_xi) - 2 beta r_xieta + gamma (r_etaeta + psi r_eta) = 0`,
//! `alpha = |r_eta|^2, beta = r_xi . r_eta, gamma = |r_xi|^2`.
//!
//! The control functions carry the spacings of the algebraic grid: in one dimension
//! `x_xixi + phi x_xi = 0` is solved exactly by the wanted distribution when
//! `phi = -x_xixi / x_xi`, so `phi` is measured along every row and `psi` along every column of
//! the algebraic grid (the first cells next to the O-grid and the wake cut, the grading
//! towards the periodic lines) and averaged across columns, while `phi` is taken from the two
//! boundary rows and interpolated between them (Thomas and Middlecoff): the spacing along
//! each line is kept while the Laplacian part fairs the lines themselves.
//!
//! The algebraic grid's nodes on the wake cut and the periodic lines stay where they are
//! (their twins match to round-off; `cblock::respace_lines` then matches the cells on both sides
//! of each seam); nodes on the outlet plane slide along it, with mirrored neighbours (grid lines
//! meet the outlet at right angles).

use super::cblock::Grid;
use super::distribution::P2;

/// Bound on the control functions: a spacing change of at most ~60 % per cell.
const MAX_CONTROL: f64 = 0.6;

/// The inner row's stretching `phi` fades into the block as `(1 - eta)^PHI_DECAY` (and the outer
/// row's as `eta^PHI_DECAY`): the O-grid's clustering round the leading and trailing edges is
/// needed next to it, not across the passage, where it would bunch the lines that fan out of
/// the trailing edge (a linear interpolation left growth ratios of 4.3 there, this 2.4).
const PHI_DECAY: i32 = 8;

/// Node (i, j) of `g`, where i may be -1 or ni + 1: mirrored in the outlet plane x = `outlet_x`.
fn node(g: &Grid, outlet_x: f64, i: isize, j: usize) -> P2 {
    let ni = g.ni as isize;
    let mirror = |p: P2| [2.0 * outlet_x - p[0], p[1]];
    if i < 0 {
        mirror(g.at(1, j))
    } else if i > ni {
        mirror(g.at(g.ni - 1, j))
    } else {
        g.at(i as usize, j)
    }
}

fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// `-x_xixi / x_xi` from the two cell sizes either side of a node.
fn stretching(d_minus: f64, d_plus: f64) -> f64 {
    (-2.0 * (d_plus - d_minus) / (d_plus + d_minus)).clamp(-MAX_CONTROL, MAX_CONTROL)
}

/// Smooths the interior nodes of `g` (and those on its outlet faces i = 0 and i = ni, along the
/// plane x = `outlet_x`) with `sweeps` Gauss-Seidel sweeps; `passes` filter passes spread the
/// column stretching `psi` across neighbouring columns first.
pub fn winslow_smooth(g: &mut Grid, outlet_x: f64, sweeps: usize, passes: usize) {
    let (ni, nj) = (g.ni, g.nj);
    let idx = |i: usize, j: usize| i + (ni + 1) * j;
    let mut phi = vec![0.0; (ni + 1) * (nj + 1)];
    let mut psi = vec![0.0; (ni + 1) * (nj + 1)];
    for j in 1..nj {
        for i in 0..=ni {
            let c = g.at(i, j);
            psi[idx(i, j)] = stretching(dist(c, g.at(i, j - 1)), dist(c, g.at(i, j + 1)));
        }
    }
    // phi: Thomas and Middlecoff's interpolation between the stretchings of the two boundary
    // rows (O-grid's outer curve and wake cut; M - pitch, inlet, M), see PHI_DECAY.
    for i in 0..=ni {
        let row_stretching = |j: usize| {
            let c = g.at(i, j);
            stretching(dist(c, node(g, outlet_x, i as isize - 1, j)), dist(c, node(g, outlet_x, i as isize + 1, j)))
        };
        let (phi_0, phi_1) = (row_stretching(0), row_stretching(nj));
        for j in 1..nj {
            let eta = j as f64 / nj as f64;
            phi[idx(i, j)] = (1.0 - eta).powi(PHI_DECAY) * phi_0 + eta.powi(PHI_DECAY) * phi_1;
        }
    }
    for _ in 0..passes {
        let old = psi.clone();
        for j in 1..nj {
            for i in 1..ni {
                psi[idx(i, j)] = 0.25 * old[idx(i - 1, j)] + 0.5 * old[idx(i, j)] + 0.25 * old[idx(i + 1, j)];
            }
        }
    }
    for _ in 0..sweeps {
        for j in 1..nj {
            for i in 0..=ni {
                let n8 = |di: isize, dj: isize| node(g, outlet_x, i as isize + di, (j as isize + dj) as usize);
                let (e, w, n, so) = (n8(1, 0), n8(-1, 0), n8(0, 1), n8(0, -1));
                let (ne, nw, se, sw) = (n8(1, 1), n8(-1, 1), n8(1, -1), n8(-1, -1));
                let r_xi = [0.5 * (e[0] - w[0]), 0.5 * (e[1] - w[1])];
                let r_eta = [0.5 * (n[0] - so[0]), 0.5 * (n[1] - so[1])];
                let alpha = r_eta[0] * r_eta[0] + r_eta[1] * r_eta[1];
                let beta = r_xi[0] * r_eta[0] + r_xi[1] * r_eta[1];
                let gamma = r_xi[0] * r_xi[0] + r_xi[1] * r_xi[1];
                let k = idx(i, j);
                let mut new = [0.0; 2];
                for c in 0..2 {
                    let r_xieta = 0.25 * (ne[c] - nw[c] - se[c] + sw[c]);
                    new[c] = (alpha * (e[c] + w[c] + phi[k] * r_xi[c]) + gamma * (n[c] + so[c] + psi[k] * r_eta[c])
                        - 2.0 * beta * r_xieta)
                        / (2.0 * (alpha + gamma));
                }
                if i == 0 || i == ni {
                    new[0] = outlet_x;
                }
                g.set(i, j, new);
            }
        }
    }
}
