//! The last step: node spacing along every grid line of the five blocks, across the block
//! interfaces.
//!
//! The boundary-layer block's layers and the passage blocks' cells are sized separately, so
//! where a line leaves the outer curve (and where a passage line crosses from one block into
//! the next) its cells can jump in size. Here every line is followed through the blocks as
//! one chain of nodes and the nodes round each jump slide along the chain until neighbouring
//! cells differ by at most the growth ratio
//! ([`limit_spacing_ratio`](super::distribution::limit_spacing_ratio): only nodes next to an
//! offending pair move, so a graded distribution elsewhere is kept). The wall's first layers
//! and the inlet and outlet planes stay; the outer curve's nodes move along the
//! boundary-layer block's lines, so the block thickens or thins a little where its outer
//! layer and the passage's first cells did not agree.
//!
//! Chains: each boundary-layer line continued into the passage (through the covered passage
//! to the neighbour's wall, or to the inlet or outlet plane), the passage blocks' rows from
//! the inlet plane to the outlet plane, and the inlet and outlet blocks' columns across the
//! pitch.

use super::boundary_layer::OGrid;
use super::distribution::{limit_spacing_ratio, Polyline, P2};
use super::node_table::NodeTable;
use super::passage_blocks::PassageBlocks;

/// Nodes at each wall end of a chain that stay: the wall node and the first layers (the
/// first-cell height and the wall-normal start of the lines).
const WALL_PINNED: usize = 6;
/// Where the rows that leave the leading-edge arc's two corners take their first cell from.
/// The rear arc's corner rows always continue the side blocks' outer rows; at the leading edge
/// that suits some blades (a turbine's thick, round nose) and pinches the cells beside the
/// row on others (a compressor's thin one), so the mesher grades both ways and keeps the
/// better mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InletCorners {
    /// The corner row continues the outer curve's row of the side block.
    Continued,
    /// The corner row starts at the corner, its first cell as the smoothing left it.
    FromCorner,
}

/// Nodes of the outer curve's row that lead into a corner row (they stay).
const OUTER_CURVE_PINNED: usize = 2;
/// Smoother sweeps per chain.
const SWEEPS: usize = 2000;
/// Passes over all chains (moving a node along one family of lines changes the spacing of
/// the other).
const ROUNDS: usize = 3;

/// Block numbers in the node table.
const O: usize = 0;
const INLET: usize = 1;
const PRESSURE: usize = 2;
const SUCTION: usize = 3;
const OUTLET: usize = 4;

/// All nodes of the five blocks, with the nodes that two blocks share (or that one pitch
/// separates) identified.
struct Nodes {
    /// The identified nodes (`node_table.rs`): `p[k] = p[root] + shift * pitch`.
    table: NodeTable,
    p: Vec<P2>,
    pitch: f64,
    /// The stored nodes at each identified node (filled after the identification).
    members: Vec<Vec<usize>>,
}

/// A line of nodes (stored id, extra pitches) with the nodes at its ends that stay.
struct Chain {
    nodes: Vec<(usize, i32)>,
    pinned: (usize, usize),
}

impl Nodes {
    fn new(o: &OGrid, blocks: &PassageBlocks, pitch: f64) -> Nodes {
        let grids = [&blocks.inlet, &blocks.pressure, &blocks.suction, &blocks.outlet];
        let dims = std::iter::once((o.ni, o.nj)).chain(grids.iter().map(|g| (g.ni, g.nj))).collect();
        let mut p = o.p.clone();
        for g in grids {
            p.extend_from_slice(&g.p);
        }
        let mut nodes = Nodes { table: NodeTable::new(dims), p, pitch, members: Vec::new() };
        nodes.identify(blocks);
        let mut members = vec![Vec::new(); nodes.p.len()];
        for k in 0..nodes.p.len() {
            members[nodes.find(k).0].push(k);
        }
        nodes.members = members;
        nodes
    }

    fn id(&self, b: usize, i: usize, j: usize) -> usize {
        self.table.id(b, i, j)
    }

