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
