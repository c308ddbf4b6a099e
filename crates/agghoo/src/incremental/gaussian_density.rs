//! Gaussian density estimation as an incremental, unsupervised learner.
//!
//! Model: the count n, `Σ x` and either `Σ x xᵀ` (full covariance) or `Σ x²` (diagonal).
//! Fitted density: `N(μ, Σ)` with the maximum-likelihood `μ = Σx/n`, `Σ = Σxxᵀ/n − μμᵀ + ρ I`
//! (ridge ρ ≥ 0, default 1e-9, keeps a degenerate sample usable). Loss: the negative
//! log-likelihood `½ [d log 2π + log det Σ + (x − μ)ᵀ Σ⁻¹ (x − μ)]`, via a Cholesky factor
//! computed once per evaluated chunk. A non-positive-definite Σ gives a NaN loss, which
//! TreeCV reports as an error (never a silent NaN). The target is ignored.
//!
//! The sums do not depend on the order of the points except through floating-point rounding,
//! so TreeCV equals standard CV to about 1e-12 (relative), the tolerance the tests use.

use serde::{Deserialize, Serialize};

use super::{Incremental, Rows, no_target, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};

/// Full or diagonal covariance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Covariance {
    /// Full d × d covariance.
    Full,
    /// Independent coordinates (diagonal covariance).
    Diagonal,
}

/// Gaussian density configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussianDensity {
    covariance: Covariance,
    ridge: f64,
}

impl GaussianDensity {
    /// A Gaussian density with the given covariance structure and ridge ρ = 1e-9.
    pub fn new(covariance: Covariance) -> Self {
        Self { covariance, ridge: 1e-9 }
    }
    /// Sets the ridge ρ added to the covariance's diagonal.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless ρ is finite and ≥ 0.
    pub fn with_ridge(self, ridge: f64) -> Result<Self> {
        if !(ridge >= 0.0 && ridge.is_finite()) {
            return Err(Error::invalid("ridge", "finite and ≥ 0", ridge));
        }
        Ok(Self { ridge, ..self })
    }

    #[inline(always)]
    fn add(&self, m: &mut GaussianDensityModel, x: &[f64]) {
        m.n += 1.0;
        for (s, xi) in m.sum.iter_mut().zip(x) {
            *s += xi;
        }
        match self.covariance {
            Covariance::Diagonal => {
                for (s, xi) in m.second.iter_mut().zip(x) {
                    *s += xi * xi;
                }
            }
            Covariance::Full => {
                let d = x.len();
                for (a, xa) in x.iter().enumerate() {
                    for (s, xb) in m.second[a * d..a * d + a + 1].iter_mut().zip(x) {
                        *s += xa * xb;
                    }
                }
            }
        }
    }
}

/// Count, first and second moments' sums of a Gaussian density model.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GaussianDensityModel {
    n: f64,
    sum: Vec<f64>,
    /// `Σ x²` (diagonal) or the lower triangle of `Σ x xᵀ`, row-major d × d (full).
    second: Vec<f64>,
}

impl GaussianDensityModel {
    /// The mean `μ` (NaN-free only after at least one point).
    pub fn mean(&self) -> Vec<f64> {
        self.sum.iter().map(|s| s / self.n).collect()
    }
}

restore_fields!(GaussianDensityModel { n, sum, second });

/// Lower Cholesky factor of a row-major d × d matrix (lower triangle read), in place.
fn cholesky(a: &mut [f64], d: usize) -> Option<()> {
    for j in 0..d {
        let mut s = a[j * d + j];
        for k in 0..j {
            s -= a[j * d + k] * a[j * d + k];
        }
        if s.is_nan() || s <= 0.0 {
            return None;
        }
        let l = s.sqrt();
        a[j * d + j] = l;
        for i in j + 1..d {
            let mut s = a[i * d + j];
            for k in 0..j {
                s -= a[i * d + k] * a[j * d + k];
            }
            a[i * d + j] = s / l;
        }
    }
    Some(())
}

