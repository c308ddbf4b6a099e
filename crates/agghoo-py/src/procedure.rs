//! The library's selection procedures for fits the caller makes itself (`agghoo.meta` over a
//! scikit-learn estimator, `AgghooSearchCV`, a scorer on the path's outputs): which splits a method
//! evaluates and whether it keeps each split's selected model, and, from the caller's risks, which
//! members form the method's predictor. Both come from the procedure itself
//! ([`Procedure::evaluation_splits`], [`Procedure::choose`]), so a method means the same in Python
//! as in the library.

use agghoo::Seed;
use agghoo::data::Task;
use agghoo::engine::SplitOutcome;
use agghoo::family::{Grid, Scale};
use agghoo::names::Named;
use agghoo::resample::TrainFraction;
use agghoo::select::{
    Aggregation, ChoiceContext, Method, Procedure, SelectConfig, TieRule, argmin, cv_curve, evaluation_splits, procedure,
};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::Folds;
use crate::errors::{Failure, Outcome, invalid};
use crate::paths::user_splits;

/// The method named `name` and its procedure; with `candidates_only` (the caller chooses among a
/// list of candidates, such as scikit-learn parameter dicts) a procedure that fits a rule off the
/// grid is refused, with the reason.
fn method_of(name: &str, candidates_only: bool) -> Outcome<(Method, &'static dyn Procedure)> {
    let method = Method::parse_name(name)?;
    let p = procedure(method);
    if candidates_only && p.fits_off_the_grid() {
        return Err(Failure::from(agghoo::Error::Unsupported {
            what: format!("method {} over a list of candidates", method.name()),
            reason: "it fits the mean of the selected hyperparameters in the grid's scale, which a list of parameter \
                     dicts does not have (use acv, agghoo or cv)"
                .into(),
        }));
    }
    Ok((method, p))
}

/// What the procedure of `method` is: `keeps_split_models` (its members are models fitted on the
/// splits' training rows), `combines_members` (several members, combined by an aggregation),
/// `uses_one_standard_error` (the one-standard-error rule applies), `fits_off_the_grid` (its member
/// may be a rule off the grid: refused over a list of candidates), `picks_a_curve_point` (its
/// predictor is one refit at a point of the CV curve: scikit-learn's `best_params_`).
#[pyfunction]
pub(crate) fn procedure_info(method: &str) -> PyResult<std::collections::BTreeMap<&'static str, bool>> {
    let (_, p) = method_of(method, false)?;
    Ok([
        ("keeps_split_models", p.keeps_split_models()),
        ("combines_members", p.combines_members()),
        ("uses_one_standard_error", p.uses_one_standard_error()),
        ("fits_off_the_grid", p.fits_off_the_grid()),
        // The one-standard-error rule applies exactly where the procedure picks a point of the CV curve.
        ("picks_a_curve_point", p.uses_one_standard_error()),
    ]
    .into_iter()
    .collect())
}

/// One (train, validation) pair of int64 row indices, as the Python layer's splits are.
type Pair<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<i64>>);

/// The splits `method` evaluates given the plan's `folds` (the caller's (train, validation) index
/// arrays over `n_rows` rows) — all of them; the first for hold-out; for subagging a hold-out split
/// inside each training set (training fraction `inner_tau`, seeded by `seed` and the split's index,
/// as the library's own run) — and whether the method keeps each evaluated split's selected model
/// (its members are split models). `candidates_only`: the caller chooses among a list of
/// candidates, so a method that fits off the grid (EKCV) is refused before any fit.
#[pyfunction]
#[pyo3(signature = (method, n_rows, folds, seed=0, inner_tau=None, candidates_only=false))]
pub(crate) fn procedure_splits<'py>(
    py: Python<'py>,
    method: &str,
    n_rows: usize,
    folds: Folds<'py>,
    seed: u64,
    inner_tau: Option<f64>,
    candidates_only: bool,
) -> PyResult<(Vec<Pair<'py>>, bool)> {
    let (method, p) = method_of(method, candidates_only)?;
    let splits = user_splits(n_rows, folds)?;
    let mut config = SelectConfig::new(method);
    config.seed = Seed(seed);
    if let Some(tau) = inner_tau {
        config.inner_fraction = TrainFraction::new(tau).map_err(Failure::from)?;
    }
    let units = evaluation_splits(&splits, &config).map_err(Failure::from)?;
    let rows = |r: &[usize]| PyArray1::from_vec(py, r.iter().map(|&i| i as i64).collect());
    Ok((units.iter().map(|s| (rows(s.train()), rows(s.validation()))).collect(), p.keeps_split_models()))
}

