//! TreeCV (`docs/PROCEDURES.md` § TreeCV): the recursion against the standard method, its cost accounting,
//! order, parallelism, snapshots and typed errors.

use std::sync::atomic::{AtomicU64, Ordering};

use agghoo::data::generators::{covertype_like, msd_like};
use agghoo::data::{Dataset, Target};
use agghoo::engine::{Observed, Observer, Rayon, Sequential};
use agghoo::incremental::{
    Covariance, GaussianDensity, GaussianNaiveBayes, Incremental, LsqSgd, MultinomialNaiveBayes, OnlineKMeans, Pegasos, PegasosLoss, Rows,
    SnapshotMode,
};
use agghoo::resample::VFold;
use agghoo::select::TieRule;
use agghoo::treecv::{self, ChunkedData, Method, Order, Storage, TreeCvConfig, TreeCvReport, agghoo_linear, select_grid};
use agghoo::{Error, Seed};

fn tree() -> TreeCvConfig {
    TreeCvConfig::new()
}

fn standard() -> TreeCvConfig {
    TreeCvConfig::new().method(Method::Standard)
}

/// A three-class problem with Gaussian features, for naive Bayes and the density.
fn gaussian_classes(n: usize, seed: u64) -> Dataset {
    use rand::RngExt;
    let mut rng = Seed(seed).rng(agghoo::Purpose::Data, 9);
    let d = 4;
    let mut x = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let c: u32 = rng.random_range(0..3);
        for j in 0..d {
            let u: f64 = rng.random();
            let v: f64 = rng.random();
            x.push(c as f64 * (j as f64 - 1.0) * 0.7 + (u + v - 1.0) * (1.0 + j as f64 * 0.3));
        }
        labels.push(c);
    }
    Dataset::new(
        x,
        (0..d).map(|j| format!("x{j}")).collect(),
        Target::Classes { labels, names: vec!["a".into(), "b".into(), "c".into()] },
        "y",
    )
    .unwrap()
}

/// Word-count-like integer features for multinomial naive Bayes.
fn count_classes(n: usize, seed: u64) -> Dataset {
    use rand::RngExt;
    let mut rng = Seed(seed).rng(agghoo::Purpose::Data, 10);
    let d = 6;
    let mut x = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let c: u32 = rng.random_range(0..2);
        for j in 0..d {
            let bias = if (j % 2 == 0) == (c == 0) { 4 } else { 1 };
            x.push(rng.random_range(0..=bias) as f64);
        }
        labels.push(c);
    }
    Dataset::new(x, (0..d).map(|j| format!("w{j}")).collect(), Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y")
        .unwrap()
}

fn assert_reports_identical(a: &TreeCvReport, b: &TreeCvReport) {
    assert_eq!(a.chunk_losses, b.chunk_losses);
    assert_eq!(a.estimate.to_bits(), b.estimate.to_bits());
    assert_eq!(a.n_point_updates, b.n_point_updates);
}

#[test]
fn treecv_naive_bayes_equals_standard_cv_exactly() {
    let data = gaussian_classes(150, 1);
    let counts = count_classes(150, 2);
    let gnb = GaussianNaiveBayes::new(3).unwrap();
    let mnb = MultinomialNaiveBayes::new(2, 1.0).unwrap();
    for k in [2, 3, 7, 10, 150] {
        let chunks = ChunkedData::new(&gnb, &data, k, Some(Seed(5))).unwrap();
        let (t, s) = (treecv::run(&gnb, &chunks, &tree()).unwrap(), treecv::run(&gnb, &chunks, &standard()).unwrap());
        assert_reports_identical_losses(&t, &s);
        let chunks = ChunkedData::new(&mnb, &counts, k, Some(Seed(5))).unwrap();
        let (t, s) = (treecv::run(&mnb, &chunks, &tree()).unwrap(), treecv::run(&mnb, &chunks, &standard()).unwrap());
        assert_reports_identical_losses(&t, &s);
        assert!(t.estimate > 0.0 && t.estimate < 0.5, "k = {k}: {}", t.estimate);
    }
}

fn assert_reports_identical_losses(t: &TreeCvReport, s: &TreeCvReport) {
    assert_eq!(t.chunk_losses, s.chunk_losses, "k = {}", t.n_folds);
    assert_eq!(t.estimate.to_bits(), s.estimate.to_bits());
}

