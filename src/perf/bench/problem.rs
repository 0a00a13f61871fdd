//! The benchmark's test problem: a RANS-SA channel flow of a chosen cell count, built the same
//! way for every backend so that the CPU and the GPU time the same work.
//!
//! Mesh: a channel of length [`LENGTH`] and height [`HEIGHT`] whose lower wall carries a smooth
//! bump (`y_w = BUMP sin^2(pi x / L)`, straight at inlet and outlet), no-slip at the lower wall,
//! slip at the upper one, inlet at x = 0, outlet at x = L. Grid lines are clustered at the
//! no-slip wall (first spacing [`WALL_SPACING`], y+ about 1 at these conditions) as a RANS mesh
//! is, and the channel is cut along x into [`BLOCKS`] blocks joined 1-to-1, so the boundary
//! update includes the donor-table interface exchange of the multi-block cascade meshes.
//!
//! The wall distance goes through the mesh metrics' bounding-box tree over the wall faces
//! (`mesh::metrics`), O(cells log wall faces): 1,416 wall faces at 1M cells, and all the
//! metrics of that mesh, wall distance included, took 1.1 s on a loaded 2-core machine; it is
//! not what limits the mesh size.
//!
//! State: a developing turbulent channel flow, not a uniform one, so that limiters, the
//! viscous fluxes and every branch of the SA source see realistic values: static pressure
//! falling linearly along the channel, isentropic core speed from the inlet total conditions,
//! a 1/7-power boundary layer thickening downstream, adiabatic-wall temperature
//! (`T = T01 - V^2 / (2 cp)`), the flow following the wall slope near the bump, and an eddy
//! viscosity profile `nu~ = 3 nu + kappa u_tau d exp(-(d/delta)^2)`.

use std::f64::consts::PI;

use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::{BlockSolution, Solution};
use crate::flow::state::conservative_from_primitive;
use crate::mesh::coarsen::coarsen;
use crate::mesh::simple::{block_from_fn, one_sided_tanh, split_i, Sides};
use crate::mesh::{BoundaryKind, Mesh};
use crate::solver::{Case, FlowModel, RkScheme, SolverConfig};
use crate::backend::{Reconstruction, NGHOST};
use crate::{Error, Result};

/// Smallest cell count: [`BLOCKS`] blocks that can each be coarsened once.
pub const MIN_CELLS: usize = 256;
/// Largest cell count: the fine and coarse buffers of the operation timings plus the solver's
/// own take about 1 kB per cell on the host (and most of that again on a GPU).
pub const MAX_CELLS: usize = 1 << 24;
/// Blocks along the channel.
pub const BLOCKS: usize = 4;
/// Channel length and height \[m\] (a turbine passage's scale).
pub const LENGTH: f64 = 0.1;
pub const HEIGHT: f64 = 0.025;
/// Bump height on the lower wall \[m\].
pub const BUMP: f64 = 0.1 * HEIGHT;
/// First cell height at the no-slip wall \[m\]: y+ ~ 1 for u_tau ~ 10 m/s, nu ~ 2.5e-5 m^2/s.
pub const WALL_SPACING: f64 = 2.5e-6;
/// CFL number of the timed iterations (the explicit default of `turbopt solve`).
pub const CFL: f64 = 1.0;

/// The RANS-SA channel case, its mesh (and the mesh once coarsened, for the multigrid
/// transfers) and its starting state.
pub struct TestProblem {
    pub mesh: Mesh,
    /// `mesh` agglomerated 2 x 2 (`mesh::coarsen`).
    pub coarse: Mesh,
    /// Air, LS89-like total conditions, RANS-SA, second order, 5-stage Runge-Kutta, CFL
    /// [`CFL`], local time steps, single grid, no residual smoothing.
    pub case: Case,
    pub initial: Solution,
    /// Cells along the channel (all blocks) and across it; `None` for a problem built on
    /// another mesh ([`TestProblem::on_mesh`]).
    pub shape: Option<(usize, usize)>,
    /// What the mesh is, for the report.
    pub label: String,
}

