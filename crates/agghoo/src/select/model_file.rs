//! The fitted result of a procedure: its members, how they are combined, and the training
//! schema; saved as versioned JSON and checked on load and on prediction.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::aggregate::{Aggregation, VoteTies, aggregate_with_ties};
use super::method::Method;
use crate::data::{Dataset, NaValues, Target, Task};
use crate::engine::{Executor, Rayon, map_ordered};
use crate::error::{Error, Result};
use crate::family::{Model, Predictor};
use crate::predictions::Predictions;

/// Version of the model-file format this build writes. Versions: 1, the first; 2 adds the
/// one-vs-one SVC model (`one_vs_one_svc`); 3 stores a forest's trees as splits and sparse leaf
/// values (formats 1–2 forests are still read); 4 adds categorical columns (the schema's
/// `categorical` names, the encoding in each member's preprocessing); 5 adds distance-weighted
/// k-NN (`weights`) and the grid point of members of multi-axis grids and unions; 6 adds the
/// schema's missing-value tokens (`na_values`) and whether the training data had missing values
/// (`missing_values`). A version is bumped whenever a file could hold
/// something an older build cannot read, so an older build names the version instead of calling
/// the file corrupted.
pub const MODEL_FORMAT_VERSION: u32 = 6;

/// The oldest model-file format this build still reads.
pub const MODEL_FORMAT_OLDEST_READ: u32 = 1;

/// What the model was trained on: feature names in order, the task, the class names, the
/// categorical features, how missing values were read and whether there were any.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schema {
    /// Feature names, in the order the model reads them.
    pub feature_names: Vec<String>,
    /// Classification or regression.
    pub task: Task,
    /// Class names by class index (empty for regression).
    pub class_names: Vec<String>,
    /// The target column's name.
    pub target_name: String,
    /// The categorical features (read as text at prediction), in column order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categorical: Vec<String>,
    /// The missing-value tokens the training data were read with (prediction rows are read with
    /// the same); `None` for data not read from text, and in files before format 6 (the default
    /// tokens then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub na_values: Option<NaValues>,
    /// Whether the training data had missing values (numeric or categorical): a model trained
    /// without any has no rule for them and refuses them at prediction. `None` in files before
    /// format 6 (a missing categorical value then reads as an unseen level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_values: Option<bool>,
}

impl Schema {
    /// The schema of a data set.
    pub fn of(data: &Dataset) -> Self {
        let class_names = match data.target() {
            Target::Classes { names, .. } => names.clone(),
            Target::Real(_) => Vec::new(),
        };
        Self {
            feature_names: data.feature_names().to_vec(),
            task: data.task(),
            class_names,
            target_name: data.target_name().to_string(),
            categorical: data.categorical_names(),
            na_values: data.na_values().cloned(),
            missing_values: Some(data.has_missing_values()),
        }
    }
}

/// A cheap fingerprint of a data set: its size and a 64-bit hash of its feature matrix (the
/// bits of every value, row-major, NaN canonical) and of its target (class indices or the bits
/// of the values). Stored in model files to recognise predictions made on the training rows;
/// equal data give equal fingerprints, and different data almost surely different ones (it is
/// not a cryptographic hash).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataFingerprint {
    /// Rows n.
    pub n_rows: usize,
    /// Features d.
    pub n_features: usize,
    /// The hash, as 16 hexadecimal digits.
    pub hash: Hash64,
}

/// A `u64` written as 16 hexadecimal digits in JSON (exact in every JSON reader).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Hash64(pub u64);

impl TryFrom<String> for Hash64 {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        u64::from_str_radix(&s, 16).map(Hash64).map_err(|_| format!("`{s}`: 16 hexadecimal digits"))
    }
}
impl From<Hash64> for String {
    fn from(h: Hash64) -> String {
        format!("{:016x}", h.0)
    }
}

impl DataFingerprint {
    /// The fingerprint of `data` (one pass over the values).
    pub fn of(data: &Dataset) -> Self {
        // FxHash-style mixing of 64-bit words: cheap, deterministic, order-sensitive.
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
        let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
        let mut h = mix(mix(0, data.n_rows() as u64), data.n_features() as u64);
        h = data.x().iter().fold(h, |h, &v| mix(h, bits(v)));
        h = match data.target() {
            Target::Classes { labels, .. } => labels.iter().fold(mix(h, 1), |h, &l| mix(h, u64::from(l))),
            Target::Real(values) => values.iter().fold(mix(h, 2), |h, &v| mix(h, bits(v))),
        };
        Self { n_rows: data.n_rows(), n_features: data.n_features(), hash: Hash64(h) }
    }
}

