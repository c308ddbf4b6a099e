//! The conformance suite every family passes — agghoo's own and any family a user writes against
//! the [`Family`] trait. Enabled by the crate feature `testing` (and always in agghoo's own
//! tests):
//!
//! ```toml
//! [dev-dependencies]
//! agghoo = { version = "0.1", features = ["testing"] }
//! ```
//!
//! [`check_family`] runs every check on one training / validation pair; the checks are also
//! public one by one. They panic with a message naming the check, the grid point and the row, as
//! test assertions do: this module is for tests, never for library code paths.
//!
//! What "conformance" means (docs/ARCHITECTURE.md, "Add a family"):
//! 1. the grid is non-empty and strictly ascending, and the family's task is the data's;
//! 2. **fast path = slow path**: [`Family::fit_path`]'s predictions of every grid point equal
//!    refitting that grid point with [`Family::fit`] (labels exactly; values, probabilities and
//!    decision scores to a tolerance) — for regression and classification alike;
//! 3. the path's model at every grid point ([`FittedPath::model`]) predicts like the refit;
//! 4. [`FittedPath::risks`], where a family has that shortcut, equals the risks of its
//!    predictions bit for bit;
//! 5. a linear smoother's fitted values ([`Family::linear_smoother`]) are the refit's
//!    predictions on the training rows, with leverages in `[0, 1]`;
//! 6. **seeds**: fitting twice gives the same bits (randomised families draw from seeds, never
//!    from a global generator or the clock);
//! 7. **typed errors**: fitting on an empty training set returns an error, never panics.

// A test suite reports a failed check by panicking, as `assert!` does; it never runs in a
// library code path (the module exists only in tests and behind the `testing` feature).
#![allow(clippy::panic)]

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::data::{Dataset, View};
use crate::family::{Family, FittedPath, Predictor, RefitPath};
use crate::loss::Loss;
use crate::predictions::{PathPredictions, Predictions};

/// Runs every conformance check on `family`, trained on `train` and validated on `validation`
/// (two disjoint views of one data set), with `tol` the relative tolerance on real outputs
/// (values, probabilities, decision scores); class labels must agree exactly.
///
/// # Panics
/// When a check fails, naming it.
pub fn check_family(family: &dyn Family, train: &View<'_>, validation: &View<'_>, tol: f64) {
    check_grid_and_task(family, train);
    path_equals_refit(family, train, validation, tol);
    risks_shortcut_is_exact(family, train, validation);
    linear_smoother_is_consistent(family, train, tol);
    fits_are_reproducible(family, train, validation);
    empty_training_set_is_an_error(family, train);
}

/// Check 1: a non-empty, strictly ascending grid; the family's task is the data's.
///
/// # Panics
/// When it fails.
pub fn check_grid_and_task(family: &dyn Family, train: &View<'_>) {
    let values = family.grid().values();
    assert!(!values.is_empty(), "{}: the grid is empty", family.name());
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{}: the grid is not strictly ascending: {values:?}", family.name());
    assert_eq!(family.task(), train.task(), "{}: the family's task is not the data's", family.name());
}

/// Checks 2 and 3: the fast path's predictions of every grid point, and its model at every grid
/// point, equal refitting that grid point (labels exactly; reals to `tol`, relative).
///
/// # Panics
/// When they differ, naming the grid point and the row.
pub fn path_equals_refit(family: &dyn Family, train: &View<'_>, validation: &View<'_>, tol: f64) {
    let name = family.name();
    let path = family.fit_path(train).unwrap_or_else(|e| panic!("{name}: fit_path failed: {e}"));
    let fast = path.predict(validation).unwrap_or_else(|e| panic!("{name}: the path's predict failed: {e}"));
    let slow = RefitPath::new(family, train.clone()).predict(validation).unwrap_or_else(|e| panic!("{name}: a refit failed: {e}"));
    assert_eq!(
        fast.len(),
        family.grid().len(),
        "{name}: the path predicts {} grid points, the grid has {}",
        fast.len(),
        family.grid().len()
    );
    for (m, (a, b)) in fast.iter().zip(&slow).enumerate() {
        assert_predictions_agree(a, b, tol, &format!("{name}: fast path vs refit at grid point {m}"));
    }
    for (m, refit) in slow.iter().enumerate() {
        let model = path.model(m).unwrap_or_else(|e| panic!("{name}: the path's model at grid point {m} failed: {e}"));
        let from_path =
            model.predict(validation).unwrap_or_else(|e| panic!("{name}: the path's model at grid point {m} cannot predict: {e}"));
        assert_predictions_agree(&from_path, refit, tol, &format!("{name}: the path's model vs refit at grid point {m}"));
    }
}

