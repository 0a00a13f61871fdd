//! Stage 4: where a cascade is cut for its performance figures. The inlet and outlet planes sit
//! just inside the domain (a cut on the boundary line would run along cell edges); the exit
//! measurement plane sits where the LS89 experiments measured (1.433 axial chords downstream of
//! the leading edge).

use super::CascadeError;
use crate::geometry::Outline;
use crate::mesh::Mesh;

/// Axial position of the exit measurement plane of the LS89 experiments, in axial chords
/// downstream of the leading edge (where the exit isentropic Mach number is reported).
pub const EXIT_PLANE_AXIAL_CHORDS: f64 = 1.433;

/// Inlet and outlet planes sit this fraction of the axial chord inside the domain boundaries.
const PLANE_INSET_AXIAL_CHORDS: f64 = 0.01;

/// Where a cascade is cut for its performance figures (axial positions in metres).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planes {
    pub x_inlet: f64,
    pub x_outlet: f64,
    pub x_exit_measurement: f64,
    pub x_le: f64,
    pub x_te: f64,
    pub axial_chord: f64,
}

impl Planes {
    /// The planes of `mesh` round `outline`, the exit measurement plane
    /// `exit_plane_axial_chords` downstream of the leading edge; it must lie inside the domain.
    pub fn new(mesh: &Mesh, outline: &Outline, exit_plane_axial_chords: f64) -> Result<Planes, CascadeError> {
        let ([x_le, x_te], _) = outline.bounding_box();
        let axial_chord = x_te - x_le;
        let (x0, x1) = domain_x_range(mesh);
        let inset = PLANE_INSET_AXIAL_CHORDS * axial_chord;
        let planes = Planes {
            x_inlet: x0 + inset,
            x_outlet: x1 - inset,
            x_exit_measurement: x_le + exit_plane_axial_chords * axial_chord,
            x_le,
            x_te,
            axial_chord,
        };
        if !(planes.x_exit_measurement < planes.x_outlet && planes.x_exit_measurement > x_te) {
            return Err(CascadeError::Planes(format!(
                "exit measurement plane x = {:.4} m lies outside the blade row's wake region (trailing edge {x_te:.4} m, outlet plane {:.4} m)",
                planes.x_exit_measurement, planes.x_outlet
            )));
        }
        Ok(planes)
    }
}

/// Smallest and largest node x of the mesh: the inlet and outlet boundaries.
fn domain_x_range(mesh: &Mesh) -> (f64, f64) {
    let xs = mesh.blocks.iter().flat_map(|b| b.x.iter().copied());
    xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)))
}
