//! Incremental learners: `update(model, chunk) -> model` (`docs/PROCEDURES.md` § TreeCV).
//!
//! An [`Incremental`] learner is a configuration; its [`Incremental::Model`] is the state that
//! grows as chunks of points are fed to it. The trait has four required operations — a fresh
//! model, an update with a run of contiguous rows, an update in a given order (the randomised
//! TreeCV variant), and the summed loss on a run of rows — plus two optional snapshot
//! capabilities TreeCV needs to branch:
//!
//! - **copy** ([`Incremental::copy`]): a new, independent model (needed at every parallel fork);
//! - **save / revert** ([`Incremental::save`], [`Incremental::revert`]): the working model's state
//!   is journalled into a reusable log before an update and restored afterwards, so a sequential
//!   recursion keeps one working model and `⌈log2 k⌉` preallocated logs and allocates nothing
//!   per node.
//!
//! Both default to [`Error::Unsupported`] naming the missing capability, so a learner that
//! cannot snapshot is refused before any work is done. [`Incremental::preferred_snapshot`]
//! states the learner's choice; a TreeCV configuration may override it.
//!
//! Design choices. Rows arrive as [`Rows`], a contiguous row-major `f64` slice with its targets,
//! never as index lists: TreeCV permutes the data once into chunk order so every update is a
//! slice, and the hot loops read memory sequentially. The trait is generic (associated model
//! type) rather than object-safe: the update loop is monomorphised per learner, which is where
//! the time goes; the CLI dispatches on an enum of learners once. Targets are prepared once by
//! [`Incremental::prepare_target`] (PEGASOS maps its two labels to ±1 there, and refuses other
//! labels), so no hot loop validates anything.
//!
//! For dense data every update touches the whole state, so a delta journal would record every
//! coordinate: the logs here hold the state itself (a `memcpy` into a buffer allocated once).
//! A learner with sparse updates could journal only the touched coordinates behind the same
//! two methods.

mod gaussian_density;
mod gaussian_nb;
mod kmeans;
mod lsq_sgd;
mod multinomial_nb;
mod pegasos;

pub use gaussian_density::{Covariance, GaussianDensity, GaussianDensityModel};
pub use gaussian_nb::{GaussianNaiveBayes, GaussianNbModel};
pub use kmeans::{OnlineKMeans, OnlineKMeansModel};
pub use lsq_sgd::{LsqSgd, LsqSgdModel};
pub use multinomial_nb::{MultinomialNaiveBayes, MultinomialNbModel};
pub use pegasos::{Pegasos, PegasosLoss, PegasosModel};

use serde::{Deserialize, Serialize};

use crate::data::Target;
use crate::error::{Error, Result};

/// How TreeCV keeps the model of a branch while the other branch is trained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotMode {
    /// `g = copy(f)` at each node (the TreeCV pseudo-code); also what parallel forks use.
    Copy,
    /// Save the working model's state into a per-depth log, update, recurse, revert.
    SaveRevert,
}

/// A stored feature value: `f64`, or `f32` for the compact storage of TreeCV's chunked data
/// ([`Storage::F32`](crate::treecv::Storage)). Arithmetic is always `f64`: an `f32` value is
/// widened exactly.
pub trait Feature: Copy + Send + Sync + 'static {
    /// The value as `f64` (exact for both types).
    fn to_f64(self) -> f64;
}

impl Feature for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Feature for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// A run of contiguous rows: row-major features (`f64` by default, or `f32`) and the prepared
/// targets.
#[derive(Clone, Copy, Debug)]
pub struct Rows<'a, T = f64> {
    x: &'a [T],
    y: &'a [f64],
    n_features: usize,
}

