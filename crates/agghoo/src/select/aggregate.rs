//! Aggregating the predictions of several members: averaging (Agghoo), majority vote (Majhoo),
//! soft vote, averaged decision scores (Agghoo on a surrogate).

use serde::{Deserialize, Serialize};

use crate::data::Task;
use crate::error::{Error, Result};
use crate::names::named;
use crate::predictions::Predictions;

/// How the members' predictions are combined.
///
/// Serialised by its name (`soft`, `score`; `single` for the one member of hold-out, CV and
/// EKCV); files written before that (`soft_vote`, `score_mean`) still read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregation {
    /// A single member, used as it is (hold-out, CV, EKCV).
    Single,
    /// Regression: `f^ag = (1/V) Σ_j f_j` (Agghoo).
    Mean,
    /// Classification: `argmax_y #{j : f_j(x) = y}` (Majhoo). Ties: among the tied classes, the
    /// one voted for by the member with the lowest validation risk (then the lower member index);
    /// members without a validation risk (ACV) count as equal, so the lower member index decides,
    /// then the smaller class index.
    Vote,
    /// Classification: argmax of the averaged class probabilities (`--soft`); ties → smaller
    /// class index.
    SoftVote,
    /// Binary classification: sign of the averaged decision scores (Agghoo on a surrogate);
    /// a zero average predicts class 0.
    ScoreMean,
}

impl Aggregation {
    /// The task's default: the mean for regression, the vote for classification.
    pub fn default_for(task: Task) -> Self {
        match task {
            Task::Classification => Aggregation::Vote,
            Task::Regression => Aggregation::Mean,
        }
    }
}

/// How a hard vote (Majhoo) breaks a tie between classes with the same number of votes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VoteTies {
    /// The tied class voted for by the member with the lowest validation risk (then the lower
    /// member index): the CLI's rule.
    #[default]
    LowestRisk,
    /// The tied class that comes first in class order, as `numpy.argmax` over the vote
    /// fractions and scikit-learn's `VotingClassifier(voting="hard")`: the Python estimators'
    /// rule, so that `predict` is the argmax of `predict_proba`.
    FirstClass,
}

impl VoteTies {
    /// The CLI's rule (what files written without the field mean).
    pub fn is_default(&self) -> bool {
        *self == VoteTies::LowestRisk
    }
}

named!(display VoteTies, "vote-ties", [
    VoteTies::LowestRisk => "lowest-risk": "The tied class voted for by the member with the lowest validation risk",
    VoteTies::FirstClass => "first-class": "The tied class first in class order (scikit-learn's hard vote)",
]);

// `auto` (`None`) is the task's default; the single-member aggregation is not a user's choice.
named!(Option<Aggregation>, "aggregation", [
    None => "auto": "Mean for regression, vote for classification",
    Some(Aggregation::Mean) => "mean": "Average of real predictions",
    Some(Aggregation::Vote) => "vote": "Majority vote",
    Some(Aggregation::SoftVote) => "soft": "Average of class probabilities",
    Some(Aggregation::ScoreMean) => "score": "Sign of the averaged decision scores (binary)",
]);

impl Aggregation {
    /// The name users write (`mean`, `vote`, `soft`, `score`), `single` for one member.
    pub fn name(self) -> &'static str {
        match self {
            Aggregation::Single => "single",
            other => crate::names::Named::name(Some(other)),
        }
    }
}

impl Serialize for Aggregation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Aggregation {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        use crate::names::Named;
        match String::deserialize(deserializer)?.as_str() {
            "single" => Ok(Aggregation::Single),
            // The spellings of model files and jobs written before one name per choice.
            "soft_vote" => Ok(Aggregation::SoftVote),
            "score_mean" => Ok(Aggregation::ScoreMean),
            name => match <Option<Aggregation>>::parse_name(name) {
                Ok(Some(a)) => Ok(a),
                Ok(None) => Err(serde::de::Error::custom("aggregation `auto` is a choice, not a combination of members")),
                Err(e) => Err(serde::de::Error::custom(e)),
            },
        }
    }
}

