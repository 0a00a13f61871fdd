//! The C block: wraps the O-grid from the outlet along the lower side of the wake cut, round
//! the O-grid's outer curve (trailing edge, pressure side, leading edge, suction side) and back
//! along the upper side of the wake cut to the outlet; j runs from the O-grid / wake cut to the
//! outer boundary (M - pitch from the outlet back to the inlet, the inlet plane, M from the
//! inlet to the outlet).
//!
//! Built in two steps: an algebraic grid of cubic Hermite lines (every line i joins inner node i
//! to outer node i, leaving the inner curve along its normal and meeting the outer boundary
//! along its normal), with nodes placed by the graded size function of `distribution.rs`
//! (first cell continuing the O-grid's growth, or the wake-cut spacing; last cell the outer
//! boundary's spacing); then Winslow smoothing (`elliptic.rs`), a re-spacing of every line
//! that matches the cells across the seams (`respace_lines`), and ratio limiters along the
//! rows and the lines (`limit_row_growth`, `limit_line_growth`).

use super::distribution::{add, clamp_spacing_ratio, cross, dist, dot, graded_distribution, hermite, limit_spacing_ratio, scale, sub, unit, Polyline, SpacingAt, P2};
use crate::error::Error;
use rayon::prelude::*;

/// Node array of one block under construction: `(ni+1) x (nj+1)` nodes, i fastest.
#[derive(Clone, Debug)]
pub struct Grid {
    pub ni: usize,
    pub nj: usize,
    pub p: Vec<P2>,
}

impl Grid {
    pub fn new(ni: usize, nj: usize) -> Self {
        Grid { ni, nj, p: vec![[0.0, 0.0]; (ni + 1) * (nj + 1)] }
    }
    #[inline]
    pub fn at(&self, i: usize, j: usize) -> P2 {
        self.p[i + (self.ni + 1) * j]
    }
    #[inline]
    pub fn set(&mut self, i: usize, j: usize, v: P2) {
        self.p[i + (self.ni + 1) * j] = v;
    }
    /// Signed area of cell (i, j) (positive for counter-clockwise i x j).
    pub fn cell_area(&self, i: usize, j: usize) -> f64 {
        let (a, b, c, d) = (self.at(i, j), self.at(i + 1, j), self.at(i + 1, j + 1), self.at(i, j + 1));
        0.5 * cross(sub(c, a), sub(d, b))
    }
}

/// One end of a grid line: the node, the direction of the line there (leaving the inner curve,
/// arriving at the outer boundary) and the cell size wanted next to it.
#[derive(Clone, Copy, Debug)]
pub struct LineEnd {
    pub p: P2,
    pub dir: P2,
    pub h: f64,
}

/// Tension of the Hermite lines (end tangents = tension x chord): short at the inner curve,
/// where lines fan out round the leading and trailing edges and must not cross.
const TENSION: (f64, f64) = (0.2, 0.4);
/// Samples per Hermite curve before node placement.
const SAMPLES: usize = 400;

/// `n` cells along `curve`, with optional cell sizes at the start and the end; the end nodes are
/// the curve's end points exactly.
pub fn line_nodes(curve: &Polyline, n: usize, h_start: Option<f64>, h_end: Option<f64>, ratio: f64) -> Result<Vec<P2>, Error> {
    let len = curve.length();
    let mut targets = Vec::new();
    if let Some(h) = h_start {
        targets.push(SpacingAt { s: 0.0, h });
    }
    if let Some(h) = h_end {
        targets.push(SpacingAt { s: len, h });
    }
    let s = graded_distribution(len, n, &targets, None, ratio)?;
    let mut nodes = curve.sample(&s);
    nodes[0] = curve.points()[0];
    nodes[n] = *curve.points().last().unwrap_or(&nodes[n]);
    Ok(nodes)
}

