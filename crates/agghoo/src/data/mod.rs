//! Data: the [`Dataset`] (features stored once, row-major), cheap [`View`]s by index set,
//! readers for CSV and LibSVM text, per-fold preprocessing and the papers' generators.
//!
//! A view is a borrowed list of row indices; nothing copies the feature matrix per split. Families
//! that need contiguous memory (kernels, trees) gather the rows they need themselves.

pub mod bundled;
mod categorical;
mod csv_reader;
mod dataset;
pub mod generators;
mod libsvm;
mod na;
pub mod study;
mod transform;

pub use categorical::{CategoryOptions, Encoder, Encoding, MissingCategory, MostlyNumeric, level_name, mostly_numeric};
pub use csv_reader::{CsvData, CsvOptions, MissingPolicy, TaskHint, detect_delimiter, read_csv, read_csv_from, read_csv_header};
pub use dataset::{Dataset, Target, Task, View};
pub use libsvm::{DataFormat, detect_format, detect_format_from, libsvm_extension, read_libsvm, read_libsvm_from};
pub use na::{DEFAULT_NA_VALUES, NaValues};
pub use transform::{Preprocess, Transform};
