//! `turbopt.Evaluator`: the CFD evaluator (or an analytic one) from a configuration dict or a RON
//! file, called on a design vector or a batch of them; `turbopt.Evaluation` and
//! `turbopt.DesignSpace` are what it gives back.

use std::path::Path;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use turbopt::eval::analytic::AnalyticEvaluator;
use turbopt::eval::cfd::{BackendChoice, CfdEvaluator, Devices, EvaluatorConfig, FigureSettings};
use turbopt::eval;
use turbopt::optim::campaign::{CampaignConfig, CampaignEvaluator};
use turbopt::solver::StopSignal;

use crate::convert::{array, design, designs, from_python, path_like, to_python};
use crate::errors::{value_error, IntoPy};
use crate::interrupt::interruptible;

/// The evaluator behind a `turbopt.Evaluator`.
pub enum Inner {
    Cfd(Box<CfdEvaluator>),
    Analytic(AnalyticEvaluator),
}

impl Inner {
    pub fn evaluator(&self) -> &dyn eval::Evaluator {
        match self {
            Inner::Cfd(e) => e.as_ref(),
            Inner::Analytic(e) => e,
        }
    }
}

/// Scores designs of a blade with the RANS solver (or an analytic test function).
///
/// `config` is a dict of the evaluator's configuration (the `Cfd((...))` section of a campaign
/// file as JSON: `{"blade": "blades/ls89.ron", "objectives": ["EntropyRise"], ...}`, or
/// `{"Analytic": "Branin"}`), or the path of a RON file: an evaluator configuration, a campaign
/// (its evaluator), or a blade file (scored on the four cascade figures, as `turbopt evaluate`
/// scores it). `case` (the operating points' names), `density`, `max_iterations`,
/// `accept_orders` (accept a run that dropped this many orders of its density residual when its
/// budget runs out), `backend`, `device`/`devices` and `threads` override the configuration's.
#[pyclass(frozen, module = "turbopt._turbopt")]
pub struct Evaluator {
    pub inner: Inner,
    /// The analytic evaluators are quick and never stop; the CFD one has its own signal.
    stop: StopSignal,
}

