//! Ghost-cell donor tables on multi-block test meshes (1-to-1, periodic, reversed).

use turbopt::mesh::connect::{validate, CellRef, GhostExchange};
use turbopt::mesh::metrics::MeshMetrics;
use turbopt::mesh::quality::QualityReport;
use turbopt::mesh::simple;
use turbopt::mesh::{BoundaryKind, Connection, Face, Mesh};

const LX: f64 = 3.0;
const LY: f64 = 1.0;

/// A 12 x 6 periodic channel cut into three blocks; the middle one optionally renumbered by a
/// half turn so that its 1-to-1 connections are reversed.
fn three_block_channel(rotate_middle: bool) -> Mesh {
    let one = simple::periodic_channel(12, 6, LX, LY, BoundaryKind::Inlet, BoundaryKind::Outlet).unwrap();
    let two = simple::split_i(&one, 0, 4).unwrap(); // blocks: [0..4), [4..12)
    let three = simple::split_i(&two, 1, 3).unwrap(); // blocks: [0..4), [4..7), [7..12)
    if rotate_middle {
        simple::rotate_180(&three, 1).unwrap()
    } else {
        three
    }
}

/// Centre of cell (i, j), ghosts included, of a block of the uniform channel: the node grid
/// is affine in (i, j), so the centre extrapolates linearly.
fn affine_centre(mesh: &Mesh, c: CellRef) -> [f64; 2] {
    let b = &mesh.blocks[c.block];
    let p = |i, j| [b.x[b.node(i, j)], b.y[b.node(i, j)]];
    let (o, ei, ej) = (p(0, 0), p(1, 0), p(0, 1));
    let (fi, fj) = (c.i as f64 + 0.5, c.j as f64 + 0.5);
    [o[0] + fi * (ei[0] - o[0]) + fj * (ej[0] - o[0]), o[1] + fi * (ei[1] - o[1]) + fj * (ej[1] - o[1])]
}

fn check_donors_are_the_geometric_neighbours(mesh: &Mesh) -> GhostExchange {
    let ex = GhostExchange::new(mesh).unwrap();
    let metrics = MeshMetrics::new(mesh).unwrap();
    for n in 0..ex.len() {
        let (g, d, t) = (ex.ghost_cell[n], ex.donor_cell[n], ex.translation[n]);
        let dm = &metrics.blocks[d.block];
        let dc = dm.cell(d.i as usize, d.j as usize);
        let donor_centre = [dm.centre_x[dc] + t[0], dm.centre_y[dc] + t[1]];
        let expected = affine_centre(mesh, g);
        let miss = (donor_centre[0] - expected[0]).hypot(donor_centre[1] - expected[1]);
        assert!(miss < 1e-13, "ghost {g:?} <- donor {d:?} + {t:?}: off by {miss:e}");
        assert_eq!(ex.ghost[n], ex.layout.index(g.block, g.i, g.j));
        assert_eq!(ex.donor[n], ex.layout.index(d.block, d.i, d.j));
        let (gb, db) = (&mesh.blocks[g.block], &mesh.blocks[d.block]);
        let inside = |c: CellRef, ni: usize, nj: usize| c.i >= 0 && c.j >= 0 && (c.i as usize) < ni && (c.j as usize) < nj;
        assert!(!inside(g, gb.ni, gb.nj) && inside(d, db.ni, db.nj));
        let corner = (g.i < 0 || g.i >= gb.ni as isize) && (g.j < 0 || g.j >= gb.nj as isize);
        assert!(!corner, "corner ghosts are not exchanged");
    }
    assert!(ex.ghost.windows(2).all(|w| w[0] < w[1]), "sorted, no ghost twice");
    ex
}

#[test]
fn single_block_periodic_channel() {
    let mesh = simple::periodic_channel(8, 4, 2.0, 1.0, BoundaryKind::Inlet, BoundaryKind::Outlet).unwrap();
    let ex = check_donors_are_the_geometric_neighbours(&mesh);
    assert_eq!(ex.len(), 2 * 2 * 8);
    assert_eq!(ex.layout.total, 12 * 8);
    // The layer-2 ghost below j = 0 is the second row from the top, one pitch down.
    let n = ex.ghost_cell.iter().position(|g| *g == CellRef { block: 0, i: 5, j: -2 }).unwrap();
    assert_eq!(ex.donor_cell[n], CellRef { block: 0, i: 5, j: 2 });
    assert_eq!(ex.translation[n], [0.0, -1.0]);
}

#[test]
fn three_blocks_straight_connections() {
    let mesh = three_block_channel(false);
    validate(&mesh).unwrap();
    let ex = check_donors_are_the_geometric_neighbours(&mesh);
    // Periodic: 2 faces x 12 cells x 2 layers; 1-to-1: 4 faces x 6 cells x 2 layers.
    assert_eq!(ex.len(), 48 + 48);
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    assert_eq!((q.max_periodic_mismatch, q.max_one_to_one_mismatch), (Some(0.0), Some(0.0)));
    assert!((q.max_volume_ratio - 1.0).abs() < 1e-12 && (q.max_growth_ratio - 1.0).abs() < 1e-12);
}

