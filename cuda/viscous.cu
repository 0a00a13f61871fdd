// Viscous residual of every block in one set of launches (thesis 4.2.2, eq. 4.14), with
// Spalart-Allmaras also the diffusion and source of rho nu_tilde, with SA-gamma those of
// rho gamma (intermittency.cuh), and the SA point-implicit source factor. Twin of src/backend/cpu/viscous.rs (the cell, node, face and gather stages
// are its closures, one launch each) and of the point functions of src/flow/{viscous,sa}.rs,
// ported line by line in the same operation order (parity with the CPU to round-off).
// Arena layout of arena.cuh.
//
// Work arrays: cells[9 * np] = per padded cell rho, u, v, p, T, nu_tilde, mu, mu_t, gamma
// (CELL_*); node values[5 * nnodes] = the gradient variables u, v, T, nu_tilde (and gamma with
// SA-gamma) at the nodes.
//
// `tu` is SA-gamma's free-stream turbulence intensity: 0 for the other models (no intermittency
// terms, SA's source uncoupled).

#define CELL_RHO 0
#define CELL_U 1
#define CELL_V 2
#define CELL_P 3
#define CELL_T 4
#define CELL_NU_TILDE 5
#define CELL_MU 6
#define CELL_MU_T 7
#define CELL_GAMMA 8
#define CELL_QUANTITIES 9
// The gradient variables [u, v, T, nu_tilde, gamma] (CellState::g of the CPU) among the cell
// quantities; gamma's only with SA-gamma (n_gradients 5, else 4).
#define N_GRAD 5
__device__ __forceinline__ int gradient_quantity(int k) {
    return k == 0 ? CELL_U : (k == 1 ? CELL_V : (k == 2 ? CELL_T : (k == 3 ? CELL_NU_TILDE : CELL_GAMMA)));
}
__device__ __forceinline__ int n_gradients(double tu) { return tu > 0.0 ? 5 : 4; }

// ---- Viscous flux point functions (flow/viscous.rs) ---------------------------------------

// Green-Gauss gradient over one control volume of 4 faces (green_gauss_gradient, eq. 4.14).
__device__ __forceinline__ void green_gauss_gradient(const double* face_values, const double (*face_vectors)[2], double volume, double* grad) {
    double sum0 = 0.0, sum1 = 0.0;
    for (int m = 0; m < 4; ++m) {
        sum0 += face_values[m] * face_vectors[m][0];
        sum1 += face_values[m] * face_vectors[m][1];
    }
    grad[0] = sum0 / volume;
    grad[1] = sum1 / volume;
}

// Outward face vectors and shoelace area of a CCW quadrilateral (quad_face_vectors_and_area).
__device__ __forceinline__ double quad_face_vectors_and_area(const double (*vertices)[2], double (*vectors)[2]) {
    double twice_area = 0.0;
    for (int m = 0; m < 4; ++m) {
        double x0 = vertices[m][0], y0 = vertices[m][1];
        double x1 = vertices[(m + 1) % 4][0], y1 = vertices[(m + 1) % 4][1];
        vectors[m][0] = y1 - y0;
        vectors[m][1] = -(x1 - x0);
        twice_area += x0 * y1 - x1 * y0;
    }
    return 0.5 * twice_area;
}

// Gradient on the auxiliary quad from its vertex values (quad_vertex_gradient): face values are
// the means of their end points. `vectors` and `area` from quad_face_vectors_and_area.
__device__ __forceinline__ void quad_vertex_gradient(const double (*vectors)[2], double area, const double* vertex_values, double* grad) {
    double face_values[4];
    for (int m = 0; m < 4; ++m) face_values[m] = 0.5 * (vertex_values[m] + vertex_values[(m + 1) % 4]);
    green_gauss_gradient(face_values, vectors, area, grad);
}

// The diamond's centres moved apart by `lift` along the unit face normal (lifted_diamond; the
// lifts are computed once per mesh on the host, flow::viscous::diamond_lift).
__device__ __forceinline__ void lifted_diamond(double (*vertices)[2], double sx, double sy, double lift) {
    if (lift == 0.0) return;
    double length = sqrt(sx * sx + sy * sy);
    double dx = lift * sx / length, dy = lift * sy / length;
    vertices[0][0] -= dx;
    vertices[0][1] -= dy;
    vertices[2][0] += dx;
    vertices[2][1] += dy;
}

