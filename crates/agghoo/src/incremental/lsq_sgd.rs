//! Least-squares SGD with iterate averaging and projection onto an ℓ2 ball: the robust stochastic
//! approximation of Nemirovski, Juditsky, Lan & Shapiro (2009) for the squared loss, the
//! regression learner of the TreeCV paper ("LSQSGD").
//!
//! Objective: `min_{‖w‖ ≤ R} E[½ (⟨w, x⟩ − y)²]`. One step per point, `t = 1, 2, …`:
//! `w_{t+1} = Π_R(w_t − γ_t (⟨w_t, x⟩ − y) x)` with `γ_t = γ_0 / √t` and `Π_R` the Euclidean
//! projection onto the ball of radius R (R = 1: "parameter vectors constrained in the unit ℓ2
//! ball", as the paper says). The model is the **average iterate**
//! `w̄_t = (1/t) Σ_{s=1..t} w_{s+1}`, kept by `w̄ ← w̄ + (w − w̄)/t`. The paper follows
//! Nemirovski et al.'s `1/√t` schedule; its constant was lost in our copy of the text, so
//! `γ_0` is a parameter (default 1, which is Nemirovski's `θ D/M` with D = R = 1 and a
//! gradient bound M of order 1 for features scaled to unit variance and targets in [0, 1]).
//!
//! **Bias.** With `bias = true` (the default, since the paper's targets lie in [0, 1] and are
//! not centred) a constant feature 1 is appended and the intercept is part of the projected
//! vector. Evaluation loss: squared error `(⟨w̄, x⟩ − y)²`.

use serde::{Deserialize, Serialize};

use super::{Feature, Incremental, Rows, SnapshotMode, dot, real_values, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};
use crate::loss::Loss;

/// LSQ-SGD configuration: step scale γ_0, radius R, bias.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LsqSgd {
    step: f64,
    radius: f64,
    bias: bool,
}

impl LsqSgd {
    /// `γ_t = step / √t`, ball of radius `radius`, with a bias.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless both are finite and > 0.
    pub fn new(step: f64, radius: f64) -> Result<Self> {
        if !(step > 0.0 && step.is_finite()) {
            return Err(Error::invalid("step", "finite and > 0", step));
        }
        if !(radius > 0.0 && radius.is_finite()) {
            return Err(Error::invalid("radius", "finite and > 0", radius));
        }
        Ok(Self { step, radius, bias: true })
    }
    /// The paper's setting: γ_0 = 1, unit ball, bias.
    pub fn paper() -> Self {
        Self { step: 1.0, radius: 1.0, bias: true }
    }
    /// Appends (or not) a constant feature 1.
    pub fn with_bias(self, bias: bool) -> Self {
        Self { bias, ..self }
    }

    #[inline(always)]
    fn step<T: Feature>(&self, m: &mut LsqSgdModel, x: &[T], y: f64) {
        m.t += 1;
        let t = m.t as f64;
        let residual = dot(&m.w, x) + m.wb - y;
        let a = self.step / t.sqrt() * residual;
        let mut norm2 = subtract_scaled_norm2(&mut m.w, a, x);
        if self.bias {
            m.wb -= a;
            norm2 += m.wb * m.wb;
        }
        let inv_t = 1.0 / t;
        if norm2 > self.radius * self.radius {
            let shrink = self.radius / norm2.sqrt();
            for (avg, w) in m.avg.iter_mut().zip(m.w.iter_mut()) {
                *w *= shrink;
                *avg += (*w - *avg) * inv_t;
            }
            m.wb *= shrink;
        } else {
            // No projection: `w · 1.0 = w` exactly, so the multiply is skipped.
            for (avg, w) in m.avg.iter_mut().zip(&m.w) {
                *avg += (*w - *avg) * inv_t;
            }
        }
        m.avg_b += (m.wb - m.avg_b) * inv_t;
    }
}

