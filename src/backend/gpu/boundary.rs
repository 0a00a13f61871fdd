//! Launch wrapper of `cuda/boundary.cu`, twin of `backend/cpu/boundary.rs`: the ghost fill in
//! one launch for the whole mesh (interface donors and physical boundary cells, each with the
//! corner ghosts that copy its ghosts), from tables of global padded cells built here once per
//! mesh.
//!
//! One launch may fill donors and boundary cells together because every one of its threads
//! writes ghosts of its own face patch and reads interior cells only (donors are interior cells,
//! `mesh::connect::GhostExchange`; walls, inlets and outlets read the cells inside their face). A
//! corner ghost is a copy of a face ghost (`backend::cpu::boundary::fill_corners`), so the thread
//! that writes the face ghost writes its corners too, at most two per ghost; the corners left over
//! (blocks one cell high, whose i-ghosts feed four) get a second launch after the first. The
//! launches are the GPU's cost on small meshes: a 3-level explicit W-cycle fills ghosts 41 times.

use std::collections::BTreeMap;
use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr, PushKernelArg, ValidAsZeroBits};

use super::arena::BlockEntry;
use super::{grid, gpu_err, Ctx, GasArgs, GpuGeometry};
use crate::backend::cpu::geometry::PhysicalBc;
use crate::backend::cpu::CpuGeometry;
use crate::backend::{BoundaryData, NGHOST};
use crate::flow::gas::Gas;
use crate::gpu::GpuDevice;
use crate::{Error, Result};

/// One ghost filled from one cell, global padded indices (`struct GhostCopy` in boundary.cu):
/// an interface donor, or a left-over corner ghost and its face ghost; and the corner ghosts
/// that copy the ghost ([`NO_CORNER`]: none).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GhostCopy {
    pub ghost: i32,
    pub source: i32,
    pub corner: [i32; 2],
}

/// An unused corner slot of a table entry.
pub const NO_CORNER: i32 = -1;
unsafe impl DeviceRepr for GhostCopy {}
unsafe impl ValidAsZeroBits for GhostCopy {}

/// `kind` of a [`BoundaryCellEntry`] (`BC_*` in boundary.cu).
const BC_WALL: i32 = 0;
const BC_SLIP_WALL: i32 = 1;
const BC_INLET: i32 = 2;
const BC_OUTLET: i32 = 3;

/// A physical boundary cell, global padded indices (`struct BoundaryCellEntry` in boundary.cu):
/// its ghosts at depth 1 and 2, the interior cells at depth 1 and 2 they mirror, the corner
/// ghosts that copy each of its ghosts ([`NO_CORNER`]: none), and the outward unit normal of the
/// boundary face (`backend::cpu::geometry::BoundaryCell`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BoundaryCellEntry {
    pub kind: i32,
    pub ghost: [i32; 2],
    pub interior: [i32; 2],
    pub corner: [[i32; 2]; 2],
    pad: i32,
    pub normal: [f64; 2],
}
unsafe impl DeviceRepr for BoundaryCellEntry {}
unsafe impl ValidAsZeroBits for BoundaryCellEntry {}

/// [`BoundaryData`] as the kernels take it (`struct BoundaryArgs` in boundary_state.cuh).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(super) struct BoundaryArgs {
    p01: f64,
    t01: f64,
    inlet_direction: [f64; 2],
    p2: f64,
    inlet_nu_tilde: f64,
    no_slip_walls: i32,
    pad: i32,
}
unsafe impl DeviceRepr for BoundaryArgs {}

impl From<&BoundaryData> for BoundaryArgs {
    fn from(d: &BoundaryData) -> Self {
        BoundaryArgs {
            p01: d.p01,
            t01: d.t01,
            inlet_direction: d.inlet_direction,
            p2: d.p2,
            inlet_nu_tilde: d.inlet_nu_tilde,
            no_slip_walls: d.no_slip_walls as i32,
            pad: 0,
        }
    }
}

pub(super) struct Kernels {
    fill_face_ghosts: CudaFunction,
    fill_corner_ghosts: CudaFunction,
}

