//! The typed configuration of the k-NN family.

use serde::{Deserialize, Serialize};

use super::{KnnFamily, Weights};
use crate::data::Dataset;
use crate::data::Encoding;
use crate::error::Result;
use crate::family::params::unknown_key;
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, Scale, Setting, family_config};

/// The registration of `knn`.
pub(crate) static KNN: FamilyInfo = FamilyInfo {
    name: "knn",
    summary: "k-nearest neighbours (classification or regression), grid over k",
    settings: &[Setting::axis("weights", AxisKind::Categorical)],
    path_axes: &["k"],
    path_scale: Scale::Integer,
    default_grid: "k = 1, 3, 5, ..., min(99, n/2)",
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: true, decision_scores: false },
    sample_weight: true,
};

/// The k-NN family's configuration (`--family knn`).
///
/// ```
/// use agghoo::family::{GridSpec, knn::{KnnConfig, Weights}};
/// let data = agghoo::data::generators::knn_problem(60, agghoo::Seed(1))?;
/// let config = KnnConfig { grid: Some(GridSpec::parse("1:9:2")?), weights: Weights::Distance };
/// let family = config.build(&data)?;
/// assert_eq!(family.grid().values(), [1.0, 3.0, 5.0, 7.0, 9.0]);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KnnConfig {
    /// The grid of k; `None`: odd k from 1 to min(99, n/2) — it depends on the number of rows n.
    pub grid: Option<GridSpec>,
    /// How the neighbours vote (default uniform).
    pub weights: Weights,
}

impl KnnConfig {
    /// Sets `key` (`weights`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for an unknown key (listing the
    /// known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "weights" => self.weights = Weights::parse(value)?,
            _ => return Err(unknown_key("knn", &KNN.setting_names(), key)),
        }
        Ok(())
    }
    /// Checks the data-independent values (nothing beyond what the types ensure).
    ///
    /// # Errors
    /// None today; kept for symmetry with the other families.
    pub fn validate(&self) -> Result<()> {
        Ok(())
    }
    /// Builds the k-NN family for `data`.
    ///
    /// # Errors
    /// As [`KnnFamily::new`] (k = 0, a non-integer k, an empty grid).
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        self.validate()?;
        let kmax = 99.min(data.n_rows() / 2).max(1);
        let ks = match &self.grid {
            Some(g) => g.values()?,
            None => (1..=kmax).step_by(2).map(|k| k as f64).collect(),
        };
        Ok(Box::new(KnnFamily::new(ks, data.task(), data.target().n_classes())?.with_weights(self.weights).sharing_with(data)))
    }
}

family_config!(KnnConfig);
