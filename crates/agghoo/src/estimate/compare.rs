//! Paired comparison of two procedures evaluated on identical splits.
//!
//! With `d_j = R_j(a) − R_j(b)` the difference of test risks on outer split j (J splits):
//!
//! - **corrected resampled t-test** (Nadeau & Bengio 2003): the splits share training rows, so
//!   the naive variance `s²/J` of `d̄` is too small; the corrected statistic is
//!   `t = d̄ / √((1/J + n_test/n_train) · s²)`, `s²` the sample variance of the `d_j`, compared with
//!   Student's t with J − 1 degrees of freedom. `n_test`, `n_train` are the mean test and
//!   training sizes (for V-fold, `n_test/n_train = 1/(V − 1)`).
//! - **5×2cv paired t-test** (Dietterich 1998): for 5 repetitions i of 2-fold CV with differences
//!   `p_i^(1)`, `p_i^(2)`, `p̄_i` their mean and `s_i² = (p_i^(1) − p̄_i)² + (p_i^(2) − p̄_i)²`,
//!   `t = p_1^(1) / √((1/5) Σ_i s_i²)` with 5 degrees of freedom. It applies when the outer splits
//!   are `RepeatedVFold { n_folds: 2, n_repeats: 5 }` (ten splits, pairs of complementary halves);
//!   [`compare_paired`] detects that layout.
//!
//! Both tests are two-sided. The Student t CDF is computed here (regularised incomplete beta
//! function by Lentz's continued fraction, log-gamma by Lanczos' approximation) rather than
//! adding a statistics dependency for one function; it is checked against closed forms (1 and 2
//! degrees of freedom) and tabulated quantiles.
//!
//! When every difference is equal the variance is 0 and the statistic is undefined: it is then
//! `None`, with p = 1 when the differences are 0 and p = 0 otherwise (never a NaN).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::resample::Splits;
use crate::select::summarize;

/// The result of a paired t-test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// The test's numerator: `d̄` (corrected t-test) or `p_1^(1)` (5×2cv).
    pub numerator: f64,
    /// The test's denominator (the standard error it uses).
    pub standard_error: f64,
    /// `numerator / standard_error`; `None` when the standard error is 0.
    pub statistic: Option<f64>,
    /// Degrees of freedom of the reference t distribution.
    pub degrees_of_freedom: f64,
    /// Two-sided p-value.
    pub p_value: f64,
}

impl TTest {
    fn new(numerator: f64, standard_error: f64, degrees_of_freedom: f64) -> Self {
        let (statistic, p_value) = if standard_error > 0.0 {
            let t = numerator / standard_error;
            (Some(t), 2.0 * student_t_cdf(-t.abs(), degrees_of_freedom))
        } else {
            (None, if numerator == 0.0 { 1.0 } else { 0.0 })
        };
        Self { numerator, standard_error, statistic, degrees_of_freedom, p_value }
    }
}

/// Corrected resampled t-test of the differences `d_j` (module docs).
///
/// # Errors
/// [`Error::InvalidParameter`] with fewer than two differences, a non-finite difference, or
/// non-positive sizes.
pub fn corrected_resampled_t_test(differences: &[f64], n_train: f64, n_test: f64) -> Result<TTest> {
    if differences.len() < 2 {
        return Err(Error::invalid("splits", "at least two for a paired t-test", differences.len()));
    }
    if let Some(d) = differences.iter().find(|d| !d.is_finite()) {
        return Err(Error::invalid("differences", "finite", d));
    }
    if !(n_train > 0.0 && n_test > 0.0) {
        return Err(Error::invalid("sizes", "positive training and test sizes", format!("{n_train} / {n_test}")));
    }
    let j = differences.len() as f64;
    let (mean, _) = summarize(differences, None);
    let variance = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (j - 1.0);
    Ok(TTest::new(mean, ((1.0 / j + n_test / n_train) * variance).sqrt(), j - 1.0))
}

/// Dietterich's 5×2cv paired t-test; `differences[i]` are the two folds of repetition i.
///
/// # Errors
/// [`Error::InvalidParameter`] for a non-finite difference.
pub fn five_by_two_cv_t_test(differences: &[[f64; 2]; 5]) -> Result<TTest> {
    if let Some(d) = differences.iter().flatten().find(|d| !d.is_finite()) {
        return Err(Error::invalid("differences", "finite", d));
    }
    let s2: f64 = differences
        .iter()
        .map(|[a, b]| {
            let m = (a + b) / 2.0;
            (a - m).powi(2) + (b - m).powi(2)
        })
        .sum();
    Ok(TTest::new(differences[0][0], (s2 / 5.0).sqrt(), 5.0))
}

