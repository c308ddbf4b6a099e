//! CV selection: the argmin of the CV curve (or the one-standard-error choice), refitted on all
//! rows.

use super::{Choice, ChoiceContext, MemberChoice, Procedure};
use crate::engine::{argmin, one_standard_error_by};
use crate::error::Result;
use crate::resample::PlanKind;
use crate::select::{Aggregation, Method};

/// CV selection ([`Method::Cv`]): `A_{m̂}(D)`, `m̂ = argmin CV(A_m)` of the size-weighted CV
/// curve, or with the one-standard-error rule the simplest grid point within one standard error
/// of the minimum in the grid's order of simplicity ([`ChoiceContext::compare_complexity`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cv;

impl Procedure for Cv {
    fn method(&self) -> Method {
        Method::Cv
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::VFold
    }

    /// One refit at the chosen grid point.
    fn refits(&self, _member_grid_indices: &[usize]) -> usize {
        1
    }

    fn keeps_split_models(&self) -> bool {
        false
    }

    fn combines_members(&self) -> bool {
        false
    }

    fn uses_one_standard_error(&self) -> bool {
        true
    }

    /// One refit at `m̂`, its validation risk the CV risk; the final value (and point) is `m̂`'s.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        let curve = &ctx.curve;
        let m = if ctx.one_standard_error {
            one_standard_error_by(&curve.mean, &curve.standard_error, ctx.tie, |a, b| ctx.compare_complexity(a, b))?
        } else {
            argmin(&curve.mean, ctx.tie)?
        };
        Ok(Choice {
            members: vec![MemberChoice::Refit { grid_index: m, validation_risk: Some(curve.mean[m]) }],
            aggregation: Aggregation::Single,
            final_value: Some(ctx.value(m)),
            final_point: ctx.point(m),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{context, grid, outcomes};
    use super::*;
    use crate::family::Scale;

    /// Validation sizes 10, 30, 10: the weighted curve is (0.42, 0.24, 0.22, 0.25) (the
    /// unweighted mean would pick grid point 3); the standard error at grid point 2 is 0.1.
    fn weighted() -> Vec<crate::engine::SplitOutcome> {
        outcomes([[0.6, 0.3, 0.4, 0.1], [0.3, 0.2, 0.1, 0.35], [0.6, 0.3, 0.4, 0.1]], [10, 30, 10])
    }

    #[test]
    fn picks_the_argmin_of_the_size_weighted_curve() {
        let o = weighted();
        let g = grid(Scale::Integer, false);
        let ctx = context(&o, &g, Aggregation::Vote);
        let choice = Cv.choose(&ctx).unwrap();
        let mean = (10.0 * 0.4 + 30.0 * 0.1 + 10.0 * 0.4) / 50.0;
        assert_eq!(choice.members, [MemberChoice::Refit { grid_index: 2, validation_risk: Some(ctx.curve.mean[2]) }]);
        assert!((ctx.curve.mean[2] - mean).abs() < 1e-15);
        assert_eq!((choice.aggregation, choice.final_value, choice.final_point), (Aggregation::Single, Some(4.0), None));
    }

    #[test]
    fn one_standard_error_moves_to_the_simplest_within_one_se() {
        let o = weighted();
        // Smaller k is simpler: grid point 1 (0.24) is within 0.22 + 0.1 of the minimum, 0 (0.42) is not.
        let g = grid(Scale::Integer, false);
        let mut ctx = context(&o, &g, Aggregation::Vote);
        ctx.one_standard_error = true;
        let se = ctx.curve.standard_error[2];
        assert!(ctx.curve.mean[1] <= ctx.curve.mean[2] + se && ctx.curve.mean[0] > ctx.curve.mean[2] + se);
        let choice = Cv.choose(&ctx).unwrap();
        assert_eq!(choice.members[0].grid_index(), 1);
        assert_eq!(choice.final_value, Some(2.0));
        // Larger is simpler: grid point 3 (0.25) is within one SE.
        let g = grid(Scale::Integer, true);
        let mut ctx = context(&o, &g, Aggregation::Vote);
        ctx.one_standard_error = true;
        assert_eq!(Cv.choose(&ctx).unwrap().members[0].grid_index(), 3);
    }
}
