//! The two pieces of SHADE (Tanabe & Fukunaga 2013, "Success-history based parameter adaptation
//! for differential evolution", IEEE CEC) that differential evolution keeps between
//! generations: the success-history memory of F and CR, and the external archive of parents
//! that lost to their trials. L-SHADE (Tanabe & Fukunaga 2014, "Improving the search
//! performance of SHADE using linear population size reduction", IEEE CEC) adds the terminal
//! CR value and the weighted Lehmer mean for CR, both here.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// H pairs (M_F, M_CR); a new generation draws each individual's F and CR around a random
/// slot, and the slot `next` is overwritten with the weighted means of the successful ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuccessMemory {
    m_f: Vec<f64>,
    /// `None` is L-SHADE's terminal value: once no successful trial had CR > 0, CR stays 0.
    m_cr: Vec<Option<f64>>,
    next: usize,
}

impl SuccessMemory {
    /// `slots` pairs, all at 0.5 as in both papers.
    pub fn new(slots: usize) -> Self {
        SuccessMemory { m_f: vec![0.5; slots.max(1)], m_cr: vec![Some(0.5); slots.max(1)], next: 0 }
    }

    /// F from a Cauchy distribution (location M_F, scale 0.1), redrawn while <= 0 and cut at 1;
    /// CR from a normal one (mean M_CR, sd 0.1) clipped to [0, 1].
    pub fn draw(&self, rng: &mut ChaCha8Rng) -> (f64, f64) {
        let r = rng.random_range(0..self.m_f.len());
        let cr = self.m_cr[r].map_or(0.0, |m| (m + 0.1 * standard_normal(rng)).clamp(0.0, 1.0));
        let f = loop {
            let f = self.m_f[r] + 0.1 * (std::f64::consts::PI * (rng.random::<f64>() - 0.5)).tan();
            if f > 0.0 {
                break f.min(1.0);
            }
        };
        (f, cr)
    }

    /// Record one generation's successes: `(F, CR, improvement)` of every trial that beat its
    /// parent. Weights are the improvements; when some are not finite (a parent that failed),
    /// every success weighs the same.
    pub fn update(&mut self, successes: &[(f64, f64, f64)]) {
        if successes.is_empty() {
            return;
        }
        let finite = successes.iter().all(|s| s.2.is_finite() && s.2 >= 0.0);
        let total: f64 = if finite { successes.iter().map(|s| s.2).sum() } else { 0.0 };
        let weight = |s: &(f64, f64, f64)| if finite && total > 0.0 { s.2 / total } else { 1.0 / successes.len() as f64 };
        let lehmer = |value: fn(&(f64, f64, f64)) -> f64| {
            let num: f64 = successes.iter().map(|s| weight(s) * value(s).powi(2)).sum();
            let den: f64 = successes.iter().map(|s| weight(s) * value(s)).sum();
            if den > 0.0 { num / den } else { 0.0 }
        };
        let k = self.next;
        self.m_f[k] = lehmer(|s| s.0);
        let max_cr = successes.iter().map(|s| s.1).fold(0.0, f64::max);
        self.m_cr[k] = match self.m_cr[k] {
            None => None,
            Some(_) if max_cr == 0.0 => None,
            Some(_) => Some(lehmer(|s| s.1)),
        };
        self.next = (k + 1) % self.m_f.len();
    }

    #[cfg(test)]
    fn means(&self) -> (&[f64], &[Option<f64>]) {
        (&self.m_f, &self.m_cr)
    }
}

/// A standard normal deviate by Box-Muller (rand 0.9 has no normal distribution without
/// rand_distr).
fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// Parents replaced by better trials (JADE, Zhang & Sanderson 2009): the second difference
/// vector of current-to-pbest/1 may take its far end from here, which keeps directions the
/// population has left behind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Archive {
    designs: Vec<Vec<f64>>,
}

impl Archive {
    pub fn len(&self) -> usize {
        self.designs.len()
    }
    pub fn get(&self, i: usize) -> &[f64] {
        &self.designs[i]
    }
    pub fn push(&mut self, x: Vec<f64>) {
        self.designs.push(x);
    }
    /// Remove random members until at most `capacity` remain.
    pub fn shrink_to(&mut self, capacity: usize, rng: &mut ChaCha8Rng) {
        while self.designs.len() > capacity {
            let i = rng.random_range(0..self.designs.len());
            self.designs.swap_remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn memory_moves_towards_successful_parameters() {
        let mut m = SuccessMemory::new(2);
        m.update(&[(0.9, 0.8, 1.0), (0.7, 0.6, 3.0)]);
        // Weighted Lehmer mean of F: (0.25 * 0.81 + 0.75 * 0.49) / (0.25 * 0.9 + 0.75 * 0.7).
        let expected = (0.25 * 0.81 + 0.75 * 0.49) / (0.25 * 0.9 + 0.75 * 0.7);
        assert!((m.means().0[0] - expected).abs() < 1e-12);
        assert_eq!(m.means().0[1], 0.5);
        // A generation whose successes all had CR = 0 fixes that slot's CR at 0 for good.
        m.update(&[(0.5, 0.0, 1.0)]);
        m.update(&[(0.5, 0.9, f64::INFINITY)]);
        assert_eq!(m.means().1[1], None);
        assert!(m.means().1[0].is_some_and(|c| (c - 0.9).abs() < 1e-12), "{:?}", m.means().1);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..1000 {
            let (f, cr) = m.draw(&mut rng);
            assert!(f > 0.0 && f <= 1.0 && (0.0..=1.0).contains(&cr));
        }
    }

    #[test]
    fn archive_shrinks_at_random() {
        let mut a = Archive::default();
        for i in 0..10 {
            a.push(vec![i as f64]);
        }
        a.shrink_to(4, &mut ChaCha8Rng::seed_from_u64(2));
        assert_eq!(a.len(), 4);
    }
}
