//! Settings of the implicit scheme (thesis chapter 5): stages, CFL ramp, approximate Jacobian,
//! preconditioner, FGMRES and the on-demand ILU refresh of thesis 5.4.2.

use serde::{Deserialize, Serialize};

use super::krylov::FgmresSettings;
use crate::backend::{ConvectiveJacobian, GramSchmidt, PreconditionerKind};
use crate::{Error, Result};

/// When the preconditioner is refactorized (thesis 5.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IluRefresh {
    /// Every flow iteration (the standard ILU).
    EveryIteration,
    /// On demand: when the last linear solve needed more than MAX_ITR = a + b CFL iterations
    /// (thesis eq. 5.11), or `period` flow iterations after the last factorization (0: never
    /// periodically). The thesis used a = 0.5, b = 0.15 at CFL 50 (MAX_ITR = 8), period 20.
    /// The solver also refreshes after a rejected step and when the CFL moved by more than a
    /// factor 2 since the last factorization.
    OnDemand { a: f64, b: f64, period: usize },
}

impl IluRefresh {
    /// Whether to refactorize before this iteration's solves, given the iterations of the last
    /// linear solve, the current CFL and the flow iterations since the last factorization.
    pub fn needs_factorization(&self, last_linear_iterations: usize, cfl: f64, iterations_since: usize) -> bool {
        match *self {
            IluRefresh::EveryIteration => true,
            IluRefresh::OnDemand { a, b, period } => {
                last_linear_iterations as f64 > a + b * cfl || (period > 0 && iterations_since >= period)
            }
        }
    }
}

/// CFL ramp: start low, grow geometrically while the density residual falls, cut back when it
/// rises or a step gives a non-physical state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CflRamp {
    pub start: f64,
    /// The first CFL of a solve that starts from a converged flow: a design's warm start, a
    /// restart, a finer mesh's injected flow (`SolverConfig::residual_reference` given); `None`:
    /// `start`. Designs near the flow they start from need less of the ramp: LS89 test case 1's
    /// DE designs take 118 flow iterations from 25 against 130 from 5 (Kriging 108 against 121),
    /// the same best design. Designs far from it need more: 100 random designs of each blade's
    /// bounds took 5 % (LS89) and 17 % (T106C) more iterations from 25, some through the
    /// recovery chain, so the default starts every solve at `start` (BENCHMARKS.md).
    #[serde(default)]
    pub warm_start: Option<f64>,
    /// Target CFL (50-1000 for the implicit scheme; default 200: LS89 MUR47 RANS on the medium
    /// mesh converges 6 orders in 435 iterations at 200 against 908 at 50, BENCHMARKS.md).
    pub target: f64,
    /// Factor per flow iteration while the residual does not rise.
    pub growth: f64,
    /// Factor applied on a rise or a rejected step (0 < backoff < 1).
    pub backoff: f64,
    /// A rise means: density residual above `rise_factor` times the previous one.
    pub rise_factor: f64,
    /// The back-off never goes below this CFL.
    pub min: f64,
}

impl CflRamp {
    /// CFL of the next flow iteration from the current one and the density residuals of the
    /// previous and current iterations: back off (not below `min`) when the residual rose by
    /// more than `rise_factor`, grow towards the target when it did not rise, hold otherwise.
    pub fn next(&self, cfl: f64, previous: Option<f64>, current: f64) -> f64 {
        match previous {
            None => cfl,
            Some(p) if current > self.rise_factor * p => (cfl * self.backoff).max(self.min),
            Some(p) if current <= p => (cfl * self.growth).min(self.target),
            Some(_) => cfl,
        }
    }
}

impl Default for CflRamp {
    fn default() -> Self {
        CflRamp { start: 5.0, warm_start: None, target: 200.0, growth: 1.25, backoff: 0.5, rise_factor: 2.0, min: 0.5 }
    }
}

