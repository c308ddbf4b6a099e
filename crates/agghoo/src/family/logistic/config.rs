//! The typed configuration of logistic regression.

use serde::{Deserialize, Serialize};

use super::{LogisticFamily, Penalty, check_classification, default_grid};
use crate::data::Dataset;
use crate::data::Encoding;
use crate::error::{Error, Result};
use crate::family::params::{check_max_iter, check_tol, parse_f64, parse_usize, unknown_key};
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, Scale, Setting, family_config};

/// The registration of `logistic`.
pub(crate) static LOGISTIC: FamilyInfo = FamilyInfo {
    name: "logistic",
    summary: "L2 (or L1) logistic regression, grid over lambda",
    settings: &[Setting::fixed("tol"), Setting::fixed("max_iter"), Setting::axis("penalty", AxisKind::Categorical)],
    path_axes: &["lambda"],
    path_scale: Scale::Log,
    default_grid: "lambda: 50 log-spaced values from 10 lambda0 down to 1e-4 lambda0 (L1: from lambda0 down to 1e-3 lambda0), \
                   lambda0 the gradient's size at w = 0",
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: true, decision_scores: false },
    sample_weight: true,
};

/// The logistic-regression family's configuration (`--family logistic`).
///
/// ```
/// use agghoo::family::{GridSpec, logistic::{LogisticConfig, Penalty}};
/// let data = agghoo::data::generators::knn_problem(60, agghoo::Seed(1))?;
/// let config = LogisticConfig { penalty: Penalty::L1, grid: Some(GridSpec::parse("log:0.01:1:3")?), ..LogisticConfig::default() };
/// assert_eq!(config.build(&data)?.grid().len(), 3);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogisticConfig {
    /// Gradient tolerance (> 0; default 10⁻⁶).
    pub tol: f64,
    /// Iterations per λ (≥ 1; default 10 000).
    pub max_iter: usize,
    /// The penalty (default L2).
    pub penalty: Penalty,
    /// The grid of λ; `None`: the data-dependent default path (see the module doc).
    pub grid: Option<GridSpec>,
}

impl Default for LogisticConfig {
    fn default() -> Self {
        Self { tol: 1e-6, max_iter: 10_000, penalty: Penalty::L2, grid: None }
    }
}

impl LogisticConfig {
    /// Sets `key` (`tol`, `max_iter`, `penalty` = `l2` or `l1`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key (listing the known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "tol" => self.tol = parse_f64("tol", value)?,
            "max_iter" => self.max_iter = parse_usize("max_iter", value)?,
            "penalty" => {
                self.penalty = match value {
                    "l2" => Penalty::L2,
                    "l1" => Penalty::L1,
                    other => return Err(Error::invalid("penalty", "l2 or l1", other)),
                }
            }
            _ => return Err(unknown_key("logistic", &LOGISTIC.setting_names(), key)),
        }
        Ok(())
    }
    /// Checks `tol` > 0 and `max_iter` ≥ 1.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        check_tol(self.tol)?;
        check_max_iter(self.max_iter)?;
        Ok(())
    }
    /// Builds the family for `data`.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`](crate::Error::TaskMismatch) on regression data; as
    /// [`validate`](Self::validate); an invalid grid.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        check_classification(data.task())?;
        let lambdas = match &self.grid {
            Some(g) => g.values()?,
            None => default_grid(data, self.penalty),
        };
        let family = LogisticFamily::new(lambdas, data.target().n_classes())?
            .with_penalty(self.penalty)?
            .with_tol(self.tol)?
            .with_max_iter(self.max_iter)?;
        Ok(Box::new(family))
    }
}

family_config!(LogisticConfig);
