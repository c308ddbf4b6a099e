//! Filters: scores computed without training a learner (`docs/PROCEDURES.md` § Filters).
//!
//! - **Absolute Pearson correlation** with the target, `|r(x_j, y)|`. A regression target and a
//!   binary class index (0/1) are used as they are. A multi-class target has no meaningful
//!   numeric coding, so (as Hall 1999 does for CFS) the score is the class-frequency-weighted
//!   mean of the correlations with the class indicators: `r_cf = Σ_c p_c |r(x_j, 1{y = c})|`.
//!   For two classes both indicators have the same `|r|` as the 0/1 index, so the two rules agree.
//! - **CFS merit** of a subset S of k features, `J(S) = k·r̄_cf / sqrt(k + k(k−1)·r̄_ff)`, where
//!   `r̄_cf` is the mean feature–target score above and `r̄_ff` the mean absolute Pearson
//!   correlation over the `k(k−1)/2` feature pairs. With the sums `Σ_cf = k·r̄_cf` and
//!   `Σ_ff = k(k−1)/2 · r̄_ff` this is `Σ_cf / sqrt(k + 2·Σ_ff)`, which is what [`CfsScorer`]
//!   updates incrementally: adding or removing feature j changes `Σ_ff` by `Σ_{i∈S} |r_ij|`, an
//!   O(|S|) ≤ O(d) update from cached correlation rows. Rows `|r_i·|` are computed once, lazily,
//!   when feature i first enters a subset (O(n·d) each), so a forward search to k features costs
//!   O(k·n·d) for correlations instead of the O(n·d²) of the full matrix.
//! - **Mutual information** (nats), by the kind of the two variables:
//!   continuous feature and continuous target: the Kraskov–Stögbauer–Grassberger estimator
//!   (algorithm 1, max-norm, both variables scaled to unit standard deviation)
//!   `I = ψ(n) + ψ(k) − ⟨ψ(n_x + 1) + ψ(n_y + 1)⟩`;
//!   one continuous and one discrete variable: Ross (2014)
//!   `I = ψ(n) − ⟨ψ(N_c)⟩ + ψ(k) − ⟨ψ(m)⟩` (points of singleton classes ignored, k reduced to
//!   `N_c − 1` for small classes); two discrete variables: the plug-in estimate
//!   `Σ p̂(a,b) ln(p̂(a,b) / (p̂(a) p̂(b)))`. Negative k-NN estimates are clipped to 0. These are
//!   scikit-learn's `mutual_info_*` definitions (without its 1e-10 jitter, so results are
//!   deterministic); the test file checks them against values computed by scikit-learn.
//!   Neighbour counts in one dimension use sorted arrays and binary search (O(n log n) per
//!   feature); the k-th neighbour in the (x, y) plane is found by a window expanding in x order.
//!
//! Categorical columns (module [`features`](crate::features) § Categorical columns) are nominal
//! variables with their missing values as a level of their own: the Pearson filter and CFS use
//! Hall's (1999) weighted indicator correlations (`Σ_k p_k |r(1{X = k}, Y)|` with a numeric
//! variable, `Σ_k Σ_l p_kl |r(1{X = k}, 1{Z = l})|` with a nominal one, a multi-class target
//! included), computed from level counts and sums; the mutual-information filter reads them as
//! discrete.

use std::collections::BinaryHeap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::{Change, Scorer, SkippedFeature, SubsetScore, constant_columns, impute_own_medians};
use crate::data::{Dataset, Target};
use crate::engine::{Executor, Rayon, map_ordered};
use crate::error::{Error, Result};

/// Whether a feature is treated as continuous or discrete by the mutual-information filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Discreteness {
    /// Every feature is continuous (k-NN estimators).
    #[default]
    Continuous,
    /// Every feature is discrete (its distinct values are the levels).
    Discrete,
    /// A feature is discrete when all its values are integers and it has at most 10 levels.
    Auto,
}

/// A univariate filter.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "filter", rename_all = "snake_case")]
pub enum Filter {
    /// Absolute Pearson correlation with the target (class-weighted for multi-class).
    Pearson,
    /// Mutual information with the target (k-NN estimators, plug-in for discrete pairs).
    MutualInformation {
        /// Neighbours k of the estimators (3 is scikit-learn's default).
        n_neighbors: usize,
        /// Which features are discrete.
        discreteness: Discreteness,
    },
}

