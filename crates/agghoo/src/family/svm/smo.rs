//! SMO for LIBSVM's dual form (Fan, Chen & Lin 2005, "Working set selection using second order
//! information for training SVM", JMLR 6):
//!
//! ```text
//! min_α  f(α) = ½ αᵀ Q α + pᵀ α   subject to  yᵀ α = 0,  0 ≤ α_t ≤ C_t,   Q_st = y_s y_t K(x_{r(s)}, x_{r(t)})
//! ```
//!
//! with a box bound per variable (`C_t = C w_t` for sample weights w, LIBSVM's weighted variant;
//! every `C_t = C` without weights). A variable with `C_t = 0` (a row of weight 0) stays at 0 and
//! takes no part in ρ, as if its row were absent.
//!
//! with `y_t ∈ {±1}` and `r(t)` the kernel row of variable t (C-SVC: `r(t) = t`; ε-SVR has 2n
//! variables `α⁺, α⁻` on the same n kernel rows: `r(t) = t mod n`).
//!
//! - Working set: `i = argmax_{t ∈ I_up} −y_t ∇f_t`, then `j` minimising the second-order
//!   decrease `−b²/a` over `I_low` (WSS 2 of the paper, as LIBSVM 2.8+), `a ≤ 0` replaced by
//!   τ = 1e-12.
//! - Stopping: `m(α) − M(α) < ε` (LIBSVM's `eps`, our `tol`, default 1e-3).
//! - Shrinking (LIBSVM's rule, more often): every `min(l, SHRINK_EVERY)` iterations (LIBSVM:
//!   `min(l, 1000)`) variables at a bound whose gradient says they will stay there leave the
//!   active set; when the gap first falls below 10ε everything is unshrunk once; at the end
//!   optimality is re-checked on all variables. Working-set selection reads the active set
//!   only, but the gradient is kept current on *every* variable (one branch-free pass per
//!   iteration over the two kernel rows), so neither unshrinking nor the final check rebuilds
//!   anything. LIBSVM instead updates the active gradient only and rebuilds the rest from
//!   `G_bar` (the bounded variables' part) plus the free variables' rows; with a path's short
//!   warm-started solves that rebuild would run at nearly every solve, and shrinking only
//!   pays off when it runs early (hence the shorter period).
//!   Unlike LIBSVM we keep an active *mask* instead of swapping variables (the kernel cache is
//!   shared by every grid point, so its row order must not change); the scans visit every
//!   variable in vector registers, the mask joining the bound tests.
//! - Newton steps (our addition): every `NEWTON_EVERY` iterations, an exact minimisation over
//!   the free variables with an active-set loop for the box (see `newton_step`); f never
//!   increases, feasibility is kept and the stopping rule is unchanged.
//! - Warm start: any feasible α with its gradient `G = Qα + p`.

use super::cache::KernelCache;
use crate::error::{Error, Result};

const TAU: f64 = 1e-12;
/// SMO iterations between two Newton steps on the free variables.
const NEWTON_EVERY: usize = 30;
/// A Newton step runs when it (its factorisation, `|F|³/6` multiply-adds, or with a kept factor
/// `NEWTON_KEPT_COST |F|²`) costs at most this many times the SMO iterations since the last step
/// (`l` each): on a large free set the steps are spaced out rather than skipped.
const NEWTON_COST: usize = 20;
/// A Newton step's cost, in units of `|F|²` multiply-adds, when the factor of the previous step
/// is kept: the update of the factor, a solve per blocked variable and a product with `Q_FF`.
const NEWTON_KEPT_COST: usize = 16;
/// Largest free set a Newton step runs on: its `Q_FF` (kept) and factor take `1.5 |F|²` numbers
/// (27 MB here), and its factorisation `|F|³/6` multiply-adds.
const NEWTON_MAX_FREE: usize = 1500;
/// SMO iterations between two shrinkings (LIBSVM: `min(l, 1000)`). The warm-started solves of a
/// path take tens to hundreds of iterations, a shrinking costs one pass over the active set and
/// unshrinking costs nothing (the gradient is current everywhere), so we shrink early and often.
const SHRINK_EVERY: usize = 10;
/// Ridge added to `Q_FF` in the Newton step (the Gaussian kernel matrix of close points is
/// numerically singular); the step stays a descent direction for any ridge.
const NEWTON_RIDGE: f64 = 1e-8;
/// Distance to a bound, relative to C, below which ρ counts a variable as at the bound.
const BOUND_SLACK: f64 = 1e-12;

/// A dual problem in LIBSVM's form (see the module doc).
pub(crate) struct Dual<'a> {
    /// Labels ±1.
    pub y: &'a [f64],
    /// Linear term.
    pub p: &'a [f64],
    /// ε-SVR's layout: 2n variables on the n kernel rows, variable t on row `t mod n`; otherwise
    /// (C-SVC) one variable per row, variable t on row t. Kernel rows have one entry per row.
    pub doubled: bool,
    /// The largest box bound (the scale of the tolerances, and the C of messages).
    pub c: f64,
    /// Box bound `C_t` of every variable (`c` for each without sample weights).
    pub upper: &'a [f64],
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
    /// The Newton steps' factor at the end of the solve: `Q` does not depend on C, so the next
    /// grid point's solve starts from it (see [`Dual::solve_from`]).
    pub newton: NewtonWork,
}

