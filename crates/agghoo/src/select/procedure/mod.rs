//! The selection procedures (docs/PROCEDURES.md § Selection and aggregation), one file each behind
//! the [`Procedure`] trait, found by [`procedure`] (the registry).
//!
//! | method | file | members |
//! |---|---|---|
//! | hold-out | `holdout.rs` | `f_T` of the first split |
//! | CV | `cv.rs` | `A_{m̂}(D)`, `m̂ = argmin CV(A_m)` (or the one-SE choice) |
//! | Agghoo / Majhoo | `agghoo.rs` / `majhoo.rs` | the V hold-out predictors `f_{T_j}`, averaged / voted |
//! | ACV | `acv.rs` | `A_{m̂_{T_j}}(D)`, the selected rules retrained on D, averaged / voted |
//! | EKCV | `ekcv.rs` | `A_{m̄}(D)`, `m̄` = mean of the `m̂_{T_j}` in the grid's scale |
//! | subagging | `subagging.rs` | on each training set `S_j`, a hold-out split `T'_j ⊂ S_j`; members `f_{T'_j}` |
//!
//! A procedure's [`choose`](Procedure::choose) is pure and cheap: from the per-split outcomes and
//! the CV curve it names the members of the final predictor ([`Choice`]); fitting them is
//! [`conclude`](super::conclude)'s materialisation (or a caller's own, from precomputed paths).

/// Registers the procedures, one line each — `Variant(module::Type, "name", "one-line help")`,
/// in the order users see them — and generates from it each module and its re-export, the
/// [`Method`] enum with its names ([`Named`](crate::names::Named)) and the registry
/// [`procedure`]. What a procedure does and needs (its default plan, its refits, …) is stated by
/// its type's [`Procedure`] implementation, in its own file.
macro_rules! procedures {
    ($($variant:ident($module:ident::$ty:ident, $name:literal, $help:literal)),+ $(,)?) => {
        $(mod $module; pub use $module::$ty;)+

        /// A selection / aggregation procedure (each implemented by a [`Procedure`], see
        /// [`procedure`]); every one with its name in [`Named::CHOICES`](crate::names::Named::CHOICES).
        ///
        /// Serialised by its name (`holdout`); files written before that (`hold-out`) still read.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Method {
            $(#[doc = concat!($help, " ([`", stringify!($ty), "`]).")] $variant,)+
        }

        named!(display Method, "method", [$(Method::$variant => $name: $help),+]);

        /// The procedure of `method` (the registry).
        pub fn procedure(method: Method) -> &'static dyn Procedure {
            match method {
                $(Method::$variant => &$ty,)+
            }
        }
    };
}

procedures! {
    Agghoo(agghoo::Agghoo, "agghoo", "Aggregated hold-out (average / vote)"),
    Majhoo(majhoo::Majhoo, "majhoo", "Majority-vote aggregated hold-out"),
    Cv(cv::Cv, "cv", "CV selection, refit on all data"),
    HoldOut(holdout::HoldOut, "holdout", "Hold-out selection"),
    Acv(acv::Acv, "acv", "Selected rules retrained on all data, aggregated"),
    Ekcv(ekcv::Ekcv, "ekcv", "Averaged selected hyperparameter, fitted on all data"),
    Subagging(subagging::Subagging, "subagging", "Subagged hold-out"),
}

use super::aggregate::Aggregation;
use super::config::SelectConfig;
use super::report::{CvCurve, cv_curve};
use crate::data::Task;
use crate::engine::{SplitOutcome, TieRule};
use crate::error::{Error, Result};
use crate::family::{Composite, EkcvChoice, Family, Grid, GridPoint};
use crate::names::{Named, named};
use crate::resample::{PlanKind, Splits, TrainFraction};
use crate::seed::Seed;

