//! TreeCV: k-fold and leave-one-out cross-validation of incremental learners in about
//! `log2 k` training passes (Joulani, György & Szepesvári 2015; `docs/PROCEDURES.md` § TreeCV).
//!
//! ```text
//! TreeCV(s, e, f):              # f is trained on every chunk outside s..e
//!   if s == e: return |Z_s| · loss_on(Z_s, f)
//!   m = ⌊(s + e) / 2⌋
//!   g = copy(f); update(g, Z_{m+1..e}); a = TreeCV(s, m, g)
//!   update(f, Z_{s..m});               b = TreeCV(m + 1, e, f)
//!   return a + b
//! estimate = TreeCV(1, k, empty) / n
//! ```
//!
//! [`ChunkedData`] permutes the rows **once** into chunk order, so "the chunks `Z_a..Z_b`" is one
//! contiguous row-major slice and every update streams memory. [`run`] executes either this
//! recursion ([`Method::Tree`]) or the standard method ([`Method::Standard`]: k independent
//! trainings on the same chunks, chunk order `1..j−1, j+1..k`), with the same learner, the same
//! chunks and the same leaf evaluation, so the two are directly comparable.
//!
//! Options: [`Order::Fixed`] feeds the points in the hierarchical chunk order;
//! [`Order::Randomised`] feeds the points of each update in a random order drawn from
//! `Seed::rng(Purpose::Learner, node_id)`, where `node_id` is the heap number of the child the
//! update trains for (root 1, children `2i`, `2i + 1`) — a function of the recursion position
//! only, so results do not depend on the thread count. The standard method's fold j uses stream
//! `2^62 + j`. Parallel execution ([`TreeCvConfig::parallel`]) forks the two branches as two
//! units of the run's [`Executor`] (a copy of the model per fork) above a size cutoff and runs
//! sequentially below it; the standard method's folds are units likewise. Every leaf writes its
//! own slot and the sums are reduced serially in chunk order, so parallel and sequential results
//! are bit-identical for any executor. The executor's observer hears every update's points
//! ([`Observer::progressed`](crate::engine::Observer::progressed)) and may stop the run between
//! updates. The design note (`treecv/README.md`) covers snapshots, costs, and the
//! distributed variant.

mod chunks;
pub mod distributed;
mod learners;
mod select;

pub use chunks::{ChunkRows, ChunkedData, Storage, chunk_rows};
pub use learners::{LearnerKind, LearnerSpec, LearnerVisitor};
pub use select::{AggregatedLinear, GridReport, LinearWeights, agghoo_linear, select_grid};

use std::time::Instant;

use std::sync::Mutex;

use rand::RngExt;
use serde::{Deserialize, Serialize};

use crate::engine::{Executor, Inner, Rayon, map_ordered};
use crate::error::{Error, Result};
use crate::incremental::{Incremental, SnapshotMode};
use crate::names::named;
use crate::seed::{Purpose, Seed};

/// Which CV computation to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The TreeCV recursion: about `n · ⌈log2 k⌉` point-updates.
    Tree,
    /// k separate trainings: `n · (k − 1)` point-updates.
    Standard,
}

/// The order in which an update feeds its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The hierarchical chunk order (chunks in index order, rows in chunk order).
    Fixed,
    /// A seeded random permutation of the points of each update.
    Randomised,
}

named!(display Method, "method", [
    Method::Tree => "tree": "TreeCV recursion",
    Method::Standard => "standard": "k separate trainings",
]);

named!(display Order, "order", [
    Order::Fixed => "fixed": "Hierarchical chunk order",
    Order::Randomised => "random": "Seeded random order within each update",
]);

/// How a TreeCV run is done. Every field is a validated choice; k is checked against n by
/// [`ChunkedData`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeCvConfig {
    /// Tree or standard.
    pub method: Method,
    /// Fixed or randomised point order.
    pub order: Order,
    /// Fork the branches (tree) or the folds (standard) as units of the run's executor.
    pub parallel: bool,
    /// Overrides the learner's preferred snapshot mode (tree method only).
    pub snapshot: Option<SnapshotMode>,
    /// Seed of the randomised order.
    pub seed: Seed,
}

