//! `turbopt.run_campaign`: a campaign file run (or resumed) as `turbopt optimize` runs it, with
//! the same files and pictures; Ctrl-C stops it with nothing lost, and `resume=True` completes it.

use std::path::PathBuf;

use pyo3::prelude::*;
use turbopt::eval::analytic::AnalyticEvaluator;
use turbopt::eval::cfd::CfdEvaluator;
use turbopt::optim::campaign::{blade_pictures, check_optimizer, run_campaign as run, CampaignConfig, CampaignEvaluator, CampaignObserver, ProgressBarObserver, SilentObserver};
use turbopt::solver::StopSignal;

use crate::convert::{path_like, to_python};
use crate::errors::{value_error, IntoPy};
use crate::evaluator::backend_choice;
use crate::interrupt::interruptible;
use crate::optimize::StopsOnSignal;

/// Runs the campaign file `path` into `out` (default `out/<campaign name>`), or resumes it there
/// (`resume=True`); `backend`, `device`/`devices` and `threads` override its solver's backend.
/// Returns the summary as a dict (best design and objective, improvement, evaluations, ...;
/// `front` for a front campaign: its members, hypervolume and reference point).
#[pyfunction]
#[pyo3(signature = (path, *, out=None, resume=false, backend=None, device=None, devices=None, threads=None, progress=false))]
#[allow(clippy::too_many_arguments)]
pub fn run_campaign<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
    resume: bool,
    backend: Option<&str>,
    device: Option<usize>,
    devices: Option<Vec<usize>>,
    threads: Option<usize>,
    progress: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let path = path_like(path).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("path must be the path of a campaign file"))?;
    if !path.exists() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!("no such file: {}", path.display())));
    }
    let mut config = CampaignConfig::from_ron_file(&path).py_err()?;
    match &mut config.evaluator {
        CampaignEvaluator::Cfd(cfd) => {
            if let Some(choice) = backend_choice(backend, device, devices, threads, &cfd.solver.backend)? {
                cfd.solver.backend = choice;
            }
        }
        CampaignEvaluator::Analytic(_) if backend.is_some() || device.is_some() || devices.is_some() || threads.is_some() => {
            return Err(value_error(format!("campaign {} has an analytic evaluator: backend, device(s) and threads apply to CFD campaigns", config.name)));
        }
        CampaignEvaluator::Analytic(_) => {}
    }
    let out: PathBuf = match out {
        Some(o) => path_like(o).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("out must be a path"))?,
        None => PathBuf::from("out").join(&config.name),
    };
    if let Some(variables) = &config.variables {
        check_optimizer(&config, variables.len()).py_err()?;
    }
    let mut bar = ProgressBarObserver::new();
    let mut silent = SilentObserver;
    let observer: &mut dyn CampaignObserver = if progress { &mut bar } else { &mut silent };
    let summary = match &mut config.evaluator {
        CampaignEvaluator::Cfd(cfd_config) => {
            turbopt::eval::cfd::resolve_auto(cfd_config).py_err()?;
            let cfd = CfdEvaluator::new(cfd_config.clone()).py_err()?;
            cfd.check_backend().py_err()?;
            let stop = cfd.stop_signal();
            let config = &config;
            let summary = interruptible(py, &stop, || run(config, &cfd, &out, resume, observer))?.py_err()?;
            if let Err(e) = blade_pictures(config, &cfd, &summary, &out) {
                let warnings = py.import("warnings")?;
                warnings.getattr("warn")?.call1((format!("the blade and Mis pictures could not be made: {e}"),))?;
            }
            summary
        }
        CampaignEvaluator::Analytic(problem) => {
            let evaluator = AnalyticEvaluator::new(problem.clone()).py_err()?;
            let stop = StopSignal::new();
            let stoppable = StopsOnSignal { inner: &evaluator, stop: &stop };
            let config = &config;
            interruptible(py, &stop, || run(config, &stoppable, &out, resume, observer))?.py_err()?
        }
    };
    to_python(py, &summary)
}