/// A selection procedure: which splits it evaluates, what the evaluation keeps, and which
/// members form its final predictor.
pub trait Procedure: Send + Sync {
    /// The method it implements.
    fn method(&self) -> Method;
    /// The plan it uses when none is given ([`Method::default_plan`]).
    fn default_plan(&self) -> PlanKind;
    /// How many models its final predictor fits on all rows, given its members' grid indices
    /// (what a study counts as its refits; members trained on the splits cost none).
    fn refits(&self, member_grid_indices: &[usize]) -> usize;
    /// The splits it evaluates given the plan's (hold-out: the first; subagging: inner
    /// hold-outs). The default: all of them.
    ///
    /// # Errors
    /// A split set the procedure cannot derive its splits from.
    fn evaluation_splits(&self, splits: &Splits, config: &SelectConfig) -> Result<Splits> {
        let _ = config;
        Ok(splits.clone())
    }
    /// Whether each split's selected model must be kept by the evaluation (its members are
    /// split models).
    fn keeps_split_models(&self) -> bool;
    /// Whether its final predictor combines several members (an aggregation setting applies).
    fn combines_members(&self) -> bool;
    /// Whether the one-standard-error rule applies (it picks a point of the CV curve).
    fn uses_one_standard_error(&self) -> bool {
        false
    }
    /// Whether it reads the configuration's inner training fraction
    /// ([`SelectConfig::inner_fraction`]: subagging's inner hold-out); callers refuse one given
    /// to another procedure.
    fn reads_inner_fraction(&self) -> bool {
        false
    }
    /// Whether its member may be a rule off the grid (EKCV's averaged hyperparameter): a caller
    /// choosing among a fixed list of candidates (scikit-learn parameter dicts) cannot run it.
    fn fits_off_the_grid(&self) -> bool {
        false
    }
    /// Refuses a task the procedure is not defined for.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`].
    fn check_task(&self, task: Task) -> Result<()> {
        let _ = task;
        Ok(())
    }
    /// Which members form the final predictor, from the per-split outcomes (risks, selected
    /// indices) and the CV curve — no fitting here.
    ///
    /// # Errors
    /// No outcome to choose from; the one-standard-error rule's and EKCV's errors.
    fn choose(&self, ctx: &ChoiceContext<'_>) -> Result<Choice>;
}

/// What a procedure chooses from: the outcomes of its evaluation splits (in split order), their
/// CV curve, the grid and the settings of the choice.
#[derive(Clone, Debug)]
pub struct ChoiceContext<'a> {
    /// The outcomes, in split order.
    pub outcomes: &'a [SplitOutcome],
    /// Their CV curve ([`cv_curve`](super::cv_curve) of the outcomes).
    pub curve: CvCurve,
    /// The family's grid.
    pub grid: &'a Grid,
    /// The family's composite grid, if it is one (multi-axis grids, unions).
    pub composite: Option<&'a Composite>,
    /// The argmin's tie rule.
    pub tie: TieRule,
    /// CV only: the one-standard-error rule.
    pub one_standard_error: bool,
    /// How several members are combined (resolved for the task).
    pub aggregation: Aggregation,
}

impl<'a> ChoiceContext<'a> {
    /// The context of `outcomes` of `family`: first-minimiser ties, no one-standard-error rule,
    /// the task's aggregation (mean for regression, vote for classification).
    pub fn new(family: &'a dyn Family, outcomes: &'a [SplitOutcome]) -> Self {
        Self {
            outcomes,
            curve: cv_curve(outcomes),
            grid: family.grid(),
            composite: family.composite(),
            tie: TieRule::First,
            one_standard_error: false,
            aggregation: Aggregation::default_for(family.task()),
        }
    }

    /// Each split's selected grid index `m̂_{T_j}`.
    pub fn selected(&self) -> Vec<usize> {
        self.outcomes.iter().map(|o| o.selected).collect()
    }

    /// The value of grid point `m`: its family's path value on a composite grid.
    pub fn value(&self, m: usize) -> f64 {
        self.composite.map_or(self.grid.value(m), |c| c.path_value(m))
    }

