//! k-nearest neighbours, classification and regression; the grid is k (ascending).
//!
//! Path evaluation: one neighbour search per validation point, up to `k_max`, serves every k of
//! the grid: regression reads prefix sums of the neighbours' targets, classification updates vote
//! counts as k grows. The naive alternative searches once per k.
//!
//! Sharing across splits: when the family is evaluated on splits of the data set it was built
//! for (small n), each row's neighbours among *all* rows are sorted once, lazily, and every split
//! filters that list by training membership — a row validated in several splits is sorted once.
//! Only a prefix is sorted (about `k_max · n / n_train` entries with a margin, by a linear-time
//! bucket selection); a split whose training rows are too rare in it reads on into the full list.
//! The order is the same as a fresh search over the training view, so results do not change
//! (a test checks it); with per-split preprocessing (`--standardize`) distances differ per split
//! and the per-split search is used. Large data sets share a bounded table instead (every row's
//! list to one length, computed by blocks of rows, kept within the memory limit and otherwise
//! computed per split block by block; a row that runs past its list is searched per split): see
//! `README.md` beside this file for the layout, the memory budget and the rule that picks the
//! search (k-d tree, brute force, or blocked matrix products).
//!
//! Deterministic tie rules:
//! - distance ties: the neighbour with the lower row index in the training data comes first
//!   (training rows are stored in ascending row order; a saved model keeps that order);
//! - vote ties: among the classes with the most votes, the one whose nearest member is closest
//!   (appears first in the neighbour list). With k = 1 this is the nearest neighbour's class.
//!
//! Soft outputs: class probabilities are the vote fractions among the k neighbours.
//!
//! Sample weights ([`crate::data::Dataset::with_weights`]): the neighbours are still the k nearest
//! *rows* (the search and the shared lists are unweighted); each votes with its weight (times
//! `1 / distance` for [`Weights::Distance`]): the winning class has the largest sum of weights
//! (ties as above, among neighbours of positive weight), the probabilities are the weighted vote
//! fractions and a regression prediction is `Σ wⱼ yⱼ / Σ wⱼ`. A neighbourhood whose weights are
//! all 0 votes as without weights. So scaling every weight by one constant changes nothing, unit
//! weights are no weights (bit for bit), but an integer weight is **not** the row repeated: k
//! counts rows, and a repeated row would fill several of the k places.
//!
//! Selection needs only the risk curves: [`FittedPath::risks`] computes the 0–1 risk (or any
//! regression loss) from the winning classes directly, without building probability vectors.

mod config;
mod gemm;
mod lanes;
mod model;
mod neighbors;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub(crate) use self::config::KNN;
pub use self::config::KnnConfig;
use self::gemm::{GemmPoints, QUERY_BLOCK};
pub use self::model::KnnModel;
use self::model::check_scale;
use self::neighbors::{NeighborIndex, Scratch, Strategy, by_column, distances_by_column, sort_by_distance, spatial_order};
use super::{Family, FittedPath, Grid, Model, Scale, SmootherPath};
use crate::Par;
use crate::data::{Dataset, Task, View};
use crate::error::{Error, Result};
use crate::loss::Loss;
use crate::predictions::{PathPredictions, Predictions};

/// The k-NN family: Euclidean distance on the (optionally standardised) features.
#[derive(Clone, Debug)]
pub struct KnnFamily {
    grid: Grid,
    task: Task,
    n_classes: usize,
    shared: Option<Arc<SharedNeighbors>>,
    weights: Weights,
}

/// How the k neighbours vote (`--param weights=…`, or a grid axis `--grid weights=uniform,distance`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Weights {
    /// Each neighbour counts once (the default).
    #[default]
    Uniform,
    /// Each neighbour counts `1 / distance` (scikit-learn's `weights="distance"`): when some of the
    /// k neighbours are at distance 0, only those count, once each. Class probabilities are the
    /// weighted vote fractions; a regression prediction is the weighted mean.
    Distance,
}

impl Weights {
    /// Parses `uniform` or `distance`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another value.
    pub fn parse(text: &str) -> Result<Self> {
        match text.trim() {
            "uniform" => Ok(Weights::Uniform),
            "distance" => Ok(Weights::Distance),
            other => Err(Error::invalid("weights", "uniform or distance", other)),
        }
    }
    fn is_uniform(&self) -> bool {
        *self == Weights::Uniform
    }
}

/// How many of a row's nearest candidates hold `kmax` training rows but for one row in 10⁹ or
/// fewer, when `n_train` of the `candidates` rows train: the smallest w with
/// `P(Binomial(w, p) < kmax) ≤ 10⁻⁹`, `p = n_train / candidates` (at most `candidates`). A split
/// drawn without replacement makes the count among w candidates hypergeometric, whose tails are
/// lighter than the binomial's: the rate is an upper bound there. A row whose list falls short
/// reads on (per-row lists) or is searched in the split's training rows (the table): the answer
/// never depends on the width, only the time does. At τ = 0.8 and kmax = 199: 305 entries.
fn shared_width(kmax: usize, n_train: usize, candidates: usize) -> usize {
    if kmax == 0 || n_train >= candidates {
        return kmax.min(candidates);
    }
    let p = n_train as f64 / candidates as f64;
    // ln P(Binomial(w, p) < kmax): the terms' logarithms by their ratio, summed relative to the
    // largest so far (no underflow however small the terms).
    let log_tail = |w: usize| {
        let (ln_p, ln_q) = (p.ln(), (-p).ln_1p());
        let (mut term, mut top, mut sum) = (w as f64 * ln_q, f64::NEG_INFINITY, 0.0);
        for i in 0..kmax.min(w + 1) {
            if term > top {
                sum = sum * (top - term).exp() + 1.0;
                top = term;
            } else {
                sum += (term - top).exp();
            }
            term += ((w - i) as f64).ln() - ((i + 1) as f64).ln() + ln_p - ln_q;
        }
        top + sum.ln()
    };
    let target = 1e-9f64.ln();
    // The tail falls as w grows: bisect between kmax (tail 1 unless p = 1) and the candidates.
    let (mut lo, mut hi) = (kmax, candidates);
    if log_tail(hi) > target {
        return candidates;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if log_tail(mid) <= target { hi = mid } else { lo = mid }
    }
    hi
}

/// Data sets up to this many rows get per-row shared neighbour lists, each computed on first use
/// and extended to the full list when needed (n² `u32`: 64 MiB at most).
const SHARED_MAX_ROWS: usize = 4096;

