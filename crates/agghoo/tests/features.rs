//! Feature selection: filters, searches, wrappers and honest evaluation.

use agghoo::data::{CategoryOptions, Dataset, Encoding, MissingCategory, Preprocess, Target, Task, View};
use agghoo::engine::{Observed, Observer, Rayon, Sequential};
use agghoo::family::forest::ForestConfig;
use agghoo::family::lasso::LassoConfig;
use agghoo::family::{self, Family, FamilyKind, FamilyParams, FamilySpec, Grid, GridSpec, Model, Rule, knn::KnnFamily};
use agghoo::features::{
    CfsScorer, Change, Discreteness, EmbeddedMethod, Filter, HonestConfig, Importance, Learner, Scorer, ScorerSpec, SearchConfig,
    SearchMethod, Selector, Stopping, WrapperScorer, cfs_merit, evaluate_honestly, evaluate_honestly_with, mutual_information,
    rank_features, rank_features_with, search, search_with, select_features, select_features_with,
};
use agghoo::resample::{Plan, PlanContext, Splits, VFold};
use agghoo::{Error, Purpose, Seed};
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

fn names(d: usize) -> Vec<String> {
    (0..d).map(|j| format!("x{j}")).collect()
}

/// n × d standard normal features; `mix` adds a shared factor so features correlate.
fn gaussian(n: usize, d: usize, mix: f64, seed: u64) -> Vec<f64> {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(n * d);
    for _ in 0..n {
        let common: f64 = StandardNormal.sample(&mut rng);
        for _ in 0..d {
            let e: f64 = StandardNormal.sample(&mut rng);
            x.push(e + mix * common);
        }
    }
    x
}

fn knn_learner(k: usize) -> Learner {
    Learner { family: Rule { family: FamilySpec::default_for(FamilyKind::Knn), value: k as f64 }.spec().unwrap() }
}

fn vfold(data: &Dataset, v: usize, seed: u64) -> Splits {
    Plan::VFold(VFold::new(v).unwrap()).instantiate(&PlanContext::of(data), Seed(seed)).unwrap()
}

fn classification(x: Vec<f64>, d: usize, labels: Vec<u32>) -> Dataset {
    Dataset::new(x, names(d), Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y").unwrap()
}

// ---------- CFS ----------

/// y = (1, 2, 3, 4); a = y (r = 1); b = (2, 1, 4, 3): r(b, y) = r(a, b) = 3/5 (centred dot 3,
/// squared norms 5 and 5); c = (1, −1, −1, 1) is orthogonal to both and to y.
fn hand_data() -> Dataset {
    let rows = [[1.0, 2.0, 1.0], [2.0, 1.0, -1.0], [3.0, 4.0, -1.0], [4.0, 3.0, 1.0]];
    let x = rows.iter().flatten().copied().collect();
    Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], Target::Real(vec![1.0, 2.0, 3.0, 4.0]), "y").unwrap()
}

#[test]
fn cfs_merit_on_a_hand_computed_example() {
    let cfs = CfsScorer::new(&hand_data()).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(cfs.relevance()[0], 1.0) && close(cfs.relevance()[1], 0.6) && close(cfs.relevance()[2], 0.0));
    assert!(close(cfs.correlation(0, 1), 0.6) && close(cfs.correlation(1, 2), 0.0));
    // J({a}) = 1; J({a, b}) = 2·0.8 / sqrt(2 + 2·0.6) = 1.6 / sqrt(3.2); J({a, b, c}) = 1.6 / sqrt(3 + 6·0.2)
    assert!(close(cfs.merit(&[0]).unwrap(), 1.0));
    assert!(close(cfs.merit(&[0, 1]).unwrap(), 1.6 / 3.2f64.sqrt()));
    assert!(close(cfs.merit(&[0, 1, 2]).unwrap(), 1.6 / 4.2f64.sqrt()));
    assert!(close(cfs_merit(3, 1.6 / 3.0, 0.6 / 3.0), 1.6 / 4.2f64.sqrt()));
    assert!(close(cfs.score(&[0, 1], &Rayon).unwrap().value, -1.6 / 3.2f64.sqrt()), "scores are negated merits");
}

#[test]
fn cfs_incremental_changes_equal_full_scores() {
    let (n, d) = (120, 15);
    let x = gaussian(n, d, 0.7, 3);
    let y: Vec<f64> = (0..n).map(|i| x[i * d] + 0.5 * x[i * d + 3] - x[i * d + 7]).collect();
    let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
    let cfs = CfsScorer::new(&data).unwrap();
    let base = [1, 3, 7, 12];
    let outside: Vec<usize> = (0..d).filter(|j| !base.contains(j)).collect();
    for (change, candidates) in [(Change::Add, outside.as_slice()), (Change::Remove, &base[..])] {
        let fast = cfs.score_changes(&base, change, candidates, &Sequential).unwrap();
        for (&j, f) in candidates.iter().zip(&fast) {
            let mut s: Vec<usize> = base.iter().copied().filter(|&i| i != j).collect();
            if change == Change::Add {
                s.push(j);
                s.sort_unstable();
            }
            let slow = cfs.score(&s, &Rayon).unwrap();
            assert!((f.value - slow.value).abs() < 1e-12, "{change:?} {j}: {} vs {}", f.value, slow.value);
        }
    }
}

// ---------- searches ----------

#[test]
fn sfs_finds_the_informative_features_first() {
    // Regression with CFS: y depends on x2, x5, x7 (decreasing weights).
    let (n, d) = (400, 12);
    let x = gaussian(n, d, 0.0, 11);
    let y: Vec<f64> = (0..n).map(|i| 3.0 * x[i * d + 2] + 2.0 * x[i * d + 5] + 1.5 * x[i * d + 7]).collect();
    let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
    let report = search(&CfsScorer::new(&data).unwrap(), &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 3 })).unwrap();
    let order: Vec<usize> = report.trace.iter().map(|t| t.feature).collect();
    assert_eq!(order, [2, 5, 7]);
    assert_eq!(report.selected, [2, 5, 7]);

    // Classification with a k-NN wrapper: the label is 1{x1 + x4 > 0}.
    let (n, d) = (300, 8);
    let x = gaussian(n, d, 0.0, 12);
    let labels = (0..n).map(|i| u32::from(x[i * d + 1] + x[i * d + 4] > 0.0)).collect();
    let data = classification(x, d, labels);
    let fam = knn_learner(7).family.build(&data).unwrap();
    let splits = vfold(&data, 5, 1);
    let wrapper = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
    let report = search(&wrapper, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 2 })).unwrap();
    assert_eq!(report.selected, [1, 4], "trace: {:?}", report.trace);
    assert!(report.score.value < 0.15, "risk {}", report.score.value);
    assert!(report.score.standard_error > 0.0);
}

