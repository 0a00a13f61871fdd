//! `turbopt import`: a blade of one's own from its coordinates (`turbopt::geometry::import`):
//! the report of what was read off it, the fitted design parameterization, the blade file and
//! a picture of the fit over the points.

use super::args::{ImportArgs, UnitsArg};
use std::path::{Path, PathBuf};
use std::time::Instant;
use turbopt::flow::case::{exit_pressure, OperatingPoint, DEFAULT_NU_TILDE_RATIO};
use turbopt::flow::gas::Gas;
use turbopt::geometry::{import_blade, read_profile, ImportReport, ImportSettings, SolvedShape, Units};
use turbopt::cascade::MeshCheck;
use turbopt::report::{report_json, write_import};
use turbopt::{Error, Result};

pub fn run(args: &ImportArgs) -> Result<()> {
    let start = Instant::now();
    let settings = settings(args)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}.ron", settings.name)));
    if out.exists() && !args.overwrite {
        return Err(Error::Invalid(format!("{} exists: give another --out, or --overwrite to replace it", out.display())));
    }
    let paths: Vec<&Path> = std::iter::once(args.coordinates.as_path()).chain(args.other_side.as_deref()).collect();
    let profile = read_profile(&paths)?;
    eprintln!("read {} rows from {}; fitting the design parameterization (four first guesses) ...", profile.sections.iter().map(Vec::len).sum::<usize>(), profile.origin);
    let imported = import_blade(&profile, &settings)?;
    let report = &imported.report;
    eprintln!("meshing the blade file (coarse) ...");
    let check = MeshCheck::of(&imported.blade).map_err(|e| Error::Mesh(format!("the imported blade does not mesh: {e}")))?;
    let checks = serde_json::to_value(&check).map_err(|e| Error::Other(e.to_string()))?;
    let files = write_import(&imported, &settings, &out, args.overwrite, &command_line(), &checks)?;
    let (picture_path, report_path) = (files.picture, files.report);
    let json = serde_json::to_string(&report_json(&imported, &checks)?).map_err(|e| Error::Other(e.to_string()))?;

    print_report(&settings.name, report);
    print_mesh_check(&check);
    println!(
        "wrote {} (blade file), {} (the fit over the points), {} in {:.1} s",
        out.display(),
        picture_path.display(),
        report_path.display(),
        start.elapsed().as_secs_f64()
    );
    println!("next: turbopt solve {} --case {} --density coarse", out.display(), settings.operating_points[0].name);
    if args.json {
        println!("{json}");
    }
    Ok(())
}

/// The import settings of the command line, lengths in metres.
fn settings(args: &ImportArgs) -> Result<ImportSettings> {
    let units = match args.units {
        UnitsArg::M => Units::Metres,
        UnitsArg::Mm => Units::Millimetres,
        UnitsArg::In => Units::Inches,
        UnitsArg::Chord => Units::Chord(args.chord.ok_or_else(|| Error::Invalid("--units chord needs --chord, the chord in metres".into()))?),
    };
    let positive = |name: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(v)
        } else {
            Err(Error::Invalid(format!("{name} must be a positive number, got {v}")))
        }
    };
    let name = match &args.name {
        Some(n) => n.clone(),
        None => args.coordinates.file_stem().map_or_else(|| "blade".into(), |s| s.to_string_lossy().into_owned()),
    };
    let mut settings = ImportSettings::in_file_units(name, units, args.pitch, args.chord)?;
    if args.points.is_empty() {
        return Err(Error::Invalid("give at least one operating point: --point NAME:p01=PA,t01=K,alpha1=DEG,p2=PA (or m2is=MACH for p2)".into()));
    }
    settings.operating_points = args.points.iter().map(|p| parse_point(p, &settings.gas)).collect::<Result<_>>()?;
    settings.mirror = args.mirror;
    settings.description = args.description.clone();
    settings.rotate_deg = args.rotate;
    settings.fit_tolerance_percent = positive("--fit-tolerance", args.fit_tolerance)?;
    settings.force = args.force;
    settings.shape = if args.solve_points { SolvedShape::Points } else { SolvedShape::Fitted };
    settings.camber_points = args.camber_points;
    settings.thickness_points = args.thickness_points;
    settings.inlet_axial_chords = positive("--inlet-length", args.inlet_length)?;
    settings.outlet_axial_chords = positive("--outlet-length", args.outlet_length)?;
    Ok(settings)
}

