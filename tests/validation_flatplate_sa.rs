//! NASA TMR zero-pressure-gradient flat plate with Spalart-Allmaras (M = 0.2, Re = 5e6 per unit
//! length, free-stream nu_tilde = 3 nu): skin friction at x = 0.97008 against CFL3D
//! (data/tmr/flatplate_sa.csv). On the same grids at the Reynolds numbers of the ERCOFTAC T3A,
//! T3B and T3A- plates and of Schubauer and Klebanoff's, SA-BCM's and SA-gamma's transition and
//! fully turbulent SA against the measured skin friction (data/transition/).

mod common;

use std::time::Instant;

use turbopt::backend::cpu::CpuBackend;
use turbopt::flow::case::OperatingPoint;
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::Solution;
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::simple::{tmr_flat_plate, FlatPlateGrid};
use turbopt::mesh::Mesh;
use turbopt::solver::{solve_case, uniform_state, Case, Control, Cycle, FlowModel, ImplicitConfig, IterationRecord, Multigrid, Scheme, SolverConfig};

const X_CF: f64 = 0.97008;

/// CFL3D's Cf at x = 0.97008 for a grid name such as "273x193".
fn reference_cf(grid: &str) -> f64 {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/tmr/flatplate_sa.csv")).expect("TMR data");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(',').collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[1] == grid)
        .map(|f| f[2].parse().expect("Cf value"))
        .expect("grid row")
}

/// Free stream: T = 300 K, M = 0.2, density from the Reynolds number per metre.
fn free_stream(gas: &Gas, re_per_metre: f64) -> [f64; 4] {
    let t = 300.0;
    let u = 0.2 * (gas.gamma * gas.gas_constant * t).sqrt();
    let rho = re_per_metre * gas.viscosity(t) / u;
    [rho, u, 0.0, rho * gas.gas_constant * t]
}

/// What flows over the plate: Reynolds number per metre, model, free-stream turbulence
/// intensity (SA-BCM) and inflow nu~/nu.
#[derive(Clone, Copy, Debug)]
struct Plate {
    re_per_metre: f64,
    model: FlowModel,
    turbulence_intensity: Option<f64>,
    nu_tilde_ratio: f64,
}

/// The TMR verification case: Re 5e6 per metre, fully turbulent SA, nu~ = 3 nu.
const TMR_SA: Plate = Plate { re_per_metre: 5e6, model: FlowModel::SpalartAllmaras, turbulence_intensity: None, nu_tilde_ratio: 3.0 };

/// A solved plate: mesh, flow, gas and free stream.
struct PlateFlow {
    mesh: Mesh,
    metrics: MeshMetrics,
    solution: Solution,
    gas: Gas,
    q: [f64; 4],
}

/// Cf at `x` from the first wall cells: tau_w = mu u_t / d with d the centroid wall distance
/// (the wall-face gradient of the solver), linearly interpolated in x between cell centres.
fn skin_friction(plate: &PlateFlow, x: f64) -> f64 {
    let PlateFlow { mesh, metrics, solution, gas, q: q_inf } = plate;
    let (b, m, s) = (&mesh.blocks[0], &metrics.blocks[0], &solution.blocks[0]);
    let dynamic_pressure = 0.5 * q_inf[0] * q_inf[1] * q_inf[1];
    let cf = |i: usize| {
        let c = b.cell(i, 0);
        let u = s.rho_u[c] / s.rho[c];
        let t = s.pressure(c, gas.gamma) / (s.rho[c] * gas.gas_constant);
        gas.viscosity(t) * u / m.wall_distance[c] / dynamic_pressure
    };
    let i = (0..b.ni - 1).find(|&i| m.centre_x[b.cell(i, 0)] <= x && x < m.centre_x[b.cell(i + 1, 0)]).expect("x on the plate");
    let (x0, x1) = (m.centre_x[b.cell(i, 0)], m.centre_x[b.cell(i + 1, 0)]);
    let w = (x - x0) / (x1 - x0);
    (1.0 - w) * cf(i) + w * cf(i + 1)
}

