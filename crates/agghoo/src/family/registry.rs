//! The family registry: what each family declares about itself, once ([`FamilyInfo`]), the trait
//! its configuration implements ([`FamilyConfig`]), and the `families!` macro whose one line per
//! family (in `spec.rs`) generates [`FamilySpec`](super::FamilySpec), [`FamilyKind`](super::FamilyKind)
//! and every dispatch between them.

use serde::Serialize;

use super::{AxisKind, Family, GridSpec, Scale};
use crate::data::{Dataset, Encoding};
use crate::error::Result;

/// One setting of a family (`--param KEY=VALUE`), declared once: its name and, when it can be swept
/// as a further grid axis (`--grid NAME=VALUES`), how that axis is ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub name: &'static str,
    /// Its order as a further grid axis, or `None` when it cannot be one.
    pub axis: Option<AxisKind>,
}

impl Setting {
    /// A setting that cannot be a grid axis.
    pub const fn fixed(name: &'static str) -> Self {
        Self { name, axis: None }
    }
    /// A setting that can be swept as a further grid axis ordered by `axis`.
    pub const fn axis(name: &'static str, axis: AxisKind) -> Self {
        Self { name, axis: Some(axis) }
    }
}

/// What a family's fitted models give besides predictions (for classification).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// Class probabilities (`predict --proba`, `predict_proba`).
    pub probabilities: bool,
    /// A binary classifier's real decision scores (`predict --decision`, `decision_function`).
    pub decision_scores: bool,
}

/// What a family declares about itself, once: everything the CLI's help, the error messages, the
/// composite grids and the Python package's capability checks read.
#[derive(Debug)]
pub struct FamilyInfo {
    /// The name (`--family`, the JSON tag of its spec).
    pub name: &'static str,
    /// One line: what it is and what its grid is over.
    pub summary: &'static str,
    /// Its settings (`--param`), in documentation order.
    pub settings: &'static [Setting],
    /// The names its path axis can have, the default first (`svc`: `lambda`, or `C` with
    /// `--param grid=C`).
    pub path_axes: &'static [&'static str],
    /// The scale of the path axis's values (integers for `k`, `mtry`; a log scale for λ, C).
    pub path_scale: Scale,
    /// The default grid, documented in one paragraph (the CLI's help wraps it).
    pub default_grid: &'static str,
    /// How it receives categorical columns.
    pub encoding: Encoding,
    /// What its fitted models give besides predictions.
    pub capabilities: Capabilities,
    /// True when its fits honour per-row sample weights ([`Dataset::with_weights`]); weighted
    /// data are refused by name for a family without it ([`check_sample_weight`]), never
    /// silently fitted unweighted.
    pub sample_weight: bool,
}

impl FamilyInfo {
    /// The names of its settings, in documentation order.
    pub fn setting_names(&self) -> Vec<&'static str> {
        self.settings.iter().map(|s| s.name).collect()
    }
    /// The settings that can be further grid axes, with their order.
    pub fn setting_axes(&self) -> impl Iterator<Item = (&'static str, AxisKind)> + '_ {
        self.settings.iter().filter_map(|s| s.axis.map(|a| (s.name, a)))
    }
}

/// Refuses weighted `data` for a family whose fits do not honour sample weights
/// ([`Family::sample_weight`]); unweighted data pass.
///
/// # Errors
/// [`Error::Unsupported`](crate::Error::Unsupported) naming the family and `sample_weight`.
pub fn check_sample_weight(family: &dyn Family, data: &Dataset) -> Result<()> {
    if data.weights().is_none() || family.sample_weight() {
        return Ok(());
    }
    let honouring: Vec<&str> = super::FamilyKind::ALL.iter().filter(|k| k.info().sample_weight).map(|k| k.name()).collect();
    Err(crate::Error::Unsupported {
        what: format!("sample_weight with family `{}`", family.name()),
        reason: format!(
            "its fit does not honour per-row weights (families that do: {})",
            if honouring.is_empty() { "none".to_string() } else { honouring.join(", ") }
        ),
    })
}

