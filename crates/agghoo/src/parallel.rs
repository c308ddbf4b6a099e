//! Deterministic collection of fallible parallel work.
//!
//! rayon's `collect::<Result<_, _>>()` stops at *an* error — whichever a thread meets first — so
//! with several failing units the reported error would depend on scheduling. Every parallel
//! `Result` collection in the crate goes through [`CollectOrdered::collect_ordered`] instead: all
//! units run, results are gathered in index order, and the first error *by index* is returned.
//! Errors are rare, so not short-circuiting costs nothing in practice.

use rayon::iter::IndexedParallelIterator;

use crate::error::Result;

/// See the module documentation.
pub(crate) trait CollectOrdered<T> {
    /// Collects in index order; the error of the lowest failing index, if any.
    fn collect_ordered(self) -> Result<Vec<T>>;
}

impl<T: Send, I: IndexedParallelIterator<Item = Result<T>>> CollectOrdered<T> for I {
    fn collect_ordered(self) -> Result<Vec<T>> {
        let all: Vec<Result<T>> = self.collect();
        all.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;
    use crate::error::Error;

    #[test]
    fn the_first_error_by_index_wins_on_any_thread_count() {
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let got = pool.install(|| {
                (0..200usize)
                    .into_par_iter()
                    .map(|i| if i % 37 == 36 { Err(Error::invalid("unit", "ok", i)) } else { Ok(i) })
                    .collect_ordered()
            });
            assert!(matches!(got, Err(Error::InvalidParameter { got, .. }) if got == "36"));
        }
    }
}
