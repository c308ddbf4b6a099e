//! Honest evaluation of a feature-selection procedure (`docs/PROCEDURES.md` § Honest evaluation).
//!
//! A selection procedure ([`Selector`]: a filter ranking, a search with CFS or a wrapper, an
//! embedded method) is a supervised step, so its risk estimate needs an outer loop: for each
//! outer split `(T_j, T_jᶜ)`, the *whole* selection runs on `D_{T_j}` only (its inner plan is
//! instantiated on `T_j`, constant features are judged on `T_j`), the learner is trained on
//! `D_{T_j}` restricted to the selected columns `S_j`, and its risk is measured on the outer test
//! rows `T_jᶜ`:
//!
//! `honest = Σ_j (|T_jᶜ| / Σ_k |T_kᶜ|) · R_{T_jᶜ}(A(D_{T_j}[:, S_j]))`, with the standard error
//! over the outer splits (the same reduction as every CV curve of the crate).
//!
//! Next to it, the *naive* estimate, the usual mistake: select `S` once on all of
//! D, then cross-validate the learner on `D[:, S]` over the same outer splits. The gap
//! `naive − honest` (usually negative) is the selection bias. The report also lists the features
//! chosen in each fold and how often each was chosen (selection stability), with the mean
//! pairwise Jaccard similarity of the fold subsets.
//!
//! Per-fold randomness: fold j's selection uses `seed.child(Purpose::Inner, j)`; the naive
//! selection uses `seed` itself, i.e. exactly what [`select_features`] does when run alone.
//! Outer folds run in parallel and are collected in order.

use serde::{Deserialize, Serialize};

use super::{
    CfsScorer, EmbeddedMethod, EmbeddedReport, Filter, FilterReport, SearchConfig, SearchReport, WrapperScorer, embedded_select,
    rank_features_with, search_with,
};
use crate::data::{Dataset, Preprocess};
use crate::engine::{self, Executor, Job, Rayon};
use crate::error::{Error, Result};
use crate::family::forest::ForestConfig;
use crate::family::lasso::LassoConfig;
use crate::family::{Family, FamilyKind, FamilySpec, Rule};
use crate::loss::Loss;
use crate::resample::{Plan, PlanContext, Splits};
use crate::seed::{Purpose, Seed};
use crate::select::{EvalOptions, SplitOutcome, cv_curve, evaluate_splits};

/// A learner at a fixed hyperparameter: a family whose grid has exactly one value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Learner {
    /// The family; its grid must have one value (for example `k = 5`: see [`Rule::spec`]).
    pub family: FamilySpec,
}

impl Learner {
    /// Builds the family for `data` as the fits will see it after `preprocess` (so data-dependent
    /// defaults are computed on that scale, as [`FamilySpec::build_for`] does for the CLI).
    ///
    /// # Errors
    /// The family's build errors; [`Error::InvalidParameter`] when the grid has several values.
    pub fn build(&self, data: &Dataset, preprocess: &Preprocess) -> Result<Box<dyn Family>> {
        let fam = self.family.build_for(data, preprocess)?;
        if fam.grid().len() != 1 {
            return Err(Error::invalid(
                "grid",
                "a single value (the learner's fixed hyperparameter)",
                format!("{} values", fam.grid().len()),
            ));
        }
        Ok(fam)
    }
}

/// How subsets are scored by a search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "scorer", rename_all = "snake_case")]
pub enum ScorerSpec {
    /// CFS merit (Hall 1999).
    Cfs,
    /// CV risk of a learner over an inner plan.
    Wrapper {
        /// The learner.
        learner: Learner,
        /// The inner plan (instantiated on the data the selection sees).
        plan: Plan,
        /// The loss (`None`: the task's default).
        loss: Option<Loss>,
        /// Per-split preprocessing.
        preprocess: Preprocess,
    },
}

