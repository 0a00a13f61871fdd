//! Point-wise tests of the boundary physics (`flow::boundary`): the characteristic inlet and
//! outlet states impose what they claim and keep the outgoing Riemann invariant, the supersonic
//! branches switch on the normal Mach number, and the wall mirrors vanish on the wall face.

use turbopt::flow::boundary::{inlet_state, mirrored, outlet_state, BoundaryData};
use turbopt::flow::gas::Gas;
use turbopt::flow::state::{conservative_from_primitive, Primitive};

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * b.abs().max(1e-300)
}

fn unit(angle_deg: f64) -> [f64; 2] {
    let a = angle_deg.to_radians();
    [a.cos(), a.sin()]
}

fn dot(a: [f64; 2], b: [f64; 2]) -> f64 {
    a[0] * b[0] + a[1] * b[1]
}

fn data() -> BoundaryData {
    BoundaryData { p01: 1.5e5, t01: 420.0, inlet_direction: unit(30.0), p2: 1.0e5, inlet_nu_tilde: 1e-5, no_slip_walls: true }
}

fn sound_speed(gas: &Gas, q: &Primitive) -> f64 {
    (gas.gamma * q[3] / q[0]).sqrt()
}

/// Total temperature and total pressure of a primitive state (isentropic relations).
fn totals(gas: &Gas, q: &Primitive) -> (f64, f64) {
    let t = q[3] / (q[0] * gas.gas_constant);
    let t0 = t + (q[1] * q[1] + q[2] * q[2]) / (2.0 * gas.cp());
    (t0, q[3] * (t0 / t).powf(gas.gamma / (gas.gamma - 1.0)))
}

fn riemann_plus(gas: &Gas, q: &Primitive, n: [f64; 2]) -> f64 {
    dot([q[1], q[2]], n) + 2.0 * sound_speed(gas, q) / (gas.gamma - 1.0)
}

fn assert_direction(q: &Primitive, d: [f64; 2]) {
    let speed = (q[1] * q[1] + q[2] * q[2]).sqrt();
    assert!(speed > 0.0, "no flow through the inlet");
    assert!(close(q[1] / speed, d[0], 1e-12) && close(q[2] / speed, d[1], 1e-12), "direction ({}, {}) is not {d:?}", q[1] / speed, q[2] / speed);
}

#[test]
fn subsonic_inlet_imposes_totals_and_direction_and_keeps_the_outgoing_invariant() {
    let gas = Gas::default();
    let data = data();
    // Inlet on an IMin face tilted by 5 degrees: outward normal points to -x.
    let n = [-unit(5.0)[0], -unit(5.0)[1]];
    let q = [1.1, 120.0, 40.0, 1.3e5];
    assert!(-dot([q[1], q[2]], n) < sound_speed(&gas, &q), "the test state must be subsonic along the normal");
    let qb = inlet_state(&gas, &data, &q, n);
    let (t0, p0) = totals(&gas, &qb);
    assert!(close(t0, data.t01, 1e-12), "T0 {t0} instead of {}", data.t01);
    assert!(close(p0, data.p01, 1e-10), "P0 {p0} instead of {}", data.p01);
    assert_direction(&qb, data.inlet_direction);
    let (r_inner, r_boundary) = (riemann_plus(&gas, &q, n), riemann_plus(&gas, &qb, n));
    assert!(close(r_boundary, r_inner, 1e-10), "R+ {r_boundary} instead of the interior's {r_inner}");
}

#[test]
fn supersonic_inlet_keeps_the_interior_static_pressure_below_the_total_pressure() {
    let gas = Gas::default();
    let data = data();
    let n = [-1.0, 0.0];
    let q = [1.0, 600.0, 50.0, 0.9e5];
    assert!(-dot([q[1], q[2]], n) > sound_speed(&gas, &q), "the test state must be supersonic along the normal");
    let qb = inlet_state(&gas, &data, &q, n);
    assert!(close(qb[3], q[3], 1e-12), "static pressure {} instead of the interior's {}", qb[3], q[3]);
    let (t0, p0) = totals(&gas, &qb);
    assert!(close(t0, data.t01, 1e-12) && close(p0, data.p01, 1e-10), "totals ({t0}, {p0})");
    assert_direction(&qb, data.inlet_direction);

    // An interior static pressure above P0 is capped: the boundary state is at rest at P0, T0.
    let q_high = [3.0, 700.0, 0.0, 2.0e5];
    let qb = inlet_state(&gas, &data, &q_high, n);
    assert_eq!((qb[1], qb[2]), (0.0, 0.0));
    assert!(close(qb[3], data.p01, 1e-12) && close(qb[3] / (qb[0] * gas.gas_constant), data.t01, 1e-12), "rest state {qb:?}");
}

