//! Bootstrap risk estimators (`docs/PROCEDURES.md` § Bootstrap; Efron & Tibshirani 1997).
//!
//! B resamples `Z*b` of size n drawn with replacement ([`Bootstrap`] plan, seeded, resample b
//! from random stream b); `f*b` is the rule trained on `Z*b`, `f` the rule trained on all of D,
//! `C^{−i}` the resamples not containing row i, `D' = {i : C^{−i} ≠ ∅}`.
//!
//! - naive: `(1/B) Σ_b R_D(f*b)` (optimistic: most of D trained `f*b`);
//! - leave-one-out bootstrap: `Err(1) = (1/|D'|) Σ_{i∈D'} (1/|C^{−i}|) Σ_{b∈C^{−i}} γ(f*b(x_i), y_i)`;
//! - `.632 = 0.368 · R_D(f) + 0.632 · Err(1)`;
//! - `.632+`: no-information rate `γ̂ = (1/n²) Σ_i Σ_j γ(f(x_j), y_i)`, `Err(1)' = min(Err(1), γ̂)`,
//!   relative overfitting `r̂ = (Err(1) − R_D(f)) / (γ̂ − R_D(f))` when `Err(1) > R_D(f)` and
//!   `γ̂ > R_D(f)`, else 0, clipped to [0, 1]; `ω̂ = 0.632 / (1 − 0.368 r̂)`; estimate
//!   `(1 − ω̂) R_D(f) + ω̂ Err(1)'`.
//!
//! The "else 0" is Efron & Tibshirani's (their eq. 31): a plain "clipped to [0, 1]" agrees except
//! in the degenerate case `γ̂ ≤ R_D(f)` (the rule fits its training data worse than random
//! pairing), where the ratio's sign is meaningless and no overfitting is assumed.
//!
//! The no-information rate avoids the O(n²) double loop where the loss allows:
//! - 0–1 loss (and every classification loss): `γ̂ = Σ_k p_k · (1/n) Σ_j γ(f(x_j), k)` with
//!   `p_k` the class frequencies of y — for 0–1, `Σ_k p_k (1 − q_k)` with `q_k` the frequencies
//!   of the predicted classes; O(nK);
//! - squared loss: `γ̂ = var(f) + var(y) + (mean(f) − mean(y))²` (population moments,
//!   the expansion of the double sum); O(n);
//! - other regression losses (absolute, ε-insensitive, pinball): the double loop.
//!
//! Standard errors: naive — `sd_b(R_D(f*b))/√B`; Err(1) — `sd_{i∈D'}(e_i)/√|D'|` with `e_i`
//! row i's mean out-of-bag loss (treats rows as independent, ignoring that they share
//! resamples: an approximation, as is any simple SE of a bootstrap estimate).
//!
//! All B fits go through [`evaluate_splits`]: split b trains on `Z*b` and predicts *every* row,
//! so one pass gives both `R_D(f*b)` and the out-of-bag losses.

use serde::{Deserialize, Serialize};

use super::cv::OnePoint;
use crate::data::{Dataset, Preprocess, Target};
use crate::engine::{Executor, Inner, Rayon};
use crate::error::{Error, Result};
use crate::family::Family;
use crate::loss::Loss;
use crate::predictions::Predictions;
use crate::resample::{Bootstrap, Split, Splits};
use crate::seed::Seed;
use crate::select::summarize;
use crate::select::{EvalOptions, evaluate_splits};

/// Options of [`bootstrap_risk`].
#[derive(Clone)]
pub struct BootstrapConfig {
    /// Number of resamples B (≥ 1).
    pub n_resamples: usize,
    /// Seed of the resamples.
    pub seed: Seed,
    /// The loss; `None` = the task's default.
    pub loss: Option<Loss>,
    /// Preprocessing fitted on each resample (and on D for `f`).
    pub preprocess: Preprocess,
}

impl BootstrapConfig {
    /// B resamples, seed 0, the task's loss, no preprocessing.
    pub fn new(n_resamples: usize) -> Self {
        Self { n_resamples, seed: Seed(0), loss: None, preprocess: Preprocess::default() }
    }
}

