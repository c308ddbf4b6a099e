//! Multinomial naive Bayes as an incremental learner: order-independent count statistics.
//!
//! Model: per class c the count `n_c` and the feature totals `N_cj = Σ_{i: y_i = c} x_ij`.
//! Prediction: `argmax_c log(n_c/n) + Σ_j x_j log θ_cj`, `θ_cj = (N_cj + α) / (N_c + α d)`,
//! `N_c = Σ_j N_cj`, Laplace smoothing α (default 1), ties to the smallest class index; classes
//! with no points are never predicted. Loss: 0–1. Features must be non-negative (counts).
//!
//! With integer-valued features the totals are exact in `f64` (below 2^53), so any order or
//! batching gives bit-identical models and TreeCV equals standard CV bit for bit.

use super::{Incremental, Rows, class_indices_within, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};

/// Multinomial naive Bayes configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MultinomialNaiveBayes {
    n_classes: usize,
    alpha: f64,
}

impl MultinomialNaiveBayes {
    /// Multinomial naive Bayes for `n_classes ≥ 2` classes with smoothing `alpha > 0`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than 2 classes or α not finite and > 0.
    pub fn new(n_classes: usize, alpha: f64) -> Result<Self> {
        if n_classes < 2 {
            return Err(Error::invalid("n_classes", "at least 2", n_classes));
        }
        if !(alpha > 0.0 && alpha.is_finite()) {
            return Err(Error::invalid("alpha", "finite and > 0", alpha));
        }
        Ok(Self { n_classes, alpha })
    }

    #[inline(always)]
    fn add(&self, m: &mut MultinomialNbModel, x: &[f64], y: f64) {
        let c = y as usize;
        let d = x.len();
        m.counts[c] += 1.0;
        for (s, xi) in m.totals[c * d..(c + 1) * d].iter_mut().zip(x) {
            *s += xi;
        }
    }
}

/// Per-class counts and feature totals of a multinomial naive Bayes model.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MultinomialNbModel {
    counts: Vec<f64>,
    totals: Vec<f64>,
    n_features: usize,
}

impl MultinomialNbModel {
    /// Number of training points of each class.
    pub fn class_counts(&self) -> &[f64] {
        &self.counts
    }
}

restore_fields!(MultinomialNbModel { counts, totals, n_features });

impl Incremental for MultinomialNaiveBayes {
    type Model = MultinomialNbModel;
    type Log = Option<MultinomialNbModel>;

    fn name(&self) -> &'static str {
        "multinomial-nb"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        class_indices_within(target, self.name(), self.n_classes)
    }

    fn check_features(&self, rows: Rows<'_>) -> Result<()> {
        for (i, (x, _)) in rows.iter().enumerate() {
            if let Some(j) = x.iter().position(|&v| v < 0.0) {
                return Err(Error::invalid(
                    "features",
                    "non-negative counts for multinomial naive Bayes",
                    format!("{} at row {i}, column {j}", x[j]),
                ));
            }
        }
        Ok(())
    }

    fn init(&self, n_features: usize) -> MultinomialNbModel {
        MultinomialNbModel { counts: vec![0.0; self.n_classes], totals: vec![0.0; self.n_classes * n_features], n_features }
    }

    fn update(&self, model: &mut MultinomialNbModel, rows: Rows<'_>) {
        for (x, y) in rows.iter() {
            self.add(model, x, y);
        }
    }

    fn update_in_order(&self, model: &mut MultinomialNbModel, rows: Rows<'_>, order: &[u32]) {
        for &i in order {
            let i = i as usize;
            self.add(model, rows.row(i), rows.y()[i]);
        }
    }

    fn loss_sum(&self, model: &MultinomialNbModel, rows: Rows<'_>) -> f64 {
        let d = model.n_features;
        let n: f64 = model.counts.iter().sum();
        let mut log_theta = vec![0.0; self.n_classes * d];
        let mut log_prior = vec![f64::NEG_INFINITY; self.n_classes];
        for c in 0..self.n_classes {
            if model.counts[c] == 0.0 {
                continue;
            }
            log_prior[c] = (model.counts[c] / n).ln();
            let row = &model.totals[c * d..(c + 1) * d];
            let total: f64 = row.iter().sum::<f64>() + self.alpha * d as f64;
            for (lt, &t) in log_theta[c * d..(c + 1) * d].iter_mut().zip(row) {
                *lt = ((t + self.alpha) / total).ln();
            }
        }
        rows.iter()
            .map(|(x, y)| {
                let mut best = (f64::NEG_INFINITY, 0usize);
                for c in 0..self.n_classes {
                    if model.counts[c] == 0.0 {
                        continue;
                    }
                    let score = log_prior[c] + super::dot(x, &log_theta[c * d..(c + 1) * d]);
                    if score > best.0 {
                        best = (score, c);
                    }
                }
                f64::from(u8::from(best.1 as f64 != y))
            })
            .sum()
    }

    whole_state_snapshots!();
}
