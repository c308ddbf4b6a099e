//! Resampling: a [`Plan`] is a recipe (V-fold, Monte-Carlo τ/V, ...); instantiating it with a seed
//! gives [`Splits`], concrete `(train, validation)` index sets that record `n_rows`, serialize to
//! JSON and are checked against the data before use. Several procedures compared on one `Splits`
//! value see identical splits; nothing re-draws random splits implicitly.
//!
//! One module per plan of `docs/PROCEDURES.md` § Plans.

mod bootstrap;
mod holdout;
mod kind;
mod loo;
mod lpo;
mod montecarlo;
mod splits;
mod time;
mod user;
mod vfold;

pub use bootstrap::Bootstrap;
pub use holdout::HoldOut;
pub use kind::{DEFAULT_SPLITS, PlanKind, PlanSetting, PlanSettings};
pub use loo::LeaveOneOut;
pub use lpo::LeavePOut;
pub use montecarlo::MonteCarlo;
pub use splits::{Split, Splits};
pub use time::TimeSeries;
pub use user::UserFolds;
pub use vfold::{GroupVFold, RepeatedVFold, VFold};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::seed::Seed;

/// Fraction of the rows used for training (τ in `docs/PROCEDURES.md`); always in (0, 1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "f64", into = "f64")]
pub struct TrainFraction(f64);

impl TrainFraction {
    /// τ = 0.8, the papers' usual choice.
    pub const DEFAULT: TrainFraction = TrainFraction(0.8);

    /// Validates τ.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 < tau < 1` (NaN fails).
    pub fn new(tau: f64) -> Result<Self> {
        if tau > 0.0 && tau < 1.0 {
            return Ok(Self(tau));
        }
        Err(Error::invalid("tau", "in (0, 1)", tau))
    }
    /// The value τ.
    pub fn get(self) -> f64 {
        self.0
    }
    /// Training-set size `⌊τ n⌋`, checked to leave at least one row on each side.
    ///
    /// # Errors
    /// [`Error::TooFewRows`] when `⌊τ n⌋ = 0` or `⌊τ n⌋ = n`.
    pub fn train_size(self, n: usize) -> Result<usize> {
        let k = (self.0 * n as f64).floor() as usize;
        if k == 0 || k >= n {
            return Err(Error::TooFewRows {
                what: format!("a training fraction of {}", self.0),
                needed: (2.0 / self.0.min(1.0 - self.0)).ceil() as usize,
                found: n,
            });
        }
        Ok(k)
    }
}

impl TryFrom<f64> for TrainFraction {
    type Error = Error;
    fn try_from(v: f64) -> Result<Self> {
        Self::new(v)
    }
}
impl From<TrainFraction> for f64 {
    fn from(t: TrainFraction) -> f64 {
        t.0
    }
}

/// What a plan may need to know about the data besides its size.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlanContext<'a> {
    /// Number of rows n.
    pub n_rows: usize,
    /// Class of each row, for stratified plans.
    pub strata: Option<&'a [u32]>,
    /// Group of each row, for grouped plans.
    pub groups: Option<&'a [u32]>,
}

impl<'a> PlanContext<'a> {
    /// A context with the row count only.
    pub fn rows(n_rows: usize) -> Self {
        Self { n_rows, ..Default::default() }
    }
    /// A context for a data set: its size and, for classification, its classes as strata.
    pub fn of(data: &'a crate::data::Dataset) -> Self {
        let strata = match data.target() {
            crate::data::Target::Classes { labels, .. } => Some(labels.as_slice()),
            crate::data::Target::Real(_) => None,
        };
        Self { n_rows: data.n_rows(), strata, groups: None }
    }
}