/// Explicit (RK, IRS, 3-level V-cycle multigrid at CFL 1) or the implicit scheme (segregated SA
/// system, CFL ramped to 100).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Time {
    Explicit,
    Implicit,
}

fn solve_plate(grid: FlatPlateGrid, name: &str, max_cycles: usize, time: Time, plate: Plate) -> PlateFlow {
    let gas = Gas { prandtl: 0.72, ..Gas::default() };
    let q = free_stream(&gas, plate.re_per_metre);
    let mesh = tmr_flat_plate(grid).unwrap();
    let op = OperatingPoint { turbulence_intensity: plate.turbulence_intensity, nu_tilde_ratio: plate.nu_tilde_ratio, ..common::operating_point_of(&gas, q) };
    let config = SolverConfig {
        model: plate.model,
        cfl: 1.0,
        // Three levels need the prolonged corrections smoothed on this stretched grid.
        multigrid: Some(Multigrid { levels: 3, cycle: Cycle::V, correction_smoothing: 1.0, delay: 0 }),
        convergence_orders: 6.0,
        max_iterations: max_cycles,
        ..SolverConfig::default()
    };
    let config = match time {
        Time::Explicit => config,
        Time::Implicit => {
            let mut implicit = ImplicitConfig::default();
            implicit.cfl.target = 100.0;
            SolverConfig { multigrid: None, scheme: Scheme::Implicit(implicit), ..config }
        }
    };
    let case = Case { gas, operating_point: op.clone(), solver: config };
    let backend = CpuBackend::new(None).unwrap();
    let mut initial = uniform_state(&mesh, &gas, q);
    let nu_inf = gas.viscosity(300.0) / q[0];
    for block in &mut initial.blocks {
        block.nu_tilde.iter_mut().for_each(|n| *n = op.nu_tilde_ratio * nu_inf);
    }
    let start = Instant::now();
    // Optional wall-clock budget (seconds) for runs that cannot converge in the time at hand:
    // the solve stops there and the Cf of the unconverged state is reported as such.
    let budget: Option<f64> = std::env::var("TURBOPT_WALL_BUDGET_S").ok().and_then(|s| s.parse().ok());
    let mut log = |r: &IterationRecord| {
        if r.iteration % 500 == 0 {
            println!("{name}: cycle {} residuals {:?} ({:.0} s)", r.iteration, r.residuals, start.elapsed().as_secs_f64());
        }
        match budget {
            Some(b) if r.wall_s > b => Control::Stop,
            _ => Control::Continue,
        }
    };
    let (out, _) = solve_case(&backend, &mesh, case, &initial, &mut log).unwrap();
    println!(
        "{name} ({time:?}, {plate:?}): {} cycles, {:.2} orders, converged {}, {:.0} s",
        out.iterations,
        out.history.orders_dropped(),
        out.converged,
        start.elapsed().as_secs_f64()
    );
    let metrics = MeshMetrics::new(&mesh).unwrap();
    PlateFlow { mesh, metrics, solution: out.solution, gas, q }
}

fn flat_plate(grid: FlatPlateGrid, name: &str, max_cycles: usize, time: Time) -> (f64, f64) {
    let p = solve_plate(grid, name, max_cycles, time, TMR_SA);
    let cf = skin_friction(&p, X_CF);
    let reference = reference_cf(name);
    println!("{name} ({time:?}): Cf(x = {X_CF}) = {cf:.6} vs CFL3D {reference:.6} ({:+.2} %)", 100.0 * (cf / reference - 1.0));
    (cf, reference)
}

/// Runs `grid` and asserts Cf at x = 0.97008 within `tolerance` (relative) of CFL3D's value on
/// the same grid.
fn assert_skin_friction(grid: FlatPlateGrid, name: &str, max_cycles: usize, time: Time, tolerance: f64) {
    let (cf, reference) = flat_plate(grid, name, max_cycles, time);
    assert!((cf / reference - 1.0).abs() < tolerance, "{name} ({time:?}): Cf {cf} vs {reference}");
}

