//! Mesh quality report: sizes, smoothness (volume and growth ratios, also across block
//! connections), shape (orthogonality, skewness, aspect ratio), wall resolution and the match of
//! connected faces.
//!
//! Definitions, per quadrilateral cell with corners a-b-c-d (counter-clockwise) and corner
//! angles theta:
//! - orthogonality = min over corners of `min(theta, 180 - theta)` \[deg\] (90 = orthogonal);
//!   at the wall, the angle between each wall face and the grid line leaving the wall node;
//! - skewness = equiangle skewness `max |theta - 90| / 90` (0 = rectangle, 1 = degenerate);
//! - aspect ratio = longer / shorter of the mean i-extent `(|ab| + |dc|)/2` and the mean
//!   j-extent `(|ad| + |bc|)/2`;
//! - growth ratio = ratio (>= 1) of the extents of successive cells along a grid line (i-extent
//!   along i lines, j-extent along j lines), also between a face cell and its donor;
//! - volume ratio = ratio (>= 1) of the volumes of face neighbours, also across connections;
//! - mismatch = distance between a face node and its partner node (plus the translation) on
//!   the donor face.

use std::fmt;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::mesh::yplus::yplus_estimate;
use crate::mesh::connect::{donor_offset, inner_cell, node_partners, validate};
use crate::mesh::metrics::{face_edge_nodes, face_node, MeshMetrics};
use crate::mesh::{Block, BoundaryKind, Face, Mesh};

/// Summary of the quality of a mesh. Ratios are >= 1; angles in degrees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityReport {
    /// Number of blocks and of cells.
    pub blocks: usize,
    pub cells: usize,
    /// Smallest and largest signed cell volume (area per unit span) [m^2].
    pub min_volume: f64,
    pub max_volume: f64,
    /// Cells with zero or negative volume (folded or left-handed): must be 0.
    pub non_positive_volumes: usize,
    /// Largest volume ratio between face neighbours (within blocks and across connections).
    pub max_volume_ratio: f64,
    /// Smallest angle between a no-slip wall face and the grid line leaving the wall
    /// (None without walls).
    pub min_wall_orthogonality_deg: Option<f64>,
    /// Smallest orthogonality of any cell corner of the mesh.
    pub min_orthogonality_deg: f64,
    /// Largest equiangle skewness (0 rectangle .. 1 degenerate).
    pub max_skewness: f64,
    /// Largest ratio of a cell's i- and j-extents.
    pub max_aspect_ratio: f64,
    /// Largest ratio of successive cell sizes along grid lines (also across connections).
    pub max_growth_ratio: f64,
    /// The same, over the pairs of cells neither of which touches a block corner (a corner of
    /// its block or an end of one of its patches: where three or five blocks meet, the cells
    /// round the node cannot all grow gently).
    pub max_growth_ratio_away_from_corners: f64,
    /// Wall-normal length of the first grid line at the wall \[m\]: min and max (None without walls).
    pub min_first_cell_height: Option<f64>,
    pub max_first_cell_height: Option<f64>,
    /// Largest node mismatch of periodic connections after translation \[m\] (None if none).
    pub max_periodic_mismatch: Option<f64>,
    /// Largest node mismatch of 1-to-1 connections \[m\] (None if none).
    pub max_one_to_one_mismatch: Option<f64>,
    /// y+ of `max_first_cell_height`, filled in by the caller with [`crate::mesh::yplus`]
    /// (e.g. through [`QualityReport::estimate_yplus`]).
    pub first_cell_yplus_estimate: Option<f64>,
    /// Where the extremes above occur.
    pub worst: WorstCells,
}

/// A cell of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CellLocation {
    pub block: usize,
    pub i: usize,
    pub j: usize,
}

impl fmt::Display for CellLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "block {} cell ({}, {})", self.block, self.i, self.j)
    }
}

