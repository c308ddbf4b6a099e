//! LibSVM / svmlight text: `label index:value index:value ... [# comment]`, indices one-based and
//! strictly increasing. Written by hand (no maintained crate does it) and streaming: one line
//! buffer, values appended straight into the dense row-major matrix.

use std::io::BufRead;
use std::path::Path;

use super::csv_reader::{TaskHint, parse_target};
use super::dataset::Dataset;
use crate::error::{Error, Result};
use crate::limits::{LIBSVM_MIN_DENSE_BYTES, Limits, format_bytes};

/// The format of a data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataFormat {
    /// A header line, then one delimited row per sample ([`read_csv`](super::read_csv)).
    Csv,
    /// `label index:value …` lines ([`read_libsvm`]).
    LibSvm,
}

/// Whether the extension of `path` suggests LibSVM text (`.svm`, `.libsvm`, `.svmlight`, `.txt`).
pub fn libsvm_extension(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("svm" | "libsvm" | "svmlight" | "txt"))
}

/// The format of the file at `path`, decided by its content (see [`detect_format_from`]).
///
/// # Errors
/// [`Error::Io`].
pub fn detect_format(path: &Path) -> Result<DataFormat> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    let mut head = Vec::new();
    file.take(1 << 16).read_to_end(&mut head).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(detect_format_from(&head, path))
}

/// The format of text starting with `head`, decided by its first line that is neither blank nor a
/// `#` comment: LibSVM when its second token is `index:value` and its first (the label) holds no
/// `,` or `;`; otherwise CSV, except that a line of one token without a delimiter (a label with
/// no feature) is LibSVM when the extension of `path` suggests it ([`libsvm_extension`]). The
/// extension is only a hint: a `.txt` file with a CSV header reads as CSV.
///
/// ```
/// use agghoo::data::{DataFormat, detect_format_from};
/// use std::path::Path;
/// assert_eq!(detect_format_from(b"# c\n+1 3:0.5 7:1\n", Path::new("d.csv")), DataFormat::LibSvm);
/// assert_eq!(detect_format_from(b"a,b,y\n1,2,0\n", Path::new("d.svm")), DataFormat::Csv);
/// assert_eq!(detect_format_from(b"1\n0\n", Path::new("d.svm")), DataFormat::LibSvm);
/// ```
pub fn detect_format_from(head: &[u8], path: &Path) -> DataFormat {
    let text = String::from_utf8_lossy(head);
    let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')) else {
        return if libsvm_extension(path) { DataFormat::LibSvm } else { DataFormat::Csv };
    };
    let mut tokens = line.split('#').next().unwrap_or_default().split_ascii_whitespace();
    let label = tokens.next().unwrap_or_default();
    let delimited = |t: &str| t.contains([',', ';', '\t']);
    let is_pair = |t: &str| t.split_once(':').is_some_and(|(i, v)| i.parse::<u64>().is_ok() && v.parse::<f64>().is_ok());
    match tokens.next() {
        Some(first) if is_pair(first) && !delimited(label) => DataFormat::LibSvm,
        None if libsvm_extension(path) && !delimited(line) => DataFormat::LibSvm,
        _ => DataFormat::Csv,
    }
}

/// Reads a LibSVM file into a dense [`Dataset`] with features named `f1..fd` (d = the largest
/// index seen, or `n_features` when given and larger).
///
/// # Errors
/// [`Error::Io`], [`Error::EmptyFile`], [`Error::LibSvm`] naming the line for a malformed pair,
/// an index of 0 or above 2³² − 1, or indices that are not strictly increasing (out of order or
/// duplicated); [`Error::ResourceLimit`] naming the file when the dense matrix (`rows × d × 8`
/// bytes) would exceed `libsvm_expansion` bytes per byte of file (100 by default; dense sizes up
/// to [`LIBSVM_MIN_DENSE_BYTES`](crate::limits::LIBSVM_MIN_DENSE_BYTES) always pass) or the
/// memory budget ([`crate::limits::Limits`]): a few bytes declaring feature 10⁹ must not
/// allocate gigabytes.
pub fn read_libsvm(path: impl AsRef<Path>, task: TaskHint, n_features: Option<usize>) -> Result<Dataset> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    read_libsvm_from(std::io::BufReader::with_capacity(1 << 20, file), path, task, n_features)
}

