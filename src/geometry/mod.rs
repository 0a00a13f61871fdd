//! Blade geometry: 2D cascade sections defined by Bezier sides, by the design
//! parameterization (camber + thickness B-splines), or by imported coordinates.
//!
//! Everything downstream (the mesher, the evaluator) sees a blade only through its
//! [`Outline`]: a dense closed polyline in metres, in the cascade frame (x axial,
//! y pitchwise, leading edge at the origin for the published LS89).

pub mod bezier_blade;
pub mod blade_file;
pub mod cascade;
pub mod contour;
pub mod coordinates;
pub mod curves;
pub mod design;
pub mod fit;
pub mod import;
pub mod sampling;
pub mod validity;

pub use bezier_blade::{BezierBlade, TrailingEdgeCircle};
pub use blade_file::{load_blade_file, BladeDefinition, BladeFile};
pub use cascade::{throat, Cascade};
pub use coordinates::CoordinateBlade;
pub use design::{DesignCurve, DesignParameterization, DesignVariable};
pub use import::{import_blade, read_profile, ImportError, ImportReport, ImportSettings, Imported, Profile, SolvedShape, Units};
pub use validity::GeometryError;

pub type Point2 = [f64; 2];

/// The design variables of a blade: names, bounds and baseline (what an optimizer searches).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DesignSpace {
    pub names: Vec<String>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub baseline: Vec<f64>,
}

impl DesignSpace {
    pub fn dim(&self) -> usize {
        self.names.len()
    }
}

/// A closed blade outline in metres.
///
/// Ordered from the leading edge (index 0) along the suction side to the trailing edge
/// (index `trailing_edge`), round the trailing-edge circle where there is one, and back along
/// the pressure side to the point before the leading edge; the first point is not repeated.
/// Dense enough (typically >= 2000 points) that piecewise-linear resampling by arc length
/// reproduces the exact curve to well under a micrometre.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Outline {
    pub points: Vec<Point2>,
    /// Index of the trailing-edge point: the most downstream point of the outline.
    pub trailing_edge: usize,
}

impl Outline {
    /// Enclosed area by the shoelace formula (positive whatever the orientation).
    pub fn area(&self) -> f64 {
        let n = self.points.len();
        let mut a = 0.0;
        for k in 0..n {
            let p = self.points[k];
            let q = self.points[(k + 1) % n];
            a += p[0] * q[1] - q[0] * p[1];
        }
        0.5 * a.abs()
    }

    /// Perimeter of the closed polyline.
    pub fn perimeter(&self) -> f64 {
        let n = self.points.len();
        (0..n).map(|k| dist(self.points[k], self.points[(k + 1) % n])).sum()
    }

    /// Axial (x) and pitchwise (y) extent: ([xmin, xmax], [ymin, ymax]).
    pub fn bounding_box(&self) -> ([f64; 2], [f64; 2]) {
        let mut bx = [f64::INFINITY, f64::NEG_INFINITY];
        let mut by = [f64::INFINITY, f64::NEG_INFINITY];
        for p in &self.points {
            bx = [bx[0].min(p[0]), bx[1].max(p[0])];
            by = [by[0].min(p[1]), by[1].max(p[1])];
        }
        (bx, by)
    }
}

/// Euclidean distance between two points.
pub fn dist(a: Point2, b: Point2) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}