#[test]
#[ignore = "long validation: SA flat plate on the 69 x 49 grid (several minutes)"]
fn sa_flat_plate_coarse_grid() {
    assert_skin_friction(FlatPlateGrid::N69x49, "69x49", 30_000, Time::Explicit, 0.05);
}

#[test]
#[ignore = "long validation: SA flat plate on the 273 x 193 grid (hours on 2 cores with the explicit solver)"]
fn sa_flat_plate_skin_friction_within_two_percent() {
    assert_skin_friction(FlatPlateGrid::N273x193, "273x193", 40_000, Time::Explicit, 0.02);
}

/// The implicit scheme with the segregated SA system on the 69 x 49 grid: converges 6 orders
/// and lands within 2 % of CFL3D's Cf on the same grid.
#[test]
fn sa_flat_plate_implicit_coarse_grid() {
    assert_skin_friction(FlatPlateGrid::N69x49, "69x49", 2_000, Time::Implicit, 0.02);
}

#[test]
#[ignore = "long validation: implicit SA flat plate on the 273 x 193 grid (minutes)"]
fn sa_flat_plate_implicit_skin_friction_within_two_percent() {
    assert_skin_friction(FlatPlateGrid::N273x193, "273x193", 3_000, Time::Implicit, 0.02);
}

/// An ERCOFTAC flat-plate transition experiment: its data file (data/transition/), free-stream
/// velocity and the turbulence intensity at the leading edge.
#[derive(Clone, Copy, Debug)]
struct Experiment {
    name: &'static str,
    file: &'static str,
    velocity: f64,
    turbulence_intensity: f64,
}

/// The experiments' kinematic viscosity (air at about 20 C), m^2/s.
const AIR_NU: f64 = 1.5e-5;

const T3A: Experiment = Experiment { name: "T3A", file: "ercoftac_t3a_cf.csv", velocity: 5.4, turbulence_intensity: 0.033 };
const T3B: Experiment = Experiment { name: "T3B", file: "ercoftac_t3b_cf.csv", velocity: 9.4, turbulence_intensity: 0.06 };
const T3A_MINUS: Experiment = Experiment { name: "T3A-", file: "ercoftac_t3a_minus_cf.csv", velocity: 19.8, turbulence_intensity: 0.0087 };
/// Schubauer and Klebanoff's plate (Tu 0.18 %, natural transition at Re_x about 2.8e6), at the
/// velocity of SU2's set-up of the case.
const SCHUBAUER_KLEBANOFF: Experiment = Experiment { name: "Schubauer-Klebanoff", file: "schubauer_klebanoff_cf.csv", velocity: 50.1, turbulence_intensity: 0.0018 };

impl Experiment {
    fn re_per_metre(&self) -> f64 {
        self.velocity / AIR_NU
    }

    /// The measured stations: (x [m], Cf), from a file whose first column is x in mm (`x_mm`) or
    /// the local Reynolds number (`re_x`).
    fn measurements(&self) -> Vec<(f64, f64)> {
        let path = format!("{}/data/transition/{}", env!("CARGO_MANIFEST_DIR"), self.file);
        let text = std::fs::read_to_string(&path).expect("flat-plate transition data");
        let mut rows = text.lines().filter(|l| !l.starts_with('#'));
        let metres_per_unit = match rows.next().and_then(|h| h.split(',').next()) {
            Some("x_mm") => 1e-3,
            Some("re_x") => 1.0 / self.re_per_metre(),
            other => panic!("{}: first column {other:?}, expected x_mm or re_x", self.file),
        };
        rows.map(|l| {
            let f: Vec<f64> = l.split(',').map(|v| v.trim().parse().expect("number")).collect();
            (f[0] * metres_per_unit, f[1])
        })
        .collect()
    }

