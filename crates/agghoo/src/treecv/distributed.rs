//! The paper's distributed TreeCV: chunks stay on the machine that holds them; only models travel.
//!
//! A driver (the Python package's `agghoo.dask`, or any executor) places consecutive chunks on
//! workers and walks the recursion of [`run`](super::run):
//!
//! ```text
//! TreeCV(s, e, f):                         # f trained on every chunk outside s..e
//!   if Z_s..Z_e all live on one worker:    # the rest of the subtree runs there, as one task
//!       return subtree(f, Z_s..Z_e)        #   → the loss sums of chunks s..e
//!   m = ⌊(s + e) / 2⌋
//!   g = f; for each worker holding part of Z_{m+1..e}, in chunk order: g = feed(g, its chunks)
//!   a = TreeCV(s, m, g)
//!   for each worker holding part of Z_{s..m}, in chunk order:         f = feed(f, its chunks)
//!   b = TreeCV(m + 1, e, f)
//!   return a ++ b
//! ```
//!
//! then [`assemble_report`](super::assemble_report) reduces the loss sums in chunk order. The
//! recursion is written once, here: [`schedule`] lists its tasks in order (which chunks feed which
//! model, on which worker), and a driver only executes the [`Step`]s.
//!
//! Why the result equals the local run bit for bit: [`Incremental::update`] equals feeding the
//! rows one by one in order, so feeding `Z_a..Z_b` in pieces (one per worker) gives the model
//! one call would, and a model is a serde value that deserializes to the same state. Only the
//! fixed order distributes: the randomised order permutes the points of an update across its
//! chunks, so it would move rows between workers ([`check_distributable`] refuses it).

use serde::{Deserialize, Serialize};

use super::{ChunkedData, Method, Order, Runner, Scratch, TreeCvConfig};
use crate::error::{Error, Result};
use crate::incremental::Incremental;

/// What [`subtree`] returns: the loss sums of its chunks (in chunk order) and the points it fed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SubtreeOutcome {
    /// `Σ_{z ∈ Z_j} loss(f^{−j}, z)` for each chunk of the block.
    pub loss_sums: Vec<f64>,
    /// Points fed to any model inside the subtree.
    pub n_point_updates: u64,
}

/// What a [`Step`] does on its worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// [`feed`] the chunks to the model: the step's result is the updated model.
    Feed,
    /// Run [`subtree`] of the chunks from the model: the step's result is their loss sums.
    Subtree,
}

/// One task of the distributed recursion ([`schedule`]): on `worker`, which holds chunks
/// `first..=last`, starting from the model that step `model` produced (`None`: the untrained
/// model).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    /// Feed or subtree.
    pub kind: StepKind,
    /// The index of the (feed) step whose model this step starts from; `None`: the untrained model.
    pub model: Option<usize>,
    /// The worker that holds the chunks.
    pub worker: usize,
    /// The first chunk.
    pub first: usize,
    /// The last chunk (inclusive).
    pub last: usize,
}

/// The recursion of the module docs as a list of tasks, in the order a driver submits them, for
/// chunks placed on workers by `owner[chunk]` (consecutive chunks per worker: `owner` never
/// decreases). Each step starts from the untrained model or from an earlier feed step's model;
/// the subtree steps come in chunk order, so their loss sums concatenate to every chunk's.
///
/// # Errors
/// [`Error::InvalidParameter`] for no chunk or an `owner` that decreases.
pub fn schedule(owner: &[usize]) -> Result<Vec<Step>> {
    if owner.is_empty() || owner.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::invalid("owner", "a worker per chunk, consecutive chunks per worker (never decreasing)", format!("{owner:?}")));
    }
    fn feed(owner: &[usize], mut model: Option<usize>, a: usize, b: usize, steps: &mut Vec<Step>) -> Option<usize> {
        let mut s = a;
        while s <= b {
            let mut t = s;
            while t < b && owner[t + 1] == owner[s] {
                t += 1;
            }
            steps.push(Step { kind: StepKind::Feed, model, worker: owner[s], first: s, last: t });
            model = Some(steps.len() - 1);
            s = t + 1;
        }
        model
    }
    fn tree(owner: &[usize], s: usize, e: usize, model: Option<usize>, steps: &mut Vec<Step>) {
        if owner[s] == owner[e] {
            steps.push(Step { kind: StepKind::Subtree, model, worker: owner[s], first: s, last: e });
            return;
        }
        let m = (s + e) / 2;
        let g = feed(owner, model, m + 1, e, steps);
        tree(owner, s, m, g, steps);
        let f = feed(owner, model, s, m, steps);
        tree(owner, m + 1, e, f, steps);
    }
    let mut steps = Vec::new();
    tree(owner, 0, owner.len() - 1, None, &mut steps);
    Ok(steps)
}