/// Every bootstrap estimate of one rule, with the quantities they are made of.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BootstrapEstimate {
    /// The family's name.
    pub family: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// The rule's hyperparameter value.
    pub value: f64,
    /// The rule's grid index.
    pub grid_index: usize,
    /// The loss's short name.
    pub loss: String,
    /// Rows n.
    pub n_rows: usize,
    /// Resamples B.
    pub n_resamples: usize,
    /// `R_D(f)`: apparent (resubstitution) risk of the rule trained on all of D.
    pub apparent: f64,
    /// Naive bootstrap `(1/B) Σ_b R_D(f*b)`.
    pub naive: f64,
    /// `sd_b(R_D(f*b)) / √B` (`None` when B = 1).
    pub naive_standard_error: Option<f64>,
    /// Leave-one-out bootstrap `Err(1)`.
    pub loo_bootstrap: f64,
    /// `sd_{i∈D'}(e_i) / √|D'|` (`None` when |D'| = 1).
    pub loo_bootstrap_standard_error: Option<f64>,
    /// |D'|: rows out of bag in at least one resample (Err(1) averages over these only).
    pub n_covered: usize,
    /// No-information rate γ̂.
    pub no_information: f64,
    /// Relative overfitting rate r̂ ∈ [0, 1].
    pub relative_overfitting: f64,
    /// Weight ω̂ ∈ [0.632, 1] of .632+.
    pub weight: f64,
    /// `.632` estimate.
    pub point632: f64,
    /// `.632+` estimate.
    pub point632_plus: f64,
    /// `R_D(f*b)` per resample.
    pub resample_risks: Vec<f64>,
    /// Out-of-bag risk `R_{Z*bᶜ}(f*b)` per resample.
    pub out_of_bag_risks: Vec<f64>,
}

/// Bootstrap estimates of the rule `A_m` (`m = grid_index`): draws B resamples with
/// [`Bootstrap`] and calls [`bootstrap_risk_on`].
///
/// # Errors
/// [`Error::InvalidParameter`] for B = 0; as [`bootstrap_risk_on`].
pub fn bootstrap_risk(family: &dyn Family, grid_index: usize, data: &Dataset, config: &BootstrapConfig) -> Result<BootstrapEstimate> {
    let resamples = Bootstrap { n_resamples: config.n_resamples }.instantiate(data.n_rows(), config.seed)?;
    bootstrap_risk_on(family, grid_index, data, &resamples, config, &Rayon)
}

