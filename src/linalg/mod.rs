//! Sparse linear algebra for the implicit scheme (docs/architecture.md, "numerics", thesis chapter 5):
//! block-sparse (BSR) matrices whose pattern is built once per mesh, the preconditioners
//! block-Jacobi, block ILU(0) and multicolour block ILU(0), and the host vector algebra of the
//! CPU backend's Krylov vectors. FGMRES itself is `crate::solver::krylov`, written once for
//! every backend.

pub mod bsr;
pub mod ilu;

pub use bsr::{BsrMatrix, BsrPattern};
pub use ilu::{BlockIlu0, BlockJacobi, IdentityPreconditioner, Ordering, Preconditioner};

/// Euclidean inner product.
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm2(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// y += alpha x
pub fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += alpha * x);
}
