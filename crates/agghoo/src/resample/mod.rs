//! Resampling: a [`Plan`] is a recipe (V-fold, Monte-Carlo τ/V, ...); instantiating it with a seed
//! gives [`Splits`], concrete `(train, validation)` index sets that record `n_rows`, serialize to
//! JSON and are checked against the data before use. Several procedures compared on one `Splits`
//! value see identical splits; nothing re-draws random splits implicitly.
//!
//! One module per plan of `docs/PROCEDURES.md` § Plans.

mod kind;
mod splits;

pub use kind::{DEFAULT_SPLITS, PlanSetting, PlanSettings};
pub use splits::{Split, Splits};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::names::named;
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
/// plan of [`Plan`] implements it (and [`PlanType`]) in its own file; [`Plan`] dispatches to it.
pub trait Resampling {
    /// Draws the splits (the same splits for the same context and seed).
    ///
    /// # Errors
    /// The plan's own errors: too few rows, missing strata or groups, a plan too large for the
    /// limits.
    fn draw(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits>;
    /// A short human-readable description, for tables.
    fn describe(&self) -> String;
    /// The number of splits it draws whatever the data, or `None` when it depends on the rows,
    /// the groups or the fold column.
    fn n_splits(&self) -> Option<usize>;
    /// Its text form, as [`Plan::parse`] reads it (stratification is not part of it).
    fn text(&self) -> String;
}

/// What a plan states about itself besides drawing: how it is built from the `--plan` settings
/// (its defaults), which settings it reads, its text form, its stratification. One line of the
/// `plans!` registration in this module makes a type implementing it a [`Plan`] and a
/// [`PlanKind`].
pub trait PlanType: Resampling + Sized {
    /// The settings it reads besides the number of splits ([`PlanSetting`]); callers refuse the
    /// others ([`PlanKind::ignored_setting`]). A plan that reads [`PlanSetting::Stratify`] can be
    /// stratified ([`PlanType::stratified`]).
    const SETTINGS: &'static [PlanSetting];
    /// Whether it is stratified by class by default for a classification target
    /// ([`Plan::stratified_by_default`]).
    const STRATIFIED_BY_DEFAULT: bool = false;
    /// Its text forms as users read them in an error (`mc:V:TAU`), `""` when it has none (its
    /// [`PlanType::parse`] reads none).
    const FORMS: &'static str = "";
    /// Its text forms that only callers whose rows come with their groups read
    /// ([`Plan::parse_with_groups`]: `group:V`), `""` when it has none.
    const GROUPED_FORMS: &'static str = "";
    /// The plan built from `settings`, each setting not given taking the plan's default.
    ///
    /// # Errors
    /// The plan's own parameter errors.
    fn from_settings(settings: &PlanSettings) -> Result<Self>;
    /// The plan written `form` (its text split at `:` and trimmed, `["mc", "10", "0.8"]`), or
    /// `None` when `form` is not one of its text forms. The default: no text form (grouped V-fold
    /// and user folds, whose groups or folds come with the data).
    ///
    /// # Errors
    /// [`PlanText::bad`] for a malformed number, and the plan's own parameter errors.
    fn parse(form: &[&str], text: &PlanText<'_>) -> Result<Option<Self>> {
        let _ = (form, text);
        Ok(None)
    }
    /// The same plan stratified by class (asked only of plans that read
    /// [`PlanSetting::Stratify`]).
    fn stratified(self) -> Self {
        self
    }
}

/// The text of a plan being parsed ([`Plan::parse`]), for its errors, and whether the rows come
/// with their groups ([`Plan::parse_with_groups`]).
#[derive(Clone, Copy, Debug)]
pub struct PlanText<'a>(&'a str, bool);

impl PlanText<'_> {
    /// True when the rows come with their groups: the [`PlanType::GROUPED_FORMS`] are read too.
    pub fn with_groups(&self) -> bool {
        self.1
    }
    /// The error of a text that is no plan's form: [`Error::InvalidParameter`] (`plan`) listing
    /// the forms.
    pub fn bad(&self) -> Error {
        Error::invalid("plan", if self.1 { grouped_plan_forms() } else { plan_forms() }, self.0)
    }
    /// A count of the form.
    ///
    /// # Errors
    /// [`PlanText::bad`].
    pub fn int(&self, part: &str) -> Result<usize> {
        part.parse::<usize>().map_err(|_| self.bad())
    }
    /// A real number of the form.
    ///
    /// # Errors
    /// [`PlanText::bad`].
    pub fn real(&self, part: &str) -> Result<f64> {
        part.parse::<f64>().map_err(|_| self.bad())
    }
}

