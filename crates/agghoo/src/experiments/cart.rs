//! Experiment 2 (docs/RESULTS.md § 2; classification paper, Section 4, Genuer's problem): Majhoo on
//! cost-complexity-pruned CART vs 10-fold CV, the oracle and random forests.
//!
//! Protocol, per repetition r and per dimension d ∈ [`DIMENSIONS`] (both are run, rows are tagged
//! `d=7` / `d=50` in the method name, so one call gives the paper's two settings):
//! - a sample D of n points and an independent test sample of m points from [`genuer`]
//!   (stream r, the test points are rows `n..n+m` of the same draw);
//! - the family is CART with the α grid of the pruning sequence of the tree grown on D
//!   ([`FamilySpec::build`](crate::family::FamilySpec::build) of the default CART spec on D), the same grid on every training set;
//! - for each τ, `V_max = max V` Monte-Carlo splits of D (training sets of size `⌊τn⌋`,
//!   [`MonteCarlo`]); every V is a prefix of the same splits (as in [`super::knn`]);
//!   Majhoo(τ, V) = majority vote ([`Majhoo`]'s choice) of `A_{α̂_{T_j}}(D_{T_j})`, j ≤ V;
//! - 10-fold CV = `A_{α̂}(D)`, `α̂` the argmin of the 10-fold mean validation 0–1 risk ([`Cv`]'s choice)
//!   (ties → the first grid point, the full tree end of the grid);
//! - the oracle = `min_α ℓ(f*, A_α(D))` over the grid (trees on D, risk on the test points);
//! - random forests with 10 and 500 trees on D (default mtry = ⌊√d⌋), one fit each.
//!
//! Reported metric: the **excess 0–1 risk** `ℓ(f*, f) = R(f) − R(f*)` (add
//! [`BAYES_RISK`] ≈ 0.041 for the risk), estimated by its exact conditional value given the test
//! points, `(1/m) Σ_i |2η(x_i) − 1| · 1{f(x_i) ≠ f*(x_i)}` with η = [`genuer_eta`] and
//! f* = [`genuer_bayes`] (the same choice and reason as [`super::knn`]: label noise integrated
//! out, non-negative by construction).
//!
//! Rejected alternative: a `d` field in [`Config`] (one d per run). It would change the struct
//! every experiment builds; tagging rows by d keeps the framework untouched and costs one more
//! pass per repetition (the trees are cheap; the 500-tree forest dominates).

use super::{Config, ExperimentResult, Row, members_on, predict_split_members, refit_index, repetition_seed};
use crate::Predictions;
use crate::data::generators::{genuer, genuer_bayes, genuer_eta};
use crate::data::{Dataset, View};
use crate::engine::{Executor, Inner, map_ordered};
use crate::error::{Error, Result};
use crate::family::forest::{ForestModel, ForestOptions};
use crate::family::{FamilyKind, FamilySpec, Predictor};
use crate::loss::Loss;
use crate::resample::{MonteCarlo, VFold};
use crate::seed::{Purpose, Seed};
use crate::select::procedure::{Cv, Majhoo};
use crate::select::{ChoiceContext, EvalOptions, Procedure, TieRule, evaluate_splits};

/// The experiment's name in results.
pub const NAME: &str = "cart";
/// The problem's Bayes risk (≈ 0.041, as the paper states).
pub const BAYES_RISK: f64 = 0.041;
/// The dimensions of the paper's two settings (six informative features plus noise features).
pub const DIMENSIONS: [usize; 2] = [7, 50];
/// Folds of the CV baseline.
pub const FOLDS: usize = 10;
/// Tree counts of the two forest baselines.
pub const FOREST_TREES: [usize; 2] = [10, 500];

/// Defaults: n = 500, m = 1000 test points, τ ∈ {0.5, …, 0.9}, V ∈ {1, 10}, seed 1, 100
/// repetitions (`reps` raises it; the 500-tree forests dominate the time).
pub fn default_config() -> Config {
    Config { reps: 100, seed: Seed(1), n: 500, test_size: 1000, taus: vec![0.5, 0.6, 0.7, 0.8, 0.9], vs: vec![1, 10] }
}

/// One repetition's excess risks at one dimension d.
#[derive(Clone, Debug, PartialEq)]
pub struct Repetition {
    /// The dimension d.
    pub d: usize,
    /// Majhoo's excess risk, `[τ index][V index]` (the config's order).
    pub majhoo: Vec<Vec<f64>>,
    /// 10-fold CV's excess risk (α̂ refit on D).
    pub cv: f64,
    /// The oracle's excess risk `min_α ℓ(f*, A_α(D))`.
    pub oracle: f64,
    /// `ℓ(f*, A_α(D))` for every α of the grid.
    pub on_sample: Vec<f64>,
    /// Excess risks of the forests with [`FOREST_TREES`] trees.
    pub forests: Vec<f64>,
}

/// The test points' weights `|2η(x_i) − 1|` and Bayes labels `f*(x_i)`.
struct TestPoints {
    weight: Vec<f64>,
    bayes: Vec<u32>,
}

impl TestPoints {
    fn new(test: &View<'_>) -> Self {
        let (weight, bayes) = (0..test.len()).map(|i| ((2.0 * genuer_eta(test.x(i)) - 1.0).abs(), genuer_bayes(test.x(i)))).unzip();
        Self { weight, bayes }
    }

