//! Plot3D round trips, VTK output and SU2 export.

use std::path::PathBuf;

use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::plot3d::{read_plot3d, write_plot3d, Plot3dFormat};
use turbopt::mesh::simple::{self, FlatPlateGrid, Sides};
use turbopt::mesh::su2::{read_su2_summary, write_su2};
use turbopt::mesh::vtk::write_vtk;
use turbopt::mesh::{BoundaryKind, Mesh};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("turbopt_mesh_io_{}_{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Three blocks, one renumbered (reversed connections), on a distorted grid so the
/// coordinates have full-precision mantissas.
fn multi_block_mesh() -> Mesh {
    let wavy = simple::wavy_channel(12, 6, 3.0, 1.0, 0.05, Sides::periodic_in_j(BoundaryKind::Inlet, BoundaryKind::Outlet, 1.0)).unwrap();
    let two = simple::split_i(&wavy, 0, 4).unwrap();
    let three = simple::split_i(&two, 1, 3).unwrap();
    simple::rotate_180(&three, 1).unwrap()
}

#[test]
fn plot3d_round_trips_are_bit_exact() {
    let dir = scratch("p3d");
    let mesh = multi_block_mesh();
    for (format, file) in [(Plot3dFormat::Ascii, "grid.p2d"), (Plot3dFormat::Binary, "grid.p2db")] {
        let path = dir.join(file);
        write_plot3d(&path, &mesh, format).unwrap();
        let blocks = read_plot3d(&path, format).unwrap();
        assert_eq!(blocks.len(), 3);
        for (a, b) in mesh.blocks.iter().zip(&blocks) {
            assert_eq!((a.ni, a.nj), (b.ni, b.nj));
            let same = |u: &[f64], v: &[f64]| u.iter().zip(v).all(|(p, q)| p.to_bits() == q.to_bits());
            assert!(same(&a.x, &b.x) && same(&a.y, &b.y), "{format:?}: coordinates changed");
        }
    }
    let text = std::fs::read_to_string(dir.join("grid.p2d")).unwrap();
    assert!(text.starts_with("3\n5 7\n4 7\n6 7\n"), "{}", &text[..40]);
}

#[test]
fn plot3d_reader_reports_truncated_and_garbled_files() {
    let dir = scratch("p3d_bad");
    let path = dir.join("bad.p2d");
    std::fs::write(&path, "1\n2 2\n0 1 0 1\n0 0 1").unwrap();
    let e = read_plot3d(&path, Plot3dFormat::Ascii).unwrap_err().to_string();
    assert!(e.contains("ends inside the coordinates of block 0"), "{e}");
    std::fs::write(&path, "1\n2 2\n0 1 0 1\n0 0 x 1").unwrap();
    assert!(read_plot3d(&path, Plot3dFormat::Ascii).unwrap_err().to_string().contains("'x' is not a number"));
    std::fs::write(&path, "1\n2 2\n0 1.0D0 0 1\n0 0 1 1").unwrap();
    assert_eq!(read_plot3d(&path, Plot3dFormat::Ascii).unwrap()[0].x[1], 1.0);
    let mut bytes = vec![1u8, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0];
    bytes.extend(1.5f64.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let e = read_plot3d(&path, Plot3dFormat::Binary).unwrap_err().to_string();
    assert!(e.contains("file ends before the coordinates of block 0"), "{e}");
    assert!(read_plot3d(dir.join("missing.p2d"), Plot3dFormat::Ascii).is_err());
    std::fs::write(&path, "1\n18446744073709551615 18446744073709551615\n0").unwrap();
    assert!(read_plot3d(&path, Plot3dFormat::Ascii).unwrap_err().to_string().contains("overflow"));
}

/// Values of the `DataArray` named `name` in a VTK XML file.
fn data_array(xml: &str, name: &str) -> Vec<f64> {
    let start = xml.find(&format!("Name=\"{name}\"")).unwrap();
    let body = &xml[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</DataArray>").unwrap()];
    body.split_whitespace().map(|t| t.parse().unwrap()).collect()
}

#[test]
fn vtk_multiblock_with_cell_data() {
    let dir = scratch("vtk");
    let mesh = multi_block_mesh();
    let metrics = MeshMetrics::new(&mesh).unwrap();
    let volume: Vec<Vec<f64>> = metrics.blocks.iter().map(|m| m.volume.clone()).collect();
    let block_id: Vec<Vec<f64>> = mesh.blocks.iter().enumerate().map(|(b, blk)| vec![b as f64; blk.n_cells()]).collect();
    let vtm = write_vtk(dir.join("flow.vtm"), &mesh, &[("volume", &volume), ("block", &block_id)]).unwrap();
    let index = std::fs::read_to_string(&vtm).unwrap();
    assert_eq!(index.matches("<DataSet ").count(), 4, "3 blocks + boundaries");
    let boundaries = std::fs::read_to_string(dir.join("flow_blocks").join("boundaries.vtp")).unwrap();
    // Boundary faces: inlet 6 + outlet 6 + periodic 2 x 12 + 1-to-1 4 x 6.
    assert_eq!(data_array(&boundaries, "kind").len(), 60);
    assert_eq!(data_array(&boundaries, "kind").iter().filter(|&&k| k == 5.0).count(), 24);
    let vts = dir.join("flow_blocks").join("1_wavy_b_a.vts");
    let xml = std::fs::read_to_string(&vts).unwrap();
    assert!(index.contains("file=\"flow_blocks/1_wavy_b_a.vts\""), "{index}");
    assert!(xml.contains("WholeExtent=\"0 3 0 6 0 0\""));
    assert_eq!(data_array(&xml, "volume"), volume[1], "cell data written exactly");
    let points_start = xml.find("NumberOfComponents=\"3\"").unwrap();
    let n_points = xml[points_start..].lines().skip(1).take_while(|l| !l.contains("</DataArray>")).count();
    assert_eq!(n_points, 4 * 7);

    // A directory target gets mesh.vtm; a wrong-sized field is refused with its name.
    let vtm = write_vtk(dir.join("out"), &mesh, &[]).unwrap();
    assert!(vtm.ends_with("out/mesh.vtm") && vtm.exists());
    let short = vec![vec![0.0; 3]; 3];
    let e = write_vtk(dir.join("x.vtm"), &mesh, &[("rho", &short)]).unwrap_err().to_string();
    assert!(e.contains("'rho', block 0: 3 values for 24 cells"), "{e}");
}

#[test]
fn su2_export_merges_one_to_one_nodes() {
    let dir = scratch("su2");
    let mesh = multi_block_mesh();
    let path = dir.join("passage.su2");
    let written = write_su2(&path, &mesh).unwrap();
    let read = read_su2_summary(&path).unwrap();
    assert_eq!(written, read);
    // 12 x 6 cells; 13 x 7 nodes once the two cuts are merged; periodic sides stay apart.
    assert_eq!((read.dimensions, read.elements, read.points), (2, 72, 91));
    let markers: Vec<(&str, usize)> = read.markers.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(markers, [("inlet", 6), ("outlet", 6), ("periodic_lower", 12), ("periodic_upper", 12)]);
}

#[test]
fn su2_export_of_the_flat_plate() {
    let dir = scratch("su2_plate");
    let mesh = simple::tmr_flat_plate(FlatPlateGrid::N69x49).unwrap();
    let read = read_su2_summary({
        let p = dir.join("plate.su2");
        write_su2(&p, &mesh).unwrap();
        p
    })
    .unwrap();
    assert_eq!((read.elements, read.points), (68 * 48, 69 * 49));
    let markers: Vec<(&str, usize)> = read.markers.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(markers, [("blade", 56), ("inlet", 48), ("outlet", 48 + 68), ("symmetry", 12)]);
}

#[test]
fn su2_reader_rejects_bad_node_numbers() {
    let dir = scratch("su2_bad");
    let path = dir.join("bad.su2");
    std::fs::write(&path, "NDIME= 2\nNELEM= 1\n9 0 1 2 7 0\nNPOIN= 4\n0 0 0\n1 0 1\n1 1 2\n0 1 3\nNMARK= 0\n").unwrap();
    let e = read_su2_summary(&path).unwrap_err().to_string();
    assert!(e.contains("node number 7"), "{e}");
    std::fs::write(&path, "NDIME= 2\nNELEM= 18446744073709551615\n9 0 1 2 3 0\n").unwrap();
    assert!(read_su2_summary(&path).unwrap_err().to_string().contains("file ends at element 1"));
}
