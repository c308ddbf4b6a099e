//! The path on the caller's folds: what a scikit-learn scorer needs, from one path fit per split.
//!
//! `path_outputs` fits the family's whole path on each training set of the caller's splits (after
//! the preprocessing fitted on it) and hands back, per split and grid point, the validation
//! predictions with the class probabilities and decision scores the family gives. The Python
//! layer scores them (`agghoo._scoring`) and gives the risks back to `select(risks=…)`, which
//! concludes as the library does.

use agghoo::Predictions;
use agghoo::resample::{Split, Splits};
use agghoo::spec::SelectSpec;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{Failure, Outcome, invalid};
use crate::{CallData, RunOptions, compute_with, prepare};

/// The caller's (train, validation) index arrays as the library's splits of `n_rows` rows.
pub(crate) fn user_splits(n_rows: usize, pairs: Vec<(PyReadonlyArray1<'_, i64>, PyReadonlyArray1<'_, i64>)>) -> Outcome<Splits> {
    let rows = |a: &PyReadonlyArray1<'_, i64>| -> Outcome<Vec<usize>> {
        a.as_array().iter().map(|&i| usize::try_from(i).map_err(|_| invalid("cv", "non-negative row indices", i))).collect()
    };
    let splits = pairs
        .iter()
        .enumerate()
        .map(|(k, (train, validation))| {
            Split::new(rows(train)?, rows(validation)?).map_err(|e| match e {
                agghoo::Error::InvalidSplit { reason, .. } => Failure::from(agghoo::Error::InvalidSplit { split: k, reason }),
                other => Failure::from(other),
            })
        })
        .collect::<Outcome<Vec<Split>>>()?;
    Ok(Splits::new(n_rows, splits)?)
}

/// One split's outputs for Python: values `[grid][row]` (regression) or class indices, class
/// probabilities `[grid][row][class]` and binary decision scores `[grid][row]` where the family
/// gives them.
fn split_outputs<'py>(py: Python<'py>, path: Vec<Predictions>) -> PyResult<Bound<'py, PyTuple>> {
    let g = path.len();
    let n = path.first().map_or(0, Predictions::len);
    let (mut values, mut labels, mut proba, mut decision) = (Vec::new(), Vec::new(), Some(Vec::new()), Some(Vec::new()));
    let mut k = 0;
    for p in path {
        match p {
            Predictions::Real(v) => values.extend(v),
            Predictions::Classes { labels: l, n_classes, proba: pr, decision: d } => {
                k = n_classes;
                labels.extend(l.into_iter().map(i64::from));
                match (pr, proba.as_mut()) {
                    (Some(pr), Some(all)) => all.extend(pr),
                    _ => proba = None,
                }
                match (d, decision.as_mut()) {
                    (Some(d), Some(all)) => all.extend(d),
                    _ => decision = None,
                }
            }
        }
    }
    let none = || py.None().into_bound(py);
    let (predicted, proba, decision) = if labels.is_empty() && !values.is_empty() {
        (PyArray1::from_vec(py, values).reshape([g, n])?.into_any(), none(), none())
    } else {
        let proba = match proba {
            Some(p) if !p.is_empty() => PyArray1::from_vec(py, p).reshape([g, n, k])?.into_any(),
            _ => none(),
        };
        let decision = match decision {
            Some(d) if !d.is_empty() => PyArray1::from_vec(py, d).reshape([g, n])?.into_any(),
            _ => none(),
        };
        (PyArray1::from_vec(py, labels).reshape([g, n])?.into_any(), proba, decision)
    };
    PyTuple::new(py, [predicted, proba, decision])
}

/// The grid of `family` as JSON: its hyperparameter's name, its values and, for a multi-axis grid,
/// the point of each index.
fn grid_json(family: &dyn agghoo::family::Family) -> Outcome<String> {
    let grid = family.grid();
    let (name, points) = match family.composite() {
        Some(c) => (c.hyperparameter(), Some(c.points())),
        None => (grid.name().to_string(), None),
    };
    let json = serde_json::json!({ "hyperparameter": name, "grid": grid.values(), "grid_points": points });
    Ok(json.to_string())
}

/// Fits the path of `spec`'s family (the JSON text of a [`SelectSpec`]: its family, `standardize`
/// and `missing_category`; the rest is `select`'s) once on the training rows of each of the
/// caller's splits (`data["splits"]`, the rest of `data` as [`select`](crate::select) takes it) and
/// returns the grid as JSON and, per split, the tuple (predictions `[grid, rows]`, probabilities
/// `[grid, rows, classes]` or `None`, decision scores `[grid, rows]` or `None`) on its validation
/// rows. `run` as `select`'s (never a job).
#[pyfunction]
#[pyo3(signature = (x, y, spec, data, run=None))]
pub(crate) fn path_outputs<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    spec: &str,
    data: CallData<'py>,
    run: Option<RunOptions>,
) -> PyResult<(String, Vec<Bound<'py, PyTuple>>)> {
    let (spec, run, rows) = prepare(spec, SelectSpec::validate, &x, &y, data, run)?;
    if run.job {
        return Err(invalid("run[\"job\"]", "false (the path's outputs are computed here, never as a job)", "true").into());
    }
    let splits = rows.splits.ok_or_else(|| invalid("splits", "the caller's (train, validation) index arrays", "none"))?;
    let data = rows.data;
    let preprocess = spec.preprocess(&data);
    let (grid, outputs) = compute_with(py, run.threads, run.verbose, move |executor| {
        data.check_learnable()?;
        let fam = spec.family.build_for(&data, &preprocess)?;
        let outputs = agghoo::engine::path_predictions(fam.as_ref(), &data, &splits, preprocess, executor)?;
        Ok((grid_json(fam.as_ref())?, outputs))
    })?;
    Ok((grid, outputs.into_iter().map(|p| split_outputs(py, p)).collect::<PyResult<_>>()?))
}
