//! Covertype-shaped data for TreeCV (the TreeCV paper's experiment, `docs/RESULTS.md` § 5:
//! PEGASOS, 581,012 × 54, class 1 vs rest).
//!
//! Generating model (row by row, from stream 0 of the seed's [`Purpose::Data`] streams):
//! - **10 continuous features** `c_j = (z_j + ½ z_{j+1}) / √1.25`, `z ~ N(0, I_11)`: standard
//!   normal, neighbours correlated 0.4 (Covertype's elevation, slopes, distances are correlated
//!   and the paper scales them to unit variance);
//! - **44 binary features**: a one-hot *wilderness area* (4 columns, probabilities
//!   0.45, 0.05, 0.44, 0.06, Covertype's proportions) and a one-hot *soil type* (40 columns,
//!   `P(s) ∝ (s + 1)^{−0.8}`, a few common types and a long tail);
//! - **label** `y = 1{β·c + a_w + g_s + 0.6 ε > τ}`, `ε ~ N(0, 1)`, with
//!   `β = (1.0, −0.5, 0.3, 0, 0.2, −0.3, 0.1, 0, 0.4, −0.2)`, wilderness effects
//!   `a = (0.3, −0.5, 0.2, −1.0)`, soil effects `g_s = 0.6 cos(s)` and `τ = 0.73`, which gives
//!   about 36 % positives (Covertype's class 1 is 36.5 %). Classes are named `0` and `1`.
//!
//! A noisy linear-threshold rule, so a linear SVM is the right model but cannot reach zero error
//! (label noise ε makes the Bayes error positive): CV estimates are informative and λ-sensitive.

use rand::RngExt;

use super::normal;
use crate::data::{Dataset, Target};
use crate::error::Result;
use crate::seed::{Purpose, Seed};

const BETA: [f64; 10] = [1.0, -0.5, 0.3, 0.0, 0.2, -0.3, 0.1, 0.0, 0.4, -0.2];
const WILDERNESS_P: [f64; 4] = [0.45, 0.05, 0.44, 0.06];
const WILDERNESS_EFFECT: [f64; 4] = [0.3, -0.5, 0.2, -1.0];
const N_SOIL: usize = 40;
const THRESHOLD: f64 = 0.73;

/// Draws an index from cumulative probabilities (the last index absorbs rounding).
fn categorical(cumulative: &[f64], u: f64) -> usize {
    cumulative.iter().position(|&c| u < c).unwrap_or(cumulative.len() - 1)
}

/// A Covertype-like binary problem: n rows, 54 features (10 continuous + 4 + 40 one-hot),
/// label "class 1 vs rest" from the generating model in the module doc.
///
/// ```
/// let d = agghoo::data::generators::covertype_like(1000, agghoo::Seed(1))?;
/// assert_eq!((d.n_rows(), d.n_features()), (1000, 54));
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooFewRows`](crate::Error::TooFewRows) for n = 0; [`Error::ResourceLimit`](crate::Error::ResourceLimit) when the data would exceed the memory budget.
pub fn covertype_like(n: usize, seed: Seed) -> Result<Dataset> {
    let d = 10 + 4 + N_SOIL;
    super::check_size("covertype", n, d)?;
    let mut rng = seed.rng(Purpose::Data, 0);
    let cum = |p: &[f64]| -> Vec<f64> {
        let total: f64 = p.iter().sum();
        p.iter()
            .scan(0.0, |acc, &v| {
                *acc += v / total;
                Some(*acc)
            })
            .collect()
    };
    let wild_cum = cum(&WILDERNESS_P);
    let soil_p: Vec<f64> = (0..N_SOIL).map(|s| ((s + 1) as f64).powf(-0.8)).collect();
    let soil_cum = cum(&soil_p);
    let mut x = vec![0.0; n * d];
    let mut labels = Vec::with_capacity(n);
    let mut z = [0.0; 11];
    for row in x.chunks_exact_mut(d) {
        z.iter_mut().for_each(|v| *v = normal(&mut rng));
        let mut score = 0.0;
        for j in 0..10 {
            let c = (z[j] + 0.5 * z[j + 1]) / 1.25f64.sqrt();
            row[j] = c;
            score += BETA[j] * c;
        }
        let w = categorical(&wild_cum, rng.random::<f64>());
        let s = categorical(&soil_cum, rng.random::<f64>());
        row[10 + w] = 1.0;
        row[14 + s] = 1.0;
        score += WILDERNESS_EFFECT[w] + 0.6 * (s as f64).cos() + 0.6 * normal(&mut rng);
        labels.push(u32::from(score > THRESHOLD));
    }
    let names = (0..10)
        .map(|j| format!("c{j}"))
        .chain((0..4).map(|j| format!("wilderness{j}")))
        .chain((0..N_SOIL).map(|j| format!("soil{j}")))
        .collect();
    Dataset::new(x, names, Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "class1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn about_36_percent_positives_and_one_hot() {
        let d = covertype_like(50_000, Seed(3)).unwrap();
        let Target::Classes { labels, .. } = d.target() else { panic!("classes") };
        let rate = labels.iter().filter(|&&l| l == 1).count() as f64 / labels.len() as f64;
        assert!((rate - 0.36).abs() < 0.01, "{rate}");
        for i in 0..100 {
            let r = d.row(i);
            assert_eq!(r[10..14].iter().sum::<f64>(), 1.0);
            assert_eq!(r[14..].iter().sum::<f64>(), 1.0);
        }
    }
}
