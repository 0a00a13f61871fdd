//! Blade-surface distributions: wall pressure and isentropic Mach number
//! Mis = sqrt(2/(gamma-1) ((P01/p)^((gamma-1)/gamma) - 1)) (docs/architecture.md, "figures"),
//! skin friction and the boundary layer's state (laminar or turbulent, attached or separated).

use crate::flow::case::{isentropic_mach, OperatingPoint};
use crate::flow::gas::Gas;
use crate::flow::sa::eddy_viscosity;
use crate::flow::solution::{BlockSolution, Solution};
use crate::mesh::metrics::{face_edge_nodes, point_segment_distance, quad_area_centroid};
use crate::mesh::{Block, BoundaryKind, Face, Mesh};
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
    /// Skin friction tau_w / (P01 - p2), tau_w = mu u_t / d from the wall cell (d its
    /// centroid's distance from the face, as the solver's wall gradient has it; u_t along the
    /// side from the leading edge to the trailing edge: negative where the layer is separated;
    /// 0 for an inviscid flow).
    pub cf: f64,
    /// Largest eddy-viscosity ratio mu_t / mu over the wall block's cells along the wall
    /// normal (at most [`LAYER_CELLS`]): below 1 in a laminar layer, 10 and more in a
    /// turbulent one (0 for laminar and inviscid runs).
    pub eddy_viscosity_ratio: f64,
}

/// Cells along the wall normal searched for the layer's largest eddy-viscosity ratio: the
/// O-grid's layers (16 to 32 on the shipped meshes) hold the inner part of the boundary layer,
/// where a turbulent layer's mu_t / mu exceeds 1 (kappa y+ at y+ ~ 10).
pub const LAYER_CELLS: usize = 32;

/// mu_t / mu above which a wall face's boundary layer counts as turbulent (the free stream of a
/// fully turbulent run, nu~ = 3 nu, has 0.21).
pub const TURBULENT_EDDY_VISCOSITY_RATIO: f64 = 1.0;

/// What one wall face sees: centre, pressure, wall shear along the face (from node 0 to node 1)
/// and the layer's largest eddy-viscosity ratio.
#[derive(Clone, Copy, Debug)]
struct WallFace {
    centre: [f64; 2],
    along: [f64; 2],
    p: f64,
    shear: f64,
    eddy_viscosity_ratio: f64,
}

/// Wall faces in the order they appear along the wall patches.
fn wall_faces(mesh: &Mesh, sol: &Solution, gas: &Gas, viscous: bool) -> Vec<WallFace> {
    let mut out = Vec::new();
    for (b, block) in mesh.blocks.iter().enumerate() {
        let s = &sol.blocks[b];
        for patch in block.patches.iter().filter(|p| p.kind == BoundaryKind::Wall) {
            // The cell `m` layers in from the wall face `k`.
            let (ni, nj) = (block.ni, block.nj);
            let inward = |k: usize, m: usize| match patch.face {
                Face::JMin => block.cell(k, m),
                Face::JMax => block.cell(k, nj - 1 - m),
                Face::IMin => block.cell(m, k),
                Face::IMax => block.cell(ni - 1 - m, k),
            };
            let depth = if matches!(patch.face, Face::JMin | Face::JMax) { nj } else { ni };
            for k in patch.start..patch.end {
                let [a, e] = face_edge_nodes(block, patch.face, k).map(|(i, j)| block.node(i, j)).map(|n| [block.x[n], block.y[n]]);
                let centre = [0.5 * (a[0] + e[0]), 0.5 * (a[1] + e[1])];
                let length = (e[0] - a[0]).hypot(e[1] - a[1]);
                let along = [(e[0] - a[0]) / length, (e[1] - a[1]) / length];
                let wall_cell = inward(k, 0);
                // An inviscid wall cell slips: no shear to report. The wall distance is the
                // solver's: from the cell centroid (`mesh::metrics`).
                let shear = if viscous {
                    let d = point_segment_distance(cell_centroid(block, wall_cell), &[a[0], a[1], e[0], e[1]]);
                    let (u, v) = (s.rho_u[wall_cell] / s.rho[wall_cell], s.rho_v[wall_cell] / s.rho[wall_cell]);
                    viscosity(s, wall_cell, gas) * (u * along[0] + v * along[1]) / d
                } else {
                    0.0
                };
                let eddy_viscosity_ratio = (0..depth.min(LAYER_CELLS)).map(|m| eddy_viscosity_ratio(s, inward(k, m), gas)).fold(0.0, f64::max);
                out.push(WallFace { centre, along, p: s.pressure(wall_cell, gas.gamma), shear, eddy_viscosity_ratio });
            }
        }
    }
    out
}

fn cell_centroid(block: &Block, cell: usize) -> [f64; 2] {
    let (i, j) = (cell % block.ni, cell / block.ni);
    let at = |i, j| [block.x[block.node(i, j)], block.y[block.node(i, j)]];
    quad_area_centroid(at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)).1
}

fn viscosity(s: &BlockSolution, c: usize, gas: &Gas) -> f64 {
    gas.viscosity(s.pressure(c, gas.gamma) / (s.rho[c] * gas.gas_constant))
}

/// mu_t / mu of cell `c` (0 where the solution carries no nu~).
fn eddy_viscosity_ratio(s: &BlockSolution, c: usize, gas: &Gas) -> f64 {
    let mu = viscosity(s, c, gas);
    s.nu_tilde.get(c).map_or(0.0, |&nu_tilde| eddy_viscosity(s.rho[c], nu_tilde, mu / s.rho[c]) / mu)
}

