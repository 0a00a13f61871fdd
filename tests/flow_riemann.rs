//! Exact Riemann solver (Toro ch. 4): Sod star state and sampled solution.

use turbopt::flow::riemann::{ExactRiemann, RiemannError, Wave};

const GAMMA: f64 = 1.4;

fn sod() -> ExactRiemann {
    ExactRiemann::solve(GAMMA, [1.0, 0.0, 1.0], [0.125, 0.0, 0.1]).expect("Sod has a solution")
}

#[test]
fn sod_star_state_matches_the_reference_values() {
    let s = sod();
    eprintln!(
        "Sod star: p {:.10} u {:.10} rho_L {:.10} rho_R {:.10} waves {:?}",
        s.star.p, s.star.u, s.star.rho_left, s.star.rho_right, s.right_wave
    );
    let close = |a: f64, b: f64| (a - b).abs() < 1e-7;
    assert!(close(s.star.p, 0.30313018), "p* = {}", s.star.p);
    assert!(close(s.star.u, 0.92745262), "u* = {}", s.star.u);
    assert!(close(s.star.rho_left, 0.42631943), "rho*L = {}", s.star.rho_left);
    assert!(close(s.star.rho_right, 0.26557371), "rho*R = {}", s.star.rho_right);
    match s.right_wave {
        Wave::Shock { speed } => assert!((speed - 1.752156).abs() < 1e-6, "shock speed {speed}"),
        w => panic!("right wave should be a shock, got {w:?}"),
    }
    match s.left_wave {
        Wave::Rarefaction { head, tail } => {
            assert!((head + (1.4f64).sqrt()).abs() < 1e-14, "head {head}");
            assert!(tail < 0.0 && tail > head, "tail {tail}");
        }
        w => panic!("left wave should be a rarefaction, got {w:?}"),
    }
}

#[test]
fn sod_sampling_covers_every_region() {
    let s = sod();
    assert_eq!(s.sample(-2.0), [1.0, 0.0, 1.0]);
    assert_eq!(s.sample(2.0), [0.125, 0.0, 0.1]);
    assert_eq!(s.sample(1.0), [s.star.rho_right, s.star.u, s.star.p]);
    assert_eq!(s.sample(0.5), [s.star.rho_left, s.star.u, s.star.p]);
    // The fan joins its end states continuously and is isentropic inside.
    let Wave::Rarefaction { head, tail } = s.left_wave else { unreachable!() };
    let at_head = s.sample(head + 1e-12);
    let at_tail = s.sample(tail - 1e-12);
    assert!((at_head[0] - 1.0).abs() < 1e-10 && (at_head[2] - 1.0).abs() < 1e-10);
    assert!((at_tail[0] - s.star.rho_left).abs() < 1e-10 && (at_tail[1] - s.star.u).abs() < 1e-10);
    let mid = s.sample(0.5 * (head + tail));
    assert!((mid[2] / mid[0].powf(GAMMA) - 1.0).abs() < 1e-12, "entropy in the fan");
    // Inside the fan u - c = xi (the C- characteristics are the rays).
    let c = (GAMMA * mid[2] / mid[0]).sqrt();
    assert!((mid[1] - c - 0.5 * (head + tail)).abs() < 1e-12);
}

#[test]
fn toro_test_3_and_mirror_symmetry() {
    // Toro (2009) Table 4.3, test 3: p* = 460.894, u* = 19.5975, rho*L = 0.57506, rho*R = 5.99924.
    let s = ExactRiemann::solve(GAMMA, [1.0, 0.0, 1000.0], [1.0, 0.0, 0.01]).unwrap();
    assert!((s.star.p / 460.894 - 1.0).abs() < 2e-6, "p* {}", s.star.p);
    assert!((s.star.u / 19.5975 - 1.0).abs() < 5e-6, "u* {}", s.star.u);
    assert!((s.star.rho_left / 0.57506 - 1.0).abs() < 2e-5);
    assert!((s.star.rho_right / 5.99924 - 1.0).abs() < 2e-6);
    // Mirrored Sod: same star pressure, opposite velocity, swapped densities.
    let m = ExactRiemann::solve(GAMMA, [0.125, 0.0, 0.1], [1.0, 0.0, 1.0]).unwrap();
    let s = sod();
    assert!((m.star.p - s.star.p).abs() < 1e-14 && (m.star.u + s.star.u).abs() < 1e-14);
    for xi in [-1.9, -1.2, -0.4, 0.3, 1.0] {
        let a = s.sample(xi);
        let b = m.sample(-xi);
        assert!((a[0] - b[0]).abs() < 1e-12 && (a[1] + b[1]).abs() < 1e-12 && (a[2] - b[2]).abs() < 1e-12);
    }
}

#[test]
fn bad_data_gives_typed_errors() {
    assert!(matches!(
        ExactRiemann::solve(GAMMA, [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]),
        Err(RiemannError::NonPhysical { side: "left", .. })
    ));
    assert!(matches!(
        ExactRiemann::solve(GAMMA, [1.0, 0.0, 1.0], [1.0, 0.0, f64::NAN]),
        Err(RiemannError::NonPhysical { side: "right", .. })
    ));
    // Two strong rarefactions moving apart: vacuum.
    assert!(matches!(ExactRiemann::solve(GAMMA, [1.0, -20.0, 1.0], [1.0, 20.0, 1.0]), Err(RiemannError::Vacuum)));
}
