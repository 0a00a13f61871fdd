// Approximate Jacobian of the first-order residual (thesis 5.2, Blazek ch. 6) assembled by rows
// without atomics, straight into the block pattern built once per mesh, and the operations of
// the implicit stage on the matrix: gather/scatter of a system's unknowns and the block SpMV.
// Twin of src/backend/cpu/jacobian.rs, src/backend/cpu/turbulence_jacobian.rs and the point
// functions of src/flow/jacobian.rs, ported line by line in the same operation order.
//
// Matrix layout (src/linalg/bsr.rs): row r is global interior cell r (arena.cuh), its blocks in
// slots row_ptr[r] .. row_ptr[r + 1], 16 values per mean-flow block (row-major), one per SA
// entry. Every row is written by one thread, which sums its four faces with the outward face
// vector: each face is linearized twice (once per side), so rows are independent.

#define FACE_CELL 0
#define FACE_CHARACTERISTIC 1
#define FACE_WALL 2

#define JAC_FROZEN_ROE 0
#define JAC_RUSANOV 1
#define JAC_EXACT 2

// One face of a matrix row (RowFace of cpu/jacobian.rs): outward face vector, what is across
// (FACE_*), the global padded cell across (neighbour or donor; the ghost for a characteristic
// face), the block slot of that neighbour, its interior index (for its volume), `bc` = 1 for an
// outlet (0: inlet) or for a no-slip wall, and the characteristic face's outward unit normal.
struct RowFaceEntry { int kind, other, slot, other_interior, bc, pad; double s_out[2], normal[2]; };

// What the Jacobian linearizes (JacobianOptions).
struct JacobianArgs { int convective, viscous, turbulent, has_dt; double entropy_fix; };

typedef double Block[4][4];

__device__ __forceinline__ void block_zero(Block m) {
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) m[r][c] = 0.0;
}
__device__ __forceinline__ void block_add(Block acc, const Block m) {
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) acc[r][c] += m[r][c];
}
// a b with the sum in k order (cpu/jacobian.rs product).
__device__ __forceinline__ void block_product(const Block a, const Block b, Block out) {
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            double s = 0.0;
            for (int k = 0; k < 4; ++k) s += a[r][k] * b[k][c];
            out[r][c] = s;
        }
}
__device__ __forceinline__ void block_store_add(double* dst, const Block m) {
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) dst[4 * r + c] += m[r][c];
}

__device__ __forceinline__ Prim prim_of(double gamma, const double* w) { return primitive_from_conservative(gamma, w[0], w[1], w[2], w[3]); }
__device__ __forceinline__ void load4(const double* w, int np, int g, double* out) {
    for (int v = 0; v < 4; ++v) out[v] = w[v * np + g];
}

// A = dF_c.n/dW (flow/jacobian.rs convective_flux_jacobian; Blazek App. A).
__device__ void convective_flux_jacobian(double gamma, const Prim& q, double nx, double ny, Block a) {
    double u = q.u, v = q.v;
    double g1 = gamma - 1.0;
    double vn = u * nx + v * ny;
    double h = total_enthalpy(gamma, q);
    double phi2 = 0.5 * g1 * (u * u + v * v);
    a[0][0] = 0.0; a[0][1] = nx; a[0][2] = ny; a[0][3] = 0.0;
    a[1][0] = nx * phi2 - u * vn; a[1][1] = vn - (gamma - 2.0) * u * nx; a[1][2] = u * ny - g1 * v * nx; a[1][3] = g1 * nx;
    a[2][0] = ny * phi2 - v * vn; a[2][1] = v * nx - g1 * u * ny; a[2][2] = vn - (gamma - 2.0) * v * ny; a[2][3] = g1 * ny;
    a[3][0] = vn * (phi2 - h); a[3][1] = nx * h - g1 * u * vn; a[3][2] = ny * h - g1 * v * vn; a[3][3] = gamma * vn;
}

