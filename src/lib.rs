//! turbopt: CFD-driven turbomachinery cascade blade design.
//!
//! See README.md and docs/architecture.md for the layout: `geometry` -> `mesh` -> `flow`
//! (physics, pure functions) -> `solver` (algorithms, written once) over `backend` (data-parallel
//! kernels, CPU and CUDA) -> `eval` (the `Evaluator` seam) -> `optim` (DE, Kriging, campaigns).

// `!(x < limit)` is this crate's guard that also rejects NaN (a NaN compares false, so it fails
// the guard); `x >= limit` would let a NaN through, which is what the lint's rewrite invites.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

pub mod backend;
pub mod cascade;
pub mod error;
pub mod eval;
mod files;
pub mod flow;
pub mod geometry;
pub(crate) mod gpu;
pub mod linalg;
pub mod mesh;
pub mod optim;
pub mod perf;
pub mod post;
pub mod report;
pub mod solver;

pub use error::{Error, Result};
