//! Implicit-scheme configuration: the on-demand refresh rule (thesis eq. 5.11), the CFL ramp
//! and the validation of every knob, and the RON round trip of the `Implicit` scheme section.

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::{ConvectiveJacobian, FactorPrecision, PreconditionerKind};
use turbopt::flow::case::OperatingPoint;
use turbopt::flow::gas::Gas;
use turbopt::mesh::simple::gaussian_bump_channel;
use turbopt::solver::krylov::FgmresSettings;
use turbopt::solver::{Case, CflRamp, FlowModel, FromCoarserMesh, IluRefresh, ImplicitConfig, ImplicitSolver, Scheme, SolverConfig};

#[test]
fn on_demand_refresh_follows_thesis_eq_5_11() {
    let policy = IluRefresh::OnDemand { a: 0.5, b: 0.15, period: 20 };
    // MAX_ITR = 0.5 + 0.15 * 50 = 8.
    assert!(!policy.needs_factorization(8, 50.0, 3));
    assert!(policy.needs_factorization(9, 50.0, 3));
    assert!(policy.needs_factorization(2, 50.0, 20));
    assert!(IluRefresh::EveryIteration.needs_factorization(0, 50.0, 0));
    let never_periodic = IluRefresh::OnDemand { a: 0.5, b: 0.15, period: 0 };
    assert!(!never_periodic.needs_factorization(1, 50.0, 1000));
}

#[test]
fn cfl_grows_holds_and_backs_off() {
    let ramp = CflRamp { start: 10.0, warm_start: None, target: 100.0, growth: 2.0, backoff: 0.5, rise_factor: 2.0, min: 1.0 };
    assert_eq!(ramp.next(10.0, None, 1.0), 10.0);
    assert_eq!(ramp.next(10.0, Some(1.0), 0.5), 20.0);
    assert_eq!(ramp.next(80.0, Some(1.0), 0.5), 100.0);
    assert_eq!(ramp.next(10.0, Some(1.0), 1.5), 10.0);
    assert_eq!(ramp.next(10.0, Some(1.0), 3.0), 5.0);
    assert_eq!(ramp.next(1.5, Some(1.0), 3.0), 1.0);
}

#[test]
fn config_validation_names_the_bad_knob() {
    let mut c = ImplicitConfig { stages: 7, ..ImplicitConfig::default() };
    assert!(c.validate().unwrap_err().to_string().contains("stages"));
    c.stages = 3;
    c.stage_coefficients = Some(vec![1.0, 1.0]);
    assert!(c.validate().unwrap_err().to_string().contains("coefficients"));
    c.stage_coefficients = None;
    c.cfl.backoff = 1.5;
    assert!(c.validate().unwrap_err().to_string().contains("backoff"));
    c.cfl.backoff = 0.5;
    c.scalar_gmres = Some(FgmresSettings { rel_tol: 1.5, ..FgmresSettings::default() });
    assert!(c.validate().unwrap_err().to_string().contains("scalar_gmres"));
    c.scalar_gmres = Some(FgmresSettings { rel_tol: 0.3, ..FgmresSettings::default() });
    c.scalar_gmres_orders = Some(f64::NAN);
    assert!(c.validate().unwrap_err().to_string().contains("scalar_gmres_orders"));
    c.scalar_gmres_orders = Some(3.0);
    assert!(c.validate().is_ok());
    let without = ImplicitConfig { scalar_gmres: None, ..c.clone() };
    let err = without.validate().unwrap_err().to_string();
    assert!(err.contains("scalar_gmres_orders") && err.contains("not set"), "{err}");
    let ron_text = ron::to_string(&Scheme::Implicit(c.clone())).unwrap();
    let back: Scheme = ron::from_str(&ron_text).unwrap();
    assert_eq!(back, Scheme::Implicit(c));
}

