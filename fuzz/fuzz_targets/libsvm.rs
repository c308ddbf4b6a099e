//! The LibSVM / svmlight reader on arbitrary bytes. The first byte picks the task hint and an
//! optional declared number of features; the rest is the file.
#![no_main]

use std::path::Path;

use agghoo::data::{TaskHint, read_libsvm_from};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let Some((&choice, text)) = input.split_first() else { return };
    let task = match choice % 3 {
        0 => TaskHint::Auto,
        1 => TaskHint::Classification,
        _ => TaskHint::Regression,
    };
    let n_features = (choice & 0x80 != 0).then_some(usize::from(choice >> 3 & 0x0f));
    if let Ok(data) = read_libsvm_from(text, Path::new("fuzz.svm"), task, n_features) {
        let _ = data.check_learnable();
        let _ = data.all().gather_x();
    }
});