// Viscous flux through one face, integrated over it (viscous_flux, viscous_stress,
// heat_conductivity: thesis eq. 4.3, 4.5, 4.6, Stokes hypothesis). Component 0 is zero.
__device__ void viscous_flux(const GasArgs& gas, const double* face_state, const double* grad_u, const double* grad_v,
                             const double* grad_t, double mu_turbulent, double nx, double ny, double area, double* f) {
    double rho = face_state[0], u = face_state[1], v = face_state[2], p = face_state[3];
    double mu_laminar = gas_viscosity(gas, p / (rho * gas.gas_constant));
    double mu_eff = mu_laminar + mu_turbulent;
    double divergence = grad_u[0] + grad_v[1];
    double txx = 2.0 * mu_eff * (grad_u[0] - divergence / 3.0);
    double txy = mu_eff * (grad_u[1] + grad_v[0]);
    double tyy = 2.0 * mu_eff * (grad_v[1] - divergence / 3.0);
    double k = gas_cp(gas) * (mu_laminar / gas.prandtl + mu_turbulent / gas.turbulent_prandtl);
    double theta_x = u * txx + v * txy + k * grad_t[0];
    double theta_y = u * txy + v * tyy + k * grad_t[1];
    f[0] = 0.0;
    f[1] = (txx * nx + txy * ny) * area;
    f[2] = (txy * nx + tyy * ny) * area;
    f[3] = (theta_x * nx + theta_y * ny) * area;
}

// ---- Kernels ------------------------------------------------------------------------------

// cells[9 * np]: the quantities of every padded cell, ghosts included (cell_states):
// T = p/(rho R), Sutherland mu; nu_tilde and mu_t zero and gamma 1 unless `turbulent`.
extern "C" __global__ void viscous_cell_states(Extent ext, GasArgs gas, int turbulent, const double* __restrict__ w, double* __restrict__ cells) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int np = ext.np;
    if (g >= np) return;
    Prim q = primitive_from_conservative(gas.gamma, w[g], w[np + g], w[2 * np + g], w[3 * np + g]);
    double t = q.p / (q.rho * gas.gas_constant);
    double mu = gas_viscosity(gas, t);
    double nu_tilde = turbulent ? w[NFLOW * np + g] / q.rho : 0.0;
    double mu_t = turbulent ? eddy_viscosity(q.rho, nu_tilde, mu / q.rho) : 0.0;
    cells[CELL_RHO * np + g] = q.rho;
    cells[CELL_U * np + g] = q.u;
    cells[CELL_V * np + g] = q.v;
    cells[CELL_P * np + g] = q.p;
    cells[CELL_T * np + g] = t;
    cells[CELL_NU_TILDE * np + g] = nu_tilde;
    cells[CELL_MU * np + g] = mu;
    cells[CELL_MU_T * np + g] = mu_t;
    cells[CELL_GAMMA * np + g] = turbulent ? w[INTERMITTENCY * np + g] / q.rho : 1.0;
}

// node_values[4 * nnodes]: per node (i, j) of each block the mean of the gradient variables of
// the four cells around it, (i-1, j-1), (i, j-1), (i-1, j), (i, j), ghosts included, summed in
// that order from the left (Rust's iterator sum).
extern "C" __global__ void viscous_node_values(const BlockEntry* __restrict__ blocks, Extent ext, double tu, const double* __restrict__ cells,
                                               double* __restrict__ node_values) {
    int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= ext.nnodes) return;
    const BlockEntry e = blocks[block_of_node(blocks, ext.nblocks, n)];
    int local = n - e.node;
    int i = local % (e.ni + 1), j = local / (e.ni + 1);
    int around[4] = {gcell(e, i - 1, j - 1), gcell(e, i, j - 1), gcell(e, i - 1, j), gcell(e, i, j)};
    for (int k = 0; k < n_gradients(tu); ++k) {
        const double* c = cells + gradient_quantity(k) * ext.np;
        node_values[k * ext.nnodes + n] = 0.25 * (((c[around[0]] + c[around[1]]) + c[around[2]]) + c[around[3]]);
    }
}

