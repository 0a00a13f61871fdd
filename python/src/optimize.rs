//! `turbopt.minimize`'s native part: a Python callable, or a `turbopt.Evaluator` (which then runs
//! entirely in Rust), minimized by L-SHADE, SHADE, jDE, classic differential evolution or the
//! Kriging-assisted optimizer. The Python layer (`turbopt/__init__.py`) turns scipy-style
//! arguments into these.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use turbopt::eval::{DesignSpace, Diagnostics, Evaluation, Evaluator as RustEvaluator, Status};
use turbopt::optim::de::{DeSettings, DifferentialEvolution, ParameterControl, Strategy, Variant};
use turbopt::optim::ego::{EgoSettings, TwoLevel};
use turbopt::optim::{minimize, EvaluatorProblem, Outcome, Selection};
use turbopt::solver::StopSignal;

use crate::convert::array;
use crate::errors::value_error;
use crate::evaluator::Evaluator;
use crate::interrupt::interruptible;

/// The optimizer and the settings the caller chose.
#[derive(Clone, Debug)]
struct Method {
    name: String,
    budget: usize,
    seed: u64,
    target: Option<f64>,
    population: Option<usize>,
    strategy: Option<String>,
    /// F, or `(F_min, F_max)` dithered each generation (classic DE).
    mutation: Option<(f64, f64)>,
    recombination: Option<f64>,
    initial: Vec<Vec<f64>>,
}

impl Method {
    fn run(&self, problem: EvaluatorProblem<'_>, dim: usize) -> PyResult<Outcome> {
        let de = |variant: Variant| {
            let mut st = DeSettings::variant(variant, dim, self.budget, self.seed);
            if let Some(p) = self.population {
                st.population = p;
                st.final_population = st.final_population.map(|f| f.min(p));
            }
            st.target = self.target;
            st.initial = self.initial.clone();
            st
        };
        let settings = match self.name.as_str() {
            "lshade" => de(Variant::LShade),
            "shade" => de(Variant::Shade),
            "jde" => de(Variant::Jde),
            "de" => {
                let mut st = de(Variant::Jde);
                st.strategy = match self.strategy.as_deref().unwrap_or("best1bin") {
                    "best1bin" => Strategy::Best1Bin,
                    "rand1bin" => Strategy::Rand1Bin,
                    "currenttobest1bin" => Strategy::CurrentToBest1Bin,
                    other => return Err(value_error(format!("strategy {other:?}: turbopt has \"best1bin\", \"rand1bin\" and \"currenttobest1bin\""))),
                };
                let (f_min, f_max) = self.mutation.unwrap_or((0.5, 1.0));
                let cr = self.recombination.unwrap_or(0.7);
                st.control = if f_min == f_max { ParameterControl::Fixed { f: f_min, cr } } else { ParameterControl::Dither { f_min, f_max, cr } };
                st.archive = 0.0;
                st
            }
            "kriging" => {
                let mut st = EgoSettings::for_dimension(dim, self.budget, self.seed);
                // As a campaign does: a small budget takes a smaller initial sample.
                st.initial_samples = st.initial_samples.min(self.budget);
                st.target = self.target;
                st.initial = self.initial.clone();
                return minimize(problem, TwoLevel::new(st)).map_err(|e| value_error(e.to_string()));
            }
            other => return Err(value_error(format!("method {other:?}: expected \"lshade\", \"shade\", \"jde\", \"de\" or \"kriging\""))),
        };
        minimize(problem, DifferentialEvolution::new(settings)).map_err(|e| value_error(e.to_string()))
    }
}

/// Every evaluation that failed (its index and why), kept beside the optimizer's view of it.
#[derive(Default)]
struct Failures(Mutex<Vec<(usize, String)>>);

impl Failures {
    fn note(&self, index: usize, e: &Evaluation) {
        if !e.status.is_ok() {
            let why = e.status.reason().unwrap_or_default();
            self.0.lock().unwrap_or_else(|p| p.into_inner()).push((index, format!("{}: {why}", e.status.name())));
        }
    }
    fn take(self) -> Vec<(usize, String)> {
        let mut v = self.0.into_inner().unwrap_or_else(|p| p.into_inner());
        v.sort_by_key(|(i, _)| *i);
        v
    }
}

/// An evaluator that counts its evaluations and keeps their failures (the optimizer only sees
/// scores).
struct Counted<'a> {
    inner: &'a dyn RustEvaluator,
    count: AtomicUsize,
    failures: Failures,
}

