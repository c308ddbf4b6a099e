//! CSV reader: a header line, one row per sample, the target picked by name.
//!
//! Fields that read as missing: those of [`CsvOptions::na_values`] (by default empty fields and
//! pandas' NA strings, see [`NaValues`]). What happens to them is the [`MissingPolicy`]. Every
//! other field of a numeric feature column must parse as a finite `f64`; errors name the file,
//! the one-based line (of the file, counting the header and `\r\n` endings) and the column. A
//! header naming a column twice is refused.
//!
//! Categorical columns (see [`Encoder`](crate::data::Encoder)): the columns named in
//! [`CsvOptions::categorical`], and with [`CsvOptions::detect_categorical`] every feature column
//! some of whose non-missing values do not read as numbers; their values are stored as level codes.
//! A column's kind is decided by all its values, whatever their order: `inf` (or any infinite
//! number) is refused in a numeric column, naming its line, and is the level `inf` of a
//! categorical one. A detected column at least 90 % of whose values are numbers is reported in
//! [`CsvData::warnings`].
//!
//! Class labels: when every label of the column reads as a finite number, equal numbers are one
//! class (`1`, `1.0` and `+1` are the class `1`), named by the number's shortest spelling; otherwise
//! every distinct text is a class.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::categorical::{KindCount, LevelsBuilder, MostlyNumeric, level_name, number_level};
use super::dataset::{Dataset, Target};
use super::na::NaValues;
use crate::error::{Error, Result};
use crate::names::named;
use crate::par::Par;

/// What to do with missing feature values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MissingPolicy {
    /// Refuse the file, naming the first missing value's line and column (default).
    #[default]
    Error,
    /// Drop every row with a missing feature or target.
    Drop,
    /// Keep missing features as NaN; they are replaced by the median of the *training* rows of
    /// each split (see [`Transform`](crate::data::Transform)). Rows with a missing target are dropped.
    Median,
}

/// How to read the target column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskHint {
    /// Classification when some value is not a number, or when every value is an integer and
    /// there are at most 20 distinct values; regression otherwise.
    #[default]
    Auto,
    /// Every distinct value is a class.
    Classification,
    /// Every value must be a number.
    Regression,
}

impl MissingPolicy {
    /// Whether the policy leaves missing feature values in the data for the fits to impute
    /// (`median`); TreeCV, whose learners do not impute, refuses them.
    pub fn imputes(self) -> bool {
        self == MissingPolicy::Median
    }
}

named!(display MissingPolicy, "missing", [
    MissingPolicy::Error => "error": "Refuse, naming the line and column",
    MissingPolicy::Drop => "drop": "Drop incomplete rows",
    MissingPolicy::Median => "median": "Median of each training set",
]);

named!(display TaskHint, "task", [
    TaskHint::Auto => "auto": "Classification for text or few integer values, else regression",
    TaskHint::Classification => "classification": "Every distinct value is a class",
    TaskHint::Regression => "regression": "Real values",
]);

/// Options of [`read_csv`].
#[derive(Clone, Debug, Default)]
pub struct CsvOptions {
    /// Name of the target column; `None` for prediction data (the target is then a placeholder
    /// of zeros named `""`).
    pub target: Option<String>,
    /// How to read the target.
    pub task: TaskHint,
    /// Missing-value policy.
    pub missing: MissingPolicy,
    /// Columns that are not features (an id, a group or fold column); returned as text.
    pub extra_columns: Vec<String>,
    /// Field delimiter; `None` detects it (see [`detect_delimiter`]).
    pub delimiter: Option<u8>,
    /// When set, exactly these columns are the features, in this order; other columns are
    /// ignored (prediction data read against a model's schema).
    pub feature_columns: Option<Vec<String>>,
    /// When set, the class names of a classification target, in class-index order (a model's
    /// classes); a label outside them is [`Error::UnseenLabel`].
    pub class_names: Option<Vec<String>>,
    /// Feature columns read as categorical whatever their values (a numeric-looking code).
    pub categorical: Vec<String>,
    /// Read as categorical every feature column with a non-missing value that is not a number
    /// (otherwise such a value is [`Error::NotANumber`]).
    pub detect_categorical: bool,
    /// The fields read as missing (by default empty fields and pandas' NA strings); the data
    /// set records them, and so does a model fitted on it.
    pub na_values: NaValues,
    /// A column of per-row sample weights (numbers ≥ 0), not a feature: the data set is
    /// [`Dataset::with_weights`] them. A row whose weight is missing is refused under
    /// [`MissingPolicy::Error`] and dropped otherwise, as a row whose target is missing.
    pub weight_column: Option<String>,
}

/// A CSV file read into a [`Dataset`] plus the requested non-feature columns.
#[derive(Clone, Debug)]
pub struct CsvData {
    /// Features and target.
    pub data: Dataset,
    /// Each requested extra column, as text, aligned with the data set's rows.
    pub extras: BTreeMap<String, Vec<String>>,
    /// Number of rows dropped by [`MissingPolicy::Drop`] (or for a missing target).
    pub n_dropped: usize,
    /// Columns detected as categorical although nearly all their values are numbers, in column
    /// order (see [`MostlyNumeric`]).
    pub warnings: Vec<MostlyNumeric>,
}

/// Reads a CSV file with a header.
///
/// # Errors
/// [`Error::Io`], [`Error::EmptyFile`], [`Error::RaggedRow`], [`Error::NotANumber`],
/// [`Error::MissingValue`], [`Error::MissingTarget`] (also for a missing extra column),
/// [`Error::NotANumber`] for `inf` in a numeric column.
///
/// A file without quote characters or `\r` is read in chunks of lines on the threads of the
/// current rayon pool ([`Par::pool`]) while every row is plain (all its fields present, every
/// feature a finite number); otherwise it is read line after line. The data set and the errors
/// are the same either way.
pub fn read_csv(path: impl AsRef<Path>, options: &CsvOptions) -> Result<CsvData> {
    let path = path.as_ref();
    match whole_text(path, crate::limits::Limits::global().max_memory / WHOLE_TEXT_SHARE) {
        Some(bytes) => read_csv_with(&bytes[..], path, options, Some((&bytes, Par::pool()))),
        None => {
            // The error as the line reader meets it (opening, or reading a directory).
            let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
            read_csv_from(std::io::BufReader::new(file), path, options)
        }
    }
}

/// A CSV file is read whole (and its plain rows parsed on every thread) only when it is at most
/// this fraction of the memory budget (`--max-memory`, 8 GiB by default: files up to 2 GiB);
/// a larger one is read line after line, its text never held whole.
const WHOLE_TEXT_SHARE: u64 = 4;

/// The bytes of the regular file at `path` when it holds at most `budget` bytes; `None` for a
/// larger file, one that grows beyond `budget` while it is read, anything but a regular file (a
/// pipe, a device, a directory) and any error (the line reader then meets and names it).
fn whole_text(path: &Path, budget: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok().filter(|m| m.is_file() && m.len() <= budget)?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).ok()?);
    file.take(budget.saturating_add(1)).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= budget).then_some(bytes)
}