/// Not a theorem (see `search.rs`), so checked on twelve seeded problems with correlated features.
#[test]
fn floating_searches_are_never_worse_than_their_plain_versions_at_any_size() {
    for seed in 0..12 {
        let (n, d) = (150, 14);
        let x = gaussian(n, d, 1.0, 100 + seed);
        let mut rng = Seed(seed).rng(Purpose::Data, 1);
        let w: Vec<f64> = (0..d).map(|_| rng.random::<f64>() - 0.3).collect();
        let y: Vec<f64> = (0..n).map(|i| (0..d).map(|j| w[j] * x[i * d + j]).sum::<f64>() + rng.random::<f64>()).collect();
        let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
        let cfs = CfsScorer::new(&data).unwrap();
        for (plain, floating) in [(SearchMethod::Sfs, SearchMethod::Sffs), (SearchMethod::Sbs, SearchMethod::Sbfs)] {
            let a = search(&cfs, &SearchConfig::new(plain, Stopping::Best)).unwrap();
            let b = search(&cfs, &SearchConfig::new(floating, Stopping::Best)).unwrap();
            for ra in &a.by_size {
                let rb = b.by_size.iter().find(|r| r.size == ra.size).expect("floating visits every size");
                assert!(
                    rb.score.value <= ra.score.value + 1e-12,
                    "seed {seed} {floating:?} size {}: {} > {}",
                    ra.size,
                    rb.score.value,
                    ra.score.value
                );
            }
            assert!(b.score.value <= a.score.value + 1e-12);
        }
    }
}

#[test]
fn exhaustive_equals_brute_force() {
    for d in [3usize, 6, 8] {
        let n = 90;
        let x = gaussian(n, d, 0.8, 40 + d as u64);
        let y: Vec<f64> = (0..n).map(|i| x[i * d] - 2.0 * x[i * d + d - 1] + 0.3 * x[i * d + 1] * x[i * d + 2]).collect();
        let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
        let cfs = CfsScorer::new(&data).unwrap();
        let report = search(&cfs, &SearchConfig::new(SearchMethod::Exhaustive, Stopping::Best)).unwrap();
        assert_eq!(report.n_evaluations, (1u64 << d) - 1);
        // brute force over bit masks, best per size (first minimiser in lexicographic order is
        // not comparable with mask order, so compare values and check the subset attains it)
        let mut best = vec![f64::INFINITY; d + 1];
        for mask in 1u32..(1 << d) {
            let s: Vec<usize> = (0..d).filter(|j| mask >> j & 1 == 1).collect();
            let v = cfs.score(&s, &Rayon).unwrap().value;
            best[s.len()] = best[s.len()].min(v);
        }
        for r in &report.by_size {
            assert_eq!(r.score.value, best[r.size], "d {d} size {}", r.size);
            assert_eq!(cfs.score(&r.features, &Rayon).unwrap().value, best[r.size]);
        }
        let overall = best.iter().copied().fold(f64::INFINITY, f64::min);
        assert_eq!(report.score.value, overall);
    }
    // a wrapper too (d = 5, k-NN): exhaustive best equals the best over all 31 subsets
    let (n, d) = (120, 5);
    let x = gaussian(n, d, 0.0, 5);
    let labels = (0..n).map(|i| u32::from(x[i * d] - x[i * d + 3] > 0.0)).collect();
    let data = classification(x, d, labels);
    let fam = knn_learner(5).family.build(&data).unwrap();
    let splits = vfold(&data, 4, 2);
    let w = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
    let report = search(&w, &SearchConfig::new(SearchMethod::Exhaustive, Stopping::Range { min: 1, max: 5 })).unwrap();
    let brute = (1u32..32)
        .map(|m| w.score(&(0..d).filter(|j| m >> j & 1 == 1).collect::<Vec<_>>(), &Rayon).unwrap().value)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(report.score.value, brute);
}

#[test]
fn stopping_rules_pick_the_right_size() {
    let (n, d) = (200, 10);
    let x = gaussian(n, d, 0.0, 8);
    let labels = (0..n).map(|i| u32::from(x[i * d] + x[i * d + 1] > 0.0)).collect();
    let data = classification(x, d, labels);
    let fam = knn_learner(9).family.build(&data).unwrap();
    let splits = vfold(&data, 5, 3);
    let w = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
    let best = search(&w, &SearchConfig::new(SearchMethod::Sfs, Stopping::Best)).unwrap();
    let pars = search(&w, &SearchConfig::new(SearchMethod::Sfs, Stopping::Parsimonious)).unwrap();
    let range = search(&w, &SearchConfig::new(SearchMethod::Sfs, Stopping::Range { min: 4, max: 6 })).unwrap();
    assert_eq!(best.by_size.len(), d);
    let min = best.by_size.iter().map(|r| r.score.value).fold(f64::INFINITY, f64::min);
    assert_eq!(best.score.value, min);
    assert!(pars.selected.len() <= best.selected.len());
    assert!(pars.score.value <= best.score.value + best.score.standard_error + 1e-12);
    assert!((4..=6).contains(&range.selected.len()));
    assert_eq!(range.by_size.len(), 6, "forward search stops at the range's maximum");
}

#[test]
fn search_results_do_not_depend_on_the_thread_count() {
    let (n, d) = (150, 10);
    let x = gaussian(n, d, 0.5, 9);
    let labels = (0..n).map(|i| u32::from(x[i * d + 2] > 0.2)).collect();
    let data = classification(x, d, labels);
    let run = || {
        let fam = knn_learner(5).family.build(&data).unwrap();
        let splits = vfold(&data, 5, 3);
        let w = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
        search(&w, &SearchConfig::new(SearchMethod::Sffs, Stopping::Count { n_features: 5 })).unwrap()
    };
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap().install(run);
    let many = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap().install(run);
    assert_eq!(one, many);
}

/// Counts the units an executor reports and cancels once `stop_after` have finished.
struct Units {
    finished: std::sync::atomic::AtomicUsize,
    stop_after: usize,
}

