//! The kernel cache the SMO solver reads (the kernel itself is the shared
//! [`Kernel`](crate::family::numerics::kernel::Kernel) of kernel ridge and the SVMs).
//!
//! Two storages behind one interface ([`KernelCache`]):
//! - [`KernelCache::Full`]: the whole `n × n` matrix, computed once (rows in parallel). Chosen
//!   when `n ≤ FULL_MATRIX_MAX_ROWS` (4000 rows = 128 MB of `f64`). Every grid point of a path
//!   reads the same matrix, so the `O(n² d)` kernel work is done once per training set.
//! - [`KernelCache::Lru`]: a least-recently-used cache of whole rows within a memory budget
//!   (LIBSVM's design). Rows are computed in full (LIBSVM computes only the active prefix of a
//!   row after shrinking; we do not permute indices, so a row is all `n` columns).
//!
//! The rejected alternative is LIBSVM's per-fit cache: a path over 17 values of C would then
//! recompute the same kernel rows 17 times.

use std::sync::Arc;

use rayon::prelude::*;

use crate::Par;
use crate::family::numerics::kernel::Kernel;

/// Largest training set whose kernel matrix is stored in full.
pub(crate) const FULL_MATRIX_MAX_ROWS: usize = 4000;
/// Memory budget of the LRU row cache (bytes).
pub(crate) const LRU_BUDGET_BYTES: usize = 256 << 20;

/// Row-major points (`n × d`) and the kernel.
#[derive(Clone, Debug)]
pub(crate) struct Points {
    pub x: Vec<f64>,
    pub d: usize,
    pub kernel: Kernel,
}

impl Points {
    pub fn len(&self) -> usize {
        self.x.len().checked_div(self.d).unwrap_or(0)
    }
    pub fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.d..(i + 1) * self.d]
    }
    /// γ of the Gaussian kernel (the SVMs' points always carry one: they are built with
    /// [`Kernel::rbf`]).
    pub fn gamma(&self) -> f64 {
        self.kernel.gamma().unwrap_or(f64::NAN)
    }
    fn fill_row(&self, i: usize, out: &mut [f64]) {
        self.kernel.eval_rows(self.row(i), &self.x, self.d, out);
    }
    /// `out[j − i] = k(x_i, x_j)` for `j ≥ i`: row i of the matrix from the diagonal on.
    fn fill_upper_row(&self, i: usize, out: &mut [f64]) {
        self.kernel.eval_rows(self.row(i), &self.x[i * self.d..], self.d, out);
    }
}

/// Kernel rows of a training set, by position. `load` makes a row available and returns a
/// handle; `row(handle)` reads it. Loading row `j` never evicts the most recently loaded row, so
/// two rows can be read together after two loads.
pub(crate) enum KernelCache {
    /// The full matrix, row-major (shared read-only between the one-vs-one pairs of a
    /// training set, see [`KernelCache::share`]).
    Full { n: usize, k: Arc<Vec<f64>> },
    /// An LRU cache of rows.
    Lru(LruRows),
}

impl KernelCache {
    /// The cache suited to the size of `points` (full matrix up to [`FULL_MATRIX_MAX_ROWS`],
    /// its rows computed with parallelism `par`).
    pub fn new(points: Points, par: Par) -> Self {
        Self::with_limit(points, FULL_MATRIX_MAX_ROWS, LRU_BUDGET_BYTES, par)
    }

    /// As [`KernelCache::new`] with explicit limits (tests force the LRU path with them).
    pub fn with_limit(points: Points, full_max_rows: usize, budget_bytes: usize, par: Par) -> Self {
        let n = points.len();
        if n <= full_max_rows {
            // the upper triangle (rows in parallel), then its mirror image: the Gaussian kernel is
            // symmetric bit for bit (`(a − b)² = (b − a)²`, summed in the same feature order), so
            // half the exponentials give the same matrix as all of them
            let mut k = vec![0.0; n * n];
            k.par_chunks_mut(n.max(1))
                .with_min_len(par.min_len(n))
                .enumerate()
                .for_each(|(i, row)| points.fill_upper_row(i, &mut row[i..]));
            for i in 1..n {
                let (done, rest) = k.split_at_mut(i * n);
                rest[..i].iter_mut().zip(done.iter().skip(i).step_by(n)).for_each(|(out, &v)| *out = v);
            }
            KernelCache::Full { n, k: Arc::new(k) }
        } else {
            let capacity = (budget_bytes / (8 * n.max(1))).clamp(2, n.max(2));
            KernelCache::Lru(LruRows::new(points, capacity))
        }
    }

