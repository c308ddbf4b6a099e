//! Hold-out selection: the model selected on the first split, trained on its training rows.

use super::{Choice, ChoiceContext, MemberChoice, Procedure};
use crate::error::{Error, Result};
use crate::resample::{PlanKind, Splits};
use crate::select::{Aggregation, Method, SelectConfig};

/// Hold-out selection ([`Method::HoldOut`]): evaluates the plan's first split only; its member is
/// that split's selected model `f_T`.
#[derive(Clone, Copy, Debug, Default)]
pub struct HoldOut;

impl Procedure for HoldOut {
    fn method(&self) -> Method {
        Method::HoldOut
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::HoldOut
    }

    /// The first split's model: no refit.
    fn refits(&self, _member_grid_indices: &[usize]) -> usize {
        0
    }

    fn evaluation_splits(&self, splits: &Splits, _config: &SelectConfig) -> Result<Splits> {
        let first = splits.as_slice().first().ok_or_else(|| Error::invalid("splits", "at least one", 0))?;
        Splits::new(splits.n_rows(), vec![first.clone()])
    }

    fn keeps_split_models(&self) -> bool {
        true
    }

    fn combines_members(&self) -> bool {
        false
    }

    /// Split 0's selected model, used alone.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        let first = ctx.outcomes.first().ok_or_else(|| Error::invalid("outcomes", "at least one", 0))?;
        Ok(Choice::combined(vec![MemberChoice::FromSplit { split: 0, grid_index: first.selected }], Aggregation::Single))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{context, grid, three_splits};
    use super::*;
    use crate::family::Scale;

    #[test]
    fn picks_split_zeros_member() {
        let o = three_splits();
        let g = grid(Scale::Integer, false);
        let choice = HoldOut.choose(&context(&o[..1], &g, Aggregation::Vote)).unwrap();
        assert_eq!(choice.members, [MemberChoice::FromSplit { split: 0, grid_index: 2 }]);
        assert_eq!((choice.aggregation, choice.final_value), (Aggregation::Single, None));
        assert_eq!(choice.members[0].validation_risk(&o), Some(0.2));
        assert!(HoldOut.choose(&context(&[], &g, Aggregation::Vote)).is_err());
    }
}
