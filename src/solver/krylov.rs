//! Restarted flexible GMRES (Saad 1993; Saad, Iterative Methods, alg. 9.6), written once for
//! every backend (docs/architecture.md, "GPU backend", "Krylov once"): right preconditioning that may change
//! from one iteration to the next, Arnoldi with modified Gram-Schmidt or classical Gram-Schmidt
//! applied twice ([`GramSchmidt`]), Givens rotations for the least-squares problem. The Krylov
//! vectors stay where the backend keeps them; only inner products and norms come back to the
//! host, where the small Hessenberg problem is solved.

pub use crate::backend::GramSchmidt;
use crate::backend::{ImplicitBackend, System};

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FgmresSettings {
    /// Krylov subspace size before a restart (m).
    pub restart: usize,
    /// Stop when ||b - A x|| <= rel_tol * ||b - A x0||.
    pub rel_tol: f64,
    /// Also stop below this absolute residual.
    pub abs_tol: f64,
    /// Total inner iterations allowed (over all restarts).
    pub max_iterations: usize,
    /// How each Arnoldi step orthogonalizes.
    #[serde(default)]
    pub gram_schmidt: GramSchmidt,
}

impl Default for FgmresSettings {
    fn default() -> Self {
        FgmresSettings { restart: 20, rel_tol: 0.1, abs_tol: 1e-300, max_iterations: 200, gram_schmidt: GramSchmidt::Modified }
    }
}

#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct FgmresStats {
    pub iterations: usize,
    pub restarts: usize,
    /// ||b - A x0||.
    pub initial_residual: f64,
    /// ||b - A x|| at the end: the last cycle's least-squares residual, or the norm of the
    /// residual formed after it (where the cycle broke down, or its estimate missed the
    /// tolerance that the formed residual meets).
    pub final_residual: f64,
    pub converged: bool,
}

/// A linear system `A x = b` with a right preconditioner `M ~ A^-1`, and the algebra of its
/// vectors: everything FGMRES does to a vector goes through here.
pub trait KrylovSystem {
    type Vector;

    /// A zero vector of the system's unknowns.
    fn new_vector(&self) -> Self::Vector;
    /// `y = A x`.
    fn apply_operator(&self, x: &Self::Vector, y: &mut Self::Vector);
    /// `z = M^-1 r`.
    fn apply_preconditioner(&self, r: &Self::Vector, z: &mut Self::Vector);
    /// `a . b`.
    fn dot(&self, a: &Self::Vector, b: &Self::Vector) -> f64;
    /// `||a||`.
    fn norm2(&self, a: &Self::Vector) -> f64;
    /// `y += alpha x`.
    fn axpy(&self, alpha: f64, x: &Self::Vector, y: &mut Self::Vector);
    /// `x *= alpha`.
    fn scale(&self, alpha: f64, x: &mut Self::Vector);
    /// `x /= divisor`.
    fn divide(&self, x: &mut Self::Vector, divisor: f64);
    /// `y = x`.
    fn copy(&self, x: &Self::Vector, y: &mut Self::Vector);

    /// One Arnoldi step's Gram-Schmidt (Saad alg. 9.6, lines 4-8) by `method`: w orthogonalized
    /// against the basis, then h = ||w|| and, when h > 0, w *= 1/h. Returns h_0..h_k and h. The
    /// default calls the vector operations one by one (a read-back per inner product on a GPU);
    /// a backend may run the same arithmetic with the coefficients kept where the vectors are
    /// and read back once per step.
    fn orthogonalize(&self, basis: &[Self::Vector], w: &mut Self::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
        gram_schmidt(self, basis, w, method)
    }

    /// One Arnoldi step of FGMRES (Saad alg. 9.6, lines 3-8): z = M^-1 v_k with v_k the last
    /// of `basis` (v_0..v_k), w = A z, then w orthogonalized against the basis and normalized
    /// into v_{k+1} ([`Self::orthogonalize`]). Returns the Hessenberg column and ||w||.
    fn arnoldi_step(&self, basis: &[Self::Vector], w: &mut Self::Vector, z: &mut Self::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
        self.apply_preconditioner(basis.last().expect("the basis holds v_k"), z);
        self.apply_operator(z, w);
        self.orthogonalize(basis, w, method)
    }
}