/// The bytes the shared table may hold (larger data sets share a table of every row's nearest
/// candidates, all of one length, [`shared_width`]: 305 entries of 4 bytes per row at k_max = 199
/// and τ = 0.8, 122 MB for 100 000 rows): what the memory limit in force (`--max-memory`,
/// [`Limits::max_memory`](crate::limits::Limits)) leaves after the rest of the run, counted as
///
/// - six copies of the data (`rows × (d + 1)` doubles: the data set, the family's copy, and the
///   table's search — the points in its order, centred by block in double and single precision,
///   their norms and sample — and its order and ranks), and
/// - per thread, one split in flight: its training rows' copy (`n_train × (d + 1)` doubles), its
///   membership (6 bytes per row) and its validation rows' path values (`n_validation × grid`
///   doubles, with a 4-byte vote count per class).
///
/// Blocks of [`QUERY_BLOCK`] rows beyond the budget are not kept: each split computes the lists
/// of its own validation rows there, block by block, and frees each block once consumed
/// ([`KnnPath::values`]).
fn table_budget(max_memory: u64, rows: usize, d: usize, threads: usize, split: SplitSize) -> usize {
    let doubles = |rows: usize| (rows as u128).saturating_mul(d as u128 + 1).saturating_mul(8);
    let per_split = doubles(split.n_train)
        .saturating_add(rows as u128 * 6)
        .saturating_add((split.n_validation as u128).saturating_mul(split.grid as u128).saturating_mul(8 + 4 * split.classes as u128));
    let rest = doubles(rows).saturating_mul(6).saturating_add(per_split.saturating_mul(threads as u128));
    usize::try_from(u128::from(max_memory).saturating_sub(rest)).unwrap_or(usize::MAX)
}

/// What one split in flight holds besides the shared table (see [`table_budget`]).
#[derive(Clone, Copy, Debug)]
struct SplitSize {
    n_train: usize,
    n_validation: usize,
    grid: usize,
    classes: usize,
}

/// Every row's neighbours among the first `candidates` rows of one data set (all rows unless
/// [`KnnFamily::sharing_with_first`] said otherwise), sorted by (distance, row index), computed on
/// first use. Results never depend on which caller came first: every list is a prefix of the same
/// exact order, and a caller that runs past a list's end continues exactly (see [`Lists`]).
struct SharedNeighbors {
    uid: u64,
    candidates: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    d: usize,
    lists: Lists,
    /// Rows whose table list ran short and were searched per split instead.
    fallbacks: std::sync::atomic::AtomicUsize,
    /// The table's budget in bytes in place of [`table_budget`]'s (tests force the blocks).
    budget: Option<usize>,
    /// [`shared_width`]'s answers so far, by `(kmax, n_train)`: every split of a plan asks for
    /// the same one, and the binomial tail's bisection costs more than a small split's search.
    widths: std::sync::Mutex<Vec<((usize, usize), usize)>>,
}

/// The two ways of keeping shared lists.
enum Lists {
    /// Small data: each row's list on first use, a prefix long enough for the first caller, and
    /// the whole list if a later caller runs past it.
    PerRow { columns: Vec<f64>, prefix: Vec<OnceLock<Box<[u32]>>>, full: Vec<OnceLock<Box<[u32]>>> },
    /// Large data: blocks of [`QUERY_BLOCK`] rows consecutive in the table's order (a spatial
    /// order for the product search, see [`TableIndex`]), each block's lists computed at once on
    /// first use, to the length its first caller wants; a caller that runs past a list searches
    /// that row per split. A block is computed sequentially by one thread (no nested parallelism
    /// under a lock); a large validation set has every block computed first, in parallel
    /// ([`SharedNeighbors::fill_table`]).
    Table {
        index: OnceLock<Box<TableIndex>>,
        /// The lists' width and the blocks kept within the budget, set by the first caller.
        shape: OnceLock<TableShape>,
        blocks: Vec<OnceLock<TableBlock>>,
        /// The next block [`SharedNeighbors::fill_table`] hands a thread.
        next: AtomicUsize,
    },
}

/// The table's width (entries per row) and how many of its first blocks are kept: those whose
/// lists fit the budget ([`table_budget`]); the rows of the others are computed per split.
#[derive(Clone, Copy, Debug)]
struct TableShape {
    width: usize,
    kept: usize,
}

/// The table's search, and the order of its rows: block b holds the rows `order[32 b..32 (b + 1)]`.
struct TableIndex {
    search: TableSearch,
    order: Vec<u32>,
    /// `rank[row]`: the row's place in `order`.
    rank: Vec<u32>,
}

/// How a table block is computed.
enum TableSearch {
    /// Blocked products over the candidates in a spatial order (rows in the same order, so a
    /// block's queries start with the points around them: a tight threshold early).
    Products(GemmPoints),
    /// The search [`Strategy::choose`] picks otherwise, rows in their natural order.
    Other(NeighborIndex),
}

impl TableIndex {
    fn new(x: &[f64], d: usize, candidates: usize) -> Self {
        let n = x.len().checked_div(d).unwrap_or(0);
        let points = &x[..candidates * d];
        let (search, order) = if Strategy::for_table(candidates, d) == Strategy::Gemm {
            let mut order = spatial_order(points, d, candidates);
            let search = TableSearch::Products(GemmPoints::in_order(points, d, order.clone()));
            order.extend(candidates as u32..n as u32);
            (search, order)
        } else {
            (TableSearch::Other(NeighborIndex::new(points.to_vec(), d)), scattered_order(n))
        };
        let mut rank = vec![0u32; n];
        order.iter().enumerate().for_each(|(p, &row)| rank[row as usize] = p as u32);
        Self { search, order, rank }
    }
}

/// A fixed permutation of `0..n` that scatters neighbouring rows over different table blocks:
/// position `p` holds row `p · a mod n`, with `a` ≈ 0.618 n coprime to n. Why: splits evaluated in
/// parallel each walk their validation rows in ascending order; with blocks of consecutive rows
/// they asked for the same blocks in the same sequence, and one thread waited while the other
/// computed each block (two threads ran no faster than one). Scattered, two splits' next blocks
/// rarely coincide. A row's list does not depend on the order, only who computes it.
fn scattered_order(n: usize) -> Vec<u32> {
    fn gcd(a: usize, b: usize) -> usize {
        if b == 0 { a } else { gcd(b, a % b) }
    }
    if n < 3 {
        return (0..n as u32).collect();
    }
    let mut a = (n as f64 * 0.618_033_988_75) as usize | 1;
    while gcd(a, n) != 1 {
        a += 2;
    }
    (0..n).map(|p| ((p as u128 * a as u128) % n as u128) as u32).collect()
}

