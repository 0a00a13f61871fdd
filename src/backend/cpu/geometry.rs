//! Metrics, boundary descriptors and interface donor tables of the CPU backend.
//!
//! Volumes, centroids, face vectors and wall distances come from `mesh::metrics` (i-face
//! vectors point towards +i, j-face vectors towards +j); interface donor tables from
//! `mesh::connect::GhostExchange`, re-indexed into this backend's per-block padded arrays. A
//! block whose cells have non-positive area (left-handed or folded) is rejected.

use crate::backend::layout::BlockLayout;
use crate::mesh::connect::GhostExchange;
use crate::mesh::metrics::{BlockMetrics, MeshMetrics};
use crate::mesh::{Block, BoundaryKind, Face, Mesh};
use crate::flow::viscous::diamond_lift;
use crate::{Error, Result};

/// Physical boundary conditions the ghost-cell fill knows about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhysicalBc {
    /// Adiabatic no-slip wall: mirrored ghosts with reversed velocity.
    Wall,
    /// Slip wall / symmetry: mirrored ghosts with reflected normal velocity.
    SlipWall,
    /// Inlet: subsonic characteristic (P0, T0, direction) or supersonic.
    Inlet,
    /// Outlet: subsonic characteristic (p2) or supersonic extrapolation.
    Outlet,
}

/// One boundary cell of a physical patch: its two ghosts (depth 1, 2), the two interior cells
/// mirrored by them, and the outward unit normal of the boundary face.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoundaryCell {
    pub ghost: [usize; 2],
    pub interior: [usize; 2],
    pub normal: [f64; 2],
}

/// A physical patch as the ghost fill sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct BoundaryPatch {
    pub kind: PhysicalBc,
    pub cells: Vec<BoundaryCell>,
}

/// One ghost cell filled from a donor cell (interface lookup table, thesis 4.2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DonorEntry {
    pub ghost: usize,
    pub donor_block: usize,
    pub donor: usize,
}

/// Geometry of one block.
#[derive(Clone, Debug)]
pub struct BlockGeometry {
    pub layout: BlockLayout,
    /// Cell volumes (areas), interior cells, `i + ni*j`.
    pub volume: Vec<f64>,
    /// Cell centroids, interior cells.
    pub centre: Vec<[f64; 2]>,
    /// Cell centroids in the padded layout: interior cells and the first ghost layer (mirror
    /// images of the adjacent interior centroids across the boundary face), used by the
    /// auxiliary control volumes of the viscous face gradients. Other ghosts hold zeros.
    pub centre_padded: Vec<[f64; 2]>,
    /// How far the viscous face gradients' diamond moves its two centres apart along the face
    /// normal (`flow::viscous::diamond_lift`), per i-face and per j-face; zero on most faces.
    pub diamond_lift_i: Vec<f64>,
    pub diamond_lift_j: Vec<f64>,
    /// Node coordinates, `(ni+1)*(nj+1)`, i fastest (as `mesh::Block`).
    pub nodes: Vec<[f64; 2]>,
    /// Distance from each cell centroid to the nearest no-slip wall (infinite without walls).
    pub wall_distance: Vec<f64>,
    /// Unit wall normal at each cell centroid (`mesh::metrics::BlockMetrics::wall_normal`).
    pub wall_normal: Vec<[f64; 2]>,
    /// i-face vectors, `(ni+1)*nj`.
    pub si: Vec<[f64; 2]>,
    /// j-face vectors, `ni*(nj+1)`.
    pub sj: Vec<[f64; 2]>,
    /// True for i-faces on wall / slip-wall / symmetry patches (pressure-only flux).
    pub wall_i: Vec<bool>,
    /// True for j-faces on wall / slip-wall / symmetry patches.
    pub wall_j: Vec<bool>,
    pub boundaries: Vec<BoundaryPatch>,
    pub donors: Vec<DonorEntry>,
}

/// Geometry of the whole mesh as resident in the CPU backend.
#[derive(Clone, Debug)]
pub struct CpuGeometry {
    pub blocks: Vec<BlockGeometry>,
}

impl CpuGeometry {
    pub fn from_mesh(mesh: &Mesh) -> Result<Self> {
        if mesh.blocks.is_empty() {
            return Err(Error::Mesh("mesh has no blocks".into()));
        }
        let metrics = MeshMetrics::new(mesh)?;
        let exchange = GhostExchange::new(mesh)?;
        let mut blocks = mesh
            .blocks
            .iter()
            .zip(&metrics.blocks)
            .enumerate()
            .map(|(b, (block, m))| block_geometry(b, block, m))
            .collect::<Result<Vec<_>>>()?;
        for (g, d) in exchange.ghost_cell.iter().zip(&exchange.donor_cell) {
            let donor = blocks[d.block].layout.idx(d.i, d.j);
            let target = &mut blocks[g.block];
            let ghost = target.layout.idx(g.i, g.j);
            target.donors.push(DonorEntry { ghost, donor_block: d.block, donor });
        }
        Ok(CpuGeometry { blocks })
    }
}