/// [`KrylovSystem::orthogonalize`] with the vector operations one by one.
pub fn gram_schmidt<S: KrylovSystem + ?Sized>(system: &S, basis: &[S::Vector], w: &mut S::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
    match method {
        GramSchmidt::Modified => modified_gram_schmidt(system, basis, w),
        GramSchmidt::ClassicalTwice => classical_gram_schmidt_twice(system, basis, w),
    }
}

/// Classical Gram-Schmidt applied twice: c = V^T w, w -= V c, twice, the coefficients summed
/// (h = c_1 + c_2); then h = ||w|| and w *= 1/h when h > 0.
pub fn classical_gram_schmidt_twice<S: KrylovSystem + ?Sized>(system: &S, basis: &[S::Vector], w: &mut S::Vector) -> (Vec<f64>, f64) {
    let mut h = vec![0.0; basis.len()];
    for _ in 0..2 {
        let c: Vec<f64> = basis.iter().map(|vi| system.dot(w, vi)).collect();
        for (ci, vi) in c.iter().zip(basis) {
            system.axpy(-ci, vi, w);
        }
        h.iter_mut().zip(&c).for_each(|(h, c)| *h += c);
    }
    let norm = system.norm2(w);
    if norm > 0.0 {
        system.scale(1.0 / norm, w);
    }
    (h, norm)
}

/// One Arnoldi step's modified Gram-Schmidt with the vector operations one by one: for each
/// basis vector v_i in turn, h_i = w . v_i and w -= h_i v_i.
pub fn modified_gram_schmidt<S: KrylovSystem + ?Sized>(system: &S, basis: &[S::Vector], w: &mut S::Vector) -> (Vec<f64>, f64) {
    let mut h = Vec::with_capacity(basis.len());
    for vi in basis {
        let hi = system.dot(w, vi);
        system.axpy(-hi, vi, w);
        h.push(hi);
    }
    let norm = system.norm2(w);
    if norm > 0.0 {
        system.scale(1.0 / norm, w);
    }
    (h, norm)
}

/// One linear system of an implicit stage on a backend: its assembled matrix, factorized
/// preconditioner and the backend's vector algebra.
pub struct StageSystem<'a, B: ImplicitBackend> {
    pub backend: &'a B,
    pub jacobian: &'a B::Jacobian,
    pub preconditioner: &'a B::Preconditioner,
    pub system: System,
}

impl<B: ImplicitBackend> KrylovSystem for StageSystem<'_, B> {
    type Vector = B::KrylovVector;

    fn new_vector(&self) -> Self::Vector {
        self.backend.new_krylov_vector(self.jacobian, self.system)
    }
    fn apply_operator(&self, x: &Self::Vector, y: &mut Self::Vector) {
        self.backend.apply_operator(self.jacobian, self.system, x, y);
    }
    fn apply_preconditioner(&self, r: &Self::Vector, z: &mut Self::Vector) {
        self.backend.apply_preconditioner(self.preconditioner, self.system, r, z);
    }
    fn dot(&self, a: &Self::Vector, b: &Self::Vector) -> f64 {
        self.backend.dot(a, b)
    }
    fn norm2(&self, a: &Self::Vector) -> f64 {
        self.backend.norm2(a)
    }
    fn axpy(&self, alpha: f64, x: &Self::Vector, y: &mut Self::Vector) {
        self.backend.axpy(alpha, x, y);
    }
    fn scale(&self, alpha: f64, x: &mut Self::Vector) {
        self.backend.scale(alpha, x);
    }
    fn divide(&self, x: &mut Self::Vector, divisor: f64) {
        self.backend.divide(x, divisor);
    }
    fn copy(&self, x: &Self::Vector, y: &mut Self::Vector) {
        self.backend.copy(x, y);
    }
    fn orthogonalize(&self, basis: &[Self::Vector], w: &mut Self::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
        self.backend.orthogonalize(basis, w, method).unwrap_or_else(|| gram_schmidt(self, basis, w, method))
    }
    fn arnoldi_step(&self, basis: &[Self::Vector], w: &mut Self::Vector, z: &mut Self::Vector, method: GramSchmidt) -> (Vec<f64>, f64) {
        match self.backend.arnoldi_step(self.jacobian, self.preconditioner, self.system, basis, w, z, method) {
            Some(step) => step,
            None => {
                self.apply_preconditioner(basis.last().expect("the basis holds v_k"), z);
                self.apply_operator(z, w);
                self.orthogonalize(basis, w, method)
            }
        }
    }
}

