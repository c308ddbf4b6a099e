//! The coordinate-descent kernel of the Lasso / elastic-net family.
//!
//! Objective at one λ (scikit-learn's `ElasticNet`, ρ = `l1_ratio`), on centred data:
//!
//! ```text
//! P_λ(w) = (1/(2n)) ‖y_c − X_c w‖² + λ ρ ‖w‖₁ + λ (1 − ρ)/2 ‖w‖²
//! ```
//!
//! One coordinate step with `g_j = x_jᵀ(y_c − X_c w)/n` and `a_j = ‖x_j‖²/n`:
//! `w_j ← S(g_j + a_j w_j, λρ) / (a_j + λ(1 − ρ))`, `S(z, t) = sign(z) max(|z| − t, 0)`.
//!
//! Two ways to know `g_j` (the only difference between the modes):
//! - residual mode keeps `r = y_c − X_c w`; `g_j = x_jᵀ r / n` costs O(n), a change of `w_j`
//!   costs O(n) (`r -= δ x_j`);
//! - covariance (Gram) mode keeps `g = X_cᵀy_c/n − G w` with `G = X_cᵀX_c/n` computed once
//!   (O(n d²/2): upper half only, faer's sequential products over row blocks shifted on the
//!   fly, in the same single pass over the data as the column means, so no centred copy of the
//!   data is made: `gram_matrix`). Descent on a working set W reads `g_W` and
//!   the block `G[W, W]` packed contiguously (kept while W does not change), so a step costs
//!   O(|W|), not O(d) or O(n); the gradients outside W are brought up to date once per round of
//!   sweeps (O((d − |W|) · changed)), which is all the KKT check needs. It wins when n ≫ d
//!   (glmnet's "covariance updates", scikit-learn's `precompute='auto'` when n > d).
//!   Not done: computing Gram columns lazily, only for features that enter W (glmnet). Each
//!   column costs O(n d), so it saves flops only when few features ever enter: on the benchmark
//!   path (d = 500, ~300 features enter by 10⁻³ λ_max) it would cost about as much as the half
//!   Gram (n·(d·|W| − |W|²/2) vs n·d²/2) and read the data once per batch of entering features.
//!
//! Screening (glmnet, Tibshirani et al. 2012): at λ_k, the sequential strong rule keeps feature j
//! only if `|g_j(w(λ_{k−1}))| ≥ ρ (2λ_k − λ_{k−1})` or j was ever non-zero. Coordinate descent
//! runs on that working set (active-set cycling, `descend`: a full pass, then passes over its
//! non-zero coordinates until they settle, then a full pass again); then every discarded feature
//! is checked against the KKT condition `|g_j| ≤ λρ`; violators join the working set (counted
//! in `State::readmitted`) and descent resumes. So screening changes the cost, never the answer.
//!
//! Convergence, two criteria with the one tolerance `tol`:
//! - passes over the working set stop when `max_j a_j (Δw_j)² ≤ τ` (the largest move of a
//!   coordinate, measured by how much it moves the fitted values; glmnet's criterion), with
//!   `τ = tol · ‖y_c‖²/n` at first;
//! - the solve is accepted only when, in addition, every discarded feature passes the KKT check
//!   and the duality gap (scikit-learn's `enet_coordinate_descent` gap divided by n; for ρ = 0 the
//!   strong-convexity bound `‖∇P‖²/(2λ)`) is at most `tol · ‖y_c‖²/n`; otherwise τ is divided by
//!   100 and descent resumes. The gap bounds `P_λ(w) − min P_λ`, hence the error of the fitted
//!   values: `‖X_c(w − w*)‖²/(2n) ≤ gap`. The change criterion alone was rejected: on
//!   ill-conditioned problems (n < d, small λ) tiny changes per pass coexisted with predictions
//!   10⁻⁵ away from the optimum (seen in `path_equals_cold_refit_at_every_lambda`).
//!
//! The gap costs the full gradient: O(d) in covariance mode, O(n d) in residual mode, the same
//! product the KKT check needs, so it is computed once per convergence, not per pass.

use crate::Par;
use crate::data::View;
use crate::error::{Error, Result};
use crate::family::numerics::linalg::{cholesky_solve, product, triangular_product};
use crate::family::numerics::vector::{dot, soft_threshold};

