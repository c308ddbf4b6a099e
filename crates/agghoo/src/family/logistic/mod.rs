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
//! Features are not standardised inside the family (use `--standardize`).
//!
//! # Solver
//! L-BFGS (`lbfgs.rs`) on the centred features (the intercept is unpenalised, so centring is an
//! exact reparameterisation that improves conditioning), stopping when `‖∇f‖_∞ ≤ tol`
//! (`--param tol`, default 10⁻⁶; scikit-learn's `lbfgs` uses the same gradient test on the same
//! mean loss, default 10⁻⁴). Chosen over Newton / IRLS: one code path for binary and multinomial,
//! O(n K d) per iteration and O(K d) memory whatever d, while Newton needs the `(K(d+1))²` Hessian
//! and is singular along the multinomial intercept shift `b_k + c`; warm starts along the path cut
//! L-BFGS's iteration count (the curvature pairs, value and gradient are carried from one λ to the
//! next, shifted exactly by the penalty change). One evaluation is two one-thread matrix products
//! (logits, gradient) around one sweep over the rows. Newton with the exact Hessian, reused from one λ to the next, was
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

use faer::{Accum, MatMut, MatRef};
use serde::{Deserialize, Serialize};

pub use self::config::LogisticConfig;
pub use self::model::LogisticModel;
use super::numerics::linalg::product;
use super::numerics::vector::dot;
use super::params::{check_max_iter, check_tol};
use super::{Family, FittedPath, Grid, Model, Predictor, Scale};
use crate::data::{Dataset, Target, Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

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
    fn solve(&self, problem: &Problem, theta: &mut [f64], memory: &mut lbfgs::Memory, lambda: f64) -> Result<()> {
        if self.penalty == Penalty::L1 {
            let columns = problem.columns();
            if problem.n_free() == 1 {
                let y: Vec<f64> = problem.y.iter().map(|&c| c as f64).collect();
                return l1::solve(&columns, &y, theta, lambda, self.tol, self.max_iter);
            }
            return l1::solve_multinomial(&columns, &problem.y, theta, lambda, self.tol, self.max_iter);
        }
        let mut work = Vec::new();
        let mut objective = |t: &[f64], g: &mut [f64]| problem.value_gradient(t, g, lambda, &mut work);
        lbfgs::minimize(&mut objective, theta, memory, self.tol, self.max_iter, &|| format!("logistic regression at lambda = {lambda}"))?;
        Ok(())
    }

    fn fit_lambda(&self, train: &View<'_>, lambda: f64) -> Result<LogisticModel> {
        let problem = Problem::new(train, self.n_classes)?;
        let mut theta = vec![0.0; problem.n_params()];
        self.solve(&problem, &mut theta, &mut lbfgs::Memory::new(), lambda)?;
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
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let problem = Problem::new(train, self.n_classes)?;
        let mut theta = vec![0.0; problem.n_params()];
        let mut models = vec![None; self.grid.len()];
        let mut memory = lbfgs::Memory::new();
        let mut previous: Option<f64> = None;
        let d = problem.d;
        for m in (0..self.grid.len()).rev() {
            let lambda = self.grid.value(m);
            if let Some(p) = previous {
                // Same loss, penalty moved from p to λ on the weights (not the intercepts).
                lbfgs::shift_memory(&mut memory, lambda - p, &theta, |i| i % (d + 1) != d);
            }
            self.solve(&problem, &mut theta, &mut memory, lambda)?;
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

/// One training set, ready for the solver: centred features, labels re-indexed over the classes
/// present. Parameters `θ` are `n_free` blocks `[w_k (d values), b_k]`.
struct Problem {
    n: usize,
    d: usize,
    x: Vec<f64>,
    x_mean: Vec<f64>,
    /// Index into `classes` of each row's class.
    y: Vec<usize>,
    /// Dataset class indices present in training, ascending.
    classes: Vec<u32>,
    n_classes: usize,
}

impl Problem {
    fn new(train: &View<'_>, n_classes: usize) -> Result<Self> {
        check_classification(train.task())?;
        let (n, d) = (train.len(), train.n_features());
        if n == 0 {
            return Err(Error::TooFewRows { what: "family `logistic`".into(), needed: 2, found: 0 });
        }
        let mut seen = vec![false; n_classes];
        (0..n).for_each(|i| seen[train.class(i) as usize] = true);
        let classes: Vec<u32> = (0..n_classes as u32).filter(|&c| seen[c as usize]).collect();
        if classes.len() < 2 {
            let name = match train.data().target() {
                Target::Classes { names, .. } => names[classes[0] as usize].clone(),
                Target::Real(_) => classes[0].to_string(),
            };
            return Err(Error::ConstantTarget { name: format!("{} (in this training set)", train.data().target_name()), value: name });
        }
        let mut position = vec![0usize; n_classes];
        classes.iter().enumerate().for_each(|(p, &c)| position[c as usize] = p);
        let y = (0..n).map(|i| position[train.class(i) as usize]).collect();
        let mut x = train.gather_x();
        let mut x_mean = vec![0.0; d];
        for row in x.chunks_exact(d.max(1)) {
            x_mean.iter_mut().zip(row).for_each(|(m, v)| *m += v);
        }
        x_mean.iter_mut().for_each(|m| *m /= n as f64);
        for row in x.chunks_exact_mut(d.max(1)) {
            row.iter_mut().zip(&x_mean).for_each(|(v, m)| *v -= m);
        }
        Ok(Self { n, d, x, x_mean, y, classes, n_classes })
    }

    /// Weight vectors solved for: 1 for two classes (class 0's logit is fixed at 0), else one per class.
    fn n_free(&self) -> usize {
        if self.classes.len() == 2 { 1 } else { self.classes.len() }
    }

    fn n_params(&self) -> usize {
        self.n_free() * (self.d + 1)
    }

    /// The objective at `theta`, its gradient written to `grad`; `work` is scratch space (resized
    /// to `n_free · n`, so a caller that keeps it allocates once).
    ///
    /// Two matrix products carry the O(n·d·K) work: the logits `Z = Wᵀ X_cᵀ` (`n_free × n`), and,
    /// once one sweep over the rows has turned them into residuals `R = P − Y` (and summed the
    /// loss), the weight gradient `X_cᵀ Rᵀ / n`.
    fn value_gradient(&self, theta: &[f64], grad: &mut [f64], lambda: f64, work: &mut Vec<f64>) -> f64 {
        let (n, d, k_free) = (self.n, self.d, self.n_free());
        work.resize(k_free * n, 0.0);
        let xt = MatRef::from_column_major_slice(&self.x[..n * d], d, n);
        let weights = MatRef::from_column_major_slice_with_stride(theta, d, k_free, d + 1);
        product(MatMut::from_column_major_slice_mut(work, k_free, n), Accum::Replace, weights.transpose(), xt, 1.0);
        let mut log_sum = LogSum::default();
        let mut linear = 0.0;
        if k_free == 1 {
            // Binary: loss log(1 + e^z) − y z = max(z, 0) − y z + log(1 + e^{−|z|}), one exponential per row.
            let b = theta[d];
            let mut intercept = 0.0;
            for (r, &yi) in work.iter_mut().zip(&self.y) {
                let z = *r + b;
                let e = (-z.abs()).exp();
                let yf = yi as f64;
                linear += z.max(0.0) - yf * z;
                log_sum.add(1.0 + e);
                let sigma = if z >= 0.0 { 1.0 / (1.0 + e) } else { e / (1.0 + e) };
                *r = sigma - yf;
                intercept += *r;
            }
            grad[d] = intercept;
        } else {
            // Multinomial: one exponential per logit; the log-sum-exp and the probabilities share them.
            grad.iter_mut().skip(d).step_by(d + 1).for_each(|g| *g = 0.0);
            for (row, &yi) in work.chunks_exact_mut(k_free).zip(&self.y) {
                row.iter_mut().zip(theta.iter().skip(d).step_by(d + 1)).for_each(|(z, b)| *z += b);
                let top = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
                linear += top - row[yi];
                let mut sum = 0.0;
                row.iter_mut().for_each(|z| {
                    *z = (*z - top).exp();
                    sum += *z;
                });
                log_sum.add(sum);
                let inv = 1.0 / sum;
                row.iter_mut().for_each(|p| *p *= inv);
                row[yi] -= 1.0;
                grad.iter_mut().skip(d).step_by(d + 1).zip(row.iter()).for_each(|(g, r)| *g += r);
            }
        }
        let inv_n = 1.0 / n as f64;
        let residuals = MatRef::from_column_major_slice(work, k_free, n);
        product(MatMut::from_column_major_slice_with_stride_mut(grad, d, k_free, d + 1), Accum::Replace, xt, residuals.transpose(), inv_n);
        let mut penalty = 0.0;
        for (g, t) in grad.chunks_exact_mut(d + 1).zip(theta.chunks_exact(d + 1)) {
            penalty += dot(&t[..d], &t[..d]);
            g[..d].iter_mut().zip(&t[..d]).for_each(|(gj, wj)| *gj += lambda * wj);
            g[d] *= inv_n;
        }
        (linear + log_sum.finish()) * inv_n + 0.5 * lambda * penalty
    }

    /// The centred features column-major (for the L1 solvers).
    fn columns(&self) -> Vec<f64> {
        let (n, d) = (self.n, self.d);
        let mut columns = vec![0.0; n * d];
        for (i, row) in self.x.chunks_exact(d.max(1)).take(n).enumerate() {
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

/// `Σ ln s_i` for `s_i ≥ 1` with one logarithm per block of factors: the factors are multiplied
/// until the product passes 10²⁵⁰ (so the product neither overflows nor loses more than a few
/// rounding errors per factor, as the sum of logarithms would).
#[derive(Default)]
struct LogSum {
    product: Option<f64>,
    logs: f64,
}

impl LogSum {
    fn add(&mut self, s: f64) {
        let p = self.product.unwrap_or(1.0) * s;
        if p > 1e250 {
            self.logs += p.ln();
            self.product = None;
        } else {
            self.product = Some(p);
        }
    }
    fn finish(self) -> f64 {
        self.logs + self.product.map_or(0.0, f64::ln)
    }
}

fn log_sum_exp(z: &[f64]) -> f64 {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    m + z.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
}

#[cfg(test)]
mod tests;
