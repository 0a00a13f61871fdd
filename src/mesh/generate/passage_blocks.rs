//! The four passage blocks round the boundary-layer block, their boundaries and first
//! (transfinite) interiors.
//!
//! Every passage block runs with i downstream and j pitchwise (upwards), so that grid lines
//! continue from block to block with the same indices:
//!
//! - `inlet`: from the inlet plane to the entrance line (i), from M - pitch to M (j); its right
//!   face is the lower entrance line, the leading-edge arc of the outer curve and the upper
//!   entrance line;
//! - `pressure`: from the lower entrance line to the lower exit line (i), from M - pitch to the
//!   pressure side's outer curve (j);
//! - `suction`: from the upper entrance line to the upper exit line (i), from the suction side's
//!   outer curve to M (j);
//! - `outlet`: from the exit line to the outlet plane (i), from M - pitch to M (j); its left face
//!   is the lower exit line, the rear arc of the outer curve (trailing edge and uncovered
//!   suction side) and the upper exit line.
//!
//! The entrance and exit lines cross the passage from the suction side (`le_up`, `te_up`) to
//! the neighbouring blade's pressure side (`le_dn`, `te_dn`), one pitch up; M crosses them at
//! their middle nodes (Y and X), where four blocks meet.

use super::boundary_layer::OGrid;
use super::distribution::{dist, dot, graded_distribution, sub, unit, Polyline, SpacingAt, P2};
use super::grid::Grid;
use super::periodic;
use super::wall::{ceil8, WallArcs};
use crate::error::Error;

/// Cell counts of the passage blocks (every one a multiple of 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassageCounts {
    /// Cells from the inlet plane to the entrance line.
    pub n_in: usize,
    /// Cells along the covered sides (and M between Y and X).
    pub n_side: usize,
    /// Cells from the exit line to the outlet plane.
    pub n_out: usize,
    /// Cells across each half of the passage (outer curve to M).
    pub n_across: usize,
    /// Cells of the leading-edge arc and of the rear arc.
    pub n_le: usize,
    pub n_te: usize,
}

impl PassageCounts {
    /// Nodes of the inlet and outlet planes less one.
    pub fn nj_inlet(&self) -> usize {
        2 * self.n_across + self.n_le
    }
    pub fn nj_outlet(&self) -> usize {
        2 * self.n_across + self.n_te
    }
    /// Offsets, on the boundary-layer block's outer curve (clockwise from `te_up`), of the
    /// starts of the rear arc, the covered pressure side, the leading-edge arc and the covered
    /// suction side.
    pub fn o_starts(&self) -> [usize; 4] {
        [0, self.n_te, self.n_te + self.n_side, self.n_te + self.n_side + self.n_le]
    }
}

/// The four passage blocks.
#[derive(Clone, Debug)]
pub struct PassageBlocks {
    pub counts: PassageCounts,
    pub inlet: Grid,
    pub pressure: Grid,
    pub suction: Grid,
    pub outlet: Grid,
}

/// What the passage blocks are built from.
pub struct PassageInput<'a> {
    pub o: &'a OGrid,
    pub arcs: &'a WallArcs,
    pub m: &'a Polyline,
    pub pitch: f64,
    /// Growth ratio along the passage blocks' lines.
    pub ratio: f64,
    /// Fewest cells across half the passage.
    pub min_across: usize,
}

/// A line of `n` cells from `a` to `b` with cells of (about) `ha` and `hb` at its ends.
fn straight(a: P2, b: P2, n: usize, ha: f64, hb: f64, ratio: f64) -> Result<Vec<P2>, Error> {
    let len = dist(a, b);
    let s = graded_distribution(len, n, &[SpacingAt { s: 0.0, h: ha }, SpacingAt { s: len, h: hb }], None, ratio)?;
    Ok(s.iter().map(|&v| [a[0] + (b[0] - a[0]) * v / len, a[1] + (b[1] - a[1]) * v / len]).collect())
}

