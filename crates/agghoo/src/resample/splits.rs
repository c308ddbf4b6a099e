//! Concrete splits: data, not recipes.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One split: the rows a rule is trained on (T) and the rows it is validated on (Tᶜ).
///
/// Invariant: both sets non-empty and disjoint. Training rows may repeat (bootstrap); validation
/// rows are distinct. Indices are below the `n_rows` of the enclosing [`Splits`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    train: Vec<usize>,
    validation: Vec<usize>,
}

impl Split {
    /// A split from its two index sets.
    ///
    /// # Errors
    /// [`Error::InvalidSplit`] (with split 0; [`Splits::new`] renumbers) when either side is empty.
    pub fn new(train: Vec<usize>, validation: Vec<usize>) -> Result<Self> {
        if train.is_empty() || validation.is_empty() {
            return Err(Error::InvalidSplit { split: 0, reason: "empty training or validation set".into() });
        }
        Ok(Self { train, validation })
    }
    /// Training rows T.
    pub fn train(&self) -> &[usize] {
        &self.train
    }
    /// Validation rows Tᶜ.
    pub fn validation(&self) -> &[usize] {
        &self.validation
    }
}

/// The splits of an instantiated plan, for a data set of `n_rows` rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splits {
    n_rows: usize,
    splits: Vec<Split>,
}

/// Version of the splits JSON format.
const SPLITS_FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct SplitsFile {
    format: String,
    format_version: u32,
    #[serde(flatten)]
    splits: Splits,
}

/// A [`SplitsFile`] as read, its fields spelled out: the flattened field has the JSON reader
/// buffer the whole document before reading it (what a text that is not a splits file is still
/// read as, for its error).
#[derive(Deserialize)]
struct SplitsFileIn {
    format: String,
    format_version: u32,
    n_rows: usize,
    splits: Vec<Split>,
}

impl Splits {
    /// Checks and wraps the splits.
    ///
    /// # Errors
    /// [`Error::InvalidSplit`] naming the split with an empty side, an index ≥ `n_rows`, a
    /// repeated validation row, or a row in both its training and validation sets (naming the
    /// row); [`Error::InvalidParameter`] when there is no split.
    pub fn new(n_rows: usize, splits: Vec<Split>) -> Result<Self> {
        Self::checked(n_rows, splits, true)
    }

    /// As [`Splits::new`], but a row may be in both sets of a split: for predicting every row,
    /// training rows included, with a rule trained on a resample (the bootstrap's apparent and
    /// per-resample errors). Never a risk estimate by itself.
    pub(crate) fn with_resubstitution(n_rows: usize, splits: Vec<Split>) -> Result<Self> {
        Self::checked(n_rows, splits, false)
    }

