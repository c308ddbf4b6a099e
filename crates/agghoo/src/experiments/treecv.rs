//! Experiment 5 (docs/RESULTS.md § 5; TreeCV paper, Section 5, Table 2 and Figure 2): time vs k and CV estimate
//! vs k of TreeCV and the standard k-fold method, fixed and randomised order, for PEGASOS on
//! Covertype-shaped data and LSQ-SGD on MSD-shaped data.
//!
//! Protocol:
//! - the two data sets are drawn **once** from the user seed ([`covertype_like`]`(n, seed)`,
//!   [`msd_like`]`(n, seed)`), as in the paper, which has one fixed data set each; what varies
//!   between repetitions is the partition and the order, which is what the paper's "variance of
//!   the estimate" is about. Learners: [`Pegasos::new`]`(1e-6)` (0–1 loss, last iterate) and
//!   [`LsqSgd::paper`] (squared loss, averaged iterate);
//! - k ranges over `config.vs` (values above n dropped) plus k = n (leave-one-out, always);
//! - repetition r shuffles the rows into k chunks with [`repetition_seed`]`(seed, r)` (the same
//!   chunks for the four runs of one (data set, k), so the methods are compared on paired
//!   partitions) and draws the randomised order from a child of it;
//! - for each (data set, k): TreeCV and the standard method, each with the fixed and the
//!   randomised order ([`crate::treecv::run`], `parallel = true`, so both use every thread). The
//!   standard method costs `n (k − 1)` point-updates and is **skipped** where `k · n` exceeds a cap
//!   ([`STANDARD_CAP`] by default, [`run_with_cap`] to change it): its rows are then absent.
//!
//! Reported per (data set, method, order, k), one [`Row`] with `method =
//! "<data set>/<tree|standard>-<fixed|randomised>"`, **`v = k`** (k-fold CV *is* V-fold CV: the
//! existing column reads cleanly, no new field for it), `mean ± standard_error` = the CV estimate
//! over repetitions, `seconds` / `cpu_seconds` = the **median** wall and CPU time over
//! repetitions, `passes` = point-updates / n (deterministic).
//!
//! Reproducibility: the estimates and passes are bit-identical for any thread count (TreeCV
//! reduces its leaves serially); the **times are not** — they are measurements, and this is the
//! one experiment whose numbers change from run to run. To keep them clean, repetitions run one
//! after the other (each run is parallel inside) rather than side by side as in
//! the other experiments' repetitions, which would make concurrent runs slow each other down. CPU time
//! (every thread of the process, Linux `schedstat`) is reported beside the wall time because a
//! shared machine inflates the wall time but hardly the CPU time.

use std::time::Instant;

use super::{Config, ExperimentResult, Row, mean_and_se, repetition_seed};
use crate::data::Dataset;
use crate::data::generators::{covertype_like, msd_like};
use crate::engine::{Executor, Observed, Sequential, map_ordered};
use crate::error::{Error, Result};
use crate::incremental::{Incremental, LsqSgd, Pegasos};
use crate::seed::{Purpose, Seed};
use crate::treecv::{self, ChunkedData, Method, Order, TreeCvConfig};

/// The experiment's name in results.
pub const NAME: &str = "treecv";
/// Default cap on the standard method's cost: it is skipped where `k · n` exceeds this many
/// point-updates (at the default n = 100,000: k ≤ 100 runs, k ∈ {1000, n} is skipped).
pub const STANDARD_CAP: u64 = 10_000_000;
/// PEGASOS's λ on Covertype (the paper's, after Shalev-Shwartz et al.).
pub const PEGASOS_LAMBDA: f64 = 1e-6;
/// The two data sets, in row order.
pub const DATASETS: [&str; 2] = ["covertype", "msd"];
/// The methods, in row order (with [`ORDERS`]).
pub const METHODS: [Method; 2] = [Method::Tree, Method::Standard];
/// The orders, in row order.
pub const ORDERS: [Order; 2] = [Order::Fixed, Order::Randomised];

