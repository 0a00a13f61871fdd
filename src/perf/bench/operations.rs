//! The backend operations the benchmark times one by one, the least memory traffic each must
//! move, and a workspace of backend buffers holding their inputs.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::problem::{MeshCounts, TestProblem, CFL};
use crate::backend::{Backend, BoundaryData, ConvectiveScheme, NVAR};
use crate::Result;

/// Bytes of one f64.
const F64: f64 = 8.0;
/// Variables the RANS-SA problem marches per cell: the four mean-flow ones and rho nu~.
const NV: f64 = 5.0;
/// Variables stored per cell (the intermittency slot too): what whole-field operations move.
const NS: f64 = NVAR as f64;
/// A cell's share of the face vectors: one i-face and one j-face, two components each.
const FACE_VECTORS: f64 = 4.0;
/// Constant residual-smoothing coefficient along i and j (the multigrid correction smoothing
/// of the `turbopt solve` explicit default).
pub const SMOOTHING_EPSILON: f64 = 1.0;

/// One backend operation of an explicit iteration or of a multigrid cycle. The names are those
/// of the [`Backend`] methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Operation {
    CopyField,
    ApplyBoundaryConditions,
    ConvectiveResidual,
    ViscousResidual,
    LocalTimeStep,
    TurbulenceSourceFactor,
    ScaleTurbulenceResidual,
    SmoothResidual,
    RkStageUpdate,
    ResidualNorms,
    RestrictState,
    RestrictResidual,
    ProlongCorrection,
}

impl Operation {
    /// Every timed operation, in the order of an explicit iteration, then the multigrid
    /// transfers.
    pub const ALL: [Operation; 13] = [
        Operation::CopyField,
        Operation::ApplyBoundaryConditions,
        Operation::ConvectiveResidual,
        Operation::ViscousResidual,
        Operation::LocalTimeStep,
        Operation::TurbulenceSourceFactor,
        Operation::ScaleTurbulenceResidual,
        Operation::SmoothResidual,
        Operation::RkStageUpdate,
        Operation::ResidualNorms,
        Operation::RestrictState,
        Operation::RestrictResidual,
        Operation::ProlongCorrection,
    ];

    /// The [`Backend`] method's name.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::CopyField => "copy_field",
            Operation::ApplyBoundaryConditions => "apply_boundary_conditions",
            Operation::ConvectiveResidual => "convective_residual",
            Operation::ViscousResidual => "viscous_residual",
            Operation::LocalTimeStep => "local_time_step",
            Operation::TurbulenceSourceFactor => "turbulence_source_factor",
            Operation::ScaleTurbulenceResidual => "scale_turbulence_residual",
            Operation::SmoothResidual => "smooth_residual",
            Operation::RkStageUpdate => "rk_stage_update",
            Operation::ResidualNorms => "residual_norms",
            Operation::RestrictState => "restrict_state",
            Operation::RestrictResidual => "restrict_residual",
            Operation::ProlongCorrection => "prolong_correction",
        }
    }

    /// The least traffic to and from memory per interior (fine) cell \[bytes\]: every input read
    /// once and every output written once, with perfect reuse of neighbour values (stencil
    /// neighbours and shared faces and nodes cost nothing extra), in f64 and with the SA
    /// model (5 variables marched of the 6 stored). Geometry per cell: 4 f64 of face vectors (one i- and one
    /// j-face), 2 of node coordinates, 2 of centroid, 1 volume, 1 wall distance. Boundary
    /// flags and index tables are not counted.
    ///
    /// | operation | reads | writes | bytes per cell |
    /// |---|---|---|---|
    /// | copy_field | W (6), ghosts included | W0 (6) | 96 x padded / interior cells |
    /// | apply_boundary_conditions | 6 per ghost (donor or mirrored interior cell) | 6 per ghost | 96 x ghosts / interior cells |
    /// | convective_residual | W (5), faces (4) | R (6) | 120 |
    /// | viscous_residual | W (5), faces (4), nodes (2), centroid (2), volume, wall distance, R (5) | R (5) | 200 |
    /// | local_time_step | W (5), faces (4), volume | dt | 88 |
    /// | turbulence_source_factor | W (5), faces (4), volume, wall distance, dt | factor | 104 |
    /// | scale_turbulence_residual | factor, R (SA slot) | R (SA slot) | 24 |
    /// | smooth_residual | R (5), once per direction | R (5), once per direction | 160 |
    /// | rk_stage_update | W0 (5), R (5), dt, volume | W (5) | 136 |
    /// | residual_norms | R (6), volume | - | 56 |
    /// | restrict_state | W (6), volume | 6/4 coarse values | 68 |
    /// | restrict_residual | R (6) | 6/4 coarse values | 60 |
    /// | prolong_correction | W (6), 2 x 6/4 coarse values | W (6) | 120 |
    pub fn bytes_per_cell(&self, counts: &MeshCounts) -> f64 {
        let per_cell = |n: usize| n as f64 / counts.cells as f64;
        let values = match self {
            Operation::CopyField => 2.0 * NS * per_cell(counts.padded_cells),
            Operation::ApplyBoundaryConditions => 2.0 * NS * per_cell(counts.boundary_ghosts),
            Operation::ConvectiveResidual => NV + FACE_VECTORS + NS,
            Operation::ViscousResidual => NV + FACE_VECTORS + 2.0 + 2.0 + 1.0 + 1.0 + 2.0 * NV,
            Operation::LocalTimeStep => NV + FACE_VECTORS + 1.0 + 1.0,
            Operation::TurbulenceSourceFactor => NV + FACE_VECTORS + 1.0 + 1.0 + 1.0 + 1.0,
            Operation::ScaleTurbulenceResidual => 3.0,
            Operation::SmoothResidual => 2.0 * 2.0 * NV,
            Operation::RkStageUpdate => 3.0 * NV + 2.0,
            Operation::ResidualNorms => NS + 1.0,
            Operation::RestrictState => NS + 1.0 + NS / 4.0,
            Operation::RestrictResidual => NS + NS / 4.0,
            Operation::ProlongCorrection => 2.0 * NS + 2.0 * NS / 4.0,
        };
        values * F64
    }
}