/// A solve from a coarser mesh's flow runs the `from_coarser_mesh` stages and Anderson depth;
/// given stage coefficients fix the stage count, `None` keeps the configured scheme, and a bad
/// value is named.
#[test]
fn a_start_from_a_coarser_mesh_takes_its_own_stages_and_anderson_depth() {
    let c = ImplicitConfig::default();
    let finer = c.for_coarser_mesh_start();
    assert_eq!((finer.stages, finer.anderson.as_ref().map(|a| a.depth)), (3, Some(20)));
    assert_eq!(ImplicitConfig { from_coarser_mesh: None, ..c.clone() }.for_coarser_mesh_start(), ImplicitConfig { from_coarser_mesh: None, ..c.clone() });
    let fixed = ImplicitConfig { stage_coefficients: Some(vec![1.0, 0.5]), anderson: None, ..c.clone() }.for_coarser_mesh_start();
    assert_eq!((fixed.stages, fixed.anderson.is_none()), (2, true));
    let bad = ImplicitConfig { from_coarser_mesh: Some(FromCoarserMesh { stages: 0, anderson_depth: 20 }), ..c };
    assert!(bad.validate().unwrap_err().to_string().contains("from_coarser_mesh"));
    let config: SolverConfig = ron::from_str("(scheme: implicit((from_coarser_mesh: Some((stages: 4, anderson_depth: 5)))))").unwrap();
    let Scheme::Implicit(implicit) = config.scheme else { panic!("not implicit") };
    assert_eq!(implicit.from_coarser_mesh, Some(FromCoarserMesh { stages: 4, anderson_depth: 5 }));
}

#[test]
fn implicit_section_reads_from_ron_with_defaults_for_the_rest() {
    let text = "(scheme: implicit((stages: 3, preconditioner: mc_ilu, jacobian: rusanov, cfl: (start: 2.0, target: 500.0, growth: 1.5, backoff: 0.5, rise_factor: 2.0, min: 0.5), refresh: on_demand(a: 0.5, b: 0.15, period: 20))))";
    let config: SolverConfig = ron::from_str(text).unwrap();
    let Scheme::Implicit(implicit) = config.scheme else { panic!("not implicit") };
    assert_eq!(implicit.stages, 3);
    assert_eq!(implicit.preconditioner, PreconditionerKind::McIlu);
    assert_eq!(implicit.jacobian, ConvectiveJacobian::Rusanov);
    assert_eq!(implicit.cfl.target, 500.0);
    assert_eq!(implicit.refresh, IluRefresh::OnDemand { a: 0.5, b: 0.15, period: 20 });
    assert_eq!(implicit.gmres.rel_tol, 0.1);
    assert!(implicit.validate().is_ok());
}

#[test]
fn swept_ilu_reads_from_ron_with_its_sweep_count() {
    let config: SolverConfig = ron::from_str("(scheme: implicit((preconditioner: swept_ilu(sweeps: 2))))").unwrap();
    let Scheme::Implicit(implicit) = config.scheme else { panic!("not implicit") };
    assert_eq!(implicit.preconditioner, PreconditionerKind::SweptIlu { sweeps: 2, factors: FactorPrecision::Single });
    let config: SolverConfig = ron::from_str("(scheme: implicit((preconditioner: swept_ilu(sweeps: 8, factors: double))))").unwrap();
    let Scheme::Implicit(implicit) = config.scheme else { panic!("not implicit") };
    assert_eq!(implicit.preconditioner, PreconditionerKind::SweptIlu { sweeps: 8, factors: FactorPrecision::Double });
}

