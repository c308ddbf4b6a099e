use super::*;
use crate::data::Dataset;
use crate::data::Target;
use crate::family::{FamilyKind, FamilyParams};
use crate::testing::path_equals_refit;
use rand::{RngExt, SeedableRng};

fn build(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    crate::family::build(FamilyKind::Cart, params, data)
}

fn random_data(n: usize, d: usize, classes: Option<u32>, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
    let target = match classes {
        Some(k) => Target::Classes {
            labels: (0..n).map(|i| if x[i * d] + 0.3 * rng.random::<f64>() > 0.6 { 1 } else { rng.random_range(0..k) }).collect(),
            names: (0..k).map(|c| c.to_string()).collect(),
        },
        None => Target::Real((0..n).map(|i| x[i * d] * 3.0 + rng.random::<f64>()).collect()),
    };
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").unwrap()
}

#[test]
fn path_equals_refit_at_every_alpha() {
    for (classes, criterion) in [(Some(2), Criterion::Gini), (Some(3), Criterion::Entropy), (None, Criterion::SquaredError)] {
        let data = random_data(160, 4, classes, 5);
        let rows: Vec<usize> = (0..160).collect();
        let (train, val) = rows.split_at(120);
        let full = CartFamily::new(vec![0.0], data.task(), data.target().n_classes(), criterion, 1, None).unwrap();
        let mut alphas = full.pruning_path(&data.view(train)).unwrap().alphas;
        alphas.extend([0.001, 0.0105, 0.5]);
        let fam = CartFamily::new(alphas, data.task(), data.target().n_classes(), criterion, 2, None).unwrap();
        assert!(fam.grid().len() > 5);
        path_equals_refit(&fam, &data.view(train), &data.view(val), 0.0);
    }
}

#[test]
fn hand_computed_single_split() {
    // x = 1..6, classes a a a b b a: the best Gini split is x ≤ 4.5 (left a a a b, right b a? no):
    // candidates (left | right) and Σ c²/n: ≤1.5: 1 + (4+4)/5... computed below by hand.
    // Split after 3 (threshold 3.5): left {a,a,a} → 9/3 = 3, right {b,b,a} → (4+1)/3 = 5/3; total 4.667.
    // Split after 5 (threshold 5.5): left {a,a,a,b,b} → (9+4)/5 = 2.6, right {a} → 1; total 3.6.
    // Split after 4: left {a,a,a,b} → 10/4 = 2.5, right {b,a} → 1; total 3.5. Best: 3.5.
    let data = Dataset::new(
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        vec!["x".into()],
        Target::Classes { labels: vec![0, 0, 0, 1, 1, 0], names: vec!["a".into(), "b".into()] },
        "y",
    )
    .unwrap();
    let fam = CartFamily::new(vec![0.0], Task::Classification, 2, Criterion::Gini, 1, Some(1)).unwrap();
    let tree = fam.grow(&data.all()).unwrap();
    let s = tree.nodes[0].split.unwrap();
    assert_eq!((s.feature, s.threshold), (0, 3.5));
    // Root Gini: p = (4/6, 2/6) → 1 − 16/36 − 4/36 = 4/9; left pure; right 1 − 1/9 − 4/9 = 4/9.
    assert!((tree.nodes[0].impurity - 4.0 / 9.0).abs() < 1e-15);
    // R(T) = (3/6)·4/9 = 2/9, R(root) = 4/9, one cut: α_1 = (4/9 − 2/9) / (2 − 1) = 2/9.
    let path = fam.pruning_path(&data.all()).unwrap();
    assert_eq!(path.alphas.len(), 2);
    assert!((path.alphas[1] - 2.0 / 9.0).abs() < 1e-15);
    assert!((path.impurities[0] - 2.0 / 9.0).abs() < 1e-15 && (path.impurities[1] - 4.0 / 9.0).abs() < 1e-15);
    // Below α_1 the right leaf {b, b, a} predicts b with decision 2/3 − 1/3; at α_1 the root predicts a.
    let fam = CartFamily::new(vec![0.0, 0.2, 2.0 / 9.0], Task::Classification, 2, Criterion::Gini, 1, Some(1)).unwrap();
    let p = fam.fit_path(&data.all()).unwrap().predict(&data.view(&[4])).unwrap();
    let labels: Vec<u32> = p.iter().map(|q| q.labels().unwrap()[0]).collect();
    assert_eq!(labels, [1, 1, 0]);
    let Predictions::Classes { decision: Some(dec), proba: Some(proba), .. } = &p[0] else { panic!() };
    assert!((dec[0] - 1.0 / 3.0).abs() < 1e-15 && (proba[1] - 2.0 / 3.0).abs() < 1e-15);
}

