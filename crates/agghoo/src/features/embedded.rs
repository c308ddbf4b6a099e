//! Embedded selection: features chosen as a by-product of fitting one learner.
//!
//! - **Lasso / elastic-net support**: λ (the family's grid, ascending) is chosen by CV selection
//!   ([`select::select`](crate::select::select) with [`Method::Cv`]) over the given plan; the
//!   selected features are the non-zero coefficients of `A_{λ̂}(D)`, ranked by |coefficient|.
//!   The Lasso family does not standardise by itself, so with `standardize` (the CLI's
//!   `--standardize`) the features are standardised inside every training set (and the default
//!   λ grid computed on that scale): the penalty then treats features alike and the ranking by
//!   |coefficient| compares like with like. Without it, both follow the raw units.
//! - **Random-forest importance**: a forest at its first grid point; features ranked by mean
//!   decrease in impurity (forest fitted on all rows) or by permutation importance (forest fitted
//!   on a seeded 70 % hold-out training part, permutations scored on the other 30 %, so the
//!   importance is measured on rows the forest did not train on); the top `n_features` kept.
//!
//! Missing values: the Lasso's fits impute inside each training set of its plan; the forest's
//! rows are imputed with the medians of the rows the selection is given.
//!
//! Categorical columns: the Lasso's fits one-hot encode them inside each training set, and a
//! column is selected when any of its encoded columns has a non-zero coefficient (its score the
//! largest |coefficient| of its block); the forest reads them ordinally encoded (one column each,
//! with the levels of the rows the selection is given), so a column's importance is its own.
//! Missing categories follow `missing_category`.
//!
//! Both read a capability of a fitted model that its family module exposes
//! (`LassoModel::coefficients()`, `ForestModel::importances(..)`).

use serde::{Deserialize, Serialize};

use super::FeatureScore;
use crate::data::{CategoryOptions, Dataset, Encoding, MissingCategory, Preprocess};
use crate::error::{Error, Result};
use crate::family::forest::ForestConfig;
use crate::family::lasso::LassoConfig;
use crate::family::{FamilySpec, Model};
use crate::resample::{HoldOut, Plan, PlanContext};
use crate::seed::{Purpose, Seed};
use crate::select::{self, Method, SelectConfig};

/// Which importance a forest reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Importance {
    /// Mean decrease in impurity over the trees' splits.
    Impurity,
    /// Increase of the loss on held-out rows (the 30 % the forest did not train on) when the
    /// feature's values are permuted among them.
    Permutation,
}

/// An embedded selection method.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "embedded", rename_all = "snake_case")]
pub enum EmbeddedMethod {
    /// Non-zero coefficients of the Lasso (or elastic net) at the λ chosen by CV.
    LassoSupport {
        /// Elastic net instead of the Lasso.
        elastic_net: bool,
        /// The family's configuration (grid of λ, mixing; its kind follows `elastic_net`).
        config: LassoConfig,
        /// The plan of the CV choice of λ.
        plan: Plan,
        /// Standardise the features inside every training set (see the module docs).
        #[serde(default)]
        standardize: bool,
        /// What a missing categorical value becomes.
        #[serde(default, skip_serializing_if = "is_level")]
        missing_category: MissingCategory,
    },
    /// The `n_features` most important features of a random forest.
    ForestImportance {
        /// The forest's configuration (its first grid point is used).
        config: ForestConfig,
        /// Which importance.
        importance: Importance,
        /// How many features to keep (≥ 1).
        n_features: usize,
        /// What a missing categorical value becomes.
        #[serde(default, skip_serializing_if = "is_level")]
        missing_category: MissingCategory,
    },
}

fn is_level(missing: &MissingCategory) -> bool {
    *missing == MissingCategory::Level
}

/// What an embedded method selected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddedReport {
    /// The method (`lasso-support`, `forest-impurity`, ...).
    pub method: String,
    /// Selected columns, ascending.
    pub selected: Vec<usize>,
    /// Their names.
    pub selected_names: Vec<String>,
    /// Every feature's score (|coefficient| or importance), decreasing.
    pub scores: Vec<FeatureScore>,
    /// The hyperparameter value used (λ̂ for the Lasso).
    pub hyperparameter: Option<f64>,
}