impl Dual<'_> {
    /// Number of kernel rows (and entries of a row).
    fn n_rows(&self) -> usize {
        if self.doubled { self.y.len() / 2 } else { self.y.len() }
    }
    /// The kernel row of variable t.
    #[inline]
    fn row(&self, t: usize) -> usize {
        let n = self.n_rows();
        if t >= n { t - n } else { t }
    }
    /// `G_t += Q_ti Δα_i + Q_tj Δα_j` on every variable, shrunk ones included, from the two kernel
    /// rows `ki`, `kj` and `di = y_i Δα_i`, `dj = y_j Δα_j`: `G_t += y_t (K_{r(t) i} di + K_{r(t) j} dj)`.
    /// Both layouts read the rows contiguously; ε-SVR computes the bracket once per kernel row and
    /// adds it to `α⁺`'s gradient, subtracts it from `α⁻`'s (`y = ∓1`, the same numbers bit for bit).
    #[inline(always)]
    fn add_to_gradient(&self, grad: &mut [f64], ki: &[f64], kj: &[f64], di: f64, dj: f64) {
        if self.doubled {
            let (plus, minus) = grad.split_at_mut(ki.len());
            for (((gp, gm), &a), &b) in plus.iter_mut().zip(minus.iter_mut()).zip(ki).zip(kj) {
                let u = a * di + b * dj;
                *gp += u;
                *gm -= u;
            }
        } else {
            for (((g, &yt), &a), &b) in grad.iter_mut().zip(self.y).zip(ki).zip(kj) {
                *g += yt * (a * di + b * dj);
            }
        }
    }
    /// The start at this C from `prev`, the solution at the box bounds `old` (`C_old w_t`; a feasible
    /// α and its gradient).
    ///
    /// First the scaled start of DeCoste & Wagstaff (2000): `α' = clip(r α)`, r = C/C_old,
    /// variables at the old bound set to exactly C, gradient `∇' = r (∇ − p) + p` (no kernel work;
    /// `yᵀα' = 0` and `0 ≤ α' ≤ C`). Scaling is right for the bounded variables but not for the
    /// free ones: for a fixed partition (free, at 0, at C) the optimal `α_F` is affine in C, and
    /// once no variable is at C (the hard-margin end of a wide C range) it does not move at all,
    /// while the scaled start multiplies it by r and leaves SMO thousands of iterations to undo
    /// that. So the start then moves along the direction `d` that takes each free variable back
    /// to its old value, the constraint repaired in proportion to the values
    /// (`d_t = (1 − r) α_t + y_t α_t κ`, `κ = (r − 1) Σ_F y α / Σ_F α`, so `yᵀd = 0`), by the exact
    /// line minimum of the dual clipped to the box (`|F|` kernel rows for `Qd`). The step is kept
    /// only when it descends and keeps `yᵀα` to rounding; either start is feasible, and the
    /// solver's stopping rule decides the answer.
    pub fn warm_start(&self, cache: &mut KernelCache, prev: &Solution, old: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let (c, y, p, upper) = (self.c, self.y, self.p, self.upper);
        // r = C/C_old: the ratio of the first positive bound (every variable's: the weights stay)
        let r = old.iter().zip(upper).find(|(o, _)| **o > 0.0).map_or(1.0, |(o, n)| n / o);
        let mut alpha: Vec<f64> = prev
            .alpha
            .iter()
            .zip(old.iter().zip(upper))
            .map(|(&a, (&c_old, &c_new))| if a >= c_old { c_new } else { (a * r).clamp(0.0, c_new) })
            .collect();
        let mut grad: Vec<f64> = prev.grad.iter().zip(p).map(|(g, p)| r * (g - p) + p).collect();
        let free: Vec<usize> = (0..y.len()).filter(|&t| prev.alpha[t] > 0.0 && prev.alpha[t] < old[t]).collect();
        let total: f64 = free.iter().map(|&t| prev.alpha[t]).sum();
        if free.is_empty() {
            return (alpha, grad);
        }
        let kappa = (r - 1.0) * free.iter().map(|&t| y[t] * prev.alpha[t]).sum::<f64>() / total;
        let d: Vec<f64> = free.iter().map(|&t| prev.alpha[t] * ((1.0 - r) + y[t] * kappa)).collect();
        // Qd on every variable, two kernel rows per pass
        let mut qd = vec![0.0; y.len()];
        for (vars, dv) in free.chunks(2).zip(d.chunks(2)) {
            let (ta, da) = (vars[0], y[vars[0]] * dv[0]);
            let (tb, db) = if vars.len() == 2 { (vars[1], y[vars[1]] * dv[1]) } else { (ta, 0.0) };
            let (ha, hb) = (cache.load(self.row(ta)), cache.load(self.row(tb)));
            self.add_to_gradient(&mut qd, cache.row(ha), cache.row(hb), da, db);
        }
        let slope: f64 = free.iter().zip(&d).map(|(&t, d)| grad[t] * d).sum();
        let curvature: f64 = free.iter().zip(&d).map(|(&t, d)| qd[t] * d).sum();
        if !(slope < 0.0 && curvature > 0.0) {
            return (alpha, grad);
        }
        let (mut theta, mut block) = (-slope / curvature, None);
        for (k, (&t, &dk)) in free.iter().zip(&d).enumerate() {
            let room = if dk > 0.0 {
                (upper[t] - alpha[t]) / dk
            } else if dk < 0.0 {
                alpha[t] / -dk
            } else {
                f64::INFINITY
            };
            if room < theta {
                (theta, block) = (room, Some(k));
            }
        }
        if !(theta > 0.0 && theta.is_finite()) {
            return (alpha, grad);
        }
        let moved: Vec<f64> = free
            .iter()
            .zip(&d)
            .enumerate()
            .map(
                |(k, (&t, &dk))| {
                    if block == Some(k) { if dk > 0.0 { upper[t] } else { 0.0 } } else { (alpha[t] + theta * dk).clamp(0.0, upper[t]) }
                },
            )
            .collect();
        let drift: f64 = free.iter().zip(&moved).map(|(&t, a)| y[t] * (a - alpha[t])).sum();
        let size: f64 = free.iter().zip(&moved).map(|(&t, a)| (a - alpha[t]).abs()).sum();
        // d is tiny when every free variable has the same label (then `κ = ±(r − 1)`): a long step
        // along rounding noise would move `yᵀα`
        if drift.abs() > 1e-12 * (size + c) {
            return (alpha, grad);
        }
        free.iter().zip(&moved).for_each(|(&t, &a)| alpha[t] = a);
        grad.iter_mut().zip(&qd).for_each(|(g, q)| *g += theta * q);
        (alpha, grad)
    }
    fn lower(a: f64) -> bool {
        a <= 0.0
    }

    /// Solves from `alpha` (feasible: `yᵀα = 0`, `0 ≤ α ≤ C`) with gradient `grad = Qα + p`.
    ///
    /// # Errors
    /// [`Error::Numerical`] when the iteration cap `max(10⁷, 100 l)` (LIBSVM's) is reached.
    pub fn solve(&self, cache: &mut KernelCache, alpha: Vec<f64>, grad: Vec<f64>) -> Result<Solution> {
        self.solve_from(cache, alpha, grad, NewtonWork::default())
    }

    /// [`Dual::solve`] with the Newton steps' factor of an earlier solve of the same problem (a
    /// path's previous grid point, [`Solution::newton`]): its first Newton step updates that
    /// factor for the variables that left or joined the free set instead of factorising `Q_FF`
    /// from scratch (at large C the free set barely changes from one grid point to the next).
    ///
    /// # Errors
    /// As [`Dual::solve`].
    pub fn solve_from(&self, cache: &mut KernelCache, alpha: Vec<f64>, grad: Vec<f64>, newton: NewtonWork) -> Result<Solution> {
        pulp::Arch::new().dispatch(SolveOp { dual: self, cache, alpha, grad, newton })
    }

    /// [`Dual::solve`] compiled for the baseline instruction set only (the tests compare it with
    /// the dispatched copy bit for bit).
    #[cfg(test)]
    pub fn solve_baseline(&self, cache: &mut KernelCache, alpha: Vec<f64>, grad: Vec<f64>) -> Result<Solution> {
        self.solve_inlined(pulp::Scalar::new(), cache, alpha, grad, NewtonWork::default())
    }

    /// The body of [`Dual::solve`], inlined into [`SolveOp::with_simd`] (and, with it, every
    /// loop it calls) so that it is compiled for the instruction set `pulp` dispatches to.
    #[inline(always)]
    fn solve_inlined<S: pulp::Simd>(
        &self,
        simd: S,
        cache: &mut KernelCache,
        mut alpha: Vec<f64>,
        mut grad: Vec<f64>,
        mut newton: NewtonWork,
    ) -> Result<Solution> {
        let l = self.y.len();
        let y = self.y;
        let mut active = Active::all(l);
        let mut unshrunk = false;
        let max_iter = 10_000_000usize.max(100 * l);
        let shrink_every = l.clamp(1, SHRINK_EVERY);
        let mut counter = shrink_every;
        let mut iter = 0;
        let mut last_newton = 0;
        loop {
            if self.shrinking {
                counter -= 1;
                if counter == 0 {
                    counter = shrink_every;
                    self.shrink(simd, &alpha, &grad, &mut active, &mut unshrunk);
                }
            }
            let Some((i, j)) = self.select(simd, cache, &alpha, &grad, &active) else {
                if active.count == l {
                    break;
                }
                // optimal on the active set: the gradient is current everywhere, re-check on all
                active = Active::all(l);
                match self.select(simd, cache, &alpha, &grad, &active) {
                    None => break,
                    Some(_) => {
                        counter = 1; // shrink again at the next iteration, as LIBSVM
                        continue;
                    }
                }
            };
            iter += 1;
            if iter > max_iter {
                return Err(Error::Numerical(format!(
                    "SMO did not converge within {max_iter} iterations (C = {}); standardise the features (--standardize) or raise tol",
                    self.c
                )));
            }
            let hi = cache.load(self.row(i));
            let hj = cache.load(self.row(j));
            let (ki, kj) = (cache.row(hi), cache.row(hj));
            let qij = y[i] * y[j] * ki[self.row(j)];
            let (old_i, old_j) = (alpha[i], alpha[j]);
            let (ci, cj) = (self.upper[i], self.upper[j]);
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
                if diff > ci - cj {
                    if alpha[i] > ci {
                        alpha[i] = ci;
                        alpha[j] = ci - diff;
                    }
                } else if alpha[j] > cj {
                    alpha[j] = cj;
                    alpha[i] = cj + diff;
                }
            } else {
                let quad = (2.0 - 2.0 * qij).max(TAU);
                let delta = (grad[i] - grad[j]) / quad;
                let sum = alpha[i] + alpha[j];
                alpha[i] -= delta;
                alpha[j] += delta;
                if sum > ci {
                    if alpha[i] > ci {
                        alpha[i] = ci;
                        alpha[j] = sum - ci;
                    }
                } else if alpha[j] < 0.0 {
                    alpha[j] = 0.0;
                    alpha[i] = sum;
                }
                if sum > cj {
                    if alpha[j] > cj {
                        alpha[j] = cj;
                        alpha[i] = sum - cj;
                    }
                } else if alpha[i] < 0.0 {
                    alpha[i] = 0.0;
                    alpha[j] = sum;
                }
            }
            // the gradient of every variable, shrunk ones included (unshrinking and the final
            // check then have nothing to rebuild)
            self.add_to_gradient(&mut grad, ki, kj, y[i] * (alpha[i] - old_i), y[j] * (alpha[j] - old_j));
            if iter % NEWTON_EVERY == 0 {
                let since = iter - last_newton;
                if self.newton_step(cache, &mut alpha, &mut grad, &active, &mut newton, since) {
                    last_newton = iter;
                }
            }
        }
        let rho = self.rho(&alpha, &grad);
        let objective = 0.5 * alpha.iter().zip(&grad).zip(self.p).map(|((a, g), p)| a * (g + p)).sum::<f64>();
        Ok(Solution { alpha, grad, rho, objective, iterations: iter, newton })
    }

    /// A Newton step on the free variables F (`0 < α_t < C`) with the others fixed: the
    /// minimiser of f on `{α_F : y_Fᵀ α_F = const}` is `α_F + Δ` with
    /// `(Q_FF + μI) Δ = ρ y_F − G_F`, `ρ = y_Fᵀ A⁻¹ G_F / y_Fᵀ A⁻¹ y_F` (A = Q_FF + μI), which
    /// keeps `yᵀα` and is a descent direction (Cauchy–Schwarz in the A⁻¹ inner product). The step
    /// length is the exact line minimum of the true quadratic, clipped to the box, so f never
    /// increases and feasibility is kept; a variable that blocks the step is fixed at its bound
    /// and the step repeated towards the minimiser with the blocked variables fixed
    /// ([`BlockedNewton`]: one solve of `O(|F|²)` per blocked variable with the factor of A on
    /// all of F, which a step never updates; the next step's sync removes the blocked variables
    /// still at their bound). Deferred (false returned) while the step (a factorisation,
    /// `|F|³/6`, or with a kept factor `NEWTON_KEPT_COST |F|²`) would cost more than
    /// `NEWTON_COST` times the `since` SMO iterations since the last step; true when it ran
    /// (whether or not the step was kept). This is our addition to LIBSVM's SMO: on
    /// ill-conditioned kernels (1-D data, large C) and on large free sets
    /// (overlapping classes at large C) SMO zig-zags for thousands of pair updates inside a free
    /// set that a few Newton steps settle; the stopping rule is unchanged.
    #[inline(always)]
    fn newton_step(
        &self,
        cache: &mut KernelCache,
        alpha: &mut [f64],
        grad: &mut [f64],
        active: &Active,
        work: &mut NewtonWork,
        since: usize,
    ) -> bool {
        let (y, upper, c) = (self.y, self.upper, self.c);
        let l = y.len();
        let n0 = (0..l).filter(|&t| active.has(t) && alpha[t] > 0.0 && alpha[t] < upper[t]).count();
        // six times the step's cost: its factorisation (`|F|³/6`), or, when the factor of the
        // previous step is kept (and updated for the few variables SMO moved in or out of F),
        // its solves and products (`NEWTON_KEPT_COST |F|²`)
        let cost6 = if work.kept() { (n0 * n0 * n0).min(6 * NEWTON_KEPT_COST * n0 * n0) } else { n0 * n0 * n0 };
        if !(2..=NEWTON_MAX_FREE).contains(&n0) || cost6 > 6 * NEWTON_COST * since * l {
            return false;
        }
        if !work.sync(self, cache, alpha, active) {
            return true;
        }
        let vars = &work.vars;
        let n0 = vars.len();
        let (qf, stride, chol) = (&work.qf, work.stride, &work.chol);
        let al0: Vec<f64> = vars.iter().map(|&t| alpha[t]).collect();
        let g0: Vec<f64> = vars.iter().map(|&t| grad[t]).collect();
        let mut al = al0.clone();
        // active-set loop: a step blocked by the box fixes the blocking variable at its bound.
        // Each pass goes to the minimiser of the model from α₀ with the fixed variables at their
        // bounds (the range-space form, see `BlockedNewton`): one solve with the factor of all
        // of F per blocked variable, no update of the factor inside the step (the next step's
        // `sync` removes the variables still at their bound then; many re-enter the free set
        // during the SMO iterations in between).
        let Some(mut model) = BlockedNewton::new(chol, vars, y, &g0) else { return true };
        // `gq = Q (al − al₀)` on F: the gradient at `al` is `g₀ + gq`
        let mut gq = vec![0.0; n0];
        let mut d = vec![0.0; n0];
        let mut qd = vec![0.0; n0];
        while n0 - model.fixed.len() >= 2 {
            let Some((target, a_target)) = model.minimiser(&al0, &g0) else { break };
            for a in 0..n0 {
                d[a] = if model.is_fixed[a] { 0.0 } else { target[a] - al[a] };
            }
            let slope: f64 = (0..n0).map(|a| (g0[a] + gq[a]) * d[a]).sum();
            if slope.is_nan() || slope >= 0.0 {
                break;
            }
            match &a_target {
                // `A d = A (target − α₀) − A (al − α₀)` and `Q = A − μI`: no product with `Q_FF`
                Some(r) => {
                    for a in 0..n0 {
                        qd[a] = r[a] - (gq[a] + NEWTON_RIDGE * (al[a] - al0[a])) - NEWTON_RIDGE * d[a];
                    }
                }
                None => {
                    for (a, qa) in qd.iter_mut().enumerate() {
                        *qa = dot(&qf[a * stride..a * stride + n0], &d);
                    }
                }
            }
            let curvature = dot(&d, &qd);
            let mut step = if curvature > 0.0 { -slope / curvature } else { f64::INFINITY };
            let mut limit = None;
            for a in (0..n0).filter(|&a| !model.is_fixed[a]) {
                let room = if d[a] > 0.0 {
                    (upper[vars[a]] - al[a]) / d[a]
                } else if d[a] < 0.0 {
                    al[a] / -d[a]
                } else {
                    f64::INFINITY
                };
                if room < step {
                    step = room;
                    limit = Some(a);
                }
            }
            if !(step.is_finite() && step >= 0.0) {
                break;
            }
            for a in (0..n0).filter(|&a| !model.is_fixed[a]) {
                let c = upper[vars[a]];
                al[a] = if Some(a) == limit { if d[a] > 0.0 { c } else { 0.0 } } else { (al[a] + step * d[a]).clamp(0.0, c) };
            }
            gq.iter_mut().zip(&qd).for_each(|(g, q)| *g += step * q);
            match limit {
                Some(a) if model.fix(chol, a, al[a] - al0[a]) => {}
                _ => break,
            }
        }
        // the gradient at the end point on F, exactly (one product with `Q_FF`)
        let moved: Vec<f64> = al.iter().zip(&al0).map(|(a, b)| a - b).collect();
        let g: Vec<f64> = (0..n0).map(|a| g0[a] + dot(&qf[a * stride..a * stride + n0], &moved)).collect();
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
            return true;
        }
        // G += Q_{·,t} Δα_t over the moved variables, two kernel rows per pass over G
        let mut moved: Vec<(usize, f64)> = Vec::with_capacity(vars.len());
        for (a, &t) in vars.iter().enumerate() {
            let d = y[t] * (al[a] - alpha[t]);
            alpha[t] = al[a];
            if d != 0.0 {
                moved.push((self.row(t), d));
            }
        }
        for pair in moved.chunks(2) {
            let (ra, da) = pair[0];
            let (rb, db) = pair.get(1).copied().unwrap_or((ra, 0.0));
            let (ha, hb) = (cache.load(ra), cache.load(rb));
            self.add_to_gradient(grad, cache.row(ha), cache.row(hb), da, db);
        }
        true
    }

    /// WSS 2 over the active variables; `None` when the gap `m − M` is below `tol` (or no pair
    /// improves).
    ///
    /// Written without data-dependent branches (the loops run once per SMO iteration and the
    /// bound pattern is unpredictable): every variable is visited in increasing order and the
    /// active mask joins the bound tests, and the scans run in vector registers ([`scan_up`],
    /// [`scan_low`]). With `y_t = ±1`, `−y_t G_t` is I_up's value, `y_t G_t`
    /// I_low's, and the second-order denominator `Q_ii + Q_tt − 2 y_i y_t Q_it` is `2 − 2 K_it`
    /// for either sign; the same numbers as LIBSVM's branches, bit for bit. Each scan keeps
    /// independent running extrema per vector lane, and [`VecBest::best`] merges them into exactly
    /// what the sequential loop over the active variables picks: LIBSVM's `>=` / `<=` make it the
    /// *last* extremal variable, the largest index among the lanes' extremal ones.
    #[inline(always)]
    fn select<S: pulp::Simd>(
        &self,
        simd: S,
        cache: &mut KernelCache,
        alpha: &[f64],
        grad: &[f64],
        active: &Active,
    ) -> Option<(usize, usize)> {
        let (y, upper, mask) = (self.y, self.upper, &active.mask[..]);
        let (gmax, i) = scan_up(simd, y, alpha, grad, mask, upper)?;
        let hi = cache.load(self.row(i));
        let ki = cache.row(hi);
        let mut low_max = (simd.splat_f64s(f64::NEG_INFINITY), f64::NEG_INFINITY);
        let mut obj_min = VecBest::new(simd, f64::INFINITY);
        // kernel row entry of variable t: `ki[t]` (C-SVC), `ki[t mod n]` (ε-SVR: two halves)
        let n = ki.len();
        for start in (0..y.len()).step_by(n.max(1)) {
            let r = start..start + n;
            scan_low(
                simd,
                &mut obj_min,
                &mut low_max,
                (&y[r.clone()], &alpha[r.clone()], &grad[r.clone()], &mask[r.clone()]),
                ki,
                &upper[r],
                gmax,
                start,
            );
        }
        let mut lanes = [f64::NEG_INFINITY; 8];
        simd.partial_store_f64s(&mut lanes[..S::F64_LANES], low_max.0);
        let gmax2 = lane_max(&lanes).max(low_max.1);
        let (_, j) = obj_min.best(simd, |v, best| v < best)?;
        if gmax + gmax2 < self.tol {
            return None;
        }
        Some((i, j))
    }

    /// LIBSVM's shrinking: drops from the active set the variables at a bound whose gradient says
    /// they will stay there; the first time the gap falls below `10 tol` everything is unshrunk
    /// once. The gradient is kept current on every variable, so unshrinking rebuilds nothing.
    #[inline(always)]
    fn shrink<S: pulp::Simd>(&self, simd: S, alpha: &[f64], grad: &[f64], active: &mut Active, unshrunk: &mut bool) {
        let (y, upper) = (self.y, self.upper);
        // the largest −y G over the active I_up (g1) and y G over the active I_low (g2)
        let (g1, g2) = bound_maxima(simd, y, alpha, grad, &active.mask, upper);
        if !*unshrunk && g1 + g2 <= self.tol * 10.0 {
            *unshrunk = true;
            *active = Active::all(y.len());
        }
        for (((m, &yt), &c), (&a, &g)) in active.mask.iter_mut().zip(y).zip(upper).zip(alpha.iter().zip(grad)) {
            let pos = yt > 0.0;
            let (at_upper, at_lower) = (a >= c, Self::lower(a));
            let out_upper = at_upper & (-g > if pos { g1 } else { g2 });
            let out_lower = !at_upper & at_lower & (g > if pos { g2 } else { g1 });
            *m = if out_upper | out_lower { 0.0 } else { *m };
        }
        active.count = active.mask.iter().filter(|&&m| m != 0.0).count();
    }

    /// LIBSVM's ρ: the mean of `y_t G_t` over free variables, else the midpoint of the bounds.
    /// A variable with `C_t = 0` (weight 0) takes no part, as if its row were absent.
    /// A variable within [`BOUND_SLACK`]` · C_t` of a bound counts as at that bound: the pair
    /// updates leave rounding residues (`sum − C`, `r α` of a warm start) that would otherwise
    /// make a variable "free" on one run and not on another, and ρ jump from the midpoint of the
    /// optimal range to one of its ends — so a path's warm-started solve and a cold fit of the
    /// same C, with the same α, would not get the same intercept.
    #[inline(always)]
    fn rho(&self, alpha: &[f64], grad: &[f64]) -> f64 {
        let (mut ub, mut lb, mut sum, mut free) = (f64::INFINITY, f64::NEG_INFINITY, 0.0, 0usize);
        for t in 0..alpha.len() {
            let c = self.upper[t];
            if c == 0.0 {
                continue;
            }
            let slack = BOUND_SLACK * c;
            let yg = self.y[t] * grad[t];
            let pos = self.y[t] > 0.0;
            if alpha[t] >= c - slack {
                if pos { lb = lb.max(yg) } else { ub = ub.min(yg) }
            } else if alpha[t] <= slack {
                if pos { ub = ub.min(yg) } else { lb = lb.max(yg) }
            } else {
                free += 1;
                sum += yg;
            }
        }
        if free > 0 { sum / free as f64 } else { (ub + lb) / 2.0 }
    }
}

