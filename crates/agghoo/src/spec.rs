//! One spec per command: the whole configuration of a run (select, estimate, compare) as a serde value,
//! built alike from the CLI's flags and from Python's keyword arguments, recorded in `--json`
//! reports and run again by `agghoo replay`.
//!
//! A spec holds no data: the rows come separately ([`Inputs`]: the data set, and the columns a
//! plan may read — groups, a fold per row — or the caller's own splits). Every field has the
//! CLI's default, so `{}` is `agghoo select`'s spec and `{"value": 5}` is `agghoo estimate
//! --value 5`'s; an unknown field is an error naming it.
//!
//! ```
//! use agghoo::spec::{Inputs, SelectSpec};
//! let data = agghoo::data::generators::knn_problem(120, agghoo::Seed(1))?;
//! let spec: SelectSpec = serde_json::from_str(r#"{"method": "cv", "family": {"family": "knn", "grid": {"values": [1, 5, 9]}}}"#)?;
//! let (model, report) = spec.run(&Inputs::of(&data), &agghoo::engine::Rayon)?;
//! assert_eq!(report.grid, [1.0, 5.0, 9.0]);
//! assert_eq!(model.members().len(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, MissingCategory, Preprocess};
use crate::engine::{Executor, TieRule};
use crate::error::{Error, Result};
use crate::estimate::{
    BootstrapConfig, BootstrapEstimate, ClosedFormPolicy, EstimateConfig, LearningCurve, LearningCurveConfig, RiskEstimate, ValidationCurve,
};
use crate::family::{Family, FamilyKind, FamilySpec, Rule};
use crate::loss::Loss;
use crate::names::Named;
use crate::resample::{Plan, PlanContext, PlanKind, Splits, TrainFraction, VFold};
use crate::seed::Seed;
use crate::select::{Aggregation, FittedModel, Method, Report, SelectConfig, VoteTies};
use crate::treecv::{ChunkedData, GridReport, LearnerKind, LearnerSpec, Method as TreeMethod, Order, Storage, TreeCvConfig, TreeCvReport};

/// The rows of a run, apart from its spec: the data set and what a plan may read from it.
#[derive(Clone, Debug)]
pub struct Inputs<'a> {
    /// Features and target.
    pub data: &'a Dataset,
    /// A group id per row (`group` plans: whole groups stay in one fold).
    pub groups: Option<&'a [u32]>,
    /// A fold name per row: the folds of a `user_folds` plan that lists none.
    pub folds: Option<&'a [String]>,
    /// The caller's own splits (a splits file, a scikit-learn splitter): they replace the plan.
    pub splits: Option<Splits>,
}

impl<'a> Inputs<'a> {
    /// The data set alone.
    pub fn of(data: &'a Dataset) -> Self {
        Self { data, groups: None, folds: None, splits: None }
    }

    /// The splits of a run: the inputs' own, else `plan` drawn with `seed` on the inputs' rows,
    /// groups and folds (a `user_folds` plan that lists no folds takes the inputs' fold column).
    ///
    /// # Errors
    /// The plan's errors (too few rows, missing groups, a folds plan without a fold column, …).
    pub fn splits(&self, plan: &Plan, seed: Seed) -> Result<Splits> {
        if let Some(splits) = &self.splits {
            return Ok(splits.clone());
        }
        let filled;
        let plan = match plan {
            Plan::UserFolds(folds) if folds.fold_of_row.is_empty() => {
                let column = self.folds.ok_or_else(|| Error::invalid("plan", "a fold column with a folds plan", "no fold column"))?;
                filled = Plan::UserFolds(crate::resample::UserFolds { fold_of_row: column.to_vec() });
                &filled
            }
            other => other,
        };
        plan.instantiate(&PlanContext { groups: self.groups, ..PlanContext::of(self.data) }, seed)
    }
}

/// The configuration of `agghoo select` (and of Python's `select`, `AgghooClassifier`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelectSpec {
    /// The family and its grid (default: k-NN over its default grid).
    pub family: FamilySpec,
    /// Standardise the features inside every training set.
    pub standardize: bool,
    /// What missing categorical values become (with median imputation).
    #[serde(with = "by_name")]
    pub missing_category: MissingCategory,
    /// The procedure.
    #[serde(with = "by_name")]
    pub method: Method,
    /// The resampling plan; `None`: the method's default plan (Monte-Carlo 10 × τ = 0.8, 10-fold
    /// for CV, a τ = 0.8 hold-out for hold-out), V-fold stratified by class for a classifier.
    /// Splits given with the [`Inputs`] replace it.
    pub plan: Option<Plan>,
    /// The selection loss; `None`: the task's (0–1 / squared).
    pub loss: Option<Loss>,
    /// Argmin tie rule.
    #[serde(with = "by_name")]
    pub tie: TieRule,
    /// How members are combined; `None` (`auto`): mean for regression, vote for classification.
    #[serde(with = "by_name")]
    pub aggregation: Option<Aggregation>,
    /// CV only: the one-standard-error rule.
    pub one_standard_error: bool,
    /// Subagging only: the training fraction of the inner hold-out; `None`: τ = 0.8.
    pub inner_fraction: Option<TrainFraction>,
    /// Seed of every random choice (the plan's splits, subagging's inner splits).
    pub seed: Seed,
    /// Keep the split indices in the report.
    pub keep_split_indices: bool,
    /// How a hard vote breaks ties (recorded in the model): the lowest-risk member's class
    /// (default), or the first class (scikit-learn's hard vote).
    #[serde(with = "by_name", skip_serializing_if = "VoteTies::is_default")]
    pub vote_ties: VoteTies,
}

impl Default for SelectSpec {
    fn default() -> Self {
        Self {
            family: FamilySpec::default_for(FamilyKind::Knn),
            standardize: false,
            missing_category: MissingCategory::Level,
            method: Method::Agghoo,
            plan: None,
            loss: None,
            tie: TieRule::First,
            aggregation: None,
            one_standard_error: false,
            inner_fraction: None,
            seed: Seed(0),
            keep_split_indices: false,
            vote_ties: VoteTies::LowestRisk,
        }
    }
}

