//! Losses `γ(f(x), y)` as small types (`docs/PROCEDURES.md` § Notation), and the empirical risk `R_B(f)`.

use serde::{Deserialize, Serialize};

use crate::data::{Task, View};
use crate::error::{Error, Result};
use crate::predictions::Predictions;

/// A loss function. Classification losses other than 0–1 need soft outputs: hinge and logistic
/// use the binary decision score with `y ∈ {−1, +1}` (class 1 ↦ +1); log-loss uses probabilities.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "loss", rename_all = "snake_case")]
pub enum Loss {
    /// `1{f(x) ≠ y}`.
    ZeroOne,
    /// `(f(x) − y)²`.
    Squared,
    /// `|f(x) − y|`.
    Absolute,
    /// `max(0, |f(x) − y| − ε)`.
    EpsilonInsensitive {
        /// ε ≥ 0.
        epsilon: f64,
    },
    /// `max(0, 1 − y·s(x))` on the decision score.
    Hinge,
    /// `log(1 + exp(−y·s(x)))` on the decision score.
    Logistic,
    /// `−log p̂_y(x)`, probabilities clipped to `[1e-15, 1]`.
    LogLoss,
    /// Quantile loss `max(q (y − f), (q − 1)(y − f))`.
    Pinball {
        /// The quantile q ∈ (0, 1).
        q: f64,
    },
}

impl Loss {
    /// The forms [`Loss::parse`] reads (`E` and `Q` stand for numbers).
    pub const FORMS: [&'static str; 8] = ["01", "squared", "absolute", "epsilon:E", "hinge", "logistic", "logloss", "pinball:Q"];
    const EXPECTED: &'static str = "one of 01, squared, absolute, epsilon:E, hinge, logistic, logloss, pinball:Q";

    /// The default loss of a task: 0–1 for classification, squared for regression.
    pub fn default_for(task: Task) -> Loss {
        match task {
            Task::Classification => Loss::ZeroOne,
            Task::Regression => Loss::Squared,
        }
    }

    /// Parses `01`, `zero-one`, `squared`, `absolute`, `epsilon:0.25`, `hinge`, `logistic`,
    /// `logloss`, `pinball:0.9`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown name or a parameter out of range.
    pub fn parse(text: &str) -> Result<Loss> {
        let (name, arg) = match text.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        let number = |what: &'static str| -> Result<f64> {
            arg.and_then(|a| a.parse::<f64>().ok()).ok_or_else(|| Error::invalid(what, "a number after `:`", text))
        };
        let loss = match name.to_ascii_lowercase().as_str() {
            "01" | "0-1" | "zero-one" | "zero_one" | "misclassification" => Loss::ZeroOne,
            "squared" | "mse" | "l2" => Loss::Squared,
            "absolute" | "mae" | "l1" => Loss::Absolute,
            "epsilon" | "epsilon-insensitive" => Loss::EpsilonInsensitive { epsilon: number("epsilon")? },
            "hinge" => Loss::Hinge,
            "logistic" => Loss::Logistic,
            "logloss" | "log-loss" | "cross-entropy" => Loss::LogLoss,
            "pinball" | "quantile" => Loss::Pinball { q: number("q")? },
            _ => return Err(Error::invalid("loss", Self::EXPECTED, text)),
        };
        loss.validate()?;
        Ok(loss)
    }

    fn validate(&self) -> Result<()> {
        match *self {
            Loss::EpsilonInsensitive { epsilon } if !(epsilon >= 0.0 && epsilon.is_finite()) => {
                Err(Error::invalid("epsilon", "finite and ≥ 0", epsilon))
            }
            Loss::Pinball { q } if !(q > 0.0 && q < 1.0) => Err(Error::invalid("q", "in (0, 1)", q)),
            _ => Ok(()),
        }
    }

    /// A short name for tables and JSON.
    pub fn name(&self) -> String {
        match self {
            Loss::ZeroOne => "01".into(),
            Loss::Squared => "squared".into(),
            Loss::Absolute => "absolute".into(),
            Loss::EpsilonInsensitive { epsilon } => format!("epsilon:{epsilon}"),
            Loss::Hinge => "hinge".into(),
            Loss::Logistic => "logistic".into(),
            Loss::LogLoss => "logloss".into(),
            Loss::Pinball { q } => format!("pinball:{q}"),
        }
    }

    /// The task this loss applies to.
    pub fn task(&self) -> Task {
        match self {
            Loss::ZeroOne | Loss::Hinge | Loss::Logistic | Loss::LogLoss => Task::Classification,
            _ => Task::Regression,
        }
    }

