//! YearPredictionMSD-shaped data for TreeCV (SPEC experiment 5). Placeholder.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::seed::Seed;

/// A YearPredictionMSD-like regression problem with 90 features (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until implemented.
pub fn msd_like(n: usize, seed: Seed) -> Result<Dataset> {
    let _ = (n, seed);
    Err(Error::Unsupported { what: "gen:msd".into(), reason: "not implemented yet".into() })
}
