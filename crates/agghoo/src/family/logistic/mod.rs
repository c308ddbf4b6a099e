//! Penalised logistic regression (L2 and L1, binary and multinomial) along a λ path with warm starts.
//!
//! # Objective
//! With classes `k ∈ K` present in the training rows and logits `z_ik = b_k + x_iᵀ w_k`:
//!
//! ```text
//! (1/n) Σ_i [ log Σ_k exp(z_ik) − z_{i,y_i} ] + (λ/2) Σ_k ‖w_k‖²
//! ```
//!
//! intercepts `b_k` unpenalised. Two classes: one weight vector (`z_i0 = 0`, the usual logistic
//! loss, the logit `b + xᵀw` is the decision score); three or more: the symmetric multinomial
//! (softmax) parameterisation, as scikit-learn's `LogisticRegression` does. scikit-learn minimises
//! `C Σ_i loss_i + ½ ‖W‖²`; dividing by `nC` gives ours with **`C = 1/(nλ)`** (n = training rows).
//! Features are not standardised inside the family (use `--standardize`); features whose
//! scales span decades are still solved to the tolerance, by preconditioning (see Solver).
//!
//! # Solver
//! L-BFGS (`lbfgs.rs`) on the centred features (the intercept is unpenalised, so centring is an
//! exact reparameterisation that improves conditioning), stopping when `‖∇f‖_∞ ≤ tol`
//! (`--param tol`, default 10⁻⁶; scikit-learn's `lbfgs` uses the same gradient test on the same
//! mean loss, default 10⁻⁴). Chosen over Newton / IRLS: one code path for binary and multinomial,
//! O(n K d) per iteration and O(K d) memory whatever d, while Newton needs the `(K(d+1))²` Hessian
//! and is singular along the multinomial intercept shift `b_k + c`; warm starts along the path cut
//! L-BFGS's iteration count (the curvature pairs, value and gradient are carried from one λ to the
//! next, shifted exactly by the penalty change), and from the third λ on the secant predictor (the
//! path's last step, scaled in log λ) is tried as a first step. One evaluation is two one-thread
//! matrix products (logits, gradient; the intercepts ride along as a column of ones) around one
//! sweep over the rows, vectorised across rows (`sweep.rs`). When a centred column's
//! root-mean-square lies outside `[0.1, 10]` (unstandardised data: incomes next to a ±1 score),
//! L-BFGS's initial Hessian is the diagonal `σ m_j + λ` (σ the loss's curvature at uniform
//! probabilities, `m_j` the column's mean square; `σ` for an intercept) instead of `γ I`: the
//! same objective, iterates and stopping rule, but a search direction that does not stall on
//! the squared scale ratio (a 2 700-row survey table with columns of scale 10⁵ went from 10 000
//! iterations without converging to tens per λ). Well-scaled data are solved as before, bit for bit.
//! Newton with the exact Hessian, reused from one λ to the next, was
//! measured on the linear benches (n = 5 000, d = 50, 2 and 3 classes) and was not faster: one
//! Hessian costs about as much as the L-BFGS iterations it saves.
//!
//! # Path
//! Grid `lambda`, log scale, larger is simpler, stored ascending; [`Family::fit_path`] solves it
//! from the largest λ down, each solve warm-started at the previous solution, and keeps every
//! solution. [`Family::fit`] solves one λ from zero (the slow path). Default grid: 50 log-spaced
//! values from `10 λ₀` down to `10⁻⁴ λ₀`, `λ₀ = max_{j,k} |x_jᵀ(1[y = k] − p̄_k)| / n` on the centred
//! data given to [`build`] (the gradient at w = 0: above ~λ₀ the weights are small).
//!
//! # Classes
//! A class absent from a training set gets probability 0 and is never predicted; a training set
//! with one class only is [`Error::ConstantTarget`] naming the class. Labels are the argmax of the
//! probabilities, ties to the lowest class index (for two classes: class 1 iff the logit is > 0,
//! the rule `select`'s score averaging uses).
//!
//! # L1 penalty
//! `--param penalty=l1` replaces `(λ/2)‖w‖²` by `λ‖w‖₁` (same `C = 1/(nλ)` translation as
//! scikit-learn's `l1_ratio=1`), solved by proximal Newton with coordinate descent on the
//! quadratic model (`l1.rs`), warm-started along the path. With three or more classes the
//! penalty is `λ Σ_k ‖w_k‖₁` on the symmetric (softmax) parameterisation, every coefficient
//! penalised separately (glmnet's *ungrouped* multinomial lasso, and scikit-learn's
//! `LogisticRegression(l1_ratio=1, solver="saga")` objective for several classes), solved by
//! block coordinate descent over the classes, each block a binary proximal-Newton solve with the
//! other classes' logits as an offset. Its default grid: 50 log-spaced values from λ₀ (the
//! smallest λ with w = 0) down to `10⁻³ λ₀`.

