//! The fitted ridge / kernel ridge model, its predictions and the merge of Agghoo's members.

use std::collections::HashMap;

use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};

use super::solve::gather_finite;
use crate::data::View;
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::family::numerics::kernel::Kernel;
use crate::family::numerics::linalg;
use crate::predictions::{PathPredictions, Predictions};

/// A fitted ridge or kernel ridge model `f(x) = ⟨w, x⟩ + b` or `f(x) = Σ_i α_i k(x_i, x) + b`.
///
/// A merged model ([`RidgeModel::merge_mean`]) has the same form, so Agghoo's average of V members
/// predicts at the cost of one model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RidgeModel {
    n_features: usize,
    /// The intercept b (0 for kernel ridge without intercept).
    intercept: f64,
    coefficients: Coefficients,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
enum Coefficients {
    /// Primal weights w (length d).
    Linear { weights: Vec<f64> },
    /// Dual coefficients α and their points `x_i` (row-major, `α.len()` × d).
    Kernel { kernel: Kernel, points: Vec<f64>, dual: Vec<f64> },
}

impl RidgeModel {
    pub(super) fn linear(weights: Vec<f64>, intercept: f64) -> Self {
        Self { n_features: weights.len(), intercept, coefficients: Coefficients::Linear { weights } }
    }

    pub(super) fn kernel(kernel: Kernel, points: Vec<f64>, n_features: usize, dual: Vec<f64>, intercept: f64) -> Self {
        Self { n_features, intercept, coefficients: Coefficients::Kernel { kernel, points, dual } }
    }

    /// Checks a deserialized model: `n_features` features, one weight per feature (linear) or
    /// `n_features` values per stored point (kernel), a valid kernel, every number finite.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent ridge model: {what}")));
        if self.n_features != n_features {
            return bad(format!("{} features, schema has {n_features}", self.n_features));
        }
        self.check_shape()?;
        if let Coefficients::Kernel { kernel, .. } = &self.coefficients {
            kernel.validate().or_else(|e| bad(e.to_string()))?;
        }
        let (a, b): (&[f64], &[f64]) = match &self.coefficients {
            Coefficients::Linear { weights } => (weights, &[]),
            Coefficients::Kernel { points, dual, .. } => (points, dual),
        };
        if !self.intercept.is_finite() || a.iter().chain(b).any(|v| !v.is_finite()) {
            return bad("a non-finite coefficient".into());
        }
        Ok(())
    }

    /// The array lengths agree with `n_features` (what prediction indexes by).
    fn check_shape(&self) -> Result<()> {
        let consistent = match &self.coefficients {
            Coefficients::Linear { weights } => weights.len() == self.n_features,
            Coefficients::Kernel { points, dual, .. } => dual.len().checked_mul(self.n_features) == Some(points.len()),
        };
        if consistent {
            Ok(())
        } else {
            Err(Error::CorruptModel(format!("inconsistent ridge model: coefficient arrays do not match n_features = {}", self.n_features)))
        }
    }

    /// The intercept b.
    pub fn intercept(&self) -> f64 {
        self.intercept
    }
    /// The weights w of a linear model (`None` for a kernel model).
    pub fn weights(&self) -> Option<&[f64]> {
        match &self.coefficients {
            Coefficients::Linear { weights } => Some(weights),
            Coefficients::Kernel { .. } => None,
        }
    }
    /// The kernel of a kernel model (`None` for a linear model).
    pub fn kernel_function(&self) -> Option<&Kernel> {
        match &self.coefficients {
            Coefficients::Linear { .. } => None,
            Coefficients::Kernel { kernel, .. } => Some(kernel),
        }
    }
    /// The dual coefficients α of a kernel model, one per stored point (`None` for a linear model).
    pub fn dual(&self) -> Option<&[f64]> {
        match &self.coefficients {
            Coefficients::Linear { .. } => None,
            Coefficients::Kernel { dual, .. } => Some(dual),
        }
    }

    /// The model whose predictions are the mean of the members' predictions (Agghoo's
    /// `f^ag = (1/V) Σ_j f_j`): for linear members the averaged `(w, b)`; for kernel members
    /// the union of their points (a point stored by several members, bit-identical features, is
    /// kept once with the sum of its coefficients) with dual coefficients divided by V, and the
    /// averaged intercept. Points keep the order of their first appearance.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no member; [`Error::SchemaMismatch`] for members with
    /// different numbers of features; [`Error::Unsupported`] when linear and kernel members, or
    /// different kernels, are mixed.
    pub fn merge_mean(models: &[&RidgeModel]) -> Result<RidgeModel> {
        let first = models.first().ok_or_else(|| Error::invalid("members", "at least one model to merge", 0))?;
        let v = models.len() as f64;
        let d = first.n_features;
        if let Some(other) = models.iter().find(|m| m.n_features != d) {
            return Err(Error::SchemaMismatch(format!("merging ridge models with {d} and {} features", other.n_features)));
        }
        let mixed = || Error::Unsupported {
            what: "merging these ridge models".into(),
            reason: "every member must be linear, or use the same kernel, for the average to be one model".into(),
        };
        let intercept = models.iter().map(|m| m.intercept).sum::<f64>() / v;
        match &first.coefficients {
            Coefficients::Linear { .. } => {
                let mut sum = vec![0.0; d];
                for model in models {
                    let w = model.weights().ok_or_else(mixed)?;
                    sum.iter_mut().zip(w).for_each(|(s, x)| *s += x);
                }
                Ok(RidgeModel::linear(sum.into_iter().map(|s| s / v).collect(), intercept))
            }
            Coefficients::Kernel { kernel, .. } => {
                let mut points = Vec::new();
                let mut dual: Vec<f64> = Vec::new();
                let mut position: HashMap<Vec<u64>, usize> = HashMap::new();
                for model in models {
                    let Coefficients::Kernel { kernel: k, points: p, dual: a } = &model.coefficients else { return Err(mixed()) };
                    if k != kernel {
                        return Err(mixed());
                    }
                    for (i, &alpha) in a.iter().enumerate() {
                        let row = &p[i * d..(i + 1) * d];
                        let key: Vec<u64> = row.iter().map(|x| x.to_bits()).collect();
                        let at = *position.entry(key).or_insert_with(|| {
                            points.extend_from_slice(row);
                            dual.push(0.0);
                            dual.len() - 1
                        });
                        dual[at] += alpha / v;
                    }
                }
                Ok(RidgeModel::kernel(*kernel, points, d, dual, intercept))
            }
        }
    }
}

