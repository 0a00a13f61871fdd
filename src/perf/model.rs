//! The arithmetic of the performance model (thesis chapter 6, eq. 6.1-6.3): time to
//! convergence of every combination of method and hardware from the iteration counts of the
//! case (a property of case, mesh and scheme settings, the same on every backend: the parity
//! tests give identical counts) and the unit costs measured on each hardware.
//!
//! - Explicit, single grid: `T = N_exp t_it`.
//! - Explicit multigrid (the default: `delay` single-grid iterations, then cycles):
//!   `T = min(N, delay) t_it + max(N - delay, 0) t_cycle`.
//! - Implicit: `T = N_imp (t_S + t_asm) + n_fact t_fact + n_lin t_lin`, with t_S the space
//!   integration (residual, boundary conditions, time step: the part both schemes share) and
//!   the time integration t_T split into assembly, factorizations and FGMRES iterations, whose
//!   numbers come from the full run (on-demand ILU, thesis 5.4.2, factorizes only some
//!   iterations; the linear iterations per stage grow with the CFL ramp).
//! - R_C = N_exp / N_imp (eq. 6.3); R_ITR = t_imp / t_exp per flow iteration on one hardware,
//!   which eq. 6.1 approximates by 1 + t_T / t_S; eq. 6.2: R_ITR(GPU) = R_ITR(CPU) a_exp / a_imp
//!   with a the GPU/CPU speed-ups of each scheme's iteration.
//! - Thesis Fig. 6.9: T against R_C at the measured N_imp: the implicit lines are flat, an
//!   explicit line is `T(R_C) = T_exp(R_C N_imp)`.

use serde::{Deserialize, Serialize};

/// A time-integration method the model compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Method {
    /// Runge-Kutta with local time steps on the fine grid only.
    ExplicitSingleGrid,
    /// The explicit default: the FAS multigrid cycle after its single-grid delay.
    ExplicitMultigrid,
    /// JT-KIRK with FGMRES and the on-demand ILU.
    Implicit,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::ExplicitSingleGrid, Method::ExplicitMultigrid, Method::Implicit];

    pub fn label(self) -> &'static str {
        match self {
            Method::ExplicitSingleGrid => "explicit single grid",
            Method::ExplicitMultigrid => "explicit multigrid",
            Method::Implicit => "implicit",
        }
    }

    pub fn is_explicit(self) -> bool {
        self != Method::Implicit
    }
}

/// Where a solve runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Hardware {
    /// The CPU backend on this many threads (1 and all cores are measured).
    Cpu { threads: usize },
    /// CUDA device by ordinal.
    Gpu { device: usize },
}

impl Hardware {
    pub fn label(self) -> String {
        match self {
            Hardware::Cpu { threads: 1 } => "CPU 1 core".into(),
            Hardware::Cpu { threads } => format!("CPU {threads} cores"),
            Hardware::Gpu { device } => format!("GPU {device}"),
        }
    }

    pub fn is_gpu(self) -> bool {
        matches!(self, Hardware::Gpu { .. })
    }
}

/// A method on a hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Combination {
    pub method: Method,
    pub hardware: Hardware,
}

impl Combination {
    pub fn label(self) -> String {
        format!("{} on {}", self.method.label(), self.hardware.label())
    }
}

/// Unit costs of the explicit scheme on one hardware \[s\].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExplicitCosts {
    /// One single-grid Runge-Kutta iteration (the pipeline's figure watch included).
    pub iteration_s: f64,
    /// One multigrid cycle.
    pub cycle_s: f64,
}

/// Unit costs of the implicit scheme on one hardware \[s\], from a short run's own split.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImplicitCosts {
    /// Space integration per flow iteration: residuals, boundary conditions, time steps (t_S).
    pub residual_s: f64,
    /// Jacobian assembly per flow iteration.
    pub assembly_s: f64,
    /// One preconditioner factorization.
    pub factorization_s: f64,
    /// One mean-flow FGMRES iteration, the segregated SA solves' share included.
    pub linear_iteration_s: f64,
    /// Mean-flow FGMRES iterations and factorizations per flow iteration in the short run
    /// (used only when the full run's counts belong to another preconditioner).
    pub linear_iterations_per_iteration: f64,
    pub factorizations_per_iteration: f64,
    /// Median wall time per flow iteration of the short run's timed iterations.
    pub measured_iteration_s: f64,
}

/// Iterations to convergence of one method (the same on every backend).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct IterationCount {
    /// Flow iterations (multigrid: delay + cycles) the full run took.
    pub iterations: usize,
    /// False when the run stopped before converging (its budget, or the model's cut-off once
    /// it could no longer be the fastest): `iterations` is then a lower bound.
    pub converged: bool,
    /// Implicit only: mean-flow FGMRES iterations and factorizations of the whole run.
    pub linear_iterations: usize,
    pub factorizations: usize,
}

