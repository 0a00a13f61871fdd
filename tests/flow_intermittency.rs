//! Menter's 2015 intermittency equation coupled to SA: point-wise terms
//! (`flow::intermittency`).

use turbopt::flow::intermittency::*;

/// A cell of a laminar boundary layer in air at 300 K: strain rate and vorticity of a near-wall
/// shear layer, no eddy viscosity.
fn laminar_cell(strain_rate: f64, wall_distance: f64) -> IntermittencyCell {
    IntermittencyCell {
        rho: 1.2,
        mu: 1.85e-5,
        mu_t: 0.0,
        strain_rate,
        vorticity: strain_rate,
        wall_distance,
        dv_dy: 0.0,
        turbulence_intensity: 0.01,
    }
}

/// The onset correlation against its formula at zero pressure gradient (lambda = 0.0128 with
/// dV/dy = 0, F_PG = 1 + 14.68 x 0.0128): Re_theta_c falls from 1,100 at no turbulence towards
/// C_TU1 = 100 as the turbulence intensity rises.
#[test]
fn the_onset_reynolds_number_falls_with_the_turbulence_intensity() {
    let f_pg = 1.0 + 14.68 * 0.0128;
    for tu in [0.0f64, 0.001, 0.01, 0.03, 0.06] {
        let expected = 100.0 + 1000.0 * (-(100.0 * tu) * f_pg).exp();
        let got = onset_reynolds(tu, pressure_gradient_parameter(0.0, 1e-3, 1.5e-5));
        assert!((got - expected).abs() < 1e-9 * expected, "Tu {tu}: {got} against {expected}");
    }
    assert!((onset_reynolds(0.0, 0.0) - 1100.0).abs() < 1e-9);
    let at = |tu: f64| onset_reynolds(tu, 0.0);
    assert!(at(0.001) > at(0.01) && at(0.01) > at(0.03) && at(0.03) > at(0.06) && at(0.06) > 100.0);
}

/// F_PG: its two branches, their limits (1.5 and 3) and its floor at 0 never reached with the
/// clipped parameter.
#[test]
fn the_pressure_gradient_function_follows_its_branches_and_limits() {
    assert_eq!(pressure_gradient_function(0.0), 1.0);
    assert!((pressure_gradient_function(0.02) - (1.0 + 14.68 * 0.02)).abs() < 1e-15);
    assert_eq!(pressure_gradient_function(0.5), 1.5);
    assert!((pressure_gradient_function(-0.1) - (1.0 + 0.734)).abs() < 1e-15);
    assert_eq!(pressure_gradient_function(-1.0), 3.0);
    assert_eq!(pressure_gradient_parameter(1e9, 1.0, 1.5e-5), -1.0, "clipped below");
    assert_eq!(pressure_gradient_parameter(-1e9, 1.0, 1.5e-5), 1.0, "clipped above");
}

/// Before the onset (a thin laminar layer: Re_V far below 2.2 Re_theta_c) there is no
/// production, and the destruction holds gamma at 1/c_e2: the source vanishes there, is
/// negative above it and positive below it.
#[test]
fn before_the_onset_the_intermittency_settles_at_one_over_ce2() {
    let c = laminar_cell(2.0e4, 2.0e-5);
    let (onset, turb) = onset_and_turbulence_functions(&c);
    assert_eq!(onset, 0.0, "Re_V = {}", c.rho * c.wall_distance.powi(2) * c.strain_rate / c.mu);
    assert_eq!(turb, 1.0);
    let at = |g: f64| intermittency_source(g, &c).total;
    assert!(at(1.0 / CE2).abs() < 1e-12 * at(1.0).abs());
    assert!(at(0.5) < 0.0 && at(1.0) < 0.0 && at(0.01) > 0.0);
}

/// Past the onset in a turbulent layer (Re_V above 2.2 Re_theta_c, eddy-viscosity ratio above
/// 3.5 so F_onset3 = 0 and F_turb ~ 0) the production drives gamma to 1: the source is positive
/// between 0 and 1 and vanishes at 1.
#[test]
fn past_the_onset_in_a_turbulent_layer_the_intermittency_rises_to_one() {
    let c = IntermittencyCell { mu_t: 20.0 * 1.85e-5, ..laminar_cell(2.0e4, 2.0e-3) };
    let (onset, turb) = onset_and_turbulence_functions(&c);
    assert_eq!(onset, 2.0, "F_onset2 capped at 2 with Re_V = {}", c.rho * c.wall_distance.powi(2) * c.strain_rate / c.mu);
    assert!(turb < 1e-30);
    for g in [0.02, 0.3, 0.7, 0.99] {
        assert!(intermittency_source(g, &c).total > 0.0, "gamma {g}");
    }
    assert!(intermittency_source(1.0, &c).total.abs() < 1e-9);
}

