//! The real-data study: Agghoo / Majhoo against cross-validation selection on the data sets of
//! a study folder (`data/study` in the repository: a `manifest.tsv` and one gzip CSV per set).
//!
//! # Protocol
//! For each data set, each family of [`StudyFamily`], and each outer repetition r (shared by every
//! family and procedure of the set):
//! 1. **Outer split.** A uniformly random permutation of the rows (stream r of the set's seed);
//!    its first `n_train = min(⌊0.7 n⌋, max_train)` rows train, the next
//!    `n_test = min(n − n_train, max_test)` rows test. The caps keep the kernel and neighbour
//!    families affordable on the large sets; a set's sizes are in its table.
//! 2. **Inner evaluation, once per split set** (all on the `n_train` rows, preprocessing — median
//!    imputation, the family's categorical encoding, standardisation for k-NN, the SVM and the
//!    linear model — fitted inside each training set):
//!    - 10-fold CV (stratified for classification): **CV**, **CV + 1-SE**, **ACV**, **EKCV**
//!      conclude from these ten evaluations;
//!    - 10 Monte-Carlo splits at τ = 0.8 (stratified for classification, as are those at τ = 0.5):
//!      **hold-out** (the first split), **MC-CV** (the mean
//!      risk of the ten), **Agghoo (τ = 0.8, V = 10)** and **(τ = 0.8, V = 5)** (the first five);
//!    - 10 Monte-Carlo splits at τ = 0.5: **Agghoo (τ = 0.5, V = 10)** and **(V = 5)**.
//!
//!    Agghoo averages its members for regression and takes their majority vote for
//!    classification (Majhoo). Every procedure is the library's own ([`conclude`]): the study
//!    evaluates each split set once and concludes every procedure that reads it, which is
//!    exactly what running the procedures one by one would give.
//! 3. **Test risk** of every procedure's final predictor on the `n_test` rows: 0–1 loss for
//!    classification, squared error for regression. A random forest (100 trees, default mtry,
//!    no tuning) is fitted on the same rows as a reference.
//!
//! # Summaries
//! Per (set, family) and procedure: the mean test risk and its standard error over the
//! repetitions; the risk relative to 10-fold CV (ratio of mean risks); the paired differences
//! against 10-fold CV with the corrected resampled t-test (Nadeau & Bengio 2003, the test-to-
//! training ratio `n_test / n_train` of the outer splits) and a verdict at level α: a **win**
//! when the procedure's risk is significantly lower, a **loss** when higher, a **tie**
//! otherwise; the cost — path fits and refits on the outer training rows per repetition, and
//! seconds (each split's evaluation timed alone, a procedure charged for the splits it reads
//! plus its conclusion). Across sets, per family and procedure: the geometric mean of the
//! relative risks and the win / tie / loss counts.
//!
//! Cells that fail (a fit error in any repetition) are reported with their error and left out of
//! the summaries; the study goes on.
//!
//! Determinism: the outer permutation of repetition r of the set at position s of the manifest
//! comes from `seed.child(Experiment, s).child(Data, r)`, the inner splits from
//! `child(Splits, 0 | 1 | 2)` of the same repetition seed; risks are bit-identical for any
//! thread count (times are not).

use std::time::Instant;

use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::data::study::{StudyManifest, StudySet};
use crate::data::{Dataset, MissingCategory, MissingPolicy, Task};
use crate::engine::{EvalOptions, Executor, Rayon, Sequential, SplitOutcome, TieRule, evaluate_units, map_ordered, refit_all};
use crate::error::{Error, Result};
use crate::estimate::corrected_resampled_t_test;
use crate::family::forest::ForestConfig;
use crate::family::logistic::LogisticConfig;
use crate::family::{self, FamilyKind, FamilySpec, GridSpec, Predictor};
use crate::loss::Loss;
use crate::resample::{Bootstrap, MonteCarlo, PlanContext, PlanKind, Splits, VFold};
use crate::seed::{Purpose, Seed};
use crate::select::{FittedModel, Method, SelectConfig, conclude};

/// A family of the study: the learner it runs on classification and on regression data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StudyFamily {
    /// k-nearest neighbours over k (standardised features).
    Knn,
    /// CART over its cost-complexity pruning sequence.
    Cart,
    /// Gaussian-kernel SVM over λ (C-SVC / ε-SVR, γ by scikit-learn's `scale` rule, standardised
    /// features).
    Svm,
    /// A penalised linear model over λ: L2 logistic regression / ridge (standardised features).
    Linear,
}

impl StudyFamily {
    /// Every family, in table order.
    pub const ALL: [StudyFamily; 4] = [StudyFamily::Knn, StudyFamily::Cart, StudyFamily::Svm, StudyFamily::Linear];

    /// The name in tables and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StudyFamily::Knn => "knn",
            StudyFamily::Cart => "cart",
            StudyFamily::Svm => "svm",
            StudyFamily::Linear => "linear",
        }
    }

    /// Parses a name of [`StudyFamily::name`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the known families.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|f| f.name() == name.trim()).ok_or_else(|| Error::invalid("family", "knn, cart, svm or linear", name))
    }

    /// The library family run for `task`.
    pub fn kind(self, task: Task) -> FamilyKind {
        match (self, task) {
            (StudyFamily::Knn, _) => FamilyKind::Knn,
            (StudyFamily::Cart, _) => FamilyKind::Cart,
            (StudyFamily::Svm, Task::Classification) => FamilyKind::Svc,
            (StudyFamily::Svm, Task::Regression) => FamilyKind::Svr,
            (StudyFamily::Linear, Task::Classification) => FamilyKind::Logistic,
            (StudyFamily::Linear, Task::Regression) => FamilyKind::Ridge,
        }
    }

    /// The family's spec: its defaults, except the logistic model's gradient tolerance,
    /// 10⁻⁴ (scikit-learn's default for `LogisticRegression`) instead of the library's 10⁻⁶,
    /// which costs several times more on the many-class sets at no visible change in risk.
    pub fn spec(self, task: Task) -> FamilySpec {
        match self.kind(task) {
            FamilyKind::Logistic => FamilySpec::Logistic(LogisticConfig { tol: 1e-4, ..LogisticConfig::default() }),
            kind => FamilySpec::default_for(kind),
        }
    }

    fn standardize(self) -> bool {
        self != StudyFamily::Cart
    }
}

/// What a procedure of the study does with its splits: one of the library's procedures, or a
/// reference that separates ensembling from selection. Its name (in tables and in study.json's
/// `kind`) is the library's method name ([`Method::name`]), prefixed `mc` when the method reads
/// Monte-Carlo splits instead of its default V-fold ones (`mccv`), suffixed `+1se` with the
/// one-standard-error rule (`cv+1se`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum ProcedureKind {
    /// The library's procedure `method` (Agghoo is Majhoo's vote on classification), with the
    /// one-standard-error rule when `one_se`, on a split set of kind `plan`.
    Select {
        /// The procedure.
        method: Method,
        /// The one-standard-error rule.
        one_se: bool,
        /// The kind of split set it reads.
        plan: PlanKind,
    },
    /// Reference: subagging at CV's choice — the grid point 10-fold CV selects, trained on each
    /// of the Monte-Carlo training sets Agghoo reads and combined as Agghoo's members are. The
    /// ensemble without the per-split selection.
    Subagging,
    /// Reference: bagging of CV's choice — the grid point 10-fold CV selects, trained on V
    /// bootstrap resamples of the training rows and combined as Agghoo's members are.
    Bagging,
}

impl ProcedureKind {
    /// The library's procedure `method` on a split set of kind `plan`, without the
    /// one-standard-error rule.
    pub const fn select(method: Method, plan: PlanKind) -> Self {
        ProcedureKind::Select { method, one_se: false, plan }
    }

