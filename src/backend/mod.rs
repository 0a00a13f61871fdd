//! The data-parallel operations the solver needs, behind one trait ("algorithms once, kernels
//! twice", docs/architecture.md, "layers").
//!
//! Every operation works on whole buffers that live in the backend (host memory for
//! [`cpu::CpuBackend`], device memory for a CUDA backend) and reads back at most a few scalars
//! (residual norms, the smallest time step). There are no per-cell callbacks: the solver in
//! `crate::solver` only sequences these operations.
//!
//! Data layout (docs/architecture.md, "data layout"): structure of arrays per block, i fastest, two ghost layers
//! on every side, so one variable of a block of `ni x nj` cells occupies `(ni+4)*(nj+4)` f64.
//! The conservative variables are `rho, rho*u, rho*v, rho*E, rho*nu_tilde` ([`NVAR`]).
//!
//! Conventions every backend keeps (checked by the verification tests, and by CPU/GPU parity):
//! - residuals are volume integrals, `R = sum over faces (F_c - F_v) . S_out - Omega Q`
//!   (thesis eq. 4.1), so the update is `dW/dt = -R / Omega`;
//! - face vectors: i-face `(i, j)` (node line i, row j, `(ni+1)*nj` of them) points to +i,
//!   j-face `(i, j)` (`ni*(nj+1)`) points to +j, with the face length as magnitude;
//! - wall, slip-wall and symmetry faces carry the pressure-only flux (thesis eq. 4.2 with
//!   V.n = 0), every other face the Roe flux of the MUSCL states built from the two cells on
//!   either side of it along the grid line (ghosts included), so boundary conditions act only
//!   through the ghost cells that [`Backend::apply_boundary_conditions`] fills;
//! - the convective residual is the first GPU kernel: input the state (with ghosts), the
//!   geometry and a [`ConvectiveScheme`]; output the whole residual field, overwritten.

pub mod choice;
pub mod cpu;
#[cfg(feature = "cuda")]
pub mod gpu;
pub mod implicit;
pub mod layout;
pub(crate) mod pool;
pub mod select;

use serde::{Deserialize, Serialize};

pub use crate::flow::boundary::BoundaryData;
use crate::flow::gas::Gas;
pub use crate::flow::muscl::Reconstruction;
pub use crate::flow::sa::SaSourceOptions;
use crate::flow::solution::Solution;
use crate::mesh::Mesh;
use crate::Result;

pub use choice::{BackendChoice, Devices};
pub use implicit::{ConvectiveJacobian, FactorPrecision, GramSchmidt, ImplicitBackend, JacobianOptions, PreconditionerKind, System};
pub use layout::{BlockLayout, NGHOST};
pub use select::{with_backend, BackendTask, OpenBackend};

/// Number of conservative variables stored per cell: 4 mean-flow, the SA working variable
/// rho nu~ ([`NFLOW`]) and the intermittency rho gamma ([`INTERMITTENCY`]).
pub const NVAR: usize = 6;
/// Number of mean-flow (Euler / Navier-Stokes) variables; also the slot of rho nu~.
pub const NFLOW: usize = 4;
/// The slot of rho gamma, the transported intermittency of [`Physics::SaGamma`]. The other
/// models keep gamma = 1 there (fully turbulent) and do not march it.
pub const INTERMITTENCY: usize = 5;

/// Physical model: which residual terms exist and how many variables are marched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Physics {
    /// Inviscid Euler equations (no-slip walls act as slip walls).
    Euler,
    /// Laminar Navier-Stokes (Sutherland viscosity).
    Laminar,
    /// Reynolds-averaged Navier-Stokes with the Spalart-Allmaras model (`flow::sa`).
    SpalartAllmaras,
    /// SA-BCM: SA-noft2 with the Bas-Cakmakcioglu intermittency on its production
    /// (`flow::sa::bcm_intermittency`), transition onset from the operating point's
    /// `turbulence_intensity`.
    SaBcm,
    /// SA-gamma: SA-noft2 with the intermittency of Menter's one-equation transport model
    /// (`flow::intermittency`) on its production and destruction, rho gamma a sixth marched
    /// variable; onset from the operating point's `turbulence_intensity`.
    SaGamma,
}