/// `r = b - A x` (as `-(A x) + b`, the same rounding as `b - A x`).
fn residual<S: KrylovSystem>(system: &S, b: &S::Vector, x: &S::Vector, r: &mut S::Vector) {
    system.apply_operator(x, r);
    system.scale(-1.0, r);
    system.axpy(1.0, b, r);
}

/// The Krylov vectors of FGMRES(m) (the residual, the Arnoldi basis v_0..v_m and the
/// preconditioned directions z_0..z_m-1), kept from one solve to the next of the same system
/// so that a solve allocates nothing (on a GPU each allocation is a driver call and a memset).
/// Every vector is written before it is read, so no clearing is needed between solves.
pub struct KrylovWorkspace<V> {
    vectors: Vec<V>,
}

impl<V> Default for KrylovWorkspace<V> {
    fn default() -> Self {
        KrylovWorkspace { vectors: Vec::new() }
    }
}

impl<V> KrylovWorkspace<V> {
    /// At least `count` vectors, new ones made by `system`.
    fn vectors<S: KrylovSystem<Vector = V>>(&mut self, system: &S, count: usize) -> &mut [V] {
        while self.vectors.len() < count {
            self.vectors.push(system.new_vector());
        }
        &mut self.vectors[..count]
    }
}

/// Solves `A x = b` with `x` holding the initial guess on entry.
pub fn fgmres<S: KrylovSystem>(system: &S, b: &S::Vector, x: &mut S::Vector, settings: &FgmresSettings) -> FgmresStats {
    fgmres_in(system, b, x, settings, &mut KrylovWorkspace::default())
}

/// [`fgmres`] with its vectors taken from `workspace`.
pub fn fgmres_in<S: KrylovSystem>(system: &S, b: &S::Vector, x: &mut S::Vector, settings: &FgmresSettings, workspace: &mut KrylovWorkspace<S::Vector>) -> FgmresStats {
    restarted_fgmres(system, b, x, settings, workspace, Start::Guess)
}

/// [`fgmres_in`] from `x = 0` (what `x` holds on entry is overwritten): the first residual is `b`
/// itself, so the product `A x0` is not formed.
pub fn fgmres_from_zero_in<S: KrylovSystem>(system: &S, b: &S::Vector, x: &mut S::Vector, settings: &FgmresSettings, workspace: &mut KrylovWorkspace<S::Vector>) -> FgmresStats {
    restarted_fgmres(system, b, x, settings, workspace, Start::Zero)
}

#[derive(Clone, Copy, PartialEq)]
enum Start {
    /// `x` holds the initial guess.
    Guess,
    /// From `x = 0`, whatever `x` holds.
    Zero,
}

