//! The fitted model of the CART family: a pruned tree `T(α)`.

use serde::{Deserialize, Serialize};

use super::tree::Tree;
use super::{check_features, predictions_from_values};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::predictions::Predictions;

/// A pruned CART tree `T(α)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CartModel {
    pub(super) task: Task,
    pub(super) n_classes: usize,
    pub(super) n_features: usize,
    pub(super) alpha: f64,
    pub(super) tree: Tree,
}

/// Values stored per node: one mean (regression) or K class fractions.
pub(crate) fn output_width(task: Task, n_classes: usize) -> usize {
    if task == Task::Regression { 1 } else { n_classes }
}

/// The error of a tree that is not consistent (only a corrupted model file holds one).
pub(crate) fn corrupted_tree(what: String) -> Error {
    Error::CorruptModel(format!("inconsistent tree model: {what}"))
}

impl CartModel {
    /// Checks a deserialized model: its tree (see [`Tree::validate`]) against `n_features`
    /// and the class count, `α ≥ 0`.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        if self.n_features != n_features {
            return Err(corrupted_tree(format!("{} features, schema has {n_features}", self.n_features)));
        }
        if self.task == Task::Classification && self.n_classes < 2 {
            return Err(corrupted_tree(format!("{} classes", self.n_classes)));
        }
        if self.alpha.is_nan() || self.alpha < 0.0 {
            return Err(corrupted_tree(format!("α = {}", self.alpha)));
        }
        self.tree.validate(n_features, output_width(self.task, self.n_classes)).map_err(corrupted_tree)
    }
    /// The task and number of classes (0 for regression) the tree predicts.
    pub(crate) fn output(&self) -> (Task, usize) {
        (self.task, self.n_classes)
    }
    /// The pruning level α of this tree.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    /// Number of leaves |leaves(T(α))|.
    pub fn n_leaves(&self) -> usize {
        self.tree.n_leaves()
    }
}

impl crate::family::FamilyModel for CartModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        CartModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        CartModel::output(self)
    }
}

impl Predictor for CartModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        check_features(self.n_features, rows)?;
        if self.tree.width != output_width(self.task, self.n_classes) {
            return Err(corrupted_tree(format!("{} values per node for {} classes", self.tree.width, self.n_classes)));
        }
        let mut values = Vec::with_capacity(rows.len() * self.tree.width);
        for i in 0..rows.len() {
            let leaf = self.tree.leaf_values(rows.x(i)).ok_or_else(|| corrupted_tree("a walk left the tree".into()))?;
            values.extend_from_slice(leaf);
        }
        Ok(predictions_from_values(self.task, self.n_classes, values))
    }
}
