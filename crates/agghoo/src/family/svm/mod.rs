//! Gaussian-kernel C-SVC (binary, and K > 2 classes one-vs-one) and ε-SVR, solved by SMO and
//! warm-started along the grid.
//! See `family/svm/README.md` for the design note.
//!
//! # Objective and the grid's meaning
//! With the Gaussian kernel `K(x, x') = exp(−γ ‖x − x'‖²)` (param `gamma`: a number > 0,
//! `scale` — the default, scikit-learn's `1 / (d · Var(X))` computed on each training set as the
//! fit sees it, see [`KernelWidth`] — or `auto`, LIBSVM's `1/d`; d = number of features) and its
//! RKHS `H`, grid point λ fits, on a training set of size `n_t`,
//!
//! ```text
//! f̂_λ = argmin_{f ∈ H, b ∈ ℝ}  (1/n_t) Σ_{i ∈ T} loss(f(x_i) + b, y_i) + λ ‖f‖²_H
//! ```
//!
//! with the hinge loss `max(0, 1 − y (f + b))`, `y ∈ {−1, +1}` (class 1 ↦ +1) for `svc`, and
//! the ε-insensitive loss `max(0, |y − f − b| − ε)` (param `epsilon` ≥ 0, default 0.1; the
//! papers use 0.25) for `svr`. Multiplying by `1/(2λ)` gives LIBSVM's
//! `min ½‖f‖² + C Σ loss` with
//!
//! ```text
//! C = 1 / (2 λ n_t)        (λ = 1 / (2 C n_t)),
//! ```
//!
//! n_t being the size of the training set at hand (so one λ is a different C on a split and on
//! the full data, as the papers intend). The grid is named `lambda` (log scale, larger is
//! simpler); `--param grid=C` gives the grid in C directly (larger C is less simple). Default
//! grids: `λ_j = 2^{j−1} / (500 n)`, j = 1..17 (the papers' ε-regression grid with n_t replaced by
//! the rows n the family is built for), or `C = 2^{−5}, 2^{−3}, …, 2^{15}` (LIBSVM's guide).
//!
//! # Sample weights
//! With per-row weights `w_i` ([`crate::data::Dataset::with_weights`]) the loss term is the weighted
//! mean `Σ_i w_i loss_i / Σ_i w_i`, so row i gets its own box bound `C_i = C w_i` (LIBSVM's
//! weighted variant, scikit-learn's `SVC(C).fit(X, y, sample_weight=w)`), with
//! `C = 1 / (2 λ Σ_i w_i)` on a λ grid (`Σ w` replaces `n_t`) and C itself on a C grid. Integer
//! weights are row duplication (the dual of the duplicated rows sums to the weighted one); a row
//! of weight 0 is as if absent (its α stays 0 and takes no part in the intercept; one-vs-one
//! leaves it out of its pairs, so a class present only with weight 0 is absent). Unit weights
//! are no weights (the same code path, the same bits). The kernel width `gamma=scale` is computed
//! on the training rows unweighted, as scikit-learn's.
//!
//! # Solver
//! LIBSVM's dual (module `smo`): SMO with second-order working-set selection (Fan, Chen & Lin
//! 2005), shrinking, stopping at gap `< tol` (param `tol`, default 1e-3 as LIBSVM's `eps`), plus
//! periodic Newton steps on the free variables (they settle the zig-zag of SMO on nearly singular
//! kernel matrices; the stopping rule is LIBSVM's). Param `shrinking` (default true).
//! The Newton step is kept only when it keeps `yᵀα = 0` to rounding and does not increase the
//! objective (its direction is projected onto `y_Fᵀ Δ = 0`: on nearly singular kernels — repeated
//! points, SVR's α⁺/α⁻ sharing a row — the unprojected direction drifted off the constraint by up
//! to 7 on ordinary standardised data). A solution off `yᵀα = 0` by more than `1e-10 · C · l`
//! is still refused, as [`Error::Internal`] (a solver bug to report), never returned.
//! Kernel rows come from one cache per training set (module `kernel`): the full matrix when
//! `n_t ≤ 4000`, an LRU row cache otherwise.
//!
//! # Path
//! [`Family::fit_path`] computes the training set's kernel once and solves the grid in
//! increasing C (from the most regularised point). Each solve starts from the previous α scaled
//! by `r = C_new / C_old ≥ 1` (feasible, gradient `r (∇f(α) − p) + p` without kernel work), then
//! moved by an exact line search towards the previous values of the free variables, which do
//! not scale with C (see `smo::Dual::warm_start`). The rejected alternative, a cold start per grid point
//! ([`Family::fit`], kept as the reference), repeats the kernel and most SMO iterations.
//!
//! # Classification
//! Two classes: one machine, class 1 ↦ +1; the decision value `Σ_i β_i K(x_i, x) + b` is
//! returned in [`Predictions::Classes`]`.decision` (positive = class 1, a zero decision predicts
//! class 0, as [`crate::select::Aggregation::ScoreMean`]); `proba` is `None`.
//!
//! K > 2 classes: one-vs-one voting, as LIBSVM and scikit-learn's `SVC` (module `ovo`,
//! model [`OneVsOneSvc`]):
//! - for every pair `(a, b)`, `a < b`, of the classes present in the training set, a binary
//!   C-SVC on the training rows of those two classes with `a ↦ +1`, `b ↦ −1` (LIBSVM's sign:
//!   its first label is positive, and scikit-learn sorts the labels);
//! - the SAME box bound for every pair, `C = 1/(2 λ n_t)` with `n_t` the size of the WHOLE
//!   training set (not of the pair's rows), so that λ keeps its meaning and a C grid
//!   (`--param grid=C`) is LIBSVM's C for every pair, as in LIBSVM;
//! - prediction: pair `(a, b)` votes for `a` when its decision is `> 0`, else for `b`; the class
//!   with the most votes wins, ties go to the lowest class index (LIBSVM's rule);
//! - [`Predictions::Classes`] holds the labels, `proba = Some(votes / P)` with `P` the number of
//!   pairs — **vote fractions, not calibrated probabilities** (they feed the `--soft` vote of
//!   Majhoo) — and `decision = None`;
//! - a class absent from a training set (possible on small splits) has no pair: with m ≥ 2
//!   classes present there are `P = m(m−1)/2` pairs, so the absent class gets no vote and, since
//!   some class always gets at least one, is never predicted (LIBSVM cannot predict a label it
//!   has not seen either). Fewer than two classes present is [`Error::ConstantTarget`], as for
//!   the binary machine.
//!
//! The path warm-starts each pair along the grid exactly as the binary path; the training set's
//! kernel matrix is computed once (when it is stored in full, `n_t ≤ 4000`) and every pair reads
//! its sub-block, instead of one kernel per pair.
//!
//! # Aggregation
//! [`SvmModel::merge_mean`] turns V members into one kernel expansion whose decision function
//! is exactly the mean of theirs (what Agghoo averages: SVR, and `--aggregate score` for the
//! binary SVC). One-vs-one models are combined by the vote or the soft vote (Majhoo, and
//! Agghoo's default for classes), like the other multi-class classifiers; the score mean is
//! refused for more than two classes ([`Error::TaskMismatch`]).