/// The lists of one block of rows, `width` entries each.
struct TableBlock {
    width: usize,
    lists: Box<[u32]>,
}

impl std::fmt::Debug for SharedNeighbors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedNeighbors").field("rows", &(self.x.len().checked_div(self.d).unwrap_or(0))).finish()
    }
}

impl SharedNeighbors {
    fn new(data: &Dataset, candidates: usize, table: bool) -> Self {
        let n = data.n_rows();
        let d = data.n_features();
        let lists = match table {
            true => Lists::Table {
                index: OnceLock::new(),
                shape: OnceLock::new(),
                blocks: (0..n.div_ceil(QUERY_BLOCK)).map(|_| OnceLock::new()).collect(),
                next: AtomicUsize::new(0),
            },
            false => Lists::PerRow {
                columns: by_column(&data.x()[..candidates * d], d, candidates),
                prefix: (0..n).map(|_| OnceLock::new()).collect(),
                full: (0..n).map(|_| OnceLock::new()).collect(),
            },
        };
        Self {
            uid: data.uid(),
            candidates,
            x: data.x().to_vec(),
            y: data.all().gather_y(),
            d,
            lists,
            fallbacks: std::sync::atomic::AtomicUsize::new(0),
            budget: None,
            widths: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// [`shared_width`] among these candidates, computed once per `(kmax, n_train)`.
    fn width(&self, kmax: usize, n_train: usize) -> usize {
        let known = |widths: &[((usize, usize), usize)]| widths.iter().find(|(key, _)| *key == (kmax, n_train)).map(|&(_, w)| w);
        if let Some(w) = self.widths.lock().ok().and_then(|widths| known(&widths)) {
            return w;
        }
        let w = shared_width(kmax, n_train, self.candidates);
        if let Ok(mut widths) = self.widths.lock() {
            widths.push(((kmax, n_train), w));
        }
        w
    }

    fn rows(&self) -> usize {
        self.x.len().checked_div(self.d).unwrap_or(0)
    }

    /// The table's search and order (built on first use); `None` for per-row lists.
    fn table_index(&self) -> Option<&TableIndex> {
        let Lists::Table { index, .. } = &self.lists else { return None };
        Some(self.init_index(index))
    }

    fn init_index<'s>(&self, index: &'s OnceLock<Box<TableIndex>>) -> &'s TableIndex {
        index.get_or_init(|| Box::new(TableIndex::new(&self.x, self.d, self.candidates)))
    }

    /// The table's shape, set by the first caller: lists of `want` entries (at most the
    /// candidates), as many blocks kept as the budget holds when that caller's split is `split`
    /// (`None`: counted as empty).
    fn table_shape(&self, want: usize, split: Option<SplitSize>) -> Option<TableShape> {
        let Lists::Table { shape, blocks, .. } = &self.lists else { return None };
        Some(*shape.get_or_init(|| {
            let width = want.min(self.candidates);
            let budget = self.budget.unwrap_or_else(|| {
                let max_memory = crate::limits::Limits::global().max_memory;
                let split = split.unwrap_or(SplitSize { n_train: 0, n_validation: 0, grid: 0, classes: 0 });
                table_budget(max_memory, self.rows(), self.d, Par::pool().n_threads(), split)
            });
            let block_bytes = (QUERY_BLOCK * width * size_of::<u32>()).max(1);
            TableShape { width, kept: (budget / block_bytes).min(blocks.len()) }
        }))
    }

    /// Row `row`'s nearest candidates in order: the first `want` of them (all candidates when
    /// `want` reaches their number), or another number from the table (its width set by its
    /// first caller). A table row's block is kept once computed: callers ask for rows of the
    /// kept blocks only ([`TableShape`]).
    fn list(&self, row: usize, want: usize, scratch: &mut Scratch) -> &[u32] {
        let d = self.d;
        match &self.lists {
            Lists::PerRow { columns, prefix, full } => {
                let compute = |len: usize, scratch: &mut Scratch| {
                    let n = self.candidates;
                    let mut out = Vec::new();
                    distances_by_column(&self.x[row * d..(row + 1) * d], columns, n, 0..n, &mut scratch.dist);
                    sort_by_distance(&scratch.dist, len, &mut scratch.sort, &mut out);
                    out.into_boxed_slice()
                };
                let first = prefix[row].get_or_init(|| compute(want, scratch));
                if first.len() >= want.min(self.candidates) { first } else { full[row].get_or_init(|| compute(self.candidates, scratch)) }
            }
            Lists::Table { index, blocks, .. } => {
                let index = self.init_index(index);
                let width = self.table_shape(want, None).map_or(want, |shape| shape.width);
                let position = index.rank[row] as usize;
                let table = self.block(index, blocks, position / QUERY_BLOCK, width, scratch);
                let at = (position % QUERY_BLOCK) * table.width;
                &table.lists[at..at + table.width]
            }
        }
    }
}

impl SharedNeighbors {
    /// Row `row`'s list if it is already computed (a table row's block, or a row's first list),
    /// without computing anything.
    fn computed_list(&self, row: usize) -> Option<&[u32]> {
        match &self.lists {
            Lists::PerRow { prefix, .. } => prefix.get(row)?.get().map(|list| &list[..]),
            Lists::Table { index, blocks, .. } => {
                let position = *index.get()?.rank.get(row)? as usize;
                let table = blocks.get(position / QUERY_BLOCK)?.get()?;
                let at = (position % QUERY_BLOCK) * table.width;
                table.lists.get(at..at + table.width)
            }
        }
    }

