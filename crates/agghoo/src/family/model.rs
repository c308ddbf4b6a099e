//! Fitted models: the [`Predictor`] trait and the closed, serializable [`Model`] enum.

use serde::{Deserialize, Serialize};

use super::{cart, forest, knn, lasso, logistic, ridge, svm};
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

/// A fitted model of any family (one grid point), serializable into a model file (all but
/// [`Model::Custom`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Model {
    /// k-NN.
    Knn(knn::KnnModel),
    /// Ridge or kernel ridge.
    Ridge(ridge::RidgeModel),
    /// Lasso or elastic net.
    Lasso(lasso::LassoModel),
    /// Binary SVC or SVR.
    Svm(svm::SvmModel),
    /// SVC with more than two classes (one-vs-one voting).
    OneVsOneSvc(svm::OneVsOneSvc),
    /// A pruned CART tree.
    Cart(cart::CartModel),
    /// A random forest.
    Forest(forest::ForestModel),
    /// Logistic regression.
    Logistic(logistic::LogisticModel),
    /// A model of a family defined outside this crate (never in a model file).
    #[serde(skip)]
    Custom(CustomModel),
    /// A per-fold preprocessing followed by a model.
    Pipeline {
        /// Categorical encoding / imputation / standardisation fitted on the training rows.
        transform: Transform,
        /// The model on transformed features.
        inner: Box<Model>,
    },
}

impl Predictor for Model {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        match self {
            Model::Knn(m) => m.predict(rows),
            Model::Ridge(m) => m.predict(rows),
            Model::Lasso(m) => m.predict(rows),
            Model::Svm(m) => m.predict(rows),
            Model::OneVsOneSvc(m) => m.predict(rows),
            Model::Cart(m) => m.predict(rows),
            Model::Forest(m) => m.predict(rows),
            Model::Logistic(m) => m.predict(rows),
            Model::Custom(m) => m.0.predict(rows),
            Model::Pipeline { transform, inner } => {
                let transformed = transform.apply(rows)?;
                inner.predict(&transformed.all().with_par(rows.par()))
            }
        }
    }
}

impl Model {
    /// The single model equal to the average of `models` (Agghoo's merge), when the family
    /// allows it: linear and kernel ridge, Lasso / elastic net (averaged coefficients) and SVR /
    /// binary SVC (union of support vectors, coefficients / V). `None` for trees, forests, k-NN,
    /// logistic regression, one-vs-one SVCs (a vote, not an average) and members behind a
    /// per-fold preprocessing (their transforms differ), and `None` as well for kernel members
    /// whose kernels differ (γ = `scale` is computed on each training set): their average is
    /// not one kernel expansion, so the members are averaged at prediction time.
    ///
    /// # Errors
    /// The family's merge errors (members of different kinds).
    pub fn merge_mean(models: &[&Model]) -> Result<Option<Model>> {
        let same_kernel = |a: &Model, b: &Model| match (a, b) {
            (Model::Svm(x), Model::Svm(y)) => x.gamma() == y.gamma(),
            (Model::Ridge(x), Model::Ridge(y)) => x.kernel_function().zip(y.kernel_function()).is_none_or(|(k, l)| k == l),
            _ => true,
        };
        if let Some(first) = models.first()
            && models.iter().any(|m| !same_kernel(first, m))
        {
            return Ok(None);
        }
        macro_rules! merge_all {
            ($variant:ident, $ty:ty) => {{
                let inner: Option<Vec<&$ty>> = models.iter().map(|m| if let Model::$variant(x) = m { Some(x) } else { None }).collect();
                match inner {
                    Some(list) if !list.is_empty() => return Ok(Some(Model::$variant(<$ty>::merge_mean(&list)?))),
                    _ => {}
                }
            }};
        }
        merge_all!(Ridge, ridge::RidgeModel);
        merge_all!(Lasso, lasso::LassoModel);
        merge_all!(Svm, svm::SvmModel);
        Ok(None)
    }

    /// Checks the internal consistency of a model read from a file against the training schema
    /// (`n_features` features; `task`; `n_classes` classes, ignored for regression): array
    /// lengths, indices, tree structure, class indices, finite numbers, valid hyperparameters,
    /// and that the model predicts the schema's task and classes. A corrupted or hand-edited
    /// file is refused on load instead of panicking or predicting wrongly.
    ///
    /// # Errors
    /// [`crate::Error::CorruptModel`] describing the inconsistency.
    pub fn validate(&self, n_features: usize, task: Task, n_classes: usize) -> Result<()> {
        match self {
            Model::Knn(m) => m.validate(n_features)?,
            Model::Ridge(m) => m.validate(n_features)?,
            Model::Lasso(m) => m.validate(n_features)?,
            Model::Svm(m) => m.validate(n_features)?,
            Model::OneVsOneSvc(m) => m.validate(n_features)?,
            Model::Cart(m) => m.validate(n_features)?,
            Model::Forest(m) => m.validate(n_features)?,
            Model::Logistic(m) => m.validate(n_features)?,
            Model::Custom(_) => {
                return Err(Error::CorruptModel("a model of a family defined outside agghoo has no model-file form".into()));
            }
            Model::Pipeline { transform, inner } => {
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
        match self {
            Model::Knn(m) => m.output(),
            Model::Ridge(_) | Model::Lasso(_) => (Task::Regression, 0),
            Model::Svm(m) => m.output(),
            Model::OneVsOneSvc(m) => (Task::Classification, m.n_classes()),
            Model::Cart(m) => m.output(),
            Model::Forest(m) => m.output(),
            Model::Logistic(m) => (Task::Classification, m.n_classes()),
            Model::Custom(m) => m.0.output(),
            Model::Pipeline { inner, .. } => inner.output(),
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