#[test]
fn fit_value_prunes_at_any_alpha() {
    let data = random_data(80, 3, Some(2), 9);
    let fam = CartFamily::new(vec![0.0, 0.02], Task::Classification, 2, Criterion::Gini, 1, None).unwrap();
    let path = fam.pruning_path(&data.all()).unwrap();
    // Between two breakpoints the tree is the one of the lower breakpoint.
    let k = path.alphas.len() / 2;
    let (lo, hi) = (path.alphas[k], path.alphas[k + 1]);
    assert!(lo < hi);
    let leaves = |a: f64| match fam.fit_value(&data.all(), a).unwrap() {
        Model::Cart(m) => m.n_leaves(),
        _ => unreachable!(),
    };
    assert_eq!(leaves(lo), leaves((lo + hi) / 2.0));
    assert!(leaves(hi) < leaves(lo));
    assert!(matches!(fam.fit_value(&data.all(), -0.1), Err(Error::InvalidParameter { name: "alpha", .. })));
}

#[test]
fn regression_leaf_means_and_pruning() {
    // y = 0, 0, 10, 10 on x = 1..4: one split at 2.5; leaves are pure (variance 0), root variance 25.
    let data = Dataset::new(vec![1.0, 2.0, 3.0, 4.0], vec!["x".into()], Target::Real(vec![0.0, 0.0, 10.0, 10.0]), "y").unwrap();
    let fam = CartFamily::new(vec![0.0, 24.0, 25.0], Task::Regression, 0, Criterion::SquaredError, 1, None).unwrap();
    let p = fam.fit_path(&data.all()).unwrap().predict(&data.view(&[0, 3])).unwrap();
    assert_eq!(p[0].values().unwrap(), [0.0, 10.0]);
    assert_eq!(p[1].values().unwrap(), [0.0, 10.0]);
    assert_eq!(p[2].values().unwrap(), [5.0, 5.0]);
}

#[test]
fn bad_parameters_are_typed_errors() {
    let data = random_data(30, 2, Some(2), 1);
    let bad = FamilyParams::default().set("min_samples_leaf", 0);
    assert!(matches!(build(&bad, &data), Err(Error::InvalidParameter { name: "min_samples_leaf", .. })));
    assert!(matches!(build(&FamilyParams::default().set("criterion", "squared_error"), &data), Err(Error::TaskMismatch(_))));
    assert!(matches!(build(&FamilyParams::default().set("depth", 3), &data), Err(Error::InvalidParameter { name: "param", .. })));
    assert!(matches!(CartFamily::new(vec![-1.0], Task::Classification, 2, Criterion::Gini, 1, None), Err(Error::InvalidParameter { .. })));
    let fam = build(&FamilyParams::default(), &data).unwrap();
    assert_eq!(fam.grid().values()[0], 0.0);
    let other = random_data(30, 3, Some(2), 1);
    let path = fam.fit_path(&data.all()).unwrap();
    assert!(matches!(path.predict(&other.all()), Err(Error::SchemaMismatch(_))));
}

/// Row `i` listed `counts[i]` times (a zero count drops it), for `Dataset::select_rows`.
fn repeated(counts: &[u32]) -> Vec<usize> {
    counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i, c as usize)).collect()
}

/// The three criteria with data of their task.
fn criteria() -> [(Option<u32>, Criterion); 3] {
    [(Some(2), Criterion::Gini), (Some(3), Criterion::Entropy), (None, Criterion::SquaredError)]
}

fn cart(data: &Dataset, alphas: Vec<f64>, criterion: Criterion, min_samples_leaf: usize) -> CartFamily {
    CartFamily::new(alphas, data.task(), data.target().n_classes(), criterion, min_samples_leaf, None).unwrap()
}

