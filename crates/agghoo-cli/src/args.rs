//! Command-line arguments (clap derive). Arguments become library types in `source.rs` and in
//! each command — in one place.

use std::path::PathBuf;

use agghoo::data::{MissingCategory, MissingPolicy, TaskHint};
use agghoo::names::Named;
use agghoo::resample::PlanKind;
use agghoo::select::{Aggregation, Method, TieRule, VoteTies};
use agghoo::treecv::{LearnerKind, Method as TreeMethod, Order};
use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::{Deserialize, Serialize};

/// A usage error discovered after parsing (a combination of flags that does not make sense):
/// exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::error::Error for UsageError {}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Honest, fast model selection and evaluation: Agghoo / Majhoo, CV, TreeCV, feature selection.
#[derive(Parser, Debug)]
#[command(name = "agghoo", version, about, long_about = None)]
pub struct Cli {
    /// Number of worker threads (default: all cores; at most 1024 unless raised with
    /// `--limit threads=N`). Results do not depend on it.
    #[arg(long, global = true)]
    pub threads: Option<usize>,
    /// Memory budget: a request whose main allocations (data, splits, path predictions, forests,
    /// kernel matrices, ...) are estimated above it fails at once, stating the estimate.
    /// Sizes like 8G, 512M, 1T or bytes.
    #[arg(long = "max-memory", value_name = "SIZE", global = true, default_value = "8G")]
    pub max_memory: String,
    /// Raise (or lower) a count limit, KEY=N (repeatable): grid-points (default 100000), splits
    /// (100000 per plan), threads (1024), trees (100000), centres (100000), repetitions (100000),
    /// subset-evaluations (1048576), levels (10000 per categorical column), libsvm-expansion
    /// (100 dense bytes per file byte).
    #[arg(long = "limit", value_name = "KEY=N", global = true)]
    pub limits: Vec<String>,
    /// On an error, also print each cause on its own line and the exit code's meaning
    /// (the default is a single line).
    #[arg(long, global = true)]
    pub verbose: bool,
    /// The task to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Examples printed by `agghoo select --help`.
const SELECT_EXAMPLES: &str = "Examples:
  agghoo select --data gen:knn --grid 1:49:2 --method majhoo
  agghoo select --data gen:knn --family knn --grid k=1:49:2 --grid weights=uniform,distance --method cv --one-se
  Two axes (the cartesian product; one kernel matrix per gamma, the path over lambda), with a heat map:
  agghoo select --data gen:knn --family svc --grid lambda=log:1e-4:1:5 --grid gamma=log:0.1:10:3 --method cv --plot svc
  A union of three families (each with its default grid; members may be of different families):
  agghoo select --data bundled:breast-cancer --missing median --standardize --family knn,logistic,forest --method agghoo";

/// The default grid of each family (when `--grid` is not given), shown by the commands that take a
/// family: from the registry ([`FamilyInfo::default_grid`](agghoo::family::FamilyInfo)), families
/// in a row with the same default sharing an entry, each entry wrapped at 100 columns.
fn default_grids() -> String {
    const NAMES: usize = 21;
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for info in agghoo::family::FamilyKind::ALL.map(agghoo::family::FamilyKind::info) {
        match groups.last_mut() {
            Some((names, grid)) if *grid == info.default_grid => names.push(info.name),
            _ => groups.push((vec![info.name], info.default_grid)),
        }
    }
    let mut out = String::from("Default grids (when --grid is not given; n = rows, d = features, as the fits see them):");
    for (names, grid) in groups {
        // Each line: two spaces, the names column, then words up to 100 columns.
        let mut line = format!("  {:<NAMES$}", names.join(", "));
        let mut fresh = true;
        for word in grid.split_whitespace() {
            if !fresh && line.len() + 1 + word.len() > 100 {
                out = out + "\n" + &line;
                (line, fresh) = (" ".repeat(NAMES + 2), true);
            }
            if !fresh {
                line.push(' ');
            }
            line.push_str(word);
            fresh = false;
        }
        out = out + "\n" + &line;
    }
    out
}

const PREDICT_EXAMPLES: &str = "Examples:
  agghoo predict --model model.json --data new.csv --out predictions.csv
  agghoo predict --model model.json --data new.csv --id id --proba --out predictions.json
  agghoo predict --model svc.json --data new.csv --decision               # a binary classifier's scores";

const SPLITS_EXAMPLES: &str = "Examples:
  agghoo splits --data gen:knn --n 500 --plan mc --splits 10 --tau 0.8 --seed 1 --out splits.json
  agghoo select --data gen:knn --n 500 --seed 1 --splits-file splits.json --method cv";

const GEN_EXAMPLES: &str = "Examples:
  agghoo gen --data gen:knn --n 1000 --seed 3 --out knn.csv
  agghoo gen --data gen:svr --n 500 --out svr.csv";

const ESTIMATE_EXAMPLES: &str = "Examples:
  agghoo estimate --data bundled:breast-cancer --missing median --family knn --value 5 --loss 01,logloss
  agghoo estimate --data gen:svr --n 300 --family ridge --value 0.1 --plan loo          # closed form
  agghoo estimate --data gen:knn --n 300 --value 5 --plan bootstrap -V 200             # .632, .632+
  agghoo estimate --data gen:knn --n 300 --value 5 --validation-curve --learning-curve 50,100,200 --curve-out curve";

const COMPARE_EXAMPLES: &str = "Examples:
  agghoo compare --data bundled:breast-cancer --missing median --grid 1:49:2 --methods agghoo,cv,holdout --outer vfold:10
  agghoo compare --data gen:knn --n 300 --methods majhoo,cv+1se --outer 5x2                  # 5x2cv t-test
  agghoo compare --data bundled:breast-cancer --missing median --family knn,logistic,forest --methods cv";

const TREECV_EXAMPLES: &str = "Examples:
  agghoo treecv --data gen:covertype --n 581012 --learner pegasos --lambda 1e-6 --folds loo --parallel
  agghoo treecv --data gen:msd --n 100000 --learner lsq-sgd --folds 100 --order random";

const FEATURES_EXAMPLES: &str = "Examples:
  agghoo features --data bundled:breast-cancer --missing drop --method sffs --scorer wrapper:knn:5 --evaluate vfold:10
  agghoo features --data bundled:breast-cancer --missing median --method pearson --features 4 --evaluate vfold:10
  agghoo features --data gen:genuer --n 500 --method lasso";

const REPRODUCE_EXAMPLES: &str = "Examples:
  agghoo reproduce breast-cancer            # the classification paper's Table 1 (about a minute)
  agghoo reproduce knn --reps 1000          # the paper's number of repetitions
  agghoo reproduce svr-readings             # the SVR protocol under its eight readings
  agghoo reproduce treecv --n 581012        # TreeCV at the Covertype size";

const REPLAY_EXAMPLES: &str = "Examples:
  agghoo select --data gen:knn --n 300 --json > report.json
  agghoo replay report.json                 # prints the same document
  agghoo replay report.json --out-dir rerun # also writes the recorded --out, --plot, ... inside rerun/

A report is untrusted input: replay reruns only select, predict, estimate, compare, treecv,
features and reproduce; the output paths it records (--out, --plot, --oof, --curve-out,
reproduce's folder) are never written as recorded: without --out-dir they are not written, with
it each is written inside DIR under its file name (never through a symbolic link).";

/// Subcommands, one per user task.
#[derive(Subcommand, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Command {
    /// Choose a hyperparameter (Agghoo, Majhoo, CV, hold-out, ACV, EKCV, subagging) and save the model.
    #[command(after_help = format!("{SELECT_EXAMPLES}\n\n{}", default_grids()))]
    Select(SelectArgs),
    /// Predict new rows with a saved model.
    #[command(after_help = PREDICT_EXAMPLES)]
    Predict(PredictArgs),
    /// Instantiate a resampling plan and save its splits as JSON (to reuse across runs).
    #[command(after_help = SPLITS_EXAMPLES)]
    Splits(SplitsArgs),
    /// Write a synthetic data set (`gen:<name>`) as CSV.
    #[command(after_help = GEN_EXAMPLES)]
    Gen(GenArgs),
    /// Estimate the risk of one rule (± standard error), with optional out-of-fold predictions
    /// and learning / validation curves.
    #[command(after_help = format!("{ESTIMATE_EXAMPLES}\n\n{}", default_grids()))]
    Estimate(EstimateArgs),
    /// Evaluate several selection procedures by nested CV on identical outer splits, with paired tests.
    #[command(after_help = format!("{COMPARE_EXAMPLES}\n\n{}", default_grids()))]
    Compare(CompareArgs),
    /// k-fold or leave-one-out CV of an incremental learner by TreeCV (about log2 k passes).
    #[command(after_help = TREECV_EXAMPLES)]
    Treecv(TreeCvArgs),
    /// Select features (filters, wrappers, SFS/SBS/SFFS/SBFS, embedded) and evaluate the
    /// selection honestly, inside every outer training fold.
    #[command(after_help = FEATURES_EXAMPLES)]
    Features(FeaturesArgs),
    /// Rerun one of the papers' experiments (knn, cart, svr, svr-readings, breast-cancer, treecv): tables, JSON and SVG/PNG plots.
    #[command(after_help = REPRODUCE_EXAMPLES)]
    Reproduce(ReproduceArgs),
    /// The real-data study: Agghoo / Majhoo vs CV selection on the data sets of a study folder
    /// (families × procedures × outer splits); tables, JSON, a Markdown report and plots.
    #[command(after_help = STUDY_EXAMPLES)]
    Study(StudyArgs),
    /// Rerun a `--json` report from the invocation it records (every option, defaults included)
    /// and print the same document: run it from the directory the report was made in, so that
    /// relative data paths resolve alike. Recorded output files are written only inside `--out-dir`.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay(ReplayArgs),
}

/// `agghoo replay`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct ReplayArgs {
    /// A JSON document printed by `--json` (or written by `reproduce`).
    pub report: PathBuf,
    /// Write the output files the report records (`--out`, `--plot`, `--oof`, `--curve-out`,
    /// reproduce's folder) inside DIR, each under its file name; without it they are not written
    /// (and `reproduce`, which always writes its folder, is refused).
    #[arg(long = "out-dir", value_name = "DIR")]
    #[serde(default)]
    pub out_dir: Option<PathBuf>,
}

