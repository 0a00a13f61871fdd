// Deterministic reductions (docs/architecture.md, "GPU backend"): a fixed grid (REDUCE_BLOCKS blocks; for the
// Krylov inner products a grid fixed by the vector length), each block a strided partial sum and
// a tree in shared memory, then one block that adds the partials in a fixed order. The launch
// shape never changes for a given length, so the result does not change from run to run.
// Twins of CpuBackend::residual_norms and CpuBackend::min_scalar.

#define REDUCE_BLOCKS 256
#define REDUCE_THREADS 256

// Sum over interior cells of (r_v / vol)^2 per variable: partials[v * REDUCE_BLOCKS + block].
extern "C" __global__ void residual_square_partials(const BlockEntry* __restrict__ blocks, Extent ext,
                                                    const double* __restrict__ r, const double* __restrict__ volume,
                                                    double* __restrict__ partials) {
    __shared__ double sums[NVAR][REDUCE_THREADS];
    double acc[NVAR] = {0.0};
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ext.nint; c += gridDim.x * blockDim.x) {
        int i, j;
        const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
        int g = gcell(e, i, j);
        double vol = volume[c];
        for (int v = 0; v < NVAR; ++v) {
            double x = r[v * ext.np + g] / vol;
            acc[v] += x * x;
        }
    }
    for (int v = 0; v < NVAR; ++v) sums[v][threadIdx.x] = acc[v];
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            for (int v = 0; v < NVAR; ++v) sums[v][threadIdx.x] += sums[v][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        for (int v = 0; v < NVAR; ++v) partials[v * REDUCE_BLOCKS + blockIdx.x] = sums[v][0];
}

