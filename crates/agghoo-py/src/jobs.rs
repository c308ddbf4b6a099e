//! Units of work for a cluster: the `Job` a selection, an estimate or a nested CV becomes when
//! `agghoo.dask` runs it (its units evaluated on workers, assembled here), and the seams of the
//! distributed TreeCV (feed a model with the chunks a worker holds, run a subtree there, reduce).

use agghoo::Seed;
use agghoo::data::{Dataset, Transform};
use agghoo::engine::{self, Job as _, Rayon, SplitOutcome};
use agghoo::estimate::{BootstrapConfig, EstimateConfig, EstimateJob, NestedJob, OuterOutcome, RiskEstimate, bootstrap_risk_on};
use agghoo::family::forest::ForestModel;
use agghoo::family::{Family, Model as MemberModel};
use agghoo::features::{HonestJob, HonestOutcome};
use agghoo::incremental::Incremental;
use agghoo::resample::Splits;
use agghoo::select::{FittedModel, Report, SelectJob};
use agghoo::spec::TreecvSpec;
use agghoo::treecv::{self, ChunkedData, LearnerVisitor, TreeCvConfig, distributed};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use serde::{Deserialize, Serialize};

use crate::errors::{Failure, Outcome};
use crate::{CallData, Model, Rows, TextColumns, compute, dataset, matrix, spec_of, with_text};

