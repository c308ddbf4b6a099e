//! Nested cross-validation: the risk of a whole selection procedure (`docs/PROCEDURES.md`
//! § Nested cross-validation; the honesty rule: evaluating a selected model needs an outer loop).
//!
//! For each outer split j with training rows `T_j` and test rows `T_jᶜ` ("test" is the outer
//! held-out set only):
//! 1. the rows `T_j` are copied into their own data set `D_{T_j}` — the inner procedure cannot
//!    see a test row because it is not there;
//! 2. the family is built on `D_{T_j}` (data-dependent grids such as k-NN's default `k ≤ n/2`
//!    see only training rows);
//! 3. the inner plan is instantiated on `D_{T_j}` with the seed `seed.child(Purpose::Inner, j)`,
//!    the same for every procedure, so procedures are compared on identical outer *and* inner
//!    splits;
//! 4. each procedure runs [`select::select`] on `D_{T_j}` with those inner splits (its own
//!    randomness, e.g. subagging, also seeded by `seed.child(Purpose::Inner, j)`), and its
//!    fitted model is scored on `T_jᶜ`: `R_j = R_{T_jᶜ}(procedure(D_{T_j}))`.
//!
//! The estimate is `Σ_j w_j R_j` (`w_j ∝ |T_jᶜ|`) with standard error `sd_j(R_j)/√J`, as for one
//! rule ([`estimate_risk`](super::estimate_risk)); pairs of procedures are compared on the same
//! `R_j` with [`compare_paired`].
//!
//! Composition, not special-casing: nested CV is `select` inside an outer plan.
//! Outer splits run in parallel (each is a pure function of data, indices, configuration and
//! seed) and are collected in order, so results do not depend on the thread count.

use serde::{Deserialize, Serialize};

use super::compare::{PairedComparison, compare_paired};
use crate::data::Dataset;
use crate::engine::{self, Executor, Job, Rayon, summarize};
use crate::error::{Error, Result};
use crate::family::{FamilyKind, FamilyParams, FamilySpec, axis_list};
use crate::loss::Loss;
use crate::resample::{Plan, PlanContext, Split, Splits};
use crate::seed::{Purpose, Seed};
use crate::select::{self, Method, SelectConfig};

/// Options of [`nested_cv`] (a serde value without its progress callback).
#[derive(Clone, Serialize, Deserialize)]
pub struct NestedConfig {
    /// The family (grid, settings), rebuilt on each outer training set.
    pub family: FamilySpec,
    /// The inner plan each procedure selects with.
    pub inner_plan: Plan,
    /// The procedures to evaluate (their `seed` is replaced by the per-outer-split seed).
    pub procedures: Vec<SelectConfig>,
    /// The loss scored on the outer test rows; `None` = the task's default.
    pub loss: Option<Loss>,
    /// Seed of the inner plans and the procedures' own randomness.
    pub seed: Seed,
    /// Record the inner splits in data-row indices ([`NestedReport::inner_splits`]).
    pub keep_inner_splits: bool,
    /// Further families compared with `family` on the same outer and inner splits (a benchmark of
    /// families): every procedure is run on each family over its own grid (see
    /// [`NestedConfig::families_from_params`]). Empty: one family.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compared: Vec<FamilySpec>,
}

impl NestedConfig {
    /// The families compared: `family` alone, or `family` and [`compared`](Self::compared).
    pub fn families(&self) -> Vec<&FamilySpec> {
        std::iter::once(&self.family).chain(&self.compared).collect()
    }

