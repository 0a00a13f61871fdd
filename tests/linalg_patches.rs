//! The row patches of the GPU's fused triangular sweeps (`linalg::patches`) on the product's
//! meshes: with the GPU default of 8 sweeps, the closures of 16 x 16 patches of LS89 coarse and
//! medium fit a 96 KB shared-memory block (two sweep vectors of 4 values a row: 1,536 rows), so
//! the preconditioner of every evaluation takes the fused path, and every row lies in one patch.

use turbopt::backend::cpu::CpuGeometry;
use turbopt::backend::cpu::CpuJacobian;
use turbopt::cascade::{BladeChoice, CascadeSetup, PreparedCascade};
use turbopt::geometry::load_blade_file;
use turbopt::linalg::patches::fitting_patches;
use turbopt::mesh::Density;

/// Rows the GPU's fused sweeps fit in shared memory with 4 x 4 blocks: 96 KB over two f64
/// vectors of 4 values (backend::gpu::patch_sweeps).
const FITTING_ROWS: usize = 96 * 1024 / (2 * 4 * 8);

/// Each row's (column, slot) entries on one side of the diagonal, natural ordering.
fn triangle(jac: &CpuJacobian, lower: bool) -> (Vec<usize>, Vec<[usize; 2]>) {
    let m = &jac.matrix;
    let (mut ptr, mut entries) = (vec![0], Vec::new());
    for i in 0..m.n_rows {
        for s in m.row_ptr[i]..m.row_ptr[i + 1] {
            let k = m.cols[s];
            if (k < i && lower) || (k > i && !lower) {
                entries.push([k, s]);
            }
        }
        ptr.push(entries.len());
    }
    (ptr, entries)
}

#[test]
fn ls89_closures_of_16_by_16_patches_fit_at_8_sweeps() {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    for density in [Density::Coarse, Density::Medium] {
        let prepared = PreparedCascade::new(&blade, BladeChoice::Main, &CascadeSetup::new(&blade, vec![op.clone()], density)).unwrap();
        let jac = CpuJacobian::new(&CpuGeometry::from_mesh(&prepared.mesh).unwrap()).unwrap();
        let ((pl, l), (pu, u)) = (triangle(&jac, true), triangle(&jac, false));
        let (side, forward, backward) =
            fitting_patches(&|side| jac.patches(side), &[16, 12, 8], (&pl, &l), (&pu, &u), 8, FITTING_ROWS).expect("patches that fit");
        let n = jac.n_cells();
        let mut owners = vec![0; n];
        for lists in [&forward, &backward] {
            for p in 0..lists.owned.len() {
                let first = lists.patch_ptr[p] as usize;
                for &r in &lists.rows[first..first + lists.owned[p] as usize] {
                    owners[r as usize] += 1;
                }
            }
        }
        let redundancy = (forward.rows.len() + backward.rows.len()) as f64 / (2 * n) as f64;
        println!(
            "{density:?}: {n} rows, {} patches of side {side}, widest closure {} / {} rows, {redundancy:.2} closure rows per row",
            forward.owned.len(),
            forward.widest(),
            backward.widest()
        );
        assert_eq!(side, 16, "{density:?}");
        assert!(owners.iter().all(|&k| k == 2), "{density:?}: every row owned by exactly one patch on each side");
    }
}
