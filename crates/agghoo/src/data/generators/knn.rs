//! The k-NN classification problem of the classification paper (`docs/RESULTS.md` § 1).

use rand::RngExt;

use crate::data::{Dataset, Target};
use crate::error::Result;
use crate::seed::{Purpose, Seed};

/// The k-NN problem's regression function `g(u, v) = exp(−(u² + v)³) + u² + v²`.
pub fn knn_g(u: f64, v: f64) -> f64 {
    (-(u * u + v).powi(3)).exp() + u * u + v * v
}

/// Threshold b of the k-NN problem.
pub const KNN_B: f64 = 1.18;
/// Temperature λ of the k-NN problem.
pub const KNN_LAMBDA: f64 = 0.05;

/// `P(Y = 1 | X = (u, v)) = σ((g(u, v) − b) / λ)`.
pub fn knn_eta(u: f64, v: f64) -> f64 {
    1.0 / (1.0 + (-(knn_g(u, v) - KNN_B) / KNN_LAMBDA).exp())
}

/// The Bayes classifier of the k-NN problem: `1{g(x) ≥ b}`.
pub fn knn_bayes(u: f64, v: f64) -> u32 {
    u32::from(knn_g(u, v) >= KNN_B)
}

/// The papers' k-NN classification problem (`docs/RESULTS.md` § 1): `X ~ U([0,1]²)`,
/// `P(Y=1|X) = σ((g(X) − b)/λ)`, Bayes risk ≈ 0.242. Rows are drawn from stream `index` of
/// `seed`'s data streams, so sample r of an experiment is reproducible on its own.
///
/// # Errors
/// [`Error::TooFewRows`](crate::Error::TooFewRows) for n = 0; [`Error::ResourceLimit`](crate::Error::ResourceLimit) when the data would exceed the memory budget.
pub fn knn_problem(n: usize, seed: Seed) -> Result<Dataset> {
    knn_problem_stream(n, seed, 0)
}

/// As [`knn_problem`], from stream `stream`.
///
/// # Errors
/// [`Error::TooFewRows`](crate::Error::TooFewRows) for n = 0; [`Error::ResourceLimit`](crate::Error::ResourceLimit) when the data would exceed the memory budget.
pub fn knn_problem_stream(n: usize, seed: Seed, stream: u64) -> Result<Dataset> {
    super::check_size("knn", n, 2)?;
    let mut rng = seed.rng(Purpose::Data, stream);
    let mut x = Vec::with_capacity(2 * n);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let (u, v): (f64, f64) = (rng.random(), rng.random());
        x.push(u);
        x.push(v);
        labels.push(u32::from(rng.random::<f64>() < knn_eta(u, v)));
    }
    Dataset::new(x, vec!["u".into(), "v".into()], Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y")
}

/// Exact excess-risk helper: the 0–1 risk of a labelling against the k-NN problem's
/// conditional probabilities, `(1/n) Σ [η(x_i) 1{ŷ_i = 0} + (1 − η(x_i)) 1{ŷ_i = 1}]`.
/// Averaging η instead of drawing labels removes the label noise from test-risk estimates.
pub fn knn_expected_risk(x: &[f64], predicted: &[u32]) -> f64 {
    let n = predicted.len().max(1) as f64;
    predicted
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let eta = knn_eta(x[2 * i], x[2 * i + 1]);
            if p == 1 { 1.0 - eta } else { eta }
        })
        .sum::<f64>()
        / n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bayes_risk_is_about_0_242() {
        let d = knn_problem(200_000, Seed(1)).unwrap();
        let bayes: Vec<u32> = (0..d.n_rows()).map(|i| knn_bayes(d.row(i)[0], d.row(i)[1])).collect();
        let r = knn_expected_risk(d.x(), &bayes);
        assert!((r - 0.242).abs() < 0.004, "{r}");
    }
}
