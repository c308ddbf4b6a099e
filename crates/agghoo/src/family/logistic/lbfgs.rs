//! Limited-memory BFGS for the smooth, strongly convex logistic objective.
//!
//! Two-loop recursion with the last 50 curvature pairs (fewer for very many parameters, see
//! [`MEMORY`]; with 10, the usual choice, the 20-class bench path took 40 % more evaluations),
//! initial Hessian `γ I` with `γ = sᵀy / yᵀy` of the newest pair, backtracking line search on the
//! Armijo condition from step 1, each shorter step the minimiser of the cubic that matches the
//! value and slope at both ends (kept within a tenth and a half of the failed step); the objective
//! is strongly convex, so every accepted pair has `sᵀy > 0` (pairs failing a relative check are
//! skipped anyway). Near the optimum, where f moves below its rounding error, a step that keeps f
//! within rounding and shrinks `‖∇f‖_∞` is accepted too. A caller may pass a guessed first step
//! (the path's predictor), tried once. Stops when `‖∇f‖_∞ ≤ tol`.

use std::collections::VecDeque;

use crate::error::{Error, Result};
use crate::family::numerics::vector::dot;

/// Curvature pairs kept: up to 50, fewer when the pairs would pass [`MEMORY_VALUES`] numbers,
/// never fewer than 10.
const MEMORY: (usize, usize) = (10, 50);
/// The pairs' size limit, in numbers (32 MiB).
const MEMORY_VALUES: usize = 1 << 22;
const ARMIJO: f64 = 1e-4;
const MAX_BACKTRACKS: usize = 60;

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

/// How [`minimize`] stops, and its preconditioner.
#[derive(Clone, Copy)]
pub(super) struct Settings<'a> {
    /// Stop when `‖∇f‖_∞ ≤ tol`.
    pub(super) tol: f64,
    /// At most this many iterations.
    pub(super) max_iter: usize,
    /// The Hessian-diagonal estimate `h > 0` of the module doc (empty: the plain `γ I`).
    pub(super) diagonal: &'a [f64],
}

/// Minimises `objective` from `theta` (updated in place), starting from the curvature pairs in
/// `memory` and, when it holds them, the objective and gradient at `theta` (empty for a cold
/// start; left holding the last pairs and the value and gradient at the solution).
/// `objective(θ, ∇)` returns `f(θ)` and writes `∇f(θ)`. `guess`: a displacement of `theta` tried
/// once before the first iteration (a predictor along a path): kept if it passes the line
/// search's test at step 1, and its curvature pair kept either way, so it costs at most the one
/// evaluation. Returns the number of iterations.
///
/// # Errors
/// [`Error::Numerical`] when `max_iter` iterations do not reach the tolerance, or the line
/// search fails twice in a row (naming `what`, the λ being solved).
pub(super) fn minimize(
    objective: &mut dyn FnMut(&[f64], &mut [f64]) -> f64,
    theta: &mut [f64],
    memory: &mut Memory,
    guess: Option<&[f64]>,
    settings: &Settings<'_>,
    what: &dyn Fn() -> String,
) -> Result<usize> {
    let Settings { tol, max_iter, diagonal } = *settings;
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
    let memsize = memory_size(p);
    let mut alpha = vec![0.0; memsize];
    let mut failed_once = false;
    // The guess is tried only along a descent direction (its slope `∇fᵀ step` negative).
    if let Some((step, slope)) = guess.filter(|g| g.len() == p).map(|g| (g, dot(&grad, g))).filter(|&(_, slope)| slope < 0.0) {
        trial.iter_mut().zip(theta.iter()).zip(step).for_each(|((t, x), d)| *t = x + d);
        let f_trial = objective(&trial, &mut trial_grad);
        let accept = f_trial.is_finite() && (f_trial <= f + ARMIJO * slope || within_rounding(f, f_trial, &grad, &trial_grad));
        if f_trial.is_finite() {
            push_pair(pairs, memsize, &trial, theta, &trial_grad, &grad);
        }
        if accept {
            theta.copy_from_slice(&trial);
            grad.copy_from_slice(&trial_grad);
            f = f_trial;
        }
    }
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
        if diagonal.is_empty() {
            let gamma = match pairs.back() {
                Some((s, y, _)) => dot(s, y) / dot(y, y),
                None => 1.0 / norm_inf(&grad).max(1.0),
            };
            direction.iter_mut().for_each(|d| *d *= gamma);
        } else {
            let gamma = match pairs.back() {
                Some((s, y, _)) => dot(s, y) / y.iter().zip(diagonal).map(|(yi, h)| yi * yi / h).sum::<f64>(),
                None => 1.0 / scaled_norm(&grad, diagonal).max(1.0),
            };
            direction.iter_mut().zip(diagonal).for_each(|(d, h)| *d *= gamma / h);
        }
        for (k, (s, y, rho)) in pairs.iter().enumerate() {
            let beta = rho * dot(y, &direction);
            direction.iter_mut().zip(s).for_each(|(d, si)| *d += (alpha[k] - beta) * si);
        }
        let mut slope = dot(&grad, &direction);
        if slope >= 0.0 {
            pairs.clear();
            if diagonal.is_empty() {
                let scale = 1.0 / norm_inf(&grad).max(1.0);
                direction.iter_mut().zip(&grad).for_each(|(d, g)| *d = -g * scale);
            } else {
                let scale = 1.0 / scaled_norm(&grad, diagonal).max(1.0);
                direction.iter_mut().zip(&grad).zip(diagonal).for_each(|((d, g), h)| *d = -g * scale / h);
            }
            slope = dot(&grad, &direction);
        }
        let mut step = 1.0;
        let mut accepted = None;
        for _ in 0..MAX_BACKTRACKS {
            trial.iter_mut().zip(theta.iter()).zip(&direction).for_each(|((t, x), d)| *t = x + step * d);
            let f_trial = objective(&trial, &mut trial_grad);
            if f_trial.is_finite() && (f_trial <= f + ARMIJO * step * slope || within_rounding(f, f_trial, &grad, &trial_grad)) {
                accepted = Some(f_trial);
                break;
            }
            step = backtrack(step, f, slope, f_trial, dot(&trial_grad, &direction));
        }
        let Some(f_new) = accepted else {
            if failed_once || pairs.is_empty() {
                return Err(Error::Numerical(format!(
                    "{}: the L-BFGS line search found no decrease (‖∇f‖∞ = {:e}); standardise the features (--standardize) or raise tol",
                    what(),
                    norm_inf(&grad)
                )));
            }
            failed_once = true;
            pairs.clear();
            continue;
        };
        failed_once = false;
        push_pair(pairs, memsize, &trial, theta, &trial_grad, &grad);
        theta.copy_from_slice(&trial);
        grad.copy_from_slice(&trial_grad);
        f = f_new;
    }
    if norm_inf(&grad) <= tol {
        memory.last = Some((f, grad));
        return Ok(max_iter);
    }
    Err(Error::Numerical(format!(
        "{}: L-BFGS did not converge within {max_iter} iterations (‖∇f‖∞ = {:e} > tol {tol:e}); standardise the features (--standardize), or raise max_iter or tol",
        what(),
        norm_inf(&grad)
    )))
}

