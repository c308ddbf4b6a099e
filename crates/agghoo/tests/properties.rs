//! Property tests of the invariants of `docs/PROCEDURES.md` over random small problems (bounded case counts so the
//! suite stays fast). Every assertion loops over every split, not just the first.

use agghoo::data::{Dataset, Target};
use agghoo::family::{self, Family, FamilyKind, FamilyParams, GridSpec, Predictor};
use agghoo::resample::{MonteCarlo, Plan, PlanContext, VFold};
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Purpose, Seed};
use proptest::prelude::*;
use rand::RngExt;

fn random_data(n: usize, d: usize, classes: u32, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    // coarse values: many distance ties and duplicate rows
    let x: Vec<f64> = (0..n * d).map(|_| f64::from(rng.random_range(0..5u32))).collect();
    let target = if classes == 0 {
        Target::Real((0..n).map(|_| rng.random::<f64>()).collect())
    } else {
        let mut labels: Vec<u32> = (0..n).map(|_| rng.random_range(0..classes)).collect();
        labels[0] = 0;
        labels[1] = 1; // at least two classes
        Target::Classes { labels, names: (0..classes).map(|c| format!("c{c}")).collect() }
    };
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").expect("valid data")
}

fn knn(data: &Dataset, kmax: usize) -> Box<dyn Family> {
    let grid = GridSpec::Values((1..=kmax).map(|k| k as f64).collect());
    family::build(FamilyKind::Knn, &FamilyParams::with_grid(grid), data).expect("family")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Agghoo with V = 1 is the hold-out; every split's member is the argmin of its own curve;
    /// 0–1 risks lie in [0, 1].
    #[test]
    fn agghoo_v1_is_holdout_and_risks_are_bounded(n in 20usize..120, d in 1usize..4, classes in 0u32..4, tau in 0.3f64..0.9, seed: u64) {
        prop_assume!(classes != 1);
        let data = random_data(n, d, classes, seed);
        let n_train = (tau * n as f64).floor() as usize;
        prop_assume!(n_train >= 5 && n_train < n);
        let fam = knn(&data, 5);
        let one = MonteCarlo::new(1, tau).unwrap().instantiate(n, Seed(seed)).unwrap();
        let method = if classes == 0 { Method::Agghoo } else { Method::Majhoo };
        let (ag, rep) = select::select(fam.as_ref(), &data, &one, &SelectConfig::new(method)).unwrap();
        let (ho, _) = select::select(fam.as_ref(), &data, &one, &SelectConfig::new(Method::HoldOut)).unwrap();
        // The predictor is the same; soft outputs differ by definition (vote shares vs the
        // member's neighbour fractions), so compare labels and values.
        let (a, h) = (ag.predict(&data).unwrap(), ho.predict(&data).unwrap());
        prop_assert_eq!(a.labels(), h.labels());
        prop_assert_eq!(a.values(), h.values());
        for s in &rep.splits {
            prop_assert_eq!(s.selected_index, select::argmin(&s.risks, select::TieRule::First).unwrap());
            if classes > 0 {
                prop_assert!(s.risks.iter().all(|&r| (0.0..=1.0).contains(&r)));
            }
        }
    }

    /// The path equals a fresh fit at every grid point, on every split of a V-fold plan.
    #[test]
    fn knn_path_equals_refit_on_every_split(n in 12usize..80, d in 1usize..4, classes in 0u32..4, v in 2usize..5, seed: u64) {
        prop_assume!(classes != 1 && v <= n);
        let data = random_data(n, d, classes, seed);
        let splits = VFold::new(v).unwrap().instantiate(n, Seed(seed)).unwrap();
        let kmax = (splits.min_train_size()).min(7);
        let fam = knn(&data, kmax);
        for split in splits.iter() {
            let train = data.view(split.train());
            let val = data.view(split.validation());
            let fast = fam.fit_path(&train).unwrap().predict(&val).unwrap();
            for (m, p) in fast.iter().enumerate() {
                let slow = fam.fit(&train, m).unwrap().predict(&val).unwrap();
                prop_assert_eq!(p.labels(), slow.labels());
                if let (Some(a), Some(b)) = (p.values(), slow.values()) {
                    for (x, y) in a.iter().zip(b) {
                        prop_assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()));
                    }
                }
            }
        }
    }

    /// Same seed → same report; the CV curve is the size-weighted mean of the split curves and
    /// lies within the range of the split risks.
    #[test]
    fn cv_curve_is_a_weighted_mean_within_the_split_range(n in 15usize..90, v in 2usize..6, seed: u64) {
        prop_assume!(v <= n);
        let data = random_data(n, 2, 2, seed);
        let plan = Plan::VFold(VFold::new(v).unwrap());
        let splits = plan.instantiate(&PlanContext::of(&data), Seed(seed)).unwrap();
        let fam = knn(&data, splits.min_train_size().min(5));
        let (_, a) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Cv)).unwrap();
        let (_, b) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Cv)).unwrap();
        prop_assert_eq!(&a, &b);
        for m in 0..a.grid.len() {
            let lo = a.splits.iter().map(|s| s.risks[m]).fold(f64::INFINITY, f64::min);
            let hi = a.splits.iter().map(|s| s.risks[m]).fold(f64::NEG_INFINITY, f64::max);
            prop_assert!(a.cv_curve.mean[m] >= lo - 1e-12 && a.cv_curve.mean[m] <= hi + 1e-12);
        }
    }
}