/// One feature's filter score.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FeatureScore {
    /// Column index.
    pub index: usize,
    /// Column name.
    pub name: String,
    /// The score (higher is more relevant).
    pub score: f64,
}

/// A filter's ranking.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FilterReport {
    /// The filter.
    pub filter: Filter,
    /// Usable features by decreasing score (ties: lower column index first).
    pub ranking: Vec<FeatureScore>,
    /// Features not scored (constant), with the reason.
    pub skipped: Vec<SkippedFeature>,
}

/// Scores every non-constant feature of `data` with `filter` and ranks them.
///
/// ```
/// use agghoo::data::{Dataset, Target};
/// use agghoo::features::{Filter, rank_features};
/// let x = vec![1.0, 5.0, 0.0,   2.0, 5.0, 1.0,   3.0, 5.0, 0.0,   4.0, 5.0, 1.0];
/// let names = vec!["a".into(), "const".into(), "c".into()];
/// let data = Dataset::new(x, names, Target::Real(vec![1.0, 2.0, 3.0, 4.0]), "y")?;
/// let report = rank_features(&data, &Filter::Pearson)?;
/// assert_eq!(report.ranking[0].name, "a");
/// assert!((report.ranking[0].score - 1.0).abs() < 1e-12);
/// assert_eq!(report.skipped[0].name, "const"); // noted, never NaN
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// Missing values (NaN) are first imputed with the medians of `data`'s rows (module
/// [`features`](crate::features)).
///
/// # Errors
/// [`Error::ConstantTarget`]; [`Error::InvalidParameter`] for k = 0 neighbours.
pub fn rank_features(data: &Dataset, filter: &Filter) -> Result<FilterReport> {
    rank_features_with(data, filter, &Rayon)
}

/// As [`rank_features`], each column's score a unit of `executor`.
///
/// # Errors
/// As [`rank_features`].
pub fn rank_features_with(data: &Dataset, filter: &Filter, executor: &dyn Executor) -> Result<FilterReport> {
    data.check_unweighted("feature selection")?;
    data.check_learnable()?;
    let data = &*impute_own_medians(data)?;
    let skipped = constant_columns(data);
    let usable: Vec<usize> = (0..data.n_features()).filter(|j| !skipped.iter().any(|s| s.index == *j)).collect();
    let scores: Vec<f64> = match *filter {
        Filter::Pearson => {
            let target = TargetScore::new(data.target());
            map_ordered(executor, usable.len(), |i| Ok(Variable::of(data, usable[i]).map_or(0.0, |v| target.score(&v))))?
        }
        Filter::MutualInformation { n_neighbors, discreteness } => map_ordered(executor, usable.len(), |i| {
            if data.levels(usable[i]).is_some() {
                let codes = nominal_codes(data, usable[i]);
                let x: Vec<f64> = codes.iter().map(|&c| f64::from(c)).collect();
                return mutual_information(&x, data.target(), n_neighbors, true);
            }
            let x = column(data, usable[i]);
            let discrete = match discreteness {
                Discreteness::Continuous => false,
                Discreteness::Discrete => true,
                Discreteness::Auto => looks_discrete(&x),
            };
            mutual_information(&x, data.target(), n_neighbors, discrete)
        })?,
    };
    let mut ranking: Vec<FeatureScore> =
        usable.iter().zip(scores).map(|(&index, score)| FeatureScore { index, name: data.feature_names()[index].clone(), score }).collect();
    ranking.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    Ok(FilterReport { filter: *filter, ranking, skipped })
}

/// CFS merit `J(S) = k·r̄_cf / sqrt(k + k(k−1)·r̄_ff)` (Hall 1999) from its three ingredients.
///
/// ```
/// // two features, each correlated 0.8 with the target and 0.5 with each other
/// let j = agghoo::features::cfs_merit(2, 0.8, 0.5);
/// assert!((j - 1.6 / 3f64.sqrt()).abs() < 1e-15);
/// ```
pub fn cfs_merit(k: usize, mean_feature_target: f64, mean_feature_feature: f64) -> f64 {
    let k = k as f64;
    k * mean_feature_target / (k + k * (k - 1.0) * mean_feature_feature).sqrt()
}