/// `w ← w − a x`, returning `‖w‖²` (new `w`) summed with four accumulators, so the squares do not
/// form one long chain of dependent additions (the step's critical path with a single sum).
#[inline(always)]
fn subtract_scaled_norm2<T: Feature>(w: &mut [f64], a: f64, x: &[T]) -> f64 {
    let n = w.len().min(x.len());
    let (w, x) = (&mut w[..n], &x[..n]);
    let mut acc = [0.0f64; 4];
    let mut wc = w.chunks_exact_mut(4);
    let mut xc = x.chunks_exact(4);
    for (p, q) in (&mut wc).zip(&mut xc) {
        for l in 0..4 {
            p[l] -= a * q[l].to_f64();
            acc[l] += p[l] * p[l];
        }
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (p, q) in wc.into_remainder().iter_mut().zip(xc.remainder()) {
        *p -= a * q.to_f64();
        s += *p * *p;
    }
    s
}

/// An LSQ-SGD model: the last iterate, the average iterate (the predictor) and the step count.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LsqSgdModel {
    w: Vec<f64>,
    wb: f64,
    avg: Vec<f64>,
    avg_b: f64,
    t: u64,
}

impl LsqSgdModel {
    /// The averaged weights `w̄` (the predictor).
    pub fn weights(&self) -> &[f64] {
        &self.avg
    }
    /// The averaged intercept.
    pub fn bias(&self) -> f64 {
        self.avg_b
    }
    /// The prediction `⟨w̄, x⟩ + b̄`.
    pub fn predict(&self, x: &[f64]) -> f64 {
        dot(&self.avg, x) + self.avg_b
    }
    /// Number of points fed so far.
    pub fn n_steps(&self) -> u64 {
        self.t
    }
}

restore_fields!(LsqSgdModel { w, wb, avg, avg_b, t });

impl Incremental for LsqSgd {
    type Model = LsqSgdModel;
    type Log = Option<LsqSgdModel>;

    fn name(&self) -> &'static str {
        "lsq-sgd"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        real_values(target, self.name())
    }

    fn init(&self, n_features: usize) -> LsqSgdModel {
        LsqSgdModel { w: vec![0.0; n_features], wb: 0.0, avg: vec![0.0; n_features], avg_b: 0.0, t: 0 }
    }

    fn update(&self, model: &mut LsqSgdModel, rows: Rows<'_>) {
        for (x, y) in rows.iter() {
            self.step(model, x, y);
        }
    }

    fn update_f32(&self, model: &mut LsqSgdModel, rows: Rows<'_, f32>) {
        for (x, y) in rows.iter() {
            self.step(model, x, y);
        }
    }

    fn loss_sum_f32(&self, model: &LsqSgdModel, rows: Rows<'_, f32>) -> f64 {
        rows.iter().map(|(x, y)| Loss::Squared.regression(dot(&model.avg, x) + model.avg_b, y)).sum()
    }

    fn update_in_order(&self, model: &mut LsqSgdModel, rows: Rows<'_>, order: &[u32]) {
        rows.for_each_block_in_order(order, |block| self.update(model, block));
    }

    fn loss_sum(&self, model: &LsqSgdModel, rows: Rows<'_>) -> f64 {
        rows.iter().map(|(x, y)| Loss::Squared.regression(model.predict(x), y)).sum()
    }

    fn preferred_snapshot(&self) -> SnapshotMode {
        SnapshotMode::SaveRevert
    }

    whole_state_snapshots!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_step_by_hand_and_projection() {
        let l = LsqSgd::new(0.5, 10.0).unwrap().with_bias(false);
        let mut m = l.init(2);
        // t = 1: residual −2, γ = 0.5 → w = 0 + 0.5·2·(1, 1) = (1, 1); average = w.
        l.update(&mut m, Rows::new(&[1.0, 1.0], &[2.0], 2).unwrap());
        assert_eq!(m.weights(), &[1.0, 1.0]);
        let l = LsqSgd::new(100.0, 1.0).unwrap().with_bias(false);
        let mut m = l.init(2);
        l.update(&mut m, Rows::new(&[3.0, 4.0], &[1.0], 2).unwrap());
        // w = 100·(3, 4) projected onto the unit ball = (0.6, 0.8).
        assert!((m.weights()[0] - 0.6).abs() < 1e-15 && (m.weights()[1] - 0.8).abs() < 1e-15);
    }
}