/// Refuses a configuration the distributed recursion cannot reproduce: the standard method (k
/// independent trainings: distribute `treecv` by folds instead) and the randomised order.
///
/// # Errors
/// [`Error::Unsupported`] naming the setting.
pub fn check_distributable(config: &TreeCvConfig) -> Result<()> {
    if config.method != Method::Tree {
        return Err(Error::Unsupported {
            what: "distributed TreeCV of the standard method".into(),
            reason: "only the tree recursion moves models to the chunks (use method = tree)".into(),
        });
    }
    if config.order != Order::Fixed {
        return Err(Error::Unsupported {
            what: "distributed TreeCV in the randomised order".into(),
            reason: "it permutes the points of an update across chunks, so rows would move between workers (use order = fixed)".into(),
        });
    }
    Ok(())
}

/// Feeds every row of `block` (its chunks in order) to `model` — one worker's share of an update
/// `update(f, Z_a..Z_b)` of the recursion. Returns the number of points fed.
pub fn feed<L: Incremental>(learner: &L, model: &mut L::Model, block: &ChunkedData) -> u64 {
    let rows = block.chunk_range(0, block.n_chunks() - 1);
    rows.update(learner, model);
    rows.len() as u64
}

/// `TreeCV(s, e, model)` on a worker holding every chunk `Z_s..Z_e` as `block` (renumbered from
/// 0): the loss sums of the models trained on everything but each chunk, and the points fed.
///
/// # Errors
/// As [`check_distributable`]; a learner without the snapshot capability the run needs.
pub fn subtree<L: Incremental>(learner: &L, block: &ChunkedData, model: L::Model, config: &TreeCvConfig) -> Result<SubtreeOutcome> {
    subtree_with(learner, block, model, config, &crate::engine::Rayon)
}