/// Check 4: where the path computes risks without predictions ([`FittedPath::risks`]), they equal
/// [`Loss::risk`] of its predictions bit for bit, for every loss of the task.
///
/// # Panics
/// When they differ.
pub fn risks_shortcut_is_exact(family: &dyn Family, train: &View<'_>, validation: &View<'_>) {
    let name = family.name();
    let path = family.fit_path(train).unwrap_or_else(|e| panic!("{name}: fit_path failed: {e}"));
    let losses: &[Loss] = match train.task() {
        crate::data::Task::Regression => &[Loss::Squared, Loss::Absolute],
        crate::data::Task::Classification => &[Loss::ZeroOne],
    };
    let Some(shortcut) = path.risks(validation, losses) else { return };
    let shortcut = shortcut.unwrap_or_else(|e| panic!("{name}: the risks shortcut failed: {e}"));
    let predictions = path.predict(validation).unwrap_or_else(|e| panic!("{name}: predict failed: {e}"));
    for (l, loss) in losses.iter().enumerate() {
        for (m, p) in predictions.iter().enumerate() {
            let expected = loss.risk(p, validation).unwrap_or_else(|e| panic!("{name}: risk failed: {e}"));
            assert_eq!(shortcut[l][m].to_bits(), expected.to_bits(), "{name}: risks shortcut under {} at grid point {m}", loss.name());
        }
    }
}

/// Check 5: a linear smoother's in-sample fitted values are the refit's predictions on the
/// training rows (to `tol`), and its leverages `S_ii` lie in `[0, 1]` (to `tol`).
///
/// # Panics
/// When they do not.
pub fn linear_smoother_is_consistent(family: &dyn Family, train: &View<'_>, tol: f64) {
    let name = family.name();
    let Some(smoother) = family.linear_smoother(train) else { return };
    let smoother = smoother.unwrap_or_else(|e| panic!("{name}: linear_smoother failed: {e}"));
    assert_eq!(smoother.fitted.len(), family.grid().len(), "{name}: smoother fitted values per grid point");
    for (m, (fitted, leverage)) in smoother.fitted.iter().zip(&smoother.leverage).enumerate() {
        let refit = family.fit(train, m).and_then(|model| model.predict(train)).unwrap_or_else(|e| panic!("{name}: refit at {m}: {e}"));
        assert_predictions_agree(
            &Predictions::Real(fitted.clone()),
            &refit,
            tol,
            &format!("{name}: smoother fitted values at grid point {m}"),
        );
        for (i, &s) in leverage.iter().enumerate() {
            assert!((-tol..=1.0 + tol).contains(&s), "{name}: leverage S_ii = {s} outside [0, 1] at grid point {m}, row {i}");
        }
    }
}

/// Check 6: two fits of the whole path on the same rows predict the same bits (a randomised
/// family draws from its seed, not from a global generator or the clock).
///
/// # Panics
/// When they differ.
pub fn fits_are_reproducible(family: &dyn Family, train: &View<'_>, validation: &View<'_>) {
    let name = family.name();
    let once = || -> PathPredictions {
        family.fit_path(train).and_then(|p| p.predict(validation)).unwrap_or_else(|e| panic!("{name}: fit_path failed: {e}"))
    };
    let (a, b) = (once(), once());
    for (m, (a, b)) in a.iter().zip(&b).enumerate() {
        assert_predictions_agree(a, b, 0.0, &format!("{name}: two fits of the path at grid point {m}"));
    }
}