impl Units {
    fn new(stop_after: usize) -> Self {
        Self { finished: 0.into(), stop_after }
    }
    fn count(&self) -> usize {
        self.finished.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Observer for Units {
    fn finished(&self, _: usize, _: usize) {
        self.finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
    fn keep_going(&self) -> bool {
        self.count() < self.stop_after
    }
}

/// Filters, searches, selections and honest evaluation run their units on the executor they are
/// given: the same results on one thread, its observer hears the units, and a cancelled run stops.
#[test]
fn feature_selection_runs_on_the_executor_it_is_given() {
    let (n, d) = (120, 6);
    let x = gaussian(n, d, 0.5, 4);
    let labels = (0..n).map(|i| u32::from(x[i * d + 1] > 0.0)).collect();
    let data = classification(x, d, labels);
    let fam = knn_learner(5).family.build(&data).unwrap();
    let splits = vfold(&data, 4, 2);
    let wrapper = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
    let config = SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 2 });
    let all = Units::new(usize::MAX);
    let observed = search_with(&wrapper, &config, &Observed::new(&Sequential, &all)).unwrap();
    assert_eq!(observed, search(&wrapper, &config).unwrap());
    // Two forward steps over 6 then 5 candidates: one unit each (their splits are parts).
    assert_eq!(all.count(), 11);
    let stopped = search_with(&wrapper, &config, &Observed::new(&Sequential, &Units::new(3)));
    assert!(matches!(stopped, Err(Error::Interrupted(_))), "{stopped:?}");

    let filter = Filter::Pearson;
    let columns = Units::new(usize::MAX);
    assert_eq!(rank_features_with(&data, &filter, &Observed::new(&Sequential, &columns)).unwrap(), rank_features(&data, &filter).unwrap());
    assert_eq!(columns.count(), d);

    let selector = Selector::Search { scorer: ScorerSpec::Cfs, search: SearchConfig::new(SearchMethod::Sbs, Stopping::Best) };
    let chosen = select_features_with(&selector, &data, Seed(3), &Sequential).unwrap();
    assert_eq!(chosen, select_features(&selector, &data, Seed(3)).unwrap());

    let outer = vfold(&data, 3, 5);
    let honest = HonestConfig { selector, learner: knn_learner(5), loss: None, preprocess: Preprocess::default(), seed: Seed(4) };
    let folds = Units::new(usize::MAX);
    let report = evaluate_honestly_with(&data, &outer, &honest, &Observed::new(&Sequential, &folds)).unwrap();
    assert_eq!(report, evaluate_honestly(&data, &outer, &honest).unwrap());
    assert_eq!(folds.count(), 3 + 1, "the outer folds and the naive selection");
}

// ---------- mutual information ----------

/// Values from `bench/peers/features_reference.py` (scikit-learn 1.9.1, n = 80, k = 3);
/// tolerance 1e-9: same estimator, the data are tie-free so sklearn's 1e-10 jitter does not move
/// a neighbour count.
#[test]
fn mutual_information_matches_scikit_learn() {
    let n = 80;
    let f = |i: usize| i as f64;
    let x: Vec<f64> = (0..n).map(|i| (1.3 * f(i) + 0.5).sin()).collect();
    let z: Vec<f64> = (0..n).map(|i| (0.37 * f(i) * f(i) + 1.0).cos()).collect();
    let y: Vec<f64> = (0..n).map(|i| x[i] + 0.5 * z[i]).collect();
    let c: Vec<u32> = (0..n).map(|i| u32::from(x[i] + 0.3 * (2.1 * f(i)).cos() > 0.0)).collect();
    let t: Vec<f64> = (0..n).map(|i| (3.0 * ((1.3 * f(i) + 0.5 + 0.4 * (0.9 * f(i)).cos()).sin() + 1.0) / 2.0001).floor()).collect();
    let real = Target::Real(y);
    let classes = Target::Classes { labels: c, names: vec!["0".into(), "1".into()] };
    let cases = [
        (mutual_information(&x, &real, 3, false).unwrap(), 0.7682818155149844),
        (mutual_information(&z, &real, 3, false).unwrap(), 0.1749577669136051),
        (mutual_information(&x, &classes, 3, false).unwrap(), 0.5624519742748753),
        (mutual_information(&z, &classes, 3, false).unwrap(), 0.010839558912460134),
        (mutual_information(&t, &real, 3, true).unwrap(), 0.5430049899454492),
        (mutual_information(&t, &classes, 3, true).unwrap(), 0.4445736729342721),
    ];
    for (k, (ours, sklearn)) in cases.iter().enumerate() {
        assert!((ours - sklearn).abs() < 1e-9, "case {k}: {ours} vs {sklearn}");
    }
    // the filter ranks x above z and notes nothing
    let data = Dataset::new(x.iter().zip(&z).flat_map(|(a, b)| [*a, *b]).collect(), names(2), real, "y").unwrap();
    let report = rank_features(&data, &Filter::MutualInformation { n_neighbors: 3, discreteness: Discreteness::Continuous }).unwrap();
    assert_eq!(report.ranking[0].index, 0);
    assert!(report.skipped.is_empty());
}

// ---------- honest evaluation ----------

/// The selection bias: on pure noise, selecting on all the data and then cross-validating
/// looks good; selecting inside each fold shows chance-level risk.
#[test]
fn honest_estimate_is_near_chance_on_noise_and_the_naive_one_is_optimistic() {
    let (n, d) = (100, 200);
    let x = gaussian(n, d, 0.0, 2024);
    let mut rng = Seed(7).rng(Purpose::Data, 3);
    let labels = (0..n).map(|_| u32::from(rng.random::<bool>())).collect();
    let data = classification(x, d, labels);
    let outer = vfold(&data, 10, 5);
    let config = HonestConfig {
        selector: Selector::Search {
            scorer: ScorerSpec::Wrapper {
                learner: knn_learner(5),
                plan: Plan::VFold(VFold::new(5).unwrap()),
                loss: None,
                preprocess: Preprocess::default(),
            },
            search: SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 4 }),
        },
        learner: knn_learner(5),
        loss: None,
        preprocess: Preprocess::default(),
        seed: Seed(1),
    };
    let report = evaluate_honestly(&data, &outer, &config).unwrap();
    eprintln!("honest {:?} naive {:?} jaccard {}", report.honest, report.naive, report.mean_jaccard);
    assert!(report.honest.mean > 0.38, "honest {:?}", report.honest);
    assert!(report.naive.mean < report.honest.mean - 0.12, "naive {:?} honest {:?}", report.naive, report.honest);
    assert!(report.selection_bias < -0.12);
    assert_eq!(report.folds.len(), 10);
    assert!(report.folds.iter().all(|f| f.selection.features.len() == 4 && f.n_test == 10));
    let total: usize = report.frequency.iter().map(|f| f.count).sum();
    assert_eq!(total, 40);
    assert!(report.mean_jaccard < 0.5, "noise features are not chosen stably");
    assert_eq!(report.naive_selection.features.len(), 4);
}

