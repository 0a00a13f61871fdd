//! VTK output for ParaView: one XML structured grid (`.vts`) per block plus a multi-block index
//! (`.vtm`), with optional cell data (one scalar per cell, e.g. the solver's density, Mach
//! number or wall distance). ASCII data with shortest round-trip number formatting.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::mesh::{Block, Mesh};

/// A named cell field: one `Vec` per block, `ni*nj` values each (i fastest).
pub type CellField<'a> = (&'a str, &'a [Vec<f64>]);

/// Write `mesh` with `cell_data` for ParaView and return the path of the `.vtm` file to open.
///
/// `path` is either the `.vtm` file to write or a directory (created if needed) that receives
/// `mesh.vtm`. The block files go to `<stem>_blocks/<b>_<name>.vts` beside the `.vtm`.
/// Fails, naming the field and block, when a field has the wrong number of blocks or values.
pub fn write_vtk(path: impl AsRef<Path>, mesh: &Mesh, cell_data: &[CellField<'_>]) -> Result<PathBuf> {
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
