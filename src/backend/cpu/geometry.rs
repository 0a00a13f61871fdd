//! Metrics, boundary descriptors and interface donor tables of the CPU backend.
//!
//! Face vectors follow the cell-centred finite-volume convention of Blazek ch. 4: the i-face at
//! node line `i` runs from node `(i, j)` to node `(i, j+1)` and its vector `S = (dy, -dx)`
//! points towards increasing i; the j-face at node line `j` runs from `(i, j)` to `(i+1, j)`
//! with `S = (-dy, dx)` pointing towards increasing j. Their length is the face area (per unit
//! depth). Cell volumes are quadrilateral areas (shoelace formula); a block whose cells have
//! non-positive area (left-handed or folded) is rejected.

use crate::backend::layout::BlockLayout;
use crate::mesh::{Block, BoundaryKind, Face, Mesh};
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
        let blocks = mesh
            .blocks
            .iter()
            .enumerate()
            .map(|(b, block)| block_geometry(mesh, b, block))
            .collect::<Result<Vec<_>>>()?;
        Ok(CpuGeometry { blocks })
    }
}

fn block_geometry(mesh: &Mesh, b: usize, block: &Block) -> Result<BlockGeometry> {
    let (ni, nj) = (block.ni, block.nj);
    if ni == 0 || nj == 0 {
        return Err(Error::Mesh(format!("block {b} ('{}') has no cells", block.name)));
    }
    let n_nodes = (ni + 1) * (nj + 1);
    if block.x.len() != n_nodes || block.y.len() != n_nodes {
        return Err(Error::Mesh(format!(
            "block {b} ('{}'): {} x / {} y coordinates for {n_nodes} nodes",
            block.name,
            block.x.len(),
            block.y.len()
        )));
    }
    let layout = BlockLayout { ni, nj };
    let p = |i: usize, j: usize| [block.x[block.node(i, j)], block.y[block.node(i, j)]];

    let mut volume = vec![0.0; ni * nj];
    for j in 0..nj {
        for i in 0..ni {
            let (a, bb, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            // Shoelace over the diagonals: area = 1/2 (AC x BD).
            let area = 0.5 * ((c[0] - a[0]) * (d[1] - bb[1]) - (c[1] - a[1]) * (d[0] - bb[0]));
            if !(area > 0.0) {
                return Err(Error::Mesh(format!(
                    "block {b} ('{}'): cell ({i}, {j}) has non-positive area {area:e} (left-handed or folded)",
                    block.name
                )));
            }
            volume[i + ni * j] = area;
        }
    }
    let mut si = vec![[0.0; 2]; (ni + 1) * nj];
    for j in 0..nj {
        for i in 0..=ni {
            let (a, c) = (p(i, j), p(i, j + 1));
            si[layout.i_face(i, j)] = [c[1] - a[1], -(c[0] - a[0])];
        }
    }
    let mut sj = vec![[0.0; 2]; ni * (nj + 1)];
    for j in 0..=nj {
        for i in 0..ni {
            let (a, c) = (p(i, j), p(i + 1, j));
            sj[layout.j_face(i, j)] = [-(c[1] - a[1]), c[0] - a[0]];
        }
    }

    let mut geometry = BlockGeometry {
        layout,
        volume,
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
            BoundaryKind::Interface(conn) => {
                add_donors(mesh, b, block, patch.face, patch.start, patch.end, conn, &mut geometry.donors)?;
                continue;
            }
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

#[allow(clippy::too_many_arguments)]
fn add_donors(
    mesh: &Mesh,
    b: usize,
    block: &Block,
    face: Face,
    start: usize,
    end: usize,
    conn: &crate::mesh::Connection,
    donors: &mut Vec<DonorEntry>,
) -> Result<()> {
    let donor_block = mesh.blocks.get(conn.donor_block).ok_or_else(|| {
        Error::Mesh(format!("block {b} ('{}'): interface donor block {} does not exist", block.name, conn.donor_block))
    })?;
    let donor_len = donor_block.face_len(conn.donor_face);
    let len = end - start;
    if conn.donor_start + len > donor_len {
        return Err(Error::Mesh(format!(
            "block {b} ('{}'): interface on {face:?} needs donor cells [{}, {}) of face {:?} of block {} which has {donor_len}",
            block.name,
            conn.donor_start,
            conn.donor_start + len,
            conn.donor_face,
            conn.donor_block
        )));
    }
    let layout = BlockLayout { ni: block.ni, nj: block.nj };
    let donor_layout = BlockLayout { ni: donor_block.ni, nj: donor_block.nj };
    let donor_depth_max = match conn.donor_face {
        Face::IMin | Face::IMax => donor_block.ni,
        Face::JMin | Face::JMax => donor_block.nj,
    };
    for k in start..end {
        let offset = if conn.reversed { len - 1 - (k - start) } else { k - start };
        let m = conn.donor_start + offset;
        for d in 1..=2 {
            let (gi, gj) = cell_at_depth(&layout, face, k, d, false);
            // A donor block thinner than two cells wraps onto its own first layer.
            let (di, dj) = cell_at_depth(&donor_layout, conn.donor_face, m, d.min(donor_depth_max), true);
            donors.push(DonorEntry { ghost: layout.idx(gi, gj), donor_block: conn.donor_block, donor: donor_layout.idx(di, dj) });
        }
    }
    Ok(())
}