/// The outcomes of the caller's evaluation: `risks[split][candidate]` on validation sets of
/// `sizes[split]` rows, each split selecting its argmin under `tie`.
fn outcomes(risks: Vec<Vec<f64>>, sizes: &[usize], tie: TieRule) -> Outcome<Vec<SplitOutcome>> {
    let m = risks.first().map_or(0, Vec::len);
    if risks.is_empty() || m == 0 || risks.len() != sizes.len() || risks.iter().any(|r| r.len() != m) {
        let shape = risks.iter().map(|r| r.len().to_string()).collect::<Vec<_>>().join(", ");
        return Err(invalid(
            "risks",
            "one row per split with one risk per candidate (at least one each), and one validation size per split",
            format!("{} rows of [{shape}] and {} sizes", risks.len(), sizes.len()),
        ));
    }
    risks
        .into_iter()
        .zip(sizes)
        .enumerate()
        .map(|(j, (row, &n_validation))| {
            if let Some(c) = row.iter().position(|r| r.is_nan()) {
                return Err(invalid("risks", "numbers (a failed fit's risk is +inf), not NaN", format!("NaN at split {j}, candidate {c}")));
            }
            let selected = argmin(&row, tie)?;
            Ok(SplitOutcome { risks: vec![row], selected, n_train: 0, n_validation, model: None, predictions: None })
        })
        .collect()
}

/// The conclusion of `method` from the caller's `risks[split][candidate]` (on the splits
/// [`procedure_splits`] gave, validation sets of `sizes[split]` rows): the procedure's own choice
/// over the candidates in their order (the first is the simplest for the one-standard-error rule),
/// with `tie` for every argmin. Returns a dict: `selected` (each split's candidate), `members` (a
/// list of (split, candidate, validation risk): split `None` for a candidate refitted on all rows,
/// risk `None` where the member has none), `best` (the candidate of a single-model method, else
/// `None`), `mean` and `standard_error` (the size-weighted CV curve).
#[pyfunction]
#[pyo3(signature = (method, risks, sizes, classification, tie="first", one_se=false))]
pub(crate) fn procedure_choice<'py>(
    py: Python<'py>,
    method: &str,
    risks: Vec<Vec<f64>>,
    sizes: Vec<usize>,
    classification: bool,
    tie: &str,
    one_se: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (method, p) = method_of(method, true)?;
    let task = if classification { Task::Classification } else { Task::Regression };
    p.check_task(task).map_err(Failure::from)?;
    let mut config = SelectConfig::new(method);
    config.tie = TieRule::parse_name(tie).map_err(Failure::from)?;
    config.one_standard_error = one_se;
    config.check().map_err(Failure::from)?;
    let outcomes = outcomes(risks, &sizes, config.tie)?;
    // The candidates as a grid of their positions 1..=m, the first the simplest.
    let positions = (1..=outcomes[0].risks[0].len()).map(|i| i as f64).collect();
    let grid = Grid::new("candidate", positions, Scale::Integer, false).map_err(Failure::from)?;
    let ctx = ChoiceContext {
        outcomes: &outcomes,
        curve: cv_curve(&outcomes),
        grid: &grid,
        composite: None,
        tie: config.tie,
        one_standard_error: one_se,
        aggregation: Aggregation::default_for(task),
    };
    let choice = p.choose(&ctx).map_err(Failure::from)?;
    let members: Vec<(Option<usize>, usize, Option<f64>)> = choice
        .members
        .iter()
        .map(|c| {
            let split = match c {
                agghoo::select::MemberChoice::FromSplit { split, .. } => Some(*split),
                _ => None,
            };
            (split, c.grid_index(), c.validation_risk(&outcomes))
        })
        .collect();
    let out = PyDict::new(py);
    out.set_item("selected", ctx.selected())?;
    out.set_item("best", (!p.combines_members()).then(|| members[0].1))?;
    out.set_item("members", members)?;
    out.set_item("mean", ctx.curve.mean.clone())?;
    out.set_item("standard_error", ctx.curve.standard_error.clone())?;
    Ok(out)
}

/// Adds this module's functions to `agghoo._native`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(procedure_info, m)?)?;
    m.add_function(wrap_pyfunction!(procedure_splits, m)?)?;
    m.add_function(wrap_pyfunction!(procedure_choice, m)?)
}
