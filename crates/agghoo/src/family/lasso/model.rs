//! The fitted model of the Lasso / elastic-net family: `f(x) = b + xᵀw`.

use serde::{Deserialize, Serialize};

use crate::data::View;
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::predictions::Predictions;

/// A fitted linear model `f(x) = b + xᵀw` of the Lasso / elastic-net family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LassoModel {
    pub(super) coefficients: Vec<f64>,
    pub(super) intercept: f64,
    pub(super) lambda: f64,
    pub(super) l1_ratio: f64,
}

impl LassoModel {
    /// Checks a deserialized model: one coefficient per feature, finite numbers, `λ ≥ 0`,
    /// `ρ ∈ [0, 1]`.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent Lasso model: {what}")));
        if self.coefficients.len() != n_features {
            return bad(format!("{} coefficients, schema has {n_features} features", self.coefficients.len()));
        }
        if !self.intercept.is_finite() || self.coefficients.iter().any(|w| !w.is_finite()) {
            return bad("a non-finite coefficient".into());
        }
        if !(self.lambda >= 0.0 && self.lambda.is_finite() && (0.0..=1.0).contains(&self.l1_ratio)) {
            return bad(format!("λ = {}, ρ = {}", self.lambda, self.l1_ratio));
        }
        Ok(())
    }
    /// The coefficients w, one per feature (in the units of the features the model was fitted on:
    /// standardised ones when the model sits in a pipeline).
    pub fn coefficients(&self) -> &[f64] {
        &self.coefficients
    }
    /// The intercept b.
    pub fn intercept(&self) -> f64 {
        self.intercept
    }
    /// The λ the model was fitted at (for a merged model, the geometric mean of its members' λ;
    /// informational only).
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// ρ.
    pub fn l1_ratio(&self) -> f64 {
        self.l1_ratio
    }
    /// Indices of the non-zero coefficients, ascending (the embedded feature selection).
    ///
    /// ```
    /// use agghoo::data::{Dataset, Target};
    /// use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec, Model};
    /// // y depends on the first feature only.
    /// let x: Vec<f64> = (0..40).flat_map(|i| [i as f64, ((i * 7) % 5) as f64]).collect();
    /// let y: Vec<f64> = (0..40).map(|i| 2.0 * i as f64).collect();
    /// let data = Dataset::new(x, vec!["a".into(), "b".into()], Target::Real(y), "y")?;
    /// let fam = family::build(FamilyKind::Lasso, &FamilyParams::with_grid(GridSpec::parse("1")?), &data)?;
    /// let Model::Lasso(model) = fam.fit(&data.all(), 0)? else { unreachable!() };
    /// assert_eq!(model.support(), [0]);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    pub fn support(&self) -> Vec<usize> {
        self.coefficients.iter().enumerate().filter(|&(_, w)| *w != 0.0).map(|(j, _)| j).collect()
    }
    /// The model whose coefficients and intercept are the means of `models`' (Agghoo's average of
    /// linear predictors is the linear predictor of the averaged coefficients).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty list, [`Error::SchemaMismatch`] when the members
    /// have different numbers of features.
    pub fn merge_mean(models: &[&LassoModel]) -> Result<LassoModel> {
        let first = models.first().ok_or_else(|| Error::invalid("models", "at least one model to merge", "none"))?;
        let d = first.coefficients.len();
        if let Some(m) = models.iter().find(|m| m.coefficients.len() != d) {
            return Err(Error::SchemaMismatch(format!("merging Lasso models with {d} and {} coefficients", m.coefficients.len())));
        }
        let v = models.len() as f64;
        let mut coefficients = vec![0.0; d];
        let mut intercept = 0.0;
        let mut log_lambda = 0.0;
        for m in models {
            coefficients.iter_mut().zip(&m.coefficients).for_each(|(c, w)| *c += w / v);
            intercept += m.intercept / v;
            log_lambda += m.lambda.ln() / v;
        }
        Ok(LassoModel { coefficients, intercept, lambda: log_lambda.exp(), l1_ratio: first.l1_ratio })
    }
}

impl crate::family::FamilyModel for LassoModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        LassoModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        (crate::data::Task::Regression, 0)
    }
    fn merge_mean(models: &[&Self]) -> Result<Option<Self>> {
        LassoModel::merge_mean(models).map(Some)
    }
}

impl Predictor for LassoModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        if rows.n_features() != self.coefficients.len() {
            return Err(Error::SchemaMismatch(format!(
                "Lasso model has {} features, data have {}",
                self.coefficients.len(),
                rows.n_features()
            )));
        }
        let support = self.support();
        let values = (0..rows.len())
            .map(|i| {
                let x = rows.x(i);
                self.intercept + support.iter().map(|&j| x[j] * self.coefficients[j]).sum::<f64>()
            })
            .collect();
        Ok(Predictions::Real(values))
    }
}
