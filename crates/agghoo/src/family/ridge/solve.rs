//! The two solvers of one training set: the spectral path (one eigendecomposition, every λ) and
//! the direct solve (one Cholesky factorisation per λ, the slow reference).
//!
//! Notation (one training set of n rows, d features): `X_c = X − 1 x̄ᵀ`, `y_c = y − ȳ` (linear
//! ridge and kernel ridge with an intercept), `y_c = y` (kernel ridge without). The normal matrix
//! `A` is `X_cᵀX_c` (d × d, the *primal* form, when d ≤ n), `X_c X_cᵀ` (n × n, *dual*, when n < d)
//! or the Gram matrix `K` (centred, `K_c = H K H` with `H = I − 11ᵀ/n`, with an intercept).
//! With `A = V diag(s) Vᵀ` every λ costs one scaling: `w_λ = V diag(1/(s + λ)) Vᵀ X_cᵀ y_c` (primal),
//! `α_λ = U diag(1/(s + λ)) Uᵀ y_c` (dual; `w_λ = X_cᵀ α_λ` for linear ridge).
//!
//! Near-singular systems: a component with `s_k + λ ≤ tol`, `tol = size(A) · ε · max(s_max, 0)`
//! (NumPy's `pinv` rule applied to the normal matrix), is dropped. For λ above `tol` nothing is
//! dropped and the result is the exact ridge solution; for λ = 0 (or a λ lost in rounding) on a
//! rank-deficient system it is the minimum-norm least-squares solution, which is also the limit
//! of the ridge solution as λ → 0⁺. Eigenvalues below zero (rounding noise: every `A` here is
//! positive semi-definite) are clamped to zero.

use faer::{Mat, MatRef};

use crate::data::View;
use crate::error::{Error, Result};
use crate::family::SmootherPath;
use crate::family::numerics::kernel::Kernel;
use crate::family::numerics::linalg;

/// What is being fitted: linear ridge, or kernel ridge with its kernel and intercept rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Form {
    /// `‖y − Xw − b1‖² + λ‖w‖²`, b unpenalised.
    Linear,
    /// `‖y − Kα − b1‖² + λ αᵀKα`, with b = 0 when `intercept` is false (scikit-learn's
    /// `KernelRidge`: `(K + λI) α = y`).
    Kernel { kernel: Kernel, intercept: bool },
}

/// Gathers the features of `rows` into a row-major buffer, refusing non-finite values.
pub(super) fn gather_finite(rows: &View<'_>) -> Result<Vec<f64>> {
    let x = rows.gather_x();
    let d = rows.n_features().max(1);
    if let Some(pos) = x.iter().position(|v| !v.is_finite()) {
        let (i, j) = (pos / d, pos % d);
        return Err(Error::NonFinite { row: rows.rows()[i], column: rows.data().feature_names()[j].clone(), value: x[pos] });
    }
    Ok(x)
}

/// One training set, centred as its form requires.
pub(super) struct Problem {
    n_rows: usize,
    /// `ȳ` with an intercept, 0 without.
    y_offset: f64,
    /// `y − y_offset` (times `√wᵢ` with sample weights).
    targets: Vec<f64>,
    design: Design,
    /// `√wᵢ` of each row with sample weights (the weighted problem is the unweighted one on rows
    /// scaled by `√wᵢ` after the weighted centring); `None` without.
    root_weights: Option<Vec<f64>>,
}

enum Design {
    Linear {
        /// `X_c`, n × d.
        centred: Mat<f64>,
        /// `x̄`.
        means: Vec<f64>,
    },
    Kernel {
        /// `K` or `K_c`, n × n.
        gram: Mat<f64>,
        /// `K 1 / n` when there is an intercept (the intercept is `ȳ − αᵀ K 1 / n`).
        row_means: Option<Vec<f64>>,
    },
}

/// The solution at every requested λ: primal weights (d × M) for linear ridge, dual
/// coefficients (n × M) for kernel ridge, and the intercepts.
pub(super) struct Solution {
    pub(super) coefficients: Mat<f64>,
    pub(super) intercepts: Vec<f64>,
}

