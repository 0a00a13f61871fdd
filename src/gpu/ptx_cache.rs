//! PTX compiled by NVRTC, kept on disk between runs: compiling the ten kernel families takes
//! 3.7 s one after another on the 2-core development machine (jacobian.cu alone 1.5 s), paid by
//! every `turbopt solve`, campaign and test binary that opens a GPU; on a 16-core GPU host,
//! side by side, it is a fraction of a second (BENCHMARKS.md). A file is named by a hash of everything the
//! PTX depends on (the full source with its headers, the target architecture, the compile
//! options, the NVRTC version, the turbopt version) and holds that description too, which is
//! compared on reading, so a stale or colliding file is never used. The cache is an
//! optimization only: a directory that cannot be read or written means compiling, never an
//! error.
//!
//! The directory: `TURBOPT_KERNEL_CACHE_DIR`, else `$XDG_CACHE_HOME/turbopt/kernels`, else
//! `$HOME/.cache/turbopt/kernels`; `TURBOPT_KERNEL_CACHE_DIR=off` compiles every time.

use std::path::{Path, PathBuf};

/// What one family's PTX is compiled from, as text (the cache key).
pub struct PtxKey(String);

impl PtxKey {
    pub fn new(source: &str, arch: &str, options: &str) -> Self {
        PtxKey(format!("turbopt {}\nnvrtc {}\narch {arch}\noptions {options}\n{source}", env!("CARGO_PKG_VERSION"), nvrtc_version()))
    }

    /// 64-bit FNV-1a of the key: a file name, not a proof (the file holds the whole key).
    fn file_name(&self, family: &str) -> String {
        let hash = self.0.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        format!("{family}-{hash:016x}.ptx")
    }
}

/// The PTX stored for `key`, if a file holds exactly this key.
pub fn load(family: &str, key: &PtxKey) -> Option<String> {
    load_from(&directory()?, family, key)
}

/// Stores `ptx` for `key` (failures ignored: module notes).
pub fn store(family: &str, key: &PtxKey, ptx: &str) {
    if let Some(dir) = directory() {
        store_in(&dir, family, key, ptx);
    }
}

fn load_from(dir: &Path, family: &str, key: &PtxKey) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(key.file_name(family))).ok()?;
    let (stored_key, ptx) = text.split_once(SEPARATOR)?;
    (stored_key == key.0).then(|| ptx.to_string())
}

/// Written to a temporary file and renamed, so that a process reading at the same time never
/// sees half a file.
fn store_in(dir: &Path, family: &str, key: &PtxKey, ptx: &str) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let name = key.file_name(family);
    let partial = dir.join(format!("{name}.{}.partial", std::process::id()));
    let path = dir.join(name);
    if std::fs::write(&partial, format!("{}{SEPARATOR}{ptx}", key.0)).is_ok() && std::fs::rename(&partial, &path).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

/// Between the key and the PTX in a cache file (neither contains NUL).
const SEPARATOR: &str = "\n\0\n";

fn directory() -> Option<PathBuf> {
    match std::env::var_os("TURBOPT_KERNEL_CACHE_DIR") {
        Some(d) if d == "off" => None,
        Some(d) => Some(PathBuf::from(d)),
        None => crate::files::cache_directory("kernels"),
    }
}

fn nvrtc_version() -> String {
    let (mut major, mut minor) = (0, 0);
    match unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }.result() {
        Ok(()) => format!("{major}.{minor}"),
        Err(_) => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_ptx_is_read_back_for_the_same_key_only() {
        let dir = std::env::temp_dir().join(format!("turbopt-ptx-cache-{}", std::process::id()));
        let key = PtxKey("turbopt 0\nnvrtc 12.9\narch sm_90\noptions []\n__global__ void k() {}".into());
        assert_eq!(load_from(&dir, "update", &key), None);
        store_in(&dir, "update", &key, ".entry k()");
        assert_eq!(load_from(&dir, "update", &key).as_deref(), Some(".entry k()"));
        // Another source, or a file of the same name holding another key (a hash collision),
        // is never read as this key's PTX.
        let other = PtxKey(key.0.replace("sm_90", "sm_80"));
        assert_eq!(load_from(&dir, "update", &other), None);
        std::fs::copy(dir.join(key.file_name("update")), dir.join(other.file_name("update"))).unwrap();
        assert_eq!(load_from(&dir, "update", &other), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
