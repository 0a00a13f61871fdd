//! Cascade mesh generation: an O-C two-block structured mesh of one periodic blade passage.
//!
//! Blocks (all sizes and patch ends multiples of 8, so that three multigrid levels exist):
//!
//! - `O` (block 0): a thin O-grid round the blade for the boundary layer, i clockwise from the
//!   blade's rear point (trailing edge, pressure side, leading edge, suction side), j from the
//!   wall outwards; closes on itself through a 1-to-1 connection. Marched along wall normals
//!   with geometric growth from the first-cell height up to a thickness of half the
//!   trailing-edge radius (`oblock.rs`), so that its outer curve stays round and fair where
//!   the wall curvature jumps.
//! - `C` (block 1): a C-grid wrapping the O-grid. Its inner face is the lower side of the wake
//!   cut (outlet to the rear point), the O-grid's outer curve, and the upper side of the wake
//!   cut; its outer face is M - pitch (outlet to inlet), the inlet plane and M (inlet to
//!   outlet); its i = 0 and i = ni faces lie on the outlet plane. The wake cut is an interface
//!   of C with itself, the two periodic lines too (`cblock.rs`, `topology.rs`).
//!
//! Why this topology: the O-H mesh it replaces met its downstream block D at the trailing-edge
//! arc, where Winslow smoothing stretched D's first cells 3-5x past the O-grid's (growth ratios
//! 2.8-5.7) and D's rows crowded against the rear suction side (cells of 0.3-8 degrees). The
//! C block has no block corner in the flow but the wake-cut root; its lines cross the passage
//! from the O-grid (or the wake cut) to the periodic lines.
//!
//! How the C block is built (`cblock.rs`, `elliptic.rs`): Hermite lines from the inner to the
//! outer nodes; the nodes of M follow the mean of the feet of the pressure- and suction-side
//! nodes (so that the lines cross the passage instead of running along it), spread by half
//! towards uniform spacing, and grade from the inlet's spacing upstream, growing by at most
//! `M_RATIO`; Winslow smoothing with the algebraic grid's column stretching and the boundary
//! rows' stretching fading into the block; every line is re-spaced along itself so that cells
//! match across every seam: the C block's first cells continue the O-grid's layer growth, the
//! two sides of the wake cut and of the periodic lines get equal cells. The wake cut's first
//! cell is the O-grid's outer spacing at the rear point; it widens by `WAKE_SPREAD` per metre
//! downstream.
//!
//! Finally `LIMITER_ROUNDS` rounds of two ratio limiters (`distribution::limit_spacing_ratio`:
//! only the nodes round an offending pair of cells move, towards a geometric continuation of
//! the cells either side): along the rows, nodes slide along the row, each at most 0.3 of the
//! cell height more than the node below it and fading towards the outer boundary (the thin
//! cells next to the O-grid and the wake cut keep their shape, the last cells their periodic
//! twins); along the lines, with the first and last cells kept. Without them the growth ratio
//! across the lines (cell i-extent along a row) was 1.9-2.8: the C block's inner face turns 90
//! degrees at the rear point (the wake cut leaves the trailing-edge circle along its normal), M
//! meets the inlet plane at 90 deg +- the inlet angle, and an elliptic grid keeps the
//! stretching of such a corner at every distance from it (a power-law singularity, the same
//! ratio at every density).
//!
//! A cell still folded after all that (a line leaving a steep inner curve a few degrees off
//! tangent: 7 of 1,553 random LS89 designs) first gets its lines' smoothed nodes back, then
//! the untangler (`cblock::untangle`) over growing patches round the fold; a mesh without a
//! fold is not touched by either.
//!
//! Figures (tests/mesh_generate.rs through `mesh::quality`; the ignored test `quality_hotspots`
//! lists growth-ratio and cell-angle hot spots block by block; `turbopt mesh ... --json`):
//!
//! | case | cells | wall orthogonality | max growth ratio | min cell angle |
//! |---|---|---|---|---|
//! | LS89 coarse / medium / fine | 16,128 / 39,040 / 169,344 | 85.76 / 87.22 / 88.28 deg | 1.240 / 1.240 / 1.240 | 5.7 / 6.5 / 8.1 deg |
//! | blades/t106c.ron coarse / medium / fine | 14,848 / 34,304 / 161,664 | 85.71 / 87.32 / 88.39 deg | 1.239 / 1.240 / 1.240 | 8.1 / 8.8 / 11.6 deg |
//!
//! All volumes positive, periodic and 1-to-1 mismatch at round-off, y+ 1.
//!
//! The smallest cell angles lie in the wake just behind the trailing edge and in the passage
//! next to the rear halves of the blade sides. A line of the C block and its twin (the line
//! with the mirrored index) end on the same node of M, one pitch apart straight up; through the
//! wake cut they are one line from M - pitch to M, so they cross the wake at roughly 90 deg
//! minus the wake angle (-73 deg for LS89 at the trailing edge). Over the blade, the pressure-
//! and suction-side feet of a node lie 50 mm apart along M for LS89, and the shared nodes of M
//! are a compromise between them. The cure is an index offset between the two periodic sides
//! (a sheared C-grid, whose periodic lines end on the inlet and outlet planes at different
//! rows), not tried.
//! Tried and not kept: letting the periodic lines and the wake cut float while smoothing
//! (the lines sank towards the blade and folded at the inlet corners; the wake cut left the
//! trailing edge sideways), feet from the wall-normal rays instead of the nearest points of M
//! (growth 4.8), re-grading the rows with free slides (the thin cells next to the O-grid and
//! the wake cut sheared flat: growth 14-84 along the lines), Winslow control functions from
//! the limited row spacings (cells of 0.05 deg), alternating the row limiter with a full
//! re-spacing of the lines (no convergence, growth 1.5-2.9).