    /// Grid point `m` on a composite grid (`None` for a one-axis grid).
    pub fn point(&self, m: usize) -> Option<GridPoint> {
        self.composite.map(|c| c.point(m))
    }

    /// The order of simplicity of grid points `a` and `b` for the one-standard-error rule
    /// (`Some(Less)`: `a` is simpler; `None`: not comparable): the grid's direction of simplicity,
    /// or a composite grid's axis by axis within one family ([`Composite::compare_complexity`]).
    pub fn compare_complexity(&self, a: usize, b: usize) -> Option<std::cmp::Ordering> {
        self.composite.map_or(Some(self.grid.compare_complexity(a, b)), |c| c.compare_complexity(a, b))
    }

    /// EKCV's average of the `selected` grid points, as the member to refit on all rows, its path
    /// value and its point: the mean in the grid's scale ([`Grid::average`]), or on a composite
    /// grid each axis averaged in its own way ([`Composite::ekcv`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without selections (composite grid).
    pub fn average(&self, selected: &[usize]) -> Result<(MemberChoice, f64, Option<GridPoint>)> {
        Ok(match self.composite {
            Some(c) => {
                let choice = c.ekcv(selected)?;
                let (value, point) = (choice.path_value, Some(choice.point.clone()));
                (MemberChoice::RefitComposite(Box::new(choice)), value, point)
            }
            None => {
                let value = self.grid.average(selected);
                (MemberChoice::RefitAt { value, nearest: self.grid.nearest(value) }, value, None)
            }
        })
    }

    /// Every split's selected model, in split order (Agghoo, Majhoo, subagging).
    fn split_members(&self) -> Vec<MemberChoice> {
        self.outcomes.iter().enumerate().map(|(split, o)| MemberChoice::FromSplit { split, grid_index: o.selected }).collect()
    }
}

/// One member of a procedure's final predictor.
#[derive(Clone, Debug, PartialEq)]
pub enum MemberChoice {
    /// The model of grid point `grid_index` trained on split `split`'s training rows (kept by the
    /// evaluation).
    FromSplit {
        /// The split (index into the outcomes).
        split: usize,
        /// The grid point.
        grid_index: usize,
    },
    /// Grid point `grid_index` fitted on all rows.
    Refit {
        /// The grid point.
        grid_index: usize,
        /// Its validation risk when it has one (CV: the CV risk).
        validation_risk: Option<f64>,
    },
    /// The rule at hyperparameter `value` (possibly off the grid) fitted on all rows (EKCV).
    RefitAt {
        /// The hyperparameter value.
        value: f64,
        /// The grid point nearest to it.
        nearest: usize,
    },
    /// EKCV's averaged point on a composite grid, fitted on all rows.
    RefitComposite(Box<EkcvChoice>),
}

impl MemberChoice {
    /// The member's grid index (EKCV: the grid point nearest to the averaged value).
    pub fn grid_index(&self) -> usize {
        match self {
            MemberChoice::FromSplit { grid_index, .. } | MemberChoice::Refit { grid_index, .. } => *grid_index,
            MemberChoice::RefitAt { nearest, .. } => *nearest,
            MemberChoice::RefitComposite(c) => c.nearest,
        }
    }

    /// The member's validation risk: a split member's risk on its split (from `outcomes`), a
    /// refit's as chosen.
    pub fn validation_risk(&self, outcomes: &[SplitOutcome]) -> Option<f64> {
        match self {
            MemberChoice::FromSplit { split, grid_index } => {
                outcomes.get(*split).and_then(|o| o.risks.first()).and_then(|r| r.get(*grid_index)).copied()
            }
            MemberChoice::Refit { validation_risk, .. } => *validation_risk,
            MemberChoice::RefitAt { .. } | MemberChoice::RefitComposite(_) => None,
        }
    }
}

