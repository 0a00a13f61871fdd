//! Blade files (RON): a blade section, its cascade, gas and operating points, and optionally the
//! design parameterization an optimizer varies. See blades/ls89.ron for an example.

use super::bezier_blade::BezierBlade;
use super::cascade::Cascade;
use super::coordinates::CoordinateBlade;
use super::design::DesignParameterization;
use super::validity::{check_pitch_overlap, GeometryError};
use super::DesignSpace;
use super::Outline;
use crate::error::Error;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The three ways to define a blade section.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum BladeDefinition {
    /// Suction and pressure sides as Bezier curves, closed by a trailing-edge circle.
    Bezier(BezierBlade),
    /// The camber + thickness design parameterization.
    Design(DesignParameterization),
    /// Imported coordinates through an interpolating spline.
    Coordinates(CoordinateBlade),
}

impl BladeDefinition {
    /// Dense validated outline of the section.
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        match self {
            BladeDefinition::Bezier(b) => b.outline(),
            BladeDefinition::Design(d) => d.outline(),
            BladeDefinition::Coordinates(c) => c.outline(),
        }
    }
}

/// Contents of a blade file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BladeFile {
    pub name: String,
    pub description: String,
    /// The main definition of the section (what [`BladeFile::outline`] returns).
    pub blade: BladeDefinition,
    /// The optimization parameterization with its bounds (for LS89 fitted to the main definition).
    #[serde(default)]
    pub design: Option<DesignParameterization>,
    pub cascade: Cascade,
    pub gas: Gas,
    pub operating_points: Vec<OperatingPoint>,
}

/// Read, parse and validate a blade file. Errors name the file and, for syntax or type errors,
/// the line and column in it.
pub fn load_blade_file(path: impl AsRef<Path>) -> Result<BladeFile, Error> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    BladeFile::parse(&text).map_err(|reason| Error::Input { path: path.display().to_string(), reason })
}

impl BladeFile {
    /// Parse and validate RON text (the contents of a blade file); errors carry the RON position.
    pub fn from_ron_str(text: &str) -> Result<BladeFile, Error> {
        BladeFile::parse(text).map_err(|reason| Error::Input { path: "(RON text)".into(), reason })
    }

    fn parse(text: &str) -> Result<BladeFile, String> {
        let file: BladeFile = ron::from_str(text).map_err(|e| format!("RON error at line {}, column {}: {}", e.position.line, e.position.col, e.code))?;
        file.check()?;
        Ok(file)
    }

    /// Checks beyond syntax (run by [`load_blade_file`]): the blade builds and is valid,
    /// neighbouring blades do not overlap at the cascade pitch, the design (if any) is within its
    /// bounds and builds, the gas and the operating points are physical and uniquely named.
    pub fn validate(&self) -> Result<(), Error> {
        self.check().map_err(|reason| Error::Input { path: format!("blade `{}`", self.name), reason })
    }

    fn check(&self) -> Result<(), String> {
        let outline = self.blade.outline().map_err(|e| format!("blade: {e}"))?;
        self.cascade.validate().map_err(|e| e.to_string())?;
        check_pitch_overlap(&outline, self.cascade.pitch).map_err(|e| format!("cascade: {e}"))?;
        if let Some(design) = &self.design {
            design.check_bounds().map_err(|e| format!("design: {e}"))?;
            design.outline().map_err(|e| format!("design: {e}"))?;
        }
        let g = &self.gas;
        let gas_ok =
            [g.gas_constant, g.gamma - 1.0, g.prandtl, g.turbulent_prandtl, g.mu_ref, g.t_ref, g.sutherland_s].iter().all(|v| *v > 0.0 && v.is_finite());
        if !gas_ok {
            return Err(format!("gas: every constant must be positive and gamma > 1, got {g:?}"));
        }
        if self.operating_points.is_empty() {
            return Err("operating_points: at least one is needed".into());
        }
        for (k, op) in self.operating_points.iter().enumerate() {
            if self.operating_points[..k].iter().any(|o| o.name == op.name) {
                return Err(format!("operating point `{}` is defined twice", op.name));
            }
            let ok = op.p01 > 0.0 && op.t01 > 0.0 && op.p2 > 0.0 && op.p2 < op.p01 && op.alpha1_deg.abs() < 90.0 && op.nu_tilde_ratio >= 0.0;
            if !ok {
                return Err(format!(
                    "operating point `{}`: need P01 > p2 > 0, T01 > 0, |alpha1| < 90 deg, nu_tilde_ratio >= 0 (got P01 {}, p2 {}, T01 {}, alpha1 {}, ratio {})",
                    op.name, op.p01, op.p2, op.t01, op.alpha1_deg, op.nu_tilde_ratio
                ));
            }
        }
        Ok(())
    }

