//! `turbopt.import_blade`: a blade of one's own from a coordinate file, as `turbopt import`
//! does (the same library calls): the fit of the design parameterization, the blade file, the
//! picture of the fit and the report.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use turbopt::flow::case::{exit_pressure, OperatingPoint, DEFAULT_NU_TILDE_RATIO};
use turbopt::flow::gas::Gas;
use turbopt::geometry::{import_blade as import, read_profile, ImportSettings, SolvedShape, Units};
use turbopt::cascade::MeshCheck;
use turbopt::report::{report_json, write_import};

use crate::convert::{path_like, to_python};
use crate::errors::{value_error, IntoPy};

fn units(name: &str, chord: Option<f64>) -> PyResult<Units> {
    match name {
        "m" => Ok(Units::Metres),
        "mm" => Ok(Units::Millimetres),
        "in" => Ok(Units::Inches),
        "chord" => chord.map(Units::Chord).ok_or_else(|| value_error("units=\"chord\" needs chord=, the chord in metres")),
        other => Err(value_error(format!("units {other:?}: expected \"m\", \"mm\", \"in\" or \"chord\""))),
    }
}

/// One operating point from a dict: name, p01, t01, alpha1 (deg), and p2 or m2is; optional
/// nu_tilde_ratio and turbulence_intensity (a fraction).
fn operating_point(d: &Bound<'_, PyDict>, gas: &Gas) -> PyResult<OperatingPoint> {
    let get = |key: &str| -> PyResult<Option<f64>> { d.get_item(key)?.map(|v| v.extract::<f64>()).transpose() };
    let name: String = d.get_item("name")?.ok_or_else(|| value_error("an operating point needs a \"name\""))?.extract()?;
    let need = |key: &str| -> PyResult<f64> { get(key)?.ok_or_else(|| value_error(format!("operating point {name:?}: {key} is missing"))) };
    let (p01, t01, alpha1_deg) = (need("p01")?, need("t01")?, need("alpha1")?);
    let p2 = exit_pressure(p01, get("p2")?, get("m2is")?, gas.gamma).map_err(|why| value_error(format!("operating point {name:?}: {why}")))?;
    Ok(OperatingPoint { name, p01, t01, alpha1_deg, p2, nu_tilde_ratio: get("nu_tilde_ratio")?.unwrap_or(DEFAULT_NU_TILDE_RATIO), turbulence_intensity: get("turbulence_intensity")? })
}

/// Imports the blade in `coordinates` (one file with the whole profile, or a list of two files
/// with one side each): `pitch` (and `chord`) in the file's units (for `units="chord"`: pitch
/// over chord, and the chord in metres), `operating_points` a list of dicts. Writes the blade file
/// at `out` (default NAME.ron), its fit picture and report beside it, and returns the report
/// (a dict) with the paths written.
#[pyfunction]
#[pyo3(signature = (coordinates, *, pitch, units, operating_points, name=None, chord=None, out=None, overwrite=false, mirror=false, rotate=0.0, fit_tolerance=None, force=false, solve_points=false, camber_points=6, thickness_points=14, description=None))]
#[allow(clippy::too_many_arguments)]
pub fn import_blade<'py>(
    py: Python<'py>,
    coordinates: &Bound<'py, PyAny>,
    pitch: f64,
    units: &str,
    operating_points: &Bound<'py, PyList>,
    name: Option<String>,
    chord: Option<f64>,
    out: Option<&Bound<'py, PyAny>>,
    overwrite: bool,
    mirror: bool,
    rotate: f64,
    fit_tolerance: Option<f64>,
    force: bool,
    solve_points: bool,
    camber_points: usize,
    thickness_points: usize,
    description: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let paths: Vec<PathBuf> = match path_like(coordinates) {
        Some(p) => vec![p],
        None => coordinates.extract::<Vec<Bound<'py, PyAny>>>()?.iter().map(|p| path_like(p).ok_or_else(|| value_error("coordinates: a path, or a list of two paths (one side each)"))).collect::<PyResult<_>>()?,
    };
    let units = self::units(units, chord)?;
    let positive = |what: &str, v: f64| if v > 0.0 && v.is_finite() { Ok(v) } else { Err(value_error(format!("{what} must be a positive number, got {v}"))) };
    let name = name.unwrap_or_else(|| paths[0].file_stem().map_or_else(|| "blade".into(), |s| s.to_string_lossy().into_owned()));
    let mut settings = ImportSettings::in_file_units(name, units, pitch, chord).map_err(turbopt::Error::from).py_err()?;
    settings.operating_points = operating_points.iter().map(|p| operating_point(p.cast::<PyDict>().map_err(|_| value_error("operating_points: a list of dicts (name, p01, t01, alpha1, p2 or m2is)"))?, &settings.gas)).collect::<PyResult<_>>()?;
    settings.description = description;
    settings.mirror = mirror;
    settings.rotate_deg = rotate;
    if let Some(t) = fit_tolerance {
        settings.fit_tolerance_percent = positive("fit_tolerance", t)?;
    }
    settings.force = force;
    settings.shape = if solve_points { SolvedShape::Points } else { SolvedShape::Fitted };
    settings.camber_points = camber_points;
    settings.thickness_points = thickness_points;
    let out = match out {
        Some(o) => path_like(o).ok_or_else(|| value_error("out must be a path"))?,
        None => PathBuf::from(format!("{}.ron", settings.name)),
    };
    let command = format!("turbopt.import_blade({:?}, pitch={pitch}, units={:?}, ...)", paths[0].display().to_string(), units_name(units));
    let (imported, files) = py
        .detach(|| -> turbopt::Result<_> {
            let refs: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
            let imported = import(&read_profile(&refs)?, &settings)?;
            let check = MeshCheck::of(&imported.blade).map_err(|e| turbopt::Error::Mesh(format!("the imported blade does not mesh: {e}")))?;
            let checks = serde_json::to_value(&check).map_err(|e| turbopt::Error::Other(e.to_string()))?;
            let files = write_import(&imported, &settings, &out, overwrite, &command, &checks)?;
            Ok((report_json(&imported, &checks)?, files))
        })
        .py_err()?;
    let report = to_python(py, &imported)?;
    report.set_item("blade_file", files.blade.display().to_string())?;
    report.set_item("picture", files.picture.display().to_string())?;
    report.set_item("report_file", files.report.display().to_string())?;
    Ok(report)
}

fn units_name(u: Units) -> &'static str {
    match u {
        Units::Metres => "m",
        Units::Millimetres => "mm",
        Units::Inches => "in",
        Units::Chord(_) => "chord",
    }
}
