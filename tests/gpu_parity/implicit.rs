//! The implicit scheme's operations (families `jacobian` and `ilu`, the Krylov vector algebra)
//! against their CPU twins: the assembled matrices slot by slot, the matrix-vector product, each
//! preconditioner, one stage's FGMRES solves (equal iteration counts), and whole implicit solves.

use super::*;
use turbopt::backend::gpu::GpuVector;
use turbopt::backend::{ConvectiveJacobian, FactorPrecision, ImplicitBackend, JacobianOptions, Physics, PreconditionerKind, SaSourceOptions, System};
use turbopt::solver::implicit::solve_stage;
use turbopt::solver::krylov::{FgmresSettings, GramSchmidt};
use turbopt::solver::{FlowModel, ImplicitConfig, ImplicitSolver, Scheme, Silent, SolverConfig};

/// max |a - b| / max |a| over all entries; NaN when an entry of either side is NaN.
fn relative_vec(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    assert!(b.iter().all(|x| x.is_finite()), "GPU has non-finite entries");
    common::max_relative_difference(a, b)
}

/// The options of `physics`; SA-BCM at the onset of Tu = 1 % (Re_theta_c 494), SA-gamma at Tu 1 %.
fn options(convective: ConvectiveJacobian, physics: Physics) -> JacobianOptions {
    let bcm_onset = (physics == Physics::SaBcm).then_some(494.0);
    let intermittency_tu = (physics == Physics::SaGamma).then_some(0.01);
    JacobianOptions { convective, entropy_fix: 0.1, physics, sa: SaSourceOptions { bcm_onset, intermittency_tu, ..SaSourceOptions::default() } }
}

const PHYSICS: [Physics; 5] = [Physics::Euler, Physics::Laminar, Physics::SpalartAllmaras, Physics::SaBcm, Physics::SaGamma];

/// Both backends' matrices at the same state and time steps.
fn assembled(p: &Pair, mesh: &Mesh, opt: &JacobianOptions, seed: u64) -> (turbopt::backend::cpu::CpuJacobian, turbopt::backend::gpu::GpuJacobian) {
    let gas = common::unit_gas();
    let (wc, wg) = p.state(&gas, seed, mesh);
    let dt_c = random_scalars(&p.gc, seed + 1, 0.01, 0.1);
    let dt_g = p.gpu.scalars_from_host(&dt_c).unwrap();
    let mut jc = p.cpu.new_jacobian(&p.gc).unwrap();
    let mut jg = p.gpu.new_jacobian(&p.gg).unwrap();
    p.cpu.assemble_jacobian(&p.gc, &gas, &boundary_data(), opt, &wc, Some(&dt_c), &mut jc);
    p.gpu.assemble_jacobian(&p.gg, &gas, &boundary_data(), opt, &wg, Some(&dt_g), &mut jg);
    p.gpu.check().unwrap();
    (jc, jg)
}