/// A complete feature-selection procedure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "selector", rename_all = "snake_case")]
pub enum Selector {
    /// The `n_features` best-ranked features of a univariate filter.
    Ranking {
        /// The filter.
        filter: Filter,
        /// How many to keep.
        n_features: usize,
    },
    /// A search over subsets.
    Search {
        /// The subset scorer.
        scorer: ScorerSpec,
        /// The strategy and stopping rule.
        search: SearchConfig,
    },
    /// An embedded method.
    Embedded(EmbeddedMethod),
}

impl Learner {
    /// `FAMILY:VALUE`, a family at one hyperparameter value (`knn:5`, `ridge:0.1`): the CLI's
    /// `--learner` and `wrapper:` forms.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another form, an unknown family or a value that is not a number.
    pub fn parse(text: &str) -> Result<Self> {
        let (family, value) = text.split_once(':').ok_or_else(|| Error::invalid("learner", "FAMILY:VALUE, e.g. knn:5", text))?;
        let family = FamilyKind::parse(family)?;
        let value: f64 = value.trim().parse().map_err(|_| Error::invalid("learner", "FAMILY:VALUE with a number as VALUE", text))?;
        Ok(Self { family: Rule { family: FamilySpec::default_for(family), value }.spec()? })
    }
}

impl Selector {
    /// The selection procedure named as the CLI's `features` names it: `method` one of the
    /// searches (`sfs`, `sbs`, `sffs`, `sbfs`, `exhaustive`) scored by `scorer` (`cfs` or
    /// `wrapper:FAMILY:VALUE`, whose inner CV uses `inner` and `preprocess`), a filter ranking
    /// (`pearson`, `mi`) or an embedded method (`lasso`, `enet` — λ chosen by CV on `inner` —,
    /// `forest-impurity`, `forest-permutation`); `n_features` is `K`, `MIN:MAX`, `best` or
    /// `parsimonious` for the searches and `K` for rankings and forests.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the option that is not one of these forms.
    pub fn parse(method: &str, scorer: &str, n_features: &str, inner: &Plan, preprocess: Preprocess) -> Result<Self> {
        let count = || -> Result<usize> {
            n_features.trim().parse().map_err(|_| Error::invalid("features", "a number of features K for this method", n_features))
        };
        let wrapper = match scorer.strip_prefix("wrapper:") {
            Some(spec) => Some(Learner::parse(spec)?),
            None if scorer == "cfs" => None,
            None => return Err(Error::invalid("scorer", "cfs or wrapper:FAMILY:VALUE", scorer)),
        };
        Ok(match method {
            "pearson" => Selector::Ranking { filter: Filter::Pearson, n_features: count()? },
            "mi" => Selector::Ranking {
                filter: Filter::MutualInformation { n_neighbors: 3, discreteness: super::Discreteness::Auto },
                n_features: count()?,
            },
            "lasso" | "enet" => Selector::Embedded(EmbeddedMethod::LassoSupport {
                elastic_net: method == "enet",
                config: if method == "enet" { LassoConfig::enet() } else { LassoConfig::lasso() },
                plan: inner.clone(),
                standardize: preprocess.standardize,
                missing_category: missing_category(&preprocess),
            }),
            "forest-impurity" | "forest-permutation" => Selector::Embedded(EmbeddedMethod::ForestImportance {
                config: ForestConfig::default(),
                importance: if method == "forest-impurity" { super::Importance::Impurity } else { super::Importance::Permutation },
                n_features: count()?,
                missing_category: missing_category(&preprocess),
            }),
            search => {
                let scorer = match wrapper {
                    Some(learner) => ScorerSpec::Wrapper { learner, plan: inner.clone(), loss: None, preprocess },
                    None => ScorerSpec::Cfs,
                };
                Selector::Search {
                    scorer,
                    search: SearchConfig::new(super::SearchMethod::parse(search)?, super::Stopping::parse(n_features)?),
                }
            }
        })
    }