/// Smallest angle between an entrance or exit line and the side it leaves, in the covered
/// passage's corner cell. A straight line to the neighbouring blade meets a turbine's suction
/// side at 15-25 deg where the corner search trades that angle against the room the outlet
/// block needs; bending the line's ends to 60 deg gives the three cells round the corner about
/// equal angles (60 deg each on a straight wall), the least skewness a corner of three cells
/// can have.
const MIN_CORNER_DEG: f64 = 60.0;

/// Samples of the crossing line's curve before its nodes are graded along it.
const CROSSING_SAMPLES: usize = 400;

/// The entrance or exit line from `a` to `b`, `n` cells graded from `ha` and `hb`: the straight
/// line where it leaves both sides (unit directions `sides`, along each side into the covered
/// passage) at MIN_CORNER_DEG or more, else a cubic Hermite curve whose end tangents are turned
/// away from the side to that angle.
fn crossing_line(a: P2, b: P2, sides: (P2, P2), n: usize, ha: f64, hb: f64, ratio: f64) -> Result<Vec<P2>, Error> {
    let chord = sub(b, a);
    let len = dist(a, b);
    let leave_a = leaving(sides.0, unit(chord));
    let leave_b = leaving(sides.1, unit([-chord[0], -chord[1]]));
    if leave_a.is_none() && leave_b.is_none() {
        return straight(a, b, n, ha, hb, ratio);
    }
    let ta = leave_a.unwrap_or(unit(chord));
    let tb = leave_b.map_or(unit(chord), |t| [-t[0], -t[1]]);
    let points: Vec<P2> = (0..=CROSSING_SAMPLES)
        .map(|k| {
            let t = k as f64 / CROSSING_SAMPLES as f64;
            let (h00, h10, h01, h11) = (2.0 * t.powi(3) - 3.0 * t * t + 1.0, t.powi(3) - 2.0 * t * t + t, -2.0 * t.powi(3) + 3.0 * t * t, t.powi(3) - t * t);
            std::array::from_fn(|c| h00 * a[c] + h10 * len * ta[c] + h01 * b[c] + h11 * len * tb[c])
        })
        .collect();
    graded_on(&Polyline::new(points), n, ha, hb, ratio)
}

/// The direction a crossing line should leave a side along `side` towards `chord`: None where
/// the chord already makes MIN_CORNER_DEG or more with it, else the side turned towards the
/// chord by that angle.
fn leaving(side: P2, chord: P2) -> Option<P2> {
    let angle = dot(side, chord).clamp(-1.0, 1.0).acos();
    let min = MIN_CORNER_DEG.to_radians();
    if angle >= min {
        return None;
    }
    let sense = if side[0] * chord[1] - side[1] * chord[0] >= 0.0 { 1.0 } else { -1.0 };
    let (s, c) = (sense * min).sin_cos();
    Some([c * side[0] - s * side[1], s * side[0] + c * side[1]])
}

fn up(p: P2, pitch: f64) -> P2 {
    [p[0], p[1] + pitch]
}

fn down(p: P2, pitch: f64) -> P2 {
    [p[0], p[1] - pitch]
}

/// The nodes of `curve` at arc-length fractions `f` (0 to 1).
fn at_fractions(curve: &Polyline, f: &[f64]) -> Vec<P2> {
    let len = curve.length();
    let mut v: Vec<P2> = f.iter().map(|&t| curve.at(t * len)).collect();
    v[0] = curve.points()[0];
    let last = v.len() - 1;
    v[last] = *curve.points().last().unwrap_or(&v[last]);
    v
}

/// Arc-length fractions of a polyline's nodes.
fn fractions(nodes: &[P2]) -> Vec<f64> {
    let mut s = vec![0.0; nodes.len()];
    for k in 1..nodes.len() {
        s[k] = s[k - 1] + dist(nodes[k - 1], nodes[k]);
    }
    let total = s[nodes.len() - 1];
    s.iter().map(|v| v / total).collect()
}

