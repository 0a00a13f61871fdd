//! Whole explicit solves on both backends: equal states after many iterations, and nothing but
//! residual norms crossing PCIe between the upload and the download.

use super::*;
use turbopt::backend::gpu::NORM_READBACK_INTERVAL;
use turbopt::solver::{Cycle, ExplicitSolver, FlowModel, Multigrid, ResidualSmoothing, Silent, SolveOutcome, SolverConfig};

/// The largest difference of any conserved variable relative to its largest |value| on the CPU;
/// NaN when an entry of either side is NaN.
fn largest_difference(a: &SolveOutcome, b: &SolveOutcome) -> f64 {
    assert_eq!(a.solution.blocks.len(), b.solution.blocks.len());
    let mut worst: f64 = 0.0;
    for (x, y) in a.solution.blocks.iter().zip(&b.solution.blocks) {
        for (p, q) in [(&x.rho, &y.rho), (&x.rho_u, &y.rho_u), (&x.rho_v, &y.rho_v), (&x.rho_e, &y.rho_e), (&x.nu_tilde, &y.nu_tilde), (&x.intermittency, &y.intermittency)] {
            worst = common::max_or_nan(worst, common::max_relative_difference(p, q));
        }
    }
    worst
}

/// The cases: Euler on the multi-block periodic channel (single grid, then with variable
/// residual smoothing), and RANS-SA and SA-gamma with a 3-level W-cycle on the walled channel.
fn cases() -> Vec<(&'static str, Mesh, SolverConfig)> {
    let walls = Sides { jmin: BoundaryKind::Wall, jmax: BoundaryKind::Wall, ..Sides::inviscid_channel() };
    let wall_mesh = wavy_channel(64, 32, 3.0, 1.0, 0.05, walls).unwrap();
    let w_cycle = Some(Multigrid { levels: 3, cycle: Cycle::W, correction_smoothing: 1.0, delay: 20 });
    vec![
        ("Euler, 3 blocks, single grid", common::distorted_channel(3, 32, 16, 2.0, 0.03), SolverConfig { cfl: 2.0, max_iterations: 200, ..SolverConfig::default() }),
        (
            "Euler, 3 blocks, variable residual smoothing at CFL 4",
            common::distorted_channel(3, 32, 16, 2.0, 0.03),
            SolverConfig { cfl: 4.0, smoothing: Some(ResidualSmoothing::variable(2.0)), max_iterations: 200, ..SolverConfig::default() },
        ),
        (
            "RANS-SA, walled channel, 3-level W-cycle with correction smoothing",
            wall_mesh.clone(),
            SolverConfig { model: FlowModel::SpalartAllmaras, cfl: 1.0, multigrid: w_cycle, max_iterations: 200, ..SolverConfig::default() },
        ),
        (
            "SA-gamma, walled channel, 3-level W-cycle with correction smoothing",
            wall_mesh,
            SolverConfig { model: FlowModel::SaGamma, cfl: 1.0, multigrid: w_cycle, max_iterations: 200, ..SolverConfig::default() },
        ),
    ]
}

#[test]
#[ignore = "needs a CUDA device"]
fn explicit_solves_match_cpu_with_no_field_transfers_between_norm_readbacks() {
    let cpu = CpuBackend::new(None).unwrap();
    let gpu = GpuBackend::new(0).unwrap();
    println!("device: {}", gpu.device_description());
    for (name, mesh, config) in cases() {
        let iterations = config.max_iterations;
        let (mut case, start) = common::incidence_channel_case(&mesh, config);
        if case.solver.model == FlowModel::SaGamma {
            case.operating_point.turbulence_intensity = Some(0.01);
        }
        let a = ExplicitSolver::new(&cpu, &mesh, case.clone()).unwrap().solve(&start, &mut Silent).unwrap();
        let mut solver = ExplicitSolver::new(&gpu, &mesh, case).unwrap();
        let before = gpu.counters();
        let b = solver.solve(&start, &mut Silent).unwrap();
        let after = gpu.counters();
        let worst = largest_difference(&a, &b);
        let history = common::largest(a.history.records.iter().zip(&b.history.records).map(|(x, y)| ((x.residuals[0] - y.residuals[0]) / x.residuals[0]).abs()));
        println!(
            "{name}: {iterations} iterations, max relative state difference {worst:.3e}, density-residual history {history:.3e}; \
             drop CPU {:.3} GPU {:.3} orders; {} field transfers, {} norm read-backs, {:.0} launches per iteration",
            a.history.orders_dropped(),
            b.history.orders_dropped(),
            after.field_transfers - before.field_transfers,
            after.norm_readbacks - before.norm_readbacks,
            (after.launches - before.launches) as f64 / iterations as f64
        );
        assert_eq!(a.iterations, b.iterations);
        assert_eq!(a.history.records.len(), b.history.records.len());
        assert!(worst <= 1e-10, "{name}: whole-solve difference {worst:e}");
        assert!(history <= 1e-10, "{name}: residual histories differ by {history:e}");
        // One upload of the start, one download of the result; the norms in between.
        assert_eq!(after.field_transfers - before.field_transfers, 2, "{name}: field transfers during the solve");
        assert_eq!(after.norm_readbacks - before.norm_readbacks, iterations.div_ceil(NORM_READBACK_INTERVAL), "{name}: norm read-backs");
    }
}
