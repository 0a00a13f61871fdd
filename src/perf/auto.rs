//! `--scheme auto` and `--backend auto` (RON `scheme: Auto`, `backend: Auto(device: N)`): the
//! performance model of the case, from the cache or measured now, picks the combination with
//! the least predicted time to convergence; the settings are rewritten to it before the solve.
//! With one of the two fixed, the pick is among the combinations that keep it.

use std::path::Path;

use serde::Serialize;

use super::model::{Combination, Hardware, Method, TimePrediction};
use super::{BuildOptions, Cache, CaseSetup, Machines, MethodSettings, PerfModel};
use crate::cascade::{BackendChoice, SchemeChoice, SolverSettings};
use crate::mesh::Density;
use crate::{Error, Result};

/// The model's pick and why.
#[derive(Clone, Debug, Serialize)]
pub struct AutoChoice {
    pub combination: Combination,
    pub predicted_s: f64,
    /// One line: the pick, the runner-up, R_C, where the model came from.
    pub reason: String,
}

/// Whether `c` keeps what `settings` fixes (a scheme or a backend that is not `Auto`).
fn allowed(settings: &SolverSettings, c: Combination) -> bool {
    let scheme_ok = match settings.scheme {
        SchemeChoice::Auto => true,
        SchemeChoice::Implicit => c.method == Method::Implicit,
        SchemeChoice::Explicit if settings.config.multigrid.is_some() => c.method == Method::ExplicitMultigrid,
        SchemeChoice::Explicit => c.method == Method::ExplicitSingleGrid,
    };
    let backend_ok = match settings.backend {
        BackendChoice::Auto { .. } => true,
        BackendChoice::Cpu { threads: Some(1) } => c.hardware == Hardware::Cpu { threads: 1 },
        BackendChoice::Cpu { .. } => matches!(c.hardware, Hardware::Cpu { threads } if threads > 1) || c.hardware == Hardware::Cpu { threads: 1 } && available_cores() == 1,
        BackendChoice::Gpu { .. } => c.hardware.is_gpu(),
    };
    scheme_ok && backend_ok
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Resolves the `Auto` parts of `settings` for the case (blade file, operating point, density)
/// with the model; None when nothing is `Auto`.
pub fn resolve(settings: &mut SolverSettings, blade: &Path, case: Option<&str>, density: Density) -> Result<Option<AutoChoice>> {
    if !settings.is_auto() {
        return Ok(None);
    }
    let device = match &settings.backend {
        BackendChoice::Auto { device } => *device,
        BackendChoice::Gpu { devices } => devices.first(),
        BackendChoice::Cpu { .. } => 0,
    };
    let cpu_only = matches!(settings.backend, BackendChoice::Cpu { .. });
    let setup = CaseSetup::new(blade, case, density)?;
    let methods = MethodSettings::from_base(settings);
    let machines = Machines::open(device, cpu_only)?;
    let cache = Cache::new(super::cache::directory());
    let model = PerfModel::build(&setup, &methods, &machines, &cache, &BuildOptions::default())?;
    let choice = pick(&model, settings, &cache)?;
    apply(settings, &methods, choice.combination);
    Ok(Some(choice))
}

/// The fastest allowed combination of `model`, with its reason.
pub fn pick(model: &PerfModel, settings: &SolverSettings, cache: &Cache) -> Result<AutoChoice> {
    let mut candidates: Vec<(Combination, TimePrediction)> = model.predictions().into_iter().filter(|(c, _)| allowed(settings, *c)).collect();
    candidates.sort_by(|a, b| a.1.seconds.total_cmp(&b.1.seconds));
    let (best, undecided) = super::model::fastest(&candidates).map(|((c, p), u)| ((*c, *p), u)).ok_or_else(|| Error::Other(format!("perf: no combination allowed by scheme {} / backend {:?} has a complete prediction for {}", settings.scheme.name(), settings.backend, model.case)))?;
    let runner_up = candidates.iter().find(|(c, _)| *c != best.0);
    let mut reason = format!("{}: fastest predicted, {:.1} s to convergence", best.0.label(), best.1.seconds);
    if let Some((c, p)) = runner_up {
        reason += &format!("; next {} at {:.1} s{}", c.label(), p.seconds, if p.lower_bound { " or more" } else { "" });
    }
    if let Some(pc) = model.hardware.first().map(|h| h.preconditioner) {
        if let Some(r) = model.convergence_ratio(Method::ExplicitMultigrid, pc) {
            reason += &format!("; R_C (multigrid) {r:.1}");
        }
    }
    if undecided {
        reason += "; a combination cut off before converging might be faster";
    }
    let origin = if model.from_cache { "cached" } else { "measured now" };
    reason += &format!(" (perf model of {}, {origin} on {} cores of {}{}, cache {})", model.case, model.machine.cores, model.machine.cpu_model, model.machine.gpu.as_ref().map_or(String::new(), |g| format!(" + {g}")), cache.dir().display());
    Ok(AutoChoice { combination: best.0, predicted_s: best.1.seconds, reason })
}

/// Rewrites `settings` to run `c`: the method's own settings (from the same base), the backend.
pub fn apply(settings: &mut SolverSettings, methods: &MethodSettings, c: Combination) {
    let backend = match c.hardware {
        Hardware::Cpu { threads: 1 } if available_cores() > 1 => BackendChoice::Cpu { threads: Some(1) },
        Hardware::Cpu { .. } => BackendChoice::Cpu { threads: None },
        Hardware::Gpu { device } => BackendChoice::gpu(device),
    };
    *settings = methods.of(c.method).clone();
    settings.backend = backend;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn combination(method: Method, hardware: Hardware) -> Combination {
        Combination { method, hardware }
    }

    /// A model of two hardware with known unit costs and counts (no solver run).
    fn known_model() -> PerfModel {
        use crate::backend::PreconditionerKind;
        use crate::perf::measure::HardwareMeasurement;
        use crate::perf::model::{ExplicitCosts, ImplicitCosts, IterationCount};
        let hw = |hardware, iteration_s, cycle_s, linear_iteration_s| HardwareMeasurement {
            hardware,
            backend: "test".into(),
            explicit: ExplicitCosts { iteration_s, cycle_s },
            implicit: ImplicitCosts { residual_s: 4.0 * iteration_s, assembly_s: 2.0 * iteration_s, factorization_s: 10.0 * iteration_s, linear_iteration_s, linear_iterations_per_iteration: 15.0, factorizations_per_iteration: 0.1, measured_iteration_s: 0.0 },
            preconditioner: PreconditionerKind::Ilu,
            bandwidth_bytes_per_s: 1e10,
            call_floor_s: 1e-5,
            operations: vec![],
            measured_in_s: 0.0,
        };
        let mut counts = std::collections::BTreeMap::new();
        counts.insert("implicit-ilu".to_string(), IterationCount { iterations: 400, converged: true, linear_iterations: 6000, factorizations: 40 });
        counts.insert("explicit-multigrid".to_string(), IterationCount { iterations: 4000, converged: true, linear_iterations: 0, factorizations: 0 });
        counts.insert("explicit-single-grid".to_string(), IterationCount { iterations: 12000, converged: false, linear_iterations: 0, factorizations: 0 });
        PerfModel {
            case: "test case".into(),
            cells: 1000,
            case_key: "test".into(),
            machine: crate::perf::Machine { cpu_model: "Test CPU".into(), cores: 2, gpu: None, turbopt_version: "0".into() },
            // CPU 1 core: implicit 400 x 0.006 + 40 x 0.01 + 6000 x 0.004 = 26.8 s; multigrid
            // 150 x 0.001 + 3850 x 0.003 = 11.7 s. CPU 2 cores: half of every cost.
            hardware: vec![hw(Hardware::Cpu { threads: 1 }, 0.001, 0.003, 0.004), hw(Hardware::Cpu { threads: 2 }, 0.0005, 0.0015, 0.002)],
            gpu_absent: Some("none".into()),
            counts,
            multigrid_delay: 150,
            full_runs: vec![],
            from_cache: true,
        }
    }

    #[test]
    fn auto_picks_the_least_predicted_time_and_rewrites_the_settings() {
        let model = known_model();
        let cache = Cache::new(std::env::temp_dir());
        let mut settings = SolverSettings { scheme: SchemeChoice::Auto, backend: BackendChoice::Auto { device: 0 }, ..SolverSettings::default() };
        let choice = pick(&model, &settings, &cache).unwrap();
        assert_eq!(choice.combination, combination(Method::ExplicitMultigrid, Hardware::Cpu { threads: 2 }));
        assert!((choice.predicted_s - 5.85).abs() < 1e-9, "{}", choice.predicted_s);
        assert!(choice.reason.contains("explicit multigrid on CPU 2 cores") && choice.reason.contains("R_C (multigrid) 10.0"), "{}", choice.reason);
        // With the scheme fixed to implicit, the implicit on all cores (13.4 s).
        let mut implicit_only = settings.clone();
        implicit_only.scheme = SchemeChoice::Implicit;
        let c = pick(&model, &implicit_only, &cache).unwrap();
        assert_eq!(c.combination, combination(Method::Implicit, Hardware::Cpu { threads: 2 }));
        assert!((c.predicted_s - 13.4).abs() < 1e-9);
        // The settings become the multigrid explicit ones of the same base, on all cores.
        let methods = MethodSettings::from_base(&settings);
        apply(&mut settings, &methods, choice.combination);
        assert_eq!(settings.scheme, SchemeChoice::Explicit);
        assert!(settings.config.multigrid.is_some() && !settings.is_auto());
        assert!(matches!(settings.backend, BackendChoice::Cpu { .. }));
        assert_eq!(settings.max_iterations, SchemeChoice::Explicit.default_max_iterations());
    }

    #[test]
    fn a_fixed_scheme_or_backend_limits_the_pick() {
        let mut s = SolverSettings { scheme: SchemeChoice::Auto, backend: BackendChoice::Auto { device: 0 }, ..SolverSettings::default() };
        let gpu_explicit = combination(Method::ExplicitMultigrid, Hardware::Gpu { device: 0 });
        let cpu_implicit = combination(Method::Implicit, Hardware::Cpu { threads: 1 });
        assert!(allowed(&s, gpu_explicit) && allowed(&s, cpu_implicit));
        s.scheme = SchemeChoice::Implicit;
        assert!(!allowed(&s, gpu_explicit) && allowed(&s, cpu_implicit));
        s.scheme = SchemeChoice::Auto;
        s.backend = BackendChoice::gpu(0);
        assert!(allowed(&s, gpu_explicit) && !allowed(&s, cpu_implicit));
    }
}
