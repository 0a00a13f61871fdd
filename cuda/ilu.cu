// Preconditioners of the implicit stage's FGMRES solves (thesis 5.4): block-Jacobi and block
// ILU(0) with level-scheduled factorization and triangular sweeps. Twin of src/linalg/ilu.rs,
// with the same arithmetic in the same order (nalgebra's 4x4 inverse, products and
// matrix-vector products written out), so that the CPU and GPU preconditioners agree to
// round-off.
//
// Level scheduling: the rows of one level depend only on rows of earlier levels, so a level is
// one launch (a thread per row, or per row and block component: see the notes above
// jacobi_apply). For the natural (cell) ordering the levels are the
// wavefronts of the lower triangle's dependency graph (what cuSPARSE's analysis phase finds);
// for the multicolour ordering they are the colour classes. `position[r]` is row r's place in
// the processing order: L holds the slots whose column comes earlier, U the others.

// Inverse of a row-major B x B block, as nalgebra's try_inverse computes it (cofactors of the
// column-major storage, then a product with 1/det). False when the determinant is zero.
__device__ bool invert4(const double* v, double* out) {
    double m[16];
    for (int k = 0; k < 16; ++k) m[k] = v[4 * (k & 3) + (k >> 2)];
    double cofactor00 = m[5] * m[10] * m[15]
        - m[5] * m[11] * m[14]
        - m[9] * m[6] * m[15]
        + m[9] * m[7] * m[14]
        + m[13] * m[6] * m[11]
        - m[13] * m[7] * m[10];

    double cofactor01 = -m[4] * m[10] * m[15]
        + m[4] * m[11] * m[14]
        + m[8] * m[6] * m[15]
        - m[8] * m[7] * m[14]
        - m[12] * m[6] * m[11]
        + m[12] * m[7] * m[10];

    double cofactor02 = m[4] * m[9] * m[15]
        - m[4] * m[11] * m[13]
        - m[8] * m[5] * m[15]
        + m[8] * m[7] * m[13]
        + m[12] * m[5] * m[11]
        - m[12] * m[7] * m[9];

    double cofactor03 = -m[4] * m[9] * m[14]
        + m[4] * m[10] * m[13]
        + m[8] * m[5] * m[14]
        - m[8] * m[6] * m[13]
        - m[12] * m[5] * m[10]
        + m[12] * m[6] * m[9];

    double det = m[0] * cofactor00
        + m[1] * cofactor01
        + m[2] * cofactor02
        + m[3] * cofactor03;

    if (det == 0.0) return false;
    out[0] = cofactor00;

    out[4] = -m[1] * m[10] * m[15]
        + m[1] * m[11] * m[14]
        + m[9] * m[2] * m[15]
        - m[9] * m[3] * m[14]
        - m[13] * m[2] * m[11]
        + m[13] * m[3] * m[10];

    out[8] = m[1] * m[6] * m[15]
        - m[1] * m[7] * m[14]
        - m[5] * m[2] * m[15]
        + m[5] * m[3] * m[14]
        + m[13] * m[2] * m[7]
        - m[13] * m[3] * m[6];

    out[12] = -m[1] * m[6] * m[11]
        + m[1] * m[7] * m[10]
        + m[5] * m[2] * m[11]
        - m[5] * m[3] * m[10]
        - m[9] * m[2] * m[7]
        + m[9] * m[3] * m[6];

    out[1] = cofactor01;

    out[5] = m[0] * m[10] * m[15]
        - m[0] * m[11] * m[14]
        - m[8] * m[2] * m[15]
        + m[8] * m[3] * m[14]
        + m[12] * m[2] * m[11]
        - m[12] * m[3] * m[10];

    out[9] = -m[0] * m[6] * m[15]
        + m[0] * m[7] * m[14]
        + m[4] * m[2] * m[15]
        - m[4] * m[3] * m[14]
        - m[12] * m[2] * m[7]
        + m[12] * m[3] * m[6];

    out[13] = m[0] * m[6] * m[11]
        - m[0] * m[7] * m[10]
        - m[4] * m[2] * m[11]
        + m[4] * m[3] * m[10]
        + m[8] * m[2] * m[7]
        - m[8] * m[3] * m[6];

    out[2] = cofactor02;

    out[6] = -m[0] * m[9] * m[15]
        + m[0] * m[11] * m[13]
        + m[8] * m[1] * m[15]
        - m[8] * m[3] * m[13]
        - m[12] * m[1] * m[11]
        + m[12] * m[3] * m[9];

    out[10] = m[0] * m[5] * m[15]
        - m[0] * m[7] * m[13]
        - m[4] * m[1] * m[15]
        + m[4] * m[3] * m[13]
        + m[12] * m[1] * m[7]
        - m[12] * m[3] * m[5];

    out[3] = cofactor03;

    out[14] = -m[0] * m[5] * m[11]
        + m[0] * m[7] * m[9]
        + m[4] * m[1] * m[11]
        - m[4] * m[3] * m[9]
        - m[8] * m[1] * m[7]
        + m[8] * m[3] * m[5];

    out[7] = m[0] * m[9] * m[14]
        - m[0] * m[10] * m[13]
        - m[8] * m[1] * m[14]
        + m[8] * m[2] * m[13]
        + m[12] * m[1] * m[10]
        - m[12] * m[2] * m[9];

    out[11] = -m[0] * m[5] * m[14]
        + m[0] * m[6] * m[13]
        + m[4] * m[1] * m[14]
        - m[4] * m[2] * m[13]
        - m[12] * m[1] * m[6]
        + m[12] * m[2] * m[5];

    out[15] = m[0] * m[5] * m[10]
        - m[0] * m[6] * m[9]
        - m[4] * m[1] * m[10]
        + m[4] * m[2] * m[9]
        + m[8] * m[1] * m[6]
        - m[8] * m[2] * m[5];


    double inv_det = 1.0 / det;
    for (int k = 0; k < 16; ++k) out[k] *= inv_det;
    return true;
}

