//! The most recent designs an evaluator solved, each with what it keeps of the solution (shared,
//! so that a snapshot costs no copy of it): the donor flows of `warm_start_from: Nearest`
//! (`eval::donors`) and the blade-surface figures a campaign's pictures show.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// A solved design and what is kept of it (`F`: the evaluator's type).
pub struct Archived<F> {
    pub design: Vec<f64>,
    pub data: Arc<F>,
}

impl<F> Clone for Archived<F> {
    fn clone(&self) -> Self {
        Archived { design: self.design.clone(), data: Arc::clone(&self.data) }
    }
}

/// At most `capacity` designs, the oldest out first. Thread-safe.
pub struct RecentDesigns<F> {
    capacity: usize,
    entries: Mutex<VecDeque<Archived<F>>>,
}

impl<F> RecentDesigns<F> {
    pub fn with_capacity(capacity: usize) -> Self {
        RecentDesigns { capacity, entries: Mutex::new(VecDeque::new()) }
    }

    /// Every design kept now, oldest first.
    pub fn snapshot(&self) -> Vec<Archived<F>> {
        self.lock().iter().cloned().collect()
    }

    /// Adds designs in the given order, dropping the oldest beyond the capacity (an archive of
    /// capacity 0 keeps nothing).
    pub fn extend(&self, designs: impl IntoIterator<Item = Archived<F>>) {
        let mut entries = self.lock();
        for d in designs {
            entries.push_back(d);
            if entries.len() > self.capacity {
                entries.pop_front();
            }
        }
    }

    /// What is kept of exactly this design (the same bits), the latest if it was solved twice.
    pub fn find(&self, design: &[f64]) -> Option<Arc<F>> {
        let same = |d: &Archived<F>| d.design.len() == design.len() && d.design.iter().zip(design).all(|(a, b)| a.to_bits() == b.to_bits());
        self.lock().iter().rev().find(|d| same(d)).map(|d| Arc::clone(&d.data))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Archived<F>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(x: f64, value: u32) -> Archived<u32> {
        Archived { design: vec![x, 0.0], data: Arc::new(value) }
    }

    #[test]
    fn the_archive_keeps_the_most_recent_designs() {
        let archive = RecentDesigns::with_capacity(4);
        archive.extend((0..7).map(|k| entry(k as f64, k)));
        let kept = archive.snapshot();
        assert_eq!(kept.iter().map(|d| d.design[0]).collect::<Vec<_>>(), vec![3.0, 4.0, 5.0, 6.0]);
        let none = RecentDesigns::with_capacity(0);
        none.extend([entry(1.0, 1)]);
        assert!(none.snapshot().is_empty());
    }

    #[test]
    fn find_matches_the_exact_design_and_prefers_the_latest() {
        let archive = RecentDesigns::with_capacity(4);
        archive.extend([entry(1.0, 10), entry(2.0, 20), entry(1.0, 11)]);
        assert_eq!(archive.find(&[1.0, 0.0]).as_deref(), Some(&11));
        assert_eq!(archive.find(&[2.0, 0.0]).as_deref(), Some(&20));
        assert!(archive.find(&[2.0, -0.0]).is_none(), "-0.0 is another design, as in the evaluation cache");
        assert!(archive.find(&[2.0]).is_none());
    }
}
