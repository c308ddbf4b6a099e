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