/// Registers the plans, one line each — `Variant(module::Type, Kind, "name", "one-line help")`,
/// in the order users see them — and generates from it each module and its re-export, the
/// [`Plan`] enum (the serde value of reports), the [`PlanKind`] enum with its names (`--plan`)
/// and every dispatch between them. What a plan does and reads is its type's [`Resampling`] and
/// [`PlanType`] implementation, in its own file.
macro_rules! plans {
    ($($variant:ident($module:ident::$ty:ident, $kind:ident, $name:literal, $help:literal)),+ $(,)?) => {
        $(mod $module; pub use $module::$ty;)+

        /// Every plan of `docs/PROCEDURES.md` § Plans, as one value that can be parsed from the
        /// CLI, stored in a report and instantiated.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "plan", rename_all = "snake_case")]
        pub enum Plan {
            $(#[doc = concat!($help, " ([`", stringify!($ty), "`]).")] $variant($ty),)+
        }

        /// A kind of [`Plan`], as users name it (`--plan`); its settings come separately
        /// ([`PlanSettings`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum PlanKind {
            $(#[doc = concat!($help, " ([`", stringify!($ty), "`]).")] $kind,)+
        }

        named!(display PlanKind, "plan", [$(PlanKind::$kind => $name: $help),+]);

        impl PlanKind {
            /// The settings this plan reads besides the number of splits ([`PlanType::SETTINGS`]).
            pub fn settings(self) -> &'static [PlanSetting] {
                match self {
                    $(PlanKind::$kind => <$ty as PlanType>::SETTINGS,)+
                }
            }
        }

        impl Plan {
            /// The plan as its kind of [`Resampling`].
            pub fn resampling(&self) -> &dyn Resampling {
                match self {
                    $(Plan::$variant(p) => p,)+
                }
            }

            /// Its kind.
            pub fn kind(&self) -> PlanKind {
                match self {
                    $(Plan::$variant(_) => PlanKind::$kind,)+
                }
            }

            /// The plan of `kind` built from `settings`, each setting not given taking the plan's
            /// default ([`PlanType::from_settings`]); settings the plan does not read are not
            /// looked at (callers refuse them, [`PlanKind::ignored_setting`]).
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
                Ok(match kind {
                    $(PlanKind::$kind => Plan::$variant(<$ty as PlanType>::from_settings(settings)?),)+
                })
            }

            /// The plan whose text form `form` is, if any.
            fn parse_form(form: &[&str], text: &PlanText<'_>) -> Result<Option<Plan>> {
                $(if let Some(p) = <$ty as PlanType>::parse(form, text)? {
                    return Ok(Some(Plan::$variant(p)));
                })+
                Ok(None)
            }

            /// The same plan stratified by class (plans that read [`PlanSetting::Stratify`]).
            fn stratified(self) -> Plan {
                match self {
                    $(Plan::$variant(p) => Plan::$variant(p.stratified()),)+
                }
            }

            /// Whether the plan is stratified by class by default for a classification target.
            fn stratifies_by_default(&self) -> bool {
                match self {
                    $(Plan::$variant(_) => <$ty as PlanType>::STRATIFIED_BY_DEFAULT,)+
                }
            }
        }

        /// The forms [`Plan::parse`] reads, each plan's [`PlanType::FORMS`] in registration order
        /// (`holdout:TAU, vfold:V, … or time:S (…)`).
        pub fn plan_forms() -> &'static str {
            static FORMS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            FORMS.get_or_init(|| word_list(&[$(<$ty as PlanType>::FORMS),+], "or"))
        }

        /// The text forms of [`Plan::parse_with_groups`], for its errors.
        fn grouped_plan_forms() -> &'static str {
            static FORMS: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            FORMS.get_or_init(|| word_list(&[$(<$ty as PlanType>::FORMS, <$ty as PlanType>::GROUPED_FORMS),+], "or"))
        }

        /// The names of the plans that can be stratified (those reading [`PlanSetting::Stratify`]).
        fn stratifiable_names() -> Vec<&'static str> {
            [$((<$ty as PlanType>::SETTINGS.contains(&PlanSetting::Stratify)).then_some($name)),+].into_iter().flatten().collect()
        }

        /// [`Plan::parse`]'s error for stratifying a plan that cannot be.
        fn stratifiable() -> &'static str {
            static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
            TEXT.get_or_init(|| format!("false for this plan (only {} can be stratified)", word_list(&stratifiable_names(), "and")))
        }
    };
}