// |A_Roe| per unit area, column by column: a unit conservative jump pushed through the Roe
// dissipation at the Roe average (flow/jacobian.rs roe_abs_matrix, flow/roe.rs).
__device__ void roe_abs_matrix(double gamma, const Prim& l, const Prim& r, double nx, double ny, double entropy_fix, Block out) {
    double sl = sqrt(l.rho), sr = sqrt(r.rho);
    double wl = sl / (sl + sr);
    double wr = 1.0 - wl;
    double u = wl * l.u + wr * r.u;
    double v = wl * l.v + wr * r.v;
    double h = wl * total_enthalpy(gamma, l) + wr * total_enthalpy(gamma, r);
    double c2a = (gamma - 1.0) * (h - 0.5 * (u * u + v * v));
    double c = sqrt(c2a > 0.0 ? c2a : 0.0);
    double rho = sl * sr;
    double vn = u * nx + v * ny;
    double delta = entropy_fix * (fabs(vn) + c);
    double e0 = harten_fixed_eigenvalue(vn - c, delta);
    double e1 = harten_fixed_eigenvalue(vn, delta);
    double e2 = harten_fixed_eigenvalue(vn + c, delta);
    double q2_half = 0.5 * (u * u + v * v);
    for (int col = 0; col < 4; ++col) {
        double dw[4] = {0.0, 0.0, 0.0, 0.0};
        dw[col] = 1.0;
        double d_rho = dw[0];
        double d_u = (dw[1] - u * dw[0]) / rho;
        double d_v = (dw[2] - v * dw[0]) / rho;
        double d_p = (gamma - 1.0) * (dw[3] - u * dw[1] - v * dw[2] + q2_half * dw[0]);
        double d_vn = d_u * nx + d_v * ny;
        double c2 = c * c;
        double a_minus = e0 * (d_p - rho * c * d_vn) / (2.0 * c2);
        double a_plus = e2 * (d_p + rho * c * d_vn) / (2.0 * c2);
        double entropy = e1 * (d_rho - d_p / c2);
        double shear = e1 * rho;
        out[0][col] = a_minus + entropy + a_plus;
        out[1][col] = a_minus * (u - c * nx) + entropy * u + shear * (d_u - d_vn * nx) + a_plus * (u + c * nx);
        out[2][col] = a_minus * (v - c * ny) + entropy * v + shear * (d_v - d_vn * ny) + a_plus * (v + c * ny);
        out[3][col] = a_minus * (h - c * vn) + entropy * q2_half + shear * (u * d_u + v * d_v - vn * d_vn) + a_plus * (h + c * vn);
    }
}

// Relative finite-difference steps (cpu/jacobian.rs FLUX_STEP, GHOST_STEP: the ghost fill's pow
// differs from glibc's in the last bit, which a small step would magnify).
#define FLUX_STEP 1e-6
#define GHOST_STEP 1e-3

// Finite-difference steps per conservative variable (cpu/jacobian.rs fd_steps).
__device__ void fd_steps(double gamma, const double* w, double relative, double* h) {
    Prim q = prim_of(gamma, w);
    double rho_c = w[0] * speed_of_sound(gamma, q);
    h[0] = relative * w[0];
    h[1] = relative * rho_c;
    h[2] = relative * rho_c;
    h[3] = relative * fabs(w[3]);
}

// The outward first-order Roe flux F(W_c, W_o) of conservative states.
__device__ Flux roe_flux_conservative(double gamma, const double* wc, const double* wo, double nx, double ny, double area, double eps) {
    return roe_flux(gamma, prim_of(gamma, wc), prim_of(gamma, wo), nx, ny, area, eps);
}

// Central-difference derivative of the Roe flux with respect to side `side` (0: W_c, 1: W_o).
__device__ void roe_flux_difference(double gamma, const double* wc, const double* wo, double nx, double ny, double area, double eps,
                                    int side, Block jac) {
    const double* w = side == 0 ? wc : wo;
    double h[4];
    fd_steps(gamma, w, FLUX_STEP, h);
    for (int c = 0; c < 4; ++c) {
        double wp[4], wm[4];
        for (int k = 0; k < 4; ++k) { wp[k] = w[k]; wm[k] = w[k]; }
        wp[c] += h[c];
        wm[c] -= h[c];
        Flux fp = side == 0 ? roe_flux_conservative(gamma, wp, wo, nx, ny, area, eps) : roe_flux_conservative(gamma, wc, wp, nx, ny, area, eps);
        Flux fm = side == 0 ? roe_flux_conservative(gamma, wm, wo, nx, ny, area, eps) : roe_flux_conservative(gamma, wc, wm, nx, ny, area, eps);
        for (int r = 0; r < 4; ++r) jac[r][c] = (fp.f[r] - fm.f[r]) / (2.0 * h[c]);
    }
}