/// The active (not shrunk) variables: `mask[t]` is 1 for an active variable, 0 for a shrunk one
/// (an `f64` so that the scans test it in the same vector registers as the values), `count` the
/// number of active variables.
struct Active {
    mask: Vec<f64>,
    count: usize,
}

impl Active {
    /// Every one of `l` variables active.
    fn all(l: usize) -> Self {
        Self { mask: vec![1.0; l], count: l }
    }
    /// Whether variable t is active.
    #[inline(always)]
    fn has(&self, t: usize) -> bool {
        self.mask[t] != 0.0
    }
}

/// The solver compiled for the instruction set `pulp` finds at run time (AVX2 where the
/// processor has it, else the baseline): the same operations in the same order on every path,
/// hence the same bits (Rust never fuses a multiplication and an addition on its own).
struct SolveOp<'a, 'd> {
    dual: &'a Dual<'d>,
    cache: &'a mut KernelCache,
    alpha: Vec<f64>,
    grad: Vec<f64>,
    newton: NewtonWork,
}

impl pulp::WithSimd for SolveOp<'_, '_> {
    type Output = Result<Solution>;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) -> Self::Output {
        self.dual.solve_inlined(simd, self.cache, self.alpha, self.grad, self.newton)
    }
}

/// The largest entry (−∞ for none).
#[inline(always)]
fn lane_max(lanes: &[f64]) -> f64 {
    let mut m = f64::NEG_INFINITY;
    for &v in lanes {
        m = if v > m { v } else { m };
    }
    m
}