    /// The learner a wrapper search scores subsets with, if it is one (the default learner of
    /// an honest evaluation).
    pub fn wrapper_learner(&self) -> Option<&Learner> {
        match self {
            Selector::Search { scorer: ScorerSpec::Wrapper { learner, .. }, .. } => Some(learner),
            _ => None,
        }
    }
}

/// What a missing categorical value becomes in `preprocess` (a level of its own by default).
fn missing_category(preprocess: &Preprocess) -> crate::data::MissingCategory {
    preprocess.categorical.map(|c| c.missing).unwrap_or_default()
}

/// The details of a selection, by kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SelectionDetails {
    /// A filter's ranking.
    Ranking(FilterReport),
    /// A search's report.
    Search(SearchReport),
    /// An embedded method's report.
    Embedded(EmbeddedReport),
}

/// The features a selector chose, with its report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// Selected columns, ascending.
    pub features: Vec<usize>,
    /// Their names.
    pub names: Vec<String>,
    /// The selector's own report.
    pub details: SelectionDetails,
}

/// Runs `selector` on `data` (all of it); `seed` drives inner plans and learners.
///
/// A selection is never empty: the searches never score the empty set, rankings and forests keep
/// at least one feature, and a Lasso / elastic-net support with no non-zero coefficient is
/// refused rather than handed to a learner with no column to learn from.
///
/// # Errors
/// The selector's errors: too many features requested, an exhaustive search over its limit, a
/// wrapper failing on a subset ([`Error::FeatureSubset`]), unsupported embedded methods;
/// [`Error::EmptySelection`] when no feature was selected.
pub fn select_features(selector: &Selector, data: &Dataset, seed: Seed) -> Result<Selection> {
    select_features_with(selector, data, seed, &Rayon)
}

/// As [`select_features`], the scoring's units (columns, candidate subsets, splits) run by
/// `executor`.
///
/// # Errors
/// As [`select_features`].
pub fn select_features_with(selector: &Selector, data: &Dataset, seed: Seed, executor: &dyn Executor) -> Result<Selection> {
    let (mut features, details) = match selector {
        Selector::Ranking { filter, n_features } => {
            let report = rank_features_with(data, filter, executor)?;
            if *n_features == 0 || *n_features > report.ranking.len() {
                return Err(Error::InvalidParameter {
                    name: "features",
                    expected: "between 1 and the number of usable (non-constant) features",
                    got: format!("{n_features} requested, {} usable", report.ranking.len()),
                });
            }
            (report.ranking.iter().take(*n_features).map(|s| s.index).collect(), SelectionDetails::Ranking(report))
        }
        Selector::Search { scorer, search: config } => {
            let report = match scorer {
                ScorerSpec::Cfs => search_with(&CfsScorer::new_with(data, executor)?, config, executor)?,
                ScorerSpec::Wrapper { learner, plan, loss, preprocess } => {
                    let fam = learner.build(data, preprocess)?;
                    let splits = plan.instantiate(&PlanContext::of(data), seed)?;
                    search_with(&WrapperScorer::new(fam.as_ref(), data, &splits, 0, *loss, *preprocess)?, config, executor)?
                }
            };
            (report.selected.clone(), SelectionDetails::Search(report))
        }
        Selector::Embedded(method) => {
            let report = embedded_select(method, data, seed)?;
            (report.selected.clone(), SelectionDetails::Embedded(report))
        }
    };
    if features.is_empty() {
        return Err(empty_selection(&details));
    }
    features.sort_unstable();
    let names = features.iter().map(|&j| data.feature_names()[j].clone()).collect();
    Ok(Selection { features, names, details })
}

fn empty_selection(details: &SelectionDetails) -> Error {
    let (selector, reason) = match details {
        SelectionDetails::Embedded(r) => (
            r.method.clone(),
            match r.hyperparameter {
                Some(h) => format!("every coefficient is zero at the value chosen by CV ({h}): no learner can be trained on no column"),
                None => "no learner can be trained on no column".into(),
            },
        ),
        SelectionDetails::Ranking(_) => ("the ranking".into(), "no learner can be trained on no column".into()),
        SelectionDetails::Search(r) => (format!("the search ({})", r.scorer), "no learner can be trained on no column".into()),
    };
    Error::EmptySelection { selector, reason }
}

