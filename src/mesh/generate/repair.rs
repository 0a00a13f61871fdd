//! Local repair of a structured grid's worst cells: the nodes round every cell with a corner
//! angle outside [[`REPAIR_ANGLE_DEG`], 180 - it] (folded cells included) move, one at a time,
//! to lower the squares of those angles' excesses, the edges either side of each node along a
//! grid line kept within [`REPAIR_RATIO`] of each other.
//!
//! It is the optimization-based smoothing of the mesh-quality literature (Knupp, "Achieving
//! finite element mesh quality via optimization of the Jacobian matrix norm and associated
//! quantities", Int. J. Numer. Meth. Eng. 48, 2000; his untangling, Engineering with
//! Computers 17, 2001, is the folded-cell case here: a folded corner has a negative signed
//! angle), applied only where a cell is poor, so that a grid without one is left bit for bit.
//! The mesher builds each block so that few cells need it: a wrap round a thin trailing edge,
//! a block corner, the boundary-layer block over a notch in the wall.

use super::distribution::P2;

/// Corner angle below which (and above 180 less which) a cell's corner is repaired \[deg\]:
/// equiangle skewness 2/3.
const REPAIR_ANGLE_DEG: f64 = 30.0;
/// A corner whose squared cosine is below this (and whose sine is positive) lies inside
/// [[`REPAIR_ANGLE_DEG`], 180 - it] with room to spare: cos^2 31 deg.
const INSIDE_COS_SQUARED: f64 = 0.734_735_781_392_945_5;
/// Largest ratio of the two edges either side of a repaired node along a grid line.
const REPAIR_RATIO: f64 = 1.25;
/// Weight of an edge ratio's excess (in its logarithm) against an angle's (in degrees).
const RATIO_WEIGHT: f64 = 100.0;
/// Whether the ratio of a node's edges is kept also where one of them ends on a fixed node.
const KEEP_FIXED_RATIOS: bool = true;
/// Fewest nodes a parallel task of a repair sweep takes (a step costs three or four penalties;
/// a colour of a coarse passage has a few hundred nodes, which sixteen threads share).
const MIN_NODES_PER_TASK: usize = 16;
/// Sweeps of the repair over its nodes.
const REPAIR_SWEEPS: usize = 60;
/// Nodes round a poor cell that the repair may move, in index steps.
const REPAIR_REACH: usize = 2;

/// How a node moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    Free,
    Fixed,
    /// On the plane x = const through it; its neighbours across the plane are mirrors.
    SlidePlane,
}

/// A movable node and its neighbours east, west, north, south, north-east, north-west,
/// south-east, south-west: (index into the positions, pitches their position is shifted by
/// relative to this node); None where the grid ends at a plane the node slides on (mirrored).
#[derive(Clone, Copy, Debug)]
pub struct Node {
    pub node: usize,
    pub motion: Motion,
    pub n: [Option<(usize, i32)>; 8],
}

/// For each grid line through a node (i, then j), whether the repair keeps the ratio of the
/// node's two edges along it: not where one of them ends on a node that does not move (the
/// boundary-layer block's outer curve, an entrance or exit line), whose cell beyond the
/// repair cannot see.
fn ratio_lines(s: &Node, movable: &[bool]) -> [bool; 2] {
    let free = |m: usize| s.n[m].map_or(true, |(k, _)| movable[k]);
    [free(0) && free(1), free(2) && free(3)]
}

/// Position of neighbour `m` of `s` (mirrored in the plane x = const through the node where
/// the grid ends there).
pub fn neighbour(s: &Node, x: &[P2], pitch: f64, m: usize) -> P2 {
    let pos = |(k, shift): (usize, i32)| [x[k][0], x[k][1] + shift as f64 * pitch];
    match s.n[m] {
        Some(n) => pos(n),
        None => {
            // Mirror of the neighbour across the plane: east <-> west, NE <-> NW, SE <-> SW.
            let opposite = [1, 0, 3, 2, 5, 4, 7, 6][m];
            let q = s.n[opposite].map(pos).unwrap_or(x[s.node]);
            let plane = x[s.node][0];
            [2.0 * plane - q[0], q[1]]
        }
    }
}

