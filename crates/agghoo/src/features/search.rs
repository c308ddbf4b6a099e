//! Search strategies over feature subsets (`docs/PROCEDURES.md` § Searches), all minimising a
//! [`Scorer`]'s value.
//!
//! - **SFS** (sequential forward selection): from ∅, add the feature whose addition gives the
//!   lowest score, up to the largest size the stopping rule can choose.
//! - **SBS** (sequential backward selection): from all usable features, remove the feature
//!   whose removal gives the lowest score, down to the smallest size the rule can choose.
//! - **SFFS** (sequential forward floating selection, Pudil, Novovičová & Kittler 1994): after
//!   each forward step that added feature f, *conditional exclusion*: while |S| > 2, find the
//!   feature g ≠ f whose removal gives the lowest score; remove it if and only if `J(S \ {g})` is
//!   strictly better than the best score recorded so far at size |S| − 1, and repeat; otherwise
//!   resume forward steps from the current S. This is the original definition (remove features
//!   while that improves the best score seen at that subset size). mlxtend's variant
//!   additionally requires `J(S \ {g})` to beat `J(S)`; we do not. The search continues from the
//!   current subset even when it is worse than the recorded best of its size (no jump back), and
//!   the result at each size is the best subset *recorded* at that size. Each exclusion strictly
//!   improves a recorded best, so the search terminates.
//!   SFFS's first two steps equal SFS's; after a successful exclusion it continues from another
//!   subset, so beating SFS at every size is usual but not a theorem (the tests check it on
//!   seeded problems; the benchmark shows it against mlxtend at every size).
//! - **SBFS**: the mirror image (backward steps, conditional inclusion of a feature ≠ the one
//!   just removed while it strictly improves the best recorded at size |S| + 1, stopping when
//!   fewer than two features are outside S).
//! - **Exhaustive**: every subset with a size the stopping rule allows.
//!
//! Every search is refused before its first evaluation when its estimated number of subset
//! evaluations ([`SearchConfig::estimated_evaluations`]) exceeds [`SearchConfig::max_subsets`]
//! (by default the process-wide [`Count::SubsetEvaluations`](crate::limits::Count) limit): an
//! exhaustive search over 40 features or a wrapper SFFS over 10 000 would otherwise run for
//! years. The estimate is exact for the exhaustive search and for SFS / SBS; the floating
//! searches are counted as twice their plain counterpart (their conditional steps are few in
//! practice, but not bounded by a formula).
//!
//! Ties between candidates: the first minimiser in ascending feature order
//! ([`select::argmin`](crate::select::argmin) with [`TieRule::First`]). Stopping rules pick a size
//! from the best recorded subset of each visited size: [`Stopping::Count`], [`Stopping::Range`]
//! (best in the range; ties: the smaller size), [`Stopping::Best`] (best over all sizes),
//! [`Stopping::Parsimonious`] (the smallest size whose score is within one standard error of the
//! best: [`select::one_standard_error`](crate::select::one_standard_error) over sizes).

use serde::{Deserialize, Serialize};

use super::{Change, Scorer, SkippedFeature, SubsetScore, apply_change};
use crate::engine::{Executor, Inner, Rayon, map_ordered};
use crate::error::{Error, Result};
use crate::select::{TieRule, argmin, one_standard_error};

/// A search strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchMethod {
    /// Sequential forward selection.
    Sfs,
    /// Sequential backward selection.
    Sbs,
    /// Sequential forward floating selection (Pudil et al. 1994).
    Sffs,
    /// Sequential backward floating selection (Pudil et al. 1994).
    Sbfs,
    /// Every subset of an allowed size.
    Exhaustive,
}

impl SearchMethod {
    /// Parses `sfs`, `sbs`, `sffs`, `sbfs`, `exhaustive`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "sfs" => Ok(Self::Sfs),
            "sbs" => Ok(Self::Sbs),
            "sffs" => Ok(Self::Sffs),
            "sbfs" => Ok(Self::Sbfs),
            "exhaustive" => Ok(Self::Exhaustive),
            _ => Err(Error::invalid("method", "one of sfs, sbs, sffs, sbfs, exhaustive", text)),
        }
    }
}

