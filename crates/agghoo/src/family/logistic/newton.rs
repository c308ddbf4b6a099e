//! Newton's method with the exact Hessian for the L2 logistic objective, reusing the Hessian of
//! the loss along the λ path.
//!
//! The loss Hessian in the block layout of `θ` (free class f, feature j or the intercept):
//!
//! ```text
//! H_(f,j),(g,l) = (1/n) Σ_i p_if (δ_fg − p_ig) x̃_ij x̃_il,   x̃_i = [x_i, 1]
//! ```
//!
//! built by one matrix product per pair of free classes `f ≤ g` (faer, sequential). The system
//! matrix adds `λ` on the weight diagonal and, in the symmetric (softmax) parameterisation, `1/K`
//! on every entry of the intercept block: the loss does not move when every intercept moves by
//! the same amount and neither does the gradient, which always sums to zero over the intercepts,
//! so this term makes the matrix positive definite without changing the step (the shift
//! direction is one of its eigenvectors and is orthogonal to the gradient).
//!
//! Reuse: the loss Hessian is kept between iterations and between the λ of a path (a change of
//! λ only moves the diagonal, refactored in O(p³/3)). A step with a Hessian computed at an
//! earlier point is a *chord* step: it converges linearly, at the rate `r = ‖∇f_new‖_∞ / ‖∇f‖_∞`
//! it shows. The Hessian is kept while the chord steps still needed at that rate,
//! `ln(‖∇f_new‖_∞ / tol) / ln(1/r)`, cost no more than recomputing it (the cost ratio
//! [`hessian_cost`] in gradient evaluations, plus one step); a chord step that needs the line
//! search (step < 1) also recomputes it at the current point. Every step
//! passes an Armijo backtracking line search on f (or, where f moves below its rounding error,
//! keeps f within rounding and shrinks `‖∇f‖_∞`, as the L-BFGS solver does). Stops when
//! `‖∇f‖_∞ ≤ tol`, the L-BFGS solver's test.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::{Accum, Conj, Mat, MatRef, Par};

use super::Problem;
use super::lbfgs::norm_inf;
use crate::error::{Error, Result};

const ARMIJO: f64 = 1e-4;
const MAX_HALVINGS: usize = 60;

/// Largest number of parameters `K_free (d + 1)` solved by Newton's method; above it the
/// Hessian's O(K_free² n d²) build and O(p³) factorisation outweigh the L-BFGS iterations saved,
/// and the family uses L-BFGS.
pub(super) const MAX_PARAMS: usize = 512;

/// The loss Hessian carried between the solves of a path (`None` until the first is computed).
pub(super) type Curvature = Option<Mat<f64>>;

/// Minimises the L2 objective of `problem` at `lambda` from `theta` (updated in place), starting
/// from the loss Hessian in `curvature` if any (left holding the last one computed). Returns the
/// number of steps, or `None` when the system matrix was not numerically positive definite even
/// with a fresh Hessian (the caller then falls back to L-BFGS; `theta` holds the last iterate).
///
/// # Errors
/// [`Error::Numerical`] when `max_iter` steps do not reach `tol`, or the line search fails with
/// a fresh Hessian.
pub(super) fn minimize(
    problem: &Problem,
    theta: &mut [f64],
    curvature: &mut Curvature,
    lambda: f64,
    tol: f64,
    max_iter: usize,
) -> Result<Option<usize>> {
    let p = theta.len();
    let mut grad = vec![0.0; p];
    let mut f = problem.value_gradient(theta, &mut grad, lambda);
    let mut trial = vec![0.0; p];
    let mut trial_grad = vec![0.0; p];
    let mut factor: Option<Mat<f64>> = None;
    let worth = hessian_cost(problem) + 1.0;
    // Whether the Hessian in `curvature` was computed at the current θ.
    let mut fresh = false;
    for iteration in 0..max_iter {
        let norm = norm_inf(&grad);
        if norm <= tol {
            return Ok(Some(iteration));
        }
        if curvature.is_none() {
            *curvature = Some(loss_hessian(problem, theta));
            factor = None;
            fresh = true;
        }
        if factor.is_none() {
            factor = cholesky(problem, curvature.as_ref().map(Mat::as_ref).ok_or_else(|| unreachable_curvature(lambda))?, lambda);
            if factor.is_none() {
                if fresh {
                    return Ok(None);
                }
                *curvature = None;
                continue;
            }
        }
        let mut direction = Mat::from_fn(p, 1, |i, _| -grad[i]);
        let mut empty = MemBuffer::new(StackReq::EMPTY);
        let l = factor.as_ref().map(Mat::as_ref).ok_or_else(|| unreachable_curvature(lambda))?;
        llt::solve::solve_in_place_with_conj(l, Conj::No, direction.as_mut(), Par::Seq, MemStack::new(&mut empty));
        let slope: f64 = (0..p).map(|i| grad[i] * direction[(i, 0)]).sum();
        let mut step = 1.0;
        let mut accepted = None;
        if slope < 0.0 {
            for _ in 0..MAX_HALVINGS {
                trial.iter_mut().zip(theta.iter()).enumerate().for_each(|(i, (t, x))| *t = x + step * direction[(i, 0)]);
                let f_trial = problem.value_gradient(&trial, &mut trial_grad, lambda);
                let within_rounding = f_trial <= f + 4.0 * f64::EPSILON * f.abs() && norm_inf(&trial_grad) < norm;
                if f_trial.is_finite() && (f_trial <= f + ARMIJO * step * slope || within_rounding) {
                    accepted = Some(f_trial);
                    break;
                }
                step *= 0.5;
            }
        }
        let Some(f_new) = accepted else {
            if fresh {
                return Err(Error::Numerical(format!(
                    "logistic regression at lambda = {lambda}: the Newton line search found no decrease (‖∇f‖∞ = {norm:e})"
                )));
            }
            *curvature = None;
            continue;
        };
        let new_norm = norm_inf(&trial_grad);
        let rate = new_norm / norm;
        let poor = step < 1.0 || rate >= 1.0 || (new_norm > tol && (new_norm / tol).ln() > worth * -rate.ln());
        theta.copy_from_slice(&trial);
        std::mem::swap(&mut grad, &mut trial_grad);
        f = f_new;
        if poor && !fresh {
            *curvature = None;
        }
        fresh = false;
    }
    if norm_inf(&grad) <= tol {
        return Ok(Some(max_iter));
    }
    Err(Error::Numerical(format!(
        "logistic regression at lambda = {lambda}: Newton's method did not converge within {max_iter} iterations (‖∇f‖∞ = {:e} > tol {tol:e}); raise max_iter or tol",
        norm_inf(&grad)
    )))
}