impl SelectSpec {
    /// Checks the spec without data: the procedure's rules (`one-se` with CV only, `aggregate`
    /// with a method that combines members), and `inner_fraction` with subagging only.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<()> {
        if self.inner_fraction.is_some() && !crate::select::procedure(self.method).reads_inner_fraction() {
            return Err(Error::invalid("inner-tau", "used with subagging only (its inner hold-out)", self.method.name()));
        }
        if !self.vote_ties.is_default() && self.aggregation.is_some_and(|a| a != Aggregation::Vote) {
            return Err(Error::invalid("vote-ties", "used with the vote only (aggregation vote or auto)", self.vote_ties.name()));
        }
        self.config(Preprocess::default()).check()
    }

    /// The preprocessing of `data` for the family (its encoding of categorical columns, median
    /// imputation of missing values, standardisation when asked).
    pub fn preprocess(&self, data: &Dataset) -> Preprocess {
        self.family.preprocess(data, self.standardize, self.missing_category)
    }

    /// The selection configuration with `preprocess`.
    pub fn config(&self, preprocess: Preprocess) -> SelectConfig {
        SelectConfig {
            method: self.method,
            loss: self.loss,
            tie: self.tie,
            aggregation: self.aggregation,
            one_standard_error: self.one_standard_error,
            inner_fraction: self.inner_fraction.unwrap_or(TrainFraction::DEFAULT),
            preprocess,
            seed: self.seed,
            keep_split_indices: self.keep_split_indices,
            vote_ties: self.vote_ties,
        }
    }

    /// The family built for `data` as its fits will see it (see [`FamilySpec::build_for`]).
    ///
    /// # Errors
    /// As [`FamilySpec::build_for`].
    pub fn family(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        self.family.build_for(data, &self.preprocess(data))
    }

    /// The plan this spec runs on `data` (its own, or the method's default).
    ///
    /// # Errors
    /// As [`default_plan`].
    pub fn plan_for(&self, data: &Dataset) -> Result<Plan> {
        match &self.plan {
            Some(plan) => Ok(plan.clone()),
            None => Ok(default_plan(self.method.default_plan())?.stratified_by_default(data.task())),
        }
    }

    /// The splits of the run: the inputs' own, or the plan drawn with the seed.
    ///
    /// # Errors
    /// The plan's errors (too few rows, missing groups or folds, …).
    pub fn splits(&self, inputs: &Inputs<'_>) -> Result<Splits> {
        inputs.splits(&self.plan_for(inputs.data)?, self.seed)
    }

    /// Runs the selection: builds the family, draws the splits, selects (units on `executor`).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s, the family's, the plan's and the procedure's errors.
    pub fn run(&self, inputs: &Inputs<'_>, executor: &dyn Executor) -> Result<(FittedModel, Report)> {
        self.validate()?;
        let family = self.family(inputs.data)?;
        let splits = self.splits(inputs)?;
        self.run_on(family.as_ref(), inputs.data, &splits, executor)
    }

    /// [`run`](Self::run) with the family and the splits already made (by
    /// [`family`](Self::family) and [`splits`](Self::splits)): for callers that size a progress
    /// bar by the splits.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_on(&self, family: &dyn Family, data: &Dataset, splits: &Splits, executor: &dyn Executor) -> Result<(FittedModel, Report)> {
        self.validate()?;
        crate::select::select_with(family, data, splits, &self.config(self.preprocess(data)), executor)
    }
}

/// The configuration of `agghoo estimate` (and of Python's `estimate_risk`): the risk of one rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EstimateSpec {
    /// The family (its grid: the validation curve's).
    pub family: FamilySpec,
    /// The rule's value of the family's path hyperparameter (`k = 5`).
    pub value: f64,
    /// Standardise the features inside every training set.
    pub standardize: bool,
    /// What missing categorical values become (with median imputation).
    #[serde(with = "by_name")]
    pub missing_category: MissingCategory,
    /// The plan; `None`: 10-fold CV, stratified for a classifier. A `bootstrap` plan adds the
    /// bootstrap estimators (.632, .632+) unless the inputs give the splits.
    pub plan: Option<Plan>,
    /// Losses, in order; empty: the task's (0–1 / squared).
    pub losses: Vec<Loss>,
    /// The closed-form leave-one-out / GCV where exact (`auto`), or always refit (`never`).
    pub closed_form: ClosedFormPolicy,
    /// Keep the out-of-fold predictions.
    pub keep_predictions: bool,
    /// The learning curve: training sizes and Monte-Carlo splits per size.
    pub learning_curve: Option<LearningCurveSpec>,
    /// The validation curve over the family's whole grid.
    pub validation_curve: bool,
    /// Seed of every random choice.
    pub seed: Seed,
}

/// The learning curve of an [`EstimateSpec`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearningCurveSpec {
    /// Training sizes, in the order to report.
    pub train_sizes: Vec<usize>,
    /// Monte-Carlo splits per size.
    #[serde(default = "ten")]
    pub n_splits: usize,
}

fn ten() -> usize {
    10
}

impl Default for EstimateSpec {
    fn default() -> Self {
        Self {
            family: FamilySpec::default_for(FamilyKind::Knn),
            value: f64::NAN,
            standardize: false,
            missing_category: MissingCategory::Level,
            plan: None,
            losses: Vec::new(),
            closed_form: ClosedFormPolicy::Auto,
            keep_predictions: false,
            learning_curve: None,
            validation_curve: false,
            seed: Seed(0),
        }
    }
}

/// What [`EstimateSpec::run`] computes.
#[derive(Clone, Debug, Serialize)]
pub struct EstimateOutcome {
    /// The estimate on the splits, per loss.
    pub estimate: RiskEstimate,
    /// The bootstrap estimators (a bootstrap plan).
    pub bootstrap: Option<BootstrapEstimate>,
    /// The learning curve, when asked.
    pub learning_curve: Option<LearningCurve>,
    /// The validation curve, when asked.
    pub validation_curve: Option<ValidationCurve>,
}

