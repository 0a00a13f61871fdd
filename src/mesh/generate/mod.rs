//! Cascade mesh generation: a structured five-block mesh of one periodic blade passage.
//!
//! Blocks (all sizes and patch ends multiples of 8, so that three multigrid levels exist):
//!
//! - `O` (block 0): the boundary-layer block, an O-grid round the blade, i clockwise from the
//!   suction side's exit corner `te_up`, j from the wall outwards; sized from the first-cell
//!   height, the number of layers and their growth, and thinned where the passage narrows or
//!   the wall is concave (`boundary_layer.rs`);
//! - four passage blocks round it, i downstream and j pitchwise (`passage_blocks.rs`):
//!   `inlet` (block 1), `pressure` (block 2), `suction` (block 3) and `outlet` (block 4). The
//!   pressure- and suction-side blocks fill the covered passage between the entrance line
//!   (from the suction side near the leading edge to the neighbour's leading edge) and the
//!   exit line (from the suction side's throat to the neighbour's trailing edge, for a
//!   turbine); the inlet and outlet blocks fill the rest. The periodic line M bounds the
//!   suction-side block above and, one pitch down, the pressure-side block below, and bounds
//!   the inlet and outlet blocks above and below.
//!
//! Steps: the wall's corners and node distribution (`wall.rs`), the boundary-layer block,
//! the periodic line (`periodic.rs`), the passage blocks by transfinite interpolation, and
//! Winslow smoothing of the four passage blocks as one periodic grid (`smoothing.rs`). The
//! design and its sources: `docs/mesh.md`.

mod boundary_layer;
mod distribution;
mod grid;
mod line_spacing;
mod mixing;
mod node_table;
mod passage_blocks;
mod periodic;
mod repair;
mod smoothing;
mod wall;

use self::boundary_layer::{LayerSpec, OGrid};
use self::distribution::Polyline;
use self::grid::Grid;
use self::line_spacing::InletCorners;
use self::smoothing::Settle;
use crate::mesh::quality::{QualityBounds, QualityReport};
use self::passage_blocks::{PassageBlocks, PassageCounts, PassageInput};
use self::wall::{Corners, Wall, WallArcs};
use rayon::prelude::*;
use crate::error::Error;
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
    /// Inlet flow angle [deg from axial]: where the leading-edge arc faces, and the direction of
    /// the periodic line at the inlet.
    pub inlet_angle_deg: f64,
    /// Exit flow angle [deg from axial]: where the trailing-edge arc faces, and the direction
    /// of the periodic line at the outlet (both periodic-line angles within
    /// [`MAX_PERIODIC_LINE_ANGLE_DEG`]).
    pub outlet_angle_deg: f64,
}

/// Steepest direction of the periodic line upstream and downstream of the blade.
pub const MAX_PERIODIC_LINE_ANGLE_DEG: f64 = periodic::MAX_LINE_ANGLE_DEG;

/// Cell counts and grading of a density preset.
#[derive(Clone, Copy, Debug)]
struct Preset {
    /// Cells round the blade, about.
    wall_cells: usize,
    /// Largest wall turning per cell \[deg\].
    turn_deg: f64,
    /// Largest growth ratio of the boundary-layer block's layers.
    layer_ratio: f64,
    /// The outermost layer's height as a share of the mean wall cell.
    outer_layer_share: f64,
    /// Largest growth ratio along the wall and the passage blocks' lines.
    ratio: f64,
    /// Fewest cells across half the passage.
    min_across: usize,
    /// Most red-black Gauss-Seidel sweeps of the passage blocks' smoother. It stops once it
    /// has settled: LS89 after 464 (coarse) and 738 (medium) sweeps, T106C after 499 (coarse)
    /// and 1,605 (fine); LS89 fine and T106C medium end at the cap (their nodes still move 2.5 %
    /// and 0.13 % of a cell per sweep).
    sweeps: usize,
}

