//! The ε-regression problem (SPEC experiment 4). Placeholder: implemented with the SVM family.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::seed::Seed;

/// The regression function `x ↦ exp(cos x)`.
pub fn svr_regression_function(x: f64) -> f64 {
    x.cos().exp()
}

/// The ε-regression problem, from stream `stream` (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until implemented.
pub fn svr_problem(n: usize, seed: Seed, stream: u64) -> Result<Dataset> {
    let _ = (n, seed, stream);
    Err(Error::Unsupported { what: "gen:svr".into(), reason: "not implemented yet".into() })
}
