//! `use turbopt::optim::prelude::*;` brings in what minimizing a function takes.
//!
//! ```
//! use turbopt::optim::prelude::*;
//!
//! let bounds = Bounds::new([-5.0, 0.0], [10.0, 15.0])?;
//! let branin = |x: &[f64]| turbopt::eval::analytic::branin(x[0], x[1]);
//! let de = minimize(FnProblem::new(branin, bounds.clone()), DifferentialEvolution::new(DeSettings::for_dimension(2, 3000, 1)))?;
//! let kriging = minimize(FnProblem::new(branin, bounds), TwoLevel::new(EgoSettings::for_dimension(2, 30, 1)))?;
//! assert!(de.best.objective < 0.3979 && kriging.best.objective < 0.41);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With constraints `g(x) <= 0`: `FnProblem::new(f, bounds).with_constraints(|x| vec![...])`.
//! For observers and checkpoints, hand the same problem and solver to argmin's
//! [`Executor`] (re-exported here with argmin itself) and read the
//! result with [`Outcome::from_result`].

pub use super::acquisition::Infill;
pub use super::de::{DeSettings, DifferentialEvolution, Variant};
pub use super::ego::{BatchInfill, EgoSettings, TwoLevel};
pub use super::transform::OutputTransform;
pub use super::{minimize, Bounded, Bounds, EvaluatorProblem, FnProblem, OptimError, Outcome, RonCheckpoint, Scored, Selection};
pub use argmin;
pub use argmin::core::{Executor, State};
