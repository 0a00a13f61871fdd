//! Viscous flux, Green-Gauss gradients on auxiliary volumes, spectral radii and time step.

use turbopt::flow::gas::Gas;
use turbopt::flow::spectral::*;
use turbopt::flow::viscous::*;

/// A distorted (non-parallelogram, non-convex-looking but simple) quadrilateral, CCW.
const QUAD: [[f64; 2]; 4] = [[0.1, -0.05], [1.3, 0.2], [0.9, 1.1], [-0.2, 0.7]];

fn linear(x: [f64; 2]) -> f64 {
    2.5 - 1.7 * x[0] + 0.6 * x[1]
}

#[test]
fn green_gauss_is_exact_for_linear_fields_on_a_distorted_quad() {
    let values = QUAD.map(linear);
    let g = quad_vertex_gradient(&QUAD, &values);
    assert!((g[0] + 1.7).abs() < 1e-13 && (g[1] - 0.6).abs() < 1e-13, "gradient {g:?}");
    // The same through the generic sum with face-midpoint values, and on a triangle (F = 3).
    let (vectors, area) = quad_face_vectors_and_area(&QUAD);
    let closed = vectors.iter().fold([0.0, 0.0], |s, v| [s[0] + v[0], s[1] + v[1]]);
    assert!(closed[0].abs() < 1e-15 && closed[1].abs() < 1e-15, "face vectors must close");
    // The area of a simple quad is half the cross product of its diagonals.
    let (d1, d2) = ([QUAD[2][0] - QUAD[0][0], QUAD[2][1] - QUAD[0][1]], [QUAD[3][0] - QUAD[1][0], QUAD[3][1] - QUAD[1][1]]);
    let diagonal_area = 0.5 * (d1[0] * d2[1] - d1[1] * d2[0]);
    assert!((area - diagonal_area).abs() < 1e-14, "area {area} vs {diagonal_area}");
    let tri = [[0.0, 0.0], [2.0, 0.3], [0.4, 1.5]];
    let tri_vectors: [[f64; 2]; 3] = std::array::from_fn(|m| {
        let (a, b) = (tri[m], tri[(m + 1) % 3]);
        [b[1] - a[1], -(b[0] - a[0])]
    });
    let tri_area =
        0.5 * ((tri[1][0] - tri[0][0]) * (tri[2][1] - tri[0][1]) - (tri[2][0] - tri[0][0]) * (tri[1][1] - tri[0][1]));
    let mid_values: [f64; 3] = std::array::from_fn(|m| {
        linear([0.5 * (tri[m][0] + tri[(m + 1) % 3][0]), 0.5 * (tri[m][1] + tri[(m + 1) % 3][1])])
    });
    let g = green_gauss_gradient(&mid_values, &tri_vectors, tri_area);
    assert!((g[0] + 1.7).abs() < 1e-13 && (g[1] - 0.6).abs() < 1e-13, "triangle gradient {g:?}");
    // A constant field has zero gradient (free-stream preservation of the viscous terms).
    let g = quad_vertex_gradient(&QUAD, &[3.0; 4]);
    assert!(g[0].abs() < 1e-14 && g[1].abs() < 1e-14);
}

#[test]
fn couette_flow_shear_stress_is_mu_du_dy() {
    let gas = Gas::default();
    // u = U y / H, v = 0, uniform T: the gradient comes from the auxiliary quad.
    let (u_wall, height) = (30.0, 0.01);
    let (rho, t) = (1.2, 300.0);
    let p = rho * gas.gas_constant * t;
    let u_at = |x: [f64; 2]| u_wall * x[1] / height;
    let quad = QUAD.map(|x| [x[0] * 1e-3, x[1] * 1e-3]);
    let grad_u = quad_vertex_gradient(&quad, &quad.map(u_at));
    let grad_v = quad_vertex_gradient(&quad, &[0.0; 4]);
    let grad_t = quad_vertex_gradient(&quad, &[t; 4]);
    let y_face = 0.004;
    let face = [rho, u_at([0.0, y_face]), 0.0, p];
    let (area, mu_t) = (2e-3, 3.0e-5);
    let f = viscous_flux(&gas, &face, grad_u, grad_v, grad_t, mu_t, [0.0, 1.0], area);
    let mu = gas.viscosity(t) + mu_t;
    let tau = mu * u_wall / height;
    assert_eq!(f[0], 0.0);
    assert!((f[1] - tau * area).abs() < 1e-12 * tau * area, "{} vs {}", f[1], tau * area);
    assert!(f[2].abs() < 1e-12 * tau * area);
    // Work of the shear stress: u tau.
    assert!((f[3] - face[1] * tau * area).abs() < 1e-12 * face[1] * tau * area);
    // Reversing the normal reverses the flux.
    let g = viscous_flux(&gas, &face, grad_u, grad_v, grad_t, mu_t, [0.0, -1.0], area);
    for k in 0..4 {
        assert!((f[k] + g[k]).abs() <= 1e-15 * f[k].abs().max(1.0));
    }
}

