//! The risk of one rule `A_m` under any plan: hold-out, V-fold, repeated V-fold, Monte-Carlo,
//! leave-one-out, leave-p-out, bootstrap out-of-bag (`docs/PROCEDURES.md` § Cross-validation
//! estimates).
//!
//! `CV(A) = Σ_j w_j HO_{T_j}(A)` with `w_j = |T_jᶜ| / Σ_k |T_kᶜ|` — the size-weighted mean,
//! the plain mean when validation sets have equal sizes (LOO, LpO, Monte-Carlo, equal
//! blocks). Its standard error is
//!
//! `SE = sd_j(HO_{T_j}) / √V` (sample standard deviation, divisor V − 1),
//!
//! which for leave-one-out is `sd_i(γ(f_{−i}(x_i), y_i)) / √n`, the spread over points. The
//! splits of one plan share most of their training rows, so this standard error ignores their
//! correlation and is optimistic for repeated plans; compare procedures with the corrected
//! resampled t-test ([`corrected_resampled_t_test`](super::corrected_resampled_t_test)) instead.
//! With V = 1 (hold-out) there is no spread over splits and the standard error is `None`.
//!
//! One rule, not a grid: the rule is `(family, grid_index)`. Internally a one-point family refits
//! that grid point only (the slow path of one point is the fast path), so a large grid costs
//! nothing. The rejected alternative — evaluating the whole path and reading one column — wastes
//! the work of every other grid point for families whose path is not free.
//!
//! Closed-form leave-one-out: when the splits are leave-one-out, every loss is squared, no
//! preprocessing is asked for and the family is a linear smoother known to satisfy the
//! leave-one-out lemma (ridge, kernel ridge), `LOO = (1/n) Σ ((y_i − ŷ_i)/(1 − S_ii))²` replaces
//! the n refits (see [`smoother_risks`](super::smoother_risks); k-NN is excluded there, with the
//! reason).

use serde::{Deserialize, Serialize};

use super::closed_form;
use crate::data::{Dataset, Preprocess, Task, View};
use crate::engine::{
    EvalOptions, Executor, Job, Rayon, Sequential, SplitOutcome, check_evaluation, evaluate_splits, evaluate_units, summarize,
};
use crate::error::{Error, Result};
use crate::family::FamilySpec;
use crate::family::{Family, FittedPath, Grid, Model, RefitPath, Scale, SmootherPath};
use crate::loss::Loss;
use crate::predictions::Predictions;
use crate::resample::Splits;
use crate::select::{Aggregation, aggregate};

/// When the closed-form leave-one-out replaces the n refits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClosedFormPolicy {
    /// Use it whenever it is exact (see the module docs); refit otherwise (default).
    #[default]
    Auto,
    /// Always refit (the brute-force reference).
    Never,
}

/// Options of [`estimate_risk`] (a serde value).
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct EstimateConfig {
    /// Losses to report, in order; empty = the task's default loss (0–1 or squared).
    pub losses: Vec<Loss>,
    /// Preprocessing fitted on each training set.
    pub preprocess: Preprocess,
    /// Keep the out-of-fold predictions (see [`OutOfFold`]).
    pub keep_predictions: bool,
    /// Closed-form leave-one-out policy.
    pub closed_form: ClosedFormPolicy,
}

/// How the estimate was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EstimateMethod {
    /// The rule was refitted on every training set of the splits.
    Resampling,
    /// Closed-form leave-one-out of a linear smoother (one fit on all rows).
    ClosedFormLoo,
}

/// An estimate ± standard error for one loss.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RiskSummary {
    /// The loss's short name (`01`, `squared`, ...).
    pub loss: String,
    /// The estimate (size-weighted mean over splits).
    pub estimate: f64,
    /// `sd_j(R_j) / √V`; `None` with a single split.
    pub standard_error: Option<f64>,
}

/// One split's scores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitScore {
    /// Zero-based split index j.
    pub split: usize,
    /// |T_j| (with repeats for the bootstrap).
    pub n_train: usize,
    /// |T_jᶜ|.
    pub n_validation: usize,
    /// `HO_{T_j}` for each loss, in the order of [`RiskEstimate::summaries`].
    pub risks: Vec<f64>,
}

/// How the predictions a row received from several splits are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutOfFoldCombination {
    /// Regression: the mean of the row's predictions.
    Mean,
    /// Classification: the majority class among the row's predictions; ties go to the class
    /// predicted by the earliest split (the [`Aggregation::Vote`] rule with equal member risks).
    Vote,
}

