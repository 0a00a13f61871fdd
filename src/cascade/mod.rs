//! One cascade run from blade to figures, the same for every command and the evaluator:
//!
//! 1. blade file + [`BladeChoice`] -> [`Section`]: outline and cascade, a design vector parsed
//!    and checked once (`section`);
//! 2. passage spec (`mesh::passage`) and the meshability checks: a blade the mesher cannot
//!    mesh is a cheap typed rejection ([`CascadeError::Unmeshable`]) before any mesh is made
//!    ([`CheckedBlade`]);
//! 3. mesh (`mesh::generate`);
//! 4. measurement [`Planes`] (`planes`);
//! 5. start: the quasi-one-dimensional cold start (`start`), a warm start or a restart
//!    ([`Start`]);
//! 6. solve through the [`recovery`] chain, stopping on residual orders or on steady figures
//!    ([`FigureConvergence`]) (`solve`);
//! 7. post-processing: performance on the planes and blade-surface Mis ([`PointFigures`]).
//!
//! `turbopt mesh`, `turbopt solve`, `turbopt evaluate`, `CfdEvaluator` and campaigns all go
//! through [`PreparedCascade::new`] and [`solve_point`] with [`SolverSettings`]: the same blade,
//! operating point, density and settings give the same mesh, the same stop and the same figures
//! (tests/cascade_pipeline.rs).

mod blade_solve;
mod figures;
pub mod output;
pub mod periodic;
mod planes;
mod prepare;
pub mod recovery;
mod section;
mod sequencing;
pub mod settings;
mod solve;
mod start;

pub use blade_solve::{solve_blade, BladeSolve};
pub use output::write_solve_files;
pub use figures::{FigureConvergence, FigureWatch, WatchedExtras};
pub use periodic::{Oscillation, PeriodicAverage};
pub use planes::{Planes, EXIT_PLANE_AXIAL_CHORDS};
pub use prepare::{CascadeError, CascadeSetup, CheckedBlade, MeshCheck, PointFigures, PreparedCascade};
pub use recovery::{Attempt, Remedy, LATER_COARSE_GRIDS_MIN};
pub use section::{BladeChoice, Section};
pub use sequencing::{coarser_meshes, inject, prepare_sequence, solve_sequenced, CoarserMesh, CoarserSolve};
pub use settings::{BackendChoice, Devices, SchemeChoice, Sequencing, SolverSettings};
pub use solve::{solve_point, PointError, PointFailure, PointRun, PointSolve, Start, Stop};
pub use start::quasi_1d_start;
