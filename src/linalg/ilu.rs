//! Preconditioners for FGMRES on block-sparse systems: block-Jacobi, block ILU(0) in the
//! natural (cell) ordering, and multicolour block ILU(0) whose rows of one colour are mutually
//! uncoupled, so that factorization and both triangular solves run in parallel colour by colour
//! (the GPU-friendly variant the thesis discusses in 5.4).

use super::bsr::{BsrMatrix, BsrPattern};
use nalgebra::SMatrix;
use rayon::prelude::*;

/// z = M^-1 r.
pub trait Preconditioner: Sync {
    fn apply(&self, r: &[f64], z: &mut [f64]);
}

/// No preconditioning (z = r): the baseline for tests.
pub struct IdentityPreconditioner;

impl Preconditioner for IdentityPreconditioner {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        z.copy_from_slice(r);
    }
}

fn to_mat<const B: usize>(v: &[f64]) -> SMatrix<f64, B, B> {
    SMatrix::<f64, B, B>::from_row_slice(v)
}

fn write_mat<const B: usize>(m: &SMatrix<f64, B, B>, out: &mut [f64]) {
    for a in 0..B {
        for b in 0..B {
            out[a * B + b] = m[(a, b)];
        }
    }
}

fn invert<const B: usize>(v: &[f64], row: usize) -> Result<SMatrix<f64, B, B>, String> {
    to_mat::<B>(v).try_inverse().ok_or_else(|| format!("singular diagonal block in row {row}"))
}

/// Inverse diagonal blocks.
pub struct BlockJacobi<const B: usize> {
    inv_diag: Vec<SMatrix<f64, B, B>>,
}

impl<const B: usize> BlockJacobi<B> {
    pub fn new(a: &BsrMatrix<B>) -> Result<Self, String> {
        let inv_diag = (0..a.pattern.n_rows).map(|r| invert::<B>(a.block(a.pattern.diag[r]), r)).collect::<Result<_, _>>()?;
        Ok(BlockJacobi { inv_diag })
    }
}

impl<const B: usize> Preconditioner for BlockJacobi<B> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        z.par_chunks_mut(B).zip(r.par_chunks(B)).zip(&self.inv_diag).for_each(|((z, r), d)| {
            let v = d * nalgebra::SVector::<f64, B>::from_column_slice(r);
            z.copy_from_slice(v.as_slice());
        });
    }
}

/// Row processing order of an ILU factorization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ordering {
    /// Cell order: the classic sequential ILU(0).
    Natural,
    /// Greedy graph colouring; rows of one colour are processed in parallel.
    Multicolour,
}

/// Block ILU(0): L U = A on the pattern of A, L unit lower block triangular.
///
/// The triangular solves of `apply` are exact (level by level) unless
/// [`BlockIlu0::with_jacobi_sweeps`] replaced them by a fixed number of Jacobi sweeps.
pub struct BlockIlu0<const B: usize> {
    /// L (strictly lower part) and U (upper part, diagonal included) in A's pattern.
    lu: BsrMatrix<B>,
    inv_diag: Vec<SMatrix<f64, B, B>>,
    /// Groups of rows processed together, in order (one row per group for natural ordering).
    levels: Vec<Vec<usize>>,
    /// Position of each row in the processing order.
    position: Vec<usize>,
    /// `Some(n)`: each triangular solve is `n` Jacobi sweeps instead of the exact sweep.
    jacobi_sweeps: Option<usize>,
    /// Factors rounded to f32 after each factorization (`FactorPrecision::Single`).
    single_precision_factors: bool,
}

impl<const B: usize> BlockIlu0<B> {
    /// Factorize `a`. Fails on a singular (pivot) diagonal block, naming its row.
    pub fn new(a: &BsrMatrix<B>, ordering: Ordering) -> Result<Self, String> {
        let levels = match ordering {
            Ordering::Natural => (0..a.pattern.n_rows).map(|r| vec![r]).collect(),
            Ordering::Multicolour => colour_classes(&a.pattern),
        };
        let mut position = vec![0; a.pattern.n_rows];
        for (p, r) in levels.iter().flatten().enumerate() {
            position[*r] = p;
        }
        let mut ilu = BlockIlu0 { lu: a.clone(), inv_diag: vec![SMatrix::zeros(); a.pattern.n_rows], levels, position, jacobi_sweeps: None, single_precision_factors: false };
        ilu.factorize()?;
        Ok(ilu)
    }