impl Incremental for GaussianDensity {
    type Model = GaussianDensityModel;
    type Log = Option<GaussianDensityModel>;

    fn name(&self) -> &'static str {
        "gaussian-density"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        Ok(no_target(target))
    }

    fn init(&self, n_features: usize) -> GaussianDensityModel {
        let second = match self.covariance {
            Covariance::Diagonal => n_features,
            Covariance::Full => n_features * n_features,
        };
        GaussianDensityModel { n: 0.0, sum: vec![0.0; n_features], second: vec![0.0; second] }
    }

    fn update(&self, model: &mut GaussianDensityModel, rows: Rows<'_>) {
        for (x, _) in rows.iter() {
            self.add(model, x);
        }
    }

    fn update_in_order(&self, model: &mut GaussianDensityModel, rows: Rows<'_>, order: &[u32]) {
        for &i in order {
            self.add(model, rows.row(i as usize));
        }
    }

    fn loss_sum(&self, model: &GaussianDensityModel, rows: Rows<'_>) -> f64 {
        let d = rows.n_features();
        let n = model.n;
        let mu = model.mean();
        let log_2pi = (2.0 * std::f64::consts::PI).ln();
        match self.covariance {
            Covariance::Diagonal => {
                let var: Vec<f64> = (0..d).map(|j| model.second[j] / n - mu[j] * mu[j] + self.ridge).collect();
                if var.iter().any(|v| v.is_nan() || *v <= 0.0) {
                    return f64::NAN;
                }
                let log_det: f64 = var.iter().map(|v| v.ln()).sum();
                rows.iter()
                    .map(|(x, _)| {
                        let q: f64 = x.iter().zip(&mu).zip(&var).map(|((xi, m), v)| (xi - m) * (xi - m) / v).sum();
                        0.5 * (d as f64 * log_2pi + log_det + q)
                    })
                    .sum()
            }
            Covariance::Full => {
                let mut l = vec![0.0; d * d];
                for a in 0..d {
                    for b in 0..=a {
                        l[a * d + b] = model.second[a * d + b] / n - mu[a] * mu[b];
                    }
                    l[a * d + a] += self.ridge;
                }
                if cholesky(&mut l, d).is_none() {
                    return f64::NAN;
                }
                let log_det: f64 = 2.0 * (0..d).map(|j| l[j * d + j].ln()).sum::<f64>();
                let mut z = vec![0.0; d];
                rows.iter()
                    .map(|(x, _)| {
                        // Solve L z = x − μ; the quadratic form is ‖z‖².
                        for a in 0..d {
                            let mut s = x[a] - mu[a];
                            for b in 0..a {
                                s -= l[a * d + b] * z[b];
                            }
                            z[a] = s / l[a * d + a];
                        }
                        let q: f64 = z.iter().map(|v| v * v).sum();
                        0.5 * (d as f64 * log_2pi + log_det + q)
                    })
                    .sum()
            }
        }
    }

    whole_state_snapshots!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_diagonal_agree_on_one_feature() {
        let x = [1.0, 2.0, 4.0];
        let rows = Rows::new(&x, &[0.0; 3], 1).unwrap();
        let (full, diag) = (GaussianDensity::new(Covariance::Full), GaussianDensity::new(Covariance::Diagonal));
        let (mut a, mut b) = (full.init(1), diag.init(1));
        full.update(&mut a, rows);
        diag.update(&mut b, rows);
        // μ = 7/3, σ² = 21/3 − 49/9 = 14/9 (+1e-9); NLL of x = 7/3 is ½ (log 2π + log σ²).
        let t = Rows::new(&[7.0 / 3.0], &[0.0], 1).unwrap();
        let expected = 0.5 * ((2.0 * std::f64::consts::PI).ln() + (14.0f64 / 9.0 + 1e-9).ln());
        assert!((full.loss_sum(&a, t) - expected).abs() < 1e-12);
        assert!((diag.loss_sum(&b, t) - expected).abs() < 1e-12);
    }
}
