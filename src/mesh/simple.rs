//! Analytic test meshes for verification: channels (Cartesian, curvilinear, periodic), the Sod
//! shock tube, a smooth Gaussian-bump channel (order of accuracy), a sinusoidally distorted
//! mesh (free-stream preservation) and the NASA TMR zero-pressure-gradient flat plate.
//! Also two topology tools for multi-block tests: [`split_i`] and [`rotate_180`] (both
//! validate their input mesh).

use std::f64::consts::PI;

use crate::error::{Error, Result};
use crate::mesh::connect::validate;
use crate::mesh::metrics::quad_area_centroid;
use crate::mesh::{Block, BoundaryKind, Connection, Face, Mesh, Patch};

/// Boundary kinds of the four faces of a single-block test mesh (one patch per face).
#[derive(Clone, Debug, PartialEq)]
pub struct Sides {
    /// Kinds of the faces i = 0, i = ni, j = 0, j = nj.
    pub imin: BoundaryKind,
    pub imax: BoundaryKind,
    pub jmin: BoundaryKind,
    pub jmax: BoundaryKind,
}

impl Sides {
    /// Inlet at i = 0, outlet at i = ni, slip walls at j = 0 and j = nj.
    pub fn inviscid_channel() -> Self {
        Sides {
            imin: BoundaryKind::Inlet,
            imax: BoundaryKind::Outlet,
            jmin: BoundaryKind::InviscidWall,
            jmax: BoundaryKind::InviscidWall,
        }
    }

    /// The given kinds at i = 0 and i = ni; j = 0 and j = nj periodic with period `pitch` in y
    /// (block 0 connected to itself).
    pub fn periodic_in_j(imin: BoundaryKind, imax: BoundaryKind, pitch: f64) -> Self {
        let periodic = |donor_face, dy| {
            BoundaryKind::Interface(Connection {
                donor_block: 0,
                donor_face,
                donor_start: 0,
                reversed: false,
                translation: [0.0, dy],
            })
        };
        // The j = 0 side sees the j = nj cells shifted down by one pitch, and vice versa.
        Sides { imin, imax, jmin: periodic(Face::JMax, -pitch), jmax: periodic(Face::JMin, pitch) }
    }

    /// Periodic in both i (period `lx`) and j (period `ly`): a doubly periodic box.
    pub fn doubly_periodic(lx: f64, ly: f64) -> Self {
        let conn = |donor_face, t| {
            BoundaryKind::Interface(Connection {
                donor_block: 0,
                donor_face,
                donor_start: 0,
                reversed: false,
                translation: t,
            })
        };
        Sides {
            imin: conn(Face::IMax, [-lx, 0.0]),
            imax: conn(Face::IMin, [lx, 0.0]),
            jmin: conn(Face::JMax, [0.0, -ly]),
            jmax: conn(Face::JMin, [0.0, ly]),
        }
    }
}

/// A block of `ni x nj` cells whose node `(i, j)` is at `position(i, j)`, one patch per face.
pub fn block_from_fn(name: &str, ni: usize, nj: usize, sides: &Sides, position: impl Fn(usize, usize) -> [f64; 2]) -> Block {
    let mut x = Vec::with_capacity((ni + 1) * (nj + 1));
    let mut y = Vec::with_capacity((ni + 1) * (nj + 1));
    for j in 0..=nj {
        for i in 0..=ni {
            let p = position(i, j);
            x.push(p[0]);
            y.push(p[1]);
        }
    }
    let patch = |face, end, kind: &BoundaryKind| Patch { face, start: 0, end, kind: kind.clone() };
    Block {
        name: name.to_string(),
        ni,
        nj,
        x,
        y,
        patches: vec![
            patch(Face::IMin, nj, &sides.imin),
            patch(Face::IMax, nj, &sides.imax),
            patch(Face::JMin, ni, &sides.jmin),
            patch(Face::JMax, ni, &sides.jmax),
        ],
    }
}

fn check_counts(what: &str, nx: usize, ny: usize) -> Result<()> {
    if nx == 0 || ny == 0 {
        return Err(Error::Mesh(format!("{what}: need at least one cell each way, got {nx} x {ny}")));
    }
    Ok(())
}

