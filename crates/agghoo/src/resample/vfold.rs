//! V-fold cross-validation, plain or stratified (grouped: `group.rs`, repeated: `repeated.rs`).
//!
//! Block sizes follow scikit-learn's `KFold`: the first `n mod V` blocks get one extra row, so
//! sizes differ by at most one and every row is in exactly one validation block (unlike linfa's
//! `fold`, which drops the last `n mod V` rows).

use serde::{Deserialize, Serialize};

use super::{PlanContext, Split, Splits, check_count, shuffle};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

/// V-fold: a random partition of the rows in V blocks; split j validates on block j.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VFold {
    /// Number of blocks V (≥ 2).
    pub n_folds: usize,
    /// Keep class proportions in every block (rows sorted by class, dealt round-robin).
    pub stratify: bool,
    /// Shuffle the rows before cutting blocks (true by default; false gives contiguous blocks).
    pub shuffle: bool,
}

impl VFold {
    /// A shuffled, unstratified V-fold plan.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when V < 2.
    pub fn new(n_folds: usize) -> Result<Self> {
        check_count("folds", n_folds, 2, "at least 2")?;
        Ok(Self { n_folds, stratify: false, shuffle: true })
    }

    /// Same plan, stratified by class.
    pub fn stratified(self) -> Self {
        Self { stratify: true, ..self }
    }

