//! SMO for LIBSVM's dual form (Fan, Chen & Lin 2005, "Working set selection using second order
//! information for training SVM", JMLR 6):
//!
//! ```text
//! min_α  f(α) = ½ αᵀ Q α + pᵀ α   subject to  yᵀ α = 0,  0 ≤ α_t ≤ C,   Q_st = y_s y_t K(x_{r(s)}, x_{r(t)})
//! ```
//!
//! with `y_t ∈ {±1}` and `r(t)` the kernel row of variable t (C-SVC: `r(t) = t`; ε-SVR has 2n
//! variables `α⁺, α⁻` on the same n kernel rows: `r(t) = t mod n`).
//!
//! - Working set: `i = argmax_{t ∈ I_up} −y_t ∇f_t`, then `j` minimising the second-order
//!   decrease `−b²/a` over `I_low` (WSS 2 of the paper, as LIBSVM 2.8+), `a ≤ 0` replaced by
//!   τ = 1e-12.
//! - Stopping: `m(α) − M(α) < ε` (LIBSVM's `eps`, our `tol`, default 1e-3).
//! - Shrinking (LIBSVM's rule): every `min(l, 1000)` iterations variables at a bound whose
//!   gradient says they will stay there leave the active set; when the gap first falls below
//!   10ε the gradient is reconstructed and everything is unshrunk once; at the end the full
//!   gradient is reconstructed and optimality re-checked on all variables.
//!   Unlike LIBSVM we keep an active *list* instead of swapping variables (the kernel cache is
//!   shared by every grid point, so its row order must not change); the gradient of shrunk
//!   variables is rebuilt from the rows of the nonzero α (LIBSVM keeps `G_bar` for that; the
//!   rebuild is rare, so we spare the bookkeeping).
//! - Newton steps (our addition): every `NEWTON_EVERY` iterations, an exact minimisation over
//!   the free variables with an active-set loop for the box (see `newton_step`); f never
//!   increases, feasibility is kept and the stopping rule is unchanged.
//! - Warm start: any feasible α with its gradient `G = Qα + p`.

use super::cache::KernelCache;
use crate::error::{Error, Result};

const TAU: f64 = 1e-12;
/// SMO iterations between two Newton steps on the free variables.
const NEWTON_EVERY: usize = 30;
/// Ridge added to `Q_FF` in the Newton step (the Gaussian kernel matrix of close points is
/// numerically singular); the step stays a descent direction for any ridge.
const NEWTON_RIDGE: f64 = 1e-8;

/// A dual problem in LIBSVM's form (see the module doc).
pub(crate) struct Dual<'a> {
    /// Labels ±1.
    pub y: &'a [f64],
    /// Linear term.
    pub p: &'a [f64],
    /// Kernel row of each variable.
    pub row: &'a [usize],
    /// Box bound (the same for every variable).
    pub c: f64,
    /// Stopping tolerance ε.
    pub tol: f64,
    /// LIBSVM's shrinking heuristic on/off.
    pub shrinking: bool,
}

/// The solver's result.
#[derive(Clone, Debug)]
pub(crate) struct Solution {
    /// The dual variables.
    pub alpha: Vec<f64>,
    /// The gradient `Qα + p` at `alpha` (for warm starts).
    pub grad: Vec<f64>,
    /// LIBSVM's ρ: the decision function is `Σ_t y_t α_t K(x_{r(t)}, ·) − ρ`.
    pub rho: f64,
    /// `f(α)`.
    pub objective: f64,
    /// SMO iterations.
    #[cfg_attr(not(test), allow(dead_code))]
    pub iterations: usize,
}

