//! Ridge and kernel ridge regression; the grid is λ (ascending, log scale, larger is simpler).
//!
//! Objectives, on a training set `T` of n rows:
//! - **ridge** (`ridge`): `min_{w,b} ‖y − Xw − b1‖² + λ‖w‖²`, scikit-learn's `Ridge(alpha=λ)`.
//!   The intercept is not penalised; it is handled by centring X and y on the training rows:
//!   `w = (X_cᵀX_c + λI)⁻¹ X_cᵀ y_c`, `b = ȳ − x̄ᵀw`.
//! - **kernel ridge** (`kernel-ridge`): `f(x) = Σ_i α_i k(x_i, x) + b`. Default (`intercept=false`):
//!   scikit-learn's `KernelRidge(alpha=λ)` convention, `(K + λI) α = y`, b = 0, so reference values
//!   carry over and a scikit-learn user gets the same numbers. With `intercept=true`:
//!   `min_{α,b} ‖y − Kα − b1‖² + λ αᵀKα`, ridge in feature space with an unpenalised intercept,
//!   solved with the centred Gram matrix `K_c = HKH`: `α = (K_c + λI)⁻¹ y_c`, `b = ȳ − αᵀK1/n`.
//!   This form is still a penalised least-squares fit, so the closed-form leave-one-out formula
//!   stays exact, and with the linear kernel it equals `ridge`. (Merely centring y, the other
//!   common choice, is not a penalised fit of (α, b) and breaks the exact LOO identity.)
//!   Kernels ([`Kernel`]): `linear` ⟨x, x'⟩; `rbf` exp(−γ‖x − x'‖²); `polynomial`
//!   (γ⟨x, x'⟩ + coef0)^degree. Parameters: `kernel` (default `rbf`), `gamma` (a number > 0,
//!   `scale` or `auto`, see [`KernelWidth`]; default `scale` for `rbf` — scikit-learn's SVM rule
//!   `1 / (d · Var(X))`, computed on each training set — and `auto` = 1/d, scikit-learn's
//!   `KernelRidge` default, for `polynomial`), `coef0` (≥ 0, default 1), `degree` (≥ 1,
//!   default 3), `intercept` (`true`/`false`, default `false`). A parameter the chosen kernel
//!   does not use is an error.
//!
//! Regression only. Default grid: 50 values log-spaced from `10⁻⁶ t` to `10 t`, where
//! `t = trace(A)` is the trace of the normal matrix on the data given to [`RidgeConfig::build`] /
//! [`KernelRidgeConfig::build`] (`Σ_ij (x_ij − x̄_j)²` for ridge, `Σ_i k(x_i, x_i)` for kernel ridge,
//! t = 1 if it is 0): the eigenvalues of `A` sum to t, so the grid spans from "every direction
//! kept" (λ far below the spectrum) to "nearly the constant model" (effective degrees of freedom
//! `Σ s_k/(s_k + λ) ≤ 0.1`). The grid is computed on the raw data: with per-fold standardisation
//! of badly scaled features, pass `--grid log:LOW:HIGH:N` instead.
//!
//! Path evaluation ([`Family::fit_path`]): one symmetric eigendecomposition `A = V diag(s) Vᵀ` per
//! training set, of `X_cᵀX_c` (d × d) when d ≤ n, of `X_c X_cᵀ` (n × n) when n < d, of the Gram
//! matrix for kernel ridge. Each λ is then a diagonal scaling: the coefficients of every grid
//! point come from one product `V · (z ⊙ r(λ))` (d × M or n × M, `r_k(λ) = 1/(s_k + λ)`), and
//! the validation predictions of all M grid points from one more product — `O(M · n_val · rank)`
//! after the decomposition. [`Family::linear_smoother`] reads the hat matrix's diagonal from the
//! same decomposition, for closed-form LOO and GCV. [`Family::fit`] is the slow reference: one
//! Cholesky factorisation of `X_cᵀX_c + λI` (always the primal form, so it also checks the dual
//! path) or `K + λI` per grid point. Rejected alternatives: a Cholesky per λ for the path
//! (`O(M d³)` instead of `O(d³ + M d²)`); the SVD of X_c (more accurate for tiny λ because it
//! does not square the condition number, but kernel ridge needs the Gram matrix's
//! eigendecomposition anyway, and for d ≪ n the d × d eigenproblem is cheaper than an n × d SVD).
//!
//! Singular systems (λ = 0 through [`RidgeFamily::fit_lambda`] or a λ lost in rounding, with
//! collinear columns or duplicated points): eigen-components with `s_k + λ ≤ size · ε · s_max`
//! are dropped, which gives the minimum-norm least-squares solution — the λ → 0⁺ limit of ridge —
//! never NaN. Kernel ridge refuses training sets above [`MAX_KERNEL_ROWS`] (dense Gram matrix)
//! with [`Error::Unsupported`] rather than exhausting memory. Non-finite features are refused with [`Error::NonFinite`]; a prediction that
//! overflows is [`Error::Numerical`].
//!
//! Agghoo: the average of V ridge models is one ridge model ([`RidgeModel::merge_mean`]).
//! Linear algebra is faer's, run sequentially (see `family/numerics/linalg.rs`): splits are the unit of
//! parallelism, and results do not depend on the number of threads.

