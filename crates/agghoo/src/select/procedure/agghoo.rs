//! Agghoo: every split's selected model, combined (averaged for regression, voted for
//! classification).

use super::{Choice, ChoiceContext, Procedure};
use crate::error::Result;
use crate::resample::PlanKind;
use crate::select::Method;

/// Aggregated hold-out ([`Method::Agghoo`]): the V hold-out predictors `f_{T_j}`, combined by
/// the context's aggregation (mean for regression, vote for classification by default).
#[derive(Clone, Copy, Debug, Default)]
pub struct Agghoo;

impl Procedure for Agghoo {
    fn method(&self) -> Method {
        Method::Agghoo
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::MonteCarlo
    }

    /// Members trained on the splits' training sets: no refit.
    fn refits(&self, _member_grid_indices: &[usize]) -> usize {
        0
    }

    fn keeps_split_models(&self) -> bool {
        true
    }

    fn combines_members(&self) -> bool {
        true
    }

    /// Every split's selected model, in split order, combined by the context's aggregation.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        Ok(Choice::combined(ctx.split_members(), ctx.aggregation))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{context, grid, outcomes};
    use super::super::{Majhoo, MemberChoice};
    use super::*;
    use crate::data::Task;
    use crate::family::Scale;
    use crate::select::Aggregation;

    #[test]
    fn every_split_member_in_split_order() {
        let o = outcomes([[0.4, 0.3, 0.2, 0.5], [0.1, 0.3, 0.2, 0.5], [0.4, 0.1, 0.2, 0.5]], [10, 12, 10]);
        let g = grid(Scale::Integer, false);
        for p in [&Agghoo as &dyn Procedure, &Majhoo] {
            let choice = p.choose(&context(&o, &g, Aggregation::Vote)).unwrap();
            let expected: Vec<MemberChoice> =
                [2, 0, 1].iter().enumerate().map(|(split, &grid_index)| MemberChoice::FromSplit { split, grid_index }).collect();
            assert_eq!(choice.members, expected);
            assert_eq!((choice.aggregation, choice.final_value), (Aggregation::Vote, None));
            let risks: Vec<Option<f64>> = choice.members.iter().map(|m| m.validation_risk(&o)).collect();
            assert_eq!(risks, [Some(0.2), Some(0.1), Some(0.1)]);
        }
        assert!(Majhoo.check_task(Task::Regression).is_err() && Agghoo.check_task(Task::Regression).is_ok());
    }
}
