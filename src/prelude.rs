//! What a library user needs, in one `use turbopt::prelude::*;`: blade files and the solve of a
//! blade, the CFD evaluator and its configuration, the optimizers with their problems and
//! bounds, and the campaign runner. The crate documentation's example uses nothing else.

pub use crate::backend::{BackendChoice, Devices};
pub use crate::cascade::{solve_blade, BladeChoice, BladeSolve, SchemeChoice, SolverSettings};
pub use crate::error::Error;
pub use crate::eval::cfd::{CfdEvaluator, EvaluatorConfig, FigureSettings};
pub use crate::eval::objectives::{Constraint, Objective};
pub use crate::eval::subspace::SubspaceEvaluator;
pub use crate::eval::{DesignSpace, Evaluation, Evaluator, Status};
pub use crate::geometry::{load_blade_file, BladeFile};
pub use crate::mesh::Density;
pub use crate::optim::campaign::{build_evaluator, run_campaign, CampaignConfig, CampaignSummary, ProgressBarObserver, SilentObserver};
pub use crate::optim::prelude::*;
pub use crate::solver::{Observer, Silent};
