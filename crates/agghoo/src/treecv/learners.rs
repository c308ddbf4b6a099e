//! The incremental learners by name, for callers that choose one at run time (the CLI's
//! `--learner`, the Python package): a [`LearnerSpec`] builds the learner and hands it to a
//! [`LearnerVisitor`], which runs whatever it needs on the concrete type.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::incremental::{
    Covariance, GaussianDensity, GaussianNaiveBayes, Incremental, LsqSgd, MultinomialNaiveBayes, OnlineKMeans, Pegasos,
};
use crate::names::{Named, named};

/// An incremental learner and its options.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "learner")]
pub enum LearnerSpec {
    /// PEGASOS (linear SVM by SGD) with regularisation λ.
    Pegasos {
        /// λ > 0.
        lambda: f64,
    },
    /// Least-squares SGD with the papers' step and radius.
    LsqSgd,
    /// Gaussian naive Bayes.
    GaussianNb,
    /// Multinomial naive Bayes (Laplace smoothing α = 1).
    MultinomialNb,
    /// Online k-means with `centres` centres (loss: squared distance to the nearest centre).
    Kmeans {
        /// Number of centres (≥ 1).
        centres: usize,
    },
    /// A Gaussian density with diagonal covariance (loss: negative log-likelihood).
    Density,
}

/// What to do with the concrete learner a [`LearnerSpec`] builds.
pub trait LearnerVisitor {
    /// The result.
    type Output;
    /// Runs on `learner`.
    fn visit<L: Incremental>(self, learner: &L) -> Self::Output;
}

/// The incremental learners by name, without their options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LearnerKind {
    /// PEGASOS.
    Pegasos,
    /// Least-squares SGD.
    LsqSgd,
    /// Gaussian naive Bayes.
    GaussianNb,
    /// Multinomial naive Bayes.
    MultinomialNb,
    /// Online k-means.
    Kmeans,
    /// Gaussian density.
    Density,
}

named!(display LearnerKind, "learner", [
    LearnerKind::Pegasos => "pegasos": "PEGASOS linear SVM (0–1 loss of the last iterate)",
    LearnerKind::LsqSgd => "lsq-sgd": "Least-squares SGD with iterate averaging (robust SA)",
    LearnerKind::GaussianNb => "gaussian-nb": "Gaussian naive Bayes (0–1 loss)",
    LearnerKind::MultinomialNb => "multinomial-nb": "Multinomial naive Bayes (0–1 loss; non-negative counts)",
    LearnerKind::Kmeans => "kmeans": "Online k-means (squared distance to the nearest centre)",
    LearnerKind::Density => "density": "Gaussian density (negative log-likelihood)",
]);

impl LearnerKind {
    /// The settings of a [`TreecvSpec`](crate::spec::TreecvSpec) the learner reads: `lambda`
    /// (PEGASOS), `centres` (k-means); the others read none.
    pub fn settings(self) -> &'static [&'static str] {
        match self {
            LearnerKind::Pegasos => &["lambda"],
            LearnerKind::Kmeans => &["centres"],
            LearnerKind::LsqSgd | LearnerKind::GaussianNb | LearnerKind::MultinomialNb | LearnerKind::Density => &[],
        }
    }
}

impl LearnerSpec {
    /// The learner named `name` (the CLI's names, [`LearnerKind`]), with PEGASOS's `lambda` and
    /// k-means' `centres` (ignored by the others).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`](crate::Error::InvalidParameter) for another name.
    pub fn parse(name: &str, lambda: f64, centres: usize) -> Result<Self> {
        Ok(Self::of(LearnerKind::parse_name(name)?, lambda, centres))
    }

    /// The learner of kind `kind`, with PEGASOS's `lambda` and k-means' `centres` (ignored by the
    /// others).
    pub fn of(kind: LearnerKind, lambda: f64, centres: usize) -> Self {
        match kind {
            LearnerKind::Pegasos => LearnerSpec::Pegasos { lambda },
            LearnerKind::LsqSgd => LearnerSpec::LsqSgd,
            LearnerKind::GaussianNb => LearnerSpec::GaussianNb,
            LearnerKind::MultinomialNb => LearnerSpec::MultinomialNb,
            LearnerKind::Kmeans => LearnerSpec::Kmeans { centres },
            LearnerKind::Density => LearnerSpec::Density,
        }
    }

    /// Builds the learner for data with `n_classes` classes (0 for regression) and runs `visitor`
    /// on it.
    ///
    /// # Errors
    /// The learner's constructor errors (λ ≤ 0, no centres, fewer than 2 classes, ...).
    pub fn visit<V: LearnerVisitor>(&self, n_classes: usize, visitor: V) -> Result<V::Output> {
        Ok(match *self {
            LearnerSpec::Pegasos { lambda } => visitor.visit(&Pegasos::new(lambda)?),
            LearnerSpec::LsqSgd => visitor.visit(&LsqSgd::paper()),
            LearnerSpec::GaussianNb => visitor.visit(&GaussianNaiveBayes::new(n_classes)?),
            LearnerSpec::MultinomialNb => visitor.visit(&MultinomialNaiveBayes::new(n_classes, 1.0)?),
            LearnerSpec::Kmeans { centres } => visitor.visit(&OnlineKMeans::new(centres)?),
            LearnerSpec::Density => visitor.visit(&GaussianDensity::new(Covariance::Diagonal)),
        })
    }
}
