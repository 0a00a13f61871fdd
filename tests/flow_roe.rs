//! Point-wise tests of the convective numerics: state conversions, Roe flux, wall flux and the
//! approximate flux Jacobians.

mod common;

use turbopt::flow::jacobian::{
    convective_flux_jacobian, roe_abs_matrix, roe_flux_jacobians, rusanov_flux_jacobians, Block4,
};
use turbopt::flow::roe::{
    physical_flux, roe_abs_eigenvalues, roe_average, roe_dissipation, roe_flux, rusanov_flux, wall_flux,
};
use turbopt::flow::state::*;

const GAMMA: f64 = 1.4;

fn assert_close(actual: &[f64], expected: &[f64], rel: f64, what: &str) {
    let scale = expected.iter().fold(0.0f64, |m, x| m.max(x.abs())).max(1e-300);
    for (k, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!((a - e).abs() <= rel * scale, "{what}: component {k}: {a} vs {e} (rel tol {rel}, scale {scale})");
    }
}

/// A few physical states over a wide Mach range (subsonic, transonic, supersonic, reversed).
fn sample_states() -> Vec<Primitive> {
    vec![
        [1.2, 100.0, 20.0, 1.0e5],
        [0.8, -250.0, 140.0, 6.0e4],
        [1.5, 450.0, -30.0, 9.0e4],
        [0.3, 5.0, -3.0, 2.0e4],
        [2.0, 0.0, 0.0, 2.0e5],
    ]
}

fn unit(angle_deg: f64) -> [f64; 2] {
    let a = angle_deg.to_radians();
    [a.cos(), a.sin()]
}

#[test]
fn state_round_trip_and_derived_quantities() {
    for q in sample_states() {
        let w = conservative_from_primitive(GAMMA, &q);
        assert_close(&primitive_from_conservative(GAMMA, &w), &q, 1e-14, "round trip");
        let e = total_energy(GAMMA, &q);
        assert!((w[3] - q[0] * e).abs() <= 1e-12 * w[3]);
        assert!((total_enthalpy(GAMMA, &q) - (e + q[3] / q[0])).abs() <= 1e-12 * e.abs().max(1.0));
        let c = speed_of_sound(GAMMA, &q);
        assert!((c * c - GAMMA * q[3] / q[0]).abs() <= 1e-12 * c * c);
        let t = temperature(287.0, &q);
        assert!((q[3] - q[0] * 287.0 * t).abs() <= 1e-10 * q[3]);
        assert!((mach(GAMMA, &q) - (q[1].hypot(q[2]) / c)).abs() < 1e-14);
    }
    assert_eq!(nu_tilde_from_conservative(2.0, 3.0e-5), 1.5e-5);
    assert_eq!(conservative_nu_tilde(2.0, 1.5e-5), 3.0e-5);
}

#[test]
fn non_physical_states_are_typed_errors() {
    assert!(matches!(validate_primitive(&[-1.0, 0.0, 0.0, 1.0]), Err(StateError::Density { .. })));
    assert!(matches!(validate_primitive(&[1.0, f64::NAN, 0.0, 1.0]), Err(StateError::Velocity { .. })));
    assert!(matches!(validate_primitive(&[1.0, 0.0, 0.0, 0.0]), Err(StateError::Pressure { .. })));
    // Kinetic energy larger than the total energy: negative pressure.
    let w = [1.0, 100.0, 0.0, 1000.0];
    assert!(matches!(checked_primitive_from_conservative(GAMMA, &w), Err(StateError::Pressure { .. })));
    assert!(matches!(
        checked_primitive_from_conservative(GAMMA, &[0.0, 0.0, 0.0, 1.0]),
        Err(StateError::Density { .. })
    ));
    let q = [1.2, 10.0, 5.0, 1e5];
    assert_eq!(checked_primitive_from_conservative(GAMMA, &conservative_from_primitive(GAMMA, &q)).unwrap().len(), 4);
}

#[test]
fn roe_flux_is_consistent_with_the_physical_flux() {
    for q in sample_states() {
        for angle in [0.0, 37.0, 90.0, 200.0] {
            let n = unit(angle);
            let area = 0.37;
            let f = roe_flux(GAMMA, &q, &q, n, area, 0.1);
            let exact: Vec<f64> = physical_flux(GAMMA, &q, n).iter().map(|x| x * area).collect();
            assert_close(&f, &exact, 1e-14, "F(U, U) = F(U).n");
        }
    }
}

