//! Finite-volume metrics of a multi-block mesh: cell volumes (areas per unit span), cell
//! centroids, face area vectors and the wall distance of every cell.
//!
//! Face conventions (Blazek 2005, section 4.2.1, cell-centred scheme in 2D):
//! - an **i-face** `(i, j)`, `i in 0..=ni`, `j in 0..nj`, joins nodes `(i, j)` and `(i, j+1)`;
//!   it is stored at `i + (ni+1) j` and its area vector `S = (dy, -dx)` (with `d` the edge
//!   vector from node `(i, j)` to `(i, j+1)`) points towards +i;
//! - a **j-face** `(i, j)`, `i in 0..ni`, `j in 0..=nj`, joins nodes `(i, j)` and `(i+1, j)`;
//!   it is stored at `i + ni j` and `S = (-dy, dx)` points towards +j;
//! - `|S|` is the face length (area per unit span).
//!
//! "Pointing +i" holds for right-handed blocks (i, j counter-clockwise, positive volumes),
//! which every block of a valid mesh is; a left-handed block shows up as negative volumes
//! (see [`crate::mesh::quality`]). With these signs the outward normals of cell `(i, j)` are
//! `+S_i(i+1, j)`, `-S_i(i, j)`, `+S_j(i, j+1)`, `-S_j(i, j)`, and their sum vanishes exactly
//! up to round-off (the edge vectors of a closed polygon telescope).

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::mesh::{Block, BoundaryKind, Face, Mesh};

/// Metrics of one block; arrays are i fastest like [`Block`].
#[derive(Clone, Debug, PartialEq)]
pub struct BlockMetrics {
    /// Cells in i and j, as in the block.
    pub ni: usize,
    pub nj: usize,
    /// Signed cell area [m^2] (volume per unit span), `ni*nj`; positive for right-handed cells.
    pub volume: Vec<f64>,
    /// Cell centroid \[m\], `ni*nj`.
    pub centre_x: Vec<f64>,
    pub centre_y: Vec<f64>,
    /// i-face area vectors \[m\], `(ni+1)*nj`, index `i + (ni+1) j`, pointing +i.
    pub i_face_x: Vec<f64>,
    pub i_face_y: Vec<f64>,
    /// j-face area vectors \[m\], `ni*(nj+1)`, index `i + ni j`, pointing +j.
    pub j_face_x: Vec<f64>,
    pub j_face_y: Vec<f64>,
    /// Distance \[m\] from the cell centroid to the nearest no-slip wall face of the whole mesh
    /// (`f64::INFINITY` when the mesh has no [`BoundaryKind::Wall`]).
    pub wall_distance: Vec<f64>,
    /// Unit vector from the nearest wall point to the cell centroid: the gradient of the wall
    /// distance, the wall-normal direction of the transition model's pressure-gradient
    /// parameter (`flow::intermittency`). Zero without walls or on a wall point.
    pub wall_normal: Vec<[f64; 2]>,
}

impl BlockMetrics {
    /// Index of i-face `(i, j)`.
    #[inline]
    pub fn i_face(&self, i: usize, j: usize) -> usize {
        i + (self.ni + 1) * j
    }
    /// Index of j-face `(i, j)`.
    #[inline]
    pub fn j_face(&self, i: usize, j: usize) -> usize {
        i + self.ni * j
    }
    /// Index of cell `(i, j)`.
    #[inline]
    pub fn cell(&self, i: usize, j: usize) -> usize {
        i + self.ni * j
    }
}

/// Metrics of every block of a mesh, in block order.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshMetrics {
    /// One entry per block of the mesh.
    pub blocks: Vec<BlockMetrics>,
}

impl MeshMetrics {
    /// Compute volumes, centroids, face vectors and wall distances.
    ///
    /// Fails (with the block named) when a block's coordinate arrays do not have
    /// `(ni+1)*(nj+1)` entries, when a block has no cells, or a patch runs off its face.
    pub fn new(mesh: &Mesh) -> Result<Self> {
        for (b, block) in mesh.blocks.iter().enumerate() {
            check_block_shape(b, block)?;
        }
        let walls = wall_segments(mesh);
        let blocks = mesh
            .blocks
            .iter()
            .map(|block| {
                let mut m = block_geometry(block);
                (m.wall_distance, m.wall_normal) = wall_distance_and_normal(&m.centre_x, &m.centre_y, &walls);
                m
            })
            .collect();
        Ok(MeshMetrics { blocks })
    }