mod config;
mod model;
mod solve;
#[cfg(test)]
mod tests;

use faer::{Mat, MatRef};

pub(crate) use self::config::{KERNEL_RIDGE, RIDGE};
pub use self::config::{KernelName, KernelRidgeConfig, RidgeConfig};
pub use self::model::RidgeModel;
use self::model::predict_columns;
use self::solve::{Form, Problem, Solution, Spectrum, gather_finite};
pub use super::numerics::kernel::Kernel;
use super::{Family, FittedPath, Grid, KernelWidth, Model, Scale, SmootherPath};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

/// Number of values of the default λ grid.
pub const DEFAULT_GRID_LEN: usize = 50;

/// Largest training set kernel ridge accepts: its n × n Gram matrix and eigenvectors take
/// `2 · 8 n²` bytes (6.4 GB at this limit) and the eigendecomposition O(n³) time.
pub const MAX_KERNEL_ROWS: usize = 20_000;

/// The ridge or kernel ridge family over a λ grid.
#[derive(Clone, Debug)]
pub struct RidgeFamily {
    grid: Grid,
    form: Form,
    /// γ of the kernel chosen on each training set (`None`: the kernel's own γ everywhere).
    width: Option<KernelWidth>,
}

impl RidgeFamily {
    /// Linear ridge `‖y − Xw − b1‖² + λ‖w‖²` over the given λ values (sorted ascending).
    ///
    /// ```
    /// use agghoo::family::{Family, Predictor, ridge::RidgeFamily};
    /// use agghoo::data::{Dataset, Target};
    /// // y = 2x + 1 exactly; a tiny λ recovers it.
    /// let data = Dataset::new(vec![0.0, 1.0, 2.0, 3.0], vec!["x".into()], Target::Real(vec![1.0, 3.0, 5.0, 7.0]), "y")?;
    /// let model = RidgeFamily::linear(vec![1e-9])?.fit_lambda(&data.all(), 1e-9)?;
    /// assert!((model.weights().unwrap()[0] - 2.0).abs() < 1e-8 && (model.intercept() - 1.0).abs() < 1e-8);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid or a λ that is not positive and finite.
    pub fn linear(lambdas: Vec<f64>) -> Result<Self> {
        Ok(Self { grid: lambda_grid(lambdas)?, form: Form::Linear, width: None })
    }

    /// Kernel ridge with `kernel`; `intercept = false` is scikit-learn's `(K + λI) α = y`.
    ///
    /// # Errors
    /// As [`RidgeFamily::linear`].
    pub fn kernel(lambdas: Vec<f64>, kernel: Kernel, intercept: bool) -> Result<Self> {
        Ok(Self { grid: lambda_grid(lambdas)?, form: Form::Kernel { kernel, intercept }, width: None })
    }