/// The library's value as JSON text (`float_roundtrip`: every `f64` comes back bit for bit).
pub(crate) fn to_json<T: Serialize>(value: &T) -> Outcome<String> {
    serde_json::to_string(value).map_err(|e| Failure::internal(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(what: &'static str, text: &str) -> Outcome<T> {
    serde_json::from_str(text).map_err(|e| Failure::from(agghoo::Error::CorruptModel(format!("{what}: {e}"))))
}

/// What a binding made: a job for a cluster (with the data's row weights), or the result of a
/// local run (JSON text; for a selection, the model and its report).
pub(crate) enum Made<T = String> {
    Job(Box<Kind>, Option<Vec<f64>>),
    Text(T),
}

impl<T> Made<T> {
    /// A job for a cluster over `data`: the data's row weights, when it has them, travel with it.
    pub(crate) fn job(kind: Kind, data: &Dataset) -> Self {
        Made::Job(Box::new(kind), data.weights().map(<[f64]>::to_vec))
    }
}

/// The jobs the package distributes.
#[derive(Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Kind {
    /// A selection procedure: one unit per evaluated split.
    Select(SelectJob),
    /// The risk of one rule: one unit per split (none for the closed form); the bootstrap
    /// estimators (.632, .632+), when asked for, are computed at assembly, on the client.
    Estimate { job: EstimateJob, bootstrap: Option<Seed> },
    /// Nested CV: one unit per outer split.
    Nested(NestedJob),
    /// Honest feature selection: one unit per outer fold, and one for the naive selection.
    Honest(HonestJob),
}

#[derive(Clone, Serialize, Deserialize)]
struct State {
    kind: Kind,
    feature_names: Vec<String>,
    class_names: Option<Vec<String>>,
    /// The categorical columns' text (column index, the cell of each row or `None`): shipped
    /// with the job, so that every worker encodes them inside each training set as a local run.
    #[serde(default)]
    categorical: TextColumns,
    /// The row weights of a weighted call (`sample_weight`): shipped with the job, so that every
    /// worker fits and scores with them as a local run does.
    #[serde(default)]
    weights: Option<Vec<f64>>,
}

/// The units of a selection, an estimate or a nested CV, evaluable anywhere the data are: a
/// picklable value (its JSON text) that `agghoo.dask` scatters once to the workers.
#[pyclass(frozen, module = "agghoo._native")]
pub(crate) struct Job {
    state: State,
    token: String,
}

impl Job {
    pub(crate) fn new(
        kind: Kind,
        feature_names: Vec<String>,
        class_names: Option<Vec<String>>,
        categorical: TextColumns,
        weights: Option<Vec<f64>>,
    ) -> Self {
        Self::of(State { kind, feature_names, class_names, categorical, weights })
    }

    fn of(state: State) -> Self {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        serde_json::to_string(&state).unwrap_or_default().hash(&mut hasher);
        Self { token: format!("agghoo-job-{:016x}", hasher.finish()), state }
    }

    pub(crate) fn into_py(self, py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
        Ok(Bound::new(py, self)?.into_any())
    }

    fn data(&self, x: &PyReadonlyArray2<'_, f64>, y: &PyReadonlyArray1<'_, f64>) -> Outcome<Dataset> {
        let (values, _, _) = matrix(x)?;
        let data =
            with_text(dataset(values, self.state.feature_names.clone(), y, self.state.class_names.clone())?, &self.state.categorical)?;
        Ok(match &self.state.weights {
            Some(w) => data.with_weights(w.clone())?,
            None => data,
        })
    }
}

/// A unit's outcome as it travels from a worker to the client: MessagePack, a binary
/// self-describing serde format (every `f64` as its 8 bytes, so bit for bit; fields by name, as
/// the library's tagged enums need), in its [`Wire`] form. A split's kept member is most of an
/// outcome (a forest's trees, a kernel model's support vectors): as JSON text its numbers cost
/// more to write and to read than the member costs to move.
fn pack<T: Wire>(value: T) -> Outcome<Vec<u8>> {
    rmp_serde::to_vec_named(&value.into_wire()).map_err(|e| Failure::internal(format!("a unit's outcome could not be serialized: {e}")))
}

/// The outcome [`pack`] made.
fn unpack<T: Wire>(bytes: &[u8]) -> Outcome<T> {
    rmp_serde::from_slice(bytes).map(T::from_wire).map_err(|e| Failure::from(agghoo::Error::CorruptModel(format!("a unit's outcome: {e}"))))
}

/// An outcome as it is packed: the value itself, or with its fitted member split off as a
/// [`Member`].
trait Wire: Sized {
    type Form: Serialize + serde::de::DeserializeOwned;
    fn into_wire(self) -> Self::Form;
    fn from_wire(form: Self::Form) -> Self;
}

impl Wire for SplitOutcome {
    type Form = (SplitOutcome, Option<Member>);
    fn into_wire(mut self) -> Self::Form {
        let member = self.model.take().map(Member::from);
        (self, member)
    }
    fn from_wire((mut outcome, member): Self::Form) -> Self {
        outcome.model = member.map(MemberModel::from);
        outcome
    }
}

/// Outcomes without a fitted member travel as they are.
macro_rules! wire_as_is {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            type Form = Self;
            fn into_wire(self) -> Self {
                self
            }
            fn from_wire(form: Self) -> Self {
                form
            }
        }
    )*};
}
wire_as_is!(OuterOutcome, HonestOutcome);

/// A split's kept member as it travels: tagged from outside, so that MessagePack reads a forest
/// as it streams and the forest's serde sees a binary format (its trees' arrays then travel as
/// byte strings). The model file's internal tag (`"kind"`) would have serde buffer the whole
/// model as generic values first, and hide from it that the format is binary.
#[derive(Serialize, Deserialize)]
enum Member {
    Forest(ForestModel),
    Pipeline { transform: Transform, inner: Box<Member> },
    Other(MemberModel),
}

impl From<MemberModel> for Member {
    fn from(model: MemberModel) -> Self {
        match model {
            MemberModel::Forest(forest) => Member::Forest(forest),
            MemberModel::Pipeline { transform, inner } => Member::Pipeline { transform, inner: Box::new(Member::from(*inner)) },
            other => Member::Other(other),
        }
    }
}