/// The training data of one fit, centred, with the cached quantities coordinate descent needs.
pub(super) struct Problem {
    n: usize,
    d: usize,
    /// Centred features, column-major (`x[j * n + i]`), each row times `√w̃_i`; empty in
    /// covariance mode.
    x: Vec<f64>,
    /// Centred target, each row times `√w̃_i`.
    y: Vec<f64>,
    /// (Weighted) column means of the training features.
    pub x_mean: Vec<f64>,
    /// (Weighted) mean of the training target.
    pub y_mean: f64,
    /// `a_j = ‖x_j‖²/n`.
    col_sq: Vec<f64>,
    /// `c_j = x_jᵀ y_c / n`.
    pub(super) xty: Vec<f64>,
    /// `‖y_c‖²/n`.
    y_var: f64,
    /// `G = X_cᵀ X_c / n`, column-major, in covariance mode.
    pub(super) gram: Option<Vec<f64>>,
    /// The parallelism of the training view (row chunks, gradient blocks).
    par: Par,
}

/// A direct solve on |A| non-zero coordinates is tried once coordinate descent at this λ has done
/// `passes · |W|² ≥ |A|³ / FACE_STEP_COST` work (`|W|` the working set): a Cholesky's flops run
/// several times faster than a pass's, and a pass costs `|W|²` in covariance mode.
const FACE_STEP_COST: usize = 32;

/// The solver's settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Settings {
    /// ρ in [0, 1].
    pub l1_ratio: f64,
    /// Relative convergence tolerance (see the module doc).
    pub tol: f64,
    /// Maximum number of coordinate passes at one λ.
    pub max_passes: usize,
}

/// Where coordinate descent is: coefficients and the state that gives `g_j`.
pub(super) struct State {
    /// The coefficients w.
    pub w: Vec<f64>,
    /// Residual mode: `r = y_c − X_c w`. Covariance mode: `g = c − G w`.
    aux: Vec<f64>,
    /// Features that have ever been non-zero along the path.
    ever_active: Vec<bool>,
    /// How many features the strong rule discarded and the KKT check re-admitted.
    pub readmitted: usize,
    /// How many direct steps on the non-zero coordinates were taken (`Problem::face_step`).
    pub face_steps: usize,
    /// Every `g_j` at the current `w`, as the last solve's final check computed them (the next
    /// λ's strong rule needs exactly these; recomputing them costs O(n d) in residual mode).
    gradient: Option<Vec<f64>>,
    /// Covariance mode: the last working set and its packed Gram block `G[W, W]`, reused while
    /// the working set does not change.
    block: (Vec<usize>, Vec<f64>),
}

impl Problem {
    /// Centres the rows of `train` and their targets; computes the Gram matrix when `gram`.
    /// `weights` (one per row of `train`, finite, ≥ 0, positive sum; `None` = all 1) weight the
    /// squared errors (see [`RowWeights`]).
    pub fn new(train: &View<'_>, gram: bool, weights: Option<&[f64]>) -> Self {
        let (n, d) = (train.len(), train.n_features());
        let inv_n = 1.0 / n as f64;
        let weights = weights.map(|w| RowWeights::new(w, n));
        let weights = weights.as_ref();
        let y = train.gather_y();
        let y_mean = y.iter().enumerate().map(|(i, v)| scaled(weights, i, *v)).sum::<f64>() * inv_n;
        let yc: Vec<f64> = y.iter().enumerate().map(|(i, v)| root_scaled(weights, i, v - y_mean)).collect();
        let y_var = dot(&yc, &yc) * inv_n;
        if gram {
            let (g, xty, x_mean) = gram_matrix(train, &yc, weights);
            let col_sq = (0..d).map(|j| g[j * d + j]).collect();
            return Self { n, d, x: Vec::new(), y: yc, x_mean, y_mean, col_sq, xty, y_var, gram: Some(g), par: train.par() };
        }
        // Column sums per fixed chunk of rows (in parallel), added in chunk order.
        let mut x_mean = vec![0.0; d];
        let partial: Vec<Vec<f64>> = train.par().map(row_chunks(n, d), |rows| {
            let mut sum = vec![0.0; d];
            for i in rows {
                sum.iter_mut().zip(train.x(i)).for_each(|(m, v)| *m += scaled(weights, i, *v));
            }
            sum
        });
        for sum in &partial {
            x_mean.iter_mut().zip(sum).for_each(|(m, v)| *m += v);
        }
        x_mean.iter_mut().for_each(|m| *m *= inv_n);
        // Residual mode: centred column-major, in blocks of rows so that reads and writes stay in cache.
        let mut x = vec![0.0; n * d];
        const ROWS: usize = 32;
        for i0 in (0..n).step_by(ROWS) {
            let i1 = (i0 + ROWS).min(n);
            let rows: Vec<&[f64]> = (i0..i1).map(|i| train.x(i)).collect();
            for (j, mean) in x_mean.iter().enumerate() {
                let column = &mut x[j * n + i0..j * n + i1];
                for (i, (row, out)) in (i0..).zip(rows.iter().zip(column)) {
                    *out = root_scaled(weights, i, row[j] - mean);
                }
            }
        }
        let col_sq = (0..d).map(|j| dot(&x[j * n..(j + 1) * n], &x[j * n..(j + 1) * n]) * inv_n).collect();
        let xty = (0..d).map(|j| dot(&x[j * n..(j + 1) * n], &yc) * inv_n).collect();
        Self { n, d, x, y: yc, x_mean, y_mean, col_sq, xty, y_var, gram: None, par: train.par() }
    }

