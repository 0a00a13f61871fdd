//! Test meshes and helpers shared by the solver verification tests.
#![allow(dead_code)]

use turbopt::flow::case::OperatingPoint;
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::Solution;
use turbopt::mesh::{Block, BoundaryKind, Connection, Face, Mesh, Patch};
use turbopt::solver::{uniform_state, Case, SolverConfig};

/// The larger of `a` and `b`, NaN when either is NaN. `f64::max` returns the other operand of a
/// NaN, so an error folded with it would hide the NaN and pass its bound.
pub fn max_or_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// The largest of `values` (0 for none), NaN when any is NaN: fails every `<= tolerance` check.
pub fn largest(values: impl IntoIterator<Item = f64>) -> f64 {
    values.into_iter().fold(0.0, max_or_nan)
}

/// The largest |a - b| over paired entries: NaN when an entry of either side is NaN (on both
/// sides too: a NaN matches nothing), infinite when one side is infinite and the other not.
pub fn max_abs_difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "the compared values differ in number");
    largest(a.iter().zip(b).map(|(x, y)| (x - y).abs()))
}

/// [`max_abs_difference`] relative to the largest |a|: 0 when the sides are equal, NaN as
/// above, infinite when `a` is all zero and `b` is not.
pub fn max_relative_difference(a: &[f64], b: &[f64]) -> f64 {
    let difference = max_abs_difference(a, b);
    if difference == 0.0 {
        0.0
    } else {
        difference / largest(a.iter().map(|x| x.abs()))
    }
}

/// Uniform state `[rho, u, v, p]` of the incidence channel case.
pub const CHANNEL_FREE_STREAM: [f64; 4] = [1.0, 0.5, 0.0, 1.0 / 1.4];

/// The solver tests' channel case on `mesh` (a [`distorted_channel`]): the uniform state
/// [`CHANNEL_FREE_STREAM`] as the start, entering at 10 degrees incidence against a back
/// pressure 3 % below the start's, so that the flow has to turn and speed up.
pub fn incidence_channel_case(mesh: &Mesh, solver: SolverConfig) -> (Case, Solution) {
    let gas = unit_gas();
    let mut op = operating_point_of(&gas, CHANNEL_FREE_STREAM);
    op.p2 *= 0.97;
    op.alpha1_deg = 10.0;
    let start = uniform_state(mesh, &gas, CHANNEL_FREE_STREAM);
    (Case { gas, operating_point: op, solver }, start)
}

/// A gas with R = 1 and gamma = 1.4 (non-dimensional tests: T = p / rho).
pub fn unit_gas() -> Gas {
    Gas { gas_constant: 1.0, gamma: 1.4, ..Gas::default() }
}

/// Operating point consistent with the uniform state `[rho, u, v, p]`: its total conditions,
/// flow angle and static pressure.
pub fn operating_point_of(gas: &Gas, q: [f64; 4]) -> OperatingPoint {
    let g = gas.gamma;
    let t = q[3] / (q[0] * gas.gas_constant);
    let m2 = (q[1] * q[1] + q[2] * q[2]) / (g * q[3] / q[0]);
    let factor = 1.0 + 0.5 * (g - 1.0) * m2;
    OperatingPoint {
        name: "test".into(),
        p01: q[3] * factor.powf(g / (g - 1.0)),
        t01: t * factor,
        alpha1_deg: q[2].atan2(q[1]).to_degrees(),
        p2: q[3],
        nu_tilde_ratio: 3.0,
        turbulence_intensity: None,
    }
}

/// Node displacement of the distorted channel: zero on x = 0 and x = lx (straight inlet and
/// outlet), periodic in y with period 1.
fn distortion(x: f64, y: f64, lx: f64, amplitude: f64) -> (f64, f64) {
    let pi2 = 2.0 * std::f64::consts::PI;
    let s = (std::f64::consts::PI * x / lx).sin();
    (amplitude * s * (pi2 * y).sin(), amplitude * s * (pi2 * y + 1.0).cos() * (pi2 * x / lx).cos())
}

/// Channel `[0, lx] x [0, 1]` split along x into `n_blocks` blocks of `ni x nj` cells, with
/// sinusoidally distorted interior nodes, inlet at x = 0, outlet at x = lx, 1-to-1 interfaces
/// between blocks and periodic j-faces (pitch 1).
pub fn distorted_channel(n_blocks: usize, ni: usize, nj: usize, lx: f64, amplitude: f64) -> Mesh {
    let ni_total = n_blocks * ni;
    let blocks = (0..n_blocks)
        .map(|b| {
            let mut x = Vec::with_capacity((ni + 1) * (nj + 1));
            let mut y = Vec::with_capacity((ni + 1) * (nj + 1));
            for j in 0..=nj {
                for i in 0..=ni {
                    let x0 = lx * (b * ni + i) as f64 / ni_total as f64;
                    let y0 = j as f64 / nj as f64;
                    let (dx, dy) = distortion(x0, y0, lx, amplitude);
                    x.push(x0 + dx);
                    y.push(y0 + dy);
                }
            }
            let periodic = |donor_face, ty: f64| {
                BoundaryKind::Interface(Connection { donor_block: b, donor_face, donor_start: 0, reversed: false, translation: [0.0, ty] })
            };
            let imin = if b == 0 {
                BoundaryKind::Inlet
            } else {
                BoundaryKind::Interface(Connection { donor_block: b - 1, donor_face: Face::IMax, donor_start: 0, reversed: false, translation: [0.0, 0.0] })
            };
            let imax = if b + 1 == n_blocks {
                BoundaryKind::Outlet
            } else {
                BoundaryKind::Interface(Connection { donor_block: b + 1, donor_face: Face::IMin, donor_start: 0, reversed: false, translation: [0.0, 0.0] })
            };
            let patches = vec![
                Patch { face: Face::IMin, start: 0, end: nj, kind: imin },
                Patch { face: Face::IMax, start: 0, end: nj, kind: imax },
                Patch { face: Face::JMin, start: 0, end: ni, kind: periodic(Face::JMax, -1.0) },
                Patch { face: Face::JMax, start: 0, end: ni, kind: periodic(Face::JMin, 1.0) },
            ];
            Block { name: format!("block{b}"), ni, nj, x, y, patches }
        })
        .collect();
    Mesh { blocks, pitch: 1.0 }
}