/// The CFS subset scorer: score = −J(S), with lazily cached correlation rows.
pub struct CfsScorer {
    names: Vec<String>,
    skipped: Vec<SkippedFeature>,
    /// Every column as a variable (`None` for skipped columns).
    columns: Vec<Option<Variable>>,
    /// Feature–target scores r_cf (0 for skipped columns).
    relevance: Vec<f64>,
    /// Row i: |r(x_i, x_j)| for every j, computed when first needed.
    rows: Vec<OnceLock<Vec<f64>>>,
}

impl CfsScorer {
    /// Prepares the scorer: standardises every column and computes the feature–target scores;
    /// missing values are first imputed with the medians of `data`'s rows.
    ///
    /// # Errors
    /// [`Error::ConstantTarget`].
    pub fn new(data: &Dataset) -> Result<Self> {
        Self::new_with(data, &Rayon)
    }

    /// As [`CfsScorer::new`], each column's standardisation a unit of `executor`.
    ///
    /// # Errors
    /// As [`CfsScorer::new`].
    pub fn new_with(data: &Dataset, executor: &dyn Executor) -> Result<Self> {
        data.check_learnable()?;
        let data = &*impute_own_medians(data)?;
        let skipped = constant_columns(data);
        let target = TargetScore::new(data.target());
        let d = data.n_features();
        let columns: Vec<Option<Variable>> =
            map_ordered(executor, d, |j| Ok(if skipped.iter().any(|s| s.index == j) { None } else { Variable::of(data, j) }))?;
        let relevance = columns.iter().map(|c| c.as_ref().map_or(0.0, |v| target.score(v))).collect();
        Ok(Self { names: data.feature_names().to_vec(), skipped, columns, relevance, rows: (0..d).map(|_| OnceLock::new()).collect() })
    }

    /// The feature–target scores `r_cf` of every column (0 for skipped ones).
    pub fn relevance(&self) -> &[f64] {
        &self.relevance
    }

    /// `|r(x_i, x_j)|` (0 when either column is skipped).
    pub fn correlation(&self, i: usize, j: usize) -> f64 {
        self.row(i).get(j).copied().unwrap_or(0.0)
    }

    /// The merit J(S) of a subset.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty subset or a skipped / out-of-range column.
    pub fn merit(&self, subset: &[usize]) -> Result<f64> {
        Ok(-self.score(subset, &Rayon)?.value)
    }

    fn row(&self, i: usize) -> &[f64] {
        self.rows[i].get_or_init(|| {
            let ci = &self.columns[i];
            self.columns
                .iter()
                .map(|cj| match (ci, cj) {
                    (Some(a), Some(b)) => a.correlation(b),
                    _ => 0.0,
                })
                .collect()
        })
    }

    fn check(&self, subset: &[usize]) -> Result<()> {
        if subset.is_empty() {
            return Err(Error::invalid("subset", "at least one feature", "an empty subset"));
        }
        if let Some(&j) = subset.iter().find(|&&j| j >= self.names.len() || self.columns[j].is_none()) {
            return Err(Error::invalid("subset", "usable (existing, non-constant) features", j));
        }
        Ok(())
    }

    /// `(Σ_cf, Σ_ff)` of a subset, its missing correlation rows computed as units of `executor`.
    fn sums(&self, subset: &[usize], executor: &dyn Executor) -> (f64, f64) {
        executor.for_each(subset.len(), &|a| {
            self.row(subset[a]);
        });
        let cf = subset.iter().map(|&i| self.relevance[i]).sum();
        let mut ff = 0.0;
        for (a, &i) in subset.iter().enumerate() {
            let row = self.row(i);
            ff += subset[a + 1..].iter().map(|&j| row[j]).sum::<f64>();
        }
        (cf, ff)
    }
}

fn merit_from_sums(k: usize, cf: f64, ff: f64) -> SubsetScore {
    // Σ_ff ≥ 0, so the root is at least √k > 0: never NaN.
    SubsetScore { value: -(cf / (k as f64 + 2.0 * ff).sqrt()), standard_error: 0.0 }
}