impl Problem {
    /// Centres the training set (`x` is its row-major feature matrix), with its sample weights
    /// when it has some: `Σ wᵢ (yᵢ − f(xᵢ))²` in place of the sum of squares, the intercept by
    /// weighted centring (scikit-learn's `Ridge` / `KernelRidge` with `sample_weight`).
    ///
    /// # Errors
    /// [`Error::TooFewRows`] for an empty training set; [`Error::Unsupported`] for weights with
    /// kernel ridge's intercept.
    pub(super) fn new(form: Form, x: &[f64], y: Vec<f64>, n_features: usize, weights: Option<Vec<f64>>) -> Result<Self> {
        let n = y.len();
        if n == 0 {
            return Err(Error::TooFewRows { what: "ridge regression".into(), needed: 1, found: 0 });
        }
        if let Some(w) = weights {
            return Self::weighted(form, x, &y, n_features, w);
        }
        let points = MatRef::from_row_major_slice(x, n, n_features);
        let intercept = !matches!(form, Form::Kernel { intercept: false, .. });
        let y_offset = if intercept { y.iter().sum::<f64>() / n as f64 } else { 0.0 };
        let targets = y.iter().map(|v| v - y_offset).collect();
        let design = match form {
            Form::Linear => {
                let means: Vec<f64> = (0..n_features).map(|j| (0..n).map(|i| points[(i, j)]).sum::<f64>() / n as f64).collect();
                Design::Linear { centred: Mat::from_fn(n, n_features, |i, j| points[(i, j)] - means[j]), means }
            }
            Form::Kernel { kernel, intercept } => {
                let mut gram = kernel.gram(points, points);
                let row_means = intercept.then(|| centre_gram(&mut gram));
                Design::Kernel { gram, row_means }
            }
        };
        Ok(Self { n_rows: n, y_offset, targets, design, root_weights: None })
    }

    /// [`Problem::new`] with sample weights `w`: weighted means, then rows and targets scaled
    /// by `√wᵢ`, so that the normal matrix is `X_cᵀ W X_c` (or `W½ K W½`) and the solvers are
    /// the unweighted ones. Dual coefficients come back as `W½ α̃` ([`Problem::solution`]).
    fn weighted(form: Form, x: &[f64], y: &[f64], n_features: usize, w: Vec<f64>) -> Result<Self> {
        let n = y.len();
        let points = MatRef::from_row_major_slice(x, n, n_features);
        let root: Vec<f64> = w.iter().map(|v| v.sqrt()).collect();
        let design = match form {
            Form::Kernel { intercept: true, .. } => {
                return Err(Error::Unsupported {
                    what: "sample_weight with family `kernel-ridge` and intercept=true".into(),
                    reason: "the weighted fit is implemented for scikit-learn's KernelRidge form (intercept=false)".into(),
                });
            }
            Form::Kernel { kernel, .. } => {
                let mut gram = kernel.gram(points, points);
                for j in 0..n {
                    for i in 0..n {
                        gram[(i, j)] *= root[i] * root[j];
                    }
                }
                Design::Kernel { gram, row_means: None }
            }
            Form::Linear => {
                let total: f64 = w.iter().sum();
                let means: Vec<f64> = (0..n_features).map(|j| (0..n).map(|i| w[i] * points[(i, j)]).sum::<f64>() / total).collect();
                let y_offset = y.iter().zip(&w).map(|(v, w)| w * v).sum::<f64>() / total;
                let targets = y.iter().zip(&root).map(|(v, r)| r * (v - y_offset)).collect();
                let centred = Mat::from_fn(n, n_features, |i, j| root[i] * (points[(i, j)] - means[j]));
                return Ok(Self { n_rows: n, y_offset, targets, design: Design::Linear { centred, means }, root_weights: Some(root) });
            }
        };
        let targets = y.iter().zip(&root).map(|(v, r)| r * v).collect();
        Ok(Self { n_rows: n, y_offset: 0.0, targets, design, root_weights: Some(root) })
    }

    fn has_intercept(&self) -> bool {
        !matches!(self.design, Design::Kernel { row_means: None, .. })
    }

    /// True when the eigendecomposition is of the d × d matrix `X_cᵀX_c`.
    fn is_primal(&self) -> bool {
        matches!(&self.design, Design::Linear { centred, .. } if centred.ncols() <= centred.nrows())
    }

    /// The normal matrix `A` without λ.
    fn normal_matrix(&self, primal: bool) -> Mat<f64> {
        match &self.design {
            Design::Linear { centred, .. } if primal => linalg::mul(centred.transpose(), centred.as_ref()),
            Design::Linear { centred, .. } => linalg::mul(centred.as_ref(), centred.transpose()),
            Design::Kernel { gram, .. } => gram.clone(),
        }
    }

