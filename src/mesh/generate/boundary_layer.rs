//! The boundary-layer block: an O-grid round the blade, sized from the wall spacing, the number
//! of cells across it and their growth, and thinned locally where the passage is narrow or the
//! wall concave.
//!
//! Its thickness is what `layers` cells growing geometrically by `ratio` from the first-cell
//! height (the y+ target) cover, where `layers` is what it takes for the outermost cell to reach
//! a share of the mean wall spacing (so that the block's outer cells are not much flatter than
//! the passage cells they meet). Established turbomachinery meshers size the boundary-layer
//! block the same way and cap it by the local gap to the neighbouring blade; this one caps it
//! at [`GAP_SHARE`] of that gap, at [`PERIODIC_SHARE`] of the distance to the periodic line
//! and at [`CONCAVE_SHARE`] of the radius of a concave stretch
//! (where the wall normals meet), and lets it vary by at most [`THICKNESS_SLOPE`] per unit
//! length along the wall. Where it is thinner, the same layers grow more slowly.
//!
//! The outer curve is the wall offset by the local thickness along normals taken over a
//! window as wide as the block is thick (so that a kink of the wall smaller than the block does
//! not fold it). Each grid line is a cubic Hermite curve that leaves its wall node along the
//! wall's normal (orthogonal wall cells) and meets the outer curve along its normal (orthogonal
//! cells where the passage blocks attach); its nodes grow geometrically from the first cell.

use super::distribution::{add, dist, dot, left_normal, scale, sub, unit, Polyline, P2};
use super::wall::Wall;
use crate::error::Error;

/// Share of the gap to the neighbouring blade that the block may fill.
pub const GAP_SHARE: f64 = 0.2;
/// Share of the distance to the periodic line that the block may fill (the line need not be
/// mid-way between the blades: the passage blocks need room on the block's side of it).
pub const PERIODIC_SHARE: f64 = 0.4;
/// Share of a concave stretch's radius that the block may fill.
pub const CONCAVE_SHARE: f64 = 0.6;
/// Largest change of the thickness per unit length along the wall.
pub const THICKNESS_SLOPE: f64 = 0.15;

/// How thick the block is and how its layers grow.
#[derive(Clone, Copy, Debug)]
pub struct LayerSpec {
    /// Wall-normal height of the first cell \[m\].
    pub first: f64,
    /// Cells across the block (a multiple of 8).
    pub layers: usize,
    /// Thickness where nothing caps it \[m\].
    pub thickness: f64,
    /// Largest growth ratio of the layers.
    pub ratio: f64,
}

impl LayerSpec {
    /// The outermost cell where nothing caps the thickness.
    pub fn outer_cell(&self) -> f64 {
        let r = growth_for(self.first, self.layers, self.thickness);
        self.first * r.powi(self.layers as i32 - 1)
    }

    /// Layers growing by at most `ratio` from `first` until a cell reaches `outer_cell`,
    /// rounded up to a multiple of 8 (at least 16) with the ratio lowered to keep the same
    /// thickness.
    pub fn new(first: f64, outer_cell: f64, ratio: f64) -> Result<Self, Error> {
        if !(first > 0.0 && outer_cell > first && ratio > 1.0) {
            return Err(Error::Mesh(format!("boundary layer: first cell {first:e} m must be positive and below the outer cell {outer_cell:e} m")));
        }
        let needed = 1.0 + (outer_cell / first).ln() / ratio.ln();
        let thickness = first * (ratio.powf(needed) - 1.0) / (ratio - 1.0);
        let layers = (8 * (needed / 8.0).ceil() as usize).max(16);
        Ok(LayerSpec { first, layers, thickness, ratio })
    }
}

