//! Where the cascade meshes of `blades/ls89.ron` and `blades/t106c.ron` come closest to the
//! mesher's quality limits: per block, the largest growth ratio between neighbouring cells and
//! the pairs above 1.25, the smallest cell angle and the cells below 20 degrees; the outer O-grid
//! cells either side of each split of its arc; and the block interfaces where the cell size
//! jumps by more than 1.25. The quality report of each mesh (`mesh::quality`) comes first.
//!
//! `cargo run --release --example mesh_hotspots [coarse|medium|fine ...]` (default: all three
//! densities).

use turbopt::geometry::{load_blade_file, Outline};
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::quality::QualityReport;
use turbopt::mesh::{Density, Face, Mesh};

type P2 = [f64; 2];

/// The blade's outline and the passage `turbopt mesh` builds for it (`mesh::passage::passage_spec`:
/// domain planes from the cascade, first cell for y+ = 1 at the first operating point, exit-angle
/// hint from the trailing-edge camber).
fn blade(path: &str, density: Density) -> (Outline, PassageSpec) {
    let blade = load_blade_file(path).expect(path);
    let outline = blade.outline().expect("outline");
    let op = blade.operating_points.first().expect("operating point");
    let spec = turbopt::mesh::passage::passage_spec(&blade, &blade.cascade, &outline, op, density).expect("passage spec");
    (outline, spec)
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

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).map(|a| a.to_lowercase()).collect();
    for d in [Density::Coarse, Density::Medium, Density::Fine] {
        if !wanted.is_empty() && !wanted.contains(&format!("{d:?}").to_lowercase()) {
            continue;
        }
        for (name, path) in [("LS89", concat!(env!("CARGO_MANIFEST_DIR"), "/blades/ls89.ron")), ("T106C", concat!(env!("CARGO_MANIFEST_DIR"), "/blades/t106c.ron"))] {
            let (outline, spec) = blade(path, d);
            let mesh = generate_cascade_mesh(&outline, &spec).unwrap_or_else(|e| panic!("{name}: {e}"));
            let metrics = MeshMetrics::new(&mesh).unwrap_or_else(|e| panic!("{name}: metrics: {e}"));
            let q = QualityReport::new(&mesh, &metrics).unwrap_or_else(|e| panic!("{name}: quality: {e}"));
            println!("{name} {d:?}: {} cells, blocks {:?}\n{q}", mesh.n_cells(), mesh.blocks.iter().map(|b| (b.name.clone(), b.ni, b.nj)).collect::<Vec<_>>());
            hotspots(name, &mesh);
        }
    }
}