    fn find(&self, k: usize) -> (usize, i32) {
        self.table.find(k)
    }

    fn join(&mut self, a: usize, b: usize, pitches: i32) {
        self.table.join(a, b, pitches)
    }

    fn position(&self, (k, extra): (usize, i32)) -> P2 {
        let (r, shift) = self.find(k);
        let q = self.p[r];
        [q[0], q[1] + (shift + extra) as f64 * self.pitch]
    }

    fn set(&mut self, (k, extra): (usize, i32), v: P2) {
        let (r, shift) = self.find(k);
        self.p[r] = [v[0], v[1] - (shift + extra) as f64 * self.pitch];
    }

    /// The interfaces of `mod.rs`'s `assemble`, the periodic lines and the O-grid's seam.
    fn identify(&mut self, blocks: &PassageBlocks) {
        let c = blocks.counts;
        let (n_in, n_side, n) = (c.n_in, c.n_side, c.n_across);
        let (o_ni, o_nj) = self.table.dims[O];
        let [_, o_ps, o_le, o_ss] = c.o_starts();
        for j in 0..=o_nj {
            self.join(self.id(O, o_ni, j), self.id(O, 0, j), 0);
        }
        for m in 0..=c.n_te {
            self.join(self.id(OUTLET, 0, n + c.n_te - m), self.id(O, m, o_nj), 0);
        }
        for m in 0..=n_side {
            self.join(self.id(PRESSURE, n_side - m, n), self.id(O, o_ps + m, o_nj), 0);
            self.join(self.id(SUCTION, m, 0), self.id(O, (o_ss + m) % o_ni, o_nj), 0);
        }
        for m in 0..=c.n_le {
            self.join(self.id(INLET, n_in, n + m), self.id(O, o_le + m, o_nj), 0);
        }
        self.table.identify_passage(c, INLET);
    }

    /// Block, i and j of stored node `k`.
    fn locate(&self, k: usize) -> (usize, usize, usize) {
        let b = (0..5).rev().find(|&b| self.table.offsets[b] <= k).unwrap_or(0);
        let local = k - self.table.offsets[b];
        let w = self.table.dims[b].0 + 1;
        (b, local % w, local / w)
    }

    /// Signed area of cell (i, j) of block b.
    fn cell_area(&self, b: usize, i: usize, j: usize) -> f64 {
        let at = |i: usize, j: usize| self.position((self.id(b, i, j), 0));
        let (a, bb, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
        0.5 * super::distribution::cross(super::distribution::sub(c, a), super::distribution::sub(d, bb))
    }

    /// The skewness measure (`grid::skewness_measure`) of cell (i, j) of block b.
    fn cell_skewness_measure(&self, b: usize, i: usize, j: usize) -> f64 {
        let at = |i: usize, j: usize| self.position((self.id(b, i, j), 0));
        super::grid::skewness_measure([at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)])
    }

    /// The cells (block, i, j) that have a corner at identified node `k`, in any block.
    fn cells_round(&self, k: usize) -> Vec<(usize, usize, usize)> {
        let mut v = Vec::new();
        for &m in &self.members[self.find(k).0] {
            let (b, i, j) = self.locate(m);
            let (ni, nj) = self.table.dims[b];
            for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                if i >= di && j >= dj && i - di < ni && j - dj < nj {
                    v.push((b, i - di, j - dj));
                }
            }
        }
        v
    }

    /// Every stored node from its identified position.
    fn scatter(&mut self) {
        for k in 0..self.p.len() {
            let v = self.position((k, 0));
            self.p[k] = v;
        }
    }
}

