//! k-nearest neighbours, classification and regression; the grid is k (ascending).
//!
//! Path evaluation: one neighbour search per validation point, up to `k_max`, serves every k of
//! the grid: regression reads prefix sums of the neighbours' targets, classification updates vote
//! counts as k grows. The naive alternative searches once per k.
//!
//! Deterministic tie rules:
//! - distance ties: the neighbour with the lower training position comes first (positions follow
//!   the training view's order, which for every plan is ascending row index);
//! - vote ties: among the classes with the most votes, the one whose nearest member is closest
//!   (appears first in the neighbour list). With k = 1 this is the nearest neighbour's class.
//! Soft outputs: class probabilities are the vote fractions among the k neighbours.

mod neighbors;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use self::neighbors::{Neighbor, NeighborIndex};
use super::{Family, FamilyParams, FittedPath, Grid, Model, Predictor, Scale, SmootherPath};
use crate::data::{Dataset, Task, View};
use crate::error::{Error, Result};
use crate::predictions::{PathPredictions, Predictions};

/// The k-NN family: Euclidean distance on the (optionally standardised) features.
#[derive(Clone, Debug)]
pub struct KnnFamily {
    grid: Grid,
    task: Task,
    n_classes: usize,
}

impl KnnFamily {
    /// A k-NN family over the given k values (sorted ascending, deduplicated).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid or k < 1 or a non-integer k.
    pub fn new(ks: Vec<f64>, task: Task, n_classes: usize) -> Result<Self> {
        let grid = Grid::new("k", ks, Scale::Integer, true)?;
        if task == Task::Classification && n_classes < 2 {
            return Err(Error::invalid("classes", "at least 2", n_classes));
        }
        Ok(Self { grid, task, n_classes })
    }

    fn ks(&self) -> Vec<usize> {
        self.grid.values().iter().map(|&k| k as usize).collect()
    }
}

/// Builds the k-NN family. Default grid: odd k from 1 to min(99, n/2).
///
/// # Errors
/// As [`KnnFamily::new`]; unknown parameters.
pub fn build(params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    params.check_known("knn", &[])?;
    let kmax = 99.min(data.n_rows() / 2).max(1);
    let ks = params.grid_or(|| (1..=kmax).step_by(2).map(|k| k as f64).collect())?;
    Ok(Box::new(KnnFamily::new(ks, data.task(), data.target().n_classes())?))
}

impl Family for KnnFamily {
    fn name(&self) -> &'static str {
        "knn"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.task
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        let k = self.grid.value(grid_index) as usize;
        if k > train.len() {
            return Err(Error::InvalidParameter {
                name: "grid",
                expected: "k no larger than the training set",
                got: format!("k = {k} with {} rows", train.len()),
            });
        }
        Ok(Model::Knn(KnnModel::from_view(train, k, self.task, self.n_classes)))
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        self.check_train_size(train.len())?;
        let model = KnnModel::from_view(train, 0, self.task, self.n_classes);
        let index = NeighborIndex::new(model.x.clone(), model.n_features);
        Ok(Box::new(KnnPath { family: self, model, index }))
    }
    /// k-NN regression as a linear smoother: `S_m[i][j] = 1/k` for the k nearest training
    /// points j of `x_i` (row i itself included when it is among them, by the distance-tie rule
    /// "lower training position first"). `fitted` are the in-sample predictions of the model
    /// (equal to `fit(train, m).predict(train)`); `leverage[m][i]` is `1/k` when row i is in its
    /// own k-list and 0 otherwise (possible only with k or more duplicates of `x_i` at lower
    /// positions), read from the actual neighbour list. Classification: `None`.
    ///
    /// The leave-one-out formula applied to this smoother is the exact leave-one-out of
    /// (k − 1)-NN, not of k-NN (see `estimate/closed_form.rs`).
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        (self.task == Task::Regression).then(|| self.smoother(train))
    }
    fn check_train_size(&self, n_train: usize) -> Result<()> {
        let kmax = self.grid.values().last().copied().unwrap_or(1.0) as usize;
        if kmax > n_train {
            return Err(Error::InvalidParameter {
                name: "grid",
                expected: "k values no larger than the smallest training set",
                got: format!("k = {kmax} with a training set of {n_train} rows"),
            });
        }
        Ok(())
    }
}