/// As [`subtree`], the parallel forks run by `executor` (whose observer hears the updates and may
/// stop the run between them).
///
/// # Errors
/// As [`subtree`]; [`Error::Interrupted`] when the observer stops the run.
pub fn subtree_with<L: Incremental>(
    learner: &L,
    block: &ChunkedData,
    model: L::Model,
    config: &TreeCvConfig,
    executor: &dyn crate::engine::Executor,
) -> Result<SubtreeOutcome> {
    check_distributable(config)?;
    let k = block.n_chunks();
    let mut model = model;
    let mode = config.snapshot.unwrap_or_else(|| learner.preferred_snapshot());
    let at_leaf = |_: usize, _: &L::Model| ();
    let runner = Runner {
        learner,
        data: block,
        order: config.order,
        seed: config.seed,
        mode,
        parallel: config.parallel,
        at_leaf: &at_leaf,
        executor: &crate::engine::Inner::new(executor, 1),
    };
    let mut leaves: Vec<Option<(f64, ())>> = (0..k).map(|_| None).collect();
    let n_point_updates = runner.tree(0, k - 1, 1, &mut model, &mut leaves, &mut Scratch::new(k), 0)?;
    let loss_sums = leaves
        .into_iter()
        .enumerate()
        .map(|(j, leaf)| leaf.map(|(sum, ())| sum).ok_or_else(|| Error::Internal(format!("chunk {j} of the block was never evaluated"))))
        .collect::<Result<Vec<f64>>>()?;
    Ok(SubtreeOutcome { loss_sums, n_point_updates })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Seed;
    use crate::data::{Dataset, generators};
    use crate::incremental::{GaussianNaiveBayes, LsqSgd, OnlineKMeans, Pegasos};
    use crate::treecv::{self, TreeCvReport, assemble_report, chunk_rows};

    /// A driver that executes the [`schedule`] over `workers` simulated machines (consecutive
    /// chunks per worker), moving models between them as JSON.
    struct Driver<'a, L: Incremental> {
        learner: &'a L,
        data: &'a Dataset,
        chunks: Vec<Vec<usize>>,
        owner: Vec<usize>,
        config: TreeCvConfig,
        model_bytes_moved: usize,
    }

    impl<L: Incremental> Driver<'_, L> {
        fn block(&self, a: usize, b: usize) -> ChunkedData {
            let rows: Vec<usize> = self.chunks[a..=b].iter().flatten().copied().collect();
            let sizes: Vec<usize> = self.chunks[a..=b].iter().map(Vec::len).collect();
            ChunkedData::block(self.learner, &self.data.select_rows(&rows).unwrap(), &sizes).unwrap()
        }
        fn travel(&mut self, model: &L::Model) -> L::Model {
            let text = serde_json::to_string(model).unwrap();
            self.model_bytes_moved += text.len();
            serde_json::from_str(&text).unwrap()
        }
        /// Executes the schedule's steps in order: the loss sums of every chunk and the points fed.
        fn run(&mut self, untrained: &L::Model) -> (Vec<f64>, u64) {
            let (mut models, mut sums, mut updates): (Vec<Option<L::Model>>, Vec<f64>, u64) = (Vec::new(), Vec::new(), 0);
            for step in schedule(&self.owner).unwrap() {
                let start: &L::Model = step.model.map_or(untrained, |i| models[i].as_ref().unwrap());
                let mut model = self.travel(start);
                let block = self.block(step.first, step.last);
                models.push(match step.kind {
                    StepKind::Feed => {
                        updates += feed(self.learner, &mut model, &block);
                        Some(model)
                    }
                    StepKind::Subtree => {
                        let got = subtree(self.learner, &block, model, &self.config).unwrap();
                        sums.extend(got.loss_sums);
                        updates += got.n_point_updates;
                        None
                    }
                });
            }
            (sums, updates)
        }
    }

    fn distributed<L: Incremental>(learner: &L, data: &Dataset, k: usize, workers: usize, shuffle: Option<Seed>) -> (TreeCvReport, usize) {
        let chunks = chunk_rows(data.n_rows(), k, shuffle).unwrap();
        let owner: Vec<usize> = (0..k).map(|j| j * workers / k).collect();
        let sizes: Vec<usize> = chunks.iter().map(Vec::len).collect();
        let config = TreeCvConfig::new();
        let mut driver = Driver { learner, data, chunks, owner, config, model_bytes_moved: 0 };
        let (sums, updates) = driver.run(&learner.init(data.n_features()));
        (assemble_report(learner.name(), &config, &sums, sizes, updates, 0.0).unwrap(), driver.model_bytes_moved)
    }

    fn local<L: Incremental>(learner: &L, data: &Dataset, k: usize, shuffle: Option<Seed>) -> TreeCvReport {
        let chunks = ChunkedData::new(learner, data, k, shuffle).unwrap();
        TreeCvReport { wall_seconds: 0.0, ..treecv::run(learner, &chunks, &TreeCvConfig::new()).unwrap() }
    }

    #[test]
    fn the_distributed_recursion_equals_the_local_run_bit_for_bit() {
        let cover = generators::covertype_like(700, Seed(4)).unwrap();
        let msd = generators::msd_like(500, Seed(5)).unwrap();
        for (k, workers) in [(2, 2), (7, 2), (16, 3), (50, 4), (700, 2)] {
            let shuffle = Some(Seed(k as u64));
            let pegasos = Pegasos::new(1e-3).unwrap();
            let (report, _) = distributed(&pegasos, &cover, k, workers, shuffle);
            assert_eq!(report, local(&pegasos, &cover, k, shuffle), "pegasos k = {k}, {workers} workers");
            let nb = GaussianNaiveBayes::new(cover.target().n_classes()).unwrap();
            assert_eq!(distributed(&nb, &cover, k, workers, None).0, local(&nb, &cover, k, None), "naive Bayes k = {k}");
            if k <= msd.n_rows() {
                let sgd = LsqSgd::paper();
                assert_eq!(distributed(&sgd, &msd, k, workers, shuffle).0, local(&sgd, &msd, k, shuffle), "lsq-sgd k = {k}");
                let km = OnlineKMeans::new(3).unwrap();
                assert_eq!(distributed(&km, &msd, k, workers, None).0, local(&km, &msd, k, None), "k-means k = {k}");
            }
        }
    }

    #[test]
    fn only_a_few_models_travel() {
        let data = generators::covertype_like(2_000, Seed(1)).unwrap();
        let learner = Pegasos::new(1e-4).unwrap();
        let (_, moved_2) = distributed(&learner, &data, 2_000, 2, None);
        let (_, moved_8) = distributed(&learner, &data, 2_000, 8, None);
        let model = serde_json::to_string(&learner.init(data.n_features())).unwrap().len();
        // O(workers · log k) model transfers, far below one per chunk.
        assert!(moved_2 < 20 * model * 4, "{moved_2} bytes for 2 workers");
        assert!(moved_8 < 80 * model * 4 && moved_8 > moved_2, "{moved_8} bytes for 8 workers");
    }

    #[test]
    fn the_schedule_feeds_each_worker_its_own_chunks_and_ends_in_chunk_order() {
        use StepKind::{Feed, Subtree};
        let step = |kind, model, worker, first, last| Step { kind, model, worker, first, last };
        // Four chunks on two workers: each half fed the other half's chunks, on their worker.
        assert_eq!(
            schedule(&[0, 0, 1, 1]).unwrap(),
            [step(Feed, None, 1, 2, 3), step(Subtree, Some(0), 0, 0, 1), step(Feed, None, 0, 0, 1), step(Subtree, Some(2), 1, 2, 3)]
        );
        for (k, workers) in [(1, 1), (7, 3), (50, 4)] {
            let owner: Vec<usize> = (0..k).map(|j| j * workers / k).collect();
            let steps = schedule(&owner).unwrap();
            let leaves: Vec<(usize, usize)> = steps.iter().filter(|s| s.kind == Subtree).map(|s| (s.first, s.last)).collect();
            assert_eq!(leaves.first().map(|l| l.0), Some(0));
            assert!(leaves.windows(2).all(|w| w[1].0 == w[0].1 + 1) && leaves.last().map(|l| l.1) == Some(k - 1));
            for (i, s) in steps.iter().enumerate() {
                assert!((s.first..=s.last).all(|c| owner[c] == s.worker), "step {i} reads another worker's chunk");
                assert!(s.model.is_none_or(|m| m < i && steps[m].kind == Feed), "step {i} starts from a later or a subtree step");
            }
        }
        assert!(schedule(&[]).is_err() && schedule(&[1, 0]).is_err());
    }

    #[test]
    fn the_randomised_order_and_the_standard_method_are_refused() {
        let random = TreeCvConfig::new().order(Order::Randomised);
        assert!(matches!(check_distributable(&random), Err(Error::Unsupported { .. })));
        let standard = TreeCvConfig::new().method(Method::Standard);
        assert!(matches!(check_distributable(&standard), Err(Error::Unsupported { .. })));
    }
}