/// Which subset size the search returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Stopping {
    /// Exactly this many features.
    Count {
        /// The number of features (≥ 1).
        n_features: usize,
    },
    /// The best subset with a size in `min..=max`.
    Range {
        /// Smallest size (≥ 1).
        min: usize,
        /// Largest size (≥ min).
        max: usize,
    },
    /// The best subset of any size.
    Best,
    /// The smallest subset whose score is within one standard error of the best.
    Parsimonious,
}

impl Stopping {
    /// Parses `K`, `MIN:MAX`, `best`, `parsimonious`.
    ///
    /// ```
    /// use agghoo::features::Stopping;
    /// assert_eq!(Stopping::parse("3:8")?, Stopping::Range { min: 3, max: 8 });
    /// assert_eq!(Stopping::parse("best")?, Stopping::Best);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for malformed text.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || Error::invalid("features", "K, MIN:MAX, best or parsimonious", text);
        let num = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        match text {
            "best" => Ok(Self::Best),
            "parsimonious" => Ok(Self::Parsimonious),
            _ => match text.split_once(':') {
                Some((a, b)) => Ok(Self::Range { min: num(a)?, max: num(b)? }),
                None => Ok(Self::Count { n_features: num(text)? }),
            },
        }
    }

    /// The sizes `(lo, hi)` the rule may choose among, given `d` usable features.
    fn bounds(self, d: usize) -> Result<(usize, usize)> {
        let (lo, hi) = match self {
            Self::Count { n_features } => (n_features, n_features),
            Self::Range { min, max } => (min, max),
            Self::Best | Self::Parsimonious => (1, d),
        };
        if lo == 0 || hi < lo {
            return Err(Error::invalid("features", "a size ≥ 1 (and MIN ≤ MAX)", format!("{lo}..={hi}")));
        }
        if hi > d {
            return Err(Error::InvalidParameter {
                name: "features",
                expected: "at most the number of usable (non-constant) features",
                got: format!("{hi} requested, {d} usable"),
            });
        }
        Ok((lo, hi))
    }
}

/// Configuration of [`search`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchConfig {
    /// The strategy.
    pub method: SearchMethod,
    /// The stopping rule.
    pub stopping: Stopping,
    /// Refuse a search whose estimated number of subset evaluations exceeds this.
    pub max_subsets: u64,
}

impl SearchConfig {
    /// A configuration with the subset-evaluation limit in force
    /// ([`Limits::global`](crate::limits::Limits::global), 2²⁰ by default).
    pub fn new(method: SearchMethod, stopping: Stopping) -> Self {
        Self { method, stopping, max_subsets: crate::limits::Limits::global().subset_evaluations }
    }

    /// The number of subsets the search will score on `d` usable features (see the module
    /// documentation: exact for SFS, SBS and exhaustive; twice SFS / SBS for the floating ones).
    ///
    /// ```
    /// use agghoo::features::{SearchConfig, SearchMethod, Stopping};
    /// let sfs = SearchConfig::new(SearchMethod::Sfs, Stopping::Best);
    /// assert_eq!(sfs.estimated_evaluations(10)?, 55); // 10 + 9 + … + 1
    /// let all = SearchConfig::new(SearchMethod::Exhaustive, Stopping::Best);
    /// assert_eq!(all.estimated_evaluations(10)?, 1023); // 2¹⁰ − 1 non-empty subsets
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// As the stopping rule's sizes: [`Error::InvalidParameter`] for sizes outside `1..=d`.
    pub fn estimated_evaluations(&self, d: usize) -> Result<u128> {
        let (lo, hi) = self.stopping.bounds(d)?;
        let d = d as u128;
        // Step s of a forward search scores d − s candidates; a backward one starts with the
        // full set and scores |S| subsets per step.
        let forward = |steps: u128| steps * d - steps * steps.saturating_sub(1) / 2;
        Ok(match self.method {
            SearchMethod::Sfs => forward(hi as u128),
            SearchMethod::Sffs => 2 * forward(hi as u128),
            SearchMethod::Sbs => 1 + forward(d - lo as u128),
            SearchMethod::Sbfs => 1 + 2 * forward(d - lo as u128),
            SearchMethod::Exhaustive => (lo..=hi).map(|k| binomial(d as usize, k)).fold(0u128, u128::saturating_add),
        })
    }
}

