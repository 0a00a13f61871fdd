//! Cascade mesh generation: an O-H multi-block structured mesh of one periodic blade passage.
//!
//! Blocks (all sizes multiples of 8, so that three multigrid levels exist):
//!
//! - `O`: round the blade, i clockwise (leading edge, upper/suction side, trailing edge,
//!   lower/pressure side), j from the wall outwards; closes on itself through a 1-to-1
//!   connection. Marched along smoothed wall normals with geometric growth from the first-cell
//!   height (ratio <= 1.2), see `oblock.rs`.
//! - `U` upstream (inlet to the leading-edge arc), `A` above the upper arc up to the periodic
//!   line M, `B` below the lower arc down to M - pitch, `D` downstream (trailing-edge arc to
//!   the outlet), see `topology.rs` and `hblocks.rs`. U's and D's top and bottom rows, and A's top
//!   with B's bottom, are periodic images: the lower nodes are built as the upper ones minus
//!   the pitch, so they match to round-off.
//!
//! H-block interiors are smoothed with Winslow's equations and Thomas-Middlecoff control
//! functions (`elliptic.rs`); the final mesh is checked for positive cell areas.
//!
//! Known limits (figures from tests/mesh_generate.rs through `mesh::quality`; the ignored test
//! `quality_hotspots` lists them block by block and interface by interface): the largest
//! growth ratio between neighbouring cells is 2.8-3.2 for LS89 and 4.5-5.7 for
//! blades/t106c.ron, not the 1.25 aimed at; the smallest cell angle is 4-8 deg (LS89) and
//! 0.3-3.5 deg (T106C-class), in D. What causes them:
//!
//! - The interface ratios (O/D, B/D, O/U, B/U: 2.3-4.9) are NOT a spacing mismatch of the
//!   algebraic grid: the O-grid's outer cells at the arc splits are within 1.2 of the junction
//!   height, and D's and U's rows are built with exactly that first cell. Winslow smoothing,
//!   pulled by the kinks where the connectors meet the O-grid, stretches the first cells of D
//!   and U by about an order of magnitude; the blend back to the algebraic grid (weight
//!   1/`FACE_BLEND` at the first interior node) leaves them 3-5x too long (LS89 medium:
//!   3.9e-4 m against 1.4e-4 m). Without smoothing the algebraic D is folded (~750 cells).
//! - On LS89 the trailing-edge arc's upper end falls back to its limit, 30 % of the upper side
//!   up from the trailing edge (26 mm), because that rear side turns less than the 30 deg that
//!   `topology::splits` looks for; D's face then runs along the straight rear of the blade
//!   and its rows from there crowd into a narrow strip. The smallest angles are in D, in that
//!   strip or next to the rows that leave the junctions.
//! - Tried and not kept (each traded the growth ratio for cell angles, none improved both):
//!   re-grading D's and U's smoothed rows to the wanted first cell (interfaces then <= 1.3,
//!   but cells of 0.3-5 deg next to the junction rows; also with the columns re-graded between
//!   the face and the outlet: 1-4 deg), Thomas-Middlecoff control functions
//!   from the block boundaries, other blend widths and control-function bounds, and a trailing-
//!   edge arc ending 5-15 % up the upper side (LS89 A then gets 1.6-3 deg cells). A D block
//!   whose face does not wrap the rear of the blade (e.g. a C-type wake block, or connectors
//!   allowed to meet the two periodic lines at different places) looks like the way forward.

mod distribution;
mod elliptic;
mod hblocks;
mod oblock;
mod topology;

use self::distribution::{dist, graded_distribution, sub, SpacingAt, P2};
use self::hblocks::{Grid, HInputs};
use self::oblock::Wall;
use crate::error::Error;
use crate::geometry::Outline;
use crate::mesh::{Block, BoundaryKind, Connection, Density, Face, Mesh, Patch};

/// What the mesher needs to know about the passage besides the blade.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PassageSpec {
    /// Cascade pitch [m].
    pub pitch: f64,
    /// Axial position of the inlet plane [m] (upstream of the leading edge).
    pub inlet_x: f64,
    /// Axial position of the outlet plane [m] (downstream of the trailing edge).
    pub outlet_x: f64,
    /// Wall-normal height of the first cell [m] (the caller sizes it for y+ ~ 1).
    pub first_cell_height: f64,
    pub density: Density,
    /// Inlet flow angle [deg from axial]: the direction of the periodic lines at the inlet.
    pub inlet_angle_deg: f64,
    /// Exit flow angle [deg from axial]: the periodic lines leave the trailing edge along the
    /// blade and turn to half this angle downstream (the choice is explained in `topology.rs`).
    pub outlet_angle_deg: f64,
}

