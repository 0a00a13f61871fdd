//! The files of a solved blade, as `turbopt solve` writes them (the command, `solve_blade`'s
//! callers and the Python package write them through here): `solution.vtm` with the primitive
//! fields for ParaView, `convergence.csv` and `.png`, `mis.csv` and `.png`.

use std::io::Write;
use std::path::Path;

use super::planes::Planes;
use super::prepare::PreparedCascade;
use crate::backend::INTERMITTENCY;
use crate::error::{Error, Result};
use crate::flow::gas::Gas;
use crate::flow::solution::Solution;
use crate::mesh::vtk::write_vtk;
use crate::mesh::Mesh;
use crate::post::{plot_isentropic_mach, plot_skin_friction, rms_against_measured, MeasuredMis, MisComparison, SurfacePoint};
use crate::report::plots::plot_semilog;
use crate::solver::SolveOutcome;

/// Every file of a solve into `dir` (created when missing): the solution, its convergence
/// history and its blade-surface Mis (against `measured` taps when given, whose comparison
/// comes back).
pub fn write_solve_files(
    dir: &Path,
    blade_name: &str,
    prepared: &PreparedCascade,
    outcome: &SolveOutcome,
    surface: &[SurfacePoint],
    measured: Option<&[MeasuredMis]>,
) -> Result<Option<MisComparison>> {
    let comparison = measured.map(|taps| rms_against_measured(surface, taps));
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_solution_vtk(&dir.join("solution.vtm"), &prepared.mesh, &outcome.solution, &prepared.gas)?;
    write_history(dir, outcome)?;
    write_mis(dir, blade_name, &prepared.planes, surface, prepared.viscous, comparison.as_ref(), measured)?;
    Ok(comparison)
}

/// `solution.vtm` (and its block files): density, velocity, pressure, Mach number, nu~ and the
/// intermittency (1 outside SA-gamma) per cell.
pub fn write_solution_vtk(path: &Path, mesh: &Mesh, sol: &Solution, gas: &Gas) -> Result<()> {
    let per_block = |f: &dyn Fn(&crate::flow::solution::BlockSolution, usize) -> f64| -> Vec<Vec<f64>> {
        sol.blocks.iter().map(|b| (0..b.n_cells()).map(|c| f(b, c)).collect()).collect()
    };
    let g = gas.gamma;
    let rho = per_block(&|b, c| b.rho[c]);
    let u = per_block(&|b, c| b.rho_u[c] / b.rho[c]);
    let v = per_block(&|b, c| b.rho_v[c] / b.rho[c]);
    let p = per_block(&|b, c| b.pressure(c, g));
    let mach = per_block(&|b, c| {
        let speed2 = (b.rho_u[c].powi(2) + b.rho_v[c].powi(2)) / b.rho[c].powi(2);
        (speed2 / (g * b.pressure(c, g) / b.rho[c])).sqrt()
    });
    let nut = per_block(&|b, c| b.nu_tilde[c]);
    let gamma = per_block(&|b, c| b.intermittency_at(c));
    write_vtk(path, mesh, &[("density", &rho), ("u", &u), ("v", &v), ("pressure", &p), ("mach", &mach), ("nu_tilde", &nut), ("intermittency", &gamma)])?;
    Ok(())
}

/// `convergence.csv` (the residual norms of every iteration) and `convergence.png` in `dir`.
pub fn write_history(dir: &Path, outcome: &SolveOutcome) -> Result<()> {
    let path = dir.join("convergence.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?);
    let io = |e| Error::io(&path, e);
    writeln!(f, "iteration,wall_s,res_rho,res_rho_u,res_rho_v,res_rho_e,res_rho_nu_tilde,res_rho_gamma").map_err(io)?;
    for r in &outcome.history.records {
        let res: Vec<String> = r.residuals.iter().map(|x| format!("{x:.6e}")).collect();
        writeln!(f, "{},{:.4},{}", r.iteration, r.wall_s, res.join(",")).map_err(io)?;
    }
    f.flush().map_err(io)?;
    // rho gamma only where it is marched (SA-gamma); its residual is zero otherwise.
    let transition = outcome.history.records.iter().any(|r| r.residuals[INTERMITTENCY] != 0.0);
    let names = ["rho", "rho u", "rho v", "rho E", "rho nu~", "rho gamma"];
    let series: Vec<(&str, Vec<(f64, f64)>)> = names
        .iter()
        .take(if transition { names.len() } else { INTERMITTENCY })
        .enumerate()
        .map(|(k, n)| (*n, outcome.history.records.iter().map(|r| (r.iteration as f64, r.residuals[k])).collect()))
        .collect();
    plot_semilog(&dir.join("convergence.png"), "residual (RMS of R/V)", "iteration", &series)
}

/// `mis.csv` (along both sides of the blade: isentropic Mach number, skin friction tau_w /
/// (P01 - p2) and the layer's largest mu_t / mu) and `mis.png` (with the measured taps when
/// given) and, for a viscous flow, `cf.png` in `dir`.
pub fn write_mis(dir: &Path, blade_name: &str, planes: &Planes, surface: &[SurfacePoint], viscous: bool, cmp: Option<&MisComparison>, taps: Option<&[MeasuredMis]>) -> Result<()> {
    let path = dir.join("mis.csv");
    let mut text = String::from("side,x_mm,x_over_axial_chord,y_mm,p_pa,mis,cf,mut_over_mu\n");
    for p in surface {
        text += &format!(
            "{},{:.5},{:.6},{:.5},{:.3},{:.6},{:.6e},{:.4}\n",
            p.side.label(),
            p.x_from_le * 1e3,
            p.x_from_le / planes.axial_chord,
            p.y * 1e3,
            p.p,
            p.mis,
            p.cf,
            p.eddy_viscosity_ratio
        );
    }
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    let title = match cmp {
        Some(c) => format!("{blade_name}: isentropic Mach number (RMS vs experiment {:.4})", c.rms),
        None => format!("{blade_name}: isentropic Mach number"),
    };
    plot_isentropic_mach(&dir.join("mis.png"), &title, planes.axial_chord, &[("computed", surface)], taps)?;
    if viscous {
        plot_skin_friction(&dir.join("cf.png"), &format!("{blade_name}: skin friction"), planes.axial_chord, surface)?;
    }
    Ok(())
}
