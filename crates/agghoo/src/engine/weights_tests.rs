//! Sample weights: the data set's checks, weighted validation risks, refusals by name, and the
//! weighted fits of ridge, kernel ridge and logistic regression (unit weights change nothing,
//! integer weights are repeated rows, weight 0 removes the row).

use super::*;
use crate::data::{Dataset, Preprocess, Target};
use crate::family::logistic::LogisticFamily;
use crate::family::ridge::{Kernel, RidgeFamily};
use crate::family::{self, Family, FamilyKind, FamilyParams};
use crate::loss::Loss;
use crate::resample::{Split, Splits};
use crate::testing::{path_equals_refit, unit_weights_change_nothing, weights_are_row_counts};

/// Three features, a noisy linear target (deterministic).
fn regression(n: usize) -> Dataset {
    let x: Vec<f64> = (0..n * 3).map(|k| ((k as f64) * 1.37 + 0.3).sin() * (1.0 + (k % 3) as f64)).collect();
    let y = (0..n).map(|i| 0.5 + x[3 * i] - 2.0 * x[3 * i + 1] + 0.3 * x[3 * i + 2] + 0.4 * ((i as f64) * 2.9).cos()).collect();
    Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], Target::Real(y), "y").unwrap()
}

/// Two features, `k` overlapping classes by angle (deterministic).
fn classes(n: usize, k: u32) -> Dataset {
    let x: Vec<f64> = (0..n * 2).map(|j| ((j as f64) * 0.91 + 0.2).sin() * 2.0).collect();
    let labels = (0..n)
        .map(|i| {
            let angle = x[2 * i + 1].atan2(x[2 * i]) + 0.8 * ((i as f64) * 3.7).sin();
            ((angle + std::f64::consts::PI) / (2.0 * std::f64::consts::PI) * f64::from(k)).floor().clamp(0.0, f64::from(k - 1)) as u32
        })
        .collect();
    let names = (0..k).map(|c| format!("c{c}")).collect();
    Dataset::new(x, vec!["u".into(), "v".into()], Target::Classes { labels, names }, "class").unwrap()
}

/// Weights 1, 2, 0, 3, 1, 2, 0, 3, … (every fourth row left out, others repeated).
fn counts(n: usize) -> Vec<u32> {
    (0..n).map(|i| [1, 2, 0, 3][i % 4]).collect()
}

fn weighted(data: &Dataset, counts: &[u32]) -> Dataset {
    data.clone().with_weights(counts.iter().map(|&c| f64::from(c)).collect()).unwrap()
}

#[test]
fn with_weights_refuses_bad_weights_naming_the_row() {
    let data = regression(4);
    let message = |w: Vec<f64>| data.clone().with_weights(w).unwrap_err().to_string();
    assert!(message(vec![1.0; 3]).contains("3 weights for 4 rows"));
    let nan = message(vec![1.0, 1.0, f64::NAN, 1.0]);
    assert!(nan.contains("row 2") && nan.contains("sample_weight"), "{nan}");
    let negative = message(vec![1.0, -0.5, 1.0, 1.0]);
    assert!(negative.contains("row 1") && negative.contains("sample_weight"), "{negative}");
    assert!(message(vec![0.0; 4]).contains("every weight is 0"));
    assert_eq!(data.clone().with_weights(vec![0.0, 1.0, 2.0, 0.5]).unwrap().weights(), Some(&[0.0, 1.0, 2.0, 0.5][..]));
}

#[test]
fn weights_follow_rows_columns_and_per_fold_preprocessing() {
    let data = weighted(&regression(8), &counts(8));
    let rows = [5, 1, 2];
    let view = data.view(&rows);
    assert_eq!(view.weights(), Some(vec![2.0, 2.0, 0.0]));
    assert_eq!(view.weight(0), 2.0);
    assert_eq!(data.select_rows(&rows).unwrap().weights(), Some(&[2.0, 2.0, 0.0][..]));
    assert_eq!(data.select_columns(&[2, 0]).unwrap().weights(), data.weights());
    let standardize = Preprocess { impute_median: true, standardize: true, categorical: None };
    let transformed = standardize.fit(&view).apply(&view).unwrap();
    assert_eq!(transformed.weights(), Some(&[2.0, 2.0, 0.0][..]));
    assert!(!regression(3).all().is_weighted());
    assert_eq!(regression(3).all().weight(1), 1.0);
}