impl EstimateSpec {
    /// Checks the spec without data: a finite value, one plain family.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<()> {
        if !self.value.is_finite() {
            return Err(Error::invalid("value", "the rule's hyperparameter value (a finite number)", self.value));
        }
        if self.family.is_composite() {
            return Err(Error::invalid("family", "one family over its own grid", "a union or a multi-axis grid"));
        }
        Ok(())
    }

    /// The rule: the family at [`value`](Self::value).
    pub fn rule(&self) -> Rule {
        Rule { family: self.family.clone(), value: self.value }
    }

    /// The preprocessing of `data` for the family.
    pub fn preprocess(&self, data: &Dataset) -> Preprocess {
        self.family.preprocess(data, self.standardize, self.missing_category)
    }

    /// The estimation configuration on `data` (its preprocessing).
    pub fn config(&self, data: &Dataset) -> EstimateConfig {
        EstimateConfig {
            losses: self.losses.clone(),
            preprocess: self.preprocess(data),
            keep_predictions: self.keep_predictions,
            closed_form: self.closed_form,
        }
    }

    /// The one-point family of the rule, built for `data`.
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s and [`Rule::build_for`]'s.
    pub fn family(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        self.validate()?;
        self.rule().build_for(data, &self.preprocess(data))
    }

    /// The plan run on `data`: its own, or 10-fold CV (stratified for a classifier).
    ///
    /// # Errors
    /// As [`default_plan`].
    pub fn plan_for(&self, data: &Dataset) -> Result<Plan> {
        match &self.plan {
            Some(plan) => Ok(plan.clone()),
            None => Ok(default_plan(PlanKind::VFold)?.stratified_by_default(data.task())),
        }
    }

    /// The splits of the run: the inputs' own, or the plan drawn with the seed.
    ///
    /// # Errors
    /// The plan's errors.
    pub fn splits(&self, inputs: &Inputs<'_>) -> Result<Splits> {
        inputs.splits(&self.plan_for(inputs.data)?, self.seed)
    }

    /// True when the run adds the bootstrap estimators: a bootstrap plan, no splits given.
    pub fn is_bootstrap(&self, inputs: &Inputs<'_>) -> bool {
        inputs.splits.is_none() && matches!(self.plan, Some(Plan::Bootstrap(_)))
    }

    /// Runs the estimate (and the curves asked for).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s, the family's, the plan's and the estimators' errors.
    pub fn run(&self, inputs: &Inputs<'_>, executor: &dyn Executor) -> Result<EstimateOutcome> {
        let rule = self.family(inputs.data)?;
        let splits = self.splits(inputs)?;
        self.run_on(rule.as_ref(), inputs, &splits, executor)
    }

    /// [`run`](Self::run) with the rule and the splits already made (by [`family`](Self::family)
    /// and [`splits`](Self::splits)).
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub fn run_on(&self, rule: &dyn Family, inputs: &Inputs<'_>, splits: &Splits, executor: &dyn Executor) -> Result<EstimateOutcome> {
        self.validate()?;
        let data = inputs.data;
        let config = self.config(data);
        let preprocess = config.preprocess;
        let estimate = crate::estimate::estimate_risk_with(rule, 0, data, splits, &config, executor)?;
        let bootstrap = if self.is_bootstrap(inputs) {
            let b =
                BootstrapConfig { seed: self.seed, loss: self.losses.first().copied(), preprocess, ..BootstrapConfig::new(splits.len()) };
            Some(crate::estimate::bootstrap_risk_on(rule, 0, data, splits, &b, executor)?)
        } else {
            None
        };
        let learning_curve = match &self.learning_curve {
            Some(c) => {
                let cfg = LearningCurveConfig {
                    train_sizes: c.train_sizes.clone(),
                    n_splits: c.n_splits,
                    seed: self.seed,
                    losses: self.losses.clone(),
                    preprocess,
                };
                Some(crate::estimate::learning_curve(rule, 0, data, &cfg, executor)?)
            }
            None => None,
        };
        let validation_curve = if self.validation_curve {
            let grid = self.family.build_for(data, &preprocess)?;
            Some(crate::estimate::validation_curve(grid.as_ref(), data, splits, &self.losses, preprocess, executor)?)
        } else {
            None
        };
        Ok(EstimateOutcome { estimate, bootstrap, learning_curve, validation_curve })
    }
}

/// The configuration of `agghoo compare` (and of Python's `compare`): nested CV of selection
/// procedures on identical outer splits, each selecting over the family's grid on inner splits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompareSpec {
    /// The family (its grid: what each procedure selects over).
    pub family: FamilySpec,
    /// Further families compared with `family`, each over its own grid, on the same splits.
    pub compared: Vec<FamilySpec>,
    /// Standardise the features inside every training set.
    pub standardize: bool,
    /// What missing categorical values become (with median imputation).
    #[serde(with = "by_name")]
    pub missing_category: MissingCategory,
    /// The procedures (default: agghoo, cv, holdout).
    pub methods: Vec<ProcedureChoice>,
    /// The outer plan; `None`: 10-fold, stratified for a classifier. Splits given with the
    /// [`Inputs`] replace it.
    pub outer: Option<Plan>,
    /// The inner plan each procedure selects with; `None`: Monte-Carlo 10 × τ = 0.8.
    pub inner: Option<Plan>,
    /// The loss scored on the outer test rows (and selected with); `None`: the task's.
    pub loss: Option<Loss>,
    /// Seed of every random choice.
    pub seed: Seed,
}

/// A procedure of [`CompareSpec::methods`], written as `compare --methods` names it: a method,
/// or `cv+1se` (CV with the one-standard-error rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ProcedureChoice {
    /// The method.
    pub method: Method,
    /// CV only: the one-standard-error rule.
    pub one_standard_error: bool,
}

impl ProcedureChoice {
    /// The procedure named `name` (see [`SelectConfig::for_procedure`]).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`method`) for another name.
    pub fn parse(name: &str) -> Result<Self> {
        let c = SelectConfig::for_procedure(name, Seed(0))?;
        Ok(Self { method: c.method, one_standard_error: c.one_standard_error })
    }
}

impl TryFrom<String> for ProcedureChoice {
    type Error = Error;
    fn try_from(name: String) -> Result<Self> {
        Self::parse(&name)
    }
}

impl From<ProcedureChoice> for String {
    fn from(p: ProcedureChoice) -> String {
        format!("{}{}", p.method.name(), if p.one_standard_error { "+1se" } else { "" })
    }
}

impl Default for CompareSpec {
    fn default() -> Self {
        let choice = |method| ProcedureChoice { method, one_standard_error: false };
        Self {
            family: FamilySpec::default_for(FamilyKind::Knn),
            compared: Vec::new(),
            standardize: false,
            missing_category: MissingCategory::Level,
            methods: vec![choice(Method::Agghoo), choice(Method::Cv), choice(Method::HoldOut)],
            outer: None,
            inner: None,
            loss: None,
            seed: Seed(0),
        }
    }
}

