//! Family parameters as the user gives them (`--grid`, `--param key=value`): the string edge,
//! turned into a typed [`FamilySpec`](super::FamilySpec) by
//! [`FamilySpec::from_params`](super::FamilySpec::from_params).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A grid as written by the user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridSpec {
    /// Explicit values.
    Values(Vec<f64>),
    /// `n` log-spaced values from `low` to `high` inclusive.
    Log {
        /// Smallest value (> 0).
        low: f64,
        /// Largest value (> low).
        high: f64,
        /// Number of values (≥ 1).
        n: usize,
    },
}

impl GridSpec {
    /// Parses `START:STOP:STEP` (inclusive arithmetic range, e.g. `1:99:2`), `a,b,c`, a single
    /// value, or `log:LOW:HIGH:N`.
    ///
    /// ```
    /// use agghoo::family::GridSpec;
    /// assert_eq!(GridSpec::parse("1:9:2")?.values()?, [1.0, 3.0, 5.0, 7.0, 9.0]);
    /// assert_eq!(GridSpec::parse("log:1:100:3")?.values()?.len(), 3);
    /// assert!(GridSpec::parse("5:1:1").is_err());
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for malformed text, a non-positive step or `STOP < START`;
    /// [`Error::ResourceLimit`] for more points than [`Limits::grid_points`](crate::limits::Limits)
    /// (checked before any value is computed).
    pub fn parse(text: &str) -> Result<Self> {
        let bad = || Error::invalid("grid", "START:STOP:STEP, a,b,c or log:LOW:HIGH:N", text);
        let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(bad);
        let parts: Vec<&str> = text.split(':').collect();
        let spec = match parts.as_slice() {
            ["log", lo, hi, n] => {
                let (low, high) = (num(lo)?, num(hi)?);
                let n: usize = n.trim().parse().map_err(|_| bad())?;
                if !(low > 0.0 && high >= low && n >= 1) {
                    return Err(bad());
                }
                check_grid_points(n as u128, text)?;
                GridSpec::Log { low, high, n }
            }
            [start, stop, step] => {
                let (start, stop, step) = (num(start)?, num(stop)?, num(step)?);
                if !(step > 0.0 && stop >= start) {
                    return Err(bad());
                }
                // Counted in floats (`as` saturates): `(stop - start) / step` may exceed every integer type.
                let count = ((stop - start) / step + 1e-9).floor() + 1.0;
                check_grid_points(count as u128, text)?;
                let count = count as usize;
                GridSpec::Values((0..count).map(|i| start + i as f64 * step).collect())
            }
            [single] => {
                check_grid_points(single.split(',').count() as u128, text)?;
                GridSpec::Values(single.split(',').map(num).collect::<Result<Vec<_>>>()?)
            }
            _ => return Err(bad()),
        };
        Ok(spec)
    }
    /// The number of values, without computing them (`log:LOW:HIGH:N` has N).
    pub fn len(&self) -> usize {
        match self {
            GridSpec::Values(v) => v.len(),
            GridSpec::Log { n, .. } => *n,
        }
    }
    /// True for a spec of no values (only a hand-built one can be).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The values, in the order written.
    ///
    /// # Errors
    /// Never for a parsed spec; [`Error::InvalidParameter`] for a hand-built empty one;
    /// [`Error::ResourceLimit`] for a hand-built `Log` spec beyond the grid-point limit.
    pub fn values(&self) -> Result<Vec<f64>> {
        if let GridSpec::Log { low, high, n } = *self {
            check_grid_points(n as u128, &format!("log:{low}:{high}:{n}"))?;
        }
        let v = match *self {
            GridSpec::Values(ref v) => v.clone(),
            GridSpec::Log { low, high, n } => {
                if n == 1 {
                    vec![low]
                } else {
                    (0..n).map(|i| (low.ln() + (high.ln() - low.ln()) * i as f64 / (n - 1) as f64).exp()).collect()
                }
            }
        };
        if v.is_empty() {
            return Err(Error::invalid("grid", "non-empty", "an empty grid"));
        }
        Ok(v)
    }
}

/// Refuses a grid of more points than the limits allow, before its values exist.
fn check_grid_points(n: u128, text: &str) -> Result<()> {
    crate::limits::check_count(crate::limits::Count::GridPoints, n, format_args!("the grid `{text}`"))
}

/// Parameters of a family: an optional grid and `key=value` settings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FamilyParams {
    /// The grid, or `None` for the family's default.
    pub grid: Option<GridSpec>,
    /// Other settings, by key.
    pub values: BTreeMap<String, String>,
    /// Named grid axes (`--grid NAME=VALUES`): the path axis's values, or a setting swept as a
    /// further axis of a product grid (see [`Composite`](super::Composite)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub axes: Vec<super::AxisSpec>,
    /// Further families of a union (`--family knn,logistic`): the family built is the union of
    /// the named kind and these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub union: Vec<super::FamilyKind>,
}

