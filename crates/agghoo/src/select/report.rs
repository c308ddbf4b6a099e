//! What a procedure reports besides its fitted model.

use serde::{Deserialize, Serialize};

use super::aggregate::Aggregation;
use super::method::Method;
use crate::engine::{SplitOutcome, summarize};
use crate::resample::Splits;

/// One split's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SplitReport {
    /// Zero-based split index.
    pub split: usize,
    /// |T|.
    pub n_train: usize,
    /// |Tᶜ|.
    pub n_validation: usize,
    /// The hold-out argmin `m̂_T`.
    pub selected_index: usize,
    /// The grid value at `m̂_T` (for a multi-axis grid or a union: its index, as in
    /// [`Report::grid`]; the point is [`Report::grid_points`]`[selected_index]`).
    pub selected_value: f64,
    /// Validation risk of every grid point (the selection loss).
    pub risks: Vec<f64>,
}

/// The cross-validation curve `CV(A_m)` with its standard error.
///
/// `mean[m] = Σ_j w_j R_j(m)` with `w_j = |Tᶜ_j| / Σ_k |Tᶜ_k|` (the size-weighted mean of
/// docs/PROCEDURES.md § Cross-validation estimates; the plain mean when blocks are equal); `standard_error[m]` = sample standard deviation
/// of the `R_j(m)` over splits divided by √V (0 when V = 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CvCurve {
    /// CV risk per grid point.
    pub mean: Vec<f64>,
    /// Standard error per grid point.
    pub standard_error: Vec<f64>,
}

/// The report of a selection procedure.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The procedure.
    pub method: Method,
    /// The family's name.
    pub family: String,
    /// The selection loss.
    pub loss: String,
    /// The hyperparameter's name.
    pub hyperparameter: String,
    /// The grid values, in grid order.
    pub grid: Vec<f64>,
    /// Per split: choice and risk curve.
    pub splits: Vec<SplitReport>,
    /// The CV curve over the splits (always computed; CV selection uses it).
    pub cv_curve: CvCurve,
    /// Grid index of each member of the fitted model.
    pub member_grid_indices: Vec<usize>,
    /// For single-model procedures, the hyperparameter value the final model was fitted with
    /// (EKCV: `m̄`, or the grid value nearest to it for families fitted on the grid only, such as
    /// k-NN's k).
    pub final_value: Option<f64>,
    /// EKCV only: `m̄`, the mean of the splits' selected values in the grid's scale (on a
    /// composite grid: of the path axis), before any rounding to what the family can fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean_selected: Option<f64>,
    /// How members are combined.
    pub aggregation: Aggregation,
    /// The split indices used (to rerun or compare on identical splits).
    pub split_indices: Option<Splits>,
    /// Multi-axis grids and unions only: each family's axes (path axis first) and their values.
    /// `grid` then holds the grid points' indices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axes: Option<Vec<crate::family::FamilyAxes>>,
    /// Multi-axis grids and unions only: every grid point's family and axis values, in grid order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid_points: Option<Vec<crate::family::GridPoint>>,
    /// Multi-axis grids and unions, single-model procedures: the final point (EKCV: the
    /// per-axis average, possibly off the grid; its path axis the value fitted, as `final_value`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_point: Option<crate::family::GridPoint>,
}

/// The CV curve of per-split outcomes: size-weighted mean over splits and the standard error
/// (see [`CvCurve`]).
pub fn cv_curve(outcomes: &[SplitOutcome]) -> CvCurve {
    let risks: Vec<&[f64]> = outcomes.iter().map(|o| o.risks[0].as_slice()).collect();
    let sizes: Vec<usize> = outcomes.iter().map(|o| o.n_validation).collect();
    risk_curve(&risks, &sizes)
}

/// The CV curve of per-split risks `risks[j][g]` (split j, grid point g) on validation sets of
/// `sizes[j]` rows: for each grid point the mean over splits weighted by validation size, and
/// the standard error of the plain mean (0 for one split). A split with fewer risks than the
/// first counts as NaN where it has none.
///
/// ```
/// use agghoo::select::risk_curve;
/// let curve = risk_curve(&[&[0.2, 0.1], &[0.4, 0.1]], &[10, 30]);
/// assert!((curve.mean[0] - 0.35).abs() < 1e-15 && curve.standard_error[1] == 0.0);
/// ```
pub fn risk_curve(risks: &[&[f64]], sizes: &[usize]) -> CvCurve {
    let m = risks.first().map_or(0, |r| r.len());
    let weights: Vec<f64> = sizes.iter().map(|&n| n as f64).collect();
    let (mean, standard_error) = (0..m)
        .map(|g| {
            let values: Vec<f64> = risks.iter().map(|r| r.get(g).copied().unwrap_or(f64::NAN)).collect();
            let (mean, se) = summarize(&values, Some(&weights));
            (mean, se.unwrap_or(0.0))
        })
        .unzip();
    CvCurve { mean, standard_error }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{TieRule, argmin};

    fn outcome(errors: usize, n_validation: usize, other: usize) -> SplitOutcome {
        let risks = vec![vec![errors as f64 / n_validation as f64, other as f64 / n_validation as f64]];
        SplitOutcome { risks, selected: 0, n_train: 400, n_validation, model: None, predictions: None }
    }

    /// 5-fold CV of 442 rows (validation sizes 89, 89, 88, 88, 88): grid point 0 makes one error
    /// in the last fold, grid point 1 one error in the second — the same total, a tie under the
    /// 0–1 loss. Their size-weighted means differ in the last bit; the documented tie rule decides.
    #[test]
    fn equal_error_totals_tie_exactly_in_the_cv_curve() {
        let sizes = [89, 89, 88, 88, 88];
        let outcomes: Vec<SplitOutcome> =
            sizes.iter().enumerate().map(|(j, &n)| outcome(usize::from(j == 4), n, usize::from(j == 1))).collect();
        let curve = cv_curve(&outcomes);
        assert_ne!(curve.mean[0], curve.mean[1], "the rounding this test is about");
        assert_eq!(argmin(&curve.mean, TieRule::First).unwrap(), 0);
        assert_eq!(argmin(&curve.mean, TieRule::Last).unwrap(), 1);
        // a real difference (one more error) is never a tie
        let worse: Vec<SplitOutcome> =
            sizes.iter().enumerate().map(|(j, &n)| outcome(usize::from(j == 4), n, usize::from(j <= 1))).collect();
        let curve = cv_curve(&worse);
        assert_eq!(argmin(&curve.mean, TieRule::Last).unwrap(), 0);
    }
}
