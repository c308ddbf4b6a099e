//! The in-memory data set and views of it.

use serde::{Deserialize, Serialize};

use crate::Par;
use crate::error::{Error, Result};

/// Whether the target is a class label or a real value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    /// Class labels `0..n_classes`.
    Classification,
    /// Real values.
    Regression,
}

/// The target column: class indices with their names, or real values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// Class indices into `names`; `names` is sorted (numerically when every label is a number,
    /// each class then named by its number's shortest spelling, so `1` and `1.0` are one class).
    Classes {
        /// Class index of each row.
        labels: Vec<u32>,
        /// Label text of each class, in class-index order.
        names: Vec<String>,
    },
    /// Real-valued target.
    Real(Vec<f64>),
}

impl Target {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Target::Classes { labels, .. } => labels.len(),
            Target::Real(v) => v.len(),
        }
    }
    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The task this target defines.
    pub fn task(&self) -> Task {
        match self {
            Target::Classes { .. } => Task::Classification,
            Target::Real(_) => Task::Regression,
        }
    }
    /// Number of classes (0 for regression).
    pub fn n_classes(&self) -> usize {
        match self {
            Target::Classes { names, .. } => names.len(),
            Target::Real(_) => 0,
        }
    }
    /// Row `i` as a real number (the class index for classification).
    pub fn value(&self, i: usize) -> f64 {
        match self {
            Target::Classes { labels, .. } => labels[i] as f64,
            Target::Real(v) => v[i],
        }
    }
}

/// Features stored once (row-major `f64`) with names, and a target.
///
/// Invariants (checked by [`Dataset::new`]): `x.len() == n_rows · n_features`, the target has
/// `n_rows` entries, features are finite unless the caller asked to keep missing values as NaN
/// for per-fold imputation ([`Dataset::new_with_missing`]). A categorical column
/// ([`Dataset::with_levels`]) holds level codes (NaN when missing); see
/// [`categorical`](crate::data::Encoder).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Dataset {
    /// Identity of the contents: fresh for every constructed or transformed data set, kept by
    /// clones (contents are immutable). Lets families share work across splits of one data set.
    #[serde(skip, default = "next_uid")]
    uid: u64,
    x: Vec<f64>,
    n_rows: usize,
    feature_names: Vec<String>,
    target: Target,
    target_name: String,
    /// True when a numeric feature is NaN (missing values of categorical columns are a matter
    /// of their encoding, not of imputation).
    has_missing: bool,
    /// The level names of each categorical column (`None` for numeric ones); empty when every
    /// column is numeric.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    levels: Vec<Option<Vec<String>>>,
    /// The missing-value tokens the data were read with, when read from text (recorded in the
    /// schema of a model fitted on them, so that prediction rows are read alike).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    na_values: Option<super::na::NaValues>,
    /// Per-row sample weights (`None`: every row weighs 1, the unweighted code paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    weights: Option<Vec<f64>>,
}

fn next_uid() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl PartialEq for Dataset {
    fn eq(&self, other: &Self) -> bool {
        self.x == other.x
            && self.n_rows == other.n_rows
            && self.feature_names == other.feature_names
            && self.target == other.target
            && self.target_name == other.target_name
            && self.levels == other.levels
            && self.weights == other.weights
    }
}

