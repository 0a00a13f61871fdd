//! [`ImplicitBackend`] for the CPU backend: Jacobian assembly (`jacobian.rs`), the lead's
//! block-sparse preconditioners from `crate::linalg` on this backend's pool, and the Krylov
//! vectors as host vectors with `crate::linalg`'s chunked algebra (its reductions add fixed
//! chunks in order: the same figures on any number of threads).

use rayon::prelude::*;

use super::jacobian::{self, CpuJacobian};
use super::{rows_per_task, split_vars, CpuBackend, CpuField, CpuGeometry, CpuScalars};
use std::ops::Range;

use crate::backend::implicit::{FactorPrecision, ImplicitBackend, JacobianOptions, PreconditionerKind, System};
use crate::backend::{INTERMITTENCY, NFLOW, NGHOST, NVAR};
use crate::backend::BoundaryData;
use crate::flow::gas::Gas;
use crate::flow::state::primitive_from_conservative;
use crate::linalg::{self, BlockIlu0, BlockJacobi, Ordering, Preconditioner, StripIlu0};
use crate::{Error, Result};

/// Threads from which the CPU prefers the strip ILU ([`ImplicitBackend::preferred_preconditioner`]).
pub const STRIP_MIN_THREADS: usize = 4;

/// The mean-flow preconditioner of a [`CpuJacobian`].
pub enum FlowPreconditioner {
    Jacobi(BlockJacobi<4>),
    Ilu(SystemIlu<4>),
}

impl Preconditioner for FlowPreconditioner {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        match self {
            FlowPreconditioner::Jacobi(p) => p.apply(r, z),
            FlowPreconditioner::Ilu(p) => p.apply(r, z),
        }
    }
}

/// An ILU(0) of one system (mean flow: `B` = 4, SA: `B` = 1): over the whole matrix in one
/// ordering, or over strips.
pub enum SystemIlu<const B: usize> {
    Whole(BlockIlu0<B>),
    Strips(StripIlu0<B>),
}

impl<const B: usize> Preconditioner for SystemIlu<B> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        match self {
            SystemIlu::Whole(p) => p.apply(r, z),
            SystemIlu::Strips(p) => p.apply(r, z),
        }
    }
}

impl<const B: usize> SystemIlu<B> {
    /// The ILU(0) of `a` (on `jac`'s pattern) that `kind` asks for: over its strips for
    /// `StripIlu`, else in `ordering` with the Jacobi-swept triangular solves of `SweptIlu`.
    fn new(a: &linalg::BsrMatrix<B>, jac: &CpuJacobian, kind: PreconditionerKind, ordering: Ordering) -> std::result::Result<Self, String> {
        match kind {
            PreconditionerKind::StripIlu { strips, overlap } => StripIlu0::new(a, &jac.pattern.column_strips(strips), overlap).map(SystemIlu::Strips),
            _ => Ok(SystemIlu::Whole(swept(BlockIlu0::new(a, ordering)?, kind))),
        }
    }

    fn refactorize(&mut self, a: &linalg::BsrMatrix<B>) -> std::result::Result<(), String> {
        match self {
            SystemIlu::Whole(p) => p.refactorize(a),
            SystemIlu::Strips(p) => p.refactorize(a),
        }
    }
}

/// A factorized preconditioner of a [`CpuJacobian`]: the mean flow's of the chosen kind, and a
/// scalar ILU(0) of the SA system when it was assembled.
pub struct CpuPreconditioner {
    pub flow: FlowPreconditioner,
    pub turbulence: Option<SystemIlu<1>>,
    /// The intermittency system's scalar ILU(0) (SA-gamma).
    pub intermittency: Option<SystemIlu<1>>,
    /// The kind it was factorized as (the SA system's ILU follows it).
    kind: PreconditionerKind,
}

/// A scalar system's ILU(0) (`matrix`: the SA or the intermittency system of `jac`) for a
/// mean-flow preconditioner `kind`: natural ordering (also under the mean flow's `McIlu`), with
/// the swept solves of `SweptIlu`, over the strips of `StripIlu`.
fn scalar_ilu(matrix: &linalg::BsrMatrix<1>, jac: &CpuJacobian, kind: PreconditionerKind) -> std::result::Result<SystemIlu<1>, String> {
    SystemIlu::new(matrix, jac, kind, Ordering::Natural)
}