mod config;
mod l1;
mod lbfgs;
mod model;
mod sweep;

use faer::{Accum, MatMut, MatRef};
use serde::{Deserialize, Serialize};

pub(crate) use self::config::LOGISTIC;
pub use self::config::LogisticConfig;
pub use self::model::LogisticModel;
use super::numerics::linalg::product;
use super::numerics::vector::dot;
use super::params::{check_max_iter, check_tol};
use super::{Family, FittedPath, Grid, Model, Predictor, Scale};
use crate::data::{Dataset, Target, Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

/// L-BFGS is preconditioned (see [`Problem::diagonal`]) when a feature's root-mean-square
/// deviation lies outside `[1/PRECONDITION, PRECONDITION]`.
const PRECONDITION: f64 = 10.0;

/// The penalty on the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Penalty {
    /// `(λ/2) Σ_k ‖w_k‖²` (binary and multinomial).
    L2,
    /// `λ Σ_k ‖w_k‖₁` (binary and multinomial, ungrouped).
    L1,
}

/// The logistic-regression family over a λ grid.
#[derive(Clone, Debug)]
pub struct LogisticFamily {
    grid: Grid,
    n_classes: usize,
    tol: f64,
    max_iter: usize,
    penalty: Penalty,
}

impl LogisticFamily {
    /// A family over the given λ values (sorted ascending) for `n_classes` classes.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid, a non-positive λ or fewer than 2 classes.
    pub fn new(lambdas: Vec<f64>, n_classes: usize) -> Result<Self> {
        if n_classes < 2 {
            return Err(Error::invalid("classes", "at least 2", n_classes));
        }
        Ok(Self { grid: Grid::new("lambda", lambdas, Scale::Log, true)?, n_classes, tol: 1e-6, max_iter: 10_000, penalty: Penalty::L2 })
    }
    /// Sets the penalty.
    ///
    /// # Errors
    /// None today (kept fallible for penalties that need a check against the classes).
    pub fn with_penalty(mut self, penalty: Penalty) -> Result<Self> {
        self.penalty = penalty;
        Ok(self)
    }
    /// Sets the gradient tolerance `‖∇f‖_∞ ≤ tol`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless positive and finite.
    pub fn with_tol(mut self, tol: f64) -> Result<Self> {
        self.tol = check_tol(tol)?;
        Ok(self)
    }
    /// Sets the maximum number of L-BFGS iterations per λ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0.
    pub fn with_max_iter(mut self, max_iter: usize) -> Result<Self> {
        self.max_iter = check_max_iter(max_iter)?;
        Ok(self)
    }

