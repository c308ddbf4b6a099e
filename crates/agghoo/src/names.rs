//! Choices users write by name — a procedure, a plan, a tie rule, a missing-value policy, … —
//! with their names, one-line help and parsing, in one place. The CLI builds its value parsers
//! (and `--help`'s possible values) from [`Named::CHOICES`]; the Python binding parses with
//! [`Named::parse_name`] and hands the names to the Python package.

use crate::error::{Error, Result};

/// A choice written by name at the edge (CLI values, Python keywords, files).
pub trait Named: Copy + PartialEq + Sized + 'static {
    /// The parameter's name in errors (`method`, `tie`, …), as the user spells it.
    const PARAMETER: &'static str;
    /// Every value with its name and a one-line description, in the order users see them.
    const CHOICES: &'static [(Self, &'static str, &'static str)];
    /// `one of a, b, c`: what an unknown name is told.
    const EXPECTED: &'static str;

    /// The name users write.
    fn name(self) -> &'static str {
        Self::CHOICES.iter().find(|(value, _, _)| *value == self).map_or("", |&(_, name, _)| name)
    }

    /// Every name, in the order users see them.
    fn names() -> Vec<&'static str> {
        Self::CHOICES.iter().map(|&(_, name, _)| name).collect()
    }

    /// The value named `text` (surrounding spaces ignored).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming [`Named::PARAMETER`] and listing every name.
    fn parse_name(text: &str) -> Result<Self> {
        let text = text.trim();
        Self::CHOICES
            .iter()
            .find(|&&(_, name, _)| name == text)
            .map(|&(value, _, _)| value)
            .ok_or_else(|| Error::invalid(Self::PARAMETER, Self::EXPECTED, text))
    }
}

/// Implements [`Named`] for a type from its `value => "name": "help"` list; with `display`, also
/// `FromStr` and `Display` by name.
macro_rules! named {
    ($ty:ty, $parameter:literal, [$value:expr => $name:literal : $help:literal $(, $values:expr => $names:literal : $helps:literal)* $(,)?]) => {
        impl $crate::names::Named for $ty {
            const PARAMETER: &'static str = $parameter;
            const CHOICES: &'static [(Self, &'static str, &'static str)] = &[($value, $name, $help) $(, ($values, $names, $helps))*];
            const EXPECTED: &'static str = concat!("one of ", $name $(, ", ", $names)*);
        }
    };
    (display $ty:ty, $($rest:tt)*) => {
        named!($ty, $($rest)*);
        impl std::str::FromStr for $ty {
            type Err = $crate::Error;
            fn from_str(text: &str) -> $crate::Result<Self> {
                <Self as $crate::names::Named>::parse_name(text)
            }
        }
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str($crate::names::Named::name(*self))
            }
        }
    };
}
pub(crate) use named;

/// Every list of names, keyed by the (Python) parameter that takes them: what the Python package
/// checks its keyword arguments against.
pub fn all() -> Vec<(&'static str, Vec<&'static str>)> {
    use crate::data::{MissingCategory, MissingPolicy, TaskHint};
    use crate::resample::PlanKind;
    use crate::select::{Aggregation, Method, TieRule};
    use crate::treecv::{LearnerKind, Order};
    vec![
        ("method", Method::names()),
        ("plan", PlanKind::names()),
        ("tie", TieRule::names()),
        ("aggregation", <Option<Aggregation>>::names()),
        ("task", TaskHint::names()),
        ("missing", MissingPolicy::names()),
        ("missing_category", MissingCategory::names()),
        ("learner", LearnerKind::names()),
        ("treecv_method", crate::treecv::Method::names()),
        ("order", Order::names()),
        ("loss", crate::Loss::FORMS.to_vec()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::{Aggregation, Method, TieRule};

    #[test]
    fn names_round_trip_and_unknown_names_list_them() {
        for &(m, name, _) in Method::CHOICES {
            assert_eq!(name.parse::<Method>().unwrap(), m);
            assert_eq!(m.to_string(), name);
        }
        assert_eq!(" last ".parse::<TieRule>().unwrap(), TieRule::Last);
        assert_eq!(<Option<Aggregation>>::parse_name("auto").unwrap(), None);
        let e = "bogus".parse::<Method>().unwrap_err();
        assert_eq!(e.to_string(), "parameter `method` must be one of agghoo, majhoo, cv, holdout, acv, ekcv, subagging, got bogus");
    }

    #[test]
    fn every_list_is_non_empty_and_unique() {
        let lists = all();
        let mut keys: Vec<&str> = lists.iter().map(|(key, _)| *key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), lists.len());
        for (parameter, names) in lists {
            let mut sorted = names.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert!(!names.is_empty() && sorted.len() == names.len(), "{parameter}: {names:?}");
        }
    }
}
