//! Long CFD-evaluator runs (ignored by default; run with `--ignored --nocapture`): the LS89
//! MUR47 grid-convergence table, and the warm start (on the baseline's mesh or resampled onto a
//! design's) against the cold start.
//!
//! The grid-convergence budget comes from the environment, so that the same test serves a quick
//! look on a small machine and a full run on a larger one:
//! `TURBOPT_GRID_ITERS` (iterations per density, default 20000),
//! `TURBOPT_GRID_DENSITIES` (comma list, default `coarse,medium,fine`).
//! The table goes to the test's temporary folder (its path is printed), or where
//! `TURBOPT_GRID_OUT` says; `TURBOPT_WRITE_DOCS=1` writes it to docs/ls89-grid-convergence.md, the
//! repository's copy.

use std::path::{Path, PathBuf};
use turbopt::eval::cfd::{CfdEvaluator, EvaluatorConfig};
use turbopt::eval::objectives::{Constraint, Objective};
use turbopt::eval::{Evaluator, Status};
use turbopt::mesh::Density;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// LS89 test case 1 at MUR47 on the published profile (the blade file's main definition).
fn ls89_tc1(density: Density, iterations: usize) -> EvaluatorConfig {
    let mut c = EvaluatorConfig::for_blade("blades/ls89.ron");
    c.operating_points = vec!["MUR47".into()];
    c.density = density;
    c.objectives = vec![
        Objective::EntropyRise,
        Objective::LossCoefficient,
        Objective::ExitAngle,
        Objective::MassFlow,
        Objective::ExitIsentropicMach,
    ];
    c.constraints = vec![Constraint::ExitAngleAtLeast(74.0)];
    c.solver.max_iterations = iterations;
    c
}

/// Where the grid-convergence table goes: `TURBOPT_GRID_OUT`, else the repository's
/// docs/ls89-grid-convergence.md when `TURBOPT_WRITE_DOCS=1` asks for it, else the test's
/// temporary folder under target/.
fn grid_table_path() -> PathBuf {
    if let Ok(out) = std::env::var("TURBOPT_GRID_OUT") {
        return PathBuf::from(out);
    }
    if std::env::var("TURBOPT_WRITE_DOCS").is_ok_and(|v| v == "1") {
        return Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join("ls89-grid-convergence.md");
    }
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("ls89-grid-convergence.md")
}

