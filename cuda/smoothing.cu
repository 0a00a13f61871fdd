// Central implicit residual smoothing (thesis eq. 4.15): along every grid line solve
//   -eps_k R*_{k-1} + (1 + 2 eps_k) R*_k - eps_k R*_{k+1} = R_k
// first along i, then along j, with constant coefficients or with per-cell ones (thesis
// eq. 4.16). Twin of src/backend/cpu/smoothing.rs (smooth_block), which solves each line with the
// Thomas algorithm. Here one warp solves a line: the Thomas recurrence is a chain of dependent
// divisions as long as the line, and one thread per line left the few hundred i-lines of a
// cascade mesh (up to 500 cells each on LS89 medium) bound by that chain's latency, a quarter of
// an explicit multigrid cycle. The warp splits the line into 32 chunks and uses the partition
// method (the Thomas-PCR hybrid of Laszlo, Giles and Appleyard, ACM TOMS 42(4), 2016): each lane
// eliminates inside its chunk, the 32 chunk-end unknowns form a tridiagonal system that parallel
// cyclic reduction solves in 5 shuffle steps, and each lane fills its chunk from them. The matrix
// is diagonally dominant for eps >= 0, so neither the chunk eliminations nor the reduced system
// pivot. The result is the CPU's to round-off, not bit for bit (another order of operations).
//
// Warp w of a launch solves line (w mod nlines) of variable (w / nlines), lines numbered block
// after block: i-lines (rows j of each block) in the first launch, j-lines (columns i) in the
// second. Variables are smoothed independently and the i-sweep of a variable only precedes its
// own j-sweep, so "every variable along i, then every variable along j" gives the CPU's results.

#define WARP 32
#define FULL_MASK 0xffffffffu

// A grid line of one block: its first interior cell (global padded cell g, interior scalar c),
// the steps to the next cell in both arenas, and its length.
struct Line { int g, g_step, c, c_step, n, block; };

// Line `line` (0 .. total lines of the direction) of direction `dir` (0: i-lines, one per row
// j; 1: j-lines, one per column i), blocks in table order.
__device__ Line line_of(const BlockEntry* __restrict__ blocks, int nblocks, int dir, int line) {
    int b = 0;
    while (b + 1 < nblocks && line >= (dir == 0 ? blocks[b].nj : blocks[b].ni)) {
        line -= dir == 0 ? blocks[b].nj : blocks[b].ni;
        ++b;
    }
    const BlockEntry e = blocks[b];
    Line l;
    l.block = b;
    if (dir == 0) {
        l.g = gcell(e, 0, line); l.g_step = 1;
        l.c = gint(e, 0, line); l.c_step = 1;
        l.n = e.ni;
    } else {
        l.g = gcell(e, line, 0); l.g_step = padded_stride(e);
        l.c = gint(e, line, 0); l.c_step = e.ni;
        l.n = e.nj;
    }
    return l;
}

// Row k of line l's system, normalised by its diagonal: (lower, upper, rhs) of
//   lower x_{k-1} + x_k + upper x_{k+1} = rhs,
// with the couplings to cells beyond the line's ends dropped (no special end rows: residuals
// outside the block count as zero, as on the CPU).
struct Row { double lower, upper, rhs; };

__device__ __forceinline__ double eps_of(const double* __restrict__ eps_cells, double eps_constant, const Line& l, int k) {
    return eps_cells ? eps_cells[l.c + k * l.c_step] : eps_constant;
}

// The partition method's reduced row of one chunk, in the chunk-end unknowns E:
//   lower E_{p-1} + diag E_p + upper E_{p+1} = rhs.
struct Reduced { double lower, diag, upper, rhs; };