/// One kind of resampling plan: a recipe that draws concrete splits from what it may know of the
/// data ([`PlanContext`]: the row count, classes for stratification, groups) and a seed. Every
/// plan of [`Plan`] implements it in its own file; [`Plan`] dispatches to it. Adding a plan is one
/// file implementing this trait, one [`Plan`] variant and its [`Plan::parse`] form.
pub trait Resampling {
    /// Draws the splits (the same splits for the same context and seed).
    ///
    /// # Errors
    /// The plan's own errors: too few rows, missing strata or groups, a plan too large for the
    /// limits.
    fn draw(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits>;
    /// A short human-readable description, for tables.
    fn describe(&self) -> String;
}

/// Every plan of `docs/PROCEDURES.md` § Plans, as one value that can be parsed from the CLI, stored in a report and
/// instantiated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "plan", rename_all = "snake_case")]
pub enum Plan {
    /// One split (hold-out).
    HoldOut(HoldOut),
    /// V-fold, optionally stratified.
    VFold(VFold),
    /// V-fold with whole groups in one block.
    GroupVFold(GroupVFold),
    /// V-fold repeated with fresh shuffles.
    RepeatedVFold(RepeatedVFold),
    /// V independent training sets of size ⌊τn⌋.
    MonteCarlo(MonteCarlo),
    /// n splits, each leaving one row out.
    LeaveOneOut(LeaveOneOut),
    /// Subsets of size p left out: all, or a random sample.
    LeavePOut(LeavePOut),
    /// B resamples with replacement; validation = out-of-bag rows.
    Bootstrap(Bootstrap),
    /// Folds given by the user (a fold id per row).
    UserFolds(UserFolds),
    /// Time-ordered splits: train on earlier rows, validate on the next ones (scikit-learn's
    /// `TimeSeriesSplit`).
    TimeSeries(TimeSeries),
}

/// The forms [`Plan::parse`] reads.
pub const PLAN_FORMS: &str =
    "vfold:V, repeated:V:R, 5x2, mc:V:TAU, loo, holdout:TAU, lpo:P:MAX, bootstrap:B or time:S (options :gap=G :max_train=M :test=T)";

impl Plan {
    /// Parses a plan written as `vfold:V`, `repeated:V:R`, `5x2` (five times 2-fold), `mc:V:TAU`,
    /// `loo`, `holdout:TAU`, `lpo:P:MAX` (at most MAX subsets of P rows), `bootstrap:B` or
    /// `time:S` (S time-ordered splits, [`TimeSeries`]; options `:gap=G`, `:max_train=M` and
    /// `:test=T` in any order, e.g. `time:5:gap=2:test=30`); stratified by class when `stratify`
    /// (V-fold, repeated, Monte-Carlo and hold-out).
    ///
    /// ```
    /// use agghoo::resample::Plan;
    /// assert_eq!(Plan::parse("mc:10:0.8", false)?.describe(), Plan::parse(" mc:10:0.8", false)?.describe());
    /// assert!(Plan::parse("vfold:x", false).is_err());
    /// assert!(Plan::parse("loo", true).is_err());
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`plan`) for another form, (`stratify`) for a plan that cannot
    /// be stratified, and each plan's own parameter errors.
    pub fn parse(text: &str, stratify: bool) -> Result<Plan> {
        let bad = || Error::invalid("plan", PLAN_FORMS, text);
        let parts: Vec<&str> = text.trim().split(':').map(str::trim).collect();
        let int = |s: &str| s.parse::<usize>().map_err(|_| bad());
        let real = |s: &str| s.parse::<f64>().map_err(|_| bad());
        let plan = match parts.as_slice() {
            ["vfold", v] => Plan::VFold(VFold { stratify, ..VFold::new(int(v)?)? }),
            ["repeated", v, r] => Plan::RepeatedVFold(RepeatedVFold { stratify, ..RepeatedVFold::new(int(v)?, int(r)?)? }),
            ["5x2"] => Plan::RepeatedVFold(RepeatedVFold { stratify, ..RepeatedVFold::new(2, 5)? }),
            ["mc", v, t] => Plan::MonteCarlo(MonteCarlo { stratify, ..MonteCarlo::new(int(v)?, real(t)?)? }),
            ["holdout", t] => Plan::HoldOut(HoldOut { stratify, ..HoldOut::new(real(t)?)? }),
            ["loo"] => Plan::LeaveOneOut(LeaveOneOut),
            ["lpo", p, max] => Plan::LeavePOut(LeavePOut::new(int(p)?, int(max)?.max(1))?),
            ["bootstrap", b] => Plan::Bootstrap(Bootstrap::new(int(b)?)?),
            ["time", s, options @ ..] => {
                let mut plan = TimeSeries::new(int(s)?)?;
                for option in options {
                    match option.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                        Some(("gap", v)) => plan.gap = int(v)?,
                        Some(("max_train", v)) => plan.max_train_size = Some(int(v)?),
                        Some(("test", v)) => plan.test_size = Some(int(v)?),
                        _ => return Err(bad()),
                    }
                }
                Plan::TimeSeries(plan)
            }
            _ => return Err(bad()),
        };
        if stratify && !matches!(plan, Plan::VFold(_) | Plan::RepeatedVFold(_) | Plan::MonteCarlo(_) | Plan::HoldOut(_)) {
            return Err(Error::invalid(
                "stratify",
                "false for this plan (only V-fold, repeated, Monte-Carlo and hold-out are stratified)",
                text,
            ));
        }
        Ok(plan)
    }

    /// The plan of `kind` built from `settings`, each setting not given taking the plan's
    /// default; settings the plan does not read are not looked at (callers refuse them,
    /// [`PlanKind::ignored_setting`]).
    ///
    /// ```
    /// use agghoo::resample::{Plan, PlanKind, PlanSettings};
    /// let plan = Plan::from_kind(PlanKind::MonteCarlo, &PlanSettings::default())?;
    /// assert_eq!(plan.to_string(), "mc:10:0.8");
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// Each plan's own parameter errors ([`Error::InvalidParameter`]).
    pub fn from_kind(kind: PlanKind, settings: &PlanSettings) -> Result<Plan> {
        let (n, stratify) = (settings.n_splits(), settings.stratify);
        Ok(match kind {
            PlanKind::HoldOut => Plan::HoldOut(HoldOut { stratify, ..HoldOut::new(settings.tau())? }),
            PlanKind::VFold => Plan::VFold(VFold { stratify, ..VFold::new(n)? }),
            PlanKind::Repeated => {
                Plan::RepeatedVFold(RepeatedVFold { stratify, ..RepeatedVFold::new(n, settings.repeats.unwrap_or(RepeatedVFold::DEFAULT_REPEATS))? })
            }
            PlanKind::MonteCarlo => Plan::MonteCarlo(MonteCarlo { stratify, ..MonteCarlo::new(n, settings.tau())? }),
            PlanKind::LeaveOneOut => Plan::LeaveOneOut(LeaveOneOut),
            PlanKind::LeavePOut => Plan::LeavePOut(LeavePOut::new(settings.p.unwrap_or(LeavePOut::DEFAULT_P), n.max(1))?),
            PlanKind::Bootstrap => Plan::Bootstrap(Bootstrap::new(n)?),
            PlanKind::Group => Plan::GroupVFold(GroupVFold { n_folds: n }),
            PlanKind::Folds => Plan::UserFolds(UserFolds { fold_of_row: settings.fold_of_row.clone().unwrap_or_default() }),
            PlanKind::Time => Plan::TimeSeries(TimeSeries {
                gap: settings.gap.unwrap_or(0),
                max_train_size: settings.max_train_size,
                test_size: settings.test_size,
                ..TimeSeries::new(n)?
            }),
        })
    }

    /// Draws the concrete splits.
    ///
    /// # Errors
    /// The plan's own errors: too few rows, missing strata or groups, ...
    pub fn instantiate(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        if ctx.n_rows == 0 {
            return Err(Error::TooFewRows { what: "resampling".into(), needed: 2, found: 0 });
        }
        self.resampling().draw(ctx, seed)
    }

    /// The plan as its kind of [`Resampling`].
    pub fn resampling(&self) -> &dyn Resampling {
        match self {
            Plan::HoldOut(p) => p,
            Plan::VFold(p) => p,
            Plan::GroupVFold(p) => p,
            Plan::RepeatedVFold(p) => p,
            Plan::MonteCarlo(p) => p,
            Plan::LeaveOneOut(p) => p,
            Plan::LeavePOut(p) => p,
            Plan::Bootstrap(p) => p,
            Plan::UserFolds(p) => p,
            Plan::TimeSeries(p) => p,
        }
    }

    /// The plan with the default stratification for a `task`: V-fold and repeated V-fold are
    /// stratified by class for a classification target (as scikit-learn's `cv=int` is for a
    /// classifier); every other plan, and every plan of a regression target, is returned as it
    /// is. Callers apply it only when the user neither asked for stratification nor refused it.
    pub fn stratified_by_default(self, task: crate::data::Task) -> Plan {
        if task != crate::data::Task::Classification {
            return self;
        }
        match self {
            Plan::VFold(p) => Plan::VFold(p.stratified()),
            Plan::RepeatedVFold(p) => Plan::RepeatedVFold(RepeatedVFold { stratify: true, ..p }),
            other => other,
        }
    }

    /// A short human-readable description, for tables.
    pub fn describe(&self) -> String {
        self.resampling().describe()
    }

    /// The number of splits the plan draws whatever the data, or `None` when it depends on the
    /// rows, the groups or the fold column (leave-one-out, leave-p-out, group V-fold, user folds).
    pub fn n_splits(&self) -> Option<usize> {
        match self {
            Plan::HoldOut(_) => Some(1),
            Plan::VFold(p) => Some(p.n_folds),
            Plan::RepeatedVFold(p) => Some(p.n_folds * p.n_repeats),
            Plan::MonteCarlo(p) => Some(p.n_splits),
            Plan::Bootstrap(p) => Some(p.n_resamples),
            Plan::TimeSeries(p) => Some(p.n_splits),
            Plan::GroupVFold(_) | Plan::LeaveOneOut(_) | Plan::LeavePOut(_) | Plan::UserFolds(_) => None,
        }
    }
}