#[test]
fn validation_risks_are_weighted_means() {
    let data = regression(4);
    let truth = weighted(&data, &[1, 2, 0, 3]);
    let predictions = crate::Predictions::Real(vec![0.0; 4]);
    let Target::Real(y) = data.target() else { unreachable!("regression") };
    let expected = (y[0] * y[0] + 2.0 * y[1] * y[1] + 3.0 * y[3] * y[3]) / 6.0;
    let risk = Loss::Squared.risk(&predictions, &truth.all()).unwrap();
    assert!((risk - expected).abs() <= 1e-14 * expected, "{risk} vs {expected}");
    // Unweighted data keep the plain mean.
    let plain = Loss::Squared.risk(&predictions, &data.all()).unwrap();
    assert_eq!(plain, y.iter().map(|v| v * v).sum::<f64>() / 4.0);
    let zero = data.clone().with_weights(vec![1.0, 0.0, 0.0, 0.0]).unwrap();
    assert!(Loss::Squared.risk(&crate::Predictions::Real(vec![0.0; 3]), &zero.view(&[1, 2, 3])).is_err());
}

#[test]
fn a_family_or_procedure_without_weights_refuses_them_by_name() {
    let data = weighted(&regression(40), &counts(40));
    let splits = Splits::new(40, vec![Split::new((0..30).collect(), (30..40).collect()).unwrap()]).unwrap();
    let mut params = FamilyParams::default();
    params.insert_pair("intercept=true").unwrap();
    let kernel = family::build(FamilyKind::KernelRidge, &params, &data).unwrap();
    let options = EvalOptions { losses: vec![Loss::Squared], ..EvalOptions::default() };
    let error = evaluate_splits(kernel.as_ref(), &data, &splits, &options, &Sequential).unwrap_err();
    let message = format!("{error}: {}", std::error::Error::source(&error).map(ToString::to_string).unwrap_or_default());
    assert!(message.contains("sample_weight") && message.contains("`kernel-ridge` and intercept=true"), "{message}");
    let ridge = RidgeFamily::linear(vec![1.0]).unwrap();
    let closed = crate::estimate::smoother_risks(&ridge, &data, &Preprocess::default()).unwrap_err().to_string();
    assert!(closed.contains("sample_weight"), "{closed}");
    // A training set whose rows all weigh 0 is an error, not a fit on nothing.
    let zero = Splits::new(40, vec![Split::new(vec![2, 6, 10], (30..40).collect()).unwrap()]).unwrap();
    let error = evaluate_splits(&ridge, &data, &zero, &options, &Sequential).unwrap_err();
    let source = std::error::Error::source(&error).map(ToString::to_string).unwrap_or_default();
    assert!(source.contains("sample_weight") && source.contains("every weight"), "{error}: {source}");
}

#[test]
fn ridge_weights_are_row_counts() {
    let data = regression(40);
    let (train, validation): (Vec<usize>, Vec<usize>) = ((0..30).collect(), (30..40).collect());
    let ridge = RidgeFamily::linear(vec![1e-3, 0.1, 10.0]).unwrap();
    unit_weights_change_nothing(&ridge, &data, &train, &validation, 0.0);
    weights_are_row_counts(&ridge, &data, &train, &validation, &counts(40), 1e-9);
    let w = weighted(&data, &counts(40));
    path_equals_refit(&ridge, &w.view(&train), &w.view(&validation), 1e-9);
    // The dual form (fewer rows than features) too.
    let few: Vec<usize> = vec![0, 1];
    weights_are_row_counts(&ridge, &data, &few, &validation, &[2, 3].iter().chain(&[1; 38]).copied().collect::<Vec<_>>(), 1e-9);
    path_equals_refit(&ridge, &w.view(&few), &w.view(&validation), 1e-9);
}