fn check_lengths(what: &str, lx: f64, ly: f64) -> Result<()> {
    if !(lx > 0.0 && ly > 0.0 && lx.is_finite() && ly.is_finite()) {
        return Err(Error::Mesh(format!("{what}: lengths must be positive and finite, got {lx} x {ly}")));
    }
    Ok(())
}

/// Pitch of a mesh whose sides are periodic in j (the y translation), else 0.
fn pitch_of(sides: &Sides) -> f64 {
    match &sides.jmax {
        BoundaryKind::Interface(c) if c.translation[0] == 0.0 => c.translation[1].abs(),
        _ => 0.0,
    }
}

/// Uniform Cartesian channel `[0, lx] x [0, ly]` with `nx x ny` cells.
pub fn channel(nx: usize, ny: usize, lx: f64, ly: f64, sides: Sides) -> Result<Mesh> {
    check_counts("channel", nx, ny)?;
    check_lengths("channel", lx, ly)?;
    let block = block_from_fn("channel", nx, ny, &sides, |i, j| [lx * i as f64 / nx as f64, ly * j as f64 / ny as f64]);
    Ok(Mesh { blocks: vec![block], pitch: pitch_of(&sides) })
}

/// Channel `[0, lx] x [0, ly]` periodic in y (pitch `ly`), with `imin`/`imax` at the ends.
pub fn periodic_channel(nx: usize, ny: usize, lx: f64, ly: f64, imin: BoundaryKind, imax: BoundaryKind) -> Result<Mesh> {
    channel(nx, ny, lx, ly, Sides::periodic_in_j(imin, imax, ly))
}

/// Sod shock tube: `n x 1` square cells over `[0, length]`, slip walls on all four sides
/// (the waves must not reach the ends within the compared time).
pub fn shock_tube(n: usize, length: f64) -> Result<Mesh> {
    check_counts("shock tube", n, 1)?;
    let sides = Sides {
        imin: BoundaryKind::InviscidWall,
        imax: BoundaryKind::InviscidWall,
        jmin: BoundaryKind::Symmetry,
        jmax: BoundaryKind::Symmetry,
    };
    channel(n, 1, length, length / n as f64, sides)
}

/// Smooth subsonic channel with a Gaussian bump on the lower wall, the inviscid
/// order-of-accuracy case of the International Workshops on High-Order CFD Methods
/// ("smooth Gaussian bump"): x in [-1.5, 1.5], lower wall y = 0.0625 exp(-25 x^2), upper
/// wall y = 0.8. Nodes uniform in x and evenly spaced between the walls at each x.
/// Inlet at x = -1.5, outlet at x = 1.5, slip walls. Use `nx = 3 ny` (x8 steps) for a
/// nested family.
pub fn gaussian_bump_channel(nx: usize, ny: usize) -> Result<Mesh> {
    check_counts("gaussian bump channel", nx, ny)?;
    let block = block_from_fn("bump", nx, ny, &Sides::inviscid_channel(), |i, j| {
        let x = -1.5 + 3.0 * i as f64 / nx as f64;
        let lower = 0.0625 * (-25.0 * x * x).exp();
        let eta = j as f64 / ny as f64;
        [x, lower + eta * (0.8 - lower)]
    });
    Ok(Mesh { blocks: vec![block], pitch: 0.0 })
}

/// Curvilinear mesh of `[0, lx] x [0, ly]` with interior nodes moved sinusoidally:
/// `x = X + a lx s`, `y = Y + a ly s`, `s = sin(2 pi X/lx) sin(2 pi Y/ly)`. Boundary nodes stay
/// on the straight sides, so the box can be periodic. For free-stream preservation tests;
/// `amplitude` a up to ~0.1 keeps all cells convex. Fails if a cell folds.
pub fn wavy_channel(nx: usize, ny: usize, lx: f64, ly: f64, amplitude: f64, sides: Sides) -> Result<Mesh> {
    check_counts("wavy channel", nx, ny)?;
    check_lengths("wavy channel", lx, ly)?;
    let block = block_from_fn("wavy", nx, ny, &sides, |i, j| {
        let (xx, yy) = (lx * i as f64 / nx as f64, ly * j as f64 / ny as f64);
        let s = (2.0 * PI * i as f64 / nx as f64).sin() * (2.0 * PI * j as f64 / ny as f64).sin();
        [xx + amplitude * lx * s, yy + amplitude * ly * s]
    });
    check_positive_areas("wavy channel", &block)?;
    Ok(Mesh { blocks: vec![block], pitch: pitch_of(&sides) })
}

