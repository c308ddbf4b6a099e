//! The engine: units of work, where they run, and how their outcomes are assembled.
//!
//! Everything above it — selection procedures, risk estimation, nested CV, the experiments —
//! is "evaluate independent units, then conclude from their outcomes":
//!
//! ```text
//! job ──► units 0..n (pure functions of data, spec, seed and the unit's global index)
//!     ──► Executor (sequential, rayon, or a Dask cluster driving `Job::evaluate` from Python)
//!     ──► outcomes gathered by unit index ──► Job::assemble ──► result
//! ```
//!
//! - [`evaluate_splits`] fits a family's whole path on each split's training rows (after the
//!   preprocessing fitted on those rows), reduces the validation predictions to risk curves and
//!   takes the hold-out argmin; [`SplitOutcome`] is a serde value, so a split evaluated on another
//!   machine comes back bit for bit.
//! - [`Executor`] runs independent units and hands their results back **in unit order**;
//!   [`Sequential`] and [`Rayon`] are the library's, a test executor runs them in reverse or
//!   shuffled order, and every executor gives the same bits (outcomes are gathered by index and
//!   assembled serially). Every parallel map over units (splits, repetitions, candidate
//!   subsets, members) goes through [`map_ordered`] with an executor passed in by the caller.
//! - An [`Observer`] on the executor ([`Observed`]) hears of each unit (started, finished, of how
//!   many) — the CLI's progress bars, Python's `verbose` — and may cancel the run between units
//!   ([`Error::Interrupted`](crate::Error::Interrupted)): Ctrl-C in Python. Units inside a unit run
//!   on [`Inner`], which keeps the cancellation and drops the events.
//! - [`Job`] is a unit of distribution: a serializable value (specs, splits, seed) whose units
//!   are evaluated anywhere ([`Job::evaluate`] on any subset, by global index) and assembled
//!   once ([`Job::assemble`]); [`run`] is both on one machine. `select::SelectJob`,
//!   `estimate::EstimateJob` and `estimate::NestedJob` implement it.
//! - Statistics shared by every estimate (the size-weighted mean and its standard error) live in
//!   [`summarize`].
//!
//! Determinism: one user seed → a seed per unit derived from the unit's *global* index, never
//! from the order in which threads or workers finish.

mod argmin;
mod evaluate;
mod executor;
mod job;
mod stats;

pub use argmin::{TIE_RELATIVE_TOLERANCE, TieRule, argmin, one_standard_error, one_standard_error_band, one_standard_error_by};
pub(crate) use evaluate::refit_all;
pub use evaluate::{
    EvalOptions, SplitOutcome, check_evaluation, evaluate_splits, evaluate_units, fit_memory, outcomes_from_risks, path_predictions,
};
#[cfg(test)]
pub(crate) use executor::testing;
pub use executor::{Executor, Inner, Observed, Observer, Rayon, Sequential, Unobserved, map_ordered};
pub(crate) use job::check_outcome_count;
pub use job::{Job, run};
pub use stats::summarize;

pub use crate::par::Par;

#[cfg(test)]
mod par_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod weights_tests;