/// One member of a fitted procedure: a model at a selected grid point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Member {
    /// The fitted model (with its per-fold preprocessing).
    pub model: Model,
    /// Selected grid index m̂ (for EKCV: the grid point nearest to m̄).
    pub grid_index: usize,
    /// Selected hyperparameter value.
    pub value: f64,
    /// The member's validation risk on its own split, when it has one (vote tie-breaking).
    pub validation_risk: Option<f64>,
    /// For a multi-axis grid or a union of families: the member's family and the value of each
    /// of its axes (`value` is then its family's path value). Absent for a one-axis grid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub point: Option<crate::family::GridPoint>,
}

/// A fitted selection procedure: predict with [`FittedModel::predict`], save with
/// [`FittedModel::save`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedModel {
    format: String,
    format_version: u32,
    /// Version of agghoo that wrote the model.
    pub agghoo_version: String,
    /// The training schema.
    pub schema: Schema,
    /// The family's name.
    pub family: String,
    /// The grid's hyperparameter name.
    pub hyperparameter: String,
    /// The procedure.
    pub method: Method,
    /// How members are combined.
    pub aggregation: Aggregation,
    /// How the vote breaks ties (absent from files written before it existed, and from the
    /// CLI's: the lowest-risk member's class).
    #[serde(default, skip_serializing_if = "VoteTies::is_default")]
    pub vote_ties: VoteTies,
    members: Vec<Member>,
    /// The members merged into one equivalent model (averaged linear or kernel models), used
    /// for prediction when present; see [`Model::merge_mean`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    merged: Option<Model>,
    /// The fingerprint of the training data (absent from files written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    training: Option<DataFingerprint>,
}

impl FittedModel {
    /// Assembles a fitted model.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without members.
    pub fn new(
        schema: Schema,
        family: &str,
        hyperparameter: &str,
        method: Method,
        aggregation: Aggregation,
        members: Vec<Member>,
    ) -> Result<Self> {
        if members.is_empty() {
            return Err(Error::invalid("members", "at least one", 0));
        }
        // Averages of linear / kernel models are themselves such models: predict with one.
        let merged = if members.len() > 1 && matches!(aggregation, Aggregation::Mean | Aggregation::ScoreMean) {
            Model::merge_mean(&members.iter().map(|m| &m.model).collect::<Vec<_>>())?
        } else {
            None
        };
        Ok(Self {
            format: "agghoo-model".into(),
            format_version: MODEL_FORMAT_VERSION,
            agghoo_version: env!("CARGO_PKG_VERSION").into(),
            schema,
            family: family.into(),
            hyperparameter: hyperparameter.into(),
            method,
            aggregation,
            vote_ties: VoteTies::default(),
            members,
            merged,
            training: None,
        })
    }

    /// The same model with the vote's tie rule `ties` (it only matters for a hard vote).
    pub fn with_vote_ties(self, ties: VoteTies) -> Self {
        Self { vote_ties: ties, ..self }
    }

    /// The same model recording the fingerprint of its training data.
    pub fn with_training_data(self, data: &Dataset) -> Self {
        Self { training: Some(DataFingerprint::of(data)), ..self }
    }

    /// The fingerprint of the training data, when the model file has one.
    pub fn training_fingerprint(&self) -> Option<&DataFingerprint> {
        self.training.as_ref()
    }

    /// True when `data` are the training rows themselves (same fingerprint); false when they
    /// differ or the model does not know (files written before fingerprints existed).
    pub fn trained_on(&self, data: &Dataset) -> bool {
        self.training.is_some_and(|t| t == DataFingerprint::of(data))
    }

