//! An [`Evaluator`] wrapper that remembers results by the exact bit pattern of the design
//! vector, so a design an optimizer proposes twice (DE survivors, a surrogate re-proposing a
//! sample, a resumed campaign) costs one CFD run. Thread-safe; hits are marked
//! `diagnostics.cached = true`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{DesignSpace, Evaluation, Evaluator};

/// Cache key: the IEEE-754 bit patterns (so -0.0 and 0.0 are different designs, NaN is usable).
fn key(design: &[f64]) -> Vec<u64> {
    design.iter().map(|v| v.to_bits()).collect()
}

/// Caching wrapper around any evaluator.
pub struct CachedEvaluator<E: Evaluator> {
    inner: E,
    store: Mutex<HashMap<Vec<u64>, Evaluation>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
}

impl<E: Evaluator> CachedEvaluator<E> {
    /// Wrap `inner` with an empty cache.
    pub fn new(inner: E) -> Self {
        CachedEvaluator { inner, store: Mutex::new(HashMap::new()), hits: AtomicUsize::new(0), misses: AtomicUsize::new(0) }
    }
    /// The wrapped evaluator.
    pub fn inner(&self) -> &E {
        &self.inner
    }
    /// Number of evaluations answered from the cache.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::Relaxed)
    }
    /// Number of evaluations passed on to the wrapped evaluator.
    pub fn misses(&self) -> usize {
        self.misses.load(Ordering::Relaxed)
    }
    /// Number of distinct designs stored.
    pub fn len(&self) -> usize {
        self.lock().len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Vec<u64>, Evaluation>> {
        // A panic in another thread while holding the lock leaves a map that is still valid.
        self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn lookup(&self, design: &[f64]) -> Option<Evaluation> {
        self.lock().get(&key(design)).map(|e| {
            let mut e = e.clone();
            e.diagnostics.cached = true;
            e
        })
    }
}

impl<E: Evaluator> Evaluator for CachedEvaluator<E> {
    fn space(&self) -> &DesignSpace {
        self.inner.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        if let Some(hit) = self.lookup(design) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return hit;
        }
        let fresh = self.inner.evaluate(design);
        self.misses.fetch_add(1, Ordering::Relaxed);
        self.lock().insert(key(design), fresh.clone());
        fresh
    }

    /// Looks every design up first and sends only the distinct misses to the wrapped
    /// evaluator, as one batch (duplicates inside the batch are evaluated once).
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        let mut out: Vec<Option<Evaluation>> = designs.iter().map(|d| self.lookup(d)).collect();
        let mut pending: Vec<Vec<f64>> = Vec::new();
        let mut pending_index: HashMap<Vec<u64>, usize> = HashMap::new();
        for (d, slot) in designs.iter().zip(&out) {
            if slot.is_none() && !pending_index.contains_key(&key(d)) {
                pending_index.insert(key(d), pending.len());
                pending.push(d.clone());
            }
        }
        let fresh = if pending.is_empty() { Vec::new() } else { self.inner.evaluate_batch(&pending) };
        self.misses.fetch_add(fresh.len(), Ordering::Relaxed);
        {
            let mut store = self.lock();
            for (d, e) in pending.iter().zip(&fresh) {
                store.insert(key(d), e.clone());
            }
        }
        let mut first_use = vec![true; fresh.len()];
        for (d, slot) in designs.iter().zip(out.iter_mut()) {
            if slot.is_some() {
                self.hits.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let j = pending_index[&key(d)];
            let mut e = fresh[j].clone();
            // A duplicate inside the batch is a cache hit after its first occurrence.
            e.diagnostics.cached = !first_use[j];
            if !first_use[j] {
                self.hits.fetch_add(1, Ordering::Relaxed);
            }
            first_use[j] = false;
            *slot = Some(e);
        }
        out.into_iter().map(|e| e.expect("every slot filled above")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::analytic::{AnalyticEvaluator, AnalyticProblem};

    #[test]
    fn second_call_is_a_marked_hit_with_the_same_values() {
        let c = CachedEvaluator::new(AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap());
        let a = c.evaluate(&[1.0, 2.0]);
        let b = c.evaluate(&[1.0, 2.0]);
        assert!(!a.diagnostics.cached && b.diagnostics.cached);
        assert_eq!(a.objectives, b.objectives);
        assert_eq!((c.hits(), c.misses()), (1, 1));
    }

    #[test]
    fn batch_sends_only_distinct_misses() {
        let c = CachedEvaluator::new(AnalyticEvaluator::new(AnalyticProblem::Branin).unwrap());
        c.evaluate(&[0.0, 0.0]);
        let batch = vec![vec![0.0, 0.0], vec![1.0, 1.0], vec![1.0, 1.0], vec![-0.0, 0.0]];
        let out = c.evaluate_batch(&batch);
        assert_eq!(out.len(), 4);
        let cached: Vec<bool> = out.iter().map(|e| e.diagnostics.cached).collect();
        assert_eq!(cached, vec![true, false, true, false]);
        assert_eq!(c.misses(), 3, "(0,0) once, (1,1) once, (-0,0) once");
        assert_eq!(c.len(), 3);
        assert_eq!(out[1].objectives, out[2].objectives);
    }

    #[test]
    fn shared_between_threads() {
        let c = CachedEvaluator::new(AnalyticEvaluator::new(AnalyticProblem::Hartmann6).unwrap());
        std::thread::scope(|s| {
            for _ in 0..4 {
                let c = &c;
                s.spawn(move || {
                    for i in 0..50 {
                        c.evaluate(&[0.01 * (i % 10) as f64, 0.5, 0.5, 0.5, 0.5, 0.5]);
                    }
                });
            }
        });
        assert_eq!(c.len(), 10);
        assert_eq!(c.hits() + c.misses(), 200);
    }
}