#[test]
fn treecv_gaussian_density_equals_standard_cv_to_rounding() {
    let data = gaussian_classes(120, 3);
    for cov in [Covariance::Full, Covariance::Diagonal] {
        let learner = GaussianDensity::new(cov);
        for k in [2, 5, 12, 120] {
            let chunks = ChunkedData::new(&learner, &data, k, None).unwrap();
            let t = treecv::run(&learner, &chunks, &tree()).unwrap();
            let s = treecv::run(&learner, &chunks, &standard()).unwrap();
            // The sums are accumulated in another order: rounding only (relative 1e-12).
            for (a, b) in t.chunk_losses.iter().zip(&s.chunk_losses) {
                assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{cov:?} k = {k}: {a} vs {b}");
            }
            assert!((t.estimate - s.estimate).abs() <= 1e-12 * s.estimate.abs());
        }
    }
}

/// Records, for every point (its original row, passed as the target), how often it was fed.
struct Counting {
    fed: Vec<AtomicU64>,
    leaves: Vec<AtomicU64>,
}

impl Incremental for Counting {
    /// The rows the model was trained on.
    type Model = Vec<bool>;
    type Log = Option<Vec<bool>>;
    fn name(&self) -> &'static str {
        "counting"
    }
    fn prepare_target(&self, target: &Target) -> agghoo::Result<Vec<f64>> {
        Ok((0..target.len()).map(|i| i as f64).collect())
    }
    fn init(&self, _: usize) -> Vec<bool> {
        vec![false; self.fed.len()]
    }
    fn update(&self, model: &mut Vec<bool>, rows: Rows<'_>) {
        for (_, y) in rows.iter() {
            self.fed[y as usize].fetch_add(1, Ordering::Relaxed);
            assert!(!model[y as usize], "a point fed twice to one model");
            model[y as usize] = true;
        }
    }
    fn update_in_order(&self, model: &mut Vec<bool>, rows: Rows<'_>, order: &[u32]) {
        let mut seen = vec![false; rows.len()];
        for &i in order {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "order is a permutation");
        self.update(model, rows);
    }
    /// 0 when the model holds exactly the rows outside the chunk, else 1.
    fn loss_sum(&self, model: &Vec<bool>, rows: Rows<'_>) -> f64 {
        let mut in_chunk = vec![false; model.len()];
        for (_, y) in rows.iter() {
            in_chunk[y as usize] = true;
            self.leaves[y as usize].fetch_add(1, Ordering::Relaxed);
        }
        f64::from(u8::from(model.iter().zip(&in_chunk).any(|(&m, &c)| m == c)))
    }
    fn copy(&self, model: &Vec<bool>) -> agghoo::Result<Vec<bool>> {
        Ok(model.clone())
    }
    fn save(&self, model: &Vec<bool>, log: &mut Option<Vec<bool>>) -> agghoo::Result<()> {
        *log = Some(model.clone());
        Ok(())
    }
    fn revert(&self, model: &mut Vec<bool>, log: &Option<Vec<bool>>) {
        if let Some(saved) = log {
            model.clone_from(saved);
        }
    }
}

/// Depth of each leaf of the TreeCV recursion on chunks s..=e (number of updates its points get).
fn leaf_depths(s: usize, e: usize, depth: u64, out: &mut Vec<u64>) {
    if s == e {
        out.push(depth);
        return;
    }
    let m = (s + e) / 2;
    leaf_depths(s, m, depth + 1, out);
    leaf_depths(m + 1, e, depth + 1, out);
}

