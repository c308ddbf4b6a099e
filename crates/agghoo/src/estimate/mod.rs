//! Risk estimation with uncertainty (`docs/PROCEDURES.md` § Risk estimators): the risk of *one*
//! rule, and of a whole selection procedure, each reported as an estimate ± standard error with
//! the per-split scores behind it.
//!
//! | concept | module | entry point |
//! |---|---|---|
//! | hold-out / CV / LOO / LpO / Monte-Carlo / repeated V-fold risk of one rule | `cv` | [`estimate_risk`] |
//! | closed-form LOO and GCV of linear smoothers | `closed_form` | [`smoother_risks`] (used by [`estimate_risk`] automatically) |
//! | bootstrap: naive, Err(1), .632, .632+ | `bootstrap` | [`bootstrap_risk`] |
//! | nested CV of a selection procedure, several procedures on identical splits | `nested` | [`nested_cv`] |
//! | paired tests (corrected resampled t, 5×2cv t), Student t distribution | `compare` | [`compare_paired`] |
//! | learning and validation curves | `curves` | [`learning_curve`], [`validation_curve`] |
//!
//! Design: every estimator is a thin reduction over the per-split work of
//! [`select::evaluate_splits`](crate::select::evaluate_splits) (fit a path, predict, compute
//! several losses, optionally keep the predictions). The rejected alternative — a second fitting
//! loop per estimator — would duplicate per-fold preprocessing, error naming and determinism.
//! Reports are plain serde structs with every number a table or a JSON document needs; the CLI
//! formats them and does no statistics.

mod bootstrap;
mod closed_form;
mod compare;
mod curves;
mod cv;
mod nested;

pub use bootstrap::{BootstrapConfig, BootstrapEstimate, bootstrap_risk, bootstrap_risk_on, no_information_rate};
pub use closed_form::{SmootherRisks, loo_residuals, smoother_risks};
pub use compare::{
    PairedComparison, TTest, compare_paired, corrected_resampled_t_test, five_by_two_cv_t_test, regularized_incomplete_beta, student_t_cdf,
};
pub use curves::{
    LearningCurve, LearningCurveConfig, LearningCurvePoint, ValidationCurve, ValidationPoint, learning_curve, validation_curve,
};
pub use cv::{
    ClosedFormPolicy, EstimateConfig, EstimateJob, EstimateMethod, OutOfFold, OutOfFoldCombination, OutOfFoldRow, PreparedEstimate,
    RiskEstimate, RiskSummary, SplitScore, estimate_risk, estimate_risk_with,
};
pub use nested::{NestedConfig, NestedJob, NestedReport, OuterOutcome, OuterSplit, ProcedureRisk, nested_cv, nested_cv_with};