#[test]
fn honest_evaluation_with_cfs_recovers_informative_features() {
    let (n, d) = (200, 20);
    let x = gaussian(n, d, 0.0, 77);
    let labels = (0..n).map(|i| u32::from(x[i * d + 3] - x[i * d + 11] > 0.0)).collect();
    let data = classification(x, d, labels);
    let outer = vfold(&data, 5, 1);
    let config = HonestConfig {
        selector: Selector::Search {
            scorer: ScorerSpec::Cfs,
            search: SearchConfig::new(SearchMethod::Sffs, Stopping::Count { n_features: 2 }),
        },
        learner: knn_learner(7),
        loss: None,
        preprocess: Preprocess::default(),
        seed: Seed(1),
    };
    let report = evaluate_honestly(&data, &outer, &config).unwrap();
    assert_eq!(report.naive_selection.features, [3, 11]);
    assert!(report.frequency.iter().take(2).all(|f| f.count == 5 && (f.index == 3 || f.index == 11)));
    assert!(report.honest.mean < 0.2, "{:?}", report.honest);
    assert!((report.mean_jaccard - 1.0).abs() < 1e-12);
    // the report is what the CLI prints with --json: it serializes and reads back unchanged
    let json = serde_json::to_string(&report).unwrap();
    assert_eq!(serde_json::from_str::<agghoo::features::HonestReport>(&json).unwrap(), report);
}

// ---------- bad input ----------

#[test]
fn more_features_than_exist_is_a_typed_error() {
    let data = hand_data();
    let cfs = CfsScorer::new(&data).unwrap();
    let err = search(&cfs, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 4 })).unwrap_err();
    assert!(matches!(&err, Error::InvalidParameter { name: "features", got, .. } if got.contains("4 requested, 3 usable")), "{err}");
    let err = select_features(&Selector::Ranking { filter: Filter::Pearson, n_features: 9 }, &data, Seed(0)).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { name: "features", .. }));
    assert!(matches!(
        Stopping::parse("5:2").map(|s| search(&cfs, &SearchConfig::new(SearchMethod::Sbs, s))),
        Ok(Err(Error::InvalidParameter { .. }))
    ));
}

#[test]
fn exhaustive_search_on_many_features_is_refused_with_the_count() {
    let (n, d) = (30, 40);
    let x = gaussian(n, d, 0.0, 1);
    let y: Vec<f64> = (0..n).map(|i| x[i * d]).collect();
    let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
    let cfs = CfsScorer::new(&data).unwrap();
    let err = search(&cfs, &SearchConfig::new(SearchMethod::Exhaustive, Stopping::Best)).unwrap_err();
    // 2^40 − 1 non-empty subsets
    assert!(matches!(&err, Error::ResourceLimit { estimate, .. } if estimate.contains("1099511627775 subset evaluations")), "{err}");
}

/// A family that cannot be fitted on more than two columns.
struct FailsOnWideData(KnnFamily);

impl Family for FailsOnWideData {
    fn name(&self) -> &'static str {
        "fails-on-wide"
    }
    fn grid(&self) -> &Grid {
        self.0.grid()
    }
    fn task(&self) -> Task {
        self.0.task()
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> agghoo::Result<Model> {
        if train.n_features() > 2 {
            return Err(Error::Numerical("singular system".into()));
        }
        self.0.fit(train, grid_index)
    }
}

#[test]
fn a_wrapper_family_failing_on_a_subset_names_the_subset() {
    let (n, d) = (80, 5);
    let x = gaussian(n, d, 0.0, 4);
    let labels = (0..n).map(|i| u32::from(x[i * d] > 0.0)).collect();
    let data = classification(x, d, labels);
    let fam = FailsOnWideData(KnnFamily::new(vec![3.0], Task::Classification, 2).unwrap());
    let splits = vfold(&data, 4, 1);
    let w = WrapperScorer::new(&fam, &data, &splits, 0, None, Preprocess::default()).unwrap();
    assert!(search(&w, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 2 })).is_ok());
    let err = search(&w, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 3 })).unwrap_err();
    match &err {
        Error::FeatureSubset { features, source } => {
            assert_eq!(features.split(',').count(), 3, "{features}");
            assert!(matches!(**source, Error::Fit { .. } | Error::SplitFailed { .. }), "{source}");
        }
        other => panic!("expected FeatureSubset, got {other}"),
    }
}

#[test]
fn constant_features_are_skipped_with_a_note_and_never_produce_nan() {
    let (n, d) = (60, 4);
    let mut x = gaussian(n, d, 0.0, 6);
    for i in 0..n {
        x[i * d + 1] = 2.5; // constant column x1
    }
    let y: Vec<f64> = (0..n).map(|i| x[i * d] + x[i * d + 2]).collect();
    let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
    for filter in [Filter::Pearson, Filter::MutualInformation { n_neighbors: 3, discreteness: Discreteness::Auto }] {
        let r = rank_features(&data, &filter).unwrap();
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.skipped[0].name, "x1");
        assert!(r.skipped[0].reason.contains("constant"));
        assert_eq!(r.ranking.len(), 3);
        assert!(r.ranking.iter().all(|s| s.score.is_finite()));
    }
    let cfs = CfsScorer::new(&data).unwrap();
    for method in [SearchMethod::Sfs, SearchMethod::Sbfs, SearchMethod::Exhaustive] {
        let report = search(&cfs, &SearchConfig::new(method, Stopping::Best)).unwrap();
        assert_eq!(report.skipped.len(), 1);
        assert!(!report.selected.contains(&1));
        assert!(report.by_size.iter().all(|r| r.score.value.is_finite() && !r.features.contains(&1)));
        assert_eq!(report.by_size.len(), 3);
    }
    assert!(matches!(cfs.score(&[0, 1], &Rayon), Err(Error::InvalidParameter { .. })));
    // four features requested, three usable
    assert!(matches!(
        search(&cfs, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 4 })),
        Err(Error::InvalidParameter { name: "features", .. })
    ));
}

