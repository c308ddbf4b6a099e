//! Turns `--data`, `--plan` and `--family` arguments into library values, in one place.

use std::collections::BTreeMap;
use std::path::Path;

use agghoo::Seed;
use agghoo::data::{self, CsvOptions, DataFormat, Dataset, MissingCategory, MostlyNumeric, NaValues, bundled, generators};
use agghoo::family::{AxisSpec, Family, FamilyKind, FamilyParams, FamilySpec, GridSpec};
use agghoo::names::Named;
use agghoo::resample::{Plan, PlanKind, PlanSetting, PlanSettings, Splits};
use agghoo::spec::{EstimateSpec, Inputs, SelectSpec};
use anyhow::{Context, Result, bail};

use crate::args::{DataArgs, FamilyArgs, PlanArgs, UsageError};

/// A loaded data set with the text columns the plan may need.
pub struct Loaded {
    /// Features and target.
    pub data: Dataset,
    /// Non-feature columns by name (group, fold, ignored ids).
    pub extras: BTreeMap<String, Vec<String>>,
    /// Human-readable source.
    pub description: String,
    /// What missing categorical values become.
    pub missing_category: MissingCategory,
}

fn usage(msg: impl Into<String>) -> anyhow::Error {
    UsageError(msg.into()).into()
}

/// A malformed `--grid` is a usage error (exit 2); a grid beyond its size limit keeps its typed
/// error (exit 1, with the flag that raises the limit), like every other limit.
pub fn parse_grid(text: &str) -> Result<GridSpec> {
    GridSpec::parse(text).map_err(|e| if matches!(e, agghoo::Error::ResourceLimit { .. }) { e.into() } else { usage(e.to_string()) })
}

/// Loads `--data`, with the plan's group / fold columns kept aside.
pub fn load(args: &DataArgs, plan: Option<&PlanArgs>, seed: Seed) -> Result<Loaded> {
    let (missing, missing_category) = (args.missing, args.missing_category);
    let csv_flag = (!args.categorical.is_empty())
        .then_some("--categorical")
        .or(args.na_values.is_some().then_some("--na-values"))
        .or(args.weight_column.is_some().then_some("--weight-column"));
    let na_values = match &args.na_values {
        Some(list) => NaValues::parse(list).map_err(|e| usage(format!("--na-values: {e}")))?,
        None => NaValues::default(),
    };
    if let Some(name) = args.data.strip_prefix("gen:") {
        if let Some(flag) = csv_flag {
            return Err(usage(format!("{flag} is for CSV data; generated data are numeric")));
        }
        let n = args.n;
        let data = match name {
            "knn" => generators::knn_problem(n, seed)?,
            "genuer" => generators::genuer(n, args.d.unwrap_or(7), seed, 0)?,
            "svr" => generators::svr_problem(n, seed, 0)?,
            "covertype" => generators::covertype_like(n, seed)?,
            "msd" => generators::msd_like(n, seed)?,
            other => return Err(usage(format!("unknown generator `gen:{other}` (knn, genuer, svr, covertype, msd)"))),
        };
        let data = data.with_columns(&args.data, args.target.as_deref(), &args.ignore)?;
        let description = format!("{} (n = {n}, seed {})", args.data, seed.0);
        return Ok(Loaded { data, extras: BTreeMap::new(), description, missing_category });
    }
    let task = args.task;
    let mut extra_columns = args.ignore.clone();
    if let Some(p) = plan {
        extra_columns.extend(p.group.iter().cloned());
        extra_columns.extend(p.fold_column.iter().cloned());
    }
    let options = CsvOptions {
        target: args.target.clone(),
        task,
        missing,
        extra_columns,
        delimiter: args.delimiter,
        categorical: args.categorical.clone(),
        detect_categorical: true,
        na_values,
        weight_column: args.weight_column.clone(),
        ..Default::default()
    };
    let (csv, description) = if let Some(name) = args.data.strip_prefix("bundled:") {
        if name != "breast-cancer" {
            return Err(usage(format!("unknown bundled data set `{name}` (breast-cancer)")));
        }
        (bundled::breast_cancer_csv(options)?, "Breast Cancer Wisconsin (bundled)".to_string())
    } else {
        let path = Path::new(&args.data);
        if data::detect_format(path)? == DataFormat::LibSvm {
            let flags = [(args.target.is_some(), "--target"), (!args.ignore.is_empty(), "--ignore")];
            if let Some(flag) = flags.iter().find(|f| f.0).map(|f| f.1).or(csv_flag) {
                return Err(usage(format!(
                    "{}: {} is for CSV data; a LibSVM file's columns are the label and features f1, f2, …",
                    args.data, flag
                )));
            }
            let data = data::read_libsvm(path, task, None)?;
            return Ok(Loaded { data, extras: BTreeMap::new(), description: args.data.clone(), missing_category });
        }
        if options.target.is_none() {
            let hint =
                if data::libsvm_extension(path) { " (this file reads as CSV: its first line is not `label index:value …`)" } else { "" };
            return Err(usage(format!("--target COL is required for CSV data{hint}")));
        }
        (data::read_csv(path, &options)?, args.data.clone())
    };
    if csv.n_dropped > 0 {
        eprintln!("agghoo: dropped {} rows with missing values", csv.n_dropped);
    }
    for w in &csv.warnings {
        eprintln!("agghoo: warning: {}", mostly_numeric_hint(w, args.na_values.as_deref()));
    }
    Ok(Loaded { data: csv.data, extras: csv.extras, description, missing_category })
}

