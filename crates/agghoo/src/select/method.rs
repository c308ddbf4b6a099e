//! The names of the selection procedures.

use serde::{Deserialize, Serialize};

use crate::names::{Named, named};
use crate::resample::PlanKind;

/// A selection / aggregation procedure (each implemented by a
/// [`Procedure`](super::procedure::Procedure), see [`procedure`](super::procedure::procedure));
/// every one with its name in [`Named::CHOICES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Hold-out selection on the first split.
    HoldOut,
    /// CV selection, refit on all data.
    Cv,
    /// Aggregated hold-out: average (regression) or vote (classification) of the V hold-out
    /// predictors.
    Agghoo,
    /// Majority-vote aggregated hold-out (classification).
    Majhoo,
    /// K-fold averaging CV (Jung & Hu): selected rules retrained on all data, aggregated.
    Acv,
    /// Efficient K-fold CV (Jung): the averaged selected hyperparameter, fitted on all data.
    Ekcv,
    /// Subagged hold-out: hold-out inside each training set, members trained on the inner part.
    Subagging,
}

impl Method {
    /// The name users write (`--method`, `method=`): [`Named::name`].
    pub fn name(self) -> &'static str {
        Named::name(self)
    }

    /// The plan the method uses when none is given: V-fold for CV, one hold-out split for
    /// hold-out, Monte-Carlo splits for the others.
    pub fn default_plan(self) -> PlanKind {
        match self {
            Method::Cv => PlanKind::VFold,
            Method::HoldOut => PlanKind::HoldOut,
            _ => PlanKind::MonteCarlo,
        }
    }
}

named!(display Method, "method", [
    Method::Agghoo => "agghoo": "Aggregated hold-out (average / vote)",
    Method::Majhoo => "majhoo": "Majority-vote aggregated hold-out",
    Method::Cv => "cv": "CV selection, refit on all data",
    Method::HoldOut => "holdout": "Hold-out selection",
    Method::Acv => "acv": "Selected rules retrained on all data, aggregated",
    Method::Ekcv => "ekcv": "Averaged selected hyperparameter, fitted on all data",
    Method::Subagging => "subagging": "Subagged hold-out",
]);
