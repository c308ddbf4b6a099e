//! `Error::kind`: every kind is reached from the public API, and wrappers that only locate an
//! error (a split, an outer split) keep the kind of their cause.

use std::path::Path;

use agghoo::data::{Dataset, Target};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
use agghoo::resample::MonteCarlo;
use agghoo::select::{self, FittedModel, Method, SelectConfig, TieRule};
use agghoo::{Error, ErrorKind};

/// n rows of one feature `scale · i` and a real target.
fn line(n: usize, scale: f64) -> Dataset {
    let x: Vec<f64> = (0..n).map(|i| scale * i as f64).collect();
    let y: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
    Dataset::new(x, vec!["x".into()], Target::Real(y), "y").unwrap()
}

fn kind<T>(result: agghoo::Result<T>) -> ErrorKind {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.kind(),
    }
}

#[test]
fn a_non_finite_feature_is_a_data_error() {
    let err = Dataset::new(vec![0.0, f64::NAN], vec!["x".into()], Target::Real(vec![0.0, 1.0]), "y");
    assert_eq!(kind(err), ErrorKind::Data);
}

#[test]
fn a_malformed_grid_is_a_parameter_error() {
    assert_eq!(kind(GridSpec::parse("one:two")), ErrorKind::Parameter);
    assert_eq!(kind(select::argmin(&[], TieRule::default())), ErrorKind::Parameter);
}

#[test]
fn a_solver_out_of_iterations_is_numerical_and_located_on_its_split() {
    let data = line(40, 1.0);
    let params = FamilyParams::with_grid(GridSpec::parse("1e-6").unwrap()).set("max_iter", 1).set("tol", 1e-15);
    let fam = family::build(FamilyKind::Lasso, &params, &data).unwrap();
    let splits = MonteCarlo::new(2, 0.7).unwrap().instantiate(data.n_rows(), agghoo::Seed(1)).unwrap();
    let err = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap_err();
    // the whole path failed on split 0: the wrapper locates it, the cause gives the kind
    assert!(matches!(&err, Error::SplitFailed { split: Some(0), source } if matches!(**source, Error::Numerical(_))), "{err:?}");
    assert_eq!(err.kind(), ErrorKind::Numerical);
}

#[test]
fn a_nan_risk_is_a_numerical_error() {
    assert_eq!(kind(select::argmin(&[1.0, f64::NAN], TieRule::default())), ErrorKind::Numerical);
}

#[test]
fn a_corrupted_model_file_is_a_corrupt_file_error_even_when_only_an_inner_value_is_wrong() {
    assert_eq!(kind(FittedModel::from_json("{", Path::new("m.json"))), ErrorKind::CorruptFile);
    let data = line(30, 1.0);
    let fam = family::build(FamilyKind::Ridge, &FamilyParams::default(), &data).unwrap();
    let splits = MonteCarlo::new(2, 0.7).unwrap().instantiate(data.n_rows(), agghoo::Seed(1)).unwrap();
    let (model, _) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Agghoo)).unwrap();
    let mut value: serde_json::Value = serde_json::to_value(&model).unwrap();
    assert!(FittedModel::from_json(&value.to_string(), Path::new("m.json")).is_ok());
    value["schema"]["class_names"] = serde_json::json!(["a", "b"]);
    let err = FittedModel::from_json(&value.to_string(), Path::new("m.json")).unwrap_err();
    assert!(matches!(&err, Error::BadFile { path, .. } if path == Path::new("m.json")), "{err}");
    assert_eq!(err.kind(), ErrorKind::CorruptFile);
}

#[test]
fn a_grid_beyond_the_point_limit_is_a_resource_limit_error() {
    assert_eq!(kind(GridSpec::parse("log:1e-6:1:100000000")), ErrorKind::ResourceLimit);
}

#[test]
fn a_missing_file_is_an_io_error() {
    assert_eq!(kind(FittedModel::load(Path::new("/nonexistent/agghoo/model.json"))), ErrorKind::Io);
}

#[test]
fn a_failed_fit_at_a_grid_point_is_a_fit_error_and_wrappers_keep_the_kind_of_their_cause() {
    // A broken invariant cannot be reached from valid use of the public API by construction, so the
    // mapping is checked on the variant itself.
    let internal = Error::Internal("x".into());
    assert_eq!(internal.kind(), ErrorKind::Internal);
    assert_eq!(internal.at_split(3).kind(), ErrorKind::Internal);
    let fit = Error::Fit { split: None, grid_index: 0, source: Box::new(Error::Numerical("singular".into())) };
    assert_eq!(fit.at_split(1).kind(), ErrorKind::Fit);
    let outer = Error::OuterSplit { split: 0, source: Box::new(Error::invalid("k", "at least 1", 0)) };
    assert_eq!(outer.kind(), ErrorKind::Parameter);
}
