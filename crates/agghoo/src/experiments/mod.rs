//! The papers' numerical studies (docs/RESULTS.md), rerun end to end.
//!
//! Each experiment is one small module that turns a [`Config`] into [`ExperimentResult`]: rows
//! of (method, τ, V, mean risk, standard error over repetitions, the paper's number where it
//! prints one). Everything around it is shared: repetitions are the units of an
//! [`Executor`](crate::engine::Executor) (parallel, ordered, observed),
//! [`mean_and_se`], the result types (serde, so the CLI writes them as JSON and draws them
//! without knowing the experiment). The CLI's table and plot read only [`Row`]s: a row with a τ
//! is a point of a curve "risk vs τ" identified by (method, V); a row without τ is a horizontal
//! reference line (the oracle).
//!
//! Determinism: repetition r draws its data from stream r of [`Purpose::Data`] and its splits
//! from [`Seed::child`]`(Purpose::Experiment, r)`, repetitions are collected in order and reduced
//! serially, so results are bit-identical for any thread count. The rejected alternative, one
//! random generator advanced by repetitions in turn, ties the results to the schedule.
//!
//! Experiments: [`knn`] (experiment 1 of docs/RESULTS.md), [`cart`] (2), [`breast_cancer`] (3), [`svr`] (4),
//! [`treecv`] (5: its rows also carry times and passes, and k in `v`).

pub mod breast_cancer;
pub mod cart;
pub mod knn;
pub mod study;
pub mod svr;
pub mod treecv;

use serde::{Deserialize, Serialize};

use crate::engine::{Executor, Rayon, map_ordered};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

/// An experiment that `agghoo reproduce` can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Experiment {
    /// k-NN classification, Majhoo vs Monte-Carlo CV over τ and V (docs/RESULTS.md § 1).
    Knn,
    /// The Breast Cancer Wisconsin table: CV, Agghoo, oracle, random forests (docs/RESULTS.md § 3).
    BreastCancer,
    /// Pruned CART on Genuer's problem: Majhoo vs 10-fold CV, oracle, forests (docs/RESULTS.md § 2).
    Cart,
    /// Gaussian ε-SVR: Agghoo vs Monte-Carlo CV over τ and V (docs/RESULTS.md § 4).
    Svr,
    /// The ε-SVR protocol under each reading of its three open points (docs/RESULTS.md § 4).
    SvrReadings,
    /// TreeCV vs standard CV: time and estimate vs k (docs/RESULTS.md § 5).
    Treecv,
}

impl Experiment {
    /// Every experiment, in the order of docs/RESULTS.md.
    pub const ALL: [Experiment; 6] =
        [Experiment::Knn, Experiment::Cart, Experiment::BreastCancer, Experiment::Svr, Experiment::SvrReadings, Experiment::Treecv];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Experiment::Knn => "knn",
            Experiment::BreastCancer => breast_cancer::NAME,
            Experiment::Cart => "cart",
            Experiment::Svr => "svr",
            Experiment::SvrReadings => svr::READINGS_NAME,
            Experiment::Treecv => "treecv",
        }
    }

    /// The experiment named `name`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the known experiments.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name).ok_or_else(|| Error::InvalidParameter {
            name: "experiment",
            expected: "one of: knn, cart, breast-cancer, svr, svr-readings, treecv",
            got: name.to_string(),
        })
    }

    /// The experiment's default configuration (sized to finish in a minute or two on 2 cores).
    pub fn default_config(self) -> Config {
        match self {
            Experiment::Knn => knn::default_config(),
            Experiment::BreastCancer => breast_cancer::default_config(),
            Experiment::Cart => cart::default_config(),
            Experiment::Svr => svr::default_config(),
            Experiment::SvrReadings => svr::readings_config(),
            Experiment::Treecv => treecv::default_config(),
        }
    }

    /// Runs the experiment on the library's default executor ([`Rayon`]).
    ///
    /// # Errors
    /// The experiment's errors (bad sizes or grids in `config`).
    pub fn run(self, config: &Config) -> Result<ExperimentResult> {
        self.run_with(config, &Rayon)
    }

    /// Runs the experiment with its repetitions as the units of `executor` (an observer on it
    /// hears of each repetition and may cancel the run).
    ///
    /// # Errors
    /// As [`run`](Self::run); [`Error::Interrupted`] when the observer cancels.
    pub fn run_with(self, config: &Config, executor: &dyn Executor) -> Result<ExperimentResult> {
        match self {
            Experiment::Knn => knn::run(config, executor),
            Experiment::BreastCancer => breast_cancer::run(config, executor),
            Experiment::Cart => cart::run(config, executor),
            Experiment::Svr => svr::run(config, executor),
            Experiment::SvrReadings => svr::run_readings(config, executor),
            Experiment::Treecv => treecv::run(config, executor),
        }
    }
}

