//! Cascade mesh generator: LS89 and a T106C-class blade at the three densities.
//!
//! The mesh-quality measures here are a temporary check until the `meshio` branch's quality
//! report lands (then these tests will call it instead).

use std::time::Instant;
use turbopt::geometry::Outline;
use turbopt::mesh::generate::{generate_cascade_mesh, PassageSpec};
use turbopt::mesh::{BoundaryKind, Density, Face, Mesh};

type P2 = [f64; 2];

fn bezier(ctrl: &[P2], t: f64) -> P2 {
    let mut p = ctrl.to_vec();
    for k in (1..p.len()).rev() {
        for i in 0..k {
            p[i] = [(1.0 - t) * p[i][0] + t * p[i + 1][0], (1.0 - t) * p[i][1] + t * p[i + 1][1]];
        }
    }
    p[0]
}

/// LS89 from the published Bezier control points (Mueller & Verstraete 2016) and the
/// trailing-edge circle of geometry.csv; metres, leading edge at the origin.
fn ls89_outline() -> Outline {
    let text = std::fs::read_to_string("../shared/data/ls89/bezier_control_points_mm.csv").expect("LS89 control points");
    let (mut ss, mut ps) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.starts_with("side")) {
        let f: Vec<&str> = line.split(',').collect();
        let p = [f[2].trim().parse::<f64>().unwrap() * 1e-3, f[3].trim().parse::<f64>().unwrap() * 1e-3];
        if f[0] == "ss" { ss.push(p) } else { ps.push(p) }
    }
    let n = 1500;
    let mut pts: Vec<P2> = (0..n).map(|k| bezier(&ss, 0.5 - 0.5 * (std::f64::consts::PI * k as f64 / n as f64).cos())).collect();
    let c = [36.245e-3, -51.620e-3];
    let a0 = (bezier(&ss, 1.0)[1] - c[1]).atan2(bezier(&ss, 1.0)[0] - c[0]);
    let pe = bezier(&ps, 1.0);
    let mut a1 = (pe[1] - c[1]).atan2(pe[0] - c[0]);
    if a1 > a0 {
        a1 -= 2.0 * std::f64::consts::PI;
    }
    let r = 0.710e-3;
    for k in 0..200 {
        let a = a0 + (a1 - a0) * k as f64 / 200.0;
        pts.push([c[0] + r * a.cos(), c[1] + r * a.sin()]);
    }
    for k in (1..=n).rev() {
        pts.push(bezier(&ps, 0.5 - 0.5 * (std::f64::consts::PI * k as f64 / n as f64).cos()));
    }
    let te = (0..pts.len()).max_by(|&i, &j| pts[i][0].total_cmp(&pts[j][0])).unwrap();
    Outline { points: pts, trailing_edge: te }
}

fn ls89_spec(density: Density) -> PassageSpec {
    PassageSpec {
        pitch: 57.5e-3,
        inlet_x: -55e-3,
        outlet_x: (36.985 + 64.0) * 1e-3,
        first_cell_height: 2e-6,
        density,
        inlet_angle_deg: 0.0,
        outlet_angle_deg: -74.0,
    }
}

/// A T106C-class high-lift LPT section (chord 93.01 mm, pitch/chord 0.95, stagger 30.7 deg,
/// metal angles +32.7 / -63.2 deg): quadratic-Bezier camber with a NACA-type thickness and a
/// round trailing edge. A stand-in until the geometry module's T106C blade is available.
fn t106c_outline() -> Outline {
    let chord = 93.01e-3;
    let stagger = 30.7f64.to_radians();
    let cax = chord * stagger.cos();
    let p2 = [cax, -cax * stagger.tan()];
    let (b1, b2) = (32.7f64.to_radians(), (-63.2f64).to_radians());
    // Intersection of the inlet and exit metal-angle lines.
    let (d1, d2) = ([b1.cos(), b1.sin()], [b2.cos(), b2.sin()]);
    let det = d1[0] * (-d2[1]) - d1[1] * (-d2[0]);
    let t = (p2[0] * (-d2[1]) - p2[1] * (-d2[0])) / det;
    let p1 = [t * d1[0], t * d1[1]];
    let camber = |u: f64| bezier(&[[0.0, 0.0], p1, p2], u);
    let half = |u: f64| {
        5.0 * 0.12 * chord * (0.2969 * u.sqrt() - 0.1260 * u - 0.3516 * u * u + 0.2843 * u.powi(3) - 0.1015 * u.powi(4)) + 0.35e-3 * u
    };
    let side = |u: f64, sign: f64| {
        let c = camber(u);
        let e = 1e-6;
        let (a, b) = (camber((u - e).max(0.0)), camber((u + e).min(1.0)));
        let tn = [b[0] - a[0], b[1] - a[1]];
        let l = tn[0].hypot(tn[1]);
        let nrm = [-tn[1] / l, tn[0] / l];
        let h = half(u);
        [c[0] + sign * h * nrm[0], c[1] + sign * h * nrm[1]]
    };
    let n = 1500;
    let u_at = |k: usize| 0.5 - 0.5 * (std::f64::consts::PI * k as f64 / n as f64).cos();
    let mut pts: Vec<P2> = (0..n).map(|k| side(u_at(k), 1.0)).collect();
    let (up, lo, c) = (side(1.0, 1.0), side(1.0, -1.0), camber(1.0));
    let a0 = (up[1] - c[1]).atan2(up[0] - c[0]);
    let mut a1 = (lo[1] - c[1]).atan2(lo[0] - c[0]);
    if a1 > a0 {
        a1 -= 2.0 * std::f64::consts::PI;
    }
    let r = half(1.0);
    for k in 0..100 {
        let a = a0 + (a1 - a0) * k as f64 / 100.0;
        pts.push([c[0] + r * a.cos(), c[1] + r * a.sin()]);
    }
    for k in (1..=n).rev() {
        pts.push(side(u_at(k), -1.0));
    }
    let te = (0..pts.len()).max_by(|&i, &j| pts[i][0].total_cmp(&pts[j][0])).unwrap();
    Outline { points: pts, trailing_edge: te }
}

