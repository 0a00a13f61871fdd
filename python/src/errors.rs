//! turbopt's errors as Python exceptions: bad input is a `ValueError` (or `FileNotFoundError`,
//! `TypeError`), a GPU that cannot be opened a `GpuError`, a solve that failed after every
//! attempt a `SolverError`; every message is the Rust one, naming the problem.

use pyo3::exceptions::{PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(_turbopt, GpuError, PyRuntimeError, "The GPU backend cannot run here: no `cuda` feature in this build, no driver, or no such device.");
pyo3::create_exception!(_turbopt, SolverError, PyRuntimeError, "A solve failed (diverged or went non-physical) after every attempt of the recovery chain.");

/// The Python exception of a turbopt error.
pub fn to_py(e: turbopt::Error) -> PyErr {
    use turbopt::Error;
    let text = e.to_string();
    match e {
        Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
        Error::Io { .. } => PyOSError::new_err(text),
        Error::Input { .. } | Error::Invalid(_) | Error::Geometry(_) | Error::Mesh(_) => PyValueError::new_err(text),
        Error::Gpu(_) | Error::Devices(_) => GpuError::new_err(text),
        Error::Diverged { .. } => SolverError::new_err(text),
        Error::Interrupted(_) => PyKeyboardInterrupt::new_err(text),
        Error::Other(_) => PyRuntimeError::new_err(text),
    }
}

/// `Result<T, turbopt::Error>` into a `PyResult<T>`.
pub trait IntoPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPy<T> for turbopt::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A `ValueError` naming `what`.
pub fn value_error(what: impl Into<String>) -> PyErr {
    PyValueError::new_err(what.into())
}
