//! Elliptic smoothing of the four passage blocks together, as one periodic grid.
//!
//! Winslow's equations with control functions (Thompson, Warsi & Mastin, *Numerical Grid
//! Generation*, 1985, ch. 6; Blazek 2005, section 11.2.2):
//!
//! `alpha (r_xixi + phi r_xi) - 2 beta r_xieta + gamma (r_etaeta + psi r_eta) = 0`,
//! `alpha = |r_eta|^2, beta = r_xi . r_eta, gamma = |r_xi|^2`.
//!
//! The control functions keep the spacing of the transfinite grid (Thomas and Middlecoff): in
//! one dimension `x_xixi + phi x_xi = 0` holds for the wanted distribution when
//! `phi = -x_xixi / x_xi`, so `phi` and `psi` are measured along the grid lines of the first
//! grid and lightly filtered, while the Laplacian part fairs the lines.
//!
//! The passage blocks run with i downstream and j pitchwise, and their lines continue across
//! every block interface with the same index directions (`passage_blocks.rs`), so each node has
//! the four neighbours and four diagonal neighbours of a structured grid: through the block
//! interfaces, and through the periodic line one pitch up or down. The only fixed nodes are those
//! on the boundary-layer block's outer curve; the periodic line, the entrance and exit lines
//! and the points Y and X where four blocks meet are interior nodes, smoothed like the rest;
//! nodes on the inlet and outlet planes slide along them (their outer neighbours mirrored in
//! the plane, so that grid lines meet the planes at right angles).

use super::distribution::P2;
use super::grid::Grid;
use super::passage_blocks::{PassageBlocks, PassageCounts};
use super::node_table::NodeTable;
use super::mixing::Mixing;
use super::repair::{self, Motion, Node};

/// Block indices of the passage blocks in the node graph.
const INLET: usize = 0;
const PRESSURE: usize = 1;
const SUCTION: usize = 2;
const OUTLET: usize = 3;

/// Bound on the control functions: a spacing change of at most ~60 % per cell.
const MAX_CONTROL: f64 = 0.6;
/// Filter passes over the control functions.
const CONTROL_PASSES: usize = 4;

/// A node of a block, with the number of pitches its position is shifted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Site {
    block: usize,
    i: usize,
    j: usize,
    pitches: i32,
}

/// The passage blocks' nodes as one periodic grid: every node position once (`x`), and for
/// every free node its eight neighbours.
struct Graph {
    /// The identified nodes (`node_table.rs`): canonical node = identified node.
    table: NodeTable,
    pitch: f64,
    counts: PassageCounts,
}

impl Graph {
    fn new(blocks: &PassageBlocks, pitch: f64) -> Graph {
        let dims = grids(blocks).iter().map(|g| (g.ni, g.nj)).collect();
        let mut table = NodeTable::new(dims);
        table.identify_passage(blocks.counts, INLET);
        Graph { table, pitch, counts: blocks.counts }
    }

    fn id(&self, b: usize, i: usize, j: usize) -> usize {
        self.table.id(b, i, j)
    }

    /// The canonical node of stored node `k` and the pitches it is shifted by from it.
    fn find(&self, k: usize) -> (usize, i32) {
        self.table.find(k)
    }

    /// How node (b, i, j) moves: fixed on the boundary-layer block's outer curve and on the
    /// entrance and exit lines (their nodes are graded from both ends and the passage blocks'
    /// corners meet there), sliding on the inlet and outlet planes, free elsewhere.
    fn motion(&self, b: usize, i: usize, j: usize) -> Motion {
        let c = self.counts;
        let n = c.n_across;
        let on_outer = match b {
            INLET => i == c.n_in && (n..=n + c.n_le).contains(&j),
            PRESSURE => j == n,
            SUCTION => j == 0,
            _ => i == 0 && (n..=n + c.n_te).contains(&j),
        };
        let on_entrance = (b == INLET && i == c.n_in) || (b == PRESSURE && i == 0) || (b == SUCTION && i == 0);
        let on_exit = (b == OUTLET && i == 0) || (b == PRESSURE && i == c.n_side) || (b == SUCTION && i == c.n_side);
        if on_outer || on_entrance || on_exit {
            Motion::Fixed
        } else if (b == INLET && i == 0) || (b == OUTLET && i == c.n_out) {
            Motion::SlidePlane
        } else {
            Motion::Free
        }
    }

