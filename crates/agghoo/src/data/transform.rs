//! Preprocessing fitted on training rows only: categorical encoding, median imputation and
//! standardisation.
//!
//! Fitting on the training view and applying to the validation view is the honesty rule
//! (`docs/PROCEDURES.md` § Honest evaluation) applied to unsupervised steps too: validation
//! rows never inform the levels, medians, means or scales their own predictions use.

use serde::{Deserialize, Serialize};

use super::categorical::{CategoryOptions, Encoder};
use super::dataset::{Dataset, View};
use crate::error::Result;

/// Which preprocessing steps to fit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preprocess {
    /// Replace missing (NaN) features by the training median of their column.
    pub impute_median: bool,
    /// Centre each feature on its training mean and divide by its training standard deviation
    /// (population form); a constant training column (up to rounding) gets scale
    /// `max(1, largest |value|)`, so it maps to 0 (about 0 for rounding residues). Encoded
    /// categorical columns are not standardised.
    pub standardize: bool,
    /// Encode the categorical columns (see [`Encoder`]); required when the data have some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categorical: Option<CategoryOptions>,
}

impl Preprocess {
    /// True when no step is requested.
    pub fn is_identity(&self) -> bool {
        !self.impute_median && !self.standardize && self.categorical.is_none()
    }

    /// The preprocessing of `data`: median imputation when a numeric feature is missing,
    /// standardisation as asked, and the categorical encoding `categorical` when the data have
    /// categorical columns (`None` otherwise, so that numeric data keep their exact path).
    pub fn for_data(data: &Dataset, standardize: bool, categorical: CategoryOptions) -> Preprocess {
        Preprocess { impute_median: data.has_missing(), standardize, categorical: data.has_categorical().then_some(categorical) }
    }

    /// An upper bound on the number of feature columns a family sees after these steps on
    /// `data`: a one-hot encoded column counts its levels and a missing level.
    pub fn encoded_width(&self, data: &Dataset) -> usize {
        match self.categorical {
            Some(options) if options.encoding == super::categorical::Encoding::OneHot => {
                (0..data.n_features()).map(|j| data.levels(j).map_or(1, |levels| levels.len() + 1)).sum()
            }
            _ => data.n_features(),
        }
    }

    /// Checks that the categorical columns of `data`, if any, are encoded.
    ///
    /// # Errors
    /// [`crate::Error::InvalidParameter`] naming the categorical columns.
    pub fn check_encodes(&self, data: &Dataset) -> Result<()> {
        if data.has_categorical() && self.categorical.is_none() {
            return Err(crate::Error::invalid(
                "preprocess",
                "a categorical encoding when the data have categorical columns",
                format!("none for {}", data.categorical_names().join(", ")),
            ));
        }
        Ok(())
    }

    /// Fits the steps on `train`. Medians, means and scales are fitted on the numeric columns;
    /// categorical columns are encoded with the levels of `train`'s rows.
    pub fn fit(&self, train: &View<'_>) -> Transform {
        let p = train.n_features();
        let n = train.len();
        let medians = self.impute_median.then(|| {
            (0..p)
                .map(|j| {
                    let mut col: Vec<f64> = (0..n).map(|i| train.x(i)[j]).filter(|v| !v.is_nan()).collect();
                    median(&mut col)
                })
                .collect::<Vec<f64>>()
        });
        let value = |i: usize, j: usize| {
            let v = train.x(i)[j];
            match (&medians, v.is_nan()) {
                (Some(m), true) => m[j],
                _ => v,
            }
        };
        let (mean, scale) = if self.standardize {
            let mut mean = vec![0.0; p];
            let mut scale = vec![1.0; p];
            for j in 0..p {
                let column: Vec<f64> = (0..n).map(|i| value(i, j)).collect();
                let (m, sd, c) = mean_and_sd(&column);
                mean[j] = m;
                // Relative threshold: a column constant up to rounding must not blow up; its
                // rounding residues (relative to its magnitude c) map to about 0.
                scale[j] = if sd > 1e-12 * m.abs().max(1e-300) && sd > 0.0 { sd } else { c.max(1.0) };
            }
            (Some(mean), Some(scale))
        } else {
            (None, None)
        };
        let transform = Transform { encoder: None, medians, mean, scale };
        match self.categorical.and_then(|options| Encoder::fit(train, options)) {
            None => transform,
            Some(encoder) => Transform {
                medians: transform.medians.map(|m| encoder.expand(&m, 0.0)),
                mean: transform.mean.map(|m| encoder.expand(&m, 0.0)),
                scale: transform.scale.map(|s| encoder.expand(&s, 1.0)),
                encoder: Some(encoder),
            },
        }
    }
}

