//! Every size a user types is checked before allocation: a typo-sized request fails at once
//! with [`Error::ResourceLimit`] (estimate, limit, how to raise it) under the default limits.
//! Each test would exhaust memory or run for hours if its check were missing, so passing
//! quickly is itself the proof that nothing large was allocated.

use agghoo::data::{Dataset, Target, TaskHint, generators, read_libsvm_from};
use agghoo::experiments::Config;
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
use agghoo::features::{CfsScorer, SearchConfig, SearchMethod, Stopping, search};
use agghoo::incremental::OnlineKMeans;
use agghoo::limits::Limits;
use agghoo::loss::Loss;
use agghoo::resample::{Bootstrap, LeaveOneOut, LeavePOut, MonteCarlo, PlanContext, RepeatedVFold};
use agghoo::select::{EvalOptions, evaluate_splits};
use agghoo::{Error, Seed};

/// Asserts a [`Error::ResourceLimit`] whose message names `needles` (the estimate, the flag).
#[track_caller]
fn assert_limit<T>(result: Result<T, Error>, needles: &[&str]) {
    let Err(err) = result else { panic!("a typo-sized request must be refused") };
    let text = err.to_string();
    assert!(matches!(err, Error::ResourceLimit { .. }), "not a ResourceLimit: {text}");
    for n in needles {
        assert!(text.contains(n), "`{n}` not in: {text}");
    }
}

#[test]
fn grids_beyond_the_point_limit_are_refused_before_their_values_exist() {
    assert_limit(GridSpec::parse("log:1e-6:1:100000000"), &["100000000 grid points", "--limit grid-points=N"]);
    assert_limit(GridSpec::parse("0:1e12:1"), &["grid points", "--limit grid-points=N"]);
    assert_limit(GridSpec::Log { low: 1.0, high: 2.0, n: usize::MAX }.values(), &["--limit grid-points=N"]);
    // the limit itself is allowed
    assert_eq!(GridSpec::parse("log:1:10:100000").unwrap().values().unwrap().len(), 100_000);
}

#[test]
fn plans_beyond_the_split_limit_or_the_memory_budget_are_refused() {
    assert_limit(MonteCarlo::new(1_000_000_000, 0.8).unwrap().instantiate(100, Seed(0)), &["1000000000 splits", "--limit splits=N"]);
    let repeated = RepeatedVFold { n_folds: 10, n_repeats: usize::MAX, stratify: false };
    assert_limit(repeated.instantiate(&PlanContext::rows(100), Seed(0)), &["splits", "--limit splits=N"]);
    assert_limit(Bootstrap { n_resamples: 100_000_000 }.instantiate(100, Seed(0)), &["100000000 splits"]);
    // leave-p-out: C(500, 3) = 20 708 500 subsets are enumerated when --splits allows them all
    assert_limit(LeavePOut { p: 3, max_splits: 1_000_000_000 }.instantiate(500, Seed(0)), &["C(500, 3) = 20708500", "20708500 splits"]);
    // C(10⁶, 5 × 10⁵) saturates u128: counted without overflow, the sample size is what counts
    assert_limit(LeavePOut { p: 500_000, max_splits: usize::MAX }.instantiate(1_000_000, Seed(0)), &["more than", "splits"]);
    // within the split limit, but 60 000 splits × 60 000 row indices = 26.8 GiB
    assert_limit(LeaveOneOut.instantiate(60_000), &["26.8 GiB", "--max-memory"]);
    assert_eq!(LeaveOneOut.instantiate(50).unwrap().len(), 50);
}

#[test]
fn generators_refuse_data_beyond_the_memory_budget() {
    assert_limit(generators::knn_problem(10_000_000_000, Seed(0)), &["gen:knn", "223.5 GiB", "--max-memory"]);
    assert_limit(generators::msd_like(100_000_000, Seed(0)), &["gen:msd"]);
    assert!(matches!(generators::knn_problem(0, Seed(0)), Err(Error::TooFewRows { .. })));
}

