//! The configuration of a selection procedure (a serde value: the procedure spec a worker receives).

use serde::{Deserialize, Serialize};

use super::aggregate::{Aggregation, VoteTies};
use super::method::Method;
use crate::data::Preprocess;
use crate::engine::TieRule;
use crate::loss::Loss;
use crate::resample::TrainFraction;
use crate::seed::Seed;

/// Configuration of [`select`](super::select) (a serde value: the procedure spec a worker
/// receives). [`SelectConfig::check`] and [`SelectConfig::for_procedure`]
/// read the procedures' own rules (see [`Procedure`](super::procedure::Procedure)).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SelectConfig {
    /// The procedure.
    pub method: Method,
    /// The selection loss; `None` = the task's default (0–1 / squared).
    pub loss: Option<Loss>,
    /// Argmin tie rule.
    pub tie: TieRule,
    /// How members are combined; `None` = mean for regression, vote for classification.
    pub aggregation: Option<Aggregation>,
    /// CV only: the one-standard-error rule.
    pub one_standard_error: bool,
    /// Subagging only: training fraction of the inner hold-out inside each training set.
    pub inner_fraction: TrainFraction,
    /// Per-fold preprocessing.
    pub preprocess: Preprocess,
    /// Seed of the procedure's own randomness (subagging's inner splits).
    pub seed: Seed,
    /// Keep the split indices in the report.
    pub keep_split_indices: bool,
    /// How the fitted model's vote breaks ties (recorded in the model).
    #[serde(default)]
    pub vote_ties: VoteTies,
}

impl SelectConfig {
    /// Defaults: task loss, first-minimiser ties, task aggregation, inner τ = 0.8, seed 0.
    pub fn new(method: Method) -> Self {
        Self {
            method,
            loss: None,
            tie: TieRule::First,
            aggregation: None,
            one_standard_error: false,
            inner_fraction: TrainFraction::DEFAULT,
            preprocess: Preprocess::default(),
            seed: Seed(0),
            keep_split_indices: false,
            vote_ties: VoteTies::LowestRisk,
        }
    }
}