/// Shock tube `[0, 1]` as one row of `n` cells (height 1/n) with slip walls all around.
pub fn sod_tube(n: usize) -> Mesh {
    let h = 1.0 / n as f64;
    let mut x = Vec::new();
    let mut y = Vec::new();
    for j in 0..=1 {
        for i in 0..=n {
            x.push(i as f64 * h);
            y.push(j as f64 * h);
        }
    }
    let wall = |face, len| Patch { face, start: 0, end: len, kind: BoundaryKind::InviscidWall };
    let patches = vec![wall(Face::IMin, 1), wall(Face::IMax, 1), wall(Face::JMin, n), wall(Face::JMax, n)];
    Mesh { blocks: vec![Block { name: "tube".into(), ni: n, nj: 1, x, y, patches }], pitch: 0.0 }
}

/// Corner nodes of cell (i, j) of a block, counter-clockwise.
pub fn cell_corners(block: &Block, i: usize, j: usize) -> [[f64; 2]; 4] {
    let p = |i, j| [block.x[block.node(i, j)], block.y[block.node(i, j)]];
    [p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1)]
}

/// 3-point Gauss-Legendre nodes and weights on [0, 1].
pub const GAUSS3: [(f64, f64); 3] = [
    (0.5 - 0.387_298_334_620_741_7, 5.0 / 18.0),
    (0.5, 8.0 / 18.0),
    (0.5 + 0.387_298_334_620_741_7, 5.0 / 18.0),
];

/// Integral of `f` over the bilinear quad with corners `c` (3 x 3 Gauss points).
pub fn integrate_quad(c: &[[f64; 2]; 4], f: &dyn Fn(f64, f64) -> f64) -> f64 {
    let mut sum = 0.0;
    for (s, ws) in GAUSS3 {
        for (t, wt) in GAUSS3 {
            let map = |k: usize| {
                (1.0 - s) * (1.0 - t) * c[0][k] + s * (1.0 - t) * c[1][k] + s * t * c[2][k] + (1.0 - s) * t * c[3][k]
            };
            let dxds = (1.0 - t) * (c[1][0] - c[0][0]) + t * (c[2][0] - c[3][0]);
            let dyds = (1.0 - t) * (c[1][1] - c[0][1]) + t * (c[2][1] - c[3][1]);
            let dxdt = (1.0 - s) * (c[3][0] - c[0][0]) + s * (c[2][0] - c[1][0]);
            let dydt = (1.0 - s) * (c[3][1] - c[0][1]) + s * (c[2][1] - c[1][1]);
            sum += ws * wt * (dxds * dydt - dyds * dxdt) * f(map(0), map(1));
        }
    }
    sum
}

/// Channel `[0, lx] x [0, h]` of `ni x nj` uniform cells, periodic along x (pitch lx), no-slip
/// walls at y = 0 and y = h.
pub fn periodic_wall_channel(ni: usize, nj: usize, lx: f64, h: f64) -> Mesh {
    let mut x = Vec::new();
    let mut y = Vec::new();
    for j in 0..=nj {
        for i in 0..=ni {
            x.push(lx * i as f64 / ni as f64);
            y.push(h * j as f64 / nj as f64);
        }
    }
    let periodic = |donor_face, tx: f64| {
        BoundaryKind::Interface(Connection { donor_block: 0, donor_face, donor_start: 0, reversed: false, translation: [tx, 0.0] })
    };
    let patches = vec![
        Patch { face: Face::IMin, start: 0, end: nj, kind: periodic(Face::IMax, -lx) },
        Patch { face: Face::IMax, start: 0, end: nj, kind: periodic(Face::IMin, lx) },
        Patch { face: Face::JMin, start: 0, end: ni, kind: BoundaryKind::Wall },
        Patch { face: Face::JMax, start: 0, end: ni, kind: BoundaryKind::Wall },
    ];
    Mesh { blocks: vec![Block { name: "channel".into(), ni, nj, x, y, patches }], pitch: lx }
}

/// The coarse mesh of design `k` of the LS89 design-space draw (seed 17, the first `k + 1`
/// designs of the study in docs/design-space-study.md), meshed as a campaign meshes it for MUR47.
pub fn ls89_design_mesh(k: usize) -> Mesh {
    use turbopt::cascade::{BladeChoice, CascadeSetup, CheckedBlade};
    let file = turbopt::geometry::load_blade_file("blades/ls89.ron").unwrap();
    let design = turbopt::eval::study::draw_designs(&file.design_space().unwrap(), k + 1, 17).swap_remove(k);
    let setup = CascadeSetup::new(&file, vec![file.operating_point("MUR47").unwrap().clone()], turbopt::mesh::Density::Coarse);
    CheckedBlade::new(&file, BladeChoice::Design(&design), &setup).unwrap().mesh(&setup).unwrap().mesh
}
