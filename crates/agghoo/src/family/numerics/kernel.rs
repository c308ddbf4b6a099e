//! Kernels of kernel ridge regression and their Gram matrices.
//!
//! Only positive semi-definite kernels are offered (the polynomial kernel needs `coef0 ≥ 0` and an
//! integer degree ≥ 1): the path clamps the Gram matrix's eigenvalues at zero, which is rounding
//! noise for a PSD kernel but would silently change an indefinite one (scikit-learn accepts any
//! `coef0`, and a negative one can make `K + λI` singular for a grid λ).

use faer::{Mat, MatRef};
use serde::{Deserialize, Serialize};

use super::linalg;
use crate::error::{Error, Result};

/// A positive semi-definite kernel `k(x, x')`. Invariants (checked by the constructors):
/// `γ > 0`, `coef0 ≥ 0`, `degree ≥ 1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Kernel(KernelKind);

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "name", rename_all = "snake_case")]
enum KernelKind {
    Linear,
    Rbf { gamma: f64 },
    Polynomial { gamma: f64, coef0: f64, degree: u32 },
}

impl Kernel {
    /// `k(x, x') = ⟨x, x'⟩`.
    pub fn linear() -> Self {
        Kernel(KernelKind::Linear)
    }
    /// The Gaussian kernel `k(x, x') = exp(−γ ‖x − x'‖²)`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `γ > 0` and finite.
    pub fn rbf(gamma: f64) -> Result<Self> {
        check_gamma(gamma)?;
        Ok(Kernel(KernelKind::Rbf { gamma }))
    }
    /// The polynomial kernel `k(x, x') = (γ ⟨x, x'⟩ + coef0)^degree`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `γ > 0`, `coef0 ≥ 0` (finite) and `degree ≥ 1`.
    pub fn polynomial(gamma: f64, coef0: f64, degree: u32) -> Result<Self> {
        check_gamma(gamma)?;
        if !(coef0 >= 0.0 && coef0.is_finite()) {
            return Err(Error::invalid("coef0", "a finite number ≥ 0 (a positive semi-definite kernel)", coef0));
        }
        if degree == 0 {
            return Err(Error::invalid("degree", "an integer ≥ 1", degree));
        }
        Ok(Kernel(KernelKind::Polynomial { gamma, coef0, degree }))
    }

    /// The same kernel with its scale γ replaced (the linear kernel has none and is returned as
    /// it is).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `γ > 0` and finite.
    pub fn with_gamma(self, gamma: f64) -> Result<Self> {
        match self.0 {
            KernelKind::Linear => Ok(self),
            KernelKind::Rbf { .. } => Kernel::rbf(gamma),
            KernelKind::Polynomial { coef0, degree, .. } => Kernel::polynomial(gamma, coef0, degree),
        }
    }

    /// Checks the invariants of a deserialized kernel (`γ > 0` finite, `coef0 ≥ 0` finite,
    /// `degree ≥ 1`), as the constructors do.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the offending parameter.
    pub(crate) fn validate(&self) -> Result<()> {
        match self.0 {
            KernelKind::Linear => Ok(()),
            KernelKind::Rbf { gamma } => check_gamma(gamma),
            KernelKind::Polynomial { gamma, coef0, degree } => Kernel::polynomial(gamma, coef0, degree).map(|_| ()),
        }
    }

    /// `k(x, x')` for two rows (the slow reference the Gram-matrix computation is tested against).
    pub fn eval(&self, x: &[f64], z: &[f64]) -> f64 {
        let dot = || x.iter().zip(z).map(|(a, b)| a * b).sum::<f64>();
        match self.0 {
            KernelKind::Linear => dot(),
            KernelKind::Rbf { gamma } => (-gamma * x.iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()).exp(),
            KernelKind::Polynomial { gamma, coef0, degree } => poly(gamma * dot() + coef0, degree),
        }
    }

    /// `out[j] = k(x, row j of points)` for the `d`-column rows of `points` (row-major), each
    /// value exactly [`Kernel::eval`] (the SVMs' kernel rows and decision values).
    pub fn eval_rows(&self, x: &[f64], points: &[f64], d: usize, out: &mut [f64]) {
        let rows = points.chunks_exact(d.max(1));
        match self.0 {
            // One match per row of the matrix, not per entry; the arithmetic is `eval`'s.
            KernelKind::Rbf { gamma } => {
                for (o, z) in out.iter_mut().zip(rows) {
                    *o = (-gamma * x.iter().zip(z).map(|(a, b)| (a - b) * (a - b)).sum::<f64>()).exp();
                }
            }
            _ => out.iter_mut().zip(rows).for_each(|(o, z)| *o = self.eval(x, z)),
        }
    }