pub(crate) mod cache;
mod config;
mod model;
mod ovo;
pub(crate) mod smo;

pub(crate) use self::config::{SVC, SVR};
pub use self::config::{SvmAxis, SvmConfig};
pub(crate) use self::config::{deserialize_svc, deserialize_svr};
pub use self::model::SvmModel;
use self::model::{check_features, decision_values, predictions};
pub use self::ovo::OneVsOneSvc;

use serde::{Deserialize, Serialize};

use self::cache::{KernelCache, Points};
use self::smo::{Dual, Solution};
use super::numerics::kernel::Kernel;
use super::{Family, FittedPath, Grid, KernelWidth, Model, Scale};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

/// Which machine: C-SVC (classification) or ε-SVR.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SvmKind {
    /// C-support vector classification, hinge loss (the default).
    #[default]
    Svc,
    /// ε-support vector regression, ε-insensitive loss.
    Svr,
}

impl SvmKind {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            SvmKind::Svc => "svc",
            SvmKind::Svr => "svr",
        }
    }
}

/// Solver and kernel settings shared by every grid point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SvmSettings {
    /// Gaussian kernel width γ > 0 in `exp(−γ ‖x − x'‖²)`, used on every training set by
    /// [`SvmFamily::new`] (see [`SvmFamily::with_width`] for a γ computed per training set).
    pub gamma: f64,
    /// ε ≥ 0 of the ε-insensitive loss (SVR only).
    pub epsilon: f64,
    /// SMO stopping tolerance (> 0) on the gap `m(α) − M(α)`.
    pub tol: f64,
    /// LIBSVM's shrinking heuristic.
    pub shrinking: bool,
}