impl Scorer for CfsScorer {
    fn describe(&self) -> String {
        "cfs".into()
    }
    fn feature_names(&self) -> &[String] {
        &self.names
    }
    fn skipped(&self) -> &[SkippedFeature] {
        &self.skipped
    }
    fn score(&self, subset: &[usize], executor: &dyn Executor) -> Result<SubsetScore> {
        self.check(subset)?;
        let (cf, ff) = self.sums(subset, executor);
        Ok(merit_from_sums(subset.len(), cf, ff))
    }
    fn score_changes(&self, base: &[usize], change: Change, candidates: &[usize], executor: &dyn Executor) -> Result<Vec<SubsetScore>> {
        if !base.is_empty() {
            self.check(base)?;
        }
        if !candidates.is_empty() {
            self.check(candidates)?;
        }
        let (cf, ff) = self.sums(base, executor);
        let k = base.len();
        let rows: Vec<&[f64]> = base.iter().map(|&i| self.row(i)).collect();
        map_ordered(executor, candidates.len(), |c| {
            let j = candidates[c];
            let link: f64 = base.iter().zip(&rows).filter(|(i, _)| **i != j).map(|(_, r)| r[j]).sum();
            match change {
                Change::Add => Ok(merit_from_sums(k + 1, cf + self.relevance[j], ff + link)),
                Change::Remove if k >= 2 => Ok(merit_from_sums(k - 1, cf - self.relevance[j], (ff - link).max(0.0))),
                Change::Remove => Err(Error::invalid("subset", "at least one feature", "an empty subset")),
            }
        })
    }
}

/// One column as the correlation filters read it.
enum Variable {
    /// A numeric column, standardised: `(v − mean) / ‖v − mean‖`.
    Numeric(Vec<f64>),
    /// A nominal column (a categorical feature, a multi-class target).
    Nominal(Nominal),
}

/// A nominal variable: the level code of every row, and each level's count.
struct Nominal {
    codes: Vec<u32>,
    counts: Vec<f64>,
}

impl Nominal {
    fn new(codes: Vec<u32>) -> Self {
        let mut counts = vec![0.0; codes.iter().max().map_or(0, |&m| m as usize + 1)];
        for &c in &codes {
            counts[c as usize] += 1.0;
        }
        Self { codes, counts }
    }

    /// `p_k (1 − p_k)`, the variance of the indicator of level k (0 for an absent or sole level).
    fn variance(&self, k: usize) -> f64 {
        let p = self.counts[k] / self.codes.len() as f64;
        p * (1.0 - p)
    }

    /// Hall's `Σ_k p_k |r(1{X = k}, x)|` with a standardised numeric `x` (zero mean, unit norm):
    /// `r(1{X = k}, x) = Σ_{i: X_i = k} x_i / sqrt(n p_k (1 − p_k))`.
    fn with_numeric(&self, x: &[f64]) -> f64 {
        let n = self.codes.len() as f64;
        let mut sums = vec![0.0; self.counts.len()];
        for (&c, &v) in self.codes.iter().zip(x) {
            sums[c as usize] += v;
        }
        (0..self.counts.len())
            .filter(|&k| self.variance(k) > 0.0)
            .map(|k| self.counts[k] / n * (sums[k] / (n * self.variance(k)).sqrt()).abs().min(1.0))
            .sum()
    }

    /// Hall's `Σ_k Σ_l p_kl |r(1{X = k}, 1{Z = l})|`, with
    /// `r = (p_kl − p_k p_l) / sqrt(p_k (1 − p_k) p_l (1 − p_l))`.
    fn with_nominal(&self, other: &Nominal) -> f64 {
        let n = self.codes.len() as f64;
        let width = other.counts.len();
        let mut joint = vec![0.0; self.counts.len() * width];
        for (&a, &b) in self.codes.iter().zip(&other.codes) {
            joint[a as usize * width + b as usize] += 1.0;
        }
        let mut total = 0.0;
        for k in (0..self.counts.len()).filter(|&k| self.variance(k) > 0.0) {
            for l in (0..width).filter(|&l| other.variance(l) > 0.0) {
                let p_kl = joint[k * width + l] / n;
                if p_kl > 0.0 {
                    let p_k = self.counts[k] / n;
                    let p_l = other.counts[l] / n;
                    total += p_kl * ((p_kl - p_k * p_l) / (self.variance(k) * other.variance(l)).sqrt()).abs().min(1.0);
                }
            }
        }
        total
    }
}