// (dF/dW_c, dF/dW_o) of the outward face flux (cpu/jacobian.rs face_jacobians).
__device__ void face_jacobians(int kind, double gamma, double eps, const double* wc, const double* wo, double nx, double ny, double area,
                               Block d_c, Block d_o) {
    Prim qc = prim_of(gamma, wc), qo = prim_of(gamma, wo);
    if (kind == JAC_EXACT) {
        roe_flux_difference(gamma, wc, wo, nx, ny, area, eps, 0, d_c);
        roe_flux_difference(gamma, wc, wo, nx, ny, area, eps, 1, d_o);
        return;
    }
    Block a_c, a_o;
    convective_flux_jacobian(gamma, qc, nx, ny, a_c);
    convective_flux_jacobian(gamma, qo, nx, ny, a_o);
    if (kind == JAC_FROZEN_ROE) {
        Block abs_a;
        roe_abs_matrix(gamma, qc, qo, nx, ny, eps, abs_a);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c) {
                d_c[r][c] = 0.5 * (a_c[r][c] + abs_a[r][c]) * area;
                d_o[r][c] = 0.5 * (a_o[r][c] - abs_a[r][c]) * area;
            }
        return;
    }
    // Rusanov: lambda = max(|V_c.n| + c_c, |V_o.n| + c_o) (flow/jacobian.rs rusanov_flux_jacobians).
    double lc = fabs(qc.u * nx + qc.v * ny) + speed_of_sound(gamma, qc);
    double lo = fabs(qo.u * nx + qo.v * ny) + speed_of_sound(gamma, qo);
    double lambda = fmax(lc, lo);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            double id = r == c ? 1.0 : 0.0;
            d_c[r][c] = 0.5 * (a_c[r][c] + lambda * id) * area;
            d_o[r][c] = 0.5 * (a_o[r][c] - lambda * id) * area;
        }
}

// dF/dW_c of the wall flux [0, p n_x, p n_y, 0] |S| with p from the cell (cpu/jacobian.rs wall_jacobian).
__device__ void wall_jacobian(double gamma, const Prim& q, double nx, double ny, double area, Block jac) {
    double g1 = gamma - 1.0;
    double dp[4] = {0.5 * g1 * (q.u * q.u + q.v * q.v), -g1 * q.u, -g1 * q.v, g1};
    block_zero(jac);
    for (int c = 0; c < 4; ++c) {
        jac[1][c] = nx * area * dp[c];
        jac[2][c] = ny * area * dp[c];
    }
}

// Characteristic ghost g(W_c) of an inlet (outlet = 0) or outlet (outlet = 1), as the ghost fill computes it.
__device__ void characteristic_ghost(int outlet, const GasArgs& gas, const BoundaryArgs& bc, double nx, double ny, const double* wc, double* wg) {
    Prim q = prim_of(gas.gamma, wc);
    Prim qb = outlet ? outlet_state(gas.gamma, bc.p2, q, nx, ny) : inlet_state(gas, bc, q, nx, ny);
    conservative_from_primitive(gas.gamma, qb, wg);
}

// dg/dW_c by central differences of the ghost fill (cpu/jacobian.rs central_difference).
__device__ void characteristic_ghost_jacobian(int outlet, const GasArgs& gas, const BoundaryArgs& bc, double nx, double ny, const double* wc,
                                              Block jac) {
    double h[4];
    fd_steps(gas.gamma, wc, GHOST_STEP, h);
    for (int c = 0; c < 4; ++c) {
        double wp[4], wm[4], gp[4], gm[4];
        for (int k = 0; k < 4; ++k) { wp[k] = wc[k]; wm[k] = wc[k]; }
        wp[c] += h[c];
        wm[c] -= h[c];
        characteristic_ghost(outlet, gas, bc, nx, ny, wp, gp);
        characteristic_ghost(outlet, gas, bc, nx, ny, wm, gm);
        for (int r = 0; r < 4; ++r) jac[r][c] = (gp[r] - gm[r]) / (2.0 * h[c]);
    }
}

