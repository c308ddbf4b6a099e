//! `agghoo._native`: the compiled half of the Python package `agghoo`.
//!
//! Kept deliberately thin: arrays come in as contiguous `float64` (the Python layer converts),
//! options as the CLI spells them, structured results as the library's JSON; every computation
//! runs with the GIL released. The Python modules in `python/agghoo/` give it scikit-learn's
//! shape.

mod errors;
mod jobs;
mod paths;
mod procedure;

use agghoo::data::{DEFAULT_NA_VALUES, Dataset, MissingPolicy, NaValues, Target, Task};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use agghoo::engine::{Executor, Job as _, Observed, Observer, Rayon};
use agghoo::family::{FamilyKind, FamilyParams, FamilySpec, GridSpec};
use agghoo::loss::Loss;
use agghoo::names::Named;
use agghoo::resample::{Plan, PlanContext, Splits};
use agghoo::select::{Aggregation, FittedModel, Method, SelectJob, TieRule};
use agghoo::spec::{Inputs, SelectSpec};
use agghoo::{Predictions, Seed};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{Failure, Outcome, invalid};

/// A row-major copy of a 2-D float64 array and its shape.
fn matrix(x: &PyReadonlyArray2<'_, f64>) -> Outcome<(Vec<f64>, usize, usize)> {
    let (n, d) = (x.shape()[0], x.shape()[1]);
    let values = x.as_slice().map_err(|_| invalid("X", "a C-contiguous float64 array", "a non-contiguous array"))?.to_vec();
    Ok((values, n, d))
}

/// Runs `work` on `threads` threads (all cores when `None`) with the GIL released, as
/// [`compute_with`] without feedback (for work that has no units).
fn compute<T: Send>(py: Python<'_>, threads: Option<usize>, work: impl FnOnce() -> Outcome<T> + Send) -> Outcome<T> {
    compute_with(py, threads, 0, move |_| work())
}

/// Runs `work` on `threads` threads (all cores when `None`) on a worker thread, with the GIL
/// released, handing it the executor its units run on. Meanwhile the calling thread wakes every
/// 100 ms: it writes the verbose lines (one per finished unit when `verbose` > 0, one per started
/// unit too when > 1) to `sys.stderr`, and checks for signals — on Ctrl-C the executor's
/// observer cancels the units not yet started, the call waits for those running and raises
/// `KeyboardInterrupt` (or whatever the signal handler raised).
///
/// A panic (a bug: the library returns errors) is caught here, on whichever thread it happened,
/// and becomes `agghoo.exceptions.InternalError` instead of pyo3's `PanicException`, which
/// `except Exception` does not catch.
fn compute_with<T: Send>(
    py: Python<'_>,
    threads: Option<usize>,
    verbose: u8,
    work: impl FnOnce(&dyn Executor) -> Outcome<T> + Send,
) -> Outcome<T> {
    let (sender, lines) = std::sync::mpsc::channel::<String>();
    let watch = Watch { cancelled: AtomicBool::new(false), verbose, lines: Mutex::new(sender), start: std::time::Instant::now() };
    let run = || {
        let executor = Observed::new(&Rayon, &watch);
        let run = || match threads {
            None | Some(0) => work(&executor),
            Some(t) => {
                agghoo::limits::check_count(agghoo::limits::Count::Threads, t as u128, format_args!("n_jobs = {t}"))?;
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().map_err(|e| Failure::internal(e.to_string()))?;
                pool.install(|| work(&executor))
            }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|payload| Err(Failure::panic(payload)))
    };
    let mut signal = None;
    let out = std::thread::scope(|scope| {
        let worker = scope.spawn(run);
        loop {
            let finished = py.detach(|| {
                let deadline = std::time::Instant::now() + std::time::Duration::from_millis(100);
                while !worker.is_finished() && std::time::Instant::now() < deadline {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                worker.is_finished()
            });
            let raised = write_lines(py, &lines);
            if signal.is_none()
                && let Some(e) = raised.map_or_else(|| py.check_signals().err(), Some)
            {
                signal = Some(e);
                watch.cancelled.store(true, Ordering::SeqCst);
            }
            if finished {
                break;
            }
        }
        worker.join().unwrap_or_else(|payload| Err(Failure::panic(payload)))
    });
    if let Some(e) = write_lines(py, &lines)
        && signal.is_none()
    {
        signal = Some(e);
    }
    match signal {
        Some(e) => Err(Failure::python(e)),
        None => out,
    }
}

/// The observer of a compiled call: cancelled by the calling thread on a signal, and the
/// verbose lines it queues for the calling thread to write.
struct Watch {
    cancelled: AtomicBool,
    verbose: u8,
    lines: Mutex<std::sync::mpsc::Sender<String>>,
    start: std::time::Instant,
}

impl Watch {
    fn say(&self, event: &str, unit: usize, total: usize) {
        let line = format!("[agghoo] unit {} of {total} {event} ({:.1} s)\n", unit + 1, self.start.elapsed().as_secs_f64());
        if let Ok(sender) = self.lines.lock() {
            let _ = sender.send(line);
        }
    }
}

impl Observer for Watch {
    fn started(&self, unit: usize, total: usize) {
        if self.verbose > 1 {
            self.say("started", unit, total);
        }
    }

    fn finished(&self, unit: usize, total: usize) {
        if self.verbose > 0 {
            self.say("finished", unit, total);
        }
    }

    fn keep_going(&self) -> bool {
        !self.cancelled.load(Ordering::SeqCst)
    }
}

/// Writes the queued verbose lines to `sys.stderr` (to the process's stderr if it is gone).
///
/// Returns the exception a signal handler raised during the write: writing to a pipe runs the
/// pending handlers, so a Ctrl-C landing then surfaces here (a `KeyboardInterrupt`, not an
/// `Exception`), and must not be swallowed with the failed write.
fn write_lines(py: Python<'_>, lines: &std::sync::mpsc::Receiver<String>) -> Option<PyErr> {
    let text: String = lines.try_iter().collect();
    if text.is_empty() {
        return None;
    }
    let written = py.import("sys").and_then(|sys| sys.getattr("stderr")).and_then(|err| {
        err.call_method1("write", (text.as_str(),))?;
        err.call_method0("flush")
    });
    match written {
        Ok(_) => None,
        Err(e) => {
            eprint!("{text}");
            (!e.is_instance_of::<pyo3::exceptions::PyException>(py)).then_some(e)
        }
    }
}

/// Sets the process-wide limits (`agghoo.set_limits`): `max_memory` a size as the CLI's
/// `--max-memory` takes it (`"8G"`, bytes), `counts` the CLI's `--limit KEY=N` pairs with the keys
/// spelled with underscores. Returns the limits now in force as (key, value) pairs.
#[pyfunction]
#[pyo3(signature = (max_memory=None, counts=Vec::new()))]
fn set_limits(max_memory: Option<String>, counts: Vec<(String, String)>) -> PyResult<Vec<(String, u64)>> {
    let mut limits = agghoo::limits::Limits::global();
    if let Some(size) = max_memory {
        limits.max_memory = agghoo::limits::parse_size(&size).map_err(Failure::from)?;
    }
    for (key, value) in counts {
        limits.set(&key.replace('_', "-"), &value).map_err(Failure::from)?;
    }
    limits.set_global();
    let counts = agghoo::limits::Count::ALL.iter().map(|c| (c.key().replace('-', "_"), limits.cap(*c)));
    Ok(std::iter::once(("max_memory".to_string(), limits.max_memory))
        .chain(counts)
        .chain(std::iter::once(("libsvm_expansion".to_string(), limits.libsvm_expansion)))
        .collect())
}

/// Checks `n` grid points against the grid-point limit (`estimator=` grids, which Python
/// enumerates); `what` names the grid.
#[pyfunction]
fn check_grid_points(n: u128, what: &str) -> PyResult<()> {
    Ok(agghoo::limits::check_count(agghoo::limits::Count::GridPoints, n, what).map_err(Failure::from)?)
}

/// Panics inside the compiled code, as a bug would: tests that a panic reaches Python as
/// `InternalError` (not for use otherwise).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: String) -> PyResult<()> {
    Ok(compute(py, Some(2), move || {
        use rayon::prelude::*;
        (0..4).into_par_iter().for_each(|i| {
            if i == 3 {
                panic!("{message}")
            }
        });
        Ok(())
    })?)
}

