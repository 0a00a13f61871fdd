//! Block connections: topology validation and the ghost-cell donor lookup tables of the
//! interface exchange (docs/architecture.md, "data layout", thesis section 4.2.4).
//!
//! # Ghost-cell indexing
//!
//! The solver stores every block with [`GHOST_LAYERS`] = 2 layers of ghost cells on every side.
//! Cell `(i, j)` of block `b`, with **signed** indices `i in -2..ni+2`, `j in -2..nj+2`
//! (interior cells are `0..ni x 0..nj`), lives at the padded index
//!
//! ```text
//! offset[b] + (i + 2) + (ni + 4) * (j + 2)
//! ```
//!
//! i fastest, blocks one after the other (`offset[0] = 0`,
//! `offset[b+1] = offset[b] + (ni+4)(nj+4)`): see [`PaddedLayout`].
//!
//! Ghost layers are numbered 1 (touching the face) and 2 (outside it). On face IMin the layer
//! `l` ghost of face cell `j` is `(-l, j)`; on IMax `(ni-1+l, j)`; on JMin `(i, -l)`; on JMax
//! `(i, nj-1+l)`. Across a connection the layer-`l` ghost of face cell `k` takes the value of
//! the donor cell `l - 1` cells inwards from the donor face (layer 1 -> the donor face cell,
//! layer 2 -> the next one), at the donor face offset given by the [`Connection`]. Coordinates
//! of a ghost are the donor's plus the connection translation (periodic); in 2D a translation
//! does not rotate vectors, so every variable is copied unchanged.
//!
//! Corner ghosts (both indices outside the block) are not in the tables: as in the thesis
//! (4.2.4, after Blazek 2005 p. 297) the solver fills them from the block's own ghosts.

use crate::error::{Error, Result};
use crate::mesh::metrics::check_block_shape;
use crate::mesh::{Block, BoundaryKind, Connection, Face, Mesh, Patch};

/// Ghost layers on every side of every block.
pub const GHOST_LAYERS: usize = 2;

/// Check the mesh topology: block arrays, patches in range, every face cell covered by exactly
/// one patch, every connection's donor block/range existing, and every connection matched by
/// the reverse connection on the donor side (same cells, same orientation, opposite translation).
pub fn validate(mesh: &Mesh) -> Result<()> {
    for (b, block) in mesh.blocks.iter().enumerate() {
        check_block_shape(b, block)?;
    }
    for (b, block) in mesh.blocks.iter().enumerate() {
        check_coverage(b, block)?;
    }
    for (b, block) in mesh.blocks.iter().enumerate() {
        for (p, patch) in block.patches.iter().enumerate() {
            if let BoundaryKind::Interface(conn) = &patch.kind {
                check_connection(mesh, b, p, patch, conn)?;
            }
        }
    }
    Ok(())
}

fn check_coverage(b: usize, block: &Block) -> Result<()> {
    for face in Face::ALL {
        let mut owner: Vec<Option<usize>> = vec![None; block.face_len(face)];
        for (p, patch) in block.patches.iter().enumerate().filter(|(_, p)| p.face == face) {
            for (k, slot) in owner.iter_mut().enumerate().take(patch.end).skip(patch.start) {
                if let Some(q) = slot {
                    return Err(Error::Mesh(format!(
                        "block {b} ({}) face {face:?} cell {k} is covered by two patches ({q} and {p})",
                        block.name
                    )));
                }
                *slot = Some(p);
            }
        }
        if let Some(k) = owner.iter().position(Option::is_none) {
            return Err(Error::Mesh(format!(
                "block {b} ({}) face {face:?} cell {k} is not covered by any patch",
                block.name
            )));
        }
    }
    Ok(())
}

/// Donor face offset of the patch cell at face offset `f`.
pub fn donor_offset(patch: &Patch, conn: &Connection, f: usize) -> usize {
    let k = f - patch.start;
    if conn.reversed {
        conn.donor_start + patch.len() - 1 - k
    } else {
        conn.donor_start + k
    }
}

/// Node pairs (node offset along this face, node offset along the donor face) of the patch
/// cell at face offset `f`: nodes f, f+1 face donor nodes m, m+1, swapped when reversed.
pub fn node_partners(patch: &Patch, conn: &Connection, f: usize) -> [(usize, usize); 2] {
    let m = donor_offset(patch, conn, f);
    if conn.reversed {
        [(f, m + 1), (f + 1, m)]
    } else {
        [(f, m), (f + 1, m + 1)]
    }
}

/// The patch of `block` covering face offset `f` of `face` (first match).
pub fn patch_at(block: &Block, face: Face, f: usize) -> Option<&Patch> {
    block.patches.iter().find(|p| p.face == face && p.start <= f && f < p.end)
}