impl Physics {
    pub fn is_viscous(&self) -> bool {
        !matches!(self, Physics::Euler)
    }
    pub fn is_turbulent(&self) -> bool {
        matches!(self, Physics::SpalartAllmaras | Physics::SaBcm | Physics::SaGamma)
    }
    /// Whether rho gamma is transported.
    pub fn transports_intermittency(&self) -> bool {
        matches!(self, Physics::SaGamma)
    }
    /// The free-stream turbulence intensity of the intermittency terms: `sa.intermittency_tu`
    /// when this model transports rho gamma, `None` otherwise.
    pub fn intermittency_tu(&self, sa: &SaSourceOptions) -> Option<f64> {
        if self.transports_intermittency() {
            sa.intermittency_tu
        } else {
            None
        }
    }
    /// Variables the time integration updates (4 mean-flow, plus rho nu_tilde with SA, plus rho
    /// gamma with SA-gamma).
    pub fn n_marched(&self) -> usize {
        match self {
            Physics::Euler | Physics::Laminar => NFLOW,
            Physics::SpalartAllmaras | Physics::SaBcm => NFLOW + 1,
            Physics::SaGamma => NVAR,
        }
    }
}

/// Parameters of the convective residual: everything but the state and the metrics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConvectiveScheme {
    /// First order or MUSCL (kappa = 0) with the limiter of thesis eq. 4.13.
    pub reconstruction: Reconstruction,
    /// Harten entropy fix width as a fraction of the Roe-averaged |V| + c.
    pub entropy_fix: f64,
    /// Also convect rho nu_tilde (first-order upwind with the Roe mass flux, `flow::sa`).
    pub convect_nu_tilde: bool,
    /// Also convect rho gamma, the same way (SA-gamma).
    #[serde(default)]
    pub convect_intermittency: bool,
    /// Absolute limiter epsilon of thesis eq. 4.13 for the primitive variables
    /// `[rho, u, v, p]` (units squared; see `flow::muscl::limiter_epsilon`).
    pub limiter_epsilon: [f64; 4],
}

/// The operations a backend provides. `Field` holds [`NVAR`] cell variables of every block
/// (with ghosts), `Scalars` one value per interior cell, `Geometry` the metrics, boundary
/// descriptors and interface donor tables, resident in the backend.
pub trait Backend: Send + Sync {
    type Field: Send;
    type Scalars: Send;
    type Geometry: Send + Sync;
    /// Residual norms of several iterations kept in the backend between read-backs (device
    /// memory on a GPU), so that monitoring costs no host round trip per iteration.
    type NormLog: Send;

    /// Human-readable backend name (for diagnostics), e.g. "cpu (8 threads)".
    fn name(&self) -> String;


    /// Reports a failure of the backend itself (a device error in an earlier operation) and
    /// waits for queued work. Operations return nothing, so asynchronous backends keep their
    /// first error for this call; the solver calls it at every monitoring step.
    fn check(&self) -> Result<()> {
        Ok(())
    }

    /// Computes cell volumes, face vectors, boundary face tags and interface donor tables for
    /// `mesh` and stores them in the backend. Fails on inconsistent patches or connections.
    fn upload_geometry(&self, mesh: &Mesh) -> Result<Self::Geometry>;

    /// A zeroed field (interior and ghosts) shaped for `geometry`.
    fn new_field(&self, geometry: &Self::Geometry) -> Self::Field;
    /// A zeroed per-cell scalar buffer shaped for `geometry`.
    fn new_scalars(&self, geometry: &Self::Geometry) -> Self::Scalars;

    /// Copies interior conservative variables in; ghosts are left at zero until the next
    /// boundary update. Fails when the solution's block shapes don't match the geometry.
    fn upload_state(&self, geometry: &Self::Geometry, state: &Solution) -> Result<Self::Field>;
    /// Copies interior conservative variables out.
    fn download_state(&self, geometry: &Self::Geometry, field: &Self::Field) -> Solution;

    /// `dst = src` (interior and ghosts).
    fn copy_field(&self, src: &Self::Field, dst: &mut Self::Field);
    /// Sets every entry (interior and ghosts) to `value`.
    fn fill_field(&self, field: &mut Self::Field, value: f64);
    /// `y += a * x` on interior cells (forcing terms, manufactured sources).
    fn axpy_field(&self, a: f64, x: &Self::Field, y: &mut Self::Field);

    /// Fills both ghost layers of every physical boundary patch (walls, symmetry, inlet,
    /// outlet with characteristic treatment normal to the face) and of every interface (donor
    /// table gather), then the block corner ghosts.
    fn apply_boundary_conditions(&self, geometry: &Self::Geometry, gas: &Gas, data: &BoundaryData, w: &mut Self::Field);

