//! The resident data model of the GPU backend (docs/architecture.md, "GPU backend"): every field is one arena
//! over all blocks of a mesh with a block table (offsets, sizes), so every operation is one
//! launch for the whole mesh. Twin of `cuda/arena.cuh`, whose structs these mirror.
//!
//! Arena indexing (per block the CPU layout of `backend::layout`, blocks one after the other):
//! variable `v` of padded cell `p` of block `b` is `field[v * np + cell[b] + p]` with `np` the
//! padded cells of the whole mesh; per-cell scalars are `scalars[interior[b] + i + ni*j]`.

use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};

use super::boundary::BoundaryTables;
use super::gpu_err;
use crate::backend::cpu::CpuGeometry;
use crate::backend::NVAR;
use crate::Result;

/// One block's sizes and offsets into each arena (`struct BlockEntry` in arena.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockEntry {
    pub ni: i32,
    pub nj: i32,
    /// First padded cell of the block in a field arena (per variable).
    pub cell: i32,
    /// First interior cell in a scalar arena.
    pub interior: i32,
    /// First i-face, j-face and node.
    pub iface: i32,
    pub jface: i32,
    pub node: i32,
    pad: i32,
}
unsafe impl DeviceRepr for BlockEntry {}
unsafe impl ValidAsZeroBits for BlockEntry {}

/// Arena sizes (`struct Extent` in arena.cuh): blocks, padded cells, interior cells, i-faces,
/// j-faces and nodes of the whole mesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    pub nblocks: i32,
    pub np: i32,
    pub nint: i32,
    pub nfi: i32,
    pub nfj: i32,
    pub nnodes: i32,
}
unsafe impl DeviceRepr for Extent {}

/// Builds the block table of a mesh; fails when an arena would overflow the kernels' 32-bit
/// indices (about 400 million padded cells).
pub fn block_table(host: &CpuGeometry) -> Result<(Vec<BlockEntry>, Extent)> {
    let mut table = Vec::with_capacity(host.blocks.len());
    let mut e = Extent { nblocks: host.blocks.len() as i32, ..Extent::default() };
    let mut totals = [0usize; 5];
    for bg in &host.blocks {
        let (ni, nj) = (bg.layout.ni, bg.layout.nj);
        let sizes = [bg.layout.n_padded(), ni * nj, (ni + 1) * nj, ni * (nj + 1), (ni + 1) * (nj + 1)];
        let offsets = totals;
        for (t, s) in totals.iter_mut().zip(sizes) {
            *t += s;
        }
        table.push(BlockEntry {
            ni: ni as i32,
            nj: nj as i32,
            cell: offsets[0] as i32,
            interior: offsets[1] as i32,
            iface: offsets[2] as i32,
            jface: offsets[3] as i32,
            node: offsets[4] as i32,
            pad: 0,
        });
    }
    if NVAR * totals[0] >= i32::MAX as usize {
        return Err(crate::Error::Gpu(format!("mesh too large for the GPU kernels' 32-bit indices ({} padded cells)", totals[0])));
    }
    [e.np, e.nint, e.nfi, e.nfj, e.nnodes] = totals.map(|t| t as i32);
    Ok((table, e))
}

/// Concatenates per-block arrays into one arena (blocks in order).
pub fn concat<T: Copy>(per_block: impl Iterator<Item = impl AsRef<[T]>>) -> Vec<T> {
    let mut out = Vec::new();
    for b in per_block {
        out.extend_from_slice(b.as_ref());
    }
    out
}

/// Interleaves 2-vectors (`[x, y]` per entry) into one `f64` array.
pub fn interleave(v: &[[f64; 2]]) -> Vec<f64> {
    v.iter().flat_map(|s| [s[0], s[1]]).collect()
}