impl From<Member> for MemberModel {
    fn from(member: Member) -> Self {
        match member {
            Member::Forest(forest) => MemberModel::Forest(forest),
            Member::Pipeline { transform, inner } => MemberModel::Pipeline { transform, inner: Box::new(MemberModel::from(*inner)) },
            Member::Other(model) => model,
        }
    }
}

/// An outcome of `J` as JSON text (what [`Job::outcome_json`] shows).
fn outcome_json<J: engine::Job>(bytes: &[u8]) -> Outcome<String>
where
    J::Outcome: Wire,
{
    to_json(&unpack::<J::Outcome>(bytes)?)
}

/// Evaluates `units` of `job` on `data` (in parallel on the current pool), as packed outcomes.
fn evaluate_units<J: engine::Job>(job: &J, data: &Dataset, units: &[usize]) -> Outcome<Vec<Vec<u8>>>
where
    J::Outcome: Wire,
{
    let prepared = job.prepare(data)?;
    job.evaluate(&prepared, data, units, &Rayon)?.into_iter().map(pack).collect()
}

fn assemble<J: engine::Job>(job: &J, data: &Dataset, outcomes: &[Vec<u8>]) -> Outcome<J::Output>
where
    J::Outcome: Wire,
{
    use rayon::prelude::*;
    // Read on the client's pool (a forest member is megabytes), kept in unit order.
    let outcomes = outcomes.par_iter().map(|b| unpack(b)).collect::<Outcome<Vec<J::Outcome>>>()?;
    let prepared = job.prepare(data)?;
    Ok(job.assemble(&prepared, data, outcomes)?)
}

/// `(Model, report JSON)`, as `select` returns them.
pub(crate) fn select_output<'py>(py: Python<'py>, model: FittedModel, report: &Report) -> PyResult<Bound<'py, PyAny>> {
    let report = to_json(report)?;
    Ok(PyTuple::new(py, [Bound::new(py, Model { inner: model })?.into_any(), report.into_pyobject(py)?.into_any()])?.into_any())
}

/// The `estimate` result as JSON: the estimate and, for a bootstrap plan (its seed and the
/// rule), the bootstrap estimators on the same splits.
pub(crate) fn estimate_json(
    data: &Dataset,
    splits: &Splits,
    config: &EstimateConfig,
    estimate: RiskEstimate,
    bootstrap: Option<(Seed, &dyn Family)>,
) -> Outcome<String> {
    let bootstrap = match bootstrap {
        Some((seed, rule)) => {
            let mut b = BootstrapConfig::new(splits.len());
            b.seed = seed;
            b.loss = config.losses.first().copied();
            b.preprocess = config.preprocess;
            Some(bootstrap_risk_on(rule, 0, data, splits, &b, &Rayon)?)
        }
        None => None,
    };
    estimate_text(&estimate, bootstrap.as_ref())
}

/// The `estimate` result as JSON: the estimate and the bootstrap estimators, when made.
pub(crate) fn estimate_text(estimate: &RiskEstimate, bootstrap: Option<&agghoo::estimate::BootstrapEstimate>) -> Outcome<String> {
    to_json(&serde_json::json!({ "estimate": estimate, "bootstrap": bootstrap }))
}

enum Output {
    Select(Box<(FittedModel, Report)>),
    Text(String),
}

#[pymethods]
impl Job {
    /// The number of units (splits, or outer splits for a nested CV).
    #[getter]
    fn n_units(&self) -> usize {
        match &self.state.kind {
            Kind::Select(j) => j.n_units(),
            Kind::Estimate { job, .. } => job.n_units(),
            Kind::Nested(j) => j.n_units(),
            Kind::Honest(j) => j.n_units(),
        }
    }

