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

// ---- Data that would have given a silent wrong answer are refused or read correctly ----

fn csv(text: &str, target: &str) -> agghoo::Result<agghoo::data::CsvData> {
    read_csv_from(text.as_bytes(), Path::new("t.csv"), &CsvOptions { target: Some(target.into()), ..Default::default() })
}

fn class_names(d: &agghoo::data::Dataset) -> (Vec<u32>, Vec<String>) {
    match d.target() {
        agghoo::data::Target::Classes { labels, names } => (labels.clone(), names.clone()),
        agghoo::data::Target::Real(_) => panic!("expected classes"),
    }
}

/// A header naming a column twice used to give a model with features `["a","a"]`.
#[test]
fn a_duplicate_column_name_is_refused_with_both_positions() {
    let e = csv("a,b,a,y\n1,2,3,0\n4,5,6,1\n", "y").unwrap_err();
    assert!(matches!(&e, agghoo::Error::DuplicateColumn { name, first: 1, second: 3, .. } if name == "a"), "{e}");
    assert!(e.to_string().starts_with("t.csv: column `a`"), "{e}");
    // names are compared after trimming, as columns are looked up
    assert!(matches!(csv("a, a,y\n1,2,0\n", "y").unwrap_err(), agghoo::Error::DuplicateColumn { first: 1, second: 2, .. }));
}

/// Windows line endings used to shift every reported line number down by one.
#[test]
fn line_numbers_count_crlf_endings_and_libsvm_comments() {
    let e = csv("a,b,y\r\n1,2,0\r\n3,1\r\n", "y").unwrap_err();
    assert!(matches!(e, agghoo::Error::RaggedRow { line: 3, .. }), "{e}");
    let e = csv("a,y\r\n1,0\r\n2,\r\n", "y").unwrap_err();
    assert!(matches!(e, agghoo::Error::MissingValue { line: 3, .. }), "{e}");
    // a bare `\r` inside a quoted field is kept
    let text_column = CsvOptions { target: Some("y".into()), extra_columns: vec!["t".into()], ..Default::default() };
    let d = read_csv_from("a,y,t\r\n1,0,\"x\ry\"\r\n2,1,z\r\n".as_bytes(), Path::new("t.csv"), &text_column).unwrap();
    assert_eq!(d.extras["t"], ["x\ry", "z"]);
    // long files: whichever read boundary splits a `\r\n`, it is one line ending
    for pad in 0..5 {
        let text = format!("{}a,y\r\n{}3,1,2\r\n", "b".repeat(pad), "1,0\r\n".repeat(3000));
        let e = csv(&text, "y").unwrap_err();
        assert!(matches!(e, agghoo::Error::RaggedRow { line: 3002, .. }), "{e}");
    }
    // the target's own errors name the file line too
    let regression = CsvOptions { target: Some("y".into()), task: TaskHint::Regression, ..Default::default() };
    let e = read_csv_from("a,y\r\n1,0\r\n2,x\r\n".as_bytes(), Path::new("t.csv"), &regression).unwrap_err();
    assert!(matches!(e, agghoo::Error::NotANumber { line: 3, .. }), "{e}");
    // blank lines (LF and CRLF, a quoted field spanning lines) count as lines of the file
    for text in ["a,b,y\n1,2,0\n\n\n3,x,1\n", "a,b,y\r\n1,2,0\r\n\r\n\r\n3,x,1\r\n", "a,b,y\n\n1,\"2\n\",0\n\n3,x,1\n"] {
        let e = csv(text, "y").unwrap_err();
        let expected = if text.contains('"') { 6 } else { 5 };
        assert!(matches!(e, agghoo::Error::NotANumber { line, .. } if line == expected), "{text:?}: {e}");
    }
    let blank_then_ragged = format!("a,y\n{}\n\n3,1,2\n", "1,0\n".repeat(5000));
    assert!(matches!(csv(&blank_then_ragged, "y").unwrap_err(), agghoo::Error::RaggedRow { line: 5004, .. }));
    // LibSVM: comment and blank lines count
    let svm = |text: &str| agghoo::data::read_libsvm_from(text.as_bytes(), Path::new("t.svm"), TaskHint::Regression, None);
    let e = svm("# header comment\n\n1 1:1\nx 2:1\n").unwrap_err();
    assert!(matches!(e, agghoo::Error::NotANumber { line: 4, .. }), "{e}");
    let e = svm("# c\r\n1 1:1\r\n0 2:1 1:3\r\n").unwrap_err();
    assert!(matches!(e, agghoo::Error::LibSvm { line: 3, .. }), "{e}");
}