#[test]
fn embedded_methods_find_the_informative_features() {
    let (n, d) = (300, 8);
    let x = gaussian(n, d, 0.0, 41);
    // regression: y = 3 x0 − 2 x2 + small noise → the Lasso support at the CV-chosen λ holds 0 and 2
    let y: Vec<f64> = (0..n).map(|i| 3.0 * x[i * d] - 2.0 * x[i * d + 2] + 0.1 * x[i * d + 7] * x[i * d + 5]).collect();
    let reg = Dataset::new(x.clone(), names(d), Target::Real(y), "y").unwrap();
    let lasso = EmbeddedMethod::LassoSupport {
        elastic_net: false,
        config: LassoConfig::lasso(),
        plan: Plan::VFold(VFold::new(5).unwrap()),
        standardize: false,
        missing_category: MissingCategory::Level,
    };
    let r = agghoo::features::embedded_select(&lasso, &reg, Seed(0)).unwrap();
    assert!(r.selected.contains(&0) && r.selected.contains(&2), "{:?}", r.selected);
    assert_eq!(&r.scores[..2].iter().map(|s| s.index).collect::<Vec<_>>(), &[0, 2]);
    assert!(r.hyperparameter.is_some());
    // classification: the class is the sign of x1 + x4 → forest importances rank 1 and 4 first
    let labels = (0..n).map(|i| u32::from(x[i * d + 1] + x[i * d + 4] > 0.0)).collect();
    let cls = classification(x, d, labels);
    for importance in [Importance::Impurity, Importance::Permutation] {
        let config = ForestConfig { trees: 60, ..ForestConfig::default() };
        let forest = EmbeddedMethod::ForestImportance { config, importance, n_features: 2, missing_category: MissingCategory::Level };
        let r = agghoo::features::embedded_select(&forest, &cls, Seed(3)).unwrap();
        assert_eq!(r.selected, vec![1, 4], "{importance:?}: {:?}", r.scores);
    }
    let too_many = EmbeddedMethod::ForestImportance {
        config: ForestConfig::default(),
        importance: Importance::Impurity,
        n_features: 9,
        missing_category: MissingCategory::Level,
    };
    assert!(matches!(agghoo::features::embedded_select(&too_many, &cls_data_for_errors(), Seed(0)), Err(Error::InvalidParameter { .. })));
}

#[test]
fn standardised_lasso_selection_does_not_depend_on_units() {
    let (n, d) = (300, 6);
    let x = gaussian(n, d, 0.0, 43);
    let y: Vec<f64> = (0..n).map(|i| 2.0 * x[i * d] - 1.5 * x[i * d + 3] + 0.3 * x[i * d + 5] * x[i * d + 1]).collect();
    // The same data with feature 0 in units 1000× smaller and feature 1 in units 1000× larger.
    let rescaled: Vec<f64> = x.iter().enumerate().map(|(t, &v)| v * [1e3, 1e-3, 1.0, 1.0, 1.0, 1.0][t % d]).collect();
    let plain = Dataset::new(x, names(d), Target::Real(y.clone()), "y").unwrap();
    let scaled = Dataset::new(rescaled, names(d), Target::Real(y), "y").unwrap();
    let method = |standardize| EmbeddedMethod::LassoSupport {
        elastic_net: false,
        config: LassoConfig::lasso(),
        plan: Plan::VFold(VFold::new(5).unwrap()),
        standardize,
        missing_category: MissingCategory::Level,
    };
    let ranking = |r: &agghoo::features::EmbeddedReport| r.scores.iter().map(|s| s.index).collect::<Vec<_>>();
    let a = agghoo::features::embedded_select(&method(true), &plain, Seed(2)).unwrap();
    let b = agghoo::features::embedded_select(&method(true), &scaled, Seed(2)).unwrap();
    assert_eq!(a.selected, b.selected);
    assert_eq!(ranking(&a), ranking(&b));
    let rel = |u: f64, v: f64| (u - v).abs() / u.abs().max(1e-300);
    for (u, v) in a.scores.iter().zip(&b.scores) {
        assert!(rel(u.score, v.score) < 1e-6, "{} vs {}", u.score, v.score);
    }
    // On raw units the ranking follows the units: feature 0's coefficient shrinks 1000×.
    let raw = agghoo::features::embedded_select(&method(false), &scaled, Seed(2)).unwrap();
    assert_ne!(ranking(&raw), ranking(&b), "raw-unit ranking should differ");
}

fn cls_data_for_errors() -> Dataset {
    let (n, d) = (40, 8);
    let x = gaussian(n, d, 0.0, 5);
    let labels = (0..n).map(|i| u32::from(x[i * d] > 0.0)).collect();
    classification(x, d, labels)
}

#[test]
fn multiclass_pearson_is_the_class_weighted_indicator_correlation() {
    // three classes; x0 separates class 2 from the rest, x1 is the class index itself
    let labels: Vec<u32> = (0..30).map(|i| (i % 3) as u32).collect();
    let x: Vec<f64> = labels.iter().flat_map(|&l| [f64::from(u8::from(l == 2)), f64::from(l)]).collect();
    let data = Dataset::new(x, names(2), Target::Classes { labels, names: vec!["a".into(), "b".into(), "c".into()] }, "y").unwrap();
    let r = rank_features(&data, &Filter::Pearson).unwrap();
    let score0 = r.ranking.iter().find(|s| s.index == 0).unwrap().score;
    // r(1{c=2}, 1{c=2}) = 1; r(1{c=2}, 1{c=k}) = −1/2 for k ≠ 2; weights 1/3 each: (1 + 1/2 + 1/2)/3
    assert!((score0 - 2.0 / 3.0).abs() < 1e-12, "{score0}");
}

#[test]
fn nested_wrapper_with_a_one_point_grid_equals_the_fixed_wrapper() {
    let (n, d) = (120, 6);
    let x = gaussian(n, d, 0.0, 31);
    let labels = (0..n).map(|i| u32::from(x[i * d + 1] - x[i * d + 4] > 0.0)).collect();
    let data = classification(x, d, labels);
    let splits = vfold(&data, 4, 2);
    let one = knn_learner(5).family.build(&data).unwrap();
    let fixed = WrapperScorer::new(one.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap();
    let nested = WrapperScorer::new(one.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap().with_inner_selection(
        Plan::VFold(VFold::new(3).unwrap()),
        agghoo::select::Method::Cv,
        Seed(4),
    );
    for subset in [vec![1], vec![1, 4], vec![0, 2, 3, 5]] {
        // CV over a one-point grid selects that point and refits it on T_j: the fixed wrapper's model
        assert_eq!(nested.score(&subset, &Rayon).unwrap(), fixed.score(&subset, &Rayon).unwrap(), "{subset:?}");
    }
    // with a real grid, the inner choice runs and the search still finds the informative pair
    let grid = family::build(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("1:15:2").unwrap()), &data).unwrap();
    let nested = WrapperScorer::new(grid.as_ref(), &data, &splits, 0, None, Preprocess::default()).unwrap().with_inner_selection(
        Plan::VFold(VFold::new(3).unwrap()),
        agghoo::select::Method::Agghoo,
        Seed(4),
    );
    let report = search(&nested, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 2 })).unwrap();
    assert_eq!(report.selected, [1, 4]);
    assert!(report.scorer.contains("inner agghoo"));
}

