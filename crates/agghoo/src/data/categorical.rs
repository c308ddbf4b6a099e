//! Categorical features: columns of text (`city = Paris`) turned into numbers inside each
//! training set, like every other preprocessing step.
//!
//! A [`Dataset`] stores a categorical column as *codes*: the index of each value in the column's
//! levels (its distinct values in the whole file, sorted as text), NaN for a missing value. Codes
//! are private to the data set: what a fitted [`Encoder`] keeps are the level *names* of its
//! training rows, so a model reads prediction rows whose file has other levels, or the same
//! levels in another order.
//!
//! Level names: a value that reads as a finite number is named by the number's shortest spelling
//! (`1`, `1.0` and `+1` are the level `1`, as for class labels); any other value by its trimmed
//! text.
//!
//! Encodings ([`Encoding`]):
//! - **one-hot**: one 0/1 column per training level (`city=Paris`); a value absent from the
//!   training rows (a level seen only in validation or prediction rows) gives an all-zero row;
//! - **ordinal**: one column of codes `0, 1, …` in the sorted order of the training levels; a value
//!   absent from the training rows gets the code one past the last training level.
//!
//! Missing values ([`MissingCategory`]) are their own level `NA` (placed after the others) when the
//! training rows have some, or take the training rows' most frequent level.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::dataset::{Dataset, View};
use crate::error::{Error, Result};
use crate::names::{Named, named};

/// How a family receives categorical columns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// One 0/1 column per training level (linear, kernel, k-NN, SVM and logistic families).
    #[default]
    OneHot,
    /// One column of level codes (trees and forests).
    Ordinal,
}

/// What a missing categorical value becomes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingCategory {
    /// A level of its own, `NA` (default).
    #[default]
    Level,
    /// The most frequent level of the training rows (ties: the first in sorted order).
    MostFrequent,
}

impl MissingCategory {
    /// Parses the CLI's spelling, `level` or `most-frequent`, or Python's `most_frequent`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for anything else.
    pub fn parse(text: &str) -> Result<Self> {
        Self::parse_name(&text.replace('_', "-"))
    }
}

named!(display MissingCategory, "missing-category", [
    MissingCategory::Level => "level": "A level of its own",
    MissingCategory::MostFrequent => "most-frequent": "The most frequent level of each training set",
]);

/// The categorical step of a [`Preprocess`](crate::data::Preprocess).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CategoryOptions {
    /// One-hot or ordinal.
    pub encoding: Encoding,
    /// What missing values become.
    pub missing: MissingCategory,
}

/// The name of a categorical value: a finite number's shortest spelling, else the trimmed text.
///
/// ```
/// use agghoo::data::level_name;
/// assert_eq!(level_name(" 1.0 "), "1");
/// assert_eq!(level_name("Paris"), "Paris");
/// ```
pub fn level_name(text: &str) -> String {
    let t = text.trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => number_level(v),
        _ => t.to_string(),
    }
}

/// The level name of a number (`+ 0.0` spells -0 as `0`).
pub(crate) fn number_level(v: f64) -> String {
    format!("{}", v + 0.0)
}

/// The levels of one categorical column while it is read: ids by first appearance, sorted by
/// [`LevelsBuilder::finish`]. The number of levels is checked against
/// [`Count::Levels`](crate::limits::Count::Levels) as they appear.
#[derive(Debug, Default)]
pub(crate) struct LevelsBuilder {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl LevelsBuilder {
    /// The id of the level named `name`, added when new; `column` names the column in errors.
    pub(crate) fn code(&mut self, name: String, column: &dyn std::fmt::Display) -> Result<f64> {
        if let Some(&id) = self.ids.get(&name) {
            return Ok(f64::from(id));
        }
        let id = self.names.len();
        crate::limits::check_count(crate::limits::Count::Levels, id as u128 + 1, format_args!("categorical column {column}"))?;
        let id = u32::try_from(id).map_err(|_| Error::Internal("more than 2³² levels".into()))?;
        self.ids.insert(name.clone(), id);
        self.names.push(name);
        Ok(f64::from(id))
    }

