//! Cascade mesh generator: LS89 (blades/ls89.ron) and the T106C-class blade (blades/t106c.ron) at the three
//! densities, checked with the mesh quality report (`mesh::quality`).

use std::time::Instant;
use turbopt::geometry::{load_blade_file, Outline};
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::quality::QualityReport;
use turbopt::mesh::{Density, Face, Mesh};

type P2 = [f64; 2];

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

/// The T106C-class blade of blades/t106c.ron.
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
/// orthogonal within 5 degrees, multigrid-friendly block sizes, every face cell in one patch.
#[test]
fn ls89_meshes_are_valid() {
    for (q, pitch, _) in all_densities("LS89", &ls89_outline(), ls89_spec) {
        assert_valid("LS89", &q, pitch);
    }
}

#[test]
fn t106c_meshes_are_valid() {
    for (q, pitch, _) in all_densities("T106C", &t106c_outline(), t106c_spec) {
        assert_valid("T106C", &q, pitch);
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

/// The smoothness target: growth ratio <= 1.25 everywhere, across block interfaces too.
#[test]
fn growth_ratio_target() {
    for (name, q) in all_densities("LS89", &ls89_outline(), ls89_spec)
        .into_iter()
        .map(|r| ("LS89", r.0))
        .chain(all_densities("T106C", &t106c_outline(), t106c_spec).into_iter().map(|r| ("T106C", r.0)))
    {
        assert!(q.max_growth_ratio <= 1.25, "{name}: growth ratio {} at {:?}", q.max_growth_ratio, q.worst.max_growth_ratio);
    }
}

/// The medium mesh in under 10 s on one core (the test profile is optimized).
#[test]
#[ignore = "benchmark: medium LS89 and T106C mesh generation under 10 s of CPU time each (depends on the machine)"]
fn medium_mesh_generation_time() {
    // Issue 2 asks for under 10 s on one core. The mesher runs on the calling thread, so its CPU
    // time is that figure, also when parallel tests share the cores (the wall time is printed).
    for (name, outline, spec) in [("LS89", ls89_outline(), ls89_spec(Density::Medium)), ("T106C", t106c_outline(), t106c_spec(Density::Medium))] {
        let (t0, cpu0) = (Instant::now(), thread_cpu_seconds());
        let mesh = generate_cascade_mesh(&outline, &spec).unwrap();
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), thread_cpu_seconds().map(|c| c - cpu0.unwrap_or(0.0)));
        let secs = cpu.unwrap_or(wall);
        println!("{name} medium: {} cells in {secs:.2} s of thread CPU time ({wall:.2} s wall)", mesh.n_cells());
        assert!(secs < 10.0, "{name}: {secs} s");
    }
}

/// CPU time (user + system) of the calling thread in seconds, from /proc/thread-self/stat
/// (Linux); `None` elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let after = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    // Fields 14 and 15 of stat (utime, stime) are 12 and 13 after the ')' (state is the 1st).
    let ticks: f64 = f.get(11..13)?.iter().map(|x| x.parse::<f64>().ok()).sum::<Option<f64>>()?;
    Some(ticks / 100.0)
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