    /// What the loss reads besides the predicted labels or values: `"probabilities"` (log-loss),
    /// `"decision_scores"` (hinge, logistic), named as the families' capabilities are; `None`
    /// when the predictions alone suffice.
    pub fn needs(&self) -> Option<&'static str> {
        match self {
            Loss::LogLoss => Some("probabilities"),
            Loss::Hinge | Loss::Logistic => Some("decision_scores"),
            _ => None,
        }
    }

    /// Checks that the loss fits a task.
    ///
    /// # Errors
    /// [`Error::TaskMismatch`].
    pub fn check_task(&self, task: Task) -> Result<()> {
        if self.task() != task {
            return Err(Error::TaskMismatch(format!("loss `{}` is for {:?}, the data are {:?}", self.name(), self.task(), task)));
        }
        Ok(())
    }

    /// Checks the loss can be computed for a target of `n_classes` classes (0 for a real target):
    /// the hinge and logistic losses need two.
    ///
    /// # Errors
    /// [`Error::LossUnavailable`].
    pub fn check_classes(&self, n_classes: usize) -> Result<()> {
        if matches!(self, Loss::Hinge | Loss::Logistic) && n_classes != 2 {
            return Err(Error::LossUnavailable {
                loss: self.name(),
                reason: format!("needs a binary problem, the data have {n_classes} classes"),
            });
        }
        Ok(())
    }

    /// Per-row losses of `predictions` against the targets of `truth` (same rows, same order).
    ///
    /// # Errors
    /// [`Error::TaskMismatch`] for a regression loss on class predictions or the reverse;
    /// [`Error::LossUnavailable`] when the predictions lack the scores or probabilities needed.
    pub fn per_row(&self, predictions: &Predictions, truth: &View<'_>) -> Result<Vec<f64>> {
        if predictions.len() != truth.len() {
            return Err(Error::invalid("predictions", "one per validation row", predictions.len()));
        }
        let unavailable = |reason: &str| Error::LossUnavailable { loss: self.name(), reason: reason.into() };
        match (self, predictions) {
            (Loss::ZeroOne, Predictions::Classes { labels, .. }) => {
                Ok(labels.iter().enumerate().map(|(i, &l)| f64::from(l != truth.class(i))).collect())
            }
            (Loss::Hinge | Loss::Logistic, Predictions::Classes { decision, n_classes, .. }) => {
                if *n_classes != 2 {
                    return Err(unavailable("needs a binary problem"));
                }
                let s = decision.as_ref().ok_or_else(|| unavailable("the learner gives no decision scores"))?;
                Ok(s.iter()
                    .enumerate()
                    .map(|(i, &f)| {
                        let y = if truth.class(i) == 1 { 1.0 } else { -1.0 };
                        let margin = y * f;
                        if *self == Loss::Hinge {
                            (1.0 - margin).max(0.0)
                        } else if margin > 0.0 {
                            (-margin).exp().ln_1p()
                        } else {
                            -margin + margin.exp().ln_1p()
                        }
                    })
                    .collect())
            }
            (Loss::LogLoss, Predictions::Classes { proba, n_classes, .. }) => {
                let p = proba.as_ref().ok_or_else(|| unavailable("the learner gives no class probabilities"))?;
                Ok((0..truth.len()).map(|i| -p[i * n_classes + truth.class(i) as usize].clamp(1e-15, 1.0).ln()).collect())
            }
            (_, Predictions::Real(f)) if self.task() == Task::Regression => {
                Ok(f.iter().enumerate().map(|(i, &fi)| self.regression(fi, truth.y(i))).collect())
            }
            _ => Err(Error::TaskMismatch(format!("loss `{}` does not apply to these predictions", self.name()))),
        }
    }

    /// `γ(f, y)` for a regression loss.
    pub fn regression(&self, f: f64, y: f64) -> f64 {
        let r = y - f;
        match *self {
            Loss::Squared => r * r,
            Loss::Absolute => r.abs(),
            Loss::EpsilonInsensitive { epsilon } => (r.abs() - epsilon).max(0.0),
            Loss::Pinball { q } => (q * r).max((q - 1.0) * r),
            _ => f64::NAN,
        }
    }

    /// Empirical risk `R_B(f) = (1/|B|) Σ γ(f(x_i), y_i)` on the rows of `truth`; on weighted
    /// data ([`Dataset::with_weights`](crate::data::Dataset::with_weights)) the weighted mean
    /// `Σ wᵢ γ(f(x_i), y_i) / Σ wᵢ`.
    ///
    /// # Errors
    /// As [`Loss::per_row`]; [`Error::InvalidParameter`] when every weight of `truth`'s rows is 0.
    pub fn risk(&self, predictions: &Predictions, truth: &View<'_>) -> Result<f64> {
        let l = self.per_row(predictions, truth)?;
        match truth.weights() {
            None => Ok(l.iter().sum::<f64>() / l.len().max(1) as f64),
            Some(w) => weighted_mean(&l, &w),
        }
    }
}

