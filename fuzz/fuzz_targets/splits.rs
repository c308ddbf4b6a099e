//! The splits-file loader on arbitrary text; a file that loads is checked against data sizes
//! around its own.
#![no_main]

use std::path::Path;

use agghoo::resample::Splits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Ok(text) = std::str::from_utf8(input) else { return };
    if let Ok(splits) = Splits::from_json(text, Path::new("fuzz.splits")) {
        let n = splits.n_rows();
        for rows in [n, n.saturating_sub(1), n + 1] {
            let _ = splits.check_rows(rows);
        }
        let _ = splits.min_train_size();
        for split in splits.iter() {
            let _ = (split.train().len(), split.validation().len());
        }
    }
});