#[pymethods]
impl Evaluator {
    #[new]
    #[pyo3(signature = (config, *, case=None, density=None, max_iterations=None, accept_orders=None, backend=None, device=None, devices=None, threads=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        config: &Bound<'_, PyAny>,
        case: Option<&Bound<'_, PyAny>>,
        density: Option<&str>,
        max_iterations: Option<usize>,
        accept_orders: Option<f64>,
        backend: Option<&str>,
        device: Option<usize>,
        devices: Option<Vec<usize>>,
        threads: Option<usize>,
    ) -> PyResult<Self> {
        let mut spec = campaign_evaluator(config)?;
        if let CampaignEvaluator::Cfd(cfd) = &mut spec {
            if let Some(choice) = backend_choice(backend, device, devices, threads, &cfd.solver.backend)? {
                cfd.solver.backend = choice;
            }
            if let Some(points) = case {
                cfd.operating_points = match points.extract::<String>() {
                    Ok(one) => vec![one],
                    Err(_) => points.extract::<Vec<String>>().map_err(|_| value_error("case must be an operating point's name or a list of them"))?,
                };
            }
            if let Some(d) = density {
                cfd.density = crate::solve::density(d)?;
            }
            if let Some(n) = max_iterations {
                cfd.solver.max_iterations = n;
            }
            if accept_orders.is_some() {
                cfd.solver.accept_orders = accept_orders;
            }
        } else if backend.is_some() || device.is_some() || devices.is_some() || threads.is_some() || case.is_some() || density.is_some() || max_iterations.is_some() || accept_orders.is_some() {
            return Err(value_error("case, density, max_iterations, accept_orders, backend, device(s) and threads apply to a CFD evaluator, not an analytic one"));
        }
        let inner = match spec {
            CampaignEvaluator::Cfd(cfd) => {
                cfd.validate().map_err(|reason| value_error(format!("evaluator configuration: {reason}")))?;
                Inner::Cfd(Box::new(CfdEvaluator::new(cfd).py_err()?))
            }
            CampaignEvaluator::Analytic(problem) => Inner::Analytic(AnalyticEvaluator::new(problem).py_err()?),
        };
        let stop = match &inner {
            Inner::Cfd(e) => e.stop_signal(),
            Inner::Analytic(_) => StopSignal::new(),
        };
        Ok(Evaluator { inner, stop })
    }

    /// The design variables: names, bounds and baseline.
    #[getter]
    fn space(&self) -> DesignSpace {
        DesignSpace(self.inner.evaluator().space().clone())
    }

    /// The objectives' names, in the order of `Evaluation.objectives`.
    #[getter]
    fn objective_names(&self) -> Vec<String> {
        self.inner.evaluator().objective_names()
    }

    /// The constraints' names (`name@point` for the CFD evaluator), feasible when `<= 0`.
    #[getter]
    fn constraint_names(&self) -> Vec<String> {
        self.inner.evaluator().constraint_names()
    }

    /// Scores one design (a 1-D array of the design space's length).
    fn __call__(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Evaluation> {
        self.evaluate(py, x)
    }

    /// Scores one design (a 1-D array of the design space's length).
    fn evaluate(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Evaluation> {
        let x = design(x, Some(self.dim()), "the design")?;
        let e = interruptible(py, &self.stop, || self.inner.evaluator().evaluate(&x))?;
        Ok(self.evaluation(e))
    }

    /// Scores a batch of designs (a 2-D array, one design per row) the way a campaign does: all
    /// CPU cores, or several designs at once on each GPU. The evaluations come back in row order.
    fn evaluate_batch(&self, py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Vec<Evaluation>> {
        let x = designs(x, self.dim(), "the designs")?;
        let out = interruptible(py, &self.stop, || self.inner.evaluator().evaluate_batch(&x))?;
        Ok(out.into_iter().map(|e| self.evaluation(e)).collect())
    }

    /// Scores the blade file's own blade (LS89: its published profile) rather than a design of
    /// its parameterization (CFD evaluators only).
    fn evaluate_main_blade(&self, py: Python<'_>) -> PyResult<Evaluation> {
        let Inner::Cfd(cfd) = &self.inner else { return Err(value_error("an analytic evaluator has no blade")) };
        let e = interruptible(py, &self.stop, || cfd.evaluate_main_blade())?;
        Ok(self.evaluation(e))
    }

    /// Designs solved so far (the baseline included; cached answers do not count).
    #[getter]
    fn designs_solved(&self) -> usize {
        match &self.inner {
            Inner::Cfd(e) => e.designs_solved(),
            Inner::Analytic(_) => 0,
        }
    }

    fn __repr__(&self) -> String {
        let e = self.inner.evaluator();
        format!("Evaluator({} design variables, objectives {:?}, {} constraints)", e.space().dim(), e.objective_names(), e.constraint_names().len())
    }
}

impl Evaluator {
    pub fn dim(&self) -> usize {
        self.inner.evaluator().space().dim()
    }

    pub fn stop(&self) -> &StopSignal {
        &self.stop
    }

    fn evaluation(&self, e: eval::Evaluation) -> Evaluation {
        let ev = self.inner.evaluator();
        Evaluation { inner: e, objective_names: ev.objective_names(), constraint_names: ev.constraint_names() }
    }
}

/// The evaluator `config` describes (see `Evaluator`).
fn campaign_evaluator(config: &Bound<'_, PyAny>) -> PyResult<CampaignEvaluator> {
    if config.is_instance_of::<PyDict>() {
        let dict = config.cast::<PyDict>()?;
        let tagged = dict.len() == 1 && (dict.contains("Analytic")? || dict.contains("Cfd")?);
        return match tagged {
            true => from_python(config, "evaluator configuration"),
            false => from_python::<EvaluatorConfig>(config, "evaluator configuration").map(CampaignEvaluator::Cfd),
        };
    }
    let Some(path) = path_like(config) else {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!("config must be a dict or the path of a RON file, not {}", config.get_type().name()?)));
    };
    from_file(&path)
}

/// A RON file as an evaluator: an evaluator configuration, a campaign's evaluator, or a blade
/// file scored on the four cascade figures.
fn from_file(path: &Path) -> PyResult<CampaignEvaluator> {
    if !path.exists() {
        return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!("no such file: {}", path.display())));
    }
    let as_config = EvaluatorConfig::from_ron_file(path);
    if let Ok(c) = as_config {
        return Ok(CampaignEvaluator::Cfd(c));
    }
    let as_campaign = CampaignConfig::from_ron_file(path);
    if let Ok(c) = as_campaign {
        return Ok(c.evaluator);
    }
    match turbopt::geometry::load_blade_file(path) {
        Ok(_) => Ok(CampaignEvaluator::Cfd(EvaluatorConfig::for_figures(path, None, &FigureSettings::default()))),
        Err(blade) => Err(value_error(format!(
            "{} is neither an evaluator configuration ({}), a campaign ({}) nor a blade file ({blade})",
            path.display(),
            as_config.err().map_or_else(String::new, |e| e.to_string()),
            as_campaign.err().map_or_else(String::new, |e| e.to_string()),
        ))),
    }
}

