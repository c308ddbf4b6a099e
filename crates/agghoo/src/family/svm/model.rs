//! The fitted model of the SVM family: `f(x) = Σ_s β_s K(x_s, x) + b` over its support vectors,
//! and the decision values the path and the one-vs-one machines share.

use std::collections::HashMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::SvmKind;
use super::cache::Points;
use super::check_kernel_model;
use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::family::Predictor;
use crate::family::numerics::kernel::Kernel;
use crate::predictions::Predictions;

/// A fitted machine: `f(x) = Σ_s β_s K(x_s, x) + b` over its support vectors `x_s`.
/// SVR predicts `f(x)`; a binary SVC predicts class 1 when `f(x) > 0` and returns `f` as the
/// decision (more than two classes: [`OneVsOneSvc`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SvmModel {
    pub(super) machine: SvmKind,
    pub(super) gamma: f64,
    pub(super) n_features: usize,
    /// Support vectors, row-major `n_sv × n_features`.
    pub(super) support: Vec<f64>,
    /// `β_s` (`y_s α_s` for SVC, `α_s − α*_s` for SVR).
    pub(super) coef: Vec<f64>,
    /// The bias b (LIBSVM's `−ρ`).
    pub(super) bias: f64,
}

impl SvmModel {
    pub(super) fn from_dense(kind: SvmKind, points: &Points, beta: &[f64], bias: f64) -> Self {
        let mut support = Vec::new();
        let mut coef = Vec::new();
        for (i, &b) in beta.iter().enumerate() {
            if b != 0.0 {
                support.extend_from_slice(points.row(i));
                coef.push(b);
            }
        }
        Self { machine: kind, gamma: points.gamma(), n_features: points.d, support, coef, bias }
    }

    /// Checks a deserialized model: `n_features` values per support vector, one coefficient per
    /// support vector, `γ > 0`, every number finite.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent SVM model: {what}")));
        check_kernel_model("SVM model", self.n_features, n_features, self.gamma)?;
        self.check_shape()?;
        if !self.bias.is_finite() || self.support.iter().chain(&self.coef).any(|v| !v.is_finite()) {
            return bad("a non-finite support vector or coefficient".into());
        }
        Ok(())
    }

    /// The support vectors fill `n_support × n_features` values (what prediction slices by).
    fn check_shape(&self) -> Result<()> {
        if self.coef.len().checked_mul(self.n_features) == Some(self.support.len()) {
            return Ok(());
        }
        Err(Error::CorruptModel(format!(
            "inconsistent SVM model: {} support values for {} coefficients of {} features",
            self.support.len(),
            self.coef.len(),
            self.n_features
        )))
    }

    /// The task and number of classes the machine predicts.
    pub(crate) fn output(&self) -> (Task, usize) {
        match self.machine {
            SvmKind::Svc => (Task::Classification, 2),
            SvmKind::Svr => (Task::Regression, 0),
        }
    }

    /// C-SVC or ε-SVR.
    pub fn kind(&self) -> SvmKind {
        self.machine
    }
    /// The kernel's γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    /// Number of support vectors.
    pub fn n_support(&self) -> usize {
        self.coef.len()
    }
    /// Support vector `s`'s features.
    pub fn support_vector(&self, s: usize) -> &[f64] {
        &self.support[s * self.n_features..(s + 1) * self.n_features]
    }
    /// The expansion coefficients `β_s`.
    pub fn dual_coef(&self) -> &[f64] {
        &self.coef
    }
    /// The bias b.
    pub fn bias(&self) -> f64 {
        self.bias
    }

    /// The decision function `f(x) = Σ_s β_s K(x_s, x) + b` on every row of `rows`.
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for another number of features.
    pub fn decision(&self, rows: &View<'_>) -> Result<Vec<f64>> {
        check_features(self.n_features, rows)?;
        self.check_shape()?;
        let mut d = decision_values(rows, &self.support, self.n_features, &Kernel::rbf(self.gamma)?, &[&self.coef], &[self.bias]);
        Ok(d.pop().unwrap_or_default())
    }

    /// One machine whose decision function is the mean of the members': the union of their
    /// support vectors (identical vectors merged, their coefficients summed) with coefficients
    /// divided by V, and the mean bias. `f̄(x) = (1/V) Σ_v f_v(x)` holds exactly (up to the order
    /// of floating-point sums).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for no member; [`Error::SchemaMismatch`] for members of
    /// another kind, γ or feature count.
    pub fn merge_mean(members: &[&SvmModel]) -> Result<SvmModel> {
        let first = members.first().ok_or_else(|| Error::invalid("members", "at least one", 0))?;
        if let Some(m) = members.iter().find(|m| m.machine != first.machine || m.gamma != first.gamma || m.n_features != first.n_features) {
            return Err(Error::SchemaMismatch(format!(
                "cannot merge SVMs ({:?}, γ = {}, {} features) and ({:?}, γ = {}, {} features)",
                first.machine, first.gamma, first.n_features, m.machine, m.gamma, m.n_features
            )));
        }
        let v = members.len() as f64;
        let d = first.n_features;
        let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
        let mut support = Vec::new();
        let mut coef: Vec<f64> = Vec::new();
        for m in members {
            for (s, &b) in m.coef.iter().enumerate() {
                let x = m.support_vector(s);
                let key: Vec<u64> = x.iter().map(|v| v.to_bits()).collect();
                let slot = *index.entry(key).or_insert_with(|| {
                    support.extend_from_slice(x);
                    coef.push(0.0);
                    coef.len() - 1
                });
                coef[slot] += b / v;
            }
        }
        let bias = members.iter().map(|m| m.bias).sum::<f64>() / v;
        Ok(SvmModel { machine: first.machine, gamma: first.gamma, n_features: d, support, coef, bias })
    }
}