/// `agghoo reproduce`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct ReproduceArgs {
    /// The experiment: knn, cart, svr, svr-readings (the ε-SVR protocol under each reading of its open points), breast-cancer, treecv.
    pub experiment: String,
    /// Repetitions R (default: the experiment's, sized for a minute or two on 2 cores).
    #[arg(long)]
    pub reps: Option<usize>,
    /// Seed (default: the experiment's).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Directory for `<experiment>.json`, `.svg` and `.png`.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Print the JSON document on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
    /// Sample size n (default: the paper's).
    #[arg(long)]
    pub n: Option<usize>,
}

const STUDY_EXAMPLES: &str = "Examples:
  agghoo study --quick                      # 6 sets, 10 outer splits, about 15 s
  agghoo study                              # the full study (39 sets, 100 outer splits)
  agghoo study --sets iris,boston --families knn,cart --reps 20 --out results/small
  agghoo study --sets confirmation          # the confirmation sets (data/study/confirmation)
  agghoo study --sizes 300,1000,3000 --size-reps 20 --size-families knn,cart
  agghoo study --quick --tie last           # ties broken towards the simplest model

Procedures (10-fold CV is the reference): cv, cv+1se, acv, ekcv (10 folds); holdout, mccv,
agghoo at tau = 0.8 and 0.5 with V = 5 and 10 (Monte-Carlo splits). References: subagging
(CV's choice on Agghoo's tau = 0.8 subsamples) and bagging (CV's choice on 10 bootstrap
resamples), which split Agghoo's gain into ensemble and per-split selection. Families: knn,
cart, svm (C-SVC / epsilon-SVR), linear (L2 logistic / ridge); a 100-tree random forest as a
reference.";