    /// The station with the lowest measured Cf (transition onset) and its neighbours (the
    /// station itself where it is the first or the last).
    fn measured_onset(&self) -> (f64, f64, f64) {
        let m = self.measurements();
        let k = (0..m.len()).min_by(|&a, &b| m[a].1.total_cmp(&m[b].1)).expect("measured stations");
        (m[k.saturating_sub(1)].0, m[k].0, m[(k + 1).min(m.len() - 1)].0)
    }
}

/// Where a computed skin friction distribution turns: the Cf minimum over the measured range
/// (None when Cf only falls: turbulent from the leading edge, or laminar to the end) and the
/// maximum after it (end of transition); and, against an experiment, the computed Cf over the
/// measured one at each station (x [m], ratio).
struct Transition {
    onset_x: Option<f64>,
    end_x: Option<f64>,
    ratios: Vec<(f64, f64)>,
}

fn transition_of(cf: impl Fn(f64) -> f64, x_last: f64) -> Transition {
    let xs: Vec<f64> = (3..=(1e3 * x_last) as usize).map(|k| 1e-3 * k as f64).collect();
    let values: Vec<f64> = xs.iter().map(|&x| cf(x)).collect();
    let k_min = (0..xs.len()).min_by(|&a, &b| values[a].total_cmp(&values[b])).unwrap();
    if k_min + 1 >= xs.len() {
        return Transition { onset_x: None, end_x: None, ratios: Vec::new() };
    }
    let k_max = (k_min..xs.len()).max_by(|&a, &b| values[a].total_cmp(&values[b])).unwrap();
    Transition { onset_x: Some(xs[k_min]), end_x: (k_max + 1 < xs.len()).then(|| xs[k_max]), ratios: Vec::new() }
}

/// `model` on the plate of `experiment` (a TMR plate grid at the experiment's Reynolds number
/// per metre; M 0.2 here). SA-BCM with a laminar free stream (nu~ = 0.1 nu: with SA's usual 3 nu
/// it is turbulent from the leading edge, docs/transition.md), SA as the product runs it fully
/// turbulent (nu~ = 3 nu). Prints Cf at every station against the
/// measurement and the computed onset; returns it.
fn against_experiment(experiment: Experiment, model: FlowModel, grid: FlatPlateGrid) -> Transition {
    let transitional = matches!(model, FlowModel::SaBcm | FlowModel::SaGamma);
    let turbulence_intensity = transitional.then_some(experiment.turbulence_intensity);
    let nu_tilde_ratio = if transitional { 0.1 } else { 3.0 };
    let plate = Plate { re_per_metre: experiment.re_per_metre(), model, turbulence_intensity, nu_tilde_ratio };
    let p = solve_plate(grid, &format!("{grid:?}"), 3_000, Time::Implicit, plate);
    let cf = |x: f64| skin_friction(&p, x);
    let stations = experiment.measurements();
    for &(x, measured) in &stations {
        let re_x = plate.re_per_metre * x;
        println!(
            "{} {model:?}: x {:6.1} mm, Re_x {re_x:.3e}: Cf {:.3e} measured {measured:.3e} ({:+.1} %), Blasius {:.3e}",
            experiment.name,
            1e3 * x,
            cf(x),
            100.0 * (cf(x) / measured - 1.0),
            0.664 / re_x.sqrt()
        );
    }
    let mut transition = transition_of(cf, stations.last().unwrap().0);
    transition.ratios = stations.iter().map(|&(x, measured)| (x, cf(x) / measured)).collect();
    let (_, measured, _) = experiment.measured_onset();
    let re = |x: Option<f64>| x.map_or("none".to_string(), |x| format!("{:.0} mm (Re_x {:.3e})", 1e3 * x, plate.re_per_metre * x));
    println!(
        "{} {model:?}: computed Cf minimum at {}, maximum after it at {}; measured minimum at {:.0} mm (Re_x {:.3e})",
        experiment.name,
        re(transition.onset_x),
        re(transition.end_x),
        1e3 * measured,
        plate.re_per_metre * measured
    );
    transition
}

