//! The per-split work every procedure and estimator shares.

use serde::{Deserialize, Serialize};

use super::argmin::{TieRule, argmin};
use super::executor::{Executor, map_ordered};
use crate::data::{Dataset, Preprocess, View};
use crate::error::{Error, Result};
use crate::family::{Family, Model};
use crate::loss::Loss;
use crate::predictions::PathPredictions;
use crate::resample::Splits;

/// What [`evaluate_splits`] computes besides the risk curves.
#[derive(Clone, Default)]
pub struct EvalOptions {
    /// Losses; the first one selects `m̂_T`. Must not be empty.
    pub losses: Vec<Loss>,
    /// Tie rule of the hold-out argmin.
    pub tie: TieRule,
    /// Preprocessing fitted on each training set.
    pub preprocess: Preprocess,
    /// Keep the fitted model at the selected grid point of each split (Agghoo's members).
    pub keep_selected_model: bool,
    /// Keep the validation predictions of every grid point (out-of-fold predictions).
    pub keep_predictions: bool,
}

/// The outcome of one split (a serde value: a split evaluated on another machine comes back bit
/// for bit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitOutcome {
    /// Validation risk of every grid point, `[loss][grid_index]`.
    pub risks: Vec<Vec<f64>>,
    /// The hold-out argmin `m̂_T` under the first loss.
    pub selected: usize,
    /// Training-set size |T|.
    pub n_train: usize,
    /// Validation-set size |Tᶜ|.
    pub n_validation: usize,
    /// The model at `selected`, trained on T (with its preprocessing), if asked for.
    pub model: Option<Model>,
    /// Validation predictions `[grid_index][row]`, if asked for.
    pub predictions: Option<PathPredictions>,
}

/// Fits `family`'s path on every split (one unit per split, run by `executor`, results in split
/// order) and evaluates it.
///
/// Determinism: each split is a pure function of (data, indices, family, options); results are
/// collected in split order, so they are bit-identical for any thread count and executor.
///
/// # Errors
/// [`Error::SplitsMismatch`] for splits of another data set; [`Error::TaskMismatch`] when a loss
/// does not fit the data; the family's [`check_train_size`](Family::check_train_size) error;
/// [`Error::Fit`] naming the split and grid point of a failed fit; [`Error::NonFiniteRisk`] when a
/// risk is not finite; [`Error::Interrupted`] when `executor`'s observer cancels the run.
pub fn evaluate_splits(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    options: &EvalOptions,
    executor: &dyn Executor,
) -> Result<Vec<SplitOutcome>> {
    check_evaluation(family, data, splits, options)?;
    let all: Vec<usize> = (0..splits.len()).collect();
    evaluate_units(family, data, splits, &all, options, executor)
}

/// Evaluates the splits whose global indices are `units` (in that order) with `executor`,
/// without the checks of [`check_evaluation`] (run them once, before dispatching units). A
/// failure names the split by its global index.
///
/// # Errors
/// [`Error::InvalidParameter`] for an index beyond the splits; as [`evaluate_splits`].
pub fn evaluate_units(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    units: &[usize],
    options: &EvalOptions,
    executor: &dyn Executor,
) -> Result<Vec<SplitOutcome>> {
    if let Some(&bad) = units.iter().find(|&&j| j >= splits.len()) {
        return Err(Error::invalid("split", "an index below the number of splits", format!("{bad} (of {})", splits.len())));
    }
    let par = executor.par(units.len());
    map_ordered(executor, units.len(), |i| {
        let j = units[i];
        let split = &splits.as_slice()[j];
        evaluate_one(family, data, split.train(), split.validation(), options, par).map_err(|e| e.at_split(j))
    })
}