fn block_geometry(b: usize, block: &Block, m: &BlockMetrics) -> Result<BlockGeometry> {
    let (ni, nj) = (block.ni, block.nj);
    let layout = BlockLayout { ni, nj };
    if let Some(c) = m.volume.iter().position(|v| !(*v > 0.0)) {
        return Err(Error::Mesh(format!(
            "block {b} ('{}'): cell ({}, {}) has non-positive area {:e} (left-handed or folded)",
            block.name,
            c % ni,
            c / ni,
            m.volume[c]
        )));
    }
    let volume = m.volume.clone();
    let centre: Vec<[f64; 2]> = m.centre_x.iter().zip(&m.centre_y).map(|(x, y)| [*x, *y]).collect();
    let si: Vec<[f64; 2]> = m.i_face_x.iter().zip(&m.i_face_y).map(|(x, y)| [*x, *y]).collect();
    let sj: Vec<[f64; 2]> = m.j_face_x.iter().zip(&m.j_face_y).map(|(x, y)| [*x, *y]).collect();

    let centre_padded = padded_centres(block, layout, &centre);
    let (diamond_lift_i, diamond_lift_j) = diamond_lifts(layout, &centre_padded, &volume, &si, &sj);
    let mut geometry = BlockGeometry {
        layout,
        volume,
        centre_padded,
        diamond_lift_i,
        diamond_lift_j,
        nodes: block.x.iter().zip(&block.y).map(|(x, y)| [*x, *y]).collect(),
        centre,
        wall_distance: m.wall_distance.clone(),
        wall_normal: m.wall_normal.clone(),
        si,
        sj,
        wall_i: vec![false; (ni + 1) * nj],
        wall_j: vec![false; ni * (nj + 1)],
        boundaries: Vec::new(),
        donors: Vec::new(),
    };
    let mut covered = [vec![false; nj], vec![false; nj], vec![false; ni], vec![false; ni]];
    for patch in &block.patches {
        let len = block.face_len(patch.face);
        if patch.start >= patch.end || patch.end > len {
            return Err(Error::Mesh(format!(
                "block {b} ('{}'): patch {:?} [{}, {}) outside face length {len}",
                block.name, patch.face, patch.start, patch.end
            )));
        }
        let cover = &mut covered[face_slot(patch.face)];
        for k in patch.start..patch.end {
            if cover[k] {
                return Err(Error::Mesh(format!("block {b} ('{}'): cell {k} of face {:?} is on two patches", block.name, patch.face)));
            }
            cover[k] = true;
        }
        let physical = match &patch.kind {
            BoundaryKind::Wall => PhysicalBc::Wall,
            BoundaryKind::InviscidWall | BoundaryKind::Symmetry => PhysicalBc::SlipWall,
            BoundaryKind::Inlet => PhysicalBc::Inlet,
            BoundaryKind::Outlet => PhysicalBc::Outlet,
            // Filled through the GhostExchange donor tables.
            BoundaryKind::Interface(_) => continue,
        };
        if matches!(physical, PhysicalBc::Wall | PhysicalBc::SlipWall) {
            for k in patch.start..patch.end {
                match patch.face {
                    Face::IMin => geometry.wall_i[layout.i_face(0, k)] = true,
                    Face::IMax => geometry.wall_i[layout.i_face(ni, k)] = true,
                    Face::JMin => geometry.wall_j[layout.j_face(k, 0)] = true,
                    Face::JMax => geometry.wall_j[layout.j_face(k, nj)] = true,
                }
            }
        }
        let cells = (patch.start..patch.end).map(|k| boundary_cell(&geometry, patch.face, k)).collect();
        geometry.boundaries.push(BoundaryPatch { kind: physical, cells });
    }
    for (slot, face) in Face::ALL.iter().enumerate() {
        if let Some(k) = covered[slot].iter().position(|c| !c) {
            return Err(Error::Mesh(format!("block {b} ('{}'): cell {k} of face {face:?} has no boundary patch", block.name)));
        }
    }
    Ok(geometry)
}

fn face_slot(face: Face) -> usize {
    match face {
        Face::IMin => 0,
        Face::IMax => 1,
        Face::JMin => 2,
        Face::JMax => 3,
    }
}

