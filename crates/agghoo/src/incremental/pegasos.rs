//! PEGASOS: primal estimated sub-gradient solver for the linear SVM (Shalev-Shwartz et al. 2011),
//! the classification learner of the TreeCV paper.
//!
//! Objective: `min_w λ/2 ‖w‖² + (1/n) Σ max(0, 1 − y_i ⟨w, x_i⟩)`, `y ∈ {−1, +1}`. One step per
//! point, `t = 1, 2, …`: with `η_t = 1/(λ t)`,
//! `w ← (1 − η_t λ) w + η_t y x · 1{y ⟨w, x⟩ < 1}` (margin tested with the old `w`), then,
//! optionally, the projection `w ← min(1, (1/√λ)/‖w‖) · w` onto the ball that contains the
//! optimum. The model is the **last iterate**, as in the paper.
//!
//! Implementation. Without projection the iterate is kept as the sum `z = λ t w` of `y x` over
//! margin violations (unrolling the recursion: `λ t w_{t+1} = λ (t − 1) w_t + y x 1{…}`), so a step
//! is one dot product, a comparison with `λ (t − 1)` and, on a violation, one `±x` addition — no
//! division, no rescaling. With projection, `w = s · v` with a scalar `s`, so the shrink
//! `(1 − 1/t)` costs O(1) and only a margin violation touches the d coordinates. `‖v‖²` is kept
//! up to date (`‖v + a x‖² = ‖v‖² + 2a⟨v, x⟩ + a²‖x‖²`) only when projecting, and `s` is folded
//! back into `v` when it falls below 1e-100 (exact `‖v‖²` recomputed then). At `t = 1` the
//! shrink factor is 0: the state is reset to `w = 0` exactly rather than dividing by `s = 0`.
//!
//! **Bias.** By default there is none (the PEGASOS paper's setting). With `bias = true` a
//! constant feature 1 is appended, so the bias is regularised and projected like any weight
//! (the paper's § 6 suggestion); an unregularised bias would break the strong convexity the
//! step size `1/(λt)` relies on.
//!
//! **Labels.** Two classes named `0`/`1` or `-1`/`1` (`+1`), or a real target with only those
//! values, are mapped to `−1`/`+1`; anything else is refused with
//! [`Error::InvalidParameter`] naming the labels found (no silent "largest class is +1").

use serde::{Deserialize, Serialize};

use super::{Feature, Incremental, Rows, SnapshotMode, dot, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};

/// What PEGASOS's CV estimate measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PegasosLoss {
    /// Misclassification `1{sign(⟨w, x⟩) ≠ y}`, with `sign(0) = +1` (the paper's measure).
    #[default]
    ZeroOne,
    /// Hinge `max(0, 1 − y ⟨w, x⟩)`.
    Hinge,
}

/// PEGASOS configuration (λ, projection, bias, loss).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pegasos {
    lambda: f64,
    project: bool,
    bias: bool,
    loss: PegasosLoss,
}

