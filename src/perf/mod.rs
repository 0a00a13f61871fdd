//! The performance model (thesis chapter 6): which of the explicit scheme (single grid, or the
//! multigrid default) and the implicit scheme, on one CPU core, all CPU cores or the GPU, reaches
//! a converged solution of a case first.
//!
//! - [`measure`]: short runs on the case's own mesh on every hardware present: the unit costs
//!   (explicit iteration and cycle; the implicit residual, assembly, factorization and FGMRES
//!   iteration) and the per-operation breakdown with each operation's class;
//! - [`runs`]: full runs for the iteration counts (R_C, eq. 6.3; identical on every backend,
//!   so each is measured once, on the hardware predicted fastest for it) and for validation;
//! - [`model`]: eq. 6.1-6.3, the time to convergence of every combination, the fastest;
//! - [`cache`]: measured once per case, mesh and machine, kept on disk;
//! - [`plot`]: time to convergence against R_C (thesis Fig. 6.9);
//! - [`auto`]: `--scheme auto --backend auto` (RON `Auto`) resolved with the model.
//!
//! Absent GPU: its columns are absent (with the reason), never estimated.

pub mod auto;
pub mod bench;
pub mod cache;
pub mod measure;
pub mod model;
pub mod plot;
pub mod runs;
pub mod report;
pub mod setup;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use cache::{Cache, Machine};
pub use measure::{BoundBy, HardwareMeasurement, OperationTime, ShortRuns};
pub use model::{Combination, Hardware, IterationCount, Method, TimePrediction};
pub use runs::FullRun;
pub use setup::{CaseSetup, MethodSettings};

use crate::backend::{BackendTask, FactorPrecision, ImplicitBackend, OpenBackend, PreconditionerKind};
use crate::cascade::SolverSettings;
use crate::{Error, Result};

/// The backends of this machine the model measures: the CPU on one thread and on all, and the
/// GPU when one opens.
pub struct Machines {
    cpu_one: OpenBackend,
    cpu_all: OpenBackend,
    cores: usize,
    /// GPU `device`, or why there is no GPU column.
    gpu: std::result::Result<OpenBackend, String>,
    device: usize,
}

impl Machines {
    /// Opens the CPU backends and, unless `cpu_only`, GPU `device`.
    pub fn open(device: usize, cpu_only: bool) -> Result<Self> {
        let all_cores = crate::backend::cpu::CpuBackend::new(None)?;
        let cores = all_cores.threads();
        let cpu_all = OpenBackend::Cpu(all_cores);
        let cpu_one = OpenBackend::cpu(Some(1))?;
        let gpu = if cpu_only { Err("not requested (--cpu-only)".to_string()) } else { OpenBackend::gpu(device).map_err(|e| e.to_string()) };
        Ok(Machines { cpu_one, cpu_all, cores, gpu, device })
    }

    /// The hardware to measure: CPU 1 core, CPU all cores (when more than one), the GPU.
    pub fn hardware(&self) -> Vec<Hardware> {
        let mut h = vec![Hardware::Cpu { threads: 1 }];
        if self.cores > 1 {
            h.push(Hardware::Cpu { threads: self.cores });
        }
        if self.gpu.is_ok() {
            h.push(Hardware::Gpu { device: self.device });
        }
        h
    }

    /// The GPU's name, when one is open.
    pub fn gpu_name(&self) -> Option<String> {
        self.gpu.as_ref().ok().map(OpenBackend::name)
    }

    /// Why there is no GPU column.
    pub fn gpu_absent(&self) -> Option<String> {
        self.gpu.as_ref().err().cloned()
    }

    /// The backend of `hardware`.
    fn backend(&self, hardware: Hardware) -> Result<&OpenBackend> {
        match hardware {
            Hardware::Cpu { threads: 1 } => Ok(&self.cpu_one),
            Hardware::Cpu { .. } => Ok(&self.cpu_all),
            Hardware::Gpu { .. } => self.gpu.as_ref().map_err(|why| Error::Gpu(why.clone())),
        }
    }
}

/// The short runs of [`measure::measure`] on one hardware.
struct Measure<'a> {
    hardware: Hardware,
    case: &'a CaseSetup,
    methods: &'a MethodSettings,
    runs: &'a ShortRuns,
}

impl BackendTask for Measure<'_> {
    type Output = Result<HardwareMeasurement>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output {
        measure::measure(backend, self.hardware, self.case, self.methods, self.runs)
    }
}

