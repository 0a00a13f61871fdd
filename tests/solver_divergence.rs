//! An absurd CFL number must end in `Error::Diverged` naming the iteration: no panic, no NaN
//! result.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::solver::{uniform_state, Case, ExplicitSolver, Silent, SolverConfig};
use turbopt::Error;

#[test]
fn absurd_cfl_is_reported_as_divergence() {
    let gas = common::unit_gas();
    let q = [1.0, 0.5, 0.0, 1.0 / 1.4];
    let mesh = common::distorted_channel(1, 16, 8, 1.0, 0.05);
    let mut op = common::operating_point_of(&gas, q);
    // Start away from the steady state so that the residual is not round-off.
    op.p2 *= 0.9;
    let config = SolverConfig { cfl: 500.0, max_iterations: 5000, ..SolverConfig::default() };
    let case = Case { gas, operating_point: op, solver: config };
    let backend = CpuBackend::new(Some(1)).unwrap();
    let mut solver = ExplicitSolver::new(&backend, &mesh, case).unwrap();
    match solver.solve(&uniform_state(&mesh, &gas, q), &mut Silent) {
        Err(Error::Diverged { iteration, reason }) => {
            println!("diverged at iteration {iteration}: {reason}");
            assert!((1..5000).contains(&iteration));
            let message = Error::Diverged { iteration, reason }.to_string();
            assert!(message.contains(&format!("iteration {iteration}")));
        }
        Err(other) => panic!("expected divergence, got error {other}"),
        Ok(out) => panic!("expected divergence, got a result after {} iterations", out.iterations),
    }
}

#[test]
fn bad_case_input_is_a_typed_error() {
    let gas = common::unit_gas();
    let q = [1.0, 0.5, 0.0, 1.0 / 1.4];
    let mesh = common::distorted_channel(1, 4, 4, 1.0, 0.0);
    let backend = CpuBackend::new(Some(1)).unwrap();
    let mut case = Case { gas, operating_point: common::operating_point_of(&gas, q), solver: SolverConfig::default() };
    case.solver.cfl = -1.0;
    let err = ExplicitSolver::new(&backend, &mesh, case.clone()).err().expect("negative CFL must be rejected");
    assert!(err.to_string().contains("cfl"), "{err}");
    case.solver.cfl = 1.0;
    let mut bad_mesh = mesh.clone();
    bad_mesh.blocks[0].patches.pop();
    let err = ExplicitSolver::new(&backend, &bad_mesh, case).err().expect("an uncovered face must be rejected");
    let message = err.to_string();
    assert!(message.contains("JMax") && message.contains("cell 0"), "{message}");
}

/// The implicit scheme's update checks on the CPU backend: a state with a non-finite turbulence
/// unknown or a negative density is not physical, the change to it is infinite, and the limited
/// stage update scales an update that changes density or pressure by more than its limit.
#[test]
fn update_checks_catch_non_finite_turbulence_and_scale_large_updates() {
    use turbopt::backend::{Backend, ImplicitBackend, NFLOW};
    let gas = common::unit_gas();
    let mesh = common::distorted_channel(2, 12, 8, 1.0, 0.05);
    let backend = CpuBackend::new(Some(1)).unwrap();
    let g = backend.upload_geometry(&mesh).unwrap();
    let w = backend.upload_state(&g, &uniform_state(&mesh, &gas, [1.0, 0.5, 0.1, 1.0 / 1.4])).unwrap();
    assert!(backend.is_physical(&g, &gas, &w));
    assert_eq!(backend.relative_change_between(&g, &gas, &w, &w), 0.0);

    // dw: density up 30 % in one interior cell of the second block (pressure follows: the
    // energy is unchanged but so is the momentum, so p = (gamma - 1)(E - |m|^2 / 2 rho) rises).
    let layout = g.blocks[1].layout;
    let cell = layout.interior(5, 3);
    let mut dw = backend.new_field(&g);
    dw.blocks[1][cell] = 0.3;
    let change = backend.max_relative_change(&g, &gas, &w, &dw);
    let mut to = w.clone();
    backend.axpy_field(1.0, &dw, &mut to);
    assert!(change >= 0.3 - 1e-12 && change.is_finite(), "{change}");
    assert_eq!(backend.relative_change_between(&g, &gas, &w, &to), change, "the same change measured both ways");

    // Limited to 0.1: the update is scaled by 0.1 / change; under a limit above it, applied whole.
    for (limit, factor) in [(0.1, 0.1 / change), (2.0 * change, 1.0)] {
        let mut limited = w.clone();
        backend.add_limited_update(&g, &gas, limit, &dw, &mut limited);
        let expected = w.blocks[1][cell] + factor * 0.3;
        assert_eq!(limited.blocks[1][cell], expected, "limit {limit}");
    }

    // A non-finite turbulence unknown, then a negative density: not physical, infinite change.
    let np = layout.n_padded();
    for (slot, value) in [(NFLOW, f64::NAN), (NFLOW, f64::INFINITY), (0, -1.0)] {
        let mut bad = w.clone();
        bad.blocks[1][slot * np + cell] = value;
        assert!(!backend.is_physical(&g, &gas, &bad), "variable {slot} = {value}");
        assert_eq!(backend.relative_change_between(&g, &gas, &w, &bad), f64::INFINITY, "variable {slot} = {value}");
        let mut step = backend.new_field(&g);
        step.blocks[1][slot * np + cell] = value - w.blocks[1][slot * np + cell];
        assert_eq!(backend.max_relative_change(&g, &gas, &w, &step), f64::INFINITY, "variable {slot} = {value}");
    }
}