/// Cells where the extremes of a [`QualityReport`] occur (for ratios: the first cell of the
/// pair). None where the measure has no cell (no walls) or is already ideal.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WorstCells {
    pub min_volume: Option<CellLocation>,
    pub max_volume_ratio: Option<CellLocation>,
    pub max_growth_ratio: Option<CellLocation>,
    pub max_growth_ratio_away_from_corners: Option<CellLocation>,
    pub min_orthogonality: Option<CellLocation>,
    pub min_wall_orthogonality: Option<CellLocation>,
    pub max_skewness: Option<CellLocation>,
    pub max_aspect_ratio: Option<CellLocation>,
}

/// Replace `value` (and its location) when `candidate` is larger.
fn raise(value: &mut f64, at: &mut Option<CellLocation>, candidate: f64, here: CellLocation) {
    if candidate > *value {
        *value = candidate;
        *at = Some(here);
    }
}

/// Replace `value` (and its location) when `candidate` is smaller.
fn lower(value: &mut f64, at: &mut Option<CellLocation>, candidate: f64, here: CellLocation) {
    if candidate < *value {
        *value = candidate;
        *at = Some(here);
    }
}

/// Shape measures of one cell.
struct CellShape {
    min_orthogonality: f64,
    skewness: f64,
    i_extent: f64,
    j_extent: f64,
}

fn point(block: &Block, i: usize, j: usize) -> [f64; 2] {
    let n = block.node(i, j);
    [block.x[n], block.y[n]]
}

fn sub(p: [f64; 2], q: [f64; 2]) -> [f64; 2] {
    [p[0] - q[0], p[1] - q[1]]
}

fn norm(v: [f64; 2]) -> f64 {
    v[0].hypot(v[1])
}

/// Unsigned angle between two vectors \[deg\], in [0, 180].
fn angle_deg(u: [f64; 2], v: [f64; 2]) -> f64 {
    (u[0] * v[1] - u[1] * v[0]).abs().atan2(u[0] * v[0] + u[1] * v[1]).to_degrees()
}

fn cell_shape(block: &Block, i: usize, j: usize) -> CellShape {
    let (a, b, c, d) = (point(block, i, j), point(block, i + 1, j), point(block, i + 1, j + 1), point(block, i, j + 1));
    let corners = [
        angle_deg(sub(b, a), sub(d, a)),
        angle_deg(sub(c, b), sub(a, b)),
        angle_deg(sub(d, c), sub(b, c)),
        angle_deg(sub(a, d), sub(c, d)),
    ];
    CellShape {
        min_orthogonality: corners.iter().map(|&t| t.min(180.0 - t)).fold(f64::INFINITY, f64::min),
        skewness: corners.iter().map(|&t| (t - 90.0).abs() / 90.0).fold(0.0, f64::max),
        i_extent: 0.5 * (norm(sub(b, a)) + norm(sub(c, d))),
        j_extent: 0.5 * (norm(sub(d, a)) + norm(sub(c, b))),
    }
}

/// Signed area of cell (i, j) (positive for a right-handed cell).
fn cell_area(block: &Block, i: usize, j: usize) -> f64 {
    let (a, b, c, d) = (point(block, i, j), point(block, i + 1, j), point(block, i + 1, j + 1), point(block, i, j + 1));
    0.5 * ((c[0] - a[0]) * (d[1] - b[1]) - (c[1] - a[1]) * (d[0] - b[0]))
}

/// Per cell of `blk`, whether it touches a block corner: a corner of the block, or a node
/// where one of its faces changes patch (where the block meets two others).
fn corner_cells(blk: &Block) -> Vec<bool> {
    let (ni, nj) = (blk.ni, blk.nj);
    let mut node = vec![false; (ni + 1) * (nj + 1)];
    let mut mark = |i: usize, j: usize| node[i + (ni + 1) * j] = true;
    for (i, j) in [(0, 0), (ni, 0), (0, nj), (ni, nj)] {
        mark(i, j);
    }
    for p in &blk.patches {
        for k in [p.start, p.end] {
            match p.face {
                Face::IMin => mark(0, k),
                Face::IMax => mark(ni, k),
                Face::JMin => mark(k, 0),
                Face::JMax => mark(k, nj),
            }
        }
    }
    (0..nj)
        .flat_map(|j| (0..ni).map(move |i| (i, j)))
        .map(|(i, j)| [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)].iter().any(|&(a, b)| node[a + (ni + 1) * b]))
        .collect()
}