/// Combines member predictions (`predictions[j]` for member j, all for the same rows).
/// `member_risks[j]` is member j's validation risk, used by the vote's tie rule.
///
/// ```
/// use agghoo::{Predictions, select::{aggregate, Aggregation}};
/// let member = Predictions::classes(vec![0, 1, 1], 2);
/// let voted = aggregate(&[member.clone(), member.clone(), member.clone()], &[0.1, 0.2, 0.3], Aggregation::Vote)?;
/// assert_eq!(voted.labels(), member.labels()); // Majhoo of identical members = the member
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::TaskMismatch`] when the aggregation does not fit the predictions;
/// [`Error::LossUnavailable`] when soft or score aggregation lacks probabilities or scores;
/// [`Error::InvalidParameter`] when the members' predictions disagree in length, task or class
/// count, or hold a class index out of range.
pub fn aggregate(predictions: &[Predictions], member_risks: &[f64], how: Aggregation) -> Result<Predictions> {
    aggregate_with_ties(predictions, member_risks, how, VoteTies::LowestRisk)
}

/// [`aggregate`] with the vote's tie rule given (it only matters for [`Aggregation::Vote`]).
///
/// ```
/// use agghoo::{Predictions, select::{aggregate_with_ties, Aggregation, VoteTies}};
/// let (a, b) = (Predictions::classes(vec![1], 2), Predictions::classes(vec![0], 2));
/// let members = [a, b];
/// // One vote each: the member with the lower risk (the first) wins, or the first class.
/// assert_eq!(aggregate_with_ties(&members, &[0.1, 0.2], Aggregation::Vote, VoteTies::LowestRisk)?.labels(), Some(&[1][..]));
/// assert_eq!(aggregate_with_ties(&members, &[0.1, 0.2], Aggregation::Vote, VoteTies::FirstClass)?.labels(), Some(&[0][..]));
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// As [`aggregate`].
pub fn aggregate_with_ties(predictions: &[Predictions], member_risks: &[f64], how: Aggregation, ties: VoteTies) -> Result<Predictions> {
    let first = predictions.first().ok_or_else(|| Error::invalid("members", "at least one", 0))?;
    let n = first.len();
    check_members(predictions)?;
    let v = predictions.len() as f64;
    let missing = |what: &str| Error::LossUnavailable { loss: format!("{how:?} aggregation"), reason: format!("a member gives no {what}") };
    match how {
        Aggregation::Single => Ok(first.clone()),
        Aggregation::Mean => {
            let mut sum = vec![0.0; n];
            for p in predictions {
                let values = p
                    .values()
                    .ok_or_else(|| Error::TaskMismatch("averaging needs real-valued predictions; use a vote for classes".into()))?;
                sum.iter_mut().zip(values).for_each(|(s, x)| *s += x);
            }
            Ok(Predictions::Real(sum.into_iter().map(|s| s / v).collect()))
        }
        Aggregation::Vote => {
            let k = n_classes(first)?;
            // Members ordered by (risk, index): the first member voting for a tied class wins.
            let mut order: Vec<usize> = (0..predictions.len()).collect();
            order.sort_by(|&a, &b| member_risks.get(a).unwrap_or(&0.0).total_cmp(member_risks.get(b).unwrap_or(&0.0)).then(a.cmp(&b)));
            let labels: Vec<&[u32]> = predictions.iter().map(|p| p.labels().unwrap_or(&[])).collect();
            let mut counts = vec![0u32; k];
            let mut out = Vec::with_capacity(n);
            let mut proba = Vec::with_capacity(n * k);
            for i in 0..n {
                counts.iter_mut().for_each(|c| *c = 0);
                for l in &labels {
                    counts[l[i] as usize] += 1;
                }
                let top = counts.iter().copied().max().unwrap_or(0);
                let winner = match ties {
                    VoteTies::LowestRisk => order.iter().map(|&j| labels[j][i]).find(|&c| counts[c as usize] == top).unwrap_or(0),
                    VoteTies::FirstClass => counts.iter().position(|&c| c == top).unwrap_or(0) as u32,
                };
                out.push(winner);
                proba.extend(counts.iter().map(|&c| f64::from(c) / v));
            }
            let decision = (k == 2).then(|| (0..n).map(|i| 2.0 * proba[2 * i + 1] - 1.0).collect());
            Ok(Predictions::Classes { labels: out, n_classes: k, proba: Some(proba), decision })
        }
        Aggregation::SoftVote => {
            let k = n_classes(first)?;
            let mut sum = vec![0.0; n * k];
            for p in predictions {
                let Predictions::Classes { proba: Some(pr), .. } = p else { return Err(missing("class probabilities")) };
                sum.iter_mut().zip(pr).for_each(|(s, x)| *s += x / v);
            }
            let labels = sum
                .chunks_exact(k)
                .map(|row| row.iter().enumerate().fold(0usize, |b, (c, &x)| if x > row[b] { c } else { b }) as u32)
                .collect();
            let decision = (k == 2).then(|| sum.chunks_exact(2).map(|r| r[1] - r[0]).collect());
            Ok(Predictions::Classes { labels, n_classes: k, proba: Some(sum), decision })
        }
        Aggregation::ScoreMean => {
            let k = n_classes(first)?;
            if k != 2 {
                return Err(Error::TaskMismatch("averaging decision scores needs a binary problem".into()));
            }
            let mut sum = vec![0.0; n];
            for p in predictions {
                let Predictions::Classes { decision: Some(d), .. } = p else { return Err(missing("decision scores")) };
                sum.iter_mut().zip(d).for_each(|(s, x)| *s += x / v);
            }
            let labels = sum.iter().map(|&s| u32::from(s > 0.0)).collect();
            Ok(Predictions::Classes { labels, n_classes: 2, proba: None, decision: Some(sum) })
        }
    }
}