    /// The sorted level names and the sorted position of each id.
    pub(crate) fn finish(self) -> (Vec<String>, Vec<f64>) {
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| self.names[a].cmp(&self.names[b]));
        let mut position = vec![0.0; order.len()];
        for (sorted, &id) in order.iter().enumerate() {
            position[id] = sorted as f64;
        }
        let mut names = self.names;
        let sorted = order.iter().map(|&i| std::mem::take(&mut names[i])).collect();
        (sorted, position)
    }
}

/// A column read as categorical although at least 90 % of its non-missing values are numbers:
/// most likely a number column with a missing-value mark agghoo does not know as one (`-`,
/// `missing`, …), which one-hot encoding would turn into one column per distinct number. Readers
/// return it as a warning; declaring the column categorical silences it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MostlyNumeric {
    /// The column's name.
    pub column: String,
    /// Its non-missing values that read as numbers.
    pub numbers: usize,
    /// Its non-missing values.
    pub values: usize,
    /// The first distinct values that are not numbers (at most three).
    pub examples: Vec<String>,
    /// The file line of the first of them, when read from a file.
    pub first_line: Option<u64>,
}

impl std::fmt::Display for MostlyNumeric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.examples.is_empty() {
            return write!(
                f,
                "column `{}` is read as categorical although all its {} non-missing values are numbers",
                self.column, self.values
            );
        }
        let examples: Vec<String> = self.examples.iter().map(|e| format!("`{e}`")).collect();
        write!(
            f,
            "column `{}` is read as categorical although {} of its {} non-missing values are numbers, because of {}",
            self.column,
            self.numbers,
            self.values,
            examples.join(", ")
        )?;
        if let Some(line) = self.first_line {
            write!(f, " (first at line {line})")?;
        }
        Ok(())
    }
}

/// The numbers and other values of one column as they are read, for [`MostlyNumeric`].
#[derive(Debug, Default)]
pub(crate) struct KindCount {
    numbers: usize,
    texts: usize,
    examples: Vec<String>,
    first_line: Option<u64>,
}

impl KindCount {
    /// Counts one non-missing value (trimmed); `line` is its file line, when read from a file.
    pub(crate) fn add(&mut self, value: &str, line: Option<u64>) {
        if value.parse::<f64>().is_ok() {
            self.numbers += 1;
            return;
        }
        self.texts += 1;
        if self.examples.len() < 3 && !self.examples.iter().any(|e| e == value) {
            self.first_line = self.first_line.or(line);
            self.examples.push(value.to_string());
        }
    }

    /// The warning for a column read as categorical, when at least 90 % of its values are numbers
    /// (all of them can be, in a column categorical by its type).
    pub(crate) fn warning(self, column: &str) -> Option<MostlyNumeric> {
        let values = self.numbers + self.texts;
        (values > 0 && self.numbers * 10 >= values * 9).then(|| MostlyNumeric {
            column: column.to_string(),
            numbers: self.numbers,
            values,
            examples: self.examples,
            first_line: self.first_line,
        })
    }
}

/// The [`MostlyNumeric`] warning of a column of text values (the non-missing ones), if it is due.
///
/// ```
/// use agghoo::data::mostly_numeric;
/// let cells: Vec<String> = (0..30).map(|i| i.to_string()).chain(["-".into()]).collect();
/// let w = mostly_numeric("price", cells.iter().map(String::as_str)).unwrap();
/// assert_eq!((w.numbers, w.values, w.examples.as_slice()), (30, 31, &["-".to_string()][..]));
/// assert!(mostly_numeric("city", ["Paris", "Lyon", "1"].into_iter()).is_none());
/// ```
pub fn mostly_numeric<'a>(column: &str, values: impl Iterator<Item = &'a str>) -> Option<MostlyNumeric> {
    let mut count = KindCount::default();
    for v in values {
        count.add(v.trim(), None);
    }
    count.warning(column)
}