fn unreachable_curvature(lambda: f64) -> Error {
    Error::Numerical(format!("logistic regression at lambda = {lambda}: no Hessian to factor"))
}

/// The cost of one loss Hessian in gradient evaluations, estimated from the operation counts:
/// `K_free (K_free + 1)/2` products of `n × (d + 1)²` multiply-adds (counted at half price: a
/// blocked matrix product runs about twice as fast per operation as the gradient's row loop) and
/// one gradient pass for the probabilities, against `2 n K_free d` multiply-adds and `n K`
/// exponentials (each counted as 20) per gradient.
fn hessian_cost(problem: &Problem) -> f64 {
    let (n, d, k_free, k) = (problem.n as f64, problem.d as f64, problem.n_free() as f64, problem.classes.len() as f64);
    let gradient = n * (2.0 * k_free * d + 20.0 * k);
    let products = 0.5 * k_free * (k_free + 1.0) / 2.0 * n * (d + 1.0) * (d + 1.0);
    1.0 + products / gradient
}

/// The loss Hessian at `theta` (without the penalty), `p × p` in the block layout of `θ`.
fn loss_hessian(problem: &Problem, theta: &[f64]) -> Mat<f64> {
    let (n, d, k_free) = (problem.n, problem.d, problem.n_free());
    let w = d + 1;
    // Probabilities of the free classes, n × K_free row-major.
    let mut proba = vec![0.0; n * k_free];
    problem.free_probabilities(theta, &mut proba);
    // x̃ = [x, 1] row-major, and a scaled copy per pair of classes.
    let mut augmented = vec![1.0; n * w];
    for (out, row) in augmented.chunks_exact_mut(w).zip(problem.x.chunks_exact(d.max(1))) {
        out[..d].copy_from_slice(&row[..d]);
    }
    let xa = MatRef::from_row_major_slice(&augmented, n, w);
    let mut scaled = vec![0.0; n * w];
    let mut hessian = Mat::<f64>::zeros(k_free * w, k_free * w);
    let inv_n = 1.0 / n as f64;
    for f in 0..k_free {
        for g in f..k_free {
            for ((out, row), pi) in scaled.chunks_exact_mut(w).zip(augmented.chunks_exact(w)).zip(proba.chunks_exact(k_free)) {
                let weight = pi[f] * (f64::from(u8::from(f == g)) - pi[g]) * inv_n;
                out.iter_mut().zip(row).for_each(|(o, x)| *o = weight * x);
            }
            let s = MatRef::from_row_major_slice(&scaled, n, w);
            faer::linalg::matmul::matmul(
                hessian.as_mut().submatrix_mut(f * w, g * w, w, w),
                Accum::Replace,
                xa.transpose(),
                s,
                1.0,
                Par::Seq,
            );
            if g != f {
                for a in 0..w {
                    for b in 0..w {
                        hessian[(g * w + b, f * w + a)] = hessian[(f * w + a, g * w + b)];
                    }
                }
            }
        }
    }
    hessian
}

/// The Cholesky factor of the system matrix (loss Hessian, `λ` on the weight diagonal, `1/K` on
/// the intercept block in the symmetric parameterisation), or `None` if it is not numerically
/// positive definite.
fn cholesky(problem: &Problem, hessian: MatRef<'_, f64>, lambda: f64) -> Option<Mat<f64>> {
    let (d, k_free) = (problem.d, problem.n_free());
    let w = d + 1;
    let p = hessian.nrows();
    let mut a = hessian.to_owned();
    for f in 0..k_free {
        for j in 0..d {
            a[(f * w + j, f * w + j)] += lambda;
        }
    }
    if k_free == problem.classes.len() {
        let shift = 1.0 / k_free as f64;
        for f in 0..k_free {
            for g in 0..k_free {
                a[(f * w + d, g * w + d)] += shift;
            }
        }
    }
    let mut buffer = MemBuffer::new(llt::factor::cholesky_in_place_scratch::<f64>(p, Par::Seq, Default::default()));
    llt::factor::cholesky_in_place(a.as_mut(), Default::default(), Par::Seq, MemStack::new(&mut buffer), Default::default()).ok()?;
    Some(a)
}
