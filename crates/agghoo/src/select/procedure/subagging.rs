//! Subagged hold-out: a hold-out split inside each training set, the inner selections combined.

use std::collections::HashSet;

use super::{Choice, ChoiceContext, Procedure};
use crate::error::Result;
use crate::resample::{HoldOut, PlanContext, PlanKind, Split, Splits};
use crate::seed::Purpose;
use crate::select::{Method, SelectConfig};

/// Subagged hold-out ([`Method::Subagging`]): on each training set `S_j` of the plan, a hold-out
/// split `T'_j ⊂ S_j` (training fraction [`SelectConfig::inner_fraction`], stream j of the
/// configuration's seed); members `f_{T'_j}`, combined by the context's aggregation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Subagging;

impl Procedure for Subagging {
    fn method(&self) -> Method {
        Method::Subagging
    }

    fn default_plan(&self) -> PlanKind {
        PlanKind::MonteCarlo
    }

    /// Members trained on the inner training sets: no refit.
    fn refits(&self, _member_grid_indices: &[usize]) -> usize {
        0
    }

    fn reads_inner_fraction(&self) -> bool {
        true
    }

    /// For each outer training set `S_j`, a hold-out split of `S_j`, expressed in rows of the data.
    fn evaluation_splits(&self, splits: &Splits, config: &SelectConfig) -> Result<Splits> {
        let plan = HoldOut { train_fraction: config.inner_fraction, stratify: false };
        let inner = splits
            .iter()
            .enumerate()
            .map(|(j, s)| {
                // The hold-out splits the distinct training rows: with a bootstrap plan a drawn row
                // keeps all its copies on the inner training side, or is validated once.
                let mut seen = HashSet::new();
                let distinct: Vec<usize> = s.train().iter().copied().filter(|&r| seen.insert(r)).collect();
                let sub = plan.instantiate(&PlanContext::rows(distinct.len()), config.seed.child(Purpose::Inner, j as u64))?;
                let sp = &sub.as_slice()[0];
                let validation: Vec<usize> = sp.validation().iter().map(|&i| distinct[i]).collect();
                let held_out: HashSet<usize> = validation.iter().copied().collect();
                Split::new(s.train().iter().copied().filter(|r| !held_out.contains(r)).collect(), validation)
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(splits.n_rows(), inner)
    }

    fn keeps_split_models(&self) -> bool {
        true
    }

    fn combines_members(&self) -> bool {
        true
    }

    /// Every inner split's selected model, in split order, combined as [`Agghoo`](super::Agghoo)'s.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        super::Agghoo.choose(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::super::MemberChoice;
    use super::super::tests::{context, grid, three_splits};
    use super::*;
    use crate::family::Scale;
    use crate::resample::{Plan, PlanContext as Context, VFold};
    use crate::seed::Seed;
    use crate::select::Aggregation;

    #[test]
    fn every_inner_split_member_combined() {
        let o = three_splits();
        let choice = Subagging.choose(&context(&o, &grid(Scale::Integer, false), Aggregation::Mean)).unwrap();
        assert_eq!(choice.members[2], MemberChoice::FromSplit { split: 2, grid_index: 1 });
        assert_eq!((choice.members.len(), choice.aggregation), (3, Aggregation::Mean));
    }

    #[test]
    fn inner_splits_stay_inside_each_training_set() {
        let outer = Plan::VFold(VFold::new(3).unwrap()).instantiate(&Context::rows(30), Seed(4)).unwrap();
        let inner = Subagging.evaluation_splits(&outer, &SelectConfig::new(Method::Subagging)).unwrap();
        assert_eq!(inner.len(), 3);
        for (o, i) in outer.iter().zip(inner.iter()) {
            assert!(i.train().iter().chain(i.validation()).all(|r| o.train().contains(r)));
            assert_eq!(i.train().len() + i.validation().len(), o.train().len());
        }
    }
}
