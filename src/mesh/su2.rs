//! SU2 native mesh export (NDIME = 2, quadrilaterals), for cross-checks with SU2.
//!
//! Nodes that coincide across 1-to-1 connections are merged (union-find over the node pairs
//! of every connection), so the exported mesh is conforming; periodic sides keep their own
//! nodes and become markers for SU2's `MARKER_PERIODIC`. Marker names:
//! [`BoundaryKind::Wall`] -> `blade`, `Inlet` -> `inlet`, `Outlet` -> `outlet`, periodic sides
//! -> `periodic_lower` (the side whose donor lies one translation above, `translation.y < 0`,
//! or `.x < 0` for a purely axial translation) and `periodic_upper`, `InviscidWall` ->
//! `slip_wall`, `Symmetry` -> `symmetry`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::error::{Error, Result};
use crate::mesh::connect::{node_partners, validate};
use crate::mesh::metrics::{face_edge_nodes, face_node};
use crate::mesh::{BoundaryKind, Mesh};

/// VTK cell type numbers used by SU2.
const SU2_LINE: u32 = 3;
const SU2_QUAD: u32 = 9;

/// Counts of an SU2 mesh file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Su2Summary {
    /// NDIME, NELEM and NPOIN.
    pub dimensions: usize,
    pub elements: usize,
    pub points: usize,
    /// Marker names and their element counts, in file order.
    pub markers: Vec<(String, usize)>,
}

/// Marker name of a boundary kind (see the module documentation).
pub fn marker_name(kind: &BoundaryKind) -> &'static str {
    match kind {
        BoundaryKind::Wall => "blade",
        BoundaryKind::InviscidWall => "slip_wall",
        BoundaryKind::Symmetry => "symmetry",
        BoundaryKind::Inlet => "inlet",
        BoundaryKind::Outlet => "outlet",
        BoundaryKind::Interface(c) => {
            let t = c.translation;
            if t[1] < 0.0 || (t[1] == 0.0 && t[0] < 0.0) {
                "periodic_lower"
            } else {
                "periodic_upper"
            }
        }
    }
}

/// Disjoint-set forest over global node numbers.
struct UnionFind(Vec<usize>);

impl UnionFind {
    fn find(&mut self, mut a: usize) -> usize {
        while self.0[a] != a {
            self.0[a] = self.0[self.0[a]];
            a = self.0[a];
        }
        a
    }
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.find(a), self.find(b));
        // Keep the smaller number as the root so that numbering follows block order.
        let (lo, hi) = (ra.min(rb), ra.max(rb));
        self.0[hi] = lo;
    }
}

/// Export `mesh` (validated first) as an SU2 native mesh; returns the counts written.
pub fn write_su2(path: impl AsRef<Path>, mesh: &Mesh) -> Result<Su2Summary> {
    validate(mesh)?;
    let path = path.as_ref();
    let offsets: Vec<usize> = mesh
        .blocks
        .iter()
        .scan(0, |acc, b| {
            let o = *acc;
            *acc += b.x.len();
            Some(o)
        })
        .collect();
    let total: usize = mesh.blocks.iter().map(|b| b.x.len()).sum();
    let global = |b: usize, (i, j): (usize, usize)| offsets[b] + mesh.blocks[b].node(i, j);

    // Merge the node pairs of every 1-to-1 connection.
    let mut uf = UnionFind((0..total).collect());
    for (b, block) in mesh.blocks.iter().enumerate() {
        for patch in &block.patches {
            let BoundaryKind::Interface(conn) = &patch.kind else { continue };
            if conn.is_periodic() {
                continue;
            }
            let donor = &mesh.blocks[conn.donor_block];
            for f in patch.start..patch.end {
                for (nf, nm) in node_partners(patch, conn, f) {
                    uf.union(global(b, face_node(block, patch.face, nf)), global(conn.donor_block, face_node(donor, conn.donor_face, nm)));
                }
            }
        }
    }
    // Number the surviving nodes in order of their roots.
    let mut number = vec![usize::MAX; total];
    let mut points = Vec::new();
    for g in 0..total {
        let r = uf.find(g);
        if number[r] == usize::MAX {
            number[r] = points.len();
            points.push(r);
        }
        number[g] = number[r];
    }

    let mut out = String::new();
    let _ = writeln!(out, "% SU2 mesh exported by turbopt ({} blocks)\nNDIME= 2", mesh.blocks.len());
    let _ = writeln!(out, "NELEM= {}", mesh.n_cells());
    let mut e = 0;
    for (b, block) in mesh.blocks.iter().enumerate() {
        for j in 0..block.nj {
            for i in 0..block.ni {
                let n = |i, j| number[global(b, (i, j))];
                let _ = writeln!(out, "{SU2_QUAD} {} {} {} {} {e}", n(i, j), n(i + 1, j), n(i + 1, j + 1), n(i, j + 1));
                e += 1;
            }
        }
    }
    let _ = writeln!(out, "NPOIN= {}", points.len());
    for (k, &g) in points.iter().enumerate() {
        let b = offsets.partition_point(|&o| o <= g) - 1;
        let local = g - offsets[b];
        let _ = writeln!(out, "{:e} {:e} {k}", mesh.blocks[b].x[local], mesh.blocks[b].y[local]);
    }

    let mut markers: BTreeMap<(usize, &str), Vec<[usize; 2]>> = BTreeMap::new();
    for (b, block) in mesh.blocks.iter().enumerate() {
        for patch in &block.patches {
            if matches!(&patch.kind, BoundaryKind::Interface(c) if !c.is_periodic()) {
                continue;
            }
            let name = marker_name(&patch.kind);
            let lines = markers.entry((marker_rank(name), name)).or_default();
            for f in patch.start..patch.end {
                let [a, c] = face_edge_nodes(block, patch.face, f);
                lines.push([number[global(b, a)], number[global(b, c)]]);
            }
        }
    }
    let _ = writeln!(out, "NMARK= {}", markers.len());
    for ((_, name), lines) in &markers {
        let _ = writeln!(out, "MARKER_TAG= {name}\nMARKER_ELEMS= {}", lines.len());
        for [a, c] in lines {
            let _ = writeln!(out, "{SU2_LINE} {a} {c}");
        }
    }
    fs::write(path, out).map_err(|e| Error::io(path, e))?;
    Ok(Su2Summary {
        dimensions: 2,
        elements: mesh.n_cells(),
        points: points.len(),
        markers: markers.iter().map(|((_, n), l)| (n.to_string(), l.len())).collect(),
    })
}

