//! What a predictor returns for a set of rows.

use serde::{Deserialize, Serialize};

/// Predictions for the rows of a view, in row order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Predictions {
    /// Regression: one real value per row.
    Real(Vec<f64>),
    /// Classification: a class index per row, plus optional soft outputs.
    Classes {
        /// Predicted class index of each row.
        labels: Vec<u32>,
        /// Number of classes K.
        n_classes: usize,
        /// Class probabilities, row-major `rows × K`, when the learner provides them.
        proba: Option<Vec<f64>>,
        /// Binary problems only: a real score per row, positive for class 1 (SVM decision value,
        /// logit). Agghoo on a surrogate averages these.
        decision: Option<Vec<f64>>,
    },
}

impl Predictions {
    /// Number of rows predicted.
    pub fn len(&self) -> usize {
        match self {
            Predictions::Real(v) => v.len(),
            Predictions::Classes { labels, .. } => labels.len(),
        }
    }
    /// True when no row was predicted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Hard class labels only.
    pub fn classes(labels: Vec<u32>, n_classes: usize) -> Self {
        Predictions::Classes { labels, n_classes, proba: None, decision: None }
    }
    /// The class labels, if classification.
    pub fn labels(&self) -> Option<&[u32]> {
        match self {
            Predictions::Classes { labels, .. } => Some(labels),
            Predictions::Real(_) => None,
        }
    }
    /// Real values, if regression.
    pub fn values(&self) -> Option<&[f64]> {
        match self {
            Predictions::Real(v) => Some(v),
            Predictions::Classes { .. } => None,
        }
    }
    /// Row `i` as a number (class index for classification), for output files.
    pub fn value(&self, i: usize) -> f64 {
        match self {
            Predictions::Real(v) => v[i],
            Predictions::Classes { labels, .. } => labels[i] as f64,
        }
    }
    /// True when some value is NaN or infinite (a bug guard: outputs must be finite).
    pub fn has_non_finite(&self) -> bool {
        match self {
            Predictions::Real(v) => v.iter().any(|x| !x.is_finite()),
            Predictions::Classes { proba, decision, .. } => proba.iter().flatten().chain(decision.iter().flatten()).any(|x| !x.is_finite()),
        }
    }
}

/// Predictions of every grid point on one validation view, indexed `[grid_index]`.
pub type PathPredictions = Vec<Predictions>;