#[test]
fn heat_flux_uses_laminar_and_turbulent_prandtl_numbers() {
    let gas = Gas::default();
    let (rho, t) = (1.0, 350.0);
    let face = [rho, 0.0, 0.0, rho * gas.gas_constant * t];
    let grad_t = [120.0, -40.0];
    let mu_t = 2e-4;
    let n = [0.6, 0.8];
    let f = viscous_flux(&gas, &face, [0.0; 2], [0.0; 2], grad_t, mu_t, n, 0.5);
    let k = gas.cp() * (gas.viscosity(t) / gas.prandtl + mu_t / gas.turbulent_prandtl);
    assert!((heat_conductivity(&gas, gas.viscosity(t), mu_t) - k).abs() < 1e-15 * k);
    let expected = k * (grad_t[0] * n[0] + grad_t[1] * n[1]) * 0.5;
    assert!((f[3] - expected).abs() < 1e-13 * expected.abs());
    assert!(f[1] == 0.0 && f[2] == 0.0);
}

#[test]
fn stress_tensor_obeys_the_stokes_hypothesis() {
    let mu = 1.8e-5;
    // Pure dilatation u = a x, v = a y: tau_xx = tau_yy = 2 mu a (1 - 2/3), no shear.
    let a = 100.0;
    let [txx, txy, tyy] = viscous_stress(mu, [a, 0.0], [0.0, a]);
    assert!((txx - 2.0 * mu * a / 3.0).abs() < 1e-18 && (tyy - txx).abs() < 1e-18 && txy == 0.0);
    // Pure rotation u = -w y, v = w x: no stress at all.
    let s = viscous_stress(mu, [0.0, -50.0], [50.0, 0.0]);
    assert!(s.iter().all(|x| x.abs() < 1e-18));
    // Trace-free in 3D sense: tau_xx + tau_yy + tau_zz = 0 with tau_zz = -2/3 mu div.
    let [txx, _, tyy] = viscous_stress(mu, [3.0, 1.0], [-2.0, 5.0]);
    assert!((txx + tyy - 2.0 * mu * 8.0 / 3.0).abs() < 1e-18);
}

#[test]
fn spectral_radii_and_time_step_scale_with_the_cell_size() {
    let gas = Gas::default();
    let q = [1.2, 80.0, -30.0, 1.0e5];
    let c = (gas.gamma * q[3] / q[0]).sqrt();
    // Unit square: face vectors (1, 0) in i and (0, 1) in j.
    let si = mean_face_vector([1.0, 0.0], [1.0, 0.0]);
    let sj = mean_face_vector([0.0, 0.9], [0.0, 1.1]);
    assert_eq!(sj, [0.0, 1.0]);
    assert!((convective_spectral_radius(gas.gamma, &q, si) - (80.0 + c)).abs() < 1e-12);
    assert!((convective_spectral_radius(gas.gamma, &q, sj) - (30.0 + c)).abs() < 1e-12);
    let (mu, mu_t) = (1.8e-5, 5.0e-5);
    let lv = viscous_spectral_radius(&gas, q[0], mu, mu_t, si, 1.0);
    let expected = (4.0 / (3.0 * q[0])).max(gas.gamma / q[0]) * (mu / gas.prandtl + mu_t / gas.turbulent_prandtl);
    assert!((lv - expected).abs() < 1e-15 * expected);
    // Scale every length by s: Lc ~ s, Lv ~ s^2/s^2 = 1, Omega ~ s^2.
    let dt = |s: f64| {
        let (si, sj, vol) = ([s, 0.0], [0.0, s], s * s);
        let lc = [convective_spectral_radius(gas.gamma, &q, si), convective_spectral_radius(gas.gamma, &q, sj)];
        let lv = [
            viscous_spectral_radius(&gas, q[0], mu, mu_t, si, vol),
            viscous_spectral_radius(&gas, q[0], mu, mu_t, sj, vol),
        ];
        (
            local_time_step(2.0, vol, lc, [0.0; 2], CELL_CENTRED_VISCOUS_FACTOR),
            local_time_step(2.0, vol, lc, lv, CELL_CENTRED_VISCOUS_FACTOR),
        )
    };
    // Inviscid: dt ~ s (acoustic CFL); viscous-dominated tiny cells: dt ~ s^2 (diffusion limit).
    let (inviscid_1, _) = dt(1e-3);
    let (inviscid_2, _) = dt(2e-3);
    assert!((inviscid_2 / inviscid_1 - 2.0).abs() < 1e-12);
    let (_, viscous_1) = dt(1e-12);
    let (_, viscous_2) = dt(2e-12);
    assert!((viscous_2 / viscous_1 - 4.0).abs() < 1e-3, "ratio {}", viscous_2 / viscous_1);
    // And the inviscid step is CFL * dx / (|u| + c + |v| + c) on the unit-spaced square.
    assert!((inviscid_1 - 2.0 * 1e-3 / (80.0 + 30.0 + 2.0 * c)).abs() < 1e-15);
}

