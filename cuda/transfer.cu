// Multigrid transfer operators between a mesh and its 2 x 2 agglomeration (Blazek sec. 9.3),
// block b of the coarse mesh being block b of the fine one agglomerated. Twins of
// src/backend/cpu/transfer.rs; one thread per coarse (restriction) or fine (prolongation)
// interior cell, all variables.

// Coarse state = volume-weighted mean of the four fine cells (FAS restriction of the state).
extern "C" __global__ void restrict_state(const BlockEntry* __restrict__ fine, Extent fext, const BlockEntry* __restrict__ coarse,
                                          Extent cext, const double* __restrict__ fine_volume,
                                          const double* __restrict__ w_fine, double* __restrict__ w_coarse) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cext.nint) return;
    int ic, jc;
    int b = locate_interior(coarse, cext.nblocks, c, ic, jc);
    const BlockEntry ec = coarse[b], ef = fine[b];
    int g = gcell(ec, ic, jc);
    for (int v = 0; v < NVAR; ++v) {
        double sum = 0.0, vol = 0.0;
        for (int k = 0; k < 4; ++k) {
            int i = 2 * ic + (k & 1), j = 2 * jc + (k >> 1);
            double fv = fine_volume[gint(ef, i, j)];
            sum += fv * w_fine[v * fext.np + gcell(ef, i, j)];
            vol += fv;
        }
        w_coarse[v * cext.np + g] = sum / vol;
    }
}

// Coarse residual = sum of the four fine residuals (residuals are volume integrals).
extern "C" __global__ void restrict_residual(const BlockEntry* __restrict__ fine, Extent fext, const BlockEntry* __restrict__ coarse,
                                             Extent cext, const double* __restrict__ r_fine, double* __restrict__ r_coarse) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cext.nint) return;
    int ic, jc;
    int b = locate_interior(coarse, cext.nblocks, c, ic, jc);
    const BlockEntry ec = coarse[b], ef = fine[b];
    int g = gcell(ec, ic, jc);
    for (int v = 0; v < NVAR; ++v) {
        double sum = 0.0;
        for (int k = 0; k < 4; ++k) sum += r_fine[v * fext.np + gcell(ef, 2 * ic + (k & 1), 2 * jc + (k >> 1))];
        r_coarse[v * cext.np + g] = sum;
    }
}

// Injection of the coarse-grid correction: w_fine += w_coarse - w_start on the four fine cells.
extern "C" __global__ void prolong_correction(const BlockEntry* __restrict__ coarse, Extent cext, const BlockEntry* __restrict__ fine,
                                              Extent fext, const double* __restrict__ w_coarse, const double* __restrict__ w_start,
                                              double* __restrict__ w_fine) {
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= fext.nint) return;
    int i, j;
    int b = locate_interior(fine, fext.nblocks, f, i, j);
    const BlockEntry ef = fine[b], ec = coarse[b];
    int gf = gcell(ef, i, j), gc = gcell(ec, i / 2, j / 2);
    for (int v = 0; v < NVAR; ++v) w_fine[v * fext.np + gf] += w_coarse[v * cext.np + gc] - w_start[v * cext.np + gc];
}