/// FGMRES(m) (Saad alg. 9.6). Each cycle stops on the least-squares residual `|g_k+1|`, which
/// for FGMRES equals `||b - A x_k||` in exact arithmetic (Saad, Proposition 9.2, with `A Z_k =
/// V_k+1 H_k`): the residual `b - A x` is formed, with its product and its norm, only where a
/// cycle ends without meeting the tolerance (to restart from it) or breaks down. On a GPU each
/// norm is a synchronization.
fn restarted_fgmres<S: KrylovSystem>(system: &S, b: &S::Vector, x: &mut S::Vector, settings: &FgmresSettings, workspace: &mut KrylovWorkspace<S::Vector>, start: Start) -> FgmresStats {
    let m = settings.restart.max(1);
    let vectors = workspace.vectors(system, 2 * m + 2);
    let (r, rest) = vectors.split_first_mut().expect("2 m + 2 vectors");
    let (v, zv) = rest.split_at_mut(m + 1);
    match start {
        Start::Guess => residual(system, b, x, r),
        Start::Zero => system.copy(b, r),
    }
    let beta0 = system.norm2(r);
    let mut stats = FgmresStats { initial_residual: beta0, final_residual: beta0, ..Default::default() };
    let target = (settings.rel_tol * beta0).max(settings.abs_tol);
    if beta0 <= target {
        if start == Start::Zero {
            // b is finite here (its norm is), so 0 b = 0.
            system.copy(b, x);
            system.scale(0.0, x);
        }
        stats.converged = true;
        return stats;
    }
    // x still zero: the first cycle writes x = y_0 z_0 instead of adding it.
    let mut x_is_zero = start == Start::Zero;
    // Arnoldi basis v_0..v_m and the preconditioned directions z_k = M^-1 v_k (Saad alg. 9.6).
    let mut h = vec![vec![0.0; m]; m + 1];
    let (mut cs, mut sn, mut g) = (vec![0.0; m], vec![0.0; m], vec![0.0; m + 1]);
    loop {
        // ||r||: beta0, or the norm of the residual a restart formed.
        let beta = stats.final_residual;
        system.copy(r, &mut v[0]);
        system.divide(&mut v[0], beta);
        g.iter_mut().for_each(|x| *x = 0.0);
        g[0] = beta;
        let (mut k_used, mut breakdown) = (0, false);
        for k in 0..m {
            let (head, tail) = v.split_at_mut(k + 1);
            let (column, norm) = system.arnoldi_step(head, &mut tail[0], &mut zv[k], settings.gram_schmidt);
            for (i, hi) in column.into_iter().enumerate() {
                h[i][k] = hi;
            }
            h[k + 1][k] = norm;
            for i in 0..k {
                let t = cs[i] * h[i][k] + sn[i] * h[i + 1][k];
                h[i + 1][k] = -sn[i] * h[i][k] + cs[i] * h[i + 1][k];
                h[i][k] = t;
            }
            let d = h[k][k].hypot(h[k + 1][k]);
            (cs[k], sn[k]) = if d > 0.0 { (h[k][k] / d, h[k + 1][k] / d) } else { (1.0, 0.0) };
            h[k][k] = d;
            h[k + 1][k] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] *= cs[k];
            k_used = k + 1;
            stats.iterations += 1;
            stats.final_residual = g[k + 1].abs();
            breakdown = d == 0.0;
            if stats.final_residual <= target || stats.iterations >= settings.max_iterations || breakdown {
                break;
            }
        }
        // x += Z y with H y = g (upper triangular back substitution).
        let mut y = vec![0.0; k_used];
        for i in (0..k_used).rev() {
            let s: f64 = (i + 1..k_used).map(|j| h[i][j] * y[j]).sum();
            y[i] = (g[i] - s) / h[i][i];
        }
        for (yi, zi) in y.iter().zip(zv.iter()) {
            if x_is_zero {
                system.copy(zi, x);
                system.scale(*yi, x);
                x_is_zero = false;
            } else {
                system.axpy(*yi, zi, x);
            }
        }
        if !breakdown && stats.final_residual <= target {
            stats.converged = true;
            return stats;
        }
        if stats.iterations >= settings.max_iterations && !breakdown {
            return stats;
        }
        residual(system, b, x, r);
        stats.final_residual = system.norm2(r);
        if stats.final_residual <= target {
            stats.converged = true;
            return stats;
        }
        if stats.iterations >= settings.max_iterations {
            return stats;
        }
        stats.restarts += 1;
    }
}
