// Deterministic reductions (DESIGN.md section 6): a fixed grid of REDUCE_BLOCKS blocks, each a
// strided partial sum and a tree in shared memory, then one block that adds the partials in a
// fixed order. The launch shape never changes, so the result does not change from run to run.
// Twins of CpuBackend::residual_norms and CpuBackend::min_scalar.

#define REDUCE_BLOCKS 256
#define REDUCE_THREADS 256

// Sum over interior cells of (r_v / vol)^2 per variable: partials[v * REDUCE_BLOCKS + block].
extern "C" __global__ void residual_square_partials(const BlockEntry* __restrict__ blocks, Extent ext,
                                                    const double* __restrict__ r, const double* __restrict__ volume,
                                                    double* __restrict__ partials) {
    __shared__ double sums[NVAR][REDUCE_THREADS];
    double acc[NVAR] = {0.0, 0.0, 0.0, 0.0, 0.0};
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