/// The plan's text form, as [`Plan::parse`] reads it (`vfold:10`, `mc:10:0.8`, `holdout:0.8`,
/// `time:5:gap=2`, …; grouped V-fold `group:V`, user folds `folds`); stratification is not part
/// of it.
impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Plan::HoldOut(p) => write!(f, "holdout:{}", p.train_fraction.get()),
            Plan::VFold(p) => write!(f, "vfold:{}", p.n_folds),
            Plan::GroupVFold(p) => write!(f, "group:{}", p.n_folds),
            Plan::RepeatedVFold(p) => write!(f, "repeated:{}:{}", p.n_folds, p.n_repeats),
            Plan::MonteCarlo(p) => write!(f, "mc:{}:{}", p.n_splits, p.train_fraction.get()),
            Plan::LeaveOneOut(_) => f.write_str("loo"),
            Plan::LeavePOut(p) => write!(f, "lpo:{}:{}", p.p, p.max_splits),
            Plan::Bootstrap(p) => write!(f, "bootstrap:{}", p.n_resamples),
            Plan::UserFolds(_) => f.write_str("folds"),
            Plan::TimeSeries(p) => {
                write!(f, "time:{}", p.n_splits)?;
                if p.gap > 0 {
                    write!(f, ":gap={}", p.gap)?;
                }
                if let Some(m) = p.max_train_size {
                    write!(f, ":max_train={m}")?;
                }
                if let Some(t) = p.test_size {
                    write!(f, ":test={t}")?;
                }
                Ok(())
            }
        }
    }
}