/// The algebraic C grid: line i from `inner\[i\]` to `outer\[i\]` with `nj` cells.
pub fn algebraic_grid(inner: &[LineEnd], outer: &[LineEnd], nj: usize, ratio: f64) -> Result<Grid, Error> {
    let ni = inner.len() - 1;
    let mut g = Grid::new(ni, nj);
    // The lines are independent: placed in parallel, each as it would be alone.
    let lines: Vec<Vec<P2>> = inner
        .par_iter()
        .zip(outer)
        .map(|(a, b)| line_nodes(&hermite(a.p, a.dir, b.p, b.dir, TENSION, SAMPLES), nj, Some(a.h), Some(b.h), ratio))
        .collect::<Result<_, _>>()?;
    for (i, ((a, b), nodes)) in inner.iter().zip(outer).zip(lines).enumerate() {
        for (j, p) in nodes.into_iter().enumerate() {
            g.set(i, j, p);
        }
        g.set(i, 0, a.p);
        g.set(i, nj, b.p);
    }
    Ok(g)
}

/// Re-places the nodes of every j-line of `g` along the line itself (the polyline through its
/// nodes) with first cell (at most) `h_start\[i\]` and last cell (at most) `h_end\[i\]`.
///
/// Lines that face each other across a seam (`twin(i)`: the other side of the wake cut or of
/// the periodic line) get the same end cells: a target is only an upper bound (a line with
/// cells to spare is finer everywhere), so each pair's target is lowered to the smaller of the
/// two cells reached until both reach it.
pub fn respace_lines(g: &mut Grid, h_start: &[f64], h_end: &[f64], twin_start: impl Fn(usize) -> Option<usize>, twin_end: impl Fn(usize) -> Option<usize>, ratio: f64) -> Result<(), Error> {
    let (ni, nj) = (g.ni, g.nj);
    let curves: Vec<Polyline> = (0..=ni).map(|i| Polyline::new((0..=nj).map(|j| g.at(i, j)).collect())).collect();
    let (mut hs, mut he) = (h_start.to_vec(), h_end.to_vec());
    let mut lines: Vec<Vec<P2>> = Vec::new();
    for _ in 0..4 {
        // Independent lines, placed in parallel (the most of a mesh's generation time).
        lines = curves.par_iter().enumerate().map(|(i, curve)| line_nodes(curve, nj, Some(hs[i]), Some(he[i]), ratio)).collect::<Result<_, _>>()?;
        let first: Vec<f64> = lines.iter().map(|l| dist(l[0], l[1])).collect();
        let last: Vec<f64> = lines.iter().map(|l| dist(l[nj - 1], l[nj])).collect();
        for i in 0..=ni {
            hs[i] = hs[i].min(first[i]).min(twin_start(i).map_or(f64::INFINITY, |t| first[t]));
            he[i] = he[i].min(last[i]).min(twin_end(i).map_or(f64::INFINITY, |t| last[t]));
        }
    }
    for (i, line) in lines.into_iter().enumerate() {
        for (j, p) in line.into_iter().enumerate().skip(1).take(nj - 1) {
            g.set(i, j, p);
        }
    }
    Ok(())
}

/// Sweeps allowed to [`limit_spacing_ratio`] per row.
const ROW_SWEEPS: usize = 4000;

/// Largest slide of a node along its row, relative to the slide of the node below it (on the
/// same line), as a share of the distance between the two: the lines lean by at most ~17
/// degrees more per cell, so that the thin cells next to the O-grid and the wake cut (first
/// cells 1e-5 of the row spacing) are not sheared flat.
const MAX_LEAN: f64 = 0.3;