    /// Solves at `lambda` from `theta`; `memory` carries the L-BFGS pairs along a path (the
    /// previous λ's, shifted to this λ by `lbfgs::shift_memory`).
    fn solve(&self, problem: &Problem, theta: &mut [f64], memory: &mut lbfgs::Memory, guess: Option<&[f64]>, lambda: f64) -> Result<()> {
        if self.penalty == Penalty::L1 {
            if problem.weights.is_some() {
                return Err(Error::Unsupported {
                    what: "sample_weight with family `logistic` and penalty=l1".into(),
                    reason: "the weighted fit is implemented for the l2 penalty".into(),
                });
            }
            let columns = problem.columns();
            if problem.n_free() == 1 {
                let y: Vec<f64> = problem.y.iter().map(|&c| c as f64).collect();
                return l1::solve(&columns, &y, theta, lambda, self.tol, self.max_iter);
            }
            return l1::solve_multinomial(&columns, &problem.y, theta, lambda, self.tol, self.max_iter);
        }
        let mut work = Work::default();
        let mut objective = |t: &[f64], g: &mut [f64]| problem.value_gradient(t, g, lambda, &mut work);
        let settings = lbfgs::Settings { tol: self.tol, max_iter: self.max_iter, diagonal: &problem.diagonal(lambda) };
        lbfgs::minimize(&mut objective, theta, memory, guess, &settings, &|| format!("logistic regression at lambda = {lambda}"))?;
        Ok(())
    }

    fn fit_lambda(&self, train: &View<'_>, lambda: f64) -> Result<LogisticModel> {
        let problem = Problem::new(train, self.n_classes)?;
        let mut theta = vec![0.0; problem.n_params()];
        self.solve(&problem, &mut theta, &mut lbfgs::Memory::new(), None, lambda)?;
        Ok(problem.model(&theta, lambda))
    }
}

fn check_classification(task: Task) -> Result<()> {
    match task {
        Task::Classification => Ok(()),
        Task::Regression => Err(Error::TaskMismatch(
            "family `logistic` is a classification method and needs class labels (use `lasso`, `enet` or `ridge` for a real target)".into(),
        )),
    }
}

/// 50 log-spaced values from `10 λ₀` down to `10⁻⁴ λ₀` (L2) or from λ₀ down to `10⁻³ λ₀` (L1).
fn default_grid(data: &Dataset, penalty: Penalty) -> Vec<f64> {
    let all = data.all();
    let (n, d, k) = (data.n_rows(), data.n_features(), data.target().n_classes());
    let mut mean = vec![0.0; d];
    for i in 0..n {
        mean.iter_mut().zip(all.x(i)).for_each(|(m, v)| *m += v / n as f64);
    }
    let mut freq = vec![0.0; k];
    (0..n).for_each(|i| freq[all.class(i) as usize] += 1.0 / n as f64);
    let mut cross = vec![0.0; k * d];
    for i in 0..n {
        let c = all.class(i) as usize;
        for (class, row) in cross.chunks_exact_mut(d.max(1)).enumerate() {
            let r = f64::from(u8::from(class == c)) - freq[class];
            row.iter_mut().zip(all.x(i)).zip(&mean).for_each(|((s, x), m)| *s += r * (x - m) / n as f64);
        }
    }
    let lambda0 = cross.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    let lambda0 = if lambda0 > 0.0 && lambda0.is_finite() { lambda0 } else { 1.0 };
    let (top, decades) = match penalty {
        Penalty::L2 => (10.0 * lambda0, 5.0),
        Penalty::L1 => (lambda0, 3.0),
    };
    (0..50).map(|i| top * 10f64.powf(-decades * f64::from(i) / 49.0)).collect()
}