/// The part of M between arc lengths `s0` and `s1`, as a polyline.
fn m_part(m: &Polyline, s0: f64, s1: f64) -> Polyline {
    let pts = m.points();
    let mut v = vec![m.at(s0)];
    let mut acc = 0.0;
    for k in 1..pts.len() {
        acc += dist(pts[k - 1], pts[k]);
        if acc > s0 && acc < s1 {
            v.push(pts[k]);
        }
    }
    v.push(m.at(s1));
    Polyline::new(v)
}

/// Nodes of `curve` with `n` cells, `h0` at its start and `h1` at its end, growing by at most
/// `ratio`.
fn graded_on(curve: &Polyline, n: usize, h0: f64, h1: f64, ratio: f64) -> Result<Vec<P2>, Error> {
    let len = curve.length();
    let s = graded_distribution(len, n, &[SpacingAt { s: 0.0, h: h0 }, SpacingAt { s: len, h: h1 }], None, ratio)?;
    Ok(at_fractions(curve, &s.iter().map(|v| v / len).collect::<Vec<_>>()))
}

impl PassageBlocks {
    /// Lays out the entrance and exit lines, M's nodes, the inlet and outlet planes, and
    /// fills the four blocks by transfinite interpolation.
    pub fn build(input: &PassageInput) -> Result<PassageBlocks, Error> {
        let PassageInput { o, arcs, m, pitch, ratio, .. } = *input;
        let starts = [0, arcs.n_te, arcs.n_te + arcs.n_side, arcs.n_te + arcs.n_side + arcs.n_le];
        let [i_te_up, i_te_dn, i_le_dn, i_le_up] = starts;
        // The first cell off the outer curve continues the layers' growth.
        let first = |i: usize| o.outer_spacing(i) * ratio;
        // Entrance and exit lines: from the suction side's corner to the neighbour's pressure
        // side corner, graded from both ends; M passes through their middle nodes.
        let (ent_a, ent_b) = (o.outer(i_le_up), up(o.outer(i_le_dn), pitch));
        let (ext_a, ext_b) = (o.outer(i_te_up), up(o.outer(i_te_dn), pitch));
        let across = |a: P2, b: P2, ha: f64, hb: f64| {
            let ends = [SpacingAt { s: 0.0, h: ha }, SpacingAt { s: dist(a, b), h: hb }];
            super::distribution::cells_needed(dist(a, b), &ends, None, ratio, f64::INFINITY)
        };
        let needed = across(ent_a, ent_b, first(i_le_up), first(i_le_dn)).max(across(ext_a, ext_b, first(i_te_up), first(i_te_dn)));
        let n_across = ceil8(0.5 * needed).max(input.min_across);
        // Each line leaves a side towards that side's block at an angle of at least
        // MIN_CORNER_DEG (`crossing_line`); the sides' directions there, into the covered passage.
        let side = |from: P2, to: P2| unit(sub(to, from));
        let entrance_sides = (side(ent_a, o.outer(i_le_up + 1)), side(ent_b, up(o.outer(i_le_dn - 1), pitch)));
        let exit_sides = (side(ext_a, o.outer(i_te_up + o.ni - 1)), side(ext_b, up(o.outer(i_te_dn + 1), pitch)));
        let entrance = crossing_line(ent_a, ent_b, entrance_sides, 2 * n_across, first(i_le_up), first(i_le_dn), ratio)?;
        let exit = crossing_line(ext_a, ext_b, exit_sides, 2 * n_across, first(i_te_up), first(i_te_dn), ratio)?;
        let (y_node, x_node) = (entrance[n_across], exit[n_across]);
        if !(x_node[0] > y_node[0]) {
            return Err(Error::Mesh(format!(
                "the passage's exit line crosses mid-passage at x = {:.3} mm, upstream of its entrance line ({:.3} mm)",
                x_node[0] * 1e3,
                y_node[0] * 1e3
            )));
        }
        let m = through(m, y_node, x_node);
        let (s_y, s_x) = (m.closest_param(y_node), m.closest_param(x_node));

        // M between Y and X: the mean of the two covered sides' node fractions.
        let n_side = arcs.n_side;
        let ss: Vec<P2> = (0..=n_side).map(|i| o.outer(i_le_up + i)).collect();
        let ps: Vec<P2> = (0..=n_side).map(|i| o.outer(i_le_dn - i)).collect();
        let (fs, fp) = (fractions(&ss), fractions(&ps));
        let mean: Vec<f64> = fs.iter().zip(&fp).map(|(a, b)| 0.5 * (a + b)).collect();
        let mut m_mid = at_fractions(&m_part(&m, s_y, s_x), &mean);
        m_mid[0] = y_node;
        m_mid[n_side] = x_node;
        let h_y = dist(m_mid[0], m_mid[1]);
        let h_x = dist(m_mid[n_side - 1], m_mid[n_side]);

        // Upstream and downstream parts of M, graded to the planes' mean spacing.
        let nj_in = 2 * n_across + arcs.n_le;
        let nj_out = 2 * n_across + arcs.n_te;
        let (h_in, h_out) = (pitch / nj_in as f64, pitch / nj_out as f64);
        let front = m_part(&m, 0.0, s_y);
        let back = m_part(&m, s_x, m.length());
        let count = |c: &Polyline, h0: f64, h1: f64| {
            let ends = [SpacingAt { s: 0.0, h: h0 }, SpacingAt { s: c.length(), h: h1 }];
            ceil8(super::distribution::cells_needed(c.length(), &ends, None, ratio, f64::INFINITY)).max(16)
        };
        let n_in = count(&front, h_in, h_y);
        let n_out = count(&back, h_x, h_out);
        let mut m_front = graded_on(&front, n_in, h_in, h_y, ratio)?;
        let mut m_back = graded_on(&back, n_out, h_x, h_out, ratio)?;
        m_front[n_in] = y_node;
        m_back[0] = x_node;
        let counts = PassageCounts { n_in, n_side, n_out, n_across, n_le: arcs.n_le, n_te: arcs.n_te };

        // Inlet and outlet planes: uniform, from M - pitch to M.
        let plane = |top: P2, n: usize| -> Vec<P2> { (0..=n).map(|k| [top[0], top[1] - pitch + pitch * k as f64 / n as f64]).collect() };
        let inlet_plane = plane(m_front[0], nj_in);
        let outlet_plane = plane(m_back[n_out], nj_out);

        // Faces.
        let lower_entrance: Vec<P2> = entrance[n_across..].iter().map(|&p| down(p, pitch)).collect();
        let upper_entrance: Vec<P2> = entrance[..=n_across].to_vec();
        let lower_exit: Vec<P2> = exit[n_across..].iter().map(|&p| down(p, pitch)).collect();
        let upper_exit: Vec<P2> = exit[..=n_across].to_vec();
        let le_arc: Vec<P2> = (0..=arcs.n_le).map(|k| o.outer(i_le_dn + k)).collect();
        let rear_arc: Vec<P2> = (0..=arcs.n_te).map(|k| o.outer(i_te_dn - k)).collect();
        let mut entrance_face = lower_entrance.clone();
        entrance_face.extend_from_slice(&le_arc[1..]);
        entrance_face.extend_from_slice(&upper_entrance[1..]);
        let mut exit_face = lower_exit.clone();
        exit_face.extend_from_slice(&rear_arc[1..]);
        exit_face.extend_from_slice(&upper_exit[1..]);
        let lowered = |v: &[P2]| v.iter().map(|&p| down(p, pitch)).collect::<Vec<P2>>();

        let inlet = Grid::transfinite(&lowered(&m_front), &m_front, &inlet_plane, &entrance_face);
        let pressure = Grid::transfinite(&lowered(&m_mid), &ps, &lower_entrance, &lower_exit);
        let suction = Grid::transfinite(&ss, &m_mid, &upper_entrance, &upper_exit);
        let outlet = Grid::transfinite(&lowered(&m_back), &m_back, &exit_face, &outlet_plane);
        Ok(PassageBlocks { counts, inlet, pressure, suction, outlet })
    }
}

