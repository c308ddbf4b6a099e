//! Fitted models: the [`Predictor`] trait and the closed, serializable [`Model`] enum.

use serde::{Deserialize, Serialize};

use super::{cart, forest, knn, lasso, logistic, ridge, svm};
use crate::data::{Transform, View};
use crate::error::Result;
use crate::predictions::Predictions;

/// Anything that predicts the rows of a view (features only are read).
pub trait Predictor {
    /// Predictions for every row of `rows`, in order.
    ///
    /// # Errors
    /// [`crate::Error::SchemaMismatch`] when the view has another number of features.
    fn predict(&self, rows: &View<'_>) -> Result<Predictions>;
}

/// A fitted model of any family (one grid point), serializable into a model file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Model {
    /// k-NN.
    Knn(knn::KnnModel),
    /// Ridge or kernel ridge.
    Ridge(ridge::RidgeModel),
    /// Lasso or elastic net.
    Lasso(lasso::LassoModel),
    /// SVC or SVR.
    Svm(svm::SvmModel),
    /// A pruned CART tree.
    Cart(cart::CartModel),
    /// A random forest.
    Forest(forest::ForestModel),
    /// Logistic regression.
    Logistic(logistic::LogisticModel),
    /// A per-fold preprocessing followed by a model.
    Pipeline {
        /// Imputation / standardisation fitted on the training rows.
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
            Model::Cart(m) => m.predict(rows),
            Model::Forest(m) => m.predict(rows),
            Model::Logistic(m) => m.predict(rows),
            Model::Pipeline { transform, inner } => {
                let transformed = transform.apply(rows)?;
                inner.predict(&transformed.all())
            }
        }
    }
}

impl Model {
    /// The single model equal to the average of `models` (Agghoo's merge), when the family
    /// allows it: linear and kernel ridge, Lasso / elastic net (averaged coefficients) and SVMs
    /// (union of support vectors, coefficients / V). `None` for trees, forests, k-NN, logistic
    /// regression and members behind a per-fold preprocessing (their transforms differ).
    ///
    /// # Errors
    /// The family's merge errors (members of different kinds or kernels).
    pub fn merge_mean(models: &[&Model]) -> Result<Option<Model>> {
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

    /// Checks the internal consistency of a model read from a file (array lengths, indices), so
    /// a corrupted file is refused on load instead of predicting wrongly. Implemented for k-NN
    /// members and preprocessing pipelines; other families are trusted as deserialized (their
    /// checks are tracked as remaining hardening work).
    ///
    /// # Errors
    /// [`crate::Error::Numerical`] describing the inconsistency.
    pub fn validate(&self, n_features: usize) -> Result<()> {
        match self {
            Model::Knn(m) => m.validate(n_features),
            Model::Pipeline { transform, inner } => {
                transform.validate(n_features)?;
                inner.validate(n_features)
            }
            _ => Ok(()),
        }
    }

    /// True when the model replaces missing feature values itself (a median-imputing pipeline).
    pub fn imputes_missing(&self) -> bool {
        matches!(self, Model::Pipeline { transform, .. } if transform.imputes())
    }

    /// Wraps `self` behind a preprocessing (identity transforms are not wrapped).
    pub fn with_transform(self, transform: Option<Transform>) -> Model {
        match transform {
            Some(t) if t != Transform::default() => Model::Pipeline { transform: t, inner: Box::new(self) },
            _ => self,
        }
    }
}