    /// The specs of `kind` and the `compared` kinds as the user gave their parameters (the
    /// edge): `kind` alone with `params`, or each family with the settings it knows and the
    /// named axes it has ([`FamilyParams::for_family`]), as a union routes them. Returns
    /// `family` and [`compared`](Self::compared).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an axis or a setting none of the families has, a grid
    /// without a name when several families are compared; [`FamilySpec::from_params`]'s errors.
    pub fn families_from_params(kind: FamilyKind, params: &FamilyParams, compared: &[FamilyKind]) -> Result<(FamilySpec, Vec<FamilySpec>)> {
        if compared.is_empty() {
            return Ok((FamilySpec::from_params(kind, params)?, Vec::new()));
        }
        if params.grid.is_some() {
            return Err(Error::invalid("grid", "NAME=VALUES with several families (which family's axis?)", "a grid without a name"));
        }
        let kinds: Vec<FamilyKind> = std::iter::once(kind).chain(compared.iter().copied()).collect();
        if let Some(axis) = params.axes.iter().find(|a| !kinds.iter().any(|k| k.has_axis(&a.name))) {
            return Err(Error::InvalidParameter {
                name: "grid",
                expected: "an axis of one of the families compared",
                got: format!(
                    "`{}` ({})",
                    axis.name,
                    kinds.iter().map(|k| format!("{} has {}", k.name(), axis_list(*k))).collect::<Vec<_>>().join("; ")
                ),
            });
        }
        params.check_known_by_any(&kinds)?;
        let specs = kinds.into_iter().map(|k| FamilySpec::from_params(k, &params.for_family(k))).collect::<Result<Vec<_>>>()?;
        let mut specs = specs.into_iter();
        let first = specs.next().ok_or_else(|| Error::Internal("no family to compare".into()))?;
        Ok((first, specs.collect()))
    }

    /// Nested CV of `procedures` of `family` with `inner_plan`, task loss, seed 0.
    pub fn new(family: FamilySpec, inner_plan: Plan, procedures: Vec<SelectConfig>) -> Self {
        Self { family, inner_plan, procedures, loss: None, seed: Seed(0), keep_inner_splits: false, compared: Vec::new() }
    }
}

/// One outer split's sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OuterSplit {
    /// Zero-based outer split index j.
    pub split: usize,
    /// |T_j|.
    pub n_train: usize,
    /// |T_jᶜ| (test rows).
    pub n_test: usize,
}

/// One procedure's nested estimate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProcedureRisk {
    /// Label: the method's name, `+1se` for CV with the one-standard-error rule; made unique
    /// with `#2`, `#3`, ... when a procedure is listed twice.
    pub label: String,
    /// The method.
    pub method: Method,
    /// `Σ_j w_j R_j`.
    pub estimate: f64,
    /// `sd_j(R_j)/√J` (`None` with one outer split).
    pub standard_error: Option<f64>,
    /// `R_j` per outer split.
    pub test_risks: Vec<f64>,
    /// Per outer split, the hyperparameter values of the fitted model's members (one value for
    /// CV / EKCV / hold-out, one per inner split for Agghoo and Majhoo).
    pub selected_values: Vec<Vec<f64>>,
    /// The family, when several are compared (the label is then `family:method`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

/// The report of [`nested_cv`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NestedReport {
    /// The family's name.
    pub family: String,
    /// The test loss.
    pub loss: String,
    /// Rows n.
    pub n_rows: usize,
    /// The inner plan, described.
    pub inner_plan: String,
    /// The seed the inner plans and procedures were derived from.
    pub seed: Seed,
    /// Outer split sizes.
    pub outer_splits: Vec<OuterSplit>,
    /// One entry per procedure, in the order given.
    pub procedures: Vec<ProcedureRisk>,
    /// Every pair (a, b) with a listed before b.
    pub comparisons: Vec<PairedComparison>,
    /// Per outer split, the inner splits in data-row indices (when asked for): what the inner
    /// procedures trained and validated on.
    pub inner_splits: Option<Vec<Splits>>,
}

/// What one outer split gives: each procedure's test risk and selected values, and the inner
/// splits in data rows when asked for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OuterOutcome {
    /// Per procedure, in the order given: `(R_j, selected values)`.
    pub procedures: Vec<(f64, Vec<f64>)>,
    /// The inner splits in data-row indices (when asked for and valid as splits).
    pub inner_splits: Option<Splits>,
}

