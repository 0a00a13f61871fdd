//! Where a design's solve starts from under `warm_start_from: Nearest`: the converged flow of the
//! nearest design already evaluated, in the design space scaled by its bounds, instead of the
//! baseline's. An implicit warm start from the baseline costs about 135 flow iterations plus about
//! 114 per unit of scaled distance on LS89 test case 1 (a fit over the 155 designs of an H100 DE
//! campaign, BENCHMARKS.md), and a DE population contracts towards its best designs, so later
//! generations start nearer to an evaluated design than to the baseline.
//!
//! Determinism: the donors of a batch are the designs of earlier batches (a snapshot taken when
//! the batch starts), never those finishing beside it, so the result does not depend on the
//! order in which the designs of a batch complete, nor on how many GPUs or cores run it. The
//! archive lives in the evaluator: a resumed campaign, or one spread over MPI ranks, starts from
//! the baseline again until its own designs fill the archive, and so ends within the solver
//! tolerance of, not bit for bit equal to, an uninterrupted single-process run.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Which converged flow a warm start begins from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WarmStartFrom {
    /// The baseline design's (the same start for every design: bit-reproducible on resume).
    #[default]
    Baseline,
    /// The nearest design evaluated in an earlier batch (module notes), or the baseline when it
    /// is nearer.
    Nearest,
}

/// Designs kept as donors, the most recent first out: enough for several generations of a DE
/// population, a few tens of MB of flows on a coarse mesh.
pub const ARCHIVE_SIZE: usize = 64;

/// A converged design and its flows (`F`: one per operating point, the evaluator's type).
pub struct Donor<F> {
    pub design: Vec<f64>,
    pub flows: Arc<F>,
}

impl<F> Clone for Donor<F> {
    fn clone(&self) -> Self {
        Donor { design: self.design.clone(), flows: Arc::clone(&self.flows) }
    }
}

/// The converged designs of earlier batches, at most [`ARCHIVE_SIZE`].
pub struct DonorArchive<F> {
    donors: Mutex<VecDeque<Donor<F>>>,
}

impl<F> Default for DonorArchive<F> {
    fn default() -> Self {
        DonorArchive { donors: Mutex::new(VecDeque::new()) }
    }
}

impl<F> DonorArchive<F> {
    /// The donors a batch starting now may use.
    pub fn snapshot(&self) -> Vec<Donor<F>> {
        self.donors.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect()
    }

    /// Adds the converged designs of a finished batch, in the batch's order.
    pub fn extend(&self, finished: impl IntoIterator<Item = Donor<F>>) {
        let mut donors = self.donors.lock().unwrap_or_else(|p| p.into_inner());
        for d in finished {
            if donors.len() == ARCHIVE_SIZE {
                donors.pop_front();
            }
            donors.push_back(d);
        }
    }
}

/// The donor nearest to `design` in the space scaled by `lower`..`upper` (fixed coordinates,
/// where the bounds coincide, left out), when it is nearer than `baseline`; the first of equals.
pub fn nearest<'a, F>(donors: &'a [Donor<F>], design: &[f64], baseline: &[f64], lower: &[f64], upper: &[f64]) -> Option<&'a Donor<F>> {
    let distance = |x: &[f64]| -> f64 {
        x.iter()
            .zip(design)
            .zip(lower.iter().zip(upper))
            .filter(|(_, (l, u))| u > l)
            .map(|((a, b), (l, u))| ((a - b) / (u - l)).powi(2))
            .sum::<f64>()
    };
    let mut best = (distance(baseline), None);
    for d in donors {
        let r = distance(&d.design);
        if r < best.0 {
            best = (r, Some(d));
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn donor(x: f64, y: f64) -> Donor<u32> {
        Donor { design: vec![x, y], flows: Arc::new(0) }
    }

    #[test]
    fn the_nearest_donor_in_scaled_coordinates_wins_over_the_baseline_only_when_nearer() {
        // The second coordinate spans 100 times the first: 0.5 in it is near.
        let (lower, upper) = ([0.0, 0.0], [1.0, 100.0]);
        let donors = [donor(0.9, 50.0), donor(0.1, 50.5)];
        let found = nearest(&donors, &[0.1, 50.0], &[0.5, 50.0], &lower, &upper).map(|d| d.design.clone());
        assert_eq!(found, Some(vec![0.1, 50.5]));
        assert!(nearest(&donors, &[0.5, 49.0], &[0.5, 50.0], &lower, &upper).is_none(), "the baseline is nearer");
    }

    #[test]
    fn the_archive_keeps_the_most_recent_designs() {
        let archive = DonorArchive::default();
        archive.extend((0..ARCHIVE_SIZE + 3).map(|k| donor(k as f64, 0.0)));
        let kept = archive.snapshot();
        assert_eq!(kept.len(), ARCHIVE_SIZE);
        assert_eq!(kept[0].design[0], 3.0);
        assert_eq!(kept.last().unwrap().design[0], (ARCHIVE_SIZE + 2) as f64);
    }
}
