//! Multigrid coarsening by 2 x 2 agglomeration (docs/architecture.md, "numerics", FAS multigrid): the coarse
//! mesh keeps every other node, so coarse cell `(I, J)` is the union of fine cells
//! `(2I..2I+1, 2J..2J+1)`; patch ranges and connection offsets are halved.
//!
//! The coarse face vectors equal the sums of the two fine face vectors they replace (the edge
//! vectors telescope), so fluxes restrict conservatively; the coarse cell area is that of the
//! straight-sided coarse quadrilateral, which differs from the sum of the four fine areas by the
//! curvature of the grid lines (second order in the fine spacing).

use crate::error::{Error, Result};
use crate::mesh::connect::validate;
use crate::mesh::{Block, BoundaryKind, Mesh};

/// The next coarser mesh. Fails, naming the block and patch, when a block has an odd number of
/// cells either way, or a patch boundary or connection offset is odd.
pub fn coarsen(mesh: &Mesh) -> Result<Mesh> {
    validate(mesh)?;
    let blocks = mesh.blocks.iter().enumerate().map(|(b, blk)| coarsen_block(b, blk)).collect::<Result<Vec<_>>>()?;
    Ok(Mesh { blocks, pitch: mesh.pitch })
}

/// `levels` meshes, finest first: the input and `levels - 1` successive coarsenings.
pub fn coarsen_levels(mesh: &Mesh, levels: usize) -> Result<Vec<Mesh>> {
    if levels == 0 {
        return Err(Error::Mesh("coarsen_levels: need at least one level".into()));
    }
    let mut out = vec![mesh.clone()];
    for level in 1..levels {
        let next = coarsen(&out[level - 1]).map_err(|e| Error::Mesh(format!("multigrid level {level} of {levels}: {e}")))?;
        out.push(next);
    }
    Ok(out)
}

fn coarsen_block(b: usize, blk: &Block) -> Result<Block> {
    let here = |what: String| Error::Mesh(format!("cannot coarsen block {b} ({}): {what}", blk.name));
    if blk.ni % 2 != 0 || blk.nj % 2 != 0 {
        return Err(here(format!("{} x {} cells is odd", blk.ni, blk.nj)));
    }
    let (ni, nj) = (blk.ni / 2, blk.nj / 2);
    let mut x = Vec::with_capacity((ni + 1) * (nj + 1));
    let mut y = Vec::with_capacity((ni + 1) * (nj + 1));
    for j in 0..=nj {
        for i in 0..=ni {
            let n = blk.node(2 * i, 2 * j);
            x.push(blk.x[n]);
            y.push(blk.y[n]);
        }
    }
    let mut patches = Vec::with_capacity(blk.patches.len());
    for (p, patch) in blk.patches.iter().enumerate() {
        if patch.start % 2 != 0 || patch.end % 2 != 0 {
            return Err(here(format!("patch {p} on {:?} spans cells {}..{} (odd boundary)", patch.face, patch.start, patch.end)));
        }
        let mut coarse = patch.clone();
        coarse.start /= 2;
        coarse.end /= 2;
        if let BoundaryKind::Interface(c) = &mut coarse.kind {
            if c.donor_start % 2 != 0 {
                return Err(here(format!("patch {p} on {:?} starts at odd donor offset {}", patch.face, c.donor_start)));
            }
            c.donor_start /= 2;
        }
        patches.push(coarse);
    }
    Ok(Block { name: blk.name.clone(), ni, nj, x, y, patches })
}