plans! {
    HoldOut(holdout::HoldOut, HoldOut, "holdout", "One split with training fraction τ"),
    VFold(vfold::VFold, VFold, "vfold", "V-fold (shuffled; stratified by class for a classification target unless --no-stratify)"),
    RepeatedVFold(repeated::RepeatedVFold, Repeated, "repeated", "Repeated V-fold (stratified as V-fold)"),
    MonteCarlo(montecarlo::MonteCarlo, MonteCarlo, "mc", "Monte-Carlo: V independent training sets of size ⌊τn⌋"),
    LeaveOneOut(loo::LeaveOneOut, LeaveOneOut, "loo", "Leave-one-out"),
    LeavePOut(lpo::LeavePOut, LeavePOut, "lpo", "Leave-p-out (all subsets when at most V·… , else a sample of V)"),
    Bootstrap(bootstrap::Bootstrap, Bootstrap, "bootstrap", "Bootstrap (validation = out-of-bag)"),
    GroupVFold(group::GroupVFold, Group, "group", "Grouped V-fold (--group COL)"),
    UserFolds(user::UserFolds, Folds, "folds", "User folds (--fold-column COL)"),
    TimeSeries(time::TimeSeries, Time, "time", "Time-ordered splits in file order (scikit-learn's TimeSeriesSplit): --splits S, --gap G, --max-train-size M, --test-size T"),
}

/// `a, b or c` (the non-empty items, the last joined by `last_word`).
pub(crate) fn word_list(items: &[&str], last_word: &str) -> String {
    let items: Vec<&str> = items.iter().copied().filter(|i| !i.is_empty()).collect();
    match items.split_last() {
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} {last_word} {last}", rest.join(", ")),
        None => String::new(),
    }
}

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
        Self::parse_text(PlanText(text, false), stratify)
    }

    /// As [`parse`](Plan::parse), for rows that come with their groups (the Python package's
    /// `groups=`): also reads `group:V`, V-fold over whole groups ([`GroupVFold`]).
    ///
    /// ```
    /// use agghoo::resample::{GroupVFold, Plan};
    /// assert_eq!(Plan::parse_with_groups("group:4", false)?, Plan::GroupVFold(GroupVFold { n_folds: 4 }));
    /// assert_eq!(Plan::parse_with_groups("vfold:5", false)?, Plan::parse("vfold:5", false)?);
    /// assert!(Plan::parse("group:4", false).is_err());
    /// assert!(Plan::parse_with_groups("group:x", false).unwrap_err().to_string().contains("group:V"));
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`parse`](Plan::parse) (the forms listed include `group:V`).
    pub fn parse_with_groups(text: &str, stratify: bool) -> Result<Plan> {
        Self::parse_text(PlanText(text, true), stratify)
    }

    fn parse_text(text: PlanText<'_>, stratify: bool) -> Result<Plan> {
        let form: Vec<&str> = text.0.trim().split(':').map(str::trim).collect();
        let plan = Plan::parse_form(&form, &text)?.ok_or_else(|| text.bad())?;
        if !stratify {
            return Ok(plan);
        }
        if !plan.kind().settings().contains(&PlanSetting::Stratify) {
            return Err(Error::invalid("stratify", stratifiable(), text.0));
        }
        Ok(plan.stratified())
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

    /// The plan with the default stratification for a `task`: V-fold and repeated V-fold are
    /// stratified by class for a classification target (as scikit-learn's `cv=int` is for a
    /// classifier); every other plan, and every plan of a regression target, is returned as it
    /// is. Callers apply it only when the user neither asked for stratification nor refused it.
    pub fn stratified_by_default(self, task: crate::data::Task) -> Plan {
        if task == crate::data::Task::Classification && self.stratifies_by_default() { self.stratified() } else { self }
    }

    /// A short human-readable description, for tables.
    pub fn describe(&self) -> String {
        self.resampling().describe()
    }

    /// The number of splits the plan draws whatever the data, or `None` when it depends on the
    /// rows, the groups or the fold column (leave-one-out, leave-p-out, group V-fold, user folds).
    pub fn n_splits(&self) -> Option<usize> {
        self.resampling().n_splits()
    }
}