/// One row's out-of-fold prediction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutOfFoldRow {
    /// Row index in the data set.
    pub row: usize,
    /// How many splits validated this row (1 for V-fold and LOO, R for R-times repeated V-fold,
    /// random for Monte-Carlo and the bootstrap).
    pub n_predictions: usize,
    /// The combined prediction (the class index for classification); `None` when no split
    /// validated the row.
    pub prediction: Option<f64>,
}

/// Out-of-fold predictions: for each row, the predictions of the rules that did not train on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutOfFold {
    /// How several predictions of one row are combined.
    pub combination: OutOfFoldCombination,
    /// One entry per data row, in row order.
    pub rows: Vec<OutOfFoldRow>,
}

/// The risk of one rule: estimates ± standard errors for several losses and the scores behind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RiskEstimate {
    /// The family's name.
    pub family: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// The hyperparameter's value (the rule).
    pub value: f64,
    /// The rule's grid index m in the family's grid.
    pub grid_index: usize,
    /// How the estimate was computed.
    pub method: EstimateMethod,
    /// Rows n of the data set.
    pub n_rows: usize,
    /// Number of splits V.
    pub n_splits: usize,
    /// One summary per loss, in the order asked for.
    pub summaries: Vec<RiskSummary>,
    /// Per-split scores.
    pub splits: Vec<SplitScore>,
    /// GCV `(1/n) Σ (y_i − ŷ_i)² / (1 − tr(S)/n)²`, when the closed form was used.
    pub gcv: Option<f64>,
    /// Out-of-fold predictions, when asked for.
    pub out_of_fold: Option<OutOfFold>,
}

/// Estimates the risk of the rule `A_m` (`m = grid_index` of `family`) over `splits`.
///
/// ```
/// use agghoo::{Seed, data::generators, family, resample::VFold};
/// use agghoo::estimate::{estimate_risk, EstimateConfig};
/// let data = generators::knn_problem(200, Seed(1))?;
/// let fam = family::build(family::FamilyKind::Knn, &family::FamilyParams::with_grid(family::GridSpec::parse("1:9:2")?), &data)?;
/// let splits = VFold::new(5)?.instantiate(200, Seed(2))?;
/// let est = estimate_risk(fam.as_ref(), 2, &data, &splits, &EstimateConfig::default())?; // k = 5
/// assert_eq!(est.value, 5.0);
/// assert_eq!(est.splits.len(), 5);
/// let mean = est.splits.iter().map(|s| s.risks[0]).sum::<f64>() / 5.0; // equal blocks
/// assert!((est.summaries[0].estimate - mean).abs() < 1e-12);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for a grid index out of range; every error of
/// [`evaluate_splits`] (splits of another data set, a loss that does not fit the task or the
/// predictions — log-loss without probabilities —, a failed fit naming split and grid point).
pub fn estimate_risk(
    family: &dyn Family,
    grid_index: usize,
    data: &Dataset,
    splits: &Splits,
    config: &EstimateConfig,
) -> Result<RiskEstimate> {
    estimate_risk_with(family, grid_index, data, splits, config, &Rayon)
}

/// [`estimate_risk`] with its splits run by `executor` (one unit per split; an observer on it
/// sees them and may cancel the run).
///
/// # Errors
/// As [`estimate_risk`]; [`Error::Interrupted`] when the observer cancels.
pub fn estimate_risk_with(
    family: &dyn Family,
    grid_index: usize,
    data: &Dataset,
    splits: &Splits,
    config: &EstimateConfig,
    executor: &dyn Executor,
) -> Result<RiskEstimate> {
    let rule = OnePoint::new(family, grid_index)?;
    splits.check_rows(data.n_rows())?;
    let losses = resolve_losses(&config.losses, data.task());
    if let Some(estimate) = closed_form_estimate(&rule, data, splits, config, &losses) {
        return Ok(estimate);
    }
    let outcomes =
        evaluate_splits(&rule, data, splits, &resampling_options(config, &losses), executor).map_err(|e| rule.rename_error(e))?;
    resampling_estimate(&rule, data, splits, config, &losses, &outcomes)
}