/// `NAME:p01=..,t01=..,alpha1=..,p2=..` (or `m2is=..` for p2) with an optional `nu_tilde_ratio`
/// and `turbulence_intensity` (a fraction, for `model: sa_bcm` and `sa_gamma`).
fn parse_point(spec: &str, gas: &Gas) -> Result<OperatingPoint> {
    let bad = |why: String| Error::Invalid(format!("--point {spec:?}: {why} (expected NAME:p01=PA,t01=K,alpha1=DEG,p2=PA or m2is=MACH)"));
    let (name, values) = spec.split_once(':').ok_or_else(|| bad("no NAME: before the values".into()))?;
    if name.trim().is_empty() {
        return Err(bad("an empty name".into()));
    }
    let mut get = std::collections::BTreeMap::new();
    for item in values.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (key, value) = item.split_once('=').ok_or_else(|| bad(format!("{item:?} is not key=value")))?;
        let value: f64 = value.trim().parse().map_err(|_| bad(format!("{:?} is not a number", value.trim())))?;
        if !matches!(key.trim(), "p01" | "t01" | "alpha1" | "p2" | "m2is" | "nu_tilde_ratio" | "turbulence_intensity") {
            return Err(bad(format!("unknown key {:?}", key.trim())));
        }
        get.insert(key.trim().to_string(), value);
    }
    let need = |key: &str| get.get(key).copied().ok_or_else(|| bad(format!("{key} is missing")));
    let (p01, t01, alpha1_deg) = (need("p01")?, need("t01")?, need("alpha1")?);
    let p2 = exit_pressure(p01, get.get("p2").copied(), get.get("m2is").copied(), gas.gamma).map_err(bad)?;
    let nu_tilde_ratio = get.get("nu_tilde_ratio").copied().unwrap_or(DEFAULT_NU_TILDE_RATIO);
    Ok(OperatingPoint { name: name.trim().to_string(), p01, t01, alpha1_deg, p2, nu_tilde_ratio, turbulence_intensity: get.get("turbulence_intensity").copied() })
}

/// The command line as typed, quoted where a shell would need it.
fn command_line() -> String {
    let quoted = std::env::args().skip(1).map(|a| if a.contains([' ', ',', ':']) { format!("'{a}'") } else { a });
    std::iter::once("turbopt".to_string()).chain(quoted).collect::<Vec<_>>().join(" ")
}

fn print_report(name: &str, r: &ImportReport) {
    let mm = |v: f64| v * 1e3;
    println!("{name}: {} points from {}", r.points, r.origin);
    if r.reordered {
        println!("  points put in contour order (the file does not list them round the profile)");
    }
    if r.closing_gap > 0.0 {
        println!("  closed across a gap of {:.3} mm between the ends of the points", mm(r.closing_gap));
    }
    println!("  chord {:.3} mm, axial chord {:.3} mm, pitch {:.3} mm (pitch/chord {:.4})", mm(r.chord), mm(r.axial_chord), mm(r.pitch), r.pitch / r.chord);
    println!(
        "  leading edge at ({:.3}, {:.3}) mm, radius {:.3} mm; trailing edge at ({:.3}, {:.3}) mm, radius {:.3} mm",
        mm(r.leading_edge[0]),
        mm(r.leading_edge[1]),
        mm(r.leading_edge_radius),
        mm(r.trailing_edge[0]),
        mm(r.trailing_edge[1]),
        mm(r.trailing_edge_radius)
    );
    println!(
        "  stagger {:.2} deg, metal angles {:.2} deg in, {:.2} deg out (from axial, positive towards +y)",
        r.stagger_deg, r.inlet_metal_angle_deg, r.exit_metal_angle_deg
    );
    println!("  throat {:.3} mm (throat/pitch {:.4}, acos {:.2} deg)", mm(r.throat), r.throat / r.pitch, r.throat_angle_deg);
    let verdict = if r.within_tolerance {
        "within".to_string()
    } else {
        format!("OUTSIDE (written because of --force; worst at ({:.3}, {:.3}) mm)", mm(r.fit_worst_at[0]), mm(r.fit_worst_at[1]))
    };
    println!(
        "  fit: {:.4} % RMS, {:.4} % max of the chord ({:.4} mm), {} the tolerance of {} %, {} iterations",
        r.fit_rms_percent_chord,
        r.fit_max_percent_chord,
        r.fit_max_percent_chord * r.chord * 10.0,
        verdict,
        r.fit_tolerance_percent_chord,
        r.fit_iterations
    );
}

fn print_mesh_check(c: &MeshCheck) {
    let q = &c.mesh;
    println!(
        "  coarse mesh: {} cells, skewness {:.3}, growth {:.3} ({:.3} at block corners), wall orthogonality {:.1} deg, area ratio {:.1}",
        q.cells, q.max_skewness, q.max_growth_ratio, q.max_growth_ratio_at_corners, q.min_wall_orthogonality_deg, q.max_volume_ratio
    );
    if c.mesh_outside_bounds.is_empty() {
        println!("  within the mesh quality bounds");
    }
    for v in &c.mesh_outside_bounds {
        println!("  outside the mesh quality bounds: {v}");
    }
}
