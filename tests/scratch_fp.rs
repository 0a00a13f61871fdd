mod common;
use turbopt::backend::cpu::CpuBackend;
use turbopt::flow::gas::Gas;
use turbopt::mesh::simple::{tmr_flat_plate, FlatPlateGrid};
use turbopt::solver::*;

#[test]
fn scan() {
    let gas = Gas { prandtl: 0.72, ..Gas::default() };
    let t = 300.0;
    let u = 0.2 * (gas.gamma * gas.gas_constant * t).sqrt();
    let rho = 5e6 * gas.viscosity(t) / u;
    let q = [rho, u, 0.0, rho * gas.gas_constant * t];
    let mesh = tmr_flat_plate(FlatPlateGrid::N69x49).unwrap();
    let op = common::operating_point_of(&gas, q);
    let model = match std::env::var("MODEL").as_deref() { Ok("euler") => FlowModel::Euler, Ok("laminar") => FlowModel::Laminar, _ => FlowModel::SpalartAllmaras };
    let levels: usize = std::env::var("LEVELS").map(|s| s.parse().unwrap()).unwrap_or(1);
    let cfl: f64 = std::env::var("CFL").map(|s| s.parse().unwrap()).unwrap_or(1.0);
    let eps: f64 = std::env::var("EPS").map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let config = SolverConfig { model, cfl, smoothing: if eps > 0.0 { Some(ResidualSmoothing { epsilon: [eps, eps] }) } else { None },
        multigrid: Some(Multigrid { levels, cycle: Cycle::V }), max_iterations: 2000, convergence_orders: 8.0, ..SolverConfig::default() };
    let case = Case { gas, operating_point: op.clone(), solver: config };
    let backend = CpuBackend::new(Some(1)).unwrap();
    let mut solver = ExplicitSolver::new(&backend, &mesh, case).unwrap();
    let mut initial = uniform_state(&mesh, &gas, q);
    for b in &mut initial.blocks { b.nu_tilde.iter_mut().for_each(|n| *n = 3.0 * gas.viscosity(t) / rho); }
    let mut log = |r: &IterationRecord| { if r.iteration % 200 == 1 { println!("{} {:?}", r.iteration, r.residuals); } Control::Continue };
    match solver.solve(&initial, &mut log) { Ok(o) => println!("done {} {:.2}", o.iterations, o.history.orders_dropped()), Err(e) => println!("{e}") }
}