/// Cell at depth `d` (1 = adjacent to the face) inside (`inside = true`) or outside a face,
/// at offset `k` along it, as signed (i, j).
fn cell_at_depth(layout: &BlockLayout, face: Face, k: usize, d: usize, inside: bool) -> (isize, isize) {
    let (ni, nj, k, d) = (layout.ni as isize, layout.nj as isize, k as isize, d as isize);
    let depth = if inside { d - 1 } else { -d };
    match face {
        Face::IMin => (depth, k),
        Face::IMax => (ni - 1 - depth, k),
        Face::JMin => (k, depth),
        Face::JMax => (k, nj - 1 - depth),
    }
}

fn boundary_cell(g: &BlockGeometry, face: Face, k: usize) -> BoundaryCell {
    let l = &g.layout;
    // Interior depth 2 does not exist in a one-cell-wide block: mirror depth 1 twice.
    let depth_max = match face {
        Face::IMin | Face::IMax => l.ni,
        Face::JMin | Face::JMax => l.nj,
    };
    let at = |d: usize, inside: bool| {
        let (i, j) = cell_at_depth(l, face, k, d, inside);
        l.idx(i, j)
    };
    let (s, sign) = match face {
        Face::IMin => (g.si[l.i_face(0, k)], -1.0),
        Face::IMax => (g.si[l.i_face(l.ni, k)], 1.0),
        Face::JMin => (g.sj[l.j_face(k, 0)], -1.0),
        Face::JMax => (g.sj[l.j_face(k, l.nj)], 1.0),
    };
    let area = (s[0] * s[0] + s[1] * s[1]).sqrt();
    BoundaryCell {
        ghost: [at(1, false), at(2, false)],
        interior: [at(1, true), at(2.min(depth_max), true)],
        normal: [sign * s[0] / area, sign * s[1] / area],
    }
}

/// The diamond lifts of every i-face and j-face (`flow::viscous::diamond_lift`); a ghost cell
/// counts with the volume of the interior cell it mirrors.
fn diamond_lifts(l: BlockLayout, centre_padded: &[[f64; 2]], volume: &[f64], si: &[[f64; 2]], sj: &[[f64; 2]]) -> (Vec<f64>, Vec<f64>) {
    let (ni, nj) = (l.ni as isize, l.nj as isize);
    let interior_volume = |i: isize, j: isize| volume[(i.clamp(0, ni - 1) + ni * j.clamp(0, nj - 1)) as usize];
    let lift = |a: (isize, isize), b: (isize, isize), s: [f64; 2]| {
        let volumes = [interior_volume(a.0, a.1), interior_volume(b.0, b.1)];
        diamond_lift(centre_padded[l.idx(a.0, a.1)], centre_padded[l.idx(b.0, b.1)], s, volumes)
    };
    let mut lift_i = vec![0.0; (l.ni + 1) * l.nj];
    for j in 0..nj {
        for i in 0..=ni {
            let f = l.i_face(i as usize, j as usize);
            lift_i[f] = lift((i - 1, j), (i, j), si[f]);
        }
    }
    let mut lift_j = vec![0.0; l.ni * (l.nj + 1)];
    for j in 0..=nj {
        for i in 0..ni {
            let f = l.j_face(i as usize, j as usize);
            lift_j[f] = lift((i, j - 1), (i, j), sj[f]);
        }
    }
    (lift_i, lift_j)
}

/// Interior centroids plus first-layer ghost centroids reflected across their boundary face.
fn padded_centres(block: &Block, l: BlockLayout, centre: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut out = vec![[0.0; 2]; l.n_padded()];
    for j in 0..l.nj {
        for i in 0..l.ni {
            out[l.interior(i, j)] = centre[i + l.ni * j];
        }
    }
    let node = |i: usize, j: usize| [block.x[block.node(i, j)], block.y[block.node(i, j)]];
    for face in Face::ALL {
        for k in 0..block.face_len(face) {
            let (a, b) = match face {
                Face::IMin => (node(0, k), node(0, k + 1)),
                Face::IMax => (node(l.ni, k), node(l.ni, k + 1)),
                Face::JMin => (node(k, 0), node(k + 1, 0)),
                Face::JMax => (node(k, l.nj), node(k + 1, l.nj)),
            };
            let (gi, gj) = cell_at_depth(&l, face, k, 1, false);
            let (ii, ij) = cell_at_depth(&l, face, k, 1, true);
            let c = out[l.idx(ii, ij)];
            let (tx, ty) = (b[0] - a[0], b[1] - a[1]);
            let len = (tx * tx + ty * ty).sqrt();
            let n = [ty / len, -tx / len];
            let dist = (c[0] - a[0]) * n[0] + (c[1] - a[1]) * n[1];
            out[l.idx(gi, gj)] = [c[0] - 2.0 * dist * n[0], c[1] - 2.0 * dist * n[1]];
        }
    }
    out
}
