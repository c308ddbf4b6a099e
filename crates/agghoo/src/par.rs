//! How many threads one fit's own kernels may use: the explicit parallelism argument of the
//! kernels (k-NN blocks, forest trees, one-vs-one pairs, kernel matrices, CART, the Lasso), as
//! faer's `Par`.
//!
//! It sits below every layer (families read it, the engine decides it): an
//! [`Executor`](crate::engine::Executor) running `n` units in parallel gives each unit
//! [`Executor::par`](crate::engine::Executor::par) — [`Par::Seq`] when the units already occupy
//! every thread, the threads left over otherwise — and the unit's views carry it
//! ([`View::par`](crate::data::View::par)) into the family's fit and prediction. A single fit
//! (a refit on all rows, a prediction) gets the whole pool ([`Par::pool`]).
//!
//! Results never depend on it: every kernel computes each item (row block, tree, pair) the same
//! way whatever the pieces, and gathers them in item order.

use std::num::NonZeroUsize;

/// Pieces per thread a parallel kernel's items may be cut into at most (a few, so that uneven
/// items still balance).
const PIECES_PER_THREAD: usize = 4;

/// The parallelism of one fit's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Par {
    /// On the calling thread, one item after the other.
    Seq,
    /// On the current rayon pool, in at most a few pieces per thread of this many threads.
    Rayon(NonZeroUsize),
}

impl Default for Par {
    /// The whole current pool ([`Par::pool`]).
    fn default() -> Self {
        Par::pool()
    }
}

impl Par {
    /// Every thread of the current rayon pool (`--threads` sizes it); [`Par::Seq`] on a pool of
    /// one thread.
    pub fn pool() -> Par {
        Par::threads(rayon::current_num_threads())
    }

    /// `threads` threads: [`Par::Seq`] for 0 or 1.
    pub fn threads(threads: usize) -> Par {
        match NonZeroUsize::new(threads) {
            Some(n) if n.get() > 1 => Par::Rayon(n),
            _ => Par::Seq,
        }
    }

    /// The number of threads (1 for [`Par::Seq`]).
    pub fn n_threads(self) -> usize {
        match self {
            Par::Seq => 1,
            Par::Rayon(n) => n.get(),
        }
    }

    /// What each of `units` units running at once on these threads gets: the threads shared out,
    /// rounded up ([`Par::Seq`] once the units occupy every thread).
    ///
    /// ```
    /// use agghoo::Par;
    /// assert_eq!(Par::threads(16).split(5), Par::threads(4));
    /// assert_eq!(Par::threads(16).split(40), Par::Seq);
    /// assert_eq!(Par::threads(16).split(1), Par::threads(16));
    /// ```
    pub fn split(self, units: usize) -> Par {
        let threads = self.n_threads();
        Par::threads(threads.div_ceil(units.clamp(1, threads)))
    }

    /// The smallest piece (in items) a parallel iterator over `items` items is cut into, for its
    /// `with_min_len`: all of them for [`Par::Seq`] (one piece, run on the calling thread), else
    /// at most a few pieces per thread.
    pub fn min_len(self, items: usize) -> usize {
        match self {
            Par::Seq => items.max(1),
            Par::Rayon(n) => items.div_ceil(n.get() * PIECES_PER_THREAD).max(1),
        }
    }

    /// `f` of every item, in order: on the calling thread for [`Par::Seq`] or a single item,
    /// else on the current pool in pieces of at least [`min_len`](Par::min_len) items (handing
    /// work to the pool from outside it costs a wake-up and moves the results to another core's
    /// cache: measured 15–25 % on the Lasso's wide path, hence no pool for one thread). The same
    /// items either way, so the same results for any parallelism.
    pub fn map<I: Send, T: Send>(self, items: Vec<I>, f: impl Fn(I) -> T + Sync) -> Vec<T> {
        use rayon::prelude::*;
        if items.len() > 1 && self != Par::Seq {
            let min_len = self.min_len(items.len());
            items.into_par_iter().with_min_len(min_len).map(&f).collect()
        } else {
            items.into_iter().map(f).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_shared_out_and_rounded_up() {
        assert_eq!(Par::threads(0), Par::Seq);
        assert_eq!(Par::threads(1), Par::Seq);
        assert_eq!(Par::threads(8).split(0), Par::threads(8));
        assert_eq!(Par::threads(8).split(3), Par::threads(3));
        assert_eq!(Par::threads(8).split(8), Par::Seq);
        assert_eq!(Par::Seq.split(3), Par::Seq);
        assert_eq!(Par::Seq.min_len(10), 10);
        assert_eq!(Par::Seq.min_len(0), 1);
        assert_eq!(Par::threads(2).min_len(100), 13);
    }

    #[test]
    fn map_keeps_item_order_for_any_parallelism() {
        let items: Vec<usize> = (0..1000).collect();
        let want: Vec<usize> = items.iter().map(|i| i * i).collect();
        for par in [Par::Seq, Par::threads(2), Par::threads(64)] {
            assert_eq!(par.map(items.clone(), |i| i * i), want);
        }
    }
}
