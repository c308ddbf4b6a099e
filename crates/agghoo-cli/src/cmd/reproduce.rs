//! `agghoo reproduce <experiment>`: rerun one of the papers' studies; tables on stdout, JSON and
//! plots (SVG, PNG) in `--out`, a progress bar per repetition.
//!
//! The command only maps flags onto [`agghoo::experiments::Config`] and presents the rows; the
//! protocol lives in the library, so the tests and the results page run exactly this code.

use std::collections::BTreeMap;
use std::time::Instant;

use agghoo::Seed;
use agghoo::experiments::{Experiment, ExperimentResult, Row};
use anyhow::Context;
use serde::Serialize;

use crate::args::ReproduceArgs;
use crate::output;
use crate::plot;

/// The JSON document: the library's result plus the wall time.
#[derive(Serialize)]
struct Outcome<'a> {
    #[serde(flatten)]
    result: &'a ExperimentResult,
    wall_seconds: f64,
    threads: usize,
}

pub fn run(args: ReproduceArgs) -> anyhow::Result<()> {
    let experiment = Experiment::parse(&args.experiment)?;
    let mut config = experiment.default_config();
    if let Some(r) = args.reps {
        config.reps = r;
    }
    if let Some(s) = args.seed {
        config.seed = Seed(s);
    }
    if let Some(n) = args.n {
        config.n = n;
    }
    let bar = output::Bar::new(config.reps as u64, experiment.name(), args.json);
    let start = Instant::now();
    let result = experiment.run_with(&config, &bar.executor())?;
    let wall_seconds = start.elapsed().as_secs_f64();
    bar.0.finish_and_clear();

    let outcome = Outcome { result: &result, wall_seconds, threads: rayon::current_num_threads() };
    std::fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    let base = args.out.join(experiment.name());
    let json_path = base.with_extension("json");
    output::write_json(&json_path, "reproduce", &config, Some(config.seed.0), &outcome)?;
    let plots = if experiment == Experiment::Treecv {
        let (time, estimate) = (args.out.join("treecv-time"), args.out.join("treecv-estimate"));
        plot::treecv(&result, &time, &estimate)?;
        format!(", {}.{{svg,png}}, {}.{{svg,png}}", time.display(), estimate.display())
    } else if result.rows.iter().any(|r| r.tau.is_some()) {
        plot::risk_vs_tau(&result, &base)?;
        format!(", {}.{{svg,png}}", base.display())
    } else {
        // Experiments reported as a table in the papers (breast cancer) have no curve to draw.
        String::new()
    };
    if args.json {
        return output::print_json("reproduce", &config, Some(config.seed.0), &outcome);
    }
    if experiment == Experiment::Treecv {
        print_treecv_tables(&result)?;
        return output::print(&format!(
            "{} repetitions, n = {}, seed {}; {:.1} s on {} threads. Times are measurements (not reproducible); \
             estimates and passes are. Wrote {}{}",
            result.reps,
            result.n,
            result.seed.0,
            wall_seconds,
            outcome.threads,
            json_path.display(),
            plots
        ));
    }
    print_tables(&result)?;
    output::print(&format!(
        "{} repetitions, n = {}, m = {} test points, seed {}; {:.1} s on {} threads. Wrote {}{}",
        result.reps,
        result.n,
        result.test_size,
        result.seed.0,
        wall_seconds,
        outcome.threads,
        json_path.display(),
        plots
    ))
}

/// The `mean ± standard error` cells of one table column, in one number format; `missing` where
/// a row has no result.
fn estimate_column(rows: &[Option<&Row>], missing: &str) -> Vec<String> {
    let found: Vec<&Row> = rows.iter().flatten().copied().collect();
    let mut text = output::plus_minus_column(
        &found.iter().map(|r| r.mean).collect::<Vec<_>>(),
        &found.iter().map(|r| Some(r.standard_error)).collect::<Vec<_>>(),
    )
    .into_iter();
    rows.iter().map(|r| if r.is_some() { text.next().unwrap_or_default() } else { missing.to_string() }).collect()
}