#[test]
#[ignore = "long validation: LS89 MUR47 on coarse, medium and fine meshes (hours on 2 cores at the default 20000 iterations)"]
fn ls89_mur47_grid_convergence() {
    let iterations = env_usize("TURBOPT_GRID_ITERS", 20_000);
    let densities = std::env::var("TURBOPT_GRID_DENSITIES").unwrap_or_else(|_| "coarse,medium,fine".into());
    let mut rows = Vec::new();
    let mut names = Vec::new();
    for d in densities.split(',') {
        let density = match d.trim() {
            "coarse" => Density::Coarse,
            "medium" => Density::Medium,
            "fine" => Density::Fine,
            other => panic!("unknown density {other}"),
        };
        let ev = CfdEvaluator::new(ls89_tc1(density, iterations)).unwrap();
        names = ev.objective_names();
        let cells: usize = ev.main_blade_mesh().unwrap().blocks.iter().map(|b| b.ni * b.nj).sum();
        let e = ev.evaluate_main_blade();
        println!("{d}: {cells} cells: {e:?}");
        rows.push((d.trim().to_string(), cells, e));
    }
    let mut table = String::from("# LS89 MUR47: objectives against mesh density\n\n");
    table += &format!(
        "Published LS89 profile (blades/ls89.ron main definition), MUR47 (P01 159.6 kPa, T01 420 K, p2 82.35 kPa), \
         RANS-SA, explicit CPU solver with the evaluator's default settings, budget {iterations} iterations.\n\
         Command: `TURBOPT_WRITE_DOCS=1 TURBOPT_GRID_ITERS={iterations} cargo test --release --test eval_cfd_long ls89_mur47_grid_convergence -- --ignored --nocapture`\n\n"
    );
    table += &format!("| mesh | cells | status | iterations | residual drop (orders) | {} | wall (s) |\n", names.join(" | "));
    table += &format!("|{}\n", "---|".repeat(names.len() + 6));
    for (d, cells, e) in &rows {
        let status = match &e.status {
            Status::Ok => "converged".to_string(),
            s => format!("{s:?}").split('(').next().unwrap_or("").to_string(),
        };
        let values: Vec<String> = e.objectives.iter().map(|v| format!("{v:.6}")).collect();
        table += &format!(
            "| {d} | {cells} | {status} | {} | {:.2} | {} | {:.0} |\n",
            e.diagnostics.iterations,
            e.diagnostics.residual_drop_orders,
            values.join(" | "),
            e.diagnostics.wall_s
        );
    }
    if let [.., (_, _, medium), (_, _, fine)] = rows.as_slice() {
        if medium.objectives.len() == fine.objectives.len() && !fine.objectives.is_empty() {
            let changes: Vec<String> = medium
                .objectives
                .iter()
                .zip(&fine.objectives)
                .map(|(m, f)| format!("{:.2} %", 100.0 * (f - m).abs() / f.abs().max(1e-30)))
                .collect();
            table += &format!("\nChange from the last two meshes: {}\n", changes.join(", "));
        }
    }
    if let [(_, n3, coarse), (_, n2, medium), (_, n1, fine)] = rows.as_slice() {
        table += "\nObserved order, Richardson-extrapolated value and fine-grid convergence index (Celik et al. 2008, \
                  `post::grid_convergence`; asymptotic ratio 1 in the asymptotic range):\n\n\
                  | figure | observed order | extrapolated | GCI fine | asymptotic ratio | oscillatory |\n|---|---|---|---|---|---|\n";
        for (k, name) in names.iter().enumerate() {
            let values = [coarse.objectives[k], medium.objectives[k], fine.objectives[k]];
            match turbopt::post::grid_convergence::grid_convergence(values, [*n3, *n2, *n1]) {
                Some(g) => {
                    table += &format!(
                        "| {name} | {:.2} | {:.6} | {:.2} % | {:.3} | {} |\n",
                        g.order,
                        g.extrapolated,
                        100.0 * g.gci_fine,
                        g.asymptotic_ratio,
                        if g.oscillatory { "yes" } else { "no" }
                    )
                }
                None => table += &format!("| {name} | - | - | - | - | the two finer meshes agree |\n"),
            }
        }
    }
    let out = grid_table_path();
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(&out, &table).unwrap();
    println!("{table}\n(written to {})", out.display());
    for (d, _, e) in &rows {
        assert!(e.status.is_ok(), "{d}: {:?}", e.status);
    }
    if let [.., (_, _, medium), (_, _, fine)] = rows.as_slice() {
        for ((m, f), name) in medium.objectives.iter().zip(&fine.objectives).zip(&names) {
            assert!((f - m).abs() <= 0.02 * f.abs(), "{name}: medium {m} vs fine {f}");
        }
    }
}

