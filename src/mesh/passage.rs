//! From a blade file to the mesher's [`PassageSpec`]: domain planes from the cascade's inlet and
//! outlet lengths, the first-cell height for y+ = 1 at the operating point, and the flow angles
//! that shape the periodic lines (inlet: the operating point's; exit: the blade's trailing-edge
//! camber direction).

use super::generate::PassageSpec;
use super::yplus::first_cell_height;
use super::Density;
use crate::flow::case::OperatingPoint;
use crate::geometry::blade_file::BladeFile;
use crate::geometry::cascade::Cascade;
use crate::geometry::Outline;
use crate::Result;

/// Target y+ of the first wall cell (issue 2: about 1).
pub const TARGET_YPLUS: f64 = 1.0;

/// The passage of `cascade` around `outline` at operating point `op`.
pub fn passage_spec(blade: &BladeFile, cascade: &Cascade, outline: &Outline, op: &OperatingPoint, density: Density) -> Result<PassageSpec> {
    let ([x_le, x_te], _) = outline.bounding_box();
    Ok(PassageSpec {
        pitch: cascade.pitch,
        inlet_x: x_le - cascade.inlet_length,
        outlet_x: x_te + cascade.outlet_length,
        first_cell_height: first_cell_height(TARGET_YPLUS, op, &blade.gas, cascade.chord)?,
        density,
        inlet_angle_deg: op.alpha1_deg,
        outlet_angle_deg: trailing_edge_camber_angle_deg(outline),
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
