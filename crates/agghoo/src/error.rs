//! The one error type of the library.
//!
//! Every fallible function returns [`Result<T, Error>`](crate::Result). Variants name the culprit:
//! the parameter and the rule it broke, the file with its line and column, the row, the split, the
//! grid point. Messages are lowercase without a final period; causes live in `#[source]`.

use std::path::PathBuf;

/// `e` and its causes (`source()` after `source()`) on one line joined by ": ", each cause once:
/// an error whose message already ends with its cause's text (`data.csv: No such file or
/// directory (os error 2)`) does not repeat it. What the CLI prints and Python's messages hold.
///
/// ```
/// let e = agghoo::Error::Io { path: "data.csv".into(), source: std::io::Error::other("gone") };
/// assert_eq!(agghoo::one_line(&e), "data.csv: gone");
/// ```
pub fn one_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = String::new();
    let mut next = Some(e);
    while let Some(cause) = next {
        let text = cause.to_string().replace('\n', " ");
        if !line.ends_with(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
        next = cause.source();
    }
    line
}

/// Everything that can go wrong in agghoo, each variant naming what is at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parameter broke its rule (for example τ outside (0, 1), V = 0, an empty grid).
    #[error("parameter `{name}` must be {expected}, got {got}")]
    InvalidParameter {
        /// The parameter's name, as the user spells it.
        name: &'static str,
        /// The rule it must satisfy.
        expected: &'static str,
        /// The offending value.
        got: String,
    },
    /// A file could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating-system error.
        #[source]
        source: std::io::Error,
    },
    /// A data file had no data rows.
    #[error("{path}: no data rows")]
    EmptyFile {
        /// The file.
        path: PathBuf,
    },
    /// A CSV row had a different number of fields from the header.
    #[error("{path}: line {line}: expected {expected} fields, found {found}")]
    RaggedRow {
        /// The file.
        path: PathBuf,
        /// One-based line number.
        line: u64,
        /// Number of fields in the header.
        expected: usize,
        /// Number of fields on this line.
        found: usize,
    },
    /// A field that should be a number was not one.
    #[error("{path}: line {line}, column `{column}`: `{value}` is not a number")]
    NotANumber {
        /// The file.
        path: PathBuf,
        /// One-based line number.
        line: u64,
        /// The column's name.
        column: String,
        /// The text found.
        value: String,
    },
    /// A value was NaN or infinite.
    #[error("row {row}, column `{column}`: {value} is not a finite number")]
    NonFinite {
        /// Zero-based data row (line numbers are given by [`Error::NotANumber`] for files).
        row: usize,
        /// The column's name.
        column: String,
        /// The value.
        value: f64,
    },
    /// A value was missing (empty field) and the missing-value policy is to refuse.
    #[error("{path}: line {line}, column `{column}`: missing value (use --missing drop|median)")]
    MissingValue {
        /// The file.
        path: PathBuf,
        /// One-based line number.
        line: u64,
        /// The column's name.
        column: String,
    },
    /// A prediction row has a missing value the model has no rule for.
    #[error(
        "row {row}, column `{column}`: missing value, and the model {}",
        if *trained_with_missing { "does not impute this column's missing values (fit with --missing median / missing=\"median\")" }
        else { "was fitted on data without missing values (fit with --missing median / missing=\"median\" on data with some)" }
    )]
    MissingAtPrediction {
        /// Zero-based row of the prediction data.
        row: usize,
        /// The column's name.
        column: String,
        /// Whether the training data had missing values (in other columns, then).
        trained_with_missing: bool,
    },
    /// A line of a LibSVM / svmlight file was malformed.
    #[error("{path}: line {line}: {message}")]
    LibSvm {
        /// The file.
        path: PathBuf,
        /// One-based line number.
        line: u64,
        /// What was wrong.
        message: String,
    },
    /// A header names the same column twice (columns counted from 1).
    #[error("{path}: column `{name}` appears twice in the header (columns {first} and {second}); rename one")]
    DuplicateColumn {
        /// The file.
        path: PathBuf,
        /// The repeated name.
        name: String,
        /// One-based position of its first occurrence.
        first: usize,
        /// One-based position of its second occurrence.
        second: usize,
    },
    /// The data have no feature column left to learn from.
    #[error("{source_name}: no feature columns to learn from ({detail})")]
    NoFeatures {
        /// The file or data set.
        source_name: String,
        /// What the columns were (the target, the ignored ones).
        detail: String,
    },
    /// The requested target column is not in the file.
    #[error("target column `{name}` not found; columns are: {available}")]
    MissingTarget {
        /// The requested name.
        name: String,
        /// The columns present, comma-separated.
        available: String,
    },
    /// A requested (non-target) column is not in the file.
    #[error("column `{name}` not found; columns are: {available}")]
    MissingColumn {
        /// The requested name.
        name: String,
        /// The columns present, comma-separated.
        available: String,
    },
    /// The target takes one value only, so there is nothing to learn.
    #[error("target `{name}` is constant ({value}): nothing to learn")]
    ConstantTarget {
        /// The target's name.
        name: String,
        /// Its only value.
        value: String,
    },
    /// The data have too few rows for what was asked.
    #[error("{what} needs at least {needed} rows, the data have {found}")]
    TooFewRows {
        /// What needed them (for example "10-fold CV").
        what: String,
        /// How many are needed.
        needed: usize,
        /// How many there are.
        found: usize,
    },
    /// The task of the data does not fit the request (for example the 0–1 loss on a real target).
    #[error("task mismatch: {0}")]
    TaskMismatch(String),
    /// A loss that cannot be computed from the predictions at hand.
    #[error("loss `{loss}` cannot be computed: {reason}")]
    LossUnavailable {
        /// The loss.
        loss: String,
        /// Why.
        reason: String,
    },
    /// A label at prediction time that the training data never had.
    #[error("label `{label}` was not seen in training")]
    UnseenLabel {
        /// The label.
        label: String,
    },
    /// Splits were instantiated for another data set.
    #[error("splits were made for {expected} rows, the data have {found}")]
    SplitsMismatch {
        /// Rows the splits were made for.
        expected: usize,
        /// Rows of the data.
        found: usize,
    },
    /// A split has an empty training or validation set, or indices out of range.
    #[error("split {split}: {reason}")]
    InvalidSplit {
        /// Zero-based split index.
        split: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Fitting a grid point on a split, or on all rows, failed.
    #[error("{}, grid point {grid_index}: fit failed", on_rows(.split))]
    Fit {
        /// Zero-based split index; `None` for a fit on all rows (CV's refit, ACV, EKCV, a
        /// closed form).
        split: Option<usize>,
        /// Zero-based grid index (m).
        grid_index: usize,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// The work of one split failed (its preprocessing, the path as a whole, a loss that cannot
    /// be computed on its predictions); the cause says what.
    #[error("{}", on_rows(.split))]
    SplitFailed {
        /// Zero-based split index; `None` for the work on all rows.
        split: Option<usize>,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// The work of one outer split of a nested procedure failed (nested CV, honest feature
    /// selection); the cause names the inner split, if any.
    #[error("outer split {split}")]
    OuterSplit {
        /// Zero-based outer split index.
        split: usize,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// A finite value that the requested storage cannot represent (for example beyond f32's range).
    #[error("row {row}, column `{column}`: {value:e} is beyond the range of {storage}")]
    OutOfRange {
        /// Zero-based data row.
        row: usize,
        /// The column's name.
        column: String,
        /// The value.
        value: f64,
        /// The storage and its range (for example "f32 (±3.4e38)").
        storage: &'static str,
    },
    /// A feature selection chose no feature, so there is nothing to train a learner on.
    #[error("{selector} selected no feature: {reason}")]
    EmptySelection {
        /// The selection method.
        selector: String,
        /// Why, and what to change.
        reason: String,
    },
    /// A computation failed because of a property of the data: a singular or indefinite
    /// system, a solver that does not converge, a prediction that overflows.
    #[error("{0}")]
    Numerical(String),
    /// A risk (a validation or test risk, a bootstrap estimate, a subset score, the loss on a
    /// chunk) is NaN or infinite; it is never selected or averaged silently.
    #[error("{0}")]
    NonFiniteRisk(String),
    /// A fitted model is internally inconsistent: a corrupted or hand-edited model file. Loading
    /// a file reports it as [`Error::BadFile`] naming the path, with this description.
    #[error("{0}")]
    CorruptModel(String),
    /// A model or splits file could not be read, or is of another format version.
    #[error("{path}: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Prediction data whose columns do not match the model's training schema.
    #[error("columns do not match the model: {0}")]
    SchemaMismatch(String),
    /// Scoring a feature subset failed (a wrapper's family could not be fitted on those columns).
    #[error("feature subset [{features}]: scoring failed")]
    FeatureSubset {
        /// The subset's column names, comma-separated.
        features: String,
        /// The cause.
        #[source]
        source: Box<Error>,
    },
    /// A requested size (grid points, splits, rows, trees, threads, memory) is beyond a documented
    /// limit; checked before any allocation, so a typo cannot exhaust the machine.
    #[error("{what} would need {estimate}, beyond the limit of {limit} ({raise})")]
    ResourceLimit {
        /// What was asked for (for example "a grid of 100000000 points").
        what: String,
        /// The estimated cost (a count, or bytes of memory).
        estimate: String,
        /// The limit in force.
        limit: String,
        /// How to raise the limit, or what to do instead.
        raise: String,
    },
    /// An internal invariant was broken: a bug in agghoo, not a problem with the input.
    #[error("internal error: {0} (this is a bug in agghoo: please report it with the command and data that produced it)")]
    Internal(String),
    /// The run was cancelled by its observer (Ctrl-C, say) between two units of work: no result.
    #[error("interrupted: {0}")]
    Interrupted(String),
    /// A capability a procedure needs is missing (for example a learner without snapshots).
    #[error("{what} is not supported: {reason}")]
    Unsupported {
        /// The missing capability.
        what: String,
        /// Why it is needed.
        reason: String,
    },
}

/// The kind of an [`Error`], for callers that react by kind rather than by variant (an exception
/// class per kind in a binding, a retry policy in an executor). New kinds may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The data are unusable as given: malformed file contents, missing or constant columns, too
    /// few rows, a task or schema that does not fit the request.
    Data,
    /// A parameter, a splits file or a requested capability is invalid.
    Parameter,
    /// Fitting a learner failed on a split or on all rows; the cause is the error's source.
    Fit,
    /// A computation failed because of the data's numbers (singular system, no convergence,
    /// overflow, a non-finite risk).
    Numerical,
    /// A model or splits file is corrupted, not an agghoo file, or of another format version.
    CorruptFile,
    /// A requested size is beyond a documented limit.
    ResourceLimit,
    /// A file could not be opened or read.
    Io,
    /// A broken internal invariant: a bug in agghoo.
    Internal,
    /// The run was cancelled before it finished (its observer said stop).
    Interrupted,
}

impl Error {
    /// The kind of this error. Wrappers that only locate an error ([`Error::SplitFailed`],
    /// [`Error::OuterSplit`], [`Error::FeatureSubset`]) have the kind of their cause; a failed fit
    /// ([`Error::Fit`]) is of kind [`ErrorKind::Fit`] whatever its cause.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidParameter { .. } | Error::InvalidSplit { .. } | Error::Unsupported { .. } => ErrorKind::Parameter,
            Error::Io { .. } => ErrorKind::Io,
            Error::EmptyFile { .. }
            | Error::RaggedRow { .. }
            | Error::NotANumber { .. }
            | Error::NonFinite { .. }
            | Error::MissingValue { .. }
            | Error::MissingAtPrediction { .. }
            | Error::LibSvm { .. }
            | Error::DuplicateColumn { .. }
            | Error::NoFeatures { .. }
            | Error::MissingTarget { .. }
            | Error::MissingColumn { .. }
            | Error::ConstantTarget { .. }
            | Error::TooFewRows { .. }
            | Error::TaskMismatch(_)
            | Error::LossUnavailable { .. }
            | Error::UnseenLabel { .. }
            | Error::SplitsMismatch { .. }
            | Error::OutOfRange { .. }
            | Error::EmptySelection { .. }
            | Error::SchemaMismatch(_) => ErrorKind::Data,
            Error::Fit { .. } => ErrorKind::Fit,
            Error::SplitFailed { source, .. } | Error::OuterSplit { source, .. } | Error::FeatureSubset { source, .. } => source.kind(),
            Error::Numerical(_) | Error::NonFiniteRisk(_) => ErrorKind::Numerical,
            Error::BadFile { .. } | Error::CorruptModel(_) => ErrorKind::CorruptFile,
            Error::ResourceLimit { .. } => ErrorKind::ResourceLimit,
            Error::Internal(_) => ErrorKind::Internal,
            Error::Interrupted(_) => ErrorKind::Interrupted,
        }
    }

    /// Shorthand for [`Error::ResourceLimit`].
    pub fn limit(what: impl Into<String>, estimate: impl Into<String>, limit: impl Into<String>, raise: impl Into<String>) -> Self {
        Error::ResourceLimit { what: what.into(), estimate: estimate.into(), limit: limit.into(), raise: raise.into() }
    }

    /// This error as it happened on split `split` of the current resampling: a [`Error::Fit`] or
    /// [`Error::SplitFailed`] is renumbered (wrapped once, never twice), anything else is wrapped
    /// in [`Error::SplitFailed`].
    pub fn at_split(self, split: usize) -> Self {
        match self {
            Error::Fit { grid_index, source, .. } => Error::Fit { split: Some(split), grid_index, source },
            Error::SplitFailed { source, .. } => Error::SplitFailed { split: Some(split), source },
            other => Error::SplitFailed { split: Some(split), source: Box::new(other) },
        }
    }

    /// Shorthand for [`Error::InvalidParameter`].
    pub fn invalid(name: &'static str, expected: &'static str, got: impl ToString) -> Self {
        Error::InvalidParameter { name, expected, got: got.to_string() }
    }
}

/// "split 3", or "refit on all rows" for `None`.
fn on_rows(split: &Option<usize>) -> String {
    match split {
        Some(j) => format!("split {j}"),
        None => "refit on all rows".into(),
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