    /// The name in tables.
    pub fn name(self) -> String {
        match self {
            ProcedureKind::Select { method, one_se, plan } => {
                let mc = plan == PlanKind::MonteCarlo && method.default_plan() == PlanKind::VFold;
                format!("{}{}{}", if mc { "mc" } else { "" }, method.name(), if one_se { "+1se" } else { "" })
            }
            ProcedureKind::Subagging => "subagging".into(),
            ProcedureKind::Bagging => "bagging".into(),
        }
    }

    fn config(self) -> SelectConfig {
        match self {
            ProcedureKind::Select { method, one_se, .. } => {
                let mut c = SelectConfig::new(method);
                c.one_standard_error = one_se;
                c
            }
            // The references are Agghoo run with a one-point grid (CV's choice): every member
            // is that grid point, fitted on its split's training rows.
            ProcedureKind::Subagging | ProcedureKind::Bagging => SelectConfig::new(Method::Agghoo),
        }
    }
}

impl From<ProcedureKind> for String {
    fn from(kind: ProcedureKind) -> String {
        kind.name()
    }
}

impl TryFrom<String> for ProcedureKind {
    type Error = Error;
    /// The procedure of [`PROCEDURES`] of this name.
    fn try_from(name: String) -> Result<Self> {
        static EXPECTED: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
            let mut names: Vec<String> = PROCEDURES.iter().map(|(p, _)| p.kind.name()).collect();
            names.dedup();
            format!("one of {}", names.join(", "))
        });
        PROCEDURES.iter().map(|(p, _)| p.kind).find(|k| k.name() == name).ok_or_else(|| Error::invalid("procedure", &EXPECTED, name))
    }
}

/// A procedure of the study, with its split set.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyProcedure {
    /// What it does.
    pub kind: ProcedureKind,
    /// Training fraction of the Monte-Carlo splits it reads (`None` for 10-fold CV).
    pub tau: Option<f64>,
    /// Splits it reads.
    pub v: usize,
}

impl StudyProcedure {
    /// The label in tables: the name with τ and V where they vary.
    pub fn label(&self) -> String {
        match (self.kind, self.tau) {
            (ProcedureKind::Select { method: Method::HoldOut, .. }, Some(t)) => format!("holdout τ={t}"),
            (kind, Some(t)) => format!("{} τ={t} V={}", kind.name(), self.v),
            (kind, None) => format!("{} V={}", kind.name(), self.v),
        }
    }
}

/// The split sets of a repetition, in the order of [`PROCEDURES`]' `set` indices.
const VFOLD: usize = 0;
const MC_08: usize = 1;
const MC_05: usize = 2;
const BOOTSTRAP: usize = 3;
/// Folds of the V-fold set; splits of each Monte-Carlo set.
const SPLITS_PER_SET: usize = 10;

/// The procedures, each with the split set it reads and how many of its first splits; the last
/// two are the references that separate ensembling from selection ([`COMPARISONS`]).
pub const PROCEDURES: [(StudyProcedure, usize); 12] = [
    (StudyProcedure { kind: ProcedureKind::select(Method::Cv, PlanKind::VFold), tau: None, v: 10 }, VFOLD),
    (StudyProcedure { kind: ProcedureKind::Select { method: Method::Cv, one_se: true, plan: PlanKind::VFold }, tau: None, v: 10 }, VFOLD),
    (StudyProcedure { kind: ProcedureKind::select(Method::Acv, PlanKind::VFold), tau: None, v: 10 }, VFOLD),
    (StudyProcedure { kind: ProcedureKind::select(Method::Ekcv, PlanKind::VFold), tau: None, v: 10 }, VFOLD),
    (StudyProcedure { kind: ProcedureKind::select(Method::HoldOut, PlanKind::HoldOut), tau: Some(0.8), v: 1 }, MC_08),
    (StudyProcedure { kind: ProcedureKind::select(Method::Cv, PlanKind::MonteCarlo), tau: Some(0.8), v: 10 }, MC_08),
    (StudyProcedure { kind: ProcedureKind::select(Method::Agghoo, PlanKind::MonteCarlo), tau: Some(0.8), v: 5 }, MC_08),
    (StudyProcedure { kind: ProcedureKind::select(Method::Agghoo, PlanKind::MonteCarlo), tau: Some(0.8), v: 10 }, MC_08),
    (StudyProcedure { kind: ProcedureKind::select(Method::Agghoo, PlanKind::MonteCarlo), tau: Some(0.5), v: 5 }, MC_05),
    (StudyProcedure { kind: ProcedureKind::select(Method::Agghoo, PlanKind::MonteCarlo), tau: Some(0.5), v: 10 }, MC_05),
    (StudyProcedure { kind: ProcedureKind::Subagging, tau: Some(0.8), v: 10 }, MC_08),
    (StudyProcedure { kind: ProcedureKind::Bagging, tau: None, v: 10 }, BOOTSTRAP),
];

/// Indices in [`PROCEDURES`] of Agghoo (τ = 0.8, V = 10) and of its two references.
pub const AGGHOO: usize = 7;
/// Subagging at CV's choice, on Agghoo's splits.
pub const SUBAGGING: usize = 10;
/// Bagging of CV's choice.
pub const BAGGING: usize = 11;

/// One side of a paired comparison: a procedure of [`PROCEDURES`] or the reference forest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operand {
    /// The procedure at this index of [`PROCEDURES`].
    Procedure(usize),
    /// The reference random forest.
    Forest,
}

/// The paired comparisons of every cell, `(label, numerator, denominator)`: Agghoo's gain over
/// CV split into the ensemble (subagging at CV's choice against CV) and the per-split selection
/// (Agghoo against that subagging, on the same subsamples); then bagging and the forest against
/// Agghoo, the other uses of the same compute.
pub const COMPARISONS: [(&str, Operand, Operand); 6] = [
    ("agghoo / cv", Operand::Procedure(AGGHOO), Operand::Procedure(REFERENCE)),
    ("ensemble: subagging / cv", Operand::Procedure(SUBAGGING), Operand::Procedure(REFERENCE)),
    ("selection: agghoo / subagging", Operand::Procedure(AGGHOO), Operand::Procedure(SUBAGGING)),
    ("bagging / agghoo", Operand::Procedure(BAGGING), Operand::Procedure(AGGHOO)),
    ("forest / agghoo", Operand::Forest, Operand::Procedure(AGGHOO)),
    ("forest / cv", Operand::Forest, Operand::Procedure(REFERENCE)),
];

/// The procedure every other one is compared with (10-fold CV, the first of [`PROCEDURES`]).
pub const REFERENCE: usize = 0;

/// The study's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyConfig {
    /// Data sets by name (empty: every set of the manifest).
    pub sets: Vec<String>,
    /// Families.
    pub families: Vec<StudyFamily>,
    /// Outer repetitions (random train / test splits).
    pub reps: usize,
    /// The seed every random choice flows from.
    pub seed: Seed,
    /// Cap on the outer training rows.
    pub max_train: usize,
    /// Cap on the outer test rows.
    pub max_test: usize,
    /// Trees of the reference forest (0: no forest).
    pub forest_trees: usize,
    /// Level of the paired tests.
    pub alpha: f64,
    /// How ties in every argmin (each split's selection, the CV curve) are broken:
    /// [`TieRule::First`] is the smallest grid value (the library's default), [`TieRule::Last`]
    /// the largest — the simplest model for every study family.
    #[serde(default)]
    pub tie: TieRule,
}