/// Target control functions of one block: `[phi, psi]` per node (i fastest), NaN where the
/// smoother measures them on the grid itself.
pub type Targets = Vec<[f64; 2]>;

/// `-x_xixi / x_xi` of a node between cells `d_minus` and `d_plus` (Winslow's control
/// function that reproduces their ratio, `smoothing.rs`).
pub fn stretching(d_minus: f64, d_plus: f64) -> f64 {
    -2.0 * (d_plus - d_minus) / (d_plus + d_minus)
}

/// Cell sizes of `n` cells on a line of `length` with `h0` and `h1` at its ends.
fn cells(length: f64, n: usize, h0: f64, h1: f64, ratio: f64) -> Vec<f64> {
    let s = super::distribution::two_sided(length, n, h0, h1, ratio);
    s.windows(2).map(|w| w[1] - w[0]).collect()
}

fn length_of(nodes: &[P2]) -> f64 {
    nodes.windows(2).map(|w| dist(w[0], w[1])).sum()
}

/// Smooths a sequence of sizes so that neighbours differ by at most `ratio` (sizes only ever
/// shrink: a 1-D distance transform in log space).
fn limit_ratio(h: &mut [f64], ratio: f64) {
    for k in 1..h.len() {
        h[k] = h[k].min(h[k - 1] * ratio);
    }
    for k in (0..h.len().saturating_sub(1)).rev() {
        h[k] = h[k].min(h[k + 1] * ratio);
    }
}

