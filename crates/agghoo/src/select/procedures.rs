//! The selection procedures (docs/PROCEDURES.md § Selection and aggregation), as one function over a [`Method`].
//!
//! | method | members |
//! |---|---|
//! | hold-out | `f_T` of the first split |
//! | CV | `A_{m̂}(D)`, `m̂ = argmin CV(A_m)` (or the one-SE choice) |
//! | Agghoo / Majhoo | the V hold-out predictors `f_{T_j}`, averaged / voted |
//! | ACV | `A_{m̂_{T_j}}(D)`, the selected rules retrained on D, averaged / voted |
//! | EKCV | `A_{m̄}(D)`, `m̄` = mean of the `m̂_{T_j}` in the grid's scale |
//! | subagging | on each training set `S_j`, a hold-out split `T'_j ⊂ S_j`; members `f_{T'_j}` |

use serde::{Deserialize, Serialize};

use super::aggregate::Aggregation;
use super::model_file::{FittedModel, Member, Schema};
use super::report::{CvCurve, Report, SplitReport};
use crate::data::{Dataset, Preprocess, Task};
use crate::engine::{EvalOptions, Progress, SplitOutcome, TieRule, argmin, evaluate_splits, one_standard_error, refit_all, summarize};
use crate::error::{Error, Result};
use crate::family::{Composite, Family, Model};
use crate::loss::Loss;
use crate::resample::{HoldOut, PlanContext, Split, Splits, TrainFraction};
use crate::seed::{Purpose, Seed};

/// A selection / aggregation procedure.
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

/// Configuration of [`select`] (a serde value without its progress callback: the procedure spec
/// a worker receives).
#[derive(Clone, Serialize, Deserialize)]
pub struct SelectConfig {
    /// The procedure.
    pub method: Method,
    /// The selection loss; `None` = the task's default (0–1 / squared).
    pub loss: Option<Loss>,
    /// Argmin tie rule.
    pub tie: TieRule,
    /// How members are combined; `None` = mean for regression, vote for classification.
    pub aggregation: Option<Aggregation>,
    /// CV only: the one-standard-error rule.
    pub one_standard_error: bool,
    /// Subagging only: training fraction of the inner hold-out inside each training set.
    pub inner_fraction: TrainFraction,
    /// Per-fold preprocessing.
    pub preprocess: Preprocess,
    /// Seed of the procedure's own randomness (subagging's inner splits).
    pub seed: Seed,
    /// Keep the split indices in the report.
    pub keep_split_indices: bool,
    /// Called once per finished split (not serialized).
    #[serde(skip)]
    pub progress: Option<Progress>,
}

impl std::fmt::Debug for SelectConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SelectConfig")
            .field("method", &self.method)
            .field("loss", &self.loss)
            .field("tie", &self.tie)
            .field("aggregation", &self.aggregation)
            .field("one_standard_error", &self.one_standard_error)
            .field("inner_fraction", &self.inner_fraction)
            .field("preprocess", &self.preprocess)
            .field("seed", &self.seed)
            .field("keep_split_indices", &self.keep_split_indices)
            .finish_non_exhaustive()
    }
}

impl SelectConfig {
    /// The configuration of a procedure named as the CLI's `compare --methods` names it:
    /// `agghoo`, `majhoo`, `cv`, `cv+1se` (CV with the one-standard-error rule), `holdout`, `acv`,
    /// `ekcv` or `subagging`, with `seed` and the default inner fraction.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name, or `+1se` on a method other than CV.
    pub fn for_procedure(name: &str, seed: Seed) -> Result<Self> {
        let (base, one_se) = match name.trim().strip_suffix("+1se") {
            Some(base) => (base, true),
            None => (name.trim(), false),
        };
        let method = Method::ALL
            .into_iter()
            .find(|m| m.name() == base)
            .ok_or_else(|| Error::invalid("method", "agghoo, majhoo, cv, cv+1se, holdout, acv, ekcv or subagging", name))?;
        if one_se && method != Method::Cv {
            return Err(Error::invalid("method", "+1se on cv only", name));
        }
        let mut c = SelectConfig::new(method);
        c.one_standard_error = one_se;
        c.inner_fraction = TrainFraction::DEFAULT;
        c.seed = seed;
        Ok(c)
    }

