//! The real-data study's data sets: a folder holding `manifest.tsv` and one gzip-compressed CSV
//! file per data set (`NAME.csv.gz`), as the repository's `data/study` folder does.
//!
//! The files are read as streams: the gzip decoder feeds the same CSV reader as plain files, so
//! nothing is decompressed to disk and every reader error still names the file and line. The
//! alternative, plain CSV in the repository, would be about four times larger (13 MB instead of 3.3 MB).
//!
//! Several data sets have text (categorical) features: [`StudyManifest::read_csv`] reads the
//! manifest's categorical columns as such, and [`StudyManifest::verify`] checks a file against its
//! manifest line from the CSV records alone, without building a [`Dataset`](super::Dataset).

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::csv_reader::{CsvData, CsvOptions, MissingPolicy, TaskHint, read_csv_from};
use super::dataset::Task;
use super::na::NaValues;
use crate::error::{Error, Result};

/// The manifest's columns, in order; its first line must be exactly these names, tab-separated.
pub const MANIFEST_COLUMNS: [&str; 14] = [
    "name",
    "task",
    "target",
    "rows",
    "features",
    "numeric",
    "categorical",
    "categorical_names",
    "missing_cells",
    "classes",
    "source",
    "original",
    "licence",
    "changes",
];

/// What `manifest.tsv` says of one data set; consistent with itself once read (numeric plus
/// categorical features make the features, the categorical names number the categorical count,
/// a class count exactly for classification).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudySet {
    name: String,
    task: Task,
    target: String,
    n_rows: usize,
    n_features: usize,
    n_numeric: usize,
    categorical: Vec<String>,
    n_missing: usize,
    n_classes: Option<usize>,
    source: String,
    original: String,
    licence: String,
    changes: String,
}

impl StudySet {
    /// The data set's name; its file is `NAME.csv.gz`.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Classification or regression.
    pub fn task(&self) -> Task {
        self.task
    }
    /// The target column's name.
    pub fn target(&self) -> &str {
        &self.target
    }
    /// Data rows (the header not counted).
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    /// Feature columns: every column but the target.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// Feature columns whose every present value is a number.
    pub fn n_numeric(&self) -> usize {
        self.n_numeric
    }
    /// The categorical (text) feature columns, in file order.
    pub fn categorical(&self) -> &[String] {
        &self.categorical
    }
    /// Whether every feature is numeric, so that [`StudyManifest::read_csv`] can load the set.
    pub fn is_numeric_only(&self) -> bool {
        self.categorical.is_empty()
    }
    /// Missing (empty) feature cells; the target is never missing.
    pub fn n_missing(&self) -> usize {
        self.n_missing
    }
    /// Distinct target values of a classification set; `None` for regression.
    pub fn n_classes(&self) -> Option<usize> {
        self.n_classes
    }
    /// The package the data were taken from, with its version.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The data set's name in its source.
    pub fn original(&self) -> &str {
        &self.original
    }
    /// The licence, as the source package states it.
    pub fn licence(&self) -> &str {
        &self.licence
    }
    /// What was changed from the source (columns or rows dropped, and why); `-` for nothing.
    pub fn changes(&self) -> &str {
        &self.changes
    }
}

/// A study folder's manifest: the data sets, in manifest order, and where their files are.
#[derive(Clone, Debug)]
pub struct StudyManifest {
    dir: PathBuf,
    sets: Vec<StudySet>,
}

impl StudyManifest {
    /// The manifest's file name inside a study folder.
    pub const FILE: &'static str = "manifest.tsv";