// Parallel cyclic reduction of the warp's 32 reduced rows, one per lane; returns this lane's
// unknown. Rows beyond the warp are identity rows.
__device__ double pcr_solve(Reduced r, int lane) {
    for (int s = 1; s < WARP; s <<= 1) {
        double la = __shfl_up_sync(FULL_MASK, r.lower, s), lb = __shfl_up_sync(FULL_MASK, r.diag, s);
        double lc = __shfl_up_sync(FULL_MASK, r.upper, s), ld = __shfl_up_sync(FULL_MASK, r.rhs, s);
        double ua = __shfl_down_sync(FULL_MASK, r.lower, s), ub = __shfl_down_sync(FULL_MASK, r.diag, s);
        double uc = __shfl_down_sync(FULL_MASK, r.upper, s), ud = __shfl_down_sync(FULL_MASK, r.rhs, s);
        if (lane < s) { la = 0.0; lb = 1.0; lc = 0.0; ld = 0.0; }
        if (lane + s >= WARP) { ua = 0.0; ub = 1.0; uc = 0.0; ud = 0.0; }
        double k1 = r.lower / lb, k2 = r.upper / ub;
        r.diag = r.diag - lc * k1 - ua * k2;
        r.rhs = r.rhs - ld * k1 - ud * k2;
        r.lower = -la * k1;
        r.upper = -uc * k2;
    }
    return r.rhs / r.diag;
}

// First cell of lane p's chunk of a line of n cells: 32 nearly equal chunks, one cell each on
// lines shorter than the warp (the lanes past the end idle, with empty chunks).
__device__ __forceinline__ int chunk_start(int n, int p) {
    return n >= WARP ? p * n / WARP : min(p, n);
}

// The lane whose chunk holds cell k of a line of n cells (chunk_start(n, p) <= k < chunk_start(n, p + 1)).
__device__ __forceinline__ int chunk_owner(int n, int k) {
    return n >= WARP ? (WARP * (k + 1) + n - 1) / n - 1 : k;
}

// Where a lane keeps row i of its chunk: at origin + i * step of rhs, sub and sup.
struct Storage { double* rhs; double* sub; double* sup; int origin, step; };