/// Near the optimum f changes below its rounding error and Armijo's test becomes noise; a step
/// that keeps f within rounding and shrinks the gradient is then accepted.
fn within_rounding(f: f64, f_trial: f64, grad: &[f64], trial_grad: &[f64]) -> bool {
    f_trial <= f + 4.0 * f64::EPSILON * f.abs() && norm_inf(trial_grad) < norm_inf(grad)
}

/// Appends the pair `(s, y) = (new − old, g_new − g_old)` unless its curvature `sᵀy` is not
/// clearly positive, dropping the oldest pair beyond the memory size.
fn push_pair(pairs: &mut VecDeque<(Vec<f64>, Vec<f64>, f64)>, memsize: usize, new: &[f64], old: &[f64], g_new: &[f64], g_old: &[f64]) {
    let s: Vec<f64> = new.iter().zip(old).map(|(t, x)| t - x).collect();
    let y: Vec<f64> = g_new.iter().zip(g_old).map(|(a, b)| a - b).collect();
    let sy = dot(&s, &y);
    if sy > 1e-12 * dot(&s, &s).sqrt() * dot(&y, &y).sqrt() {
        while pairs.len() >= memsize {
            pairs.pop_front();
        }
        pairs.push_back((s, y, 1.0 / sy));
    }
}

/// The next step after `step` failed the test: the minimiser of the cubic through `φ(0) = f`,
/// `φ'(0) = slope`, `φ(step) = f_step`, `φ'(step) = slope_step` (`φ(t) = f(θ + t d)`), or of
/// the quadratic through the first three when the cubic has none, kept within
/// `[step / 10, step / 2]`; half the step when `f_step` is not finite.
fn backtrack(step: f64, f: f64, slope: f64, f_step: f64, slope_step: f64) -> f64 {
    let (low, high) = (0.1 * step, 0.5 * step);
    if !f_step.is_finite() {
        return high;
    }
    let d1 = slope + slope_step - 3.0 * (f_step - f) / step;
    let disc = d1 * d1 - slope * slope_step;
    let cubic = if disc >= 0.0 && slope_step.is_finite() {
        let d2 = disc.sqrt();
        step - step * (slope_step + d2 - d1) / (slope_step - slope + 2.0 * d2)
    } else {
        f64::NAN
    };
    let candidate = if cubic.is_finite() {
        cubic
    } else {
        let curvature = f_step - f - slope * step;
        -slope * step * step / (2.0 * curvature)
    };
    if candidate.is_finite() { candidate.clamp(low, high) } else { high }
}

