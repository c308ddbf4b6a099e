//! The typed configurations of `ridge` and `kernel-ridge`.

use faer::MatRef;
use serde::{Deserialize, Serialize};

use super::{Kernel, RidgeFamily, default_grid, task_mismatch};
use crate::data::Encoding;
use crate::data::{Dataset, Task};
use crate::error::{Error, Result};
use crate::family::params::{parse_f64, parse_usize, unknown_key};
use crate::family::registry::GAMMA;
use crate::family::{AxisKind, Capabilities, Family, FamilyInfo, GridSpec, KernelWidth, Scale, Setting, family_config};

/// The default grid of `ridge` and `kernel-ridge`, documented.
const RIDGE_GRID: &str = "lambda: 50 log-spaced values from 1e-6 t to 10 t (t = trace of the centred X'X, or of the kernel matrix)";

/// The registration of `ridge`.
pub(crate) static RIDGE: FamilyInfo = FamilyInfo {
    name: "ridge",
    summary: "ridge regression, grid over lambda",
    settings: &[],
    path_axes: &["lambda"],
    path_scale: Scale::Log,
    default_grid: RIDGE_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: true,
};

/// The registration of `kernel-ridge`.
pub(crate) static KERNEL_RIDGE: FamilyInfo = FamilyInfo {
    name: "kernel-ridge",
    summary: "kernel ridge regression, grid over lambda",
    settings: &[
        Setting::axis("kernel", AxisKind::Categorical),
        GAMMA,
        Setting::fixed("coef0"),
        Setting::axis("degree", AxisKind::Numeric { scale: Scale::Integer, larger_is_simpler: false }),
        Setting::fixed("intercept"),
    ],
    path_axes: &["lambda"],
    path_scale: Scale::Log,
    default_grid: RIDGE_GRID,
    encoding: Encoding::OneHot,
    capabilities: Capabilities { probabilities: false, decision_scores: false },
    sample_weight: true,
};

/// The ridge family's configuration (`--family ridge`): a grid only.
///
/// ```
/// use agghoo::family::{GridSpec, ridge::RidgeConfig};
/// let data = agghoo::data::generators::svr_problem(40, agghoo::Seed(1), 0)?;
/// let family = RidgeConfig { grid: Some(GridSpec::parse("log:0.01:10:4")?) }.build(&data)?;
/// assert_eq!(family.grid().len(), 4);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RidgeConfig {
    /// The grid of λ; `None`: 50 values log-spaced around the trace of the data's normal matrix
    /// (see the module doc) — it depends on the data.
    pub grid: Option<GridSpec>,
}

impl RidgeConfig {
    /// `ridge` has no settings: every key is refused.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the key.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let _ = value;
        Err(unknown_key("ridge", &RIDGE.setting_names(), key))
    }
    /// Builds the ridge family for `data`.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`] for classification data; an invalid grid.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        if data.task() != Task::Regression {
            return Err(task_mismatch("ridge"));
        }
        let lambdas = match &self.grid {
            Some(g) => g.values()?,
            None => {
                let (n, d) = (data.n_rows(), data.n_features());
                let x = MatRef::from_row_major_slice(data.x(), n, d);
                let trace = (0..d)
                    .map(|j| {
                        let mean = (0..n).map(|i| x[(i, j)]).sum::<f64>() / n.max(1) as f64;
                        (0..n).map(|i| (x[(i, j)] - mean).powi(2)).sum::<f64>()
                    })
                    .sum();
                default_grid(trace)
            }
        };
        Ok(Box::new(RidgeFamily::linear(lambdas)?))
    }
}

/// The kernel of `kernel-ridge` by name (`kernel=…`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelName {
    /// `⟨x, x'⟩`.
    Linear,
    /// `exp(−γ ‖x − x'‖²)` (the default; also `gaussian`).
    #[default]
    #[serde(alias = "gaussian")]
    Rbf,
    /// `(γ ⟨x, x'⟩ + coef0)^degree` (also `poly`).
    #[serde(alias = "poly")]
    Polynomial,
}

impl KernelName {
    /// Parses `linear`, `rbf` (`gaussian`) or `polynomial` (`poly`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `kernel` for another name.
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "linear" => Ok(KernelName::Linear),
            "rbf" | "gaussian" => Ok(KernelName::Rbf),
            "polynomial" | "poly" => Ok(KernelName::Polynomial),
            other => Err(Error::invalid("kernel", "one of linear, rbf (gaussian), polynomial (poly)", other)),
        }
    }
    /// The settings the kernel does not use.
    fn unused(self) -> &'static [&'static str] {
        match self {
            KernelName::Linear => &["gamma", "coef0", "degree"],
            KernelName::Rbf => &["coef0", "degree"],
            KernelName::Polynomial => &[],
        }
    }
    fn name(self) -> &'static str {
        match self {
            KernelName::Linear => "linear",
            KernelName::Rbf => "rbf",
            KernelName::Polynomial => "polynomial",
        }
    }
}