    /// Sum of all cell volumes [m^2].
    pub fn total_volume(&self) -> f64 {
        self.blocks.iter().map(|b| b.volume.iter().sum::<f64>()).sum()
    }
}

/// Check array lengths and patch ranges of block `b` (index used in the message).
pub(crate) fn check_block_shape(b: usize, block: &Block) -> Result<()> {
    let name = &block.name;
    if block.ni == 0 || block.nj == 0 {
        return Err(Error::Mesh(format!("block {b} ({name}) has no cells: {} x {}", block.ni, block.nj)));
    }
    let nodes = (block.ni + 1) * (block.nj + 1);
    if block.x.len() != nodes || block.y.len() != nodes {
        return Err(Error::Mesh(format!(
            "block {b} ({name}): {} x {} cells need {nodes} node coordinates, got x: {}, y: {}",
            block.ni,
            block.nj,
            block.x.len(),
            block.y.len()
        )));
    }
    if let Some(k) = block.x.iter().chain(&block.y).position(|v| !v.is_finite()) {
        return Err(Error::Mesh(format!("block {b} ({name}): non-finite node coordinate at entry {k}")));
    }
    for (p, patch) in block.patches.iter().enumerate() {
        let len = block.face_len(patch.face);
        if patch.start >= patch.end || patch.end > len {
            return Err(Error::Mesh(format!(
                "block {b} ({name}) patch {p} on {:?}: range {}..{} is empty or runs off the face ({len} cells)",
                patch.face, patch.start, patch.end
            )));
        }
    }
    Ok(())
}

/// Node indices `(i, j)` at the two ends of the `k`-th cell edge along `face`, in increasing
/// face offset.
pub(crate) fn face_edge_nodes(block: &Block, face: Face, k: usize) -> [(usize, usize); 2] {
    match face {
        Face::IMin => [(0, k), (0, k + 1)],
        Face::IMax => [(block.ni, k), (block.ni, k + 1)],
        Face::JMin => [(k, 0), (k + 1, 0)],
        Face::JMax => [(k, block.nj), (k + 1, block.nj)],
    }
}

/// Node `(i, j)` of `face` at node offset `m` (0..=face_len) along the face.
pub(crate) fn face_node(block: &Block, face: Face, m: usize) -> (usize, usize) {
    match face {
        Face::IMin => (0, m),
        Face::IMax => (block.ni, m),
        Face::JMin => (m, 0),
        Face::JMax => (m, block.nj),
    }
}

