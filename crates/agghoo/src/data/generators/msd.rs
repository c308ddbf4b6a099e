//! YearPredictionMSD-shaped data for TreeCV (the TreeCV paper's experiment, `docs/RESULTS.md`
//! § 5: LSQ-SGD, 463,715 × 90, targets scaled to [0, 1]).
//!
//! Generating model (row by row, from stream 0 of the seed's [`Purpose::Data`] streams), shaped
//! like MSD's 12 timbre averages followed by the 78 entries of the timbre covariance:
//! - `z ~ N(0, I_12)`; **features 0–11** are `z`;
//! - **features 12–89**, one per pair `a ≤ b` of the 12 (78 pairs, in row-major order of the
//!   upper triangle): `(p_ab + ½ ε_ab) / √1.25` with `p_ab = z_a z_b` for `a ≠ b` and
//!   `p_aa = (z_a² − 1)/√2`, `ε ~ N(0, 1)` — all 90 features have mean 0 and unit variance;
//! - **target** `t = 0.4 + Σ_{a<12} β_a z_a + 0.3 tanh(z_0 z_1) + 0.1 (z_2² − 1) + 0.5 ε`,
//!   `β_a = 0.5 / (a + 1)`, and `y = 1 / (1 + e^{−t})` ∈ (0, 1): a noisy, mostly linear signal
//!   with a non-linear part a linear model cannot capture, scaled to [0, 1] by a fixed logistic
//!   map (not by the sample's min and max, so that y of a row does not depend on n).

use super::normal;
use crate::data::{Dataset, Target};
use crate::error::Result;
use crate::seed::{Purpose, Seed};

/// A YearPredictionMSD-like regression problem: n rows, 90 features, target in (0, 1), from the
/// generating model in the module doc.
///
/// ```
/// let d = agghoo::data::generators::msd_like(500, agghoo::Seed(1))?;
/// assert_eq!((d.n_rows(), d.n_features()), (500, 90));
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::TooFewRows`](crate::Error::TooFewRows) for n = 0; [`Error::ResourceLimit`](crate::Error::ResourceLimit) when the data would exceed the memory budget.
pub fn msd_like(n: usize, seed: Seed) -> Result<Dataset> {
    const D: usize = 90;
    super::check_size("msd", n, D)?;
    let mut rng = seed.rng(Purpose::Data, 0);
    let mut x = vec![0.0; n * D];
    let mut y = Vec::with_capacity(n);
    let mut z = [0.0; 12];
    let scale = 1.0 / 1.25f64.sqrt();
    for row in x.chunks_exact_mut(D) {
        z.iter_mut().for_each(|v| *v = normal(&mut rng));
        row[..12].copy_from_slice(&z);
        let mut col = 12;
        for a in 0..12 {
            for b in a..12 {
                let p = if a == b { (z[a] * z[a] - 1.0) / std::f64::consts::SQRT_2 } else { z[a] * z[b] };
                row[col] = (p + 0.5 * normal(&mut rng)) * scale;
                col += 1;
            }
        }
        let linear: f64 = z.iter().enumerate().map(|(a, v)| 0.5 / (a + 1) as f64 * v).sum();
        let t = 0.4 + linear + 0.3 * (z[0] * z[1]).tanh() + 0.1 * (z[2] * z[2] - 1.0) + 0.5 * normal(&mut rng);
        y.push(1.0 / (1.0 + (-t).exp()));
    }
    let names = (0..D).map(|j| format!("timbre{j}")).collect();
    Dataset::new(x, names, Target::Real(y), "year")
}