/// The chains of the module doc.
fn chains(nodes: &Nodes, blocks: &PassageBlocks, inlet_corners: InletCorners) -> Vec<Chain> {
    let c = blocks.counts;
    let (n_in, n_side, n_out, n) = (c.n_in, c.n_side, c.n_out, c.n_across);
    let (o_ni, o_nj) = nodes.table.dims[O];
    let [_, o_ps, o_le, o_ss] = c.o_starts();
    let id = |b, i, j| (nodes.id(b, i, j), 0);
    let o_line = |i: usize| (0..=o_nj).map(move |j| (nodes.id(O, i % o_ni, j), 0));
    let mut out = Vec::new();
    // Wall to the neighbour's wall through the covered passage (the entrance and exit lines
    // at the ends).
    for k in 0..=n_side {
        let mut v: Vec<(usize, i32)> = o_line(o_ss + k).collect();
        v.extend((1..=n).map(|j| id(SUCTION, k, j)));
        v.extend((1..=n).map(|j| (nodes.id(PRESSURE, k, j), 1)));
        v.extend((0..o_nj).rev().map(|j| (nodes.id(O, o_ps + n_side - k, j), 1)));
        out.push(Chain { nodes: v, pinned: (WALL_PINNED, WALL_PINNED) });
    }
    // Leading-edge arc to the inlet plane, rear arc to the outlet plane. A corner row starts
    // with nodes that all stay: its corner alone, or the last nodes of the outer curve's row
    // of the pressure- or suction-side block it continues, whose cells then set its first
    // (the covered chains move them).
    let side_row = |pressure: bool, i: usize| if pressure { id(PRESSURE, i, n) } else { id(SUCTION, i, 0) };
    let chain = |lead: Vec<(usize, i32)>, corner: bool, rest: &mut dyn Iterator<Item = (usize, i32)>| {
        let pinned = if corner { lead.len() } else { WALL_PINNED };
        let mut v = lead;
        v.extend(rest);
        Chain { nodes: v, pinned: (pinned, 1) }
    };
    for m in 0..=c.n_le {
        let corner = m == 0 || m == c.n_le;
        let lead: Vec<(usize, i32)> = match (corner, inlet_corners) {
            (false, _) => o_line(o_le + m).collect(),
            (true, InletCorners::Continued) => (0..=OUTER_CURVE_PINNED).rev().map(|i| side_row(m == 0, i)).collect(),
            (true, InletCorners::FromCorner) => vec![id(INLET, n_in, n + m)],
        };
        out.push(chain(lead, corner, &mut (0..n_in).rev().map(|i| id(INLET, i, n + m))));
    }
    for m in 0..=c.n_te {
        let corner = m == 0 || m == c.n_te;
        let lead: Vec<(usize, i32)> = if corner {
            (0..=OUTER_CURVE_PINNED).rev().map(|i| side_row(m == c.n_te, n_side - i)).collect()
        } else {
            o_line(m).collect()
        };
        out.push(chain(lead, corner, &mut (1..=n_out).map(|i| id(OUTLET, i, n + c.n_te - m))));
    }
    // Passage rows, inlet plane to outlet plane (the outer curve's rows excepted).
    for j in 0..n {
        let mut v: Vec<(usize, i32)> = (0..=n_in).map(|i| id(INLET, i, j)).collect();
        v.extend((1..=n_side).map(|i| id(PRESSURE, i, j)));
        v.extend((1..=n_out).map(|i| id(OUTLET, i, j)));
        out.push(Chain { nodes: v, pinned: (1, 1) });
    }
    for j in 1..n {
        let mut v: Vec<(usize, i32)> = (0..=n_in).map(|i| id(INLET, i, n + c.n_le + j)).collect();
        v.extend((1..=n_side).map(|i| id(SUCTION, i, j)));
        v.extend((1..=n_out).map(|i| id(OUTLET, i, n + c.n_te + j)));
        out.push(Chain { nodes: v, pinned: (1, 1) });
    }
    // Inlet and outlet columns across the pitch.
    for i in 1..n_in {
        out.push(Chain { nodes: (0..=c.nj_inlet()).map(|j| id(INLET, i, j)).collect(), pinned: (1, 1) });
    }
    for i in 1..n_out {
        out.push(Chain { nodes: (0..=c.nj_outlet()).map(|j| id(OUTLET, i, j)).collect(), pinned: (1, 1) });
    }
    let _ = o_ps;
    out
}

