//! Argmin over a risk curve with an explicit tie rule, and the one-standard-error rule.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::names::named;

/// Which minimiser wins when several grid points have the same risk.
///
/// With the 0–1 loss the hold-out curve is step-like and ties are frequent; the rule moves
/// results by as much as the Agghoo-vs-CV gap, so it is explicit. Grid order is ascending value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// The first minimiser in grid order (default).
    #[default]
    First,
    /// The last minimiser in grid order.
    Last,
}

named!(display TieRule, "tie", [
    TieRule::First => "first": "First minimiser in grid order",
    TieRule::Last => "last": "Last minimiser in grid order",
]);

/// Risks within this relative distance of the minimum are tied. A CV curve is a size-weighted
/// mean of per-split risks, which carries a rounding error of a few ulps per split: two grid
/// points with the same total of validation errors under the 0–1 loss can differ in the last
/// bits and must still tie. 1e-10 is far above that rounding (V · 2⁻⁵² ≈ 2e-13 even for
/// V = 1000 splits) and far below any real difference (one error among 10⁹ validation rows).
pub const TIE_RELATIVE_TOLERANCE: f64 = 1e-10;

/// The smallest of `risks` and how far above it a risk still ties with it
/// ([`TIE_RELATIVE_TOLERANCE`] of its magnitude): the one tie rule of [`argmin`] and the
/// one-standard-error band.
fn minimum_and_tie_slack(risks: &[f64]) -> (f64, f64) {
    let min = risks.iter().copied().fold(f64::INFINITY, f64::min);
    (min, TIE_RELATIVE_TOLERANCE * min.abs())
}

/// `argmin_m risks[m]` with ties broken by `tie`; risks within [`TIE_RELATIVE_TOLERANCE`] of the
/// minimum (relative) are ties.
///
/// ```
/// use agghoo::select::{argmin, TieRule};
/// assert_eq!(argmin(&[0.3, 0.1, 0.2, 0.1], TieRule::First)?, 1);
/// assert_eq!(argmin(&[0.3, 0.1, 0.2, 0.1], TieRule::Last)?, 3);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::NonFiniteRisk`] for a NaN risk (never selected silently); [`Error::InvalidParameter`] for an empty curve.
pub fn argmin(risks: &[f64], tie: TieRule) -> Result<usize> {
    if risks.is_empty() {
        return Err(Error::invalid("risks", "a non-empty risk curve", "an empty curve"));
    }
    if let Some(m) = risks.iter().position(|r| r.is_nan()) {
        return Err(Error::NonFiniteRisk(format!("risk of grid point {m} is NaN")));
    }
    let (min, slack) = minimum_and_tie_slack(risks);
    let tied = |r: &f64| *r <= min + slack;
    let found = match tie {
        TieRule::First => risks.iter().position(tied),
        TieRule::Last => risks.iter().rposition(tied),
    };
    found.ok_or_else(|| Error::Internal("no minimum".into()))
}

/// The one-standard-error rule: the simplest grid point whose mean risk is at most
/// `mean[m̂] + se[m̂]`, where `m̂` is the argmin of `mean`. "Simplest" is the largest index when
/// `larger_is_simpler` (k, λ, α), else the smallest. The band is compared with the same relative
/// tolerance as [`argmin`]'s ties (see [`one_standard_error_band`]).
///
/// # Errors
/// As [`argmin`].
pub fn one_standard_error(mean: &[f64], se: &[f64], tie: TieRule, larger_is_simpler: bool) -> Result<usize> {
    let (best, within) = one_standard_error_band(mean, se, tie)?;
    let ok = |m: &usize| within(*m);
    let pick = if larger_is_simpler { (0..mean.len()).rev().find(ok) } else { (0..mean.len()).find(ok) };
    Ok(pick.unwrap_or(best))
}

/// The argmin `m̂` of `mean` (ties by `tie`) and the test "grid point `m` is within one standard
/// error of it": `mean[m] ≤ mean[m̂] + se[m̂]`, up to [`TIE_RELATIVE_TOLERANCE`] of the minimum —
/// so every point [`argmin`] counts as tied with the minimum is in the band even when `se` is 0.
///
/// # Errors
/// As [`argmin`].
pub fn one_standard_error_band<'a>(mean: &'a [f64], se: &[f64], tie: TieRule) -> Result<(usize, impl Fn(usize) -> bool + 'a)> {
    let best = argmin(mean, tie)?;
    let threshold = mean[best] + se[best] + minimum_and_tie_slack(mean).1;
    Ok((best, move |m: usize| mean[m] <= threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_and_empty_are_errors() {
        assert!(argmin(&[], TieRule::First).is_err());
        assert!(argmin(&[0.1, f64::NAN], TieRule::First).is_err());
    }

    #[test]
    fn one_se_picks_simplest_within_band() {
        let mean = [0.30, 0.20, 0.22, 0.24, 0.40];
        let se = [0.01, 0.03, 0.01, 0.01, 0.01];
        assert_eq!(one_standard_error(&mean, &se, TieRule::First, true).unwrap(), 2); // 0.22 ≤ 0.23 < 0.24
        assert_eq!(one_standard_error(&mean, &se, TieRule::First, false).unwrap(), 1);
    }

    #[test]
    fn one_se_band_keeps_every_point_argmin_calls_tied() {
        // With zero standard errors the band is the tie set of `argmin`: index 0 (the first tied
        // minimiser, 5e-11 above the minimum) and index 2 (8e-11 above it) tie with index 1.
        let mean = [1.0 + 5e-11, 1.0, 1.0 + 8e-11, 1.0 + 1e-6];
        let se = [0.0; 4];
        assert_eq!(argmin(&mean, TieRule::First).unwrap(), 0);
        assert_eq!(argmin(&mean, TieRule::Last).unwrap(), 2);
        assert_eq!(one_standard_error(&mean, &se, TieRule::First, true).unwrap(), 2);
        assert_eq!(one_standard_error(&mean, &se, TieRule::Last, false).unwrap(), 0);
        let (best, within) = one_standard_error_band(&mean, &se, TieRule::First).unwrap();
        assert_eq!(best, 0);
        assert_eq!((0..4).map(&within).collect::<Vec<_>>(), [true, true, true, false]);
    }
}
