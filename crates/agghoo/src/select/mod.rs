//! Selection and aggregation procedures (docs/PROCEDURES.md § Selection and aggregation): hold-out, CV
//! selection (with the one-standard-error rule), Agghoo, Majhoo, ACV, EKCV, subagged hold-out.
//!
//! Every procedure starts from the same per-split work of the engine ([`evaluate_splits`]): fit the family's
//! whole path on the training rows (after per-fold preprocessing), predict every grid point on
//! the validation rows, reduce to a risk curve, and take the hold-out argmin `m̂_T`. The
//! procedures differ only in what they do with the curves and the selected models, so argmin
//! with ties, voting and averaging live once here, never inside a family.

mod aggregate;
mod config;
mod job;
mod method;
mod model_file;
pub mod procedure;
mod report;
mod run;

pub use aggregate::{Aggregation, VoteTies, aggregate, aggregate_with_ties};
pub use config::SelectConfig;
pub use job::{PreparedSelect, SelectJob};
pub use method::Method;
pub use model_file::{DataFingerprint, FittedModel, Hash64, MODEL_FORMAT_OLDEST_READ, MODEL_FORMAT_VERSION, Member, Schema};
pub use procedure::{Choice, ChoiceContext, MemberChoice, Procedure, procedure};
pub use report::{CvCurve, Report, SplitReport, cv_curve, risk_curve};
pub use run::{conclude, evaluation_options, evaluation_splits, select, select_with};

// The engine's per-split evaluation, re-exported where procedures are documented.
pub(crate) use crate::engine::summarize;
pub use crate::engine::{EvalOptions, SplitOutcome, TIE_RELATIVE_TOLERANCE, TieRule, argmin, evaluate_splits, one_standard_error};