/// Every member predicts the same rows with the same task and class count (≥ 1), class
/// indices in range and probabilities / decisions of the right lengths: what the combinations
/// index by.
fn check_members(predictions: &[Predictions]) -> Result<()> {
    let Some(first) = predictions.first() else { return Ok(()) };
    let n = first.len();
    let consistent = |p: &Predictions| match (p, first) {
        (Predictions::Real(v), Predictions::Real(_)) => v.len() == n,
        (Predictions::Classes { labels, n_classes, proba, decision }, Predictions::Classes { n_classes: k, .. }) => {
            labels.len() == n
                && n_classes == k
                && *k >= 1
                && labels.iter().all(|&l| (l as usize) < *k)
                && proba.as_ref().is_none_or(|pr| Some(pr.len()) == n.checked_mul(*k))
                && decision.as_ref().is_none_or(|d| d.len() == n)
        }
        _ => false,
    };
    match predictions.iter().position(|p| !consistent(p)) {
        None => Ok(()),
        Some(j) => Err(Error::invalid("members", "predictions of the same rows, task and classes", format!("member {j} differs"))),
    }
}

fn n_classes(p: &Predictions) -> Result<usize> {
    match p {
        Predictions::Classes { n_classes, .. } => Ok(*n_classes),
        Predictions::Real(_) => Err(Error::TaskMismatch("a vote needs class predictions; use the mean for regression".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vote_tie_goes_to_lowest_risk_member() {
        let a = Predictions::classes(vec![0, 1], 3);
        let b = Predictions::classes(vec![2, 1], 3);
        // member 1 (b) has the lower risk: the 1–1 tie on row 0 goes to its class 2
        let out = aggregate(&[a.clone(), b.clone()], &[0.3, 0.2], Aggregation::Vote).unwrap();
        assert_eq!(out.labels().unwrap(), &[2, 1]);
        let out = aggregate(&[a, b], &[0.2, 0.3], Aggregation::Vote).unwrap();
        assert_eq!(out.labels().unwrap(), &[0, 1]);
    }

    #[test]
    fn mean_by_hand() {
        let out = aggregate(&[Predictions::Real(vec![1.0, 2.0]), Predictions::Real(vec![3.0, 6.0])], &[], Aggregation::Mean).unwrap();
        assert_eq!(out.values().unwrap(), &[2.0, 4.0]);
        assert!(aggregate(&[Predictions::classes(vec![0], 2)], &[], Aggregation::Mean).is_err());
    }

    #[test]
    fn inconsistent_members_are_errors_not_panics() {
        let all = [Aggregation::Single, Aggregation::Mean, Aggregation::Vote, Aggregation::SoftVote, Aggregation::ScoreMean];
        let cases = [
            vec![Predictions::classes(vec![0, 5], 2)],
            vec![Predictions::classes(vec![0, 1], 2), Predictions::classes(vec![0], 2)],
            vec![Predictions::classes(vec![0, 1], 2), Predictions::classes(vec![0, 2], 3)],
            vec![Predictions::classes(vec![], 0)],
            vec![Predictions::Classes { labels: vec![0], n_classes: 2, proba: Some(vec![1.0]), decision: None }],
            vec![Predictions::Real(vec![1.0]), Predictions::classes(vec![0], 2)],
            vec![Predictions::Real(vec![1.0]), Predictions::Real(vec![])],
        ];
        for members in &cases {
            for how in all {
                assert!(
                    matches!(aggregate(members, &[], how), Err(Error::InvalidParameter { name: "members", .. })),
                    "{members:?} {how:?}"
                );
            }
        }
    }

    #[test]
    fn score_mean_takes_the_sign() {
        let p = |d: Vec<f64>| Predictions::Classes { labels: vec![0; d.len()], n_classes: 2, proba: None, decision: Some(d) };
        let out = aggregate(&[p(vec![1.0, -1.0]), p(vec![-0.5, -1.0]), p(vec![0.1, 3.0])], &[], Aggregation::ScoreMean).unwrap();
        assert_eq!(out.labels().unwrap(), &[1, 1]);
    }
}