impl crate::family::FamilyModel for SvmModel {
    fn validate(&self, n_features: usize) -> Result<()> {
        SvmModel::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        SvmModel::output(self)
    }
    fn merge_mean(models: &[&Self]) -> Result<Option<Self>> {
        SvmModel::merge_mean(models).map(Some)
    }
    /// Machines merge only with the same kernel width.
    fn merges_with(&self, other: &Self) -> bool {
        self.gamma() == other.gamma()
    }
}

impl crate::family::FamilyModel for super::OneVsOneSvc {
    fn validate(&self, n_features: usize) -> Result<()> {
        super::OneVsOneSvc::validate(self, n_features)
    }
    fn output(&self) -> (crate::data::Task, usize) {
        (Task::Classification, self.n_classes())
    }
}

impl Predictor for SvmModel {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        predictions(self.machine, self.decision(rows)?)
    }
}

pub(super) fn check_features(n_features: usize, rows: &View<'_>) -> Result<()> {
    if rows.n_features() != n_features {
        return Err(Error::SchemaMismatch(format!("SVM model has {n_features} features, data have {}", rows.n_features())));
    }
    Ok(())
}

/// Decision values of several expansions over the same support vectors:
/// `out[g][i] = Σ_s coefs[g][s] K(x_s, rows_i) + biases[g]`. Rows in parallel, each row's sums
/// in support order, so the result does not depend on the thread count.
pub(super) fn decision_values(
    rows: &View<'_>,
    support: &[f64],
    d: usize,
    kernel: &Kernel,
    coefs: &[&[f64]],
    biases: &[f64],
) -> Vec<Vec<f64>> {
    let n_sv = coefs.first().map_or(0, |c| c.len());
    // coefficients by support vector (`by_sv[s · m + g] = coefs[g][s]`): a row's m sums then
    // advance together over the support vectors, each one still the sequential sum
    // `Σ_s c_gs K_s` from −0.0 (as `Iterator::sum`), bit for bit, in vector registers
    let m = coefs.len();
    let mut by_sv = vec![0.0; n_sv * m];
    for (g, c) in coefs.iter().enumerate() {
        c.iter().enumerate().for_each(|(s, &v)| by_sv[s * m + g] = v);
    }
    let arch = pulp::Arch::new();
    let per_row: Vec<Vec<f64>> = (0..rows.len())
        .into_par_iter()
        .with_min_len(rows.par().min_len(rows.len()).max(16))
        .map_init(
            || vec![0.0; n_sv],
            |k, i| {
                kernel.eval_rows(rows.x(i), support, d, k);
                let mut sums = vec![-0.0; m];
                arch.dispatch(SupportSums { kernel: k, by_sv: &by_sv, sums: &mut sums });
                sums.iter().zip(biases).map(|(sum, b)| sum + b).collect()
            },
        )
        .collect();
    (0..coefs.len()).map(|g| per_row.iter().map(|r| r[g]).collect()).collect()
}

/// One row's sums `sums[g] += by_sv[s · m + g] · kernel[s]` over the support vectors s in order
/// (m = `sums.len()`), compiled for the instruction set `pulp` finds at run time (the same
/// multiplications and additions in the same order on every path, hence the same bits).
struct SupportSums<'a> {
    kernel: &'a [f64],
    by_sv: &'a [f64],
    sums: &'a mut [f64],
}

impl pulp::WithSimd for SupportSums<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        let m = self.sums.len();
        for (&kv, c) in self.kernel.iter().zip(self.by_sv.chunks_exact(m.max(1))) {
            self.sums.iter_mut().zip(c).for_each(|(acc, &c)| *acc += c * kv);
        }
    }
}

pub(super) fn predictions(kind: SvmKind, decision: Vec<f64>) -> Result<Predictions> {
    if decision.iter().any(|v| !v.is_finite()) {
        return Err(Error::Numerical("SVM decision value is not finite".into()));
    }
    Ok(match kind {
        SvmKind::Svr => Predictions::Real(decision),
        SvmKind::Svc => {
            let labels = decision.iter().map(|&f| u32::from(f > 0.0)).collect();
            Predictions::Classes { labels, n_classes: 2, proba: None, decision: Some(decision) }
        }
    })
}