    /// The smallest λ at which w = 0 solves the problem: `max_j |c_j| / ρ` (∞ when ρ = 0).
    pub fn lambda_max(&self, l1_ratio: f64) -> f64 {
        let c = self.xty.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        if l1_ratio > 0.0 { c / l1_ratio } else { f64::INFINITY }
    }

    /// The state at w = 0.
    pub fn zero_state(&self) -> State {
        let aux = if self.gram.is_some() { self.xty.clone() } else { self.y.clone() };
        State {
            w: vec![0.0; self.d],
            aux,
            ever_active: vec![false; self.d],
            readmitted: 0,
            face_steps: 0,
            gradient: None,
            block: (Vec::new(), Vec::new()),
        }
    }

    /// Every `g_j`: in covariance mode the kept `g`; in residual mode `X_cᵀ r / n` as matrix–vector
    /// products (faer, sequential), several times faster than `d` separate dot products, one per
    /// fixed block of `GRADIENT_COLUMNS` columns, the blocks in parallel. The blocks depend on `d`
    /// only, so the result is bit-identical on any thread count. It serves the KKT check and the
    /// duality gap only; coordinate steps keep their own fixed-order `dot`, so the two may differ
    /// in the last bits, which changes no decision beyond rounding.
    fn full_gradient(&self, state: &State) -> Vec<f64> {
        if self.gram.is_some() {
            return state.aux.clone();
        }
        let x = faer::MatRef::from_column_major_slice(&self.x, self.n, self.d);
        let r = faer::MatRef::from_column_major_slice(&state.aux, self.n, 1);
        let blocks: Vec<std::ops::Range<usize>> =
            (0..self.d).step_by(GRADIENT_COLUMNS).map(|c0| c0..(c0 + GRADIENT_COLUMNS).min(self.d)).collect();
        self.par
            .map(blocks, |columns| {
                let mut out = faer::Mat::<f64>::zeros(columns.len(), 1);
                product(out.as_mut(), faer::Accum::Replace, x.subcols(columns.start, columns.len()).transpose(), r, 1.0 / self.n as f64);
                (0..columns.len()).map(|j| out[(j, 0)]).collect::<Vec<f64>>()
            })
            .concat()
    }

    /// One coordinate step from `w_j = old` with gradient `g_j`: the new `w_j`.
    fn step(&self, j: usize, gradient: f64, old: f64, l1: f64, l2: f64) -> f64 {
        let a = self.col_sq[j];
        let denom = a + l2;
        if denom > 0.0 { soft_threshold(gradient + a * old, l1) / denom } else { 0.0 }
    }

