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

/// Checks a generator's size before it allocates: at least one row, and `n × (d + 1)` values
/// (features and target) within the memory budget ([`crate::limits`]).
///
/// # Errors
/// [`crate::Error::TooFewRows`] for n = 0; [`crate::Error::ResourceLimit`] beyond the budget.
pub(crate) fn check_size(name: &str, n: usize, d: usize) -> crate::Result<()> {
    if n == 0 {
        return Err(crate::Error::TooFewRows { what: format!("gen:{name}"), needed: 1, found: 0 });
    }
    crate::limits::check_memory(format_args!("gen:{name} with n = {n} rows × {d} features"), crate::limits::Limits::f64_bytes([n, d + 1]))
}

/// A standard normal draw (shared by generators).
#[allow(dead_code)] // used by the generators that land with their families
pub(crate) fn normal<R: rand::Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}