/// The largest `−y_t G_t` over the active variables of I_up and the largest `y_t G_t` over those
/// of I_low (−∞ for an empty set), in vector registers (a maximum does not depend on the order).
#[inline(always)]
fn bound_maxima<S: pulp::Simd>(simd: S, y: &[f64], alpha: &[f64], grad: &[f64], mask: &[f64], upper: &[f64]) -> (f64, f64) {
    let ((yv, yr), (av, ar), (gv, gr), (mv, mr), (uv, ur)) =
        (S::as_simd_f64s(y), S::as_simd_f64s(alpha), S::as_simd_f64s(grad), S::as_simd_f64s(mask), S::as_simd_f64s(upper));
    let zero = simd.splat_f64s(0.0);
    let (mut g1v, mut g2v) = (simd.splat_f64s(f64::NEG_INFINITY), simd.splat_f64s(f64::NEG_INFINITY));
    for ((((&y, &a), &g), &m), &cv) in yv.iter().zip(av).zip(gv).zip(mv).zip(uv) {
        let pos = simd.greater_than_f64s(y, zero);
        let (below, above) = (simd.less_than_f64s(a, cv), simd.greater_than_f64s(a, zero));
        let act = simd.not_m64s(simd.equal_f64s(m, zero));
        let up = simd.and_m64s(act, simd.or_m64s(simd.and_m64s(pos, below), simd.and_m64s(simd.not_m64s(pos), above)));
        let low = simd.and_m64s(act, simd.or_m64s(simd.and_m64s(pos, above), simd.and_m64s(simd.not_m64s(pos), below)));
        let yg = simd.mul_f64s(y, g);
        let nyg = simd.neg_f64s(yg);
        g1v = simd.select_f64s(simd.and_m64s(up, simd.greater_than_f64s(nyg, g1v)), nyg, g1v);
        g2v = simd.select_f64s(simd.and_m64s(low, simd.greater_than_f64s(yg, g2v)), yg, g2v);
    }
    let (mut l1, mut l2) = ([f64::NEG_INFINITY; 8], [f64::NEG_INFINITY; 8]);
    simd.partial_store_f64s(&mut l1[..S::F64_LANES], g1v);
    simd.partial_store_f64s(&mut l2[..S::F64_LANES], g2v);
    let (mut g1, mut g2) = (lane_max(&l1), lane_max(&l2));
    for ((((&y, &a), &g), &m), &c) in yr.iter().zip(ar).zip(gr).zip(mr).zip(ur) {
        let (pos, active) = (y > 0.0, m != 0.0);
        let yg = y * g;
        if active & ((pos & (a < c)) | (!pos & (a > 0.0))) & (-yg > g1) {
            g1 = -yg;
        }
        if active & ((pos & (a > 0.0)) | (!pos & (a < c))) & (yg > g2) {
            g2 = yg;
        }
    }
    (g1, g2)
}

/// The running extrema of a scan in vector registers: two accumulators of `S::F64_LANES` lanes
/// (vector k of the scan goes to accumulator `k mod 2`, so two comparison chains run at once),
/// each lane the extremal value it has seen and the variable holding it (as `f64`, exact below
/// 2⁵³; −1: none). Every lane sees increasing indices and keeps its *last* extremal one, so
/// [`VecBest::best`] recovers exactly what one sequential `>=` / `<=` loop returns.
struct VecBest<S: pulp::Simd> {
    value: [S::f64s; 2],
    index: [S::f64s; 2],
    /// The variables after the last whole vector, visited one by one.
    tail: (f64, f64),
}

/// `0, 1, …`: the first indices of a vector's lanes.
const IOTA: [f64; 16] = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0];

impl<S: pulp::Simd> VecBest<S> {
    #[inline(always)]
    fn new(simd: S, start: f64) -> Self {
        Self { value: [simd.splat_f64s(start); 2], index: [simd.splat_f64s(-1.0); 2], tail: (start, -1.0) }
    }
    /// The extremum over the lanes that hold a variable (`better(v, w)`: v is strictly more
    /// extreme than w), ties to the largest index: the last extremal variable of an increasing
    /// scan. `None` when no lane holds one.
    #[inline(always)]
    fn best(&self, simd: S, better: impl Fn(f64, f64) -> bool) -> Option<(f64, usize)> {
        let n = S::F64_LANES;
        let (mut values, mut indices) = ([0.0; 16], [-1.0; 16]);
        for a in 0..2 {
            simd.partial_store_f64s(&mut values[a * n..(a + 1) * n], self.value[a]);
            simd.partial_store_f64s(&mut indices[a * n..(a + 1) * n], self.index[a]);
        }
        let slots = values[..2 * n].iter().zip(&indices[..2 * n]).map(|(&v, &t)| (v, t)).chain(std::iter::once(self.tail));
        let mut best: Option<(f64, usize)> = None;
        for (v, t) in slots {
            if t < 0.0 {
                continue;
            }
            let t = t as usize;
            best = match best {
                Some((w, s)) if !(better(v, w) || (v == w && t > s)) => Some((w, s)),
                _ => Some((v, t)),
            };
        }
        best
    }
}

