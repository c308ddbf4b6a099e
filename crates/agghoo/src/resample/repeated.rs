//! Repeated V-fold: V-fold drawn R times with independent shuffles.

use serde::{Deserialize, Serialize};

use super::{PlanContext, Splits, VFold, check_count};
use crate::error::Result;
use crate::seed::{Purpose, Seed};

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

impl super::Resampling for RepeatedVFold {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("{}×{}-fold{}", self.n_repeats, self.n_folds, if self.stratify { " stratified" } else { "" })
    }
    fn n_splits(&self) -> Option<usize> {
        Some(self.n_folds * self.n_repeats)
    }
    fn text(&self) -> String {
        format!("repeated:{}:{}", self.n_folds, self.n_repeats)
    }
}

impl super::PlanType for RepeatedVFold {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::Repeats, super::PlanSetting::Stratify];
    const FORMS: &'static str = "repeated:V:R, 5x2";
    const STRATIFIED_BY_DEFAULT: bool = true;
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { stratify: settings.stratify, ..Self::new(settings.n_splits(), settings.repeats.unwrap_or(Self::DEFAULT_REPEATS))? })
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["repeated", v, r] => Some(Self::new(text.int(v)?, text.int(r)?)?),
            ["5x2"] => Some(Self::new(2, 5)?),
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

    #[test]
    fn repeated_gives_r_times_v_distinct_partitions() {
        let s = RepeatedVFold { n_folds: 5, n_repeats: 3, stratify: false }.instantiate(&PlanContext::rows(40), Seed(1)).unwrap();
        assert_eq!(s.len(), 15);
        assert_ne!(s.get(0).unwrap().validation(), s.get(5).unwrap().validation());
    }
}