mod cblock;
mod distribution;
mod elliptic;
mod oblock;
mod topology;

use self::cblock::{Grid, LineEnd};
use self::distribution::{add, dist, graded_distribution, left_normal, limit_spacing_ratio, scale, sub, unit, Polyline, SpacingAt, P2};
use self::oblock::{OGrid, Wall};
use crate::error::Error;
use rayon::prelude::*;
use crate::geometry::Outline;
use crate::mesh::{Block, BoundaryKind, Connection, Density, Face, Mesh, Patch};

/// What the mesher needs to know about the passage besides the blade.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PassageSpec {
    /// Cascade pitch \[m\].
    pub pitch: f64,
    /// Axial position of the inlet plane \[m\] (upstream of the leading edge).
    pub inlet_x: f64,
    /// Axial position of the outlet plane \[m\] (downstream of the trailing edge).
    pub outlet_x: f64,
    /// Wall-normal height of the first cell \[m\] (the caller sizes it for y+ ~ 1).
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
    /// Cells round the blade, about (shared out by curvature; the pressure and suction sides get
    /// equal counts, since both face the same nodes of M).
    n_around: usize,
    /// Cell layers of the C block (O-grid / wake cut to the periodic lines).
    nj_c: usize,
    /// Cells on the inlet plane (a multiple of 16), which face the leading-edge arc.
    n_inlet: usize,
    /// Largest layer growth ratio in the O-grid.
    o_ratio: f64,
    /// Largest growth ratio along all other lines.
    h_ratio: f64,
    /// Largest wall turning angle per cell \[deg\].
    turn_deg: f64,
    /// Gauss-Seidel sweeps of the C block's smoother.
    sweeps: usize,
}

impl Counts {
    fn of(d: Density) -> Counts {
        match d {
            Density::Coarse => Counts { n_around: 144, nj_c: 48, n_inlet: 16, o_ratio: 1.2, h_ratio: 1.2, turn_deg: 8.0, sweeps: 600 },
            Density::Medium => Counts { n_around: 336, nj_c: 56, n_inlet: 32, o_ratio: 1.15, h_ratio: 1.15, turn_deg: 5.0, sweeps: 1200 },
            Density::Fine => Counts { n_around: 736, nj_c: 136, n_inlet: 64, o_ratio: 1.1, h_ratio: 1.1, turn_deg: 3.0, sweeps: 3000 },
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

/// Generates the O-C mesh of one periodic passage round `outline`.
///
/// Fails with [`Error::Mesh`] on bad input (non-finite or inconsistent sizes), when the passage
/// is too narrow for the O-grid, or when the finished mesh has a cell of non-positive area.
pub fn generate_cascade_mesh(outline: &Outline, spec: &PassageSpec) -> Result<Mesh, Error> {
    mesh_passage(&check_meshable(outline, spec)?)
}

/// Meshes the passage [`check_meshable`] laid out (what [`generate_cascade_mesh`] does after
/// the check, without laying the passage out again).
pub fn mesh_passage(layout: &PassageLayout) -> Result<Mesh, Error> {
    let mesh = build_mesh(layout)?;
    check_positive_areas(&mesh)?;
    Ok(mesh)
}

/// O-grid thickness as a share of the trailing-edge radius: thin enough that the outer curve's
/// spacing, which grows by `1 + thickness / radius` round the trailing edge, changes smoothly
/// where the wall curvature jumps from the trailing-edge circle to the flat rear sides.
const O_THICKNESS_OF_TE_RADIUS: f64 = 0.5;

/// Smallest radius of curvature of a concave stretch of wall, as a multiple of the O-grid
/// thickness (`Unmeshable::ConcaveWall`): the wall normals of a concave arc of radius R meet at
/// distance R, so an O-grid thicker than R folds. Measured on 102 LS89 designs drawn in the
/// bounds of all 41 variables: the 20 whose O-grid folded had R / thickness of 0.32-0.71, the
/// meshed ones 0.71 and up; 1.0 rejects 2 meshable ones. A thinner O-grid is no cure: at about
/// half of such blades its layers fold at the same concave stretch near the leading edge
/// (docs/design-space-study.md).
const CONCAVE_RADIUS_OF_THICKNESS: f64 = 1.0;

/// Largest cell along the wall, as a multiple of the mean cell (perimeter / `n_around`): a wavy
/// design whose curvature takes most of the cells otherwise leaves cells of 3-5 mean cells on
/// the flat rear suction side, where the C block's lines then run almost along the wall (cells of
/// skewness 1, 50-150 times smaller than the O-grid cells they meet); 9 of the 10 LS89 designs
/// of the design-space study that diverged at MUR47 had more than 2 (docs/design-space-study.md).
/// The shipped blades' meshes stay as they were (LS89 1.48, T106C 1.85 on the coarse mesh).
const MAX_WALL_CELL_OF_MEAN: f64 = 2.0;

/// Growth of the wake cut's first cell per unit distance from the trailing edge (a wake spreads
/// roughly linearly).
const WAKE_SPREAD: f64 = 0.01;

/// Share of uniform spacing in the nodes of M over the blade (the rest follows the blade's feet).
const UNIFORM_SHARE: f64 = 0.5;

/// Largest growth of the spacing of M's nodes: the rows just under M follow it with some
/// more growth (the coarse preset's 1.2 left them at 1.26 near the inlet).
const M_RATIO: f64 = 1.17;

/// Sweeps allowed to the spacing-ratio limiter on M.
const M_SWEEPS: usize = 4000;

/// Tension of the wake cut's Hermite curve (x its chord) at the trailing edge and at the outlet:
/// short at the trailing edge, so that the cut soon turns to the direction of M, across which
/// the C block's lines run (they join M - pitch to M, one pitch straight up, through the cut);
/// 0.3 there gave growth ratios of 2.6 instead of 2.4 (LS89 medium).
const WAKE_TENSION: (f64, f64) = (0.1, 0.3);

/// Largest ratio of neighbouring cells along the C block's rows and lines that the final
/// limiters aim at (1.25 at most).
const ROW_RATIO: f64 = 1.24;

/// Rounds of the row and line limiters.
const LIMITER_ROUNDS: usize = 6;

/// Filter passes spreading the control functions across neighbouring grid lines.
const CONTROL_PASSES: usize = 8;

/// Why the mesher cannot mesh a passage, found before any block is built: cheap checks of the
/// blade and its passage against what the mesher needs.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Unmeshable {
    /// The passage spec is unusable (non-finite values, first-cell height, domain lengths,
    /// angle hints): a matter of the mesh settings rather than of the blade.
    #[error("{0}")]
    Spec(String),
    /// The outline cannot be a wall, or no periodic line fits round it.
    #[error("{0}")]
    Outline(String),
    /// The O-grid does not fit through the throat.
    #[error("passage too narrow: the O-grid ({thickness_mm:.4} mm thick) needs a throat of at least {needed_mm:.4} mm, got {throat_mm:.4} mm")]
    PassageTooNarrow { thickness_mm: f64, needed_mm: f64, throat_mm: f64 },
    /// The periodic line comes too close to the blade for the O-grid.
    #[error("the periodic line passes {clearance_mm:.4} mm from a blade, too close for the O-grid ({thickness_mm:.4} mm thick)")]
    PeriodicLineTooClose { clearance_mm: f64, thickness_mm: f64 },
    /// A concave stretch of the wall curves tighter than the O-grid is thick: the grid lines
    /// marched along its normals, which meet at its centre of curvature, would cross.
    #[error("the wall is concave with a radius of curvature of {radius_mm:.4} mm near ({x_mm:.3}, {y_mm:.3}) mm, less than the {thickness_mm:.4} mm thick O-grid marched off it")]
    ConcaveWall { radius_mm: f64, thickness_mm: f64, x_mm: f64, y_mm: f64 },
}

impl Unmeshable {
    /// Whether the blade is at fault (as opposed to the passage settings).
    pub fn is_blade(&self) -> bool {
        !matches!(self, Unmeshable::Spec(_))
    }
}

impl From<Unmeshable> for Error {
    fn from(e: Unmeshable) -> Self {
        Error::Mesh(e.to_string())
    }
}

/// What the mesher decides before it builds any block: the oriented wall, the passage midline
/// M, where the wake leaves the wall and the O-grid's thickness, with the spec they follow.
#[derive(Clone)]
pub struct PassageLayout {
    spec: PassageSpec,
    wall: Wall,
    m: Polyline,
    s_rear: f64,
    /// O-grid thickness \[m\].
    thickness: f64,
}

impl std::fmt::Debug for PassageLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageLayout").field("spec", &self.spec).field("s_rear", &self.s_rear).field("thickness", &self.thickness).finish_non_exhaustive()
    }
}

