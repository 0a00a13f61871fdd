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
//! Several objectives at once: a closure that returns them all, and a front instead of one
//! design (GDE3, or the Kriging front optimizer when an evaluation is expensive):
//!
//! ```
//! use turbopt::optim::prelude::*;
//!
//! // Schaffer's problem: f1 = x^2 against f2 = (x - 2)^2, whose front is x in [0, 2].
//! let schaffer = |x: &[f64]| vec![x[0] * x[0], (x[0] - 2.0).powi(2)];
//! let bounds = Bounds::new([-5.0], [5.0])?;
//! let de = minimize_front(FnMultiProblem::new(schaffer, 2, bounds.clone()), Gde3::new(Gde3Settings::for_budget(2000, 1)))?;
//! let kriging = minimize_front(FnMultiProblem::new(schaffer, 2, bounds), KrigingFront::new(KrigingFrontSettings::for_dimension(1, 25, 1)))?;
//! for run in [&de, &kriging] {
//!     assert!(run.front.iter().all(|m| (-1e-3..=2.001).contains(&m.x[0])));
//!     println!("{} designs on the front, hypervolume {:.3} against {:?}", run.front.len(), run.hypervolume, run.reference);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! With constraints `g(x) <= 0`: `FnProblem::new(f, bounds).with_constraints(|x| vec![...])`
//! (`FnMultiProblem` alike).
//! For observers and checkpoints, hand the same problem and solver to argmin's
//! [`Executor`] (re-exported here with argmin itself) and read the
//! result with [`Outcome::from_result`].

pub use super::acquisition::Infill;
pub use super::de::{DeSettings, DifferentialEvolution, Variant};
pub use super::ego::{BatchInfill, EgoSettings, TwoLevel};
pub use super::transform::OutputTransform;
pub use super::front::{minimize_front, FrontMember, FrontOutcome};
pub use super::gde3::{Gde3, Gde3Settings};
pub use super::kriging_front::{KrigingFront, KrigingFrontSettings};
pub use super::pareto::MultiScored;
pub use super::{minimize, Bounded, Bounds, EvaluatorProblem, FnMultiProblem, FnProblem, FrontSelection, OptimError, Outcome, RonCheckpoint, Scored, Selection};
pub use argmin;
pub use argmin::core::{Executor, State};
