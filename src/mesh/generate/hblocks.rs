//! The H-type blocks round the O-grid: U (upstream), A (upper passage), B (lower passage) and
//! D (downstream), built line by line.
//!
//! Every grid line that leaves the O-grid is a cubic Hermite curve that continues the O-grid
//! line it starts from (same direction) and meets the far boundary (M, M - pitch, inlet,
//! outlet) along that boundary's natural direction. Nodes are placed on it by the graded size
//! function of `distribution.rs`, with the first cell equal to the neighbouring cell
//! across the interface, so that the growth ratio stays bounded across block interfaces too.

use super::distribution::{dist, graded_distribution, hermite, left_normal, scale, sub, unit, Polyline, SpacingAt, P2};
use super::oblock::OGrid;
use crate::error::Error;

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
}

/// Tension of the Hermite grid lines across A and B (end tangents = tension x chord).
const TENSION: (f64, f64) = (0.5, 0.5);
/// Tension of the rows of U and D: short at the O-grid, where rows fan out round the
/// leading and trailing edges and would otherwise cross, long at the inlet/outlet.
const ROW_TENSION: (f64, f64) = (0.15, 0.5);
/// Samples per Hermite curve before node placement.
const SAMPLES: usize = 300;

/// `n` cells along `curve`, with optional first-cell sizes at the start and the end. The end
/// nodes are returned exactly as the curve's end points.
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

/// Shared inputs of the H blocks.
pub struct HInputs<'a> {
    pub og: &'a OGrid,
    pub pitch: f64,
    /// Cells of the leading-edge, upper (= lower) and trailing-edge arcs.
    pub n_le: usize,
    pub n_up: usize,
    pub n_te: usize,
    /// Cells across A and B, along U and along D.
    pub n_c: usize,
    pub n_u: usize,
    pub n_d: usize,
    /// Nodes of M: U part (inlet to the leading-edge connector), A part, D part (to the outlet).
    pub m_u: &'a [P2],
    pub m_a: &'a [P2],
    pub m_d: &'a [P2],
    /// M densely, from the leading-edge connector back to the inlet, and from the
    /// trailing-edge connector to the outlet.
    pub m_u_curve: &'a Polyline,
    pub m_d_curve: &'a Polyline,
    /// Unit tangents of M at the A-part nodes, at the inlet and at the outlet.
    pub m_a_tangent: &'a [P2],
    pub m_in_tangent: P2,
    pub m_out_tangent: P2,
    pub inlet_x: f64,
    pub outlet_x: f64,
    /// Largest growth ratio of neighbouring cells along the lines.
    pub ratio: f64,
}

fn down(p: P2, pitch: f64) -> P2 {
    [p[0], p[1] - pitch]
}

/// Blocks A and B: columns from the O-grid's upper arc to M and from the lower arc to M - pitch.
pub fn passage_blocks(h: &HInputs) -> Result<(Grid, Grid), Error> {
    let og = h.og;
    let n_o = og.ni;
    let mut a = Grid::new(h.n_up, h.n_c);
    let mut b = Grid::new(h.n_up, h.n_c);
    for i in 0..=h.n_up {
        let ia = h.n_le + i;
        let ib = (n_o - i) % n_o;
        let up = left_normal(h.m_a_tangent[i]);
        let ca = hermite(og.outer(ia), og.outer_direction(ia), h.m_a[i], up, TENSION, SAMPLES);
        let cb = hermite(og.outer(ib), og.outer_direction(ib), down(h.m_a[i], h.pitch), scale(up, -1.0), TENSION, SAMPLES);
        // Same cell size on both sides of the periodic boundary: the mean uniform spacing.
        let h_mid = (ca.length() + cb.length()) / (2 * h.n_c) as f64;
        let na = line_nodes(&ca, h.n_c, Some(og.outer_spacing(ia)), Some(h_mid), h.ratio)?;
        let nb = line_nodes(&cb, h.n_c, Some(og.outer_spacing(ib)), Some(h_mid), h.ratio)?;
        for j in 0..=h.n_c {
            a.set(i, j, na[j]);
            b.set(i, h.n_c - j, nb[j]);
        }
        // Shared nodes exactly as their owners have them.
        a.set(i, 0, og.outer(ia));
        a.set(i, h.n_c, h.m_a[i]);
        b.set(i, h.n_c, og.outer(ib));
        b.set(i, 0, down(h.m_a[i], h.pitch));
    }
    Ok((a, b))
}