/// Extents (i, j) and min corner angle of cell (i, j), measured as `mesh::quality` does.
fn cell_measures(b: &turbopt::mesh::Block, i: usize, j: usize) -> (f64, f64, f64) {
    let p = |i: usize, j: usize| {
        let n = b.node(i, j);
        [b.x[n], b.y[n]]
    };
    let (a, bb, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
    let l = |u: P2, v: P2| (u[0] - v[0]).hypot(u[1] - v[1]);
    let ang = |u: P2, o: P2, v: P2| {
        let (x, y) = ([u[0] - o[0], u[1] - o[1]], [v[0] - o[0], v[1] - o[1]]);
        let t = (x[0] * y[1] - x[1] * y[0]).abs().atan2(x[0] * y[0] + x[1] * y[1]).to_degrees();
        t.min(180.0 - t)
    };
    let m = ang(bb, a, d).min(ang(c, bb, a)).min(ang(d, c, bb)).min(ang(a, d, c));
    (0.5 * (l(bb, a) + l(c, d)), 0.5 * (l(d, a) + l(c, bb)), m)
}

/// Where the growth ratio exceeds 1.25 and cells are below 20 deg (diagnostic listing).
fn hotspots(name: &str, mesh: &Mesh) {
    use turbopt::mesh::connect::{donor_offset, inner_cell};
    use turbopt::mesh::BoundaryKind;
    let r = |a: f64, b: f64| a.max(b) / a.min(b);
    for blk in &mesh.blocks {
        let (mut worst, mut n_bad, mut n_skew, mut min_ang) = ((1.0, 0, 0, 'x'), 0, 0, (90.0f64, 0, 0));
        for j in 0..blk.nj {
            for i in 0..blk.ni {
                let (ei, ej, ang) = cell_measures(blk, i, j);
                if ang < 20.0 { n_skew += 1; }
                if ang < min_ang.0 { min_ang = (ang, i, j); }
                if i + 1 < blk.ni {
                    let g = r(ei, cell_measures(blk, i + 1, j).0);
                    if g > 1.25 { n_bad += 1; }
                    if g > worst.0 { worst = (g, i, j, 'i'); }
                }
                if j + 1 < blk.nj {
                    let g = r(ej, cell_measures(blk, i, j + 1).1);
                    if g > 1.25 { n_bad += 1; }
                    if g > worst.0 { worst = (g, i, j, 'j'); }
                }
            }
        }
        println!("{name} {}: {}x{} interior growth max {:.3} at {:?}, {} pairs > 1.25; min angle {:.1} at ({}, {}), {} cells < 20 deg",
            blk.name, blk.ni, blk.nj, worst.0, (worst.1, worst.2, worst.3), n_bad, min_ang.0, min_ang.1, min_ang.2, n_skew);
    }
    let o = &mesh.blocks[0];
    for patch in o.patches.iter().filter(|p| p.face == Face::JMax) {
        // Outer O-grid cells either side of each arc split: along-arc / layer extents.
        let k = patch.start;
        let row: Vec<String> = (k.saturating_sub(2)..(k + 2).min(o.ni)).map(|i| {
            let (ei, ej, _) = cell_measures(o, i, o.nj - 1);
            format!("{i}: {ei:.2e}/{ej:.2e}")
        }).collect();
        println!("{name} O split at {k}: outer cells {row:?}");
    }
    for (bi, blk) in mesh.blocks.iter().enumerate() {
        for patch in &blk.patches {
            let BoundaryKind::Interface(conn) = &patch.kind else { continue };
            let donor = &mesh.blocks[conn.donor_block];
            let (mut worst, mut n_bad) = ((1.0, 0), 0);
            for f in patch.start..patch.end {
                let here = inner_cell(blk, bi, patch.face, f, 1);
                let there = inner_cell(donor, conn.donor_block, conn.donor_face, donor_offset(patch, conn, f), 1);
                let e = |b: &turbopt::mesh::Block, face: Face, c: turbopt::mesh::connect::CellRef| {
                    let (ei, ej, _) = cell_measures(b, c.i as usize, c.j as usize);
                    if matches!(face, Face::IMin | Face::IMax) { ei } else { ej }
                };
                let g = r(e(blk, patch.face, here), e(donor, conn.donor_face, there));
                if g > 1.25 { n_bad += 1; }
                if g > worst.0 { worst = (g, f); }
            }
            if worst.0 > 1.25 {
                println!("{name} {} {:?}[{}..{}] -> {}: max {:.3} at face cell {}, {} cells > 1.25",
                    blk.name, patch.face, patch.start, patch.end, donor.name, worst.0, worst.1, n_bad);
            }
        }
    }
}

/// Diagnostic: lists growth-ratio and cell-angle hot spots per block and interface.
#[test]
#[ignore = "diagnostic listing, no assertion beyond validity"]
fn quality_hotspots() {
    let which = std::env::var("HOT").unwrap_or_default();
    for d in [Density::Coarse, Density::Medium, Density::Fine] {
        if !which.is_empty() && !which.contains(&format!("{d:?}")) { continue; }
        for (name, outline, spec) in [("LS89", ls89_outline(), ls89_spec(d)), ("T106C", t106c_outline(), t106c_spec(d))] {
            let (mesh, _, _) = run(name, &outline, &spec);
            hotspots(name, &mesh);
        }
    }
}
