//! Data sets shipped inside the binary, so the README's first command works from any directory
//! with nothing downloaded. Provenance: `data/README.md` at the repository root.

use std::path::Path;

use super::csv_reader::{CsvOptions, MissingPolicy, read_csv_from};
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
    let options = CsvOptions { target: Some("class".into()), missing, extra_columns: vec!["id".into()], ..Default::default() };
    Ok(read_csv_from(BREAST_CANCER_CSV.as_bytes(), Path::new("bundled:breast-cancer"), &options)?.data)
}
