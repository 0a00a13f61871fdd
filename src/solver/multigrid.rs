//! Multigrid settings and the 2 x 2 cell agglomeration that builds the coarse meshes.
//!
//! The FAS cycle itself lives in `explicit.rs` next to the Runge-Kutta smoother it drives.

use serde::{Deserialize, Serialize};

use crate::mesh::{Block, BoundaryKind, Mesh, Patch};
use crate::{Error, Result};

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

/// The mesh with every block agglomerated 2 x 2: every other node line is kept. Needs even cell
/// counts, and patch limits and interface donor offsets on even cells.
pub fn coarsen(mesh: &Mesh) -> Result<Mesh> {
    let blocks = mesh.blocks.iter().enumerate().map(|(b, block)| coarsen_block(b, block)).collect::<Result<Vec<_>>>()?;
    Ok(Mesh { blocks, pitch: mesh.pitch })
}

fn coarsen_block(b: usize, block: &Block) -> Result<Block> {
    let odd = |what: &str, n: usize| {
        Error::Mesh(format!("block {b} ('{}') cannot be coarsened 2 x 2: {what} = {n} is odd", block.name))
    };
    if block.ni % 2 != 0 || block.ni < 2 {
        return Err(odd("ni", block.ni));
    }
    if block.nj % 2 != 0 || block.nj < 2 {
        return Err(odd("nj", block.nj));
    }
    let (ni, nj) = (block.ni / 2, block.nj / 2);
    let mut x = Vec::with_capacity((ni + 1) * (nj + 1));
    let mut y = Vec::with_capacity((ni + 1) * (nj + 1));
    for j in 0..=nj {
        for i in 0..=ni {
            let n = block.node(2 * i, 2 * j);
            x.push(block.x[n]);
            y.push(block.y[n]);
        }
    }
    let patches = block
        .patches
        .iter()
        .map(|p| {
            if p.start % 2 != 0 {
                return Err(odd(&format!("start of the {:?} patch", p.face), p.start));
            }
            if p.end % 2 != 0 {
                return Err(odd(&format!("end of the {:?} patch", p.face), p.end));
            }
            let kind = match &p.kind {
                BoundaryKind::Interface(conn) => {
                    if conn.donor_start % 2 != 0 {
                        return Err(odd(&format!("donor start of the {:?} interface", p.face), conn.donor_start));
                    }
                    let mut conn = conn.clone();
                    conn.donor_start /= 2;
                    BoundaryKind::Interface(conn)
                }
                other => other.clone(),
            };
            Ok(Patch { face: p.face, start: p.start / 2, end: p.end / 2, kind })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Block { name: block.name.clone(), ni, nj, x, y, patches })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Face;

    fn square(ni: usize, nj: usize) -> Mesh {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for j in 0..=nj {
            for i in 0..=ni {
                x.push(i as f64);
                y.push((j * j) as f64);
            }
        }
        let patch = |face, end| Patch { face, start: 0, end, kind: BoundaryKind::InviscidWall };
        let patches = vec![patch(Face::IMin, nj), patch(Face::IMax, nj), patch(Face::JMin, ni), patch(Face::JMax, ni)];
        Mesh { blocks: vec![Block { name: "sq".into(), ni, nj, x, y, patches }], pitch: 0.0 }
    }

    #[test]
    fn coarsening_keeps_every_other_node_line() {
        let coarse = coarsen(&square(4, 6)).unwrap();
        let b = &coarse.blocks[0];
        assert_eq!((b.ni, b.nj), (2, 3));
        assert_eq!(b.x[b.node(1, 2)], 2.0);
        assert_eq!(b.y[b.node(1, 2)], 16.0);
        assert_eq!(b.patches[0].end, 3);
    }

    #[test]
    fn odd_cell_counts_are_rejected() {
        let err = coarsen(&square(5, 4)).unwrap_err();
        assert!(err.to_string().contains("ni = 5"), "{err}");
    }
}