impl Dataset {
    /// Builds a data set from a row-major matrix.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] on inconsistent sizes or no rows, [`Error::NonFinite`] on a
    /// NaN or infinite feature or target value.
    ///
    /// ```
    /// use agghoo::data::{Dataset, Target};
    /// let d = Dataset::new(vec![1.0, 2.0, 3.0, 4.0], vec!["a".into(), "b".into()],
    ///                      Target::Real(vec![0.5, 1.5]), "y")?;
    /// assert_eq!(d.n_rows(), 2);
    /// assert_eq!(d.row(1), &[3.0, 4.0]);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    pub fn new(x: Vec<f64>, feature_names: Vec<String>, target: Target, target_name: impl Into<String>) -> Result<Self> {
        let d = Self::new_with_missing(x, feature_names, target, target_name)?;
        d.refuse_missing()?;
        Ok(d)
    }

    /// Refuses a missing feature value (NaN, numeric or categorical) as [`Dataset::new`] refuses a
    /// NaN, naming its row and column: the data of a caller whose missing-value policy does not
    /// impute.
    ///
    /// # Errors
    /// [`Error::NonFinite`] for the first missing value.
    pub fn refuse_missing(&self) -> Result<()> {
        let p = self.n_features().max(1);
        match self.x.iter().position(|v| v.is_nan()) {
            Some(i) => Err(Error::NonFinite { row: i / p, column: self.feature_names[i % p].clone(), value: self.x[i] }),
            None => Ok(()),
        }
    }

    /// Like [`Dataset::new`] but NaN features are allowed and mean "missing" (infinities are not).
    /// Such a data set must go through a [`Transform`](crate::data::Transform) that imputes them
    /// before a family sees it.
    ///
    /// # Errors
    /// As [`Dataset::new`], except for NaN features.
    pub fn new_with_missing(x: Vec<f64>, feature_names: Vec<String>, target: Target, target_name: impl Into<String>) -> Result<Self> {
        let n_rows = target.len();
        let p = feature_names.len();
        if n_rows == 0 {
            return Err(Error::TooFewRows { what: "a data set".into(), needed: 1, found: 0 });
        }
        if x.len() != n_rows * p {
            return Err(Error::invalid("x", "of length n_rows × n_features", format!("{} for {} × {}", x.len(), n_rows, p)));
        }
        let target_name = target_name.into();
        let mut has_missing = false;
        for (i, &v) in x.iter().enumerate() {
            if v.is_nan() {
                has_missing = true;
            } else if v.is_infinite() {
                return Err(Error::NonFinite { row: i / p, column: feature_names[i % p].clone(), value: v });
            }
        }
        match &target {
            Target::Real(y) => {
                if let Some(i) = y.iter().position(|v| !v.is_finite()) {
                    return Err(Error::NonFinite { row: i, column: target_name, value: y[i] });
                }
            }
            Target::Classes { labels, names } => {
                if let Some(i) = labels.iter().position(|&l| l as usize >= names.len()) {
                    return Err(Error::invalid("labels", "class indices below the number of class names", labels[i]));
                }
            }
        }
        Ok(Self {
            uid: next_uid(),
            x,
            n_rows,
            feature_names,
            target,
            target_name,
            has_missing,
            levels: Vec::new(),
            na_values: None,
            weights: None,
        })
    }

    /// The data set with categorical columns: `levels[j]` names the levels of column `j` (whose
    /// values are then codes `0..levels.len()`, NaN when missing), `None` keeps it numeric. Most
    /// callers read text instead: [`read_csv`](crate::data::read_csv) or
    /// [`Dataset::with_text_columns`].
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `levels` is not one entry per feature, or a value of a
    /// categorical column is not one of its codes.
    pub fn with_levels(mut self, levels: Vec<Option<Vec<String>>>) -> Result<Self> {
        let p = self.n_features();
        if levels.len() != p {
            return Err(Error::invalid("levels", "one entry per feature", levels.len()));
        }
        for (j, names) in levels.iter().enumerate() {
            let Some(names) = names else { continue };
            let k = names.len() as f64;
            if let Some(i) = (0..self.n_rows).find(|&i| {
                let v = self.x[i * p + j];
                !(v.is_nan() || (v >= 0.0 && v < k && v.fract() == 0.0))
            }) {
                return Err(Error::invalid(
                    "levels",
                    "level codes in each categorical column",
                    format!("{} in column `{}`", self.x[i * p + j], self.feature_names[j]),
                ));
            }
        }
        self.levels = if levels.iter().any(Option::is_some) { levels } else { Vec::new() };
        self.has_missing = self.numeric_nan();
        self.uid = next_uid();
        Ok(self)
    }

    /// The data set with the given columns replaced by categorical columns of text (`None` is
    /// missing), their level names as [`level_name`](crate::data::level_name) spells them. The
    /// Python binding's entry point for data frames with text columns.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a column index out of range or a column of another length;
    /// [`Error::ResourceLimit`] beyond the level limit.
    pub fn with_text_columns(mut self, columns: &[(usize, Vec<Option<String>>)]) -> Result<Self> {
        let p = self.n_features();
        let mut levels = if self.levels.is_empty() { vec![None; p] } else { std::mem::take(&mut self.levels) };
        for (j, text) in columns {
            let j = *j;
            if j >= p || text.len() != self.n_rows {
                return Err(Error::invalid(
                    "categorical column",
                    "a feature index with one value per row",
                    format!("column {j} of {p}, {} values for {} rows", text.len(), self.n_rows),
                ));
            }
            let (codes, names) = super::categorical::codes_of_text(text.iter().map(Option::as_deref), &self.feature_names[j])?;
            for (i, c) in codes.into_iter().enumerate() {
                self.x[i * p + j] = c;
            }
            levels[j] = Some(names);
        }
        self.with_levels(levels)
    }

    /// The data set recording the missing-value tokens it was read with.
    pub fn with_na_values(mut self, na_values: super::na::NaValues) -> Self {
        self.na_values = Some(na_values);
        self
    }

    /// The data set with per-row sample weights: `weights[i]` is how much row `i` counts in a
    /// fit (a family that honours weights: [`FamilyInfo::sample_weight`](crate::family::FamilyInfo))
    /// and in a validation risk (`Σ wᵢ Lᵢ / Σ wᵢ`). Weights are relative: an integer weight `k`
    /// counts as the row repeated `k` times, weight 0 as the row left out.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless there is one weight per row, for a negative weight
    /// (naming its row) or when every weight is 0; [`Error::NonFinite`] naming the row of a NaN
    /// or infinite weight.
    ///
    /// ```
    /// use agghoo::data::{Dataset, Target};
    /// let d = Dataset::new(vec![1.0, 2.0, 3.0], vec!["a".into()], Target::Real(vec![0.5, 1.5, 2.0]), "y")?;
    /// let w = d.clone().with_weights(vec![1.0, 0.0, 2.5])?;
    /// assert_eq!(w.weights(), Some(&[1.0, 0.0, 2.5][..]));
    /// assert_eq!(w.view(&[2, 0]).weight(0), 2.5);
    /// assert!(d.clone().with_weights(vec![1.0, -1.0, 1.0]).unwrap_err().to_string().contains("row 1"));
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    pub fn with_weights(mut self, weights: Vec<f64>) -> Result<Self> {
        if weights.len() != self.n_rows {
            return Err(Error::invalid(
                "sample_weight",
                "one weight per row",
                format!("{} weights for {} rows", weights.len(), self.n_rows),
            ));
        }
        if let Some(i) = weights.iter().position(|w| !w.is_finite()) {
            return Err(Error::NonFinite { row: i, column: "sample_weight".into(), value: weights[i] });
        }
        if let Some(i) = weights.iter().position(|&w| w < 0.0) {
            return Err(Error::invalid("sample_weight", "non-negative weights", format!("{} at row {i}", weights[i])));
        }
        if weights.iter().all(|&w| w == 0.0) {
            return Err(Error::invalid("sample_weight", "at least one positive weight", "every weight is 0"));
        }
        self.weights = Some(weights);
        self.uid = next_uid();
        Ok(self)
    }

    /// The per-row sample weights, `None` when the data are unweighted.
    pub fn weights(&self) -> Option<&[f64]> {
        self.weights.as_deref()
    }

    /// The weights of `rows` (in that order), `None` when the data are unweighted.
    fn weights_of(&self, rows: &[usize]) -> Option<Vec<f64>> {
        self.weights.as_ref().map(|w| rows.iter().map(|&i| w[i]).collect())
    }

    /// Refuses weighted data where `what` (a procedure) does not read sample weights, so that
    /// weights are never silently ignored.
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming `sample_weight` and `what`.
    pub fn check_unweighted(&self, what: &str) -> Result<()> {
        if self.weights.is_some() {
            return Err(Error::Unsupported {
                what: format!("sample_weight in {what}"),
                reason: "it does not read per-row weights; leave the weights out".into(),
            });
        }
        Ok(())
    }

    /// The missing-value tokens the data were read with (`None` when not read from text).
    pub fn na_values(&self) -> Option<&super::na::NaValues> {
        self.na_values.as_ref()
    }

    /// True when some feature, numeric or categorical, is missing (NaN).
    pub fn has_missing_values(&self) -> bool {
        self.has_missing || (self.has_categorical() && self.x.iter().any(|v| v.is_nan()))
    }

    /// True when some numeric feature is NaN.
    fn numeric_nan(&self) -> bool {
        if self.levels.is_empty() {
            return self.x.iter().any(|v| v.is_nan());
        }
        let p = self.n_features().max(1);
        self.x.iter().enumerate().any(|(i, v)| v.is_nan() && self.levels(i % p).is_none())
    }

    /// The level names of feature `j` when it is categorical.
    pub fn levels(&self, j: usize) -> Option<&[String]> {
        self.levels.get(j).and_then(Option::as_deref)
    }
    /// True when some feature is categorical.
    pub fn has_categorical(&self) -> bool {
        !self.levels.is_empty()
    }
    /// The names of the categorical features, in column order.
    pub fn categorical_names(&self) -> Vec<String> {
        (0..self.n_features()).filter(|&j| self.levels(j).is_some()).map(|j| self.feature_names[j].clone()).collect()
    }
    /// Refuses categorical columns where `what` (a procedure) reads features as numbers only.
    ///
    /// # Errors
    /// [`Error::Unsupported`] naming the categorical columns.
    pub fn check_numeric(&self, what: &str) -> Result<()> {
        if self.has_categorical() {
            return Err(Error::Unsupported {
                what: format!("categorical columns ({}) in {what}", self.categorical_names().join(", ")),
                reason: "it reads features as numbers; leave the columns out with --ignore, or encode them as numbers".into(),
            });
        }
        Ok(())
    }

    /// An identity of the contents (equal for clones, fresh for every new or transformed data
    /// set); caches keyed by it never serve another data set.
    pub fn uid(&self) -> u64 {
        self.uid
    }
    /// Number of rows (n).
    pub fn n_rows(&self) -> usize {
        self.n_rows
    }
    /// Number of features (d).
    pub fn n_features(&self) -> usize {
        self.feature_names.len()
    }
    /// Feature names in column order.
    pub fn feature_names(&self) -> &[String] {
        &self.feature_names
    }
    /// The target.
    pub fn target(&self) -> &Target {
        &self.target
    }
    /// The target column's name.
    pub fn target_name(&self) -> &str {
        &self.target_name
    }
    /// The task defined by the target.
    pub fn task(&self) -> Task {
        self.target.task()
    }
    /// True when some features are NaN (missing, to be imputed per fold).
    pub fn has_missing(&self) -> bool {
        self.has_missing
    }
    /// The row-major feature matrix.
    pub fn x(&self) -> &[f64] {
        &self.x
    }
    /// Features of row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        let p = self.n_features();
        &self.x[i * p..(i + 1) * p]
    }
    /// A view of the given rows (which may repeat, as in a bootstrap resample).
    pub fn view<'a>(&'a self, rows: &'a [usize]) -> View<'a> {
        View { data: self, rows: std::borrow::Cow::Borrowed(rows), par: Par::pool() }
    }
    /// A view of every row, in order.
    pub fn all(&self) -> View<'_> {
        View { data: self, rows: std::borrow::Cow::Owned((0..self.n_rows).collect()), par: Par::pool() }
    }
    /// A new data set holding only the given columns (by index), in that order.
    pub fn select_columns(&self, columns: &[usize]) -> Result<Dataset> {
        let p = self.n_features();
        if let Some(&c) = columns.iter().find(|&&c| c >= p) {
            return Err(Error::invalid("column", "an existing feature index", c));
        }
        let mut x = Vec::with_capacity(self.n_rows * columns.len());
        for i in 0..self.n_rows {
            let r = self.row(i);
            x.extend(columns.iter().map(|&c| r[c]));
        }
        let names = columns.iter().map(|&c| self.feature_names[c].clone()).collect();
        let mut data = Dataset::new_with_missing(x, names, self.target.clone(), self.target_name.clone())?;
        data.weights = self.weights.clone();
        if !self.has_categorical() {
            return Ok(data);
        }
        data.with_levels(columns.iter().map(|&c| self.levels(c).map(<[String]>::to_vec)).collect())
    }
    /// A new data set of the given rows (copied), keeping the class names.
    pub fn select_rows(&self, rows: &[usize]) -> Result<Dataset> {
        let mut x = Vec::with_capacity(rows.len() * self.n_features());
        for &i in rows {
            x.extend_from_slice(self.row(i));
        }
        let target = match &self.target {
            Target::Classes { labels, names } => {
                Target::Classes { labels: rows.iter().map(|&i| labels[i]).collect(), names: names.clone() }
            }
            Target::Real(y) => Target::Real(rows.iter().map(|&i| y[i]).collect()),
        };
        let mut data = Dataset::new_with_missing(x, self.feature_names.clone(), target, self.target_name.clone())?;
        data.weights = self.weights_of(rows);
        if self.has_categorical() {
            data.levels = self.levels.clone();
            data.has_missing = data.numeric_nan();
        }
        Ok(data)
    }
    /// Checks that there is at least one feature column.
    ///
    /// # Errors
    /// [`Error::NoFeatures`].
    pub fn check_has_features(&self) -> Result<()> {
        if self.feature_names.is_empty() {
            return Err(Error::NoFeatures {
                source_name: "the data".into(),
                detail: format!("the only column is the target `{}`", self.target_name),
            });
        }
        Ok(())
    }

    /// The data set with its columns checked against a user's request (`source` names the data in
    /// errors): `target`, when given, must
    /// be this data set's target; each name of `ignore` must be a feature, which is dropped. Used
    /// for data whose columns are fixed (generated data), so that a column named by the user is
    /// never silently disregarded.
    ///
    /// # Errors
    /// [`Error::MissingTarget`] and [`Error::MissingColumn`] listing the columns;
    /// [`Error::NoFeatures`] when every feature is ignored.
    pub fn with_columns(self, source: &str, target: Option<&str>, ignore: &[String]) -> Result<Dataset> {
        let columns = || {
            let mut all = self.feature_names.clone();
            all.push(self.target_name.clone());
            all.join(", ")
        };
        if let Some(t) = target.filter(|&t| t != self.target_name) {
            return Err(Error::MissingTarget { name: t.to_string(), available: columns() });
        }
        if ignore.is_empty() {
            return Ok(self);
        }
        let mut keep: Vec<bool> = vec![true; self.n_features()];
        for name in ignore {
            if *name == self.target_name {
                return Err(Error::invalid("ignore", "a feature column (the target cannot be ignored)", name));
            }
            let j = self
                .feature_names
                .iter()
                .position(|f| f == name)
                .ok_or_else(|| Error::MissingColumn { name: name.clone(), available: columns() })?;
            keep[j] = false;
        }
        let kept: Vec<usize> = (0..keep.len()).filter(|&j| keep[j]).collect();
        if kept.is_empty() {
            return Err(Error::NoFeatures {
                source_name: source.into(),
                detail: format!("every feature is ignored; the columns are {}", columns()),
            });
        }
        self.select_columns(&kept)
    }

    /// Replaces the feature matrix (same shape), used by per-fold transforms.
    pub(crate) fn with_x(&self, x: Vec<f64>) -> Dataset {
        debug_assert_eq!(x.len(), self.x.len());
        let data = Dataset { uid: next_uid(), x, has_missing: false, ..self.clone() };
        Dataset { has_missing: data.numeric_nan(), ..data }
    }

    /// Replaces the features (same rows, other columns, all numeric), used by the categorical
    /// encoding.
    pub(crate) fn with_features(&self, x: Vec<f64>, feature_names: Vec<String>) -> Result<Dataset> {
        let data = Dataset::new_with_missing(x, feature_names, self.target.clone(), self.target_name.clone())?;
        Ok(Dataset { weights: self.weights.clone(), ..data })
    }
    /// Checks that the data are usable for learning: at least one feature column, a target that
    /// is not constant (at least two classes).
    ///
    /// # Errors
    /// [`Error::NoFeatures`], [`Error::ConstantTarget`].
    pub fn check_learnable(&self) -> Result<()> {
        self.check_has_features()?;
        match &self.target {
            Target::Classes { labels, names } => {
                if labels.iter().all(|&l| l == labels[0]) {
                    return Err(Error::ConstantTarget { name: self.target_name.clone(), value: names[labels[0] as usize].clone() });
                }
            }
            Target::Real(y) => {
                if y.iter().all(|&v| v == y[0]) {
                    return Err(Error::ConstantTarget { name: self.target_name.clone(), value: y[0].to_string() });
                }
            }
        }
        Ok(())
    }
}