/// The checks [`evaluate_splits`] runs before any fit: splits of this data set, losses that fit
/// the task and the classes, the family's task, missing values only with imputation, the
/// family's minimum training size, and the memory of the path predictions.
///
/// # Errors
/// As [`evaluate_splits`], before any work.
pub fn check_evaluation(family: &dyn Family, data: &Dataset, splits: &Splits, options: &EvalOptions) -> Result<()> {
    splits.check_rows(data.n_rows())?;
    if options.losses.is_empty() {
        return Err(Error::invalid("loss", "at least one loss", "none"));
    }
    for loss in &options.losses {
        loss.check_task(data.task())?;
        loss.check_classes(data.target().n_classes())?;
    }
    crate::family::check_sample_weight(family, data)?;
    if family.task() != data.task() {
        return Err(Error::TaskMismatch(format!(
            "family `{}` was built for {:?}, the data are {:?}",
            family.name(),
            family.task(),
            data.task()
        )));
    }
    if data.has_missing() && !options.preprocess.impute_median {
        return Err(Error::invalid("missing", "imputation (--missing median) when the data have missing values", "none"));
    }
    options.preprocess.check_encodes(data)?;
    family.check_train_size(splits.min_train_size())?;
    check_path_memory(family, data, splits, options.keep_predictions)?;
    let (bytes, what) = fit_memory(family, data, splits, options);
    crate::limits::check_memory(what, bytes)
}

/// An upper bound on the bytes an evaluation of `family` on `splits` of `data` holds at its peak,
/// with what it counts in words: the data, the splits' row indices, and for each split in flight
/// (one per thread) its preprocessed copies (`encoded width` columns, one-hot levels included),
/// the family's own buffers ([`Family::path_memory`]) and its path predictions. This is the
/// estimate [`evaluate_splits`] checks against the memory budget before any fit.
pub fn fit_memory(family: &dyn Family, data: &Dataset, splits: &Splits, options: &EvalOptions) -> (u128, String) {
    use crate::limits::product;
    let pool = crate::Par::pool();
    let in_flight = splits.len().clamp(1, pool.n_threads());
    let n_train = splits.iter().map(|s| s.train().len()).max().unwrap_or(0);
    let n_validation = splits.iter().map(|s| s.validation().len()).max().unwrap_or(0);
    let width = options.preprocess.encoded_width(data);
    let n_classes = data.target().n_classes();
    let largest_pair = match data.target() {
        crate::data::Target::Classes { labels, .. } if n_classes > 2 => {
            let mut counts = vec![0usize; n_classes];
            labels.iter().for_each(|&c| counts[c as usize] += 1);
            counts.sort_unstable_by(|a, b| b.cmp(a));
            counts[0] + counts[1]
        }
        _ => n_train,
    };
    let shape = crate::family::FitShape {
        n_train,
        n_validation,
        n_features: width,
        n_classes,
        largest_pair,
        threads: pool.split(in_flight).n_threads(),
    };
    let copies = if options.preprocess.is_identity() { 0 } else { product([3, (n_train + n_validation) as u128, width as u128, 8]) };
    let per_row: u128 = if n_classes > 0 { 4 + 8 * (n_classes as u128 + 1) } else { 8 };
    let predictions = product([family.grid().len() as u128, n_validation as u128, per_row]);
    let per_split = copies.saturating_add(family.path_memory(&shape)).saturating_add(predictions);
    let indices: u128 = splits.iter().map(|s| (s.train().len() + s.validation().len()) as u128 * 8).sum();
    let resident = product([data.n_rows() as u128, data.n_features() as u128 + 1, 8]).saturating_add(indices);
    let bytes = product([in_flight as u128, per_split]).saturating_add(resident);
    let what = format!(
        "{in_flight} split(s) in flight of `{}` on {n_train} training rows × {width} feature columns{} ({} grid points)",
        family.name(),
        if width != data.n_features() { " after one-hot encoding" } else { "" },
        family.grid().len()
    );
    (bytes, what)
}