/// One full run ([`runs::full_run`]) of a combination.
struct FullRunOf<'a> {
    case: &'a CaseSetup,
    combination: Combination,
    key: &'a str,
    settings: &'a SolverSettings,
    budget: usize,
}

impl BackendTask for FullRunOf<'_> {
    type Output = Result<FullRun>;
    fn run<B: ImplicitBackend>(self, backend: &B) -> Self::Output {
        runs::full_run(backend, self.case, self.combination, self.key, self.settings, self.budget)
    }
}

/// The count key of a method ("explicit-multigrid", "implicit-ilu", ...).
pub fn count_key(method: Method, preconditioner: PreconditionerKind) -> String {
    match method {
        Method::ExplicitSingleGrid => "explicit-single-grid".into(),
        Method::ExplicitMultigrid => "explicit-multigrid".into(),
        Method::Implicit => format!("implicit-{}", preconditioner_name(preconditioner)),
    }
}

/// The command-line name of a preconditioner (`swept-ilu-N` with its sweep count).
pub fn preconditioner_name(kind: PreconditionerKind) -> String {
    match kind {
        PreconditionerKind::Jacobi => "jacobi".into(),
        PreconditionerKind::Ilu => "ilu".into(),
        PreconditionerKind::McIlu => "mc-ilu".into(),
        PreconditionerKind::StripIlu { strips, overlap } => format!("strip-ilu-{strips}-{overlap}"),
        PreconditionerKind::CusparseIlu => "cusparse-ilu".into(),
        PreconditionerKind::SweptIlu { sweeps, factors: FactorPrecision::Double } => format!("swept-ilu-{sweeps}"),
        PreconditionerKind::SweptIlu { sweeps, factors: FactorPrecision::Single } => format!("swept-ilu-{sweeps}-f32"),
        PreconditionerKind::Auto => "auto".into(),
    }
}

/// How the model is built.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub runs: ShortRuns,
    /// Measure again even when the cache has this machine's measurement (and run the full
    /// runs again with `refresh_counts`).
    pub refresh: bool,
    pub refresh_counts: bool,
    /// A full run for a count stops once its time would exceed this many times the fastest
    /// complete prediction so far: it can no longer be the fastest, and its count becomes a
    /// lower bound.
    pub cut_off_factor: f64,
    /// Iteration counts given from stored convergence histories, by count key.
    pub given_counts: BTreeMap<String, IterationCount>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions { runs: ShortRuns::default(), refresh: false, refresh_counts: false, cut_off_factor: 3.0, given_counts: BTreeMap::new() }
    }
}

/// The model of one case on one machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PerfModel {
    pub case: String,
    pub cells: usize,
    pub case_key: String,
    pub machine: Machine,
    pub hardware: Vec<HardwareMeasurement>,
    pub gpu_absent: Option<String>,
    pub counts: BTreeMap<String, IterationCount>,
    pub multigrid_delay: usize,
    /// Full runs made by this process (counts and validation), with their measured times.
    pub full_runs: Vec<FullRun>,
    /// Whether the unit costs came from the cache.
    pub from_cache: bool,
}

/// The case key: blade file contents, operating point, density, mesh size, the base solver
/// settings and the turbopt version.
pub fn case_key(case: &CaseSetup, methods: &MethodSettings) -> Result<String> {
    let blade_text = std::fs::read_to_string(&case.blade_path).map_err(|e| Error::io(&case.blade_path, e))?;
    let settings = ron::to_string(&(&methods.explicit_single_grid, &methods.explicit_multigrid, &methods.implicit)).map_err(|e| Error::Other(e.to_string()))?;
    let text = format!("{blade_text}\n{}\n{:?}\n{}\n{settings}\n{}", case.op.name, case.density, case.cells(), env!("CARGO_PKG_VERSION"));
    let clean = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect::<String>();
    Ok(format!("{}-{}-{}-{:016x}", clean(&case.blade.name), clean(&case.op.name), case.density.name(), cache::fnv1a(&text)))
}