    /// The same family with the kernel's γ chosen by `width` on each training set, as the fit
    /// sees it (no effect on linear ridge and the linear kernel).
    pub fn with_width(self, width: KernelWidth) -> Self {
        Self { width: Some(width), ..self }
    }

    /// Fits at any λ ≥ 0 by the direct solve; λ = 0 on a singular system gives the minimum-norm
    /// least-squares solution.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a negative or non-finite λ; [`Error::TaskMismatch`] for
    /// classification data; [`Error::NonFinite`], [`Error::Numerical`] as the module docs say.
    pub fn fit_lambda(&self, train: &View<'_>, lambda: f64) -> Result<RidgeModel> {
        if !(lambda >= 0.0 && lambda.is_finite()) {
            return Err(Error::invalid("lambda", "a finite number ≥ 0", lambda));
        }
        let (problem, points, form) = self.problem(train)?;
        let solution = problem.solve_direct(lambda)?;
        check_solution(&solution, lambda)?;
        Ok(model_at(form, &solution, 0, points, train.n_features()))
    }

    /// The training set's problem, its points and the form fitted on it (the kernel with the γ
    /// of this training set).
    fn problem(&self, train: &View<'_>) -> Result<(Problem, Vec<f64>, Form)> {
        if train.task() != Task::Regression {
            return Err(task_mismatch(self.name()));
        }
        self.check_train_size(train.len())?;
        let x = gather_finite(train)?;
        let form = match (self.form, self.width) {
            (Form::Kernel { kernel, intercept }, Some(width)) => {
                Form::Kernel { kernel: kernel.with_gamma(width.gamma(&x, train.n_features())?)?, intercept }
            }
            (form, _) => form,
        };
        let problem = Problem::new(form, &x, train.gather_y(), train.n_features(), train.weights())?;
        Ok((problem, x, form))
    }
}

/// The model of grid column `column` of a solution fitted with `form`.
fn model_at(form: Form, solution: &Solution, column: usize, points: Vec<f64>, n_features: usize) -> RidgeModel {
    let coefficients = solution.coefficients.col(column).iter().copied().collect();
    match form {
        Form::Linear => RidgeModel::linear(coefficients, solution.intercepts[column]),
        Form::Kernel { kernel, .. } => RidgeModel::kernel(kernel, points, n_features, coefficients, solution.intercepts[column]),
    }
}

fn lambda_grid(lambdas: Vec<f64>) -> Result<Grid> {
    Grid::new("lambda", lambdas, Scale::Log, true)
}

fn task_mismatch(family: &str) -> Error {
    Error::TaskMismatch(format!("family `{family}` is regression only; the data have classes"))
}

/// Refuses coefficients that overflowed (a huge feature scale), naming λ.
fn check_solution(solution: &Solution, lambda: f64) -> Result<()> {
    let finite =
        solution.intercepts.iter().all(|b| b.is_finite()) && solution.coefficients.col_iter().all(|c| c.iter().all(|v| v.is_finite()));
    if finite {
        Ok(())
    } else {
        Err(Error::Numerical(format!("ridge coefficients at λ = {lambda} are not finite (feature scale too large?)")))
    }
}

/// 50 values log-spaced from `10⁻⁶ t` to `10 t` (t = 1 when t is not positive).
fn default_grid(trace: f64) -> Vec<f64> {
    let t = if trace > 0.0 && trace.is_finite() { trace } else { 1.0 };
    let (low, high) = ((1e-6 * t).ln(), (10.0 * t).ln());
    let last = (DEFAULT_GRID_LEN - 1) as f64;
    (0..DEFAULT_GRID_LEN).map(|i| (low + (high - low) * i as f64 / last).exp()).collect()
}

