//! Folds given by the user: a fold id per row (a fold column), or a splits JSON file
//! ([`Splits::load`](super::Splits::load)).

use serde::{Deserialize, Serialize};

use super::Splits;
use super::vfold::splits_from_blocks;
use crate::error::{Error, Result};
use crate::seed::Seed;

/// A fold id per row; split j validates on the rows of the j-th distinct id (ids sorted).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserFolds {
    /// Fold id of each row.
    pub fold_of_row: Vec<String>,
}

impl UserFolds {
    /// Turns the fold column into splits.
    ///
    /// # Errors
    /// [`Error::SplitsMismatch`] when the column length is not n; [`Error::InvalidParameter`]
    /// with fewer than two distinct folds.
    pub fn instantiate(&self, n: usize) -> Result<Splits> {
        if self.fold_of_row.len() != n {
            return Err(Error::SplitsMismatch { expected: self.fold_of_row.len(), found: n });
        }
        let mut ids: Vec<&String> = self.fold_of_row.iter().collect();
        ids.sort();
        ids.dedup();
        if ids.len() < 2 {
            return Err(Error::invalid("fold column", "at least two distinct fold ids", ids.len()));
        }
        let block_of: Vec<usize> = self.fold_of_row.iter().map(|f| ids.binary_search(&f).unwrap_or(0)).collect();
        splits_from_blocks(n, &block_of, ids.len())
    }
}

impl super::Resampling for UserFolds {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        let _ = seed;
        self.instantiate(ctx.n_rows)
    }
    fn describe(&self) -> String {
        "user folds".into()
    }
    fn n_splits(&self) -> Option<usize> {
        None
    }
    fn text(&self) -> String {
        "folds".into()
    }
}

impl super::PlanType for UserFolds {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::FoldColumn];
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { fold_of_row: settings.fold_of_row.clone().unwrap_or_default() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn fold_column_defines_blocks() {
        let folds = UserFolds { fold_of_row: ["b", "a", "b", "c", "a"].iter().map(|s| s.to_string()).collect() };
        let s = folds.instantiate(5).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.get(0).unwrap().validation(), &[1, 4]);
        assert_eq!(s.get(1).unwrap().validation(), &[0, 2]);
        assert!(folds.instantiate(4).is_err());
    }
}