    /// The class probabilities of `predictions` (row-major, one column per class; vote
    /// fractions for a hard vote or a one-vs-one SVC).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a regression model or a classifier without probabilities
    /// (a binary SVC, or a score average: use the decision scores).
    pub fn probabilities<'a>(&self, predictions: &'a Predictions) -> Result<&'a [f64]> {
        let proba = |p: &'a Predictions| if let Predictions::Classes { proba, .. } = p { proba.as_deref() } else { None };
        self.soft_output(predictions, "class probabilities", proba, "a binary SVC or an averaged score gives decision scores")
    }

    /// The decision scores of `predictions` (binary problems: positive for the second class).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a regression model or a classifier without decision scores.
    pub fn decision_scores<'a>(&self, predictions: &'a Predictions) -> Result<&'a [f64]> {
        let decision = |p: &'a Predictions| if let Predictions::Classes { decision, .. } = p { decision.as_deref() } else { None };
        self.soft_output(predictions, "decision scores", decision, "they exist for two classes: svc, logistic, votes")
    }

    /// `get(predictions)`, or the error naming `what` is missing and why (`hint` for classifiers).
    fn soft_output<'a>(
        &self,
        predictions: &'a Predictions,
        what: &str,
        get: impl Fn(&'a Predictions) -> Option<&'a [f64]>,
        hint: &str,
    ) -> Result<&'a [f64]> {
        get(predictions).ok_or_else(|| {
            let reason = match predictions {
                Predictions::Real(_) => format!("this `{}` model is a regression: it predicts numbers", self.family),
                Predictions::Classes { .. } => format!("this `{}` model gives none ({hint})", self.family),
            };
            Error::Unsupported { what: what.into(), reason }
        })
    }

    /// True when the members were merged into one model (see [`Model::merge_mean`]).
    pub fn is_merged(&self) -> bool {
        self.merged.is_some()
    }

    /// The members (V for Agghoo/Majhoo/ACV, one for hold-out, CV, EKCV).
    pub fn members(&self) -> &[Member] {
        &self.members
    }

    /// Predicts the rows of `data`, whose features must carry the training schema's names in the
    /// same order (use [`FittedModel::align`] to reorder a data set by name first).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for other columns, or columns categorical in the data and not
    /// in the model (or the reverse); [`Error::MissingAtPrediction`] for a missing value the
    /// model has no rule for (a numeric one when it does not impute, a categorical one when it
    /// neither imputes nor had missing values in training); member prediction errors.
    pub fn predict(&self, data: &Dataset) -> Result<Predictions> {
        self.predict_with(data, &Rayon)
    }

    /// [`predict`](Self::predict) with the members predicting as the units of `executor`.
    ///
    /// # Errors
    /// As [`predict`](Self::predict).
    pub fn predict_with(&self, data: &Dataset, executor: &dyn Executor) -> Result<Predictions> {
        if data.feature_names() != self.schema.feature_names.as_slice() {
            return Err(Error::SchemaMismatch(format!(
                "model expects [{}], data have [{}]",
                self.schema.feature_names.join(", "),
                data.feature_names().join(", ")
            )));
        }
        if data.categorical_names() != self.schema.categorical {
            return Err(Error::SchemaMismatch(format!(
                "the model's categorical columns are [{}], the data's [{}]",
                self.schema.categorical.join(", "),
                data.categorical_names().join(", ")
            )));
        }
        if data.has_missing_values() {
            let imputes = self.members.iter().all(|m| m.model.imputes_missing());
            // A model with a rule for missing values (its training data had some, or it was set up
            // to impute them, as the study does when the rows to predict have some) encodes a
            // missing level; one without refuses it, numeric or categorical alike.
            let encodes = imputes || self.schema.missing_values != Some(false);
            let p = data.n_features().max(1);
            let refused = |i: usize| if data.levels(i % p).is_some() { !encodes } else { !imputes };
            if let Some(i) = data.x().iter().enumerate().position(|(i, v)| v.is_nan() && refused(i)) {
                return Err(Error::MissingAtPrediction {
                    row: i / p,
                    column: data.feature_names()[i % p].clone(),
                    trained_with_missing: self.schema.missing_values.unwrap_or(true),
                });
            }
        }
        let rows = data.all().with_par(executor.par(if self.merged.is_some() { 1 } else { self.members.len() }));
        if let Some(merged) = &self.merged {
            let out = merged.predict(&rows)?;
            if out.has_non_finite() {
                return Err(Error::Numerical("a prediction is not finite".into()));
            }
            return Ok(out);
        }
        let per_member: Vec<Predictions> = map_ordered(executor, self.members.len(), |j| self.members[j].model.predict(&rows))?;
        let risks: Vec<f64> = self.members.iter().map(|m| m.validation_risk.unwrap_or(0.0)).collect();
        let out = aggregate_with_ties(&per_member, &risks, self.aggregation, self.vote_ties)?;
        if out.has_non_finite() {
            return Err(Error::Numerical("a prediction is not finite".into()));
        }
        Ok(out)
    }

    /// Picks the schema's feature columns of `data` by name, in the schema's order.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] naming the first missing column.
    pub fn align(&self, data: &Dataset) -> Result<Dataset> {
        let columns = self
            .schema
            .feature_names
            .iter()
            .map(|name| {
                data.feature_names()
                    .iter()
                    .position(|n| n == name)
                    .ok_or_else(|| Error::SchemaMismatch(format!("column `{name}` is missing")))
            })
            .collect::<Result<Vec<_>>>()?;
        data.select_columns(&columns)
    }

    /// Writes the model as JSON.
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::Unsupported`] for a model of a family defined outside agghoo
    /// ([`Model::Custom`](crate::family::Model::Custom)), which the file format cannot hold;
    /// [`Error::CorruptModel`] for a schema naming a feature or a class twice.
    pub fn save(&self, path: &Path) -> Result<()> {
        // A file its own loader refuses is never written.
        self.schema.check_names()?;
        if self.members.iter().any(|m| m.model.is_custom()) {
            return Err(Error::Unsupported {
                what: format!("saving a model of the family `{}`", self.family),
                reason: "it is defined outside agghoo, and a model file holds only agghoo's own families".into(),
            });
        }
        crate::json_file::write(path, self)
    }

    /// Reads a model written by [`FittedModel::save`].
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::BadFile`] for a file that is not an agghoo model, of another
    /// format version, or corrupted.
    pub fn load(path: &Path) -> Result<Self> {
        Self::from_json(&crate::json_file::read(path)?, path)
    }

    /// Parses the JSON of a model file; `path` names the source in errors.
    ///
    /// # Errors
    /// As [`FittedModel::load`].
    pub fn from_json(text: &str, path: &Path) -> Result<Self> {
        let bad = |message: String| Error::BadFile { path: path.into(), message };
        let value: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        if value.get("format").and_then(|f| f.as_str()) != Some("agghoo-model") {
            return Err(bad("not an agghoo model file".into()));
        }
        let version = value.get("format_version").and_then(serde_json::Value::as_u64).unwrap_or(0);
        if !(u64::from(MODEL_FORMAT_OLDEST_READ)..=u64::from(MODEL_FORMAT_VERSION)).contains(&version) {
            return Err(bad(format!(
                "model format version {version}; this agghoo ({}) reads versions {MODEL_FORMAT_OLDEST_READ} to {MODEL_FORMAT_VERSION}",
                env!("CARGO_PKG_VERSION")
            )));
        }
        let model: FittedModel = serde_json::from_value(value).map_err(|e| bad(format!("corrupted model: {e}")))?;
        model.validate().map_err(|e| bad(format!("corrupted model: {e}")))?;
        Ok(model)
    }

    /// The checks of [`FittedModel::from_json`] after parsing: distinct feature names, members, their internals against
    /// the schema ([`Model::validate`]), the aggregation against the task, and the merged model
    /// equal to the merge of the members.
    fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(what));
        let schema = &self.schema;
        if self.members.is_empty() {
            return bad("model has no members".into());
        }
        schema.check_names()?;
        let mut features = schema.feature_names.iter();
        if !schema.categorical.iter().all(|c| features.any(|f| f == c)) {
            return bad("the categorical columns are not features of the schema, in order".into());
        }
        let k = schema.class_names.len();
        match schema.task {
            Task::Classification if k < 2 => return bad(format!("a classification schema with {k} class names")),
            Task::Regression if k > 0 => return bad("a regression schema with class names".into()),
            _ => {}
        }
        let fits = match self.aggregation {
            Aggregation::Single => true,
            Aggregation::Mean => schema.task == Task::Regression,
            Aggregation::Vote | Aggregation::SoftVote => schema.task == Task::Classification,
            Aggregation::ScoreMean => schema.task == Task::Classification && k == 2,
        };
        if !fits {
            return bad(format!("aggregation {:?} does not fit {:?} with {k} classes", self.aggregation, schema.task));
        }
        let d = schema.feature_names.len();
        let categorical: Vec<usize> = (0..d).filter(|&j| schema.categorical.contains(&schema.feature_names[j])).collect();
        for (j, member) in self.members.iter().enumerate() {
            member.model.validate(d, schema.task, k).map_err(|e| Error::CorruptModel(format!("member {j}: {e}")))?;
            if member.model.encoded_columns() != categorical {
                return bad(format!("member {j} does not encode the schema's categorical columns"));
            }
            if !member.value.is_finite() || member.validation_risk.is_some_and(|r| !r.is_finite()) {
                return bad(format!("member {j}: a non-finite hyperparameter value or validation risk"));
            }
        }
        // The merged model is derived from the members: recomputing it detects any edit.
        let expected = if self.members.len() > 1 && matches!(self.aggregation, Aggregation::Mean | Aggregation::ScoreMean) {
            Model::merge_mean(&self.members.iter().map(|m| &m.model).collect::<Vec<_>>())?
        } else {
            None
        };
        if expected != self.merged {
            return bad("the merged model is not the merge of the members".into());
        }
        Ok(())
    }
}

impl Schema {
    /// Refuses a feature or a class named twice: two classes of one name print as one
    /// (`proba_0,proba_0`) and map one label to two classes.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the name.
    fn check_names(&self) -> Result<()> {
        if let Some(name) = first_repeated(&self.feature_names) {
            return Err(Error::CorruptModel(format!("the feature `{name}` is named twice in the schema")));
        }
        if let Some(name) = first_repeated(&self.class_names) {
            return Err(Error::CorruptModel(format!("the class `{name}` is named twice in the schema")));
        }
        Ok(())
    }
}

/// The first name of `names` that an earlier one repeats.
fn first_repeated(names: &[String]) -> Option<&String> {
    let mut seen = std::collections::HashSet::with_capacity(names.len());
    names.iter().find(|&n| !seen.insert(n))
}
