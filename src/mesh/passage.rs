//! From a blade section to the mesher's [`PassageSpec`]: domain planes from the cascade's inlet
//! and outlet lengths, the first-cell height for the target y+ at the operating points, and the
//! flow angles that shape the periodic lines (inlet: the operating points' mean; exit: the
//! blade's trailing-edge camber direction). Every command and the evaluator build their
//! passage here (`cascade::PreparedCascade`), so one blade gets one mesh.

use super::generate::PassageSpec;
use super::yplus::first_cell_height;
use super::Density;
use crate::flow::case::OperatingPoint;
use crate::flow::gas::Gas;
use crate::geometry::blade_file::BladeFile;
use crate::geometry::cascade::Cascade;
use crate::geometry::Outline;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Target y+ of the first wall cell (about 1).
pub const TARGET_YPLUS: f64 = 1.0;

/// Mesh settings beyond the density preset (the `mesh` section of an evaluator config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MeshSettings {
    /// First-cell height from this y+ (flat-plate estimate at the exit isentropic state; the
    /// smallest height over the operating points is used).
    pub target_yplus: f64,
    /// Direction hint of the inlet periodic lines \[deg\]; None: mean inlet angle of the points.
    pub inlet_angle_deg: Option<f64>,
    /// Direction hint of the outlet periodic lines \[deg\]; None: the blade's trailing-edge
    /// camber direction ([`trailing_edge_camber_angle_deg`]).
    pub outlet_angle_deg: Option<f64>,
}

impl Default for MeshSettings {
    fn default() -> Self {
        MeshSettings { target_yplus: TARGET_YPLUS, inlet_angle_deg: None, outlet_angle_deg: None }
    }
}

/// The passage of `cascade` around `outline` at operating point `op`, default settings.
pub fn passage_spec(blade: &BladeFile, cascade: &Cascade, outline: &Outline, op: &OperatingPoint, density: Density) -> Result<PassageSpec> {
    passage_spec_for(&blade.gas, cascade, outline, std::slice::from_ref(op), density, &MeshSettings::default())
}

/// The passage of `cascade` around `outline` for a run at every point of `points`: the first
/// cell meets the target y+ at all of them (the smallest height), the inlet lines follow their
/// mean inlet angle.
pub fn passage_spec_for(
    gas: &Gas,
    cascade: &Cascade,
    outline: &Outline,
    points: &[OperatingPoint],
    density: Density,
    settings: &MeshSettings,
) -> Result<PassageSpec> {
    if points.is_empty() {
        return Err(Error::Mesh("a passage needs at least one operating point".into()));
    }
    let ([x_le, x_te], _) = outline.bounding_box();
    let mut height = f64::INFINITY;
    for op in points {
        height = height.min(first_cell_height(settings.target_yplus, op, gas, cascade.chord)?);
    }
    let mean_inlet = points.iter().map(|p| p.alpha1_deg).sum::<f64>() / points.len() as f64;
    Ok(PassageSpec {
        pitch: cascade.pitch,
        inlet_x: x_le - cascade.inlet_length,
        outlet_x: x_te + cascade.outlet_length,
        first_cell_height: height,
        density,
        inlet_angle_deg: settings.inlet_angle_deg.unwrap_or(mean_inlet),
        outlet_angle_deg: settings.outlet_angle_deg.unwrap_or_else(|| trailing_edge_camber_angle_deg(outline)),
    })
}

/// Direction of the camber line at the trailing edge [deg from axial]: the line through the
/// midpoints between suction and pressure side at 85 % and 97 % of the axial chord (outside the
/// trailing-edge circle, inside the straight rear part of a turbine blade).
pub fn trailing_edge_camber_angle_deg(outline: &Outline) -> f64 {
    let ([x0, x1], _) = outline.bounding_box();
    let mid = |f: f64| {
        let x = x0 + f * (x1 - x0);
        let ys = crossings_at(outline, x);
        let (lo, hi) = ys.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| (a.min(y), b.max(y)));
        0.5 * (lo + hi)
    };
    let (xa, xb) = (x0 + 0.85 * (x1 - x0), x0 + 0.97 * (x1 - x0));
    (mid(0.97) - mid(0.85)).atan2(xb - xa).to_degrees()
}

/// y of every crossing of the closed outline with the line x = const.
fn crossings_at(outline: &Outline, x: f64) -> Vec<f64> {
    let n = outline.points.len();
    (0..n)
        .filter_map(|k| {
            let (a, b) = (outline.points[k], outline.points[(k + 1) % n]);
            let (lo, hi) = if a[0] <= b[0] { (a, b) } else { (b, a) };
            (x >= lo[0] && x < hi[0] && hi[0] > lo[0]).then(|| lo[1] + (hi[1] - lo[1]) * (x - lo[0]) / (hi[0] - lo[0]))
        })
        .collect()
}
