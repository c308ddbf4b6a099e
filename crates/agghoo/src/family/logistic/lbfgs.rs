//! Limited-memory BFGS for the smooth, strongly convex logistic objective.
//!
//! Two-loop recursion with the last `MEMORY` curvature pairs, initial Hessian `γ I` with
//! `γ = sᵀy / yᵀy` of the newest pair, backtracking line search on the Armijo condition (the
//! objective is strongly convex, so every accepted pair has `sᵀy > 0`; pairs failing a relative
//! check are skipped anyway). Near the optimum, where f moves below its rounding error, a step
//! that keeps f within rounding and shrinks `‖∇f‖_∞` is accepted too. Stops when `‖∇f‖_∞ ≤ tol`.

use std::collections::VecDeque;

use crate::error::{Error, Result};
use crate::family::numerics::vector::dot;

const MEMORY: usize = 10;
const ARMIJO: f64 = 1e-4;
const MAX_HALVINGS: usize = 60;

/// What one solve of a path hands to the next: the curvature pairs `(s, y, 1/sᵀy)`, newest last,
/// and the objective and its gradient at the solution (so the next solve starts without
/// re-evaluating them).
#[derive(Default)]
pub(super) struct Memory {
    pairs: VecDeque<(Vec<f64>, Vec<f64>, f64)>,
    last: Option<(f64, Vec<f64>)>,
}

impl Memory {
    /// Empty: a cold start.
    pub(super) fn new() -> Self {
        Self::default()
    }
}

/// Carries the memory of `f_λ` at `theta` over to `f_λ'` when the two differ by
/// `((λ' − λ)/2)‖w‖²` on the components where `penalised(i)`: the gradient differences move by
/// exactly `(λ' − λ) s_i` there, so the pairs stay exact curvature information of the new
/// objective; the value and gradient at `theta` move by `((λ' − λ)/2) Σ θ_i²` and `(λ' − λ) θ_i`.
/// Pairs whose `sᵀy` is no longer clearly positive are dropped.
pub(super) fn shift_memory(memory: &mut Memory, delta: f64, theta: &[f64], penalised: impl Fn(usize) -> bool) {
    if let Some((f, grad)) = &mut memory.last {
        for (_, (g, t)) in grad.iter_mut().zip(theta).enumerate().filter(|(i, _)| penalised(*i)) {
            *g += delta * t;
            *f += 0.5 * delta * t * t;
        }
    }
    memory.pairs.retain_mut(|(s, y, rho)| {
        y.iter_mut().zip(s.iter()).enumerate().filter(|(i, _)| penalised(*i)).for_each(|(_, (yi, si))| *yi += delta * si);
        let sy = dot(s, y);
        *rho = 1.0 / sy;
        sy > 1e-12 * dot(s, s).sqrt() * dot(y, y).sqrt()
    });
}

/// Minimises `objective` from `theta` (updated in place), starting from the curvature pairs in
/// `memory` and, when it holds them, the objective and gradient at `theta` (empty for a cold
/// start; left holding the last pairs and the value and gradient at the solution).
/// `objective(θ, ∇)` returns `f(θ)` and writes `∇f(θ)`. Returns the number of iterations.
///
/// # Errors
/// [`Error::Numerical`] when `max_iter` iterations do not reach the tolerance, or the line
/// search fails twice in a row (naming `what`, the λ being solved).
pub(super) fn minimize(
    objective: &mut dyn FnMut(&[f64], &mut [f64]) -> f64,
    theta: &mut [f64],
    memory: &mut Memory,
    tol: f64,
    max_iter: usize,
    what: &dyn Fn() -> String,
) -> Result<usize> {
    let p = theta.len();
    let (mut f, mut grad) = match memory.last.take() {
        Some((f, grad)) if grad.len() == p => (f, grad),
        _ => {
            let mut grad = vec![0.0; p];
            (objective(theta, &mut grad), grad)
        }
    };
    let pairs = &mut memory.pairs;
    let mut direction = vec![0.0; p];
    let mut trial = vec![0.0; p];
    let mut trial_grad = vec![0.0; p];
    let mut alpha = [0.0; MEMORY];
    let mut failed_once = false;
    for iteration in 0..max_iter {
        if norm_inf(&grad) <= tol {
            memory.last = Some((f, grad));
            return Ok(iteration);
        }
        // Two-loop recursion: direction = −H ∇f.
        direction.iter_mut().zip(&grad).for_each(|(d, g)| *d = -g);
        for (k, (s, y, rho)) in pairs.iter().enumerate().rev() {
            alpha[k] = rho * dot(s, &direction);
            direction.iter_mut().zip(y).for_each(|(d, yi)| *d -= alpha[k] * yi);
        }
        let gamma = match pairs.back() {
            Some((s, y, _)) => dot(s, y) / dot(y, y),
            None => 1.0 / norm_inf(&grad).max(1.0),
        };
        direction.iter_mut().for_each(|d| *d *= gamma);
        for (k, (s, y, rho)) in pairs.iter().enumerate() {
            let beta = rho * dot(y, &direction);
            direction.iter_mut().zip(s).for_each(|(d, si)| *d += (alpha[k] - beta) * si);
        }
        let mut slope = dot(&grad, &direction);
        if slope >= 0.0 {
            pairs.clear();
            let scale = 1.0 / norm_inf(&grad).max(1.0);
            direction.iter_mut().zip(&grad).for_each(|(d, g)| *d = -g * scale);
            slope = dot(&grad, &direction);
        }
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_HALVINGS {
            trial.iter_mut().zip(theta.iter()).zip(&direction).for_each(|((t, x), d)| *t = x + step * d);
            let f_trial = objective(&trial, &mut trial_grad);
            // Near the optimum f changes below its rounding error and Armijo's test becomes noise;
            // a step that keeps f within rounding and shrinks the gradient is then accepted.
            let within_rounding = f_trial <= f + 4.0 * f64::EPSILON * f.abs() && norm_inf(&trial_grad) < norm_inf(&grad);
            if f_trial.is_finite() && (f_trial <= f + ARMIJO * step * slope || within_rounding) {
                accepted = Some(f_trial);
                break;
            }
            step *= 0.5;
        }
        let Some(f_new) = accepted else {
            if failed_once || pairs.is_empty() {
                return Err(Error::Numerical(format!(
                    "{}: the L-BFGS line search found no decrease (‖∇f‖∞ = {:e})",
                    what(),
                    norm_inf(&grad)
                )));
            }
            failed_once = true;
            pairs.clear();
            continue;
        };
        failed_once = false;
        let s: Vec<f64> = trial.iter().zip(theta.iter()).map(|(t, x)| t - x).collect();
        let y: Vec<f64> = trial_grad.iter().zip(&grad).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 * dot(&s, &s).sqrt() * dot(&y, &y).sqrt() {
            if pairs.len() == MEMORY {
                pairs.pop_front();
            }
            pairs.push_back((s, y, 1.0 / sy));
        }
        theta.copy_from_slice(&trial);
        grad.copy_from_slice(&trial_grad);
        f = f_new;
    }
    if norm_inf(&grad) <= tol {
        memory.last = Some((f, grad));
        return Ok(max_iter);
    }
    Err(Error::Numerical(format!(
        "{}: L-BFGS did not converge within {max_iter} iterations (‖∇f‖∞ = {:e} > tol {tol:e}); raise max_iter or tol",
        what(),
        norm_inf(&grad)
    )))
}

fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}
