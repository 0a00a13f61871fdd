// Convective residual of every block in one set of launches (thesis 4.2.1): primitive variables
// per padded cell, then face-based fluxes (i- and j-faces in one launch), then a gather per cell,
// so no two threads write the same residual entry and no atomics are needed.
// Twin of src/backend/cpu/convective.rs; arena layout of arena.cuh.

__device__ __forceinline__ Prim load_prim(const double* q, int np, int g) {
    Prim s; s.rho = q[g]; s.u = q[np + g]; s.v = q[2 * np + g]; s.p = q[3 * np + g];
    return s;
}

// q[4*np] = primitive variables of every padded cell (ghosts included).
extern "C" __global__ void primitives(Extent ext, double gamma, const double* __restrict__ w, double* __restrict__ q) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int np = ext.np;
    if (g >= np) return;
    Prim s = primitive_from_conservative(gamma, w[g], w[np + g], w[2 * np + g], w[3 * np + g]);
    q[g] = s.rho; q[np + g] = s.u; q[2 * np + g] = s.v; q[3 * np + g] = s.p;
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

struct Scheme { int second_order; int convect_nu_tilde; int convect_intermittency; int pad; double entropy_fix; double eps[4]; };

// First-order upwind flux of rho nu_tilde with the face mass flux (flow/sa.rs sa_convective_flux).
__device__ __forceinline__ double sa_convective_flux(double mass_flux, double nt_left, double nt_right) {
    return mass_flux >= 0.0 ? mass_flux * nt_left : mass_flux * nt_right;
}

// The transported scalar of slot `slot` (rho nu~ or rho gamma over rho), 0 when not convected.
__device__ __forceinline__ double scalar_of(const double* w, int np, int g, int slot, int on) {
    return on ? w[slot * np + g] / w[g] : 0.0;
}

// One thread per face (locate_face): i-face (i, j) separates cells (i-1, j) and (i, j), j-face
// (i, j) separates (i, j-1) and (i, j). s: face vectors, interleaved (sx, sy);
// wall: 1 on wall/slip/symmetry faces. fi, fj: NVAR SoA arrays (mean flow, rho nu_tilde, rho gamma).
extern "C" __global__ void face_fluxes(const BlockEntry* __restrict__ blocks, Extent ext, double gamma, Scheme sc,
                                       const double* __restrict__ w, const double* __restrict__ q,
                                       const double* __restrict__ si, const double* __restrict__ sj,
                                       const unsigned char* __restrict__ wall_i, const unsigned char* __restrict__ wall_j,
                                       double* __restrict__ fi, double* __restrict__ fj) {
    int np = ext.np;
    bool along_i;
    int face, i, j;
    BlockEntry e;
    if (!locate_face(blocks, ext, blockIdx.x * blockDim.x + threadIdx.x, along_i, face, e, i, j)) return;
    Prim st[4];
    for (int k = 0; k < 4; ++k) st[k] = load_prim(q, np, along_i ? gcell(e, i - 2 + k, j) : gcell(e, i, j - 2 + k));
    const double* s = along_i ? si : sj;
    int is_wall = along_i ? wall_i[face] : wall_j[face];
    Flux fl = face_flux(gamma, st, s[2 * face], s[2 * face + 1], is_wall, along_i ? i == 0 : j == 0, sc.second_order, sc.eps, sc.entropy_fix);
    double* f = along_i ? fi : fj;
    int nf = along_i ? ext.nfi : ext.nfj;
    for (int k = 0; k < 4; ++k) f[k * nf + face] = fl.f[k];
    int left = along_i ? gcell(e, i - 1, j) : gcell(e, i, j - 1);
    int right = gcell(e, i, j);
    f[NFLOW * nf + face] = is_wall ? 0.0
        : sa_convective_flux(fl.f[0], scalar_of(w, np, left, NFLOW, sc.convect_nu_tilde), scalar_of(w, np, right, NFLOW, sc.convect_nu_tilde));
    f[INTERMITTENCY * nf + face] = is_wall ? 0.0
        : sa_convective_flux(fl.f[0], scalar_of(w, np, left, INTERMITTENCY, sc.convect_intermittency),
                             scalar_of(w, np, right, INTERMITTENCY, sc.convect_intermittency));
}

// r (NVAR variables, every padded cell) = sum of outward face fluxes per interior cell; ghosts 0.
extern "C" __global__ void gather_residual(const BlockEntry* __restrict__ blocks, Extent ext, const double* __restrict__ fi,
                                           const double* __restrict__ fj, double* __restrict__ r) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int np = ext.np;
    if (g >= np) return;
    const BlockEntry e = blocks[block_of_cell(blocks, ext.nblocks, g)];
    int stride = padded_stride(e);
    int i = (g - e.cell) % stride - NG, j = (g - e.cell) / stride - NG;
    bool interior = i >= 0 && i < e.ni && j >= 0 && j < e.nj;
    for (int v = 0; v < NVAR; ++v) {
        double val = 0.0;
        if (interior) {
            double east = fi[v * ext.nfi + gface_i(e, i + 1, j)] - fi[v * ext.nfi + gface_i(e, i, j)];
            double north = fj[v * ext.nfj + gface_j(e, i, j + 1)] - fj[v * ext.nfj + gface_j(e, i, j)];
            val = east + north;
        }
        r[v * np + g] = val;
    }
}