/// A node of a face shared with a neighbour block, the direction in which grid lines leave the
/// neighbour through it, and the neighbour's cell size along that direction.
struct FaceNode {
    p: P2,
    dir: P2,
    h: f64,
}

fn from_row(g: &Grid, i_face: usize, i_in: usize, j: usize) -> FaceNode {
    let (p, q) = (g.at(i_face, j), g.at(i_in, j));
    FaceNode { p, dir: unit(sub(p, q)), h: dist(p, q) }
}

fn from_ogrid(og: &OGrid, i: usize) -> FaceNode {
    FaceNode { p: og.outer(i), dir: og.outer_direction(i), h: og.outer_spacing(i) }
}

/// Junction of two faces (valence-5 point): average direction and size.
fn blend(a: FaceNode, b: FaceNode) -> FaceNode {
    FaceNode { p: a.p, dir: unit([a.dir[0] + b.dir[0], a.dir[1] + b.dir[1]]), h: 0.5 * (a.h + b.h) }
}

/// Rows leaving a face with a concave kink (where a connector meets the O-grid at ~90
/// degrees) would cross if each kept its neighbour block's direction: the row directions are
/// smoothed along the face, so that they fan round the kink.
fn smooth_row_directions(face: &mut [FaceNode], passes: usize) {
    let n = face.len();
    for _ in 0..passes {
        let old: Vec<P2> = face.iter().map(|f| f.dir).collect();
        for j in 1..n - 1 {
            let d = [
                0.25 * old[j - 1][0] + 0.5 * old[j][0] + 0.25 * old[j + 1][0],
                0.25 * old[j - 1][1] + 0.5 * old[j][1] + 0.25 * old[j + 1][1],
            ];
            face[j].dir = unit(d);
        }
    }
}

/// Rows from a face to the inlet or outlet plane (`far[j]`, arriving along `far_dir`), with
/// `n` cells each, first cell `face[j].h`. The periodic rows (j = 0 and the last) are given:
/// `top_nodes` on M (from the face to the far end) and their copy one pitch down.
///
/// Each interior row is a Hermite curve corrected transfinitely by the deviation of M (and
/// M - pitch) from the Hermite curves that the top (and bottom) rows would have been, weighted
/// by the row's position: the rows then follow the bends of the periodic lines instead of
/// crossing them.
#[allow(clippy::too_many_arguments)]
fn rows_to_plane(
    face: &[FaceNode],
    far: &[P2],
    far_dir: P2,
    top_curve: &Polyline,
    top_nodes: &[P2],
    pitch: f64,
    n: usize,
    ratio: f64,
) -> Result<Vec<Vec<P2>>, Error> {
    let nj = face.len() - 1;
    let frac = |c: &Polyline, f: f64| c.at(f * c.length());
    let h_top = hermite(face[nj].p, face[nj].dir, far[nj], far_dir, ROW_TENSION, SAMPLES);
    let h_bot = hermite(face[0].p, face[0].dir, far[0], far_dir, ROW_TENSION, SAMPLES);
    let mut rows = Vec::with_capacity(nj + 1);
    for j in 0..=nj {
        let nodes = if j == nj {
            top_nodes.to_vec()
        } else if j == 0 {
            top_nodes.iter().map(|p| down(*p, pitch)).collect()
        } else {
            let hj = hermite(face[j].p, face[j].dir, far[j], far_dir, ROW_TENSION, SAMPLES);
            let w = j as f64 / nj as f64;
            let pts = (0..=SAMPLES)
                .map(|k| {
                    let f = k as f64 / SAMPLES as f64;
                    let (p, t, ht, hb) = (frac(&hj, f), frac(top_curve, f), frac(&h_top, f), frac(&h_bot, f));
                    let dt = sub(t, ht);
                    let db = sub(down(t, pitch), hb);
                    [p[0] + w * dt[0] + (1.0 - w) * db[0], p[1] + w * dt[1] + (1.0 - w) * db[1]]
                })
                .collect();
            let mut nodes = line_nodes(&Polyline::new(pts), n, Some(face[j].h), None, ratio)?;
            nodes[0] = face[j].p;
            nodes[n] = far[j];
            nodes
        };
        rows.push(nodes);
    }
    Ok(rows)
}