/// The closed-form leave-one-out estimate, when it is exact for this rule, plan and losses (a
/// linear smoother, no preprocessing, the squared loss, leave-one-out splits) and the smoother
/// is not numerically singular (`S_ii = 1` falls back to refitting).
fn closed_form_estimate(
    rule: &OnePoint<'_>,
    data: &Dataset,
    splits: &Splits,
    config: &EstimateConfig,
    losses: &[Loss],
) -> Option<RiskEstimate> {
    if !(config.closed_form == ClosedFormPolicy::Auto
        && config.preprocess.is_identity()
        && losses.iter().all(|l| *l == Loss::Squared)
        && closed_form::lemma_holds(rule.inner)
        && is_leave_one_out(splits))
    {
        return None;
    }
    let Ok(Some(cf)) = closed_form::one_rule(rule, data) else { return None };
    let residuals = cf.loo_residuals;
    let scores: Vec<SplitScore> = residuals
        .iter()
        .enumerate()
        .map(|(i, r)| SplitScore { split: i, n_train: data.n_rows() - 1, n_validation: 1, risks: vec![r * r; losses.len()] })
        .collect();
    let squares: Vec<f64> = residuals.iter().map(|r| r * r).collect();
    let (estimate, standard_error) = summarize(&squares, None);
    let summaries = losses.iter().map(|l| RiskSummary { loss: l.name(), estimate, standard_error }).collect();
    let out_of_fold = config.keep_predictions.then(|| OutOfFold {
        combination: OutOfFoldCombination::Mean,
        rows: residuals
            .iter()
            .enumerate()
            .map(|(i, r)| OutOfFoldRow { row: i, n_predictions: 1, prediction: Some(data.target().value(i) - r) })
            .collect(),
    });
    Some(rule.estimate(data, EstimateMethod::ClosedFormLoo, data.n_rows(), summaries, scores, Some(cf.gcv), out_of_fold))
}

/// The per-split options of a resampling estimate.
fn resampling_options(config: &EstimateConfig, losses: &[Loss]) -> EvalOptions {
    EvalOptions {
        losses: losses.to_vec(),
        tie: Default::default(),
        preprocess: config.preprocess,
        keep_selected_model: false,
        keep_predictions: config.keep_predictions,
    }
}

/// The resampling estimate from the outcomes of every split, in split order.
fn resampling_estimate(
    rule: &OnePoint<'_>,
    data: &Dataset,
    splits: &Splits,
    config: &EstimateConfig,
    losses: &[Loss],
    outcomes: &[SplitOutcome],
) -> Result<RiskEstimate> {
    let summaries = summaries_of(outcomes, losses, 0);
    let scores = outcomes
        .iter()
        .enumerate()
        .map(|(j, o)| SplitScore {
            split: j,
            n_train: o.n_train,
            n_validation: o.n_validation,
            risks: o.risks.iter().map(|r| r[0]).collect(),
        })
        .collect();
    let out_of_fold = if config.keep_predictions { Some(out_of_fold(data, splits, outcomes)?) } else { None };
    Ok(rule.estimate(data, EstimateMethod::Resampling, splits.len(), summaries, scores, None, out_of_fold))
}

/// The risk estimate of one rule as a [`Job`]: one unit per split (none when the exact
/// closed-form leave-one-out applies: the client computes it in [`Job::assemble`]).
#[derive(Clone, Serialize, Deserialize)]
pub struct EstimateJob {
    /// The family (grid, settings), rebuilt on the data by [`FamilySpec::build_for`].
    pub family: FamilySpec,
    /// The rule's grid index.
    pub grid_index: usize,
    /// The estimate's options.
    pub config: EstimateConfig,
    /// The splits.
    pub splits: Splits,
    /// Whether the closed form is used (decided on the data by [`EstimateJob::new`]).
    pub closed_form: bool,
}

impl EstimateJob {
    /// The job estimating grid point `grid_index` of `family` on `splits` of `data`, checked
    /// against the data.
    ///
    /// # Errors
    /// As [`estimate_risk`] before any fit.
    pub fn new(family: FamilySpec, grid_index: usize, config: EstimateConfig, data: &Dataset, splits: &Splits) -> Result<Self> {
        let mut job = Self { family, grid_index, config, splits: splits.clone(), closed_form: false };
        // The family is built once, by `prepare` (which also runs every check of the evaluation).
        let prepared = job.prepare(data)?;
        let rule = OnePoint::new(prepared.family.as_ref(), grid_index)?;
        job.closed_form = closed_form_estimate(&rule, data, splits, &job.config, &prepared.losses).is_some();
        Ok(job)
    }
}

/// What every unit of an [`EstimateJob`] shares on one process.
pub struct PreparedEstimate {
    family: Box<dyn Family>,
    losses: Vec<Loss>,
    options: EvalOptions,
}

impl Job for EstimateJob {
    type Outcome = SplitOutcome;
    type Prepared = PreparedEstimate;
    type Output = RiskEstimate;

    fn n_units(&self) -> usize {
        if self.closed_form { 0 } else { self.splits.len() }
    }