/// The cell sizes wanted along the lines that leave the boundary-layer block's outer curve
/// (each line's own sequence, from its start).
struct LineTargets {
    /// Per suction-side line i: its cells from the outer curve to M; and the pressure-side
    /// line i's from M - pitch to the outer curve.
    suction: Vec<Vec<f64>>,
    pressure: Vec<Vec<f64>>,
    /// Per row j: the inlet block's cells from the inlet plane to the entrance face, the
    /// outlet block's from the exit face to the outlet plane.
    inlet: Vec<Vec<f64>>,
    outlet: Vec<Vec<f64>>,
}

impl PassageBlocks {
    /// The spacing wanted along the lines that leave the boundary-layer block's outer curve:
    /// the first cell continues the layers' growth (`ratio` times the outer layer), cells grow
    /// by at most `ratio`, and the cells that meet across M (the suction- and pressure-side
    /// blocks' lines) are equal. The inlet and outlet blocks' rows start (end) with cells that
    /// vary smoothly along the entrance (exit) face: the outer curve's first cells along its
    /// arc, the neighbouring blocks' columns along the lines. Line lengths are the grid's own.
    fn line_targets(&self, o: &OGrid, ratio: f64) -> LineTargets {
        let c = self.counts;
        let n = c.n_across;
        let [_, o_ps, o_le, o_ss] = c.o_starts();
        let first = |oi: usize| ratio * o.outer_spacing(oi % o.ni);
        let (si, sp, ss, so) = (&self.inlet, &self.pressure, &self.suction, &self.outlet);
        let mut suction = Vec::with_capacity(c.n_side + 1);
        let mut pressure = Vec::with_capacity(c.n_side + 1);
        for i in 0..=c.n_side {
            let up: Vec<P2> = (0..=n).map(|j| ss.at(i, j)).collect();
            let dn: Vec<P2> = (0..=n).map(|j| sp.at(i, j)).collect();
            let (lu, ld) = (length_of(&up), length_of(&dn));
            let (hu, hd) = (first(o_ss + i), first(o_ps + c.n_side - i));
            let end = |h: f64, l: f64| h * super::boundary_layer::growth_for(h, n, l).powi(n as i32 - 1);
            let h_m = (end(hu, lu) * end(hd, ld)).sqrt();
            suction.push(cells(lu, n, hu, h_m, ratio));
            pressure.push(cells(ld, n, h_m, hd, ratio));
        }
        let width = |g: &Grid, i0: usize, i1: usize, j: usize| dist(g.at(i0, j), g.at(i1, j));
        let column = |cells: &[Vec<f64>], j: usize, last: bool| {
            let v = &cells[if last { c.n_side } else { 0 }];
            v[j.min(v.len() - 1)]
        };
        let _ = column;
        let mut h_in: Vec<f64> = (0..=c.nj_inlet())
            .map(|j| {
                if j <= n {
                    width(sp, 0, 1, j)
                } else if j >= n + c.n_le {
                    width(ss, 0, 1, j - n - c.n_le)
                } else {
                    first(o_le + j - n)
                }
            })
            .collect();
        limit_ratio(&mut h_in, ratio);
        let inlet = h_in
            .iter()
            .enumerate()
            .map(|(j, &h)| {
                let row: Vec<P2> = (0..=c.n_in).map(|i| si.at(i, j)).collect();
                cells(length_of(&row), c.n_in, dist(row[0], row[1]), h, ratio)
            })
            .collect();
        let mut h_out: Vec<f64> = (0..=c.nj_outlet())
            .map(|j| {
                if j <= n {
                    width(sp, c.n_side - 1, c.n_side, j)
                } else if j >= n + c.n_te {
                    width(ss, c.n_side - 1, c.n_side, j - n - c.n_te)
                } else {
                    first(c.n_te - (j - n))
                }
            })
            .collect();
        limit_ratio(&mut h_out, ratio);
        let outlet = h_out
            .iter()
            .enumerate()
            .map(|(j, &h)| {
                let row: Vec<P2> = (0..=c.n_out).map(|i| so.at(i, j)).collect();
                cells(length_of(&row), c.n_out, h, dist(row[c.n_out - 1], row[c.n_out]), ratio)
            })
            .collect();
        LineTargets { suction, pressure, inlet, outlet }
    }