/// Slides the nodes of every interior row (j = 1 .. nj - 1) along the row itself (the polyline
/// through its nodes) so that neighbouring cells along the row differ by at most `max_ratio`
/// where the rows below leave room (see [`MAX_LEAN`]). The slides fade towards the outer row
/// (which stays) at the same lean, and the row next to it keeps the last edge of every line
/// within [`MAX_EDGE_CHANGE`].
///
/// The i-extent of a cell is the mean of its two row edges, so rows that all keep the bound
/// give cells that keep it too. Only the nodes round a size jump move (where the lines fan out
/// of the rear point's corner and of the inlet corners); the rows' ends on the outlet stay.
pub fn limit_row_growth(g: &mut Grid, max_ratio: f64) {
    let (ni, nj) = (g.ni, g.nj);
    let rows: Vec<Vec<f64>> = (0..=nj)
        .map(|j| {
            let mut s = vec![0.0; ni + 1];
            for i in 1..=ni {
                s[i] = s[i - 1] + dist(g.at(i - 1, j), g.at(i, j));
            }
            s
        })
        .collect();
    // Room for the slide of node (i, j) relative to the node below (and above).
    let room = |i: usize, j: usize| MAX_LEAN * dist(g.at(i, j), g.at(i, j - 1));
    let mut slides = vec![vec![0.0; ni + 1]; nj + 1];
    for j in 1..nj {
        let s = &rows[j];
        let mut wanted = s.clone();
        limit_spacing_ratio(&mut wanted, max_ratio, ROW_SWEEPS, (1, 1));
        for i in 1..ni {
            let below = slides[j - 1][i];
            slides[j][i] = (wanted[i] - s[i]).clamp(below - room(i, j), below + room(i, j));
        }
    }
    // The outer row stays: the slides fade towards it at the same lean, so that the last
    // cells keep matching their periodic twins.
    for j in (1..nj).rev() {
        for i in 1..ni {
            let above = slides[j + 1][i];
            let r = room(i, j + 1);
            let s = &rows[j];
            // Keep the nodes in order (a slide never goes half-way to a neighbour's old place,
            // so two neighbours sliding towards each other do not cross).
            slides[j][i] = slides[j][i].clamp(above - r, above + r).clamp(0.499 * (s[i - 1] - s[i]), 0.499 * (s[i + 1] - s[i]));
        }
    }
    // The last cells keep their length (within MAX_EDGE_CHANGE).
    for i in 1..ni {
        let (p, q) = (g.at(i, nj - 1), g.at(i, nj));
        let t = unit(sub(g.at(i + 1, nj - 1), g.at(i - 1, nj - 1)));
        let (lo, hi) = edge_room(sub(p, q), t);
        slides[nj - 1][i] = slides[nj - 1][i].clamp(lo, hi);
    }
    for j in 1..nj {
        let curve = Polyline::new((0..=ni).map(|i| g.at(i, j)).collect());
        for i in 1..ni {
            let p = curve.at(rows[j][i] + slides[j][i]);
            g.set(i, j, p);
        }
    }
}

/// Largest relative change of the last cell edge of a line that a slide of the row next to
/// the outer boundary may cause: those cells match their periodic twins.
const MAX_EDGE_CHANGE: f64 = 0.02;

/// The interval of slides `d` along the unit tangent `t` that keep the edge `e + d t` within
/// [`MAX_EDGE_CHANGE`] of its length `|e|` (roots of `|e + d t|^2 = (1 +- MAX_EDGE_CHANGE)^2 |e|^2`;
/// the interval round 0).
fn edge_room(e: P2, t: P2) -> (f64, f64) {
    let (b, c) = (dot(e, t), dot(e, e));
    let (long, short) = ((1.0 + MAX_EDGE_CHANGE).powi(2) * c, (1.0 - MAX_EDGE_CHANGE).powi(2) * c);
    let outer = (b * b - c + long).max(0.0).sqrt();
    let (mut lo, mut hi) = (-b - outer, -b + outer);
    let disc = b * b - c + short;
    if disc > 0.0 {
        // |e + d t| is too short between these two roots, which lie on one side of 0.
        let (r0, r1) = (-b - disc.sqrt(), -b + disc.sqrt());
        if r0 >= 0.0 {
            hi = hi.min(r0);
        } else {
            lo = lo.max(r1);
        }
    }
    (lo.min(0.0), hi.max(0.0))
}