/// Markers in a fixed order: blade, inlet, outlet, periodic_lower, periodic_upper, others.
fn marker_rank(name: &str) -> usize {
    ["blade", "inlet", "outlet", "periodic_lower", "periodic_upper", "slip_wall", "symmetry"]
        .iter()
        .position(|n| *n == name)
        .unwrap_or(usize::MAX)
}

/// Read the counts of an SU2 native mesh, checking that every element line has the node count
/// of its type and node numbers below NPOIN.
pub fn read_su2_summary(path: impl AsRef<Path>) -> Result<Su2Summary> {
    let path = path.as_ref();
    let text = fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let bad = |reason: String| Error::Input { path: path.display().to_string(), reason };
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('%'));
    let dimensions = keyword(&mut lines, &bad, "NDIME=")?;
    let elements = keyword(&mut lines, &bad, "NELEM=")?;
    // No pre-allocation from counts read in the file: a corrupt count must give an error, not an abort.
    let mut element_nodes = Vec::new();
    for k in 0..elements {
        element_nodes.push(element_line(lines.next(), k, &bad)?);
    }
    let points = keyword(&mut lines, &bad, "NPOIN=")?;
    for k in 0..points {
        let line = lines.next().ok_or_else(|| bad(format!("file ends at point {k} of {points}")))?;
        if line.split_whitespace().count() < dimensions {
            return Err(bad(format!("point {k}: '{line}' has fewer than {dimensions} coordinates")));
        }
    }
    let n_markers = keyword(&mut lines, &bad, "NMARK=")?;
    let mut markers = Vec::new();
    for _ in 0..n_markers {
        let line = lines.next().ok_or_else(|| bad("file ends before a MARKER_TAG".into()))?;
        let name = line.strip_prefix("MARKER_TAG=").ok_or_else(|| bad(format!("expected MARKER_TAG=, found '{line}'")))?.trim().to_string();
        let count = keyword(&mut lines, &bad, "MARKER_ELEMS=")?;
        for k in 0..count {
            element_nodes.push(element_line(lines.next(), k, &bad)?);
        }
        markers.push((name, count));
    }
    if let Some(n) = element_nodes.iter().flatten().find(|&&n| n >= points) {
        return Err(bad(format!("node number {n} is not below NPOIN = {points}")));
    }
    Ok(Su2Summary { dimensions, elements, points, markers })
}

fn keyword<'a>(lines: &mut impl Iterator<Item = &'a str>, bad: &dyn Fn(String) -> Error, key: &str) -> Result<usize> {
    let line = lines.next().ok_or_else(|| bad(format!("file ends before {key}")))?;
    let value = line.strip_prefix(key).ok_or_else(|| bad(format!("expected {key}, found '{line}'")))?;
    value.trim().parse().map_err(|_| bad(format!("{key} '{}' is not a count", value.trim())))
}

fn element_line(line: Option<&str>, k: usize, bad: &dyn Fn(String) -> Error) -> Result<Vec<usize>> {
    let line = line.ok_or_else(|| bad(format!("file ends at element {k}")))?;
    let numbers: Vec<usize> = line.split_whitespace().map(str::parse).collect::<std::result::Result<_, _>>().map_err(|_| bad(format!("element {k}: '{line}'")))?;
    let nodes = match numbers.first() {
        Some(&3) => 2,
        Some(&5) => 3,
        Some(&9) => 4,
        _ => return Err(bad(format!("element {k}: unknown type in '{line}'"))),
    };
    if numbers.len() < 1 + nodes {
        return Err(bad(format!("element {k}: '{line}' needs {nodes} nodes")));
    }
    Ok(numbers[1..=nodes].to_vec())
}
