//! FGMRES (`solver::krylov`, through a host system of plain vectors) and its preconditioners on
//! random block-diagonally-dominant systems.

mod common;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use turbopt::linalg::*;
use turbopt::solver::krylov::{fgmres, FgmresSettings, FgmresStats, GramSchmidt, KrylovSystem};

/// A BSR system on plain host vectors, with `turbopt::linalg`'s algebra: the CPU backend's.
struct HostSystem<'a, const B: usize> {
    a: &'a BsrMatrix<B>,
    pc: &'a dyn Preconditioner,
}

impl<const B: usize> KrylovSystem for HostSystem<'_, B> {
    type Vector = Vec<f64>;

    fn new_vector(&self) -> Vec<f64> {
        vec![0.0; self.a.n_rows() * B]
    }
    fn apply_operator(&self, x: &Vec<f64>, y: &mut Vec<f64>) {
        self.a.spmv(x, y);
    }
    fn apply_preconditioner(&self, r: &Vec<f64>, z: &mut Vec<f64>) {
        self.pc.apply(r, z);
    }
    fn dot(&self, a: &Vec<f64>, b: &Vec<f64>) -> f64 {
        dot(a, b)
    }
    fn norm2(&self, a: &Vec<f64>) -> f64 {
        norm2(a)
    }
    fn axpy(&self, alpha: f64, x: &Vec<f64>, y: &mut Vec<f64>) {
        axpy(alpha, x, y);
    }
    fn scale(&self, alpha: f64, x: &mut Vec<f64>) {
        x.iter_mut().for_each(|x| *x *= alpha);
    }
    fn divide(&self, x: &mut Vec<f64>, divisor: f64) {
        x.iter_mut().for_each(|x| *x /= divisor);
    }
    fn copy(&self, x: &Vec<f64>, y: &mut Vec<f64>) {
        y.copy_from_slice(x);
    }
}

/// 5-point adjacency of an nx x ny grid of cells (the structure of a 2D first-order Jacobian).
fn grid_adjacency(nx: usize, ny: usize) -> Vec<Vec<usize>> {
    let id = |i: usize, j: usize| i + nx * j;
    let mut nb = vec![Vec::new(); nx * ny];
    for j in 0..ny {
        for i in 0..nx {
            let me = &mut nb[id(i, j)];
            if i > 0 { me.push(id(i - 1, j)); }
            if i + 1 < nx { me.push(id(i + 1, j)); }
            if j > 0 { me.push(id(i, j - 1)); }
            if j + 1 < ny { me.push(id(i, j + 1)); }
        }
    }
    nb
}

/// Random values; diagonal blocks dominant by `margin` over the sum of the row's off-diagonal
/// block entries (row-wise, entry by entry), non-symmetric.
fn random_dominant<const B: usize>(adj: &[Vec<usize>], margin: f64, seed: u64) -> BsrMatrix<B> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut a = BsrMatrix::<B>::from_adjacency(adj);
    for v in a.values.iter_mut() {
        *v = rng.random_range(-1.0..1.0);
    }
    for r in 0..a.n_rows() {
        let mut row_abs = [0.0; B];
        for s in a.pattern.row_ptr[r]..a.pattern.row_ptr[r + 1] {
            let blk = a.block(s);
            for p in 0..B {
                row_abs[p] += (0..B).map(|q| blk[p * B + q].abs()).sum::<f64>();
            }
        }
        let d = a.pattern.diag[r];
        let blk = a.block_mut(d);
        for p in 0..B {
            blk[p * B + p] = margin * row_abs[p] * if p % 2 == 0 { 1.0 } else { -1.0 };
        }
    }
    a
}

fn true_relative_residual<const B: usize>(a: &BsrMatrix<B>, x: &[f64], b: &[f64]) -> f64 {
    let mut ax = vec![0.0; b.len()];
    a.spmv(x, &mut ax);
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| q - p).collect();
    norm2(&r) / norm2(b)
}