/// The plan's text form, as [`Plan::parse`] reads it (`vfold:10`, `mc:10:0.8`, `holdout:0.8`,
/// `time:5:gap=2`, …; grouped V-fold `group:V`, user folds `folds`); stratification is not part
/// of it.
impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.resampling().text())
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
    use crate::names::Named;

    /// The errors users read list what the registrations state: every plan's text forms (each
    /// parses), and exactly the plans that read the stratify setting.
    #[test]
    fn the_errors_list_the_registered_forms_and_stratifiable_plans() {
        let forms = plan_forms();
        assert_eq!(
            forms,
            "holdout:TAU, vfold:V, repeated:V:R, 5x2, mc:V:TAU, loo, lpo:P:MAX, bootstrap:B or time:S (options :gap=G :max_train=M :test=T)"
        );
        for text in ["holdout:0.7", "vfold:5", "repeated:5:2", "5x2", "mc:4:0.5", "loo", "lpo:2:10", "bootstrap:3", "time:3"] {
            assert!(Plan::parse(text, false).is_ok(), "{text}");
        }
        match Plan::parse("nope:3", false) {
            Err(Error::InvalidParameter { name: "plan", expected, .. }) => assert_eq!(expected, forms),
            other => panic!("{other:?}"),
        }
        match Plan::parse("loo", true) {
            Err(Error::InvalidParameter { name: "stratify", expected, .. }) => {
                assert_eq!(expected, "false for this plan (only holdout, vfold, repeated and mc can be stratified)")
            }
            other => panic!("{other:?}"),
        }
        for &(kind, name, _) in PlanKind::CHOICES {
            assert_eq!(kind.settings().contains(&PlanSetting::Stratify), stratifiable_names().contains(&name), "{kind}");
        }
    }

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

    /// A plan's text form parses back to the plan; the plans built from settings (the CLI's
    /// flags, Python's `n_splits` and `tau`) are written as before; the defaults are the
    /// documented ones.
    #[test]
    fn the_text_form_parses_back_and_settings_take_their_defaults() {
        for text in [
            "vfold:5",
            "repeated:3:2",
            "mc:7:0.8",
            "holdout:0.7",
            "loo",
            "lpo:2:10",
            "bootstrap:4",
            "time:3",
            "time:5:gap=2:max_train=9:test=3",
        ] {
            let plan = Plan::parse(text, false).unwrap();
            assert_eq!(plan.to_string(), text);
            assert_eq!(Plan::parse(&plan.to_string(), false).unwrap(), plan);
        }
        assert_eq!(Plan::parse("5x2", false).unwrap().to_string(), "repeated:2:5");
        let given = PlanSettings { n_splits: Some(7), tau: Some(0.65), ..PlanSettings::default() };
        for (kind, text) in [(PlanKind::VFold, "vfold:7"), (PlanKind::HoldOut, "holdout:0.65"), (PlanKind::MonteCarlo, "mc:7:0.65")] {
            assert_eq!(Plan::from_kind(kind, &given).unwrap().to_string(), text);
        }
        let defaults = PlanSettings::default();
        let built = |kind| Plan::from_kind(kind, &defaults).unwrap();
        assert_eq!(built(PlanKind::Repeated), Plan::RepeatedVFold(RepeatedVFold::new(10, 5).unwrap()));
        assert_eq!(built(PlanKind::LeavePOut), Plan::LeavePOut(LeavePOut::new(2, 10).unwrap()));
        assert_eq!(built(PlanKind::HoldOut), Plan::HoldOut(HoldOut::new(0.8).unwrap()));
        assert_eq!(built(PlanKind::Time), Plan::TimeSeries(TimeSeries::new(10).unwrap()));
        assert_eq!(built(PlanKind::Group), Plan::GroupVFold(GroupVFold { n_folds: 10 }));
        assert_eq!(built(PlanKind::Folds), Plan::UserFolds(UserFolds { fold_of_row: Vec::new() }));
        for &(kind, _, _) in <PlanKind as crate::names::Named>::CHOICES {
            assert_eq!(built(kind).kind(), kind);
            let stratified = Plan::from_kind(kind, &PlanSettings { stratify: true, ..PlanSettings::default() }).unwrap();
            let reads = kind.settings().contains(&PlanSetting::Stratify);
            assert_eq!(stratified != built(kind), reads, "{kind}");
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
