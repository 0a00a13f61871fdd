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
    #[error("solver diverged at iteration {iteration}: {reason}")]
    Diverged { iteration: usize, reason: String },
    #[error("GPU error: {0}")]
    Gpu(String),
    /// A device selection this host cannot honour (a device index that does not exist...).
    #[error("GPU error: {0}")]
    Devices(#[from] crate::gpu::DevicesError),
    #[error("I/O error on {path}: {source}")]
    Io { path: String, #[source] source: std::io::Error },
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn io(path: impl AsRef<std::path::Path>, source: std::io::Error) -> Self {
        Error::Io { path: path.as_ref().display().to_string(), source }
    }
}
