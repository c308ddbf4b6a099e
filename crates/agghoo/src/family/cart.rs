//! CART with minimal cost-complexity pruning (one grown tree gives every α).
//!
//! Placeholder: the module's public items are the contract (a `Family` built by the functions
//! below and a serializable `CartModel`).

use serde::{Deserialize, Serialize};

use super::{Family, FamilyParams, Predictor};
use crate::data::{Dataset, View};
use crate::error::{Error, Result};
use crate::predictions::Predictions;

/// A fitted model of this family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CartModel {}

impl Predictor for CartModel {
    fn predict(&self, _rows: &View<'_>) -> Result<Predictions> {
        Err(Error::Unsupported { what: "family `cart`".into(), reason: "not implemented yet".into() })
    }
}

/// Builds the family from CLI parameters (not implemented yet).
///
/// # Errors
/// Always [`Error::Unsupported`] until this family lands.
pub fn build(_params: &FamilyParams, _data: &Dataset) -> Result<Box<dyn Family>> {
    Err(Error::Unsupported { what: "family `cart`".into(), reason: "not implemented yet".into() })
}