impl Variable {
    /// Column `j` of `data`: nominal when categorical, else standardised (`None` when constant).
    fn of(data: &Dataset, j: usize) -> Option<Self> {
        if data.levels(j).is_some() {
            return Some(Self::Nominal(Nominal::new(nominal_codes(data, j))));
        }
        standardized(&column(data, j)).map(Self::Numeric)
    }

    /// The absolute correlation of two variables: Pearson's for two numeric ones, Hall's weighted
    /// indicator correlations when one is nominal (module docs).
    fn correlation(&self, other: &Variable) -> f64 {
        match (self, other) {
            (Self::Numeric(a), Self::Numeric(b)) => dot(a, b).abs().min(1.0),
            (Self::Nominal(a), Self::Numeric(x)) | (Self::Numeric(x), Self::Nominal(a)) => a.with_numeric(x),
            (Self::Nominal(a), Self::Nominal(b)) => a.with_nominal(b),
        }
    }
}

/// The codes of categorical column `j`, a missing value the code after the last level.
fn nominal_codes(data: &Dataset, j: usize) -> Vec<u32> {
    let missing = data.levels(j).map_or(0, <[String]>::len) as u32;
    column(data, j).iter().map(|&c| if c.is_nan() { missing } else { c as u32 }).collect()
}

/// Feature–target scores `r_cf`: numeric features against the standardised target vectors
/// ([`target_vectors`]), categorical ones by Hall's rule against the target read as a variable
/// (nominal for a multi-class target).
struct TargetScore {
    vectors: Vec<(f64, Vec<f64>)>,
    variable: Option<Variable>,
}

impl TargetScore {
    fn new(target: &Target) -> Self {
        let variable = match target {
            Target::Classes { labels, names } if names.len() > 2 => Some(Variable::Nominal(Nominal::new(labels.clone()))),
            _ => standardized(&(0..target.len()).map(|i| target.value(i)).collect::<Vec<_>>()).map(Variable::Numeric),
        };
        Self { vectors: target_vectors(target), variable }
    }

