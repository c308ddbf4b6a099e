//! The statistics every estimate shares, in one place.

/// `(Σ_j w_j x_j, sd_j(x_j)/√V)` with `w_j ∝ weights[j]` (uniform when `None`): the
/// size-weighted mean of per-split risks and the standard error of their plain mean (sample
/// standard deviation over √V); the standard error is `None` for a single value.
///
/// ```
/// use agghoo::engine::summarize;
/// let (mean, se) = summarize(&[1.0, 2.0, 3.0], None);
/// assert_eq!(mean, 2.0);
/// assert!((se.unwrap() - (1.0f64 / 3.0).sqrt()).abs() < 1e-15);
/// assert_eq!(summarize(&[1.0, 4.0], Some(&[3.0, 1.0])).0, 1.75);
/// ```
pub fn summarize(values: &[f64], weights: Option<&[f64]>) -> (f64, Option<f64>) {
    let v = values.len() as f64;
    let plain = values.iter().sum::<f64>() / v.max(1.0);
    let estimate = match weights {
        Some(w) => {
            let total: f64 = w.iter().sum();
            values.iter().zip(w).map(|(x, w)| w / total * x).sum()
        }
        None => plain,
    };
    let se = (values.len() > 1).then(|| (values.iter().map(|x| (x - plain).powi(2)).sum::<f64>() / (v - 1.0) / v).sqrt());
    (estimate, se)
}
