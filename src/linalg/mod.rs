//! Sparse linear algebra for the implicit scheme (docs/architecture.md, "numerics", thesis chapter 5):
//! block-sparse (BSR) matrices whose pattern is built once per mesh, the preconditioners
//! block-Jacobi, block ILU(0), multicolour block ILU(0) and ILU(0) over overlapping strips
//! (`strip_ilu`), and the host vector algebra of the CPU backend's Krylov vectors. FGMRES itself
//! is `crate::solver::krylov`, written once for every backend.

pub mod bsr;
pub mod ilu;
pub mod strip_ilu;

pub use bsr::{BsrMatrix, BsrPattern};
pub use ilu::{BlockIlu0, BlockJacobi, IdentityPreconditioner, Ordering, Preconditioner};
pub use strip_ilu::{column_strips, StripIlu0};

use rayon::prelude::*;

/// Elements per chunk of the vector operations: each chunk is one task, and a reduction adds
/// the chunks' partial sums in chunk order, so its result depends on this size, never on the
/// number of threads (the same figures on 2 cores and on 16).
pub const VECTOR_CHUNK: usize = 8192;

/// Euclidean inner product: partial sums over fixed chunks, added in order.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let partial: Vec<f64> = a.par_chunks(VECTOR_CHUNK).zip(b.par_chunks(VECTOR_CHUNK)).map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum()).collect();
    partial.iter().sum()
}

pub fn norm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// y += alpha x
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    y.par_chunks_mut(VECTOR_CHUNK).zip(x.par_chunks(VECTOR_CHUNK)).for_each(|(y, x)| y.iter_mut().zip(x).for_each(|(y, x)| *y += alpha * x));
}

/// x *= alpha
pub fn scale(alpha: f64, x: &mut [f64]) {
    x.par_chunks_mut(VECTOR_CHUNK).for_each(|x| x.iter_mut().for_each(|x| *x *= alpha));
}

/// x /= divisor (a division, not a product with the reciprocal: the GPU's kernel divides too)
pub fn divide(x: &mut [f64], divisor: f64) {
    x.par_chunks_mut(VECTOR_CHUNK).for_each(|x| x.iter_mut().for_each(|x| *x /= divisor));
}
