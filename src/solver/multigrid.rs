//! Multigrid settings. Coarse meshes come from `mesh::coarsen` (2 x 2 agglomeration); the FAS
//! cycle itself lives in `explicit.rs` next to the Runge-Kutta smoother it drives.

use serde::{Deserialize, Serialize};

/// Shape of the multigrid cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cycle {
    /// One coarse-grid visit per level.
    V,
    /// Two coarse-grid visits per level (more work on the coarse grids).
    W,
}

impl Cycle {
    /// Coarse-grid visits per level (gamma of Blazek sec. 9.3).
    pub fn visits(&self) -> usize {
        match self {
            Cycle::V => 1,
            Cycle::W => 2,
        }
    }
}

/// Full Approximation Storage multigrid (Blazek sec. 9.3): `levels` grids including the fine
/// one (2-4), each coarse grid made of 2 x 2 agglomerated cells and solved first order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Multigrid {
    pub levels: usize,
    pub cycle: Cycle,
}