/// The kernel ridge family's configuration (`--family kernel-ridge`).
///
/// `gamma`, `coef0` and `degree` are `None` unless given: their defaults depend on the kernel
/// (γ: `scale` for `rbf`, `auto` for `polynomial`; coef0 = 1 and degree = 3 for `polynomial`),
/// and one the kernel does not use is refused.
///
/// ```
/// use agghoo::family::{GridSpec, KernelWidth, ridge::{KernelName, KernelRidgeConfig}};
/// let data = agghoo::data::generators::svr_problem(40, agghoo::Seed(1), 0)?;
/// let config = KernelRidgeConfig {
///     kernel: KernelName::Rbf,
///     gamma: Some(KernelWidth::Fixed(0.5)),
///     grid: Some(GridSpec::parse("log:0.01:10:4")?),
///     ..KernelRidgeConfig::default()
/// };
/// assert_eq!(config.build(&data)?.grid().len(), 4);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct KernelRidgeConfig {
    /// The kernel (default `rbf`).
    pub kernel: KernelName,
    /// The kernel width γ; `None`: the kernel's default (`scale` for `rbf`, `auto` for `polynomial`).
    pub gamma: Option<KernelWidth>,
    /// The polynomial kernel's coef0 ≥ 0; `None`: 1.
    pub coef0: Option<f64>,
    /// The polynomial kernel's degree ≥ 1; `None`: 3.
    pub degree: Option<usize>,
    /// Fit an unpenalised intercept (default false: scikit-learn's `KernelRidge`).
    pub intercept: bool,
    /// The grid of λ; `None`: 50 values log-spaced around the trace of the data's kernel matrix.
    pub grid: Option<GridSpec>,
}

impl KernelRidgeConfig {
    /// Sets `key` (`kernel`, `gamma`, `coef0`, `degree`, `intercept`) from its text.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key (listing the known ones) or a bad value.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        match key {
            "kernel" => self.kernel = KernelName::parse(value)?,
            "gamma" => self.gamma = Some(KernelWidth::parse(value)?),
            "coef0" => self.coef0 = Some(parse_f64("coef0", value)?),
            "degree" => self.degree = Some(parse_usize("degree", value)?),
            "intercept" => {
                self.intercept = match value {
                    "true" => true,
                    "false" => false,
                    other => return Err(Error::invalid("intercept", "true or false", other)),
                }
            }
            _ => return Err(unknown_key("kernel-ridge", &KERNEL_RIDGE.setting_names(), key)),
        }
        Ok(())
    }
    /// Checks the settings given are used by the kernel and in range.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a setting the kernel does not use, γ ≤ 0, coef0 < 0 or
    /// degree < 1.
    pub fn validate(&self) -> Result<()> {
        let given = [("gamma", self.gamma.is_some()), ("coef0", self.coef0.is_some()), ("degree", self.degree.is_some())];
        if let Some((k, _)) = given.iter().find(|(k, set)| *set && self.kernel.unused().contains(k)) {
            return Err(Error::InvalidParameter {
                name: k,
                expected: "a parameter of the chosen kernel",
                got: format!("`{k}` with kernel={}", self.kernel.name()),
            });
        }
        if let Some(g) = self.gamma {
            g.validate()?;
        }
        if self.kernel == KernelName::Polynomial {
            Kernel::polynomial(1.0, self.coef0.unwrap_or(1.0), self.degree())?;
        }
        Ok(())
    }
    fn degree(&self) -> u32 {
        u32::try_from(self.degree.unwrap_or(3)).unwrap_or(u32::MAX)
    }
    /// Builds the kernel ridge family for `data`.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`] for classification data; as [`validate`](Self::validate); an
    /// invalid grid.
    pub fn build(&self, data: &Dataset) -> Result<Box<dyn Family>> {
        if data.task() != Task::Regression {
            return Err(task_mismatch("kernel-ridge"));
        }
        self.validate()?;
        let d = data.n_features();
        // The default grid's trace is computed with γ of all the rows; fits use their training set's.
        let gamma = |width: KernelWidth| width.gamma(data.x(), d);
        let (kernel, width) = match self.kernel {
            KernelName::Linear => (Kernel::linear(), None),
            KernelName::Rbf => {
                let width = self.gamma.unwrap_or(KernelWidth::Scale);
                (Kernel::rbf(gamma(width)?)?, Some(width))
            }
            KernelName::Polynomial => {
                let width = self.gamma.unwrap_or(KernelWidth::Auto);
                (Kernel::polynomial(gamma(width)?, self.coef0.unwrap_or(1.0), self.degree())?, Some(width))
            }
        };
        let lambdas = match &self.grid {
            Some(g) => g.values()?,
            None => default_grid(kernel.trace(MatRef::from_row_major_slice(data.x(), data.n_rows(), data.n_features()))),
        };
        let family = RidgeFamily::kernel(lambdas, kernel, self.intercept)?;
        Ok(Box::new(match width {
            Some(w) => family.with_width(w),
            None => family,
        }))
    }
}

family_config!(RidgeConfig);
family_config!(KernelRidgeConfig);