/// The target as the library holds it: class indices with their names, or reals.
fn target(y: &[f64], class_names: Option<Vec<String>>) -> Outcome<Target> {
    Ok(match class_names {
        None => Target::Real(y.to_vec()),
        Some(names) => Target::Classes { labels: class_indices("y", y, names.len())?, names },
    })
}

/// `values` as class indices below `n_classes` (`what` names them in the error).
fn class_indices(what: &'static str, values: &[f64], n_classes: usize) -> Outcome<Vec<u32>> {
    values
        .iter()
        .map(
            |&v| {
                if v >= 0.0 && v.fract() == 0.0 && (v as usize) < n_classes { Ok(v as u32) } else { Err(invalid(what, "class indices", v)) }
            },
        )
        .collect()
}

/// The family spec of the CLI's `--family` (a union of families separated by commas, such as
/// `knn,logistic`), `--grid` (named `axes` too) and `--param KEY=VALUE` (the string edge).
fn family_spec(family: &str, grid: Option<GridSpec>, params: Vec<(String, String)>, axes: Vec<(String, String)>) -> Outcome<FamilySpec> {
    let mut kinds = family.split(',').map(|name| FamilyKind::parse(name.trim()));
    let kind = kinds.next().unwrap_or_else(|| FamilyKind::parse(family))?;
    let union = kinds.collect::<agghoo::Result<Vec<_>>>()?;
    let axes = axes.into_iter().map(|(name, values)| agghoo::family::AxisSpec { name, values }).collect();
    let mut family_params = FamilyParams { grid, axes, union, ..FamilyParams::default() };
    for (k, v) in params {
        family_params.insert_pair(&format!("{k}={v}"))?;
    }
    Ok(FamilySpec::from_params(kind, &family_params)?)
}

/// Categorical columns as the Python layer passes them: (column index, text of each row or
/// `None` when missing).
pub(crate) type TextColumns = Vec<(usize, Vec<Option<String>>)>;

/// The features and target of a call as a data set (NaN features mean missing values).
fn dataset(
    values: Vec<f64>,
    feature_names: Vec<String>,
    y: &PyReadonlyArray1<'_, f64>,
    class_names: Option<Vec<String>>,
) -> Outcome<Dataset> {
    let y = y.as_slice().map_err(|_| invalid("y", "a contiguous float64 array", "a non-contiguous array"))?;
    Ok(Dataset::new_with_missing(values, feature_names, target(y, class_names)?, "y")?)
}

/// The data set of a call with its `categorical` columns read from their text (a job for Dask
/// workers carries them, and each worker encodes them per training set as a local run does).
pub(crate) fn call_data(
    values: Vec<f64>,
    feature_names: Vec<String>,
    y: &PyReadonlyArray1<'_, f64>,
    class_names: Option<Vec<String>>,
    categorical: &TextColumns,
) -> Outcome<Dataset> {
    with_text(dataset(values, feature_names, y, class_names)?, categorical)
}

/// The data set of a call with the caller's `sample_weight` (one per row), when given (a job for
/// a cluster, `job=True`, carries them to the workers).
fn with_sample_weight(data: Dataset, sample_weight: Option<Vec<f64>>) -> Outcome<Dataset> {
    match sample_weight {
        None => Ok(data),
        Some(w) => Ok(data.with_weights(w)?),
    }
}

/// The missing-value tokens of a `na_values=` list (the default ones for `None`).
fn na_values(list: Option<Vec<String>>) -> Outcome<NaValues> {
    Ok(list.map(NaValues::parse).transpose()?.unwrap_or_default())
}

/// A text column as the Python layer reads it (the cells of `na_values` become `None`), and the
/// warning due when `detected` (a column read as categorical because of its dtype) although
/// nearly all its values are numbers: its message and the values that are not numbers.
#[pyfunction]
#[pyo3(signature = (name, cells, na_values=None, detected=false))]
fn read_text(name: &str, cells: Vec<Option<String>>, na_values: Option<Vec<String>>, detected: bool) -> PyResult<TextRead> {
    let na = self::na_values(na_values)?;
    let cells: Vec<Option<String>> = cells.into_iter().map(|c| c.filter(|t| !na.is_missing(t))).collect();
    let warning = detected.then(|| agghoo::data::mostly_numeric(name, cells.iter().flatten().map(String::as_str))).flatten();
    Ok((cells, warning.map(|w| (w.to_string(), w.examples))))
}

