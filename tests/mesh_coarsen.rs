//! Multigrid coarsening (every other node, 2 x 2 agglomeration).

use turbopt::mesh::coarsen::{coarsen, coarsen_levels};
use turbopt::mesh::connect::{validate, GhostExchange};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::quality::QualityReport;
use turbopt::mesh::simple::{self, FlatPlateGrid, Sides};
use turbopt::mesh::BoundaryKind;

#[test]
fn coarsened_flat_plate_is_the_next_tmr_grid() {
    let fine = simple::tmr_flat_plate(FlatPlateGrid::N273x193).unwrap();
    let levels = coarsen_levels(&fine, 3).unwrap();
    assert_eq!(levels[0], fine);
    assert_eq!(levels[1], simple::tmr_flat_plate(FlatPlateGrid::N137x97).unwrap());
    assert_eq!(levels[2], simple::tmr_flat_plate(FlatPlateGrid::N69x49).unwrap());
    // 272 x 192 cells, plate from cell 48: five levels down to 17 x 12, the sixth is odd.
    assert_eq!(coarsen_levels(&fine, 5).unwrap()[4].blocks[0].ni, 17);
    let e = coarsen_levels(&fine, 6).unwrap_err().to_string();
    assert!(e.contains("level 5 of 6") && e.contains("17 x 12 cells is odd"), "{e}");
}

#[test]
fn coarsening_keeps_multiblock_connections_valid() {
    // 24 x 12 periodic wavy channel in blocks of 8, 6 and 10 cells, the middle one reversed.
    let wavy = simple::wavy_channel(24, 12, 3.0, 1.0, 0.05, Sides::periodic_in_j(BoundaryKind::Inlet, BoundaryKind::Outlet, 1.0)).unwrap();
    let three = simple::split_i(&simple::split_i(&wavy, 0, 8).unwrap(), 1, 6).unwrap();
    let fine = simple::rotate_180(&three, 1).unwrap();
    let coarse = coarsen(&fine).unwrap();
    validate(&coarse).unwrap();
    let widths: Vec<usize> = coarse.blocks.iter().map(|b| b.ni).collect();
    assert_eq!(widths, [4, 3, 5]);
    assert_eq!(GhostExchange::new(&coarse).unwrap().len(), GhostExchange::new(&fine).unwrap().len() / 2);
    let q = QualityReport::new(&coarse, &MeshMetrics::new(&coarse).unwrap()).unwrap();
    assert!(q.max_periodic_mismatch.unwrap() < 1e-15 && q.max_one_to_one_mismatch.unwrap() < 1e-15);

    // Coarse face vectors are the sums of the fine ones they replace.
    let (fm, cm) = (MeshMetrics::new(&fine).unwrap(), MeshMetrics::new(&coarse).unwrap());
    for (f, c) in fm.blocks.iter().zip(&cm.blocks) {
        for j in 0..c.nj {
            for i in 0..=c.ni {
                let sum = f.i_face_x[f.i_face(2 * i, 2 * j)] + f.i_face_x[f.i_face(2 * i, 2 * j + 1)];
                assert!((c.i_face_x[c.i_face(i, j)] - sum).abs() < 1e-15);
            }
        }
    }

    // One more level: 4, 3, 5 cells wide is odd.
    let e = coarsen(&coarse).unwrap_err().to_string();
    assert!(e.contains("block 1") && e.contains("is odd"), "{e}");
}

#[test]
fn odd_patch_boundaries_are_refused() {
    let mut mesh = simple::channel(8, 4, 2.0, 1.0, Sides::inviscid_channel()).unwrap();
    let jmin = mesh.blocks[0].patches.iter().position(|p| p.face == turbopt::mesh::Face::JMin).unwrap();
    let mut second = mesh.blocks[0].patches[jmin].clone();
    mesh.blocks[0].patches[jmin].end = 3;
    second.start = 3;
    second.kind = BoundaryKind::Wall;
    mesh.blocks[0].patches.push(second);
    let e = coarsen(&mesh).unwrap_err().to_string();
    assert!(e.contains("spans cells 0..3 (odd boundary)"), "{e}");
    assert!(coarsen_levels(&mesh, 0).is_err());
}
