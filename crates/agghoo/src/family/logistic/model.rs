//! The fitted model of the logistic-regression family: `K` linear scores and their softmax.

use serde::{Deserialize, Serialize};

use super::log_sum_exp;
use crate::data::View;
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::family::numerics::vector::dot;
use crate::predictions::Predictions;

/// A fitted logistic-regression model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogisticModel {
    pub(super) n_features: usize,
    pub(super) n_classes: usize,
    /// Dataset class indices the model was trained on, ascending.
    pub(super) classes: Vec<u32>,
    /// Row-major `n_free × d`: one row for two classes (the logit of `classes[1]` against
    /// `classes[0]`), else one row per class in `classes`.
    pub(super) coefficients: Vec<f64>,
    /// One per coefficient row.
    pub(super) intercepts: Vec<f64>,
    pub(super) lambda: f64,
}

impl LogisticModel {
    /// Checks a deserialized model: `n_features` features, at least two training classes,
    /// ascending and below `n_classes`, one weight row per free logit (one for two classes),
    /// finite numbers, `λ ≥ 0`.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent logistic model: {what}")));
        if self.n_features != n_features {
            return bad(format!("{} features, schema has {n_features}", self.n_features));
        }
        self.check_shape()?;
        if self.intercepts.iter().chain(&self.coefficients).any(|v| !v.is_finite()) {
            return bad("a non-finite coefficient".into());
        }
        if !(self.lambda >= 0.0 && self.lambda.is_finite()) {
            return bad(format!("λ = {}", self.lambda));
        }
        Ok(())
    }

    /// The class indices and array lengths prediction relies on.
    fn check_shape(&self) -> Result<()> {
        let k = self.classes.len();
        let free = if k == 2 { 1 } else { k };
        let what = if k < 2 || self.n_classes < k {
            format!("{k} training classes of {}", self.n_classes)
        } else if self.classes.windows(2).any(|w| w[0] >= w[1]) || self.classes.iter().any(|&c| c as usize >= self.n_classes) {
            format!("class indices {:?} not ascending below {}", self.classes, self.n_classes)
        } else if self.intercepts.len() != free || free.checked_mul(self.n_features) != Some(self.coefficients.len()) {
            format!(
                "{} intercepts and {} coefficients for {k} classes of {} features",
                self.intercepts.len(),
                self.coefficients.len(),
                self.n_features
            )
        } else {
            return Ok(());
        };
        Err(Error::CorruptModel(format!("inconsistent logistic model: {what}")))
    }

    /// Weight rows, row-major (see the field docs: one row for a binary model).
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }
    /// Intercepts, one per weight row.
    pub fn intercepts(&self) -> &[f64] {
        &self.intercepts
    }
    /// Number of classes K of the data set (the classes seen in training may be fewer).
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }
    /// The classes seen in training (dataset class indices, ascending).
    pub fn classes(&self) -> &[u32] {
        &self.classes
    }
    /// The λ the model was fitted at (`C = 1/(nλ)` in scikit-learn's terms).
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
}

impl crate::family::FamilyModel for LogisticModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        LogisticModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        (crate::data::Task::Classification, self.n_classes())
    }
}

impl Predictor for LogisticModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        let d = self.n_features;
        if rows.n_features() != d {
            return Err(Error::SchemaMismatch(format!("logistic model has {d} features, data have {}", rows.n_features())));
        }
        self.check_shape()?;
        let k = self.classes.len();
        let offset = k - self.intercepts.len();
        let n = rows.len();
        let mut labels = Vec::with_capacity(n);
        let mut proba = vec![0.0; n * self.n_classes];
        let mut decision = Vec::with_capacity(if self.n_classes == 2 { n } else { 0 });
        let mut logits = vec![0.0; k];
        for i in 0..n {
            let x = rows.x(i);
            for (f, (w, b)) in self.coefficients.chunks_exact(d.max(1)).zip(&self.intercepts).enumerate() {
                logits[f + offset] = b + dot(&w[..d], x);
            }
            let lse = log_sum_exp(&logits);
            let out = &mut proba[i * self.n_classes..(i + 1) * self.n_classes];
            let mut best = 0;
            for (p, &c) in self.classes.iter().enumerate() {
                out[c as usize] = (logits[p] - lse).exp();
                if logits[p] > logits[best] {
                    best = p;
                }
            }
            labels.push(self.classes[best]);
            if self.n_classes == 2 {
                decision.push(logits[1] - logits[0]);
            }
        }
        let decision = (self.n_classes == 2).then_some(decision);
        let predictions = Predictions::Classes { labels, n_classes: self.n_classes, proba: Some(proba), decision };
        if predictions.has_non_finite() {
            return Err(Error::Numerical("logistic model produced a non-finite score (overflowing features?)".into()));
        }
        Ok(predictions)
    }
}