/// `p` moved back onto the plane that `s`'s node slides on.
pub fn constrained(s: &Node, x: &[P2], p: P2) -> P2 {
    match s.motion {
        Motion::SlidePlane => [x[s.node][0], p[1]],
        _ => p,
    }
}

/// The four cells round a node, each as its corners counter-clockwise from the node: indices
/// into the neighbours (east 0, west 1, north 2, south 3, NE 4, NW 5, SE 6, SW 7), the node
/// itself as 8.
const CELLS: [[usize; 4]; 4] = [[8, 0, 4, 2], [8, 2, 5, 1], [8, 1, 7, 3], [8, 3, 6, 0]];

fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// The penalty of the node at `c` with neighbours `nb`: for every corner of its four cells,
/// the square of how far its signed angle lies below [`REPAIR_ANGLE_DEG`] or above its
/// supplement (a folded corner's is negative), and for each grid line through the node the
/// square of how far the ratio of the edges either side exceeds [`REPAIR_RATIO`].
fn penalty(nb: &[P2; 8], c: P2, ratio_lines: [bool; 2]) -> f64 {
    penalty_terms(nb, c, ratio_lines, false).0
}

/// The penalty and its gradient with respect to the node's position.
fn penalty_with_gradient(nb: &[P2; 8], c: P2, ratio_lines: [bool; 2]) -> (f64, P2) {
    penalty_terms(nb, c, ratio_lines, true)
}

/// How the two edges of a corner move with the node: d(u)/d(c) and d(v)/d(c) as multiples of
/// the identity, for corners 0, 1, 3 of a cell whose corner 0 is the node (corner 2 does not
/// move with it).
const EDGE_MOTION: [(f64, f64); 4] = [(-1.0, -1.0), (0.0, 1.0), (0.0, 0.0), (1.0, 0.0)];

/// The penalty (see [`penalty`]) and, when `with_gradient`, its gradient: the corner angle
/// theta = atan2(u x v, u . v) of edges u, v has d(theta) = (C dS - S dC) / (S^2 + C^2).
fn penalty_terms(nb: &[P2; 8], c: P2, ratio_lines: [bool; 2], with_gradient: bool) -> (f64, P2) {
    let at = |m: usize| if m == 8 { c } else { nb[m] };
    let (mut sum, mut grad) = (0.0, [0.0; 2]);
    for cell in CELLS {
        let q = cell.map(at);
        for k in [0, 1, 3] {
            let (p, a, b) = (q[k], q[(k + 1) % 4], q[(k + 3) % 4]);
            let (u, v) = ([a[0] - p[0], a[1] - p[1]], [b[0] - p[0], b[1] - p[1]]);
            let (sin, cos) = (u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1]);
            // Most corners lie well inside the bounds: no angle needed (the penalty's cost).
            if sin > 0.0 && cos * cos < INSIDE_COS_SQUARED * ((u[0] * u[0] + u[1] * u[1]) * (v[0] * v[0] + v[1] * v[1])) {
                continue;
            }
            let theta = sin.atan2(cos).to_degrees();
            let low = (REPAIR_ANGLE_DEG - theta).max(0.0);
            let high = (theta - (180.0 - REPAIR_ANGLE_DEG)).max(0.0);
            sum += low * low + high * high;
            let norm = sin * sin + cos * cos;
            if with_gradient && norm > 0.0 {
                let (du, dv) = EDGE_MOTION[k];
                let d_sin = [du * v[1] - dv * u[1], -du * v[0] + dv * u[0]];
                let d_cos = [du * v[0] + dv * u[0], du * v[1] + dv * u[1]];
                let d_f = 2.0 * (high - low) * 180.0 / std::f64::consts::PI / norm;
                for d in 0..2 {
                    grad[d] += d_f * (cos * d_sin[d] - sin * d_cos[d]);
                }
            }
        }
    }
    let len = |m: usize| dist(c, nb[m]);
    for (a, b) in [(0, 1), (2, 3)] {
        if ratio_lines[a / 2] || KEEP_FIXED_RATIOS {
            let (la, lb) = (len(a), len(b));
            let log_ratio = (la / lb).ln();
            let excess = (log_ratio.abs() - REPAIR_RATIO.ln()).max(0.0) * RATIO_WEIGHT;
            sum += excess * excess;
            if with_gradient && excess > 0.0 {
                // d ln(la / lb) = (c - a) . dc / la^2 - (c - b) . dc / lb^2.
                let scale = 2.0 * excess * RATIO_WEIGHT * log_ratio.signum();
                for d in 0..2 {
                    grad[d] += scale * ((c[d] - nb[a][d]) / (la * la) - (c[d] - nb[b][d]) / (lb * lb));
                }
            }
        }
    }
    (sum, grad)
}