/// [`read_text`]'s answer: the cells, and the warning with its examples.
type TextRead = (Vec<Option<String>>, Option<(String, Vec<String>)>);

/// `data` with its categorical columns read from their text (unchanged without any).
pub(crate) fn with_text(data: Dataset, categorical: &TextColumns) -> Outcome<Dataset> {
    if categorical.is_empty() {
        return Ok(data);
    }
    Ok(data.with_text_columns(categorical)?)
}

/// Every list of names the library parses, keyed by parameter (`method`, `plan`, `tie`, …): what
/// the Python package checks its arguments against.
#[pyfunction]
fn names() -> Vec<(&'static str, Vec<&'static str>)> {
    agghoo::names::all()
}

/// The caller's (train, validation) index arrays, one pair per split (any scikit-learn splitter's
/// output), checked and turned into splits by [`paths::user_splits`].
pub(crate) type Folds<'py> = Vec<(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>)>;

/// The paired comparison of procedures `a` and `b` from their test risks on the outer `folds` of
/// `n_rows` rows (the differences, the Nadeau–Bengio corrected t-test, Dietterich's 5×2cv test on
/// 5 × 2 folds), as JSON text: what `compare` reports for each pair.
#[pyfunction]
fn compare_paired<'py>(a: &str, a_risks: Vec<f64>, b: &str, b_risks: Vec<f64>, n_rows: usize, folds: Folds<'py>) -> PyResult<String> {
    let outer = paths::user_splits(n_rows, folds)?;
    Ok(jobs::to_json(&agghoo::estimate::compare_paired(a, &a_risks, b, &b_risks, &outer).map_err(Failure::from)?)?)
}

/// The plan written `text` ([`Plan::parse_with_groups`]'s forms: `group:V` reads the groups that
/// come with the call), stratified when `stratify` is true, or by the library's default rule
/// ([`Plan::stratified_by_default`]) when it is `None`, as the CLI does without `--stratify` /
/// `--no-stratify`.
fn plan_or_group(text: &str, stratify: Option<bool>, task: Task) -> Outcome<Plan> {
    let plan = Plan::parse_with_groups(text, stratify == Some(true)).map_err(Failure::from)?;
    Ok(if stratify.is_none() { plan.stratified_by_default(task) } else { plan })
}

/// A run's data as Python passes it besides `X` and `y` (a dict whose keys are these fields'
/// names): the names of the columns and classes (class indices in `y` when `class_names` is
/// given), the text of the categorical columns, the missing-value tokens they were read with,
/// a group id per row (group plans), a weight per row, the caller's (train, validation) index
/// arrays (any scikit-learn splitter's output: they replace the spec's plan), for `select` the
/// caller's `risks[split][grid point]` on them (a scorer on [`paths::path_outputs`]), and the
/// missing-value policy the rows were prepared with (`missing`, the library's names; `error` when
/// left out): NaN features are refused, naming their row and column, unless it imputes (the
/// rows of `drop` come without them).
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct CallData<'py> {
    feature_names: Vec<String>,
    #[pyo3(default)]
    missing: Option<String>,
    #[pyo3(default)]
    class_names: Option<Vec<String>>,
    #[pyo3(default)]
    categorical: TextColumns,
    #[pyo3(default)]
    na_values: Option<Vec<String>>,
    #[pyo3(default)]
    groups: Option<Vec<u32>>,
    #[pyo3(default)]
    sample_weight: Option<Vec<f64>>,
    #[pyo3(default)]
    splits: Option<Folds<'py>>,
    #[pyo3(default)]
    risks: Option<Vec<Vec<f64>>>,
}

/// How a call runs (a dict of these keys): `threads` (all cores when `None`), `job` (return the
/// [`jobs::Job`] whose units a cluster evaluates, `agghoo.dask`, instead of running here),
/// `verbose` (see [`compute_with`]).
#[derive(Default, FromPyObject)]
#[pyo3(from_item_all)]
struct RunOptions {
    threads: Option<usize>,
    job: bool,
    verbose: u8,
}

/// A call's rows, ready for the library: the data set (with its weights and missing-value
/// tokens), the groups and the caller's splits, and what a [`jobs::Job`] carries besides.
struct Rows {
    data: Dataset,
    groups: Option<Vec<u32>>,
    splits: Option<Splits>,
    risks: Option<Vec<Vec<f64>>>,
    names: (Vec<String>, Option<Vec<String>>, TextColumns),
}

impl Rows {
    /// The rows of `x`, `y` and `call` (a job carries their weights).
    fn new(x: &PyReadonlyArray2<'_, f64>, y: &PyReadonlyArray1<'_, f64>, call: CallData<'_>) -> Outcome<Self> {
        let (values, n_rows, _) = matrix(x)?;
        let splits = call.splits.map(|pairs| paths::user_splits(n_rows, pairs)).transpose()?;
        let policy = call.missing.as_deref().map(MissingPolicy::parse_name).transpose().map_err(Failure::from)?.unwrap_or_default();
        let data = call_data(values, call.feature_names.clone(), y, call.class_names.clone(), &call.categorical)?;
        if !policy.imputes() {
            data.refuse_missing().map_err(Failure::from)?;
        }
        let data = with_sample_weight(data, call.sample_weight)?;
        // The tokens the Python layer read the text columns with, when given, recorded in the
        // model's schema (none recorded reads as the default ones, as a Dask job's model has).
        let data = match call.na_values {
            Some(list) => data.with_na_values(NaValues::parse(list).map_err(Failure::from)?),
            None => data,
        };
        Ok(Self { data, groups: call.groups, splits, risks: call.risks, names: (call.feature_names, call.class_names, call.categorical) })
    }

