//! L1-penalised binary logistic regression: proximal Newton with coordinate descent on the
//! quadratic model (glmnet's algorithm for the binomial family), with a line search on the true
//! objective.
//!
//! Objective, `z_i = b + x_iᵀw`, `y_i ∈ {0, 1}`:
//!
//! ```text
//! F(w, b) = (1/n) Σ_i [ log(1 + e^{z_i}) − y_i z_i ] + λ ‖w‖₁
//! ```
//!
//! Outer step at (w, b): `p_i = σ(z_i)`, weights `W_i = p_i(1 − p_i)` (floored at 10⁻¹⁰), and the
//! quadratic model `(1/n) Σ [−(y_i − p_i) Δz_i + ½ W_i Δz_i²] + λ‖w + Δw‖₁` is minimised by
//! coordinate descent (the intercept is updated in closed form each pass, unpenalised) until the
//! largest weighted change `max_j a_j Δ²` falls below a hundredth of the squared current
//! optimality error (inexact Newton). The step `t Δ` is then halved until the Armijo condition on
//! F holds (Tseng & Yun's rule with the model's decrease), which glmnet omits and which makes
//! every step a descent step.
//!
//! Stopping: the minimum-norm subgradient, `max(|∂_b F|, max_j dist(−∂_j f, λ ∂|w_j|))`, at most
//! `tol`. No screening: each pass costs O(n d) (a strong rule as in the Lasso would cut it for
//! large d; not done).

use crate::error::{Error, Result};
use crate::family::numerics::vector::{dot, soft_threshold};

/// Solves at `lambda` from `theta = [w (d values), b]` (updated in place). `x` holds the
/// centred features column-major (`x[j * n + i]`), `y` the 0/1 targets.
///
/// # Errors
/// [`Error::Numerical`] when `max_iter` Newton steps do not reach `tol`.
pub(super) fn solve(x: &[f64], y: &[f64], theta: &mut [f64], lambda: f64, tol: f64, max_iter: usize) -> Result<()> {
    let (_, violation) = solve_block(x, y, None, theta, lambda, tol, max_iter)?;
    if violation <= tol {
        return Ok(());
    }
    Err(Error::Numerical(format!(
        "L1 logistic regression at lambda = {lambda} did not converge within {max_iter} Newton steps (optimality error {violation:e} > tol {tol:e}); standardise the features (--standardize), or raise max_iter or tol"
    )))
}

/// Multinomial (K ≥ 3 classes, symmetric parameterisation, ungrouped penalty `λ Σ_k ‖w_k‖₁`):
/// block coordinate descent over the classes (glmnet's ungrouped multinomial lasso). With the
/// other classes fixed, class k's part of the objective is the binary loss of the logit
/// `z_ik + o_ik`, `o_ik = −log Σ_{l≠k} e^{z_il}`, against `1[y_i = k]` (up to a constant), so
/// each block is one proximal-Newton step of the binary solver with that offset (as glmnet, one
/// quadratic model per class per cycle; solving each block to the end first was 20× slower).
/// The cycle over the classes stops when no block takes a step: then every block's optimality
/// error, evaluated at the same point, is at most `tol`, which is the binary stopping rule
/// applied to all blocks at once. `max_iter` bounds the cycles.
/// `theta` holds K blocks `[w_k (d values), b_k]`; `labels[i]` is row i's class in `0..K`.
///
/// # Errors
/// [`Error::Numerical`] when `max_iter` Newton steps (all blocks together) do not reach `tol`.
pub(super) fn solve_multinomial(x: &[f64], labels: &[usize], theta: &mut [f64], lambda: f64, tol: f64, max_iter: usize) -> Result<()> {
    let n = labels.len();
    let d = x.len() / n.max(1);
    let k = theta.len() / (d + 1);
    let column = |j: usize| &x[j * n..(j + 1) * n];
    // Logits, row-major n × K.
    let mut logits = vec![0.0; n * k];
    let update_logits = |logits: &mut [f64], block: &[f64], c: usize| {
        let mut z = vec![block[d]; n];
        for (j, &wj) in block[..d].iter().enumerate().filter(|(_, w)| **w != 0.0) {
            z.iter_mut().zip(column(j)).for_each(|(v, xij)| *v += wj * xij);
        }
        logits.chunks_exact_mut(k).zip(&z).for_each(|(row, zi)| row[c] = *zi);
    };
    for c in 0..k {
        update_logits(&mut logits, &theta[c * (d + 1)..(c + 1) * (d + 1)], c);
    }
    let mut cycles = 0usize;
    loop {
        let mut moved = false;
        for c in 0..k {
            let offset: Vec<f64> = logits
                .chunks_exact(k)
                .map(|row| {
                    let top = row.iter().enumerate().filter(|&(l, _)| l != c).fold(f64::NEG_INFINITY, |m, (_, v)| m.max(*v));
                    let sum: f64 = row.iter().enumerate().filter(|&(l, _)| l != c).map(|(_, v)| (v - top).exp()).sum();
                    -(top + sum.ln())
                })
                .collect();
            let y: Vec<f64> = labels.iter().map(|&l| f64::from(u8::from(l == c))).collect();
            let block = &mut theta[c * (d + 1)..(c + 1) * (d + 1)];
            let (taken, _) = solve_block(x, &y, Some(&offset), block, lambda, tol, 1)?;
            if taken > 0 {
                moved = true;
                update_logits(&mut logits, block, c);
            }
        }
        if !moved {
            return Ok(());
        }
        cycles += 1;
        if cycles >= max_iter {
            return Err(Error::Numerical(format!(
                "multinomial L1 logistic regression at lambda = {lambda} did not converge within {max_iter} cycles over the classes (tol {tol:e}); standardise the features (--standardize), or raise max_iter or tol"
            )));
        }
    }
}