impl Family for LogisticFamily {
    fn name(&self) -> &'static str {
        "logistic"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        Task::Classification
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        Ok(Model::Logistic(self.fit_lambda(train, self.grid.value(grid_index))?))
    }
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        if !(value > 0.0 && value.is_finite()) {
            return Err(Error::invalid("lambda", "positive and finite", value));
        }
        Ok(Model::Logistic(self.fit_lambda(train, value)?))
    }
    fn fitted_value(&self, value: f64) -> f64 {
        value
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let problem = Problem::new(train, self.n_classes)?;
        let mut theta = vec![0.0; problem.n_params()];
        let mut models = vec![None; self.grid.len()];
        let mut memory = lbfgs::Memory::new();
        let mut previous: Option<f64> = None;
        // The solution before the previous one and its λ: the secant predictor's other end.
        let mut older: Option<(f64, Vec<f64>)> = None;
        let mut guess = Vec::new();
        let d = problem.d;
        for m in (0..self.grid.len()).rev() {
            let lambda = self.grid.value(m);
            if let Some(p) = previous {
                // Same loss, penalty moved from p to λ on the weights (not the intercepts).
                lbfgs::shift_memory(&mut memory, lambda - p, &theta, |i| i % (d + 1) != d);
            }
            // Secant predictor in log λ: the last step of the path, scaled to this step.
            let predictor = match (previous, &older) {
                (Some(p), Some((q, before))) if self.penalty == Penalty::L2 => {
                    let ratio = (lambda / p).ln() / (p / q).ln();
                    guess.clear();
                    guess.extend(theta.iter().zip(before).map(|(t, b)| ratio * (t - b)));
                    Some(guess.as_slice())
                }
                _ => None,
            };
            let before = theta.clone();
            self.solve(&problem, &mut theta, &mut memory, predictor, lambda)?;
            older = previous.map(|p| (p, before));
            previous = Some(lambda);
            models[m] = Some(problem.model(&theta, lambda));
        }
        Ok(Box::new(LogisticPath { models: models.into_iter().flatten().collect() }))
    }
}

struct LogisticPath {
    models: Vec<LogisticModel>,
}

impl FittedPath for LogisticPath {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        self.models.iter().map(|m| m.predict(validation)).collect()
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        self.models.get(grid_index).cloned().map(Model::Logistic).ok_or_else(|| Error::invalid("grid_index", "a grid index", grid_index))
    }
}

/// Scratch space of [`Problem::value_gradient`], kept across evaluations.
#[derive(Default)]
struct Work {
    /// The logits, then the residuals (`n_free × n`, row by row).
    logits: Vec<f64>,
    /// The sweep's block buffer.
    buffer: Vec<f64>,
}

/// One training set, ready for the solver: centred features, labels re-indexed over the classes
/// present. Parameters `θ` are `n_free` blocks `[w_k (d values), b_k]`.
struct Problem {
    n: usize,
    d: usize,
    /// The centred features row-major, each row followed by a 1 (`n × (d + 1)`): the rows'
    /// products with a parameter block `[w_k, b_k]` are the logits, intercept included.
    x: Vec<f64>,
    x_mean: Vec<f64>,
    /// The centred columns' mean squares when one of their roots lies outside
    /// `[1/PRECONDITION, PRECONDITION]` (then L-BFGS is preconditioned, see [`Problem::diagonal`]),
    /// else empty.
    mean_squares: Vec<f64>,
    /// Index into `classes` of each row's class.
    y: Vec<usize>,
    /// Two classes: each row's label as 0.0 or 1.0 (empty otherwise).
    y_float: Vec<f64>,
    /// Dataset class indices present in training, ascending.
    classes: Vec<u32>,
    n_classes: usize,
    /// The row sweep compiled for the widest instruction set available (`false`: the baseline
    /// copy; the tests compare the two).
    vector: bool,
    /// Per-row sample weights (`None`: unweighted, the mean loss over n rows).
    weights: Option<Vec<f64>>,
    /// `Σ wᵢ` with weights, n without: the loss is `Σ wᵢ lossᵢ / Σ wᵢ`.
    total_weight: f64,
}

