//! Values between Python and Rust: design vectors and batches as float64 numpy arrays (any
//! array-like is accepted), checked for shape and finite values; serializable Rust values as
//! plain Python objects (through JSON, exact for every f64).

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::value_error;

/// `x` as a float64 numpy array (`numpy.asarray(x, dtype=float)`).
fn as_float_array<'py>(x: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = x.py();
    let kwargs = PyDict::new(py);
    kwargs.set_item("dtype", "float64")?;
    py.import("numpy")?
        .getattr("asarray")?
        .call((x,), Some(&kwargs))
        .map_err(|e| PyTypeError::new_err(format!("{what} must be an array of numbers: {e}")))
}

/// A design vector: a 1-D array of `dim` finite numbers (`dim: None` takes any length).
pub fn design(x: &Bound<'_, PyAny>, dim: Option<usize>, what: &str) -> PyResult<Vec<f64>> {
    let array = as_float_array(x, what)?;
    let array = array.cast::<PyArray1<f64>>().map_err(|_| value_error(format!("{what} must be one-dimensional, got shape {:?}", shape(&array))))?;
    let values = array.readonly().as_slice().map(|s| s.to_vec()).or_else(|_| array.to_vec())
        .map_err(|e| value_error(format!("{what}: {e}")))?;
    check(&values, dim, what)?;
    Ok(values)
}

/// A batch of designs: a 2-D array, one design of `dim` finite numbers per row.
pub fn designs(x: &Bound<'_, PyAny>, dim: usize, what: &str) -> PyResult<Vec<Vec<f64>>> {
    let array = as_float_array(x, what)?;
    let array = array.cast::<PyArray2<f64>>().map_err(|_| value_error(format!("{what} must be two-dimensional (one design per row), got shape {:?}", shape(&array))))?;
    let rows = array.readonly().as_array().rows().into_iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    for (k, row) in rows.iter().enumerate() {
        check(row, Some(dim), &format!("{what}, row {k}"))?;
    }
    Ok(rows)
}

fn check(values: &[f64], dim: Option<usize>, what: &str) -> PyResult<()> {
    if let Some(n) = dim {
        if values.len() != n {
            return Err(value_error(format!("{what} has {} values, the design space {n}", values.len())));
        }
    }
    if let Some(k) = values.iter().position(|v| !v.is_finite()) {
        return Err(value_error(format!("{what}: value {k} is {} (every value must be finite)", values[k])));
    }
    Ok(())
}

fn shape(array: &Bound<'_, PyAny>) -> Vec<usize> {
    array.getattr("shape").and_then(|s| s.extract::<Vec<usize>>()).unwrap_or_default()
}

/// A float64 numpy array of `values`.
pub fn array<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, values)
}

/// A serializable value as plain Python objects (dicts, lists, floats, strings).
pub fn to_python<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value).map_err(|e| value_error(format!("JSON: {e}")))?;
    py.import("json")?.getattr("loads")?.call1((text,))
}

/// A Python value (dicts, lists, numbers, strings) as a Rust value through JSON.
pub fn from_python<T: serde::de::DeserializeOwned>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let py = value.py();
    let text = py.import("json")?.getattr("dumps")?.call1((value,))?;
    let text: String = text.extract()?;
    serde_json::from_str(&text).map_err(|e| value_error(format!("{what}: {e}")))
}

/// A path-like (`str`, `pathlib.Path`) as a string, or `None` for anything else.
pub fn path_like(value: &Bound<'_, PyAny>) -> Option<std::path::PathBuf> {
    let py = value.py();
    let fspath = py.import("os").and_then(|os| os.getattr("fspath")).ok()?;
    fspath.call1((value,)).ok()?.extract::<String>().ok().map(std::path::PathBuf::from)
}
