//! VTK output for ParaView: one XML structured grid (`.vts`) per block plus a multi-block index
//! (`.vtm`), with optional cell data (one scalar per cell, e.g. the solver's density, Mach
//! number or wall distance), and the boundary patches as line cells (`boundaries.vtp`) with
//! their kind and block. ASCII data with shortest round-trip number formatting.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::mesh::metrics::{check_block_shape, face_edge_nodes};
use crate::mesh::{Block, BoundaryKind, Mesh};

/// A named cell field: one `Vec` per block, `ni*nj` values each (i fastest).
pub type CellField<'a> = (&'a str, &'a [Vec<f64>]);

/// Write `mesh` with `cell_data` for ParaView and return the path of the `.vtm` file to open.
///
/// `path` is either the `.vtm` file to write or a directory (created if needed) that receives
/// `mesh.vtm`. The block files go to `<stem>_blocks/<b>_<name>.vts` beside the `.vtm`, the
/// boundary lines to `<stem>_blocks/boundaries.vtp` (the last data set of the index).
/// Fails, naming the field and block, when a field has the wrong number of blocks or values.
pub fn write_vtk(path: impl AsRef<Path>, mesh: &Mesh, cell_data: &[CellField<'_>]) -> Result<PathBuf> {
    for (b, block) in mesh.blocks.iter().enumerate() {
        check_block_shape(b, block)?;
    }
    check_fields(mesh, cell_data)?;
    let path = path.as_ref();
    let vtm = if path.extension().is_some_and(|e| e == "vtm") {
        path.to_path_buf()
    } else {
        fs::create_dir_all(path).map_err(|e| Error::io(path, e))?;
        path.join("mesh.vtm")
    };
    let stem = vtm.file_stem().map_or("mesh".into(), |s| s.to_string_lossy().into_owned());
    let dir = vtm.parent().map_or(PathBuf::from("."), Path::to_path_buf);
    let blocks_dir_name = format!("{stem}_blocks");
    let blocks_dir = dir.join(&blocks_dir_name);
    fs::create_dir_all(&blocks_dir).map_err(|e| Error::io(&blocks_dir, e))?;

    let mut index = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"vtkMultiBlockDataSet\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <vtkMultiBlockDataSet>\n",
    );
    for (b, block) in mesh.blocks.iter().enumerate() {
        let file_name = format!("{b}_{}.vts", sanitize(&block.name));
        let fields: Vec<(&str, &[f64])> = cell_data.iter().map(|(name, per_block)| (*name, per_block[b].as_slice())).collect();
        let file = blocks_dir.join(&file_name);
        fs::write(&file, structured_grid_xml(block, &fields)).map_err(|e| Error::io(&file, e))?;
        let _ = writeln!(
            index,
            "    <DataSet index=\"{b}\" name=\"{}\" file=\"{blocks_dir_name}/{file_name}\"/>",
            xml_escape(&block.name)
        );
    }
    let file = blocks_dir.join("boundaries.vtp");
    fs::write(&file, boundaries_xml(mesh)).map_err(|e| Error::io(&file, e))?;
    let _ = writeln!(index, "    <DataSet index=\"{}\" name=\"boundaries\" file=\"{blocks_dir_name}/boundaries.vtp\"/>", mesh.blocks.len());
    index.push_str("  </vtkMultiBlockDataSet>\n</VTKFile>\n");
    fs::write(&vtm, index).map_err(|e| Error::io(&vtm, e))?;
    Ok(vtm)
}