/// `agghoo study`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct StudyArgs {
    /// The study folder: `manifest.tsv` and one `NAME.csv.gz` per data set.
    #[arg(long, default_value = "data/study")]
    pub data_dir: PathBuf,
    /// The quick study: 6 sets (both tasks, categorical features and missing values among
    /// them), 10 outer splits, at most 200 training rows. Other flags override its settings.
    #[arg(long)]
    pub quick: bool,
    /// Data sets, comma-separated (default: every set of the manifest; --quick: its six);
    /// `confirmation`: every set of the confirmation folder (`confirmation/` in --data-dir).
    #[arg(long, value_delimiter = ',')]
    pub sets: Vec<String>,
    /// Families, comma-separated: knn, cart, svm, linear (default: all four).
    #[arg(long, value_delimiter = ',')]
    pub families: Vec<String>,
    /// Outer train / test splits per data set (default 100; --quick: 10).
    #[arg(long)]
    pub reps: Option<usize>,
    /// Seed of every random choice.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Cap on the outer training rows (default 300; --quick: 200).
    #[arg(long)]
    pub max_train: Option<usize>,
    /// Cap on the outer test rows (default 1000; --quick: 500).
    #[arg(long)]
    pub max_test: Option<usize>,
    /// Trees of the reference random forest; 0 leaves it out (default 100; --quick: 50).
    #[arg(long)]
    pub forest_trees: Option<usize>,
    /// Level of the paired tests against 10-fold CV.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Argmin tie rule of every selection: first = the smallest grid value (the library's
    /// default), last = the largest (the simplest model for every study family).
    #[arg(long, value_parser = by_name::<TieRule>(), default_value_t = TieRule::First)]
    #[serde(with = "name", default = "first_tie")]
    pub tie: TieRule,
    /// The training-size axis: caps on the outer training rows, comma-separated (e.g.
    /// 300,1000,3000). The first runs every chosen set as --max-train does; each larger one only
    /// the sets with at least that many training rows (⌊0.7 n⌋ ≥ size). Replaces --max-train.
    #[arg(long, value_delimiter = ',')]
    #[serde(default)]
    pub sizes: Vec<usize>,
    /// Outer splits at the sizes after the first (default: --reps), to keep them affordable.
    #[arg(long)]
    #[serde(default)]
    pub size_reps: Option<usize>,
    /// Families at the sizes after the first, comma-separated (default: --families).
    #[arg(long, value_delimiter = ',')]
    #[serde(default)]
    pub size_families: Vec<String>,
    /// Directory for `study.json`, `study.md` and the plots.
    #[arg(long, default_value = "results")]
    pub out: PathBuf,
    /// Print the JSON document on stdout instead of the tables.
    #[arg(long)]
    pub json: bool,
}

/// Where the data come from and how to read them.
#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct DataArgs {
    /// A CSV file (header line) or a LibSVM file (`label index:value …` lines; the content decides,
    /// not the extension), `bundled:breast-cancer` (the shipped CSV: target `class`, `id` ignored,
    /// missing values follow --missing), or a generator
    /// `gen:knn | gen:genuer | gen:svr | gen:covertype | gen:msd`.
    #[arg(long, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub data: String,
    /// Target column (CSV; `class` by default for bundled data). Generated data have theirs (`y`):
    /// naming another is an error listing the generated columns.
    #[arg(long)]
    pub target: Option<String>,
    /// How to read the target.
    #[arg(long, value_parser = by_name::<TaskHint>(), default_value_t = TaskHint::Auto)]
    #[serde(with = "name")]
    pub task: TaskHint,
    /// Missing values: refuse (error), drop rows, or impute the median of each training set.
    #[arg(long, value_parser = by_name::<MissingPolicy>(), default_value_t = MissingPolicy::Error)]
    #[serde(with = "name")]
    pub missing: MissingPolicy,
    /// Columns that are not features (ids); repeatable. For generated data, drops that feature.
    #[arg(long = "ignore", value_name = "COL")]
    pub ignore: Vec<String>,
    /// Read these feature columns as categorical even if their values are numbers (repeatable, or
    /// a comma list). Columns with non-numeric values are categorical anyway (CSV data).
    #[arg(long = "categorical", value_name = "COL", value_delimiter = ',')]
    #[serde(default)]
    pub categorical: Vec<String>,
    /// Missing values of categorical columns kept by `--missing median`: their own level
    /// (`level`), or the most frequent level of each training set (`most-frequent`).
    #[arg(long = "missing-category", value_parser = by_name::<MissingCategory>(), default_value_t = MissingCategory::Level)]
    #[serde(default, with = "name")]
    pub missing_category: MissingCategory,
    /// Cells read as missing values (CSV), a comma list replacing the default tokens, in which
    /// `default` stands for them: `--na-values default,-,.` adds `-` and `.`; `--na-values NULL`
    /// makes only `NULL` (and empty cells) missing. Default: empty cells, pandas' NA strings
    /// (`NA`, `N/A`, `n/a`, `NULL`, `null`, `None`, `NaN`, `nan`, `-nan`, `#N/A`, `<NA>`, …), `?`,
    /// and `na` / `nan` in any case. A saved model keeps them for `predict`.
    #[arg(long = "na-values", value_name = "LIST", value_delimiter = ',')]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub na_values: Option<Vec<String>>,
    /// CSV field delimiter: one character, or `tab` (default: `,`, or the tab or `;` the header
    /// line uses when it has no comma; tabs for `.tsv`).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// A column of per-row sample weights (CSV data; numbers ≥ 0), not a feature: each row counts
    /// as much as its weight in the fits and in the validation risks (an integer weight k as the
    /// row repeated k times, except for k-NN, whose k counts rows; 0 as the row left out).
    /// Families and procedures that cannot honour weights refuse them by name. A row with a
    /// missing weight is refused, or dropped as one with a missing target (--missing).
    #[arg(long = "weight-column", value_name = "COL")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_column: Option<String>,
    /// Rows for generators (an integer, or `1e5`; bounded by `--max-memory`).
    #[arg(long, default_value_t = 500, value_parser = parse_rows)]
    pub n: usize,
    /// Dimension for generators that take one (gen:genuer: 7 or 50).
    #[arg(long)]
    pub d: Option<usize>,
}