/// The backend the keyword arguments ask for, on top of `current`; None when they ask nothing.
pub fn backend_choice(backend: Option<&str>, device: Option<usize>, devices: Option<Vec<usize>>, threads: Option<usize>, current: &BackendChoice) -> PyResult<Option<BackendChoice>> {
    let listed = match (device, devices) {
        (Some(_), Some(_)) => return Err(value_error("give device or devices, not both")),
        (Some(d), None) => Some(Devices::one(d)),
        (None, Some(list)) if list.is_empty() => return Err(value_error("devices names no device")),
        (None, Some(list)) => Some(Devices::List(list)),
        (None, None) => None,
    };
    let choice = match (backend, current) {
        (None, _) if listed.is_none() && threads.is_none() => return Ok(None),
        (Some("cpu"), _) | (None, BackendChoice::Cpu { .. }) if listed.is_none() => BackendChoice::Cpu { threads },
        (Some("cpu"), _) | (None, BackendChoice::Cpu { .. }) => return Err(value_error("device(s) select GPUs: use them with backend=\"gpu\"")),
        (Some("gpu"), _) | (None, BackendChoice::Gpu { .. }) if threads.is_some() => return Err(value_error("threads are CPU threads: use them with backend=\"cpu\"")),
        (Some("gpu"), _) => BackendChoice::Gpu { devices: listed.unwrap_or(Devices::one(0)) },
        (None, BackendChoice::Gpu { devices }) => BackendChoice::Gpu { devices: listed.unwrap_or_else(|| devices.clone()) },
        (Some("auto"), _) | (None, BackendChoice::Auto { .. }) => BackendChoice::Auto { device: listed.map_or(0, |d| d.first()) },
        (Some(other), _) => return Err(value_error(format!("backend {other:?}: expected \"cpu\", \"gpu\" or \"auto\""))),
    };
    Ok(Some(choice))
}

/// The design variables of an evaluator: names, bounds and baseline.
#[pyclass(frozen, module = "turbopt._turbopt")]
pub struct DesignSpace(pub eval::DesignSpace);

#[pymethods]
impl DesignSpace {
    #[getter]
    fn names(&self) -> Vec<String> {
        self.0.names.clone()
    }
    #[getter]
    fn lower<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, &self.0.lower)
    }
    #[getter]
    fn upper<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, &self.0.upper)
    }
    #[getter]
    fn baseline<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, &self.0.baseline)
    }
    /// `(lower, upper)` pairs, the `bounds` of `turbopt.minimize` and scipy's optimizers.
    #[getter]
    fn bounds(&self) -> Vec<(f64, f64)> {
        self.0.lower.iter().copied().zip(self.0.upper.iter().copied()).collect()
    }
    fn __len__(&self) -> usize {
        self.0.dim()
    }
    fn __repr__(&self) -> String {
        format!("DesignSpace({} variables: {})", self.0.dim(), self.0.names.join(", "))
    }
}

/// One design's score: objectives, constraints (feasible when every value is `<= 0`), its status
/// (`"ok"`, `"invalid_geometry"`, `"mesh_failure"`, `"diverged"`, `"not_converged"`,
/// `"failed"`, `"interrupted"`) with the reason, and the solver's diagnostics.
#[pyclass(frozen, module = "turbopt._turbopt")]
pub struct Evaluation {
    pub inner: eval::Evaluation,
    objective_names: Vec<String>,
    constraint_names: Vec<String>,
}

impl Evaluation {
    pub fn new(inner: eval::Evaluation, objective_names: Vec<String>, constraint_names: Vec<String>) -> Self {
        Evaluation { inner, objective_names, constraint_names }
    }
}

#[pymethods]
impl Evaluation {
    #[getter]
    fn objectives<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, &self.inner.objectives)
    }
    #[getter]
    fn constraints<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        array(py, &self.inner.constraints)
    }
    #[getter]
    fn objective_names(&self) -> Vec<String> {
        self.objective_names.clone()
    }
    #[getter]
    fn constraint_names(&self) -> Vec<String> {
        self.constraint_names.clone()
    }
    /// `"ok"`, `"invalid_geometry"`, `"mesh_failure"`, `"diverged"`, `"not_converged"`,
    /// `"failed"` or `"interrupted"`.
    #[getter]
    fn status(&self) -> &'static str {
        self.inner.status.name()
    }
    /// Why the status is not `"ok"` (None when it is).
    #[getter]
    fn reason(&self) -> Option<String> {
        self.inner.status.reason().map(str::to_string)
    }
    /// Iterations, residual drop, wall time, backend, scheme, why each point stopped and the
    /// recovery chain's attempts.
    #[getter]
    fn diagnostics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.inner.diagnostics)
    }
    /// Ok and every constraint `<= 0`.
    #[getter]
    fn feasible(&self) -> bool {
        self.inner.is_feasible()
    }
    /// The sum of the positive constraint values (infinite for a failed evaluation).
    #[getter]
    fn violation(&self) -> f64 {
        self.inner.violation()
    }
    /// The evaluation as plain Python values (what `turbopt evaluate --json` prints).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("status", to_python(py, &self.inner.status)?)?;
        d.set_item("objective_names", PyList::new(py, &self.objective_names)?)?;
        d.set_item("objectives", self.inner.objectives.clone())?;
        d.set_item("constraint_names", PyList::new(py, &self.constraint_names)?)?;
        d.set_item("constraints", self.inner.constraints.clone())?;
        d.set_item("diagnostics", to_python(py, &self.inner.diagnostics)?)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        let reason = self.inner.status.reason().map(|r| format!(": {r}")).unwrap_or_default();
        format!("Evaluation({}{reason}, objectives {:?}, constraints {:?})", self.inner.status.name(), self.inner.objectives, self.inner.constraints)
    }
}