/// Signed areas of the four cells round the node at `c`.
fn areas(nb: &[P2; 8], c: P2) -> [f64; 4] {
    let at = |m: usize| if m == 8 { c } else { nb[m] };
    CELLS.map(|cell| {
        let q = cell.map(at);
        0.5 * ((q[2][0] - q[0][0]) * (q[3][1] - q[1][1]) - (q[2][1] - q[0][1]) * (q[3][0] - q[1][0]))
    })
}

/// Repairs the cells round `nodes` (their positions in `x`, periodic images `pitch` apart in
/// y) that have a corner angle outside the bounds; returns whether any was poor. Each move is
/// a descent step along the penalty's numerical gradient, at most a fifth of the distance to
/// the nearest neighbour, halved until the penalty falls.
pub fn repair(nodes: &[Node], x: &mut [P2], pitch: f64) -> bool {
    let mut index = vec![usize::MAX; x.len()];
    for (k, s) in nodes.iter().enumerate() {
        index[s.node] = k;
    }
    let around = |s: &Node, x: &[P2]| -> [P2; 8] { std::array::from_fn(|m| neighbour(s, x, pitch, m)) };
    let mut movable = vec![false; x.len()];
    for s in nodes {
        movable[s.node] = true;
    }
    let lines: Vec<[bool; 2]> = nodes.iter().map(|s| ratio_lines(s, &movable)).collect();
    let mut active: Vec<usize> = (0..nodes.len()).filter(|&k| penalty(&around(&nodes[k], x), x[nodes[k].node], lines[k]) > 0.0).collect();
    if active.is_empty() {
        return false;
    }
    for _ in 0..REPAIR_REACH {
        let mut more = active.clone();
        for &k in &active {
            more.extend(nodes[k].n.iter().flatten().map(|n| index[n.0]).filter(|&q| q != usize::MAX));
        }
        more.sort_unstable();
        more.dedup();
        active = more;
    }
    // Nodes of one colour share no cell, so each colour's steps run in parallel.
    let colours = colouring(nodes, &active, &index);
    // A node that could not improve is tried again only after a neighbour of it moved.
    let mut retry = vec![true; nodes.len()];
    for _ in 0..REPAIR_SWEEPS {
        let mut moved = Vec::new();
        for colour in &colours {
            use rayon::prelude::*;
            let steps: Vec<(usize, P2)> = colour
                .par_iter()
                .with_min_len(MIN_NODES_PER_TASK)
                .filter(|&&k| retry[k])
                .filter_map(|&k| improve(&nodes[k], x, pitch, lines[k]).map(|p| (k, p)))
                .collect();
            for &k in colour {
                retry[k] = false;
            }
            for (k, p) in steps {
                x[nodes[k].node] = p;
                moved.push(k);
            }
        }
        if moved.is_empty() {
            break;
        }
        for &k in &moved {
            retry[k] = true;
            for n in nodes[k].n.iter().flatten() {
                if index[n.0] != usize::MAX {
                    retry[index[n.0]] = true;
                }
            }
        }
    }
    true
}

