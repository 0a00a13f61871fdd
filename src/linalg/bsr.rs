//! Block compressed sparse row matrix with dense `B x B` blocks (B = 4 for the 2D mean flow,
//! B = 1 for the segregated Spalart-Allmaras system).
//!
//! The pattern is built once per mesh from the cell adjacency; Jacobian assembly then writes
//! block values straight into their slots (`slot(row, col)`), without sorting (docs/architecture.md,
//! "numerics": sorting for assembly was one of the slow parts on the GPU in the thesis).

use rayon::prelude::*;
use std::sync::Arc;

/// The sparsity of a block matrix: which blocks are stored, row by row. Built once per mesh and
/// shared (an `Arc`) by every matrix and factorization on that mesh, on the host and, uploaded,
/// on the device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BsrPattern {
    pub n_rows: usize,
    /// Start of each block row in `cols` (and in a matrix's blocks; length n_rows + 1).
    pub row_ptr: Vec<usize>,
    /// Block column of each stored block, ascending within a row.
    pub cols: Vec<usize>,
    /// Position of the diagonal block of each row.
    pub diag: Vec<usize>,
}

impl BsrPattern {
    /// The diagonal plus the given neighbours of every row (duplicates allowed).
    pub fn from_adjacency(neighbours: &[Vec<usize>]) -> Self {
        let n_rows = neighbours.len();
        let mut row_ptr = Vec::with_capacity(n_rows + 1);
        let mut cols = Vec::new();
        let mut diag = Vec::with_capacity(n_rows);
        row_ptr.push(0);
        for (r, nb) in neighbours.iter().enumerate() {
            let mut row: Vec<usize> = nb.iter().copied().chain(std::iter::once(r)).collect();
            row.sort_unstable();
            row.dedup();
            let start = cols.len();
            diag.push(start + row.binary_search(&r).expect("diagonal inserted above"));
            cols.extend(row);
            row_ptr.push(cols.len());
        }
        BsrPattern { n_rows, row_ptr, cols, diag }
    }

    /// Stored blocks.
    pub fn n_blocks(&self) -> usize {
        self.cols.len()
    }

    /// Index of block (row, col) in the block arrays, if it is in the pattern.
    pub fn slot(&self, row: usize, col: usize) -> Option<usize> {
        let (a, b) = (self.row_ptr[row], self.row_ptr[row + 1]);
        self.cols[a..b].binary_search(&col).ok().map(|k| a + k)
    }
}

/// A block matrix: a shared [`BsrPattern`] and its block values.
#[derive(Clone, Debug)]
pub struct BsrMatrix<const B: usize> {
    pub pattern: Arc<BsrPattern>,
    /// Block values, `B*B` each, row-major within a block, in the pattern's order.
    pub values: Vec<f64>,
}

impl<const B: usize> BsrMatrix<B> {
    /// A zero matrix on `pattern`.
    pub fn zeros(pattern: Arc<BsrPattern>) -> Self {
        let values = vec![0.0; pattern.n_blocks() * B * B];
        BsrMatrix { pattern, values }
    }

    /// A zero matrix with the diagonal plus the given neighbours of every row (duplicates
    /// allowed) as its own pattern.
    pub fn from_adjacency(neighbours: &[Vec<usize>]) -> Self {
        Self::zeros(Arc::new(BsrPattern::from_adjacency(neighbours)))
    }

    pub fn n_rows(&self) -> usize {
        self.pattern.n_rows
    }

    pub fn n_blocks(&self) -> usize {
        self.pattern.n_blocks()
    }

    /// Index of block (row, col) in the block arrays, if it is in the pattern.
    pub fn slot(&self, row: usize, col: usize) -> Option<usize> {
        self.pattern.slot(row, col)
    }

    pub fn block(&self, slot: usize) -> &[f64] {
        &self.values[slot * B * B..(slot + 1) * B * B]
    }

    pub fn block_mut(&mut self, slot: usize) -> &mut [f64] {
        &mut self.values[slot * B * B..(slot + 1) * B * B]
    }

    /// Add a dense block (row-major) into slot.
    pub fn add_to_block(&mut self, slot: usize, block: &[f64]) {
        self.block_mut(slot).iter_mut().zip(block).for_each(|(v, b)| *v += b);
    }

    /// The values of every block row as disjoint mutable slices (`B*B` values per block), so
    /// that rows can be assembled in parallel without atomics.
    pub fn row_values_mut(&mut self) -> Vec<&mut [f64]> {
        let p = Arc::clone(&self.pattern);
        let mut rows = Vec::with_capacity(p.n_rows);
        let mut rest: &mut [f64] = &mut self.values;
        for r in 0..p.n_rows {
            let (head, tail) = rest.split_at_mut((p.row_ptr[r + 1] - p.row_ptr[r]) * B * B);
            rows.push(head);
            rest = tail;
        }
        rows
    }

    pub fn clear_values(&mut self) {
        self.values.iter_mut().for_each(|v| *v = 0.0);
    }

    /// y = A x (rows in parallel).
    pub fn spmv(&self, x: &[f64], y: &mut [f64]) {
        y.par_chunks_mut(B).enumerate().for_each(|(r, yr)| {
            yr.iter_mut().for_each(|v| *v = 0.0);
            for s in self.pattern.row_ptr[r]..self.pattern.row_ptr[r + 1] {
                let c = self.pattern.cols[s];
                let blk = self.block(s);
                let xc = &x[c * B..(c + 1) * B];
                for a in 0..B {
                    yr[a] += (0..B).map(|b| blk[a * B + b] * xc[b]).sum::<f64>();
                }
            }
        });
    }
}