/// The first scan of WSS 2 (every variable, in increasing order; `mask` the active set): the
/// largest `−y_t G_t` over the active variables of I_up (`y = +1` below `C_t`, or `y = −1` above 0),
/// ties to the last (LIBSVM's `>=`). `None` when I_up has no active variable.
#[inline(always)]
fn scan_up<S: pulp::Simd>(simd: S, y: &[f64], alpha: &[f64], grad: &[f64], mask: &[f64], upper: &[f64]) -> Option<(f64, usize)> {
    let n = S::F64_LANES;
    let ((yv, yr), (av, ar), (gv, gr), (mv, mr), (uv, ur)) =
        (S::as_simd_f64s(y), S::as_simd_f64s(alpha), S::as_simd_f64s(grad), S::as_simd_f64s(mask), S::as_simd_f64s(upper));
    let zero = simd.splat_f64s(0.0);
    let mut acc = VecBest::new(simd, f64::NEG_INFINITY);
    let at = [simd.partial_load_f64s(&IOTA[..n]), simd.partial_load_f64s(&IOTA[n..2 * n])];
    let step = simd.splat_f64s((2 * n) as f64);
    // a macro rather than a closure: a closure would not be compiled with the dispatched
    // instruction set
    macro_rules! visit {
        ($value:ident, $index:ident, $at:ident, $k:expr) => {{
            let (value, index, at, k) = (&mut $value, &mut $index, &mut $at, $k);
            let (y, a, g, m, cv) = (yv[k], av[k], gv[k], mv[k], uv[k]);
            let pos = simd.greater_than_f64s(y, zero);
            let room = simd.or_m64s(
                simd.and_m64s(pos, simd.less_than_f64s(a, cv)),
                simd.and_m64s(simd.not_m64s(pos), simd.greater_than_f64s(a, zero)),
            );
            let up = simd.and_m64s(simd.not_m64s(simd.equal_f64s(m, zero)), room);
            let v = simd.mul_f64s(simd.neg_f64s(y), g);
            let take = simd.and_m64s(up, simd.greater_than_or_equal_f64s(v, *value));
            *value = simd.select_f64s(take, v, *value);
            *index = simd.select_f64s(take, *at, *index);
            *at = simd.add_f64s(*at, step);
        }};
    }
    // two accumulators in registers (vector k to accumulator k mod 2)
    let ([mut v0, mut v1], [mut i0, mut i1], [mut at0, mut at1]) = (acc.value, acc.index, at);
    let len = yv.len().min(av.len()).min(gv.len()).min(mv.len()).min(uv.len());
    for k in (0..len / 2).map(|k| 2 * k) {
        visit!(v0, i0, at0, k);
        visit!(v1, i1, at1, k + 1);
    }
    if len % 2 == 1 {
        visit!(v0, i0, at0, len - 1);
    }
    (acc.value, acc.index) = ([v0, v1], [i0, i1]);
    let whole = yv.len() * n;
    for (t, ((((&y, &a), &g), &m), &c)) in (whole..).zip(yr.iter().zip(ar).zip(gr).zip(mr).zip(ur)) {
        let pos = y > 0.0;
        let up = (m != 0.0) & ((pos & (a < c)) | (!pos & (a > 0.0)));
        let v = -y * g;
        if up & (v >= acc.tail.0) {
            acc.tail = (v, t as f64);
        }
    }
    acc.best(simd, |v, best| v > best)
}

/// The second scan of WSS 2 over variables `base..base + y.len()` (`vars` = their `y`, `α`, `G`,
/// active mask; `ki[k]` the kernel entry of the k-th of them against variable i; `upper` their
/// box bounds), in increasing order: over the active variables of I_low (`y = +1` above 0, or
/// `y = −1` below `C_t`), the largest
/// `y_t G_t` into `low_max`, and into `acc` the smallest second-order value
/// `−(gmax + y_t G_t)² / max(2 − 2 K_it, τ)` among those with `gmax + y_t G_t > 0`, ties to the
/// last (LIBSVM's `<=`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn scan_low<S: pulp::Simd>(
    simd: S,
    acc: &mut VecBest<S>,
    low_max: &mut (S::f64s, f64),
    vars: (&[f64], &[f64], &[f64], &[f64]),
    ki: &[f64],
    upper: &[f64],
    gmax: f64,
    base: usize,
) {
    let n = S::F64_LANES;
    let (y, alpha, grad, mask) = vars;
    let ((yv, yr), (av, ar), (gv, gr), (mv, mr), (kv, kr)) =
        (S::as_simd_f64s(y), S::as_simd_f64s(alpha), S::as_simd_f64s(grad), S::as_simd_f64s(mask), S::as_simd_f64s(ki));
    let (uv, ur) = S::as_simd_f64s(upper);
    let (zero, two, tau, gm) = (simd.splat_f64s(0.0), simd.splat_f64s(2.0), simd.splat_f64s(TAU), simd.splat_f64s(gmax));
    let b = base as f64;
    let at = [
        simd.add_f64s(simd.partial_load_f64s(&IOTA[..n]), simd.splat_f64s(b)),
        simd.add_f64s(simd.partial_load_f64s(&IOTA[n..2 * n]), simd.splat_f64s(b)),
    ];
    let step = simd.splat_f64s((2 * n) as f64);
    // a macro rather than a closure (see `scan_up`)
    macro_rules! visit {
        ($value:ident, $index:ident, $top:ident, $at:ident, $k:expr) => {{
            let (value, index, top, at, k) = (&mut $value, &mut $index, &mut $top, &mut $at, $k);
            let (y, a, g, m, kit, cv) = (yv[k], av[k], gv[k], mv[k], kv[k], uv[k]);
            let pos = simd.greater_than_f64s(y, zero);
            let room = simd.or_m64s(
                simd.and_m64s(pos, simd.greater_than_f64s(a, zero)),
                simd.and_m64s(simd.not_m64s(pos), simd.less_than_f64s(a, cv)),
            );
            let low = simd.and_m64s(simd.not_m64s(simd.equal_f64s(m, zero)), room);
            let yg = simd.mul_f64s(y, g);
            *top = simd.select_f64s(simd.and_m64s(low, simd.greater_than_f64s(yg, *top)), yg, *top);
            let grad_diff = simd.add_f64s(gm, yg);
            let quad = simd.sub_f64s(two, simd.mul_f64s(two, kit));
            let quad = simd.select_f64s(simd.greater_than_f64s(quad, tau), quad, tau);
            let obj = simd.div_f64s(simd.neg_f64s(simd.mul_f64s(grad_diff, grad_diff)), quad);
            let take =
                simd.and_m64s(simd.and_m64s(low, simd.greater_than_f64s(grad_diff, zero)), simd.less_than_or_equal_f64s(obj, *value));
            *value = simd.select_f64s(take, obj, *value);
            *index = simd.select_f64s(take, *at, *index);
            *at = simd.add_f64s(*at, step);
        }};
    }
    // two accumulators in registers (vector k to accumulator k mod 2); the maxima of y G too
    let ([mut v0, mut v1], [mut i0, mut i1], [mut at0, mut at1]) = (acc.value, acc.index, at);
    let (mut top0, mut top1) = (low_max.0, low_max.0);
    let len = yv.len().min(av.len()).min(gv.len()).min(mv.len()).min(kv.len()).min(uv.len());
    for k in (0..len / 2).map(|k| 2 * k) {
        visit!(v0, i0, top0, at0, k);
        visit!(v1, i1, top1, at1, k + 1);
    }
    if len % 2 == 1 {
        visit!(v0, i0, top0, at0, len - 1);
    }
    (acc.value, acc.index) = ([v0, v1], [i0, i1]);
    // a maximum does not depend on the order in which it is taken
    low_max.0 = simd.select_f64s(simd.greater_than_f64s(top1, top0), top1, top0);
    let whole = yv.len() * n;
    for (t, (((((&y, &a), &g), &m), &kit), &c)) in (base + whole..).zip(yr.iter().zip(ar).zip(gr).zip(mr).zip(kr).zip(ur)) {
        let pos = y > 0.0;
        let low = (m != 0.0) & ((pos & (a > 0.0)) | (!pos & (a < c)));
        let yg = y * g;
        if low & (yg > low_max.1) {
            low_max.1 = yg;
        }
        let grad_diff = gmax + yg;
        let quad = 2.0 - 2.0 * kit;
        let obj = -(grad_diff * grad_diff) / if quad > TAU { quad } else { TAU };
        if low & (grad_diff > 0.0) & (obj <= acc.tail.0) {
            acc.tail = (obj, t as f64);
        }
    }
}

/// The Newton step's state: the Cholesky factor of `Q_FF + μI` for the variables `vars` (in the
/// factor's order) and `Q_FF` itself, kept from one step to the next (and from one grid point of a
/// path to the next: `Q` does not depend on C) and updated for the variables that left or joined
/// the free set (`O(|F|²)` each) instead of refactored (`O(|F|³)`) and gathered again from the
/// kernel rows (`|F|²` scattered reads): between two steps SMO changes the free set by a few
/// variables.
#[derive(Clone, Debug, Default)]
pub(crate) struct NewtonWork {
    vars: Vec<usize>,
    /// `Q_{vars[a], vars[b]}` at `a · stride + b` (`stride ≥ |vars|`, room to append).
    qf: Vec<f64>,
    stride: usize,
    /// Lower-triangular factor by rows (row i has i + 1 entries).
    chol: Vec<Vec<f64>>,
    /// Scratch: marks of the current free variables.
    mark: Vec<bool>,
}

