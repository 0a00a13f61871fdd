//! `turbopt.solve`: one blade solved at one operating point by the whole pipeline (the blade
//! file's own blade or a design of its parameterization), its figures, blade-surface Mis and
//! convergence history as numpy arrays, and `SolveResult.write` for the files `turbopt solve`
//! writes.

use std::path::{Path, PathBuf};

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use turbopt::cascade::{solve_blade, write_solve_files, BladeChoice, BladeSolve, SchemeChoice, Sequencing, SolverSettings};
use turbopt::eval::cfd::BackendChoice;
use turbopt::flow::case::{FreeStreamTurbulence, OperatingPoint};
use turbopt::geometry::{load_blade_file, BladeFile};
use turbopt::mesh::Density;
use turbopt::post::read_measured_mis;
use turbopt::solver::{write_restart, FlowModel, Restart, Silent, StopSignal, Stoppable};

use crate::convert::{design, path_like, to_python};
use crate::errors::{value_error, IntoPy};
use crate::evaluator::backend_choice;
use crate::interrupt::interruptible;

/// The named operating point of `blade`, or its first; a name it lacks is a `ValueError` that
/// lists the names it has.
pub fn operating_point(blade: &BladeFile, case: Option<&str>) -> PyResult<OperatingPoint> {
    let names: Vec<&str> = blade.operating_points.iter().map(|o| o.name.as_str()).collect();
    match case {
        Some(name) => blade.operating_points.iter().find(|o| o.name == name).cloned().ok_or_else(|| value_error(format!("blade {} has no operating point {name:?} (it has {names:?})", blade.name))),
        None => blade.operating_points.first().cloned().ok_or_else(|| value_error(format!("blade {} has no operating point", blade.name))),
    }
}

pub fn density(name: &str) -> PyResult<Density> {
    match name {
        "coarse" => Ok(Density::Coarse),
        "medium" => Ok(Density::Medium),
        "fine" => Ok(Density::Fine),
        other => Err(value_error(format!("density {other:?}: expected \"coarse\", \"medium\" or \"fine\""))),
    }
}

fn scheme(name: &str) -> PyResult<SchemeChoice> {
    match name {
        "implicit" => Ok(SchemeChoice::Implicit),
        "explicit" => Ok(SchemeChoice::Explicit),
        "auto" => Ok(SchemeChoice::Auto),
        other => Err(value_error(format!("scheme {other:?}: expected \"implicit\", \"explicit\" or \"auto\""))),
    }
}

fn sequencing(name: &str) -> PyResult<Sequencing> {
    match name {
        "auto" => Ok(Sequencing::Auto),
        "off" => Ok(Sequencing::Off),
        "coarse" => Ok(Sequencing::From(Density::Coarse)),
        "medium" => Ok(Sequencing::From(Density::Medium)),
        other => Err(value_error(format!("sequence {other:?}: expected \"auto\", \"off\", \"coarse\" or \"medium\""))),
    }
}

fn model(name: &str) -> PyResult<FlowModel> {
    match name {
        "sa" => Ok(FlowModel::SpalartAllmaras),
        "sa_bcm" => Ok(FlowModel::SaBcm),
        "sa_gamma" => Ok(FlowModel::SaGamma),
        "laminar" => Ok(FlowModel::Laminar),
        "euler" => Ok(FlowModel::Euler),
        other => Err(value_error(format!("model {other:?}: expected \"sa\", \"sa_bcm\", \"sa_gamma\", \"laminar\" or \"euler\""))),
    }
}

