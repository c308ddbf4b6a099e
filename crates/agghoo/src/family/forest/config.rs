//! The typed configuration of the random-forest family.

use serde::{Deserialize, Serialize};

use super::{ForestFamily, check_mtry, check_trees, default_mtry};
use crate::data::Dataset;
use crate::data::Encoding;
use crate::error::{Error, Result};
use crate::family::cart::{CRITERION, Criterion, MAX_DEPTH, MIN_SAMPLES_LEAF, set_tree_setting, tree_settings};
use crate::family::params::{parse_usize, unknown_key};
use crate::family::{Capabilities, Family, FamilyInfo, Grid, GridSpec, Scale, Setting, family_config};
use crate::seed::Seed;

/// The registration of `forest`.
pub(crate) static FOREST: FamilyInfo = FamilyInfo {
    name: "forest",
    summary: "random forest, grid over mtry (or min_samples_leaf)",
    settings: &[
        Setting::fixed("trees"),
        Setting::fixed("mtry"),
        MIN_SAMPLES_LEAF,
        MAX_DEPTH,
        CRITERION,
        Setting::fixed("seed"),
        Setting::fixed("grid"),
    ],
    path_axes: &["mtry", "min_samples_leaf"],
    path_scale: Scale::Integer,
    default_grid: "mtry = 1, 2, 4, ... below d, the default mtry (sqrt(d) classes, d/3 regression) and d \
                   (--param grid=min_samples_leaf: 1, 2, 5, 10, 20, 50)",
    encoding: Encoding::Ordinal,
    capabilities: Capabilities { probabilities: true, decision_scores: false },
    sample_weight: true,
};

/// The hyperparameter a forest family's grid sweeps (`--param grid=…`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForestAxis {
    /// The number of candidate features per node (the default).
    #[default]
    Mtry,
    /// The minimal leaf weight.
    MinSamplesLeaf,
}

/// The random-forest family's configuration (`--family forest`).
///
/// ```
/// use agghoo::family::{GridSpec, forest::ForestConfig};
/// let data = agghoo::data::generators::knn_problem(60, agghoo::Seed(1))?;
/// let config = ForestConfig { trees: 20, seed: 7, grid: Some(GridSpec::parse("1,2")?), ..ForestConfig::default() };
/// assert_eq!(config.build(&data)?.grid().values(), [1.0, 2.0]);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ForestConfig {
    /// Number of trees (≥ 1; default 500).
    pub trees: usize,
    /// Candidate features per node (1 ≤ mtry ≤ d) where the grid does not sweep it; `None`:
    /// ⌊√d⌋ for classification, max(1, ⌊d/3⌋) for regression — it depends on the data. A fit
    /// uses the width of its own training set: in a union with one-hot families, a training set
    /// that lacks a level is narrower than all rows; there the default is that width's and an
    /// `mtry` beyond it is the width (bagging).
    pub mtry: Option<usize>,
    /// Minimal bootstrap weight of a leaf (≥ 1; default 1).
    pub min_samples_leaf: usize,
    /// Maximal depth; `None`: unlimited (the default).
    pub max_depth: Option<usize>,
    /// The split criterion; `None`: Gini for classification, squared error for regression.
    pub criterion: Option<Criterion>,
    /// Seed of the bootstraps and feature draws (default 0).
    pub seed: u64,
    /// What the grid sweeps (default `mtry`; the `grid` setting).
    pub axis: ForestAxis,
    /// The grid; `None`: `mtry` ∈ {1, 2, 4, 8, …} ∪ {default mtry, d} (values ≤ d; it depends on
    /// the data), or `min_samples_leaf` ∈ {1, 2, 5, 10, 20, 50}.
    pub grid: Option<GridSpec>,
}

impl Default for ForestConfig {
    fn default() -> Self {
        Self { trees: 500, mtry: None, min_samples_leaf: 1, max_depth: None, criterion: None, seed: 0, axis: ForestAxis::Mtry, grid: None }
    }
}

impl ForestConfig {
    /// Sets `key` (`trees`, `mtry`, `min_samples_leaf`, `max_depth`, `criterion`, `seed`, `grid`
    /// = `mtry` or `min_samples_leaf`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key (listing the known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        if set_tree_setting(key, value, &mut self.criterion, &mut self.min_samples_leaf, &mut self.max_depth)? {
            return Ok(());
        }
        match key {
            "trees" => self.trees = parse_usize("trees", value)?,
            "mtry" => self.mtry = Some(parse_usize("mtry", value)?),
            "seed" => self.seed = value.parse::<u64>().map_err(|_| Error::invalid("seed", "a non-negative integer", value))?,
            "grid" => {
                self.axis = match value {
                    "mtry" => ForestAxis::Mtry,
                    "min_samples_leaf" => ForestAxis::MinSamplesLeaf,
                    other => return Err(Error::invalid("grid", "mtry or min_samples_leaf", other)),
                }
            }
            _ => return Err(unknown_key("forest", &FOREST.setting_names(), key)),
        }
        Ok(())
    }
    /// Builds the forest family for `data`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `trees = 0`, an `mtry` (setting or grid value) outside
    /// `1..=d`, a non-integer or zero grid value, `min_samples_leaf = 0`;
    /// [`Error::TaskMismatch`] for a criterion of the other task.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        let settings = tree_settings(data, self.criterion, self.min_samples_leaf, self.max_depth)?;
        let d = data.n_features();
        check_trees(self.trees)?;
        let mtry = self.mtry.unwrap_or(default_mtry(data.task(), d));
        check_mtry(mtry, d)?;
        let grid = match self.axis {
            ForestAxis::Mtry => {
                let values = match &self.grid {
                    Some(g) => g.values()?,
                    None => {
                        let mut values: Vec<f64> =
                            std::iter::successors(Some(1usize), |&k| Some(2 * k)).take_while(|&k| k < d).map(|k| k as f64).collect();
                        values.extend([mtry as f64, d as f64]);
                        values
                    }
                };
                if let Some(v) = values.iter().find(|&&v| v > d as f64) {
                    return Err(Error::InvalidParameter {
                        name: "grid",
                        expected: "mtry values no larger than the number of features",
                        got: format!("{v} with {d} features"),
                    });
                }
                Grid::new("mtry", values, Scale::Integer, false)?
            }
            ForestAxis::MinSamplesLeaf => {
                let values = match &self.grid {
                    Some(g) => g.values()?,
                    None => vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0],
                };
                Grid::new("min_samples_leaf", values, Scale::Integer, true)?
            }
        };
        Ok(Box::new(ForestFamily { grid, swept: self.axis, settings, n_trees: self.trees, mtry: self.mtry, seed: Seed(self.seed) }))
    }
}

family_config!(ForestConfig;
    fn path_axis(&self, _: &'static FamilyInfo) -> &'static str {
        match self.axis {
            ForestAxis::Mtry => "mtry",
            ForestAxis::MinSamplesLeaf => "min_samples_leaf",
        }
    }
    fn build_family(&self, _: &'static FamilyInfo, data: &Dataset) -> Result<Box<dyn Family>> {
        self.build(data)
    }
);
