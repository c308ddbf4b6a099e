//! The typed configuration of `lasso` and `enet`.

use serde::{Deserialize, Serialize};

use super::{L1Ratio, LassoFamily, Precompute, check_regression, default_grid};
use crate::data::Dataset;
use crate::data::Encoding;
use crate::error::Result;
use crate::family::params::{check_max_iter, check_tol};
use crate::family::params::{parse_f64, parse_usize, unknown_key};
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, Scale, Setting, family_config};

/// The default grid of `lasso` and `enet`, documented.
const LASSO_GRID: &str = "lambda: 100 log-spaced values from lambda_max down to 1e-3 lambda_max";

/// The registration of `lasso`.
pub(crate) static LASSO: FamilyInfo = FamilyInfo {
    name: "lasso",
    summary: "the Lasso, grid over lambda",
    settings: &[Setting::fixed("l1_ratio"), Setting::fixed("tol"), Setting::fixed("max_iter"), Setting::fixed("precompute")],
    path_axes: &["lambda"],
    path_scale: Scale::Log,
    default_grid: LASSO_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: true,
};

/// The registration of `enet`: the Lasso's settings, `l1_ratio` also a grid axis.
pub(crate) static ENET: FamilyInfo = FamilyInfo {
    name: "enet",
    summary: "the elastic net, grid over lambda",
    settings: &[
        Setting::axis("l1_ratio", AxisKind::Numeric { scale: Scale::Linear, larger_is_simpler: true }),
        Setting::fixed("tol"),
        Setting::fixed("max_iter"),
        Setting::fixed("precompute"),
    ],
    path_axes: &["lambda"],
    path_scale: Scale::Log,
    default_grid: LASSO_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: true,
};

/// Which of the two families a [`LassoConfig`] builds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LassoKind {
    /// `lasso`: ρ = 1 by default.
    #[default]
    Lasso,
    /// `enet`: ρ = 0.5 by default.
    Enet,
}

impl LassoKind {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            LassoKind::Lasso => "lasso",
            LassoKind::Enet => "enet",
        }
    }
    fn default_l1_ratio(self) -> f64 {
        match self {
            LassoKind::Lasso => 1.0,
            LassoKind::Enet => 0.5,
        }
    }
}

/// The configuration of `lasso` and `enet` (the same solver; they differ by the default ρ).
///
/// ```
/// use agghoo::family::{GridSpec, lasso::LassoConfig};
/// let data = agghoo::data::generators::svr_problem(40, agghoo::Seed(1), 0)?;
/// let config = LassoConfig { l1_ratio: Some(0.7), grid: Some(GridSpec::parse("log:0.001:0.1:5")?), ..LassoConfig::enet() };
/// let family = config.build(&data)?;
/// assert_eq!((family.name(), family.grid().len()), ("enet", 5));
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LassoConfig {
    /// Which family: set by the spec's `family` tag, not written in JSON.
    #[serde(skip)]
    pub kind: LassoKind,
    /// ρ ∈ [0, 1]; `None`: the family's default (1 for `lasso`, 0.5 for `enet`).
    pub l1_ratio: Option<f64>,
    /// Relative tolerance on the duality gap (> 0; default 10⁻⁷).
    pub tol: f64,
    /// Coordinate passes per λ (≥ 1; default 100 000).
    pub max_iter: usize,
    /// Gram matrix or residual updates (default auto).
    pub precompute: Precompute,
    /// The grid of λ; `None`: 100 values from the data's λ_max down to λ_max · 10⁻³.
    pub grid: Option<GridSpec>,
}

impl Default for LassoConfig {
    fn default() -> Self {
        Self { kind: LassoKind::Lasso, l1_ratio: None, tol: 1e-7, max_iter: 100_000, precompute: Precompute::Auto, grid: None }
    }
}

impl LassoConfig {
    /// The default `lasso` configuration.
    pub fn lasso() -> Self {
        Self::default()
    }
    /// The default `enet` configuration.
    pub fn enet() -> Self {
        Self { kind: LassoKind::Enet, ..Self::default() }
    }
    /// Sets `key` (`l1_ratio`, `tol`, `max_iter`, `precompute`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for an unknown key (listing the
    /// known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "l1_ratio" => self.l1_ratio = Some(parse_f64("l1_ratio", value)?),
            "tol" => self.tol = parse_f64("tol", value)?,
            "max_iter" => self.max_iter = parse_usize("max_iter", value)?,
            "precompute" => self.precompute = Precompute::parse(value)?,
            _ => return Err(unknown_key(self.kind.name(), &LASSO.setting_names(), key)),
        }
        Ok(())
    }
    /// ρ, validated.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `l1_ratio` outside [0, 1].
    pub fn l1_ratio(&self) -> Result<L1Ratio> {
        L1Ratio::new(self.l1_ratio.unwrap_or(self.kind.default_l1_ratio()))
    }
    /// Checks ρ ∈ [0, 1], `tol` > 0 and `max_iter` ≥ 1.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming the setting.
    pub fn validate(&self) -> Result<()> {
        self.l1_ratio()?;
        check_tol(self.tol)?;
        check_max_iter(self.max_iter)?;
        Ok(())
    }
    /// Builds the family for `data`.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`](crate::Error::TaskMismatch) on classification data; as
    /// [`validate`](Self::validate); an invalid grid.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        let name = self.kind.name();
        check_regression(data.task(), name)?;
        let l1_ratio = self.l1_ratio()?;
        let lambdas = match &self.grid {
            Some(g) => g.values()?,
            None => default_grid(data, l1_ratio),
        };
        let family =
            LassoFamily::new(name, lambdas, l1_ratio)?.with_tol(self.tol)?.with_max_iter(self.max_iter)?.with_precompute(self.precompute);
        Ok(Box::new(family))
    }
}

/// Deserializes the configuration of `enet` (the `family` tag chose it).
pub(crate) fn deserialize_enet<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<LassoConfig, D::Error> {
    Ok(LassoConfig { kind: LassoKind::Enet, ..LassoConfig::deserialize(deserializer)? })
}

family_config!(LassoConfig;
    /// Built as the family registered (a hand-built config may carry the other kind).
    fn build_family(&self, info: &'static FamilyInfo, data: &Dataset) -> Result<Box<dyn Family>> {
        let kind = if info.name == ENET.name { LassoKind::Enet } else { LassoKind::Lasso };
        if self.kind == kind { self.build(data) } else { LassoConfig { kind, ..self.clone() }.build(data) }
    }
);
