//! [`ImplicitBackend`] for the CPU backend: Jacobian assembly (`jacobian.rs`), the lead's
//! block-sparse preconditioners and FGMRES from `crate::linalg`, all on this backend's pool.

use rayon::prelude::*;

use super::jacobian::{self, CpuJacobian};
use super::{CpuBackend, CpuField, CpuGeometry, CpuScalars};
use crate::backend::implicit::{ImplicitBackend, JacobianOptions, PreconditionerKind, StageStats};
use crate::backend::{Backend, NFLOW, NVAR};
use crate::backend::BoundaryData;
use crate::flow::gas::Gas;
use crate::flow::state::primitive_from_conservative;
use crate::linalg::{fgmres, BlockIlu0, BlockJacobi, FgmresSettings, Ordering, Preconditioner};
use crate::{Error, Result};

/// The mean-flow preconditioner of a [`CpuJacobian`].
pub enum FlowPreconditioner {
    Jacobi(BlockJacobi<4>),
    Ilu(BlockIlu0<4>),
}

impl Preconditioner for FlowPreconditioner {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        match self {
            FlowPreconditioner::Jacobi(p) => p.apply(r, z),
            FlowPreconditioner::Ilu(p) => p.apply(r, z),
        }
    }
}

/// A factorized preconditioner of a [`CpuJacobian`]: the mean flow's of the chosen kind, and a
/// scalar ILU(0) of the SA system when it was assembled.
pub struct CpuPreconditioner {
    pub flow: FlowPreconditioner,
    pub turbulence: Option<BlockIlu0<1>>,
}

fn factorization_error(e: String) -> Error {
    Error::Other(format!("preconditioner factorization failed: {e}"))
}

impl ImplicitBackend for CpuBackend {
    type Jacobian = CpuJacobian;
    type Preconditioner = CpuPreconditioner;

    fn new_jacobian(&self, g: &CpuGeometry) -> Result<CpuJacobian> {
        CpuJacobian::new(g)
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

    fn jacobian_product(&self, g: &CpuGeometry, jac: &CpuJacobian, x: &CpuField, y: &mut CpuField) {
        let xv = jacobian::gather(g, jac, x, 1.0, 0..NFLOW);
        let mut yv = vec![0.0; xv.len()];
        self.pool.install(|| jac.matrix.spmv(&xv, &mut yv));
        self.fill_field(y, 0.0);
        jacobian::scatter(g, jac, &yv, 0..NFLOW, y);
        if jac.turbulent {
            let xv = jacobian::gather(g, jac, x, 1.0, NFLOW..NVAR);
            let mut yv = vec![0.0; xv.len()];
            self.pool.install(|| jac.turbulence.spmv(&xv, &mut yv));
            jacobian::scatter(g, jac, &yv, NFLOW..NVAR, y);
        }
    }

    fn factorize(&self, jac: &CpuJacobian, kind: PreconditionerKind) -> Result<CpuPreconditioner> {
        self.pool.install(|| {
            let flow = match kind {
                PreconditionerKind::Jacobi => BlockJacobi::new(&jac.matrix).map(FlowPreconditioner::Jacobi),
                PreconditionerKind::Ilu => BlockIlu0::new(&jac.matrix, Ordering::Natural).map(FlowPreconditioner::Ilu),
                PreconditionerKind::McIlu => BlockIlu0::new(&jac.matrix, Ordering::Multicolour).map(FlowPreconditioner::Ilu),
            }?;
            let turbulence = if jac.turbulent { Some(BlockIlu0::new(&jac.turbulence, Ordering::Natural)?) } else { None };
            Ok(CpuPreconditioner { flow, turbulence })
        })
        .map_err(factorization_error)
    }

    fn refactorize(&self, jac: &CpuJacobian, pc: &mut CpuPreconditioner) -> Result<()> {
        self.pool.install(|| {
            match &mut pc.flow {
                FlowPreconditioner::Jacobi(p) => *p = BlockJacobi::new(&jac.matrix)?,
                FlowPreconditioner::Ilu(p) => p.refactorize(&jac.matrix)?,
            }
            match (&mut pc.turbulence, jac.turbulent) {
                (Some(p), true) => p.refactorize(&jac.turbulence),
                (None, true) => BlockIlu0::new(&jac.turbulence, Ordering::Natural).map(|p| pc.turbulence = Some(p)),
                (_, false) => {
                    pc.turbulence = None;
                    Ok(())
                }
            }
        })
        .map_err(factorization_error)
    }

    fn solve_stage(
        &self,
        g: &CpuGeometry,
        jac: &CpuJacobian,
        pc: &CpuPreconditioner,
        alpha: f64,
        r: &CpuField,
        dw: &mut CpuField,
        settings: &FgmresSettings,
    ) -> StageStats {
        self.fill_field(dw, 0.0);
        let b = jacobian::gather(g, jac, r, -alpha, 0..NFLOW);
        let mut x = vec![0.0; b.len()];
        let flow = self.pool.install(|| fgmres(&|v, out| jac.matrix.spmv(v, out), &pc.flow, &b, &mut x, settings));
        jacobian::scatter(g, jac, &x, 0..NFLOW, dw);
        let turbulence = match (&pc.turbulence, jac.turbulent) {
            (Some(sa_pc), true) => {
                let b = jacobian::gather(g, jac, r, -alpha, NFLOW..NVAR);
                let mut x = vec![0.0; b.len()];
                let stats = self.pool.install(|| fgmres(&|v, out| jac.turbulence.spmv(v, out), sa_pc, &b, &mut x, settings));
                jacobian::scatter(g, jac, &x, NFLOW..NVAR, dw);
                Some(stats)
            }
            _ => None,
        };
        StageStats { flow, turbulence }
    }

    fn max_relative_change(&self, g: &CpuGeometry, gas: &Gas, w: &CpuField, dw: &CpuField) -> f64 {
        self.pool.install(|| {
            w.blocks
                .par_iter()
                .zip(&dw.blocks)
                .zip(&g.blocks)
                .map(|((wb, db), bg)| {
                    let l = bg.layout;
                    let np = l.n_padded();
                    let mut worst: f64 = 0.0;
                    for j in 0..l.nj {
                        for i in 0..l.ni {
                            let p = l.interior(i, j);
                            let old: [f64; 4] = std::array::from_fn(|v| wb[v * np + p]);
                            let new: [f64; 4] = std::array::from_fn(|v| wb[v * np + p] + db[v * np + p]);
                            let (q0, q1) = (primitive_from_conservative(gas.gamma, &old), primitive_from_conservative(gas.gamma, &new));
                            if !(q1[0] > 0.0 && q1[3] > 0.0 && q1.iter().all(|x| x.is_finite())) {
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

    fn is_physical(&self, g: &CpuGeometry, gas: &Gas, w: &CpuField) -> bool {
        self.pool.install(|| {
            w.blocks.par_iter().zip(&g.blocks).all(|(wb, bg)| {
                let l = bg.layout;
                let np = l.n_padded();
                (0..l.nj).all(|j| {
                    (0..l.ni).all(|i| {
                        let p = l.interior(i, j);
                        let q = primitive_from_conservative(gas.gamma, &[wb[p], wb[np + p], wb[2 * np + p], wb[3 * np + p]]);
                        q.iter().all(|x| x.is_finite()) && q[0] > 0.0 && q[3] > 0.0
                    })
                })
            })
        })
    }
}