/// A resampling plan.
#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct PlanArgs {
    /// Resampling plan (default: mc for agghoo/majhoo/subagging/acv/ekcv, vfold for cv, holdout for holdout).
    #[arg(long, value_parser = by_name::<PlanKind>())]
    #[serde(default, with = "optional_name")]
    pub plan: Option<PlanKind>,
    /// Number of splits V (Monte-Carlo, time), folds (V-fold), resamples (bootstrap) or samples (lpo).
    #[arg(long = "splits", short = 'V', default_value_t = agghoo::resample::DEFAULT_SPLITS)]
    pub n_splits: usize,
    /// Training fraction τ for Monte-Carlo and hold-out [default: 0.8] (refused with other plans).
    #[arg(long)]
    pub tau: Option<f64>,
    /// Repetitions for repeated V-fold [default: 5] (refused with other plans).
    #[arg(long)]
    pub repeats: Option<usize>,
    /// p for leave-p-out [default: 2] (refused with other plans).
    #[arg(long)]
    pub p: Option<usize>,
    /// Stratify by class: V-fold, repeated V-fold, Monte-Carlo and hold-out draw each class
    /// proportionally (refused with other plans and with a real target). V-fold and repeated
    /// V-fold are stratified by default for a classification target; Monte-Carlo and hold-out
    /// only with this flag.
    #[arg(long, conflicts_with = "no_stratify")]
    pub stratify: bool,
    /// Do not stratify V-fold or repeated V-fold plans of a classification target (the default
    /// stratifies them).
    #[arg(long = "no-stratify")]
    #[serde(default = "unstratified_before_the_default")]
    pub no_stratify: bool,
    /// Time plan: rows left out between each training set and its test rows [default: 0]
    /// (refused with other plans).
    #[arg(long)]
    #[serde(default)]
    pub gap: Option<usize>,
    /// Time plan: keep only the most recent M rows of each training set [default: all earlier
    /// rows] (refused with other plans).
    #[arg(long = "max-train-size", value_name = "M")]
    #[serde(default)]
    pub max_train_size: Option<usize>,
    /// Time plan: rows of each test set [default: ⌊n / (splits + 1)⌋] (refused with other plans).
    #[arg(long = "test-size", value_name = "T")]
    #[serde(default)]
    pub test_size: Option<usize>,
    /// Group column for grouped V-fold (`--plan group`).
    #[arg(long = "group", value_name = "COL")]
    pub group: Option<String>,
    /// Fold column for user folds (`--plan folds`).
    #[arg(long = "fold-column", value_name = "COL")]
    pub fold_column: Option<String>,
    /// Reuse splits saved by `agghoo splits` (instead of a plan: refused with --plan and the
    /// plan's flags).
    #[arg(long = "splits-file", value_name = "FILE")]
    pub splits_file: Option<PathBuf>,
}

/// A report recorded before V-fold plans were stratified by default has no `no_stratify`: its
/// plans were unstratified unless `--stratify`, so `replay` reruns them that way.
fn unstratified_before_the_default() -> bool {
    true
}

/// The family and its grid.
#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct FamilyArgs {
    // Help: the registered families (`family_help`).
    #[arg(long, value_parser = parse_family, value_delimiter = ',', default_value = "knn", help = family_help())]
    #[serde(deserialize_with = "one_or_many")]
    pub family: Vec<agghoo::family::FamilyKind>,
    // Help: the axes of each registered family (`grid_help`).
    #[arg(long, help = grid_help())]
    #[serde(deserialize_with = "one_or_many", default)]
    pub grid: Vec<String>,
    /// Family parameter KEY=VALUE (repeatable), e.g. --param gamma=2 (svc, svr, kernel-ridge:
    /// gamma=scale, the default, is 1/(d·Var X) of each training set; gamma=auto is 1/d).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
    /// Standardise features (mean/sd of each training set).
    #[arg(long)]
    pub standardize: bool,
}

/// Reads a value or a list of values (a report recorded before a flag became repeatable holds a
/// single value, or `null` for none).
fn one_or_many<'de, D, T>(deserializer: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany<T> {
        Many(Vec<T>),
        One(T),
        Null(()),
    }
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::Many(v) => v,
        OneOrMany::One(v) => vec![v],
        OneOrMany::Null(()) => Vec::new(),
    })
}

/// The help of `--grid`: the forms of a grid, and the axes of each registered family.
fn grid_help() -> String {
    let axes: Vec<String> = agghoo::family::FamilyKind::ALL.iter().map(|k| format!("{}: {}", k.name(), k.axis_list())).collect();
    format!(
        "Grid: START:STOP:STEP (e.g. 1:99:2), a,b,c, or log:LOW:HIGH:N — the family's own hyperparameter. Repeatable as \
         NAME=VALUES, one axis per flag, for a product grid: `--grid lambda=log:1e-4:1:5 --grid gamma=log:0.01:10:4` ({})",
        axes.join("; ")
    )
}

/// The help of `--family`: the registered families by name.
fn family_help() -> String {
    format!(
        "Learner family: {}; or several, comma-separated (`knn,logistic,forest`): `select` then selects among the union of \
         their grids, `compare` compares the families",
        agghoo::family::FamilyKind::names()
    )
}

fn parse_family(name: &str) -> Result<agghoo::family::FamilyKind, String> {
    agghoo::family::FamilyKind::parse(name).map_err(|e| e.to_string())
}

