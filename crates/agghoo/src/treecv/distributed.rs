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
//! then [`assemble_report`](super::assemble_report) reduces the loss sums in chunk order.
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
        executor: &crate::engine::Rayon,
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

    /// A driver that runs the recursion of the module docs over `workers` simulated machines
    /// (consecutive chunks per worker), moving models between them as JSON.
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
        fn feed(&mut self, model: &mut L::Model, a: usize, b: usize) -> u64 {
            let mut updates = 0;
            let mut s = a;
            while s <= b {
                let mut t = s;
                while t < b && self.owner[t + 1] == self.owner[s] {
                    t += 1;
                }
                *model = self.travel(model);
                updates += feed(self.learner, model, &self.block(s, t));
                s = t + 1;
            }
            updates
        }
        fn tree(&mut self, s: usize, e: usize, mut f: L::Model, out: &mut Vec<f64>) -> u64 {
            if self.owner[s] == self.owner[e] {
                let f = self.travel(&f);
                let got = subtree(self.learner, &self.block(s, e), f, &self.config).unwrap();
                out.extend(got.loss_sums);
                return got.n_point_updates;
            }
            let m = (s + e) / 2;
            let mut g = self.travel(&f);
            let mut updates = self.feed(&mut g, m + 1, e);
            updates += self.tree(s, m, g, out);
            updates += self.feed(&mut f, s, m);
            updates + self.tree(m + 1, e, f, out)
        }
    }

    fn distributed<L: Incremental>(learner: &L, data: &Dataset, k: usize, workers: usize, shuffle: Option<Seed>) -> (TreeCvReport, usize) {
        let chunks = chunk_rows(data.n_rows(), k, shuffle).unwrap();
        let owner: Vec<usize> = (0..k).map(|j| j * workers / k).collect();
        let sizes: Vec<usize> = chunks.iter().map(Vec::len).collect();
        let config = TreeCvConfig::new();
        let mut driver = Driver { learner, data, chunks, owner, config, model_bytes_moved: 0 };
        let mut sums = Vec::new();
        let updates = driver.tree(0, k - 1, learner.init(data.n_features()), &mut sums);
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
    fn the_randomised_order_and_the_standard_method_are_refused() {
        let random = TreeCvConfig::new().order(Order::Randomised);
        assert!(matches!(check_distributable(&random), Err(Error::Unsupported { .. })));
        let standard = TreeCvConfig::new().method(Method::Standard);
        assert!(matches!(check_distributable(&standard), Err(Error::Unsupported { .. })));
    }
}