impl SvmSettings {
    /// LIBSVM's defaults for `d` features: γ = 1/d, ε = 0.1, tol = 1e-3, shrinking on.
    pub fn defaults(d: usize) -> Self {
        Self { gamma: 1.0 / d.max(1) as f64, epsilon: 0.1, tol: 1e-3, shrinking: true }
    }
    fn check(&self) -> Result<()> {
        if !(self.gamma > 0.0 && self.gamma.is_finite()) {
            return Err(Error::invalid("gamma", "a finite number > 0", self.gamma));
        }
        if !(self.epsilon >= 0.0 && self.epsilon.is_finite()) {
            return Err(Error::invalid("epsilon", "a finite number ≥ 0", self.epsilon));
        }
        if !(self.tol > 0.0 && self.tol.is_finite()) {
            return Err(Error::invalid("tol", "a finite number > 0", self.tol));
        }
        Ok(())
    }
}

/// The SVC / SVR family over a grid of λ (or C).
#[derive(Clone, Debug)]
pub struct SvmFamily {
    kind: SvmKind,
    grid: Grid,
    grid_in_c: bool,
    settings: SvmSettings,
    width: KernelWidth,
}

impl SvmFamily {
    /// A family over `values`, read as λ (`grid_in_c = false`) or as C, with the fixed
    /// `settings.gamma`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for bad settings or grid values (empty, non-positive).
    pub fn new(kind: SvmKind, values: Vec<f64>, grid_in_c: bool, settings: SvmSettings) -> Result<Self> {
        settings.check()?;
        let grid = if grid_in_c { Grid::new("C", values, Scale::Log, false)? } else { Grid::new("lambda", values, Scale::Log, true)? };
        Ok(Self { kind, grid, grid_in_c, settings, width: KernelWidth::Fixed(settings.gamma) })
    }

    /// The same family with γ chosen by `width` on each training set (`scale`, `auto`, or fixed).
    pub fn with_width(self, width: KernelWidth) -> Self {
        Self { width, ..self }
    }

    /// The γ of a fit on `train` (the training rows as the fit sees them).
    ///
    /// # Errors
    /// As [`KernelWidth::gamma`].
    fn gamma_for(&self, train: &View<'_>, x: &[f64]) -> Result<f64> {
        self.width.gamma(x, train.n_features())
    }

    /// LIBSVM's C of grid point `grid_index` on a training set of `n_train` rows:
    /// `C = 1 / (2 λ n_t)` for a λ grid, the value itself for a C grid.
    pub fn c_value(&self, grid_index: usize, n_train: usize) -> f64 {
        self.c_of(self.grid.value(grid_index), n_train.max(1) as f64)
    }

    /// C of grid `value` on a training set of size `n_t` (`Σ w` with sample weights).
    fn c_of(&self, value: f64, n_t: f64) -> f64 {
        if self.grid_in_c { value } else { 1.0 / (2.0 * value * n_t) }
    }

    /// Grid indices from the most regularised (smallest C) to the least.
    fn path_order(&self) -> Vec<usize> {
        let m = self.grid.len();
        if self.grid_in_c { (0..m).collect() } else { (0..m).rev().collect() }
    }

