//! Feature selection done honestly (`docs/PROCEDURES.md` § Feature selection): filters, wrappers,
//! embedded methods, the sequential searches, and selection redone inside every outer training
//! fold.
//!
//! ## Pieces
//! - [`filters`](crate::features::rank_features): univariate scores (absolute Pearson correlation,
//!   mutual information) giving a ranking, and the CFS merit of a subset ([`CfsScorer`]).
//! - [`WrapperScorer`]: a subset's score is the estimated risk (mean ± standard error over the
//!   splits) of a family at a fixed grid point trained on the subset's columns; the same
//!   [`Splits`](crate::resample::Splits) serve every candidate.
//! - [`search`]: SFS, SBS, SFFS, SBFS and exhaustive search over any [`Scorer`], stopped by a
//!   number of features, a range, the best score or the parsimonious rule.
//! - [`embedded_select`]: Lasso / elastic-net support and forest importance.
//! - [`evaluate_honestly`]: the whole selection inside every outer training fold, next to the
//!   naive estimate (selection on all the data, then CV), so the selection bias is visible.
//!
//! ## One direction: lower is better
//! Every subset score is *minimised*, as a risk is. Filters that are maximised (CFS merit) are
//! negated by their scorer ([`SubsetScore::value`] = −merit). The rejected alternative, a
//! direction flag on the trait, would put an `if maximise` in every comparison of the searches
//! and the report; negation puts it in one place.
//!
//! ## Missing values
//! Data read with missing values kept for imputation (the CLI's `--missing median`) are imputed
//! with the medians of the rows the selection is given, never of other rows: in honest
//! evaluation, the outer training set. Filters, CFS and forest importances impute those rows
//! once; wrappers and the Lasso / elastic net impute inside each of their own inner training
//! sets (their fits' preprocessing), as every fit of the crate does.
//!
//! ## Constant features
//! A zero-variance column has no correlation with anything (0/0). Scorers never offer such
//! columns to a search: they are listed in the report as [`SkippedFeature`] with the reason, and
//! no NaN is ever produced. In honest evaluation this is decided per training fold.
//!
//! ## Categorical columns
//! A categorical (text) column is **one candidate feature**, whatever number of columns its
//! encoding gives a family (as mlr3 selects a task's features, not dummy columns); every report
//! names the original columns.
//! - Filters and CFS score it by Hall's (1999) rule for nominal attributes: the correlation of a
//!   categorical column `X` with a numeric variable `Y` is `Σ_k p(X = k) |r(1{X = k}, Y)|`, with
//!   another categorical one (or a multi-class target) `Σ_k Σ_l p(X = k, Z = l) |r(1{X = k}, 1{Z = l})|`
//!   (the same rule the Pearson filter already applies to a multi-class target); the mutual
//!   information filter treats it as a discrete variable. A missing value is a level of its own.
//! - Wrappers add or remove the whole column; its encoding (one-hot, or ordinal for trees) is
//!   learned on each inner training set only, as in every fit of the crate, so a level seen only
//!   in validation rows is unknown to the fit, and missing values follow the preprocessing's
//!   [`MissingCategory`](crate::data::MissingCategory).
//! - Embedded methods: the Lasso / elastic net select a column when any of its one-hot columns
//!   has a non-zero coefficient (its score the largest |coefficient| among them); forests read it
//!   ordinally encoded, one column, so its importance is the column's.

mod embedded;
mod filters;
mod honest;
mod search;
mod wrapper;

pub use embedded::{EmbeddedMethod, EmbeddedReport, Importance, embedded_select};
pub use filters::{
    CfsScorer, Discreteness, FeatureScore, Filter, FilterReport, cfs_merit, digamma, mutual_information, rank_features, rank_features_with,
};
pub use honest::{
    FeatureFrequency, FoldSelection, HonestConfig, HonestJob, HonestOutcome, HonestReport, Learner, RiskEstimate, ScorerSpec, Selection,
    SelectionDetails, Selector, evaluate_honestly, evaluate_honestly_with, select_features, select_features_with,
};
pub use search::{SearchConfig, SearchMethod, SearchReport, SizeResult, Stopping, TraceStep, search, search_with};
pub use wrapper::WrapperScorer;

use serde::{Deserialize, Serialize};

use crate::data::Preprocess;
use crate::engine::{Executor, Inner, map_ordered};
use crate::error::Result;

/// The score of one feature subset: lower is better (a risk, or a negated merit).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubsetScore {
    /// The value minimised by the searches (estimated risk; −merit for CFS).
    pub value: f64,
    /// Its standard error (over the splits for wrappers; 0 for filters). Used by the
    /// parsimonious stopping rule.
    pub standard_error: f64,
}

