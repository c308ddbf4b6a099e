//! Bootstrap plan: B resamples of size n drawn with replacement; validation = out-of-bag rows.

use serde::{Deserialize, Serialize};

use super::{Split, Splits, check_count};
use crate::error::{Error, Result};
use crate::seed::{Purpose, Seed};

/// B bootstrap resamples `Z*b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bootstrap {
    /// Number of resamples B (≥ 1).
    pub n_resamples: usize,
}

impl Bootstrap {
    /// B resamples.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for B = 0.
    pub fn new(n_resamples: usize) -> Result<Self> {
        check_count("resamples", n_resamples, 1, "at least 1")?;
        Ok(Self { n_resamples })
    }
    /// Draws the resamples. Training rows repeat (sorted); validation = rows not drawn.
    /// A resample with no out-of-bag row (probability n!/nⁿ) is drawn again from the same
    /// stream, so every split can be validated.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for B = 0; [`Error::TooFewRows`] for n < 2.
    pub fn instantiate(&self, n: usize, seed: Seed) -> Result<Splits> {
        use rand::RngExt;
        check_count("resamples", self.n_resamples, 1, "at least 1")?;
        if n < 2 {
            return Err(Error::TooFewRows { what: "the bootstrap".into(), needed: 2, found: n });
        }
        // n drawn rows plus up to n out-of-bag rows per resample.
        super::check_plan_size(format_args!("the bootstrap with B = {}", self.n_resamples), self.n_resamples as u128, 2 * n)?;
        let splits = (0..self.n_resamples)
            .map(|b| {
                let mut rng = seed.rng(Purpose::Splits, b as u64);
                loop {
                    let mut counts = vec![0u32; n];
                    for _ in 0..n {
                        counts[rng.random_range(0..n)] += 1;
                    }
                    let oob: Vec<usize> = (0..n).filter(|&i| counts[i] == 0).collect();
                    if oob.is_empty() {
                        continue;
                    }
                    let train = (0..n).flat_map(|i| std::iter::repeat_n(i, counts[i] as usize)).collect();
                    return Split::new(train, oob);
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Splits::new(n, splits)
    }
}

impl super::Resampling for Bootstrap {
    fn draw(&self, ctx: &super::PlanContext<'_>, seed: Seed) -> Result<Splits> {
        self.instantiate(ctx.n_rows, seed)
    }
    fn describe(&self) -> String {
        format!("bootstrap B={}", self.n_resamples)
    }
    fn n_splits(&self) -> Option<usize> {
        Some(self.n_resamples)
    }
    fn text(&self) -> String {
        format!("bootstrap:{}", self.n_resamples)
    }
}

impl super::PlanType for Bootstrap {
    const SETTINGS: &'static [super::PlanSetting] = &[];
    const FORMS: &'static str = "bootstrap:B";
    fn from_settings(settings: &super::PlanSettings) -> Result<Self> {
        Self::new(settings.n_splits())
    }
    fn parse(form: &[&str], text: &super::PlanText<'_>) -> Result<Option<Self>> {
        Ok(match form {
            ["bootstrap", b] => Some(Self::new(text.int(b)?)?),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_bag_is_the_complement_of_the_resample() {
        let s = Bootstrap { n_resamples: 30 }.instantiate(25, Seed(5)).unwrap();
        for sp in s.iter() {
            assert_eq!(sp.train().len(), 25);
            let mut drawn = [false; 25];
            sp.train().iter().for_each(|&i| drawn[i] = true);
            let oob: Vec<usize> = (0..25).filter(|&i| !drawn[i]).collect();
            assert_eq!(sp.validation(), oob.as_slice());
        }
    }
}