__device__ __forceinline__ bool invert1(const double* v, double* out) {
    if (v[0] == 0.0) return false;
    out[0] = 1.0 / v[0];
    return true;
}

template <int B>
__device__ __forceinline__ bool invert_block(const double* v, double* out) {
    if (B == 4) return invert4(v, out);
    return invert1(v, out);
}

// Component q of a x: row q of a times x, summed over k in order (nalgebra's gemv).
template <int B, typename T>
__device__ __forceinline__ double block_row_dot(const T* a, int q, const double* x) {
    double s = (double)a[B * q] * x[0];
    for (int k = 1; k < B; ++k) s += (double)a[B * q + k] * x[k];
    return s;
}

// Row of a b from the row `a_row` of a (B x B, row-major), each entry summed over k in order
// (nalgebra's gemm).
template <int B>
__device__ __forceinline__ void block_row_mul(const double* a_row, const double* b, double* out_row) {
    for (int c = 0; c < B; ++c) {
        double s = a_row[0] * b[c];
        for (int k = 1; k < B; ++k) s += a_row[k] * b[B * k + c];
        out_row[c] = s;
    }
}

// out = a b, row by row.
template <int B>
__device__ __forceinline__ void block_mul(const double* a, const double* b, double* out) {
    for (int r = 0; r < B; ++r) block_row_mul<B>(a + B * r, b, out + B * r);
}

// out = a x, component by component.
template <int B, typename T>
__device__ __forceinline__ void block_mul_vec(const T* a, const double* x, double* out) {
    for (int r = 0; r < B; ++r) out[r] = block_row_dot<B>(a, r, x);
}