    /// Table block `b` (rows `order[32 b..32 (b + 1)]`), computed now if no caller did before, to
    /// `width` entries per row (sequentially: no nested parallelism under the block's lock).
    fn block<'s>(
        &self,
        index: &TableIndex,
        blocks: &'s [OnceLock<TableBlock>],
        b: usize,
        width: usize,
        scratch: &mut Scratch,
    ) -> &'s TableBlock {
        blocks[b].get_or_init(|| {
            let start = b * QUERY_BLOCK;
            let end = (start + QUERY_BLOCK).min(index.order.len());
            let mut lists = Vec::new();
            self.table_lists(index, &|j| start + j, end - start, width, scratch, &mut lists);
            TableBlock { width, lists: lists.into_boxed_slice() }
        })
    }

    /// The table lists (`width` entries each, [`Lists::Table`]'s search) of the `count` rows at
    /// table positions `position(0)..position(count − 1)` (ascending), into `out`, row after row.
    /// A row's list does not depend on the rows it is computed with: a kept block and a block of
    /// a split's validation rows give it the same list.
    fn table_lists(
        &self,
        index: &TableIndex,
        position: &dyn Fn(usize) -> usize,
        count: usize,
        width: usize,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        let d = self.d;
        let rows = |j: usize| {
            let i = index.order[position(j)] as usize;
            &self.x[i * d..(i + 1) * d]
        };
        out.clear();
        match &index.search {
            TableSearch::Products(points) => {
                let near = (count > 0).then(|| position(0));
                points.nearest_block(&rows, 0..count, width, near, &mut scratch.gemm);
                scratch.gemm.block = None;
                out.extend_from_slice(&scratch.gemm.lists);
            }
            TableSearch::Other(search) => {
                let mut list = Vec::new();
                for j in 0..count {
                    search.query_row(&rows, count, j, width, scratch, &mut list);
                    out.extend_from_slice(&list);
                }
            }
        }
    }

    /// Computes every kept table block no caller has computed yet (the shape set by `want`, see
    /// [`SharedNeighbors::table_shape`]), on `par`'s threads: each thread claims the next
    /// unclaimed block (a shared counter) until none is left, so callers that arrive together
    /// (splits evaluated in parallel) share the work instead of waiting on each other's blocks. A
    /// no-op for per-row lists. The lists are those a lazy computation would give: which thread
    /// computes a block changes, its lists do not.
    fn fill_table(&self, want: usize, split: Option<SplitSize>, par: Par) {
        let Lists::Table { index, blocks, next, .. } = &self.lists else { return };
        let Some(TableShape { width, kept }) = self.table_shape(want, split) else { return };
        if next.load(Ordering::Relaxed) >= kept {
            return;
        }
        let index = self.init_index(index);
        // Claims happen outside any lock; a thread that steals other work while it waits here
        // never holds a block's lock.
        (0..par.n_threads()).into_par_iter().for_each_init(Scratch::default, |scratch, _| {
            loop {
                let b = next.fetch_add(1, Ordering::Relaxed);
                if b >= kept {
                    break;
                }
                self.block(index, blocks, b, width, scratch);
            }
        });
    }
}

impl KnnFamily {
    /// A k-NN family over the given k values (sorted ascending, deduplicated).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an empty grid or k < 1 or a non-integer k.
    pub fn new(ks: Vec<f64>, task: Task, n_classes: usize) -> Result<Self> {
        let grid = Grid::new("k", ks, Scale::Integer, true)?;
        if task == Task::Classification && n_classes < 2 {
            return Err(Error::invalid("classes", "at least 2", n_classes));
        }
        Ok(Self { grid, task, n_classes, shared: None, weights: Weights::Uniform })
    }

    /// The same family with neighbours weighted by `weights`.
    pub fn with_weights(self, weights: Weights) -> Self {
        Self { weights, ..self }
    }

    /// Shares neighbour searches across splits of `data` (see the module docs); a no-op for
    /// data with missing values.
    pub fn sharing_with(self, data: &Dataset) -> Self {
        let n = data.n_rows();
        self.sharing_with_first(data, n)
    }

    /// As [`sharing_with`](Self::sharing_with), with only the first `candidates` rows of `data`
    /// as neighbours: every row (including rows past `candidates`, e.g. test points appended
    /// after a sample) gets its list among rows `0..candidates`. Training views within those rows
    /// use the lists; others fall back to a fresh search. Up to `rows × candidates = 4096²` each
    /// row's list can grow to all candidates; above, lists have one bounded length, kept for as
    /// many blocks of rows as the memory limit allows (the other rows' lists are computed by each
    /// split that validates them, then freed). A no-op for data with missing values.
    pub fn sharing_with_first(self, data: &Dataset, candidates: usize) -> Self {
        let table = candidates.min(data.n_rows()).saturating_mul(data.n_rows()) > SHARED_MAX_ROWS * SHARED_MAX_ROWS;
        self.sharing(data, candidates, table)
    }

    fn sharing(mut self, data: &Dataset, candidates: usize, table: bool) -> Self {
        let candidates = candidates.min(data.n_rows());
        if !data.has_missing() && u32::try_from(candidates).is_ok() {
            self.shared = Some(Arc::new(SharedNeighbors::new(data, candidates, table)));
        }
        self
    }

    /// The same family over another grid of k, keeping the shared neighbour lists (a cheap way to
    /// predict a single selected k with lists already sorted for the whole grid).
    ///
    /// # Errors
    /// As [`KnnFamily::new`].
    pub fn with_grid(&self, ks: Vec<f64>) -> Result<Self> {
        Ok(Self { shared: self.shared.clone(), weights: self.weights, ..Self::new(ks, self.task, self.n_classes)? })
    }

    fn ks(&self) -> Vec<usize> {
        self.grid.values().iter().map(|&k| k as usize).collect()
    }
}