impl PerfModel {
    /// Measures (or reads from `cache`) the unit costs of every hardware of `machines` on
    /// `case`, and obtains the iteration counts (given, cached, or by full runs).
    pub fn build(case: &CaseSetup, methods: &MethodSettings, machines: &Machines, cache: &Cache, options: &BuildOptions) -> Result<Self> {
        let case_key = case_key(case, methods)?;
        let machine = Machine::this(machines.gpu_name());
        let cached = if options.refresh { None } else { cache.measurement(&case_key, &machine)? };
        let from_cache = cached.is_some();
        let stored = match cached {
            Some(s) => s,
            None => {
                let mut hardware = Vec::new();
                for hw in machines.hardware() {
                    eprintln!("perf: {}: short runs on {}", case.describe(), hw.label());
                    hardware.push(machines.backend(hw)?.run(Measure { hardware: hw, case, methods, runs: &options.runs })?);
                }
                let s = cache::StoredMeasurement { case_key: case_key.clone(), machine: machine.clone(), hardware, gpu_absent: machines.gpu_absent() };
                cache.store_measurement(&s)?;
                s
            }
        };
        let mut stored_counts = if options.refresh_counts { cache::StoredCounts { case_key: case_key.clone(), counts: BTreeMap::new() } } else { cache.counts(&case_key)? };
        stored_counts.counts.extend(options.given_counts.clone());
        let mut model = PerfModel {
            case: case.describe(),
            cells: case.cells(),
            case_key,
            machine,
            hardware: stored.hardware,
            gpu_absent: stored.gpu_absent,
            counts: stored_counts.counts,
            multigrid_delay: methods.multigrid_delay(),
            full_runs: Vec::new(),
            from_cache,
        };
        model.complete_counts(case, methods, machines, cache, options.cut_off_factor)?;
        Ok(model)
    }

    /// The count keys the combinations need, implicit ones first (they converge in the fewest
    /// iterations and set the cut-off of the explicit runs), then multigrid, then single grid.
    fn needed_counts(&self) -> Vec<(String, Method, PreconditionerKind)> {
        let mut keys: Vec<(String, Method, PreconditionerKind)> = Vec::new();
        for method in [Method::Implicit, Method::ExplicitMultigrid, Method::ExplicitSingleGrid] {
            for h in &self.hardware {
                let key = count_key(method, h.preconditioner);
                if !keys.iter().any(|(k, ..)| *k == key) {
                    keys.push((key, method, h.preconditioner));
                }
            }
        }
        keys
    }

    /// Full runs for the counts not known yet, each on the hardware with the least predicted
    /// time per iteration for it, cut off once it can no longer be the fastest.
    fn complete_counts(&mut self, case: &CaseSetup, methods: &MethodSettings, machines: &Machines, cache: &Cache, factor: f64) -> Result<()> {
        for (key, method, preconditioner) in self.needed_counts() {
            if self.counts.contains_key(&key) {
                continue;
            }
            let Some(h) = self.hardware.iter().filter(|h| method != Method::Implicit || h.preconditioner == preconditioner).min_by(|a, b| self.unit_time(a, method).total_cmp(&self.unit_time(b, method))).cloned() else { continue };
            let settings = methods.with_preconditioner(method, preconditioner);
            let budget = self.cut_off_budget(&h, method, factor).map_or(settings.max_iterations, |n| n.min(settings.max_iterations));
            let combination = Combination { method, hardware: h.hardware };
            eprintln!("perf: {}: full run of {} (at most {budget} iterations)", case.describe(), combination.label());
            let run = machines.backend(h.hardware)?.run(FullRunOf { case, combination, key: &key, settings: &settings, budget })?;
            eprintln!("perf: {}: {} in {} iterations, {:.1} s", combination.label(), run.stop, run.count.iterations, run.wall_s);
            self.counts.insert(key.clone(), run.count);
            self.full_runs.push(run);
            cache.store_counts(&cache::StoredCounts { case_key: self.case_key.clone(), counts: self.counts.clone() })?;
        }
        Ok(())
    }

    /// Time per iteration of `method` on `h` (implicit: the short run's).
    fn unit_time(&self, h: &HardwareMeasurement, method: Method) -> f64 {
        match method {
            Method::ExplicitSingleGrid => h.explicit.iteration_s,
            Method::ExplicitMultigrid => h.explicit.cycle_s,
            Method::Implicit => h.implicit.measured_iteration_s,
        }
    }

    /// Iterations of `method` on `h` after which its time exceeds `factor` times the fastest
    /// complete prediction so far (None: no prediction yet).
    fn cut_off_budget(&self, h: &HardwareMeasurement, method: Method, factor: f64) -> Option<usize> {
        let (_, best, _) = self.fastest()?;
        let limit = factor * best.seconds;
        let n = match method {
            Method::Implicit => limit / h.implicit.measured_iteration_s,
            Method::ExplicitSingleGrid => model::break_even_ratio(&h.explicit, None, limit, 1),
            Method::ExplicitMultigrid => model::break_even_ratio(&h.explicit, Some(self.multigrid_delay), limit, 1),
        };
        Some(n.ceil().max(1.0) as usize)
    }

