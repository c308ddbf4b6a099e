//! CART and random forests against independent references (scikit-learn values computed once
//! by `bench/peers/trees_reference.py`, stored in `tests/golden/trees_sklearn.json`), the Genuer
//! generator, and typed errors.

use agghoo::data::{Dataset, Target, Task, generators};
use agghoo::family::cart::{CartFamily, Criterion};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec, Predictor};
use agghoo::{Error, Predictions, Seed};
use serde_json::Value;

fn golden() -> Value {
    serde_json::from_str(include_str!("golden/trees_sklearn.json")).expect("golden file parses")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(|x| x.as_f64().expect("number")).collect()
}

fn ints(v: &Value) -> Vec<u32> {
    v.as_array().expect("array").iter().map(|x| x.as_u64().expect("integer") as u32).collect()
}

/// Training rows followed by test rows; `classes` selects the target.
fn golden_data(g: &Value, classes: bool) -> (Dataset, usize) {
    let d = g["n_features"].as_u64().unwrap() as usize;
    let mut x = floats(&g["x_train"]);
    let n_train = x.len() / d;
    x.extend(floats(&g["x_test"]));
    let n = x.len() / d;
    let target = if classes {
        let mut labels = ints(&g["y_class_train"]);
        labels.resize(n, 0);
        Target::Classes { labels, names: vec!["0".into(), "1".into(), "2".into()] }
    } else {
        let mut y = floats(&g["y_real_train"]);
        y.resize(n, 0.0);
        Target::Real(y)
    };
    (Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").unwrap(), n_train)
}

/// Tolerance: summation orders of R(T) differ from scikit-learn's, a few ulps of values ≤ 10².
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-10 * (1.0 + b.abs())
}

#[test]
fn pruning_path_equals_scikit_learn() {
    let g = golden();
    for case in g["paths"].as_array().unwrap() {
        let criterion = case["criterion"].as_str().unwrap();
        let classes = criterion != "squared_error";
        let (data, n_train) = golden_data(&g, classes);
        let task = if classes { Task::Classification } else { Task::Regression };
        let msl = case["min_samples_leaf"].as_u64().unwrap() as usize;
        let fam =
            CartFamily::new(vec![0.0], task, data.target().n_classes(), Criterion::parse(criterion, task).unwrap(), msl, None).unwrap();
        let rows: Vec<usize> = (0..n_train).collect();
        let path = fam.pruning_path(&data.view(&rows)).unwrap();
        let (alphas, impurities) = (floats(&case["alphas"]), floats(&case["impurities"]));
        assert_eq!(path.alphas.len(), alphas.len(), "{criterion} msl={msl}: number of pruning steps");
        for k in 0..alphas.len() {
            assert!(close(path.alphas[k], alphas[k]), "{criterion} msl={msl} step {k}: α {} vs {}", path.alphas[k], alphas[k]);
            assert!(
                close(path.impurities[k], impurities[k]),
                "{criterion} msl={msl} step {k}: R(T) {} vs {}",
                path.impurities[k],
                impurities[k]
            );
        }
    }
}

#[test]
fn pruned_tree_predictions_equal_scikit_learn() {
    let g = golden();
    let (data, n_train) = golden_data(&g, true);
    let cases = g["predictions"].as_array().unwrap();
    let alphas: Vec<f64> = cases.iter().map(|c| c["alpha"].as_f64().unwrap()).collect();
    let fam = CartFamily::new(alphas.clone(), Task::Classification, 3, Criterion::Gini, 1, None).unwrap();
    let train: Vec<usize> = (0..n_train).collect();
    let test: Vec<usize> = (n_train..data.n_rows()).collect();
    let path = family::Family::fit_path(&fam, &data.view(&train)).unwrap();
    let predicted = path.predict(&data.view(&test)).unwrap();
    let mut n_stable = 0;
    for (m, case) in cases.iter().enumerate() {
        let Predictions::Classes { labels, proba: Some(proba), .. } = &predicted[m] else { panic!("class predictions") };
        let agghoo::family::Model::Cart(model) = path.model(m).unwrap() else { panic!("a CART model") };
        assert_eq!(model.predict(&data.view(&test)).unwrap().labels().unwrap(), labels.as_slice());
        // Where scikit-learn's random tie-breaking changes its answer, ours must be one of its answers.
        for (i, seen) in case["labels_seen"].as_array().unwrap().iter().enumerate() {
            assert!(ints(seen).contains(&labels[i]), "α = {} row {i}: {} not among {seen}", alphas[m], labels[i]);
        }
        if !case["stable"].as_bool().unwrap() {
            continue;
        }
        n_stable += 1;
        assert_eq!(labels, &ints(&case["labels"]), "α = {}", alphas[m]);
        for (i, p) in floats(&case["proba_class1"]).iter().enumerate() {
            assert!((proba[3 * i + 1] - p).abs() < 1e-12, "α = {} row {i}", alphas[m]);
        }
        assert_eq!(model.n_leaves() as u64, case["n_leaves"].as_u64().unwrap(), "α = {}", alphas[m]);
    }
    assert!(n_stable >= 10, "too few tie-free α's to compare: {n_stable}");
}