    /// Which job: `select`, `estimate`, `nested` or `features`.
    #[getter]
    fn kind(&self) -> &'static str {
        match &self.state.kind {
            Kind::Select(_) => "select",
            Kind::Estimate { .. } => "estimate",
            Kind::Nested(_) => "nested",
            Kind::Honest(_) => "features",
        }
    }

    /// Evaluates the units `units` (global indices) on `x`, `y` with `threads` threads (all cores
    /// when `None`), GIL released; one outcome per unit, in the order given, as MessagePack bytes
    /// ([`Job::outcome_json`] shows one as JSON).
    #[pyo3(signature = (x, y, units, threads=None))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray1<'py, f64>,
        units: Vec<usize>,
        threads: Option<usize>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let data = self.data(&x, &y)?;
        let kind = &self.state.kind;
        let outcomes = compute(py, threads, move || match kind {
            Kind::Select(j) => evaluate_units(j, &data, &units),
            Kind::Estimate { job, .. } => evaluate_units(job, &data, &units),
            Kind::Nested(j) => evaluate_units(j, &data, &units),
            Kind::Honest(j) => evaluate_units(j, &data, &units),
        })?;
        Ok(outcomes.iter().map(|o| PyBytes::new(py, o)).collect())
    }

    /// Assembles the outcomes of every unit (in unit order) into the result the local call
    /// returns: `(Model, report)` for a selection, the JSON text for an estimate or a nested CV.
    #[pyo3(signature = (x, y, outcomes, threads=None))]
    fn assemble<'py>(
        &self,
        py: Python<'py>,
        x: PyReadonlyArray2<'py, f64>,
        y: PyReadonlyArray1<'py, f64>,
        outcomes: Vec<Bound<'py, PyBytes>>,
        threads: Option<usize>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let outcomes: Vec<Vec<u8>> = outcomes.iter().map(|o| o.as_bytes().to_vec()).collect();
        let data = self.data(&x, &y)?;
        let kind = &self.state.kind;
        let out = compute(py, threads, move || {
            Ok(match kind {
                Kind::Select(j) => Output::Select(Box::new(assemble(j, &data, &outcomes)?)),
                Kind::Estimate { job, bootstrap } => {
                    let estimate = assemble(job, &data, &outcomes)?;
                    // The bootstrap estimators need the rule on the client; the plain estimate does not.
                    let rule = bootstrap.map(|_| job.family.build_for(&data, &job.config.preprocess)).transpose()?;
                    Output::Text(estimate_json(&data, &job.splits, &job.config, estimate, bootstrap.zip(rule.as_deref()))?)
                }
                Kind::Nested(j) => Output::Text(to_json(&assemble(j, &data, &outcomes)?)?),
                Kind::Honest(j) => Output::Text(to_json(&assemble(j, &data, &outcomes)?)?),
            })
        })?;
        match out {
            Output::Select(done) => select_output(py, done.0, &done.1),
            Output::Text(text) => Ok(text.into_pyobject(py)?.into_any()),
        }
    }

    /// An outcome `evaluate` returned, as JSON text (to inspect it).
    fn outcome_json(&self, outcome: &[u8]) -> PyResult<String> {
        Ok(match &self.state.kind {
            Kind::Select(_) => outcome_json::<SelectJob>(outcome),
            Kind::Estimate { .. } => outcome_json::<EstimateJob>(outcome),
            Kind::Nested(_) => outcome_json::<NestedJob>(outcome),
            Kind::Honest(_) => outcome_json::<HonestJob>(outcome),
        }?)
    }

    /// The job as JSON text (what pickling ships).
    fn to_json(&self) -> PyResult<String> {
        Ok(to_json(&self.state)?)
    }

    /// A job from its JSON text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        Ok(Self::of(from_json("a job", text)?))
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let from_json = slf.get_type().getattr("from_json")?;
        let text = slf.get().to_json()?;
        Ok((from_json, PyTuple::new(slf.py(), [text])?))
    }

    /// A cheap, deterministic token for Dask (hashing the whole job would cost more than it saves).
    fn __dask_tokenize__(&self) -> String {
        self.token.clone()
    }
}

// ---- distributed TreeCV -------------------------------------------------------------------

