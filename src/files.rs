//! Files the crate writes outside a run's own output: atomic replacements (checkpoints,
//! summaries) and the user's cache directory (the performance model's measurements, the
//! compiled GPU kernels).

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` atomically: a temporary file in the same directory, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    {
        let mut f = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        f.write_all(bytes).map_err(|e| Error::io(&tmp, e))?;
        f.sync_all().map_err(|e| Error::io(&tmp, e))?;
    }
    fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

/// The cache directory of `part`: `$XDG_CACHE_HOME/turbopt/<part>`, else
/// `$HOME/.cache/turbopt/<part>`; `None` when neither variable is set.
pub fn cache_directory(part: &str) -> Option<PathBuf> {
    match std::env::var_os("XDG_CACHE_HOME") {
        Some(d) => Some(PathBuf::from(d).join("turbopt").join(part)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("turbopt").join(part)),
    }
}