/// A feature that a scorer never offers to a search, with the reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkippedFeature {
    /// Column index in the data.
    pub index: usize,
    /// Column name.
    pub name: String,
    /// Why it was skipped (for example "constant (zero variance)").
    pub reason: String,
}

/// A one-feature change of a subset, as the sequential searches make them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// `S ∪ {j}`.
    Add,
    /// `S \ {j}`.
    Remove,
}

/// Scores feature subsets for a search. Subsets are given sorted ascending, never empty.
///
/// One required scoring method, [`Scorer::score`]; [`Scorer::score_changes`] scores many
/// one-feature changes of one subset and defaults to scoring each as a unit of the executor
/// (results in input order, so deterministic). Scorers with incremental updates (CFS) override
/// it. Both take the [`Executor`] their work runs on: a scorer's own parallel parts (a wrapper's
/// splits) go through it, so a caller's executor and observer reach every unit.
pub trait Scorer: Sync {
    /// A short description for reports (`cfs`, `wrapper knn k=5, 5-fold`).
    fn describe(&self) -> String;
    /// Names of all columns of the data (indices of subsets refer to them).
    fn feature_names(&self) -> &[String];
    /// Columns never offered to a search (constant ones), with the reason.
    fn skipped(&self) -> &[SkippedFeature];
    /// The score of `subset` (sorted ascending, non-empty), its parallel parts run by `executor`.
    ///
    /// # Errors
    /// The scorer's own failures, naming the subset ([`crate::Error::FeatureSubset`]).
    fn score(&self, subset: &[usize], executor: &dyn Executor) -> Result<SubsetScore>;
    /// Scores of `base ∪ {j}` (or `base \ {j}`) for every `j` of `candidates`, in order: each
    /// candidate a unit of `executor`.
    ///
    /// # Errors
    /// As [`Scorer::score`].
    fn score_changes(&self, base: &[usize], change: Change, candidates: &[usize], executor: &dyn Executor) -> Result<Vec<SubsetScore>> {
        map_ordered(executor, candidates.len(), |i| {
            self.score(&apply_change(base, change, candidates[i]), &Inner::new(executor, candidates.len()))
        })
    }
    /// The usable columns: every column not in [`Scorer::skipped`], ascending.
    fn usable(&self) -> Vec<usize> {
        let skipped = self.skipped();
        (0..self.feature_names().len()).filter(|j| !skipped.iter().any(|s| s.index == *j)).collect()
    }
}

/// `base ∪ {j}` or `base \ {j}`, kept sorted.
pub(crate) fn apply_change(base: &[usize], change: Change, j: usize) -> Vec<usize> {
    let mut s: Vec<usize> = base.iter().copied().filter(|&i| i != j).collect();
    if change == Change::Add {
        let at = s.partition_point(|&i| i < j);
        s.insert(at, j);
    }
    s
}

/// `data` with the missing values of its numeric columns replaced by the medians of its own rows
/// (unchanged without missing values): what the selectors that read feature values directly
/// score. Categorical columns keep their codes (a missing one stays NaN, a level of its own).
pub(crate) fn impute_own_medians(data: &crate::data::Dataset) -> Result<std::borrow::Cow<'_, crate::data::Dataset>> {
    if !data.has_missing() {
        return Ok(std::borrow::Cow::Borrowed(data));
    }
    let all = data.all();
    let imputed = Preprocess { impute_median: true, standardize: false, ..Default::default() }.fit(&all).apply(&all)?;
    if !data.has_categorical() {
        return Ok(std::borrow::Cow::Owned(imputed));
    }
    let d = data.n_features();
    let mut x = imputed.x().to_vec();
    for (i, v) in x.iter_mut().enumerate() {
        if data.levels(i % d).is_some() {
            *v = data.x()[i];
        }
    }
    Ok(std::borrow::Cow::Owned(imputed.with_x(x)))
}

/// `preprocess` for a subset of columns: its categorical encoding kept only when the subset has a
/// categorical column, so that numeric subsets keep the exact numeric path.
pub(crate) fn for_columns(preprocess: Preprocess, columns: &crate::data::Dataset) -> Preprocess {
    Preprocess { categorical: preprocess.categorical.filter(|_| columns.has_categorical()), ..preprocess }
}

/// Columns with a single value over the rows (zero variance), as skipped features.
pub(crate) fn constant_columns(data: &crate::data::Dataset) -> Vec<SkippedFeature> {
    let d = data.n_features();
    let n = data.n_rows();
    let x = data.x();
    (0..d)
        .filter(|&j| {
            let first = x[j];
            (1..n).all(|i| x[i * d + j] == first)
        })
        .map(|j| SkippedFeature { index: j, name: data.feature_names()[j].clone(), reason: "constant (zero variance)".into() })
        .collect()
}