impl CompareSpec {
    /// Checks the spec without data: at least one procedure.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`methods`).
    pub fn validate(&self) -> Result<()> {
        if self.methods.is_empty() {
            return Err(Error::invalid("methods", "at least one procedure", "none"));
        }
        Ok(())
    }

    /// The preprocessing of `data` for the families (one-hot categorical columns when the
    /// families compared encode them differently).
    pub fn preprocess(&self, data: &Dataset) -> Preprocess {
        let members = std::iter::once(&self.family).chain(&self.compared).cloned().collect();
        FamilySpec::Composite(crate::family::CompositeSpec { members, axes: Vec::new() }).preprocess(
            data,
            self.standardize,
            self.missing_category,
        )
    }

    /// The outer plan run on `data`.
    ///
    /// # Errors
    /// As [`default_plan`].
    pub fn outer_for(&self, data: &Dataset) -> Result<Plan> {
        match &self.outer {
            Some(plan) => Ok(plan.clone()),
            None => Ok(default_plan(PlanKind::VFold)?.stratified_by_default(data.task())),
        }
    }

    /// The outer splits: the inputs' own, or the outer plan drawn with the seed.
    ///
    /// # Errors
    /// The plan's errors.
    pub fn outer_splits(&self, inputs: &Inputs<'_>) -> Result<Splits> {
        inputs.splits(&self.outer_for(inputs.data)?, self.seed)
    }

    /// The nested-CV configuration on `data` (its preprocessing).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s.
    pub fn config(&self, data: &Dataset) -> Result<crate::estimate::NestedConfig> {
        self.validate()?;
        let preprocess = self.preprocess(data);
        let procedures = self
            .methods
            .iter()
            .map(|p| SelectConfig {
                one_standard_error: p.one_standard_error,
                loss: self.loss,
                preprocess,
                seed: self.seed,
                ..SelectConfig::new(p.method)
            })
            .collect();
        let inner = match &self.inner {
            Some(plan) => plan.clone(),
            None => default_plan(PlanKind::MonteCarlo)?.stratified_by_default(data.task()),
        };
        Ok(crate::estimate::NestedConfig {
            loss: self.loss,
            seed: self.seed,
            keep_inner_splits: false,
            compared: self.compared.clone(),
            ..crate::estimate::NestedConfig::new(self.family.clone(), inner, procedures)
        })
    }

    /// Runs the nested CV on `outer` splits (from [`outer_splits`](Self::outer_splits)).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s, the families', the plans' and the procedures' errors.
    pub fn run_on(&self, data: &Dataset, outer: &Splits, executor: &dyn Executor) -> Result<crate::estimate::NestedReport> {
        crate::estimate::nested_cv_with(data, outer, &self.config(data)?, executor)
    }

    /// Runs the nested CV: draws the outer splits and evaluates every procedure.
    ///
    /// # Errors
    /// As [`run_on`](Self::run_on).
    pub fn run(&self, inputs: &Inputs<'_>, executor: &dyn Executor) -> Result<crate::estimate::NestedReport> {
        self.run_on(inputs.data, &self.outer_splits(inputs)?, executor)
    }
}

/// The plan of `kind` with every default ([`Plan::from_kind`]: 10 splits, folds or resamples;
/// τ = 0.8; p = 2; 5 repeats), unstratified.
///
/// # Errors
/// None for the defaults; the signature is [`Plan::from_kind`]'s.
pub fn default_plan(kind: PlanKind) -> Result<Plan> {
    Plan::from_kind(kind, &crate::resample::PlanSettings::default())
}

/// The configuration of `agghoo features` (and of Python's `select_features`): a feature
/// selection, and optionally its honest evaluation (the whole selection redone inside every outer
/// training fold, next to the naive selection-on-all-data estimate).
///
/// `method`, `scorer` and `n_features` are written as the CLI's `--method`, `--scorer` and
/// `--features` (parsed by [`Selector::parse`](crate::features::Selector::parse)); `n_features`
/// may also be a number. `{}` is `agghoo features`' spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FeaturesSpec {
    /// A search (`sfs`, `sbs`, `sffs`, `sbfs`, `exhaustive`), a filter ranking (`pearson`, `mi`)
    /// or an embedded method (`lasso`, `enet`, `forest-impurity`, `forest-permutation`).
    pub method: String,
    /// How a search scores a subset: `cfs` or `wrapper:FAMILY:VALUE`.
    pub scorer: String,
    /// How many features: `K`, `MIN:MAX`, `best` or `parsimonious` (rankings and forests: `K`).
    #[serde(deserialize_with = "text_or_number")]
    pub n_features: String,
    /// The inner plan of wrapper scores and of the Lasso's λ (default: 5-fold, unstratified);
    /// also read as the CLI writes it (`"vfold:5"`, unstratified).
    #[serde(deserialize_with = "plan_or_text")]
    pub inner: Plan,
    /// The honest evaluation's outer plan (also read as text, `"vfold:10"`); `None`: select on
    /// all the data only. Splits given with the [`Inputs`] replace it.
    #[serde(deserialize_with = "optional_plan_or_text")]
    pub evaluate: Option<Plan>,
    /// The learner of the honest evaluation, `FAMILY:VALUE`; `None`: the wrapper's, or `knn:5`.
    pub learner: Option<String>,
    /// Standardise the features inside every training set (the learner, the wrapper's fits, the
    /// Lasso / elastic-net selection).
    pub standardize: bool,
    /// What missing values of categorical columns become in the fits (the learner's, the
    /// wrapper's, the embedded methods'); filters and CFS read them as a level of their own.
    #[serde(with = "by_name", skip_serializing_if = "is_level")]
    pub missing_category: MissingCategory,
    /// Seed of every random choice (inner and outer splits, forests).
    pub seed: Seed,
}

fn is_level(missing: &MissingCategory) -> bool {
    *missing == MissingCategory::Level
}

impl Default for FeaturesSpec {
    fn default() -> Self {
        Self {
            method: "sffs".into(),
            scorer: "cfs".into(),
            n_features: "best".into(),
            inner: Plan::VFold(VFold { n_folds: 5, stratify: false, shuffle: true }),
            evaluate: None,
            learner: None,
            standardize: false,
            missing_category: MissingCategory::Level,
            seed: Seed(0),
        }
    }
}

/// What [`FeaturesSpec::run`] computes: the selection on all the data, or its honest evaluation.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum FeaturesOutcome {
    /// The features selected on all the data (no `evaluate`).
    Selection(crate::features::Selection),
    /// The honest evaluation (with `evaluate`).
    Honest(crate::features::HonestReport),
}