#[test]
fn roe_flux_is_antisymmetric_in_left_right_and_normal() {
    let states = sample_states();
    for l in &states {
        for r in &states {
            let n = unit(23.0);
            let f = roe_flux(GAMMA, l, r, n, 1.3, 0.1);
            let g = roe_flux(GAMMA, r, l, [-n[0], -n[1]], 1.3, 0.1);
            let minus_g: Vec<f64> = g.iter().map(|x| -x).collect();
            assert_close(&f, &minus_g, 1e-13, "F(L,R,n) = -F(R,L,-n)");
        }
    }
}

#[test]
fn roe_flux_is_rotationally_invariant() {
    let rotate = |v: [f64; 2], a: f64| [a.cos() * v[0] - a.sin() * v[1], a.sin() * v[0] + a.cos() * v[1]];
    let l = [1.1, 120.0, -40.0, 1.1e5];
    let r = [0.9, 60.0, 10.0, 0.8e5];
    let n = unit(10.0);
    let f = roe_flux(GAMMA, &l, &r, n, 1.0, 0.1);
    for angle in [0.3, 1.7, -2.5] {
        let rot = |q: &Primitive| {
            let [u, v] = rotate([q[1], q[2]], angle);
            [q[0], u, v, q[3]]
        };
        let g = roe_flux(GAMMA, &rot(&l), &rot(&r), rotate(n, angle), 1.0, 0.1);
        let [fx, fy] = rotate([f[1], f[2]], angle);
        assert_close(&g, &[f[0], fx, fy, f[3]], 1e-13, "rotated flux");
    }
}

#[test]
fn supersonic_faces_are_fully_upwinded() {
    let n = unit(0.0);
    // Both sides at Mach > 1.5 towards +x: the flux is the left physical flux.
    let l = [1.0, 700.0, 30.0, 1.0e5];
    let r = [1.3, 650.0, -20.0, 1.4e5];
    let f = roe_flux(GAMMA, &l, &r, n, 2.0, 0.1);
    let fl: Vec<f64> = physical_flux(GAMMA, &l, n).iter().map(|x| 2.0 * x).collect();
    assert_close(&f, &fl, 1e-13, "supersonic to +x");
    // Towards -x: the right physical flux.
    let l2 = [1.0, -700.0, 30.0, 1.0e5];
    let r2 = [1.3, -650.0, -20.0, 1.4e5];
    let f2 = roe_flux(GAMMA, &l2, &r2, n, 2.0, 0.1);
    let fr: Vec<f64> = physical_flux(GAMMA, &r2, n).iter().map(|x| 2.0 * x).collect();
    assert_close(&f2, &fr, 1e-13, "supersonic to -x");
}

#[test]
fn roe_flux_resolves_stationary_contact_and_shock_exactly() {
    let n = [1.0, 0.0];
    // Stationary contact: equal p, zero normal velocity, different density and tangential velocity.
    let l = [1.0, 0.0, 30.0, 1.0e5];
    let r = [0.4, 0.0, -10.0, 1.0e5];
    let f = roe_flux(GAMMA, &l, &r, n, 1.0, 0.0);
    assert_close(&f, &[0.0, 1.0e5, 0.0, 0.0], 1e-13, "stationary contact");
    // Stationary normal shock at M1 = 2 (Rankine-Hugoniot): F = F(L) = F(R).
    let m1: f64 = 2.0;
    let (rho1, p1) = (1.0, 1.0e5);
    let u1 = m1 * (GAMMA * p1 / rho1).sqrt();
    let rho_ratio = (GAMMA + 1.0) * m1 * m1 / ((GAMMA - 1.0) * m1 * m1 + 2.0);
    let p_ratio = 1.0 + 2.0 * GAMMA / (GAMMA + 1.0) * (m1 * m1 - 1.0);
    let l = [rho1, u1, 0.0, p1];
    let r = [rho1 * rho_ratio, u1 / rho_ratio, 0.0, p1 * p_ratio];
    let f = roe_flux(GAMMA, &l, &r, n, 1.0, 0.0);
    assert_close(&f, &physical_flux(GAMMA, &l, n), 1e-12, "stationary shock vs F(L)");
    assert_close(&f, &physical_flux(GAMMA, &r, n), 1e-12, "stationary shock vs F(R)");
}