#[test]
#[ignore = "needs a CUDA device"]
fn assembled_jacobians_match_cpu_slot_by_slot() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        for physics in PHYSICS {
            for convective in [ConvectiveJacobian::FrozenRoe, ConvectiveJacobian::Rusanov, ConvectiveJacobian::Exact] {
                let (jc, jg) = assembled(&p, &mesh, &options(convective, physics), 21);
                let (flow, turbulence) = p.gpu.jacobian_to_host(&jg).unwrap();
                let intermittency = p.gpu.intermittency_jacobian_to_host(&jg).unwrap();
                let d_flow = relative_vec(&jc.matrix.values, &flow);
                let d_sa = turbulence.map(|t| relative_vec(&jc.turbulence.values, &t));
                let d_gamma = intermittency.map(|t| relative_vec(&jc.intermittency.values, &t));
                let shown = |d: Option<f64>| d.map_or("not assembled".into(), |d| format!("{d:.2e}"));
                println!("{name}, {physics:?}, {convective:?}: mean flow {d_flow:.2e}, SA {}, intermittency {}", shown(d_sa), shown(d_gamma));
                assert!(d_flow <= PARITY, "{name} {physics:?} {convective:?}: mean-flow matrix differs by {d_flow:e}");
                assert_eq!(d_sa.is_some(), physics.is_turbulent());
                assert_eq!(d_gamma.is_some(), physics.transports_intermittency());
                for d in d_sa.into_iter().chain(d_gamma) {
                    assert!(d <= PARITY, "{name} {physics:?} {convective:?}: a scalar system's matrix differs by {d:e}");
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn jacobian_products_match_cpu() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (jc, jg) = assembled(&p, &mesh, &options(ConvectiveJacobian::FrozenRoe, Physics::SpalartAllmaras), 5);
        let xc = random_field(&p.gc, 6);
        let xg = p.gpu.field_from_host(&p.gg, &xc).unwrap();
        let mut yc = p.cpu.new_field(&p.gc);
        let mut yg = p.gpu.new_field(&p.gg);
        p.cpu.jacobian_product(&p.gc, &jc, &xc, &mut yc);
        p.gpu.jacobian_product(&p.gg, &jg, &xg, &mut yg);
        let d = relative_difference(&yc, &p.host(&yg));
        println!("{name}: A x differs by {d:.2e}");
        assert!(d <= PARITY, "{name}: {d:e}");
    }
}

/// A random vector of `system`'s unknowns on both backends.
fn random_vectors(p: &Pair, jg: &turbopt::backend::gpu::GpuJacobian, system: System, seed: u64) -> (Vec<f64>, GpuVector) {
    let n = p.gpu.vector_to_host(&p.gpu.new_krylov_vector(jg, system)).unwrap().len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let v: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
    let g = p.gpu.vector_from_host(&v).unwrap();
    (v, g)
}

#[test]
#[ignore = "needs a CUDA device"]
fn preconditioners_match_cpu() {
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (jc, jg) = assembled(&p, &mesh, &options(ConvectiveJacobian::FrozenRoe, Physics::SaGamma), 9);
        let kinds = [
            PreconditionerKind::Jacobi,
            PreconditionerKind::Ilu,
            PreconditionerKind::McIlu,
            PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Double },
            PreconditionerKind::SweptIlu { sweeps: 0, factors: FactorPrecision::Double },
            PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Single },
        ];
        for kind in kinds {
            let pc = p.cpu.factorize(&jc, kind).unwrap();
            let pg = p.gpu.factorize(&jg, kind).unwrap();
            // The CPU gives the SA system a natural ILU(0) except with the multicolour one.
            let systems: &[System] = if kind == PreconditionerKind::McIlu { &[System::MeanFlow] } else { &System::ALL };
            for &system in systems {
                let (rc, rg) = random_vectors(&p, &jg, system, 10);
                let mut zc = p.cpu.new_krylov_vector(&jc, system);
                let mut zg = p.gpu.new_krylov_vector(&jg, system);
                p.cpu.apply_preconditioner(&pc, system, &rc, &mut zc);
                p.gpu.apply_preconditioner(&pg, system, &rg, &mut zg);
                p.gpu.check().unwrap();
                let d = relative_vec(&zc, &p.gpu.vector_to_host(&zg).unwrap());
                println!("{name}, {kind:?}, {system:?}: M^-1 r differs by {d:.2e} ({} parallel levels)", pg.flow_levels());
                assert!(d <= PARITY, "{name} {kind:?} {system:?}: {d:e}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn stage_solves_take_the_cpu_iteration_counts() {
    for gram_schmidt in [GramSchmidt::Modified, GramSchmidt::ClassicalTwice] {
        stage_solves_take_the_cpu_iteration_counts_with(FgmresSettings { restart: 20, rel_tol: 1e-3, abs_tol: 1e-300, max_iterations: 200, gram_schmidt });
    }
}

fn stage_solves_take_the_cpu_iteration_counts_with(settings: FgmresSettings) {
    let method = settings.gram_schmidt;
    for (name, mesh) in meshes() {
        let p = Pair::new(&mesh);
        let (jc, jg) = assembled(&p, &mesh, &options(ConvectiveJacobian::FrozenRoe, Physics::SaGamma), 13);
        let rc = random_field(&p.gc, 14);
        let rg = p.gpu.field_from_host(&p.gg, &rc).unwrap();
        let kinds = [
            PreconditionerKind::Jacobi,
            PreconditionerKind::Ilu,
            PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Double },
            PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Single },
        ];
        for kind in kinds {
            let pc = p.cpu.factorize(&jc, kind).unwrap();
            let pg = p.gpu.factorize(&jg, kind).unwrap();
            let mut dc = p.cpu.new_field(&p.gc);
            let mut dg = p.gpu.new_field(&p.gg);
            let a = solve_stage(&p.cpu, &p.gc, &jc, &pc, 1.0, &rc, &mut dc, &settings);
            let b = solve_stage(&p.gpu, &p.gg, &jg, &pg, 1.0, &rg, &mut dg, &settings);
            let d = relative_difference(&dc, &p.host(&dg));
            let sa = (a.turbulence.map(|s| s.iterations), b.turbulence.map(|s| s.iterations));
            let gamma = (a.intermittency.map(|s| s.iterations), b.intermittency.map(|s| s.iterations));
            println!("{name}, {kind:?}, {method:?}: FGMRES iterations CPU {} GPU {}, SA {:?}, intermittency {:?}; solutions differ by {d:.2e}", a.flow.iterations, b.flow.iterations, sa, gamma);
            assert_eq!(a.flow.iterations, b.flow.iterations, "{name} {kind:?}: mean-flow FGMRES iterations");
            assert_eq!(sa.0, sa.1, "{name} {kind:?}: SA FGMRES iterations");
            assert!(gamma.0.is_some(), "{name} {kind:?}: no intermittency solve");
            assert_eq!(gamma.0, gamma.1, "{name} {kind:?}: intermittency FGMRES iterations");
            assert!(d <= 1e-9, "{name} {kind:?}: stage solutions differ by {d:e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA device"]
fn implicit_solves_match_cpu() {
    let cpu = CpuBackend::new(None).unwrap();
    let gpu = GpuBackend::new(0).unwrap();
    let walls = || Sides { jmin: BoundaryKind::Wall, jmax: BoundaryKind::Wall, ..Sides::inviscid_channel() };
    let channel = || wavy_channel(64, 32, 3.0, 1.0, 0.05, walls()).unwrap();
    let (swept, swept_f32) = (PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Double }, PreconditionerKind::SweptIlu { sweeps: 3, factors: FactorPrecision::Single });
    let (rans, modified, twice) = (FlowModel::SpalartAllmaras, GramSchmidt::Modified, GramSchmidt::ClassicalTwice);
    let transition = FlowModel::SaGamma;
    let cases = [
        ("Euler, 3 blocks, ILU", common::distorted_channel(3, 32, 16, 2.0, 0.03), FlowModel::Euler, PreconditionerKind::Ilu, modified),
        ("RANS-SA, walled channel, ILU", channel(), rans, PreconditionerKind::Ilu, modified),
        ("RANS-SA, walled channel, block-Jacobi", channel(), rans, PreconditionerKind::Jacobi, modified),
        ("RANS-SA, walled channel, block-Jacobi, classical Gram-Schmidt twice", channel(), rans, PreconditionerKind::Jacobi, twice),
        ("RANS-SA, walled channel, swept ILU", channel(), rans, swept, modified),
        ("RANS-SA, walled channel, swept ILU, f32 factors", channel(), rans, swept_f32, modified),
        ("RANS-SA, walled channel, swept ILU, f32 factors, classical Gram-Schmidt twice", channel(), rans, swept_f32, twice),
        ("SA-gamma, walled channel, ILU", channel(), transition, PreconditionerKind::Ilu, modified),
        ("SA-gamma, walled channel, swept ILU, f32 factors", channel(), transition, swept_f32, modified),
    ];
    for (name, mesh, model, preconditioner, gram_schmidt) in cases {
        let gmres = FgmresSettings { gram_schmidt, ..ImplicitConfig::default().gmres };
        let implicit = ImplicitConfig { preconditioner, gmres, ..ImplicitConfig::default() };
        let config = SolverConfig { model, scheme: Scheme::Implicit(implicit), max_iterations: 60, ..SolverConfig::default() };
        let (mut case, start) = common::incidence_channel_case(&mesh, config);
        if model == FlowModel::SaGamma {
            case.operating_point.turbulence_intensity = Some(0.01);
        }
        let a = ImplicitSolver::new(&cpu, &mesh, case.clone()).unwrap().solve(&start, &mut Silent).unwrap();
        let before = gpu.counters();
        let b = ImplicitSolver::new(&gpu, &mesh, case).unwrap().solve(&start, &mut Silent).unwrap();
        let after = gpu.counters();
        let mut worst: f64 = 0.0;
        for (x, y) in a.outcome.solution.blocks.iter().zip(&b.outcome.solution.blocks) {
            for (s, t) in [(&x.rho, &y.rho), (&x.rho_u, &y.rho_u), (&x.rho_v, &y.rho_v), (&x.rho_e, &y.rho_e), (&x.nu_tilde, &y.nu_tilde), (&x.intermittency, &y.intermittency)] {
                worst = common::max_or_nan(worst, relative_vec(s, t));
            }
        }
        println!(
            "{name}: {} flow iterations, linear iterations CPU {} GPU {}, factorizations {} / {}, drop {:.2} / {:.2} orders, \
             states differ by {worst:.2e}; {} field transfers, {:.0} kernels per iteration",
            a.report.iterations,
            a.report.total_linear_iterations(),
            b.report.total_linear_iterations(),
            a.report.factorizations,
            b.report.factorizations,
            a.outcome.history.orders_dropped(),
            b.outcome.history.orders_dropped(),
            after.field_transfers - before.field_transfers,
            (after.launches - before.launches) as f64 / b.report.iterations as f64
        );
        assert_eq!(a.report.linear_iterations, b.report.linear_iterations, "{name}: FGMRES iterations per stage");
        assert_eq!(a.report.turbulence_linear_iterations, b.report.turbulence_linear_iterations, "{name}: SA FGMRES iterations");
        assert_eq!(a.report.intermittency_linear_iterations, b.report.intermittency_linear_iterations, "{name}: intermittency FGMRES iterations");
        assert!(worst <= 1e-8, "{name}: states differ by {worst:e}");
        assert_eq!(after.field_transfers - before.field_transfers, 2, "{name}: the upload and the download only");
    }
}