/// Ratio >= 1 of two positive sizes (infinite when one vanishes or is negative).
fn ratio(a: f64, b: f64) -> f64 {
    if a > 0.0 && b > 0.0 {
        a.max(b) / a.min(b)
    } else {
        f64::INFINITY
    }
}

fn max_opt(acc: Option<f64>, v: f64) -> Option<f64> {
    Some(acc.map_or(v, |a| a.max(v)))
}

fn min_opt(acc: Option<f64>, v: f64) -> Option<f64> {
    Some(acc.map_or(v, |a| a.min(v)))
}

/// The quality every mesh the product makes is held to.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct QualityBounds {
    /// Largest equiangle skewness (corner angles of at least 18 degrees).
    pub max_skewness: f64,
    /// Largest growth ratio along a grid line away from block corners, and at them.
    pub max_growth_ratio: f64,
    pub max_growth_ratio_at_corners: f64,
    /// Smallest angle between a wall face and the grid line leaving it \[deg\].
    pub min_wall_orthogonality_deg: f64,
    /// Largest area ratio of neighbouring cells (no cell below 1e-3 of its neighbours').
    pub max_volume_ratio: f64,
}

impl Default for QualityBounds {
    fn default() -> Self {
        QualityBounds { max_skewness: 0.8, max_growth_ratio: 1.3, max_growth_ratio_at_corners: 1.5, min_wall_orthogonality_deg: 80.0, max_volume_ratio: 1e3 }
    }
}

/// Equiangle skewness above which a cell is nearly degenerate: the pseudo-time iteration of
/// the solver has diverged at such cells (random turbine designs whose outlet block folded
/// to skewness 0.999) while meshes whose worst cell is skewed 0.85-0.9 converge.
pub const NEAR_DEGENERATE_SKEWNESS: f64 = 0.95;

/// The worst values of a mesh's quality, as the evaluator records them per design.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct QualitySummary {
    pub cells: usize,
    pub max_skewness: f64,
    /// Largest growth ratio away from block corners, and anywhere.
    pub max_growth_ratio: f64,
    pub max_growth_ratio_at_corners: f64,
    pub min_wall_orthogonality_deg: f64,
    pub max_volume_ratio: f64,
}

impl QualitySummary {
    /// How far this mesh is from `bounds`, to compare two meshes of one passage: whether it
    /// has a nearly degenerate cell (skewness above [`NEAR_DEGENERATE_SKEWNESS`], where a
    /// solver may fail whatever the other figures), then the number of bounds it misses, then
    /// the sum of its relative excesses (0 when within every bound).
    pub fn shortfall(&self, bounds: &QualityBounds) -> (bool, usize, f64) {
        let over = |v: f64, b: f64| (v / b - 1.0).max(0.0);
        let excess = over(self.max_skewness, bounds.max_skewness)
            + over(self.max_growth_ratio, bounds.max_growth_ratio)
            + over(self.max_growth_ratio_at_corners, bounds.max_growth_ratio_at_corners)
            + over(bounds.min_wall_orthogonality_deg, self.min_wall_orthogonality_deg)
            + over(self.max_volume_ratio.ln(), bounds.max_volume_ratio.ln());
        (self.max_skewness > NEAR_DEGENERATE_SKEWNESS, self.outside(bounds).len(), excess)
    }