/// The parameters shared by the experiments; each experiment documents which it reads.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Config {
    /// Number of independent repetitions R (samples of size n).
    pub reps: usize,
    /// The seed every random choice flows from.
    pub seed: Seed,
    /// Sample size n.
    pub n: usize,
    /// Size m of each repetition's independent test sample.
    pub test_size: usize,
    /// Training fractions τ.
    pub taus: Vec<f64>,
    /// Numbers of splits V.
    pub vs: Vec<usize>,
}

impl Config {
    /// Checks the fields every experiment needs: R ≥ 2 (a standard error needs two), n ≥ 2,
    /// m ≥ 1, τ ∈ (0, 1), V ≥ 1. Sizes are bounded where they are used: R here
    /// ([`Count::Repetitions`](crate::limits::Count::Repetitions)), n and m by the generators'
    /// memory check, V by the plans' split limit.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the field; [`Error::ResourceLimit`] for R beyond its limit.
    pub fn check(&self) -> Result<()> {
        if self.reps < 2 {
            return Err(Error::invalid("reps", "at least 2", self.reps));
        }
        crate::limits::check_count(crate::limits::Count::Repetitions, self.reps as u128, "the experiment")?;
        if self.n < 2 {
            return Err(Error::invalid("n", "at least 2", self.n));
        }
        if self.test_size == 0 {
            return Err(Error::invalid("test_size", "at least 1", self.test_size));
        }
        if let Some(t) = self.taus.iter().find(|t| !(**t > 0.0 && **t < 1.0)) {
            return Err(Error::invalid("tau", "in (0, 1)", t));
        }
        if self.taus.is_empty() {
            return Err(Error::invalid("tau", "at least one value", "none"));
        }
        if self.vs.is_empty() || self.vs.contains(&0) {
            return Err(Error::invalid("V", "values of at least 1", format!("{:?}", self.vs)));
        }
        Ok(())
    }
}

/// One line of a result table: a method's mean risk over the repetitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The experiment's name.
    pub experiment: String,
    /// The method ("majhoo", "cv", "oracle", ...).
    pub method: String,
    /// Training fraction τ, when the method has one.
    pub tau: Option<f64>,
    /// Number of splits V, when the method has one.
    pub v: Option<usize>,
    /// Mean risk over the repetitions.
    pub mean: f64,
    /// Standard error of the mean, `sd / √R`.
    pub standard_error: f64,
    /// The paper's number for this line, when it prints one.
    pub paper: Option<f64>,
    /// Median wall seconds over the repetitions, for experiments that time their methods (treecv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Median CPU seconds (all threads) over the repetitions, where measured (treecv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// Training passes over the data (point-updates / n), where counted (treecv).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes: Option<f64>,
}

/// An experiment's outcome: its rows and what they measure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExperimentResult {
    /// The experiment's name.
    pub experiment: String,
    /// What `mean` measures (e.g. "excess 0-1 risk").
    pub metric: String,
    /// Repetitions R.
    pub reps: usize,
    /// Seed.
    pub seed: Seed,
    /// Sample size n.
    pub n: usize,
    /// Test-sample size m.
    pub test_size: usize,
    /// The Bayes risk of the problem, when known (the metric is then an excess risk over it).
    pub bayes_risk: Option<f64>,
    /// The result rows.
    pub rows: Vec<Row>,
}

