//! The files of an imported blade (`geometry::import`), the same from the command line and from
//! Python: the blade file with its provenance header, the picture of the fit over the points and
//! the import report as JSON.

use std::path::{Path, PathBuf};

use super::plots::{plot_fit, FitPicture};
use crate::error::{Error, Result};
use crate::geometry::{ImportSettings, Imported, SolvedShape};

/// Where [`write_import`] wrote: the blade file, the fit picture (`NAME.fit.png` beside it) and
/// the report (`NAME.import.json`).
#[derive(Clone, Debug)]
pub struct ImportFiles {
    pub blade: PathBuf,
    pub picture: PathBuf,
    pub report: PathBuf,
}

/// Writes the blade file of `imported` at `out` (refusing to replace one unless `overwrite`),
/// its fit picture and report; `command` (the command line or call that made it) goes into the
/// file's header, `checks` (fields of the checks made on the blade file, such as its mesh's
/// quality) into the report beside the import's own.
pub fn write_import(imported: &Imported, settings: &ImportSettings, out: &Path, overwrite: bool, command: &str, checks: &serde_json::Value) -> Result<ImportFiles> {
    if out.exists() && !overwrite {
        return Err(Error::Invalid(format!("{} exists: give another output path, or overwrite it", out.display())));
    }
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let report = &imported.report;
    let text = imported.blade.to_ron(&file_header(imported, settings, command))?;
    std::fs::write(out, text).map_err(|e| Error::io(out, e))?;
    let picture = out.with_extension("fit.png");
    plot_fit(
        &picture,
        &FitPicture {
            title: format!("{}: design fitted to {} ({:.4} % RMS, {:.4} % max of the chord)", settings.name, report.origin, report.fit_rms_percent_chord, report.fit_max_percent_chord),
            points: &imported.points,
            through_points: &imported.coordinates,
            fitted: &imported.fitted,
            pitch: settings.pitch,
            chord: report.chord,
            tolerance_percent: settings.fit_tolerance_percent,
        },
    )?;
    let json = serde_json::to_string(&report_json(imported, checks)?).map_err(|e| Error::Other(e.to_string()))?;
    let report_path = out.with_extension("import.json");
    std::fs::write(&report_path, json).map_err(|e| Error::io(&report_path, e))?;
    Ok(ImportFiles { blade: out.to_path_buf(), picture, report: report_path })
}

/// The import report with the fields of `checks` added (an object; anything else adds nothing).
pub fn report_json(imported: &Imported, checks: &serde_json::Value) -> Result<serde_json::Value> {
    let mut v = serde_json::to_value(&imported.report).map_err(|e| Error::Other(e.to_string()))?;
    if let (Some(fields), Some(extra)) = (v.as_object_mut(), checks.as_object()) {
        fields.extend(extra.clone());
    }
    Ok(v)
}

/// The comment lines at the top of the blade file: where it came from and how.
fn file_header(imported: &Imported, settings: &ImportSettings, command: &str) -> String {
    let r = &imported.report;
    let turned = settings.mirror || settings.rotate_deg != 0.0;
    let solved = match settings.shape {
        SolvedShape::Fitted => "the fitted design",
        SolvedShape::Points => "a periodic spline through the points",
    };
    [
        format!("// Imported by turbopt from {} ({} points).", r.origin, r.points),
        format!("// Command: {command}"),
        format!(
            "// Frame: the most upstream point at (0, 0) (it was at ({:.6}, {:.6}) m in the file{}), x axial, y pitchwise; metres, pascal, kelvin, degrees from axial, positive towards +y.",
            r.origin_in_file[0],
            r.origin_in_file[1],
            if turned { ", after mirroring and turning" } else { "" }
        ),
        format!(
            "// `blade` is {solved}; `design` the design parameterization fitted to the points ({:.4} % RMS, {:.4} % max of the chord) with bounds for optimization round it.",
            r.fit_rms_percent_chord, r.fit_max_percent_chord
        ),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect()
}