/// Every value of every grid point's predictions of `family`'s path trained on `train`, on `rows`.
fn path_values(family: &CartFamily, train: &View<'_>, rows: &View<'_>) -> Vec<Vec<f64>> {
    let predictions = family.fit_path(train).unwrap().predict(rows).unwrap();
    predictions
        .iter()
        .map(|p| match p {
            Predictions::Real(v) => v.clone(),
            Predictions::Classes { proba: Some(p), .. } => p.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn assert_close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{what}[{i}]: {x} vs {y}");
    }
}

#[test]
fn unit_weights_and_power_of_two_weights_give_the_same_bits() {
    for (classes, criterion) in criteria() {
        let data = random_data(120, 4, classes, 21);
        let ones = data.clone().with_weights(vec![1.0; 120]).unwrap();
        // Doubling every weight doubles every weight sum exactly: same splits, fractions and α.
        let twos = data.clone().with_weights(vec![2.0; 120]).unwrap();
        for min_samples_leaf in [1, 4] {
            let fam = cart(&data, vec![0.0], criterion, min_samples_leaf);
            let path = fam.pruning_path(&data.all()).unwrap();
            assert_eq!(fam.pruning_path(&ones.all()).unwrap(), path, "{criterion:?}");
            assert_eq!(fam.pruning_path(&twos.all()).unwrap().alphas, path.alphas, "{criterion:?}: min_samples_leaf counts rows");
            let fam = cart(&data, path.alphas.clone(), criterion, min_samples_leaf);
            let expected = path_values(&fam, &data.all(), &data.all());
            assert_eq!(path_values(&fam, &ones.all(), &data.all()), expected, "{criterion:?}");
            assert_eq!(path_values(&fam, &twos.all(), &data.all()), expected, "{criterion:?}");
        }
        // The default grid (grown on all rows) reads the weights too.
        let (default, weighted) = (build(&FamilyParams::default(), &data).unwrap(), build(&FamilyParams::default(), &ones).unwrap());
        assert_eq!(default.grid().values(), weighted.grid().values());
    }
}

/// `data` with a real target rounded to multiples of 1/64, so that weighted sums and sums of
/// copies are exact and equally good splits (the same rows split by two features) tie exactly
/// both ways; the tie then goes to the same feature, which matters for rows outside the training
/// set (here the zero-weight rows).
fn dyadic(data: Dataset) -> Dataset {
    let Target::Real(y) = data.target() else { return data };
    let y = y.iter().map(|v| (v * 64.0).round() / 64.0).collect();
    Dataset::new(data.x().to_vec(), data.feature_names().to_vec(), Target::Real(y), "y").unwrap()
}

#[test]
fn integer_weights_equal_row_duplication_and_zero_weights_drop_rows() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    for (classes, criterion) in criteria() {
        let data = dyadic(random_data(120, 4, classes, 23));
        let counts: Vec<u32> = (0..120).map(|_| rng.random_range(0..4u32)).collect();
        assert!(counts.contains(&0) && counts.contains(&3));
        let copies = data.select_rows(&repeated(&counts)).unwrap();
        let weighted = data.clone().with_weights(counts.iter().map(|&c| f64::from(c)).collect()).unwrap();
        let fam = cart(&data, vec![0.0], criterion, 1);
        let (a, b) = (fam.pruning_path(&weighted.all()).unwrap(), fam.pruning_path(&copies.all()).unwrap());
        assert_close(&a.alphas, &b.alphas, 1e-12, &format!("{criterion:?} alphas"));
        assert_close(&a.impurities, &b.impurities, 1e-12, &format!("{criterion:?} impurities"));
        let mut alphas = b.alphas.clone();
        alphas.dedup();
        let fam = cart(&data, alphas, criterion, 1);
        let (p, q) = (path_values(&fam, &weighted.all(), &data.all()), path_values(&fam, &copies.all(), &data.all()));
        for (m, (u, v)) in p.iter().zip(&q).enumerate() {
            assert_close(u, v, 1e-12, &format!("{criterion:?} grid point {m}"));
        }
    }
}

#[test]
fn min_samples_leaf_counts_rows_not_weight() {
    // Two rows of weight 5: a duplication would give 10 rows and allow leaves of 4; with weights
    // a node of 2 rows cannot be split into leaves of 4 rows.
    let data = Dataset::new(
        vec![1.0, 2.0, 3.0, 4.0],
        vec!["x".into()],
        Target::Classes { labels: vec![0, 0, 1, 1], names: vec!["a".into(), "b".into()] },
        "y",
    )
    .unwrap();
    let weighted = data.clone().with_weights(vec![5.0, 5.0, 5.0, 5.0]).unwrap();
    let fam = cart(&data, vec![0.0], Criterion::Gini, 2);
    assert_eq!(fam.grow(&weighted.all()).unwrap().n_leaves(), 2);
    let fam = cart(&data, vec![0.0], Criterion::Gini, 3);
    assert_eq!(fam.grow(&weighted.all()).unwrap().n_leaves(), 1);
    assert_eq!(fam.grow(&data.select_rows(&repeated(&[5, 5, 5, 5])).unwrap().all()).unwrap().n_leaves(), 2);
}