/// A greedy colouring of the `active` nodes in which no two neighbours (of the eight) share a
/// colour: the node lists per colour.
fn colouring(nodes: &[Node], active: &[usize], index: &[usize]) -> Vec<Vec<usize>> {
    let mut colour = vec![usize::MAX; nodes.len()];
    let mut out: Vec<Vec<usize>> = Vec::new();
    for &k in active {
        let taken: Vec<usize> = nodes[k].n.iter().flatten().map(|n| index[n.0]).filter(|&q| q != usize::MAX).map(|q| colour[q]).collect();
        let c = (0..).find(|c| !taken.contains(c)).unwrap_or(0);
        colour[k] = c;
        if out.len() <= c {
            out.resize(c + 1, Vec::new());
        }
        out[c].push(k);
    }
    out
}

/// One descent step of the node of `s`: where it moves, if it does.
fn improve(s: &Node, x: &[P2], pitch: f64, lines: [bool; 2]) -> Option<P2> {
    let nb: [P2; 8] = std::array::from_fn(|m| neighbour(s, x, pitch, m));
    let c = x[s.node];
    let (before, mut grad) = penalty_with_gradient(&nb, c, lines);
    if before == 0.0 || !before.is_finite() {
        return None;
    }
    if s.motion == Motion::SlidePlane {
        grad[0] = 0.0;
    }
    let nearest = [0, 1, 2, 3].iter().map(|&m| dist(c, nb[m])).fold(f64::INFINITY, f64::min);
    let g = grad[0].hypot(grad[1]);
    if !(g > 0.0) || !g.is_finite() {
        return None;
    }
    // A first step that would clear the penalty if it were linear, at most a fifth of the
    // distance to the nearest neighbour.
    let mut t = (before / (g * g)).min(0.2 * nearest / g);
    let unfolded = areas(&nb, c).map(|a| a > 0.0);
    for _ in 0..30 {
        let p = constrained(s, x, [c[0] - t * grad[0], c[1] - t * grad[1]]);
        // A step never folds a cell that was not folded, nor leaves the node's neighbours.
        let keeps = areas(&nb, p).iter().zip(&unfolded).all(|(&a, &was)| a > 0.0 || !was) && within_reach(&nb, p);
        if keeps && penalty(&nb, p, lines) < before {
            return Some(p);
        }
        t *= 0.5;
    }
    None
}

/// Whether `p` lies no farther from the centroid of the node's eight neighbours `nb` than the
/// farthest of them: where cells are folded the penalty can fall as a node runs away from all
/// its neighbours (its edges then grow alike and its cells' angles open), a minimum at infinity
/// that this bound excludes.
fn within_reach(nb: &[P2; 8], p: P2) -> bool {
    let centre = [0, 1].map(|d| nb.iter().map(|q| q[d]).sum::<f64>() / 8.0);
    let reach = nb.iter().map(|&q| dist(q, centre)).fold(0.0, f64::max);
    dist(p, centre) <= reach
}