// One thread per face: threads 0..nfi are i-faces, nfi..nfi+nfj j-faces (block_residual's
// `face` closure and face_flux). The face gradients come from the auxiliary "diamond" volume
// through the two cell centres a (left/south) and b (right/north) and the face's end nodes, in
// CCW order: i-face (i, j): centre a = (i-1, j), node (i, j), centre b = (i, j), node (i, j+1);
// j-face (i, j): centre a = (i, j-1), node (i+1, j), centre b = (i, j), node (i, j); the centres
// lifted apart along the face normal by lift_i / lift_j (zero on most faces).
// fi, fj: NVAR SoA arrays (mean-flow viscous flux, then the SA diffusion flux, 0 when laminar,
// then the intermittency diffusion flux (mu + mu_t/sigma_gamma) grad gamma . n |S|, 0 without
// SA-gamma).
extern "C" __global__ void viscous_face_fluxes(const BlockEntry* __restrict__ blocks, Extent ext, GasArgs gas, int turbulent, double tu,
                                               const double* __restrict__ cells, const double* __restrict__ node_values,
                                               const double* __restrict__ centre_padded, const double* __restrict__ nodes,
                                               const double* __restrict__ si, const double* __restrict__ sj,
                                               const double* __restrict__ lift_i, const double* __restrict__ lift_j,
                                               double* __restrict__ fi, double* __restrict__ fj) {
    int np = ext.np;
    bool along_i;
    int face, i, j;
    BlockEntry e;
    if (!locate_face(blocks, ext, blockIdx.x * blockDim.x + threadIdx.x, along_i, face, e, i, j)) return;
    int a = along_i ? gcell(e, i - 1, j) : gcell(e, i, j - 1);
    int b = gcell(e, i, j);
    int n0 = along_i ? gnode(e, i, j) : gnode(e, i + 1, j);
    int n1 = along_i ? gnode(e, i, j + 1) : gnode(e, i, j);

    double vertices[4][2] = {{centre_padded[2 * a], centre_padded[2 * a + 1]}, {nodes[2 * n0], nodes[2 * n0 + 1]},
                             {centre_padded[2 * b], centre_padded[2 * b + 1]}, {nodes[2 * n1], nodes[2 * n1 + 1]}};
    const double* s = along_i ? si : sj;
    double sx = s[2 * face], sy = s[2 * face + 1];
    double area = sqrt(sx * sx + sy * sy);
    lifted_diamond(vertices, sx, sy, along_i ? lift_i[face] : lift_j[face]);
    double vectors[4][2];
    double volume = quad_face_vectors_and_area(vertices, vectors);
    double grad[N_GRAD][2] = {{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}, {0.0, 0.0}};
    for (int k = 0; k < n_gradients(tu); ++k) {
        const double* c = cells + gradient_quantity(k) * np;
        const double* nv = node_values + k * ext.nnodes;
        double values[4] = {c[a], nv[n0], c[b], nv[n1]};
        quad_vertex_gradient(vectors, volume, values, grad[k]);
    }

    // face_flux: central face state, mean eddy viscosity, SA diffusion with the mean nu, nu~.
    double nx = sx / area, ny = sy / area;
    double face_state[4];
    for (int k = 0; k < 4; ++k) face_state[k] = 0.5 * (cells[k * np + a] + cells[k * np + b]);
    double mu_t = 0.5 * (cells[CELL_MU_T * np + a] + cells[CELL_MU_T * np + b]);
    double f[4];
    viscous_flux(gas, face_state, grad[0], grad[1], grad[2], mu_t, nx, ny, area, f);
    double diffusion = 0.0;
    if (turbulent) {
        double nu = 0.5 * (cells[CELL_MU * np + a] + cells[CELL_MU * np + b]) / face_state[0];
        double nu_tilde = 0.5 * (cells[CELL_NU_TILDE * np + a] + cells[CELL_NU_TILDE * np + b]);
        diffusion = sa_diffusion_flux(face_state[0], nu, nu_tilde, grad[3], nx, ny, area);
    }
    double* out = along_i ? fi : fj;
    int nf = along_i ? ext.nfi : ext.nfj;
    double intermittency_diffusion = 0.0;
    if (tu > 0.0) {
        double coefficient = 0.5 * (cells[CELL_MU * np + a] + cells[CELL_MU * np + b]) + mu_t / GAMMA_SIGMA;
        intermittency_diffusion = coefficient * (grad[4][0] * nx + grad[4][1] * ny) * area;
    }
    for (int k = 0; k < 4; ++k) out[k * nf + face] = f[k];
    out[NFLOW * nf + face] = diffusion;
    out[INTERMITTENCY * nf + face] = intermittency_diffusion;
}