/// The best subset recorded at one size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SizeResult {
    /// Number of features.
    pub size: usize,
    /// Column indices, ascending.
    pub features: Vec<usize>,
    /// Column names, in the same order.
    pub names: Vec<String>,
    /// Its score.
    pub score: SubsetScore,
}

/// One accepted move of a sequential search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceStep {
    /// Added or removed.
    pub change: Change,
    /// The column.
    pub feature: usize,
    /// Subset size after the move.
    pub size: usize,
    /// Score after the move.
    pub score: SubsetScore,
}

/// What a search found and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchReport {
    /// The strategy.
    pub method: SearchMethod,
    /// The stopping rule.
    pub stopping: Stopping,
    /// The scorer's description.
    pub scorer: String,
    /// The chosen columns, ascending.
    pub selected: Vec<usize>,
    /// Their names.
    pub selected_names: Vec<String>,
    /// The chosen subset's score (lower is better).
    pub score: SubsetScore,
    /// Best recorded subset at each visited size, ascending size.
    pub by_size: Vec<SizeResult>,
    /// Accepted moves in order (empty for exhaustive search).
    pub trace: Vec<TraceStep>,
    /// Columns never offered to the search, with the reason.
    pub skipped: Vec<SkippedFeature>,
    /// Number of subsets scored.
    pub n_evaluations: u64,
}

/// Runs a search over `scorer`'s usable features.
///
/// ```
/// use agghoo::data::{Dataset, Target};
/// use agghoo::features::{CfsScorer, SearchConfig, SearchMethod, Stopping, search};
/// // y = a + b; c is noise-like
/// let x = vec![0.0, 1.0, 0.3,  1.0, 0.0, 0.9,  1.0, 1.0, 0.2,  0.0, 0.0, 0.5,  2.0, 1.0, 0.1];
/// let y = vec![1.0, 1.0, 2.0, 0.0, 3.0];
/// let data = Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], Target::Real(y), "y")?;
/// let cfs = CfsScorer::new(&data)?;
/// let report = search(&cfs, &SearchConfig::new(SearchMethod::Sfs, Stopping::Count { n_features: 1 }))?;
/// assert_eq!(report.selected_names, ["a"]);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] when more features are requested than are usable, when no
/// feature is usable; [`Error::ResourceLimit`] when the estimated subset evaluations exceed
/// [`SearchConfig::max_subsets`] (with the estimate); the scorer's errors
/// ([`Error::FeatureSubset`] naming the subset).
pub fn search(scorer: &dyn Scorer, config: &SearchConfig) -> Result<SearchReport> {
    search_with(scorer, config, &Rayon)
}

/// As [`search`], the candidate subsets of each step the units of `executor`.
///
/// # Errors
/// As [`search`].
pub fn search_with(scorer: &dyn Scorer, config: &SearchConfig, executor: &dyn Executor) -> Result<SearchReport> {
    let usable = scorer.usable();
    if usable.is_empty() {
        return Err(Error::invalid("features", "at least one non-constant feature", "none usable"));
    }
    let (lo, hi) = config.stopping.bounds(usable.len())?;
    let evaluations = config.estimated_evaluations(usable.len())?;
    let budget = crate::limits::Limits { subset_evaluations: config.max_subsets, ..crate::limits::Limits::global() };
    let method = format!("{:?}", config.method).to_lowercase();
    let what = format!("the {method} search over {} features (sizes {lo}..={hi})", usable.len());
    budget.check_count(crate::limits::Count::SubsetEvaluations, evaluations, what)?;
    let mut state = State { scorer, executor, best: vec![None; usable.len() + 1], trace: Vec::new(), n_evaluations: 0 };
    match config.method {
        SearchMethod::Sfs | SearchMethod::Sffs => state.forward(&usable, hi, config.method == SearchMethod::Sffs)?,
        SearchMethod::Sbs | SearchMethod::Sbfs => state.backward(&usable, lo, config.method == SearchMethod::Sbfs)?,
        SearchMethod::Exhaustive => state.exhaustive(&usable, lo, hi)?,
    }
    state.finish(config, lo, hi)
}