impl RustEvaluator for Counted<'_> {
    fn space(&self) -> &DesignSpace {
        self.inner.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        let index = self.count.fetch_add(1, Ordering::SeqCst);
        let e = self.inner.evaluate(design);
        self.failures.note(index, &e);
        e
    }
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        let first = self.count.fetch_add(designs.len(), Ordering::SeqCst);
        let out = self.inner.evaluate_batch(designs);
        out.iter().enumerate().for_each(|(k, e)| self.failures.note(first + k, e));
        out
    }
    fn batch_capacity(&self) -> usize {
        self.inner.batch_capacity()
    }
}

/// An evaluator that answers every design `Status::Interrupted` once `stop` is requested: how
/// Ctrl-C reaches evaluators that do not watch a stop signal themselves (the analytic ones).
pub struct StopsOnSignal<'a> {
    pub inner: &'a dyn RustEvaluator,
    pub stop: &'a StopSignal,
}

impl RustEvaluator for StopsOnSignal<'_> {
    fn space(&self) -> &DesignSpace {
        self.inner.space()
    }
    fn objective_names(&self) -> Vec<String> {
        self.inner.objective_names()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        match self.stop.requested() {
            true => Evaluation::failed(Status::Interrupted("stopped at the caller's request".into())),
            false => self.inner.evaluate(design),
        }
    }
    fn evaluate_batch(&self, designs: &[Vec<f64>]) -> Vec<Evaluation> {
        match self.stop.requested() {
            true => designs.iter().map(|d| self.evaluate(d)).collect(),
            false => self.inner.evaluate_batch(designs),
        }
    }
    fn batch_capacity(&self) -> usize {
        self.inner.batch_capacity()
    }
}

/// A Python objective (and constraint functions) as an evaluator: `fun(x, *args)` gives the
/// objective, each constraint function a number or an array of numbers, feasible when `<= 0`.
/// An exception or a value that is not a finite number is a failed evaluation with its text.
struct PythonObjective {
    fun: Py<PyAny>,
    args: Py<PyTuple>,
    constraints: Vec<Py<PyAny>>,
    space: DesignSpace,
    stop: StopSignal,
}

impl PythonObjective {
    fn call(&self, py: Python<'_>, design: &[f64]) -> Result<(f64, Vec<f64>), String> {
        let text = |e: PyErr| format!("{}: {}", e.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "exception".into()), e.value(py));
        let x = array(py, design);
        let mut all = vec![x.clone().into_any()];
        all.extend(self.args.bind(py).iter());
        let call_args = PyTuple::new(py, all).map_err(text)?;
        let value = self.fun.bind(py).call1(call_args.clone()).map_err(text)?;
        let objective: f64 = value.extract().map_err(|_| format!("the objective returned {}, not a number", value.repr().map(|r| r.to_string()).unwrap_or_default()))?;
        let mut constraints = Vec::new();
        for g in &self.constraints {
            let v = g.bind(py).call1(call_args.clone()).map_err(text)?;
            match v.extract::<f64>() {
                Ok(c) => constraints.push(c),
                Err(_) => constraints.extend(crate::convert::design(&v, None, "a constraint's values").map_err(|e| e.value(py).to_string())?),
            }
        }
        Ok((objective, constraints))
    }
}

impl RustEvaluator for PythonObjective {
    fn space(&self) -> &DesignSpace {
        &self.space
    }
    fn objective_names(&self) -> Vec<String> {
        vec!["f".into()]
    }
    fn constraint_names(&self) -> Vec<String> {
        Vec::new()
    }
    fn evaluate(&self, design: &[f64]) -> Evaluation {
        if self.stop.requested() {
            return Evaluation::failed(Status::Interrupted("stopped at the caller's request".into()));
        }
        match Python::attach(|py| self.call(py, design)) {
            Ok((objective, constraints)) if objective.is_finite() => Evaluation { objectives: vec![objective], constraints, status: Status::Ok, diagnostics: Diagnostics::default() },
            Ok((objective, _)) => Evaluation::failed(Status::Failed(format!("the objective is {objective}"))),
            Err(why) => Evaluation::failed(Status::Failed(why)),
        }
    }
}