impl<'a, T: Feature> Rows<'a, T> {
    /// Wraps `x` (`y.len() · n_features` values, row-major) and `y`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when the lengths disagree or `n_features` is 0.
    pub fn new(x: &'a [T], y: &'a [f64], n_features: usize) -> Result<Self> {
        if n_features == 0 || x.len() != y.len() * n_features {
            return Err(Error::invalid(
                "rows",
                "x.len() == y.len() · n_features with n_features ≥ 1",
                format!("{} vs {} · {n_features}", x.len(), y.len()),
            ));
        }
        Ok(Self { x, y, n_features })
    }
    /// Wraps slices whose lengths the caller guarantees (`x.len() == y.len() · n_features`).
    #[inline]
    pub(crate) fn from_parts(x: &'a [T], y: &'a [f64], n_features: usize) -> Self {
        debug_assert_eq!(x.len(), y.len() * n_features);
        Self { x, y, n_features }
    }
    /// Number of rows.
    #[inline]
    pub fn len(&self) -> usize {
        self.y.len()
    }
    /// True when there are no rows.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }
    /// Number of features d.
    #[inline]
    pub fn n_features(&self) -> usize {
        self.n_features
    }
    /// All features, row-major.
    #[inline]
    pub fn x(&self) -> &'a [T] {
        self.x
    }
    /// All prepared targets.
    #[inline]
    pub fn y(&self) -> &'a [f64] {
        self.y
    }
    /// Features of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.x[i * self.n_features..(i + 1) * self.n_features]
    }
    /// Iterator over `(features, target)` pairs, without bounds checks in the loop body.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = (&'a [T], f64)> + 'a {
        self.x.chunks_exact(self.n_features).zip(self.y.iter().copied())
    }

    /// Calls `f` on rows `order[0], order[1], …` in that order, gathered (and widened to `f64`)
    /// block by block into a contiguous 16 KiB buffer on the stack (2048 values:
    /// `min(⌊2048 / d⌋, 64)` rows a block), so that `update_in_order` can be written as `update`
    /// on each block: the same points in the same order, hence bit-identical to feeding the rows
    /// one by one.
    ///
    /// Why: when the rows live in DRAM, a random order costs a cache (and TLB) miss per row, and
    /// a learner whose next step depends on the previous one keeps only a few of those misses in
    /// flight. The gather loop has no such dependency, so the CPU overlaps the misses of many rows
    /// (about 1.3–2× faster on 125–170 MB of rows, see `docs/benchmarks/treecv.md`). Rows wider
    /// than half the buffer are passed one at a time.
    pub fn for_each_block_in_order(&self, order: &[u32], mut f: impl FnMut(Rows<'_>)) {
        let d = self.n_features;
        let per_block = (STAGE_VALUES / d).min(STAGE_ROWS);
        if per_block < 2 {
            let mut x = vec![0.0; d];
            for &i in order {
                let i = i as usize;
                widen(&mut x, self.row(i));
                f(Rows::from_parts(&x, &self.y[i..=i], d));
            }
            return;
        }
        let mut xs = [0.0f64; STAGE_VALUES];
        let mut ys = [0.0f64; STAGE_ROWS];
        for block in order.chunks(per_block) {
            for ((&i, x), y) in block.iter().zip(xs.chunks_exact_mut(d)).zip(ys.iter_mut()) {
                let i = i as usize;
                widen(x, self.row(i));
                *y = self.y[i];
            }
            f(Rows::from_parts(&xs[..block.len() * d], &ys[..block.len()], d));
        }
    }

    /// Calls `f` on the rows in order, widened to `f64` block by block (as
    /// [`for_each_block_in_order`](Rows::for_each_block_in_order) with the identity order, but
    /// reading sequentially): the default `f32` paths of [`Incremental`].
    pub fn for_each_block(&self, mut f: impl FnMut(Rows<'_>)) {
        let d = self.n_features;
        let per_block = (STAGE_VALUES / d).clamp(1, STAGE_ROWS);
        let mut xs = vec![0.0f64; per_block * d];
        for (x, y) in self.x.chunks(per_block * d).zip(self.y.chunks(per_block)) {
            widen(&mut xs[..x.len()], x);
            f(Rows::from_parts(&xs[..x.len()], y, d));
        }
    }
}

/// `out[i] = x[i]` as `f64` (a plain copy for `f64`).
#[inline(always)]
fn widen<T: Feature>(out: &mut [f64], x: &[T]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o = v.to_f64();
    }
}