    /// Checks the task and that `train` has rows; true when the fit is a one-vs-one C-SVC
    /// (more than two classes).
    fn check_train(&self, train: &View<'_>) -> Result<bool> {
        if train.task() != self.task() {
            return Err(Error::TaskMismatch(format!(
                "family `{}` needs {} data",
                self.kind.name(),
                if self.kind == SvmKind::Svc { "classification" } else { "regression" }
            )));
        }
        if train.is_empty() || training_size(train) == 0.0 {
            return Err(Error::TooFewRows {
                what: format!("family `{}` (rows of positive weight)", self.kind.name()),
                needed: 1,
                found: 0,
            });
        }
        Ok(self.kind == SvmKind::Svc && train.n_classes() > 2)
    }

    /// The binary training problem of `train` (already accepted by [`check_train`](Self::check_train)
    /// as two-class or regression): points, the dual's labels, linear term and kernel rows.
    fn problem(&self, train: &View<'_>) -> Result<(Points, Problem)> {
        let n = train.len();
        let x = train.gather_x();
        let points = Points { kernel: Kernel::rbf(self.gamma_for(train, &x)?)?, x, d: train.n_features() };
        let weights = train.non_unit_weights();
        let problem = match self.kind {
            SvmKind::Svc => {
                let y: Vec<f64> = (0..n).map(|i| if train.class(i) == 1 { 1.0 } else { -1.0 }).collect();
                // the classes of the rows of positive weight (a row of weight 0 is absent)
                let mut present = (0..n).filter(|&i| weights.as_ref().is_none_or(|w| w[i] > 0.0)).map(|i| y[i]);
                let first = present.next();
                if present.all(|v| Some(v) == first) {
                    return Err(one_class(train));
                }
                Problem { p: vec![-1.0; n], doubled: false, y, n, weights }
            }
            SvmKind::Svr => {
                let z = train.gather_y();
                let eps = self.settings.epsilon;
                let mut y = vec![1.0; n];
                y.extend(std::iter::repeat_n(-1.0, n));
                let p: Vec<f64> = z.iter().map(|z| eps - z).chain(z.iter().map(|z| eps + z)).collect();
                // α⁺ and α⁻ of a row share its weight
                let weights = weights.map(|w| [w.as_slice(), w.as_slice()].concat());
                Problem { y, p, doubled: true, n, weights }
            }
        };
        Ok((points, problem))
    }

    fn solve(&self, problem: &Problem, c: f64, cache: &mut KernelCache, start: Option<(&mut Solution, f64)>) -> Result<Solution> {
        let upper = problem.upper(c);
        // the largest box bound: the scale of the solver's tolerances
        let c = upper.iter().fold(c.min(0.0), |m, &u| m.max(u));
        let dual = Dual {
            y: &problem.y,
            p: &problem.p,
            doubled: problem.doubled,
            c,
            upper: &upper,
            tol: self.settings.tol,
            shrinking: self.settings.shrinking,
        };
        let sol = match start {
            None => dual.solve(cache, vec![0.0; problem.y.len()], problem.p.clone())?,
            Some((prev, c_old)) => {
                let (alpha, grad) = dual.warm_start(cache, prev, &problem.upper(c_old));
                dual.solve_from(cache, alpha, grad, std::mem::take(&mut prev.newton))?
            }
        };
        if !sol.rho.is_finite() || !sol.objective.is_finite() {
            return Err(Error::Numerical(format!("family `{}`: non-finite SMO solution at C = {c}", self.kind.name())));
        }
        // A guard against solver bugs, not a user-facing condition: every pair update keeps yᵀα
        // to a few ulps of C, and a Newton step is kept only when it does too, so after at most
        // max(10⁷, 100 l) updates the drift stays far below 1e-10 · C · l.
        let violation = problem.y.iter().zip(&sol.alpha).map(|(y, a)| y * a).sum::<f64>().abs();
        let allowed = 1e-10 * c * problem.y.len() as f64;
        if violation > allowed {
            return Err(Error::Internal(format!(
                "the SMO solution of family `{}` at C = {c} violates the equality constraint yᵀα = 0 by {violation:.2e} (allowed {allowed:.2e}, tol = {:e})",
                self.kind.name(),
                self.settings.tol
            )));
        }
        Ok(sol)
    }