/// Refuses, before any fit, path predictions `splits × grid × validation rows` beyond the memory
/// budget: all splits' when they are kept, else those of the splits in flight (one per thread).
/// A class prediction is counted with its label, probabilities and decision score.
fn check_path_memory(family: &dyn Family, data: &Dataset, splits: &Splits, keep_all: bool) -> Result<()> {
    let bytes_per_row: u128 = match data.task() {
        crate::data::Task::Regression => 8,
        crate::data::Task::Classification => 4 + 8 * (data.all().n_classes() as u128 + 1),
    };
    let mut sizes: Vec<usize> = splits.iter().map(|s| s.validation().len()).collect();
    if !keep_all {
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        sizes.truncate(crate::Par::pool().n_threads());
    }
    let rows: u128 = sizes.iter().map(|&n| n as u128).sum();
    let grid = family.grid().len();
    crate::limits::check_memory(
        format_args!("path predictions of {} splits × {grid} grid points ({rows} validation rows in all)", sizes.len()),
        crate::limits::product([rows, grid as u128, bytes_per_row]),
    )
}

/// One split: preprocess, fit the path, predict, reduce to risks, select, with kernels of
/// parallelism `par`. Its [`Error::Fit`]s carry no split number yet: [`evaluate_units`] numbers
/// them.
fn evaluate_one(
    family: &dyn Family,
    data: &Dataset,
    train_rows: &[usize],
    validation_rows: &[usize],
    options: &EvalOptions,
    par: crate::Par,
) -> Result<SplitOutcome> {
    let train_view = data.view(train_rows).with_par(par);
    let validation_view = data.view(validation_rows).with_par(par);
    check_training_weight(&train_view)?;
    if options.preprocess.is_identity() {
        run_path(family, &train_view, &validation_view, options, None)
    } else {
        let transform = options.preprocess.fit(&train_view);
        let train_data = transform.apply(&train_view)?;
        let validation_data = transform.apply(&validation_view)?;
        run_path(family, &train_data.all().with_par(par), &validation_data.all().with_par(par), options, Some(transform))
    }
}

fn run_path(
    family: &dyn Family,
    train: &View<'_>,
    validation: &View<'_>,
    options: &EvalOptions,
    transform: Option<crate::data::Transform>,
) -> Result<SplitOutcome> {
    let path = family.fit_path(train)?;
    let shortcut = if options.keep_predictions { None } else { path.risks(validation, &options.losses) };
    let (risks, predictions) = match shortcut {
        Some(risks) => (risks?, None),
        None => {
            let predictions = path.predict(validation)?;
            let risks = options
                .losses
                .iter()
                .map(|loss| predictions.iter().map(|p| loss.risk(p, validation)).collect::<Result<Vec<f64>>>())
                .collect::<Result<Vec<_>>>()?;
            (risks, Some(predictions))
        }
    };
    for curve in &risks {
        if let Some(m) = curve.iter().position(|r| !r.is_finite()) {
            let source = Box::new(Error::NonFiniteRisk(format!("validation risk is {}", curve[m])));
            return Err(Error::Fit { split: None, grid_index: m, source });
        }
    }
    let selected = argmin(&risks[0], options.tie)?;
    let model = if options.keep_selected_model {
        Some(
            path.model(selected)
                .map_err(|e| Error::Fit { split: None, grid_index: selected, source: Box::new(e) })?
                .with_transform(transform),
        )
    } else {
        None
    };
    Ok(SplitOutcome {
        risks,
        selected,
        n_train: train.len(),
        n_validation: validation.len(),
        model,
        predictions: predictions.filter(|_| options.keep_predictions),
    })
}

/// Fits grid point `grid_index` on all rows of `data` (CV's refit, ACV, EKCV), with the
/// preprocessing fitted on all rows and the fit's kernels on `par`.
///
/// # Errors
/// The family's fit error.
pub(crate) fn refit_all(
    family: &dyn Family,
    data: &Dataset,
    preprocess: &Preprocess,
    par: crate::Par,
    fit: impl Fn(&View<'_>) -> Result<Model>,
) -> Result<Model> {
    crate::family::check_sample_weight(family, data)?;
    fit_on(&data.all().with_par(par), preprocess, fit)
}

/// Refuses a weighted training set whose rows all weigh 0 (there is nothing to fit).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `sample_weight`.
pub(crate) fn check_training_weight(train: &View<'_>) -> Result<()> {
    match train.weights() {
        Some(w) if w.iter().sum::<f64>() <= 0.0 => Err(Error::invalid(
            "sample_weight",
            "a positive weight in every training set",
            format!("every weight of the {} training rows is 0", train.len()),
        )),
        _ => Ok(()),
    }
}

/// `fit` on the rows of `rows`, with the preprocessing fitted on those rows (kept in the model).
fn fit_on(rows: &View<'_>, preprocess: &Preprocess, fit: impl Fn(&View<'_>) -> Result<Model>) -> Result<Model> {
    if preprocess.is_identity() {
        fit(rows)
    } else {
        let transform = preprocess.fit(rows);
        let transformed = transform.apply(rows)?;
        Ok(fit(&transformed.all().with_par(rows.par()))?.with_transform(Some(transform)))
    }
}

