//! Numerical safety: extreme feature magnitudes (1e300, subnormals),
//! constant features under standardisation, duplicate points, training splits holding one class
//! only. Every run either succeeds with finite outputs (predictions, risks, the saved model
//! loading back) or fails with a typed error — no panic, and no NaN or infinity reaches an
//! output silently.

use std::path::Path;

use agghoo::data::{Dataset, Preprocess, Target, Task};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec, Predictor};
use agghoo::resample::{MonteCarlo, Splits};
use agghoo::select::{self, FittedModel, Method, SelectConfig};
use agghoo::{Error, Predictions, Purpose, Seed};
use rand::RngExt;

/// n rows of 3 continuous features times `scale`; the target depends on the first two.
fn data(n: usize, classes: u32, scale: f64, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let raw: Vec<f64> = (0..n * 3).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
    let score = |i: usize| raw[3 * i] + 0.5 * raw[3 * i + 1];
    let target = if classes == 0 {
        Target::Real((0..n).map(score).collect())
    } else {
        let labels = (0..n).map(|i| (((score(i) + 1.5) / 3.0 * f64::from(classes)) as u32).min(classes - 1)).collect();
        Target::Classes { labels, names: (0..classes).map(|c| format!("c{c}")).collect() }
    };
    Dataset::new(raw.iter().map(|v| v * scale).collect(), vec!["a".into(), "b".into(), "c".into()], target, "y").unwrap()
}

fn params(kind: FamilyKind) -> FamilyParams {
    let p = FamilyParams::default();
    match kind {
        FamilyKind::Forest => p.set("trees", 5),
        FamilyKind::Knn => FamilyParams::with_grid(GridSpec::parse("1:9:2").unwrap()),
        _ => p,
    }
}

fn assert_finite(p: &Predictions, what: &str) {
    assert!(!p.has_non_finite(), "{what}: a non-finite prediction");
    if let Predictions::Classes { labels, n_classes, .. } = p {
        assert!(labels.iter().all(|&l| (l as usize) < *n_classes), "{what}: a class index out of range");
    }
}

/// Selection on `data` for `kind`: `Ok` with finite outputs and a model file that loads back and
/// predicts the same, or a typed error. Returns whether it succeeded.
fn select_is_safe(kind: FamilyKind, data: &Dataset, splits: &Splits, preprocess: Preprocess, what: &str) -> bool {
    let method = if data.task() == Task::Classification { Method::Majhoo } else { Method::Agghoo };
    let fam = match family::build(kind, &params(kind), data) {
        Ok(f) => f,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return false;
        }
    };
    let config = SelectConfig { preprocess, ..SelectConfig::new(method) };
    let (model, report) = match select::select(fam.as_ref(), data, splits, &config) {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.to_string().is_empty(), "{what}");
            return false;
        }
    };
    for s in &report.splits {
        assert!(s.risks.iter().all(|r| r.is_finite()), "{what}: a non-finite validation risk");
    }
    match model.predict(data) {
        Ok(p) => assert_finite(&p, what),
        Err(e) => assert!(matches!(e, Error::Numerical(_)), "{what}: {e}"),
    }
    let text = serde_json::to_string(&model).unwrap();
    let back = FittedModel::from_json(&text, Path::new("m.json")).unwrap_or_else(|e| panic!("{what}: saved model does not load: {e}"));
    assert_eq!(back.predict(data).ok(), model.predict(data).ok(), "{what}");
    true
}

#[test]
fn extreme_magnitudes_never_panic_nor_leak_non_finite_values() {
    let splits = MonteCarlo::new(2, 0.75).unwrap().instantiate(48, Seed(3)).unwrap();
    for scale in [1e300, -1e300, 1e-310, 5e-324, 1.0] {
        for classes in [0, 2] {
            let d = data(48, classes, scale, 1);
            for kind in FamilyKind::ALL {
                let task_fits = match kind {
                    FamilyKind::Svc | FamilyKind::Logistic => classes > 0,
                    FamilyKind::Ridge | FamilyKind::KernelRidge | FamilyKind::Lasso | FamilyKind::Enet | FamilyKind::Svr => classes == 0,
                    _ => true,
                };
                if !task_fits {
                    continue;
                }
                for standardize in [false, true] {
                    let what = format!("{kind:?} scale {scale:e} classes {classes} standardize {standardize}");
                    let ok = select_is_safe(kind, &d, &splits, Preprocess { impute_median: false, standardize, categorical: None }, &what);
                    if scale == 1.0 {
                        assert!(ok, "{what} must succeed on ordinary data");
                    }
                }
            }
        }
    }
}

/// Standardisation makes k-NN scale-invariant, even where the plain sums of squares overflow
/// (features near 1e300) or underflow (subnormal features).
#[test]
fn standardised_knn_predicts_the_same_at_any_feature_scale() {
    let splits = MonteCarlo::new(3, 0.75).unwrap().instantiate(60, Seed(4)).unwrap();
    let predict = |scale: f64| {
        let d = data(60, 3, scale, 2);
        let fam = family::build(FamilyKind::Knn, &params(FamilyKind::Knn), &d).unwrap();
        let config = SelectConfig {
            preprocess: Preprocess { impute_median: false, standardize: true, categorical: None },
            ..SelectConfig::new(Method::Majhoo)
        };
        let (model, _) = select::select(fam.as_ref(), &d, &splits, &config).unwrap();
        model.predict(&d).unwrap().labels().unwrap().to_vec()
    };
    let reference = predict(1.0);
    for scale in [1e300, 1e150, 1e-300] {
        assert_eq!(predict(scale), reference, "scale {scale:e}");
    }
}

