//! `agghoo features`: feature selection (filters, wrappers, searches, embedded), optionally
//! evaluated honestly — the whole selection redone inside every outer training fold, next to the
//! naive selection-on-all-data estimate.

use agghoo::Seed;
use agghoo::data::Preprocess;
use agghoo::features::{HonestConfig, Learner, Selector, evaluate_honestly, select_features};
use agghoo::resample::PlanContext;

use crate::args::{FeaturesArgs, UsageError};
use crate::output::{self, num};
use crate::source;

fn usage(msg: String) -> anyhow::Error {
    UsageError(msg).into()
}

/// A malformed option, named by its flag (`--scorer `nope`: expected …`): a usage error.
fn flag_error(e: agghoo::Error) -> anyhow::Error {
    match e {
        agghoo::Error::InvalidParameter { name, expected, got } => usage(format!("--{name} `{got}`: expected {expected}")),
        other => usage(other.to_string()),
    }
}

pub fn run(args: FeaturesArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let loaded = source::load(&args.data, None, seed)?;
    let data = &loaded.data;
    let inner = source::outer_plan(&args.inner, false)?;
    data.check_numeric("feature selection")?;
    let preprocess = Preprocess { impute_median: data.has_missing(), standardize: args.standardize, ..Preprocess::default() };
    let selector = Selector::parse(&args.method, &args.scorer, &args.n_features, &inner, preprocess).map_err(flag_error)?;
    if let Selector::Search { search, .. } = &selector {
        // The work, before it starts (a wrapper scores each subset by a whole inner CV);
        // a search beyond the budget is refused by the library with the same estimate.
        if let (Ok(evaluations), false) = (search.estimated_evaluations(data.n_features()), args.output.json) {
            let runs = if args.evaluate.is_some() { " per selection (one on all data, one in every outer fold)" } else { "" };
            eprintln!("agghoo: {} over {} features: about {evaluations} subset evaluations{runs}", args.method, data.n_features());
        }
    }
    let Some(outer_text) = &args.evaluate else {
        let selection = select_features(&selector, data, seed)?;
        if args.output.json {
            return output::print_json("features", &args.method, Some(seed.0), &selection);
        }
        return output::print(&format!(
            "selected {} of {} features: {}",
            selection.features.len(),
            data.n_features(),
            selection.names.join(", ")
        ));
    };
    let learner = match (&args.learner, selector.wrapper_learner()) {
        (Some(text), _) => Learner::parse(text).map_err(flag_error)?,
        (None, Some(l)) => l.clone(),
        (None, None) => Learner::parse("knn:5")?,
    };
    let outer = source::outer_plan(outer_text, false)?.instantiate(&PlanContext::of(data), seed)?;
    let config = HonestConfig { selector, learner, loss: None, preprocess, seed };
    let report = evaluate_honestly(data, &outer, &config)?;
    if args.output.json {
        return output::print_json("features", &args.method, Some(seed.0), &report);
    }
    output::print(&format!(
        "feature selection `{}` evaluated by {} outer folds · learner {} · loss {} · data {} (n = {}, d = {})",
        args.method,
        report.n_folds,
        report.learner,
        report.loss,
        loaded.description,
        data.n_rows(),
        data.n_features()
    ))?;
    let mut t = output::table(&["estimate", "risk", "standard error"]);
    let cells = output::columns(&[
        vec![Some(report.honest.mean), Some(report.honest.standard_error)],
        vec![Some(report.naive.mean), Some(report.naive.standard_error)],
    ]);
    for (label, c) in ["honest (selection inside every training fold)", "naive (selection on all data, then CV)"].into_iter().zip(cells) {
        t.add_row(std::iter::once(label.to_string()).chain(c).collect::<Vec<_>>());
    }
    output::print(&t.to_string())?;
    output::print(&format!("selection bias (naive − honest): {}", num(report.selection_bias)))?;
    let mut t = output::table(&["feature", "chosen in folds", "fraction"]);
    let shown: Vec<_> = report.frequency.iter().take(20).collect();
    let fractions = output::column(&shown.iter().map(|f| f.fraction).collect::<Vec<_>>());
    for (f, fraction) in shown.iter().zip(fractions) {
        t.add_row(vec![f.name.clone(), f.count.to_string(), fraction]);
    }
    output::print(&format!("stability (mean Jaccard between folds: {})\n{t}", num(report.mean_jaccard)))?;
    output::print(&format!("selected on all data: {}", report.naive_selection.names.join(", ")))
}