/// `Σ wᵢ xᵢ / Σ wᵢ`: a risk on weighted rows.
///
/// # Errors
/// [`Error::InvalidParameter`] when the weights sum to 0 (every row of a validation set weighs 0).
pub(crate) fn weighted_mean(x: &[f64], w: &[f64]) -> Result<f64> {
    let total: f64 = w.iter().sum();
    if total <= 0.0 {
        return Err(Error::invalid("sample_weight", "a positive weight among the rows a risk is computed on", "every weight is 0"));
    }
    Ok(x.iter().zip(w).map(|(x, w)| w * x).sum::<f64>() / total)
}

impl std::str::FromStr for Loss {
    type Err = Error;
    fn from_str(text: &str) -> Result<Loss> {
        Loss::parse(text)
    }
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Dataset, Target};

    fn classes() -> Dataset {
        Dataset::new(vec![0.0; 4], vec!["x".into()], Target::Classes { labels: vec![0, 1, 1, 0], names: vec!["a".into(), "b".into()] }, "y")
            .unwrap()
    }

    #[test]
    fn zero_one_and_hinge_by_hand() {
        let d = classes();
        let p = Predictions::Classes {
            labels: vec![0, 0, 1, 1],
            n_classes: 2,
            proba: Some(vec![0.9, 0.1, 0.6, 0.4, 0.2, 0.8, 0.3, 0.7]),
            decision: Some(vec![-2.0, -0.5, 0.5, 1.5]),
        };
        assert_eq!(Loss::ZeroOne.per_row(&p, &d.all()).unwrap(), [0.0, 1.0, 0.0, 1.0]);
        assert_eq!(Loss::Hinge.per_row(&p, &d.all()).unwrap(), [0.0, 1.5, 0.5, 2.5]);
        let ll = Loss::LogLoss.per_row(&p, &d.all()).unwrap();
        assert!((ll[1] + 0.4f64.ln()).abs() < 1e-12);
        let lg = Loss::Logistic.per_row(&p, &d.all()).unwrap();
        assert!((lg[0] - (1.0 + (-2.0f64).exp()).ln()).abs() < 1e-12);
    }

    #[test]
    fn regression_losses_by_hand() {
        assert_eq!(Loss::Squared.regression(1.0, 3.0), 4.0);
        assert_eq!(Loss::Absolute.regression(1.0, 3.0), 2.0);
        assert_eq!(Loss::EpsilonInsensitive { epsilon: 0.5 }.regression(1.0, 3.0), 1.5);
        assert!((Loss::Pinball { q: 0.9 }.regression(1.0, 3.0) - 1.8).abs() < 1e-12);
        assert!((Loss::Pinball { q: 0.9 }.regression(3.0, 1.0) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn missing_scores_and_wrong_task_are_errors() {
        let d = classes();
        let p = Predictions::classes(vec![0, 1, 1, 0], 2);
        assert!(matches!(Loss::LogLoss.per_row(&p, &d.all()), Err(Error::LossUnavailable { .. })));
        assert!(matches!(Loss::Squared.per_row(&p, &d.all()), Err(Error::TaskMismatch(_))));
        assert!(Loss::parse("pinball:2").is_err());
        assert_eq!(Loss::parse("epsilon:0.25").unwrap(), Loss::EpsilonInsensitive { epsilon: 0.25 });
    }

    #[test]
    fn needs_names_what_bare_predictions_lack() {
        let d = classes();
        let bare = Predictions::classes(vec![0, 1, 1, 0], 2);
        for form in Loss::FORMS {
            let loss: Loss = form.replace(['E', 'Q'], "0.5").parse().unwrap();
            if loss.task() == Task::Classification {
                assert_eq!(loss.per_row(&bare, &d.all()).is_err(), loss.needs().is_some(), "{loss}");
            } else {
                assert_eq!(loss.needs(), None, "{loss}");
            }
        }
    }

    #[test]
    fn the_forms_are_what_parse_reads_and_lists() {
        assert_eq!(Loss::EXPECTED, format!("one of {}", Loss::FORMS.join(", ")));
        for form in Loss::FORMS {
            let loss: Loss = form.replace(['E', 'Q'], "0.5").parse().unwrap();
            assert_eq!(loss.to_string().parse::<Loss>().unwrap(), loss);
        }
    }
}