    /// `(1/m) Σ |2η(x_i) − 1| · 1{f(x_i) ≠ f*(x_i)}`.
    fn excess(&self, predictions: &Predictions) -> Result<f64> {
        let labels = predictions.labels().ok_or_else(|| Error::TaskMismatch("the CART experiment needs class predictions".into()))?;
        let sum: f64 = labels.iter().zip(&self.bayes).zip(&self.weight).filter(|((l, b), _)| l != b).map(|(_, w)| w).sum();
        Ok(sum / self.weight.len().max(1) as f64)
    }
}

/// Runs repetition `r` of the protocol at dimension `d` (see the module docs).
///
/// # Errors
/// [`Error::InvalidParameter`] for d < 6 or a bad split size; fit errors.
pub fn repetition(config: &Config, d: usize, r: u64, executor: &dyn Executor) -> Result<Repetition> {
    let (n, m) = (config.n, config.test_size);
    let data = genuer(n + m, d, config.seed, r)?;
    let sample = data.select_rows(&(0..n).collect::<Vec<_>>())?;
    let test_data: Dataset = data.select_rows(&(n..n + m).collect::<Vec<_>>())?;
    let test = test_data.all();
    let points = TestPoints::new(&test);
    let family = FamilySpec::default_for(FamilyKind::Cart).build(&sample)?;

    let on_sample = family.fit_path(&sample.all())?.predict(&test)?.iter().map(|p| points.excess(p)).collect::<Result<Vec<f64>>>()?;
    let oracle = on_sample.iter().copied().fold(f64::INFINITY, f64::min);

    let seed = repetition_seed(config.seed, r).child(Purpose::Experiment, d as u64);
    let options = EvalOptions { losses: vec![Loss::ZeroOne], tie: TieRule::First, keep_selected_model: true, ..EvalOptions::default() };
    let folds = VFold::new(FOLDS)?.instantiate(n, seed.child(Purpose::Splits, 0))?;
    let fold_outcomes = evaluate_splits(family.as_ref(), &sample, &folds, &options, executor)?;
    let cv = on_sample[refit_index(&Cv.choose(&ChoiceContext::new(family.as_ref(), &fold_outcomes))?)?];

    let v_max = config.vs.iter().copied().max().unwrap_or(1);
    let mut majhoo = Vec::new();
    for &tau in &config.taus {
        let splits = MonteCarlo::new(v_max, tau)?.instantiate(n, seed.child(Purpose::Splits, 1))?;
        let outcomes = evaluate_splits(family.as_ref(), &sample, &splits, &options, executor)?;
        let members = members_on(&outcomes, &test, executor)?;
        majhoo.push(
            config
                .vs
                .iter()
                .map(|&v| {
                    let choice = Majhoo.choose(&ChoiceContext::new(family.as_ref(), &outcomes[..v]))?;
                    points.excess(&predict_split_members(&choice, &outcomes, &members)?)
                })
                .collect::<Result<_>>()?,
        );
    }

    let forests = FOREST_TREES
        .iter()
        .enumerate()
        .map(|(k, &n_trees)| {
            let options = ForestOptions { n_trees, seed: seed.child(Purpose::Learner, k as u64), ..ForestOptions::default() };
            points.excess(&ForestModel::fit(&sample.all(), &options)?.predict(&test)?)
        })
        .collect::<Result<Vec<f64>>>()?;
    Ok(Repetition { d, majhoo, cv, oracle, on_sample, forests })
}

/// Runs the experiment: R repetitions in parallel (each runs both dimensions), then rows of mean
/// excess 0–1 risk ± standard error, per d: Majhoo for every (τ, V), then 10-fold CV, the oracle
/// and the forests (reference lines).
///
/// # Errors
/// [`Config::check`]'s errors; a repetition's errors.
pub fn run(config: &Config, executor: &dyn Executor) -> Result<ExperimentResult> {
    config.check()?;
    let reps = map_ordered(executor, config.reps, |r| {
        DIMENSIONS.iter().map(|&d| repetition(config, d, r as u64, &Inner::new(executor, config.reps))).collect::<Result<Vec<_>>>()
    })?;
    summarize(config, &reps)
}

/// Reduces repetitions (in order; each holds one [`Repetition`] per [`DIMENSIONS`] entry) to rows.
///
/// # Errors
/// [`Error::NonFiniteRisk`] for a non-finite risk.
pub fn summarize(config: &Config, reps: &[Vec<Repetition>]) -> Result<ExperimentResult> {
    let row = |method: String, tau: Option<f64>, v: Option<usize>, values: Vec<f64>| Row::summary(NAME, &method, tau, v, &values, None);
    let mut rows = Vec::new();
    for (k, d) in DIMENSIONS.iter().enumerate() {
        let at = |f: &dyn Fn(&Repetition) -> f64| reps.iter().map(|r| f(&r[k])).collect::<Vec<f64>>();
        for (t, &tau) in config.taus.iter().enumerate() {
            for (i, &v) in config.vs.iter().enumerate() {
                rows.push(row(format!("majhoo d={d}"), Some(tau), Some(v), at(&|r| r.majhoo[t][i]))?);
            }
        }
        rows.push(row(format!("cv {FOLDS}-fold d={d}"), None, None, at(&|r| r.cv))?);
        rows.push(row(format!("oracle d={d}"), None, None, at(&|r| r.oracle))?);
        for (j, trees) in FOREST_TREES.iter().enumerate() {
            rows.push(row(format!("forest {trees} trees d={d}"), None, None, at(&|r| r.forests[j]))?);
        }
    }
    Ok(ExperimentResult::new(NAME, "excess 0-1 risk", config, Some(BAYES_RISK), rows))
}
