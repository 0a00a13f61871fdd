//! Optimization campaigns: a RON file names the evaluator, the design-space overrides, the
//! objective and constraints, the optimizer and its settings, the budget and the seed.
//!
//! [`run_campaign`] evaluates the baseline, runs the optimizer, and keeps in `out_dir`:
//! - `campaign.ron`: the configuration the results belong to;
//! - `evaluations.jsonl`: one JSON line per completed evaluation, appended and flushed as soon
//!   as it is known (append-only; the source of truth). The designs of a batch finish in any
//!   order (several workers, GPUs or MPI ranks), so their lines may too: each carries its index;
//! - `checkpoint.json`: progress (evaluations, best so far, elapsed time), rewritten atomically
//!   (temporary file + rename) after every batch;
//! - `summary.json`, `convergence.png`, `evaluations.png` at the end; a front campaign
//!   (`objectives: [...]` with `Gde3` or `KrigingFront`) adds its front to the summary and
//!   writes `front.csv`, `front.png` and `hypervolume.png` ([`front`]).
//!
//! Resume: the optimizers are deterministic for a given seed, so a resumed campaign simply
//! re-runs the optimizer and answers every design found in the log from the log (bit-exact,
//! checked design by design) instead of evaluating it again. Once the log is used up, new
//! evaluations are appended. The result is the one an uninterrupted run would have produced,
//! and no logged evaluation is repeated. A line cut short by a kill is dropped. A kill in the
//! middle of a batch leaves the batch's finished evaluations logged and its others missing:
//! a resume answers the first from the log and evaluates only the others.
//!
//! The parts: [`config`] (the RON schema and what it configures), [`log`] (the evaluation log,
//! its records and the checkpoint), `recorder` (the evaluator the optimizer sees: answers from
//! the log, then evaluates and logs), [`runner`] ([`run_campaign`] and the summary),
//! [`progress`] (observers: a progress bar, or nothing) and `plots` (the campaign's pictures).

pub mod cluster;
pub mod config;
pub mod front;
pub mod log;
pub mod plots;
pub mod progress;
pub mod recheck;
mod recorder;
pub mod runner;

pub use plots::blade_pictures;
pub use config::{build_evaluator, check_optimizer, BoundOverride, CampaignConfig, CampaignEvaluator, OptimizerConfig};
pub use log::{read_log, Checkpoint, EvaluationRecord};
pub use progress::{CampaignObserver, ProgressBarObserver, SilentObserver};
pub use front::{FrontEntry, FrontSummary};
pub use recheck::{recheck, Recheck, RecheckedDesign};
pub use runner::{run_campaign, CampaignSummary};