    /// Refactorize with new values on the same pattern (the on-demand refresh of thesis 5.4.2).
    pub fn refactorize(&mut self, a: &BsrMatrix<B>) -> Result<(), String> {
        self.lu.values.copy_from_slice(&a.values);
        self.factorize()?;
        if self.single_precision_factors {
            self.round_factors_to_f32();
        }
        Ok(())
    }

    /// Keeps the factors (L, U and the inverse pivot blocks) rounded to f32, now and after every
    /// refactorization; the sweeps' arithmetic stays f64. The twin of the GPU's f32 factors
    /// (`FactorPrecision::Single`), whose kernels widen each f32 factor to f64 before the same
    /// products, so both apply the same operator.
    pub fn with_single_precision_factors(mut self) -> Self {
        self.single_precision_factors = true;
        self.round_factors_to_f32();
        self
    }

    fn round_factors_to_f32(&mut self) {
        let round = |x: &mut f64| *x = *x as f32 as f64;
        self.lu.values.iter_mut().for_each(round);
        self.inv_diag.iter_mut().for_each(|m| m.iter_mut().for_each(round));
    }

    /// Replaces the exact triangular solves of `apply` by `sweeps` Jacobi sweeps each (Anzt,
    /// Chow & Dongarra 2015, "Iterative sparse triangular solves for preconditioning"): every
    /// row of a sweep reads only the previous sweep's values, so a sweep is one parallel step
    /// whatever the ordering, where the exact natural-order solve is a chain of wavefronts
    /// (about 1,000 on LS89 medium). The result is the truncated Neumann series of the exact
    /// solve: y = sum_{s<=n} (-L)^s r forward, likewise backward with D^-1 U; a fixed linear
    /// operator, so FGMRES sees a fixed preconditioner.
    pub fn with_jacobi_sweeps(mut self, sweeps: usize) -> Self {
        self.jacobi_sweeps = Some(sweeps);
        self
    }

    pub fn n_levels(&self) -> usize {
        self.levels.len()
    }

    fn factorize(&mut self) -> Result<(), String> {
        for level in 0..self.levels.len() {
            // Rows of one level only read rows of earlier levels: compute them independently
            // (a natural ordering's single-row levels without the parallel machinery).
            let new_rows: Vec<(usize, Vec<f64>, SMatrix<f64, B, B>)> = match self.levels[level].as_slice() {
                [i] => vec![self.factor_row(*i)?],
                rows => rows.par_iter().map(|&i| self.factor_row(i)).collect::<Result<_, String>>()?,
            };
            for (i, row, inv) in new_rows {
                let a = self.lu.pattern.row_ptr[i];
                self.lu.values[a * B * B..a * B * B + row.len()].copy_from_slice(&row);
                self.inv_diag[i] = inv;
            }
        }
        Ok(())
    }

    /// Row `i` of the factors (L and U blocks, the inverse pivot block), from the rows processed
    /// before it.
    fn factor_row(&self, i: usize) -> Result<(usize, Vec<f64>, SMatrix<f64, B, B>), String> {
        let (lu, position, inv_diag) = (&self.lu, &self.position, &self.inv_diag);
        let (a, b) = (lu.pattern.row_ptr[i], lu.pattern.row_ptr[i + 1]);
        let mut row = lu.values[a * B * B..b * B * B].to_vec();
        let mut lower: Vec<usize> = (a..b).filter(|&s| position[lu.pattern.cols[s]] < position[i]).collect();
        lower.sort_by_key(|&s| position[lu.pattern.cols[s]]);
        for s_ik in lower {
            let k = lu.pattern.cols[s_ik];
            // L_ik = A_ik U_kk^-1
            let l_ik = to_mat::<B>(&row[(s_ik - a) * B * B..(s_ik - a + 1) * B * B]) * inv_diag[k];
            write_mat(&l_ik, &mut row[(s_ik - a) * B * B..(s_ik - a + 1) * B * B]);
            // A_ij -= L_ik U_kj for the j in both rows that come after k.
            for s_kj in lu.pattern.row_ptr[k]..lu.pattern.row_ptr[k + 1] {
                let j = lu.pattern.cols[s_kj];
                if position[j] <= position[k] {
                    continue;
                }
                if let Ok(off) = lu.pattern.cols[a..b].binary_search(&j) {
                    let upd = to_mat::<B>(&row[off * B * B..(off + 1) * B * B]) - l_ik * to_mat::<B>(lu.block(s_kj));
                    write_mat(&upd, &mut row[off * B * B..(off + 1) * B * B]);
                }
            }
        }
        let d = lu.pattern.diag[i] - a;
        let inv = invert::<B>(&row[d * B * B..(d + 1) * B * B], i)?;
        Ok((i, row, inv))
    }
}