/// Block U: rows from its right face [B's left connector, leading-edge arc, A's left
/// connector] to the inlet; top row M, bottom row M - pitch.
pub fn upstream_block(h: &HInputs, a: &Grid, b: &Grid) -> Result<Grid, Error> {
    let nj = 2 * h.n_c + h.n_le;
    let mut face = Vec::with_capacity(nj + 1);
    for j in 0..h.n_c {
        face.push(from_row(b, 0, 1, j));
    }
    face.push(blend(from_row(b, 0, 1, h.n_c), from_ogrid(h.og, 0)));
    for k in 1..h.n_le {
        face.push(from_ogrid(h.og, k));
    }
    face.push(blend(from_row(a, 0, 1, 0), from_ogrid(h.og, h.n_le)));
    for j in 1..=h.n_c {
        face.push(from_row(a, 0, 1, j));
    }
    smooth_row_directions(&mut face, h.n_c);
    let y_in = h.m_u[0][1];
    let far: Vec<P2> = (0..=nj).map(|j| [h.inlet_x, y_in - h.pitch + h.pitch * j as f64 / nj as f64]).collect();
    let top_nodes: Vec<P2> = h.m_u.iter().rev().copied().collect();
    let rows = rows_to_plane(&face, &far, scale(h.m_in_tangent, -1.0), h.m_u_curve, &top_nodes, h.pitch, h.n_u, h.ratio)?;
    let mut u = Grid::new(h.n_u, nj);
    for (j, row) in rows.into_iter().enumerate() {
        for (k, p) in row.into_iter().enumerate() {
            u.set(h.n_u - k, j, p);
        }
    }
    Ok(u)
}

/// Block D: rows from its left face [B's right connector, trailing-edge arc, A's right
/// connector] to the outlet; top row M, bottom row M - pitch.
pub fn downstream_block(h: &HInputs, a: &Grid, b: &Grid) -> Result<Grid, Error> {
    let nj = 2 * h.n_c + h.n_te;
    let i_te_lower = h.n_le + h.n_up + h.n_te;
    let mut face = Vec::with_capacity(nj + 1);
    for j in 0..h.n_c {
        face.push(from_row(b, h.n_up, h.n_up - 1, j));
    }
    face.push(blend(from_row(b, h.n_up, h.n_up - 1, h.n_c), from_ogrid(h.og, i_te_lower)));
    for k in 1..h.n_te {
        face.push(from_ogrid(h.og, i_te_lower - k));
    }
    face.push(blend(from_row(a, h.n_up, h.n_up - 1, 0), from_ogrid(h.og, h.n_le + h.n_up)));
    for j in 1..=h.n_c {
        face.push(from_row(a, h.n_up, h.n_up - 1, j));
    }
    smooth_row_directions(&mut face, h.n_c);
    let y_out = h.m_d[h.n_d][1];
    let far: Vec<P2> = (0..=nj).map(|j| [h.outlet_x, y_out - h.pitch + h.pitch * j as f64 / nj as f64]).collect();
    let rows = rows_to_plane(&face, &far, h.m_out_tangent, h.m_d_curve, h.m_d, h.pitch, h.n_d, h.ratio)?;
    let mut d = Grid::new(h.n_d, nj);
    for (j, row) in rows.into_iter().enumerate() {
        for (k, p) in row.into_iter().enumerate() {
            d.set(k, j, p);
        }
    }
    Ok(d)
}
