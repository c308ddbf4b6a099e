//! Monte-Carlo plan: V training sets drawn independently and uniformly among the subsets of size
//! `⌊τ n⌋` (Agghoo's default plan in the papers; "Monte-Carlo CV").

use serde::{Deserialize, Serialize};

use super::{PlanContext, Split, Splits, TrainFraction, check_count, shuffle};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

/// V independent uniform training sets of size `⌊τ n⌋`; validation = the complement.
///
/// Stratified (as scikit-learn's `StratifiedShuffleSplit`): class c, with `n_c` rows, gets
/// `⌊τ n · n_c / n⌋` training rows, and the `⌊τ n⌋ − Σ_c ⌊…⌋` rows left over go one each to the
/// classes with the largest fractional parts (ties: the first class); within each class the
/// training rows are drawn uniformly. Every split then has `⌊τ n⌋` training rows and per-class
/// counts within one of proportional.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonteCarlo {
    /// Number of splits V (≥ 1).
    pub n_splits: usize,
    /// Training fraction τ.
    pub train_fraction: TrainFraction,
    /// Draw each class proportionally (needs the classes as strata).
    #[serde(default)]
    pub stratify: bool,
}

impl MonteCarlo {
    /// A Monte-Carlo plan.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParameter`] for V = 0 or τ ∉ (0, 1).
    pub fn new(n_splits: usize, tau: f64) -> Result<Self> {
        check_count("splits", n_splits, 1, "at least 1")?;
        Ok(Self { n_splits, train_fraction: TrainFraction::new(tau)?, stratify: false })
    }

    /// The same plan, stratified by class (see the type's docs).
    pub fn stratified(self) -> Self {
        Self { stratify: true, ..self }
    }

    /// Draws the splits, by class when stratified.
    ///
    /// ```
    /// use agghoo::resample::{MonteCarlo, PlanContext};
    /// let labels = [0u32, 0, 0, 0, 0, 0, 1, 1, 1, 1];
    /// let ctx = PlanContext { strata: Some(&labels), ..PlanContext::rows(10) };
    /// let s = MonteCarlo::new(20, 0.5)?.stratified().instantiate_with(&ctx, agghoo::Seed(3))?;
    /// // 5 training rows: 3 of the 6 zeros and 2 of the 4 ones, in every split.
    /// assert!(s.iter().all(|sp| sp.train().iter().filter(|&&i| labels[i] == 1).count() == 2));
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MonteCarlo::instantiate`]; [`Error::InvalidParameter`] when stratified without strata
    /// (a real target).
    pub fn instantiate_with(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        if !self.stratify {
            return self.instantiate(ctx.n_rows, seed);
        }
        let strata = ctx.strata.ok_or_else(|| Error::invalid("stratify", "used with a classification target", "a real target"))?;
        let n = ctx.n_rows;
        let k = self.train_fraction.train_size(n)?;
        let n_classes = strata.iter().max().map_or(0, |&c| c as usize + 1);
        let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); n_classes];
        for (i, &c) in strata.iter().enumerate().take(n) {
            rows_of[c as usize].push(i);
        }
        // Largest-remainder allocation of the k training rows.
        let mut n_train: Vec<usize> = rows_of.iter().map(|r| k * r.len() / n).collect();
        let mut by_remainder: Vec<usize> = (0..n_classes).collect();
        by_remainder.sort_by_key(|&c| std::cmp::Reverse((k * rows_of[c].len()) % n));
        let left = k - n_train.iter().sum::<usize>();
        for &c in by_remainder.iter().take(left) {
            n_train[c] += 1;
        }
        let splits = (0..self.n_splits)
            .map(|j| {
                let mut rng = seed.rng(Purpose::Splits, j as u64);
                let (mut train, mut validation) = (Vec::with_capacity(k), Vec::with_capacity(n - k));
                for (rows, &t) in rows_of.iter().zip(&n_train) {
                    let mut order = rows.clone();
                    shuffle(&mut order, &mut rng);
                    train.extend_from_slice(&order[..t]);
                    validation.extend_from_slice(&order[t..]);
                }
                train.sort_unstable();
                validation.sort_unstable();
                Split::new(train, validation)
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
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

impl super::Resampling for MonteCarlo {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate_with(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("Monte-Carlo V={} τ={}{}", self.n_splits, self.train_fraction.get(), if self.stratify { " stratified" } else { "" })
    }
    fn n_splits(&self) -> Option<usize> {
        Some(self.n_splits)
    }
    fn text(&self) -> String {
        format!("mc:{}:{}", self.n_splits, self.train_fraction.get())
    }
}

impl super::PlanType for MonteCarlo {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::Tau, super::PlanSetting::Stratify];
    const FORMS: &'static str = "mc:V:TAU";
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { stratify: settings.stratify, ..Self::new(settings.n_splits(), settings.tau())? })
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["mc", v, tau] => Some(Self::new(text.int(v)?, text.real(tau)?)?),
            _ => None,
        })
    }
    fn stratified(self) -> Self {
        Self { stratify: true, ..self }
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

    /// Every split holds ⌊τn⌋ training rows with per-class counts within one of proportional
    /// (three classes of 50, 30 and 20 rows, τ = 0.7: exactly 35, 21 and 14).
    #[test]
    fn stratified_splits_keep_class_proportions() {
        let labels: Vec<u32> = (0..100)
            .map(|i| {
                if i < 50 {
                    0
                } else if i < 80 {
                    1
                } else {
                    2
                }
            })
            .collect();
        let ctx = PlanContext { strata: Some(&labels), ..PlanContext::rows(100) };
        let plan = MonteCarlo::new(30, 0.7).unwrap().stratified();
        let s = plan.instantiate_with(&ctx, Seed(9)).unwrap();
        for sp in s.iter() {
            let count = |c: u32| sp.train().iter().filter(|&&i| labels[i] == c).count();
            assert_eq!((count(0), count(1), count(2)), (35, 21, 14));
        }
        assert!(s.get(0).unwrap().train() != s.get(1).unwrap().train());
        // Uneven: 7 + 3 rows, τ = 0.5 → 5 training rows, 3.5 and 1.5 → 4 and 1 (largest remainder, first class on a tie).
        let labels: Vec<u32> = (0..10).map(|i| u32::from(i >= 7)).collect();
        let ctx = PlanContext { strata: Some(&labels), ..PlanContext::rows(10) };
        let s = MonteCarlo::new(5, 0.5).unwrap().stratified().instantiate_with(&ctx, Seed(1)).unwrap();
        assert!(s.iter().all(|sp| sp.train().len() == 5 && sp.train().iter().filter(|&&i| labels[i] == 1).count() == 1));
        assert!(plan.instantiate_with(&PlanContext::rows(100), Seed(0)).is_err());
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