/// The warning about a column read as categorical although nearly all its values are numbers,
/// with the flags that settle it (`given`: the `--na-values` list given, if any).
fn mostly_numeric_hint(w: &MostlyNumeric, given: Option<&[String]>) -> String {
    let mut list: Vec<&str> = given.map_or(vec!["default"], |g| g.iter().map(String::as_str).collect());
    list.extend(w.examples.iter().map(String::as_str));
    format!(
        "{w}: one-hot encoding makes a column of each distinct value. If they mark missing values, read them so with \
         --na-values {}; if the column is categorical, say so with --categorical {}",
        list.join(","),
        w.column
    )
}

/// The family spec of the flags: a product grid for named `--grid` axes, the union for several
/// families (a malformed axis is a usage error).
pub fn family_spec(args: &FamilyArgs) -> Result<FamilySpec> {
    let (kind, params, bare) = family_params(args)?;
    if let Some(v) = bare.first() {
        return Err(usage(format!("--param {v}: family parameters are KEY=VALUE")));
    }
    FamilySpec::from_params(kind, &params).map_err(axis_usage)
}

/// Builds a spec's family on the loaded data (`build`: the spec's own builder), its
/// data-dependent defaults computed as its fits will see the data: a malformed axis is a usage
/// error, as in [`family_spec`].
pub fn build_family(build: impl FnOnce(&Dataset) -> agghoo::Result<Box<dyn Family>>, loaded: &Loaded) -> Result<Box<dyn Family>> {
    build(&loaded.data).map_err(axis_usage)
}

/// A malformed axis (named twice, unknown to every family, a bare grid with several families) is
/// a usage error; other build errors keep their kind.
fn axis_usage(e: agghoo::Error) -> anyhow::Error {
    match e {
        agghoo::Error::InvalidParameter { name: name @ ("grid" | "family"), expected, got } => {
            usage(format!("--{name} {got}: expected {expected}"))
        }
        other => other.into(),
    }
}