impl Problem {
    fn new(train: &View<'_>, n_classes: usize) -> Result<Self> {
        check_classification(train.task())?;
        let (n, d) = (train.len(), train.n_features());
        if n == 0 {
            return Err(Error::TooFewRows { what: "family `logistic`".into(), needed: 2, found: 0 });
        }
        let weights = train.non_unit_weights();
        let mut seen = vec![false; n_classes];
        // A row of weight 0 counts as absent: its class alone does not make the class present.
        (0..n).filter(|&i| weights.as_ref().is_none_or(|w| w[i] > 0.0)).for_each(|i| seen[train.class(i) as usize] = true);
        let classes: Vec<u32> = (0..n_classes as u32).filter(|&c| seen[c as usize]).collect();
        if classes.is_empty() {
            return Err(Error::invalid("sample_weight", "a positive weight in the training set", "every weight is 0"));
        }
        if classes.len() < 2 {
            let name = match train.data().target() {
                Target::Classes { names, .. } => names[classes[0] as usize].clone(),
                Target::Real(_) => classes[0].to_string(),
            };
            return Err(Error::ConstantTarget { name: format!("{} (in this training set)", train.data().target_name()), value: name });
        }
        let mut position = vec![0usize; n_classes];
        classes.iter().enumerate().for_each(|(p, &c)| position[c as usize] = p);
        let y: Vec<usize> = (0..n).map(|i| position[train.class(i) as usize]).collect();
        let y_float = if classes.len() == 2 { y.iter().map(|&c| c as f64).collect() } else { Vec::new() };
        let mut x_mean = vec![0.0; d];
        let total_weight = match &weights {
            None => {
                for i in 0..n {
                    x_mean.iter_mut().zip(train.x(i)).for_each(|(m, v)| *m += v);
                }
                n as f64
            }
            Some(w) => {
                for (i, wi) in w.iter().enumerate() {
                    x_mean.iter_mut().zip(train.x(i)).for_each(|(m, v)| *m += wi * v);
                }
                w.iter().sum()
            }
        };
        x_mean.iter_mut().for_each(|m| *m /= total_weight);
        // Straight from the view's rows: one copy of the data, not two.
        let mut x = Vec::with_capacity(n * (d + 1));
        for i in 0..n {
            x.extend(train.x(i).iter().zip(&x_mean).map(|(v, m)| v - m));
            x.push(1.0);
        }
        let mut mean_squares = vec![0.0; d];
        for (i, row) in x.chunks_exact(d + 1).enumerate() {
            let wi = weights.as_ref().map_or(1.0, |w| w[i]);
            mean_squares.iter_mut().zip(row).for_each(|(s, v)| *s += wi * v * v);
        }
        mean_squares.iter_mut().for_each(|s| *s /= total_weight);
        let range = 1.0 / (PRECONDITION * PRECONDITION)..=PRECONDITION * PRECONDITION;
        if mean_squares.iter().all(|s| *s == 0.0 || range.contains(s)) {
            mean_squares.clear();
        }
        Ok(Self { n, d, x, x_mean, mean_squares, y, y_float, classes, n_classes, vector: true, weights, total_weight })
    }

    /// The Hessian-diagonal estimate L-BFGS is preconditioned with at `lambda` (empty when the
    /// columns are well scaled): `σ m_j + λ` for weight j (`m_j` its centred column's mean
    /// square), `σ` for an intercept, with `σ = (1/K)(1 − 1/K)` the loss's curvature at uniform
    /// probabilities (K = 2 for two classes). Exact on the diagonal at θ = 0 for two classes.
    fn diagonal(&self, lambda: f64) -> Vec<f64> {
        if self.mean_squares.is_empty() {
            return Vec::new();
        }
        let k = self.classes.len() as f64;
        let sigma = (1.0 / k) * (1.0 - 1.0 / k);
        let block = self.mean_squares.iter().map(|m| sigma * m + lambda).chain([sigma]);
        block.cycle().take(self.n_params()).collect()
    }

    /// Weight vectors solved for: 1 for two classes (class 0's logit is fixed at 0), else one per class.
    fn n_free(&self) -> usize {
        if self.classes.len() == 2 { 1 } else { self.classes.len() }
    }

    fn n_params(&self) -> usize {
        self.n_free() * (self.d + 1)
    }