    /// The count of the implicit scheme with `preconditioner`: its own, else another
    /// preconditioner's (flow iterations only; `false`).
    pub fn implicit_count(&self, preconditioner: PreconditionerKind) -> Option<(&IterationCount, bool)> {
        if let Some(c) = self.counts.get(&count_key(Method::Implicit, preconditioner)) {
            return Some((c, true));
        }
        self.counts.iter().find(|(k, _)| k.starts_with("implicit-")).map(|(_, c)| (c, false))
    }

    /// Predicted time to convergence of `method` on `h`, when its count is known.
    pub fn predict(&self, h: &HardwareMeasurement, method: Method) -> Option<TimePrediction> {
        let explicit = |count: &IterationCount, delay| TimePrediction {
            seconds: model::explicit_time(&h.explicit, count.iterations as f64, delay),
            lower_bound: !count.converged,
            estimated_linear_work: false,
        };
        match method {
            Method::ExplicitSingleGrid => self.counts.get("explicit-single-grid").map(|c| explicit(c, None)),
            Method::ExplicitMultigrid => self.counts.get("explicit-multigrid").map(|c| explicit(c, Some(self.multigrid_delay))),
            Method::Implicit => self.implicit_count(h.preconditioner).map(|(c, same)| model::implicit_time(&h.implicit, c, same)),
        }
    }

    /// Every combination with a known count and its prediction.
    pub fn predictions(&self) -> Vec<(Combination, TimePrediction)> {
        let mut out = Vec::new();
        for h in &self.hardware {
            for method in Method::ALL {
                if let Some(p) = self.predict(h, method) {
                    out.push((Combination { method, hardware: h.hardware }, p));
                }
            }
        }
        out
    }

    /// The fastest complete prediction, and whether a lower bound lies below it.
    pub fn fastest(&self) -> Option<(Combination, TimePrediction, bool)> {
        let predictions = self.predictions();
        model::fastest(&predictions).map(|((c, p), undecided)| (*c, *p, undecided))
    }

    /// R_C (eq. 6.3) of an explicit method against the implicit count of `preconditioner`.
    pub fn convergence_ratio(&self, method: Method, preconditioner: PreconditionerKind) -> Option<f64> {
        let explicit = self.counts.get(&count_key(method, preconditioner))?;
        let (implicit, _) = self.implicit_count(preconditioner)?;
        Some(model::convergence_ratio(explicit.iterations, implicit.iterations))
    }

    pub fn measurement(&self, hardware: Hardware) -> Option<&HardwareMeasurement> {
        self.hardware.iter().find(|h| h.hardware == hardware)
    }

    /// Full runs of every combination not run yet whose prediction lies in `predicted_s`, for
    /// the validation of the predictions.
    pub fn validate(&mut self, case: &CaseSetup, methods: &MethodSettings, machines: &Machines, predicted_s: std::ops::RangeInclusive<f64>) -> Result<()> {
        for (combination, prediction) in self.predictions() {
            if prediction.lower_bound || !predicted_s.contains(&prediction.seconds) || self.full_runs.iter().any(|r| r.combination == combination) {
                continue;
            }
            let Some(h) = self.measurement(combination.hardware).cloned() else { continue };
            let key = count_key(combination.method, h.preconditioner);
            let settings = methods.with_preconditioner(combination.method, h.preconditioner);
            eprintln!("perf: {}: validation run of {} (predicted {:.1} s)", case.describe(), combination.label(), prediction.seconds);
            let run = machines.backend(combination.hardware)?.run(FullRunOf { case, combination, key: &key, settings: &settings, budget: settings.max_iterations })?;
            eprintln!("perf: {}: {} in {} iterations, {:.1} s", combination.label(), run.stop, run.count.iterations, run.wall_s);
            self.full_runs.push(run);
        }
        Ok(())
    }

    /// Predicted against measured for every full run of this process: (combination, predicted,
    /// measured, relative error).
    pub fn validation(&self) -> Vec<(Combination, f64, f64, f64)> {
        self.full_runs
            .iter()
            .filter(|r| r.count.converged)
            .filter_map(|r| {
                let h = self.measurement(r.combination.hardware)?;
                let p = self.predict(h, r.combination.method)?;
                Some((r.combination, p.seconds, r.wall_s, (p.seconds - r.wall_s) / r.wall_s))
            })
            .collect()
    }
}