/// The outcome as a dict for `OptimizeResult`.
fn result_dict<'py>(py: Python<'py>, outcome: &Outcome, failures: Vec<(usize, String)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("x", array(py, &outcome.best_design))?;
    d.set_item("fun", outcome.best.objective)?;
    d.set_item("constraints", array(py, &outcome.best.constraints))?;
    d.set_item("violation", outcome.best.violation)?;
    d.set_item("feasible", outcome.best.is_feasible())?;
    d.set_item("nfev", outcome.evaluations)?;
    d.set_item("nit", outcome.iterations)?;
    d.set_item("message", outcome.termination.clone())?;
    d.set_item("history", outcome.history.clone())?;
    d.set_item("nfev_to_target", outcome.evaluations_to_target)?;
    d.set_item("failures", failures)?;
    Ok(d)
}

#[allow(clippy::too_many_arguments)]
fn method(name: &str, budget: usize, seed: u64, target: Option<f64>, population: Option<usize>, strategy: Option<String>, mutation: Option<(f64, f64)>, recombination: Option<f64>, initial: Vec<Vec<f64>>) -> PyResult<Method> {
    if budget < 2 {
        return Err(value_error(format!("budget {budget}: at least 2 evaluations")));
    }
    if target.is_some_and(|t| t.is_nan()) {
        return Err(value_error("target is NaN"));
    }
    Ok(Method { name: name.to_string(), budget, seed, target, population, strategy, mutation, recombination, initial })
}

/// Minimizes the Python callable `fun` over the box `[lower, upper]` (see `turbopt.minimize`).
#[pyfunction]
#[pyo3(signature = (fun, lower, upper, *, args, constraints, method, budget, seed, target=None, population=None, strategy=None, mutation=None, recombination=None, initial=None))]
#[allow(clippy::too_many_arguments)]
pub fn minimize_function<'py>(
    py: Python<'py>,
    fun: Py<PyAny>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    args: Py<PyTuple>,
    constraints: Vec<Py<PyAny>>,
    method: &str,
    budget: usize,
    seed: u64,
    target: Option<f64>,
    population: Option<usize>,
    strategy: Option<String>,
    mutation: Option<(f64, f64)>,
    recombination: Option<f64>,
    initial: Option<Vec<Vec<f64>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let m = self::method(method, budget, seed, target, population, strategy, mutation, recombination, initial.unwrap_or_default())?;
    let dim = lower.len();
    let names = (0..dim).map(|k| format!("x{k}")).collect();
    let baseline = lower.iter().zip(&upper).map(|(a, b)| 0.5 * (a + b)).collect();
    let stop = StopSignal::new();
    let objective = PythonObjective { fun, args, constraints, space: DesignSpace { names, lower, upper, baseline }, stop: stop.clone() };
    let counted = Counted { inner: &objective, count: AtomicUsize::new(0), failures: Failures::default() };
    let problem = EvaluatorProblem::new(&counted, Selection::default()).map_err(|e| value_error(e.to_string()))?;
    let outcome = interruptible(py, &stop, || m.run(problem, dim))??;
    result_dict(py, &outcome, counted.failures.take())
}

/// Minimizes objective `objective` of `evaluator` subject to its constraints (all, or those
/// indexed by `constraints`), entirely in Rust (see `turbopt.minimize`).
#[pyfunction]
#[pyo3(signature = (evaluator, *, objective, constraints, method, budget, seed, target=None, population=None, initial=None))]
#[allow(clippy::too_many_arguments)]
pub fn minimize_evaluator<'py>(
    py: Python<'py>,
    evaluator: &Evaluator,
    objective: usize,
    constraints: Option<Vec<usize>>,
    method: &str,
    budget: usize,
    seed: u64,
    target: Option<f64>,
    population: Option<usize>,
    initial: Option<Vec<Vec<f64>>>,
) -> PyResult<Bound<'py, PyDict>> {
    let m = self::method(method, budget, seed, target, population, None, None, None, initial.unwrap_or_default())?;
    let inner = evaluator.inner.evaluator();
    if objective >= inner.objective_names().len() {
        return Err(value_error(format!("objective {objective}: the evaluator has {:?}", inner.objective_names())));
    }
    let stoppable = StopsOnSignal { inner, stop: evaluator.stop() };
    let counted = Counted { inner: &stoppable, count: AtomicUsize::new(0), failures: Failures::default() };
    let problem = EvaluatorProblem::new(&counted, Selection { objective, constraints }).map_err(|e| value_error(e.to_string()))?;
    let dim = evaluator.dim();
    let outcome = interruptible(py, evaluator.stop(), || m.run(problem, dim))??;
    result_dict(py, &outcome, counted.failures.take())
}
