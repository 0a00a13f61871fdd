//! turbopt: CFD-driven design of turbomachinery cascade blades.
//!
//! A compressible RANS solver on structured multi-block meshes of a cascade passage (Roe/MUSCL
//! convective fluxes, central viscous fluxes, Spalart-Allmaras; an explicit Runge-Kutta scheme
//! with residual smoothing and multigrid, and an implicit multistage scheme with flexible GMRES
//! and on-demand ILU) runs on the CPU and, with the `cuda` feature, on NVIDIA GPUs. It scores
//! parameterized blades through the [`Evaluator`](eval::Evaluator) trait, which the
//! differential-evolution and Kriging-assisted optimizers call.
//!
//! # Example
//!
//! The LS89 vane solved at its MUR47 operating point, then a small optimization of two of its
//! design variables (`use turbopt::prelude::*` brings in everything used here):
//!
//! ```
//! use turbopt::prelude::*;
//!
//! // The whole pipeline (blade, mesh, start, solve, figures) on all CPU cores, RANS-SA with the
//! // implicit scheme. A short budget keeps this example to about 20 s on two cores; the
//! // default settings run to convergence (208 iterations here).
//! let blade = load_blade_file("blades/ls89.ron")?;
//! let op = blade.operating_point("MUR47")?.clone();
//! let settings = SolverSettings { max_iterations: 40, ..SolverSettings::default() };
//! let solved = solve_blade(&blade, BladeChoice::Main, &op, Density::Coarse, &settings, &mut Silent)?;
//! let figures = &solved.solve.figures.performance;
//! println!("entropy rise {:.4e}, exit angle {:.2} deg", figures.entropy_rise, figures.exit_angle_deg);
//!
//! // Minimize the entropy rise over two design variables with the exit angle held at 74 deg or
//! // more, by the Kriging-assisted optimizer in six evaluations. Each design is warm-started from
//! // the baseline's flow; the short runs are accepted once the residual dropped one order.
//! let mut config = EvaluatorConfig::for_blade("blades/ls89.ron");
//! config.objectives = vec![Objective::EntropyRise];
//! config.constraints = vec![Constraint::ExitAngleAtLeast(74.0)];
//! (config.solver.max_iterations, config.solver.accept_orders) = (40, Some(1.0));
//! let evaluator = CfdEvaluator::new(config)?;
//! let two = SubspaceEvaluator::new(&evaluator, &["camber_4".to_string(), "thickness_4".to_string()])?;
//! let result = minimize(EvaluatorProblem::new(&two, Selection::default())?, TwoLevel::new(EgoSettings::for_dimension(2, 6, 1)))?;
//! println!("best design {:?}: entropy rise {:.4e}", result.best_design, result.best.objective);
//! assert!(result.evaluations == 6 && result.best.is_feasible());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Layers
//!
//! Each module has one job, and depends only on the ones before it (docs/architecture.md):
//! [`geometry`] (blade parameterization, blade files) -> [`mesh`] (passage meshes, metrics, I/O)
//! -> [`flow`] (the physics as point-wise functions) -> [`backend`] (the data-parallel operations,
//! twice: CPU and CUDA) -> [`solver`] (time integration and Krylov, written once over a backend)
//! -> [`post`] (figures) -> [`cascade`] (the pipeline from a blade to its figures) -> [`eval`]
//! (the evaluator) -> [`optim`] (optimizers and campaigns); [`perf`] models which scheme and
//! hardware converge first, [`linalg`] holds the sparse matrices, [`report`] the chart helpers.

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
pub mod prelude;
pub mod report;
pub mod solver;

pub use error::{Error, Result};

/// The README's Rust examples, compiled (and the runnable ones run) by `cargo test --doc`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExamples;
