//! Anderson acceleration of the implicit scheme's outer iteration (Anderson 1965; Walker & Ni,
//! SIAM J. Numer. Anal. 49, 2011, "type II"), written once against [`ImplicitBackend`].
//!
//! One flow iteration is a fixed-point map `W -> G(W)`. Past the start-up its residual falls at
//! a constant rate set by a few weakly damped modes (LS89 MUR47 coarse: 0.989 per iteration at
//! CFL 200, and 0.98 with the exact second-order Jacobian at CFL 300, so neither the Jacobian nor
//! the preconditioner sets it). Anderson mixing fits the last `depth` differences of the updates
//! `F = G(W) - W` and extrapolates along them: `W+ = G(W) - dG gamma` with
//! `gamma = argmin ||F - dF gamma||`, which removes those modes the way GMRES would on a linear
//! map.

use nalgebra::{DMatrix, DVector};

use crate::backend::{ImplicitBackend, System};

/// Settings of the acceleration (`ImplicitConfig::anderson`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct AndersonSettings {
    /// Differences kept (m).
    pub depth: usize,
    /// Start once the density residual has dropped this many orders (the start-up transient is
    /// not a fixed-point iteration: its CFL still ramps).
    pub after_orders: f64,
    /// Tikhonov term of the least-squares fit, relative to the largest diagonal entry.
    pub regularization: f64,
}

impl Default for AndersonSettings {
    fn default() -> Self {
        AndersonSettings { depth: 20, after_orders: 3.0, regularization: 1e-10 }
    }
}

/// A state, update or difference as the backend's vectors of each marched system.
struct Stacked<V> {
    parts: Vec<V>,
}

/// The acceleration's memory: the last map value and update, and the differences.
pub struct Anderson<B: ImplicitBackend> {
    settings: AndersonSettings,
    systems: Vec<System>,
    last: Option<(Stacked<B::KrylovVector>, Stacked<B::KrylovVector>)>,
    /// (dF, dG) pairs, oldest first.
    differences: Vec<(Stacked<B::KrylovVector>, Stacked<B::KrylovVector>)>,
    /// dF_i . dF_j of the kept differences, and dF_i . F of the last update: kept from one
    /// iteration to the next so that each one reads back only the new row (on a GPU each inner
    /// product is a synchronization). With F_n = F_n-1 + dF_last, dF_i . F_n = dF_i . F_n-1 +
    /// dF_i . dF_last.
    gram: Vec<Vec<f64>>,
    projections: Vec<f64>,
    /// Lowest density residual while accelerating, and how often it then rose past twice that.
    best_residual: f64,
    strikes: usize,
}

/// Rises of the density residual past twice its lowest value under acceleration after which a
/// solve goes on without it: where an update is noise (a residual stalled at round-off in one
/// equation: the laminar Poiseuille channel's energy), the fit extrapolates noise.
const STRIKES: usize = 2;

impl<B: ImplicitBackend> Anderson<B> {
    /// Acceleration of every marched unknown, the turbulence model's included: the slow modes
    /// couple the mean flow with the segregated SA system (LS89 MUR47 coarse: 690 iterations
    /// with the mean flow alone accelerated, more than the 530 of the plain scheme; 212 with both).
    pub fn new(settings: AndersonSettings) -> Self {
        Anderson { settings, systems: Vec::new(), last: None, differences: Vec::new(), gram: Vec::new(), projections: Vec::new(), best_residual: f64::INFINITY, strikes: 0 }
    }

    /// The systems whose unknowns are accelerated; a change forgets the history.
    pub fn set_systems(&mut self, systems: Vec<System>) {
        if systems != self.systems {
            self.systems = systems;
            self.reset();
        }
    }

    /// Whether to accelerate after an iteration that started at density residual `rho`: no once
    /// the residual has risen past twice its lowest value under acceleration [`STRIKES`] times
    /// (each rise also forgets the history).
    pub fn keeps_going(&mut self, rho: f64) -> bool {
        if self.strikes >= STRIKES {
            return false;
        }
        if self.last.is_some() && rho > 2.0 * self.best_residual {
            self.strikes += 1;
            self.reset();
            self.best_residual = rho;
            return self.strikes < STRIKES;
        }
        self.best_residual = self.best_residual.min(rho);
        true
    }

    pub fn settings(&self) -> &AndersonSettings {
        &self.settings
    }

    /// Forgets the history (after a rejected step or anything else that changed the map).
    pub fn reset(&mut self) {
        self.last = None;
        self.differences.clear();
        self.gram.clear();
        self.projections.clear();
    }

    fn gather(&self, backend: &B, g: &B::Geometry, jacobian: &B::Jacobian, field: &B::Field) -> Stacked<B::KrylovVector> {
        let parts = self
            .systems
            .iter()
            .map(|&s| {
                let mut v = backend.new_krylov_vector(jacobian, s);
                backend.gather_rhs(g, jacobian, s, field, 1.0, &mut v);
                v
            })
            .collect();
        Stacked { parts }
    }