/// Check 7: fitting on an empty training set is an error ([`crate::Error`]), not a panic.
///
/// # Panics
/// When the fit panics or succeeds.
pub fn empty_training_set_is_an_error(family: &dyn Family, train: &View<'_>) {
    let name = family.name();
    let empty = train.subview(&[]);
    let outcome = catch_unwind(AssertUnwindSafe(|| family.fit(&empty, 0).map(|_| ())));
    match outcome {
        Ok(Err(_)) => {}
        Ok(Ok(())) => panic!("{name}: fitting on an empty training set succeeded; it must be a typed error"),
        Err(_) => panic!("{name}: fitting on an empty training set panicked; it must be a typed error"),
    }
    let outcome = catch_unwind(AssertUnwindSafe(|| family.fit_path(&empty).and_then(|p| p.model(0)).map(|_| ())));
    assert!(!matches!(outcome, Err(_) | Ok(Ok(()))), "{name}: fit_path on an empty training set must return a typed error");
}

/// Sample weights, for a family that honours them ([`Family::sample_weight`]): on `data`, unit
/// weights predict like no weights at every grid point (to `tol`; bit for bit when `tol` is 0).
///
/// # Panics
/// When they differ, or a fit fails.
pub fn unit_weights_change_nothing(family: &dyn Family, data: &Dataset, train: &[usize], validation: &[usize], tol: f64) {
    let weighted = data.clone().with_weights(vec![1.0; data.n_rows()]).unwrap_or_else(|e| panic!("unit weights refused: {e}"));
    for m in 0..family.grid().len() {
        let context = format!("{}: unit weights at grid point {m}", family.name());
        let fit = |d: &Dataset| family.fit(&d.view(train), m).and_then(|f| f.predict(&data.view(validation)));
        let plain = fit(data).unwrap_or_else(|e| panic!("{context}: unweighted fit failed: {e}"));
        let unit = fit(&weighted).unwrap_or_else(|e| panic!("{context}: weighted fit failed: {e}"));
        assert_predictions_agree(&unit, &plain, tol, &context);
    }
}

/// Sample weights, for a family that honours them ([`Family::sample_weight`]): with `counts[i]`
/// as the weight of row `i`, every grid point's fit on the `train` rows predicts the
/// `validation` rows like the unweighted fit on the `train` rows each repeated `counts[i]` times
/// (0: left out), to `tol`. Weights of 0 and 1 only check that a zero weight removes the row.
///
/// # Panics
/// When they differ, or a fit fails.
pub fn weights_are_row_counts(family: &dyn Family, data: &Dataset, train: &[usize], validation: &[usize], counts: &[u32], tol: f64) {
    let weights = counts.iter().map(|&c| f64::from(c)).collect();
    let weighted = data.clone().with_weights(weights).unwrap_or_else(|e| panic!("weights refused: {e}"));
    let repeated: Vec<usize> = train.iter().flat_map(|&i| std::iter::repeat_n(i, counts[i] as usize)).collect();
    for m in 0..family.grid().len() {
        let context = format!("{}: integer weights vs repeated rows at grid point {m}", family.name());
        let predict = |d: &Dataset, rows: &[usize]| family.fit(&d.view(rows), m).and_then(|f| f.predict(&data.view(validation)));
        let by_weight = predict(&weighted, train).unwrap_or_else(|e| panic!("{context}: weighted fit failed: {e}"));
        let by_rows = predict(data, &repeated).unwrap_or_else(|e| panic!("{context}: fit on repeated rows failed: {e}"));
        assert_predictions_agree(&by_weight, &by_rows, tol, &context);
    }
}