/// `1` and `1.0` used to be two classes.
#[test]
fn numeric_labels_are_one_class_per_number_in_canonical_spelling() {
    let d = csv("a,y\n1,1\n2,1.0\n3,+1\n4,3.00\n5,-0\n6,0\n", "y").unwrap().data;
    assert_eq!(class_names(&d), (vec![1, 1, 1, 2, 0, 0], vec!["0".into(), "1".into(), "3".into()]));
    // LibSVM labels too
    let d = agghoo::data::read_libsvm_from("+1 1:1\n1 1:2\n-1 1:3\n".as_bytes(), Path::new("t.svm"), TaskHint::Auto, None).unwrap();
    assert_eq!(class_names(&d), (vec![1, 1, 0], vec!["-1".into(), "1".into()]));
    // text labels stay text (`1` and `1.0` among words are two spellings)
    let d = csv("a,y\n1,x\n2,1\n3,1.0\n", "y").unwrap().data;
    assert_eq!(class_names(&d).1, ["1", "1.0", "x"]);
    // prediction data: a label is its model class by text, else by number; a model written
    // before normalisation (classes `1` and `1.0`) keeps its exact-text mapping
    let with = |names: &[&str]| CsvOptions {
        target: Some("y".into()),
        task: TaskHint::Classification,
        class_names: Some(names.iter().map(|n| n.to_string()).collect()),
        ..Default::default()
    };
    let read =
        |names: &[&str]| class_names(&read_csv_from("a,y\n1,1.0\n2,2\n3,1\n".as_bytes(), Path::new("t.csv"), &with(names)).unwrap().data).0;
    assert_eq!(read(&["1", "2"]), [0, 1, 0]);
    assert_eq!(read(&["1", "1.0", "2"]), [1, 2, 0]);
    let e = read_csv_from("a,y\n1,3\n".as_bytes(), Path::new("t.csv"), &with(&["1", "2"])).unwrap_err();
    assert!(matches!(&e, agghoo::Error::UnseenLabel { label } if label == "3"), "{e}");
}

/// A CSV named `.txt` / `.svm` used to read as LibSVM labels with no feature.
#[test]
fn the_content_decides_the_format_the_extension_is_a_hint() {
    use agghoo::data::{DataFormat, detect_format_from};
    let f = |text: &str, name: &str| detect_format_from(text.as_bytes(), Path::new(name));
    assert_eq!(f("a,b,y\n1,2,0\n", "d.txt"), DataFormat::Csv);
    assert_eq!(f("a;b;y\n1;2;0\n", "d.svm"), DataFormat::Csv);
    assert_eq!(f("a\tb\ty\n1\t2\t0\n", "d.libsvm"), DataFormat::Csv);
    assert_eq!(f("# comment\n\n+1 1:0.5 3:2\n", "d.txt"), DataFormat::LibSvm);
    assert_eq!(f("-1 4:1e-3\n", "data"), DataFormat::LibSvm);
    assert_eq!(f("1\n0\n", "d.svm"), DataFormat::LibSvm);
    assert_eq!(f("y\n1\n0\n", "d.csv"), DataFormat::Csv);
    assert_eq!(f("1,2 3:4\n", "d.svm"), DataFormat::Csv);
}

