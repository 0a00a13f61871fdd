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
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multigrid {
    pub levels: usize,
    pub cycle: Cycle,
    /// Implicit smoothing coefficient applied to the prolonged (injected) correction before it
    /// is added (the residual-smoothing operator of thesis eq. 4.15 in both directions; Blazek
    /// sec. 9.3 smooths corrections the same way). Injection leaves jumps of the correction
    /// between coarse cells; on stretched viscous meshes (TMR flat plate) three or more levels
    /// stall without it (with 1.0 they converge), while on inviscid and periodic problems it
    /// slows convergence (48 x 24 channel: 209 -> 317 cycles with 0.5). 0 (default) switches it
    /// off.
    #[serde(default = "default_correction_smoothing")]
    pub correction_smoothing: f64,
    /// Single-grid iterations before the first coarse-grid correction. From an impulsive start
    /// the FAS forcing of the first cycles is large: on the LS89 medium RANS case a 3-level
    /// W-cycle started cold is NaN at cycle 2, and stable once started after 1,500 single-grid
    /// iterations. 0 (default): multigrid from the first iteration.
    #[serde(default)]
    pub delay: usize,
}

fn default_correction_smoothing() -> f64 {
    0.0
}

impl Multigrid {
    /// `levels` grids, `cycle`, no correction smoothing.
    pub fn new(levels: usize, cycle: Cycle) -> Self {
        Multigrid { levels, cycle, correction_smoothing: default_correction_smoothing(), delay: 0 }
    }
}