/// Mean, population standard deviation and largest magnitude `c` of a column. When `c` is
/// outside [1e-150, 1e150] (where squares overflow or underflow: features near ±1e308, or tiny
/// and subnormal ones), mean and deviation are computed on the values divided by `c`, so they
/// stay finite and non-zero for finite, non-constant input (the deviation saturates at
/// `f64::MAX`); otherwise the plain formulas are used unchanged.
fn mean_and_sd(col: &[f64]) -> (f64, f64, f64) {
    let n = col.len().max(1) as f64;
    let c = col.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if c == 0.0 || !c.is_finite() || (1e-150..=1e150).contains(&c) {
        let m = col.iter().sum::<f64>() / n;
        let var = col.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n;
        return (m, var.sqrt(), c);
    }
    let ms = col.iter().map(|v| v / c).sum::<f64>() / n;
    let vs = col.iter().map(|v| (v / c - ms).powi(2)).sum::<f64>() / n;
    (ms * c, (vs.sqrt() * c).min(f64::MAX), c)
}

fn median(col: &mut [f64]) -> f64 {
    if col.is_empty() {
        return 0.0;
    }
    col.sort_by(f64::total_cmp);
    let h = col.len() / 2;
    if col.len() % 2 == 1 {
        return col[h];
    }
    let mid = 0.5 * (col[h - 1] + col[h]);
    // The sum overflows only near ±f64::MAX: halve first.
    if mid.is_finite() { mid } else { 0.5 * col[h - 1] + 0.5 * col[h] }
}

/// A fitted preprocessing: apply it to any rows with the training schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    /// The categorical encoding, applied first; the other vectors are laid out as its output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encoder: Option<Encoder>,
    medians: Option<Vec<f64>>,
    mean: Option<Vec<f64>>,
    scale: Option<Vec<f64>>,
}

impl Transform {
    /// Checks a deserialized transform against the number of features.
    ///
    /// # Errors
    /// [`crate::Error::CorruptModel`] when a vector has another length, a median or mean is not
    /// finite, a scale is not positive and finite, only one of mean and scale is present, or the
    /// categorical encoding is inconsistent.
    pub fn validate(&self, n_features: usize) -> Result<()> {
        if let Some(e) = &self.encoder {
            e.validate(n_features)?;
        }
        let n_outputs = self.n_outputs(n_features);
        let vectors = [&self.medians, &self.mean, &self.scale];
        let lengths_ok = vectors.iter().all(|v| v.as_ref().is_none_or(|v| v.len() == n_outputs));
        let finite = vectors.iter().all(|v| v.iter().flatten().all(|x| x.is_finite()));
        let scales_ok = self.scale.as_ref().is_none_or(|s| s.iter().all(|&x| x > 0.0)) && self.mean.is_some() == self.scale.is_some();
        if !(lengths_ok && finite && scales_ok) {
            return Err(crate::Error::CorruptModel("inconsistent preprocessing in the model".into()));
        }
        Ok(())
    }

    /// True when this transform replaces missing values (by training medians).
    pub fn imputes(&self) -> bool {
        self.medians.is_some()
    }

    /// The input features the transform encodes as categorical.
    pub fn encoded_columns(&self) -> Vec<usize> {
        self.encoder.as_ref().map(Encoder::columns).unwrap_or_default()
    }

    /// The input feature of every output column for `n_features` inputs (each input once
    /// without a one-hot encoding; a one-hot column's index once per output column).
    pub fn output_sources(&self, n_features: usize) -> Vec<usize> {
        self.encoder.as_ref().map_or_else(|| (0..n_features).collect(), Encoder::sources)
    }

    /// Number of features the transform outputs for `n_features` inputs (more than `n_features`
    /// with a one-hot encoding).
    pub fn n_outputs(&self, n_features: usize) -> usize {
        self.encoder.as_ref().map_or(n_features, Encoder::n_outputs)
    }