/// A procedure's choice: its members and how they are combined, and for single-model procedures
/// the final hyperparameter value (and point, on a composite grid).
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The members, in order.
    pub members: Vec<MemberChoice>,
    /// How they are combined.
    pub aggregation: Aggregation,
    /// Single-model procedures: the final hyperparameter value.
    pub final_value: Option<f64>,
    /// Single-model procedures on a composite grid: the final point.
    pub final_point: Option<GridPoint>,
}

impl Choice {
    /// Several members combined by `aggregation`, no final value.
    fn combined(members: Vec<MemberChoice>, aggregation: Aggregation) -> Self {
        Self { members, aggregation, final_value: None, final_point: None }
    }
}

impl SelectConfig {
    /// The configuration of a procedure named as the CLI's `compare --methods` names it:
    /// `agghoo`, `majhoo`, `cv`, `cv+1se` (CV with the one-standard-error rule), `holdout`, `acv`,
    /// `ekcv` or `subagging`, with `seed` and the default inner fraction.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name, or `+1se` on a method other than CV.
    pub fn for_procedure(name: &str, seed: Seed) -> Result<Self> {
        let (base, one_se) = match name.trim().strip_suffix("+1se") {
            Some(base) => (base, true),
            None => (name.trim(), false),
        };
        let method: Method = base.parse().map_err(|_| Error::invalid("method", method_names_with_one_se(), name))?;
        if one_se && !procedure(method).uses_one_standard_error() {
            return Err(Error::invalid("method", "+1se on cv only", name));
        }
        let mut c = SelectConfig::new(method);
        c.one_standard_error = one_se;
        c.inner_fraction = TrainFraction::DEFAULT;
        c.seed = seed;
        Ok(c)
    }

    /// Refuses settings the method would silently ignore: the one-standard-error rule outside CV
    /// (it picks a point of the CV curve; the other methods select per split), an aggregation for
    /// a method whose model is one rule (CV, hold-out, EKCV).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the setting.
    pub fn check(&self) -> Result<()> {
        let p = procedure(self.method);
        if self.one_standard_error && !p.uses_one_standard_error() {
            return Err(Error::invalid("one-se", "used with CV selection only (it picks a point of the CV curve)", self.method.name()));
        }
        if self.aggregation.is_some() && !p.combines_members() {
            return Err(Error::invalid("aggregate", combining_methods(), self.method.name()));
        }
        Ok(())
    }
}

/// Every method's name, each one-standard-error variant after its method (`cv, cv+1se`), as
/// [`SelectConfig::for_procedure`]'s error lists them.
fn method_names_with_one_se() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let mut names = Vec::new();
        for &(method, name, _) in Method::CHOICES {
            names.push(name.to_string());
            if procedure(method).uses_one_standard_error() {
                names.push(format!("{name}+1se"));
            }
        }
        crate::resample::word_list(&names.iter().map(String::as_str).collect::<Vec<_>>(), "or")
    })
}

/// [`SelectConfig::check`]'s error for an aggregation given to a method with one member.
fn combining_methods() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let names: Vec<&str> =
            Method::CHOICES.iter().filter(|&&(method, _, _)| procedure(method).combines_members()).map(|&(_, name, _)| name).collect();
        format!("used with a method that combines several members ({})", names.join(", "))
    })
}