/// Configuration of [`evaluate_honestly`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HonestConfig {
    /// The selection procedure.
    pub selector: Selector,
    /// The learner trained on the selected features.
    pub learner: Learner,
    /// The evaluation loss (`None`: the task's default).
    pub loss: Option<Loss>,
    /// Preprocessing of the learner, fitted on each training set.
    pub preprocess: Preprocess,
    /// Seed of the selections' randomness.
    pub seed: Seed,
}

/// A risk estimate with its standard error over the outer splits.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RiskEstimate {
    /// Size-weighted mean of the outer test risks.
    pub mean: f64,
    /// Standard deviation of the split risks over √V (0 for one split).
    pub standard_error: f64,
}

/// What one outer fold selected and how its model did on the outer test rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FoldSelection {
    /// Zero-based outer split.
    pub fold: usize,
    /// |T_j|.
    pub n_train: usize,
    /// |T_jᶜ|.
    pub n_test: usize,
    /// The selection made on `T_j` only.
    pub selection: Selection,
    /// Outer test risk of the learner on the selected columns.
    pub test_risk: f64,
}

/// How often a feature was selected over the outer folds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureFrequency {
    /// Column index.
    pub index: usize,
    /// Column name.
    pub name: String,
    /// Number of folds that selected it.
    pub count: usize,
    /// `count / V`.
    pub fraction: f64,
}

/// The honest and naive estimates side by side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HonestReport {
    /// The learner's family name.
    pub learner: String,
    /// The evaluation loss.
    pub loss: String,
    /// Number of outer splits V.
    pub n_folds: usize,
    /// Selection inside every outer training fold.
    pub honest: RiskEstimate,
    /// Selection once on all data, then CV over the same outer splits (optimistic).
    pub naive: RiskEstimate,
    /// `naive.mean − honest.mean`: the selection bias (negative when the naive one is optimistic).
    pub selection_bias: f64,
    /// Per-fold selections and test risks.
    pub folds: Vec<FoldSelection>,
    /// Features selected in at least one fold: by decreasing count, then column order.
    pub frequency: Vec<FeatureFrequency>,
    /// Mean Jaccard similarity `|S_i ∩ S_j| / |S_i ∪ S_j|` over pairs of folds (1 = stable;
    /// 1 as well for a single fold).
    pub mean_jaccard: f64,
    /// The selection made on all data (the naive estimate's subset; what a user would deploy).
    pub naive_selection: Selection,
}

/// Runs the selection inside every outer training fold and reports the honest estimate next to
/// the naive one (see the module docs for the exact definitions).
///
/// # Errors
/// [`Error::SplitsMismatch`]; [`Error::OuterSplit`] naming the outer split whose selection
/// failed (with the cause, [`Error::EmptySelection`] among them); [`Error::Fit`] /
/// [`Error::SplitFailed`] naming the outer split whose learner failed; the naive selection's errors.
pub fn evaluate_honestly(data: &Dataset, outer: &Splits, config: &HonestConfig) -> Result<HonestReport> {
    evaluate_honestly_with(data, outer, config, &Rayon)
}

/// As [`evaluate_honestly`], the outer folds (and the naive selection) as the units of
/// `executor`; the work inside a fold runs on [`Inner`](engine::Inner) of it.
///
/// # Errors
/// As [`evaluate_honestly`].
pub fn evaluate_honestly_with(data: &Dataset, outer: &Splits, config: &HonestConfig, executor: &dyn Executor) -> Result<HonestReport> {
    engine::run(&HonestJob { config: config.clone(), outer: outer.clone() }, data, executor)
}