// The sources of interior cell (i, j) (cell_sources): SA's per unit volume and, with SA-gamma
// (tu > 0), the intermittency's, whose gamma then scales SA's production and destruction.
// Velocity gradient and grad nu~ by Green-Gauss over the cell, face values the means of the two
// adjacent cells, outward face vectors -S(i), S(i+1), -S(j), S(j+1).
struct CellSources { SaSource sa; IntermittencySource gamma; };

__device__ CellSources cell_sources(const BlockEntry& e, int np, const double* cells, const double* si, const double* sj,
                                    const double* volume, const double* wall_distance, const double* wall_normal, int with_ft2,
                                    double bcm_onset, double tu, int c, int i, int j) {
    int here = gcell(e, i, j);
    int neighbours[4] = {gcell(e, i - 1, j), gcell(e, i + 1, j), gcell(e, i, j - 1), gcell(e, i, j + 1)};
    int fw = gface_i(e, i, j), fe = gface_i(e, i + 1, j), fs = gface_j(e, i, j), fn = gface_j(e, i, j + 1);
    double outward[4][2] = {{-si[2 * fw], -si[2 * fw + 1]}, {si[2 * fe], si[2 * fe + 1]},
                            {-sj[2 * fs], -sj[2 * fs + 1]}, {sj[2 * fn], sj[2 * fn + 1]}};
    double cell_volume = volume[c];
    // grad(k) for k = u, v, nu_tilde (the CPU's grad(0), grad(1), grad(3)).
    const int quantities[3] = {CELL_U, CELL_V, CELL_NU_TILDE};
    double grad[3][2];
    for (int k = 0; k < 3; ++k) {
        const double* q = cells + quantities[k] * np;
        double values[4];
        for (int m = 0; m < 4; ++m) values[m] = 0.5 * (q[here] + q[neighbours[m]]);
        green_gauss_gradient(values, outward, cell_volume, grad[k]);
    }
    const double* gu = grad[0];
    const double* gv = grad[1];
    double vorticity = fabs(gv[0] - gu[1]);
    double rho = cells[CELL_RHO * np + here];
    double mu = cells[CELL_MU * np + here];
    double gamma = cells[CELL_GAMMA * np + here];
    CellSources out;
    out.gamma = IntermittencySource{0.0, 0.0, 0.0, 0.0};
    double production_factor = 1.0, destruction_factor = 1.0;
    if (tu > 0.0) {
        // sqrt(2 S_ij S_ij) in 2D and dV/dy = n . (grad V) n (flow/intermittency.rs
        // strain_rate_magnitude, wall_normal_velocity_derivative).
        double shear = gu[1] + gv[0];
        double strain_rate = sqrt(2.0 * gu[0] * gu[0] + 2.0 * gv[1] * gv[1] + shear * shear);
        double nx = wall_normal[2 * c], ny = wall_normal[2 * c + 1];
        double dv_dy = nx * (gu[0] * nx + gu[1] * ny) + ny * (gv[0] * nx + gv[1] * ny);
        out.gamma = intermittency_source(gamma, rho, mu, cells[CELL_MU_T * np + here], strain_rate, vorticity, wall_distance[c], dv_dy, tu);
        production_factor = gamma;
        destruction_factor = fmin(fmax(gamma, GAMMA_MIN_DESTRUCTION_FACTOR), 1.0);
    }
    out.sa = sa_source(rho, mu / rho, cells[CELL_NU_TILDE * np + here], vorticity, wall_distance[c], grad[2], with_ft2, bcm_onset,
                       production_factor, destruction_factor);
    return out;
}