impl NewtonWork {
    /// Whether a factor is kept for some variables (a step then updates it rather than
    /// factorising `Q_FF` from scratch, unless the free set changed too much).
    fn kept(&self) -> bool {
        !self.vars.is_empty() && self.chol.len() == self.vars.len()
    }

    /// Keeps the rows and columns `keep` (increasing positions into the old `vars`) of `Q_FF`, in
    /// place (each entry moves to a lower or equal position, in increasing order).
    fn keep_q(&mut self, keep: &[usize]) {
        let stride = self.stride;
        // the rows and columns before the first dropped one stay where they are
        let first = keep.iter().enumerate().position(|(r, &a)| r != a).unwrap_or(keep.len());
        for (r, &a) in keep.iter().enumerate() {
            let from = if r < first { first } else { 0 };
            for (c, &b) in keep.iter().enumerate().skip(from) {
                self.qf[r * stride + c] = self.qf[a * stride + b];
            }
        }
    }

    /// Appends variable t's row and column to `Q_FF`: `b` its entries against the current
    /// variables, `d` its diagonal entry (`vars` not yet extended).
    fn push_q(&mut self, b: &[f64], d: f64) {
        let n = b.len();
        if n + 1 > self.stride {
            let stride = (2 * self.stride).clamp(64, NEWTON_MAX_FREE).max(n + 1);
            let mut grown = vec![0.0; stride * stride];
            for a in 0..n {
                grown[a * stride..a * stride + n].copy_from_slice(&self.qf[a * self.stride..a * self.stride + n]);
            }
            (self.qf, self.stride) = (grown, stride);
        }
        let stride = self.stride;
        self.qf[n * stride..n * stride + n].copy_from_slice(b);
        for (a, &v) in b.iter().enumerate() {
            self.qf[a * stride + n] = v;
        }
        self.qf[n * stride + n] = d;
    }

    /// Brings the factor and `Q_FF` to the current free variables (among `active`): drops those
    /// no longer free, appends the new ones; refactors from scratch when the updates would cost
    /// more than about half a factorisation (a deletion `≈ 3 |F|²` operations, an append `|F|²`,
    /// a factorisation `|F|³ / 3` and `|F|²/2` scattered reads of kernel rows) or an update
    /// fails. False when `Q_FF + μI` is not numerically positive definite.
    #[inline(always)]
    fn sync(&mut self, dual: &Dual<'_>, cache: &mut KernelCache, alpha: &[f64], active: &Active) -> bool {
        let (y, upper) = (dual.y, dual.upper);
        self.mark.clear();
        self.mark.resize(y.len(), false);
        let mut now: Vec<usize> = (0..y.len()).filter(|&t| active.has(t) && alpha[t] > 0.0 && alpha[t] < upper[t]).collect();
        now.iter().for_each(|&t| self.mark[t] = true);
        let kept = self.vars.iter().filter(|&&t| self.mark[t]).count();
        let (dropped, added) = (self.vars.len() - kept, now.len() - kept);
        if self.chol.len() == self.vars.len() && 2 * (3 * dropped + added) <= now.len() {
            let keep: Vec<usize> = (0..self.vars.len()).filter(|&k| self.mark[self.vars[k]]).collect();
            for k in (0..self.vars.len()).rev() {
                if !self.mark[self.vars[k]] {
                    cholesky_delete(&mut self.chol, k);
                }
            }
            self.keep_q(&keep);
            self.vars = keep.iter().map(|&k| self.vars[k]).collect();
            self.vars.iter().for_each(|&t| self.mark[t] = false);
            let mut ok = true;
            let joined: Vec<usize> = now.iter().copied().filter(|&t| self.mark[t]).collect();
            for t in joined {
                let h = cache.load(dual.row(t));
                let kr = cache.row(h);
                let b: Vec<f64> = self.vars.iter().map(|&s| y[s] * y[t] * kr[dual.row(s)]).collect();
                let d = kr[dual.row(t)];
                if !cholesky_append(&mut self.chol, &b, d + NEWTON_RIDGE) {
                    ok = false;
                    break;
                }
                self.push_q(&b, d);
                self.vars.push(t);
            }
            if ok {
                return true;
            }
            now.sort_unstable();
        }
        // from scratch
        let n = now.len();
        self.vars = now;
        self.stride = n.max(64);
        self.qf.clear();
        self.qf.resize(self.stride * self.stride, 0.0);
        self.chol.clear();
        for (a, &ta) in self.vars.iter().enumerate() {
            let h = cache.load(dual.row(ta));
            let kr = cache.row(h);
            let mut row: Vec<f64> = self.vars[..=a].iter().map(|&tb| y[ta] * y[tb] * kr[dual.row(tb)]).collect();
            for (b, &v) in row.iter().enumerate() {
                self.qf[a * self.stride + b] = v;
                self.qf[b * self.stride + a] = v;
            }
            row[a] += NEWTON_RIDGE;
            self.chol.push(row);
        }
        if cholesky(&mut self.chol) {
            true
        } else {
            self.vars.clear();
            self.chol.clear();
            false
        }
    }
}

/// `Σ_k a_k b_k` of two slices of equal length: sixteen partial sums over the whole chunks of
/// sixteen terms (term k to sum `k mod 16`: independent additions the processor overlaps, in
/// vector registers), reduced pairwise, then the remaining terms in order.
#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    let mut s = [0.0; 16];
    for (x, y) in ca.zip(cb) {
        for k in 0..16 {
            s[k] += x[k] * y[k];
        }
    }
    let t: [f64; 4] = std::array::from_fn(|k| (s[k] + s[k + 4]) + (s[k + 8] + s[k + 12]));
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (t[0] + t[1]) + (t[2] + t[3]) + tail
}

/// The minimiser of a Newton step's model `½ ΔᵀAΔ + g₀ᵀΔ` (`A = Q_FF + μI`, Δ from the step's
/// starting point α₀) on `yᵀΔ = 0` with the variables that blocked earlier passes fixed at their
/// bounds (`Δ_b = c_b`, b ∈ B), by the range-space method: with `Y = [y_F, e_B]`,
/// `Δ = A⁻¹(Yλ − g₀)` where `(Yᵀ A⁻¹ Y) λ = Yᵀ A⁻¹ g₀ + (0, c_B)`. `A⁻¹ y` and `A⁻¹ g₀` are solved
/// once per step, `A⁻¹ e_b` once per blocked variable (`O(|F|²)` each, with the factor of A on
/// all of F, which is never updated inside a step), and the small matrix `Yᵀ A⁻¹ Y` grows by a
/// row per blocked variable with its own Cholesky factor (`O(|B|²)`).
struct BlockedNewton {
    yf: Vec<f64>,
    /// `A⁻¹ y_F` and `A⁻¹ g₀`.
    u: Vec<f64>,
    w: Vec<f64>,
    /// The blocked positions (into F), their offsets `c_b` from α₀ and `A⁻¹ e_b`.
    fixed: Vec<usize>,
    is_fixed: Vec<bool>,
    offset: Vec<f64>,
    z: Vec<Vec<f64>>,
    /// Cholesky factor of `Yᵀ A⁻¹ Y`, by rows.
    m: Vec<Vec<f64>>,
}

impl BlockedNewton {
    /// `chol`: the factor of A for the variables `vars`; `g0` their gradients at α₀. None when
    /// the solves are not usable (`y_Fᵀ A⁻¹ y_F` not positive and finite).
    fn new(chol: &[Vec<f64>], vars: &[usize], y: &[f64], g0: &[f64]) -> Option<Self> {
        let yf: Vec<f64> = vars.iter().map(|&t| y[t]).collect();
        let (u, w) = cholesky_solve_two(chol, &yf, g0);
        let yu = dot(&yf, &u);
        (yu > 0.0 && yu.is_finite()).then(|| Self {
            yf,
            u,
            w,
            fixed: Vec::new(),
            is_fixed: vec![false; vars.len()],
            offset: Vec::new(),
            z: Vec::new(),
            m: vec![vec![yu.sqrt()]],
        })
    }

    /// Fixes position `a` at `offset` from α₀ (its bound); false when `Yᵀ A⁻¹ Y` is then not
    /// numerically positive definite (nothing changed).
    fn fix(&mut self, chol: &[Vec<f64>], a: usize, offset: f64) -> bool {
        let mut e = vec![0.0; self.u.len()];
        e[a] = 1.0;
        let z = cholesky_solve(chol, e, a);
        let mut b = Vec::with_capacity(self.fixed.len() + 1);
        b.push(self.u[a]);
        b.extend(self.z.iter().map(|zb| zb[a]));
        if !z.iter().all(|v| v.is_finite()) || !cholesky_append(&mut self.m, &b, z[a]) {
            return false;
        }
        self.fixed.push(a);
        self.is_fixed[a] = true;
        self.offset.push(offset);
        self.z.push(z);
        true
    }

