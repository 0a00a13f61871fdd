//! Every blade file shipped in blades/ converges, or is answered as a periodic flow, at every
//! one of its named operating points with the default settings of `turbopt solve` (implicit
//! RANS-SA, cold start, the scheme's iteration budget, the recovery chain).
//!
//! The coarse mesh is in the default suite (the eleven solves take a few minutes on 2 cores);
//! the finer meshes are an ignored test: `DENSITY=medium|fine` (default medium), and
//! `BACKEND=gpu` in a `--features cuda` build.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use turbopt::cascade::{solve_blade, BackendChoice, BladeChoice, SchemeChoice, SolverSettings};
use turbopt::flow::case::OperatingPoint;
use turbopt::geometry::{load_blade_file, BladeFile};
use turbopt::mesh::Density;
use turbopt::solver::Silent;

const BLADES: [&str; 2] = ["blades/ls89.ron", "blades/t106c.ron"];

/// `turbopt solve`'s settings on `backend`.
fn cli_settings(backend: BackendChoice) -> SolverSettings {
    let scheme = SchemeChoice::Implicit;
    SolverSettings { scheme, backend, max_iterations: scheme.default_max_iterations(), ..SolverSettings::default() }
}

/// Solves every named point of every shipped blade; on the CPU two at a time: each solve keeps
/// its own default threads, and a second one fills the cores the first leaves idle in its serial
/// triangular solves (about a fifth less wall time on 2 cores, the same figures). On the GPU
/// one at a time, so that each solve's time is its own.
fn every_point_answers(density: Density, backend: BackendChoice) {
    let at_once = if matches!(backend, BackendChoice::Cpu { .. }) { 2 } else { 1 };
    let settings = cli_settings(backend);
    let blades: Vec<BladeFile> = BLADES.iter().map(|path| load_blade_file(path).unwrap()).collect();
    let points: Vec<(&BladeFile, &OperatingPoint)> = blades.iter().flat_map(|b| b.operating_points.iter().map(move |op| (b, op))).collect();
    let next = AtomicUsize::new(0);
    let unanswered = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once {
            scope.spawn(|| {
                while let Some(&(blade, op)) = points.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(why) = answer(blade, op, density, &settings) {
                        unanswered.lock().unwrap().push(format!("{} {}: {why}", blade.name, op.name));
                    }
                }
            });
        }
    });
    let unanswered = unanswered.into_inner().unwrap();
    assert!(unanswered.is_empty(), "{density:?}: {unanswered:#?}");
}

/// Solves one point and prints its figures; the reason where it was not answered.
fn answer(blade: &BladeFile, op: &OperatingPoint, density: Density, settings: &SolverSettings) -> Result<(), String> {
    let t = std::time::Instant::now();
    let solved = solve_blade(blade, BladeChoice::Main, op, density, settings, &mut Silent).map_err(|e| e.to_string())?;
    let p = &solved.solve;
    let f = &p.figures.performance;
    println!(
        "{} {} {density:?}: {} after {} iterations ({:.2} orders) in {:.1} s; entropy rise {:.6e}, loss {:.5}, exit angle {:.3} deg{}",
        blade.name,
        op.name,
        p.stop.describe(),
        p.iterations,
        p.outcome.history.orders_dropped(),
        t.elapsed().as_secs_f64(),
        f.entropy_rise,
        f.loss_coefficient,
        f.exit_angle_deg,
        p.oscillation.as_ref().map(|o| format!("; {}", o.describe())).unwrap_or_default()
    );
    if p.stop.converged() {
        Ok(())
    } else {
        Err(p.stop.describe().to_string())
    }
}

#[test]
fn every_shipped_point_answers_on_the_coarse_mesh() {
    every_point_answers(Density::Coarse, BackendChoice::Cpu { threads: None });
}

#[test]
#[ignore = "long validation: every shipped point on a finer mesh (DENSITY=medium|fine, BACKEND=gpu)"]
fn every_shipped_point_answers_on_a_finer_mesh() {
    let density = match std::env::var("DENSITY").as_deref() {
        Ok("fine") => Density::Fine,
        Ok("coarse") => Density::Coarse,
        _ => Density::Medium,
    };
    let backend = if std::env::var("BACKEND").is_ok_and(|b| b == "gpu") { BackendChoice::gpu(0) } else { BackendChoice::Cpu { threads: None } };
    every_point_answers(density, backend);
}
