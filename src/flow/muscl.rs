//! MUSCL reconstruction of the face states (thesis eq. 4.10-4.13, kappa = 0) with the smooth
//! van Albada-type limiter that the thesis attributes to Venkatakrishnan (1991).
//!
//! Stencil along one grid line for the face i+1/2: `q[i-1], q\[i\], q[i+1], q[i+2]`.
//! With the jumps `a = q\[i\] - q[i-1]`, `b = q[i+1] - q\[i\]`, `c = q[i+2] - q[i+1]`:
//!
//! ```text
//! left  = q\[i\]   + 1/2 delta(a, b)
//! right = q[i+1] - 1/2 delta(b, c)
//! ```
//!
//! (the thesis text prints eq. 4.10 and 4.12 with a minus sign on the left state as well; for
//! linear data that would put the left state at the midpoint of `q[i-1]` and `q[i]`, on the wrong
//! side of cell i, so the standard MUSCL plus sign of van Leer (1979) is used here).
//!
//! ```text
//! delta(a, b) = (a + b)(max(a b, 0) + eps) / (a^2 + b^2 + 2 eps)
//! ```
//!
//! which expands to eq. 4.13, `(a (b^2 + eps) + b (a^2 + eps)) / (a^2 + b^2 + 2 eps)`, when
//! a b >= 0. At an extremum (a b < 0) eq. 4.13 taken literally can overshoot (a = 0.5, b = -1,
//! eps = 0 gives delta = 0.2 and `left > q\[i\]` = max); clipping a b at zero makes the scheme
//! fall back to first order there whenever the jumps are large against sqrt(eps) (TVD), while
//! jumps small against sqrt(eps) are left unlimited (smooth extrema, no limiter chatter on
//! convergence).
//!
//! **Choice of eps.** eps has the units of the variable squared. We scale it with a reference
//! magnitude of each variable: eps = (K q_ref)^2 (see [`limiter_epsilon`]), e.g. q_ref = free-stream
//! density, speed of sound (for u and v) and pressure, K ~ 1e-3..1e-2. Jumps below K q_ref are
//! not limited. Venkatakrishnan's mesh-based scaling eps = (K dx)^3 is offered as
//! [`venkatakrishnan_epsilon`] for callers that prefer it.

/// Order of the face reconstruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Reconstruction {
    /// Face states are the adjacent cell values (first order).
    FirstOrder,
    /// MUSCL, kappa = 0, smooth limiter of thesis eq. 4.13 (second order in smooth regions).
    #[default]
    SecondOrder,
}

/// Limited slope delta(a, b) of thesis eq. 4.13 with a b clipped at zero (see module docs).
/// `a`, `b`: consecutive jumps of one variable; `epsilon` >= 0.
#[inline]
pub fn limited_slope(a: f64, b: f64, epsilon: f64) -> f64 {
    // (a + b)(ab + eps) is eq. 4.13's numerator a(b^2 + eps) + b(a^2 + eps) factored.
    let denominator = a * a + b * b + 2.0 * epsilon;
    if denominator > 0.0 {
        (a + b) * ((a * b).max(0.0) + epsilon) / denominator
    } else {
        // a = b = eps = 0: uniform data, zero slope (the formula would give 0/0).
        0.0
    }
}

/// Limiter threshold eps = (k * reference_magnitude)^2: jumps smaller than about
/// k * reference_magnitude pass unlimited.
#[inline]
pub fn limiter_epsilon(k: f64, reference_magnitude: f64) -> f64 {
    let s = k * reference_magnitude;
    s * s
}

/// Venkatakrishnan's scaling eps = (k * dx / l_ref)^3 * q_ref^2: the cube of the
/// non-dimensional cell size times the square of the reference magnitude, so that the limiter
/// switches off in smooth regions as the mesh is refined (Venkatakrishnan 1995).
#[inline]
pub fn venkatakrishnan_epsilon(k: f64, cell_size: f64, reference_length: f64, reference_magnitude: f64) -> f64 {
    (k * cell_size / reference_length).powi(3) * reference_magnitude * reference_magnitude
}

/// Left and right states of the face between `q_i` and `q_ip1` from the 4-cell stencil
/// (thesis eq. 4.12-4.13), component by component, with one eps per component.
/// Works on any per-variable arrays: primitive `[rho, u, v, p]`, or `[rho, u, v, p, nu_tilde]`.
#[inline]
pub fn muscl_face_states<const N: usize>(
    q_im1: &[f64; N],
    q_i: &[f64; N],
    q_ip1: &[f64; N],
    q_ip2: &[f64; N],
    epsilon: &[f64; N],
    reconstruction: Reconstruction,
) -> ([f64; N], [f64; N]) {
    match reconstruction {
        Reconstruction::FirstOrder => (*q_i, *q_ip1),
        Reconstruction::SecondOrder => {
            let mut left = *q_i;
            let mut right = *q_ip1;
            for k in 0..N {
                let a = q_i[k] - q_im1[k];
                let b = q_ip1[k] - q_i[k];
                let c = q_ip2[k] - q_ip1[k];
                left[k] += 0.5 * limited_slope(a, b, epsilon[k]);
                right[k] -= 0.5 * limited_slope(b, c, epsilon[k]);
            }
            (left, right)
        }
    }
}

/// [`muscl_face_states`] on primitive `[rho, u, v, p]` with a positivity guard: when a
/// reconstructed density or pressure is not positive (possible only where eps lets a large jump
/// through unlimited), both face states fall back to first order for this face.
#[inline]
pub fn muscl_primitive_face_states(
    q_im1: &[f64; 4],
    q_i: &[f64; 4],
    q_ip1: &[f64; 4],
    q_ip2: &[f64; 4],
    epsilon: &[f64; 4],
    reconstruction: Reconstruction,
) -> ([f64; 4], [f64; 4]) {
    let (left, right) = muscl_face_states(q_im1, q_i, q_ip1, q_ip2, epsilon, reconstruction);
    let positive = |q: &[f64; 4]| q[0] > 0.0 && q[3] > 0.0;
    if positive(&left) && positive(&right) {
        (left, right)
    } else {
        (*q_i, *q_ip1)
    }
}
