//! Data sets shipped inside the binary, so the README's first command works from any directory
//! with nothing downloaded. Provenance: `data/README.md` at the repository root.

use std::path::Path;

use super::csv_reader::{CsvData, CsvOptions, MissingPolicy, read_csv_from};
use super::dataset::Dataset;
use crate::error::Result;

/// The Breast Cancer Wisconsin (original) CSV: 699 rows, `id`, 9 features, `class` (0 benign,
/// 1 malignant), 16 missing `bare_nuclei` values.
pub const BREAST_CANCER_CSV: &str = include_str!("../../../../data/breast-cancer-wisconsin.csv");

/// The Breast Cancer Wisconsin set as a [`Dataset`]: `id` dropped, target `class`, missing
/// values handled by `missing`. (The classification paper reports n = 699 and d = 10, so it kept
/// every row and apparently counted the `id` column as a feature; see docs/RESULTS.md.)
///
/// ```
/// use agghoo::data::{bundled, MissingPolicy};
/// let d = bundled::breast_cancer(MissingPolicy::Drop)?;
/// assert_eq!((d.n_rows(), d.n_features()), (683, 9));
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`crate::Error::MissingValue`] with [`MissingPolicy::Error`].
pub fn breast_cancer(missing: MissingPolicy) -> Result<Dataset> {
    Ok(breast_cancer_csv(CsvOptions { missing, ..Default::default() })?.data)
}

/// Reads the bundled Breast Cancer Wisconsin CSV exactly as [`read_csv`](super::read_csv) reads
/// the same file on disk with `options`, with two defaults: the target is `class` when
/// `options.target` is `None`, and `id` (a row identifier) is never a feature — it is added to
/// `options.extra_columns` unless it is the target or already there. So `bundled:breast-cancer`
/// with `--target T --ignore C` is `data/breast-cancer-wisconsin.csv --target T --ignore C
/// --ignore id`. Missing values follow `options.missing` like any file (the default,
/// [`MissingPolicy::Error`], refuses the 16 missing `bare_nuclei` values).
///
/// # Errors
/// As [`read_csv`](super::read_csv).
pub fn breast_cancer_csv(mut options: CsvOptions) -> Result<CsvData> {
    let target = options.target.get_or_insert_with(|| "class".into()).clone();
    if target != "id" && !options.extra_columns.iter().any(|c| c == "id") {
        options.extra_columns.push("id".into());
    }
    read_csv_from(BREAST_CANCER_CSV.as_bytes(), Path::new("bundled:breast-cancer"), &options)
}