#[test]
fn default_grid_is_the_full_sample_pruning_sequence() {
    let data = generators::genuer(200, 10, Seed(1), 0).unwrap();
    let fam = family::build(FamilyKind::Cart, &FamilyParams::default(), &data).unwrap();
    let seq = CartFamily::new(vec![0.0], Task::Classification, 2, Criterion::Gini, 1, None).unwrap().pruning_path(&data.all()).unwrap();
    let mut distinct = seq.alphas.clone();
    distinct.dedup();
    assert_eq!(fam.grid().values(), distinct.as_slice());
    assert_eq!(fam.grid().name(), "alpha");
    assert!(fam.grid().larger_is_simpler());
    let explicit = family::build(FamilyKind::Cart, &FamilyParams::with_grid(GridSpec::parse("0,0.01,0.1").unwrap()), &data).unwrap();
    assert_eq!(explicit.grid().values(), [0.0, 0.01, 0.1]);
}

#[test]
fn genuer_needs_six_features() {
    assert!(matches!(generators::genuer(10, 5, Seed(0), 0), Err(Error::InvalidParameter { name: "d", .. })));
    assert!(generators::genuer(10, 6, Seed(0), 0).is_ok());
    // Same seed and stream → same data; another stream → other data.
    let a = generators::genuer(50, 7, Seed(2), 3).unwrap();
    assert_eq!(a, generators::genuer(50, 7, Seed(2), 3).unwrap());
    assert_ne!(a, generators::genuer(50, 7, Seed(2), 4).unwrap());
}

#[test]
fn majhoo_over_cart_and_forest_round_trips_through_the_model_file() {
    use agghoo::resample::{MonteCarlo, Plan, PlanContext};
    use agghoo::select::{self, FittedModel, Method, SelectConfig};
    let data = generators::genuer(200, 8, Seed(4), 0).unwrap();
    let test = generators::genuer(300, 8, Seed(4), 1).unwrap();
    let splits = Plan::MonteCarlo(MonteCarlo::new(4, 0.8).unwrap()).instantiate(&PlanContext::of(&data), Seed(5)).unwrap();
    let forest = FamilyParams::with_grid(GridSpec::parse("2,8").unwrap()).set("trees", 20);
    for (kind, params) in [(FamilyKind::Cart, FamilyParams::default()), (FamilyKind::Forest, forest)] {
        let fam = family::build(kind, &params, &data).unwrap();
        let (model, report) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
        assert_eq!(report.splits.len(), 4);
        let text = serde_json::to_string(&model).unwrap();
        let back = FittedModel::from_json(&text, std::path::Path::new("model.json")).unwrap();
        let (a, b) = (model.predict(&test).unwrap(), back.predict(&test).unwrap());
        assert_eq!(a, b);
        // Far better than chance on a problem of Bayes risk 0.041.
        let risk = agghoo::Loss::ZeroOne.risk(&a, &test.all()).unwrap();
        assert!(risk < 0.2, "{kind:?}: {risk}");
    }
}

#[test]
fn forest_typed_errors() {
    let data = generators::genuer(50, 6, Seed(0), 0).unwrap();
    let build = |p: FamilyParams| family::build(FamilyKind::Forest, &p, &data).err();
    assert!(matches!(build(FamilyParams::default().set("trees", 0)), Some(Error::InvalidParameter { name: "trees", .. })));
    assert!(matches!(build(FamilyParams::default().set("mtry", 7)), Some(Error::InvalidParameter { name: "mtry", .. })));
    assert!(matches!(
        build(FamilyParams::default().set("min_samples_leaf", 0)),
        Some(Error::InvalidParameter { name: "min_samples_leaf", .. })
    ));
    assert!(matches!(
        family::build(FamilyKind::Cart, &FamilyParams::default().set("min_samples_leaf", 0), &data).err(),
        Some(Error::InvalidParameter { name: "min_samples_leaf", .. })
    ));
}
