//! Pareto dominance, non-dominated sorting, crowding distance and the hypervolume indicator:
//! the vocabulary of the multi-objective optimizers. Every objective is minimized.
//!
//! - [`dominates`]: `a` is no worse than `b` in every objective and better in one;
//! - [`MultiScored::constrained_dominates`]: Deb's constrained dominance (Deb, Pratap, Agarwal &
//!   Meyarivan 2002, NSGA-II): feasible beats infeasible, two infeasible designs compare by
//!   total violation, two feasible ones by Pareto dominance;
//! - [`non_dominated_sort`]: the fronts of a population under constrained dominance (the "fast
//!   non-dominated sort" of the same paper);
//! - [`crowding_distances`]: NSGA-II's density estimate within one front;
//! - [`hypervolume`]: the exact volume dominated by a set and bounded by a reference point
//!   (a sweep in two objectives, slicing along the last objective above that: "HSO",
//!   While, Hingston, Barone & Huband 2006).

use serde::{Deserialize, Serialize};

/// What a multi-objective optimizer sees of one evaluation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultiScored {
    /// Objectives to minimize (`+inf` each for a failed evaluation).
    pub objectives: Vec<f64>,
    /// Constraint values (`c <= 0` is feasible); empty for failures.
    #[serde(default)]
    pub constraints: Vec<f64>,
    /// Sum of positive constraint values; 0 when feasible, `+inf` when the evaluation failed.
    pub violation: f64,
    /// Why the evaluation failed.
    pub failure: Option<String>,
}

impl MultiScored {
    /// A design that ran, with its constraint values; a non-finite value makes it a failure.
    pub fn constrained(objectives: Vec<f64>, constraints: Vec<f64>) -> Self {
        if objectives.iter().chain(&constraints).any(|v| !v.is_finite()) {
            return MultiScored::failed("non-finite objective or constraint", objectives.len());
        }
        let violation = constraints.iter().map(|c| c.max(0.0)).sum();
        MultiScored { objectives, constraints, violation, failure: None }
    }
    /// A failed evaluation of a problem with `n_objectives` objectives.
    pub fn failed(reason: impl Into<String>, n_objectives: usize) -> Self {
        MultiScored {
            objectives: vec![f64::INFINITY; n_objectives],
            constraints: Vec::new(),
            violation: f64::INFINITY,
            failure: Some(reason.into()),
        }
    }
    /// Ran, and no constraint is violated.
    pub fn is_feasible(&self) -> bool {
        self.failure.is_none() && self.violation == 0.0
    }
    /// Deb's constrained dominance: a feasible design dominates every infeasible one, an
    /// infeasible one dominates those of larger total violation, and two feasible designs
    /// compare by Pareto dominance.
    pub fn constrained_dominates(&self, other: &MultiScored) -> bool {
        match (self.is_feasible(), other.is_feasible()) {
            (true, true) => dominates(&self.objectives, &other.objectives),
            (true, false) => true,
            (false, true) => false,
            (false, false) => self.violation < other.violation,
        }
    }
}

/// `a` dominates `b`: no worse in every objective and strictly better in at least one.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut better = false;
    for (x, y) in a.iter().zip(b) {
        if x > y {
            return false;
        }
        better |= x < y;
    }
    better
}

/// The fronts of `scores` under constrained dominance, best first: every member of front `k`
/// is dominated only by members of fronts before it. Indices into `scores`.
pub fn non_dominated_sort(scores: &[&MultiScored]) -> Vec<Vec<usize>> {
    let n = scores.len();
    let mut dominated_by_count = vec![0usize; n];
    let mut dominates_list: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            if scores[i].constrained_dominates(scores[j]) {
                dominates_list[i].push(j);
                dominated_by_count[j] += 1;
            } else if scores[j].constrained_dominates(scores[i]) {
                dominates_list[j].push(i);
                dominated_by_count[i] += 1;
            }
        }
    }
    let mut fronts = Vec::new();
    let mut current: Vec<usize> = (0..n).filter(|&i| dominated_by_count[i] == 0).collect();
    while !current.is_empty() {
        let mut next = Vec::new();
        for &i in &current {
            for &j in &dominates_list[i] {
                dominated_by_count[j] -= 1;
                if dominated_by_count[j] == 0 {
                    next.push(j);
                }
            }
        }
        next.sort_unstable();
        fronts.push(std::mem::replace(&mut current, next));
    }
    fronts
}