    /// The names of the bounds this mesh misses (empty: within all of them).
    pub fn outside(&self, bounds: &QualityBounds) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.max_skewness > bounds.max_skewness {
            v.push("skewness");
        }
        if self.max_growth_ratio > bounds.max_growth_ratio {
            v.push("growth");
        }
        if self.max_growth_ratio_at_corners > bounds.max_growth_ratio_at_corners {
            v.push("growth at block corners");
        }
        if self.min_wall_orthogonality_deg < bounds.min_wall_orthogonality_deg {
            v.push("wall orthogonality");
        }
        if self.max_volume_ratio > bounds.max_volume_ratio {
            v.push("area ratio");
        }
        v
    }
}

impl QualityReport {
    /// The bounds `bounds` this mesh misses, one line each (empty: within all of them).
    pub fn violations(&self, bounds: &QualityBounds) -> Vec<String> {
        let at = |l: Option<CellLocation>| l.map_or(String::new(), |l| format!(" at {l}"));
        let w = &self.worst;
        let mut v = Vec::new();
        if self.non_positive_volumes > 0 {
            v.push(format!("{} cells of non-positive area{}", self.non_positive_volumes, at(w.min_volume)));
        }
        if self.max_skewness > bounds.max_skewness {
            v.push(format!("skewness {:.3} above {}{}", self.max_skewness, bounds.max_skewness, at(w.max_skewness)));
        }
        if self.max_growth_ratio_away_from_corners > bounds.max_growth_ratio {
            v.push(format!("growth ratio {:.3} above {} away from block corners{}", self.max_growth_ratio_away_from_corners, bounds.max_growth_ratio, at(w.max_growth_ratio_away_from_corners)));
        }
        if self.max_growth_ratio > bounds.max_growth_ratio_at_corners {
            // The corner bound holds everywhere: the largest growth anywhere is checked against it.
            v.push(format!("growth ratio {:.3} above {}, the bound even at block corners{}", self.max_growth_ratio, bounds.max_growth_ratio_at_corners, at(w.max_growth_ratio)));
        }
        if let Some(o) = self.min_wall_orthogonality_deg.filter(|&o| o < bounds.min_wall_orthogonality_deg) {
            v.push(format!("wall orthogonality {o:.2} deg below {}{}", bounds.min_wall_orthogonality_deg, at(w.min_wall_orthogonality)));
        }
        if self.max_volume_ratio > bounds.max_volume_ratio {
            v.push(format!("area ratio {:.1} above {}{}", self.max_volume_ratio, bounds.max_volume_ratio, at(w.max_volume_ratio)));
        }
        v
    }

    /// The worst values, for an evaluation's record.
    pub fn summary(&self) -> QualitySummary {
        QualitySummary {
            cells: self.cells,
            max_skewness: self.max_skewness,
            max_growth_ratio: self.max_growth_ratio_away_from_corners,
            max_growth_ratio_at_corners: self.max_growth_ratio,
            min_wall_orthogonality_deg: self.min_wall_orthogonality_deg.unwrap_or(90.0),
            max_volume_ratio: self.max_volume_ratio,
        }
    }
}

impl QualityReport {
    /// Fill `first_cell_yplus_estimate` from `max_first_cell_height` at the exit isentropic
    /// state of `op` with running length `chord` (see [`crate::mesh::yplus`]); no-op without walls.
    pub fn estimate_yplus(&mut self, op: &OperatingPoint, gas: &Gas, chord: f64) -> Result<()> {
        if let Some(h) = self.max_first_cell_height {
            self.first_cell_yplus_estimate = Some(yplus_estimate(h, op, gas, chord)?);
        }
        Ok(())
    }
}

impl QualityReport {
    /// Measure a mesh (validated first) whose metrics are `metrics`; fails if the metrics were
    /// computed for a mesh of other block sizes.
    pub fn new(mesh: &Mesh, metrics: &MeshMetrics) -> Result<Self> {
        validate(mesh)?;
        let same_shape = metrics.blocks.len() == mesh.blocks.len()
            && metrics.blocks.iter().zip(&mesh.blocks).all(|(m, b)| (m.ni, m.nj) == (b.ni, b.nj) && m.volume.len() == b.n_cells());
        if !same_shape {
            return Err(Error::Mesh("quality report: the metrics belong to a mesh of other block sizes".into()));
        }
        Ok(Self::measure(mesh, &metrics.blocks.iter().map(|b| b.volume.clone()).collect::<Vec<_>>()))
    }

