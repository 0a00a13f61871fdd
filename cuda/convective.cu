// Convective residual of one block (thesis 4.2.1): face-based flux kernels along i and j, then a
// gather per cell, so no two threads write the same residual entry and no atomics are needed.
// Twin of src/backend/cpu/convective.rs; layout of src/backend/layout.rs: structure of arrays,
// i fastest, two ghost layers (padded row length ni+4, np = (ni+4)(nj+4) entries per variable).

#define NG 2

__device__ __forceinline__ int pidx(int stride, int i, int j) { return (i + NG) + stride * (j + NG); }

__device__ __forceinline__ Prim load_prim(const double* q, int np, int p) {
    Prim s; s.rho = q[p]; s.u = q[np + p]; s.v = q[2 * np + p]; s.p = q[3 * np + p];
    return s;
}

// q[4*np] = primitive variables of every padded cell (ghosts included).
extern "C" __global__ void primitives(int np, double gamma, const double* __restrict__ w, double* __restrict__ q) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    Prim s = primitive_from_conservative(gamma, w[p], w[np + p], w[2 * np + p], w[3 * np + p]);
    q[p] = s.rho; q[np + p] = s.u; q[2 * np + p] = s.v; q[3 * np + p] = s.p;
}

// Flux through one face from its 4-cell stencil; `low_end` says the wall is at the start of the
// line (interior cells at stencil positions 2, 3), else at its end (positions 1, 0).
__device__ Flux face_flux(double gamma, const Prim* st, double sx, double sy, int is_wall, int low_end,
                          int second_order, const double* eps, double entropy_fix) {
    double area = sqrt(sx * sx + sy * sy);
    double nx = sx / area, ny = sy / area;
    if (is_wall) {
        double near_p = low_end ? st[2].p : st[1].p;
        double far_p = low_end ? st[3].p : st[0].p;
        double pw = near_p;
        if (second_order) {
            double e = 1.5 * near_p - 0.5 * far_p;
            pw = e > 0.0 ? e : near_p;
        }
        Flux f;
        f.f[0] = 0.0; f.f[1] = pw * nx * area; f.f[2] = pw * ny * area; f.f[3] = 0.0;
        return f;
    }
    Prim l, r;
    muscl_primitive_face_states(st[0], st[1], st[2], st[3], eps, second_order, l, r);
    return roe_flux(gamma, l, r, nx, ny, area, entropy_fix);
}

struct Scheme { int second_order; int convect_nu_tilde; double entropy_fix; double eps[4]; };

// First-order upwind flux of rho nu_tilde with the face mass flux (flow/sa.rs sa_convective_flux).
__device__ __forceinline__ double sa_convective_flux(double mass_flux, double nt_left, double nt_right) {
    return mass_flux >= 0.0 ? mass_flux * nt_left : mass_flux * nt_right;
}

__device__ __forceinline__ double nu_tilde_of(const double* w, int np, int p, int on) {
    return on ? w[4 * np + p] / w[p] : 0.0;
}

// i-face at node line i (0..ni) of row j separates cells (i-1, j) and (i, j); (ni+1)*nj faces.
// s: face vectors, interleaved (sx, sy); wall: 1 on wall/slip/symmetry faces. f: 5 SoA arrays
// (mean flow, then the upwind rho nu_tilde flux).
extern "C" __global__ void i_face_fluxes(int ni, int nj, double gamma, Scheme sc, const double* __restrict__ w, const double* __restrict__ q,
                                         const double* __restrict__ s, const unsigned char* __restrict__ wall,
                                         double* __restrict__ f) {
    int face = blockIdx.x * blockDim.x + threadIdx.x;
    int nf = (ni + 1) * nj;
    if (face >= nf) return;
    int i = face % (ni + 1), j = face / (ni + 1);
    int stride = ni + 2 * NG, np = stride * (nj + 2 * NG);
    Prim st[4];
    for (int k = 0; k < 4; ++k) st[k] = load_prim(q, np, pidx(stride, i - 2 + k, j));
    Flux fl = face_flux(gamma, st, s[2 * face], s[2 * face + 1], wall[face], i == 0, sc.second_order, sc.eps, sc.entropy_fix);
    for (int k = 0; k < 4; ++k) f[k * nf + face] = fl.f[k];
    f[4 * nf + face] = wall[face] ? 0.0
        : sa_convective_flux(fl.f[0], nu_tilde_of(w, np, pidx(stride, i - 1, j), sc.convect_nu_tilde),
                             nu_tilde_of(w, np, pidx(stride, i, j), sc.convect_nu_tilde));
}

// j-face at node line j (0..nj) of column i separates cells (i, j-1) and (i, j); ni*(nj+1) faces.
extern "C" __global__ void j_face_fluxes(int ni, int nj, double gamma, Scheme sc, const double* __restrict__ w, const double* __restrict__ q,
                                         const double* __restrict__ s, const unsigned char* __restrict__ wall,
                                         double* __restrict__ f) {
    int face = blockIdx.x * blockDim.x + threadIdx.x;
    int nf = ni * (nj + 1);
    if (face >= nf) return;
    int i = face % ni, j = face / ni;
    int stride = ni + 2 * NG, np = stride * (nj + 2 * NG);
    Prim st[4];
    for (int k = 0; k < 4; ++k) st[k] = load_prim(q, np, pidx(stride, i, j - 2 + k));
    Flux fl = face_flux(gamma, st, s[2 * face], s[2 * face + 1], wall[face], j == 0, sc.second_order, sc.eps, sc.entropy_fix);
    for (int k = 0; k < 4; ++k) f[k * nf + face] = fl.f[k];
    f[4 * nf + face] = wall[face] ? 0.0
        : sa_convective_flux(fl.f[0], nu_tilde_of(w, np, pidx(stride, i, j - 1), sc.convect_nu_tilde),
                             nu_tilde_of(w, np, pidx(stride, i, j), sc.convect_nu_tilde));
}

// r (5 variables, padded) = sum of outward face fluxes per interior cell; ghosts 0.
extern "C" __global__ void gather_residual(int ni, int nj, const double* __restrict__ fi, const double* __restrict__ fj,
                                           double* __restrict__ r) {
    int stride = ni + 2 * NG, np = stride * (nj + 2 * NG);
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= np) return;
    int ip = p % stride, jp = p / stride;
    int i = ip - NG, j = jp - NG;
    bool interior = i >= 0 && i < ni && j >= 0 && j < nj;
    int nfi = (ni + 1) * nj, nfj = ni * (nj + 1);
    for (int v = 0; v < 5; ++v) {
        double val = 0.0;
        if (interior) {
            double east = fi[v * nfi + (i + 1) + (ni + 1) * j] - fi[v * nfi + i + (ni + 1) * j];
            double north = fj[v * nfj + i + ni * (j + 1)] - fj[v * nfj + i + ni * j];
            val = east + north;
        }
        r[v * np + p] = val;
    }
}