    /// The node one step (di, dj) from `s` (|di| + |dj| = 1), across block interfaces and the
    /// periodic line; None past the outer curve or the inlet and outlet planes.
    fn step(&self, s: Site, di: i32, dj: i32) -> Option<Site> {
        let c = self.counts;
        let n = c.n_across;
        let (ni, nj) = self.table.dims[s.block];
        let i = s.i as i64 + di as i64;
        let j = s.j as i64 + dj as i64;
        let here = |i: i64, j: i64| Some(Site { block: s.block, i: i as usize, j: j as usize, pitches: s.pitches });
        if i >= 0 && i <= ni as i64 && j >= 0 && j <= nj as i64 {
            return here(i, j);
        }
        let at = |block: usize, i: usize, j: usize, shift: i32| Some(Site { block, i, j, pitches: s.pitches + shift });
        match (s.block, di, dj) {
            (INLET, 1, 0) if s.j <= n => at(PRESSURE, 1, s.j, 0),
            (INLET, 1, 0) if s.j >= n + c.n_le => at(SUCTION, 1, s.j - n - c.n_le, 0),
            (PRESSURE, 1, 0) => at(OUTLET, 1, s.j, 0),
            (SUCTION, 1, 0) => at(OUTLET, 1, s.j + n + c.n_te, 0),
            (PRESSURE, -1, 0) => at(INLET, c.n_in - 1, s.j, 0),
            (SUCTION, -1, 0) => at(INLET, c.n_in - 1, s.j + n + c.n_le, 0),
            (OUTLET, -1, 0) if s.j <= n => at(PRESSURE, c.n_side - 1, s.j, 0),
            (OUTLET, -1, 0) if s.j >= n + c.n_te => at(SUCTION, c.n_side - 1, s.j - n - c.n_te, 0),
            (INLET, 0, 1) => at(INLET, s.i, 1, 1),
            (INLET, 0, -1) => at(INLET, s.i, c.nj_inlet() - 1, -1),
            (SUCTION, 0, 1) => at(PRESSURE, s.i, 1, 1),
            (PRESSURE, 0, -1) => at(SUCTION, s.i, n - 1, -1),
            (OUTLET, 0, 1) => at(OUTLET, s.i, 1, 1),
            (OUTLET, 0, -1) => at(OUTLET, s.i, c.nj_outlet() - 1, -1),
            _ => None,
        }
    }
}

/// One free node's stencil: the canonical indices and pitch shifts of its neighbours east,
/// west, north, south, north-east, north-west, south-east, south-west (relative to the node's
/// own position), and how it moves.
#[derive(Clone, Copy, Debug)]
pub struct Stencil {
    pub at: Node,
    pub phi: f64,
    pub psi: f64,
    /// Whether phi and psi were prescribed (target spacings) rather than measured.
    pub target: [bool; 2],
    /// Red-black colour (i + j parity).
    pub colour: usize,
}

