//! Where independent units of work run.

use std::sync::Mutex;

use rayon::prelude::*;

use crate::Par;
use crate::error::{Error, Result};

/// Runs independent units `0..n`. An executor may run them in any order, on any threads or
/// machines; callers gather results by unit index ([`map_ordered`]), so every executor gives
/// the same bits.
pub trait Executor: Sync {
    /// Calls `unit(i)` exactly once for every `i` in `0..n` and returns when all have returned.
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync));

    /// Who hears of this executor's units and decides whether they go on ([`Unobserved`] by
    /// default; [`Observed`] attaches one).
    fn observer(&self) -> &dyn Observer {
        &Unobserved
    }

    /// The parallelism each of `n` units may use inside itself (its fit's kernels, see [`Par`]).
    /// The default, for executors that run one unit at a time on this machine: the whole pool.
    fn par(&self, n: usize) -> Par {
        let _ = n;
        Par::pool()
    }
}

/// Hears of the units an executor runs through [`map_ordered`] (a progress bar, a verbose log)
/// and may cancel the run: before each unit [`map_ordered`] asks [`keep_going`](Observer::keep_going),
/// and a unit asked after a `false` does not run but fails with [`Error::Interrupted`]. Events
/// come from whichever thread runs the unit, in any order.
pub trait Observer: Sync {
    /// Unit `unit` of `total` is about to run.
    fn started(&self, unit: usize, total: usize) {
        let _ = (unit, total);
    }

    /// Unit `unit` of `total` has returned (with a result or an error).
    fn finished(&self, unit: usize, total: usize) {
        let _ = (unit, total);
    }

    /// Whether the units not yet started should run (`true` by default).
    fn keep_going(&self) -> bool {
        true
    }

    /// `amount` more of the work inside the units is done, for runs whose units are uneven and
    /// whose caller knows the total in finer steps (the point-updates of a TreeCV run). Nothing
    /// by default.
    fn progressed(&self, amount: u64) {
        let _ = amount;
    }
}

/// The observer that hears nothing and never cancels.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unobserved;

impl Observer for Unobserved {}

/// `executor`'s threads with `observer` told of its units.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use agghoo::engine::{Observed, Observer, Rayon, map_ordered};
/// struct Count(AtomicUsize);
/// impl Observer for Count {
///     fn finished(&self, _: usize, _: usize) {
///         self.0.fetch_add(1, Ordering::Relaxed);
///     }
/// }
/// let count = Count(AtomicUsize::new(0));
/// map_ordered(&Observed::new(&Rayon, &count), 10, |i| Ok(i))?;
/// assert_eq!(count.0.into_inner(), 10);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Observed<'a> {
    executor: &'a dyn Executor,
    observer: &'a dyn Observer,
}

impl<'a> Observed<'a> {
    /// `executor` reporting to `observer`.
    pub fn new(executor: &'a dyn Executor, observer: &'a dyn Observer) -> Self {
        Self { executor, observer }
    }
}

impl Executor for Observed<'_> {
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
        self.executor.for_each(n, unit);
    }

    fn par(&self, n: usize) -> Par {
        self.executor.par(n)
    }

    fn observer(&self) -> &dyn Observer {
        self.observer
    }
}

/// The executor for the units *inside* one of the `units` units that `outer` runs at once (the
/// inner splits of an outer split, the second evaluation of a procedure): `outer`'s threads as
/// far as that unit's share of them goes, its observer's cancellation and
/// [`progressed`](Observer::progressed) reports, but no unit events — the observer counts
/// `outer`'s units, not their parts.
///
/// The unit's share is [`outer.par(units)`](Executor::par). When the outer units already occupy
/// every thread (a share of [`Par::Seq`]), the inner units run one after the other on the calling
/// thread and their kernels get [`Par::Seq`]: inner work does not fan out over a pool the outer
/// level fills. Otherwise they run on `outer`'s threads and the share is divided among them as
/// `outer` divides its own threads (a pool of 16 running 2 outer units: 8 threads each, so 4
/// inner units of one of them get 2 threads each).
///
/// ```
/// use agghoo::{Par, engine::{Executor, Inner, Rayon, Sequential}};
/// let pool = rayon::ThreadPoolBuilder::new().num_threads(16).build().unwrap();
/// pool.install(|| {
///     assert_eq!(Inner::new(&Rayon, 2).par(4), Par::threads(2));
///     assert_eq!(Inner::new(&Rayon, 16).par(4), Par::Seq);
///     assert_eq!(Inner::new(&Sequential, 5).par(4), Par::threads(16));
/// });
/// ```
#[derive(Clone, Copy)]
pub struct Inner<'a> {
    outer: &'a dyn Executor,
    /// The threads of the unit whose parts this executor runs.
    share: Par,
}

