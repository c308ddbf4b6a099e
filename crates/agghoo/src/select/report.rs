//! What a procedure reports besides its fitted model.

use serde::{Deserialize, Serialize};

use super::aggregate::Aggregation;
use super::procedures::Method;
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
    /// For single-model procedures, the final hyperparameter value (EKCV: `m̄` before rounding
    /// to the grid for families without off-grid fits).
    pub final_value: Option<f64>,
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
    /// per-axis average, possibly off the grid).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_point: Option<crate::family::GridPoint>,
}