/// Capacity, in values, of the stack buffer of [`Rows::for_each_block_in_order`] (16 KiB: it
/// stays in L1 next to the model).
const STAGE_VALUES: usize = 2048;
/// At most this many rows a block in [`Rows::for_each_block_in_order`].
const STAGE_ROWS: usize = 64;

/// An incremental learner (`docs/PROCEDURES.md` § TreeCV): a configuration that creates, updates and scores models.
///
/// Implementations must make [`update`](Incremental::update) equal to feeding the rows one by
/// one in order (online learners) or to adding their sufficient statistics (batch learners), and
/// [`update_in_order`](Incremental::update_in_order) equal to `update` on the rows permuted by
/// `order`.
pub trait Incremental: Sync {
    /// The model state.
    ///
    /// Models are serde values, so a model can travel between machines (distributed TreeCV):
    /// a deserialized model continues exactly where the serialized one stopped.
    type Model: Send + Serialize + serde::de::DeserializeOwned;
    /// The save/revert journal (reused across nodes; `Default` is an empty buffer).
    type Log: Default + Send;

    /// Short name for reports and errors (`pegasos`, `lsq-sgd`, ...).
    fn name(&self) -> &'static str;

    /// The targets as the learner consumes them, one per row (class index, ±1, value, or 0 for
    /// unsupervised learners).
    ///
    /// # Errors
    /// A typed error when the target does not suit the learner (PEGASOS labels, a real target
    /// for naive Bayes, ...).
    fn prepare_target(&self, target: &Target) -> Result<Vec<f64>>;

    /// Checks the features once before any update (for example multinomial naive Bayes needs
    /// non-negative counts). The default accepts anything finite (the data set already is).
    ///
    /// # Errors
    /// A typed error naming the first offending row and column.
    fn check_features(&self, rows: Rows<'_>) -> Result<()> {
        let _ = rows;
        Ok(())
    }

    /// The model trained on no data, for `n_features` features.
    fn init(&self, n_features: usize) -> Self::Model;