/// Data without a feature used to fit k-NN on row order and to panic in the SVM solver.
#[test]
fn data_without_features_are_refused_by_readers_and_by_every_family() {
    let e = csv("y\n0\n1\n", "y").unwrap_err();
    assert!(matches!(&e, agghoo::Error::NoFeatures { source_name, .. } if source_name == "t.csv"), "{e}");
    let ignored = CsvOptions { target: Some("y".into()), extra_columns: vec!["id".into(), "a".into()], ..Default::default() };
    let e = read_csv_from("id,a,y\n1,2,0\n".as_bytes(), Path::new("t.csv"), &ignored).unwrap_err();
    assert!(e.to_string().contains("the columns are id, a, y"), "{e}");
    let e = agghoo::data::read_libsvm_from("1\n0\n".as_bytes(), Path::new("t.svm"), TaskHint::Auto, None).unwrap_err();
    assert!(matches!(e, agghoo::Error::NoFeatures { .. }), "{e}");
    // a data set built in code: every family, and TreeCV, refuse it
    let targets = [
        agghoo::data::Target::Classes { labels: vec![0, 1, 0, 1, 0, 1], names: vec!["a".into(), "b".into()] },
        agghoo::data::Target::Real(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
    ];
    for target in targets {
        let data = agghoo::data::Dataset::new(Vec::new(), Vec::new(), target, "y").unwrap();
        for kind in agghoo::family::FamilyKind::ALL {
            let e = agghoo::family::build(kind, &agghoo::family::FamilyParams::default(), &data).err();
            assert!(matches!(e, Some(agghoo::Error::NoFeatures { .. })), "{kind:?}: {e:?}");
        }
        let pegasos = agghoo::incremental::Pegasos::new(0.1).unwrap();
        let e = agghoo::treecv::ChunkedData::new(&pegasos, &data, 2, None).err();
        assert!(matches!(e, Some(agghoo::Error::NoFeatures { .. })), "{e:?}");
    }
}

/// `--target`, `--ignore` and `--missing` used to be ignored for bundled and generated data.
#[test]
fn bundled_and_generated_data_honour_the_column_requests() {
    use agghoo::data::bundled;
    let on_disk = |options: &CsvOptions| {
        let text = bundled::BREAST_CANCER_CSV;
        read_csv_from(text.as_bytes(), Path::new("b.csv"), options).unwrap().data
    };
    // the same options as the file with `--ignore id`: the same data
    let options = CsvOptions {
        target: Some("mitoses".into()),
        missing: MissingPolicy::Drop,
        extra_columns: vec!["bare_nuclei".into()],
        ..Default::default()
    };
    let bundled = bundled::breast_cancer_csv(options.clone()).unwrap().data;
    let file = on_disk(&CsvOptions { extra_columns: vec!["bare_nuclei".into(), "id".into()], ..options });
    assert_eq!((bundled.feature_names(), bundled.x(), bundled.target()), (file.feature_names(), file.x(), file.target()));
    assert_eq!(bundled.n_features(), 8);
    let e = bundled::breast_cancer_csv(CsvOptions { target: Some("nope".into()), ..Default::default() }).unwrap_err();
    assert!(matches!(e, agghoo::Error::MissingTarget { .. }), "{e}");
    // missing values follow the policy like any file: the default refuses them
    let e = bundled::breast_cancer_csv(CsvOptions::default()).unwrap_err();
    assert!(matches!(&e, agghoo::Error::MissingValue { column, .. } if column == "bare_nuclei"), "{e}");
    assert_eq!(bundled::breast_cancer_csv(CsvOptions { missing: MissingPolicy::Median, ..Default::default() }).unwrap().data.n_rows(), 699);

    let generated = || agghoo::data::generators::knn_problem(20, agghoo::Seed(1)).unwrap();
    let e = generated().with_columns("gen:knn", Some("nope"), &[]).unwrap_err();
    assert!(matches!(&e, agghoo::Error::MissingTarget { available, .. } if available == "u, v, y"), "{e}");
    assert_eq!(generated().with_columns("gen:knn", Some("y"), &[]).unwrap().feature_names(), ["u", "v"]);
    let dropped = generated().with_columns("gen:knn", None, &["u".into()]).unwrap();
    assert_eq!((dropped.feature_names(), dropped.row(3)[0]), (&["v".to_string()][..], generated().row(3)[1]));
    assert!(matches!(generated().with_columns("gen:knn", None, &["w".into()]), Err(agghoo::Error::MissingColumn { .. })));
    assert!(matches!(generated().with_columns("gen:knn", None, &["y".into()]), Err(agghoo::Error::InvalidParameter { .. })));
    let e = generated().with_columns("gen:knn", None, &["u".into(), "v".into()]).unwrap_err();
    assert!(matches!(&e, agghoo::Error::NoFeatures { source_name, .. } if source_name == "gen:knn"), "{e}");
}

/// Cells of the categorical reader's edge cases: numbers, infinities, pandas' NA strings, marks
/// that are not missing by default, text.
const CELLS: [&str; 16] = ["1", "2.5", "-3", "1e3", "inf", "-inf", "", "NA", "NULL", "nan", "-", ".", "?", "Paris", "n/a", "None"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// The categorical reader with every token list: no panic, and a column's kind decided by
    /// all its values — the rows reversed give the same answer (the fuzz target `csv_na`'s check,
    /// on files of the reader's edge cases).
    #[test]
    fn categorical_reader_and_na_tokens_do_not_depend_on_row_order(
        choice in any::<u8>(),
        rows in proptest::collection::vec((0..CELLS.len(), 0..CELLS.len(), 0..2usize), 1..12),
    ) {
        let line = |&(a, b, y): &(usize, usize, usize)| format!("{},{},{y}\n", CELLS[a], CELLS[b]);
        let file: String = std::iter::once("a,b,y\n".to_string()).chain(rows.iter().map(line)).collect();
        agghoo::testing::check_csv_na(&[&[choice], file.as_bytes()].concat());
    }
}