impl Family for KnnFamily {
    fn name(&self) -> &'static str {
        "knn"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn task(&self) -> Task {
        self.task
    }
    fn fit(&self, train: &View<'_>, grid_index: usize) -> Result<Model> {
        check_scale(train)?;
        let k = self.grid.value(grid_index) as usize;
        if k > train.len() {
            return Err(Error::InvalidParameter {
                name: "grid",
                expected: "k no larger than the training set",
                got: format!("k = {k} with {} rows", train.len()),
            });
        }
        Ok(Model::Knn(KnnModel { weights: self.weights, ..KnnModel::from_view(train, k, self.task, self.n_classes) }))
    }
    fn fit_path<'a>(&'a self, train: &View<'a>) -> Result<Box<dyn FittedPath + 'a>> {
        self.check_train_size(train.len())?;
        check_scale(train)?;
        let model = KnnModel { weights: self.weights, ..KnnModel::from_view(train, 0, self.task, self.n_classes) };
        let usable = |s: &&Arc<SharedNeighbors>| s.uid == train.data().uid() && train.rows().iter().all(|&r| r < s.candidates);
        let membership = self.shared.as_ref().filter(usable).map(|s| {
            let mut counts = vec![0u16; s.candidates];
            train.rows().iter().for_each(|&r| counts[r] = counts[r].saturating_add(1));
            let single = counts.iter().all(|&c| c <= 1);
            let mut rows: Vec<u32> = train.rows().iter().map(|&r| r as u32).collect();
            rows.sort_unstable();
            Membership { shared: Arc::clone(s), counts, single, rows }
        });
        Ok(Box::new(KnnPath { family: self, model, index: OnceLock::new(), membership }))
    }
    /// k-NN regression as a linear smoother: `S_m[i][j] = 1/k` for the k nearest training
    /// points j of `x_i` (row i itself included when it is among them, by the distance-tie rule
    /// "lower training position first"). `fitted` are the in-sample predictions of the model
    /// (equal to `fit(train, m).predict(train)`); `leverage[m][i]` is `1/k` when row i is in its
    /// own k-list and 0 otherwise (possible only with k or more duplicates of `x_i` at lower
    /// positions), read from the actual neighbour list. Classification: `None`.
    ///
    /// The leave-one-out formula applied to this smoother is the exact leave-one-out of
    /// (k − 1)-NN, not of k-NN (see `estimate/closed_form.rs`).
    fn linear_smoother(&self, train: &View<'_>) -> Option<Result<SmootherPath>> {
        (self.task == Task::Regression && self.weights.is_uniform() && train.non_unit_weights().is_none()).then(|| self.smoother(train))
    }
    fn check_train_size(&self, n_train: usize) -> Result<()> {
        let kmax = self.grid.values().last().copied().unwrap_or(1.0) as usize;
        if kmax > n_train {
            return Err(Error::InvalidParameter {
                name: "grid",
                expected: "k values no larger than the smallest training set",
                got: format!("k = {kmax} with a training set of {n_train} rows"),
            });
        }
        Ok(())
    }
}

impl KnnFamily {
    fn smoother(&self, train: &View<'_>) -> Result<SmootherPath> {
        self.check_train_size(train.len())?;
        let model = KnnModel::from_view(train, 0, self.task, self.n_classes);
        // The model stores the view's rows in ascending row order: model row p is view row order[p].
        let mut order: Vec<usize> = (0..train.len()).collect();
        order.sort_by_key(|&p| train.rows()[p]);
        let index = NeighborIndex::new(model.x.to_vec(), model.n_features);
        let ks = self.ks();
        let kmax = ks.last().copied().unwrap_or(1).min(index.len());
        let d = model.n_features;
        let rows = |p: usize| &model.x[p * d..(p + 1) * d];
        let search = |p: usize, scratch: &mut Scratch, out: &mut Vec<u32>| index.query_row(&rows, train.len(), p, kmax, scratch, out);
        let in_model_order = predict_path(&ks, train, &model, &model.y, &search, None, None);
        // Rank of each model row in its own neighbour list (kmax when absent).
        let self_rank: Vec<usize> = (0..train.len())
            .into_par_iter()
            .with_min_len(train.par().min_len(train.len()).max(32))
            .map_init(
                || (Scratch::default(), Vec::new()),
                |(scratch, buf), p| {
                    search(p, scratch, buf);
                    buf.iter().position(|&q| q as usize == p).unwrap_or(kmax)
                },
            )
            .collect();
        let to_view_order = |values: &[f64]| {
            let mut out = vec![0.0; values.len()];
            order.iter().zip(values).for_each(|(&i, &v)| out[i] = v);
            out
        };
        let fitted = in_model_order
            .iter()
            .map(|p| p.values().map(to_view_order).ok_or_else(|| Error::TaskMismatch("k-NN smoother needs a real target".into())))
            .collect::<Result<Vec<_>>>()?;
        let leverage = ks
            .iter()
            .map(|&k| to_view_order(&self_rank.iter().map(|&r| if r < k { 1.0 / k as f64 } else { 0.0 }).collect::<Vec<_>>()))
            .collect();
        Ok(SmootherPath { fitted, leverage })
    }
}

struct KnnPath<'a> {
    family: &'a KnnFamily,
    model: KnnModel,
    /// Built on the first prediction that cannot use the shared lists.
    index: OnceLock<NeighborIndex>,
    /// When the training view is of the data set the family shares.
    membership: Option<Membership>,
}

/// A training view's rows, for walking the shared lists.
struct Membership {
    shared: Arc<SharedNeighbors>,
    /// Training multiplicity of each candidate row.
    counts: Vec<u16>,
    /// Whether every multiplicity is at most one.
    single: bool,
    /// The training rows in ascending order: the model's row at position p is `rows[p]`.
    rows: Vec<u32>,
}

