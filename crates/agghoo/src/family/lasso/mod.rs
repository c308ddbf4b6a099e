//! Lasso and elastic net (regression): coordinate descent along a decreasing λ path with warm
//! starts, sequential strong-rule screening and a KKT check (glmnet's algorithm).
//!
//! # Objective
//! scikit-learn's `ElasticNet` / `Lasso` objective, ρ = `l1_ratio`:
//!
//! ```text
//! (1/(2n)) ‖y − X w − b‖² + λ (ρ ‖w‖₁ + (1 − ρ)/2 ‖w‖²)
//! ```
//!
//! with the intercept b unpenalised (fitted by centring: `b = ȳ − x̄ᵀw` on the training rows).
//! With weighted data (scikit-learn's `sample_weight`) the squared errors are weighted as
//! scikit-learn's `ElasticNet` does: `(1/(2n)) Σ w̃_i (y_i − x_iᵀw − b)²` with the weights rescaled
//! to `w̃_i = w_i n / Σ w` (so integer weights equal duplicated rows, unit weights change no bit),
//! the means `x̄`, `ȳ` weighted; λ_max and the default grid are computed on the weighted data.
//! scikit-learn's `alpha` is our λ. `lasso` has ρ = 1 by default, `enet` ρ = 0.5; both accept
//! `--param l1_ratio=ρ`, ρ ∈ [0, 1]. The features are **not** standardised inside the family
//! (glmnet standardises by default, scikit-learn does not): use the CLI's `--standardize`, which
//! fits the scaling per training fold.
//!
//! # Grid
//! `lambda`, log scale, larger is simpler, stored ascending (grid order for the tie rule); the path
//! runs it descending. Default: 100 log-spaced values from `λ_max = max_j |x_jᵀ(y − ȳ)| / (n ρ)`
//! (the smallest λ with w = 0, computed on the centred data given to [`LassoConfig::build`]) down to
//! `λ_max · 10⁻³`. Each training split has its own λ_max, slightly different from the full data's;
//! the grid is fixed once so that every split evaluates the same rules. For ρ < 10⁻³ the formula
//! uses ρ = 10⁻³ (λ_max is infinite at ρ = 0; glmnet does the same).
//!
//! # Path evaluation
//! [`Family::fit_path`] solves the grid from the largest λ down, each solve warm-started at the
//! previous solution, and keeps every coefficient vector: predictions of all grid points cost one
//! matrix–vector product each, and [`FittedPath::model`] returns the stored solution.
//! [`Family::fit`] is the slow path: cold-start coordinate descent at λ_m alone (basic strong
//! rule from λ_max, same KKT check). Both stop at the same tolerance, so they agree to it (tested
//! with `path_equals_refit`). The kernel, its screening and its stopping rule are described in
//! `cd.rs`.
//!
//! Settings (`--param`): `l1_ratio` (ρ), `tol` (relative tolerance on the duality gap and the
//! coordinate changes, default 10⁻⁷, see `cd.rs`), `max_iter` (coordinate passes per λ, default 100 000),
//! `precompute` = `auto` | `gram` | `residual` (`auto`: Gram matrix when n > d and d ≤ 4096).

mod cd;
mod config;
mod model;

use serde::{Deserialize, Serialize};

use self::cd::{Problem, Settings};
pub(crate) use self::config::deserialize_enet;
pub(crate) use self::config::{ENET, LASSO};
pub use self::config::{LassoConfig, LassoKind};
pub use self::model::LassoModel;
use super::numerics::vector::dot;
use super::params::{check_max_iter, check_tol};
use super::{Family, FittedPath, Grid, Model, Predictor, Scale};
use crate::data::{Dataset, Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

/// The mixing parameter ρ of the elastic-net penalty; always in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct L1Ratio(f64);

impl L1Ratio {
    /// Validates ρ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `l1_ratio` when ρ is outside [0, 1] or NaN.
    pub fn new(rho: f64) -> Result<Self> {
        if (0.0..=1.0).contains(&rho) {
            return Ok(Self(rho));
        }
        Err(Error::invalid("l1_ratio", "in [0, 1]", rho))
    }
    /// The value ρ.
    pub fn get(self) -> f64 {
        self.0
    }
}

/// How coordinate descent reads the gradient (see `cd.rs`): both give the same solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precompute {
    /// Gram matrix when n > d and d ≤ 4096, residuals otherwise (the default).
    #[default]
    Auto,
    /// Always the Gram matrix `XᵀX/n` (covariance updates).
    Gram,
    /// Always the residual vector (naive updates).
    Residual,
}

impl Precompute {
    /// Parses `auto`, `gram` or `residual`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `precompute` for another value.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "auto" => Ok(Self::Auto),
            "gram" => Ok(Self::Gram),
            "residual" => Ok(Self::Residual),
            other => Err(Error::invalid("precompute", "one of auto, gram, residual", other)),
        }
    }
    fn use_gram(self, n: usize, d: usize) -> bool {
        match self {
            Self::Auto => n > d && d <= 4096,
            Self::Gram => true,
            Self::Residual => false,
        }
    }
}

/// The Lasso / elastic-net family over a λ grid.
#[derive(Clone, Debug)]
pub struct LassoFamily {
    name: &'static str,
    grid: Grid,
    l1_ratio: L1Ratio,
    tol: f64,
    max_passes: usize,
    precompute: Precompute,
}