impl StudyConfig {
    /// The full study: every set, every family, 100 repetitions, at most 300 training and 1 000
    /// test rows, a 100-tree forest, α = 0.05, seed 1.
    pub fn full() -> Self {
        Self {
            sets: Vec::new(),
            families: StudyFamily::ALL.to_vec(),
            reps: 100,
            seed: Seed(1),
            max_train: 300,
            max_test: 1000,
            forest_trees: 100,
            alpha: 0.05,
            tie: TieRule::First,
        }
    }

    /// The quick study (about 15 s on 2 cores): six sets of both tasks, with categorical features and missing
    /// values among them, 10 repetitions, at most 200 training rows.
    pub fn quick() -> Self {
        Self {
            sets: ["iris", "penguins", "pima", "boston", "salaries", "concrete"].map(String::from).to_vec(),
            reps: 10,
            max_train: 200,
            max_test: 500,
            forest_trees: 50,
            ..Self::full()
        }
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field; [`Error::ResourceLimit`] for too many
    /// repetitions.
    pub fn check(&self) -> Result<()> {
        if self.reps < 2 {
            return Err(Error::invalid("reps", "at least 2 (a paired test needs two differences)", self.reps));
        }
        crate::limits::check_count(crate::limits::Count::Repetitions, self.reps as u128, "the study")?;
        if self.families.is_empty() {
            return Err(Error::invalid("families", "at least one family", "none"));
        }
        if self.max_train < 20 {
            return Err(Error::invalid("max-train", "at least 20 rows (10 folds of 2 rows)", self.max_train));
        }
        if self.max_test == 0 {
            return Err(Error::invalid("max-test", "at least 1 row", self.max_test));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(Error::invalid("alpha", "in (0, 1)", self.alpha));
        }
        Ok(())
    }
}

/// The study a caller asks for (`agghoo study`'s flags, Python's `agghoo.study` keywords): the
/// quick or the full settings, each field given overriding them. `{}` is `agghoo study`'s spec.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StudySpec {
    /// Start from [`StudyConfig::quick`] instead of [`StudyConfig::full`].
    pub quick: bool,
    /// Data sets by name (empty: every set of the manifest); `None`: the settings' sets.
    pub sets: Option<Vec<String>>,
    /// Families by name ([`StudyFamily::name`]); `None`: the settings' families.
    pub families: Option<Vec<String>>,
    /// Outer repetitions.
    pub reps: Option<usize>,
    /// The seed every random choice flows from.
    pub seed: Option<Seed>,
    /// Cap on the outer training rows.
    pub max_train: Option<usize>,
    /// Cap on the outer test rows.
    pub max_test: Option<usize>,
    /// Trees of the reference forest (0: no forest).
    pub forest_trees: Option<usize>,
    /// Level of the paired tests.
    pub alpha: Option<f64>,
    /// How ties in every argmin are broken (see [`StudyConfig::tie`]).
    pub tie: TieRule,
}

impl StudySpec {
    /// The settings this spec runs, checked.
    ///
    /// # Errors
    /// [`StudyFamily::parse`]'s for an unknown family; [`StudyConfig::check`]'s.
    pub fn config(&self) -> Result<StudyConfig> {
        let mut c = if self.quick { StudyConfig::quick() } else { StudyConfig::full() };
        if let Some(sets) = &self.sets {
            c.sets.clone_from(sets);
        }
        if let Some(families) = &self.families {
            c.families = families.iter().map(|f| StudyFamily::parse(f)).collect::<Result<_>>()?;
        }
        c.reps = self.reps.unwrap_or(c.reps);
        c.seed = self.seed.unwrap_or(c.seed);
        c.max_train = self.max_train.unwrap_or(c.max_train);
        c.max_test = self.max_test.unwrap_or(c.max_test);
        c.forest_trees = self.forest_trees.unwrap_or(c.forest_trees);
        c.alpha = self.alpha.unwrap_or(c.alpha);
        c.tie = self.tie;
        c.check()?;
        Ok(c)
    }
}

/// One procedure's line in a cell (a data set × a family).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcedureRow {
    /// The procedure.
    pub procedure: StudyProcedure,
    /// Its label in tables ([`StudyProcedure::label`]).
    pub label: String,
    /// Test risk of each repetition.
    pub risks: Vec<f64>,
    /// Mean test risk.
    pub mean: f64,
    /// Its standard error (`sd / √R`).
    pub standard_error: f64,
    /// Mean risk over 10-fold CV's mean risk (1 for CV; NaN when CV's is 0).
    pub relative: f64,
    /// Mean paired difference against 10-fold CV.
    pub difference: f64,
    /// Two-sided p-value of the corrected resampled t-test of the differences (1 for CV).
    pub p_value: f64,
    /// `win`, `tie` or `loss` against 10-fold CV at the study's α (`reference` for CV itself).
    pub verdict: Verdict,
    /// Path fits on training sets plus refits on the outer training rows, per repetition (mean).
    pub fits: f64,
    /// Seconds per repetition (mean): its splits' evaluations and its conclusion.
    pub seconds: f64,
}

/// A procedure's result against the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Significantly lower risk than 10-fold CV.
    Win,
    /// No significant difference.
    Tie,
    /// Significantly higher risk.
    Loss,
    /// 10-fold CV itself.
    Reference,
}

/// A data set × family cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// The data set.
    pub set: String,
    /// Its task.
    pub task: Task,
    /// The study family.
    pub family: StudyFamily,
    /// The library family it ran (`svc`, `ridge`, ...).
    pub learner: String,
    /// Rows of the data set.
    pub n_rows: usize,
    /// Outer training rows.
    pub n_train: usize,
    /// Outer test rows.
    pub n_test: usize,
    /// The procedures (empty when the cell failed).
    pub rows: Vec<ProcedureRow>,
    /// The reference forest's test risk per repetition (empty without forest or on failure).
    pub forest: Vec<f64>,
    /// The paired comparisons of [`COMPARISONS`] (empty when the cell failed; those with the
    /// forest left out without forest).
    #[serde(default)]
    pub comparisons: Vec<Comparison>,
    /// Why the cell failed, if it did.
    pub error: Option<String>,
}

/// A paired comparison of two columns of a cell's test risks over the repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Its label in [`COMPARISONS`].
    pub label: String,
    /// Numerator's mean risk over the denominator's (NaN when the latter is 0).
    pub relative: f64,
    /// Mean paired difference, numerator minus denominator.
    pub difference: f64,
    /// Two-sided p-value of the corrected resampled t-test of the differences.
    pub p_value: f64,
    /// `win` when the numerator's risk is significantly lower, `loss` when higher, else `tie`.
    pub verdict: Verdict,
}

/// Relative risks and verdicts of one family over the data sets: what a line of the summary and
/// of the comparisons' summary both report.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Data sets summarised (cells that ran with a finite positive ratio).
    pub sets: usize,
    /// Geometric mean of the ratios over those sets.
    pub relative: f64,
    /// Sets where the numerator (the procedure, against 10-fold CV) wins / ties / loses.
    pub wins: usize,
    /// Ties.
    pub ties: usize,
    /// Losses.
    pub losses: usize,
}

impl Tally {
    /// The tally of `(ratio, verdict)` pairs, one per cell: the geometric mean of the finite
    /// positive ratios, the verdicts counted over every cell.
    fn of(cells: &[(f64, Verdict)]) -> Self {
        let (relative, sets) = geometric_mean(cells.iter().map(|(r, _)| *r));
        let count = |v: Verdict| cells.iter().filter(|(_, x)| *x == v).count();
        Tally { sets, relative, wins: count(Verdict::Win), ties: count(Verdict::Tie), losses: count(Verdict::Loss) }
    }
}

/// A comparison over the data sets, per family.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ComparisonSummary {
    /// The family.
    pub family: StudyFamily,
    /// Its label in [`COMPARISONS`].
    pub label: String,
    /// The numerator against the denominator over the sets.
    #[serde(flatten)]
    pub tally: Tally,
}