// Block-Jacobi: inverse of every diagonal block; a singular one sets *failed to its row + 1.
template <int B>
__device__ void jacobi_invert(int n_rows, const int* diag, const double* values, double* inv_diag, int* failed) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n_rows) return;
    if (!invert_block<B>(values + B * B * diag[row], inv_diag + B * B * row)) atomicCAS(failed, 0, row + 1);
}

// The kernels below that apply blocks row by row run B threads per block row, thread t taking
// component t % B of row t / B (launched over B n_rows threads, as bsr4_spmv): the B threads of
// a row read the B rows of each 4x4 block side by side, so a warp's loads of the factors are
// contiguous, where one thread per row read whole blocks apart from its neighbours (and the
// coarse LS89 mesh's 16k rows filled a quarter of the threads). Each thread does the CPU's
// arithmetic for its component.

// z_r = D_r^-1 r_r (the inverse blocks in f64, or rounded to f32 for the f32 swept ILU).
template <int B, typename T>
__device__ void jacobi_apply(int n_rows, const T* inv_diag, const double* r, double* z) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)B * n_rows) return;
    int row = (int)(t / B), q = (int)(t % B);
    z[t] = block_row_dot<B>(inv_diag + B * B * row, q, r + B * row);
}

// The mask of the B lanes of this thread's row in its warp (B divides 32).
template <int B>
__device__ __forceinline__ unsigned row_lanes() {
    unsigned first = (threadIdx.x & 31u) & ~(unsigned)(B - 1);
    return (B == 32 ? 0xffffffffu : ((1u << B) - 1u)) << first;
}

// Factorizes the rows of one level in place (BlockIlu0::factorize): for each L slot (i, k) in
// processing order, L_ik = A_ik U_kk^-1, then A_ij -= L_ik U_kj for the j of row k after k that
// row i also holds; finally the inverse of the pivot block. `lu` starts as a copy of A.
// B threads per row as the sweeps: thread q owns row q of row i's blocks, which is all that
// block row q of these products reads and writes, so the threads of a row meet only before the
// pivot's inverse, which one of them computes from the B rows of the updated diagonal block.
template <int B>
__device__ void ilu_factor_level(const int* rows, int n, const int* row_ptr, const int* cols, const int* diag, const int* position,
                                 double* lu, double* inv_diag, int* failed) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)B * n) return;  // whole rows: B n is a multiple of B
    int i = rows[t / B], q = (int)(t % B);
    int a = row_ptr[i], b = row_ptr[i + 1];
    int pi = position[i];
    int last = -1;
    while (true) {
        // The next L slot in processing order (rows hold a handful of slots).
        int s_ik = -1, best = pi;
        for (int s = a; s < b; ++s) {
            int p = position[cols[s]];
            if (p > last && p < best) { best = p; s_ik = s; }
        }
        if (s_ik < 0) break;
        last = best;
        int k = cols[s_ik];
        double l_row[B];
        block_row_mul<B>(lu + B * B * s_ik + B * q, inv_diag + B * B * k, l_row);
        for (int c = 0; c < B; ++c) lu[B * B * s_ik + B * q + c] = l_row[c];
        int pk = position[k];
        for (int s_kj = row_ptr[k]; s_kj < row_ptr[k + 1]; ++s_kj) {
            int jcol = cols[s_kj];
            if (position[jcol] <= pk) continue;
            for (int s = a; s < b; ++s) {
                if (cols[s] != jcol) continue;
                double prod[B];
                block_row_mul<B>(l_row, lu + B * B * s_kj, prod);
                for (int c = 0; c < B; ++c) lu[B * B * s + B * q + c] = lu[B * B * s + B * q + c] - prod[c];
            }
        }
    }
    __syncwarp(row_lanes<B>());
    if (q == 0 && !invert_block<B>(lu + B * B * diag[i], inv_diag + B * B * i)) atomicCAS(failed, 0, i + 1);
}