#[test]
fn treecv_visits_every_chunk_once_and_feeds_each_point_once_per_level() {
    let n = 300;
    let data = gaussian_classes(n, 4);
    for k in [2, 3, 10, 37, 300] {
        for config in [
            tree(),
            tree().snapshot(SnapshotMode::Copy),
            tree().snapshot(SnapshotMode::SaveRevert),
            tree().order(Order::Randomised).seed(Seed(3)),
            tree().parallel(true),
        ] {
            let learner =
                Counting { fed: (0..n).map(|_| AtomicU64::new(0)).collect(), leaves: (0..n).map(|_| AtomicU64::new(0)).collect() };
            let chunks = ChunkedData::new(&learner, &data, k, Some(Seed(1))).unwrap();
            let report = treecv::run(&learner, &chunks, &config).unwrap();
            // Every leaf model was trained on exactly the points outside its chunk.
            assert_eq!(report.estimate, 0.0);
            let mut depths = Vec::new();
            leaf_depths(0, k - 1, 0, &mut depths);
            let max_depth = (k as f64).log2().ceil() as u64;
            let mut expected_updates = 0;
            for (pos, &row) in chunks.original_rows().iter().enumerate() {
                let chunk = (0..k).find(|&j| (0..=j).map(|i| chunks.chunk_len(i)).sum::<usize>() > pos).unwrap();
                assert_eq!(learner.leaves[row].load(Ordering::Relaxed), 1, "each point is tested exactly once");
                assert_eq!(learner.fed[row].load(Ordering::Relaxed), depths[chunk], "k = {k}: once per level above its leaf");
                assert!(depths[chunk] <= max_depth);
                expected_updates += depths[chunk];
            }
            assert_eq!(report.n_point_updates, expected_updates);
            assert!(report.passes <= max_depth as f64);
        }
    }
}

/// An observer counting the points fed, stopping the run once it has seen `.1` of them.
struct Points(AtomicU64, u64);

impl Observer for Points {
    fn progressed(&self, amount: u64) {
        self.0.fetch_add(amount, Ordering::Relaxed);
    }
    fn keep_going(&self) -> bool {
        self.0.load(Ordering::Relaxed) < self.1
    }
}

/// A stopped observer ends the run between updates with `Interrupted`, in either method, and
/// the forks run on the executor given (the same bits sequentially and on rayon).
#[test]
fn a_stopped_observer_interrupts_the_run_and_any_executor_gives_the_same_bits() {
    let data = covertype_like(40_000, Seed(3)).unwrap();
    let learner = Pegasos::new(1e-5).unwrap();
    let chunks = ChunkedData::new(&learner, &data, 16, Some(Seed(4))).unwrap();
    for method in [Method::Tree, Method::Standard] {
        let config = tree().method(method).parallel(true);
        let stop = Points(AtomicU64::new(0), 1);
        let got = treecv::run_with(&learner, &chunks, &config, &Observed::new(&Sequential, &stop));
        assert!(matches!(got, Err(Error::Interrupted(_))), "{method:?}: {got:?}");
        let sequential = treecv::run_with(&learner, &chunks, &config, &Sequential).unwrap();
        assert_reports_identical(&sequential, &treecv::run(&learner, &chunks, &config).unwrap());
    }
}

#[test]
fn progress_counts_every_update_and_matches_the_expected_total() {
    let data = gaussian_classes(500, 13);
    let learner = GaussianNaiveBayes::new(3).unwrap();
    for k in [2, 9, 500] {
        let chunks = ChunkedData::new(&learner, &data, k, None).unwrap();
        for method in [Method::Tree, Method::Standard] {
            let seen = Points(AtomicU64::new(0), u64::MAX);
            let config = tree().method(method).parallel(true);
            let r = treecv::run_with(&learner, &chunks, &config, &Observed::new(&Rayon, &seen)).unwrap();
            assert_eq!(seen.0.load(Ordering::Relaxed), r.n_point_updates);
            assert_eq!(treecv::expected_updates(&chunks, method), r.n_point_updates);
        }
    }
}

#[test]
fn standard_method_costs_n_times_k_minus_1_updates() {
    let data = gaussian_classes(100, 5);
    let learner = GaussianNaiveBayes::new(3).unwrap();
    let chunks = ChunkedData::new(&learner, &data, 7, None).unwrap();
    let s = treecv::run(&learner, &chunks, &standard()).unwrap();
    assert_eq!(s.n_point_updates, 100 * 6);
    let t = treecv::run(&learner, &chunks, &tree()).unwrap();
    assert!(t.n_point_updates <= 100 * 3);
}

/// Mean estimate over `seeds` randomised orders (one run for the fixed order).
fn mean_estimate<L: Incremental>(learner: &L, chunks: &ChunkedData, config: TreeCvConfig, seeds: u64) -> f64 {
    let runs = if config.order == Order::Fixed { 1 } else { seeds };
    (0..runs).map(|s| treecv::run(learner, chunks, &config.seed(Seed(s))).unwrap().estimate).sum::<f64>() / runs as f64
}