/// Solves `blade` (a blade file) at `case` (default: the file's first operating point) on the
/// `density` mesh, as `turbopt solve` does: RANS-SA, the implicit scheme, until the figures are
/// steady. `design` solves a design vector of the blade's parameterization instead of its own
/// profile. `turbulence_intensity` (a fraction, what `model="sa_bcm"` and `"sa_gamma"` need) and
/// `nu_tilde_ratio` (inflow nu~/nu) override the operating point's. `sequence`: start from a
/// coarser mesh's converged flow (`"auto"`: the fine mesh from the medium one; `"off"`,
/// `"coarse"`, `"medium"`). The solve releases the interpreter and stops on Ctrl-C (KeyboardInterrupt).
#[pyfunction]
#[pyo3(signature = (blade, *, case=None, density="coarse", scheme="implicit", backend="cpu", design=None, threads=None, device=None, max_iterations=None, model=None, turbulence_intensity=None, nu_tilde_ratio=None, sequence="auto"))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    blade: &Bound<'_, PyAny>,
    case: Option<&str>,
    density: &str,
    scheme: &str,
    backend: &str,
    design: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
    device: Option<usize>,
    max_iterations: Option<usize>,
    model: Option<&str>,
    turbulence_intensity: Option<f64>,
    nu_tilde_ratio: Option<f64>,
    sequence: &str,
) -> PyResult<SolveResult> {
    let path = path_like(blade).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("blade must be the path of a blade file"))?;
    let file = load_blade_file(&path).py_err()?;
    let mut op = operating_point(&file, case)?;
    FreeStreamTurbulence::new(turbulence_intensity, nu_tilde_ratio).map_err(value_error)?.apply_to(&mut op);
    let density = self::density(density)?;
    let scheme = self::scheme(scheme)?;
    let backend = backend_choice(Some(backend), device, None, threads, &BackendChoice::default())?.unwrap_or_default();
    let mut settings = SolverSettings { scheme, backend, max_iterations: scheme.default_max_iterations(), ..SolverSettings::default() };
    if let Some(m) = model {
        settings.config.model = self::model(m)?;
    }
    settings.sequencing = self::sequencing(sequence)?;
    settings.sequencing.check(density).map_err(|e| value_error(format!("sequence={sequence:?}: {e}")))?;
    if let Some(n) = max_iterations {
        if n == 0 {
            return Err(value_error("max_iterations must be at least 1"));
        }
        settings.max_iterations = n;
    }
    turbopt::perf::auto::resolve(&mut settings, &path, Some(&op.name), density).py_err()?;
    if let Some(n) = max_iterations {
        settings.max_iterations = n;
    }
    let x = match design {
        Some(d) => {
            let space = file.design_space().ok_or_else(|| value_error(format!("blade {} has no design parameterization", file.name)))?;
            Some(self::design_vector(d, space.dim())?)
        }
        None => None,
    };
    let stop = StopSignal::new();
    let solved = interruptible(py, &stop, || {
        let which = x.as_deref().map_or(BladeChoice::Main, BladeChoice::Design);
        solve_blade(&file, which, &op, density, &settings, &mut Stoppable { inner: &mut Silent, stop: &stop })
    })?
    .py_err()?;
    Ok(SolveResult { blade: file.name.clone(), case: op.name.clone(), solved })
}

fn design_vector(d: &Bound<'_, PyAny>, dim: usize) -> PyResult<Vec<f64>> {
    design(d, Some(dim), "design")
}

/// The result of `turbopt.solve`: the figures, the blade-surface isentropic Mach number and the
/// convergence history, with the files of `turbopt solve` a `write` away.
#[pyclass(frozen, module = "turbopt._turbopt")]
pub struct SolveResult {
    blade: String,
    case: String,
    solved: BladeSolve,
}