// Forward sweep of one level (BlockIlu0::forward_row): y_i = z_i - sum over earlier rows k of L_ik y_k.
template <int B>
__device__ void ilu_forward_level(const int* rows, int n, const int* row_ptr, const int* cols, const int* position, const double* lu, double* z) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = rows[t];
    double y[B];
    for (int q = 0; q < B; ++q) y[q] = z[B * i + q];
    for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
        int k = cols[s];
        if (position[k] >= position[i]) continue;
        double p[B];
        block_mul_vec<B>(lu + B * B * s, z + B * k, p);
        for (int q = 0; q < B; ++q) y[q] = y[q] - p[q];
    }
    for (int q = 0; q < B; ++q) z[B * i + q] = y[q];
}

// Backward sweep of one level (BlockIlu0::backward_row): x_i = D_i^-1 (y_i - sum over later rows j of U_ij x_j).
template <int B>
__device__ void ilu_backward_level(const int* rows, int n, const int* row_ptr, const int* cols, const int* position, const double* lu,
                                   const double* inv_diag, double* z) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = rows[t];
    double y[B];
    for (int q = 0; q < B; ++q) y[q] = z[B * i + q];
    for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
        int j = cols[s];
        if (position[j] <= position[i]) continue;
        double p[B];
        block_mul_vec<B>(lu + B * B * s, z + B * j, p);
        for (int q = 0; q < B; ++q) y[q] = y[q] - p[q];
    }
    double x[B];
    block_mul_vec<B>(inv_diag + B * B * i, y, x);
    for (int q = 0; q < B; ++q) z[B * i + q] = x[q];
}

// ---- Jacobi-swept triangular solves (Anzt, Chow & Dongarra 2015) ----
// One sweep of a triangular solve with every row reading the previous sweep's vector, so a
// sweep is one launch over every row whatever the ordering (BlockIlu0::jacobi_sweep).
// Each row visits only the entries of its side of the diagonal (ilu.rs `TriangleRows`: (column,
// slot) pairs in the row's order, so the arithmetic is forward_row's and backward_row's).

// The factors are read in f64 at their slots of `lu` (entry.y), or, with `packed`, rounded to f32
// and packed in the entry order (ilu_pack_factors_f32; FactorPrecision::Single: half the bytes of
// the sweeps, whose factor reads are most of a Krylov iteration's traffic). Each f32 value is
// widened before the f64 products: the arithmetic of BlockIlu0 with single-precision factors.

// rhs - sum over the entries [first, end) of (factor block row q) . x_column, subtracted in entry
// order (forward_row's and backward_row's arithmetic for component q). The entries are taken
// SWEEP_CHUNK at a time with all their loads issued before the products: a row's entries read
// one after the other (entry, then its block and vector) were a chain of dependent memory
// latencies, the bulk of a sweep's 5 us on the coarse LS89 mesh.
#define SWEEP_CHUNK 4
template <int B, typename T>
__device__ __forceinline__ double triangle_row_update(double rhs, int first, int end, const int2* entries, const T* factors, int packed, int q,
                                                      const double* x) {
    double y = rhs;
    for (int s0 = first; s0 < end; s0 += SWEEP_CHUNK) {
        double p[SWEEP_CHUNK];
#pragma unroll
        for (int u = 0; u < SWEEP_CHUNK; ++u) {
            int s = s0 + u;
            if (s < end) {
                int2 e = entries[s];
                p[u] = block_row_dot<B>(factors + B * B * (packed ? s : e.y), q, x + B * e.x);
            }
        }
#pragma unroll
        for (int u = 0; u < SWEEP_CHUNK; ++u)
            if (s0 + u < end) y = y - p[u];
    }
    return y;
}

// y_new_i = rhs_i - sum over earlier rows k of L_ik y_old_k (forward_row with rhs and y apart);
// B threads per row (above).
template <int B, typename T>
__device__ void ilu_forward_jacobi(int n, const int* lower_ptr, const int2* lower, const T* factors, int packed, const double* rhs,
                                   const double* y_old, double* y_new) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (long)B * n) return;
    int i = (int)(t / B), q = (int)(t % B);
    y_new[t] = triangle_row_update<B>(rhs[t], lower_ptr[i], lower_ptr[i + 1], lower, factors, packed, q, y_old);
}

