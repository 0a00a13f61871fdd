//! The native module of the turbopt Python package (`turbopt._turbopt`): a thin PyO3 layer over
//! the turbopt crate, not a second implementation. Long work releases the interpreter and
//! honours Ctrl-C (`interrupt`); errors become Python exceptions with the Rust message
//! (`errors`); arrays are numpy (`convert`). The Pythonic surface (keyword arguments,
//! scipy-style `minimize`, `OptimizeResult`) is `python/turbopt/__init__.py`.

mod campaign;
mod convert;
mod errors;
mod evaluator;
mod import_blade;
mod interrupt;
mod optimize;
mod solve;

use pyo3::prelude::*;

#[pymodule]
fn _turbopt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CUDA", cfg!(feature = "cuda"))?;
    m.add("GpuError", py.get_type::<errors::GpuError>())?;
    m.add("SolverError", py.get_type::<errors::SolverError>())?;
    m.add_class::<evaluator::Evaluator>()?;
    m.add_class::<evaluator::Evaluation>()?;
    m.add_class::<evaluator::DesignSpace>()?;
    m.add_class::<solve::SolveResult>()?;
    m.add_function(wrap_pyfunction!(solve::solve, m)?)?;
    m.add_function(wrap_pyfunction!(import_blade::import_blade, m)?)?;
    m.add_function(wrap_pyfunction!(optimize::minimize_function, m)?)?;
    m.add_function(wrap_pyfunction!(optimize::minimize_evaluator, m)?)?;
    m.add_function(wrap_pyfunction!(campaign::run_campaign, m)?)?;
    Ok(())
}