    /// The first cell wanted on every line that leaves the outer curve: `ratio` times the
    /// boundary-layer block's outer layer there.
    pub fn first_cells(&self, o: &OGrid, ratio: f64) -> super::smoothing::FirstCells {
        let c = self.counts;
        let [_, o_ps, o_le, o_ss] = c.o_starts();
        let first = |oi: usize| ratio * o.outer_spacing(oi % o.ni);
        super::smoothing::FirstCells {
            suction: (0..=c.n_side).map(|i| first(o_ss + i)).collect(),
            pressure: (0..=c.n_side).map(|i| first(o_ps + c.n_side - i)).collect(),
            inlet: (0..=c.n_le).map(|k| first(o_le + k)).collect(),
            outlet: (0..=c.n_te).map(|k| first(c.n_te - k)).collect(),
        }
    }

    /// No prescribed control functions: the smoother measures them all on the grid.
    pub fn no_targets(&self) -> [Targets; 4] {
        let none = |g: &Grid| vec![[f64::NAN; 2]; g.p.len()];
        [none(&self.inlet), none(&self.pressure), none(&self.suction), none(&self.outlet)]
    }

    /// The control functions that keep [`PassageBlocks::line_targets`]'s spacing (ratios of
    /// neighbouring cells), per block in graph order (inlet, pressure, suction, outlet).
    pub fn target_controls(&self, o: &OGrid, ratio: f64) -> [Targets; 4] {
        let c = self.counts;
        let n = c.n_across;
        let lt = self.line_targets(o, ratio);
        let mut t = self.no_targets();
        let (si, sp, ss, so) = (&self.inlet, &self.pressure, &self.suction, &self.outlet);
        for i in 0..=c.n_side {
            let (cu, cd) = (&lt.suction[i], &lt.pressure[i]);
            for j in 1..n {
                t[2][ss.index(i, j)][1] = stretching(cu[j - 1], cu[j]);
                t[1][sp.index(i, j)][1] = stretching(cd[j - 1], cd[j]);
            }
            t[1][sp.index(i, 0)][1] = stretching(cu[n - 1], cd[0]);
            t[2][ss.index(i, n)][1] = stretching(cu[n - 1], cd[0]);
            // The entrance and exit lines are the inlet and outlet blocks' faces too.
            if i == 0 {
                for j in 1..n {
                    t[0][si.index(c.n_in, j)][1] = t[1][sp.index(0, j)][1];
                    t[0][si.index(c.n_in, n + c.n_le + j)][1] = t[2][ss.index(0, j)][1];
                }
            }
            if i == c.n_side {
                for j in 1..n {
                    t[3][so.index(0, j)][1] = t[1][sp.index(c.n_side, j)][1];
                    t[3][so.index(0, n + c.n_te + j)][1] = t[2][ss.index(c.n_side, j)][1];
                }
            }
        }
        for (j, cr) in lt.inlet.iter().enumerate() {
            for i in 1..c.n_in {
                t[0][si.index(i, j)][0] = stretching(cr[i - 1], cr[i]);
            }
        }
        for (j, cr) in lt.outlet.iter().enumerate() {
            for i in 1..c.n_out {
                t[3][so.index(i, j)][0] = stretching(cr[i - 1], cr[i]);
            }
        }
        t
    }
}

