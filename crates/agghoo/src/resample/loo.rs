//! Leave-one-out: n splits, split i validates on row i alone.

use serde::{Deserialize, Serialize};

use super::{Split, Splits};
use crate::error::{Error, Result};
use crate::seed::Seed;

/// Leave-one-out (V = n).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaveOneOut;

impl LeaveOneOut {
    /// The n splits, in row order.
    ///
    /// # Errors
    /// [`Error::TooFewRows`] for n < 2.
    pub fn instantiate(&self, n: usize) -> Result<Splits> {
        if n < 2 {
            return Err(Error::TooFewRows { what: "leave-one-out".into(), needed: 2, found: n });
        }
        super::check_plan_size(format_args!("leave-one-out on {n} rows"), n as u128, n)?;
        let splits = (0..n).map(|i| Split::new((0..n).filter(|&j| j != i).collect(), vec![i])).collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
    }
}

impl super::Resampling for LeaveOneOut {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        let _ = seed;
        self.instantiate(ctx.n_rows)
    }
    fn describe(&self) -> String {
        "leave-one-out".into()
    }
    fn n_splits(&self) -> Option<usize> {
        None
    }
    fn text(&self) -> String {
        "loo".into()
    }
}

impl super::PlanType for LeaveOneOut {
    const SETTINGS: &'static [super::PlanSetting] = &[];
    const FORMS: &'static str = "loo";
    fn from_settings(_settings: &super::PlanSettings) -> Result<Self> {
        Ok(LeaveOneOut)
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        let _ = text;
        Ok(matches!(form, ["loo"]).then_some(LeaveOneOut))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_row_left_out_once() {
        let s = LeaveOneOut.instantiate(7).unwrap();
        assert_eq!(s.len(), 7);
        for (i, sp) in s.iter().enumerate() {
            assert_eq!(sp.validation(), &[i]);
            assert_eq!(sp.train().len(), 6);
        }
        assert!(LeaveOneOut.instantiate(1).is_err());
    }
}
