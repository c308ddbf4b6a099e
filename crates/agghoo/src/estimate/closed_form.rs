//! Closed-form leave-one-out and GCV for linear smoothers `ŷ = S y` (`docs/PROCEDURES.md`
//! § Closed-form leave-one-out and GCV):
//!
//! `LOO = (1/n) Σ_i ((y_i − ŷ_i) / (1 − S_ii))²`, `GCV = (1/n) Σ_i ((y_i − ŷ_i) / (1 − tr(S)/n))²`,
//!
//! from one fit on all n rows ([`Family::linear_smoother`]) instead of n refits.
//!
//! When is the formula the leave-one-out risk? Exactly when the rule satisfies the
//! *leave-one-out lemma*: the fit without row i equals the fit on all rows with `y_i` replaced by
//! the left-out prediction `ŷ_{−i}`. Then `ŷ_i = ŷ_{−i} + S_ii (y_i − ŷ_{−i})`, which solves to
//! `y_i − ŷ_{−i} = (y_i − ŷ_i)/(1 − S_ii)`. Ridge (with an unpenalised intercept), OLS and kernel
//! ridge satisfy it: they minimise a penalised sum of squares over a fixed function class.
//!
//! k-NN regression does **not**: removing row i changes the neighbour set (the (k+1)-th
//! neighbour moves in). Its in-sample smoother at k puts weight `1/k` on the k nearest training
//! points of `x_i`, itself included when it is among them, so `S_ii = 1/k` when row i is in its
//! own k-list. Then `(y_i − ŷ_i)/(1 − 1/k) = y_i − (1/(k−1)) Σ_{j ∈ N_k(i) \ {i}} y_j`: the
//! formula at k is the exact leave-one-out of **(k − 1)-NN**, not of k-NN. The identity needs
//! row i in its own k-list. Without duplicate feature vectors that always holds (distance 0 is
//! the unique minimum). With duplicates, k-NN's distance-tie rule puts the lower training
//! position first, so a row with k or more identical copies at lower positions is not in its own
//! list: its real `S_ii` is 0 (the k-NN family computes `S_ii` from the actual neighbour lists),
//! and the formula gives `y_i −` the k-NN mean, which is neither (k−1)-NN's nor k-NN's
//! leave-one-out. At k = 1, `S_ii = 1` and the formula is undefined (an error).
//!
//! Hence [`estimate_risk`](super::estimate_risk) uses the closed form automatically only for the
//! families known to satisfy the lemma (ridge, kernel ridge); for k-NN it refits (cheap: one
//! neighbour query per split), and [`smoother_risks`] reports the k-NN formula with the meaning
//! above. The rejected alternative — using the formula for every family that offers a smoother —
//! would silently estimate the risk of another rule.

use serde::{Deserialize, Serialize};

use crate::data::{Dataset, Preprocess, Task};
use crate::error::{Error, Result};
use crate::family::{Family, SmootherPath};

/// Closed-form leave-one-out and GCV along a family's grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmootherRisks {
    /// The family's name.
    pub family: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// The grid values.
    pub grid: Vec<f64>,
    /// Rows n.
    pub n_rows: usize,
    /// `LOO_m = (1/n) Σ ((y_i − ŷ_i)/(1 − S_ii))²` per grid point.
    pub loo: Vec<f64>,
    /// `sd_i(((y_i − ŷ_i)/(1 − S_ii))²) / √n` per grid point.
    pub loo_standard_error: Vec<f64>,
    /// `GCV_m = (1/n) Σ (y_i − ŷ_i)² / (1 − tr(S_m)/n)²` per grid point.
    pub gcv: Vec<f64>,
    /// `tr(S_m)`, the effective degrees of freedom, per grid point.
    pub trace: Vec<f64>,
    /// True when the family satisfies the leave-one-out lemma, so `loo` is the exact
    /// leave-one-out risk of each grid point (false for k-NN: see the module docs).
    pub exact_loo: bool,
}

/// Leave-one-out residuals `(y_i − ŷ_i)/(1 − S_ii)` of a linear smoother.
///
/// ```
/// // The mean as a smoother: S = (1/n) 11ᵀ, so the residual is (y_i − ȳ)·n/(n − 1) = y_i − ȳ_{−i}.
/// let y = [1.0, 2.0, 6.0];
/// let r = agghoo::estimate::loo_residuals(&y, &[3.0; 3], &[1.0 / 3.0; 3])?;
/// assert!((r[2] - (6.0 - 1.5)).abs() < 1e-12);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for slices of different lengths; [`Error::Numerical`] naming the
/// row when `1 − S_ii ≤ 1e-12` (an interpolating point: its leave-one-out residual is undefined).
pub fn loo_residuals(y: &[f64], fitted: &[f64], leverage: &[f64]) -> Result<Vec<f64>> {
    if fitted.len() != y.len() || leverage.len() != y.len() {
        return Err(Error::invalid(
            "smoother",
            "one fitted value and one leverage per row",
            format!("{} / {} for {} rows", fitted.len(), leverage.len(), y.len()),
        ));
    }
    y.iter()
        .zip(fitted)
        .zip(leverage)
        .enumerate()
        .map(|(i, ((y, f), s))| {
            let denominator = 1.0 - s;
            if denominator.is_nan() || denominator <= 1e-12 {
                return Err(Error::Numerical(format!("row {i}: leverage S_ii = {s}, leave-one-out residual undefined")));
            }
            let r = (y - f) / denominator;
            if !r.is_finite() {
                return Err(Error::Numerical(format!("row {i}: leave-one-out residual is {r}")));
            }
            Ok(r)
        })
        .collect()
}