impl KnnFamily {
    fn smoother(&self, train: &View<'_>) -> Result<SmootherPath> {
        self.check_train_size(train.len())?;
        let model = KnnModel::from_view(train, 0, self.task, self.n_classes);
        let index = NeighborIndex::new(model.x.clone(), model.n_features);
        let ks = self.ks();
        let fitted = predict_path(&index, &model, &ks, train)
            .into_iter()
            .map(|p| p.values().map(<[f64]>::to_vec).ok_or_else(|| Error::TaskMismatch("k-NN smoother needs a real target".into())))
            .collect::<Result<Vec<_>>>()?;
        let kmax = ks.last().copied().unwrap_or(1);
        // Rank of row i in its own neighbour list (kmax when absent).
        let self_rank: Vec<usize> = (0..train.len())
            .into_par_iter()
            .with_min_len(32)
            .map_init(Vec::<Neighbor>::new, |buf, i| {
                index.query(train.x(i), kmax, buf);
                buf.iter().position(|nb| nb.1 as usize == i).unwrap_or(kmax)
            })
            .collect();
        let leverage = ks.iter().map(|&k| self_rank.iter().map(|&r| if r < k { 1.0 / k as f64 } else { 0.0 }).collect()).collect();
        Ok(SmootherPath { fitted, leverage })
    }
}

struct KnnPath<'a> {
    family: &'a KnnFamily,
    model: KnnModel,
    index: NeighborIndex,
}

impl FittedPath for KnnPath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        self.model.check_features(validation)?;
        Ok(predict_path(&self.index, &self.model, &self.family.ks(), validation))
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        Ok(Model::Knn(KnnModel { k: self.family.grid.value(grid_index) as usize, ..self.model.clone() }))
    }
}

/// A fitted k-NN model: the training points and k.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnnModel {
    k: usize,
    task: Task,
    n_classes: usize,
    n_features: usize,
    /// Training features, row-major.
    x: Vec<f64>,
    /// Training targets (class index as f64 for classification).
    y: Vec<f64>,
}

impl KnnModel {
    fn from_view(train: &View<'_>, k: usize, task: Task, n_classes: usize) -> Self {
        Self { k, task, n_classes, n_features: train.n_features(), x: train.gather_x(), y: train.gather_y() }
    }
    /// The number of neighbours k.
    pub fn k(&self) -> usize {
        self.k
    }
    fn check_features(&self, rows: &View<'_>) -> Result<()> {
        if rows.n_features() != self.n_features {
            return Err(Error::SchemaMismatch(format!("k-NN model has {} features, data have {}", self.n_features, rows.n_features())));
        }
        Ok(())
    }
}

impl Predictor for KnnModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        self.check_features(rows)?;
        let index = NeighborIndex::new(self.x.clone(), self.n_features);
        let mut path = predict_path(&index, self, &[self.k], rows);
        Ok(path.remove(0))
    }
}

