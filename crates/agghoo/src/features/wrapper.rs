//! Wrappers: a subset's score is an estimated risk of a learner trained on its columns.
//!
//! `score(S) = CV(A_m)` on `D[:, S]` (`docs/PROCEDURES.md` § Wrappers: the size-weighted mean of the
//! validation risks over the splits, with the standard error over splits), for one family at one
//! grid point m. The per-split work is [`select::evaluate_splits`](crate::select::evaluate_splits)
//! on [`Dataset::select_columns`]: the same preprocessing (fitted on each training set), losses
//! and failure reporting as every selection procedure, so a wrapper's risk is exactly the CV risk
//! the rest of the crate would report for that model. The *same* [`Splits`] are reused for every
//! candidate: comparisons between subsets are paired, not blurred by different splits.
//!
//! A categorical column is one feature: a subset holding it hands the family the whole column,
//! encoded by `preprocess` (one-hot, or ordinal) with the levels of each training set only.
//!
//! Any plan gives an estimator here: V-fold, repeated V-fold, Monte-Carlo, bootstrap
//! (out-of-bag validation). By default the family is evaluated at the fixed `grid_index` (a
//! one-point grid is the usual choice). Choosing m per subset by the minimum of the CV curve
//! would make every subset score optimistic, so that is not offered; instead
//! [`WrapperScorer::with_inner_selection`] runs a whole selection procedure
//! ([`select::select`](crate::select::select), e.g. CV or Agghoo over the grid) on each training
//! set `T_j` with an inner plan drawn on `T_j`, and scores the resulting predictor on `T_jᶜ`
//! (nested CV; cost × the inner plan's size).
//!
//! Candidates are scored as the units of the search's executor (the default
//! [`Scorer::score_changes`]), each split of a candidate a unit of its inner executor; results
//! are collected in order, so the search is deterministic for any executor and thread count.

use super::{Scorer, SkippedFeature, SubsetScore, constant_columns};
use crate::data::{Dataset, Preprocess};
use crate::engine::Executor;
use crate::error::{Error, Result};
use crate::family::Family;
use crate::loss::Loss;
use crate::resample::{Plan, PlanContext, Splits};
use crate::seed::{Purpose, Seed};
use crate::select::{self, EvalOptions, Method, SelectConfig, SplitOutcome, TieRule, cv_curve, evaluate_splits};

/// Scores subsets by the CV risk of `family` at `grid_index` over fixed `splits`.
pub struct WrapperScorer<'a> {
    family: &'a dyn Family,
    data: &'a Dataset,
    splits: &'a Splits,
    grid_index: usize,
    options: EvalOptions,
    skipped: Vec<SkippedFeature>,
    description: String,
    inner: Option<(Plan, Method, Seed)>,
}

impl<'a> WrapperScorer<'a> {
    /// A wrapper over `data`; `loss = None` means the task's default (0–1 / squared).
    ///
    /// # Errors
    /// [`Error::SplitsMismatch`] for splits of another data set; [`Error::InvalidParameter`] for
    /// a grid index outside the grid, and for data with categorical columns and a `preprocess`
    /// without their encoding; [`Error::TaskMismatch`] for a loss that does not fit the
    /// data (a family built for another task fails on the first subset scored, with the cause).
    pub fn new(
        family: &'a dyn Family,
        data: &'a Dataset,
        splits: &'a Splits,
        grid_index: usize,
        loss: Option<Loss>,
        preprocess: Preprocess,
    ) -> Result<Self> {
        splits.check_rows(data.n_rows())?;
        data.check_learnable()?;
        preprocess.check_encodes(data)?;
        let grid = family.grid();
        if grid_index >= grid.len() {
            return Err(Error::invalid("grid_index", "an index into the family's grid", format!("{grid_index} for {} values", grid.len())));
        }
        let loss = loss.unwrap_or(Loss::default_for(data.task()));
        loss.check_task(data.task())?;
        let description =
            format!("wrapper {} {}={} ({} splits, loss {})", family.name(), grid.name(), grid.value(grid_index), splits.len(), loss.name());
        // Missing values are imputed inside each training set, whatever the caller asked for.
        let preprocess = Preprocess { impute_median: preprocess.impute_median || data.has_missing(), ..preprocess };
        let options = EvalOptions { losses: vec![loss], tie: TieRule::First, preprocess, ..EvalOptions::default() };
        Ok(Self { family, data, splits, grid_index, options, skipped: constant_columns(data), description, inner: None })
    }
}

