//! Library-boundary errors.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    #[error("invalid blade geometry: {0}")]
    Geometry(String),
    #[error("mesh generation failed: {0}")]
    Mesh(String),
    #[error("bad input file {path}: {reason}")]
    Input { path: String, reason: String },
    /// A value that names nothing or cannot be (an unknown operating point...), with what would.
    #[error("{0}")]
    Invalid(String),
    #[error("solver diverged at iteration {iteration}: {reason}")]
    Diverged { iteration: usize, reason: String },
    #[error("GPU error: {0}")]
    Gpu(String),
    /// A device selection this host cannot honour (a device index that does not exist...).
    #[error("GPU error: {0}")]
    Devices(#[from] DevicesError),
    #[error("I/O error on {path}: {source}")]
    Io { path: String, #[source] source: std::io::Error },
    /// Stopped at the caller's request (a `solver::StopSignal`): what was finished is kept.
    #[error("interrupted: {0}")]
    Interrupted(String),
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().display().to_string(), source }
    }
}

/// A device selection that cannot be honoured (`backend::Devices`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DevicesError {
    #[error("CUDA device {device} requested but this host has {found} device(s) (ordinals 0..{found})")]
    NoSuchDevice { device: usize, found: usize },
    #[error("no CUDA device on this host")]
    NoDevice,
    #[error("the device list is empty: name at least one ordinal, or All")]
    Empty,
    #[error("--devices {0:?}: expected `all` or comma-separated ordinals such as 0,1")]
    Unparsable(String),
}