/// At most `max_iter` steps of the binary solver with an optional fixed offset added to every
/// logit (`z_i = o_i + b + x_iᵀw`), stopping early when the optimality error is at most `tol`.
/// Returns the number of Newton steps taken (0 when `theta` is optimal to `tol` on entry) and
/// the last optimality error measured (when the steps ran out: the one before the last step,
/// above `tol`).
fn solve_block(
    x: &[f64],
    y: &[f64],
    offset: Option<&[f64]>,
    theta: &mut [f64],
    lambda: f64,
    tol: f64,
    max_iter: usize,
) -> Result<(usize, f64)> {
    let n = y.len();
    let d = theta.len() - 1;
    let inv_n = 1.0 / n as f64;
    let column = |j: usize| &x[j * n..(j + 1) * n];
    let mut z = vec![0.0; n];
    let mut violation = f64::INFINITY;
    for step in 0..max_iter {
        match offset {
            Some(o) => z.iter_mut().zip(o).for_each(|(v, oi)| *v = oi + theta[d]),
            None => z.iter_mut().for_each(|v| *v = theta[d]),
        }
        for (j, &wj) in theta[..d].iter().enumerate().filter(|(_, w)| **w != 0.0) {
            z.iter_mut().zip(column(j)).for_each(|(v, xij)| *v += wj * xij);
        }
        let p: Vec<f64> = z.iter().map(|&v| sigmoid(v)).collect();
        let resid: Vec<f64> = y.iter().zip(&p).map(|(yi, pi)| yi - pi).collect();
        let grad: Vec<f64> = (0..d).map(|j| -dot(column(j), &resid) * inv_n).collect();
        let grad_b = -resid.iter().sum::<f64>() * inv_n;
        violation = grad_b.abs();
        for j in 0..d {
            let v = if theta[j] != 0.0 { (grad[j] + lambda * theta[j].signum()).abs() } else { (grad[j].abs() - lambda).max(0.0) };
            violation = violation.max(v);
        }
        if violation <= tol {
            return Ok((step, violation));
        }
        let weights: Vec<f64> = p.iter().map(|pi| (pi * (1.0 - pi)).max(1e-10)).collect();
        let a: Vec<f64> = (0..d).map(|j| column(j).iter().zip(&weights).map(|(xij, wi)| wi * xij * xij).sum::<f64>() * inv_n).collect();
        let weight_sum = weights.iter().sum::<f64>() * inv_n;
        // Coordinate descent on the quadratic model; u = Δz, v = w + Δw, c = b + Δb.
        let mut u = vec![0.0; n];
        let mut v: Vec<f64> = theta.to_vec();
        let inner_threshold = 1e-2 * violation * violation;
        for _ in 0..10_000 {
            let mut max_change = 0.0_f64;
            let gb = resid.iter().zip(&weights).zip(&u).map(|((r, w), ui)| r - w * ui).sum::<f64>() * inv_n;
            let delta_b = gb / weight_sum;
            v[d] += delta_b;
            u.iter_mut().for_each(|ui| *ui += delta_b);
            max_change = max_change.max(weight_sum * delta_b * delta_b);
            for j in 0..d {
                let xj = column(j);
                let g =
                    xj.iter().zip(&resid).zip(weights.iter().zip(&u)).map(|((xij, r), (w, ui))| xij * (r - w * ui)).sum::<f64>() * inv_n;
                let new = if a[j] > 0.0 { soft_threshold(a[j] * v[j] + g, lambda) / a[j] } else { 0.0 };
                let delta = new - v[j];
                if delta != 0.0 {
                    u.iter_mut().zip(xj).for_each(|(ui, xij)| *ui += delta * xij);
                    v[j] = new;
                    max_change = max_change.max(a[j] * delta * delta);
                }
            }
            if max_change <= inner_threshold {
                break;
            }
        }
        // Line search on F along Δ; z moves by t·u.
        let l1 = |w: &[f64]| lambda * w.iter().map(|x| x.abs()).sum::<f64>();
        let objective = |t: f64, w: &[f64]| {
            z.iter().zip(&u).zip(y).map(|((zi, ui), yi)| softplus(zi + t * ui) - yi * (zi + t * ui)).sum::<f64>() * inv_n + l1(w)
        };
        let f0 = objective(0.0, &theta[..d]);
        let model_decrease =
            (0..d).map(|j| grad[j] * (v[j] - theta[j])).sum::<f64>() + grad_b * (v[d] - theta[d]) + l1(&v[..d]) - l1(&theta[..d]);
        let mut t = 1.0;
        let mut trial = vec![0.0; d + 1];
        loop {
            trial.iter_mut().zip(theta.iter().zip(&v)).for_each(|(out, (old, new))| *out = old + t * (new - old));
            let f = objective(t, &trial[..d]);
            if f <= f0 + 1e-4 * t * model_decrease || f <= f0 + 4.0 * f64::EPSILON * f0.abs() {
                break;
            }
            t *= 0.5;
            if t < 1e-12 {
                return Err(Error::Numerical(format!(
                    "L1 logistic regression at lambda = {lambda}: the line search found no decrease (optimality error {violation:e})"
                )));
            }
        }
        theta.copy_from_slice(&trial);
    }
    Ok((max_iter, violation))
}

fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 { 1.0 / (1.0 + (-z).exp()) } else { z.exp() / (1.0 + z.exp()) }
}

/// `log(1 + e^z)` without overflow.
fn softplus(z: f64) -> f64 {
    if z > 0.0 { z + (-z).exp().ln_1p() } else { z.exp().ln_1p() }
}
