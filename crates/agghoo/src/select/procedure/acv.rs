//! ACV (K-fold averaging CV, Jung & Hu): each split's selected rule retrained on all rows, the
//! retrained rules combined.

use super::{Choice, ChoiceContext, MemberChoice, Procedure};
use crate::error::Result;
use crate::resample::PlanKind;
use crate::select::Method;

/// K-fold averaging CV ([`Method::Acv`]): members `A_{m̂_{T_j}}(D)`, one per split in split order,
/// combined by the context's aggregation. Members that chose the same grid point are one fit on
/// D, shared ([`conclude`](crate::select::conclude) fits each distinct grid point once).
#[derive(Clone, Copy, Debug, Default)]
pub struct Acv;

impl Procedure for Acv {
    fn method(&self) -> Method {
        Method::Acv
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::MonteCarlo
    }

    /// One refit per distinct selected grid point (members that chose the same point share it).
    fn refits(&self, member_grid_indices: &[usize]) -> usize {
        let mut distinct = member_grid_indices.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        distinct.len()
    }

    fn keeps_split_models(&self) -> bool {
        false
    }

    fn combines_members(&self) -> bool {
        true
    }

    /// Each split's choice as a refit on all rows, without a validation risk (members count as
    /// equal in the vote's tie rule).
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        let members = ctx.outcomes.iter().map(|o| MemberChoice::Refit { grid_index: o.selected, validation_risk: None }).collect();
        Ok(Choice::combined(members, ctx.aggregation))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{context, grid, outcomes};
    use super::*;
    use crate::family::Scale;
    use crate::select::Aggregation;

    #[test]
    fn lists_each_splits_choice_as_a_refit() {
        let o = outcomes([[0.4, 0.3, 0.2, 0.5], [0.1, 0.3, 0.2, 0.5], [0.4, 0.3, 0.2, 0.5]], [10, 10, 10]);
        let g = grid(Scale::Log, true);
        let choice = Acv.choose(&context(&o, &g, Aggregation::Mean)).unwrap();
        let refit = |grid_index| MemberChoice::Refit { grid_index, validation_risk: None };
        assert_eq!(choice.members, [refit(2), refit(0), refit(2)]);
        assert_eq!((choice.aggregation, choice.final_value), (Aggregation::Mean, None));
        assert_eq!(choice.members[0].validation_risk(&o), None);
    }
}