/// Smooths the four passage blocks with red-black Gauss-Seidel sweeps of Winslow's equations,
/// Anderson-mixed (`mixing.rs`), until no node moves more than [`SETTLED_MOVE`] of its cell in
/// a sweep or after `sweeps` of them, with the control functions `targets` where given (else
/// from their current spacing) and the first cells off the outer curve steered to
/// `first_cells`, in place.
pub fn smooth(blocks: &mut PassageBlocks, pitch: f64, sweeps: usize, settle: Settle, targets: &[super::passage_blocks::Targets; 4], first_cells: &FirstCells) {
    let graph = Graph::new(blocks, pitch);
    let mut x = graph.gather(blocks);
    let mut stencils = stencils(&graph, targets);
    let reds = sort_by_colour(&mut stencils);
    controls(&mut stencils, &x, pitch);
    let mut lines = graded_lines(&graph, &stencils, first_cells);
    let base: Vec<(f64, f64)> = stencils.iter().map(|s| (s.phi, s.psi)).collect();
    let free: Vec<usize> = stencils.iter().map(|s| s.at.node).collect();
    // Each node's shortest edge on the first grid: the scale its moves are measured against.
    let inverse_squared_cells: Vec<f64> = stencils
        .iter()
        .map(|s| (0..4).map(|m| dist(x[s.at.node], repair::neighbour(&s.at, &x, pitch, m))).fold(f64::INFINITY, f64::min).powi(-2))
        .collect();
    let mut mixing = Mixing::new(MIXING_DEPTH);
    let (mut before, mut after) = (Vec::with_capacity(2 * free.len()), Vec::with_capacity(2 * free.len()));
    for round in 0..sweeps {
        if round % FEEDBACK_EVERY == 0 {
            feedback(&mut stencils, &base, &mut lines, &x);
        }
        if settle == Settle::Plain {
            relax(stencils.split_at(reds), &mut x, pitch);
            continue;
        }
        before.clear();
        before.extend(free.iter().flat_map(|&k| x[k]));
        relax(stencils.split_at(reds), &mut x, pitch);
        after.clear();
        after.extend(free.iter().flat_map(|&k| x[k]));
        if largest_squared_move(&before, &after, &inverse_squared_cells) < SETTLED_MOVE * SETTLED_MOVE {
            break;
        }
        mixing.mix(&before, &mut after);
        for (q, &k) in free.iter().enumerate() {
            x[k] = [after[2 * q], after[2 * q + 1]];
        }
    }
    graph.scatter(&x, blocks);
}

/// Repairs the passage blocks' poor cells (`repair.rs`), in place.
pub fn repair(blocks: &mut PassageBlocks, pitch: f64) {
    let graph = Graph::new(blocks, pitch);
    let mut x = graph.gather(blocks);
    let nodes: Vec<Node> = stencils(&graph, &blocks.no_targets()).iter().map(|s| s.at).collect();
    repair::repair(&nodes, &mut x, pitch);
    graph.scatter(&x, blocks);
}

impl Graph {
    /// Every node's position at its canonical index.
    fn gather(&self, blocks: &PassageBlocks) -> Vec<P2> {
        let mut x = vec![[0.0; 2]; self.table.len()];
        for (b, g) in grids(blocks).iter().enumerate() {
            for j in 0..=g.nj {
                for i in 0..=g.ni {
                    let (k, shift) = self.find(self.id(b, i, j));
                    x[k] = [g.at(i, j)[0], g.at(i, j)[1] - shift as f64 * self.pitch];
                }
            }
        }
        x
    }

    /// The blocks' nodes from the canonical positions `x`.
    fn scatter(&self, x: &[P2], blocks: &mut PassageBlocks) {
        for (b, g) in [&mut blocks.inlet, &mut blocks.pressure, &mut blocks.suction, &mut blocks.outlet].into_iter().enumerate() {
            for j in 0..=g.nj {
                for i in 0..=g.ni {
                    let (k, shift) = self.find(self.id(b, i, j));
                    g.set(i, j, [x[k][0], x[k][1] + shift as f64 * self.pitch]);
                }
            }
        }
    }
}

/// Control functions for `stencils` (prescribed where given, else measured on `x`), then
/// `sweeps` red-black Gauss-Seidel sweeps of Winslow's equations on the positions `x`
/// (periodic images `pitch` apart in y).
pub fn sweep(stencils: &mut [Stencil], x: &mut [P2], pitch: f64, sweeps: usize) {
    controls(stencils, x, pitch);
    let reds = sort_by_colour(stencils);
    for _ in 0..sweeps {
        relax(stencils.split_at(reds), x, pitch);
    }
}

