// Ghost-cell fill of every block in one launch (thesis 4.2.4; Blazek 2005 sec. 8.2-8.3), twin
// of src/backend/cpu/boundary.rs with the point physics of src/flow/boundary.rs repeated line by
// line. Tables built on the host by src/backend/gpu/boundary.rs (global padded cells, arena.cuh).
//
// One thread per interface donor entry or physical boundary cell: every thread writes the
// non-corner ghosts of its entry and reads interior cells only (donors are interior cells,
// mesh::connect::GhostExchange; walls, inlets and outlets read the cells inside their face), and
// every non-corner ghost belongs to exactly one face patch, so the threads are independent. A
// corner ghost is a copy of the i-ghost of the nearest interior row (the CPU fills it after the
// faces): the thread that writes that i-ghost writes the same state into its corners (at most
// two; the host table names them). A second launch copies the corners left over (blocks one
// cell high, whose i-ghosts feed four corners), after the first.

#define BC_WALL 0
#define BC_SLIP_WALL 1
#define BC_INLET 2
#define BC_OUTLET 3

// One ghost filled from one cell (an interface donor, or a left-over corner ghost and its
// i-ghost), and the corner ghosts that copy the ghost (-1: none).
struct GhostCopy { int ghost, source; int corner[2]; };

// A physical boundary cell: kind (BC_*), ghosts at depth 1 and 2, the interior cells at depth 1
// and 2 they mirror, the corner ghosts that copy each of its ghosts (-1: none), and the outward
// unit normal of the boundary face.
struct BoundaryCellEntry { int kind; int ghost[2]; int interior[2]; int corner[2][2]; int pad; double normal[2]; };

// flow/boundary.rs mirrored: no-slip walls reverse velocity and nu~, slip walls reflect V.n.
__device__ __forceinline__ void mirrored(const double* w, double nx, double ny, bool no_slip, double* out) {
    if (no_slip) {
        out[0] = w[0]; out[1] = -w[1]; out[2] = -w[2]; out[3] = w[3]; out[4] = -w[4]; out[5] = w[5];
    } else {
        double mn = w[1] * nx + w[2] * ny;
        out[0] = w[0]; out[1] = w[1] - 2.0 * mn * nx; out[2] = w[2] - 2.0 * mn * ny; out[3] = w[3]; out[4] = w[4]; out[5] = w[5];
    }
}

__device__ __forceinline__ void load_state(const double* w, int np, int g, double* s) {
    for (int v = 0; v < NVAR; ++v) s[v] = w[v * np + g];
}
__device__ __forceinline__ void store_state(double* w, int np, int g, const double* s) {
    for (int v = 0; v < NVAR; ++v) w[v * np + g] = s[v];
}
// A face ghost's state, into the ghost and the corner ghosts that copy it.
__device__ __forceinline__ void store_ghost(double* w, int np, int g, const int* corner, const double* s) {
    store_state(w, np, g, s);
    for (int k = 0; k < 2; ++k)
        if (corner[k] >= 0) store_state(w, np, corner[k], s);
}

// backend/cpu/boundary.rs fill_boundary_cell: mirrored ghosts at walls (ghost at depth d
// reflects the interior cell at depth d); one characteristic state in both ghosts of an inlet or
// outlet, with rho nu~ = rho_b nu~_inlet (inlet) or rho_b nu~_interior (outlet) and rho gamma =
// rho_b (inlet: gamma = 1) or rho_b gamma_interior (outlet).
__device__ void fill_boundary_cell(const GasArgs& gas, const BoundaryArgs& bc, const BoundaryCellEntry& e, int np, double* w) {
    double nx = e.normal[0], ny = e.normal[1];
    if (e.kind == BC_WALL || e.kind == BC_SLIP_WALL) {
        bool no_slip = e.kind == BC_WALL && bc.no_slip_walls;
        for (int d = 0; d < NG; ++d) {
            double inner[NVAR], ghost[NVAR];
            load_state(w, np, e.interior[d], inner);
            mirrored(inner, nx, ny, no_slip, ghost);
            store_ghost(w, np, e.ghost[d], e.corner[d], ghost);
        }
        return;
    }
    double inner[NVAR];
    load_state(w, np, e.interior[0], inner);
    Prim q = primitive_from_conservative(gas.gamma, inner[0], inner[1], inner[2], inner[3]);
    double nu_tilde_inner = inner[NFLOW] / inner[0], gamma_inner = inner[INTERMITTENCY] / inner[0];
    Prim qb;
    double nu_tilde, intermittency;
    if (e.kind == BC_INLET) {
        qb = inlet_state(gas, bc, q, nx, ny);
        nu_tilde = bc.inlet_nu_tilde;
        intermittency = 1.0;
    } else {
        qb = outlet_state(gas.gamma, bc.p2, q, nx, ny);
        nu_tilde = nu_tilde_inner;
        intermittency = gamma_inner;
    }
    double ghost[NVAR];
    conservative_from_primitive(gas.gamma, qb, ghost);
    ghost[NFLOW] = ghost[0] * nu_tilde;
    ghost[INTERMITTENCY] = ghost[0] * intermittency;
    for (int d = 0; d < NG; ++d) store_ghost(w, np, e.ghost[d], e.corner[d], ghost);
}

// Threads 0..ndonors copy interface donors (backend/cpu/boundary.rs exchange_interfaces),
// threads ndonors..ndonors+ncells fill physical boundary cells; both fill the corners of the
// ghosts they write.
extern "C" __global__ void fill_face_ghosts(Extent ext, GasArgs gas, BoundaryArgs bc, const GhostCopy* __restrict__ donors, int ndonors,
                                            const BoundaryCellEntry* __restrict__ cells, int ncells, double* w) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int np = ext.np;
    if (t < ndonors) {
        GhostCopy d = donors[t];
        double s[NVAR];
        load_state(w, np, d.source, s);
        store_ghost(w, np, d.ghost, d.corner, s);
        return;
    }
    int c = t - ndonors;
    if (c >= ncells) return;
    fill_boundary_cell(gas, bc, cells[c], np, w);
}

// The left-over corners (backend/cpu/boundary.rs fill_corners), after fill_face_ghosts: each
// takes the i-ghost of the nearest interior row (same i, j clamped to 0..nj-1).
extern "C" __global__ void fill_corner_ghosts(Extent ext, const GhostCopy* __restrict__ corners, int ncorners, double* w) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ncorners) return;
    int np = ext.np;
    GhostCopy c = corners[t];
    for (int v = 0; v < NVAR; ++v) w[v * np + c.ghost] = w[v * np + c.source];
}