    /// Runs a call with the GIL released (as [`compute_with`]): with `job`, makes the job whose
    /// units a cluster evaluates (`make_job`); otherwise computes the result here (`local`, its
    /// units on the executor) and gives it to Python with `output`.
    fn run<'py, T: Send>(
        self,
        py: Python<'py>,
        run: &RunOptions,
        make_job: impl FnOnce(&Inputs<'_>) -> Outcome<jobs::Kind> + Send,
        local: impl FnOnce(&Inputs<'_>, &dyn Executor) -> Outcome<T> + Send,
        output: impl FnOnce(T) -> PyResult<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let Self { data, groups, splits, risks: _, names } = self;
        let job = run.job;
        let made = compute_with(py, run.threads, run.verbose, move |executor| {
            let inputs = Inputs { data: &data, groups: groups.as_deref(), folds: None, splits };
            Ok(if job { jobs::Made::job(make_job(&inputs)?, inputs.data) } else { jobs::Made::Text(local(&inputs, executor)?) })
        })?;
        match made {
            jobs::Made::Job(kind, weights) => jobs::Job::new(*kind, names.0, names.1, names.2, weights).into_py(py),
            jobs::Made::Text(result) => output(result),
        }
    }
}

/// A call's spec read from its JSON text (its errors naming the field) and checked by
/// `validate`, its run options (a call with the caller's risks runs here, never as a job) and
/// its rows.
fn prepare<S: serde::de::DeserializeOwned>(
    spec: &str,
    validate: fn(&S) -> agghoo::Result<()>,
    x: &PyReadonlyArray2<'_, f64>,
    y: &PyReadonlyArray1<'_, f64>,
    data: CallData<'_>,
    run: Option<RunOptions>,
) -> Outcome<(S, RunOptions, Rows)> {
    let spec: S = spec_of(spec)?;
    validate(&spec)?;
    let mut run = run.unwrap_or_default();
    run.job &= data.risks.is_none();
    let rows = Rows::new(x, y, data)?;
    Ok((spec, run, rows))
}

/// Runs the selection procedure of `spec` (the JSON text of a [`SelectSpec`], as `agghoo select
/// --json` records it) on `x`, `y` and the rest of `data` ([`CallData`]) and returns the fitted
/// model with the report as JSON; with `run["job"]` ([`RunOptions`]), the [`jobs::Job`] instead.
/// With the caller's `risks`, those replace the loss's on the splits the method evaluates (the
/// first one for hold-out), and the call runs here.
#[pyfunction]
#[pyo3(signature = (x, y, spec, data, run=None))]
fn select<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    spec: &str,
    data: CallData<'py>,
    run: Option<RunOptions>,
) -> PyResult<Bound<'py, PyAny>> {
    let (spec, run, mut rows) = prepare(spec, SelectSpec::validate, &x, &y, data, run)?;
    let risks = rows.risks.take();
    rows.run(
        py,
        &run,
        |inputs| {
            let config = spec.config(spec.preprocess(inputs.data));
            Ok(jobs::Kind::Select(SelectJob::new(spec.family.clone(), config, inputs.data, &spec.splits(inputs)?)?))
        },
        |inputs, executor| {
            let family = spec.family(inputs.data)?;
            let splits = spec.splits(inputs)?;
            let Some(risks) = risks else {
                return Ok(spec.run_on(family.as_ref(), inputs.data, &splits, executor)?);
            };
            use agghoo::select::{conclude, evaluation_options, evaluation_splits};
            let (data, config) = (inputs.data, spec.config(spec.preprocess(inputs.data)));
            let options = evaluation_options(&config, data)?;
            let units = evaluation_splits(&splits, &config)?;
            let outcomes = agghoo::engine::outcomes_from_risks(family.as_ref(), data, &units, &risks, &options, executor)?;
            Ok(conclude(family.as_ref(), data, &units, &config, outcomes)?)
        },
        |(model, report)| jobs::select_output(py, model, &report),
    )
}

/// The risk of one rule (`spec`: the JSON text of an [`EstimateSpec`], its family at its
/// `value`) estimated on the spec's plan or the caller's splits, with the standard error, for
/// each of its losses; closed-form leave-one-out / GCV where the family has it (unless the
/// spec says `never`) and, for a bootstrap plan, the bootstrap estimators (.632, .632+).
/// Returns the CLI's `--json` result (`estimate`, `bootstrap`) as JSON text, or with
/// `run["job"]` the [`jobs::Job`].
#[pyfunction]
#[pyo3(signature = (x, y, spec, data, run=None))]
fn estimate<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    spec: &str,
    data: CallData<'py>,
    run: Option<RunOptions>,
) -> PyResult<Bound<'py, PyAny>> {
    use agghoo::estimate::EstimateJob;
    use agghoo::spec::EstimateSpec;
    let (spec, run, rows) = prepare(spec, EstimateSpec::validate, &x, &y, data, run)?;
    rows.run(
        py,
        &run,
        |inputs| {
            let bootstrap = spec.is_bootstrap(inputs).then_some(spec.seed);
            let job = EstimateJob::new(spec.rule().spec()?, 0, spec.config(inputs.data), inputs.data, &spec.splits(inputs)?)?;
            Ok(jobs::Kind::Estimate { job, bootstrap })
        },
        |inputs, executor| {
            let outcome = spec.run(inputs, executor)?;
            jobs::estimate_text(&outcome.estimate, outcome.bootstrap.as_ref())
        },
        |text| Ok(text.into_pyobject(py)?.into_any()),
    )
}

/// Nested cross-validation of selection procedures (`spec`: the JSON text of a [`CompareSpec`])
/// on identical outer splits of its outer plan (or the caller's splits), each selecting over
/// the family's grid on inner splits of its inner plan; with the paired comparisons. Returns
/// the CLI's `compare --json` result as JSON text, or with `run["job"]` the [`jobs::Job`] (one
/// unit per outer split).
#[pyfunction]
#[pyo3(signature = (x, y, spec, data, run=None))]
fn compare<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    spec: &str,
    data: CallData<'py>,
    run: Option<RunOptions>,
) -> PyResult<Bound<'py, PyAny>> {
    use agghoo::estimate::NestedJob;
    use agghoo::spec::CompareSpec;
    let (spec, run, rows) = prepare(spec, CompareSpec::validate, &x, &y, data, run)?;
    rows.run(
        py,
        &run,
        |inputs| {
            let nested = NestedJob { config: spec.config(inputs.data)?, outer: spec.outer_splits(inputs)? };
            nested.prepare(inputs.data)?;
            Ok(jobs::Kind::Nested(nested))
        },
        |inputs, executor| jobs::to_json(&spec.run(inputs, executor)?),
        |text| Ok(text.into_pyobject(py)?.into_any()),
    )
}

