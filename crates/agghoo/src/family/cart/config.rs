//! The typed configuration of CART, and the tree settings it shares with the random forest.

use serde::{Deserialize, Serialize};

use super::prune::Pruning;
use super::tree::{Presorted, grow};
use super::{CartFamily, Criterion, TreeSettings};
use crate::data::Dataset;
use crate::data::Encoding;
use crate::error::Result;
use crate::family::params::{parse_usize, unknown_key};
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, Scale, Setting, family_config};

/// The tree settings `cart` and `forest` share, each also a grid axis: `min_samples_leaf` (larger
/// is simpler), `max_depth` (smaller is simpler), `criterion` (in the order written).
pub(crate) const CRITERION: Setting = Setting::axis("criterion", AxisKind::Categorical);
/// See [`CRITERION`].
pub(crate) const MIN_SAMPLES_LEAF: Setting =
    Setting::axis("min_samples_leaf", AxisKind::Numeric { scale: Scale::Integer, larger_is_simpler: true });
/// See [`CRITERION`].
pub(crate) const MAX_DEPTH: Setting = Setting::axis("max_depth", AxisKind::Numeric { scale: Scale::Integer, larger_is_simpler: false });

/// The registration of `cart`.
pub(crate) static CART: FamilyInfo = FamilyInfo {
    name: "cart",
    summary: "cost-complexity pruned CART, grid over alpha",
    settings: &[CRITERION, MIN_SAMPLES_LEAF, MAX_DEPTH],
    path_axes: &["alpha"],
    path_scale: Scale::Linear,
    default_grid: "alpha: the cost-complexity pruning sequence of the tree grown on all rows",
    encoding: Encoding::Ordinal,
    capabilities: Capabilities { probabilities: true, decision_scores: false },
    sample_weight: true,
};

/// Sets one of the tree settings `criterion`, `min_samples_leaf`, `max_depth` from its text;
/// `Ok(false)` for another key.
pub(crate) fn set_tree_setting(
    key: &str,
    value: &str,
    criterion: &mut Option<Criterion>,
    min_samples_leaf: &mut usize,
    max_depth: &mut Option<usize>,
) -> Result<bool> {
    match key {
        "criterion" => *criterion = Some(Criterion::parse_name(value)?),
        "min_samples_leaf" => *min_samples_leaf = parse_usize("min_samples_leaf", value)?,
        "max_depth" => *max_depth = Some(parse_usize("max_depth", value)?),
        _ => return Ok(false),
    }
    Ok(true)
}

/// The validated tree settings for `data`'s task.
pub(crate) fn tree_settings(
    data: &Dataset,
    criterion: Option<Criterion>,
    min_samples_leaf: usize,
    max_depth: Option<usize>,
) -> Result<TreeSettings> {
    let task = data.task();
    TreeSettings::new(task, data.target().n_classes(), criterion.unwrap_or(Criterion::default_for(task)), min_samples_leaf, max_depth)
}

/// The CART family's configuration (`--family cart`).
///
/// ```
/// use agghoo::family::{GridSpec, cart::CartConfig};
/// let data = agghoo::data::generators::knn_problem(60, agghoo::Seed(1))?;
/// let config = CartConfig { max_depth: Some(3), grid: Some(GridSpec::parse("0,0.01,0.1")?), ..CartConfig::default() };
/// assert_eq!(config.build(&data)?.grid().values(), [0.0, 0.01, 0.1]);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CartConfig {
    /// The split criterion; `None`: Gini for classification, squared error for regression — it
    /// depends on the data's task.
    pub criterion: Option<Criterion>,
    /// Minimal number of rows of a leaf (≥ 1; default 1).
    pub min_samples_leaf: usize,
    /// Maximal depth; `None`: unlimited (the default).
    pub max_depth: Option<usize>,
    /// The grid of α; `None`: the distinct α's of the pruning sequence of the tree grown on the
    /// data given to [`build`](Self::build).
    pub grid: Option<GridSpec>,
}

impl Default for CartConfig {
    fn default() -> Self {
        Self { criterion: None, min_samples_leaf: 1, max_depth: None, grid: None }
    }
}

impl CartConfig {
    /// Sets `key` (`criterion`, `min_samples_leaf`, `max_depth`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for an unknown key (listing the
    /// known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        if set_tree_setting(key, value, &mut self.criterion, &mut self.min_samples_leaf, &mut self.max_depth)? {
            return Ok(());
        }
        Err(unknown_key("cart", &CART.setting_names(), key))
    }
    /// Builds the CART family for `data`.
    ///
    /// # Errors
    /// As [`CartFamily::new`]; NaN features when the default grid is asked for (give a grid or
    /// impute first).
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        let settings = tree_settings(data, self.criterion, self.min_samples_leaf, self.max_depth)?;
        let alphas = match &self.grid {
            Some(g) => g.values()?,
            None => {
                let tree = grow(&Presorted::new(&data.all())?, None, &settings.config, None);
                Pruning::of(&tree).distinct_alphas()
            }
        };
        Ok(Box::new(CartFamily::with_settings(alphas, settings)?))
    }
}

family_config!(CartConfig);