#[test]
fn forests_k_means_and_experiments_refuse_typo_counts() {
    let data = generators::genuer(60, 7, Seed(1), 0).unwrap();
    let params = FamilyParams::default().set("trees", 100_000_000);
    assert_limit(family::build(FamilyKind::Forest, &params, &data), &["100000000 trees", "--limit trees=N"]);
    let options = family::forest::ForestOptions { n_trees: 100_000_000, ..Default::default() };
    assert_limit(family::forest::ForestModel::fit(&data.all(), &options), &["--limit trees=N"]);
    assert_limit(OnlineKMeans::new(1_000_000_000), &["1000000000 centres", "--limit centres=N"]);
    let config = Config { reps: 1_000_000_000, seed: Seed(0), n: 100, test_size: 100, taus: vec![0.5], vs: vec![2] };
    assert_limit(config.check(), &["--limit repetitions=N"]);
}

#[test]
fn forests_estimated_beyond_the_memory_budget_are_refused() {
    // 100 000 trees (the count limit) of up to 2 × 5000 nodes each: far beyond 8 GiB
    let data = generators::genuer(5000, 7, Seed(1), 0).unwrap();
    let options = family::forest::ForestOptions { n_trees: 100_000, ..Default::default() };
    assert_limit(family::forest::ForestModel::fit(&data.all(), &options), &["a forest of 100000 trees on 5000 rows", "--max-memory"]);
}

#[test]
fn kept_path_predictions_beyond_the_memory_budget_are_refused_before_any_fit() {
    let data = generators::svr_problem(2000, Seed(0), 0).unwrap();
    let grid = GridSpec::Values((1..=100_000).map(f64::from).collect());
    let ridge = family::build(FamilyKind::Ridge, &FamilyParams::with_grid(grid), &data).unwrap();
    let splits = MonteCarlo::new(1000, 0.5).unwrap().instantiate(data.n_rows(), Seed(0)).unwrap();
    // 1000 splits × 100 000 grid points × 1000 validation rows × 8 bytes = 745 GiB
    let options = EvalOptions { losses: vec![Loss::Squared], keep_predictions: true, ..Default::default() };
    assert_limit(
        evaluate_splits(ridge.as_ref(), &data, &splits, &options, &agghoo::engine::Rayon),
        &["path predictions", "745.1 GiB", "--max-memory"],
    );
}

#[test]
fn libsvm_files_that_would_expand_beyond_the_limit_name_the_file_and_the_flag() {
    // 3 rows, 60 bytes, declaring feature 2 000 000: 45.8 MiB dense
    let text = "1 1:1 2000000:1\n0 1:2\n1 3:1\n";
    let result = read_libsvm_from(text.as_bytes(), std::path::Path::new("sparse.svm"), TaskHint::Auto, None);
    assert_limit(result, &["sparse.svm: 3 rows × 2000000 features", "45.8 MiB", "--limit libsvm-expansion=N"]);
    // a dense-ish file is far within the expansion limit
    let ok = read_libsvm_from("1 1:1 2:2 3:3\n0 1:0 2:1 3:5\n".as_bytes(), std::path::Path::new("ok.svm"), TaskHint::Auto, None);
    assert_eq!(ok.unwrap().n_features(), 3);
}

#[test]
fn feature_searches_beyond_their_evaluation_budget_are_refused_before_scoring() {
    let (n, d) = (40, 6);
    let x: Vec<f64> = (0..n * d).map(|i| ((i * 7919) % 101) as f64).collect();
    let y: Vec<f64> = (0..n).map(|i| x[i * d] + x[i * d + 1]).collect();
    let names = (0..d).map(|j| format!("x{j}")).collect();
    let data = Dataset::new(x, names, Target::Real(y), "y").unwrap();
    let cfs = CfsScorer::new(&data).unwrap();
    for (method, estimate) in
        [(SearchMethod::Sfs, 21u128), (SearchMethod::Sbs, 21), (SearchMethod::Sffs, 42), (SearchMethod::Exhaustive, 63)]
    {
        let mut config = SearchConfig::new(method, Stopping::Best);
        assert_eq!(config.estimated_evaluations(d).unwrap(), estimate, "{method:?}");
        config.max_subsets = 10;
        assert_limit(search(&cfs, &config), &[&format!("{estimate} subset evaluations"), "--limit subset-evaluations=N"]);
        config.max_subsets = Limits::default().subset_evaluations;
        let report = search(&cfs, &config).unwrap();
        // plain searches score exactly the estimate; floating ones at most it
        assert!(u128::from(report.n_evaluations) <= estimate, "{method:?}: {} > {estimate}", report.n_evaluations);
    }
}
