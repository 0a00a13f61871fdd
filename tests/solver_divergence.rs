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
