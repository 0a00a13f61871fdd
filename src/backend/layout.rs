//! Index arithmetic of the padded structure-of-arrays layout shared by all backends.

use serde::{Deserialize, Serialize};

/// Ghost layers on every block side (MUSCL needs two, docs/architecture.md, "data layout").
pub const NGHOST: usize = 2;

/// Shape of one block in the padded layout: `ni x nj` interior cells, two ghost layers.
///
/// Cell `(i, j)` with `-2 <= i < ni + 2`, `-2 <= j < nj + 2` lives at
/// `(i + 2) + (ni + 4) * (j + 2)`; one variable takes `(ni+4)*(nj+4)` entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockLayout {
    pub ni: usize,
    pub nj: usize,
}

impl BlockLayout {
    /// Padded row length (cells along i including ghosts).
    #[inline]
    pub fn stride(&self) -> usize {
        self.ni + 2 * NGHOST
    }
    /// Entries of one variable including ghosts.
    #[inline]
    pub fn n_padded(&self) -> usize {
        (self.ni + 2 * NGHOST) * (self.nj + 2 * NGHOST)
    }
    /// Interior cells.
    #[inline]
    pub fn n_interior(&self) -> usize {
        self.ni * self.nj
    }
    /// Padded index of cell `(i, j)`; ghost cells have negative or `>= n` indices.
    #[inline]
    pub fn idx(&self, i: isize, j: isize) -> usize {
        let ng = NGHOST as isize;
        ((i + ng) + self.stride() as isize * (j + ng)) as usize
    }
    /// Padded index of interior cell `(i, j)`.
    #[inline]
    pub fn interior(&self, i: usize, j: usize) -> usize {
        (i + NGHOST) + self.stride() * (j + NGHOST)
    }
    /// Index of the i-face at node line `i` (between cells i-1 and i), row `j`:
    /// `(ni+1) * nj` i-faces, i fastest.
    #[inline]
    pub fn i_face(&self, i: usize, j: usize) -> usize {
        i + (self.ni + 1) * j
    }
    /// Index of the j-face at node line `j` (between cells j-1 and j), column `i`:
    /// `ni * (nj+1)` j-faces, i fastest.
    #[inline]
    pub fn j_face(&self, i: usize, j: usize) -> usize {
        i + self.ni * j
    }
}