impl Pegasos {
    /// PEGASOS with regularisation λ > 0, no projection, no bias, 0–1 loss.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless λ is finite and > 0.
    pub fn new(lambda: f64) -> Result<Self> {
        if !(lambda > 0.0 && lambda.is_finite()) {
            return Err(Error::invalid("lambda", "finite and > 0", lambda));
        }
        Ok(Self { lambda, project: false, bias: false, loss: PegasosLoss::ZeroOne })
    }
    /// Projects onto the ball of radius `1/√λ` after each step.
    pub fn with_projection(self, project: bool) -> Self {
        Self { project, ..self }
    }
    /// Appends a constant feature 1 (a regularised bias).
    pub fn with_bias(self, bias: bool) -> Self {
        Self { bias, ..self }
    }
    /// Chooses the evaluation loss.
    pub fn with_loss(self, loss: PegasosLoss) -> Self {
        Self { loss, ..self }
    }
    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }

    /// Feeds the rows in order (`f64` or `f32` storage).
    #[inline(always)]
    fn feed<T: Feature>(&self, model: &mut PegasosModel, rows: Rows<'_, T>) {
        if self.project {
            rows.iter().for_each(|(x, y)| self.step(model, x, y));
        } else {
            rows.iter().for_each(|(x, y)| self.step_sum(model, x, y));
        }
    }

    /// `Σ` loss over the rows, in row order. The scale `w / v` is computed once, not per row
    /// (same products, so the same scores as [`PegasosModel::score`]).
    #[inline(always)]
    fn losses<T: Feature>(&self, model: &PegasosModel, rows: Rows<'_, T>) -> f64 {
        let scale = model.scale();
        let score = |x: &[T]| scale * (dot(&model.v, x) + model.vb);
        match self.loss {
            PegasosLoss::ZeroOne => rows.iter().map(|(x, y)| f64::from(u8::from((score(x) >= 0.0) != (y > 0.0)))).sum(),
            PegasosLoss::Hinge => rows.iter().map(|(x, y)| (1.0 - y * score(x)).max(0.0)).sum(),
        }
    }

    /// One step without projection, in the sum form: `λ t w_{t+1} = λ (t − 1) w_t + y x 1{…}`,
    /// so `z = λ t w` is the sum of `y x` over violations and the margin test
    /// `y ⟨w_t, x⟩ < 1` reads `y ⟨z, x⟩ < λ (t − 1)` (always true at t = 1, where w = 0): no
    /// division and no rescaling per step. Same iterates as [`Pegasos::step`] up to rounding.
    #[inline(always)]
    fn step_sum<T: Feature>(&self, m: &mut PegasosModel, x: &[T], y: f64) {
        let violated = m.t == 0 || y * (dot(&m.v, x) + m.vb) < self.lambda * m.t as f64;
        m.t += 1;
        if violated {
            for (w, xi) in m.v.iter_mut().zip(x) {
                *w += y * xi.to_f64();
            }
            if self.bias {
                m.vb += y;
            }
        }
    }

    /// One step with projection, in the scaled form `w = s · v`.
    #[inline(always)]
    fn step<T: Feature>(&self, m: &mut PegasosModel, x: &[T], y: f64) {
        m.t += 1;
        let vx = dot(&m.v, x) + m.vb;
        let margin = y * m.s * vx;
        let shrink = 1.0 - 1.0 / m.t as f64;
        if shrink == 0.0 {
            m.v.iter_mut().for_each(|w| *w = 0.0);
            m.vb = 0.0;
            m.s = 1.0;
            m.norm2 = 0.0;
        } else {
            m.s *= shrink;
        }
        if margin < 1.0 {
            let eta = 1.0 / (self.lambda * m.t as f64);
            let a = eta * y / m.s;
            let bias = if self.bias { 1.0 } else { 0.0 };
            if self.project {
                // vx is ⟨v, x⟩ of the unshrunk v, unchanged by the shrink of s (zero after a reset).
                let vx_now = if shrink == 0.0 { 0.0 } else { vx };
                let xx = x.iter().map(|v| v.to_f64() * v.to_f64()).sum::<f64>() + bias;
                m.norm2 += 2.0 * a * vx_now + a * a * xx;
            }
            for (w, xi) in m.v.iter_mut().zip(x) {
                *w += a * xi.to_f64();
            }
            m.vb += a * bias;
        }
        if self.project {
            let radius = 1.0 / self.lambda.sqrt();
            let norm = m.s * m.norm2.max(0.0).sqrt();
            if norm > radius {
                m.s *= radius / norm;
            }
        }
        if m.s < 1e-100 {
            m.renormalise();
        }
    }
}

/// A PEGASOS model `w = s · v` (bias `s · v_b`) after `t` steps.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PegasosModel {
    v: Vec<f64>,
    vb: f64,
    s: f64,
    norm2: f64,
    t: u64,
    /// Without projection `v` is the running sum `z` of `y x` over margin violations and
    /// `w = z / (λ t)` (then `s` is unused); with projection `w = s · v`.
    sum_form: bool,
    lambda: f64,
}

impl PegasosModel {
    /// The weight vector `w` (without the bias).
    pub fn weights(&self) -> Vec<f64> {
        let s = self.scale();
        self.v.iter().map(|v| v * s).collect()
    }
    /// The bias (0 without `bias`).
    pub fn bias(&self) -> f64 {
        self.vb * self.scale()
    }
    /// `w / v`: `1/(λ t)` in the sum form (0 before any step), `s` otherwise.
    fn scale(&self) -> f64 {
        match (self.sum_form, self.t) {
            (true, 0) => 0.0,
            (true, t) => 1.0 / (self.lambda * t as f64),
            (false, _) => self.s,
        }
    }
    /// Number of points fed so far.
    pub fn n_steps(&self) -> u64 {
        self.t
    }
    /// The decision score `⟨w, x⟩ + b`.
    pub fn score(&self, x: &[f64]) -> f64 {
        self.scale() * (dot(&self.v, x) + self.vb)
    }
    fn renormalise(&mut self) {
        let s = self.s;
        self.v.iter_mut().for_each(|v| *v *= s);
        self.vb *= s;
        self.s = 1.0;
        self.norm2 = dot(&self.v, &self.v) + self.vb * self.vb;
    }
}

restore_fields!(PegasosModel { v, vb, s, norm2, t, sum_form, lambda });

impl Incremental for Pegasos {
    type Model = PegasosModel;
    type Log = Option<PegasosModel>;