impl FeaturesSpec {
    /// Checks the spec without data: the selection's names and forms, the learner's, and a
    /// learner only with an evaluation (it is trained there alone).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field (`method`, `scorer`, `features`, `learner`).
    pub fn validate(&self) -> Result<()> {
        let selector = self.selector(Preprocess::default())?;
        if let (Some(learner), None) = (&self.learner, &self.evaluate) {
            return Err(Error::invalid("learner", "used with an honest evaluation (`evaluate`) only", learner));
        }
        self.learner(&selector).map(drop)
    }

    /// The preprocessing of `data`: median imputation when it has missing values, standardisation
    /// when asked, and the encoding of its categorical columns that the learner's family uses
    /// (one-hot, ordinal for trees) with [`missing_category`](Self::missing_category).
    pub fn preprocess(&self, data: &Dataset) -> Preprocess {
        let encoding = self
            .selector(Preprocess::default())
            .and_then(|selector| self.learner(&selector))
            .map_or(crate::data::Encoding::OneHot, |learner| learner.family.encoding());
        Preprocess::for_data(data, self.standardize, crate::data::CategoryOptions { encoding, missing: self.missing_category })
    }

    /// The selection procedure, its fits preprocessed with `preprocess`.
    ///
    /// # Errors
    /// As [`Selector::parse`](crate::features::Selector::parse).
    pub fn selector(&self, preprocess: Preprocess) -> Result<crate::features::Selector> {
        crate::features::Selector::parse(&self.method, &self.scorer, &self.n_features, &self.inner, preprocess)
    }

    /// The learner of the honest evaluation: the spec's, else the wrapper's, else `knn:5`.
    ///
    /// # Errors
    /// As [`Learner::parse`](crate::features::Learner::parse).
    pub fn learner(&self, selector: &crate::features::Selector) -> Result<crate::features::Learner> {
        match (&self.learner, selector.wrapper_learner()) {
            (Some(text), _) => crate::features::Learner::parse(text),
            (None, Some(learner)) => Ok(learner.clone()),
            (None, None) => crate::features::Learner::parse("knn:5"),
        }
    }

    /// The honest evaluation's configuration on `data`.
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s.
    pub fn honest_config(&self, data: &Dataset) -> Result<crate::features::HonestConfig> {
        self.validate()?;
        let preprocess = self.preprocess(data);
        let selector = self.selector(preprocess)?;
        let learner = self.learner(&selector)?;
        Ok(crate::features::HonestConfig { selector, learner, loss: None, preprocess, seed: self.seed })
    }

    /// The outer splits of the honest evaluation (the inputs' own, or `evaluate` drawn with the
    /// seed); `None` without an evaluation.
    ///
    /// # Errors
    /// The plan's errors.
    pub fn outer_splits(&self, inputs: &Inputs<'_>) -> Result<Option<Splits>> {
        self.evaluate.as_ref().map(|plan| inputs.splits(plan, self.seed)).transpose()
    }

    /// Runs the selection on all the data, or its honest evaluation (units on `executor`).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s, the plans' and the selection's errors.
    pub fn run(&self, inputs: &Inputs<'_>, executor: &dyn Executor) -> Result<FeaturesOutcome> {
        let data = inputs.data;
        let config = self.honest_config(data)?;
        Ok(match self.outer_splits(inputs)? {
            Some(outer) => FeaturesOutcome::Honest(crate::features::evaluate_honestly_with(data, &outer, &config, executor)?),
            None => FeaturesOutcome::Selection(crate::features::select_features_with(&config.selector, data, self.seed, executor)?),
        })
    }
}

/// A plan, or its text as the CLI's `--outer` reads it (`"vfold:5"`, unstratified).
#[derive(Deserialize)]
#[serde(untagged)]
enum PlanOrText {
    Text(String),
    Plan(Plan),
}

impl PlanOrText {
    fn plan(self) -> Result<Plan> {
        match self {
            PlanOrText::Text(text) => Plan::parse(&text, false),
            PlanOrText::Plan(plan) => Ok(plan),
        }
    }
}

fn plan_or_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Plan, D::Error> {
    PlanOrText::deserialize(deserializer)?.plan().map_err(serde::de::Error::custom)
}

fn optional_plan_or_text<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Option<Plan>, D::Error> {
    Option::<PlanOrText>::deserialize(deserializer)?.map(PlanOrText::plan).transpose().map_err(serde::de::Error::custom)
}

/// A text field that may be written as a number (`"n_features": 3`).
fn text_or_number<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<String, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Number(u64),
    }
    Ok(match Either::deserialize(deserializer)? {
        Either::Text(text) => text,
        Either::Number(n) => n.to_string(),
    })
}

/// The number of chunks of a TreeCV run: `k`, or one per row (leave-one-out, `"loo"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "FoldsText", into = "FoldsText")]
pub enum Folds {
    /// k chunks.
    K(usize),
    /// One chunk per row.
    LeaveOneOut,
}

/// [`Folds`] as written: a number, or `"loo"` (a number in a string is read too).
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum FoldsText {
    Count(usize),
    Text(String),
}

impl Folds {
    /// The number of chunks on `n_rows` rows.
    pub fn on(self, n_rows: usize) -> usize {
        match self {
            Folds::K(k) => k,
            Folds::LeaveOneOut => n_rows,
        }
    }
}

impl std::str::FromStr for Folds {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self> {
        match text.trim() {
            "loo" => Ok(Folds::LeaveOneOut),
            t => t.parse().map(Folds::K).map_err(|_| Error::invalid("folds", "a number of chunks or `loo`", text)),
        }
    }
}

impl TryFrom<FoldsText> for Folds {
    type Error = Error;
    fn try_from(text: FoldsText) -> Result<Self> {
        match text {
            FoldsText::Count(k) => Ok(Folds::K(k)),
            FoldsText::Text(t) => t.parse(),
        }
    }
}

impl From<Folds> for FoldsText {
    fn from(folds: Folds) -> Self {
        match folds {
            Folds::K(k) => FoldsText::Count(k),
            Folds::LeaveOneOut => FoldsText::Text("loo".into()),
        }
    }
}