impl Row {
    /// The summary row of one method at one (τ, V): mean ± standard error of `values` over the
    /// repetitions (times and passes empty).
    ///
    /// # Errors
    /// As [`mean_and_se`].
    pub fn summary(experiment: &str, method: &str, tau: Option<f64>, v: Option<usize>, values: &[f64], paper: Option<f64>) -> Result<Row> {
        let (mean, standard_error) = mean_and_se(values)?;
        Ok(Row {
            experiment: experiment.into(),
            method: method.into(),
            tau,
            v,
            mean,
            standard_error,
            paper,
            seconds: None,
            cpu_seconds: None,
            passes: None,
        })
    }
}

impl ExperimentResult {
    /// A result with the configuration's repetitions, seed and sizes.
    pub fn new(experiment: &str, metric: &str, config: &Config, bayes_risk: Option<f64>, rows: Vec<Row>) -> Self {
        Self {
            experiment: experiment.into(),
            metric: metric.into(),
            reps: config.reps,
            seed: config.seed,
            n: config.n,
            test_size: config.test_size,
            bayes_risk,
            rows,
        }
    }
}

/// The selected member of every split (kept by `evaluate_splits` with `keep_selected_model`)
/// predicting `test`, in split order (one unit of `executor` per split).
///
/// # Errors
/// A split without a kept model; prediction errors.
pub(crate) fn members_on(
    outcomes: &[crate::select::SplitOutcome],
    test: &crate::data::View<'_>,
    executor: &dyn Executor,
) -> Result<Vec<crate::Predictions>> {
    use crate::family::Predictor;
    map_ordered(executor, outcomes.len(), |j| {
        outcomes[j].model.as_ref().ok_or_else(|| Error::Internal("a split kept no model".into()))?.predict(test)
    })
}

/// The test predictions of a procedure's choice whose members are split models (Agghoo, Majhoo),
/// read from `predictions[j]`, split j's selected model predicting the test rows, and combined as
/// the choice says (the vote's tie rule reads the members' validation risks).
///
/// # Errors
/// A member that is not a split's selected model; the aggregation's errors.
pub(crate) fn predict_split_members(
    choice: &crate::select::Choice,
    outcomes: &[crate::select::SplitOutcome],
    predictions: &[crate::Predictions],
) -> Result<crate::Predictions> {
    use crate::select::MemberChoice;
    let members = choice
        .members
        .iter()
        .map(|member| match *member {
            MemberChoice::FromSplit { split, grid_index } if outcomes.get(split).is_some_and(|o| o.selected == grid_index) => {
                predictions.get(split).cloned().ok_or_else(|| Error::Internal(format!("split {split} has no member predictions")))
            }
            _ => Err(Error::Internal(format!("member {member:?} is not a split's selected model"))),
        })
        .collect::<Result<Vec<_>>>()?;
    let risks: Vec<f64> = choice.members.iter().map(|m| m.validation_risk(outcomes).unwrap_or(0.0)).collect();
    crate::select::aggregate(&members, &risks, choice.aggregation)
}

/// The grid point of a one-member choice refitted on the whole sample (CV's `m̂`): the index
/// into the sample's path.
///
/// # Errors
/// Another choice.
pub(crate) fn refit_index(choice: &crate::select::Choice) -> Result<usize> {
    match choice.members.as_slice() {
        [crate::select::MemberChoice::Refit { grid_index, .. }] => Ok(*grid_index),
        members => Err(Error::Internal(format!("expected one refit, got {members:?}"))),
    }
}

/// Repetition r's seed for splits and learners (its data come from stream r of the user seed).
pub fn repetition_seed(seed: Seed, r: u64) -> Seed {
    seed.child(Purpose::Experiment, r)
}