    /// The objective at `theta`, its gradient written to `grad`; `work` is scratch space (the
    /// logits `n_free · n` and the sweep's buffer, so a caller that keeps it allocates once).
    ///
    /// Two matrix products carry the O(n·d·K) work: the logits `Zᵀ = Θᵀ [X_c 1]ᵀ` (`n_free × n`,
    /// intercepts included), and, once one sweep over the rows has turned them into residuals
    /// `R = P − Y` (and summed the loss), the gradient `[X_c 1]ᵀ Rᵀ / n` of the weights and
    /// intercepts. (This orientation, with the features row-major, was the fastest of faer's
    /// products at 1, 3 and 20 classes.)
    fn value_gradient(&self, theta: &[f64], grad: &mut [f64], lambda: f64, work: &mut Work) -> f64 {
        let (n, d, k_free) = (self.n, self.d, self.n_free());
        work.logits.resize(k_free * n, 0.0);
        let columns = MatRef::from_column_major_slice(&self.x, d + 1, n);
        let parameters = MatRef::from_column_major_slice(theta, d + 1, k_free);
        product(MatMut::from_column_major_slice_mut(&mut work.logits, k_free, n), Accum::Replace, parameters.transpose(), columns, 1.0);
        let loss = match &self.weights {
            None => sweep::Sweep { z: &mut work.logits, y: &self.y, y_float: &self.y_float, buffer: &mut work.buffer }.run(self.vector),
            Some(w) => weighted_sweep(&mut work.logits, &self.y, w),
        };
        let inv_n = 1.0 / self.total_weight;
        let residuals = MatRef::from_column_major_slice(&work.logits, k_free, n);
        product(MatMut::from_column_major_slice_mut(grad, d + 1, k_free), Accum::Replace, columns, residuals.transpose(), inv_n);
        let mut penalty = 0.0;
        for (g, t) in grad.chunks_exact_mut(d + 1).zip(theta.chunks_exact(d + 1)) {
            penalty += dot(&t[..d], &t[..d]);
            g[..d].iter_mut().zip(&t[..d]).for_each(|(gj, wj)| *gj += lambda * wj);
        }
        loss * inv_n + 0.5 * lambda * penalty
    }

    /// The centred features column-major (for the L1 solvers).
    fn columns(&self) -> Vec<f64> {
        let (n, d) = (self.n, self.d);
        let mut columns = vec![0.0; n * d];
        for (i, row) in self.x.chunks_exact(d + 1).take(n).enumerate() {
            for j in 0..d {
                columns[j * n + i] = row[j];
            }
        }
        columns
    }

    /// The model in the original (uncentred) feature units.
    fn model(&self, theta: &[f64], lambda: f64) -> LogisticModel {
        let d = self.d;
        let mut coefficients = Vec::with_capacity(self.n_free() * d);
        let mut intercepts = Vec::with_capacity(self.n_free());
        for block in theta.chunks_exact(d + 1) {
            coefficients.extend_from_slice(&block[..d]);
            intercepts.push(block[d] - dot(&block[..d], &self.x_mean));
        }
        LogisticModel { n_features: d, n_classes: self.n_classes, classes: self.classes.clone(), coefficients, intercepts, lambda }
    }
}

/// The sweep of [`Problem::value_gradient`] with sample weights, row by row: the logits `z`
/// (`K` per row; `K = 1` for two classes, the logit of class 1) become the weighted residuals
/// `wᵢ (pᵢ − yᵢ)`, and the weighted loss `Σ wᵢ [log Σ_k exp(z_ik) − z_{i,y_i}]` is returned.
fn weighted_sweep(z: &mut [f64], y: &[usize], w: &[f64]) -> f64 {
    let k = z.len() / y.len().max(1);
    let mut loss = 0.0;
    for ((row, &yi), &wi) in z.chunks_exact_mut(k.max(1)).zip(y).zip(w) {
        if k == 1 {
            let (v, target) = (row[0], yi as f64);
            let e = (-v.abs()).exp();
            loss += wi * (v.max(0.0) - target * v + e.ln_1p());
            let sigma = if v >= 0.0 { 1.0 / (1.0 + e) } else { e / (1.0 + e) };
            row[0] = wi * (sigma - target);
        } else {
            let normaliser = log_sum_exp(row);
            loss += wi * (normaliser - row[yi]);
            row.iter_mut().for_each(|v| *v = wi * (*v - normaliser).exp());
            row[yi] -= wi;
        }
    }
    loss
}

fn log_sum_exp(z: &[f64]) -> f64 {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests;