impl<'a> Inner<'a> {
    /// The executor for the parts of one of the `units` units `outer` runs.
    pub fn new(outer: &'a dyn Executor, units: usize) -> Self {
        Self { outer, share: outer.par(units) }
    }
}

impl Executor for Inner<'_> {
    fn for_each(&self, n: usize, unit: &(dyn Fn(usize) + Sync)) {
        if self.share == Par::Seq {
            (0..n).for_each(unit);
        } else {
            self.outer.for_each(n, unit);
        }
    }

    /// The unit's share × the fraction of its threads `outer` gives each of `n` units, rounded
    /// up ([`Par::Seq`] when the share is).
    fn par(&self, n: usize) -> Par {
        let (each, all) = (self.outer.par(n).n_threads(), self.outer.par(1).n_threads());
        Par::threads((self.share.n_threads() * each).div_ceil(all.max(1)))
    }

    fn observer(&self) -> &dyn Observer {
        self
    }
}

impl Observer for Inner<'_> {
    fn keep_going(&self) -> bool {
        self.outer.observer().keep_going()
    }

    fn progressed(&self, amount: u64) {
        self.outer.observer().progressed(amount);
    }
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

    /// The pool's threads shared out among the units that run at once ([`Par::split`]).
    fn par(&self, n: usize) -> Par {
        Par::pool().split(n)
    }
}

/// `f(0), …, f(n − 1)` run by `executor`, gathered in index order. Every unit runs, even after
/// a failure (scheduling must not decide which error is seen): the error returned is the one of
/// the lowest failing index. The executor's [`Observer`] hears of each unit and is asked before
/// each whether to go on. Every parallel map over units in the library goes through here.
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
/// The lowest-index unit's error; [`Error::Interrupted`] for a unit that did not start because
/// the observer cancelled the run; [`Error::Internal`] if the executor skipped a unit.
pub fn map_ordered<T: Send>(executor: &dyn Executor, n: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let slots: Vec<Mutex<Option<Result<T>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let observer = executor.observer();
    executor.for_each(n, &|i| {
        let out = if observer.keep_going() {
            observer.started(i, n);
            let out = f(i);
            observer.finished(i, n);
            out
        } else {
            Err(Error::Interrupted(format!("cancelled before unit {i} of {n}")))
        };
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

    /// Counts events and cancels after `stop_after` finished units.
    struct Stopper {
        started: std::sync::atomic::AtomicUsize,
        finished: std::sync::atomic::AtomicUsize,
        stop_after: usize,
    }

    impl Observer for Stopper {
        fn started(&self, _: usize, total: usize) {
            assert_eq!(total, 20);
            self.started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        fn finished(&self, _: usize, _: usize) {
            self.finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        fn keep_going(&self) -> bool {
            self.finished.load(std::sync::atomic::Ordering::SeqCst) < self.stop_after
        }
    }

    #[test]
    fn the_observer_hears_every_unit_and_a_cancelled_run_is_interrupted() {
        let executors: [&dyn Executor; 3] = [&Sequential, &Reversed, &Shuffled(5)];
        for e in executors {
            let all = Stopper { started: 0.into(), finished: 0.into(), stop_after: usize::MAX };
            assert_eq!(map_ordered(&Observed::new(e, &all), 20, Ok).unwrap().len(), 20);
            assert_eq!((all.started.into_inner(), all.finished.into_inner()), (20, 20));
            let stopper = Stopper { started: 0.into(), finished: 0.into(), stop_after: 3 };
            let got = map_ordered(&Observed::new(e, &stopper), 20, Ok);
            assert!(matches!(got, Err(Error::Interrupted(_))), "{got:?}");
            assert_eq!((stopper.started.into_inner(), stopper.finished.into_inner()), (3, 3));
            // Inside a unit: the outer observer's cancellation, none of its events.
            let quiet = Stopper { started: 0.into(), finished: 0.into(), stop_after: 0 };
            let observed = Observed::new(e, &quiet);
            assert!(matches!(map_ordered(&Inner::new(&observed, 1), 5, Ok), Err(Error::Interrupted(_))));
            assert_eq!(quiet.started.into_inner(), 0);
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
