//! Cascade mesh generator: LS89 (blades/ls89.ron) and the T106C blade (blades/t106c.ron) at the three
//! densities, checked with the mesh quality report (`mesh::quality`).

use std::time::Instant;
use turbopt::geometry::{load_blade_file, Outline};
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::quality::{QualityBounds, QualityReport};
use turbopt::mesh::{Density, Face, Mesh};

fn ls89_outline() -> Outline {
    load_blade_file("blades/ls89.ron").expect("blades/ls89.ron").outline().expect("LS89 outline")
}

/// LS89 with the passage the CLI builds for it (see `spec_from_file`).
fn ls89_spec(density: Density) -> PassageSpec {
    spec_from_file("blades/ls89.ron", density)
}

/// The passage `turbopt mesh` builds for a blade file (`mesh::passage::passage_spec`: domain
/// planes from the cascade, first cell for y+ = 1 at the first operating point, exit-angle hint
/// from the trailing-edge camber).
fn spec_from_file(path: &str, density: Density) -> PassageSpec {
    let blade = load_blade_file(path).expect(path);
    let outline = blade.outline().expect("outline");
    let op = blade.operating_points.first().expect("operating point");
    turbopt::mesh::passage::passage_spec(&blade, &blade.cascade, &outline, op, density).expect("passage spec")
}

/// The T106C blade of blades/t106c.ron.
fn t106c_outline() -> Outline {
    load_blade_file("blades/t106c.ron").expect("blades/t106c.ron").outline().expect("T106C outline")
}

fn t106c_spec(density: Density) -> PassageSpec {
    spec_from_file("blades/t106c.ron", density)
}

/// Every cell on every block face lies in exactly one patch.
fn check_patch_cover(m: &Mesh) {
    for blk in &m.blocks {
        for face in Face::ALL {
            let mut count = vec![0usize; blk.face_len(face)];
            for p in blk.patches.iter().filter(|p| p.face == face) {
                for c in &mut count[p.start..p.end] {
                    *c += 1;
                }
            }
            assert!(count.iter().all(|&c| c == 1), "block {} face {face:?}: cover {count:?}", blk.name);
        }
    }
}

fn run(name: &str, outline: &Outline, spec: &PassageSpec) -> (Mesh, QualityReport, f64) {
    let t0 = Instant::now();
    let mesh = generate_cascade_mesh(outline, spec).unwrap_or_else(|e| panic!("{name}: {e}"));
    let secs = t0.elapsed().as_secs_f64();
    if let Ok(dir) = std::env::var("MESHGEN_DUMP") {
        let path = format!("{dir}/{name}_{:?}.json", spec.density);
        std::fs::write(&path, serde_json::to_string(&mesh).unwrap()).unwrap();
    }
    check_patch_cover(&mesh);
    for blk in &mesh.blocks {
        assert!(blk.ni % 8 == 0 && blk.nj % 8 == 0, "{name}: block {} is {}x{}", blk.name, blk.ni, blk.nj);
    }
    // Block sizes divisible by 2^3 and patches aligned: three coarser multigrid levels.
    turbopt::mesh::coarsen::coarsen_levels(&mesh, 4).unwrap_or_else(|e| panic!("{name}: {e}"));
    let metrics = MeshMetrics::new(&mesh).unwrap_or_else(|e| panic!("{name}: metrics: {e}"));
    let q = QualityReport::new(&mesh, &metrics).unwrap_or_else(|e| panic!("{name}: quality: {e}"));
    println!("{name} {:?}: {} cells in {:.3} s, blocks {:?}\n{q}", spec.density, mesh.n_cells(), secs,
        mesh.blocks.iter().map(|b| (b.name.clone(), b.ni, b.nj)).collect::<Vec<_>>());
    (mesh, q, secs)
}