/// A Lasso support with no non-zero coefficient (λ far above λ_max) is refused, by the selection
/// and inside every outer fold of the honest evaluation, instead of training a learner on no
/// column (which used to report an estimate for a rule the user never asked for).
#[test]
fn an_empty_selection_is_refused_everywhere() {
    let (n, d) = (60, 3);
    let x = gaussian(n, d, 0.0, 47);
    let y: Vec<f64> = (0..n).map(|i| x[i * d] + 0.5 * x[i * d + 1]).collect();
    let data = Dataset::new(x, names(d), Target::Real(y), "y").unwrap();
    let selector = Selector::Embedded(EmbeddedMethod::LassoSupport {
        elastic_net: false,
        config: LassoConfig { grid: Some(GridSpec::Values(vec![1e6])), ..LassoConfig::lasso() },
        plan: Plan::VFold(VFold::new(3).unwrap()),
        standardize: false,
        missing_category: MissingCategory::Level,
    });
    match select_features(&selector, &data, Seed(0)) {
        Err(Error::EmptySelection { selector, .. }) => assert_eq!(selector, "lasso-support"),
        other => panic!("expected EmptySelection, got {other:?}"),
    }
    let learner = knn_learner(3);
    let config = HonestConfig { selector, learner, loss: None, preprocess: Preprocess::default(), seed: Seed(0) };
    let outer = VFold::new(3).unwrap().instantiate(n, Seed(1)).unwrap();
    match evaluate_honestly(&data, &outer, &config) {
        Err(Error::OuterSplit { split: 0, source }) => assert!(matches!(*source, Error::EmptySelection { .. }), "{source}"),
        other => panic!("expected OuterSplit(EmptySelection), got {other:?}"),
    }
}

/// Missing values kept for imputation (the CLI's `--missing median`): every selector works, and
/// each outer fold's selection sees its training rows imputed with *their* medians.
#[test]
fn every_selector_imputes_missing_values_inside_each_training_set() {
    let (n, d) = (120, 5);
    let mut x = gaussian(n, d, 0.3, 77);
    let y: Vec<f64> = (0..n).map(|i| 2.0 * x[i * d] - x[i * d + 3]).collect();
    // Every 7th value of columns 0 and 2 missing; the last rows of column 2 are shifted so that
    // the medians of different training sets differ.
    for i in 0..n {
        if i % 7 == 3 {
            x[i * d] = f64::NAN;
            x[i * d + 2] = f64::NAN;
        }
        if i >= 90 {
            x[i * d + 2] += 50.0;
        }
    }
    let reg = Dataset::new_with_missing(x.clone(), names(d), Target::Real(y), "y").unwrap();
    let labels: Vec<u32> = (0..n).map(|i| u32::from(i % 3 == 0)).collect();
    let cls = Dataset::new_with_missing(x, names(d), Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y").unwrap();
    let preprocess = Preprocess { impute_median: true, standardize: false, ..Preprocess::default() };
    let inner = Plan::VFold(VFold::new(3).unwrap());
    let wrapper = ScorerSpec::Wrapper { learner: knn_learner(5), plan: inner.clone(), loss: None, preprocess };
    let search =
        |scorer: ScorerSpec| Selector::Search { scorer, search: SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 2 }) };
    let selectors = [
        (Selector::Ranking { filter: Filter::Pearson, n_features: 2 }, &reg),
        (Selector::Ranking { filter: Filter::MutualInformation { n_neighbors: 3, discreteness: Discreteness::Auto }, n_features: 2 }, &reg),
        (search(ScorerSpec::Cfs), &reg),
        (search(wrapper), &reg),
        (
            Selector::Embedded(EmbeddedMethod::LassoSupport {
                elastic_net: false,
                config: LassoConfig::lasso(),
                plan: inner.clone(),
                standardize: false,
                missing_category: MissingCategory::Level,
            }),
            &reg,
        ),
        (
            Selector::Embedded(EmbeddedMethod::ForestImportance {
                config: ForestConfig { trees: 20, ..ForestConfig::default() },
                importance: Importance::Impurity,
                n_features: 2,
                missing_category: MissingCategory::Level,
            }),
            &cls,
        ),
        (
            Selector::Embedded(EmbeddedMethod::ForestImportance {
                config: ForestConfig { trees: 20, ..ForestConfig::default() },
                importance: Importance::Permutation,
                n_features: 2,
                missing_category: MissingCategory::Level,
            }),
            &cls,
        ),
    ];
    for (selector, data) in &selectors {
        let outer = vfold(data, 4, 1);
        let config = HonestConfig { selector: selector.clone(), learner: knn_learner(5), loss: None, preprocess, seed: Seed(2) };
        let report = evaluate_honestly(data, &outer, &config).unwrap_or_else(|e| panic!("{selector:?}: {e}"));
        assert!(report.honest.mean.is_finite() && report.naive.mean.is_finite(), "{selector:?}");
    }
    // Pearson scores of fold j = those of its training rows imputed with their own medians.
    let outer = vfold(&reg, 4, 1);
    let selector = Selector::Ranking { filter: Filter::Pearson, n_features: 2 };
    let config = HonestConfig { selector, learner: knn_learner(5), loss: None, preprocess, seed: Seed(2) };
    let report = evaluate_honestly(&reg, &outer, &config).unwrap();
    for (fold, split) in report.folds.iter().zip(outer.iter()) {
        let train = reg.view(split.train());
        let imputed = preprocess.fit(&train).apply(&train).unwrap();
        let want = rank_features(&imputed, &Filter::Pearson).unwrap();
        let agghoo::features::SelectionDetails::Ranking(got) = &fold.selection.details else { panic!("a ranking") };
        assert_eq!(got.ranking, want.ranking);
    }
    // ... and not those of the rows imputed with the medians of all the data.
    let all = reg.all();
    let globally = preprocess.fit(&all).apply(&all).unwrap();
    let first = outer.get(0).unwrap();
    let leaked = rank_features(&globally.select_rows(first.train()).unwrap(), &Filter::Pearson).unwrap();
    let agghoo::features::SelectionDetails::Ranking(got) = &report.folds[0].selection.details else { panic!("a ranking") };
    assert_ne!(got.ranking, leaked.ranking);
}