#[test]
fn kernel_ridge_weights_are_row_counts() {
    let data = regression(40);
    let (train, validation): (Vec<usize>, Vec<usize>) = ((0..30).collect(), (30..40).collect());
    let kernel = RidgeFamily::kernel(vec![0.1, 1.0, 10.0], Kernel::rbf(0.5).unwrap(), false).unwrap();
    unit_weights_change_nothing(&kernel, &data, &train, &validation, 0.0);
    weights_are_row_counts(&kernel, &data, &train, &validation, &counts(40), 1e-8);
    let w = weighted(&data, &counts(40));
    path_equals_refit(&kernel, &w.view(&train), &w.view(&validation), 1e-9);
    let with_intercept = RidgeFamily::kernel(vec![1.0], Kernel::rbf(0.5).unwrap(), true).unwrap();
    let message = with_intercept.fit(&w.view(&train), 0).unwrap_err().to_string();
    assert!(message.contains("sample_weight") && message.contains("intercept"), "{message}");
}

#[test]
fn logistic_weights_are_row_counts() {
    for k in [2, 3] {
        let data = classes(80, k);
        let (train, validation): (Vec<usize>, Vec<usize>) = ((0..60).collect(), (60..80).collect());
        let logistic = LogisticFamily::new(vec![1e-3, 1e-2, 1e-1], k as usize).unwrap().with_tol(1e-11).unwrap();
        unit_weights_change_nothing(&logistic, &data, &train, &validation, 0.0);
        weights_are_row_counts(&logistic, &data, &train, &validation, &counts(80), 1e-7);
        let w = weighted(&data, &counts(80));
        path_equals_refit(&logistic, &w.view(&train), &w.view(&validation), 1e-7);
    }
    let data = weighted(&classes(40, 2), &counts(40));
    let l1 = LogisticFamily::new(vec![0.1], 2).unwrap().with_penalty(crate::family::logistic::Penalty::L1).unwrap();
    let message = l1.fit(&data.all(), 0).unwrap_err().to_string();
    assert!(message.contains("sample_weight") && message.contains("l1"), "{message}");
}

/// On a fixed split, integer weights select and score like the data with each row repeated:
/// the same risks (to rounding) and the same choice.
#[test]
fn weighted_selection_equals_repeated_rows_on_a_fixed_split() {
    let data = regression(40);
    let c = counts(40);
    let repeated: Vec<usize> = (0..40).flat_map(|i| std::iter::repeat_n(i, c[i] as usize)).collect();
    let copies = data.select_rows(&repeated).unwrap();
    let (train, validation): (Vec<usize>, Vec<usize>) = (0..repeated.len()).partition(|&p| repeated[p] < 30);
    let by_rows = Splits::new(copies.n_rows(), vec![Split::new(train, validation).unwrap()]).unwrap();
    let by_weight = Splits::new(40, vec![Split::new((0..30).collect(), (30..40).collect()).unwrap()]).unwrap();
    let ridge = RidgeFamily::linear(vec![1e-3, 0.1, 1.0, 10.0, 100.0]).unwrap();
    let options = EvalOptions { losses: vec![Loss::Squared, Loss::Absolute], ..EvalOptions::default() };
    let a = evaluate_splits(&ridge, &weighted(&data, &c), &by_weight, &options, &Sequential).unwrap();
    let b = evaluate_splits(&ridge, &copies, &by_rows, &options, &Sequential).unwrap();
    assert_eq!(a[0].selected, b[0].selected);
    for (x, y) in a[0].risks.iter().flatten().zip(b[0].risks.iter().flatten()) {
        assert!((x - y).abs() <= 1e-9 * y.abs(), "{x} vs {y}");
    }
    // Other weights change the fit: the unweighted risks differ.
    let plain = evaluate_splits(&ridge, &data, &by_weight, &options, &Sequential).unwrap();
    assert_ne!(plain[0].risks, a[0].risks);
}