    fn targets(&self) -> MatRef<'_, f64> {
        MatRef::from_column_major_slice(&self.targets, self.n_rows, 1)
    }

    /// The solution whose weights / dual coefficients are the columns of `coefficients`, with
    /// its intercepts. With an intercept, dual coefficients are first projected onto `1ᵀα = 0`,
    /// which holds exactly (`α = (K_c + λI)⁻¹ y_c` and `1ᵀK_c = 0`): without the projection the
    /// rounding error of `1ᵀα`, times the uncentred kernel values, dominates the prediction error
    /// for small λ, where `‖α‖ = ‖y_c − K_c α‖ / λ` is large.
    fn solution(&self, mut coefficients: Mat<f64>) -> Solution {
        if let (Design::Kernel { .. }, Some(root)) = (&self.design, &self.root_weights) {
            for m in 0..coefficients.ncols() {
                coefficients.col_mut(m).iter_mut().zip(root).for_each(|(a, r)| *a *= r);
            }
        }
        let offsets: Option<&[f64]> = match &self.design {
            Design::Linear { means, .. } => Some(means),
            Design::Kernel { row_means, .. } => row_means.as_deref(),
        };
        let intercepts = (0..coefficients.ncols())
            .map(|m| match offsets {
                Some(o) => {
                    if matches!(self.design, Design::Kernel { .. }) {
                        let mean = coefficients.col(m).iter().sum::<f64>() / self.n_rows as f64;
                        coefficients.col_mut(m).iter_mut().for_each(|a| *a -= mean);
                    }
                    self.y_offset - o.iter().enumerate().map(|(k, v)| v * coefficients[(k, m)]).sum::<f64>()
                }
                None => 0.0,
            })
            .collect();
        Solution { coefficients, intercepts }
    }

    /// The direct solve at one λ ≥ 0: Cholesky of `X_cᵀX_c + λI` (linear ridge, always the
    /// primal form, so it also checks the path's dual form) or `K + λI`. When λ ≤ `size · ε ·
    /// trace(A)` the system is singular to working precision and the spectral minimum-norm
    /// solution is returned instead (see the module docs).
    ///
    /// # Errors
    /// [`Error::Numerical`] when the factorisation or the eigendecomposition fails.
    pub(super) fn solve_direct(&self, lambda: f64) -> Result<Solution> {
        let primal = matches!(self.design, Design::Linear { .. });
        let mut a = self.normal_matrix(primal);
        let size = a.nrows();
        let trace: f64 = (0..size).map(|k| a[(k, k)]).sum();
        if lambda <= size as f64 * f64::EPSILON * trace {
            return Ok(Spectrum::new(self)?.solve(self, &[lambda]));
        }
        (0..size).for_each(|k| a[(k, k)] += lambda);
        let coefficients = match &self.design {
            Design::Linear { centred, .. } => {
                linalg::cholesky_solve(a.as_ref(), linalg::mul(centred.transpose(), self.targets()).as_ref())?
            }
            Design::Kernel { .. } => linalg::cholesky_solve(a.as_ref(), self.targets())?,
        };
        Ok(self.solution(coefficients))
    }
}

/// Centres a Gram matrix in place (`K_c = H K H`) and returns `K 1 / n`.
fn centre_gram(gram: &mut Mat<f64>) -> Vec<f64> {
    let n = gram.nrows();
    let row_means: Vec<f64> = (0..n).map(|i| (0..n).map(|j| gram[(i, j)]).sum::<f64>() / n as f64).collect();
    let grand = row_means.iter().sum::<f64>() / n as f64;
    for j in 0..n {
        for i in 0..n {
            gram[(i, j)] += grand - row_means[i] - row_means[j];
        }
    }
    row_means
}

/// The eigendecomposition of the normal matrix and the projected targets.
pub(super) struct Spectrum {
    primal: bool,
    /// Eigenvalues `s_k`, clamped at 0.
    values: Vec<f64>,
    /// Eigenvectors as columns (V in the primal form, U in the dual).
    vectors: Mat<f64>,
    /// `Vᵀ X_cᵀ y_c` (primal) or `Uᵀ y_c` (dual).
    projected: Vec<f64>,
    tolerance: f64,
}

