// The resident data model of the GPU backend (docs/architecture.md, "GPU backend"): every field is one arena over
// all blocks of a mesh, so each operation is one launch for the whole mesh. Twin of
// src/backend/gpu/arena.rs (the #[repr(C)] structs there must match these).
//
// Within a block the layout is the CPU backend's (src/backend/layout.rs): i fastest, two ghost
// layers, padded row length ni+4. Across blocks the arena puts blocks one after the other:
//   padded cell p of block b       -> global cell  g = blocks[b].cell + p        (0 .. ext.np)
//   variable v of global cell g     -> field[v * ext.np + g]
//   interior cell (i, j) of block b -> global scalar c = blocks[b].interior + i + ni*j  (0 .. ext.nint)
//   i-face (i, j) of block b        -> blocks[b].iface + i + (ni+1)*j   (0 .. ext.nfi)
//   j-face (i, j) of block b        -> blocks[b].jface + i + ni*j       (0 .. ext.nfj)
//   node (i, j) of block b          -> blocks[b].node + i + (ni+1)*j    (0 .. ext.nnodes)
#pragma once

#define NG 2
#define NVAR 6
#define NFLOW 4
#define INTERMITTENCY 5

struct BlockEntry { int ni, nj, cell, interior, iface, jface, node, pad; };
struct Extent { int nblocks, np, nint, nfi, nfj, nnodes; };

// The block whose arena range holds global index `idx`, for each kind of range. Meshes have a
// handful of blocks, so a linear scan over the (cached) table is cheaper than a search.
#define BLOCK_OF(kind)                                                                       \
    __device__ __forceinline__ int block_of_##kind(const BlockEntry* t, int nb, int idx) {   \
        int b = 0;                                                                           \
        while (b + 1 < nb && idx >= t[b + 1].kind) ++b;                                      \
        return b;                                                                            \
    }
BLOCK_OF(cell)
BLOCK_OF(interior)
BLOCK_OF(iface)
BLOCK_OF(jface)
BLOCK_OF(node)
#undef BLOCK_OF

__device__ __forceinline__ int padded_stride(const BlockEntry& b) { return b.ni + 2 * NG; }
// Global cell of (i, j) in block b (signed: ghosts have i or j in -2..-1 or ni..ni+1).
__device__ __forceinline__ int gcell(const BlockEntry& b, int i, int j) { return b.cell + (i + NG) + padded_stride(b) * (j + NG); }
// Global scalar index of interior cell (i, j).
__device__ __forceinline__ int gint(const BlockEntry& b, int i, int j) { return b.interior + i + b.ni * j; }
__device__ __forceinline__ int gface_i(const BlockEntry& b, int i, int j) { return b.iface + i + (b.ni + 1) * j; }
__device__ __forceinline__ int gface_j(const BlockEntry& b, int i, int j) { return b.jface + i + b.ni * j; }
__device__ __forceinline__ int gnode(const BlockEntry& b, int i, int j) { return b.node + i + (b.ni + 1) * j; }

// Global interior cell index c (0 .. nint) -> block, i, j.
__device__ __forceinline__ int locate_interior(const BlockEntry* t, int nb, int c, int& i, int& j) {
    int b = block_of_interior(t, nb, c);
    int local = c - t[b].interior;
    i = local % t[b].ni;
    j = local / t[b].ni;
    return b;
}

// Face-based kernels run one thread per face over both kinds: threads 0..nfi are i-faces,
// nfi..nfi+nfj j-faces. Thread t -> its face's kind, global index, block and (i, j): i-face (i, j)
// lies at node line i (0..ni) of row j, j-face (i, j) at node line j (0..nj) of column i.
// Returns false for the threads past the last face.
__device__ __forceinline__ bool locate_face(const BlockEntry* t, const Extent& ext, int thread, bool& along_i, int& face,
                                            BlockEntry& e, int& i, int& j) {
    along_i = thread < ext.nfi;
    face = along_i ? thread : thread - ext.nfi;
    if (!along_i && face >= ext.nfj) return false;
    e = t[along_i ? block_of_iface(t, ext.nblocks, face) : block_of_jface(t, ext.nblocks, face)];
    int local = face - (along_i ? e.iface : e.jface);
    int row = along_i ? e.ni + 1 : e.ni;
    i = local % row;
    j = local / row;
    return true;
}
