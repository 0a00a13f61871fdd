//! Metrics, quality report, analytic test meshes and y+ estimates.

mod common;

use turbopt::flow::case::OperatingPoint;
use turbopt::flow::gas::Gas;
use turbopt::mesh::connect::validate;
use turbopt::mesh::metrics::{BlockMetrics, MeshMetrics};
use turbopt::mesh::quality::QualityReport;
use turbopt::mesh::simple::{self, FlatPlateGrid, Sides};
use turbopt::mesh::yplus::{self, WallUnits};
use turbopt::mesh::{BoundaryKind, Face, Mesh, Patch};

/// Largest |sum of outward face vectors| of any cell, relative to the cell perimeter.
fn max_closure_defect(m: &BlockMetrics) -> f64 {
    let mut worst: f64 = 0.0;
    for j in 0..m.nj {
        for i in 0..m.ni {
            let (e, w) = (m.i_face(i + 1, j), m.i_face(i, j));
            let (n, s) = (m.j_face(i, j + 1), m.j_face(i, j));
            let sx = m.i_face_x[e] - m.i_face_x[w] + m.j_face_x[n] - m.j_face_x[s];
            let sy = m.i_face_y[e] - m.i_face_y[w] + m.j_face_y[n] - m.j_face_y[s];
            let perimeter = [e, w].iter().map(|&f| m.i_face_x[f].hypot(m.i_face_y[f])).sum::<f64>()
                + [n, s].iter().map(|&f| m.j_face_x[f].hypot(m.j_face_y[f])).sum::<f64>();
            worst = common::max_or_nan(worst, sx.hypot(sy) / perimeter);
        }
    }
    worst
}

fn test_meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("channel", simple::channel(16, 8, 2.0, 1.0, Sides::inviscid_channel()).unwrap()),
        ("wavy", simple::wavy_channel(24, 16, 1.0, 0.5, 0.08, Sides::doubly_periodic(1.0, 0.5)).unwrap()),
        ("bump", simple::gaussian_bump_channel(48, 16).unwrap()),
        ("flat plate", simple::tmr_flat_plate(FlatPlateGrid::N69x49).unwrap()),
    ]
}

#[test]
fn face_vectors_of_every_cell_close() {
    for (name, mesh) in test_meshes() {
        let metrics = MeshMetrics::new(&mesh).unwrap();
        for m in &metrics.blocks {
            let d = max_closure_defect(m);
            assert!(d < 1e-14, "{name}: closure defect {d:e}");
        }
    }
}

#[test]
fn total_volume_is_the_exact_area_of_polygonal_domains() {
    // Domains with straight sides: the discrete area is exact up to round-off.
    let cases = [
        (simple::channel(16, 8, 2.0, 1.0, Sides::inviscid_channel()).unwrap(), 2.0),
        (simple::wavy_channel(24, 16, 1.0, 0.5, 0.08, Sides::doubly_periodic(1.0, 0.5)).unwrap(), 0.5),
        (simple::tmr_flat_plate(FlatPlateGrid::N137x97).unwrap(), 2.33333),
    ];
    for (mesh, area) in cases {
        let v = MeshMetrics::new(&mesh).unwrap().total_volume();
        assert!((v - area).abs() < 1e-13 * area, "area {v} vs {area}");
    }
}

#[test]
fn wavy_mesh_centroid_is_the_box_centre() {
    let mesh = simple::wavy_channel(24, 16, 1.0, 0.5, 0.08, Sides::doubly_periodic(1.0, 0.5)).unwrap();
    let m = &MeshMetrics::new(&mesh).unwrap().blocks[0];
    let v: f64 = m.volume.iter().sum();
    let cx: f64 = m.volume.iter().zip(&m.centre_x).map(|(a, x)| a * x).sum::<f64>() / v;
    let cy: f64 = m.volume.iter().zip(&m.centre_y).map(|(a, y)| a * y).sum::<f64>() / v;
    assert!((cx - 0.5).abs() < 1e-14 && (cy - 0.25).abs() < 1e-14, "centroid ({cx}, {cy})");
}

