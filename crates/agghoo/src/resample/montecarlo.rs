//! Monte-Carlo plan: V training sets drawn independently and uniformly among the subsets of size
//! `⌊τ n⌋` (SPEC: Agghoo's default plan; "Monte-Carlo CV").

use serde::{Deserialize, Serialize};

use super::{Split, Splits, TrainFraction, check_count, shuffle};
use crate::error::Result;
use crate::seed::{Purpose, Seed};

/// V independent uniform training sets of size `⌊τ n⌋`; validation = the complement.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonteCarlo {
    /// Number of splits V (≥ 1).
    pub n_splits: usize,
    /// Training fraction τ.
    pub train_fraction: TrainFraction,
}

impl MonteCarlo {
    /// A Monte-Carlo plan.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParameter`] for V = 0 or τ ∉ (0, 1).
    pub fn new(n_splits: usize, tau: f64) -> Result<Self> {
        check_count("splits", n_splits, 1, "at least 1")?;
        Ok(Self { n_splits, train_fraction: TrainFraction::new(tau)? })
    }

    /// Draws the splits; split j uses random stream j, so split j does not depend on V.
    ///
    /// ```
    /// let s = agghoo::resample::MonteCarlo::new(5, 0.8)?.instantiate(11, agghoo::Seed(1))?;
    /// assert!(s.iter().all(|sp| sp.train().len() == 8 && sp.validation().len() == 3));
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`crate::Error::TooFewRows`] when `⌊τ n⌋` is 0 or n.
    pub fn instantiate(&self, n: usize, seed: Seed) -> Result<Splits> {
        let k = self.train_fraction.train_size(n)?;
        super::check_plan_size(format_args!("Monte-Carlo with V = {}", self.n_splits), self.n_splits as u128, n)?;
        let splits = (0..self.n_splits)
            .map(|j| {
                let mut order: Vec<usize> = (0..n).collect();
                shuffle(&mut order, &mut seed.rng(Purpose::Splits, j as u64));
                let (train, val) = order.split_at_mut(k);
                train.sort_unstable();
                val.sort_unstable();
                Split::new(train.to_vec(), val.to_vec())
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn training_sets_have_size_floor_tau_n(n in 4usize..300, v in 1usize..15, tau in 0.05f64..0.95, seed: u64) {
            let k = (tau * n as f64).floor() as usize;
            prop_assume!(k >= 1 && k < n);
            let s = MonteCarlo::new(v, tau).unwrap().instantiate(n, Seed(seed)).unwrap();
            prop_assert_eq!(s.len(), v);
            for sp in s.iter() {
                prop_assert_eq!(sp.train().len(), k);
                prop_assert_eq!(sp.validation().len(), n - k);
                let mut all: Vec<usize> = sp.train().iter().chain(sp.validation()).copied().collect();
                all.sort_unstable();
                prop_assert!(all.iter().enumerate().all(|(i, &r)| i == r));
            }
        }
    }

    #[test]
    fn training_sets_are_distinct() {
        let s = MonteCarlo::new(20, 0.5).unwrap().instantiate(100, Seed(4)).unwrap();
        for a in 0..s.len() {
            for b in a + 1..s.len() {
                assert_ne!(s.get(a).unwrap().train(), s.get(b).unwrap().train());
            }
        }
    }

    #[test]
    fn bad_tau_and_v() {
        assert!(MonteCarlo::new(3, 1.0).is_err());
        assert!(MonteCarlo::new(3, 0.0).is_err());
        assert!(MonteCarlo::new(3, f64::NAN).is_err());
        assert!(MonteCarlo::new(0, 0.5).is_err());
        assert!(MonteCarlo::new(2, 0.5).unwrap().instantiate(1, Seed(0)).is_err());
    }
}