/// Nested CV as a [`Job`]: one unit per outer split, each a pure function of the data, the
/// configuration and the split's global index j (the inner seed is `seed.child(Inner, j)`), so
/// outer splits can run on different machines and assemble to the same report.
#[derive(Clone, Serialize, Deserialize)]
pub struct NestedJob {
    /// The configuration.
    pub config: NestedConfig,
    /// The outer splits.
    pub outer: Splits,
}

impl Job for NestedJob {
    type Outcome = OuterOutcome;
    type Prepared = Loss;
    type Output = NestedReport;

    fn n_units(&self) -> usize {
        self.outer.len()
    }

    fn prepare(&self, data: &Dataset) -> Result<Loss> {
        self.outer.check_rows(data.n_rows())?;
        data.check_learnable()?;
        if self.config.procedures.is_empty() {
            return Err(Error::invalid("methods", "at least one procedure", "none"));
        }
        let loss = self.config.loss.unwrap_or(Loss::default_for(data.task()));
        loss.check_task(data.task())?;
        Ok(loss)
    }

    fn evaluate_unit(&self, loss: &Loss, data: &Dataset, j: usize, inner: &dyn Executor) -> Result<OuterOutcome> {
        let split = self.outer.as_slice().get(j).ok_or_else(|| Error::invalid("unit", "an outer split index", j))?;
        one_outer_split(data, j, split, &self.config, *loss, inner).map_err(|e| Error::OuterSplit { split: j, source: Box::new(e) })
    }

    fn assemble(&self, loss: &Loss, data: &Dataset, outcomes: Vec<OuterOutcome>) -> Result<NestedReport> {
        engine::check_outcome_count(&outcomes, self.outer.len())?;
        assemble(data, &self.outer, &self.config, *loss, outcomes)
    }
}

/// Nested cross-validation of several selection procedures on the same outer splits.
///
/// # Errors
/// [`Error::InvalidParameter`] without procedures; [`Error::SplitsMismatch`] for outer splits of
/// another data set; [`Error::OuterSplit`] naming the outer split whose training rows are too few
/// for the inner plan or the family's grid (the cause in `source`), or whose procedure failed.
pub fn nested_cv(data: &Dataset, outer: &Splits, config: &NestedConfig) -> Result<NestedReport> {
    nested_cv_with(data, outer, config, &Rayon)
}

/// [`nested_cv`] with its outer splits run by `executor` (one unit per outer split; an observer
/// on it sees them and may cancel the run, inner splits included).
///
/// # Errors
/// As [`nested_cv`]; [`Error::Interrupted`] when the observer cancels.
pub fn nested_cv_with(data: &Dataset, outer: &Splits, config: &NestedConfig, executor: &dyn Executor) -> Result<NestedReport> {
    engine::run(&NestedJob { config: config.clone(), outer: outer.clone() }, data, executor)
}

/// The report from every outer split's outcome, in split order.
fn assemble(data: &Dataset, outer: &Splits, config: &NestedConfig, loss: Loss, outcomes: Vec<OuterOutcome>) -> Result<NestedReport> {
    let weights: Vec<f64> = outer.iter().map(|s| s.validation().len() as f64).collect();
    let labels = labels(&config.procedures);
    let families = config.families();
    let several = families.len() > 1;
    let rows = families.iter().flat_map(|spec| config.procedures.iter().enumerate().map(move |(p, procedure)| (spec.kind(), p, procedure)));
    let procedures: Vec<ProcedureRisk> = rows
        .enumerate()
        .map(|(p, (kind, label, procedure))| {
            let test_risks: Vec<f64> = outcomes.iter().map(|o| o.procedures[p].0).collect();
            let (estimate, standard_error) = summarize(&test_risks, Some(&weights));
            ProcedureRisk {
                label: if several { format!("{}:{}", kind.name(), labels[label]) } else { labels[label].clone() },
                method: procedure.method,
                estimate,
                standard_error,
                test_risks,
                selected_values: outcomes.iter().map(|o| o.procedures[p].1.clone()).collect(),
                family: several.then(|| kind.name().to_string()),
            }
        })
        .collect();
    let mut comparisons = Vec::new();
    if outer.len() >= 2 {
        for a in 0..procedures.len() {
            for b in a + 1..procedures.len() {
                let (pa, pb) = (&procedures[a], &procedures[b]);
                comparisons.push(compare_paired(&pa.label, &pa.test_risks, &pb.label, &pb.test_risks, outer)?);
            }
        }
    }
    let inner_splits = config.keep_inner_splits.then(|| outcomes.into_iter().filter_map(|o| o.inner_splits).collect());
    Ok(NestedReport {
        family: families.iter().map(|f| f.kind().name()).collect::<Vec<_>>().join(","),
        loss: loss.name(),
        n_rows: data.n_rows(),
        inner_plan: config.inner_plan.describe(),
        seed: config.seed,
        outer_splits: outer
            .iter()
            .enumerate()
            .map(|(j, s)| OuterSplit { split: j, n_train: s.train().len(), n_test: s.validation().len() })
            .collect(),
        procedures,
        comparisons,
        inner_splits,
    })
}