/// The delimiter of a CSV file whose first line is `first_line`, when none is given: a tab for
/// `.tsv` / `.tab` files; otherwise `,` if the header line has a comma, else a tab or `;` if it
/// has one (in that order), else `,` (a one-column file).
///
/// ```
/// use agghoo::data::detect_delimiter;
/// use std::path::Path;
/// assert_eq!(detect_delimiter(b"a;b;y\n1;2;3", Path::new("d.csv")), b';');
/// assert_eq!(detect_delimiter(b"a,b;c,y", Path::new("d.csv")), b',');
/// assert_eq!(detect_delimiter(b"a,b", Path::new("d.tsv")), b'\t');
/// ```
pub fn detect_delimiter(first_line: &[u8], path: &Path) -> u8 {
    if matches!(path.extension().and_then(|e| e.to_str()), Some("tsv" | "tab")) {
        return b'\t';
    }
    let line = first_line.split(|&b| b == b'\n').next().unwrap_or_default();
    [b',', b'\t', b';'].into_iter().find(|d| line.contains(d)).unwrap_or(b',')
}

/// The column names of a CSV file (trimmed), with the delimiter `delimiter` or the detected one.
///
/// # Errors
/// [`Error::Io`]; [`Error::BadFile`] when the header cannot be read.
pub fn read_csv_header(path: impl AsRef<Path>, delimiter: Option<u8>) -> Result<Vec<String>> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(open_with_header(file, path, delimiter)?.1)
}

/// A CSV reader over `reader` (the delimiter given or detected from the first line) and its
/// trimmed header, checked for duplicate names, and the delimiter.
///
/// # Errors
/// [`Error::Io`], [`Error::BadFile`], [`Error::DuplicateColumn`].
#[allow(clippy::type_complexity)]
fn open_with_header<R: std::io::Read>(
    reader: R,
    path: &Path,
    delimiter: Option<u8>,
) -> Result<(csv::Reader<CrlfToLf<R>>, Vec<String>, u8)> {
    use std::io::BufRead;
    let mut reader =
        CrlfToLf { inner: std::io::BufReader::new(reader), pending_cr: false, passed: 0, newlines: Default::default(), lines_before: 0 };
    let delimiter = match delimiter {
        Some(d) => d,
        None => detect_delimiter(reader.inner.fill_buf().map_err(|source| Error::Io { path: path.to_path_buf(), source })?, path),
    };
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(true).delimiter(delimiter).from_reader(reader);
    let header: Vec<String> = rdr
        .headers()
        .map_err(|e| Error::BadFile { path: path.to_path_buf(), message: e.to_string() })?
        .iter()
        .map(|h| h.trim().to_string())
        .collect();
    let mut seen = std::collections::HashMap::with_capacity(header.len());
    for (j, name) in header.iter().enumerate() {
        if let Some(i) = seen.insert(name.as_str(), j) {
            return Err(Error::DuplicateColumn { path: path.to_path_buf(), name: name.clone(), first: i + 1, second: j + 1 });
        }
    }
    Ok((rdr, header, delimiter))
}

/// A reader turning each `\r\n` into `\n` (a lone `\r` is kept) and counting the lines it hands
/// over, so that a record's line number is right whatever precedes it: the CSV parser's own count
/// skips blank lines and, for a record ended by `\r\n`, counts its `\n` only when it reads the
/// next record.
struct CrlfToLf<R> {
    inner: std::io::BufReader<R>,
    /// The last byte handed over was a `\r` held back until the next byte is known.
    pending_cr: bool,
    /// Bytes handed over so far.
    passed: u64,
    /// Offsets (in the bytes handed over) of the `\n`s not yet counted by [`CrlfToLf::line_at`];
    /// bounded by the parser's read-ahead buffer.
    newlines: std::collections::VecDeque<u64>,
    /// `\n`s before the last offset asked about.
    lines_before: u64,
}

impl<R> CrlfToLf<R> {
    /// The one-based line of the byte at `offset` (offsets asked about must not decrease).
    fn line_at(&mut self, offset: u64) -> u64 {
        while self.newlines.front().is_some_and(|&o| o < offset) {
            self.newlines.pop_front();
            self.lines_before += 1;
        }
        self.lines_before + 1
    }
}

impl<R: std::io::Read> std::io::Read for CrlfToLf<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        use std::io::BufRead;
        let mut n = 0;
        while n == 0 && !out.is_empty() {
            let avail = self.inner.fill_buf()?;
            if self.pending_cr {
                self.pending_cr = false;
                if avail.first() != Some(&b'\n') {
                    out[0] = b'\r';
                    n = 1;
                    continue;
                }
            }
            if avail.is_empty() {
                break;
            }
            let mut used = 0;
            while used < avail.len() && n < out.len() {
                // Up to the next `\r`, the bytes pass unchanged, copied at once.
                let room = (avail.len() - used).min(out.len() - n);
                let plain = avail[used..used + room].iter().position(|&b| b == b'\r').unwrap_or(room);
                out[n..n + plain].copy_from_slice(&avail[used..used + plain]);
                n += plain;
                used += plain;
                if plain < room {
                    // A `\r`: dropped before a `\n`, held back at the end of the buffer, else kept.
                    used += 1;
                    match avail.get(used) {
                        Some(b'\n') => {}
                        Some(_) => {
                            out[n] = b'\r';
                            n += 1;
                        }
                        None => self.pending_cr = true,
                    }
                }
            }
            self.inner.consume(used);
        }
        for (i, _) in out[..n].iter().enumerate().filter(|(_, b)| **b == b'\n') {
            self.newlines.push_back(self.passed + i as u64);
        }
        self.passed += n as u64;
        Ok(n)
    }
}

/// Reads CSV text from any reader; `path` is used in error messages (and to detect a `.tsv`).
///
/// # Errors
/// As [`read_csv`].
pub fn read_csv_from(reader: impl std::io::Read, path: &Path, options: &CsvOptions) -> Result<CsvData> {
    read_csv_with(reader, path, options, None)
}