impl KnnPath<'_> {
    /// Winning class or neighbour mean of every grid point for every validation row (and the
    /// vote counts when `with_counts`), from the shared lists when the views allow it.
    fn values(&self, validation: &View<'_>, with_counts: bool) -> PathValues {
        let ks = self.family.ks();
        let n_train = self.model.y.len();
        let kmax = ks.last().copied().unwrap_or(1).min(n_train);
        // Enough of a shared list to hold kmax training rows but for one row in 10⁹; a row whose
        // training neighbours are rarer reads on into the whole list (or is searched per split,
        // past a table's end).
        let sharing =
            self.membership.as_ref().filter(|m| m.shared.uid == validation.data().uid()).map(|m| (m, m.shared.width(kmax, n_train)));
        let index = || self.index.get_or_init(|| NeighborIndex::new(self.model.x.to_vec(), self.model.n_features));
        if let Some((Membership { shared, counts, single, rows }, want)) = sharing {
            let split = SplitSize { n_train, n_validation: validation.len(), grid: ks.len(), classes: self.model.n_classes };
            // A validation set of a sixteenth of the rows or more asks for most blocks of 32 rows
            // (all but (15/16)³² ≈ 13 % of them): compute the missing ones now, in parallel.
            if validation.len().saturating_mul(16) >= shared.rows() {
                shared.fill_table(want, Some(split), validation.par());
            }
            // Rows beyond the table's kept blocks: this split computes their lists itself, a
            // block of 32 of its validation rows at a time (in the table's order, so a block's
            // rows are near each other), and frees each block once its rows are consumed.
            let streamed = shared
                .table_shape(want, Some(split))
                .map(|shape| shape.kept * QUERY_BLOCK)
                .filter(|&kept| kept < shared.rows())
                .zip(shared.table_index());
            let order: Option<Vec<usize>> = streamed.map(|(_, index)| {
                let mut order: Vec<usize> = (0..validation.len()).collect();
                order.sort_by_key(|&i| index.rank[validation.rows()[i]]);
                order
            });
            let at = |j: usize| order.as_ref().map_or(j, |order| order[j]);
            // Row `row`'s training neighbours from its shared `list` onwards, into `out`.
            let walk = |first: &[u32], i: usize, row: usize, scratch: &mut Scratch, out: &mut Vec<u32>| {
                let mut list = first;
                let mut pos = 0;
                loop {
                    if *single {
                        // Every multiplicity is 0 or 1: write each candidate and advance by its
                        // multiplicity, without a branch on membership.
                        let mut len = out.len();
                        out.resize(kmax + 1, 0);
                        let (dst, counts) = (&mut out[..], &counts[..]);
                        for &r in &list[pos..] {
                            dst[len] = r;
                            len += usize::from(counts[r as usize]);
                            if len == kmax {
                                break;
                            }
                        }
                        out.truncate(len);
                    } else {
                        for &r in &list[pos..] {
                            out.extend(std::iter::repeat_n(r, usize::from(counts[r as usize])));
                            if out.len() >= kmax {
                                break;
                            }
                        }
                        out.truncate(kmax);
                    }
                    if out.len() == kmax {
                        return;
                    }
                    if list.len() >= shared.candidates {
                        return;
                    }
                    if let Lists::Table { .. } = shared.lists {
                        shared.fallbacks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        // The per-split search answers model positions; the walk, row ids.
                        index().query(validation.x(i), kmax, scratch, out);
                        out.iter_mut().for_each(|p| *p = rows[*p as usize]);
                        return;
                    }
                    pos = list.len();
                    list = shared.list(row, shared.candidates, scratch);
                }
            };
            let search = |j: usize, scratch: &mut Scratch, out: &mut Vec<u32>| {
                out.clear();
                if kmax == 0 {
                    return;
                }
                let i = at(j);
                let row = validation.rows()[i];
                // The next row's list, if already computed, on its way to the cache while this
                // row's is walked (a table's lists are far apart: each walk began with a miss).
                let next = validation.rows()[at((j + 1).min(validation.len() - 1))];
                if let Some(list) = shared.computed_list(next) {
                    prefetch(list);
                }
                let kept = |&((kept, index), _): &((usize, &TableIndex), &Vec<usize>)| (index.rank[row] as usize) < kept;
                let Some(((_, index), order)) = streamed.zip(order.as_ref()).filter(|s| !kept(s)) else {
                    return walk(shared.list(row, want, scratch), i, row, scratch, out);
                };
                let block = j / QUERY_BLOCK;
                let key = (block, order.as_ptr() as usize);
                let mut lists = std::mem::take(&mut scratch.streamed.lists);
                if scratch.streamed.key != Some(key) {
                    let start = block * QUERY_BLOCK;
                    let end = (start + QUERY_BLOCK).min(order.len());
                    let position = |t: usize| index.rank[validation.rows()[order[start + t]]] as usize;
                    shared.table_lists(index, &position, end - start, want.min(shared.candidates), scratch, &mut lists);
                    scratch.streamed.key = Some(key);
                    scratch.streamed.width = want.min(shared.candidates);
                }
                let width = scratch.streamed.width;
                let b = j % QUERY_BLOCK;
                walk(&lists[b * width..(b + 1) * width], i, row, scratch, out);
                scratch.streamed.lists = lists;
            };
            let query = |j: usize| validation.x(at(j));
            let distance = (self.model.weights == Weights::Distance).then_some(Coordinates { x: &shared.x, query: &query });
            // the shared lists hold data rows: the data's sample weights (when the model has some)
            let sample = self.model.sample_weights.as_ref().and(validation.data().weights());
            let values = path_values(&ks, validation, &self.model, &shared.y, &search, with_counts, distance, sample);
            return match &order {
                Some(order) => values.reordered(order),
                None => values,
            };
        }
        let index = index();
        let rows = |i: usize| validation.x(i);
        let search = |i: usize, scratch: &mut Scratch, out: &mut Vec<u32>| index.query_row(&rows, validation.len(), i, kmax, scratch, out);
        let query = |i: usize| validation.x(i);
        let distance = (self.model.weights == Weights::Distance).then_some(Coordinates { x: &self.model.x, query: &query });
        let sample = self.model.sample_weights.as_deref();
        path_values(&ks, validation, &self.model, &self.model.y, &search, with_counts, distance, sample)
    }
}

impl FittedPath for KnnPath<'_> {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        self.model.check_features(validation)?;
        Ok(self.values(validation, true).into_predictions(&self.family.ks(), self.model.y.len()))
    }
    /// The 0–1 risk (classification) or any regression loss straight from the winning classes
    /// or neighbour means, without building class probabilities.
    fn risks(&self, validation: &View<'_>, losses: &[Loss]) -> Option<Result<Vec<Vec<f64>>>> {
        let supported = |l: &Loss| if self.model.task == Task::Classification { *l == Loss::ZeroOne } else { l.task() == Task::Regression };
        if validation.is_weighted() || !losses.iter().all(supported) {
            return None;
        }
        if let Err(e) = self.model.check_features(validation) {
            return Some(Err(e));
        }
        let values = self.values(validation, false);
        Some(Ok(losses.iter().map(|loss| values.risks(loss, validation)).collect()))
    }
    fn model(&self, grid_index: usize) -> Result<Model> {
        Ok(Model::Knn(KnnModel { k: self.family.grid.value(grid_index) as usize, ..self.model.clone() }))
    }
}

