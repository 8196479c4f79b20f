//! Why a run stops with an error, and the run folder's atomic writes.

use std::path::Path;
use thiserror::Error;

/// Why training stopped with an error.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A file in the run folder.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A setting.
    #[error("{0}")]
    Config(String),
    /// The settings.
    #[error("{0}")]
    Settings(#[from] crate::neural::config::ConfigError),
    /// The run's network.
    #[error("{0}")]
    Model(#[from] sawah_agents::neural::ModelError),
}
pub(super) fn file_error(path: &Path, message: impl std::fmt::Display) -> TrainError {
    TrainError::File {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}
/// Writes `bytes` to `path` atomically (a temporary file, then a rename).
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    sawah_agents::files::write_atomically(path, bytes).map_err(|e| file_error(path, e))
}
