//! CART with Breiman's minimal cost-complexity pruning; the grid is α (ascending, α = 0 is the
//! full tree, larger α are simpler trees). Design note: `family/cart/README.md`.
//!
//! Path evaluation: one tree is grown per training set; the weakest-link sequence gives each
//! internal node the α from which it is a leaf, and those α's are non-increasing from the root
//! down. The prediction of `T(α_m)` for a row is the first node on its root → leaf walk whose α
//! is ≤ α_m, so one walk serves every α of the grid (`O(depth + |M|)` per row). The naive
//! alternative, growing and pruning one tree per grid point and split, costs |M| trees.
//!
//! Objective (classification and regression alike): the full tree `T_0` is grown greedily; for
//! α ≥ 0 the pruned tree minimises `R_α(T) = Σ_{leaves t} (n_t / n) i(t) + α |leaves(T)|`
//! (scikit-learn's `ccp_alpha`), `i` the Gini index, the entropy in bits or the variance.
//!
//! Outputs: regression, the leaf mean; classification, the class with the largest leaf
//! fraction (ties: the lowest class index), the leaf's class fractions as `proba` and, for two
//! classes, `decision = p_1 − p_0` (positive for class 1).
//!
//! Sample weights (weighted data): impurities, leaf values and the node weights `n_t` of the
//! pruning are weighted, `min_samples_leaf` counts rows, as scikit-learn's `sample_weight`
//! (`README.md`, "Sample weights").
//!
//! Default grid: the distinct α's of the pruning sequence of the tree grown on the *full* sample
//! given to [`CartConfig::build`], so every split is evaluated on the same grid (as in the papers); a split's
//! own tree may have other breakpoints, and `T(α)` is defined at any α ≥ 0.

mod config;
pub(crate) mod leaves;
mod model;
mod prune;
pub(crate) mod tree;

use rayon::prelude::*;

pub(crate) use self::config::CART;
pub use self::config::CartConfig;
pub(crate) use self::config::{CRITERION, MAX_DEPTH, MIN_SAMPLES_LEAF, set_tree_setting, tree_settings};
pub use self::model::CartModel;
pub(crate) use self::model::{corrupted_tree, output_width};
use self::prune::Pruning;
pub use self::tree::Criterion;
use self::tree::{GrowConfig, Presorted, Tree, grow};
use super::{Family, FittedPath, Grid, Model, Scale};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::predictions::{PathPredictions, Predictions};

/// Settings shared by the CART family and the random forest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TreeSettings {
    pub config: GrowConfig,
    pub task: Task,
}

impl TreeSettings {
    pub fn new(task: Task, n_classes: usize, criterion: Criterion, min_samples_leaf: usize, max_depth: Option<usize>) -> Result<Self> {
        criterion.check_task(task)?;
        if min_samples_leaf == 0 {
            return Err(Error::invalid("min_samples_leaf", "at least 1", 0));
        }
        if task == Task::Classification && n_classes < 2 {
            return Err(Error::invalid("classes", "at least 2", n_classes));
        }
        let n_classes = if task == Task::Classification { n_classes } else { 0 };
        Ok(Self { config: GrowConfig { criterion, min_samples_leaf, max_depth, n_classes }, task })
    }
}

/// Refuses rows with another number of features than the model was trained on.
pub(crate) fn check_features(n_features: usize, rows: &View<'_>) -> Result<()> {
    if rows.n_features() != n_features {
        return Err(Error::SchemaMismatch(format!("the tree model has {n_features} features, the data have {}", rows.n_features())));
    }
    Ok(())
}

/// Predictions from per-row leaf values (class fractions or means), `width` values per row.
pub(crate) fn predictions_from_values(task: Task, n_classes: usize, values: Vec<f64>) -> Predictions {
    match task {
        Task::Regression => Predictions::Real(values),
        Task::Classification => {
            let n = values.len() / n_classes.max(1);
            let labels = (0..n)
                .map(|i| {
                    let p = &values[i * n_classes..(i + 1) * n_classes];
                    let mut best = 0;
                    for (k, &v) in p.iter().enumerate() {
                        if v > p[best] {
                            best = k;
                        }
                    }
                    best as u32
                })
                .collect();
            let decision = (n_classes == 2).then(|| (0..n).map(|i| values[2 * i + 1] - values[2 * i]).collect());
            Predictions::Classes { labels, n_classes, proba: Some(values), decision }
        }
    }
}

/// The CART family: one grid point per pruning level α.
#[derive(Clone, Debug)]
pub struct CartFamily {
    grid: Grid,
    settings: TreeSettings,
}

impl CartFamily {
    /// A CART family over the given α values (sorted ascending, deduplicated).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid, a negative or non-finite α,
    /// `min_samples_leaf = 0`, fewer than 2 classes; [`Error::TaskMismatch`] for a criterion of
    /// the other task.
    pub fn new(
        alphas: Vec<f64>,
        task: Task,
        n_classes: usize,
        criterion: Criterion,
        min_samples_leaf: usize,
        max_depth: Option<usize>,
    ) -> Result<Self> {
        Self::with_settings(alphas, TreeSettings::new(task, n_classes, criterion, min_samples_leaf, max_depth)?)
    }

