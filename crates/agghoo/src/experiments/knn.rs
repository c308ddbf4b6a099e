//! Experiment 1 (docs/RESULTS.md § 1; classification paper, Section 4.1 and the k-NN figure): Majhoo vs
//! Monte-Carlo CV on the k-NN family, over τ and V, with the oracle.
//!
//! Protocol, per repetition r:
//! - a sample D of n points and an independent test sample of m points from
//!   [`knn_problem_stream`] (stream r); `X ~ U([0,1]²)`, `P(Y=1|X) = σ((g(X) − b)/λ)`;
//! - the family is k-NN with odd k: `1, 3, …, ≤ n` on D, `1, 3, …, ≤ ⌊τn⌋` on a training set;
//! - for each τ, `V_max = max V` Monte-Carlo splits of D (training sets drawn independently and
//!   uniformly of size `⌊τn⌋`, [`MonteCarlo`]); split j does not depend on V, so the splits of
//!   V = 10 are the first ten of V = 20 and every V is a prefix of one evaluation. The same
//!   repetition seed is used for every τ (split j's permutation is shared, training sets are
//!   nested across τ: common random numbers make the τ-curves smoother, not biased);
//! - Majhoo(τ, V) = majority vote ([`Majhoo`]'s choice, [`Aggregation::Vote`](crate::select::Aggregation::Vote)) of the first V members
//!   `A_{m̂_{T_j}}(D_{T_j})`; Monte-Carlo CV(τ, V) = `A_{k̂}(D)` with
//!   `k̂ = argmin_k` of the mean validation 0–1 risk of the same V splits ([`Cv`]'s choice; ties → smaller k);
//!   the oracle is `min_k ℓ(f*, A_k(D))`. CV's final predictor and the oracle's candidates are all
//!   the k-NN on D at some k, so ONE k-NN path on D predicting the test points gives both.
//!
//! Reported metric: the **excess 0–1 risk** `ℓ(f*, f) = R(f) − R(f*)`, estimated on the test
//! points by its exact conditional value given them,
//! `(1/m) Σ_i |2η(x_i) − 1| · 1{f(x_i) ≠ f*(x_i)}`, with η = [`knn_eta`] and f* = [`knn_bayes`].
//! It has lower variance than counting errors against drawn test labels (the label noise, which
//! dominates at a Bayes risk of 0.242, is integrated out) and is non-negative by construction.
//! A second oracle row, `oracle-drawn-labels`, estimates each k's excess risk with the drawn
//! test labels instead and takes the minimum: the minimum of ~n/2 noisy estimates is biased
//! low, which is how a protocol that uses drawn labels can report a much smaller oracle.
//!
//! Speed: the test points are appended to the sample in one [`Dataset`] (rows `n..n+m`, their
//! drawn labels unused), and the family shares neighbour lists among the first n rows
//! ([`KnnFamily::sharing_with_first`]): every sample or test point is sorted once per
//! repetition, whatever the number of splits, τ and k.

use super::{Config, ExperimentResult, Row, predict_split_members, refit_index, repetition_seed};
use crate::Predictions;
use crate::data::generators::{knn_bayes, knn_eta, knn_problem_stream};
use crate::data::{Dataset, Task, View};
use crate::engine::{Executor, Inner, map_ordered};
use crate::error::{Error, Result};
use crate::family::Family;
use crate::family::knn::KnnFamily;
use crate::loss::Loss;
use crate::resample::{MonteCarlo, Split, Splits};
use crate::seed::Seed;
use crate::select::procedure::{Cv, Majhoo};
use crate::select::{ChoiceContext, EvalOptions, Procedure, TieRule, evaluate_splits};

/// The experiment's name in results.
pub const NAME: &str = "knn";
/// The problem's Bayes risk (the paper's value, computed by numerical integration).
pub const BAYES_RISK: f64 = 0.242;
/// The paper's oracle excess risk: 0.0034 ± 0.0004 (figure caption, 1000 repetitions).
pub const PAPER_ORACLE: f64 = 0.0034;

/// Defaults: n = 500, m = 1000 test points, τ ∈ {0.1, …, 0.9}, V ∈ {1, 2, 5, 10, 20}, seed 1,
/// and 200 repetitions (the paper uses 1000; pass `reps` for the full protocol).
pub fn default_config() -> Config {
    Config {
        reps: 200,
        seed: Seed(1),
        n: 500,
        test_size: 1000,
        taus: (1..=9).map(|t| f64::from(t) / 10.0).collect(),
        vs: vec![1, 2, 5, 10, 20],
    }
}

