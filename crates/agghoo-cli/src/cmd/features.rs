//! `agghoo features`: feature selection (filters, wrappers, searches, embedded), optionally
//! evaluated honestly — the whole selection redone inside every outer training fold, next to the
//! naive selection-on-all-data estimate.

use agghoo::Seed;
use agghoo::features::Selector;
use agghoo::spec::{FeaturesOutcome, FeaturesSpec, Inputs};

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

/// The spec of the features flags.
pub fn spec(args: &FeaturesArgs) -> anyhow::Result<FeaturesSpec> {
    let spec = FeaturesSpec {
        method: args.method.clone(),
        scorer: args.scorer.clone(),
        n_features: args.n_features.clone(),
        inner: source::plan_flag("inner", &args.inner, false)?,
        evaluate: args.evaluate.as_deref().map(|text| source::plan_flag("evaluate", text, false)).transpose()?,
        learner: args.learner.clone(),
        standardize: args.standardize,
        missing_category: args.data.missing_category,
        seed: Seed(args.seed),
    };
    spec.validate().map_err(flag_error)?;
    Ok(spec)
}

pub fn run(args: FeaturesArgs) -> anyhow::Result<()> {
    let spec = match args.given_spec()? {
        Some(spec) => spec,
        None => spec(&args)?,
    };
    let loaded = source::load(&args.data, None, spec.seed)?;
    let data = &loaded.data;
    spec.validate()?;
    if let Selector::Search { search, .. } = spec.selector(spec.preprocess(data))? {
        // The work, before it starts (a wrapper scores each subset by a whole inner CV);
        // a search beyond the budget is refused by the library with the same estimate.
        if let (Ok(evaluations), false) = (search.estimated_evaluations(data.n_features()), args.output.json) {
            let runs = if spec.evaluate.is_some() { " per selection (one on all data, one in every outer fold)" } else { "" };
            eprintln!("agghoo: {} over {} features: about {evaluations} subset evaluations{runs}", spec.method, data.n_features());
        }
    }
    output::record_spec(&spec)?;
    let outcome = spec.run(&Inputs::of(data), &agghoo::engine::Rayon)?;
    if args.output.json {
        return output::print_json("features", &spec.method, Some(spec.seed.0), &outcome);
    }
    let report = match outcome {
        FeaturesOutcome::Selection(selection) => {
            return output::print(&format!(
                "selected {} of {} features: {}",
                selection.features.len(),
                data.n_features(),
                selection.names.join(", ")
            ));
        }
        FeaturesOutcome::Honest(report) => report,
    };
    output::print(&format!(
        "feature selection `{}` evaluated by {} outer folds · learner {} · loss {} · data {} (n = {}, d = {})",
        spec.method,
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
