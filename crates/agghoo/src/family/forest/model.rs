//! The fitted model of the random-forest family: its trees, predictions by averaging leaf values,
//! and feature importances.

use rand::RngExt;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{ForestOptions, PERMUTATION_STREAMS, check_mtry, check_trees, default_mtry};
use crate::Par;
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::family::cart::leaves::LeafTree;
use crate::family::cart::tree::{Criterion, FeatureSampler, GrowBuffers, Node, Presorted, Tree, grow_with};
use crate::family::cart::{TreeSettings, check_features, corrupted_tree, output_width, predictions_from_values};
use crate::limits;
use crate::loss::Loss;
use crate::predictions::Predictions;
use crate::seed::{Purpose, Seed};

/// A fitted random forest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForestModel {
    task: Task,
    n_classes: usize,
    n_features: usize,
    /// Splits and sparse leaf values only (model format 3); format 1–2 files, which stored `K`
    /// values at every node, are read and converted.
    #[serde(deserialize_with = "read_trees")]
    trees: Vec<LeafTree>,
    oob_error: Option<f64>,
    impurity_importances: Vec<f64>,
}

/// Which variable importance [`ForestModel::importances`] computes.
#[derive(Clone, Copy, Debug)]
pub enum Importance<'a> {
    /// Mean decrease in impurity: per tree, `Σ_{nodes split on j} n_t i(t) − n_L i(L) − n_R i(R)`
    /// normalised to sum 1, averaged over trees and normalised again (scikit-learn's
    /// `feature_importances_`). Computed on the training data; biased towards features with
    /// many distinct values.
    Impurity,
    /// Mean increase in the task's risk (0–1 or squared) on `rows` when column j is randomly
    /// permuted among those rows (one permutation per feature, from
    /// `seed.rng(Purpose::Learner, 2^63 + j)`, streams no tree uses): `R(permuted_j) − R(original)`.
    /// Use held-out rows.
    Permutation {
        /// The rows to evaluate on (features and targets).
        rows: &'a View<'a>,
        /// Seed of the permutations.
        seed: Seed,
    },
}

