//! Families: grids of learning rules `(A_m), m ∈ M` that evaluate a whole hyperparameter path
//! per training set (docs/PROCEDURES.md § Path evaluation). See `family/README.md` for the design.
//!
//! Every family has
//! - a typed configuration (`config.rs` of its folder: [`knn::KnnConfig`], …), one variant of
//!   [`FamilySpec`], from which it is built on the data ([`FamilySpec::build`]); the CLI's
//!   strings ([`FamilyParams`]) become a spec at the edge ([`FamilySpec::from_params`]),
//! - [`Family::fit`], the slow, obviously correct fit of one grid point,
//! - [`Family::fit_path`], which does the shared work once per training set and returns a
//!   [`FittedPath`]: predictions of *every* grid point on a validation view, and the fitted
//!   model at any grid point without refitting where the family allows it,
//! - the conformance suite ([`crate::testing`]): fast path = slow path, and more.
//!
//! Fitted models are values of the closed enum [`Model`] so that they serialize into a versioned
//! model file without a plugin registry; its variants are the fitted-model types ([`FamilyModel`])
//! that the families' registration below names.

mod composite;
mod grid;
mod model;
pub mod numerics;
pub(crate) mod params;
mod registry;
mod spec;
mod width;

// The registration: one entry per family folder, `module { Variant(Config) = default, INFO; … }
// models { Variant(ModelType), … }` — its families (each with its configuration type, default
// configuration and `FamilyInfo`, after its serde attributes if any) and its fitted-model types.
// It declares the module and generates `FamilySpec`, `FamilyKind`, `Model` and the dispatch
// between them (`registry.rs`). A folder with one family is one line.
registry::families! {
    knn { Knn(KnnConfig) = Default::default(), KNN; } models { Knn(KnnModel) }
    ridge {
        Ridge(RidgeConfig) = Default::default(), RIDGE;
        KernelRidge(KernelRidgeConfig) = Default::default(), KERNEL_RIDGE;
    } models { Ridge(RidgeModel) }
    lasso {
        Lasso(LassoConfig) = lasso::LassoConfig::lasso(), LASSO;
        #[serde(deserialize_with = "lasso::deserialize_enet")]
        Enet(LassoConfig) = lasso::LassoConfig::enet(), ENET;
    } models { Lasso(LassoModel) }
    svm {
        #[serde(deserialize_with = "svm::deserialize_svc")]
        Svc(SvmConfig) = svm::SvmConfig::svc(), SVC;
        #[serde(deserialize_with = "svm::deserialize_svr")]
        Svr(SvmConfig) = svm::SvmConfig::svr(), SVR;
    } models { Svm(SvmModel), OneVsOneSvc(OneVsOneSvc) }
    cart { Cart(CartConfig) = Default::default(), CART; } models { Cart(CartModel) }
    forest { Forest(ForestConfig) = Default::default(), FOREST; } models { Forest(ForestModel) }
    logistic { Logistic(LogisticConfig) = Default::default(), LOGISTIC; } models { Logistic(LogisticModel) }
}

pub use composite::{Axis, AxisKind, AxisSpec, AxisValue, Composite, EkcvChoice, FamilyAxes, GridPoint};
pub(crate) use composite::{axis_list, path_names};
pub use grid::{Grid, Scale};
pub use model::{CustomModel, CustomPredictor, FamilyModel, Predictor};
pub use params::{FamilyParams, GridSpec};
pub(crate) use registry::family_config;
pub use registry::{Capabilities, FamilyConfig, FamilyInfo, Setting, check_sample_weight};
pub use spec::{CompositeSpec, Rule};
pub use width::KernelWidth;

use crate::data::{Dataset, Task, View};
use crate::error::{Error, Result};
use crate::predictions::PathPredictions;