// ---------- categorical (text) columns ----------

const CITIES: [&str; 4] = ["north", "south", "east", "west"];

/// Column 0 `city` (text, carrying the signal: y = the city's effect + small noise), columns 1–3
/// numeric noise `x1`, `x2`, `x3`.
fn cities(n: usize, seed: u64) -> Dataset {
    let noise = gaussian(n, 4, 0.0, seed);
    let effect = [0.0, 3.0, -3.0, 6.0];
    let y: Vec<f64> = (0..n).map(|i| effect[i % 4] + 0.3 * noise[i * 4]).collect();
    let x: Vec<f64> = (0..n).flat_map(|i| [0.0, noise[i * 4 + 1], noise[i * 4 + 2], noise[i * 4 + 3]]).collect();
    let names = vec!["city".into(), "x1".into(), "x2".into(), "x3".into()];
    let text: Vec<Option<String>> = (0..n).map(|i| Some(CITIES[i % 4].to_string())).collect();
    Dataset::new(x, names, Target::Real(y), "y").unwrap().with_text_columns(&[(0, text)]).unwrap()
}

fn one_hot() -> Preprocess {
    Preprocess {
        categorical: Some(CategoryOptions { encoding: Encoding::OneHot, missing: MissingCategory::Level }),
        ..Preprocess::default()
    }
}

/// The same rows with `city` one-hot encoded by hand (its columns in sorted level order).
fn cities_one_hot_by_hand(data: &Dataset) -> Dataset {
    let levels = data.levels(0).unwrap().to_vec();
    let x: Vec<f64> = (0..data.n_rows())
        .flat_map(|i| {
            let row = data.row(i);
            (0..levels.len()).map(move |k| f64::from(u8::from(row[0] == k as f64))).chain(row[1..].iter().copied())
        })
        .collect();
    let names = levels.iter().map(|l| format!("city={l}")).chain(["x1".into(), "x2".into(), "x3".into()]).collect();
    Dataset::new(x, names, data.target().clone(), "y").unwrap()
}

#[test]
fn a_text_column_carrying_the_signal_is_one_feature_that_every_method_selects() {
    let data = cities(120, 61);
    let inner = Plan::VFold(VFold::new(4).unwrap());
    let wrapper = ScorerSpec::Wrapper { learner: knn_learner(5), plan: inner.clone(), loss: None, preprocess: one_hot() };
    let one =
        |scorer: ScorerSpec| Selector::Search { scorer, search: SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 1 }) };
    let selectors = [
        Selector::Ranking { filter: Filter::Pearson, n_features: 1 },
        Selector::Ranking { filter: Filter::MutualInformation { n_neighbors: 3, discreteness: Discreteness::Continuous }, n_features: 1 },
        one(ScorerSpec::Cfs),
        one(wrapper.clone()),
        Selector::Embedded(EmbeddedMethod::ForestImportance {
            config: ForestConfig { trees: 30, ..ForestConfig::default() },
            importance: Importance::Impurity,
            n_features: 1,
            missing_category: MissingCategory::Level,
        }),
    ];
    for selector in &selectors {
        let selection = select_features(selector, &data, Seed(1)).unwrap_or_else(|e| panic!("{selector:?}: {e}"));
        // the original column, by its name: never its one-hot columns
        assert_eq!(selection.names, ["city"], "{selector:?}");
        assert_eq!(selection.features, [0], "{selector:?}");
    }
    // A backward search removes whole columns: it keeps the text column, named as such.
    let sbfs = Selector::Search { scorer: wrapper, search: SearchConfig::new(SearchMethod::Sbfs, Stopping::Best) };
    let selection = select_features(&sbfs, &data, Seed(1)).unwrap();
    assert!(selection.names.contains(&"city".to_string()) && selection.features.iter().all(|&j| j < 4), "{:?}", selection.names);
    let agghoo::features::SelectionDetails::Search(report) = &selection.details else { panic!("a search report") };
    assert_eq!(report.by_size.iter().map(|r| r.size).collect::<Vec<_>>(), [1, 2, 3, 4]);
    // The Lasso selects the column when any of its one-hot columns is non-zero.
    let lasso = Selector::Embedded(EmbeddedMethod::LassoSupport {
        elastic_net: false,
        config: LassoConfig::lasso(),
        plan: inner,
        standardize: false,
        missing_category: MissingCategory::Level,
    });
    let selection = select_features(&lasso, &data, Seed(1)).unwrap();
    assert!(selection.names.contains(&"city".to_string()), "{:?}", selection.names);
    let agghoo::features::SelectionDetails::Embedded(report) = &selection.details else { panic!("an embedded report") };
    assert_eq!(report.scores[0].name, "city");
    assert!(report.scores.iter().all(|s| ["city", "x1", "x2", "x3"].contains(&s.name.as_str())), "{:?}", report.scores);
    // Honest evaluation: every outer fold's selection (its encoding learned on T_j) finds it.
    let config = HonestConfig { selector: selectors[3].clone(), learner: knn_learner(5), loss: None, preprocess: one_hot(), seed: Seed(2) };
    let report = evaluate_honestly(&data, &vfold(&data, 4, 5), &config).unwrap();
    assert!(report.folds.iter().all(|f| f.selection.names == ["city"]), "{:?}", report.folds);
    assert_eq!(report.frequency[0].name, "city");
}

#[test]
fn the_wrapper_risk_of_a_text_column_is_the_cv_risk_of_its_one_hot_columns_on_the_same_splits() {
    let data = cities(100, 62);
    let splits = vfold(&data, 5, 3);
    let fam = knn_learner(5).build(&data, &one_hot()).unwrap();
    let wrapper = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, one_hot()).unwrap();
    let hand = cities_one_hot_by_hand(&data);
    let options = agghoo::select::EvalOptions { losses: vec![agghoo::loss::Loss::Squared], ..Default::default() };
    for (subset, hand_columns) in [(vec![0], vec![0, 1, 2, 3]), (vec![0, 2], vec![0, 1, 2, 3, 5]), (vec![1, 3], vec![4, 6])] {
        let columns = hand.select_columns(&hand_columns).unwrap();
        let curve = agghoo::select::cv_curve(&agghoo::select::evaluate_splits(fam.as_ref(), &columns, &splits, &options, &Rayon).unwrap());
        let got = wrapper.score(&subset, &Rayon).unwrap();
        assert_eq!((got.value, got.standard_error), (curve.mean[0], curve.standard_error[0]), "{subset:?}");
    }
    // ... which is the CV risk the select procedure reports for the text column alone.
    let alone = data.select_columns(&[0]).unwrap();
    let config = agghoo::select::SelectConfig { preprocess: one_hot(), ..agghoo::select::SelectConfig::new(agghoo::select::Method::Cv) };
    let (_, report) = agghoo::select::select(fam.as_ref(), &alone, &splits, &config).unwrap();
    assert_eq!(report.cv_curve.mean[0], wrapper.score(&[0], &Rayon).unwrap().value);
}

