//! Experiment 3 (docs/RESULTS.md § 3): the classification paper's Table 1 on the Breast Cancer Wisconsin data.
//!
//! Protocol, per repetition r (data drawn from stream r, so any repetition is reproducible
//! alone): a uniform split of the 699 rows into 500 training and 199 test rows; the 16 missing
//! `bare_nuclei` values imputed by the medians of the 500 training rows (the paper does not say
//! how it handled them; imputing inside the training sample keeps the test rows out of it); then
//! on the 500 rows, with the CART family whose grid is the cost-complexity pruning sequence of the
//! 500-row sample:
//! - **10-fold CV**: `α̂ = argmin CV(α)`, the tree pruned at α̂ refitted on the 500 rows;
//! - **Agghoo** (Majhoo, V = 10, τ = 0.8): majority vote of the 10 hold-out-selected trees;
//! - **oracle**: `min_α` test risk of the tree grown on the 500 rows and pruned at α;
//! - **random forests** with 10 and 500 trees (mtry = ⌊√d⌋ = 3, bootstrap, Gini).
//!
//! Reported: the 0–1 test risk in percent, mean ± standard error over repetitions, next to the
//! paper's numbers. The paper reports d = 10 (it apparently counted the `id` column as a
//! feature); we use the 9 cytological features.

use super::{Config, ExperimentResult, Row, repetition_seed};
use crate::data::{Dataset, MissingPolicy, Preprocess, bundled};
use crate::engine::{Executor, Inner, map_ordered};
use crate::error::Result;
use crate::family::forest::ForestConfig;
use crate::family::{FamilyKind, FamilySpec, GridSpec, Predictor};
use crate::loss::Loss;
use crate::resample::{MonteCarlo, VFold};
use crate::seed::{Purpose, Seed};
use crate::select::{self, Method, SelectConfig};

/// The experiment's name.
pub const NAME: &str = "breast-cancer";

/// Training-sample size of the paper's protocol (the rest, 199 rows, is the test sample).
pub const TRAIN_SIZE: usize = 500;

/// The paper's Table 1, 0–1 test risk in %: (method, mean, standard error).
pub const PAPER: [(&str, f64, f64); 5] = [
    ("10-fold CV", 6.66, 0.06),
    ("Agghoo (V = 10, τ = 0.8)", 5.36, 0.05),
    ("oracle", 5.08, 0.04),
    ("random forest, 10 trees", 3.68, 0.04),
    ("random forest, 500 trees", 3.01, 0.03),
];

/// The defaults: the paper's 1000 repetitions (about a minute on 2 cores).
pub fn default_config() -> Config {
    Config { reps: 1000, seed: Seed(1), n: TRAIN_SIZE, test_size: 199, taus: vec![0.8], vs: vec![10] }
}

/// Test risks (in %) of one repetition, in the order of [`PAPER`].
pub fn repetition(config: &Config, r: u64, executor: &dyn Executor) -> Result<[f64; 5]> {
    let all = bundled::breast_cancer(MissingPolicy::Median)?;
    let seed = repetition_seed(config.seed, r);
    let split = MonteCarlo::new(1, config.n as f64 / all.n_rows() as f64)?.instantiate(all.n_rows(), seed.child(Purpose::Data, 0))?;
    let split = &split.as_slice()[0];
    let impute = Preprocess { impute_median: true, ..Preprocess::default() }.fit(&all.view(split.train()));
    let train = impute.apply(&all.view(split.train()))?;
    let test = impute.apply(&all.view(split.validation()))?;
    let risk = |p: &crate::Predictions| Loss::ZeroOne.risk(p, &test.all()).map(|x| 100.0 * x);
    let cart = FamilySpec::default_for(FamilyKind::Cart).build(&train)?;
    let n = train.n_rows();
    let vfold = VFold::new(10)?.instantiate(n, seed.child(Purpose::Splits, 0))?;
    let (cv, _) = select::select_with(cart.as_ref(), &train, &vfold, &SelectConfig::new(Method::Cv), executor)?;
    let mc = MonteCarlo::new(config.vs[0], config.taus[0])?.instantiate(n, seed.child(Purpose::Splits, 1))?;
    let (agghoo, _) = select::select_with(cart.as_ref(), &train, &mc, &SelectConfig::new(Method::Majhoo), executor)?;
    let path = cart.fit_path(&train.all())?.predict(&test.all())?;
    let oracle = path.iter().map(risk).collect::<Result<Vec<f64>>>()?.into_iter().fold(f64::INFINITY, f64::min);
    let forest = |trees: usize| -> Result<f64> {
        let config = ForestConfig {
            trees,
            seed: seed.child(Purpose::Learner, 0).0,
            grid: Some(GridSpec::Values(vec![3.0])),
            ..ForestConfig::default()
        };
        let fam = FamilySpec::Forest(config).build(&train)?;
        risk(&fam.fit(&train.all(), 0)?.predict(&test.all())?)
    };
    Ok([risk(&cv.predict(&test)?)?, risk(&agghoo.predict(&test)?)?, oracle, forest(10)?, forest(500)?])
}

/// Runs the protocol.
///
/// # Errors
/// Invalid configurations; fit errors (none expected on this data).
pub fn run(config: &Config, executor: &dyn Executor) -> Result<ExperimentResult> {
    config.check()?;
    let reps = map_ordered(executor, config.reps, |r| repetition(config, r as u64, &Inner::new(executor, config.reps)))?;
    let rows = PAPER
        .iter()
        .enumerate()
        .map(|(j, &(method, paper, _))| {
            let values: Vec<f64> = reps.iter().map(|r| r[j]).collect();
            Row::summary(NAME, method, None, None, &values, Some(paper))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ExperimentResult::new(NAME, "0–1 test risk (%)", config, None, rows))
}

/// The data set the experiment reads (for tests and documentation).
pub fn data() -> Result<Dataset> {
    bundled::breast_cancer(MissingPolicy::Median)
}
