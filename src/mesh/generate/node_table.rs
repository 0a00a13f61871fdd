//! The nodes of several structured blocks as one table, with the nodes that two blocks share
//! (or that one pitch separates) identified: a union-find whose links carry the pitch shift
//! between a node and its parent, so that `position(k) = position(root) + shift * pitch`.

use super::passage_blocks::PassageCounts;

/// Block dimensions, where each block's nodes start, and the identification.
pub struct NodeTable {
    /// Cells (ni, nj) of each block.
    pub dims: Vec<(usize, usize)>,
    /// Stored id of each block's node (0, 0).
    pub offsets: Vec<usize>,
    /// Parent and pitch shift of every stored node.
    parent: Vec<(usize, i32)>,
}

impl NodeTable {
    /// Blocks of `dims` cells, every node its own.
    pub fn new(dims: Vec<(usize, usize)>) -> NodeTable {
        let mut offsets = vec![0; dims.len()];
        for b in 1..dims.len() {
            offsets[b] = offsets[b - 1] + (dims[b - 1].0 + 1) * (dims[b - 1].1 + 1);
        }
        let total = dims.last().map_or(0, |&(ni, nj)| offsets[dims.len() - 1] + (ni + 1) * (nj + 1));
        NodeTable { dims, offsets, parent: (0..total).map(|k| (k, 0)).collect() }
    }

    /// Number of stored nodes.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Stored id of node (i, j) of block `b`.
    pub fn id(&self, b: usize, i: usize, j: usize) -> usize {
        self.offsets[b] + i + (self.dims[b].0 + 1) * j
    }

    /// The identified node of stored node `k` and the pitches `k` is shifted by from it.
    pub fn find(&self, k: usize) -> (usize, i32) {
        let (mut k, mut shift) = (k, 0);
        while self.parent[k].0 != k {
            shift += self.parent[k].1;
            k = self.parent[k].0;
        }
        (k, shift)
    }

    /// Records that node `a` sits at node `b` shifted by `pitches`.
    pub fn join(&mut self, a: usize, b: usize, pitches: i32) {
        let (ra, sa) = self.find(a);
        let (rb, sb) = self.find(b);
        if ra != rb {
            // pos(a) = pos(ra) + sa = pos(b) + pitches = pos(rb) + sb + pitches.
            self.parent[ra] = (rb, sb + pitches - sa);
        }
    }

    /// The passage blocks' interfaces and periodic lines (`passage_blocks.rs`), for the inlet,
    /// pressure, suction and outlet blocks stored as blocks `first` to `first + 3`.
    pub fn identify_passage(&mut self, c: PassageCounts, first: usize) {
        let [inlet, pressure, suction, outlet] = [first, first + 1, first + 2, first + 3];
        let (n_in, n_side, n_out, n) = (c.n_in, c.n_side, c.n_out, c.n_across);
        let (nj_in, nj_out) = (c.nj_inlet(), c.nj_outlet());
        for j in 0..=n {
            self.join(self.id(pressure, 0, j), self.id(inlet, n_in, j), 0);
            self.join(self.id(suction, 0, j), self.id(inlet, n_in, n + c.n_le + j), 0);
            self.join(self.id(pressure, n_side, j), self.id(outlet, 0, j), 0);
            self.join(self.id(suction, n_side, j), self.id(outlet, 0, n + c.n_te + j), 0);
        }
        for i in 0..=n_in {
            self.join(self.id(inlet, i, nj_in), self.id(inlet, i, 0), 1);
        }
        for i in 0..=n_side {
            self.join(self.id(suction, i, n), self.id(pressure, i, 0), 1);
        }
        for i in 0..=n_out {
            self.join(self.id(outlet, i, nj_out), self.id(outlet, i, 0), 1);
        }
    }
}