/// A grid of learning rules `A_m`, `m ∈ M`, in the grid order stated by [`Family::grid`].
pub trait Family: Send + Sync {
    /// The family's CLI name (`knn`, `ridge`, ...).
    fn name(&self) -> &'static str;
    /// The grid M (values in the family's stated order).
    fn grid(&self) -> &Grid;
    /// The task the family was built for.
    fn task(&self) -> Task;
    /// Fits `A_m` on `train`: the slow, obviously correct path.
    ///
    /// # Errors
    /// Fit failures (singular systems, one class only, ...) as typed errors.
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model>;
    /// Fits the rule at a hyperparameter value that need not be on the grid (EKCV averages grid
    /// values). The default fits the grid point nearest in the grid's scale.
    ///
    /// # Errors
    /// As [`Family::fit`].
    fn fit_value(&self, train: &View<'_>, value: f64) -> Result<Model> {
        self.fit(train, self.grid().nearest(value))
    }
    /// The hyperparameter value [`fit_value`](Family::fit_value) fits for `value`: the grid value
    /// nearest to it by default; families that override `fit_value` to fit off the grid return
    /// `value` itself. What a report states as the fitted value (EKCV).
    fn fitted_value(&self, value: f64) -> f64 {
        self.grid().value(self.grid().nearest(value))
    }
    /// Does the shared work of the whole path on `train` once. The default refits each grid
    /// point lazily; fast families override it and must agree with it.
    ///
    /// # Errors
    /// As [`Family::fit`].
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        Ok(Box::new(RefitPath { family: self, train: train.clone() }))
    }
    /// For linear smoothers `ŷ = S y` (ridge, kernel ridge, k-NN regression): the fitted values
    /// on `train` and the diagonal of `S` for every grid point, from which closed-form
    /// leave-one-out and GCV follow (docs/PROCEDURES.md § Closed-form leave-one-out and GCV). `None` for other families.
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        let _ = train;
        None
    }
    /// True when the [`linear_smoother`](Family::linear_smoother)'s closed-form leave-one-out is
    /// exact (the leave-one-out lemma holds: ridge, kernel ridge), false otherwise (k-NN: a left-out
    /// row changes the neighbour sets).
    fn exact_loo(&self) -> bool {
        false
    }
    /// Checks that every grid point can be fitted on `n_train` rows (for example k ≤ n_train for
    /// k-NN). Called once per plan before any work, so a bad grid fails fast with a clear error.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the grid point.
    fn check_train_size(&self, n_train: usize) -> Result<()> {
        let _ = n_train;
        Ok(())
    }
    /// An upper bound on the bytes of the main buffers one [`fit_path`](Family::fit_path) and
    /// its [`predict`](FittedPath::predict) allocate on a training set of `shape` (the training
    /// and validation matrices themselves excluded): kernel matrices, eigendecompositions,
    /// one-vs-one pairs, path coefficients. Checked against the memory budget, per split in
    /// flight, before any fit. The default, 0, is for families whose work is linear in the data.
    fn path_memory(&self, shape: &FitShape) -> u128 {
        let _ = shape;
        0
    }
    /// True when the fits honour per-row sample weights. The default reads the registry
    /// ([`FamilyInfo::sample_weight`]) under [`name`](Family::name); a family defined outside
    /// this crate that honours [`View::weight`] overrides it.
    fn sample_weight(&self) -> bool {
        FamilyKind::ALL.iter().find(|k| k.name() == self.name()).is_some_and(|k| k.info().sample_weight)
    }
    /// The composite family (a multi-axis grid or a union of families) this is, if it is one:
    /// procedures read its axes for the one-standard-error rule, EKCV and reports.
    fn composite(&self) -> Option<&Composite> {
        None
    }
}

/// The sizes of one split's fit, for [`Family::path_memory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FitShape {
    /// Training rows.
    pub n_train: usize,
    /// Validation rows.
    pub n_validation: usize,
    /// Feature columns as the family sees them (after the categorical encoding).
    pub n_features: usize,
    /// Classes of the target (0 for regression).
    pub n_classes: usize,
    /// Rows of the largest two-class subset of a training set (the largest one-vs-one pair; the
    /// training rows for regression and two classes).
    pub largest_pair: usize,
    /// Threads this split's own parallel work may occupy at once (the pool's threads shared by
    /// the splits in flight, rounded up).
    pub threads: usize,
}

/// Fitted values and hat-matrix diagonals of a linear smoother along the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct SmootherPath {
    /// In-sample fitted values `ŷ = S_m y`, `[grid_index][row]`.
    pub fitted: Vec<Vec<f64>>,
    /// Diagonal `S_m[i][i]`, `[grid_index][row]`.
    pub leverage: Vec<Vec<f64>>,
}

/// The result of [`Family::fit_path`] on one training set.
pub trait FittedPath: Send + Sync {
    /// Predictions of every grid point on `validation`, indexed `[grid_index][row]`.
    ///
    /// # Errors
    /// Prediction failures (a schema mismatch).
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions>;
    /// The fitted model at `grid_index` (without refitting where the family allows it).
    ///
    /// # Errors
    /// As [`Family::fit`].
    fn model(&self, grid_index: usize) -> Result<Model>;
    /// The validation risk of every grid point under each loss, `[loss][grid_index]`, computed
    /// without materialising the predictions — where the family has such a shortcut for these
    /// losses (k-NN: 0–1 and regression losses). `None` means "use [`predict`](Self::predict)
    /// and [`Loss::risk`](crate::loss::Loss::risk)", which the result must equal bit for bit.
    fn risks(&self, validation: &View<'_>, losses: &[crate::loss::Loss]) -> Option<Result<Vec<Vec<f64>>>> {
        let _ = (validation, losses);
        None
    }
}

/// The generic path: refit every grid point (the slow reference every fast path is tested against).
pub struct RefitPath<'a, F: Family + ?Sized> {
    family: &'a F,
    train: View<'a>,
}

impl<'a, F: Family + ?Sized> RefitPath<'a, F> {
    /// The refit path of `family` on `train`.
    pub fn new(family: &'a F, train: View<'a>) -> Self {
        Self { family, train }
    }
}