    /// Minimises `P_λ` from `state` (warm start). `lambda_prev` is the previous λ of the path (or
    /// λ_max for a cold start), used by the strong rule only.
    ///
    /// # Errors
    /// [`Error::Numerical`] when `settings.max_passes` passes do not reach the tolerance.
    pub fn solve(&self, state: &mut State, lambda: f64, lambda_prev: f64, settings: &Settings) -> Result<()> {
        let rho = settings.l1_ratio;
        let (l1, l2) = (lambda * rho, lambda * (1.0 - rho));
        let mut threshold = settings.tol * self.y_var;
        let strong_cut = rho * (2.0 * lambda - lambda_prev.max(lambda));
        let known = state.gradient.take().unwrap_or_else(|| self.full_gradient(state));
        let mut in_working: Vec<bool> =
            (0..self.d).map(|j| state.ever_active[j] || state.w[j] != 0.0 || known[j].abs() >= strong_cut).collect();
        let passes = std::cell::Cell::new(0usize);
        let count = || -> Result<()> {
            passes.set(passes.get() + 1);
            if passes.get() > settings.max_passes {
                return Err(Error::Numerical(format!(
                    "coordinate descent did not converge at lambda = {lambda} within {} passes (tol {}); raise max_iter or tol",
                    settings.max_passes, settings.tol
                )));
            }
            Ok(())
        };
        loop {
            let working: Vec<usize> = (0..self.d).filter(|&j| in_working[j]).collect();
            match &self.gram {
                Some(gram) => {
                    let mut sweeper = GramSweeper::new(self, gram, state, &working, l1, l2);
                    descend(&mut sweeper, working.len(), threshold, &count)?;
                    sweeper.finish();
                }
                None => {
                    let mut sweeper = ResidualSweeper { problem: self, state, working: &working, l1, l2 };
                    descend(&mut sweeper, working.len(), threshold, &count)?;
                }
            }
            // KKT check of the discarded features: |g_j| ≤ λρ at w_j = 0.
            let gradient = self.full_gradient(state);
            let mut violated = false;
            for j in 0..self.d {
                if !in_working[j] && gradient[j].abs() > l1 {
                    in_working[j] = true;
                    violated = true;
                    state.readmitted += 1;
                }
            }
            if violated {
                continue;
            }
            if self.duality_gap(state, &gradient, lambda, rho) <= settings.tol * self.y_var {
                state.gradient = Some(gradient);
                return Ok(());
            }
            // Small changes but a large gap. When descent has already spent about what a direct
            // solve on the non-zero coordinates costs, take that solve (a step to the minimum of
            // the objective on the current sign pattern), then check again; otherwise demand
            // smaller changes.
            if let Some(gram) = &self.gram {
                let active = state.w.iter().filter(|v| **v != 0.0).count();
                if passes.get().saturating_mul(working.len().pow(2)) >= active.pow(3) / FACE_STEP_COST
                    && self.face_step(state, gram, l1, l2)
                {
                    continue;
                }
            }
            threshold *= 0.01;
        }
    }

    /// One step towards the minimiser of `P_λ` restricted to the current sign pattern (covariance
    /// mode). With A the non-zero coordinates and s their signs, that minimiser solves
    /// `(G_AA + λ(1 − ρ) I) v = c_A − λρ s` (one Cholesky, O(|A|³/3)). On the segment from `w` to
    /// `v`, `P_λ` equals that quadratic as long as no sign changes, and the quadratic decreases
    /// towards its minimum; so the step goes to `v`, or to the first coordinate that reaches zero
    /// (set to exactly zero), and never increases `P_λ` in exact arithmetic. It is kept only when
    /// `P_λ` computed afresh did not increase; the gradient is then recomputed from `G` (which also
    /// clears the drift of the incremental updates). Coordinate descent converges linearly, and at
    /// small λ with hundreds of non-zero coordinates the duality gap can need hundreds of passes;
    /// this step ends them once the sign pattern is right. Returns whether the step was taken (a
    /// singular `G_AA` or a non-finite result: not taken, descent goes on as before).
    fn face_step(&self, state: &mut State, gram: &[f64], l1: f64, l2: f64) -> bool {
        let d = self.d;
        let active: Vec<usize> = (0..d).filter(|&j| state.w[j] != 0.0).collect();
        let m = active.len();
        if m == 0 {
            return false;
        }
        let a = faer::Mat::from_fn(m, m, |r, c| gram[active[c] * d + active[r]] + if r == c { l2 } else { 0.0 });
        let rhs = faer::Mat::from_fn(m, 1, |r, _| self.xty[active[r]] - l1 * state.w[active[r]].signum());
        let Ok(v) = cholesky_solve(a.as_ref(), rhs.as_ref()) else {
            return false;
        };
        let mut t = 1.0_f64;
        let mut blocker = None;
        for (r, &j) in active.iter().enumerate() {
            let (old, new) = (state.w[j], v[(r, 0)]);
            if !new.is_finite() {
                return false;
            }
            if new * old <= 0.0 {
                let at = old / (old - new);
                if at < t {
                    t = at;
                    blocker = Some(r);
                }
            }
        }
        let before = self.objective(state, l1, l2);
        let old_w = state.w.clone();
        let old_g = state.aux.clone();
        for (r, &j) in active.iter().enumerate() {
            state.w[j] = if blocker == Some(r) { 0.0 } else { old_w[j] + t * (v[(r, 0)] - old_w[j]) };
        }
        state.aux.copy_from_slice(&self.xty);
        for &j in &active {
            let wj = state.w[j];
            if wj != 0.0 {
                state.aux.iter_mut().zip(&gram[j * d..(j + 1) * d]).for_each(|(g, gkj)| *g -= wj * gkj);
            }
        }
        // Also false when the objective is NaN.
        let decreased = self.objective(state, l1, l2) <= before;
        if !decreased {
            state.w = old_w;
            state.aux = old_g;
            return false;
        }
        state.face_steps += 1;
        true
    }