/// The trait each family's typed configuration implements; one line of the `families!`
/// registration in `spec.rs` makes it a variant of [`FamilySpec`](super::FamilySpec).
///
/// A family defined outside this crate implements it as well (and [`Family`] for what it builds):
/// everything that takes a `&dyn Family` (selection, estimation, the conformance suite) runs it;
/// the closed [`FamilySpec`](super::FamilySpec) (CLI names, JSON reports) and model files need the
/// in-crate registration (docs/ARCHITECTURE.md § Adding a family).
pub trait FamilyConfig: Send + Sync + std::fmt::Debug {
    /// Sets the setting `key` from its text (keys not in the family's [`FamilyInfo::settings`]
    /// are refused before this is called).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for a bad value.
    fn set(&mut self, key: &str, value: &str) -> Result<()>;
    /// The grid given (`None`: the family's default).
    fn grid(&self) -> Option<&GridSpec>;
    /// The grid slot, to replace the grid.
    fn grid_mut(&mut self) -> &mut Option<GridSpec>;
    /// The name of the path axis as configured (one of `info`'s [`path_axes`](FamilyInfo::path_axes));
    /// the default is the first.
    fn path_axis(&self, info: &'static FamilyInfo) -> &'static str {
        info.path_axes[0]
    }
    /// Builds the family for `data` as the family `info` (a configuration type may serve
    /// several families: `lasso` and `enet`, `svc` and `svr`).
    ///
    /// # Errors
    /// Invalid settings, an empty grid, a task the family does not support.
    fn build_family(&self, info: &'static FamilyInfo, data: &Dataset) -> Result<Box<dyn Family>>;
}

/// The registration of every family folder, in `family/mod.rs`: one line each,
/// `module { Variant(ConfigType) = default_config, INFO_STATIC; … } models { ModelVariant(ModelType), … }`
/// (a folder may hold several families — `lasso` and `enet` — and several fitted-model types —
/// the SVMs' `Svm` and `OneVsOneSvc`; a family's serde attributes go before its variant). Generates the folder's `pub mod`, [`FamilySpec`](super::FamilySpec) (plus its
/// `Composite` variant), [`FamilyKind`](super::FamilyKind), [`Model`](super::Model) (plus its
/// hand-written `Custom` and `Pipeline` variants) and every dispatch between them: a config
/// type implements [`FamilyConfig`], a model type [`FamilyModel`](super::FamilyModel).
macro_rules! families {
    ($(
        $module:ident {
            $( $(#[serde($($serde:tt)*)])? $variant:ident($config:ident) = $default:expr, $info:ident; )+
        } models { $( $model:ident($model_ty:ident) ),+ $(,)? }
    )+) => {
        $( pub mod $module; )+

        /// The typed configuration of a family, internally tagged by the family's CLI name in JSON
        /// (`{"family": "knn", "weights": "distance", "grid": …}`); fields left out take their defaults.
        ///
        /// ```
        /// use agghoo::family::{FamilySpec, GridSpec, knn::{KnnConfig, Weights}};
        /// let data = agghoo::data::generators::knn_problem(100, agghoo::Seed(1))?;
        /// let spec = FamilySpec::Knn(KnnConfig { grid: Some(GridSpec::parse("1:9:2")?), weights: Weights::Uniform });
        /// let family = spec.build(&data)?;
        /// assert_eq!(family.grid().len(), 5);
        /// // The same spec from JSON.
        /// let json = r#"{"family": "knn", "grid": {"values": [1, 3, 5, 7, 9]}}"#;
        /// assert_eq!(serde_json::from_str::<FamilySpec>(json).unwrap(), spec);
        /// # Ok::<(), agghoo::Error>(())
        /// ```
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "family", rename_all = "kebab-case")]
        pub enum FamilySpec {
            $($(
                #[doc = concat!("The family declared by `", stringify!($module), "::", stringify!($info), "`, configured by [`", stringify!($config), "`](", stringify!($module), "::", stringify!($config), ").")]
                $(#[serde($($serde)*)])? $variant($module::$config),
            )+)+
            /// A composite family: named grid axes over one family and/or a union of families.
            Composite($crate::family::CompositeSpec),
        }

        /// The registered families, by name: the tag of a plain [`FamilySpec`] ([`FamilySpec::kind`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum FamilyKind {
            $($(
                #[doc = concat!("The family declared by `", stringify!($module), "::", stringify!($info), "`, configured by [`", stringify!($config), "`](", stringify!($module), "::", stringify!($config), ").")]
                $variant,
            )+)+
        }

        impl FamilyKind {
            /// Every registered family, in registration (documentation) order.
            pub const ALL: [FamilyKind; [$($(stringify!($variant),)+)+].len()] = [$($(FamilyKind::$variant,)+)+];
            /// What the family declares about itself.
            pub fn info(self) -> &'static $crate::family::FamilyInfo {
                match self {
                    $($( FamilyKind::$variant => &$module::$info, )+)+
                }
            }
        }

        impl FamilySpec {
            /// The default configuration of `kind`.
            pub fn default_for(kind: FamilyKind) -> Self {
                match kind {
                    $($( FamilyKind::$variant => FamilySpec::$variant($default), )+)+
                }
            }
            /// The family's kind and configuration; `None` for a composite.
            pub fn config(&self) -> Option<(FamilyKind, &dyn $crate::family::FamilyConfig)> {
                match self {
                    $($( FamilySpec::$variant(c) => Some((FamilyKind::$variant, c)), )+)+
                    FamilySpec::Composite(_) => None,
                }
            }
            /// As [`config`](Self::config), mutable.
            pub fn config_mut(&mut self) -> Option<(FamilyKind, &mut dyn $crate::family::FamilyConfig)> {
                match self {
                    $($( FamilySpec::$variant(c) => Some((FamilyKind::$variant, c)), )+)+
                    FamilySpec::Composite(_) => None,
                }
            }
        }

        /// A fitted model of any family (one grid point), serializable into a model file (all but
        /// [`Model::Custom`]), tagged by its variant's name (`{"kind": "knn", …}`).
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum Model {
            $($(
                #[doc = concat!("A fitted [`", stringify!($model_ty), "`](", stringify!($module), "::", stringify!($model_ty), ").")]
                $model($module::$model_ty),
            )+)+
            /// A model of a family defined outside this crate (never in a model file).
            #[serde(skip)]
            Custom($crate::family::CustomModel),
            /// A per-fold preprocessing followed by a model.
            Pipeline {
                /// Categorical encoding / imputation / standardisation fitted on the training rows.
                transform: $crate::data::Transform,
                /// The model on transformed features.
                inner: Box<Model>,
            },
        }

        impl Model {
            /// The fitted model itself, or the preprocessing and the model behind it.
            fn layer(&self) -> model::Layer<'_> {
                match self {
                    $($( Model::$model(m) => model::Layer::Fitted(m), )+)+
                    Model::Custom(m) => model::Layer::Fitted(m),
                    Model::Pipeline { transform, inner } => model::Layer::Pipeline(transform, inner),
                }
            }

            /// The single model equal to the average of `models` (Agghoo's merge), when they are
            /// all of one type whose [`FamilyModel::merge_mean`](super::FamilyModel::merge_mean)
            /// merges and every one [`merges_with`](super::FamilyModel::merges_with) the first:
            /// linear and kernel ridge, Lasso / elastic net (averaged coefficients) and SVR / binary
            /// SVC (union of support vectors, coefficients / V). `None` for trees, forests, k-NN,
            /// logistic regression, one-vs-one SVCs (a vote, not an average), members behind a
            /// per-fold preprocessing (their transforms differ), members of several types, and
            /// kernel members whose kernels differ (γ = `scale` is computed on each training set):
            /// their average is not one kernel expansion, so the members are averaged at
            /// prediction time.
            ///
            /// # Errors
            /// The family's merge errors.
            pub fn merge_mean(models: &[&Model]) -> $crate::error::Result<Option<Model>> {
                use $crate::family::FamilyModel as _;
                $($(
                    let same: Option<Vec<&$module::$model_ty>> =
                        models.iter().map(|m| if let Model::$model(x) = m { Some(x) } else { None }).collect();
                    if let Some(list) = same
                        && let Some(first) = list.first()
                    {
                        if list.iter().any(|&m| !first.merges_with(m)) {
                            return Ok(None);
                        }
                        return Ok(<$module::$model_ty as $crate::family::FamilyModel>::merge_mean(&list)?.map(Model::$model));
                    }
                )+)+
                Ok(None)
            }
        }
    };
}