/// The operations of one single-grid explicit iteration of `stages` Runge-Kutta stages with
/// the SA model and no residual smoothing, each with the number of calls, in the order in which
/// `ExplicitSolver` (solver::explicit, `rk_iteration`) makes them: W0 = W; boundary conditions
/// before every stage; the local time step and the SA point-implicit factor once; per stage
/// the convective and viscous residual, the SA scaling and the stage update; and the norms of
/// the first stage's residual.
pub fn iteration_operations(stages: usize) -> [(Operation, usize); 9] {
    [
        (Operation::CopyField, 1),
        (Operation::ApplyBoundaryConditions, stages),
        (Operation::LocalTimeStep, 1),
        (Operation::TurbulenceSourceFactor, 1),
        (Operation::ConvectiveResidual, stages),
        (Operation::ViscousResidual, stages),
        (Operation::ResidualNorms, 1),
        (Operation::ScaleTurbulenceResidual, stages),
        (Operation::RkStageUpdate, stages),
    ]
}

/// Least traffic of one explicit iteration per cell and stage \[bytes\]: the sum over
/// [`iteration_operations`] divided by the number of stages.
pub fn iteration_bytes_per_cell_stage(stages: usize, counts: &MeshCounts) -> f64 {
    iteration_operations(stages).iter().map(|(op, calls)| *calls as f64 * op.bytes_per_cell(counts)).sum::<f64>() / stages as f64
}

/// Backend buffers of a [`TestProblem`] holding every operation's inputs, filled from the
/// problem's state: W with filled ghosts, W0, the full residual R, the time steps, the SA
/// factor, and the coarse-grid state before and after one Runge-Kutta step.
pub struct Workspace<'a, B: Backend> {
    backend: &'a B,
    problem: &'a TestProblem,
    scheme: ConvectiveScheme,
    boundary: BoundaryData,
    fine: B::Geometry,
    coarse: B::Geometry,
    w: B::Field,
    w0: B::Field,
    r: B::Field,
    /// R as computed once: restored before the operations that change R in place.
    r_start: B::Field,
    /// Output of the stage update (W stays the input of the other operations).
    w_next: B::Field,
    /// Target of the prolongation, restored to W before each call.
    w_corrected: B::Field,
    dt: B::Scalars,
    sa_factor: B::Scalars,
    /// Coarse state after the Runge-Kutta step, and W restricted (the start of the correction).
    w_coarse: B::Field,
    w_coarse_start: B::Field,
    r_coarse: B::Field,
}