/// SA-BCM's onset (computed Cf minimum) lies between the stations around the measured minimum.
fn assert_onset_bracketed(experiment: Experiment) {
    let (lower, _, upper) = experiment.measured_onset();
    let onset = against_experiment(experiment, FlowModel::SaBcm, FlatPlateGrid::N137x97).onset_x;
    assert!(onset.is_some_and(|x| (lower..upper).contains(&x)), "{}: computed onset {onset:?} m, measured between {lower} and {upper} m", experiment.name);
}

/// T3B (Tu 6 %, bypass): the measured Cf is lowest at x = 95 mm between stations at 70 and
/// 145 mm.
#[test]
#[ignore = "long validation: SA-BCM on the T3B plate, 137 x 97 grid (minutes on 2 cores)"]
fn sa_bcm_t3b_transition_onset() {
    assert_onset_bracketed(T3B);
}

/// T3A (Tu 3.3 %, bypass): the measured Cf is lowest at x = 395 mm between stations at 295 and
/// 495 mm.
#[test]
#[ignore = "long validation: SA-BCM on the T3A plate, 137 x 97 grid (minutes on 2 cores)"]
fn sa_bcm_t3a_transition_onset() {
    assert_onset_bracketed(T3A);
}

/// T3A- (Tu 0.87 %, Re 1.32e6 per metre): the measured Cf is lowest at x = 1,095 mm. On the
/// 137 x 97 grid SA-BCM switches production on in the first cells of the sharp leading edge and
/// the layer is turbulent from there; on the 273 x 193 grid, whose first plate cells are half
/// as long, the layer stays laminar along the first six stations (to 595 mm) and turns
/// turbulent on the plate, earlier than measured (639 mm: docs/transition.md). Asserted: Cf
/// within 10 % of the measurement at those stations, and an onset on the plate.
#[test]
#[ignore = "long validation: SA-BCM on the T3A- plate, 273 x 193 grid (about 10 minutes on 2 cores)"]
fn sa_bcm_t3a_minus_stays_laminar_then_transitions_on_the_finer_grid() {
    let transition = against_experiment(T3A_MINUS, FlowModel::SaBcm, FlatPlateGrid::N273x193);
    assert!(transition.onset_x.is_some(), "T3A-: no transition on the plate");
    let laminar = transition.ratios.iter().take_while(|(x, _)| *x < 0.6);
    for (x, ratio) in laminar {
        assert!((ratio - 1.0).abs() < 0.1, "T3A-: Cf {ratio:.3} x the measurement at x = {x} m");
    }
}

/// Fully turbulent SA on the three plates: no transition (Cf falls from the leading edge).
#[test]
#[ignore = "long validation: SA on the T3A, T3B and T3A- plates, 137 x 97 grid (minutes on 2 cores)"]
fn sa_is_turbulent_from_the_leading_edge_on_the_ercoftac_plates() {
    for experiment in [T3A, T3B, T3A_MINUS] {
        let transition = against_experiment(experiment, FlowModel::SpalartAllmaras, FlatPlateGrid::N137x97);
        assert!(transition.onset_x.is_none(), "{}: SA Cf minimum at {:?} m", experiment.name, transition.onset_x);
    }
}