// out[v] = sqrt(sum of the partials of v / nint): the RMS of r/vol, into one slot of the norm log.
extern "C" __global__ void residual_norms_finish(int nint, const double* __restrict__ partials, double* __restrict__ out) {
    __shared__ double sums[NVAR][REDUCE_BLOCKS];
    for (int v = 0; v < NVAR; ++v) sums[v][threadIdx.x] = partials[v * REDUCE_BLOCKS + threadIdx.x];
    __syncthreads();
    for (int half = REDUCE_BLOCKS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            for (int v = 0; v < NVAR; ++v) sums[v][threadIdx.x] += sums[v][threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < NVAR) out[threadIdx.x] = sqrt(sums[threadIdx.x][0] / (double)nint);
}

// Smallest entry of x[0..n]: partials[block], then min_finish.
extern "C" __global__ void min_partials(int n, const double* __restrict__ x, double* __restrict__ partials) {
    __shared__ double m[REDUCE_THREADS];
    double acc = 1.0 / 0.0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) acc = fmin(acc, x[k]);
    m[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) m[threadIdx.x] = fmin(m[threadIdx.x], m[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = m[0];
}

extern "C" __global__ void min_finish(const double* __restrict__ partials, double* __restrict__ out) {
    __shared__ double m[REDUCE_BLOCKS];
    m[threadIdx.x] = partials[threadIdx.x];
    __syncthreads();
    for (int half = REDUCE_BLOCKS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) m[threadIdx.x] = fmin(m[threadIdx.x], m[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = m[0];
}

// Largest relative change of density or pressure, max(|d rho|/rho, |d p|/p), from the state w
// to a new state over the interior cells, +inf where the new state is not physical (density or
// pressure not positive, or any variable not finite, the turbulence and transition unknowns
// included). The new state by `mode`: 1 w + dw, 2 dw itself, 0 w itself (0 or +inf: whether w is
// physical). Twin of CpuBackend::max_relative_change, relative_change_between and is_physical.
// partials[block], then max_finish.
extern "C" __global__ void relative_change_partials(const BlockEntry* __restrict__ blocks, Extent ext, double gamma,
                                                    const double* __restrict__ w, const double* __restrict__ dw, int mode,
                                                    double* __restrict__ partials) {
    __shared__ double m[REDUCE_THREADS];
    double worst = 0.0;
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < ext.nint; c += gridDim.x * blockDim.x) {
        int i, j;
        const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
        int g = gcell(e, i, j), np = ext.np;
        double old[NVAR], now[NVAR];
        bool finite = true;
        for (int v = 0; v < NVAR; ++v) {
            old[v] = w[v * np + g];
            now[v] = mode == 1 ? old[v] + dw[v * np + g] : mode == 2 ? dw[v * np + g] : old[v];
            finite = finite && isfinite(now[v]);
        }
        Prim q0 = primitive_from_conservative(gamma, old[0], old[1], old[2], old[3]);
        Prim q1 = primitive_from_conservative(gamma, now[0], now[1], now[2], now[3]);
        finite = finite && isfinite(q1.rho) && isfinite(q1.u) && isfinite(q1.v) && isfinite(q1.p);
        if (!(q1.rho > 0.0 && q1.p > 0.0 && finite)) {
            worst = 1.0 / 0.0;
        } else {
            worst = fmax(fmax(worst, fabs(q1.rho - q0.rho) / q0.rho), fabs(q1.p - q0.p) / q0.p);
        }
    }
    m[threadIdx.x] = worst;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = m[0];
}

extern "C" __global__ void max_finish(const double* __restrict__ partials, double* __restrict__ out) {
    __shared__ double m[REDUCE_BLOCKS];
    m[threadIdx.x] = partials[threadIdx.x];
    __syncthreads();
    for (int half = REDUCE_BLOCKS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) m[threadIdx.x] = fmax(m[threadIdx.x], m[threadIdx.x + half]);
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = m[0];
}

// The block and grid sums of one-launch inner products: each block writes the partial sum of
// its strided slice, and the last block to finish (a ticket counter, reset by atomicInc's
// wrap-around) adds the partials in a fixed tree order, so the result never changes from run
// to run. The grid is sized to the vector (reduce.rs `inner_product_blocks`: at most
// REDUCE_BLOCKS, a few elements a thread), the same for every call of a length; the slots of
// blocks the grid does not have count as zeros in the final tree.
__device__ void sum_in_one_launch(double acc, double* partials, unsigned int* ticket, double* out, int take_sqrt) {
    __shared__ double s[REDUCE_THREADS];
    __shared__ bool last;
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s[0];
        __threadfence();
        last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    s[threadIdx.x] = threadIdx.x < gridDim.x ? __ldcg(partials + threadIdx.x) : 0.0;
    __syncthreads();
    for (int half = REDUCE_BLOCKS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = take_sqrt ? sqrt(s[0]) : s[0];
}

// A thread's strided slice of the inner-product kernels (entries first, first + stride, ...),
// STRIDED_CHUNK entries at a time: the loads of a chunk are issued together before its products,
// which are added in the slice's order, so the sum is the one-entry-at-a-time loop's. That loop
// waited for one load after the other: 8 memory latencies in a row for the 8 entries a thread
// takes (reduce.rs `inner_product_blocks`), and the inner products of the modified Gram-Schmidt
// steps took 8 us where an axpy of the same vectors takes 3 (coarse LS89 mesh, H100, ncu).
#define STRIDED_CHUNK 8
__device__ __forceinline__ double strided_dot(int n, const double* __restrict__ a, const double* __restrict__ b, int first, int stride) {
    double acc = 0.0;
    for (int k0 = first; k0 < n; k0 += STRIDED_CHUNK * stride) {
        double x[STRIDED_CHUNK], y[STRIDED_CHUNK];
#pragma unroll
        for (int u = 0; u < STRIDED_CHUNK; ++u) {
            int k = k0 + u * stride;
            x[u] = k < n ? a[k] : 0.0;
            y[u] = k < n ? b[k] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < STRIDED_CHUNK; ++u)
            if (k0 + u * stride < n) acc += x[u] * y[u];
    }
    return acc;
}

// a . b (or its square root) in one launch (the Krylov inner products and norms; twin of
// linalg::dot up to the summation order).
extern "C" __global__ void dot_fused(int n, const double* __restrict__ a, const double* __restrict__ b, double* partials,
                                     unsigned int* ticket, double* out, int take_sqrt) {
    double acc = strided_dot(n, a, b, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
    sum_in_one_launch(acc, partials, ticket, out, take_sqrt);
}

// The basis of a classical Gram-Schmidt pass, by value: its addresses are kernel parameters, so
// a recorded Arnoldi step replays on exactly its vectors (reduce.rs `BasisPointers`).
#define MAX_BASIS 64
struct Basis {
    const double* v[MAX_BASIS];
};

// c_i = w . v_i for the m basis vectors in one launch: block (b, i) adds dot_fused's strided
// slice b of w . v_i and its tree into partials[i * gridDim.x + b]; the last block to finish
// adds each product's partials in a fixed order, so the result does not change from run to run.
extern "C" __global__ void basis_dots(int n, int m, Basis basis, const double* __restrict__ w, double* partials, unsigned int* ticket,
                                      double* out) {
    __shared__ double s[REDUCE_THREADS];
    __shared__ bool last;
    const double* v = basis.v[blockIdx.y];
    double acc = strided_dot(n, w, v, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    unsigned int blocks = gridDim.x * gridDim.y;
    if (threadIdx.x == 0) {
        partials[blockIdx.y * gridDim.x + blockIdx.x] = s[0];
        __threadfence();
        last = atomicInc(ticket, blocks - 1) == blocks - 1;
    }
    __syncthreads();
    if (!last) return;
    for (int i = 0; i < m; ++i) {
        s[threadIdx.x] = threadIdx.x < gridDim.x ? __ldcg(partials + i * gridDim.x + threadIdx.x) : 0.0;
        __syncthreads();
        for (int half = REDUCE_BLOCKS / 2; half > 0; half /= 2) {
            if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
            __syncthreads();
        }
        if (threadIdx.x == 0) out[i] = s[0];
        __syncthreads();
    }
}

// w -= sum_i c_i v_i, basis vector by basis vector in order (axpy's arithmetic one after the
// other); with `norm`, ||w|| of the result into out[0] (dot_fused's slices and tree).
extern "C" __global__ void subtract_combination(int n, int m, Basis basis, const double* __restrict__ c, double* __restrict__ w,
                                                double* partials, unsigned int* ticket, double* out, int norm) {
    double acc = 0.0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) {
        double wk = w[k];
        for (int i = 0; i < m; ++i) wk = wk + (-c[i]) * basis.v[i][k];
        w[k] = wk;
        acc += wk * wk;
    }
    if (norm) sum_in_one_launch(acc, partials, ticket, out, 1);
}

// Two steps of modified Gram-Schmidt in one launch: w -= c[0] v (subtract_projection's
// arithmetic), then w . next (dot_fused's, with the same strided slices and tree), so the
// Arnoldi step takes one launch per basis vector and its coefficients are bit for bit those of
// the two launches. `last`: the product is w . w and its square root (the norm of the
// orthogonalized vector; `next` is not read).
extern "C" __global__ void subtract_projection_dot(int n, const double* __restrict__ c, const double* __restrict__ v, double* __restrict__ w,
                                                   const double* __restrict__ next, double* partials, unsigned int* ticket, double* out,
                                                   int last) {
    double a = -c[0];
    double acc = 0.0;
    const int stride = gridDim.x * blockDim.x;
    // Chunked as strided_dot: the loads of a chunk first, then its entries in order.
    for (int k0 = blockIdx.x * blockDim.x + threadIdx.x; k0 < n; k0 += STRIDED_CHUNK * stride) {
        double wv[STRIDED_CHUNK], vv[STRIDED_CHUNK], nv[STRIDED_CHUNK];
#pragma unroll
        for (int u = 0; u < STRIDED_CHUNK; ++u) {
            int k = k0 + u * stride;
            wv[u] = k < n ? w[k] : 0.0;
            vv[u] = k < n ? v[k] : 0.0;
            nv[u] = k < n && !last ? next[k] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < STRIDED_CHUNK; ++u) {
            int k = k0 + u * stride;
            if (k >= n) continue;
            double wk = wv[u] + a * vv[u];
            w[k] = wk;
            acc += wk * (last ? wk : nv[u]);
        }
    }
    sum_in_one_launch(acc, partials, ticket, out, last);
}
