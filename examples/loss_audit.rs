//! The loss audit (results in docs/loss-audit.md): which modelling choice moves turbopt's
//! total-pressure loss and entropy rise of the LS89 vane at the three test-case-2 exit
//! pressures (M2is 0.9, 1.02, 1.1), and by how much.
//!
//! For each point the published LS89 profile is solved with the campaign pipeline (RANS-SA,
//! implicit, steady-figures stop) as the baseline, then once per variant: one modelling choice
//! changed, all else kept. Variants of the solver settings restart from the baseline's flow on
//! the same mesh; variants of the mesh or the domain start cold. Every run is cut at fixed axial
//! stations (the baseline's inlet plane, leading edge, trailing edge, trailing edge + 0.25 axial
//! chords, the LS89 measurement plane at 1.433 axial chords, the test case's outlet plane) and
//! reports there:
//!
//! - the entropy rise (s - s_in) / s_ref (s = p / rho^gamma mass-averaged, the test case's
//!   definition), so that the rise between two stations is the entropy made between them: the
//!   split by region (upstream, blade row, trailing edge and near wake, downstream mixing);
//! - at each station the share of that rise carried by the cells of the boundary layers and
//!   wake (nu_tilde / nu > [`VISCOUS_CHI`]) and by the rest (inviscid core: the shock system and
//!   the scheme's dissipation outside the viscous layers);
//! - the loss coefficient Y = (P01 - P02) / (P01 - p2) with P02 mass-averaged (the figure
//!   turbopt reports at the outlet plane) and mixed-out, at 1.433 axial chords and at the outlet,
//!   and the kinetic-energy loss of the mixed-out state;
//! - the exit flow angle, mass-averaged and mixed-out.
//!
//! `cargo run --release --example loss_audit` (about an hour on 2 cores); `AUDIT_POINTS` (comma
//! list, default `TC2_OP1,MUR47,TC2_OP3`) and `AUDIT_VARIANTS` (comma list of variant names,
//! default all) choose what runs; `AUDIT_THREADS` the CPU threads (default all).

use turbopt::backend::cpu::CpuBackend;
use turbopt::cascade::{solve_point, BladeChoice, CascadeSetup, PointRun, PointSolve, PreparedCascade, SolverSettings, Start};
use turbopt::flow::case::OperatingPoint;
use turbopt::flow::gas::Gas;
use turbopt::flow::solution::Solution;
use turbopt::geometry::{load_blade_file, BladeFile};
use turbopt::mesh::Density;
use turbopt::post::{mixed_out, pitchwise_cut, plane_averages, CutSample};
use turbopt::solver::{FlowModel, Silent};

/// Cells with nu_tilde / nu above this count as boundary layer or wake (the inlet's is 3).
const VISCOUS_CHI: f64 = 10.0;

/// One modelling choice changed from the baseline.
struct Variant {
    name: &'static str,
    what: &'static str,
    /// Changes the mesh or the domain (cold start on its own mesh).
    remesh: bool,
    apply: fn(&mut Setup),
}

/// Everything a variant may change.
struct Setup {
    blade: BladeFile,
    op: OperatingPoint,
    density: Density,
    target_yplus: f64,
    settings: SolverSettings,
}

const VARIANTS: &[Variant] = &[
    Variant { name: "ft2", what: "SA with the laminar suppression term ft2 (baseline: SA-noft2)", remesh: false, apply: |s| s.settings.config.sa.with_ft2 = true },
    Variant { name: "nut0.1", what: "inlet nu_tilde / nu = 0.1 (baseline 3)", remesh: false, apply: |s| s.op.nu_tilde_ratio = 0.1 },
    Variant { name: "limiter1", what: "limiter threshold K = 1 (baseline 1e-2: limiter active on smaller jumps)", remesh: false, apply: |s| s.settings.config.limiter_k = 1.0 },
    Variant { name: "outlet2x", what: "outlet 128 mm behind the trailing edge (baseline 64 mm)", remesh: true, apply: |s| s.blade.cascade.outlet_length *= 2.0 },
    Variant { name: "medium", what: "medium mesh (37,312 cells; baseline coarse, 13,760)", remesh: true, apply: |s| s.density = Density::Medium },
    Variant { name: "yplus0.3", what: "first cell at y+ 0.3 (baseline 1)", remesh: true, apply: |s| s.target_yplus = 0.3 },
    Variant { name: "nut10", what: "inlet nu_tilde / nu = 10", remesh: false, apply: |s| s.op.nu_tilde_ratio = 10.0 },
    Variant { name: "limiter1e-3", what: "limiter threshold K = 1e-3", remesh: false, apply: |s| s.settings.config.limiter_k = 1e-3 },
    Variant { name: "laminar", what: "laminar (no turbulence model): the all-laminar bound of the boundary-layer loss", remesh: false, apply: |s| {
        s.settings.config.model = FlowModel::Laminar;
        // A laminar wake behind the blunt trailing edge may shed vortices: no steady state.
        s.settings.max_iterations = 1000;
    } },
];