/// The [`FamilySpec`] (JSON text) of Python's `family` (a union of families separated by
/// commas, such as `knn,logistic`), `grid` (the CLI's `--grid` text), `params` (its `--param
/// KEY=VALUE` pairs) and `axes` (named axes of a multi-axis grid, `--grid NAME=VALUES`): the
/// `family` of the spec a call passes.
#[pyfunction]
#[pyo3(signature = (family, grid=None, params=Vec::new(), axes=Vec::new()))]
fn family_spec_json(family: &str, grid: Option<String>, params: Vec<(String, String)>, axes: Vec<(String, String)>) -> PyResult<String> {
    let grid = grid.map(|g| GridSpec::parse(&g)).transpose().map_err(Failure::from)?;
    Ok(jobs::to_json(&family_spec(family, grid, params, axes)?)?)
}

/// The [`Plan`] (JSON text) written `text` (the CLI's forms, and `group:V`), stratified when
/// `stratify` is true, or by the library's default rule for a `classification` target when it is
/// `None`: the plan of the spec a call passes.
#[pyfunction]
#[pyo3(signature = (text, stratify=None, classification=false))]
fn plan_spec_json(text: &str, stratify: Option<bool>, classification: bool) -> PyResult<String> {
    let task = if classification { Task::Classification } else { Task::Regression };
    Ok(jobs::to_json(&plan_or_group(text, stratify, task)?)?)
}

/// The number of splits of the plan written `text` (the forms of [`plan_spec_json`]) whatever
/// the data, or `None` when it depends on the rows or the groups ([`Plan::n_splits`]).
#[pyfunction]
fn plan_n_splits(text: &str) -> PyResult<Option<usize>> {
    Ok(plan_or_group(text, Some(false), Task::Regression)?.n_splits())
}

/// The [`Loss`] (JSON text) named `name` (`squared`, `01`, `pinball:0.9`, …).
#[pyfunction]
fn loss_spec_json(name: &str) -> PyResult<String> {
    Ok(jobs::to_json(&Loss::parse(name).map_err(Failure::from)?)?)
}

/// The loss named `name` (`squared`, `01`, `pinball:0.9`, …; the task's default when `None`) for
/// a `classification` or regression target, as the library reads it: its name, and what it reads
/// besides the predictions (`"probabilities"`, `"decision_scores"`, or `None`). A loss of the
/// other task is refused.
#[pyfunction]
#[pyo3(signature = (name, classification))]
fn loss_info(name: Option<&str>, classification: bool) -> PyResult<(String, Option<&'static str>)> {
    let task = if classification { Task::Classification } else { Task::Regression };
    let loss = name.map(Loss::parse).transpose().map_err(Failure::from)?.unwrap_or_else(|| Loss::default_for(task));
    loss.check_task(task).map_err(Failure::from)?;
    Ok((loss.name(), loss.needs()))
}

/// The empirical risk of the loss named `loss` (the library's [`Loss::risk`], weighted by
/// `sample_weight` when given) of the `predicted` values of the rows whose targets are `y`; for a
/// classification loss both are class indices below `n_classes`, with the probabilities `proba`
/// (rows × classes, row-major) or the binary decision scores `decision` when the loss reads them.
#[pyfunction]
#[pyo3(signature = (loss, y, predicted, n_classes=0, proba=None, decision=None, sample_weight=None))]
fn loss_risk(
    loss: &str,
    y: Vec<f64>,
    predicted: Vec<f64>,
    n_classes: usize,
    proba: Option<Vec<f64>>,
    decision: Option<Vec<f64>>,
    sample_weight: Option<Vec<f64>>,
) -> PyResult<f64> {
    let loss = Loss::parse(loss).map_err(Failure::from)?;
    let n = predicted.len();
    let (predictions, class_names) = if loss.task() == Task::Classification {
        let labels = class_indices("predicted", &predicted, n_classes)?;
        if let Some(p) = proba.as_ref().filter(|p| p.len() != n * n_classes) {
            return Err(invalid(
                "proba",
                "one probability per row and class",
                format!("{} values for {n} rows × {n_classes} classes", p.len()),
            )
            .into());
        }
        if let Some(d) = decision.as_ref().filter(|d| d.len() != n) {
            return Err(invalid("decision", "one score per row", format!("{} scores for {n} rows", d.len())).into());
        }
        (Predictions::Classes { labels, n_classes, proba, decision }, Some((0..n_classes).map(|c| c.to_string()).collect()))
    } else {
        (Predictions::Real(predicted), None)
    };
    let truth =
        with_sample_weight(Dataset::new(Vec::new(), Vec::new(), target(&y, class_names)?, "y").map_err(Failure::from)?, sample_weight)?;
    Ok(loss.risk(&predictions, &truth.all()).map_err(Failure::from)?)
}

/// The plan `method` uses when none is given (the library's [`Method::default_plan`]), built
/// with `n_splits` splits and training fraction `tau` where the plan has them, in its text form.
#[pyfunction]
fn default_plan(method: &str, n_splits: usize, tau: f64) -> PyResult<String> {
    use agghoo::resample::{Plan, PlanSettings};
    let kind = Method::parse_name(method).map_err(Failure::from)?.default_plan();
    let settings = PlanSettings { n_splits: Some(n_splits), tau: Some(tau), ..PlanSettings::default() };
    Ok(Plan::from_kind(kind, &settings).map_err(Failure::from)?.to_string())
}

/// The training and validation rows of one split.
type IndexPair<'py> = (Bound<'py, PyArray1<usize>>, Bound<'py, PyArray1<usize>>);

