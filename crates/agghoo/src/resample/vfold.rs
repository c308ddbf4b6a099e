//! V-fold cross-validation plans: plain, stratified, grouped, repeated.
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

/// V-fold where every group (a value of a group column) stays within one block.
///
/// Groups are assigned largest first to the currently smallest block (scikit-learn's `GroupKFold`);
/// equal-sized groups are ordered by a seeded shuffle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupVFold {
    /// Number of blocks V (≥ 2, ≤ number of groups).
    pub n_folds: usize,
}

impl GroupVFold {
    /// Draws the splits using `ctx.groups`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without groups or with fewer groups than blocks.
    pub fn instantiate(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        check_count("folds", self.n_folds, 2, "at least 2")?;
        let groups = ctx.groups.ok_or_else(|| Error::invalid("group", "a group column (--group COL)", "none"))?;
        let n_groups = groups.iter().copied().max().map_or(0, |g| g as usize + 1);
        let mut sizes = vec![0usize; n_groups];
        for &g in groups {
            sizes[g as usize] += 1;
        }
        let present: Vec<usize> = (0..n_groups).filter(|&g| sizes[g] > 0).collect();
        if present.len() < self.n_folds {
            return Err(Error::TooFewRows {
                what: format!("{}-fold grouped cross-validation (groups)", self.n_folds),
                needed: self.n_folds,
                found: present.len(),
            });
        }
        let mut order = present;
        shuffle(&mut order, &mut seed.rng(Purpose::Splits, 0));
        order.sort_by_key(|&g| std::cmp::Reverse(sizes[g]));
        let mut load = vec![0usize; self.n_folds];
        let mut block_of_group = vec![0usize; n_groups];
        for g in order {
            let b = (0..self.n_folds).min_by_key(|&b| (load[b], b)).unwrap_or(0);
            block_of_group[g] = b;
            load[b] += sizes[g];
        }
        let block_of: Vec<usize> = groups.iter().map(|&g| block_of_group[g as usize]).collect();
        splits_from_blocks(ctx.n_rows, &block_of, self.n_folds)
    }
}

/// V-fold repeated R times with independent shuffles: R·V splits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepeatedVFold {
    /// Number of blocks V.
    pub n_folds: usize,
    /// Number of repetitions R (≥ 1).
    pub n_repeats: usize,
    /// Stratify each repetition by class.
    pub stratify: bool,
}

impl RepeatedVFold {
    /// The repetitions of a plan built without them ([`Plan::from_kind`](super::Plan::from_kind)).
    pub const DEFAULT_REPEATS: usize = 5;

    /// V-fold repeated R times, unstratified.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for V < 2 or R = 0.
    pub fn new(n_folds: usize, n_repeats: usize) -> Result<Self> {
        VFold::new(n_folds)?;
        check_count("repeats", n_repeats, 1, "at least 1")?;
        Ok(Self { n_folds, n_repeats, stratify: false })
    }
    /// Draws R·V splits; repetition r uses a child seed derived from r.
    ///
    /// # Errors
    /// As [`VFold::instantiate_with`]; R = 0 is invalid.
    pub fn instantiate(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        check_count("repeats", self.n_repeats, 1, "at least 1")?;
        let n_splits = self.n_folds as u128 * self.n_repeats as u128;
        super::check_plan_size(format_args!("{}×{}-fold cross-validation", self.n_repeats, self.n_folds), n_splits, ctx.n_rows)?;
        let plan = VFold { n_folds: self.n_folds, stratify: self.stratify, shuffle: true };
        let mut all = Vec::with_capacity(n_splits as usize);
        for r in 0..self.n_repeats {
            let s = plan.instantiate_with(ctx, seed.child(Purpose::Splits, r as u64))?;
            all.extend(s.iter().cloned());
        }
        Splits::new(ctx.n_rows, all)
    }
}

impl super::Resampling for VFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate_with(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}-fold{}", self.n_folds, if self.stratify { " stratified" } else { "" })
    }
}

impl super::Resampling for GroupVFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}-fold by group", self.n_folds)
    }
}

impl super::Resampling for RepeatedVFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}×{}-fold{}", self.n_repeats, self.n_folds, if self.stratify { " stratified" } else { "" })
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
    fn groups_stay_together() {
        let groups: Vec<u32> = (0..50).map(|i| (i / 3) as u32).collect();
        let ctx = PlanContext { n_rows: 50, strata: None, groups: Some(&groups) };
        let splits = GroupVFold { n_folds: 4 }.instantiate(&ctx, Seed(3)).unwrap();
        for s in splits.iter() {
            for &i in s.validation() {
                assert!(s.train().iter().all(|&t| groups[t] != groups[i]));
            }
        }
        let total: usize = splits.iter().map(|s| s.validation().len()).sum();
        assert_eq!(total, 50);
    }

    #[test]
    fn repeated_gives_r_times_v_distinct_partitions() {
        let s = RepeatedVFold { n_folds: 5, n_repeats: 3, stratify: false }.instantiate(&PlanContext::rows(40), Seed(1)).unwrap();
        assert_eq!(s.len(), 15);
        assert_ne!(s.get(0).unwrap().validation(), s.get(5).unwrap().validation());
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
