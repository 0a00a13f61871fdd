// Local time step and implicit-residual-smoothing coefficients from the spectral radii of the
// flux Jacobians per grid direction (Blazek 2005, sec. 6.1.4, p. 188-189; thesis eq. 4.16).
// Twins of CpuBackend::local_time_step / smoothing_coefficients and cell_spectral_radii
// (src/backend/cpu/mod.rs), with the point-wise functions of src/flow/spectral.rs ported line
// by line (same operation order, so that the results agree to round-off). One thread per
// interior cell of the whole mesh.

// C in front of the viscous radii for a cell-centred scheme (Blazek p. 189: C = 4;
// flow::spectral::CELL_CENTRED_VISCOUS_FACTOR).
#define CELL_CENTRED_VISCOUS_FACTOR 4.0

// S_I = (S_{i-1/2} + S_{i+1/2}) / 2 of two interleaved face vectors (flow/spectral.rs mean_face_vector).
__device__ __forceinline__ void mean_face_vector(const double* s_minus, const double* s_plus, double& sx, double& sy) {
    sx = 0.5 * (s_minus[0] + s_plus[0]);
    sy = 0.5 * (s_minus[1] + s_plus[1]);
}

// Lambda_c = |v . S| + c |S| (flow/spectral.rs convective_spectral_radius).
__device__ __forceinline__ double convective_spectral_radius(double gamma, const Prim& q, double sx, double sy) {
    double area = sqrt(sx * sx + sy * sy);
    return fabs(q.u * sx + q.v * sy) + speed_of_sound(gamma, q) * area;
}

struct CellRadii { double volume, convective[2], viscous[2]; };

// Volume and spectral radii per grid direction of interior cell (i, j) of block e over the mean
// face vectors (cpu/mod.rs cell_spectral_radii): convective, and viscous ones (with the SA eddy
// viscosity when `turbulent`) for viscous physics only, else zero.
__device__ CellRadii cell_spectral_radii(const GasArgs& gas, int viscous, int turbulent, const BlockEntry& e, int np,
                                         const double* __restrict__ w, const double* __restrict__ si,
                                         const double* __restrict__ sj, const double* __restrict__ volume, int i, int j) {
    int g = gcell(e, i, j);
    Prim q = primitive_from_conservative(gas.gamma, w[g], w[np + g], w[2 * np + g], w[3 * np + g]);
    double six, siy, sjx, sjy;
    mean_face_vector(si + 2 * gface_i(e, i, j), si + 2 * gface_i(e, i + 1, j), six, siy);
    mean_face_vector(sj + 2 * gface_j(e, i, j), sj + 2 * gface_j(e, i, j + 1), sjx, sjy);
    CellRadii r;
    r.volume = volume[gint(e, i, j)];
    r.convective[0] = convective_spectral_radius(gas.gamma, q, six, siy);
    r.convective[1] = convective_spectral_radius(gas.gamma, q, sjx, sjy);
    if (viscous) {
        double mu = gas_viscosity(gas, q.p / (q.rho * gas.gas_constant));
        double mu_t = turbulent ? eddy_viscosity(q.rho, w[NFLOW * np + g] / q.rho, mu / q.rho) : 0.0;
        r.viscous[0] = viscous_spectral_radius(gas, q.rho, mu, mu_t, six, siy, r.volume);
        r.viscous[1] = viscous_spectral_radius(gas, q.rho, mu, mu_t, sjx, sjy, r.volume);
    } else {
        r.viscous[0] = 0.0;
        r.viscous[1] = 0.0;
    }
    return r;
}

// dt = CFL Omega / (Lc_I + Lc_J + C (Lv_I + Lv_J)) per interior cell (Blazek p. 188-189;
// flow/spectral.rs local_time_step). si, sj: face vectors, interleaved (sx, sy).
extern "C" __global__ void local_time_step(const BlockEntry* __restrict__ blocks, Extent ext, GasArgs gas, int viscous, int turbulent,
                                           double cfl, const double* __restrict__ w, const double* __restrict__ si,
                                           const double* __restrict__ sj, const double* __restrict__ volume, double* __restrict__ dt) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    CellRadii r = cell_spectral_radii(gas, viscous, turbulent, e, ext.np, w, si, sj, volume, i, j);
    double radii = r.convective[0] + r.convective[1] + CELL_CENTRED_VISCOUS_FACTOR * (r.viscous[0] + r.viscous[1]);
    dt[c] = cfl * r.volume / radii;
}

// eps_d = max(0, C cfl_ratio Lambda^d / (Lambda^I + Lambda^J)) with Lambda^d = Lc_d + C_v Lv_d
// per interior cell (thesis eq. 4.16; flow/spectral.rs smoothing_coefficients).
extern "C" __global__ void smoothing_coefficients(const BlockEntry* __restrict__ blocks, Extent ext, GasArgs gas, int viscous,
                                                  int turbulent, double cfl_ratio, double c_smoothing, const double* __restrict__ w,
                                                  const double* __restrict__ si, const double* __restrict__ sj,
                                                  const double* __restrict__ volume, double* __restrict__ eps_i,
                                                  double* __restrict__ eps_j) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    CellRadii r = cell_spectral_radii(gas, viscous, turbulent, e, ext.np, w, si, sj, volume, i, j);
    double radius_i = r.convective[0] + CELL_CENTRED_VISCOUS_FACTOR * r.viscous[0];
    double radius_j = r.convective[1] + CELL_CENTRED_VISCOUS_FACTOR * r.viscous[1];
    double total = radius_i + radius_j;
    eps_i[c] = fmax(c_smoothing * cfl_ratio * radius_i / total, 0.0);
    eps_j[c] = fmax(c_smoothing * cfl_ratio * radius_j / total, 0.0);
}