#[test]
fn bump_channel_area_matches_the_integral() {
    // Exact area: 3 * 0.8 - 0.0625 sqrt(pi / 25) erf(7.5), erf(7.5) = 1 in double precision.
    // The cells' straight lower edges integrate the bump by the trapezoidal rule, which is
    // spectrally accurate for a Gaussian that has decayed at the ends: round-off already at 48 x 16.
    let exact = 2.4 - 0.0625 * (std::f64::consts::PI / 25.0).sqrt();
    let area = MeshMetrics::new(&simple::gaussian_bump_channel(48, 16).unwrap()).unwrap().total_volume();
    assert!((area - exact).abs() < 1e-13, "area {area} vs {exact}");
}

#[test]
fn face_vectors_point_along_increasing_indices() {
    let mesh = simple::channel(4, 2, 2.0, 1.0, Sides::inviscid_channel()).unwrap();
    let m = &MeshMetrics::new(&mesh).unwrap().blocks[0];
    assert!(m.i_face_x.iter().all(|&s| (s - 0.5).abs() < 1e-15));
    assert!(m.i_face_y.iter().all(|&s| s == 0.0));
    assert!(m.j_face_y.iter().all(|&s| (s - 0.5).abs() < 1e-15));
    assert!(m.j_face_x.iter().all(|&s| s == 0.0));
    assert!(m.volume.iter().all(|&v| (v - 0.25).abs() < 1e-15));
    assert_eq!((m.centre_x[5], m.centre_y[5]), (0.75, 0.75));
}

#[test]
fn wall_distance_on_the_flat_plate_is_exact() {
    let mesh = simple::tmr_flat_plate(FlatPlateGrid::N137x97).unwrap();
    let m = &MeshMetrics::new(&mesh).unwrap().blocks[0];
    for c in 0..m.volume.len() {
        let (x, y) = (m.centre_x[c], m.centre_y[c]);
        let exact = if x >= 0.0 { y } else { x.hypot(y) };
        assert!((m.wall_distance[c] - exact).abs() <= 1e-15 * (1.0 + exact), "cell {c}: {} vs {exact}", m.wall_distance[c]);
    }
}

#[test]
fn no_wall_means_infinite_wall_distance() {
    let mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    let m = MeshMetrics::new(&mesh).unwrap();
    assert!(m.blocks[0].wall_distance.iter().all(|d| d.is_infinite()));
}

#[test]
fn uniform_channel_quality_is_perfect() {
    let mesh = simple::periodic_channel(16, 8, 2.0, 1.0, BoundaryKind::Inlet, BoundaryKind::Outlet).unwrap();
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    assert_eq!((q.blocks, q.cells, q.non_positive_volumes), (1, 128, 0));
    assert!((q.min_volume - 0.015625).abs() < 1e-15 && (q.max_volume - 0.015625).abs() < 1e-15);
    assert!((q.max_volume_ratio - 1.0).abs() < 1e-12 && (q.max_growth_ratio - 1.0).abs() < 1e-12);
    assert!((q.min_orthogonality_deg - 90.0).abs() < 1e-12 && q.max_skewness < 1e-12);
    assert!((q.max_aspect_ratio - 1.0).abs() < 1e-12);
    assert!(q.max_periodic_mismatch.unwrap() < 1e-15);
    assert_eq!((q.max_one_to_one_mismatch, q.min_wall_orthogonality_deg), (None, None));
    let text = q.to_string();
    assert!(text.contains("128 cells") && text.contains("periodic mismatch"), "{text}");
    let json = serde_json::to_string(&q).unwrap();
    assert!(json.contains("\"max_skewness\""));
}

#[test]
fn quality_sees_a_bad_periodic_match_and_skewed_cells() {
    // A sheared box: x shifted by 0.2 y. Periodic in y with translation (0, 1) misses by 0.2.
    let sides = Sides::periodic_in_j(BoundaryKind::Inlet, BoundaryKind::Outlet, 1.0);
    let block = simple::block_from_fn("sheared", 4, 4, &sides, |i, j| [i as f64 / 4.0 + 0.2 * j as f64 / 4.0, j as f64 / 4.0]);
    let mesh = Mesh { blocks: vec![block], pitch: 1.0 };
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    assert!((q.max_periodic_mismatch.unwrap() - 0.2).abs() < 1e-14);
    let theta = (1.0f64 / 0.2).atan().to_degrees(); // corner angle of the parallelogram
    assert!((q.min_orthogonality_deg - theta).abs() < 1e-10, "{} vs {theta}", q.min_orthogonality_deg);
    assert!((q.max_skewness - (90.0 - theta) / 90.0).abs() < 1e-12);
}

