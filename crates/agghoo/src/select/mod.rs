//! Selection and aggregation procedures (SPEC § Selection and aggregation): hold-out, CV
//! selection (with the one-standard-error rule), Agghoo, Majhoo, ACV, EKCV, subagged hold-out.
//!
//! Every procedure starts from the same per-split work ([`evaluate_splits`]): fit the family's
//! whole path on the training rows (after per-fold preprocessing), predict every grid point on
//! the validation rows, reduce to a risk curve, and take the hold-out argmin `m̂_T`. The
//! procedures differ only in what they do with the curves and the selected models, so argmin
//! with ties, voting and averaging live once here, never inside a family.

mod aggregate;
mod argmin;
mod evaluate;
mod model_file;
mod procedures;
mod report;

pub use aggregate::{Aggregation, aggregate};
pub use argmin::{TIE_RELATIVE_TOLERANCE, TieRule, argmin, one_standard_error};
pub use evaluate::{EvalOptions, SplitOutcome, evaluate_splits};
pub use model_file::{DataFingerprint, FittedModel, Hash64, MODEL_FORMAT_OLDEST_READ, MODEL_FORMAT_VERSION, Member, Schema};
pub(crate) use procedures::cv_curve;
pub use procedures::{Method, SelectConfig, risk_curve, select};
pub(crate) use report::summarize;
pub use report::{CvCurve, Report, SplitReport};

/// A progress callback: called with the number of units just finished (splits, repetitions).
pub type Progress = std::sync::Arc<dyn Fn(u64) + Send + Sync>;
