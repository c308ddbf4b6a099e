//! The data permuted once into chunk order, so that chunks `Z_a..Z_b` are one contiguous slice.
//!
//! Rejected alternative: index lists per chunk (a gather per point per update). TreeCV feeds
//! every point `⌈log2 k⌉` times; one permutation copy up front makes every one of those feeds a
//! sequential read of row-major memory.

use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::error::{Error, Result};
use crate::incremental::{Incremental, Rows};
use crate::resample::shuffle as shuffle_rows;
use crate::seed::{Purpose, Seed};

/// How [`ChunkedData`] stores the features. Arithmetic is `f64` either way.
///
/// `F32` halves the bytes every pass reads: at small k, where TreeCV streams the whole data set
/// from DRAM a few times, that is most of the time (see `docs/benchmarks/treecv.md`). The result
/// is then exactly the `F64` result on the data rounded to `f32` (each value to the nearest
/// `f32`, relative change ≤ 2^−24 ≈ 6e-8 for |v| ≥ 1.2e-38, absolute change ≤ 1.4e-45 below),
/// not the result on the original data. A value beyond `f32`'s range (|v| > 3.4e38) would become
/// infinite: [`ChunkedData::with_storage`] refuses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Storage {
    /// The values as given (the default).
    #[default]
    F64,
    /// Each value rounded to the nearest `f32`.
    F32,
}

#[derive(Clone, Debug)]
enum Features {
    F64(Vec<f64>),
    F32(Vec<f32>),
}

/// A contiguous run of chunks, in the storage's element type; the learner calls dispatch on it.
#[derive(Clone, Copy, Debug)]
pub enum ChunkRows<'a> {
    /// `f64` storage.
    F64(Rows<'a>),
    /// `f32` storage.
    F32(Rows<'a, f32>),
}

impl ChunkRows<'_> {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Self::F64(r) => r.len(),
            Self::F32(r) => r.len(),
        }
    }
    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// [`Incremental::update`] (or its `f32` form) on these rows.
    #[inline]
    pub fn update<L: Incremental>(&self, learner: &L, model: &mut L::Model) {
        match *self {
            Self::F64(r) => learner.update(model, r),
            Self::F32(r) => learner.update_f32(model, r),
        }
    }
    /// [`Incremental::update_in_order`] (or its `f32` form) on these rows.
    #[inline]
    pub fn update_in_order<L: Incremental>(&self, learner: &L, model: &mut L::Model, order: &[u32]) {
        match *self {
            Self::F64(r) => learner.update_in_order(model, r, order),
            Self::F32(r) => learner.update_in_order_f32(model, r, order),
        }
    }
    /// [`Incremental::loss_sum`] (or its `f32` form) on these rows.
    #[inline]
    pub fn loss_sum<L: Incremental>(&self, learner: &L, model: &L::Model) -> f64 {
        match *self {
            Self::F64(r) => learner.loss_sum(model, r),
            Self::F32(r) => learner.loss_sum_f32(model, r),
        }
    }
}

/// The rows of each of k chunks as [`ChunkedData::new`] makes them: V-fold's block sizes (the
/// first `n mod k` blocks get one extra row) over the rows in file order, or shuffled by
/// `shuffle`'s split stream; rows ascending within a chunk.
///
/// # Errors
/// [`Error::InvalidParameter`] when k < 2; [`Error::TooFewRows`] when k > n.
pub fn chunk_rows(n: usize, n_chunks: usize, shuffle: Option<Seed>) -> Result<Vec<Vec<usize>>> {
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
    let (base, extra) = (n / n_chunks, n % n_chunks);
    let mut start = 0;
    Ok((0..n_chunks)
        .map(|j| {
            let len = base + usize::from(j < extra);
            start += len;
            let mut block = order[start - len..start].to_vec();
            block.sort_unstable();
            block
        })
        .collect())
}

/// Features and prepared targets in chunk order, with the chunk boundaries.
///
/// Invariants: `offsets[0] = 0`, `offsets[k] = n`, strictly increasing (no empty chunk),
/// `2 ≤ k ≤ n`; `original_rows[p]` is the data row stored at position `p`.
#[derive(Clone, Debug)]
pub struct ChunkedData {
    x: Features,
    y: Vec<f64>,
    n_features: usize,
    offsets: Vec<usize>,
    original_rows: Vec<usize>,
    feature_names: Vec<String>,
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
    /// [`Error::InvalidParameter`] when k < 2; [`Error::TooFewRows`] when k > n;
    /// [`Error::Unsupported`] for categorical columns (incremental learners read numbers);
    /// [`Error::InvalidParameter`] (`missing`) for missing feature values (they do not impute);
    /// the learner's target or feature errors.
    pub fn new<L: Incremental>(learner: &L, data: &Dataset, n_chunks: usize, shuffle: Option<Seed>) -> Result<Self> {
        Self::from_chunks(learner, data, &chunk_rows(data.n_rows(), n_chunks, shuffle)?)
    }