    /// Transforms one row in place (imputation and standardisation, on a row laid out as the
    /// encoding's output).
    fn apply_row(&self, row: &mut [f64]) {
        for (j, v) in row.iter_mut().enumerate() {
            if let (Some(m), true) = (&self.medians, v.is_nan()) {
                *v = m[j];
            }
            if let (Some(mean), Some(scale)) = (&self.mean, &self.scale) {
                let z = (*v - mean[j]) / scale[j];
                // `v − mean` overflows only for features near ±f64::MAX: divide first.
                *v = if z.is_finite() || !v.is_finite() { z } else { *v / scale[j] - mean[j] / scale[j] };
            }
        }
    }

    /// A new data set holding the view's rows, transformed (target kept).
    ///
    /// # Errors
    /// An empty view; [`crate::Error::CorruptModel`] when the transform was fitted for another
    /// number of features (see [`Transform::validate`]); the encoding's errors
    /// ([`Encoder::apply`]).
    pub fn apply(&self, view: &View<'_>) -> Result<Dataset> {
        let vectors = [&self.medians, &self.mean, &self.scale];
        let n_outputs = self.n_outputs(view.n_features());
        if !vectors.iter().all(|v| v.as_ref().is_none_or(|v| v.len() == n_outputs)) {
            return Err(crate::Error::CorruptModel("inconsistent preprocessing: fitted for another number of features".into()));
        }
        let subset = match &self.encoder {
            Some(e) => e.apply(view)?,
            None => view.data().select_rows(view.rows())?,
        };
        let mut x = subset.x().to_vec();
        let p = subset.n_features().max(1);
        for row in x.chunks_mut(p) {
            self.apply_row(row);
        }
        Ok(subset.with_x(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Target;
    use crate::data::categorical::CategoryOptions;

    #[test]
    fn fitted_on_training_rows_only() {
        let d = Dataset::new_with_missing(
            vec![1.0, 5.0, 3.0, 5.0, f64::NAN, 5.0, 100.0, 5.0],
            vec!["a".into(), "c".into()],
            Target::Real(vec![0.0, 1.0, 2.0, 3.0]),
            "y",
        )
        .unwrap();
        let train = d.view(&[0, 1, 2]);
        let t = Preprocess { impute_median: true, standardize: true, categorical: None }.fit(&train);
        let out = t.apply(&train).unwrap();
        // column a: [1, 3, median 2] → mean 2, sd sqrt(2/3); column c constant → 0, no NaN.
        let sd = (2.0f64 / 3.0).sqrt();
        let expected = [-1.0 / sd, 0.0, 1.0 / sd, 0.0, 0.0, 0.0];
        for (a, b) in out.x().iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        // The validation row's 100 did not move the training mean.
        let val = t.apply(&d.view(&[3])).unwrap();
        assert!((val.x()[0] - 98.0 / sd).abs() < 1e-9);
    }

    #[test]
    fn categorical_columns_are_encoded_first_and_not_standardised() {
        let text = ["x", "y", "x", "new"].map(|t| Some(t.to_string())).to_vec();
        let d = Dataset::new(vec![1.0, 0.0, 3.0, 0.0, 2.0, 0.0, 100.0, 0.0], vec!["a".into(), "c".into()], Target::Real(vec![0.0; 4]), "y")
            .unwrap()
            .with_text_columns(&[(1, text)])
            .unwrap();
        let preprocess = Preprocess::for_data(&d, true, CategoryOptions::default());
        assert!(preprocess.categorical.is_some() && !preprocess.impute_median);
        let t = preprocess.fit(&d.view(&[0, 1, 2]));
        let out = t.apply(&d.all()).unwrap();
        assert_eq!(out.feature_names(), ["a", "c=x", "c=y"]);
        let sd = (2.0f64 / 3.0).sqrt();
        let expected = [-1.0 / sd, 1.0, 0.0, 1.0 / sd, 0.0, 1.0, 0.0, 1.0, 0.0, 98.0 / sd, 0.0, 0.0];
        for (a, b) in out.x().iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        }
        // Numeric data get no categorical step: their path is unchanged.
        let numeric = d.select_columns(&[0]).unwrap();
        assert_eq!(Preprocess::for_data(&numeric, true, CategoryOptions::default()).categorical, None);
    }
}
