//! Patches of rows and their closures, for triangular solves by Jacobi sweeps run patch by
//! patch (the GPU's fused sweeps, `backend::gpu::patch_sweeps`): a patch is a compact group of
//! rows (cells of one mesh block, `CpuJacobian::patches`); its closure at depth d adds every row
//! its rows reach within d couplings of one triangle. d Jacobi sweeps of the triangle then give
//! the patch's rows their whole-matrix values from the closure alone: sweep s + 1 of a row
//! reads sweep s of the rows it couples to, so a row at distance k from the patch is right up to
//! sweep d - k, all that the rows nearer the patch read of it; the rows at the closure's edge drop
//! their couplings to rows outside and go wrong from their first sweep on, too late to reach the
//! patch.

/// One side's patches on the host: patch p's local rows are `rows[patch_ptr[p]..patch_ptr[p + 1]]`,
/// its own rows first (`owned[p]` of them), then the closure's rows by distance; local row l's
/// entries are `entries[entry_ptr[l]..entry_ptr[l + 1]]`, each (local column within the patch,
/// factor index), in the row's order.
#[derive(Debug, Default, PartialEq)]
pub struct PatchLists {
    pub patch_ptr: Vec<i32>,
    pub owned: Vec<i32>,
    pub rows: Vec<i32>,
    pub entry_ptr: Vec<i32>,
    pub entries: Vec<[i32; 2]>,
}

impl PatchLists {
    /// The closures of `patches` at `depth` couplings over one side: row i's entries are
    /// `side[ptr[i]..ptr[i + 1]]`, each (column, factor index).
    pub fn new(patches: &[Vec<usize>], n_rows: usize, ptr: &[usize], side: &[[usize; 2]], depth: usize) -> Self {
        let mut lists = PatchLists { patch_ptr: vec![0], entry_ptr: vec![0], ..Default::default() };
        // stamp[r] = patch + 1 while r is a local row of that patch, at local index local[r].
        let (mut stamp, mut local) = (vec![0usize; n_rows], vec![0usize; n_rows]);
        for (p, patch) in patches.iter().enumerate() {
            let mut rows: Vec<usize> = Vec::with_capacity(patch.len() * 3);
            for &r in patch {
                stamp[r] = p + 1;
                local[r] = rows.len();
                rows.push(r);
            }
            let mut frontier = 0..rows.len();
            for _ in 0..depth {
                let start = rows.len();
                for i in frontier {
                    for &[column, _] in &side[ptr[rows[i]]..ptr[rows[i] + 1]] {
                        if stamp[column] != p + 1 {
                            stamp[column] = p + 1;
                            local[column] = rows.len();
                            rows.push(column);
                        }
                    }
                }
                frontier = start..rows.len();
            }
            for &r in &rows {
                let inside = side[ptr[r]..ptr[r + 1]].iter().filter(|[column, _]| stamp[*column] == p + 1);
                lists.entries.extend(inside.map(|&[column, factor]| [local[column] as i32, factor as i32]));
                lists.entry_ptr.push(lists.entries.len() as i32);
            }
            lists.rows.extend(rows.iter().map(|&r| r as i32));
            lists.patch_ptr.push(lists.rows.len() as i32);
            lists.owned.push(patch.len() as i32);
        }
        lists
    }

    /// Most local rows of one patch.
    pub fn widest(&self) -> usize {
        self.sizes().map(|(rows, _)| rows).max().unwrap_or(0)
    }

    /// The most shared memory the GPU's fused sweeps need for one patch of these lists
    /// (`PatchShared` in cuda/ilu.cu): three vectors of `block` doubles a row (two sweep iterates
    /// and the right-hand side), the entries' factor blocks of `factor_bytes` a value, with
    /// `pivots` the rows' inverse pivot blocks, the entry offsets, the entries' local columns and
    /// factor indices, and the rows.
    pub fn widest_shared_bytes(&self, block: usize, factor_bytes: usize, pivots: bool) -> usize {
        let bytes = |(rows, entries): (usize, usize)| {
            let pivot_rows = if pivots { rows } else { 0 };
            3 * block * rows * 8 + block * block * factor_bytes * (entries + pivot_rows) + 4 * (2 * rows + 1 + 2 * entries)
        };
        self.sizes().map(bytes).max().unwrap_or(0)
    }

    /// Each patch's local rows and their entries.
    pub fn sizes(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.patch_ptr.windows(2).map(|w| {
            let (first, end) = (w[0] as usize, w[1] as usize);
            (end - first, (self.entry_ptr[end] - self.entry_ptr[first]) as usize)
        })
    }
}

/// The closures of the largest side in `sides` (tried in order) for which `fits(lower, upper)`:
/// (side, lower lists, upper lists), or `None`. `cut(side)`: the rows cut into patches; each
/// triangle as (row pointers, (column, factor index)).
pub fn fitting_patches(
    cut: &dyn Fn(usize) -> Vec<Vec<usize>>,
    sides: &[usize],
    (ptr_lower, lower): (&[usize], &[[usize; 2]]),
    (ptr_upper, upper): (&[usize], &[[usize; 2]]),
    depth: usize,
    fits: &dyn Fn(&PatchLists, &PatchLists) -> bool,
) -> Option<(usize, PatchLists, PatchLists)> {
    let n_rows = ptr_lower.len() - 1;
    sides.iter().find_map(|&side| {
        let patches = cut(side);
        let forward = PatchLists::new(&patches, n_rows, ptr_lower, lower, depth);
        let backward = PatchLists::new(&patches, n_rows, ptr_upper, upper, depth);
        fits(&forward, &backward).then_some((side, forward, backward))
    })
}