    /// Defaults: task loss, first-minimiser ties, task aggregation, inner τ = 0.8, seed 0.
    pub fn new(method: Method) -> Self {
        Self {
            method,
            loss: None,
            tie: TieRule::First,
            aggregation: None,
            one_standard_error: false,
            inner_fraction: TrainFraction::DEFAULT,
            preprocess: Preprocess::default(),
            seed: Seed(0),
            keep_split_indices: false,
            progress: None,
        }
    }
}

impl SelectConfig {
    /// Refuses settings the method would silently ignore: the one-standard-error rule outside CV
    /// (it picks a point of the CV curve; the other methods select per split), an aggregation for
    /// a method whose model is one rule (CV, hold-out, EKCV).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the setting.
    pub fn check(&self) -> Result<()> {
        if self.one_standard_error && self.method != Method::Cv {
            return Err(Error::invalid("one-se", "used with CV selection only (it picks a point of the CV curve)", self.method.name()));
        }
        if self.aggregation.is_some() && matches!(self.method, Method::Cv | Method::HoldOut | Method::Ekcv) {
            return Err(Error::invalid(
                "aggregate",
                "used with a method that combines several members (agghoo, majhoo, acv, subagging)",
                self.method.name(),
            ));
        }
        Ok(())
    }
}

/// Runs a procedure: `family` over `splits` of `data`. Evaluation once, conclusion cheap:
/// `select = conclude(evaluate_splits(evaluation_splits, evaluation_options))`, and a
/// distributed run evaluates the same units elsewhere ([`SelectJob`](super::SelectJob)).
///
/// # Errors
/// [`Error::InvalidParameter`] for a setting the method ignores ([`SelectConfig::check`]);
/// every error of [`evaluate_splits`]; [`Error::TaskMismatch`] for Majhoo on regression or an
/// aggregation that does not fit the task (the score mean needs two classes).
pub fn select(family: &dyn Family, data: &Dataset, splits: &Splits, config: &SelectConfig) -> Result<(FittedModel, Report)> {
    let options = evaluation_options(config, data)?;
    let units = evaluation_splits(splits, config)?;
    let outcomes = evaluate_splits(family, data, &units, &options)?;
    conclude(family, data, &units, config, outcomes)
}

/// The per-split options a procedure evaluates with (its loss, tie rule, preprocessing, and
/// whether the selected models are kept), after checking the configuration against the data.
///
/// # Errors
/// As [`SelectConfig::check`], [`Dataset::check_learnable`], and an aggregation or method that
/// does not fit the task.
pub fn evaluation_options(config: &SelectConfig, data: &Dataset) -> Result<EvalOptions> {
    config.check()?;
    data.check_learnable()?;
    resolve_aggregation(config, data.task(), data.target().n_classes())?;
    Ok(EvalOptions {
        losses: vec![config.loss.unwrap_or(Loss::default_for(data.task()))],
        tie: config.tie,
        preprocess: config.preprocess,
        keep_selected_model: matches!(config.method, Method::HoldOut | Method::Agghoo | Method::Majhoo | Method::Subagging),
        keep_predictions: false,
        progress: config.progress.clone(),
    })
}

/// The splits a procedure evaluates: the first split for hold-out, a hold-out split inside each
/// training set for subagging (seeded by the split's index), the splits themselves otherwise.
///
/// # Errors
/// Subagging's inner plan on a training set too small to split.
pub fn evaluation_splits(splits: &Splits, config: &SelectConfig) -> Result<Splits> {
    match config.method {
        Method::HoldOut => Splits::new(splits.n_rows(), vec![splits.as_slice()[0].clone()]),
        Method::Subagging => subagging_splits(splits, config.inner_fraction, config.seed),
        _ => Ok(splits.clone()),
    }
}