    /// The warm-started path of the module doc on one dual problem: every grid point solved in
    /// increasing C (C from the training set's size `n_t`, `Σ w` with weights), each from the
    /// previous solution. Returns, per grid index, `beta(problem, α)` and the bias `−ρ`.
    fn solve_path(
        &self,
        problem: &Problem,
        n_t: f64,
        cache: &mut KernelCache,
        beta: impl Fn(&Problem, &[f64]) -> Vec<f64>,
    ) -> Result<(Vec<Vec<f64>>, Vec<f64>)> {
        let mut betas = vec![Vec::new(); self.grid.len()];
        let mut biases = vec![0.0; self.grid.len()];
        let mut prev: Option<(Solution, f64)> = None;
        for m in self.path_order() {
            let c = self.c_of(self.grid.value(m), n_t);
            let sol = self.solve(problem, c, cache, prev.as_mut().map(|(s, c)| (s, *c)))?;
            betas[m] = beta(problem, &sol.alpha);
            biases[m] = -sol.rho;
            prev = Some((sol, c));
        }
        Ok((betas, biases))
    }

    fn model(&self, points: &Points, problem: &Problem, sol: &Solution) -> SvmModel {
        let beta = problem.beta(&sol.alpha);
        SvmModel::from_dense(self.kind, points, &beta, -sol.rho)
    }
}

/// [`Error::ConstantTarget`] for a training set holding one class only.
fn one_class(train: &View<'_>) -> Error {
    let data = train.data();
    let value = match data.target() {
        crate::data::Target::Classes { names, .. } => names.get(train.class(0) as usize).cloned().unwrap_or_default(),
        crate::data::Target::Real(_) => String::new(),
    };
    Error::ConstantTarget { name: format!("{} (training set of {} rows)", data.target_name(), train.len()), value }
}

/// The size `n_t` of a training set in `C = 1 / (2 λ n_t)`: its row count, `Σ w` with weights.
fn training_size(train: &View<'_>) -> f64 {
    train.non_unit_weights().map_or(train.len() as f64, |w| w.iter().sum())
}

/// The checks a deserialized kernel model of either kind starts with: as many features as the
/// schema, and a kernel width γ that is finite and > 0.
pub(super) fn check_kernel_model(what: &str, n_features: usize, schema_features: usize, gamma: f64) -> Result<()> {
    let bad = |m: String| Err(Error::CorruptModel(format!("inconsistent {what}: {m}")));
    if n_features != schema_features {
        return bad(format!("{n_features} features, schema has {schema_features}"));
    }
    if !(gamma > 0.0 && gamma.is_finite()) {
        return bad(format!("γ = {gamma}"));
    }
    Ok(())
}

/// The dual problem's data for one training set.
struct Problem {
    y: Vec<f64>,
    p: Vec<f64>,
    /// ε-SVR's 2n variables on n rows (see [`Dual::doubled`]); false for C-SVC.
    doubled: bool,
    /// Training rows (kernel rows).
    n: usize,
    /// Sample weight of every variable (box bound `C w_t`); `None` without weights.
    weights: Option<Vec<f64>>,
}

impl Problem {
    /// The box bound of every variable at C: `C w_t`, or C for each without weights.
    fn upper(&self, c: f64) -> Vec<f64> {
        match &self.weights {
            None => vec![c; self.y.len()],
            Some(w) => w.iter().map(|w| c * w).collect(),
        }
    }
    /// Expansion coefficients `β_i` of `f = Σ β_i K(x_i, ·) + b` per training row.
    fn beta(&self, alpha: &[f64]) -> Vec<f64> {
        let mut beta = vec![0.0; self.n];
        for t in 0..alpha.len() {
            beta[if t >= self.n { t - self.n } else { t }] += self.y[t] * alpha[t];
        }
        beta
    }
}