    /// dF_i . dF for every kept difference, then dF . dF, and dF . F: the inner products of
    /// every system read back together (one synchronization on a GPU), summed over the systems
    /// in their order.
    fn new_row(&self, backend: &B, df: &Stacked<B::KrylovVector>, f: &Stacked<B::KrylovVector>) -> (Vec<f64>, f64) {
        let m = self.differences.len();
        let pairs: Vec<(&B::KrylovVector, &B::KrylovVector)> = df
            .parts
            .iter()
            .enumerate()
            .flat_map(|(part, x)| self.differences.iter().map(move |(dfi, _)| &dfi.parts[part]).chain([x, &f.parts[part]]).map(move |v| (v, x)))
            .collect();
        let mut sums = vec![0.0; m + 2];
        for products in backend.dots(&pairs).chunks(m + 2) {
            sums.iter_mut().zip(products).for_each(|(s, d)| *s += d);
        }
        let projection = sums.pop().expect("m + 2 sums");
        (sums, projection)
    }

    fn axpy(backend: &B, alpha: f64, x: &Stacked<B::KrylovVector>, y: &mut Stacked<B::KrylovVector>) {
        x.parts.iter().zip(&mut y.parts).for_each(|(x, y)| backend.axpy(alpha, x, y));
    }

    fn copy(&self, backend: &B, jacobian: &B::Jacobian, x: &Stacked<B::KrylovVector>) -> Stacked<B::KrylovVector> {
        let parts = self
            .systems
            .iter()
            .zip(&x.parts)
            .map(|(&s, x)| {
                let mut v = backend.new_krylov_vector(jacobian, s);
                backend.copy(x, &mut v);
                v
            })
            .collect();
        Stacked { parts }
    }

    /// Given the state before the iteration `w_before` and after it `w` (= G(w_before)),
    /// overwrites `w`'s marched variables with the accelerated state, unchecked: the caller
    /// decides whether to keep it. Returns the number of differences the extrapolation used (0:
    /// `w` left as the map gave it).
    pub fn accelerate(&mut self, backend: &B, g: &B::Geometry, jacobian: &B::Jacobian, w_before: &B::Field, w: &mut B::Field) -> usize {
        let gn = self.gather(backend, g, jacobian, w);
        let mut fn_ = self.gather(backend, g, jacobian, w_before);
        // F = G(W) - W
        fn_.parts.iter_mut().zip(&gn.parts).for_each(|(f, gv)| {
            backend.scale(-1.0, f);
            backend.axpy(1.0, gv, f);
        });
        if let Some((mut df, mut dg)) = self.last.take() {
            // dF = F - F_last and dG = G - G_last, in the vectors of F_last and G_last.
            for (d, new) in [(&mut df, &fn_), (&mut dg, &gn)] {
                d.parts.iter_mut().for_each(|v| backend.scale(-1.0, v));
                Self::axpy(backend, 1.0, new, d);
            }
            // The new difference's row (against the kept ones and itself) and its projection on F.
            let (row, projection) = self.new_row(backend, &df, &fn_);
            for ((p, gram_row), r) in self.projections.iter_mut().zip(&mut self.gram).zip(&row) {
                *p += r;
                gram_row.push(*r);
            }
            self.projections.push(projection);
            self.gram.push(row);
            self.differences.push((df, dg));
            if self.differences.len() > self.settings.depth {
                self.differences.remove(0);
                self.gram.remove(0);
                self.gram.iter_mut().for_each(|r| {
                    r.remove(0);
                });
                self.projections.remove(0);
            }
        }
        let m = self.differences.len();
        let used = if m == 0 {
            0
        } else {
            let mut a = DMatrix::<f64>::from_fn(m, m, |i, j| self.gram[i][j]);
            let b = DVector::<f64>::from_column_slice(&self.projections);
            let largest = (0..m).map(|i| a[(i, i)]).fold(0.0, f64::max);
            for i in 0..m {
                a[(i, i)] += self.settings.regularization * largest;
            }
            let extrapolated = a.cholesky().map(|c| c.solve(&b)).filter(|gamma| gamma.iter().all(|x| x.is_finite())).map(|gamma| {
                let mut x = self.copy(backend, jacobian, &gn);
                for (k, (_, dg)) in self.differences.iter().enumerate() {
                    Self::axpy(backend, -gamma[k], dg, &mut x);
                }
                x
            });
            // A failed fit forgets the history. The extrapolated state is checked by the caller
            // (finite, physical, within the update limit: `ImplicitSolver::accelerate`).
            match extrapolated {
                Some(x) => {
                    for (&s, part) in self.systems.iter().zip(&x.parts) {
                        backend.scatter_solution(g, jacobian, s, part, w);
                    }
                    m
                }
                None => {
                    self.reset();
                    0
                }
            }
        };
        self.last = Some((fn_, gn));
        used
    }
}