/// The validation predictions of every grid point on every split, in split order: one path fit
/// per split (after the preprocessing fitted on its training rows), no refit per grid point.
/// They are what a caller's own scorer needs — values, or class labels with the probabilities and
/// decision scores the family gives — to compute the risks [`outcomes_from_risks`] takes.
///
/// # Errors
/// As [`evaluate_splits`] (the predictions are checked under the task's default loss).
pub fn path_predictions(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    preprocess: Preprocess,
    executor: &dyn Executor,
) -> Result<Vec<PathPredictions>> {
    let options =
        EvalOptions { losses: vec![Loss::default_for(data.task())], preprocess, keep_predictions: true, ..EvalOptions::default() };
    let outcomes = evaluate_splits(family, data, splits, &options, executor)?;
    Ok(outcomes.into_iter().map(|o| o.predictions.unwrap_or_default()).collect())
}

/// The outcomes of `splits` under risks computed elsewhere, `risks[split][grid_index]` (a
/// caller's scorer on [`path_predictions`]), for [`conclude`](crate::select::conclude): each
/// split selects the argmin of its risks under `options.tie`, and with
/// `options.keep_selected_model` the model at that grid point is fitted on the split's training
/// rows (one fit per split, with the preprocessing fitted on those rows).
///
/// # Errors
/// [`Error::SplitsMismatch`] for splits of another data set; [`Error::InvalidParameter`] unless
/// there is one risk per grid point for each split; [`Error::Fit`] naming the split and grid point
/// of a risk that is not finite ([`Error::NonFiniteRisk`]) or of a failed fit.
pub fn outcomes_from_risks(
    family: &dyn Family,
    data: &Dataset,
    splits: &Splits,
    risks: &[Vec<f64>],
    options: &EvalOptions,
    executor: &dyn Executor,
) -> Result<Vec<SplitOutcome>> {
    splits.check_rows(data.n_rows())?;
    crate::family::check_sample_weight(family, data)?;
    let grid = family.grid().len();
    if risks.len() != splits.len() || risks.iter().any(|r| r.len() != grid) {
        let shape = risks.iter().map(|r| r.len().to_string()).collect::<Vec<_>>().join(", ");
        return Err(Error::invalid(
            "risks",
            "one row per split with one risk per grid point",
            format!("{} rows of [{shape}] for {} splits × {grid} grid points", risks.len(), splits.len()),
        ));
    }
    let par = executor.par(splits.len());
    map_ordered(executor, splits.len(), |j| {
        let split = &splits.as_slice()[j];
        let curve = &risks[j];
        let at = |grid_index: usize, e: Error| Error::Fit { split: Some(j), grid_index, source: Box::new(e) };
        if let Some(m) = curve.iter().position(|r| !r.is_finite()) {
            return Err(at(m, Error::NonFiniteRisk(format!("validation risk is {}", curve[m]))));
        }
        let selected = argmin(curve, options.tie)?;
        let model = if options.keep_selected_model {
            Some(
                fit_on(&data.view(split.train()).with_par(par), &options.preprocess, |t| family.fit(t, selected))
                    .map_err(|e| at(selected, e))?,
            )
        } else {
            None
        };
        Ok(SplitOutcome {
            risks: vec![curve.clone()],
            selected,
            n_train: split.train().len(),
            n_validation: split.validation().len(),
            model,
            predictions: None,
        })
    })
}