// Solves line l of one variable in place; called by all 32 lanes of a warp. `at` holds the
// line's right-hand side, which becomes the solution, and room for the chunks' modified
// coefficients: either the line in place in the residual and scratch arenas, or its copy in
// shared memory (see smooth_lines). Lane p owns the cells [lo, hi) of the line (chunk_start).
//
// In a chunk with local rows 0 .. L-1 (x_0 its first unknown F, x_{L-1} its last E):
// the forward pass turns rows 1 .. L-1 into  a_i x_0 + x_i + c_i x_{i+1} = d_i,  the backward
// pass rows 1 .. L-2 into  a_i x_0 + x_i + c_i x_{L-1} = d_i  and row 0 into
//   F_p = d_0 - a_0 E_{p-1} - c_0 E_p;
// row L-1 with F_p and F_{p+1} substituted is the chunk's reduced row.
__device__ void solve_line_partitioned(const double* __restrict__ eps_cells, double eps_constant, const Line& l, const Storage at) {
    const int lane = threadIdx.x & (WARP - 1), n = l.n;
    const int lo = chunk_start(n, lane), hi = chunk_start(n, lane + 1);
    const int len = hi - lo;
    double* __restrict__ rhs = at.rhs;
    double* __restrict__ sub = at.sub;
    double* __restrict__ sup = at.sup;

    // Forward elimination inside the chunk; the last row's values stay in registers.
    Row first = {0.0, 0.0, 0.0}, prev = {0.0, 0.0, 0.0};
    double a_prev = 0.0;
    for (int i = 0; i < len; ++i) {
        const int k = lo + i, g = at.origin + i * at.step;
        const double e = eps_of(eps_cells, eps_constant, l, k);
        const double lower = k > 0 ? -e : 0.0, upper = k + 1 < n ? -e : 0.0, diag = 1.0 + 2.0 * e;
        double a, c, d;
        if (i < 2) {
            a = lower / diag;
            c = upper / diag;
            d = rhs[g] / diag;
        } else {
            const double m = 1.0 / (diag - lower * prev.upper);
            d = m * (rhs[g] - lower * prev.rhs);
            a = -m * lower * a_prev;
            c = m * upper;
        }
        sub[g] = a;
        sup[g] = c;
        rhs[g] = d;
        if (i == 0) first = {a, c, d};
        prev = {a, c, d};
        a_prev = a;
    }
    const Row last = prev;

    // Backward: rows L-3 .. 1 in terms of x_0 and x_{L-1} (row L-2 already is), then row 0.
    if (len >= 3) {
        int g = at.origin + (len - 2) * at.step;
        double d_next = rhs[g], a_next = sub[g], c_next = sup[g];
        for (int i = len - 3; i >= 1; --i) {
            g -= at.step;
            const double c = sup[g];
            d_next = rhs[g] - c * d_next;
            a_next = sub[g] - c * a_next;
            c_next = -c * c_next;
            rhs[g] = d_next;
            sub[g] = a_next;
            sup[g] = c_next;
        }
        const double m = 1.0 / (1.0 - first.upper * a_next);
        first = {m * first.lower, -m * first.upper * c_next, m * (first.rhs - first.upper * d_next)};
    }

    // F_p = f.rhs - f.lower E_{p-1} - f.upper E_p; a one-cell chunk's F is its E, an idle
    // lane's is nothing.
    const Row f = len >= 2 ? first : (len == 1 ? Row{0.0, -1.0, 0.0} : Row{0.0, 0.0, 0.0});
    double next_lower = __shfl_down_sync(FULL_MASK, f.lower, 1);
    double next_upper = __shfl_down_sync(FULL_MASK, f.upper, 1);
    double next_rhs = __shfl_down_sync(FULL_MASK, f.rhs, 1);
    if (lane == WARP - 1) next_lower = next_upper = next_rhs = 0.0;

    // The reduced row: the chunk's last row with F_p and F_{p+1} substituted.
    Reduced red = {0.0, 1.0, 0.0, 0.0};
    if (len >= 2) {
        red.lower = -last.lower * f.lower;
        red.diag = 1.0 - last.lower * f.upper - last.upper * next_lower;
        red.upper = -last.upper * next_upper;
        red.rhs = last.rhs - last.lower * f.rhs - last.upper * next_rhs;
    } else if (len == 1) {
        red.lower = last.lower;
        red.diag = 1.0 - last.upper * next_lower;
        red.upper = -last.upper * next_upper;
        red.rhs = last.rhs - last.upper * next_rhs;
    }
    const double e_own = pcr_solve(red, lane);
    double e_before = __shfl_up_sync(FULL_MASK, e_own, 1);
    if (lane == 0) e_before = 0.0;

    // Fill the chunk: its ends, then the rows between them.
    if (len == 0) return;
    const double f_own = len == 1 ? e_own : f.rhs - f.lower * e_before - f.upper * e_own;
    rhs[at.origin] = f_own;
    rhs[at.origin + (len - 1) * at.step] = e_own;
    for (int i = 1; i < len - 1; ++i) {
        const int g = at.origin + i * at.step;
        rhs[g] = rhs[g] - sub[g] * f_own - sup[g] * e_own;
    }
}

// The warp's (variable, line) of a launch with nlines lines per variable, or -1 past the last.
__device__ __forceinline__ int warp_task(int nvar, int nlines) {
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    return w < nvar * nlines ? w : -1;
}

// Solves line l of variable v of r (one warp). With staged > 0 (the longest chunk of the launch;
// the host passes 0 where the copy would not fit in shared memory) the line is copied into the
// warp's shared memory first, row i of lane p's chunk at i * WARP + p: the copy in and out reads
// and writes the line's contiguous cells together (an i-line's in whole cache lines), and the
// three passes over the chunks touch 32 consecutive words at each step (no bank conflicts).
// Otherwise the chunks are eliminated in place, in the residual and the scratch arena.
__device__ void smooth_line(const double* __restrict__ eps_cells, double eps_constant, const Line& l, int v, const Extent& ext,
                            int staged, double* __restrict__ r, double* __restrict__ scratch) {
    extern __shared__ double lines_shared[];
    double* rv = r + (size_t)v * ext.np;
    if (staged == 0) {
        const int lo = chunk_start(l.n, threadIdx.x & (WARP - 1));
        const Storage at = {rv, scratch + (size_t)v * ext.np, scratch + (size_t)(NVAR + v) * ext.np, l.g + lo * l.g_step, l.g_step};
        solve_line_partitioned(eps_cells, eps_constant, l, at);
        return;
    }
    const int lane = threadIdx.x & (WARP - 1);
    double* own = lines_shared + (size_t)(threadIdx.x / WARP) * 3 * WARP * staged;
    for (int k = lane; k < l.n; k += WARP) {
        const int p = chunk_owner(l.n, k);
        own[(k - chunk_start(l.n, p)) * WARP + p] = rv[l.g + k * l.g_step];
    }
    __syncwarp();
    const Storage at = {own, own + WARP * staged, own + 2 * WARP * staged, lane, WARP};
    solve_line_partitioned(eps_cells, eps_constant, l, at);
    __syncwarp();
    for (int k = lane; k < l.n; k += WARP) {
        const int p = chunk_owner(l.n, k);
        rv[l.g + k * l.g_step] = own[(k - chunk_start(l.n, p)) * WARP + p];
    }
}