/// A separated laminar shear layer (no eddy viscosity yet, Re_V far past the onset because the
/// shear layer lies far from the wall) produces intermittency: F_onset = min(Re_V / (2.2
/// Re_theta_c), 2) - 1 > 0 there, the model's route to separation-induced transition.
#[test]
fn a_laminar_shear_layer_away_from_the_wall_produces_intermittency() {
    let c = laminar_cell(5.0e3, 5.0e-3);
    let (onset, _) = onset_and_turbulence_functions(&c);
    assert!(onset > 0.0, "F_onset {onset}");
    assert!(intermittency_source(0.5, &c).production > 0.0);
}

/// The derivative of the source with respect to gamma against central differences, over
/// laminar, transitional and turbulent cells and the whole range of gamma.
#[test]
fn the_source_derivative_matches_finite_differences() {
    let cells = [
        laminar_cell(2.0e4, 2.0e-5),
        laminar_cell(5.0e3, 5.0e-3),
        IntermittencyCell { mu_t: 2.0 * 1.85e-5, dv_dy: -300.0, ..laminar_cell(1.0e4, 1.0e-3) },
        IntermittencyCell { mu_t: 20.0 * 1.85e-5, dv_dy: 500.0, ..laminar_cell(2.0e4, 2.0e-3) },
    ];
    for c in &cells {
        for g in [0.0, 0.02, 0.1, 0.5, 0.9, 1.0] {
            let h = 1e-6;
            let fd = (intermittency_source(g + h, c).total - intermittency_source(g - h, c).total) / (2.0 * h);
            let exact = intermittency_source(g, c).d_total_d_gamma;
            assert!((fd - exact).abs() <= 1e-6 * exact.abs().max(1.0), "{c:?} gamma {g}: {exact} against {fd}");
        }
    }
}

/// SA coupling: production times gamma, destruction times gamma bounded to [0.1, 1].
#[test]
fn sa_sees_the_intermittency_on_its_production_and_a_bounded_one_on_its_destruction() {
    assert_eq!(sa_coupling(1.0), (1.0, 1.0));
    assert_eq!(sa_coupling(0.02), (0.02, 0.1));
    assert_eq!(sa_coupling(0.5), (0.5, 0.5));
    assert_eq!(sa_coupling(1.1), (1.1, 1.0));
}

/// The kinematic inputs of the source: a simple shear u = a y has strain rate |a| (and vorticity
/// |a|); a pure strain u = a x, v = -a y has 2|a| and no vorticity. dV/dy is the wall-normal
/// derivative of the wall-normal velocity: dv/dy for a wall normal along y, du/dx along x, and
/// invariant under rotating the frame with the flow.
#[test]
fn strain_rate_and_wall_normal_derivative_of_simple_flows() {
    let a = 3.0;
    assert_eq!(strain_rate_magnitude([0.0, a], [0.0, 0.0]), a);
    assert!((strain_rate_magnitude([a, 0.0], [0.0, -a]) - 2.0 * a).abs() < 1e-15);
    let (grad_u, grad_v) = ([0.5, 2.0], [-1.0, 1.5]);
    assert_eq!(wall_normal_velocity_derivative([0.0, 1.0], grad_u, grad_v), 1.5);
    assert_eq!(wall_normal_velocity_derivative([1.0, 0.0], grad_u, grad_v), 0.5);
    // A wall normal at 30 degrees in a frame rotated by 30 degrees: the same as along y unrotated.
    let (c, s) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    // grad V' = R grad V R^T for V' = R V, x' = R x.
    let g = [[grad_u[0], grad_u[1]], [grad_v[0], grad_v[1]]];
    let r = [[c, -s], [s, c]];
    let rg = |i: usize, j: usize| (0..2).map(|k| (0..2).map(|l| r[i][k] * g[k][l] * r[j][l]).sum::<f64>()).sum::<f64>();
    let rotated = wall_normal_velocity_derivative([-s, c], [rg(0, 0), rg(0, 1)], [rg(1, 0), rg(1, 1)]);
    assert!((rotated - 1.5).abs() < 1e-14, "{rotated}");
}