    /// The scale γ (`None` for the linear kernel).
    pub fn gamma(&self) -> Option<f64> {
        match self.0 {
            KernelKind::Linear => None,
            KernelKind::Rbf { gamma } | KernelKind::Polynomial { gamma, .. } => Some(gamma),
        }
    }

    /// The matrix `k(a_i, b_j)` for the rows of `a` (n_a × d) and `b` (n_b × d). Inner products
    /// come from one matrix product; squared distances are `‖a‖² + ‖b‖² − 2⟨a, b⟩` clamped at 0
    /// (as scikit-learn's `euclidean_distances`).
    pub(in crate::family) fn gram(&self, a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
        let mut inner = linalg::mul(a, b.transpose());
        match self.0 {
            KernelKind::Linear => {}
            KernelKind::Rbf { gamma } => {
                let norms = |m: MatRef<'_, f64>| (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)] * m[(i, j)]).sum()).collect();
                let (na, nb): (Vec<f64>, Vec<f64>) = (norms(a), norms(b));
                for j in 0..inner.ncols() {
                    for i in 0..inner.nrows() {
                        let d2 = (na[i] + nb[j] - 2.0 * inner[(i, j)]).max(0.0);
                        inner[(i, j)] = (-gamma * d2).exp();
                    }
                }
            }
            KernelKind::Polynomial { gamma, coef0, degree } => {
                for j in 0..inner.ncols() {
                    for i in 0..inner.nrows() {
                        inner[(i, j)] = poly(gamma * inner[(i, j)] + coef0, degree);
                    }
                }
            }
        }
        inner
    }

    /// `Σ_i k(x_i, x_i)` over the rows of `x` (the trace of the Gram matrix, for the default grid).
    pub(in crate::family) fn trace(&self, x: MatRef<'_, f64>) -> f64 {
        let mut row = vec![0.0; x.ncols()];
        (0..x.nrows())
            .map(|i| {
                row.iter_mut().enumerate().for_each(|(j, r)| *r = x[(i, j)]);
                self.eval(&row, &row)
            })
            .sum()
    }
}

fn check_gamma(gamma: f64) -> Result<()> {
    if gamma > 0.0 && gamma.is_finite() { Ok(()) } else { Err(Error::invalid("gamma", "a finite number > 0", gamma)) }
}

fn poly(base: f64, degree: u32) -> f64 {
    base.powi(i32::try_from(degree).unwrap_or(i32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gram_matches_pointwise_evaluation() {
        let a = Mat::from_fn(5, 3, |i, j| ((i * 3 + j) as f64 * 0.37).sin());
        let b = Mat::from_fn(4, 3, |i, j| ((i * 5 + j) as f64 * 0.91).cos());
        let row = |m: &Mat<f64>, i: usize| (0..3).map(|j| m[(i, j)]).collect::<Vec<_>>();
        for kernel in [Kernel::linear(), Kernel::rbf(0.7).unwrap(), Kernel::polynomial(0.5, 1.0, 3).unwrap()] {
            let g = kernel.gram(a.as_ref(), b.as_ref());
            for i in 0..5 {
                for j in 0..4 {
                    assert!((g[(i, j)] - kernel.eval(&row(&a, i), &row(&b, j))).abs() < 1e-14, "{kernel:?} {i} {j}");
                }
            }
        }
        // hand values: x = (1, 0), z = (0, 2): ‖x − z‖² = 5, ⟨x, z⟩ = 0
        assert!((Kernel::rbf(0.5).unwrap().eval(&[1.0, 0.0], &[0.0, 2.0]) - (-2.5f64).exp()).abs() < 1e-16);
        assert_eq!(Kernel::polynomial(2.0, 1.0, 2).unwrap().eval(&[1.0, 1.0], &[1.0, 2.0]), 49.0);
    }

    #[test]
    fn invalid_kernel_parameters_are_errors() {
        for gamma in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(matches!(Kernel::rbf(gamma), Err(Error::InvalidParameter { name: "gamma", .. })));
        }
        assert!(matches!(Kernel::polynomial(1.0, -0.5, 2), Err(Error::InvalidParameter { name: "coef0", .. })));
        assert!(matches!(Kernel::polynomial(1.0, 0.0, 0), Err(Error::InvalidParameter { name: "degree", .. })));
    }
}