/// Concludes a procedure from the outcomes of its [`evaluation_splits`] (in split order): picks
/// the members, refits on all rows where the method does (CV, ACV, EKCV), and reports.
///
/// # Errors
/// As [`select`], for the refits and the aggregation.
pub fn conclude(
    family: &dyn Family,
    data: &Dataset,
    units: &Splits,
    config: &SelectConfig,
    outcomes: Vec<SplitOutcome>,
) -> Result<(FittedModel, Report)> {
    crate::engine::check_outcome_count(&outcomes, units.len())?;
    let loss = config.loss.unwrap_or(Loss::default_for(data.task()));
    let aggregation = resolve_aggregation(config, data.task(), data.target().n_classes())?;
    let grid = family.grid();
    let composite = family.composite();
    let curve = cv_curve(&outcomes);
    let selected: Vec<usize> = outcomes.iter().map(|o| o.selected).collect();
    let schema = Schema::of(data);
    // A member at grid point m: its family's path value, and its point on a composite grid.
    let member = |model: Model, m: usize, validation_risk: Option<f64>| Member {
        model,
        grid_index: m,
        value: composite.map_or(grid.value(m), |c| c.path_value(m)),
        validation_risk,
        point: composite.map(|c| c.point(m)),
    };
    let mut final_value = None;
    let mut final_point = None;
    let (members, aggregation) = match config.method {
        Method::HoldOut | Method::Agghoo | Method::Majhoo | Method::Subagging => {
            let members = outcomes
                .iter()
                .map(|o| {
                    let model = o.model.clone().ok_or_else(|| Error::Internal("selected model not kept".into()))?;
                    Ok(member(model, o.selected, Some(o.risks[0][o.selected])))
                })
                .collect::<Result<Vec<_>>>()?;
            (members, if config.method == Method::HoldOut { Aggregation::Single } else { aggregation })
        }
        Method::Cv => {
            let m = match (config.one_standard_error, composite) {
                (true, Some(c)) => c.one_standard_error(&curve.mean, &curve.standard_error, config.tie)?,
                (true, None) => one_standard_error(&curve.mean, &curve.standard_error, config.tie, grid.larger_is_simpler())?,
                (false, _) => argmin(&curve.mean, config.tie)?,
            };
            let model = refit_all(family, data, &config.preprocess, |all| family.fit(all, m)).map_err(|e| refit_failed(m, e))?;
            let chosen = member(model, m, Some(curve.mean[m]));
            final_value = Some(chosen.value);
            final_point.clone_from(&chosen.point);
            (vec![chosen], Aggregation::Single)
        }
        Method::Acv => {
            // Each distinct m̂ is fitted on D once and shared by the members that chose it.
            let mut distinct: Vec<usize> = selected.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let fitted = distinct
                .iter()
                .map(|&m| {
                    refit_all(family, data, &config.preprocess, |all| family.fit(all, m))
                        .map(|model| (m, model))
                        .map_err(|e| refit_failed(m, e))
                })
                .collect::<Result<Vec<_>>>()?;
            let members = selected
                .iter()
                .flat_map(|&m| fitted.iter().filter(move |(g, _)| *g == m))
                .map(|(m, model)| member(model.clone(), *m, None))
                .collect();
            (members, aggregation)
        }
        Method::Ekcv => match composite {
            Some(c) => {
                let choice = c.ekcv(&selected)?;
                let model = refit_all(family, data, &config.preprocess, |all| c.fit_ekcv(&choice, data, &config.preprocess, all))
                    .map_err(|e| refit_failed(choice.nearest, e))?;
                final_value = Some(choice.path_value);
                final_point = Some(choice.point.clone());
                let chosen = Member { value: choice.path_value, point: Some(choice.point), ..member(model, choice.nearest, None) };
                (vec![chosen], Aggregation::Single)
            }
            None => {
                let m_bar = grid.average(&selected);
                final_value = Some(m_bar);
                let nearest = grid.nearest(m_bar);
                let model = refit_all(family, data, &config.preprocess, |all| family.fit_value(all, m_bar))
                    .map_err(|e| refit_failed(nearest, e))?;
                (vec![Member { value: m_bar, ..member(model, nearest, None) }], Aggregation::Single)
            }
        },
    };
    let (family_name, hyperparameter) = match composite {
        Some(c) => (c.label().to_string(), c.hyperparameter()),
        None => (family.name().to_string(), grid.name().to_string()),
    };
    let report = Report {
        method: config.method,
        family: family_name.clone(),
        loss: loss.name(),
        hyperparameter: hyperparameter.clone(),
        grid: grid.values().to_vec(),
        splits: outcomes
            .iter()
            .enumerate()
            .map(|(j, o)| SplitReport {
                split: j,
                n_train: o.n_train,
                n_validation: o.n_validation,
                selected_index: o.selected,
                selected_value: grid.value(o.selected),
                risks: o.risks[0].clone(),
            })
            .collect(),
        cv_curve: curve,
        member_grid_indices: members.iter().map(|m: &Member| m.grid_index).collect(),
        final_value,
        aggregation,
        split_indices: config.keep_split_indices.then(|| units.clone()),
        axes: composite.map(|c| c.families().to_vec()),
        grid_points: composite.map(Composite::points),
        final_point,
    };
    let model = FittedModel::new(schema, &family_name, &hyperparameter, config.method, aggregation, members)?.with_training_data(data);
    Ok((model, report))
}