pub(crate) use families;

/// Implements [`FamilyConfig`] for a configuration type with a `grid: Option<GridSpec>` field and
/// an inherent `set(key, value)`: `family_config!(Config)` for a family whose path axis has one
/// name and which builds with an inherent `build(data)`; `family_config!(Config; fn … )` with the
/// other methods (`build_family`, `path_axis`) written out.
macro_rules! family_config {
    ($config:ty) => {
        $crate::family::family_config!($config;
            fn build_family(
                &self,
                _: &'static $crate::family::FamilyInfo,
                data: &$crate::data::Dataset,
            ) -> $crate::error::Result<Box<dyn $crate::family::Family>> {
                self.build(data)
            }
        );
    };
    ($config:ty; $($methods:tt)*) => {
        impl $crate::family::FamilyConfig for $config {
            fn set(&mut self, key: &str, value: &str) -> $crate::error::Result<()> {
                <$config>::set(self, key, value)
            }
            fn grid(&self) -> Option<&$crate::family::GridSpec> {
                self.grid.as_ref()
            }
            fn grid_mut(&mut self) -> &mut Option<$crate::family::GridSpec> {
                &mut self.grid
            }
            $($methods)*
        }
    };
}

pub(crate) use family_config;

/// The kernel width γ of kernel ridge and the SVMs as a grid axis: smaller is simpler (a wider
/// kernel), log scale.
pub(crate) const GAMMA: Setting = Setting::axis("gamma", AxisKind::Numeric { scale: Scale::Log, larger_is_simpler: false });