// One thread per interior cell: r[v] += -(net viscous flux out of the cell) for the mean flow,
// with SA also for rho nu~ minus volume * SA source, with SA-gamma also for rho gamma minus
// volume * intermittency source (block_residual's gather). Ghosts and the variables the model
// does not march are left as they are.
extern "C" __global__ void viscous_gather(const BlockEntry* __restrict__ blocks, Extent ext, int turbulent, int with_ft2, double bcm_onset,
                                          double tu, const double* __restrict__ cells, const double* __restrict__ fi,
                                          const double* __restrict__ fj, const double* __restrict__ si, const double* __restrict__ sj,
                                          const double* __restrict__ volume, const double* __restrict__ wall_distance,
                                          const double* __restrict__ wall_normal, double* __restrict__ r) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    int np = ext.np, nfi = ext.nfi, nfj = ext.nfj;
    int g = gcell(e, i, j);
    int west = gface_i(e, i, j), east = gface_i(e, i + 1, j), south = gface_j(e, i, j), north = gface_j(e, i, j + 1);
    int n_vars = turbulent ? (tu > 0.0 ? NVAR : NFLOW + 1) : NFLOW;
    CellSources sources;
    if (turbulent) sources = cell_sources(e, np, cells, si, sj, volume, wall_distance, wall_normal, with_ft2, bcm_onset, tu, c, i, j);
    for (int v = 0; v < n_vars; ++v) {
        double net = fi[v * nfi + east] - fi[v * nfi + west] + fj[v * nfj + north] - fj[v * nfj + south];
        double value = -net;
        if (v == NFLOW) value -= volume[c] * sources.sa.total;
        if (v == INTERMITTENCY) value -= volume[c] * sources.gamma.total;
        r[v * np + g] += value;
    }
}

// Point-implicit factors per interior cell of the explicit scheme (turbulence_source_factor,
// intermittency_source_factor): factor = 1/(1 + dt max(0, -dQ/d(rho s))) with Q the SA source
// (coupled to the intermittency with SA-gamma, tu > 0) for `gamma_equation` 0, the intermittency
// source for 1.
extern "C" __global__ void source_factor(const BlockEntry* __restrict__ blocks, Extent ext, int with_ft2, double bcm_onset, double tu,
                                         int gamma_equation, const double* __restrict__ cells, const double* __restrict__ si,
                                         const double* __restrict__ sj, const double* __restrict__ volume,
                                         const double* __restrict__ wall_distance, const double* __restrict__ wall_normal,
                                         const double* __restrict__ dt, double* __restrict__ factor) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    CellSources s = cell_sources(e, ext.np, cells, si, sj, volume, wall_distance, wall_normal, with_ft2, bcm_onset, tu, c, i, j);
    double d = gamma_equation ? s.gamma.d_total_d_gamma : s.sa.d_total_d_nu_tilde;
    double derivative = d / cells[CELL_RHO * ext.np + gcell(e, i, j)];
    factor[c] = 1.0 / (1.0 + dt[c] * fmax(-derivative, 0.0));
}

// dQ/d(rho nu~) per interior cell, Q the SA source per unit volume, and with SA-gamma dQ_gamma /
// d(rho gamma) (source_derivatives): the source parts of the segregated systems (jacobian.cu).
extern "C" __global__ void sa_source_derivative(const BlockEntry* __restrict__ blocks, Extent ext, int with_ft2, double bcm_onset, double tu,
                                                const double* __restrict__ cells, const double* __restrict__ si, const double* __restrict__ sj,
                                                const double* __restrict__ volume, const double* __restrict__ wall_distance,
                                                const double* __restrict__ wall_normal, double* __restrict__ derivative,
                                                double* __restrict__ gamma_derivative) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ext.nint) return;
    int i, j;
    const BlockEntry e = blocks[locate_interior(blocks, ext.nblocks, c, i, j)];
    CellSources s = cell_sources(e, ext.np, cells, si, sj, volume, wall_distance, wall_normal, with_ft2, bcm_onset, tu, c, i, j);
    double rho = cells[CELL_RHO * ext.np + gcell(e, i, j)];
    derivative[c] = s.sa.d_total_d_nu_tilde / rho;
    gamma_derivative[c] = s.gamma.d_total_d_gamma / rho;
}