/// Asks the processor to load the first cache lines of `list` (a hint: nothing is read).
#[inline(always)]
fn prefetch(list: &[u32]) {
    #[cfg(target_arch = "x86_64")]
    for line in list.chunks(16).take(4) {
        // SAFETY: a prefetch reads nothing and cannot fault; `line` is a live slice anyway.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.as_ptr().cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = list;
}

/// Predictions of every k in `ks` (ascending) for the rows of `rows`; see [`path_values`].
fn predict_path(
    ks: &[usize],
    rows: &View<'_>,
    model: &KnnModel,
    y: &[f64],
    search: &(dyn Fn(usize, &mut Scratch, &mut Vec<u32>) + Sync),
    distance: Option<Coordinates<'_, '_>>,
    sample: Option<&[f64]>,
) -> PathPredictions {
    path_values(ks, rows, model, y, search, true, distance, sample).into_predictions(ks, model.y.len())
}

/// The k-NN path's raw output: per (row, grid point) the winning class (as f64) or the mean,
/// row-major `[row][grid]`, and optionally the vote counts `[row][grid][class]`.
struct PathValues {
    values: Vec<f64>,
    counts: Option<Vec<u32>>,
    /// Distance-weighted votes: the class probabilities `[row][grid][class]` (instead of counts).
    proba: Option<Vec<f64>>,
    m: usize,
    n_classes: usize,
    classification: bool,
}

impl PathValues {
    /// The rows moved: row j to row `order[j]` (`order` a permutation of the rows).
    fn reordered(self, order: &[usize]) -> Self {
        fn scatter<T: Copy + Default>(v: Vec<T>, order: &[usize]) -> Vec<T> {
            let width = v.len().checked_div(order.len()).unwrap_or(0);
            let mut out = vec![T::default(); v.len()];
            for (j, &i) in order.iter().enumerate() {
                out[i * width..(i + 1) * width].copy_from_slice(&v[j * width..(j + 1) * width]);
            }
            out
        }
        Self {
            values: scatter(self.values, order),
            counts: self.counts.map(|c| scatter(c, order)),
            proba: self.proba.map(|p| scatter(p, order)),
            ..self
        }
    }

    fn into_predictions(self, ks: &[usize], n_train: usize) -> PathPredictions {
        let Self { values, counts, proba: weighted, m, n_classes: kc, classification } = self;
        let n = values.len().checked_div(m).unwrap_or(0);
        (0..m)
            .map(|g| {
                if !classification {
                    return Predictions::Real((0..n).map(|i| values[i * m + g]).collect());
                }
                let labels = (0..n).map(|i| values[i * m + g] as u32).collect();
                let mut proba = Vec::with_capacity(n * kc);
                if let Some(weighted) = &weighted {
                    for i in 0..n {
                        proba.extend_from_slice(&weighted[(i * m + g) * kc..(i * m + g + 1) * kc]);
                    }
                } else {
                    let Some(counts) = &counts else { return Predictions::classes(labels, kc) };
                    let k = ks[g].min(n_train).max(1) as f64;
                    for i in 0..n {
                        proba.extend(counts[(i * m + g) * kc..(i * m + g + 1) * kc].iter().map(|&c| f64::from(c) / k));
                    }
                }
                let decision = (kc == 2).then(|| (0..n).map(|i| 2.0 * proba[i * 2 + 1] - 1.0).collect());
                Predictions::Classes { labels, n_classes: kc, proba: Some(proba), decision }
            })
            .collect()
    }

    /// The risk of every grid point under `loss` (0–1 for classes, any regression loss for
    /// means), summed in row order exactly as [`Loss::risk`] sums the per-row losses.
    fn risks(&self, loss: &Loss, truth: &View<'_>) -> Vec<f64> {
        let m = self.m;
        let n = truth.len();
        let mut sums = vec![0.0f64; m];
        if self.classification {
            let mut errors = vec![0u32; m];
            for (i, row) in self.values.chunks_exact(m).enumerate() {
                let class = truth.class(i);
                errors.iter_mut().zip(row).for_each(|(e, &v)| *e += u32::from(v as u32 != class));
            }
            // A sum of 0/1 terms is exact, so the count divided by n is bit-identical to the mean.
            sums.iter_mut().zip(&errors).for_each(|(s, &e)| *s = f64::from(e));
        } else {
            for (i, row) in self.values.chunks_exact(m).enumerate() {
                let y = truth.y(i);
                sums.iter_mut().zip(row).for_each(|(s, &v)| *s += loss.regression(v, y));
            }
        }
        sums.iter().map(|s| s / n.max(1) as f64).collect()
    }
}

/// Winning class or mean of every k in `ks` (ascending) for the `n` rows of `rows`.
/// `search(i, scratch, out)` writes the ids of row i's nearest training points, nearest first;
/// `y[id]` is their target and `sample[id]` their sample weight (`None`: unweighted).
///
/// Rows are processed in parallel blocks (by `rows`' [`Par`]) writing into flat, preallocated
/// buffers (row-major `[row][grid]` values, `[row][grid][class]` vote counts when `with_counts`).
#[allow(clippy::too_many_arguments)]
fn path_values(
    ks: &[usize],
    rows: &View<'_>,
    model: &KnnModel,
    y: &[f64],
    search: &(dyn Fn(usize, &mut Scratch, &mut Vec<u32>) + Sync),
    with_counts: bool,
    distance: Option<Coordinates<'_, '_>>,
    sample: Option<&[f64]>,
) -> PathValues {
    if distance.is_some() || sample.is_some() {
        return weighted_values(ks, rows, model, y, search, with_counts, distance, sample);
    }
    let (n, par) = (rows.len(), rows.par());
    // One block of rows per product search (`NeighborIndex::query_row`).
    const BLOCK: usize = QUERY_BLOCK;
    let m = ks.len();
    let kc = model.n_classes.max(1);
    let classification = model.task == Task::Classification;
    let mut values = vec![0.0f64; n * m];
    // Without counts, one unused count per block keeps the two chunkings aligned.
    let keep_counts = classification && with_counts;
    let (count_len, count_block) = if keep_counts { (n * m * kc, BLOCK * m * kc) } else { (n.div_ceil(BLOCK), 1) };
    let mut counts = vec![0u32; count_len];
    // Class indices as integers once, rather than converting a float per neighbour.
    let classes: Vec<u32> = if classification { y.iter().map(|&c| c as u32).collect() } else { Vec::new() };
    let min_blocks = par.min_len(n.div_ceil(BLOCK));
    values.par_chunks_mut(BLOCK * m).zip(counts.par_chunks_mut(count_block)).with_min_len(min_blocks).enumerate().for_each_init(
        || (Scratch::default(), Vec::<u32>::new(), vec![0u32; kc], vec![u32::MAX; kc]),
        |(scratch, buf, tally, first), (block, (values, counts))| {
            for (b, out) in values.chunks_mut(m).enumerate() {
                search(block * BLOCK + b, scratch, buf);
                let mut taken = 0;
                if classification && kc == 2 && !keep_counts {
                    // Two classes: count the ones; the tie rule needs each class's first position.
                    let first_one = buf.iter().position(|&id| classes[id as usize] == 1).unwrap_or(usize::MAX);
                    let first_zero = buf.iter().position(|&id| classes[id as usize] == 0).unwrap_or(usize::MAX);
                    let mut ones = 0usize;
                    for (g, &k) in ks.iter().enumerate() {
                        let k = k.min(buf.len());
                        ones += buf[taken..k].iter().map(|&id| classes[id as usize] as usize).sum::<usize>();
                        taken = k;
                        let zeros = k - ones;
                        out[g] = f64::from(u8::from(ones > zeros || (ones == zeros && first_one < first_zero)));
                    }
                } else if classification {
                    tally.iter_mut().for_each(|c| *c = 0);
                    first.iter_mut().for_each(|f| *f = u32::MAX);
                    for (g, &k) in ks.iter().enumerate() {
                        let k = k.min(buf.len());
                        for (t, &id) in (taken..).zip(&buf[taken..k]) {
                            let c = classes[id as usize] as usize;
                            tally[c] += 1;
                            if first[c] == u32::MAX {
                                first[c] = t as u32;
                            }
                        }
                        taken = k;
                        // The leader: most votes, ties to the class whose nearest member came first.
                        let mut best = 0;
                        for c in 1..kc {
                            if tally[c] > tally[best] || (tally[c] == tally[best] && first[c] < first[best]) {
                                best = c;
                            }
                        }
                        out[g] = best as f64;
                        if keep_counts {
                            counts[(b * m + g) * kc..(b * m + g + 1) * kc].copy_from_slice(tally);
                        }
                    }
                } else {
                    let mut sum = 0.0;
                    for (g, &k) in ks.iter().enumerate() {
                        let k = k.min(buf.len());
                        for &id in &buf[taken..k] {
                            sum += y[id as usize];
                        }
                        taken = k;
                        out[g] = sum / k.max(1) as f64;
                    }
                }
            }
        },
    );
    PathValues { values, counts: keep_counts.then_some(counts), proba: None, m, n_classes: kc, classification }
}

/// Where the neighbours of distance-weighted votes are: `x`, row-major, indexed by the ids the
/// search writes; `query(i)`, the features of row i.
#[derive(Clone, Copy)]
struct Coordinates<'x, 'q> {
    x: &'x [f64],
    query: &'q (dyn Fn(usize) -> &'q [f64] + Sync),
}

