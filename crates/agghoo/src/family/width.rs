//! The kernel width γ of `svc`, `svr` and `kernel-ridge` (`exp(−γ ‖x − x'‖²)`, and the
//! polynomial kernel's scale), as the user gives it: a number, `scale` or `auto`.
//!
//! `scale` is scikit-learn's default for `SVC` / `SVR`: `γ = 1 / (d · Var(X))`, the variance
//! taken over all `n · d` feature values of the training rows (population form, as NumPy's
//! `X.var()`), and γ = 1 when that variance is 0. It is computed on each training set as its fit
//! sees it — after the per-split imputation and standardisation — so a fold's γ depends on that
//! fold's training rows only, and the fitted model stores the γ it used. `auto` is `1 / d`
//! (LIBSVM's and scikit-learn's `KernelRidge` default).

use crate::error::{Error, Result};

use super::FamilyParams;

/// How γ is chosen. In a JSON spec: a number, `"scale"` or `"auto"`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelWidth {
    /// A fixed γ > 0.
    Fixed(f64),
    /// `1 / (d · Var(X))` of each training set (1 for a constant one).
    Scale,
    /// `1 / d`.
    Auto,
}

/// What a `gamma` value must be.
const EXPECTED: &str = "a finite number > 0, scale (1/(d·Var X) of each training set) or auto (1/d)";

impl KernelWidth {
    /// Parses a `gamma` value: a finite number > 0, `scale` or `auto`.
    ///
    /// ```
    /// use agghoo::family::KernelWidth;
    /// assert_eq!(KernelWidth::parse("scale")?, KernelWidth::Scale);
    /// assert_eq!(KernelWidth::parse("0.5")?, KernelWidth::Fixed(0.5));
    /// assert!(KernelWidth::parse("-1").is_err());
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `gamma` for another value.
    pub fn parse(text: &str) -> Result<Self> {
        let width = match text.trim() {
            "scale" => KernelWidth::Scale,
            "auto" => KernelWidth::Auto,
            v => KernelWidth::Fixed(v.parse::<f64>().map_err(|_| Error::invalid("gamma", EXPECTED, v))?),
        };
        width.validate()?;
        Ok(width)
    }

    /// Checks a fixed γ is a finite number > 0.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `gamma`.
    pub fn validate(self) -> Result<()> {
        match self {
            KernelWidth::Fixed(g) if !(g > 0.0 && g.is_finite()) => Err(Error::invalid("gamma", EXPECTED, g)),
            _ => Ok(()),
        }
    }

    /// Reads the `gamma` parameter: a finite number > 0, `scale` or `auto`; `default` without it.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another value.
    pub fn from_params(params: &FamilyParams, default: KernelWidth) -> Result<Self> {
        params.values.get("gamma").map_or(Ok(default), |v| Self::parse(v))
    }

    /// γ for the row-major training features `x` with `d` columns.
    ///
    /// ```
    /// use agghoo::family::KernelWidth;
    /// // two features, values 1, 2, 3, 4 (variance 1.25): γ = 1 / (2 · 1.25)
    /// assert_eq!(KernelWidth::Scale.gamma(&[1.0, 2.0, 3.0, 4.0], 2)?, 0.4);
    /// assert_eq!(KernelWidth::Auto.gamma(&[1.0, 2.0, 3.0, 4.0], 2)?, 0.5);
    /// assert_eq!(KernelWidth::Scale.gamma(&[7.0, 7.0], 1)?, 1.0); // constant features
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`gamma`) when the result is not a finite number > 0 (a
    /// variance that overflows: features near ±1e154 and beyond).
    pub fn gamma(self, x: &[f64], d: usize) -> Result<f64> {
        let d = d.max(1);
        let gamma = match self {
            KernelWidth::Fixed(g) => g,
            KernelWidth::Auto => 1.0 / d as f64,
            KernelWidth::Scale => {
                let n = x.len().max(1) as f64;
                let mean = x.iter().sum::<f64>() / n;
                let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
                if var == 0.0 { 1.0 } else { 1.0 / (d as f64 * var) }
            }
        };
        if gamma > 0.0 && gamma.is_finite() {
            Ok(gamma)
        } else {
            Err(Error::invalid("gamma", "a finite number > 0 (the features' variance is not finite)", gamma))
        }
    }
}

/// The JSON form: a number, or the name of a rule.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum WidthRepr {
    Fixed(f64),
    Rule(String),
}

impl serde::Serialize for KernelWidth {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match *self {
            KernelWidth::Fixed(g) => WidthRepr::Fixed(g),
            KernelWidth::Scale => WidthRepr::Rule("scale".into()),
            KernelWidth::Auto => WidthRepr::Rule("auto".into()),
        }
        .serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for KernelWidth {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        let width = match WidthRepr::deserialize(deserializer)? {
            WidthRepr::Fixed(g) => KernelWidth::Fixed(g),
            WidthRepr::Rule(r) => KernelWidth::parse(&r).map_err(serde::de::Error::custom)?,
        };
        width.validate().map_err(serde::de::Error::custom)?;
        Ok(width)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scikit-learn: `gamma = 1 / (X.shape[1] * X.var())`, NumPy's population variance over all values.
    #[test]
    fn scale_is_sklearns_formula_on_hand_data() {
        // X = [[1, 10], [2, 20], [4, 40]]: values 1, 10, 2, 20, 4, 40; mean 77/6.
        let x = [1.0, 10.0, 2.0, 20.0, 4.0, 40.0];
        let mean = 77.0 / 6.0;
        let var = x.iter().map(|v: &f64| (v - mean).powi(2)).sum::<f64>() / 6.0;
        assert!((var - 188.805_555_555_555_54).abs() < 1e-9);
        let gamma = KernelWidth::Scale.gamma(&x, 2).unwrap();
        assert!((gamma - 0.002_648_227_159_040_753_6).abs() < 1e-15); // numpy: 1 / (2 * X.var())
        assert_eq!(KernelWidth::Auto.gamma(&x, 2).unwrap(), 0.5);
        assert_eq!(KernelWidth::Fixed(3.0).gamma(&x, 2).unwrap(), 3.0);
    }

    #[test]
    fn parameter_values() {
        let with = |v: &str| KernelWidth::from_params(&FamilyParams::default().set("gamma", v), KernelWidth::Scale);
        assert_eq!(with("scale").unwrap(), KernelWidth::Scale);
        assert_eq!(with("auto").unwrap(), KernelWidth::Auto);
        assert_eq!(with("0.25").unwrap(), KernelWidth::Fixed(0.25));
        for bad in ["0", "-1", "nan", "inf", "wide"] {
            assert!(matches!(with(bad), Err(Error::InvalidParameter { name: "gamma", .. })), "{bad}");
        }
        assert_eq!(KernelWidth::from_params(&FamilyParams::default(), KernelWidth::Auto).unwrap(), KernelWidth::Auto);
        assert!(KernelWidth::Scale.gamma(&[1e200, -1e200], 1).is_err());
    }
}