#[test]
fn implicit_solver_refuses_what_it_cannot_do() {
    let mesh = gaussian_bump_channel(6, 2).unwrap();
    let backend = CpuBackend::new(Some(1)).unwrap();
    let op = OperatingPoint { name: "t".into(), p01: 1.2e5, t01: 300.0, alpha1_deg: 0.0, p2: 1.0e5, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    let case = |solver: SolverConfig| Case { gas: Gas::default(), operating_point: op.clone(), solver };
    let explicit = ImplicitSolver::new(&backend, &mesh, case(SolverConfig::default())).err().unwrap();
    assert!(explicit.to_string().contains("scheme"), "{explicit}");
    // Spalart-Allmaras runs with its segregated system.
    let sa = SolverConfig { model: FlowModel::SpalartAllmaras, scheme: Scheme::Implicit(ImplicitConfig::default()), ..SolverConfig::default() };
    assert!(ImplicitSolver::new(&backend, &mesh, case(sa)).is_ok());
    let bad = SolverConfig { scheme: Scheme::Implicit(ImplicitConfig { stages: 0, ..ImplicitConfig::default() }), ..SolverConfig::default() };
    let bad = ImplicitSolver::new(&backend, &mesh, case(bad)).err().unwrap();
    assert!(bad.to_string().contains("stages"), "{bad}");
}

/// SA-BCM needs the free-stream turbulence intensity of its point (a fraction in (0, 1)) and
/// SA-noft2 underneath; with it the onset reaches the source options.
#[test]
fn sa_bcm_needs_the_turbulence_intensity() {
    let op = OperatingPoint { name: "t".into(), p01: 1.2e5, t01: 300.0, alpha1_deg: 0.0, p2: 1.0e5, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    let bcm = SolverConfig { model: FlowModel::SaBcm, ..SolverConfig::default() };
    let case = |turbulence_intensity: Option<f64>, solver: &SolverConfig| Case { gas: Gas::default(), operating_point: OperatingPoint { turbulence_intensity, ..op.clone() }, solver: solver.clone() };
    let missing = case(None, &bcm).validate().unwrap_err().to_string();
    assert!(missing.contains("turbulence_intensity") && missing.contains("`t`"), "{missing}");
    let percent = case(Some(3.0), &bcm).validate().unwrap_err().to_string();
    assert!(percent.contains("fraction"), "{percent}");
    let mut with_ft2 = bcm.clone();
    with_ft2.sa.with_ft2 = true;
    assert!(case(Some(0.01), &with_ft2).validate().unwrap_err().to_string().contains("noft2"));
    let ok = case(Some(0.01), &bcm);
    ok.validate().unwrap();
    let onset = ok.sa_options().bcm_onset.expect("the onset of Tu = 1 %");
    assert!((onset - turbopt::flow::sa::bcm_onset_reynolds(0.01)).abs() < 1e-12);
    let sa = SolverConfig { model: FlowModel::SpalartAllmaras, ..SolverConfig::default() };
    assert_eq!(case(Some(0.01), &sa).sa_options().bcm_onset, None, "fully turbulent SA ignores the intensity");
}

/// The segregated SA system takes its own FGMRES settings where given: capped at one iteration
/// a solve, its solves take at most one while the mean flow's take more.
#[test]
fn the_scalar_systems_take_their_own_fgmres_settings() {
    use turbopt::cascade::{solve_blade, BackendChoice, BladeChoice, SolverSettings};
    use turbopt::geometry::load_blade_file;
    use turbopt::mesh::Density;
    use turbopt::solver::Silent;
    let blade = load_blade_file("blades/t106c.ron").unwrap();
    let op = blade.operating_point("M065_RE200K").unwrap().clone();
    let mut settings = SolverSettings { backend: BackendChoice::Cpu { threads: Some(2) }, max_iterations: 8, recovery: Vec::new(), ..SolverSettings::default() };
    let scalar = FgmresSettings { max_iterations: 1, ..FgmresSettings::default() };
    settings.config.scheme = Scheme::Implicit(ImplicitConfig { scalar_gmres: Some(scalar), ..ImplicitConfig::default() });
    let solved = solve_blade(&blade, BladeChoice::Main, &op, Density::Coarse, &settings, &mut Silent).unwrap();
    let report = solved.solve.implicit.expect("an implicit report");
    let sa: Vec<usize> = report.turbulence_linear_iterations.iter().flatten().copied().collect();
    assert!(sa.contains(&1) && sa.iter().all(|&n| n <= 1), "SA: {sa:?}");
    assert!(report.linear_iterations.iter().flatten().any(|&n| n > 1), "mean flow: {:?}", report.linear_iterations);
}

/// With `scalar_gmres_orders` the turbulence systems take their own settings only until the
/// density residual has dropped that many orders below the solve's first one, the mean flow's
/// after (T106C at Re 200k, coarse mesh, CPU, 30 iterations; SA capped at one FGMRES iteration
/// for the first 0.5 orders).
#[test]
fn the_scalar_settings_hold_for_the_first_orders_only() {
    use turbopt::cascade::{solve_blade, BackendChoice, BladeChoice, SolverSettings};
    use turbopt::geometry::load_blade_file;
    use turbopt::mesh::Density;
    use turbopt::solver::Silent;
    let blade = load_blade_file("blades/t106c.ron").unwrap();
    let op = blade.operating_point("M065_RE200K").unwrap().clone();
    let mut settings = SolverSettings { backend: BackendChoice::Cpu { threads: Some(2) }, max_iterations: 30, recovery: Vec::new(), figures: None, ..SolverSettings::default() };
    let scalar = FgmresSettings { max_iterations: 1, ..FgmresSettings::default() };
    settings.config.scheme = Scheme::Implicit(ImplicitConfig { scalar_gmres: Some(scalar), scalar_gmres_orders: Some(0.5), ..ImplicitConfig::default() });
    let solved = solve_blade(&blade, BladeChoice::Main, &op, Density::Coarse, &settings, &mut Silent).unwrap();
    let history = &solved.solve.outcome.history.records;
    let report = solved.solve.implicit.expect("an implicit report");
    let first = history[0].residuals[0];
    let (mut before, mut after): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    for (k, sa) in report.turbulence_linear_iterations.iter().enumerate() {
        // Iteration k's settings follow the residual recorded by the iteration before it.
        let orders = if k == 0 { 0.0 } else { (first / history[k - 1].residuals[0]).log10() };
        if orders < 0.5 { before.extend(sa) } else { after.extend(sa) }
    }
    assert!(!before.is_empty() && before.iter().all(|&n| n <= 1), "SA before 0.5 orders: {before:?}");
    assert!(after.iter().any(|&n| n > 1), "SA after 0.5 orders: {after:?} (history {:?})", history.iter().map(|r| r.residuals[0]).collect::<Vec<_>>());
}

/// SA-gamma with `intermittency_every_stage: false` solves the intermittency system once a flow
/// iteration, in the last stage, while the mean flow and SA take every stage (5 iterations of
/// the T106C at Re 200k, coarse mesh, CPU).
#[test]
fn the_intermittency_system_can_be_solved_in_the_last_stage_only() {
    use turbopt::cascade::{solve_blade, BackendChoice, BladeChoice, SolverSettings};
    use turbopt::geometry::load_blade_file;
    use turbopt::mesh::Density;
    use turbopt::solver::Silent;
    let blade = load_blade_file("blades/t106c.ron").unwrap();
    let mut op = blade.operating_point("M065_RE200K").unwrap().clone();
    op.turbulence_intensity = Some(0.009);
    for every_stage in [true, false] {
        let mut settings = SolverSettings { backend: BackendChoice::Cpu { threads: Some(2) }, max_iterations: 5, recovery: Vec::new(), ..SolverSettings::default() };
        settings.config.model = FlowModel::SaGamma;
        settings.config.scheme = Scheme::Implicit(ImplicitConfig { intermittency_every_stage: every_stage, ..ImplicitConfig::default() });
        let solved = solve_blade(&blade, BladeChoice::Main, &op, Density::Coarse, &settings, &mut Silent).unwrap();
        let report = solved.solve.implicit.expect("an implicit report");
        assert!(report.linear_iterations.len() >= 5 && report.linear_iterations.iter().all(|s| s.len() == 2), "{:?}", report.linear_iterations);
        assert!(report.turbulence_linear_iterations.iter().all(|s| s.len() == 2), "{:?}", report.turbulence_linear_iterations);
        let gamma_solves = if every_stage { 2 } else { 1 };
        let gamma = &report.intermittency_linear_iterations;
        assert!(gamma.len() == report.linear_iterations.len() && gamma.iter().all(|s| s.len() == gamma_solves), "every stage {every_stage}: {gamma:?}");
    }
}