/// [`path_values`] with distance weights ([`Weights::Distance`], `at`) and/or sample weights
/// (`sample[id]`): each of the k nearest counts its sample weight times `1 / distance` (or, when
/// some are at distance 0, times 1 for those only, 0 for the others; times 1 without distance
/// weights). A neighbourhood whose counts are all 0 (every sample weight 0) counts its rows
/// without sample weights instead. Vote ties go to the class whose nearest member of positive
/// count comes first, as for uniform votes.
#[allow(clippy::too_many_arguments)]
fn weighted_values(
    ks: &[usize],
    rows: &View<'_>,
    model: &KnnModel,
    y: &[f64],
    search: &(dyn Fn(usize, &mut Scratch, &mut Vec<u32>) + Sync),
    with_proba: bool,
    at: Option<Coordinates<'_, '_>>,
    sample: Option<&[f64]>,
) -> PathValues {
    let (n, par) = (rows.len(), rows.par());
    let (m, d) = (ks.len(), model.n_features);
    let kc = model.n_classes.max(1);
    let classification = model.task == Task::Classification;
    let rows: Vec<(Vec<f64>, Vec<f64>)> = (0..n)
        .into_par_iter()
        .with_min_len(par.min_len(n).max(32))
        .map_init(
            || (Scratch::default(), Vec::<u32>::new()),
            |(scratch, buf), i| {
                search(i, scratch, buf);
                // without distance weights every neighbour is at "distance" 1: weight 1
                let dist: Vec<f64> = match &at {
                    Some(at) => {
                        let q = (at.query)(i);
                        buf.iter()
                            .map(|&id| {
                                let p = &at.x[id as usize * d..(id as usize + 1) * d];
                                p.iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt()
                            })
                            .collect()
                    }
                    None => vec![1.0; buf.len()],
                };
                let sw: Vec<f64> = sample.map_or_else(Vec::new, |s| buf.iter().map(|&id| s[id as usize]).collect());
                let mut values = Vec::with_capacity(m);
                let mut proba = Vec::with_capacity(if with_proba { m * kc } else { 0 });
                let mut tally = vec![0.0f64; kc];
                let mut first = vec![usize::MAX; kc];
                for &k in ks {
                    let k = k.min(buf.len());
                    let exact = dist[..k].contains(&0.0);
                    let by_distance = |t: usize| if exact { f64::from(u8::from(dist[t] == 0.0)) } else { 1.0 / dist[t] };
                    // sample weights, unless they give every neighbour a count of 0
                    let weighted = !sw.is_empty() && (0..k).any(|t| by_distance(t) * sw[t] > 0.0);
                    let weight = |t: usize| if weighted { by_distance(t) * sw[t] } else { by_distance(t) };
                    if classification {
                        tally.iter_mut().for_each(|c| *c = 0.0);
                        first.iter_mut().for_each(|f| *f = usize::MAX);
                        for t in 0..k {
                            let c = y[buf[t] as usize] as usize;
                            tally[c] += weight(t);
                            if weight(t) > 0.0 && first[c] == usize::MAX {
                                first[c] = t;
                            }
                        }
                        let mut best = 0;
                        for c in 1..kc {
                            if tally[c] > tally[best] || (tally[c] == tally[best] && first[c] < first[best]) {
                                best = c;
                            }
                        }
                        values.push(best as f64);
                        if with_proba {
                            let total: f64 = tally.iter().sum();
                            proba.extend(tally.iter().map(|w| w / total));
                        }
                    } else {
                        let (sum, total) = (0..k).fold((0.0, 0.0), |(s, w), t| (s + weight(t) * y[buf[t] as usize], w + weight(t)));
                        values.push(sum / total);
                    }
                }
                (values, proba)
            },
        )
        .collect();
    let (values, proba): (Vec<Vec<f64>>, Vec<Vec<f64>>) = rows.into_iter().unzip();
    PathValues {
        values: values.concat(),
        counts: None,
        proba: (classification && with_proba).then(|| proba.concat()),
        m,
        n_classes: kc,
        classification,
    }
}

#[cfg(test)]
mod tests;