    fn checked(n_rows: usize, splits: Vec<Split>, disjoint: bool) -> Result<Self> {
        if splits.is_empty() {
            return Err(Error::invalid("splits", "at least one split", 0));
        }
        // Sized by the rows actually named, not by `n_rows` (a file may declare any count).
        let size =
            splits.iter().flat_map(|s| s.train.iter().chain(&s.validation)).copied().filter(|&i| i < n_rows).max().map_or(0, |m| m + 1);
        let mut seen = vec![usize::MAX; size];
        for (k, s) in splits.iter().enumerate() {
            if s.train.is_empty() || s.validation.is_empty() {
                return Err(Error::InvalidSplit { split: k, reason: "empty training or validation set".into() });
            }
            if let Some(&i) = s.train.iter().chain(&s.validation).find(|&&i| i >= n_rows) {
                return Err(Error::InvalidSplit { split: k, reason: format!("row {i} out of range for {n_rows} rows") });
            }
            for &i in &s.validation {
                if seen[i] == k {
                    return Err(Error::InvalidSplit { split: k, reason: format!("validation row {i} repeated") });
                }
                seen[i] = k;
            }
            // A row on both sides is validated on itself: the risk of a memorising rule would be 0.
            if let Some(&i) = s.train.iter().find(|&&i| disjoint && seen[i] == k) {
                return Err(Error::InvalidSplit { split: k, reason: format!("row {i} is in both the training and the validation set") });
            }
        }
        Ok(Self { n_rows, splits })
    }
    /// Rows of the data set the splits were made for.
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    /// Number of splits (V).
    pub fn len(&self) -> usize {
        self.splits.len()
    }
    /// Never true for a constructed value (kept for the `len` convention).
    pub fn is_empty(&self) -> bool {
        self.splits.is_empty()
    }
    /// Iterates over the splits in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Split> {
        self.splits.iter()
    }
    /// Split `k`.
    pub fn get(&self, k: usize) -> Option<&Split> {
        self.splits.get(k)
    }
    /// The splits as a slice.
    pub fn as_slice(&self) -> &[Split] {
        &self.splits
    }
    /// Checks the splits belong to a data set of `n_rows` rows.
    ///
    /// # Errors
    /// [`Error::SplitsMismatch`].
    pub fn check_rows(&self, n_rows: usize) -> Result<()> {
        if self.n_rows != n_rows {
            return Err(Error::SplitsMismatch { expected: self.n_rows, found: n_rows });
        }
        Ok(())
    }
    /// Smallest training-set size over the splits (counting repeats).
    pub fn min_train_size(&self) -> usize {
        self.splits.iter().map(|s| s.train.len()).min().unwrap_or(0)
    }
    /// Writes the splits as versioned JSON.
    ///
    /// # Errors
    /// [`Error::Io`].
    pub fn save(&self, path: &Path) -> Result<()> {
        let file = SplitsFile { format: "agghoo-splits".into(), format_version: SPLITS_FORMAT, splits: self.clone() };
        crate::json_file::write(path, &file)
    }
    /// Reads splits written by [`Splits::save`], or a bare JSON list of `{"train": [...],
    /// "validation": [...]}` objects together with `n_rows`... (the bare form needs `n_rows` given).
    ///
    /// # Errors
    /// [`Error::Io`]; [`Error::BadFile`] for malformed JSON, another format version or no split;
    /// [`Error::InvalidSplit`] for a split [`Splits::new`] refuses (overlapping sides, a row out
    /// of range, ...).
    pub fn load(path: &Path) -> Result<Self> {
        Self::from_json(&crate::json_file::read(path)?, path)
    }
    /// Parses the JSON form of [`Splits::save`]; `path` names the source in errors.
    ///
    /// # Errors
    /// As [`Splits::load`].
    pub fn from_json(text: &str, path: &Path) -> Result<Self> {
        let bad = |message: String| Error::BadFile { path: path.into(), message };
        let file = match serde_json::from_str::<SplitsFileIn>(text) {
            Ok(file) => file,
            Err(_) => {
                let file: SplitsFile = serde_json::from_str(text).map_err(|e| bad(format!("not an agghoo splits file: {e}")))?;
                let Splits { n_rows, splits } = file.splits;
                SplitsFileIn { format: file.format, format_version: file.format_version, n_rows, splits }
            }
        };
        if file.format != "agghoo-splits" || file.format_version != SPLITS_FORMAT {
            return Err(bad(format!(
                "splits format `{}` version {} (this agghoo reads version {SPLITS_FORMAT})",
                file.format, file.format_version
            )));
        }
        Splits::new(file.n_rows, file.splits).map_err(|e| match e {
            // Typed, so a caller can tell a split that cannot be used from a file that cannot be read.
            Error::InvalidSplit { .. } => e,
            other => bad(other.to_string()),
        })
    }
}