/// Codes and levels of a column of text values (`None` is missing).
///
/// # Errors
/// [`Error::ResourceLimit`] beyond the level limit.
pub(crate) fn codes_of_text<'a>(values: impl Iterator<Item = Option<&'a str>>, column: &str) -> Result<(Vec<f64>, Vec<String>)> {
    let mut builder = LevelsBuilder::default();
    let column = format!("`{column}`");
    let mut codes = values.map(|v| v.map_or(Ok(f64::NAN), |t| builder.code(level_name(t), &column))).collect::<Result<Vec<f64>>>()?;
    let (names, position) = builder.finish();
    for c in codes.iter_mut().filter(|c| !c.is_nan()) {
        *c = position[*c as usize];
    }
    Ok((codes, names))
}

/// One encoded column of a fitted [`Encoder`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct EncodedColumn {
    /// Index of the column among the input features.
    index: usize,
    /// The levels of the training rows, sorted.
    levels: Vec<String>,
    /// The code missing values take: `levels.len()` for their own level `NA`, a level's index for
    /// the most frequent one; `None` when the training rows gave no rule (treated as unseen).
    missing: Option<usize>,
}

impl EncodedColumn {
    /// Number of codes: the levels, and the `NA` level when missing values have their own.
    fn n_codes(&self) -> usize {
        self.levels.len() + usize::from(self.missing == Some(self.levels.len()))
    }
}

/// A categorical encoding fitted on training rows: apply it to any rows with the training columns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Encoder {
    encoding: Encoding,
    n_inputs: usize,
    columns: Vec<EncodedColumn>,
}

impl Encoder {
    /// Fits the encoding of every categorical column of `train`'s data on `train`'s rows; `None`
    /// when the data have no categorical column.
    pub fn fit(train: &View<'_>, options: CategoryOptions) -> Option<Encoder> {
        let data = train.data();
        let columns: Vec<EncodedColumn> = (0..data.n_features())
            .filter_map(|j| {
                let names = data.levels(j)?;
                let mut counts = vec![0usize; names.len()];
                let mut n_missing = 0usize;
                for i in 0..train.len() {
                    match train.x(i)[j] {
                        c if c.is_nan() => n_missing += 1,
                        c => counts[c as usize] += 1,
                    }
                }
                let seen: Vec<usize> = (0..names.len()).filter(|&c| counts[c] > 0).collect();
                let missing = match options.missing {
                    MissingCategory::Level => (n_missing > 0).then_some(seen.len()),
                    // The first maximum: levels are sorted, so ties go to the first name.
                    MissingCategory::MostFrequent => {
                        seen.iter().enumerate().rev().max_by_key(|(_, c)| counts[**c]).map(|(position, _)| position)
                    }
                };
                Some(EncodedColumn { index: j, levels: seen.iter().map(|&c| names[c].clone()).collect(), missing })
            })
            .collect();
        (!columns.is_empty()).then_some(Encoder { encoding: options.encoding, n_inputs: data.n_features(), columns })
    }

    /// The indices of the encoded (categorical) input features.
    pub fn columns(&self) -> Vec<usize> {
        self.columns.iter().map(|c| c.index).collect()
    }

    /// Number of output columns for `n_inputs` input features.
    pub fn n_outputs(&self) -> usize {
        match self.encoding {
            Encoding::Ordinal => self.n_inputs,
            Encoding::OneHot => self.n_inputs - self.columns.len() + self.columns.iter().map(EncodedColumn::n_codes).sum::<usize>(),
        }
    }

    /// The encoded column of input feature `j`, if it is categorical.
    fn column(&self, j: usize) -> Option<&EncodedColumn> {
        self.columns.binary_search_by_key(&j, |c| c.index).ok().map(|k| &self.columns[k])
    }

    /// Output width of input feature `j`.
    fn width(&self, j: usize) -> usize {
        match (self.encoding, self.column(j)) {
            (Encoding::OneHot, Some(c)) => c.n_codes(),
            _ => 1,
        }
    }

    /// The input feature of every output column, in output order.
    pub fn sources(&self) -> Vec<usize> {
        (0..self.n_inputs).flat_map(|j| std::iter::repeat_n(j, self.width(j))).collect()
    }