    fn name(&self) -> &'static str {
        "pegasos"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        signed_labels(target)
    }

    fn init(&self, n_features: usize) -> PegasosModel {
        PegasosModel { v: vec![0.0; n_features], vb: 0.0, s: 1.0, norm2: 0.0, t: 0, sum_form: !self.project, lambda: self.lambda }
    }

    fn update(&self, model: &mut PegasosModel, rows: Rows<'_>) {
        self.feed(model, rows);
    }

    fn update_f32(&self, model: &mut PegasosModel, rows: Rows<'_, f32>) {
        self.feed(model, rows);
    }

    fn loss_sum_f32(&self, model: &PegasosModel, rows: Rows<'_, f32>) -> f64 {
        self.losses(model, rows)
    }

    fn update_in_order(&self, model: &mut PegasosModel, rows: Rows<'_>, order: &[u32]) {
        rows.for_each_block_in_order(order, |block| self.update(model, block));
    }

    fn loss_sum(&self, model: &PegasosModel, rows: Rows<'_>) -> f64 {
        self.losses(model, rows)
    }

    fn preferred_snapshot(&self) -> SnapshotMode {
        SnapshotMode::SaveRevert
    }

    whole_state_snapshots!();
}

/// Maps a binary target to `−1/+1` (see the module doc for the accepted labels).
pub(crate) fn signed_labels(target: &Target) -> Result<Vec<f64>> {
    let bad = |got: String| Error::invalid("labels", "two classes labelled {0, 1} or {-1, +1}", got);
    match target {
        Target::Classes { labels, names } => {
            let values: Vec<Option<f64>> = names.iter().map(|n| n.trim().parse::<f64>().ok()).collect();
            let ok = names.len() == 2 && matches!((values[0], values[1]), (Some(a), Some(1.0)) if a == 0.0 || a == -1.0);
            if !ok {
                return Err(bad(format!("{{{}}}", names.join(", "))));
            }
            Ok(labels.iter().map(|&l| if l == 1 { 1.0 } else { -1.0 }).collect())
        }
        Target::Real(v) => {
            if let Some(&y) = v.iter().find(|&&y| !(y == 0.0 || y == 1.0 || y == -1.0)) {
                return Err(bad(format!("the value {y}")));
            }
            if v.contains(&0.0) && v.contains(&-1.0) {
                return Err(bad("{-1, 0, 1}".into()));
            }
            Ok(v.iter().map(|&y| if y == 1.0 { 1.0 } else { -1.0 }).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_steps_by_hand() {
        let p = Pegasos::new(0.5).unwrap();
        let mut m = p.init(2);
        // t = 1: w = 0, margin 0 < 1 → w = (1/(0.5·1)) · (+1) · (1, 2) = (2, 4).
        let rows = Rows::new(&[1.0, 2.0, 1.0, 0.0], &[1.0, -1.0], 2).unwrap();
        p.update(&mut m, Rows::new(&rows.x()[..2], &rows.y()[..1], 2).unwrap());
        assert_eq!(m.weights(), vec![2.0, 4.0]);
        // t = 2: margin −1·⟨(2,4),(1,0)⟩ = −2 < 1 → w = ½ (2, 4) + 1 · (−1) · (1, 0) = (0, 2).
        p.update(&mut m, Rows::new(&rows.x()[2..], &rows.y()[1..], 2).unwrap());
        assert_eq!(m.weights(), vec![0.0, 2.0]);
    }

    #[test]
    fn sum_form_equals_scaled_form() {
        let p = Pegasos::new(1e-3).unwrap().with_bias(true);
        let (mut sum, mut scaled) = (p.init(3), p.init(3));
        scaled.sum_form = false;
        for i in 0..2000 {
            let x = [((i * 7919) % 13) as f64 - 6.0, ((i * 104_729) % 7) as f64 * 0.3, (i % 5) as f64 - 2.0];
            let y = if (x[0] + x[1] - 0.5 * x[2]) > 0.5 { 1.0 } else { -1.0 };
            p.step_sum(&mut sum, &x, y);
            p.step(&mut scaled, &x, y);
        }
        for (a, b) in sum.weights().iter().zip(scaled.weights()) {
            assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} vs {b}");
        }
        assert!((sum.bias() - scaled.bias()).abs() <= 1e-9 * scaled.bias().abs().max(1.0));
    }

    #[test]
    fn projection_bounds_the_norm() {
        let p = Pegasos::new(0.01).unwrap().with_projection(true).with_bias(true);
        let mut m = p.init(3);
        let x: Vec<f64> = (0..300).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
        let y: Vec<f64> = (0..100).map(|i| if i % 3 == 0 { 1.0 } else { -1.0 }).collect();
        p.update(&mut m, Rows::new(&x, &y, 3).unwrap());
        let w = m.weights();
        let norm = (dot(&w, &w) + m.bias() * m.bias()).sqrt();
        assert!(norm <= 10.0 * (1.0 + 1e-12), "{norm}");
    }

    #[test]
    fn labels_are_mapped_or_refused() {
        let t = Target::Classes { labels: vec![0, 1], names: vec!["-1".into(), "+1".into()] };
        assert_eq!(signed_labels(&t).unwrap(), vec![-1.0, 1.0]);
        let t = Target::Classes { labels: vec![0, 1], names: vec!["1".into(), "2".into()] };
        assert!(matches!(signed_labels(&t), Err(Error::InvalidParameter { name: "labels", .. })));
        assert!(signed_labels(&Target::Real(vec![0.0, 2.0])).is_err());
    }
}
