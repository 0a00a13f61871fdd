//! Mesh pictures (PNG). The files are left in the temp directory to be looked at.

use std::f64::consts::PI;

use turbopt::geometry::Outline;
use turbopt::mesh::connect::validate;
use turbopt::mesh::picture::{write_mesh_picture, PictureOptions};
use turbopt::mesh::simple::{self, FlatPlateGrid, Sides};
use turbopt::mesh::{BoundaryKind, Connection, Face, Mesh};

/// Ellipse "blade" of chord 1 (semi-axes 0.5 x 0.06) staggered by 30 deg, centre (0.5, 0).
fn ellipse_point(theta: f64) -> [f64; 2] {
    let (s, c) = (30f64.to_radians().sin(), 30f64.to_radians().cos());
    let (u, v) = (0.5 * theta.cos(), 0.06 * theta.sin());
    [0.5 + c * u - s * v, s * u + c * v]
}

/// O-mesh around the ellipse: i clockwise round the blade (closed by a 1-to-1 cut), j outwards
/// to a circle of radius 0.9, geometric growth from the wall; pitch 1.2 for the periodic copy.
fn o_mesh(ni: usize, nj: usize) -> Mesh {
    let cut = |face| BoundaryKind::Interface(Connection { donor_block: 0, donor_face: face, donor_start: 0, reversed: false, translation: [0.0, 0.0] });
    let sides = Sides { imin: cut(Face::IMax), imax: cut(Face::IMin), jmin: BoundaryKind::Wall, jmax: BoundaryKind::Inlet };
    let ratio: f64 = 1.12;
    let total = (ratio.powi(nj as i32) - 1.0) / (ratio - 1.0);
    let block = simple::block_from_fn("o", ni, nj, &sides, |i, j| {
        let theta = -2.0 * PI * i as f64 / ni as f64;
        let wall = ellipse_point(theta);
        let far = [0.5 + 0.9 * theta.cos(), 0.9 * theta.sin()];
        let s = (ratio.powi(j as i32) - 1.0) / (ratio - 1.0) / total;
        [wall[0] + s * (far[0] - wall[0]), wall[1] + s * (far[1] - wall[1])]
    });
    Mesh { blocks: vec![block], pitch: 1.2 }
}

fn assert_png(path: &std::path::Path) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(bytes.len() > 20_000, "{} bytes: nearly empty picture?", bytes.len());
    println!("picture: {}", path.display());
}

#[test]
fn blade_mesh_picture_with_edge_zooms() {
    let mesh = o_mesh(160, 40);
    validate(&mesh).unwrap();
    let outline = Outline { points: (0..400).map(|k| ellipse_point(-2.0 * PI * k as f64 / 400.0)).collect(), trailing_edge: 0 };
    let path = std::env::temp_dir().join("turbopt_mesh_picture_o_mesh.png");
    let options = PictureOptions { title: "O-mesh around a staggered ellipse (test)".into(), ..Default::default() };
    write_mesh_picture(&path, &mesh, Some(&outline), &options).unwrap();
    assert_png(&path);
}

#[test]
fn flat_plate_picture_and_bad_options() {
    let mesh = simple::tmr_flat_plate(FlatPlateGrid::N69x49).unwrap();
    let path = std::env::temp_dir().join("turbopt_mesh_picture_flat_plate.png");
    let options = PictureOptions { title: "TMR flat plate 69 x 49".into(), zoom_fraction: 0.01, ..Default::default() };
    write_mesh_picture(&path, &mesh, None, &options).unwrap();
    assert_png(&path);

    let channel = simple::channel(4, 4, 1.0, 1.0, Sides::inviscid_channel()).unwrap();
    let tiny = PictureOptions { width: 10, ..Default::default() };
    assert!(write_mesh_picture(&path, &channel, None, &tiny).unwrap_err().to_string().contains("too small"));
}
