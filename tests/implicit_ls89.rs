//! The implicit solver on the VKI LS89 cascade (coarse generated mesh, MUR47 operating point,
//! inviscid): convergence, factorizations, time per iteration with its breakdown, and the
//! cascade performance against the explicit solver.

use std::time::Instant;

use turbopt::backend::cpu::CpuBackend;
use turbopt::geometry::load_blade_file;
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::{Density, Mesh};
use turbopt::post::planes::{cascade_performance, CascadePerformance};
use turbopt::solver::{operating_point_state, uniform_state, Case, Control, ExplicitSolver, FlowModel, ImplicitConfig, ImplicitSolver, IterationRecord, Scheme, SolverConfig};
use turbopt::flow::solution::Solution;

const AXIAL_CHORD: f64 = 36.985e-3;
/// Outlet plane of the mesh, downstream of the trailing edge [m] (blades/ls89.ron).
const OUTLET_LENGTH: f64 = 64e-3;

fn ls89() -> (Mesh, Case) {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let outline = blade.outline().unwrap();
    let spec = PassageSpec {
        pitch: blade.cascade.pitch,
        inlet_x: -blade.cascade.inlet_length,
        outlet_x: AXIAL_CHORD + blade.cascade.outlet_length,
        first_cell_height: 2e-5,
        density: Density::Coarse,
        inlet_angle_deg: 0.0,
        outlet_angle_deg: -74.0,
    };
    let mesh = generate_cascade_mesh(&outline, &spec).unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    let solver = SolverConfig { model: FlowModel::Euler, convergence_orders: 6.0, ..SolverConfig::default() };
    (mesh, Case { gas: blade.gas, operating_point: op, solver })
}

fn performance(mesh: &Mesh, case: &Case, sol: &Solution) -> CascadePerformance {
    cascade_performance(mesh, sol, &case.gas, &case.operating_point, -0.5 * AXIAL_CHORD, AXIAL_CHORD + 0.5 * OUTLET_LENGTH, 1.433 * AXIAL_CHORD)
}

fn progress(every: usize) -> impl FnMut(&IterationRecord) -> Control {
    move |r: &IterationRecord| {
        if r.iteration % every == 0 {
            println!("    iteration {}: density residual {:.3e} ({:.1} s)", r.iteration, r.residuals[0], r.wall_s);
        }
        Control::Continue
    }
}

#[test]
#[ignore = "long validation: implicit (and explicit) LS89 MUR47 inviscid on the coarse mesh (about 10-30 minutes on 2 cores)"]
fn ls89_mur47_inviscid_implicit_vs_explicit() {
    let (mesh, case) = ls89();
    println!("LS89 coarse mesh: {} cells, {} blocks", mesh.n_cells(), mesh.blocks.len());
    let initial = uniform_state(&mesh, &case.gas, operating_point_state(&case.gas, &case.operating_point));
    let backend = CpuBackend::new(None).unwrap();

    let implicit = Case { solver: SolverConfig { scheme: Scheme::Implicit(ImplicitConfig::default()), max_iterations: 2000, ..case.solver.clone() }, ..case.clone() };
    let mut solver = ImplicitSolver::new(&backend, &mesh, implicit).unwrap();
    let start = Instant::now();
    let out = solver.solve(&initial, &mut progress(50)).unwrap();
    let wall = start.elapsed().as_secs_f64();
    let r = &out.report;
    println!(
        "implicit: {} iterations, {:.2} orders, {:.1} s ({:.1} ms/iteration: residual {:.1} s, assembly {:.1} s, factorization {:.1} s, Krylov {:.1} s), {} factorizations, {:.2} linear iterations/stage, {} rejected, final CFL {:.0}",
        out.outcome.iterations,
        out.outcome.history.orders_dropped(),
        wall,
        1e3 * r.time_per_iteration(),
        r.time.residual,
        r.time.assembly,
        r.time.factorization,
        r.time.krylov,
        r.factorizations,
        r.mean_linear_iterations(),
        r.rejected_steps,
        r.cfl.last().unwrap()
    );
    let perf_imp = performance(&mesh, &case, &out.outcome.solution);
    println!("implicit: entropy rise {:.5e}, exit angle {:.3} deg, exit Mis {:.4}", perf_imp.entropy_rise, perf_imp.exit_angle_deg, perf_imp.exit_isentropic_mach);
    assert!(out.outcome.converged, "implicit LS89 not converged");

    let explicit = Case { solver: SolverConfig { max_iterations: 100_000, ..case.solver.clone() }, ..case.clone() };
    let mut solver = ExplicitSolver::new(&backend, &mesh, explicit).unwrap();
    let start = Instant::now();
    let exp = solver.solve(&initial, &mut progress(1000)).unwrap();
    let wall_exp = start.elapsed().as_secs_f64();
    let perf_exp = performance(&mesh, &case, &exp.solution);
    println!("explicit: {} iterations, {:.2} orders, {:.1} s; entropy rise {:.5e}, exit angle {:.3} deg, exit Mis {:.4}", exp.iterations, exp.history.orders_dropped(), wall_exp, perf_exp.entropy_rise, perf_exp.exit_angle_deg, perf_exp.exit_isentropic_mach);
    println!("R_C = {:.1}, wall-time gain {:.2}", exp.iterations as f64 / out.outcome.iterations as f64, wall_exp / wall);
    assert!(exp.converged);
    assert!((perf_imp.exit_angle_deg - perf_exp.exit_angle_deg).abs() < 0.05);
    assert!((perf_imp.exit_isentropic_mach - perf_exp.exit_isentropic_mach).abs() < 0.005);
}