// Mean-flow rows `Omega/dt I + dR/dW` of the first-order residual (cpu/jacobian.rs assemble):
// one thread per row writes its whole block row.
extern "C" __global__ void assemble_flow_jacobian(const BlockEntry* __restrict__ blocks, Extent ext, GasArgs gas, BoundaryArgs bc,
                                                  JacobianArgs opt, const int* __restrict__ row_ptr, const int* __restrict__ diag,
                                                  const RowFaceEntry* __restrict__ faces, const double* __restrict__ w,
                                                  const double* __restrict__ volume, const double* __restrict__ dt,
                                                  double* __restrict__ values) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, row, i, j)];
    int np = ext.np, g = gcell(e, i, j);
    double gamma = gas.gamma;
    for (int s = 16 * row_ptr[row]; s < 16 * row_ptr[row + 1]; ++s) values[s] = 0.0;
    double wc[4];
    load4(w, np, g, wc);
    Prim qc = prim_of(gamma, wc);
    double cell_volume = volume[row];
    // Viscous spectral radius of a face as the coefficient of a scalar Laplacian (Blazek 6.2.3).
    double mu = gas_viscosity(gas, qc.p / (qc.rho * gas.gas_constant));
    double mu_t = opt.turbulent ? eddy_viscosity(qc.rho, w[NFLOW * np + g] / qc.rho, mu / qc.rho) : 0.0;
    Block diag_block;
    block_zero(diag_block);
    double scalar = 0.0;
    for (int f = 0; f < 4; ++f) {
        const RowFaceEntry face = faces[4 * row + f];
        double sx = face.s_out[0], sy = face.s_out[1];
        double area = sqrt(sx * sx + sy * sy);
        double nx = sx / area, ny = sy / area;
        double lambda_v = opt.viscous ? viscous_spectral_radius(gas, qc.rho, mu, mu_t, sx, sy, cell_volume) : 0.0;
        scalar += lambda_v;
        if (face.kind == FACE_WALL) {
            Block m;
            wall_jacobian(gamma, qc, nx, ny, area, m);
            block_add(diag_block, m);
        } else if (face.kind == FACE_CELL) {
            double wo[4];
            load4(w, np, face.other, wo);
            Block d_c, d_o;
            face_jacobians(opt.convective, gamma, opt.entropy_fix, wc, wo, nx, ny, area, d_c, d_o);
            for (int k = 0; k < 4; ++k) d_o[k][k] -= lambda_v;
            block_add(diag_block, d_c);
            block_store_add(values + 16 * face.slot, d_o);
        } else {
            double wg[4];
            load4(w, np, face.other, wg);
            Block d_c, d_g, dg_dc, chain;
            face_jacobians(opt.convective, gamma, opt.entropy_fix, wc, wg, nx, ny, area, d_c, d_g);
            characteristic_ghost_jacobian(face.bc, gas, bc, face.normal[0], face.normal[1], wc, dg_dc);
            block_product(d_g, dg_dc, chain);
            block_add(diag_block, d_c);
            block_add(diag_block, chain);
        }
    }
    if (opt.has_dt) scalar += cell_volume / dt[row];
    for (int k = 0; k < 4; ++k) diag_block[k][k] += scalar;
    block_store_add(values + 16 * diag[row], diag_block);
}

// What the SA linearization needs of a cell (turbulence_jacobian.rs SaCell).
struct SaCell { Prim q; double nu, nu_tilde; };

__device__ SaCell sa_cell(const GasArgs& gas, const double* w, int np, int g) {
    double wc[4];
    load4(w, np, g, wc);
    SaCell c;
    c.q = prim_of(gas.gamma, wc);
    c.nu = gas_viscosity(gas, c.q.p / (c.q.rho * gas.gas_constant)) / c.q.rho;
    c.nu_tilde = w[NFLOW * np + g] / c.q.rho;
    return c;
}

// The transported scalar of a segregated system (turbulence_jacobian.rs Scalar).
#define SCALAR_NU_TILDE 0
#define SCALAR_INTERMITTENCY 1

// Thin-layer diffusion coefficient of a face with face means of the two sides [kg/s]:
// (mu + rho nu~ f_n)/sigma for nu~, mu + mu_t/sigma_gamma for gamma.
__device__ double face_diffusion(int scalar, const SaCell& a, const SaCell& b, double area, double face_volume) {
    double rho = 0.5 * (a.q.rho + b.q.rho);
    double coefficient;
    if (scalar == SCALAR_NU_TILDE) {
        coefficient = sa_diffusion_coefficient(rho, 0.5 * (a.nu + b.nu), 0.5 * (a.nu_tilde + b.nu_tilde));
    } else {
        double mu_t_a = eddy_viscosity(a.q.rho, a.nu_tilde, a.nu), mu_t_b = eddy_viscosity(b.q.rho, b.nu_tilde, b.nu);
        coefficient = rho * (0.5 * (a.nu + b.nu)) + 0.5 * (mu_t_a + mu_t_b) / GAMMA_SIGMA;
    }
    return coefficient * area * area / face_volume;
}