/// Mean and standard error of the mean (`sd / √R`, sd with R − 1) of `values`.
///
/// # Errors
/// [`Error::NonFiniteRisk`] when a value is not finite (no NaN reaches a table silently);
/// [`Error::InvalidParameter`] for fewer than two values.
pub fn mean_and_se(values: &[f64]) -> Result<(f64, f64)> {
    if values.len() < 2 {
        return Err(Error::invalid("reps", "at least 2 values for a standard error", values.len()));
    }
    if let Some(v) = values.iter().find(|v| !v.is_finite()) {
        return Err(Error::NonFiniteRisk(format!("a repetition's risk is {v}")));
    }
    let (mean, se) = crate::engine::summarize(values, None);
    Ok((mean, se.unwrap_or(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The experiments' CV and Agghoo / Majhoo results, now read from the procedures' choices,
    /// equal bit for bit the computations they replaced (kept here): the argmin of the CV curve of
    /// the first V outcomes, and the aggregate of the first V split members with their risks — on
    /// the k-NN (vote), CART (vote) and ε-SVR (mean) experiments' families and problems.
    #[test]
    fn procedure_choices_equal_the_former_computations() {
        use crate::data::generators::{SvrNoise, genuer, knn_problem, svr_problem_with};
        use crate::family::{self, FamilyKind, FamilyParams, GridSpec};
        use crate::loss::Loss;
        use crate::resample::MonteCarlo;
        use crate::select::procedure::{Agghoo, Cv, Majhoo};
        use crate::select::{Aggregation, ChoiceContext, EvalOptions, Procedure, TieRule, aggregate, argmin, cv_curve, evaluate_splits};

        let svr_params =
            FamilyParams::with_grid(GridSpec::Values(svr::c_grid())).set("grid", "C").set("gamma", svr::GAMMA).set("epsilon", svr::EPSILON);
        let cases: Vec<(crate::data::Dataset, FamilyKind, FamilyParams, Loss, &dyn Procedure, Aggregation)> = vec![
            (
                knn_problem(120, Seed(3)).unwrap(),
                FamilyKind::Knn,
                FamilyParams::with_grid(GridSpec::parse("1:29:2").unwrap()),
                Loss::ZeroOne,
                &Majhoo,
                Aggregation::Vote,
            ),
            (genuer(120, 7, Seed(1), 0).unwrap(), FamilyKind::Cart, FamilyParams::default(), Loss::ZeroOne, &Majhoo, Aggregation::Vote),
            (
                svr_problem_with(120, Seed(1), 0, SvrNoise::VARIANCES).unwrap(),
                FamilyKind::Svr,
                svr_params,
                Loss::Absolute,
                &Agghoo,
                Aggregation::Mean,
            ),
        ];
        for (data, kind, params, loss, procedure, aggregation) in cases {
            let family = family::build(kind, &params, &data).unwrap();
            let splits = MonteCarlo::new(6, 0.7).unwrap().instantiate(data.n_rows(), Seed(5)).unwrap();
            let options = EvalOptions { losses: vec![loss], tie: TieRule::First, keep_selected_model: true, ..EvalOptions::default() };
            let outcomes = evaluate_splits(family.as_ref(), &data, &splits, &options, &Rayon).unwrap();
            let members = members_on(&outcomes, &data.all(), &Rayon).unwrap();
            let member_risks: Vec<f64> = outcomes.iter().map(|o| o.risks[0][o.selected]).collect();
            for v in 1..=outcomes.len() {
                let ctx = ChoiceContext::new(family.as_ref(), &outcomes[..v]);
                let former_cv = argmin(&cv_curve(&outcomes[..v]).mean, TieRule::First).unwrap();
                assert_eq!(refit_index(&Cv.choose(&ctx).unwrap()).unwrap(), former_cv, "{kind:?} V = {v}");
                let former = aggregate(&members[..v], &member_risks[..v], aggregation).unwrap();
                let choice = procedure.choose(&ctx).unwrap();
                assert_eq!(choice.aggregation, aggregation);
                assert_eq!(predict_split_members(&choice, &outcomes, &members).unwrap(), former, "{kind:?} V = {v}");
            }
        }
    }

    #[test]
    fn mean_and_se_by_hand() {
        // values 1, 2, 3: mean 2, sd 1, se 1/√3
        let (m, se) = mean_and_se(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(m, 2.0);
        assert!((se - 1.0 / 3f64.sqrt()).abs() < 1e-15);
        assert!(mean_and_se(&[1.0]).is_err());
        assert!(matches!(mean_and_se(&[1.0, f64::NAN]), Err(Error::NonFiniteRisk(_))));
    }

    #[test]
    fn experiment_names_parse() {
        assert!(Experiment::parse("nope").is_err());
        assert_eq!(Experiment::parse("knn").unwrap(), Experiment::Knn);
    }
}