    /// Measure a mesh (validated first) without its metrics: the cell areas come from the
    /// nodes (the same quadrilateral areas the metrics hold).
    pub fn of_mesh(mesh: &Mesh) -> Result<Self> {
        validate(mesh)?;
        let volumes: Vec<Vec<f64>> = mesh
            .blocks
            .iter()
            .map(|blk| (0..blk.nj).flat_map(|j| (0..blk.ni).map(move |i| (i, j))).map(|(i, j)| cell_area(blk, i, j)).collect())
            .collect();
        Ok(Self::measure(mesh, &volumes))
    }

    fn measure(mesh: &Mesh, volumes: &[Vec<f64>]) -> Self {
        let shapes: Vec<Vec<CellShape>> = mesh
            .blocks
            .iter()
            .map(|blk| (0..blk.nj).flat_map(|j| (0..blk.ni).map(move |i| (i, j))).map(|(i, j)| cell_shape(blk, i, j)).collect())
            .collect();
        let corners: Vec<Vec<bool>> = mesh.blocks.iter().map(corner_cells).collect();
        let mut r = QualityReport {
            blocks: mesh.blocks.len(),
            cells: mesh.n_cells(),
            min_volume: f64::INFINITY,
            max_volume: f64::NEG_INFINITY,
            non_positive_volumes: 0,
            max_volume_ratio: 1.0,
            min_wall_orthogonality_deg: None,
            min_orthogonality_deg: 90.0,
            max_skewness: 0.0,
            max_aspect_ratio: 1.0,
            max_growth_ratio: 1.0,
            max_growth_ratio_away_from_corners: 1.0,
            min_first_cell_height: None,
            max_first_cell_height: None,
            max_periodic_mismatch: None,
            max_one_to_one_mismatch: None,
            first_cell_yplus_estimate: None,
            worst: WorstCells::default(),
        };
        for (b, blk) in mesh.blocks.iter().enumerate() {
            r.add_block_interior(b, blk, &volumes[b], &shapes[b], &corners[b]);
            r.add_walls(b, blk);
        }
        r.add_connections(mesh, volumes, &shapes, &corners);
        r
    }

    /// A growth ratio between two cells, `at_corner` when either touches a block corner.
    fn add_growth(&mut self, g: f64, at_corner: bool, here: CellLocation) {
        raise(&mut self.max_growth_ratio, &mut self.worst.max_growth_ratio, g, here);
        if !at_corner {
            raise(&mut self.max_growth_ratio_away_from_corners, &mut self.worst.max_growth_ratio_away_from_corners, g, here);
        }
    }

    fn add_block_interior(&mut self, b: usize, blk: &Block, volume: &[f64], shape: &[CellShape], corner: &[bool]) {
        for j in 0..blk.nj {
            for i in 0..blk.ni {
                let here = CellLocation { block: b, i, j };
                let c = blk.cell(i, j);
                let (v, s) = (volume[c], &shape[c]);
                let w = &mut self.worst;
                lower(&mut self.min_volume, &mut w.min_volume, v, here);
                self.max_volume = self.max_volume.max(v);
                if v <= 0.0 {
                    self.non_positive_volumes += 1;
                }
                lower(&mut self.min_orthogonality_deg, &mut w.min_orthogonality, s.min_orthogonality, here);
                raise(&mut self.max_skewness, &mut w.max_skewness, s.skewness, here);
                raise(&mut self.max_aspect_ratio, &mut w.max_aspect_ratio, ratio(s.i_extent, s.j_extent), here);
                if i + 1 < blk.ni {
                    let e = blk.cell(i + 1, j);
                    raise(&mut self.max_volume_ratio, &mut self.worst.max_volume_ratio, ratio(v, volume[e]), here);
                    self.add_growth(ratio(s.i_extent, shape[e].i_extent), corner[c] || corner[e], here);
                }
                if j + 1 < blk.nj {
                    let n = blk.cell(i, j + 1);
                    raise(&mut self.max_volume_ratio, &mut self.worst.max_volume_ratio, ratio(v, volume[n]), here);
                    self.add_growth(ratio(s.j_extent, shape[n].j_extent), corner[c] || corner[n], here);
                }
            }
        }
    }