/// Refreshes (or makes, or drops) a scalar system's ILU after its matrix was reassembled.
fn refresh_scalar(pc: &mut Option<SystemIlu<1>>, assembled: bool, matrix: &linalg::BsrMatrix<1>, jac: &CpuJacobian, kind: PreconditionerKind) -> std::result::Result<(), String> {
    match (pc.as_mut(), assembled) {
        (Some(p), true) => p.refactorize(matrix),
        (None, true) => scalar_ilu(matrix, jac, kind).map(|p| *pc = Some(p)),
        (_, false) => {
            *pc = None;
            Ok(())
        }
    }
}

/// `ilu` with the triangular solves and factor precision of a `SweptIlu` kind (other kinds:
/// unchanged).
fn swept<const B: usize>(ilu: BlockIlu0<B>, kind: PreconditionerKind) -> BlockIlu0<B> {
    match kind {
        PreconditionerKind::SweptIlu { sweeps, factors } => {
            let ilu = ilu.with_jacobi_sweeps(sweeps);
            match factors {
                FactorPrecision::Double => ilu,
                FactorPrecision::Single => ilu.with_single_precision_factors(),
            }
        }
        _ => ilu,
    }
}

/// The field variables of `system`'s unknowns.
fn variables(system: System) -> Range<usize> {
    match system {
        System::MeanFlow => 0..NFLOW,
        System::Turbulence => NFLOW..NFLOW + 1,
        System::Intermittency => INTERMITTENCY..INTERMITTENCY + 1,
    }
}

fn factorization_error(e: String) -> Error {
    Error::Other(format!("preconditioner factorization failed: {e}"))
}

impl ImplicitBackend for CpuBackend {
    type Jacobian = CpuJacobian;
    type Preconditioner = CpuPreconditioner;
    type KrylovVector = Vec<f64>;

    fn new_jacobian(&self, g: &CpuGeometry) -> Result<CpuJacobian> {
        Ok(CpuJacobian::new(std::sync::Arc::new(jacobian::JacobianPattern::new(g)?)))
    }

    fn assemble_jacobian(
        &self,
        g: &CpuGeometry,
        gas: &Gas,
        data: &BoundaryData,
        options: &JacobianOptions,
        w: &CpuField,
        dt: Option<&CpuScalars>,
        jac: &mut CpuJacobian,
    ) {
        jacobian::assemble(self, g, gas, data, options, w, dt, jac);
    }

    fn is_assembled(&self, jac: &CpuJacobian, system: System) -> bool {
        match system {
            System::MeanFlow => true,
            System::Turbulence => jac.turbulent,
            System::Intermittency => jac.transition,
        }
    }

    /// Strip ILU from [`STRIP_MIN_THREADS`] threads on, the natural-order ILU below: the
    /// natural order's triangular solves are one chain of rows, which runs on one core, while
    /// 16 strips of 2-cell overlap run on 16 (LS89 medium on 16 cores 60.8 -> 21.5 s, T106C-class
    /// medium 36.6 -> 15.4 s, the rest of the solver unchanged; BENCHMARKS.md). The strips'
    /// weaker coupling costs 20-30 % more linear iterations, which one or two threads cannot win
    /// back (the default campaign's one-thread evaluations: 16 % more flow iterations).
    fn preferred_preconditioner(&self) -> PreconditionerKind {
        if self.threads() >= STRIP_MIN_THREADS {
            PreconditionerKind::StripIlu { strips: crate::backend::implicit::DEFAULT_STRIPS, overlap: crate::backend::implicit::DEFAULT_STRIP_OVERLAP }
        } else {
            PreconditionerKind::Ilu
        }
    }

    fn check_preconditioner(&self, kind: PreconditionerKind) -> Result<()> {
        match kind {
            PreconditionerKind::Jacobi | PreconditionerKind::Ilu | PreconditionerKind::McIlu | PreconditionerKind::SweptIlu { .. } | PreconditionerKind::StripIlu { .. } => Ok(()),
            PreconditionerKind::CusparseIlu | PreconditionerKind::Auto => Err(crate::backend::implicit::missing_preconditioner(kind, &crate::backend::Backend::name(self))),
        }
    }

