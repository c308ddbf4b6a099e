//! `agghoo treecv`: k-fold / leave-one-out CV of an incremental learner by TreeCV or by k
//! separate trainings, optionally selecting PEGASOS's λ over a grid.

use agghoo::Seed;
use agghoo::incremental::Incremental;
use agghoo::spec::{Folds, TreecvSpec};
use agghoo::treecv::{self, LearnerVisitor, Method, Order, TreeCvReport};
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

/// Runs one learner's CV with a progress bar and the memory it took. The data set is dropped
/// once its chunk-ordered copy exists, so the run holds the data once, not twice.
struct Cv<'a> {
    data: agghoo::data::Dataset,
    spec: &'a TreecvSpec,
    json: bool,
}

impl LearnerVisitor for Cv<'_> {
    type Output = anyhow::Result<(TreeCvReport, Option<RunMemory>)>;
    fn visit<L: Incremental>(self, learner: &L) -> Self::Output {
        let chunks = self.spec.chunks(learner, &self.data)?;
        drop(self.data);
        let cfg = self.spec.config();
        let bar = output::Bar::new(treecv::expected_updates(&chunks, cfg.method), "point updates", self.json);
        let (report, memory) = memory::measure(|| treecv::run_with(learner, &chunks, &cfg, &bar.executor()));
        bar.0.finish_and_clear();
        Ok((report?, memory))
    }
}

/// A spec field that does not apply, named by its flag (`--lambda: …`): a usage error.
fn flag_error(e: agghoo::Error) -> anyhow::Error {
    match e {
        agghoo::Error::InvalidParameter { name, .. } => UsageError(format!("--{name}: {e}")).into(),
        other => other.into(),
    }
}

/// The spec of the treecv flags.
pub fn spec(args: &TreeCvArgs) -> anyhow::Result<TreecvSpec> {
    let folds: Folds = args.folds.parse().map_err(|_| UsageError(format!("--folds `{}`: a number or `loo`", args.folds)))?;
    let lambda = args.lambda.as_deref().map(|text| anyhow::Ok(source::parse_grid(text)?.values()?)).transpose()?;
    let spec = TreecvSpec {
        learner: args.learner,
        lambda,
        centres: args.centres,
        folds,
        method: args.method,
        order: args.order,
        parallel: args.parallel,
        shuffle: !args.no_shuffle,
        f32: args.f32,
        seed: Seed(args.seed),
    };
    spec.validate().map_err(flag_error)?;
    Ok(spec)
}

pub fn run(args: TreeCvArgs) -> anyhow::Result<()> {
    let spec = match args.given_spec()? {
        Some(spec) => spec,
        None => spec(&args)?,
    };
    spec.validate()?;
    let source::Loaded { data, description, .. } = source::load(&args.data, None, spec.seed)?;
    let (n_rows, n_classes) = (data.n_rows(), data.target().n_classes());
    let k = spec.folds.on(n_rows);
    let (method, order, parallel) = (spec.method, spec.order, spec.parallel);
    output::record_spec(&spec)?;
    if spec.is_grid() {
        let grid = spec.run_grid(&data, &agghoo::engine::Rayon)?;
        if args.output.json {
            let lambda_text =
                args.lambda.clone().unwrap_or_else(|| spec.lambdas().iter().map(f64::to_string).collect::<Vec<_>>().join(","));
            return output::print_json("treecv", lambda_text, Some(spec.seed.0), &grid);
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
    let (report, memory) = spec.learner_spec().visit(n_classes, Cv { data, spec: &spec, json: args.output.json })??;
    if args.output.json {
        let parameters = Parameters { data: &description, learner: &report.learner, folds: k, method, order, parallel };
        return output::print_json("treecv", parameters, Some(spec.seed.0), &WithMemory { report: &report, memory });
    }
    output::print(&format!(
        "{} · {k}-fold {:?} CV ({:?} order{}) · data {} (n = {})",
        report.learner,
        method,
        order,
        if parallel { ", parallel" } else { "" },
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