#[test]
fn pegasos_and_lsq_sgd_treecv_is_close_to_standard_cv() {
    // Online learners see the points in another order, so the two methods differ by the
    // order-sensitivity of the learner. Measured on these seeded problems (k = 10, 20,000 rows):
    // PEGASOS' last iterate moves the 0–1 estimate by about 0.01 from one random order to another,
    // so randomised runs are averaged over 5 seeds and the tolerance is 0.02 (12 % of the
    // estimate ≈ 0.17); LSQ-SGD's averaged iterate is stabler: 5 % of the estimate.
    let data = covertype_like(20_000, Seed(11)).unwrap();
    let pegasos = Pegasos::new(1e-3).unwrap();
    let chunks = ChunkedData::new(&pegasos, &data, 10, Some(Seed(1))).unwrap();
    for order in [Order::Fixed, Order::Randomised] {
        let t = mean_estimate(&pegasos, &chunks, tree().order(order), 5);
        let s = mean_estimate(&pegasos, &chunks, standard().order(order), 5);
        assert!((t - s).abs() < 0.02, "{order:?}: {t} vs {s}");
        assert!(t < 0.25, "{t}");
    }
    let data = msd_like(20_000, Seed(12)).unwrap();
    let sgd = LsqSgd::paper();
    let chunks = ChunkedData::new(&sgd, &data, 10, Some(Seed(1))).unwrap();
    for order in [Order::Fixed, Order::Randomised] {
        let t = mean_estimate(&sgd, &chunks, tree().order(order), 5);
        let s = mean_estimate(&sgd, &chunks, standard().order(order), 5);
        assert!((t - s).abs() < 0.05 * s, "{order:?}: {t} vs {s}");
    }
}

#[test]
fn randomised_order_is_reproducible_from_the_seed() {
    let data = covertype_like(3_000, Seed(2)).unwrap();
    let learner = Pegasos::new(1e-3).unwrap();
    let chunks = ChunkedData::new(&learner, &data, 20, Some(Seed(1))).unwrap();
    for method in [Method::Tree, Method::Standard] {
        let config = tree().method(method).order(Order::Randomised);
        let a = treecv::run(&learner, &chunks, &config.seed(Seed(7))).unwrap();
        let b = treecv::run(&learner, &chunks, &config.seed(Seed(7))).unwrap();
        let c = treecv::run(&learner, &chunks, &config.seed(Seed(8))).unwrap();
        let fixed = treecv::run(&learner, &chunks, &config.order(Order::Fixed)).unwrap();
        assert_reports_identical(&a, &b);
        assert_ne!(a.chunk_losses, c.chunk_losses);
        assert_ne!(a.chunk_losses, fixed.chunk_losses);
    }
}

#[test]
fn parallel_equals_sequential_bit_for_bit_on_any_thread_count() {
    // 40,000 rows: large enough to fork above the parallel cutoff.
    let data = covertype_like(40_000, Seed(3)).unwrap();
    let learner = Pegasos::new(1e-5).unwrap().with_projection(true).with_bias(true);
    // Many chunks for the tree (deep forks), few for the standard method (k passes each).
    for (method, k) in [(Method::Tree, 64), (Method::Standard, 6)] {
        let chunks = ChunkedData::new(&learner, &data, k, Some(Seed(4))).unwrap();
        for order in [Order::Fixed, Order::Randomised] {
            let config = tree().method(method).order(order).seed(Seed(9));
            let sequential = treecv::run(&learner, &chunks, &config).unwrap();
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let parallel = pool.install(|| treecv::run(&learner, &chunks, &config.parallel(true))).unwrap();
                assert_reports_identical(&sequential, &parallel);
            }
        }
    }
}

/// The data set with every feature rounded to the nearest `f32`.
fn rounded_to_f32(data: &Dataset) -> Dataset {
    let x = data.x().iter().map(|&v| f64::from(v as f32)).collect();
    Dataset::new(x, data.feature_names().to_vec(), data.target().clone(), data.target_name()).unwrap()
}

