//! Time-ordered splits: every model is trained on rows that come *before* the rows it is
//! validated on (the rows are taken in file order), exactly scikit-learn's `TimeSeriesSplit`.
//!
//! With n rows, `S = n_splits`, test size `t` (default `⌊n / (S + 1)⌋`) and gap `g`, split
//! `k = 0, …, S − 1` validates on the rows `[s_k, s_k + t)` with `s_k = n − (S − k) t`, and trains
//! on the rows `[0, s_k − g)` — or on the last `max_train_size` of them when that is smaller.
//! The first `n − S t` rows are never validated on. Nothing is random: the seed is not used.

use serde::{Deserialize, Serialize};

use super::{Split, Splits, check_count};
use crate::error::{Error, Result};
use crate::seed::Seed;

/// scikit-learn's `TimeSeriesSplit(n_splits, max_train_size, test_size, gap)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeSeries {
    /// Number of splits S (≥ 2, as scikit-learn requires).
    pub n_splits: usize,
    /// Rows left out between the end of each training set and its test rows.
    #[serde(default)]
    pub gap: usize,
    /// Largest training set: the most recent rows are kept (`None`: every earlier row).
    #[serde(default)]
    pub max_train_size: Option<usize>,
    /// Rows of each test set (`None`: `⌊n / (S + 1)⌋`).
    #[serde(default)]
    pub test_size: Option<usize>,
}

impl TimeSeries {
    /// S time-ordered splits, no gap, growing training sets, default test size.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when S < 2.
    pub fn new(n_splits: usize) -> Result<Self> {
        check_count("splits", n_splits, 2, "at least 2")?;
        Ok(Self { n_splits, gap: 0, max_train_size: None, test_size: None })
    }