    /// A per-input-feature vector laid out as the output columns: a numeric feature keeps its
    /// value, every output column of a categorical one gets `fill`.
    pub(crate) fn expand(&self, values: &[f64], fill: f64) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.n_outputs());
        for (j, &v) in values.iter().enumerate() {
            match self.column(j) {
                Some(_) => out.extend(std::iter::repeat_n(fill, self.width(j))),
                None => out.push(v),
            }
        }
        out
    }

    /// Checks a deserialized encoder against the number of input features.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] for columns out of range or out of order, unsorted or repeated
    /// levels, or a missing-value code beyond the levels.
    pub fn validate(&self, n_features: usize) -> Result<()> {
        let ordered = self.columns.windows(2).all(|w| w[0].index < w[1].index);
        let in_range = self.columns.iter().all(|c| c.index < n_features);
        let levels_ok =
            self.columns.iter().all(|c| c.levels.windows(2).all(|w| w[0] < w[1]) && c.missing.is_none_or(|m| m <= c.levels.len()));
        if self.n_inputs != n_features || self.columns.is_empty() || !(ordered && in_range && levels_ok) {
            return Err(Error::CorruptModel("inconsistent categorical encoding in the model".into()));
        }
        Ok(())
    }

    /// The view's rows with every categorical column encoded (a new data set without
    /// categorical columns; the target kept).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] when the data have other columns or an encoded column is not
    /// categorical in the data; [`Error::ResourceLimit`] when the encoded matrix is beyond the
    /// memory budget (checked before allocating it).
    pub fn apply(&self, view: &View<'_>) -> Result<Dataset> {
        let data = view.data();
        if data.n_features() != self.n_inputs {
            return Err(Error::SchemaMismatch(format!(
                "the categorical encoding was fitted on {} features, the data have {}",
                self.n_inputs,
                data.n_features()
            )));
        }
        // For each encoded column, the training code of each of the data's own codes.
        let maps = self
            .columns
            .iter()
            .map(|c| {
                let names = data.levels(c.index).ok_or_else(|| {
                    Error::SchemaMismatch(format!(
                        "column `{}` is categorical in the model, numeric in the data",
                        data.feature_names()[c.index]
                    ))
                })?;
                Ok(names.iter().map(|n| c.levels.binary_search(n).ok()).collect::<Vec<Option<usize>>>())
            })
            .collect::<Result<Vec<_>>>()?;
        let width = self.n_outputs();
        crate::limits::check_memory(
            format_args!("the encoded features ({} rows × {width} columns after one-hot encoding)", view.len()),
            crate::limits::Limits::f64_bytes([view.len(), width]),
        )?;
        let mut x = Vec::with_capacity(view.len() * width);
        for i in 0..view.len() {
            let row = view.x(i);
            let mut next = 0;
            for (c, map) in self.columns.iter().zip(&maps) {
                x.extend_from_slice(&row[next..c.index]);
                next = c.index + 1;
                let v = row[c.index];
                let code = if v.is_nan() { c.missing } else { map.get(v as usize).copied().flatten() };
                match self.encoding {
                    Encoding::Ordinal => x.push(code.unwrap_or(c.n_codes()) as f64),
                    Encoding::OneHot => {
                        let start = x.len();
                        x.resize(start + c.n_codes(), 0.0);
                        if let Some(k) = code {
                            x[start + k] = 1.0;
                        }
                    }
                }
            }
            x.extend_from_slice(&row[next..]);
        }
        let names = self.output_names(data.feature_names());
        data.select_rows(view.rows())?.with_features(x, names)
    }

    /// The output column names: `name=level` (`name=NA` for the missing level) for one-hot columns.
    fn output_names(&self, inputs: &[String]) -> Vec<String> {
        let mut out = Vec::with_capacity(self.n_outputs());
        for (j, name) in inputs.iter().enumerate() {
            match (self.encoding, self.column(j)) {
                (Encoding::OneHot, Some(c)) => {
                    out.extend(c.levels.iter().map(|l| format!("{name}={l}")));
                    if c.n_codes() > c.levels.len() {
                        out.push(format!("{name}=NA"));
                    }
                }
                _ => out.push(name.clone()),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Target;

    /// Column `c` categorical with levels a, b, z (codes 0, 1, 2), column `v` numeric.
    fn data(codes: &[f64]) -> Dataset {
        let x: Vec<f64> = codes.iter().enumerate().flat_map(|(i, &c)| [c, i as f64]).collect();
        let d = Dataset::new_with_missing(x, vec!["c".into(), "v".into()], Target::Real(vec![0.0; codes.len()]), "y").unwrap();
        d.with_levels(vec![Some(vec!["a".into(), "b".into(), "z".into()]), None]).unwrap()
    }

    #[test]
    fn level_names_normalise_numbers() {
        let (codes, names) = codes_of_text(["b", "1.0", "+1", "a", "-0"].into_iter().map(Some).chain([None]), "c").unwrap();
        assert_eq!(names, ["0", "1", "a", "b"]);
        assert_eq!(codes[..5], [3.0, 1.0, 1.0, 2.0, 0.0]);
        assert!(codes[5].is_nan());
    }

    #[test]
    fn one_hot_levels_come_from_the_training_rows_only() {
        // `z` (code 2) appears only in the validation row 3.
        let d = data(&[0.0, 1.0, 0.0, 2.0]);
        let e = Encoder::fit(&d.view(&[0, 1, 2]), CategoryOptions::default()).unwrap();
        let out = e.apply(&d.view(&[1, 3])).unwrap();
        assert_eq!(out.feature_names(), ["c=a", "c=b", "v"]);
        assert_eq!(out.x(), &[0.0, 1.0, 1.0, 0.0, 0.0, 3.0]);
        assert!(!out.has_categorical());
    }

    #[test]
    fn ordinal_codes_follow_the_training_levels_and_unseen_is_one_past_the_last() {
        let d = data(&[0.0, 2.0, 0.0, 1.0]);
        let e = Encoder::fit(&d.view(&[0, 1, 2]), CategoryOptions { encoding: Encoding::Ordinal, ..Default::default() }).unwrap();
        let out = e.apply(&d.all()).unwrap();
        // Training levels a, z → codes 0, 1; `b` was never trained on → 2.
        let codes: Vec<f64> = (0..4).map(|i| out.row(i)[0]).collect();
        assert_eq!(codes, [0.0, 1.0, 0.0, 2.0]);
    }

    #[test]
    fn missing_values_are_a_level_or_the_most_frequent_one() {
        let d = data(&[1.0, f64::NAN, 1.0, 0.0, f64::NAN]);
        let train = d.view(&[0, 1, 2, 3]);
        let own = Encoder::fit(&train, CategoryOptions::default()).unwrap();
        let out = own.apply(&d.view(&[4])).unwrap();
        assert_eq!(out.feature_names(), ["c=a", "c=b", "c=NA", "v"]);
        assert_eq!(out.x(), &[0.0, 0.0, 1.0, 4.0]);
        let frequent = Encoder::fit(&train, CategoryOptions { missing: MissingCategory::MostFrequent, ..Default::default() }).unwrap();
        assert_eq!(frequent.apply(&d.view(&[4])).unwrap().x(), &[0.0, 1.0, 4.0]);
        // Without missing training values, a missing value is unseen: all zero.
        let complete = Encoder::fit(&d.view(&[0, 3]), CategoryOptions::default()).unwrap();
        assert_eq!(complete.apply(&d.view(&[4])).unwrap().x(), &[0.0, 0.0, 4.0]);
    }

    #[test]
    fn encoders_map_levels_by_name_not_by_code() {
        let d = data(&[0.0, 1.0]);
        let e = Encoder::fit(&d.all(), CategoryOptions::default()).unwrap();
        // Another data set whose levels are b, c: `b` is code 0 there.
        let other = Dataset::new(vec![0.0, 7.0, 1.0, 8.0], vec!["c".into(), "v".into()], Target::Real(vec![0.0; 2]), "y").unwrap();
        let other = other.with_levels(vec![Some(vec!["b".into(), "c".into()]), None]).unwrap();
        assert_eq!(e.apply(&other.all()).unwrap().x(), &[0.0, 1.0, 7.0, 0.0, 0.0, 8.0]);
        let numeric = Dataset::new(vec![0.0, 7.0], vec!["c".into(), "v".into()], Target::Real(vec![0.0]), "y").unwrap();
        assert!(matches!(e.apply(&numeric.all()), Err(Error::SchemaMismatch(_))));
    }
}
