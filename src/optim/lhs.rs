//! Latin hypercube sampling on the unit cube (McKay, Beckman & Conover 1979): every variable's
//! range is cut into n equal strata and each stratum holds exactly one sample.

use rand::seq::SliceRandom;
use rand::Rng;

/// `n` points in `[0, 1)^dim`, one per stratum in every dimension, jittered inside the stratum.
pub fn latin_hypercube<R: Rng + ?Sized>(n: usize, dim: usize, rng: &mut R) -> Vec<Vec<f64>> {
    let mut points = vec![vec![0.0; dim]; n];
    let mut strata: Vec<usize> = (0..n).collect();
    for j in 0..dim {
        strata.shuffle(rng);
        for (p, &s) in points.iter_mut().zip(&strata) {
            p[j] = (s as f64 + rng.random::<f64>()) / n as f64;
        }
    }
    points
}

/// The best of `candidates` Latin hypercubes by the maximin criterion (largest smallest
/// pairwise distance, Johnson, Moore & Ylvisaker 1990): a space-filling initial database for
/// Kriging.
pub fn maximin_latin_hypercube<R: Rng + ?Sized>(n: usize, dim: usize, candidates: usize, rng: &mut R) -> Vec<Vec<f64>> {
    let mut best = latin_hypercube(n, dim, rng);
    let mut best_d = min_pairwise_distance2(&best);
    for _ in 1..candidates.max(1) {
        let c = latin_hypercube(n, dim, rng);
        let d = min_pairwise_distance2(&c);
        if d > best_d {
            best = c;
            best_d = d;
        }
    }
    best
}

fn min_pairwise_distance2(points: &[Vec<f64>]) -> f64 {
    let mut m = f64::INFINITY;
    for i in 0..points.len() {
        for j in 0..i {
            m = m.min(points[i].iter().zip(&points[j]).map(|(a, b)| (a - b) * (a - b)).sum());
        }
    }
    m
}

/// Map a unit-cube point onto the box `[lower, upper]`.
pub fn scale_to_box(unit: &[f64], lower: &[f64], upper: &[f64]) -> Vec<f64> {
    unit.iter().zip(lower.iter().zip(upper)).map(|(u, (l, h))| l + u * (h - l)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn one_point_per_stratum() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let n = 17;
        let pts = maximin_latin_hypercube(n, 4, 5, &mut rng);
        for j in 0..4 {
            let mut seen = vec![false; n];
            for p in &pts {
                assert!((0.0..1.0).contains(&p[j]));
                seen[(p[j] * n as f64) as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "dimension {j}");
        }
    }
}
