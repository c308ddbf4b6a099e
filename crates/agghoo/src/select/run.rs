//! Running a procedure: evaluate its splits once, then conclude — the procedure's
//! [`choose`](super::Procedure::choose), the chosen members materialised (split models kept by the
//! evaluation, refits on all rows), and the report.

use super::aggregate::Aggregation;
use super::config::SelectConfig;
use super::model_file::{FittedModel, Member, Schema};
use super::procedure::{ChoiceContext, MemberChoice, procedure, resolve_aggregation};
use super::report::{Report, SplitReport, cv_curve};
use crate::data::Dataset;
use crate::engine::{EvalOptions, Executor, Rayon, SplitOutcome, evaluate_splits, refit_all};
use crate::error::{Error, Result};
use crate::family::{Composite, Family, Model};
use crate::loss::Loss;
use crate::resample::Splits;

/// Runs a procedure: `family` over `splits` of `data`. Evaluation once, conclusion cheap:
/// `select = conclude(evaluate_splits(evaluation_splits, evaluation_options))`, and a
/// distributed run evaluates the same units elsewhere ([`SelectJob`](super::SelectJob)).
///
/// # Errors
/// [`Error::InvalidParameter`] for a setting the method ignores ([`SelectConfig::check`]);
/// every error of [`evaluate_splits`]; [`Error::TaskMismatch`] for Majhoo on regression or an
/// aggregation that does not fit the task (the score mean needs two classes).
pub fn select(family: &dyn Family, data: &Dataset, splits: &Splits, config: &SelectConfig) -> Result<(FittedModel, Report)> {
    select_with(family, data, splits, config, &Rayon)
}

/// [`select`] with its splits run by `executor` (one unit per evaluated split; an observer on it
/// sees them and may cancel the run).
///
/// # Errors
/// As [`select`]; [`Error::Interrupted`] when the observer cancels.
pub fn select_with(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    config: &SelectConfig,
    executor: &dyn Executor,
) -> Result<(FittedModel, Report)> {
    let options = evaluation_options(config, data)?;
    let units = evaluation_splits(splits, config)?;
    let outcomes = evaluate_splits(family, data, &units, &options, executor)?;
    conclude_on(family, data, &units, config, outcomes, executor.par(1))
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
        keep_selected_model: procedure(config.method).keeps_split_models(),
        keep_predictions: false,
    })
}

/// The splits a procedure evaluates ([`Procedure::evaluation_splits`](super::Procedure::evaluation_splits)): the first split for
/// hold-out, a hold-out split inside each training set for subagging (seeded by the split's
/// index), the splits themselves otherwise.
///
/// # Errors
/// Subagging's inner plan on a training set too small to split.
pub fn evaluation_splits(splits: &Splits, config: &SelectConfig) -> Result<Splits> {
    procedure(config.method).evaluation_splits(splits, config)
}

/// Concludes a procedure from the outcomes of its [`evaluation_splits`] (in split order): the
/// procedure's [`choose`](super::Procedure::choose) picks the members, the members are materialised
/// (a split's kept model, or a refit on all rows: CV, ACV, EKCV; ACV's distinct grid points are
/// fitted once and shared), and the report is written.
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
    conclude_on(family, data, units, config, outcomes, crate::Par::pool())
}

