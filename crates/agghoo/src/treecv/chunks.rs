//! The data permuted once into chunk order, so that chunks `Z_a..Z_b` are one contiguous slice.
//!
//! Rejected alternative: index lists per chunk (a gather per point per update). TreeCV feeds
//! every point `⌈log2 k⌉` times; one permutation copy up front makes every one of those feeds a
//! sequential read of row-major memory.

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::incremental::{Incremental, Rows};
use crate::resample::shuffle as shuffle_rows;
use crate::seed::{Purpose, Seed};

/// Features and prepared targets in chunk order, with the chunk boundaries.
///
/// Invariants: `offsets[0] = 0`, `offsets[k] = n`, strictly increasing (no empty chunk),
/// `2 ≤ k ≤ n`; `original_rows[p]` is the data row stored at position `p`.
#[derive(Clone, Debug)]
pub struct ChunkedData {
    x: Vec<f64>,
    y: Vec<f64>,
    n_features: usize,
    offsets: Vec<usize>,
    original_rows: Vec<usize>,
}

impl ChunkedData {
    /// k chunks of sizes as V-fold's (the first `n mod k` get one extra row), of the rows in
    /// file order (`shuffle = None`) or shuffled by `shuffle`'s split stream — the same blocks
    /// as [`VFold`](crate::resample::VFold) draws with that seed.
    ///
    /// ```
    /// use agghoo::{Seed, data::generators, incremental::Pegasos, treecv::ChunkedData};
    /// let data = generators::covertype_like(10, Seed(1))?;
    /// let chunks = ChunkedData::new(&Pegasos::new(0.1)?, &data, 3, None)?;
    /// assert_eq!((0..3).map(|j| chunks.chunk_len(j)).collect::<Vec<_>>(), [4, 3, 3]);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when k < 2; [`Error::TooFewRows`] when k > n; the learner's
    /// target or feature errors.
    pub fn new<L: Incremental>(learner: &L, data: &Dataset, n_chunks: usize, shuffle: Option<Seed>) -> Result<Self> {
        let n = data.n_rows();
        if n_chunks < 2 {
            return Err(Error::invalid("folds", "at least 2", n_chunks));
        }
        if n_chunks > n {
            return Err(Error::TooFewRows { what: format!("{n_chunks}-fold TreeCV"), needed: n_chunks, found: n });
        }
        let mut order: Vec<usize> = (0..n).collect();
        if let Some(seed) = shuffle {
            shuffle_rows(&mut order, &mut seed.rng(Purpose::Splits, 0));
        }
        // VFold's rule: the first n mod k blocks get one extra row; rows ascending within a block.
        let (base, extra) = (n / n_chunks, n % n_chunks);
        let mut start = 0;
        let chunks: Vec<Vec<usize>> = (0..n_chunks)
            .map(|j| {
                let len = base + usize::from(j < extra);
                start += len;
                let mut block = order[start - len..start].to_vec();
                block.sort_unstable();
                block
            })
            .collect();
        Self::from_chunks(learner, data, &chunks)
    }

    /// Chunks given by the caller (any sizes, each row at most once; rows in no chunk are unused).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than 2 chunks or a row out of range or repeated;
    /// [`Error::InvalidSplit`] naming an empty chunk; the learner's target or feature errors.
    pub fn from_chunks<L: Incremental>(learner: &L, data: &Dataset, chunks: &[Vec<usize>]) -> Result<Self> {
        if chunks.len() < 2 {
            return Err(Error::invalid("folds", "at least 2", chunks.len()));
        }
        if let Some(j) = chunks.iter().position(|c| c.is_empty()) {
            return Err(Error::InvalidSplit { split: j, reason: "empty chunk".into() });
        }
        let n = data.n_rows();
        let mut seen = vec![false; n];
        for &r in chunks.iter().flatten() {
            if r >= n || seen[r] {
                return Err(Error::invalid("chunks", "distinct rows below n", r));
            }
            seen[r] = true;
        }
        let target = learner.prepare_target(data.target())?;
        let d = data.n_features();
        let total: usize = chunks.iter().map(Vec::len).sum();
        let mut x = Vec::with_capacity(total * d);
        let mut y = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(chunks.len() + 1);
        let mut original_rows = Vec::with_capacity(total);
        offsets.push(0);
        for chunk in chunks {
            for &r in chunk {
                x.extend_from_slice(data.row(r));
                y.push(target[r]);
                original_rows.push(r);
            }
            offsets.push(y.len());
        }
        let out = Self { x, y, n_features: d, offsets, original_rows };
        learner.check_features(out.chunk_range(0, out.n_chunks() - 1))?;
        Ok(out)
    }

    /// Number of chunks k.
    pub fn n_chunks(&self) -> usize {
        self.offsets.len() - 1
    }
    /// Number of rows n (in chunks).
    pub fn n_rows(&self) -> usize {
        self.y.len()
    }
    /// Number of features d.
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// `|Z_j|`.
    pub fn chunk_len(&self, j: usize) -> usize {
        self.offsets[j + 1] - self.offsets[j]
    }
    /// The data row stored at each position, in chunk order.
    pub fn original_rows(&self) -> &[usize] {
        &self.original_rows
    }
    /// Chunk `Z_j` as rows.
    pub fn chunk(&self, j: usize) -> Rows<'_> {
        self.chunk_range(j, j)
    }
    /// Chunks `Z_a..Z_b` (inclusive) as one contiguous run of rows.
    pub fn chunk_range(&self, a: usize, b: usize) -> Rows<'_> {
        let (lo, hi) = (self.offsets[a], self.offsets[b + 1]);
        Rows::from_parts(&self.x[lo * self.n_features..hi * self.n_features], &self.y[lo..hi], self.n_features)
    }
    pub(crate) fn range_len(&self, a: usize, b: usize) -> usize {
        self.offsets[b + 1] - self.offsets[a]
    }
    pub(crate) fn offset(&self, j: usize) -> usize {
        self.offsets[j]
    }
}