/// A constant column (and one constant up to rounding) standardises to 0, never to NaN.
#[test]
fn constant_features_standardise_to_zero() {
    let n = 30;
    let base = data(n, 0, 1.0, 5);
    let mut x = Vec::with_capacity(n * 3);
    for i in 0..n {
        x.extend_from_slice(&[base.all().x(i)[0], 7.25, 1e300 * (1.0 + f64::EPSILON * (i % 2) as f64)]);
    }
    let d = Dataset::new(x, vec!["a".into(), "k".into(), "huge".into()], base.target().clone(), "y").unwrap();
    let t = Preprocess { impute_median: false, standardize: true, categorical: None }.fit(&d.all());
    let out = t.apply(&d.all()).unwrap();
    for i in 0..n {
        let row = out.all().x(i).to_vec();
        assert!(row.iter().all(|v| v.is_finite()), "row {i}: {row:?}");
        assert_eq!(row[1], 0.0);
    }
    for kind in [FamilyKind::Knn, FamilyKind::Ridge, FamilyKind::Lasso, FamilyKind::Svr, FamilyKind::Cart] {
        let splits = MonteCarlo::new(2, 0.7).unwrap().instantiate(n, Seed(6)).unwrap();
        assert!(select_is_safe(
            kind,
            &d,
            &splits,
            Preprocess { impute_median: false, standardize: true, categorical: None },
            &format!("{kind:?}")
        ));
    }
}

/// Duplicated rows (every point twice, all distances tied in pairs) and exactly collinear
/// columns (a singular Gram matrix): each family fits and predicts finite values.
#[test]
fn duplicate_points_and_singular_designs() {
    let base = data(20, 0, 1.0, 7);
    let mut x = Vec::new();
    let mut y = Vec::new();
    for _ in 0..2 {
        for i in 0..20 {
            let r = base.all().x(i).to_vec();
            x.extend_from_slice(&[r[0], r[1], 2.0 * r[0] - r[1]]);
            y.push(base.all().y(i));
        }
    }
    let d = Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], Target::Real(y), "y").unwrap();
    let splits = MonteCarlo::new(3, 0.75).unwrap().instantiate(40, Seed(8)).unwrap();
    for kind in [
        FamilyKind::Knn,
        FamilyKind::Ridge,
        FamilyKind::KernelRidge,
        FamilyKind::Lasso,
        FamilyKind::Enet,
        FamilyKind::Svr,
        FamilyKind::Cart,
        FamilyKind::Forest,
    ] {
        assert!(select_is_safe(kind, &d, &splits, Preprocess::default(), &format!("{kind:?}")), "{kind:?} failed");
    }
}

/// Training splits holding a single class: Majhoo over k-NN, CART and forests still fits (each
/// member predicts the one class it saw), logistic regression and the SVC refuse with a typed
/// error naming the problem.
#[test]
fn training_splits_with_one_class_only() {
    let n = 24;
    let base = data(n, 0, 1.0, 9);
    // rows 0..20 are class "a", rows 20..24 class "b"; the splits train on class-a rows only
    let labels: Vec<u32> = (0..n as u32).map(|i| u32::from(i >= 20)).collect();
    let d = Dataset::new(
        base.x().to_vec(),
        base.feature_names().to_vec(),
        Target::Classes { labels, names: vec!["a".into(), "b".into()] },
        "y",
    )
    .unwrap();
    let split = |train: std::ops::Range<usize>, val: Vec<usize>| agghoo::resample::Split::new(train.collect(), val).unwrap();
    let splits = Splits::new(n, vec![split(0..12, vec![12, 20, 21]), split(6..18, vec![0, 22, 23])]).unwrap();
    for kind in [FamilyKind::Knn, FamilyKind::Cart, FamilyKind::Forest] {
        let fam = family::build(kind, &params(kind), &d).unwrap();
        let (model, report) = select::select(fam.as_ref(), &d, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
        let p = model.predict(&d).unwrap();
        assert_finite(&p, &format!("{kind:?}"));
        assert!(p.labels().unwrap().iter().all(|&l| l == 0), "{kind:?}: a member trained on class a only predicted b");
        // each split validates one class-a row and two class-b rows: risk 2/3 everywhere
        for s in &report.splits {
            assert!(s.risks.iter().all(|&r| (r - 2.0 / 3.0).abs() < 1e-12), "{kind:?}: {:?}", s.risks);
        }
    }
    for kind in [FamilyKind::Logistic, FamilyKind::Svc] {
        let fam = family::build(kind, &params(kind), &d).unwrap();
        let err = select::select(fam.as_ref(), &d, &splits, &SelectConfig::new(Method::Majhoo)).unwrap_err();
        assert!(!format!("{err}").is_empty());
        let chain = std::iter::successors(Some(&err as &dyn std::error::Error), |e| e.source())
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join(": ");
        assert!(chain.contains("split 0"), "{kind:?}: {chain}");
        assert!(chain.contains("class") || chain.contains("constant"), "{kind:?}: {chain}");
    }
}

#[test]
fn knn_predict_through_predictor_is_finite_with_ties() {
    // every training point duplicated and the query rows on them: distance ties everywhere
    let x: Vec<f64> = (0..40).map(|i| f64::from(i % 4)).collect();
    let labels: Vec<u32> = (0..20).map(|i| u32::from(i % 3 == 0)).collect();
    let d = Dataset::new(x, vec!["a".into(), "b".into()], Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y").unwrap();
    let fam = family::build(FamilyKind::Knn, &params(FamilyKind::Knn), &d).unwrap();
    for m in 0..fam.grid().len() {
        let a = fam.fit(&d.all(), m).unwrap().predict(&d.all()).unwrap();
        let b = fam.fit(&d.all(), m).unwrap().predict(&d.all()).unwrap();
        assert_finite(&a, "knn ties");
        assert_eq!(a, b, "ties are broken deterministically");
    }
}