#[test]
fn entropy_fix_acts_only_near_sonic_and_stagnation_points() {
    let n = [1.0, 0.0];
    let differs = |l: &Primitive, r: &Primitive| {
        let a = roe_flux(GAMMA, l, r, n, 1.0, 0.1);
        let b = roe_flux(GAMMA, l, r, n, 1.0, 0.0);
        (0..4).any(|k| (a[k] - b[k]).abs() > 1e-12 * a[k].abs().max(1.0))
    };
    // Normal Mach ~0.5: eigenvalues c/2, 3c/2 and -c/2, all beyond 0.1 (|V| + c).
    let c = (GAMMA * 1.0e5_f64 / 1.2).sqrt();
    assert!(!differs(&[1.2, 0.5 * c, 5.0, 1.0e5], &[1.1, 0.45 * c, 0.0, 0.95e5]));
    // Sonic point: V - c ~ 0.
    assert!(differs(&[1.2, c, 5.0, 1.0e5], &[1.1, 0.98 * c, 0.0, 0.97e5]));
    // Stagnation: V ~ 0.
    assert!(differs(&[1.2, 1.0, 5.0, 1.0e5], &[1.1, -1.0, 0.0, 0.97e5]));
    // The fixed eigenvalue is continuous at |lambda| = delta and never below delta/2.
    use turbopt::flow::roe::harten_fixed_eigenvalue as fix;
    assert!((fix(0.1, 0.1) - 0.1).abs() < 1e-15);
    assert!((fix(-0.1 + 1e-12, 0.1) - 0.1).abs() < 1e-11);
    assert!((fix(0.0, 0.1) - 0.05).abs() < 1e-15);
    assert_eq!(fix(-3.0, 0.0), 3.0);
}

#[test]
fn wall_flux_is_the_pressure_part_of_the_physical_flux() {
    let n = unit(63.0);
    // A state sliding along the wall: V.n = 0.
    let t = [-n[1], n[0]];
    let q = [1.1, 80.0 * t[0], 80.0 * t[1], 0.9e5];
    let f = wall_flux(q[3], n, 0.2);
    let exact: Vec<f64> = physical_flux(GAMMA, &q, n).iter().map(|x| x * 0.2).collect();
    assert_close(&f, &exact, 1e-13, "wall flux");
}

fn matvec(m: &Block4, x: &[f64; 4]) -> [f64; 4] {
    std::array::from_fn(|r| (0..4).map(|c| m[r][c] * x[c]).sum())
}

/// Central finite differences of a face flux with respect to one side's conservative variables.
fn fd_jacobian(f: impl Fn(&Primitive) -> [f64; 4], q: &Primitive) -> Block4 {
    let w = conservative_from_primitive(GAMMA, q);
    let mut jac = [[0.0; 4]; 4];
    for col in 0..4 {
        let h = 1e-6 * w[col].abs().max(1e-3 * w[3].abs().sqrt());
        let mut wp = w;
        let mut wm = w;
        wp[col] += h;
        wm[col] -= h;
        let fp = f(&primitive_from_conservative(GAMMA, &wp));
        let fm = f(&primitive_from_conservative(GAMMA, &wm));
        for row in 0..4 {
            jac[row][col] = (fp[row] - fm[row]) / (2.0 * h);
        }
    }
    jac
}

/// max |a - b| / max |b| over the entries; NaN when any entry is NaN.
fn max_rel_diff(a: &Block4, b: &Block4) -> f64 {
    common::max_abs_difference(a.as_flattened(), b.as_flattened()) / common::largest(b.as_flattened().iter().map(|x| x.abs()))
}

#[test]
fn convective_jacobian_matches_finite_differences() {
    for q in sample_states() {
        let n = unit(31.0);
        let exact = convective_flux_jacobian(GAMMA, &q, n);
        let fd = fd_jacobian(|s| physical_flux(GAMMA, s, n), &q);
        let err = max_rel_diff(&exact, &fd);
        assert!(err < 1e-7, "A(W) vs finite differences: {err:e}");
    }
}