/// The paired comparison of procedures `a` and `b` on the same outer splits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedComparison {
    /// Label of the first procedure.
    pub a: String,
    /// Label of the second procedure.
    pub b: String,
    /// `d_j = R_j(a) − R_j(b)` per outer split.
    pub differences: Vec<f64>,
    /// `d̄`: mean difference (negative when `a` has the lower risk).
    pub mean_difference: f64,
    /// Naive standard error `sd(d)/√J` (ignores the overlap of training sets).
    pub naive_standard_error: Option<f64>,
    /// Nadeau–Bengio corrected resampled t-test.
    pub corrected_t_test: TTest,
    /// Dietterich's 5×2cv t-test, when the outer splits are 5 × 2-fold.
    pub five_by_two_cv: Option<TTest>,
}

/// Compares two procedures' per-split test risks on `outer` (the splits they were evaluated on).
///
/// # Errors
/// [`Error::InvalidParameter`] when the risk vectors do not have one value per split; as
/// [`corrected_resampled_t_test`].
pub fn compare_paired(a: &str, a_risks: &[f64], b: &str, b_risks: &[f64], outer: &Splits) -> Result<PairedComparison> {
    if a_risks.len() != outer.len() || b_risks.len() != outer.len() {
        return Err(Error::invalid(
            "risks",
            "one per outer split",
            format!("{} and {} for {} splits", a_risks.len(), b_risks.len(), outer.len()),
        ));
    }
    let differences: Vec<f64> = a_risks.iter().zip(b_risks).map(|(x, y)| x - y).collect();
    let j = outer.len() as f64;
    let n_train = outer.iter().map(|s| s.train().len() as f64).sum::<f64>() / j;
    let n_test = outer.iter().map(|s| s.validation().len() as f64).sum::<f64>() / j;
    let (mean_difference, naive_standard_error) = summarize(&differences, None);
    let five_by_two = if is_five_by_two(outer) {
        let pairs: [[f64; 2]; 5] = std::array::from_fn(|i| [differences[2 * i], differences[2 * i + 1]]);
        Some(five_by_two_cv_t_test(&pairs)?)
    } else {
        None
    };
    Ok(PairedComparison {
        a: a.into(),
        b: b.into(),
        corrected_t_test: corrected_resampled_t_test(&differences, n_train, n_test)?,
        differences,
        mean_difference,
        naive_standard_error,
        five_by_two_cv: five_by_two,
    })
}

/// Ten splits where splits 2i and 2i+1 validate on complementary halves of the rows.
fn is_five_by_two(outer: &Splits) -> bool {
    let n = outer.n_rows();
    outer.len() == 10
        && (0..5).all(|i| {
            let (a, b) = (outer.as_slice()[2 * i].validation(), outer.as_slice()[2 * i + 1].validation());
            let mut hits = vec![0u8; n];
            a.iter().chain(b).for_each(|&r| hits[r] += 1);
            hits.iter().all(|&h| h == 1)
        })
}

/// Student's t cumulative distribution function `P(T ≤ t)` with `df > 0` degrees of freedom.
///
/// `P(|T| > |t|) = I_{df/(df+t²)}(df/2, 1/2)` with `I` the regularised incomplete beta function.
///
/// ```
/// use agghoo::estimate::student_t_cdf;
/// // One degree of freedom is the Cauchy distribution: F(t) = 1/2 + atan(t)/π.
/// assert!((student_t_cdf(1.0, 1.0) - 0.75).abs() < 1e-14);
/// // The tabulated two-sided 5 % quantile for 10 degrees of freedom.
/// assert!((student_t_cdf(2.228138851986274, 10.0) - 0.975).abs() < 1e-12);
/// ```
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let x = df / (df + t * t);
    let tail = 0.5 * regularized_incomplete_beta(df / 2.0, 0.5, x);
    if t > 0.0 { 1.0 - tail } else { tail }
}

