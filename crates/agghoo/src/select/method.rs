//! The names of the selection procedures.

use serde::{Deserialize, Serialize};

/// A selection / aggregation procedure (each implemented by a
/// [`Procedure`](super::procedure::Procedure), see [`procedure`](super::procedure::procedure)).
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
    /// Every method.
    pub const ALL: [Method; 7] =
        [Method::HoldOut, Method::Cv, Method::Agghoo, Method::Majhoo, Method::Acv, Method::Ekcv, Method::Subagging];
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Method::HoldOut => "holdout",
            Method::Cv => "cv",
            Method::Agghoo => "agghoo",
            Method::Majhoo => "majhoo",
            Method::Acv => "acv",
            Method::Ekcv => "ekcv",
            Method::Subagging => "subagging",
        }
    }
}