// x_new_i = D_i^-1 (rhs_i - sum over later rows j of U_ij x_old_j) (backward_row, likewise);
// B threads per row, which trade their components of y through warp shuffles for the pivot
// product. A row's B threads lie in one warp (B divides 32), and no thread leaves before the
// shuffles: those past the last row compute row 0's values and store nothing.
template <int B, typename T>
__device__ void ilu_backward_jacobi(int n, const int* upper_ptr, const int2* upper, const T* factors, int packed, const T* inv_diag,
                                    const double* rhs, const double* x_old, double* x_new) {
    long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
    bool active = t < (long)B * n;
    int i = active ? (int)(t / B) : 0, q = (int)(t % B);
    double y = triangle_row_update<B>(rhs[B * i + q], upper_ptr[i], upper_ptr[i + 1], upper, factors, packed, q, x_old);
    const T* d = inv_diag + B * B * i + B * q;
    double x = (double)d[0] * __shfl_sync(0xffffffffu, y, 0, B);
    for (int k = 1; k < B; ++k) x += (double)d[k] * __shfl_sync(0xffffffffu, y, k, B);
    if (active) x_new[t] = x;
}

// out[t] = the block in slot entries[t].y of lu, rounded to f32 (one thread per value).
extern "C" __global__ void ilu_pack_factors_f32(int n_entries, int bb, const int2* entries, const double* lu, float* out) {
    long v = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= (long)n_entries * bb) return;
    int t = (int)(v / bb), q = (int)(v % bb);
    out[v] = (float)lu[(long)entries[t].y * bb + q];
}

// out = x rounded to f32.
extern "C" __global__ void round_to_f32(int n, const double* x, float* out) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) out[v] = (float)x[v];
}

// The sweeps of one block size and factor type: `_b4`, `_b1`, and `_f32_b4`, `_f32_b1`.
#define JACOBI_SWEEP_KERNELS(NAME, B, T, PACKED)                                                                                    \
    extern "C" __global__ void ilu_forward_jacobi##NAME(int n, const int* lower_ptr, const int2* lower, const T* factors,          \
                                                        const double* rhs, const double* y_old, double* y_new) {                   \
        ilu_forward_jacobi<B, T>(n, lower_ptr, lower, factors, PACKED, rhs, y_old, y_new);                                          \
    }                                                                                                                               \
    extern "C" __global__ void ilu_backward_jacobi##NAME(int n, const int* upper_ptr, const int2* upper, const T* factors,         \
                                                         const T* inv_diag, const double* rhs, const double* x_old, double* x_new) { \
        ilu_backward_jacobi<B, T>(n, upper_ptr, upper, factors, PACKED, inv_diag, rhs, x_old, x_new);                               \
    }

JACOBI_SWEEP_KERNELS(_b4, 4, double, 0)
JACOBI_SWEEP_KERNELS(_b1, 1, double, 0)
JACOBI_SWEEP_KERNELS(_f32_b4, 4, float, 1)
JACOBI_SWEEP_KERNELS(_f32_b1, 1, float, 1)

// ---- Sync-free level scheduling (Liu et al., Euro-Par 2016; what cuSPARSE's csrsv2 does) ----
// One launch for a whole factorization or sweep: thread t takes the t-th row of the processing
// order (rows sorted by level), spins until the rows it needs have set their flag to this
// call's `epoch`, computes, then publishes its own flag. Rows come in level order and blocks
// are dispatched in index order, so every row a thread waits for belongs to a block that is
// resident or done: no deadlock, and the level barriers cost a flag's latency instead of a
// kernel launch each.