fn check_connection(mesh: &Mesh, b: usize, p: usize, patch: &Patch, conn: &Connection) -> Result<()> {
    let here = format!("block {b} ({}) patch {p} on {:?}", mesh.blocks[b].name, patch.face);
    let Some(donor) = mesh.blocks.get(conn.donor_block) else {
        return Err(Error::Mesh(format!("{here}: donor block {} does not exist ({} blocks)", conn.donor_block, mesh.blocks.len())));
    };
    let donor_len = donor.face_len(conn.donor_face);
    if conn.donor_start + patch.len() > donor_len {
        return Err(Error::Mesh(format!(
            "{here}: {} cells from donor offset {} run off donor block {} face {:?} ({donor_len} cells)",
            patch.len(),
            conn.donor_start,
            conn.donor_block,
            conn.donor_face
        )));
    }
    if !conn.translation.iter().all(|t| t.is_finite()) {
        return Err(Error::Mesh(format!("{here}: non-finite translation {:?}", conn.translation)));
    }
    for f in patch.start..patch.end {
        let m = donor_offset(patch, conn, f);
        if conn.donor_block == b && conn.donor_face == patch.face && m == f {
            return Err(Error::Mesh(format!("{here}: cell {f} is connected to itself")));
        }
        let back = match patch_at(donor, conn.donor_face, m).map(|q| &q.kind) {
            Some(BoundaryKind::Interface(back)) => back,
            other => {
                return Err(Error::Mesh(format!(
                    "{here}: cell {f} faces donor block {} {:?} cell {m}, which is {:?}, not an interface back",
                    conn.donor_block,
                    conn.donor_face,
                    other.map(kind_name).unwrap_or("uncovered")
                )))
            }
        };
        let back_patch = patch_at(donor, conn.donor_face, m).expect("found above");
        let returns = back.donor_block == b && back.donor_face == patch.face && donor_offset(back_patch, back, m) == f;
        if !returns {
            return Err(Error::Mesh(format!(
                "{here}: cell {f} faces donor block {} {:?} cell {m}, whose connection points to block {} {:?} cell {} instead",
                conn.donor_block,
                conn.donor_face,
                back.donor_block,
                back.donor_face,
                donor_offset(back_patch, back, m)
            )));
        }
        if back.reversed != conn.reversed {
            return Err(Error::Mesh(format!("{here}: orientation (reversed = {}) differs from the donor side's", conn.reversed)));
        }
        let scale = 1.0 + conn.translation[0].abs().max(conn.translation[1].abs());
        if (0..2).any(|d| (conn.translation[d] + back.translation[d]).abs() > 1e-12 * scale) {
            return Err(Error::Mesh(format!(
                "{here}: translation {:?} is not the opposite of the donor side's {:?}",
                conn.translation, back.translation
            )));
        }
    }
    Ok(())
}

fn kind_name(kind: &BoundaryKind) -> &'static str {
    match kind {
        BoundaryKind::Wall => "a wall",
        BoundaryKind::InviscidWall => "an inviscid wall",
        BoundaryKind::Symmetry => "a symmetry plane",
        BoundaryKind::Inlet => "an inlet",
        BoundaryKind::Outlet => "an outlet",
        BoundaryKind::Interface(_) => "an interface",
    }
}

/// Where every block's padded array (interior plus two ghost layers) starts in one flat array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaddedLayout {
    /// Interior cells of each block.
    pub ni: Vec<usize>,
    pub nj: Vec<usize>,
    /// Start of each block's padded array; `offset[b+1] = offset[b] + (ni+4)(nj+4)`.
    pub offset: Vec<usize>,
    /// Total padded cells of all blocks.
    pub total: usize,
}

impl PaddedLayout {
    /// The layout of `mesh`'s blocks in block order.
    pub fn new(mesh: &Mesh) -> Self {
        let mut offset = Vec::with_capacity(mesh.blocks.len());
        let mut total = 0;
        for b in &mesh.blocks {
            offset.push(total);
            total += (b.ni + 2 * GHOST_LAYERS) * (b.nj + 2 * GHOST_LAYERS);
        }
        PaddedLayout {
            ni: mesh.blocks.iter().map(|b| b.ni).collect(),
            nj: mesh.blocks.iter().map(|b| b.nj).collect(),
            offset,
            total,
        }
    }

    /// Padded index of cell `(i, j)` of block `b`, `i in -2..ni+2`, `j in -2..nj+2`
    /// (debug-asserted).
    #[inline]
    pub fn index(&self, b: usize, i: isize, j: isize) -> usize {
        let g = GHOST_LAYERS as isize;
        debug_assert!(i >= -g && i < self.ni[b] as isize + g && j >= -g && j < self.nj[b] as isize + g);
        self.offset[b] + (i + g) as usize + (self.ni[b] + 2 * GHOST_LAYERS) * (j + g) as usize
    }
}

/// A cell of a block, by signed indices (ghosts have an index outside `0..ni` or `0..nj`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CellRef {
    /// Block index in the mesh.
    pub block: usize,
    /// Signed cell indices (negative or >= ni / nj for ghosts).
    pub i: isize,
    pub j: isize,
}

