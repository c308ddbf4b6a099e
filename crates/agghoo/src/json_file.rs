//! The one pair of functions that write and read agghoo's versioned JSON files (model files,
//! splits files), so every file names its path the same way in errors.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

/// Writes `value` as JSON to `path` (a value that carries its own `format` and
/// `format_version` fields).
///
/// # Errors
/// [`Error::BadFile`] if `value` cannot be serialized; [`Error::Io`] naming `path`.
pub(crate) fn write<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let text = serde_json::to_string(value).map_err(|e| Error::BadFile { path: path.into(), message: e.to_string() })?;
    std::fs::write(path, text).map_err(|source| Error::Io { path: path.into(), source })
}

/// The text of the file at `path`, for its type's `from_json` (which checks the format and its
/// version).
///
/// # Errors
/// [`Error::Io`] naming `path`; [`Error::ResourceLimit`] for a file larger than the memory budget
/// (read with [`crate::limits::read_text`], as spec files are).
pub(crate) fn read(path: &Path) -> Result<String> {
    crate::limits::read_text(path)
}