/// M moved pitchwise so that it passes through `y` and `x` (the middle nodes of the entrance
/// and exit lines): the offsets there, interpolated linearly between them and held beyond.
fn through(m: &Polyline, y: P2, x: P2) -> Polyline {
    let (dy, dx) = (y[1] - periodic::height(m, y[0]), x[1] - periodic::height(m, x[0]));
    let shift = |px: f64| {
        let t = ((px - y[0]) / (x[0] - y[0])).clamp(0.0, 1.0);
        let w = t * t * (3.0 - 2.0 * t);
        dy + (dx - dy) * w
    };
    Polyline::new(m.points().iter().map(|p| [p[0], p[1] + shift(p[0])]).collect())
}

impl PassageBlocks {
    /// The passage blocks' first cell off the boundary-layer block's outer curve at each of
    /// its `ni` outer nodes: along the line that leaves the node, the geometric mean of the two
    /// blocks' at the four corners (where two lines leave).
    pub fn first_cells_at_outer_curve(&self, ni: usize) -> Vec<f64> {
        let c = self.counts;
        let n = c.n_across;
        let [_, o_ps, o_le, o_ss] = c.o_starts();
        let mut h = vec![Vec::<f64>::new(); ni];
        for i in 0..=c.n_side {
            h[(o_ss + i) % ni].push(dist(self.suction.at(i, 0), self.suction.at(i, 1)));
            h[o_ps + c.n_side - i].push(dist(self.pressure.at(i, n), self.pressure.at(i, n - 1)));
        }
        for k in 0..=c.n_le {
            h[o_le + k].push(dist(self.inlet.at(c.n_in, n + k), self.inlet.at(c.n_in - 1, n + k)));
        }
        for k in 0..=c.n_te {
            h[c.n_te - k].push(dist(self.outlet.at(0, n + k), self.outlet.at(1, n + k)));
        }
        h.iter().map(|v| v.iter().map(|x| x.ln()).sum::<f64>() / v.len().max(1) as f64).map(f64::exp).collect()
    }
}