/// Shuffles `v` in place with a Fisher–Yates pass driven by `rng`.
pub(crate) fn shuffle<R: rand::Rng + ?Sized>(v: &mut [usize], rng: &mut R) {
    use rand::RngExt;
    for i in (1..v.len()).rev() {
        let j = rng.random_range(0..=i);
        v.swap(i, j);
    }
}

/// Refuses, before drawing anything, a plan of more splits than the split limit, or whose
/// index sets (`n_splits × indices_per_split` row indices) would exceed the memory budget
/// ([`crate::limits`]).
pub(crate) fn check_plan_size(plan: impl std::fmt::Display, n_splits: u128, indices_per_split: usize) -> Result<()> {
    use crate::limits::{self, Count};
    limits::check_count(Count::Splits, n_splits, format_args!("{plan}"))?;
    let bytes = limits::product([n_splits, indices_per_split as u128, std::mem::size_of::<usize>() as u128]);
    limits::check_memory(format_args!("the row indices of {n_splits} splits of {indices_per_split} rows ({plan})"), bytes)
}

/// Validates a count parameter ≥ `min`.
pub(crate) fn check_count(name: &'static str, value: usize, min: usize, expected: &'static str) -> Result<()> {
    if value < min {
        return Err(Error::invalid(name, expected, value));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan's split count known without data is the count it draws.
    #[test]
    fn the_split_count_without_data_is_what_the_plan_draws() {
        for text in ["vfold:5", "repeated:3:2", "5x2", "mc:7:0.8", "holdout:0.7", "bootstrap:4", "time:3"] {
            let plan = Plan::parse(text, false).unwrap();
            let drawn = plan.instantiate(&PlanContext::rows(40), Seed(3)).unwrap().len();
            assert_eq!(plan.n_splits(), Some(drawn), "{text}");
        }
        for text in ["loo", "lpo:2:10"] {
            assert_eq!(Plan::parse(text, false).unwrap().n_splits(), None, "{text}");
        }
    }

    /// Every plan's constructor refuses what its instantiation would refuse, so a bad plan fails
    /// when it is written, not when it meets the data; every plan draws through one trait.
    #[test]
    fn plans_validate_when_built_and_draw_through_one_trait() {
        for bad in ["bootstrap:0", "lpo:0:5", "repeated:1:3", "repeated:5:0", "vfold:1", "mc:0:0.5", "holdout:1.5", "time:0"] {
            assert!(matches!(Plan::parse(bad, false), Err(Error::InvalidParameter { .. })), "{bad}");
        }
        let ctx = PlanContext::rows(20);
        for text in ["vfold:4", "repeated:2:3", "5x2", "mc:3:0.7", "loo", "holdout:0.6", "lpo:2:10", "bootstrap:4", "time:3"] {
            let plan = Plan::parse(text, false).unwrap();
            let direct = plan.resampling().draw(&ctx, Seed(3)).unwrap();
            assert_eq!(plan.instantiate(&ctx, Seed(3)).unwrap(), direct, "{text}");
            assert_eq!(plan.describe(), plan.resampling().describe());
        }
        assert_eq!(Plan::parse("lpo:2:10", false).unwrap().describe(), "leave-2-out");
    }
}