impl Family for RidgeFamily {
    fn name(&self) -> &'static str {
        match self.form {
            Form::Linear => "ridge",
            Form::Kernel { .. } => "kernel-ridge",
        }
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        Task::Regression
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        Ok(Model::Ridge(self.fit_lambda(train, self.grid.value(grid_index))?))
    }
    /// Fits at λ = `value` exactly (EKCV's averaged λ need not be a grid value).
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        Ok(Model::Ridge(self.fit_lambda(train, value)?))
    }
    fn fitted_value(&self, value: f64) -> f64 {
        value
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let (problem, points, form) = self.problem(train)?;
        let solution = Spectrum::new(&problem)?.solve(&problem, self.grid.values());
        check_solution(&solution, self.grid.value(0))?;
        let points = if form == Form::Linear { Vec::new() } else { points };
        Ok(Box::new(RidgePath { family: self, form, n_features: train.n_features(), solution, points }))
    }
    fn exact_loo(&self) -> bool {
        true
    }
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        // With γ = `scale` leaving a row out changes γ, hence the kernel: the hat matrix of the
        // whole training set no longer gives leave-one-out exactly, so there is no shortcut.
        if self.width == Some(KernelWidth::Scale) || train.is_weighted() {
            return None;
        }
        Some(self.problem(train).and_then(|(problem, _, _)| {
            let path = Spectrum::new(&problem)?.smoother(&problem, self.grid.values());
            if path.fitted.iter().chain(&path.leverage).flatten().any(|v| !v.is_finite()) {
                return Err(Error::Numerical("ridge smoother: non-finite fitted values or leverages".into()));
            }
            Ok(path)
        }))
    }
    /// The copies of the training matrix (gathered, centred), the normal or Gram matrix, its
    /// eigendecomposition (a copy, the eigenvectors and faer's workspace), the path's
    /// coefficients and the prediction's buffers.
    fn path_memory(&self, shape: &super::FitShape) -> u128 {
        use crate::limits::product;
        let (n, v, d, m) = (shape.n_train as u128, shape.n_validation as u128, shape.n_features as u128, self.grid.len() as u128);
        let (size, rest) = match self.form {
            Form::Linear => {
                let r = n.min(d);
                (r, product([3, n, d]) + product([2, d + r, m]))
            }
            Form::Kernel { .. } => (n, product([2, n, d]) + product([v, n]) + product([3, n, m])),
        };
        let words = product([4, size, size]) + rest + product([v, d]) + product([3, v, m]) + 16 * (n + d);
        product([words, 8]).saturating_add(super::numerics::linalg::eigen_workspace(usize::try_from(size).unwrap_or(usize::MAX)))
    }
    fn check_train_size(&self, n_train: usize) -> Result<()> {
        if n_train == 0 {
            return Err(Error::TooFewRows { what: format!("family `{}`", self.name()), needed: 1, found: 0 });
        }
        if matches!(self.form, Form::Kernel { .. }) && n_train > MAX_KERNEL_ROWS {
            return Err(Error::Unsupported {
                what: format!("kernel ridge on {n_train} training rows"),
                reason: format!("the dense n × n Gram matrix limits it to {MAX_KERNEL_ROWS} rows; use ridge or subsample"),
            });
        }
        Ok(())
    }
}

/// Coefficients of every grid point on one training set.
struct RidgePath<'a> {
    family: &'a RidgeFamily,
    /// The form fitted on this training set (its kernel's γ).
    form: Form,
    n_features: usize,
    solution: Solution,
    /// The training points, row-major (kernel ridge predicts from them).
    points: Vec<f64>,
}

impl RidgePath<'_> {
    fn kernel_points(&self) -> Option<(&Kernel, MatRef<'_, f64>)> {
        match &self.form {
            Form::Linear => None,
            Form::Kernel { kernel, .. } => {
                Some((kernel, MatRef::from_row_major_slice(&self.points, self.solution.coefficients.nrows(), self.n_features)))
            }
        }
    }
}

impl FittedPath for RidgePath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        let coefficients: &Mat<f64> = &self.solution.coefficients;
        predict_columns(validation, self.n_features, coefficients.as_ref(), &self.solution.intercepts, self.kernel_points())
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        if grid_index >= self.family.grid.len() {
            return Err(Error::invalid("grid_index", "an index into the grid", grid_index));
        }
        let points = match self.form {
            Form::Linear => Vec::new(),
            Form::Kernel { .. } => self.points.clone(),
        };
        Ok(Model::Ridge(model_at(self.form, &self.solution, grid_index, points, self.n_features)))
    }
}