/// A warm start from the baseline's solution converges to the baseline's absolute residual
/// level (orders counted from the baseline's cold-start residual) in fewer iterations than a
/// cold start of the same design, and to the same objectives.
#[test]
#[ignore = "long validation: LS89 MUR47 coarse RANS, baseline + a perturbed design cold and warm (a few minutes on 2 cores)"]
fn warm_start_converges_in_fewer_iterations_than_cold() {
    let evaluator = |warm: bool| {
        let mut c = ls89_tc1(Density::Coarse, 3000);
        c.solver.convergence_orders = 5.0;
        c.warm_start = warm;
        CfdEvaluator::new(c).unwrap()
    };
    let (warm, cold) = (evaluator(true), evaluator(false));
    let mut design = warm.space().baseline.clone();
    let k = warm.space().names.iter().position(|n| n == "stagger_deg").expect("stagger_deg");
    design[k] += 0.1 * (warm.space().upper[k] - design[k]);
    let w = warm.evaluate(&design);
    let c = cold.evaluate(&design);
    println!("warm start: {} iterations, status {:?}, entropy rise {:.6e}", w.diagnostics.iterations, w.status, w.objectives[0]);
    println!("cold start: {} iterations, status {:?}, entropy rise {:.6e}", c.diagnostics.iterations, c.status, c.objectives[0]);
    assert!(w.status.is_ok() && c.status.is_ok(), "{:?} / {:?}", w.status, c.status);
    assert!(w.diagnostics.scheme.contains("warm start"), "{}", w.diagnostics.scheme);
    assert!(w.diagnostics.iterations < c.diagnostics.iterations, "warm {} vs cold {}", w.diagnostics.iterations, c.diagnostics.iterations);
    // Both stop at the same absolute residual, so the objectives agree closely.
    assert!((w.objectives[0] / c.objectives[0] - 1.0).abs() < 5e-3, "{} vs {}", w.objectives[0], c.objectives[0]);
}

/// Designs 3 and 5 of the LS89 TC1 DE campaign (optimize/ls89_tc1_de.ron, seed 1): their
/// meshes have other block sizes than the baseline's, so they used to start cold. Started from
/// the baseline's flow resampled onto their blocks (`Solution::resampled`), they converge to the
/// same absolute residual level and the same objective as the cold start.
#[test]
#[ignore = "long validation: LS89 MUR47 coarse RANS, the baseline and two designs warm and cold (several minutes on 2 cores)"]
fn resampled_warm_start_matches_the_cold_start() {
    let campaign = turbopt::optim::campaign::CampaignConfig::from_ron_file("optimize/ls89_tc1_de.ron").unwrap();
    let turbopt::optim::campaign::CampaignEvaluator::Cfd(config) = campaign.evaluator else { panic!("a CFD campaign") };
    let names = campaign.variables.expect("the campaign's variables");
    let evaluator = |warm: bool| CfdEvaluator::new(EvaluatorConfig { warm_start: warm, ..config.clone() }).unwrap();
    let (warm, cold) = (evaluator(true), evaluator(false));
    let designs: [[f64; 8]; 2] = [
        [-74.4465312286683, 0.1635294899525207, 0.1789352731769736, 0.1682462111404052, 0.1962857125504746, 0.16824401124048718, 0.0883131094582397, 0.07271817725469397],
        [-73.61471556279051, 0.1578510285256829, 0.18284318393623133, 0.15731082081734818, 0.20439761009323834, 0.15730741956148708, 0.0864069336326169, 0.05922313085222603],
    ];
    for values in designs {
        let mut design = warm.space().baseline.clone();
        for (name, v) in names.iter().zip(values) {
            let k = warm.space().names.iter().position(|n| n == name).expect("variable of the design space");
            design[k] = v;
        }
        let w = warm.evaluate(&design);
        let c = cold.evaluate(&design);
        println!(
            "warm: {:?}, {} iterations, {:.1} s, {}, entropy rise {:.6e}; cold: {:?}, {} iterations, {:.1} s, entropy rise {:.6e}",
            w.status, w.diagnostics.iterations, w.diagnostics.wall_s, w.diagnostics.scheme, w.objectives.first().copied().unwrap_or(f64::NAN),
            c.status, c.diagnostics.iterations, c.diagnostics.wall_s, c.objectives.first().copied().unwrap_or(f64::NAN)
        );
        assert!(w.diagnostics.scheme.contains("resampled"), "{}", w.diagnostics.scheme);
        assert!(w.status.is_ok() && c.status.is_ok(), "{:?} / {:?}", w.status, c.status);
        assert!((w.objectives[0] / c.objectives[0] - 1.0).abs() < 5e-3, "{} vs {}", w.objectives[0], c.objectives[0]);
    }
}