impl Family for SvmFamily {
    fn name(&self) -> &'static str {
        self.kind.name()
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        match self.kind {
            SvmKind::Svc => Task::Classification,
            SvmKind::Svr => Task::Regression,
        }
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        self.fit_value(train, self.grid.value(grid_index))
    }
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        if !(value > 0.0 && value.is_finite()) {
            return Err(Error::invalid("grid", "positive values (log scale)", value));
        }
        if self.check_train(train)? {
            let c = self.c_of(value, training_size(train));
            return Ok(Model::OneVsOneSvc(ovo::fit(self, train, c)?));
        }
        let c = self.c_of(value, training_size(train));
        let (points, problem) = self.problem(train)?;
        let mut cache = KernelCache::new(points.clone(), train.par());
        let sol = self.solve(&problem, c, &mut cache, None)?;
        Ok(Model::Svm(self.model(&points, &problem, &sol)))
    }
    /// The kernel storage (the full matrix up to [`cache::FULL_MATRIX_MAX_ROWS`] rows, else the
    /// LRU budget), the solver's vectors, the path's expansions and the prediction's buffers
    /// (coefficients and decisions, three copies counted); for one-vs-one, the shared matrix, a kernel
    /// storage per pair in flight (one per thread) and every pair's expansions, the support
    /// vectors taken as all training rows.
    fn path_memory(&self, shape: &super::FitShape) -> u128 {
        use crate::limits::product;
        let (n, v, d, m) = (shape.n_train as u128, shape.n_validation as u128, shape.n_features as u128, self.grid.len() as u128);
        let kernel = |rows: u128| {
            if rows <= cache::FULL_MATRIX_MAX_ROWS as u128 { product([rows, rows]) } else { (cache::LRU_BUDGET_BYTES / 8) as u128 + rows }
        };
        let predict = |machines: u128| product([3, machines, n + v]) + product([n, d]);
        let words = if self.kind == SvmKind::Svc && shape.n_classes > 2 {
            let k = shape.n_classes as u128;
            let pairs = k * (k - 1) / 2;
            let l = shape.largest_pair.min(shape.n_train) as u128;
            let shared = if n <= cache::FULL_MATRIX_MAX_ROWS as u128 { product([n, n]) } else { 0 };
            let per_pair = kernel(l) + product([l, d]) + 16 * l;
            shared
                + product([shape.threads.max(1) as u128, per_pair])
                + product([k, n])
                + product([m, k, n])
                + product([pairs, m])
                + predict(product([m, pairs]))
        } else {
            kernel(n) + 32 * n + product([m, n + 1]) + predict(m)
        };
        product([words, 8]).saturating_add(product([n, d, 8]))
    }
    fn fitted_value(&self, value: f64) -> f64 {
        value
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        if self.check_train(train)? {
            return Ok(Box::new(ovo::fit_path(self, train)?));
        }
        let (points, problem) = self.problem(train)?;
        let mut cache = KernelCache::new(points.clone(), train.par());
        let (betas, biases) = self.solve_path(&problem, training_size(train), &mut cache, Problem::beta)?;
        Ok(Box::new(SvmPath { kind: self.kind, points, betas, biases }))
    }
}

/// Every grid point's expansion over the training rows.
struct SvmPath {
    kind: SvmKind,
    points: Points,
    /// `[grid_index][training row]`.
    betas: Vec<Vec<f64>>,
    biases: Vec<f64>,
}

impl FittedPath for SvmPath {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        check_features(self.points.d, validation)?;
        // columns that are a support vector of some grid point
        let used: Vec<usize> = (0..self.points.len()).filter(|&i| self.betas.iter().any(|b| b[i] != 0.0)).collect();
        let mut support = Vec::with_capacity(used.len() * self.points.d);
        used.iter().for_each(|&i| support.extend_from_slice(self.points.row(i)));
        let coefs: Vec<Vec<f64>> = self.betas.iter().map(|b| used.iter().map(|&i| b[i]).collect()).collect();
        let coef_refs: Vec<&[f64]> = coefs.iter().map(Vec::as_slice).collect();
        let decisions = decision_values(validation, &support, self.points.d, &self.points.kernel, &coef_refs, &self.biases);
        decisions.into_iter().map(|d| predictions(self.kind, d)).collect()
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        let beta = self.betas.get(grid_index).ok_or_else(|| Error::invalid("grid index", "on the grid", grid_index))?;
        Ok(Model::Svm(SvmModel::from_dense(self.kind, &self.points, beta, self.biases[grid_index])))
    }
}

#[cfg(test)]
mod tests;