/// The `Implicit` scheme section of the solver configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ImplicitConfig {
    /// Runge-Kutta stages per flow iteration (1-6), each one FGMRES solve with the same matrix.
    pub stages: usize,
    /// Stage coefficients alpha_k of eq. 5.5 (length `stages`); `None`: 1 for every stage
    /// (each stage a full pseudo-time step with the frozen matrix).
    pub stage_coefficients: Option<Vec<f64>>,
    pub cfl: CflRamp,
    pub jacobian: ConvectiveJacobian,
    pub preconditioner: PreconditionerKind,
    /// FGMRES(m): restart m, relative tolerance (default 0.1), iteration cap per stage.
    pub gmres: FgmresSettings,
    /// FGMRES of the segregated scalar systems (SA, intermittency); `None` (default): `gmres`.
    /// Their solves are cheap in bytes but cost as many synchronizations per iteration as the
    /// mean flow's. A relative tolerance of 0.3 (SA 6-7 FGMRES iterations a stage instead of
    /// 11-12) took the H200's LS89 MUR47 coarse / medium / fine solves 7 / 14 / 10 % less time
    /// and the test case 1 campaigns 5-10 %, and converged more of 100 random T106C designs in
    /// 40 % fewer flow iterations; but it weakens the coupling to the mean flow elsewhere: T106C
    /// medium 231 flow iterations against 165, the CPU's LS89 medium (strip ILU) 300 against 236,
    /// 100 random LS89 designs 12 % more (BENCHMARKS.md). Hence an option.
    pub scalar_gmres: Option<FgmresSettings>,
    /// `scalar_gmres` only until the density residual has dropped this many orders below the
    /// solve's first one, the mean flow's `gmres` after; `None`: the whole solve. A loose
    /// turbulence solve early keeps the coupled iteration out of the limit cycles a tight one
    /// can lock it into; a tight one late keeps the final convergence: with 0.3 for the first
    /// 3 orders the H200 converged 96 of 100 random T106C designs at Re 200k (88 by default, 96
    /// with 0.3 throughout) in 30,277 flow iterations (48,938; 29,447), T106C medium in 171
    /// iterations (165; 231) and LS89 medium on 16 CPU cores in 230 (236; 300); but 20 random
    /// LS89 designs on 2 CPU cores took 7,622 flow iterations against 5,683 (BENCHMARKS.md).
    /// Hence an option.
    pub scalar_gmres_orders: Option<f64>,
    pub refresh: IluRefresh,
    /// Consecutive rejected (non-physical) steps before the run is declared diverged; a step
    /// rejected at the CFL floor with a fresh factorization ends it at once (its retry would be the
    /// same step).
    pub max_rejections: usize,
    /// Under-relaxation of each stage update: scaled so that density and pressure change by at
    /// most this fraction in any cell (a common safeguard of implicit schemes in the start-up
    /// transient); `None` takes the full update. An update that would be non-physical even
    /// scaled is applied in full and the step rejected.
    pub max_relative_change: Option<f64>,
    /// Anderson acceleration of the flow iterations past the start-up (`None`: off). Default on,
    /// 20 differences: on the H200 LS89 MUR47 coarse converges in 168 iterations, against 224
    /// with 10 differences and 520 without, and T106C M065_RE200K coarse in 240 against 330 and
    /// 480; over five cold starts of both blades 11 % less time than with 10 (BENCHMARKS.md).
    pub anderson: Option<super::anderson::AndersonSettings>,
    /// The stages and Anderson depth of a solve started from a coarser mesh's converged flow
    /// (mesh sequencing: `cascade::sequencing`); `None`: the ones above.
    pub from_coarser_mesh: Option<FromCoarserMesh>,
    /// SA-gamma: the segregated intermittency system solved in every stage, or (the default) in
    /// the last stage only while the mean flow and SA take every stage. A flow with one steady
    /// state does not depend on it (a near-unsteady separated layer may settle about 1 % apart);
    /// its cost does: on the H200 the low-Reynolds-number T106C Kriging
    /// campaign took 3.66-3.92 s of solver time a design instead of 3.99-4.01 s (fully turbulent
    /// SA 3.05 s), and 30 random T106C designs at Re 80k all got an answer either way, 27 of the
    /// 28 converged both ways with the same loss to 1e-5 (BENCHMARKS.md, docs/transition.md).
    pub intermittency_every_stage: bool,
    /// The mean-flow operator of each stage's FGMRES solve (default: the assembled matrix).
    pub operator: StageOperator,
}