#[cfg(test)]
mod tests {
    use super::PatchLists;

    /// Row i of an n x n grid (i fastest) couples to its west and south neighbours on the lower
    /// side, factor index = the neighbour's row (any distinct value).
    fn grid_lower(n: usize) -> (Vec<usize>, Vec<[usize; 2]>) {
        let (mut ptr, mut side) = (vec![0], Vec::new());
        for j in 0..n {
            for i in 0..n {
                if i > 0 {
                    side.push([i - 1 + n * j, i - 1 + n * j]);
                }
                if j > 0 {
                    side.push([i + n * (j - 1), i + n * (j - 1)]);
                }
                ptr.push(side.len());
            }
        }
        (ptr, side)
    }

    /// Scalar Jacobi sweeps y_new_i = r_i - sum a_k y_old_k over `side` (factor = a_k's index into
    /// `a`), on the whole grid.
    fn sweeps_whole(ptr: &[usize], side: &[[usize; 2]], a: &[f64], r: &[f64], sweeps: usize) -> Vec<f64> {
        let mut y = r.to_vec();
        for _ in 0..sweeps {
            y = (0..r.len()).map(|i| side[ptr[i]..ptr[i + 1]].iter().fold(r[i], |acc, &[c, f]| acc - a[f] * y[c])).collect();
        }
        y
    }

    /// The same sweeps patch by patch from the lists, as the fused kernel runs them.
    fn sweeps_patched(lists: &PatchLists, a: &[f64], r: &[f64], sweeps: usize) -> Vec<f64> {
        let mut out = vec![f64::NAN; r.len()];
        for p in 0..lists.owned.len() {
            let (first, end) = (lists.patch_ptr[p] as usize, lists.patch_ptr[p + 1] as usize);
            let rows = &lists.rows[first..end];
            let mut y: Vec<f64> = rows.iter().map(|&g| r[g as usize]).collect();
            for _ in 0..sweeps {
                y = (first..end)
                    .map(|l| {
                        let entries = &lists.entries[lists.entry_ptr[l] as usize..lists.entry_ptr[l + 1] as usize];
                        entries.iter().fold(r[lists.rows[l] as usize], |acc, &[c, f]| acc - a[f as usize] * y[c as usize])
                    })
                    .collect();
            }
            for (l, &g) in rows.iter().enumerate().take(lists.owned[p] as usize) {
                out[g as usize] = y[l];
            }
        }
        out
    }

    fn square_patches(n: usize, side: usize) -> Vec<Vec<usize>> {
        let mut patches = Vec::new();
        for j0 in (0..n).step_by(side) {
            for i0 in (0..n).step_by(side) {
                patches.push((j0..(j0 + side).min(n)).flat_map(|j| (i0..(i0 + side).min(n)).map(move |i| i + n * j)).collect());
            }
        }
        patches
    }

    #[test]
    fn patched_sweeps_equal_whole_grid_sweeps_bit_for_bit() {
        let n = 23;
        let (ptr, side) = grid_lower(n);
        let a: Vec<f64> = (0..n * n).map(|k| 0.3 + 0.4 * ((k * 7919) % 101) as f64 / 101.0).collect();
        let r: Vec<f64> = (0..n * n).map(|k| ((k * 104729) % 97) as f64 / 97.0 - 0.5).collect();
        for sweeps in [0, 1, 3, 8] {
            for patch_side in [1, 5, 8] {
                let lists = PatchLists::new(&square_patches(n, patch_side), n * n, &ptr, &side, sweeps);
                let (whole, patched) = (sweeps_whole(&ptr, &side, &a, &r, sweeps), sweeps_patched(&lists, &a, &r, sweeps));
                assert!(whole.iter().zip(&patched).all(|(w, p)| w.to_bits() == p.to_bits()), "sweeps {sweeps}, patch side {patch_side}");
            }
        }
    }

    #[test]
    fn closure_of_a_patch_reaches_depth_couplings_only() {
        // An 8 x 8 patch in the corner of a 20 x 20 grid, 3 sweeps over the lower side: the patch
        // and the cells up to 3 steps west or south of it.
        let n = 20;
        let (ptr, side) = grid_lower(n);
        let patch: Vec<usize> = (8..16).flat_map(|j| (8..16).map(move |i| i + n * j)).collect();
        let lists = PatchLists::new(&[patch], n * n, &ptr, &side, 3);
        let (mut expected, mut got) = (Vec::new(), lists.rows.iter().map(|&r| r as usize).collect::<Vec<_>>());
        for j in 5..16 {
            for i in 5..16 {
                if (8usize.saturating_sub(i) + 8usize.saturating_sub(j)) <= 3 {
                    expected.push(i + n * j);
                }
            }
        }
        expected.sort();
        got.sort();
        assert_eq!(got, expected);
        assert_eq!(lists.owned, vec![64]);
        assert_eq!(lists.widest(), 64 + 2 * 8 * 3 + 3);
    }
}