/// Gradient at the i-face between cells (0, 1) and (1, 1) of a 2 x 3 cell patch of the mapped
/// mesh `map`, node spacing h, by the thesis auxiliary volume (recipe in the rustdoc of
/// `green_gauss_gradient`), for the field `f` sampled at the cell centres (node means).
fn thesis_box_gradient(
    map: impl Fn(f64, f64) -> [f64; 2],
    h: f64,
    f: impl Fn([f64; 2]) -> f64,
) -> ([f64; 2], [f64; 2]) {
    let node = |i: usize, j: usize| map(i as f64 * h, j as f64 * h);
    let centre = |i: usize, j: usize| {
        let n = [node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)];
        [0.25 * n.iter().map(|p| p[0]).sum::<f64>(), 0.25 * n.iter().map(|p| p[1]).sum::<f64>()]
    };
    let value = |i: usize, j: usize| f(centre(i, j));
    let volume = |i: usize, j: usize| {
        quad_face_vectors_and_area(&[node(i, j), node(i + 1, j), node(i + 1, j + 1), node(i, j + 1)]).1
    };
    // i-face at node column i (from node (i, j) up to (i, j + 1)), pointing +i.
    let s_i = |i: usize, j: usize| {
        let (a, b) = (node(i, j), node(i, j + 1));
        [b[1] - a[1], -(b[0] - a[0])]
    };
    // j-face at node row j of cell column i, pointing +j.
    let s_j = |i: usize, j: usize| {
        let (a, b) = (node(i, j), node(i + 1, j));
        [-(b[1] - a[1]), b[0] - a[0]]
    };
    let half_sum = |a: [f64; 2], b: [f64; 2], sign: f64| [0.5 * sign * (a[0] + b[0]), 0.5 * sign * (a[1] + b[1])];
    let node_value = |j: usize| 0.25 * (value(0, j - 1) + value(1, j - 1) + value(0, j) + value(1, j));
    let face_vectors = [
        half_sum(s_i(0, 1), s_i(1, 1), -1.0),
        half_sum(s_i(1, 1), s_i(2, 1), 1.0),
        half_sum(s_j(0, 2), s_j(1, 2), 1.0),
        half_sum(s_j(0, 1), s_j(1, 1), -1.0),
    ];
    let face_values = [value(0, 1), value(1, 1), node_value(2), node_value(1)];
    let g = green_gauss_gradient(&face_values, &face_vectors, 0.5 * (volume(0, 1) + volume(1, 1)));
    let closure = face_vectors.iter().fold([0.0, 0.0], |s, v| [s[0] + v[0], s[1] + v[1]]);
    (g, closure)
}