    fn score(&self, feature: &Variable) -> f64 {
        match (feature, &self.variable) {
            (Variable::Numeric(c), _) => target_score(c, &self.vectors),
            (nominal, Some(target)) => nominal.correlation(target),
            (_, None) => 0.0,
        }
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn column(data: &Dataset, j: usize) -> Vec<f64> {
    let d = data.n_features();
    data.x().iter().skip(j).step_by(d).copied().collect()
}

/// `(v − mean) / ‖v − mean‖`, or `None` for a constant vector.
fn standardized(v: &[f64]) -> Option<Vec<f64>> {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let centred: Vec<f64> = v.iter().map(|x| x - mean).collect();
    let norm = dot(&centred, &centred).sqrt();
    (norm > 0.0 && norm.is_finite()).then(|| centred.iter().map(|c| c / norm).collect())
}

/// The target as weighted standardised vectors: the value itself (regression, binary), or the
/// class indicators weighted by class frequency (multi-class).
fn target_vectors(target: &Target) -> Vec<(f64, Vec<f64>)> {
    let n = target.len();
    match target {
        Target::Classes { labels, names } if names.len() > 2 => (0..names.len() as u32)
            .filter_map(|c| {
                let indicator: Vec<f64> = labels.iter().map(|&l| f64::from(u8::from(l == c))).collect();
                let p = indicator.iter().sum::<f64>() / n as f64;
                standardized(&indicator).map(|v| (p, v))
            })
            .collect(),
        _ => standardized(&(0..n).map(|i| target.value(i)).collect::<Vec<_>>()).map(|v| vec![(1.0, v)]).unwrap_or_default(),
    }
}

fn target_score(column: &[f64], targets: &[(f64, Vec<f64>)]) -> f64 {
    targets.iter().map(|(w, t)| w * dot(column, t).abs().min(1.0)).sum()
}

fn looks_discrete(x: &[f64]) -> bool {
    if x.iter().any(|v| v.fract() != 0.0) {
        return false;
    }
    let mut levels: Vec<f64> = x.to_vec();
    levels.sort_by(f64::total_cmp);
    levels.dedup();
    levels.len() <= 10
}

/// The digamma function ψ(x) for x > 0 (recurrence to x ≥ 10, then the asymptotic series;
/// absolute error below 1e-13).
///
/// ```
/// let euler = 0.577_215_664_901_532_9;
/// assert!((agghoo::features::digamma(1.0) + euler).abs() < 1e-13);
/// ```
pub fn digamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let inv2 = 1.0 / (x * x);
    let series = inv2 * (1.0 / 12.0 - inv2 * (1.0 / 120.0 - inv2 * (1.0 / 252.0 - inv2 * (1.0 / 240.0 - inv2 / 132.0))));
    acc + x.ln() - 0.5 / x - series
}

/// Mutual information (nats) between one feature `x` and the target, by the estimator that fits
/// the pair (see the module docs). `n_neighbors` is the k of the k-NN estimators.
///
/// # Errors
/// [`Error::InvalidParameter`] for k = 0 or a length mismatch.
pub fn mutual_information(x: &[f64], target: &Target, n_neighbors: usize, feature_is_discrete: bool) -> Result<f64> {
    if n_neighbors == 0 {
        return Err(Error::invalid("neighbors", "at least 1", 0));
    }
    if x.len() != target.len() {
        return Err(Error::invalid("x", "one value per target row", format!("{} values for {} rows", x.len(), target.len())));
    }
    let mi = match (target, feature_is_discrete) {
        (Target::Classes { labels, .. }, true) => mi_discrete(&levels(x), labels),
        (Target::Classes { labels, .. }, false) => mi_continuous_discrete(x, labels, n_neighbors),
        (Target::Real(y), true) => mi_continuous_discrete(y, &levels(x), n_neighbors),
        (Target::Real(y), false) => mi_continuous(x, y, n_neighbors),
    };
    Ok(mi.max(0.0))
}

/// Distinct values of `x` as level codes.
fn levels(x: &[f64]) -> Vec<u32> {
    let mut values: Vec<f64> = x.to_vec();
    values.sort_by(f64::total_cmp);
    values.dedup();
    x.iter().map(|v| values.partition_point(|u| u.total_cmp(v).is_lt()) as u32).collect()
}

fn mi_discrete(a: &[u32], b: &[u32]) -> f64 {
    let n = a.len() as f64;
    let na = a.iter().max().map_or(0, |&m| m as usize + 1);
    let nb = b.iter().max().map_or(0, |&m| m as usize + 1);
    let mut joint = vec![0.0; na * nb];
    let (mut pa, mut pb) = (vec![0.0; na], vec![0.0; nb]);
    for (&i, &j) in a.iter().zip(b) {
        joint[i as usize * nb + j as usize] += 1.0;
        pa[i as usize] += 1.0;
        pb[j as usize] += 1.0;
    }
    let mut mi = 0.0;
    for i in 0..na {
        for j in 0..nb {
            let c = joint[i * nb + j];
            if c > 0.0 {
                mi += c / n * (n * c / (pa[i] * pb[j])).ln();
            }
        }
    }
    mi
}

/// Number of values of the sorted `v` within distance `r` of `c`: `|v − c| < r`, or `v = c`
/// when r = 0 (scikit-learn's `≤ nextafter(r, 0)`).
fn count_within(v: &[f64], c: f64, r: f64) -> usize {
    let inside = |u: f64| (u - c).abs() < r || u == c;
    let left = v.partition_point(|&u| u < c && !inside(u));
    let right = v.partition_point(|&u| u <= c || inside(u));
    right - left
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

fn scaled(v: &[f64]) -> Vec<f64> {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
    if sd > 0.0 { v.iter().map(|x| x / sd).collect() } else { v.to_vec() }
}

/// Kraskov et al. (2004), algorithm 1, both variables one-dimensional.
fn mi_continuous(x: &[f64], y: &[f64], k: usize) -> f64 {
    let n = x.len();
    if n < 2 {
        return 0.0;
    }
    let k = k.min(n - 1);
    let (x, y) = (scaled(x), scaled(y));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]).then(a.cmp(&b)));
    let (xs, ys) = (sorted(&x), sorted(&y));
    let mut total = 0.0;
    let mut heap: BinaryHeap<u64> = BinaryHeap::with_capacity(k + 1);
    for (p, &i) in order.iter().enumerate() {
        heap.clear();
        // Expand a window in x order; max-norm distances ≥ |dx|, so stop once |dx| ≥ k-th best.
        let (mut lo, mut hi) = (p, p + 1);
        loop {
            let left = (lo > 0).then(|| (x[i] - x[order[lo - 1]], order[lo - 1]));
            let right = (hi < n).then(|| (x[order[hi]] - x[i], order[hi]));
            let (dx, j, take_left) = match (left, right) {
                (Some(a), Some(b)) if a.0 <= b.0 => (a.0, a.1, true),
                (_, Some(b)) => (b.0, b.1, false),
                (Some(a), None) => (a.0, a.1, true),
                (None, None) => break,
            };
            if heap.len() == k && heap.peek().is_some_and(|&top| dx.to_bits() >= top) {
                break;
            }
            if take_left {
                lo -= 1;
            } else {
                hi += 1;
            }
            let dist = dx.max((y[i] - y[j]).abs()).to_bits();
            if heap.len() < k {
                heap.push(dist);
            } else if heap.peek().is_some_and(|&top| dist < top) {
                heap.pop();
                heap.push(dist);
            }
        }
        let eps = f64::from_bits(heap.peek().copied().unwrap_or(0));
        let nx = count_within(&xs, x[i], eps) - 1;
        let ny = count_within(&ys, y[i], eps) - 1;
        total += digamma(nx as f64 + 1.0) + digamma(ny as f64 + 1.0);
    }
    digamma(n as f64) + digamma(k as f64) - total / n as f64
}

