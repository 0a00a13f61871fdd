//! Time integration written once against [`crate::backend::Backend`] (docs/architecture.md, "layers"):
//! the explicit Runge-Kutta loop with local or global time stepping and residual smoothing,
//! convergence monitoring, the case configuration, and the implicit scheme with its FGMRES.

pub mod anderson;
pub mod config;
pub mod explicit;
pub mod implicit;
pub mod implicit_config;
pub mod krylov;
pub mod monitor;
pub mod multigrid;
pub mod newton_krylov;
pub mod restart;

pub use config::{Case, FlowModel, ResidualSmoothing, RkScheme, Scheme, SolverConfig, TimeStepping, VariableSmoothing};
pub use explicit::ExplicitSolver;
pub use implicit::{ImplicitOutcome, ImplicitReport, ImplicitSolver, StageStats, TimeBreakdown};
pub use implicit_config::{CflRamp, FromCoarserMesh, IluRefresh, ImplicitConfig, StageOperator};
pub use monitor::{Control, ConvergenceHistory, IterationRecord, Observer, Silent, SolveOutcome, StopSignal, Stoppable};
pub use multigrid::{Cycle, Multigrid};
pub use restart::{read_restart, write_restart, Restart};

use crate::backend::ImplicitBackend;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::flow::solution::{BlockSolution, Solution};
use crate::flow::state::conservative_from_primitive;
use crate::mesh::Mesh;
use crate::Result;

/// The interior state of `w` as a [`Solution`]. A model that does not march rho gamma leaves it
/// at its start while rho moves, so its intermittency is dropped (meaning gamma = 1) rather than
/// reported as rho gamma / rho.
pub(crate) fn downloaded_state<B: crate::backend::Backend>(backend: &B, geometry: &B::Geometry, w: &B::Field, physics: crate::backend::Physics) -> Solution {
    let mut solution = backend.download_state(geometry, w);
    if !physics.transports_intermittency() {
        solution.blocks.iter_mut().for_each(|b| b.intermittency.clear());
    }
    solution
}

/// A uniform state `[rho, u, v, p]` on every cell of `mesh` (nu_tilde = 0).
pub fn uniform_state(mesh: &Mesh, gas: &Gas, primitive: [f64; 4]) -> Solution {
    let w = conservative_from_primitive(gas.gamma, &primitive);
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            BlockSolution {
                ni: b.ni,
                nj: b.nj,
                rho: vec![w[0]; n],
                rho_u: vec![w[1]; n],
                rho_v: vec![w[2]; n],
                rho_e: vec![w[3]; n],
                nu_tilde: vec![0.0; n],
                intermittency: Vec::new(),
            }
        })
        .collect();
    Solution { blocks }
}

/// The isentropic state that the operating point's total conditions give at the outlet
/// static pressure, flowing in the inlet direction: the usual initial guess of a cascade run.
pub fn operating_point_state(gas: &Gas, op: &OperatingPoint) -> [f64; 4] {
    let gamma = gas.gamma;
    let t = op.t01 * (op.p2 / op.p01).powf((gamma - 1.0) / gamma);
    let speed = (2.0 * gas.cp() * (op.t01 - t)).max(0.0).sqrt();
    let alpha = op.alpha1_deg.to_radians();
    [op.p2 / (gas.gas_constant * t), speed * alpha.cos(), speed * alpha.sin(), op.p2]
}

/// The density residual of `state` on `mesh` (boundary conditions applied, the case's
/// discretization): what a solve started from `state` records at its first iteration. A solve
/// started from another flow counts its orders from it, so that it stops where a solve from
/// `state` would, never earlier: the monitor's own reference is the largest of the first
/// iterations' residuals, at least this one.
pub fn density_residual<B: ImplicitBackend>(backend: &B, mesh: &Mesh, case: &Case, state: &Solution) -> Result<f64> {
    case.validate()?;
    let g = backend.upload_geometry(mesh)?;
    let mut w = backend.upload_state(&g, state)?;
    let mut r = backend.new_field(&g);
    backend.apply_boundary_conditions(&g, &case.gas, &case.boundary_data(), &mut w);
    backend.convective_residual(&g, &case.gas, &case.convective_scheme(), &w, &mut r);
    backend.viscous_residual(&g, &case.gas, case.solver.model, &case.sa_options(), &w, &mut r);
    backend.check()?;
    Ok(backend.residual_norms(&g, &r)[0])
}

/// Solves `case` with the scheme its configuration names: explicit Runge-Kutta or implicit.
/// The implicit report comes back with implicit runs.
pub fn solve_case<B: ImplicitBackend>(
    backend: &B,
    mesh: &Mesh,
    case: Case,
    initial: &Solution,
    observer: &mut dyn Observer,
) -> Result<(SolveOutcome, Option<ImplicitReport>)> {
    match case.solver.scheme {
        Scheme::Explicit => {
            let mut solver = ExplicitSolver::new(backend, mesh, case)?;
            Ok((solver.solve(initial, observer)?, None))
        }
        Scheme::Implicit(_) => {
            let mut solver = ImplicitSolver::new(backend, mesh, case)?;
            let out = solver.solve(initial, observer)?;
            Ok((out.outcome, Some(out.report)))
        }
    }
}