/// The honest evaluation as a [`Job`]: one unit per outer fold (the selection on `T_j` and the
/// learner's test risk), and one more for the naive selection on all rows (and the learner on its
/// columns over the outer splits) — each a pure function
/// of the data, the configuration and the unit's index (fold j's seed is `seed.child(Inner, j)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HonestJob {
    /// The selection, the learner and the seed.
    pub config: HonestConfig,
    /// The outer splits.
    pub outer: Splits,
}

/// What a unit of a [`HonestJob`] gives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "unit", rename_all = "snake_case")]
pub enum HonestOutcome {
    /// An outer fold: what it selected on `T_j` and the learner's outcome on `T_jᶜ`.
    Fold {
        /// The selection made on the fold's training rows.
        selection: Selection,
        /// The learner on the selected columns, evaluated on the fold's test rows.
        outcome: SplitOutcome,
    },
    /// The naive selection, made once on all rows, and the learner on its columns evaluated on
    /// every outer split (the last unit).
    Naive {
        /// The selection made on all rows.
        selection: Selection,
        /// The learner on the selected columns, on every outer split in split order.
        outcomes: Vec<SplitOutcome>,
    },
}

/// The learner on the `features` columns of `data`, evaluated on `splits`: built on `built_on`'s
/// rows (a fold's training set, or every row), its categorical encoding kept only when those
/// columns have a categorical one.
fn learner_outcomes(
    config: &HonestConfig,
    data: &Dataset,
    built_on: &Dataset,
    features: &[usize],
    splits: &Splits,
    options: &EvalOptions,
    executor: &dyn Executor,
) -> Result<Vec<SplitOutcome>> {
    let columns = data.select_columns(features)?;
    let preprocess = super::for_columns(config.preprocess, &columns);
    let fam = config.learner.build(&built_on.select_columns(features)?, &preprocess)?;
    evaluate_splits(fam.as_ref(), &columns, splits, &EvalOptions { preprocess, ..options.clone() }, executor)
}

impl HonestJob {
    fn fold(&self, data: &Dataset, options: &EvalOptions, j: usize, executor: &dyn Executor) -> Result<HonestOutcome> {
        let split = self.outer.as_slice().get(j).ok_or_else(|| Error::invalid("unit", "an outer fold index", j))?;
        let config = &self.config;
        let train = data.select_rows(split.train()).map_err(|e| e.at_split(j))?;
        // The selection resamples inside T_j (its errors name inner splits): an outer split.
        let selection = select_features_with(&config.selector, &train, config.seed.child(Purpose::Inner, j as u64), executor)
            .map_err(|e| Error::OuterSplit { split: j, source: Box::new(e) })?;
        // The learner's fit on T_j is this split's own work: its error is numbered j, once.
        let evaluate = || -> Result<SplitOutcome> {
            let one = Splits::new(data.n_rows(), vec![split.clone()])?;
            learner_outcomes(config, data, &train, &selection.features, &one, options, executor)?
                .pop()
                .ok_or_else(|| Error::Internal("no outcome for one split".into()))
        };
        let outcome = evaluate().map_err(|e| e.at_split(j))?;
        Ok(HonestOutcome::Fold { selection, outcome })
    }
}

impl Job for HonestJob {
    type Outcome = HonestOutcome;
    type Prepared = (Loss, EvalOptions);
    type Output = HonestReport;

    fn n_units(&self) -> usize {
        self.outer.len() + 1
    }

    fn prepare(&self, data: &Dataset) -> Result<(Loss, EvalOptions)> {
        self.outer.check_rows(data.n_rows())?;
        data.check_learnable()?;
        let loss = self.config.loss.unwrap_or(Loss::default_for(data.task()));
        Ok((loss, EvalOptions { losses: vec![loss], preprocess: self.config.preprocess, ..EvalOptions::default() }))
    }

    fn evaluate_unit(
        &self,
        (_, options): &(Loss, EvalOptions),
        data: &Dataset,
        unit: usize,
        inner: &dyn Executor,
    ) -> Result<HonestOutcome> {
        if unit < self.outer.len() {
            self.fold(data, options, unit, inner)
        } else {
            let selection = select_features_with(&self.config.selector, data, self.config.seed, inner)?;
            let outcomes = learner_outcomes(&self.config, data, data, &selection.features, &self.outer, options, inner)?;
            Ok(HonestOutcome::Naive { selection, outcomes })
        }
    }