impl TreeCvConfig {
    /// TreeCV, fixed order, sequential, the learner's snapshot mode, seed 0.
    pub fn new() -> Self {
        Self { method: Method::Tree, order: Order::Fixed, parallel: false, snapshot: None, seed: Seed(0) }
    }
    /// Sets the method.
    pub fn method(self, method: Method) -> Self {
        Self { method, ..self }
    }
    /// Sets the order.
    pub fn order(self, order: Order) -> Self {
        Self { order, ..self }
    }
    /// Runs in parallel (or not).
    pub fn parallel(self, parallel: bool) -> Self {
        Self { parallel, ..self }
    }
    /// Forces a snapshot mode.
    pub fn snapshot(self, snapshot: SnapshotMode) -> Self {
        Self { snapshot: Some(snapshot), ..self }
    }
    /// Sets the seed.
    pub fn seed(self, seed: Seed) -> Self {
        Self { seed, ..self }
    }
}

impl Default for TreeCvConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// The outcome of a TreeCV (or standard) run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeCvReport {
    /// The learner's name.
    pub learner: String,
    /// The method run.
    pub method: Method,
    /// The order used.
    pub order: Order,
    /// Number of chunks k.
    pub n_folds: usize,
    /// Number of points n.
    pub n_rows: usize,
    /// The CV estimate `(1/n) Σ_j |Z_j| · loss_on(Z_j, f^{−j})` (mean loss over all points).
    pub estimate: f64,
    /// Mean loss of each chunk under the model trained without it, in chunk order.
    pub chunk_losses: Vec<f64>,
    /// Size of each chunk.
    pub chunk_sizes: Vec<usize>,
    /// Standard error over chunks: sample standard deviation of `chunk_losses` / √k.
    pub standard_error: f64,
    /// Points fed to any model (the cost measure: ≤ `n · ⌈log2 k⌉` for the tree, `n (k − 1)` standard).
    pub n_point_updates: u64,
    /// `n_point_updates / n`: the number of training passes over the data.
    pub passes: f64,
    /// Wall time of the run, seconds (excludes building the [`ChunkedData`]).
    pub wall_seconds: f64,
}

/// Stream offset of the standard method's folds, apart from every tree node id (< 2^62 for any k that fits in memory).
const STANDARD_STREAM: u64 = 1 << 62;

/// Below this many points a subtree runs sequentially: a fork costs a model copy and a task.
const PARALLEL_CUTOFF: usize = 16_384;

