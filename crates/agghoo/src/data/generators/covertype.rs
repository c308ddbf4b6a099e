//! Covertype-shaped data for TreeCV (SPEC experiment 5). Placeholder.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::seed::Seed;

/// A Covertype-like binary problem with 54 features (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until implemented.
pub fn covertype_like(n: usize, seed: Seed) -> Result<Dataset> {
    let _ = (n, seed);
    Err(Error::Unsupported { what: "gen:covertype".into(), reason: "not implemented yet".into() })
}