fn check_fields(mesh: &Mesh, cell_data: &[CellField<'_>]) -> Result<()> {
    for (name, per_block) in cell_data {
        if per_block.len() != mesh.blocks.len() {
            return Err(Error::Other(format!(
                "VTK cell field '{name}': {} blocks of values for a mesh of {} blocks",
                per_block.len(),
                mesh.blocks.len()
            )));
        }
        for (b, (values, block)) in per_block.iter().zip(&mesh.blocks).enumerate() {
            if values.len() != block.n_cells() {
                return Err(Error::Other(format!(
                    "VTK cell field '{name}', block {b}: {} values for {} cells",
                    values.len(),
                    block.n_cells()
                )));
            }
        }
    }
    Ok(())
}

/// Code of a boundary kind in the `kind` cell field of `boundaries.vtp`.
pub fn boundary_kind_code(kind: &BoundaryKind) -> i32 {
    match kind {
        BoundaryKind::Wall => 0,
        BoundaryKind::InviscidWall => 1,
        BoundaryKind::Symmetry => 2,
        BoundaryKind::Inlet => 3,
        BoundaryKind::Outlet => 4,
        BoundaryKind::Interface(c) if c.is_periodic() => 5,
        BoundaryKind::Interface(_) => 6,
    }
}

/// Every boundary face as a two-point line, with cell fields `kind`
/// ([`boundary_kind_code`]: 0 wall, 1 slip wall, 2 symmetry, 3 inlet, 4 outlet, 5 periodic,
/// 6 1-to-1) and `block`.
fn boundaries_xml(mesh: &Mesh) -> String {
    let mut points = String::new();
    let mut kinds = Vec::new();
    let mut blocks = Vec::new();
    for (b, block) in mesh.blocks.iter().enumerate() {
        for patch in &block.patches {
            for f in patch.start..patch.end {
                for (i, j) in face_edge_nodes(block, patch.face, f) {
                    let n = block.node(i, j);
                    let _ = writeln!(points, "{:e} {:e} 0", block.x[n], block.y[n]);
                }
                kinds.push(boundary_kind_code(&patch.kind));
                blocks.push(b);
            }
        }
    }
    let n = kinds.len();
    let join = |v: Vec<String>| v.join(" ");
    let mut s = String::new();
    let _ = writeln!(s, "<?xml version=\"1.0\"?>");
    let _ = writeln!(s, "<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">");
    let _ = writeln!(s, "  <PolyData>\n    <Piece NumberOfPoints=\"{}\" NumberOfLines=\"{n}\">", 2 * n);
    let _ = writeln!(s, "      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">");
    s.push_str(&points);
    s.push_str("        </DataArray>\n      </Points>\n      <Lines>\n");
    let _ = writeln!(s, "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n{}", join((0..2 * n).map(|k| k.to_string()).collect()));
    let _ = writeln!(s, "        </DataArray>\n        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n{}", join((1..=n).map(|k| (2 * k).to_string()).collect()));
    s.push_str("        </DataArray>\n      </Lines>\n      <CellData>\n");
    let _ = writeln!(s, "        <DataArray type=\"Int32\" Name=\"kind\" format=\"ascii\">\n{}", join(kinds.iter().map(|k| k.to_string()).collect()));
    let _ = writeln!(s, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"block\" format=\"ascii\">\n{}", join(blocks.iter().map(|k| k.to_string()).collect()));
    s.push_str("        </DataArray>\n      </CellData>\n    </Piece>\n  </PolyData>\n</VTKFile>\n");
    s
}

/// File-name-safe version of a block name.
fn sanitize(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn structured_grid_xml(block: &Block, fields: &[(&str, &[f64])]) -> String {
    let extent = format!("0 {} 0 {} 0 0", block.ni, block.nj);
    let mut s = String::with_capacity(64 * (block.x.len() + fields.len() * block.n_cells()));
    let _ = writeln!(s, "<?xml version=\"1.0\"?>");
    let _ = writeln!(s, "<VTKFile type=\"StructuredGrid\" version=\"0.1\" byte_order=\"LittleEndian\">");
    let _ = writeln!(s, "  <StructuredGrid WholeExtent=\"{extent}\">");
    let _ = writeln!(s, "    <Piece Extent=\"{extent}\">");
    s.push_str("      <Points>\n        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for (x, y) in block.x.iter().zip(&block.y) {
        let _ = writeln!(s, "{x:e} {y:e} 0");
    }
    s.push_str("        </DataArray>\n      </Points>\n");
    if !fields.is_empty() {
        s.push_str("      <CellData>\n");
        for (name, values) in fields {
            let _ = writeln!(s, "        <DataArray type=\"Float64\" Name=\"{}\" format=\"ascii\">", xml_escape(name));
            for row in values.chunks(6) {
                let line: Vec<String> = row.iter().map(|v| format!("{v:e}")).collect();
                s.push_str(&line.join(" "));
                s.push('\n');
            }
            s.push_str("        </DataArray>\n");
        }
        s.push_str("      </CellData>\n");
    }
    s.push_str("    </Piece>\n  </StructuredGrid>\n</VTKFile>\n");
    s
}