impl Kernels {
    pub fn load(device: &GpuDevice) -> Result<Self> {
        let m = device.load_family("boundary")?;
        Ok(Kernels { fill_face_ghosts: m.function("fill_face_ghosts")?, fill_corner_ghosts: m.function("fill_corner_ghosts")? })
    }
}

/// The ghost-fill tables on the host, global padded cells of the arena (see [`BoundaryTables`]):
/// donors and boundary cells with the corners they fill, and the corners left over.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostBoundaryTables {
    pub donors: Vec<GhostCopy>,
    pub cells: Vec<BoundaryCellEntry>,
    pub corners: Vec<GhostCopy>,
}

impl HostBoundaryTables {
    /// The tables of `host`'s blocks placed in the arena by `table` (one entry per block).
    pub fn new(host: &CpuGeometry, table: &[BlockEntry]) -> Result<Self> {
        if table.len() != host.blocks.len() {
            return Err(Error::Gpu(format!("boundary tables: {} block entries for {} blocks", table.len(), host.blocks.len())));
        }
        let global = |b: usize, p: usize| table[b].cell + p as i32;
        let mut t = HostBoundaryTables::default();
        for (b, bg) in host.blocks.iter().enumerate() {
            t.donors.extend(bg.donors.iter().map(|d| GhostCopy { ghost: global(b, d.ghost), source: global(d.donor_block, d.donor), corner: [NO_CORNER; 2] }));
            for patch in &bg.boundaries {
                let kind = match patch.kind {
                    PhysicalBc::Wall => BC_WALL,
                    PhysicalBc::SlipWall => BC_SLIP_WALL,
                    PhysicalBc::Inlet => BC_INLET,
                    PhysicalBc::Outlet => BC_OUTLET,
                };
                t.cells.extend(patch.cells.iter().map(|c| BoundaryCellEntry {
                    kind,
                    ghost: c.ghost.map(|p| global(b, p)),
                    interior: c.interior.map(|p| global(b, p)),
                    corner: [[NO_CORNER; 2]; 2],
                    pad: 0,
                    normal: c.normal,
                }));
            }
            t.corners.extend(corner_copies(bg.layout).map(|(dst, src)| GhostCopy { ghost: global(b, dst), source: global(b, src), corner: [NO_CORNER; 2] }));
        }
        t.hand_corners_to_their_face_ghosts();
        Ok(t)
    }

    /// Moves each corner copy to the donor or boundary cell that writes its face ghost, at most
    /// two per ghost; the rest stay in `corners`.
    fn hand_corners_to_their_face_ghosts(&mut self) {
        let mut by_source: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
        for c in &self.corners {
            by_source.entry(c.source).or_default().push(c.ghost);
        }
        let mut take = |ghost: i32| {
            let mut slots = [NO_CORNER; 2];
            if let Some(corners) = by_source.get_mut(&ghost) {
                for slot in slots.iter_mut() {
                    *slot = corners.pop().unwrap_or(NO_CORNER);
                }
            }
            slots
        };
        for d in &mut self.donors {
            d.corner = take(d.ghost);
        }
        for c in &mut self.cells {
            c.corner = c.ghost.map(&mut take);
        }
        self.corners = by_source
            .into_iter()
            .flat_map(|(source, corners)| corners.into_iter().map(move |ghost| GhostCopy { ghost, source, corner: [NO_CORNER; 2] }))
            .collect();
    }
}

/// Corner ghosts of a block (2 x 2 at each of its four corners) with their sources, local padded
/// indices, as `backend::cpu::boundary::fill_corners` picks them: the i-ghost of the same column
/// in the nearest interior row (j clamped to 0..nj-1).
fn corner_copies(l: crate::backend::BlockLayout) -> impl Iterator<Item = (usize, usize)> {
    let (ni, nj, ng) = (l.ni as isize, l.nj as isize, NGHOST as isize);
    (-ng..0).chain(nj..nj + ng).flat_map(move |j| {
        let j_src = j.clamp(0, nj - 1);
        (-ng..0).chain(ni..ni + ng).map(move |i| (l.idx(i, j), l.idx(i, j_src)))
    })
}