#[test]
fn roe_matrix_reproduces_the_roe_dissipation_for_finite_jumps() {
    // Roe property: |A_Roe| (W_R - W_L) is exactly the dissipation written with primitive jumps.
    let states = sample_states();
    for l in &states {
        for r in &states {
            let n = unit(-47.0);
            let avg = roe_average(GAMMA, l, r);
            let eig = roe_abs_eigenvalues(&avg, n, 0.1);
            let jump = std::array::from_fn(|k| r[k] - l[k]);
            let diss = roe_dissipation(&avg, &jump, n, eig);
            let wl = conservative_from_primitive(GAMMA, l);
            let wr = conservative_from_primitive(GAMMA, r);
            let dw = std::array::from_fn(|k| wr[k] - wl[k]);
            let via_matrix = matvec(&roe_abs_matrix(GAMMA, l, r, n, 0.1), &dw);
            assert_close(&via_matrix, &diss, 1e-11, "|A| dW vs dissipation");
        }
    }
}

#[test]
fn roe_jacobians_match_finite_differences_for_equal_states() {
    // With L = R the frozen-|A| approximation is exact (the neglected d|A|/dW term multiplies
    // W_R - W_L = 0), away from the entropy-fix kinks.
    let states = [[1.2, 100.0, 20.0, 1.0e5], [0.8, -150.0, 140.0, 6.0e4], [1.5, 450.0, -30.0, 9.0e4]];
    for q in states {
        let n = unit(15.0);
        let (dl, dr) = roe_flux_jacobians(GAMMA, &q, &q, n, 0.7, 0.1);
        let fd_l = fd_jacobian(|s| roe_flux(GAMMA, s, &q, n, 0.7, 0.1), &q);
        let fd_r = fd_jacobian(|s| roe_flux(GAMMA, &q, s, n, 0.7, 0.1), &q);
        // Relative to the size of the full flux Jacobian: dF/dW_R vanishes on a supersonic face.
        let scale = convective_flux_jacobian(GAMMA, &q, n).iter().flatten().fold(0.0f64, |m, x| m.max(0.7 * x.abs()));
        let abs_diff = |a: &Block4, b: &Block4| common::max_abs_difference(a.as_flattened(), b.as_flattened());
        let (el, er) = (abs_diff(&dl, &fd_l) / scale, abs_diff(&dr, &fd_r) / scale);
        assert!(el < 1e-6 && er < 1e-6, "dF/dW_L err {el:e}, dF/dW_R err {er:e}");
    }
}

#[test]
fn roe_jacobian_error_is_first_order_in_the_jump() {
    let q = [1.2, 100.0, 20.0, 1.0e5];
    let n = unit(15.0);
    let error = |h: f64| {
        let r = [q[0] * (1.0 + h), q[1] + 300.0 * h, q[2] - 100.0 * h, q[3] * (1.0 - h)];
        let (dl, _) = roe_flux_jacobians(GAMMA, &q, &r, n, 1.0, 0.0);
        max_rel_diff(&dl, &fd_jacobian(|s| roe_flux(GAMMA, s, &r, n, 1.0, 0.0), &q))
    };
    let (e1, e2) = (error(0.02), error(0.01));
    let order = (e1 / e2).log2();
    assert!(e1 < 0.05 && (0.8..1.3).contains(&order), "errors {e1:e}, {e2:e}, order {order}");
}

#[test]
fn jacobian_pairs_sum_to_the_mean_flux_jacobian() {
    // dF/dW_L + dF/dW_R = (A(W_L) + A(W_R))/2 * area for both splittings: the dissipation parts
    // cancel, so a uniform state has a consistent linearization.
    let l = [1.2, 100.0, 20.0, 1.0e5];
    let r = [0.9, 160.0, -20.0, 0.8e5];
    let n = unit(75.0);
    let mean: Block4 = {
        let (al, ar) = (convective_flux_jacobian(GAMMA, &l, n), convective_flux_jacobian(GAMMA, &r, n));
        std::array::from_fn(|i| std::array::from_fn(|j| 0.5 * (al[i][j] + ar[i][j]) * 1.5))
    };
    for (dl, dr) in [roe_flux_jacobians(GAMMA, &l, &r, n, 1.5, 0.1), rusanov_flux_jacobians(GAMMA, &l, &r, n, 1.5)] {
        let sum: Block4 = std::array::from_fn(|i| std::array::from_fn(|j| dl[i][j] + dr[i][j]));
        assert!(max_rel_diff(&sum, &mean) < 1e-13);
    }
    // Rusanov: the dissipation is lambda I with lambda the largest wave speed of both sides.
    let (dl, _) = rusanov_flux_jacobians(GAMMA, &l, &r, n, 1.0);
    let al = convective_flux_jacobian(GAMMA, &l, n);
    let vn = |q: &Primitive| (q[1] * n[0] + q[2] * n[1]).abs() + speed_of_sound(GAMMA, q);
    let lambda = vn(&l).max(vn(&r));
    assert!((dl[0][0] - 0.5 * (al[0][0] + lambda)).abs() < 1e-12 * lambda);
    assert!((dl[0][1] - 0.5 * al[0][1]).abs() < 1e-15);
}