/// Cell counts and grading of a density preset.
#[derive(Clone, Copy, Debug)]
struct Counts {
    /// Cells round the blade, about (the arcs share them out as their curvature needs, each
    /// rounded up to a multiple of 8).
    n_around: usize,
    /// Cells on the leading-edge, upper (= lower) and trailing-edge arcs of the O-grid.
    n_le: usize,
    n_up: usize,
    n_te: usize,
    /// Cells across A and B (from the O-grid to the periodic line).
    n_c: usize,
    /// Cells along U and along D.
    n_u: usize,
    n_d: usize,
    /// Largest layer growth ratio in the O-grid.
    o_ratio: f64,
    /// Largest growth ratio along all other lines.
    h_ratio: f64,
    /// Largest wall turning angle per cell [deg].
    turn_deg: f64,
}

impl Counts {
    fn of(d: Density) -> Counts {
        match d {
            Density::Coarse => Counts { n_around: 152, n_le: 0, n_up: 0, n_te: 0, n_c: 16, n_u: 24, n_d: 40, o_ratio: 1.2, h_ratio: 1.2, turn_deg: 8.0 },
            Density::Medium => Counts { n_around: 336, n_le: 0, n_up: 0, n_te: 0, n_c: 32, n_u: 56, n_d: 96, o_ratio: 1.15, h_ratio: 1.15, turn_deg: 5.0 },
            Density::Fine => Counts { n_around: 736, n_le: 0, n_up: 0, n_te: 0, n_c: 64, n_u: 128, n_d: 224, o_ratio: 1.1, h_ratio: 1.1, turn_deg: 3.0 },
        }
    }
}

fn check_spec(outline: &Outline, spec: &PassageSpec) -> Result<(), Error> {
    let ([x0, x1], _) = outline.bounding_box();
    let chord = x1 - x0;
    let finite = [spec.pitch, spec.inlet_x, spec.outlet_x, spec.first_cell_height, spec.inlet_angle_deg, spec.outlet_angle_deg];
    if finite.iter().any(|v| !v.is_finite()) {
        return Err(Error::Mesh("passage spec has non-finite values".into()));
    }
    if spec.pitch <= 0.0 {
        return Err(Error::Mesh(format!("pitch must be positive, got {}", spec.pitch)));
    }
    if spec.first_cell_height <= 0.0 || spec.first_cell_height > 1e-2 * chord {
        return Err(Error::Mesh(format!(
            "first cell height {:e} m must be positive and below 1 % of the axial chord ({:e} m)",
            spec.first_cell_height, chord
        )));
    }
    if spec.inlet_x > x0 - 0.1 * chord || spec.outlet_x < x1 + 0.1 * chord {
        return Err(Error::Mesh(format!(
            "inlet_x = {} and outlet_x = {} must lie at least 10 % of the axial chord outside the blade [{x0}, {x1}]",
            spec.inlet_x, spec.outlet_x
        )));
    }
    if spec.inlet_angle_deg.abs() >= 80.0 || spec.outlet_angle_deg.abs() >= 85.0 {
        return Err(Error::Mesh("inlet/outlet angle hints must be within +-80 / +-85 deg of axial".into()));
    }
    Ok(())
}

/// Generates the O-H mesh of one periodic passage round `outline`.
///
/// Fails with [`Error::Mesh`] on bad input (non-finite or inconsistent sizes), when the passage
/// is too narrow for the O-grid and the H blocks, or when the finished mesh has a cell of
/// non-positive area.
pub fn generate_cascade_mesh(outline: &Outline, spec: &PassageSpec) -> Result<Mesh, Error> {
    let mesh = build_mesh(outline, spec)?;
    check_positive_areas(&mesh)?;
    Ok(mesh)
}

