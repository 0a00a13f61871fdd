//! Central viscous flux through one face (thesis eq. 4.3, 4.5, 4.6; Stokes hypothesis) and the
//! Green-Gauss gradient on an auxiliary control volume (thesis eq. 4.14, Blazek p. 120).
//!
//! Sign convention: the returned flux is F_v . n * face_area, with n pointing from the left to
//! the right cell; the residual of the left cell is R += F_c - F_v (thesis eq. 4.1).

use crate::flow::gas::Gas;

/// Green-Gauss gradient over one control volume (thesis eq. 4.14):
/// grad U = 1/Omega sum_m U_m S_m, with `face_values\[m\]` the value of U on face m (e.g. the
/// average of its two end points or of the two cells it separates), `face_vectors\[m\]` the
/// outward face normal times face length, `volume` the area of the control volume in 2D.
/// Works for any number of faces `F`.
///
/// The auxiliary volume of thesis Fig. 4.16 for the i-face between cells I and I+1 has 4 faces:
/// through the centre of I with vector -(S_{i-1/2} + S_{i+1/2})/2 and value U_I; through the
/// centre of I+1 with vector (S_{i+1/2} + S_{i+3/2})/2 and value U_{I+1}; north and south half
/// faces with vectors +-(S_{j+-1/2,I} + S_{j+-1/2,I+1})/2 and the values at the end nodes of the
/// face (mean of the four cells around each node); its volume is (Omega_I + Omega_{I+1})/2.
/// (All S oriented towards +i or +j.) The face vectors close exactly; the gradient is exact for
/// linear fields on a uniform parallelogram mesh and consistent on smooth curvilinear meshes.
/// [`quad_vertex_gradient`] on the "diamond" through the two centres and the two end nodes is
/// exact for linear fields on any cells.
#[inline]
pub fn green_gauss_gradient<const F: usize>(
    face_values: &[f64; F],
    face_vectors: &[[f64; 2]; F],
    volume: f64,
) -> [f64; 2] {
    let mut sum = [0.0; 2];
    for (value, s) in face_values.iter().zip(face_vectors) {
        sum[0] += value * s[0];
        sum[1] += value * s[1];
    }
    [sum[0] / volume, sum[1] / volume]
}

/// Outward face vectors and area of a quadrilateral given its 4 vertices in counter-clockwise
/// order: face m joins vertex m and m+1, its vector is (dy, -dx) (right-hand normal of a CCW
/// edge, length = edge length). Area by the shoelace formula.
#[inline]
pub fn quad_face_vectors_and_area(vertices: &[[f64; 2]; 4]) -> ([[f64; 2]; 4], f64) {
    let mut vectors = [[0.0; 2]; 4];
    let mut twice_area = 0.0;
    for m in 0..4 {
        let [x0, y0] = vertices[m];
        let [x1, y1] = vertices[(m + 1) % 4];
        vectors[m] = [y1 - y0, -(x1 - x0)];
        twice_area += x0 * y1 - x1 * y0;
    }
    (vectors, 0.5 * twice_area)
}

/// Gradient on an auxiliary quad given its 4 vertices (CCW) and the values at the vertices:
/// eq. 4.14 with each face value the mean of its two end-point values (trapezoidal rule, exact
/// for linear fields on any quad). For the auxiliary volume of face i+1/2 the vertices are the
/// two cell centres (I, I+1) and the two end nodes of the face, the node values being averages
/// of the four cells around each node ("diamond" volume).
#[inline]
pub fn quad_vertex_gradient(vertices: &[[f64; 2]; 4], vertex_values: &[f64; 4]) -> [f64; 2] {
    let (vectors, area) = quad_face_vectors_and_area(vertices);
    let face_values: [f64; 4] = std::array::from_fn(|m| 0.5 * (vertex_values[m] + vertex_values[(m + 1) % 4]));
    green_gauss_gradient(&face_values, &vectors, area)
}

/// Least normal reach of a face's diamond, as a fraction of its ideal: the two cell centres of
/// the auxiliary volume must lie at least this far apart across the face, measured along the
/// face normal, relative to (Omega_a + Omega_b) / (2 |S|), their distance on cells that are
/// rectangles.
///
/// Why: the diamond's gradient solves grad U . (x_b - x_a) = U_b - U_a along its centre line
/// (and the node difference along the face). Where a sliver cell's centroid lies beside the
/// face instead of behind it - cells of a fraction of a degree, as where a C-grid's lines meet
/// a steep wall a few degrees off tangent - that line runs along the face or even backwards
/// across it: the diamond's area goes to zero or negative, the normal gradient changes sign,
/// and the viscous and SA diffusion fluxes through the face become anti-diffusive; the implicit
/// scheme, whose Jacobian keeps the diffusion positive, then diverges in those cells. The
/// shipped blades' meshes reach 0.80 of the ideal or more on every face, so they are not
/// touched; a quarter instead of a half left one such LS89 design diverging.
pub const DIAMOND_MIN_REACH: f64 = 0.5;

