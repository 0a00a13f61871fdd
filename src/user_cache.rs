//! The user's cache directory for turbopt's caches (the performance model's measurements, the
//! compiled GPU kernels): `$XDG_CACHE_HOME/turbopt/<part>`, else `$HOME/.cache/turbopt/<part>`.

use std::path::PathBuf;

/// The cache directory of `part`, or `None` when neither variable is set.
pub fn directory(part: &str) -> Option<PathBuf> {
    match std::env::var_os("XDG_CACHE_HOME") {
        Some(d) => Some(PathBuf::from(d).join("turbopt").join(part)),
        None => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("turbopt").join(part)),
    }
}