/// Asserts two predictions of the same rows agree: the same kind and length; labels exactly;
/// reals, probabilities and decision scores to `tol` (relative, `|a − b| ≤ tol (1 + |b|)`), and
/// bit for bit when `tol` is 0.
///
/// # Panics
/// When they differ, with `context` and the row.
pub fn assert_predictions_agree(a: &Predictions, b: &Predictions, tol: f64, context: &str) {
    let close = |x: &[f64], y: &[f64], what: &str| {
        assert_eq!(x.len(), y.len(), "{context}: {what}: lengths differ");
        for (i, (u, v)) in x.iter().zip(y).enumerate() {
            let ok = if tol == 0.0 { u.to_bits() == v.to_bits() } else { (u - v).abs() <= tol * (1.0 + v.abs()) };
            assert!(ok, "{context}: {what} differ at row {i}: {u} vs {v}");
        }
    };
    match (a, b) {
        (Predictions::Real(x), Predictions::Real(y)) => close(x, y, "values"),
        (
            Predictions::Classes { labels: la, n_classes: ka, proba: pa, decision: da },
            Predictions::Classes { labels: lb, n_classes: kb, proba: pb, decision: db },
        ) => {
            assert_eq!(ka, kb, "{context}: numbers of classes differ");
            assert_eq!(la, lb, "{context}: labels differ");
            assert_eq!(pa.is_some(), pb.is_some(), "{context}: one side has probabilities, the other not");
            if let (Some(x), Some(y)) = (pa, pb) {
                close(x, y, "probabilities");
            }
            assert_eq!(da.is_some(), db.is_some(), "{context}: one side has decision scores, the other not");
            if let (Some(x), Some(y)) = (da, db) {
                close(x, y, "decision scores");
            }
        }
        _ => panic!("{context}: one side predicts values, the other classes"),
    }
}

/// The CSV reader's check on categorical columns and missing-value tokens, shared by the fuzz
/// target `csv_na` and the workspace property test (`tests/readers.rs`). The first byte of
/// `input` picks the options — a missing policy, a token list (default; default plus `-` and
/// `.`; `-` alone; none; `NULL,inf,Paris`), column `a` declared categorical or not, kinds
/// detected from the values — and the rest is the file. Reading must give `Ok` or a typed error;
/// and when the file has no quote and no `\r` and ends each line with a line break, its data rows
/// reversed must give the same success, categorical columns, levels and warnings.
///
/// # Panics
/// When the reader panics or the answer depends on the order of the rows.
pub fn check_csv_na(input: &[u8]) {
    use crate::data::{CsvData, CsvOptions, MissingPolicy, NaValues, read_csv_from};
    const NA_LISTS: [&[&str]; 5] = [&["default"], &["default", "-", "."], &["-"], &[], &["NULL", "inf", "Paris"]];
    type Kinds = (Vec<String>, Vec<Option<Vec<String>>>, Vec<String>);
    fn kinds(read: &crate::Result<CsvData>) -> Option<Kinds> {
        let d = read.as_ref().ok()?;
        let levels = (0..d.data.n_features()).map(|j| d.data.levels(j).map(<[String]>::to_vec)).collect();
        Some((d.data.categorical_names(), levels, d.warnings.iter().map(|w| w.column.clone()).collect()))
    }
    let Some((&choice, text)) = input.split_first() else { return };
    let options = CsvOptions {
        target: Some("y".into()),
        missing: [MissingPolicy::Error, MissingPolicy::Drop, MissingPolicy::Median][usize::from(choice % 3)],
        na_values: NaValues::parse(NA_LISTS[usize::from(choice / 3) % NA_LISTS.len()]).unwrap_or_default(),
        categorical: if choice & 0x80 != 0 { vec!["a".into()] } else { Vec::new() },
        detect_categorical: true,
        ..Default::default()
    };
    let forward = read_csv_from(text, std::path::Path::new("fuzz.csv"), &options);
    if let Ok(read) = &forward {
        let _ = read.data.check_learnable();
        let _ = read.data.all().gather_x();
    }
    if text.contains(&b'"') || text.contains(&b'\r') || !text.ends_with(b"\n") || std::str::from_utf8(text).is_err() {
        return;
    }
    let mut lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    if lines.len() < 3 {
        return;
    }
    lines[1..].reverse();
    let backward = read_csv_from(lines.concat().as_slice(), std::path::Path::new("fuzz.csv"), &options);
    let text = String::from_utf8_lossy(text);
    assert_eq!(forward.is_ok(), backward.is_ok(), "{:?} / {:?}\n{text}", forward.as_ref().err(), backward.as_ref().err());
    assert_eq!(kinds(&forward), kinds(&backward), "{text}");
}
