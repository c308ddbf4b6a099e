//! The CSV reader's categorical columns and missing-value tokens on arbitrary bytes: the check
//! `agghoo::testing::check_csv_na` (the first byte picks the options, the rest is the file; `Ok`
//! or a typed error, never a panic; the same answer with the data rows reversed). The workspace
//! runs the same check as the property test `readers.rs::categorical_reader_and_na_tokens_do_not_depend_on_row_order`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| agghoo::testing::check_csv_na(input));