/// One repetition's excess risks.
#[derive(Clone, Debug, PartialEq)]
pub struct Repetition {
    /// Majhoo's excess risk, `[τ index][V index]` (the config's order).
    pub majhoo: Vec<Vec<f64>>,
    /// Monte-Carlo CV's excess risk (k̂ refit on D), `[τ index][V index]`.
    pub cv: Vec<Vec<f64>>,
    /// The oracle's excess risk `min_k ℓ(f*, A_k(D))`.
    pub oracle: f64,
    /// `ℓ(f*, A_k(D))` for every odd k ≤ n (the oracle is its minimum, CV picks one entry).
    pub on_sample: Vec<f64>,
    /// Diagnostic: the oracle when each k's excess risk is estimated with the drawn test labels,
    /// `min_k (1/m) Σ_i (1{A_k(D)(x_i) ≠ y_i} − 1{f*(x_i) ≠ y_i})`. Unbiased for each k, but the
    /// minimum over ~n/2 noisy estimates is biased low (and may be negative).
    pub oracle_drawn_labels: f64,
}

/// Odd k from 1 to `max` (at least `[1]`).
fn odd_ks(max: usize) -> Vec<f64> {
    (1..=max.max(1)).step_by(2).map(|k| k as f64).collect()
}

/// The test points' weights `|2η(x_i) − 1|`, Bayes labels `f*(x_i)` and drawn labels `y_i`.
struct TestPoints {
    weight: Vec<f64>,
    bayes: Vec<u32>,
    drawn: Vec<u32>,
}

impl TestPoints {
    fn new(test: &View<'_>) -> Self {
        let (weight, bayes) = (0..test.len())
            .map(|i| {
                let x = test.x(i);
                ((2.0 * knn_eta(x[0], x[1]) - 1.0).abs(), knn_bayes(x[0], x[1]))
            })
            .unzip();
        let drawn = (0..test.len()).map(|i| test.class(i)).collect();
        Self { weight, bayes, drawn }
    }

    /// `(1/m) Σ (1{f(x_i) ≠ y_i} − 1{f*(x_i) ≠ y_i})` with the drawn labels.
    fn excess_drawn(&self, predictions: &Predictions) -> Result<f64> {
        let labels = predictions.labels().ok_or_else(|| Error::TaskMismatch("the k-NN experiment needs class predictions".into()))?;
        let diff: i64 = labels.iter().zip(&self.bayes).zip(&self.drawn).map(|((l, b), y)| i64::from(l != y) - i64::from(b != y)).sum();
        Ok(diff as f64 / self.drawn.len().max(1) as f64)
    }

    /// `(1/m) Σ |2η(x_i) − 1| · 1{f(x_i) ≠ f*(x_i)}`.
    fn excess(&self, predictions: &Predictions) -> Result<f64> {
        let labels = predictions.labels().ok_or_else(|| Error::TaskMismatch("the k-NN experiment needs class predictions".into()))?;
        let sum: f64 = labels.iter().zip(&self.bayes).zip(&self.weight).filter(|((l, b), _)| l != b).map(|(_, w)| w).sum();
        Ok(sum / self.weight.len().max(1) as f64)
    }
}

/// Runs repetition `r` of the protocol (see the module docs).
///
/// # Errors
/// [`Error::TooFewRows`] when `⌊τn⌋` is 0 or n; [`Error::InvalidParameter`] for a bad config.
pub fn repetition(config: &Config, r: u64, executor: &dyn Executor) -> Result<Repetition> {
    let (n, m) = (config.n, config.test_size);
    let data: Dataset = knn_problem_stream(n + m, config.seed, r)?;
    let sample: Vec<usize> = (0..n).collect();
    let test_rows: Vec<usize> = (n..n + m).collect();
    let test = data.view(&test_rows);
    let points = TestPoints::new(&test);
    let base = KnnFamily::new(odd_ks(n), Task::Classification, 2)?.sharing_with_first(&data, n);

    let path_on_sample = base.fit_path(&data.view(&sample))?.predict(&test)?;
    let on_sample = path_on_sample.iter().map(|p| points.excess(p)).collect::<Result<Vec<f64>>>()?;
    let oracle = on_sample.iter().copied().fold(f64::INFINITY, f64::min);
    let oracle_drawn_labels =
        path_on_sample.iter().map(|p| points.excess_drawn(p)).collect::<Result<Vec<f64>>>()?.into_iter().fold(f64::INFINITY, f64::min);

    let v_max = config.vs.iter().copied().max().unwrap_or(1);
    let split_seed = repetition_seed(config.seed, r);
    let options = EvalOptions { losses: vec![Loss::ZeroOne], tie: TieRule::First, ..EvalOptions::default() };
    let (mut majhoo, mut cv) = (Vec::new(), Vec::new());
    for &tau in &config.taus {
        let on_n = MonteCarlo::new(v_max, tau)?.instantiate(n, split_seed)?;
        // The same splits, over the data set that also holds the test rows (never used by a split).
        let splits =
            Splits::new(n + m, on_n.iter().map(|s| Split::new(s.train().to_vec(), s.validation().to_vec())).collect::<Result<_>>()?)?;
        let family = base.with_grid(odd_ks(on_n.min_train_size()))?;
        let outcomes = evaluate_splits(&family, &data, &splits, &options, executor)?;
        let members: Vec<Predictions> = map_ordered(executor, outcomes.len(), |j| {
            let single = base.with_grid(vec![family.grid().value(outcomes[j].selected)])?;
            let mut path = single.fit_path(&data.view(splits.as_slice()[j].train()))?.predict(&test)?;
            path.pop().ok_or_else(|| Error::Internal("empty k-NN path".into()))
        })?;
        let (mut maj_tau, mut cv_tau) = (Vec::new(), Vec::new());
        for &v in &config.vs {
            // The procedures' choices from the first V outcomes (first-minimiser ties, the vote).
            let ctx = ChoiceContext::new(&family, &outcomes[..v]);
            maj_tau.push(points.excess(&predict_split_members(&Majhoo.choose(&ctx)?, &outcomes, &members)?)?);
            // The τ grid is a prefix of the grid on D: index k̂ reads A_k̂(D) directly.
            cv_tau.push(on_sample[refit_index(&Cv.choose(&ctx)?)?]);
        }
        majhoo.push(maj_tau);
        cv.push(cv_tau);
    }
    Ok(Repetition { majhoo, cv, oracle, on_sample, oracle_drawn_labels })
}