    /// The splits on `n` rows.
    ///
    /// ```
    /// // scikit-learn's documented example: TimeSeriesSplit(n_splits=3, test_size=2, gap=2) on 12 rows
    /// use agghoo::resample::TimeSeries;
    /// let plan = TimeSeries { test_size: Some(2), gap: 2, ..TimeSeries::new(3)? };
    /// let splits = plan.instantiate(12)?;
    /// assert_eq!(splits.get(0).unwrap().train(), [0, 1, 2, 3]);
    /// assert_eq!(splits.get(0).unwrap().validation(), [6, 7]);
    /// assert_eq!(splits.get(2).unwrap().train(), (0..8).collect::<Vec<_>>());
    /// assert_eq!(splits.get(2).unwrap().validation(), [10, 11]);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for S < 2, a test size or maximal training size of 0;
    /// [`Error::TooFewRows`] when `S + 1 > n` or no row is left to train on
    /// (`n − g − S t ≤ 0`), scikit-learn's two refusals.
    pub fn instantiate(&self, n: usize) -> Result<Splits> {
        check_count("splits", self.n_splits, 2, "at least 2")?;
        if self.test_size == Some(0) {
            return Err(Error::invalid("test size", "at least 1 row", 0));
        }
        if self.max_train_size == Some(0) {
            return Err(Error::invalid("max train size", "at least 1 row", 0));
        }
        let s = self.n_splits;
        let what = || format!("{} time-ordered splits", self.n_splits);
        if s.saturating_add(1) > n {
            return Err(Error::TooFewRows { what: what(), needed: s + 1, found: n });
        }
        let t = self.test_size.unwrap_or(n / (s + 1));
        let fits = s.checked_mul(t).and_then(|st| st.checked_add(self.gap)).filter(|&h| h < n);
        if fits.is_none() {
            let needed = s.saturating_mul(t).saturating_add(self.gap).saturating_add(1);
            return Err(Error::TooFewRows {
                what: format!("{} with {t} test rows each and a gap of {}", what(), self.gap),
                needed,
                found: n,
            });
        }
        let train_cap = self.max_train_size.unwrap_or(usize::MAX);
        super::check_plan_size(what(), s as u128, n)?;
        let first_test = n - s * t;
        let splits = (0..s)
            .map(|k| {
                let test_start = first_test + k * t;
                let train_end = test_start - self.gap;
                let train_start = train_end.saturating_sub(train_cap);
                Split::new((train_start..train_end).collect(), (test_start..test_start + t).collect())
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
    }
}

impl TimeSeries {
    /// `head` followed by each option that is set (gap, training window, test size, named
    /// `names`), written `{sep}{name}={value}`.
    fn with_options(&self, mut head: String, names: [&str; 3], sep: char) -> String {
        let values = [Some(self.gap).filter(|&g| g > 0), self.max_train_size, self.test_size];
        for (name, value) in names.into_iter().zip(values) {
            if let Some(v) = value {
                head.push_str(&format!("{sep}{name}={v}"));
            }
        }
        head
    }
}

impl super::Resampling for TimeSeries {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        let _ = seed;
        self.instantiate(ctx.n_rows)
    }
    fn describe(&self) -> String {
        self.with_options(format!("{} time-ordered splits", self.n_splits), ["gap", "max train", "test"], ' ')
    }
    fn n_splits(&self) -> Option<usize> {
        Some(self.n_splits)
    }
    fn text(&self) -> String {
        self.with_options(format!("time:{}", self.n_splits), ["gap", "max_train", "test"], ':')
    }
}

impl super::PlanType for TimeSeries {
    const SETTINGS: &'static [super::PlanSetting] =
        &[super::PlanSetting::Gap, super::PlanSetting::MaxTrainSize, super::PlanSetting::TestSize];
    const FORMS: &'static str = "time:S (options :gap=G :max_train=M :test=T)";
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self {
            gap: settings.gap.unwrap_or(0),
            max_train_size: settings.max_train_size,
            test_size: settings.test_size,
            ..Self::new(settings.n_splits())?
        })
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        let ["time", s, options @ ..] = form else { return Ok(None) };
        let mut plan = Self::new(text.int(s)?)?;
        for option in options {
            match option.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
                Some(("gap", v)) => plan.gap = text.int(v)?,
                Some(("max_train", v)) => plan.max_train_size = Some(text.int(v)?),
                Some(("test", v)) => plan.test_size = Some(text.int(v)?),
                _ => return Err(text.bad()),
            }
        }
        Ok(Some(plan))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scikit-learn's algorithm, written out independently: the index sets of
    /// `TimeSeriesSplit(n_splits, max_train_size, test_size, gap).split(range(n))`.
    fn sklearn(n: usize, n_splits: usize, gap: usize, max_train: Option<usize>, test: Option<usize>) -> Vec<(Vec<usize>, Vec<usize>)> {
        let test_size = test.unwrap_or(n / (n_splits + 1));
        let mut out = Vec::new();
        let mut test_start = n - n_splits * test_size;
        while test_start < n {
            let train_end = test_start - gap;
            let train: Vec<usize> = match max_train {
                Some(m) if m < train_end => (train_end - m..train_end).collect(),
                _ => (0..train_end).collect(),
            };
            out.push((train, (test_start..test_start + test_size).collect()));
            test_start += test_size;
        }
        out
    }

    fn ours(n: usize, n_splits: usize, gap: usize, max_train: Option<usize>, test: Option<usize>) -> Vec<(Vec<usize>, Vec<usize>)> {
        let plan = TimeSeries { n_splits, gap, max_train_size: max_train, test_size: test };
        plan.instantiate(n).unwrap().iter().map(|s| (s.train().to_vec(), s.validation().to_vec())).collect()
    }

    /// The examples of scikit-learn's documentation, by hand.
    #[test]
    fn documented_examples() {
        // TimeSeriesSplit() on 6 rows (n_splits = 5): train [0..=k], test [k+1].
        let expected: Vec<(Vec<usize>, Vec<usize>)> = (0..5).map(|k| ((0..=k).collect(), vec![k + 1])).collect();
        assert_eq!(ours(6, 5, 0, None, None), expected);
        // TimeSeriesSplit(n_splits=3, test_size=2) on 12 rows.
        assert_eq!(
            ours(12, 3, 0, None, Some(2)),
            vec![((0..6).collect(), vec![6, 7]), ((0..8).collect(), vec![8, 9]), ((0..10).collect(), vec![10, 11])]
        );
        // TimeSeriesSplit(n_splits=3, test_size=2, gap=2) on 12 rows.
        assert_eq!(
            ours(12, 3, 2, None, Some(2)),
            vec![((0..4).collect(), vec![6, 7]), ((0..6).collect(), vec![8, 9]), ((0..8).collect(), vec![10, 11])]
        );
        // max_train_size=3 on 10 rows, 4 splits: test size 2, the last 3 training rows.
        assert_eq!(
            ours(10, 4, 0, Some(3), None),
            vec![(vec![0, 1], vec![2, 3]), (vec![1, 2, 3], vec![4, 5]), (vec![3, 4, 5], vec![6, 7]), (vec![5, 6, 7], vec![8, 9])]
        );
    }

    #[test]
    fn equals_the_reference_algorithm_on_many_settings() {
        for n in [3usize, 7, 10, 23, 50] {
            for n_splits in 2..6 {
                for gap in [0usize, 1, 3] {
                    for max_train in [None, Some(1), Some(4)] {
                        for test in [None, Some(1), Some(3)] {
                            let plan = TimeSeries { n_splits, gap, max_train_size: max_train, test_size: test };
                            let t = test.unwrap_or(n / (n_splits + 1));
                            let feasible = n_splits < n && (n as i64 - gap as i64 - (n_splits * t) as i64) > 0 && t > 0;
                            match plan.instantiate(n) {
                                Ok(_) => assert_eq!(ours(n, n_splits, gap, max_train, test), sklearn(n, n_splits, gap, max_train, test)),
                                Err(e) => assert!(!feasible, "n={n} S={n_splits} gap={gap} {max_train:?} {test:?}: {e}"),
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn refusals_are_typed() {
        assert!(matches!(TimeSeries::new(1), Err(Error::InvalidParameter { .. })));
        assert!(matches!(TimeSeries::new(5).unwrap().instantiate(5), Err(Error::TooFewRows { needed: 6, found: 5, .. })));
        let gap = TimeSeries { gap: 10, ..TimeSeries::new(2).unwrap() };
        assert!(matches!(gap.instantiate(12), Err(Error::TooFewRows { .. })));
        let huge = TimeSeries { test_size: Some(usize::MAX), gap: usize::MAX, ..TimeSeries::new(3).unwrap() };
        assert!(matches!(huge.instantiate(12), Err(Error::TooFewRows { .. })));
        assert!(TimeSeries { test_size: Some(0), ..TimeSeries::new(2).unwrap() }.instantiate(12).is_err());
        assert!(TimeSeries { max_train_size: Some(0), ..TimeSeries::new(2).unwrap() }.instantiate(12).is_err());
    }
}
