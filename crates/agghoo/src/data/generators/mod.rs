//! The papers' synthetic problems, usable wherever a data file is (`--data gen:<name>`).
//!
//! Each generator draws from its own stream of [`Purpose::Data`](crate::Purpose::Data), so a
//! data set is a pure function of (name, n, parameters, seed, stream).

mod covertype;
mod genuer;
mod knn;
mod msd;
mod svr;

pub use covertype::covertype_like;
pub use genuer::{genuer, genuer_bayes, genuer_eta};
pub use knn::{KNN_B, KNN_LAMBDA, knn_bayes, knn_eta, knn_expected_risk, knn_g, knn_problem, knn_problem_stream};
pub use msd::msd_like;
pub use svr::{SvrNoise, svr_problem, svr_problem_with, svr_regression_function};

use rand_distr::{Distribution, StandardNormal};

/// A standard normal draw (shared by generators).
#[allow(dead_code)] // used by the generators that land with their families
pub(crate) fn normal<R: rand::Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}
