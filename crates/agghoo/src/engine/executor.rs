//! Where independent units of work run.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::error::{Error, Result};

/// Runs independent units `0..n`. An executor may run them in any order, on any threads or
/// machines; callers gather results by unit index ([`map_ordered`]), so every executor gives
/// the same bits.
pub trait Executor: Sync {
    /// Calls `unit(i)` exactly once for every `i` in `0..n` and returns when all have returned.
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync));
}

/// Units one after the other, in index order, on the calling thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sequential;

impl Executor for Sequential {
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
        (0..n).for_each(unit);
    }
}

/// Units on the current rayon pool (the library's default; `--threads` sizes the pool).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rayon;

impl Executor for Rayon {
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
        (0..n).into_par_iter().for_each(unit);
    }
}

/// `f(0), …, f(n − 1)` run by `executor`, gathered in index order. Every unit runs, even after
/// a failure (scheduling must not decide which error is seen): the error returned is the one of
/// the lowest failing index.
///
/// ```
/// use agghoo::engine::{Rayon, Sequential, map_ordered};
/// let squares = map_ordered(&Rayon, 100, |i| Ok(i * i))?;
/// assert_eq!(squares, map_ordered(&Sequential, 100, |i| Ok(i * i))?);
/// assert_eq!(squares[7], 49);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// The lowest-index unit's error; [`Error::Internal`] if the executor skipped a unit.
pub fn map_ordered<T: Send>(executor: &dyn Executor, n: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let slots: Vec<Mutex<Option<Result<T>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    executor.for_each(n, &|i| {
        let out = f(i);
        if let Some(slot) = slots.get(i)
            && let Ok(mut slot) = slot.lock()
        {
            *slot = Some(out);
        }
    });
    slots
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            slot.into_inner().ok().flatten().unwrap_or_else(|| Err(Error::Internal(format!("the executor did not run unit {i}"))))
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// Runs the units in a fixed pseudo-random order, on one thread: a stand-in for a cluster
    /// whose workers finish out of order.
    pub struct Shuffled(pub u64);

    impl Executor for Shuffled {
        fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
            use rand::SeedableRng;
            use rand::seq::SliceRandom;
            let mut order: Vec<usize> = (0..n).collect();
            order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(self.0));
            order.into_iter().for_each(unit);
        }
    }

    /// Runs the units in reverse order.
    pub struct Reversed;

    impl Executor for Reversed {
        fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
            (0..n).rev().for_each(unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{Reversed, Shuffled};
    use super::*;

    #[test]
    fn results_come_back_in_unit_order_and_the_lowest_error_wins() {
        let executors: [&dyn Executor; 4] = [&Sequential, &Rayon, &Reversed, &Shuffled(3)];
        for e in executors {
            assert_eq!(map_ordered(e, 50, |i| Ok(2 * i)).unwrap(), (0..50).map(|i| 2 * i).collect::<Vec<_>>());
            let got = map_ordered(e, 50, |i| if i % 7 == 5 { Err(Error::invalid("unit", "ok", i)) } else { Ok(i) });
            assert!(matches!(got, Err(Error::InvalidParameter { got, .. }) if got == "5"));
        }
    }

    struct Lazy;
    impl Executor for Lazy {
        fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
            (0..n.saturating_sub(1)).for_each(unit);
        }
    }

    #[test]
    fn a_skipped_unit_is_an_internal_error_not_a_hole() {
        assert!(matches!(map_ordered(&Lazy, 3, Ok), Err(Error::Internal(_))));
    }
}