/// Predictions of every k in `ks` (ascending) for the rows of `rows`.
fn predict_path(index: &NeighborIndex, model: &KnnModel, ks: &[usize], rows: &View<'_>) -> PathPredictions {
    let kmax = ks.last().copied().unwrap_or(1).min(index.len());
    let n = rows.len();
    let m = ks.len();
    let k_classes = model.n_classes;
    // Per row: for regression, M values; for classification, M labels then M × K fractions.
    let per_row: Vec<(Vec<u32>, Vec<f64>)> = (0..n)
        .into_par_iter()
        .with_min_len(32)
        .map_init(Vec::<Neighbor>::new, |buf, i| {
            index.query(rows.x(i), kmax, buf);
            match model.task {
                Task::Regression => {
                    let mut values = Vec::with_capacity(m);
                    let mut sum = 0.0;
                    let mut taken = 0;
                    for &k in ks {
                        let k = k.min(buf.len());
                        while taken < k {
                            sum += model.y[buf[taken].1 as usize];
                            taken += 1;
                        }
                        values.push(sum / k.max(1) as f64);
                    }
                    (Vec::new(), values)
                }
                Task::Classification => {
                    let mut counts = vec![0u32; k_classes];
                    let mut first = vec![u32::MAX; k_classes];
                    let mut best = 0usize;
                    let mut labels = Vec::with_capacity(m);
                    let mut fractions = Vec::with_capacity(m * k_classes);
                    let mut taken = 0;
                    for &k in ks {
                        let k = k.min(buf.len());
                        while taken < k {
                            let c = model.y[buf[taken].1 as usize] as usize;
                            counts[c] += 1;
                            if first[c] == u32::MAX {
                                first[c] = taken as u32;
                            }
                            if taken == 0 || counts[c] > counts[best] || (counts[c] == counts[best] && first[c] < first[best]) {
                                best = c;
                            }
                            taken += 1;
                        }
                        labels.push(best as u32);
                        fractions.extend(counts.iter().map(|&c| f64::from(c) / k.max(1) as f64));
                    }
                    (labels, fractions)
                }
            }
        })
        .collect();
    (0..m)
        .map(|g| match model.task {
            Task::Regression => Predictions::Real(per_row.iter().map(|(_, v)| v[g]).collect()),
            Task::Classification => {
                let labels = per_row.iter().map(|(l, _)| l[g]).collect();
                let mut proba = Vec::with_capacity(n * k_classes);
                for (_, f) in &per_row {
                    proba.extend_from_slice(&f[g * k_classes..(g + 1) * k_classes]);
                }
                let decision = (k_classes == 2).then(|| (0..n).map(|i| 2.0 * proba[i * 2 + 1] - 1.0).collect());
                Predictions::Classes { labels, n_classes: k_classes, proba: Some(proba), decision }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Target;
    use crate::family::conformance::path_equals_refit;
    use rand::{RngExt, SeedableRng};

    fn random_data(n: usize, d: usize, classes: Option<u32>, seed: u64) -> Dataset {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let x: Vec<f64> = (0..n * d).map(|_| (rng.random_range(0..8) as f64) * 0.5).collect();
        let target = match classes {
            Some(k) => {
                Target::Classes { labels: (0..n).map(|_| rng.random_range(0..k)).collect(), names: (0..k).map(|c| c.to_string()).collect() }
            }
            None => Target::Real((0..n).map(|_| rng.random::<f64>()).collect()),
        };
        Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").unwrap()
    }

    /// Independent reference: full sort per query, then count votes with the documented rule.
    fn reference(train: &View<'_>, q: &[f64], k: usize, task: Task, n_classes: usize) -> f64 {
        let mut all: Vec<(f64, usize)> =
            (0..train.len()).map(|i| (train.x(i).iter().zip(q).map(|(a, b)| (a - b).powi(2)).sum(), i)).collect();
        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let nearest = &all[..k];
        match task {
            Task::Regression => nearest.iter().map(|&(_, i)| train.y(i)).sum::<f64>() / k as f64,
            Task::Classification => {
                let mut counts = vec![0; n_classes];
                nearest.iter().for_each(|&(_, i)| counts[train.class(i) as usize] += 1);
                let top = *counts.iter().max().unwrap();
                // first class (in neighbour order) reaching the top count
                nearest.iter().map(|&(_, i)| train.class(i)).find(|&c| counts[c as usize] == top).unwrap() as f64
            }
        }
    }

    #[test]
    fn path_equals_fresh_fit_at_every_k() {
        for (classes, seed) in [(Some(2), 1), (Some(3), 2), (None, 3)] {
            for (n, d) in [(60, 2), (2500, 3)] {
                let data = random_data(n, d, classes, seed);
                let rows: Vec<usize> = (0..n).collect();
                let (train, val) = rows.split_at(n * 3 / 4);
                let fam = KnnFamily::new((1..=25).map(f64::from).collect(), data.task(), data.target().n_classes()).unwrap();
                path_equals_refit(&fam, &data.view(train), &data.view(val), 1e-12);
            }
        }
    }

    #[test]
    fn agrees_with_independent_reference() {
        for classes in [Some(2), Some(4), None] {
            let data = random_data(300, 2, classes, 11);
            let rows: Vec<usize> = (0..300).collect();
            let (train, val) = rows.split_at(200);
            let (train, val) = (data.view(train), data.view(val));
            let fam = KnnFamily::new(vec![1.0, 2.0, 4.0, 9.0, 30.0], data.task(), data.target().n_classes()).unwrap();
            let path = fam.fit_path(&train).unwrap().predict(&val).unwrap();
            for (g, &k) in fam.ks().iter().enumerate() {
                for i in 0..val.len() {
                    let want = reference(&train, val.x(i), k, data.task(), data.target().n_classes());
                    assert!((path[g].value(i) - want).abs() < 1e-12, "k={k} row={i}");
                }
            }
        }
    }

    #[test]
    fn hand_computed_example() {
        // x: 0, 1, 2, 10 with classes a, a, b, b; query 1.6 → neighbours 2 (0.4), 1 (0.6), 0, 10.
        let d = Dataset::new(
            vec![0.0, 1.0, 2.0, 10.0, 1.6],
            vec!["x".into()],
            Target::Classes { labels: vec![0, 0, 1, 1, 0], names: vec!["a".into(), "b".into()] },
            "y",
        )
        .unwrap();
        let fam = KnnFamily::new(vec![1.0, 2.0, 3.0, 4.0], Task::Classification, 2).unwrap();
        let p = fam.fit_path(&d.view(&[0, 1, 2, 3])).unwrap().predict(&d.view(&[4])).unwrap();
        // k=1: b; k=2: tie 1–1, b's member is nearest → b; k=3: a (2 vs 1); k=4: tie 2–2, b nearest → b
        let labels: Vec<u32> = p.iter().map(|q| q.labels().unwrap()[0]).collect();
        assert_eq!(labels, [1, 1, 0, 1]);
        // regression on the same points, y = class index: k=3 → (1 + 0 + 0)/3
        let r = Dataset::new(vec![0.0, 1.0, 2.0, 10.0, 1.6], vec!["x".into()], Target::Real(vec![0.0, 0.0, 1.0, 1.0, 0.0]), "y").unwrap();
        let fam = KnnFamily::new(vec![3.0], Task::Regression, 0).unwrap();
        let p = fam.fit_path(&r.view(&[0, 1, 2, 3])).unwrap().predict(&r.view(&[4])).unwrap();
        assert!((p[0].value(0) - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn smoother_fitted_values_and_leverages() {
        // x: 0, 0, 0, 5 (three duplicates). From x = 0 the list is positions 0, 1, 2, 3.
        let d = Dataset::new(vec![0.0, 0.0, 0.0, 5.0], vec!["x".into()], Target::Real(vec![1.0, 2.0, 4.0, 8.0]), "y").unwrap();
        let fam = KnnFamily::new(vec![1.0, 2.0, 4.0], Task::Regression, 0).unwrap();
        let s = fam.linear_smoother(&d.all()).unwrap().unwrap();
        // k = 1: every duplicate's nearest is position 0; only row 0 (and the lone row 3) is its own.
        assert_eq!(s.leverage[0], [1.0, 0.0, 0.0, 1.0]);
        // k = 2: rows 0 and 1 are in their lists (0, 1), row 2 is not; row 3's list is 3, 0.
        assert_eq!(s.leverage[1], [0.5, 0.5, 0.0, 0.5]);
        assert_eq!(s.leverage[2], [0.25; 4]);
        assert_eq!(s.fitted[1], [1.5, 1.5, 1.5, 4.5]);
        for (m, f) in s.fitted.iter().enumerate() {
            let refit = fam.fit(&d.all(), m).unwrap().predict(&d.all()).unwrap();
            assert_eq!(refit.values().unwrap(), f.as_slice());
        }
        let classes = random_data(20, 2, Some(2), 1);
        assert!(KnnFamily::new(vec![1.0], Task::Classification, 2).unwrap().linear_smoother(&classes.all()).is_none());
    }

    #[test]
    fn k_larger_than_training_set_is_an_error() {
        let data = random_data(10, 1, Some(2), 0);
        let fam = KnnFamily::new(vec![1.0, 11.0], Task::Classification, 2).unwrap();
        assert!(matches!(fam.fit_path(&data.all()), Err(Error::InvalidParameter { .. })));
        assert!(KnnFamily::new(vec![], Task::Classification, 2).is_err());
        assert!(KnnFamily::new(vec![0.0], Task::Classification, 2).is_err());
        assert!(KnnFamily::new(vec![1.5], Task::Classification, 2).is_err());
    }
}
