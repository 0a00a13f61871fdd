//! The flow solution as the solver hands it over: cell-centred conservative variables on the
//! interior cells of every block (no ghost cells), i fastest, same cell order as `mesh::Block`.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BlockSolution {
    pub ni: usize,
    pub nj: usize,
    /// Density [kg/m^3].
    pub rho: Vec<f64>,
    /// Momentum density rho*u, rho*v [kg/(m^2 s)].
    pub rho_u: Vec<f64>,
    pub rho_v: Vec<f64>,
    /// Total energy density rho*E [J/m^3].
    pub rho_e: Vec<f64>,
    /// Spalart-Allmaras working variable nu_tilde [m^2/s] (zeros for inviscid/laminar runs).
    pub nu_tilde: Vec<f64>,
}

impl BlockSolution {
    pub fn n_cells(&self) -> usize {
        self.ni * self.nj
    }
    /// Static pressure of cell `c` for a perfect gas.
    pub fn pressure(&self, c: usize, gamma: f64) -> f64 {
        let ke = 0.5 * (self.rho_u[c].powi(2) + self.rho_v[c].powi(2)) / self.rho[c];
        (gamma - 1.0) * (self.rho_e[c] - ke)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Solution {
    pub blocks: Vec<BlockSolution>,
}

impl Solution {
    /// This solution carried over to blocks of other sizes with the same block layout (a
    /// design's mesh of the same topology as the baseline's, with a few more or fewer cells
    /// round the blade or across the O-grid): bilinear interpolation in normalized index space,
    /// cell centre to cell centre. Meant as a starting state: a convex combination of valid
    /// states has positive density and pressure (the pressure is concave in the conservative
    /// variables), so the result is valid wherever the source is. `None` when the block counts
    /// differ.
    pub fn resampled(&self, sizes: &[(usize, usize)]) -> Option<Solution> {
        if sizes.len() != self.blocks.len() || self.blocks.iter().any(|b| b.ni == 0 || b.nj == 0) {
            return None;
        }
        let blocks = self.blocks.iter().zip(sizes).map(|(b, &(ni, nj))| b.resampled(ni, nj)).collect();
        Some(Solution { blocks })
    }
}

impl BlockSolution {
    fn resampled(&self, ni: usize, nj: usize) -> BlockSolution {
        let weights_i: Vec<(usize, usize, f64)> = (0..ni).map(|i| source_weights(i, ni, self.ni)).collect();
        let weights_j: Vec<(usize, usize, f64)> = (0..nj).map(|j| source_weights(j, nj, self.nj)).collect();
        let field = |v: &[f64]| {
            let mut out = Vec::with_capacity(ni * nj);
            for &(j0, j1, tj) in &weights_j {
                for &(i0, i1, ti) in &weights_i {
                    let at = |i: usize, j: usize| v[j * self.ni + i];
                    let lower = (1.0 - ti) * at(i0, j0) + ti * at(i1, j0);
                    let upper = (1.0 - ti) * at(i0, j1) + ti * at(i1, j1);
                    out.push((1.0 - tj) * lower + tj * upper);
                }
            }
            out
        };
        BlockSolution {
            ni,
            nj,
            rho: field(&self.rho),
            rho_u: field(&self.rho_u),
            rho_v: field(&self.rho_v),
            rho_e: field(&self.rho_e),
            nu_tilde: field(&self.nu_tilde),
        }
    }
}

/// The two source cells either side of target cell `k` of `n` (cell centres at the same
/// fraction of the block, clamped to the outer centres) and the weight of the second.
fn source_weights(k: usize, n: usize, n_source: usize) -> (usize, usize, f64) {
    let x = ((k as f64 + 0.5) * n_source as f64 / n as f64 - 0.5).clamp(0.0, (n_source - 1) as f64);
    let lo = (x.floor() as usize).min(n_source - 1);
    let hi = (lo + 1).min(n_source - 1);
    (lo, hi, x - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(ni: usize, nj: usize, f: impl Fn(f64, f64) -> f64) -> BlockSolution {
        // Cell centres at fractions (i + 0.5) / ni, (j + 0.5) / nj of the block.
        let v: Vec<f64> = (0..nj).flat_map(|j| (0..ni).map(move |i| (i, j))).map(|(i, j)| f((i as f64 + 0.5) / ni as f64, (j as f64 + 0.5) / nj as f64)).collect();
        BlockSolution { ni, nj, rho: v.clone(), rho_u: v.clone(), rho_v: v.clone(), rho_e: v.clone(), nu_tilde: v }
    }

    #[test]
    fn resampling_reproduces_linear_fields_and_keeps_same_sizes() {
        let linear = |x: f64, y: f64| 1.0 + 2.0 * x - 0.5 * y;
        let source = Solution { blocks: vec![block(12, 7, linear)] };
        let same = source.resampled(&[(12, 7)]).unwrap();
        assert_eq!(same, source);
        // Away from the clamped outer half cells, a linear field is reproduced exactly.
        let finer = source.resampled(&[(17, 9)]).unwrap();
        let exact = block(17, 9, linear);
        for j in 1..8 {
            for i in 1..16 {
                let c = j * 17 + i;
                assert!((finer.blocks[0].rho[c] - exact.rho[c]).abs() < 1e-12, "cell ({i}, {j})");
            }
        }
        assert!(source.resampled(&[(12, 7), (3, 3)]).is_none());
    }
}
