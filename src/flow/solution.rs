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
    /// Intermittency gamma of the transition model (`flow::intermittency`); 1 (fully turbulent)
    /// for the other models. Empty means 1 everywhere (a state written before the model
    /// existed, or built by hand).
    #[serde(default)]
    pub intermittency: Vec<f64>,
}

impl BlockSolution {
    pub fn n_cells(&self) -> usize {
        self.ni * self.nj
    }
    /// Intermittency of cell `c` (1 where the state carries none).
    pub fn intermittency_at(&self, c: usize) -> f64 {
        self.intermittency.get(c).copied().unwrap_or(1.0)
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

/// Where a state is non-physical: how many cells have a non-positive or non-finite density or
/// pressure, and the worst of them (block, i, j, density, pressure): the one with the lowest
/// pressure, a non-finite one first.
#[derive(Clone, Debug, PartialEq)]
pub struct NonPhysicalCells {
    pub count: usize,
    pub worst: (usize, usize, usize, f64, f64),
}

impl std::fmt::Display for NonPhysicalCells {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (b, i, j, rho, p) = self.worst;
        write!(f, "{} non-physical cells, the worst in block {b} cell ({i}, {j}): density {rho:.3e} kg/m^3, pressure {p:.3e} Pa", self.count)
    }
}

impl Solution {
    /// The cells of this state with a non-positive or non-finite density or pressure (`None`
    /// when there are none): for a diverging solve's error, so that a user sees where.
    pub fn non_physical_cells(&self, gamma: f64) -> Option<NonPhysicalCells> {
        let badness = |rho: f64, p: f64| if rho.is_finite() && p.is_finite() { p.min(rho) } else { f64::NEG_INFINITY };
        let mut found: Option<NonPhysicalCells> = None;
        for (b, block) in self.blocks.iter().enumerate() {
            for c in 0..block.n_cells() {
                let (rho, p) = (block.rho[c], block.pressure(c, gamma));
                if rho.is_finite() && p.is_finite() && rho > 0.0 && p > 0.0 {
                    continue;
                }
                let cell = (b, c % block.ni, c / block.ni, rho, p);
                found = Some(match found {
                    None => NonPhysicalCells { count: 1, worst: cell },
                    Some(f) => {
                        let worse = badness(rho, p) < badness(f.worst.3, f.worst.4);
                        NonPhysicalCells { count: f.count + 1, worst: if worse { cell } else { f.worst } }
                    }
                });
            }
        }
        found
    }

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
            intermittency: if self.intermittency.is_empty() { Vec::new() } else { field(&self.intermittency) },
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
        BlockSolution { ni, nj, rho: v.clone(), rho_u: v.clone(), rho_v: v.clone(), rho_e: v.clone(), nu_tilde: v.clone(), intermittency: v }
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

    #[test]
    fn non_physical_cells_are_counted_and_the_worst_is_named() {
        // rho = 1, u = v = 0, rho E = 2.5: p = 1 everywhere.
        let uniform = |ni, nj| BlockSolution { ni, nj, rho: vec![1.0; ni * nj], rho_u: vec![0.0; ni * nj], rho_v: vec![0.0; ni * nj], rho_e: vec![2.5; ni * nj], nu_tilde: vec![0.0; ni * nj], intermittency: Vec::new() };
        let mut s = Solution { blocks: vec![uniform(4, 3), uniform(5, 2)] };
        assert_eq!(s.non_physical_cells(1.4), None);
        s.blocks[1].rho_e[5 + 3] = -1.0; // block 1 cell (3, 1): p = -0.4
        s.blocks[0].rho_e[2] = -0.1; // block 0 cell (2, 0): p = -0.04
        let found = s.non_physical_cells(1.4).unwrap();
        assert_eq!((found.count, found.worst.0, found.worst.1, found.worst.2), (2, 1, 3, 1));
        assert!((found.worst.4 + 0.4).abs() < 1e-12);
        s.blocks[0].rho[7] = f64::NAN; // block 0 cell (3, 1)
        let found = s.non_physical_cells(1.4).unwrap();
        assert_eq!((found.count, found.worst.0, found.worst.1, found.worst.2), (3, 0, 3, 1));
        assert!(found.to_string().starts_with("3 non-physical cells, the worst in block 0 cell (3, 1)"), "{found}");
    }
}
