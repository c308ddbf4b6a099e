//! Gaussian naive Bayes as an incremental learner: order-independent sufficient statistics.
//!
//! Model: per class c the count `n_c`, `Σ x` and `Σ x²` over the class's points. Prediction:
//! `argmax_c log(n_c/n) − ½ Σ_j [log(2π σ²_cj) + (x_j − μ_cj)² / σ²_cj]` with the maximum-likelihood
//! `μ_cj`, `σ²_cj = Σx²/n_c − μ²_cj + ε`, `ε = var_smoothing · max_j Var(x_j)` (scikit-learn's
//! `GaussianNB` rule, default 1e-9), ties to the smallest class index; classes with no points are
//! never predicted. Loss: 0–1.
//!
//! Feeding points in any order or in any batching gives the same sums up to floating-point
//! rounding (the sums are not re-associated exactly), so TreeCV agrees with standard CV to
//! rounding — and exactly on the 0–1 loss unless a point sits on a decision boundary to 1e-15.
//! Running means (Welford) were rejected: they are no more order-independent and cost a division
//! per coordinate.

use super::{Incremental, Rows, class_indices_within, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};

/// Gaussian naive Bayes configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussianNaiveBayes {
    n_classes: usize,
    var_smoothing: f64,
}

impl GaussianNaiveBayes {
    /// Gaussian naive Bayes for `n_classes ≥ 2` classes, `var_smoothing = 1e-9`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than 2 classes.
    pub fn new(n_classes: usize) -> Result<Self> {
        if n_classes < 2 {
            return Err(Error::invalid("n_classes", "at least 2", n_classes));
        }
        Ok(Self { n_classes, var_smoothing: 1e-9 })
    }

    #[inline(always)]
    fn add(&self, m: &mut GaussianNbModel, x: &[f64], y: f64) {
        let c = y as usize;
        let d = x.len();
        m.counts[c] += 1.0;
        let sum = &mut m.sum[c * d..(c + 1) * d];
        for (s, xi) in sum.iter_mut().zip(x) {
            *s += xi;
        }
        let sumsq = &mut m.sumsq[c * d..(c + 1) * d];
        for (s, xi) in sumsq.iter_mut().zip(x) {
            *s += xi * xi;
        }
    }
}

/// Per-class counts and sums of a Gaussian naive Bayes model.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GaussianNbModel {
    counts: Vec<f64>,
    sum: Vec<f64>,
    sumsq: Vec<f64>,
    n_features: usize,
}

impl GaussianNbModel {
    /// Number of training points of each class.
    pub fn class_counts(&self) -> &[f64] {
        &self.counts
    }
}

restore_fields!(GaussianNbModel { counts, sum, sumsq, n_features });

impl Incremental for GaussianNaiveBayes {
    type Model = GaussianNbModel;
    type Log = Option<GaussianNbModel>;

    fn name(&self) -> &'static str {
        "gaussian-nb"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        class_indices_within(target, self.name(), self.n_classes)
    }

    fn init(&self, n_features: usize) -> GaussianNbModel {
        let cd = self.n_classes * n_features;
        GaussianNbModel { counts: vec![0.0; self.n_classes], sum: vec![0.0; cd], sumsq: vec![0.0; cd], n_features }
    }

    fn update(&self, model: &mut GaussianNbModel, rows: Rows<'_>) {
        for (x, y) in rows.iter() {
            self.add(model, x, y);
        }
    }

    fn update_in_order(&self, model: &mut GaussianNbModel, rows: Rows<'_>, order: &[u32]) {
        for &i in order {
            let i = i as usize;
            self.add(model, rows.row(i), rows.y()[i]);
        }
    }

    fn loss_sum(&self, model: &GaussianNbModel, rows: Rows<'_>) -> f64 {
        let d = model.n_features;
        let n: f64 = model.counts.iter().sum();
        // Overall variance per feature from the class sums, for the smoothing ε.
        let mut max_var = 0.0f64;
        for j in 0..d {
            let s: f64 = (0..self.n_classes).map(|c| model.sum[c * d + j]).sum();
            let ss: f64 = (0..self.n_classes).map(|c| model.sumsq[c * d + j]).sum();
            max_var = max_var.max(ss / n - (s / n) * (s / n));
        }
        let eps = self.var_smoothing * max_var;
        // Per class: mean, 1/σ², and the constant log(n_c/n) − ½ Σ log(2πσ²).
        let mut mean = vec![0.0; self.n_classes * d];
        let mut inv_var = vec![0.0; self.n_classes * d];
        let mut constant = vec![f64::NEG_INFINITY; self.n_classes];
        for c in 0..self.n_classes {
            let nc = model.counts[c];
            if nc == 0.0 {
                continue;
            }
            let mut k = (nc / n).ln();
            for j in 0..d {
                let mu = model.sum[c * d + j] / nc;
                let var = (model.sumsq[c * d + j] / nc - mu * mu).max(0.0) + eps;
                mean[c * d + j] = mu;
                inv_var[c * d + j] = 1.0 / var;
                k -= 0.5 * (2.0 * std::f64::consts::PI * var).ln();
            }
            constant[c] = k;
        }
        rows.iter()
            .map(|(x, y)| {
                let mut best = (f64::NEG_INFINITY, 0usize);
                for c in 0..self.n_classes {
                    if model.counts[c] == 0.0 {
                        continue;
                    }
                    let (mu, iv) = (&mean[c * d..(c + 1) * d], &inv_var[c * d..(c + 1) * d]);
                    let q: f64 = x.iter().zip(mu).zip(iv).map(|((xi, m), v)| (xi - m) * (xi - m) * v).sum();
                    let score = constant[c] - 0.5 * q;
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