/// The family kind (the first of a union), its parameters (the other families in
/// [`FamilyParams::union`], named `--grid` axes in [`FamilyParams::axes`]), and any bare
/// `--param VALUE` numbers (a rule's hyperparameter value, for `estimate`).
pub fn family_params(args: &FamilyArgs) -> Result<(FamilyKind, FamilyParams, Vec<f64>)> {
    let (&kind, others) = args.family.split_first().ok_or_else(|| usage("--family: at least one family"))?;
    let mut params = FamilyParams { union: others.to_vec(), ..FamilyParams::default() };
    for g in &args.grid {
        if g.contains('=') {
            params.axes.push(AxisSpec::parse(g).map_err(|e| usage(e.to_string()))?);
        } else if params.grid.is_some() {
            return Err(usage(format!("--grid {g}: a second grid needs its axis name (NAME=VALUES)")));
        } else {
            params.grid = Some(parse_grid(g)?);
        }
    }
    let mut bare = Vec::new();
    for pair in &args.params {
        if pair.contains('=') {
            params.insert_pair(pair).map_err(|e| usage(e.to_string()))?;
        } else {
            bare.push(pair.trim().parse::<f64>().map_err(|_| usage(format!("--param `{pair}`: expected KEY=VALUE or a number")))?);
        }
    }
    Ok((kind, params, bare))
}

/// Refuses several families or named grid axes where a command evaluates one family over one axis.
pub fn single_family(args: &FamilyArgs, command: &str) -> Result<()> {
    if args.family.len() > 1 {
        return Err(usage(format!("{command} takes one --family (select chooses among several; compare compares them)")));
    }
    if let Some(g) = args.grid.iter().find(|g| g.contains('=')) {
        return Err(usage(format!("--grid {g}: {command} takes the family's own grid, without a name")));
    }
    Ok(())
}

/// Builds and instantiates the plan (or loads saved splits).
pub fn splits(args: &PlanArgs, default: PlanKind, loaded: &Loaded, seed: Seed) -> Result<(Splits, String)> {
    let (plan, description, rows) = plan_rows(args, default, loaded)?;
    let splits = match (&rows.splits, plan) {
        (Some(s), _) => s.clone(),
        (None, plan) => rows.inputs(&loaded.data).splits(&plan.ok_or_else(|| usage("--plan: a plan or --splits-file"))?, seed)?,
    };
    Ok((splits, description))
}

/// What a spec's plan reads beside the data: the caller's splits (`--splits-file`), a group id
/// per row (`--group`), a fold per row (`--fold-column`).
#[derive(Default)]
pub struct Rows {
    groups: Option<Vec<u32>>,
    folds: Option<Vec<String>>,
    splits: Option<Splits>,
}

impl Rows {
    /// The inputs of a spec's run on `data`.
    pub fn inputs<'a>(&'a self, data: &'a Dataset) -> Inputs<'a> {
        Inputs { data, groups: self.groups.as_deref(), folds: self.folds.as_deref(), splits: self.splits.clone() }
    }
}

/// The plan of the flags for a spec (`None` with `--splits-file`), its description, and the
/// rows it reads (a folds plan keeps no folds: they come with the rows).
pub fn plan_rows(args: &PlanArgs, default: PlanKind, loaded: &Loaded) -> Result<(Option<Plan>, String, Rows)> {
    if let Some(file) = &args.splits_file {
        let plan_flags = [
            (args.plan.is_some(), "--plan"),
            (args.tau.is_some(), "--tau"),
            (args.repeats.is_some(), "--repeats"),
            (args.p.is_some(), "--p"),
            (args.stratify, "--stratify"),
            (args.group.is_some(), "--group"),
            (args.fold_column.is_some(), "--fold-column"),
            (args.gap.is_some(), "--gap"),
            (args.max_train_size.is_some(), "--max-train-size"),
            (args.test_size.is_some(), "--test-size"),
        ];
        if let Some((_, flag)) = plan_flags.iter().find(|(given, _)| *given) {
            return Err(usage(format!("{flag} describes a plan, and --splits-file replaces the plan: give one or the other")));
        }
        let rows = Rows { splits: Some(splits_file(file, &loaded.data)?), ..Rows::default() };
        return Ok((None, format!("splits from {}", file.display()), rows));
    }
    let (mut plan, groups) = plan(args, default, Some(loaded))?;
    let description = plan.describe();
    let folds = match &mut plan {
        Plan::UserFolds(f) => Some(std::mem::take(&mut f.fold_of_row)),
        _ => None,
    };
    Ok((Some(plan), description, Rows { groups, folds, splits: None }))
}