fn solve_with<const B: usize>(a: &BsrMatrix<B>, pc: &dyn Preconditioner, restart: usize) -> (FgmresStats, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let b: Vec<f64> = (0..a.n_rows() * B).map(|_| rng.random_range(-1.0..1.0)).collect();
    let mut x = vec![0.0; b.len()];
    let settings = FgmresSettings { restart, rel_tol: 1e-10, abs_tol: 0.0, max_iterations: 2000, ..Default::default() };
    let stats = fgmres(&HostSystem { a, pc }, &b, &mut x, &settings);
    (stats, true_relative_residual(a, &x, &b))
}

#[test]
fn every_preconditioner_solves_to_1e_minus_10() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let jacobi = BlockJacobi::new(&a).unwrap();
    let ilu = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    let mc = BlockIlu0::new(&a, Ordering::Multicolour).unwrap();
    let cases: [(&str, &dyn Preconditioner); 4] =
        [("none", &IdentityPreconditioner), ("block-Jacobi", &jacobi), ("ILU(0)", &ilu), ("multicolour ILU(0)", &mc)];
    let mut iterations = Vec::new();
    for (name, pc) in cases {
        let (stats, rel) = solve_with(&a, pc, 30);
        assert!(stats.converged, "{name}: {stats:?}");
        assert!(rel <= 1e-10, "{name}: true relative residual {rel:e}");
        iterations.push((name, stats.iterations));
    }
    // Better preconditioners need fewer iterations on the same system.
    assert!(iterations[1].1 < iterations[0].1, "{iterations:?}");
    assert!(iterations[2].1 < iterations[1].1, "{iterations:?}");
    assert!(iterations[3].1 < iterations[1].1, "{iterations:?}");
}

#[test]
fn scalar_systems_work_too() {
    let adj = grid_adjacency(40, 10);
    let a = random_dominant::<1>(&adj, 1.2, 3);
    let ilu = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    let (stats, rel) = solve_with(&a, &ilu, 10);
    assert!(stats.converged && rel <= 1e-10, "{stats:?} {rel:e}");
}

#[test]
fn ilu0_is_exact_on_a_block_tridiagonal_chain() {
    // No fill-in is dropped on a chain, so ILU(0) = LU and one iteration suffices.
    let adj = grid_adjacency(50, 1);
    let a = random_dominant::<4>(&adj, 1.1, 5);
    let ilu = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    let (stats, rel) = solve_with(&a, &ilu, 10);
    assert_eq!(stats.iterations, 1, "{stats:?}");
    assert!(rel <= 1e-12, "{rel:e}");
}

#[test]
fn multicolour_ordering_of_a_five_point_grid_has_two_colours() {
    let a = random_dominant::<4>(&grid_adjacency(12, 9), 1.3, 2);
    assert_eq!(BlockIlu0::new(&a, Ordering::Multicolour).unwrap().n_levels(), 2);
}

#[test]
fn restarts_converge_and_full_gmres_finishes_within_n_steps() {
    let adj = grid_adjacency(6, 5);
    let a = random_dominant::<1>(&adj, 0.6, 11); // weakly dominant: takes many iterations
    // Restarted with a small subspace: restarts happen and it still converges.
    let (stats, rel) = solve_with(&a, &IdentityPreconditioner, 4);
    assert!(stats.restarts > 0 && stats.converged && rel <= 1e-10, "{stats:?} {rel:e}");
    // Unrestarted: GMRES terminates in at most n = 30 steps (up to round-off).
    let (full, rel_full) = solve_with(&a, &IdentityPreconditioner, 30);
    assert_eq!(full.restarts, 0, "{full:?}");
    assert!(full.iterations <= 30 && rel_full <= 1e-10, "{full:?} {rel_full:e}");
}

#[test]
fn singular_pivot_is_reported_not_panicking() {
    let adj = grid_adjacency(3, 1);
    let a = BsrMatrix::<4>::from_adjacency(&adj); // all zeros
    let err = BlockIlu0::new(&a, Ordering::Natural).err().expect("singular");
    assert!(err.contains("singular diagonal block in row 0"), "{err}");
    assert!(BlockJacobi::new(&a).is_err());
}