/// How far each of a face's two cell centres is moved along the unit face normal (away from the
/// face: centre a by -lift, centre b by +lift) so that the diamond's centre line reaches at least
/// [`DIAMOND_MIN_REACH`] of the ideal across the face; 0 where it already does (most faces).
/// `s` is the face vector (from a to b, length = face length), `volumes` the two cells' areas.
/// Computed once per mesh. The gradient on a lifted diamond keeps the face's tangential
/// derivative from its nodes and takes U_b - U_a over the lifted normal distance: no longer
/// exact for a linear field on that face (no two-point difference is, where the centres do not
/// straddle the face), but the flux then runs from the larger cell value to the smaller, as a
/// diffusion flux must.
#[inline]
pub fn diamond_lift(centre_a: [f64; 2], centre_b: [f64; 2], s: [f64; 2], volumes: [f64; 2]) -> f64 {
    let length = (s[0] * s[0] + s[1] * s[1]).sqrt();
    let reach = ((centre_b[0] - centre_a[0]) * s[0] + (centre_b[1] - centre_a[1]) * s[1]) / length;
    let ideal = 0.5 * (volumes[0] + volumes[1]) / length;
    (0.5 * (DIAMOND_MIN_REACH * ideal - reach)).max(0.0)
}

/// The diamond's vertices `[centre a, node 0, centre b, node 1]` with the centres moved apart by
/// `lift` along the unit face normal of `s` ([`diamond_lift`]); unchanged when `lift` is 0.
#[inline]
pub fn lifted_diamond(vertices: [[f64; 2]; 4], s: [f64; 2], lift: f64) -> [[f64; 2]; 4] {
    if lift == 0.0 {
        return vertices;
    }
    let length = (s[0] * s[0] + s[1] * s[1]).sqrt();
    let (dx, dy) = (lift * s[0] / length, lift * s[1] / length);
    let [a, n0, b, n1] = vertices;
    [[a[0] - dx, a[1] - dy], n0, [b[0] + dx, b[1] + dy], n1]
}

/// Viscous stress components (tau_xx, tau_xy, tau_yy) of thesis eq. 4.6 with the Stokes
/// hypothesis (bulk viscosity -2/3 mu): tau_xx = 2 mu (du/dx - div/3), tau_xy = mu (du/dy + dv/dx).
/// `mu_eff` = mu + mu_t [kg/(m s)], gradients in 1/s.
#[inline]
pub fn viscous_stress(mu_eff: f64, grad_u: [f64; 2], grad_v: [f64; 2]) -> [f64; 3] {
    let divergence = grad_u[0] + grad_v[1];
    [
        2.0 * mu_eff * (grad_u[0] - divergence / 3.0),
        mu_eff * (grad_u[1] + grad_v[0]),
        2.0 * mu_eff * (grad_v[1] - divergence / 3.0),
    ]
}

/// Heat conductivity k = cp (mu/Pr + mu_t/Pr_t) [W/(m K)] (Boussinesq for the turbulent part).
#[inline]
pub fn heat_conductivity(gas: &Gas, mu_laminar: f64, mu_turbulent: f64) -> f64 {
    gas.cp() * (mu_laminar / gas.prandtl + mu_turbulent / gas.turbulent_prandtl)
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
    let [rho, u, v, p] = *face_state;
    let mu_laminar = gas.viscosity(p / (rho * gas.gas_constant));
    let [txx, txy, tyy] = viscous_stress(mu_laminar + mu_turbulent, grad_u, grad_v);
    let k = heat_conductivity(gas, mu_laminar, mu_turbulent);
    let theta_x = u * txx + v * txy + k * grad_t[0];
    let theta_y = u * txy + v * tyy + k * grad_t[1];
    let [nx, ny] = unit_normal;
    [
        0.0,
        (txx * nx + txy * ny) * face_area,
        (txy * nx + tyy * ny) * face_area,
        (theta_x * nx + theta_y * ny) * face_area,
    ]
}

/// Viscous flux through an adiabatic no-slip wall face, integrated over the face: the wall
/// velocity is zero (so the work of the stresses vanishes) and so is the heat flux, leaving
/// `[0, tau_xx n_x + tau_xy n_y, tau_xy n_x + tau_yy n_y, 0] * face_area`. `wall_state` is the
/// primitive state at the wall (its velocity is ignored; rho and p give T for Sutherland's law),
/// `grad_u`, `grad_v` the velocity gradients at the wall face.
#[inline]
pub fn adiabatic_wall_viscous_flux(
    gas: &Gas,
    wall_state: &[f64; 4],
    grad_u: [f64; 2],
    grad_v: [f64; 2],
    mu_turbulent: f64,
    unit_normal: [f64; 2],
    face_area: f64,
) -> [f64; 4] {
    let [rho, _, _, p] = *wall_state;
    let no_slip = [rho, 0.0, 0.0, p];
    let mut flux = viscous_flux(gas, &no_slip, grad_u, grad_v, [0.0; 2], mu_turbulent, unit_normal, face_area);
    flux[3] = 0.0;
    flux
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straddling_diamond_is_not_lifted() {
        // Two unit squares side by side: the centres are one cell apart across the face.
        assert_eq!(diamond_lift([-0.5, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 1.0]), 0.0);
    }

    #[test]
    fn centres_beside_the_face_are_lifted_to_the_least_reach() {
        // Sliver cells whose centres lie on the wrong sides of the face (b behind a).
        let (a, b, s, volumes) = ([0.1, 0.3], [0.05, -0.2], [1.0, 0.0], [0.01, 0.01]);
        let lift = diamond_lift(a, b, s, volumes);
        assert!(lift > 0.0);
        let [la, _, lb, _] = lifted_diamond([a, [0.0, -0.5], b, [0.0, 0.5]], s, lift);
        let reach = lb[0] - la[0];
        let ideal = 0.5 * (volumes[0] + volumes[1]) / 1.0;
        assert!((reach - DIAMOND_MIN_REACH * ideal).abs() < 1e-12, "reach {reach} against {}", DIAMOND_MIN_REACH * ideal);
    }
}
