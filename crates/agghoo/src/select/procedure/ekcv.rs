//! EKCV (efficient K-fold CV, Jung): the average of the splits' selected hyperparameters, fitted
//! on all rows.

use super::{Choice, ChoiceContext, Procedure};
use crate::error::Result;
use crate::resample::PlanKind;
use crate::select::{Aggregation, Method};

/// Efficient K-fold CV ([`Method::Ekcv`]): `A_{m̄}(D)`, `m̄` the mean of the `m̂_{T_j}` in the
/// grid's scale ([`Grid::average`](crate::family::Grid::average)), fitted off the grid where the
/// family allows it; on a composite grid each axis averaged in its own way
/// ([`ChoiceContext::average`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Ekcv;

impl Procedure for Ekcv {
    fn method(&self) -> Method {
        Method::Ekcv
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::MonteCarlo
    }

    /// One refit at the averaged hyperparameter.
    fn refits(&self, _member_grid_indices: &[usize]) -> usize {
        1
    }

    fn keeps_split_models(&self) -> bool {
        false
    }

    fn combines_members(&self) -> bool {
        false
    }

    fn fits_off_the_grid(&self) -> bool {
        true
    }

    /// One refit at the averaged value (and point); the final value is the average before any
    /// rounding to the grid.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        let (member, final_value, final_point) = ctx.average(&ctx.selected())?;
        Ok(Choice { members: vec![member], aggregation: Aggregation::Single, final_value: Some(final_value), final_point })
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemberChoice;
    use super::super::tests::{context, grid, three_splits};
    use super::*;
    use crate::family::Scale;

    #[test]
    fn averages_the_selected_values_in_the_grids_scale() {
        let o = three_splits(); // selections 2, 0, 1: grid values 4, 1, 2
        let g = grid(Scale::Linear, false);
        let choice = Ekcv.choose(&context(&o, &g, Aggregation::Vote)).unwrap();
        let mean = (4.0 + 1.0 + 2.0) / 3.0;
        assert_eq!(choice.members, [MemberChoice::RefitAt { value: mean, nearest: 1 }]);
        assert_eq!((choice.aggregation, choice.final_value, choice.final_point), (Aggregation::Single, Some(mean), None));
        // On the log scale: the geometric mean, 2 (grid point 1).
        let g = grid(Scale::Log, true);
        let choice = Ekcv.choose(&context(&o, &g, Aggregation::Vote)).unwrap();
        let value = choice.final_value.unwrap();
        assert!((value - 2.0).abs() < 1e-12);
        assert_eq!(choice.members, [MemberChoice::RefitAt { value, nearest: 1 }]);
    }
}
