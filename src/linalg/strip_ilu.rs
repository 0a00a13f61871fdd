//! Block ILU(0) over strips: the rows are split into groups ("strips": on a structured mesh,
//! bands of grid lines crossing a block), each group is widened by `overlap` layers of the rows
//! it couples to, and the diagonal submatrix of each widened group gets its own natural-order
//! block ILU(0); applying it, each group keeps the result on its own rows only. The groups are
//! independent: they factorize and sweep in parallel. This is the restricted additive Schwarz
//! method (Cai & Sarkis 1999) with ILU(0) as the subdomain solver (Saad, "Iterative methods for
//! sparse linear systems", 2nd ed., section 14.3); with no overlap, block Jacobi between the
//! groups. The overlap restores part of the couplings the cuts drop (LS89 coarse: 8.8 linear
//! iterations a stage with 16 strips and none, 8.1 with 2 layers, 6.2 with the natural ILU(0)).
//!
//! The natural-order ILU(0)'s triangular solves are one chain of dependent rows, so on a CPU
//! they run on one core whatever the thread count; with strips, as many cores as strips. The
//! preconditioner depends on the strips, never on the thread count: the same strips give the
//! same iterates on 2 cores and on 16.

use super::bsr::{BsrMatrix, BsrPattern};
use super::ilu::{BlockIlu0, Ordering, Preconditioner};
use rayon::prelude::*;
use std::sync::Arc;

/// One group of rows with its own factorization.
struct Strip<const B: usize> {
    /// Global rows of the group and its overlap, in the order its ILU(0) processes them.
    rows: Vec<usize>,
    /// Whether each of `rows` belongs to the group (its result is kept) or to the overlap.
    owned: Vec<bool>,
    /// For each block of the local matrix, its slot in the global matrix.
    slots: Vec<usize>,
    local: BsrMatrix<B>,
    ilu: BlockIlu0<B>,
}

/// Block ILU(0) over overlapping row groups (module docs).
pub struct StripIlu0<const B: usize> {
    strips: Vec<Strip<B>>,
}

impl<const B: usize> StripIlu0<B> {
    /// Factorizes `a` over `groups` (disjoint, covering every row once), each widened by
    /// `overlap` layers of coupled rows and processed in ascending row order. Fails on a
    /// singular pivot block, naming its global row, or on groups that do not cover the rows
    /// exactly once.
    pub fn new(a: &BsrMatrix<B>, groups: &[Vec<usize>], overlap: usize) -> Result<Self, String> {
        check_partition(a.pattern.n_rows, groups)?;
        let strips = groups
            .par_iter()
            .map(|group| {
                let (rows, owned) = with_overlap(&a.pattern, group, overlap);
                let (pattern, slots) = local_pattern(&a.pattern, &rows);
                let mut local = BsrMatrix::zeros(Arc::new(pattern));
                copy_blocks(a, &slots, &mut local);
                let ilu = BlockIlu0::new(&local, Ordering::Natural).map_err(|e| global_row_error(&e, &rows))?;
                Ok(Strip { rows, owned, slots, local, ilu })
            })
            .collect::<Result<_, String>>()?;
        Ok(StripIlu0 { strips })
    }

    /// Refactorizes with new values of the same pattern.
    pub fn refactorize(&mut self, a: &BsrMatrix<B>) -> Result<(), String> {
        self.strips.par_iter_mut().try_for_each(|s| {
            copy_blocks(a, &s.slots, &mut s.local);
            s.ilu.refactorize(&s.local).map_err(|e| global_row_error(&e, &s.rows))
        })
    }
}

impl<const B: usize> Preconditioner for StripIlu0<B> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        let out = RowWriter(z.as_mut_ptr(), z.len());
        self.strips.par_iter().for_each(|s| {
            let mut rl = Vec::with_capacity(s.rows.len() * B);
            for &row in &s.rows {
                rl.extend_from_slice(&r[row * B..(row + 1) * B]);
            }
            let mut zl = vec![0.0; rl.len()];
            s.ilu.apply(&rl, &mut zl);
            for (k, &row) in s.rows.iter().enumerate().filter(|(k, _)| s.owned[*k]) {
                out.write(row * B, &zl[k * B..(k + 1) * B]);
            }
        });
    }
}

/// Writes the strips' owned rows into one output vector from parallel tasks.
struct RowWriter(*mut f64, usize);

// SAFETY: the strips own disjoint sets of rows (`check_partition`), so no two tasks write the
// same entries, and the vector outlives the parallel loop that borrows it.
unsafe impl Sync for RowWriter {}