    /// The full matrix of the points `rows` (positions into this cache's points), copied out of
    /// this full matrix without evaluating the kernel (the one-vs-one pairs of a training set
    /// solve on sub-blocks of one matrix, each read contiguously); `None` for an LRU cache.
    pub fn sub_block(&self, rows: &[usize]) -> Option<KernelCache> {
        match self {
            KernelCache::Full { n, k } => {
                let mut sub = Vec::with_capacity(rows.len() * rows.len());
                for &i in rows {
                    let row = &k[i * n..(i + 1) * n];
                    sub.extend(rows.iter().map(|&j| row[j]));
                }
                Some(KernelCache::Full { n: rows.len(), k: Arc::new(sub) })
            }
            KernelCache::Lru(_) => None,
        }
    }

    /// Makes row `i` available; returns its handle.
    #[inline]
    pub fn load(&mut self, i: usize) -> usize {
        match self {
            KernelCache::Full { .. } => i,
            KernelCache::Lru(c) => c.load(i),
        }
    }

    /// The row behind `handle` (from [`KernelCache::load`]).
    #[inline]
    pub fn row(&self, handle: usize) -> &[f64] {
        match self {
            KernelCache::Full { n, k } => &k[handle * n..(handle + 1) * n],
            KernelCache::Lru(c) => &c.slots[handle],
        }
    }
}

/// Rows cached in `capacity` slots; the least recently used slot is recycled.
pub(crate) struct LruRows {
    points: Points,
    slots: Vec<Vec<f64>>,
    owner: Vec<usize>,
    last_used: Vec<u64>,
    slot_of: Vec<usize>,
    clock: u64,
    capacity: usize,
}

impl LruRows {
    fn new(points: Points, capacity: usize) -> Self {
        let n = points.len();
        Self { points, slots: Vec::new(), owner: Vec::new(), last_used: Vec::new(), slot_of: vec![usize::MAX; n], clock: 0, capacity }
    }

    fn load(&mut self, i: usize) -> usize {
        self.clock += 1;
        let s = self.slot_of[i];
        if s != usize::MAX {
            self.last_used[s] = self.clock;
            return s;
        }
        let n = self.points.len();
        let s = if self.slots.len() < self.capacity {
            self.slots.push(vec![0.0; n]);
            self.owner.push(i);
            self.last_used.push(0);
            self.slots.len() - 1
        } else {
            // capacity ≥ 2 and the most recent row has the largest stamp, so it is never evicted here
            let s = (0..self.slots.len()).min_by_key(|&s| self.last_used[s]).unwrap_or(0);
            self.slot_of[self.owner[s]] = usize::MAX;
            self.owner[s] = i;
            s
        };
        self.points.fill_row(i, &mut self.slots[s]);
        self.slot_of[i] = s;
        self.last_used[s] = self.clock;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_rows_equal_full_rows() {
        let x: Vec<f64> = (0..50).map(|i| ((i * 7) % 13) as f64 * 0.3).collect();
        let pts = Points { x, d: 2, kernel: Kernel::rbf(0.7).unwrap() };
        let mut full = KernelCache::with_limit(pts.clone(), 100, 0, Par::Seq);
        let mut lru = KernelCache::with_limit(pts, 0, 8 * 25 * 3, Par::Seq); // 3 rows
        for &(i, j) in &[(0, 1), (2, 3), (0, 4), (24, 0), (1, 1), (5, 24)] {
            let (a, b) = (lru.load(i), lru.load(j));
            let (fa, fb) = (full.load(i), full.load(j));
            assert_eq!(lru.row(a), full.row(fa));
            assert_eq!(lru.row(b), full.row(fb));
        }
        assert!((full.row(3)[3] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn full_matrix_is_every_entry_evaluated_and_sub_blocks_copy_it() {
        let x: Vec<f64> = (0..39).map(|i| ((i * 5) % 11) as f64 * 0.4 - 1.0).collect();
        let pts = Points { x, d: 3, kernel: Kernel::rbf(0.3).unwrap() };
        let mut full = KernelCache::with_limit(pts.clone(), 100, 0, Par::Seq);
        for i in 0..13 {
            let h = full.load(i);
            for j in 0..13 {
                assert_eq!(full.row(h)[j].to_bits(), pts.kernel.eval(pts.row(i), pts.row(j)).to_bits(), "({i}, {j})");
            }
        }
        let rows = [1, 4, 5, 11];
        let mut sub = full.sub_block(&rows).unwrap();
        for (a, &i) in rows.iter().enumerate() {
            let h = sub.load(a);
            let want: Vec<f64> = rows.iter().map(|&j| pts.kernel.eval(pts.row(i), pts.row(j))).collect();
            assert_eq!(sub.row(h), want.as_slice());
        }
        assert!(KernelCache::with_limit(pts, 0, 8 * 13 * 3, Par::Seq).sub_block(&rows).is_none());
    }
}
