//! `turbopt mesh`: generate, check and write the mesh of a cascade passage.

use super::args::MeshArgs;
use turbopt::geometry::blade_file::load_blade_file;
use turbopt::cascade::{BladeChoice, CascadeSetup, PreparedCascade};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::picture::{write_mesh_picture, PictureOptions};
use turbopt::mesh::plot3d::{write_plot3d, Plot3dFormat};
use turbopt::mesh::quality::{QualityBounds, QualityReport};
use turbopt::mesh::su2::write_su2;
use turbopt::mesh::vtk::write_vtk;
use turbopt::{Error, Result};
use std::time::Instant;

pub fn run(args: &MeshArgs) -> Result<()> {
    let start = Instant::now();
    let blade = load_blade_file(&args.blade)?;
    let op = super::args::operating_point(&blade, &args.blade, args.case.as_deref())?;
    // The passage and mesh that `turbopt solve` and the evaluator build (`turbopt::cascade`).
    let setup = CascadeSetup::new(&blade, vec![op.clone()], args.density);
    let choice = args.design.as_deref().map_or(BladeChoice::Main, BladeChoice::Design);
    let PreparedCascade { section, spec, mesh, .. } = PreparedCascade::new(&blade, choice, &setup).map_err(Error::from)?;
    let outline = section.outline;
    let generated_s = start.elapsed().as_secs_f64();
    let metrics = MeshMetrics::new(&mesh)?;
    let mut report = QualityReport::new(&mesh, &metrics)?;
    report.estimate_yplus(&op, &blade.gas, blade.cascade.chord)?;

    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(&args.out, e))?;
    let stem = format!("{}_{}", blade.name.to_lowercase(), args.density.name());
    let path = |ext: &str| args.out.join(format!("{stem}.{ext}"));
    write_plot3d(path("xyz"), &mesh, Plot3dFormat::Ascii)?;
    let vtk = write_vtk(path("vtm"), &mesh, &[])?;
    write_su2(path("su2"), &mesh)?;
    let title = format!("{} {:?} mesh: {} cells in {} blocks", blade.name, args.density, report.cells, report.blocks);
    write_mesh_picture(path("png"), &mesh, Some(&outline), &PictureOptions { title, ..PictureOptions::default() })?;
    let json = serde_json::to_string(&report).map_err(|e| Error::Other(e.to_string()))?;
    std::fs::write(path("quality.json"), &json).map_err(|e| Error::io(path("quality.json"), e))?;

    println!("{} ({}), {:?} density, operating point {}", blade.name, args.blade.display(), args.density, op.name);
    println!("first cell height {:.3e} m (y+ = 1 target), generated in {generated_s:.2} s", spec.first_cell_height);
    println!("{report}");
    let bounds = QualityBounds::default();
    let violations = report.violations(&bounds);
    if violations.is_empty() {
        println!(
            "  within the quality bounds: skewness <= {}, growth <= {} ({} at block corners), wall orthogonality >= {} deg, area ratio <= {}",
            bounds.max_skewness, bounds.max_growth_ratio, bounds.max_growth_ratio_at_corners, bounds.min_wall_orthogonality_deg, bounds.max_volume_ratio
        );
    } else {
        for v in &violations {
            println!("  outside the quality bounds: {v}");
        }
    }
    println!("wrote {} (.xyz Plot3D, {} VTK, .su2, .png, .quality.json)", args.out.join(&stem).display(), vtk.display());
    if args.json {
        let mut value: serde_json::Value = serde_json::from_str(&json).map_err(|e| Error::Other(e.to_string()))?;
        value["generation_s"] = generated_s.into();
        value["periodic_mismatch"] = report.max_periodic_mismatch.unwrap_or(0.0).into();
        value["pitch"] = blade.cascade.pitch.into();
        value["within_bounds"] = violations.is_empty().into();
        value["violations"] = violations.into();
        println!("{value}");
    }
    Ok(())
}