/// Indices of the feasible designs no other feasible design dominates (duplicates in objective
/// space kept once, the first), in the order of `scores`.
pub fn non_dominated_feasible(scores: &[&MultiScored]) -> Vec<usize> {
    let feasible: Vec<usize> = (0..scores.len()).filter(|&i| scores[i].is_feasible()).collect();
    feasible
        .iter()
        .copied()
        .filter(|&i| {
            feasible.iter().all(|&j| {
                let (a, b) = (&scores[j].objectives, &scores[i].objectives);
                !(dominates(a, b) || (j < i && a == b))
            })
        })
        .collect()
}

/// NSGA-II crowding distance of each member of one front (`objectives[k]` is member k's
/// objective vector): the sum over objectives of the normalized gap between its neighbours
/// along that objective; the extremes of every objective get `+inf`.
pub fn crowding_distances(objectives: &[&[f64]]) -> Vec<f64> {
    let n = objectives.len();
    let mut distance = vec![0.0; n];
    if n <= 2 {
        return vec![f64::INFINITY; n];
    }
    let m = objectives[0].len();
    let mut order: Vec<usize> = (0..n).collect();
    for k in 0..m {
        order.sort_by(|&a, &b| objectives[a][k].total_cmp(&objectives[b][k]));
        let (lo, hi) = (objectives[order[0]][k], objectives[order[n - 1]][k]);
        distance[order[0]] = f64::INFINITY;
        distance[order[n - 1]] = f64::INFINITY;
        if hi > lo {
            for w in 1..n - 1 {
                distance[order[w]] += (objectives[order[w + 1]][k] - objectives[order[w - 1]][k]) / (hi - lo);
            }
        }
    }
    distance
}

/// Hypervolume of the region dominated by `points` and bounded by `reference` (each objective
/// minimized): the Lebesgue measure of the union of the boxes `[p, reference]`. Points that do
/// not strictly dominate the reference in every objective add nothing. Exact: a sweep in two
/// objectives, slicing along the last objective in more (HSO; fine for the fronts of a
/// campaign, a few hundred points in three objectives).
pub fn hypervolume(points: &[&[f64]], reference: &[f64]) -> f64 {
    let inside: Vec<Vec<f64>> =
        points.iter().filter(|p| p.iter().zip(reference).all(|(a, r)| a < r)).map(|p| p.to_vec()).collect();
    hypervolume_of(inside, reference)
}

fn hypervolume_of(mut points: Vec<Vec<f64>>, reference: &[f64]) -> f64 {
    let m = reference.len();
    if points.is_empty() {
        return 0.0;
    }
    match m {
        1 => reference[0] - points.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min),
        2 => {
            points.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
            let mut volume = 0.0;
            let mut level = reference[1];
            for p in &points {
                if p[1] < level {
                    volume += (reference[0] - p[0]) * (level - p[1]);
                    level = p[1];
                }
            }
            volume
        }
        _ => {
            // Slices between consecutive values of the last objective: the points at or below a
            // slice's lower face dominate it, with the (m-1)-dimensional volume of their projection.
            points.sort_by(|a, b| a[m - 1].total_cmp(&b[m - 1]));
            let mut volume = 0.0;
            for k in 0..points.len() {
                let top = points.get(k + 1).map_or(reference[m - 1], |p| p[m - 1]);
                let thickness = top - points[k][m - 1];
                if thickness > 0.0 {
                    let projected: Vec<Vec<f64>> = points[..=k].iter().map(|p| p[..m - 1].to_vec()).collect();
                    volume += thickness * hypervolume_of(projected, &reference[..m - 1]);
                }
            }
            volume
        }
    }
}