    /// Convective residual: `r = sum over faces of F_c . S` (outward), Roe flux on MUSCL
    /// states, pressure-only flux on wall and symmetry faces (thesis eq. 4.2, 4.9-4.13).
    /// Input: the state with filled ghosts and the metrics. Output: `r` overwritten (the SA slot
    /// holds the upwind convection of rho nu_tilde when `scheme.convect_nu_tilde`, else zero;
    /// the intermittency slot that of rho gamma when `scheme.convect_intermittency`).
    fn convective_residual(&self, geometry: &Self::Geometry, gas: &Gas, scheme: &ConvectiveScheme, w: &Self::Field, r: &mut Self::Field);

    /// Viscous residual, added to `r`: central viscous fluxes with face gradients from
    /// Green-Gauss on auxiliary face-centred volumes (thesis 4.2.2, eq. 4.14), laminar plus eddy
    /// viscosity; with SA also the diffusion and source terms of rho nu_tilde (thesis eq. 4.1:
    /// R = sum (F_c - F_v) . S - Omega Q). Does nothing for [`Physics::Euler`].
    fn viscous_residual(&self, geometry: &Self::Geometry, gas: &Gas, physics: Physics, sa: &SaSourceOptions, w: &Self::Field, r: &mut Self::Field);

    /// Local time step `dt = cfl * vol / (Lambda_c^I + Lambda_c^J + 4 (Lambda_v^I + Lambda_v^J))`
    /// (Blazek eq. 6.18-6.22; viscous radii only for viscous physics).
    fn local_time_step(&self, geometry: &Self::Geometry, gas: &Gas, physics: Physics, cfl: f64, w: &Self::Field, dt: &mut Self::Scalars);
    /// Point-implicit factor of the Spalart-Allmaras equation for explicit schemes, per interior
    /// cell: `factor = 1 / (1 + dt max(0, -dQ/d(rho nu~)))` with Q the SA source per unit volume
    /// (`flow::sa::sa_source`). Near y+ ~ 1 walls the destruction rate 2 cw1 fw nu~/d^2 is many
    /// times the inverse of the convective/viscous time step, which an explicit RK scheme cannot
    /// follow; scaling the rho nu~ residual by this factor treats that part implicitly (Blazek
    /// sec. 12.6.3; the same linearization as the implicit scheme's SA diagonal). With SA-gamma
    /// (`sa.intermittency_tu` set) Q is SA's source coupled to the intermittency.
    fn turbulence_source_factor(&self, geometry: &Self::Geometry, gas: &Gas, sa: &SaSourceOptions, w: &Self::Field, dt: &Self::Scalars, factor: &mut Self::Scalars);
    /// Multiplies the rho nu~ residual of every interior cell by its `factor`.
    fn scale_turbulence_residual(&self, geometry: &Self::Geometry, factor: &Self::Scalars, r: &mut Self::Field);
    /// Point-implicit factor of SA-gamma's intermittency equation for explicit schemes, per
    /// interior cell: `factor = 1 / (1 + dt max(0, -dQ_gamma/d(rho gamma)))` with Q_gamma the
    /// intermittency source per unit volume (`flow::intermittency`; `sa.intermittency_tu` set).
    /// Its production rate F_length S F_onset is many times the inverse explicit time step in a
    /// shear layer, as SA's destruction is at a wall.
    fn intermittency_source_factor(&self, geometry: &Self::Geometry, gas: &Gas, sa: &SaSourceOptions, w: &Self::Field, dt: &Self::Scalars, factor: &mut Self::Scalars);
    /// Multiplies the rho gamma residual of every interior cell by its `factor`.
    fn scale_intermittency_residual(&self, geometry: &Self::Geometry, factor: &Self::Scalars, r: &mut Self::Field);

    /// Clamps the intermittency of every interior cell to [0, 1] (rho gamma to [0, rho]): gamma
    /// is a fraction, and an implicit step or explicit stage, whose source linearization keeps
    /// only the diagonal-strengthening part, can overshoot it where the production rate
    /// F_length S is large (SA-gamma only; `flow::intermittency`).
    fn bound_intermittency(&self, geometry: &Self::Geometry, w: &mut Self::Field);

    /// Smallest value of a scalar buffer (global time step for time-accurate runs).
    fn min_scalar(&self, s: &Self::Scalars) -> f64;
    /// Sets every entry to `value`.
    fn fill_scalars(&self, s: &mut Self::Scalars, value: f64);

