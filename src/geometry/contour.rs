//! Points of a closed profile put in contour order.
//!
//! Coordinate files do not always list a profile's points round its contour: some swap a few
//! rows, some list a point cloud or mirrored pairs. For a well-sampled closed curve the contour
//! is the shortest closed tour through its points, so the order is found as a travelling
//! salesman tour: the nearest-neighbour tour from the most upstream point, improved by 2-opt
//! moves (reversing the stretch between two edges whenever that shortens the tour, which also
//! removes every crossing) until none shortens it (Croes 1958; Johnson & McGeoch, "The
//! traveling salesman problem: a case study in local optimization", 1997).

use super::{dist, Point2};

/// Passes of 2-opt at most; each pass tries every pair of edges once.
const MAX_PASSES: usize = 50;

/// The order of `points` (indices) round the shortest closed tour the heuristics find.
pub fn contour_order(points: &[Point2]) -> Vec<usize> {
    let n = points.len();
    if n < 4 {
        return (0..n).collect();
    }
    let mut tour = nearest_neighbour_tour(points);
    for _ in 0..MAX_PASSES {
        if !two_opt_pass(points, &mut tour) {
            break;
        }
    }
    tour
}

/// Length of the closed tour through `points` in the order `order`.
pub fn tour_length(points: &[Point2], order: &[usize]) -> f64 {
    let n = order.len();
    (0..n).map(|k| dist(points[order[k]], points[order[(k + 1) % n]])).sum()
}

/// From the most upstream point, always on to the nearest point not yet visited.
fn nearest_neighbour_tour(points: &[Point2]) -> Vec<usize> {
    let n = points.len();
    let start = (0..n).min_by(|&a, &b| points[a][0].total_cmp(&points[b][0])).unwrap_or(0);
    let mut visited = vec![false; n];
    let mut tour = Vec::with_capacity(n);
    let mut here = start;
    for _ in 0..n {
        visited[here] = true;
        tour.push(here);
        let next = (0..n).filter(|&k| !visited[k]).min_by(|&a, &b| dist(points[here], points[a]).total_cmp(&dist(points[here], points[b])));
        match next {
            Some(k) => here = k,
            None => break,
        }
    }
    tour
}

/// One pass of 2-opt over every pair of edges (a, a+1), (b, b+1): the stretch a+1..=b is
/// reversed where that shortens the tour. Whether anything changed.
fn two_opt_pass(points: &[Point2], tour: &mut [usize]) -> bool {
    let n = tour.len();
    let at = |t: &[usize], k: usize| points[t[k % n]];
    let mut improved = false;
    for a in 0..n - 2 {
        for b in a + 2..n {
            if a == 0 && b == n - 1 {
                continue;
            }
            let (p, q, r, s) = (at(tour, a), at(tour, a + 1), at(tour, b), at(tour, b + 1));
            let gain = dist(p, q) + dist(r, s) - dist(p, r) - dist(q, s);
            if gain > 1e-12 * (dist(p, q) + dist(r, s)) {
                tour[a + 1..=b].reverse();
                improved = true;
            }
        }
    }
    improved
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ellipse-like blade section sampled round its contour.
    fn contour(n: usize) -> Vec<Point2> {
        (0..n)
            .map(|k| {
                let t = std::f64::consts::TAU * k as f64 / n as f64;
                [0.05 * (1.0 - t.cos()), 0.008 * t.sin() + 0.004 * (1.0 - t.cos()).powi(2)]
            })
            .collect()
    }

    /// Whether `order` runs round the contour (either way), from any start.
    fn runs_round(order: &[usize]) -> bool {
        let n = order.len();
        let forward = (0..n).all(|k| (order[(k + 1) % n] + n - order[k]) % n == 1);
        let backward = (0..n).all(|k| (order[k] + n - order[(k + 1) % n]) % n == 1);
        forward || backward
    }

    #[test]
    fn a_shuffled_contour_is_put_back_in_order() {
        let points = contour(200);
        // A fixed shuffle: multiply the indices by a number prime to 200.
        let shuffled: Vec<Point2> = (0..200).map(|k| points[(k * 37) % 200]).collect();
        let order = contour_order(&shuffled);
        let original: Vec<usize> = order.iter().map(|&k| (k * 37) % 200).collect();
        assert!(runs_round(&original), "{original:?}");
    }

    #[test]
    fn mirrored_pairs_are_untangled() {
        // Points listed as pairs (x, y), (-x, y) of a symmetric profile.
        let half: Vec<Point2> = (0..=60).map(|k| {
            let x = 0.05 * k as f64 / 60.0;
            [x, 0.01 * (1.0 - (x / 0.05).powi(2)).max(0.0).sqrt() + 0.002]
        }).collect();
        let mut pairs = Vec::new();
        for p in &half {
            pairs.push([p[0], p[1]]);
            pairs.push([-p[0], p[1]]);
            pairs.push([p[0], -p[1]]);
            pairs.push([-p[0], -p[1]]);
        }
        pairs.sort_by(|a, b| a[0].abs().total_cmp(&b[0].abs()));
        pairs.dedup_by(|a, b| dist(*a, *b) < 1e-15);
        let order = contour_order(&pairs);
        let length = tour_length(&pairs, &order);
        // Round the profile: close to the ellipse-like perimeter, far below the file order's.
        assert!(length < 0.5 * tour_length(&pairs, &(0..pairs.len()).collect::<Vec<_>>()));
        // No two edges of the tour cross.
        let n = order.len();
        let seg = |k: usize| (pairs[order[k]], pairs[order[(k + 1) % n]]);
        let cross = |a: Point2, b: Point2, c: Point2| (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        for i in 0..n {
            for j in i + 2..n {
                if i == 0 && j == n - 1 {
                    continue;
                }
                let ((p, q), (r, s)) = (seg(i), seg(j));
                let crossing = cross(p, q, r) * cross(p, q, s) < 0.0 && cross(r, s, p) * cross(r, s, q) < 0.0;
                assert!(!crossing, "edges {i} and {j} cross");
            }
        }
    }

    #[test]
    fn a_contour_in_order_keeps_its_order() {
        let points = contour(120);
        let order = contour_order(&points);
        assert!(runs_round(&order));
        assert!((tour_length(&points, &order) - tour_length(&points, &(0..120).collect::<Vec<_>>())).abs() < 1e-15);
    }
}