/// `f32` storage gives exactly the `f64` result on the data rounded to `f32`, for the learners
/// with native `f32` loops (PEGASOS, LSQ-SGD) and for the default (widening) paths (naive Bayes),
/// in every method and order, sequentially and on 2 threads.
#[test]
fn f32_storage_equals_f64_on_the_rounded_data() {
    fn check<L: Incremental>(learner: &L, data: &Dataset, k: usize) {
        let rounded = ChunkedData::new(learner, &rounded_to_f32(data), k, Some(Seed(3))).unwrap();
        let compact = ChunkedData::new(learner, data, k, Some(Seed(3))).unwrap().with_storage(Storage::F32).unwrap();
        assert_eq!(compact.storage(), Storage::F32);
        for method in [Method::Tree, Method::Standard] {
            for order in [Order::Fixed, Order::Randomised] {
                let config = tree().method(method).order(order).seed(Seed(5));
                let expected = treecv::run(learner, &rounded, &config).unwrap();
                assert_reports_identical(&expected, &treecv::run(learner, &compact, &config).unwrap());
                let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
                let parallel = pool.install(|| treecv::run(learner, &compact, &config.parallel(true))).unwrap();
                assert_reports_identical(&expected, &parallel);
            }
        }
    }
    // 20,000 rows: the tree forks above the parallel cutoff.
    let cov = covertype_like(20_000, Seed(6)).unwrap();
    check(&Pegasos::new(1e-4).unwrap(), &cov, 8);
    check(&Pegasos::new(1e-4).unwrap().with_projection(true).with_bias(true).with_loss(PegasosLoss::Hinge), &cov, 5);
    check(&LsqSgd::paper(), &msd_like(3_000, Seed(7)).unwrap(), 6);
    check(&GaussianNaiveBayes::new(3).unwrap(), &gaussian_classes(300, 8), 7);
    // The rounding does change the features of these generators (so the test compares two runs
    // on different numbers), and storing back as f64 keeps the rounded values.
    assert_ne!(rounded_to_f32(&cov).x(), cov.x());
    let learner = Pegasos::new(1e-4).unwrap();
    let back = ChunkedData::new(&learner, &cov, 4, None).unwrap().with_storage(Storage::F32).unwrap().with_storage(Storage::F64).unwrap();
    assert_eq!(back.storage(), Storage::F64);
    let rounded = ChunkedData::new(&learner, &rounded_to_f32(&cov), 4, None).unwrap();
    assert_reports_identical(&treecv::run(&learner, &back, &tree()).unwrap(), &treecv::run(&learner, &rounded, &tree()).unwrap());
}

#[test]
fn copy_and_save_revert_give_identical_results() {
    let data = msd_like(2_000, Seed(4)).unwrap();
    let learner = LsqSgd::paper();
    let chunks = ChunkedData::new(&learner, &data, 2_000, None).unwrap();
    let a = treecv::run(&learner, &chunks, &tree().snapshot(SnapshotMode::Copy)).unwrap();
    let b = treecv::run(&learner, &chunks, &tree().snapshot(SnapshotMode::SaveRevert)).unwrap();
    assert_reports_identical(&a, &b);
    assert!(a.passes <= 11.0); // ⌈log2 2000⌉ = 11
    let km = OnlineKMeans::new(3).unwrap();
    let chunks = ChunkedData::new(&km, &data, 50, Some(Seed(1))).unwrap();
    let a = treecv::run(&km, &chunks, &tree().snapshot(SnapshotMode::Copy)).unwrap();
    let b = treecv::run(&km, &chunks, &tree().snapshot(SnapshotMode::SaveRevert)).unwrap();
    assert_reports_identical(&a, &b);
}

#[test]
fn shuffled_chunks_are_the_vfold_blocks() {
    let data = gaussian_classes(50, 6);
    let learner = GaussianNaiveBayes::new(3).unwrap();
    let chunks = ChunkedData::new(&learner, &data, 4, Some(Seed(21))).unwrap();
    let splits = VFold::new(4).unwrap().instantiate(50, Seed(21)).unwrap();
    let mut pos = 0;
    for (j, split) in splits.iter().enumerate() {
        assert_eq!(&chunks.original_rows()[pos..pos + chunks.chunk_len(j)], split.validation());
        pos += chunks.chunk_len(j);
    }
}