/// Bootstrap estimates over given resamples: each split's training rows are `Z*b` (with
/// repeats) and its validation rows must be exactly the rows not drawn.
///
/// # Errors
/// [`Error::InvalidSplit`] when a split's validation set is not the complement of its training
/// rows; [`Error::InvalidParameter`] when no row is ever out of bag (|D'| = 0: Err(1) does not
/// exist — use more resamples); every error of [`evaluate_splits`]; [`Error::Interrupted`] when
/// `executor`'s observer cancels the run (one unit per resample).
pub fn bootstrap_risk_on(
    family: &dyn Family,
    grid_index: usize,
    data: &Dataset,
    resamples: &Splits,
    config: &BootstrapConfig,
    executor: &dyn Executor,
) -> Result<BootstrapEstimate> {
    data.check_unweighted("the bootstrap estimators")?;
    let rule = OnePoint::new(family, grid_index)?;
    resamples.check_rows(data.n_rows())?;
    let n = data.n_rows();
    let loss = config.loss.unwrap_or(Loss::default_for(data.task()));
    for (b, s) in resamples.iter().enumerate() {
        let mut drawn = vec![false; n];
        s.train().iter().for_each(|&i| drawn[i] = true);
        let oob: Vec<usize> = (0..n).filter(|&i| !drawn[i]).collect();
        if oob != s.validation() {
            return Err(Error::InvalidSplit { split: b, reason: "bootstrap validation rows must be exactly the rows not drawn".into() });
        }
    }
    let all: Vec<usize> = (0..n).collect();
    let predict_all = |trains: Vec<Vec<usize>>| -> Result<Splits> {
        Splits::with_resubstitution(n, trains.into_iter().map(|t| Split::new(t, all.clone())).collect::<Result<Vec<_>>>()?)
    };
    let options = EvalOptions {
        losses: vec![loss],
        tie: Default::default(),
        preprocess: config.preprocess,
        keep_selected_model: false,
        keep_predictions: true,
    };
    let on_all = predict_all(resamples.iter().map(|s| s.train().to_vec()).collect())?;
    let outcomes = evaluate_splits(&rule, data, &on_all, &options, executor).map_err(|e| rule.rename_error(e))?;
    let full = evaluate_splits(&rule, data, &predict_all(vec![all.clone()])?, &options, &Inner::new(executor, 1))
        .map_err(|e| rule.rename_error(e))?;
    let truth = data.all();
    let (mut oob_sum, mut oob_count) = (vec![0.0; n], vec![0usize; n]);
    let mut resample_risks = Vec::with_capacity(outcomes.len());
    let mut out_of_bag_risks = Vec::with_capacity(outcomes.len());
    for (s, o) in resamples.iter().zip(&outcomes) {
        let p = first_prediction(o.predictions.as_ref())?;
        let per_row = loss.per_row(p, &truth)?;
        resample_risks.push(per_row.iter().sum::<f64>() / n as f64);
        let mut oob_total = 0.0;
        for &i in s.validation() {
            oob_sum[i] += per_row[i];
            oob_count[i] += 1;
            oob_total += per_row[i];
        }
        out_of_bag_risks.push(oob_total / s.validation().len() as f64);
    }
    let per_point: Vec<f64> = (0..n).filter(|&i| oob_count[i] > 0).map(|i| oob_sum[i] / oob_count[i] as f64).collect();
    if per_point.is_empty() {
        return Err(Error::invalid("resamples", "enough that some row is out of bag (|D'| > 0)", format!("B = {}", resamples.len())));
    }
    let (naive, naive_standard_error) = summarize(&resample_risks, None);
    let (loo_bootstrap, loo_bootstrap_standard_error) = summarize(&per_point, None);
    let apparent = full[0].risks[0][0];
    let no_information = no_information_rate(loss, first_prediction(full[0].predictions.as_ref())?, data)?;
    let (point632, relative_overfitting, weight, point632_plus) = point632_estimates(apparent, loo_bootstrap, no_information);
    let estimate = BootstrapEstimate {
        family: family.name().into(),
        hyperparameter: family.grid().name().into(),
        value: family.grid().value(grid_index),
        grid_index,
        loss: loss.name(),
        n_rows: n,
        n_resamples: resamples.len(),
        apparent,
        naive,
        naive_standard_error,
        loo_bootstrap,
        loo_bootstrap_standard_error,
        n_covered: per_point.len(),
        no_information,
        relative_overfitting,
        weight,
        point632,
        point632_plus,
        resample_risks,
        out_of_bag_risks,
    };
    if [estimate.naive, estimate.loo_bootstrap, estimate.no_information, estimate.point632, estimate.point632_plus]
        .iter()
        .any(|v| !v.is_finite())
    {
        return Err(Error::NonFiniteRisk("a bootstrap estimate is not finite".into()));
    }
    Ok(estimate)
}

fn first_prediction(p: Option<&Vec<Predictions>>) -> Result<&Predictions> {
    p.and_then(|p| p.first()).ok_or_else(|| Error::Internal("predictions not kept".into()))
}

/// `(.632, r̂, ω̂, .632+)` from `R_D(f)`, `Err(1)` and `γ̂` (module docs).
fn point632_estimates(apparent: f64, err1: f64, gamma: f64) -> (f64, f64, f64, f64) {
    let point632 = 0.368 * apparent + 0.632 * err1;
    let r = if err1 > apparent && gamma > apparent { ((err1 - apparent) / (gamma - apparent)).clamp(0.0, 1.0) } else { 0.0 };
    let w = 0.632 / (1.0 - 0.368 * r);
    (point632, r, w, (1.0 - w) * apparent + w * err1.min(gamma))
}