impl TestProblem {
    /// A problem of about `cells` cells (ni ~ 2 nj; ni a multiple of 2 x [`BLOCKS`] and nj
    /// even, so that every block coarsens once). Fails outside [`MIN_CELLS`]..=[`MAX_CELLS`].
    pub fn new(cells: usize) -> Result<Self> {
        if !(MIN_CELLS..=MAX_CELLS).contains(&cells) {
            return Err(Error::Other(format!("bench: {cells} cells requested; the bench mesh takes {MIN_CELLS} to {MAX_CELLS} cells")));
        }
        let (ni, nj) = grid_shape(cells);
        let mesh = bump_channel(ni, nj)?;
        let coarse = coarsen(&mesh)?;
        let gas = Gas::default();
        let operating_point = OperatingPoint { name: "bench".into(), p01: 1.6e5, t01: 420.0, alpha1_deg: 0.0, p2: 1.0e5, nu_tilde_ratio: 3.0, turbulence_intensity: None };
        let initial = channel_flow_state(&mesh, &gas, &operating_point);
        let solver = SolverConfig {
            model: FlowModel::SpalartAllmaras,
            reconstruction: Reconstruction::SecondOrder,
            rk: RkScheme::Blazek5Upwind,
            cfl: CFL,
            // The timing loop stops the solver itself (an observer); never converged.
            max_iterations: 1_000_000,
            convergence_orders: 30.0,
            ..SolverConfig::default()
        };
        let case = Case { gas, operating_point, solver };
        case.validate()?;
        let label = format!("bumped RANS channel {ni} x {nj} in {BLOCKS} blocks");
        Ok(TestProblem { mesh, coarse, case, initial, shape: Some((ni, nj)), label })
    }

    /// The problem of a given mesh, case and starting state (a cascade's own, for the
    /// performance model `crate::perf`): the same timings as on the channel, on that mesh.
    /// Fails when a block cannot be coarsened once (the multigrid transfers need it).
    pub fn on_mesh(mesh: Mesh, case: Case, initial: Solution, label: impl Into<String>) -> Result<Self> {
        case.validate()?;
        let coarse = coarsen(&mesh)?;
        Ok(TestProblem { mesh, coarse, case, initial, shape: None, label: label.into() })
    }

    /// Interior cells of the fine mesh.
    pub fn cells(&self) -> usize {
        self.mesh.n_cells()
    }

    /// Runge-Kutta stages of one iteration.
    pub fn stages(&self) -> usize {
        self.case.solver.rk.coefficients().len()
    }

    /// Cell counts the byte model needs.
    pub fn counts(&self) -> MeshCounts {
        MeshCounts::of(&self.mesh)
    }

    /// One line naming the mesh, e.g. "bumped RANS channel 1408 x 708 in 4 blocks (996,864 cells)".
    pub fn describe(&self) -> String {
        format!("{} ({} cells)", self.label, thousands(self.cells()))
    }
}

/// Interior cells, padded cells (with both ghost layers) and ghost cells the boundary update
/// fills (both layers along every block side, and the block corners).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MeshCounts {
    pub cells: usize,
    pub padded_cells: usize,
    pub boundary_ghosts: usize,
}

impl MeshCounts {
    pub fn of(mesh: &Mesh) -> Self {
        let g = NGHOST;
        let each = |f: &dyn Fn(usize, usize) -> usize| mesh.blocks.iter().map(|b| f(b.ni, b.nj)).sum();
        MeshCounts {
            cells: mesh.n_cells(),
            padded_cells: each(&|ni, nj| (ni + 2 * g) * (nj + 2 * g)),
            boundary_ghosts: each(&|ni, nj| 2 * g * (ni + nj) + 4 * g * g),
        }
    }
}

/// `ni x nj` close to `cells` with ni ~ 2 nj, nj even and ni a multiple of 2 x [`BLOCKS`].
fn grid_shape(cells: usize) -> (usize, usize) {
    let nj = 2 * ((cells as f64 / 2.0).sqrt() / 2.0).round().max(2.0) as usize;
    let step = 2 * BLOCKS;
    let ni = step * (cells as f64 / nj as f64 / step as f64).round().max(1.0) as usize;
    (ni, nj)
}

/// Height of the lower wall at `x`.
fn bump(x: f64) -> f64 {
    BUMP * (PI * x / LENGTH).sin().powi(2)
}