impl<const B: usize> BlockIlu0<B> {
    fn vec_of(v: &[f64], c: usize) -> nalgebra::SVector<f64, B> {
        nalgebra::SVector::<f64, B>::from_column_slice(&v[c * B..(c + 1) * B])
    }

    /// y_i = r_i - sum over rows k processed before i of L_ik y_k (r_i read from `rhs`, the
    /// y_k from `y`; the exact sweep passes the vector it updates in place as both).
    fn forward_row(&self, i: usize, rhs: &[f64], y: &[f64]) -> nalgebra::SVector<f64, B> {
        let mut yi = Self::vec_of(rhs, i);
        for s in self.lu.pattern.row_ptr[i]..self.lu.pattern.row_ptr[i + 1] {
            let k = self.lu.pattern.cols[s];
            if self.position[k] < self.position[i] {
                yi -= to_mat::<B>(self.lu.block(s)) * Self::vec_of(y, k);
            }
        }
        yi
    }

    /// x_i = D_i^-1 (y_i - sum over rows j processed after i of U_ij x_j) (y_i from `rhs`, the
    /// x_j from `x`).
    fn backward_row(&self, i: usize, rhs: &[f64], x: &[f64]) -> nalgebra::SVector<f64, B> {
        let mut yi = Self::vec_of(rhs, i);
        for s in self.lu.pattern.row_ptr[i]..self.lu.pattern.row_ptr[i + 1] {
            let j = self.lu.pattern.cols[s];
            if self.position[j] > self.position[i] {
                yi -= to_mat::<B>(self.lu.block(s)) * Self::vec_of(x, j);
            }
        }
        self.inv_diag[i] * yi
    }

    /// One Jacobi sweep over all rows: `out_i = row(i, rhs, old)` in parallel.
    fn jacobi_sweep(&self, rhs: &[f64], old: &[f64], out: &mut [f64], row: impl Fn(usize, &[f64], &[f64]) -> nalgebra::SVector<f64, B> + Sync) {
        out.par_chunks_mut(B).enumerate().for_each(|(i, o)| o.copy_from_slice(row(i, rhs, old).as_slice()));
    }

    /// `z = (LU)^-1 r` approximated by `sweeps` Jacobi sweeps per triangle, starting from y = r
    /// and x = D^-1 y (the GPU's `ilu_*_jacobi` kernels run the same steps).
    fn apply_jacobi_sweeps(&self, sweeps: usize, r: &[f64], z: &mut [f64]) {
        let mut y = r.to_vec();
        let mut scratch = vec![0.0; r.len()];
        for _ in 0..sweeps {
            self.jacobi_sweep(r, &y, &mut scratch, |i, rhs, old| self.forward_row(i, rhs, old));
            std::mem::swap(&mut y, &mut scratch);
        }
        z.par_chunks_mut(B).enumerate().for_each(|(i, zi)| zi.copy_from_slice((self.inv_diag[i] * Self::vec_of(&y, i)).as_slice()));
        for _ in 0..sweeps {
            self.jacobi_sweep(&y, z, &mut scratch, |i, rhs, old| self.backward_row(i, rhs, old));
            z.copy_from_slice(&scratch);
        }
    }