    /// Chunks given by the caller (any sizes, each row at most once; rows in no chunk are unused).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than 2 chunks or a row out of range or repeated;
    /// [`Error::InvalidSplit`] naming an empty chunk; [`Error::NoFeatures`]; the learner's target or
    /// feature errors.
    pub fn from_chunks<L: Incremental>(learner: &L, data: &Dataset, chunks: &[Vec<usize>]) -> Result<Self> {
        if chunks.len() < 2 {
            return Err(Error::invalid("folds", "at least 2", chunks.len()));
        }
        Self::gather(learner, data, chunks)
    }

    /// A block of consecutive chunks of a larger run, as a worker of distributed TreeCV holds it:
    /// the rows of `data` in order, cut into chunks of `sizes` (one chunk or more).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the sizes do not add up to the rows; [`Error::InvalidSplit`]
    /// naming an empty chunk; the learner's target or feature errors.
    pub fn block<L: Incremental>(learner: &L, data: &Dataset, sizes: &[usize]) -> Result<Self> {
        if sizes.is_empty() || sizes.iter().sum::<usize>() != data.n_rows() {
            return Err(Error::invalid(
                "chunk sizes",
                "at least one chunk, sizes adding up to the rows",
                format!("{sizes:?} for {} rows", data.n_rows()),
            ));
        }
        let mut start = 0;
        let chunks: Vec<Vec<usize>> = sizes
            .iter()
            .map(|&len| {
                start += len;
                (start - len..start).collect()
            })
            .collect();
        Self::gather(learner, data, &chunks)
    }

    fn gather<L: Incremental>(learner: &L, data: &Dataset, chunks: &[Vec<usize>]) -> Result<Self> {
        data.check_numeric("TreeCV")?;
        if data.has_missing() {
            return Err(Error::invalid(
                "missing",
                "error or drop with TreeCV (its learners do not impute)",
                "data with missing feature values",
            ));
        }
        data.check_has_features()?;
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
        learner.check_features(Rows::from_parts(&x, &y, d))?;
        Ok(Self { x: Features::F64(x), y, n_features: d, offsets, original_rows, feature_names: data.feature_names().to_vec() })
    }

    /// The same chunks with the features stored as `storage` says (see [`Storage`]).
    ///
    /// ```
    /// use agghoo::{Seed, data::generators, incremental::Pegasos, treecv::{ChunkedData, Storage}};
    /// let data = generators::covertype_like(100, Seed(1))?;
    /// let chunks = ChunkedData::new(&Pegasos::new(0.1)?, &data, 4, None)?.with_storage(Storage::F32)?;
    /// assert_eq!(chunks.storage(), Storage::F32);
    /// # Ok::<(), agghoo::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] naming the row, column and value of the first feature value that
    /// `f32` cannot hold (it would round to ±∞ and every loss after it would be meaningless).
    pub fn with_storage(self, storage: Storage) -> Result<Self> {
        let x = match (&self.x, storage) {
            (Features::F64(x), Storage::F32) => {
                let rounded: Vec<f32> = x.iter().map(|&v| v as f32).collect();
                if let Some(pos) = rounded.iter().position(|v| v.is_infinite()) {
                    let d = self.n_features.max(1);
                    return Err(Error::OutOfRange {
                        row: self.original_rows[pos / d],
                        column: self.feature_names.get(pos % d).cloned().unwrap_or_default(),
                        value: x[pos],
                        storage: "f32 (±3.4e38)",
                    });
                }
                Features::F32(rounded)
            }
            (Features::F32(x), Storage::F64) => Features::F64(x.iter().map(|&v| f64::from(v)).collect()),
            _ => return Ok(self),
        };
        Ok(Self { x, ..self })
    }

    /// How the features are stored.
    pub fn storage(&self) -> Storage {
        match self.x {
            Features::F64(_) => Storage::F64,
            Features::F32(_) => Storage::F32,
        }
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
    pub fn chunk(&self, j: usize) -> ChunkRows<'_> {
        self.chunk_range(j, j)
    }
    /// Chunks `Z_a..Z_b` (inclusive) as one contiguous run of rows.
    pub fn chunk_range(&self, a: usize, b: usize) -> ChunkRows<'_> {
        let (lo, hi) = (self.offsets[a], self.offsets[b + 1]);
        let (d, y) = (self.n_features, &self.y[lo..hi]);
        match &self.x {
            Features::F64(x) => ChunkRows::F64(Rows::from_parts(&x[lo * d..hi * d], y, d)),
            Features::F32(x) => ChunkRows::F32(Rows::from_parts(&x[lo * d..hi * d], y, d)),
        }
    }
    pub(crate) fn range_len(&self, a: usize, b: usize) -> usize {
        self.offsets[b + 1] - self.offsets[a]
    }
    pub(crate) fn offset(&self, j: usize) -> usize {
        self.offsets[j]
    }
}