/// Rows of a [`Dataset`] by index: what a learner trains on or predicts for, with the
/// parallelism its kernels may use on them ([`View::par`]).
#[derive(Clone, Debug)]
pub struct View<'a> {
    data: &'a Dataset,
    rows: std::borrow::Cow<'a, [usize]>,
    par: Par,
}

impl<'a> View<'a> {
    /// The underlying data set.
    pub fn data(&self) -> &'a Dataset {
        self.data
    }
    /// Row indices into the data set.
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }
    /// The parallelism a fit or prediction on these rows may use: the whole pool for a view
    /// made by [`Dataset::view`] or [`Dataset::all`], what the executor gave the unit for the
    /// views of a split it evaluates ([`Executor::par`](crate::engine::Executor::par)). A
    /// sub-view keeps it.
    pub fn par(&self) -> Par {
        self.par
    }
    /// The same rows with parallelism `par`.
    #[must_use]
    pub fn with_par(mut self, par: Par) -> Self {
        self.par = par;
        self
    }
    /// Number of rows in the view.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// True when the view has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// Number of features.
    pub fn n_features(&self) -> usize {
        self.data.n_features()
    }
    /// Features of the view's `i`-th row.
    pub fn x(&self, i: usize) -> &'a [f64] {
        self.data.row(self.rows[i])
    }
    /// Target of the view's `i`-th row as a real number (class index for classification).
    pub fn y(&self, i: usize) -> f64 {
        self.data.target().value(self.rows[i])
    }
    /// Class index of the view's `i`-th row.
    ///
    /// # Panics
    /// Never on classification data; on regression data returns the value truncated, so callers
    /// check the task first (families do, in `fit`).
    pub fn class(&self, i: usize) -> u32 {
        match self.data.target() {
            Target::Classes { labels, .. } => labels[self.rows[i]],
            Target::Real(y) => y[self.rows[i]] as u32,
        }
    }
    /// Number of classes of the underlying data set (0 for regression).
    pub fn n_classes(&self) -> usize {
        self.data.target().n_classes()
    }
    /// The task.
    pub fn task(&self) -> Task {
        self.data.task()
    }
    /// True when the underlying data set has sample weights.
    pub fn is_weighted(&self) -> bool {
        self.data.weights.is_some()
    }
    /// Sample weight of the view's `i`-th row (1 when the data are unweighted).
    pub fn weight(&self, i: usize) -> f64 {
        self.data.weights.as_ref().map_or(1.0, |w| w[self.rows[i]])
    }
    /// The view's sample weights in view order, `None` when the data are unweighted.
    pub fn weights(&self) -> Option<Vec<f64>> {
        self.data.weights_of(&self.rows)
    }
    /// The view's sample weights in view order, `None` when the data are unweighted or every
    /// weight is 1: unit weights are no weights, so a fit takes the unweighted code path and
    /// gives the same bits.
    pub fn non_unit_weights(&self) -> Option<Vec<f64>> {
        self.weights().filter(|w| w.iter().any(|&v| v != 1.0))
    }
    /// Gathers the view's rows into a contiguous row-major matrix.
    pub fn gather_x(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(self.len() * self.n_features());
        for i in 0..self.len() {
            out.extend_from_slice(self.x(i));
        }
        out
    }
    /// The view's targets as reals.
    pub fn gather_y(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.y(i)).collect()
    }
    /// A sub-view: the rows at the given positions *of this view*.
    pub fn subview(&self, positions: &[usize]) -> View<'a> {
        View { data: self.data, rows: std::borrow::Cow::Owned(positions.iter().map(|&p| self.rows[p]).collect()), par: self.par }
    }
    /// An owned view over explicit dataset rows.
    pub fn from_rows(data: &'a Dataset, rows: Vec<usize>) -> View<'a> {
        View { data, rows: std::borrow::Cow::Owned(rows), par: Par::pool() }
    }
}