    fn factorize(&self, jac: &CpuJacobian, kind: PreconditionerKind) -> Result<CpuPreconditioner> {
        self.check_preconditioner(kind)?;
        self.pool.install(|| {
            let flow = match kind {
                PreconditionerKind::Jacobi => BlockJacobi::new(&jac.matrix).map(FlowPreconditioner::Jacobi),
                PreconditionerKind::McIlu => SystemIlu::new(&jac.matrix, jac, kind, Ordering::Multicolour).map(FlowPreconditioner::Ilu),
                PreconditionerKind::Ilu | PreconditionerKind::SweptIlu { .. } | PreconditionerKind::StripIlu { .. } => {
                    SystemIlu::new(&jac.matrix, jac, kind, Ordering::Natural).map(FlowPreconditioner::Ilu)
                }
                PreconditionerKind::CusparseIlu | PreconditionerKind::Auto => Err(format!("{kind:?} is not a CPU preconditioner")),
            }?;
            let turbulence = if jac.turbulent { Some(scalar_ilu(&jac.turbulence, jac, kind)?) } else { None };
            let intermittency = if jac.transition { Some(scalar_ilu(&jac.intermittency, jac, kind)?) } else { None };
            Ok(CpuPreconditioner { flow, turbulence, intermittency, kind })
        })
        .map_err(factorization_error)
    }

    fn refactorize(&self, jac: &CpuJacobian, pc: &mut CpuPreconditioner) -> Result<()> {
        self.pool.install(|| {
            match &mut pc.flow {
                FlowPreconditioner::Jacobi(p) => *p = BlockJacobi::new(&jac.matrix)?,
                FlowPreconditioner::Ilu(p) => p.refactorize(&jac.matrix)?,
            }
            refresh_scalar(&mut pc.turbulence, jac.turbulent, &jac.turbulence, jac, pc.kind)?;
            refresh_scalar(&mut pc.intermittency, jac.transition, &jac.intermittency, jac, pc.kind)
        })
        .map_err(factorization_error)
    }

    fn has_system(&self, jac: &CpuJacobian, pc: &CpuPreconditioner, system: System) -> bool {
        match system {
            System::MeanFlow => true,
            System::Turbulence => jac.turbulent && pc.turbulence.is_some(),
            System::Intermittency => jac.transition && pc.intermittency.is_some(),
        }
    }

    fn new_krylov_vector(&self, jac: &CpuJacobian, system: System) -> Vec<f64> {
        vec![0.0; variables(system).len() * jac.n_cells()]
    }

    fn gather_rhs(&self, g: &CpuGeometry, jac: &CpuJacobian, system: System, r: &CpuField, scale: f64, b: &mut Vec<f64>) {
        jacobian::gather(g, jac, r, scale, variables(system), b);
    }

    fn scatter_solution(&self, g: &CpuGeometry, jac: &CpuJacobian, system: System, x: &Vec<f64>, dw: &mut CpuField) {
        jacobian::scatter(g, jac, x, variables(system), dw);
    }

    fn apply_operator(&self, jac: &CpuJacobian, system: System, x: &Vec<f64>, y: &mut Vec<f64>) {
        self.pool.install(|| match system {
            System::MeanFlow => jac.matrix.spmv(x, y),
            System::Turbulence => jac.turbulence.spmv(x, y),
            System::Intermittency => jac.intermittency.spmv(x, y),
        });
    }

    /// Panics when a scalar system was not factorized: callers check [`Self::has_system`] first.
    fn apply_preconditioner(&self, pc: &CpuPreconditioner, system: System, r: &Vec<f64>, z: &mut Vec<f64>) {
        self.pool.install(|| match system {
            System::MeanFlow => pc.flow.apply(r, z),
            System::Turbulence => pc.turbulence.as_ref().expect("the SA system is factorized").apply(r, z),
            System::Intermittency => pc.intermittency.as_ref().expect("the intermittency system is factorized").apply(r, z),
        });
    }

    fn dot(&self, a: &Vec<f64>, b: &Vec<f64>) -> f64 {
        linalg::dot(a, b)
    }

    fn norm2(&self, a: &Vec<f64>) -> f64 {
        linalg::norm2(a)
    }

    fn axpy(&self, alpha: f64, x: &Vec<f64>, y: &mut Vec<f64>) {
        linalg::axpy(alpha, x, y);
    }

    fn scale(&self, alpha: f64, x: &mut Vec<f64>) {
        linalg::scale(alpha, x);
    }

