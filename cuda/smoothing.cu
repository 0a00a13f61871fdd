// Central implicit residual smoothing (thesis eq. 4.15): along every grid line solve
//   -eps_k R*_{k-1} + (1 + 2 eps_k) R*_k - eps_k R*_{k+1} = R_k
// with the Thomas algorithm, first along i, then along j, with constant coefficients or with
// per-cell ones (thesis eq. 4.16). Twin of src/backend/cpu/smoothing.rs (smooth_block, thomas):
// one thread per (variable, grid line) for the whole mesh, one launch per direction; the
// recurrences are the CPU's, in the same order, so the results agree to round-off.
//
// Thread t of a launch solves line (t mod nlines) of variable (t / nlines), lines numbered
// block after block: i-lines (rows j of each block) in the first launch, j-lines (columns i)
// in the second, so adjacent threads of a j-line launch walk adjacent columns and every step
// of their sweeps reads and writes contiguous cells (coalesced). i-line threads walk rows one
// stride apart, each through its own cache lines.
//
// Variables are smoothed independently and the i-sweep of a variable only precedes its own
// j-sweep, so "every variable along i, then every variable along j" gives the CPU's results.

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

// Solves the tridiagonal system whose row k is (-eps_k, 1 + 2 eps_k, -eps_k) in place along line
// `l` of one variable (smoothing.rs thomas, same recurrences in the same order). eps_k is
// eps_cells[c_k] when eps_cells is given, else eps_constant. rhs and scratch (the modified
// super-diagonal) are that variable's slices of the residual and the scratch arena. The values
// of step k-1 are carried in registers: they are the ones just stored, so nothing changes.
__device__ void thomas(const double* __restrict__ eps_cells, double eps_constant, const Line& l, double* __restrict__ rhs,
                       double* __restrict__ scratch) {
    if (l.n == 0) return;
    int g = l.g, c = l.c;
    double e0 = eps_cells ? eps_cells[c] : eps_constant;
    double s_prev = -e0 / (1.0 + 2.0 * e0);
    double r_prev = rhs[g] / (1.0 + 2.0 * e0);
    scratch[g] = s_prev;
    rhs[g] = r_prev;
    for (int k = 1; k < l.n; ++k) {
        g += l.g_step;
        c += l.c_step;
        double e = eps_cells ? eps_cells[c] : eps_constant;
        double m = 1.0 + 2.0 * e + e * s_prev;
        s_prev = -e / m;
        r_prev = (rhs[g] + e * r_prev) / m;
        scratch[g] = s_prev;
        rhs[g] = r_prev;
    }
    // Back substitution: r_prev holds R*_{n-1}, g its cell.
    for (int k = l.n - 2; k >= 0; --k) {
        g -= l.g_step;
        r_prev = rhs[g] - scratch[g] * r_prev;
        rhs[g] = r_prev;
    }
}

// One direction of smoothing with the constant coefficient eps (> 0; the host skips the launch
// otherwise, as the CPU skips the direction) for the first nvar variables of r.
extern "C" __global__ void smooth_lines_constant(const BlockEntry* __restrict__ blocks, Extent ext, int dir, int nlines, int nvar,
                                                 double eps, double* __restrict__ r, double* __restrict__ scratch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nvar * nlines) return;
    int v = t / nlines;
    Line l = line_of(blocks, ext.nblocks, dir, t - v * nlines);
    thomas(nullptr, eps, l, r + (size_t)v * ext.np, scratch + (size_t)v * ext.np);
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
// left as they are, as the CPU skips such a block's direction.
//
// Why the flag and not simply a solve with all-zero coefficients, which is the identity in exact
// arithmetic: it is not bit for bit when the CPU skips. (1) A block with no positive but some
// negative coefficients is skipped by the CPU, whereas the solve would use them. (2) With eps = 0
// the forward step computes R_k + 0 * R*_{k-1}: an infinite or NaN residual would spread NaN along
// the whole line (0 * inf = NaN) where the CPU leaves it in its cell, and -0.0 would become +0.0.
extern "C" __global__ void smooth_lines_variable(const BlockEntry* __restrict__ blocks, Extent ext, int dir, int nlines, int nvar,
                                                 const double* __restrict__ eps, const int* __restrict__ active,
                                                 double* __restrict__ r, double* __restrict__ scratch) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nvar * nlines) return;
    int v = t / nlines;
    Line l = line_of(blocks, ext.nblocks, dir, t - v * nlines);
    if (!active[2 * l.block + dir]) return;
    thomas(eps, 0.0, l, r + (size_t)v * ext.np, scratch + (size_t)v * ext.np);
}