/// Runs an embedded method on `data`; `seed` drives the plan (and the forest).
///
/// # Errors
/// The family's and the plan's errors; [`Error::InvalidParameter`] for `n_features` = 0 or above
/// the number of features.
pub fn embedded_select(method: &EmbeddedMethod, data: &Dataset, seed: Seed) -> Result<EmbeddedReport> {
    data.check_unweighted("feature selection")?;
    data.check_learnable()?;
    match method {
        EmbeddedMethod::LassoSupport { elastic_net, config, plan, standardize, missing_category } => {
            let spec = if *elastic_net { FamilySpec::Enet(config.clone()) } else { FamilySpec::Lasso(config.clone()) };
            let options = CategoryOptions { encoding: Encoding::OneHot, missing: *missing_category };
            let preprocess = Preprocess::for_data(data, *standardize, options);
            let fam = spec.build_for(data, &preprocess)?;
            let splits = plan.instantiate(&PlanContext::of(data), seed.child(Purpose::Inner, 0))?;
            let config = SelectConfig { preprocess, ..SelectConfig::new(Method::Cv) };
            let (model, report) = select::select(fam.as_ref(), data, &splits, &config)?;
            let member = model.members().first().ok_or_else(|| Error::Internal("CV selection without a member".into()))?;
            let coefficients = lasso_support(&member.model, data.n_features())?;
            let mut scores = named_scores(data, coefficients);
            scores.retain(|s| s.score > 0.0);
            Ok(report_from(if *elastic_net { "enet-support" } else { "lasso-support" }, data, scores, usize::MAX, report.final_value))
        }
        EmbeddedMethod::ForestImportance { config, importance, n_features, missing_category } => {
            if *n_features == 0 || *n_features > data.n_features() {
                return Err(Error::InvalidParameter {
                    name: "features",
                    expected: "between 1 and the number of features",
                    got: format!("{n_features} requested, {} features", data.n_features()),
                });
            }
            // Forests read raw values: impute the rows the selection is given, and encode its
            // categorical columns ordinally with their levels (module docs).
            let data = &*super::impute_own_medians(data)?;
            let encoded;
            let data = if data.has_categorical() {
                let options = CategoryOptions { encoding: Encoding::Ordinal, missing: *missing_category };
                let all = data.all();
                encoded = Preprocess { categorical: Some(options), ..Preprocess::default() }.fit(&all).apply(&all)?;
                &encoded
            } else {
                data
            };
            let fam = FamilySpec::Forest(config.clone()).build(data)?;
            let importances = match importance {
                Importance::Impurity => forest_importances(&fam.fit(&data.all(), 0)?, ImportanceOn::Impurity)?,
                Importance::Permutation => {
                    let holdout = HoldOut::new(0.7)?.instantiate(&PlanContext::of(data), seed.child(Purpose::Inner, 1))?;
                    let split = &holdout.as_slice()[0];
                    let model = fam.fit(&data.view(split.train()), 0)?;
                    forest_importances(&model, ImportanceOn::Permutation(&data.view(split.validation()), seed))?
                }
            };
            let name = match importance {
                Importance::Impurity => "forest-impurity",
                Importance::Permutation => "forest-permutation",
            };
            Ok(report_from(name, data, named_scores(data, importances), *n_features, Some(fam.grid().value(0))))
        }
    }
}

fn named_scores(data: &Dataset, scores: Vec<f64>) -> Vec<FeatureScore> {
    let mut out: Vec<FeatureScore> = scores
        .into_iter()
        .enumerate()
        .map(|(index, score)| FeatureScore { index, name: data.feature_names()[index].clone(), score })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index)));
    out
}

fn report_from(method: &str, data: &Dataset, scores: Vec<FeatureScore>, keep: usize, hyperparameter: Option<f64>) -> EmbeddedReport {
    let mut selected: Vec<usize> = scores.iter().take(keep).map(|s| s.index).collect();
    selected.sort_unstable();
    let selected_names = selected.iter().map(|&j| data.feature_names()[j].clone()).collect();
    EmbeddedReport { method: method.into(), selected, selected_names, scores, hyperparameter }
}

/// |coefficient| of every one of the `n_features` input features of a fitted Lasso / elastic-net
/// model (0 outside the support), on the scale the model was fitted on; a one-hot encoded
/// feature gets the largest |coefficient| of its columns.
fn lasso_support(model: &Model, n_features: usize) -> Result<Vec<f64>> {
    match model {
        Model::Lasso(m) => Ok(m.coefficients().iter().map(|c| c.abs()).collect()),
        Model::Pipeline { transform, inner } => {
            let encoded = lasso_support(inner, transform.n_outputs(n_features))?;
            let mut out = vec![0.0f64; n_features];
            for (c, j) in encoded.into_iter().zip(transform.output_sources(n_features)) {
                out[j] = out[j].max(c);
            }
            Ok(out)
        }
        _ => Err(Error::Internal("the Lasso family returned another model".into())),
    }
}

/// Where a forest's importance is measured.
enum ImportanceOn<'a> {
    Impurity,
    Permutation(&'a crate::data::View<'a>, Seed),
}

/// Importance of every feature of a fitted forest.
fn forest_importances(model: &Model, on: ImportanceOn<'_>) -> Result<Vec<f64>> {
    use crate::family::forest::Importance as Kind;
    match (model, on) {
        (Model::Forest(m), ImportanceOn::Impurity) => m.importances(Kind::Impurity),
        (Model::Forest(m), ImportanceOn::Permutation(rows, seed)) => m.importances(Kind::Permutation { rows, seed }),
        (Model::Pipeline { inner, .. }, on) => forest_importances(inner, on),
        _ => Err(Error::Internal("the forest family returned another model".into())),
    }
}