/// Puts each colour's nodes in one slice, for the red-black sweeps: returns the number of red
/// ones, which come first.
fn sort_by_colour(stencils: &mut [Stencil]) -> usize {
    stencils.sort_by_key(|s| s.colour);
    stencils.partition_point(|s| s.colour == 0)
}

/// One red-black Gauss-Seidel sweep of Winslow's equations over the nodes of each colour.
fn relax((red, black): (&[Stencil], &[Stencil]), x: &mut [P2], pitch: f64) {
    use rayon::prelude::*;
    let mut updates = Vec::with_capacity(red.len().max(black.len()));
    for colour in [red, black] {
        // A node's update is a few dozen flops: tasks of fewer than a thousand cost more in
        // scheduling than they save (many threads on a coarse passage ran slower than four).
        colour.par_iter().with_min_len(MIN_NODES_PER_TASK).map(|s| (s.at.node, winslow(s, x, pitch))).collect_into_vec(&mut updates);
        for &(k, p) in &updates {
            x[k] = p;
        }
    }
}

/// The first cell wanted on every line that leaves the boundary-layer block's outer curve
/// (`PassageBlocks::first_cells`): per suction- and pressure-side line i, per inlet row
/// ending on the leading-edge arc and per outlet row starting on the rear arc (counted from
/// the arc's start).
pub struct FirstCells {
    pub suction: Vec<f64>,
    pub pressure: Vec<f64>,
    pub inlet: Vec<f64>,
    pub outlet: Vec<f64>,
}

/// How the smoothing ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    /// Anderson-mixed sweeps until the grid has settled (or the sweeps run out).
    Mixed,
    /// All the sweeps, plain: a grid short of the settled one. Where the settled grid closes a
    /// cell (rows that leave the rear arc almost along it, the ORC impulse rotor of the
    /// library), the unsettled one may still be open.
    Plain,
}

/// The largest squared move of a node between the flattened positions `before` and `after`,
/// in units of its squared scale (given as `inverse_squared_cells`): squares, not
/// distances, since this runs every sweep and a square root per node would cost a tenth of it.
fn largest_squared_move(before: &[f64], after: &[f64], inverse_squared_cells: &[f64]) -> f64 {
    inverse_squared_cells
        .iter()
        .enumerate()
        .map(|(q, w)| {
            let (dx, dy) = (after[2 * q] - before[2 * q], after[2 * q + 1] - before[2 * q + 1]);
            (dx * dx + dy * dy) * w
        })
        .fold(0.0, f64::max)
}

/// Differences the sweeps' Anderson mixing keeps (`mixing.rs`).
const MIXING_DEPTH: usize = 5;
/// The smoothing has settled when no node moves more than this share of its shortest first
/// edge in a sweep.
const SETTLED_MOVE: f64 = 1e-3;

/// Sweeps between two corrections of the lines' control functions.
const FEEDBACK_EVERY: usize = 4;
/// Gain of a correction per unit logarithm of the first cell's error.
const FEEDBACK_GAIN: f64 = 0.15;
/// Largest correction.
const MAX_BIAS: f64 = 1.8;
/// Decay of a correction per node away from the outer curve.
const BIAS_DECAY: f64 = 0.9;
/// Bound on a corrected control function (a cell ratio of 19 at most: the 1-D ratio is
/// (1 - c / 2) / (1 + c / 2)).
const MAX_FEEDBACK_CONTROL: f64 = 1.8;