/// Ross (2014): continuous `c`, discrete `labels`.
fn mi_continuous_discrete(c: &[f64], labels: &[u32], k: usize) -> f64 {
    let n_labels = labels.iter().max().map_or(0, |&m| m as usize + 1);
    let mut by_label: Vec<Vec<f64>> = vec![Vec::new(); n_labels];
    for (&v, &l) in c.iter().zip(labels) {
        by_label[l as usize].push(v);
    }
    for g in &mut by_label {
        g.sort_by(f64::total_cmp);
    }
    let kept: Vec<usize> = (0..c.len()).filter(|&i| by_label[labels[i] as usize].len() > 1).collect();
    if kept.is_empty() {
        return 0.0;
    }
    let all = sorted(&kept.iter().map(|&i| c[i]).collect::<Vec<_>>());
    let mut total = 0.0;
    for &i in &kept {
        let group = &by_label[labels[i] as usize];
        let count = group.len();
        let kk = k.min(count - 1);
        // k-th nearest within the class: merge the two sides of the point's position.
        let p = group.partition_point(|&u| u < c[i]);
        let (mut lo, mut hi) = (p, p + 1);
        let mut radius = 0.0;
        for _ in 0..kk {
            let dl = (lo > 0).then(|| c[i] - group[lo - 1]);
            let dh = (hi < count).then(|| group[hi] - c[i]);
            radius = match (dl, dh) {
                (Some(a), Some(b)) if a <= b => {
                    lo -= 1;
                    a
                }
                (_, Some(b)) => {
                    hi += 1;
                    b
                }
                (Some(a), None) => {
                    lo -= 1;
                    a
                }
                (None, None) => radius,
            };
        }
        let m = count_within(&all, c[i], radius);
        total += digamma(kk as f64) - digamma(count as f64) - digamma(m as f64);
    }
    digamma(kept.len() as f64) + total / kept.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_matches_known_values() {
        // ψ(n) = H_{n−1} − γ
        let gamma = 0.577_215_664_901_532_9;
        let mut h = 0.0;
        for n in 1..40 {
            assert!((digamma(n as f64) - (h - gamma)).abs() < 1e-13, "n = {n}");
            h += 1.0 / n as f64;
        }
        assert!((digamma(0.5) - (-gamma - 2.0 * 2f64.ln())).abs() < 1e-13);
    }

    #[test]
    fn count_within_is_strict_and_counts_duplicates_at_zero() {
        let v = [0.0, 1.0, 1.0, 2.0, 3.0];
        assert_eq!(count_within(&v, 1.0, 1.0), 2);
        assert_eq!(count_within(&v, 1.0, 1.0 + 1e-9), 4);
        assert_eq!(count_within(&v, 1.0, 0.0), 2);
    }

    #[test]
    fn plug_in_mi_of_identical_variables_is_the_entropy() {
        let a = [0, 0, 1, 1, 2, 2, 2, 2];
        let h = -(0.25f64 * 0.25f64.ln() * 2.0 + 0.5 * 0.5f64.ln());
        assert!((mi_discrete(&a, &a) - h).abs() < 1e-12);
    }
}