// Segregated rows `Omega/dt + dR(rho s)/d(rho s)` of the scalar `scalar` (rho nu~ or rho gamma)
// at frozen mean flow (turbulence_jacobian.rs assemble_scalar): upwind convection, thin-layer
// diffusion (none at walls for gamma, whose normal gradient is zero there), and the
// diagonal-strengthening part of the source; `source_derivative` is dQ/d(rho s) per cell.
extern "C" __global__ void assemble_turbulence_jacobian(const BlockEntry* __restrict__ blocks, Extent ext, GasArgs gas, JacobianArgs opt, int scalar,
                                                        const int* __restrict__ row_ptr, const int* __restrict__ diag,
                                                        const RowFaceEntry* __restrict__ faces, const double* __restrict__ w,
                                                        const double* __restrict__ volume, const double* __restrict__ source_derivative,
                                                        const double* __restrict__ dt, double* __restrict__ values) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, row, i, j)];
    int np = ext.np;
    double gamma = gas.gamma;
    for (int s = row_ptr[row]; s < row_ptr[row + 1]; ++s) values[s] = 0.0;
    SaCell c = sa_cell(gas, w, np, gcell(e, i, j));
    double cell_volume = volume[row];
    double d = 0.0;
    for (int f = 0; f < 4; ++f) {
        const RowFaceEntry face = faces[4 * row + f];
        double sx = face.s_out[0], sy = face.s_out[1];
        double area = sqrt(sx * sx + sy * sy);
        double nx = sx / area, ny = sy / area;
        if (face.kind == FACE_WALL) {
            if (face.bc && scalar == SCALAR_NU_TILDE) d += 2.0 * face_diffusion(scalar, c, c, area, cell_volume) / c.q.rho;
        } else if (face.kind == FACE_CELL) {
            SaCell o = sa_cell(gas, w, np, face.other);
            double mass_flux = roe_flux(gamma, c.q, o.q, nx, ny, area, opt.entropy_fix).f[0];
            double face_volume = 0.5 * (cell_volume + volume[face.other_interior]);
            double k = face_diffusion(scalar, c, o, area, face_volume);
            d += fmax(mass_flux, 0.0) / c.q.rho + k / c.q.rho;
            values[face.slot] += fmin(mass_flux, 0.0) / o.q.rho - k / o.q.rho;
        } else {
            SaCell gh = sa_cell(gas, w, np, face.other);
            double mass_flux = roe_flux(gamma, c.q, gh.q, nx, ny, area, opt.entropy_fix).f[0];
            d += fmax(mass_flux, 0.0) / c.q.rho;
            if (face.bc == 0) {
                d += face_diffusion(scalar, c, gh, area, cell_volume) / c.q.rho;  // fixed inlet nu~ or gamma
            } else {
                d += fmin(mass_flux, 0.0) / c.q.rho;  // the outlet ghost copies the cell's value
            }
        }
    }
    d += cell_volume * fmax(-source_derivative[row], 0.0);
    if (opt.has_dt) d += cell_volume / dt[row];
    values[diag[row]] += d;
}

// b[nv r + k] = scale * f[(first + k) np + cell of row r] (cpu/jacobian.rs gather).
extern "C" __global__ void gather_system(const BlockEntry* __restrict__ blocks, Extent ext, int first, int nv, double scale,
                                         const double* __restrict__ f, double* __restrict__ b) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, row, i, j)];
    int g = gcell(e, i, j);
    for (int k = 0; k < nv; ++k) b[nv * row + k] = scale * f[(first + k) * ext.np + g];
}

// f[(first + k) np + cell of row r] = x[nv r + k] (cpu/jacobian.rs scatter).
extern "C" __global__ void scatter_system(const BlockEntry* __restrict__ blocks, Extent ext, int first, int nv,
                                          const double* __restrict__ x, double* __restrict__ f) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, row, i, j)];
    int g = gcell(e, i, j);
    for (int k = 0; k < nv; ++k) f[(first + k) * ext.np + g] = x[nv * row + k];
}

// y = A x for 4x4 blocks (BsrMatrix::spmv): one thread per (row, component), the products of a
// block row summed slot by slot in the CPU's order.
extern "C" __global__ void bsr4_spmv(int n_rows, const int* __restrict__ row_ptr, const int* __restrict__ cols,
                                     const double* __restrict__ values, const double* __restrict__ x, double* __restrict__ y) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 4 * n_rows) return;
    int row = t >> 2, a = t & 3;
    double acc = 0.0;
    for (int s = row_ptr[row]; s < row_ptr[row + 1]; ++s) {
        const double* blk = values + 16 * s + 4 * a;
        const double* xc = x + 4 * cols[s];
        acc += ((blk[0] * xc[0] + blk[1] * xc[1]) + blk[2] * xc[2]) + blk[3] * xc[3];
    }
    y[t] = acc;
}

// y = A x for scalar entries (BsrMatrix<1>::spmv).
extern "C" __global__ void csr_spmv(int n_rows, const int* __restrict__ row_ptr, const int* __restrict__ cols,
                                    const double* __restrict__ values, const double* __restrict__ x, double* __restrict__ y) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n_rows) return;
    double acc = 0.0;
    for (int s = row_ptr[row]; s < row_ptr[row + 1]; ++s) acc += values[s] * x[cols[s]];
    y[row] = acc;
}