    fn divide(&self, x: &mut Vec<f64>, divisor: f64) {
        linalg::divide(x, divisor);
    }

    fn copy(&self, x: &Vec<f64>, y: &mut Vec<f64>) {
        y.copy_from_slice(x);
    }

    fn run_linear_solve<R: Send>(&self, solve: impl FnOnce() -> R + Send) -> R {
        self.pool.install(solve)
    }

    fn max_relative_change(&self, g: &CpuGeometry, gas: &Gas, w: &CpuField, dw: &CpuField) -> f64 {
        self.largest_relative_change(g, gas, w, NewState::Plus(dw))
    }

    fn relative_change_between(&self, g: &CpuGeometry, gas: &Gas, from: &CpuField, to: &CpuField) -> f64 {
        self.largest_relative_change(g, gas, from, NewState::Given(to))
    }

    /// Rows in tasks, each variable's slab on its own, as `rk_stage_update` does.
    fn add_time_term(&self, g: &CpuGeometry, dt: &CpuScalars, scale: f64, x: &CpuField, y: &mut CpuField) {
        self.pool.install(|| {
            y.blocks.par_iter_mut().enumerate().for_each(|(b, yb)| {
                let (bg, xb, dtb) = (&g.blocks[b], &x.blocks[b], &dt.blocks[b]);
                let l = bg.layout;
                let np = l.n_padded();
                for (v, yv) in split_vars(yb, np).into_iter().enumerate().take(NFLOW) {
                    yv.par_chunks_mut(l.stride()).enumerate().with_min_len(rows_per_task(l.stride())).skip(NGHOST).take(l.nj).for_each(|(jp, row)| {
                        let j = jp - NGHOST;
                        for i in 0..l.ni {
                            let c = i + l.ni * j;
                            row[i + NGHOST] += scale * bg.volume[c] / dtb[c] * xb[v * np + l.interior(i, j)];
                        }
                    });
                }
            });
        });
    }

    fn is_physical(&self, g: &CpuGeometry, gas: &Gas, w: &CpuField) -> bool {
        self.largest_relative_change(g, gas, w, NewState::Same) == 0.0
    }
}

/// The new state whose change from `w` [`CpuBackend::largest_relative_change`] measures.
#[derive(Clone, Copy)]
enum NewState<'a> {
    /// `w` itself: 0 when physical, infinite if not.
    Same,
    /// `w + dw`.
    Plus(&'a CpuField),
    /// Another state.
    Given(&'a CpuField),
}

impl CpuBackend {
    /// max(|d rho| / rho, |d p| / p) from `w` to `new` over the interior cells, infinite where
    /// `new` is not physical: density or pressure not positive, or any variable (the turbulence
    /// and transition unknowns too) not finite. Twin of `relative_change_partials`
    /// (cuda/reduce.cu).
    fn largest_relative_change(&self, g: &CpuGeometry, gas: &Gas, w: &CpuField, new: NewState) -> f64 {
        self.pool.install(|| {
            w.blocks
                .par_iter()
                .zip(&g.blocks)
                .enumerate()
                .map(|(b, (wb, bg))| {
                    let l = bg.layout;
                    let np = l.n_padded();
                    let mut worst: f64 = 0.0;
                    for j in 0..l.nj {
                        for i in 0..l.ni {
                            let p = l.interior(i, j);
                            let old: [f64; NVAR] = std::array::from_fn(|v| wb[v * np + p]);
                            let now: [f64; NVAR] = std::array::from_fn(|v| match new {
                                NewState::Same => old[v],
                                NewState::Plus(dw) => old[v] + dw.blocks[b][v * np + p],
                                NewState::Given(to) => to.blocks[b][v * np + p],
                            });
                            let primitive = |x: &[f64; NVAR]| primitive_from_conservative(gas.gamma, &[x[0], x[1], x[2], x[3]]);
                            let (q0, q1) = (primitive(&old), primitive(&now));
                            if !(q1[0] > 0.0 && q1[3] > 0.0 && q1.iter().chain(&now).all(|x| x.is_finite())) {
                                return f64::INFINITY;
                            }
                            worst = worst.max((q1[0] - q0[0]).abs() / q0[0]).max((q1[3] - q0[3]).abs() / q0[3]);
                        }
                    }
                    worst
                })
                .reduce(|| 0.0, f64::max)
        })
    }
}