/// The configuration of `agghoo treecv` (and of Python's `treecv`): k-fold or leave-one-out CV
/// of an incremental learner, by TreeCV or by k separate trainings, or PEGASOS's λ selected over
/// a grid by it. `{}` is `agghoo treecv`'s spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TreecvSpec {
    /// The incremental learner.
    #[serde(with = "by_name")]
    pub learner: LearnerKind,
    /// PEGASOS's λ: one value, or a grid (λ then selected by TreeCV); `None`: 1e-6. Refused with
    /// other learners.
    pub lambda: Option<Vec<f64>>,
    /// k-means' number of centres; `None`: 8. Refused with other learners.
    pub centres: Option<usize>,
    /// The number of chunks (default 10), or `loo`.
    pub folds: Folds,
    /// TreeCV or k separate trainings.
    #[serde(with = "by_name")]
    pub method: TreeMethod,
    /// The order of the points within each update.
    #[serde(with = "by_name")]
    pub order: Order,
    /// Run the two branches of every node in parallel (same result).
    pub parallel: bool,
    /// Shuffle the rows into chunks with the seed (`false`: keep their order).
    pub shuffle: bool,
    /// Store the features as f32 (the estimate is then exactly that of the data rounded to f32).
    pub f32: bool,
    /// Seed of the shuffle and of the random order.
    pub seed: Seed,
}

impl Default for TreecvSpec {
    fn default() -> Self {
        Self {
            learner: LearnerKind::Pegasos,
            lambda: None,
            centres: None,
            folds: Folds::K(10),
            method: TreeMethod::Tree,
            order: Order::Fixed,
            parallel: false,
            shuffle: true,
            f32: false,
            seed: Seed(0),
        }
    }
}

/// What [`TreecvSpec::run`] computes: one learner's CV, or λ's TreeCV curve and its argmin.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum TreecvOutcome {
    /// The CV of one learner.
    Single(TreeCvReport),
    /// A λ grid (PEGASOS).
    Grid(GridReport),
}

impl TreecvSpec {
    /// PEGASOS's default λ.
    pub const DEFAULT_LAMBDA: f64 = 1e-6;
    /// k-means' default number of centres.
    pub const DEFAULT_CENTRES: usize = 8;

    /// Checks the spec without data: `lambda` and `centres` only with the learner they apply to,
    /// a non-empty λ grid (of several values with PEGASOS only).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field.
    pub fn validate(&self) -> Result<()> {
        for (given, name) in [(self.lambda.is_some(), "lambda"), (self.centres.is_some(), "centres")] {
            if given && !self.learner.settings().contains(&name) {
                return Err(Error::InvalidParameter {
                    name,
                    expected: "given only with the learner it applies to (lambda: pegasos, centres: kmeans)",
                    got: format!("{name} with learner {}", self.learner),
                });
            }
        }
        if self.lambda.as_ref().is_some_and(Vec::is_empty) {
            return Err(Error::invalid("lambda", "at least one value", "an empty grid"));
        }
        Ok(())
    }

    /// The λ values: the spec's, or the default one.
    pub fn lambdas(&self) -> Vec<f64> {
        self.lambda.clone().unwrap_or_else(|| vec![Self::DEFAULT_LAMBDA])
    }

    /// True when λ is selected over a grid (several values).
    pub fn is_grid(&self) -> bool {
        self.lambdas().len() > 1
    }

    /// The learner (PEGASOS at the first λ).
    pub fn learner_spec(&self) -> LearnerSpec {
        LearnerSpec::of(self.learner, self.lambdas()[0], self.centres.unwrap_or(Self::DEFAULT_CENTRES))
    }

    /// The run's configuration.
    pub fn config(&self) -> TreeCvConfig {
        TreeCvConfig::new().method(self.method).order(self.order).parallel(self.parallel).seed(self.seed)
    }

    /// `data` cut into the spec's chunks for `learner` (shuffled with the seed unless `shuffle`
    /// is off, stored as the spec says).
    ///
    /// # Errors
    /// [`ChunkedData::new`]'s (k against n, the learner's checks of the data).
    pub fn chunks<L: crate::incremental::Incremental>(&self, learner: &L, data: &Dataset) -> Result<ChunkedData> {
        let storage = if self.f32 { Storage::F32 } else { Storage::F64 };
        ChunkedData::new(learner, data, self.folds.on(data.n_rows()), self.shuffle.then_some(self.seed))?.with_storage(storage)
    }

    /// The TreeCV curve over the λ grid (PEGASOS) and its argmin (first of tied values), each
    /// λ's run on `executor`.
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s; [`Error::InvalidParameter`] (`lambda`) for another
    /// learner; the chunking's and the runs' errors.
    pub fn run_grid(&self, data: &Dataset, executor: &dyn Executor) -> Result<GridReport> {
        self.validate()?;
        if self.learner != LearnerKind::Pegasos {
            return Err(Error::invalid("lambda", "a λ grid with learner pegasos", self.learner));
        }
        let lambdas = self.lambdas();
        let chunks = self.chunks(&crate::incremental::Pegasos::new(lambdas[0])?, data)?;
        crate::treecv::select_grid(&lambdas, crate::incremental::Pegasos::new, &chunks, &self.config(), TieRule::First, executor)
    }

    /// Runs the CV (its forks on `executor`), or the λ grid (each λ's run likewise).
    ///
    /// # Errors
    /// [`validate`](Self::validate)'s, the learner's, the chunking's and the run's errors.
    pub fn run(&self, inputs: &Inputs<'_>, executor: &dyn Executor) -> Result<TreecvOutcome> {
        struct Run<'a> {
            spec: &'a TreecvSpec,
            data: &'a Dataset,
            executor: &'a dyn Executor,
        }
        impl crate::treecv::LearnerVisitor for Run<'_> {
            type Output = Result<TreeCvReport>;
            fn visit<L: crate::incremental::Incremental>(self, learner: &L) -> Self::Output {
                crate::treecv::run_with(learner, &self.spec.chunks(learner, self.data)?, &self.spec.config(), self.executor)
            }
        }
        self.validate()?;
        let data = inputs.data;
        if self.is_grid() {
            return Ok(TreecvOutcome::Grid(self.run_grid(data, executor)?));
        }
        let run = Run { spec: self, data, executor };
        Ok(TreecvOutcome::Single(self.learner_spec().visit(data.target().n_classes(), run)??))
    }
}