/// A line of the summary: one family × procedure over the data sets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// The family.
    pub family: StudyFamily,
    /// The procedure.
    pub procedure: StudyProcedure,
    /// Its label in tables.
    pub label: String,
    /// The procedure against 10-fold CV over the sets (those where CV's risk is positive).
    #[serde(flatten)]
    pub tally: Tally,
    /// Mean over the sets of the fits per repetition.
    pub fits: f64,
    /// Mean over the sets of the seconds per repetition.
    pub seconds: f64,
}

/// The study's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyResult {
    /// Repetitions.
    pub reps: usize,
    /// Seed.
    pub seed: Seed,
    /// Caps on the outer training and test rows.
    pub max_train: usize,
    /// Test-row cap.
    pub max_test: usize,
    /// Level of the tests.
    pub alpha: f64,
    /// The tie rule of every argmin.
    #[serde(default)]
    pub tie: TieRule,
    /// Every cell, by set (manifest order) then family.
    pub cells: Vec<Cell>,
    /// Per family and procedure, over the sets.
    pub summary: Vec<SummaryRow>,
    /// Per family and comparison of [`COMPARISONS`], over the sets.
    #[serde(default)]
    pub comparisons: Vec<ComparisonSummary>,
}

/// Runs the study on the manifest's sets.
///
/// # Errors
/// [`StudyConfig::check`]; a set name the manifest does not list; read errors of a set's file.
/// Fit failures do not stop the study: they fail their cell ([`Cell::error`]).
pub fn run(manifest: &StudyManifest, config: &StudyConfig) -> Result<StudyResult> {
    run_with(manifest, config, &Rayon)
}

/// As [`run`], each cell's repetitions the units of `executor` (one at a time per cell, cells in
/// turn): its observer hears of every (set, family, repetition) and may stop the study.
///
/// # Errors
/// As [`run`]; [`Error::Interrupted`] when the observer stopped the study.
pub fn run_with(manifest: &StudyManifest, config: &StudyConfig, executor: &dyn Executor) -> Result<StudyResult> {
    config.check()?;
    let chosen = chosen_sets(manifest, &config.sets)?;
    let mut cells = Vec::new();
    for (position, set) in chosen {
        let data = manifest.read_csv(set, MissingPolicy::Median)?.data;
        manifest.check_read(set, &data)?;
        for &family in &config.families {
            cells.push(run_cell(&data, set, position, family, config, executor)?);
        }
    }
    let summary = summarize(&cells);
    let comparisons = summarize_comparisons(&cells);
    Ok(StudyResult {
        reps: config.reps,
        seed: config.seed,
        max_train: config.max_train,
        max_test: config.max_test,
        alpha: config.alpha,
        tie: config.tie,
        cells,
        summary,
        comparisons,
    })
}

/// The sets of `names` (every set of the manifest when empty) with at least `size` outer
/// training rows (`⌊0.7 n⌋ ≥ size`): those a run at `max_train = size` trains on `size` rows,
/// the rest being smaller there than they are already at a smaller size.
///
/// # Errors
/// [`Error::InvalidParameter`] for a name the manifest does not list.
pub fn sets_of_size(manifest: &StudyManifest, names: &[String], size: usize) -> Result<Vec<String>> {
    Ok(chosen_sets(manifest, names)?.into_iter().filter(|(_, s)| s.n_rows() * 7 / 10 >= size).map(|(_, s)| s.name().to_string()).collect())
}

fn chosen_sets<'a>(manifest: &'a StudyManifest, names: &[String]) -> Result<Vec<(usize, &'a StudySet)>> {
    if names.is_empty() {
        return Ok(manifest.sets().iter().enumerate().collect());
    }
    names
        .iter()
        .map(|name| {
            manifest
                .sets()
                .iter()
                .position(|s| s.name() == name)
                .map(|i| (i, &manifest.sets()[i]))
                .ok_or_else(|| Error::invalid("set", "a data set of the manifest", name))
        })
        .collect()
}

/// One repetition of a cell: each procedure's test risk, fits and seconds; the forest's risk.
struct Repetition {
    risks: Vec<f64>,
    fits: Vec<f64>,
    seconds: Vec<f64>,
    forest: Option<f64>,
}

/// A failed repetition as the one line a cell keeps: the repetition, then every cause once (the
/// split, the grid point, what failed), so a study's table says why a cell is empty.
fn repetition_failure(r: usize, e: &crate::Error) -> String {
    format!("repetition {r}: {}", crate::one_line(e))
}

/// A cell; a failed repetition fails the cell, not the study (only a stopped executor does).
fn run_cell(
    data: &Dataset,
    set: &StudySet,
    position: usize,
    family: StudyFamily,
    config: &StudyConfig,
    executor: &dyn Executor,
) -> Result<Cell> {
    let n = data.n_rows();
    let n_train = (n * 7 / 10).min(config.max_train);
    let n_test = (n - n_train).min(config.max_test);
    let kind = family.kind(data.task());
    let mut cell = Cell {
        set: set.name().into(),
        task: data.task(),
        family,
        learner: kind.name().into(),
        n_rows: n,
        n_train,
        n_test,
        rows: Vec::new(),
        forest: Vec::new(),
        comparisons: Vec::new(),
        error: None,
    };
    let set_seed = config.seed.child(Purpose::Experiment, position as u64);
    let reps: Vec<Result<Repetition>> = map_ordered(executor, config.reps, |r| {
        Ok(repetition(data, family, set_seed.child(Purpose::Data, r as u64), n_train, n_test, config))
    })?;
    let outcome = reps
        .into_iter()
        .enumerate()
        .map(|(r, out)| out.map_err(|e| repetition_failure(r, &e)))
        .collect::<std::result::Result<Vec<_>, String>>()
        .and_then(|reps| {
            let rows = procedure_rows(&reps, n_train, n_test, config.alpha).map_err(|e| crate::one_line(&e))?;
            let forest: Vec<f64> = reps.iter().filter_map(|r| r.forest).collect();
            let comparisons = comparisons(&rows, &forest, n_train, n_test, config.alpha).map_err(|e| crate::one_line(&e))?;
            Ok((rows, forest, comparisons))
        });
    match outcome {
        Ok((rows, forest, comparisons)) => {
            cell.rows = rows;
            cell.forest = forest;
            cell.comparisons = comparisons;
        }
        Err(e) => cell.error = Some(e),
    }
    Ok(cell)
}

/// The inner split sets of a repetition's training rows, in the order of the `VFOLD`, `MC_08`,
/// `MC_05` and `BOOTSTRAP` indices: 10-fold, 10 Monte-Carlo splits at τ = 0.8 and at τ = 0.5, 10
/// bootstrap resamples. For a classification target the folds and the Monte-Carlo splits are
/// stratified by class (every procedure sees each class in proportion, as scikit-learn's
/// default for classifiers; a rare class cannot vanish from a training set as it could from an
/// unstratified subsample).
fn inner_split_sets(train: &Dataset, seed: Seed) -> Result<[Splits; 4]> {
    let ctx = PlanContext::of(train);
    let (vfold, mc08, mc05) = (VFold::new(SPLITS_PER_SET)?, MonteCarlo::new(SPLITS_PER_SET, 0.8)?, MonteCarlo::new(SPLITS_PER_SET, 0.5)?);
    let (vfold, mc08, mc05) = match train.task() {
        Task::Classification => (vfold.stratified(), mc08.stratified(), mc05.stratified()),
        Task::Regression => (vfold, mc08, mc05),
    };
    Ok([
        vfold.instantiate_with(&ctx, seed.child(Purpose::Splits, 0))?,
        mc08.instantiate_with(&ctx, seed.child(Purpose::Splits, 1))?,
        mc05.instantiate_with(&ctx, seed.child(Purpose::Splits, 2))?,
        Bootstrap::new(SPLITS_PER_SET)?.instantiate(train.n_rows(), seed.child(Purpose::Splits, 3))?,
    ])
}