/// SA-gamma (Menter's intermittency transport on SA-noft2, nu~ = 0.1 nu) on the ERCOFTAC plates:
/// on every plate the layer is laminar from the leading edge, with Cf within 15 % of the
/// measurement at the stations before 0.8 times the computed onset, and turns turbulent on the
/// plate (unlike SA-BCM, T3A- too on this grid); on T3B the onset lies between the stations
/// around the measured one. Measured (docs/transition.md): onsets T3B 106 mm (measured 95), T3A
/// 293 mm (395), T3A- 727 mm (1,095). `TURBOPT_PLATES=T3B` runs one plate.
#[test]
#[ignore = "long validation: SA-gamma on the T3B, T3A and T3A- plates, 137 x 97 grid (about 7 minutes on 2 cores)"]
fn sa_gamma_on_the_ercoftac_plates() {
    let which = std::env::var("TURBOPT_PLATES").unwrap_or_else(|_| "T3B,T3A,T3A-".into());
    for experiment in [T3B, T3A, T3A_MINUS].into_iter().filter(|e| which.split(',').any(|w| w == e.name)) {
        let transition = against_experiment(experiment, FlowModel::SaGamma, FlatPlateGrid::N137x97);
        let name = experiment.name;
        let onset = transition.onset_x.unwrap_or_else(|| panic!("{name}: no transition on the plate"));
        for (x, ratio) in transition.ratios.iter().take_while(|(x, _)| *x < 0.8 * onset) {
            assert!((ratio - 1.0).abs() < 0.15, "{name}: laminar Cf {ratio:.3} x the measurement at x = {x} m");
        }
        if name == "T3B" {
            let (lower, _, upper) = experiment.measured_onset();
            assert!((lower..upper).contains(&onset), "T3B: computed onset {onset} m, measured between {lower} and {upper} m");
        }
    }
}

/// Schubauer and Klebanoff's plate (Tu 0.18 %): natural transition, measured laminar at Re_x
/// 2.67e6 (the Cf minimum) and turbulent from 3.45e6. SA is turbulent from the leading edge;
/// SA-gamma is laminar at the measured laminar station (Cf within 15 %) and turns turbulent on
/// the plate after it.
/// SA-BCM is printed, not asserted: on this grid it is turbulent from the leading edge, as on
/// T3A- (docs/transition.md). Measured there: SA-gamma's Cf minimum at Re_x 3.31e6.
/// `TURBOPT_MODELS=sa-gamma` runs one model; `TURBOPT_GRID=273x193` prints the same on the finer
/// grid (SA-gamma's onset moves to Re_x 2.59e6 there: docs/transition.md).
#[test]
#[ignore = "long validation: SA, SA-BCM and SA-gamma on the Schubauer-Klebanoff plate, 137 x 97 grid (about 5 minutes on 2 cores)"]
fn transition_models_on_the_schubauer_klebanoff_plate() {
    let which = std::env::var("TURBOPT_MODELS").unwrap_or_else(|_| "sa,sa-bcm,sa-gamma".into());
    let grid = match std::env::var("TURBOPT_GRID").as_deref() {
        Ok("273x193") => FlatPlateGrid::N273x193,
        _ => FlatPlateGrid::N137x97,
    };
    let models = [("sa", FlowModel::SpalartAllmaras), ("sa-bcm", FlowModel::SaBcm), ("sa-gamma", FlowModel::SaGamma)];
    let (_, last_laminar, _) = SCHUBAUER_KLEBANOFF.measured_onset();
    for (_, model) in models.into_iter().filter(|(n, _)| which.split(',').any(|w| w == *n)) {
        let transition = against_experiment(SCHUBAUER_KLEBANOFF, model, grid);
        // The finer grid is the grid study of docs/transition.md: printed, not asserted.
        if grid != FlatPlateGrid::N137x97 {
            continue;
        }
        match model {
            FlowModel::SpalartAllmaras => assert!(transition.onset_x.is_none(), "SA: Cf minimum at {:?} m", transition.onset_x),
            FlowModel::SaGamma => {
                let onset = transition.onset_x.expect("SA-gamma: no transition on the plate");
                assert!(onset > last_laminar, "SA-gamma: onset {onset} m, before the last measured laminar station at {last_laminar} m");
                for (x, ratio) in transition.ratios.iter().take_while(|(x, _)| *x <= last_laminar) {
                    assert!((ratio - 1.0).abs() < 0.15, "SA-gamma: laminar Cf {ratio:.3} x the measurement at x = {x} m");
                }
            }
            _ => {}
        }
    }
}
