//! A family's grid of hyperparameter values.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// How grid values are averaged and compared (EKCV averages in this scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Integer values (k, mtry); averages are rounded to the nearest grid value.
    Integer,
    /// Real values averaged as they are.
    Linear,
    /// Positive values averaged on the log scale (λ, C, α > 0).
    Log,
}

/// The grid M: named values in a stated order, with the direction of simplicity (for the
/// one-standard-error rule).
///
/// Invariant: non-empty, finite, strictly increasing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    name: String,
    values: Vec<f64>,
    scale: Scale,
    larger_is_simpler: bool,
}

impl Grid {
    /// A grid; values are sorted ascending and deduplicated (the caller's order is not kept:
    /// paths need order, and the tie rule "first minimiser in grid order" means ascending).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid, a non-finite value, or a non-positive
    /// value on a log scale.
    pub fn new(name: impl Into<String>, mut values: Vec<f64>, scale: Scale, larger_is_simpler: bool) -> Result<Self> {
        if values.is_empty() {
            return Err(Error::invalid("grid", "non-empty", "an empty grid"));
        }
        if let Some(v) = values.iter().find(|v| !v.is_finite()) {
            return Err(Error::invalid("grid", "finite values", v));
        }
        if scale == Scale::Log
            && let Some(v) = values.iter().find(|&&v| v <= 0.0)
        {
            return Err(Error::invalid("grid", "positive values (log scale)", v));
        }
        if scale == Scale::Integer
            && let Some(v) = values.iter().find(|&&v| v.fract() != 0.0 || v < 1.0)
        {
            return Err(Error::invalid("grid", "integers ≥ 1", v));
        }
        values.sort_by(f64::total_cmp);
        values.dedup();
        Ok(Self { name: name.into(), values, scale, larger_is_simpler })
    }
    /// The hyperparameter's name (`k`, `lambda`, `alpha`, ...).
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Grid values, ascending.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    /// Value at `grid_index`.
    pub fn value(&self, grid_index: usize) -> f64 {
        self.values[grid_index]
    }
    /// |M|.
    pub fn len(&self) -> usize {
        self.values.len()
    }
    /// Never true (grids are non-empty).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
    /// The averaging scale.
    pub fn scale(&self) -> Scale {
        self.scale
    }
    /// True when larger values are simpler (more regularised) rules.
    pub fn larger_is_simpler(&self) -> bool {
        self.larger_is_simpler
    }
    /// The order of simplicity of grid points `a` and `b` (`Less`: `a` is simpler), from the
    /// direction of simplicity.
    pub fn compare_complexity(&self, a: usize, b: usize) -> std::cmp::Ordering {
        if self.larger_is_simpler { b.cmp(&a) } else { a.cmp(&b) }
    }
    /// Averages grid values in the grid's scale (EKCV's `m̄`).
    pub fn average(&self, indices: &[usize]) -> f64 {
        let n = indices.len().max(1) as f64;
        match self.scale {
            Scale::Log => (indices.iter().map(|&i| self.values[i].ln()).sum::<f64>() / n).exp(),
            _ => indices.iter().map(|&i| self.values[i]).sum::<f64>() / n,
        }
    }
    /// Index of the grid value nearest to `value` in the grid's scale (ties: the lower index).
    pub fn nearest(&self, value: f64) -> usize {
        let key = |v: f64| if self.scale == Scale::Log { v.max(f64::MIN_POSITIVE).ln() } else { v };
        let target = key(value);
        let mut best = 0;
        for (i, &v) in self.values.iter().enumerate() {
            if (key(v) - target).abs() < (key(self.values[best]) - target).abs() {
                best = i;
            }
        }
        best
    }
}
