//! MUSCL reconstruction and the smooth limiter of thesis eq. 4.12-4.13.

use turbopt::flow::muscl::*;

/// Deterministic pseudo-random numbers in [-1, 1) (xorshift), enough for property sweeps.
struct Sweep(u64);
impl Sweep {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

fn scalar_faces(s: [f64; 4], eps: f64) -> (f64, f64) {
    let (l, r) = muscl_face_states(&[s[0]], &[s[1]], &[s[2]], &[s[3]], &[eps], Reconstruction::SecondOrder);
    (l[0], r[0])
}

#[test]
fn linear_data_is_reconstructed_exactly() {
    for eps in [0.0, 1e-6, 1.0] {
        let (l, r) = scalar_faces([1.0, 3.0, 5.0, 7.0], eps);
        assert!((l - 4.0).abs() < 1e-14 && (r - 4.0).abs() < 1e-14, "eps {eps}: {l}, {r}");
    }
    // Equal slopes are returned unlimited whatever their size.
    assert_eq!(limited_slope(2.5, 2.5, 0.0), 2.5);
    assert_eq!(limited_slope(-1e-9, -1e-9, 1e-3), -1e-9);
}

#[test]
fn limiter_stays_in_the_tvd_region_and_faces_stay_between_neighbours() {
    let mut rng = Sweep(0x9e3779b97f4a7c15);
    for _ in 0..20_000 {
        let s = [rng.next(), rng.next(), rng.next(), rng.next()];
        let (l, r) = scalar_faces(s, 0.0);
        let (lo, hi) = (s[1].min(s[2]), s[1].max(s[2]));
        assert!(l >= lo - 1e-15 && l <= hi + 1e-15, "left {l} outside [{lo}, {hi}] for {s:?}");
        assert!(r >= lo - 1e-15 && r <= hi + 1e-15, "right {r} outside [{lo}, {hi}] for {s:?}");
        // Limiter function Psi(r) = delta/b with r = a/b: 0 <= Psi <= min(2r, 2) (Sweby's region).
        let (a, b) = (s[1] - s[0], s[2] - s[1]);
        if b != 0.0 {
            let ratio = a / b;
            let psi = limited_slope(a, b, 0.0) / b;
            assert!(psi >= -1e-15, "psi {psi} < 0 at r = {ratio}");
            assert!(psi <= 2.0 * ratio.max(0.0) + 1e-12 && psi <= 2.0 + 1e-12, "psi {psi} at r = {ratio}");
        }
    }
}

#[test]
fn limiter_is_symmetric() {
    let mut rng = Sweep(12345);
    for _ in 0..1000 {
        let (a, b, eps) = (rng.next(), rng.next(), 1e-3 * rng.next().abs());
        assert_eq!(limited_slope(a, b, eps), limited_slope(b, a, eps));
        assert_eq!(limited_slope(-a, -b, eps), -limited_slope(a, b, eps));
        // Mirroring the stencil swaps the face states.
        let s = [rng.next(), rng.next(), rng.next(), rng.next()];
        let (l, r) = scalar_faces(s, eps);
        let (l2, r2) = scalar_faces([s[3], s[2], s[1], s[0]], eps);
        assert!((l - r2).abs() < 1e-15 && (r - l2).abs() < 1e-15);
    }
}

#[test]
fn extrema_collapse_to_first_order_and_small_jumps_pass_unlimited() {
    // A maximum at i (a > 0, b < 0): the left state is the cell value itself when eps = 0.
    let (l, _) = scalar_faces([0.0, 1.0, 0.5, 0.0], 0.0);
    assert_eq!(l, 1.0);
    // The literal eq. 4.13 would overshoot here (delta = 0.2 > 0 at a maximum); ours does not.
    assert_eq!(limited_slope(0.5, -1.0, 0.0), 0.0);
    // With eps: a large extremum (jumps >> sqrt(eps)) is still nearly first order...
    let (a, b) = (1.0, -0.5);
    assert!(limited_slope(a, b, 1e-6).abs() < 1e-6);
    // ...while jumps far below sqrt(eps) get the central slope (a + b)/2: no clipping of smooth
    // extrema (the purpose of eps).
    let (a, b) = (1e-6, -0.5e-6);
    assert!((limited_slope(a, b, 1e-4) - 0.5 * (a + b)).abs() < 1e-6 * 0.25e-6 * 10.0);
}

#[test]
fn first_order_option_returns_the_cell_values() {
    let q = |x: f64| [x, 2.0 * x, -x, 3.0 + x];
    let (l, r) = muscl_face_states(&q(0.0), &q(1.0), &q(4.0), &q(2.0), &[0.0; 4], Reconstruction::FirstOrder);
    assert_eq!((l, r), (q(1.0), q(4.0)));
}

#[test]
fn smooth_data_is_second_order_accurate_away_from_extrema() {
    // Face value of sin(x) at x = 0.3 (monotone region) from cell averages of width h.
    let face_error = |h: f64| {
        let avg = |c: f64| ((c - 0.5 * h).cos() - (c + 0.5 * h).cos()) / h;
        let x = 0.3;
        let s = [avg(x - 1.5 * h), avg(x - 0.5 * h), avg(x + 0.5 * h), avg(x + 1.5 * h)];
        let (l, r) = scalar_faces(s, 0.0);
        (l - x.sin()).abs().max((r - x.sin()).abs())
    };
    let (e1, e2) = (face_error(0.02), face_error(0.01));
    let order = (e1 / e2).log2();
    assert!(order > 1.8, "observed order {order} (errors {e1:e}, {e2:e})");
}

#[test]
fn positivity_guard_falls_back_to_first_order() {
    // A huge eps lets a pressure jump through unlimited: the right state of a steep drop in p
    // would be negative, so the face reverts to the cell values.
    let q = |p: f64| [1.0, 0.0, 0.0, p];
    let eps = [0.0, 0.0, 0.0, 1e30];
    let stencil = (q(1.0), q(1.0), q(0.1), q(1.0e3));
    let (_, r) = muscl_face_states(&stencil.0, &stencil.1, &stencil.2, &stencil.3, &eps, Reconstruction::SecondOrder);
    assert!(r[3] < 0.0, "set-up must produce a negative pressure, got {}", r[3]);
    let (l, r) =
        muscl_primitive_face_states(&stencil.0, &stencil.1, &stencil.2, &stencil.3, &eps, Reconstruction::SecondOrder);
    assert_eq!((l, r), (q(1.0), q(0.1)));
}

#[test]
fn epsilon_scalings() {
    assert!((limiter_epsilon(1e-2, 1e5) - 1e6).abs() < 1e-6);
    // Venkatakrishnan: (K dx / L)^3 q_ref^2, halving dx divides eps by 8.
    let e1 = venkatakrishnan_epsilon(5.0, 1e-3, 0.1, 300.0);
    let e2 = venkatakrishnan_epsilon(5.0, 0.5e-3, 0.1, 300.0);
    assert!((e1 - (0.05f64).powi(3) * 9e4).abs() < 1e-12 * e1);
    assert!((e1 / e2 - 8.0).abs() < 1e-12);
}
