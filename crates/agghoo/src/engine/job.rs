//! A job: units evaluated anywhere, assembled once.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::executor::{Executor, Inner, map_ordered};
use crate::data::Dataset;
use crate::error::{Error, Result};

/// A serializable unit of distribution: everything needed to evaluate any of its units on the
/// data (specs, instantiated splits, seed), so a worker that holds the data and the job can
/// evaluate any subset of units, and the caller assembles the outcomes gathered by index.
///
/// The contract that makes every executor give the same bits: a unit's outcome is a pure
/// function of (job, data, global unit index), and [`Job::assemble`] sees the outcomes in unit
/// order whatever order they were computed in.
pub trait Job: Serialize + DeserializeOwned + Sync {
    /// What one unit produces (a serde value: it may cross a network).
    type Outcome: Serialize + DeserializeOwned + Send;
    /// What is built once per process from the job and the data before units run (a family
    /// built on all rows, say).
    type Prepared: Sync;
    /// The assembled result.
    type Output;
    /// The number of units.
    fn n_units(&self) -> usize;
    /// Validates the job against the data and builds what the units share.
    ///
    /// # Errors
    /// The job's own errors (a family that cannot be built, splits of another data set, …).
    fn prepare(&self, data: &Dataset) -> Result<Self::Prepared>;
    /// Evaluates unit `unit` (a global index below [`n_units`](Job::n_units)); work inside the
    /// unit that has units of its own (the inner splits of an outer split) runs them with
    /// `inner` (the running executor's threads and cancellation, see [`Inner`]).
    ///
    /// # Errors
    /// The unit's failure, naming the unit by its global index.
    fn evaluate_unit(&self, prepared: &Self::Prepared, data: &Dataset, unit: usize, inner: &dyn Executor) -> Result<Self::Outcome>;
    /// Assembles the outcomes of every unit, in unit order.
    ///
    /// # Errors
    /// [`Error::Internal`] for a wrong number of outcomes; the assembly's own errors.
    fn assemble(&self, prepared: &Self::Prepared, data: &Dataset, outcomes: Vec<Self::Outcome>) -> Result<Self::Output>;

    /// Evaluates the units `units` (global indices, in the order given) with `executor`: what a
    /// worker runs for its block.
    ///
    /// # Errors
    /// An index out of range ([`Error::InvalidParameter`]); the lowest failing unit's error.
    fn evaluate(&self, prepared: &Self::Prepared, data: &Dataset, units: &[usize], executor: &dyn Executor) -> Result<Vec<Self::Outcome>> {
        let n = self.n_units();
        if let Some(&bad) = units.iter().find(|&&u| u >= n) {
            return Err(Error::invalid("unit", "an index below the number of units", format!("{bad} (of {n})")));
        }
        let inner = Inner::new(executor, units.len());
        map_ordered(executor, units.len(), |i| self.evaluate_unit(prepared, data, units[i], &inner))
    }
}

/// Runs every unit of `job` with `executor` and assembles the outcomes: the local run, equal bit
/// for bit to any distribution of the units.
///
/// # Errors
/// As [`Job::prepare`], [`Job::evaluate_unit`] and [`Job::assemble`].
pub fn run<J: Job>(job: &J, data: &Dataset, executor: &dyn Executor) -> Result<J::Output> {
    let prepared = job.prepare(data)?;
    let inner = Inner::new(executor, job.n_units());
    let outcomes = map_ordered(executor, job.n_units(), |u| job.evaluate_unit(&prepared, data, u, &inner))?;
    job.assemble(&prepared, data, outcomes)
}

/// Checks that `outcomes` has one entry per unit (assembly of gathered results).
pub(crate) fn check_outcome_count<T>(outcomes: &[T], n_units: usize) -> Result<()> {
    if outcomes.len() == n_units {
        Ok(())
    } else {
        Err(Error::invalid("outcomes", "one outcome per unit", format!("{} for {n_units} units", outcomes.len())))
    }
}
