//! Observed order of accuracy on a smooth manufactured solution of the Euler equations.
//!
//! The manufactured flow is a uniform Mach-0.5 stream plus a smooth perturbation proportional
//! to sin^2(pi x): it vanishes with its slope at the inlet (x = 0) and outlet (x = 1), so the
//! characteristic boundary data (P0, T0, flow angle, p2) are exact there; j-faces are periodic.
//! The source term of each cell is the exact flux of the manufactured solution integrated over
//! the cell's faces (3-point Gauss per face); the discrete steady state is compared with exact
//! cell averages (3 x 3 Gauss) on a distorted mesh. Written once over [`Backend`], run on the
//! CPU and (feature `cuda`, ignored without a device) on the GPU with the same bound.

mod common;

use std::f64::consts::PI;

use turbopt::backend::cpu::CpuBackend;
use turbopt::backend::Backend;
use turbopt::flow::roe::physical_flux;
use turbopt::flow::solution::{BlockSolution, Solution};
use turbopt::mesh::Mesh;
use turbopt::solver::{uniform_state, Case, ExplicitSolver, ResidualSmoothing, Silent, SolverConfig};

const FREE_STREAM: [f64; 4] = [1.0, 0.5, 0.0, 1.0 / 1.4];

fn manufactured(x: f64, y: f64) -> [f64; 4] {
    let phi = (PI * x).sin().powi(2);
    let w = 2.0 * PI * y;
    [
        FREE_STREAM[0] + 0.05 * phi * w.cos(),
        FREE_STREAM[1] + 0.05 * phi * w.sin(),
        FREE_STREAM[2] + 0.05 * phi * (w + 0.5).cos(),
        FREE_STREAM[3] + 0.03 * phi * (w + 1.0).sin(),
    ]
}

/// Exact flux of the manufactured solution out of every cell (the source of the discrete
/// problem, volume-integrated).
fn manufactured_source(mesh: &Mesh, gamma: f64) -> Solution {
    let blocks = mesh
        .blocks
        .iter()
        .map(|b| {
            let n = b.n_cells();
            let mut s = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]];
            for j in 0..b.nj {
                for i in 0..b.ni {
                    let c = common::cell_corners(b, i, j);
                    for k in 0..4 {
                        let (a, e) = (c[k], c[(k + 1) % 4]);
                        let (dx, dy) = (e[0] - a[0], e[1] - a[1]);
                        let len = (dx * dx + dy * dy).sqrt();
                        let normal = [dy / len, -dx / len];
                        for (t, wt) in common::GAUSS3 {
                            let q = manufactured(a[0] + t * dx, a[1] + t * dy);
                            let f = physical_flux(gamma, &q, normal);
                            for v in 0..4 {
                                s[v][b.cell(i, j)] += wt * len * f[v];
                            }
                        }
                    }
                }
            }
            let [rho, rho_u, rho_v, rho_e] = s;
            BlockSolution { ni: b.ni, nj: b.nj, rho, rho_u, rho_v, rho_e, nu_tilde: vec![0.0; n], intermittency: Vec::new() }
        })
        .collect();
    Solution { blocks }
}

/// Volume-weighted L1 norm of the density error of the converged solution on an n x n mesh,
/// and the iterations it took.
fn density_error<B: Backend>(backend: &B, n: usize) -> (f64, usize) {
    let gas = common::unit_gas();
    let mesh = common::distorted_channel(1, n, n, 1.0, 0.03);
    let config = SolverConfig {
        cfl: 4.0,
        smoothing: Some(ResidualSmoothing::constant([0.8, 0.8])),
        convergence_orders: 8.0,
        max_iterations: 50_000,
        ..SolverConfig::default()
    };
    let case = Case { gas, operating_point: common::operating_point_of(&gas, FREE_STREAM), solver: config };
    let mut solver = ExplicitSolver::new(backend, &mesh, case).unwrap();
    solver.set_source(&manufactured_source(&mesh, gas.gamma)).unwrap();
    let out = solver.solve(&uniform_state(&mesh, &gas, FREE_STREAM), &mut Silent).unwrap();
    assert!(out.converged, "{n} x {n}: not converged after {} iterations ({:.1} orders)", out.iterations, out.history.orders_dropped());
    let block = &mesh.blocks[0];
    let (mut err, mut area) = (0.0, 0.0);
    for j in 0..n {
        for i in 0..n {
            let c = common::cell_corners(block, i, j);
            let vol = common::integrate_quad(&c, &|_, _| 1.0);
            let exact = common::integrate_quad(&c, &|x, y| manufactured(x, y)[0]) / vol;
            err += (out.solution.blocks[0].rho[block.cell(i, j)] - exact).abs() * vol;
            area += vol;
        }
    }
    (err / area, out.iterations)
}

fn observed_orders<B: Backend>(backend: &B, sizes: &[usize]) -> Vec<f64> {
    let errors: Vec<(f64, usize)> = sizes.iter().map(|&n| density_error(backend, n)).collect();
    for (n, (e, it)) in sizes.iter().zip(&errors) {
        println!("{}: manufactured solution, {n} x {n}: density L1 error {e:.4e} ({it} iterations)", backend.name());
    }
    let orders: Vec<f64> = errors.windows(2).zip(sizes.windows(2)).map(|(e, s)| (e[0].0 / e[1].0).ln() / (s[1] as f64 / s[0] as f64).ln()).collect();
    println!("observed orders: {orders:?}");
    orders
}

fn second_order_on_a_smooth_manufactured_solution<B: Backend>(backend: &B) {
    let orders = observed_orders(backend, &[16, 32]);
    assert!(orders[0] >= 1.8, "observed order {:.3} below 1.8", orders[0]);
}

fn second_order_on_a_smooth_manufactured_solution_fine_meshes<B: Backend>(backend: &B) {
    let orders = observed_orders(backend, &[16, 32, 64]);
    assert!(orders.iter().all(|&p| p >= 1.8), "observed orders {orders:?}");
}

#[test]
fn order_of_accuracy_cpu() {
    second_order_on_a_smooth_manufactured_solution(&CpuBackend::new(None).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device"]
fn order_of_accuracy_gpu() {
    second_order_on_a_smooth_manufactured_solution(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}

#[test]
#[ignore = "long validation: manufactured-solution order on 16^2, 32^2, 64^2 (about 4 minutes on 2 cores)"]
fn order_of_accuracy_fine_meshes_cpu() {
    second_order_on_a_smooth_manufactured_solution_fine_meshes(&CpuBackend::new(None).unwrap());
}

#[cfg(feature = "cuda")]
#[test]
#[ignore = "needs a CUDA device (and long: manufactured-solution order on 16^2, 32^2, 64^2)"]
fn order_of_accuracy_fine_meshes_gpu() {
    second_order_on_a_smooth_manufactured_solution_fine_meshes(&turbopt::backend::gpu::GpuBackend::new(0).unwrap());
}