/// Axial stations of the audit, from the baseline's planes.
struct Stations {
    names: [&'static str; 6],
    x: [f64; 6],
}

impl Stations {
    fn of(prepared: &PreparedCascade) -> Self {
        let p = &prepared.planes;
        Stations {
            names: ["inlet", "LE", "TE", "TE+0.25ca", "1.433ca", "outlet"],
            x: [p.x_inlet, p.x_le, p.x_te, p.x_te + 0.25 * p.axial_chord, p.x_exit_measurement, p.x_outlet],
        }
    }
}

/// What one run gives at one station.
#[derive(Clone, Copy, Debug)]
struct StationFigures {
    /// (s - s_in) / s_ref, mass-averaged; and the parts of it in viscous and core cells.
    rise: f64,
    rise_viscous: f64,
    rise_core: f64,
    loss_mass: f64,
    loss_mixed: f64,
    kinetic_loss_mixed: f64,
    angle_mass: f64,
    angle_mixed: f64,
}

fn station_figures(cut: &[CutSample], gas: &Gas, op: &OperatingPoint, s_in: f64) -> StationFigures {
    let g = gas.gamma;
    let rho01 = op.p01 / (gas.gas_constant * op.t01);
    let s_ref = op.p01 / rho01.powf(g);
    let avg = plane_averages(cut, gas);
    let (mut visc, mut core) = (0.0, 0.0);
    for c in cut {
        let t = c.p / (c.rho * gas.gas_constant);
        let chi = c.nu_tilde * c.rho / gas.viscosity(t);
        let flux = c.rho * c.u * c.dy * (c.p / c.rho.powf(g) - s_in) / s_ref;
        if chi > VISCOUS_CHI {
            visc += flux;
        } else {
            core += flux;
        }
    }
    let mixed = mixed_out(cut, gas).expect("a mixed-out state");
    // Kinetic-energy loss of the mixed-out state: 1 - (1 - (p/P02)^k) / (1 - (p/P01)^k), k = (g-1)/g.
    let k = (g - 1.0) / g;
    let kinetic = 1.0 - (1.0 - (mixed.p / mixed.total_pressure).powf(k)) / (1.0 - (mixed.p / op.p01).powf(k));
    StationFigures {
        rise: (avg.entropy - s_in) / s_ref,
        rise_viscous: visc / avg.mass_flow,
        rise_core: core / avg.mass_flow,
        loss_mass: (op.p01 - avg.total_pressure) / (op.p01 - avg.static_pressure),
        loss_mixed: (op.p01 - mixed.total_pressure) / (op.p01 - mixed.p),
        kinetic_loss_mixed: kinetic,
        angle_mass: avg.flow_angle_deg,
        angle_mixed: mixed.flow_angle_deg,
    }
}

fn audit(prepared: &PreparedCascade, stations: &Stations, op: &OperatingPoint, flow: &Solution) -> Vec<StationFigures> {
    let g = prepared.gas.gamma;
    let inlet = plane_averages(&pitchwise_cut(&prepared.mesh, flow, g, stations.x[0]), &prepared.gas);
    stations.x.iter().map(|&x| station_figures(&pitchwise_cut(&prepared.mesh, flow, g, x), &prepared.gas, op, inlet.entropy)).collect()
}

fn report(point: &str, name: &str, solved: &PointSolve, seconds: f64, stations: &Stations, figures: &[StationFigures]) {
    let perf = &solved.figures.performance;
    println!(
        "\n[{point} {name}] {} ({} iterations, {:.1} orders, {seconds:.0} s); reported: entropy rise {:.5e}, loss {:.5}, exit angle {:.3} deg, exit Mis {:.4}, mass flow {:.4}",
        solved.stop.describe(),
        solved.iterations,
        solved.outcome.history.orders_dropped(),
        perf.entropy_rise,
        perf.loss_coefficient,
        perf.exit_angle_deg,
        perf.exit_isentropic_mach,
        perf.mass_flow
    );
    println!("  station     rise        viscous     core        Y_mass   Y_mixed  zeta_mixed angle_mass angle_mixed");
    for (n, f) in stations.names.iter().zip(figures) {
        println!(
            "  {n:<10} {:.4e} {:.4e} {:.4e} {:.5} {:.5} {:.5}    {:.3}   {:.3}",
            f.rise, f.rise_viscous, f.rise_core, f.loss_mass, f.loss_mixed, f.kinetic_loss_mixed, f.angle_mass, f.angle_mixed
        );
    }
}

fn solve(backend: &CpuBackend, prepared: &PreparedCascade, op: &OperatingPoint, settings: &SolverSettings, start: Start) -> Option<(PointSolve, f64)> {
    let none = |_: &turbopt::cascade::PointFigures| Vec::new();
    let run = PointRun { prepared, op, settings, extras: &none };
    let t = std::time::Instant::now();
    match solve_point(backend, &run, start, &mut Silent) {
        Ok(s) => Some((s, t.elapsed().as_secs_f64())),
        Err(f) => {
            println!("  FAILED after {} iterations: {} (attempts: {:?})", f.iterations, f.error, f.attempts);
            None
        }
    }
}

fn prepare(s: &Setup) -> PreparedCascade {
    let mut setup = CascadeSetup::new(&s.blade, vec![s.op.clone()], s.density);
    setup.mesh.target_yplus = s.target_yplus;
    PreparedCascade::new(&s.blade, BladeChoice::Main, &setup).expect("the LS89 profile meshes")
}

fn list(var: &str, default: &str) -> Vec<String> {
    std::env::var(var).unwrap_or_else(|_| default.into()).split(',').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

fn main() {
    let blade = load_blade_file(concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")).unwrap();
    let threads = std::env::var("AUDIT_THREADS").ok().and_then(|v| v.parse().ok());
    let backend = CpuBackend::new(threads).unwrap();
    let variants = list("AUDIT_VARIANTS", &VARIANTS.iter().map(|v| v.name).collect::<Vec<_>>().join(","));
    for point in list("AUDIT_POINTS", "TC2_OP1,MUR47,TC2_OP3") {
        let op = blade.operating_point(&point).unwrap().clone();
        let base = Setup { blade: blade.clone(), op: op.clone(), density: Density::Coarse, target_yplus: 1.0, settings: SolverSettings::default() };
        let prepared = prepare(&base);
        let stations = Stations::of(&prepared);
        let Some((solved, seconds)) = solve(&backend, &prepared, &op, &base.settings, Start::Cold) else { continue };
        report(&point, "baseline", &solved, seconds, &stations, &audit(&prepared, &stations, &op, &solved.outcome.solution));
        let reference = solved.outcome.history.density_reference();
        for v in VARIANTS.iter().filter(|v| variants.iter().any(|n| n == v.name)) {
            let mut s = Setup { blade: blade.clone(), op: op.clone(), density: Density::Coarse, target_yplus: 1.0, settings: SolverSettings::default() };
            (v.apply)(&mut s);
            println!("\n[{point} {}] {}", v.name, v.what);
            let result = if v.remesh {
                let own = prepare(&s);
                solve(&backend, &own, &s.op, &s.settings, Start::Cold).map(|(r, t)| {
                    let figures = audit(&own, &stations, &s.op, &r.outcome.solution);
                    (r, t, figures)
                })
            } else {
                let start = Start::Given { solution: &solved.outcome.solution, residual_reference: reference, restart: false };
                solve(&backend, &prepared, &s.op, &s.settings, start).map(|(r, t)| {
                    let figures = audit(&prepared, &stations, &s.op, &r.outcome.solution);
                    (r, t, figures)
                })
            };
            if let Some((r, t, figures)) = result {
                report(&point, v.name, &r, t, &stations, &figures);
            }
        }
    }
}