/// [`read_csv_from`]; `whole`, the reader's whole text and threads, lets plain rows be read in
/// parallel (see [`parallel_rows`]).
fn read_csv_with(reader: impl std::io::Read, path: &Path, options: &CsvOptions, whole: Option<(&[u8], Par)>) -> Result<CsvData> {
    let bad = |message: String| Error::BadFile { path: path.to_path_buf(), message };
    let (mut rdr, header, delimiter) = open_with_header(reader, path, options.delimiter)?;
    if header.is_empty() || (header.len() == 1 && header[0].is_empty()) {
        return Err(Error::EmptyFile { path: path.to_path_buf() });
    }
    let find = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| Error::MissingColumn { name: name.to_string(), available: header.join(", ") })
    };
    let target_col = options
        .target
        .as_deref()
        .map(|t| find(t).map_err(|_| Error::MissingTarget { name: t.to_string(), available: header.join(", ") }))
        .transpose()?;
    let mut extra_cols = Vec::new();
    for name in &options.extra_columns {
        extra_cols.push((name.clone(), find(name)?));
    }
    let weight_col = options.weight_column.as_deref().map(find).transpose()?;
    if let Some(w) = weight_col.filter(|&w| Some(w) == target_col) {
        return Err(Error::invalid("weight column", "a column other than the target", &header[w]));
    }
    let feature_cols: Vec<usize> = match &options.feature_columns {
        Some(names) => names.iter().map(|n| find(n)).collect::<Result<Vec<_>>>()?,
        None => (0..header.len())
            .filter(|c| Some(*c) != target_col && Some(*c) != weight_col && !extra_cols.iter().any(|(_, e)| e == c))
            .collect(),
    };
    let p = feature_cols.len();
    let mut levels: Vec<Option<LevelsBuilder>> = (0..p).map(|_| None).collect();
    for name in &options.categorical {
        let k = feature_cols.iter().position(|&c| header[c] == *name).ok_or_else(|| match header.contains(name) {
            true => Error::invalid("categorical", "a feature column (not the target or an ignored column)", name),
            false => Error::MissingColumn { name: name.clone(), available: header.join(", ") },
        })?;
        levels[k] = Some(LevelsBuilder::default());
    }
    // Columns whose kind the values decide: what they hold so far, and their infinite numbers
    // (kept aside until the column's kind is known: refused if it stays numeric, levels if not).
    let mut kinds: Vec<Option<KindCount>> =
        levels.iter().map(|l| (l.is_none() && options.detect_categorical).then(KindCount::default)).collect();
    let mut infinite: Vec<Vec<Infinite>> = vec![Vec::new(); p];
    let mut row_infinite: Vec<(usize, String)> = Vec::new();
    if target_col.is_some() && feature_cols.is_empty() {
        return Err(Error::NoFeatures {
            source_name: path.display().to_string(),
            detail: format!("the columns are {}; the target and the ignored columns are not features", header.join(", ")),
        });
    }

    let mut x = Vec::new();
    let mut target_text: Vec<String> = Vec::new();
    let mut target_lines: Vec<u64> = Vec::new();
    let mut extras: Vec<Vec<String>> = vec![Vec::new(); extra_cols.len()];
    let mut weights: Vec<f64> = Vec::new();
    let mut n_dropped = 0usize;
    let mut row_values = Vec::with_capacity(feature_cols.len());
    // Plain rows of plain columns only: anything else goes line after line, from the start. (A
    // column's kind count only matters once it turns categorical, which no plain row makes it.)
    let plain_columns = weight_col.is_none() && levels.iter().all(Option::is_none);
    let extra_indices: Vec<usize> = extra_cols.iter().map(|(_, c)| *c).collect();
    let layout = Layout {
        delimiter,
        width: header.len(),
        features: &feature_cols,
        target: target_col,
        extras: &extra_indices,
        na: &options.na_values,
    };
    let rows_read = match whole.filter(|_| plain_columns).and_then(|(bytes, par)| parallel_rows(bytes, &layout, par)) {
        Some(rows) => {
            (x, target_text, target_lines, extras) = (rows.x, rows.target_text, rows.target_lines, rows.extras);
            true
        }
        None => false,
    };
    let mut record = csv::StringRecord::new();
    while !rows_read && rdr.read_record(&mut record).map_err(|e| bad(e.to_string()))? {
        // The parser's record position is taken before it skips blank lines: count instead the
        // lines up to the record's last byte, less the line breaks inside its quoted fields.
        let end = rdr.position().byte().saturating_sub(1);
        let inner_breaks = record.iter().map(|f| f.bytes().filter(|&b| b == b'\n').count() as u64).sum::<u64>();
        let line = rdr.get_mut().line_at(end).saturating_sub(inner_breaks);
        if record.len() == 1 && record.get(0).is_some_and(|f| f.trim().is_empty()) && header.len() > 1 {
            continue; // blank line
        }
        if record.len() != header.len() {
            return Err(Error::RaggedRow { path: path.to_path_buf(), line, expected: header.len(), found: record.len() });
        }
        row_values.clear();
        row_infinite.clear();
        // A dropped row's values count for the kinds of their columns, not as levels.
        let target_missing = target_col.is_some_and(|t| options.na_values.is_missing(&record[t]));
        // a missing weight is handled as a missing target
        let weight_missing = weight_col.is_some_and(|w| options.na_values.is_missing(&record[w]));
        let dropped_row = match options.missing {
            MissingPolicy::Error => false,
            MissingPolicy::Median => target_missing || weight_missing,
            MissingPolicy::Drop => {
                target_missing || weight_missing || feature_cols.iter().any(|&c| options.na_values.is_missing(&record[c]))
            }
        };
        for (k, &c) in feature_cols.iter().enumerate() {
            let field = &record[c];
            if options.na_values.is_missing(field) {
                if options.missing == MissingPolicy::Error {
                    return Err(Error::MissingValue { path: path.to_path_buf(), line, column: header[c].clone() });
                }
                row_values.push(f64::NAN);
                continue;
            }
            let parsed = field.trim().parse::<f64>();
            if let Some(kind) = &mut kinds[k] {
                kind.add(field.trim(), Some(line));
            }
            if levels[k].is_none() && parsed.is_err() && options.detect_categorical {
                levels[k] = Some(numbers_to_levels(&mut x, k, p, &mut infinite[k], &header[c], path)?);
            }
            if let Some(builder) = &mut levels[k] {
                if !dropped_row {
                    let column = format_args!("`{}` of {} (line {line})", header[c], path.display());
                    row_values.push(builder.code(level_name(field), &column)?);
                }
                continue;
            }
            let v: f64 = parsed.map_err(|_| Error::NotANumber {
                path: path.to_path_buf(),
                line,
                column: header[c].clone(),
                value: field.to_string(),
            })?;
            if !v.is_finite() {
                if !options.detect_categorical {
                    return Err(Error::NotANumber { path: path.to_path_buf(), line, column: header[c].clone(), value: field.to_string() });
                }
                row_infinite.push((k, field.to_string()));
            }
            row_values.push(v);
        }
        // Infinite numbers count for their column's kind even in rows dropped below.
        let kept = x.len() / p.max(1);
        for (k, text) in row_infinite.drain(..) {
            infinite[k].push(Infinite { row: (!dropped_row).then_some(kept), line, text });
        }
        // A missing target or weight: an error, or the row dropped (never imputed).
        if let Some(c) =
            [(target_col, target_missing), (weight_col, weight_missing)].into_iter().find_map(|(c, missing)| c.filter(|_| missing))
        {
            if options.missing == MissingPolicy::Error {
                return Err(Error::MissingValue { path: path.to_path_buf(), line, column: header[c].clone() });
            }
            n_dropped += 1;
            continue;
        }
        if dropped_row {
            n_dropped += 1;
            continue;
        }
        if let Some(w) = weight_col {
            weights.push(weight(&record[w], line, &header[w], path)?);
        }
        x.extend_from_slice(&row_values);
        if let Some(t) = target_col {
            target_text.push(record[t].trim().to_string());
            target_lines.push(line);
        }
        for (k, (_, c)) in extra_cols.iter().enumerate() {
            extras[k].push(record[*c].trim().to_string());
        }
    }
    // An infinite number in a column that stayed numeric.
    if let Some((k, inf)) = infinite.iter().enumerate().find_map(|(k, v)| v.first().map(|inf| (k, inf))) {
        let column = header[feature_cols[k]].clone();
        return Err(Error::NotANumber { path: path.to_path_buf(), line: inf.line, column, value: inf.text.clone() });
    }
    let warnings: Vec<MostlyNumeric> = kinds
        .into_iter()
        .zip(&levels)
        .zip(&feature_cols)
        .filter_map(|((kind, level), &c)| kind.filter(|_| level.is_some()).and_then(|k| k.warning(&header[c])))
        .collect();
    let n_rows = x.len() / feature_cols.len().max(1);
    let n_rows = if feature_cols.is_empty() { target_text.len().max(extras.first().map_or(0, Vec::len)) } else { n_rows };
    if n_rows == 0 {
        return Err(Error::EmptyFile { path: path.to_path_buf() });
    }
    let feature_names: Vec<String> = feature_cols.iter().map(|&c| header[c].clone()).collect();
    let (target, target_name) = match target_col {
        Some(t) => {
            let target = match &options.class_names {
                Some(names) => classes_with_names(&target_text, names)?,
                None => parse_target(&target_text, &target_lines, options.task, &header[t], path)?,
            };
            (target, header[t].clone())
        }
        None => (Target::Real(vec![0.0; n_rows]), String::new()),
    };
    // Level codes by first appearance → codes in the sorted order of the level names.
    let p = feature_cols.len().max(1);
    let levels: Vec<Option<Vec<String>>> = levels
        .into_iter()
        .enumerate()
        .map(|(k, builder)| {
            builder.map(|b| {
                let (names, position) = b.finish();
                for v in x.iter_mut().skip(k).step_by(p).filter(|v| !v.is_nan()) {
                    *v = position[*v as usize];
                }
                names
            })
        })
        .collect();
    let data = Dataset::new_with_missing(x, feature_names, target, target_name)?;
    let data = if levels.iter().any(Option::is_some) { data.with_levels(levels)? } else { data };
    let data = data.with_na_values(options.na_values.clone());
    let data = match weight_col {
        Some(w) => data.with_weights(weights).map_err(|e| bad(format!("weight column `{}`: {e}", header[w])))?,
        None => data,
    };
    let extras = extra_cols.into_iter().map(|(n, _)| n).zip(extras).collect();
    Ok(CsvData { data, extras, n_dropped, warnings })
}