impl LassoFamily {
    /// A family over the given λ values (sorted ascending) with mixing ρ = `l1_ratio`.
    /// `name` is the CLI name reported (`lasso` or `enet`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid or a non-positive λ.
    pub fn new(name: &'static str, lambdas: Vec<f64>, l1_ratio: L1Ratio) -> Result<Self> {
        let grid = Grid::new("lambda", lambdas, Scale::Log, true)?;
        Ok(Self { name, grid, l1_ratio, tol: 1e-7, max_passes: 100_000, precompute: Precompute::Auto })
    }
    /// Sets the relative tolerance (see the module doc of `cd.rs`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `tol` is positive and finite.
    pub fn with_tol(mut self, tol: f64) -> Result<Self> {
        self.tol = check_tol(tol)?;
        Ok(self)
    }
    /// Sets the maximum number of coordinate passes per λ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_max_iter(mut self, max_iter: usize) -> Result<Self> {
        self.max_passes = check_max_iter(max_iter)?;
        Ok(self)
    }
    /// Chooses residual or covariance updates.
    pub fn with_precompute(mut self, precompute: Precompute) -> Self {
        self.precompute = precompute;
        self
    }
    /// ρ.
    pub fn l1_ratio(&self) -> L1Ratio {
        self.l1_ratio
    }

    fn settings(&self) -> Settings {
        Settings { l1_ratio: self.l1_ratio.get(), tol: self.tol, max_passes: self.max_passes }
    }

    /// The centred problem on `train`, its squared errors weighted by `weights` (one per row).
    fn problem(&self, train: &View<'_>, weights: Option<&[f64]>) -> Result<Problem> {
        check_regression(train.task(), self.name)?;
        if train.is_empty() {
            return Err(Error::TooFewRows { what: format!("family `{}`", self.name), needed: 1, found: 0 });
        }
        if weights.is_some_and(|w| !w.iter().any(|&v| v > 0.0)) {
            let what = format!("family `{}` (rows of positive weight)", self.name);
            return Err(Error::TooFewRows { what, needed: 1, found: 0 });
        }
        Ok(Problem::new(train, self.precompute.use_gram(train.len(), train.n_features()), weights))
    }

    fn model_at(&self, problem: &Problem, w: Vec<f64>, lambda: f64) -> LassoModel {
        let intercept = problem.y_mean - dot(&problem.x_mean, &w);
        LassoModel { coefficients: w, intercept, lambda, l1_ratio: self.l1_ratio.get() }
    }

    /// Cold-start coordinate descent at one λ.
    fn fit_lambda(&self, train: &View<'_>, lambda: f64, weights: Option<&[f64]>) -> Result<LassoModel> {
        let problem = self.problem(train, weights)?;
        let mut state = problem.zero_state();
        let lambda_max = problem.lambda_max(self.l1_ratio.get());
        problem.solve(&mut state, lambda, lambda_max, &self.settings())?;
        Ok(self.model_at(&problem, state.w, lambda))
    }

    /// The whole grid from the largest λ down, warm-started.
    fn path(&self, train: &View<'_>, weights: Option<&[f64]>) -> Result<LassoPath> {
        let problem = self.problem(train, weights)?;
        let settings = self.settings();
        let mut state = problem.zero_state();
        let mut lambda_prev = problem.lambda_max(settings.l1_ratio);
        let mut models = vec![None; self.grid.len()];
        for m in (0..self.grid.len()).rev() {
            let lambda = self.grid.value(m);
            problem.solve(&mut state, lambda, lambda_prev, &settings)?;
            models[m] = Some(self.model_at(&problem, state.w.clone(), lambda));
            lambda_prev = lambda;
        }
        let models = models.into_iter().flatten().collect();
        Ok(LassoPath { models })
    }
}

fn check_regression(task: Task, name: &'static str) -> Result<()> {
    match task {
        Task::Regression => Ok(()),
        Task::Classification => Err(Error::TaskMismatch(format!(
            "family `{name}` is a regression method and needs a real-valued target (use `logistic` for classes)"
        ))),
    }
}

/// 100 log-spaced values from λ_max down to λ_max · 10⁻³ (see the module doc).
fn default_grid(data: &Dataset, l1_ratio: L1Ratio) -> Vec<f64> {
    let problem = Problem::new(&data.all(), false, data.weights());
    let lambda_max = problem.lambda_max(l1_ratio.get().max(1e-3));
    // A constant target or constant features give λ_max = 0: any positive grid is then equivalent.
    let lambda_max = if lambda_max > 0.0 && lambda_max.is_finite() { lambda_max } else { 1.0 };
    (0..100).map(|i| lambda_max * 10f64.powf(-3.0 * f64::from(i) / 99.0)).collect()
}

impl Family for LassoFamily {
    fn name(&self) -> &'static str {
        self.name
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        Task::Regression
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        Ok(Model::Lasso(self.fit_lambda(train, self.grid.value(grid_index), train.weights().as_deref())?))
    }
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        if !(value > 0.0 && value.is_finite()) {
            return Err(Error::invalid("lambda", "positive and finite", value));
        }
        Ok(Model::Lasso(self.fit_lambda(train, value, train.weights().as_deref())?))
    }
    fn fitted_value(&self, value: f64) -> f64 {
        value
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        Ok(Box::new(self.path(train, train.weights().as_deref())?))
    }
}

/// The solutions of the whole grid on one training set, `[grid_index]`.
struct LassoPath {
    models: Vec<LassoModel>,
}

impl FittedPath for LassoPath {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        self.models.iter().map(|m| m.predict(validation)).collect()
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        self.models.get(grid_index).cloned().map(Model::Lasso).ok_or_else(|| Error::invalid("grid_index", "a grid index", grid_index))
    }
}

#[cfg(test)]
mod tests;