__device__ __forceinline__ void wait_for(const volatile int* flags, int row, int epoch) {
    while (flags[row] != epoch) { }
}
__device__ __forceinline__ void publish(int* flags, int row, int epoch) {
    __threadfence();
    atomicExch(flags + row, epoch);
}
// Reads a value another block may have just written (past L1).
__device__ __forceinline__ double fresh(const double* p) { return __ldcg(p); }

// The whole factorization (ilu_factor_level's arithmetic): row i waits for the rows of its L part.
template <int B>
__device__ void ilu_factor_syncfree(const int* order, int n, const int* row_ptr, const int* cols, const int* diag, const int* position,
                                    double* lu, double* inv_diag, int* failed, int* flags, int epoch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = order[t];
    int a = row_ptr[i], b = row_ptr[i + 1];
    int pi = position[i];
    for (int s = a; s < b; ++s)
        if (position[cols[s]] < pi) wait_for(flags, cols[s], epoch);
    __threadfence();
    int last = -1;
    while (true) {
        int s_ik = -1, best = pi;
        for (int s = a; s < b; ++s) {
            int p = position[cols[s]];
            if (p > last && p < best) { best = p; s_ik = s; }
        }
        if (s_ik < 0) break;
        last = best;
        int k = cols[s_ik];
        double d_k[B * B], l_ik[B * B];
        for (int q = 0; q < B * B; ++q) d_k[q] = fresh(inv_diag + B * B * k + q);
        block_mul<B>(lu + B * B * s_ik, d_k, l_ik);
        for (int q = 0; q < B * B; ++q) lu[B * B * s_ik + q] = l_ik[q];
        int pk = position[k];
        for (int s_kj = row_ptr[k]; s_kj < row_ptr[k + 1]; ++s_kj) {
            int jcol = cols[s_kj];
            if (position[jcol] <= pk) continue;
            for (int s = a; s < b; ++s) {
                if (cols[s] != jcol) continue;
                double u_kj[B * B], prod[B * B];
                for (int q = 0; q < B * B; ++q) u_kj[q] = fresh(lu + B * B * s_kj + q);
                block_mul<B>(l_ik, u_kj, prod);
                for (int q = 0; q < B * B; ++q) lu[B * B * s + q] = lu[B * B * s + q] - prod[q];
            }
        }
    }
    if (!invert_block<B>(lu + B * B * diag[i], inv_diag + B * B * i)) atomicCAS(failed, 0, i + 1);
    publish(flags, i, epoch);
}

// The whole forward sweep (ilu_forward_level's arithmetic).
template <int B>
__device__ void ilu_forward_syncfree(const int* order, int n, const int* row_ptr, const int* cols, const int* position, const double* lu,
                                     double* z, int* flags, int epoch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = order[t];
    double y[B];
    for (int q = 0; q < B; ++q) y[q] = z[B * i + q];
    for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
        int k = cols[s];
        if (position[k] >= position[i]) continue;
        wait_for(flags, k, epoch);
        double zk[B], p[B];
        for (int q = 0; q < B; ++q) zk[q] = fresh(z + B * k + q);
        block_mul_vec<B>(lu + B * B * s, zk, p);
        for (int q = 0; q < B; ++q) y[q] = y[q] - p[q];
    }
    for (int q = 0; q < B; ++q) z[B * i + q] = y[q];
    publish(flags, i, epoch);
}

// The whole backward sweep (ilu_backward_level's arithmetic), rows in reverse processing order.
template <int B>
__device__ void ilu_backward_syncfree(const int* order, int n, const int* row_ptr, const int* cols, const int* position, const double* lu,
                                      const double* inv_diag, double* z, int* flags, int epoch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int i = order[n - 1 - t];
    double y[B];
    for (int q = 0; q < B; ++q) y[q] = fresh(z + B * i + q);
    for (int s = row_ptr[i]; s < row_ptr[i + 1]; ++s) {
        int j = cols[s];
        if (position[j] <= position[i]) continue;
        wait_for(flags, j, epoch);
        double zj[B], p[B];
        for (int q = 0; q < B; ++q) zj[q] = fresh(z + B * j + q);
        block_mul_vec<B>(lu + B * B * s, zj, p);
        for (int q = 0; q < B; ++q) y[q] = y[q] - p[q];
    }
    double x[B];
    block_mul_vec<B>(inv_diag + B * B * i, y, x);
    for (int q = 0; q < B; ++q) z[B * i + q] = x[q];
    publish(flags, i, epoch);
}

