//! The typed configuration of `svc` and `svr`.

use serde::{Deserialize, Serialize};

use super::{SvmFamily, SvmKind, SvmSettings};
use crate::data::Encoding;
use crate::data::{Dataset, Task};
use crate::error::{Error, Result};
use crate::family::params::{parse_f64, unknown_key};
use crate::family::registry::GAMMA;
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, KernelWidth, Scale, Setting, family_config};

/// The default grid of `svc` and `svr`, documented.
const SVM_GRID: &str = "lambda_j = 2^(j-1) / (500 n), j = 1..17 (--param grid=C: C = 2^(2k-5), k = 0..10); gamma = scale (1 / (d Var(X)))";

/// The registration of `svc`.
pub(crate) static SVC: FamilyInfo = FamilyInfo {
    name: "svc",
    summary: "Gaussian-kernel C-SVC, grid over lambda (or C)",
    settings: &[GAMMA, Setting::fixed("tol"), Setting::fixed("shrinking"), Setting::fixed("grid")],
    path_axes: &["lambda", "C"],
    path_scale: Scale::Log,
    default_grid: SVM_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: true },
    sample_weight: true,
};

/// The registration of `svr`.
pub(crate) static SVR: FamilyInfo = FamilyInfo {
    name: "svr",
    summary: "Gaussian-kernel epsilon-SVR, grid over lambda (or C)",
    settings: &[
        GAMMA,
        Setting::axis("epsilon", AxisKind::Numeric { scale: Scale::Linear, larger_is_simpler: true }),
        Setting::fixed("tol"),
        Setting::fixed("shrinking"),
        Setting::fixed("grid"),
    ],
    path_axes: &["lambda", "C"],
    path_scale: Scale::Log,
    default_grid: SVM_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: true,
};

/// What the grid of an SVM family holds (`--param grid=…`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SvmAxis {
    /// λ, with `C = 1 / (2 λ n_t)` on a training set of n_t rows (the default).
    #[default]
    #[serde(rename = "lambda")]
    Lambda,
    /// LIBSVM's C itself.
    C,
}

/// The configuration of `svc` and `svr` (Gaussian kernel).
///
/// ```
/// use agghoo::family::{GridSpec, KernelWidth, svm::{SvmAxis, SvmConfig}};
/// let data = agghoo::data::generators::svr_problem(40, agghoo::Seed(1), 0)?;
/// let config = SvmConfig {
///     gamma: KernelWidth::Fixed(0.5),
///     epsilon: Some(0.05),
///     axis: SvmAxis::C,
///     grid: Some(GridSpec::parse("log:0.1:10:3")?),
///     ..SvmConfig::svr()
/// };
/// assert_eq!(config.build(&data)?.grid().name(), "C");
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SvmConfig {
    /// Which machine: set by the spec's `family` tag, not written in JSON.
    #[serde(skip)]
    pub kind: SvmKind,
    /// The kernel width γ (default `scale`, computed on each training set).
    pub gamma: KernelWidth,
    /// ε ≥ 0 of the ε-insensitive loss, `svr` only (refused for `svc`); `None`: 0.1.
    pub epsilon: Option<f64>,
    /// SMO stopping tolerance (> 0; default 10⁻³).
    pub tol: f64,
    /// LIBSVM's shrinking heuristic (default on).
    pub shrinking: bool,
    /// What the grid holds: λ (default) or C (the `grid` setting).
    pub axis: SvmAxis,
    /// The grid; `None`: 17 values of λ = 2^(j−1) / (500 n), j = 1..17, or 11 values of
    /// C = 2^(2k−5) — the λ grid depends on the number of rows n.
    pub grid: Option<GridSpec>,
}

impl Default for SvmConfig {
    fn default() -> Self {
        Self { kind: SvmKind::Svc, gamma: KernelWidth::Scale, epsilon: None, tol: 1e-3, shrinking: true, axis: SvmAxis::Lambda, grid: None }
    }
}