    /// `P_λ(w)` in covariance mode from `g = c − G w`: `wᵀGw = wᵀc − wᵀg`.
    fn objective(&self, state: &State, l1: f64, l2: f64) -> f64 {
        let w = &state.w;
        let wc = dot(w, &self.xty);
        let quadratic = wc - dot(w, &state.aux);
        let l1_norm: f64 = w.iter().map(|v| v.abs()).sum();
        0.5 * self.y_var - wc + 0.5 * quadratic + l1 * l1_norm + 0.5 * l2 * dot(w, w)
    }

    /// The duality gap of `P_λ` at `state` (scikit-learn's `enet_coordinate_descent` gap, divided
    /// by n), given every `g_j`. It bounds `P_λ(w) − min P_λ` from above.
    fn duality_gap(&self, state: &State, gradient: &[f64], lambda: f64, rho: f64) -> f64 {
        let l2 = lambda * (1.0 - rho);
        let w = &state.w;
        if rho == 0.0 {
            // Pure ridge: the dual scaling below degenerates (λρ = 0); use the strong-convexity
            // bound `P(w) − min P ≤ ‖∇P(w)‖² / (2λ)` instead.
            let grad_norm2: f64 = gradient.iter().zip(w).map(|(g, v)| (l2 * v - g).powi(2)).sum();
            return grad_norm2 / (2.0 * l2);
        }
        let wc = dot(w, &self.xty);
        // ‖r‖²/n = ‖y_c‖²/n − 2wᵀc + wᵀGw and wᵀGw = wᵀc − wᵀg.
        let r_norm2 = self.y_var - wc - dot(w, gradient);
        let ry = self.y_var - wc;
        let w_norm2 = dot(w, w);
        let l1_norm: f64 = w.iter().map(|v| v.abs()).sum();
        let dual_norm = gradient.iter().zip(w).fold(0.0_f64, |m, (g, v)| m.max((g - l2 * v).abs()));
        let scale = if dual_norm > lambda * rho { lambda * rho / dual_norm } else { 1.0 };
        0.5 * r_norm2 * (1.0 + scale * scale) + lambda * rho * l1_norm - scale * ry + 0.5 * l2 * (1.0 + scale * scale) * w_norm2
    }
}

/// Coordinate passes over one working set (its items are positions `0..len` in it).
trait Sweeper {
    /// One pass over `items`, in the given order; returns `max_j a_j (Δw_j)²`.
    fn pass(&mut self, items: &[usize]) -> f64;
    /// Whether the item's coefficient is non-zero.
    fn nonzero(&self, item: usize) -> bool;
}

/// Active-set cycling on one working set: a full pass; while it moves some coordinate by more
/// than `threshold`, passes over the non-zero coordinates only until they settle, then a full
/// pass again. Returns once a full pass stays within `threshold`.
fn descend(sweeper: &mut impl Sweeper, len: usize, threshold: f64, count: &impl Fn() -> Result<()>) -> Result<()> {
    let all: Vec<usize> = (0..len).collect();
    loop {
        count()?;
        if sweeper.pass(&all) <= threshold {
            return Ok(());
        }
        let active: Vec<usize> = all.iter().copied().filter(|&a| sweeper.nonzero(a)).collect();
        loop {
            count()?;
            if sweeper.pass(&active) <= threshold {
                break;
            }
        }
    }
}