#[test]
fn inlet_direction_tangent_to_the_face_still_gives_a_physical_state() {
    let gas = Gas::default();
    let data = BoundaryData { inlet_direction: [0.0, 1.0], ..data() };
    let qb = inlet_state(&gas, &data, &[1.1, 100.0, 0.0, 1.3e5], [-1.0, 0.0]);
    assert!(qb.iter().all(|x| x.is_finite()) && qb[0] > 0.0 && qb[3] > 0.0, "boundary state {qb:?}");
}

#[test]
fn subsonic_outlet_imposes_p2_and_extrapolates_entropy_tangential_velocity_and_r_plus() {
    let gas = Gas::default();
    let n = unit(-10.0);
    let q = [1.05, 150.0, -60.0, 1.1e5];
    assert!(dot([q[1], q[2]], n) < sound_speed(&gas, &q));
    let qb = outlet_state(gas.gamma, 1.0e5, &q, n);
    assert_eq!(qb[3], 1.0e5);
    let entropy = |s: &Primitive| s[3] / s[0].powf(gas.gamma);
    assert!(close(entropy(&qb), entropy(&q), 1e-12), "entropy not extrapolated");
    let tangent = [-n[1], n[0]];
    assert!(close(dot([qb[1], qb[2]], tangent), dot([q[1], q[2]], tangent), 1e-12), "tangential velocity not extrapolated");
    assert!(close(riemann_plus(&gas, &qb, n), riemann_plus(&gas, &q, n), 1e-12), "R+ not extrapolated");
}

#[test]
fn supersonic_outlet_returns_the_interior_state() {
    let gas = Gas::default();
    let n = [1.0, 0.0];
    // Normal Mach 1.5.
    let q = [0.8, 1.5 * (1.4f64 * 0.6e5 / 0.8).sqrt(), 30.0, 0.6e5];
    assert_eq!(outlet_state(gas.gamma, 1.0e5, &q, n), q);
    // High total but subsonic normal Mach number: not extrapolated.
    let q_swirl = [0.8, 100.0, 600.0, 0.6e5];
    assert_eq!(outlet_state(gas.gamma, 1.0e5, &q_swirl, n)[3], 1.0e5);
}

#[test]
fn wall_mirrors_vanish_on_the_wall_face() {
    let gas = Gas::default();
    let n = unit(70.0);
    let c = conservative_from_primitive(gas.gamma, &[1.2, 80.0, -35.0, 1.0e5]);
    let w = [c[0], c[1], c[2], c[3], 1.2 * 2e-5, 1.2 * 0.3];
    let mean = |a: &[f64; 6], b: &[f64; 6]| -> [f64; 6] { std::array::from_fn(|k| 0.5 * (a[k] + b[k])) };

    let no_slip = mirrored(&w, n, true);
    let m = mean(&w, &no_slip);
    assert_eq!((m[1], m[2], m[4]), (0.0, 0.0, 0.0), "no-slip: momentum and nu~ must vanish on the wall");
    assert_eq!((no_slip[0], no_slip[3]), (w[0], w[3]));
    assert_eq!(no_slip[5], w[5], "the intermittency has a zero normal gradient at a wall");

    let slip = mirrored(&w, n, false);
    let m = mean(&w, &slip);
    assert!(dot([m[1], m[2]], n).abs() <= 1e-12 * (w[1].abs() + w[2].abs()), "slip: normal momentum on the wall");
    let tangent = [-n[1], n[0]];
    assert!(close(dot([slip[1], slip[2]], tangent), dot([w[1], w[2]], tangent), 1e-12), "slip: tangential momentum changed");
    assert_eq!((slip[0], slip[3], slip[4], slip[5]), (w[0], w[3], w[4], w[5]));
}
