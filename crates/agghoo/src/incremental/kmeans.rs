//! Online k-means (MacQueen 1967) as an incremental, unsupervised learner.
//!
//! **Initialisation (deterministic):** the first K points fed become the K centres, in feeding
//! order (so the randomised TreeCV order also randomises the initialisation, reproducibly from
//! the seed). **Step:** afterwards each point x moves its nearest centre j (ties to the smallest
//! index) by `c_j ← c_j + (x − c_j) / n_j` after `n_j ← n_j + 1`, so every centre is the mean of
//! the points it has absorbed. **Loss:** `min_j ‖x − c_j‖²`. The target is ignored.
//!
//! Rejected: k-means++ seeding, which needs a pass over data the learner has not seen yet.

use super::{Incremental, Rows, no_target, restore_fields, whole_state_snapshots};
use crate::data::Target;
use crate::error::{Error, Result};

/// Online k-means configuration (K centres).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnlineKMeans {
    n_centres: usize,
}

impl OnlineKMeans {
    /// Online k-means with `n_centres ≥ 1` centres.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for 0 centres; [`Error::ResourceLimit`] beyond the centre
    /// limit ([`Count::Centres`](crate::limits::Count::Centres)).
    pub fn new(n_centres: usize) -> Result<Self> {
        if n_centres == 0 {
            return Err(Error::invalid("n_centres", "at least 1", n_centres));
        }
        crate::limits::check_count(crate::limits::Count::Centres, n_centres as u128, "online k-means")?;
        Ok(Self { n_centres })
    }

    #[inline(always)]
    fn step(&self, m: &mut OnlineKMeansModel, x: &[f64]) {
        let d = x.len();
        if m.counts.len() < self.n_centres {
            m.centres.extend_from_slice(x);
            m.counts.push(1.0);
            return;
        }
        let (j, _) = nearest(&m.centres, d, x);
        m.counts[j] += 1.0;
        let inv = 1.0 / m.counts[j];
        for (c, xi) in m.centres[j * d..(j + 1) * d].iter_mut().zip(x) {
            *c += (xi - *c) * inv;
        }
    }
}

/// Index and squared distance of the nearest centre (first on ties); `(0, +∞)` with no centre.
#[inline(always)]
fn nearest(centres: &[f64], d: usize, x: &[f64]) -> (usize, f64) {
    let mut best = (0, f64::INFINITY);
    for (j, c) in centres.chunks_exact(d).enumerate() {
        let dist: f64 = c.iter().zip(x).map(|(a, b)| (a - b) * (a - b)).sum();
        if dist < best.1 {
            best = (j, dist);
        }
    }
    best
}

/// The centres (row-major, up to K of them) and their counts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct OnlineKMeansModel {
    centres: Vec<f64>,
    counts: Vec<f64>,
}

impl OnlineKMeansModel {
    /// The centres, row-major.
    pub fn centres(&self) -> &[f64] {
        &self.centres
    }
}

restore_fields!(OnlineKMeansModel { centres, counts });

impl Incremental for OnlineKMeans {
    type Model = OnlineKMeansModel;
    type Log = Option<OnlineKMeansModel>;

    fn name(&self) -> &'static str {
        "kmeans"
    }

    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>> {
        Ok(no_target(target))
    }

    fn init(&self, n_features: usize) -> OnlineKMeansModel {
        OnlineKMeansModel { centres: Vec::with_capacity(self.n_centres * n_features), counts: Vec::with_capacity(self.n_centres) }
    }

    fn update(&self, model: &mut OnlineKMeansModel, rows: Rows<'_>) {
        for (x, _) in rows.iter() {
            self.step(model, x);
        }
    }

    fn update_in_order(&self, model: &mut OnlineKMeansModel, rows: Rows<'_>, order: &[u32]) {
        for &i in order {
            self.step(model, rows.row(i as usize));
        }
    }

    fn loss_sum(&self, model: &OnlineKMeansModel, rows: Rows<'_>) -> f64 {
        rows.iter().map(|(x, _)| nearest(&model.centres, rows.n_features(), x).1).sum()
    }

    whole_state_snapshots!();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centres_are_means_of_absorbed_points() {
        let k = OnlineKMeans::new(2).unwrap();
        let mut m = k.init(1);
        let x = [0.0, 10.0, 1.0, 11.0, 2.0];
        k.update(&mut m, Rows::new(&x, &[0.0; 5], 1).unwrap());
        assert_eq!(m.centres(), &[1.0, 10.5]);
        assert_eq!(k.loss_sum(&m, Rows::new(&[3.0], &[0.0], 1).unwrap()), 4.0);
    }
}