/// The operator FGMRES inverts in a stage (the preconditioner is the ILU of the assembled
/// first-order matrix either way). The matrix-free operator takes about 40 % fewer flow
/// iterations but 2.6-2.8x the FGMRES iterations a stage, each with a residual evaluation: on
/// LS89 MUR47 coarse 42.8 s against 15.8 s on 2 CPU cores and 2.2 s against 0.93 s on an H200,
/// and test case 1 DE 112 s against 37 s (BENCHMARKS.md, `solver::newton_krylov`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageOperator {
    /// The assembled matrix: Omega/dt plus the Jacobian of the first-order residual (thesis eq. 5.4).
    #[default]
    Assembled,
    /// Omega/dt plus the Jacobian of the second-order residual itself, applied without a matrix
    /// as a finite difference of residuals (Jacobian-free Newton-Krylov: Knoll and Keyes 2004,
    /// eq. 10; the step from Pernice and Walker's NITSOL, eq. 11).
    MatrixFree,
}

/// What a solve started from a coarser mesh's converged flow runs with. Its start-up transient
/// was paid on the coarser mesh and its CFL reaches the target within a few iterations, so it
/// spends its iterations converging the last orders, where a third stage with the same
/// factorization (one more FGMRES solve, no new Jacobian) and a long Anderson history cut
/// more flow iterations than they add work (BENCHMARKS.md: the fine mesh from the medium one,
/// 3 stages and 20 differences against 2 and 10, 39-49 % fewer fine iterations and 11-35 % less
/// time on the H200 over five points of both shipped blades; on 16 CPU cores the same time
/// within the spread). On a cold start the third stage costs more than it saves; the depth is
/// set here on its own, 20 as on a cold start.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FromCoarserMesh {
    /// Runge-Kutta stages per flow iteration; kept at the configured number when
    /// `stage_coefficients` are given (they fix the stage count).
    pub stages: usize,
    /// Differences Anderson acceleration keeps (where it is on).
    pub anderson_depth: usize,
}

impl Default for FromCoarserMesh {
    fn default() -> Self {
        FromCoarserMesh { stages: 3, anderson_depth: 20 }
    }
}

impl Default for ImplicitConfig {
    fn default() -> Self {
        ImplicitConfig {
            stages: 2,
            stage_coefficients: None,
            cfl: CflRamp::default(),
            jacobian: ConvectiveJacobian::FrozenRoe,
            preconditioner: PreconditionerKind::Auto,
            gmres: FgmresSettings { restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 60, gram_schmidt: GramSchmidt::Modified },
            // The thesis tuned a = 0.5, b = 0.15 for a constant CFL of 50; with a CFL ramp from
            // 5 that gives MAX_ITR ~ 1 early on and a factorization every iteration of the ramp.
            // a = 5 keeps the threshold meaningful at low CFL (78 % vs 90 % fewer factorizations
            // on the periodic test channel, tests/implicit_convergence.rs).
            scalar_gmres: None,
            scalar_gmres_orders: None,
            refresh: IluRefresh::OnDemand { a: 5.0, b: 0.1, period: 20 },
            max_rejections: 20,
            max_relative_change: Some(0.2),
            anderson: Some(super::anderson::AndersonSettings::default()),
            from_coarser_mesh: Some(FromCoarserMesh::default()),
            intermittency_every_stage: false,
            operator: StageOperator::Assembled,
        }
    }
}

impl ImplicitConfig {
    /// The most Runge-Kutta stages per flow iteration.
    pub const MAX_STAGES: usize = 6;