impl crate::family::FamilyModel for RidgeModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        RidgeModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        (crate::data::Task::Regression, 0)
    }
    fn merge_mean(models: &[&Self]) -> Result<Option<Self>> {
        RidgeModel::merge_mean(models).map(Some)
    }
    /// Linear members merge with anything (a mismatch is the merge's error); kernel members
    /// only with the same kernel.
    fn merges_with(&self, other: &Self) -> bool {
        self.kernel_function().zip(other.kernel_function()).is_none_or(|(k, l)| k == l)
    }
}

impl Predictor for RidgeModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        self.check_shape()?;
        let intercepts = [self.intercept];
        let path = match &self.coefficients {
            Coefficients::Linear { weights } => {
                predict_columns(rows, self.n_features, MatRef::from_column_major_slice(weights, weights.len(), 1), &intercepts, None)
            }
            Coefficients::Kernel { kernel, points, dual } => {
                let points = MatRef::from_row_major_slice(points, dual.len(), self.n_features);
                predict_columns(
                    rows,
                    self.n_features,
                    MatRef::from_column_major_slice(dual, dual.len(), 1),
                    &intercepts,
                    Some((kernel, points)),
                )
            }
        };
        path?.pop().ok_or_else(|| Error::Internal("ridge predicted no column".into()))
    }
}

/// Predictions of the models whose coefficients are the columns of `coefficients` (weights, or
/// dual coefficients of `kernel`'s `points`), `[column][row]`.
///
/// # Errors
/// [`Error::SchemaMismatch`] for another number of features; [`Error::NonFinite`] for a
/// non-finite feature; [`Error::Numerical`] when a prediction overflows.
pub(super) fn predict_columns(
    rows: &View<'_>,
    n_features: usize,
    coefficients: MatRef<'_, f64>,
    intercepts: &[f64],
    kernel: Option<(&Kernel, MatRef<'_, f64>)>,
) -> Result<PathPredictions> {
    if rows.n_features() != n_features {
        return Err(Error::SchemaMismatch(format!("ridge model has {n_features} features, data have {}", rows.n_features())));
    }
    let x = gather_finite(rows)?;
    let x = MatRef::from_row_major_slice(&x, rows.len(), n_features);
    let values: Mat<f64> = match kernel {
        None => linalg::mul(x, coefficients),
        Some((kernel, points)) => linalg::mul(kernel.gram(x, points).as_ref(), coefficients),
    };
    intercepts
        .iter()
        .enumerate()
        .map(|(m, b)| {
            let column: Vec<f64> = (0..rows.len()).map(|i| values[(i, m)] + b).collect();
            if let Some(i) = column.iter().position(|v| !v.is_finite()) {
                return Err(Error::Numerical(format!("ridge prediction for row {} is {}", rows.rows()[i], column[i])));
            }
            Ok(Predictions::Real(column))
        })
        .collect()
}
