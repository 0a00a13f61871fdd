//! Free-stream preservation on the LS89 cascade mesh (coarse preset): a uniform flow must stay
//! uniform to round-off through the multi-block O-H mesh with its 1-to-1 and periodic
//! interfaces. The blade wall is given the outlet condition for this check: with a uniform
//! interior state at the outlet pressure, the characteristic outlet ghost equals the interior
//! state for inflow and outflow alike, so any change of the state comes from the metrics and
//! the interface tables alone. Written once over [`Backend`], run on the CPU and (feature
//! `cuda`, ignored without a device) on the GPU with the same tolerance.

mod common;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::geometry::load_blade_file;
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::{BoundaryKind, Density};
use turbopt::solver::{uniform_state, Case, ExplicitSolver, Silent, SolverConfig};

fn uniform_flow_stays_uniform_on_the_ls89_mesh<B: Backend>(backend: &B) {
    let outline = load_blade_file("blades/ls89.ron").unwrap().outline().unwrap();
    let spec = PassageSpec {
        pitch: 57.5e-3,
        inlet_x: -55e-3,
        outlet_x: (36.985 + 64.0) * 1e-3,
        first_cell_height: 2e-6,
        density: Density::Coarse,
        inlet_angle_deg: 0.0,
        outlet_angle_deg: -74.0,
    };
    let mut mesh = generate_cascade_mesh(&outline, &spec).unwrap();
    for block in &mut mesh.blocks {
        for patch in &mut block.patches {
            if patch.kind == BoundaryKind::Wall {
                patch.kind = BoundaryKind::Outlet;
            }
        }
    }
    let gas = turbopt::flow::gas::Gas::default();
    let q = [1.2, 100.0, -40.0, 1.0e5];
    let config = SolverConfig { max_iterations: 100, convergence_orders: 100.0, ..SolverConfig::default() };
    let case = Case { gas, operating_point: common::operating_point_of(&gas, q), solver: config };
    let mut solver = ExplicitSolver::new(backend, &mesh, case).unwrap();
    let initial = uniform_state(&mesh, &gas, q);
    let out = solver.solve(&initial, &mut Silent).unwrap();
    let momentum = q[0] * (q[1] * q[1] + q[2] * q[2]).sqrt();
    let mut worst: f64 = 0.0;
    for (got, want) in out.solution.blocks.iter().zip(&initial.blocks) {
        for c in 0..got.n_cells() {
            worst = common::largest([
                worst,
                (got.rho[c] - want.rho[c]).abs() / want.rho[c],
                (got.rho_u[c] - want.rho_u[c]).abs() / momentum,
                (got.rho_v[c] - want.rho_v[c]).abs() / momentum,
                (got.rho_e[c] - want.rho_e[c]).abs() / want.rho_e[c],
            ]);
        }
    }
    println!(
        "{}: LS89 coarse mesh ({} cells, {} blocks): max relative deviation {worst:e} after {} iterations",
        backend.name(),
        mesh.n_cells(),
        mesh.blocks.len(),
        out.iterations
    );
    assert_eq!(out.iterations, 100);
    assert!(worst < 1e-12, "deviation {worst:e}");
}

#[test]
fn free_stream_preserved_on_ls89_cpu() {
    uniform_flow_stays_uniform_on_the_ls89_mesh(&CpuBackend::new(None).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn free_stream_preserved_on_ls89_gpu() {
    uniform_flow_stays_uniform_on_the_ls89_mesh(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}