/// Isentropic Mach number on every blade wall face, split into suction and pressure side.
///
/// The wall faces form a closed loop; the leading edge is its most upstream face and the
/// trailing edge its most downstream one. Of the two arcs between them, the suction side is the
/// upper one at mid axial chord (the project's blades turn the flow towards -y, so their convex
/// side is the upper one). Assumes the wall patches list the wall faces as one closed loop, as
/// the cascade mesher's boundary-layer block does.
/// Points are returned ordered from the leading edge to the trailing edge on each side. The
/// skin friction is left at 0 for an inviscid flow (`viscous` false).
pub fn blade_surface(mesh: &Mesh, sol: &Solution, gas: &Gas, op: &OperatingPoint, viscous: bool) -> Vec<SurfacePoint> {
    let faces = wall_faces(mesh, sol, gas, viscous);
    let n = faces.len();
    if n < 4 {
        return Vec::new();
    }
    let le = argmin_by(&faces, |f| f.centre[0]);
    let te = argmin_by(&faces, |f| -f.centre[0]);
    let x_le = faces[le].centre[0];
    // Walk forward from LE to TE (arc a) and from TE to LE (arc b, reversed afterwards).
    let arc_a: Vec<usize> = walk(le, te, n);
    // The LE and TE faces belong to arc a only; arc b holds the faces strictly between.
    let mut arc_b: Vec<usize> = walk(te, le, n);
    arc_b.reverse();
    arc_b.retain(|&k| k != le && k != te);
    // Compare the two arcs at mid axial chord: the suction side is the upper one there.
    let x_mid = 0.5 * (faces[le].centre[0] + faces[te].centre[0]);
    let y_at_mid = |arc: &[usize]| {
        arc.iter()
            .min_by(|&&p, &&q| (faces[p].centre[0] - x_mid).abs().total_cmp(&(faces[q].centre[0] - x_mid).abs()))
            .map_or(f64::NAN, |&k| faces[k].centre[1])
    };
    let a_is_suction = y_at_mid(&arc_a) > y_at_mid(&arc_b);
    let (ss, ps) = if a_is_suction { (arc_a, arc_b) } else { (arc_b, arc_a) };
    let dynamic_pressure = op.p01 - op.p2;
    // The shear counts positive along the walk from the leading edge to the trailing edge:
    // the face's own direction when the walk goes from its node 0 to its node 1.
    let side_points = |arc: &[usize], side| -> Vec<SurfacePoint> {
        arc.iter()
            .enumerate()
            .map(|(m, &k)| {
                let f = faces[k];
                let (from, to) = if m + 1 < arc.len() { (k, arc[m + 1]) } else { (arc[m.saturating_sub(1)], k) };
                let walk = [faces[to].centre[0] - faces[from].centre[0], faces[to].centre[1] - faces[from].centre[1]];
                let sign = if walk[0] * f.along[0] + walk[1] * f.along[1] >= 0.0 { 1.0 } else { -1.0 };
                SurfacePoint {
                    x: f.centre[0],
                    y: f.centre[1],
                    x_from_le: f.centre[0] - x_le,
                    side,
                    p: f.p,
                    mis: isentropic_mach(op.p01, f.p, gas.gamma),
                    cf: sign * f.shear / dynamic_pressure,
                    eddy_viscosity_ratio: f.eddy_viscosity_ratio,
                }
            })
            .collect()
    };
    let mut points = side_points(&ss, BladeSide::Suction);
    points.extend(side_points(&ps, BladeSide::Pressure));
    points
}

/// The boundary layer along one side of the blade, read off its [`SurfacePoint`]s.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideLayer {
    pub side: BladeSide,
    /// Axial distance from the leading edge of the first face whose layer is turbulent
    /// (mu_t / mu above [`TURBULENT_EDDY_VISCOSITY_RATIO`]); None: laminar to the trailing edge.
    pub transition_x_from_le: Option<f64>,
    /// Share of the side's surface length, from the leading edge, before that face.
    pub laminar_fraction: f64,
    /// Stretches of reversed wall shear (cf < 0), as (start, end) axial distances from the
    /// leading edge: separation bubbles, an open separation, the trailing-edge base. A stretch
    /// that starts at the leading-edge face is the stagnation point's offset from it, not a
    /// separation, and is left out.
    pub separations: Vec<(f64, f64)>,
}

/// The boundary layer of each side of `surface` (as [`blade_surface`] orders it).
pub fn side_layers(surface: &[SurfacePoint]) -> Vec<SideLayer> {
    [BladeSide::Suction, BladeSide::Pressure].into_iter().map(|side| side_layer(surface, side)).collect()
}

fn side_layer(surface: &[SurfacePoint], side: BladeSide) -> SideLayer {
    let points: Vec<&SurfacePoint> = surface.iter().filter(|p| p.side == side).collect();
    let mut arc = vec![0.0; points.len()];
    for k in 1..points.len() {
        arc[k] = arc[k - 1] + (points[k].x - points[k - 1].x).hypot(points[k].y - points[k - 1].y);
    }
    let first_turbulent = points.iter().position(|p| p.eddy_viscosity_ratio > TURBULENT_EDDY_VISCOSITY_RATIO);
    let length = arc.last().copied().unwrap_or(0.0);
    let laminar_fraction = match first_turbulent {
        Some(k) if length > 0.0 => arc[k] / length,
        Some(_) => 0.0,
        None => 1.0,
    };
    let mut separations = Vec::new();
    let mut k = 0;
    while k < points.len() {
        if points[k].cf < 0.0 {
            let start = k;
            while k + 1 < points.len() && points[k + 1].cf < 0.0 {
                k += 1;
            }
            if start > 0 {
                separations.push((points[start].x_from_le, points[k].x_from_le));
            }
        }
        k += 1;
    }
    SideLayer { side, transition_x_from_le: first_turbulent.map(|k| points[k].x_from_le), laminar_fraction, separations }
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