/// How many curvature pairs to keep for `p` parameters (see [`MEMORY`]).
fn memory_size(p: usize) -> usize {
    (MEMORY_VALUES / (2 * p.max(1))).clamp(MEMORY.0, MEMORY.1)
}

/// `max_i |g_i| / √h_i`: the gradient's ∞-norm in the preconditioned coordinates.
fn scaled_norm(grad: &[f64], diagonal: &[f64]) -> f64 {
    grad.iter().zip(diagonal).fold(0.0_f64, |m, (g, h)| m.max(g.abs() / h.sqrt()))
}

fn norm_inf(v: &[f64]) -> f64 {
    v.iter().fold(0.0_f64, |m, x| m.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `f(θ) = ½ Σ a_i (θ_i − c_i)²` with the number of evaluations counted.
    fn quadratic(calls: &mut usize) -> impl FnMut(&[f64], &mut [f64]) -> f64 + '_ {
        let (a, c) = ([1.0, 3.0, 10.0, 0.5], [1.0, -2.0, 0.5, 4.0]);
        move |t: &[f64], g: &mut [f64]| {
            *calls += 1;
            let mut f = 0.0;
            for i in 0..4 {
                g[i] = a[i] * (t[i] - c[i]);
                f += 0.5 * a[i] * (t[i] - c[i]) * (t[i] - c[i]);
            }
            f
        }
    }

    fn solve(guess: Option<&[f64]>) -> (Vec<f64>, usize) {
        let mut calls = 0;
        let mut theta = vec![0.0; 4];
        minimize(
            &mut quadratic(&mut calls),
            &mut theta,
            &mut Memory::new(),
            guess,
            &Settings { tol: 1e-10, max_iter: 1000, diagonal: &[] },
            &|| "test".into(),
        )
        .unwrap();
        (theta, calls)
    }

    #[test]
    fn a_guess_costs_at_most_its_evaluation() {
        let (plain, plain_calls) = solve(None);
        assert!(plain.iter().zip([1.0, -2.0, 0.5, 4.0]).all(|(t, c)| (t - c).abs() < 1e-9));
        // The exact step: accepted, and the start's gradient plus the guess's are all it takes.
        let (exact, calls) = solve(Some(&[1.0, -2.0, 0.5, 4.0]));
        assert_eq!(exact, vec![1.0, -2.0, 0.5, 4.0]);
        assert_eq!(calls, 2);
        // An ascent direction is not even evaluated.
        let (same, calls) = solve(Some(&[-1.0, 2.0, -0.5, -4.0]));
        assert_eq!((same, calls), (plain, plain_calls));
        // A step far too long fails the test and is not taken; it still solves the problem.
        let (far, _) = solve(Some(&[100.0, -200.0, 50.0, 400.0]));
        assert!(far.iter().zip([1.0, -2.0, 0.5, 4.0]).all(|(t, c)| (t - c).abs() < 1e-9));
    }

    #[test]
    fn backtracking_interpolates_and_stays_in_bounds() {
        // φ(t) = (t − 0.3)²: φ(0) = 0.09, φ'(0) = −0.6, φ(1) = 0.49, φ'(1) = 1.4 → the cubic is
        // the parabola, minimised at 0.3.
        assert!((backtrack(1.0, 0.09, -0.6, 0.49, 1.4) - 0.3).abs() < 1e-12);
        // Minimiser at 0.01 → clamped to a tenth; at 0.9 → clamped to a half.
        assert_eq!(backtrack(1.0, 1e-4, -0.02, 0.9801, 1.98), 0.1);
        assert_eq!(backtrack(2.0, 0.81 * 4.0, -3.6 * 2.0, 0.01 * 4.0, 0.2 * 2.0), 1.0);
        // A non-finite value halves the step.
        assert_eq!(backtrack(1.0, 1.0, -1.0, f64::INFINITY, f64::NAN), 0.5);
        assert_eq!(backtrack(1.0, 1.0, -1.0, f64::NAN, f64::NAN), 0.5);
    }

    #[test]
    fn memory_shrinks_only_for_very_many_parameters() {
        assert_eq!(memory_size(1_020), 50);
        assert_eq!(memory_size(100_000), 20);
        assert_eq!(memory_size(10_000_000), 10);
    }
}