impl FamilyParams {
    /// Parameters with a grid only.
    pub fn with_grid(grid: GridSpec) -> Self {
        Self { grid: Some(grid), ..Self::default() }
    }
    /// Adds `key=value` (builder style).
    pub fn set(mut self, key: &str, value: impl ToString) -> Self {
        self.values.insert(key.to_string(), value.to_string());
        self
    }
    /// The parameters of `kind` among several families compared with these parameters: the
    /// settings `kind` knows ([`settings_for`](Self::settings_for)) and the named axes it has
    /// ([`FamilyKind::has_axis`]).
    pub fn for_family(&self, kind: super::FamilyKind) -> Self {
        Self { axes: self.axes.iter().filter(|a| kind.has_axis(&a.name)).cloned().collect(), ..self.settings_for(kind) }
    }
    /// The parameters of `kind` as one of several families (a union, or the families
    /// compared): the settings it knows ([`FamilyKind::settings`]), no union; the axes as given.
    /// Check first that each setting reaches some family ([`check_known_by_any`](Self::check_known_by_any)).
    pub fn settings_for(&self, kind: super::FamilyKind) -> Self {
        let mut own = Self { union: Vec::new(), ..self.clone() };
        own.values.retain(|key, _| kind.settings().contains(&key.as_str()));
        own
    }
    /// Refuses a setting that none of several families knows (a typo must not be silently
    /// dropped when the settings are routed with [`settings_for`](Self::settings_for)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the setting and what each family knows.
    pub fn check_known_by_any(&self, kinds: &[super::FamilyKind]) -> Result<()> {
        let Some(key) = self.values.keys().find(|k| !kinds.iter().any(|f| f.settings().contains(&k.as_str()))) else {
            return Ok(());
        };
        let known = kinds.iter().map(|f| {
            let settings = if f.settings().is_empty() { "none".into() } else { f.settings().join(", ") };
            format!("{} knows {settings}", f.name())
        });
        Err(Error::InvalidParameter {
            name: "param",
            expected: "a parameter of one of the families",
            got: format!("`{key}` ({})", known.collect::<Vec<_>>().join("; ")),
        })
    }
    /// Parses `key=value`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] without `=`.
    pub fn insert_pair(&mut self, pair: &str) -> Result<()> {
        let (k, v) = pair.split_once('=').ok_or_else(|| Error::invalid("param", "key=value", pair))?;
        self.values.insert(k.trim().to_string(), v.trim().to_string());
        Ok(())
    }
    /// Refuses keys the family does not know (a typo must not be silently ignored).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the unknown key and the known ones.
    pub fn check_known(&self, family: &'static str, known: &[&str]) -> Result<()> {
        match self.values.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => Err(unknown_key(family, known, k)),
            None => Ok(()),
        }
    }
}

/// The error of a setting `key` the family does not know; the message lists the known ones.
pub(crate) fn unknown_key(family: &'static str, known: &[&str], key: &str) -> Error {
    Error::InvalidParameter {
        name: "param",
        expected: "a parameter of the family",
        got: format!("`{key}` (family {family} knows: {})", if known.is_empty() { "none".into() } else { known.join(", ") }),
    }
}

/// A solver tolerance: positive and finite (the iterative solvers' `tol`).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `tol`.
pub(crate) fn check_tol(tol: f64) -> Result<f64> {
    if tol > 0.0 && tol.is_finite() { Ok(tol) } else { Err(Error::invalid("tol", "positive and finite", tol)) }
}

/// An iteration limit: at least 1 (the iterative solvers' `max_iter`).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `max_iter`.
pub(crate) fn check_max_iter(max_iter: usize) -> Result<usize> {
    if max_iter > 0 { Ok(max_iter) } else { Err(Error::invalid("max_iter", "at least 1", max_iter)) }
}

/// Parses the value of the real setting `key`.
///
/// # Errors
/// [`Error::InvalidParameter`] naming `key` when `value` is not a finite number.
pub(crate) fn parse_f64(key: &'static str, value: &str) -> Result<f64> {
    value.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| Error::invalid(key, "a finite number", value))
}

/// Parses the value of the count setting `key` (an integer, or `1e3`).
///
/// # Errors
/// [`Error::InvalidParameter`] naming `key` when `value` is not a non-negative integer.
pub(crate) fn parse_usize(key: &'static str, value: &str) -> Result<usize> {
    crate::limits::parse_count(value)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| Error::invalid(key, "a non-negative integer", value))
}