/// A failed fit of grid point `m` on all rows (CV's refit, ACV's members, EKCV's average).
fn refit_failed(m: usize, e: Error) -> Error {
    Error::Fit { split: None, grid_index: m, source: Box::new(e) }
}

fn resolve_aggregation(config: &SelectConfig, task: Task, n_classes: usize) -> Result<Aggregation> {
    let default = match task {
        Task::Classification => Aggregation::Vote,
        Task::Regression => Aggregation::Mean,
    };
    if config.method == Method::Majhoo && task == Task::Regression {
        return Err(Error::TaskMismatch("Majhoo (majority vote) is for classification; use agghoo for regression".into()));
    }
    let chosen = config.aggregation.unwrap_or(default);
    let fits = match chosen {
        Aggregation::Mean => task == Task::Regression,
        Aggregation::Vote | Aggregation::SoftVote | Aggregation::ScoreMean => task == Task::Classification,
        Aggregation::Single => true,
    };
    if !fits {
        return Err(Error::TaskMismatch(format!("aggregation {chosen:?} does not fit {task:?}")));
    }
    // Averaged decision scores are binary (as in the model file's check): refuse before fitting.
    if chosen == Aggregation::ScoreMean && n_classes != 2 {
        return Err(Error::TaskMismatch(format!(
            "aggregation ScoreMean averages binary decision scores; the data have {n_classes} classes (use the vote or the soft vote)"
        )));
    }
    Ok(chosen)
}

/// The CV curve: size-weighted mean over splits and the standard error (see [`CvCurve`]).
pub(crate) fn cv_curve(outcomes: &[SplitOutcome]) -> CvCurve {
    let risks: Vec<&[f64]> = outcomes.iter().map(|o| o.risks[0].as_slice()).collect();
    let sizes: Vec<usize> = outcomes.iter().map(|o| o.n_validation).collect();
    risk_curve(&risks, &sizes)
}