struct State<'a> {
    scorer: &'a dyn Scorer,
    executor: &'a dyn Executor,
    /// Best recorded (subset, score) at each size.
    best: Vec<Option<(Vec<usize>, SubsetScore)>>,
    trace: Vec<TraceStep>,
    n_evaluations: u64,
}

impl State<'_> {
    /// Records `subset` at its size if strictly better; returns whether it was.
    fn record(&mut self, subset: &[usize], score: SubsetScore) -> bool {
        let slot = &mut self.best[subset.len()];
        let better = slot.as_ref().is_none_or(|(_, s)| score.value < s.value);
        if better {
            *slot = Some((subset.to_vec(), score));
        }
        better
    }

    fn recorded(&self, size: usize) -> f64 {
        self.best[size].as_ref().map_or(f64::INFINITY, |(_, s)| s.value)
    }

    /// The best one-feature change of `base` among `candidates` (first minimiser).
    fn best_change(&mut self, base: &[usize], change: Change, candidates: &[usize]) -> Result<Option<(usize, SubsetScore)>> {
        if candidates.is_empty() {
            return Ok(None);
        }
        let scores = self.scorer.score_changes(base, change, candidates, self.executor)?;
        self.n_evaluations += candidates.len() as u64;
        for (&j, s) in candidates.iter().zip(&scores) {
            if !s.value.is_finite() {
                return Err(self.non_finite(&apply_change(base, change, j), s.value));
            }
        }
        let values: Vec<f64> = scores.iter().map(|s| s.value).collect();
        let at = argmin(&values, TieRule::First)?;
        Ok(Some((candidates[at], scores[at])))
    }

    fn non_finite(&self, subset: &[usize], value: f64) -> Error {
        let names = self.scorer.feature_names();
        Error::FeatureSubset {
            features: subset.iter().map(|&j| names[j].as_str()).collect::<Vec<_>>().join(","),
            source: Box::new(Error::NonFiniteRisk(format!("subset score is {value}"))),
        }
    }

    fn apply(&mut self, subset: &mut Vec<usize>, change: Change, feature: usize, score: SubsetScore) {
        *subset = apply_change(subset, change, feature);
        self.trace.push(TraceStep { change, feature, size: subset.len(), score });
        self.record(subset, score);
    }

    fn forward(&mut self, usable: &[usize], hi: usize, floating: bool) -> Result<()> {
        let mut subset: Vec<usize> = Vec::new();
        // Each exclusion strictly improves a recorded best, so this bound is never reached in
        // practice; it only guards against a scorer whose values change between calls.
        let mut budget = 4 * usable.len() * usable.len() + 16;
        while subset.len() < hi && budget > 0 {
            budget -= 1;
            let outside: Vec<usize> = usable.iter().copied().filter(|j| !subset.contains(j)).collect();
            let Some((added, score)) = self.best_change(&subset, Change::Add, &outside)? else { break };
            self.apply(&mut subset, Change::Add, added, score);
            while floating && subset.len() > 2 && budget > 0 {
                budget -= 1;
                let inside: Vec<usize> = subset.iter().copied().filter(|&j| j != added).collect();
                let Some((removed, score)) = self.best_change(&subset, Change::Remove, &inside)? else { break };
                if score.value >= self.recorded(subset.len() - 1) {
                    break;
                }
                self.apply(&mut subset, Change::Remove, removed, score);
            }
        }
        Ok(())
    }

    fn backward(&mut self, usable: &[usize], lo: usize, floating: bool) -> Result<()> {
        let mut subset = usable.to_vec();
        let score = self.scorer.score(&subset, self.executor)?;
        self.n_evaluations += 1;
        if !score.value.is_finite() {
            return Err(self.non_finite(&subset, score.value));
        }
        self.record(&subset, score);
        let mut budget = 4 * usable.len() * usable.len() + 16;
        while subset.len() > lo && budget > 0 {
            budget -= 1;
            let inside = subset.clone();
            let Some((removed, score)) = self.best_change(&subset, Change::Remove, &inside)? else { break };
            self.apply(&mut subset, Change::Remove, removed, score);
            while floating && usable.len() - subset.len() > 2 && budget > 0 {
                budget -= 1;
                let outside: Vec<usize> = usable.iter().copied().filter(|&j| j != removed && !subset.contains(&j)).collect();
                let Some((added, score)) = self.best_change(&subset, Change::Add, &outside)? else { break };
                if score.value >= self.recorded(subset.len() + 1) {
                    break;
                }
                self.apply(&mut subset, Change::Add, added, score);
            }
        }
        Ok(())
    }

    fn exhaustive(&mut self, usable: &[usize], lo: usize, hi: usize) -> Result<()> {
        let d = usable.len();
        const BATCH: usize = 4096;
        for k in lo..=hi {
            let mut positions: Vec<usize> = (0..k).collect();
            let mut done = false;
            while !done {
                let mut batch: Vec<Vec<usize>> = Vec::with_capacity(BATCH);
                while batch.len() < BATCH && !done {
                    batch.push(positions.iter().map(|&p| usable[p]).collect());
                    done = !next_combination(&mut positions, d);
                }
                let scores: Vec<SubsetScore> =
                    map_ordered(self.executor, batch.len(), |i| self.scorer.score(&batch[i], &Inner::new(self.executor, batch.len())))?;
                self.n_evaluations += batch.len() as u64;
                for (subset, score) in batch.iter().zip(scores) {
                    if !score.value.is_finite() {
                        return Err(self.non_finite(subset, score.value));
                    }
                    self.record(subset, score);
                }
            }
        }
        Ok(())
    }

    fn finish(self, config: &SearchConfig, lo: usize, hi: usize) -> Result<SearchReport> {
        let names = self.scorer.feature_names();
        let by_size: Vec<SizeResult> = self
            .best
            .iter()
            .flatten()
            .map(|(features, score)| SizeResult {
                size: features.len(),
                names: features.iter().map(|&j| names[j].clone()).collect(),
                features: features.clone(),
                score: *score,
            })
            .collect();
        let eligible: Vec<&SizeResult> = by_size.iter().filter(|r| r.size >= lo && r.size <= hi).collect();
        if eligible.is_empty() {
            return Err(Error::Internal(format!("the search visited no subset of size {lo}..={hi}")));
        }
        let mean: Vec<f64> = eligible.iter().map(|r| r.score.value).collect();
        let se: Vec<f64> = eligible.iter().map(|r| r.score.standard_error).collect();
        let at = match config.stopping {
            Stopping::Parsimonious => one_standard_error(&mean, &se, TieRule::First, false)?,
            _ => argmin(&mean, TieRule::First)?,
        };
        let chosen = eligible[at].clone();
        Ok(SearchReport {
            method: config.method,
            stopping: config.stopping,
            scorer: self.scorer.describe(),
            selected: chosen.features,
            selected_names: chosen.names,
            score: chosen.score,
            by_size,
            trace: self.trace,
            skipped: self.scorer.skipped().to_vec(),
            n_evaluations: self.n_evaluations,
        })
    }
}

/// C(n, k), saturating.
fn binomial(n: usize, k: usize) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // c · (n − i) / (i + 1) stays an integer at every step.
        c = match c.checked_mul((n - i) as u128) {
            Some(v) => v / (i as u128 + 1),
            None => return u128::MAX,
        };
    }
    c
}

/// Advances `positions` (a strictly increasing k-subset of `0..n`) to the next one in
/// lexicographic order; false when it was the last.
fn next_combination(positions: &mut [usize], n: usize) -> bool {
    let k = positions.len();
    for i in (0..k).rev() {
        if positions[i] < n - k + i {
            positions[i] += 1;
            for j in i + 1..k {
                positions[j] = positions[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials_and_combinations() {
        assert_eq!(binomial(5, 2), 10);
        assert!(binomial(200, 100) > u128::from(u64::MAX));
        let mut p = vec![0, 1];
        let mut n = 1;
        while next_combination(&mut p, 4) {
            n += 1;
        }
        assert_eq!(n, 6);
    }
}