fn one_outer_split(
    data: &Dataset,
    j: usize,
    split: &Split,
    config: &NestedConfig,
    loss: Loss,
    executor: &dyn Executor,
) -> Result<OuterOutcome> {
    let train = data.select_rows(split.train())?;
    let test = data.select_rows(split.validation())?;
    let seed = config.seed.child(Purpose::Inner, j as u64);
    let inner = config.inner_plan.instantiate(&PlanContext::of(&train), seed)?;
    let families = config.families();
    let mut results = Vec::with_capacity(families.len() * config.procedures.len());
    for spec in &families {
        // Data-dependent defaults on the data as the (first) procedure's fits see it; with several
        // families, each encodes categorical columns its own way.
        let own = |p: crate::data::Preprocess| match (families.len() > 1, p.categorical) {
            (true, Some(c)) => {
                crate::data::Preprocess { categorical: Some(crate::data::CategoryOptions { encoding: spec.encoding(), ..c }), ..p }
            }
            _ => p,
        };
        let preprocess = own(config.procedures.first().map(|p| p.preprocess).unwrap_or_default());
        let family = spec.build_for(&train, &preprocess)?;
        let grid = family.grid();
        for procedure in &config.procedures {
            let procedure = SelectConfig { seed, preprocess: own(procedure.preprocess), ..procedure.clone() };
            let (model, report) = select::select_with(family.as_ref(), &train, &inner, &procedure, executor)?;
            let risk = loss.risk(&model.predict_with(&test, executor)?, &test.all())?;
            if !risk.is_finite() {
                return Err(Error::NonFiniteRisk(format!("test risk of {} is {risk}", procedure.method.name())));
            }
            let values = match report.final_value {
                Some(v) => vec![v],
                None => report.member_grid_indices.iter().map(|&m| family.composite().map_or(grid.value(m), |c| c.path_value(m))).collect(),
            };
            results.push((risk, values));
        }
    }
    let inner_in_rows = if config.keep_inner_splits {
        let to_rows = |positions: &[usize]| positions.iter().map(|&p| split.train()[p]).collect::<Vec<_>>();
        let mapped = inner.iter().map(|s| Split::new(to_rows(s.train()), to_rows(s.validation()))).collect::<Result<Vec<_>>>()?;
        // Training rows may repeat in the outer split (bootstrap), so validation rows may too:
        // keep the mapping only when it is a valid set of splits.
        Splits::new(data.n_rows(), mapped).ok()
    } else {
        None
    };
    Ok(OuterOutcome { procedures: results, inner_splits: inner_in_rows })
}

fn labels(procedures: &[SelectConfig]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(procedures.len());
    for p in procedures {
        let base = format!(
            "{}{}",
            p.method.name(),
            if p.one_standard_error && crate::select::procedure(p.method).uses_one_standard_error() { "+1se" } else { "" }
        );
        let count = out.iter().filter(|l| **l == base || l.starts_with(&format!("{base}#"))).count();
        out.push(if count == 0 { base } else { format!("{base}#{}", count + 1) });
    }
    out
}