/// The CV curve of per-split risks `risks[j][g]` (split j, grid point g) on validation sets of
/// `sizes[j]` rows: for each grid point the mean over splits weighted by validation size, and
/// the standard error of the plain mean (0 for one split). A split with fewer risks than the
/// first counts as NaN where it has none.
///
/// ```
/// use agghoo::select::risk_curve;
/// let curve = risk_curve(&[&[0.2, 0.1], &[0.4, 0.1]], &[10, 30]);
/// assert!((curve.mean[0] - 0.35).abs() < 1e-15 && curve.standard_error[1] == 0.0);
/// ```
pub fn risk_curve(risks: &[&[f64]], sizes: &[usize]) -> CvCurve {
    let m = risks.first().map_or(0, |r| r.len());
    let weights: Vec<f64> = sizes.iter().map(|&n| n as f64).collect();
    let (mean, standard_error) = (0..m)
        .map(|g| {
            let values: Vec<f64> = risks.iter().map(|r| r.get(g).copied().unwrap_or(f64::NAN)).collect();
            let (mean, se) = summarize(&values, Some(&weights));
            (mean, se.unwrap_or(0.0))
        })
        .unzip();
    CvCurve { mean, standard_error }
}

/// For each outer training set `S_j`, a hold-out split of `S_j` (stream j of the inner seed),
/// expressed in rows of the data.
fn subagging_splits(splits: &Splits, inner_fraction: TrainFraction, seed: Seed) -> Result<Splits> {
    let plan = HoldOut { train_fraction: inner_fraction, stratify: false };
    let inner = splits
        .iter()
        .enumerate()
        .map(|(j, s)| {
            // The hold-out splits the distinct training rows: with a bootstrap plan a drawn row
            // keeps all its copies on the inner training side, or is validated once.
            let mut seen = std::collections::HashSet::new();
            let distinct: Vec<usize> = s.train().iter().copied().filter(|&r| seen.insert(r)).collect();
            let sub = plan.instantiate(&PlanContext::rows(distinct.len()), seed.child(Purpose::Inner, j as u64))?;
            let sp = &sub.as_slice()[0];
            let validation: Vec<usize> = sp.validation().iter().map(|&i| distinct[i]).collect();
            let held_out: std::collections::HashSet<usize> = validation.iter().copied().collect();
            Split::new(s.train().iter().copied().filter(|r| !held_out.contains(r)).collect(), validation)
        })
        .collect::<Result<Vec<_>>>()?;
    Splits::new(splits.n_rows(), inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::{TieRule, argmin};

    fn outcome(errors: usize, n_validation: usize, other: usize) -> SplitOutcome {
        let risks = vec![vec![errors as f64 / n_validation as f64, other as f64 / n_validation as f64]];
        SplitOutcome { risks, selected: 0, n_train: 400, n_validation, model: None, predictions: None }
    }

    /// 5-fold CV of 442 rows (validation sizes 89, 89, 88, 88, 88): grid point 0 makes one error
    /// in the last fold, grid point 1 one error in the second — the same total, a tie under the
    /// 0–1 loss. Their size-weighted means differ in the last bit; the documented tie rule decides.
    #[test]
    fn equal_error_totals_tie_exactly_in_the_cv_curve() {
        let sizes = [89, 89, 88, 88, 88];
        let outcomes: Vec<SplitOutcome> =
            sizes.iter().enumerate().map(|(j, &n)| outcome(usize::from(j == 4), n, usize::from(j == 1))).collect();
        let curve = cv_curve(&outcomes);
        assert_ne!(curve.mean[0], curve.mean[1], "the rounding this test is about");
        assert_eq!(argmin(&curve.mean, TieRule::First).unwrap(), 0);
        assert_eq!(argmin(&curve.mean, TieRule::Last).unwrap(), 1);
        // a real difference (one more error) is never a tie
        let worse: Vec<SplitOutcome> =
            sizes.iter().enumerate().map(|(j, &n)| outcome(usize::from(j == 4), n, usize::from(j <= 1))).collect();
        let curve = cv_curve(&worse);
        assert_eq!(argmin(&curve.mean, TieRule::Last).unwrap(), 0);
    }
}