/// Predicted time to convergence \[s\]; `lower_bound` when the count is one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimePrediction {
    pub seconds: f64,
    pub lower_bound: bool,
    /// Implicit with a count of another preconditioner: the linear iterations and
    /// factorizations come from the short run's rates per flow iteration.
    pub estimated_linear_work: bool,
}

/// Explicit time to convergence for `n` flow iterations (single grid when `delay` is None).
pub fn explicit_time(costs: &ExplicitCosts, n: f64, delay: Option<usize>) -> f64 {
    match delay {
        None => n * costs.iteration_s,
        Some(d) => {
            let d = d as f64;
            n.min(d) * costs.iteration_s + (n - d).max(0.0) * costs.cycle_s
        }
    }
}

/// Implicit time to convergence from the full run's counts (`same_preconditioner`) or, with a
/// count of another preconditioner, from its flow iterations and the short run's rates.
pub fn implicit_time(costs: &ImplicitCosts, count: &IterationCount, same_preconditioner: bool) -> TimePrediction {
    let n = count.iterations as f64;
    let (linear, factorizations) = if same_preconditioner {
        (count.linear_iterations as f64, count.factorizations as f64)
    } else {
        (n * costs.linear_iterations_per_iteration, n * costs.factorizations_per_iteration)
    };
    let seconds = n * (costs.residual_s + costs.assembly_s) + factorizations * costs.factorization_s + linear * costs.linear_iteration_s;
    TimePrediction { seconds, lower_bound: !count.converged, estimated_linear_work: !same_preconditioner }
}

/// The implicit cost per flow iteration of a full run (its time to convergence over N).
pub fn implicit_iteration_s(costs: &ImplicitCosts, count: &IterationCount, same_preconditioner: bool) -> f64 {
    implicit_time(costs, count, same_preconditioner).seconds / count.iterations.max(1) as f64
}

/// Eq. 6.3: R_C = N_exp / N_imp.
pub fn convergence_ratio(explicit_iterations: usize, implicit_iterations: usize) -> f64 {
    explicit_iterations as f64 / implicit_iterations.max(1) as f64
}

/// R_ITR = t_imp / t_exp for one flow iteration on one hardware (eq. 6.1's left side).
pub fn iteration_ratio(implicit_iteration_s: f64, explicit_iteration_s: f64) -> f64 {
    implicit_iteration_s / explicit_iteration_s
}

/// Eq. 6.1's approximation of R_ITR on one hardware: 1 + t_T / t_S, with t_T the implicit time
/// integration (assembly, factorization, Krylov) per flow iteration and t_S the space
/// integration both schemes share.
pub fn iteration_ratio_approximation(implicit_iteration_s: f64, space_integration_s: f64) -> f64 {
    1.0 + (implicit_iteration_s - space_integration_s) / space_integration_s
}

/// Eq. 6.2: R_ITR(GPU) = R_ITR(CPU) a_exp / a_imp.
pub fn gpu_iteration_ratio(cpu_ratio: f64, explicit_speedup: f64, implicit_speedup: f64) -> f64 {
    cpu_ratio * explicit_speedup / implicit_speedup
}

/// The R_C below which an explicit method (costs, delay) beats the implicit time `t_imp` at
/// `n_imp` implicit iterations: T_exp(R_C n_imp) = t_imp solved for R_C (T_exp is increasing
/// and piecewise linear in N).
pub fn break_even_ratio(costs: &ExplicitCosts, delay: Option<usize>, t_imp: f64, n_imp: usize) -> f64 {
    let n_imp = n_imp.max(1) as f64;
    let n = match delay {
        None => t_imp / costs.iteration_s,
        Some(d) => {
            let d = d as f64;
            let sg = d * costs.iteration_s;
            if t_imp <= sg {
                t_imp / costs.iteration_s
            } else {
                d + (t_imp - sg) / costs.cycle_s
            }
        }
    };
    n / n_imp
}