/// Slides the interior nodes of every line (i) along the line so that neighbouring cells along
/// it differ by at most `max_ratio` (the j counterpart of [`limit_row_growth`], which shears
/// the lines a little). The first and last cells stay: they continue the O-grid's layers and
/// match their twins across the wake cut and the periodic lines (`respace_lines`).
pub fn limit_line_growth(g: &mut Grid, max_ratio: f64) {
    let (ni, nj) = (g.ni, g.nj);
    for i in 0..=ni {
        let line: Vec<P2> = (0..=nj).map(|j| g.at(i, j)).collect();
        let mut s = vec![0.0; nj + 1];
        for j in 1..=nj {
            s[j] = s[j - 1] + dist(line[j - 1], line[j]);
        }
        if limit_spacing_ratio(&mut s, max_ratio, ROW_SWEEPS, (2, 2)) > max_ratio {
            clamp_spacing_ratio(&mut s, max_ratio, (2, 2));
        }
        let curve = Polyline::new(line);
        for (j, p) in curve.sample(&s).into_iter().enumerate().skip(1).take(nj - 1) {
            g.set(i, j, p);
        }
    }
}

/// Sweeps of [`untangle`] over its nodes.
const UNTANGLE_SWEEPS: usize = 200;
/// Area every cell round a moved node is pushed above, as a share of the mean area of those
/// cells in the grid it was given: positive, so that a cell does not end barely unfolded.
const UNTANGLE_TARGET: f64 = 0.1;

/// Untangles a grid by moving the nodes `free` (interior nodes; each (i, j)) one at a time to
/// lower the sum over its four cells of `max(0, target - area)^2` (Knupp, "Hexahedral and
/// tetrahedral mesh untangling", Engineering with Computers 17, 2001, in two dimensions): a
/// cell's signed area is linear in each of its nodes, so each move is a small Gauss-Newton
/// step, halved until the sum falls. Cells already above their target cost nothing, so a node
/// moves only while a cell round it is folded or nearly so.
pub fn untangle(g: &mut Grid, free: &[(usize, usize)]) {
    let cells_of = |i: usize, j: usize| [(i - 1, j - 1), (i, j - 1), (i - 1, j), (i, j)];
    let targets: Vec<f64> = free
        .iter()
        .map(|&(i, j)| UNTANGLE_TARGET * cells_of(i, j).iter().map(|&(a, b)| g.cell_area(a, b).abs()).sum::<f64>() / 4.0)
        .collect();
    for _ in 0..UNTANGLE_SWEEPS {
        let mut moved = false;
        for (&(i, j), &target) in free.iter().zip(&targets) {
            moved |= untangle_node(g, i, j, &cells_of(i, j), target);
        }
        if !moved {
            return;
        }
    }
}

/// One Gauss-Newton step of [`untangle`] for node (i, j); whether it moved.
fn untangle_node(g: &mut Grid, i: usize, j: usize, cells: &[(usize, usize); 4], target: f64) -> bool {
    let cost = |g: &Grid| cells.iter().map(|&(a, b)| (target - g.cell_area(a, b)).max(0.0).powi(2)).sum::<f64>();
    let before = cost(g);
    if before == 0.0 {
        return false;
    }
    // Normal equations of the active cells: area_c + grad_c . d = target.
    let (mut m, mut r) = ([[0.0; 2]; 2], [0.0; 2]);
    for &(a, b) in cells {
        let area = g.cell_area(a, b);
        if area < target {
            let grad = area_gradient(g, a, b, i, j);
            for p in 0..2 {
                for q in 0..2 {
                    m[p][q] += grad[p] * grad[q];
                }
                r[p] += grad[p] * (target - area);
            }
        }
    }
    let trace = m[0][0] + m[1][1];
    let (m00, m11) = (m[0][0] + 1e-6 * trace, m[1][1] + 1e-6 * trace);
    let det = m00 * m11 - m[0][1] * m[1][0];
    if !(det > 0.0) {
        return false;
    }
    let step = [(m11 * r[0] - m[0][1] * r[1]) / det, (m00 * r[1] - m[1][0] * r[0]) / det];
    let start = g.at(i, j);
    let mut t = 1.0;
    for _ in 0..20 {
        g.set(i, j, add(start, scale(step, t)));
        if cost(g) < before {
            return true;
        }
        t *= 0.5;
    }
    g.set(i, j, start);
    false
}