/// The reference point a run states when none is given: the worst value of each objective over
/// the feasible designs of `scores` (all designs that ran when none is feasible), pushed out by a
/// tenth of that objective's range over them (of its magnitude, or 1, when the range is zero).
/// `None` when nothing ran.
pub fn default_reference(scores: &[&MultiScored]) -> Option<Vec<f64>> {
    let ran: Vec<&MultiScored> = scores.iter().copied().filter(|s| s.failure.is_none()).collect();
    let feasible: Vec<&MultiScored> = ran.iter().copied().filter(|s| s.is_feasible()).collect();
    let pool = if feasible.is_empty() { ran } else { feasible };
    let m = pool.first()?.objectives.len();
    Some(
        (0..m)
            .map(|k| {
                let (lo, hi) = pool.iter().map(|s| s.objectives[k]).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
                let span = if hi > lo { hi - lo } else { hi.abs().max(1.0) };
                hi + 0.1 * span
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(o: &[f64]) -> MultiScored {
        MultiScored::constrained(o.to_vec(), vec![])
    }

    #[test]
    fn dominance_and_constrained_dominance() {
        assert!(dominates(&[1.0, 2.0], &[1.0, 3.0]));
        assert!(!dominates(&[1.0, 2.0], &[1.0, 2.0]));
        assert!(!dominates(&[0.0, 3.0], &[1.0, 2.0]));
        let infeasible_small = MultiScored::constrained(vec![-9.0, -9.0], vec![0.1]);
        let infeasible_big = MultiScored::constrained(vec![-9.0, -9.0], vec![2.0]);
        let failed = MultiScored::failed("diverged", 2);
        assert!(s(&[5.0, 5.0]).constrained_dominates(&infeasible_small));
        assert!(infeasible_small.constrained_dominates(&infeasible_big));
        assert!(infeasible_big.constrained_dominates(&failed));
        assert!(!failed.constrained_dominates(&failed));
    }

    #[test]
    fn fronts_of_a_small_population() {
        let pop = [s(&[1.0, 4.0]), s(&[2.0, 2.0]), s(&[4.0, 1.0]), s(&[2.0, 4.0]), s(&[3.0, 3.0]), s(&[4.0, 4.0]), MultiScored::failed("x", 2)];
        let refs: Vec<&MultiScored> = pop.iter().collect();
        assert_eq!(non_dominated_sort(&refs), vec![vec![0, 1, 2], vec![3, 4], vec![5], vec![6]]);
        assert_eq!(non_dominated_feasible(&refs), vec![0, 1, 2]);
        let twice = [s(&[1.0, 1.0]), s(&[1.0, 1.0])];
        assert_eq!(non_dominated_feasible(&twice.iter().collect::<Vec<_>>()), vec![0]);
    }

    #[test]
    fn crowding_distance_of_an_even_front() {
        let pts: Vec<Vec<f64>> = (0..5).map(|i| vec![i as f64, 4.0 - i as f64]).collect();
        let refs: Vec<&[f64]> = pts.iter().map(|p| p.as_slice()).collect();
        let d = crowding_distances(&refs);
        assert!(d[0].is_infinite() && d[4].is_infinite());
        // Neighbours two steps apart over a range of 4, in each of two objectives.
        assert!(d[1..4].iter().all(|&v| (v - 1.0).abs() < 1e-15), "{d:?}");
    }

    #[test]
    fn hypervolume_against_boxes_counted_by_hand() {
        let two: Vec<Vec<f64>> = vec![vec![1.0, 3.0], vec![2.0, 2.0], vec![3.0, 1.0], vec![3.5, 3.5]];
        let refs: Vec<&[f64]> = two.iter().map(|p| p.as_slice()).collect();
        // Staircase under (4, 4): 3x1 + 2x1 + 1x1.
        assert_eq!(hypervolume(&refs, &[4.0, 4.0]), 6.0);
        // A point outside the reference box adds nothing.
        assert_eq!(hypervolume(&[&[5.0, 0.0]], &[4.0, 4.0]), 0.0);
        // Three objectives: boxes of volume 2x2x1 and 1x1x2 that share a unit cube.
        let three: Vec<Vec<f64>> = vec![vec![0.0, 0.0, 1.0], vec![1.0, 1.0, 0.0]];
        let refs: Vec<&[f64]> = three.iter().map(|p| p.as_slice()).collect();
        assert_eq!(hypervolume(&refs, &[2.0, 2.0, 2.0]), 4.0 + 2.0 - 1.0);
    }

    #[test]
    fn hypervolume_of_a_sampled_spherical_front_approaches_its_integral() {
        // DTLZ2's front is the positive octant of the unit sphere; against (1,1,1) the dominated
        // volume is 1 - pi/6 (the cube minus the eighth of the ball).
        let n = 60;
        let mut pts = Vec::new();
        for i in 0..=n {
            for j in 0..=n {
                let (a, b) = (i as f64 / n as f64 * std::f64::consts::FRAC_PI_2, j as f64 / n as f64 * std::f64::consts::FRAC_PI_2);
                pts.push(vec![a.cos() * b.cos(), a.cos() * b.sin(), a.sin()]);
            }
        }
        let refs: Vec<&[f64]> = pts.iter().map(|p| p.as_slice()).collect();
        let hv = hypervolume(&refs, &[1.0, 1.0, 1.0]);
        let exact = 1.0 - std::f64::consts::PI / 6.0;
        assert!(hv < exact && hv > exact - 0.03, "{hv} vs {exact}");
    }

    #[test]
    fn default_reference_is_the_widened_nadir_of_the_feasible_designs() {
        let pop = [s(&[1.0, 4.0]), s(&[3.0, 2.0]), MultiScored::constrained(vec![9.0, 9.0], vec![1.0]), MultiScored::failed("x", 2)];
        let refs: Vec<&MultiScored> = pop.iter().collect();
        assert_eq!(default_reference(&refs), Some(vec![3.2, 4.2]));
        assert_eq!(default_reference(&refs[3..]), None);
    }
}
