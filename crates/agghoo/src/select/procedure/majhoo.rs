//! Majhoo: Agghoo's members, majority-voted, for classification only.

use super::{Agghoo, Choice, ChoiceContext, Procedure};
use crate::data::Task;
use crate::error::{Error, Result};
use crate::resample::PlanKind;
use crate::select::Method;

/// Majority-vote aggregated hold-out ([`Method::Majhoo`]): Agghoo's members, for classification
/// only.
#[derive(Clone, Copy, Debug, Default)]
pub struct Majhoo;

impl Procedure for Majhoo {
    fn method(&self) -> Method {
        Method::Majhoo
    }

    /// Agghoo's: Monte-Carlo splits.
    fn default_plan(&self) -> PlanKind {
        Agghoo.default_plan()
    }

    /// Agghoo's: none.
    fn refits(&self, member_grid_indices: &[usize]) -> usize {
        Agghoo.refits(member_grid_indices)
    }

    /// Agghoo's: its members are split models.
    fn keeps_split_models(&self) -> bool {
        Agghoo.keeps_split_models()
    }

    /// Agghoo's: several members.
    fn combines_members(&self) -> bool {
        Agghoo.combines_members()
    }

    fn check_task(&self, task: Task) -> Result<()> {
        match task {
            Task::Classification => Ok(()),
            Task::Regression => Err(Error::TaskMismatch("Majhoo (majority vote) is for classification; use agghoo for regression".into())),
        }
    }

    /// As [`Agghoo`]'s.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice> {
        Agghoo.choose(ctx)
    }
}