/// Feature selection run from `spec` (the JSON of the library's `FeaturesSpec`, as `agghoo
/// features --json` records it) on `x`, `y` and the rest of `data` ([`CallData`]; each
/// categorical column one candidate feature, encoded inside every training set); with its
/// `evaluate` (an outer plan), the honest evaluation — the selection redone inside every outer
/// training fold, next to the naive estimate. Returns the CLI's `features --json` result as JSON
/// text, or with `run["job"]` ([`RunOptions`], and `evaluate`) the [`jobs::Job`].
#[pyfunction]
#[pyo3(signature = (x, y, spec, data, run=None))]
fn select_features<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    spec: &str,
    data: CallData<'py>,
    run: Option<RunOptions>,
) -> PyResult<Bound<'py, PyAny>> {
    use agghoo::features::HonestJob;
    use agghoo::spec::FeaturesSpec;
    let (spec, run, rows) = prepare(spec, FeaturesSpec::validate, &x, &y, data, run)?;
    if run.job && spec.evaluate.is_none() {
        return Err(invalid("evaluate", "an outer plan: only the honest evaluation is split into units", "none").into());
    }
    rows.run(
        py,
        &run,
        |inputs| {
            let outer = spec.outer_splits(inputs)?.ok_or_else(|| Failure::internal("an evaluation without its outer splits".into()))?;
            let honest = HonestJob { config: spec.honest_config(inputs.data)?, outer };
            honest.prepare(inputs.data)?;
            Ok(jobs::Kind::Honest(honest))
        },
        |inputs, executor| jobs::to_json(&spec.run(inputs, executor)?),
        |text| Ok(text.into_pyobject(py)?.into_any()),
    )
}

/// A spec from its JSON text: a field that is unknown or malformed is a `ValueError` naming it.
fn spec_of<T: serde::de::DeserializeOwned>(text: &str) -> Outcome<T> {
    serde_json::from_str(text).map_err(|e| invalid("spec", "a spec whose every field the library reads", e))
}

/// k-fold (`folds = n` for leave-one-out) CV of an incremental learner by TreeCV or by k
/// separate trainings, run from `spec` (the JSON of the library's `TreecvSpec`, as `agghoo treecv
/// --json` records it). Returns the CLI's `treecv --json` report as JSON text.
#[pyfunction]
#[pyo3(signature = (x, y, feature_names, class_names, spec, threads=None))]
fn treecv(
    py: Python<'_>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    feature_names: Vec<String>,
    class_names: Option<Vec<String>>,
    spec: &str,
    threads: Option<usize>,
) -> PyResult<String> {
    use agghoo::spec::{Inputs, TreecvSpec};
    let spec: TreecvSpec = spec_of(spec)?;
    spec.validate().map_err(Failure::from)?;
    let (values, _, _) = matrix(&x)?;
    let data = dataset(values, feature_names, &y, class_names)?;
    data.refuse_missing().map_err(Failure::from)?; // TreeCV's learners do not impute
    let outcome = compute_with(py, threads, 0, move |executor| Ok(spec.run(&Inputs::of(&data), executor)?))?;
    jobs::to_json(&outcome).map_err(Into::into)
}

/// The splits of `plan` (the forms of the CLI's `--outer`) on `n_rows` rows, stratified by
/// `strata` (class indices) when given and `stratify`; a list of (train, validation) index arrays.
#[pyfunction]
#[pyo3(signature = (plan, n_rows, seed=0, stratify=None, strata=None, groups=None))]
fn splits<'py>(
    py: Python<'py>,
    plan: &str,
    n_rows: usize,
    seed: u64,
    stratify: Option<bool>,
    strata: Option<Vec<u32>>,
    groups: Option<Vec<u32>>,
) -> PyResult<Vec<IndexPair<'py>>> {
    // Strata are given for a classification target: its V-fold plans are stratified by default.
    let plan = plan_or_group(plan, stratify, if strata.is_some() { Task::Classification } else { Task::Regression })?;
    let splits = compute(py, None, move || {
        let ctx = PlanContext { n_rows, strata: strata.as_deref(), groups: groups.as_deref() };
        Ok(plan.instantiate(&ctx, Seed(seed))?)
    })?;
    Ok(splits.iter().map(|s| (PyArray1::from_slice(py, s.train()), PyArray1::from_slice(py, s.validation()))).collect())
}

/// A fitted model: the library's `FittedModel` (the CLI's model file), picklable.
#[pyclass(frozen, module = "agghoo._native")]
struct Model {
    pub(crate) inner: FittedModel,
}

impl Model {
    /// `x` as a data set of the model's features (a placeholder target: prediction ignores it),
    /// its `categorical` columns read from their text.
    fn rows(&self, x: &PyReadonlyArray2<'_, f64>, categorical: &TextColumns) -> Outcome<Dataset> {
        let (values, n, d) = matrix(x)?;
        let schema = &self.inner.schema;
        if d != schema.feature_names.len() {
            return Err(Failure::from(agghoo::Error::SchemaMismatch(format!(
                "the model has {} features, X has {d} columns",
                schema.feature_names.len()
            ))));
        }
        let target = if schema.class_names.is_empty() {
            Target::Real(vec![0.0; n])
        } else {
            Target::Classes { labels: vec![0; n], names: schema.class_names.clone() }
        };
        with_text(Dataset::new_with_missing(values, schema.feature_names.clone(), target, schema.target_name.clone())?, categorical)
    }

    fn run(&self, py: Python<'_>, x: &PyReadonlyArray2<'_, f64>, categorical: &TextColumns) -> Outcome<Predictions> {
        let rows = self.rows(x, categorical)?;
        let model = &self.inner;
        compute(py, None, move || Ok(model.predict(&rows)?))
    }
}

