//! `turbopt solve --grid-convergence`: the solve on the coarse, medium and fine meshes, each
//! exactly as `turbopt solve --density D` makes it (the fine one sequenced from its own medium
//! solve), and per figure the observed order of convergence, the Richardson-extrapolated value
//! and the fine-grid convergence index by the procedure of Celik et al. (2008), which allows the
//! unequal refinement ratios of the three meshes (`post::grid_convergence`). Writes
//! grid_convergence.csv (one row per mesh) and grid_convergence.md (both tables) beside the
//! three solves' directories.

use super::args::SolveArgs;
use super::solve::{solve, Ending, SolvedFigures};
use turbopt::mesh::Density;
use turbopt::post::grid_convergence::{grid_convergence, GridConvergence};
use turbopt::{Error, Result};

/// The figures whose convergence is reported: name, unit, value.
type Figure = (&'static str, &'static str, fn(&SolvedFigures) -> Option<f64>);

const FIGURES: [Figure; 6] = [
    ("entropy rise", "", |f| Some(f.entropy_rise)),
    ("loss coefficient", "", |f| Some(f.loss_coefficient)),
    ("loss coefficient at the measurement plane", "", |f| Some(f.loss_coefficient_at_measurement_plane)),
    ("exit angle", " deg", |f| Some(f.exit_angle_deg)),
    ("mass flow", " kg/(s m)", |f| Some(f.mass_flow)),
    ("Mis RMS against the measured taps", "", |f| f.mis_rms),
];

pub fn run(args: &SolveArgs) -> Result<()> {
    let mut rows = Vec::new();
    let mut short = Vec::new();
    for density in DENSITIES {
        println!("== {} mesh", density.name());
        let one = SolveArgs { density, out: args.out.join(density.name()), json: false, grid_convergence: false, ..args.clone() };
        let (ending, figures) = solve(&one).map_err(|e| {
            // The meshes solved so far keep their row.
            let kept = std::fs::create_dir_all(&args.out).and_then(|_| std::fs::write(args.out.join("grid_convergence.csv"), csv(&rows)));
            let note = if kept.is_ok() { "; the meshes solved before it are in grid_convergence.csv" } else { "" };
            Error::Other(format!("the {} mesh: {e}{note}", density.name()))
        })?;
        if let Ending::NotConverged { iterations, orders } = ending {
            if super::interrupt::requested() {
                return Err(Error::Other(format!("stopped by a signal on the {} mesh; the meshes solved so far are written", density.name())));
            }
            short.push(format!("the {} solve stopped short of convergence ({iterations} iterations, {orders:.2} orders)", density.name()));
        }
        rows.push(figures);
    }
    let studies: Vec<(Figure, Option<GridConvergence>)> = FIGURES
        .iter()
        .filter_map(|&fig| {
            let v: Vec<f64> = rows.iter().filter_map(fig.2).collect();
            let values: [f64; 3] = v.try_into().ok()?;
            Some((fig, grid_convergence(values, [rows[0].cells, rows[1].cells, rows[2].cells])))
        })
        .collect();
    let text = markdown(&rows, &studies, &short);
    println!("\n{text}");
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let write = |name: &str, body: &str| {
        let path = args.out.join(name);
        std::fs::write(&path, body).map_err(|e| Error::io(&path, e))
    };
    write("grid_convergence.md", &text)?;
    write("grid_convergence.csv", &csv(&rows))?;
    println!("wrote {}", args.out.display());
    if args.json {
        let convergence: serde_json::Map<String, serde_json::Value> =
            studies.iter().map(|((name, _, _), g)| (name.to_string(), serde_json::to_value(g).unwrap_or(serde_json::Value::Null))).collect();
        let meshes: Vec<_> = DENSITIES.iter().zip(&rows).map(|(d, f)| serde_json::json!({ "density": d.name(), "figures": f })).collect();
        println!("{}", serde_json::json!({ "meshes": meshes, "grid_convergence": convergence, "converged": short.is_empty() }));
    }
    if short.is_empty() {
        Ok(())
    } else {
        Err(Error::Other(format!("{}; the table is written, its orders describe unconverged figures", short.join("; "))))
    }
}

/// The per-mesh table and the convergence table, as Markdown.
fn markdown(rows: &[SolvedFigures], studies: &[(Figure, Option<GridConvergence>)], short: &[String]) -> String {
    let mut t = String::from("| mesh | cells | iterations | wall (s) | entropy rise | loss coefficient | loss at the measurement plane | exit angle (deg) | mass flow (kg/(s m)) | exit Mis | Mis RMS |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (d, f) in DENSITIES.iter().zip(rows) {
        let [entropy, rest @ ..] = columns(f);
        let rest: Vec<String> = rest.iter().zip(DECIMALS).map(|(v, n)| format!("{v:.n$}")).collect();
        let rms = f.mis_rms.map_or("-".to_string(), |r| format!("{r:.4}"));
        t += &format!("| {} | {} | {} | {:.1} | {entropy:.4e} | {} | {rms} |\n", d.name(), f.cells, f.iterations, f.wall_s, rest.join(" | "));
    }
    t += "\nObserved order p, Richardson-extrapolated value, fine-grid convergence index and asymptotic ratio \
          (GCI32 / (r21^p GCI21), 1 in the asymptotic range; Celik et al. 2008):\n\n\
          | figure | observed order | extrapolated | GCI fine | asymptotic ratio | differences |\n|---|---|---|---|---|---|\n";
    for ((name, unit, _), g) in studies {
        t += &match g {
            Some(g) => format!(
                "| {name} | {:.2} | {:.5e}{unit} | {:.2} % | {:.3} | {} |\n",
                g.order,
                g.extrapolated,
                100.0 * g.gci_fine,
                g.asymptotic_ratio,
                if g.oscillatory { "change sign (oscillatory)" } else { "one sign (monotone)" }
            ),
            None => format!("| {name} | - | - | - | - | the medium and fine meshes agree exactly |\n"),
        };
    }
    for s in short {
        t += &format!("\nNote: {s}.\n");
    }
    t
}

/// One row per mesh, every figure to its last digit.
fn csv(rows: &[SolvedFigures]) -> String {
    let mut t = String::from("mesh,cells,iterations,wall_s,entropy_rise,loss_coefficient,loss_coefficient_at_measurement_plane,exit_angle_deg,mass_flow,exit_isentropic_mach,mis_rms\n");
    for (d, f) in DENSITIES.iter().zip(rows) {
        let figures: Vec<String> = columns(f).iter().map(|v| format!("{v:e}")).collect();
        let rms = f.mis_rms.map_or(String::new(), |r| format!("{r:e}"));
        t += &format!("{},{},{},{:.3},{},{rms}\n", d.name(), f.cells, f.iterations, f.wall_s, figures.join(","));
    }
    t
}

/// The meshes of the study, coarse to fine.
const DENSITIES: [Density; 3] = [Density::Coarse, Density::Medium, Density::Fine];

/// A mesh's figures in the tables' column order: entropy rise, loss coefficient, loss at the
/// measurement plane, exit angle, mass flow, exit isentropic Mach number.
fn columns(f: &SolvedFigures) -> [f64; 6] {
    [f.entropy_rise, f.loss_coefficient, f.loss_coefficient_at_measurement_plane, f.exit_angle_deg, f.mass_flow, f.exit_isentropic_mach]
}

/// Decimals the Markdown table prints of each column after the entropy rise.
const DECIMALS: [usize; 5] = [5, 5, 3, 4, 4];