/// Output options shared by commands.
#[derive(Args, Debug, Clone, Serialize, Deserialize)]
pub struct OutputArgs {
    /// Print one JSON document on stdout instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// `agghoo select`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct SelectArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    #[command(flatten)]
    /// Family.
    pub family: FamilyArgs,
    /// Selection procedure.
    #[arg(long, value_parser = by_name::<Method>(), default_value_t = Method::Agghoo)]
    #[serde(with = "name")]
    pub method: Method,
    #[command(flatten)]
    /// Plan.
    pub plan: PlanArgs,
    /// Selection loss: 01, squared, absolute, epsilon:E, hinge, logistic, logloss, pinball:Q
    /// (default 01 for classification, squared for regression).
    #[arg(long)]
    pub loss: Option<String>,
    /// Argmin tie rule (grid order is ascending).
    #[arg(long, value_parser = by_name::<TieRule>(), default_value_t = TieRule::First)]
    #[serde(with = "name")]
    pub tie: TieRule,
    /// How members are combined (auto: mean for regression, vote for classification); only for
    /// methods with several members (agghoo, majhoo, acv, subagging).
    #[arg(long, value_parser = by_name::<Option<Aggregation>>(), default_value = "auto")]
    #[serde(with = "name")]
    pub aggregate: AggregateChoice,
    /// Majhoo: average class probabilities instead of hard votes (= --aggregate soft).
    #[arg(long)]
    pub soft: bool,
    /// How the vote breaks ties between classes: lowest-risk = the class of the tied member with
    /// the lowest validation risk; first-class = the first class in class order (scikit-learn's
    /// hard vote, the Python estimators' rule). Recorded in the model. Refused without a vote.
    #[arg(long = "vote-ties", value_parser = by_name::<VoteTies>(), default_value_t = VoteTies::LowestRisk)]
    #[serde(with = "name", default, skip_serializing_if = "VoteTies::is_default")]
    pub vote_ties: VoteTies,
    /// CV: one-standard-error rule (refused with other methods: it picks a point of the CV curve).
    #[arg(long = "one-se")]
    pub one_se: bool,
    /// Subagging: training fraction of the hold-out inside each training set [default: 0.8]
    /// (refused with other methods).
    #[arg(long = "inner-tau")]
    pub inner_tau: Option<f64>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Save the fitted model (versioned JSON).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Include the split indices in the JSON report.
    #[arg(long = "report-splits")]
    pub report_splits: bool,
    /// Two-axis grids: write the heat map of the CV risk over the two axes to
    /// `PREFIX-heatmap.{csv,svg,png}`.
    #[arg(long = "plot", value_name = "PREFIX")]
    #[serde(default)]
    pub plot: Option<PathBuf>,
    /// Run the spec in FILE (JSON, as a `--json` report records it in `spec`) instead of the
    /// selection flags, which it replaces; the data flags (and --group, --fold-column,
    /// --splits-file) still say where the rows come from, generated data with the spec's seed.
    #[arg(long = "spec", value_name = "FILE", conflicts_with_all = select_spec_flags())]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PathBuf>,
    /// The spec a replayed report records (it replaces the flags as `--spec` does).
    #[arg(skip)]
    #[serde(skip)]
    pub recorded_spec: Option<agghoo::spec::SelectSpec>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

/// The flags a select spec replaces.
fn select_spec_flags() -> Vec<&'static str> {
    replaced_by_spec(&["method", "tie", "aggregate", "soft", "vote_ties", "one_se", "inner_tau", "report_splits"])
}

/// The flags a features spec replaces (the data's missing-category rule is in the spec).
fn features_spec_flags() -> Vec<&'static str> {
    vec!["method", "scorer", "n_features", "inner", "evaluate", "learner", "standardize", "missing_category", "seed"]
}

/// The flags a TreeCV spec replaces.
fn treecv_spec_flags() -> Vec<&'static str> {
    vec!["learner", "lambda", "folds", "order", "method", "parallel", "no_shuffle", "f32", "centres", "seed"]
}

/// The flags every spec replaces (the family's, the plan's, the loss, the seed) and `own`: all
/// but those that say where the rows come from (the data's, --group, --fold-column,
/// --splits-file).
fn replaced_by_spec(own: &[&'static str]) -> Vec<&'static str> {
    const COMMON: [&str; 17] = [
        "family",
        "grid",
        "params",
        "standardize",
        "missing_category",
        "plan",
        "n_splits",
        "tau",
        "repeats",
        "p",
        "stratify",
        "no_stratify",
        "gap",
        "max_train_size",
        "test_size",
        "loss",
        "seed",
    ];
    COMMON.iter().chain(own).copied().collect()
}

impl SelectArgs {
    /// The spec to run instead of the flags: a replayed report's, or `--spec FILE`'s.
    pub fn given_spec(&self) -> anyhow::Result<Option<agghoo::spec::SelectSpec>> {
        given_spec(&self.recorded_spec, self.spec.as_deref())
    }
}

/// A replayed report's spec, else the spec read from `file`: an error names the file, the
/// field, the line and the column.
fn given_spec<T: Clone + serde::de::DeserializeOwned>(recorded: &Option<T>, file: Option<&std::path::Path>) -> anyhow::Result<Option<T>> {
    use anyhow::Context;
    if let Some(spec) = recorded {
        return Ok(Some(spec.clone()));
    }
    let Some(path) = file else { return Ok(None) };
    let text = agghoo::limits::read_text(path).with_context(|| format!("reading the spec file {}", path.display()))?;
    let spec = serde_json::from_str(&text).map_err(|e| UsageError(format!("--spec {}: {e}", path.display())))?;
    Ok(Some(spec))
}

/// The default tie rule of a recorded invocation that has none (reports from before `--tie`).
fn first_tie() -> TieRule {
    TieRule::First
}

/// `agghoo predict`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct PredictArgs {
    /// A model saved by `agghoo select --out`.
    #[arg(long)]
    pub model: PathBuf,
    /// Rows to predict: a CSV with the model's feature columns (others are ignored). If it also has
    /// the target column, the risk on these rows is reported (with a warning when they are the
    /// model's training rows).
    #[arg(long)]
    pub data: PathBuf,
    /// CSV field delimiter of `--data` (as for `select`; default: detected).
    #[arg(long, value_name = "CHAR", value_parser = parse_delimiter)]
    pub delimiter: Option<u8>,
    /// Write the predictions to this file (default: stdout). Columns: the row number (or the
    /// `--id` column), `prediction`, then `proba_<class>` per class with `--proba` and
    /// `decision` with `--decision`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Copy this column of `--data` (an id) into the output, as its first column, instead of
    /// the row number.
    #[arg(long = "id", value_name = "COL")]
    #[serde(default)]
    pub id: Option<String>,
    /// Add the class probabilities, one column `proba_<class>` per class (averaged over the
    /// members for a soft vote; vote fractions for a hard vote or a one-vs-one SVC). An error
    /// for regression models and for classifiers without probabilities (binary svc: --decision).
    #[arg(long)]
    #[serde(default)]
    pub proba: bool,
    /// Add the decision score `decision` of a binary classifier (positive for the second class:
    /// svc's decision value, logistic's logit, a vote's 2·fraction − 1). An error for models
    /// without one.
    #[arg(long)]
    #[serde(default)]
    pub decision: bool,
    /// File format of the predictions: csv, or json (an array of records, one object per row
    /// keyed by column name). Default: json when `--out` ends in `.json`, else csv.
    #[arg(long, value_enum)]
    #[serde(default)]
    pub format: Option<PredictFormat>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

/// Prediction file formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PredictFormat {
    /// Comma-separated values with a header line.
    Csv,
    /// A JSON array of records: `[{"row": 0, "prediction": "benign", ...}, ...]`.
    Json,
}

/// `agghoo splits`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct SplitsArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    #[command(flatten)]
    /// Plan.
    pub plan: PlanArgs,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where to write the splits JSON.
    #[arg(long)]
    pub out: PathBuf,
}

