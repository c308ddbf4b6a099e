//! Which cells are missing values: the missing-value tokens ([`NaValues`]).
//!
//! A cell is missing when its trimmed text is empty or is one of the tokens. The default tokens
//! are pandas' default NA strings (`read_csv`'s `STR_NA_VALUES`: `#N/A`, `#N/A N/A`, `#NA`,
//! `-1.#IND`, `-1.#QNAN`, `-NaN`, `-nan`, `1.#IND`, `1.#QNAN`, `<NA>`, `N/A`, `NA`, `NULL`, `NaN`,
//! `None`, `n/a`, `nan`, `null`), plus `?` (the UCI files' mark), plus `na` and `nan` in any
//! case (`Na`, `NAN`, …), which agghoo has always read as missing. Matching is exact and
//! case-sensitive otherwise: `Null` or `none` are text. `-` and `.` are not missing by default
//! (as in pandas); a column holding them with numbers is read as categorical, with a warning
//! (see [`MostlyNumeric`](crate::data::MostlyNumeric)).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// pandas' default NA strings (`pandas._libs.parsers.STR_NA_VALUES`, less the empty string,
/// which is always missing) and `?`: the default missing-value tokens, sorted.
pub const DEFAULT_NA_VALUES: [&str; 19] = [
    "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "?", "N/A", "NA", "NULL", "NaN", "None",
    "n/a", "nan", "null",
];

/// The word that stands for [`DEFAULT_NA_VALUES`] in a list of tokens.
pub const DEFAULT_KEYWORD: &str = "default";

/// The missing-value tokens of a reader: an empty cell, the default tokens when asked, and the
/// tokens given. Written as a list of tokens (`--na-values`, `na_values=`), where the word
/// `default` stands for the default tokens: `["default", "-"]` adds `-` to them, `["NULL"]`
/// replaces them, `[]` leaves only empty cells missing.
///
/// ```
/// use agghoo::data::NaValues;
/// let default = NaValues::default();
/// assert!(default.is_missing(" NULL ") && default.is_missing("") && default.is_missing("NAN"));
/// assert!(!default.is_missing("-") && !default.is_missing("Null") && !default.is_missing("1"));
/// let more = NaValues::parse(["default", "-"])?;
/// assert!(more.is_missing("-") && more.is_missing("NULL"));
/// let only = NaValues::parse(["-999"])?;
/// assert!(only.is_missing("-999") && !only.is_missing("NA") && only.is_missing(" "));
/// assert_eq!(more.tokens(), ["default", "-"]);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Vec<String>", try_from = "Vec<String>")]
pub struct NaValues {
    /// The default tokens are missing.
    default: bool,
    /// Other tokens (trimmed, not empty, not default ones when `default` holds).
    extra: BTreeSet<String>,
}

impl Default for NaValues {
    /// The default tokens.
    fn default() -> Self {
        Self { default: true, extra: BTreeSet::new() }
    }
}

impl NaValues {
    /// The tokens of a list (each trimmed; `default` stands for the default tokens; an empty
    /// token is ignored: empty cells are always missing).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a token holding a line break (the list is written on one
    /// line, in reports and model files).
    pub fn parse<S: AsRef<str>>(tokens: impl IntoIterator<Item = S>) -> Result<Self> {
        let mut out = Self { default: false, extra: BTreeSet::new() };
        for token in tokens {
            let t = token.as_ref().trim();
            if t.contains(['\n', '\r']) {
                return Err(Error::invalid("na-values", "tokens without line breaks", format!("{t:?}")));
            }
            match t {
                "" => {}
                DEFAULT_KEYWORD => out.default = true,
                _ => {
                    out.extra.insert(t.to_string());
                }
            }
        }
        if out.default {
            out.extra.retain(|t| !is_default_token(t));
        }
        Ok(out)
    }

    /// True when `cell` (trimmed) is empty or one of the tokens.
    pub fn is_missing(&self, cell: &str) -> bool {
        let t = cell.trim();
        t.is_empty() || (self.default && is_default_token(t)) || (!self.extra.is_empty() && self.extra.contains(t))
    }

    /// True for the default tokens alone.
    pub fn is_default(&self) -> bool {
        self.default && self.extra.is_empty()
    }

    /// The list this set is written as: `default` first when it holds, then the other tokens,
    /// sorted (what [`NaValues::parse`] reads back).
    pub fn tokens(&self) -> Vec<String> {
        self.default.then(|| DEFAULT_KEYWORD.to_string()).into_iter().chain(self.extra.iter().cloned()).collect()
    }
}

/// The length of the longest default token (`nan` included): a longer cell (most numbers
/// written in full) is none of them, whatever its text.
const DEFAULT_MAX_LEN: usize = {
    let (mut longest, mut i) = ("nan".len(), 0);
    while i < DEFAULT_NA_VALUES.len() {
        if DEFAULT_NA_VALUES[i].len() > longest {
            longest = DEFAULT_NA_VALUES[i].len();
        }
        i += 1;
    }
    longest
};

/// One of [`DEFAULT_NA_VALUES`], or `na` / `nan` in any case.
fn is_default_token(t: &str) -> bool {
    t.len() <= DEFAULT_MAX_LEN
        && (t.eq_ignore_ascii_case("na") || t.eq_ignore_ascii_case("nan") || DEFAULT_NA_VALUES.binary_search(&t).is_ok())
}

impl From<NaValues> for Vec<String> {
    fn from(na: NaValues) -> Self {
        na.tokens()
    }
}

impl TryFrom<Vec<String>> for NaValues {
    type Error = Error;
    fn try_from(tokens: Vec<String>) -> Result<Self> {
        NaValues::parse(tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_tokens_are_sorted_and_pandas_ones() {
        assert!(DEFAULT_NA_VALUES.windows(2).all(|w| w[0] < w[1]));
        let na = NaValues::default();
        for t in DEFAULT_NA_VALUES.iter().chain(&["", "  ", "na", "Na", "NAN", "nAn"]) {
            assert!(na.is_missing(t), "{t:?}");
        }
        for t in ["-", ".", "Null", "none", "NONE", "0", "inf", "-inf", "N", "n/A", "#n/a"] {
            assert!(!na.is_missing(t), "{t:?}");
        }
    }

    #[test]
    fn lists_replace_or_extend_the_default_and_round_trip() {
        let na = NaValues::parse(["-", " default ", "NULL", ""]).unwrap();
        assert_eq!(na.tokens(), ["default", "-"]);
        assert!(na.is_missing(" - ") && na.is_missing("None"));
        let only = NaValues::parse(["-", "."]).unwrap();
        assert!(only.is_missing(".") && !only.is_missing("NA") && !only.is_missing("nan"));
        let empty = NaValues::parse(Vec::<String>::new()).unwrap();
        assert!(empty.is_missing(" ") && !empty.is_missing("?"));
        for na in [na, only, empty, NaValues::default()] {
            let json = serde_json::to_string(&na).unwrap();
            assert_eq!(serde_json::from_str::<NaValues>(&json).unwrap(), na, "{json}");
        }
        assert!(NaValues::parse(["a\nb"]).is_err());
    }
}