#[test]
fn flat_plate_grid_family() {
    for (grid, ni, nj) in [
        (FlatPlateGrid::N69x49, 68, 48),
        (FlatPlateGrid::N137x97, 136, 96),
        (FlatPlateGrid::N273x193, 272, 192),
        (FlatPlateGrid::N545x385, 544, 384),
    ] {
        let mesh = simple::tmr_flat_plate(grid).unwrap();
        validate(&mesh).unwrap();
        let b = &mesh.blocks[0];
        assert_eq!((b.ni, b.nj), (ni, nj));
        assert_eq!((b.x[0], b.x[ni], b.y[b.node(0, nj)]), (-0.33333, 2.0, 1.0));
        // The plate starts at node ni/6 exactly at x = 0.
        let wall = b.patches.iter().find(|p| p.kind == BoundaryKind::Wall).unwrap();
        let i_le = ni * 96 / 544;
        assert_eq!((wall.face, wall.start, wall.end), (Face::JMin, i_le, ni));
        assert_eq!(b.x[i_le].to_bits(), 0.0f64.to_bits());
        // Uniform streamwise spacing from x = 0.970084 (node 448 of 544 on the finest grid).
        let i_u = ni * 448 / 544;
        assert_eq!(b.x[i_u], 0.970084048409);
        let h = b.x[ni] - b.x[ni - 1];
        assert!((i_u..ni).all(|i| ((b.x[i + 1] - b.x[i]) - h).abs() < 1e-12));
    }
    // Nested: the 273 x 193 grid is every other node of the 545 x 385 one.
    let fine = simple::tmr_flat_plate(FlatPlateGrid::N545x385).unwrap();
    let medium = simple::tmr_flat_plate(FlatPlateGrid::N273x193).unwrap();
    let (f, m) = (&fine.blocks[0], &medium.blocks[0]);
    for j in 0..=m.nj {
        for i in 0..=m.ni {
            assert_eq!(m.x[m.node(i, j)], f.x[f.node(2 * i, 2 * j)]);
            assert_eq!(m.y[m.node(i, j)], f.y[f.node(2 * i, 2 * j)]);
        }
    }
}

#[test]
fn flat_plate_273_wall_resolution_and_smoothness() {
    let mesh = simple::tmr_flat_plate(FlatPlateGrid::N273x193).unwrap();
    let metrics = MeshMetrics::new(&mesh).unwrap();
    let mut q = QualityReport::new(&mesh, &metrics).unwrap();
    // Re = 5e6 per metre: U = 1, nu = 2e-7; local y+ of the first grid line along the plate.
    let b = &mesh.blocks[0];
    let mut worst: f64 = 0.0;
    for i in b.ni / 6 + 1..=b.ni {
        let (x, h) = (b.x[b.node(i, 0)], b.y[b.node(i, 1)]);
        if 5e6 * x < 1e4 {
            continue; // the correlation means nothing at the very leading edge
        }
        worst = common::max_or_nan(worst, WallUnits::from_flow(1.0, 2e-7, x).unwrap().yplus(h));
    }
    q.first_cell_yplus_estimate = Some(WallUnits::from_flow(1.0, 2e-7, 1.0).unwrap().yplus(q.max_first_cell_height.unwrap()));
    println!("{q}\nmax local y+ along the plate: {worst:.3}");
    assert!(worst < 1.0, "y+ {worst}");
    // The 273 x 193 grid's first wall spacing is two cells of the finest distribution.
    let finest_normal = simple::sinh_stretching(384, 5e-7).unwrap();
    assert!((q.min_first_cell_height.unwrap() - finest_normal[2]).abs() < 1e-20);
    assert!((q.max_first_cell_height.unwrap() - finest_normal[2]).abs() < 1e-20);
    assert!((q.min_wall_orthogonality_deg.unwrap() - 90.0).abs() < 1e-9);
    assert_eq!(q.non_positive_volumes, 0);
    assert!(q.max_growth_ratio < 1.2, "growth {}", q.max_growth_ratio);
}