impl Dual<'_> {
    fn upper(&self, a: f64) -> bool {
        a >= self.c
    }
    fn lower(a: f64) -> bool {
        a <= 0.0
    }

    /// Solves from `alpha` (feasible: `yᵀα = 0`, `0 ≤ α ≤ C`) with gradient `grad = Qα + p`.
    ///
    /// # Errors
    /// [`Error::Numerical`] when the iteration cap `max(10⁷, 100 l)` (LIBSVM's) is reached.
    pub fn solve(&self, cache: &mut KernelCache, mut alpha: Vec<f64>, mut grad: Vec<f64>) -> Result<Solution> {
        let l = self.y.len();
        let y = self.y;
        let mut active: Vec<usize> = (0..l).collect();
        let mut unshrunk = false;
        let max_iter = 10_000_000usize.max(100 * l);
        let shrink_every = l.clamp(1, 1000);
        let mut counter = shrink_every;
        let mut iter = 0;
        loop {
            if self.shrinking {
                counter -= 1;
                if counter == 0 {
                    counter = shrink_every;
                    self.shrink(cache, &alpha, &mut grad, &mut active, &mut unshrunk);
                }
            }
            let Some((i, j)) = self.select(cache, &alpha, &grad, &active) else {
                if active.len() == l {
                    break;
                }
                // optimal on the active set: rebuild the full gradient, re-check on everything
                self.reconstruct(cache, &alpha, &mut grad, &active);
                active = (0..l).collect();
                match self.select(cache, &alpha, &grad, &active) {
                    None => break,
                    Some(_) => {
                        counter = 1; // shrink again at the next iteration, as LIBSVM
                        continue;
                    }
                }
            };
            iter += 1;
            if iter > max_iter {
                return Err(Error::Numerical(format!("SMO did not converge within {max_iter} iterations (C = {})", self.c)));
            }
            let hi = cache.load(self.row[i]);
            let hj = cache.load(self.row[j]);
            let (ki, kj) = (cache.row(hi), cache.row(hj));
            let qij = y[i] * y[j] * ki[self.row[j]];
            let (old_i, old_j) = (alpha[i], alpha[j]);
            let c = self.c;
            // two-variable update with clipping, as LIBSVM's Solver::Solve (Q_ii = Q_jj = 1)
            if y[i] != y[j] {
                let quad = (2.0 + 2.0 * qij).max(TAU);
                let delta = (-grad[i] - grad[j]) / quad;
                let diff = alpha[i] - alpha[j];
                alpha[i] += delta;
                alpha[j] += delta;
                if diff > 0.0 {
                    if alpha[j] < 0.0 {
                        alpha[j] = 0.0;
                        alpha[i] = diff;
                    }
                } else if alpha[i] < 0.0 {
                    alpha[i] = 0.0;
                    alpha[j] = -diff;
                }
                if diff > 0.0 {
                    if alpha[i] > c {
                        alpha[i] = c;
                        alpha[j] = c - diff;
                    }
                } else if alpha[j] > c {
                    alpha[j] = c;
                    alpha[i] = c + diff;
                }
            } else {
                let quad = (2.0 - 2.0 * qij).max(TAU);
                let delta = (grad[i] - grad[j]) / quad;
                let sum = alpha[i] + alpha[j];
                alpha[i] -= delta;
                alpha[j] += delta;
                if sum > c {
                    if alpha[i] > c {
                        alpha[i] = c;
                        alpha[j] = sum - c;
                    }
                } else if alpha[j] < 0.0 {
                    alpha[j] = 0.0;
                    alpha[i] = sum;
                }
                if sum > c {
                    if alpha[j] > c {
                        alpha[j] = c;
                        alpha[i] = sum - c;
                    }
                } else if alpha[i] < 0.0 {
                    alpha[i] = 0.0;
                    alpha[j] = sum;
                }
            }
            // G_t += Q_ti Δα_i + Q_tj Δα_j on the active set
            let di = y[i] * (alpha[i] - old_i);
            let dj = y[j] * (alpha[j] - old_j);
            for &t in &active {
                let r = self.row[t];
                grad[t] += y[t] * (ki[r] * di + kj[r] * dj);
            }
            if iter % NEWTON_EVERY == 0 {
                self.newton_step(cache, &mut alpha, &mut grad, &active);
            }
        }
        let rho = self.rho(&alpha, &grad);
        let objective = 0.5 * alpha.iter().zip(&grad).zip(self.p).map(|((a, g), p)| a * (g + p)).sum::<f64>();
        Ok(Solution { alpha, grad, rho, objective, iterations: iter })
    }

    /// A Newton step on the free variables F (`0 < α_t < C`) with the others fixed: the
    /// minimiser of f on `{α_F : y_Fᵀ α_F = const}` is `α_F + Δ` with
    /// `(Q_FF + μI) Δ = ρ y_F − G_F`, `ρ = y_Fᵀ A⁻¹ G_F / y_Fᵀ A⁻¹ y_F` (A = Q_FF + μI), which
    /// keeps `yᵀα` and is a descent direction (Cauchy–Schwarz in the A⁻¹ inner product). The step
    /// length is the exact line minimum of the true quadratic, clipped to the box, so f never
    /// increases and feasibility is kept. Skipped when `|F|³` would cost more than the SMO
    /// iterations it follows. This is our addition to LIBSVM's SMO: on ill-conditioned kernels
    /// (1-D data, large C) SMO zig-zags for tens of thousands of pair updates inside a small free
    /// set that one Newton step settles; the stopping rule is unchanged.
    fn newton_step(&self, cache: &mut KernelCache, alpha: &mut [f64], grad: &mut [f64], active: &[usize]) {
        let y = self.y;
        let c = self.c;
        let vars: Vec<usize> = active.iter().copied().filter(|&t| alpha[t] > 0.0 && alpha[t] < c).collect();
        let n0 = vars.len();
        if n0 < 2 || n0 * n0 * n0 > 3 * NEWTON_EVERY * y.len() {
            return;
        }
        let mut q = vec![0.0; n0 * n0];
        for (a, &ta) in vars.iter().enumerate() {
            let h = cache.load(self.row[ta]);
            let kr = cache.row(h);
            for (b, &tb) in vars.iter().enumerate() {
                q[a * n0 + b] = y[ta] * y[tb] * kr[self.row[tb]];
            }
        }
        let mut al: Vec<f64> = vars.iter().map(|&t| alpha[t]).collect();
        let mut g: Vec<f64> = vars.iter().map(|&t| grad[t]).collect();
        // active-set loop: a step blocked by the box fixes the blocking variable at its bound
        let mut free: Vec<usize> = (0..n0).collect();
        while free.len() >= 2 {
            let Some((delta, step, limit)) = newton_direction(&q, n0, &free, &al, &g, &vars, y, c) else { break };
            let mut moved = vec![0.0; free.len()];
            for (k, &a) in free.iter().enumerate() {
                let old = al[a];
                al[a] = if Some(k) == limit { if delta[k] > 0.0 { c } else { 0.0 } } else { (old + step * delta[k]).clamp(0.0, c) };
                moved[k] = al[a] - old;
            }
            for (b, gb) in g.iter_mut().enumerate() {
                *gb += free.iter().zip(&moved).map(|(&a, m)| q[b * n0 + a] * m).sum::<f64>();
            }
            match limit {
                Some(k) => {
                    free.remove(k);
                }
                None => break,
            }
        }
        // The step is an accelerator, never a risk: keep it only when it keeps `yᵀα` to rounding
        // and does not increase f (`Δf = ½ (G_old + G_new)ᵀ Δα` on a quadratic), else leave α as
        // SMO had it.
        let (mut drift, mut moved_total, mut change) = (0.0, 0.0, 0.0);
        for (a, &t) in vars.iter().enumerate() {
            let step = al[a] - alpha[t];
            drift += y[t] * step;
            moved_total += step.abs();
            change += 0.5 * (grad[t] + g[a]) * step;
        }
        if drift.abs() > 1e-12 * (moved_total + c) || change > 0.0 {
            return;
        }
        for (a, &t) in vars.iter().enumerate() {
            let d = y[t] * (al[a] - alpha[t]);
            alpha[t] = al[a];
            if d != 0.0 {
                let h = cache.load(self.row[t]);
                let kr = cache.row(h);
                for &s in active {
                    grad[s] += y[s] * kr[self.row[s]] * d;
                }
            }
        }
    }

    /// WSS 2; `None` when the gap `m − M` is below `tol` (or no pair improves).
    fn select(&self, cache: &mut KernelCache, alpha: &[f64], grad: &[f64], active: &[usize]) -> Option<(usize, usize)> {
        let y = self.y;
        let mut gmax = f64::NEG_INFINITY;
        let mut gmax_idx = usize::MAX;
        for &t in active {
            if y[t] > 0.0 {
                if !self.upper(alpha[t]) && -grad[t] >= gmax {
                    gmax = -grad[t];
                    gmax_idx = t;
                }
            } else if !Self::lower(alpha[t]) && grad[t] >= gmax {
                gmax = grad[t];
                gmax_idx = t;
            }
        }
        if gmax_idx == usize::MAX {
            return None;
        }
        let i = gmax_idx;
        let hi = cache.load(self.row[i]);
        let ki = cache.row(hi);
        let mut gmax2 = f64::NEG_INFINITY;
        let mut gmin_idx = usize::MAX;
        let mut obj_min = f64::INFINITY;
        for &t in active {
            // y_i Q_it = y_t K_it
            let yq = y[t] * ki[self.row[t]];
            let (grad_diff, quad) = if y[t] > 0.0 {
                if Self::lower(alpha[t]) {
                    continue;
                }
                gmax2 = gmax2.max(grad[t]);
                (gmax + grad[t], 2.0 - 2.0 * yq)
            } else {
                if self.upper(alpha[t]) {
                    continue;
                }
                gmax2 = gmax2.max(-grad[t]);
                (gmax - grad[t], 2.0 + 2.0 * yq)
            };
            if grad_diff > 0.0 {
                let obj = -(grad_diff * grad_diff) / quad.max(TAU);
                if obj <= obj_min {
                    obj_min = obj;
                    gmin_idx = t;
                }
            }
        }
        if gmax + gmax2 < self.tol || gmin_idx == usize::MAX {
            return None;
        }
        Some((i, gmin_idx))
    }

    fn shrink(&self, cache: &mut KernelCache, alpha: &[f64], grad: &mut [f64], active: &mut Vec<usize>, unshrunk: &mut bool) {
        let y = self.y;
        let (mut g1, mut g2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for &t in active.iter() {
            let yg = y[t] * grad[t];
            // I_up: −y G;  I_low: y G
            let up = if y[t] > 0.0 { !self.upper(alpha[t]) } else { !Self::lower(alpha[t]) };
            let low = if y[t] > 0.0 { !Self::lower(alpha[t]) } else { !self.upper(alpha[t]) };
            if up {
                g1 = g1.max(-yg);
            }
            if low {
                g2 = g2.max(yg);
            }
        }
        if !*unshrunk && g1 + g2 <= self.tol * 10.0 {
            *unshrunk = true;
            self.reconstruct(cache, alpha, grad, active);
            *active = (0..y.len()).collect();
        }
        active.retain(|&t| {
            let g = grad[t];
            if self.upper(alpha[t]) {
                !(if y[t] > 0.0 { -g > g1 } else { -g > g2 })
            } else if Self::lower(alpha[t]) {
                !(if y[t] > 0.0 { g > g2 } else { g > g1 })
            } else {
                true
            }
        });
    }

    /// Rebuilds `G_t = p_t + Σ_s Q_ts α_s` for the variables outside `active`.
    fn reconstruct(&self, cache: &mut KernelCache, alpha: &[f64], grad: &mut [f64], active: &[usize]) {
        let l = self.y.len();
        if active.len() == l {
            return;
        }
        let mut is_active = vec![false; l];
        active.iter().for_each(|&t| is_active[t] = true);
        let inactive: Vec<usize> = (0..l).filter(|&t| !is_active[t]).collect();
        for &t in &inactive {
            grad[t] = self.p[t];
        }
        for (s, &a) in alpha.iter().enumerate() {
            if a > 0.0 {
                let h = cache.load(self.row[s]);
                let ks = cache.row(h);
                let ya = self.y[s] * alpha[s];
                for &t in &inactive {
                    grad[t] += self.y[t] * ya * ks[self.row[t]];
                }
            }
        }
    }

    /// LIBSVM's ρ: the mean of `y_t G_t` over free variables, else the midpoint of the bounds.
    fn rho(&self, alpha: &[f64], grad: &[f64]) -> f64 {
        let (mut ub, mut lb, mut sum, mut free) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
        for t in 0..alpha.len() {
            let yg = self.y[t] * grad[t];
            let pos = self.y[t] > 0.0;
            if self.upper(alpha[t]) {
                if pos { lb = lb.max(yg) } else { ub = ub.min(yg) }
            } else if Self::lower(alpha[t]) {
                if pos { ub = ub.min(yg) } else { lb = lb.max(yg) }
            } else {
                free += 1;
                sum += yg;
            }
        }
        if free > 0 { sum / free as f64 } else { (ub + lb) / 2.0 }
    }
}