    /// Feeds the rows in order.
    fn update(&self, model: &mut Self::Model, rows: Rows<'_>);

    /// Feeds row `order[0]`, then `order[1]`, ... (a permutation of `0..rows.len()`).
    fn update_in_order(&self, model: &mut Self::Model, rows: Rows<'_>, order: &[u32]);

    /// `Σ_i γ(f(x_i), y_i)` over the rows (the caller divides by the count).
    fn loss_sum(&self, model: &Self::Model, rows: Rows<'_>) -> f64;

    /// [`update`](Incremental::update) on rows stored as `f32` (TreeCV's compact storage): the
    /// same result as `update` on the widened values. The default widens the rows block by block
    /// into a buffer; learners with a cheap per-point step read `f32` directly.
    fn update_f32(&self, model: &mut Self::Model, rows: Rows<'_, f32>) {
        rows.for_each_block(|block| self.update(model, block));
    }

    /// [`update_in_order`](Incremental::update_in_order) on rows stored as `f32`: gathered and
    /// widened block by block, then [`update`](Incremental::update) on each block.
    fn update_in_order_f32(&self, model: &mut Self::Model, rows: Rows<'_, f32>, order: &[u32]) {
        rows.for_each_block_in_order(order, |block| self.update(model, block));
    }

    /// [`loss_sum`](Incremental::loss_sum) on rows stored as `f32`. The default sums the losses
    /// of blocks of widened rows (equal to `loss_sum` on the widened rows up to the rounding of
    /// the sum; exactly equal for integer-valued losses such as 0–1).
    fn loss_sum_f32(&self, model: &Self::Model, rows: Rows<'_, f32>) -> f64 {
        let mut total = 0.0;
        rows.for_each_block(|block| total += self.loss_sum(model, block));
        total
    }

    /// The snapshot mode this learner runs fastest with.
    fn preferred_snapshot(&self) -> SnapshotMode {
        SnapshotMode::Copy
    }

    /// An independent copy of `model`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the learner cannot copy its models (the default).
    fn copy(&self, model: &Self::Model) -> Result<Self::Model> {
        let _ = model;
        Err(unsupported(self.name(), "snapshot by copy"))
    }

    /// Journals `model`'s state into `log` so that [`revert`](Incremental::revert) restores it.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the learner cannot save and revert (the default).
    fn save(&self, model: &Self::Model, log: &mut Self::Log) -> Result<()> {
        let _ = (model, log);
        Err(unsupported(self.name(), "snapshot by save/revert"))
    }

    /// Restores the state journalled by the last [`save`](Incremental::save) into `log`.
    fn revert(&self, model: &mut Self::Model, log: &Self::Log) {
        let _ = (model, log);
    }
}

/// The error of a learner without a snapshot capability.
pub(crate) fn unsupported(learner: &str, capability: &str) -> Error {
    Error::Unsupported {
        what: format!("{capability} for learner `{learner}`"),
        reason: "TreeCV must keep the model of one branch while it trains the other".into(),
    }
}

/// Class indices of a classification target as `f64`, for learners of class-conditional statistics.
pub(crate) fn class_indices(target: &Target, learner: &str) -> Result<(Vec<f64>, usize)> {
    match target {
        Target::Classes { labels, names } => Ok((labels.iter().map(|&l| f64::from(l)).collect(), names.len())),
        Target::Real(_) => Err(Error::TaskMismatch(format!("learner `{learner}` needs a classification target, got a real one"))),
    }
}

/// Class indices of a target with at most `n_classes` classes (the learners' class count).
pub(crate) fn class_indices_within(target: &Target, learner: &str, n_classes: usize) -> Result<Vec<f64>> {
    let (y, found) = class_indices(target, learner)?;
    if found > n_classes {
        return Err(Error::invalid("n_classes", "at least the number of classes in the data", n_classes));
    }
    Ok(y)
}

/// A real target, for regression learners.
pub(crate) fn real_values(target: &Target, learner: &str) -> Result<Vec<f64>> {
    match target {
        Target::Real(v) => Ok(v.clone()),
        Target::Classes { .. } => Err(Error::TaskMismatch(format!("learner `{learner}` needs a real target, got classes"))),
    }
}

/// `Σ_j a_j b_j` (`b` widened to `f64`), written with four accumulators so the compiler
/// vectorises it.
#[inline(always)]
pub(crate) fn dot<T: Feature>(a: &[f64], b: &[T]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (p, q) in ca.zip(cb) {
        acc[0] += p[0] * q[0].to_f64();
        acc[1] += p[1] * q[1].to_f64();
        acc[2] += p[2] * q[2].to_f64();
        acc[3] += p[3] * q[3].to_f64();
    }
    let mut s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
    for (p, q) in ra.iter().zip(rb) {
        s += p * q.to_f64();
    }
    s
}

/// Unsupervised learners ignore the target: zeros, one per row.
pub(crate) fn no_target(target: &Target) -> Vec<f64> {
    vec![0.0; target.len()]
}

/// In-place assignment that reuses the destination's buffers (`Vec::clone_from`), so a
/// save/revert journal allocates once and then only copies.
pub(crate) trait Restore: Clone {
    /// `*self = src.clone()` without allocating when the shapes agree.
    fn restore_from(&mut self, src: &Self);
}

/// Implements [`Restore`] for a model field by field, one line: `restore_fields!(Model { a, b })`
/// restores each field with `clone_from` (no allocation when the shapes agree); the fields are
/// destructured, so a field left out of the list does not compile.
macro_rules! restore_fields {
    ($ty:ident { $($field:ident),+ $(,)? }) => {
        impl $crate::incremental::Restore for $ty {
            fn restore_from(&mut self, src: &Self) {
                let $ty { $($field),+ } = src;
                $(self.$field.clone_from($field);)+
            }
        }
    };
}
pub(crate) use restore_fields;

/// [`Incremental::save`] for models that journal their whole state.
pub(crate) fn save_state<M: Restore>(model: &M, log: &mut Option<M>) {
    match log {
        Some(saved) => saved.restore_from(model),
        None => *log = Some(model.clone()),
    }
}

/// [`Incremental::revert`] for models that journal their whole state.
pub(crate) fn revert_state<M: Restore>(model: &mut M, log: &Option<M>) {
    if let Some(saved) = log {
        model.restore_from(saved);
    }
}

/// The three snapshot methods of a learner whose model is its whole state (a [`Restore`] model,
/// `Log = Option<Model>`): `copy` clones the model, `save` journals it with [`save_state`] and
/// `revert` restores it with [`revert_state`]. One line in the learner's `impl Incremental`.
macro_rules! whole_state_snapshots {
    () => {
        fn copy(&self, model: &Self::Model) -> $crate::error::Result<Self::Model> {
            Ok(model.clone())
        }

        fn save(&self, model: &Self::Model, log: &mut Self::Log) -> $crate::error::Result<()> {
            $crate::incremental::save_state(model, log);
            Ok(())
        }

        fn revert(&self, model: &mut Self::Model, log: &Self::Log) {
            $crate::incremental::revert_state(model, log);
        }
    };
}
pub(crate) use whole_state_snapshots;

#[cfg(test)]
mod tests {
    use super::*;

    /// `update_in_order` (block-gathered) equals `update` on the rows permuted by hand, bit for
    /// bit, for narrow rows (many per block) and rows too wide for the buffer (one at a time).
    #[test]
    fn block_gathered_order_equals_feeding_the_permuted_rows() {
        for d in [3usize, 54, 1500] {
            let n = 300;
            let x: Vec<f64> = (0..n * d).map(|i| ((i * 7919 % 1009) as f64 / 504.5 - 1.0) * 1.1).collect();
            let y: Vec<f64> = (0..n).map(|i| if (i * 31) % 7 < 3 { 1.0 } else { -1.0 }).collect();
            let order: Vec<u32> = (0..n as u32).map(|i| (i * 97 + 13) % n as u32).collect();
            let mut px = Vec::new();
            let mut py = Vec::new();
            for &i in &order {
                px.extend_from_slice(&x[i as usize * d..(i as usize + 1) * d]);
                py.push(y[i as usize]);
            }
            let (rows, permuted) = (Rows::new(&x, &y, d).unwrap(), Rows::new(&px, &py, d).unwrap());
            let p = Pegasos::new(1e-3).unwrap();
            let (mut a, mut b) = (p.init(d), p.init(d));
            p.update_in_order(&mut a, rows, &order);
            p.update(&mut b, permuted);
            assert_eq!(a, b, "pegasos d = {d}");
            let l = LsqSgd::paper();
            let (mut a, mut b) = (l.init(d), l.init(d));
            l.update_in_order(&mut a, rows, &order);
            l.update(&mut b, permuted);
            assert_eq!(a, b, "lsq-sgd d = {d}");
            // f32 rows: the same as f64 rows holding the widened values.
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let widened: Vec<f64> = x32.iter().map(|&v| f64::from(v)).collect();
            let (r32, r64) = (Rows::new(&x32, &y, d).unwrap(), Rows::new(&widened, &y, d).unwrap());
            let (mut a, mut b) = (l.init(d), l.init(d));
            l.update_in_order_f32(&mut a, r32, &order);
            l.update_in_order(&mut b, r64, &order);
            assert_eq!(a, b, "lsq-sgd f32 d = {d}");
            let (mut a, mut b) = (p.init(d), p.init(d));
            p.update_f32(&mut a, r32);
            p.update(&mut b, r64);
            assert_eq!(a, b, "pegasos f32 d = {d}");
            assert_eq!(p.loss_sum_f32(&a, r32), p.loss_sum(&b, r64));
        }
    }
}