/// Residual mode: each step reads `x_jᵀr` (O(n)) and updates `r` (O(n)).
struct ResidualSweeper<'a> {
    problem: &'a Problem,
    state: &'a mut State,
    working: &'a [usize],
    l1: f64,
    l2: f64,
}

impl Sweeper for ResidualSweeper<'_> {
    fn pass(&mut self, items: &[usize]) -> f64 {
        let p = self.problem;
        let mut max_change = 0.0_f64;
        for &item in items {
            let j = self.working[item];
            let column = &p.x[j * p.n..(j + 1) * p.n];
            let old = self.state.w[j];
            let new = p.step(j, dot(column, &self.state.aux) / p.n as f64, old, self.l1, self.l2);
            if new != old {
                let delta = new - old;
                self.state.aux.iter_mut().zip(column).for_each(|(r, x)| *r -= delta * x);
                self.state.w[j] = new;
                self.state.ever_active[j] = true;
                max_change = max_change.max(p.col_sq[j] * delta * delta);
            }
        }
        max_change
    }
    fn nonzero(&self, item: usize) -> bool {
        self.state.w[self.working[item]] != 0.0
    }
}

/// Covariance mode on a working set W: the gradients of W and the Gram block `G[W, W]` are
/// packed contiguously, so a step costs O(|W|) instead of O(d). The gradients of the features
/// outside W are brought up to date once, when the sweeps end (`finish`: O((d − |W|) · changed)).
struct GramSweeper<'a> {
    problem: &'a Problem,
    gram: &'a [f64],
    state: &'a mut State,
    working: &'a [usize],
    /// `G[W, W]`, column-major `|W| × |W|`.
    block: Vec<f64>,
    /// `g_W`.
    gradient: Vec<f64>,
    /// `w_W` when the sweeps started.
    start: Vec<f64>,
    l1: f64,
    l2: f64,
}

impl<'a> GramSweeper<'a> {
    fn new(problem: &'a Problem, gram: &'a [f64], state: &'a mut State, working: &'a [usize], l1: f64, l2: f64) -> Self {
        let d = problem.d;
        let (cached, mut block) = std::mem::take(&mut state.block);
        if cached != working {
            block.clear();
            for &j in working {
                let column = &gram[j * d..(j + 1) * d];
                block.extend(working.iter().map(|&k| column[k]));
            }
        }
        let gradient = working.iter().map(|&j| state.aux[j]).collect();
        let start = working.iter().map(|&j| state.w[j]).collect();
        Self { problem, gram, state, working, block, gradient, start, l1, l2 }
    }

    /// Writes the packed gradients back and updates those outside W: `g_k −= Σ_j G[k, j] Δw_j`.
    fn finish(self) {
        let d = self.problem.d;
        let mut outside = vec![true; d];
        for (&j, g) in self.working.iter().zip(&self.gradient) {
            self.state.aux[j] = *g;
            outside[j] = false;
        }
        let outside: Vec<usize> = (0..d).filter(|&k| outside[k]).collect();
        for (&j, old) in self.working.iter().zip(&self.start) {
            let delta = self.state.w[j] - old;
            if delta != 0.0 {
                let column = &self.gram[j * d..(j + 1) * d];
                for &k in &outside {
                    self.state.aux[k] -= delta * column[k];
                }
            }
        }
        self.state.block = (self.working.to_vec(), self.block);
    }
}

impl Sweeper for GramSweeper<'_> {
    fn pass(&mut self, items: &[usize]) -> f64 {
        let m = self.working.len();
        let mut max_change = 0.0_f64;
        for &item in items {
            let j = self.working[item];
            let old = self.state.w[j];
            let new = self.problem.step(j, self.gradient[item], old, self.l1, self.l2);
            if new != old {
                let delta = new - old;
                self.gradient.iter_mut().zip(&self.block[item * m..(item + 1) * m]).for_each(|(g, gjk)| *g -= delta * gjk);
                self.state.w[j] = new;
                self.state.ever_active[j] = true;
                max_change = max_change.max(self.problem.col_sq[j] * delta * delta);
            }
        }
        max_change
    }
    fn nonzero(&self, item: usize) -> bool {
        self.state.w[self.working[item]] != 0.0
    }
}