impl ForestModel {
    /// Grows a forest on `train`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `n_trees = 0`, `mtry` outside `1..=d`,
    /// `min_samples_leaf = 0`; [`Error::TaskMismatch`] for a criterion of the other task; NaN
    /// features; an empty view.
    ///
    /// ```
    /// use agghoo::{Seed, data::generators::genuer, family::Predictor, family::forest::{ForestModel, ForestOptions}};
    /// let data = genuer(200, 8, Seed(1), 0)?;
    /// let forest = ForestModel::fit(&data.all(), &ForestOptions { n_trees: 50, ..ForestOptions::default() })?;
    /// assert_eq!(forest.n_trees(), 50);
    /// assert!(forest.oob_error().unwrap() < 0.2);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    pub fn fit(train: &View<'_>, options: &ForestOptions) -> Result<ForestModel> {
        let task = train.task();
        let settings = TreeSettings::new(
            task,
            train.n_classes(),
            options.criterion.unwrap_or(Criterion::default_for(task)),
            options.min_samples_leaf,
            options.max_depth,
        )?;
        let d = train.n_features();
        let mtry = options.mtry.unwrap_or(default_mtry(task, d));
        check_mtry(mtry, d)?;
        check_trees(options.n_trees)?;
        Self::fit_presorted(train, &Presorted::new(train)?, &settings, options.n_trees, mtry, options.seed)
    }

    pub(super) fn fit_presorted(
        train: &View<'_>,
        data: &Presorted,
        settings: &TreeSettings,
        n_trees: usize,
        mtry: usize,
        seed: Seed,
    ) -> Result<Self> {
        let (n, d) = (data.n_rows(), train.n_features());
        // A kept tree has at most 2n − 1 nodes of 20 bytes and at most n leaf entries of 12 bytes
        // (a leaf of weight w has at most w nonzero class fractions); each bootstrap keeps n
        // weights until the out-of-bag error is known. While it grows, a tree also holds a
        // weight, an impurity and `width` values at every node: one such tree per thread.
        let width = output_width(settings.task, settings.config.n_classes);
        let kept_bytes = limits::product([2 * n as u128, 20]) + limits::product([n as u128, 12 + 4]);
        let growing_bytes = limits::product([2 * n as u128, (std::mem::size_of::<Node>() + 8 * width) as u128]);
        let threads = train.par().n_threads().min(n_trees) as u128;
        limits::check_memory(
            format_args!("a forest of {n_trees} trees on {n} rows"),
            limits::product([n_trees as u128, kept_bytes]).saturating_add(limits::product([threads, growing_bytes])),
        )?;
        let grown: Vec<(LeafTree, Vec<u32>, Vec<f64>)> = (0..n_trees)
            .into_par_iter()
            .with_min_len(train.par().min_len(n_trees))
            .map_init(GrowBuffers::default, |buffers, b| {
                let mut rng = seed.rng(Purpose::Learner, b as u64);
                let mut weights = vec![0u32; n];
                for _ in 0..n {
                    weights[rng.random_range(0..n)] += 1;
                }
                let tree = grow_with(data, Some(&weights), &settings.config, Some(FeatureSampler { mtry, rng: &mut rng }), buffers);
                let kept = LeafTree::from_tree(&tree).ok_or_else(|| Error::Internal(format!("forest tree {b} could not be stored")))?;
                let decrease = tree.impurity_decrease(d);
                buffers.recycle(tree);
                Ok((kept, weights, decrease))
            })
            .collect::<Result<_>>()?;
        let mut model = ForestModel {
            task: settings.task,
            n_classes: settings.config.n_classes,
            n_features: train.n_features(),
            trees: Vec::with_capacity(n_trees),
            oob_error: None,
            impurity_importances: Vec::new(),
        };
        let mut weights = Vec::with_capacity(n_trees);
        let mut decreases = Vec::with_capacity(n_trees);
        for (tree, w, decrease) in grown {
            model.trees.push(tree);
            weights.push(w);
            decreases.push(decrease);
        }
        model.oob_error = model.out_of_bag_error(train, &weights)?;
        model.impurity_importances = mean_decrease_impurity(d, &decreases);
        Ok(model)
    }

    /// Out-of-bag risk: each training row is predicted by the trees whose bootstrap missed it;
    /// rows no tree missed are left out, and so are rows of sample weight 0 (the risk is weighted
    /// on weighted data); `None` when no row is left.
    fn out_of_bag_error(&self, train: &View<'_>, weights: &[Vec<u32>]) -> Result<Option<f64>> {
        let width = self.width();
        let per_row: Vec<Option<Vec<f64>>> = (0..train.len())
            .into_par_iter()
            .with_min_len(train.par().min_len(train.len()))
            .map(|i| {
                let mut sum = vec![0.0; width];
                let mut count = 0usize;
                for (tree, w) in self.trees.iter().zip(weights) {
                    if w[i] == 0 {
                        add_leaf_values(&mut sum, tree, train.x(i))?;
                        count += 1;
                    }
                }
                Ok((count > 0).then(|| sum.into_iter().map(|s| s / count as f64).collect()))
            })
            .collect::<Result<_>>()?;
        let positions: Vec<usize> = (0..train.len()).filter(|&i| per_row[i].is_some() && train.weight(i) > 0.0).collect();
        if positions.is_empty() {
            return Ok(None);
        }
        let values = positions.iter().flat_map(|&i| per_row[i].iter().flatten().copied()).collect();
        let predictions = predictions_from_values(self.task, self.n_classes, values);
        Loss::default_for(self.task).risk(&predictions, &train.subview(&positions)).map(Some)
    }
}

/// Mean decrease in impurity over the trees, from each tree's impurity decreases per feature
/// (each tree's normalised to sum 1, then the total normalised).
fn mean_decrease_impurity(n_features: usize, per_tree: &[Vec<f64>]) -> Vec<f64> {
    let mut total = vec![0.0; n_features];
    for decrease in per_tree {
        let sum: f64 = decrease.iter().sum();
        if sum > 0.0 {
            total.iter_mut().zip(decrease).for_each(|(t, d)| *t += d / sum);
        }
    }
    let sum: f64 = total.iter().sum();
    if sum > 0.0 {
        total.iter_mut().for_each(|t| *t /= sum);
    }
    total
}

impl ForestModel {
    fn width(&self) -> usize {
        output_width(self.task, self.n_classes)
    }