/// Device tables of the ghost fill: physical boundary cells, interface donors, corner ghosts,
/// global padded cells of the field arena. Uploaded once per mesh; an empty table is stored as
/// one unused entry (the counts say how many are real).
pub struct BoundaryTables {
    donors: CudaSlice<GhostCopy>,
    cells: CudaSlice<BoundaryCellEntry>,
    corners: CudaSlice<GhostCopy>,
    n_donors: i32,
    n_cells: i32,
    n_corners: i32,
}

impl BoundaryTables {
    pub fn upload(stream: &Arc<CudaStream>, host: &CpuGeometry, table: &[BlockEntry]) -> Result<Self> {
        let t = HostBoundaryTables::new(host, table)?;
        Ok(BoundaryTables {
            n_donors: t.donors.len() as i32,
            n_cells: t.cells.len() as i32,
            n_corners: t.corners.len() as i32,
            donors: upload_nonempty(stream, t.donors)?,
            cells: upload_nonempty(stream, t.cells)?,
            corners: upload_nonempty(stream, t.corners)?,
        })
    }
}

/// Device copy of `v`, with one default entry when `v` is empty (no zero-size allocations).
fn upload_nonempty<T: DeviceRepr + Default + Clone>(stream: &Arc<CudaStream>, mut v: Vec<T>) -> Result<CudaSlice<T>> {
    if v.is_empty() {
        v.push(T::default());
    }
    stream.clone_htod(&v).map_err(gpu_err)
}