#[test]
fn unequal_user_chunks_give_the_size_weighted_estimate() {
    let data = gaussian_classes(60, 7);
    let learner = GaussianNaiveBayes::new(3).unwrap();
    let chunks = ChunkedData::from_chunks(&learner, &data, &[(0..5).collect(), (5..40).collect(), (40..60).collect()]).unwrap();
    let r = treecv::run(&learner, &chunks, &tree()).unwrap();
    let s = treecv::run(&learner, &chunks, &standard()).unwrap();
    assert_eq!(r.chunk_sizes, vec![5, 35, 20]);
    let weighted: f64 = r.chunk_losses.iter().zip(&r.chunk_sizes).map(|(l, &c)| l * c as f64).sum::<f64>() / 60.0;
    assert!((r.estimate - weighted).abs() < 1e-15);
    assert_eq!(r.chunk_losses, s.chunk_losses);
}

#[test]
fn grid_selection_and_agghoo_on_linear_learners() {
    let data = covertype_like(4_000, Seed(8)).unwrap();
    let chunks = ChunkedData::new(&Pegasos::new(1.0).unwrap(), &data, 5, Some(Seed(2))).unwrap();
    let grid = [1e-5, 1e-3, 1e-1, 10.0];
    let report = select_grid(&grid, Pegasos::new, &chunks, &tree(), TieRule::First, &agghoo::engine::Rayon).unwrap();
    let best = report.estimates.iter().copied().fold(f64::INFINITY, f64::min);
    assert_eq!(report.best_index, report.estimates.iter().position(|&e| e == best).unwrap());
    for (m, &v) in grid.iter().enumerate() {
        let alone = treecv::run(&Pegasos::new(v).unwrap(), &chunks, &tree()).unwrap();
        assert_eq!(alone.estimate, report.estimates[m]);
    }
    // With one grid value Agghoo averages the k leaf models: compare with a by-hand average.
    let learner = Pegasos::new(1e-3).unwrap();
    let agg = agghoo_linear(&[1e-3], Pegasos::new, &chunks, &tree(), TieRule::First, &agghoo::engine::Rayon).unwrap();
    let (_, leaves) = treecv::run_with_leaves(&learner, &chunks, &tree(), |_, m| m.weights(), &agghoo::engine::Rayon).unwrap();
    for (j, w) in agg.weights.iter().enumerate() {
        let by_hand: f64 = leaves.iter().map(|l| l[j] / 5.0).sum();
        assert!((w - by_hand).abs() < 1e-12);
    }
    let agg = agghoo_linear(&grid, Pegasos::new, &chunks, &tree(), TieRule::First, &agghoo::engine::Rayon).unwrap();
    assert_eq!(agg.selected.len(), 5);
}

// ---- typed errors ----

#[test]
fn bad_fold_counts_and_empty_chunks_are_typed_errors() {
    let data = gaussian_classes(10, 8);
    let learner = GaussianNaiveBayes::new(3).unwrap();
    assert!(matches!(ChunkedData::new(&learner, &data, 11, None), Err(Error::TooFewRows { needed: 11, found: 10, .. })));
    assert!(matches!(ChunkedData::new(&learner, &data, 1, None), Err(Error::InvalidParameter { name: "folds", .. })));
    assert!(matches!(ChunkedData::from_chunks(&learner, &data, &[vec![0, 1], vec![], vec![2]]), Err(Error::InvalidSplit { split: 1, .. })));
    assert!(matches!(
        ChunkedData::from_chunks(&learner, &data, &[vec![0, 1], vec![1]]),
        Err(Error::InvalidParameter { name: "chunks", .. })
    ));
    assert!(ChunkedData::new(&learner, &data, 10, None).is_ok());
}

/// A learner with neither snapshot capability.
struct NoSnapshots;

impl Incremental for NoSnapshots {
    type Model = f64;
    type Log = ();
    fn name(&self) -> &'static str {
        "no-snapshots"
    }
    fn prepare_target(&self, target: &Target) -> agghoo::Result<Vec<f64>> {
        Ok(vec![0.0; target.len()])
    }
    fn init(&self, _: usize) -> f64 {
        0.0
    }
    fn update(&self, model: &mut f64, rows: Rows<'_>) {
        *model += rows.len() as f64;
    }
    fn update_in_order(&self, model: &mut f64, rows: Rows<'_>, _: &[u32]) {
        self.update(model, rows);
    }
    fn loss_sum(&self, _: &f64, rows: Rows<'_>) -> f64 {
        rows.len() as f64
    }
}