/// `agghoo gen`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct GenArgs {
    #[command(flatten)]
    /// Data (a `gen:` source).
    pub data: DataArgs,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Output CSV (default: stdout).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `agghoo estimate`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct EstimateArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    #[command(flatten)]
    /// Family; `--param KEY=VALUE` a family setting (a bare `--param VALUE` is read as `--value VALUE`).
    pub family: FamilyArgs,
    /// The rule's hyperparameter value (k, λ, α, ...), e.g. `--value 5` for k = 5. A one-point
    /// `--grid` gives it too.
    #[arg(long, value_name = "VALUE")]
    pub value: Option<f64>,
    #[command(flatten)]
    /// Plan (default vfold; `--plan bootstrap` reports naive, leave-one-out, .632 and .632+).
    pub plan: PlanArgs,
    /// Losses, comma-separated (default: 01 or squared).
    #[arg(long)]
    pub loss: Option<String>,
    /// Always refit for leave-one-out (never the closed form).
    #[arg(long = "no-closed-form")]
    pub no_closed_form: bool,
    /// Write the out-of-fold predictions as CSV.
    #[arg(long = "oof", value_name = "FILE")]
    pub oof: Option<PathBuf>,
    /// Learning curve: training sizes, comma-separated (e.g. 50,100,200,400).
    #[arg(long = "learning-curve", value_name = "SIZES")]
    pub learning_curve: Option<String>,
    /// Validation curve over the family's whole grid (with SE bands).
    #[arg(long = "validation-curve")]
    pub validation_curve: bool,
    /// Where to write curve data (CSV) and plots (SVG, PNG): a path prefix.
    #[arg(long = "curve-out", value_name = "PREFIX")]
    pub curve_out: Option<PathBuf>,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Run the spec in FILE (JSON, as a `--json` report records it in `spec`) instead of the
    /// estimate flags, which it replaces; the data flags (and --group, --fold-column,
    /// --splits-file) still say where the rows come from, generated data with the spec's seed.
    #[arg(long = "spec", value_name = "FILE", conflicts_with_all = estimate_spec_flags())]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PathBuf>,
    /// The spec a replayed report records (it replaces the flags as `--spec` does).
    #[arg(skip)]
    #[serde(skip)]
    pub recorded_spec: Option<agghoo::spec::EstimateSpec>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

/// The flags an estimate spec replaces.
fn estimate_spec_flags() -> Vec<&'static str> {
    replaced_by_spec(&["value", "no_closed_form", "learning_curve", "validation_curve"])
}

impl EstimateArgs {
    /// The spec to run instead of the flags: a replayed report's, or `--spec FILE`'s.
    pub fn given_spec(&self) -> anyhow::Result<Option<agghoo::spec::EstimateSpec>> {
        given_spec(&self.recorded_spec, self.spec.as_deref())
    }
}