impl Spectrum {
    /// One symmetric eigendecomposition of the problem's normal matrix.
    ///
    /// # Errors
    /// [`Error::Numerical`] when the eigendecomposition fails.
    pub(super) fn new(problem: &Problem) -> Result<Self> {
        let primal = problem.is_primal();
        let a = problem.normal_matrix(primal);
        let (values, vectors) = linalg::symmetric_eigen(a.as_ref())?;
        let values: Vec<f64> = values.into_iter().map(|s| s.max(0.0)).collect();
        let largest = values.iter().copied().fold(0.0, f64::max);
        let tolerance = values.len() as f64 * f64::EPSILON * largest;
        let rhs = match (&problem.design, primal) {
            (Design::Linear { centred, .. }, true) => linalg::mul(centred.transpose(), problem.targets()),
            _ => problem.targets().to_owned(),
        };
        let projected = linalg::mul(vectors.transpose(), rhs.as_ref());
        let projected = (0..values.len()).map(|k| projected[(k, 0)]).collect();
        Ok(Self { primal, values, vectors, projected, tolerance })
    }

    /// `r_k(λ) = 1 / (s_k + λ)`, or 0 for a dropped component (`s_k + λ ≤ tol`), as a
    /// `rank × M` matrix over the grid.
    fn resolvent(&self, lambdas: &[f64]) -> Mat<f64> {
        Mat::from_fn(self.values.len(), lambdas.len(), |k, m| {
            let denominator = self.values[k] + lambdas[m];
            if denominator > self.tolerance { 1.0 / denominator } else { 0.0 }
        })
    }

    /// The solution at every λ of `lambdas`.
    pub(super) fn solve(&self, problem: &Problem, lambdas: &[f64]) -> Solution {
        let mut scaled = self.resolvent(lambdas);
        for m in 0..lambdas.len() {
            for (k, p) in self.projected.iter().enumerate() {
                scaled[(k, m)] *= p;
            }
        }
        let in_basis = linalg::mul(self.vectors.as_ref(), scaled.as_ref());
        let coefficients = match &problem.design {
            Design::Linear { centred, .. } if !self.primal => linalg::mul(centred.transpose(), in_basis.as_ref()),
            _ => in_basis,
        };
        problem.solution(coefficients)
    }

    /// In-sample fitted values and hat-matrix diagonals at every λ. The hat matrix is
    /// `S_λ = 11ᵀ/n + X_c (X_cᵀX_c + λI)⁻¹ X_cᵀ` (linear), `11ᵀ/n + K_c (K_c + λI)⁻¹` (kernel with
    /// an intercept) or `K (K + λI)⁻¹` (without): `S_ii = [1/n] + Σ_k Q_ik² r_k(λ)` with
    /// `Q = X_c V` (primal) or `S_ii = [1/n] + Σ_k U_ik² s_k r_k(λ)` (dual).
    pub(super) fn smoother(&self, problem: &Problem, lambdas: &[f64]) -> SmootherPath {
        let resolvent = self.resolvent(lambdas);
        let (basis, gain) = match &problem.design {
            Design::Linear { centred, .. } if self.primal => (linalg::mul(centred.as_ref(), self.vectors.as_ref()), resolvent),
            _ => {
                let values = &self.values;
                (self.vectors.clone(), Mat::from_fn(resolvent.nrows(), resolvent.ncols(), |k, m| values[k] * resolvent[(k, m)]))
            }
        };
        // ŷ − offset = basis · diag(gain) · coordinates, where the targets' coordinates in the
        // basis are `projected` (primal: Q r ⊙ Vᵀ X_cᵀ y_c; dual: U s r ⊙ Uᵀ y_c).
        let fitted_gain = Mat::from_fn(gain.nrows(), gain.ncols(), |k, m| gain[(k, m)] * self.projected[k]);
        let fitted = linalg::mul(basis.as_ref(), fitted_gain.as_ref());
        let squares = Mat::from_fn(basis.nrows(), basis.ncols(), |i, k| basis[(i, k)] * basis[(i, k)]);
        let leverage = linalg::mul(squares.as_ref(), gain.as_ref());
        let n = problem.n_rows;
        let mean_leverage = if problem.has_intercept() { 1.0 / n as f64 } else { 0.0 };
        SmootherPath {
            fitted: (0..lambdas.len()).map(|m| (0..n).map(|i| problem.y_offset + fitted[(i, m)]).collect()).collect(),
            leverage: (0..lambdas.len()).map(|m| (0..n).map(|i| mean_leverage + leverage[(i, m)]).collect()).collect(),
        }
    }
}