    /// The file's RON text, after `header` (comment lines, each starting with `//`).
    pub fn to_ron(&self, header: &str) -> Result<String, Error> {
        let pretty = ron::ser::PrettyConfig::default().struct_names(false);
        let body = ron::ser::to_string_pretty(self, pretty).map_err(|e| Error::Other(format!("writing blade `{}` as RON: {e}", self.name)))?;
        Ok(format!("{header}{}\n", one_line_records(&body)))
    }

    /// Outline of the main definition.
    pub fn outline(&self) -> Result<Outline, GeometryError> {
        self.blade.outline()
    }

    fn design_or_err(&self) -> Result<&DesignParameterization, GeometryError> {
        self.design.as_ref().ok_or_else(|| GeometryError::InvalidParameter {
            name: "design".into(),
            reason: format!("blade file `{}` has no design parameterization", self.name),
        })
    }

    /// The optimizer's design space (free design variables), if the file has a design.
    pub fn design_space(&self) -> Option<DesignSpace> {
        self.design.as_ref().map(|d| d.design_space())
    }

    /// Outline of a design vector (free variables in [`DesignParameterization::to_vector`]
    /// order): bounds, thickness, self-intersection and pitch overlap checked.
    pub fn design_outline(&self, x: &[f64]) -> Result<Outline, GeometryError> {
        self.design_or_err()?.from_vector(x)?.outline()
    }

    /// The cascade of a design vector: the file's cascade with the design's pitch.
    pub fn design_cascade(&self, x: &[f64]) -> Result<Cascade, GeometryError> {
        let d = self.design_or_err()?.from_vector(x)?;
        Ok(Cascade { pitch: d.pitch.value, ..self.cascade.clone() })
    }

    /// The operating point of that name.
    pub fn operating_point(&self, name: &str) -> Result<&OperatingPoint, Error> {
        self.operating_points.iter().find(|o| o.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.operating_points.iter().map(|o| o.name.as_str()).collect();
            Error::Invalid(format!("blade `{}` has no operating point `{name}` (it has: {})", self.name, known.join(", ")))
        })
    }
}

/// Puts each flat record of pretty RON (a design parameter, an operating point, a point) on one
/// line, as the hand-written blade files have them: `(name: "chord", value: 0.1, ...),`.
fn one_line_records(pretty: &str) -> String {
    let lines: Vec<&str> = pretty.lines().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut k = 0;
    while k < lines.len() {
        let opens = lines[k].trim_end().ends_with('(') && !lines[k].trim_end().ends_with("((");
        let end = (k + 1..lines.len()).find(|&j| !is_flat_field(lines[j]));
        match end {
            Some(j) if opens && j > k + 1 && matches!(lines[j].trim(), ")" | "),") => {
                let fields: Vec<&str> = lines[k + 1..j].iter().map(|l| l.trim().trim_end_matches(',')).collect();
                out.push(format!("{}{}){}", lines[k].trim_end(), fields.join(", "), &lines[j].trim()[1..]));
                k = j + 1;
            }
            _ => {
                out.push(lines[k].to_string());
                k += 1;
            }
        }
    }
    out.join("\n")
}

/// A `key: value,` line (or a bare number) with nothing nested.
fn is_flat_field(line: &str) -> bool {
    let t = line.trim();
    t.ends_with(',') && !t.contains(['(', ')', '[', ']'])
}