/// `agghoo compare`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct CompareArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    #[command(flatten)]
    /// Family and grid.
    pub family: FamilyArgs,
    /// Procedures, comma-separated: agghoo, majhoo, cv, cv+1se, holdout, acv, ekcv, subagging.
    #[arg(long, default_value = "agghoo,cv,holdout")]
    pub methods: String,
    /// Outer plan: vfold:V, repeated:V:R, 5x2, mc:V:TAU, loo, holdout:TAU, time:S (V-fold plans
    /// are stratified by default for a classification target).
    #[arg(long, default_value = "vfold:10")]
    pub outer: String,
    #[command(flatten)]
    /// Inner plan (what each procedure selects with; default mc with -V 10 --tau 0.8);
    /// `--stratify` stratifies the outer plan too, `--no-stratify` keeps V-fold outer and inner
    /// plans of a classification target unstratified (they are stratified by default).
    pub plan: PlanArgs,
    /// Test loss (default 01 or squared).
    #[arg(long)]
    pub loss: Option<String>,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The spec a replayed report records (it replaces the flags but the data's).
    #[arg(skip)]
    #[serde(skip)]
    pub recorded_spec: Option<agghoo::spec::CompareSpec>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

/// `agghoo treecv`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct TreeCvArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    /// Incremental learner.
    #[arg(long, value_parser = by_name::<LearnerKind>(), default_value_t = LearnerKind::Pegasos)]
    #[serde(with = "name")]
    pub learner: LearnerKind,
    /// λ of PEGASOS (or a grid `a,b,c` / `log:LOW:HIGH:N` to select λ by TreeCV) [default: 1e-6];
    /// refused with other learners.
    #[arg(long)]
    pub lambda: Option<String>,
    /// Number of chunks k, or `loo` (k = n).
    #[arg(long, default_value = "10")]
    pub folds: String,
    /// Order of the points within each update.
    #[arg(long, value_parser = by_name::<Order>(), default_value_t = Order::Fixed)]
    #[serde(with = "name")]
    pub order: Order,
    /// TreeCV or k separate trainings.
    #[arg(long, value_parser = by_name::<TreeMethod>(), default_value_t = TreeMethod::Tree)]
    #[serde(with = "name")]
    pub method: TreeMethod,
    /// Run the two branches of every node in parallel.
    #[arg(long)]
    pub parallel: bool,
    /// Keep the file order of the rows (default: shuffle them into chunks with the seed).
    #[arg(long = "no-shuffle")]
    pub no_shuffle: bool,
    /// Store the features as f32 (arithmetic stays f64): half the memory traffic, faster at
    /// small k on large data; the estimate is then exactly that of the data rounded to f32.
    #[arg(long)]
    pub f32: bool,
    /// Number of centres of k-means [default: 8]; refused with other learners.
    #[arg(long)]
    pub centres: Option<usize>,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Run the spec in FILE (JSON, as a `--json` report records it in `spec`) instead of the
    /// TreeCV flags, which it replaces; the data flags still say where the rows come from,
    /// generated data with the spec's seed.
    #[arg(long = "spec", value_name = "FILE", conflicts_with_all = treecv_spec_flags())]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PathBuf>,
    /// The spec a replayed report records (it replaces the flags as `--spec` does).
    #[arg(skip)]
    #[serde(skip)]
    pub recorded_spec: Option<agghoo::spec::TreecvSpec>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

impl TreeCvArgs {
    /// The spec to run instead of the flags: a replayed report's, or `--spec FILE`'s.
    pub fn given_spec(&self) -> anyhow::Result<Option<agghoo::spec::TreecvSpec>> {
        given_spec(&self.recorded_spec, self.spec.as_deref())
    }
}

/// `agghoo features`.
#[derive(Args, Debug, Serialize, Deserialize)]
pub struct FeaturesArgs {
    #[command(flatten)]
    /// Data.
    pub data: DataArgs,
    /// Selection: sfs, sbs, sffs, sbfs, exhaustive (searches); pearson, mi (filter rankings);
    /// lasso, enet, forest-impurity, forest-permutation (embedded).
    #[arg(long, default_value = "sffs")]
    pub method: String,
    /// Subset scorer of the searches: `cfs` or `wrapper:FAMILY:VALUE` (e.g. wrapper:knn:5).
    #[arg(long, default_value = "cfs")]
    pub scorer: String,
    /// How many features: K, MIN:MAX, best or parsimonious (rankings and forests: K).
    #[arg(long = "features", default_value = "best")]
    pub n_features: String,
    /// Inner plan of wrapper scores and of the Lasso's λ: vfold:V, repeated:V:R, 5x2, mc:V:TAU.
    #[arg(long, default_value = "vfold:5")]
    pub inner: String,
    /// Honest evaluation: the outer plan (e.g. vfold:10); selection is redone in every outer
    /// training fold and compared with the naive selection-on-all-data estimate.
    #[arg(long)]
    pub evaluate: Option<String>,
    /// Learner evaluated on the selected features: FAMILY:VALUE (default: the wrapper's, or knn:5);
    /// with --evaluate only.
    #[arg(long)]
    pub learner: Option<String>,
    /// Standardise features inside every training set: for the learner, the wrapper's fits and
    /// the Lasso / elastic-net selection (whose penalty and |coefficient| ranking depend on scale).
    #[arg(long)]
    pub standardize: bool,
    /// Seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Run the spec in FILE (JSON, as a `--json` report records it in `spec`) instead of the
    /// selection flags, which it replaces; the data flags still say where the rows come from,
    /// generated data with the spec's seed.
    #[arg(long = "spec", value_name = "FILE", conflicts_with_all = features_spec_flags())]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PathBuf>,
    /// The spec a replayed report records (it replaces the flags as `--spec` does).
    #[arg(skip)]
    #[serde(skip)]
    pub recorded_spec: Option<agghoo::spec::FeaturesSpec>,
    #[command(flatten)]
    /// Output.
    pub output: OutputArgs,
}

impl FeaturesArgs {
    /// The spec to run instead of the flags: a replayed report's, or `--spec FILE`'s.
    pub fn given_spec(&self) -> anyhow::Result<Option<agghoo::spec::FeaturesSpec>> {
        given_spec(&self.recorded_spec, self.spec.as_deref())
    }
}

/// `--aggregate`: `auto` (`None`, the task's default) or an aggregation. An alias, so that clap
/// takes `None` for a value (`auto`) rather than for an absent flag.
pub type AggregateChoice = Option<Aggregation>;

/// The value parser of a library choice: its names, with their help, are the possible values
/// `--help` lists; the library parses them.
fn by_name<T: Named + Send + Sync>() -> impl clap::builder::TypedValueParser<Value = T> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(T::CHOICES.iter().map(|&(_, name, help)| PossibleValue::new(name).help(help)))
        .try_map(|text| T::parse_name(&text))
}

