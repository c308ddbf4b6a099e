//! Fitted models: the [`Predictor`] and [`FamilyModel`] traits and the dispatch of the closed,
//! serializable [`Model`] enum (whose variants the `families!` registration generates).

use super::Model;
use crate::data::{Task, Transform, View};
use crate::error::{Error, Result};
use crate::predictions::Predictions;

/// Anything that predicts the rows of a view (features only are read).
pub trait Predictor {
    /// Predictions for every row of `rows`, in order.
    ///
    /// # Errors
    /// [`crate::Error::SchemaMismatch`] when the view has another number of features.
    fn predict(&self, rows: &View<'_>) -> Result<Predictions>;
}

/// The fitted model of a registered family: what [`Model`] needs from each of its variants. Each
/// model type implements it in its family's folder and is named on the folder's registration
/// line (`families!` in `family/mod.rs`), which makes it a variant of [`Model`].
pub trait FamilyModel: Predictor + Send + Sync + std::fmt::Debug {
    /// Checks the internal consistency of a model read from a file against `n_features`
    /// features: array lengths, indices, tree structure, class indices, finite numbers, valid
    /// hyperparameters ([`Model::validate`] then checks the task and classes by
    /// [`output`](FamilyModel::output)).
    ///
    /// # Errors
    /// [`Error::CorruptModel`] describing the inconsistency.
    fn validate(&self, n_features: usize) -> Result<()>;
    /// The task the model predicts and its number of classes (0 for regression).
    fn output(&self) -> (Task, usize);
    /// The single model equal to the average of `models` (Agghoo's merge), when the family has
    /// one; called only on models that all [`merges_with`](FamilyModel::merges_with) the first.
    /// The default, `None`: the members are averaged (or vote) at prediction time.
    ///
    /// # Errors
    /// The family's merge errors (members of different shapes).
    fn merge_mean(models: &[&Self]) -> Result<Option<Self>>
    where
        Self: Sized,
    {
        let _ = models;
        Ok(None)
    }
    /// False when `self` and `other` cannot be merged into one model of their family (kernels
    /// that differ); the default: true.
    fn merges_with(&self, other: &Self) -> bool
    where
        Self: Sized,
    {
        let _ = other;
        true
    }
}

/// The fitted model of a family defined outside this crate (a [`Family`](super::Family)
/// implemented by a user of the library, see [`CustomModel`]).
pub trait CustomPredictor: Predictor + Send + Sync + std::fmt::Debug {
    /// The task the model predicts and its number of classes (0 for regression).
    fn output(&self) -> (Task, usize);
}

/// A fitted model of a family defined outside this crate: it predicts, votes and averages like
/// any other member, but it has no place in the closed model-file format, so a selection whose
/// members hold one cannot be saved ([`FittedModel::save`](crate::select::FittedModel::save)
/// refuses it with [`Error::Unsupported`]). Two custom models are equal when they are the same
/// allocation.
#[derive(Clone, Debug)]
pub struct CustomModel(pub std::sync::Arc<dyn CustomPredictor>);

impl CustomModel {
    /// Wraps a user's fitted model.
    pub fn new(model: impl CustomPredictor + 'static) -> Self {
        CustomModel(std::sync::Arc::new(model))
    }
}

impl PartialEq for CustomModel {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Predictor for CustomModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        self.0.predict(rows)
    }
}

impl FamilyModel for CustomModel {
    fn validate(&self, _: usize) -> Result<()> {
        Err(Error::CorruptModel("a model of a family defined outside agghoo has no model-file form".into()))
    }
    fn output(&self) -> (Task, usize) {
        self.0.output()
    }
}

/// A [`Model`] seen one layer deep: a fitted model, or a preprocessing and the model behind it.
pub(super) enum Layer<'a> {
    /// A registered family's fitted model, or a [`CustomModel`].
    Fitted(&'a dyn FamilyModel),
    /// [`Model::Pipeline`].
    Pipeline(&'a Transform, &'a Model),
}

impl Predictor for Model {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        match self.layer() {
            Layer::Fitted(m) => m.predict(rows),
            Layer::Pipeline(transform, inner) => {
                let transformed = transform.apply(rows)?;
                inner.predict(&transformed.all().with_par(rows.par()))
            }
        }
    }
}

impl Model {
    /// Checks the internal consistency of a model read from a file against the training schema
    /// (`n_features` features; `task`; `n_classes` classes, ignored for regression): array
    /// lengths, indices, tree structure, class indices, finite numbers, valid hyperparameters,
    /// and that the model predicts the schema's task and classes. A corrupted or hand-edited
    /// file is refused on load instead of panicking or predicting wrongly.
    ///
    /// # Errors
    /// [`crate::Error::CorruptModel`] describing the inconsistency.
    pub fn validate(&self, n_features: usize, task: Task, n_classes: usize) -> Result<()> {
        match self.layer() {
            Layer::Fitted(m) => m.validate(n_features)?,
            Layer::Pipeline(transform, inner) => {
                transform.validate(n_features)?;
                return inner.validate(transform.n_outputs(n_features), task, n_classes);
            }
        }
        let (t, k) = self.output();
        if t != task || (task == Task::Classification && k != n_classes) {
            return Err(Error::CorruptModel(format!(
                "the model predicts {}, its schema is {}",
                describe(t, k),
                describe(task, if task == Task::Classification { n_classes } else { 0 })
            )));
        }
        Ok(())
    }

    /// The task the model predicts and its number of classes (0 for regression).
    pub fn output(&self) -> (Task, usize) {
        match self.layer() {
            Layer::Fitted(m) => m.output(),
            Layer::Pipeline(_, inner) => inner.output(),
        }
    }

    /// True when the model (or the model inside its pipeline) is a [`Model::Custom`], which a
    /// model file cannot hold.
    pub fn is_custom(&self) -> bool {
        match self {
            Model::Custom(_) => true,
            Model::Pipeline { inner, .. } => inner.is_custom(),
            _ => false,
        }
    }

    /// True when the model replaces missing feature values itself (a median-imputing pipeline).
    pub fn imputes_missing(&self) -> bool {
        matches!(self, Model::Pipeline { transform, .. } if transform.imputes())
    }

    /// The input features the model encodes as categorical (by a pipeline's encoding).
    pub fn encoded_columns(&self) -> Vec<usize> {
        match self {
            Model::Pipeline { transform, .. } => transform.encoded_columns(),
            _ => Vec::new(),
        }
    }

    /// Wraps `self` behind a preprocessing (identity transforms are not wrapped).
    pub fn with_transform(self, transform: Option<Transform>) -> Model {
        match transform {
            Some(t) if t != Transform::default() => Model::Pipeline { transform: t, inner: Box::new(self) },
            _ => self,
        }
    }
}

fn describe(task: Task, n_classes: usize) -> String {
    match task {
        Task::Regression => "regression".into(),
        Task::Classification => format!("classification into {n_classes} classes"),
    }
}
