//! Robustness of every reader: arbitrary bytes and mutated valid files give `Ok` or a typed
//! error — never a panic. (A bounded property test, run in CI; not a substitute for a
//! coverage-guided fuzzer.)

use std::path::Path;

use agghoo::data::{CsvOptions, MissingPolicy, TaskHint, read_csv_from};
use agghoo::resample::Splits;
use agghoo::select::FittedModel;
use proptest::prelude::*;

const VALID_CSV: &str = "a,b,y\n1,2,x\n3,,y\n5,6,x\n7,8,y\n";
const VALID_SVM: &str = "+1 1:0.5 3:2\n-1 2:1\n+1 1:1 2:2 3:3 # c\n";

fn csv_options() -> Vec<CsvOptions> {
    vec![
        CsvOptions { target: Some("y".into()), ..Default::default() },
        CsvOptions { target: Some("y".into()), missing: MissingPolicy::Median, task: TaskHint::Regression, ..Default::default() },
        CsvOptions { target: None, feature_columns: Some(vec!["b".into(), "a".into()]), ..Default::default() },
    ]
}

/// Replaces, inserts or deletes bytes of `base` at the given positions.
fn mutate(base: &str, edits: &[(usize, u8, u8)]) -> Vec<u8> {
    let mut bytes = base.as_bytes().to_vec();
    for &(pos, op, byte) in edits {
        let i = pos % (bytes.len() + 1);
        match op % 3 {
            0 if i < bytes.len() => bytes[i] = byte,
            1 => bytes.insert(i, byte),
            _ if i < bytes.len() => {
                bytes.remove(i);
            }
            _ => {}
        }
    }
    bytes
}

fn valid_model_and_splits() -> (String, String) {
    use agghoo::Seed;
    use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
    use agghoo::resample::MonteCarlo;
    use agghoo::select::{self, Method, SelectConfig};
    let data = agghoo::data::generators::knn_problem(40, Seed(1)).unwrap();
    let fam = family::build(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("1:5:2").unwrap()), &data).unwrap();
    let splits = MonteCarlo::new(2, 0.8).unwrap().instantiate(40, Seed(2)).unwrap();
    let (model, _) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo)).unwrap();
    let dir = std::env::temp_dir().join(format!("agghoo-readers-{}", std::process::id()));
    model.save(&dir.with_extension("model")).unwrap();
    splits.save(&dir.with_extension("splits")).unwrap();
    let m = std::fs::read_to_string(dir.with_extension("model")).unwrap();
    let s = std::fs::read_to_string(dir.with_extension("splits")).unwrap();
    std::fs::remove_file(dir.with_extension("model")).ok();
    std::fs::remove_file(dir.with_extension("splits")).ok();
    (m, s)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn csv_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6)) {
        for options in csv_options() {
            let _ = read_csv_from(bytes.as_slice(), Path::new("fuzz.csv"), &options);
            let mutated = mutate(VALID_CSV, &edits);
            let _ = read_csv_from(mutated.as_slice(), Path::new("fuzz.csv"), &options);
        }
    }

    #[test]
    fn libsvm_reader_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200), edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6)) {
        for text in [bytes, mutate(VALID_SVM, &edits)] {
            let _ = agghoo::data::read_libsvm_from(std::io::BufReader::new(text.as_slice()), Path::new("fuzz.svm"), TaskHint::Auto, None);
        }
    }

    #[test]
    fn splits_and_model_readers_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..8)) {
        let (model, splits) = valid_model_and_splits_cached();
        let m = String::from_utf8_lossy(&mutate(model, &edits)).into_owned();
        let s = String::from_utf8_lossy(&mutate(splits, &edits)).into_owned();
        if let Ok(model) = FittedModel::from_json(&m, Path::new("fuzz.model")) {
            // A file that still loads must predict or fail with a typed error.
            let data = agghoo::data::generators::knn_problem(5, agghoo::Seed(3)).unwrap();
            let _ = model.predict(&data);
        }
        let _ = Splits::from_json(&s, Path::new("fuzz.splits"));
    }
}

fn valid_model_and_splits_cached() -> (&'static str, &'static str) {
    static CACHE: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    let (m, s) = CACHE.get_or_init(valid_model_and_splits);
    (m, s)
}

#[test]
fn mutated_files_that_still_parse_are_checked() {
    // A splits file whose index points outside the data is refused on load.
    let (_, splits) = valid_model_and_splits_cached();
    let broken = splits.replacen("\"validation\":[", "\"validation\":[999999,", 1);
    assert!(Splits::from_json(&broken, Path::new("s.json")).is_err());
}

#[test]
fn a_model_file_with_inconsistent_arrays_is_refused_not_a_panic() {
    let (model, _) = valid_model_and_splits_cached();
    // Drop the first target value of the first member: x and y no longer have the same rows.
    let start = model.find("\"y\":[").expect("a k-NN member") + 5;
    let comma = start + model[start..].find(',').expect("several values");
    let broken = format!("{}{}", &model[..start], &model[comma + 1..]);
    let data = agghoo::data::generators::knn_problem(5, agghoo::Seed(3)).unwrap();
    match FittedModel::from_json(&broken, Path::new("m.json")) {
        Err(_) => {}
        Ok(m) => assert!(m.predict(&data).is_err(), "an inconsistent model must not predict"),
    }
}