/// The movable nodes of a structured grid of `(ni+1) x (nj+1)` nodes (i fastest, positions
/// as in `Grid`), `periodic_i` when column ni repeats column 0 (an O-grid; its last column is
/// then not a node of its own), `movable(i, j)` saying which nodes move.
pub fn grid_nodes(ni: usize, nj: usize, periodic_i: bool, movable: impl Fn(usize, usize) -> bool) -> Vec<Node> {
    let id = |i: usize, j: usize| i + (ni + 1) * j;
    let wrap = |i: isize| -> Option<usize> {
        if periodic_i {
            Some(i.rem_euclid(ni as isize) as usize)
        } else if i < 0 || i > ni as isize {
            None
        } else {
            Some(i as usize)
        }
    };
    let mut out = Vec::new();
    let columns = if periodic_i { ni } else { ni + 1 };
    for j in 1..nj {
        for i in 0..columns {
            if !movable(i, j) {
                continue;
            }
            let at = |di: isize, dj: isize| wrap(i as isize + di).map(|ii| (id(ii, (j as isize + dj) as usize), 0));
            let n = [at(1, 0), at(-1, 0), at(0, 1), at(0, -1), at(1, 1), at(-1, 1), at(1, -1), at(-1, -1)];
            if n.iter().all(Option::is_some) {
                out.push(Node { node: id(i, j), motion: Motion::Free, n });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The eight neighbours' places round a node at the origin (east, west, north, south, NE,
    /// NW, SE, SW).
    const OFFSETS: [P2; 8] = [[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]];

    /// `c` moved by +h and -h along coordinate `d`.
    fn either_side(c: P2, d: usize, h: f64) -> (P2, P2) {
        let (mut a, mut b) = (c, c);
        a[d] += h;
        b[d] -= h;
        (a, b)
    }

    /// The analytic gradient of the penalty against central differences, on random distorted
    /// stencils (poor and folded cells among them) away from the penalty's kinks.
    #[test]
    fn penalty_gradient_matches_central_differences() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut checked = 0;
        for _ in 0..2000 {
            let nb: [P2; 8] = OFFSETS.map(|o| [o[0] + rng.random_range(-0.6..0.6), 0.7 * o[1] + rng.random_range(-0.6..0.6)]);
            let c = [rng.random_range(-0.5..0.5), rng.random_range(-0.5..0.5)];
            let (value, grad) = penalty_with_gradient(&nb, c, [true, true]);
            let f = |p: P2| penalty(&nb, p, [true, true]);
            let numeric = [0, 1].map(|d| {
                let (a, b) = either_side(c, d, 1e-7);
                (f(a) - f(b)) / 2e-7
            });
            let curvature = [0, 1].map(|d| {
                let (a, b) = either_side(c, d, 1e-4);
                (f(a) + f(b) - 2.0 * value) / 1e-8
            });
            // Skip points next to a kink (a corner crossing 31 deg or a fold), where differences
            // straddle two branches.
            if value == 0.0 || curvature.iter().any(|k| k.abs() > 1e9) {
                continue;
            }
            let scale = grad[0].hypot(grad[1]).max(1.0);
            for d in 0..2 {
                assert!((grad[d] - numeric[d]).abs() < 1e-4 * scale, "gradient {grad:?} against {numeric:?} at {c:?}");
            }
            checked += 1;
        }
        assert!(checked > 500, "only {checked} stencils checked");
    }

    /// On random stencils, folded ones among them, a repair step never takes the node beyond
    /// its farthest neighbour from their centroid (a node that left its cells once ran 40 m
    /// out of a 0.2 m passage).
    #[test]
    fn repair_steps_stay_among_the_neighbours() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut moved = 0;
        for _ in 0..2000 {
            let mut x: Vec<P2> = OFFSETS.iter().map(|o| [o[0] + rng.random_range(-0.8..0.8), o[1] + rng.random_range(-0.8..0.8)]).collect();
            x.push([rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0)]);
            let node = Node { node: 8, motion: Motion::Free, n: std::array::from_fn(|m| Some((m, 0))) };
            if let Some(p) = improve(&node, &x, 0.0, [true, true]) {
                let nb: [P2; 8] = std::array::from_fn(|m| x[m]);
                assert!(within_reach(&nb, p), "step to {p:?} leaves the neighbours {nb:?}");
                moved += 1;
            }
        }
        assert!(moved > 500, "only {moved} steps taken");
    }
}