/// The level sets the GPU schedules ILU(0) by: every row once, rows of one level uncoupled, and
/// every coupling to a row earlier in the processing order pointing to an earlier level (so a
/// level may run in parallel in the factorization and the forward sweep, and the levels in
/// reverse in the backward sweep). Natural ordering: wavefronts; a 5-point grid of nx x ny has
/// nx + ny - 1 of them (the anti-diagonals), and the positions are the row numbers.
#[test]
fn processing_levels_are_valid_schedules() {
    use turbopt::linalg::ilu::processing_levels;
    let (nx, ny) = (9, 6);
    let adj = grid_adjacency(nx, ny);
    let a = random_dominant::<4>(&adj, 2.0, 3);
    for ordering in [Ordering::Natural, Ordering::Multicolour] {
        let (levels, position) = processing_levels(&a.pattern, ordering);
        let mut level_of = vec![usize::MAX; a.n_rows()];
        for (l, rows) in levels.iter().enumerate() {
            for &r in rows {
                assert_eq!(level_of[r], usize::MAX, "{ordering:?}: row {r} twice");
                level_of[r] = l;
            }
        }
        assert!(level_of.iter().all(|&l| l != usize::MAX), "{ordering:?}: a row is missing");
        for r in 0..a.n_rows() {
            for &c in &a.pattern.cols[a.pattern.row_ptr[r]..a.pattern.row_ptr[r + 1]] {
                if c != r && position[c] < position[r] {
                    assert!(level_of[c] < level_of[r], "{ordering:?}: row {r} (level {}) needs row {c} (level {})", level_of[r], level_of[c]);
                }
            }
        }
        match ordering {
            Ordering::Natural => {
                assert_eq!(levels.len(), nx + ny - 1);
                assert!(position.iter().enumerate().all(|(r, &p)| p == r));
            }
            Ordering::Multicolour => assert_eq!(levels.len(), 2),
        }
    }
}

/// Jacobi-swept triangular solves: the sweep iterates of a unit triangular system reach the
/// exact solution after as many sweeps as the longest dependency chain (the wavefront count;
/// the iteration matrix is nilpotent), and with no sweep the preconditioner is D^-1 of the
/// ILU pivots.
#[test]
fn jacobi_swept_ilu_reaches_the_exact_solve_after_the_wavefront_count() {
    let adj = grid_adjacency(7, 5);
    let a = random_dominant::<4>(&adj, 1.3, 21);
    let r: Vec<f64> = (0..a.n_rows() * 4).map(|k| ((k * 37 % 11) as f64 - 5.0) / 3.0).collect();
    let exact = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    let mut z_exact = vec![0.0; r.len()];
    exact.apply(&r, &mut z_exact);
    let wavefronts = 7 + 5 - 1;
    let swept = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(wavefronts);
    let mut z = vec![0.0; r.len()];
    swept.apply(&r, &mut z);
    let scale = common::largest(z_exact.iter().map(|v| v.abs()));
    let diff = common::max_abs_difference(&z, &z_exact) / scale;
    assert!(diff <= 1e-13, "after {wavefronts} sweeps: {diff:e}");
    // Fewer sweeps than wavefronts: an approximation, not the exact solve.
    let short = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(2);
    short.apply(&r, &mut z);
    let diff_short = common::max_abs_difference(&z, &z_exact) / scale;
    assert!(diff_short > 1e-6, "2 sweeps: {diff_short:e}");
}

#[test]
fn jacobi_swept_ilu_preconditions_fgmres_between_block_jacobi_and_exact_ilu() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let jacobi = BlockJacobi::new(&a).unwrap();
    let exact = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    let swept = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(3);
    let (sj, _) = solve_with(&a, &jacobi, 30);
    let (se, _) = solve_with(&a, &exact, 30);
    let (ss, rel) = solve_with(&a, &swept, 30);
    assert!(ss.converged && rel <= 1e-10, "{ss:?} {rel:e}");
    assert!(se.iterations <= ss.iterations && ss.iterations < sj.iterations, "exact {} swept {} jacobi {}", se.iterations, ss.iterations, sj.iterations);
}