fn repetition(data: &Dataset, family: StudyFamily, seed: Seed, n_train: usize, n_test: usize, config: &StudyConfig) -> Result<Repetition> {
    let mut order: Vec<usize> = (0..data.n_rows()).collect();
    order.shuffle(&mut seed.rng(Purpose::Data, 0));
    let mut train_rows = order[..n_train].to_vec();
    let mut test_rows = order[n_train..n_train + n_test].to_vec();
    train_rows.sort_unstable();
    test_rows.sort_unstable();
    let train = data.select_rows(&train_rows)?;
    let test = data.select_rows(&test_rows)?;
    let task = train.task();
    let loss = Loss::default_for(task);
    let kind = family.kind(task);
    // Imputation is on whenever the set has missing values (a training sample without any may
    // still meet them in its test rows); the medians are fitted inside each training set.
    let preprocess = kind.preprocess(data, family.standardize(), MissingCategory::Level);
    let learner = family.spec(task).build_for(&train, &preprocess)?;

    let split_sets = inner_split_sets(&train, seed)?;
    let tie = config.tie;
    // Each split evaluated alone, timed; the Monte-Carlo sets keep their selected models. The
    // bootstrap set is evaluated only by the bagging reference, at CV's choice.
    let mut evaluated: Vec<(Vec<SplitOutcome>, Vec<f64>)> = Vec::new();
    for (s, splits) in split_sets[..BOOTSTRAP].iter().enumerate() {
        evaluated.push(evaluate_timed(learner.as_ref(), &train, splits, preprocess, loss, tie, s != VFOLD)?);
    }

    let mut out = Repetition { risks: Vec::new(), fits: Vec::new(), seconds: Vec::new(), forest: None };
    let mut cv_choice = None;
    for (procedure, set) in PROCEDURES {
        let start = Instant::now();
        let v = procedure.v;
        let units = Splits::new(n_train, split_sets[set].as_slice()[..v].to_vec())?;
        let mut select = procedure.kind.config();
        select.preprocess = preprocess;
        select.tie = tie;
        let (model, report, split_seconds, refits) = match procedure.kind {
            ProcedureKind::Subagging | ProcedureKind::Bagging => {
                // CV's choice as a one-point grid: its evaluation, and CV's, are what it costs.
                let chosen: usize = cv_choice.ok_or_else(|| Error::invalid("procedures", "10-fold CV before the references", "none"))?;
                let value = learner.grid().value(chosen);
                let fixed = family.spec(task).with_grid(GridSpec::Values(vec![value]))?.build_for(&train, &preprocess)?;
                let (outcomes, times) = evaluate_timed(fixed.as_ref(), &train, &units, preprocess, loss, tie, true)?;
                let (model, report) = conclude(fixed.as_ref(), &train, &units, &select, outcomes)?;
                let cv_seconds: f64 = evaluated[VFOLD].1.iter().sum();
                (model, report, times.iter().sum::<f64>() + cv_seconds, SPLITS_PER_SET)
            }
            ProcedureKind::Select { method, .. } => {
                let (outcomes, times) = &evaluated[set];
                let (model, report) = conclude(learner.as_ref(), &train, &units, &select, outcomes[..v].to_vec())?;
                let refits = crate::select::procedure(method).refits(&report.member_grid_indices);
                (model, report, times[..v].iter().sum::<f64>(), refits)
            }
        };
        if (procedure, set) == PROCEDURES[REFERENCE] {
            cv_choice = report.member_grid_indices.first().copied();
        }
        let risk = test_risk(&model, &test, loss)?;
        out.risks.push(risk);
        out.fits.push((v + refits) as f64);
        out.seconds.push(split_seconds + start.elapsed().as_secs_f64());
    }
    if config.forest_trees > 0 {
        out.forest = Some(forest_risk(&train, &test, config.forest_trees, seed, loss)?);
    }
    Ok(out)
}

/// Evaluates every split of `splits` alone (sequentially), timing each; keeps each split's
/// selected model when `keep_models`.
fn evaluate_timed(
    learner: &dyn family::Family,
    train: &Dataset,
    splits: &Splits,
    preprocess: crate::data::Preprocess,
    loss: Loss,
    tie: TieRule,
    keep_models: bool,
) -> Result<(Vec<SplitOutcome>, Vec<f64>)> {
    let options = EvalOptions { losses: vec![loss], tie, preprocess, keep_selected_model: keep_models, keep_predictions: false };
    crate::engine::check_evaluation(learner, train, splits, &options)?;
    let mut outcomes = Vec::with_capacity(splits.len());
    let mut times = Vec::with_capacity(splits.len());
    for j in 0..splits.len() {
        let start = Instant::now();
        outcomes.extend(evaluate_units(learner, train, splits, &[j], &options, &Sequential)?);
        times.push(start.elapsed().as_secs_f64());
    }
    Ok((outcomes, times))
}

fn test_risk(model: &FittedModel, test: &Dataset, loss: Loss) -> Result<f64> {
    loss.risk(&model.predict(test)?, &test.all())
}

/// The reference forest: `trees` trees at the default mtry, fitted on the outer training rows.
fn forest_risk(train: &Dataset, test: &Dataset, trees: usize, seed: Seed, loss: Loss) -> Result<f64> {
    let preprocess = FamilyKind::Forest.preprocess(train, false, MissingCategory::Level);
    let mtry = family::forest::default_mtry(train.task(), train.n_features());
    let config = ForestConfig {
        trees,
        seed: seed.child(Purpose::Learner, 0).0,
        grid: Some(GridSpec::Values(vec![mtry as f64])),
        ..ForestConfig::default()
    };
    let forest = FamilySpec::Forest(config).build_for(train, &preprocess)?;
    let preprocess = crate::data::Preprocess { impute_median: train.has_missing() || test.has_missing(), ..preprocess };
    let model = refit_all(forest.as_ref(), train, &preprocess, crate::Par::pool(), |all| forest.fit(all, 0))?;
    loss.risk(&model.predict(&test.all())?, &test.all())
}

fn procedure_rows(reps: &[Repetition], n_train: usize, n_test: usize, alpha: f64) -> Result<Vec<ProcedureRow>> {
    let column = |k: usize, what: fn(&Repetition) -> &Vec<f64>| -> Vec<f64> { reps.iter().map(|r| what(r)[k]).collect() };
    let reference = column(REFERENCE, |r| &r.risks);
    let (reference_mean, _) = super::mean_and_se(&reference)?;
    PROCEDURES
        .iter()
        .enumerate()
        .map(|(k, (procedure, _))| {
            let risks = column(k, |r| &r.risks);
            let (mean, standard_error) = super::mean_and_se(&risks)?;
            let (difference, p_value, verdict) =
                if k == REFERENCE { (0.0, 1.0, Verdict::Reference) } else { paired(&risks, &reference, n_train, n_test, alpha)? };
            let mean_of = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
            Ok(ProcedureRow {
                procedure: *procedure,
                label: procedure.label(),
                mean,
                standard_error,
                relative: if reference_mean > 0.0 { mean / reference_mean } else { f64::NAN },
                difference,
                p_value,
                verdict,
                fits: mean_of(column(k, |r| &r.fits)),
                seconds: mean_of(column(k, |r| &r.seconds)),
                risks,
            })
        })
        .collect()
}