/// A spec the CLI runs on the data its flags read.
pub trait RunSpec: Sized {
    /// The seed of every random choice (generated data's too).
    fn seed(&self) -> Seed;
    /// The plan the spec runs on `data`.
    ///
    /// # Errors
    /// The plan's errors.
    fn plan_for(&self, data: &Dataset) -> agghoo::Result<Plan>;
}

impl RunSpec for SelectSpec {
    fn seed(&self) -> Seed {
        self.seed
    }
    fn plan_for(&self, data: &Dataset) -> agghoo::Result<Plan> {
        SelectSpec::plan_for(self, data)
    }
}

impl RunSpec for EstimateSpec {
    fn seed(&self) -> Seed {
        self.seed
    }
    fn plan_for(&self, data: &Dataset) -> agghoo::Result<Plan> {
        EstimateSpec::plan_for(self, data)
    }
}

/// Loads the data of the flags and settles the spec run on them: `given` (a replayed report's,
/// or `--spec FILE`'s: the flags then say only where the rows come from, generated data drawn
/// with the spec's seed as the flags' run drew them) or the one `from_flags` builds. Returns the
/// data, the spec, its plan's description and the rows its plan reads.
pub fn load_with_spec<S: RunSpec>(
    data: &DataArgs,
    plan: &PlanArgs,
    seed: u64,
    given: Option<S>,
    from_flags: impl FnOnce(&Loaded) -> Result<(S, String, Rows)>,
) -> Result<(Loaded, S, String, Rows)> {
    let seed = given.as_ref().map_or(Seed(seed), RunSpec::seed);
    let loaded = load(data, Some(plan), seed)?;
    let (spec, text, rows) = match given {
        Some(spec) => {
            let text = match &plan.splits_file {
                Some(file) => format!("splits from {}", file.display()),
                None => spec.plan_for(&loaded.data)?.describe(),
            };
            (spec, text, spec_rows(plan, &loaded)?)
        }
        None => from_flags(&loaded)?,
    };
    Ok((loaded, spec, text, rows))
}

/// The rows the plan of a given spec may read: the `--splits-file`, `--group` and
/// `--fold-column` given.
fn spec_rows(args: &PlanArgs, loaded: &Loaded) -> Result<Rows> {
    let column = |name: &String| loaded.extras.get(name).ok_or_else(|| usage(format!("column `{name}` not loaded")));
    Ok(Rows {
        groups: args.group.as_ref().map(|g| column(g).map(|c| group_ids(c))).transpose()?,
        folds: args.fold_column.as_ref().map(|f| column(f).cloned()).transpose()?,
        splits: args.splits_file.as_ref().map(|file| splits_file(file, &loaded.data)).transpose()?,
    })
}

/// The splits saved in `file`, checked against the rows of `data`.
fn splits_file(file: &Path, data: &Dataset) -> Result<Splits> {
    let s = Splits::load(file).map_err(|e| match e {
        agghoo::Error::InvalidSplit { .. } => anyhow::Error::new(e).context(format!("splits file {}", file.display())),
        other => other.into(),
    })?;
    s.check_rows(data.n_rows()).with_context(|| format!("splits file {}", file.display()))?;
    Ok(s)
}

/// A group id per row: the rank of its group name among the sorted distinct names.
fn group_ids(text: &[String]) -> Vec<u32> {
    let mut names: Vec<&String> = text.iter().collect();
    names.sort();
    names.dedup();
    text.iter().map(|t| names.binary_search(&t).unwrap_or(0) as u32).collect()
}