    /// Reads `dir/manifest.tsv`.
    ///
    /// # Errors
    /// [`Error::Io`]; as [`StudyManifest::parse`].
    pub fn read(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        let path = dir.join(Self::FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        Self::parse(&text, dir)
    }

    /// Parses manifest text; `dir` is the folder of its data files (and names the manifest in
    /// errors).
    ///
    /// ```
    /// use agghoo::data::{Task, study::StudyManifest};
    /// let text = "name\ttask\ttarget\trows\tfeatures\tnumeric\tcategorical\tcategorical_names\t\
    ///             missing_cells\tclasses\tsource\toriginal\tlicence\tchanges\n\
    ///             iris\tclassification\tSpecies\t150\t4\t4\t0\t-\t0\t3\tR datasets\tiris\tGPL-2\t-\n";
    /// let manifest = StudyManifest::parse(text, "data/study")?;
    /// let iris = manifest.get("iris").unwrap();
    /// assert_eq!((iris.task(), iris.n_rows(), iris.n_classes()), (Task::Classification, 150, Some(3)));
    /// assert!(iris.is_numeric_only());
    /// assert_eq!(manifest.csv_path(iris), std::path::Path::new("data/study/iris.csv.gz"));
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyFile`] without a header; [`Error::BadFile`] naming the line (and column) for
    /// a header other than [`MANIFEST_COLUMNS`], a task other than `classification` /
    /// `regression`, a count that is not a whole number, counts that disagree with each other, a
    /// name that is empty, repeated or not made of ASCII letters, digits, `_` and `-`;
    /// [`Error::RaggedRow`] for a line without exactly 14 fields; [`Error::BadFile`] for a
    /// manifest that lists no data set.
    pub fn parse(text: &str, dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        let path = dir.join(Self::FILE);
        let mut lines = text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l.strip_suffix('\r').unwrap_or(l)));
        let Some((_, header)) = lines.next() else { return Err(Error::EmptyFile { path }) };
        if header.split('\t').ne(MANIFEST_COLUMNS) {
            return Err(bad(
                &path,
                format!("line 1: expected the columns {}, found {}", MANIFEST_COLUMNS.join(", "), header.replace('\t', ", ")),
            ));
        }
        let mut sets: Vec<StudySet> = Vec::new();
        for (line, text) in lines.filter(|(_, l)| !l.trim().is_empty()) {
            let set = parse_line(text, line, &path)?;
            if sets.iter().any(|s| s.name == set.name) {
                return Err(bad(&path, format!("line {line}: data set `{}` is listed twice", set.name)));
            }
            sets.push(set);
        }
        if sets.is_empty() {
            // A study of no set would print tables of nothing (-0 relative risks) and exit 0.
            return Err(bad(&path, "lists no data set: one line per set is expected after the header".into()));
        }
        Ok(Self { dir, sets })
    }

    /// The data sets, in manifest order.
    pub fn sets(&self) -> &[StudySet] {
        &self.sets
    }

    /// The data set called `name`, if listed.
    pub fn get(&self, name: &str) -> Option<&StudySet> {
        self.sets.iter().find(|s| s.name == name)
    }

    /// The folder holding the manifest and the data files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The data file of `set`: `DIR/NAME.csv.gz`.
    pub fn csv_path(&self, set: &StudySet) -> PathBuf {
        self.dir.join(format!("{}.csv.gz", set.name))
    }

    /// The decompressed CSV text of `set`, as a stream for [`read_csv_from`] or a `csv` reader.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be opened. A file that is not gzip fails on the first
    /// read, with an I/O error of kind `InvalidInput` or `InvalidData`.
    pub fn open(&self, set: &StudySet) -> Result<impl Read + use<>> {
        open_gzip(&self.csv_path(set))
    }

    /// Reads a set into a [`Dataset`](super::Dataset): target `set.target()` read as the
    /// manifest's task, every other column a feature (the manifest's categorical ones as
    /// categorical columns), missing values handled by `missing`.
    ///
    /// # Errors
    /// As [`read_csv_from`]; in particular [`Error::NotANumber`] naming a text field in a column
    /// the manifest lists as numeric.
    pub fn read_csv(&self, set: &StudySet, missing: MissingPolicy) -> Result<CsvData> {
        let task = match set.task {
            Task::Classification => TaskHint::Classification,
            Task::Regression => TaskHint::Regression,
        };
        let options = CsvOptions {
            target: Some(set.target.clone()),
            task,
            missing,
            delimiter: Some(b','),
            categorical: set.categorical.clone(),
            na_values: study_na_values(),
            ..Default::default()
        };
        read_csv_from(self.open(set)?, &self.csv_path(set), &options)
    }

    /// Checks `set`'s file against its manifest line, from the CSV records alone (categorical
    /// sets included): the header holds the target and no name twice; rows, feature columns,
    /// numeric and categorical features (by name), missing feature cells and the number of
    /// classes are as listed; the target is never missing, and is a number for regression.
    /// A feature is categorical when one of its present values does not parse as a finite number.
    ///
    /// # Errors
    /// [`Error::Io`] and [`Error::BadFile`] (also for a file that does not decompress) from
    /// reading; [`Error::RaggedRow`]; [`Error::MissingTarget`]; [`Error::BadFile`] naming the
    /// first disagreement with the manifest.
    pub fn verify(&self, set: &StudySet) -> Result<()> {
        let na = study_na_values();
        let path = self.csv_path(set);
        let mut rdr = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(self.open(set)?);
        let header: Vec<String> = rdr.headers().map_err(|e| bad(&path, e.to_string()))?.iter().map(|h| h.trim().to_string()).collect();
        let target = header
            .iter()
            .position(|h| *h == set.target)
            .ok_or_else(|| Error::MissingTarget { name: set.target.clone(), available: header.join(", ") })?;
        if let Some(name) = header.iter().enumerate().find_map(|(i, h)| header[..i].contains(h).then_some(h)) {
            return Err(bad(&path, format!("column `{name}` appears twice in the header")));
        }
        let mut text_columns = vec![false; header.len()];
        let mut n_missing = 0usize;
        let mut n_rows = 0usize;
        let mut labels = BTreeSet::new();
        for record in rdr.records() {
            let record = record.map_err(|e| bad(&path, e.to_string()))?;
            let line = record.position().map_or(0, |p| p.line());
            if record.len() != header.len() {
                return Err(Error::RaggedRow { path: path.clone(), line, expected: header.len(), found: record.len() });
            }
            for (c, field) in record.iter().enumerate() {
                if na.is_missing(field) {
                    if c == target {
                        return Err(bad(&path, format!("line {line}: the target `{}` is missing", set.target)));
                    }
                    n_missing += 1;
                } else if !field.trim().parse::<f64>().is_ok_and(f64::is_finite) {
                    text_columns[c] = true;
                }
            }
            if set.task == Task::Classification {
                labels.insert(record[target].trim().to_string());
            }
            n_rows += 1;
        }
        if set.task == Task::Regression && text_columns[target] {
            return Err(bad(&path, format!("the regression target `{}` has a value that is not a number", set.target)));
        }
        let categorical: Vec<String> =
            header.iter().enumerate().filter(|&(c, _)| c != target && text_columns[c]).map(|(_, h)| h.clone()).collect();
        let n_classes = (set.task == Task::Classification).then_some(labels.len());
        let checks = [
            ("rows", n_rows, set.n_rows),
            ("features", header.len() - 1, set.n_features),
            ("numeric", header.len() - 1 - categorical.len(), set.n_numeric),
            ("missing_cells", n_missing, set.n_missing),
        ];
        first_disagreement(&path, &checks)?;
        if categorical != set.categorical {
            return Err(bad(
                &path,
                format!(
                    "categorical features: the file has [{}], the manifest lists [{}]",
                    categorical.join(", "),
                    set.categorical.join(", ")
                ),
            ));
        }
        if n_classes != set.n_classes {
            return Err(bad(&path, format!("classes: the file has {n_classes:?}, the manifest lists {:?}", set.n_classes)));
        }
        Ok(())
    }
}

impl StudyManifest {
    /// Checks a set as read by [`StudyManifest::read_csv`] against its manifest line: rows,
    /// features and classes as listed (a study must not run on a file its manifest misdescribes).
    ///
    /// # Errors
    /// [`Error::BadFile`] naming the set's file, the count and both numbers.
    pub fn check_read(&self, set: &StudySet, data: &super::Dataset) -> Result<()> {
        let path = self.csv_path(set);
        let mut checks = vec![("rows", data.n_rows(), set.n_rows), ("features", data.n_features(), set.n_features)];
        if let Some(listed) = set.n_classes {
            checks.push(("classes", data.target().n_classes(), listed));
        }
        first_disagreement(&path, &checks)
    }
}

/// The first of `checks` (what, found in the file, listed in the manifest) that disagrees, as an
/// error naming `path` and both numbers.
fn first_disagreement(path: &Path, checks: &[(&str, usize, usize)]) -> Result<()> {
    match checks.iter().find(|(_, found, listed)| found != listed) {
        Some((what, found, listed)) => Err(bad(path, format!("{what}: the file has {found}, the manifest lists {listed}"))),
        None => Ok(()),
    }
}

/// Opens a gzip-compressed file as a stream of its decompressed bytes (every gzip member, in
/// order).
///
/// # Errors
/// [`Error::Io`] when the file cannot be opened; decoding errors come from the stream's reads.
pub fn open_gzip(path: &Path) -> Result<impl Read + use<>> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    Ok(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file)))
}

fn bad(path: &Path, message: String) -> Error {
    Error::BadFile { path: path.to_path_buf(), message }
}

fn parse_line(text: &str, line: u64, path: &Path) -> Result<StudySet> {
    let fields: Vec<&str> = text.split('\t').collect();
    if fields.len() != MANIFEST_COLUMNS.len() {
        return Err(Error::RaggedRow { path: path.to_path_buf(), line, expected: MANIFEST_COLUMNS.len(), found: fields.len() });
    }
    let field_error = |column: usize, rule: &str| {
        bad(path, format!("line {line}: column `{}`: {rule}, got `{}`", MANIFEST_COLUMNS[column], fields[column]))
    };
    let count = |column: usize| fields[column].parse::<usize>().map_err(|_| field_error(column, "expected a whole number"));
    let name = fields[0].to_string();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        return Err(field_error(0, "expected ASCII letters, digits, `_` or `-`"));
    }
    let task = match fields[1] {
        "classification" => Task::Classification,
        "regression" => Task::Regression,
        _ => return Err(field_error(1, "expected classification or regression")),
    };
    if fields[2].is_empty() {
        return Err(field_error(2, "expected the target column's name"));
    }
    let (n_rows, n_features, n_numeric, n_categorical) = (count(3)?, count(4)?, count(5)?, count(6)?);
    if n_numeric + n_categorical != n_features {
        return Err(field_error(4, "expected numeric + categorical features"));
    }
    let categorical: Vec<String> = match fields[7] {
        "-" => Vec::new(),
        names => names.split(',').map(str::to_string).collect(),
    };
    if categorical.len() != n_categorical {
        return Err(field_error(7, &format!("expected {n_categorical} comma-separated names (`-` for none)")));
    }
    let n_missing = count(8)?;
    let n_classes = match (task, fields[9]) {
        (Task::Regression, "-") => None,
        (Task::Classification, _) => match count(9)? {
            k if k >= 2 => Some(k),
            _ => return Err(field_error(9, "expected at least 2 classes")),
        },
        (Task::Regression, _) => return Err(field_error(9, "expected `-` for regression")),
    };
    Ok(StudySet {
        name,
        task,
        target: fields[2].to_string(),
        n_rows,
        n_features,
        n_numeric,
        categorical,
        n_missing,
        n_classes,
        source: fields[10].to_string(),
        original: fields[11].to_string(),
        licence: fields[12].to_string(),
        changes: fields[13].to_string(),
    })
}

/// The missing-value tokens of the study's files: empty cells, `?`, `NA`, `NaN`, `nan`, as they
/// were written (not the default tokens: `None` is a level of Ames' masonry and garage columns).
fn study_na_values() -> NaValues {
    NaValues::parse(["?", "NA", "NaN", "nan"]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository's study folder.
    fn study_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/study")
    }

    fn manifest() -> StudyManifest {
        StudyManifest::read(study_dir()).unwrap()
    }

    const HEADER: &str = "name\ttask\ttarget\trows\tfeatures\tnumeric\tcategorical\tcategorical_names\tmissing_cells\tclasses\tsource\toriginal\tlicence\tchanges\n";

    #[test]
    fn study_manifest_lists_the_promised_variety() {
        let m = manifest();
        let sets = m.sets();
        let classification: Vec<&StudySet> = sets.iter().filter(|s| s.task() == Task::Classification).collect();
        let multi = classification.iter().filter(|s| s.n_classes().is_some_and(|k| k > 2)).count();
        assert!(sets.len() >= 28, "{} data sets", sets.len());
        assert!(classification.len() >= 16 && multi >= 6, "{} classification, {multi} multi-class", classification.len());
        assert!(sets.len() - classification.len() >= 12);
        assert!(sets.iter().any(|s| s.n_rows() >= 50_000));
        assert!(sets.iter().any(|s| !s.is_numeric_only()) && sets.iter().any(|s| s.n_missing() > 0));
        assert!(sets.iter().all(|s| s.n_features() <= 200 && !s.licence().is_empty() && !s.source().is_empty()));
    }

    #[test]
    fn study_files_match_the_manifest() {
        let m = manifest();
        for set in m.sets() {
            m.verify(set).unwrap_or_else(|e| panic!("{}: {e}", set.name()));
        }
        let numeric_only: Vec<&str> = m.sets().iter().filter(|s| s.is_numeric_only()).map(StudySet::name).collect();
        eprintln!("numeric-only study sets ({}): {}", numeric_only.len(), numeric_only.join(", "));
    }

    #[test]
    fn study_folder_has_no_unlisted_data_file() {
        let m = manifest();
        for entry in std::fs::read_dir(study_dir()).unwrap() {
            let file = entry.unwrap().file_name().into_string().unwrap();
            if let Some(name) = file.strip_suffix(".csv.gz") {
                assert!(m.get(name).is_some(), "{file} is not in the manifest");
            }
        }
    }

    #[test]
    fn study_sets_load_with_their_categorical_columns() {
        let m = manifest();
        for set in m.sets() {
            let data = m.read_csv(set, MissingPolicy::Median).unwrap_or_else(|e| panic!("{}: {e}", set.name())).data;
            assert_eq!((data.n_rows(), data.n_features()), (set.n_rows(), set.n_features()), "{}", set.name());
            assert_eq!(data.target_name(), set.target());
            assert_eq!(data.categorical_names(), set.categorical(), "{}", set.name());
            if set.is_numeric_only() {
                assert_eq!(data.has_missing(), set.n_missing() > 0, "{}", set.name());
            }
        }
    }

    #[test]
    fn study_verify_names_a_disagreement() {
        let m = manifest();
        let iris = m.get("iris").unwrap();
        let wrong = |edit: &dyn Fn(&mut StudySet)| {
            let mut set = iris.clone();
            edit(&mut set);
            m.verify(&set).unwrap_err().to_string()
        };
        assert!(wrong(&|s| s.n_rows += 1).contains("rows: the file has 150, the manifest lists 151"));
        assert!(wrong(&|s| s.n_missing = 2).contains("missing_cells"));
        assert!(wrong(&|s| s.n_classes = Some(2)).contains("classes"));
        assert!(wrong(&|s| s.categorical = vec!["Sepal.Length".into()]).contains("categorical features: the file has []"));
        assert!(wrong(&|s| s.target = "species".into()).contains("Species"));
        let e = m.verify(&StudySet { name: "no_such_set".into(), ..iris.clone() }).unwrap_err();
        assert!(matches!(&e, Error::Io { path, .. } if path.ends_with("no_such_set.csv.gz")), "{e}");
    }

    #[test]
    fn study_open_refuses_a_file_that_is_not_gzip() {
        let dir = std::env::temp_dir().join(format!("agghoo-study-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("plain.csv.gz"), "a,y\n1,2\n").unwrap();
        let line = "plain\tregression\ty\t1\t1\t1\t0\t-\t0\t-\tnone\tplain\tnone\t-\n";
        let m = StudyManifest::parse(&format!("{HEADER}{line}"), &dir).unwrap();
        let e = m.verify(&m.sets()[0]).unwrap_err();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(&e, Error::BadFile { path, .. } if path.ends_with("plain.csv.gz")), "{e}");
    }

    #[test]
    fn study_manifest_errors_name_line_and_column() {
        let parse = |lines: &str| StudyManifest::parse(&format!("{HEADER}{lines}"), "d").unwrap_err().to_string();
        let ok = "iris\tclassification\tSpecies\t150\t4\t4\t0\t-\t0\t3\ts\to\tl\t-\n";
        assert!(StudyManifest::parse(&format!("{HEADER}{ok}\n"), "d").is_ok());
        assert!(parse(&ok.replace("classification", "clustering")).contains("line 2: column `task`"));
        assert!(parse(&ok.replace("\t150\t", "\t15x\t")).contains("line 2: column `rows`: expected a whole number, got `15x`"));
        assert!(parse(&ok.replace("\t4\t4\t0\t", "\t4\t3\t0\t")).contains("column `features`"));
        assert!(parse(&ok.replace("\t4\t4\t0\t-\t", "\t4\t3\t1\t-\t")).contains("column `categorical_names`"));
        assert!(parse(&ok.replace("\t3\ts", "\t1\ts")).contains("column `classes`"));
        assert!(parse(&ok.replace("iris", "../iris")).contains("column `name`"));
        assert!(parse(&format!("{ok}{ok}")).contains("line 3: data set `iris` is listed twice"));
        assert!(matches!(StudyManifest::parse(&format!("{HEADER}a\tb\n"), "d").unwrap_err(), Error::RaggedRow { line: 2, found: 2, .. }));
        let e = StudyManifest::parse("name\ttask\n", "d").unwrap_err().to_string();
        assert!(e.contains("line 1: expected the columns name, task, target"), "{e}");
        assert!(matches!(StudyManifest::parse("", "d").unwrap_err(), Error::EmptyFile { .. }));
        // a header and no set: a study of nothing (it printed tables of -0 and exited 0)
        let e = StudyManifest::parse(&format!("{HEADER}\n"), "d").unwrap_err();
        assert!(matches!(&e, Error::BadFile { path, .. } if path.ends_with("manifest.tsv")), "{e}");
        assert!(e.to_string().contains("lists no data set"), "{e}");
    }

    /// A manifest line whose counts disagree with the data read is refused before the study runs
    /// (a row count of 999 999 999 999 for the 150 rows of iris was accepted).
    #[test]
    fn study_check_read_names_the_set_and_both_numbers() {
        let m = manifest();
        let iris = m.get("iris").unwrap();
        let data = m.read_csv(iris, MissingPolicy::Median).unwrap().data;
        assert!(m.check_read(iris, &data).is_ok());
        let wrong = |edit: &dyn Fn(&mut StudySet)| {
            let mut set = iris.clone();
            edit(&mut set);
            m.check_read(&set, &data).unwrap_err().to_string()
        };
        let e = wrong(&|s| s.n_rows = 999_999_999_999);
        assert!(e.contains("iris.csv.gz") && e.contains("rows: the file has 150, the manifest lists 999999999999"), "{e}");
        assert!(wrong(&|s| s.n_features = 5).contains("features: the file has 4, the manifest lists 5"));
        assert!(wrong(&|s| s.n_classes = Some(4)).contains("classes: the file has 3, the manifest lists 4"));
    }
}