#[test]
fn weighted_trees_equal_scikit_learn() {
    let golden: serde_json::Value = serde_json::from_str(include_str!("../../../tests/golden/weights_sklearn.json")).unwrap();
    let floats = |v: &serde_json::Value| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect::<Vec<f64>>();
    let g = &golden["trees"];
    let d = g["n_features"].as_u64().unwrap() as usize;
    let names: Vec<String> = (0..d).map(|j| format!("x{j}")).collect();
    let x_test = floats(&g["x_test"]);
    let labels: Vec<u32> = floats(&g["y_class_train"]).iter().map(|&c| c as u32).collect();
    let classes = Target::Classes { labels, names: vec!["0".into(), "1".into(), "2".into()] };
    let n_test = x_test.len() / d;
    let mut checked_predictions = 0;
    for fit in g["fits"].as_array().unwrap() {
        let criterion = Criterion::parse_name(fit["criterion"].as_str().unwrap()).unwrap();
        let target = if criterion == Criterion::SquaredError { Target::Real(floats(&g["y_real_train"])) } else { classes.clone() };
        let train = Dataset::new(floats(&g["x_train"]), names.clone(), target, "y").unwrap().with_weights(floats(&g["weights"])).unwrap();
        let test_target = if criterion == Criterion::SquaredError {
            Target::Real(vec![0.0; n_test])
        } else {
            Target::Classes { labels: vec![0; n_test], names: vec!["0".into(), "1".into(), "2".into()] }
        };
        let test = Dataset::new(x_test.clone(), names.clone(), test_target, "y").unwrap();
        let msl = fit["min_samples_leaf"].as_u64().unwrap() as usize;
        let fam = cart(&train, vec![0.0], criterion, msl);
        let what = format!("{criterion:?}, min_samples_leaf = {msl}");
        let path = fam.pruning_path(&train.all()).unwrap();
        assert_close(&path.alphas, &floats(&fit["alphas"]), 1e-10, &format!("{what}: alphas"));
        assert_close(&path.impurities, &floats(&fit["impurities"]), 1e-10, &format!("{what}: impurities"));
        if fit["stable"].as_bool().unwrap() {
            let tree = fam.grow(&train.all()).unwrap();
            assert_eq!(tree.n_leaves() as u64, fit["n_leaves"].as_u64().unwrap(), "{what}");
            let values = path_values(&fam, &train.all(), &test.all()).remove(0);
            assert_close(&values, &floats(&fit["predictions"]), 1e-12, &format!("{what}: predictions"));
            checked_predictions += 1;
        }
    }
    assert!(checked_predictions >= 2, "the fits scikit-learn grows alike on every random state (min_samples_leaf = 3, classification)");
}

#[test]
fn a_tree_grown_in_reused_buffers_equals_one_grown_afresh() {
    // A forest grows its trees one after another in the same working memory: a tree must not
    // see anything the previous one left there (a larger tree, other bootstrap counts, another
    // feature order, sample weights).
    use self::tree::{FeatureSampler, GrowBuffers, grow_with};
    for (classes, criterion) in [(Some(3), Criterion::Gini), (None, Criterion::SquaredError)] {
        let data = random_data(200, 5, classes, 11);
        let weighted = data.clone().with_weights((0..200).map(|i| (i % 4) as f64 * 0.5).collect()).unwrap();
        let config = GrowConfig { criterion, min_samples_leaf: 1, max_depth: None, n_classes: data.target().n_classes() };
        let mut buffers = GrowBuffers::default();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for (round, d) in [&data, &weighted, &data].into_iter().enumerate() {
            let sorted = Presorted::new(&d.all()).unwrap();
            let copies: Vec<u32> = (0..200).map(|_| rng.random_range(0..3)).collect();
            let copies = (round != 1).then_some(copies.as_slice());
            let sampler_seed = rng.random::<u64>();
            let mut fresh_rng = rand_chacha::ChaCha8Rng::seed_from_u64(sampler_seed);
            let mut reused_rng = rand_chacha::ChaCha8Rng::seed_from_u64(sampler_seed);
            let fresh = grow(&sorted, copies, &config, Some(FeatureSampler { mtry: 2, rng: &mut fresh_rng }));
            let reused = grow_with(&sorted, copies, &config, Some(FeatureSampler { mtry: 2, rng: &mut reused_rng }), &mut buffers);
            assert!(fresh.nodes.len() > 3, "round {round}: a tree of {} nodes tests little", fresh.nodes.len());
            assert_eq!(fresh, reused, "round {round}");
            buffers.recycle(reused);
        }
    }
}