/// Geometry resident on the device: metrics in arenas, the block table, the boundary and
/// interface tables, and the work arrays of the kernels (reused by every call; the backend
/// runs on one stream, so launches are ordered and one set per mesh suffices).
pub struct GpuGeometry {
    /// Host copy of the metrics: the layout of `upload_state` / `download_state`.
    pub host: CpuGeometry,
    pub table: Vec<BlockEntry>,
    pub extent: Extent,
    pub blocks: CudaSlice<BlockEntry>,
    /// Cell volumes and wall distances, per interior cell.
    pub volume: CudaSlice<f64>,
    pub wall_distance: CudaSlice<f64>,
    /// Unit wall normals per interior cell, interleaved (SA-gamma's dV/dy).
    pub wall_normal: CudaSlice<f64>,
    /// Face vectors, interleaved (sx, sy), per i-face and j-face.
    pub si: CudaSlice<f64>,
    pub sj: CudaSlice<f64>,
    /// 1 on wall / slip-wall / symmetry faces (pressure-only convective flux).
    pub wall_i: CudaSlice<u8>,
    pub wall_j: CudaSlice<u8>,
    /// The viscous diamonds' centre lifts per i-face and j-face (`BlockGeometry::diamond_lift_i`).
    pub diamond_lift_i: CudaSlice<f64>,
    pub diamond_lift_j: CudaSlice<f64>,
    /// Padded cell centroids (interior + first ghost layer, interleaved) and node coordinates.
    pub centre_padded: CudaSlice<f64>,
    pub nodes: CudaSlice<f64>,
    /// Physical boundary cells, interface donors and corner ghosts.
    pub boundary: BoundaryTables,
    /// Work arrays of the kernels, locked by each operation for its launches.
    pub(crate) work: Mutex<KernelScratch>,
}

/// Work arrays of the kernels, sized for one mesh.
pub(crate) struct KernelScratch {
    /// Primitive variables of every padded cell (4 x np).
    pub primitives: CudaSlice<f64>,
    /// Face fluxes (NVAR x nfi, NVAR x nfj), shared by the convective and viscous kernels.
    pub flux_i: CudaSlice<f64>,
    pub flux_j: CudaSlice<f64>,
    /// Cell quantities of the viscous terms (9 x np) and node values (5 x nnodes).
    pub viscous_cells: CudaSlice<f64>,
    pub node_values: CudaSlice<f64>,
    /// Scratch of the residual smoothing's line solves: the modified sub- and super-diagonal
    /// coefficients of every variable (2 x NVAR x np).
    pub smoothing_scratch: CudaSlice<f64>,
    /// Whether each block is smoothed along i and along j with per-cell coefficients
    /// (`2 b + direction`, 0 or 1; set by the smoothing kernels before their sweeps).
    pub smoothing_active: CudaSlice<i32>,
}