#[test]
fn rusanov_flux_is_consistent_and_its_jacobians_match_finite_differences() {
    for q in sample_states() {
        let n = unit(-20.0);
        let f = rusanov_flux(GAMMA, &q, &q, n, 0.4);
        let exact: Vec<f64> = physical_flux(GAMMA, &q, n).iter().map(|x| x * 0.4).collect();
        assert_close(&f, &exact, 1e-14, "Rusanov F(U, U)");
    }
    // The frozen-lambda Jacobians miss only d(lambda)/dW (W_R - W_L), which vanishes for equal
    // states (also at the kink of the max(), since it multiplies a zero jump).
    let q = [1.2, 100.0, 20.0, 1.0e5];
    let n = unit(15.0);
    let (dl, dr) = rusanov_flux_jacobians(GAMMA, &q, &q, n, 0.7);
    let fd_l = fd_jacobian(|s| rusanov_flux(GAMMA, s, &q, n, 0.7), &q);
    let fd_r = fd_jacobian(|s| rusanov_flux(GAMMA, &q, s, n, 0.7), &q);
    let scale = convective_flux_jacobian(GAMMA, &q, n).iter().flatten().fold(0.0f64, |m, x| m.max(0.7 * x.abs()));
    let abs_diff = |a: &Block4, b: &Block4| common::max_abs_difference(a.as_flattened(), b.as_flattened());
    assert!(abs_diff(&dl, &fd_l) / scale < 1e-6 && abs_diff(&dr, &fd_r) / scale < 1e-6);
    // Antisymmetry as for Roe.
    let r = [0.9, 160.0, -20.0, 0.8e5];
    let f = rusanov_flux(GAMMA, &q, &r, n, 1.0);
    let g = rusanov_flux(GAMMA, &r, &q, [-n[0], -n[1]], 1.0);
    let minus_g: Vec<f64> = g.iter().map(|x| -x).collect();
    assert_close(&f, &minus_g, 1e-13, "Rusanov antisymmetry");
}

#[test]
fn roe_matrix_is_the_absolute_value_of_the_roe_averaged_jacobian() {
    // |A| = R |Lambda| R^-1 satisfies |A|^2 = A^2, |A| A = A |A| and tr |A| = sum |lambda_k|; check
    // these against A evaluated at the Roe-averaged state (fix off, mixed-sign eigenvalues).
    let mul = |a: &Block4, b: &Block4| -> Block4 {
        std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| a[i][k] * b[k][j]).sum()))
    };
    let l = [1.2, 100.0, 20.0, 1.0e5];
    let r = [0.9, 160.0, -20.0, 0.8e5];
    let n = unit(40.0);
    let avg = roe_average(GAMMA, &l, &r);
    let p_avg = avg.rho * (avg.h - 0.5 * (avg.u * avg.u + avg.v * avg.v)) * (GAMMA - 1.0) / GAMMA;
    let a = convective_flux_jacobian(GAMMA, &[avg.rho, avg.u, avg.v, p_avg], n);
    let abs_a = roe_abs_matrix(GAMMA, &l, &r, n, 0.0);
    let squares = (max_rel_diff(&mul(&abs_a, &abs_a), &mul(&a, &a)), max_rel_diff(&mul(&abs_a, &a), &mul(&a, &abs_a)));
    assert!(squares.0 < 1e-12 && squares.1 < 1e-12, "|A|^2 - A^2: {:e}, commutator: {:e}", squares.0, squares.1);
    let vn = avg.u * n[0] + avg.v * n[1];
    let trace: f64 = (0..4).map(|k| abs_a[k][k]).sum();
    let expected = (vn - avg.c).abs() + 2.0 * vn.abs() + (vn + avg.c).abs();
    assert!((trace - expected).abs() < 1e-12 * expected, "trace {trace} vs {expected}");
    assert!(vn.abs() < avg.c, "the check needs mixed-sign eigenvalues");
}
