//! Blade-surface distributions: wall pressure and isentropic Mach number
//! Mis = sqrt(2/(gamma-1) ((P01/p)^((gamma-1)/gamma) - 1)) (docs/architecture.md, "figures").

use crate::flow::case::isentropic_mach;
use crate::flow::solution::Solution;
use crate::mesh::{BoundaryKind, Face, Mesh};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BladeSide {
    Suction,
    Pressure,
}

impl BladeSide {
    /// The labels the measured-data files use ("ss", "ps").
    pub fn label(self) -> &'static str {
        match self {
            BladeSide::Suction => "ss",
            BladeSide::Pressure => "ps",
        }
    }
}

/// One wall face of the blade.
#[derive(Clone, Debug, Serialize)]
pub struct SurfacePoint {
    /// Face centre \[m\].
    pub x: f64,
    pub y: f64,
    /// Axial distance from the leading edge \[m\].
    pub x_from_le: f64,
    pub side: BladeSide,
    /// Wall static pressure \[Pa\] (from the wall-adjacent cell: dp/dn = 0 at the wall).
    pub p: f64,
    pub mis: f64,
}

/// Wall faces in the order they appear along the wall patches: (face centre, pressure).
fn wall_faces(mesh: &Mesh, sol: &Solution, gamma: f64) -> Vec<([f64; 2], f64)> {
    let mut out = Vec::new();
    for (b, block) in mesh.blocks.iter().enumerate() {
        for patch in block.patches.iter().filter(|p| p.kind == BoundaryKind::Wall) {
            for k in patch.start..patch.end {
                let (n0, n1, cell) = match patch.face {
                    Face::JMin => (block.node(k, 0), block.node(k + 1, 0), block.cell(k, 0)),
                    Face::JMax => (block.node(k, block.nj), block.node(k + 1, block.nj), block.cell(k, block.nj - 1)),
                    Face::IMin => (block.node(0, k), block.node(0, k + 1), block.cell(0, k)),
                    Face::IMax => (block.node(block.ni, k), block.node(block.ni, k + 1), block.cell(block.ni - 1, k)),
                };
                let centre = [0.5 * (block.x[n0] + block.x[n1]), 0.5 * (block.y[n0] + block.y[n1])];
                out.push((centre, sol.blocks[b].pressure(cell, gamma)));
            }
        }
    }
    out
}

/// Isentropic Mach number on every blade wall face, split into suction and pressure side.
///
/// The wall faces form a closed loop; the leading edge is its most upstream face and the
/// trailing edge its most downstream one. Of the two arcs between them, the suction side is the
/// upper one at mid axial chord (the project's blades turn the flow towards -y, so their convex
/// side is the upper one). Assumes the wall patches list the wall faces as one closed loop, as
/// the cascade mesher's O-block does.
/// Points are returned ordered from the leading edge to the trailing edge on each side.
pub fn blade_surface(mesh: &Mesh, sol: &Solution, gamma: f64, p01: f64) -> Vec<SurfacePoint> {
    let faces = wall_faces(mesh, sol, gamma);
    let n = faces.len();
    if n < 4 {
        return Vec::new();
    }
    let le = argmin_by(&faces, |f| f.0[0]);
    let te = argmin_by(&faces, |f| -f.0[0]);
    let x_le = faces[le].0[0];
    // Walk forward from LE to TE (arc a) and from TE to LE (arc b, reversed afterwards).
    let arc_a: Vec<usize> = walk(le, te, n);
    // The LE and TE faces belong to arc a only; arc b holds the faces strictly between.
    let mut arc_b: Vec<usize> = walk(te, le, n);
    arc_b.reverse();
    arc_b.retain(|&k| k != le && k != te);
    // Compare the two arcs at mid axial chord: the suction side is the upper one there.
    let x_mid = 0.5 * (faces[le].0[0] + faces[te].0[0]);
    let y_at_mid = |arc: &[usize]| {
        arc.iter()
            .min_by(|&&p, &&q| (faces[p].0[0] - x_mid).abs().total_cmp(&(faces[q].0[0] - x_mid).abs()))
            .map_or(f64::NAN, |&k| faces[k].0[1])
    };
    let a_is_suction = y_at_mid(&arc_a) > y_at_mid(&arc_b);
    let (ss, ps) = if a_is_suction { (arc_a, arc_b) } else { (arc_b, arc_a) };
    let point = |k: usize, side| {
        let ((c, p), mis) = (faces[k], isentropic_mach(p01, faces[k].1, gamma));
        SurfacePoint { x: c[0], y: c[1], x_from_le: c[0] - x_le, side, p, mis }
    };
    ss.iter().map(|&k| point(k, BladeSide::Suction)).chain(ps.iter().map(|&k| point(k, BladeSide::Pressure))).collect()
}

/// Indices from `from` to `to` inclusive, going forward round a loop of `n`.
fn walk(from: usize, to: usize, n: usize) -> Vec<usize> {
    let mut v = vec![from];
    let mut k = from;
    while k != to {
        k = (k + 1) % n;
        v.push(k);
    }
    v
}

fn argmin_by<T>(v: &[T], key: impl Fn(&T) -> f64) -> usize {
    (0..v.len()).min_by(|&a, &b| key(&v[a]).total_cmp(&key(&v[b]))).unwrap_or(0)
}