/// The corrected resampled t-test of the paired differences `a − b`: the mean difference, the
/// p-value and the verdict for `a` at level `alpha`.
fn paired(a: &[f64], b: &[f64], n_train: usize, n_test: usize, alpha: f64) -> Result<(f64, f64, Verdict)> {
    let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let test = corrected_resampled_t_test(&differences, n_train as f64, n_test as f64)?;
    let verdict = match test.p_value < alpha {
        false => Verdict::Tie,
        true if test.numerator < 0.0 => Verdict::Win,
        true => Verdict::Loss,
    };
    Ok((test.numerator, test.p_value, verdict))
}

/// The comparisons of [`COMPARISONS`] on a cell's rows (those with the forest skipped when
/// `forest` is empty).
fn comparisons(rows: &[ProcedureRow], forest: &[f64], n_train: usize, n_test: usize, alpha: f64) -> Result<Vec<Comparison>> {
    let risks = |o: Operand| -> Option<&[f64]> {
        match o {
            Operand::Procedure(k) => Some(&rows[k].risks),
            Operand::Forest if forest.is_empty() => None,
            Operand::Forest => Some(forest),
        }
    };
    let mut out = Vec::new();
    for (label, a, b) in COMPARISONS {
        let (Some(a), Some(b)) = (risks(a), risks(b)) else { continue };
        let (mean_a, _) = super::mean_and_se(a)?;
        let (mean_b, _) = super::mean_and_se(b)?;
        let (difference, p_value, verdict) = paired(a, b, n_train, n_test, alpha)?;
        out.push(Comparison {
            label: label.into(),
            relative: if mean_b > 0.0 { mean_a / mean_b } else { f64::NAN },
            difference,
            p_value,
            verdict,
        });
    }
    Ok(out)
}

/// The geometric mean of the finite positive `ratios` and how many there are (NaN for none).
fn geometric_mean(ratios: impl Iterator<Item = f64>) -> (f64, usize) {
    let logs: Vec<f64> = ratios.filter(|r| r.is_finite() && *r > 0.0).map(f64::ln).collect();
    (if logs.is_empty() { f64::NAN } else { (logs.iter().sum::<f64>() / logs.len() as f64).exp() }, logs.len())
}

fn families_of(cells: &[Cell]) -> Vec<StudyFamily> {
    let mut families: Vec<StudyFamily> = Vec::new();
    for c in cells {
        if !families.contains(&c.family) {
            families.push(c.family);
        }
    }
    families
}

/// Per family and comparison of [`COMPARISONS`]: the geometric mean of the ratios over the cells
/// that ran, and the verdict counts.
pub fn summarize_comparisons(cells: &[Cell]) -> Vec<ComparisonSummary> {
    let mut out = Vec::new();
    for family in families_of(cells) {
        for (label, _, _) in COMPARISONS {
            let found: Vec<(f64, Verdict)> = cells
                .iter()
                .filter(|c| c.family == family && c.error.is_none())
                .filter_map(|c| c.comparisons.iter().find(|x| x.label == label))
                .map(|x| (x.relative, x.verdict))
                .collect();
            if found.is_empty() {
                continue;
            }
            out.push(ComparisonSummary { family, label: label.into(), tally: Tally::of(&found) });
        }
    }
    out
}