/// Fills every ghost of `w`: interface exchange, physical boundaries and their corners in one
/// launch, left-over corners (if any) in a second (thesis 4.2.4; Blazek 2005 sec. 8.2-8.3).
pub(super) fn apply(k: &Kernels, cx: &Ctx, g: &GpuGeometry, gas: &Gas, data: &BoundaryData, w: &mut CudaSlice<f64>) -> Result<()> {
    let (e, gas_args, bc) = (g.extent, GasArgs::from(gas), BoundaryArgs::from(data));
    let t = &g.boundary;
    unsafe {
        cx.stream
            .launch_builder(&k.fill_face_ghosts)
            .arg(&e)
            .arg(&gas_args)
            .arg(&bc)
            .arg(&t.donors)
            .arg(&t.n_donors)
            .arg(&t.cells)
            .arg(&t.n_cells)
            .arg(&mut *w)
            .launch(grid((t.n_donors + t.n_cells) as usize))
            .map_err(gpu_err)?;
    }
    cx.counters.launched(1);
    if t.n_corners > 0 {
        unsafe { cx.stream.launch_builder(&k.fill_corner_ghosts).arg(&e).arg(&t.corners).arg(&t.n_corners).arg(w).launch(grid(t.n_corners as usize)) }.map_err(gpu_err)?;
        cx.counters.launched(1);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::gpu::arena::block_table;
    use crate::mesh::simple::{periodic_channel, rotate_180, shock_tube, split_i, wavy_channel, Sides};
    use crate::mesh::{BoundaryKind, Mesh};

    /// Inlet/outlet channel periodic in j, split into three blocks with one turned by 180
    /// degrees (reversed interfaces); a wavy channel with a no-slip and a slip wall; a shock
    /// tube one cell high (walls mirroring depth 1 twice).
    fn meshes() -> Vec<Mesh> {
        let periodic = periodic_channel(18, 6, 3.0, 1.0, BoundaryKind::Inlet, BoundaryKind::Outlet).unwrap();
        let split = split_i(&split_i(&periodic, 0, 6).unwrap(), 0, 3).unwrap();
        let walls = Sides { jmin: BoundaryKind::Wall, jmax: BoundaryKind::InviscidWall, ..Sides::inviscid_channel() };
        vec![rotate_180(&split, 1).unwrap(), wavy_channel(10, 7, 2.0, 1.0, 0.05, walls).unwrap(), shock_tube(8, 1.0).unwrap()]
    }

    /// Block and signed (i, j) of a global padded cell.
    fn locate(table: &[BlockEntry], g: i32) -> (usize, i32, i32) {
        let b = table.iter().rposition(|e| e.cell <= g).unwrap();
        let (local, row) = (g - table[b].cell, table[b].ni + 2 * NGHOST as i32);
        (b, local % row - NGHOST as i32, local / row - NGHOST as i32)
    }

    /// How many of i and j lie outside the block: 0 interior, 1 face ghost, 2 corner ghost.
    fn outside(table: &[BlockEntry], g: i32) -> usize {
        let (b, i, j) = locate(table, g);
        let e = table[b];
        (!(0..e.ni).contains(&i)) as usize + (!(0..e.nj).contains(&j)) as usize
    }

    /// The claim the single first launch rests on, and that every ghost is filled: donors and
    /// boundary cells write every face ghost exactly once and read interior cells only; every
    /// corner ghost is written exactly once, with the face ghost the CPU copies into it, by the
    /// entry that writes that face ghost or (blocks one cell high only) by the left-over copies.
    #[test]
    fn ghost_fill_tables_write_every_ghost_once_and_read_in_launch_order() {
        for mesh in meshes() {
            let host = CpuGeometry::from_mesh(&mesh).unwrap();
            let (table, extent) = block_table(&host).unwrap();
            let t = HostBoundaryTables::new(&host, &table).unwrap();
            let mut writes = vec![0usize; extent.np as usize];
            let face_writes = t.donors.iter().map(|d| d.ghost).chain(t.cells.iter().flat_map(|c| c.ghost));
            for g in face_writes {
                assert_eq!(outside(&table, g), 1, "launch 1 writes cell {:?}, not a face ghost", locate(&table, g));
                writes[g as usize] += 1;
            }
            for r in t.donors.iter().map(|d| d.source).chain(t.cells.iter().flat_map(|c| c.interior)) {
                assert_eq!(outside(&table, r), 0, "launch 1 reads cell {:?}, not an interior cell", locate(&table, r));
            }
            // (corner, the face ghost whose state it gets), as the entries and left-overs fill them.
            let by_donors = t.donors.iter().flat_map(|d| d.corner.map(|c| (c, d.ghost)));
            let by_cells = t.cells.iter().flat_map(|c| [0, 1].into_iter().flat_map(move |k| c.corner[k].map(|x| (x, c.ghost[k]))));
            let left_over = t.corners.iter().map(|c| (c.ghost, c.source));
            let mut filled: Vec<(i32, i32)> = by_donors.chain(by_cells).filter(|(c, _)| *c != NO_CORNER).chain(left_over).collect();
            let mut cpu: Vec<(i32, i32)> = host
                .blocks
                .iter()
                .enumerate()
                .flat_map(|(b, bg)| {
                    let origin = table[b].cell;
                    corner_copies(bg.layout).map(move |(dst, src)| (origin + dst as i32, origin + src as i32))
                })
                .collect();
            filled.sort_unstable();
            cpu.sort_unstable();
            assert_eq!(filled, cpu, "the corners must get the face ghosts the CPU copies into them");
            assert_eq!(t.corners.is_empty(), host.blocks.iter().all(|b| b.layout.nj > 1), "left-over corners only for blocks one cell high");
            for (corner, source) in filled {
                assert_eq!(outside(&table, corner), 2, "cell {:?} filled as a corner is not one", locate(&table, corner));
                assert_eq!(outside(&table, source), 1, "a corner copies cell {:?}, not a face ghost", locate(&table, source));
                writes[corner as usize] += 1;
            }
            for (g, n) in writes.iter().enumerate() {
                let expected = (outside(&table, g as i32) > 0) as usize;
                assert_eq!(*n, expected, "cell {:?} written {n} times", locate(&table, g as i32));
            }
            let reversed = mesh.blocks.iter().flat_map(|b| &b.patches).any(|p| matches!(&p.kind, BoundaryKind::Interface(c) if c.reversed));
            assert!(reversed || t.donors.is_empty() || mesh.blocks.len() == 1, "the multi-block test mesh should have a reversed interface");
        }
    }
}