/// [`conclude`] with the refits' kernels on `par` (the threads of the unit it runs in).
fn conclude_on(
    family: &dyn Family,
    data: &Dataset,
    units: &Splits,
    config: &SelectConfig,
    outcomes: Vec<SplitOutcome>,
    par: crate::Par,
) -> Result<(FittedModel, Report)> {
    crate::engine::check_outcome_count(&outcomes, units.len())?;
    let loss = config.loss.unwrap_or(Loss::default_for(data.task()));
    let grid = family.grid();
    let composite = family.composite();
    let ctx = ChoiceContext {
        outcomes: &outcomes,
        curve: cv_curve(&outcomes),
        grid,
        composite,
        tie: config.tie,
        one_standard_error: config.one_standard_error,
        aggregation: resolve_aggregation(config, data.task(), data.target().n_classes())?,
    };
    let choice = procedure(config.method).choose(&ctx)?;
    let members = materialise(family, data, config, &ctx, &choice.members, par)?;
    let (family_name, hyperparameter) = match composite {
        Some(c) => (c.label().to_string(), c.hyperparameter()),
        None => (family.name().to_string(), grid.name().to_string()),
    };
    // EKCV fits the mean of the selections where the family can, else the grid value nearest to
    // it: the report states the value fitted, and the mean apart.
    let (final_value, mean_selected) = match (choice.members.as_slice(), members.as_slice()) {
        ([MemberChoice::RefitAt { value, .. }], [fitted]) => (Some(fitted.value), Some(*value)),
        ([MemberChoice::RefitComposite(c)], [fitted]) => (Some(fitted.value), Some(c.path_value)),
        _ => (choice.final_value, None),
    };
    let final_point = match members.as_slice() {
        [fitted] if mean_selected.is_some() => fitted.point.clone(),
        _ => choice.final_point,
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
        cv_curve: ctx.curve.clone(),
        member_grid_indices: members.iter().map(|m: &Member| m.grid_index).collect(),
        final_value,
        mean_selected,
        aggregation: choice.aggregation,
        split_indices: config.keep_split_indices.then(|| units.clone()),
        axes: composite.map(|c| c.families().to_vec()),
        grid_points: composite.map(Composite::points),
        final_point,
    };
    if !config.vote_ties.is_default() && choice.aggregation != Aggregation::Vote {
        return Err(Error::invalid(
            "vote-ties",
            "used with a vote of several members (a classifier's agghoo/majhoo, acv or subagging with aggregation vote)",
            format!("{} with aggregation {:?}", config.vote_ties, choice.aggregation),
        ));
    }
    let model = FittedModel::new(Schema::of(data), &family_name, &hyperparameter, config.method, choice.aggregation, members)?
        .with_training_data(data)
        .with_vote_ties(config.vote_ties);
    Ok((model, report))
}

/// The chosen members as fitted members: a split member is the model its evaluation kept; each
/// distinct refitted grid point is fitted on all rows once (in grid order) and shared.
fn materialise(
    family: &dyn Family,
    data: &Dataset,
    config: &SelectConfig,
    ctx: &ChoiceContext<'_>,
    chosen: &[MemberChoice],
    par: crate::Par,
) -> Result<Vec<Member>> {
    let refit = |m: usize, fit: &dyn Fn(&crate::data::View<'_>) -> Result<Model>| {
        refit_all(family, data, &config.preprocess, par, fit).map_err(|e| Error::Fit { split: None, grid_index: m, source: Box::new(e) })
    };
    let mut distinct: Vec<usize> =
        chosen.iter().filter_map(|c| if let MemberChoice::Refit { grid_index, .. } = c { Some(*grid_index) } else { None }).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let refits = distinct.iter().map(|&m| refit(m, &|all| family.fit(all, m))).collect::<Result<Vec<Model>>>()?;
    // A member at grid point m: its family's path value, and its point on a composite grid.
    let member = |model: Model, m: usize, validation_risk: Option<f64>| Member {
        model,
        grid_index: m,
        value: ctx.value(m),
        validation_risk,
        point: ctx.point(m),
    };
    chosen
        .iter()
        .map(|c| {
            let risk = c.validation_risk(ctx.outcomes);
            Ok(match c {
                MemberChoice::FromSplit { split, grid_index } => {
                    let model = ctx
                        .outcomes
                        .get(*split)
                        .and_then(|o| o.model.clone())
                        .ok_or_else(|| Error::Internal("selected model not kept".into()))?;
                    member(model, *grid_index, risk)
                }
                MemberChoice::Refit { grid_index, .. } => {
                    let model = distinct.binary_search(grid_index).ok().map(|i| refits[i].clone());
                    member(model.ok_or_else(|| Error::Internal("refit missing".into()))?, *grid_index, risk)
                }
                MemberChoice::RefitAt { value, nearest } => {
                    let model = refit(*nearest, &|all| family.fit_value(all, *value))?;
                    Member { value: family.fitted_value(*value), ..member(model, *nearest, risk) }
                }
                MemberChoice::RefitComposite(choice) => {
                    let c = ctx.composite.ok_or_else(|| Error::Internal("a composite choice on a one-axis grid".into()))?;
                    let model = refit(choice.nearest, &|all| c.fit_ekcv(choice, data, &config.preprocess, all))?;
                    let (value, point) = c.fitted_ekcv(choice);
                    Member { value, point: Some(point), ..member(model, choice.nearest, risk) }
                }
            })
        })
        .collect()
}