/// The Newton direction on the variables `free` (positions into the `n0 × n0` matrix `q`,
/// current values `al`, gradients `g`), its step length (exact line minimum clipped to the box)
/// and the position in `free` of the variable that blocks it, if any.
#[allow(clippy::too_many_arguments)]
fn newton_direction(
    q: &[f64],
    n0: usize,
    free: &[usize],
    al: &[f64],
    g: &[f64],
    vars: &[usize],
    y: &[f64],
    c: f64,
) -> Option<(Vec<f64>, f64, Option<usize>)> {
    let f = free.len();
    let mut chol = vec![0.0; f * f];
    for (i, &a) in free.iter().enumerate() {
        for (j, &b) in free.iter().enumerate() {
            chol[i * f + j] = q[a * n0 + b];
        }
        chol[i * f + i] += NEWTON_RIDGE;
    }
    if !cholesky(&mut chol, f) {
        return None;
    }
    let yf: Vec<f64> = free.iter().map(|&a| y[vars[a]]).collect();
    let gf: Vec<f64> = free.iter().map(|&a| g[a]).collect();
    let u = cholesky_solve(&chol, f, &yf);
    let w = cholesky_solve(&chol, f, &gf);
    let yu: f64 = yf.iter().zip(&u).map(|(a, b)| a * b).sum();
    let rho = yf.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() / yu;
    let mut delta: Vec<f64> = u.iter().zip(&w).map(|(u, w)| rho * u - w).collect();
    // `y_Fᵀ Δ = 0` holds in exact arithmetic only: with a nearly singular `Q_FF` (SVR's α⁺/α⁻
    // pairs share a kernel row; close points) `u` and `w` are huge and the difference above keeps
    // a large component along `y_F`, which would move `yᵀα` off 0. Project it out (`y_F` is ±1,
    // so `‖y_F‖² = |F|`).
    let drift = yf.iter().zip(&delta).map(|(y, d)| y * d).sum::<f64>() / f as f64;
    delta.iter_mut().zip(&yf).for_each(|(d, y)| *d -= drift * y);
    let slope: f64 = gf.iter().zip(&delta).map(|(g, d)| g * d).sum();
    if slope.is_nan() || slope >= 0.0 || delta.iter().any(|d| !d.is_finite()) {
        return None;
    }
    let curvature: f64 = (0..f).map(|i| delta[i] * (0..f).map(|j| q[free[i] * n0 + free[j]] * delta[j]).sum::<f64>()).sum();
    let mut step = if curvature > 0.0 { -slope / curvature } else { f64::INFINITY };
    let mut limit = None;
    for (k, &a) in free.iter().enumerate() {
        let room = if delta[k] > 0.0 {
            (c - al[a]) / delta[k]
        } else if delta[k] < 0.0 {
            al[a] / -delta[k]
        } else {
            f64::INFINITY
        };
        if room < step {
            step = room;
            limit = Some(k);
        }
    }
    (step.is_finite() && step >= 0.0).then_some((delta, step, limit))
}

/// In-place Cholesky `A = L Lᵀ` of a row-major `n × n` matrix (lower triangle); false when A is
/// not numerically positive definite.
fn cholesky(a: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    true
}

/// Solves `L Lᵀ x = b` with the factor from [`cholesky`].
fn cholesky_solve(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    let mut x = b.to_vec();
    for i in 0..n {
        for k in 0..i {
            x[i] -= l[i * n + k] * x[k];
        }
        x[i] /= l[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            x[i] -= l[k * n + i] * x[k];
        }
        x[i] /= l[i * n + i];
    }
    x
}