    /// Draws the splits for `n` rows (unstratified).
    ///
    /// ```
    /// let splits = agghoo::resample::VFold::new(3)?.instantiate(10, agghoo::Seed(7))?;
    /// let sizes: Vec<usize> = splits.iter().map(|s| s.validation().len()).collect();
    /// assert_eq!(sizes, [4, 3, 3]); // the first n mod V blocks get one extra row
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooFewRows`] when n < V.
    pub fn instantiate(&self, n: usize, seed: Seed) -> Result<Splits> {
        self.instantiate_with(&PlanContext::rows(n), seed)
    }

    /// Draws the splits; uses `ctx.strata` when stratified.
    ///
    /// # Errors
    /// [`Error::TooFewRows`] when n < V; [`Error::InvalidParameter`] when stratification is asked
    /// for without classes.
    pub fn instantiate_with(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        check_count("folds", self.n_folds, 2, "at least 2")?;
        let n = ctx.n_rows;
        if n < self.n_folds {
            return Err(Error::TooFewRows { what: format!("{}-fold cross-validation", self.n_folds), needed: self.n_folds, found: n });
        }
        let mut order: Vec<usize> = (0..n).collect();
        if self.shuffle {
            shuffle(&mut order, &mut seed.rng(Purpose::Splits, 0));
        }
        let block_of: Vec<usize> = if self.stratify {
            let strata = ctx.strata.ok_or_else(|| Error::invalid("stratify", "used with a classification target", "a real target"))?;
            // Stable sort by class keeps the shuffled order within each class; dealing the
            // sorted sequence round-robin gives per-class counts within one of proportional.
            order.sort_by_key(|&i| strata[i]);
            let mut block = vec![0; n];
            for (pos, &i) in order.iter().enumerate() {
                block[i] = pos % self.n_folds;
            }
            block
        } else {
            let mut block = vec![0; n];
            let (base, extra) = (n / self.n_folds, n % self.n_folds);
            let mut pos = 0;
            for b in 0..self.n_folds {
                let size = base + usize::from(b < extra);
                for &i in &order[pos..pos + size] {
                    block[i] = b;
                }
                pos += size;
            }
            block
        };
        splits_from_blocks(n, &block_of, self.n_folds)
    }
}

/// Turns a block id per row into V splits (validation = block j, train = the rest), rows sorted.
pub(crate) fn splits_from_blocks(n: usize, block_of: &[usize], n_blocks: usize) -> Result<Splits> {
    super::check_plan_size(format_args!("{n_blocks}-fold cross-validation"), n_blocks as u128, n)?;
    let mut validation: Vec<Vec<usize>> = vec![Vec::new(); n_blocks];
    for (i, &b) in block_of.iter().enumerate() {
        validation[b].push(i);
    }
    let splits = validation
        .into_iter()
        .map(|val| {
            let mut in_val = vec![false; n];
            for &i in &val {
                in_val[i] = true;
            }
            let train = (0..n).filter(|&i| !in_val[i]).collect();
            Split::new(train, val)
        })
        .collect::<Result<Vec<_>>>()?;
    Splits::new(n, splits)
}

impl super::Resampling for VFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate_with(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}-fold{}", self.n_folds, if self.stratify { " stratified" } else { "" })
    }
    fn n_splits(&self) -> Option<usize> {
        Some(self.n_folds)
    }
    fn text(&self) -> String {
        format!("vfold:{}", self.n_folds)
    }
}

impl super::PlanType for VFold {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::Stratify];
    const FORMS: &'static str = "vfold:V";
    const STRATIFIED_BY_DEFAULT: bool = true;
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { stratify: settings.stratify, ..Self::new(settings.n_splits())? })
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["vfold", v] => Some(Self::new(text.int(v)?)?),
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
        fn vfold_blocks_partition_rows(n in 2usize..400, v in 2usize..12, seed: u64) {
            prop_assume!(v <= n);
            let splits = VFold::new(v).unwrap().instantiate(n, Seed(seed)).unwrap();
            prop_assert_eq!(splits.len(), v);
            let mut hits = vec![0u8; n];
            for split in splits.iter() {
                for &row in split.validation() { hits[row] += 1; }
                // train is exactly the complement of validation
                prop_assert_eq!(split.train().len() + split.validation().len(), n);
                let mut all: Vec<usize> = split.train().iter().chain(split.validation()).copied().collect();
                all.sort_unstable();
                prop_assert!(all.iter().enumerate().all(|(i, &r)| i == r));
            }
            prop_assert!(hits.iter().all(|&h| h == 1));
            let sizes: Vec<usize> = splits.iter().map(|s| s.validation().len()).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }

        #[test]
        fn stratified_blocks_keep_class_counts(n in 10usize..300, v in 2usize..8, k in 2u32..5, seed: u64) {
            prop_assume!(v <= n);
            let labels: Vec<u32> = (0..n).map(|i| ((i * 7919) % (k as usize * 3)) as u32 % k).collect();
            let ctx = PlanContext { n_rows: n, strata: Some(&labels), groups: None };
            let splits = VFold::new(v).unwrap().stratified().instantiate_with(&ctx, Seed(seed)).unwrap();
            for class in 0..k {
                let total = labels.iter().filter(|&&l| l == class).count() as f64;
                for s in splits.iter() {
                    let in_block = s.validation().iter().filter(|&&i| labels[i] == class).count() as f64;
                    let expected = total * s.validation().len() as f64 / n as f64;
                    prop_assert!((in_block - expected).abs() <= 1.0 + 1e-9, "class {} block has {} expected {}", class, in_block, expected);
                }
            }
            let sizes: Vec<usize> = splits.iter().map(|s| s.validation().len()).collect();
            prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
        }
    }

    #[test]
    fn fewer_rows_than_folds_is_an_error() {
        assert!(matches!(VFold::new(5).unwrap().instantiate(3, Seed(0)), Err(Error::TooFewRows { needed: 5, found: 3, .. })));
        assert!(matches!(VFold::new(0), Err(Error::InvalidParameter { .. })));
        assert!(matches!(VFold::new(1), Err(Error::InvalidParameter { .. })));
    }

    #[test]
    fn same_seed_same_splits() {
        let a = VFold::new(4).unwrap().instantiate(30, Seed(9)).unwrap();
        let b = VFold::new(4).unwrap().instantiate(30, Seed(9)).unwrap();
        let c = VFold::new(4).unwrap().instantiate(30, Seed(10)).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