/// Slope angle of the lower wall at `x` [rad].
fn bump_angle(x: f64) -> f64 {
    (BUMP * PI / LENGTH * (2.0 * PI * x / LENGTH).sin()).atan()
}

fn bump_channel(ni: usize, nj: usize) -> Result<Mesh> {
    let across = one_sided_tanh(nj, WALL_SPACING / HEIGHT)?;
    let sides = Sides { imin: BoundaryKind::Inlet, imax: BoundaryKind::Outlet, jmin: BoundaryKind::Wall, jmax: BoundaryKind::InviscidWall };
    let block = block_from_fn("channel", ni, nj, &sides, |i, j| {
        let x = LENGTH * i as f64 / ni as f64;
        let wall = bump(x);
        [x, wall + (HEIGHT - wall) * across[j]]
    });
    let mut mesh = Mesh { blocks: vec![block], pitch: 0.0 };
    // Cut block 0 from the outlet end: it keeps i < cut, each new block takes the rest.
    let part = ni / BLOCKS;
    for k in (1..BLOCKS).rev() {
        mesh = split_i(&mesh, 0, k * part)?;
    }
    Ok(mesh)
}

/// The developing channel flow described in the module documentation, at every cell centre
/// (mean of its four nodes).
fn channel_flow_state(mesh: &Mesh, gas: &Gas, op: &OperatingPoint) -> Solution {
    let blocks = mesh
        .blocks
        .iter()
        .map(|block| {
            let n = block.n_cells();
            let mut s = BlockSolution { ni: block.ni, nj: block.nj, rho: vec![0.0; n], rho_u: vec![0.0; n], rho_v: vec![0.0; n], rho_e: vec![0.0; n], nu_tilde: vec![0.0; n], intermittency: Vec::new() };
            for j in 0..block.nj {
                for i in 0..block.ni {
                    let corners = [block.node(i, j), block.node(i + 1, j), block.node(i + 1, j + 1), block.node(i, j + 1)];
                    let x = corners.iter().map(|&k| block.x[k]).sum::<f64>() / 4.0;
                    let y = corners.iter().map(|&k| block.y[k]).sum::<f64>() / 4.0;
                    let (q, nu_tilde) = channel_flow_at(gas, op, x, y);
                    let w = conservative_from_primitive(gas.gamma, &q);
                    let c = i + block.ni * j;
                    (s.rho[c], s.rho_u[c], s.rho_v[c], s.rho_e[c], s.nu_tilde[c]) = (w[0], w[1], w[2], w[3], nu_tilde);
                }
            }
            s
        })
        .collect();
    Solution { blocks }
}

/// Primitive state `[rho, u, v, p]` and nu_tilde at `(x, y)`.
fn channel_flow_at(gas: &Gas, op: &OperatingPoint, x: f64, y: f64) -> ([f64; 4], f64) {
    let xi = x / LENGTH;
    let wall = bump(x);
    let d = (y - wall).max(0.0);
    let height = HEIGHT - wall;
    // Static pressure 30 % of the way from p2 to P01 at the inlet, p2 at the outlet.
    let p = op.p2 + 0.3 * (op.p01 - op.p2) * (1.0 - xi);
    let exponent = (gas.gamma - 1.0) / gas.gamma;
    let core_speed = (2.0 * gas.cp() * op.t01 * (1.0 - (p / op.p01).powf(exponent))).sqrt();
    let delta = HEIGHT * (0.05 + 0.15 * xi);
    let speed = core_speed * (d / delta).min(1.0).powf(1.0 / 7.0);
    let t = op.t01 - speed * speed / (2.0 * gas.cp());
    let rho = p / (gas.gas_constant * t);
    let angle = bump_angle(x) * (1.0 - d / height);
    let nu = gas.viscosity(t) / rho;
    let (kappa, u_tau) = (0.41, 0.04 * core_speed);
    let nu_tilde = op.nu_tilde_ratio * nu + kappa * u_tau * d * (-(d / delta).powi(2)).exp();
    ([rho, speed * angle.cos(), speed * angle.sin(), p], nu_tilde)
}

/// `1234567` as "1,234,567".
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, ch) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