/// The aggregation `config` asks for (or the task's), checked against the procedure, the task
/// and the number of classes.
pub(crate) fn resolve_aggregation(config: &SelectConfig, task: Task, n_classes: usize) -> Result<Aggregation> {
    procedure(config.method).check_task(task)?;
    let chosen = config.aggregation.unwrap_or(Aggregation::default_for(task));
    let fits = match chosen {
        Aggregation::Mean => task == Task::Regression,
        Aggregation::Vote | Aggregation::SoftVote | Aggregation::ScoreMean => task == Task::Classification,
        Aggregation::Single => true,
    };
    if !fits {
        return Err(Error::TaskMismatch(format!("aggregation {chosen:?} does not fit {task:?}")));
    }
    // Averaged decision scores are binary (as in the model file's check): refuse before fitting.
    if chosen == Aggregation::ScoreMean && n_classes != 2 {
        return Err(Error::TaskMismatch(format!(
            "aggregation ScoreMean averages binary decision scores; the data have {n_classes} classes (use the vote or the soft vote)"
        )));
    }
    Ok(chosen)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::family::Scale;
    use crate::names::Named;

    /// The method lists users read in errors come from the registry and the procedures' own
    /// facts (the one-standard-error rule, combining members).
    #[test]
    fn the_errors_list_the_registered_methods() {
        match SelectConfig::for_procedure("nope", Seed(0)) {
            Err(Error::InvalidParameter { name: "method", expected, .. }) => {
                assert_eq!(expected, "agghoo, majhoo, cv, cv+1se, holdout, acv, ekcv or subagging")
            }
            other => panic!("{other:?}"),
        }
        let mut config = SelectConfig::new(Method::Cv);
        config.aggregation = Some(Aggregation::Mean);
        match config.check() {
            Err(Error::InvalidParameter { name: "aggregate", expected, .. }) => {
                assert_eq!(expected, "used with a method that combines several members (agghoo, majhoo, acv, subagging)")
            }
            other => panic!("{other:?}"),
        }
    }

    /// Hand-made outcomes of 3 splits over a 4-point grid: `risks[j]`, validation sizes `sizes[j]`,
    /// each split's selection its first minimiser.
    pub(crate) fn outcomes(risks: [[f64; 4]; 3], sizes: [usize; 3]) -> Vec<SplitOutcome> {
        risks
            .iter()
            .zip(sizes)
            .map(|(r, n)| {
                let selected = crate::engine::argmin(r, TieRule::First).unwrap();
                SplitOutcome { risks: vec![r.to_vec()], selected, n_train: 100, n_validation: n, model: None, predictions: None }
            })
            .collect()
    }

    /// Three splits of 10 validation rows selecting grid points 2, 0, 1.
    pub(crate) fn three_splits() -> Vec<SplitOutcome> {
        outcomes([[0.4, 0.3, 0.2, 0.5], [0.1, 0.3, 0.2, 0.5], [0.4, 0.1, 0.2, 0.5]], [10, 10, 10])
    }

    /// A 4-point grid `[1, 2, 4, 8]`.
    pub(crate) fn grid(scale: Scale, larger_is_simpler: bool) -> Grid {
        Grid::new("k", vec![1.0, 2.0, 4.0, 8.0], scale, larger_is_simpler).unwrap()
    }

    /// A context over `outcomes` and `grid` with the default settings.
    pub(crate) fn context<'a>(outcomes: &'a [SplitOutcome], grid: &'a Grid, aggregation: Aggregation) -> ChoiceContext<'a> {
        ChoiceContext {
            outcomes,
            curve: cv_curve(outcomes),
            grid,
            composite: None,
            tie: TieRule::First,
            one_standard_error: false,
            aggregation,
        }
    }

    #[test]
    fn the_registry_names_each_method_once() {
        for &(m, _, _) in Method::CHOICES {
            assert_eq!(procedure(m).method(), m);
        }
    }

    /// The aggregation error lists exactly the procedures that combine members.
    #[test]
    fn the_aggregation_message_lists_the_combining_procedures() {
        let combining: Vec<&str> =
            Method::CHOICES.iter().map(|c| c.0).filter(|&m| procedure(m).combines_members()).map(Method::name).collect();
        let mut config = SelectConfig::new(Method::Cv);
        config.aggregation = Some(Aggregation::Vote);
        let Err(Error::InvalidParameter { expected, .. }) = config.check() else { panic!("CV takes no aggregation") };
        assert!(expected.ends_with(&format!("({})", combining.join(", "))), "{expected}");
    }
}