/// Gradient of the signed area of cell (a, b) with respect to its node (i, j).
fn area_gradient(g: &Grid, a: usize, b: usize, i: usize, j: usize) -> P2 {
    let (p, q, r, s) = (g.at(a, b), g.at(a + 1, b), g.at(a + 1, b + 1), g.at(a, b + 1));
    match (i - a, j - b) {
        (0, 0) => [-0.5 * (s[1] - q[1]), 0.5 * (s[0] - q[0])],
        (1, 0) => [0.5 * (r[1] - p[1]), -0.5 * (r[0] - p[0])],
        (1, 1) => [0.5 * (s[1] - q[1]), -0.5 * (s[0] - q[0])],
        _ => [-0.5 * (r[1] - p[1]), 0.5 * (r[0] - p[0])],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4 x 4 grid of thin boundary-layer cells (10 : 1) with node (2, 1) pushed past its
    /// neighbour along the wall and towards it, folding cell (2, 0), as a line leaving a wall
    /// almost along it does.
    fn folded_grid() -> Grid {
        let mut g = Grid::new(4, 4);
        for j in 0..=4 {
            for i in 0..=4 {
                g.set(i, j, [i as f64, 0.1 * j as f64]);
            }
        }
        g.set(2, 1, [3.5, 0.02]);
        g
    }

    #[test]
    fn untangling_unfolds_every_cell_and_leaves_the_boundary_alone() {
        let mut g = folded_grid();
        let folded = |g: &Grid| (0..4).flat_map(|j| (0..4).map(move |i| (i, j))).filter(|&(i, j)| g.cell_area(i, j) <= 0.0).count();
        assert_eq!(folded(&g), 1);
        let boundary: Vec<P2> = (0..=4).map(|i| g.at(i, 0)).collect();
        let free: Vec<(usize, usize)> = (1..4).flat_map(|j| (1..4).map(move |i| (i, j))).collect();
        untangle(&mut g, &free);
        assert_eq!(folded(&g), 0);
        let smallest = (0..4).flat_map(|j| (0..4).map(move |i| (i, j))).map(|(i, j)| g.cell_area(i, j)).fold(f64::INFINITY, f64::min);
        assert!(smallest > 0.01 * 0.1, "smallest cell area {smallest}");
        assert_eq!(boundary, (0..=4).map(|i| g.at(i, 0)).collect::<Vec<_>>());
    }

    #[test]
    fn untangling_leaves_a_valid_grid_as_it_is() {
        let mut g = folded_grid();
        g.set(2, 1, [2.0, 0.1]);
        let before = g.p.clone();
        untangle(&mut g, &[(1, 1), (2, 1), (3, 1), (2, 2)]);
        assert_eq!(before, g.p);
    }

    #[test]
    fn the_area_gradient_matches_finite_differences() {
        let g = folded_grid();
        for (a, b) in [(1, 0), (2, 1), (1, 1)] {
            for (i, j) in [(a, b), (a + 1, b), (a + 1, b + 1), (a, b + 1)] {
                let grad = area_gradient(&g, a, b, i, j);
                for c in 0..2 {
                    let mut h = g.clone();
                    let mut p = h.at(i, j);
                    p[c] += 1e-6;
                    h.set(i, j, p);
                    let fd = (h.cell_area(a, b) - g.cell_area(a, b)) / 1e-6;
                    assert!((fd - grad[c]).abs() < 1e-8, "cell ({a}, {b}) node ({i}, {j}) component {c}: {fd} vs {}", grad[c]);
                }
            }
        }
    }
}