impl SvmConfig {
    /// The default `svc` configuration.
    pub fn svc() -> Self {
        Self::default()
    }
    /// The default `svr` configuration.
    pub fn svr() -> Self {
        Self { kind: SvmKind::Svr, ..Self::default() }
    }
    fn info(&self) -> &'static FamilyInfo {
        match self.kind {
            SvmKind::Svc => &SVC,
            SvmKind::Svr => &SVR,
        }
    }
    /// Sets `key` (`gamma`, `epsilon` for `svr`, `tol`, `shrinking`, `grid` = `lambda` or `C`)
    /// from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key (listing the known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let known = self.info().setting_names();
        if !known.contains(&key) {
            return Err(unknown_key(self.kind.name(), &known, key));
        }
        match key {
            "gamma" => self.gamma = KernelWidth::parse(value)?,
            "epsilon" => self.epsilon = Some(parse_f64("epsilon", value)?),
            "tol" => self.tol = parse_f64("tol", value)?,
            "shrinking" => {
                self.shrinking = match value {
                    "true" | "1" | "yes" => true,
                    "false" | "0" | "no" => false,
                    other => return Err(Error::invalid("shrinking", "true or false", other)),
                }
            }
            _ => {
                self.axis = match value {
                    "lambda" => SvmAxis::Lambda,
                    "C" | "c" => SvmAxis::C,
                    other => return Err(Error::invalid("grid", "lambda or C", other)),
                }
            }
        }
        Ok(())
    }
    /// The solver settings for `d` features.
    fn settings(&self, d: usize) -> SvmSettings {
        let defaults = SvmSettings::defaults(d);
        SvmSettings {
            gamma: if let KernelWidth::Fixed(g) = self.gamma { g } else { defaults.gamma },
            epsilon: self.epsilon.unwrap_or(defaults.epsilon),
            tol: self.tol,
            shrinking: self.shrinking,
        }
    }
    /// Checks γ > 0, ε ≥ 0 (and no ε for `svc`), `tol` > 0.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the setting.
    pub fn validate(&self) -> Result<()> {
        if self.kind == SvmKind::Svc && self.epsilon.is_some() {
            return Err(unknown_key("svc", &SVC.setting_names(), "epsilon"));
        }
        self.gamma.validate()?;
        self.settings(1).check()
    }
    /// Builds the family for `data`. More than two classes are fitted one-vs-one.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`] for data of the other task; as [`validate`](Self::validate); an
    /// invalid grid.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        match self.kind {
            SvmKind::Svc if data.task() != Task::Classification => {
                return Err(Error::TaskMismatch("family `svc` needs classification data; use `svr` for regression".into()));
            }
            SvmKind::Svr if data.task() != Task::Regression => {
                return Err(Error::TaskMismatch("family `svr` needs regression data; use `svc` for classes".into()));
            }
            _ => {}
        }
        self.validate()?;
        let grid_in_c = self.axis == SvmAxis::C;
        let n = data.n_rows().max(1) as f64;
        let values = match &self.grid {
            Some(g) => g.values()?,
            None if grid_in_c => (0..11).map(|k| 2f64.powi(2 * k - 5)).collect(),
            None => (1..=17).map(|j| 2f64.powi(j - 1) / (500.0 * n)).collect(),
        };
        Ok(Box::new(SvmFamily::new(self.kind, values, grid_in_c, self.settings(data.n_features()))?.with_width(self.gamma)))
    }
}

/// Deserializes the configuration of `svc` (the `family` tag chose it): ε is refused.
pub(crate) fn deserialize_svc<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<SvmConfig, D::Error> {
    let config = SvmConfig { kind: SvmKind::Svc, ..SvmConfig::deserialize(deserializer)? };
    config.validate().map_err(serde::de::Error::custom)?;
    Ok(config)
}

/// Deserializes the configuration of `svr` (the `family` tag chose it).
pub(crate) fn deserialize_svr<'de, D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<SvmConfig, D::Error> {
    Ok(SvmConfig { kind: SvmKind::Svr, ..SvmConfig::deserialize(deserializer)? })
}

family_config!(SvmConfig;
    fn path_axis(&self, _: &'static FamilyInfo) -> &'static str {
        match self.axis {
            SvmAxis::Lambda => "lambda",
            SvmAxis::C => "C",
        }
    }
    /// Built as the machine registered (a hand-built config may carry the other kind).
    fn build_family(&self, info: &'static FamilyInfo, data: &Dataset) -> Result<Box<dyn Family>> {
        let kind = if info.name == SVR.name { SvmKind::Svr } else { SvmKind::Svc };
        if self.kind == kind { self.build(data) } else { SvmConfig { kind, ..self.clone() }.build(data) }
    }
);