/// One table per method with a τ (rows τ, columns V), then the reference lines (oracle).
fn print_tables(result: &ExperimentResult) -> anyhow::Result<()> {
    let mut by_method: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for r in result.rows.iter().filter(|r| r.tau.is_some()) {
        if !by_method.contains_key(r.method.as_str()) {
            order.push(&r.method);
        }
        by_method.entry(&r.method).or_default().push(r);
    }
    for method in order {
        let rows = &by_method[method];
        let mut vs: Vec<usize> = rows.iter().filter_map(|r| r.v).collect();
        vs.sort_unstable();
        vs.dedup();
        let mut taus: Vec<f64> = rows.iter().filter_map(|r| r.tau).collect();
        taus.sort_by(f64::total_cmp);
        taus.dedup();
        // A curve without V (an oracle per τ) is one column.
        let columns: Vec<Option<usize>> = if vs.is_empty() { vec![None] } else { vs.iter().copied().map(Some).collect() };
        let header: Vec<String> = std::iter::once("τ".to_string())
            .chain(columns.iter().map(|v| v.map_or_else(|| result.metric.clone(), |v| format!("V = {v}"))))
            .collect();
        let mut table = output::table(&header.iter().map(String::as_str).collect::<Vec<_>>());
        // One number format per column of V.
        let by_column: Vec<Vec<String>> = columns
            .iter()
            .map(|&v| {
                let present: Vec<Option<&Row>> =
                    taus.iter().map(|&tau| rows.iter().copied().find(|r| r.tau == Some(tau) && r.v == v)).collect();
                estimate_column(&present, "")
            })
            .collect();
        for (i, &tau) in taus.iter().enumerate() {
            table.add_row(std::iter::once(format!("{tau}")).chain(by_column.iter().map(|c| c[i].clone())).collect::<Vec<_>>());
        }
        output::print(&format!(
            "{}: {} ({}), mean ± standard error over {} repetitions",
            result.experiment, method, result.metric, result.reps
        ))?;
        output::print(&table.to_string())?;
    }
    let mut table = output::table(&["method", result.metric.as_str(), "paper"]);
    let references: Vec<&Row> = result.rows.iter().filter(|r| r.tau.is_none()).collect();
    let cells = estimate_column(&references.iter().copied().map(Some).collect::<Vec<_>>(), "");
    for (r, cell) in references.iter().zip(cells) {
        table.add_row(vec![r.method.clone(), cell, r.paper.map_or_else(|| "-".into(), output::num)]);
    }
    if let Some(b) = result.bayes_risk {
        output::print(&format!("Bayes risk ≈ {b} (excess risks are above it)"))?;
    }
    output::print(&table.to_string())
}

/// TreeCV: per data set, a time table (median wall s, CPU s in brackets, passes) and an estimate
/// table (mean ± SE), rows k, one column per method-order; "skipped" where the standard method
/// was over the cap (its row is absent).
fn print_treecv_tables(result: &ExperimentResult) -> anyhow::Result<()> {
    use agghoo::experiments::treecv::{DATASETS, METHODS, ORDERS, label};
    let mut ks: Vec<usize> = result.rows.iter().filter_map(|r| r.v).collect();
    ks.sort_unstable();
    ks.dedup();
    for dataset in DATASETS {
        let labels: Vec<String> = METHODS.iter().flat_map(|&m| ORDERS.iter().map(move |&o| label(dataset, m, o))).collect();
        let short: Vec<&str> = labels.iter().map(|l| l.split_once('/').map_or(l.as_str(), |p| p.1)).collect();
        let find = |l: &str, k: usize| result.rows.iter().find(|r| r.method == l && r.v == Some(k));
        let header = |first: &str, last: &[&str]| -> Vec<String> {
            std::iter::once(first.to_string())
                .chain(short.iter().map(|s| s.to_string()))
                .chain(last.iter().map(|s| s.to_string()))
                .collect()
        };
        let mut time = output::table(&header("k", &["passes tree", "passes standard"]).iter().map(String::as_str).collect::<Vec<_>>());
        let mut estimate = output::table(&header("k", &[]).iter().map(String::as_str).collect::<Vec<_>>());
        // Estimates: one number format per column (method-order), over the values of k.
        let estimates: Vec<Vec<String>> =
            labels.iter().map(|l| estimate_column(&ks.iter().map(|&k| find(l, k)).collect::<Vec<_>>(), "skipped")).collect();
        for (i, &k) in ks.iter().enumerate() {
            let (mut t, mut e) = (vec![k.to_string()], vec![k.to_string()]);
            for (l, column) in labels.iter().zip(&estimates) {
                e.push(column[i].clone());
                match find(l, k) {
                    Some(r) => {
                        let cpu = r.cpu_seconds.map_or_else(String::new, |c| format!(" ({})", output::num(c)));
                        t.push(format!("{}{cpu}", r.seconds.map_or_else(|| "-".into(), output::num)));
                    }
                    None => t.push("skipped".into()),
                }
            }
            for m in [&labels[0], &labels[2]] {
                t.push(find(m, k).and_then(|r| r.passes).map_or_else(|| "-".into(), |p| format!("{p:.2}")));
            }
            time.add_row(t);
            estimate.add_row(e);
        }
        output::print(&format!("{dataset}: wall seconds, median over {} repetitions (CPU seconds of all threads)", result.reps))?;
        output::print(&time.to_string())?;
        output::print(&format!("{dataset}: CV estimate, mean ± standard error over {} repetitions", result.reps))?;
        output::print(&estimate.to_string())?;
    }
    output::print(&result.metric)
}