/// The regularised incomplete beta function `I_x(a, b)` for `a, b > 0`, `x ∈ [0, 1]`
/// (continued fraction by the modified Lentz method, Numerical Recipes § 6.4).
pub fn regularized_incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if !(a > 0.0 && b > 0.0) || x.is_nan() {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let log_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    // The fraction converges fast for x < (a + 1)/(a + b + 2); use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0) {
        log_front.exp() * beta_continued_fraction(a, b, x) / a
    } else {
        1.0 - log_front.exp() * beta_continued_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    // One Lentz update of (c, d) by the partial numerator `aa`; returns the factor for h.
    let step = |aa: f64, c: &mut f64, d: &mut f64| {
        *d = 1.0 + aa * *d;
        if d.abs() < TINY {
            *d = TINY;
        }
        *c = 1.0 + aa / *c;
        if c.abs() < TINY {
            *c = TINY;
        }
        *d = 1.0 / *d;
        *d * *c
    };
    for m in 1..=500 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)), &mut c, &mut d);
        let delta = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &mut c, &mut d);
        h *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    h
}

/// `ln Γ(x)` for `x > 0` (Lanczos, g = 7, nine coefficients; relative error ≈ 1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + G + 0.5;
    let series = COEF.iter().enumerate().skip(1).fold(COEF[0], |s, (i, c)| s + c / (x + i as f64));
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + series.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_gamma_known_values() {
        assert!((ln_gamma(1.0)).abs() < 1e-14);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-14);
        assert!((ln_gamma(100.5) - 361.43554046777757).abs() < 1e-10); // scipy.special.gammaln
    }

    #[test]
    fn t_cdf_closed_forms() {
        for t in [-30.0, -3.0, -1.0, -0.2, 0.0, 0.7, 2.5, 40.0] {
            let cauchy = 0.5 + f64::atan(t) / std::f64::consts::PI;
            assert!((student_t_cdf(t, 1.0) - cauchy).abs() < 1e-13, "df 1, t {t}");
            let two = 0.5 + t / (2.0 * (2.0 + t * t).sqrt());
            assert!((student_t_cdf(t, 2.0) - two).abs() < 1e-13, "df 2, t {t}");
        }
    }

    #[test]
    fn t_cdf_against_scipy() {
        // scipy.stats.t.cdf / t.ppf (SciPy 1.17.1, bench/peers/estimate_reference.py), tolerance 1e-12:
        // both sides are accurate to a few ulps of these magnitudes.
        let cases = [
            (2.5705818356363146, 5.0, 0.975),
            (2.262157162798205, 9.0, 0.975),
            (2.228138851986274, 10.0, 0.975),
            (-1.5, 7.3, 0.08778154640154305),
            (0.3, 30.0, 0.6168769473578236),
            (-4.0, 3.0, 0.014004228005073076),
            (1.0, 200.0, 0.8407405760451266),
        ];
        for (t, df, want) in cases {
            assert!((student_t_cdf(t, df) - want).abs() < 1e-12, "t {t} df {df}: {} vs {want}", student_t_cdf(t, df));
        }
    }

    #[test]
    fn corrected_t_test_by_hand() {
        // d = 1, 2, 3: mean 2, s² = 1; J = 3; n_test/n_train = 1/2 → se = √(1/3 + 1/2).
        let t = corrected_resampled_t_test(&[1.0, 2.0, 3.0], 20.0, 10.0).unwrap();
        let se = (1.0f64 / 3.0 + 0.5).sqrt();
        assert!((t.standard_error - se).abs() < 1e-15);
        assert!((t.statistic.unwrap() - 2.0 / se).abs() < 1e-14);
        assert_eq!(t.degrees_of_freedom, 2.0);
        assert!((t.p_value - 2.0 * student_t_cdf(-2.0 / se, 2.0)).abs() < 1e-15);
        let zero = corrected_resampled_t_test(&[0.5, 0.5], 20.0, 10.0).unwrap();
        assert_eq!((zero.statistic, zero.p_value), (None, 0.0));
        assert!(corrected_resampled_t_test(&[1.0], 20.0, 10.0).is_err());
    }

    #[test]
    fn five_by_two_by_hand() {
        let d = [[0.1, 0.3], [0.0, 0.0], [0.2, 0.2], [0.1, -0.1], [0.0, 0.2]];
        // s_i² = 0.02, 0, 0, 0.02, 0.02 → Σ/5 = 0.012
        let t = five_by_two_cv_t_test(&d).unwrap();
        assert!((t.standard_error - 0.012f64.sqrt()).abs() < 1e-15);
        assert!((t.statistic.unwrap() - 0.1 / 0.012f64.sqrt()).abs() < 1e-12);
        assert_eq!(t.degrees_of_freedom, 5.0);
    }
}