/// f32 factors (the GPU's `FactorPrecision::Single`): the preconditioner moves by about the f32
/// rounding (it is an approximation of A^-1 anyway), FGMRES keeps its iteration count, and the
/// solution reaches the same accuracy, because the operator stays f64.
#[test]
fn swept_ilu_with_f32_factors_keeps_the_iterations_and_the_accuracy() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let double = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(8);
    let single = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(8).with_single_precision_factors();
    let r: Vec<f64> = (0..a.n_rows() * 4).map(|k| ((k * 37 % 11) as f64 - 5.0) / 3.0).collect();
    let (mut zd, mut zs) = (vec![0.0; r.len()], vec![0.0; r.len()]);
    double.apply(&r, &mut zd);
    single.apply(&r, &mut zs);
    let moved = common::max_relative_difference(&zd, &zs);
    assert!(moved > 0.0 && moved <= 1e-6, "f32 factors moved M^-1 r by {moved:e}");
    let (sd, rel_d) = solve_with(&a, &double, 30);
    let (ss, rel_s) = solve_with(&a, &single, 30);
    assert!(sd.converged && ss.converged && rel_d <= 1e-10 && rel_s <= 1e-10, "{sd:?} {rel_d:e} / {ss:?} {rel_s:e}");
    assert!(ss.iterations.abs_diff(sd.iterations) <= 1, "iterations f64 {} f32 {}", sd.iterations, ss.iterations);
}

/// Classical Gram-Schmidt applied twice (the GPU's Arnoldi step: 5 launches where the modified
/// one takes m + 2) solves every system the modified one solves, to the same accuracy and within
/// one iteration of its count: "twice is enough" (Giraud, Langou, Rozloznik 2005).
#[test]
fn classical_gram_schmidt_twice_matches_the_modified_one() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let jacobi = BlockJacobi::new(&a).unwrap();
    let swept = BlockIlu0::new(&a, Ordering::Natural).unwrap().with_jacobi_sweeps(3);
    let pcs: [(&str, &dyn Preconditioner); 2] = [("block-Jacobi", &jacobi), ("swept ILU", &swept)];
    for (name, pc) in pcs {
        for restart in [5, 30] {
            let solve = |gram_schmidt| {
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                let b: Vec<f64> = (0..a.n_rows() * 4).map(|_| rng.random_range(-1.0..1.0)).collect();
                let mut x = vec![0.0; b.len()];
                let settings = FgmresSettings { restart, rel_tol: 1e-10, abs_tol: 0.0, max_iterations: 2000, gram_schmidt };
                let stats = fgmres(&HostSystem { a: &a, pc }, &b, &mut x, &settings);
                (stats, true_relative_residual(&a, &x, &b))
            };
            let (sm, rm) = solve(GramSchmidt::Modified);
            let (sc, rc) = solve(GramSchmidt::ClassicalTwice);
            assert!(sm.converged && sc.converged && rm <= 1e-10 && rc <= 1e-10, "{name} FGMRES({restart}): {sm:?} {rm:e} / {sc:?} {rc:e}");
            assert!(sc.iterations.abs_diff(sm.iterations) <= 1, "{name} FGMRES({restart}): modified {} classical twice {}", sm.iterations, sc.iterations);
        }
    }
}

/// Strips of a 24 x 16 grid: `k` bands of whole columns.
fn strips_of(nx: usize, ny: usize, k: usize) -> Vec<Vec<usize>> {
    column_strips(&[(nx, ny)], k)
}