/// `GCV = (1/n) Σ (y_i − ŷ_i)² / (1 − tr(S)/n)²`.
fn gcv(y: &[f64], fitted: &[f64], trace: f64) -> Result<f64> {
    let n = y.len() as f64;
    let denominator = 1.0 - trace / n;
    if denominator.is_nan() || denominator <= 1e-12 {
        return Err(Error::Numerical(format!("GCV undefined: tr(S)/n = {}", trace / n)));
    }
    Ok(y.iter().zip(fitted).map(|(y, f)| (y - f).powi(2)).sum::<f64>() / n / (denominator * denominator))
}

/// True for the families whose smoother satisfies the leave-one-out lemma (module docs).
pub(crate) fn lemma_holds(family: &dyn Family) -> bool {
    family.exact_loo()
}

/// Closed-form leave-one-out and GCV of every grid point of `family` on all rows of `data`.
/// Returns `Ok(None)` when the family is not a linear smoother.
///
/// With a non-identity `preprocess` the transform is fitted once on all rows (not per left-out
/// row), so the result is the leave-one-out of the rule *after* that fixed transform.
///
/// # Errors
/// [`Error::TaskMismatch`] for classification data; [`Error::Unsupported`] for weighted data; the
/// family's fit errors; [`Error::Numerical`] naming the row and grid point where `1 − S_ii` or
/// `1 − tr(S)/n` vanishes.
pub fn smoother_risks(family: &dyn Family, data: &Dataset, preprocess: &Preprocess) -> Result<Option<SmootherRisks>> {
    if data.task() != Task::Regression {
        return Err(Error::TaskMismatch("closed-form leave-one-out needs a real target (squared loss)".into()));
    }
    data.check_unweighted("closed-form leave-one-out and GCV")?;
    let transformed;
    let data = if preprocess.is_identity() {
        data
    } else {
        transformed = preprocess.fit(&data.all()).apply(&data.all())?;
        &transformed
    };
    let Some(path) = family.linear_smoother(&data.all()) else { return Ok(None) };
    let SmootherPath { fitted, leverage } = path?;
    let y = data.all().gather_y();
    let mut out = SmootherRisks {
        family: family.name().into(),
        hyperparameter: family.grid().name().into(),
        grid: family.grid().values().to_vec(),
        n_rows: y.len(),
        loo: Vec::new(),
        loo_standard_error: Vec::new(),
        gcv: Vec::new(),
        trace: Vec::new(),
        exact_loo: lemma_holds(family),
    };
    for (m, (f, s)) in fitted.iter().zip(&leverage).enumerate() {
        let at = |e: Error| Error::Fit { split: None, grid_index: m, source: Box::new(e) };
        let squares: Vec<f64> = loo_residuals(&y, f, s).map_err(at)?.iter().map(|r| r * r).collect();
        let (loo, se) = crate::select::summarize(&squares, None);
        let trace: f64 = s.iter().sum();
        out.loo.push(loo);
        out.loo_standard_error.push(se.unwrap_or(0.0));
        out.gcv.push(gcv(&y, f, trace).map_err(at)?);
        out.trace.push(trace);
    }
    Ok(Some(out))
}

/// The closed form of a one-point family: leave-one-out residuals and GCV.
pub(crate) struct OneRule {
    /// `(y_i − ŷ_i)/(1 − S_ii)` per row.
    pub(crate) loo_residuals: Vec<f64>,
    /// GCV.
    pub(crate) gcv: f64,
}

/// Closed form of grid point 0 of `family` on all rows (identity preprocessing).
pub(crate) fn one_rule(family: &dyn Family, data: &Dataset) -> Result<Option<OneRule>> {
    data.check_unweighted("closed-form leave-one-out and GCV")?;
    let Some(path) = family.linear_smoother(&data.all()) else { return Ok(None) };
    let SmootherPath { fitted, leverage } = path?;
    let (Some(f), Some(s)) = (fitted.first(), leverage.first()) else { return Ok(None) };
    let y = data.all().gather_y();
    let loo_residuals = loo_residuals(&y, f, s)?;
    let gcv = gcv(&y, f, s.iter().sum())?;
    Ok(Some(OneRule { loo_residuals, gcv }))
}