/// A library choice in a recorded invocation: its name, as on the command line.
mod name {
    use agghoo::names::Named;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Named, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(value.name())
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        T::parse_name(&String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

/// An optional library choice in a recorded invocation: its name, or `null`.
mod optional_name {
    use agghoo::names::Named;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Named, S: Serializer>(value: &Option<T>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => serializer.serialize_some(v.name()),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, T: Named, D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        Option::<String>::deserialize(deserializer)?.map(|text| T::parse_name(&text).map_err(serde::de::Error::custom)).transpose()
    }
}

/// `--n`: an integer or scientific notation (`1e5`), so that a typo such as `1e10` reaches the
/// memory check (which states the estimate) instead of a parse error.
fn parse_rows(text: &str) -> Result<usize, String> {
    agghoo::limits::parse_count(text)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| format!("`{text}`: a number of rows, such as 500 or 1e5"))
}

/// `--delimiter`: a single ASCII character, or `tab` / `\t`.
fn parse_delimiter(text: &str) -> Result<u8, String> {
    match text {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        _ if text.len() == 1 && text.is_ascii() && text != "\"" && text != "\n" => Ok(text.as_bytes()[0]),
        _ => Err(format!("`{text}`: a single ASCII character (e.g. `;` or `|`) or `tab`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every example line of every `--help` parses: its flags and values exist and are valid.
    #[test]
    fn every_help_example_parses() {
        let all = [
            SELECT_EXAMPLES,
            PREDICT_EXAMPLES,
            SPLITS_EXAMPLES,
            GEN_EXAMPLES,
            ESTIMATE_EXAMPLES,
            COMPARE_EXAMPLES,
            TREECV_EXAMPLES,
            FEATURES_EXAMPLES,
            REPRODUCE_EXAMPLES,
            REPLAY_EXAMPLES,
            STUDY_EXAMPLES,
        ];
        let mut seen = 0;
        for text in all {
            for line in text.lines().filter(|l| l.starts_with("  agghoo ")).map(str::trim) {
                let command = line.split(" #").next().unwrap_or(line).split(" > ").next().unwrap_or(line);
                let words: Vec<&str> = command.split_whitespace().collect();
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("example does not parse: {line}\n{e}");
                }
                seen += 1;
            }
        }
        assert!(seen >= 25, "{seen} examples");
    }

    /// Every flag a spec replaces exists (clap ignores an unknown name in `conflicts_with_all`
    /// outside debug builds): each one given beside `--spec` is refused.
    #[test]
    fn every_flag_a_spec_replaces_is_refused_beside_it() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        for (command, flags) in [
            ("select", select_spec_flags()),
            ("estimate", estimate_spec_flags()),
            ("features", features_spec_flags()),
            ("treecv", treecv_spec_flags()),
        ] {
            let sub = Cli::command().find_subcommand(command).cloned().expect("subcommand");
            for id in flags {
                let arg = sub.get_arguments().find(|a| a.get_id() == id).unwrap_or_else(|| panic!("{command}: no flag `{id}`"));
                let flag = format!("--{}", arg.get_long().expect("a long flag"));
                let value = match id {
                    _ if !arg.get_action().takes_values() => None,
                    "family" => Some("knn"),
                    "method" if command == "features" => Some("sfs"),
                    "method" if command == "treecv" => Some("standard"),
                    "method" => Some("cv"),
                    "scorer" => Some("cfs"),
                    "learner" => Some(if command == "treecv" { "gaussian-nb" } else { "knn" }),
                    "order" => Some("random"),
                    "inner" | "evaluate" => Some("vfold:5"),
                    "plan" => Some("vfold"),
                    "tie" => Some("last"),
                    "vote_ties" => Some("first-class"),
                    "aggregate" => Some("mean"),
                    "missing_category" => Some("level"),
                    "params" => Some("weights=distance"),
                    _ => Some("1"),
                };
                let words = [&["agghoo", command, "--data", "x", flag.as_str()][..], value.as_slice()].concat();
                assert!(Cli::try_parse_from(&words).is_ok(), "{command} {flag} alone");
                let e = Cli::try_parse_from([&words[..], &["--spec", "s.json"][..]].concat()).unwrap_err();
                assert_eq!(e.kind(), clap::error::ErrorKind::ArgumentConflict, "{command} {flag} beside --spec");
            }
        }
    }

    /// Invocations recorded by the build that had the CLI's own enums for these choices (the
    /// names of `--method holdout`, `--missing-category most-frequent`, `--order random`, …)
    /// read back to the same choices and are written again as they were.
    #[test]
    fn recorded_choices_read_and_write_by_their_names() {
        let recorded = [
            r#"{"select": {"aggregate": "auto", "data": {"categorical": [], "d": null, "data": "gen:knn", "delimiter": null, "ignore": [], "missing": "error", "missing_category": "most-frequent", "n": 60, "target": null, "task": "classification"}, "family": {"family": ["knn"], "grid": [], "params": [], "standardize": false}, "inner_tau": null, "loss": null, "method": "holdout", "one_se": false, "out": null, "output": {"json": true}, "plan": {"fold_column": null, "gap": null, "group": null, "max_train_size": null, "n_splits": 10, "no_stratify": false, "p": null, "plan": "holdout", "repeats": null, "splits_file": null, "stratify": false, "tau": null, "test_size": null}, "plot": null, "report_splits": false, "seed": 0, "soft": false, "tie": "last"}}"#,
            r#"{"treecv": {"centres": null, "data": {"categorical": [], "d": null, "data": "gen:knn", "delimiter": null, "ignore": [], "missing": "error", "missing_category": "level", "n": 60, "target": null, "task": "auto"}, "f32": false, "folds": "5", "lambda": null, "learner": "gaussian-nb", "method": "standard", "no_shuffle": false, "order": "random", "output": {"json": true}, "parallel": false, "seed": 0}}"#,
        ];
        for text in recorded {
            let value: serde_json::Value = serde_json::from_str(text).unwrap();
            let command: Command = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(serde_json::to_value(&command).unwrap(), value);
        }
        let Command::Select(select) =
            serde_json::from_str::<Command>(&recorded[0].replace(r#""aggregate": "auto""#, r#""aggregate": "score""#)).unwrap()
        else {
            panic!("a select invocation")
        };
        assert_eq!(
            (select.method, select.aggregate, select.plan.plan),
            (Method::HoldOut, Some(Aggregation::ScoreMean), Some(PlanKind::HoldOut))
        );
        assert_eq!((select.tie, select.data.missing_category), (TieRule::Last, MissingCategory::MostFrequent));
        let unknown = recorded[0].replace(r#""method": "holdout""#, r#""method": "hold-out""#);
        let e = serde_json::from_str::<Command>(&unknown).unwrap_err().to_string();
        assert!(e.contains("one of agghoo, majhoo, cv, holdout"), "{e}");
    }
}