fn t106c_spec(density: Density) -> PassageSpec {
    let chord = 93.01e-3;
    let cax = chord * 30.7f64.to_radians().cos();
    PassageSpec {
        pitch: 0.95 * chord,
        inlet_x: -0.5 * cax,
        outlet_x: 2.0 * cax,
        first_cell_height: 5e-6,
        density,
        inlet_angle_deg: 32.7,
        outlet_angle_deg: -63.2,
    }
}

// ---- temporary quality measures (to be replaced by mesh::quality from the meshio branch) ----

fn node(m: &Mesh, b: usize, i: usize, j: usize) -> P2 {
    let blk = &m.blocks[b];
    let k = blk.node(i, j);
    [blk.x[k], blk.y[k]]
}

fn cell_area(m: &Mesh, b: usize, i: usize, j: usize) -> f64 {
    let (a, bb, c, d) = (node(m, b, i, j), node(m, b, i + 1, j), node(m, b, i + 1, j + 1), node(m, b, i, j + 1));
    0.5 * ((c[0] - a[0]) * (d[1] - bb[1]) - (c[1] - a[1]) * (d[0] - bb[0]))
}

fn dist(a: P2, b: P2) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn mid(a: P2, b: P2) -> P2 {
    [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])]
}

/// Cell width along i (between the mid-points of its i-faces) and along j.
fn widths(m: &Mesh, b: usize, i: usize, j: usize) -> (f64, f64) {
    let n = |i, j| node(m, b, i, j);
    let wi = dist(mid(n(i, j), n(i, j + 1)), mid(n(i + 1, j), n(i + 1, j + 1)));
    let wj = dist(mid(n(i, j), n(i + 1, j)), mid(n(i, j + 1), n(i + 1, j + 1)));
    (wi, wj)
}

/// Node k (0..=len) along a face, counted in increasing i or j from `start`.
fn face_node(m: &Mesh, b: usize, face: Face, k: usize) -> P2 {
    let blk = &m.blocks[b];
    match face {
        Face::IMin => node(m, b, 0, k),
        Face::IMax => node(m, b, blk.ni, k),
        Face::JMin => node(m, b, k, 0),
        Face::JMax => node(m, b, k, blk.nj),
    }
}

/// The cell next to the face at offset k, and its width across the face.
fn face_cell_width(m: &Mesh, b: usize, face: Face, k: usize) -> f64 {
    let blk = &m.blocks[b];
    match face {
        Face::IMin => widths(m, b, 0, k).0,
        Face::IMax => widths(m, b, blk.ni - 1, k).0,
        Face::JMin => widths(m, b, k, 0).1,
        Face::JMax => widths(m, b, k, blk.nj - 1).1,
    }
}

struct Quality {
    cells: usize,
    min_area: f64,
    periodic_mismatch: f64,
    interface_mismatch: f64,
    wall_orthogonality_deg: f64,
    worst_wall_cell: usize,
    max_growth: f64,
    worst_growth_at: String,
}

