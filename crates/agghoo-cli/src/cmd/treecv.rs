//! `agghoo treecv`: k-fold / leave-one-out CV of an incremental learner by TreeCV or by k
//! separate trainings, optionally selecting PEGASOS's λ over a grid.

use agghoo::Seed;
use agghoo::incremental::{Incremental, Pegasos};
use agghoo::select::TieRule;
use agghoo::treecv::{self, ChunkedData, LearnerKind, LearnerSpec, LearnerVisitor, Method, Order, Storage, TreeCvConfig, TreeCvReport};
use serde::Serialize;

use crate::args::{TreeCvArgs, UsageError};
use crate::memory::{self, RunMemory};
use crate::output::{self, num};
use crate::source;

#[derive(Serialize)]
struct Parameters<'a> {
    data: &'a str,
    learner: &'a str,
    folds: usize,
    method: Method,
    order: Order,
    parallel: bool,
}

/// The report with the run's memory (outside the library report: it depends on the machine).
#[derive(Serialize)]
struct WithMemory<'a> {
    #[serde(flatten)]
    report: &'a TreeCvReport,
    /// Resident memory before the run and its peak during it (Linux only).
    memory: Option<RunMemory>,
}

/// Chunks `data` and runs; the data set is dropped once its chunk-ordered copy exists, so the run
/// holds the data once, not twice.
/// Runs one learner's CV with a progress bar and the memory it took.
struct Cv<'a> {
    data: agghoo::data::Dataset,
    k: usize,
    shuffle: Option<Seed>,
    storage: Storage,
    cfg: &'a TreeCvConfig,
    json: bool,
}

impl LearnerVisitor for Cv<'_> {
    type Output = anyhow::Result<(TreeCvReport, Option<RunMemory>)>;
    fn visit<L: Incremental>(self, learner: &L) -> Self::Output {
        let chunks = ChunkedData::new(learner, &self.data, self.k, self.shuffle)?.with_storage(self.storage)?;
        drop(self.data);
        let bar = output::Bar::new(treecv::expected_updates(&chunks, self.cfg.method), "point updates", self.json);
        let (report, memory) = memory::measure(|| treecv::run_with(learner, &chunks, self.cfg, &bar.executor()));
        bar.0.finish_and_clear();
        Ok((report?, memory))
    }
}

pub fn run(args: TreeCvArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let source::Loaded { data, description, .. } = source::load(&args.data, None, seed)?;
    let (n_rows, n_classes) = (data.n_rows(), data.target().n_classes());
    let k = if args.folds == "loo" {
        n_rows
    } else {
        args.folds.parse::<usize>().map_err(|_| UsageError(format!("--folds `{}`: a number or `loo`", args.folds)))?
    };
    let (method, order) = (args.method, args.order);
    let cfg = TreeCvConfig::new().method(method).order(order).parallel(args.parallel).seed(seed);
    let shuffle = (!args.no_shuffle).then_some(seed);
    let storage = if args.f32 { Storage::F32 } else { Storage::F64 };
    for (given, flag, applies_to) in
        [(args.lambda.is_some(), "--lambda", LearnerKind::Pegasos), (args.centres.is_some(), "--centres", LearnerKind::Kmeans)]
    {
        if given && args.learner != applies_to {
            return Err(
                UsageError(format!("{flag} has no effect with --learner {}: it applies to --learner {applies_to}", args.learner)).into()
            );
        }
    }
    let lambda_text = args.lambda.as_deref().unwrap_or("1e-6");
    let lambdas = crate::source::parse_grid(lambda_text)?.values()?;
    if lambdas.len() > 1 {
        if args.learner != LearnerKind::Pegasos {
            return Err(UsageError("a λ grid is for --learner pegasos".into()).into());
        }
        let chunks = ChunkedData::new(&Pegasos::new(lambdas[0])?, &data, k, shuffle)?.with_storage(storage)?;
        drop(data);
        let grid = treecv::select_grid(&lambdas, Pegasos::new, &chunks, &cfg, TieRule::First)?;
        if args.output.json {
            return output::print_json("treecv", lambda_text, Some(seed.0), &grid);
        }
        let mut t = output::table(&["λ", "TreeCV risk", "standard error"]);
        let rows: Vec<Vec<Option<f64>>> = grid
            .values
            .iter()
            .zip(&grid.estimates)
            .zip(&grid.standard_errors)
            .map(|((v, e), se)| vec![Some(*v), Some(*e), Some(*se)])
            .collect();
        for c in output::columns(&rows) {
            t.add_row(c);
        }
        output::print(&format!("PEGASOS λ selected by {k}-fold TreeCV on {description} (n = {n_rows})\n{t}"))?;
        return output::print(&format!("selected λ = {}", num(grid.values[grid.best_index])));
    }
    let spec = LearnerSpec::of(args.learner, lambdas[0], args.centres.unwrap_or(8));
    let (report, memory) = spec.visit(n_classes, Cv { data, k, shuffle, storage, cfg: &cfg, json: args.output.json })??;
    if args.output.json {
        let parameters = Parameters { data: &description, learner: &report.learner, folds: k, method, order, parallel: args.parallel };
        return output::print_json("treecv", parameters, Some(seed.0), &WithMemory { report: &report, memory });
    }
    output::print(&format!(
        "{} · {k}-fold {:?} CV ({:?} order{}) · data {} (n = {})",
        report.learner,
        method,
        order,
        if args.parallel { ", parallel" } else { "" },
        description,
        n_rows
    ))?;
    let mut t = output::table(&["CV estimate", "standard error", "point updates", "passes", "wall time (s)", "peak memory (MB)"]);
    let mib = |b: u64| format!("{:.1}", b as f64 / 1048576.0);
    t.add_row(vec![
        num(report.estimate),
        num(report.standard_error),
        report.n_point_updates.to_string(),
        num(report.passes),
        num(report.wall_seconds),
        memory.map_or_else(|| "n/a".into(), |m| format!("{} (+{} for the run)", mib(m.peak_bytes), mib(m.added_bytes()))),
    ]);
    output::print(&t.to_string())
}