// One direction of smoothing with the constant coefficient eps (> 0; the host skips the launch
// otherwise, as the CPU skips the direction) for the first nvar variables of r. scratch holds
// 2 x NVAR slabs of np (the chunks' modified coefficients when not staged).
extern "C" __global__ void smooth_lines_constant(const BlockEntry* __restrict__ blocks, Extent ext, int dir, int nlines, int nvar,
                                                 double eps, int staged, double* __restrict__ r, double* __restrict__ scratch) {
    const int task = warp_task(nvar, nlines);
    if (task < 0) return;
    const int v = task / nlines;
    const Line l = line_of(blocks, ext.nblocks, dir, task - v * nlines);
    smooth_line(nullptr, eps, l, v, ext, staged, r, scratch);
}

// Whether direction `dir` of block b is smoothed at all: some per-cell coefficient > 0
// (smoothing.rs Coefficients::active). One thread block per (mesh block, direction), scanning the
// block's coefficients in chunks of blockDim cells until one is positive; writes active[2b + dir]
// (0 or 1), so the flags need no clearing. The common case (almost every coefficient positive)
// ends after the first chunk.
extern "C" __global__ void smoothing_active(const BlockEntry* __restrict__ blocks, const double* __restrict__ eps_i,
                                            const double* __restrict__ eps_j, int* __restrict__ active) {
    int b = blockIdx.x, dir = blockIdx.y;
    const BlockEntry e = blocks[b];
    const double* eps = dir == 0 ? eps_i : eps_j;
    int n = e.ni * e.nj;
    int any = 0;
    for (int start = 0; start < n && !any; start += blockDim.x) {
        int k = start + threadIdx.x;
        any = __syncthreads_or(k < n && eps[e.interior + k] > 0.0);
    }
    if (threadIdx.x == 0) active[2 * b + dir] = any;
}

// One direction of smoothing with per-cell coefficients eps (the direction's arena, per interior
// cell) for the first nvar variables of r; lines of blocks whose flag (smoothing_active) is 0 are
// left as they are, as the CPU skips such a block's direction (the whole warp returns: its lanes
// share the line).
//
// Why the flag and not simply a solve with all-zero coefficients, which is the identity in exact
// arithmetic: it is not the CPU's result when the CPU skips. (1) A block with no positive but some
// negative coefficients is skipped by the CPU, whereas the solve would use them. (2) With eps = 0
// the eliminations compute R_k + 0 * R*_{k-1}: an infinite or NaN residual would spread NaN along
// the whole line (0 * inf = NaN) where the CPU leaves it in its cell, and -0.0 would become +0.0.
extern "C" __global__ void smooth_lines_variable(const BlockEntry* __restrict__ blocks, Extent ext, int dir, int nlines, int nvar,
                                                 const double* __restrict__ eps, const int* __restrict__ active, int staged,
                                                 double* __restrict__ r, double* __restrict__ scratch) {
    const int task = warp_task(nvar, nlines);
    if (task < 0) return;
    const int v = task / nlines;
    const Line l = line_of(blocks, ext.nblocks, dir, task - v * nlines);
    if (!active[2 * l.block + dir]) return;
    smooth_line(eps, 0.0, l, v, ext, staged, r, scratch);
}