/// The summary over the cells that ran: per family and procedure, the geometric mean relative
/// risk over the sets where 10-fold CV's risk is positive, and the verdict counts.
pub fn summarize(cells: &[Cell]) -> Vec<SummaryRow> {
    let mut out = Vec::new();
    for family in families_of(cells) {
        let ran: Vec<&Cell> = cells.iter().filter(|c| c.family == family && c.error.is_none()).collect();
        for (k, (procedure, _)) in PROCEDURES.iter().enumerate() {
            let rows: Vec<&ProcedureRow> = ran.iter().map(|c| &c.rows[k]).collect();
            let tally = Tally::of(&rows.iter().map(|r| (r.relative, r.verdict)).collect::<Vec<_>>());
            let mean = |x: &dyn Fn(&ProcedureRow) -> f64| {
                if rows.is_empty() { f64::NAN } else { rows.iter().map(|r| x(r)).sum::<f64>() / rows.len() as f64 }
            };
            out.push(SummaryRow {
                family,
                procedure: *procedure,
                label: procedure.label(),
                tally,
                fits: mean(&|r| r.fits),
                seconds: mean(&|r| r.seconds),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// A failed cell names the cause, not only the split it happened in.
    #[test]
    fn a_failed_repetition_keeps_its_cause() {
        let cause = crate::Error::NonFiniteRisk("validation risk is NaN".into());
        let e = crate::Error::Fit { split: Some(8), grid_index: 2, source: Box::new(cause) };
        let line = super::repetition_failure(5, &e);
        assert!(line.starts_with("repetition 5: ") && line.contains("split 8"), "{line}");
        assert!(line.contains("validation risk is NaN"), "the cause is lost: {line}");
    }

    use super::*;

    /// `{}` is the full study; `quick` starts from the quick settings; each field given
    /// overrides them; an unknown field or family is refused, naming it.
    #[test]
    fn a_study_spec_reads_as_its_settings() {
        assert_eq!(serde_json::from_str::<StudySpec>("{}").unwrap().config().unwrap(), StudyConfig::full());
        let spec: StudySpec =
            serde_json::from_str(r#"{"quick": true, "sets": ["iris"], "families": ["knn", "svm"], "reps": 3, "seed": 7, "tie": "last"}"#)
                .unwrap();
        let expected = StudyConfig {
            sets: vec!["iris".into()],
            families: vec![StudyFamily::Knn, StudyFamily::Svm],
            reps: 3,
            seed: Seed(7),
            tie: TieRule::Last,
            ..StudyConfig::quick()
        };
        assert_eq!(spec.config().unwrap(), expected);
        assert!(serde_json::from_str::<StudySpec>(r#"{"repetitions": 3}"#).unwrap_err().to_string().contains("repetitions"));
        let unknown = StudySpec { families: Some(vec!["forest".into()]), ..StudySpec::default() };
        assert!(unknown.config().unwrap_err().to_string().contains("forest"));
        let one = StudySpec { reps: Some(1), ..StudySpec::default() };
        assert!(one.config().unwrap_err().to_string().contains("reps"));
    }

    fn manifest() -> StudyManifest {
        StudyManifest::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/study")).unwrap()
    }

    fn tiny(sets: &[&str], families: &[StudyFamily]) -> StudyConfig {
        StudyConfig {
            sets: sets.iter().map(|s| s.to_string()).collect(),
            families: families.to_vec(),
            reps: 3,
            max_train: 60,
            max_test: 40,
            forest_trees: 5,
            ..StudyConfig::full()
        }
    }

    /// A repetition's 60 training and 40 test rows and its 10 stratified folds, rebuilt by hand
    /// from its seed.
    fn by_hand(data: &Dataset, seed: Seed) -> (Dataset, Dataset, Splits) {
        let mut order: Vec<usize> = (0..data.n_rows()).collect();
        order.shuffle(&mut seed.rng(Purpose::Data, 0));
        let mut tr = order[..60].to_vec();
        let mut te = order[60..100].to_vec();
        tr.sort_unstable();
        te.sort_unstable();
        let (train, test) = (data.select_rows(&tr).unwrap(), data.select_rows(&te).unwrap());
        let ctx = PlanContext::of(&train);
        let vfold = VFold::new(10).unwrap().stratified().instantiate_with(&ctx, seed.child(Purpose::Splits, 0)).unwrap();
        assert_eq!(vfold, inner_split_sets(&train, seed).unwrap()[VFOLD]);
        (train, test, vfold)
    }

    /// Every procedure equals the same procedure run alone through `select::select` on the
    /// repetition's splits: the shared evaluation changes nothing.
    #[test]
    fn shared_evaluation_equals_running_each_procedure_alone() {
        let m = manifest();
        let set = m.get("iris").unwrap();
        let data = m.read_csv(set, MissingPolicy::Median).unwrap().data;
        let config = tiny(&["iris"], &[StudyFamily::Knn]);
        let seed = config.seed.child(Purpose::Experiment, 0).child(Purpose::Data, 0);
        let rep = repetition(&data, StudyFamily::Knn, seed, 60, 40, &config).unwrap();
        // Rebuild the repetition's data and splits by hand.
        let (train, test, vfold) = by_hand(&data, seed);
        let pre = FamilyKind::Knn.preprocess(&data, true, MissingCategory::Level);
        let knn = FamilySpec::default_for(FamilyKind::Knn).build_for(&train, &pre).unwrap();
        let [_, _, mc, _] = inner_split_sets(&train, seed).unwrap();
        let mc5 = Splits::new(60, mc.as_slice()[..5].to_vec()).unwrap();
        let run = |splits: &Splits, method: Method, one_se: bool| {
            let mut c = SelectConfig::new(method);
            c.one_standard_error = one_se;
            c.preprocess = pre;
            let (model, _) = crate::select::select(knn.as_ref(), &train, splits, &c).unwrap();
            test_risk(&model, &test, Loss::ZeroOne).unwrap()
        };
        assert_eq!(rep.risks[0], run(&vfold, Method::Cv, false));
        assert_eq!(rep.risks[1], run(&vfold, Method::Cv, true));
        assert_eq!(rep.risks[2], run(&vfold, Method::Acv, false));
        assert_eq!(rep.risks[3], run(&vfold, Method::Ekcv, false));
        assert_eq!(rep.risks[8], run(&mc5, Method::Majhoo, false));
        assert_eq!(rep.risks[9], run(&mc, Method::Majhoo, false));
        assert_eq!(rep.fits[0], 11.0);
        assert_eq!(rep.fits[8], 5.0);
        assert!(rep.forest.is_some());

        // The references: k-NN at CV's k, Majhoo over the τ = 0.8 subsamples (subagging) and
        // over 10 bootstrap resamples (bagging), through `select::select` with a one-point grid.
        let mut c = SelectConfig::new(Method::Cv);
        c.preprocess = pre;
        let (_, report) = crate::select::select(knn.as_ref(), &train, &vfold, &c).unwrap();
        let k = knn.grid().value(report.member_grid_indices[0]);
        let fixed = FamilySpec::default_for(FamilyKind::Knn).with_grid(GridSpec::Values(vec![k])).unwrap().build_for(&train, &pre).unwrap();
        let members = |splits: &Splits| {
            let mut c = SelectConfig::new(Method::Majhoo);
            c.preprocess = pre;
            let (model, report) = crate::select::select(fixed.as_ref(), &train, splits, &c).unwrap();
            assert_eq!(report.member_grid_indices, vec![0; 10]);
            test_risk(&model, &test, Loss::ZeroOne).unwrap()
        };
        let [_, mc08, _, boot] = inner_split_sets(&train, seed).unwrap();
        assert_eq!(rep.risks[SUBAGGING], members(&mc08));
        assert_eq!(rep.risks[BAGGING], members(&boot));
        assert_eq!((rep.fits[SUBAGGING], rep.fits[BAGGING]), (20.0, 20.0));
    }

    /// The tie rule reaches every argmin: with the largest-value rule, CV and Majhoo equal the
    /// library's procedures run with `TieRule::Last`, and on a step-like 0–1 curve some split
    /// selects differently than under the default rule.
    #[test]
    fn the_tie_rule_reaches_every_selection() {
        let m = manifest();
        let data = m.read_csv(m.get("iris").unwrap(), MissingPolicy::Median).unwrap().data;
        let mut config = tiny(&["iris"], &[StudyFamily::Cart]);
        config.tie = TieRule::Last;
        let seed = config.seed.child(Purpose::Experiment, 0).child(Purpose::Data, 0);
        let last = repetition(&data, StudyFamily::Cart, seed, 60, 40, &config).unwrap();
        let (train, test, vfold) = by_hand(&data, seed);
        let pre = FamilyKind::Cart.preprocess(&data, false, MissingCategory::Level);
        let cart = FamilySpec::default_for(FamilyKind::Cart).build_for(&train, &pre).unwrap();
        let mc = inner_split_sets(&train, seed).unwrap()[MC_08].clone();
        let run = |splits: &Splits, method: Method, tie: TieRule| {
            let mut c = SelectConfig::new(method);
            c.preprocess = pre;
            c.tie = tie;
            let (model, report) = crate::select::select(cart.as_ref(), &train, splits, &c).unwrap();
            (test_risk(&model, &test, Loss::ZeroOne).unwrap(), report.member_grid_indices)
        };
        assert_eq!(last.risks[REFERENCE], run(&vfold, Method::Cv, TieRule::Last).0);
        assert_eq!(last.risks[AGGHOO], run(&mc, Method::Majhoo, TieRule::Last).0);
        assert_ne!(run(&mc, Method::Majhoo, TieRule::Last).1, run(&mc, Method::Majhoo, TieRule::First).1, "no tie to break");
    }

    /// A classification repetition's Monte-Carlo training sets hold every class in proportion:
    /// with 3 positives in 60 rows, an unstratified τ = 0.5 subsample leaves them all out in
    /// about one split in nine, and a linear model or an SVM then has nothing to learn.
    #[test]
    fn classification_subsamples_keep_a_rare_class() {
        let labels: Vec<u32> = (0..60).map(|i| u32::from(i % 20 == 0)).collect();
        let x: Vec<f64> = (0..60).map(f64::from).collect();
        let target = crate::data::Target::Classes { labels, names: vec!["0".into(), "1".into()] };
        let data = Dataset::new(x, vec!["x".into()], target, "y").unwrap();
        for r in 0..20 {
            let sets = inner_split_sets(&data, Seed(r)).unwrap();
            for set in &sets[..BOOTSTRAP] {
                for split in set.iter() {
                    let positives = split.train().iter().filter(|&&i| i % 20 == 0).count();
                    assert!(positives >= 1, "repetition {r}: a training set without the rare class");
                }
            }
            let in_proportion = |s: &crate::resample::Split| (1..=2).contains(&s.train().iter().filter(|&&i| i % 20 == 0).count());
            assert!(sets[MC_05].iter().chain(sets[MC_08].iter()).all(in_proportion), "1.5 and 2.4 positives expected");
        }
    }

    /// The size axis keeps the sets with at least `size` outer training rows.
    #[test]
    fn sets_of_size_keep_the_large_enough_sets() {
        let m = manifest();
        let all = sets_of_size(&m, &[], 0).unwrap();
        assert_eq!(all.len(), m.sets().len());
        let large = sets_of_size(&m, &[], 3000).unwrap();
        assert!(large.contains(&"diamonds".to_string()) && large.contains(&"hpc_jobs".to_string()), "{large:?}");
        assert!(!large.contains(&"wage".to_string()), "3000 rows give 2100 training rows");
        let mid = sets_of_size(&m, &["iris".into(), "wage".into()], 1000).unwrap();
        assert_eq!(mid, vec!["wage".to_string()]);
        assert!(matches!(sets_of_size(&m, &["nope".into()], 1000), Err(Error::InvalidParameter { .. })));
    }

    /// Risks (not times) are identical for one thread and several, and across a rerun.
    #[test]
    fn risks_do_not_depend_on_threads() {
        let m = manifest();
        let config = tiny(&["penguins", "salaries"], &[StudyFamily::Cart, StudyFamily::Linear]);
        let risks = |r: &StudyResult| -> Vec<Vec<f64>> { r.cells.iter().flat_map(|c| c.rows.iter().map(|p| p.risks.clone())).collect() };
        let many = run(&m, &config).unwrap();
        // One thread, the repetitions in reverse order, each heard by the observer.
        struct Count(std::sync::atomic::AtomicUsize);
        impl crate::engine::Observer for Count {
            fn finished(&self, _: usize, _: usize) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
        let count = Count(0.into());
        let one = run_with(&m, &config, &crate::engine::Observed::new(&crate::engine::testing::Reversed, &count)).unwrap();
        assert_eq!(risks(&many), risks(&one));
        assert_eq!(count.0.into_inner(), 4 * config.reps, "one event per (set, family, repetition)");
        assert!(many.cells.iter().all(|c| c.error.is_none()), "{:?}", many.cells.iter().map(|c| &c.error).collect::<Vec<_>>());
        assert_eq!(many.cells.len(), 4);
        assert_eq!(many.summary.len(), 2 * PROCEDURES.len());
        // Categorical features and missing values went through: penguins has both.
        assert_eq!(many.cells[0].set, "penguins");
        assert_eq!(many.cells[0].n_train, 60);
    }

    /// Verdicts follow the sign of the difference and the p-value; the summary counts them and
    /// takes the geometric mean of the relative risks.
    #[test]
    fn verdicts_and_summary_by_hand() {
        let rep = |cv: f64, other: f64| Repetition {
            risks: vec![cv, cv, cv, cv, cv, cv, other, cv, cv, cv, other, cv],
            fits: vec![11.0; 12],
            seconds: vec![0.0; 12],
            forest: None,
        };
        // The 7th procedure is lower by a constant-ish margin: a win; the others tie exactly.
        let reps: Vec<Repetition> = (0..20).map(|r| rep(0.3 + 0.01 * (r % 3) as f64, 0.1 + 0.01 * (r % 2) as f64)).collect();
        let rows = procedure_rows(&reps, 100, 50, 0.05).unwrap();
        assert_eq!(rows[0].verdict, Verdict::Reference);
        assert_eq!(rows[6].verdict, Verdict::Win);
        assert_eq!(rows[1].verdict, Verdict::Tie);
        assert_eq!(rows[1].p_value, 1.0);
        let cell = |set: &str, rows: Vec<ProcedureRow>| Cell {
            set: set.into(),
            task: Task::Classification,
            family: StudyFamily::Knn,
            learner: "knn".into(),
            n_rows: 10,
            n_train: 7,
            n_test: 3,
            rows,
            forest: vec![],
            comparisons: vec![],
            error: None,
        };
        let mut other = rows.clone();
        other[6].relative = 4.0;
        other[6].verdict = Verdict::Loss;
        let mut first = rows.clone();
        first[6].relative = 0.25;
        let failed = Cell { rows: vec![], error: Some("boom".into()), ..cell("c", vec![]) };
        let summary = summarize(&[cell("a", first), cell("b", other), failed]);
        let s = &summary[6].tally;
        assert_eq!((s.sets, s.wins, s.ties, s.losses), (2, 1, 0, 1));
        assert!((s.relative - 1.0).abs() < 1e-12);

        // The decomposition: subagging (lower) wins against CV, Agghoo (= CV) loses against
        // subagging, bagging (= CV) ties with Agghoo exactly; the forest ones are left out.
        let found = comparisons(&rows, &[], 100, 50, 0.05).unwrap();
        let labels: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels, ["agghoo / cv", "ensemble: subagging / cv", "selection: agghoo / subagging", "bagging / agghoo"]);
        let verdicts: Vec<Verdict> = found.iter().map(|c| c.verdict).collect();
        assert_eq!(verdicts, [Verdict::Tie, Verdict::Win, Verdict::Loss, Verdict::Tie]);
        assert!((found[1].relative * found[2].relative - found[0].relative).abs() < 1e-12, "the two factors multiply to the gain");
        let forest: Vec<f64> = (0..20).map(|r| 0.05 + 0.01 * (r % 2) as f64).collect();
        let with_forest = comparisons(&rows, &forest, 100, 50, 0.05).unwrap();
        assert_eq!((with_forest.len(), with_forest[5].verdict), (6, Verdict::Win));
        let mut a = cell("a", rows.clone());
        a.comparisons = found.clone();
        let mut b = cell("b", rows.clone());
        b.comparisons = found;
        let summary = summarize_comparisons(&[a, b]);
        assert_eq!(summary.len(), 4);
        assert_eq!((summary[1].tally.sets, summary[1].tally.wins, summary[2].tally.losses), (2, 2, 2));
    }

    /// The procedures are named by the library's methods, and study.json's `kind` strings are
    /// the names tables show: each reads back as its procedure; a name no procedure has is a
    /// typed error listing the names.
    #[test]
    fn procedure_names_come_from_the_methods_and_read_back() {
        let names: Vec<String> = PROCEDURES.iter().map(|(p, _)| p.kind.name()).collect();
        let expected = ["cv", "cv+1se", "acv", "ekcv", "holdout", "mccv", "agghoo", "agghoo", "agghoo", "agghoo", "subagging", "bagging"];
        assert_eq!(names, expected);
        for (p, _) in PROCEDURES {
            let text = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<StudyProcedure>(&text).unwrap(), p, "{text}");
        }
        let err = serde_json::from_str::<StudyProcedure>(r#"{"kind":"majhoo","tau":null,"v":10}"#).unwrap_err().to_string();
        assert!(err.contains("majhoo") && err.contains("cv, cv+1se, acv, ekcv, holdout, mccv, agghoo, subagging, bagging"), "{err}");
    }

    /// The summaries keep the fields of study.json where they were: a document written before
    /// the tally was shared reads, and writes back the same text.
    #[test]
    fn summaries_read_and_write_the_same_study_json_fields() {
        let row = r#"{"family":"knn","procedure":{"kind":"cv+1se","tau":null,"v":10},"label":"cv+1se V=10","sets":3,"relative":0.98,"wins":1,"ties":2,"losses":0,"fits":11.0,"seconds":0.5}"#;
        let parsed: SummaryRow = serde_json::from_str(row).unwrap();
        assert_eq!(parsed.tally, Tally { sets: 3, relative: 0.98, wins: 1, ties: 2, losses: 0 });
        assert_eq!(parsed.procedure.kind, PROCEDURES[1].0.kind);
        assert_eq!(serde_json::to_string(&parsed).unwrap(), row);
        let comparison = r#"{"family":"svm","label":"agghoo / cv","sets":2,"relative":1.25,"wins":0,"ties":1,"losses":1}"#;
        let parsed: ComparisonSummary = serde_json::from_str(comparison).unwrap();
        assert_eq!((parsed.tally.relative, parsed.tally.losses), (1.25, 1));
        assert_eq!(serde_json::to_string(&parsed).unwrap(), comparison);
    }

    /// The confirmation sets read as their manifest says, and none is a set of the study.
    #[test]
    fn confirmation_sets_read_and_are_new() {
        let study = manifest();
        let m = StudyManifest::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/study/confirmation")).unwrap();
        assert!((6..=10).contains(&m.sets().len()), "{}", m.sets().len());
        for set in m.sets() {
            assert!(study.get(set.name()).is_none(), "{} is a study set", set.name());
            let data = m.read_csv(set, MissingPolicy::Median).unwrap().data;
            m.check_read(set, &data).unwrap();
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let m = manifest();
        let mut c = tiny(&["nope"], &[StudyFamily::Knn]);
        assert!(matches!(run(&m, &c), Err(Error::InvalidParameter { .. })));
        c.sets = vec!["iris".into()];
        c.reps = 1;
        assert!(run(&m, &c).is_err());
        assert!(StudyFamily::parse("forest").is_err());
        assert_eq!(StudyFamily::parse("svm").unwrap(), StudyFamily::Svm);
    }
}