impl PassageLayout {
    pub fn spec(&self) -> &PassageSpec {
        &self.spec
    }
}

/// Checks, in milliseconds, that the passage of `outline` can be meshed: usable spec and
/// outline, an O-grid that fits through the throat and under the periodic line and follows
/// every concave stretch of the wall without its lines crossing. Returns the layout it checked,
/// for [`mesh_passage`].
pub fn check_meshable(outline: &Outline, spec: &PassageSpec) -> Result<PassageLayout, Unmeshable> {
    check_spec(outline, spec).map_err(|e| Unmeshable::Spec(e.to_string()))?;
    let bad_outline = |e: Error| Unmeshable::Outline(e.to_string());
    let wall = Wall::new(outline).map_err(bad_outline)?;
    let ([x_le, x_te], _) = outline.bounding_box();
    let m = topology::midline(&wall, spec, x_te - x_le).map_err(bad_outline)?;
    let half_throat = 0.5 * topology::throat(&wall, spec.pitch);
    let exit = spec.outlet_angle_deg.to_radians();
    let s_rear = topology::rear_point(&wall, [exit.cos(), exit.sin()]);
    let thickness = (O_THICKNESS_OF_TE_RADIUS * wall.radius_at(s_rear)).max(30.0 * spec.first_cell_height);
    if !(thickness < 0.1 * half_throat) {
        return Err(Unmeshable::PassageTooNarrow { thickness_mm: thickness * 1e3, needed_mm: 20e3 * thickness, throat_mm: 2e3 * half_throat });
    }
    let clearance = topology::midline_clearance(&wall, &m, spec.pitch);
    if clearance < 3.0 * thickness {
        return Err(Unmeshable::PeriodicLineTooClose { clearance_mm: clearance * 1e3, thickness_mm: thickness * 1e3 });
    }
    let (radius, at) = wall.tightest_concave_stretch();
    if radius < CONCAVE_RADIUS_OF_THICKNESS * thickness {
        return Err(Unmeshable::ConcaveWall { radius_mm: radius * 1e3, thickness_mm: thickness * 1e3, x_mm: at[0] * 1e3, y_mm: at[1] * 1e3 });
    }
    Ok(PassageLayout { spec: spec.clone(), wall, m, s_rear, thickness })
}