    fn prepare(&self, data: &Dataset) -> Result<PreparedEstimate> {
        let family = self.family.build_for(data, &self.config.preprocess)?;
        let losses = resolve_losses(&self.config.losses, data.task());
        let options = resampling_options(&self.config, &losses);
        {
            let rule = OnePoint::new(family.as_ref(), self.grid_index)?;
            self.splits.check_rows(data.n_rows())?;
            if !self.closed_form {
                check_evaluation(&rule, data, &self.splits, &options).map_err(|e| rule.rename_error(e))?;
            }
        }
        Ok(PreparedEstimate { family, losses, options })
    }

    /// One split's evaluation, its kernels on the whole pool, as a select job's unit (see there).
    fn evaluate_unit(&self, prepared: &PreparedEstimate, data: &Dataset, unit: usize, _: &dyn Executor) -> Result<SplitOutcome> {
        let rule = OnePoint::new(prepared.family.as_ref(), self.grid_index)?;
        evaluate_units(&rule, data, &self.splits, &[unit], &prepared.options, &Sequential)
            .map_err(|e| rule.rename_error(e))?
            .pop()
            .ok_or_else(|| Error::Internal(format!("split {unit} gave no outcome")))
    }

    fn assemble(&self, prepared: &PreparedEstimate, data: &Dataset, outcomes: Vec<SplitOutcome>) -> Result<RiskEstimate> {
        crate::engine::check_outcome_count(&outcomes, self.n_units())?;
        let rule = OnePoint::new(prepared.family.as_ref(), self.grid_index)?;
        if self.closed_form {
            return closed_form_estimate(&rule, data, &self.splits, &self.config, &prepared.losses)
                .ok_or_else(|| Error::Internal("the closed form applied when the job was made and not now".into()));
        }
        resampling_estimate(&rule, data, &self.splits, &self.config, &prepared.losses, &outcomes)
    }
}

/// The task's default loss when `losses` is empty.
pub(crate) fn resolve_losses(losses: &[Loss], task: Task) -> Vec<Loss> {
    if losses.is_empty() { vec![Loss::default_for(task)] } else { losses.to_vec() }
}

/// Summaries of grid point `grid_index` for every loss over the outcomes of [`evaluate_splits`].
pub(crate) fn summaries_of(outcomes: &[SplitOutcome], losses: &[Loss], grid_index: usize) -> Vec<RiskSummary> {
    let weights: Vec<f64> = outcomes.iter().map(|o| o.n_validation as f64).collect();
    losses
        .iter()
        .enumerate()
        .map(|(l, loss)| {
            let values: Vec<f64> = outcomes.iter().map(|o| o.risks[l][grid_index]).collect();
            let (estimate, standard_error) = summarize(&values, Some(&weights));
            RiskSummary { loss: loss.name(), estimate, standard_error }
        })
        .collect()
}

/// True when split i validates on row i alone and trains on every other row (the
/// leave-one-out plan, in any order of splits).
fn is_leave_one_out(splits: &Splits) -> bool {
    let n = splits.n_rows();
    if splits.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    splits.iter().all(|s| {
        let [i] = s.validation() else { return false };
        let complement = s.train().len() == n - 1 && s.train().windows(2).all(|w| w[0] < w[1]) && s.train().binary_search(i).is_err();
        let fresh = !std::mem::replace(&mut seen[*i], true);
        complement && fresh
    })
}

/// Row `i` of `p` as a one-row prediction.
fn row_of(p: &Predictions, i: usize) -> Predictions {
    match p {
        Predictions::Real(v) => Predictions::Real(vec![v[i]]),
        Predictions::Classes { labels, n_classes, proba, decision } => Predictions::Classes {
            labels: vec![labels[i]],
            n_classes: *n_classes,
            proba: proba.as_ref().map(|pr| pr[i * n_classes..(i + 1) * n_classes].to_vec()),
            decision: decision.as_ref().map(|d| vec![d[i]]),
        },
    }
}

