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

use super::archive::Archived;
use serde::{Deserialize, Serialize};

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

/// The donor nearest to `design` in the space scaled by `lower`..`upper` (fixed coordinates,
/// where the bounds coincide, left out), when it is nearer than `baseline`; the first of equals.
pub fn nearest<'a, F>(donors: &'a [Archived<F>], design: &[f64], baseline: &[f64], lower: &[f64], upper: &[f64]) -> Option<&'a Archived<F>> {
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

    fn donor(x: f64, y: f64) -> Archived<u32> {
        Archived { design: vec![x, y], data: std::sync::Arc::new(0) }
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
}
