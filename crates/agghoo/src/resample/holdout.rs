//! Hold-out: one training set of size `⌊τ n⌋`, validated on the rest (`HO_T` in `docs/PROCEDURES.md`).

use serde::{Deserialize, Serialize};

use super::{MonteCarlo, PlanContext, Splits, TrainFraction};
use crate::error::Result;
use crate::seed::Seed;

/// A single uniformly drawn split with training fraction τ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HoldOut {
    /// Training fraction τ.
    pub train_fraction: TrainFraction,
    /// Draw each class proportionally, as a stratified [`MonteCarlo`] split.
    #[serde(default)]
    pub stratify: bool,
}

impl HoldOut {
    /// A hold-out plan.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParameter`] for τ ∉ (0, 1).
    pub fn new(tau: f64) -> Result<Self> {
        Ok(Self { train_fraction: TrainFraction::new(tau)?, stratify: false })
    }
    /// Draws the split: identical to the first split of [`MonteCarlo`] with the same τ and seed,
    /// so Agghoo with V = 1 and the hold-out see the same training set.
    ///
    /// # Errors
    /// As [`MonteCarlo::instantiate`].
    pub fn instantiate(&self, ctx: &PlanContext<'_>, seed: Seed) -> Result<Splits> {
        MonteCarlo { n_splits: 1, train_fraction: self.train_fraction, stratify: self.stratify }.instantiate_with(ctx, seed)
    }
}

impl super::Resampling for HoldOut {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx, seed)
    }
    fn describe(&self) -> String {
        format!("hold-out τ={}{}", self.train_fraction.get(), if self.stratify { " stratified" } else { "" })
    }
    fn n_splits(&self) -> Option<usize> {
        Some(1)
    }
    fn text(&self) -> String {
        format!("holdout:{}", self.train_fraction.get())
    }
}

impl super::PlanType for HoldOut {
    const SETTINGS: &'static [super::PlanSetting] = &[super::PlanSetting::Tau, super::PlanSetting::Stratify];
    const FORMS: &'static str = "holdout:TAU";
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Ok(Self { stratify: settings.stratify, ..Self::new(settings.tau())? })
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["holdout", tau] => Some(Self::new(text.real(tau)?)?),
            _ => None,
        })
    }
    fn stratified(self) -> Self {
        Self { stratify: true, ..self }
    }
}