/// Combines each row's validation predictions over the splits (mean or vote, via
/// [`aggregate`]).
fn out_of_fold(data: &Dataset, splits: &Splits, outcomes: &[SplitOutcome]) -> Result<OutOfFold> {
    let mut per_row: Vec<Vec<Predictions>> = vec![Vec::new(); data.n_rows()];
    for (split, outcome) in splits.iter().zip(outcomes) {
        let p = outcome.predictions.as_ref().and_then(|p| p.first()).ok_or_else(|| Error::Internal("predictions not kept".into()))?;
        for (pos, &row) in split.validation().iter().enumerate() {
            per_row[row].push(row_of(p, pos));
        }
    }
    let (combination, how) = match data.task() {
        Task::Regression => (OutOfFoldCombination::Mean, Aggregation::Mean),
        Task::Classification => (OutOfFoldCombination::Vote, Aggregation::Vote),
    };
    let rows = per_row
        .iter()
        .enumerate()
        .map(|(row, members)| {
            let prediction = match members.len() {
                0 => None,
                1 => Some(members[0].value(0)),
                _ => Some(aggregate(members, &[], how)?.value(0)),
            };
            Ok(OutOfFoldRow { row, n_predictions: members.len(), prediction })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(OutOfFold { combination, rows })
}

/// The rule `A_m` of a family as a one-point family: fitting it fits grid point m only.
pub(crate) struct OnePoint<'a> {
    inner: &'a dyn Family,
    grid_index: usize,
    grid: Grid,
}

impl<'a> OnePoint<'a> {
    /// The one-point family of `family` at `grid_index`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an index out of range.
    pub(crate) fn new(inner: &'a dyn Family, grid_index: usize) -> Result<Self> {
        let full = inner.grid();
        if grid_index >= full.len() {
            return Err(Error::invalid("grid_index", "below the grid's length", format!("{grid_index} for a grid of {}", full.len())));
        }
        // The one-point grid keeps the value and name; `Linear` accepts every finite value.
        let grid = Grid::new(full.name(), vec![full.value(grid_index)], Scale::Linear, full.larger_is_simpler())?;
        Ok(Self { inner, grid_index, grid })
    }

    /// The estimate of this rule from its parts.
    #[allow(clippy::too_many_arguments)]
    fn estimate(
        &self,
        data: &Dataset,
        method: EstimateMethod,
        n_splits: usize,
        summaries: Vec<RiskSummary>,
        splits: Vec<SplitScore>,
        gcv: Option<f64>,
        out_of_fold: Option<OutOfFold>,
    ) -> RiskEstimate {
        let full = self.inner.grid();
        RiskEstimate {
            family: self.inner.name().into(),
            hyperparameter: full.name().into(),
            value: full.value(self.grid_index),
            grid_index: self.grid_index,
            method,
            n_rows: data.n_rows(),
            n_splits,
            summaries,
            splits,
            gcv,
            out_of_fold,
        }
    }

    /// Errors name the rule's grid index in the full grid, not the one-point grid's 0.
    pub(crate) fn rename_error(&self, e: Error) -> Error {
        match e {
            Error::Fit { split, source, .. } => Error::Fit { split, grid_index: self.grid_index, source },
            other => other,
        }
    }
}

impl Family for OnePoint<'_> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.inner.task()
    }
    fn fit(&self, train: &View<'_>, _grid_index: usize) -> Result<Model> {
        self.inner.fit(train, self.grid_index)
    }
    fn fit_path<'b>(&'b self, train: &View<'b>) -> Result<Box<dyn FittedPath + 'b>> {
        Ok(Box::new(RefitPath::new(self, train.clone())))
    }
    fn exact_loo(&self) -> bool {
        self.inner.exact_loo()
    }
    fn sample_weight(&self) -> bool {
        self.inner.sample_weight()
    }
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        let m = self.grid_index;
        self.inner.linear_smoother(train).map(|r| {
            r.and_then(|mut s| {
                if m >= s.fitted.len() || m >= s.leverage.len() {
                    return Err(Error::Internal(format!("linear smoother of `{}` has no grid point {m}", self.inner.name())));
                }
                Ok(SmootherPath { fitted: vec![s.fitted.swap_remove(m)], leverage: vec![s.leverage.swap_remove(m)] })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resample::{LeaveOneOut, VFold};

    #[test]
    fn summarize_by_hand() {
        let (e, se) = summarize(&[1.0, 2.0, 3.0], None);
        assert_eq!(e, 2.0);
        assert!((se.unwrap() - (1.0f64 / 3.0).sqrt()).abs() < 1e-15); // sd = 1, /√3
        let (e, _) = summarize(&[1.0, 4.0], Some(&[3.0, 1.0]));
        assert_eq!(e, 1.75);
        assert_eq!(summarize(&[5.0], None), (5.0, None));
    }

    #[test]
    fn leave_one_out_is_recognised() {
        assert!(is_leave_one_out(&LeaveOneOut.instantiate(6).unwrap()));
        // V-fold with V = n is leave-one-out, whatever the order of its blocks.
        assert!(is_leave_one_out(&VFold::new(6).unwrap().instantiate(6, crate::Seed(1)).unwrap()));
        assert!(!is_leave_one_out(&VFold::new(3).unwrap().instantiate(6, crate::Seed(1)).unwrap()));
    }
}