/// The mesh before the final check.
fn build_mesh(layout: &PassageLayout) -> Result<Mesh, Error> {
    let PassageLayout { spec, wall, m, s_rear, thickness } = layout;
    let (s_rear, thickness) = (*s_rear, *thickness);
    let c = Counts::of(spec.density);
    let pitch = spec.pitch;
    let y1 = spec.first_cell_height;
    let layers = ogrid_layers(y1, thickness, c.o_ratio)?;

    let arcs = WallArcs::new(wall, s_rear, &c);
    let og = oblock::march_ogrid(&arcs.nodes(wall, &c)?, &layers)?;
    let o_ratio = layers[layers.len() - 1] / layers[layers.len() - 2].max(f64::MIN_POSITIVE);

    let wake = wake_cut(&og, m, spec, c.h_ratio, pitch / arcs.n_le as f64)?;
    let n_w = wake.len() - 1;
    let ml = MidlineNodes::new(m, &og, &wake, arcs.n_side, pitch, arcs.n_le, c.h_ratio.min(M_RATIO))?;
    let inner = inner_ends(&og, &wake, o_ratio);
    let outer = outer_ends(m, &ml, pitch, arcs.n_le, spec.inlet_x, c.h_ratio)?;
    let mut cg = cblock::algebraic_grid(&inner, &outer, c.nj_c, c.h_ratio)?;
    let n_m = n_w + arcs.n_side;
    elliptic::winslow_smooth(&mut cg, spec.outlet_x, c.sweeps, CONTROL_PASSES);
    let smoothed = cg.clone();
    let ni = cg.ni;
    // A graded distribution's first cell is (r - 1) / ln r times the size asked for at its
    // start (`distribution.rs`): ask for less, so that the C block's first cells continue the
    // O-grid's layer growth.
    let first_cell_bias = (c.h_ratio - 1.0) / c.h_ratio.ln();
    let h_start: Vec<f64> = inner.iter().map(|e| e.h / first_cell_bias).collect();
    let h_end: Vec<f64> = outer.iter().map(|e| e.h).collect();
    let across = |i: usize, n: usize| (i <= n || i >= ni - n).then_some(ni - i);
    cblock::respace_lines(&mut cg, &h_start, &h_end, |i| across(i, n_w), |i| across(i, n_m), c.h_ratio)?;
    // The rows' spacing jumps (corners of the boundary) spread along the rows; the line
    // limiter then undoes what the slides did to the cells along the lines.
    for _ in 0..LIMITER_ROUNDS {
        cblock::limit_row_growth(&mut cg, ROW_RATIO);
        cblock::limit_line_growth(&mut cg, ROW_RATIO);
    }
    // Re-spacing may fold the first cell of a line that leaves the inner curve almost along it
    // (a wavy suction side: design 26 of tests/cascade_design_space.rs, lines 1-10 degrees off
    // the wall): those lines and their neighbours keep their smoothed nodes, which did not fold.
    // Their neighbours too, as many as it takes (doubling) for the seam between smoothed and
    // re-spaced lines not to fold in turn. Meshes without a fold are left as they are.
    let mut spread = REVERT_NEIGHBOURS;
    loop {
        let folded = folded_lines(&cg, spread);
        if folded.is_empty() || spread > MAX_REVERT_NEIGHBOURS {
            break;
        }
        for &i in &folded {
            for j in 1..cg.nj {
                cg.set(i, j, smoothed.at(i, j));
            }
        }
        spread *= 2;
    }
    untangle_folds(&mut cg);

    let o = Grid { ni: og.ni, nj: og.nj, p: og.x.iter().zip(&og.y).map(|(&x, &y)| [x, y]).collect() };
    Ok(assemble(pitch, o, cg, n_w, n_m, arcs.n_le))
}