impl GpuGeometry {
    /// The work arrays (the lock only guards against two host threads sharing one geometry;
    /// the backend's one stream orders the kernels that use them).
    pub(crate) fn workspace(&self) -> std::sync::MutexGuard<'_, KernelScratch> {
        self.work.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl GpuGeometry {
    /// Uploads the metrics and tables of `host` (built by the CPU backend from the mesh).
    pub fn upload(stream: &Arc<CudaStream>, host: CpuGeometry) -> Result<Self> {
        let (table, extent) = block_table(&host)?;
        let bl = &host.blocks;
        let up_f64 = |v: Vec<f64>| -> Result<CudaSlice<f64>> { stream.clone_htod(&v).map_err(gpu_err) };
        let up_u8 = |v: Vec<u8>| -> Result<CudaSlice<u8>> { stream.clone_htod(&v).map_err(gpu_err) };
        let zeros = |n: usize| -> Result<CudaSlice<f64>> { stream.alloc_zeros::<f64>(n.max(1)).map_err(gpu_err) };
        let (np, nfi, nfj, nn) = (extent.np as usize, extent.nfi as usize, extent.nfj as usize, extent.nnodes as usize);
        let flags = |v: &[bool]| v.iter().map(|&b| b as u8).collect::<Vec<u8>>();
        Ok(GpuGeometry {
            blocks: stream.clone_htod(&table).map_err(gpu_err)?,
            volume: up_f64(concat(bl.iter().map(|b| &b.volume)))?,
            wall_distance: up_f64(concat(bl.iter().map(|b| &b.wall_distance)))?,
            wall_normal: up_f64(interleave(&concat(bl.iter().map(|b| &b.wall_normal))))?,
            si: up_f64(interleave(&concat(bl.iter().map(|b| &b.si))))?,
            sj: up_f64(interleave(&concat(bl.iter().map(|b| &b.sj))))?,
            wall_i: up_u8(concat(bl.iter().map(|b| flags(&b.wall_i))))?,
            wall_j: up_u8(concat(bl.iter().map(|b| flags(&b.wall_j))))?,
            diamond_lift_i: up_f64(concat(bl.iter().map(|b| &b.diamond_lift_i)))?,
            diamond_lift_j: up_f64(concat(bl.iter().map(|b| &b.diamond_lift_j)))?,
            centre_padded: up_f64(interleave(&concat(bl.iter().map(|b| &b.centre_padded))))?,
            nodes: up_f64(interleave(&concat(bl.iter().map(|b| &b.nodes))))?,
            boundary: BoundaryTables::upload(stream, &host, &table)?,
            work: Mutex::new(KernelScratch {
                primitives: zeros(4 * np)?,
                flux_i: zeros(NVAR * nfi)?,
                flux_j: zeros(NVAR * nfj)?,
                viscous_cells: zeros(9 * np)?,
                node_values: zeros(5 * nn)?,
                smoothing_scratch: zeros(2 * NVAR * np)?,
                smoothing_active: stream.alloc_zeros::<i32>(2 * table.len().max(1)).map_err(gpu_err)?,
            }),
            table,
            extent,
            host,
        })
    }

    /// Padded cells of the whole mesh (the per-variable stride of a field).
    pub fn n_padded(&self) -> usize {
        self.extent.np as usize
    }

    /// Interior cells of the whole mesh (the length of a scalar buffer).
    pub fn n_interior(&self) -> usize {
        self.extent.nint as usize
    }

    /// Arena layout of a host field (`CpuField`, per block `v * np_b + p`) as one vector.
    pub fn to_arena(&self, blocks: &[Vec<f64>]) -> Vec<f64> {
        let np = self.n_padded();
        let mut out = vec![0.0; NVAR * np];
        for ((b, e), bg) in blocks.iter().zip(&self.table).zip(&self.host.blocks) {
            let npb = bg.layout.n_padded();
            for v in 0..NVAR {
                let dst = v * np + e.cell as usize;
                out[dst..dst + npb].copy_from_slice(&b[v * npb..(v + 1) * npb]);
            }
        }
        out
    }

    /// Per-block host layout of an arena field.
    pub fn from_arena(&self, arena: &[f64]) -> Vec<Vec<f64>> {
        let np = self.n_padded();
        self.table
            .iter()
            .zip(&self.host.blocks)
            .map(|(e, bg)| {
                let npb = bg.layout.n_padded();
                let mut b = vec![0.0; NVAR * npb];
                for v in 0..NVAR {
                    let src = v * np + e.cell as usize;
                    b[v * npb..(v + 1) * npb].copy_from_slice(&arena[src..src + npb]);
                }
                b
            })
            .collect()
    }

    /// Per-block host layout of a scalar arena.
    pub fn scalars_from_arena(&self, arena: &[f64]) -> Vec<Vec<f64>> {
        self.table.iter().map(|e| arena[e.interior as usize..(e.interior + e.ni * e.nj) as usize].to_vec()).collect()
    }
}

/// Conservative variables of every block, one device arena (`NVAR x np`).
pub struct GpuField {
    pub data: CudaSlice<f64>,
}

/// One value per interior cell of every block, one device arena (`nint`).
pub struct GpuScalars {
    pub data: CudaSlice<f64>,
}

/// Residual norms of up to `capacity` iterations, resident until read back (`NVAR` per slot),
/// plus the partial sums of the reduction.
pub struct GpuNormLog {
    pub slots: CudaSlice<f64>,
    pub partials: CudaSlice<f64>,
    pub capacity: usize,
}
