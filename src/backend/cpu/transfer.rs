//! Multigrid transfer operators between a block and its 2 x 2 agglomeration (Blazek sec. 9.3).

use rayon::prelude::*;

use super::geometry::BlockGeometry;
use crate::backend::NVAR;

/// Fine interior index `i + ni*j` and padded index of the four fine cells of coarse cell (ic, jc).
#[inline]
fn children(fine: &BlockGeometry, ic: usize, jc: usize) -> [(usize, usize); 4] {
    let l = fine.layout;
    let (i, j) = (2 * ic, 2 * jc);
    [(i, j), (i + 1, j), (i, j + 1), (i + 1, j + 1)].map(|(i, j)| (i + l.ni * j, l.interior(i, j)))
}

/// Volume-weighted mean of the fine state over each coarse cell.
pub(super) fn restrict_state_block(fine: &BlockGeometry, coarse: &BlockGeometry, w_fine: &[f64], w_coarse: &mut [f64]) {
    let (npf, lc) = (fine.layout.n_padded(), coarse.layout);
    let npc = lc.n_padded();
    for (v, wc) in w_coarse.chunks_mut(npc).enumerate().take(NVAR) {
        wc.par_chunks_mut(lc.stride()).enumerate().skip(crate::backend::NGHOST).take(lc.nj).for_each(|(jp, row)| {
            let jc = jp - crate::backend::NGHOST;
            for ic in 0..lc.ni {
                let (mut sum, mut vol) = (0.0, 0.0);
                for (c, p) in children(fine, ic, jc) {
                    sum += fine.volume[c] * w_fine[v * npf + p];
                    vol += fine.volume[c];
                }
                row[ic + crate::backend::NGHOST] = sum / vol;
            }
        });
    }
}

/// Sum of the fine residuals over each coarse cell.
pub(super) fn restrict_residual_block(fine: &BlockGeometry, coarse: &BlockGeometry, r_fine: &[f64], r_coarse: &mut [f64]) {
    let (npf, lc) = (fine.layout.n_padded(), coarse.layout);
    let npc = lc.n_padded();
    for (v, rc) in r_coarse.chunks_mut(npc).enumerate().take(NVAR) {
        rc.par_chunks_mut(lc.stride()).enumerate().skip(crate::backend::NGHOST).take(lc.nj).for_each(|(jp, row)| {
            let jc = jp - crate::backend::NGHOST;
            for ic in 0..lc.ni {
                row[ic + crate::backend::NGHOST] = children(fine, ic, jc).iter().map(|&(_, p)| r_fine[v * npf + p]).sum();
            }
        });
    }
}

/// Injection of the coarse correction into the four fine cells of every coarse cell.
pub(super) fn prolong_block(coarse: &BlockGeometry, fine: &BlockGeometry, w_coarse: &[f64], w_start: &[f64], w_fine: &mut [f64]) {
    let (lf, lc) = (fine.layout, coarse.layout);
    let (npf, npc) = (lf.n_padded(), lc.n_padded());
    for (v, wf) in w_fine.chunks_mut(npf).enumerate().take(NVAR) {
        wf.par_chunks_mut(lf.stride()).enumerate().skip(crate::backend::NGHOST).take(lf.nj).for_each(|(jp, row)| {
            let j = jp - crate::backend::NGHOST;
            for i in 0..lf.ni {
                let pc = lc.interior(i / 2, j / 2);
                row[i + crate::backend::NGHOST] += w_coarse[v * npc + pc] - w_start[v * npc + pc];
            }
        });
    }
}
