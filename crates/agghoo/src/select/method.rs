//! The names of the selection procedures.

use serde::{Deserialize, Serialize};

use crate::names::{Named, named};
use crate::resample::PlanKind;

/// A selection / aggregation procedure (each implemented by a
/// [`Procedure`](super::procedure::Procedure), see [`procedure`](super::procedure::procedure));
/// every one with its name in [`Named::CHOICES`].
///
/// Serialised by its name (`holdout`); files written before that (`hold-out`) still read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
            // Every arm named: a new method chooses its default plan here.
            Method::Agghoo | Method::Majhoo | Method::Acv | Method::Ekcv | Method::Subagging => PlanKind::MonteCarlo,
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

impl Serialize for Method {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Method {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match String::deserialize(deserializer)?.as_str() {
            // The spelling of reports, model files and jobs written before one name per choice.
            "hold-out" => Ok(Method::HoldOut),
            name => Method::parse_name(name).map_err(serde::de::Error::custom),
        }
    }
}
