//! Cascade data: how the blade section is repeated and how far the computational domain reaches.

use super::validity::GeometryError;
use super::{Outline, Point2};
use serde::{Deserialize, Serialize};

/// A linear cascade. Lengths in metres, angles in degrees from the axial (x) direction, positive
/// towards +y (the same convention as `OperatingPoint::alpha1_deg`): LS89's published stagger of
/// 55 deg is -55 here because the vane turns the flow towards -y.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cascade {
    /// Blade-to-blade spacing along y [m].
    pub pitch: f64,
    /// True chord [m] (as published; used to normalize losses and Reynolds numbers).
    pub chord: f64,
    /// Axial chord [m].
    pub axial_chord: f64,
    /// Stagger angle of the chord line from axial [deg].
    pub stagger_deg: f64,
    /// Axial distance from the leading edge to the domain inlet [m].
    pub inlet_length: f64,
    /// Axial distance from the trailing edge to the domain outlet [m].
    pub outlet_length: f64,
    /// Published throat width [m], for reference and checks.
    #[serde(default)]
    pub throat: Option<f64>,
}

impl Cascade {
    /// Every length positive and finite, the stagger finite.
    pub fn validate(&self) -> Result<(), GeometryError> {
        let lengths = [
            ("cascade.pitch", self.pitch),
            ("cascade.chord", self.chord),
            ("cascade.axial_chord", self.axial_chord),
            ("cascade.inlet_length", self.inlet_length),
            ("cascade.outlet_length", self.outlet_length),
        ];
        for (name, v) in lengths.into_iter().chain(self.throat.map(|t| ("cascade.throat", t))) {
            if !(v > 0.0 && v.is_finite()) {
                return Err(GeometryError::InvalidParameter { name: name.into(), reason: format!("must be a positive length, got {v}") });
            }
        }
        if !self.stagger_deg.is_finite() {
            return Err(GeometryError::InvalidParameter { name: "cascade.stagger_deg".into(), reason: "not finite".into() });
        }
        Ok(())
    }

    /// Solidity chord / pitch.
    pub fn solidity(&self) -> f64 {
        self.chord / self.pitch
    }
}

/// Throat: the narrowest gap between a blade and its neighbour one pitch away, i.e. the
/// smallest distance between the outline and its copy translated by +pitch in y. Returns the
/// width and the two points that realise it (on the blade, on the neighbour).
pub fn throat(outline: &Outline, pitch: f64) -> (f64, Point2, Point2) {
    let a = &outline.points;
    let n = a.len();
    let mut best = (f64::INFINITY, [0.0; 2], [0.0; 2]);
    for q0 in a {
        let q = [q0[0], q0[1] + pitch];
        for k in 0..n {
            let (p0, p1) = (a[k], a[(k + 1) % n]);
            let foot = closest_on_segment(q, p0, p1);
            let d = super::dist(q, foot);
            if d < best.0 {
                best = (d, foot, q);
            }
        }
    }
    best
}

/// Closest point to q on the segment [a, b].
pub fn closest_on_segment(q: Point2, a: Point2, b: Point2) -> Point2 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if len2 > 0.0 { (((q[0] - a[0]) * ab[0] + (q[1] - a[1]) * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
    [a[0] + t * ab[0], a[1] + t * ab[1]]
}