#[test]
fn thesis_auxiliary_volume_recipe_is_exact_on_parallelograms_and_consistent_on_curved_meshes() {
    let affine = |x: f64, y: f64| [1.1 * x + 0.4 * y, -0.3 * x + 0.9 * y];
    let (g, closure) = thesis_box_gradient(affine, 0.1, linear);
    assert!((g[0] + 1.7).abs() < 1e-12 && (g[1] - 0.6).abs() < 1e-12, "affine: {g:?}");
    assert!(closure[0].abs() < 1e-15 && closure[1].abs() < 1e-15);
    // Curved mesh: the error vanishes with the mesh size, at second order.
    let curved = |x: f64, y: f64| [x + 0.3 * y * y + 0.1 * (3.0 * y).sin(), y + 0.2 * x * x];
    let error = |h: f64| {
        let (g, closure) = thesis_box_gradient(curved, h, linear);
        assert!(closure[0].abs() < 1e-14 && closure[1].abs() < 1e-14);
        (g[0] + 1.7).hypot(g[1] - 0.6)
    };
    let (e1, e2) = (error(0.04), error(0.02));
    // Observed: 1.8e-3 and 4.6e-4, second order.
    let order = (e1 / e2).log2();
    assert!(e1 < 5e-3 && order > 1.8, "errors {e1:e}, {e2:e}, order {order}");
}

#[test]
fn adiabatic_wall_flux_carries_only_the_shear_stress() {
    let gas = Gas::default();
    let (rho, t) = (1.1, 290.0);
    let wall = [rho, 5.0, -2.0, rho * gas.gas_constant * t];
    let (grad_u, grad_v) = ([10.0, 4.0e3], [-3.0, 20.0]);
    let n = [0.0, -1.0];
    let f = adiabatic_wall_viscous_flux(&gas, &wall, grad_u, grad_v, 0.0, n, 0.02);
    let [txx, txy, tyy] = viscous_stress(gas.viscosity(t), grad_u, grad_v);
    assert_eq!(f[0], 0.0);
    assert_eq!(f[3], 0.0);
    assert!((f[1] - (txx * n[0] + txy * n[1]) * 0.02).abs() < 1e-15 * txy.abs());
    assert!((f[2] - (txy * n[0] + tyy * n[1]) * 0.02).abs() < 1e-15 * txy.abs());
}

/// The diamond of a face whose centres straddle it is left alone; where a sliver cell's centre
/// lies behind the face (the diamond's area negative), the lift makes the area positive, the
/// centre line reach [`DIAMOND_MIN_REACH`] of the ideal, and the normal gradient take the sign
/// of U_b - U_a (a diffusive flux) instead of the opposite one.
#[test]
fn diamond_lift_turns_a_backward_diamond_diffusive_and_leaves_good_ones_alone() {
    let (n0, n1) = ([0.0, 0.0], [0.0, 1.0]);
    let s = [1.0, 0.0]; // face x = 0 from y = 0 to 1, normal from a to b along +x
    // Two unit squares either side.
    let (a, b) = ([-0.5, 0.5], [0.5, 0.5]);
    assert_eq!(diamond_lift(a, b, s, [1.0, 1.0]), 0.0);
    let square = [a, n0, b, n1];
    assert_eq!(lifted_diamond(square, s, 0.0), square);
    // A sliver b whose centroid lies 0.7 behind the face line (0.2 behind a's), 2.5 along it.
    let b = [-0.7, 3.0];
    let volumes = [1.0, 0.2];
    let (_, backward) = quad_face_vectors_and_area(&[a, n0, b, n1]);
    assert!(backward < 0.0, "the unlifted diamond is inverted: {backward}");
    let lift = diamond_lift(a, b, s, volumes);
    let ideal = 0.5 * (volumes[0] + volumes[1]) / 1.0;
    let lifted = lifted_diamond([a, n0, b, n1], s, lift);
    let reach = lifted[2][0] - lifted[0][0];
    assert!((reach - DIAMOND_MIN_REACH * ideal).abs() < 1e-15, "reach {reach}");
    let (_, lifted_area) = quad_face_vectors_and_area(&lifted);
    assert!((lifted_area - 0.5 * reach * 1.0).abs() < 1e-15, "lifted diamond area {lifted_area}");
    // U_b > U_a, equal node values: the flux must run from b to a (normal gradient > 0).
    let values = [1.0, 1.5, 2.0, 1.5];
    let unlifted = quad_vertex_gradient(&[a, n0, b, n1], &values);
    let corrected = quad_vertex_gradient(&lifted, &values);
    assert!(unlifted[0] < 0.0, "the inverted diamond gives an uphill gradient {unlifted:?}");
    assert!((corrected[0] - 1.0 / reach).abs() < 1e-12 && corrected[1].abs() < 1e-12, "lifted gradient {corrected:?}");
}