/// A line that leaves the outer curve: its free nodes from the curve outwards (stencil
/// indices), the outer-curve node it starts from, its wanted first cell, which control
/// function runs along it (0 phi, 1 psi), the sign of its index direction away from the
/// curve, and the correction so far.
struct GradedLine {
    nodes: Vec<usize>,
    start: usize,
    first: f64,
    component: usize,
    sign: f64,
    bias: f64,
    /// The line on the other side of an entrance or exit line node: the two first cells are
    /// steered to their geometric mean instead of to `first`.
    partner: Option<usize>,
}

/// The graded lines of the passage blocks (the corner lines, on the entrance and exit lines,
/// keep their own distribution).
fn graded_lines(graph: &Graph, stencils: &[Stencil], first: &FirstCells) -> Vec<GradedLine> {
    let mut index = vec![usize::MAX; graph.table.len()];
    for (k, s) in stencils.iter().enumerate() {
        index[s.at.node] = k;
    }
    let c = graph.counts;
    let n = c.n_across;
    let node = |b: usize, i: usize, j: usize| graph.find(graph.id(b, i, j)).0;
    let mut lines = Vec::new();
    let line = |sites: Vec<(usize, usize, usize)>, start: (usize, usize, usize), h: f64, component: usize, sign: f64| {
        let nodes: Vec<usize> = sites.iter().map(|&(b, i, j)| index[node(b, i, j)]).take_while(|&k| k != usize::MAX).collect();
        (!nodes.is_empty()).then(|| GradedLine { nodes, start: node(start.0, start.1, start.2), first: h, component, sign, bias: 0.0, partner: None })
    };
    let mut push = |l: Option<GradedLine>| lines.extend(l);
    for i in 1..c.n_side {
        push(line((1..n).map(|j| (SUCTION, i, j)).collect(), (SUCTION, i, 0), first.suction[i], 1, 1.0));
        push(line((1..n).rev().map(|j| (PRESSURE, i, j)).collect(), (PRESSURE, i, n), first.pressure[i], 1, -1.0));
    }
    for j in n + 1..n + c.n_le {
        push(line((1..c.n_in).rev().map(|i| (INLET, i, j)).collect(), (INLET, c.n_in, j), first.inlet[j - n], 0, -1.0));
    }
    for j in n + 1..n + c.n_te {
        push(line((1..c.n_out).map(|i| (OUTLET, i, j)).collect(), (OUTLET, 0, j), first.outlet[j - n], 0, 1.0));
    }
    // Across the entrance and exit lines (their nodes are fixed): the rows either side of each
    // node, balanced against each other.
    // The rows from the four corners.
    push(line((1..c.n_in).rev().map(|i| (INLET, i, n)).collect(), (INLET, c.n_in, n), first.inlet[0], 0, -1.0));
    push(line((1..c.n_in).rev().map(|i| (INLET, i, n + c.n_le)).collect(), (INLET, c.n_in, n + c.n_le), first.inlet[c.n_le], 0, -1.0));
    push(line((1..c.n_out).map(|i| (OUTLET, i, n)).collect(), (OUTLET, 0, n), first.outlet[0], 0, 1.0));
    push(line((1..c.n_out).map(|i| (OUTLET, i, n + c.n_te)).collect(), (OUTLET, 0, n + c.n_te), first.outlet[c.n_te], 0, 1.0));
    drop(push);
    let mut pair = |a: Vec<(usize, usize, usize)>, b: Vec<(usize, usize, usize)>, start: (usize, usize, usize), sign_a: f64| {
        if let (Some(mut la), Some(mut lb)) = (line(a, start, f64::NAN, 0, sign_a), line(b, start, f64::NAN, 0, -sign_a)) {
            la.partner = Some(lines.len() + 1);
            lb.partner = Some(lines.len());
            lines.push(la);
            lines.push(lb);
        }
    };
    for j in 1..n {
        pair((1..c.n_in).rev().map(|i| (INLET, i, j)).collect(), (1..c.n_side).map(|i| (PRESSURE, i, j)).collect(), (PRESSURE, 0, j), -1.0);
        pair((1..c.n_in).rev().map(|i| (INLET, i, n + c.n_le + j)).collect(), (1..c.n_side).map(|i| (SUCTION, i, j)).collect(), (SUCTION, 0, j), -1.0);
        pair((1..c.n_side).rev().map(|i| (PRESSURE, i, j)).collect(), (1..c.n_out).map(|i| (OUTLET, i, j)).collect(), (PRESSURE, c.n_side, j), -1.0);
        pair((1..c.n_side).rev().map(|i| (SUCTION, i, j)).collect(), (1..c.n_out).map(|i| (OUTLET, i, n + c.n_te + j)).collect(), (SUCTION, c.n_side, j), -1.0);
    }
    lines
}