    /// One stage of the low-storage Runge-Kutta scheme (thesis eq. 4.8):
    /// `w = w0 - alpha * dt / vol * r` on interior cells, for the first `nvar` variables.
    fn rk_stage_update(&self, geometry: &Self::Geometry, nvar: usize, alpha: f64, w0: &Self::Field, r: &Self::Field, dt: &Self::Scalars, w: &mut Self::Field);

    /// Central implicit residual smoothing with constant coefficients, one tridiagonal system
    /// per grid line, first along i then along j (thesis eq. 4.15).
    fn smooth_residual(&self, geometry: &Self::Geometry, nvar: usize, epsilon: [f64; 2], r: &mut Self::Field);
    /// Variable smoothing coefficients per interior cell (thesis eq. 4.16,
    /// `flow::spectral::smoothing_coefficients`) from the spectral radii of `w` (convective plus
    /// C times viscous, as in [`Backend::local_time_step`]): `eps[0]` along i, `eps[1]` along j.
    #[allow(clippy::too_many_arguments)]
    fn smoothing_coefficients(&self, geometry: &Self::Geometry, gas: &Gas, physics: Physics, cfl_ratio: f64, c: f64, w: &Self::Field, eps: &mut [Self::Scalars; 2]);
    /// Residual smoothing (thesis eq. 4.15) with the per-cell coefficients of
    /// [`Backend::smoothing_coefficients`].
    fn smooth_residual_variable(&self, geometry: &Self::Geometry, nvar: usize, eps: &[Self::Scalars; 2], r: &mut Self::Field);

    /// Root mean square over all interior cells of `r / vol` per variable.
    fn residual_norms(&self, geometry: &Self::Geometry, r: &Self::Field) -> [f64; NVAR];

    /// A norm log of `capacity` slots.
    fn new_norm_log(&self, capacity: usize) -> Self::NormLog;
    /// The norms of [`Backend::residual_norms`] into slot `slot` of `log`, not read back.
    fn log_residual_norms(&self, geometry: &Self::Geometry, r: &Self::Field, log: &mut Self::NormLog, slot: usize);
    /// The first `n` slots of `log`, read back at once; reports a pending backend failure as
    /// [`Backend::check`] does.
    fn read_norm_log(&self, log: &Self::NormLog, n: usize) -> Result<Vec<[f64; NVAR]>>;
    /// A recorded sequence of operations that the backend can replay (a CUDA graph); nothing on
    /// the CPU.
    type Recording;

    /// Runs `work`, a sequence of this backend's operations that is the same every time (same
    /// buffers, same parameters) and reads nothing back. A backend that can record launches
    /// records it into `recording` the first time and replays the recording afterwards without
    /// calling `work` again (the CUDA backend: one graph launch instead of hundreds of kernel
    /// launches); the default just calls `work`.
    fn run_recorded(&self, recording: &mut Option<Self::Recording>, work: &mut dyn FnMut()) -> Result<()> {
        let _ = recording;
        work();
        Ok(())
    }

    /// What crossed between host and device and how many launches ran so far, as one line for
    /// a report; None where nothing crosses (the CPU).
    fn traffic_report(&self) -> Option<String> {
        None
    }

    /// Iterations between norm read-backs that suit the backend: 1 on the CPU, where a norm is
    /// just a number; more on a GPU, where each read-back waits for all queued work and stalls
    /// the launch pipeline. Divergence is still caught within this many iterations.
    fn norm_readback_interval(&self) -> usize {
        1
    }

    /// Multigrid restriction of the state (FAS, Blazek sec. 9.3): each coarse cell gets the
    /// volume-weighted mean of its 2 x 2 fine cells. Block `b` of `coarse` is block `b` of `fine`
    /// agglomerated 2 x 2.
    fn restrict_state(&self, fine: &Self::Geometry, coarse: &Self::Geometry, w_fine: &Self::Field, w_coarse: &mut Self::Field);
    /// Multigrid restriction of a residual: residuals are volume integrals, so each coarse cell
    /// gets the sum over its 2 x 2 fine cells.
    fn restrict_residual(&self, fine: &Self::Geometry, coarse: &Self::Geometry, r_fine: &Self::Field, r_coarse: &mut Self::Field);
    /// Multigrid prolongation of the coarse-grid correction by injection:
    /// `w_fine += w_coarse - w_coarse_start` on the 2 x 2 fine cells of each coarse cell.
    fn prolong_correction(&self, coarse: &Self::Geometry, fine: &Self::Geometry, w_coarse: &Self::Field, w_coarse_start: &Self::Field, w_fine: &mut Self::Field);
}