/// Integer counts in `0..5` per feature for multinomial naive Bayes.
fn count_data(n: usize, d: usize, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 1);
    let mut labels: Vec<u32> = (0..n).map(|_| rng.random_range(0..2u32)).collect();
    labels[0] = 0;
    labels[1] = 1;
    let x: Vec<f64> = labels
        .iter()
        .flat_map(|&c| {
            (0..d).map(|j| f64::from(rng.random_range(0..3u32) + u32::from((j as u32 + c).is_multiple_of(2)) * 2)).collect::<Vec<_>>()
        })
        .collect();
    Dataset::new(x, (0..d).map(|j| format!("w{j}")).collect(), Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y")
        .expect("valid data")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// TreeCV equals standard k-fold CV bit for bit for an order-independent learner
    /// (multinomial naive Bayes: sufficient statistics are integer counts).
    #[test]
    fn treecv_equals_standard_cv_for_naive_bayes(n in 10usize..90, d in 1usize..5, k in 2usize..12, seed: u64) {
        use agghoo::incremental::MultinomialNaiveBayes;
        use agghoo::treecv::{self, ChunkedData, TreeCvConfig};
        prop_assume!(k <= n);
        let data = count_data(n, d, seed);
        let learner = MultinomialNaiveBayes::new(2, 1.0).unwrap();
        let chunks = ChunkedData::new(&learner, &data, k, Some(Seed(seed))).unwrap();
        let tree = treecv::run(&learner, &chunks, &TreeCvConfig::new()).unwrap();
        let standard = treecv::run(&learner, &chunks, &TreeCvConfig::new().method(treecv::Method::Standard)).unwrap();
        prop_assert_eq!(&tree.chunk_losses, &standard.chunk_losses);
        prop_assert_eq!(tree.estimate.to_bits(), standard.estimate.to_bits());
    }

    /// A V-fold risk estimate is the mean of the rows' out-of-fold losses, so it lies within
    /// [min loss, max loss] over rows, and within the range of the per-split risks.
    #[test]
    fn cv_estimate_lies_within_the_pointwise_losses(n in 12usize..80, d in 1usize..4, classes in 0u32..4, v in 2usize..6, m in 0usize..4, seed: u64) {
        use agghoo::estimate::{EstimateConfig, estimate_risk};
        prop_assume!(classes != 1 && v <= n);
        let data = random_data(n, d, classes, seed);
        let splits = VFold::new(v).unwrap().instantiate(n, Seed(seed)).unwrap();
        let fam = knn(&data, splits.min_train_size().min(4));
        prop_assume!(m < fam.grid().len());
        let config = EstimateConfig { keep_predictions: true, ..EstimateConfig::default() };
        let est = estimate_risk(fam.as_ref(), m, &data, &splits, &config).unwrap();
        let risk = est.summaries[0].estimate;
        let oof = est.out_of_fold.unwrap();
        let losses: Vec<f64> = oof.rows.iter().map(|r| {
            let (p, y) = (r.prediction.unwrap(), data.all().y(r.row));
            if classes == 0 { (p - y).powi(2) } else { f64::from(u8::from(p != y)) }
        }).collect();
        let (lo, hi) = losses.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &l| (a.min(l), b.max(l)));
        let tol = 1e-12 * (1.0 + hi.abs());
        prop_assert!(risk >= lo - tol && risk <= hi + tol, "{} not in [{}, {}]", risk, lo, hi);
        let mean = losses.iter().sum::<f64>() / n as f64;
        prop_assert!((risk - mean).abs() <= tol, "{} vs mean {}", risk, mean);
        let (slo, shi) = est.splits.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| (a.min(s.risks[0]), b.max(s.risks[0])));
        prop_assert!(risk >= slo - tol && risk <= shi + tol);
    }
}