fn block_geometry(block: &Block) -> BlockMetrics {
    let (ni, nj) = (block.ni, block.nj);
    let p = |i: usize, j: usize| [block.x[block.node(i, j)], block.y[block.node(i, j)]];

    let mut volume = Vec::with_capacity(ni * nj);
    let mut centre_x = Vec::with_capacity(ni * nj);
    let mut centre_y = Vec::with_capacity(ni * nj);
    for j in 0..nj {
        for i in 0..ni {
            let (area, c) = quad_area_centroid(p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            volume.push(area);
            centre_x.push(c[0]);
            centre_y.push(c[1]);
        }
    }

    let mut i_face_x = Vec::with_capacity((ni + 1) * nj);
    let mut i_face_y = Vec::with_capacity((ni + 1) * nj);
    for j in 0..nj {
        for i in 0..=ni {
            let (a, b) = (p(i, j), p(i, j + 1));
            i_face_x.push(b[1] - a[1]);
            i_face_y.push(-(b[0] - a[0]));
        }
    }
    let mut j_face_x = Vec::with_capacity(ni * (nj + 1));
    let mut j_face_y = Vec::with_capacity(ni * (nj + 1));
    for j in 0..=nj {
        for i in 0..ni {
            let (a, b) = (p(i, j), p(i + 1, j));
            j_face_x.push(-(b[1] - a[1]));
            j_face_y.push(b[0] - a[0]);
        }
    }
    BlockMetrics {
        ni,
        nj,
        volume,
        centre_x,
        centre_y,
        i_face_x,
        i_face_y,
        j_face_x,
        j_face_y,
        wall_distance: Vec::new(),
        wall_normal: Vec::new(),
    }
}

/// Signed area and centroid of the quadrilateral a-b-c-d (counter-clockwise = positive).
///
/// Area from the cross product of the diagonals (Blazek eq. 5.13); the centroid is the
/// area-weighted mean of the triangles a-b-c and a-c-d, falling back to the mean of the four
/// nodes for a degenerate (zero-area) cell, where the centroid is undefined.
pub fn quad_area_centroid(a: [f64; 2], b: [f64; 2], c: [f64; 2], d: [f64; 2]) -> (f64, [f64; 2]) {
    let area = 0.5 * ((c[0] - a[0]) * (d[1] - b[1]) - (d[0] - b[0]) * (c[1] - a[1]));
    let tri = |p: [f64; 2], q: [f64; 2], r: [f64; 2]| 0.5 * ((q[0] - p[0]) * (r[1] - p[1]) - (r[0] - p[0]) * (q[1] - p[1]));
    let a1 = tri(a, b, c);
    let a2 = tri(a, c, d);
    let mean = [0.25 * (a[0] + b[0] + c[0] + d[0]), 0.25 * (a[1] + b[1] + c[1] + d[1])];
    let scale = (c[0] - a[0]).hypot(c[1] - a[1]).max((d[0] - b[0]).hypot(d[1] - b[1]));
    if (a1 + a2).abs() <= 1e-12 * scale * scale {
        return (area, mean);
    }
    let c1 = [(a[0] + b[0] + c[0]) / 3.0, (a[1] + b[1] + c[1]) / 3.0];
    let c2 = [(a[0] + c[0] + d[0]) / 3.0, (a[1] + c[1] + d[1]) / 3.0];
    let centroid = [(a1 * c1[0] + a2 * c2[0]) / (a1 + a2), (a1 * c1[1] + a2 * c2[1]) / (a1 + a2)];
    (area, centroid)
}

/// All no-slip wall faces of the mesh as segments `[x0, y0, x1, y1]`.
pub fn wall_segments(mesh: &Mesh) -> Vec<[f64; 4]> {
    let mut segs = Vec::new();
    for block in &mesh.blocks {
        for patch in block.patches.iter().filter(|p| p.kind == BoundaryKind::Wall) {
            for k in patch.start..patch.end {
                let [(i0, j0), (i1, j1)] = face_edge_nodes(block, patch.face, k);
                let (n0, n1) = (block.node(i0, j0), block.node(i1, j1));
                segs.push([block.x[n0], block.y[n0], block.x[n1], block.y[n1]]);
            }
        }
    }
    segs
}

/// Exact distance from point `p` to segment `s`.
pub fn point_segment_distance(p: [f64; 2], s: &[f64; 4]) -> f64 {
    point_segment_distance_squared(p, s).sqrt()
}

/// The point of segment `s` nearest to `p`.
fn segment_point(p: [f64; 2], s: &[f64; 4]) -> [f64; 2] {
    let (dx, dy) = (s[2] - s[0], s[3] - s[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((p[0] - s[0]) * dx + (p[1] - s[1]) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    [s[0] + t * dx, s[1] + t * dy]
}

fn point_segment_distance_squared(p: [f64; 2], s: &[f64; 4]) -> f64 {
    let (dx, dy) = (s[2] - s[0], s[3] - s[1]);
    let (px, py) = (p[0] - s[0], p[1] - s[1]);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { ((px * dx + py * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let (ex, ey) = (px - t * dx, py - t * dy);
    ex * ex + ey * ey
}

/// Minimum distance from each point to any wall segment, rayon-parallel over the points.
///
/// Exact (the same point-segment distance as a brute-force scan, minimised over every
/// segment), but with the segments in a bounding-box tree so that each query visits a few
/// leaves instead of all wall faces.
/// The unit normals are (p - nearest wall point) / distance.
fn wall_distance_and_normal(xs: &[f64], ys: &[f64], walls: &[[f64; 4]]) -> (Vec<f64>, Vec<[f64; 2]>) {
    let tree = WallTree::new(walls.to_vec());
    xs.par_iter()
        .zip(ys.par_iter())
        .map(|(&x, &y)| match tree.nearest([x, y]) {
            Some((d2, q)) => {
                let (dx, dy) = (x - q[0], y - q[1]);
                let length = (dx * dx + dy * dy).sqrt();
                (d2.sqrt(), if length > 0.0 { [dx / length, dy / length] } else { [0.0, 0.0] })
            }
            None => (f64::INFINITY, [0.0, 0.0]),
        })
        .unzip()
}

/// Brute-force reference of the wall distance of one point (tests compare the tree with it).
pub fn wall_distance_brute_force(p: [f64; 2], walls: &[[f64; 4]]) -> f64 {
    walls.iter().map(|s| point_segment_distance_squared(p, s)).fold(f64::INFINITY, f64::min).sqrt()
}

/// Segments per tree leaf.
const LEAF_SEGMENTS: usize = 8;

/// A node of the bounding-box tree: a box `[xmin, ymin, xmax, ymax]` and either two children or
/// a range of (reordered) segments.
struct TreeNode {
    bbox: [f64; 4],
    children: Option<[usize; 2]>,
    segments: std::ops::Range<usize>,
}

/// Bounding-box hierarchy over wall segments, split at the median along the longer side.
pub struct WallTree {
    segments: Vec<[f64; 4]>,
    nodes: Vec<TreeNode>,
}

impl WallTree {
    /// Build the tree (segments `[x0, y0, x1, y1]`).
    pub fn new(mut segments: Vec<[f64; 4]>) -> Self {
        let mut nodes = Vec::new();
        if !segments.is_empty() {
            let n = segments.len();
            build_node(&mut segments, 0..n, &mut nodes);
        }
        WallTree { segments, nodes }
    }

    /// Squared distance from `p` to the nearest segment (infinite without segments).
    pub fn nearest_squared(&self, p: [f64; 2]) -> f64 {
        self.nearest(p).map_or(f64::INFINITY, |(d2, _)| d2)
    }

    /// The squared distance from `p` to the nearest segment and that segment's point nearest to
    /// `p` (`None` without segments).
    pub fn nearest(&self, p: [f64; 2]) -> Option<(f64, [f64; 2])> {
        let mut best = f64::INFINITY;
        let mut nearest = None;
        if self.nodes.is_empty() {
            return None;
        }
        let mut stack = vec![0usize];
        while let Some(k) = stack.pop() {
            let node = &self.nodes[k];
            if box_distance_squared(p, &node.bbox) >= best {
                continue;
            }
            match node.children {
                None => {
                    for s in &self.segments[node.segments.clone()] {
                        let d = point_segment_distance_squared(p, s);
                        if d < best {
                            best = d;
                            nearest = Some(s);
                        }
                    }
                }
                Some([a, b]) => {
                    // Visit the nearer child first (pushed last) so `best` shrinks early.
                    let (da, db) = (box_distance_squared(p, &self.nodes[a].bbox), box_distance_squared(p, &self.nodes[b].bbox));
                    if da <= db {
                        stack.extend([b, a]);
                    } else {
                        stack.extend([a, b]);
                    }
                }
            }
        }
        nearest.map(|s| (best, segment_point(p, s)))
    }
}

fn build_node(segs: &mut [[f64; 4]], range: std::ops::Range<usize>, nodes: &mut Vec<TreeNode>) -> usize {
    let mut bbox = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for s in &segs[range.clone()] {
        bbox = [bbox[0].min(s[0]).min(s[2]), bbox[1].min(s[1]).min(s[3]), bbox[2].max(s[0]).max(s[2]), bbox[3].max(s[1]).max(s[3])];
    }
    let k = nodes.len();
    nodes.push(TreeNode { bbox, children: None, segments: range.clone() });
    if range.len() > LEAF_SEGMENTS {
        let axis = if bbox[2] - bbox[0] >= bbox[3] - bbox[1] { 0 } else { 1 };
        let mid = range.len() / 2;
        let centre = |s: &[f64; 4]| s[axis] + s[axis + 2];
        segs[range.clone()].select_nth_unstable_by(mid, |a, b| centre(a).total_cmp(&centre(b)));
        let left = build_node(segs, range.start..range.start + mid, nodes);
        let right = build_node(segs, range.start + mid..range.end, nodes);
        nodes[k].children = Some([left, right]);
    }
    k
}

/// Squared distance from `p` to the box (0 inside).
fn box_distance_squared(p: [f64; 2], b: &[f64; 4]) -> f64 {
    let dx = (b[0] - p[0]).max(0.0).max(p[0] - b[2]);
    let dy = (b[1] - p[1]).max(0.0).max(p[1] - b[3]);
    dx * dx + dy * dy
}