#[pymethods]
impl Model {
    /// Reads a model from the JSON text of a model file.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        Ok(Self { inner: FittedModel::from_json(text, std::path::Path::new("<model>")).map_err(Failure::from)? })
    }

    /// Reads a model file written by `agghoo select --out` or by `save`.
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<Self> {
        Ok(Self { inner: FittedModel::load(&path).map_err(Failure::from)? })
    }

    /// The model file's JSON text.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|e| Failure::internal(e.to_string()).into())
    }

    /// Writes the model file (the format `agghoo predict --model` reads).
    fn save(&self, path: std::path::PathBuf) -> PyResult<()> {
        self.inner.save(&path).map_err(|e| Failure::from(e).into())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let from_json = slf.get_type().getattr("from_json")?;
        let text = slf.get().to_json()?;
        Ok((from_json, PyTuple::new(slf.py(), [text])?))
    }

    /// Predicted values (regression) or class indices (classification).
    #[pyo3(signature = (x, categorical=Vec::new()))]
    fn predict<'py>(&self, py: Python<'py>, x: PyReadonlyArray2<'py, f64>, categorical: TextColumns) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self.run(py, &x, &categorical)? {
            Predictions::Real(v) => PyArray1::from_vec(py, v).into_any(),
            Predictions::Classes { labels, .. } => PyArray1::from_vec(py, labels.into_iter().map(i64::from).collect()).into_any(),
        })
    }

    /// Class probabilities (rows × classes), or `None` when the model has none.
    #[pyo3(signature = (x, categorical=Vec::new()))]
    fn predict_proba<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        categorical: TextColumns,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        match self.run(py, &x, &categorical)? {
            Predictions::Classes { proba: Some(p), n_classes, .. } => {
                let n = p.len() / n_classes.max(1);
                Ok(Some(PyArray1::from_vec(py, p).reshape([n, n_classes])?))
            }
            _ => Ok(None),
        }
    }

    /// Binary decision scores (positive for the second class), or `None` when the model has none.
    #[pyo3(signature = (x, categorical=Vec::new()))]
    fn decision_function<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        categorical: TextColumns,
    ) -> PyResult<Option<Bound<'py, PyArray1<f64>>>> {
        match self.run(py, &x, &categorical)? {
            Predictions::Classes { decision: Some(d), .. } => Ok(Some(PyArray1::from_vec(py, d))),
            _ => Ok(None),
        }
    }

    /// The feature names the model was trained on, in order.
    #[getter]
    fn feature_names(&self) -> Vec<String> {
        self.inner.schema.feature_names.clone()
    }

    /// The missing-value tokens the model's training data were read with (`None`: the default).
    #[getter]
    fn na_values(&self) -> Option<Vec<String>> {
        self.inner.schema.na_values.as_ref().map(NaValues::tokens)
    }

    /// The categorical features (read from text), in column order.
    #[getter]
    fn categorical(&self) -> Vec<String> {
        self.inner.schema.categorical.clone()
    }

    /// The class names (empty for regression).
    #[getter]
    fn class_names(&self) -> Vec<String> {
        self.inner.schema.class_names.clone()
    }

    /// The family the model was selected from (its CLI name; `a,b` for a union).
    #[getter]
    fn family(&self) -> String {
        self.inner.family.clone()
    }

    /// The selection procedure that made the model (`agghoo`, `majhoo`, `cv`, …).
    #[getter]
    fn method(&self) -> &'static str {
        self.inner.method.name()
    }

    /// How the members are combined (`mean`, `vote`, `soft`, `score`).
    #[getter]
    fn aggregation(&self) -> &'static str {
        Some(self.inner.aggregation).name()
    }

    /// The hyperparameter value of each member.
    #[getter]
    fn member_values(&self) -> Vec<f64> {
        self.inner.members().iter().map(|m| m.value).collect()
    }
}

/// The registered families: name → capabilities (`probabilities`: classifiers give class
/// probabilities; `decision_scores`: binary classifiers give real scores; `sample_weight`: the
/// fits honour per-row weights), from the library's registry.
#[pyfunction]
fn families() -> std::collections::BTreeMap<&'static str, std::collections::BTreeMap<&'static str, bool>> {
    FamilyKind::ALL
        .map(FamilyKind::info)
        .iter()
        .map(|info| {
            let c = info.capabilities;
            let flags = [("probabilities", c.probabilities), ("decision_scores", c.decision_scores), ("sample_weight", info.sample_weight)];
            (info.name, flags.into_iter().collect())
        })
        .collect()
}

/// The missing-value policies (`missing=`), each with whether it leaves the missing values for
/// the fits to impute (TreeCV refuses those).
#[pyfunction]
fn missing_policies() -> Vec<(&'static str, bool)> {
    use agghoo::data::MissingPolicy;
    MissingPolicy::CHOICES.iter().map(|&(policy, name, _)| (name, policy.imputes())).collect()
}

/// The incremental learners: name → the `treecv` spec settings it reads (`lambda`, `centres`).
#[pyfunction]
fn learner_settings() -> std::collections::BTreeMap<&'static str, Vec<&'static str>> {
    use agghoo::treecv::LearnerKind;
    LearnerKind::CHOICES.iter().map(|&(kind, name, _)| (name, kind.settings().to_vec())).collect()
}