    fn assemble(&self, (loss, _): &(Loss, EvalOptions), data: &Dataset, outcomes: Vec<HonestOutcome>) -> Result<HonestReport> {
        engine::check_outcome_count(&outcomes, self.n_units())?;
        let mut folds = Vec::with_capacity(self.outer.len());
        let mut naive = None;
        for o in outcomes {
            match o {
                HonestOutcome::Fold { selection, outcome } => folds.push((selection, outcome)),
                HonestOutcome::Naive { selection, outcomes } => naive = Some((selection, outcomes)),
            }
        }
        let naive = naive.ok_or_else(|| Error::Internal("the naive selection's unit is missing".into()))?;
        assemble(data, &self.config, *loss, folds, naive)
    }
}

/// The report from every fold's selection and outcome (in fold order), the naive selection and
/// its outcomes on the outer splits.
fn assemble(
    data: &Dataset,
    config: &HonestConfig,
    loss: Loss,
    folds: Vec<(Selection, SplitOutcome)>,
    (naive_selection, naive_outcomes): (Selection, Vec<SplitOutcome>),
) -> Result<HonestReport> {
    let (selections, outcomes): (Vec<Selection>, Vec<SplitOutcome>) = folds.into_iter().unzip();
    let honest_curve = cv_curve(&outcomes);
    let naive_curve = cv_curve(&naive_outcomes);
    // The learner's name as its family reports it on the naive columns (a build, no fit).
    let columns = data.select_columns(&naive_selection.features)?;
    let learner = config.learner.build(&columns, &super::for_columns(config.preprocess, &columns))?.name();

    let honest = RiskEstimate { mean: honest_curve.mean[0], standard_error: honest_curve.standard_error[0] };
    let naive = RiskEstimate { mean: naive_curve.mean[0], standard_error: naive_curve.standard_error[0] };
    let frequency = frequencies(data, &selections);
    let mean_jaccard = mean_jaccard(&selections);
    let folds = selections
        .into_iter()
        .zip(&outcomes)
        .enumerate()
        .map(|(fold, (selection, o))| FoldSelection {
            fold,
            n_train: o.n_train,
            n_test: o.n_validation,
            selection,
            test_risk: o.risks[0][0],
        })
        .collect();
    Ok(HonestReport {
        learner: learner.into(),
        loss: loss.name(),
        n_folds: naive_outcomes.len(),
        honest,
        naive,
        selection_bias: naive.mean - honest.mean,
        folds,
        frequency,
        mean_jaccard,
        naive_selection,
    })
}

fn frequencies(data: &Dataset, selections: &[Selection]) -> Vec<FeatureFrequency> {
    let mut counts = vec![0usize; data.n_features()];
    for s in selections {
        for &j in &s.features {
            counts[j] += 1;
        }
    }
    let v = selections.len().max(1) as f64;
    let mut out: Vec<FeatureFrequency> = counts
        .iter()
        .enumerate()
        .filter(|(_, c)| **c > 0)
        .map(|(index, &count)| FeatureFrequency { index, name: data.feature_names()[index].clone(), count, fraction: count as f64 / v })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.index.cmp(&b.index)));
    out
}

fn mean_jaccard(selections: &[Selection]) -> f64 {
    let mut total = 0.0;
    let mut pairs = 0usize;
    for (a, s) in selections.iter().enumerate() {
        for t in &selections[a + 1..] {
            let inter = s.features.iter().filter(|j| t.features.contains(j)).count();
            let union = s.features.len() + t.features.len() - inter;
            total += if union == 0 { 1.0 } else { inter as f64 / union as f64 };
            pairs += 1;
        }
    }
    if pairs == 0 { 1.0 } else { total / pairs as f64 }
}
