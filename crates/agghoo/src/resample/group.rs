//! Grouped V-fold: whole groups (values of a group column) in one validation block.

use serde::{Deserialize, Serialize};

use super::vfold::splits_from_blocks;
use super::{PlanContext, Splits, check_count, shuffle};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

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

impl super::Resampling for GroupVFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}-fold by group", self.n_folds)
    }
    fn n_splits(&self) -> Option<usize> {
        None
    }
    fn text(&self) -> String {
        format!("group:{}", self.n_folds)
    }
}

impl super::PlanType for GroupVFold {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::Group];
    const GROUPED_FORMS: &'static str = "group:V";
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        match form {
            ["group", v] if text.with_groups() => Ok(Some(Self { n_folds: text.int(v)? })),
            _ => Ok(None),
        }
    }
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { n_folds: settings.n_splits() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// `group:V` is a text form only where the rows bring their groups, and its errors list it
    /// with the other forms.
    #[test]
    fn group_v_is_read_where_the_groups_come_with_the_rows() {
        use super::super::Plan;
        assert_eq!(Plan::parse_with_groups(" group : 4 ", false).unwrap(), Plan::GroupVFold(GroupVFold { n_folds: 4 }));
        assert_eq!(Plan::parse_with_groups("mc:10:0.8", true).unwrap(), Plan::parse("mc:10:0.8", true).unwrap());
        let expected = |e: Error| match e {
            Error::InvalidParameter { name, expected, got } => (name, expected, got),
            other => panic!("{other}"),
        };
        let (name, forms, got) = expected(Plan::parse("group:4", false).unwrap_err());
        assert_eq!((name, got.as_str()), ("plan", "group:4"));
        assert!(!forms.contains("group:V"), "{forms}");
        for bad in ["group:x", "group", "group:4:2", "nope"] {
            let (name, forms, got) = expected(Plan::parse_with_groups(bad, false).unwrap_err());
            assert_eq!((name, got.as_str()), ("plan", bad));
            assert!(forms.contains("group:V") && forms.contains("vfold:V"), "{forms}");
        }
        assert_eq!(expected(Plan::parse_with_groups("group:4", true).unwrap_err()).0, "stratify");
    }
}