/// Where a CSV line's fields go: `width` fields split at `delimiter`, the features, target and
/// extra columns at these indices, and the missing-value tokens.
struct Layout<'a> {
    delimiter: u8,
    width: usize,
    features: &'a [usize],
    target: Option<usize>,
    extras: &'a [usize],
    na: &'a NaValues,
}

/// Data rows read by [`parallel_rows`]: as the line reader stores them.
#[derive(Default)]
struct Rows {
    x: Vec<f64>,
    target_text: Vec<String>,
    target_lines: Vec<u64>,
    extras: Vec<Vec<String>>,
}

/// The data rows of `bytes`, a whole CSV file whose first line is its header, read on the threads
/// of `par` in chunks of whole lines, when every row is plain: `None` as soon as the file has a
/// quote character or a `\r`, a line that is not valid UTF-8, blank or of another width, a missing
/// target or feature, or a feature that is not a finite number. The line reader then reads the
/// file from the start, with the same values, and names the first error in file order.
fn parallel_rows(bytes: &[u8], layout: &Layout, par: Par) -> Option<Rows> {
    use rayon::prelude::*;
    if !layout.delimiter.is_ascii() {
        return None;
    }
    let start = bytes.iter().position(|&b| b == b'\n')? + 1;
    if bytes[..start].iter().any(|&b| b == b'"' || b == b'\r') {
        return None;
    }
    // Chunks of a few pieces per thread, each ending at a line end (or the end of the file).
    let piece = par.min_len(bytes.len() - start);
    let mut chunks = Vec::new();
    let mut from = start;
    while from < bytes.len() {
        let cut = (from + piece).min(bytes.len());
        let end = bytes[cut..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| cut + i + 1);
        chunks.push(&bytes[from..end]);
        from = end;
    }
    let pieces: Vec<Rows> =
        chunks.par_iter().with_min_len(par.min_len(chunks.len())).map(|chunk| chunk_rows(chunk, layout)).collect::<Option<_>>()?;
    let mut rows = Rows { extras: vec![Vec::new(); layout.extras.len()], ..Rows::default() };
    let mut line = 2; // the first data line
    for piece in pieces {
        let n = piece.target_lines.len().max(piece.x.len() / layout.features.len().max(1)) as u64;
        rows.x.extend_from_slice(&piece.x);
        rows.target_text.extend(piece.target_text);
        rows.target_lines.extend(piece.target_lines.iter().map(|i| i + line));
        for (all, part) in rows.extras.iter_mut().zip(piece.extras) {
            all.extend(part);
        }
        line += n;
    }
    Some(rows)
}

/// The rows of `chunk`, whole lines of plain rows (see [`parallel_rows`]); the target lines are
/// counted from 0 at the chunk's first line.
fn chunk_rows(chunk: &[u8], layout: &Layout) -> Option<Rows> {
    if chunk.iter().any(|&b| b == b'"' || b == b'\r') {
        return None;
    }
    let text = std::str::from_utf8(chunk).ok()?;
    let mut rows = Rows { extras: vec![Vec::new(); layout.extras.len()], ..Rows::default() };
    let mut fields: Vec<&str> = Vec::with_capacity(layout.width);
    for (i, line) in text.split_terminator('\n').enumerate() {
        fields.clear();
        fields.extend(line.split(char::from(layout.delimiter)));
        if line.is_empty() || fields.len() != layout.width {
            return None;
        }
        for &c in layout.features {
            let field = fields[c];
            if layout.na.is_missing(field) {
                return None;
            }
            rows.x.push(field.trim().parse::<f64>().ok().filter(|v| v.is_finite())?);
        }
        if let Some(t) = layout.target {
            if layout.na.is_missing(fields[t]) {
                return None;
            }
            rows.target_text.push(fields[t].trim().to_string());
            rows.target_lines.push(i as u64);
        }
        for (all, &c) in rows.extras.iter_mut().zip(layout.extras) {
            all.push(fields[c].trim().to_string());
        }
    }
    Some(rows)
}