/// Reads LibSVM text from any buffered reader; `path` is used in error messages only.
///
/// # Errors
/// As [`read_libsvm`].
pub fn read_libsvm_from(mut reader: impl BufRead, path: &Path, task: TaskHint, n_features: Option<usize>) -> Result<Dataset> {
    let err = |line: u64, message: String| Error::LibSvm { path: path.to_path_buf(), line, message };
    let mut labels = Vec::new();
    let mut label_lines = Vec::new();
    // Sparse rows first (index, value), densified at the end once d is known.
    let mut entries: Vec<(u32, f64)> = Vec::new();
    let mut row_ends: Vec<usize> = Vec::new();
    let mut max_index = 0usize;
    let mut buf = String::new();
    let mut line_no = 0u64;
    let mut file_bytes = 0u128;
    loop {
        buf.clear();
        let read = reader.read_line(&mut buf).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        if read == 0 {
            break;
        }
        file_bytes += read as u128;
        line_no += 1;
        let content = buf.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut tokens = content.split_ascii_whitespace();
        let label = tokens.next().unwrap_or_default();
        labels.push(label.to_string());
        label_lines.push(line_no);
        let mut previous = 0usize;
        for token in tokens {
            let (i, v) = token.split_once(':').ok_or_else(|| err(line_no, format!("`{token}` is not index:value")))?;
            let index: usize = i.parse().map_err(|_| err(line_no, format!("`{i}` is not a feature index")))?;
            if index == 0 {
                return Err(err(line_no, "feature indices start at 1".into()));
            }
            let Ok(stored) = u32::try_from(index) else {
                return Err(err(line_no, format!("feature index {index} is larger than {}", u32::MAX)));
            };
            if index <= previous {
                return Err(err(
                    line_no,
                    format!("index {index} after {previous}: indices must be strictly increasing (out of order or duplicated)"),
                ));
            }
            let value: f64 = v.parse().map_err(|_| err(line_no, format!("`{v}` is not a number")))?;
            if !value.is_finite() {
                return Err(err(line_no, format!("{v} is not a finite number")));
            }
            previous = index;
            max_index = max_index.max(index);
            entries.push((stored, value));
        }
        row_ends.push(entries.len());
    }
    if labels.is_empty() {
        return Err(Error::EmptyFile { path: path.to_path_buf() });
    }
    let d = n_features.unwrap_or(0).max(max_index);
    if d == 0 {
        return Err(Error::NoFeatures {
            source_name: path.display().to_string(),
            detail: "no line has an index:value pair, every line is a label only".into(),
        });
    }
    let n = labels.len();
    check_dense_size(path, n, d, entries.len(), file_bytes)?;
    let mut x = vec![0.0; n * d];
    let mut start = 0;
    for (r, &end) in row_ends.iter().enumerate() {
        for &(i, v) in &entries[start..end] {
            x[r * d + i as usize - 1] = v;
        }
        start = end;
    }
    let target = parse_target(&labels, &label_lines, task, "label", path)?;
    Dataset::new(x, (1..=d).map(|j| format!("f{j}")).collect(), target, "label")
}

/// Refuses a dense matrix of `n × d` values beyond the LibSVM expansion limit or the memory
/// budget, naming the file, the dense size and the flag that raises the limit.
fn check_dense_size(path: &Path, n: usize, d: usize, stored: usize, file_bytes: u128) -> Result<()> {
    let limits = Limits::global();
    let dense = Limits::f64_bytes([n, d]);
    let what = format!(
        "{}: {n} rows × {d} features stored densely ({stored} values in the file; agghoo keeps features dense, \
         so remove unused high feature indices)",
        path.display()
    );
    let allowed = file_bytes.saturating_mul(u128::from(limits.libsvm_expansion)).max(u128::from(LIBSVM_MIN_DENSE_BYTES));
    if dense > allowed {
        return Err(Error::limit(
            what,
            format_bytes(dense),
            format!("{} ({}× the file's {})", format_bytes(allowed), limits.libsvm_expansion, format_bytes(file_bytes)),
            "raise it with `--limit libsvm-expansion=N` (library: `Limits::libsvm_expansion`)",
        ));
    }
    limits.check_memory(format_args!("{}: {n} rows × {d} features stored densely", path.display()), dense)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Dataset> {
        read_libsvm_from(text.as_bytes(), Path::new("t.svm"), TaskHint::Auto, None)
    }

    #[test]
    fn dense_from_sparse() {
        let d = read("+1 1:0.5 3:2\n-1 2:1 # comment\n\n").unwrap();
        assert_eq!(d.n_rows(), 2);
        assert_eq!(d.n_features(), 3);
        assert_eq!(d.x(), &[0.5, 0.0, 2.0, 0.0, 1.0, 0.0]);
        assert_eq!(d.target().n_classes(), 2);
    }

    #[test]
    fn out_of_order_and_duplicate_indices_are_errors() {
        assert!(matches!(read("1 3:1 2:1\n").unwrap_err(), Error::LibSvm { line: 1, .. }));
        assert!(matches!(read("1 1:1\n0 2:1 2:3\n").unwrap_err(), Error::LibSvm { line: 2, .. }));
    }

    #[test]
    fn malformed_pairs_are_errors() {
        for bad in ["1 a:1\n", "1 1:x\n", "1 0:1\n", "1 1\n", "1 1:inf\n"] {
            assert!(matches!(read(bad).unwrap_err(), Error::LibSvm { .. }), "{bad}");
        }
    }

    /// Fuzzing found these: a 46-byte file naming feature 31211142 allocated 750 MB (names and
    /// a dense matrix); an index above u32::MAX was truncated into another column.
    #[test]
    fn huge_feature_indices_are_errors_not_allocations() {
        let err = read("+1 1:0.5 31211142:1\n+1 1:1 2:2 3:3\n").unwrap_err();
        assert!(matches!(&err, Error::ResourceLimit { what, .. } if what.contains("t.svm: 2 rows × 31211142 features")), "{err}");
        assert!(err.to_string().contains("--limit libsvm-expansion=N"), "{err}");
        let err = read("1 4294967296:1\n").unwrap_err();
        assert!(matches!(&err, Error::LibSvm { line: 1, message, .. } if message.contains("larger than 4294967295")), "{err}");
        assert!(read("1 18446744073709551615:1\n").is_err());
        let declared = read_libsvm_from("1 1:1\n".as_bytes(), Path::new("t.svm"), TaskHint::Auto, Some(usize::MAX)).unwrap_err();
        assert!(matches!(declared, Error::ResourceLimit { .. }));
        // sparse but small enough: 2 rows × 500 000 features is within LIBSVM_MIN_DENSE_BYTES
        assert_eq!(read("1 500000:1\n0 1:1\n").unwrap().n_features(), 500_000);
        assert!(read("1 600000:1\n0 1:1\n").is_err());
    }

    #[test]
    fn empty_is_error() {
        assert!(matches!(read("\n# only a comment\n").unwrap_err(), Error::EmptyFile { .. }));
    }
}