#[test]
fn learner_without_snapshots_is_refused_by_name() {
    let data = gaussian_classes(20, 9);
    let chunks = ChunkedData::new(&NoSnapshots, &data, 4, None).unwrap();
    for (config, capability) in [(tree(), "copy"), (tree().snapshot(SnapshotMode::SaveRevert), "save/revert")] {
        match treecv::run(&NoSnapshots, &chunks, &config) {
            Err(Error::Unsupported { what, .. }) => assert!(what.contains(capability) && what.contains("no-snapshots"), "{what}"),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }
    // The standard method trains from scratch per fold and needs no snapshot.
    assert_eq!(treecv::run(&NoSnapshots, &chunks, &standard()).unwrap().estimate, 1.0);
}

#[test]
fn pegasos_refuses_labels_other_than_0_1_or_pm1() {
    let data = gaussian_classes(30, 10);
    let err = ChunkedData::new(&Pegasos::new(0.1).unwrap(), &data, 3, None).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { name: "labels", .. }), "{err}");
    assert!(err.to_string().contains("a, b, c"));
    let counts = count_classes(30, 11); // labelled 0 / 1: accepted
    assert!(ChunkedData::new(&Pegasos::new(0.1).unwrap(), &counts, 3, None).is_ok());
    assert!(matches!(ChunkedData::new(&LsqSgd::paper(), &counts, 3, None), Err(Error::TaskMismatch(_))));
    let err = ChunkedData::new(&MultinomialNaiveBayes::new(3, 1.0).unwrap(), &gaussian_classes(30, 12), 3, None).unwrap_err();
    assert!(matches!(err, Error::InvalidParameter { name: "features", .. }), "{err}");
}

/// A value beyond f32's range would be stored as ±∞ (and PEGASOS's error rate would be 0.5
/// instead of 0): `--f32` refuses it, naming the row, the column and the value.
#[test]
fn f32_storage_refuses_values_beyond_its_range() {
    let mut data = count_classes(40, 2);
    let d = data.n_features();
    let mut x = data.x().to_vec();
    x[7 * d + 1] = 1e300;
    data = Dataset::new(x, data.feature_names().to_vec(), data.target().clone(), "y").unwrap();
    let chunks = ChunkedData::new(&Pegasos::new(0.1).unwrap(), &data, 4, None).unwrap();
    match chunks.with_storage(Storage::F32) {
        Err(Error::OutOfRange { row: 7, column, value, .. }) => {
            assert_eq!(column, data.feature_names()[1]);
            assert_eq!(value, 1e300);
        }
        other => panic!("expected OutOfRange for row 7, got {:?}", other.map(|c| c.storage())),
    }
    // The largest finite f32 itself is stored (rounding does not overflow).
    let mut x = data.x().to_vec();
    x[7 * d + 1] = f64::from(f32::MAX);
    let fits = Dataset::new(x, data.feature_names().to_vec(), data.target().clone(), "y").unwrap();
    assert!(ChunkedData::new(&Pegasos::new(0.1).unwrap(), &fits, 4, None).unwrap().with_storage(Storage::F32).is_ok());
}

/// Missing feature values are refused by name, whichever way the chunks are cut: the incremental
/// learners do not impute, and a NaN would otherwise poison a model silently.
#[test]
fn missing_values_are_refused_not_learned() {
    let data = gaussian_classes(40, 2);
    let mut x = data.x().to_vec();
    x[13] = f64::NAN;
    let holed = Dataset::new_with_missing(x, data.feature_names().to_vec(), data.target().clone(), "y").unwrap();
    let nb = GaussianNaiveBayes::new(3).unwrap();
    for e in [ChunkedData::new(&nb, &holed, 4, None).unwrap_err(), ChunkedData::block(&nb, &holed, &[20, 20]).unwrap_err()] {
        assert!(matches!(&e, Error::InvalidParameter { name: "missing", .. }), "{e}");
        assert!(e.to_string().contains("do not impute"), "{e}");
    }
    assert!(ChunkedData::new(&nb, &data, 4, None).is_ok());
}