/// O-grid layer heights: geometric growth from the first-cell height `y1` to `thickness`, in a
/// multiple of 8 layers with a ratio of at most `max_ratio`.
fn ogrid_layers(y1: f64, thickness: f64, max_ratio: f64) -> Result<Vec<f64>, Error> {
    if !(thickness > 4.0 * y1) {
        return Err(Error::Mesh(format!("O-grid thickness {thickness:e} m leaves no room above the first cell {y1:e} m")));
    }
    let needed = (1.0 + thickness * (max_ratio - 1.0) / y1).ln() / max_ratio.ln();
    let n = ceil8(needed).max(16);
    let sum = |r: f64| if (r - 1.0).abs() < 1e-12 { y1 * n as f64 } else { y1 * (r.powi(n as i32) - 1.0) / (r - 1.0) };
    // The ratio that fits `thickness` exactly in n layers (sum is increasing in r).
    let (mut lo, mut hi) = (1.0, max_ratio);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if sum(mid) > thickness {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let r = 0.5 * (lo + hi);
    Ok((0..n).map(|j| y1 * r.powi(j as i32)).collect())
}

fn ceil8(v: f64) -> usize {
    ((v / 8.0).ceil() as usize * 8).max(8)
}

/// The wall split into three arcs, walked clockwise from the rear point: the pressure side
/// (to `s_lower`), the leading-edge arc (to `s_upper`, which faces the inlet plane) and the
/// suction side back to the rear point. Both sides get `n_side` cells (they face the same
/// nodes of M), the leading-edge arc `n_le`, a multiple of 16 (so that the C block's periodic
/// parts are multiples of 8 too).
struct WallArcs {
    s_rear: f64,
    s_lower: f64,
    s_upper: f64,
    /// Cell size at the ends of the leading-edge arc.
    h_junction: f64,
    n_side: usize,
    n_le: usize,
    /// Cells (fractional) that the leading-edge arc needs.
    le_needed: f64,
}

impl WallArcs {
    /// Shares the preset's cells: every arc gets what curvature (at most `turn_deg` per cell),
    /// the junction spacing and a common largest cell need, the largest cell chosen by bisection
    /// so that the total is about `n_around`.
    fn new(wall: &Wall, s_rear: f64, c: &Counts) -> Self {
        // The widest leading-edge arc (as a share of each side) that the inlet's cells can
        // hold: n_le is the inlet plane's count, so that the inlet's cells match the cells of M
        // upstream instead of following the leading edge's curvature.
        let mut best = Self::with_fraction(wall, s_rear, c, 0.002);
        // The fractions tried in order, a thread's worth at a time: the first that needs more
        // than n_inlet ends the search, as one after the other would.
        let fractions: Vec<f64> = (1..=40).map(|k| 0.0025 * k as f64).collect();
        'search: for group in fractions.chunks(rayon::current_num_threads().max(1)) {
            let tried: Vec<Self> = group.par_iter().map(|&f| Self::with_fraction(wall, s_rear, c, f)).collect();
            for arcs in tried {
                if arcs.le_needed > c.n_inlet as f64 {
                    break 'search;
                }
                best = arcs;
            }
        }
        best.n_le = c.n_inlet;
        best
    }

    /// The arcs with the leading-edge arc covering `fraction` of each side.
    fn with_fraction(wall: &Wall, s_rear: f64, c: &Counts, fraction: f64) -> Self {
        let p = wall.perimeter();
        let s_lower = p - fraction * (p - wall.s_te);
        let s_upper = p + fraction * wall.s_te;
        let s_rear = s_rear.rem_euclid(p).min(s_lower - 1e-9);
        let turn = c.turn_deg.to_radians();
        let cap_at = |s: f64| wall.radius_at(s) * turn;
        let [lower_side, leading_edge, upper_side] = [(s_rear, s_lower), (s_lower, s_upper), (s_upper, s_rear + p)].map(|(s0, s1)| oblock::WallSegmentCaps::new(wall, s0, s1, turn));
        let shares = |h_max: f64| {
            let hj = cap_at(s_lower).min(cap_at(s_upper)).min(h_max);
            let need = |caps: &oblock::WallSegmentCaps| caps.cells_needed(hj, c.h_ratio, h_max);
            (need(&lower_side).max(need(&upper_side)), need(&leading_edge), hj)
        };
        let (mut lo, mut hi) = (1e-6 * p, p);
        for _ in 0..60 {
            let mid = (lo * hi).sqrt();
            let (side, le, _) = shares(mid);
            if 2.0 * side + le > c.n_around as f64 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // A wall that spends many cells on its curvature starves its flat stretches; their
        // cells are capped, and the sides get more cells instead.
        let (side, le, h_junction) = shares(hi.min(MAX_WALL_CELL_OF_MEAN * p / c.n_around as f64));
        WallArcs { s_rear, s_lower, s_upper, h_junction, n_side: ceil8(side), n_le: 16 * (le / 16.0).ceil().max(1.0) as usize, le_needed: le }
    }

    /// Wall nodes, clockwise from the rear point (O-grid index 0; the last is not repeated).
    /// The arcs meet with equal cells: a target size is only an upper bound (an arc with
    /// cells to spare is finer everywhere), so each junction's target is lowered to the
    /// smaller of the two cells that meet there until both arcs reach it.
    fn nodes(&self, wall: &Wall, c: &Counts) -> Result<Vec<P2>, Error> {
        let p = wall.perimeter();
        let turn = c.turn_deg.to_radians();
        let arcs = [(self.s_rear, self.s_lower, self.n_side), (self.s_lower, self.s_upper, self.n_le), (self.s_upper, self.s_rear + p, self.n_side)];
        // Junction targets: rear point, lower end, upper end of the leading-edge arc.
        let mut h = [self.h_junction; 3];
        let mut dists = Vec::new();
        for _ in 0..6 {
            dists.clear();
            for (k, &(s0, s1, n)) in arcs.iter().enumerate() {
                dists.push(oblock::wall_segment(wall, s0, s1, n, [h[k], h[(k + 1) % 3]], turn, c.h_ratio)?);
            }
            for k in 0..3 {
                let (before, after) = (&dists[(k + 2) % 3], &dists[k]);
                let n = before.len() - 1;
                h[k] = h[k].min(before[n] - before[n - 1]).min(after[1] - after[0]);
            }
        }
        let mut nodes = Vec::new();
        for (s, &(_, _, n)) in dists.iter().zip(&arcs) {
            nodes.extend(s[..n].iter().map(|&v| wall.at(v)));
        }
        Ok(nodes)
    }
}

/// Nodes of the wake cut from the outlet to the rear point of the O-grid's outer curve
/// (`og.outer(0)`): a Hermite curve leaving the rear point along the O-grid line there and
/// meeting the outlet half-way between M and M - pitch along M's direction
/// ([`wake_curve_between`] when that curve strays towards M or M - pitch). The first cell is
/// the O-grid's outer spacing at the rear point; cells grow by at most `ratio` up to `h_far`.
fn wake_cut(og: &OGrid, m: &Polyline, spec: &PassageSpec, ratio: f64, h_far: f64) -> Result<Vec<P2>, Error> {
    let rear = og.outer(0);
    let end = m.at(m.length());
    let outlet_point = [spec.outlet_x, end[1] - 0.5 * spec.pitch];
    let out_dir = unit(sub(end, m.at(m.length() * (1.0 - 1e-3))));
    let mut curve = distribution::hermite(rear, og.outer_direction(0), outlet_point, out_dir, WAKE_TENSION, 400);
    if pitchwise_clearance(&curve, m, spec.pitch) < WAKE_CLEARANCE * spec.pitch {
        curve = wake_curve_between(rear, og.outer_direction(0), m, spec);
    }
    let h0 = 0.5 * (dist(og.outer(1), rear) + dist(og.outer(og.ni - 1), rear));
    let start = [SpacingAt { s: 0.0, h: h0 }];
    let n = ceil8(distribution::cells_needed(curve.length(), &start, None, ratio, h_far));
    let s = graded_distribution(curve.length(), n, &start, None, ratio)?;
    let mut nodes = curve.sample(&s);
    nodes[0] = rear;
    nodes[n] = outlet_point;
    nodes.reverse();
    Ok(nodes)
}

/// Smallest pitchwise (vertical) gap between a wake curve and the periodic lines M above it and
/// M - pitch below it (half a pitch each where the curve runs mid-way).
fn pitchwise_clearance(curve: &Polyline, m: &Polyline, pitch: f64) -> f64 {
    curve
        .points()
        .iter()
        .filter_map(|q| m_height(m, q[0]).map(|y| (y - q[1]).min(q[1] - (y - pitch))))
        .fold(f64::INFINITY, f64::min)
}

/// y of M (a graph y(x) from the inlet to the outlet) at `x`; `None` outside its extent.
fn m_height(m: &Polyline, x: f64) -> Option<f64> {
    let pts = m.points();
    let k = pts.partition_point(|p| p[0] < x);
    if k == 0 || k >= pts.len() {
        return (pts.first().is_some_and(|p| p[0] == x)).then(|| pts[0][1]);
    }
    let (a, b) = (pts[k - 1], pts[k]);
    Some(a[1] + (b[1] - a[1]) * (x - a[0]) / (b[0] - a[0]))
}

/// Smallest pitchwise gap, as a share of the pitch, that the Hermite wake cut may leave to M or
/// M - pitch (it starts and ends at about half a pitch). In tests/cascade_design_space.rs
/// design 98 had -0.12 (M crosses the curve twice); design 2 meshes with its Hermite curve at
/// 0.22, so the mid-way curve is kept for curves that come really close. A blade whose mean line leaves the
/// trailing edge much steeper than the straight way to the outlet bends M across the Hermite
/// curve (design 98 of tests/cascade_design_space.rs: gap below zero, 774 folded cells).
const WAKE_CLEARANCE: f64 = 0.1;

/// Lengths, as shares of the way from the rear point to the outlet, of the blends of [`wake_curve_between`]: the rear point's offset
/// from mid-pitch fades over `WAKE_OFFSET_BLEND`, its direction (the O-grid line's) over
/// `WAKE_SLOPE_BLEND` of the distance to the outlet.
const WAKE_OFFSET_BLEND: f64 = 0.5;
const WAKE_SLOPE_BLEND: f64 = 0.1;
/// Filter passes over the mid-way wake cut (400 samples: about 4 % of the way to the outlet).
const WAKE_SMOOTHING_PASSES: usize = 40;

/// A wake cut mid-way between M and M - pitch: y(x) = y_M(x) - pitch / 2, starting from the
/// rear point `rear` along `dir` (the O-grid line there) and blending into the mid-way curve
/// (smoothstep weights, so that position and slope stay continuous): the start's offset from
/// mid-pitch fades over half the way to the outlet, its slope difference over a tenth.
fn wake_curve_between(rear: P2, dir: P2, m: &Polyline, spec: &PassageSpec) -> Polyline {
    let (x0, x1) = (rear[0], spec.outlet_x);
    // x is clamped to M's extent: the last sample's x0 + (x1 - x0) may miss the outlet plane by
    // an ulp, and a fallback height there would be smeared by the filter below into a ramp
    // along the outlet.
    let pts_m = m.points();
    let (m_first, m_last) = (pts_m[0][0], pts_m[pts_m.len() - 1][0]);
    let mid = |x: f64| m_height(m, x.clamp(m_first, m_last)).unwrap_or(rear[1] + 0.5 * spec.pitch) - 0.5 * spec.pitch;
    let h = 1e-4 * (x1 - x0);
    let mid_slope = (mid(x0 + h) - mid(x0)) / h;
    let slope_gap = dir[1] / dir[0].max(1e-3) - mid_slope;
    let offset = rear[1] - mid(x0);
    let fade = |t: f64, len: f64| {
        let u = (t / len).min(1.0);
        1.0 - u * u * (3.0 - 2.0 * u)
    };
    let samples = 400;
    let mut pts: Vec<P2> = (0..=samples)
        .map(|k| {
            let t = k as f64 / samples as f64;
            let x = x0 + t * (x1 - x0);
            let dx = x - x0;
            [x, mid(x) + offset * fade(t, WAKE_OFFSET_BLEND) + slope_gap * dx * fade(t, WAKE_SLOPE_BLEND)]
        })
        .collect();
    // M's kinks where its blade part meets its downstream extension would show in the cut:
    // the three-point filter of M's own smoothing, the ends kept.
    for _ in 0..WAKE_SMOOTHING_PASSES {
        let old = pts.clone();
        for k in 1..samples {
            pts[k][1] = 0.25 * old[k - 1][1] + 0.5 * old[k][1] + 0.25 * old[k + 1][1];
        }
    }
    Polyline::new(pts)
}

/// The nodes of M shared by both periodic sides of the C block, from the outlet back to the
/// inlet: `n_w` cells from the outlet to the foot of the trailing edge (facing the wake cut's
/// cells), then `n_side` cells to the inlet (facing the blade's sides), graded from the inlet
/// plane's uniform spacing.
struct MidlineNodes {
    /// Nodes and the arc lengths of M where they lie.
    p: Vec<P2>,
    s: Vec<f64>,
}

impl MidlineNodes {
    /// The blade's side nodes face M where their feet lie (the nearest points of M to the
    /// suction-side nodes and to the pressure-side nodes shifted one pitch up): M's nodes over
    /// the blade follow the mean of the two feet, so that the C block's lines cross the
    /// passage rather than run along it. The front nodes, whose feet crowd at the leading edge,
    /// are spread instead from the inlet plane's spacing, growing by at most `ratio`.
    fn new(m: &Polyline, og: &OGrid, wake: &[P2], n_side: usize, pitch: f64, n_le: usize, ratio: f64) -> Result<Self, Error> {
        let n_w = wake.len() - 1;
        let n_o = og.ni;
        let mut f: Vec<f64> = (0..=n_side)
            .map(|k| {
                let (lo, up) = (og.outer(k), og.outer(n_o - k));
                0.5 * (m.closest_param([lo[0], lo[1] + pitch]) + m.closest_param(up))
            })
            .collect();
        let tiny = 1e-9 * m.length();
        for k in 1..=n_side {
            f[k] = f[k].min(f[k - 1] - tiny);
        }
        for _ in 0..20 {
            let old = f.clone();
            for k in 1..n_side {
                f[k] = 0.25 * old[k - 1] + 0.5 * old[k] + 0.25 * old[k + 1];
            }
        }
        let h_in = pitch / n_le as f64;
        // The largest k* whose remaining cells can grade from the local spacing to the inlet.
        let mut k_star = 1;
        for k in (1..n_side).rev() {
            if f[k] <= 0.0 {
                continue;
            }
            let h = f[k - 1] - f[k];
            let ends = [SpacingAt { s: f[k], h }, SpacingAt { s: 0.0, h: h_in }];
            if distribution::cells_needed(f[k], &ends, None, ratio, f64::INFINITY) <= (n_side - k) as f64 {
                k_star = k;
                break;
            }
        }
        // Feet crowd where the wall turns fast (the trailing-edge circle): blend with uniform
        // spacing so that no cell of M is smaller than about half the mean.
        for k in 1..k_star {
            let uniform = f[0] + (f[k_star] - f[0]) * k as f64 / k_star as f64;
            f[k] = (1.0 - UNIFORM_SHARE) * f[k] + UNIFORM_SHARE * uniform;
        }
        let h = f[k_star - 1] - f[k_star];
        let ends = [SpacingAt { s: f[k_star], h }, SpacingAt { s: 0.0, h: h_in }];
        let front = graded_distribution(f[k_star], n_side - k_star, &ends, None, ratio)?;
        let h_foot = f[0] - f[1];
        let back = graded_distribution(m.length() - f[0], n_w, &[SpacingAt { s: 0.0, h: h_foot }], None, ratio)?;
        let mut s: Vec<f64> = back.iter().rev().map(|v| f[0] + v).collect();
        s.extend(&f[1..k_star]);
        s.extend(front.iter().rev());
        // Spread the spacing jumps where the parts meet (foot, k*) over several cells; the
        // cells next to the inlet keep the inlet's spacing.
        s.reverse();
        limit_spacing_ratio(&mut s, ratio, M_SWEEPS, (1, 1));
        s.reverse();
        let mut p = m.sample(&s);
        p[0] = *m.points().last().unwrap_or(&p[0]);
        p[n_w + n_side] = m.points()[0];
        Ok(MidlineNodes { p, s })
    }
}

/// Inner ends of the C block's lines: lower wake side, O-grid outer curve, upper wake side.
/// The first cell continues the O-grid's layer growth; on the wake cut it grows from the
/// O-grid's outer layer by `WAKE_SPREAD` per unit length downstream.
fn inner_ends(og: &OGrid, wake: &[P2], o_ratio: f64) -> Vec<LineEnd> {
    let n_w = wake.len() - 1;
    let h_rear = og.outer_spacing(0) * o_ratio;
    let mut from_rear = vec![0.0; n_w + 1];
    for k in (0..n_w).rev() {
        from_rear[k] = from_rear[k + 1] + dist(wake[k], wake[k + 1]);
    }
    // Wake tangent pointing downstream at node k.
    let tangent = |k: usize| unit(sub(wake[k.saturating_sub(1)], wake[(k + 1).min(n_w)]));
    let mut ends = Vec::with_capacity(2 * n_w + og.ni + 1);
    for k in 0..n_w {
        ends.push(LineEnd { p: wake[k], dir: scale(left_normal(tangent(k)), -1.0), h: h_rear + WAKE_SPREAD * from_rear[k] });
    }
    for i in 0..=og.ni {
        ends.push(LineEnd { p: og.outer(i), dir: og.outer_direction(i), h: og.outer_spacing(i) * o_ratio });
    }
    for k in (0..n_w).rev() {
        ends.push(LineEnd { p: wake[k], dir: left_normal(tangent(k)), h: h_rear + WAKE_SPREAD * from_rear[k] });
    }
    // Rear point: between the O-grid line and the wake normal.
    let lower = ends[n_w - 1].dir;
    let upper = ends[n_w + og.ni + 1].dir;
    ends[n_w].dir = unit(add(ends[n_w].dir, lower));
    ends[n_w + og.ni].dir = unit(add(ends[n_w + og.ni].dir, upper));
    ends
}

/// Outer ends of the C block's lines: M - pitch from the outlet to the inlet, the inlet plane,
/// M from the inlet to the outlet. Lines arrive along M's normal (and along -x at the inlet),
/// with a last cell as long as the local spacing along the boundary.
fn outer_ends(m: &Polyline, ml: &MidlineNodes, pitch: f64, n_le: usize, inlet_x: f64, ratio: f64) -> Result<Vec<LineEnd>, Error> {
    let n_m = ml.p.len() - 1;
    let spacing = |k: usize| {
        let a = if k > 0 { dist(ml.p[k], ml.p[k - 1]) } else { dist(ml.p[k], ml.p[k + 1]) };
        let b = if k < n_m { dist(ml.p[k], ml.p[k + 1]) } else { a };
        0.5 * (a + b)
    };
    let down = |p: P2| [p[0], p[1] - pitch];
    let mut ends = Vec::with_capacity(2 * n_m + n_le + 1);
    for k in 0..=n_m {
        let up = left_normal(topology::m_tangent(m, ml.s[k]));
        ends.push(LineEnd { p: down(ml.p[k]), dir: scale(up, -1.0), h: spacing(k) });
    }
    // Inlet nodes: the corner cells as long as M's last cell, growing towards mid-pitch.
    let y0 = ml.p[n_m][1];
    let h_corner = dist(ml.p[n_m], ml.p[n_m - 1]);
    let corners = [SpacingAt { s: 0.0, h: h_corner }, SpacingAt { s: pitch, h: h_corner }];
    let t = graded_distribution(pitch, n_le, &corners, None, ratio)?;
    for k in 1..n_le {
        let h = 0.5 * (t[k + 1] - t[k - 1]);
        ends.push(LineEnd { p: [inlet_x, y0 - pitch + t[k]], dir: [-1.0, 0.0], h });
    }
    for k in (0..=n_m).rev() {
        let up = left_normal(topology::m_tangent(m, ml.s[k]));
        ends.push(LineEnd { p: ml.p[k], dir: up, h: spacing(k) });
    }
    // Inlet corners: between M's normal and the inlet direction.
    let ni = ends.len() - 1;
    ends[n_m].dir = unit(add(ends[n_m].dir, [-1.0, 0.0]));
    ends[ni - n_m].dir = unit(add(ends[ni - n_m].dir, [-1.0, 0.0]));
    Ok(ends)
}

/// Nodes round a fold that the untangler may move, in lines and rows either side of each
/// folded cell; doubled while folds remain, up to [`MAX_UNTANGLE_REACH`].
const UNTANGLE_REACH: usize = 2;
const MAX_UNTANGLE_REACH: usize = 16;

/// Where a cell is still folded after smoothing and re-spacing (a line leaving a steep inner
/// curve, a rear suction side or the wake cut of a large exit angle, a few degrees off
/// tangent), moves the nodes round it until every cell there has a positive area
/// ([`cblock::untangle`]). Meshes without a fold are left as they are.
fn untangle_folds(cg: &mut Grid) {
    let mut reach = UNTANGLE_REACH;
    while reach <= MAX_UNTANGLE_REACH {
        let folded = folded_cells(cg);
        if folded.is_empty() {
            return;
        }
        let mut free = std::collections::BTreeSet::new();
        for &(i, j) in &folded {
            for jj in j.saturating_sub(reach).max(1)..=(j + 1 + reach).min(cg.nj - 1) {
                for ii in i.saturating_sub(reach).max(1)..=(i + 1 + reach).min(cg.ni - 1) {
                    free.insert((ii, jj));
                }
            }
        }
        cblock::untangle(cg, &free.into_iter().collect::<Vec<_>>());
        reach *= 2;
    }
}

/// The cells of non-positive area in `g`.
fn folded_cells(g: &Grid) -> Vec<(usize, usize)> {
    (0..g.nj).flat_map(|j| (0..g.ni).map(move |i| (i, j))).filter(|&(i, j)| !(g.cell_area(i, j) > 0.0)).collect()
}

/// Lines on either side of a folded cell that keep their smoothed nodes (doubled while folds
/// remain, up to [`MAX_REVERT_NEIGHBOURS`]).
const REVERT_NEIGHBOURS: usize = 2;
const MAX_REVERT_NEIGHBOURS: usize = 32;

/// The lines within `spread` of a cell of non-positive area in the inner half of `g`.
fn folded_lines(g: &Grid, spread: usize) -> Vec<usize> {
    let mut lines = std::collections::BTreeSet::new();
    for j in 0..g.nj / 2 {
        for i in 0..g.ni {
            if !(g.cell_area(i, j) > 0.0) {
                lines.extend(i.saturating_sub(spread)..=(i + 1 + spread).min(g.ni));
            }
        }
    }
    lines.into_iter().collect()
}

fn check_positive_areas(mesh: &Mesh) -> Result<(), Error> {
    for blk in &mesh.blocks {
        let g = Grid { ni: blk.ni, nj: blk.nj, p: blk.x.iter().zip(&blk.y).map(|(&x, &y)| [x, y]).collect() };
        for j in 0..g.nj {
            for i in 0..g.ni {
                let area = g.cell_area(i, j);
                if !(area > 0.0) {
                    let at = g.p[i + (g.ni + 1) * j];
                    return Err(Error::Mesh(format!(
                        "block {} cell ({i}, {j}) near ({:.3}, {:.3}) mm has non-positive area {area:e} m^2",
                        blk.name,
                        at[0] * 1e3,
                        at[1] * 1e3
                    )));
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
const C: usize = 1;

/// Puts the two blocks together with their patches (layout in the module doc; the Connection
/// convention is in `crate::mesh`): `n_w` wake-cut cells on each side, `n_m` cells on each
/// periodic line, `n_in` on the inlet.
fn assemble(pitch: f64, o: Grid, c: Grid, n_w: usize, n_m: usize, n_in: usize) -> Mesh {
    use BoundaryKind::{Inlet, Outlet, Wall};
    use Face::{IMax, IMin, JMax, JMin};
    let (n_o, ni, nj) = (o.ni, c.ni, c.nj);
    let zero = [0.0, 0.0];
    let o_patches = vec![
        patch(IMin, 0, o.nj, interface(O, IMax, 0, false, zero)),
        patch(IMax, 0, o.nj, interface(O, IMin, 0, false, zero)),
        patch(JMin, 0, n_o, Wall),
        patch(JMax, 0, n_o, interface(C, JMin, n_w, false, zero)),
    ];
    let c_patches = vec![
        patch(IMin, 0, nj, Outlet),
        patch(IMax, 0, nj, Outlet),
        patch(JMin, 0, n_w, interface(C, JMin, ni - n_w, true, zero)),
        patch(JMin, n_w, n_w + n_o, interface(O, JMax, 0, false, zero)),
        patch(JMin, n_w + n_o, ni, interface(C, JMin, 0, true, zero)),
        patch(JMax, 0, n_m, interface(C, JMax, ni - n_m, true, [0.0, -pitch])),
        patch(JMax, n_m, n_m + n_in, Inlet),
        patch(JMax, n_m + n_in, ni, interface(C, JMax, 0, true, [0.0, pitch])),
    ];
    Mesh { blocks: vec![to_block("O", o, o_patches), to_block("C", c, c_patches)], pitch }
}
