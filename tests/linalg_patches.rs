//! The row patches of the GPU's fused triangular sweeps (`linalg::patches`) on the product's
//! meshes: with the GPU default of 8 sweeps, the closures of 16 x 16 patches (and smaller) of
//! LS89 coarse and medium fit the 227 KB of shared memory an H100 block may use with their vectors, f32 factors
//! and pivots (backend::gpu::patch_sweeps), and every row lies in exactly one patch.

use turbopt::backend::cpu::CpuGeometry;
use turbopt::backend::cpu::CpuJacobian;
use turbopt::cascade::{BladeChoice, CascadeSetup, PreparedCascade};
use turbopt::geometry::load_blade_file;
use turbopt::linalg::patches::{fitting_patches, PatchLists};
use turbopt::mesh::Density;

/// Shared memory a block may opt in to on an H100 (cudaDevAttrMaxSharedMemoryPerBlockOptin).
const H100_BLOCK_SHARED_BYTES: usize = 227 * 1024;

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
fn ls89_closures_of_patches_fit_an_h100_block_at_8_sweeps() {
    let blade = load_blade_file("blades/ls89.ron").unwrap();
    let op = blade.operating_point("MUR47").unwrap().clone();
    for density in [Density::Coarse, Density::Medium] {
        let prepared = PreparedCascade::new(&blade, BladeChoice::Main, &CascadeSetup::new(&blade, vec![op.clone()], density)).unwrap();
        let jac = CpuJacobian::new(&CpuGeometry::from_mesh(&prepared.mesh).unwrap()).unwrap();
        let ((pl, l), (pu, u)) = (triangle(&jac, true), triangle(&jac, false));
        let bytes = |f: &PatchLists, b: &PatchLists| f.widest_shared_bytes(4, 4, false).max(b.widest_shared_bytes(4, 4, true));
        for side in [16, 12, 8] {
            let f = |_: &PatchLists, _: &PatchLists| true;
            let (_, a, b) = fitting_patches(&|s| jac.patches(s), &[side], (&pl, &l), (&pu, &u), 8, &f).unwrap();
            println!("{density:?}, side {side}: {} patches, widest {} / {} rows, {} bytes", a.owned.len(), a.widest(), b.widest(), bytes(&a, &b));
        }
        let fits = |f: &PatchLists, b: &PatchLists| bytes(f, b) <= H100_BLOCK_SHARED_BYTES;
        let (side, forward, backward) = fitting_patches(&|side| jac.patches(side), &[16, 12, 8], (&pl, &l), (&pu, &u), 8, &fits).expect("patches that fit");
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
        let most_entries = |p: &PatchLists| p.entry_ptr.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        println!(
            "{density:?}: {n} rows, {} patches of side {side}, widest closure {} / {} rows, {redundancy:.2} closure rows per row, \
             at most {} / {} entries a row, entries {:?} / {:?} in the widest patch",
            forward.owned.len(),
            forward.widest(),
            backward.widest(),
            most_entries(&forward),
            most_entries(&backward),
            forward.sizes().max(),
            backward.sizes().max(),
        );
        assert!(most_entries(&forward).max(most_entries(&backward)) <= 4, "{density:?}: at most 4 entries a row on a side");
        assert!(owners.iter().all(|&k| k == 2), "{density:?}: every row owned by exactly one patch on each side");
    }
}