/// Ghost cell of `face` at face offset `k`, layer `l` (1 or 2).
pub fn ghost_cell(block: &Block, b: usize, face: Face, k: usize, l: usize) -> CellRef {
    let (k, l) = (k as isize, l as isize);
    let (ni, nj) = (block.ni as isize, block.nj as isize);
    let (i, j) = match face {
        Face::IMin => (-l, k),
        Face::IMax => (ni - 1 + l, k),
        Face::JMin => (k, -l),
        Face::JMax => (k, nj - 1 + l),
    };
    CellRef { block: b, i, j }
}

/// Interior cell `l - 1` cells inwards from `face` at face offset `m`.
pub fn inner_cell(block: &Block, b: usize, face: Face, m: usize, l: usize) -> CellRef {
    let (m, l) = (m as isize, l as isize);
    let (ni, nj) = (block.ni as isize, block.nj as isize);
    let (i, j) = match face {
        Face::IMin => (l - 1, m),
        Face::IMax => (ni - l, m),
        Face::JMin => (m, l - 1),
        Face::JMax => (m, nj - l),
    };
    CellRef { block: b, i, j }
}

/// The interface exchange as flat gather tables: `field[ghost[n]] = field[donor[n]]` for every
/// `n` fills every non-corner ghost cell on every interface patch. All donors are interior
/// cells and all ghosts are distinct, so the entries are independent (one parallel gather).
/// Entries are sorted by ghost index.
#[derive(Clone, Debug, PartialEq)]
pub struct GhostExchange {
    /// The padded layout the indices refer to.
    pub layout: PaddedLayout,
    /// Padded index of each ghost cell.
    pub ghost: Vec<usize>,
    /// Padded index of its donor (interior) cell.
    pub donor: Vec<usize>,
    /// Add to the donor's coordinates to get the ghost's (zero for 1-to-1, +-pitch periodic).
    pub translation: Vec<[f64; 2]>,
    /// The ghost cells as signed (block, i, j), for readability and tests.
    pub ghost_cell: Vec<CellRef>,
    /// The donor cells as (block, i, j).
    pub donor_cell: Vec<CellRef>,
}

impl GhostExchange {
    /// Build the tables of a mesh; validates it first. Fails when a donor block is thinner than
    /// two cells normal to the donor face (the second ghost layer would need a donor's donor).
    pub fn new(mesh: &Mesh) -> Result<Self> {
        validate(mesh)?;
        let layout = PaddedLayout::new(mesh);
        let mut entries = Vec::new();
        for (b, block) in mesh.blocks.iter().enumerate() {
            for patch in &block.patches {
                let BoundaryKind::Interface(conn) = &patch.kind else { continue };
                let donor = &mesh.blocks[conn.donor_block];
                let depth = match conn.donor_face {
                    Face::IMin | Face::IMax => donor.ni,
                    Face::JMin | Face::JMax => donor.nj,
                };
                if depth < GHOST_LAYERS {
                    return Err(Error::Mesh(format!(
                        "block {b} ({}) {:?}: donor block {} is only {depth} cell(s) thick normal to {:?}; two ghost layers need 2",
                        block.name, patch.face, conn.donor_block, conn.donor_face
                    )));
                }
                for f in patch.start..patch.end {
                    let m = donor_offset(patch, conn, f);
                    for l in 1..=GHOST_LAYERS {
                        let g = ghost_cell(block, b, patch.face, f, l);
                        let d = inner_cell(donor, conn.donor_block, conn.donor_face, m, l);
                        entries.push((layout.index(b, g.i, g.j), layout.index(d.block, d.i, d.j), conn.translation, g, d));
                    }
                }
            }
        }
        entries.sort_by_key(|e| e.0);
        Ok(GhostExchange {
            layout,
            ghost: entries.iter().map(|e| e.0).collect(),
            donor: entries.iter().map(|e| e.1).collect(),
            translation: entries.iter().map(|e| e.2).collect(),
            ghost_cell: entries.iter().map(|e| e.3).collect(),
            donor_cell: entries.iter().map(|e| e.4).collect(),
        })
    }

    /// Number of ghost cells filled by the exchange.
    pub fn len(&self) -> usize {
        self.ghost.len()
    }

    /// True when the mesh has no interface patches.
    pub fn is_empty(&self) -> bool {
        self.ghost.is_empty()
    }

    /// Reference (serial) exchange of one scalar field in the padded layout; fails if the
    /// field is not `layout.total` long.
    pub fn exchange(&self, field: &mut [f64]) -> Result<()> {
        if field.len() != self.layout.total {
            return Err(Error::Other(format!(
                "ghost exchange: field has {} entries, the padded layout {}",
                field.len(),
                self.layout.total
            )));
        }
        for (&g, &d) in self.ghost.iter().zip(&self.donor) {
            field[g] = field[d];
        }
        Ok(())
    }
}
