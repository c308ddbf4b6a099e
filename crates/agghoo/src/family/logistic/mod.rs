//! L2 logistic regression along a λ path with warm starts.
//!
//! Placeholder: the module's public items are the contract (a `Family` built by the functions
//! below and a serializable `LogisticModel`).

use serde::{Deserialize, Serialize};

use super::{Family, FamilyParams, Predictor};
use crate::data::{Dataset, View};
use crate::error::{Error, Result};
use crate::predictions::Predictions;

/// A fitted model of this family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogisticModel {}

impl Predictor for LogisticModel {
    fn predict(&self, _rows: &View<'_>) -> Result<Predictions> {
        Err(Error::Unsupported { what: "family `logistic`".into(), reason: "not implemented yet".into() })
    }
}

/// Builds the family from CLI parameters (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until this family lands.
pub fn build(_params: &FamilyParams, _data: &Dataset) -> Result<Box<dyn Family>> {
    Err(Error::Unsupported { what: "family `logistic`".into(), reason: "not implemented yet".into() })
}