impl WrapperScorer<'_> {
    /// Selects the hyperparameter inside every training set instead of fixing it: on each split
    /// `(T_j, T_jᶜ)`, `method` runs over the family's whole grid with `plan` instantiated on `T_j`
    /// (seed `seed.child(Purpose::Inner, j)`), and its predictor is scored on `T_jᶜ`. The grid
    /// index given to [`WrapperScorer::new`] is then ignored.
    pub fn with_inner_selection(mut self, plan: Plan, method: Method, seed: Seed) -> Self {
        self.description =
            format!("wrapper {} with inner {} over {} ({} splits)", self.family.name(), method.name(), plan.describe(), self.splits.len());
        self.inner = Some((plan, method, seed));
        self
    }

    /// Nested scoring of one column subset: selection on each training set, risk on its validation set.
    fn nested(&self, columns: &Dataset, plan: &Plan, method: Method, seed: Seed, executor: &dyn Executor) -> Result<Vec<SplitOutcome>> {
        let loss = self.options.losses[0];
        let mut config = SelectConfig::new(method);
        config.loss = Some(loss);
        config.preprocess = super::for_columns(self.options.preprocess, columns);
        self.splits
            .iter()
            .enumerate()
            .map(|(j, split)| {
                let run = || -> Result<SplitOutcome> {
                    let train = columns.select_rows(split.train())?;
                    let validation = columns.select_rows(split.validation())?;
                    let inner = plan.instantiate(&PlanContext::of(&train), seed.child(Purpose::Inner, j as u64))?;
                    let (model, _) = select::select_with(self.family, &train, &inner, &config, executor)?;
                    let risk = loss.risk(&model.predict(&validation)?, &validation.all())?;
                    if !risk.is_finite() {
                        return Err(Error::NonFiniteRisk(format!("validation risk is {risk}")));
                    }
                    Ok(SplitOutcome {
                        risks: vec![vec![risk]],
                        selected: 0,
                        n_train: train.n_rows(),
                        n_validation: validation.n_rows(),
                        model: None,
                        predictions: None,
                    })
                };
                run().map_err(|e| Error::OuterSplit { split: j, source: Box::new(e) })
            })
            .collect()
    }
}

impl Scorer for WrapperScorer<'_> {
    fn describe(&self) -> String {
        self.description.clone()
    }
    fn feature_names(&self) -> &[String] {
        self.data.feature_names()
    }
    fn skipped(&self) -> &[SkippedFeature] {
        &self.skipped
    }
    fn score(&self, subset: &[usize], executor: &dyn Executor) -> Result<SubsetScore> {
        if subset.is_empty() {
            return Err(Error::invalid("subset", "at least one feature", "an empty subset"));
        }
        let names = || subset.iter().map(|&j| self.data.feature_names().get(j).map_or("?", String::as_str)).collect::<Vec<_>>().join(",");
        let run = || -> Result<SubsetScore> {
            let columns = self.data.select_columns(subset)?;
            if let Some((plan, method, seed)) = &self.inner {
                let curve = cv_curve(&self.nested(&columns, plan, *method, *seed, executor)?);
                return Ok(SubsetScore { value: curve.mean[0], standard_error: curve.standard_error[0] });
            }
            let options = EvalOptions { preprocess: super::for_columns(self.options.preprocess, &columns), ..self.options.clone() };
            let outcomes = evaluate_splits(self.family, &columns, self.splits, &options, executor)?;
            let curve = cv_curve(&outcomes);
            Ok(SubsetScore { value: curve.mean[self.grid_index], standard_error: curve.standard_error[self.grid_index] })
        };
        run().map_err(|source| Error::FeatureSubset { features: names(), source: Box::new(source) })
    }
}