fn check_positive_areas(what: &str, block: &Block) -> Result<()> {
    let p = |i, j| [block.x[block.node(i, j)], block.y[block.node(i, j)]];
    for j in 0..block.nj {
        for i in 0..block.ni {
            let (area, _) = quad_area_centroid(p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            if area <= 0.0 {
                return Err(Error::Mesh(format!("{what}: cell ({i}, {j}) is folded (area {area:e}); lower the distortion")));
            }
        }
    }
    Ok(())
}

/// One-sided hyperbolic-tangent distribution on [0, 1] with `n` intervals, clustered at 0 with
/// first interval `first` (a fraction of the length):
/// `s(xi) = sinh(d xi) / (sinh d cosh(d (1 - xi)))`, the form `1 + tanh(d (xi - 1)) / tanh d`
/// of Vinokur (J. Comput. Phys. 50, 1983) written without cancellation; `d` by bisection.
/// `first >= 1/n` (no clustering needed) gives the uniform distribution.
pub fn one_sided_tanh(n: usize, first: f64) -> Result<Vec<f64>> {
    if n == 0 || !(first > 0.0) {
        return Err(Error::Mesh(format!("tanh distribution: need n > 0 and first spacing > 0, got n = {n}, first = {first}")));
    }
    let uniform: Vec<f64> = (0..=n).map(|k| k as f64 / n as f64).collect();
    if first >= 1.0 / n as f64 {
        return Ok(uniform);
    }
    let s = |d: f64, xi: f64| (d * xi).sinh() / (d.sinh() * (d * (1.0 - xi)).cosh());
    let d = stretching_parameter("tanh distribution", n, first, s)?;
    let mut out: Vec<f64> = uniform.iter().map(|&xi| s(d, xi)).collect();
    out[0] = 0.0;
    out[n] = 1.0;
    Ok(out)
}

/// Two-sided stretching on [0, 1] with `n` intervals whose end slopes give first interval
/// `first` and last interval `last` (fractions of the length), after Vinokur (J. Comput. Phys.
/// 50, 1983): with `A = sqrt(last/first)` and `B = 1/(n sqrt(first last))`, solve
/// `sinh(d)/d = B` (B > 1) or `sin(d)/d = B` (B < 1), take
/// `u = 1/2 (1 + tanh(d (xi - 1/2)) / tanh(d/2))` (tan for B < 1) and `s = u / (A + (1 - A) u)`.
/// The end slopes are matched exactly, so the first and last intervals match `first` and
/// `last` to first order in the local growth.
pub fn vinokur_two_sided(n: usize, first: f64, last: f64) -> Result<Vec<f64>> {
    if n == 0 || !(first > 0.0 && last > 0.0 && first < 1.0 && last < 1.0) {
        return Err(Error::Mesh(format!(
            "two-sided stretching: need n > 0 and end spacings in (0, 1), got n = {n}, {first}, {last}"
        )));
    }
    let a = (last / first).sqrt();
    let b = 1.0 / (n as f64 * (first * last).sqrt());
    let bisect = |f: &dyn Fn(f64) -> f64, mut lo: f64, mut hi: f64| {
        // f increasing on [lo, hi] with f(lo) < 0 < f(hi).
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if f(mid) > 0.0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let u: Box<dyn Fn(f64) -> f64> = if (b - 1.0).abs() < 1e-12 {
        Box::new(|xi| xi)
    } else if b > 1.0 {
        let mut hi: f64 = 1.0;
        while hi.sinh() / hi < b {
            hi *= 2.0;
            if hi > 700.0 {
                return Err(Error::Mesh(format!("two-sided stretching: end spacings {first:e}, {last:e} too small for {n} intervals")));
            }
        }
        let d = bisect(&|d: f64| d.sinh() / d - b, 1e-12, hi);
        Box::new(move |xi| 0.5 * (1.0 + (d * (xi - 0.5)).tanh() / (0.5 * d).tanh()))
    } else {
        // sin(d)/d falls from 1 to 0 on (0, pi).
        let d = bisect(&|d: f64| b - d.sin() / d, 1e-12, PI - 1e-12);
        Box::new(move |xi| 0.5 * (1.0 + (d * (xi - 0.5)).tan() / (0.5 * d).tan()))
    };
    let mut out: Vec<f64> = (0..=n)
        .map(|k| {
            let v = u(k as f64 / n as f64);
            v / (a + (1.0 - a) * v)
        })
        .collect();
    out[0] = 0.0;
    out[n] = 1.0;
    Ok(out)
}

/// The members of the nested NASA TMR flat-plate grid family (nodes streamwise x normal).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlatPlateGrid {
    /// 69 x 49 nodes (68 x 48 cells).
    N69x49,
    N137x97,
    N273x193,
    N545x385,
}

impl FlatPlateGrid {
    /// Node stride in the finest (545 x 385) grid.
    fn stride(self) -> usize {
        match self {
            FlatPlateGrid::N69x49 => 8,
            FlatPlateGrid::N137x97 => 4,
            FlatPlateGrid::N273x193 => 2,
            FlatPlateGrid::N545x385 => 1,
        }
    }
}

/// Inlet plane of the TMR flat-plate grid.
const PLATE_X_INLET: f64 = -0.33333;
/// Cells of the finest flat-plate grid: upstream of the leading edge, stretched along the
/// plate up to `PLATE_X_UNIFORM`, uniform from there to x = 2, and normal to the plate.
const PLATE_UPSTREAM_CELLS: usize = 96;
const PLATE_STRETCHED_CELLS: usize = 352;
const PLATE_UNIFORM_CELLS: usize = 96;
const PLATE_NORMAL_CELLS: usize = 384;
/// Where the streamwise spacing becomes uniform (a node of every grid, the TMR skin-friction
/// station x = 0.97008).
const PLATE_X_UNIFORM: f64 = 0.970084048409;
/// Spacings \[m\] of the finest grid, fitted to the nodes of the TMR 69 x 49 grid (see
/// [`tmr_flat_plate`]).
const PLATE_LE_SPACING: f64 = 9.990213e-4;
const PLATE_SPACING_AT_UNIFORM: f64 = 1.0114669e-2;
const UPSTREAM_LE_SPACING: f64 = 1.0e-3;
const WALL_SPACING: f64 = 5.0e-7;

/// One-sided sinh stretching on [0, 1] with `n` intervals, clustered at 0 with first interval
/// `first`: `s(xi) = sinh(b xi) / sinh(b)`, `b` by bisection. The spacing grows slowly at first
/// and then geometrically (ratio `exp(b/n)`), the character of the TMR flat-plate grids.
pub fn sinh_stretching(n: usize, first: f64) -> Result<Vec<f64>> {
    if n == 0 || !(first > 0.0 && first < 1.0 / n as f64) {
        return Err(Error::Mesh(format!("sinh stretching: need n > 0 and 0 < first < 1/n, got n = {n}, first = {first}")));
    }
    let s = |b: f64, xi: f64| (b * xi).sinh() / b.sinh();
    let b = stretching_parameter("sinh stretching", n, first, s)?;
    let mut out: Vec<f64> = (0..=n).map(|k| s(b, k as f64 / n as f64)).collect();
    out[0] = 0.0;
    out[n] = 1.0;
    Ok(out)
}

/// The NASA Turbulence Modeling Resource 2D zero-pressure-gradient flat plate grid
/// (M = 0.2, Re = 5e6 per unit length): x in [-0.33333, 2], y in [0, 1], plate (no-slip
/// [`BoundaryKind::Wall`]) for x >= 0, [`BoundaryKind::Symmetry`] upstream of it,
/// [`BoundaryKind::Inlet`] at x = -0.33333, [`BoundaryKind::Outlet`] at x = 2 and on the top
/// y = 1 (TMR uses a farfield/characteristic condition there; our static-pressure outlet is the
/// nearest kind and lets the displacement flow leave).
///
/// Like the TMR family, coarser grids are every other node of the next finer one (the finest,
/// 545 x 385, is built and subsampled), with the leading edge at node 96 of 544 on the finest
/// grid (12 of 68 on 69 x 49). The TMR files are not part of this project; the distributions
/// were matched to the nodes of the TMR 69 x 49 grid as republished in SU2's V&V collection:
/// - wall-normal: [`sinh_stretching`] with first spacing 5e-7 (finest; ~1e-6 on 273 x 193):
///   reproduces the TMR rows to 1e-10 (relative);
/// - upstream: [`sinh_stretching`] from the leading edge with first spacing 1e-3: reproduces
///   the TMR nodes to 1e-10;
/// - along the plate: [`vinokur_two_sided`] from 9.990213e-4 at the leading edge to
///   1.0114669e-2 at x = 0.970084048409 (352 cells, end spacings fitted: nodes within 6e-6
///   relative), then 96 uniform cells to x = 2. Here ours differs: TMR's nodes beyond
///   x = 0.97 are not quite uniform (its first spacing there is 1.2 % smaller), so our nodes
///   between 0.97 and 2 sit up to 1e-3 (relative) off TMR's.
///
/// y+ of the first cell on 273 x 193 is below 0.4 along the whole plate (Re_x >= 1e4, White's
/// correlation, see [`crate::mesh::yplus`]).
/// Cell counts are multiples of 8 on 273 x 193 and finer (3 multigrid coarsenings).
pub fn tmr_flat_plate(grid: FlatPlateGrid) -> Result<Mesh> {
    let upstream = sinh_stretching(PLATE_UPSTREAM_CELLS, UPSTREAM_LE_SPACING / -PLATE_X_INLET)?;
    let plate = vinokur_two_sided(PLATE_STRETCHED_CELLS, PLATE_LE_SPACING / PLATE_X_UNIFORM, PLATE_SPACING_AT_UNIFORM / PLATE_X_UNIFORM)?;
    let normal = sinh_stretching(PLATE_NORMAL_CELLS, WALL_SPACING)?;
    // Upstream nodes from the inlet to the leading edge (`+ 0.0` turns -0.0 into 0.0).
    let mut xs: Vec<f64> = upstream.iter().rev().map(|&s| PLATE_X_INLET * s + 0.0).collect();
    xs.extend(plate.iter().skip(1).map(|&s| PLATE_X_UNIFORM * s));
    let uniform = (2.0 - PLATE_X_UNIFORM) / PLATE_UNIFORM_CELLS as f64;
    xs.extend((1..PLATE_UNIFORM_CELLS).map(|k| PLATE_X_UNIFORM + uniform * k as f64));
    xs.push(2.0);

    let stride = grid.stride();
    let ni = (PLATE_UPSTREAM_CELLS + PLATE_STRETCHED_CELLS + PLATE_UNIFORM_CELLS) / stride;
    let nj = PLATE_NORMAL_CELLS / stride;
    let i_le = PLATE_UPSTREAM_CELLS / stride;
    let sides = Sides {
        imin: BoundaryKind::Inlet,
        imax: BoundaryKind::Outlet,
        jmin: BoundaryKind::Wall,
        jmax: BoundaryKind::Outlet,
    };
    let mut block = block_from_fn("flat_plate", ni, nj, &sides, |i, j| [xs[i * stride], normal[j * stride]]);
    block.patches.retain(|p| p.face != Face::JMin);
    block.patches.push(Patch { face: Face::JMin, start: 0, end: i_le, kind: BoundaryKind::Symmetry });
    block.patches.push(Patch { face: Face::JMin, start: i_le, end: ni, kind: BoundaryKind::Wall });
    Ok(Mesh { blocks: vec![block], pitch: 0.0 })
}

/// Split block `b` at cell index `at` (0 < at < ni) into two blocks joined by a 1-to-1
/// connection: block `b` keeps cells `i < at`, a new last block gets cells `i >= at`. Patches
/// and every connection pointing into block `b` are split and re-pointed as needed.
pub fn split_i(mesh: &Mesh, b: usize, at: usize) -> Result<Mesh> {
    validate(mesh)?;
    let Some(old) = mesh.blocks.get(b) else {
        return Err(Error::Mesh(format!("split_i: no block {b} in a mesh of {}", mesh.blocks.len())));
    };
    if at == 0 || at >= old.ni {
        return Err(Error::Mesh(format!("split_i: cut {at} must lie in 1..{} for block {b}", old.ni)));
    }
    let new_b = mesh.blocks.len();
    let mut blocks = mesh.blocks.clone();

    // 1. Re-point every connection into block b: j-faces split at `at`, IMax moves to the new block.
    for block in &mut blocks {
        let mut patches = Vec::new();
        for patch in &block.patches {
            let conn = match &patch.kind {
                BoundaryKind::Interface(c) if c.donor_block == b => c.clone(),
                _ => {
                    patches.push(patch.clone());
                    continue;
                }
            };
            match conn.donor_face {
                Face::IMin => patches.push(patch.clone()),
                Face::IMax => patches.push(with_donor(patch, new_b, conn.donor_start)),
                Face::JMin | Face::JMax => {
                    // Cells k < cut face donors on one side of `at`, k >= cut on the other.
                    let len = patch.len();
                    let cut = if conn.reversed {
                        (conn.donor_start + len).saturating_sub(at).min(len)
                    } else {
                        at.saturating_sub(conn.donor_start).min(len)
                    };
                    for (o, l) in [(0, cut), (cut, len - cut)] {
                        if l == 0 {
                            continue;
                        }
                        let sub = sub_patch(patch, o, l);
                        let ds = donor_start(&sub);
                        patches.push(if ds >= at { with_donor(&sub, new_b, ds - at) } else { sub });
                    }
                }
            }
        }
        block.patches = patches;
    }

    // 2. Split the block itself.
    let src = blocks[b].clone();
    let (ni, nj) = (src.ni, src.nj);
    let take = |i0: usize, i1: usize| -> (Vec<f64>, Vec<f64>) {
        let mut x = Vec::new();
        let mut y = Vec::new();
        for j in 0..=nj {
            for i in i0..=i1 {
                x.push(src.x[src.node(i, j)]);
                y.push(src.y[src.node(i, j)]);
            }
        }
        (x, y)
    };
    let (xa, ya) = take(0, at);
    let (xb, yb) = take(at, ni);
    let mut pa = Vec::new();
    let mut pb = Vec::new();
    for patch in &src.patches {
        match patch.face {
            Face::IMin => pa.push(patch.clone()),
            Face::IMax => pb.push(patch.clone()),
            Face::JMin | Face::JMax => {
                if patch.start < at {
                    pa.push(sub_patch(patch, 0, patch.end.min(at) - patch.start));
                }
                if patch.end > at {
                    let o = at.saturating_sub(patch.start);
                    let mut s = sub_patch(patch, o, patch.len() - o);
                    s.start -= at;
                    s.end -= at;
                    pb.push(s);
                }
            }
        }
    }
    let interface = |donor_block, donor_face| {
        BoundaryKind::Interface(Connection { donor_block, donor_face, donor_start: 0, reversed: false, translation: [0.0, 0.0] })
    };
    pa.push(Patch { face: Face::IMax, start: 0, end: nj, kind: interface(new_b, Face::IMin) });
    pb.push(Patch { face: Face::IMin, start: 0, end: nj, kind: interface(b, Face::IMax) });
    blocks[b] = Block { name: format!("{}_a", src.name), ni: at, nj, x: xa, y: ya, patches: pa };
    blocks.push(Block { name: format!("{}_b", src.name), ni: ni - at, nj, x: xb, y: yb, patches: pb });
    Ok(Mesh { blocks, pitch: mesh.pitch })
}

/// The part of `patch` from offset `o` with `len` cells, its connection (if any) adjusted.
fn sub_patch(patch: &Patch, o: usize, len: usize) -> Patch {
    let kind = match &patch.kind {
        BoundaryKind::Interface(c) => {
            let donor_start =
                if c.reversed { c.donor_start + patch.len() - o - len } else { c.donor_start + o };
            BoundaryKind::Interface(Connection { donor_start, ..c.clone() })
        }
        k => k.clone(),
    };
    Patch { face: patch.face, start: patch.start + o, end: patch.start + o + len, kind }
}

fn donor_start(patch: &Patch) -> usize {
    match &patch.kind {
        BoundaryKind::Interface(c) => c.donor_start,
        _ => 0,
    }
}

fn with_donor(patch: &Patch, donor_block: usize, donor_start: usize) -> Patch {
    let mut p = patch.clone();
    if let BoundaryKind::Interface(c) = &mut p.kind {
        c.donor_block = donor_block;
        c.donor_start = donor_start;
    }
    p
}

/// Renumber block `b` by a half turn in index space (i -> ni - i, j -> nj - j; the geometry is
/// unchanged): its IMin becomes IMax and JMin becomes JMax, with offsets along faces reversed.
/// Connections from and into the block are updated, which turns straight connections into
/// reversed ones - the way to build reversed-interface test meshes.
pub fn rotate_180(mesh: &Mesh, b: usize) -> Result<Mesh> {
    validate(mesh)?;
    let Some(old) = mesh.blocks.get(b) else {
        return Err(Error::Mesh(format!("rotate_180: no block {b} in a mesh of {}", mesh.blocks.len())));
    };
    let (ni, nj) = (old.ni, old.nj);
    let opposite = |f: Face| match f {
        Face::IMin => Face::IMax,
        Face::IMax => Face::IMin,
        Face::JMin => Face::JMax,
        Face::JMax => Face::JMin,
    };
    let face_len = |f: Face| match f {
        Face::IMin | Face::IMax => nj,
        Face::JMin | Face::JMax => ni,
    };
    let mut blocks = mesh.blocks.clone();
    {
        let blk = &mut blocks[b];
        let n = blk.x.len();
        blk.x = (0..n).map(|k| old.x[n - 1 - k]).collect();
        blk.y = (0..n).map(|k| old.y[n - 1 - k]).collect();
        for p in &mut blk.patches {
            let len = face_len(p.face);
            (p.start, p.end) = (len - p.end, len - p.start);
            p.face = opposite(p.face);
            // Cell offsets along the patch now run backwards.
            if let BoundaryKind::Interface(c) = &mut p.kind {
                c.reversed = !c.reversed;
            }
        }
    }
    for blk in &mut blocks {
        for p in &mut blk.patches {
            let len = p.len();
            if let BoundaryKind::Interface(c) = &mut p.kind {
                if c.donor_block == b {
                    let n = face_len(c.donor_face);
                    c.donor_start = n - c.donor_start - len;
                    c.donor_face = opposite(c.donor_face);
                    c.reversed = !c.reversed;
                }
            }
        }
    }
    Ok(Mesh { blocks, pitch: mesh.pitch })
}

/// The stretching parameter p of a one-parameter distribution `s(p, xi)` whose first interval
/// `s(p, 1/n)` falls monotonically from 1/n (p -> 0) towards 0: bisection for `s(p, 1/n) = first`.
fn stretching_parameter(name: &str, n: usize, first: f64, s: impl Fn(f64, f64) -> f64) -> Result<f64> {
    let xi1 = 1.0 / n as f64;
    let (mut lo, mut hi) = (1e-8, 1.0);
    while s(hi, xi1) > first {
        hi *= 2.0;
        if hi > 700.0 {
            return Err(Error::Mesh(format!("{name}: first spacing {first:e} too small for {n} intervals")));
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if s(mid, xi1) > first {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}
