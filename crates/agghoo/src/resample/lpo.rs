//! Leave-p-out: validation sets are p-subsets; all C(n, p) of them when there are at most
//! `max_splits`, otherwise `max_splits` distinct ones drawn uniformly.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{Split, Splits, check_count};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

/// Leave-p-out plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeavePOut {
    /// Size p of each validation set (1 ≤ p < n).
    pub p: usize,
    /// At most this many splits: enumerate all C(n, p) subsets when C(n, p) ≤ `max_splits`,
    /// else draw `max_splits` distinct subsets at random.
    pub max_splits: usize,
}

/// C(n, p), saturating at `u128::MAX`.
pub fn n_choose_p(n: usize, p: usize) -> u128 {
    let p = p.min(n - p.min(n));
    let mut c: u128 = 1;
    for i in 0..p {
        c = match c.checked_mul((n - i) as u128) {
            Some(v) => v / (i as u128 + 1),
            None => return u128::MAX,
        };
    }
    c
}

/// C(n, p) for messages (`more than 3.4e38` when it saturated).
fn binomial_text(total: u128) -> String {
    if total == u128::MAX { format!("more than {:e}", u128::MAX as f64) } else { total.to_string() }
}

impl LeavePOut {
    /// The p of a plan built without one ([`Plan::from_kind`](super::Plan::from_kind)).
    pub const DEFAULT_P: usize = 2;

    /// Leave-p-out with at most `max_splits` splits.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for p = 0 or `max_splits` = 0 (p ≥ n is refused when the
    /// plan meets the data).
    pub fn new(p: usize, max_splits: usize) -> Result<Self> {
        check_count("p", p, 1, "at least 1")?;
        check_count("max-splits", max_splits, 1, "at least 1")?;
        Ok(Self { p, max_splits })
    }
    /// Instantiates the plan (subsets in lexicographic order when enumerated).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for p = 0, p ≥ n or `max_splits` = 0.
    pub fn instantiate(&self, n: usize, seed: Seed) -> Result<Splits> {
        check_count("p", self.p, 1, "at least 1")?;
        check_count("max-splits", self.max_splits, 1, "at least 1")?;
        if self.p >= n {
            return Err(Error::invalid("p", "smaller than the number of rows", format!("{} with {} rows", self.p, n)));
        }
        let total = n_choose_p(n, self.p);
        let n_splits = total.min(self.max_splits as u128);
        super::check_plan_size(
            format_args!("leave-{}-out on {n} rows (C({n}, {}) = {})", self.p, self.p, binomial_text(total)),
            n_splits,
            n,
        )?;
        let subsets: Vec<Vec<usize>> = if total <= self.max_splits as u128 {
            let mut out = Vec::with_capacity(total as usize);
            let mut idx: Vec<usize> = (0..self.p).collect();
            loop {
                out.push(idx.clone());
                // next combination in lexicographic order
                let mut i = self.p;
                while i > 0 && idx[i - 1] == n - self.p + i - 1 {
                    i -= 1;
                }
                if i == 0 {
                    break;
                }
                idx[i - 1] += 1;
                for j in i..self.p {
                    idx[j] = idx[j - 1] + 1;
                }
            }
            out
        } else {
            use rand::RngExt;
            let mut rng = seed.rng(Purpose::Splits, 0);
            let mut seen = BTreeSet::new();
            let mut out = Vec::with_capacity(self.max_splits);
            while out.len() < self.max_splits {
                // Floyd's algorithm: a uniform p-subset in O(p).
                let mut set = BTreeSet::new();
                for j in n - self.p..n {
                    let t = rng.random_range(0..=j);
                    if !set.insert(t) {
                        set.insert(j);
                    }
                }
                let v: Vec<usize> = set.into_iter().collect();
                if seen.insert(v.clone()) {
                    out.push(v);
                }
            }
            out
        };
        let splits = subsets
            .into_iter()
            .map(|val| {
                let mut in_val = vec![false; n];
                val.iter().for_each(|&i| in_val[i] = true);
                Split::new((0..n).filter(|&i| !in_val[i]).collect(), val)
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
    }
}

impl super::Resampling for LeavePOut {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx.n_rows, seed)
    }
    fn describe(&self) -> String {
        format!("leave-{}-out", self.p)
    }
    fn n_splits(&self) -> Option<usize> {
        None
    }
    fn text(&self) -> String {
        format!("lpo:{}:{}", self.p, self.max_splits)
    }
}

impl super::PlanType for LeavePOut {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::P];
    const FORMS: &'static str = "lpo:P:MAX";
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Self::new(settings.p.unwrap_or(Self::DEFAULT_P), settings.n_splits().max(1))
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["lpo", p, max] => Some(Self::new(text.int(p)?, text.int(max)?.max(1))?),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enumerates_all_subsets() {
        for (n, p) in [(5, 2), (6, 3), (7, 1), (8, 4)] {
            let s = LeavePOut { p, max_splits: 1000 }.instantiate(n, Seed(0)).unwrap();
            assert_eq!(s.len() as u128, n_choose_p(n, p));
            let distinct: BTreeSet<Vec<usize>> = s.iter().map(|sp| sp.validation().to_vec()).collect();
            assert_eq!(distinct.len(), s.len());
            assert!(s.iter().all(|sp| sp.validation().len() == p && sp.train().len() == n - p));
        }
    }

    #[test]
    fn samples_when_too_many() {
        let s = LeavePOut { p: 3, max_splits: 50 }.instantiate(40, Seed(2)).unwrap();
        assert_eq!(s.len(), 50);
        let distinct: BTreeSet<Vec<usize>> = s.iter().map(|sp| sp.validation().to_vec()).collect();
        assert_eq!(distinct.len(), 50);
    }

    #[test]
    fn p_at_least_n_is_an_error() {
        assert!(LeavePOut { p: 5, max_splits: 10 }.instantiate(5, Seed(0)).is_err());
        assert!(LeavePOut { p: 0, max_splits: 10 }.instantiate(5, Seed(0)).is_err());
    }

    #[test]
    fn binomial() {
        assert_eq!(n_choose_p(10, 3), 120);
        assert_eq!(n_choose_p(500, 250), u128::MAX);
    }
}