    /// The model's minimiser `α₀ + Δ` (`al0` = α₀ on F, `g0` the gradient there), None when not
    /// finite, and `A Δ` when the corrections below moved Δ by a negligible amount (then
    /// `A Δ = Yλ − g₀` up to the solves' rounding, and a pass needs no product with `Q_FF`).
    /// In floating point `y_Fᵀ Δ = 0` is not automatic: with a nearly singular `Q_FF` (SVR's
    /// α⁺/α⁻ pairs share a kernel row; close points) the solves are huge and their combination
    /// keeps a component along `y_F`, which would move `yᵀα` off 0; it is projected out over the
    /// variables not fixed (`y_F` is ±1), and the fixed ones get their offsets exactly.
    fn minimiser(&self, al0: &[f64], g0: &[f64]) -> Option<(Vec<f64>, Option<Vec<f64>>)> {
        let mut rhs = Vec::with_capacity(1 + self.fixed.len());
        rhs.push(dot(&self.yf, &self.w));
        rhs.extend(self.fixed.iter().zip(&self.offset).map(|(&b, c)| c + self.w[b]));
        let lambda = cholesky_solve(&self.m, rhs, 0);
        let mut delta: Vec<f64> = self.u.iter().zip(&self.w).map(|(u, w)| lambda[0] * u - w).collect();
        for (zb, lb) in self.z.iter().zip(&lambda[1..]) {
            delta.iter_mut().zip(zb).for_each(|(d, z)| *d += lb * z);
        }
        let mut correction = 0.0;
        for (&b, &c) in self.fixed.iter().zip(&self.offset) {
            correction += (delta[b] - c).abs();
            delta[b] = c;
        }
        let free = delta.len() - self.fixed.len();
        let drift = dot(&self.yf, &delta) / free as f64;
        correction += drift.abs() * free as f64;
        for ((d, y), fixed) in delta.iter_mut().zip(&self.yf).zip(&self.is_fixed) {
            if !fixed {
                *d -= drift * y;
            }
        }
        if !delta.iter().all(|d| d.is_finite()) {
            return None;
        }
        let a_delta = (correction <= 1e-10 * delta.iter().map(|d| d.abs()).sum::<f64>()).then(|| {
            let mut r: Vec<f64> = self.yf.iter().zip(g0).map(|(y, g)| lambda[0] * y - g).collect();
            for (&b, lb) in self.fixed.iter().zip(&lambda[1..]) {
                r[b] += lb;
            }
            r
        });
        Some((al0.iter().zip(&delta).map(|(a, d)| a + d).collect(), a_delta))
    }
}

/// In-place Cholesky `A = L Lᵀ` of a symmetric matrix given by the lower triangle of its rows
/// (row i: i + 1 entries); false when A is not numerically positive definite.
#[inline(always)]
fn cholesky(a: &mut [Vec<f64>]) -> bool {
    for j in 0..a.len() {
        let (done, rest) = a.split_at_mut(j + 1);
        let row_j = &mut done[j];
        let d = row_j[j] - dot(&row_j[..j], &row_j[..j]);
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let d = d.sqrt();
        row_j[j] = d;
        let lj = &row_j[..j];
        for li in rest {
            li[j] = (li[j] - dot(&li[..j], lj)) / d;
        }
    }
    true
}

/// Solves `L Lᵀ u = a` and `L Lᵀ w = b` with the factor from [`cholesky`], in one pass over L
/// for both (each row is read once from memory; each solution gets exactly the operations of a
/// solve of its own); both triangular solves read L by rows.
#[inline(always)]
fn cholesky_solve_two(l: &[Vec<f64>], a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (mut u, mut w) = (a.to_vec(), b.to_vec());
    for (i, row) in l.iter().enumerate() {
        u[i] = (u[i] - dot(&row[..i], &u[..i])) / row[i];
        w[i] = (w[i] - dot(&row[..i], &w[..i])) / row[i];
    }
    for (i, row) in l.iter().enumerate().rev() {
        u[i] /= row[i];
        w[i] /= row[i];
        let (ui, wi) = (u[i], w[i]);
        for ((uk, wk), lik) in u[..i].iter_mut().zip(&mut w[..i]).zip(&row[..i]) {
            *uk -= lik * ui;
            *wk -= lik * wi;
        }
    }
    (u, w)
}

/// Solves `L Lᵀ x = b` with the factor from [`cholesky`] (`x` holds b on entry), b zero before
/// position `from` (the forward substitution starts there).
#[inline(always)]
fn cholesky_solve(l: &[Vec<f64>], mut x: Vec<f64>, from: usize) -> Vec<f64> {
    for (i, row) in l.iter().enumerate().skip(from) {
        x[i] = (x[i] - dot(&row[from..i], &x[from..i])) / row[i];
    }
    for (i, row) in l.iter().enumerate().rev() {
        x[i] /= row[i];
        let xi = x[i];
        for (xk, lik) in x[..i].iter_mut().zip(&row[..i]) {
            *xk -= lik * xi;
        }
    }
    x
}

/// Appends a variable to the factor: `b` its entries of A against the current variables, `d`
/// its diagonal entry; the new row is `z = L⁻¹ b` and `√(d − zᵀz)`. False (factor unchanged)
/// when that is not positive.
#[inline(always)]
fn cholesky_append(l: &mut Vec<Vec<f64>>, b: &[f64], d: f64) -> bool {
    let mut z = b.to_vec();
    for (i, row) in l.iter().enumerate() {
        z[i] = (z[i] - dot(&row[..i], &z[..i])) / row[i];
    }
    let e = d - dot(&z, &z);
    if e.is_nan() || e <= 0.0 {
        return false;
    }
    z.push(e.sqrt());
    l.push(z);
    true
}