fn quality(m: &Mesh) -> Quality {
    let mut q = Quality {
        cells: m.n_cells(),
        min_area: f64::INFINITY,
        periodic_mismatch: 0.0,
        interface_mismatch: 0.0,
        wall_orthogonality_deg: 90.0,
        worst_wall_cell: 0,
        max_growth: 1.0,
        worst_growth_at: String::new(),
    };
    let growth = |r: f64, at: String, q: &mut Quality| {
        let r = r.max(1.0 / r);
        if r > q.max_growth {
            q.max_growth = r;
            q.worst_growth_at = at;
        }
    };
    for (b, blk) in m.blocks.iter().enumerate() {
        for j in 0..blk.nj {
            for i in 0..blk.ni {
                q.min_area = q.min_area.min(cell_area(m, b, i, j));
                let (wi, wj) = widths(m, b, i, j);
                if i + 1 < blk.ni {
                    growth(widths(m, b, i + 1, j).0 / wi, format!("{} i ({i},{j})", blk.name), &mut q);
                }
                if j + 1 < blk.nj {
                    growth(widths(m, b, i, j + 1).1 / wj, format!("{} j ({i},{j})", blk.name), &mut q);
                }
            }
        }
        for p in &blk.patches {
            match &p.kind {
                BoundaryKind::Wall => {
                    for i in p.start..p.end {
                        let (a, c) = (node(m, b, i, 0), node(m, b, i + 1, 0));
                        let t = [c[0] - a[0], c[1] - a[1]];
                        for ii in [i, i + 1] {
                            let (w, o) = (node(m, b, ii, 0), node(m, b, ii, 1));
                            let e = [o[0] - w[0], o[1] - w[1]];
                            let cosang = (t[0] * e[0] + t[1] * e[1]) / (t[0].hypot(t[1]) * e[0].hypot(e[1]));
                            let ang = cosang.abs().acos().to_degrees();
                            if ang < q.wall_orthogonality_deg {
                                q.wall_orthogonality_deg = ang;
                                q.worst_wall_cell = i;
                            }
                        }
                    }
                }
                BoundaryKind::Interface(c) => {
                    let len = p.len();
                    for k in 0..=len {
                        let here = face_node(m, b, p.face, p.start + k);
                        let dk = if c.reversed { c.donor_start + len - k } else { c.donor_start + k };
                        let there = face_node(m, c.donor_block, c.donor_face, dk);
                        let e = dist(here, [there[0] + c.translation[0], there[1] + c.translation[1]]);
                        if c.is_periodic() {
                            q.periodic_mismatch = q.periodic_mismatch.max(e);
                        } else {
                            q.interface_mismatch = q.interface_mismatch.max(e);
                        }
                    }
                    for k in 0..len {
                        let dk = if c.reversed { c.donor_start + len - 1 - k } else { c.donor_start + k };
                        let r = face_cell_width(m, b, p.face, p.start + k) / face_cell_width(m, c.donor_block, c.donor_face, dk);
                        growth(r, format!("{} {:?} interface cell {}", blk.name, p.face, p.start + k), &mut q);
                    }
                }
                _ => {}
            }
        }
    }
    q
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

fn run(name: &str, outline: &Outline, spec: &PassageSpec) -> (Mesh, Quality, f64) {
    if let Ok(dir) = std::env::var("MESHGEN_DUMP") {
        if let Ok(mesh) = turbopt::mesh::generate::build_mesh(outline, spec) {
            let path = format!("{dir}/{name}_{:?}_raw.json", spec.density);
            std::fs::write(&path, serde_json::to_string(&mesh).unwrap()).unwrap();
        }
    }
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
    let q = quality(&mesh);
    println!(
        "{name} {:?}: {} cells, blocks {:?}, min area {:.3e} m^2, periodic mismatch {:.2e} pitch, interface mismatch {:.2e} m, \
         wall orthogonality {:.2} deg (O cell {}), max growth {:.3} ({}), {:.3} s",
        spec.density,
        q.cells,
        mesh.blocks.iter().map(|b| (b.name.clone(), b.ni, b.nj)).collect::<Vec<_>>(),
        q.min_area,
        q.periodic_mismatch / spec.pitch,
        q.interface_mismatch,
        q.wall_orthogonality_deg,
        q.worst_wall_cell,
        q.max_growth,
        q.worst_growth_at,
        secs
    );
    (mesh, q, secs)
}

fn assert_done(name: &str, q: &Quality, pitch: f64) {
    assert!(q.min_area > 0.0, "{name}: non-positive cell area {:e}", q.min_area);
    assert!(q.periodic_mismatch <= 1e-12 * pitch, "{name}: periodic mismatch {:e}", q.periodic_mismatch);
    assert!(q.interface_mismatch <= 1e-12 * pitch, "{name}: 1-to-1 mismatch {:e}", q.interface_mismatch);
    assert!(q.wall_orthogonality_deg >= 85.0, "{name}: wall orthogonality {}", q.wall_orthogonality_deg);
    assert!(q.max_growth <= 1.25, "{name}: growth ratio {} at {}", q.max_growth, q.worst_growth_at);
}

#[test]
fn ls89_all_densities() {
    let outline = ls89_outline();
    let results: Vec<_> = [Density::Coarse, Density::Medium, Density::Fine]
        .into_iter()
        .map(|d| {
            let spec = ls89_spec(d);
            let (_, q, _) = run("LS89", &outline, &spec);
            (q, spec.pitch)
        })
        .collect();
    for (q, pitch) in &results {
        assert_done("LS89", q, *pitch);
    }
}

#[test]
fn t106c_all_densities() {
    let outline = t106c_outline();
    let results: Vec<_> = [Density::Coarse, Density::Medium, Density::Fine]
        .into_iter()
        .map(|d| {
            let spec = t106c_spec(d);
            let (_, q, _) = run("T106C", &outline, &spec);
            (q, spec.pitch)
        })
        .collect();
    for (q, pitch) in &results {
        assert_done("T106C", q, *pitch);
    }
}
