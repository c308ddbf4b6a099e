//! The CSV reader's categorical columns and missing-value tokens on arbitrary bytes. The first
//! byte picks the options (decoded as `na_options` in `crates/agghoo/tests/readers.rs`: a
//! missing policy, a token list, column `a` declared categorical or not; kinds detected from the
//! values); the rest is the file. Any input must give `Ok` or a typed error, never a panic; and
//! when the file has no quote and no `\r`, its data rows reversed give the same answer (success,
//! categorical columns, levels, warnings): a column's kind does not depend on row order.
#![no_main]

use std::path::Path;

use agghoo::data::{CsvData, CsvOptions, MissingPolicy, NaValues, read_csv_from};
use libfuzzer_sys::fuzz_target;

const NA_LISTS: [&[&str]; 5] = [&["default"], &["default", "-", "."], &["-"], &[], &["NULL", "inf", "Paris"]];

/// The categorical columns, each feature's levels, the warnings' columns.
type Kinds = (Vec<String>, Vec<Option<Vec<String>>>, Vec<String>);

fn kinds(read: &agghoo::Result<CsvData>) -> Option<Kinds> {
    let d = read.as_ref().ok()?;
    let levels = (0..d.data.n_features()).map(|j| d.data.levels(j).map(<[String]>::to_vec)).collect();
    Some((d.data.categorical_names(), levels, d.warnings.iter().map(|w| w.column.clone()).collect()))
}

fuzz_target!(|input: &[u8]| {
    let Some((&choice, text)) = input.split_first() else { return };
    let options = CsvOptions {
        target: Some("y".into()),
        missing: [MissingPolicy::Error, MissingPolicy::Drop, MissingPolicy::Median][usize::from(choice % 3)],
        na_values: NaValues::parse(NA_LISTS[usize::from(choice / 3) % NA_LISTS.len()]).unwrap(),
        categorical: if choice & 0x80 != 0 { vec!["a".into()] } else { Vec::new() },
        detect_categorical: true,
        ..Default::default()
    };
    let forward = read_csv_from(text, Path::new("fuzz.csv"), &options);
    if let Ok(read) = &forward {
        let _ = read.data.check_learnable();
        let _ = read.data.all().gather_x();
    }
    // Row order: only for files whose lines are their records (no quotes, no `\r`, UTF-8), each
    // ending with a line break.
    if text.contains(&b'"') || text.contains(&b'\r') || !text.ends_with(b"\n") || std::str::from_utf8(text).is_err() {
        return;
    }
    let mut lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
    if lines.len() < 3 {
        return;
    }
    lines[1..].reverse();
    let backward: Vec<u8> = lines.concat();
    let backward = read_csv_from(backward.as_slice(), Path::new("fuzz.csv"), &options);
    assert_eq!(forward.is_ok(), backward.is_ok(), "{:?} / {:?}", forward.as_ref().err(), backward.as_ref().err());
    assert_eq!(kinds(&forward), kinds(&backward));
});