impl<F: Family + ?Sized> FittedPath for RefitPath<'_, F> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        (0..self.family.grid().len()).map(|m| self.family.fit(&self.train, m)?.predict(validation)).collect()
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        self.family.fit(&self.train, grid_index)
    }
}

impl FamilyKind {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// How the family receives categorical columns: level codes for trees and forests (which
    /// split on them), one-hot columns for every other family.
    pub fn encoding(self) -> crate::data::Encoding {
        self.info().encoding
    }
    /// The preprocessing of `data` for this family (see [`Preprocess::for_data`](crate::data::Preprocess::for_data)):
    /// categorical columns in the family's [`encoding`](FamilyKind::encoding), missing categories as `missing`.
    pub fn preprocess(self, data: &Dataset, standardize: bool, missing: crate::data::MissingCategory) -> crate::data::Preprocess {
        crate::data::Preprocess::for_data(data, standardize, crate::data::CategoryOptions { encoding: self.encoding(), missing })
    }
    /// The `--param` settings the family knows (any other is refused by its build).
    pub fn settings(self) -> Vec<&'static str> {
        self.info().setting_names()
    }
    /// The names its path axis can have (`svc`: `lambda`, or `C` with `--param grid=C`; `forest`:
    /// `mtry`, or `min_samples_leaf` with `--param grid=min_samples_leaf`).
    pub fn path_axes(self) -> &'static [&'static str] {
        self.info().path_axes
    }
    /// True when `name` is a grid axis of the family: a name of its path axis or a setting that
    /// can be a further axis ([`FamilyInfo::setting_axes`]).
    pub fn has_axis(self, name: &str) -> bool {
        self.path_axes().contains(&name) || self.info().setting_axes().any(|(n, _)| n == name)
    }
    /// The axes the family accepts in `--grid NAME=VALUES`, for help and error messages: its path
    /// axis's names, then its settings that can be further axes (`lambda or C, gamma`).
    pub fn axis_list(self) -> String {
        axis_list(self)
    }
    /// The registered names, comma-separated (`knn, ridge, …`).
    pub fn names() -> String {
        Self::ALL.map(FamilyKind::name).join(", ")
    }
    /// Parses a CLI name.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] listing the registered names.
    pub fn parse(name: &str) -> Result<Self> {
        static EXPECTED: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| format!("one of {}", FamilyKind::names()));
        Self::ALL.into_iter().find(|k| k.name() == name).ok_or_else(|| Error::invalid("family", &EXPECTED, name))
    }
}

/// Builds the family `kind` with the parameters as the user gave them: the edge wrapper of
/// [`FamilySpec::from_params`] and [`FamilySpec::build`].
///
/// # Errors
/// As [`FamilySpec::from_params`] and [`FamilySpec::build`].
pub fn build(kind: FamilyKind, params: &FamilyParams, data: &Dataset) -> Result<Box<dyn Family>> {
    FamilySpec::from_params(kind, params)?.build(data)
}

/// As [`build`], for fits that will see `data` through `preprocess`: the edge wrapper of
/// [`FamilySpec::from_params`] and [`FamilySpec::build_for`] (see there).
///
/// # Errors
/// As [`FamilySpec::from_params`] and [`FamilySpec::build_for`].
pub fn build_for(kind: FamilyKind, params: &FamilyParams, data: &Dataset, preprocess: &crate::data::Preprocess) -> Result<Box<dyn Family>> {
    FamilySpec::from_params(kind, params)?.build_for(data, preprocess)
}

#[cfg(test)]
mod defaults_tests {
    use super::*;
    use crate::Seed;
    use crate::data::{Preprocess, Target};

    /// With `standardize`, a data-dependent default grid (the Lasso's λ path from λ_max) is the
    /// grid of the standardised data, whatever the raw scale; without it, the raw scale shows.
    #[test]
    fn default_grids_follow_the_preprocessing() {
        let base = crate::data::generators::svr_problem(80, Seed(4), 0).unwrap();
        let scaled_x: Vec<f64> = base.x().iter().map(|v| v * 1000.0 + 5.0).collect();
        let Target::Real(y) = base.target().clone() else { unreachable!("regression problem") };
        let scaled = Dataset::new(scaled_x, base.feature_names().to_vec(), Target::Real(y), "y").unwrap();
        let standardize = Preprocess { impute_median: false, standardize: true, categorical: None };
        let grid_of = |f: Box<dyn Family>| f.grid().values().to_vec();
        let params = FamilyParams::default();
        let on_raw = grid_of(build(FamilyKind::Lasso, &params, &scaled).unwrap());
        let for_standardized = grid_of(build_for(FamilyKind::Lasso, &params, &scaled, &standardize).unwrap());
        let all = scaled.all();
        let standardized = standardize.fit(&all).apply(&all).unwrap();
        assert_eq!(for_standardized, grid_of(build(FamilyKind::Lasso, &params, &standardized).unwrap()));
        assert!(on_raw[0] > 100.0 * for_standardized[0], "λ_max on raw features {} vs standardised {}", on_raw[0], for_standardized[0]);
    }
}