/// The mesh before the final check.
fn build_mesh(outline: &Outline, spec: &PassageSpec) -> Result<Mesh, Error> {
    check_spec(outline, spec)?;
    let mut c = Counts::of(spec.density);
    let wall = Wall::new(outline)?;
    let ([x_le, x_te], _) = outline.bounding_box();
    let pitch = spec.pitch;

    let half_throat = 0.5 * topology::throat(&wall, pitch);
    let layers = ogrid_layers(half_throat, spec.first_cell_height, &c)?;
    let thickness: f64 = layers.iter().sum();
    let h_junction = layers.last().copied().unwrap_or(spec.first_cell_height);

    let m = topology::midline(&wall, spec, x_te - x_le)?;
    let clearance = topology::midline_clearance(&wall, &m, pitch);
    if clearance < 1.5 * thickness {
        return Err(Error::Mesh(format!(
            "the periodic line passes {clearance:e} m from a blade, too close for the O-grid ({thickness:e} m thick)"
        )));
    }
    let sp = topology::splits(&wall, &m, thickness, pitch);
    if !(sp.m_le < sp.m_te) {
        return Err(Error::Mesh("leading- and trailing-edge connectors meet the periodic line out of order".into()));
    }

    share_arc_cells(&wall, &sp, h_junction, &mut c);
    let og = oblock::march_ogrid(&wall_nodes(&wall, &sp, &c, h_junction)?, &layers)?;
    let mn = midline_nodes(&m, &sp, &c, h_junction)?;

    let dense = |s0: f64, s1: f64| distribution::Polyline::new((0..=400).map(|k| m.at(s0 + (s1 - s0) * k as f64 / 400.0)).collect());
    let m_u_curve = dense(sp.m_le, 0.0);
    let m_d_curve = dense(sp.m_te, m.length());
    let m_a_tangent: Vec<P2> = mn.s_a.iter().map(|&s| topology::m_tangent(&m, s)).collect();
    let h_in = HInputs {
        og: &og,
        pitch,
        n_le: c.n_le,
        n_up: c.n_up,
        n_te: c.n_te,
        n_c: c.n_c,
        n_u: c.n_u,
        n_d: c.n_d,
        m_u: &mn.u,
        m_a: &mn.a,
        m_d: &mn.d,
        m_u_curve: &m_u_curve,
        m_d_curve: &m_d_curve,
        m_a_tangent: &m_a_tangent,
        m_in_tangent: distribution::unit(sub(m.at(1e-3 * m.length()), m.at(0.0))),
        m_out_tangent: distribution::unit(sub(m.at(m.length()), m.at(m.length() * (1.0 - 1e-3)))),
        inlet_x: spec.inlet_x,
        outlet_x: spec.outlet_x,
        ratio: c.h_ratio,
    };
    let (mut a, mut b) = hblocks::passage_blocks(&h_in)?;
    let mut u = hblocks::upstream_block(&h_in, &a, &b)?;
    let mut d = hblocks::downstream_block(&h_in, &a, &b)?;
    for g in [&mut u, &mut a, &mut b, &mut d] {
        smooth_keeping_valid(g);
    }

    let o = Grid { ni: og.ni, nj: og.nj, p: og.x.iter().zip(&og.y).map(|(&x, &y)| [x, y]).collect() };
    Ok(assemble(&c, pitch, o, u, a, b, d))
}

/// O-grid layer heights: geometric growth (ratio <= the preset's) from the first-cell height
/// to an outer cell that is 0.7 times the uniform size of the H blocks' n_c cells across the
/// rest of the half throat, so that cells can still grow towards the periodic line. A fixed
/// point, since the thickness itself takes part of the half throat.
fn ogrid_layers(half_throat: f64, y1: f64, c: &Counts) -> Result<Vec<f64>, Error> {
    let (mut thickness, mut layers) = (0.0, Vec::new());
    for _ in 0..30 {
        let h_outer = 0.7 * (half_throat - thickness) / c.n_c as f64;
        if h_outer <= y1 {
            return Err(Error::Mesh(format!(
                "passage too narrow: half throat {half_throat:e} m leaves outer O-grid cells ({h_outer:e} m) below the first cell height"
            )));
        }
        let needed = 1.0 + (h_outer / y1).ln() / c.o_ratio.ln();
        let n_o = ((needed / 8.0).ceil() as usize * 8).max(8);
        layers = oblock::geometric_layers(y1, h_outer, n_o);
        thickness = layers.iter().sum();
    }
    if thickness > 0.5 * half_throat {
        return Err(Error::Mesh(format!("O-grid thickness {thickness:e} m exceeds half of the half throat {half_throat:e} m")));
    }
    Ok(layers)
}