#[test]
fn skin_friction_correlation_and_round_trip() {
    // White: cf = 0.455 / ln^2(0.06 Re_x); at Re_x = 1e6, ln(6e4) = 11.0021.
    let cf = yplus::flat_plate_skin_friction(1e6).unwrap();
    assert!((cf - 0.455 / 6e4f64.ln().powi(2)).abs() < 1e-15 && (cf - 0.003759).abs() < 1e-6);
    let w = WallUnits::from_flow(100.0, 1.5e-5, 0.1).unwrap();
    assert!((w.height(w.yplus(3.0e-6)) - 3.0e-6).abs() < 1e-20);
    assert!(yplus::flat_plate_skin_friction(10.0).is_err());
    assert!(WallUnits::from_flow(-1.0, 1e-5, 1.0).is_err());
}

#[test]
fn ls89_mur47_exit_reynolds_number_is_about_one_million() {
    let op = OperatingPoint {
        name: "MUR47".into(),
        p01: 159600.0,
        t01: 420.0,
        alpha1_deg: 0.0,
        p2: 82350.0,
        nu_tilde_ratio: 3.0,
        turbulence_intensity: None,
    };
    let gas = Gas::default();
    let chord = 0.067647;
    let w = WallUnits::exit_isentropic(&op, &gas, chord).unwrap();
    // Hand calculation: M2is = 1.02, T2 = 347.7 K, rho2 = 0.825, U2 = 381 m/s, mu2 = 2.06e-5.
    assert!((w.reynolds - 1.03e6).abs() < 0.01e6, "Re = {}", w.reynolds);
    let h = yplus::first_cell_height(1.0, &op, &gas, chord).unwrap();
    // The height keeps a 1e-9 relative margin under the target (round-off of the mesh geometry).
    let yplus = yplus::yplus_estimate(h, &op, &gas, chord).unwrap();
    assert!(yplus <= 1.0 && yplus > 1.0 - 2e-9, "y+ {yplus}");
    println!("MUR47: Re = {:.4e}, cf = {:.5}, first cell for y+ = 1: {h:.3e} m", w.reynolds, w.skin_friction);
    let stalled = OperatingPoint { p2: 2e5, ..op };
    assert!(yplus::first_cell_height(1.0, &stalled, &gas, chord).is_err());
}

#[test]
fn bad_blocks_and_patches_give_errors() {
    let mut mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    mesh.blocks[0].x.pop();
    let e = MeshMetrics::new(&mesh).unwrap_err().to_string();
    assert!(e.contains("25 node coordinates"), "{e}");

    let mut mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    mesh.blocks[0].patches[3].end = 3;
    let e = validate(&mesh).unwrap_err().to_string();
    assert!(e.contains("JMax cell 3 is not covered"), "{e}");

    let mut mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    mesh.blocks[0].patches.push(Patch { face: Face::IMin, start: 1, end: 2, kind: BoundaryKind::Wall });
    let e = validate(&mesh).unwrap_err().to_string();
    assert!(e.contains("covered by two patches"), "{e}");

    let mut mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    mesh.blocks[0].patches[0].end = 7;
    assert!(MeshMetrics::new(&mesh).unwrap_err().to_string().contains("runs off the face"));

    assert!(simple::wavy_channel(8, 8, 1.0, 1.0, 0.5, Sides::inviscid_channel()).unwrap_err().to_string().contains("folded"));
    assert!(simple::channel(0, 4, 1.0, 1.0, Sides::inviscid_channel()).is_err());

    let small = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    let other = MeshMetrics::new(&simple::channel(4, 2, 1.0, 1.0, Sides::inviscid_channel()).unwrap()).unwrap();
    assert!(QualityReport::new(&small, &other).unwrap_err().to_string().contains("other block sizes"));
}

