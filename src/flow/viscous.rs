//! Central viscous flux through one face (thesis eq. 4.3, 4.5, 4.6; Stokes hypothesis) and the
//! Green-Gauss gradient on an auxiliary control volume (thesis eq. 4.14, Blazek p. 120 and
//! sec. 5.4).
//!
//! Sign convention: the returned flux is F_v . n * face_area, with n pointing from the left to
//! the right cell; the residual of the left cell is R += F_c - F_v (thesis eq. 4.1).

use crate::flow::gas::Gas;

/// Green-Gauss gradient over one control volume (thesis eq. 4.14):
/// grad U = 1/Omega sum_m U_m S_m, with `face_values[m]` the value of U on face m (e.g. the
/// average of its two end points or of the two cells it separates), `face_vectors[m]` the
/// outward face normal times face length, `volume` the area of the control volume in 2D.
/// Works for any number of faces `F` (4 for the auxiliary quad of thesis Fig. 4.16).
#[inline]
pub fn green_gauss_gradient<const F: usize>(face_values: &[f64; F], face_vectors: &[[f64; 2]; F], volume: f64) -> [f64; 2] {
    todo!()
}

/// Outward face vectors and area of a quadrilateral given its 4 vertices in counter-clockwise
/// order: face m joins vertex m and m+1, its vector is (dy, -dx) (right-hand normal of a CCW
/// edge, length = edge length). Area by the shoelace formula.
#[inline]
pub fn quad_face_vectors_and_area(vertices: &[[f64; 2]; 4]) -> ([[f64; 2]; 4], f64) {
    todo!()
}

/// Gradient on an auxiliary quad given its 4 vertices (CCW) and the values at the vertices:
/// eq. 4.14 with each face value the mean of its two end-point values (trapezoidal rule, exact
/// for linear fields on any quad). For the auxiliary volume of face i+1/2 the vertices are the
/// two cell centres (I, I+1) and the two end nodes of the face, the node values being averages
/// of the four cells around each node ("diamond" volume, Blazek sec. 5.4.2).
#[inline]
pub fn quad_vertex_gradient(vertices: &[[f64; 2]; 4], vertex_values: &[f64; 4]) -> [f64; 2] {
    todo!()
}

/// Viscous stress components (tau_xx, tau_xy, tau_yy) of thesis eq. 4.6 with the Stokes
/// hypothesis (bulk viscosity -2/3 mu): tau_xx = 2 mu (du/dx - div/3), tau_xy = mu (du/dy + dv/dx).
/// `mu_eff` = mu + mu_t [kg/(m s)], gradients in 1/s.
#[inline]
pub fn viscous_stress(mu_eff: f64, grad_u: [f64; 2], grad_v: [f64; 2]) -> [f64; 3] {
    todo!()
}

/// Heat conductivity k = cp (mu/Pr + mu_t/Pr_t) [W/(m K)] (Boussinesq for the turbulent part).
#[inline]
pub fn heat_conductivity(gas: &Gas, mu_laminar: f64, mu_turbulent: f64) -> f64 {
    todo!()
}

/// Viscous flux through one face, integrated over the face (thesis eq. 4.3, 4.5, 4.6):
/// `[0, tau_xx n_x + tau_xy n_y, tau_xy n_x + tau_yy n_y, Theta . n] * face_area` with
/// Theta = (u tau_xx + v tau_xy + k dT/dx, u tau_xy + v tau_yy + k dT/dy).
///
/// * `face_state`: face-averaged primitive `[rho, u, v, p]` (central scheme: mean of both cells);
///   the laminar viscosity is Sutherland's at T = p/(rho R) ([`Gas::viscosity`]);
/// * `grad_u`, `grad_v`, `grad_t`: face gradients (e.g. from [`quad_vertex_gradient`]);
/// * `mu_turbulent`: eddy viscosity at the face (0 for laminar flow);
/// * `unit_normal`, `face_area`: as for the convective flux.
#[allow(clippy::too_many_arguments)]
#[inline]
pub fn viscous_flux(
    gas: &Gas,
    face_state: &[f64; 4],
    grad_u: [f64; 2],
    grad_v: [f64; 2],
    grad_t: [f64; 2],
    mu_turbulent: f64,
    unit_normal: [f64; 2],
    face_area: f64,
) -> [f64; 4] {
    todo!()
}