#define SYNCFREE_KERNELS(B)                                                                                                          \
    extern "C" __global__ void ilu_factor_syncfree_b##B(const int* order, int n, const int* row_ptr, const int* cols, const int* diag, \
                                                        const int* position, double* lu, double* inv_diag, int* failed, int* flags,  \
                                                        int epoch) {                                                                 \
        ilu_factor_syncfree<B>(order, n, row_ptr, cols, diag, position, lu, inv_diag, failed, flags, epoch);                         \
    }                                                                                                                                \
    extern "C" __global__ void ilu_forward_syncfree_b##B(const int* order, int n, const int* row_ptr, const int* cols,               \
                                                         const int* position, const double* lu, double* z, int* flags, int epoch) {  \
        ilu_forward_syncfree<B>(order, n, row_ptr, cols, position, lu, z, flags, epoch);                                             \
    }                                                                                                                                \
    extern "C" __global__ void ilu_backward_syncfree_b##B(const int* order, int n, const int* row_ptr, const int* cols,              \
                                                          const int* position, const double* lu, const double* inv_diag, double* z, \
                                                          int* flags, int epoch) {                                                   \
        ilu_backward_syncfree<B>(order, n, row_ptr, cols, position, lu, inv_diag, z, flags, epoch);                                  \
    }

SYNCFREE_KERNELS(4)
SYNCFREE_KERNELS(1)

#define PRECONDITIONER_KERNELS(B)                                                                                                  \
    extern "C" __global__ void jacobi_invert_b##B(int n_rows, const int* diag, const double* values, double* inv_diag, int* failed) { \
        jacobi_invert<B>(n_rows, diag, values, inv_diag, failed);                                                                  \
    }                                                                                                                              \
    extern "C" __global__ void jacobi_apply_b##B(int n_rows, const double* inv_diag, const double* r, double* z) {               \
        jacobi_apply<B>(n_rows, inv_diag, r, z);                                                                                   \
    }                                                                                                                               \
    extern "C" __global__ void jacobi_apply_f32_b##B(int n_rows, const float* inv_diag, const double* r, double* z) {             \
        jacobi_apply<B>(n_rows, inv_diag, r, z);                                                                                   \
    }                                                                                                                              \
    extern "C" __global__ void ilu_factor_level_b##B(const int* rows, int n, const int* row_ptr, const int* cols, const int* diag,  \
                                                     const int* position, double* lu, double* inv_diag, int* failed) {             \
        ilu_factor_level<B>(rows, n, row_ptr, cols, diag, position, lu, inv_diag, failed);                                         \
    }                                                                                                                              \
    extern "C" __global__ void ilu_forward_level_b##B(const int* rows, int n, const int* row_ptr, const int* cols, const int* position, \
                                                      const double* lu, double* z) {                                               \
        ilu_forward_level<B>(rows, n, row_ptr, cols, position, lu, z);                                                             \
    }                                                                                                                              \
    extern "C" __global__ void ilu_backward_level_b##B(const int* rows, int n, const int* row_ptr, const int* cols, const int* position, \
                                                       const double* lu, const double* inv_diag, double* z) {                      \
        ilu_backward_level<B>(rows, n, row_ptr, cols, position, lu, inv_diag, z);                                                  \
    }

PRECONDITIONER_KERNELS(4)
PRECONDITIONER_KERNELS(1)