/// Removes variable `k` from the factor: deleting row and column k of `A = L Lᵀ` leaves
/// `L₂₂ L₂₂ᵀ + x xᵀ` below it (x the old column k under the diagonal), so the later rows lose
/// their entry k and `L₂₂` gets a rank-one update by Givens rotations, in `O(f²)`: rotation j
/// (`c = L_jj / r`, `s = x_j / r`, `r = hypot(L_jj, x_j)`) turns `(L_ij, x_i)` of every later row
/// i into `(c L_ij + s x_i, c x_i − s L_ij)`, with no division per entry. Row i takes the
/// rotations in order; the rows go four at a time (four independent chains, each reading its row
/// contiguously), each block taking the rotations of the rows above it, then its own corner.
#[inline(always)]
fn cholesky_delete(l: &mut Vec<Vec<f64>>, k: usize) {
    #[inline(always)]
    fn rotate(lij: &mut f64, xi: &mut f64, (c, s): (f64, f64)) {
        let v = *lij;
        *lij = c * v + s * *xi;
        *xi = c * *xi - s * v;
    }
    l.remove(k);
    let mut x: Vec<f64> = l[k..].iter_mut().map(|row| row.remove(k)).collect();
    let n = l.len();
    // the rotations of rows k, k + 1, … (column j's is `rot[j − k]`)
    let mut rot: Vec<(f64, f64)> = Vec::with_capacity(n - k);
    let mut i = k;
    while i < n {
        let m = (n - i).min(4);
        match (&mut l[i..i + m], &mut x[i - k..i - k + m]) {
            ([r0, r1, r2, r3], [x0, x1, x2, x3]) => {
                for (j, &cs) in (k..).zip(&rot) {
                    rotate(&mut r0[j], x0, cs);
                    rotate(&mut r1[j], x1, cs);
                    rotate(&mut r2[j], x2, cs);
                    rotate(&mut r3[j], x3, cs);
                }
            }
            (rows, xs) => {
                for (row, xr) in rows.iter_mut().zip(xs.iter_mut()) {
                    for (j, &cs) in (k..).zip(&rot) {
                        rotate(&mut row[j], xr, cs);
                    }
                }
            }
        }
        // the block's own columns
        for j in i..i + m {
            let (ljj, xj) = (l[j][j], x[j - k]);
            let r = ljj.hypot(xj);
            let cs = (ljj / r, xj / r);
            l[j][j] = r;
            for t in j + 1..i + m {
                rotate(&mut l[t][j], &mut x[t - k], cs);
            }
            rot.push(cs);
        }
        i += m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Gaussian kernel matrix on 8 points plus a ridge (symmetric positive definite).
    fn entry(i: usize, j: usize) -> f64 {
        let x = |i: usize| (i as f64 * 0.37).sin() * 2.0;
        (-(x(i) - x(j)).powi(2)).exp() + if i == j { 1e-3 } else { 0.0 }
    }

    fn fresh(vars: &[usize]) -> Vec<Vec<f64>> {
        let mut l: Vec<Vec<f64>> = vars.iter().enumerate().map(|(r, &i)| vars[..=r].iter().map(|&j| entry(i, j)).collect()).collect();
        assert!(cholesky(&mut l));
        l
    }

    fn append(l: &mut Vec<Vec<f64>>, vars: &mut Vec<usize>, i: usize) {
        let b: Vec<f64> = vars.iter().map(|&j| entry(j, i)).collect();
        assert!(cholesky_append(l, &b, entry(i, i)));
        vars.push(i);
    }

    fn assert_close(a: &[Vec<f64>], b: &[Vec<f64>]) {
        assert_eq!(a.len(), b.len());
        for (ra, rb) in a.iter().zip(b) {
            assert_eq!(ra.len(), rb.len());
            for (x, y) in ra.iter().zip(rb) {
                assert!((x - y).abs() <= 1e-10 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }
    }

    /// The dispatched solver (vector scans, AVX2 where available) and the baseline one (one lane)
    /// return the same bits: the same choices, ties and iterates, on C-SVC and ε-SVR problems
    /// whose sizes leave partial vectors, with and without shrinking, along a range of C.
    #[test]
    fn dispatched_solver_equals_the_baseline_bit_for_bit() {
        use crate::family::numerics::kernel::Kernel;
        use crate::family::svm::cache::Points;
        for (n, doubled) in [(37, false), (64, false), (29, true), (40, true)] {
            let x: Vec<f64> = (0..2 * n).map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0).collect();
            let z: Vec<f64> = (0..n).map(|i| (x[2 * i] * 3.0).sin() + 0.3 * x[2 * i + 1]).collect();
            let (y, p): (Vec<f64>, Vec<f64>) = if doubled {
                let y = [vec![1.0; n], vec![-1.0; n]].concat();
                let p = z.iter().map(|z| 0.1 - z).chain(z.iter().map(|z| 0.1 + z)).collect();
                (y, p)
            } else {
                (z.iter().map(|&z| if z > 0.0 { 1.0 } else { -1.0 }).collect(), vec![-1.0; n])
            };
            let points = Points { x: x.clone(), d: 2, kernel: Kernel::rbf(1.5).unwrap() };
            for shrinking in [true, false] {
                for c in [0.05, 1.0, 30.0, 1000.0] {
                    let upper = vec![c; y.len()];
                    let dual = Dual { y: &y, p: &p, doubled, c, upper: &upper, tol: 1e-3, shrinking };
                    let mut cache = KernelCache::new(points.clone(), crate::Par::pool());
                    let a = dual.solve(&mut cache, vec![0.0; y.len()], p.clone()).unwrap();
                    let b = dual.solve_baseline(&mut cache, vec![0.0; y.len()], p.clone()).unwrap();
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&a.alpha), bits(&b.alpha), "n = {n}, doubled = {doubled}, C = {c}");
                    assert_eq!(bits(&a.grad), bits(&b.grad));
                    assert_eq!((a.rho.to_bits(), a.iterations), (b.rho.to_bits(), b.iterations));
                    assert!(a.iterations > 0);
                }
            }
        }
    }

    /// Along a C path (each solve starting from the previous one's Newton state, as
    /// `SvmFamily::solve_path`), the kept `Q_FF` is exactly `y_s y_t K_st` of the factor's
    /// variables and the factor reproduces `Q_FF + μI`: the updates (deletions, appends, the
    /// compaction after blocked variables) never leave them out of step.
    #[test]
    fn kept_newton_state_matches_the_free_set_along_a_path() {
        use crate::family::numerics::kernel::Kernel;
        use crate::family::svm::cache::Points;
        let n = 150;
        let x: Vec<f64> = (0..2 * n).map(|i| ((i * 7919) % 211) as f64 / 100.0 - 1.0).collect();
        let y: Vec<f64> = (0..n).map(|i| if (x[2 * i] * 3.0).sin() + 0.8 * x[2 * i + 1] > 0.1 { 1.0 } else { -1.0 }).collect();
        let p = vec![-1.0; n];
        let points = Points { x, d: 2, kernel: Kernel::rbf(2.0).unwrap() };
        let mut cache = KernelCache::new(points, crate::Par::pool());
        let (mut prev, mut checked): (Option<(Solution, Vec<f64>)>, usize) = (None, 0);
        for c in [0.1, 1.0, 10.0, 100.0, 1000.0] {
            let upper = vec![c; n];
            let dual = Dual { y: &y, p: &p, doubled: false, c, upper: &upper, tol: 1e-3, shrinking: true };
            let sol = match prev.as_mut() {
                None => dual.solve(&mut cache, vec![0.0; n], p.clone()).unwrap(),
                Some((s, old)) => {
                    let (alpha, grad) = dual.warm_start(&mut cache, s, old);
                    dual.solve_from(&mut cache, alpha, grad, std::mem::take(&mut s.newton)).unwrap()
                }
            };
            let w = &sol.newton;
            assert_eq!(w.chol.len(), w.vars.len());
            for (a, &ta) in w.vars.iter().enumerate() {
                let h = cache.load(ta);
                for (b, &tb) in w.vars.iter().enumerate() {
                    let q = y[ta] * y[tb] * cache.row(h)[tb];
                    assert_eq!(w.qf[a * w.stride + b].to_bits(), q.to_bits(), "C = {c}, Q[{ta}, {tb}]");
                    if b <= a {
                        let llt = dot(&w.chol[a][..=b], &w.chol[b][..=b]);
                        let want = q + if a == b { NEWTON_RIDGE } else { 0.0 };
                        assert!((llt - want).abs() < 1e-9, "C = {c}: (L Lᵀ)[{a}, {b}] = {llt}, want {want}");
                    }
                }
            }
            checked += w.vars.len();
            prev = Some((sol, upper));
        }
        assert!(checked > 0, "no Newton step ran");
    }

    /// The range-space minimiser with blocked variables fixed equals the minimiser on the
    /// remaining variables solved directly (`A_RR Δ_R = ρ y_R − g_R − A_RB c_B`, ρ from
    /// `yᵀΔ = 0`), and the `A Δ` it reports is A times it.
    #[test]
    fn blocked_newton_equals_the_reduced_problem() {
        let vars: Vec<usize> = (0..8).collect();
        let y: Vec<f64> = [1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0].to_vec();
        let g0: Vec<f64> = (0..8).map(|i| (i as f64 * 1.3).sin() - 0.4).collect();
        let al0 = vec![0.5; 8];
        let chol = fresh(&vars);
        let mut model = BlockedNewton::new(&chol, &vars, &y, &g0).unwrap();
        let mut fixed: Vec<(usize, f64)> = Vec::new();
        for (b, c) in [(None, 0.0), (Some(5), -0.5), (Some(2), 0.25), (Some(0), -0.5)] {
            if let Some(b) = b {
                assert!(model.fix(&chol, b, c));
                fixed.push((b, c));
            }
            let (target, a_delta) = model.minimiser(&al0, &g0).unwrap();
            let delta: Vec<f64> = target.iter().zip(&al0).map(|(t, a)| t - a).collect();
            let rest: Vec<usize> = vars.iter().copied().filter(|v| fixed.iter().all(|&(b, _)| b != *v)).collect();
            let yr: Vec<f64> = rest.iter().map(|&i| y[i]).collect();
            let h: Vec<f64> = rest.iter().map(|&i| g0[i] + fixed.iter().map(|&(b, c)| entry(i, b) * c).sum::<f64>()).collect();
            let (u, w) = cholesky_solve_two(&fresh(&rest), &yr, &h);
            let yc: f64 = fixed.iter().map(|&(b, c)| y[b] * c).sum();
            let rho = (dot(&yr, &w) - yc) / dot(&yr, &u);
            for (k, &i) in rest.iter().enumerate() {
                let want = rho * u[k] - w[k];
                assert!((delta[i] - want).abs() < 1e-9, "fixed {fixed:?}: Δ[{i}] = {}, want {want}", delta[i]);
            }
            for &(b, c) in &fixed {
                assert_eq!(delta[b], c);
            }
            let a_delta = a_delta.expect("well conditioned: no correction");
            for (i, got) in a_delta.iter().enumerate() {
                let ad: f64 = (0..8).map(|j| entry(i, j) * delta[j]).sum();
                assert!((got - ad).abs() < 1e-9, "fixed {fixed:?}: (AΔ)[{i}] = {got}, want {ad}");
            }
        }
    }

    #[test]
    fn incremental_cholesky_equals_a_fresh_factorisation() {
        let (mut l, mut vars) = (Vec::new(), Vec::new());
        for i in 0..6 {
            append(&mut l, &mut vars, i);
        }
        assert_close(&l, &fresh(&vars));
        for k in [2, 0, 3] {
            cholesky_delete(&mut l, k);
            vars.remove(k);
            assert_close(&l, &fresh(&vars));
        }
        append(&mut l, &mut vars, 7);
        append(&mut l, &mut vars, 6);
        // longer factors: blocks of four rows below the deleted one, and every remainder
        for len in [9, 12, 13, 14] {
            for k in [0, 1, 4, len - 2] {
                let mut v: Vec<usize> = (0..len).collect();
                let mut lv = fresh(&v);
                cholesky_delete(&mut lv, k);
                v.remove(k);
                assert_close(&lv, &fresh(&v));
            }
        }
        assert_close(&l, &fresh(&vars));
        let rhs: Vec<f64> = (0..vars.len()).map(|i| i as f64 - 1.5).collect();
        let other: Vec<f64> = (0..vars.len()).map(|i| (i as f64).cos()).collect();
        let (x, z) = cholesky_solve_two(&l, &rhs, &other);
        for (r, &i) in vars.iter().enumerate() {
            let ax: f64 = vars.iter().zip(&x).map(|(&j, xj)| entry(i, j) * xj).sum();
            assert!((ax - rhs[r]).abs() < 1e-9, "row {r}: {ax} vs {}", rhs[r]);
            let az: f64 = vars.iter().zip(&z).map(|(&j, zj)| entry(i, j) * zj).sum();
            assert!((az - other[r]).abs() < 1e-9, "row {r}: {az} vs {}", other[r]);
        }
    }
}