fn ceil8(v: f64) -> usize {
    ((v / 8.0).ceil() as usize * 8).max(8)
}

/// Shares the cells round the blade: every arc gets what its curvature and the junction
/// spacing need under a common largest wall cell, chosen by bisection so that the total is the
/// preset's count; the two long arcs get equal counts (A's top and B's bottom are periodic
/// images). Each count is rounded up to a multiple of 8.
fn share_arc_cells(wall: &Wall, sp: &topology::Splits, h_junction: f64, c: &mut Counts) {
    let p = wall.perimeter();
    let turn = c.turn_deg.to_radians();
    let need = |s0: f64, s1: f64, h_max: f64| oblock::wall_segment_cells_needed(wall, s0, s1, h_junction, turn, c.h_ratio, h_max);
    let shares = |h_max: f64| {
        let le = need(sp.le_lower - p, sp.le_upper, h_max);
        let te = need(sp.te_upper, sp.te_lower, h_max);
        let long = need(sp.le_upper, sp.te_upper, h_max).max(need(sp.te_lower, sp.le_lower, h_max));
        (le, te, long)
    };
    let (mut lo, mut hi) = (0.1 * h_junction, p);
    for _ in 0..40 {
        let mid = (lo * hi).sqrt();
        let (le, te, long) = shares(mid);
        if le + te + 2.0 * long > c.n_around as f64 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (le, te, long) = shares(hi);
    c.n_le = ceil8(le);
    c.n_te = ceil8(te);
    c.n_up = ceil8(long);
}

/// Wall nodes, clockwise from the lower end of the leading-edge arc (O-grid index 0).
fn wall_nodes(wall: &Wall, sp: &topology::Splits, c: &Counts, h_junction: f64) -> Result<Vec<P2>, Error> {
    let p = wall.perimeter();
    let segments = [
        (sp.le_lower - p, sp.le_upper, c.n_le),
        (sp.le_upper, sp.te_upper, c.n_up),
        (sp.te_upper, sp.te_lower, c.n_te),
        (sp.te_lower, sp.le_lower, c.n_up),
    ];
    let mut nodes = Vec::new();
    for (s0, s1, n) in segments {
        let s = oblock::wall_segment(wall, s0, s1, n, h_junction, c.turn_deg.to_radians(), c.h_ratio)?;
        nodes.extend(s[..n].iter().map(|&v| wall.at(v)));
    }
    Ok(nodes)
}

/// Nodes of the periodic line M, shared by U (`u`, inlet to the leading-edge connector), A
/// (`a`, at arc lengths `s_a`) and D (`d`, trailing-edge connector to the outlet).
struct MidlineNodes {
    u: Vec<P2>,
    a: Vec<P2>,
    s_a: Vec<f64>,
    d: Vec<P2>,
}

/// A part: graded from the junction spacing at both ends, so that A's columns next to the
/// connectors are as wide as the O-grid's outer cells are high; then every row of U and D
/// starts with about the same cell size and U's and D's i-lines stay smooth. U and D parts:
/// graded from A's end cells. Shared end nodes are copied, never recomputed.
fn midline_nodes(m: &distribution::Polyline, sp: &topology::Splits, c: &Counts, h_junction: f64) -> Result<MidlineNodes, Error> {
    let len_a = sp.m_te - sp.m_le;
    let ends = [SpacingAt { s: 0.0, h: h_junction }, SpacingAt { s: len_a, h: h_junction }];
    let s_a: Vec<f64> = graded_distribution(len_a, c.n_up, &ends, None, c.h_ratio)?.into_iter().map(|v| sp.m_le + v).collect();
    let a = m.sample(&s_a);
    let h_a_first = dist(a[0], a[1]);
    let h_a_last = dist(a[c.n_up - 1], a[c.n_up]);
    let s_u = graded_distribution(sp.m_le, c.n_u, &[SpacingAt { s: sp.m_le, h: h_a_first }], None, c.h_ratio)?;
    let mut u = m.sample(&s_u);
    u[c.n_u] = a[0];
    u[0] = m.points()[0];
    let len_d = m.length() - sp.m_te;
    let s_d: Vec<f64> = graded_distribution(len_d, c.n_d, &[SpacingAt { s: 0.0, h: h_a_last }], None, c.h_ratio)?
        .into_iter()
        .map(|v| sp.m_te + v)
        .collect();
    let mut d = m.sample(&s_d);
    d[0] = a[c.n_up];
    d[c.n_d] = *m.points().last().unwrap_or(&d[c.n_d]);
    Ok(MidlineNodes { u, a, s_a, d })
}

/// Elliptic smoothing, blended back to the algebraic grid over the first [`FACE_BLEND`] cells
/// from each face (weight of the smoothed grid d / FACE_BLEND at d cells from a face):
/// Winslow's equations pull nodes away from the concave kinks of a face (where a connector
/// meets the O-grid), which would undo the first cells matched to the neighbour blocks. Where the blend leaves a folded cell (the algebraic grid was folded there), the
/// smoothed grid is taken in full around it. The algebraic grid is kept if nothing is valid.
fn smooth_keeping_valid(g: &mut Grid) {
    let mut s = g.clone();
    elliptic::winslow_smooth(&mut s, SMOOTHING_SWEEPS);
    let (ni, nj) = (g.ni, g.nj);
    let mut w: Vec<f64> = (0..=nj)
        .flat_map(|j| (0..=ni).map(move |i| (i.min(ni - i).min(j).min(nj - j) as f64 / FACE_BLEND as f64).min(1.0)))
        .collect();
    let mut blended = s.clone();
    for _ in 0..20 {
        for (k, p) in blended.p.iter_mut().enumerate() {
            let (a, b) = (g.p[k], s.p[k]);
            *p = [a[0] + w[k] * (b[0] - a[0]), a[1] + w[k] * (b[1] - a[1])];
        }
        let folded: Vec<(usize, usize)> =
            (0..nj).flat_map(|j| (0..ni).map(move |i| (i, j))).filter(|&(i, j)| !(cell_area(&blended, i, j) > 0.0)).collect();
        if folded.is_empty() {
            *g = blended;
            return;
        }
        let r = FACE_BLEND;
        for (i, j) in folded {
            for jj in j.saturating_sub(r)..=(j + 1 + r).min(nj) {
                for ii in i.saturating_sub(r)..=(i + 1 + r).min(ni) {
                    w[ii + (ni + 1) * jj] = 1.0;
                }
            }
        }
    }
    if min_cell_area(&s) > 0.0 {
        *g = s;
    }
}

/// Gauss-Seidel sweeps of the elliptic smoother.
const SMOOTHING_SWEEPS: usize = 600;
/// Cells over which the smoothed grid is blended back to the algebraic one at block faces.
const FACE_BLEND: usize = 6;

/// Signed area of cell (i, j) of a node grid (positive for counter-clockwise i x j).
fn cell_area(g: &Grid, i: usize, j: usize) -> f64 {
    let (a, b, c, d) = (g.at(i, j), g.at(i + 1, j), g.at(i + 1, j + 1), g.at(i, j + 1));
    0.5 * distribution::cross(sub(c, a), sub(d, b))
}

fn min_cell_area(g: &Grid) -> f64 {
    let mut m = f64::INFINITY;
    for j in 0..g.nj {
        for i in 0..g.ni {
            let a = cell_area(g, i, j);
            if !(a > 0.0) {
                return a;
            }
            m = m.min(a);
        }
    }
    m
}

fn check_positive_areas(mesh: &Mesh) -> Result<(), Error> {
    for blk in &mesh.blocks {
        let g = Grid { ni: blk.ni, nj: blk.nj, p: blk.x.iter().zip(&blk.y).map(|(&x, &y)| [x, y]).collect() };
        for j in 0..g.nj {
            for i in 0..g.ni {
                let area = cell_area(&g, i, j);
                if !(area > 0.0) {
                    return Err(Error::Mesh(format!("block {} cell ({i}, {j}) has non-positive area {area:e} m^2", blk.name)));
                }
            }
        }
    }
    Ok(())
}

fn interface(donor_block: usize, donor_face: Face, donor_start: usize, reversed: bool, translation: [f64; 2]) -> BoundaryKind {
    BoundaryKind::Interface(Connection { donor_block, donor_face, donor_start, reversed, translation })
}

fn patch(face: Face, start: usize, end: usize, kind: BoundaryKind) -> Patch {
    Patch { face, start, end, kind }
}

fn to_block(name: &str, g: Grid, patches: Vec<Patch>) -> Block {
    Block { name: name.into(), ni: g.ni, nj: g.nj, x: g.p.iter().map(|p| p[0]).collect(), y: g.p.iter().map(|p| p[1]).collect(), patches }
}

/// Block indices in the mesh.
const O: usize = 0;
const U: usize = 1;
const A: usize = 2;
const B: usize = 3;
const D: usize = 4;

/// Puts the blocks together with their patches (see the module doc for the layout; the
/// Connection convention is in `crate::mesh`).
fn assemble(c: &Counts, pitch: f64, o: Grid, u: Grid, a: Grid, b: Grid, d: Grid) -> Mesh {
    use BoundaryKind::{Inlet, Outlet, Wall};
    use Face::{IMax, IMin, JMax, JMin};
    let (n_le, n_up, n_te, n_c) = (c.n_le, c.n_up, c.n_te, c.n_c);
    let n_o = o.ni;
    let (nj_u, nj_d) = (u.nj, d.nj);
    let up = [0.0, pitch];
    let dn = [0.0, -pitch];
    let zero = [0.0, 0.0];
    let o_patches = vec![
        patch(IMin, 0, o.nj, interface(O, IMax, 0, false, zero)),
        patch(IMax, 0, o.nj, interface(O, IMin, 0, false, zero)),
        patch(JMin, 0, n_o, Wall),
        patch(JMax, 0, n_le, interface(U, IMax, n_c, false, zero)),
        patch(JMax, n_le, n_le + n_up, interface(A, JMin, 0, false, zero)),
        patch(JMax, n_le + n_up, n_le + n_up + n_te, interface(D, IMin, n_c, true, zero)),
        patch(JMax, n_le + n_up + n_te, n_o, interface(B, JMax, 0, true, zero)),
    ];
    let u_patches = vec![
        patch(IMin, 0, nj_u, Inlet),
        patch(IMax, 0, n_c, interface(B, IMin, 0, false, zero)),
        patch(IMax, n_c, n_c + n_le, interface(O, JMax, 0, false, zero)),
        patch(IMax, n_c + n_le, nj_u, interface(A, IMin, 0, false, zero)),
        patch(JMin, 0, u.ni, interface(U, JMax, 0, false, dn)),
        patch(JMax, 0, u.ni, interface(U, JMin, 0, false, up)),
    ];
    let a_patches = vec![
        patch(IMin, 0, n_c, interface(U, IMax, n_c + n_le, false, zero)),
        patch(IMax, 0, n_c, interface(D, IMin, n_c + n_te, false, zero)),
        patch(JMin, 0, n_up, interface(O, JMax, n_le, false, zero)),
        patch(JMax, 0, n_up, interface(B, JMin, 0, false, up)),
    ];
    let b_patches = vec![
        patch(IMin, 0, n_c, interface(U, IMax, 0, false, zero)),
        patch(IMax, 0, n_c, interface(D, IMin, 0, false, zero)),
        patch(JMin, 0, n_up, interface(A, JMax, 0, false, dn)),
        patch(JMax, 0, n_up, interface(O, JMax, n_le + n_up + n_te, true, zero)),
    ];
    let d_patches = vec![
        patch(IMin, 0, n_c, interface(B, IMax, 0, false, zero)),
        patch(IMin, n_c, n_c + n_te, interface(O, JMax, n_le + n_up, true, zero)),
        patch(IMin, n_c + n_te, nj_d, interface(A, IMax, 0, false, zero)),
        patch(IMax, 0, nj_d, Outlet),
        patch(JMin, 0, d.ni, interface(D, JMax, 0, false, dn)),
        patch(JMax, 0, d.ni, interface(D, JMin, 0, false, up)),
    ];
    Mesh {
        blocks: vec![
            to_block("O", o, o_patches),
            to_block("U", u, u_patches),
            to_block("A", a, a_patches),
            to_block("B", b, b_patches),
            to_block("D", d, d_patches),
        ],
        pitch,
    }
}