    /// The stage coefficients alpha_1..alpha_m.
    pub fn coefficients(&self) -> Vec<f64> {
        self.stage_coefficients.clone().unwrap_or_else(|| vec![1.0; self.stages])
    }

    /// The configuration of a solve started from a coarser mesh's flow (`from_coarser_mesh`).
    pub fn for_coarser_mesh_start(&self) -> ImplicitConfig {
        let mut config = self.clone();
        if let Some(f) = self.from_coarser_mesh {
            if self.stage_coefficients.is_none() {
                config.stages = f.stages;
            }
            if let Some(a) = &mut config.anderson {
                a.depth = f.anderson_depth;
            }
        }
        config
    }

    /// Checks every knob; bad input gets a typed error naming it.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str| Err(Error::Other(format!("invalid implicit scheme: {what}")));
        if !(1..=Self::MAX_STAGES).contains(&self.stages) {
            return bad(&format!("stages = {} must be 1 to {}", self.stages, Self::MAX_STAGES));
        }
        let alphas = self.coefficients();
        if alphas.len() != self.stages || alphas.iter().any(|a| !(a.is_finite() && *a > 0.0)) {
            return bad(&format!("stage coefficients {alphas:?} must be {} positive numbers", self.stages));
        }
        let c = &self.cfl;
        let positive = [("cfl.start", c.start), ("cfl.warm_start", c.warm_start.unwrap_or(c.start)), ("cfl.target", c.target), ("cfl.min", c.min), ("cfl.growth", c.growth), ("cfl.rise_factor", c.rise_factor)];
        if let Some((name, v)) = positive.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
            return bad(&format!("{name} = {v} must be finite and positive"));
        }
        if !(c.backoff > 0.0 && c.backoff < 1.0) {
            return bad(&format!("cfl.backoff = {} must lie in (0, 1)", c.backoff));
        }
        if c.growth < 1.0 {
            return bad(&format!("cfl.growth = {} must be at least 1", c.growth));
        }
        for (name, g) in [("gmres", Some(&self.gmres)), ("scalar_gmres", self.scalar_gmres.as_ref())] {
            let Some(g) = g else { continue };
            if g.restart == 0 || g.max_iterations == 0 || !(g.rel_tol > 0.0 && g.rel_tol < 1.0) {
                return bad(&format!("{name} {g:?}: restart and max_iterations >= 1, rel_tol in (0, 1)"));
            }
        }
        if let Some(orders) = self.scalar_gmres_orders {
            if !(orders.is_finite() && orders > 0.0) {
                return bad(&format!("scalar_gmres_orders = {orders} must be finite and positive"));
            }
            if self.scalar_gmres.is_none() {
                return bad(&format!("scalar_gmres_orders = {orders} limits scalar_gmres, which is not set (the scalar systems use gmres throughout)"));
            }
        }
        if let Some(limit) = self.max_relative_change {
            if !(limit.is_finite() && limit > 0.0) {
                return bad(&format!("max_relative_change = {limit} must be finite and positive"));
            }
        }
        if let Some(a) = &self.anderson {
            if a.depth == 0 || !(a.after_orders.is_finite() && a.after_orders >= 0.0) || !(a.regularization.is_finite() && a.regularization >= 0.0) {
                return bad(&format!("anderson {a:?}: depth >= 1, after_orders and regularization finite and >= 0"));
            }
        }
        if let Some(f) = self.from_coarser_mesh {
            if !(1..=Self::MAX_STAGES).contains(&f.stages) || f.anderson_depth == 0 {
                return bad(&format!("from_coarser_mesh {f:?}: stages 1 to {}, anderson_depth >= 1", Self::MAX_STAGES));
            }
        }
        if let IluRefresh::OnDemand { a, b, .. } = self.refresh {
            if !(a.is_finite() && b.is_finite() && a >= 0.0 && b >= 0.0) {
                return bad(&format!("refresh a = {a}, b = {b} must be finite and >= 0"));
            }
        }
        Ok(())
    }
}
