//! Structured multi-block meshes: blocks of quadrilateral cells, boundary patches, and
//! 1-to-1 / periodic connections between block faces.
//!
//! Conventions (docs/architecture.md, "data layout"):
//! - a block has `ni x nj` cells and `(ni+1) x (nj+1)` nodes, stored i fastest
//!   (`node = i + (ni+1) j`, `cell = i + ni j`); nk = 1 (planar 2D);
//! - every cell on every block face belongs to exactly one [`Patch`];
//! - a connection maps the k-th cell along a patch to a donor cell along the donor face;
//!   the solver turns connections into ghost-cell donor lookup tables.

pub mod generate;

use serde::{Deserialize, Serialize};

pub mod coarsen;
pub mod connect;
pub mod metrics;
pub mod passage;
pub mod picture;
pub mod plot3d;
pub mod quality;
pub mod simple;
pub mod su2;
pub mod vtk;
pub mod yplus;

/// One face of a structured block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Face {
    /// i = 0
    IMin,
    /// i = ni
    IMax,
    /// j = 0
    JMin,
    /// j = nj
    JMax,
}

impl Face {
    pub const ALL: [Face; 4] = [Face::IMin, Face::IMax, Face::JMin, Face::JMax];
}

/// What a patch of a block face is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BoundaryKind {
    /// Adiabatic no-slip wall (the blade).
    Wall,
    /// Slip wall (inviscid wall); in 2D a symmetry plane is the same for the mean flow.
    InviscidWall,
    /// Symmetry plane.
    Symmetry,
    /// Subsonic/supersonic inlet (total conditions).
    Inlet,
    /// Subsonic/supersonic outlet (static pressure).
    Outlet,
    /// Connection to another block face (or another part of the same block).
    Interface(Connection),
}

/// A 1-to-1 or periodic connection.
///
/// The cell at offset `k` (0-based, counted along the face in increasing i or j) of the patch
/// faces the donor cell at offset `donor_start + k` along `donor_face` of `donor_block`, or at
/// `donor_start + (len - 1 - k)` when `reversed`. Donor coordinates plus `translation` give
/// coordinates on this side (zero for 1-to-1, +-pitch in y for periodic).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Connection {
    pub donor_block: usize,
    pub donor_face: Face,
    pub donor_start: usize,
    pub reversed: bool,
    pub translation: [f64; 2],
}

impl Connection {
    pub fn is_periodic(&self) -> bool {
        self.translation != [0.0, 0.0]
    }
}

/// A range of cells `[start, end)` along one block face with one boundary kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Patch {
    pub face: Face,
    pub start: usize,
    pub end: usize,
    pub kind: BoundaryKind,
}

impl Patch {
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A structured block of `ni x nj` cells.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    pub name: String,
    pub ni: usize,
    pub nj: usize,
    /// Node coordinates \[m\], `(ni+1)*(nj+1)`, i fastest.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub patches: Vec<Patch>,
}

impl Block {
    #[inline]
    pub fn node(&self, i: usize, j: usize) -> usize {
        i + (self.ni + 1) * j
    }
    #[inline]
    pub fn cell(&self, i: usize, j: usize) -> usize {
        i + self.ni * j
    }
    pub fn n_cells(&self) -> usize {
        self.ni * self.nj
    }
    /// The mean of cell (i, j)'s four nodes (not its area centroid, `metrics::quad_area_centroid`).
    pub fn vertex_centre(&self, i: usize, j: usize) -> [f64; 2] {
        let n = [self.node(i, j), self.node(i + 1, j), self.node(i, j + 1), self.node(i + 1, j + 1)];
        [0.25 * (self.x[n[0]] + self.x[n[1]] + self.x[n[2]] + self.x[n[3]]), 0.25 * (self.y[n[0]] + self.y[n[1]] + self.y[n[2]] + self.y[n[3]])]
    }
    /// Number of cells along a face.
    pub fn face_len(&self, face: Face) -> usize {
        match face {
            Face::IMin | Face::IMax => self.nj,
            Face::JMin | Face::JMax => self.ni,
        }
    }
}

/// A multi-block mesh of a cascade passage (or of a test problem).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Mesh {
    pub blocks: Vec<Block>,
    /// Cascade pitch \[m\] (0 for non-periodic test meshes).
    pub pitch: f64,
}

impl Mesh {
    pub fn n_cells(&self) -> usize {
        self.blocks.iter().map(Block::n_cells).sum()
    }
}

/// Mesh density presets: coarse ~10k cells, medium ~40k, fine ~150k-300k, ordered from coarse
/// to fine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Density {
    Coarse,
    Medium,
    Fine,
}

impl Density {
    /// The preset's name as files, flags and reports spell it.
    pub fn name(self) -> &'static str {
        match self {
            Density::Coarse => "coarse",
            Density::Medium => "medium",
            Density::Fine => "fine",
        }
    }
}
