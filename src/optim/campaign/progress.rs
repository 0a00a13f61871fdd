//! What a running campaign tells its caller: an observer per evaluation, a progress bar for the
//! command line.

use super::log::EvaluationRecord;
use super::runner::CampaignSummary;

/// Progress callbacks; the CLI attaches [`ProgressBarObserver`].
pub trait CampaignObserver: Send {
    fn on_start(&mut self, _budget: usize, _logged: usize) {}
    fn on_evaluation(&mut self, _record: &EvaluationRecord, _best_feasible: Option<f64>) {}
    fn on_finish(&mut self, _summary: &CampaignSummary) {}
}

/// Observes nothing.
pub struct SilentObserver;
impl CampaignObserver for SilentObserver {}

/// An indicatif bar: evaluations done out of the budget, and the best feasible value.
pub struct ProgressBarObserver {
    bar: indicatif::ProgressBar,
}

impl ProgressBarObserver {
    pub fn new() -> Self {
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} evaluations  best {msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        ProgressBarObserver { bar }
    }
}

impl Default for ProgressBarObserver {
    fn default() -> Self {
        Self::new()
    }
}

impl CampaignObserver for ProgressBarObserver {
    fn on_start(&mut self, budget: usize, _logged: usize) {
        self.bar.set_length(budget as u64);
        self.bar.set_message("none feasible yet");
    }
    fn on_evaluation(&mut self, _record: &EvaluationRecord, best: Option<f64>) {
        self.bar.inc(1);
        if let Some(b) = best {
            self.bar.set_message(format!("{b:.6e}"));
        }
    }
    fn on_finish(&mut self, summary: &CampaignSummary) {
        self.bar.finish_with_message(format!("{:.6e} ({})", summary.best_objective, summary.termination));
    }
}
