//! Genuer's CART problem (SPEC experiment 2). Placeholder: implemented with the CART family.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::seed::Seed;

/// Genuer's problem with `d` features (d ≥ 6), from stream `stream` (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until implemented.
pub fn genuer(n: usize, d: usize, seed: Seed, stream: u64) -> Result<Dataset> {
    let _ = (n, d, seed, stream);
    Err(Error::Unsupported { what: "gen:genuer".into(), reason: "not implemented yet".into() })
}
