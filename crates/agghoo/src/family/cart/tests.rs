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