/// Corrects each graded line's control function by its first cell's error (larger than
/// wanted: more clustering towards the outer curve), the correction decaying along the line
/// and integrated over the sweeps (a controller on the spacing the Winslow solution gives).
fn feedback(stencils: &mut [Stencil], base: &[(f64, f64)], lines: &mut [GradedLine], x: &[P2]) {
    let firsts: Vec<f64> = lines.iter().map(|l| dist(x[stencils[l.nodes[0]].at.node], x[l.start])).collect();
    for (k, line) in lines.iter_mut().enumerate() {
        let d = firsts[k];
        let target = line.partner.map_or(line.first, |p| (d * firsts[p]).sqrt());
        line.bias = (line.bias + FEEDBACK_GAIN * (d / target).ln()).clamp(-MAX_BIAS, MAX_BIAS);
        let mut w = 1.0;
        for &node in &line.nodes {
            let s = &mut stencils[node];
            let value = -line.sign * line.bias * w;
            if line.component == 0 {
                s.phi = (base[node].0 + value).clamp(-MAX_FEEDBACK_CONTROL, MAX_FEEDBACK_CONTROL);
            } else {
                s.psi = (base[node].1 + value).clamp(-MAX_FEEDBACK_CONTROL, MAX_FEEDBACK_CONTROL);
            }
            w *= BIAS_DECAY;
        }
    }
}


/// The stencils of every free or sliding node, once per canonical node.
fn stencils(graph: &Graph, targets: &[super::passage_blocks::Targets; 4]) -> Vec<Stencil> {
    let mut seen = vec![false; graph.table.len()];
    let mut out = Vec::new();
    for b in 0..4 {
        let (ni, nj) = graph.table.dims[b];
        for j in 0..=nj {
            for i in 0..=ni {
                let (k, shift) = graph.find(graph.id(b, i, j));
                if seen[k] {
                    continue;
                }
                seen[k] = true;
                let motion = match graph.motion(b, i, j) {
                    Motion::Fixed => continue,
                    m => m,
                };
                let site = Site { block: b, i, j, pitches: 0 };
                // Neighbour positions relative to this instance, which sits `shift` pitches
                // from the canonical node.
                let rel = |s: Option<Site>| {
                    s.map(|s| {
                        let (kk, ss) = graph.find(graph.id(s.block, s.i, s.j));
                        (kk, ss + s.pitches - shift)
                    })
                };
                let go = |s: Option<Site>, di: i32, dj: i32| s.and_then(|s| graph.step(s, di, dj));
                let e = graph.step(site, 1, 0);
                let w = graph.step(site, -1, 0);
                let no = graph.step(site, 0, 1);
                let so = graph.step(site, 0, -1);
                let n = [rel(e), rel(w), rel(no), rel(so), rel(go(e, 0, 1)), rel(go(w, 0, 1)), rel(go(e, 0, -1)), rel(go(w, 0, -1))];
                let [phi, psi] = targets[b][i + (ni + 1) * j];
                out.push(Stencil { at: Node { node: k, motion, n }, phi, psi, target: [!phi.is_nan(), !psi.is_nan()], colour: (i + j) % 2 });
            }
        }
    }
    out
}

use super::passage_blocks::stretching;

fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Control functions: the prescribed ones where given, elsewhere measured on the current
/// grid; then filtered over the neighbours.
fn controls(stencils: &mut [Stencil], x: &[P2], pitch: f64) {
    let mut index = vec![usize::MAX; x.len()];
    for (k, s) in stencils.iter().enumerate() {
        index[s.at.node] = k;
    }
    for s in stencils.iter_mut() {
        let c = x[s.at.node];
        let [e, w, n, so] = [0, 1, 2, 3].map(|m| repair::neighbour(&s.at, x, pitch, m));
        if !s.target[0] {
            s.phi = stretching(dist(c, w), dist(c, e));
        }
        if !s.target[1] {
            s.psi = stretching(dist(c, so), dist(c, n));
        }
        s.phi = s.phi.clamp(-MAX_CONTROL, MAX_CONTROL);
        s.psi = s.psi.clamp(-MAX_CONTROL, MAX_CONTROL);
    }
    for _ in 0..CONTROL_PASSES {
        let old: Vec<(f64, f64)> = stencils.iter().map(|s| (s.phi, s.psi)).collect();
        for (k, s) in stencils.iter_mut().enumerate() {
            // phi is filtered across the i lines (north and south), psi across the j lines.
            let get = |m: usize| s.at.n[m].map(|(node, _)| index[node]).filter(|&q| q != usize::MAX);
            let (a, b) = (get(2), get(3));
            if let (Some(a), Some(b)) = (a, b) {
                s.phi = 0.5 * old[k].0 + 0.25 * (old[a].0 + old[b].0);
            }
            let (a, b) = (get(0), get(1));
            if let (Some(a), Some(b)) = (a, b) {
                s.psi = 0.5 * old[k].1 + 0.25 * (old[a].1 + old[b].1);
            }
        }
    }
}


/// The Winslow update of one node.
// Inlined into the sweep's closure: called out of line it ran at half the speed.
#[inline]
fn winslow(s: &Stencil, x: &[P2], pitch: f64) -> P2 {
    let nb: [P2; 8] = std::array::from_fn(|m| repair::neighbour(&s.at, x, pitch, m));
    let [e, w, n, so, ne, nw, se, sw] = nb;
    let r_xi = [0.5 * (e[0] - w[0]), 0.5 * (e[1] - w[1])];
    let r_eta = [0.5 * (n[0] - so[0]), 0.5 * (n[1] - so[1])];
    let alpha = r_eta[0] * r_eta[0] + r_eta[1] * r_eta[1];
    let beta = r_xi[0] * r_eta[0] + r_xi[1] * r_eta[1];
    let gamma = r_xi[0] * r_xi[0] + r_xi[1] * r_xi[1];
    let mut new = [0.0; 2];
    for c in 0..2 {
        let r_xieta = 0.25 * (ne[c] - nw[c] - se[c] + sw[c]);
        new[c] = (alpha * (e[c] + w[c] + s.phi * r_xi[c]) + gamma * (n[c] + so[c] + s.psi * r_eta[c]) - 2.0 * beta * r_xieta) / (2.0 * (alpha + gamma));
    }
    let here = x[s.at.node];
    repair::constrained(&s.at, x, [here[0] + OVER_RELAXATION * (new[0] - here[0]), here[1] + OVER_RELAXATION * (new[1] - here[1])])
}

/// Fewest stencils a parallel task of a sweep takes.
const MIN_NODES_PER_TASK: usize = 1024;

/// Over-relaxation factor of the Gauss-Seidel sweeps (1.4 about halves the sweeps needed;
/// beyond ~1.6 the red-black iteration of the coupled equations stops converging).
const OVER_RELAXATION: f64 = 1.4;

/// The passage blocks' grids in graph order.
pub fn grids(blocks: &PassageBlocks) -> [&Grid; 4] {
    [&blocks.inlet, &blocks.pressure, &blocks.suction, &blocks.outlet]
}