impl<'a, B: Backend> Workspace<'a, B> {
    /// Uploads the fine and coarse geometry and the state, and computes every operation's
    /// inputs once.
    pub fn new(backend: &'a B, problem: &'a TestProblem) -> Result<Self> {
        let fine = backend.upload_geometry(&problem.mesh)?;
        let coarse = backend.upload_geometry(&problem.coarse)?;
        let w = backend.upload_state(&fine, &problem.initial)?;
        let field = || backend.new_field(&fine);
        let coarse_field = || backend.new_field(&coarse);
        let mut ws = Workspace {
            backend,
            problem,
            scheme: problem.case.convective_scheme(),
            boundary: problem.case.boundary_data(),
            w,
            w0: field(),
            r: field(),
            r_start: field(),
            w_next: field(),
            w_corrected: field(),
            dt: backend.new_scalars(&fine),
            sa_factor: backend.new_scalars(&fine),
            w_coarse: coarse_field(),
            w_coarse_start: coarse_field(),
            r_coarse: coarse_field(),
            fine,
            coarse,
        };
        ws.fill_inputs();
        backend.check()?;
        Ok(ws)
    }

    /// Every operation's inputs from the uploaded state, as an iteration's first stage makes
    /// them; one full Runge-Kutta step (alpha = 1) gives the coarse-grid correction
    /// (restricted W_next minus restricted W) something to carry.
    fn fill_inputs(&mut self) {
        for op in [
            Operation::ApplyBoundaryConditions,
            Operation::CopyField,
            Operation::ConvectiveResidual,
            Operation::ViscousResidual,
        ] {
            self.call(op);
        }
        self.backend.copy_field(&self.r, &mut self.r_start);
        for op in [
            Operation::LocalTimeStep,
            Operation::TurbulenceSourceFactor,
            Operation::ScaleTurbulenceResidual,
            Operation::RkStageUpdate,
            Operation::RestrictState,
        ] {
            self.call(op);
        }
        self.backend.restrict_state(&self.fine, &self.coarse, &self.w_next, &mut self.w_coarse);
    }

    /// The problem the buffers belong to.
    pub fn problem(&self) -> &TestProblem {
        self.problem
    }

    /// Wall time of one call of `op`: its in-place inputs restored, the backend synchronized,
    /// then the call and [`Backend::check`] (which waits for a GPU) inside the timed span.
    pub fn time_call(&mut self, op: Operation) -> Result<Duration> {
        self.restore(op);
        self.backend.check()?;
        let start = Instant::now();
        self.call(op);
        self.backend.check()?;
        Ok(start.elapsed())
    }

    /// Undoes what earlier calls of `op` did to its own input, so that repeated calls see the
    /// same values (repeated SA scaling would otherwise drive R towards denormal numbers).
    fn restore(&mut self, op: Operation) {
        match op {
            Operation::ViscousResidual | Operation::ScaleTurbulenceResidual | Operation::SmoothResidual => {
                self.backend.copy_field(&self.r_start, &mut self.r)
            }
            Operation::ProlongCorrection => self.backend.copy_field(&self.w, &mut self.w_corrected),
            _ => {}
        }
    }

    fn call(&mut self, op: Operation) {
        let (b, case) = (self.backend, &self.problem.case);
        let (gas, physics, sa) = (&case.gas, case.solver.model, &case.sa_options());
        let nvar = physics.n_marched();
        match op {
            Operation::CopyField => b.copy_field(&self.w, &mut self.w0),
            Operation::ApplyBoundaryConditions => b.apply_boundary_conditions(&self.fine, gas, &self.boundary, &mut self.w),
            Operation::ConvectiveResidual => b.convective_residual(&self.fine, gas, &self.scheme, &self.w, &mut self.r),
            Operation::ViscousResidual => b.viscous_residual(&self.fine, gas, physics, sa, &self.w, &mut self.r),
            Operation::LocalTimeStep => b.local_time_step(&self.fine, gas, physics, CFL, &self.w, &mut self.dt),
            Operation::TurbulenceSourceFactor => b.turbulence_source_factor(&self.fine, gas, sa, &self.w, &self.dt, &mut self.sa_factor),
            Operation::ScaleTurbulenceResidual => b.scale_turbulence_residual(&self.fine, &self.sa_factor, &mut self.r),
            Operation::SmoothResidual => b.smooth_residual(&self.fine, nvar, [SMOOTHING_EPSILON; 2], &mut self.r),
            Operation::RkStageUpdate => b.rk_stage_update(&self.fine, nvar, 1.0, &self.w0, &self.r, &self.dt, &mut self.w_next),
            Operation::ResidualNorms => {
                std::hint::black_box(b.residual_norms(&self.fine, &self.r));
            }
            Operation::RestrictState => b.restrict_state(&self.fine, &self.coarse, &self.w, &mut self.w_coarse_start),
            Operation::RestrictResidual => b.restrict_residual(&self.fine, &self.coarse, &self.r, &mut self.r_coarse),
            Operation::ProlongCorrection => b.prolong_correction(&self.coarse, &self.fine, &self.w_coarse, &self.w_coarse_start, &mut self.w_corrected),
        }
    }
}