/// The fixed partition of `0..n` into chunks of rows whose column sums (and, in covariance mode,
/// Gram products) are computed separately, in parallel, then added in chunk order. It depends on
/// `n` and `d` only, never on the thread count, so the sums are bit-identical on any number of
/// threads. Chunks have at least 1 024 rows (one chunk up to 2 047 rows: small problems keep one
/// sequential sum); at most four (enough for the cores of a workstation, few partial sums to add),
/// and fewer when the partial Gram matrices (`8 d²` bytes each) would exceed 64 MiB.
pub(super) fn row_chunks(n: usize, d: usize) -> Vec<std::ops::Range<usize>> {
    const MIN_ROWS: usize = 1024;
    const PARTIALS_MAX_BYTES: usize = 64 << 20;
    let max_chunks = (PARTIALS_MAX_BYTES / (8 * d.max(1) * d.max(1))).clamp(1, 4);
    let chunks = (n / MIN_ROWS).clamp(1, max_chunks);
    let size = n.div_ceil(chunks);
    (0..chunks).map(|c| (c * size).min(n)..((c + 1) * size).min(n)).collect()
}

/// Covariance mode's one pass over the data: the column means `m`, `G = X_cᵀX_c / n`
/// (column-major `d × d`) and `c = X_cᵀy_c / n` (`y_c` already centred). With row weights every
/// row of `X_c` and `y_c` is scaled by `√w̃_i` ([`RowWeights`]: `yc` comes scaled, the rows are
/// scaled here), the sums `Σ (x_i − s)` become `Σ w̃_i (x_i − s)` and the formulas below hold as
/// written, because `Σ w̃_i = n`.
///
/// The means are not known before the pass, so the rows are centred on a shift `s`, the mean of
/// the first (up to) `ROWS` rows, and corrected at the end: with `δ = m − s = Σ(x_i − s)/n`,
///
/// ```text
/// G = Σ (x_i − s)(x_i − s)ᵀ / n − δ δᵀ        c = (Σ (x_i − s) y_c,i − δ Σ y_c,i) / n
/// ```
///
/// exactly. In floating point the correction costs nothing as long as `δ` is small against the
/// columns' spread, which the shift ensures (it is the mean of a sample of the rows: `|δ_j|` is
/// of the order of `σ_j / √ROWS` for rows in no particular order, and at most the column's range
/// whatever the order); the tests compare with the centred products summed directly. One pass
/// instead of two (the means, then the centred products) saves a full read of the data.
///
/// Each chunk of rows (`row_chunks`, in parallel) is shifted in blocks of `ROWS` rows into one
/// small buffer (row-major, that is `(X − s)ᵀ` column-major), whose column sums, products with
/// `y_c` and upper triangle of its Gram product (faer's triangular product: half the flops of a
/// full one) are added to the chunk's sums; no shifted copy of the data is made. The chunks' sums
/// are then added in chunk order. Every entry is the same sequence of sequential faer products
/// and additions whatever the thread count (the row partition is fixed), so the result is
/// bit-identical on any number of threads.
fn gram_matrix(train: &View<'_>, yc: &[f64], weights: Option<&RowWeights>) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let (n, d) = (train.len(), train.n_features());
    let inv_n = 1.0 / n as f64;
    let head = n.min(GRAM_ROWS);
    let mut shift = vec![0.0; d];
    for i in 0..head {
        shift.iter_mut().zip(train.x(i)).for_each(|(s, v)| *s += v);
    }
    shift.iter_mut().for_each(|s| *s /= head.max(1) as f64);
    let partial: Vec<ChunkSums> = train.par().map(row_chunks(n, d), |rows| gram_chunk(train, &shift, yc, weights, rows));
    let mut partial = partial.into_iter();
    let mut total = partial.next().unwrap_or_else(|| gram_chunk(train, &shift, yc, weights, 0..0));
    for more in partial {
        total.gram += &more.gram;
        total.sum.iter_mut().zip(&more.sum).for_each(|(a, b)| *a += b);
        total.xty.iter_mut().zip(&more.xty).for_each(|(a, b)| *a += b);
    }
    let delta: Vec<f64> = total.sum.iter().map(|v| v * inv_n).collect();
    let y_sum: f64 = yc.iter().enumerate().map(|(i, v)| root_scaled(weights, i, *v)).sum();
    let xty = total.xty.iter().zip(&delta).map(|(c, dj)| (c - dj * y_sum) * inv_n).collect();
    let mut out = vec![0.0; d * d];
    for k in 0..d {
        for j in 0..=k {
            let g = total.gram[(j, k)] * inv_n - delta[j] * delta[k];
            out[k * d + j] = g;
            out[j * d + k] = g;
        }
    }
    let x_mean = shift.iter().zip(&delta).map(|(s, dj)| s + dj).collect();
    (out, xty, x_mean)
}