#[test]
fn column_strips_cover_every_cell_once_in_bands_of_whole_lines() {
    let strips = column_strips(&[(24, 16), (40, 8)], 8);
    // Shared by cell count (384 and 320 cells): 4 + 4 strips, 6 and 10 columns wide.
    assert_eq!(strips.len(), 8);
    let mut seen = vec![0; 24 * 16 + 40 * 8];
    for s in &strips {
        s.iter().for_each(|&r| seen[r] += 1);
        assert!(s.windows(2).all(|w| w[0] < w[1]), "rows in natural order");
    }
    assert!(seen.iter().all(|&n| n == 1));
    assert_eq!(strips[0].len(), 6 * 16);
    assert_eq!(strips[4].len(), 10 * 8);
    assert_eq!(strips[4][0], 24 * 16, "the second block's strips start at its first row");
}

#[test]
fn strip_ilu_whose_overlap_spans_the_matrix_is_the_natural_ilu() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let natural = BlockIlu0::new(&a, Ordering::Natural).unwrap();
    // Every strip widened to the whole grid factorizes the whole matrix in natural order.
    let strips = StripIlu0::new(&a, &strips_of(24, 16, 4), 40).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let r: Vec<f64> = (0..a.n_rows() * 4).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (mut z0, mut z1) = (vec![0.0; r.len()], vec![0.0; r.len()]);
    natural.apply(&r, &mut z0);
    strips.apply(&r, &mut z1);
    assert_eq!(z0, z1);
}

#[test]
fn strip_ilu_preconditions_between_block_jacobi_and_the_natural_ilu_and_overlap_helps() {
    let adj = grid_adjacency(24, 16);
    let a = random_dominant::<4>(&adj, 1.3, 1);
    let (sj, _) = solve_with(&a, &BlockJacobi::new(&a).unwrap(), 30);
    let (se, _) = solve_with(&a, &BlockIlu0::new(&a, Ordering::Natural).unwrap(), 30);
    let (s0, rel0) = solve_with(&a, &StripIlu0::new(&a, &strips_of(24, 16, 6), 0).unwrap(), 30);
    let (s2, rel2) = solve_with(&a, &StripIlu0::new(&a, &strips_of(24, 16, 6), 2).unwrap(), 30);
    println!("FGMRES iterations: block-Jacobi {}, strips {}, strips with overlap 2 {}, natural ILU {}", sj.iterations, s0.iterations, s2.iterations, se.iterations);
    assert!(s0.converged && rel0 <= 1e-10 && s2.converged && rel2 <= 1e-10, "{s0:?} {rel0:e} {s2:?} {rel2:e}");
    assert!(se.iterations <= s2.iterations && s2.iterations <= s0.iterations && s0.iterations < sj.iterations);
}

#[test]
fn strip_ilu_and_the_vector_algebra_give_the_same_bits_on_any_thread_count() {
    let adj = grid_adjacency(64, 48);
    let a = random_dominant::<4>(&adj, 1.3, 2);
    let pc = StripIlu0::new(&a, &strips_of(64, 48, 8), 2).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let r: Vec<f64> = (0..a.n_rows() * 4).map(|_| rng.random_range(-1.0..1.0)).collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            let mut z = vec![0.0; r.len()];
            pc.apply(&r, &mut z);
            let d = dot(&z, &r);
            axpy(0.5, &r, &mut z);
            (z, d)
        })
    };
    let (z1, d1) = run(1);
    let (z4, d4) = run(4);
    assert_eq!(z1, z4);
    assert_eq!(d1.to_bits(), d4.to_bits());
}

#[test]
fn strips_that_miss_or_repeat_a_row_are_refused_by_name() {
    let a = random_dominant::<1>(&grid_adjacency(4, 4), 1.3, 1);
    let missing = StripIlu0::new(&a, &[vec![0, 1, 2]], 0).err().unwrap();
    assert!(missing.contains("row 3 is in no strip"), "{missing}");
    let twice = StripIlu0::new(&a, &[(0..16).collect(), vec![5]], 0).err().unwrap();
    assert!(twice.contains("row 5"), "{twice}");
}