/// The hyperparameters whose values are integers, by the registry: every family's path axis on an
/// integer scale (`k`, `mtry`, …) and every setting that sweeps as an integer axis (`degree`, …).
#[pyfunction]
fn integer_axes() -> Vec<&'static str> {
    use agghoo::family::{AxisKind, Scale};
    let mut names: Vec<&'static str> = FamilyKind::ALL
        .map(FamilyKind::info)
        .iter()
        .flat_map(|info| {
            let path = info.path_axes.iter().copied().filter(move |_| info.path_scale == Scale::Integer);
            let settings =
                info.settings.iter().filter(|s| matches!(s.axis, Some(AxisKind::Numeric { scale: Scale::Integer, .. }))).map(|s| s.name);
            path.chain(settings)
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The index of the smallest risk, ties (within the library's relative tolerance) by `tie`.
#[pyfunction]
#[pyo3(signature = (risks, tie="first"))]
fn argmin(risks: Vec<f64>, tie: &str) -> PyResult<usize> {
    Ok(agghoo::select::argmin(&risks, TieRule::parse_name(tie).map_err(Failure::from)?).map_err(Failure::from)?)
}

/// The one-standard-error rule: the simplest grid point whose mean risk is within one standard
/// error of the smallest (the first grid point is the simplest unless `larger_is_simpler`).
#[pyfunction]
#[pyo3(signature = (mean, standard_error, tie="first", larger_is_simpler=false))]
fn one_standard_error(mean: Vec<f64>, standard_error: Vec<f64>, tie: &str, larger_is_simpler: bool) -> PyResult<usize> {
    Ok(agghoo::select::one_standard_error(&mean, &standard_error, TieRule::parse_name(tie).map_err(Failure::from)?, larger_is_simpler)
        .map_err(Failure::from)?)
}

/// The CV curve of `risks[split][grid point]` on validation sets of `sizes[split]` rows: the
/// size-weighted mean risk and the standard error of each grid point.
#[pyfunction]
fn risk_curve(risks: Vec<Vec<f64>>, sizes: Vec<usize>) -> PyResult<(Vec<f64>, Vec<f64>)> {
    if risks.len() != sizes.len() || risks.iter().any(|r| r.len() != risks[0].len()) {
        return Err(invalid(
            "risks",
            "one row of equal length per split, and one size per split",
            format!("{} rows, {} sizes", risks.len(), sizes.len()),
        )
        .into());
    }
    let rows: Vec<&[f64]> = risks.iter().map(Vec::as_slice).collect();
    let curve = agghoo::select::risk_curve(&rows, &sizes);
    Ok((curve.mean, curve.standard_error))
}

/// Combines the members' predictions of the same rows (`how`: mean, vote, soft, score), as the
/// library's models do: regression `values[member][row]`; classification `labels[member][row]`
/// with `n_classes` and, for the soft vote, `proba[member]` (rows × classes, row-major), for
/// the score mean `decision[member][row]`. `member_risks` orders the vote's tie rule (a member
/// without a validation risk, `None`, counts as 0, as in a model file). Returns
/// (values or labels, probabilities row-major or None).
#[pyfunction]
#[pyo3(signature = (how, member_risks, values=None, labels=None, n_classes=0, proba=None, decision=None))]
fn aggregate(
    how: &str,
    member_risks: Vec<Option<f64>>,
    values: Option<Vec<Vec<f64>>>,
    labels: Option<Vec<Vec<u32>>>,
    n_classes: usize,
    proba: Option<Vec<Vec<f64>>>,
    decision: Option<Vec<Vec<f64>>>,
) -> PyResult<(Vec<f64>, Option<Vec<f64>>)> {
    // One member is used as it is (`single`, what `meta.py` asks for then); otherwise a user's choice.
    let how = match how {
        "single" => Aggregation::Single,
        _ => <Option<Aggregation>>::parse_name(how).map_err(Failure::from)?.unwrap_or(Aggregation::Single),
    };
    let members: Vec<Predictions> = match (values, labels) {
        (Some(values), None) => values.into_iter().map(Predictions::Real).collect(),
        (None, Some(labels)) => {
            let mut proba = proba.map(|p| p.into_iter().map(Some).collect::<Vec<_>>()).unwrap_or_else(|| vec![None; labels.len()]);
            let mut decision = decision.map(|d| d.into_iter().map(Some).collect::<Vec<_>>()).unwrap_or_else(|| vec![None; labels.len()]);
            proba.resize(labels.len(), None);
            decision.resize(labels.len(), None);
            labels
                .into_iter()
                .zip(proba.into_iter().zip(decision))
                .map(|(labels, (proba, decision))| Predictions::Classes { labels, n_classes, proba, decision })
                .collect()
        }
        _ => return Err(invalid("members", "either values (regression) or labels (classification)", "both or neither").into()),
    };
    let member_risks: Vec<f64> = member_risks.into_iter().map(|r| r.unwrap_or(0.0)).collect();
    Ok(match agghoo::select::aggregate(&members, &member_risks, how).map_err(Failure::from)? {
        Predictions::Real(v) => (v, None),
        Predictions::Classes { labels, proba, .. } => (labels.into_iter().map(f64::from).collect(), proba),
    })
}

/// The real-data study on the study folder `data_dir` (`manifest.tsv` and `NAME.csv.gz` files)
/// run from `spec` (the JSON of the library's `StudySpec`: the quick or full settings and what
/// overrides them, as `agghoo study`'s flags give it). Returns the study's result (cells and
/// summary) as JSON text.
#[pyfunction]
#[pyo3(signature = (data_dir, spec, threads=None))]
fn study(py: Python<'_>, data_dir: std::path::PathBuf, spec: &str, threads: Option<usize>) -> PyResult<String> {
    use agghoo::experiments::study::{self, StudySpec};
    let config = spec_of::<StudySpec>(spec)?.config().map_err(Failure::from)?;
    let result = compute(py, threads, move || {
        let manifest = agghoo::data::study::StudyManifest::read(&data_dir)?;
        Ok(study::run(&manifest, &config)?)
    })?;
    serde_json::to_string(&result).map_err(|e| Failure::internal(e.to_string()).into())
}

/// The library version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_class::<jobs::Job>()?;
    m.add_function(wrap_pyfunction!(jobs::treecv_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::treecv_feed, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::treecv_schedule, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::treecv_subtree, m)?)?;
    m.add_function(wrap_pyfunction!(jobs::treecv_assemble, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    procedure::register(m)?;
    m.add_function(wrap_pyfunction!(paths::path_outputs, m)?)?;
    m.add_function(wrap_pyfunction!(splits, m)?)?;
    m.add_function(wrap_pyfunction!(estimate, m)?)?;
    m.add_function(wrap_pyfunction!(family_spec_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan_spec_json, m)?)?;
    m.add_function(wrap_pyfunction!(plan_n_splits, m)?)?;
    m.add_function(wrap_pyfunction!(loss_spec_json, m)?)?;
    m.add_function(wrap_pyfunction!(loss_info, m)?)?;
    m.add_function(wrap_pyfunction!(loss_risk, m)?)?;
    m.add_function(wrap_pyfunction!(default_plan, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(treecv, m)?)?;
    m.add_function(wrap_pyfunction!(select_features, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add("DEFAULT_NA_VALUES", DEFAULT_NA_VALUES.to_vec())?;
    m.add_function(wrap_pyfunction!(study, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    m.add_function(wrap_pyfunction!(integer_axes, m)?)?;
    m.add_function(wrap_pyfunction!(learner_settings, m)?)?;
    m.add_function(wrap_pyfunction!(missing_policies, m)?)?;
    m.add_function(wrap_pyfunction!(argmin, m)?)?;
    m.add_function(wrap_pyfunction!(names, m)?)?;
    m.add_function(wrap_pyfunction!(one_standard_error, m)?)?;
    m.add_function(wrap_pyfunction!(risk_curve, m)?)?;
    m.add_function(wrap_pyfunction!(compare_paired, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate, m)?)?;
    m.add_function(wrap_pyfunction!(set_limits, m)?)?;
    m.add_function(wrap_pyfunction!(check_grid_points, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