    /// Checks a deserialized forest: at least one tree, each valid (see [`Tree::validate`])
    /// for `n_features` features and the class count, one finite importance per feature.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if self.n_features != n_features {
            return Err(corrupted_tree(format!("forest of {} features, schema has {n_features}", self.n_features)));
        }
        if self.task == Task::Classification && self.n_classes < 2 {
            return Err(corrupted_tree(format!("forest of {} classes", self.n_classes)));
        }
        self.check_shape()?;
        for (b, tree) in self.trees.iter().enumerate() {
            tree.validate(n_features, self.width()).map_err(|e| corrupted_tree(format!("forest tree {b}: {e}")))?;
        }
        if self.impurity_importances.len() != n_features || self.impurity_importances.iter().chain(&self.oob_error).any(|v| !v.is_finite())
        {
            return Err(corrupted_tree("forest importances or out-of-bag error".into()));
        }
        Ok(())
    }

    /// At least one tree.
    fn check_shape(&self) -> Result<()> {
        if self.trees.is_empty() {
            return Err(corrupted_tree("a forest without trees".into()));
        }
        Ok(())
    }

    /// The task and number of classes (0 for regression) the forest predicts.
    pub(crate) fn output(&self) -> (Task, usize) {
        (self.task, self.n_classes)
    }

    /// Mean tree values (class probabilities or means) of row-major rows `x`, rows in parallel
    /// by `par`.
    fn mean_values(&self, x: &[f64], par: Par) -> Result<Vec<f64>> {
        self.check_shape()?;
        let (d, width) = (self.n_features, self.width());
        let n = x.len().checked_div(d).unwrap_or(0);
        let per_row: Vec<Vec<f64>> = (0..n)
            .into_par_iter()
            .with_min_len(par.min_len(n).max(16))
            .map(|i| {
                let row = &x[i * d..(i + 1) * d];
                let mut sum = vec![0.0; width];
                for tree in &self.trees {
                    add_leaf_values(&mut sum, tree, row)?;
                }
                Ok(sum.into_iter().map(|s| s / self.trees.len() as f64).collect())
            })
            .collect::<Result<_>>()?;
        Ok(per_row.into_iter().flatten().collect())
    }

    /// Number of trees B.
    pub fn n_trees(&self) -> usize {
        self.trees.len()
    }

    /// The out-of-bag risk (0–1 error for classification, mean squared error for regression)
    /// over the training rows left out by at least one bootstrap; `None` if there were none.
    pub fn oob_error(&self) -> Option<f64> {
        self.oob_error
    }

    /// Variable importances, one per feature (see [`Importance`]).
    ///
    /// # Errors
    /// Permutation: [`Error::SchemaMismatch`] for rows with another number of features;
    /// [`Error::TaskMismatch`] for rows of another task.
    pub fn importances(&self, kind: Importance<'_>) -> Result<Vec<f64>> {
        let (rows, seed) = match kind {
            Importance::Impurity => return Ok(self.impurity_importances.clone()),
            Importance::Permutation { rows, seed } => (rows, seed),
        };
        check_features(self.n_features, rows)?;
        if rows.task() != self.task {
            return Err(Error::TaskMismatch(format!("the forest was fitted for {:?}, the rows are {:?}", self.task, rows.task())));
        }
        let loss = Loss::default_for(self.task);
        let x = rows.gather_x();
        let risk_of = |x: &[f64]| loss.risk(&predictions_from_values(self.task, self.n_classes, self.mean_values(x, rows.par())?), rows);
        let base = risk_of(&x)?;
        let (n, d) = (rows.len(), self.n_features);
        (0..d)
            .map(|j| {
                let mut order: Vec<usize> = (0..n).collect();
                order.shuffle(&mut seed.rng(Purpose::Learner, PERMUTATION_STREAMS + j as u64));
                let mut permuted = x.clone();
                for (i, &from) in order.iter().enumerate() {
                    permuted[i * d + j] = x[from * d + j];
                }
                Ok(risk_of(&permuted)? - base)
            })
            .collect()
    }
}

impl crate::family::FamilyModel for ForestModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        ForestModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        ForestModel::output(self)
    }
}

impl Predictor for ForestModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        check_features(self.n_features, rows)?;
        Ok(predictions_from_values(self.task, self.n_classes, self.mean_values(&rows.gather_x(), rows.par())?))
    }
}

/// Adds the values (class fractions or mean) of the leaf `x` falls in to `sum`.
///
/// # Errors
/// [`Error::CorruptModel`] when the walk leaves the tree (only a corrupted model file can cause it).
fn add_leaf_values(sum: &mut [f64], tree: &LeafTree, x: &[f64]) -> Result<()> {
    tree.add_leaf_values(sum, x).ok_or_else(|| corrupted_tree("a walk left a forest tree".into()))
}

/// Reads a forest's trees: model format 3 stores [`LeafTree`]s; formats 1–2 stored every
/// node's values, converted here (predictions are unchanged). A binary serde format (a unit's
/// outcome on a cluster, never a model file) holds [`LeafTree`]s only, read as they stream.
fn read_trees<'de, D: serde::Deserializer<'de>>(reader: D) -> std::result::Result<Vec<LeafTree>, D::Error> {
    if !reader.is_human_readable() {
        return Vec::<LeafTree>::deserialize(reader);
    }
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Leaves(LeafTree),
        Full(Tree),
    }
    Vec::<Stored>::deserialize(reader)?
        .into_iter()
        .enumerate()
        .map(|(b, t)| match t {
            Stored::Leaves(t) => Ok(t),
            Stored::Full(t) => {
                LeafTree::from_tree(&t).ok_or_else(|| serde::de::Error::custom(format!("forest tree {b}: values out of range")))
            }
        })
        .collect()
}