fn assert_valid(name: &str, q: &QualityReport, pitch: f64) {
    assert_eq!(q.non_positive_volumes, 0, "{name}: folded cells");
    assert!(q.max_periodic_mismatch.unwrap() <= 1e-12 * pitch, "{name}: periodic mismatch {:?}", q.max_periodic_mismatch);
    assert!(q.max_one_to_one_mismatch.unwrap() <= 1e-12 * pitch, "{name}: 1-to-1 mismatch {:?}", q.max_one_to_one_mismatch);
    assert!(q.min_wall_orthogonality_deg.unwrap() >= 85.0, "{name}: wall orthogonality {:?}", q.min_wall_orthogonality_deg);
}

fn all_densities(name: &str, outline: &Outline, spec: impl Fn(Density) -> PassageSpec) -> Vec<(QualityReport, f64, f64)> {
    [Density::Coarse, Density::Medium, Density::Fine]
        .into_iter()
        .map(|d| {
            let spec = spec(d);
            let (_, q, secs) = run(name, outline, &spec);
            (q, spec.pitch, secs)
        })
        .collect()
}

/// Valid meshes: positive volumes, periodic and 1-to-1 faces matching to round-off, wall cells
/// orthogonal within 5 degrees, multigrid-friendly block sizes, every face cell in one patch;
/// and the shipped blades' meshes within every quality bound at each density.
#[test]
fn ls89_meshes_are_valid() {
    for (q, pitch, _) in all_densities("LS89", &ls89_outline(), ls89_spec) {
        assert_valid("LS89", &q, pitch);
        assert_eq!(q.violations(&QualityBounds::default()), Vec::<String>::new(), "LS89");
    }
}

#[test]
fn t106c_meshes_are_valid() {
    for (q, pitch, _) in all_densities("T106C", &t106c_outline(), t106c_spec) {
        assert_valid("T106C", &q, pitch);
        assert_eq!(q.violations(&QualityBounds::default()), Vec::<String>::new(), "T106C");
    }
}

/// The mesh of a blade is the same to the last bit on one thread and on three (every parallel
/// step of the mesher computes each node on its own and writes it in a fixed order; the sums
/// of the smoother's mixing are taken chunk by chunk in a fixed order).
#[test]
fn meshes_are_the_same_on_any_number_of_threads() {
    let (outline, spec) = (t106c_outline(), t106c_spec(Density::Coarse));
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("thread pool");
        pool.install(|| generate_cascade_mesh(&outline, &spec).expect("mesh"))
    };
    let (one, three) = (on(1), on(3));
    for (a, b) in one.blocks.iter().zip(&three.blocks) {
        assert!(a.x == b.x && a.y == b.y, "block {} differs", a.name);
    }
}

/// First wall cells at y+ <= 1 (estimated by `QualityReport::estimate_yplus` at the blade
/// file's first operating point, as `turbopt mesh` reports it).
#[test]
fn first_cell_yplus_at_most_one() {
    for path in ["blades/ls89.ron", "blades/t106c.ron"] {
        let blade = load_blade_file(path).expect(path);
        let outline = blade.outline().expect("outline");
        let op = blade.operating_points.first().expect("operating point");
        let spec = spec_from_file(path, Density::Coarse);
        let mesh = generate_cascade_mesh(&outline, &spec).unwrap_or_else(|e| panic!("{path}: {e}"));
        let metrics = MeshMetrics::new(&mesh).unwrap();
        let mut q = QualityReport::new(&mesh, &metrics).unwrap();
        q.estimate_yplus(op, &blade.gas, blade.cascade.chord).unwrap();
        let yplus = q.first_cell_yplus_estimate.unwrap();
        println!("{path}: first cell {:e} m, y+ {yplus:.4}", spec.first_cell_height);
        assert!(yplus <= 1.0, "{path}: y+ {yplus}");
    }
}

