//! The fitted model of the k-NN family: the training points and k.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::neighbors::{NeighborIndex, Scratch};
use super::{Coordinates, Weights, predict_path};
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::predictions::Predictions;

/// A fitted k-NN model: the training points and k.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnnModel {
    pub(super) k: usize,
    pub(super) task: Task,
    pub(super) n_classes: usize,
    pub(super) n_features: usize,
    /// Training features, row-major; shared, so that the models of one path (one per k) and
    /// their clones hold one copy of the training points.
    #[serde(serialize_with = "serialize_shared", deserialize_with = "deserialize_shared")]
    pub(super) x: Arc<Vec<f64>>,
    /// Training targets (class index as f64 for classification).
    pub(super) y: Vec<f64>,
    /// How the neighbours vote (absent from files: uniform).
    #[serde(default, skip_serializing_if = "Weights::is_uniform")]
    pub(super) weights: Weights,
    /// The training rows' sample weights, in the order of `y` (absent: unweighted, or unit weights).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) sample_weights: Option<Vec<f64>>,
}

impl KnnModel {
    /// Stores the training rows in ascending row order (the distance tie rule).
    pub(super) fn from_view(train: &View<'_>, k: usize, task: Task, n_classes: usize) -> Self {
        let mut positions: Vec<usize> = (0..train.len()).collect();
        positions.sort_by_key(|&p| train.rows()[p]);
        let sorted = train.subview(&positions);
        Self {
            k,
            task,
            n_classes,
            n_features: train.n_features(),
            x: Arc::new(sorted.gather_x()),
            y: sorted.gather_y(),
            weights: Weights::Uniform,
            sample_weights: sorted.non_unit_weights(),
        }
    }
    /// The number of neighbours k.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Checks a deserialized model: `n_features` columns, as many targets as training rows,
    /// k ≥ 1, class indices below the number of classes.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent k-NN model: {what}")));
        if self.n_features != n_features {
            return bad(format!("{} features, schema has {n_features}", self.n_features));
        }
        if self.x.len() != self.y.len() * self.n_features || self.y.is_empty() {
            return bad(format!("{} feature values for {} targets", self.x.len(), self.y.len()));
        }
        if self.k == 0 {
            return bad("k = 0".into());
        }
        if self.task == Task::Classification && self.y.iter().any(|&c| !(c >= 0.0 && (c as usize) < self.n_classes && c.fract() == 0.0)) {
            return bad("a class index out of range".into());
        }
        if self.x.iter().chain(&self.y).any(|v| !v.is_finite()) {
            return bad("a non-finite value".into());
        }
        if let Some(w) = &self.sample_weights
            && (w.len() != self.y.len() || w.iter().any(|v| !(v.is_finite() && *v >= 0.0)))
        {
            return bad(format!("{} sample weights for {} training rows, or one negative or not finite", w.len(), self.y.len()));
        }
        Ok(())
    }
    /// The task and number of classes the model predicts.
    pub(crate) fn output(&self) -> (Task, usize) {
        (self.task, if self.task == Task::Classification { self.n_classes } else { 0 })
    }
    pub(super) fn check_features(&self, rows: &View<'_>) -> Result<()> {
        if rows.n_features() != self.n_features {
            return Err(Error::SchemaMismatch(format!("k-NN model has {} features, data have {}", self.n_features, rows.n_features())));
        }
        check_scale(rows)
    }
}

/// Written as the sequence a `Vec<f64>` writes (model files do not change).
fn serialize_shared<S: Serializer>(values: &Arc<Vec<f64>>, serializer: S) -> std::result::Result<S::Ok, S::Error> {
    values.as_slice().serialize(serializer)
}

fn deserialize_shared<'de, D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Arc<Vec<f64>>, D::Error> {
    Vec::<f64>::deserialize(deserializer).map(Arc::new)
}

/// Refuses features so large that squared Euclidean distances could overflow to +∞ (every
/// neighbour would then tie and be chosen by row order: a silent, meaningless answer). With
/// every |x_j| ≤ m, a squared distance is at most 4·d·m², so m ≤ √(f64::MAX / 4d) is safe.
pub(super) fn check_scale(rows: &View<'_>) -> Result<()> {
    let d = rows.n_features().max(1);
    let limit = (f64::MAX / (4.0 * d as f64)).sqrt();
    let largest = (0..rows.len()).flat_map(|i| rows.x(i).iter()).fold(0.0f64, |m, v| m.max(v.abs()));
    if largest > limit {
        return Err(Error::Numerical(format!(
            "k-NN: a feature value of magnitude {largest:.3e} would overflow squared distances (limit {limit:.3e} for {d} features); standardise the features (--standardize) or rescale them"
        )));
    }
    Ok(())
}

impl crate::family::FamilyModel for KnnModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        KnnModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        KnnModel::output(self)
    }
}

impl Predictor for KnnModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        // A model deserialized without the loader's checks must not index out of bounds.
        self.validate(self.n_features)?;
        self.check_features(rows)?;
        let index = NeighborIndex::new(self.x.to_vec(), self.n_features);
        let kmax = self.k.min(index.len());
        let features = |i: usize| rows.x(i);
        let search = |i: usize, scratch: &mut Scratch, out: &mut Vec<u32>| index.query_row(&features, rows.len(), i, kmax, scratch, out);
        let distance = (self.weights == Weights::Distance).then_some(Coordinates { x: &self.x, query: &features });
        let mut path = predict_path(&[self.k], rows, self, &self.y, &search, distance, self.sample_weights.as_deref());
        Ok(path.remove(0))
    }
}