#[pymethods]
impl SolveResult {
    /// Entropy rise, exit angle [deg], loss coefficient, mass flow [kg/(s m)] and exit isentropic
    /// Mach number.
    #[getter]
    fn figures<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let p = &self.solved.solve.figures.performance;
        let d = PyDict::new(py);
        d.set_item("entropy_rise", p.entropy_rise)?;
        d.set_item("exit_angle_deg", p.exit_angle_deg)?;
        d.set_item("loss_coefficient", p.loss_coefficient)?;
        d.set_item("mass_flow", p.mass_flow)?;
        d.set_item("exit_isentropic_mach", p.exit_isentropic_mach)?;
        Ok(d)
    }
    #[getter]
    fn entropy_rise(&self) -> f64 {
        self.solved.solve.figures.performance.entropy_rise
    }
    #[getter]
    fn exit_angle_deg(&self) -> f64 {
        self.solved.solve.figures.performance.exit_angle_deg
    }
    #[getter]
    fn loss_coefficient(&self) -> f64 {
        self.solved.solve.figures.performance.loss_coefficient
    }
    #[getter]
    fn mass_flow(&self) -> f64 {
        self.solved.solve.figures.performance.mass_flow
    }
    #[getter]
    fn exit_isentropic_mach(&self) -> f64 {
        self.solved.solve.figures.performance.exit_isentropic_mach
    }
    /// Blade-surface distributions: a dict of arrays `side` (`"ss"` suction, `"ps"` pressure),
    /// `x` and `y` [m], `x_over_axial_chord`, `p` [Pa], `mis`, `cf` (tau_w / (P01 - p2), negative
    /// where separated) and `mut_over_mu` (the layer's largest eddy-viscosity ratio).
    #[getter]
    fn mis<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.solved.solve.figures.surface;
        let chord = self.solved.prepared.planes.axial_chord;
        let column = |f: &dyn Fn(&turbopt::post::SurfacePoint) -> f64| s.iter().map(f).collect::<Vec<f64>>();
        let d = PyDict::new(py);
        let sides: Vec<&str> = s.iter().map(|p| p.side.label()).collect();
        d.set_item("side", py.import("numpy")?.getattr("array")?.call1((sides,))?)?;
        d.set_item("x", PyArray1::from_vec(py, column(&|p| p.x)))?;
        d.set_item("y", PyArray1::from_vec(py, column(&|p| p.y)))?;
        d.set_item("x_over_axial_chord", PyArray1::from_vec(py, column(&|p| p.x_from_le / chord)))?;
        d.set_item("p", PyArray1::from_vec(py, column(&|p| p.p)))?;
        d.set_item("mis", PyArray1::from_vec(py, column(&|p| p.mis)))?;
        d.set_item("cf", PyArray1::from_vec(py, column(&|p| p.cf)))?;
        d.set_item("mut_over_mu", PyArray1::from_vec(py, column(&|p| p.eddy_viscosity_ratio)))?;
        Ok(d)
    }
    /// The convergence history: one row per iteration, columns iteration, wall time [s] and the
    /// RMS residuals of rho, rho u, rho v, rho E, rho nu~ and rho gamma (zero unless the model
    /// is SA-gamma; the last attempt's solve).
    #[getter]
    fn history<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows: Vec<Vec<f64>> = self.solved.solve.outcome.history.records.iter().map(|r| [vec![r.iteration as f64, r.wall_s], r.residuals.to_vec()].concat()).collect();
        PyArray2::from_vec2(py, &rows).map_err(|e| value_error(e.to_string()))
    }
    /// The coarser meshes solved first (`sequence`), coarsest first: a list of dicts with
    /// `density`, `cells`, `iterations`, `wall_s`, `outcome` and `started_next`.
    #[getter]
    fn coarser<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.solved.coarser)
    }
    /// Orders of magnitude the density residual dropped.
    #[getter]
    fn residual_drop_orders(&self) -> f64 {
        self.solved.solve.outcome.history.orders_dropped()
    }
    /// Iterations of every attempt and phase.
    #[getter]
    fn iterations(&self) -> usize {
        self.solved.solve.iterations
    }
    #[getter]
    fn converged(&self) -> bool {
        self.solved.solve.stop.converged()
    }
    /// Why the solve stopped (`"converged (steady figures)"`...).
    #[getter]
    fn stop(&self) -> &'static str {
        self.solved.solve.stop.describe()
    }
    /// The recovery chain's attempts (one when the first succeeded).
    #[getter]
    fn attempts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.solved.solve.attempts)
    }
    #[getter]
    fn cells(&self) -> usize {
        self.solved.prepared.mesh.n_cells()
    }
    #[getter]
    fn backend(&self) -> String {
        self.solved.backend.clone()
    }
    /// Writes the files of `turbopt solve` into `out`: `solution.vtm` (ParaView), `convergence.csv`
    /// and `.png`, `mis.csv` and `.png` (against the measured taps of `compare`, a CSV of
    /// `data/ls89/mur47_isentropic_mach_experiment.csv`'s form), and `restart.ron`. Returns the RMS
    /// difference from the taps when `compare` is given.
    #[pyo3(signature = (out, *, compare=None))]
    fn write(&self, out: &Bound<'_, PyAny>, compare: Option<&Bound<'_, PyAny>>) -> PyResult<Option<f64>> {
        let out: PathBuf = path_like(out).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("out must be a path"))?;
        let measured = match compare {
            Some(c) => Some(read_measured_mis(&path_like(c).ok_or_else(|| pyo3::exceptions::PyTypeError::new_err("compare must be a path"))?).py_err()?),
            None => None,
        };
        let s = &self.solved.solve;
        let comparison = write_solve_files(&out, &self.blade, &self.solved.prepared, &s.outcome, &s.figures.surface, measured.as_deref()).py_err()?;
        let restart = Restart::after(&self.blade, &self.case, None, &s.outcome.history, &s.outcome.solution);
        write_restart(&Path::new(&out).join("restart.ron"), &restart).py_err()?;
        Ok(comparison.map(|c| c.rms))
    }
    fn __repr__(&self) -> String {
        let p = &self.solved.solve.figures.performance;
        format!(
            "SolveResult({} {}: {} after {} iterations, entropy rise {:.6e}, exit angle {:.3} deg, loss coefficient {:.5})",
            self.blade,
            self.case,
            self.solved.solve.stop.describe(),
            self.solved.solve.iterations,
            p.entropy_rise,
            p.exit_angle_deg,
            p.loss_coefficient
        )
    }
}