/// Smooth meshes: neighbouring cells (across block interfaces too) differ by at most the
/// quality bound's growth ratio (1.3 away from the block corners, 1.5 at them), and by at most
/// 1000 in area; the coarse meshes, which the campaigns run on, are within every bound. The
/// skewness of the medium and fine meshes is printed with the report (their figures against
/// the bounds are in BENCHMARKS.md).
#[test]
fn growth_ratio_and_area_ratio_within_bounds() {
    let bounds = turbopt::mesh::quality::QualityBounds::default();
    let densities = [Density::Coarse, Density::Medium, Density::Fine];
    for (name, reports) in [("LS89", all_densities("LS89", &ls89_outline(), ls89_spec)), ("T106C", all_densities("T106C", &t106c_outline(), t106c_spec))] {
        for (density, (q, _, _)) in densities.iter().zip(&reports) {
            let away = q.max_growth_ratio_away_from_corners;
            assert!(away <= bounds.max_growth_ratio, "{name} {density:?}: growth ratio {away} at {:?}", q.worst.max_growth_ratio_away_from_corners);
            let corner = q.max_growth_ratio;
            assert!(corner <= bounds.max_growth_ratio_at_corners, "{name} {density:?}: growth ratio {corner} at a block corner at {:?}", q.worst.max_growth_ratio);
            assert!(q.max_volume_ratio <= bounds.max_volume_ratio, "{name} {density:?}: area ratio {}", q.max_volume_ratio);
            if *density == Density::Coarse {
                assert!(q.violations(&bounds).is_empty(), "{name} coarse: {:?}", q.violations(&bounds));
            }
            println!("{name} {density:?}: skewness {:.3}, growth at block corners {:.3}: {:?}", q.max_skewness, q.max_growth_ratio, q.violations(&bounds));
        }
    }
}

/// The three densities keep the sizes the solver's timings and grid studies are quoted for:
/// within 20 % of 16,128 / 39,040 / 169,344 cells for LS89 and 14,848 / 34,304 / 161,664 for
/// T106C.
#[test]
fn cell_counts_near_the_reference_sizes() {
    let reference = [("LS89", [16_128, 39_040, 169_344]), ("T106C", [14_848, 34_304, 161_664])];
    for (name, counts) in reference {
        let (outline, spec): (Outline, fn(Density) -> PassageSpec) = if name == "LS89" { (ls89_outline(), ls89_spec) } else { (t106c_outline(), t106c_spec) };
        for (density, want) in [Density::Coarse, Density::Medium, Density::Fine].into_iter().zip(counts) {
            let cells = generate_cascade_mesh(&outline, &spec(density)).unwrap().n_cells();
            let off = cells as f64 / want as f64 - 1.0;
            println!("{name} {density:?}: {cells} cells ({:+.1} % of {want})", 100.0 * off);
            assert!(off.abs() <= 0.2, "{name} {density:?}: {cells} cells, {:+.1} % of {want}", 100.0 * off);
        }
    }
}

/// Bad input gets a typed error naming the problem, never a panic.
#[test]
fn bad_input_is_a_mesh_error() {
    let outline = ls89_outline();
    let good = ls89_spec(Density::Coarse);
    let cases = [
        ("negative pitch", PassageSpec { pitch: -0.05, ..good.clone() }),
        ("first cell too tall", PassageSpec { first_cell_height: 1e-3, ..good.clone() }),
        ("inlet inside the blade", PassageSpec { inlet_x: 0.01, ..good.clone() }),
        ("NaN outlet", PassageSpec { outlet_x: f64::NAN, ..good.clone() }),
        ("pitch smaller than the blade", PassageSpec { pitch: 0.005, ..good.clone() }),
    ];
    for (what, spec) in cases {
        match generate_cascade_mesh(&outline, &spec) {
            Err(turbopt::Error::Mesh(reason)) => println!("{what}: {reason}"),
            other => panic!("{what}: expected Error::Mesh, got {:?}", other.map(|m| m.n_cells())),
        }
    }
    let tiny = Outline { points: vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], trailing_edge: 1 };
    assert!(matches!(generate_cascade_mesh(&tiny, &good), Err(turbopt::Error::Mesh(_))));
}
