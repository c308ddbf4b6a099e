//! The CSV reader on arbitrary bytes. The first byte picks the options (target column or none,
//! task hint, missing-value policy, delimiter, a fixed feature list, fixed class names); the
//! rest is the file. Any input must give `Ok` or a typed error, never a panic.
#![no_main]

use std::path::Path;

use agghoo::data::{CsvOptions, MissingPolicy, TaskHint, read_csv_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&choice, text)) = input.split_first() else { return };
    let options = CsvOptions {
        target: (choice & 1 == 0).then(|| "y".to_string()),
        task: match (choice >> 1) % 3 {
            0 => TaskHint::Auto,
            1 => TaskHint::Classification,
            _ => TaskHint::Regression,
        },
        missing: match (choice >> 3) % 3 {
            0 => MissingPolicy::Error,
            1 => MissingPolicy::Drop,
            _ => MissingPolicy::Median,
        },
        extra_columns: if choice & 0x20 != 0 { vec!["id".into()] } else { Vec::new() },
        delimiter: (choice & 0x40 != 0).then_some(b';'),
        feature_columns: (choice & 0x80 != 0).then(|| vec!["b".into(), "a".into()]),
        class_names: (choice & 0x81 == 0x80).then(|| vec!["0".into(), "1".into(), "x".into()]),
        // No choice bit is left: the input's length parity turns text columns categorical.
        categorical: Vec::new(),
        detect_categorical: text.len() % 2 == 0,
        // The missing-value tokens are varied by the `csv_na` target.
        na_values: Default::default(),
    };
    if let Ok(read) = read_csv_from(text, Path::new("fuzz.csv"), &options) {
        let data = read.data;
        // What a caller does next must not panic either.
        let _ = data.check_learnable();
        let _ = data.all().gather_x();
    }
});