/// Runs the experiment: R repetitions (the units of `executor`), then rows (Majhoo and CV for every (τ, V),
/// then the oracle and its drawn-label diagnostic) of mean excess 0–1 risk ± standard error.
///
/// # Errors
/// [`Config::check`]'s errors; a repetition's errors.
pub fn run(config: &Config, executor: &dyn Executor) -> Result<ExperimentResult> {
    config.check()?;
    let reps = map_ordered(executor, config.reps, |r| repetition(config, r as u64, &Inner::new(executor, config.reps)))?;
    summarize(config, &reps)
}

/// Reduces repetitions (in order) to rows.
///
/// # Errors
/// [`Error::NonFiniteRisk`] for a non-finite risk.
pub fn summarize(config: &Config, reps: &[Repetition]) -> Result<ExperimentResult> {
    let row = |method: &str, tau: Option<f64>, v: Option<usize>, values: Vec<f64>, paper: Option<f64>| {
        Row::summary(NAME, method, tau, v, &values, paper)
    };
    let mut rows = Vec::new();
    for (t, &tau) in config.taus.iter().enumerate() {
        for (i, &v) in config.vs.iter().enumerate() {
            rows.push(row("majhoo", Some(tau), Some(v), reps.iter().map(|r| r.majhoo[t][i]).collect(), None)?);
            rows.push(row("cv", Some(tau), Some(v), reps.iter().map(|r| r.cv[t][i]).collect(), None)?);
        }
    }
    rows.push(row("oracle", None, None, reps.iter().map(|r| r.oracle).collect(), Some(PAPER_ORACLE))?);
    rows.push(row("oracle-drawn-labels", None, None, reps.iter().map(|r| r.oracle_drawn_labels).collect(), Some(PAPER_ORACLE))?);
    Ok(ExperimentResult::new(NAME, "excess 0-1 risk", config, Some(BAYES_RISK), rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excess_risk_by_hand() {
        // Two points: η = 0.9 (f* = 1) and η = 0.5-ish; predicting all 0 costs |2η−1| on each f* = 1 point.
        let d = Dataset::new(
            vec![0.9, 0.9, 0.05, 0.05],
            vec!["u".into(), "v".into()],
            crate::data::Target::Classes { labels: vec![0, 0], names: vec!["0".into(), "1".into()] },
            "y",
        )
        .unwrap();
        let points = TestPoints::new(&d.all());
        let (e0, e1) = (knn_eta(0.9, 0.9), knn_eta(0.05, 0.05));
        assert_eq!(points.bayes, [1, 0]);
        let zeros = Predictions::classes(vec![0, 0], 2);
        assert!((points.excess(&zeros).unwrap() - (2.0 * e0 - 1.0) / 2.0).abs() < 1e-15);
        let bayes = Predictions::classes(vec![1, 0], 2);
        assert_eq!(points.excess(&bayes).unwrap(), 0.0);
        let ones = Predictions::classes(vec![1, 1], 2);
        assert!((points.excess(&ones).unwrap() - (1.0 - 2.0 * e1) / 2.0).abs() < 1e-15);
    }

    #[test]
    fn odd_grid() {
        assert_eq!(odd_ks(7), [1.0, 3.0, 5.0, 7.0]);
        assert_eq!(odd_ks(6), [1.0, 3.0, 5.0]);
        assert_eq!(odd_ks(0), [1.0]);
    }
}