/// Slides the chain's nodes along it until neighbouring cells differ by at most `ratio`; a
/// move that would shrink a cell round a moved node below [`LEAST_AREA_SHARE`] of its area, or
/// skew it past `skewness_bound` (or further, where it already was), is halved, up to
/// [`MOVE_HALVINGS`] times, then dropped: nodes of neighbouring chains slide by different
/// amounts, and where two chains leave a node at a sharp angle (a block corner on the outer
/// curve) that can close the cell between them.
fn limit_chain(nodes: &mut Nodes, chain: &Chain, ratio: f64, skewness_bound: f64) {
    let pts: Vec<P2> = chain.nodes.iter().map(|&k| nodes.position(k)).collect();
    let line = Polyline::new(pts.clone());
    if line.points().len() != pts.len() {
        return;
    }
    let mut s = vec![0.0; pts.len()];
    for k in 1..pts.len() {
        s[k] = s[k - 1] + super::distribution::dist(pts[k - 1], pts[k]);
    }
    let before = s.clone();
    limit_spacing_ratio(&mut s, ratio, SWEEPS, chain.pinned);
    let moved: Vec<usize> = (0..s.len()).filter(|&k| s[k] != before[k]).collect();
    if moved.is_empty() {
        return;
    }
    let mut cells: Vec<(usize, usize, usize)> = moved.iter().flat_map(|&k| nodes.cells_round(chain.nodes[k].0)).collect();
    cells.sort_unstable();
    cells.dedup();
    let areas: Vec<f64> = cells.iter().map(|&(b, i, j)| nodes.cell_area(b, i, j)).collect();
    let bound = super::grid::skewness_measure_of(skewness_bound);
    let skew_limits: Vec<f64> = cells.iter().map(|&(b, i, j)| nodes.cell_skewness_measure(b, i, j).max(bound)).collect();
    let mut step = 1.0;
    for _ in 0..=MOVE_HALVINGS {
        for &k in &moved {
            nodes.set(chain.nodes[k], line.at(before[k] + step * (s[k] - before[k])));
        }
        let kept = cells
            .iter()
            .zip(areas.iter().zip(&skew_limits))
            .all(|(&(b, i, j), (&a, &skew))| nodes.cell_area(b, i, j) > LEAST_AREA_SHARE * a.max(0.0) && nodes.cell_skewness_measure(b, i, j) <= skew);
        if kept {
            return;
        }
        step *= 0.5;
    }
    for &k in &moved {
        nodes.set(chain.nodes[k], pts[k]);
    }
}

/// Least share of its area a cell keeps when a chain's nodes move.
const LEAST_AREA_SHARE: f64 = 0.2;
/// Halvings of a chain's move before it is dropped.
const MOVE_HALVINGS: usize = 4;

/// Limits the growth of neighbouring cells along every grid line of the boundary-layer block
/// `o` and the passage blocks to `ratio` (module doc), no move skewing a cell past
/// `skewness_bound` ([`limit_chain`]).
pub fn limit_growth_along_lines(o: &mut OGrid, blocks: &mut PassageBlocks, pitch: f64, ratio: f64, skewness_bound: f64, inlet_corners: InletCorners) {
    let mut nodes = Nodes::new(o, blocks, pitch);
    let chains = chains(&nodes, blocks, inlet_corners);
    for _ in 0..ROUNDS {
        for chain in &chains {
            limit_chain(&mut nodes, chain, ratio, skewness_bound);
        }
    }
    nodes.scatter();
    let take = |b: usize, len: usize| nodes.table.offsets[b]..nodes.table.offsets[b] + len;
    let len = o.p.len();
    o.p.copy_from_slice(&nodes.p[take(O, len)]);
    let grids = [&mut blocks.inlet, &mut blocks.pressure, &mut blocks.suction, &mut blocks.outlet];
    for (b, g) in grids.into_iter().enumerate() {
        let len = g.p.len();
        g.p.copy_from_slice(&nodes.p[take(b + 1, len)]);
    }
}