/// A sample weight read from `field` (line `line` of `path`, column `column`): a finite number ≥ 0.
///
/// # Errors
/// [`Error::NotANumber`] for text or an infinite or NaN number, [`Error::BadFile`] for a
/// negative weight, each naming the file, line and column.
fn weight(field: &str, line: u64, column: &str, path: &Path) -> Result<f64> {
    let not_a_number = || Error::NotANumber { path: path.to_path_buf(), line, column: column.to_string(), value: field.to_string() };
    let w: f64 = field.trim().parse().map_err(|_| not_a_number())?;
    if !w.is_finite() {
        return Err(not_a_number());
    }
    if w < 0.0 {
        return Err(Error::BadFile {
            path: path.to_path_buf(),
            message: format!("line {line}, column `{column}`: weight {field} is negative (sample weights are numbers ≥ 0)"),
        });
    }
    Ok(w)
}

/// An infinite number read in a column whose kind is not known yet.
#[derive(Clone, Debug)]
struct Infinite {
    /// Its row among the rows kept (`None` in a dropped row).
    row: Option<usize>,
    /// Its file line.
    line: u64,
    /// Its text.
    text: String,
}

/// The levels of feature `k` (of `p`) of the rows read so far, a numeric column found to be
/// categorical: each finite number becomes the level it spells, each of the column's `infinite`
/// numbers (taken) the level of its text, and `x` holds the level ids.
fn numbers_to_levels(x: &mut [f64], k: usize, p: usize, infinite: &mut Vec<Infinite>, column: &str, path: &Path) -> Result<LevelsBuilder> {
    let mut builder = LevelsBuilder::default();
    let column = format!("`{column}` of {}", path.display());
    for v in x.iter_mut().skip(k).step_by(p).filter(|v| v.is_finite()) {
        *v = builder.code(number_level(*v), &column)?;
    }
    for inf in infinite.drain(..) {
        if let Some(row) = inf.row {
            x[row * p + k] = builder.code(level_name(&inf.text), &column)?;
        }
    }
    Ok(builder)
}

/// Turns the target column's text into classes or reals, following `hint`; `lines[i]` is the
/// file line of `text[i]`, named in errors.
pub(crate) fn parse_target(text: &[String], lines: &[u64], hint: TaskHint, name: &str, path: &Path) -> Result<Target> {
    let numbers: Option<Vec<f64>> = text.iter().map(|t| t.parse::<f64>().ok()).collect();
    let not_a_number = |i: usize| Error::NotANumber {
        path: PathBuf::from(path),
        line: lines.get(i).copied().unwrap_or_default(),
        column: name.to_string(),
        value: text.get(i).cloned().unwrap_or_default(),
    };
    let classification = match (hint, &numbers) {
        (TaskHint::Classification, _) => true,
        (TaskHint::Regression, None) => {
            return Err(not_a_number(text.iter().position(|t| t.parse::<f64>().is_err()).unwrap_or_default()));
        }
        (TaskHint::Regression, Some(_)) => false,
        (TaskHint::Auto, None) => true,
        (TaskHint::Auto, Some(v)) => {
            let integers = v.iter().all(|x| x.fract() == 0.0);
            let mut distinct: Vec<f64> = v.clone();
            distinct.sort_by(f64::total_cmp);
            distinct.dedup();
            integers && distinct.len() <= 20
        }
    };
    if classification {
        Ok(classes_from_text(text))
    } else {
        let v = numbers.unwrap_or_default();
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(not_a_number(i));
        }
        Ok(Target::Real(v))
    }
}

