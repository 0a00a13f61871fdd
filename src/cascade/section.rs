//! Stage 1: the blade section a run is about, built once from the blade file: its outline and
//! its cascade (the design's pitch where the design has one). A design vector is turned into a
//! parameterization once, here, and checked (length, finite values, bounds, thickness, crossing
//! sides, overlap with the neighbouring blade) before anything else is made.

use crate::geometry::validity::GeometryError;
use crate::geometry::{BladeFile, Cascade, Outline};

/// Which blade of a blade file to run.
#[derive(Clone, Copy, Debug)]
pub enum BladeChoice<'a> {
    /// The blade file's main definition (for LS89 the published Bezier curves).
    Main,
    /// A design vector of the blade file's design parameterization (its free variables, in
    /// `DesignParameterization::to_vector` order); empty for a blade file without one.
    Design(&'a [f64]),
}

/// A blade section in its cascade: what the mesher and the measurement planes are built from.
#[derive(Clone, Debug)]
pub struct Section {
    pub outline: Outline,
    pub cascade: Cascade,
}

impl Section {
    /// The section `choice` names in `file`, checked.
    pub fn of(file: &BladeFile, choice: BladeChoice) -> Result<Section, GeometryError> {
        match (choice, &file.design) {
            (BladeChoice::Main, _) => Ok(Section { outline: file.outline()?, cascade: file.cascade.clone() }),
            (BladeChoice::Design([]), None) => Self::of(file, BladeChoice::Main),
            (BladeChoice::Design(x), None) => Err(GeometryError::InvalidParameter {
                name: "design vector".into(),
                reason: format!("blade file `{}` has no design parameterization, so the design vector must be empty (got {} values)", file.name, x.len()),
            }),
            (BladeChoice::Design(x), Some(parameterization)) => {
                if let Some(k) = x.iter().position(|v| !v.is_finite()) {
                    return Err(GeometryError::InvalidParameter { name: "design vector".into(), reason: format!("design variable {k} is {}", x[k]) });
                }
                let design = parameterization.from_vector(x)?;
                let outline = design.outline()?;
                Ok(Section { outline, cascade: Cascade { pitch: design.pitch.value, ..file.cascade.clone() } })
            }
        }
    }
}