/// A choice in a spec: its name as users write it (`holdout`, `most-frequent`, `auto`).
mod by_name {
    use crate::names::Named;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Named, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.name())
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        T::parse_name(&String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::generators::{knn_problem, svr_problem};

    /// Every field has the CLI's default: `{}` reads as the default spec, and a spec reads back
    /// from its JSON equal to itself.
    #[test]
    fn specs_default_to_the_cli_and_round_trip_through_json() {
        assert_eq!(serde_json::from_str::<SelectSpec>("{}").unwrap(), SelectSpec::default());
        let select = SelectSpec {
            method: Method::Subagging,
            plan: Some(Plan::parse("vfold:5", true).unwrap()),
            loss: Some(Loss::Absolute),
            tie: TieRule::Last,
            aggregation: Some(Aggregation::Mean),
            inner_fraction: Some(TrainFraction::new(0.6).unwrap()),
            seed: Seed(7),
            standardize: true,
            missing_category: MissingCategory::MostFrequent,
            ..SelectSpec::default()
        };
        let json = serde_json::to_string(&select).unwrap();
        assert!(json.contains(r#""method":"subagging""#) && json.contains(r#""missing_category":"most-frequent""#), "{json}");
        assert_eq!(serde_json::from_str::<SelectSpec>(&json).unwrap(), select);
        let estimate = EstimateSpec {
            value: 3.0,
            losses: vec![Loss::Squared, Loss::Absolute],
            learning_curve: Some(LearningCurveSpec { train_sizes: vec![20, 40], n_splits: 3 }),
            closed_form: ClosedFormPolicy::Never,
            ..EstimateSpec::default()
        };
        let back: EstimateSpec = serde_json::from_str(&serde_json::to_string(&estimate).unwrap()).unwrap();
        assert_eq!(back, estimate);
        assert_eq!(serde_json::from_str::<CompareSpec>("{}").unwrap(), CompareSpec::default());
        let compare: CompareSpec = serde_json::from_str(r#"{"methods": ["cv+1se", "majhoo"], "compared": [{"family": "cart"}]}"#).unwrap();
        assert_eq!(compare.methods[0], ProcedureChoice { method: Method::Cv, one_standard_error: true });
        let json = serde_json::to_string(&compare).unwrap();
        assert!(json.contains(r#""methods":["cv+1se","majhoo"]"#), "{json}");
        assert_eq!(serde_json::from_str::<CompareSpec>(&json).unwrap(), compare);
        let e = serde_json::from_str::<CompareSpec>(r#"{"methods": ["agghoo+1se"]}"#).unwrap_err().to_string();
        assert!(e.contains("+1se on cv only"), "{e}");
    }

    /// A misspelt field, a bad value or a rule that does not apply is an error naming it.
    #[test]
    fn a_bad_field_is_an_error_naming_it() {
        let e = serde_json::from_str::<SelectSpec>(r#"{"metod": "cv"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `metod`"), "{e}");
        let e = serde_json::from_str::<SelectSpec>(r#"{"method": "hold-out"}"#).unwrap_err().to_string();
        assert!(e.contains("parameter `method` must be one of agghoo"), "{e}");
        let e = serde_json::from_str::<SelectSpec>(r#"{"inner_fraction": 1.5}"#).unwrap_err().to_string();
        assert!(e.contains("1.5"), "{e}");
        let named = |r: Result<()>| match r {
            Err(Error::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        let spec = SelectSpec { one_standard_error: true, ..SelectSpec::default() };
        assert_eq!(named(spec.validate()), "one-se");
        let spec = SelectSpec { method: Method::Cv, aggregation: Some(Aggregation::Vote), ..SelectSpec::default() };
        assert_eq!(named(spec.validate()), "aggregate");
        let spec = SelectSpec { inner_fraction: Some(TrainFraction::DEFAULT), ..SelectSpec::default() };
        assert_eq!(named(spec.validate()), "inner-tau");
        assert_eq!(named(EstimateSpec::default().validate()), "value");
    }

    /// A spec runs as the functions it configures do, on the same splits.
    #[test]
    fn a_spec_runs_as_the_procedure_it_configures() {
        let data = knn_problem(90, Seed(3)).unwrap();
        let spec: SelectSpec = serde_json::from_str(r#"{"method": "cv", "seed": 4}"#).unwrap();
        let (_, report) = spec.run(&Inputs::of(&data), &crate::engine::Rayon).unwrap();
        let family = FamilySpec::default_for(FamilyKind::Knn).build(&data).unwrap();
        let splits = Plan::VFold(VFold::new(10).unwrap().stratified()).instantiate(&PlanContext::of(&data), Seed(4)).unwrap();
        let (_, direct) = crate::select::select(family.as_ref(), &data, &splits, &SelectConfig::new(Method::Cv)).unwrap();
        assert_eq!(serde_json::to_value(&report).unwrap(), serde_json::to_value(&direct).unwrap());
        // Given splits replace the plan.
        let inputs = Inputs { splits: Some(splits.clone()), ..Inputs::of(&data) };
        let other = SelectSpec { plan: Some(Plan::parse("loo", false).unwrap()), ..spec };
        assert_eq!(other.splits(&inputs).unwrap(), splits);

        let reg = svr_problem(60, Seed(2), 0).unwrap();
        let spec: EstimateSpec = serde_json::from_str(r#"{"value": 5, "plan": {"plan": "bootstrap", "n_resamples": 4}}"#).unwrap();
        let outcome = spec.run(&Inputs::of(&reg), &crate::engine::Rayon).unwrap();
        assert!(outcome.bootstrap.is_some() && outcome.learning_curve.is_none());
        let folds: Vec<String> = (0..60).map(|i| (i % 3).to_string()).collect();
        let spec = EstimateSpec { plan: Some(default_plan(PlanKind::Folds).unwrap()), ..spec };
        let inputs = Inputs { folds: Some(&folds), ..Inputs::of(&reg) };
        assert_eq!(spec.splits(&inputs).unwrap().len(), 3);
        assert!(spec.splits(&Inputs::of(&reg)).is_err());
    }

    /// `features` and `treecv` specs: `{}` is the CLI's default, a spec reads back from its JSON
    /// equal to itself, a misplaced option is an error naming it, and a spec runs as the
    /// functions it configures.
    #[test]
    fn features_and_treecv_specs_default_to_the_cli_and_run_as_configured() {
        use crate::features::{Learner, select_features};
        assert_eq!(serde_json::from_str::<FeaturesSpec>("{}").unwrap(), FeaturesSpec::default());
        assert_eq!(serde_json::from_str::<TreecvSpec>("{}").unwrap(), TreecvSpec::default());
        let features: FeaturesSpec =
            serde_json::from_str(r#"{"method": "pearson", "n_features": 2, "evaluate": {"plan": "v_fold", "n_folds": 3, "stratify": false, "shuffle": true}, "learner": "knn:3", "seed": 4}"#)
                .unwrap();
        assert_eq!(features.n_features, "2");
        let text: FeaturesSpec =
            serde_json::from_str(r#"{"method": "pearson", "n_features": "2", "evaluate": "vfold:3", "learner": "knn:3", "seed": 4}"#)
                .unwrap();
        assert_eq!(text, features);
        assert_eq!(serde_json::from_str::<FeaturesSpec>(&serde_json::to_string(&features).unwrap()).unwrap(), features);
        let treecv: TreecvSpec =
            serde_json::from_str(r#"{"learner": "gaussian-nb", "folds": "loo", "order": "random", "shuffle": false}"#).unwrap();
        assert_eq!((treecv.folds, treecv.folds.on(30)), (Folds::LeaveOneOut, 30));
        let json = serde_json::to_string(&treecv).unwrap();
        assert!(json.contains(r#""folds":"loo""#) && json.contains(r#""learner":"gaussian-nb""#), "{json}");
        assert_eq!(serde_json::from_str::<TreecvSpec>(&json).unwrap(), treecv);

        let named = |r: Result<()>| match r {
            Err(Error::InvalidParameter { name, .. }) => name,
            other => panic!("{other:?}"),
        };
        assert_eq!(named(FeaturesSpec { scorer: "nope".into(), ..FeaturesSpec::default() }.validate()), "scorer");
        assert_eq!(named(FeaturesSpec { learner: Some("knn:3".into()), ..FeaturesSpec::default() }.validate()), "learner");
        assert_eq!(named(TreecvSpec { lambda: Some(vec![0.1]), ..treecv.clone() }.validate()), "lambda");
        assert_eq!(named(TreecvSpec { centres: Some(3), ..TreecvSpec::default() }.validate()), "centres");
        let e = serde_json::from_str::<TreecvSpec>(r#"{"folds": "many"}"#).unwrap_err().to_string();
        assert!(e.contains("`folds`"), "{e}");
        let e = serde_json::from_str::<FeaturesSpec>(r#"{"scorr": "cfs"}"#).unwrap_err().to_string();
        assert!(e.contains("unknown field `scorr`"), "{e}");

        let data = crate::data::generators::genuer(80, 6, Seed(1), 0).unwrap();
        let spec = FeaturesSpec { evaluate: None, learner: None, ..features };
        let FeaturesOutcome::Selection(selection) = spec.run(&Inputs::of(&data), &crate::engine::Rayon).unwrap() else {
            panic!("a selection")
        };
        let direct = select_features(&spec.selector(spec.preprocess(&data)).unwrap(), &data, Seed(4)).unwrap();
        assert_eq!(selection, direct);
        let honest = FeaturesSpec { evaluate: Some(Plan::parse("vfold:3", false).unwrap()), learner: Some("knn:3".into()), ..spec };
        let FeaturesOutcome::Honest(report) = honest.run(&Inputs::of(&data), &crate::engine::Rayon).unwrap() else {
            panic!("an evaluation")
        };
        let config = honest.honest_config(&data).unwrap();
        assert_eq!(config.learner, Learner::parse("knn:3").unwrap());
        let outer = Plan::parse("vfold:3", false).unwrap().instantiate(&PlanContext::of(&data), Seed(4)).unwrap();
        assert_eq!(report, crate::features::evaluate_honestly(&data, &outer, &config).unwrap());

        let stream = crate::data::generators::covertype_like(300, Seed(2)).unwrap();
        let spec = TreecvSpec { folds: Folds::K(5), seed: Seed(3), ..TreecvSpec::default() };
        let TreecvOutcome::Single(report) = spec.run(&Inputs::of(&stream), &crate::engine::Rayon).unwrap() else { panic!("one learner") };
        let learner = crate::incremental::Pegasos::new(TreecvSpec::DEFAULT_LAMBDA).unwrap();
        let chunks = ChunkedData::new(&learner, &stream, 5, Some(Seed(3))).unwrap();
        let direct = crate::treecv::run(&learner, &chunks, &TreeCvConfig::new().seed(Seed(3))).unwrap();
        assert_eq!((report.estimate, &report.chunk_losses), (direct.estimate, &direct.chunk_losses));
        let grid = TreecvSpec { lambda: Some(vec![1e-4, 1e-2]), ..spec };
        let TreecvOutcome::Grid(g) = grid.run(&Inputs::of(&stream), &crate::engine::Rayon).unwrap() else { panic!("a grid") };
        assert_eq!(g.values, [1e-4, 1e-2]);
    }

    /// A job, a report and a model file spell every choice as specs do (`holdout`, `soft`), and
    /// the spellings written before (`hold-out`, `soft_vote`, `score_mean`) still read.
    #[test]
    fn jobs_and_reports_spell_choices_as_specs_do() {
        let config = SelectConfig { aggregation: Some(Aggregation::SoftVote), ..SelectConfig::new(Method::HoldOut) };
        let json = serde_json::to_string(&config).unwrap();
        assert!(json.contains(r#""method":"holdout""#) && json.contains(r#""aggregation":"soft""#), "{json}");
        let old = json
            .replace(r#""method":"holdout""#, r#""method":"hold-out""#)
            .replace(r#""aggregation":"soft""#, r#""aggregation":"soft_vote""#);
        let back: SelectConfig = serde_json::from_str(&old).unwrap();
        assert_eq!((back.method, back.aggregation), (Method::HoldOut, Some(Aggregation::SoftVote)));
        for (a, name, old) in [
            (Aggregation::SoftVote, "soft", "soft_vote"),
            (Aggregation::ScoreMean, "score", "score_mean"),
            (Aggregation::Single, "single", "single"),
        ] {
            assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<Aggregation>(&format!("\"{old}\"")).unwrap(), a);
        }
        for &(m, name, _) in <Method as crate::names::Named>::CHOICES {
            assert_eq!(serde_json::to_string(&m).unwrap(), format!("\"{name}\""));
        }
        assert!(serde_json::from_str::<Aggregation>(r#""auto""#).is_err() && serde_json::from_str::<Method>(r#""holdoot""#).is_err());
    }
}