/// Defaults: n = 100,000 (`n = 581012` is the paper's Covertype size), 3 repetitions, seed 1,
/// k ∈ {2, 5, 10, 20, 50, 100, 1000} plus k = n. `taus` and `test_size` are unused.
pub fn default_config() -> Config {
    Config { reps: 3, seed: Seed(1), n: 100_000, test_size: 0, taus: Vec::new(), vs: vec![2, 5, 10, 20, 50, 100, 1000] }
}

/// The row label of (data set, method, order), e.g. `covertype/tree-fixed`.
pub fn label(dataset: &str, method: Method, order: Order) -> String {
    let m = match method {
        Method::Tree => "tree",
        Method::Standard => "standard",
    };
    let o = match order {
        Order::Fixed => "fixed",
        Order::Randomised => "randomised",
    };
    format!("{dataset}/{m}-{o}")
}

/// The k values run: `config.vs` without values above n, sorted, deduplicated, plus n.
///
/// # Errors
/// [`Error::InvalidParameter`] for a k below 2.
pub fn folds(config: &Config) -> Result<Vec<usize>> {
    if let Some(k) = config.vs.iter().find(|&&k| k < 2) {
        return Err(Error::invalid("k", "folds of at least 2", k));
    }
    let mut ks: Vec<usize> = config.vs.iter().copied().filter(|&k| k <= config.n).chain([config.n]).collect();
    ks.sort_unstable();
    ks.dedup();
    Ok(ks)
}

/// One run's outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measurement {
    /// The CV estimate.
    pub estimate: f64,
    /// Point-updates performed.
    pub point_updates: u64,
    /// Wall seconds (excluding the chunking, shared by the four runs).
    pub wall_seconds: f64,
    /// CPU seconds of every thread of the process during the run, where the OS reports them.
    pub cpu_seconds: Option<f64>,
}

/// CPU time of every thread of this process so far (Linux `/proc/self/task/*/schedstat`, in
/// seconds); `None` where unavailable. Rayon's worker threads live as long as the pool, so the
/// difference of two readings is the CPU time spent in between.
pub fn process_cpu_seconds() -> Option<f64> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    let ns: f64 = tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
        .sum();
    Some(ns / 1e9)
}

fn measure<L: Incremental>(learner: &L, chunks: &ChunkedData, config: &TreeCvConfig) -> Result<Measurement> {
    let cpu0 = process_cpu_seconds();
    let start = Instant::now();
    let report = treecv::run(learner, chunks, config)?;
    let wall_seconds = start.elapsed().as_secs_f64();
    let cpu_seconds = cpu0.zip(process_cpu_seconds()).map(|(a, b)| (b - a).max(0.0));
    Ok(Measurement { estimate: report.estimate, point_updates: report.n_point_updates, wall_seconds, cpu_seconds })
}

/// All runs of one repetition on one data set: `[k index][method][order]`, `None` where skipped.
type Grid = Vec<[[Option<Measurement>; 2]; 2]>;

fn repetition<L: Incremental>(learner: &L, data: &Dataset, ks: &[usize], cap: u64, seed: Seed, r: u64) -> Result<Grid> {
    let rep_seed = repetition_seed(seed, r);
    let order_seed = rep_seed.child(Purpose::Learner, 0);
    ks.iter()
        .map(|&k| {
            let chunks = ChunkedData::new(learner, data, k, Some(rep_seed))?;
            let mut cell = [[None; 2]; 2];
            for (i, &method) in METHODS.iter().enumerate() {
                if method == Method::Standard && (k as u64).saturating_mul(data.n_rows() as u64) > cap {
                    continue;
                }
                for (j, &order) in ORDERS.iter().enumerate() {
                    let config = TreeCvConfig::new().method(method).order(order).parallel(true).seed(order_seed);
                    cell[i][j] = Some(measure(learner, &chunks, &config)?);
                }
            }
            Ok(cell)
        })
        .collect()
}