/// Maps label text to the given class names (a model's classes): the class of the same text,
/// else the class of the same number (`1.0` is the class `1`; model files written before labels
/// were normalised may name both `1` and `1.0`, and keep working).
fn classes_with_names(text: &[String], names: &[String]) -> Result<Target> {
    let numbers: Vec<Option<f64>> = names.iter().map(|n| numeric_label(n)).collect();
    let labels = text
        .iter()
        .map(|t| {
            names
                .iter()
                .position(|n| n == t)
                .or_else(|| numeric_label(t).and_then(|v| numbers.iter().position(|&n| n == Some(v))))
                .map(|i| i as u32)
                .ok_or_else(|| Error::UnseenLabel { label: t.clone() })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Target::Classes { labels, names: names.to_vec() })
}

/// A label's value when it reads as a finite number.
fn numeric_label(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Maps label text to class indices, so that the mapping does not depend on row order: when every
/// label is a finite number, one class per distinct number, sorted numerically and named by the
/// number's shortest spelling (`1`, `1.0` and `+1` are the class `1`); otherwise one class per
/// distinct text, sorted.
pub(crate) fn classes_from_text(text: &[String]) -> Target {
    if let Some(values) = text.iter().map(|t| numeric_label(t)).collect::<Option<Vec<f64>>>() {
        let mut distinct = values.clone();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup_by(|a, b| a == b);
        let labels = values.iter().map(|x| distinct.partition_point(|d| d < x) as u32).collect();
        let names = distinct.iter().map(|&v| number_level(v)).collect();
        return Target::Classes { labels, names };
    }
    let mut names: Vec<String> = text.to_vec();
    names.sort();
    names.dedup();
    let index: std::collections::HashMap<&str, u32> = names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u32)).collect();
    let labels = text.iter().map(|t| index.get(t.as_str()).copied().unwrap_or_default()).collect();
    Target::Classes { labels, names }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, options: &CsvOptions) -> Result<CsvData> {
        read_csv_from(text.as_bytes(), Path::new("t.csv"), options)
    }
    fn opts(target: &str) -> CsvOptions {
        CsvOptions { target: Some(target.into()), ..Default::default() }
    }

    #[test]
    fn reads_classes_and_features() {
        let d = read("a,b,y\n1,2,cat\n3,4,dog\n5,6,cat\n", &opts("y")).unwrap().data;
        assert_eq!(d.n_rows(), 3);
        assert_eq!(d.feature_names(), ["a", "b"]);
        assert_eq!(d.target(), &Target::Classes { labels: vec![0, 1, 0], names: vec!["cat".into(), "dog".into()] });
        assert_eq!(d.row(2), &[5.0, 6.0]);
    }

    #[test]
    fn numeric_labels_sort_numerically() {
        let d = read("a,y\n1,10\n2,9\n3,10\n", &opts("y")).unwrap().data;
        assert_eq!(d.target(), &Target::Classes { labels: vec![1, 0, 1], names: vec!["9".into(), "10".into()] });
    }

    #[test]
    fn real_target_inferred() {
        let d = read("a,y\n1,0.5\n2,1.5\n", &opts("y")).unwrap().data;
        assert_eq!(d.target(), &Target::Real(vec![0.5, 1.5]));
    }

    #[test]
    fn delimiter_is_detected_or_taken_as_given() {
        let want = |d: &Dataset| (d.feature_names().to_vec(), d.row(1).to_vec());
        let comma = read("a,b,y\n1,2,0\n3,4.5,1\n", &opts("y")).unwrap().data;
        for text in ["a;b;y\n1;2;0\n3;4.5;1\n", "a\tb\ty\r\n1\t2\t0\r\n3\t4.5\t1\r\n"] {
            assert_eq!(want(&read(text, &opts("y")).unwrap().data), want(&comma), "{text:?}");
        }
        // `.tsv` files are tab-separated even when a header name holds a comma.
        let tsv = read_csv_from("a,1\tb\ty\n1\t2\t0\n3\t4.5\t1\n".as_bytes(), Path::new("t.tsv"), &opts("y")).unwrap().data;
        assert_eq!(tsv.feature_names(), ["a,1", "b"]);
        // A delimiter given explicitly wins over detection.
        let given = CsvOptions { delimiter: Some(b'|'), ..opts("y") };
        assert_eq!(want(&read("a|b|y\n1|2|0\n3|4.5|1\n", &given).unwrap().data), want(&comma));
        let e = read("a;b;y\n1;2;0\n", &CsvOptions { delimiter: Some(b','), ..opts("y") }).unwrap_err();
        assert!(matches!(&e, Error::MissingTarget { available, .. } if available == "a;b;y"), "{e}");
    }

    #[test]
    fn ragged_row_names_line() {
        let e = read("a,b,y\n1,2,0\n3,1\n", &opts("y")).unwrap_err();
        assert!(matches!(e, Error::RaggedRow { line: 3, expected: 3, found: 2, .. }), "{e}");
    }

    #[test]
    fn non_numeric_names_line_and_column() {
        let e = read("a,b,y\n1,2,0\n3,x,1\n", &opts("y")).unwrap_err();
        assert!(matches!(&e, Error::NotANumber { line: 3, column, .. } if column == "b"), "{e}");
    }

    #[test]
    fn infinite_is_refused() {
        let e = read("a,y\ninf,0\n2,1\n", &opts("y")).unwrap_err();
        assert!(matches!(e, Error::NotANumber { line: 2, .. }), "{e}");
    }

    #[test]
    fn missing_policies() {
        let text = "a,b,y\n1,,0\n3,4,1\n5,6,0\n";
        let e = read(text, &opts("y")).unwrap_err();
        assert!(matches!(&e, Error::MissingValue { line: 2, column, .. } if column == "b"), "{e}");
        let d = read(text, &CsvOptions { missing: MissingPolicy::Drop, ..opts("y") }).unwrap();
        assert_eq!((d.data.n_rows(), d.n_dropped), (2, 1));
        let d = read(text, &CsvOptions { missing: MissingPolicy::Median, ..opts("y") }).unwrap();
        assert!(d.data.has_missing() && d.data.row(0)[1].is_nan());
    }

    #[test]
    fn weight_column_is_read_and_checked() {
        let with = |missing| CsvOptions { weight_column: Some("w".into()), missing, ..opts("y") };
        let d = read("a,w,y\n1,2.5,0\n3,0,1\n5,1,0\n", &with(MissingPolicy::Error)).unwrap().data;
        assert_eq!(d.feature_names(), ["a"]);
        assert_eq!(d.weights(), Some(&[2.5, 0.0, 1.0][..]));
        let e = read("a,w,y\n1,2,0\n3,x,1\n", &with(MissingPolicy::Error)).unwrap_err();
        assert!(matches!(&e, Error::NotANumber { line: 3, column, value, .. } if column == "w" && value == "x"), "{e}");
        let e = read("a,w,y\n1,inf,0\n3,1,1\n", &with(MissingPolicy::Error)).unwrap_err();
        assert!(matches!(&e, Error::NotANumber { line: 2, column, .. } if column == "w"), "{e}");
        let e = read("a,w,y\n1,2,0\n3,-1,1\n", &with(MissingPolicy::Error)).unwrap_err();
        assert!(e.to_string().contains("line 3, column `w`: weight -1 is negative"), "{e}");
        let e = read("a,w,y\n1,,0\n3,1,1\n", &with(MissingPolicy::Error)).unwrap_err();
        assert!(matches!(&e, Error::MissingValue { line: 2, column, .. } if column == "w"), "{e}");
        let d = read("a,w,y\n1,,0\n3,1,1\n5,2,0\n", &with(MissingPolicy::Drop)).unwrap();
        assert_eq!((d.data.n_rows(), d.n_dropped, d.data.weights()), (2, 1, Some(&[1.0, 2.0][..])));
        let e = read("a,w,y\n1,0,0\n3,0,1\n", &with(MissingPolicy::Error)).unwrap_err();
        assert!(e.to_string().contains("weight column `w`") && e.to_string().contains("every weight is 0"), "{e}");
        let e = read("a,w,y\n1,2,0\n", &CsvOptions { weight_column: Some("v".into()), ..opts("y") }).unwrap_err();
        assert!(matches!(&e, Error::MissingColumn { name, .. } if name == "v"), "{e}");
        let e = read("a,w,y\n1,2,0\n", &CsvOptions { weight_column: Some("y".into()), ..opts("y") }).unwrap_err();
        assert!(matches!(&e, Error::InvalidParameter { .. }), "{e}");
    }

    #[test]
    fn missing_target_column() {
        let e = read("a,b\n1,2\n", &opts("y")).unwrap_err();
        assert!(matches!(e, Error::MissingTarget { .. }), "{e}");
    }

    #[test]
    fn empty_file() {
        assert!(matches!(read("", &opts("y")).unwrap_err(), Error::EmptyFile { .. } | Error::MissingTarget { .. }));
        assert!(matches!(read("a,y\n", &opts("y")).unwrap_err(), Error::EmptyFile { .. }));
    }

    #[test]
    fn fixed_features_and_classes() {
        let o = CsvOptions {
            feature_columns: Some(vec!["b".into(), "a".into()]),
            class_names: Some(vec!["x".into(), "y".into(), "z".into()]),
            ..opts("t")
        };
        let d = read("a,id,b,t\n1,k,2,z\n3,k,4,x\n", &o).unwrap().data;
        assert_eq!(d.feature_names(), ["b", "a"]);
        assert_eq!(d.row(0), &[2.0, 1.0]);
        assert_eq!(d.target(), &Target::Classes { labels: vec![2, 0], names: vec!["x".into(), "y".into(), "z".into()] });
        let e = read("a,id,b,t\n1,k,2,w\n", &o).unwrap_err();
        assert!(matches!(&e, Error::UnseenLabel { label } if label == "w"), "{e}");
        let e = read("a,t\n1,x\n", &o).unwrap_err();
        assert!(matches!(&e, Error::MissingColumn { name, .. } if name == "b"), "{e}");
    }

    #[test]
    fn text_columns_are_detected_as_categorical_and_stored_as_codes() {
        let text = "id,zip,city,a,y\n1,75001,Paris,1.5,0\n2,69001,Lyon,2,1\n3,75001,,3,0\n4,13001,1.0,4,1\n5,69001,Paris,5,1\n";
        let strict = CsvOptions { missing: MissingPolicy::Median, extra_columns: vec!["id".into()], ..opts("y") };
        // Without detection a text value is not a number, naming line and column.
        let e = read(text, &strict).unwrap_err();
        assert!(matches!(&e, Error::NotANumber { line: 2, column, .. } if column == "city"), "{e}");
        let options = CsvOptions { detect_categorical: true, categorical: vec!["zip".into()], ..strict };
        let d = read(text, &options).unwrap().data;
        assert_eq!(d.feature_names(), ["zip", "city", "a"]);
        assert_eq!(d.categorical_names(), ["zip", "city"]);
        // Levels sorted as text; `1.0` (after numbers were read) spelled `1`.
        assert_eq!(d.levels(1).unwrap(), ["1", "Lyon", "Paris"]);
        assert_eq!(d.levels(0).unwrap(), ["13001", "69001", "75001"]);
        let city: Vec<f64> = (0..5).map(|i| d.row(i)[1]).collect();
        assert_eq!([city[0], city[1], city[3], city[4]], [2.0, 1.0, 0.0, 2.0]);
        assert!(city[2].is_nan());
        // A missing category is not a missing number: nothing to impute by medians.
        assert!(!d.has_missing());
        assert_eq!(d.levels(2), None);
    }

    #[test]
    fn a_column_becomes_categorical_after_numbers_keeping_their_levels() {
        let options = CsvOptions { detect_categorical: true, ..opts("y") };
        let d = read("c,y\n2,0\n10,1\n2.0,0\nx,1\n", &options).unwrap().data;
        assert_eq!(d.levels(0).unwrap(), ["10", "2", "x"]);
        assert_eq!(d.x(), &[1.0, 0.0, 1.0, 2.0]);
        let e = read("c,y\nParis,0\nLyon,1\n", &CsvOptions { categorical: vec!["y".into()], ..options }).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { name: "categorical", .. }), "{e}");
    }

    #[test]
    fn a_column_with_too_many_levels_is_a_resource_limit() {
        let cap = crate::limits::Limits::global().levels;
        let mut text = String::from("c,y\n");
        for i in 0..=cap {
            text.push_str(&format!("v{i},{}\n", i % 2));
        }
        let e = read(&text, &CsvOptions { detect_categorical: true, ..opts("y") }).unwrap_err();
        assert!(matches!(e, Error::ResourceLimit { .. }), "{e}");
        let message = e.to_string();
        assert!(message.contains("`c` of t.csv") && message.contains("--limit levels=N"), "{message}");
    }

    /// A numeric column `a` of `n` rows with `cell` on line `at` (1-based data row), and `y`.
    fn numbers_with(n: usize, at: usize, cell: &str) -> String {
        let mut text = String::from("a,y\n");
        for i in 1..=n {
            let a = if i == at { cell.to_string() } else { format!("{}.5", i % 7) };
            text.push_str(&format!("{a},{}\n", i % 2));
        }
        text
    }

    #[test]
    fn pandas_na_tokens_are_missing_and_keep_a_column_numeric() {
        let options = CsvOptions { detect_categorical: true, missing: MissingPolicy::Median, ..opts("y") };
        for token in super::super::na::DEFAULT_NA_VALUES.iter().chain(&["", "na", "NAN", " NULL "]) {
            let d = read(&numbers_with(30, 4, token), &options).unwrap();
            assert!(!d.data.has_categorical() && d.warnings.is_empty(), "{token:?}");
            assert!(d.data.row(3)[0].is_nan() && d.data.row(4)[0] == 5.5, "{token:?}");
            let e = read(&numbers_with(30, 4, token), &CsvOptions { missing: MissingPolicy::Error, ..options.clone() }).unwrap_err();
            assert!(matches!(&e, Error::MissingValue { line: 5, column, .. } if column == "a"), "{token:?}: {e}");
        }
    }

    #[test]
    fn a_mostly_numeric_column_read_as_categorical_is_a_warning() {
        let options = CsvOptions { detect_categorical: true, ..opts("y") };
        for token in ["-", ".", "Null", "missing"] {
            let d = read(&numbers_with(30, 4, token), &options).unwrap();
            assert_eq!(d.data.categorical_names(), ["a"], "{token:?}");
            let w = &d.warnings[..];
            assert_eq!(w.len(), 1, "{token:?}");
            assert_eq!((w[0].column.as_str(), w[0].numbers, w[0].values, w[0].first_line), ("a", 29, 30, Some(5)));
            assert_eq!(w[0].examples, [token]);
            assert!(w[0].to_string().contains(&format!("`{token}` (first at line 5)")), "{}", w[0]);
            // Declared categorical, or a token of the missing set: no warning.
            let declared = read(&numbers_with(30, 4, token), &CsvOptions { categorical: vec!["a".into()], ..options.clone() }).unwrap();
            assert!(declared.warnings.is_empty());
            let na = NaValues::parse(["default", token]).unwrap();
            let d = read(&numbers_with(30, 4, token), &CsvOptions { na_values: na, missing: MissingPolicy::Median, ..options.clone() })
                .unwrap();
            assert!(!d.data.has_categorical() && d.warnings.is_empty() && d.data.row(3)[0].is_nan());
        }
        // A text column with a few numbers is not warned about.
        let d = read("c,y\nParis,0\nLyon,1\n1,0\n", &options).unwrap();
        assert!(d.data.has_categorical() && d.warnings.is_empty());
    }

    #[test]
    fn the_missing_set_replaces_the_default_one() {
        let only = CsvOptions {
            na_values: NaValues::parse(["-"]).unwrap(),
            detect_categorical: true,
            missing: MissingPolicy::Median,
            ..opts("y")
        };
        // `NA` is now a level, `-` and empty cells are missing.
        let d = read("c,y\nNA,0\n-,1\n1,0\n,1\n", &only).unwrap().data;
        assert_eq!(d.levels(0).unwrap(), ["1", "NA"]);
        assert!(d.row(1)[0].is_nan() && d.row(3)[0].is_nan());
        assert_eq!(d.na_values(), Some(&NaValues::parse(["-"]).unwrap()));
        // The target reads the same tokens.
        let e = read("a,y\n1,0\n2,-\n", &CsvOptions { missing: MissingPolicy::Error, ..only }).unwrap_err();
        assert!(matches!(&e, Error::MissingValue { line: 3, column, .. } if column == "y"), "{e}");
    }

    #[test]
    fn a_columns_kind_does_not_depend_on_the_order_of_its_values() {
        let options = CsvOptions { detect_categorical: true, ..opts("y") };
        // Text and `inf`: categorical, `inf` a level, in any order.
        let orders = ["c,y\nA,0\nB,1\ninf,0\nA,1\n", "c,y\ninf,0\nA,1\nB,0\nA,1\n", "c,y\nA,0\ninf,1\n-inf,0\nB,1\n"];
        for text in orders {
            let d = read(text, &options).unwrap().data;
            let levels = d.levels(0).unwrap();
            assert!(levels.contains(&"inf".to_string()) && levels.contains(&"A".to_string()), "{text:?}: {levels:?}");
            let inf = levels.iter().position(|l| l == "inf").unwrap() as f64;
            assert_eq!((0..4).filter(|&i| d.row(i)[0] == inf).count(), 1, "{text:?}");
        }
        // Numbers and `inf`: refused at the line of `inf`, in any order.
        for (text, line) in [("c,y\n1,0\n2,1\ninf,0\n3,1\n", 4), ("c,y\ninf,0\n1,1\n2,0\n3,1\n", 2), ("c,y\n1,0\n-Infinity,1\n", 3)] {
            let e = read(text, &options).unwrap_err();
            assert!(matches!(&e, Error::NotANumber { line: l, column, .. } if *l == line && column == "c"), "{text:?}: {e}");
        }
        // Also when the row of `inf` is dropped, and when `nan` is not a missing token.
        let drop = CsvOptions { missing: MissingPolicy::Drop, ..options.clone() };
        let e = read("a,c,y\n,inf,0\n1,2,1\n2,3,0\n", &drop).unwrap_err();
        assert!(matches!(&e, Error::NotANumber { line: 2, .. }), "{e}");
        let d = read("a,c,y\n,inf,0\n1,x,1\n2,inf,0\n", &drop).unwrap().data;
        assert_eq!((d.n_rows(), d.levels(1).unwrap()), (2, &["inf".to_string(), "x".to_string()][..]));
        let nan = CsvOptions { na_values: NaValues::parse(["NULL"]).unwrap(), ..options.clone() };
        assert!(matches!(read("c,y\nnan,0\n1,1\n", &nan).unwrap_err(), Error::NotANumber { line: 2, .. }));
        assert_eq!(read("c,y\nnan,0\nx,1\n", &nan).unwrap().data.levels(0).unwrap(), ["nan", "x"]);
    }

    /// What the whole-text reader gives with `threads` threads, and what the line reader gives,
    /// as text (values and errors compared exactly).
    fn both_readers(bytes: &[u8], options: &CsvOptions, threads: usize) -> (String, String) {
        let show = |r: Result<CsvData>| match r {
            // Each data set has its own id: the rest must be equal.
            Ok(d) => format!("{d:?}").replacen(&format!("uid: {}", d.data.uid()), "", 1),
            Err(e) => format!("{e} / {e:?}"),
        };
        let path = Path::new("t.csv");
        (show(read_csv_with(bytes, path, options, Some((bytes, Par::threads(threads))))), show(read_csv_from(bytes, path, options)))
    }

    #[test]
    fn only_a_regular_file_within_its_share_of_the_memory_budget_is_read_whole() {
        let dir = std::env::temp_dir().join(format!("agghoo-whole-text-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("small.csv");
        std::fs::write(&file, "a,y\n1,2\n").unwrap();
        assert_eq!(whole_text(&file, 8).as_deref(), Some(&b"a,y\n1,2\n"[..]));
        assert_eq!(whole_text(&file, 7), None, "one byte beyond the budget");
        assert_eq!(whole_text(&dir, u64::MAX), None, "a directory");
        assert_eq!(whole_text(&dir.join("missing.csv"), u64::MAX), None);
        // Read line after line instead: the same data either way.
        let read = |budget| {
            let whole = whole_text(&file, budget);
            let data = match &whole {
                Some(bytes) => read_csv_with(&bytes[..], &file, &opts("y"), Some((bytes, Par::threads(2)))),
                None => read_csv_from(std::fs::File::open(&file).unwrap(), &file, &opts("y")),
            };
            data.unwrap().data.x().to_vec()
        };
        assert_eq!(read(8), read(7));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn plain_rows_are_read_in_parallel_chunks_with_their_lines() {
        let mut text = String::from("id,a,b,y\n");
        for i in 0..200 {
            text.push_str(&format!("r{i}, {}.25 ,{:e},{}\n", i % 13, (i as f64) * 0.1, ["cat", "dog"][i % 2]));
        }
        let options = CsvOptions { extra_columns: vec!["id".into()], ..opts("y") };
        let layout = Layout { delimiter: b',', width: 4, features: &[1, 2], target: Some(3), extras: &[0], na: &options.na_values };
        let rows = parallel_rows(text.as_bytes(), &layout, Par::threads(4)).expect("plain rows");
        assert_eq!(rows.target_lines, (2..202).collect::<Vec<u64>>());
        assert_eq!((rows.x[2 * 37], rows.x[2 * 37 + 1], rows.extras[0][37].as_str()), (11.25, 3.7, "r37"));
        let (parallel, lines) = both_readers(text.as_bytes(), &options, 4);
        assert_eq!(parallel, lines);
        // A quote anywhere, or a `\r`: not plain.
        for odd in ["\"r5\"", "r5\r"] {
            let odd_text = text.replacen("r5,", &format!("{odd},"), 1);
            assert!(parallel_rows(odd_text.as_bytes(), &layout, Par::threads(4)).is_none(), "{odd:?}");
        }
    }

    #[test]
    fn the_parallel_reader_gives_the_line_readers_values_and_errors() {
        let mut base = String::from("id,a,b,y\n");
        for i in 0..24 {
            base.push_str(&format!("r{i},{}.5,{},{}\n", i % 5, i * 3, i % 3));
        }
        let options = [
            opts("y"),
            CsvOptions { extra_columns: vec!["id".into()], missing: MissingPolicy::Median, task: TaskHint::Regression, ..opts("y") },
            CsvOptions { extra_columns: vec!["id".into()], missing: MissingPolicy::Drop, ..opts("y") },
            CsvOptions { target: None, feature_columns: Some(vec!["b".into(), "a".into()]), ..Default::default() },
            CsvOptions { extra_columns: vec!["id".into()], detect_categorical: true, ..opts("y") },
        ];
        // Every single-byte edit (replaced, inserted, deleted) at every position.
        let bytes = base.as_bytes();
        let mut texts = vec![bytes.to_vec(), bytes[..bytes.len() - 1].to_vec()];
        for i in 0..bytes.len() {
            let mut deleted = bytes.to_vec();
            deleted.remove(i);
            texts.push(deleted);
            for b in [b'x', b'"', b'\r', b'\n', b',', b' ', b'-', 0xff] {
                let mut replaced = bytes.to_vec();
                replaced[i] = b;
                let mut inserted = bytes.to_vec();
                inserted.insert(i, b);
                texts.extend([replaced, inserted]);
            }
        }
        for text in &texts {
            for (k, o) in options.iter().enumerate() {
                let (parallel, lines) = both_readers(text, o, 3);
                assert_eq!(parallel, lines, "options {k}, text {:?}", String::from_utf8_lossy(text));
            }
        }
    }

    #[test]
    fn extra_columns_are_not_features() {
        let d = read("id,a,y\n7,1,0\n8,2,1\n", &CsvOptions { extra_columns: vec!["id".into()], ..opts("y") }).unwrap();
        assert_eq!(d.data.feature_names(), ["a"]);
        assert_eq!(d.extras["id"], ["7", "8"]);
    }
}