/// The plan recipe (not instantiated) and, for grouped plans, the group id of each row.
/// Without `loaded`, plans that read a column (group, folds) are usage errors.
pub fn plan(args: &PlanArgs, default: PlanKind, loaded: Option<&Loaded>) -> Result<(Plan, Option<Vec<u32>>)> {
    let kind = args.plan.unwrap_or(default);
    check_plan_flags(args, kind)?;
    let column = |name: &Option<String>, flag: &str| -> Result<&Vec<String>> {
        let col = name.as_ref().ok_or_else(|| usage(format!("--plan {flag} needs --{flag} COL")))?;
        let loaded = loaded.ok_or_else(|| usage(format!("--plan {flag} cannot be used here")))?;
        loaded.extras.get(col).ok_or_else(|| usage(format!("column `{col}` not loaded")))
    };
    let ids = |name: &Option<String>, flag: &str| -> Result<Vec<u32>> { Ok(group_ids(column(name, flag)?)) };
    let fold_of_row =
        if kind.settings().contains(&PlanSetting::FoldColumn) { Some(column(&args.fold_column, "fold-column")?.clone()) } else { None };
    let settings = PlanSettings {
        n_splits: Some(args.n_splits),
        tau: args.tau,
        repeats: args.repeats,
        p: args.p,
        stratify: args.stratify,
        gap: args.gap,
        max_train_size: args.max_train_size,
        test_size: args.test_size,
        fold_of_row,
    };
    let plan = Plan::from_kind(kind, &settings)?;
    let groups = if kind.settings().contains(&PlanSetting::Group) { Some(ids(&args.group, "group")?) } else { None };
    if let (true, Some(l)) = (args.stratify, loaded)
        && l.data.task() != agghoo::data::Task::Classification
    {
        bail!(usage("--stratify needs a classification target"));
    }
    let plan = match loaded {
        Some(l) => default_stratification(args, plan, l.data.task()),
        None => plan,
    };
    Ok((plan, groups))
}

/// The plan with the default stratification of [`Plan::stratified_by_default`] (V-fold plans of
/// a classification target), unless `--stratify` or `--no-stratify` decided.
pub fn default_stratification(args: &PlanArgs, plan: Plan, task: agghoo::data::Task) -> Plan {
    if args.stratify || args.no_stratify { plan } else { plan.stratified_by_default(task) }
}

/// Refuses plan flags the plan `kind` would ignore (a flag that changes nothing is a mistake the
/// user cannot see in the output).
fn check_plan_flags(args: &PlanArgs, kind: PlanKind) -> Result<()> {
    let given = [
        (args.tau.is_some(), PlanSetting::Tau),
        (args.gap.is_some(), PlanSetting::Gap),
        (args.max_train_size.is_some(), PlanSetting::MaxTrainSize),
        (args.test_size.is_some(), PlanSetting::TestSize),
        (args.repeats.is_some(), PlanSetting::Repeats),
        (args.p.is_some(), PlanSetting::P),
        (args.stratify, PlanSetting::Stratify),
        (args.group.is_some(), PlanSetting::Group),
        (args.fold_column.is_some(), PlanSetting::FoldColumn),
    ];
    match kind.ignored_setting(given.into_iter().filter(|(on, _)| *on).map(|(_, setting)| setting)) {
        Some(setting) => {
            let plans: Vec<&str> = setting.plans().iter().map(|p| p.name()).collect();
            Err(usage(format!("--{setting} has no effect with --plan {kind}: it applies to --plan {}", plans.join(", "))))
        }
        None => Ok(()),
    }
}

/// Parses an outer plan (the forms of [`Plan::parse`]), naming `--outer` in errors.
pub fn outer_plan(text: &str, stratify: bool) -> Result<Plan> {
    plan_flag("outer", text, stratify)
}

/// Parses the plan given to `--{flag}` (the forms of [`Plan::parse`]), naming that flag in errors.
pub fn plan_flag(flag: &str, text: &str, stratify: bool) -> Result<Plan> {
    Plan::parse(text, stratify).map_err(|e| match e {
        agghoo::Error::InvalidParameter { name: "plan", expected, .. } => usage(format!("--{flag} `{text}`: expected {expected}")),
        agghoo::Error::InvalidParameter { name: "stratify", .. } => {
            usage(format!("--stratify has no effect on --{flag} {text}: only vfold, repeated, mc and holdout plans are stratified"))
        }
        other => other.into(),
    })
}