impl<'a> IntoIterator for &'a Splits {
    type Item = &'a Split;
    type IntoIter = std::slice::Iter<'a, Split>;
    fn into_iter(self) -> Self::IntoIter {
        self.splits.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_splits_file_reads_back_and_its_errors_are_those_of_the_whole_document() {
        let s = Splits::new(10, vec![Split::new(vec![0, 1, 2], vec![7, 8]).unwrap()]).unwrap();
        let file = SplitsFile { format: "agghoo-splits".into(), format_version: SPLITS_FORMAT, splits: s.clone() };
        let text = serde_json::to_string(&file).unwrap();
        assert_eq!(Splits::from_json(&text, Path::new("s.json")).unwrap(), s);
        let bad = [
            r#"[{"train":[0,1],"validation":[7,8,9]}]"#,
            r#"{"format":"agghoo-splits","format_version":1,"n_rows":10,"splits":[{"train":[0,"x"],"validation":[7]}]}"#,
            r#"{"format":"agghoo-splits","format_version":1,"n_rows":-1,"splits":[]}"#,
            r#"{"format":"agghoo-splits","format_version":1,"n_rows":10,"n_rows":10,"splits":[]}"#,
            r#"{"format":"agghoo-splits","format_version":1,"splits":[]}"#,
        ];
        for text in bad {
            let e = Splits::from_json(text, Path::new("s.json")).unwrap_err();
            let whole = serde_json::from_str::<SplitsFile>(text).err().unwrap();
            assert_eq!(e.to_string(), format!("s.json: not an agghoo splits file: {whole}"), "{text}");
        }
    }

    /// A splits file declaring 10¹⁸ rows must not allocate per declared row.
    #[test]
    fn a_huge_declared_row_count_allocates_nothing() {
        let split = Split::new(vec![0, 5], vec![1, 7]).unwrap();
        let s = Splits::new(usize::MAX, vec![split.clone()]).unwrap();
        assert_eq!(s.n_rows(), usize::MAX);
        assert!(matches!(s.check_rows(10), Err(Error::SplitsMismatch { .. })));
        let text = format!(
            r#"{{"format":"agghoo-splits","format_version":{SPLITS_FORMAT},"n_rows":1000000000000000000,"splits":[{{"train":[0],"validation":[1]}}]}}"#
        );
        match Splits::from_json(&text, Path::new("s.json")) {
            Ok(s) => assert_eq!(s.n_rows(), 1_000_000_000_000_000_000),
            Err(e) => panic!("{e}"),
        }
        assert!(Splits::new(8, vec![split.clone(), Split::new(vec![0], vec![7, 7]).unwrap()]).is_err());
    }

    #[test]
    fn json_round_trip_and_version_check() {
        let s = Splits::new(4, vec![Split::new(vec![0, 1], vec![2, 3]).unwrap()]).unwrap();
        let dir = std::env::temp_dir().join(format!("agghoo-splits-{}", std::process::id()));
        s.save(&dir).unwrap();
        assert_eq!(Splits::load(&dir).unwrap(), s);
        let text = std::fs::read_to_string(&dir).unwrap().replace("\"format_version\":1", "\"format_version\":99");
        assert!(matches!(Splits::from_json(&text, &dir), Err(Error::BadFile { .. })));
        std::fs::remove_file(dir).ok();
    }

    /// A split validated on its own training rows would report the risk of memorisation (0 for
    /// 1-NN); it is refused naming the split and a shared row, from code and from a file.
    #[test]
    fn training_and_validation_must_be_disjoint() {
        let good = Split::new(vec![0, 1], vec![2, 3]).unwrap();
        let overlap = Split::new(vec![0, 1, 3], vec![2, 3]).unwrap();
        match Splits::new(4, vec![good.clone(), overlap]) {
            Err(Error::InvalidSplit { split: 1, reason }) => assert!(reason.contains("row 3"), "{reason}"),
            other => panic!("expected InvalidSplit for split 1, got {other:?}"),
        }
        // Bootstrap: repeated training rows, out-of-bag validation rows: disjoint, accepted.
        assert!(Splits::new(4, vec![Split::new(vec![0, 0, 1, 1], vec![2, 3]).unwrap()]).is_ok());
        let text = r#"{"format":"agghoo-splits","format_version":1,"n_rows":4,"splits":[{"train":[0,1,2],"validation":[2,3]}]}"#;
        assert!(matches!(Splits::from_json(text, Path::new("s.json")), Err(Error::InvalidSplit { split: 0, .. })));
    }

    #[test]
    fn rejects_bad_indices() {
        assert!(matches!(Splits::new(3, vec![Split { train: vec![0], validation: vec![5] }]), Err(Error::InvalidSplit { split: 0, .. })));
        assert!(matches!(Splits::new(3, vec![Split { train: vec![0], validation: vec![1, 1] }]), Err(Error::InvalidSplit { .. })));
        assert!(Splits::new(3, vec![]).is_err());
    }
}