/// The complete prediction with the least time, and whether some lower bound lies below it
/// (a combination whose full run was cut off before converging may still be faster: the pick
/// is then undecided). With no complete prediction: None.
pub fn fastest<K>(predictions: &[(K, TimePrediction)]) -> Option<(&(K, TimePrediction), bool)> {
    let best = predictions.iter().filter(|(_, p)| !p.lower_bound).min_by(|a, b| a.1.seconds.total_cmp(&b.1.seconds))?;
    let undecided = predictions.iter().any(|(_, p)| p.lower_bound && p.seconds < best.1.seconds);
    Some((best, undecided))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn implicit_costs() -> ImplicitCosts {
        ImplicitCosts {
            residual_s: 0.02,
            assembly_s: 0.01,
            factorization_s: 0.05,
            linear_iteration_s: 0.004,
            linear_iterations_per_iteration: 20.0,
            factorizations_per_iteration: 0.5,
            measured_iteration_s: 0.12,
        }
    }

    #[test]
    fn explicit_times_follow_the_counts() {
        let c = ExplicitCosts { iteration_s: 0.01, cycle_s: 0.025 };
        assert!((explicit_time(&c, 1000.0, None) - 10.0).abs() < 1e-12);
        // 150 single-grid iterations, then 850 cycles.
        assert!((explicit_time(&c, 1000.0, Some(150)) - (1.5 + 850.0 * 0.025)).abs() < 1e-12);
        // A run that ends inside the delay is single grid throughout.
        assert!((explicit_time(&c, 100.0, Some(150)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn implicit_time_sums_the_split_with_the_full_runs_counts() {
        let count = IterationCount { iterations: 400, converged: true, linear_iterations: 6000, factorizations: 30 };
        let p = implicit_time(&implicit_costs(), &count, true);
        // 400 x 0.03 + 30 x 0.05 + 6000 x 0.004 = 12 + 1.5 + 24
        assert!((p.seconds - 37.5).abs() < 1e-9, "{}", p.seconds);
        assert!(!p.lower_bound && !p.estimated_linear_work);
        // Another preconditioner's count: 400 x (0.03 + 0.5 x 0.05 + 20 x 0.004) = 54
        let q = implicit_time(&implicit_costs(), &count, false);
        assert!((q.seconds - 54.0).abs() < 1e-9, "{}", q.seconds);
        assert!(q.estimated_linear_work);
        assert!((implicit_iteration_s(&implicit_costs(), &count, true) - 37.5 / 400.0).abs() < 1e-12);
    }

    #[test]
    fn the_thesis_ratios() {
        // Eq. 6.3 with the thesis's T106C counts: 23,000 / 1,350 = 17.
        assert!((convergence_ratio(23_000, 1_350) - 17.037).abs() < 1e-3);
        // Eq. 6.1: an implicit iteration of 0.12 s with 0.03 s of space integration is 4x the
        // explicit one of 0.03 s, and the approximation gives 1 + 0.09 / 0.03 = 4.
        assert!((iteration_ratio(0.12, 0.03) - 4.0).abs() < 1e-12);
        assert!((iteration_ratio_approximation(0.12, 0.03) - 4.0).abs() < 1e-12);
        // Eq. 6.2: R_ITR(GPU) from the CPU's and the two speed-ups, and the identity it is:
        // t_imp,gpu / t_exp,gpu = (t_imp,cpu / a_imp) / (t_exp,cpu / a_exp).
        let (t_exp_cpu, t_imp_cpu, a_exp, a_imp) = (0.03, 0.12, 100.0, 10.0);
        let direct = (t_imp_cpu / a_imp) / (t_exp_cpu / a_exp);
        assert!((gpu_iteration_ratio(iteration_ratio(t_imp_cpu, t_exp_cpu), a_exp, a_imp) - direct).abs() < 1e-9);
    }

    #[test]
    fn break_even_is_where_the_explicit_line_crosses_the_implicit_one() {
        let c = ExplicitCosts { iteration_s: 0.001, cycle_s: 0.003 };
        let (t_imp, n_imp) = (30.0, 500);
        for delay in [None, Some(150)] {
            let r = break_even_ratio(&c, delay, t_imp, n_imp);
            let t = explicit_time(&c, r * n_imp as f64, delay);
            assert!((t - t_imp).abs() < 1e-9, "{delay:?}: {t}");
        }
        // Single grid: 30 s / 1 ms = 30,000 iterations = R_C 60.
        assert!((break_even_ratio(&c, None, t_imp, n_imp) - 60.0).abs() < 1e-9);
        // Crossing inside the delay.
        assert!((break_even_ratio(&c, Some(150), 0.1, n_imp) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn a_lower_bound_never_wins_and_makes_a_pick_below_it_undecided() {
        let p = |seconds, lower_bound| TimePrediction { seconds, lower_bound, estimated_linear_work: false };
        let preds = vec![("a", p(40.0, true)), ("b", p(20.0, false)), ("c", p(15.0, false))];
        assert_eq!(fastest(&preds).map(|(e, undecided)| (e.0, undecided)), Some(("c", false)));
        let close = vec![("a", p(10.0, true)), ("c", p(15.0, false))];
        assert_eq!(fastest(&close).map(|(e, undecided)| (e.0, undecided)), Some(("c", true)));
        assert!(fastest(&[("a", p(10.0, true))]).is_none());
    }
}
