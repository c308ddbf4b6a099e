//! Learning curves (risk vs training size) and validation curves (risk vs hyperparameter), as
//! serializable data with standard-error bands; the CLI draws them.
//!
//! - Learning curve of the rule `A_m`: for each training size s, V Monte-Carlo splits with
//!   exactly s training rows (uniform s-subsets, validated on the other n − s rows; size index t
//!   uses the seed `seed.child(Purpose::Splits, t)`), estimated by
//!   [`estimate_risk`](super::estimate_risk): mean ± `sd_j/√V`.
//! - Validation curve of a family: the CV curve `CV(A_m)` of every grid point over one set of
//!   splits, from [`evaluate_splits`] (the whole path per split), with `sd_j/√V` bands; or read
//!   from a selection [`Report`]'s curve ([`ValidationCurve::from_report`]), so a plot of a
//!   selection run needs no second pass.

use serde::{Deserialize, Serialize};

use super::cv::{EstimateConfig, RiskSummary, estimate_risk_with, resolve_losses, summaries_of};
use crate::data::{Dataset, Preprocess};
use crate::engine::Executor;
use crate::error::{Error, Result};
use crate::family::Family;
use crate::loss::Loss;
use crate::resample::{MonteCarlo, Splits};
use crate::seed::{Purpose, Seed};
use crate::select::{EvalOptions, Report, evaluate_splits};

/// Options of [`learning_curve`].
#[derive(Clone, Debug, PartialEq)]
pub struct LearningCurveConfig {
    /// Training sizes s (each in `1..n`), in the order to report.
    pub train_sizes: Vec<usize>,
    /// Monte-Carlo splits V per size (≥ 1).
    pub n_splits: usize,
    /// Seed of the splits.
    pub seed: Seed,
    /// Losses; empty = the task's default.
    pub losses: Vec<Loss>,
    /// Per-fold preprocessing.
    pub preprocess: Preprocess,
}

/// One point of a learning curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearningCurvePoint {
    /// Training size s.
    pub n_train: usize,
    /// Validation size n − s.
    pub n_validation: usize,
    /// Estimate ± standard error per loss.
    pub summaries: Vec<RiskSummary>,
    /// Per split, the risk under each loss.
    pub split_risks: Vec<Vec<f64>>,
}

/// A learning curve of one rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LearningCurve {
    /// The family's name.
    pub family: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// The rule's hyperparameter value.
    pub value: f64,
    /// Monte-Carlo splits per size.
    pub n_splits: usize,
    /// One point per training size.
    pub points: Vec<LearningCurvePoint>,
}

/// The learning curve of the rule `A_m` (`m = grid_index`), each size's splits run by `executor`.
///
/// # Errors
/// [`Error::InvalidParameter`] for no sizes, a size 0 or ≥ n, V = 0; as
/// [`estimate_risk`](super::estimate_risk) (e.g. k-NN with k larger than a training size).
pub fn learning_curve(
    family: &dyn Family,
    grid_index: usize,
    data: &Dataset,
    config: &LearningCurveConfig,
    executor: &dyn Executor,
) -> Result<LearningCurve> {
    let n = data.n_rows();
    if config.train_sizes.is_empty() {
        return Err(Error::invalid("train-sizes", "at least one size", "none"));
    }
    let estimate_config = EstimateConfig { losses: config.losses.clone(), preprocess: config.preprocess, ..EstimateConfig::default() };
    let points = config
        .train_sizes
        .iter()
        .enumerate()
        .map(|(t, &s)| {
            if s == 0 || s >= n {
                return Err(Error::invalid("train-sizes", "sizes between 1 and n − 1", format!("{s} with {n} rows")));
            }
            // τ = (s + ½)/n gives ⌊τn⌋ = s exactly.
            let plan = MonteCarlo::new(config.n_splits, (s as f64 + 0.5) / n as f64)?;
            let splits = plan.instantiate(n, config.seed.child(Purpose::Splits, t as u64))?;
            let est = estimate_risk_with(family, grid_index, data, &splits, &estimate_config, executor)?;
            Ok(LearningCurvePoint {
                n_train: s,
                n_validation: n - s,
                summaries: est.summaries,
                split_risks: est.splits.into_iter().map(|sc| sc.risks).collect(),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(LearningCurve {
        family: family.name().into(),
        hyperparameter: family.grid().name().into(),
        value: family.grid().value(grid_index),
        n_splits: config.n_splits,
        points,
    })
}

/// One grid point of a validation curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationPoint {
    /// Grid index m.
    pub grid_index: usize,
    /// Hyperparameter value.
    pub value: f64,
    /// `CV(A_m)` ± standard error per loss.
    pub summaries: Vec<RiskSummary>,
}

/// A validation curve: risk against the hyperparameter, with standard-error bands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationCurve {
    /// The family's name.
    pub family: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// Number of splits V.
    pub n_splits: usize,
    /// One point per grid value, in grid order.
    pub points: Vec<ValidationPoint>,
}

/// The validation curve of every grid point of `family` over `splits` (run by `executor`).
///
/// # Errors
/// As [`evaluate_splits`].
pub fn validation_curve(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    losses: &[Loss],
    preprocess: Preprocess,
    executor: &dyn Executor,
) -> Result<ValidationCurve> {
    let losses = resolve_losses(losses, data.task());
    let options = EvalOptions { losses: losses.clone(), preprocess, ..EvalOptions::default() };
    let outcomes = evaluate_splits(family, data, splits, &options, executor)?;
    let grid = family.grid();
    Ok(ValidationCurve {
        family: family.name().into(),
        hyperparameter: grid.name().into(),
        n_splits: splits.len(),
        points: (0..grid.len())
            .map(|m| ValidationPoint { grid_index: m, value: grid.value(m), summaries: summaries_of(&outcomes, &losses, m) })
            .collect(),
    })
}

impl ValidationCurve {
    /// The CV curve of a selection report (its selection loss only).
    pub fn from_report(report: &Report) -> Self {
        let single = report.splits.len() < 2;
        ValidationCurve {
            family: report.family.clone(),
            hyperparameter: report.hyperparameter.clone(),
            n_splits: report.splits.len(),
            points: report
                .grid
                .iter()
                .enumerate()
                .map(|(m, &value)| ValidationPoint {
                    grid_index: m,
                    value,
                    summaries: vec![RiskSummary {
                        loss: report.loss.clone(),
                        estimate: report.cv_curve.mean[m],
                        standard_error: (!single).then(|| report.cv_curve.standard_error[m]),
                    }],
                })
                .collect(),
        }
    }
}
