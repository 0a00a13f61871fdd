//! The case configuration reads from RON with defaults for everything but gas and operating
//! point, and bad values come back as typed errors.

use turbopt::backend::cpu::CpuBackend;
use turbopt::mesh::simple::{channel, Sides};
use turbopt::solver::{Case, Cycle, ExplicitSolver, FlowModel, RkScheme, Scheme, SolverConfig, TimeStepping};

const CASE: &str = r#"(
    gas: (gas_constant: 287.0, gamma: 1.4, prandtl: 0.7, turbulent_prandtl: 0.9, mu_ref: 1.716e-5, t_ref: 273.15, sutherland_s: 110.4),
    operating_point: (name: "test", p01: 1.4e5, t01: 420.0, alpha1_deg: 0.0, p2: 1.0e5),
    solver: (
        model: spalart_allmaras,
        cfl: 3.0,
        rk: jameson4,
        smoothing: Some((epsilon: (0.6, 0.6))),
        multigrid: Some((levels: 3, cycle: w)),
        convergence_orders: 5.0,
    ),
)"#;

#[test]
fn case_reads_from_ron_with_defaults() {
    let case: Case = ron::from_str(CASE).unwrap();
    assert_eq!(case.solver.model, FlowModel::SpalartAllmaras);
    assert_eq!(case.solver.rk, RkScheme::Jameson4);
    assert_eq!(case.solver.multigrid.unwrap().cycle, Cycle::W);
    assert_eq!(case.solver.time_stepping, TimeStepping::Local);
    assert_eq!(case.operating_point.nu_tilde_ratio, 3.0);
    case.validate().unwrap();
    let text = ron::ser::to_string(&case).unwrap();
    let back: Case = ron::from_str(&text).unwrap();
    assert_eq!(back, case);
}

/// A RON configuration fills what it leaves out from the cascade default (RANS-SA, the explicit
/// W-cycle), not from the bare solver's Euler `Default`, and says which fields it set: an
/// implicit section alone runs the solve a command would run anyway, with its stages.
#[test]
fn a_partial_ron_configuration_keeps_the_cascade_default() {
    let (empty, fields) = SolverConfig::from_ron_with_fields("()").unwrap();
    assert_eq!(empty, SolverConfig::rans_sa());
    assert!(fields.is_empty());
    let (config, fields) = SolverConfig::from_ron_with_fields("(scheme: implicit((stages: 3)), max_iterations: 400)").unwrap();
    assert_eq!(config.model, FlowModel::SpalartAllmaras);
    assert_eq!(config.multigrid, SolverConfig::rans_sa().multigrid);
    assert!(matches!(&config.scheme, Scheme::Implicit(i) if i.stages == 3), "{:?}", config.scheme);
    assert_eq!(config.max_iterations, 400);
    assert_eq!(fields, ["max_iterations", "scheme"]);
    let (euler, _) = SolverConfig::from_ron_with_fields("SolverConfig(model: euler)").unwrap();
    assert_eq!(euler.model, FlowModel::Euler);
    assert_eq!(SolverConfig::default().model, FlowModel::Euler);
}

#[test]
fn multigrid_on_a_mesh_that_cannot_be_coarsened_is_a_typed_error() {
    let case: Case = ron::from_str(CASE).unwrap();
    let mesh = channel(10, 6, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    let backend = CpuBackend::new(Some(1)).unwrap();
    let err = ExplicitSolver::new(&backend, &mesh, case).err().expect("5 x 3 cells cannot be coarsened twice");
    assert!(err.to_string().contains("odd"), "{err}");
}

#[test]
fn invalid_numbers_are_rejected() {
    let mut case: Case = ron::from_str(CASE).unwrap();
    case.operating_point.p2 = f64::NAN;
    assert!(case.validate().unwrap_err().to_string().contains("p2"));
    let mut case: Case = ron::from_str(CASE).unwrap();
    case.solver.rk = RkScheme::Custom(vec![0.5, 0.7]);
    assert!(case.validate().unwrap_err().to_string().contains("RK coefficients"));
    let mut case: Case = ron::from_str(CASE).unwrap();
    case.solver.time_stepping = TimeStepping::Global { final_time: 1.0 };
    assert!(case.validate().unwrap_err().to_string().contains("local time stepping"));
}