    /// Apply `row_update` level by level: rows of one level in parallel (they are uncoupled),
    /// single-row levels (natural ordering) in place without the parallel machinery.
    fn sweep<'a>(
        &self,
        levels: impl Iterator<Item = &'a Vec<usize>>,
        z: &mut [f64],
        row_update: impl Fn(usize, &[f64], &[f64]) -> nalgebra::SVector<f64, B> + Sync,
    ) {
        for rows in levels {
            if let [i] = rows.as_slice() {
                let v = row_update(*i, z, z);
                z[i * B..(i + 1) * B].copy_from_slice(v.as_slice());
                continue;
            }
            let zr: &[f64] = z;
            let upd: Vec<(usize, nalgebra::SVector<f64, B>)> = rows.par_iter().map(|&i| (i, row_update(i, zr, zr))).collect();
            for (i, v) in upd {
                z[i * B..(i + 1) * B].copy_from_slice(v.as_slice());
            }
        }
    }
}

impl<const B: usize> Preconditioner for BlockIlu0<B> {
    fn apply(&self, r: &[f64], z: &mut [f64]) {
        if let Some(sweeps) = self.jacobi_sweeps {
            return self.apply_jacobi_sweeps(sweeps, r, z);
        }
        z.copy_from_slice(r);
        self.sweep(self.levels.iter(), z, |i, rhs, y| self.forward_row(i, rhs, y));
        self.sweep(self.levels.iter().rev(), z, |i, rhs, x| self.backward_row(i, rhs, x));
    }
}

/// The rows of `a` grouped into levels that a parallel machine processes one after the other,
/// for an ILU(0) in `ordering`, and each row's place in the processing order (`position`).
/// Rows of one level depend only on rows of earlier levels, in the factorization and in both
/// triangular sweeps (backward: the levels in reverse), so each level is one parallel step:
/// * `Natural`: the wavefronts of the lower triangle's dependency graph, level(r) = 1 + the
///   largest level of the earlier rows r couples to (the level scheduling of Anderson & Saad
///   1989, as in cuSPARSE's analysis phase); the factors are those of the sequential natural
///   ILU(0), row for row;
/// * `Multicolour`: the colour classes of a greedy colouring (`colour_classes`).
///
/// Assumes a structurally symmetric pattern, as cell adjacency is (then a later row that row r
/// couples to has a higher level, which makes the reversed levels valid for the backward sweep).
pub fn processing_levels(a: &BsrPattern, ordering: Ordering) -> (Vec<Vec<usize>>, Vec<usize>) {
    let levels = match ordering {
        Ordering::Natural => wavefronts(a),
        Ordering::Multicolour => colour_classes(a),
    };
    let mut position = vec![0; a.n_rows];
    match ordering {
        Ordering::Natural => position.iter_mut().enumerate().for_each(|(r, p)| *p = r),
        Ordering::Multicolour => {
            for (p, r) in levels.iter().flatten().enumerate() {
                position[*r] = p;
            }
        }
    }
    (levels, position)
}

/// Level sets of the natural ordering's lower triangle.
fn wavefronts(a: &BsrPattern) -> Vec<Vec<usize>> {
    let mut level = vec![0usize; a.n_rows];
    let mut levels: Vec<Vec<usize>> = Vec::new();
    for r in 0..a.n_rows {
        let l = a.cols[a.row_ptr[r]..a.row_ptr[r + 1]].iter().filter(|&&c| c < r).map(|&c| level[c] + 1).max().unwrap_or(0);
        level[r] = l;
        if l == levels.len() {
            levels.push(Vec::new());
        }
        levels[l].push(r);
    }
    levels
}

/// Greedy colouring of the matrix graph (rows adjacent when a block couples them): each colour
/// class is an independent set. Assumes a structurally symmetric pattern, as cell adjacency is.
fn colour_classes(a: &BsrPattern) -> Vec<Vec<usize>> {
    let mut colour = vec![usize::MAX; a.n_rows];
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for r in 0..a.n_rows {
        let used: Vec<usize> = a.cols[a.row_ptr[r]..a.row_ptr[r + 1]].iter().map(|&c| colour[c]).collect();
        let c = (0..).find(|c| !used.contains(c)).expect("a free colour exists");
        colour[r] = c;
        if c == classes.len() {
            classes.push(Vec::new());
        }
        classes[c].push(r);
    }
    classes
}
