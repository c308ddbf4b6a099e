//! Vector kernels shared by the coordinate-descent and quasi-Newton solvers (lasso, elastic net,
//! logistic regression), each in a fixed summation order so results are reproducible.

/// `S(z, t) = sign(z) max(|z| − t, 0)`.
pub(in crate::family) fn soft_threshold(z: f64, t: f64) -> f64 {
    if z > t {
        z - t
    } else if z < -t {
        z + t
    } else {
        0.0
    }
}

/// `aᵀb` in a fixed summation order.
pub(in crate::family) fn dot(a: &[f64], b: &[f64]) -> f64 {
    // Four accumulators: lets the compiler vectorise without reordering across calls (the order
    // is fixed, so results are reproducible).
    let mut acc = [0.0; 4];
    let chunks = a.len() / 4;
    for k in 0..chunks {
        for l in 0..4 {
            acc[l] += a[4 * k + l] * b[4 * k + l];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for k in 4 * chunks..a.len() {
        s += a[k] * b[k];
    }
    s
}