#[test]
fn quality_points_at_the_worst_cells() {
    // Move one interior node of a uniform 4 x 4 box: only the four cells around it distort.
    let mut mesh = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    let n = mesh.blocks[0].node(2, 2);
    mesh.blocks[0].x[n] += 0.08;
    mesh.blocks[0].y[n] += 0.05;
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    let around = |l: Option<turbopt::mesh::quality::CellLocation>| {
        let l = l.unwrap();
        l.block == 0 && (1..=2).contains(&l.i) && (1..=2).contains(&l.j)
    };
    let w = &q.worst;
    assert!(around(w.min_volume) && around(w.min_orthogonality) && around(w.max_skewness));
    assert!(around(w.max_aspect_ratio) && around(w.max_volume_ratio) && around(w.max_growth_ratio));
    assert!(q.to_string().contains("at block 0 cell ("), "{q}");
}

#[test]
fn quality_yplus_estimate_for_an_operating_point() {
    let mesh = simple::tmr_flat_plate(FlatPlateGrid::N69x49).unwrap();
    let mut q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    let op = OperatingPoint { name: "MUR47".into(), p01: 159600.0, t01: 420.0, alpha1_deg: 0.0, p2: 82350.0, nu_tilde_ratio: 3.0, turbulence_intensity: None };
    q.estimate_yplus(&op, &Gas::default(), 0.067647).unwrap();
    let expected = yplus::yplus_estimate(q.max_first_cell_height.unwrap(), &op, &Gas::default(), 0.067647).unwrap();
    assert_eq!(q.first_cell_yplus_estimate, Some(expected));
    assert_eq!(q.worst.min_wall_orthogonality.map(|l| l.j), Some(0));
}

#[test]
fn wall_distance_tree_equals_brute_force() {
    use turbopt::mesh::metrics::{wall_distance_brute_force, wall_segments};
    // Bump channel with both walls no-slip: curved lower wall, straight upper wall.
    let mut mesh = simple::gaussian_bump_channel(96, 32).unwrap();
    for p in &mut mesh.blocks[0].patches {
        if p.kind == BoundaryKind::InviscidWall {
            p.kind = BoundaryKind::Wall;
        }
    }
    let walls = wall_segments(&mesh);
    assert_eq!(walls.len(), 192);
    let m = &MeshMetrics::new(&mesh).unwrap().blocks[0];
    for c in 0..m.volume.len() {
        let p = [m.centre_x[c], m.centre_y[c]];
        assert_eq!(m.wall_distance[c], wall_distance_brute_force(p, &walls), "cell {c}");
    }
}

#[test]
fn stretching_functions_meet_their_end_spacings() {
    // Two-sided Vinokur: end slopes exact, so end intervals within the local growth (~1 %).
    for (n, first, last) in [(352, 1.03e-3, 1.04e-2), (384, 4.29e-7, 3.19e-2), (96, 2.7e-3, 3.7e-2), (10, 0.1, 0.1)] {
        let s = simple::vinokur_two_sided(n, first, last).unwrap();
        assert_eq!((s[0], s[n]), (0.0, 1.0));
        assert!(s.windows(2).all(|w| w[1] > w[0]), "monotone");
        let (d0, d1) = (s[1] - s[0], s[n] - s[n - 1]);
        assert!((d0 / first - 1.0).abs() < 0.02 && (d1 / last - 1.0).abs() < 0.04, "n {n}: {d0:e} vs {first:e}, {d1:e} vs {last:e}");
    }
    for s in [simple::one_sided_tanh(192, 1e-6).unwrap(), simple::sinh_stretching(192, 1e-6).unwrap()] {
        assert!(((s[1] - s[0]) / 1e-6 - 1.0).abs() < 1e-9 && s[192] == 1.0);
        assert!(s.windows(2).all(|w| w[1] > w[0]), "monotone");
    }
    // sinh: geometric far from the wall, ratio exp(b/n) with sinh(b/n)/sinh(b) = first.
    let s = simple::sinh_stretching(48, 4.04e-6).unwrap();
    let r = (s[48] - s[47]) / (s[47] - s[46]);
    assert!((r - 1.276).abs() < 0.01, "outer ratio {r}");
    assert!(simple::vinokur_two_sided(10, 0.0, 0.1).is_err() && simple::one_sided_tanh(0, 0.1).is_err());
    assert!(simple::sinh_stretching(10, 0.2).is_err());
}
