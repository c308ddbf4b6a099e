//! The plans by name (what users choose with `--plan`), and which settings apply to which plan.

use crate::names::named;

/// A kind of [`Plan`](super::Plan), as users name it; its settings come separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanKind {
    /// One split with training fraction τ ([`HoldOut`](super::HoldOut)).
    HoldOut,
    /// V-fold ([`VFold`](super::VFold)).
    VFold,
    /// Repeated V-fold ([`RepeatedVFold`](super::RepeatedVFold)).
    Repeated,
    /// Monte-Carlo ([`MonteCarlo`](super::MonteCarlo)).
    MonteCarlo,
    /// Leave-one-out ([`LeaveOneOut`](super::LeaveOneOut)).
    LeaveOneOut,
    /// Leave-p-out ([`LeavePOut`](super::LeavePOut)).
    LeavePOut,
    /// Bootstrap ([`Bootstrap`](super::Bootstrap)).
    Bootstrap,
    /// Grouped V-fold ([`GroupVFold`](super::GroupVFold)).
    Group,
    /// User folds ([`UserFolds`](super::UserFolds)).
    Folds,
    /// Time-ordered splits ([`TimeSeries`](super::TimeSeries)).
    Time,
}

named!(display PlanKind, "plan", [
    PlanKind::HoldOut => "holdout": "One split with training fraction τ",
    PlanKind::VFold => "vfold": "V-fold (shuffled; stratified by class for a classification target unless --no-stratify)",
    PlanKind::Repeated => "repeated": "Repeated V-fold (stratified as V-fold)",
    PlanKind::MonteCarlo => "mc": "Monte-Carlo: V independent training sets of size ⌊τn⌋",
    PlanKind::LeaveOneOut => "loo": "Leave-one-out",
    PlanKind::LeavePOut => "lpo": "Leave-p-out (all subsets when at most V·… , else a sample of V)",
    PlanKind::Bootstrap => "bootstrap": "Bootstrap (validation = out-of-bag)",
    PlanKind::Group => "group": "Grouped V-fold (--group COL)",
    PlanKind::Folds => "folds": "User folds (--fold-column COL)",
    PlanKind::Time => "time": "Time-ordered splits in file order (scikit-learn's TimeSeriesSplit): --splits S, --gap G, --max-train-size M, --test-size T",
]);

/// A setting that only some plans read (the number of splits applies to all).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanSetting {
    /// The training fraction τ.
    Tau,
    /// The gap of time splits.
    Gap,
    /// The training window of time splits.
    MaxTrainSize,
    /// The test size of time splits.
    TestSize,
    /// The repetitions of repeated V-fold.
    Repeats,
    /// The p of leave-p-out.
    P,
    /// Stratification by class.
    Stratify,
    /// The group column.
    Group,
    /// The fold column.
    FoldColumn,
}

named!(display PlanSetting, "setting", [
    PlanSetting::Tau => "tau": "Training fraction τ",
    PlanSetting::Gap => "gap": "Rows left out between training and test rows",
    PlanSetting::MaxTrainSize => "max-train-size": "Most recent training rows kept",
    PlanSetting::TestSize => "test-size": "Rows of each test set",
    PlanSetting::Repeats => "repeats": "Repetitions of V-fold",
    PlanSetting::P => "p": "Rows left out together",
    PlanSetting::Stratify => "stratify": "Stratification by class",
    PlanSetting::Group => "group": "Group column",
    PlanSetting::FoldColumn => "fold-column": "Fold column",
]);

impl PlanSetting {
    /// The plans that read this setting.
    pub fn plans(self) -> &'static [PlanKind] {
        use PlanKind::*;
        match self {
            PlanSetting::Tau => &[HoldOut, MonteCarlo],
            PlanSetting::Gap | PlanSetting::MaxTrainSize | PlanSetting::TestSize => &[Time],
            PlanSetting::Repeats => &[Repeated],
            PlanSetting::P => &[LeavePOut],
            PlanSetting::Stratify => &[VFold, Repeated, MonteCarlo, HoldOut],
            PlanSetting::Group => &[Group],
            PlanSetting::FoldColumn => &[Folds],
        }
    }
}

/// The settings a plan of a [`PlanKind`] is built from ([`Plan::from_kind`](super::Plan::from_kind)):
/// what users give with `--splits`, `--tau`, `--repeats`, … or Python's `n_splits=`, `tau=`.
/// Each `None` takes the plan's default, stated once next to the plan's struct (10 splits,
/// [`TrainFraction::DEFAULT`](super::TrainFraction::DEFAULT), …).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanSettings {
    /// Splits, folds, resamples or samples ([`DEFAULT_SPLITS`]).
    pub n_splits: Option<usize>,
    /// The training fraction τ (hold-out, Monte-Carlo).
    pub tau: Option<f64>,
    /// The repetitions of repeated V-fold.
    pub repeats: Option<usize>,
    /// The p of leave-p-out.
    pub p: Option<usize>,
    /// Stratify by class (V-fold, repeated V-fold, Monte-Carlo, hold-out).
    pub stratify: bool,
    /// The gap of time splits.
    pub gap: Option<usize>,
    /// The training window of time splits.
    pub max_train_size: Option<usize>,
    /// The test size of time splits.
    pub test_size: Option<usize>,
    /// The fold id of each row (user folds; none: no row yet).
    pub fold_of_row: Option<Vec<String>>,
}

/// The number of splits (folds, resamples, samples) of a plan built without one.
pub const DEFAULT_SPLITS: usize = 10;

impl PlanSettings {
    /// The number of splits given, or [`DEFAULT_SPLITS`].
    pub fn n_splits(&self) -> usize {
        self.n_splits.unwrap_or(DEFAULT_SPLITS)
    }
    /// The training fraction given, or [`TrainFraction::DEFAULT`](super::TrainFraction::DEFAULT).
    pub fn tau(&self) -> f64 {
        self.tau.unwrap_or(super::TrainFraction::DEFAULT.get())
    }
}

impl PlanKind {
    /// The first of the `given` settings this plan would ignore, if any: a setting that changes
    /// nothing is a mistake the user cannot see in the output, so callers refuse it.
    pub fn ignored_setting(self, given: impl IntoIterator<Item = PlanSetting>) -> Option<PlanSetting> {
        given.into_iter().find(|s| !s.plans().contains(&self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::Named;

    #[test]
    fn each_setting_applies_to_some_plans_and_not_to_others() {
        for &(setting, _, _) in PlanSetting::CHOICES {
            let plans = setting.plans();
            assert!(!plans.is_empty() && plans.len() < PlanKind::CHOICES.len(), "{setting}");
            for &(kind, _, _) in PlanKind::CHOICES {
                assert_eq!(kind.ignored_setting([setting]).is_none(), plans.contains(&kind), "{setting} {kind}");
            }
        }
        assert_eq!(PlanKind::VFold.ignored_setting([PlanSetting::Stratify, PlanSetting::Tau]), Some(PlanSetting::Tau));
    }
}
