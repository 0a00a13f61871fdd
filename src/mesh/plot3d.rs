//! Plot3D multi-block 2D grid files (node coordinates only: Plot3D has no boundary patches).
//!
//! Layout (both formats): number of blocks; `ni nj` node counts of every block; then per block
//! all x (i fastest), then all y.
//! - ASCII: whitespace-separated; numbers written with Rust's shortest round-trip formatting
//!   (`{:e}`), so write -> read reproduces every coordinate bit for bit. Fortran `D` exponents
//!   are accepted on reading.
//! - Binary: the "C binary" flavour (no Fortran record markers), little-endian, `i32` counts and
//!   `f64` coordinates; ParaView (VTK's PLOT3D reader) reads it with "Binary File", "Multi
//!   Grid", "2D Geometry", "Double Precision" on, "Has Byte Count" and "IBlanking" off, little
//!   endian (checked with VTK 9.7).

use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};
use crate::mesh::{Block, Mesh};

/// Plot3D file flavour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plot3dFormat {
    /// Text, bit-exact round trip.
    Ascii,
    /// Little-endian C binary (no record markers).
    Binary,
}

/// Write the node coordinates of every block.
pub fn write_plot3d(path: impl AsRef<Path>, mesh: &Mesh, format: Plot3dFormat) -> Result<()> {
    let path = path.as_ref();
    let bytes = match format {
        Plot3dFormat::Ascii => ascii_bytes(mesh),
        Plot3dFormat::Binary => binary_bytes(mesh)?,
    };
    let mut file = fs::File::create(path).map_err(|e| Error::io(path, e))?;
    file.write_all(&bytes).map_err(|e| Error::io(path, e))
}

fn ascii_bytes(mesh: &Mesh) -> Vec<u8> {
    let mut s = String::new();
    s.push_str(&format!("{}\n", mesh.blocks.len()));
    for b in &mesh.blocks {
        s.push_str(&format!("{} {}\n", b.ni + 1, b.nj + 1));
    }
    for b in &mesh.blocks {
        for values in [&b.x, &b.y] {
            for row in values.chunks(4) {
                let line: Vec<String> = row.iter().map(|v| format!("{v:e}")).collect();
                s.push_str(&line.join(" "));
                s.push('\n');
            }
        }
    }
    s.into_bytes()
}

fn binary_bytes(mesh: &Mesh) -> Result<Vec<u8>> {
    let as_i32 = |n: usize| {
        i32::try_from(n).map_err(|_| Error::Mesh(format!("Plot3D binary: count {n} does not fit in a 32-bit integer")))
    };
    let mut out = Vec::new();
    out.extend(as_i32(mesh.blocks.len())?.to_le_bytes());
    for b in &mesh.blocks {
        out.extend(as_i32(b.ni + 1)?.to_le_bytes());
        out.extend(as_i32(b.nj + 1)?.to_le_bytes());
    }
    for b in &mesh.blocks {
        for v in b.x.iter().chain(&b.y) {
            out.extend(v.to_le_bytes());
        }
    }
    Ok(out)
}

/// Read a Plot3D 2D multi-block grid. Blocks come back named `block<n>` with no patches (the
/// caller supplies the topology).
pub fn read_plot3d(path: impl AsRef<Path>, format: Plot3dFormat) -> Result<Vec<Block>> {
    let path = path.as_ref();
    let bytes = fs::read(path).map_err(|e| Error::io(path, e))?;
    let bad = |reason: String| Error::Input { path: path.display().to_string(), reason };
    match format {
        Plot3dFormat::Ascii => {
            let text = String::from_utf8(bytes).map_err(|_| bad("not a text file".into()))?;
            let mut tokens = text.split_whitespace();
            let mut next_count = |what: &str| -> Result<usize> {
                let t = tokens.next().ok_or_else(|| bad(format!("file ends before {what}")))?;
                t.parse::<usize>().map_err(|_| bad(format!("{what}: '{t}' is not a count")))
            };
            let nb = next_count("the number of blocks")?;
            let dims = (0..nb).map(|b| Ok((next_count(&format!("ni of block {b}"))?, next_count(&format!("nj of block {b}"))?))).collect::<Result<Vec<_>>>()?;
            let mut values = text.split_whitespace().skip(1 + 2 * nb);
            let next_value = |b: usize| -> Result<f64> {
                let t = values.next().ok_or_else(|| bad(format!("file ends inside the coordinates of block {b}")))?;
                t.replace(['D', 'd'], "e").parse::<f64>().map_err(|_| bad(format!("block {b}: '{t}' is not a number")))
            };
            build_blocks(&dims, next_value, &bad)
        }
        Plot3dFormat::Binary => {
            let mut pos = 0;
            let mut take = |n: usize, what: &str| -> Result<&[u8]> {
                let s = bytes.get(pos..pos + n).ok_or_else(|| bad(format!("file ends before {what}")))?;
                pos += n;
                Ok(s)
            };
            let mut count = |what: &str| -> Result<usize> {
                let v = i32::from_le_bytes(take(4, what)?.try_into().expect("4 bytes"));
                usize::try_from(v).map_err(|_| bad(format!("{what} is negative ({v})")))
            };
            let nb = count("the number of blocks")?;
            if nb > bytes.len() / 8 {
                return Err(bad(format!("{nb} blocks cannot fit in {} bytes", bytes.len())));
            }
            let dims = (0..nb).map(|b| Ok((count(&format!("ni of block {b}"))?, count(&format!("nj of block {b}"))?))).collect::<Result<Vec<_>>>()?;
            let next_value = |b: usize| -> Result<f64> {
                Ok(f64::from_le_bytes(take(8, &format!("the coordinates of block {b}"))?.try_into().expect("8 bytes")))
            };
            build_blocks(&dims, next_value, &bad)
        }
    }
}

fn build_blocks(dims: &[(usize, usize)], mut next: impl FnMut(usize) -> Result<f64>, bad: &dyn Fn(String) -> Error) -> Result<Vec<Block>> {
    let mut blocks = Vec::with_capacity(dims.len());
    for (b, &(ni, nj)) in dims.iter().enumerate() {
        if ni < 2 || nj < 2 {
            return Err(bad(format!("block {b} has {ni} x {nj} nodes; a 2D block needs at least 2 x 2")));
        }
        let n = ni.checked_mul(nj).ok_or_else(|| bad(format!("block {b}: {ni} x {nj} nodes overflow")))?;
        let x = (0..n).map(|_| next(b)).collect::<Result<Vec<_>>>()?;
        let y = (0..n).map(|_| next(b)).collect::<Result<Vec<_>>>()?;
        blocks.push(Block { name: format!("block{b}"), ni: ni - 1, nj: nj - 1, x, y, patches: Vec::new() });
    }
    Ok(blocks)
}