/// Runs TreeCV or the standard method and reports the CV estimate.
///
/// ```
/// use agghoo::{Seed, data::generators, incremental::Pegasos, treecv::{self, ChunkedData, TreeCvConfig}};
/// let data = generators::covertype_like(2_000, Seed(1))?;
/// let learner = Pegasos::new(1e-4)?;
/// let chunks = ChunkedData::new(&learner, &data, 10, Some(Seed(2)))?;
/// let report = treecv::run(&learner, &chunks, &TreeCvConfig::new())?;
/// assert_eq!(report.chunk_losses.len(), 10);
/// assert!(report.n_point_updates <= 2_000 * 4); // ⌈log2 10⌉ = 4 passes at most
/// assert!(report.estimate >= 0.0 && report.estimate <= 1.0);
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::Unsupported`] when the learner lacks the snapshot capability the run needs (copy for
/// the copy mode or any parallel fork, save/revert for that mode); [`Error::NonFiniteRisk`] when a
/// chunk's loss is not finite.
pub fn run<L: Incremental>(learner: &L, data: &ChunkedData, config: &TreeCvConfig) -> Result<TreeCvReport> {
    run_with(learner, data, config, &Rayon)
}

/// As [`run`], the parallel forks run by `executor`, whose observer hears
/// [`progressed(m)`](crate::engine::Observer::progressed) after every update of `m` points (from any thread; a
/// progress bar's length is [`expected_updates`]) and is asked before each update whether to go on.
///
/// # Errors
/// As [`run`]; [`Error::Interrupted`] when the observer stopped the run.
pub fn run_with<L: Incremental>(learner: &L, data: &ChunkedData, config: &TreeCvConfig, executor: &dyn Executor) -> Result<TreeCvReport> {
    run_with_leaves(learner, data, config, |_, _| (), executor).map(|(report, _)| report)
}

/// The number of point-updates a run will perform: `Σ_j |Z_j| · depth(j)` for the tree (depth of
/// leaf j in the recursion), `Σ_j (n − |Z_j|) = n (k − 1)` for the standard method.
pub fn expected_updates(data: &ChunkedData, method: Method) -> u64 {
    let sizes: Vec<usize> = (0..data.n_chunks()).map(|j| data.chunk_len(j)).collect();
    expected_updates_of(&sizes, method)
}

/// [`expected_updates`] from the chunk sizes alone (what a distributed driver knows).
pub fn expected_updates_of(sizes: &[usize], method: Method) -> u64 {
    fn tree(sizes: &[usize], s: usize, e: usize, depth: u64) -> u64 {
        if s == e {
            return sizes[s] as u64 * depth;
        }
        let m = (s + e) / 2;
        tree(sizes, s, m, depth + 1) + tree(sizes, m + 1, e, depth + 1)
    }
    let n: u64 = sizes.iter().map(|&c| c as u64).sum();
    match (method, sizes.len()) {
        (_, 0) => 0,
        (Method::Tree, k) => tree(sizes, 0, k - 1, 0),
        (Method::Standard, k) => n * (k as u64 - 1),
    }
}

/// As [`run_with`], also returning `at_leaf(j, f^{−j})` for every chunk j in chunk order: the
/// model trained on every chunk but `Z_j` (the hold-out model of fold j), e.g. to aggregate them.
///
/// # Errors
/// As [`run_with`].
pub fn run_with_leaves<L, T, F>(
    learner: &L,
    data: &ChunkedData,
    config: &TreeCvConfig,
    at_leaf: F,
    executor: &dyn Executor,
) -> Result<(TreeCvReport, Vec<T>)>
where
    L: Incremental,
    T: Send,
    F: Fn(usize, &L::Model) -> T + Sync,
{
    let start = Instant::now();
    let k = data.n_chunks();
    let mode = config.snapshot.unwrap_or_else(|| learner.preferred_snapshot());
    // Probe the capabilities before any work, so a missing one fails fast and by name.
    let probe = learner.init(data.n_features());
    if config.method == Method::Tree {
        if mode == SnapshotMode::Copy || config.parallel {
            learner.copy(&probe)?;
        }
        if mode == SnapshotMode::SaveRevert {
            learner.save(&probe, &mut L::Log::default())?;
        }
    }
    let runner = Runner {
        learner,
        data,
        order: config.order,
        seed: config.seed,
        mode,
        parallel: config.parallel,
        at_leaf: &at_leaf,
        executor: &Inner::new(executor, 1),
    };
    let mut leaves: Vec<Option<(f64, T)>> = (0..k).map(|_| None).collect();
    let n_point_updates = match config.method {
        Method::Tree => {
            let mut model = probe;
            let mut scratch = Scratch::new(k);
            runner.tree(0, k - 1, 1, &mut model, &mut leaves, &mut scratch, 0)?
        }
        Method::Standard => runner.standard(&mut leaves)?,
    };
    let mut sums = Vec::with_capacity(k);
    let mut values = Vec::with_capacity(k);
    for (j, leaf) in leaves.into_iter().enumerate() {
        let (sum, value) = leaf.ok_or_else(|| Error::Internal(format!("chunk {j} was never evaluated")))?;
        sums.push(sum);
        values.push(value);
    }
    let chunk_sizes: Vec<usize> = (0..k).map(|j| data.chunk_len(j)).collect();
    let report = assemble_report(learner.name(), config, &sums, chunk_sizes, n_point_updates, start.elapsed().as_secs_f64())?;
    Ok((report, values))
}

/// The report of a run from its per-chunk loss sums `Σ_{z ∈ Z_j} loss(f^{−j}, z)` in chunk order,
/// the chunk sizes and the number of point-updates: the reduction every run ends with, serial and
/// in chunk order, so any executor of the recursion gives the same numbers.
///
/// # Errors
/// [`Error::InvalidParameter`] for fewer than 2 chunks, lengths that differ or an empty chunk;
/// [`Error::NonFiniteRisk`] naming the first chunk whose loss is not finite.
pub fn assemble_report(
    learner: &str,
    config: &TreeCvConfig,
    sums: &[f64],
    chunk_sizes: Vec<usize>,
    n_point_updates: u64,
    wall_seconds: f64,
) -> Result<TreeCvReport> {
    let k = sums.len();
    if k < 2 || chunk_sizes.len() != k || chunk_sizes.contains(&0) {
        return Err(Error::invalid(
            "chunk losses",
            "at least 2 chunks, one non-empty size per loss sum",
            format!("{k} sums, sizes {chunk_sizes:?}"),
        ));
    }
    if let Some(j) = sums.iter().position(|s| !s.is_finite()) {
        return Err(Error::NonFiniteRisk(format!("learner `{learner}`: the loss on chunk {j} is {}", sums[j])));
    }
    let n: usize = chunk_sizes.iter().sum();
    let chunk_losses: Vec<f64> = sums.iter().zip(&chunk_sizes).map(|(s, &c)| s / c as f64).collect();
    let estimate = sums.iter().sum::<f64>() / n as f64;
    // The standard error of the plain mean of the chunk losses (0 for a single chunk).
    let standard_error = crate::engine::summarize(&chunk_losses, None).1.unwrap_or(0.0);
    Ok(TreeCvReport {
        learner: learner.to_string(),
        method: config.method,
        order: config.order,
        n_folds: k,
        n_rows: n,
        estimate,
        chunk_losses,
        chunk_sizes,
        standard_error,
        n_point_updates,
        passes: n_point_updates as f64 / n as f64,
        wall_seconds,
    })
}

/// Per-branch scratch: one save/revert log per tree depth and the permutation buffer.
struct Scratch<Log> {
    logs: Vec<Log>,
    perm: Vec<u32>,
}

impl<Log: Default> Scratch<Log> {
    fn new(k: usize) -> Self {
        let depth = (usize::BITS - k.leading_zeros()) as usize + 1;
        Self { logs: (0..depth).map(|_| Log::default()).collect(), perm: Vec::new() }
    }
}

struct Runner<'a, L, F> {
    learner: &'a L,
    data: &'a ChunkedData,
    order: Order,
    seed: Seed,
    mode: SnapshotMode,
    parallel: bool,
    at_leaf: &'a F,
    /// Runs the forks; its observer hears the updates' points and may stop the run.
    executor: &'a dyn Executor,
}

impl<L, T, F> Runner<'_, L, F>
where
    L: Incremental,
    T: Send,
    F: Fn(usize, &L::Model) -> T + Sync,
{
    /// Feeds chunks `a..=b` to `model` (fixed or randomised with stream `node`); returns the
    /// count, or [`Error::Interrupted`] when the observer stopped the run.
    fn feed(&self, model: &mut L::Model, a: usize, b: usize, node: u64, perm: &mut Vec<u32>) -> Result<u64> {
        self.check_going()?;
        let rows = self.data.chunk_range(a, b);
        match self.order {
            Order::Fixed => rows.update(self.learner, model),
            Order::Randomised => {
                fill_permutation(perm, rows.len(), self.seed, node);
                rows.update_in_order(self.learner, model, perm);
            }
        }
        self.executor.observer().progressed(rows.len() as u64);
        Ok(rows.len() as u64)
    }

    fn check_going(&self) -> Result<()> {
        if self.executor.observer().keep_going() { Ok(()) } else { Err(Error::Interrupted("TreeCV stopped between updates".into())) }
    }

    fn leaf(&self, j: usize, model: &L::Model) -> (f64, T) {
        (self.data.chunk(j).loss_sum(self.learner, model), (self.at_leaf)(j, model))
    }

    #[allow(clippy::too_many_arguments)]
    fn tree(
        &self,
        s: usize,
        e: usize,
        node: u64,
        model: &mut L::Model,
        out: &mut [Option<(f64, T)>],
        scratch: &mut Scratch<L::Log>,
        depth: usize,
    ) -> Result<u64> {
        if s == e {
            out[0] = Some(self.leaf(s, model));
            return Ok(0);
        }
        let m = (s + e) / 2;
        let (left, right) = out.split_at_mut(m - s + 1);
        if self.parallel && self.data.range_len(s, e) >= PARALLEL_CUTOFF {
            // The two branches as two units; each takes its own model, slots and scratch.
            let mut g = self.learner.copy(model)?;
            let mut other = Scratch::new(m - s + 1);
            let branches = [Mutex::new((&mut g, left, &mut other)), Mutex::new((model, right, scratch))];
            let updates = map_ordered(self.executor, 2, |i| {
                let mut branch = branches[i].lock().map_err(|_| Error::Internal("a TreeCV branch panicked".into()))?;
                if i == 0 {
                    let (g, left, other) = &mut *branch;
                    let u = self.feed(g, m + 1, e, 2 * node, &mut other.perm)?;
                    Ok(u + self.tree(s, m, 2 * node, g, left, other, 0)?)
                } else {
                    let (model, right, scratch) = &mut *branch;
                    let u = self.feed(model, s, m, 2 * node + 1, &mut scratch.perm)?;
                    Ok(u + self.tree(m + 1, e, 2 * node + 1, model, right, scratch, depth + 1)?)
                }
            })?;
            return Ok(updates.iter().sum());
        }
        let mut updates = 0;
        match self.mode {
            SnapshotMode::Copy => {
                let mut g = self.learner.copy(model)?;
                updates += self.feed(&mut g, m + 1, e, 2 * node, &mut scratch.perm)?;
                updates += self.tree(s, m, 2 * node, &mut g, left, scratch, depth + 1)?;
            }
            SnapshotMode::SaveRevert => {
                self.learner.save(model, &mut scratch.logs[depth])?;
                updates += self.feed(model, m + 1, e, 2 * node, &mut scratch.perm)?;
                updates += self.tree(s, m, 2 * node, model, left, scratch, depth + 1)?;
                self.learner.revert(model, &scratch.logs[depth]);
            }
        }
        updates += self.feed(model, s, m, 2 * node + 1, &mut scratch.perm)?;
        updates += self.tree(m + 1, e, 2 * node + 1, model, right, scratch, depth + 1)?;
        Ok(updates)
    }

    fn standard(&self, out: &mut [Option<(f64, T)>]) -> Result<u64> {
        let k = self.data.n_chunks();
        let fold = |j: usize| -> Result<(u64, (f64, T))> {
            self.check_going()?;
            let mut model = self.learner.init(self.data.n_features());
            let all = self.data.chunk_range(0, k - 1);
            let (lo, hi) = (self.data.offset(j), self.data.offset(j + 1));
            let updates = (all.len() - (hi - lo)) as u64;
            match self.order {
                Order::Fixed => {
                    if j > 0 {
                        self.data.chunk_range(0, j - 1).update(self.learner, &mut model);
                    }
                    if j + 1 < k {
                        self.data.chunk_range(j + 1, k - 1).update(self.learner, &mut model);
                    }
                }
                Order::Randomised => {
                    let mut perm = Vec::new();
                    fill_permutation(&mut perm, all.len() - (hi - lo), self.seed, STANDARD_STREAM + j as u64);
                    // Positions past the held-out chunk skip over it.
                    let gap = (hi - lo) as u32;
                    perm.iter_mut().filter(|p| **p as usize >= lo).for_each(|p| *p += gap);
                    all.update_in_order(self.learner, &mut model, &perm);
                }
            }
            self.executor.observer().progressed(updates);
            Ok((updates, self.leaf(j, &model)))
        };
        let results: Vec<(u64, (f64, T))> =
            if self.parallel { map_ordered(self.executor, k, fold)? } else { (0..k).map(fold).collect::<Result<_>>()? };
        let mut updates = 0;
        for (slot, (u, leaf)) in out.iter_mut().zip(results) {
            updates += u;
            *slot = Some(leaf);
        }
        Ok(updates)
    }
}

/// `perm ← a uniform permutation of 0..len` (Fisher–Yates) from stream `stream` of the learner seed.
fn fill_permutation(perm: &mut Vec<u32>, len: usize, seed: Seed, stream: u64) {
    perm.clear();
    perm.extend(0..len as u32);
    let mut rng = seed.rng(Purpose::Learner, stream);
    for i in (1..len).rev() {
        let j = rng.random_range(0..=i as u32) as usize;
        perm.swap(i, j);
    }
}
