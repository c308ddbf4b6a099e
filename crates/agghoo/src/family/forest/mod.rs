//! Random forests (Breiman 2001): bootstrap samples, `mtry` random candidate features per node,
//! unpruned CART trees grown by the CART family's split code (`cart/tree.rs`), out-of-bag error,
//! impurity and permutation importances.
//!
//! Aggregation: classification averages the trees' leaf class fractions and predicts the class
//! of largest mean probability (ties: the lowest class index), as scikit-learn's
//! `RandomForestClassifier` (a hard vote of the trees was rejected: it loses the probabilities
//! and ties more often); `decision = p̄_1 − p̄_0` for two classes. Regression averages the leaf
//! means.
//!
//! Sample weights (weighted data): the bootstrap draws are the same as without weights; each
//! tree is grown with row weight = bootstrap count × sample weight (as scikit-learn's forests
//! multiply the counts by `sample_weight`), so its impurities and leaf values are weighted, while
//! `min_samples_leaf` counts bootstrap copies (scikit-learn counts distinct rows). The out-of-bag
//! error is the weighted risk of the out-of-bag predictions.
//!
//! Determinism: tree b draws its bootstrap and its feature subsets from
//! `Seed(seed).rng(Purpose::Learner, b)` only, trees are collected in index order and every
//! average is summed serially in tree order, so a forest is bit-identical for any number of
//! threads.
//!
//! As a family, the grid is `mtry` by default (or `min_samples_leaf` with `--param
//! grid=min_samples_leaf`). There is no shared path: each grid point is its own forest (the
//! rows are sorted once per training set and reused). Simplicity: a *smaller* `mtry` is the
//! simpler, more regularised rule — with `mtry = 1` splits are on random features and the
//! ensemble averages nearly data-independent partitions (strongest smoothing), while `mtry = d`
//! is bagging, the most data-adaptive — so `larger_is_simpler = false` for `mtry`; for
//! `min_samples_leaf` larger leaves are simpler (`true`).

mod config;
mod model;

use std::sync::OnceLock;

pub(crate) use self::config::FOREST;
pub use self::config::{ForestAxis, ForestConfig};
pub use self::model::{ForestModel, Importance};
use super::cart::TreeSettings;
use super::cart::tree::{Criterion, Presorted};
use super::{Family, FittedPath, Grid, Model, Predictor};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::limits;
use crate::predictions::PathPredictions;
use crate::seed::Seed;

/// First stream index of the permutation-importance draws (tree b uses stream b < 2^63).
const PERMUTATION_STREAMS: u64 = 1 << 63;

/// Settings of one forest.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestOptions {
    /// Number of trees B (≥ 1; default 500).
    pub n_trees: usize,
    /// Candidate features per node (1 ≤ mtry ≤ d); `None` = ⌊√d⌋ for classification,
    /// max(1, ⌊d/3⌋) for regression.
    pub mtry: Option<usize>,
    /// Minimal number of rows of a leaf, bootstrap copies counted (≥ 1; default 1).
    pub min_samples_leaf: usize,
    /// Maximal depth, `None` = unlimited.
    pub max_depth: Option<usize>,
    /// Split criterion, `None` = Gini / squared error.
    pub criterion: Option<Criterion>,
    /// Seed of the bootstraps and feature draws.
    pub seed: Seed,
}

impl Default for ForestOptions {
    fn default() -> Self {
        Self { n_trees: 500, mtry: None, min_samples_leaf: 1, max_depth: None, criterion: None, seed: Seed(0) }
    }
}

/// The default `mtry` of a task with `d` features.
pub fn default_mtry(task: Task, d: usize) -> usize {
    match task {
        Task::Classification => ((d as f64).sqrt().floor() as usize).max(1),
        Task::Regression => (d / 3).max(1),
    }
}

fn check_mtry(mtry: usize, d: usize) -> Result<()> {
    if mtry == 0 || mtry > d {
        return Err(Error::InvalidParameter {
            name: "mtry",
            expected: "between 1 and the number of features",
            got: format!("{mtry} with {d} features"),
        });
    }
    Ok(())
}

/// The random-forest family: one forest per grid value of `mtry` (or `min_samples_leaf`).
#[derive(Clone, Debug)]
pub struct ForestFamily {
    grid: Grid,
    swept: ForestAxis,
    settings: TreeSettings,
    n_trees: usize,
    /// The `mtry` setting; `None`: the default of each training set's width.
    mtry: Option<usize>,
    seed: Seed,
}

/// Refuses `trees = 0` and a tree count beyond [`Count::Trees`](limits::Count::Trees).
fn check_trees(n_trees: usize) -> Result<()> {
    if n_trees == 0 {
        return Err(Error::invalid("trees", "at least 1", 0));
    }
    limits::check_count(limits::Count::Trees, n_trees as u128, "a forest")
}

impl ForestFamily {
    /// The forest of grid point `grid_index` on `train`, as wide as `train`: in a union with
    /// one-hot families, a training set that lacks a level of a categorical column has fewer
    /// columns than all rows, so the default `mtry` is that of the training set's width `d_t`
    /// and an `mtry` (setting or grid value) beyond `d_t` is `d_t` (bagging).
    fn fit_one(&self, train: &View<'_>, data: &Presorted, grid_index: usize) -> Result<ForestModel> {
        let d = train.n_features();
        let value = self.grid.value(grid_index) as usize;
        let mut settings = self.settings;
        let mut mtry = self.mtry.unwrap_or_else(|| default_mtry(settings.task, d));
        match self.swept {
            ForestAxis::Mtry => mtry = value,
            ForestAxis::MinSamplesLeaf => settings.config.min_samples_leaf = value,
        }
        ForestModel::fit_presorted(train, data, &settings, self.n_trees, mtry.clamp(1, d.max(1)), self.seed)
    }
}

impl Family for ForestFamily {
    fn name(&self) -> &'static str {
        "forest"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.settings.task
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        Ok(Model::Forest(self.fit_one(train, &Presorted::new(train)?, grid_index)?))
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let data = Presorted::new(train)?;
        let models = (0..self.grid.len()).map(|_| OnceLock::new()).collect();
        Ok(Box::new(ForestPath { family: self, train: train.clone(), data, models }))
    }
}

/// The rows sorted once; each grid point's forest is grown on first use and kept, so the
/// selected member is not regrown.
struct ForestPath<'a> {
    family: &'a ForestFamily,
    train: View<'a>,
    data: Presorted,
    models: Vec<OnceLock<ForestModel>>,
}

impl ForestPath<'_> {
    fn get(&self, grid_index: usize) -> Result<&ForestModel> {
        if let Some(m) = self.models[grid_index].get() {
            return Ok(m);
        }
        let model = self.family.fit_one(&self.train, &self.data, grid_index)?;
        Ok(self.models[grid_index].get_or_init(|| model))
    }
}

impl FittedPath for ForestPath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        (0..self.family.grid.len()).map(|m| self.get(m)?.predict(validation)).collect()
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        Ok(Model::Forest(self.get(grid_index)?.clone()))
    }
}

#[cfg(test)]
mod tests;
