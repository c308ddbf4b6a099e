//! The sweep over the rows between the two products of one evaluation: logits in, the summed
//! loss out and the residuals `P − Y` in place of the logits.
//!
//! The logits come row by row (`K` per row, as the logits product writes them); the sweep copies a
//! block of rows into a buffer class by class (`K` columns of the block's rows) and walks it one
//! class column after the other: every step is the same operation on consecutive rows, so each loop vectorises across rows (the row max
//! over the classes, the shifted exponentials through [`exp`], the row sums, the
//! normalisation), while each row still sees its own operations in the order of the row-by-row
//! formula (its sum runs over the classes in class order). The whole sweep is compiled for the
//! widest instruction set `pulp` finds at run time (AVX2 on x86-64) and for the baseline; both
//! copies perform the same IEEE operations on every value, so they give the same bits (tested).

use crate::family::numerics::exp::exp;

/// Rows per block: the block's columns (K · 1 KiB at 20 classes) stay in the first-level cache
/// between the passes over them.
const BLOCK: usize = 128;

/// One evaluation's sweep: `z` holds the logits row by row (`K` per row; `K = 1` for two
/// classes: the logit of class 1), with `y` each row's class (two classes: `y_float`, 0 or 1);
/// `buffer` is scratch space for one block of rows (`BLOCK · K` values).
pub(super) struct Sweep<'a> {
    pub(super) z: &'a mut [f64],
    pub(super) y: &'a [usize],
    pub(super) y_float: &'a [f64],
    pub(super) buffer: &'a mut Vec<f64>,
}

impl Sweep<'_> {
    /// Replaces the logits by the residuals `P − Y` (two classes: `σ(z) − y`) and returns the
    /// summed loss `Σ_i [log Σ_k exp(z_ik) − z_{i,y_i}]`. `vector`: compiled for the widest
    /// instruction set the processor has (otherwise the baseline copy, for the tests).
    pub(super) fn run(self, vector: bool) -> f64 {
        if vector { pulp::Arch::new().dispatch(self) } else { self.sweep() }
    }

    #[inline(always)]
    fn sweep(self) -> f64 {
        if self.z.len() == self.y.len() {
            binary(self.z, self.y_float)
        } else {
            self.buffer.resize(BLOCK * (self.z.len() / self.y.len().max(1)), 0.0);
            softmax(self.z, self.y, self.buffer)
        }
    }
}

impl pulp::WithSimd for Sweep<'_> {
    type Output = f64;
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) -> f64 {
        self.sweep()
    }
}

/// Two classes: the loss `max(z, 0) − y z + log(1 + e^{−|z|})` and `σ(z) − y` from one
/// exponential per row.
#[inline(always)]
fn binary(z: &mut [f64], y: &[f64]) -> f64 {
    let n = y.len();
    let mut log_sum = LogSum::default();
    let mut linear = 0.0;
    let mut e = [0.0; BLOCK];
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        let (z, y, e) = (&mut z[start..end], &y[start..end], &mut e[..end - start]);
        e.iter_mut().zip(z.iter()).for_each(|(e, &v)| *e = exp(-v.abs()));
        for ((&v, &yf), &e) in z.iter().zip(y).zip(e.iter()) {
            linear += (if v > 0.0 { v } else { 0.0 }) - yf * v;
            log_sum.add(1.0 + e);
        }
        for ((v, &yf), &e) in z.iter_mut().zip(y).zip(e.iter()) {
            let sigma = if *v >= 0.0 { 1.0 / (1.0 + e) } else { e / (1.0 + e) };
            *v = sigma - yf;
        }
    }
    linear + log_sum.finish()
}

/// Three or more classes: per row the largest logit `m`, the loss `m − z_{y} + log Σ_k e^{z_k − m}`
/// and the probabilities `e^{z_k − m} / Σ`, minus 1 at the row's class. Each block of rows is
/// copied into `buffer` class-major (one column per class), swept column by column, and copied back.
#[inline(always)]
fn softmax(z: &mut [f64], y: &[usize], buffer: &mut [f64]) -> f64 {
    let n = y.len();
    let k = z.len() / n.max(1);
    let mut log_sum = LogSum::default();
    let mut linear = 0.0;
    let (mut top, mut sum) = ([0.0; BLOCK], [0.0; BLOCK]);
    for start in (0..n).step_by(BLOCK) {
        let end = (start + BLOCK).min(n);
        let m = end - start;
        let (top, sum, y) = (&mut top[..m], &mut sum[..m], &y[start..end]);
        let rows = &mut z[start * k..end * k];
        let block = &mut buffer[..m * k];
        for (i, row) in rows.chunks_exact(k).enumerate() {
            row.iter().enumerate().for_each(|(c, &v)| block[c * m + i] = v);
        }
        top.copy_from_slice(&block[..m]);
        for column in block.chunks_exact(m).skip(1) {
            top.iter_mut().zip(column).for_each(|(t, &v)| *t = if v > *t { v } else { *t });
        }
        for (i, (&t, &yi)) in top.iter().zip(y).enumerate() {
            linear += t - block[yi * m + i];
        }
        sum.fill(0.0);
        for column in block.chunks_exact_mut(m) {
            for ((v, &t), s) in column.iter_mut().zip(top.iter()).zip(sum.iter_mut()) {
                let e = exp(*v - t);
                *v = e;
                *s += e;
            }
        }
        sum.iter().for_each(|&s| log_sum.add(s));
        // From here on `sum` holds the reciprocals.
        sum.iter_mut().for_each(|s| *s = 1.0 / *s);
        for column in block.chunks_exact_mut(m) {
            column.iter_mut().zip(sum.iter()).for_each(|(v, &inv)| *v *= inv);
        }
        for (i, &yi) in y.iter().enumerate() {
            block[yi * m + i] -= 1.0;
        }
        for (i, row) in rows.chunks_exact_mut(k).enumerate() {
            row.iter_mut().enumerate().for_each(|(c, v)| *v = block[c * m + i]);
        }
    }
    linear + log_sum.finish()
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
    #[inline(always)]
    fn add(&mut self, s: f64) {
        let p = self.product.unwrap_or(1.0) * s;
        if p > 1e250 {
            self.logs += p.ln();
            self.product = None;
        } else {
            self.product = Some(p);
        }
    }
    #[inline(always)]
    fn finish(self) -> f64 {
        self.logs + self.product.map_or(0.0, f64::ln)
    }
}
