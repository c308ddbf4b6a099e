//! Hyperparameter selection on incremental learners with TreeCV: the CV curve over a grid
//! (`CV(A_m)` for each m by one TreeCV run, `m̂ = argmin_m` with [`select::argmin`]'s tie rule),
//! and Agghoo for linear learners (docs/PROCEDURES.md § Selection and aggregation).
//!
//! Agghoo here uses the TreeCV leaves: the leaf of chunk j holds `f^{−j}_m = A_m(D_{T_j})`, the
//! hold-out model of split `T_j` = all chunks but j, scored on `Z_j`. Per split
//! `m̂_j = argmin_m HO_{T_j}(A_m)`, and the aggregate is `f^ag = (1/k) Σ_j f^{−j}_{m̂_j}` — for a
//! linear model, the average of the weight vectors (and biases), one linear model again.
//! It keeps `k · |M|` weight vectors, so it is meant for k-fold with moderate k, not LOO.

use serde::{Deserialize, Serialize};

use super::{ChunkedData, TreeCvConfig, TreeCvReport, run_with_leaves};
use crate::engine::Executor;
use crate::error::{Error, Result};
use crate::incremental::{Incremental, LsqSgd, LsqSgdModel, Pegasos, PegasosModel};
use crate::select::{self, TieRule};

/// A learner whose models are linear, `f(x) = ⟨w, x⟩ + b`, so that models can be averaged.
pub trait LinearWeights: Incremental {
    /// `(w, b)` of a model.
    fn linear(&self, model: &Self::Model) -> (Vec<f64>, f64);
}

impl LinearWeights for Pegasos {
    fn linear(&self, model: &PegasosModel) -> (Vec<f64>, f64) {
        (model.weights(), model.bias())
    }
}

impl LinearWeights for LsqSgd {
    fn linear(&self, model: &LsqSgdModel) -> (Vec<f64>, f64) {
        (model.weights().to_vec(), model.bias())
    }
}

/// The CV curve of a grid of learners and its argmin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridReport {
    /// The grid values (e.g. λ), in grid order.
    pub values: Vec<f64>,
    /// `CV(A_m)` per grid point.
    pub estimates: Vec<f64>,
    /// Standard error over chunks per grid point.
    pub standard_errors: Vec<f64>,
    /// `m̂ = argmin_m CV(A_m)` with the tie rule.
    pub best_index: usize,
    /// The TreeCV report of each grid point.
    pub reports: Vec<TreeCvReport>,
}

/// The Agghoo aggregate of hold-out-selected linear models.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AggregatedLinear {
    /// `w̄ = (1/k) Σ_j w^{−j}_{m̂_j}`.
    pub weights: Vec<f64>,
    /// `b̄ = (1/k) Σ_j b^{−j}_{m̂_j}`.
    pub bias: f64,
    /// `m̂_j` per chunk j.
    pub selected: Vec<usize>,
}

/// Evaluates every grid value by TreeCV (`make(value)` builds the learner), one run after the
/// other in grid order, each with `executor` ([`run_with`](super::run_with): its forks are the
/// executor's units, its observer hears every update), and picks the argmin.
///
/// ```
/// use agghoo::{Seed, data::generators, engine::Rayon, incremental::Pegasos, select::TieRule};
/// use agghoo::treecv::{ChunkedData, TreeCvConfig, select_grid};
/// let data = generators::covertype_like(3_000, Seed(1))?;
/// let chunks = ChunkedData::new(&Pegasos::new(1.0)?, &data, 5, Some(Seed(2)))?;
/// let grid = [1e-4, 1e-2, 1.0];
/// let report = select_grid(&grid, Pegasos::new, &chunks, &TreeCvConfig::new(), TieRule::First, &Rayon)?;
/// assert_eq!(report.estimates.len(), 3);
/// assert!(report.estimates.iter().all(|&e| e >= report.estimates[report.best_index]));
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for an empty grid; `make`'s errors; [`run_with`](super::run_with)'s errors.
pub fn select_grid<L, B>(
    values: &[f64],
    make: B,
    data: &ChunkedData,
    config: &TreeCvConfig,
    tie: TieRule,
    executor: &dyn Executor,
) -> Result<GridReport>
where
    L: Incremental,
    B: Fn(f64) -> Result<L>,
{
    let reports: Vec<TreeCvReport> = grid_runs(values, make, data, config, executor, |_, _| ())?.into_iter().map(|(r, _)| r).collect();
    let estimates: Vec<f64> = reports.iter().map(|r| r.estimate).collect();
    let best_index = select::argmin(&estimates, tie)?;
    Ok(GridReport {
        values: values.to_vec(),
        standard_errors: reports.iter().map(|r| r.standard_error).collect(),
        estimates,
        best_index,
        reports,
    })
}

/// Agghoo over a grid of linear learners with the chunks of `data` as the splits: per chunk j,
/// the grid point with the smallest hold-out loss on `Z_j` (tie rule `tie`), then the average of
/// the selected leaf models' weights. The runs as in [`select_grid`].
///
/// # Errors
/// As [`select_grid`].
pub fn agghoo_linear<L, B>(
    values: &[f64],
    make: B,
    data: &ChunkedData,
    config: &TreeCvConfig,
    tie: TieRule,
    executor: &dyn Executor,
) -> Result<AggregatedLinear>
where
    L: LinearWeights,
    B: Fn(f64) -> Result<L>,
{
    let (curves, models): (Vec<_>, Vec<_>) = grid_runs(values, make, data, config, executor, |learner, m| learner.linear(m))?
        .into_iter()
        .map(|(r, leaves)| (r.chunk_losses, leaves))
        .unzip();
    let k = data.n_chunks();
    let d = data.n_features();
    let mut weights = vec![0.0; d];
    let mut bias = 0.0;
    let mut selected = Vec::with_capacity(k);
    for j in 0..k {
        let holdout: Vec<f64> = curves.iter().map(|c| c[j]).collect();
        let m = select::argmin(&holdout, tie)?;
        let (w, b) = &models[m][j];
        for (acc, wi) in weights.iter_mut().zip(w) {
            *acc += wi / k as f64;
        }
        bias += b / k as f64;
        selected.push(m);
    }
    Ok(AggregatedLinear { weights, bias, selected })
}

/// Every grid value's TreeCV run (`make(value)` builds the learner) with `executor`, in grid order,
/// and `at_leaf(learner, f^{−j})` for every chunk j.
fn grid_runs<L, B, T>(
    values: &[f64],
    make: B,
    data: &ChunkedData,
    config: &TreeCvConfig,
    executor: &dyn Executor,
    at_leaf: impl Fn(&L, &L::Model) -> T + Sync,
) -> Result<Vec<(TreeCvReport, Vec<T>)>>
where
    L: Incremental,
    B: Fn(f64) -> Result<L>,
    T: Send,
{
    if values.is_empty() {
        return Err(Error::invalid("grid", "at least one value", "an empty grid"));
    }
    values
        .iter()
        .map(|&v| {
            let learner = make(v)?;
            run_with_leaves(&learner, data, config, |_, m| at_leaf(&learner, m), executor)
        })
        .collect()
}