/// The ratio r with `first (r^n - 1) / (r - 1) = length` (1 when the cells fit uniformly or
/// are too large already).
pub fn growth_for(first: f64, n: usize, length: f64) -> f64 {
    if length <= first * n as f64 {
        return 1.0;
    }
    let sum = |r: f64| first * (r.powi(n as i32) - 1.0) / (r - 1.0);
    let (mut lo, mut hi) = (1.0 + 1e-12, 2.0);
    while sum(hi) < length {
        hi *= 2.0;
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) > length {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The O-grid: `(ni+1) x (nj+1)` nodes, i fastest, the last i column repeating the first.
#[derive(Clone, Debug)]
pub struct OGrid {
    pub ni: usize,
    pub nj: usize,
    pub p: Vec<P2>,
}

impl OGrid {
    pub fn node(&self, i: usize, j: usize) -> P2 {
        self.p[i % self.ni + (self.ni + 1) * j]
    }
    /// Outer-layer node i.
    pub fn outer(&self, i: usize) -> P2 {
        self.node(i, self.nj)
    }
    /// Height of the outermost cell layer at outer node i.
    pub fn outer_spacing(&self, i: usize) -> f64 {
        dist(self.node(i, self.nj), self.node(i, self.nj - 1))
    }
}

/// The local thickness of the block at each wall node (arc lengths `s`, clockwise, closed
/// over the perimeter): `spec.thickness` capped by the gap to the neighbouring blades and by
/// concave stretches, then limited in slope along the wall.
pub fn thickness_field(wall: &Wall, s: &[f64], pitch: f64, m: &Polyline, spec: &LayerSpec) -> Vec<f64> {
    let p = wall.perimeter();
    let neighbours = [Polyline::new(shifted(wall, pitch)), Polyline::new(shifted(wall, -pitch))];
    let periodic = [m.clone(), Polyline::new(m.points().iter().map(|q| [q[0], q[1] - pitch]).collect())];
    let mut t: Vec<f64> = s
        .iter()
        .map(|&si| {
            let w = wall.at(si);
            let gap = neighbours.iter().map(|c| c.distance_to(w)).fold(f64::INFINITY, f64::min);
            let to_m = periodic.iter().map(|c| c.distance_to(w)).fold(f64::INFINITY, f64::min);
            let concave = wall.concave_radius_over(si, spec.thickness.max(1e-3 * p));
            spec.thickness
                .min(GAP_SHARE * gap)
                .min(PERIODIC_SHARE * to_m)
                .min(CONCAVE_SHARE * concave)
                .max(2.0 * spec.first * spec.layers as f64 / 16.0)
        })
        .collect();
    // t_i <= t_k + slope |s_i - s_k| round the closed wall: forward and backward sweeps, twice
    // round so that the wrap is seen.
    let n = s.len();
    let gap = |a: usize, b: usize| {
        let d = (s[b] - s[a]).rem_euclid(p);
        d.min(p - d)
    };
    for _ in 0..2 {
        for k in 0..n {
            let prev = (k + n - 1) % n;
            t[k] = t[k].min(t[prev] + THICKNESS_SLOPE * gap(prev, k));
        }
        for k in (0..n).rev() {
            let next = (k + 1) % n;
            t[k] = t[k].min(t[next] + THICKNESS_SLOPE * gap(k, next));
        }
    }
    t
}

/// The wall's points shifted by `dy` (a neighbouring blade), sampled for distance queries.
fn shifted(wall: &Wall, dy: f64) -> Vec<P2> {
    let pts = wall.curve.points();
    let stride = (pts.len() / 800).max(1);
    let mut v: Vec<P2> = pts.iter().step_by(stride).map(|q| [q[0], q[1] + dy]).collect();
    v.push([pts[0][0], pts[0][1] + dy]);
    v
}

/// Length of the sum of the two unit tangents at a wall node below which the node is the tip
/// of a near-sharp edge (a turn of more than about 150 degrees).
const SHARP_TURN_BISECTOR: f64 = 0.5;

/// Samples of the outer curve per wall node.
const OUTER_SAMPLES_PER_NODE: usize = 4;
/// Filter passes that round off the outer curve where the union of disks has corners.
const OUTER_PASSES: usize = 8;
/// Tension of the Hermite grid lines (times their chord) at the wall and at the outer curve:
/// short at the wall, where the exact normals of a concave stretch converge.
const LINE_TENSION: (f64, f64) = (0.1, 0.6);
/// Layers that follow the exact wall normal before a line may bend (wall orthogonality).
const STRAIGHT_LAYERS: usize = 4;
/// Share of the distance at which neighbouring wall normals cross that a line follows its own.
const CONVERGE_SHARE: f64 = 0.3;
/// Samples per Hermite line before its nodes are placed.
const LINE_SAMPLES: usize = 48;

/// Slides the nodes of every layer along it so that its cells grow by at most [`OUTER_RATIO`]
/// along it, as the wall's and the outer curve's do. Between the two, lines that fan round a
/// thin trailing edge (along the wall normals) and then turn to their outer nodes bunch and
/// spread unevenly: LS89 designs had neighbouring cells 1.37 apart mid-block where the wall
/// and the outer curve had 1.18 and 1.15. The first [`STRAIGHT_LAYERS`], which follow the
/// wall normals (wall orthogonality), stay.
fn even_layers(p: &mut [P2], ni: usize, nj: usize) {
    for j in STRAIGHT_LAYERS + 1..nj {
        let row = (ni + 1) * j;
        let mut layer: Vec<P2> = p[row..row + ni].to_vec();
        layer.push(layer[0]);
        // Arc lengths from the nodes themselves: the polyline drops coincident nodes.
        let mut at = vec![0.0; ni + 1];
        for i in 1..=ni {
            at[i] = at[i - 1] + dist(layer[i - 1], layer[i]);
        }
        let line = Polyline::new(layer);
        let before = at.clone();
        super::distribution::limit_spacing_ratio(&mut at, OUTER_RATIO, 400, (1, 1));
        for i in 1..ni {
            if at[i] != before[i] {
                p[row + i] = line.at(at[i]);
            }
        }
    }
}

/// The outer curve: the boundary of the union of the disks of the local thickness round the
/// wall (what a ball of that radius rolling along the wall sweeps), rounded off by a light
/// filter. A concave stretch tighter than the thickness is bridged, so the curve never
/// crosses itself. Returned closed, as a polyline.
fn outer_curve(wall: &Wall, s: &[f64], t: &[f64]) -> Polyline {
    let ni = s.len();
    let p = wall.perimeter();
    let m = OUTER_SAMPLES_PER_NODE * ni;
    // Thickness between the nodes, linearly (closed).
    let thickness = |v: f64| {
        let v = v.rem_euclid(p);
        let k = s.partition_point(|&q| q.rem_euclid(p) <= v);
        let (a, b) = ((k + ni - 1) % ni, k % ni);
        let (sa, sb) = (s[a].rem_euclid(p), s[b].rem_euclid(p));
        let span = (sb - sa).rem_euclid(p);
        let f = if span > 0.0 { ((v - sa).rem_euclid(p) / span).clamp(0.0, 1.0) } else { 0.0 };
        t[a] + f * (t[b] - t[a])
    };
    let sample: Vec<(P2, f64)> = (0..m)
        .map(|k| {
            let v = p * k as f64 / m as f64;
            (wall.at(v), thickness(v))
        })
        .collect();
    let window = 1e-4 * p;
    let kept: Vec<P2> = (0..m)
        .filter_map(|k| {
            let v = p * k as f64 / m as f64;
            let (w, tk) = sample[k];
            let q = add(w, scale(wall.normal_over(v, window), tk));
            // Inside another disk: the part of the offset that a concave stretch folds back.
            let inside = sample.iter().any(|&(c, r)| dist(q, c) < r * (1.0 - 1e-3) && dist(q, c) < tk * (1.0 - 1e-3));
            (!inside).then_some(q)
        })
        .collect();
    let mut q = kept;
    for _ in 0..OUTER_PASSES {
        let old = q.clone();
        let n = q.len();
        for k in 0..n {
            let (a, b) = (old[(k + n - 1) % n], old[(k + 1) % n]);
            q[k] = [0.5 * old[k][0] + 0.25 * (a[0] + b[0]), 0.5 * old[k][1] + 0.25 * (a[1] + b[1])];
        }
    }
    q.push(q[0]);
    Polyline::new(q)
}

/// Builds the O-grid on the wall nodes at arc lengths `s` (clockwise, the last not repeated)
/// with local thicknesses `t` and the layers of `spec`. Every grid line is a cubic Hermite curve
/// that leaves its wall node along the wall's normal there (orthogonal wall cells) and meets the
/// outer curve ([`outer_curve`]) along its normal; its nodes grow geometrically from the first
/// cell. The outer nodes are where the wall nodes' normals, smoothed over the thickness, reach
/// the outer curve, kept in order and spread where a bridged concave stretch crowds them.
pub fn build(wall: &Wall, s: &[f64], t: &[f64], spec: &LayerSpec) -> Result<OGrid, Error> {
    let ni = s.len();
    let nj = spec.layers;
    let curve = outer_curve(wall, s, t);
    let len = curve.length();
    let wall_nodes: Vec<P2> = s.iter().map(|&v| wall.at(v)).collect();
    let wall_normal: Vec<P2> = (0..ni)
        .map(|i| {
            let a = unit(sub(wall_nodes[i], wall_nodes[(i + ni - 1) % ni]));
            let b = unit(sub(wall_nodes[(i + 1) % ni], wall_nodes[i]));
            let bisector = add(a, b);
            // Round a near-sharp edge the wall turns by almost 180 degrees at one node: the
            // bisector of the tangents vanishes, and the normal points on along the edge.
            if dot(bisector, bisector) < SHARP_TURN_BISECTOR * SHARP_TURN_BISECTOR {
                unit(sub(a, b))
            } else {
                unit(left_normal(bisector))
            }
        })
        .collect();
    // Outer nodes: arc lengths along the outer curve of the smoothed normals' ends, unwrapped
    // to increase from the first, then spread so that none is closer to its neighbours than
    // a share of the mean.
    let mut sigma: Vec<f64> = (0..ni).map(|i| curve.closest_param(add(wall_nodes[i], scale(wall.normal_over(s[i], t[i]), t[i])))).collect();
    for i in 1..ni {
        while sigma[i] < sigma[i - 1] - 0.5 * len {
            sigma[i] += len;
        }
        while sigma[i] > sigma[i - 1] + 0.5 * len {
            sigma[i] -= len;
        }
        sigma[i] = sigma[i].max(sigma[i - 1]);
    }
    spread(&mut sigma, len);
    // The outer curve's cells grow by at most the layers' ratio along it: where the wall's
    // cells change fast (round a thin trailing edge, whose outer curve the block's thickness
    // stretches) the lines lean rather than the outer cells jump.
    let mut closed = sigma.clone();
    closed.push(sigma[0] + len);
    super::distribution::limit_spacing_ratio(&mut closed, spec.ratio.min(OUTER_RATIO), 4000, (1, 1));
    sigma.copy_from_slice(&closed[..ni]);
    let outer: Vec<P2> = sigma.iter().map(|&v| curve.at(v.rem_euclid(len))).collect();
    let outer_normal: Vec<P2> = sigma
        .iter()
        .map(|&v| {
            let h = 1e-3 * len;
            left_normal(unit(sub(curve.at((v + h).rem_euclid(len)), curve.at((v - h).rem_euclid(len)))))
        })
        .collect();
    // Where the normals of neighbouring wall nodes converge (a concave stretch), they cross
    // at about the spacing over the angle between them: a line may follow its normal only a
    // share of that far.
    let converge: Vec<f64> = (0..ni)
        .map(|i| {
            [(i + ni - 1) % ni, (i + 1) % ni]
                .iter()
                .map(|&k| {
                    let turn = super::distribution::cross(wall_normal[i], wall_normal[k]);
                    let towards = if k == (i + 1) % ni { turn > 0.0 } else { turn < 0.0 };
                    if towards { dist(wall_nodes[i], wall_nodes[k]) / turn.abs() } else { f64::INFINITY }
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    let mut p = vec![[0.0; 2]; (ni + 1) * (nj + 1)];
    for i in 0..ni {
        // Straight along the wall normal through the first layers (at most as far as the
        // neighbours' normals allow), then a Hermite curve that sets off along the normal seen
        // over the block's thickness (out of a notch rather than across it) to the outer node.
        let r = growth_for(spec.first, nj, t[i]);
        let first_layers = spec.first * (r.powi(STRAIGHT_LAYERS as i32) - 1.0) / (r - 1.0).max(1e-12);
        let straight = first_layers.min(CONVERGE_SHARE * converge[i]);
        let bend = add(wall_nodes[i], scale(wall_normal[i], straight));
        let away = wall.normal_over(s[i], t[i]);
        let leave = if super::distribution::dot(away, wall_normal[i]) > 0.94 { wall_normal[i] } else { away };
        let tail = super::distribution::hermite(bend, leave, outer[i], outer_normal[i], (LINE_TENSION.0, LINE_TENSION.1), LINE_SAMPLES);
        let mut pts = vec![wall_nodes[i]];
        pts.extend_from_slice(tail.points());
        let line = Polyline::new(pts);
        let r = growth_for(spec.first, nj, line.length());
        let mut h = spec.first;
        let mut at = 0.0;
        p[i] = wall_nodes[i];
        for j in 1..nj {
            at += h;
            h *= r;
            p[i + (ni + 1) * j] = line.at(at);
        }
        p[i + (ni + 1) * nj] = outer[i];
    }
    even_layers(&mut p, ni, nj);
    fill_notches(&mut p, ni, nj);
    for j in 0..=nj {
        p[ni + (ni + 1) * j] = p[(ni + 1) * j];
    }
    Ok(OGrid { ni, nj, p })
}

/// Equiangle skewness above which an algebraic cell of the block counts as poor.
const POOR_SKEWNESS: f64 = 0.7;
/// Columns either side of a poor cell that the elliptic fill smooths.
const FILL_REACH: usize = 18;
/// Columns either side of a poor cell that keep the fill's smoothed positions whole; further
/// out they blend into the algebraic ones.
const FILL_CORE: usize = 6;
/// Winslow sweeps of the fill.
const FILL_SWEEPS: usize = 300;

/// Where the algebraic lines leave poor or folded cells (a notch in the wall narrower than the
/// block is thick: the lines from its sides meet), the columns round them are smoothed by
/// Winslow's equations, with the layers' growth along each line kept (control functions, as
/// in `smoothing.rs`) and the wall, the first layers and the outer curve fixed; then the
/// cells still poor are repaired (`repair.rs`). Elsewhere the block is left as built.
fn fill_notches(p: &mut [P2], ni: usize, nj: usize) {
    let at = |i: usize, j: usize| p[i % ni + (ni + 1) * j];
    let poor_measure = super::grid::skewness_measure_of(POOR_SKEWNESS);
    let poor = |i: usize, j: usize| super::grid::skewness_measure([at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)]) > poor_measure;
    // Each column's distance (in columns, round the closed block) to the nearest one with a
    // poor cell.
    let mut reach = vec![usize::MAX; ni];
    for j in 0..nj {
        for i in 0..ni {
            if poor(i, j) {
                for d in 0..=FILL_REACH {
                    for k in [(i + d) % ni, (i + ni - d) % ni] {
                        reach[k] = reach[k].min(d);
                    }
                }
            }
        }
    }
    if reach.iter().all(|&d| d > FILL_REACH) {
        return;
    }
    let movable = |i: usize, j: usize| reach[i] <= FILL_REACH && j > STRAIGHT_LAYERS && j < nj;
    let nodes = super::repair::grid_nodes(ni, nj, true, movable);
    let mut stencils: Vec<super::smoothing::Stencil> = nodes
        .iter()
        .map(|n| {
            let (i, j) = (n.node % (ni + 1), n.node / (ni + 1));
            // The layers' own ratio along the line: its cells below and above the node.
            let (below, above) = (dist(at(i, j), at(i, j - 1)), dist(at(i, j + 1), at(i, j)));
            let psi = super::passage_blocks::stretching(below, above);
            super::smoothing::Stencil { at: *n, phi: 0.0, psi, target: [true, true], colour: (i + j) % 2 }
        })
        .collect();
    let algebraic = p.to_vec();
    super::smoothing::sweep(&mut stencils, p, 0.0, FILL_SWEEPS);
    blend_into_algebraic(p, &algebraic, &nodes, &reach, ni, nj);
    super::repair::repair(&nodes, p, 0.0);
}

/// Blends the fill's smoothed columns into the `algebraic` ones over the outer half of their
/// `reach`: a smoothed column beside an algebraic one differed from it in width by up to 2.3 in
/// the outer layers (random LS89 designs with a notch near the leading edge). Where the blend
/// would fold a cell (two valid grids' mean need not be one), the smoothed columns stay whole.
fn blend_into_algebraic(p: &mut [P2], algebraic: &[P2], nodes: &[super::repair::Node], reach: &[usize], ni: usize, nj: usize) {
    let smoothed = p.to_vec();
    for n in nodes {
        let d = reach[n.node % (ni + 1) % ni];
        if d > FILL_CORE {
            let w = (FILL_REACH + 1 - d) as f64 / (FILL_REACH + 1 - FILL_CORE) as f64;
            let (a, q) = (algebraic[n.node], &mut p[n.node]);
            *q = [a[0] + w * (q[0] - a[0]), a[1] + w * (q[1] - a[1])];
        }
    }
    let at = |p: &[P2], i: usize, j: usize| p[i % ni + (ni + 1) * j];
    let folded = (0..nj).any(|j| {
        (0..ni).any(|i| {
            let (a, b, c, d) = (at(p, i, j), at(p, i + 1, j), at(p, i + 1, j + 1), at(p, i, j + 1));
            !(super::distribution::cross(sub(c, a), sub(d, b)) > 0.0)
        })
    });
    if folded {
        p.copy_from_slice(&smoothed);
    }
}

/// Largest ratio of neighbouring cells along the outer curve.
const OUTER_RATIO: f64 = 1.2;

/// Least spacing of the outer nodes, as a share of their mean.
const LEAST_OUTER_SHARE: f64 = 0.3;

/// Spreads the increasing arc lengths `sigma` (one closed curve of length `len`: the last is
/// followed by the first plus `len`) so that no gap is below [`LEAST_OUTER_SHARE`] of the mean:
/// gaps below it borrow from their neighbours, a few passes.
fn spread(sigma: &mut [f64], len: f64) {
    let n = sigma.len();
    let least = LEAST_OUTER_SHARE * len / n as f64;
    for _ in 0..200 {
        let gaps: Vec<f64> = (0..n).map(|i| if i + 1 < n { sigma[i + 1] - sigma[i] } else { sigma[0] + len - sigma[i] }).collect();
        if gaps.iter().all(|&g| g >= least * 0.999) {
            break;
        }
        let old = sigma.to_vec();
        for i in 0..n {
            let (before, after) = (gaps[(i + n - 1) % n], gaps[i]);
            if before < least || after < least {
                // Towards the middle of its neighbours.
                let prev = if i == 0 { old[n - 1] - len } else { old[i - 1] };
                let next = if i + 1 == n { old[0] + len } else { old[i + 1] };
                sigma[i] = 0.5 * old[i] + 0.25 * (prev + next);
            }
        }
    }
}

/// Vinokur's two-sided stretching ([`vinokur`](super::distribution::vinokur)) with its end
/// cells corrected (a few fixed-point steps) to the ones asked for: its own are approximate
/// where they differ by orders of magnitude, as a wall's first cell and a layer's outer one do.
fn vinokur_exact(n: usize, d0: f64, d1: f64) -> Vec<f64> {
    let (mut a, mut b) = (d0, d1);
    let mut f = super::distribution::vinokur(n, a, b);
    for _ in 0..VINOKUR_CORRECTIONS {
        let (g0, g1) = (f[1] - f[0], f[n] - f[n - 1]);
        if (g0 / d0 - 1.0).abs() < 1e-3 && (g1 / d1 - 1.0).abs() < 1e-3 {
            break;
        }
        a *= d0 / g0;
        b *= d1 / g1;
        f = super::distribution::vinokur(n, a, b);
    }
    f
}

/// Fixed-point steps of [`vinokur_exact`].
const VINOKUR_CORRECTIONS: usize = 8;

impl OGrid {
    /// Places the nodes of every grid line again along it so that the outermost layer meets
    /// the passage blocks' first cells (`outer[i]` at outer node i) while the first cell stays
    /// `first`: Vinokur's two-sided stretching between the two cells. Where that would grow
    /// the layers by more than `ratio`, the outer cell moves back towards the line's own
    /// geometric growth (log-linearly, by bisection) until it does not.
    pub fn match_outer_layers(&mut self, first: f64, outer: &[f64], ratio: f64) {
        let (ni, nj) = (self.ni, self.nj);
        for i in 0..ni {
            let line = Polyline::new((0..=nj).map(|j| self.node(i, j)).collect());
            let len = line.length();
            let own = first * growth_for(first, nj, len).powi(nj as i32 - 1);
            let fractions = |t: f64| {
                let h = own * (outer[i] / own).powf(t);
                vinokur_exact(nj, first / len, h / len)
            };
            let growth = |f: &[f64]| {
                f.windows(3).map(|w| { let (a, b) = (w[1] - w[0], w[2] - w[1]); a.max(b) / a.min(b) }).fold(1.0, f64::max)
            };
            let mut f = fractions(1.0);
            if growth(&f) > ratio {
                let (mut lo, mut hi) = (0.0, 1.0);
                for _ in 0..30 {
                    let mid = 0.5 * (lo + hi);
                    if growth(&fractions(mid)) > ratio { hi = mid } else { lo = mid }
                }
                f = fractions(lo);
            }
            let s: Vec<f64> = f.iter().map(|v| v * len).collect();
            let nodes = line.sample(&s);
            for j in 1..nj {
                self.p[i + (ni + 1) * j] = nodes[j];
            }
        }
        for j in 0..=nj {
            self.p[ni + (ni + 1) * j] = self.p[(ni + 1) * j];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer with two coincident nodes (lines that meet in a notch) is evened without
    /// reading past the polyline, which keeps only one of them.
    #[test]
    fn even_layers_takes_a_layer_with_coincident_nodes() {
        let (ni, nj) = (16, STRAIGHT_LAYERS + 3);
        let mut p: Vec<P2> = (0..=nj)
            .flat_map(|j| {
                (0..=ni).map(move |i| {
                    let (a, r) = (std::f64::consts::TAU * (i % ni) as f64 / ni as f64, 1.0 + 0.1 * j as f64);
                    [r * a.cos(), r * a.sin()]
                })
            })
            .collect();
        let j = STRAIGHT_LAYERS + 1;
        p[3 + (ni + 1) * j] = p[2 + (ni + 1) * j];
        even_layers(&mut p, ni, nj);
        let layer = &p[(ni + 1) * j..(ni + 1) * j + ni];
        assert!(layer.iter().all(|q| q[0].is_finite() && q[1].is_finite()));
        assert!(dist(layer[2], layer[3]) > 0.0, "the coincident nodes are spread along the layer");
    }
}