impl RowWriter {
    fn write(&self, at: usize, values: &[f64]) {
        assert!(at + values.len() <= self.1, "row outside the output vector");
        // SAFETY: in bounds (above) and written by this strip's task only (see `Sync`).
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), self.0.add(at), values.len()) };
    }
}

/// `group` and the rows within `overlap` couplings of it, in ascending (natural) order, each
/// flagged whether it is in `group`: the subdomain of the restricted additive Schwarz method
/// (Cai & Sarkis 1999), whose overlap restores couplings the strips cut.
fn with_overlap(pattern: &BsrPattern, group: &[usize], overlap: usize) -> (Vec<usize>, Vec<bool>) {
    let mut inside: std::collections::BTreeMap<usize, bool> = group.iter().map(|&r| (r, true)).collect();
    let mut front: Vec<usize> = group.to_vec();
    for _ in 0..overlap {
        let mut next = Vec::new();
        for &r in &front {
            for &c in &pattern.cols[pattern.row_ptr[r]..pattern.row_ptr[r + 1]] {
                if let std::collections::btree_map::Entry::Vacant(e) = inside.entry(c) {
                    e.insert(false);
                    next.push(c);
                }
            }
        }
        front = next;
    }
    inside.into_iter().unzip()
}

/// The pattern of the submatrix of `rows` (local indices: positions in `rows`) and, for each of
/// its blocks, the global slot it copies.
fn local_pattern(global: &BsrPattern, rows: &[usize]) -> (BsrPattern, Vec<usize>) {
    let local_of: std::collections::HashMap<usize, usize> = rows.iter().enumerate().map(|(k, &r)| (r, k)).collect();
    let neighbours: Vec<Vec<usize>> = rows
        .iter()
        .map(|&r| global.cols[global.row_ptr[r]..global.row_ptr[r + 1]].iter().filter_map(|c| local_of.get(c).copied()).collect())
        .collect();
    let pattern = BsrPattern::from_adjacency(&neighbours);
    let slots = (0..pattern.n_rows)
        .flat_map(|k| {
            let p = &pattern;
            (p.row_ptr[k]..p.row_ptr[k + 1]).map(move |s| (k, p.cols[s]))
        })
        .map(|(k, c)| global.slot(rows[k], rows[c]).expect("a local block is a global block"))
        .collect();
    (pattern, slots)
}

fn copy_blocks<const B: usize>(a: &BsrMatrix<B>, slots: &[usize], local: &mut BsrMatrix<B>) {
    for (l, &g) in slots.iter().enumerate() {
        local.block_mut(l).copy_from_slice(a.block(g));
    }
}

/// `groups` cover the rows 0..n exactly once.
fn check_partition(n: usize, groups: &[Vec<usize>]) -> Result<(), String> {
    let mut seen = vec![false; n];
    for &r in groups.iter().flatten() {
        if r >= n || std::mem::replace(&mut seen[r], true) {
            return Err(format!("strip ILU: row {r} is outside the matrix ({n} rows) or in two strips"));
        }
    }
    match seen.iter().position(|s| !s) {
        Some(r) => Err(format!("strip ILU: row {r} is in no strip")),
        None => Ok(()),
    }
}

/// A local factorization error ("... in row k") with the global row instead.
fn global_row_error(e: &str, rows: &[usize]) -> String {
    match e.rsplit_once("row ").and_then(|(head, k)| k.parse::<usize>().ok().map(|k| (head, k))) {
        Some((head, k)) if k < rows.len() => format!("{head}row {}", rows[k]),
        _ => e.to_string(),
    }
}

/// Strips of a structured multi-block mesh whose cells are numbered block by block, `i` fastest
/// (`sizes[b] = (ni, nj)`): about `target` strips in all, shared among the blocks by their cell
/// counts (at least one each), each a band of whole `j` lines (`i` from `i0` to `i1`, every
/// `j`). The cuts run along the `j` lines, across which the cells of a wall-resolved mesh are
/// long and weakly coupled; the short, strongly coupled direction (the wall-normal `j`) stays
/// inside every strip.
pub fn column_strips(sizes: &[(usize, usize)], target: usize) -> Vec<Vec<usize>> {
    let total: usize = sizes.iter().map(|(ni, nj)| ni * nj).sum();
    let mut strips = Vec::new();
    let mut offset = 0;
    for &(ni, nj) in sizes {
        let share = (target as f64 * (ni * nj) as f64 / total.max(1) as f64).round() as usize;
        let k = share.clamp(1, ni.max(1));
        for s in 0..k {
            let (i0, i1) = (s * ni / k, (s + 1) * ni / k);
            strips.push((0..nj).flat_map(|j| (i0..i1).map(move |i| offset + i + ni * j)).collect());
        }
        offset += ni * nj;
    }
    strips
}