/// The rows of each of `folds` chunks, as `treecv` makes them (file order, or shuffled by `seed`).
#[pyfunction]
#[pyo3(signature = (n_rows, folds, shuffle=true, seed=0))]
pub(crate) fn treecv_chunks(
    py: Python<'_>,
    n_rows: usize,
    folds: usize,
    shuffle: bool,
    seed: u64,
) -> PyResult<Vec<Bound<'_, PyArray1<usize>>>> {
    let chunks = treecv::chunk_rows(n_rows, folds, shuffle.then_some(Seed(seed))).map_err(Failure::from)?;
    Ok(chunks.iter().map(|c| PyArray1::from_slice(py, c)).collect())
}

/// One step of the distributed recursion for Python: (kind, model step, worker, first, last chunk).
type ScheduleStep = (&'static str, Option<usize>, usize, usize, usize);

/// The distributed recursion's tasks in submission order for chunks placed by `owner[chunk]`
/// ([`distributed::schedule`]): per step (`"feed"` or `"subtree"`, the index of the step whose
/// model it starts from or `None`, the worker, the first and the last chunk).
#[pyfunction]
pub(crate) fn treecv_schedule(owner: Vec<usize>) -> PyResult<Vec<ScheduleStep>> {
    let steps = distributed::schedule(&owner).map_err(Failure::from)?;
    Ok(steps
        .into_iter()
        .map(|s| {
            let kind = match s.kind {
                distributed::StepKind::Feed => "feed",
                distributed::StepKind::Subtree => "subtree",
            };
            (kind, s.model, s.worker, s.first, s.last)
        })
        .collect())
}

/// The learner named as `treecv` names it, run on a block of consecutive chunks.
struct OnBlock<'a, F> {
    data: &'a Dataset,
    sizes: &'a [usize],
    work: F,
}

trait BlockWork {
    type Output;
    fn run<L: Incremental>(self, learner: &L, block: &ChunkedData) -> agghoo::Result<Self::Output>;
}

impl<F: BlockWork> LearnerVisitor for OnBlock<'_, F> {
    type Output = agghoo::Result<F::Output>;
    fn visit<L: Incremental>(self, learner: &L) -> Self::Output {
        let block = ChunkedData::block(learner, self.data, self.sizes)?;
        self.work.run(learner, &block)
    }
}

fn model_of<L: Incremental>(learner: &L, text: Option<&str>, n_features: usize) -> agghoo::Result<L::Model> {
    match text {
        None => Ok(learner.init(n_features)),
        Some(t) => serde_json::from_str(t).map_err(|e| agghoo::Error::CorruptModel(format!("a TreeCV model in transit: {e}"))),
    }
}

fn model_text<M: Serialize>(model: &M) -> agghoo::Result<String> {
    serde_json::to_string(model).map_err(|e| agghoo::Error::Internal(format!("a TreeCV model could not be serialized: {e}")))
}

struct Feed<'a>(Option<&'a str>);

impl BlockWork for Feed<'_> {
    type Output = String;
    fn run<L: Incremental>(self, learner: &L, block: &ChunkedData) -> agghoo::Result<String> {
        let mut model = model_of(learner, self.0, block.n_features())?;
        distributed::feed(learner, &mut model, block);
        model_text(&model)
    }
}

struct Subtree<'a>(Option<&'a str>, TreeCvConfig);

impl BlockWork for Subtree<'_> {
    type Output = distributed::SubtreeOutcome;
    fn run<L: Incremental>(self, learner: &L, block: &ChunkedData) -> agghoo::Result<Self::Output> {
        let model = model_of(learner, self.0, block.n_features())?;
        if block.n_chunks() == 1 {
            let loss = block.chunk(0).loss_sum(learner, &model);
            return Ok(distributed::SubtreeOutcome { loss_sums: vec![loss], n_point_updates: 0 });
        }
        distributed::subtree(learner, block, model, &self.1)
    }
}