impl Preset {
    fn of(d: Density) -> Preset {
        match d {
            Density::Coarse => Preset { wall_cells: 192, turn_deg: 8.0, layer_ratio: 1.25, outer_layer_share: 0.45, ratio: 1.2, min_across: 16, sweeps: 600 },
            Density::Medium => Preset { wall_cells: 416, turn_deg: 5.0, layer_ratio: 1.18, outer_layer_share: 0.45, ratio: 1.15, min_across: 32, sweeps: 800 },
            Density::Fine => Preset { wall_cells: 1152, turn_deg: 3.0, layer_ratio: 1.12, outer_layer_share: 0.45, ratio: 1.1, min_across: 80, sweeps: 2000 },
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

/// Generates the five-block mesh of one periodic passage round `outline`.
///
/// Fails with [`Error::Mesh`] on bad input (non-finite or inconsistent sizes, an outline that
/// is not a wall) or when the finished mesh has a cell of non-positive area.
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

/// Why the mesher cannot mesh a passage, found before any block is built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Unmeshable {
    /// The passage spec is unusable (non-finite values, first-cell height, domain lengths,
    /// angle hints): a matter of the mesh settings rather than of the blade.
    #[error("{0}")]
    Spec(String),
    /// The outline cannot be a wall, or no periodic line passes between it and its neighbour.
    #[error("{0}")]
    Outline(String),
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

/// What the mesher decides before it builds any block: the oriented wall, its corners and the
/// periodic line, with the spec they follow.
#[derive(Clone)]
pub struct PassageLayout {
    spec: PassageSpec,
    wall: Wall,
    corners: Corners,
    m: Polyline,
}

impl std::fmt::Debug for PassageLayout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassageLayout").field("spec", &self.spec).field("corners", &self.corners).finish_non_exhaustive()
    }
}

impl PassageLayout {
    pub fn spec(&self) -> &PassageSpec {
        &self.spec
    }
}

/// Checks, in milliseconds, that the passage of `outline` can be laid out: a usable spec, an
/// outline that is a wall, and a periodic line between the blade and its neighbour. Returns
/// the layout, for [`mesh_passage`].
pub fn check_meshable(outline: &Outline, spec: &PassageSpec) -> Result<PassageLayout, Unmeshable> {
    check_spec(outline, spec).map_err(|e| Unmeshable::Spec(e.to_string()))?;
    let bad_outline = |e: Error| Unmeshable::Outline(e.to_string());
    let wall = Wall::new(outline).map_err(bad_outline)?;
    let ([x_le, x_te], _) = outline.bounding_box();
    let m = periodic::midline(&wall, spec, x_te - x_le).map_err(bad_outline)?;
    let clearance = periodic::clearance(&wall, &m, spec.pitch);
    if !(clearance > 0.0) {
        return Err(Unmeshable::Outline(format!(
            "no periodic line passes between the blade and its neighbour one pitch up (the mid-way line comes {:.4} mm inside a blade)",
            -clearance * 1e3
        )));
    }
    let corners = Corners::find(&wall, spec.pitch, spec.inlet_angle_deg, spec.outlet_angle_deg);
    Ok(PassageLayout { spec: spec.clone(), wall, corners, m })
}

/// The mesh before the final check.
fn build_mesh(layout: &PassageLayout) -> Result<Mesh, Error> {
    let PassageLayout { spec, wall, corners, m } = layout;
    let preset = Preset::of(spec.density);
    // The boundary-layer block's outer cell follows the mean wall cell of the preset; the wall
    // cells at the corners continue it.
    let mean_cell = wall.perimeter() / preset.wall_cells as f64;
    let layers = LayerSpec::new(spec.first_cell_height, preset.outer_layer_share * mean_cell, preset.layer_ratio)?;
    let corner_cell = preset.ratio * layers.outer_cell();
    let arcs = WallArcs::new(wall, corners, preset.wall_cells, preset.turn_deg, preset.ratio, corner_cell);
    let s = arcs.node_arc_lengths(wall, preset.turn_deg, preset.ratio, corner_cell)?;
    let thickness = boundary_layer::thickness_field(wall, &s, spec.pitch, m, &layers);
    let o = boundary_layer::build(wall, &s, &thickness, &layers)?;
    let input = PassageInput {
        o: &o,
        arcs: &arcs,
        m,
        pitch: spec.pitch,
        ratio: preset.ratio,
        min_across: preset.min_across,
    };
    let passage = PassageBlocks::build(&input)?;
    let first = passage.first_cells(&o, preset.ratio);
    let targets = passage.target_controls(&o, preset.ratio);
    let finished = |settle: Settle| {
        let mut passage = passage.clone();
        smoothing::smooth(&mut passage, spec.pitch, preset.sweeps, settle, &targets, &first);
        smoothing::repair(&mut passage, spec.pitch);
        best_grading(spec, &preset, o.clone(), passage)
    };
    // The settled grid, unless it has a near-degenerate or folded cell and the unsettled one
    // ranks better.
    let settled = finished(Settle::Mixed);
    if !(settled.1 .0 || settled.1 .1) {
        return Ok(settled.0);
    }
    let plain = finished(Settle::Plain);
    Ok(if plain.1 < settled.1 { plain.0 } else { settled.0 })
}

/// Where a finished mesh stands against the quality bounds, best first: whether its report
/// could not measure it (a folded cell), whether it has a near-degenerate cell, how many bounds
/// it misses and by how much.
type Rank = (bool, bool, usize, f64);

/// The boundary-layer block `o` and the smoothed passage blocks graded across the interfaces
/// four ways, the mesh nearest the quality bounds kept (the first of equals), with its rank.
fn best_grading(spec: &PassageSpec, preset: &Preset, mut o: OGrid, passage: PassageBlocks) -> (Mesh, Rank) {
    // The layers end in the passage blocks' first cells (a little smaller: the growth goes on
    // outwards), then every line's cells are graded across the interfaces.
    let wanted: Vec<f64> = passage.first_cells_at_outer_curve(o.ni).iter().map(|h| h / INTERFACE_GROWTH).collect();
    o.match_outer_layers(spec.first_cell_height, &wanted, preset.layer_ratio);
    let bounds = QualityBounds::default();
    let graded = |&(corners, skewness_bound): &(InletCorners, f64)| {
        let (mut o, mut passage) = (o.clone(), passage.clone());
        line_spacing::limit_growth_along_lines(&mut o, &mut passage, spec.pitch, LINE_GROWTH, skewness_bound, corners);
        let mesh = assemble(spec.pitch, &o, passage);
        // A mesh the report cannot measure (a folded cell) ranks last.
        let rank = QualityReport::of_mesh(&mesh).map_or((true, true, usize::MAX, f64::INFINITY), |q| {
            let (degenerate, missed, excess) = q.summary().shortfall(&bounds);
            (false, degenerate, missed, excess)
        });
        (mesh, rank)
    };
    // The leading-edge corner rows continued or started at their corner (`InletCorners`), and
    // the nodes' moves free or held to the skewness bound. Held moves keep the cells beside a
    // block corner on the outer curve from closing up where two chains leave it at a sharp
    // angle; free moves reach the growth bound in thin, already skewed cells (a narrow
    // suction-side block), where a held move would stop short.
    let variants = [InletCorners::Continued, InletCorners::FromCorner].map(|c| [(c, f64::INFINITY), (c, bounds.max_skewness)]).concat();
    let mut candidates: Vec<_> = variants.par_iter().map(graded).collect();
    let best = (1..candidates.len()).fold(0, |k, m| if candidates[m].1 < candidates[k].1 { m } else { k });
    candidates.swap_remove(best)
}

/// Growth from the boundary-layer block's outer layer to the passage blocks' first cells.
const INTERFACE_GROWTH: f64 = 1.1;
/// Largest growth of neighbouring cells along any grid line at the end (the quality bound is
/// 1.3 on cell sizes averaged over two edges; this leaves room for the averaging).
const LINE_GROWTH: f64 = 1.25;

fn check_positive_areas(mesh: &Mesh) -> Result<(), Error> {
    for blk in &mesh.blocks {
        let g = Grid { ni: blk.ni, nj: blk.nj, p: blk.x.iter().zip(&blk.y).map(|(&x, &y)| [x, y]).collect() };
        for j in 0..g.nj {
            for i in 0..g.ni {
                let area = g.cell_area(i, j);
                if !(area > 0.0) {
                    let at = g.at(i, j);
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

fn to_block(name: &str, g: &Grid, patches: Vec<Patch>) -> Block {
    Block { name: name.into(), ni: g.ni, nj: g.nj, x: g.p.iter().map(|p| p[0]).collect(), y: g.p.iter().map(|p| p[1]).collect(), patches }
}

/// Block indices in the mesh.
const O: usize = 0;
const INLET: usize = 1;
const PRESSURE: usize = 2;
const SUCTION: usize = 3;
const OUTLET: usize = 4;

/// Puts the five blocks together with their patches (layout in the module doc and in
/// `passage_blocks.rs`; the Connection convention is in `crate::mesh`).
fn assemble(pitch: f64, o: &OGrid, passage: PassageBlocks) -> Mesh {
    use BoundaryKind::{Inlet, Outlet, Wall};
    use Face::{IMax, IMin, JMax, JMin};
    let c: PassageCounts = passage.counts;
    let (n, n_side, n_le, n_te) = (c.n_across, c.n_side, c.n_le, c.n_te);
    let [_, o_ps, o_le, o_ss] = c.o_starts();
    let n_o = o.ni;
    let (nj_in, nj_out) = (c.nj_inlet(), c.nj_outlet());
    let zero = [0.0, 0.0];
    let (below, above) = ([0.0, -pitch], [0.0, pitch]);
    let o_grid = Grid { ni: o.ni, nj: o.nj, p: o.p.clone() };
    let o_patches = vec![
        patch(IMin, 0, o.nj, interface(O, IMax, 0, false, zero)),
        patch(IMax, 0, o.nj, interface(O, IMin, 0, false, zero)),
        patch(JMin, 0, n_o, Wall),
        patch(JMax, 0, o_ps, interface(OUTLET, IMin, n, true, zero)),
        patch(JMax, o_ps, o_le, interface(PRESSURE, JMax, 0, true, zero)),
        patch(JMax, o_le, o_ss, interface(INLET, IMax, n, false, zero)),
        patch(JMax, o_ss, n_o, interface(SUCTION, JMin, 0, false, zero)),
    ];
    let inlet_patches = vec![
        patch(IMin, 0, nj_in, Inlet),
        patch(IMax, 0, n, interface(PRESSURE, IMin, 0, false, zero)),
        patch(IMax, n, n + n_le, interface(O, JMax, o_le, false, zero)),
        patch(IMax, n + n_le, nj_in, interface(SUCTION, IMin, 0, false, zero)),
        patch(JMin, 0, c.n_in, interface(INLET, JMax, 0, false, below)),
        patch(JMax, 0, c.n_in, interface(INLET, JMin, 0, false, above)),
    ];
    let pressure_patches = vec![
        patch(IMin, 0, n, interface(INLET, IMax, 0, false, zero)),
        patch(IMax, 0, n, interface(OUTLET, IMin, 0, false, zero)),
        patch(JMin, 0, n_side, interface(SUCTION, JMax, 0, false, below)),
        patch(JMax, 0, n_side, interface(O, JMax, o_ps, true, zero)),
    ];
    let suction_patches = vec![
        patch(IMin, 0, n, interface(INLET, IMax, n + n_le, false, zero)),
        patch(IMax, 0, n, interface(OUTLET, IMin, n + n_te, false, zero)),
        patch(JMin, 0, n_side, interface(O, JMax, o_ss, false, zero)),
        patch(JMax, 0, n_side, interface(PRESSURE, JMin, 0, false, above)),
    ];
    let outlet_patches = vec![
        patch(IMin, 0, n, interface(PRESSURE, IMax, 0, false, zero)),
        patch(IMin, n, n + n_te, interface(O, JMax, 0, true, zero)),
        patch(IMin, n + n_te, nj_out, interface(SUCTION, IMax, 0, false, zero)),
        patch(IMax, 0, nj_out, Outlet),
        patch(JMin, 0, c.n_out, interface(OUTLET, JMax, 0, false, below)),
        patch(JMax, 0, c.n_out, interface(OUTLET, JMin, 0, false, above)),
    ];
    Mesh {
        blocks: vec![
            to_block("O", &o_grid, o_patches),
            to_block("inlet", &passage.inlet, inlet_patches),
            to_block("pressure", &passage.pressure, pressure_patches),
            to_block("suction", &passage.suction, suction_patches),
            to_block("outlet", &passage.outlet, outlet_patches),
        ],
        pitch,
    }
}