/// No-information rate `γ̂ = (1/n²) Σ_i Σ_j γ(f(x_j), y_i)` of `predictions` (one per row of
/// `data`, in row order) against the targets of `data`, without the double loop for
/// classification losses and the squared loss (module docs).
///
/// ```
/// use agghoo::{Loss, Predictions, data::{Dataset, Target}};
/// // y = 0, 0, 1, 2 → p = (½, ¼, ¼); f = 0, 1, 1, 1 → q = (¼, ¾, 0)
/// let d = Dataset::new(vec![0.0; 4], vec!["x".into()],
///     Target::Classes { labels: vec![0, 0, 1, 2], names: vec!["a".into(), "b".into(), "c".into()] }, "y")?;
/// let g = agghoo::estimate::no_information_rate(Loss::ZeroOne, &Predictions::classes(vec![0, 1, 1, 1], 3), &d)?;
/// assert!((g - (0.5 * 0.75 + 0.25 * 0.25 + 0.25 * 1.0)).abs() < 1e-15);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// As [`Loss::per_row`] (a loss that does not fit the predictions).
pub fn no_information_rate(loss: Loss, predictions: &Predictions, data: &Dataset) -> Result<f64> {
    let n = data.n_rows();
    if predictions.len() != n {
        return Err(Error::invalid("predictions", "one per row", predictions.len()));
    }
    loss.check_task(data.task())?;
    match (data.target(), predictions) {
        (Target::Classes { labels, names }, _) => {
            // Σ_k p_k · mean_j γ(f(x_j), k): the loss of every prediction against a constant label k.
            let mut counts = vec![0usize; names.len()];
            labels.iter().for_each(|&l| counts[l as usize] += 1);
            let mut total = 0.0;
            for (k, &c) in counts.iter().enumerate().filter(|(_, c)| **c > 0) {
                let constant = Dataset::new(vec![], vec![], Target::Classes { labels: vec![k as u32; n], names: names.clone() }, "y")?;
                let mean = loss.per_row(predictions, &constant.all())?.iter().sum::<f64>() / n as f64;
                total += c as f64 / n as f64 * mean;
            }
            Ok(total)
        }
        (Target::Real(y), Predictions::Real(f)) if loss == Loss::Squared => {
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            let (my, mf) = (mean(y), mean(f));
            let var = |v: &[f64], m: f64| v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / v.len() as f64;
            Ok(var(f, mf) + var(y, my) + (mf - my).powi(2))
        }
        (Target::Real(y), Predictions::Real(f)) => {
            let total: f64 = y.iter().map(|&yi| f.iter().map(|&fj| loss.regression(fj, yi)).sum::<f64>()).sum();
            Ok(total / (n as f64 * n as f64))
        }
        _ => Err(Error::TaskMismatch(format!("loss `{}` does not apply to these predictions", loss.name()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point632_plus_edge_cases() {
        // No overfitting (Err(1) ≤ R): ω = 0.632, .632+ = .632.
        let (a, r, w, b) = point632_estimates(0.2, 0.1, 0.5);
        assert_eq!((r, w), (0.0, 0.632));
        assert!((a - b).abs() < 1e-15);
        // Err(1) above γ̂: r = 1, ω = 1, the estimate is γ̂.
        let (_, r, w, b) = point632_estimates(0.1, 0.6, 0.5);
        assert_eq!((r, w, b), (1.0, 1.0, 0.5));
        // Degenerate γ̂ ≤ R: no overfitting assumed.
        assert_eq!(point632_estimates(0.3, 0.2, 0.25).1, 0.0);
    }

    #[test]
    fn no_information_rate_equals_the_double_loop() {
        let y = vec![0.5, -1.0, 2.0, 3.5, 0.0];
        let f = vec![1.0, 0.0, 1.5, 2.0, -0.5];
        let d = Dataset::new(vec![0.0; 5], vec!["x".into()], Target::Real(y.clone()), "y").unwrap();
        for loss in [Loss::Squared, Loss::Absolute] {
            let fast = no_information_rate(loss, &Predictions::Real(f.clone()), &d).unwrap();
            let slow: f64 = y.iter().map(|&yi| f.iter().map(|&fj| loss.regression(fj, yi)).sum::<f64>()).sum::<f64>() / 25.0;
            assert!((fast - slow).abs() < 1e-12, "{loss:?}");
        }
        let labels = vec![0u32, 2, 1, 1, 0, 2, 2];
        let pred = vec![1u32, 1, 0, 2, 2, 2, 0];
        let d = Dataset::new(
            vec![0.0; 7],
            vec!["x".into()],
            Target::Classes { labels: labels.clone(), names: vec!["a".into(), "b".into(), "c".into()] },
            "y",
        )
        .unwrap();
        let fast = no_information_rate(Loss::ZeroOne, &Predictions::classes(pred.clone(), 3), &d).unwrap();
        let slow = labels.iter().map(|&l| pred.iter().filter(|&&p| p != l).count() as f64).sum::<f64>() / 49.0;
        assert!((fast - slow).abs() < 1e-15);
    }
}