/// Columns per block of the residual-mode gradient (`Problem::full_gradient`): the blocks run
/// in parallel. On the wide benchmark (n = 500, d = 5 000) the gradient is about half of the
/// path's time; one block up to 512 features keeps small problems sequential.
const GRADIENT_COLUMNS: usize = 512;

/// Rows per block of the covariance pass (`gram_matrix`): also the rows whose mean is the shift.
/// Measured on the benchmark's 10 000 × 500 Gram: faer's triangular product per block of 64–256
/// rows was within a few percent of the best; larger blocks were slower (the packed operands
/// leave the cache).
const GRAM_ROWS: usize = 128;

/// Row weights normalised as scikit-learn's `ElasticNet` does: `w̃_i = w_i · n / Σ w`, so that
/// `Σ w̃_i = n` and the objective is `(1/(2n)) Σ w̃_i (y_i − x_iᵀw − b)²` + penalty. Centring on
/// the weighted means and scaling every centred row by `√w̃_i` turns it into the unweighted
/// problem on the scaled rows, which is what the rest of the kernel solves. Unit weights give
/// `w̃_i = 1` exactly, so the same bits as without weights; a zero weight gives a zero row.
pub(super) struct RowWeights {
    /// `w̃_i`.
    normalised: Vec<f64>,
    /// `√w̃_i`.
    root: Vec<f64>,
}

impl RowWeights {
    fn new(weights: &[f64], n: usize) -> Self {
        debug_assert_eq!(weights.len(), n);
        let total: f64 = weights.iter().sum();
        let normalised: Vec<f64> = weights.iter().map(|w| w * n as f64 / total).collect();
        let root = normalised.iter().map(|w| w.sqrt()).collect();
        Self { normalised, root }
    }
}

/// `w̃_i · v` (`v` without weights).
fn scaled(weights: Option<&RowWeights>, i: usize, v: f64) -> f64 {
    weights.map_or(v, |w| w.normalised[i] * v)
}

/// `√w̃_i · v` (`v` without weights).
fn root_scaled(weights: Option<&RowWeights>, i: usize, v: f64) -> f64 {
    weights.map_or(v, |w| w.root[i] * v)
}

/// One chunk's sums in covariance mode, on rows shifted by `s` (`gram_matrix`).
struct ChunkSums {
    /// Upper triangle of `Σ (x_i − s)(x_i − s)ᵀ` (the lower part stays zero).
    gram: faer::Mat<f64>,
    /// `Σ (x_i − s)`.
    sum: Vec<f64>,
    /// `Σ (x_i − s) y_c,i`.
    xty: Vec<f64>,
}

/// The sums of one chunk of rows (`gram_matrix`).
fn gram_chunk(train: &View<'_>, shift: &[f64], yc: &[f64], weights: Option<&RowWeights>, rows: std::ops::Range<usize>) -> ChunkSums {
    use faer::linalg::matmul::triangular::BlockStructure;
    let d = shift.len();
    let mut out = ChunkSums { gram: faer::Mat::<f64>::zeros(d, d), sum: vec![0.0; d], xty: vec![0.0; d] };
    let mut buffer = Vec::with_capacity(GRAM_ROWS * d);
    for i0 in rows.clone().step_by(GRAM_ROWS) {
        let i1 = (i0 + GRAM_ROWS).min(rows.end);
        buffer.clear();
        for (i, yi) in (i0..i1).zip(&yc[i0..i1]) {
            let start = buffer.len();
            buffer.extend(train.x(i).iter().zip(shift).map(|(v, s)| root_scaled(weights, i, v - s)));
            for ((a, c), v) in out.sum.iter_mut().zip(out.xty.iter_mut()).zip(&buffer[start..]) {
                *a += root_scaled(weights, i, *v);
                *c += v * yi;
            }
        }
        let xt = faer::MatRef::from_column_major_slice(&buffer, d, i1 - i0);
        triangular_product(out.gram.as_mut(), BlockStructure::TriangularUpper, xt, xt.transpose());
    }
    out
}