#[test]
fn three_blocks_with_a_reversed_middle_block() {
    let mesh = three_block_channel(true);
    validate(&mesh).unwrap();
    let reversed = mesh.blocks.iter().flat_map(|b| &b.patches).filter(|p| matches!(&p.kind, BoundaryKind::Interface(c) if c.reversed)).count();
    // Its two 1-to-1 patches and the two facing them; its periodic pair joins the block to
    // itself, renumbered on both sides, so it stays straight.
    assert_eq!(reversed, 4);
    let ex = check_donors_are_the_geometric_neighbours(&mesh);
    assert_eq!(ex.len(), 96);
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    assert!(q.max_periodic_mismatch.unwrap() < 1e-15 && q.max_one_to_one_mismatch.unwrap() < 1e-15);
}

/// Two blocks stacked in y (lower: y in [0, 0.5], upper: [0.5, 1]) joined 1-to-1, and
/// periodic between the bottom of the lower one and the top of the upper one.
fn stacked_blocks() -> Mesh {
    let conn = |donor_block, donor_face, dy| {
        BoundaryKind::Interface(Connection { donor_block, donor_face, donor_start: 0, reversed: false, translation: [0.0, dy] })
    };
    let lower = simple::Sides { imin: BoundaryKind::Inlet, imax: BoundaryKind::Outlet, jmin: conn(1, Face::JMax, -1.0), jmax: conn(1, Face::JMin, 0.0) };
    let upper = simple::Sides { imin: BoundaryKind::Inlet, imax: BoundaryKind::Outlet, jmin: conn(0, Face::JMax, 0.0), jmax: conn(0, Face::JMin, 1.0) };
    let grid = |y0: f64| move |i: usize, j: usize| [i as f64 / 8.0, y0 + j as f64 / 8.0];
    Mesh {
        blocks: vec![simple::block_from_fn("lower", 8, 4, &lower, grid(0.0)), simple::block_from_fn("upper", 8, 4, &upper, grid(0.5))],
        pitch: 1.0,
    }
}

#[test]
fn reversed_periodic_and_one_to_one_connections() {
    let mesh = simple::rotate_180(&stacked_blocks(), 1).unwrap();
    let all_reversed = mesh.blocks.iter().flat_map(|b| &b.patches).all(|p| match &p.kind {
        BoundaryKind::Interface(c) => c.reversed,
        _ => true,
    });
    assert!(all_reversed);
    let ex = check_donors_are_the_geometric_neighbours(&mesh);
    assert_eq!(ex.len(), 4 * 8 * 2);
    let q = QualityReport::new(&mesh, &MeshMetrics::new(&mesh).unwrap()).unwrap();
    assert!(q.max_periodic_mismatch.unwrap() < 1e-15 && q.max_one_to_one_mismatch.unwrap() < 1e-15);
}

#[test]
fn exchange_fills_ghosts_with_neighbour_values() {
    // A field periodic in y: after the exchange every interface ghost holds the value at its
    // own (extrapolated) centre.
    let mesh = three_block_channel(true);
    let ex = GhostExchange::new(&mesh).unwrap();
    let metrics = MeshMetrics::new(&mesh).unwrap();
    let f = |p: [f64; 2]| p[0] * p[0] + (2.0 * std::f64::consts::PI * p[1] / LY).sin();
    let mut field = vec![f64::NAN; ex.layout.total];
    for (b, m) in metrics.blocks.iter().enumerate() {
        for j in 0..m.nj {
            for i in 0..m.ni {
                let c = m.cell(i, j);
                field[ex.layout.index(b, i as isize, j as isize)] = f([m.centre_x[c], m.centre_y[c]]);
            }
        }
    }
    ex.exchange(&mut field).unwrap();
    for g in &ex.ghost_cell {
        let v = field[ex.layout.index(g.block, g.i, g.j)];
        assert!((v - f(affine_centre(&mesh, *g))).abs() < 1e-12, "ghost {g:?}: {v}");
    }
    assert!(ex.exchange(&mut field[1..]).is_err());
}

#[test]
fn a_one_cell_thick_donor_is_refused() {
    let one = simple::periodic_channel(6, 4, 1.0, 1.0, BoundaryKind::Inlet, BoundaryKind::Outlet).unwrap();
    let thin = simple::split_i(&one, 0, 1).unwrap();
    let e = GhostExchange::new(&thin).unwrap_err().to_string();
    assert!(e.contains("only 1 cell(s) thick"), "{e}");
}

fn connection_mut(m: &mut Mesh, b: usize, face: Face) -> &mut Connection {
    match &mut m.blocks[b].patches.iter_mut().find(|p| p.face == face).unwrap().kind {
        BoundaryKind::Interface(c) => c,
        other => panic!("test mesh: {face:?} of block {b} is {other:?}"),
    }
}

#[test]
fn broken_connections_are_reported() {
    let good = three_block_channel(false);
    let cases: [(&str, fn(&mut Connection)); 5] = [
        ("does not exist", |c| c.donor_block = 9),
        ("run off donor block", |c| c.donor_start = 2),
        ("instead", |c| c.reversed = !c.reversed),
        ("not the opposite", |c| c.translation = [0.0, 0.5]),
        ("points to block 2", |c| c.donor_face = Face::IMax),
    ];
    for (msg, breakit) in cases {
        let mut m = good.clone();
        // Block 0's IMax faces block 1's IMin (1-to-1).
        breakit(connection_mut(&mut m, 0, Face::IMax));
        let e = validate(&m).unwrap_err().to_string();
        assert!(e.contains(msg), "expected '{msg}' in: {e}");
    }
}
