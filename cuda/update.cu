// Element-wise field and scalar operations: twins of the CpuBackend methods of the same names
// (src/backend/cpu/mod.rs). Each kernel is one launch over the whole arena.

// x[k] = value for k < n.
extern "C" __global__ void fill(int n, double value, double* __restrict__ x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) x[k] = value;
}

// y += a x on every entry (interior and ghosts, as the CPU twin).
extern "C" __global__ void axpy(int n, double a, const double* __restrict__ x, double* __restrict__ y) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) y[k] += a * x[k];
}

// y += lambda x with lambda = limit / c[0] where the update changes density or pressure by
// c[0] > limit (relative_change_partials then max_finish, in reduce.cu), else 1: the implicit
// scheme's limited stage update, with c never read back. Twin of update_relaxation
// (src/backend/implicit.rs) and axpy.
extern "C" __global__ void limited_axpy(int n, double limit, const double* __restrict__ c, const double* __restrict__ x,
                                        double* __restrict__ y) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    double change = c[0];
    double lambda = (isfinite(change) && change > limit) ? limit / change : 1.0;
    if (k < n) y[k] += lambda * x[k];
}

// Low-storage Runge-Kutta stage (thesis eq. 4.8) on interior cells, one thread per cell:
// w = w0 - alpha dt / vol r for the first nvar variables.
extern "C" __global__ void rk_stage_update(const BlockEntry* __restrict__ blocks, Extent ext, int nvar, double alpha,
                                           const double* __restrict__ w0, const double* __restrict__ r,
                                           const double* __restrict__ dt, const double* __restrict__ volume,
                                           double* __restrict__ w) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    int g = gcell(e, i, j);
    double factor = alpha * dt[c] / volume[c];
    for (int v = 0; v < nvar; ++v) w[v * ext.np + g] = w0[v * ext.np + g] - factor * r[v * ext.np + g];
}

// y += scale vol / dt x on the mean-flow variables of interior cells, one thread per cell: the
// pseudo-time term of the matrix-free implicit operator (thesis eq. 5.4). Twin of
// CpuBackend::add_time_term.
extern "C" __global__ void add_time_term(const BlockEntry* __restrict__ blocks, Extent ext, double scale,
                                         const double* __restrict__ dt, const double* __restrict__ volume,
                                         const double* __restrict__ x, double* __restrict__ y) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    int g = gcell(e, i, j);
    double factor = scale * volume[c] / dt[c];
    for (int v = 0; v < NFLOW; ++v) y[v * ext.np + g] += factor * x[v * ext.np + g];
}

// rho gamma of every interior cell clamped to [0, rho] (bound_intermittency; max then min, as
// the CPU: a state about to be rejected may have rho <= 0).
extern "C" __global__ void bound_intermittency(const BlockEntry* __restrict__ blocks, Extent ext, double* __restrict__ w) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    int g = gcell(e, i, j);
    w[INTERMITTENCY * ext.np + g] = fmin(fmax(w[INTERMITTENCY * ext.np + g], 0.0), w[g]);
}

// The residual of variable `slot` (rho nu~ or rho gamma) of every interior cell times its
// point-implicit factor.
extern "C" __global__ void scale_turbulence_residual(const BlockEntry* __restrict__ blocks, Extent ext, int slot,
                                                     const double* __restrict__ factor, double* __restrict__ r) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    r[slot * ext.np + gcell(e, i, j)] *= factor[c];
}

// x *= a (the Krylov vectors' scale).
extern "C" __global__ void scale(int n, double a, double* __restrict__ x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) x[k] *= a;
}

// x /= d: a true division, as the CPU's (ImplicitBackend::divide).
extern "C" __global__ void divide(int n, double d, double* __restrict__ x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) x[k] /= d;
}

// x *= 1/c[0] when c[0] > 0, the norm on the device (the Arnoldi vector's normalization).
extern "C" __global__ void normalize_by(int n, const double* __restrict__ c, double* __restrict__ x) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    double h = c[0];
    if (k < n && h > 0.0) {
        double a = 1.0 / h;
        x[k] *= a;
    }
}
