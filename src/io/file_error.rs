//! A file operation that failed: what was being done, on which path, and the OS error.

use std::path::{Path, PathBuf};

/// A failed file operation on `path` (`action` like "read", "write", "append to").
#[derive(Debug, thiserror::Error)]
#[error("could not {action} {}: {source}", path.display())]
pub struct FileError {
    pub action: &'static str,
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

impl FileError {
    pub fn new(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        FileError {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    /// A `map_err` adapter: `.map_err(FileError::at("write", path))`.
    pub fn at<'a>(
        action: &'static str,
        path: &'a Path,
    ) -> impl FnOnce(std::io::Error) -> Self + 'a {
        move |e| FileError::new(action, path, e)
    }
}