    fn add_walls(&mut self, b: usize, blk: &Block) {
        for patch in blk.patches.iter().filter(|p| p.kind == BoundaryKind::Wall) {
            for f in patch.start..patch.end {
                let [n0, n1] = face_edge_nodes(blk, patch.face, f);
                for (here, other) in [(n0, n1), (n1, n0)] {
                    let off = off_wall_node(blk, patch.face, here);
                    let (p, q, r) = (point(blk, here.0, here.1), point(blk, other.0, other.1), point(blk, off.0, off.1));
                    let theta = angle_deg(sub(q, p), sub(r, p));
                    let orth = theta.min(180.0 - theta);
                    if self.min_wall_orthogonality_deg.is_none_or(|m| orth < m) {
                        self.min_wall_orthogonality_deg = Some(orth);
                        let cell = inner_cell(blk, b, patch.face, f, 1);
                        self.worst.min_wall_orthogonality = Some(CellLocation { block: b, i: cell.i as usize, j: cell.j as usize });
                    }
                    let h = norm(sub(r, p));
                    self.min_first_cell_height = min_opt(self.min_first_cell_height, h);
                    self.max_first_cell_height = max_opt(self.max_first_cell_height, h);
                }
            }
        }
    }

    fn add_connections(&mut self, mesh: &Mesh, volumes: &[Vec<f64>], shapes: &[Vec<CellShape>], corners: &[Vec<bool>]) {
        let normal_extent = |b: usize, face: Face, cell: usize| match face {
            Face::IMin | Face::IMax => shapes[b][cell].i_extent,
            Face::JMin | Face::JMax => shapes[b][cell].j_extent,
        };
        for (b, blk) in mesh.blocks.iter().enumerate() {
            for patch in &blk.patches {
                let BoundaryKind::Interface(conn) = &patch.kind else { continue };
                let donor = &mesh.blocks[conn.donor_block];
                let t = conn.translation;
                for f in patch.start..patch.end {
                    let m = donor_offset(patch, conn, f);
                    let here = inner_cell(blk, b, patch.face, f, 1);
                    let there = inner_cell(donor, conn.donor_block, conn.donor_face, m, 1);
                    let c = blk.cell(here.i as usize, here.j as usize);
                    let d = donor.cell(there.i as usize, there.j as usize);
                    let (vc, vd) = (volumes[b][c], volumes[conn.donor_block][d]);
                    let at = CellLocation { block: b, i: here.i as usize, j: here.j as usize };
                    raise(&mut self.max_volume_ratio, &mut self.worst.max_volume_ratio, ratio(vc, vd), at);
                    let g = ratio(normal_extent(b, patch.face, c), normal_extent(conn.donor_block, conn.donor_face, d));
                    self.add_growth(g, corners[b][c] || corners[conn.donor_block][d], at);

                    for (nf, nm) in node_partners(patch, conn, f) {
                        let (pi, pj) = face_node(blk, patch.face, nf);
                        let (qi, qj) = face_node(donor, conn.donor_face, nm);
                        let p = point(blk, pi, pj);
                        let q = point(donor, qi, qj);
                        let miss = norm([p[0] - q[0] - t[0], p[1] - q[1] - t[1]]);
                        if conn.is_periodic() {
                            self.max_periodic_mismatch = max_opt(self.max_periodic_mismatch, miss);
                        } else {
                            self.max_one_to_one_mismatch = max_opt(self.max_one_to_one_mismatch, miss);
                        }
                    }
                }
            }
        }
    }
}