/// Median of a non-empty slice (the mean of the two middle values for an even length).
fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let h = v.len() / 2;
    if v.len() % 2 == 1 { v[h] } else { (v[h - 1] + v[h]) / 2.0 }
}

/// Runs the experiment with the default cap [`STANDARD_CAP`].
///
/// # Errors
/// As [`run_with_cap`].
pub fn run(config: &Config, executor: &dyn Executor) -> Result<ExperimentResult> {
    run_with_cap(config, STANDARD_CAP, executor)
}

/// Runs the experiment (see the module docs), skipping the standard method where `k · n > cap`.
///
/// # Errors
/// [`Error::InvalidParameter`] for R < 2, n < 2 or a k below 2; a run's errors (e.g. a
/// non-finite loss).
pub fn run_with_cap(config: &Config, cap: u64, executor: &dyn Executor) -> Result<ExperimentResult> {
    if config.reps < 2 {
        return Err(Error::invalid("reps", "at least 2", config.reps));
    }
    if config.n < 2 {
        return Err(Error::invalid("n", "at least 2", config.n));
    }
    let ks = folds(config)?;
    let covertype = covertype_like(config.n, config.seed)?;
    let msd = msd_like(config.n, config.seed)?;
    let pegasos = Pegasos::new(PEGASOS_LAMBDA)?;
    let lsq = LsqSgd::paper();
    // reps[r][data set] — serial on purpose (see the module docs on timing), observed as
    // `executor` is.
    let serial = Observed::new(&Sequential, executor.observer());
    let reps: Vec<[Grid; 2]> = map_ordered(&serial, config.reps, |r| {
        let a = repetition(&pegasos, &covertype, &ks, cap, config.seed, r as u64)?;
        let b = repetition(&lsq, &msd, &ks, cap, config.seed, r as u64)?;
        Ok([a, b])
    })?;
    let mut rows = Vec::new();
    for (d, dataset) in DATASETS.iter().enumerate() {
        for (i, &method) in METHODS.iter().enumerate() {
            for (j, &order) in ORDERS.iter().enumerate() {
                for (ki, &k) in ks.iter().enumerate() {
                    let runs: Vec<Measurement> = reps.iter().filter_map(|rep| rep[d][ki][i][j]).collect();
                    if runs.len() != reps.len() {
                        continue; // skipped (over the cap)
                    }
                    let estimates: Vec<f64> = runs.iter().map(|m| m.estimate).collect();
                    let (mean, standard_error) = mean_and_se(&estimates)?;
                    let walls: Vec<f64> = runs.iter().map(|m| m.wall_seconds).collect();
                    let cpus: Option<Vec<f64>> = runs.iter().map(|m| m.cpu_seconds).collect();
                    rows.push(Row {
                        experiment: NAME.into(),
                        method: label(dataset, method, order),
                        tau: None,
                        v: Some(k),
                        mean,
                        standard_error,
                        paper: None,
                        seconds: Some(median(&walls)),
                        cpu_seconds: cpus.map(|c| median(&c)),
                        passes: Some(runs[0].point_updates as f64 / config.n as f64),
                    });
                }
            }
        }
    }
    Ok(ExperimentResult {
        experiment: NAME.into(),
        metric: format!(
            "CV estimate (covertype: 0-1 loss of PEGASOS λ = {PEGASOS_LAMBDA:e}; msd: squared loss of LSQ-SGD); \
             standard CV skipped where k·n > {cap}"
        ),
        reps: config.reps,
        seed: config.seed,
        n: config.n,
        test_size: config.test_size,
        bayes_risk: None,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_folds() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        let config = Config { n: 60, vs: vec![100, 5, 2, 5], ..default_config() };
        assert_eq!(folds(&config).unwrap(), [2, 5, 60]);
        assert!(folds(&Config { vs: vec![1], ..default_config() }).is_err());
        assert_eq!(label("msd", Method::Standard, Order::Randomised), "msd/standard-randomised");
    }
}