    fn with_settings(alphas: Vec<f64>, settings: TreeSettings) -> Result<Self> {
        if let Some(a) = alphas.iter().find(|&&a| a < 0.0) {
            return Err(Error::invalid("grid", "α ≥ 0", a));
        }
        Ok(Self { grid: Grid::new("alpha", alphas, Scale::Linear, true)?, settings })
    }

    fn grow(&self, train: &View<'_>) -> Result<Tree> {
        if train.task() != self.settings.task {
            return Err(Error::TaskMismatch(format!("CART was built for {:?}, the data are {:?}", self.settings.task, train.task())));
        }
        Ok(grow(&Presorted::new(train)?, None, &self.settings.config, None))
    }

    /// The cost-complexity pruning path of the tree grown on `train`, as scikit-learn's
    /// `DecisionTreeClassifier.cost_complexity_pruning_path`: `α_0 = 0` and one α per weakest
    /// link cut, with the total leaf impurity `R(T_k) = Σ_{leaves} (n_t/n) i(t)` after each cut.
    ///
    /// # Errors
    /// An empty view; NaN features; a view of another task.
    pub fn pruning_path(&self, train: &View<'_>) -> Result<PruningPath> {
        let pruning = Pruning::of(&self.grow(train)?);
        Ok(PruningPath { alphas: pruning.alphas, impurities: pruning.impurities })
    }

    fn model(&self, tree: &Tree, pruning: &Pruning, alpha: f64, n_features: usize) -> CartModel {
        CartModel {
            task: self.settings.task,
            n_classes: self.settings.config.n_classes,
            n_features,
            alpha,
            tree: tree.pruned(|t| pruning.node_alpha[t] <= alpha),
        }
    }
}

/// The pruning sequence of one grown tree (see [`CartFamily::pruning_path`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PruningPath {
    /// `α_k`, non-decreasing, `α_0 = 0`.
    pub alphas: Vec<f64>,
    /// `R(T_k)`, the total leaf impurity of the tree after k cuts.
    pub impurities: Vec<f64>,
}

impl Family for CartFamily {
    fn name(&self) -> &'static str {
        "cart"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.settings.task
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        let tree = self.grow(train)?;
        let pruning = Pruning::of(&tree);
        Ok(Model::Cart(self.model(&tree, &pruning, self.grid.value(grid_index), train.n_features())))
    }
    /// Prunes at exactly `value` (EKCV's averaged α need not be on the grid).
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        if !(value >= 0.0 && value.is_finite()) {
            return Err(Error::invalid("alpha", "finite and ≥ 0", value));
        }
        let tree = self.grow(train)?;
        Ok(Model::Cart(self.model(&tree, &Pruning::of(&tree), value, train.n_features())))
    }
    fn fitted_value(&self, value: f64) -> f64 {
        value
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        let tree = self.grow(train)?;
        let pruning = Pruning::of(&tree);
        Ok(Box::new(CartPath { family: self, tree, pruning, n_features: train.n_features() }))
    }
}

struct CartPath<'a> {
    family: &'a CartFamily,
    tree: Tree,
    pruning: Pruning,
    n_features: usize,
}

impl FittedPath for CartPath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        check_features(self.n_features, validation)?;
        let alphas = self.family.grid.values();
        let (tree, node_alpha) = (&self.tree, &self.pruning.node_alpha);
        // Per row, the node predicting at each grid point: walking down, node α's do not
        // increase, so the grid is consumed from its largest α.
        let nodes: Vec<Vec<u32>> = (0..validation.len())
            .into_par_iter()
            .with_min_len(validation.par().min_len(validation.len()).max(64))
            .map(|i| {
                let x = validation.x(i);
                let mut at = vec![0u32; alphas.len()];
                let mut m = alphas.len();
                let mut t = 0usize;
                loop {
                    while m > 0 && node_alpha[t] <= alphas[m - 1] {
                        at[m - 1] = t as u32;
                        m -= 1;
                    }
                    match (&tree.nodes[t].split, m) {
                        (_, 0) | (None, _) => break,
                        (Some(s), _) => t = if x[s.feature as usize] <= s.threshold { s.left as usize } else { s.right as usize },
                    }
                }
                at
            })
            .collect();
        let (task, n_classes) = (self.family.settings.task, self.family.settings.config.n_classes);
        Ok((0..alphas.len())
            .map(|m| {
                let mut values = Vec::with_capacity(nodes.len() * tree.width);
                for at in &nodes {
                    values.extend_from_slice(tree.value(at[m] as usize));
                }
                predictions_from_values(task, n_classes, values)
            })
            .collect())
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        Ok(Model::Cart(self.family.model(&self.tree, &self.pruning, self.family.grid.value(grid_index), self.n_features)))
    }
}

#[cfg(test)]
mod tests;