/// The node one step off the wall along the grid line through wall node `n`.
fn off_wall_node(blk: &Block, face: Face, n: (usize, usize)) -> (usize, usize) {
    match face {
        Face::IMin => (1, n.1),
        Face::IMax => (blk.ni - 1, n.1),
        Face::JMin => (n.0, 1),
        Face::JMax => (n.0, blk.nj - 1),
    }
}

impl fmt::Display for QualityReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |v: Option<f64>, prec: usize| v.map_or("-".to_string(), |x| format!("{x:.prec$}"));
        let opt_e = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.3e}"));
        let at = |l: Option<CellLocation>| l.map_or(String::new(), |l| format!("  at {l}"));
        let w = &self.worst;
        writeln!(f, "mesh quality: {} blocks, {} cells", self.blocks, self.cells)?;
        writeln!(
            f,
            "  cell volume             {:.3e} .. {:.3e} m^2 ({} non-positive){}",
            self.min_volume,
            self.max_volume,
            self.non_positive_volumes,
            at(w.min_volume)
        )?;
        writeln!(f, "  max volume ratio        {:.3}{}", self.max_volume_ratio, at(w.max_volume_ratio))?;
        writeln!(f, "  max growth ratio        {:.3}{} ({:.3} away from block corners{})", self.max_growth_ratio, at(w.max_growth_ratio), self.max_growth_ratio_away_from_corners, at(w.max_growth_ratio_away_from_corners))?;
        writeln!(f, "  min orthogonality       {:.2} deg{}", self.min_orthogonality_deg, at(w.min_orthogonality))?;
        writeln!(f, "  min wall orthogonality  {} deg{}", opt(self.min_wall_orthogonality_deg, 2), at(w.min_wall_orthogonality))?;
        writeln!(f, "  max skewness            {:.3}{}", self.max_skewness, at(w.max_skewness))?;
        writeln!(f, "  max aspect ratio        {:.1}{}", self.max_aspect_ratio, at(w.max_aspect_ratio))?;
        writeln!(f, "  first cell height       {} .. {} m", opt_e(self.min_first_cell_height), opt_e(self.max_first_cell_height))?;
        writeln!(f, "  first cell y+ estimate  {}", opt(self.first_cell_yplus_estimate, 2))?;
        writeln!(f, "  periodic mismatch       {} m", opt_e(self.max_periodic_mismatch))?;
        write!(f, "  1-to-1 mismatch         {} m", opt_e(self.max_one_to_one_mismatch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(max_skewness: f64, max_growth_ratio: f64) -> QualitySummary {
        QualitySummary { cells: 100, max_skewness, max_growth_ratio, max_growth_ratio_at_corners: 1.4, min_wall_orthogonality_deg: 85.0, max_volume_ratio: 10.0 }
    }

    /// A mesh within every bound falls short by nothing; one with a nearly degenerate cell is
    /// worse than any without; otherwise one that misses more bounds is worse than one that
    /// misses fewer, and of two that miss the same bounds the one further out is worse.
    #[test]
    fn shortfall_orders_meshes() {
        let bounds = QualityBounds::default();
        assert_eq!(summary(0.7, 1.2).shortfall(&bounds), (false, 0, 0.0));
        let skewed = summary(0.9, 1.2).shortfall(&bounds);
        assert_eq!((skewed.0, skewed.1), (false, 1));
        assert!((skewed.2 - 0.125).abs() < 1e-12, "{skewed:?}");
        assert!(summary(0.92, 1.2).shortfall(&bounds) > skewed);
        assert!(summary(0.85, 1.4).shortfall(&bounds) > summary(0.9, 1.2).shortfall(&bounds));
        assert!(summary(0.99, 1.2).shortfall(&bounds) > summary(0.85, 1.4).shortfall(&bounds));
    }
}