/// A TreeCV seam call's spec (the JSON of the library's `TreecvSpec`, as `treecv` takes it:
/// its learner, and for a subtree its branch parallelism) and its rows.
fn seam(spec: &str, x: &PyReadonlyArray2<'_, f64>, y: &PyReadonlyArray1<'_, f64>, data: CallData<'_>) -> Outcome<(TreecvSpec, Dataset)> {
    let spec: TreecvSpec = spec_of(spec)?;
    spec.validate()?;
    Ok((spec, Rows::new(x, y, data)?.data))
}

/// `work` on the chunks of `sizes` (the rows of `data`, in chunk order) with the spec's learner.
fn on_block<W>(py: Python<'_>, spec: &TreecvSpec, data: Dataset, sizes: Vec<usize>, threads: Option<usize>, work: W) -> Outcome<W::Output>
where
    W: BlockWork + Send,
    W::Output: Send,
{
    let learner = spec.learner_spec();
    compute(py, threads, move || {
        let n_classes = data.target().n_classes();
        Ok(learner.visit(n_classes, OnBlock { data: &data, sizes: &sizes, work })??)
    })
}

/// Feeds the rows `x`, `y` (consecutive chunks, in order; `data` their names as `select` takes
/// them) to the model `model` (JSON text; a new model of `spec`'s learner when `None`) and
/// returns the updated model's JSON text: one worker's share of an update.
#[pyfunction]
#[pyo3(signature = (spec, model, x, y, data, threads=None))]
pub(crate) fn treecv_feed(
    py: Python<'_>,
    spec: &str,
    model: Option<String>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    data: CallData<'_>,
    threads: Option<usize>,
) -> PyResult<String> {
    let (spec, data) = seam(spec, &x, &y, data)?;
    let n = data.n_rows();
    Ok(on_block(py, &spec, data, vec![n], threads, Feed(model.as_deref()))?)
}

/// Runs the TreeCV recursion of `spec` over the chunks of `sizes` (the rows `x`, `y`, in chunk
/// order) from the model `model` trained on every other chunk; returns their loss sums and the
/// points fed.
#[pyfunction]
#[pyo3(signature = (spec, model, x, y, data, sizes, threads=None))]
#[allow(clippy::too_many_arguments)] // the spec and the model, the rows (3) and their chunks, and the threads
pub(crate) fn treecv_subtree(
    py: Python<'_>,
    spec: &str,
    model: Option<String>,
    x: PyReadonlyArray2<'_, f64>,
    y: PyReadonlyArray1<'_, f64>,
    data: CallData<'_>,
    sizes: Vec<usize>,
    threads: Option<usize>,
) -> PyResult<(Vec<f64>, u64)> {
    let (spec, data) = seam(spec, &x, &y, data)?;
    let out = on_block(py, &spec, data, sizes, threads, Subtree(model.as_deref(), spec.config()))?;
    Ok((out.loss_sums, out.n_point_updates))
}

/// The `treecv --json` report of `spec` from the loss sums of every chunk (chunk order) and the
/// sizes: the reduction of a distributed run (tree method, fixed order).
#[pyfunction]
pub(crate) fn treecv_assemble(spec: &str, sums: Vec<f64>, sizes: Vec<usize>, n_classes: usize, wall_seconds: f64) -> PyResult<String> {
    struct Name;
    impl LearnerVisitor for Name {
        type Output = &'static str;
        fn visit<L: Incremental>(self, learner: &L) -> &'static str {
            learner.name()
        }
    }
    let spec: TreecvSpec = spec_of(spec)?;
    spec.validate().map_err(Failure::from)?;
    let name = spec.learner_spec().visit(n_classes, Name).map_err(Failure::from)?;
    let config = spec.config();
    let updates = treecv::expected_updates_of(&sizes, treecv::Method::Tree);
    let report = treecv::assemble_report(name, &config, &sums, sizes, updates, wall_seconds).map_err(Failure::from)?;
    Ok(to_json(&report)?)
}