/// A level seen only in validation rows is unknown to the fits of its training set: with the
/// ordinal encoding of trees, training levels `a`, `c` are codes 0, 1 and the unseen `b` is 2
/// (beyond `c`); an encoding learned on all rows would put `b` (1) between them.
#[test]
fn a_level_seen_only_in_validation_rows_is_encoded_with_the_training_levels_only() {
    let n = 40;
    // rows 0..30: levels a (y = 0) and c (y = 10) alternately; rows 30..40: level b (y = 10)
    let level = |i: usize| {
        if i >= 30 {
            1.0
        } else if i.is_multiple_of(2) {
            0.0
        } else {
            2.0
        }
    };
    let y: Vec<f64> = (0..n).map(|i| if level(i) == 0.0 { 0.0 } else { 10.0 }).collect();
    let x: Vec<f64> = (0..n).flat_map(|i| [level(i), (i % 5) as f64]).collect();
    let data = Dataset::new(x.clone(), names(2), Target::Real(y.clone()), "y")
        .unwrap()
        .with_levels(vec![Some(vec!["a".into(), "b".into(), "c".into()]), None])
        .unwrap();
    let splits = Splits::new(n, vec![agghoo::resample::Split::new((0..30).collect(), (30..40).collect()).unwrap()]).unwrap();
    let ordinal = Preprocess {
        categorical: Some(CategoryOptions { encoding: Encoding::Ordinal, missing: MissingCategory::Level }),
        ..Preprocess::default()
    };
    let cart = Learner { family: Rule { family: FamilySpec::default_for(FamilyKind::Cart), value: 0.0 }.spec().unwrap() };
    let fam = cart.build(&data, &ordinal).unwrap();
    let wrapper = WrapperScorer::new(fam.as_ref(), &data, &splits, 0, None, ordinal).unwrap();
    let got = wrapper.score(&[0], &Rayon).unwrap().value;
    // by hand: the column coded with the training levels (b → 2), or with all levels (b → 1)
    let coded = |b: f64| {
        let x: Vec<f64> = (0..n).map(|i| [0.0, b, 1.0][level(i) as usize]).collect();
        Dataset::new(x, names(1), Target::Real(y.clone()), "y").unwrap()
    };
    let options = agghoo::select::EvalOptions { losses: vec![agghoo::loss::Loss::Squared], ..Default::default() };
    let risk = |d: &Dataset| {
        agghoo::select::cv_curve(&agghoo::select::evaluate_splits(fam.as_ref(), d, &splits, &options, &Rayon).unwrap()).mean[0]
    };
    let (training_only, leaked) = (
        risk(&coded(2.0)),
        risk(&{
            let x: Vec<f64> = (0..n).map(level).collect();
            Dataset::new(x, names(1), Target::Real(y.clone()), "y").unwrap()
        }),
    );
    assert_ne!(training_only, leaked, "the test must tell the two encodings apart");
    assert_eq!(got, training_only);
}

#[test]
fn categorical_correlations_follow_halls_rule() {
    // city (3 levels, unbalanced), a numeric x, a second categorical z; y numeric
    let n = 60;
    let noise = gaussian(n, 2, 0.0, 63);
    let city: Vec<usize> = (0..n).map(|i| [0, 0, 1, 2, 2, 2][i % 6]).collect();
    let z: Vec<usize> = (0..n).map(|i| (i / 3) % 2).collect();
    let y: Vec<f64> = (0..n).map(|i| city[i] as f64 + noise[i * 2]).collect();
    let x: Vec<f64> = (0..n).flat_map(|i| [city[i] as f64, noise[i * 2 + 1] + 0.5 * city[i] as f64, z[i] as f64]).collect();
    let data = Dataset::new(x, vec!["city".into(), "x".into(), "z".into()], Target::Real(y.clone()), "y")
        .unwrap()
        .with_levels(vec![Some(vec!["a".into(), "b".into(), "c".into()]), None, Some(vec!["p".into(), "q".into()])])
        .unwrap();
    // The indicators by hand: columns 0..3 are 1{city = k}, 3 is x, 4..6 are 1{z = l}.
    let ind: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (ci, zi) = (city[i], z[i]);
            let c = (0..3).map(move |k| f64::from(u8::from(ci == k)));
            let l = (0..2).map(move |l| f64::from(u8::from(zi == l)));
            c.chain([data.row(i)[1]]).chain(l).collect::<Vec<_>>()
        })
        .collect();
    let hand = Dataset::new(ind, names(6), Target::Real(y), "y").unwrap();
    let r = CfsScorer::new(&hand).unwrap();
    let p = [2.0 / 6.0, 1.0 / 6.0, 3.0 / 6.0];
    let cfs = CfsScorer::new(&data).unwrap();
    // with the target and with a numeric column: Σ_k p_k |r(1{city = k}, ·)|
    let want_target: f64 = (0..3).map(|k| p[k] * r.relevance()[k]).sum();
    assert!((cfs.relevance()[0] - want_target).abs() < 1e-12, "{} vs {want_target}", cfs.relevance()[0]);
    let want_x: f64 = (0..3).map(|k| p[k] * r.correlation(k, 3)).sum();
    assert!((cfs.correlation(0, 1) - want_x).abs() < 1e-12);
    assert!((cfs.correlation(1, 0) - want_x).abs() < 1e-12);
    // two categorical columns: Σ_k Σ_l p_kl |r(1{city = k}, 1{z = l})|
    let mut want_z = 0.0;
    for k in 0..3 {
        for l in 0..2 {
            let p_kl = (0..n).filter(|&i| city[i] == k && z[i] == l).count() as f64 / n as f64;
            want_z += p_kl * r.correlation(k, 4 + l);
        }
    }
    assert!((cfs.correlation(0, 2) - want_z).abs() < 1e-12, "{} vs {want_z}", cfs.correlation(0, 2));
    // the Pearson filter scores the column by the same rule
    let ranking = rank_features(&data, &Filter::Pearson).unwrap();
    let city_score = ranking.ranking.iter().find(|s| s.name == "city").unwrap().score;
    assert!((city_score - want_target).abs() < 1e-12);
}
